"""Reading photos from disk, with one clear sentence for every way a file can be wrong."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import cv2
import numpy as np

from tablecam.errors import UserError

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")

# A JPEG ends with the EOI marker (FF D9). OpenCV 4.x decodes a file that was cut short
# into an image whose lower part is grey (and only warns on stderr), so we look for EOI
# ourselves. Some cameras append a trailer after EOI, hence a window rather than the
# last two bytes; inside entropy-coded data FF is always stuffed, so a stray FF D9 in
# that window cannot be image data.
_JPEG_EOI_WINDOW = 4096


def read_image(path: str | Path, grey: bool = False) -> np.ndarray:
    """The image at `path` as BGR (or grey) uint8, or UserError saying what is wrong with the file."""
    path = Path(path)
    if path.is_dir():
        raise UserError(f"{path} is a directory, not an image.")
    if not path.exists():
        raise UserError(f"no such image: {path}.")
    data = path.read_bytes()
    return decode_image(data, str(path), grey)


def decode_image(data: bytes, name: str, grey: bool = False) -> np.ndarray:
    """Decodes image bytes (JPEG, PNG, ...); `name` is only used in the error sentence."""
    if not data:
        raise UserError(f"{name} is empty (0 bytes): it is not an image.")
    if data[:2] == b"\xff\xd8" and b"\xff\xd9" not in data[-_JPEG_EOI_WINDOW:]:
        raise UserError(f"{name} is a damaged JPEG (the file is cut short).")
    buf = np.frombuffer(data, dtype=np.uint8)
    image = cv2.imdecode(buf, cv2.IMREAD_GRAYSCALE if grey else cv2.IMREAD_COLOR)
    if image is None or image.size == 0:
        raise UserError(f"{name} is not an image that can be read (damaged, or not JPEG/PNG).")
    return image


def image_paths(arguments: Iterable[str | Path]) -> list[Path]:
    """Files named on the command line; a directory stands for the images inside it (sorted)."""
    paths: list[Path] = []
    for arg in arguments:
        p = Path(arg)
        if p.is_dir():
            found = sorted(f for f in p.iterdir() if f.is_file() and f.suffix.lower() in IMAGE_SUFFIXES)
            if not found:
                raise UserError(f"the directory {p} holds no images ({', '.join(IMAGE_SUFFIXES[:3])}...).")
            paths.extend(found)
        elif p.exists():
            paths.append(p)
        else:
            raise UserError(f"no such image or directory: {p}.")
    if not paths:
        raise UserError("no images were given.")
    return paths


def to_grey(image: np.ndarray) -> np.ndarray:
    if image.ndim == 2:
        return image
    if image.ndim == 3 and image.shape[2] == 1:
        return image[:, :, 0]
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2GRAY)
    if image.ndim == 3 and image.shape[2] == 3:
        return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    raise UserError(f"an image must be grey or colour (BGR), not an array of shape {image.shape}.")


def check_frame(image: object) -> np.ndarray:
    """A camera frame as a uint8 array, or UserError (an empty frame, a wrong type)."""
    if not isinstance(image, np.ndarray) or image.size == 0 or image.ndim not in (2, 3):
        raise UserError("the camera frame is empty or not an image.")
    if image.dtype != np.uint8:
        raise UserError(f"a camera frame must hold 8-bit pixels, not {image.dtype}.")
    return image
