"""Tiles lying face down beside the board (the core, a player's reserve): plain squares of a tile's
size, of one colour that is not paper, with no ink on them.

Squares are found as outlines in the edges of the rectified play area that fill their smallest
enclosing rectangle, of a tile's side give or take 15 %; each is then cut out of the frame
(square-aligned) and kept when its middle is even (a printed back has no marks) and not
paper-white.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .print_ink import work_array
from .table_patches import square_patches

SIDE_TOLERANCE = 0.15
MIN_RECTANGULARITY = 0.85  # contour area / its smallest enclosing rectangle's
INSET = 0.15  # of a side: the back's middle, clear of the rim and of blur from outside
MAX_UNEVENNESS = 0.07  # std / mean of the middle's grey: a printed face is far from even
READ_PX_PER_MM = 1.0


@dataclass(frozen=True)
class FaceDown:
    centre_mm: tuple[float, float]
    angle_deg: float  # the square's turn, in (-45, 45]


def find_face_down(grey: np.ndarray, px_to_mm, valid: np.ndarray, frame: np.ndarray, to_image, tile_mm: float,
                   paper_level: float | None, taken_mm: np.ndarray) -> list[FaceDown]:
    """Face-down tiles in the rectified grey play area `grey` (px_to_mm maps its pixels to table mm).

    `taken_mm`: centres of tiles already read face up (their outlines are squares too);
    `paper_level`: the board's paper grey in the frame, when known (a back is darker or coloured).
    """
    ppm = 1.0 / float(np.linalg.norm(px_to_mm(np.array([[1.0, 0.0]])) - px_to_mm(np.array([[0.0, 0.0]]))))
    side_px = tile_mm * ppm
    # Work arrays kept between frames (print_ink.work_array): the play area's size, fresh each frame
    # they cost page faults.
    smooth = cv2.GaussianBlur(grey, (3, 3), 0, dst=work_array("face_down_smooth", grey.shape, np.uint8))
    edges = cv2.Canny(smooth, 20, 60, edges=work_array("face_down_edges", grey.shape, np.uint8))
    edges = cv2.multiply(edges, valid.view(np.uint8), dst=edges)  # 255 * 0 outside the view and on markers
    edges = cv2.dilate(edges, np.ones((2, 2), np.uint8), dst=work_array("face_down_dilated", grey.shape, np.uint8))
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    squares: list[tuple[np.ndarray, float]] = []
    smallest, largest = (0.7 * side_px) ** 2, (1.3 * side_px) ** 2
    # Most outlines are specks of texture: their area alone rules them out.
    areas = [cv2.contourArea(c) for c in contours]
    for c, area in zip(contours, areas):
        if area < smallest or area > largest:
            continue
        (cx, cy), (w, h), angle = cv2.minAreaRect(c)
        # The edges of a square seen by Canny lie a pixel or so outside or inside it (rim, shadow).
        if abs(w - side_px) > SIDE_TOLERANCE * side_px + 2 or abs(h - side_px) > SIDE_TOLERANCE * side_px + 2:
            continue
        if area < MIN_RECTANGULARITY * w * h:
            continue
        centre = px_to_mm(np.array([[cx, cy]]))[0]
        angle = (angle + 45.0) % 90.0 - 45.0
        if len(taken_mm) and np.min(np.hypot(*(np.asarray(taken_mm) - centre).T)) < 0.8 * tile_mm:
            continue
        if any(np.hypot(*(centre - s)) < 0.5 * tile_mm for s, _ in squares):
            continue
        squares.append((centre, angle))
    if not squares:
        return []
    centres = np.array([s for s, _ in squares])
    out = []
    for (centre, angle), patch in zip(squares, (square_patches(frame, to_image, centres[k:k + 1], squares[k][1],
                                                               tile_mm, READ_PX_PER_MM)[0]
                                               for k in range(len(squares)))):
        n = patch.shape[0]
        inset = int(round(INSET * n))
        middle = patch[inset:n - inset, inset:n - inset]
        g = cv2.cvtColor(middle, cv2.COLOR_BGR2GRAY).astype(np.float32) if middle.ndim == 3 else middle.astype(np.float32)
        mean = float(g.mean())
        if mean < 8 or float(g.std()) / mean > MAX_UNEVENNESS:
            continue
        if paper_level is not None and mean > 0.85 * paper_level:
            continue  # as white as paper: a blank sheet, not a tile's back
        out.append(FaceDown((float(centre[0]), float(centre[1])), float(angle)))
    return out


