"""A synthetic table for the calibration tests: ArUco markers with a white quiet zone on a textured
table (and optional coloured pieces), painted in table mm, seen through a known camera with lens
distortion and tilt, so every test knows exactly where each table point lands in the image.

The camera maths here is written independently of tablecam.calibration (ray-plane intersection
per pixel) so the tests do not check the code against itself.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from tablecam.calibration.geometry import TableGeometry

DATA = Path(__file__).resolve().parents[1] / "data"
PAPER = 243.0  # sRGB of white paper (90 % reflectance) and of printed black (2 %)
INK = 40.0


@dataclass(frozen=True)
class Cam:
    size: tuple[int, int] = (800, 600)
    focal_px: float = 560.0
    dist: tuple[float, ...] = (-0.12, 0.03, 0.0, 0.0, 0.0)
    height_mm: float = 820.0
    tilt_deg: float = 12.0  # leaning from vertical, about the image x axis
    roll_deg: float = 4.0  # turning about the optical axis
    aim_mm: tuple[float, float] = (400.0, 250.0)

    @property
    def K(self) -> np.ndarray:
        w, h = self.size
        return np.array([[self.focal_px, 0, (w - 1) / 2 + 7], [0, self.focal_px, (h - 1) / 2 - 5], [0, 0, 1.0]])

    @property
    def R(self) -> np.ndarray:
        """World (table mm, z into the table) to camera."""
        t, r = math.radians(self.tilt_deg), math.radians(self.roll_deg)
        rx = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]])
        rz = np.array([[math.cos(r), -math.sin(r), 0], [math.sin(r), math.cos(r), 0], [0, 0, 1]])
        return rz @ rx

    @property
    def centre(self) -> np.ndarray:
        axis = self.R.T @ np.array([0.0, 0.0, 1.0])  # optical axis in world coordinates
        return np.array([self.aim_mm[0], self.aim_mm[1], 0.0]) - self.height_mm / axis[2] * axis

    def project(self, pts_mm) -> np.ndarray:
        pts = np.asarray(pts_mm, dtype=np.float64).reshape(-1, 2)
        obj = np.column_stack([pts, np.zeros(len(pts))])
        rvec = cv2.Rodrigues(self.R)[0]
        tvec = -self.R @ self.centre
        px, _ = cv2.projectPoints(obj, rvec, tvec, self.K, np.array(self.dist, dtype=np.float64))
        return px.reshape(-1, 2)

    def pixel_to_table(self, px) -> np.ndarray:
        """Ray through each pixel meets the table plane z = 0."""
        px = np.asarray(px, dtype=np.float64).reshape(-1, 1, 2)
        crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-10)
        dist = np.array(self.dist, dtype=np.float64)
        if hasattr(cv2, "undistortPointsIter"):
            norm = cv2.undistortPointsIter(px, self.K, dist, None, None, crit)
        else:
            norm = cv2.undistortPoints(px, self.K, dist, R=None, P=None, criteria=crit)
        norm = norm.reshape(-1, 2)
        rays = np.column_stack([norm, np.ones(len(norm))]) @ self.R  # R^T applied to each row
        c = self.centre
        s = -c[2] / rays[:, 2]
        return c[:2] + rays[:, :2] * s[:, None]


@dataclass(frozen=True)
class Piece:
    """A coloured piece lying on the table: a rectangle (w x h mm) or a disc (h = 0), sRGB colour."""

    centre_mm: tuple[float, float]
    rgb: tuple[int, int, int]
    w_mm: float
    h_mm: float = 0.0
    angle_deg: float = 0.0


@dataclass(frozen=True)
class Scene:
    cam: Cam = field(default_factory=Cam)
    geometry: TableGeometry = field(default_factory=TableGeometry)
    pieces: tuple[Piece, ...] = ()
    covered: tuple[int, ...] = ()  # markers under a hand
    light_gain: tuple[float, float, float] = (1.0, 1.0, 1.0)  # linear-light gain per B, G, R (a colour cast)
    noise: float = 1.5
    blur: float = 0.6
    table_rgb: tuple[int, int, int] = (150, 110, 70)  # wood
    marker_rotation: tuple[tuple[int, int], ...] = ()  # (id, quarter turns) the marker is stuck down with
    quiet_zone_mm: float | None = None  # None: one marker cell
    marker_ids: tuple[int, int, int, int] = (0, 1, 2, 3)  # the ids printed at corners 0..3 (swap to misplace)
    marker_shift: tuple[tuple[int, tuple[float, float]], ...] = ()  # (corner, (dx, dy) mm): a nudged marker
    seed: int = 0


def _srgb_to_linear(v: np.ndarray) -> np.ndarray:
    v = v / 255.0
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def _linear_to_srgb(v: np.ndarray) -> np.ndarray:
    v = np.clip(v, 0, 1)
    return 255.0 * np.where(v <= 0.0031308, v * 12.92, 1.055 * v ** (1 / 2.4) - 0.055)


def paint_table(scene: Scene, ppm: float, origin: tuple[float, float], size: tuple[int, int]) -> np.ndarray:
    """The table top in table mm (BGR float sRGB 0..255) at `ppm` px per mm."""
    rng = np.random.default_rng(scene.seed)
    w, h = size
    base = np.array(scene.table_rgb[::-1], dtype=np.float32)
    # Wood: slow tone changes plus grain along x.
    low = cv2.resize(rng.normal(0, 1, (8, 12)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    grain = cv2.resize(rng.normal(0, 1, (h // 3 + 1, 6)).astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    tone = 1.0 + 0.06 * low[..., None] + 0.05 * grain[..., None]
    img = np.clip(base * tone, 0, 255).astype(np.float32)

    def to_px(x, y):
        return (x - origin[0]) * ppm - 0.5, (y - origin[1]) * ppm - 0.5

    g = scene.geometry
    cell = g.marker_mm / 6
    quiet = scene.quiet_zone_mm if scene.quiet_zone_mm is not None else cell
    aruco = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    shifts = dict(scene.marker_shift)
    for m in range(4):
        cx, cy = g.marker_centre(m)
        cx, cy = cx + shifts.get(m, (0.0, 0.0))[0], cy + shifts.get(m, (0.0, 0.0))[1]
        half = g.marker_mm / 2 + quiet
        x0, y0 = to_px(cx - half, cy - half)
        x1, y1 = to_px(cx + half, cy + half)
        img[int(round(y0)):int(round(y1)), int(round(x0)):int(round(x1))] = PAPER
        side = int(round(g.marker_mm * ppm))
        marker = cv2.aruco.generateImageMarker(aruco, scene.marker_ids[m], side, borderBits=1)
        marker = np.rot90(marker, -dict(scene.marker_rotation).get(m, 0)).astype(np.float32)
        marker = INK + (PAPER - INK) * marker / 255.0
        mx, my = to_px(cx - g.marker_mm / 2, cy - g.marker_mm / 2)
        mx, my = int(round(mx + 0.5)), int(round(my + 0.5))
        img[my:my + side, mx:mx + side] = marker[..., None]
    for p in scene.pieces:
        colour = tuple(float(c) for c in p.rgb[::-1])
        px, py = to_px(*p.centre_mm)
        if p.h_mm <= 0:
            cv2.circle(img, (int(round(px * 16)), int(round(py * 16))), int(round(p.w_mm / 2 * ppm * 16)), colour,
                       -1, cv2.LINE_AA, shift=4)
        else:
            box = cv2.boxPoints(((px, py), (p.w_mm * ppm, p.h_mm * ppm), p.angle_deg))
            cv2.fillConvexPoly(img, np.round(box * 16).astype(np.int32), colour, cv2.LINE_AA, shift=4)
    return img


def render(scene: Scene) -> np.ndarray:
    """What the camera sees: BGR uint8."""
    cam = scene.cam
    w, h = cam.size
    # The pixel -> table mapping is smooth: solve it on a coarse grid and interpolate.
    step = 8
    # cv2.resize puts coarse sample i at fine index i * step + (step - 1) / 2, so sample pixel
    # i * step - (step - 1) / 2 and crop the first step - 1 fine indices away.
    shift = (step - 1) / 2
    gu = np.arange(0, w // step + 3) * step - shift
    gv = np.arange(0, h // step + 3) * step - shift
    us, vs = np.meshgrid(gu, gv)
    coarse = cam.pixel_to_table(np.column_stack([us.ravel(), vs.ravel()])).reshape(len(gv), len(gu), 2)
    big = cv2.resize(coarse, (len(gu) * step, len(gv) * step), interpolation=cv2.INTER_LINEAR)
    table = big[step - 1:step - 1 + h, step - 1:step - 1 + w].reshape(-1, 2)
    ppm = 2.0  # the camera sees about 0.7 px/mm: 2 px/mm of texture is plenty
    origin = (-200.0, -200.0)
    tex_size = (int((scene.geometry.width_mm + 400) * ppm), int((scene.geometry.height_mm + 400) * ppm))
    texture = paint_table(scene, ppm, origin, tex_size)
    mapx = ((table[:, 0] - origin[0]) * ppm - 0.5).reshape(h, w).astype(np.float32)
    mapy = ((table[:, 1] - origin[1]) * ppm - 0.5).reshape(h, w).astype(np.float32)
    # Area-average the texture first so the camera's coarser pixels do not alias it.
    texture = cv2.GaussianBlur(texture, (0, 0), 0.5 * ppm)
    img = cv2.remap(texture, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    rng = np.random.default_rng(scene.seed + 1)
    for m in scene.covered:  # a hand: a skin-coloured blob over the marker and beyond
        c = cam.project([scene.geometry.marker_centre(m)])[0]
        r = 1.6 * scene.geometry.marker_mm * cam.focal_px / cam.height_mm
        cv2.ellipse(img, (int(c[0]), int(c[1])), (int(r * 1.3), int(r)), 30, 0, 360, (120, 150, 205), -1)
    lin = _srgb_to_linear(img) * np.array(scene.light_gain, dtype=np.float32)
    img = _linear_to_srgb(lin)
    if scene.blur > 0:
        img = cv2.GaussianBlur(img, (0, 0), scene.blur)
    img = img + rng.normal(0, scene.noise, img.shape)
    return np.clip(np.round(img), 0, 255).astype(np.uint8)


@lru_cache(maxsize=16)
def _render_cached(scene: Scene) -> np.ndarray:
    return render(scene)


def view(scene: Scene) -> np.ndarray:
    """`render`, remembered: several tests look at the same scene."""
    return _render_cached(scene).copy()


def profile_of(cam: Cam):
    """The lens profile a perfect calibration of `cam` would give."""
    from tablecam.calibration.lens import CameraProfile

    return CameraProfile(tuple(tuple(float(v) for v in row) for row in cam.K), tuple(cam.dist), cam.size, 0.2)


def table_errors_mm(fix, cam: Cam, points_mm) -> np.ndarray:
    """How far (mm) the fix puts the true image of each table point from that point."""
    pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
    return np.linalg.norm(fix.image_to_table(cam.project(pts)) - pts, axis=1)
