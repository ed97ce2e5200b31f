"""Lens intrinsics from photos of a chessboard or a ChArUco board, with a reason for every view left out."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import cv2
import numpy as np

from tablecam.calibration.images import read_image, to_grey
from tablecam.errors import UserError

MIN_VIEWS = 3  # calibrateCamera needs three planar views; ten or more from many angles is better
MIN_CHARUCO_CORNERS = 6
# A view whose reprojection error is far above the others' is most likely blurred or
# mis-detected; one such view drags the whole calibration (0.2 px -> 0.4 px on OpenCV's
# own photos with a too-large refinement window).
OUTLIER_FACTOR = 3.0
OUTLIER_FLOOR_PX = 1.0

ImageInput = str | Path | np.ndarray


@dataclass(frozen=True)
class CameraProfile:
    """What the lens does: pinhole matrix K, distortion coefficients, for frames of `image_size`."""

    camera_matrix: tuple[tuple[float, float, float], ...]
    dist_coeffs: tuple[float, ...]
    image_size: tuple[int, int]  # (width, height) of the frames it was made from
    rms_px: float
    pattern: str = ""  # how it was made, for people reading the settings file
    views: int = 0
    calibrated: str = ""  # ISO date-time

    @property
    def K(self) -> np.ndarray:
        return np.array(self.camera_matrix, dtype=np.float64)

    @property
    def dist(self) -> np.ndarray:
        return np.array(self.dist_coeffs, dtype=np.float64)

    @property
    def fx(self) -> float:
        return self.camera_matrix[0][0]

    @property
    def fy(self) -> float:
        return self.camera_matrix[1][1]

    @property
    def cx(self) -> float:
        return self.camera_matrix[0][2]

    @property
    def cy(self) -> float:
        return self.camera_matrix[1][2]

    def for_size(self, size: tuple[int, int]) -> "CameraProfile":
        """The same lens for frames of another size of the same field (a binned or scaled camera mode)."""
        w, h = self.image_size
        if (w, h) == tuple(size):
            return self
        sx, sy = size[0] / w, size[1] / h
        if abs(sx - sy) > 0.01 * max(sx, sy):
            raise UserError(f"the camera profile was made from {w}x{h} frames but these are "
                            f"{size[0]}x{size[1]} (another shape): calibrate the lens again at this resolution.")
        K = self.K
        # Pixel centres: x_new + 0.5 = s (x_old + 0.5).
        K[0, 0] *= sx
        K[1, 1] *= sy
        K[0, 2] = (K[0, 2] + 0.5) * sx - 0.5
        K[1, 2] = (K[1, 2] + 0.5) * sy - 0.5
        return CameraProfile(_matrix_tuple(K), self.dist_coeffs, (int(size[0]), int(size[1])),
                             self.rms_px * sx, self.pattern, self.views, self.calibrated)

    def to_dict(self) -> dict:
        return {
            "image_size": list(self.image_size),
            "camera_matrix": [[round(v, 6) for v in row] for row in self.camera_matrix],
            "dist_coeffs": [round(v, 8) for v in self.dist_coeffs],
            "rms_px": round(self.rms_px, 5),
            "pattern": self.pattern,
            "views": self.views,
            "calibrated": self.calibrated,
        }

    @classmethod
    def from_dict(cls, d: dict) -> "CameraProfile":
        try:
            K = np.array(d["camera_matrix"], dtype=np.float64)
            dist = np.array(d["dist_coeffs"], dtype=np.float64).ravel()
            size = tuple(int(v) for v in d["image_size"])
            rms = float(d.get("rms_px", math.nan))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"the camera profile lacks or garbles {exc}") from None
        if K.shape != (3, 3) or len(size) != 2 or min(size) <= 0 or dist.size not in (4, 5, 8, 12, 14):
            raise ValueError("the camera profile needs a 3x3 camera_matrix, 4 to 14 dist_coeffs and an image_size [w, h]")
        if not (K[0, 0] > 0 and K[1, 1] > 0 and np.isfinite(K).all() and np.isfinite(dist).all()):
            raise ValueError("the camera profile's focal lengths must be positive numbers")
        return cls(_matrix_tuple(K), tuple(float(v) for v in dist), (size[0], size[1]), rms,
                   str(d.get("pattern", "")), int(d.get("views", 0)), str(d.get("calibrated", "")))


@dataclass(frozen=True)
class ViewReport:
    """One photo of the calibration: used, or left out and why."""

    name: str
    used: bool
    reason: str = ""  # why it was left out; empty when used
    error_px: float | None = None  # its reprojection RMS when it took part in a calibration
    points: int = 0


@dataclass(frozen=True)
class LensResult:
    profile: CameraProfile
    views: tuple[ViewReport, ...]
    warnings: tuple[str, ...] = ()

    @property
    def rejected(self) -> tuple[ViewReport, ...]:
        return tuple(v for v in self.views if not v.used)

    @property
    def used(self) -> tuple[ViewReport, ...]:
        return tuple(v for v in self.views if v.used)


@dataclass(frozen=True)
class _Detection:
    object_points: np.ndarray  # (N, 3) float32, mm on the pattern
    image_points: np.ndarray  # (N, 1, 2) float32, pixels


def calibrate_chessboard(images: Sequence[ImageInput], pattern: tuple[int, int] = (9, 6),
                         square_mm: float = 25.0) -> LensResult:
    """Calibrates from photos of a chessboard with `pattern` inner corners (columns, rows)."""
    cols, rows = _check_pattern(pattern, "chessboard", minimum=2)
    if not square_mm > 0:
        raise UserError(f"the square size must be a positive number of millimetres, not {square_mm}.")
    grid = np.zeros((cols * rows, 3), np.float32)
    grid[:, :2] = np.mgrid[0:cols, 0:rows].T.reshape(-1, 2) * square_mm

    def detect(grey: np.ndarray) -> _Detection | str:
        found, corners = cv2.findChessboardCorners(
            grey, (cols, rows), flags=cv2.CALIB_CB_ADAPTIVE_THRESH | cv2.CALIB_CB_NORMALIZE_IMAGE)
        if not found:
            return (f"no {cols}x{rows} chessboard found (every inner corner must be in view, "
                    "sharp and not washed out by glare)")
        win = _refine_window(corners.reshape(rows, cols, 2))
        corners = cv2.cornerSubPix(grey, corners, (win, win), (-1, -1),
                                   (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.01))
        return _Detection(grid, corners.astype(np.float32))

    return _calibrate(images, detect, f"chessboard {cols}x{rows} inner corners, {square_mm:g} mm squares",
                      f"{cols}x{rows} chessboard")


def calibrate_charuco(images: Sequence[ImageInput], squares: tuple[int, int] = (5, 7), square_mm: float = 40.0,
                      marker_mm: float = 20.0, dictionary: str = "DICT_6X6_250") -> LensResult:
    """Calibrates from photos of a ChArUco board of `squares` (columns, rows) chessboard squares."""
    cols, rows = _check_pattern(squares, "ChArUco board", minimum=3)
    if not (square_mm > 0 and 0 < marker_mm < square_mm):
        raise UserError(f"a ChArUco marker ({marker_mm:g} mm) must be smaller than its square ({square_mm:g} mm), both positive.")
    aruco_dict = cv2.aruco.getPredefinedDictionary(aruco_dictionary_id(dictionary))
    board = cv2.aruco.CharucoBoard((cols, rows), float(square_mm), float(marker_mm), aruco_dict)
    detector = cv2.aruco.CharucoDetector(board)
    legacy_detector = None
    if hasattr(board, "setLegacyPattern"):
        # Boards printed with OpenCV < 4.6 place their first marker differently when the
        # number of rows is even; try that layout before calling a view a failure.
        legacy_board = cv2.aruco.CharucoBoard((cols, rows), float(square_mm), float(marker_mm), aruco_dict)
        legacy_board.setLegacyPattern(True)
        legacy_detector = (legacy_board, cv2.aruco.CharucoDetector(legacy_board))

    def detect(grey: np.ndarray) -> _Detection | str:
        attempts = [(board, detector)] + ([legacy_detector] if legacy_detector and rows % 2 == 0 else [])
        best: tuple[int, str | _Detection] = (-1, "no ChArUco marker found")
        for b, det in attempts:
            ch_corners, ch_ids, _, marker_ids = det.detectBoard(grey)
            n_markers = 0 if marker_ids is None else len(marker_ids)
            n = 0 if ch_ids is None else len(ch_ids)
            if n < MIN_CHARUCO_CORNERS:
                reason = (f"no marker of {dictionary} found (is it the right dictionary?)" if n_markers == 0 else
                          f"only {n} ChArUco corners found (need {MIN_CHARUCO_CORNERS}; "
                          f"{n_markers} markers seen: check --charuco and --dict)")
                if n > best[0]:
                    best = (n, reason)
                continue
            obj, img = b.matchImagePoints(ch_corners, ch_ids)
            obj = obj.reshape(-1, 3).astype(np.float32)
            if _collinear(obj[:, :2]):
                if n > best[0]:
                    best = (n, f"the {n} ChArUco corners found lie on one line")
                continue
            return _Detection(obj, img.reshape(-1, 1, 2).astype(np.float32))
        return best[1]  # type: ignore[return-value]

    return _calibrate(images, detect,
                      f"ChArUco {cols}x{rows} squares of {square_mm:g} mm, markers {marker_mm:g} mm, {dictionary}",
                      f"{cols}x{rows} ChArUco board")


def aruco_dictionary_id(name: str) -> int:
    value = getattr(cv2.aruco, name.upper(), None) if name.upper().startswith("DICT_") else None
    if not isinstance(value, int):
        raise UserError(f"unknown ArUco dictionary {name!r}: use a name like DICT_6X6_250 or DICT_4X4_50.")
    return value


def parse_pattern(text: str) -> tuple[int, int]:
    """'9x6' -> (9, 6), or UserError."""
    parts = text.lower().replace("×", "x").split("x")
    try:
        cols, rows = (int(p) for p in parts)
    except ValueError:
        raise UserError(f"a pattern size is written COLSxROWS, like 9x6, not {text!r}.") from None
    return cols, rows


# --- the shared calibration loop ---------------------------------------------------------------

def _calibrate(images: Sequence[ImageInput], detect, pattern_text: str, pattern_name: str) -> LensResult:
    if not images:
        raise UserError("no images were given to calibrate from.")
    reports: list[ViewReport] = []
    detections: list[tuple[int, _Detection]] = []  # index into reports
    size: tuple[int, int] | None = None
    for i, item in enumerate(images):
        name = str(item) if not isinstance(item, np.ndarray) else f"image {i + 1}"
        try:
            image = read_image(item) if not isinstance(item, np.ndarray) else item
            grey = to_grey(image)
        except UserError as exc:
            reports.append(ViewReport(name, False, _clause(str(exc)).replace(name, "the file", 1)))
            continue
        this_size = (grey.shape[1], grey.shape[0])
        if size is not None and this_size != size:
            reports.append(ViewReport(name, False, f"it is {this_size[0]}x{this_size[1]}, the first view was "
                                                   f"{size[0]}x{size[1]} (all views must come from one camera mode)"))
            continue
        found = detect(grey)
        if isinstance(found, str):
            reports.append(ViewReport(name, False, found))
            continue
        size = this_size
        detections.append((len(reports), found))
        reports.append(ViewReport(name, True, points=len(found.object_points)))

    if len(detections) < MIN_VIEWS or size is None:
        raise UserError(_not_enough(reports, pattern_name))

    rms, K, dist, errors = _run(detections, size)
    # Leave out views far worse than the rest, once: a second pass would start eating good views.
    median = float(np.median(errors))
    limit = max(OUTLIER_FLOOR_PX, OUTLIER_FACTOR * median)
    outliers = {idx for (idx, _), e in zip(detections, errors) if e > limit}
    if outliers and len(detections) - len(outliers) >= MIN_VIEWS:
        for (idx, _), e in zip(detections, errors):
            if idx in outliers:
                reports[idx] = ViewReport(reports[idx].name, False,
                                          f"its reprojection error {e:.2f} px is far above the others' "
                                          f"{median:.2f} px (blurred, moved or mis-detected)", float(e),
                                          reports[idx].points)
        detections = [(idx, d) for idx, d in detections if idx not in outliers]
        rms, K, dist, errors = _run(detections, size)
    for (idx, _), e in zip(detections, errors):
        reports[idx] = ViewReport(reports[idx].name, True, "", float(e), reports[idx].points)

    warnings = []
    coverage = _coverage([cv2.convexHull(d.image_points.reshape(-1, 2)) for _, d in detections], size)
    if coverage < 0.5:
        warnings.append(f"the pattern covered only {coverage:.0%} of the image over all views: add views with it "
                        "near the corners and edges, or the distortion far from the centre will be guessed")
    if len(detections) < 8:
        warnings.append(f"only {len(detections)} views were used: 10 or more from different angles give a steadier result")
    profile = CameraProfile(_matrix_tuple(K), tuple(float(v) for v in dist.ravel()), size, float(rms),
                            pattern_text, len(detections),
                            datetime.now(timezone.utc).replace(microsecond=0).isoformat())
    return LensResult(profile, tuple(reports), tuple(warnings))


def _run(detections: list[tuple[int, _Detection]], size: tuple[int, int]):
    obj = [d.object_points for _, d in detections]
    img = [d.image_points for _, d in detections]
    rms, K, dist, _, _, _, _, per_view = cv2.calibrateCameraExtended(obj, img, size, None, None)
    return rms, K, dist, [float(e) for e in np.ravel(per_view)]


def _refine_window(grid: np.ndarray) -> int:
    """Half-size of the cornerSubPix window: a quarter of the smallest corner spacing, so the
    window never reaches a neighbouring corner (11 px windows on 20 px squares pull corners off)."""
    spacing = min(float(np.linalg.norm(np.diff(grid, axis=0), axis=2).min()),
                  float(np.linalg.norm(np.diff(grid, axis=1), axis=2).min()))
    return int(max(2, min(11, round(spacing / 4))))


def _collinear(points: np.ndarray) -> bool:
    centred = points - points.mean(axis=0)
    s = np.linalg.svd(centred, compute_uv=False)
    return bool(s[-1] < 1e-3 * max(s[0], 1e-9))


def _coverage(hulls: list[np.ndarray], size: tuple[int, int]) -> float:
    scale = 200.0 / max(size)
    mask = np.zeros((max(1, round(size[1] * scale)), max(1, round(size[0] * scale))), np.uint8)
    for h in hulls:
        cv2.fillConvexPoly(mask, np.round(h.reshape(-1, 2) * scale).astype(np.int32), 255)
    return float(np.count_nonzero(mask)) / mask.size


def _matrix_tuple(K: np.ndarray) -> tuple[tuple[float, float, float], ...]:
    return tuple(tuple(float(v) for v in row) for row in np.asarray(K, dtype=np.float64).reshape(3, 3))


def _check_pattern(pattern: tuple[int, int], what: str, minimum: int) -> tuple[int, int]:
    try:
        cols, rows = (int(v) for v in pattern)
    except (TypeError, ValueError):
        raise UserError(f"a {what} size is two whole numbers, like 9x6.") from None
    if cols < minimum or rows < minimum:
        raise UserError(f"a {what} needs at least {minimum}x{minimum}, not {cols}x{rows}.")
    return cols, rows


def _clause(sentence: str) -> str:
    return sentence.rstrip(".")


def _not_enough(reports: list[ViewReport], pattern_name: str) -> str:
    used = sum(r.used for r in reports)
    bad = [r for r in reports if not r.used]
    reasons = {r.reason for r in bad}
    if used == 0 and len(reasons) == 1:
        what = "the image" if len(reports) == 1 else f"none of the {len(reports)} images"
        return f"{what} shows the {pattern_name} usably: {bad[0].reason}."
    first = "; ".join(f"{Path(r.name).name}: {r.reason}" for r in bad[:2])
    more = f"; and {len(bad) - 2} more" if len(bad) > 2 else ""
    return (f"only {used} of {len(reports)} images show the {pattern_name} usably and at least {MIN_VIEWS} are "
            f"needed ({first}{more}).")
