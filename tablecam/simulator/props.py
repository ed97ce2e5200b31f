"""Things that are not game pieces: objects left beside the play area, and a player's hand."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from tablecam.calibration.geometry import TableGeometry

from .canvas import Raster, Sprite
from .layout import QUIET_ZONE_MM, rotate

SKIN = ((150, 178, 222), (122, 152, 200), (96, 122, 170), (62, 82, 120))  # BGR, light to dark
SLEEVES = ((60, 40, 30), (40, 40, 140), (110, 110, 110), (35, 35, 35), (150, 120, 60), (70, 110, 60))
PROP_KINDS = ("mug", "phone", "pencil", "pad")
PROP_SIZE_MM = {"mug": 100.0, "phone": 150.0, "pencil": 180.0, "pad": 150.0}


@dataclass(frozen=True)
class Placement:
    kind: str
    centre_mm: tuple[float, float]
    angle_deg: float
    variant: int


def place_props(rng: np.random.Generator, count: int, geometry: TableGeometry) -> list[Placement]:
    """Objects in the band just outside the markers, clear of the markers themselves."""
    out: list[Placement] = []
    sides = rng.permutation(4)
    for i in range(count):
        kind = PROP_KINDS[int(rng.integers(len(PROP_KINDS)))]
        size = PROP_SIZE_MM[kind]
        side = int(sides[i % 4])
        gap = geometry.marker_mm / 2 + QUIET_ZONE_MM + 12
        if side in (0, 2):  # far or near side: run along x
            along = float(rng.uniform(size * 0.6 + 60, geometry.width_mm - size * 0.6 - 60))
            across = -gap - size * 0.3 if side == 0 else geometry.height_mm + gap + size * 0.3
            centre = (along, across)
            angle = float(rng.uniform(-20, 20))
        else:
            along = float(rng.uniform(size * 0.6 + 60, max(size * 0.6 + 61, geometry.height_mm - size * 0.6 - 60)))
            across = -gap - size * 0.3 if side == 3 else geometry.width_mm + gap + size * 0.3
            centre = (across, along)
            angle = float(rng.uniform(70, 110))
        out.append(Placement(kind, centre, angle, int(rng.integers(1000))))
    return out


@lru_cache(maxsize=32)
def prop_sprite(kind: str, variant: int, ppm: float) -> Sprite:
    rng = np.random.default_rng(variant)
    if kind == "mug":
        body = [(235, 235, 235), (60, 60, 170), (150, 90, 40), (40, 120, 60)][variant % 4]
        r = Raster(110, 90, ppm)
        r.capsule((38, -12), (38, 12), 14, body)
        r.capsule((38, -12), (38, 12), 6, (0, 0, 0), shape=False)
        r.circle((0, 0), 42, body)
        r.circle((0, 0), 37, tuple(0.8 * c for c in body), shape=False)
        r.circle((0, 0), 35, (20, 40, 60), shape=False)  # coffee
        r.circle((-10, -10), 6, (80, 110, 140), shape=False)
        return r.sprite(95.0, bevel_mm=4, gloss=0.5)
    if kind == "phone":
        r = Raster(72, 150, ppm)
        r.rounded_rect(72, 150, 9, (25, 25, 28))
        r.rounded_rect(66, 142, 6, (45, 40, 38), shape=False)
        r.circle((-22, -60), 6, (15, 15, 15), shape=False)
        return r.sprite(8.0, bevel_mm=3, gloss=0.7)
    if kind == "pencil":
        colour = [(20, 190, 240), (40, 40, 180), (50, 120, 40)][variant % 3]
        r = Raster(7, 178, ppm)
        r.polygon([(-3.5, -60), (3.5, -60), (3.5, 80), (-3.5, 80)], colour)
        r.polygon([(-1.2, -60), (1.2, -60), (1.2, 80), (-1.2, 80)], tuple(0.8 * c for c in colour), shape=False)
        r.polygon([(-3.5, -60), (3.5, -60), (0.6, -82), (-0.6, -82)], (120, 170, 210))  # sharpened wood
        r.polygon([(-1, -75), (1, -75), (0.3, -86), (-0.3, -86)], (50, 50, 50))  # graphite
        r.polygon([(-3.5, 80), (3.5, 80), (3.5, 86), (-3.5, 86)], (170, 170, 170))
        r.capsule((0, 86), (0, 88), 7, (140, 130, 220))
        return r.sprite(7.0, bevel_mm=2.5, gloss=0.3)
    r = Raster(100, 150, ppm)  # score pad
    r.polygon([(-50, -75), (50, -75), (50, 75), (-50, 75)], (238, 240, 243))
    for y in np.arange(-55, 75, 8):
        r.line((-46, y), (46, y), (225, 200, 170), 0.3)
    r.line((-30, -75), (-30, 75), (170, 170, 235), 0.4)
    for k, y in enumerate(np.arange(-51, 40, 16)):
        score = str(int(rng.integers(0, 40)))
        r.text(score, (-12 + 25 * (k % 2), y), 5, (110, 60, 30), bold=False)
    return r.sprite(2.0, bevel_mm=0.5)


# --- the hand ---------------------------------------------------------------------------------
HAND_LENGTH_MM = 640.0  # fingertips to where the sleeve leaves any view


@dataclass(frozen=True)
class HandPose:
    """A hand whose index fingertip is at `tip_mm`, the arm running back along `arm_deg`.

    `arm_deg` is the direction from the fingertips to the elbow, clockwise from +x.
    """

    tip_mm: tuple[float, float]
    arm_deg: float
    lift_mm: float
    skin: int
    sleeve: int


def hand_sprite(skin: int, sleeve: int, ppm: float) -> tuple[Sprite, float]:
    """The hand pointing along +x with the index fingertip at x=0; returns (sprite, x of its centre)."""
    return _hand(skin, sleeve, round(ppm, 3))


@lru_cache(maxsize=8)
def _hand(skin: int, sleeve: int, ppm: float) -> tuple[Sprite, float]:
    length, width = HAND_LENGTH_MM, 150.0
    centre_x = -length / 2 + 6
    r = Raster(length, width, ppm, margin_mm=2)
    tone = SKIN[skin % len(SKIN)]
    sl = SLEEVES[sleeve % len(SLEEVES)]

    def at(x, y):  # hand coordinates (tip at origin) -> raster coordinates (centre at origin)
        return (x - centre_x, y)

    r.capsule(at(-length + 4, 0), at(-250, 6), 92, sl)  # sleeve
    r.capsule(at(-260, 6), at(-160, 4), 62, tone)  # forearm and wrist
    palm = [at(x, y) for x, y in ((-170, -30), (-95, -42), (-62, -38), (-55, 30), (-85, 46), (-150, 40), (-178, 20))]
    r.polygon(palm, tone)
    fingers = (((-62, -30), (-4, -12), 17.0), ((-60, -12), (0, 0), 17.5), ((-60, 6), (-8, 14), 17.0),
               ((-64, 24), (-24, 34), 15.0))
    for a, b, w in fingers:
        r.capsule(at(*a), at(*b), w, tone)
        nail = np.array(b, float) - 0.45 * w * (np.array(b, float) - np.array(a, float)) / math.dist(a, b)
        r.circle(at(*nail), w * 0.28, tuple(min(255, c * 1.12 + 10) for c in tone), shape=False)
    r.capsule(at(-150, -34), at(-80, -62), 24, tone)  # thumb
    r.capsule(at(-80, -62), at(-48, -64), 20, tone)
    # Drawn from capsules and a polygon the outline has corners; flesh has none.
    soft = cv2.GaussianBlur(r.alpha.astype(np.float32), (0, 0), 3.0 * ppm)
    r.alpha = np.clip((soft - 127.0) * 3.0 + 127.0, 0, 255).astype(np.uint8)
    sprite = r.sprite(28.0, bevel_mm=9.0, dome=6.0, gloss=0.12)
    return sprite, centre_x


def hand_centre(pose: HandPose, centre_x: float) -> tuple[float, float]:
    """Where the hand sprite's centre goes so that the fingertip lands on pose.tip_mm."""
    # The sprite points along +x; turned by (arm_deg + 180) it points from the elbow to the tip.
    dx, dy = rotate((centre_x, 0.0), pose.arm_deg + 180.0)
    return pose.tip_mm[0] + dx, pose.tip_mm[1] + dy


def random_hand(rng: np.random.Generator, tip_mm, geometry: TableGeometry) -> HandPose:
    """A hand reaching for `tip_mm` from the nearest edge of the table, players' side most often."""
    x, y = tip_mm
    edges = {90.0: geometry.height_mm - y, 0.0: geometry.width_mm - x, 180.0: x, 270.0: y}
    weights = {90.0: 0.5, 0.0: 0.8, 180.0: 0.8, 270.0: 1.2}
    arm = min(edges, key=lambda a: edges[a] * weights[a])
    return HandPose((float(x), float(y)), arm + float(rng.uniform(-35, 35)), float(rng.uniform(25, 60)),
                    int(rng.integers(len(SKIN))), int(rng.integers(len(SLEEVES))))
