"""Following the table from frame to frame: hold the last good position while hands cover markers,
re-lock when the camera or the mat moved, and keep the per-frame work small.

The companion calls `TableTracker.update(frame)` once per frame and `TableTracker.rectify(...)`
for the top-down image. While the table stays put the homography is not refitted (so the
rectified image does not shimmer with detection noise and its warp maps are reused); only the
markers' neighbourhoods are searched, and a marker whose patch of the frame looks as it did when
it was last detected (only sensor noise changed) is not detected again at all.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from tablecam.calibration.geometry import MARKER_IDS, TableGeometry
from tablecam.calibration.images import check_frame, to_grey
from tablecam.calibration.lens import CameraProfile
from tablecam.calibration.markers import MarkerFinder, MarkerSighting, Sightings
from tablecam.calibration.topdown import RectifiedTable, RectifyMaps, rectify, rectify_maps
from tablecam.calibration.table import (MIN_MARKERS, TableFix, TableNotFound, fit_table, marker_sighting_errors_mm,
                                        search_markers)

# A marker that shifted more than this (mm, on the table) since the lock means the camera or the
# mat moved. Detection noise on a 2 px/mm frame is about 0.1 mm; a nudged camera is millimetres.
MOVED_MM = 1.5
# While markers are missing near their last places, search the whole frame only every so many
# frames: a covered marker must not make every frame pay for a full search.
FULL_SEARCH_EVERY = 10
# A marker's grey patch (its box) that differs from the patch it had when it was last detected by
# at most this fraction of its ink-to-paper contrast, in every cell of a PATCH_GRID x PATCH_GRID
# grid, has not moved: its last sighting is used again. Measured on simulator sequences (three
# cameras, JPEG, sensor noise): noise alone changes a cell by up to 0.03, a shift of half a pixel
# (a third of a millimetre at 1.4 px/mm, a fifth of MOVED_MM) by 0.044 or more, a finger far more.
PATCH_CHANGE = 0.04
PATCH_GRID = 4
# Below this contrast (grey levels) a patch says too little: the marker is always detected.
PATCH_MIN_CONTRAST = 30.0

COVERED = "{which} covered: using the last table position"
MOVED = "the camera or the mat moved: re-locked"


@dataclass(frozen=True)
class TrackerSettings:
    moved_mm: float = MOVED_MM
    full_search_every: int = FULL_SEARCH_EVERY
    patch_change: float = PATCH_CHANGE  # 0: detect every marker in every frame


@dataclass(frozen=True, eq=False)
class MarkerPatch:
    """A marker as it was last detected: the sighting and the grey pixels of its box."""

    sighting: MarkerSighting
    box: tuple[int, int, int, int]  # x0, y0, x1, y1 in frame pixels
    grey: np.ndarray  # uint8, the box's pixels
    bound: float  # the largest change of a grid cell's mean (grey levels) that is only noise


class TableTracker:
    """Small state: the current lock (a TableFix), a frame counter, the warp maps of the lock and
    each marker's patch as last detected."""

    def __init__(self, geometry: TableGeometry = TableGeometry(), profile: CameraProfile | None = None,
                 settings: TrackerSettings = TrackerSettings()) -> None:
        self.geometry = geometry
        self.profile = profile
        self.settings = settings
        self._finder = MarkerFinder(geometry=geometry)
        self._lock: TableFix | None = None
        self._frames_since_full_search = 0
        self._maps: RectifyMaps | None = None
        self._patches: dict[int, MarkerPatch] = {}

    @property
    def locked(self) -> TableFix | None:
        return self._lock

    def reset(self) -> None:
        self._lock = None
        self._maps = None
        self._patches = {}

    def update(self, frame: np.ndarray) -> TableFix:
        """Where the table is in this frame. Raises TableNotFound (a UserError) only while there has
        never been a lock and fewer than three markers show."""
        frame = check_frame(frame)
        size = (frame.shape[1], frame.shape[0])
        lock = self._lock
        if lock is not None and lock.image_size != size:
            lock = self._lock = None  # the camera mode changed: start again
            self._patches = {}
        if lock is None:
            grey = to_grey(frame)
            fix, sightings = self._full_lock(grey, size)
            self._lock = fix
            self._patches = self._remember(grey, sightings, {})
            return fix

        # Markers whose patch did not change keep their last sighting; only the others are
        # looked for, in windows around them (only the windows are turned grey).
        still = {m: p.sighting for m, p in self._patches.items() if patch_unchanged(frame, p)}
        expected = {m: c for m, c in _expected_corners(lock).items() if m not in still}
        sightings = self._finder.track(frame, expected) if expected else Sightings({})
        self._frames_since_full_search += 1
        if len(still) + len(sightings.markers) < len(MARKER_IDS) and \
                self._frames_since_full_search >= self.settings.full_search_every:
            self._frames_since_full_search = 0
            everywhere = self._finder.find_all(to_grey(frame))
            if len(everywhere.markers) > len(still) + len(sightings.markers):
                still, sightings = {}, everywhere
        self._patches = self._remember(frame, sightings, {m: self._patches[m] for m in still})
        merged = {**still, **sightings.markers}
        sightings = Sightings({m: merged[m] for m in sorted(merged)}, sightings.duplicates)
        return self._follow(lock, sightings, size, lambda s: self._detected_again(frame, lock, s, set(still)))

    def rectify(self, frame: np.ndarray, fix: TableFix, px_per_mm: float = 2.0,
                margin_mm: float = 40.0) -> RectifiedTable:
        """`rectify`, reusing the warp maps while the table has not moved."""
        if self._maps is None or not self._maps.fits(fix, px_per_mm, margin_mm):
            self._maps = rectify_maps(fix, px_per_mm, margin_mm)
        return rectify(frame, fix, px_per_mm, margin_mm, maps=self._maps)

    # --- steps --------------------------------------------------------------------------------------
    def _full_lock(self, grey: np.ndarray, size: tuple[int, int]) -> tuple[TableFix, Sightings]:
        self._frames_since_full_search = 0
        sightings = search_markers(self._finder, grey)
        return fit_table(sightings, self.geometry, self.profile, size), sightings

    def _remember(self, frame: np.ndarray, detected: Sightings, kept: dict[int, MarkerPatch]) -> dict[int, MarkerPatch]:
        """The patches to compare the next frame with: those of the markers detected in this frame,
        and the kept ones (unchanged since their detection). A marker not seen is forgotten."""
        out = dict(kept)
        if self.settings.patch_change <= 0:
            return out
        for m, s in detected.markers.items():
            patch = marker_patch(frame, s, self.settings.patch_change)
            if patch is not None:
                out[m] = patch
        return out

    def _detected_again(self, frame: np.ndarray, lock: TableFix, sightings: Sightings, reused: set[int]) -> Sightings:
        """The sightings with those reused from earlier frames detected again in this one: a new
        fit rests on this frame's corners only (as it would without reuse, to the last bit)."""
        again = [m for m in sightings.markers if m in reused]
        if not again:
            return sightings
        expected = _expected_corners(lock)
        fresh = self._finder.track(frame, {m: expected[m] for m in again})
        for m in again:
            self._patches.pop(m, None)
        self._patches = self._remember(frame, fresh, self._patches)
        markers = {m: s for m, s in sightings.markers.items() if m not in reused}
        markers.update(fresh.markers)
        return Sightings({m: markers[m] for m in sorted(markers)},
                         tuple(sorted(set(sightings.duplicates) | set(fresh.duplicates))))

    def _follow(self, lock: TableFix, sightings: Sightings, size: tuple[int, int],
                fresh=lambda sightings: sightings) -> TableFix:
        """The fix for this frame's sightings; `fresh` gives them as detected in this very frame
        (used before the table is fitted anew)."""
        shifts = marker_sighting_errors_mm(lock, sightings.markers)
        moved = {m: e for m, e in shifts.items() if e > self.settings.moved_mm}
        if len(moved) == 1 and len(shifts) - len(moved) >= 2:
            # One marker off while the others sit still: the table did not move; that marker was
            # nudged, or a finger over its edge bent its corners. Do not follow it.
            (odd,) = moved
            sightings = Sightings({m: s for m, s in sightings.markers.items() if m != odd}, sightings.duplicates)
            fix = self._follow(lock, sightings, size, fresh)
            note = f"marker {odd} is out of place (nudged or partly covered): using the last table position"
            covered = COVERED.format(which=f"marker {odd}")
            return fix.replace(warnings=tuple(w for w in fix.warnings if w != covered) + (note,))
        seen = tuple(sorted(sightings.markers))
        missing = [m for m in MARKER_IDS if m not in seen]
        now = fresh(sightings) if moved and len(seen) >= MIN_MARKERS else sightings
        if moved and len(now.markers) >= MIN_MARKERS:
            fix = fit_table(now, self.geometry, self.profile, size)
            fix = fix.replace(relocked=True, warnings=(MOVED,) + fix.warnings)
            self._lock = fix
            self._frames_since_full_search = 0
            return fix
        warnings = []
        if moved:
            warnings.append(f"the camera or the mat seems to have moved but only {len(seen)} "
                            f"marker{'s' if len(seen) != 1 else ''} can be seen: uncover the markers to re-lock")
        if missing:
            warnings.append(COVERED.format(which=_marker_list(missing)))
        if not missing and not moved and not lock.markers_seen == tuple(MARKER_IDS):
            # Locked from three markers and now all four show: refit once with all of them.
            try:
                better = fit_table(fresh(sightings), self.geometry, self.profile, size)
            except TableNotFound:
                better = None
            if better is not None:
                self._lock = better
                return better
        return lock.replace(markers_seen=seen, held=bool(missing or moved), relocked=False,
                            warnings=tuple(warnings))


def marker_patch(frame: np.ndarray, sighting: MarkerSighting, change: float = PATCH_CHANGE) -> MarkerPatch | None:
    """The marker's box in `frame` (grey), with the noise bound of its cells; None when the box
    leaves the frame or shows too little contrast to tell a change."""
    c = sighting.corners
    x0, y0 = np.floor(c.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(c.max(axis=0)).astype(int) + 3
    h, w = frame.shape[:2]
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h or min(x1 - x0, y1 - y0) < 4 * PATCH_GRID:
        return None
    grey = np.ascontiguousarray(to_grey(frame[y0:y1, x0:x1]))
    # Percentiles, not min and max: one hot pixel must not widen the bound.
    lo, hi = np.percentile(grey, (5, 95))
    if hi - lo < PATCH_MIN_CONTRAST:
        return None
    return MarkerPatch(sighting, (int(x0), int(y0), int(x1), int(y1)), grey, float(change * (hi - lo)))


def patch_unchanged(frame: np.ndarray, patch: MarkerPatch) -> bool:
    """Whether the marker's box looks as when it was detected, cell by cell (a mean over the whole
    box would let a fingertip over one corner pass)."""
    x0, y0, x1, y1 = patch.box
    if frame.shape[0] < y1 or frame.shape[1] < x1:
        return False
    diff = cv2.absdiff(to_grey(frame[y0:y1, x0:x1]), patch.grey)
    cells = cv2.resize(diff, (PATCH_GRID, PATCH_GRID), interpolation=cv2.INTER_AREA)
    return float(cells.max()) <= patch.bound


def _expected_corners(lock: TableFix) -> dict[int, np.ndarray]:
    """Where to look for each marker: where the lock saw it, or where the table says it is."""
    out = {}
    for m in MARKER_IDS:
        if m in lock.marker_corners_px:
            out[m] = lock.marker_corners_px[m]
        else:
            out[m] = lock.table_to_image(lock.geometry.marker_corners(m))
    return out


def _marker_list(ids: list[int]) -> str:
    if len(ids) == 1:
        return f"marker {ids[0]}"
    return "markers " + ", ".join(map(str, ids[:-1])) + f" and {ids[-1]}"
