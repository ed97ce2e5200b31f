"""Cutting square patches out of a camera frame, laid out in table millimetres.

Each patch is one warpPerspective of the raw frame with the patch's own homography, fitted to
where its four corners fall through the table fix (lens included). Over one tile the lens
bends too little for that to matter (a tenth of a pixel), and only the patch's pixels are
computed: reading sixty tiles costs a few milliseconds, not a rectification of the table.
"""

from __future__ import annotations

import cv2
import numpy as np


def square_patches(image: np.ndarray, to_image, centres_mm: np.ndarray, angle_deg: float, size_mm: float,
                   px_per_mm: float) -> np.ndarray:
    """Patches (N, n, n[, C]) of side `size_mm` centred on `centres_mm`, their axes turned by
    `angle_deg` (clockwise seen from above) from the table's.

    `to_image` maps table mm (M, 2) to frame pixels (M, 2) (TableFix.table_to_image). Pixel (a, b)
    of a patch shows the point centre + R(angle) @ ((a + 0.5) / ppm - size / 2, (b + 0.5) / ppm - size / 2).
    Outside the frame the patch is black.
    """
    centres = np.asarray(centres_mm, dtype=np.float64).reshape(-1, 2)
    n = int(round(size_mm * px_per_mm))
    shape = (len(centres), n, n) + image.shape[2:]
    out = np.zeros(shape, dtype=image.dtype)
    if len(centres) == 0:
        return out
    a = np.radians(angle_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    corners_px = np.array([[0, 0], [n - 1, 0], [n - 1, n - 1], [0, n - 1]], dtype=np.float64)
    local_mm = (corners_px + 0.5) / px_per_mm - size_mm / 2
    corners_mm = (centres[:, None, :] + (local_mm @ rot.T)[None]).reshape(-1, 2)
    frame_px = to_image(corners_mm).reshape(-1, 4, 2)
    src = corners_px.astype(np.float32)
    for k in range(len(centres)):
        h = cv2.getPerspectiveTransform(src, frame_px[k].astype(np.float32))
        cv2.warpPerspective(image, h, (n, n), out[k], flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                            borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return out


def quad_patches(image: np.ndarray, to_image, corners_mm: np.ndarray, n: int) -> np.ndarray:
    """Patches (N, n, n[, C]) whose corner pixels' centres show the table points `corners_mm`
    (N, 4, 2), in the order top-left, top-right, bottom-right, bottom-left: each patch follows its
    own four-sided piece of the table (a bent lattice cell, say), not a square."""
    corners = np.asarray(corners_mm, dtype=np.float64).reshape(-1, 4, 2)
    out = np.zeros((len(corners), n, n) + image.shape[2:], dtype=image.dtype)
    if len(corners) == 0:
        return out
    frame_px = to_image(corners.reshape(-1, 2)).reshape(-1, 4, 2)
    src = np.array([[0, 0], [n - 1, 0], [n - 1, n - 1], [0, n - 1]], dtype=np.float32)
    for k in range(len(corners)):
        h = cv2.getPerspectiveTransform(src, frame_px[k].astype(np.float32))
        cv2.warpPerspective(image, h, (n, n), out[k], flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                            borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return out
