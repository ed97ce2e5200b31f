"""A camera frame seen as the table: where the table is, the frame's own white reference, a
white-balanced top-down image to search in, and colours sampled at any table points.

Searching needs a whole picture of the play area, but coarse (0.5-1 px/mm is plenty to find a
board or a tile); reading a piece needs its own few hundred pixels, sharp. So the top-down image is
small, and pieces are read by sampling the raw frame at their table points through the fix (lens
included): no second, fine rectification of the whole table is ever made.

`TableReader` keeps the table lock and the warp maps from frame to frame (the companion); `read_table`
reads one photo on its own (`tablecam detect`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from tablecam.calibration.geometry import MARKER_IDS, TableGeometry
from tablecam.calibration.images import check_frame
from tablecam.calibration.light import LightReference, white_reference
from tablecam.calibration.table import TableFix, find_table
from tablecam.calibration.topdown import RectifiedTable, rectify
from tablecam.calibration.tracker import TableTracker
from tablecam.errors import UserError

CLIPPED = 250  # a raw channel at or above this is at the sensor's limit


@dataclass(frozen=True, eq=False)
class TableView:
    """One frame over the table."""

    frame: np.ndarray  # the raw camera frame, BGR
    fix: TableFix
    light: LightReference | None  # None: no marker paper could be sampled (then colours are raw)
    top: RectifiedTable  # white-balanced, BGR, coarse
    valid: np.ndarray  # bool, per top pixel: seen by the camera and not a marker with its paper
    lut: np.ndarray | None  # (1, 256, 3) uint8: the white balance as a lookup table, per channel

    @property
    def ppm(self) -> float:
        return self.top.px_per_mm

    def sample(self, points_mm) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """At table points (N, 2), read from the raw frame (bilinear): white-balanced BGR (N, 3)
        float32, whether each point lies inside the frame (N,), and which channels the sensor
        clipped (N, 3) (at the sensor's limit before the white balance, or at 255 after it)."""
        raw, inside = self._raw_at(points_mm)
        got = self._balanced(raw)
        # Clipped by the sensor, or pushed to the top by the white balance (both hide the true value).
        clipped = (raw >= CLIPPED) | (got >= 254)
        return got.astype(np.float32), inside, clipped

    def sample_levels(self, points_mm) -> tuple[np.ndarray, np.ndarray]:
        """`sample`'s white-balanced BGR as the whole levels they are (N, 3) uint8, and whether each
        point lies inside the frame: for a caller that asks nothing of the clipped channels (their
        tests and the float copy cost about what the look-up does)."""
        raw, inside = self._raw_at(points_mm)
        return self._balanced(raw), inside

    def _raw_at(self, points_mm) -> tuple[np.ndarray, np.ndarray]:
        """The raw frame at table points (N, 2), bilinear: BGR (N, 3) uint8, and which lie inside it."""
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
        if len(pts) == 0:
            return np.zeros((0, 3), np.uint8), np.zeros(0, bool)
        px = self.fix.table_to_image(pts).astype(np.float32)
        h, w = self.frame.shape[:2]
        inside = (px[:, 0] >= 0) & (px[:, 0] <= w - 1) & (px[:, 1] >= 0) & (px[:, 1] <= h - 1)
        # remap wants a 2D map shorter than 32767 a side: fold the points into rows.
        n = len(px)
        width = min(n, 1024)
        rows = -(-n // width)
        maps = np.zeros((rows * width, 2), np.float32)
        maps[:n] = px
        maps = maps.reshape(rows, width, 2)
        raw = cv2.remap(self.frame, maps[..., 0].copy(), maps[..., 1].copy(), cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_REPLICATE)
        return raw.reshape(-1, 3)[:n], inside

    def _balanced(self, raw: np.ndarray) -> np.ndarray:
        """Raw BGR levels (N, 3) uint8 white-balanced (N, 3)."""
        # (As an N x 1 image of three channels: the look-up is per channel.)
        if self.lut is None or len(raw) == 0:
            return raw
        return cv2.LUT(raw.reshape(-1, 1, 3), self.lut).reshape(-1, 3)

    def sample_grids(self, centres_mm, ticks_mm) -> tuple[np.ndarray, np.ndarray]:
        """At square grids of table points, one per centre (M, 2): point (i, j) of grid m is
        centres_mm[m] + (ticks_mm[j], ticks_mm[i]). Read from the raw frame (bilinear) as `sample`
        does: white-balanced BGR (M, n, n, 3) uint8 and whether each point lies inside the frame
        (M, n, n). No clipped channels (ask `sample` where they matter). The ticks must be evenly
        spaced (the interpolation goes by tick index) and m * n rows stay under remap's 32767.

        The lens projection of every point is most of a dense grid's cost: it is made on every
        GRID_STEP-th tick (and the last) and interpolated between them, as the warp maps are (over
        ENIX's 0.5 mm ticks, knots 2 mm apart, the place is off by at most 6e-4 px on the bench's
        camera: about one read in 800 then crosses one of remap's 1/32-pixel steps)."""
        centres = np.asarray(centres_mm, dtype=np.float64).reshape(-1, 2)
        ticks = np.asarray(ticks_mm, dtype=np.float64).ravel()
        n, m = len(ticks), len(centres)
        if m == 0 or n == 0:
            return np.zeros((m, n, n, 3), np.uint8), np.zeros((m, n, n), bool)
        knots = _grid_knots(n)
        weights = _knot_weights(n)  # (n, k): each tick from its two knots
        kx, ky = ticks[knots][None, :], ticks[knots][:, None]  # (1, k) and (k, 1)
        coarse_mm = np.stack(np.broadcast_arrays(centres[:, 0, None, None] + kx, centres[:, 1, None, None] + ky), -1)
        k = len(knots)
        coarse = self.fix.table_to_image(coarse_mm.reshape(-1, 2)).reshape(m, k, k, 2)
        # Separable linear interpolation, x and y apart: W @ C @ W.T per grid (rows, then columns).
        px = (weights @ coarse.transpose(0, 3, 1, 2) @ weights.T).astype(np.float32)  # (M, 2, n, n)
        x, y = px[:, 0], px[:, 1]
        h, w = self.frame.shape[:2]
        inside = (x >= 0) & (x <= w - 1) & (y >= 0) & (y <= h - 1)
        raw = cv2.remap(self.frame, x.reshape(m * n, n), y.reshape(m * n, n), cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_REPLICATE)
        got = cv2.LUT(raw, self.lut) if self.lut is not None else raw
        return got.reshape(m, n, n, 3), inside

    def px_per_mm_in_frame(self, at_mm) -> float:
        """How many frame pixels a millimetre of table spans near `at_mm` (the camera's own resolution)."""
        x, y = at_mm
        p = self.fix.table_to_image([(x, y), (x + 10.0, y), (x, y + 10.0)])
        return float(min(np.linalg.norm(p[1] - p[0]), np.linalg.norm(p[2] - p[0])) / 10.0)


GRID_STEP = 4  # ticks between the points a grid sample projects exactly (sample_grids)


@lru_cache(maxsize=8)
def _grid_knots(n: int) -> np.ndarray:
    """The ticks of an n-tick grid projected exactly: every GRID_STEP-th, and the last."""
    knots = np.unique(np.append(np.arange(0, n, GRID_STEP), n - 1))
    knots.setflags(write=False)
    return knots


@lru_cache(maxsize=8)
def _knot_weights(n: int) -> np.ndarray:
    """(n, knots): each tick as the linear blend of the two knots about it (a knot is itself)."""
    knots = _grid_knots(n)
    out = np.zeros((n, len(knots)))
    at = np.clip(np.searchsorted(knots, np.arange(n), side="right") - 1, 0, max(len(knots) - 2, 0))
    if len(knots) == 1:
        out[:, 0] = 1.0
    else:
        f = (np.arange(n) - knots[at]) / (knots[at + 1] - knots[at])
        out[np.arange(n), at] = 1.0 - f
        out[np.arange(n), at + 1] += f
    out.setflags(write=False)
    return out


class TableReader:
    """Frame after frame: the table tracker's lock, and the search image's warp maps, are kept."""

    def __init__(self, geometry: TableGeometry = TableGeometry(), profile=None, search_ppm: float = 1.0,
                 margin_mm: float = 20.0) -> None:
        self.geometry = geometry
        self.profile = profile
        self.search_ppm = search_ppm
        self.margin_mm = margin_mm
        self._tracker = TableTracker(geometry, profile)

    def view(self, frame: np.ndarray) -> TableView:
        frame = _colour_frame(frame)
        fix = self._tracker.update(frame)
        top = self._tracker.rectify(frame, fix, self.search_ppm, self.margin_mm)
        return _view(frame, fix, top)


def read_table(frame: np.ndarray, geometry: TableGeometry = TableGeometry(), profile=None, search_ppm: float = 1.0,
               margin_mm: float = 20.0) -> TableView:
    """One photo on its own. Raises UserError (one sentence) for a bad frame or too few markers."""
    frame = _colour_frame(frame)
    fix = find_table(frame, geometry, profile)
    top = rectify(frame, fix, search_ppm, margin_mm)
    return _view(frame, fix, top)


def _colour_frame(frame) -> np.ndarray:
    frame = check_frame(frame)
    if frame.ndim != 3 or frame.shape[2] != 3:
        raise UserError("the pieces are told apart by colour: the camera frame must be a colour (BGR) image.")
    return frame


def _view(frame: np.ndarray, fix: TableFix, top: RectifiedTable) -> TableView:
    valid = search_area(fix, top)
    try:
        light = white_reference(frame, fix)
    except UserError:
        light = None  # every marker seen is covered: colours are judged raw (a warning says so)
    lut = np.ascontiguousarray(light.lookup_tables().T).reshape(1, 256, 3) if light is not None else None
    image = cv2.LUT(top.image, lut) if lut is not None else top.image
    return TableView(frame, fix, light, RectifiedTable(image, top.raster, fix), valid, lut)


def search_area(fix: TableFix, top: RectifiedTable) -> np.ndarray:
    """Top-down pixels the camera sees (outside its view the rectified image is black), minus each
    marker with its white paper."""
    seen = cv2.cvtColor(top.image, cv2.COLOR_BGR2GRAY) > 0
    g = fix.geometry
    keep_out = g.marker_mm / 2 + g.marker_mm / 3
    for m in MARKER_IDS:
        cx, cy = g.marker_centre(m)
        (x0, y0), (x1, y1) = top.mm_to_px([(cx - keep_out, cy - keep_out), (cx + keep_out, cy + keep_out)])
        seen[max(int(y0), 0):max(int(np.ceil(y1)) + 1, 0), max(int(x0), 0):max(int(np.ceil(x1)) + 1, 0)] = False
    return seen
