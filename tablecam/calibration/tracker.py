"""Following the table from frame to frame: hold the last good position while hands cover markers,
re-lock when the camera or the mat moved, and keep the per-frame work small.

The companion calls `TableTracker.update(frame)` once per frame and `TableTracker.rectify(...)`
for the top-down image. While the table stays put the homography is not refitted (so the
rectified image does not shimmer with detection noise and its warp maps are reused); only the
markers' neighbourhoods are searched.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tablecam.calibration.geometry import MARKER_IDS, TableGeometry
from tablecam.calibration.images import check_frame, to_grey
from tablecam.calibration.lens import CameraProfile
from tablecam.calibration.markers import MarkerFinder, Sightings
from tablecam.calibration.topdown import RectifiedTable, RectifyMaps, rectify, rectify_maps
from tablecam.calibration.table import MIN_MARKERS, TableFix, TableNotFound, fit_table, marker_sighting_errors_mm

# A marker that shifted more than this (mm, on the table) since the lock means the camera or the
# mat moved. Detection noise on a 2 px/mm frame is about 0.1 mm; a nudged camera is millimetres.
MOVED_MM = 1.5
# While markers are missing near their last places, search the whole frame only every so many
# frames: a covered marker must not make every frame pay for a full search.
FULL_SEARCH_EVERY = 10

COVERED = "{which} covered: using the last table position"
MOVED = "the camera or the mat moved: re-locked"


@dataclass(frozen=True)
class TrackerSettings:
    moved_mm: float = MOVED_MM
    full_search_every: int = FULL_SEARCH_EVERY


class TableTracker:
    """Small state: the current lock (a TableFix), a frame counter and the warp maps of the lock."""

    def __init__(self, geometry: TableGeometry = TableGeometry(), profile: CameraProfile | None = None,
                 settings: TrackerSettings = TrackerSettings()) -> None:
        self.geometry = geometry
        self.profile = profile
        self.settings = settings
        self._finder = MarkerFinder()
        self._lock: TableFix | None = None
        self._frames_since_full_search = 0
        self._maps: RectifyMaps | None = None

    @property
    def locked(self) -> TableFix | None:
        return self._lock

    def reset(self) -> None:
        self._lock = None
        self._maps = None

    def update(self, frame: np.ndarray) -> TableFix:
        """Where the table is in this frame. Raises TableNotFound (a UserError) only while there has
        never been a lock and fewer than three markers show."""
        frame = check_frame(frame)
        size = (frame.shape[1], frame.shape[0])
        lock = self._lock
        if lock is not None and lock.image_size != size:
            lock = self._lock = None  # the camera mode changed: start again
        if lock is None:
            self._lock = fix = self._full_lock(to_grey(frame), size)
            return fix

        # Only the windows around the markers are looked at (and turned grey).
        sightings = self._finder.track(frame, _expected_corners(lock))
        self._frames_since_full_search += 1
        if len(sightings.markers) < len(MARKER_IDS) and self._frames_since_full_search >= self.settings.full_search_every:
            self._frames_since_full_search = 0
            everywhere = self._finder.find_all(to_grey(frame))
            if len(everywhere.markers) > len(sightings.markers):
                sightings = everywhere
        return self._follow(lock, sightings, size)

    def rectify(self, frame: np.ndarray, fix: TableFix, px_per_mm: float = 2.0,
                margin_mm: float = 40.0) -> RectifiedTable:
        """`rectify`, reusing the warp maps while the table has not moved."""
        if self._maps is None or not self._maps.fits(fix, px_per_mm, margin_mm):
            self._maps = rectify_maps(fix, px_per_mm, margin_mm)
        return rectify(frame, fix, px_per_mm, margin_mm, maps=self._maps)

    # --- steps --------------------------------------------------------------------------------------
    def _full_lock(self, grey: np.ndarray, size: tuple[int, int]) -> TableFix:
        self._frames_since_full_search = 0
        sightings = self._finder.find_all(grey)
        if len(sightings.markers) < len(MARKER_IDS):
            full = self._finder.find_all(grey, long_side=max(grey.shape))
            if len(full.markers) > len(sightings.markers):
                sightings = full
        return fit_table(sightings, self.geometry, self.profile, size)

    def _follow(self, lock: TableFix, sightings: Sightings, size: tuple[int, int]) -> TableFix:
        shifts = marker_sighting_errors_mm(lock, sightings.markers)
        moved = {m: e for m, e in shifts.items() if e > self.settings.moved_mm}
        if len(moved) == 1 and len(shifts) - len(moved) >= 2:
            # One marker off while the others sit still: the table did not move; that marker was
            # nudged, or a finger over its edge bent its corners. Do not follow it.
            (odd,) = moved
            sightings = Sightings({m: s for m, s in sightings.markers.items() if m != odd}, sightings.duplicates)
            fix = self._follow(lock, sightings, size)
            note = f"marker {odd} is out of place (nudged or partly covered): using the last table position"
            covered = COVERED.format(which=f"marker {odd}")
            return fix.replace(warnings=tuple(w for w in fix.warnings if w != covered) + (note,))
        seen = tuple(sorted(sightings.markers))
        missing = [m for m in MARKER_IDS if m not in seen]
        if moved and len(seen) >= MIN_MARKERS:
            fix = fit_table(sightings, self.geometry, self.profile, size)
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
                better = fit_table(sightings, self.geometry, self.profile, size)
            except TableNotFound:
                better = None
            if better is not None:
                self._lock = better
                return better
        return lock.replace(markers_seen=seen, held=bool(missing or moved), relocked=False,
                            warnings=tuple(warnings))


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
