"""The table homography: from the four ArUco markers in a frame to table millimetres (ARCHITECTURE.md)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from functools import cached_property

import cv2
import numpy as np

from tablecam.calibration.geometry import MARKER_IDS, TableGeometry
from tablecam.calibration.images import check_frame, to_grey
from tablecam.calibration.lens import CameraProfile
from tablecam.calibration.markers import MarkerFinder, MarkerSighting, Sightings, quad_centre
from tablecam.errors import UserError

MIN_MARKERS = 3  # three markers still fix a homography (12 corners); two would be a guess
# Above this the markers do not sit where the settings say: the spacing was mis-measured,
# the mat is not flat, or the lens needs a profile. Sub-millimetre is normal.
GEOMETRY_WARNING_MM = 2.0
# Through a lens profile, the table's x and y scales must agree; a 1.5 % difference is 12 mm over
# 800 mm, more than a careful tape measurement and more than a decent profile's fx/fy error.
ASPECT_WARNING = 0.015


class TableNotFound(UserError):
    """Fewer than three table markers are visible (or they make no sense as a table)."""


@dataclass(frozen=True, eq=False)
class TableFix:
    """Where the table is in one frame.

    `homography` maps undistorted image pixels to table mm (the raw pixels when there is no
    camera profile); use `image_to_table` / `table_to_image`, which handle the lens.
    """

    homography: np.ndarray
    geometry: TableGeometry
    profile: CameraProfile | None  # already sized for `image_size`
    image_size: tuple[int, int]  # (width, height)
    markers_seen: tuple[int, ...]  # markers detected in THIS frame
    marker_corners_px: Mapping[int, np.ndarray]  # raw-pixel corners the homography was fitted to
    marker_errors_mm: Mapping[int, float]  # per fitted marker: detected centre vs the settings' centre
    warnings: tuple[str, ...] = ()
    held: bool = False  # the homography comes from an earlier frame (markers covered now)
    relocked: bool = False  # the markers had moved and the homography was fitted anew in this frame

    @property
    def lock(self) -> bytes:
        """Equal for fixes sharing a homography (and lens and frame size): a key for cached warp maps."""
        parts = [self.homography.tobytes(), repr(self.image_size).encode()]
        if self.profile is not None:
            parts += [self.profile.K.tobytes(), self.profile.dist.tobytes()]
        return b"|".join(parts)

    @property
    def reprojection_mm(self) -> float:
        """The marker-centre reprojection error of the fit, in mm (the worst marker)."""
        return max(self.marker_errors_mm.values()) if self.marker_errors_mm else float("nan")

    @cached_property
    def table_to_image_homography(self) -> np.ndarray:
        # Inverted once per fix: a frame's reader maps table points to the image dozens of times.
        inverse = np.linalg.inv(self.homography)
        inverse.flags.writeable = False
        return inverse

    def image_to_table(self, points_px) -> np.ndarray:
        """Raw frame pixels (N, 2) -> table mm (N, 2)."""
        pts = undistort_pixels(np.asarray(points_px, dtype=np.float64).reshape(-1, 2), self.profile)
        return _apply(self.homography, pts)

    def table_to_image(self, points_mm) -> np.ndarray:
        """Table mm (N, 2) -> raw frame pixels (N, 2), lens distortion included."""
        pts = _apply(self.table_to_image_homography, np.asarray(points_mm, dtype=np.float64).reshape(-1, 2))
        return distort_pixels(pts, self.profile)

    def replace(self, **changes) -> "TableFix":
        """A copy with some fields changed."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values.update(changes)
        return TableFix(**values)

    def summary(self) -> dict:
        """Plain values for JSON output."""
        return {
            "markers_seen": list(self.markers_seen),
            "reprojection_mm": round(self.reprojection_mm, 3),
            "marker_errors_mm": {str(k): round(v, 3) for k, v in sorted(self.marker_errors_mm.items())},
            "held": self.held,
            "relocked": self.relocked,
            "warnings": list(self.warnings),
        }


def find_table(image: np.ndarray, geometry: TableGeometry = TableGeometry(), profile: CameraProfile | None = None,
               finder: MarkerFinder | None = None) -> TableFix:
    """Finds the table markers anywhere in the frame and fits the homography to table mm.

    Raises TableNotFound (a UserError) with one sentence when fewer than three markers show.
    """
    image = check_frame(image)
    grey = to_grey(image)
    sightings = search_markers(finder or MarkerFinder(geometry=geometry), grey)
    return fit_table(sightings, geometry, profile, (grey.shape[1], grey.shape[0]))


def search_markers(finder: MarkerFinder, grey: np.ndarray) -> Sightings:
    """The table markers anywhere in the frame: a search of the reduced frame, then, when it
    misses some (small or far markers), a full-size try around what it found."""
    first = finder.find_all(grey, refine=False)  # refined below only if it is kept
    if len(first.markers) < len(MARKER_IDS):
        full = finder.find_all(grey, long_side=max(grey.shape), near=first)
        if len(full.markers) > len(first.markers):
            return full
    return finder.refined(grey, first)


def fit_table(sightings: Sightings, geometry: TableGeometry, profile: CameraProfile | None,
              image_size: tuple[int, int]) -> TableFix:
    """The table fix from the markers seen (at least three): a least-squares homography through
    all their corners, or, for three markers with a lens profile, the camera pose through them."""
    profile = profile.for_size(image_size) if profile is not None else None
    seen = sorted(sightings.markers)
    if len(seen) < MIN_MARKERS:
        raise TableNotFound(_not_enough_markers(seen))
    # All corners through the lens in one call (each point is undistorted on its own: the same
    # values as a call per marker, without the calls).
    flat = undistort_pixels(np.concatenate([sightings.markers[m].corners for m in seen]), profile)
    undist = {m: flat[4 * k:4 * k + 4] for k, m in enumerate(seen)}
    centres_px = np.array([quad_centre(undist[m]) for m in seen])
    centres_mm = np.array([geometry.marker_centre(m) for m in seen])
    if len(seen) >= 4:
        rough = cv2.getPerspectiveTransform(centres_px[:4].astype(np.float32), centres_mm[:4].astype(np.float32))
    else:
        affine = cv2.getAffineTransform(centres_px[:3].astype(np.float32), centres_mm[:3].astype(np.float32))
        rough = np.vstack([affine, [0.0, 0.0, 1.0]])
    if not np.isfinite(rough).all() or abs(np.linalg.det(rough)) < 1e-12:
        raise TableNotFound("the table markers seen lie on one line, so they cannot fix the table: "
                            "check that markers 0-3 sit at the four corners of the play area.")
    # A marker stuck down turned by 90 degrees is fine: match its corners by where they fall.
    turns = dict(zip(seen, _rotations(flat, [geometry.marker_corners(m) for m in seen], rough)))
    ordered = {m: undist[m][_TURNS[turns[m]]] for m in seen}
    src = np.concatenate([ordered[m] for m in seen])
    dst = np.concatenate([np.array(geometry.marker_corners(m), dtype=np.float64) for m in seen])
    if profile is not None and len(seen) < len(MARKER_IDS):
        # Three markers leave the fourth corner to extrapolation, where a free homography (8 degrees
        # of freedom) wanders by millimetres; a camera pose (6) through the known lens does not.
        H = _homography_from_pose(src, dst, profile.K)
    else:
        # Four markers: a free homography absorbs small errors of the lens profile.
        H, _ = cv2.findHomography(src, dst, 0)
    if H is None or not np.isfinite(H).all():
        raise TableNotFound("the table markers seen do not form a table: check that markers 0-3 sit at the "
                            "four corners of the play area.")
    if _mirrored(H, centres_px.mean(axis=0)):
        raise TableNotFound("the table markers are in the wrong corners (the table comes out mirrored): "
                            "put 0 top-left, 1 top-right, 2 bottom-right and 3 bottom-left as seen from the camera.")
    centres_fit = _apply(H, np.array([quad_centre(ordered[m]) for m in seen]))  # each point on its own
    errors = {m: _distance(centres_fit[k], geometry.marker_centre(m)) for k, m in enumerate(seen)}
    raw_corners = {m: np.asarray(sightings.markers[m].corners, dtype=np.float64)[_TURNS[turns[m]]] for m in seen}
    warnings = [f"marker {', '.join(map(str, sightings.duplicates))} appears more than once: "
                "remove the extra copy"] if sightings.duplicates else []
    missing = [m for m in MARKER_IDS if m not in seen]
    if missing:
        near = "" if profile is not None else f", less exactly near marker {missing[0]} without a lens profile"
        warnings.append(f"marker {missing[0]} not seen: the table is fixed from the other three{near}")
    if profile is not None:
        aspect = _metric_aspect(H, profile.K)
        if abs(aspect - 1.0) > ASPECT_WARNING:
            longer = "across (0 to 1)" if aspect > 1 else "down (0 to 3)"
            warnings.append(f"the camera sees the table {abs(aspect - 1):.1%} longer {longer} than the settings "
                            "say: measure the marker spacing again, centre to centre (tablecam calibrate geometry)")
    worst = max(errors.values())
    if worst > GEOMETRY_WARNING_MM:
        lens = "" if profile is not None else ", or calibrate the lens (tablecam calibrate lens)"
        warnings.append(f"the markers sit up to {worst:.1f} mm from where the settings put them: measure the "
                        f"marker spacing again (tablecam calibrate geometry) and keep the mat flat{lens}")
    H = H / H[2, 2]
    H.flags.writeable = False
    return TableFix(H, geometry, profile, (int(image_size[0]), int(image_size[1])), tuple(seen),
                    {m: _frozen(c) for m, c in raw_corners.items()}, errors, tuple(warnings))


def marker_sighting_errors_mm(fix: TableFix, sightings: Mapping[int, MarkerSighting]) -> dict[int, float]:
    """How far (mm) each sighted marker's centre lies from where `fix` last saw it (or, for a marker
    the fix never saw, from where the settings put it)."""
    ids = list(sightings)
    if not ids:
        return {}
    # All centres through the lens at once: each point is undistorted on its own, so this is the
    # same as a call per point, without the calls.
    now = fix.image_to_table(np.array([sightings[m].centre for m in ids]))
    known = [m for m in ids if m in fix.marker_corners_px]
    then_known = fix.image_to_table(np.array([quad_centre(fix.marker_corners_px[m]) for m in known])) if known else []
    then = dict(zip(known, then_known))
    return {m: float(np.linalg.norm(now[k] - (then[m] if m in then else np.array(fix.geometry.marker_centre(m)))))
            for k, m in enumerate(ids)}


def undistort_pixels(points: np.ndarray, profile: CameraProfile | None) -> np.ndarray:
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    if profile is None:
        return pts
    K = profile.K
    # The default 5 iterations leave tenths of a pixel at the corners of a strong barrel lens.
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-9)
    src = pts.reshape(-1, 1, 2)
    if hasattr(cv2, "undistortPointsIter"):  # OpenCV 4.x
        out = cv2.undistortPointsIter(src, K, profile.dist, None, K, criteria)
    else:  # OpenCV 5 folded the criteria into undistortPoints
        out = cv2.undistortPoints(src, K, profile.dist, R=None, P=K, criteria=criteria)
    return out.reshape(-1, 2)


# Below this many points cv2.projectPoints is the cheaper call; above it, its cost per point
# (about 0.15 us against 0.01 us for numpy) dominates: a frame's reader samples thousands.
_NUMPY_DISTORT_FROM = 64


def distort_pixels(points: np.ndarray, profile: CameraProfile | None) -> np.ndarray:
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    if profile is None:
        return pts
    K = profile.K
    dist = profile.dist
    if len(pts) >= _NUMPY_DISTORT_FROM and dist.size <= 12:
        return _distort_numpy(pts, K, dist)
    normalised = (pts - (K[0, 2], K[1, 2])) / (K[0, 0], K[1, 1])
    obj = np.hstack([normalised, np.ones((len(pts), 1))])
    img, _ = cv2.projectPoints(obj, np.zeros(3), np.zeros(3), K, dist)
    return img.reshape(-1, 2)


def _distort_numpy(pts: np.ndarray, K: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """cv2.projectPoints of undistorted pixels (rotation and translation zero), for up to 12
    coefficients (radial, tangential, rational, thin prism; not the tilted sensor), in the same
    operations and order as OpenCV's own code: the same to the last bit on x86-64 (checked on
    OpenCV 5.0), and within 1e-12 px where a compiler fuses OpenCV's multiply-adds."""
    k = np.zeros(12)
    k[:dist.size] = dist.ravel()
    fx, fy, cx, cy = K[0, 0], K[1, 1], K[0, 2], K[1, 2]
    x = (pts[:, 0] - cx) / fx
    y = (pts[:, 1] - cy) / fy
    r2 = x * x + y * y
    if not k[5:].any() and len(r2) and float(r2.max()) < _FINITE_R2:
        return _distort_radial_tangential(x, y, r2, k, fx, fy, cx, cy)
    r4 = r2 * r2
    r6 = r4 * r2
    a1 = 2 * x * y
    a2 = r2 + 2 * x * x
    a3 = r2 + 2 * y * y
    cdist = 1 + k[0] * r2 + k[1] * r4 + k[4] * r6
    icdist2 = 1.0 / (1 + k[5] * r2 + k[6] * r4 + k[7] * r6)
    xd = x * cdist * icdist2 + k[2] * a1 + k[3] * a2 + k[8] * r2 + k[9] * r4
    yd = y * cdist * icdist2 + k[2] * a3 + k[3] * a1 + k[10] * r2 + k[11] * r4
    out = np.empty_like(pts)
    out[:, 0] = xd * fx + cx
    out[:, 1] = yd * fy + cy
    return out


# Below this squared (normalised) radius r2 ** 3 is finite: a zero coefficient's term is then an exact
# zero (and the rational model's divisor an exact 1), so leaving it out changes no bit.
_FINITE_R2 = 1e100


def _distort_radial_tangential(x: np.ndarray, y: np.ndarray, r2: np.ndarray, k: np.ndarray, fx: float, fy: float,
                               cx: float, cy: float) -> np.ndarray:
    """_distort_numpy's sums for the usual model (k1, k2, p1, p2, k3; no rational or thin-prism terms):
    the very same products and sums in the same order, less the terms that are exact zeros (x * 1.0
    and v + 0.0 are v; a zero's sign is lost in `* f + c` either way), and worked in place. A frame's
    reader projects 17 000 - 70 000 points a frame: a third of the time."""
    r4 = r2 * r2
    cdist = 1 + k[0] * r2
    cdist += k[1] * r4
    if k[4] != 0.0:
        r4 *= r2  # r6 (r4 is not needed again)
        r4 *= k[4]
        cdist += r4
    a1 = 2 * x
    a1 *= y
    term = k[2] * a1
    xd = x * cdist
    xd += term
    a2 = 2 * x
    a2 *= x
    a2 += r2
    np.multiply(k[3], a2, out=term)
    xd += term
    yd = y * cdist
    a3 = 2 * y
    a3 *= y
    a3 += r2
    np.multiply(k[2], a3, out=term)
    yd += term
    np.multiply(k[3], a1, out=term)
    yd += term
    out = np.empty((len(x), 2))
    xd *= fx
    np.add(xd, cx, out=out[:, 0])
    yd *= fy
    np.add(yd, cy, out=out[:, 1])
    return out


def _homography_from_pose(undistorted_px: np.ndarray, table_mm: np.ndarray, K: np.ndarray) -> np.ndarray:
    obj = np.column_stack([table_mm, np.zeros(len(table_mm))])
    img = undistorted_px.reshape(-1, 1, 2)
    ok, rvec, tvec = cv2.solvePnP(obj, img, K, None, flags=cv2.SOLVEPNP_IPPE)
    if not ok:
        return np.full((3, 3), np.nan)
    rvec, tvec = cv2.solvePnPRefineLM(obj, img, K, None, rvec, tvec)
    R = cv2.Rodrigues(rvec)[0]
    table_to_px = K @ np.column_stack([R[:, 0], R[:, 1], tvec.ravel()])
    return np.linalg.inv(table_to_px)


def _metric_aspect(H: np.ndarray, K: np.ndarray) -> float:
    """Through a known lens a flat table's x and y axes must come out equally long (they are the
    first two columns of a rotation). Their ratio exposes a mis-measured marker spacing, which a
    free homography through four markers would otherwise absorb without a trace."""
    A = np.linalg.inv(K) @ np.linalg.inv(H)
    return float(np.linalg.norm(A[:, 0]) / np.linalg.norm(A[:, 1]))


def _apply(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    if len(pts) == 0:
        return pts.reshape(0, 2)
    return cv2.perspectiveTransform(pts.reshape(-1, 1, 2).astype(np.float64), H).reshape(-1, 2)


# corners[_TURNS[k]] is np.roll(corners, -k, axis=0): the marker's corners read from its k-th on.
_TURNS = (np.arange(4)[None, :] + np.arange(4)[:, None]) % 4


def _rotations(corners_px: np.ndarray, corners_mm: list[list[tuple[float, float]]], rough: np.ndarray) -> list[int]:
    """By how many corners each marker is turned: the k for which its corners from the k-th on fall
    nearest its table corners through `rough`. `corners_px` (4 * markers, 2), four by four (one
    transform and one sum for all markers: each point is mapped on its own)."""
    where = _apply(rough, corners_px).reshape(-1, 4, 2)
    misfit = ((where[:, _TURNS] - np.array(corners_mm, dtype=np.float64)[:, None]) ** 2).sum(axis=(2, 3))
    return np.argmin(misfit, axis=1).tolist()


def _distance(a: np.ndarray, b: tuple[float, float]) -> float:
    """float(np.linalg.norm(a - b)) of two points, in plain floats (the same products and square root)."""
    dx, dy = float(a[0]) - float(b[0]), float(a[1]) - float(b[1])
    return math.sqrt(dx * dx + dy * dy)


def _mirrored(H: np.ndarray, at_px: np.ndarray) -> bool:
    # Image x right / y down and table x right / y down keep their orientation; a negative
    # Jacobian means the markers were laid out as a mirror image of the plan.
    eps = 1.0
    p = np.array([at_px, at_px + (eps, 0), at_px + (0, eps)])
    q = _apply(H, p)
    jx, jy = q[1] - q[0], q[2] - q[0]
    return bool(jx[0] * jy[1] - jx[1] * jy[0] < 0)


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.array(a, dtype=np.float64)
    a.flags.writeable = False
    return a


def _not_enough_markers(seen: list[int]) -> str:
    if not seen:
        return ("no table marker is visible: point the camera at the table so that the four markers "
                "(DICT_4X4_50, ids 0-3) are in view, well lit and sharp.")
    names = " and ".join(map(str, seen))
    word = "marker" if len(seen) == 1 else "markers"
    return (f"only {word} {names} of the four table markers {'is' if len(seen) == 1 else 'are'} visible: "
            f"uncover the others (or check the light and focus) so that at least three are seen.")
