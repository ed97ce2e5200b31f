"""Drawing in table millimetres: a raster of the table top, and sprites placed on it.

The scene is painted flat, in the table frame, at a few pixels per millimetre; the camera
then sees it through one remap (see `scene.py`). Pieces are sprites: a colour image, an
alpha mask and a height map, drawn once upright and placed at any position and angle. The
height map gives each piece its relief (lit by the scene's lamp at placement, so the light
comes from the same side whatever the piece's rotation) and its cast shadow.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

SHIFT = 4  # OpenCV drawing with 4 fractional bits: sub-pixel placement of every outline
ONE = 1 << SHIFT


@dataclass(frozen=True)
class Light:
    """The lamp: where it shines from (azimuth in the table frame, elevation) and how shadows look."""

    azimuth_deg: float = 225.0  # direction the light comes FROM, 0 = from +x, 90 = from +y (near side)
    elevation_deg: float = 70.0
    shadow_strength: float = 0.45  # fraction of light a piece's shadow takes away
    shadow_softness_mm: float = 2.0

    @property
    def direction(self) -> np.ndarray:
        """Unit vector towards the lamp (x, y, up)."""
        a, e = math.radians(self.azimuth_deg), math.radians(self.elevation_deg)
        return np.array([math.cos(a) * math.cos(e), math.sin(a) * math.cos(e), math.sin(e)])

    def shadow_offset_mm(self, height_mm: float) -> tuple[float, float]:
        d = self.direction
        k = height_mm / max(d[2], 0.2)
        return -d[0] * k, -d[1] * k


@dataclass(frozen=True, eq=False)
class Sprite:
    """A piece drawn upright, centred on its array centre, at `ppm` pixels per mm."""

    bgr: np.ndarray  # float32 (h, w, 3), 0..255
    alpha: np.ndarray  # float32 (h, w), 0..1
    relief: np.ndarray  # float32 (h, w), height above the table in mm
    ppm: float
    height_mm: float  # for the cast shadow
    gloss: float = 0.0  # 0 matte .. 1 glass: strength of specular highlights and lamp glare


class Canvas:
    """The table top as a raster; mutable while a scene is painted."""

    def __init__(self, image: np.ndarray, origin_mm: tuple[float, float], ppm: float) -> None:
        self.image = image  # uint8 BGR
        self.origin_mm = origin_mm  # table mm of pixel (0, 0)'s centre
        self.ppm = ppm
        self.gloss = np.zeros(image.shape[:2], np.uint8)
        self.covered = np.zeros(image.shape[:2], np.uint8)  # 255 where a hand hides the table

    def copy(self) -> "Canvas":
        c = Canvas(self.image.copy(), self.origin_mm, self.ppm)
        c.gloss = self.gloss.copy()
        c.covered = self.covered.copy()
        return c

    def to_px(self, points_mm) -> np.ndarray:
        p = np.asarray(points_mm, dtype=np.float64)
        return (p - np.asarray(self.origin_mm)) * self.ppm

    def place(self, sprite: Sprite, centre_mm, angle_deg: float, light: Light,
              lift_mm: float = 0.0, scale: float = 1.0) -> None:
        """Paint a sprite turned clockwise by angle_deg (seen from above), with relief and shadow.

        `lift_mm` raises the whole sprite (a hand above the board): its shadow falls further.
        """
        s = scale * self.ppm / sprite.ppm
        h, w = sprite.alpha.shape
        a = math.radians(angle_deg)
        # sprite pixel -> canvas pixel: scale, rotate clockwise in the y-down image, translate.
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]]) * s
        cx, cy = self.to_px(centre_mm)
        offset = np.array([cx, cy]) - rot @ np.array([(w - 1) / 2, (h - 1) / 2])
        m = np.hstack([rot, offset[:, None]])
        corners = (rot @ np.array([[0, w, w, 0], [0, 0, h, h]])).T + offset
        shadow_dx, shadow_dy = light.shadow_offset_mm(sprite.height_mm + lift_mm)
        blur_px = max(0.6, (light.shadow_softness_mm + 0.15 * (sprite.height_mm + lift_mm)) * self.ppm)
        pad = 3 * blur_px + 2
        sx, sy = shadow_dx * self.ppm, shadow_dy * self.ppm
        x0 = int(math.floor(min(corners[:, 0].min(), corners[:, 0].min() + sx) - pad))
        y0 = int(math.floor(min(corners[:, 1].min(), corners[:, 1].min() + sy) - pad))
        x1 = int(math.ceil(max(corners[:, 0].max(), corners[:, 0].max() + sx) + pad))
        y1 = int(math.ceil(max(corners[:, 1].max(), corners[:, 1].max() + sy) + pad))
        H, W = self.image.shape[:2]
        rx0, ry0, rx1, ry1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
        if rx0 >= rx1 or ry0 >= ry1:
            return
        size = (rx1 - rx0, ry1 - ry0)
        m_roi = m.copy()
        m_roi[:, 2] -= (rx0, ry0)
        warp = dict(dsize=size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        alpha = cv2.warpAffine(sprite.alpha, m_roi, **warp)
        bgr = cv2.warpAffine(sprite.bgr, m_roi, **warp)
        relief = cv2.warpAffine(sprite.relief, m_roi, **warp)
        roi = self.image[ry0:ry1, rx0:rx1].astype(np.float32)

        # Cast shadow: the piece's outline moved away from the lamp, softened with height.
        m_shadow = m_roi.copy()
        m_shadow[:, 2] += (sx, sy)
        shadow = cv2.warpAffine(sprite.alpha, m_shadow, **warp)
        shadow = _soft(shadow, blur_px)
        roi *= (1.0 - light.shadow_strength * shadow)[..., None]

        shade = _shading(relief, light, self.ppm, sprite.gloss)
        lit = bgr * shade[0][..., None] + shade[1][..., None]
        a3 = alpha[..., None]
        roi = roi * (1 - a3) + lit * a3
        self.image[ry0:ry1, rx0:rx1] = np.clip(roi, 0, 255).astype(np.uint8)
        if sprite.gloss > 0:
            g = self.gloss[ry0:ry1, rx0:rx1]
            np.maximum(g, (alpha * 255 * sprite.gloss).astype(np.uint8), out=g)

    def cover(self, sprite: Sprite, centre_mm, angle_deg: float, scale: float = 1.0) -> None:
        """Mark where an opaque thing above the table (a hand) hides what lies below."""
        s = scale * self.ppm / sprite.ppm
        h, w = sprite.alpha.shape
        a = math.radians(angle_deg)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]]) * s
        offset = np.array(self.to_px(centre_mm)) - rot @ np.array([(w - 1) / 2, (h - 1) / 2])
        corners = (rot @ np.array([[0, w, w, 0], [0, 0, h, h]])).T + offset
        H, W = self.covered.shape
        x0, y0 = max(int(corners[:, 0].min()) - 1, 0), max(int(corners[:, 1].min()) - 1, 0)
        x1, y1 = min(int(corners[:, 0].max()) + 2, W), min(int(corners[:, 1].max()) + 2, H)
        if x0 >= x1 or y0 >= y1:
            return
        offset = offset - (x0, y0)  # warp only the sprite's bounding box, not the whole table
        mask = cv2.warpAffine((sprite.alpha > 0.5).astype(np.uint8) * 255, np.hstack([rot, offset[:, None]]),
                              (x1 - x0, y1 - y0), flags=cv2.INTER_NEAREST)
        roi = self.covered[y0:y1, x0:x1]
        np.maximum(roi, mask, out=roi)


def _soft(mask: np.ndarray, sigma_px: float) -> np.ndarray:
    """Gaussian blur; a wide one is done at reduced size (a hand's shadow is 30+ px soft)."""
    f = int(sigma_px // 4)
    if f < 2:
        return cv2.GaussianBlur(mask, (0, 0), sigma_px)
    h, w = mask.shape
    small = cv2.resize(mask, (max(1, w // f), max(1, h // f)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), sigma_px / f)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def _shading(relief: np.ndarray, light: Light, ppm: float, gloss: float) -> tuple[np.ndarray, np.ndarray]:
    """Per-pixel gain and additive highlight from the relief's slope under the lamp."""
    gx = cv2.Sobel(relief, cv2.CV_32F, 1, 0, ksize=3) * (ppm / 8.0)  # mm of height per mm
    gy = cv2.Sobel(relief, cv2.CV_32F, 0, 1, ksize=3) * (ppm / 8.0)
    norm = np.sqrt(gx * gx + gy * gy + 1.0)
    nx, ny, nz = -gx / norm, -gy / norm, 1.0 / norm
    d = light.direction
    lambert = np.clip(nx * d[0] + ny * d[1] + nz * d[2], 0, 1)
    flat = d[2]  # a flat top keeps its printed colours
    gain = 0.35 + 0.65 * lambert / max(flat, 1e-3)
    if gloss <= 0:
        return gain, np.zeros_like(gain)
    # Blinn highlight for a camera straight above.
    hv = d + np.array([0.0, 0.0, 1.0])
    hv /= np.linalg.norm(hv)
    spec = np.clip(nx * hv[0] + ny * hv[1] + nz * hv[2], 0, 1) ** 60
    # A flat glossy top would light up everywhere; only curved parts carry a sharp highlight.
    curved = np.clip((1.0 - nz) * 25.0, 0, 1)
    return gain, (255.0 * gloss * spec * curved).astype(np.float32)


class Raster:
    """A sprite being drawn: millimetre coordinates with the origin at the sprite's centre."""

    def __init__(self, width_mm: float, height_mm: float, ppm: float, margin_mm: float = 1.0) -> None:
        self.ppm = ppm
        self.w = int(math.ceil((width_mm + 2 * margin_mm) * ppm)) | 1
        self.h = int(math.ceil((height_mm + 2 * margin_mm) * ppm)) | 1
        self.bgr = np.zeros((self.h, self.w, 3), np.uint8)
        self.alpha = np.zeros((self.h, self.w), np.uint8)

    def px(self, points_mm) -> np.ndarray:
        p = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
        return p * self.ppm + ((self.w - 1) / 2, (self.h - 1) / 2)

    def _fixed(self, points_mm) -> np.ndarray:
        return np.round(self.px(points_mm) * ONE).astype(np.int32)

    def polygon(self, points_mm, colour, shape: bool = True) -> None:
        pts = self._fixed(points_mm)
        cv2.fillPoly(self.bgr, [pts], _bgr(colour), cv2.LINE_AA, SHIFT)
        if shape:
            cv2.fillPoly(self.alpha, [pts], 255, cv2.LINE_AA, SHIFT)

    def rounded_rect(self, w_mm: float, h_mm: float, radius_mm: float, colour, shape: bool = True,
                     centre_mm=(0.0, 0.0)) -> None:
        pts = []
        cx0, cy0 = centre_mm
        for cx, cy, a0 in ((w_mm / 2 - radius_mm, -h_mm / 2 + radius_mm, -90), (w_mm / 2 - radius_mm, h_mm / 2 - radius_mm, 0),
                           (-w_mm / 2 + radius_mm, h_mm / 2 - radius_mm, 90), (-w_mm / 2 + radius_mm, -h_mm / 2 + radius_mm, 180)):
            for t in np.linspace(a0, a0 + 90, 7):
                pts.append((cx0 + cx + radius_mm * math.cos(math.radians(t)),
                            cy0 + cy + radius_mm * math.sin(math.radians(t))))
        self.polygon(pts, colour, shape)

    def circle(self, centre_mm, radius_mm: float, colour, width_mm: float | None = None, shape: bool = True) -> None:
        c = tuple(int(v) for v in self._fixed(centre_mm)[0])
        r = int(round(radius_mm * self.ppm * ONE))
        if width_mm is None:
            cv2.circle(self.bgr, c, r, _bgr(colour), -1, cv2.LINE_AA, SHIFT)
            if shape:
                cv2.circle(self.alpha, c, r, 255, -1, cv2.LINE_AA, SHIFT)
        else:
            t = max(1, int(round(width_mm * self.ppm)))
            cv2.circle(self.bgr, c, r, _bgr(colour), t, cv2.LINE_AA, SHIFT)

    def line(self, a_mm, b_mm, colour, width_mm: float) -> None:
        p = self._fixed([a_mm, b_mm])
        t = max(1, int(round(width_mm * self.ppm)))
        cv2.line(self.bgr, tuple(int(v) for v in p[0]), tuple(int(v) for v in p[1]), _bgr(colour), t,
                 cv2.LINE_AA, SHIFT)

    def capsule(self, a_mm, b_mm, width_mm: float, colour, shape: bool = True) -> None:
        """A bar with round ends, drawn as a polygon (thick cv2 lines lose sub-pixel accuracy)."""
        a, b = np.asarray(a_mm, float), np.asarray(b_mm, float)
        d = b - a
        n = np.array([-d[1], d[0]]) / max(np.linalg.norm(d), 1e-9) * width_mm / 2
        ang = math.atan2(n[1], n[0])
        arc = [(math.cos(ang + t), math.sin(ang + t)) for t in np.linspace(0, math.pi, 12)]
        pts = [a + np.array(c) * width_mm / 2 for c in arc] + [b - np.array(c) * width_mm / 2 for c in arc]
        self.polygon(pts, colour, shape)

    def text(self, text: str, centre_mm, size_mm: float, colour, bold: bool = True) -> None:
        """Text in a real TrueType font, centred (Pillow renders; OpenCV's Hershey fonts look drawn)."""
        font = _font(int(round(size_mm * self.ppm * 1.35)), bold)
        img = Image.fromarray(np.zeros((self.h, self.w), np.uint8))
        draw = ImageDraw.Draw(img)
        cx, cy = self.px(centre_mm)[0]
        draw.text((cx, cy), text, fill=255, font=font, anchor="mm")
        mask = np.asarray(img, dtype=np.float32)[..., None] / 255.0
        self.bgr = (self.bgr * (1 - mask) + np.array(_bgr(colour), np.float32) * mask).astype(np.uint8)

    def paint(self, layer: np.ndarray, mask: np.ndarray | None = None) -> None:
        """Blend a full-size BGR layer where `mask` (0..1 float) says (default: the whole sprite)."""
        m = (self.alpha.astype(np.float32) / 255.0) if mask is None else mask
        m = m[..., None]
        self.bgr = (self.bgr * (1 - m) + layer * m).astype(np.uint8)

    def sprite(self, height_mm: float, bevel_mm: float = 0.6, dome: float = 0.0, gloss: float = 0.0,
               relief: np.ndarray | None = None) -> Sprite:
        """Freeze into a Sprite. The relief is a bevel at the outline, plus a dome of `dome` mm if asked."""
        alpha = self.alpha.astype(np.float32) / 255.0
        if relief is None:
            inside = (self.alpha > 127).astype(np.uint8)
            dist = cv2.distanceTransform(inside, cv2.DIST_L2, 3) / self.ppm
            relief = height_mm * np.clip(dist / max(bevel_mm, 1e-3), 0, 1) ** 0.5
            if dome > 0:
                r = max(float(dist.max()), 1e-3)
                relief = relief + dome * np.sqrt(np.clip(1 - (1 - dist / r) ** 2, 0, 1))
        relief = cv2.GaussianBlur(relief.astype(np.float32), (0, 0), 0.6)
        return Sprite(self.bgr.astype(np.float32), alpha, relief.astype(np.float32), self.ppm, height_mm, gloss)


@lru_cache(maxsize=32)
def _font(size_px: int, bold: bool) -> ImageFont.FreeTypeFont:
    # DejaVu (Raspberry Pi OS and Debian ship it) when present; else the TrueType font inside Pillow.
    for path in ("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf" if bold else
                 "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",):
        try:
            return ImageFont.truetype(path, max(size_px, 4))
        except OSError:
            pass
    return ImageFont.load_default(size=max(size_px, 4))


def _bgr(colour) -> tuple[float, float, float]:
    """'#rrggbb' or a BGR tuple -> BGR tuple."""
    if isinstance(colour, str):
        c = colour.lstrip("#")
        return (int(c[4:6], 16), int(c[2:4], 16), int(c[0:2], 16))
    return tuple(float(v) for v in colour)


def bgr(colour) -> tuple[float, float, float]:
    return _bgr(colour)


def fractal_noise(rng: np.random.Generator, shape: tuple[int, int], scale_px: float, octaves: int = 4,
                  aspect: float = 1.0) -> np.ndarray:
    """Smooth random field in about [-1, 1]: upsampled random grids, halving in size per octave.

    `aspect` > 1 stretches features along x (wood grain).
    """
    h, w = shape
    out = np.zeros(shape, np.float32)
    amp, total = 1.0, 0.0
    s = scale_px
    for _ in range(octaves):
        gw = max(2, int(w / (s * aspect)) + 2)
        gh = max(2, int(h / s) + 2)
        grid = rng.standard_normal((gh, gw)).astype(np.float32)
        out += amp * cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC)
        total += amp
        amp *= 0.5
        s /= 2
        if s < 1:
            break
    return out / total
