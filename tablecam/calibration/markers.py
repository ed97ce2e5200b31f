"""Finding the four table markers (ArUco DICT_4X4_50, ids 0..3) in a grey frame, cheaply.

Detection runs on a reduced image (ArUco's cost grows with the pixel count, and a 40 mm
marker is still 40+ px wide there); the corners are then refined at full resolution with
cornerSubPix, so accuracy does not suffer from the reduction.
"""

from __future__ import annotations

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
# How far (marker sides) around the place the other three markers predict a whole-frame search
# looks for the one marker its rough look missed.
FOURTH_MARKER_REACH = 3.0


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


class MarkerFinder:
    """An ArUco detector for the table markers. Holds OpenCV detector objects only (no frame state).

    With the table's `geometry` (markers `MARKER_IDS` at its corners), a whole-frame search that
    roughly saw three markers looks for the fourth where they put it instead of everywhere."""

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
        rough.minMarkerPerimeterRate = 0.02
        rough.perspectiveRemovePixelPerCell = 8
        rough.errorCorrectionRate = 1.0
        rough.adaptiveThreshWinSizeMax = 13  # two threshold passes instead of three: as many found, 1/3 less work
        self._rough = cv2.aruco.ArucoDetector(aruco_dict, rough)
        self._bits = {m: marker_bits(m, dictionary) for m in self.ids}

    def find_all(self, grey: np.ndarray, long_side: int = FULL_SEARCH_LONG_SIDE,
                 near: Sightings | None = None) -> Sightings:
        """Searches the whole frame, reduced so its long side is at most `long_side` px.

        `near`: what a search of this frame at a smaller size found (at least three markers, no
        duplicate). At full size (the second try, for markers too small at the reduced size) the
        detector then runs in windows around them and where they put the missing one, which
        gives what a search of the whole frame gives; only if the missing one is not there (it
        is covered) is the whole frame searched. Without `near`, the rough look at half the full
        size would cost about as much as it saves after a covered marker."""
        scale = min(1.0, long_side / max(grey.shape))
        found = None
        if scale >= 1.0 and near is not None and len(near.markers) >= 3 and not near.duplicates:
            found = self._detect_in_windows(grey, [(m, s.corners) for m, s in near.markers.items()])
        if found is None:
            found = self._detect(grey, scale, staged=scale < 1.0)
        return self._keep([(mid, refine_corners(grey, c)) for mid, c in found if mid in self.ids])

    def find_near(self, image: np.ndarray, expected: Mapping[int, np.ndarray], pad_sides: float = 1.0) -> Sightings:
        """Searches only around the given corner positions (one window per marker, the marker's
        box grown by `pad_sides` marker sides each way); each window accepts only its own id.

        `image` may be colour: only the windows are turned grey, which saves converting the frame."""
        h, w = image.shape[:2]
        found: list[tuple[int, np.ndarray]] = []
        for marker_id, corners in expected.items():
            corners = np.asarray(corners, dtype=np.float64).reshape(4, 2)
            side = float(np.mean(np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)))
            pad = max(pad_sides * side, 16.0)
            x0, y0 = np.floor(corners.min(axis=0) - pad).astype(int)
            x1, y1 = np.ceil(corners.max(axis=0) + pad).astype(int)
            x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
            if x1 - x0 < 8 or y1 - y0 < 8:
                continue
            window = _grey(image[y0:y1, x0:x1])
            scale = min(1.0, DETECTION_SIDE_PX / max(side, 1.0))
            for mid, c in self._detect(window, scale):
                if mid == marker_id:
                    found.append((mid, refine_corners(window, c) + (x0, y0)))
        return self._keep(found)

    def track(self, image: np.ndarray, expected: Mapping[int, np.ndarray]) -> Sightings:
        """Markers near where they were: first the cheap way (fit the edges where the marker was
        and check its cells), then, for markers that moved or hide, ArUco in a window around them."""
        h, w = image.shape[:2]
        found: list[tuple[int, np.ndarray]] = []
        lost: dict[int, np.ndarray] = {}
        for marker_id, corners in expected.items():
            corners = np.asarray(corners, dtype=np.float64).reshape(4, 2)
            side = float(np.mean(np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)))
            pad = int(np.ceil(side / 3)) + 4
            x0, y0 = np.floor(corners.min(axis=0)).astype(int) - pad
            x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + pad
            x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
            fitted = None
            if x1 - x0 >= 8 and y1 - y0 >= 8:
                window = _grey(image[y0:y1, x0:x1])
                local = corners - (x0, y0)
                fitted = fit_edges(window, local)
                if fitted is not None and not shows_marker(window, fitted, self._bits[marker_id]):
                    fitted = None
            if fitted is None:
                lost[marker_id] = corners
            else:
                found.append((marker_id, fitted + (x0, y0)))
        if lost:
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
        (or all but one, found where the others put it) and the detector confirms every one in
        its window.

        ArUco's work grows with the texture of the whole picture (every contour of the pieces and
        the table top is a candidate); in a window it sees the same pixels around the marker,
        thresholds them alike (the thresholds are local) and keeps the same outline, so the corners
        are the very ones a search of the whole image gives. Only the size limits are relative to
        the image, so each window's are rescaled to stay the same in pixels."""
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
            # The smallest (farthest) marker is the one the rough look misses: look for it where
            # the other three put it, and confirm it like the others below.
            fourth = self._fourth_marker(small, rough)
            if fourth is None:
                return None  # a marker not seen (or seen twice) roughly: only the full search can tell
            rough.append(fourth)
        out = []
        for mid, c in rough:
            side = float(np.mean(np.linalg.norm(c - np.roll(c, -1, axis=0), axis=1)))
            # A whole side of margin: the quiet zone's own outline (a cell outside) must be seen
            # as it is in the whole image, and the threshold windows (up to 23 px) stay clear of the edge.
            box = _window_box(c, side + 12.0, (h, w))
            if box is None:
                return None
            x0, y0, x1, y1 = box
            window = small[y0:y1, x0:x1]
            mine = [(m, k + (x0, y0)) for m, k in _markers(self._window_detector(max(h, w), max(window.shape)), window)
                    if m == mid]
            if not mine:
                return None
            out += mine
        return out

    def _fourth_marker(self, small: np.ndarray, three: list[tuple[int, np.ndarray]]) -> tuple[int, np.ndarray] | None:
        """The one table marker the rough look missed (the smallest, farthest one), found by the
        detector in a window where the other three put it; None unless the finder knows the
        table's layout, exactly three distinct markers were seen, and the missing one shows once."""
        seen = dict(three)
        missing = [m for m in self.ids if m not in seen]
        if self.geometry is None or len(three) != 3 or len(seen) != 3 or len(missing) != 1:
            return None
        guess = _guess_marker(seen, missing[0], self.geometry)
        if guess is None:
            return None
        side = float(np.mean(np.linalg.norm(guess - np.roll(guess, -1, axis=0), axis=1)))
        # The guess ignores the lens and rests on rough corners: off by up to 1.3 marker sides on
        # simulator frames. Whatever is found is then confirmed in its own window like the others.
        h, w = small.shape[:2]
        box = _window_box(guess, FOURTH_MARKER_REACH * side + 12.0, (h, w))
        if box is None:
            return None
        x0, y0, x1, y1 = box
        window = small[y0:y1, x0:x1]
        found = [k + (x0, y0) for m, k in _markers(self._window_detector(max(h, w), max(window.shape)), window)
                 if m == missing[0]]
        return (missing[0], found[0].astype(np.float64)) if len(found) == 1 else None

    def _window_detector(self, image_long_side: int, window_long_side: int):
        """The detector with its perimeter limits (fractions of the image's long side) rescaled
        so that, in a window, they are the same number of pixels as in the whole image."""
        params = cv2.aruco.DetectorParameters()  # OpenCV's defaults, as the whole-image detector's
        for name in ("cornerRefinementMethod", "minMarkerDistanceRate"):  # but for these two
            setattr(params, name, getattr(self._params, name))
        ratio = image_long_side / window_long_side
        params.minMarkerPerimeterRate = self._params.minMarkerPerimeterRate * ratio
        params.maxMarkerPerimeterRate = self._params.maxMarkerPerimeterRate * ratio
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
    x0, y0 = np.floor(corners.min(axis=0) - pad).astype(int)
    x1, y1 = np.ceil(corners.max(axis=0) + pad).astype(int)
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 - x0 < 16 or y1 - y0 < 16:
        return None
    return int(x0), int(y0), int(x1), int(y1)


def _guess_marker(seen: Mapping[int, np.ndarray], missing: int, geometry: TableGeometry) -> np.ndarray | None:
    """Where marker `missing`'s corners should be, from the other markers' corners (a homography
    through their 12 corners; each marker's corners are matched to the table's by where an
    affine map through the centres puts them, so a marker stuck down turned is no trouble)."""
    ids = sorted(seen)
    centres_px = np.float32([quad_centre(seen[m]) for m in ids])
    centres_mm = np.float32([geometry.marker_centre(m) for m in ids])
    affine = cv2.getAffineTransform(centres_mm[:3], centres_px[:3])
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
    fitted = fit_edges(grey, corners)
    return fitted if fitted is not None else np.asarray(corners, dtype=np.float64).reshape(4, 2)


def fit_edges(grey: np.ndarray, corners: np.ndarray) -> np.ndarray | None:
    """The marker's corners from its four outer edges, or None when they are not all clear.

    cornerSubPix is made for chessboard saddles; on the convex corner of a blurred black square
    it is pulled about half a pixel inwards, so markers look smaller than they are and a pose
    from three of them tilts. Edges do not suffer from that: each outer edge is located at
    many points along its middle (where the profile across it passes half-way between ink and
    paper), a straight line is fitted, and the corners are where neighbouring lines cross.
    The edges are looked for within about half a cell of the given corners.
    """
    start = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    # Work on a float copy of the marker's neighbourhood only (not the whole frame).
    side = float(np.mean(np.linalg.norm(start - np.roll(start, -1, axis=0), axis=1)))
    pad = int(np.ceil(side / 6)) + 4
    h, w = grey.shape[:2]
    x0, y0 = np.floor(start.min(axis=0)).astype(int) - pad
    x1, y1 = np.ceil(start.max(axis=0)).astype(int) + pad
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    image = grey[y0:y1, x0:x1].astype(np.float32)
    offset = np.array([x0, y0], dtype=np.float64)
    refined = start - offset
    for _ in range(2):  # the second pass samples along the better edges of the first
        lines = _edge_lines(image, refined)
        if lines is None:
            return None
        new = _corners_of(lines)
        if new is None or not np.isfinite(new).all():
            return None
        refined = new
    refined = refined + offset
    # A corner that moved by most of a cell found some other edge (the detector is closer than that).
    if np.max(np.linalg.norm(refined - start, axis=1)) > max(2.0, side / 8):
        return None
    return refined


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


def _edge_lines(image: np.ndarray, quad: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(points (4, 2), unit directions (4, 2)) of the ink-to-paper edge near each side k -> k+1
    of `quad`, or None when one of them is not clear. All four sides are worked on at once (their
    profiles are sampled in one remap): a numpy call per side cost more than its sums."""
    a = np.asarray(quad, dtype=np.float64)
    b = a[_NEXT]
    d = b - a
    length = np.hypot(d[:, 0], d[:, 1])
    if (length < 8).any():
        return None
    n = d[:, ::-1] / length[:, None]  # (t_y, t_x) of the unit tangent t: made (t_y, -t_x), then outward
    n[:, 1] = -n[:, 1]
    n *= np.where(np.sum(((a + b) / 2 - a.mean(axis=0)) * n, axis=1) >= 0, 1.0, -1.0)[:, None]  # ink to paper
    reach = np.clip(0.45 * (length / 6), 1.5, 6.0)  # stay inside the one-cell black border (0.45 of a cell)
    steps = np.ceil(reach * 8).astype(int) * 2 + 1
    counts = np.clip(length / 2.5, 6, 40).astype(int)
    # Offsets across each side (np.linspace(-reach, reach, steps), row by row, in its own
    # arithmetic), padded to a common width with their last value: a padded column repeats the
    # last sample, which changes none of the per-row tests below.
    width = int(steps.max())
    offsets = np.arange(width, dtype=np.float64)[None, :] * ((2 * reach) / (steps - 1))[:, None] - reach[:, None]
    offsets[np.arange(width)[None, :] >= (steps - 1)[:, None]] = np.repeat(reach, width - steps + 1)
    side = np.repeat(np.arange(4), counts)  # the side of each sample row
    along = np.concatenate([_along(int(c)) for c in counts])  # away from the rounded corners
    base = a[side] + along[:, None] * d[side]
    map_x = (base[:, 0:1] + offsets[side] * n[side, 0:1]).astype(np.float32)
    map_y = (base[:, 1:2] + offsets[side] * n[side, 1:2]).astype(np.float32)
    profiles = cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    lo, hi = profiles.min(axis=1), profiles.max(axis=1)
    mid = (lo + hi) / 2
    above = profiles >= mid[:, None]
    j = np.argmax(above, axis=1)  # first sample on the paper side of half-way
    # A clean edge: ink then paper, crossing half-way once (a bit or a speck would cross again).
    ok = (hi - lo >= 20) & (j > 0) & (above.sum(axis=1) == above.shape[1] - j)
    good = np.bincount(side[ok], minlength=4)
    if (good < np.maximum(4, counts // 3)).any():
        return None
    rows = np.nonzero(ok)[0]
    jj, sr = j[rows], side[rows]
    before, after = profiles[rows, jj - 1], profiles[rows, jj]
    frac = (mid[rows] - before) / np.maximum(after - before, 1e-6)
    s = offsets[sr, jj - 1] + frac * (offsets[sr, jj] - offsets[sr, jj - 1])
    pts = base[rows] + s[:, None] * n[sr]
    # Total least squares per side: the line through the points' mean along the main axis of
    # their scatter (np.linalg.svd side by side: a closed form would differ in the last bits, and
    # the readings downstream are meant to stay the very same).
    points, directions = np.empty((4, 2)), np.empty((4, 2))
    for k in range(4):
        mine = pts[sr == k]
        points[k] = mine.mean(axis=0)
        directions[k] = np.linalg.svd(mine - points[k])[2][0]
    return points, directions


@lru_cache(maxsize=64)
def _along(count: int) -> np.ndarray:
    out = np.linspace(0.15, 0.85, count)
    out.flags.writeable = False
    return out


_NEXT = np.array([1, 2, 3, 0])
_PREVIOUS = np.array([3, 0, 1, 2])


def _corners_of(lines: tuple[np.ndarray, np.ndarray]) -> np.ndarray | None:
    """Where each side's line crosses the previous side's (corner k lies on sides k-1 and k), or
    None when two neighbouring sides are parallel."""
    p2, d2 = lines
    p1, d1 = p2[_PREVIOUS], d2[_PREVIOUS]
    m = np.stack([d1, -d2], axis=2)  # per corner, the columns d1 and -d2
    # Parallel lines (unit directions): the determinant written out, not LAPACK's (a call costs more).
    if (np.abs(m[:, 0, 0] * m[:, 1, 1] - m[:, 0, 1] * m[:, 1, 0]) < 1e-9).any():
        return None
    s = np.linalg.solve(m, (p2 - p1)[:, :, None])[:, :, 0]
    return p1 + s[:, 0:1] * d1


def _grey(image: np.ndarray) -> np.ndarray:
    if image.ndim == 2:
        return image
    return cv2.cvtColor(image, cv2.COLOR_BGRA2GRAY if image.shape[2] == 4 else cv2.COLOR_BGR2GRAY)


def _same_place(a: np.ndarray, b: np.ndarray) -> bool:
    side = float(np.mean(np.linalg.norm(a - np.roll(a, -1, axis=0), axis=1)))
    return float(np.linalg.norm(quad_centre(a) - quad_centre(b))) < 0.5 * side


def quad_centre(corners: np.ndarray) -> np.ndarray:
    """Where the diagonals cross: the true centre of a square seen in perspective (the mean is not)."""
    p0, p1, p2, p3 = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    d1, d2 = p2 - p0, p3 - p1
    denom = d1[0] * d2[1] - d1[1] * d2[0]
    if abs(denom) < 1e-12:
        return np.mean([p0, p1, p2, p3], axis=0)
    t = ((p1[0] - p0[0]) * d2[1] - (p1[1] - p0[1]) * d2[0]) / denom
    return p0 + t * d1
