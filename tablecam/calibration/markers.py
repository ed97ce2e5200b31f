"""Finding the four table markers (ArUco DICT_4X4_50, ids 0..3) in a grey frame, cheaply.

Detection runs on a reduced image (ArUco's cost grows with the pixel count, and a 40 mm
marker is still 40+ px wide there); the corners are then refined at full resolution with
cornerSubPix, so accuracy does not suffer from the reduction.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from tablecam.calibration.geometry import ARUCO_DICTIONARY, MARKER_IDS, TableGeometry

# Long side of the reduced image for a search of the whole frame. 2028x1520 -> 1024x767.
FULL_SEARCH_LONG_SIDE = 1024
# Marker side (px) at which detection is reliable; a search near known markers reduces to it.
DETECTION_SIDE_PX = 48.0
# A whole-frame search first looks for the markers roughly at half its resolution, then runs the
# real detection only in windows around them (see MarkerFinder._detect_in_windows); below this
# long side (px) the rough look costs about as much as it saves.
STAGED_FROM_LONG_SIDE = 600
# How far (marker sides) around the place the markers seen predict a whole-frame search looks for
# a marker its rough look missed.
MISSED_MARKER_REACH = 3.0
# Margin (marker sides, plus 12 px) of the window in which the detector confirms a marker the rough look
# saw: a cell (1/6 side) for the quiet zone's outline, 11 px for the threshold windows, and room for the
# rough corners' error. A whole side cost a third more work for the same corners (100 photos, 4 games).
WINDOW_MARGIN = 0.5
# A rough look whose markers are not all confirmed in their windows still stands when this many
# are (the table can be fixed from them; see MarkerFinder._detect_in_windows).
MIN_CONFIRMED = 3
# The largest threshold window (px) of the detector confirming a marker in its window: OpenCV's
# passes at 3 and 13 px, not the third at 23. In a window the marker and its paper fill most of the
# picture, and the 13 px pass already sees the outline the 23 px one would; the third pass cost a
# third of the confirmation (0.4 ms a photo) and changed no marker found on 600 photos of three games
# (corners: the same to 0.002 px on 95 % of them; at most 0.5 px on a 28 px marker, whose refined
# corners move that much with where the detector puts its rough corners). See docs/calibration.md,
# session 16, for what that moves downstream.
WINDOW_THRESH_MAX = 13


@dataclass(frozen=True)
class MarkerSighting:
    """Corners in full-resolution pixels, ArUco order (clockwise from the marker's own top-left)."""

    marker_id: int
    corners: np.ndarray  # (4, 2) float64

    @property
    def centre(self) -> np.ndarray:
        return quad_centre(self.corners)

    @property
    def side_px(self) -> float:
        c = self.corners
        return float(np.mean(np.linalg.norm(c - np.roll(c, -1, axis=0), axis=1)))


@dataclass(frozen=True)
class Sightings:
    markers: Mapping[int, MarkerSighting]
    duplicates: tuple[int, ...] = ()  # ids seen more than once (ignored: we cannot tell which is right)
    # find_all(..., refine=False): every detection (id, corners) as the detector gave it, which
    # MarkerFinder.refined turns into the refined sightings (`markers` then holds the unrefined ones).
    unrefined: tuple[tuple[int, np.ndarray], ...] = ()


class MarkerFinder:
    """An ArUco detector for the table markers. Holds OpenCV detector objects only (no frame state).

    With the table's `geometry` (markers `MARKER_IDS` at its corners), a whole-frame search that
    roughly saw two or three markers looks for the others where they put them instead of everywhere."""

    def __init__(self, dictionary: str = ARUCO_DICTIONARY, ids: Iterable[int] = MARKER_IDS,
                 geometry: TableGeometry | None = None) -> None:
        self.ids = tuple(ids)
        self.geometry = geometry if sorted(self.ids) == sorted(MARKER_IDS) else None
        aruco_dict = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
        params = cv2.aruco.DetectorParameters()
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE  # we refine at full resolution
        # The outline of a marker's white quiet zone is a square candidate too, one cell outside the
        # marker. With the default rate (0.125 of the perimeter = half a side) OpenCV treats the two
        # as one and may keep the quiet-zone outline, which then fails to decode and the marker is
        # lost (seen on tight search windows). 0.05 keeps them apart.
        params.minMarkerDistanceRate = 0.05
        self._dictionary = aruco_dict
        self._params = params
        self._detector = cv2.aruco.ArucoDetector(aruco_dict, params)
        # The rough look only has to say where to search: it reads bits more leniently (a marker
        # is 10-20 px wide there) and whatever it claims is checked by the real detector.
        rough = cv2.aruco.DetectorParameters()
        rough.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE
        rough.minMarkerDistanceRate = 0.05
        rough.minMarkerPerimeterRate = 0.04  # 20 px round at 512 px: half the smallest marker's; fewer specks to read
        rough.perspectiveRemovePixelPerCell = 8
        rough.errorCorrectionRate = 1.0
        # One threshold pass (3 px windows) instead of OpenCV's three: at half of 1024 px the markers
        # are 10-20 px wide and their ink-to-paper edge is sharp, so the smallest window finds them as
        # often as the passes at 13 and 23 px (1 photo in 30 with a marker fewer), for less than half
        # the work (the larger windows keep the texture of the table top as contours).
        rough.adaptiveThreshWinSizeMax = 3
        self._rough = cv2.aruco.ArucoDetector(aruco_dict, rough)
        self._bits = {m: marker_bits(m, dictionary) for m in self.ids}

    def find_all(self, grey: np.ndarray, long_side: int = FULL_SEARCH_LONG_SIDE,
                 near: Sightings | None = None, refine: bool = True) -> Sightings:
        """Searches the whole frame, reduced so its long side is at most `long_side` px.

        `near`: what a search of this frame at a smaller size found (at least three markers, no
        duplicate). At full size (the second try, for markers too small at the reduced size) the
        detector then runs in windows around them and where they put the missing one, which
        gives what a search of the whole frame gives; only if the missing one is not there (it
        is covered) is the whole frame searched. Without `near`, the rough look at half the full
        size would cost about as much as it saves after a covered marker.

        `refine=False`: the detector's corners, not yet refined at full resolution (`refined`
        turns them into what `find_all` gives), for a search that may be followed by a full-size
        try: the refinement is then only paid for the sightings kept."""
        scale = min(1.0, long_side / max(grey.shape))
        found = None
        if scale >= 1.0 and near is not None and len(near.markers) >= 3 and not near.duplicates:
            found = self._detect_in_windows(grey, [(m, s.corners) for m, s in near.markers.items()])
        if found is None:
            found = self._detect(grey, scale, staged=scale < 1.0)
        found = [(mid, c) for mid, c in found if mid in self.ids]
        if not refine:
            kept = self._keep(found)
            return Sightings(kept.markers, kept.duplicates, tuple(found))
        refined = refine_corners_many([(grey, c) for _, c in found])
        return self._keep([(mid, c) for (mid, _), c in zip(found, refined)])

    def refined(self, grey: np.ndarray, sightings: Sightings) -> Sightings:
        """The sightings of `find_all(..., refine=False)` refined at full resolution: what `find_all`
        would have given."""
        found = sightings.unrefined
        refined = refine_corners_many([(grey, c) for _, c in found])
        return self._keep([(mid, c) for (mid, _), c in zip(found, refined)])

    def find_near(self, image: np.ndarray, expected: Mapping[int, np.ndarray], pad_sides: float = 1.0) -> Sightings:
        """Searches only around the given corner positions (one window per marker, the marker's
        box grown by `pad_sides` marker sides each way); each window accepts only its own id.

        `image` may be colour: only the windows are turned grey, which saves converting the frame."""
        h, w = image.shape[:2]
        found: list[tuple[int, np.ndarray, np.ndarray, tuple[int, int]]] = []  # id, corners, window, its origin
        for marker_id, corners in expected.items():
            corners = np.asarray(corners, dtype=np.float64).reshape(4, 2)
            side = _mean_side(corners)
            pad = max(pad_sides * side, 16.0)
            x0, y0 = np.floor(corners.min(axis=0) - pad).astype(int)
            x1, y1 = np.ceil(corners.max(axis=0) + pad).astype(int)
            x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
            if x1 - x0 < 8 or y1 - y0 < 8:
                continue
            window = _grey(image[y0:y1, x0:x1])
            scale = min(1.0, DETECTION_SIDE_PX / max(side, 1.0))
            found += [(mid, c, window, (x0, y0)) for mid, c in self._detect(window, scale) if mid == marker_id]
        refined = refine_corners_many([(window, c) for _, c, window, _ in found])
        return self._keep([(mid, c + origin) for (mid, _, _, origin), c in zip(found, refined)])

    def track(self, image: np.ndarray, expected: Mapping[int, np.ndarray]) -> Sightings:
        """Markers near where they were: first the cheap way (fit the edges where the marker was
        and check its cells), then, for markers that moved or hide, ArUco in a window around them."""
        h, w = image.shape[:2]
        found: list[tuple[int, np.ndarray]] = []
        lost: dict[int, np.ndarray] = {}
        windows = []  # id, its window (grey), the window's origin, the corners in it
        for marker_id, corners in expected.items():
            corners = np.asarray(corners, dtype=np.float64).reshape(4, 2)
            side = _mean_side(corners)
            pad = int(np.ceil(side / 3)) + 4
            x0, y0 = np.floor(corners.min(axis=0)).astype(int) - pad
            x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + pad
            x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
            if x1 - x0 >= 8 and y1 - y0 >= 8:
                windows.append((marker_id, _grey(image[y0:y1, x0:x1]), (x0, y0), corners - (x0, y0)))
            else:
                lost[marker_id] = corners
        fits = fit_edges_many([(window, local) for _, window, _, local in windows])
        for (marker_id, window, origin, _), fitted in zip(windows, fits):
            if fitted is None or not shows_marker(window, fitted, self._bits[marker_id]):
                lost[marker_id] = np.asarray(expected[marker_id], dtype=np.float64).reshape(4, 2)
            else:
                found.append((marker_id, fitted + origin))
        if lost:
            lost = {m: lost[m] for m in expected if m in lost}  # in the order asked
            found += [(m, s.corners) for m, s in self.find_near(image, lost).markers.items()]
        return self._keep(found)

    def _detect(self, grey: np.ndarray, scale: float, staged: bool = False) -> list[tuple[int, np.ndarray]]:
        small = _reduced(grey, scale)
        found = self._detect_in_windows(small) if staged else None
        if found is None:
            found = _markers(self._detector, small)
        sx = grey.shape[1] / small.shape[1]
        sy = grey.shape[0] / small.shape[0]
        # Pixel centres: x_full + 0.5 = (x_small + 0.5) * s.
        return [(mid, (c.astype(np.float64) + 0.5) * (sx, sy) - 0.5) for mid, c in found]

    def _detect_in_windows(self, small: np.ndarray, places: list[tuple[int, np.ndarray]] | None = None
                           ) -> list[tuple[int, np.ndarray]] | None:
        """What the detector finds in all of `small`, got by detecting only in a window around each
        marker that a rough look at half the resolution saw (or at the given `places`, corners in
        `small`'s pixels); None (search everything) unless that look saw each table marker once
        (or all but one or two, found where the others put them) and the detector confirms every one in
        its window (after a rough look, at least three of them: see below).

        ArUco's work grows with the texture of the whole picture (every contour of the pieces and
        the table top is a candidate); in a window it sees the same pixels around the marker,
        thresholds them alike (the thresholds are local) and keeps the same outline, so the corners
        are the ones a search of the whole image gives (but for the 23 px threshold pass, which a
        window skips: WINDOW_THRESH_MAX). Only the size limits are relative to the image, so each
        window's are rescaled to stay the same in pixels."""
        h, w = small.shape[:2]
        if places is not None:
            rough = [(mid, np.asarray(c, dtype=np.float64)) for mid, c in places if mid in self.ids]
        elif max(h, w) < STAGED_FROM_LONG_SIDE:
            return None
        else:
            rough_image = cv2.resize(small, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
            scale = (w / rough_image.shape[1], h / rough_image.shape[0])
            rough = [(mid, (c.astype(np.float64) + 0.5) * scale - 0.5)
                     for mid, c in _markers(self._rough, rough_image) if mid in self.ids]
        if sorted(mid for mid, _ in rough) != sorted(self.ids):
            # The smallest (farthest) markers are the ones the rough look misses: look for them where
            # the others put them, and confirm them like the others below.
            missed = self._missed_markers(small, rough)
            if missed is None:
                return None  # markers not seen (or seen twice) roughly: only the full search can tell
            rough += missed
        out, unconfirmed = [], 0
        for mid, c in rough:
            side = _mean_side(c)
            # Half a side of margin (WINDOW_MARGIN): the quiet zone's own outline (a cell outside) must
            # be seen as it is in the whole image, the threshold windows (up to 23 px) stay clear of the
            # edge, and the rough corners may be off by a few pixels.
            mine = self._detect_one(small, c, WINDOW_MARGIN * side + 12.0, mid)
            if mine is None:
                return None
            unconfirmed += not mine
            out += [(mid, k) for k in mine]
        # A marker the rough look saw but the detector does not confirm in its window is too small
        # or too blurred for the detector at this size (the rough look reads more leniently): a
        # search of the whole image would not find it there either (the window shows the same
        # pixels), so that search is not run (10-20 ms) while three markers stand; the callers'
        # full-size try looks for the missing one.
        if unconfirmed and (places is not None or len({m for m, _ in out}) < MIN_CONFIRMED):
            return None
        return out

    def _missed_markers(self, small: np.ndarray, rough: list[tuple[int, np.ndarray]]
                        ) -> list[tuple[int, np.ndarray]] | None:
        """The table markers the rough look missed (the smallest, farthest ones: one or two), each
        found by the detector in a window where the markers seen put it; None unless the finder
        knows the table's layout, at least two distinct markers were seen (each once), and every
        missing one shows once where it should. With two seen, the first one found helps to place
        the second (three markers place it better than two)."""
        seen = dict(rough)
        missing = [m for m in self.ids if m not in seen]
        if self.geometry is None or len(seen) != len(rough) or len(seen) < 2 or not missing:
            return None
        out = []
        for marker_id in missing:
            guess = _guess_marker(seen, marker_id, self.geometry)
            if guess is None:
                return None
            side = _mean_side(guess)
            # The guess ignores the lens and rests on rough corners: off by up to 1.3 marker sides on
            # simulator frames (three seen). Whatever is found is then confirmed in its own window.
            found = self._detect_one(small, guess, MISSED_MARKER_REACH * side + 12.0, marker_id)
            if found is None or len(found) != 1:
                return None
            seen[marker_id] = found[0].astype(np.float64)
            out.append((marker_id, seen[marker_id]))
        return out

    def _detect_one(self, small: np.ndarray, corners: np.ndarray, pad: float, marker_id: int
                    ) -> list[np.ndarray] | None:
        """The corners (in `small`'s pixels) of each sighting of `marker_id` the detector makes in a
        window round `corners` grown by `pad` px; None when the window is too small to search."""
        h, w = small.shape[:2]
        box = _window_box(corners, pad, (h, w))
        if box is None:
            return None
        x0, y0, x1, y1 = box
        window = small[y0:y1, x0:x1]
        return [k + (x0, y0) for m, k in _markers(self._window_detector(max(h, w), max(window.shape)), window)
                if m == marker_id]

    def _window_detector(self, image_long_side: int, window_long_side: int):
        """The detector with its perimeter limits (fractions of the image's long side) rescaled
        so that, in a window, they are the same number of pixels as in the whole image."""
        params = cv2.aruco.DetectorParameters()  # OpenCV's defaults, as the whole-image detector's
        for name in ("cornerRefinementMethod", "minMarkerDistanceRate"):  # but for these two
            setattr(params, name, getattr(self._params, name))
        ratio = image_long_side / window_long_side
        params.minMarkerPerimeterRate = self._params.minMarkerPerimeterRate * ratio
        params.maxMarkerPerimeterRate = self._params.maxMarkerPerimeterRate * ratio
        params.adaptiveThreshWinSizeMax = WINDOW_THRESH_MAX
        return cv2.aruco.ArucoDetector(self._dictionary, params)

    def _keep(self, raw: list[tuple[int, np.ndarray]]) -> Sightings:
        by_id: dict[int, list[np.ndarray]] = {}
        for mid, c in raw:
            if mid not in self.ids:
                continue
            same = by_id.setdefault(mid, [])
            # The same marker found twice (two nested outlines) is one sighting, not a duplicate.
            if not any(_same_place(c, other) for other in same):
                same.append(c)
        duplicates = tuple(sorted(mid for mid, cs in by_id.items() if len(cs) > 1))
        markers = {mid: MarkerSighting(mid, cs[0]) for mid, cs in sorted(by_id.items()) if len(cs) == 1}
        return Sightings(markers, duplicates)


def _window_box(corners: np.ndarray, pad: float, shape: tuple[int, int]) -> tuple[int, int, int, int] | None:
    """The box (x0, y0, x1, y1) round `corners` grown by `pad` px and clipped to an image of
    `shape` (h, w); None when what is left is too small (under 16 px) to search."""
    h, w = shape
    xs, ys = corners[:, 0].tolist(), corners[:, 1].tolist()
    if corners.dtype == np.float64 and all(-1e15 < v < 1e15 for v in xs + ys) and -1e15 < pad < 1e15:
        # np.floor(corners.min(axis=0) - pad).astype(int) and its ceiling, in plain floats (the same
        # float64 subtractions and roundings, a tenth of the cost); numpy's own for other dtypes (float32
        # sums) and beyond int64, where its integers differ.
        x0, y0 = math.floor(min(xs) - pad), math.floor(min(ys) - pad)
        x1, y1 = math.ceil(max(xs) + pad), math.ceil(max(ys) + pad)
    else:
        x0, y0 = np.floor(corners.min(axis=0) - pad).astype(int)
        x1, y1 = np.ceil(corners.max(axis=0) + pad).astype(int)
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 - x0 < 16 or y1 - y0 < 16:
        return None
    return int(x0), int(y0), int(x1), int(y1)


def _guess_marker(seen: Mapping[int, np.ndarray], missing: int, geometry: TableGeometry) -> np.ndarray | None:
    """Where marker `missing`'s corners should be, from the other markers' corners (a homography
    through their 8 or 12 corners; each marker's corners are matched to the table's by where an
    affine map through the centres puts them, so a marker stuck down turned is no trouble)."""
    ids = sorted(seen)
    centres_px = np.float32([quad_centre(seen[m]) for m in ids])
    centres_mm = np.float32([geometry.marker_centre(m) for m in ids])
    if len(ids) >= 3:
        affine = cv2.getAffineTransform(centres_mm[:3], centres_px[:3])
    else:
        affine = _similarity(centres_mm, centres_px)
    if not np.isfinite(affine).all():
        return None
    src, dst = [], []
    for m in ids:
        mm = np.array(geometry.marker_corners(m), dtype=np.float64)
        where = mm @ affine[:, :2].T + affine[:, 2]
        px = np.asarray(seen[m], dtype=np.float64)
        turn = min(range(4), key=lambda r: float(np.sum((np.roll(px, -r, axis=0) - where) ** 2)))
        src.append(mm)
        dst.append(np.roll(px, -turn, axis=0))
    H, _ = cv2.findHomography(np.concatenate(src), np.concatenate(dst), 0)
    if H is None or not np.isfinite(H).all():
        return None
    corners = np.array(geometry.marker_corners(missing), dtype=np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(corners, H).reshape(4, 2)


def _similarity(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """The 2x3 similarity (turn, scale, shift; no mirror: a table never is one) taking the two points
    `src` to the two points `dst`: as complex numbers, dst = a * src + b."""
    s0, s1 = complex(*map(float, src[0])), complex(*map(float, src[1]))
    d0, d1 = complex(*map(float, dst[0])), complex(*map(float, dst[1]))
    if s1 == s0:
        return np.full((2, 3), np.nan)
    a = (d1 - d0) / (s1 - s0)
    b = d0 - a * s0
    return np.array([[a.real, -a.imag, b.real], [a.imag, a.real, b.imag]])


def _reduced(grey: np.ndarray, scale: float) -> np.ndarray:
    if scale >= 1.0:
        return grey
    # INTER_AREA has a fast path for whole-number reductions and a slow general one (0.1 ms
    # against 5-10 ms on a 2028x1520 frame): a scale within 10 % of 1/n is taken as 1/n.
    n = round(1.0 / scale)
    if n >= 2 and abs(1.0 / scale - n) <= 0.1 * n:
        scale = 1.0 / n
    return cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)


def _markers(detector, image: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """(id, corners (4, 2) float32) of every marker the detector reads in `image`."""
    corners, ids, _ = detector.detectMarkers(image)
    if ids is None:
        return []
    return [(int(i), c.reshape(4, 2)) for c, i in zip(corners, ids.ravel())]


def refine_corners(grey: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """Sub-pixel corners at full resolution (see `fit_edges`), or the given ones when the edges
    cannot be fitted."""
    return refine_corners_many([(grey, corners)])[0]


def refine_corners_many(items: list[tuple[np.ndarray, np.ndarray]]) -> list[np.ndarray]:
    """`refine_corners` of several (grey, corners) at once (see `fit_edges_many`)."""
    fitted = fit_edges_many(items)
    return [f if f is not None else np.asarray(c, dtype=np.float64).reshape(4, 2) for f, (_, c) in zip(fitted, items)]


def fit_edges(grey: np.ndarray, corners: np.ndarray) -> np.ndarray | None:
    """The marker's corners from its four outer edges, or None when they are not all clear.

    cornerSubPix is made for chessboard saddles; on the convex corner of a blurred black square
    it is pulled about half a pixel inwards, so markers look smaller than they are and a pose
    from three of them tilts. Edges do not suffer from that: each outer edge is located at
    many points along its middle (where the profile across it passes half-way between ink and
    paper), a straight line is fitted, and the corners are where neighbouring lines cross.
    The edges are looked for within about half a cell of the given corners.
    """
    return fit_edges_many([(grey, corners)])[0]


def fit_edges_many(items: list[tuple[np.ndarray, np.ndarray]]) -> list[np.ndarray | None]:
    """`fit_edges` of several markers, each (grey, corners), at once: the very same corners (each
    marker's profiles are sampled from its own neighbourhood as alone), with the numpy work of all
    their sides done in one go (per call, numpy's overhead cost more than the sums of one marker)."""
    out: list[np.ndarray | None] = [None] * len(items)
    work = []  # [index, start, side, float neighbourhood, its offset, corners in it]
    for i, (grey, corners) in enumerate(items):
        if grey.ndim != 2:
            # cv2.remap writes its samples into our buffer only for one channel: say so, not garbage.
            raise ValueError("fit_edges_many needs a single-channel grey image")
        start = np.asarray(corners, dtype=np.float64).reshape(4, 2)
        # Work on a float copy of the marker's neighbourhood only (not the whole frame).
        side = _mean_side(start)
        pad = math.ceil(side / 6) + 4
        h, w = grey.shape[:2]
        x0, y0, x1, y1 = _padded_box(start, pad)
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        if x1 - x0 < 8 or y1 - y0 < 8:
            continue
        offset = np.array([x0, y0], dtype=np.float64)
        work.append([i, start, side, grey[y0:y1, x0:x1].astype(np.float32), offset, start - offset])
    for _ in range(2):  # the second pass samples along the better edges of the first
        lines = _edge_lines_many([(wk[3], wk[5]) for wk in work])
        corners = _corners_of_many([ln for ln in lines if ln is not None])
        kept = []
        for wk, new in zip([wk for wk, ln in zip(work, lines) if ln is not None], corners):
            if new is not None and np.isfinite(new).all():
                wk[5] = new
                kept.append(wk)
        work = kept
    if not work:
        return out
    # All markers' corners and moves at once (each point's norm is its own two squares' sum and root).
    refined = np.stack([wk[5] for wk in work]) + np.stack([wk[4] for wk in work])[:, None]
    moved = np.linalg.norm(refined - np.stack([wk[1] for wk in work]), axis=2).max(axis=1).tolist()
    for (i, _, side, _, _, _), corners, most in zip(work, refined, moved):
        # A corner that moved by most of a cell found some other edge (the detector is closer than that).
        if most > max(2.0, side / 8):
            continue
        out[i] = corners.copy()  # its own array, as before (not a view of the stack)
    return out


def _padded_box(corners: np.ndarray, pad: int) -> tuple[int, int, int, int]:
    """(x0, y0, x1, y1): the floor of the corners' least x and y less `pad`, the ceiling of their
    greatest plus `pad` (not clipped): numpy's np.floor(min).astype(int), in plain floats (a tenth
    of the cost); numpy's own for values beyond int64 (or not finite), where its integers differ."""
    xs, ys = corners[:, 0].tolist(), corners[:, 1].tolist()
    if not all(-1e15 < v < 1e15 for v in xs + ys):
        x0, y0 = np.floor(corners.min(axis=0)).astype(int) - pad
        x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + pad
        return int(x0), int(y0), int(x1), int(y1)
    return math.floor(min(xs)) - pad, math.floor(min(ys)) - pad, math.ceil(max(xs)) + pad, math.ceil(max(ys)) + pad


def marker_bits(marker_id: int, dictionary: str = ARUCO_DICTIONARY) -> np.ndarray:
    """The 6x6 cells of a 4x4 marker with its border, True = white."""
    aruco = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    return cv2.aruco.generateImageMarker(aruco, marker_id, 6, borderBits=1) > 127


def shows_marker(grey: np.ndarray, corners: np.ndarray, bits: np.ndarray, max_errors: int = 1) -> bool:
    """Whether the quad `corners` shows the marker `bits` (in any of its four turns): the cells are
    read by warping the quad to a 6x6 grid and comparing each cell's middle with the midpoint of
    ink and paper. A hand over the marker changes cells; a shadow does not."""
    k = 8  # px per cell in the warped patch
    n = bits.shape[0]
    dst = np.float32([[0, 0], [n * k, 0], [n * k, n * k], [0, n * k]])
    M = cv2.getPerspectiveTransform(np.asarray(corners, dtype=np.float32).reshape(4, 2), dst)
    patch = cv2.warpPerspective(grey, M, (n * k, n * k), flags=cv2.INTER_LINEAR)
    cells = patch.reshape(n, k, n, k)[:, 2:k - 2, :, 2:k - 2].mean(axis=(1, 3))
    lo, hi = float(cells.min()), float(cells.max())
    if hi - lo < 30:
        return False
    seen = cells > (lo + hi) / 2
    return any(int(np.count_nonzero(seen != np.rot90(bits, r))) <= max_errors for r in range(4))


def _edge_lines_many(items: list[tuple[np.ndarray, np.ndarray]]) -> list[tuple[np.ndarray, np.ndarray] | None]:
    """For each (float image, quad): (points (4, 2), unit directions (4, 2)) of the ink-to-paper edge
    near each side k -> k+1 of the quad, or None when one of them is not clear.

    All sides of all the quads are worked on at once. Each quad's profiles are sampled from its own
    image in one remap with the very maps it would have alone (its sides' offsets padded to its
    own widest side); the rows are then padded to the widest side of all with their last sample,
    which changes none of the per-row tests (as the padding within a quad does not)."""
    out: list[tuple[np.ndarray, np.ndarray] | None] = [None] * len(items)
    quads = np.asarray([q for _, q in items], dtype=np.float64).reshape(-1, 4, 2)
    d_all = quads[:, _NEXT] - quads
    length_all = np.hypot(d_all[..., 0], d_all[..., 1])
    usable = np.flatnonzero(~(length_all < 8).any(axis=1)).tolist()
    if not usable:
        return out
    q = len(usable)
    mine = quads[usable]
    a = mine.reshape(-1, 2)  # the sides of all usable quads, four by four
    b = mine[:, _NEXT].reshape(-1, 2)
    d = d_all[usable].reshape(-1, 2)  # b - a
    length = length_all[usable].reshape(-1)
    n = d[:, ::-1] / length[:, None]  # (t_y, t_x) of the unit tangent t: made (t_y, -t_x), then outward
    n[:, 1] = -n[:, 1]
    centre = np.repeat(mine.mean(axis=1), 4, axis=0)  # each quad's own mean, as np.mean(axis=0) of it
    n *= np.where(np.add.reduce(((a + b) / 2 - centre) * n, axis=1) >= 0, 1.0, -1.0)[:, None]  # ink to paper
    # np.clip's values, without its wrapper: stay inside the one-cell black border (0.45 of a cell).
    reach = np.minimum(np.maximum(0.45 * (length / 6), 1.5), 6.0)
    steps = np.ceil(reach * 8).astype(int) * 2 + 1
    counts = np.minimum(np.maximum(length / 2.5, 6), 40).astype(int)
    # Offsets across each side (np.linspace(-reach, reach, steps), row by row, in its own
    # arithmetic), padded to a common width with their last value: a padded column repeats the
    # last sample, which changes none of the per-row tests below.
    own_width = steps.reshape(q, 4).max(axis=1)
    width = int(own_width.max())
    columns = np.arange(width)
    offsets = np.where(columns >= (steps - 1)[:, None], reach[:, None],
                       columns[None, :] * ((2 * reach) / (steps - 1))[:, None] - reach[:, None])
    side = np.repeat(np.arange(4 * q), counts)  # the side of each sample row
    along = np.concatenate([_along(int(c)) for c in counts])  # away from the rounded corners
    base = a[side] + along[:, None] * d[side]
    # base + offset * normal, in float64 as ever, then float32 for remap. The products offset * normal
    # are a side's, the same for all its rows: made once per side and gathered (the very products).
    rows_all = len(side)
    map_x = np.empty((rows_all, width), np.float32)
    map_y = np.empty((rows_all, width), np.float32)
    across = np.take(offsets * n[:, 0:1], side, axis=0)
    np.add(across, base[:, 0:1], out=map_x, casting="same_kind")
    np.take(offsets * n[:, 1:2], side, axis=0, out=across)
    np.add(across, base[:, 1:2], out=map_y, casting="same_kind")
    profiles = np.empty((rows_all, width), np.float32)
    ends = np.cumsum(counts.reshape(q, 4).sum(axis=1)).tolist()
    for k, i in enumerate(usable):
        r0, r1, wk = (ends[k - 1] if k else 0), ends[k], int(own_width[k])
        # The quad's rows and columns of the maps, as views (remap reads strided maps and writes into
        # the strided block of `profiles`: the same samples as from contiguous copies).
        got = cv2.remap(items[i][0], map_x[r0:r1, :wk], map_y[r0:r1, :wk], cv2.INTER_LINEAR,
                        dst=profiles[r0:r1, :wk], borderMode=cv2.BORDER_REPLICATE)
        if wk < width:
            profiles[r0:r1, wk:] = got[:, -1:]
    lo, hi = profiles.min(axis=1), profiles.max(axis=1)
    mid = (lo + hi) / 2
    above = profiles >= mid[:, None]
    j = np.argmax(above, axis=1)  # first sample on the paper side of half-way
    # A clean edge: ink then paper, crossing half-way once (a bit or a speck would cross again).
    ok = (hi - lo >= 20) & (j > 0) & (np.count_nonzero(above, axis=1) == width - j)
    good = np.bincount(side[ok], minlength=4 * q)
    clear = ~(good < np.maximum(4, counts // 3)).reshape(q, 4).any(axis=1)  # per quad: every side clear
    rows = np.nonzero(ok & clear[side // 4])[0]
    jj, sr = j[rows], side[rows]
    before, after = profiles[rows, jj - 1], profiles[rows, jj]
    frac = (mid[rows] - before) / np.maximum(after - before, 1e-6)
    s = offsets[sr, jj - 1] + frac * (offsets[sr, jj] - offsets[sr, jj - 1])
    pts = base[rows] + s[:, None] * n[sr]
    # Total least squares per side: the line through the points' mean along the main axis of
    # their scatter. That axis is the 2 x 2 scatter matrix's leading eigenvector, in closed form at
    # the angle atan2(2 sxy, sxx - syy) / 2: the direction np.linalg.svd gives (up to its sign, which
    # no corner depends on) within 1e-15, for all sides at once; the SVD took a LAPACK call per group
    # of sides with as many points, most of the fit's time.
    cuts = np.searchsorted(sr, np.arange(4 * q + 1))
    sizes = np.diff(cuts)
    points, directions = np.empty((4 * q, 2)), np.empty((4 * q, 2))
    sides = np.nonzero(np.repeat(clear, 4))[0]  # each has its run of points (no other side has any)
    if len(sides):
        # Each side's mean point: its points laid out one side a row (padded with zeros, which add
        # nothing) and summed along the row, in order, as np.add.reduce of one side's points along
        # their axis does (np.add.reduceat sums otherwise); then the points less their side's mean.
        runs = np.zeros((4 * q, int(sizes.max()), 2))
        runs[sr, np.arange(len(sr)) - cuts[sr]] = pts
        points[sides] = np.add.reduce(runs[sides], axis=1) / sizes[sides][:, None]
        directions[sides] = _main_axes(pts - points[sr], sr, 4 * q)[sides]
    for k, i in enumerate(usable):
        if clear[k]:
            out[i] = (points[4 * k:4 * k + 4], directions[4 * k:4 * k + 4])
    return out


def _main_axes(centred: np.ndarray, group: np.ndarray, groups: int) -> np.ndarray:
    """(groups, 2) unit vectors: per group of points (`centred`: (N, 2), each less its group's mean;
    `group`: (N,) each point's group), the main axis of their scatter - the leading right singular
    vector of the group's points, as np.linalg.svd's V[:, 0] up to its sign - by the 2 x 2 scatter
    matrix's closed-form eigenvector. A group with no points gets (1, 0)."""
    x, y = centred[:, 0], centred[:, 1]
    sxx = np.bincount(group, weights=x * x, minlength=groups)
    sxy = np.bincount(group, weights=x * y, minlength=groups)
    syy = np.bincount(group, weights=y * y, minlength=groups)
    angle = 0.5 * np.arctan2(2.0 * sxy, sxx - syy)
    return np.column_stack([np.cos(angle), np.sin(angle)])


@lru_cache(maxsize=64)
def _along(count: int) -> np.ndarray:
    out = np.linspace(0.15, 0.85, count)
    out.flags.writeable = False
    return out


_NEXT = np.array([1, 2, 3, 0])
_PREVIOUS = np.array([3, 0, 1, 2])


def _corners_of_many(lines: list[tuple[np.ndarray, np.ndarray]]) -> list[np.ndarray | None]:
    """For each quad's lines: where each side's line crosses the previous side's (corner k lies on
    sides k-1 and k), or None when two neighbouring sides are parallel. One solve for all."""
    out: list[np.ndarray | None] = [None] * len(lines)
    if not lines:
        return out
    p2 = np.concatenate([p for p, _ in lines])
    d2 = np.concatenate([d for _, d in lines])
    previous = (np.arange(len(lines))[:, None] * 4 + _PREVIOUS).ravel()
    p1, d1 = p2[previous], d2[previous]
    m = np.stack([d1, -d2], axis=2)  # per corner, the columns d1 and -d2
    # Parallel lines (unit directions): the determinant written out, not LAPACK's (a call costs more).
    apart = ~(np.abs(m[:, 0, 0] * m[:, 1, 1] - m[:, 0, 1] * m[:, 1, 0]) < 1e-9).reshape(-1, 4).any(axis=1)
    if not apart.any():
        return out
    rows = np.repeat(apart, 4)
    s = np.linalg.solve(m[rows], (p2 - p1)[rows][:, :, None])[:, :, 0]
    corners = p1[rows] + s[:, 0:1] * d1[rows]
    for k, i in enumerate(np.nonzero(apart)[0]):
        out[i] = corners[4 * k:4 * k + 4]
    return out


def _grey(image: np.ndarray) -> np.ndarray:
    if image.ndim == 2:
        return image
    return cv2.cvtColor(image, cv2.COLOR_BGRA2GRAY if image.shape[2] == 4 else cv2.COLOR_BGR2GRAY)


def _mean_side(corners: np.ndarray) -> float:
    """The mean side length of a quad of float64 corners (4, 2): the very value of
    float(np.mean(np.linalg.norm(c - np.roll(c, -1, axis=0), axis=1))) (the same products, square
    roots and sums in the same order), in plain floats: numpy's calls cost 30 times the sums."""
    if corners.dtype != np.float64:
        c = corners
        return float(np.mean(np.linalg.norm(c - np.roll(c, -1, axis=0), axis=1)))
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = corners.reshape(4, 2).tolist()
    dx, dy = x0 - x1, y0 - y1
    total = math.sqrt(dx * dx + dy * dy)
    dx, dy = x1 - x2, y1 - y2
    total += math.sqrt(dx * dx + dy * dy)
    dx, dy = x2 - x3, y2 - y3
    total += math.sqrt(dx * dx + dy * dy)
    dx, dy = x3 - x0, y3 - y0
    total += math.sqrt(dx * dx + dy * dy)
    return total / 4


def _same_place(a: np.ndarray, b: np.ndarray) -> bool:
    side = _mean_side(a)
    return float(np.linalg.norm(quad_centre(a) - quad_centre(b))) < 0.5 * side


def quad_centre(corners: np.ndarray) -> np.ndarray:
    """Where the diagonals cross: the true centre of a square seen in perspective (the mean is not)."""
    c = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    # In plain floats: the very products, differences and quotient of numpy's float64 scalars (no
    # fused multiply-adds in either), at a fifth of the cost; a table fix takes a dozen centres.
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = c.tolist()
    d1x, d1y, d2x, d2y = x2 - x0, y2 - y0, x3 - x1, y3 - y1
    denom = d1x * d2y - d1y * d2x
    if abs(denom) < 1e-12:  # also a zero denominator, which plain floats would not divide by
        return np.mean(c, axis=0)
    t = ((x1 - x0) * d2y - (y1 - y0) * d2x) / denom
    return np.array([x0 + t * d1x, y0 + t * d1y])
