"""Enigmo's row of ten shutters: which are open, from the row's four corners marked once.

The user marks the row on the live picture once (top-left, top-right, bottom-right,
bottom-left as seen from the camera, shutter 1 at the left); the corners are kept in table mm,
so the camera may be nudged afterwards. Each shutter is then sampled on a grid over its lower
part (an opened flap folds up against the top of the frame) and judged by what an open shutter
shows: the white word card. An open shutter is mostly card white (neutral and bright after the
markers' white balance) with a thin letter; a closed one is the shutters' colour with a thin
number. Anything in between (a hand, glare, a shutter half open) reads `None`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tablecam.calibration.geometry import TableGeometry
from tablecam.errors import UserError

SHUTTERS = 10
# Where a shutter is sampled, as fractions of its width and of the row's height.
_ACROSS = np.linspace(0.22, 0.78, 7)
_DOWN = np.linspace(0.3, 0.86, 8)
# A sample is card white when its brightest channel is at least this (after white balance) and
# its channels differ by less than this share of it.
CARD_LEVEL = 165.0
CARD_TINT = 0.2
# Share of card-white samples: at least OPEN -> open; at most CLOSED -> closed (if the rest is
# coloured plastic); in between -> unsure.
OPEN = 0.5
CLOSED = 0.25
PLASTIC_TINT = 0.25  # a closed shutter's plastic is clearly coloured (not grey, not skin-dull)
_MIN_SIDE_MM = 20.0


@dataclass(frozen=True)
class ShutterRow:
    """The row's four corners in table mm: top-left, top-right, bottom-right, bottom-left."""

    corners_mm: tuple[tuple[float, float], ...]

    def __post_init__(self) -> None:
        check_corners(self.corners_mm)

    @classmethod
    def from_list(cls, corners) -> "ShutterRow":
        return cls(_as_corners(corners, "mm"))

    def as_list(self) -> list[list[float]]:
        return [[round(x, 2), round(y, 2)] for x, y in self.corners_mm]

    def points_mm(self, across: np.ndarray = _ACROSS, down: np.ndarray = _DOWN) -> np.ndarray:
        """Sample points (SHUTTERS, len(across) * len(down), 2) in table mm."""
        tl, tr, br, bl = (np.array(c, dtype=np.float64) for c in self.corners_mm)
        out = np.empty((SHUTTERS, len(across) * len(down), 2))
        for k in range(SHUTTERS):
            s = (k + across) / SHUTTERS  # along the row
            top = tl[None, :] + s[:, None] * (tr - tl)[None, :]
            bottom = bl[None, :] + s[:, None] * (br - bl)[None, :]
            pts = top[None, :, :] + down[:, None, None] * (bottom - top)[None, :, :]
            out[k] = pts.reshape(-1, 2)
        return out

    def contains_mm(self, point, margin_mm: float = 0.0) -> bool:
        """True when a table point lies on the row (or within `margin_mm` of it)."""
        import cv2

        poly = np.array(self.corners_mm, dtype=np.float32)
        return cv2.pointPolygonTest(poly, (float(point[0]), float(point[1])), True) >= -margin_mm


def check_corners(corners, geometry: TableGeometry | None = None) -> None:
    """UserError unless four corners make a plausible row, in the right order."""
    pts = np.array(corners, dtype=np.float64)
    if pts.shape != (4, 2) or not np.all(np.isfinite(pts)):
        raise UserError("the shutter row needs four corners, each two numbers (x, y).")
    sides = [float(np.hypot(*(pts[(i + 1) % 4] - pts[i]))) for i in range(4)]
    if min(sides) < _MIN_SIDE_MM:
        raise UserError(f"the shutter row's corners are only {min(sides):.0f} mm apart: mark the four corners "
                        "of the whole row of ten shutters.")
    # with y pointing down (away from the camera's top), TL -> TR -> BR -> BL turns clockwise
    edges = [pts[(i + 1) % 4] - pts[i] for i in range(4)]
    turns = [float(edges[i][0] * edges[(i + 1) % 4][1] - edges[i][1] * edges[(i + 1) % 4][0]) for i in range(4)]
    if not all(t > 0 for t in turns):
        raise UserError("mark the shutter row's corners in this order: top-left, top-right, bottom-right, "
                        "bottom-left (shutter 1 on the left), making a convex four-sided shape.")
    if geometry is not None:
        lo, hi = -geometry.marker_mm * 2, np.array([geometry.width_mm, geometry.height_mm]) + geometry.marker_mm * 2
        if np.any(pts < lo) or np.any(pts > hi):
            raise UserError("the shutter row must lie on the table, between the four markers.")


def _as_corners(corners, unit: str) -> tuple[tuple[float, float], ...]:
    try:
        pts = tuple((float(x), float(y)) for x, y in corners)
    except (TypeError, ValueError):
        raise UserError(f"the shutter row needs four corners, each two numbers (x, y) in {unit}.") from None
    if len(pts) != 4:
        raise UserError(f"the shutter row needs four corners, not {len(pts)}.")
    return pts


def parse_corners(text: str) -> ShutterRow:
    """`"x,y x,y x,y x,y"` (table mm; commas or spaces) -> ShutterRow, or UserError."""
    numbers = text.replace(",", " ").replace(";", " ").split()
    try:
        values = [float(v) for v in numbers]
    except ValueError:
        raise UserError(f"the shutter row must be eight numbers (four corners x y, in mm), not {text!r}.") from None
    if len(values) != 8:
        raise UserError(f"the shutter row must be eight numbers (four corners x y, in mm), not {len(values)}.")
    return ShutterRow(tuple((values[i], values[i + 1]) for i in range(0, 8, 2)))


def judge(samples_bgr: np.ndarray) -> tuple[list[bool | None], list[float]]:
    """Open (True), closed (False) or unsure (None) for each shutter, from white-balanced BGR
    samples (SHUTTERS, N, 3); with the share of card-white samples of each."""
    s = np.asarray(samples_bgr, dtype=np.float64)
    top = s.max(axis=2)
    tint = (top - s.min(axis=2)) / np.maximum(top, 1.0)
    card = (top >= CARD_LEVEL) & (tint <= CARD_TINT)
    share = card.mean(axis=1)
    out: list[bool | None] = []
    for k in range(len(s)):
        if share[k] >= OPEN:
            out.append(True)
        elif share[k] <= CLOSED and np.median(tint[k][~card[k]]) >= PLASTIC_TINT:
            out.append(False)
        else:
            out.append(None)
    return out, [float(v) for v in share]
