"""From a game state to a photo: the table painted in mm, seen through the camera, with nuisances.

A `Stage` is everything that stays put while a camera watches one table: the table top,
markers, objects beside the play area, the lighting and the lens mapping. Building it is the
slow part; each state is then painted on a copy of its canvas, and each frame only adds the
hand, noise and compression. That is what lets the demo camera run at several frames a second.
"""

from __future__ import annotations

import importlib
import math
from dataclasses import dataclass

import cv2
import numpy as np

from tablecam.calibration.geometry import ARUCO_DICTIONARY, MARKER_IDS, TableGeometry
from tablecam.errors import UserError

from .camera import CameraModel, table_rays
from .canvas import Canvas, fractal_noise
from .layout import QUIET_ZONE_MM
from .nuisances import Nuisances
from .props import HandPose, hand_centre, hand_sprite, place_props, prop_sprite
from .textures import table_top

GAMES = ("micropul", "enix", "stixx", "enigmo")
PIECE_LISTS = ("tiles", "stones", "hexes", "pawns", "cards", "sticks", "dice")
CANVAS_REACH_MM = 700.0  # paint at most this far beyond the markers (steep views see the horizon)
TABLE_GLOSS = {"wood": 45, "plain": 70, "cloth": 0}  # varnish and laminate catch the lamp a little


def game_module(game):
    if game not in GAMES:
        raise UserError(f"unknown game {game!r}: choose one of {', '.join(GAMES)}.")
    return importlib.import_module(f"{__package__}.{game}")


@dataclass(frozen=True, eq=False)
class Render:
    image: np.ndarray  # BGR uint8, camera resolution
    truth: dict  # the Observation a perfect detector prints, plus pixels, camera and scene


@dataclass(frozen=True, eq=False)
class Stage:
    camera: CameraModel
    nuisances: Nuisances
    geometry: TableGeometry
    background: Canvas
    map1: np.ndarray  # image pixel -> canvas pixel, fixed point, for cv2.remap
    map2: np.ndarray
    gain: np.ndarray | None  # uint8 (h, w, 3): 128 x (light falloff x vignetting x colour cast), or None
    noise_bank: np.ndarray | None  # int16 (h + pad, w + pad, 3) sensor noise, sliced per frame

    @classmethod
    def build(cls, camera: CameraModel, nuisances: Nuisances, geometry: TableGeometry,
              rng: np.random.Generator) -> "Stage":
        mx, my = table_rays(camera)
        ppm, origin, size = _canvas_frame(mx, my, geometry)
        ox, oy = origin
        u = (mx - ox) * ppm
        v = (my - oy) * ppm
        map1, map2 = cv2.convertMaps(u, v, cv2.CV_16SC2)
        top = table_top(nuisances.table, rng, (size[1], size[0]), ppm)
        canvas = Canvas(top, origin, ppm)
        canvas.gloss[:] = TABLE_GLOSS[nuisances.table]
        light = nuisances.light
        for p in place_props(rng, nuisances.props, geometry):
            canvas.place(prop_sprite(p.kind, p.variant, round(ppm, 3)), p.centre_mm, p.angle_deg, light)
        _draw_markers(canvas, geometry)
        return cls(camera, nuisances, geometry, canvas, map1, map2, _gain(mx, my, camera, nuisances, rng),
                   _noise_bank(camera, nuisances, rng))

    def paint(self, game: str, part: dict, scene: dict) -> Canvas:
        canvas = self.background.copy()
        game_module(game).draw(canvas, part, scene, self.nuisances.light)
        _glare(canvas, self.nuisances)
        return canvas

    def add_hand(self, canvas: Canvas, pose: HandPose) -> None:
        """Paint a hand held `lift_mm` above the table where the camera sees it, and mark what it hides.

        A flat thing at height z looks, to a pinhole, like the same thing on the table grown by
        h / (h - z) away from the point under the lens; that keeps the hand a plain sprite.
        """
        sprite, centre_x = hand_sprite(pose.skin, pose.sleeve, canvas.ppm)
        h = max(self.camera.centre_mm[2] * -1, pose.lift_mm + 50)
        grow = h / (h - pose.lift_mm)
        nx, ny = self.camera.nadir_mm()
        cx, cy = hand_centre(pose, centre_x)
        seen = (nx + (cx - nx) * grow, ny + (cy - ny) * grow)
        canvas.place(sprite, seen, pose.arm_deg + 180.0, self.nuisances.light, lift_mm=pose.lift_mm, scale=grow)
        canvas.cover(sprite, seen, pose.arm_deg + 180.0, scale=grow)

    def develop(self, canvas: Canvas) -> np.ndarray:
        """The noiseless camera image: lens mapping, light falloff, colour cast, blur."""
        # Beyond the painted table (steep views), mirror it rather than smear its edge pixels.
        img = cv2.remap(canvas.image, self.map1, self.map2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT_101)
        if self.gain is not None:
            # Fixed point (gain x 128 in uint8) keeps this a single fast uint8 pass.
            img = cv2.multiply(img, self.gain, scale=1.0 / 128, dtype=cv2.CV_8U)
        if self.nuisances.blur_px > 0.05:
            img = cv2.GaussianBlur(img, (0, 0), self.nuisances.blur_px)
        return img

    def expose(self, clean: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One frame: fresh sensor noise on the developed image, then the encoder's artefacts."""
        img = clean
        if self.noise_bank is not None:
            h, w = clean.shape[:2]
            pad_y = self.noise_bank.shape[0] - h
            pad_x = self.noise_bank.shape[1] - w
            y, x = int(rng.integers(pad_y + 1)), int(rng.integers(pad_x + 1))
            img = cv2.add(clean, self.noise_bank[y:y + h, x:x + w], dtype=cv2.CV_8U)
        q = self.nuisances.jpeg_quality
        if q is not None:
            ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(q)])
            img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        return img

    def covered_px(self, canvas: Canvas, points_mm: np.ndarray) -> np.ndarray:
        """True where a hand hides the table point."""
        if not canvas.covered.any() or len(points_mm) == 0:
            return np.zeros(len(points_mm), bool)
        p = np.round(canvas.to_px(points_mm)).astype(int)
        h, w = canvas.covered.shape
        inside = (p[:, 0] >= 0) & (p[:, 0] < w) & (p[:, 1] >= 0) & (p[:, 1] < h)
        out = np.zeros(len(p), bool)
        out[inside] = canvas.covered[p[inside, 1], p[inside, 0]] > 0
        return out


def _canvas_frame(mx: np.ndarray, my: np.ndarray, geometry: TableGeometry):
    """Pixels per mm and extent of the table raster: dense enough for the sharpest part of the view."""
    lo_x, hi_x = -CANVAS_REACH_MM, geometry.width_mm + CANVAS_REACH_MM
    lo_y, hi_y = -CANVAS_REACH_MM, geometry.height_mm + CANVAS_REACH_MM
    seen = (mx > lo_x) & (mx < hi_x) & (my > lo_y) & (my < hi_y)
    if not seen.any():
        raise UserError("the camera does not see the table at all; check its height, tilt and aim.")
    x0, x1 = float(mx[seen].min()) - 5, float(mx[seen].max()) + 5
    y0, y1 = float(my[seen].min()) - 5, float(my[seen].max()) + 5
    x0, x1 = max(x0, lo_x), min(x1, hi_x)
    y0, y1 = max(y0, lo_y), min(y1, hi_y)
    step = np.hypot(np.diff(mx[::16, ::16], axis=1), np.diff(my[::16, ::16], axis=1)) / 16  # mm per pixel
    step = step[np.isfinite(step) & (step > 0) & (step < 50)]
    mm_per_px = float(np.percentile(step, 2)) if step.size else 0.5
    # 1.25x the image's own density keeps edges crisp without costing memory for nothing.
    ppm = float(np.clip(1.25 / mm_per_px, 1.0, 8.0))
    size = (int(math.ceil((x1 - x0) * ppm)) + 1, int(math.ceil((y1 - y0) * ppm)) + 1)
    while size[0] * size[1] > 40e6:  # a steep, wide view: cap memory, lose a little sharpness far away
        ppm *= 0.85
        size = (int(math.ceil((x1 - x0) * ppm)) + 1, int(math.ceil((y1 - y0) * ppm)) + 1)
    return ppm, (x0, y0), size


def _draw_markers(canvas: Canvas, geometry: TableGeometry) -> None:
    """The four ArUco markers, printed black on white paper with a quiet zone, cell by cell in mm."""
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, ARUCO_DICTIONARY))
    paper = (232, 236, 238)
    ink = (28, 28, 30)
    shift = 4
    one = 1 << shift
    cell = geometry.marker_mm / 6  # 4x4 bits inside a one-cell black border
    for mid in MARKER_IDS:
        bits = cv2.aruco.generateImageMarker(dictionary, mid, 6, borderBits=1)
        cx, cy = geometry.marker_centre(mid)
        half = geometry.marker_mm / 2 + QUIET_ZONE_MM
        sheet = canvas.to_px([(cx - half, cy - half), (cx + half, cy - half), (cx + half, cy + half),
                              (cx - half, cy + half)])
        cv2.fillPoly(canvas.image, [np.round(sheet * one).astype(np.int32)], paper, cv2.LINE_AA, shift)
        x0, y0 = cx - geometry.marker_mm / 2, cy - geometry.marker_mm / 2
        for r in range(6):
            for c in range(6):
                if bits[r, c] == 0:
                    sq = canvas.to_px([(x0 + c * cell, y0 + r * cell), (x0 + (c + 1) * cell, y0 + r * cell),
                                       (x0 + (c + 1) * cell, y0 + (r + 1) * cell), (x0 + c * cell, y0 + (r + 1) * cell)])
                    cv2.fillPoly(canvas.image, [np.round(sq * one).astype(np.int32)], ink, cv2.LINE_AA, shift)
        # Matte paper: no glare on the markers.
        cv2.fillPoly(canvas.gloss, [np.round(sheet * one).astype(np.int32)], 0, cv2.LINE_AA, shift)


def _gain(mx: np.ndarray, my: np.ndarray, camera: CameraModel, n: Nuisances,
          rng: np.random.Generator) -> np.ndarray | None:
    """Per-pixel brightness and colour: exposure, uneven light, a soft cast shadow, vignetting."""
    neutral = (n.exposure == 1.0 and n.colour_cast == (1.0, 1.0, 1.0) and n.uneven_light == 0
               and n.vignetting == 0 and n.cast_shadow == 0)
    if neutral:
        return None
    h, w = mx.shape
    small = (max(8, w // 8), max(8, h // 8))  # light varies slowly: compute coarse, then resize
    sx = cv2.resize(mx, small, interpolation=cv2.INTER_AREA)
    sy = cv2.resize(my, small, interpolation=cv2.INTER_AREA)
    sx = np.clip(sx, -2000, 3000)
    sy = np.clip(sy, -2000, 3000)
    g = np.full(sx.shape, n.exposure, np.float32)
    a = math.radians(n.uneven_angle_deg)
    along = ((sx - 400) * math.cos(a) + (sy - 250) * math.sin(a)) / 900.0  # about -0.5 .. 0.5 over the table
    g *= 1.0 - n.uneven_light * np.clip(along + 0.5, 0, 1.5) ** 1.5
    if n.cast_shadow > 0:
        b = math.radians(n.cast_shadow_angle_deg)
        across = (sx - 400) * math.cos(b) + (sy - 250) * math.sin(b) - n.cast_shadow_offset_mm
        wobble = fractal_noise(rng, sx.shape, max(sx.shape) / 3, 2) * 60
        soft = 1.0 / (1.0 + np.exp(-(across + wobble) / 45.0))
        g *= 1.0 - n.cast_shadow * soft
    yy, xx = np.indices(sx.shape, dtype=np.float32)
    cx, cy = (sx.shape[1] - 1) / 2, (sx.shape[0] - 1) / 2
    r2 = ((xx - cx) ** 2 + (yy - cy) ** 2) / (cx * cx + cy * cy)
    g *= 1.0 - n.vignetting * r2 ** 1.5
    g = cv2.resize(g.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    return np.clip(np.dstack([g * c * 128 for c in n.colour_cast]) + 0.5, 0, 255).astype(np.uint8)


def _noise_bank(camera: CameraModel, n: Nuisances, rng: np.random.Generator) -> np.ndarray | None:
    """Sensor noise for many frames: one padded field, sliced at a random offset per frame.

    Mostly shared between channels (demosaicing correlates them) and a little blurred.
    """
    if n.noise <= 0:
        return None
    w, h = camera.resolution
    pad = 48
    luma = rng.standard_normal((h + pad, w + pad), dtype=np.float32)
    chroma = rng.standard_normal((h + pad, w + pad, 3), dtype=np.float32)
    field = 0.8 * luma[..., None] + 0.45 * chroma
    field = cv2.GaussianBlur(field, (0, 0), 0.6)
    field *= n.noise / max(float(field.std()), 1e-6)
    return np.round(field).astype(np.int16)


def _glare(canvas: Canvas, n: Nuisances) -> None:
    """The lamp's reflection: a soft bright patch on whatever is glossy around `glare_mm`."""
    if n.glare <= 0:
        return
    r = n.glare_radius_mm
    cx, cy = canvas.to_px(n.glare_mm)
    rad = 3 * r * canvas.ppm
    h, w = canvas.gloss.shape
    x0, x1 = int(max(cx - rad, 0)), int(min(cx + rad, w))
    y0, y1 = int(max(cy - rad, 0)), int(min(cy + rad, h))
    if x0 >= x1 or y0 >= y1:
        return
    yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    d2 = ((xx - cx) ** 2 + (yy - cy) ** 2) / (r * canvas.ppm) ** 2
    blob = np.exp(-d2 * 1.2) * n.glare * 255.0 * (canvas.gloss[y0:y1, x0:x1].astype(np.float32) / 255.0)
    roi = canvas.image[y0:y1, x0:x1].astype(np.float32)
    # Reflected light is the lamp's colour (white), so it washes the piece's colour out.
    roi = roi + blob[..., None] * (1.0 - roi / 300.0)
    canvas.image[y0:y1, x0:x1] = np.clip(roi, 0, 255).astype(np.uint8)

