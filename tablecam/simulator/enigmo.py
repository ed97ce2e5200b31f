"""Enigmo on the table: the box with its row of ten shutters, the word card behind them, two dice.

Looks follow games/enigmo.md *(model)*: shutters 25 x 40 mm side by side, closed = the
shutter colour with its number, open = the white card with a capital letter (red for a red
word). The truth carries the shutter row's four corners in table mm, which the real app has
the user mark once. States follow the rules: roll, open what the roll allows, sometimes a
word is proposed and the card changes.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from tablecam.calibration.geometry import TableGeometry
from tablecam.errors import UserError

from .canvas import Canvas, Light, Raster, Sprite
from .layout import check_apart, check_on_table, number, point, rotate

SHUTTER_MM = (25.0, 40.0)
FRAME_MM = 12.0  # box border around the row
DIE_MM = 16.0
SHUTTER_COLOUR = (40, 110, 225)  # BGR orange plastic
BOX_COLOUR = (70, 40, 30)  # BGR dark blue
WORDS = ("AVENTURE", "CHOCOLAT", "MONTAGNE", "PARAPLUIE", "BICYCLETTE", "ORDINATEUR", "ELEPHANT",
         "GIRAFEAU", "TOURNESOL", "CHAMPIGNON", "DINOSAURE", "PAPILLON", "HORLOGERIE", "ESCARGOT")
PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)], 4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
        5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)], 6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}


def row_corners(centre, angle_deg: float) -> list[list[float]]:
    """The shutter row's corners (top-left, top-right, bottom-right, bottom-left) in table mm."""
    w, h = 10 * SHUTTER_MM[0], SHUTTER_MM[1]
    out = []
    for x, y in ((-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)):
        dx, dy = rotate((x, y), angle_deg)
        out.append([centre[0] + dx, centre[1] + dy])
    return out


# --- states -----------------------------------------------------------------------------------
def random_state(rng: np.random.Generator, geometry: TableGeometry) -> dict:
    states = _plausible_states(int(rng.integers(2**31)), geometry)
    return states[int(rng.integers(len(states)))]


def openings(a: int, b: int, shutters: list[bool]) -> list[list[int]]:
    """Shutter numbers (1..10, 10 = "shutter 0") each legal use of a roll would open."""
    closed = lambda n: not shutters[n - 1]  # noqa: E731
    if a == b:
        options = [[a + b]] if a + b <= 9 else []
        options.append([10])
    else:
        options = [[a + b]] if a + b <= 9 else []
        options.append([abs(a - b)])
        if closed(a) and closed(b):
            options.append([a, b])
    return [o for o in options if all(closed(n) for n in o)]


def game_states(seed: int, geometry: TableGeometry, rounds: int = 4) -> list[dict]:
    """A game played by the rules engine (rolls, the shutters they open, proposals), in its rounds.

    A new word card comes with each round; proposals change nothing the camera sees but the
    shutters all opening, then closing on the next card.
    """
    from tablecam.rules.enigmo.game import random_game

    rng = np.random.default_rng(seed)
    box_centre = (float(rng.uniform(330, 470)), float(rng.uniform(150, 200)))
    box_angle = float(rng.uniform(-12, 12))
    word, red = WORDS[int(rng.integers(len(WORDS)))], bool(rng.uniform() < 0.25)
    out: list[dict] = []
    angles: dict = {}
    for state in random_game(seed, rounds=rounds):
        if state.action == "next card":
            word, red = WORDS[int(rng.integers(len(WORDS)))], bool(rng.uniform() < 0.25)
        dice = []
        for value, centre in state.dice:
            angles.setdefault(centre, float(rng.uniform(0, 90)))
            dice.append((value, centre, angles[centre]))
        obs = _observation(box_centre, box_angle, word, red, list(state.shutters), dice)
        if not out or {k: obs[k] for k in ("shutters", "dice")} != {k: out[-1][k] for k in ("shutters", "dice")}:
            out.append(obs)
    return out


def _observation(box_centre, box_angle, word, red, shutters, dice) -> dict:
    return {"game": "enigmo", "shutters": list(shutters),
            "dice": [{"value": v, "center_mm": list(c)} for v, c, _ in dice],
            "shutter_row_mm": row_corners(box_centre, box_angle),
            "scene": {"box_center_mm": list(box_centre), "box_angle_deg": box_angle, "word": word, "red_word": red,
                      "dice_angles_deg": [a for _, _, a in dice]}}


# --- checking ---------------------------------------------------------------------------------
def truth(obs: dict, geometry: TableGeometry) -> tuple[dict, dict, dict]:
    scene = dict(obs.get("scene") or {})
    shutters = obs.get("shutters")
    if not isinstance(shutters, list) or len(shutters) != 10 or not all(isinstance(s, bool) for s in shutters):
        raise UserError("shutters must be a list of 10 true/false values (true = open), left to right.")
    centre = point(scene.get("box_center_mm", [geometry.width_mm / 2, geometry.height_mm / 3]), "box_center_mm")
    angle = number(scene.get("box_angle_deg", 0.0), "box_angle_deg", -180, 180)
    word = str(scene.get("word", "AVENTURE")).upper()
    if not (word.isalpha() and 1 <= len(word) <= 10):
        raise UserError(f"the word behind the shutters must be 1 to 10 letters, not {word!r}.")
    scene.update(box_center_mm=centre, box_angle_deg=angle, word=word, red_word=bool(scene.get("red_word", False)))
    box_w = 10 * SHUTTER_MM[0] + 2 * FRAME_MM
    check_on_table(centre, box_w / 2, geometry, "the shutter box")
    corners = row_corners(centre, angle)
    dice = []
    for i, d in enumerate(obs.get("dice") or []):
        if not isinstance(d, dict):
            raise UserError(f"die {i} must be an object.")
        v = d.get("value")
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 6:
            raise UserError(f"die {i} value must be 1 to 6, not {v!r}.")
        c = point(d.get("center_mm"), f"die {i} center_mm")
        check_on_table(c, DIE_MM * 0.75, geometry, f"die {i}")
        if _inside_box(c, centre, angle, DIE_MM * 0.75):
            raise UserError(f"die {i} at ({c[0]:.0f}, {c[1]:.0f}) mm lies on the shutter box.")
        dice.append({"value": v, "center_mm": c})
    check_apart([d["center_mm"] for d in dice], DIE_MM * 1.42, "dice", "overlap")
    angles = list(scene.get("dice_angles_deg") or [])
    scene["dice_angles_deg"] = [float(a) for a in angles[:len(dice)]] + [0.0] * max(0, len(dice) - len(angles))
    part = {"shutters": list(shutters), "dice": dice, "shutter_row_mm": corners}
    shutter_centres = [[(corners[0][0] * (9.5 - k) + corners[1][0] * (k + 0.5)) / 10 * 0.5
                        + (corners[3][0] * (9.5 - k) + corners[2][0] * (k + 0.5)) / 10 * 0.5,
                        (corners[0][1] * (9.5 - k) + corners[1][1] * (k + 0.5)) / 10 * 0.5
                        + (corners[3][1] * (9.5 - k) + corners[2][1] * (k + 0.5)) / 10 * 0.5] for k in range(10)]
    return part, {"dice": [d["center_mm"] for d in dice], "shutter_row": corners, "shutters": shutter_centres}, scene


def _inside_box(p, centre, angle, margin: float) -> bool:
    x, y = rotate((p[0] - centre[0], p[1] - centre[1]), -angle)
    return abs(x) < 5 * SHUTTER_MM[0] + FRAME_MM + margin and abs(y) < SHUTTER_MM[1] / 2 + FRAME_MM + margin


# --- drawing ----------------------------------------------------------------------------------
def draw(canvas: Canvas, part: dict, scene: dict, light: Light) -> None:
    ppm = round(canvas.ppm, 3)
    key = (tuple(part["shutters"]), scene["word"], scene["red_word"])
    canvas.place(_box_sprite(key, ppm), scene["box_center_mm"], scene["box_angle_deg"], light)
    for d, a in zip(part["dice"], scene["dice_angles_deg"]):
        canvas.place(_die_sprite(d["value"], ppm), d["center_mm"], a, light)


@lru_cache(maxsize=64)
def _box_sprite(key, ppm: float) -> Sprite:
    shutters, word, red = key
    sw, sh = SHUTTER_MM
    w, h = 10 * sw + 2 * FRAME_MM, sh + 2 * FRAME_MM
    r = Raster(w, h, ppm)
    r.rounded_rect(w, h, 5, BOX_COLOUR)
    r.rounded_rect(w - 3, h - 3, 4, tuple(c * 1.25 for c in BOX_COLOUR), shape=False)
    ink = (40, 40, 200) if red else (25, 25, 25)
    letters = word.ljust(10)  # the card prints its word from shutter 1 on
    for k in range(10):
        x0 = -5 * sw + k * sw
        cx = x0 + sw / 2
        if shutters[k]:
            r.polygon([(x0 + 0.5, -sh / 2), (x0 + sw - 0.5, -sh / 2), (x0 + sw - 0.5, sh / 2), (x0 + 0.5, sh / 2)],
                      (236, 240, 242), shape=False)
            # The opened flap folds up against the top of the frame.
            r.polygon([(x0 + 0.5, -sh / 2), (x0 + sw - 0.5, -sh / 2), (x0 + sw - 0.5, -sh / 2 + 4),
                       (x0 + 0.5, -sh / 2 + 4)], tuple(c * 0.7 for c in SHUTTER_COLOUR), shape=False)
            if letters[k] != " ":
                r.text(letters[k], (cx, 3), 15, ink)
        else:
            r.polygon([(x0 + 0.6, -sh / 2), (x0 + sw - 0.6, -sh / 2), (x0 + sw - 0.6, sh / 2), (x0 + 0.6, sh / 2)],
                      SHUTTER_COLOUR, shape=False)
            r.line((x0 + 0.6, -sh / 2 + 1), (x0 + sw - 0.6, -sh / 2 + 1), tuple(min(255, c * 1.3) for c in SHUTTER_COLOUR), 1)
            r.text(str(k + 1), (cx, 0), 11 if k < 9 else 9, (245, 245, 245))
    return r.sprite(18.0, bevel_mm=3.0, gloss=0.45)


@lru_cache(maxsize=8)
def _die_sprite(value: int, ppm: float) -> Sprite:
    r = Raster(DIE_MM, DIE_MM, ppm)
    r.rounded_rect(DIE_MM, DIE_MM, 2.6, (236, 238, 240))
    for px, py in PIPS[value]:
        r.circle((px * 4.3, py * 4.3), 1.55 if value != 1 else 2.3, (25, 25, 25), shape=False)
    return r.sprite(DIE_MM, bevel_mm=2.6, gloss=0.45)


# Varied states for single renders (random_state): wider than one game's play, e.g. face-down
# stacks and any number of players; the sequence (game_states) follows the rules engine.
def _plausible_states(seed: int, geometry: TableGeometry, rounds: int = 4) -> list[dict]:
    rng = np.random.default_rng(seed)
    box_centre = (float(rng.uniform(330, 470)), float(rng.uniform(150, 200)))
    box_angle = float(rng.uniform(-12, 12))
    out = []
    for _ in range(rounds):
        word = WORDS[int(rng.integers(len(WORDS)))]
        red = bool(rng.uniform() < 0.25)
        shutters = [False] * 10
        dice: list[tuple[int, tuple[float, float], float]] = []
        out.append(_observation(box_centre, box_angle, word, red, shutters, dice))
        for _turn in range(int(rng.integers(3, 8))):
            values = [int(rng.integers(1, 7)) for _ in range(2)]
            dice = []
            for v in values:  # thrown dice land in the lower part of the table, apart
                for _try in range(50):
                    c = (float(rng.uniform(150, 650)), float(rng.uniform(300, 420)))
                    if all(math.dist(c, d[1]) > DIE_MM * 1.8 for d in dice):
                        break
                dice.append((v, c, float(rng.uniform(0, 90))))
            out.append(_observation(box_centre, box_angle, word, red, shutters, dice))
            options = openings(values[0], values[1], shutters)
            if options:
                for n in options[int(rng.integers(len(options)))]:
                    shutters[n - 1] = True
                out.append(_observation(box_centre, box_angle, word, red, shutters, dice))
        out.append(_observation(box_centre, box_angle, word, red, [True] * 10, dice))  # a word is proposed
    return out
