"""Table tops: wood planks, felt cloth, a plain laminate, painted procedurally at canvas resolution."""

from __future__ import annotations

import numpy as np
import cv2

from .canvas import fractal_noise

TABLE_KINDS = ("wood", "cloth", "plain")

_WOODS = ((0x3d, 0x6b, 0x9c), (0x2a, 0x4a, 0x70), (0x5a, 0x8c, 0xb8), (0x28, 0x38, 0x58))  # BGR oak, teak, pine, walnut
_CLOTHS = ((0x3a, 0x6a, 0x2c), (0x6a, 0x48, 0x26), (0x50, 0x50, 0x52), (0x2a, 0x2a, 0x6e), (0x40, 0x3a, 0x30))
_PLAINS = ((0xd8, 0xdc, 0xdc), (0xb4, 0xbe, 0xc4), (0x9a, 0xa0, 0xa0))


def table_top(kind: str, rng: np.random.Generator, shape: tuple[int, int], ppm: float) -> np.ndarray:
    """A BGR uint8 table surface of `shape` (h, w) at `ppm` pixels per mm."""
    if kind == "wood":
        return _wood(rng, shape, ppm)
    if kind == "cloth":
        return _cloth(rng, shape, ppm)
    if kind == "plain":
        return _plain(rng, shape, ppm)
    raise ValueError(f"unknown table kind {kind!r}")


def _wood(rng: np.random.Generator, shape: tuple[int, int], ppm: float) -> np.ndarray:
    h, w = shape
    base = np.array(_WOODS[rng.integers(len(_WOODS))], np.float32)
    plank_mm = rng.uniform(90, 160)
    rows = np.arange(h, dtype=np.float32) / ppm
    plank = (rows // plank_mm).astype(np.int32)
    n_planks = int(plank.max()) + 1
    tone = 1.0 + 0.09 * rng.standard_normal(n_planks).astype(np.float32)
    phase = rng.uniform(0, 100, n_planks).astype(np.float32)
    # Grain: long streaks along x, bent by a slow warp, different per plank.
    warp = fractal_noise(rng, shape, 60 * ppm, 3, aspect=6.0) * 6.0
    y_mm = (rows[:, None] + phase[plank][:, None] + warp)
    rings = np.sin(y_mm * rng.uniform(0.9, 1.6)) * 0.5 + 0.5
    rings = rings ** 3
    streak = fractal_noise(rng, shape, 3 * ppm, 3, aspect=25.0)
    mottle = fractal_noise(rng, shape, 120 * ppm, 3)
    v = tone[plank][:, None] * (1.0 - 0.16 * rings + 0.07 * streak + 0.06 * mottle)
    img = base[None, None, :] * v[..., None]
    # Dark seams between planks.
    seam = (np.abs(((rows + 0.5 / ppm) % plank_mm) - plank_mm / 2) > plank_mm / 2 - 0.6).astype(np.float32)
    img *= (1.0 - 0.55 * seam)[:, None, None]
    # A clear varnish adds a little cool sheen.
    img += 6.0
    return np.clip(img, 0, 255).astype(np.uint8)


def _cloth(rng: np.random.Generator, shape: tuple[int, int], ppm: float) -> np.ndarray:
    base = np.array(_CLOTHS[rng.integers(len(_CLOTHS))], np.float32)
    fibres = rng.standard_normal(shape).astype(np.float32)
    fibres = cv2.GaussianBlur(fibres, (0, 0), max(0.5, 0.25 * ppm))
    fibres /= max(float(fibres.std()), 1e-6)
    weave_mm = rng.uniform(0.8, 1.4)
    yy, xx = np.indices(shape, dtype=np.float32) / ppm
    weave = np.sin(xx * 2 * np.pi / weave_mm) * np.sin(yy * 2 * np.pi / weave_mm)
    mottle = fractal_noise(rng, shape, 80 * ppm, 3)
    wrinkles = fractal_noise(rng, shape, 150 * ppm, 2, aspect=3.0)
    v = 1.0 + 0.06 * fibres + 0.02 * weave + 0.05 * mottle + 0.06 * wrinkles
    return np.clip(base[None, None, :] * v[..., None], 0, 255).astype(np.uint8)


def _plain(rng: np.random.Generator, shape: tuple[int, int], ppm: float) -> np.ndarray:
    base = np.array(_PLAINS[rng.integers(len(_PLAINS))], np.float32)
    speck = rng.standard_normal(shape).astype(np.float32)
    speck = cv2.GaussianBlur(speck, (0, 0), max(0.5, 0.3 * ppm))
    mottle = fractal_noise(rng, shape, 100 * ppm, 3)
    v = 1.0 + 0.025 * speck / max(float(speck.std()), 1e-6) + 0.025 * mottle
    return np.clip(base[None, None, :] * v[..., None], 0, 255).astype(np.uint8)
