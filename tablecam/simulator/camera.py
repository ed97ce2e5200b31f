"""The camera model: resolution, pinhole intrinsics, lens distortion and pose over the table.

World frame = the table frame of ARCHITECTURE.md (mm, origin at marker 0, x towards marker 1,
y towards marker 3) with z pointing down into the table, so the camera sits at negative z.
That keeps the frame right-handed and makes OpenCV's camera frame (x right, y down, z forward)
equal to the world frame for a camera looking straight down with the far side at the top.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache

import cv2
import numpy as np

from tablecam.calibration.geometry import TableGeometry
from tablecam.errors import UserError

# Raspberry Pi camera modes: HQ camera 2x2 binned (the default), camera v2 binned, camera 3 full width.
RESOLUTIONS = ((2028, 1520), (1640, 1232), (4608, 2592))
DEFAULT_RESOLUTION = RESOLUTIONS[0]
HEIGHT_RANGE_MM = (600.0, 1000.0)
MAX_TILT_DEG = 25.0
# The part of the table a mount is aimed at: the markers plus this much table around them.
VIEW_MARGIN_MM = 70.0


@dataclass(frozen=True)
class CameraModel:
    """A calibrated camera and where it hangs.

    Pose: the optical axis meets the table at `aim_mm`; the camera is `height_mm` above the
    table, leaning `tilt_deg` from vertical towards compass direction `yaw_deg` (0 = the
    camera sits on the far side looking towards the near side, 90 = it sits on the marker-1
    side); `roll_deg` turns the image about the optical axis (clockwise, 0 = far side at top).
    """

    resolution: tuple[int, int] = DEFAULT_RESOLUTION
    focal_px: float = 1600.0
    principal_px: tuple[float, float] | None = None  # None: the image centre
    dist: tuple[float, float, float, float, float] = (0.0, 0.0, 0.0, 0.0, 0.0)  # k1 k2 p1 p2 k3
    height_mm: float = 800.0
    tilt_deg: float = 0.0
    yaw_deg: float = 0.0
    roll_deg: float = 0.0
    aim_mm: tuple[float, float] = (400.0, 250.0)

    def __post_init__(self) -> None:
        w, h = self.resolution
        if not (isinstance(w, int) and isinstance(h, int) and 64 <= w <= 10000 and 64 <= h <= 10000):
            raise UserError(f"a camera resolution must be two whole numbers of 64 to 10000 pixels, not {w}x{h}.")
        if not self.focal_px > 0:
            raise UserError(f"the focal length must be positive, not {self.focal_px} px.")
        if not 50.0 <= self.height_mm <= 5000.0:
            raise UserError(f"the camera must hang 50 to 5000 mm above the table, not {self.height_mm} mm.")
        if not 0.0 <= self.tilt_deg <= 60.0:
            raise UserError(f"the camera tilt must be 0 to 60 degrees from vertical, not {self.tilt_deg}.")

    # --- the matrices OpenCV wants -------------------------------------------------------------
    @property
    def K(self) -> np.ndarray:
        w, h = self.resolution
        cx, cy = self.principal_px if self.principal_px is not None else ((w - 1) / 2, (h - 1) / 2)
        return np.array([[self.focal_px, 0, cx], [0, self.focal_px, cy], [0, 0, 1]], dtype=np.float64)

    @property
    def dist_coeffs(self) -> np.ndarray:
        return np.array(self.dist, dtype=np.float64)

    @property
    def rotation(self) -> np.ndarray:
        """World-to-camera rotation matrix."""
        forward = self._axis()
        down_hint = np.array([0.0, 1.0, 0.0])
        if abs(forward @ down_hint) > 0.99:  # looking along y: any other hint will do
            down_hint = np.array([0.0, 0.0, 1.0])
        right = np.cross(down_hint, forward)
        right /= np.linalg.norm(right)
        down = np.cross(forward, right)
        r = math.radians(self.roll_deg)
        # Turning the image clockwise by r means turning the camera's axes the other way.
        right, down = (math.cos(r) * right - math.sin(r) * down, math.sin(r) * right + math.cos(r) * down)
        return np.stack([right, down, forward])

    @property
    def centre_mm(self) -> np.ndarray:
        """Where the lens is, in world coordinates (z negative: above the table)."""
        axis = self._axis()
        distance = self.height_mm / axis[2]
        return np.array([self.aim_mm[0], self.aim_mm[1], 0.0]) - distance * axis

    @property
    def rvec(self) -> np.ndarray:
        return cv2.Rodrigues(self.rotation)[0].ravel()

    @property
    def tvec(self) -> np.ndarray:
        return -self.rotation @ self.centre_mm

    def _axis(self) -> np.ndarray:
        t, y = math.radians(self.tilt_deg), math.radians(self.yaw_deg)
        # yaw 0: the camera is on the far side (-y) and looks towards +y.
        return np.array([-math.sin(t) * math.sin(y), math.sin(t) * math.cos(y), math.cos(t)])

    # --- projecting -------------------------------------------------------------------------------
    def project(self, points_mm: np.ndarray, z_mm: float | np.ndarray = 0.0) -> np.ndarray:
        """Pixel positions (N, 2) of table points (N, 2) lifted to height -z (z<0 is above the table)."""
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
        z = np.broadcast_to(np.asarray(z_mm, dtype=np.float64), (len(pts),))
        obj = np.column_stack([pts, z]).reshape(-1, 1, 3)
        px, _ = cv2.projectPoints(obj, self.rvec, self.tvec, self.K, self.dist_coeffs)
        return px.reshape(-1, 2)

    def in_view(self, px: np.ndarray, margin: float = 0.0) -> np.ndarray:
        w, h = self.resolution
        px = np.asarray(px).reshape(-1, 2)
        return (px[:, 0] >= margin) & (px[:, 0] <= w - 1 - margin) & (px[:, 1] >= margin) & (px[:, 1] <= h - 1 - margin)

    def nadir_mm(self) -> tuple[float, float]:
        c = self.centre_mm
        return float(c[0]), float(c[1])

    def as_truth(self) -> dict:
        return {
            "resolution": list(self.resolution),
            "K": _round(self.K.tolist(), 4),
            "dist": _round(list(self.dist), 6),
            "rvec": _round(self.rvec.tolist(), 6),
            "tvec": _round(self.tvec.tolist(), 4),
            "height_mm": round(self.height_mm, 2),
            "tilt_deg": round(self.tilt_deg, 3),
            "yaw_deg": round(self.yaw_deg, 3),
            "roll_deg": round(self.roll_deg, 3),
            "aim_mm": _round(list(self.aim_mm), 3),
            "note": "pixels = cv2.projectPoints([x_mm, y_mm, 0], rvec, tvec, K, dist); z points down into the table",
        }

    # --- constructors -----------------------------------------------------------------------------
    @classmethod
    def default(cls, resolution: tuple[int, int] = DEFAULT_RESOLUTION,
                geometry: TableGeometry = TableGeometry()) -> "CameraModel":
        """Straight down from 800 mm over the middle of the markers, a mild barrel lens, fitted to the table."""
        cam = cls(resolution=_resolution(resolution), height_mm=800.0,
                  aim_mm=(geometry.width_mm / 2, geometry.height_mm / 2), dist=(-0.06, 0.02, 0.0, 0.0, 0.0))
        return fit_focal(cam, geometry, fill=0.92)

    @classmethod
    def random(cls, rng: np.random.Generator, resolution: tuple[int, int] = DEFAULT_RESOLUTION,
               geometry: TableGeometry = TableGeometry()) -> "CameraModel":
        """A plausible mount: height 600-1000 mm, tilt up to 25 degrees, any roll, a real lens."""
        w, h = _resolution(resolution)
        tilt = float(MAX_TILT_DEG * math.sqrt(rng.uniform(0, 1)))  # many mounts are near vertical
        cam = cls(
            resolution=(w, h),
            principal_px=((w - 1) / 2 + rng.normal(0, 0.01 * w), (h - 1) / 2 + rng.normal(0, 0.01 * h)),
            dist=(float(rng.uniform(-0.22, 0.04)), float(rng.uniform(-0.03, 0.08)),
                  float(rng.normal(0, 4e-4)), float(rng.normal(0, 4e-4)), 0.0),
            height_mm=float(rng.uniform(*HEIGHT_RANGE_MM)),
            tilt_deg=tilt,
            yaw_deg=float(rng.uniform(0, 360)),
            # Any roll, but mounts are mostly squared up with the table, and a quarter turn
            # (table's long side across the sensor's short side) wastes pixels, so it is rarer.
            roll_deg=float(rng.choice([0.0, 90.0, 180.0, 270.0], p=[0.6, 0.1, 0.2, 0.1]) + rng.normal(0, 5)),
            aim_mm=(geometry.width_mm / 2 + rng.normal(0, 15), geometry.height_mm / 2 + rng.normal(0, 15)),
        )
        fill = float(rng.uniform(0.8, 0.95))
        cam = fit_focal(cam, geometry, fill=fill)
        while not _lens_monotonic(cam):  # a wide view with strong barrel folds the image corners
            cam = fit_focal(replace(cam, dist=tuple(d / 2 for d in cam.dist)), geometry, fill=fill)
        return cam


def _lens_monotonic(camera: CameraModel) -> bool:
    """True when the radial distortion keeps growing out to (beyond) the image corners.

    Real lenses do; a polynomial with too strong a k1 for the field of view folds back,
    and then a pixel no longer has one table point.
    """
    w, h = camera.resolution
    r_max = 1.3 * math.hypot(w, h) / 2 / camera.focal_px
    k1, k2 = camera.dist[0], camera.dist[1]
    r = np.linspace(0, r_max, 200)
    return bool(np.all(1 + 3 * k1 * r**2 + 5 * k2 * r**4 > 0.4))


def _resolution(resolution) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in resolution)
    except (TypeError, ValueError):
        raise UserError(f"a resolution is two whole numbers (width, height), not {resolution!r}.") from None
    return w, h


def parse_resolution(text: str) -> tuple[int, int]:
    """'2028x1520' -> (2028, 1520), or a UserError sentence."""
    parts = text.lower().replace("×", "x").split("x")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise UserError(f"a resolution is written WIDTHxHEIGHT such as 2028x1520, not {text!r}.")
    w, h = int(parts[0]), int(parts[1])
    if not (64 <= w <= 10000 and 64 <= h <= 10000):
        raise UserError(f"a resolution must be 64 to 10000 pixels each way, not {text}.")
    return w, h


def view_outline_mm(geometry: TableGeometry, margin_mm: float = VIEW_MARGIN_MM) -> np.ndarray:
    """The rectangle a mount is aimed to see: the markers' outer edges plus a margin."""
    e = geometry.marker_mm / 2 + margin_mm
    xs = np.linspace(-e, geometry.width_mm + e, 9)
    ys = np.linspace(-e, geometry.height_mm + e, 7)
    edge = [(x, -e) for x in xs] + [(x, geometry.height_mm + e) for x in xs]
    edge += [(-e, y) for y in ys] + [(geometry.width_mm + e, y) for y in ys]
    return np.array(edge, dtype=np.float64)


def fit_focal(camera: CameraModel, geometry: TableGeometry, fill: float = 0.9) -> CameraModel:
    """The same camera with the focal length that makes the table fill `fill` of the frame.

    Fitted on the distorted image, so a strong lens never pushes a marker out of view.
    """
    outline = view_outline_mm(geometry)
    cam = replace(camera, focal_px=1000.0)
    w, h = cam.resolution
    cx, cy = cam.K[0, 2], cam.K[1, 2]
    for _ in range(6):  # distortion makes the fit non-linear; a few rounds converge
        px = cam.project(outline)
        dx = np.max(np.maximum(px[:, 0] - cx, 0)) / (w - 1 - cx), np.max(np.maximum(cx - px[:, 0], 0)) / cx
        dy = np.max(np.maximum(px[:, 1] - cy, 0)) / (h - 1 - cy), np.max(np.maximum(cy - px[:, 1], 0)) / cy
        worst = max(*dx, *dy)
        cam = replace(cam, focal_px=cam.focal_px * fill / worst)
    return cam


@lru_cache(maxsize=4)
def table_rays(camera: CameraModel) -> tuple[np.ndarray, np.ndarray]:
    """For every image pixel, the table point (x_mm, y_mm) it sees: two float32 (h, w) arrays.

    Computed on a coarse grid and interpolated: the mapping is smooth, and exact inversion of
    the lens model at every one of 3 million pixels would cost seconds.
    """
    w, h = camera.resolution
    step = 8
    gx = np.arange(0, w + step, step, dtype=np.float64)
    gy = np.arange(0, h + step, step, dtype=np.float64)
    grid = np.stack(np.meshgrid(gx, gy), axis=-1).reshape(-1, 1, 2)
    norm = _undistort(grid, camera).reshape(-1, 2)
    rays = np.column_stack([norm, np.ones(len(norm))]) @ camera.rotation  # camera -> world directions
    c = camera.centre_mm
    s = -c[2] / np.where(np.abs(rays[:, 2]) < 1e-9, 1e-9, rays[:, 2])
    s = np.where(s > 0, s, np.nan)  # rays that never reach the table (above the horizon)
    x = (c[0] + s * rays[:, 0]).reshape(len(gy), len(gx))
    y = (c[1] + s * rays[:, 1]).reshape(len(gy), len(gx))
    x = np.nan_to_num(x, nan=-1e6).astype(np.float32)
    y = np.nan_to_num(y, nan=-1e6).astype(np.float32)
    # Bilinear interpolation of the coarse grid at every fine pixel (remap aligns exactly on grid nodes).
    u = np.broadcast_to(np.arange(w, dtype=np.float32) / step, (h, w))
    v = np.broadcast_to((np.arange(h, dtype=np.float32) / step)[:, None], (h, w))
    fx = cv2.remap(x, u, v, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    fy = cv2.remap(y, u, v, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return fx, fy


def _undistort(pixels: np.ndarray, camera: CameraModel) -> np.ndarray:
    """Normalised ideal coordinates of distorted pixels, iterated to convergence.

    OpenCV 4.8-4.10 has undistortPointsIter for this; OpenCV 5 folded it into undistortPoints.
    """
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-10)
    if hasattr(cv2, "undistortPointsIter"):
        return cv2.undistortPointsIter(pixels, camera.K, camera.dist_coeffs, None, None, criteria)
    return cv2.undistortPoints(pixels, camera.K, camera.dist_coeffs, criteria=criteria)


def _round(value, digits: int):
    if isinstance(value, list):
        return [_round(v, digits) for v in value]
    return round(float(value), digits)
