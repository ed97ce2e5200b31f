"""Dice drawn with OpenCV for tests: any value, size, turn and colours, on a plain or noisy ground."""

from __future__ import annotations

import math

import cv2
import numpy as np

PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
        4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
        6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}


def draw_die(image: np.ndarray, value: int, centre: tuple[float, float], side: float, angle_deg: float = 0.0,
             face=(235, 235, 235), pip=(25, 25, 25), step: float = 0.27, pip_radius: float = 0.09) -> None:
    """Paints a die's top face (a rounded square) with its pips into `image` (BGR), drawn at 4x
    and shrunk, so the edges are soft as in a photo."""
    k = 4
    pad = int(side)
    cx, cy = centre
    x0, y0 = int(cx - pad), int(cy - pad)
    patch = cv2.resize(image[y0:y0 + 2 * pad, x0:x0 + 2 * pad], None, fx=k, fy=k, interpolation=cv2.INTER_NEAREST)
    c = np.array([(cx - x0) * k, (cy - y0) * k])
    t = math.radians(angle_deg)
    u = np.array([math.cos(t), math.sin(t)]) * side * k
    v = np.array([-math.sin(t), math.cos(t)]) * side * k
    corner = 0.12 * side * k
    inner = [c + (sx * u + sy * v) * (0.5 - 0.12) for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    mask = np.zeros(patch.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.rint(np.array(inner)).astype(np.int32), 255)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (int(2 * corner) | 1, int(2 * corner) | 1))
    patch[cv2.dilate(mask, disc) > 0] = face
    for i, j in PIPS[value]:
        p = c + (i * u + j * v) * step
        cv2.circle(patch, (int(round(p[0])), int(round(p[1]))), int(round(side * k * pip_radius)), pip, -1)
    image[y0:y0 + 2 * pad, x0:x0 + 2 * pad] = cv2.resize(patch, (2 * pad, 2 * pad), interpolation=cv2.INTER_AREA)


def row_of_dice(side: float, angle_deg: float, face, pip, table, noise: float = 4.0, seed: int = 0) -> np.ndarray:
    """Dice 1..6 left to right on one table."""
    img = ground((int(side * 3), int(side * 11)), table, noise=noise, seed=seed)
    for value in range(1, 7):
        draw_die(img, value, (side * (1.5 + 1.6 * (value - 1)), side * 1.5), side, angle_deg, face, pip)
    return img


def ground(shape: tuple[int, int], colour=(120, 110, 100), noise: float = 0.0, seed: int = 0) -> np.ndarray:
    """A table: one colour, plus (optionally) fine noise and a slow light gradient."""
    h, w = shape
    img = np.empty((h, w, 3), np.float64)
    img[:] = colour
    if noise:
        rng = np.random.default_rng(seed)
        img += rng.normal(0, noise, (h, w, 1))
        img *= np.linspace(0.85, 1.1, w)[None, :, None]
    return np.clip(img, 0, 255).astype(np.uint8)
