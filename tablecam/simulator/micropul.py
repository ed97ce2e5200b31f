"""micropul on the table: tiles (sheet artwork or a vector redrawing), stones, random states.

Board placement: the rules engine's cells (col, row) sit edge to edge on a grid whose cell
(0, 0) is at `scene.board_origin_mm`, turned by `scene.board_angle_deg` (within +-20 degrees,
so each tile's quadrant names still follow the table axes).
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

import cv2
import numpy as np

from tablecam.calibration.geometry import TableGeometry
from tablecam.errors import UserError
from tablecam.rules.micropul.tiles import Face, face_from_observation, identify

from .canvas import Canvas, Light, Raster, Sprite
from .layout import check_on_table, check_apart, number, point, rotate

TILE_MM = 30.0
STONE_MM = 11.0
STONE_COLOURS = {"red": "#b81e26", "blue": "#1f48b0", "green": "#2a8c3a", "yellow": "#e8c020"}
MAX_BOARD_ANGLE = 20.0
# Where a micropul's centre sits in its quadrant: 0.217 of a side from the two outer edges.
MICROPUL_OFFSET = 0.5 - 0.217
QUADRANT_SIGNS = {"ul": (-1, -1), "ur": (1, -1), "ll": (-1, 1), "lr": (1, 1)}
ART = ("sheet", "vector")


# --- states -----------------------------------------------------------------------------------
def cell_centre(cell, scene: dict) -> tuple[float, float]:
    s = scene["tile_mm"]
    dx, dy = rotate((cell[0] * s, cell[1] * s), scene["board_angle_deg"])
    ox, oy = scene["board_origin_mm"]
    return ox + dx, oy + dy


def stone_centre(cell, quadrant: str, scene: dict) -> tuple[float, float]:
    s = scene["tile_mm"]
    sx, sy = QUADRANT_SIGNS[quadrant]
    cx, cy = cell_centre(cell, scene)
    dx, dy = rotate((sx * MICROPUL_OFFSET * s, sy * MICROPUL_OFFSET * s), scene["board_angle_deg"])
    return cx + dx, cy + dy


def observation_of(state, scene: dict) -> dict:
    """The Observation of a rules-engine GameState laid out as `scene` says."""
    tiles = []
    for cell in sorted(state.board.cells, key=lambda c: (c[1], c[0])):
        placed = state.board.cells[cell]
        tiles.append({"center_mm": list(cell_centre(cell, scene)), "rotation": placed.rotation,
                      **placed.face.as_dict(), "face_down": False, "index": placed.tile_index})
    stones = [{"center_mm": list(stone_centre(s.cell, s.quadrant, scene)), "colour": s.colour}
              for s in state.stones]
    return {"game": "micropul", "tile_mm": scene["tile_mm"], "tiles": tiles, "stones": stones,
            "scene": dict(scene)}


def random_scene(rng: np.random.Generator, cells, geometry: TableGeometry, tile_mm: float = TILE_MM) -> dict:
    """A board angle and origin that keep every one of `cells` inside the play area."""
    cells = np.array(list(cells), dtype=np.float64)
    art = ART[int(rng.integers(2))]
    for attempt in range(40):
        angle = float(rng.uniform(-MAX_BOARD_ANGLE, MAX_BOARD_ANGLE)) * (1 - attempt / 40)
        pts = np.array([rotate((c * tile_mm, r * tile_mm), angle) for c, r in cells])
        reach = tile_mm * 0.75  # half a diagonal
        lo = pts.min(axis=0) - reach
        hi = pts.max(axis=0) + reach
        span_x = (geometry.marker_mm + 10, geometry.width_mm - geometry.marker_mm - 10)
        span_y = (geometry.marker_mm + 10, geometry.height_mm - geometry.marker_mm - 10)
        free_x = (span_x[0] - lo[0], span_x[1] - hi[0])
        free_y = (span_y[0] - lo[1], span_y[1] - hi[1])
        if free_x[0] <= free_x[1] and free_y[0] <= free_y[1]:
            origin = (float(rng.uniform(*free_x)), float(rng.uniform(*free_y)))
            return {"board_angle_deg": angle, "board_origin_mm": origin, "tile_mm": tile_mm, "tile_art": art}
    raise UserError("this micropul board is too large for the play area between the markers.")


def visible_states(seed: int) -> list:
    """The rules engine's random game, keeping only states the camera can tell apart."""
    from tablecam.rules.micropul.game import random_game

    states = random_game(seed)
    out = [states[0]]
    for s in states[1:]:
        if s.board.cells != out[-1].board.cells or s.stones != out[-1].stones:
            out.append(s)
    return out


def random_state(rng: np.random.Generator, geometry: TableGeometry) -> dict:
    states = visible_states(int(rng.integers(2**31)))
    state = states[int(rng.integers(len(states)))]
    scene = random_scene(rng, states[-1].board.cells, geometry)
    return observation_of(state, scene)


def game_states(seed: int, geometry: TableGeometry, illegal_attempt: bool = True) -> list[dict]:
    """Every visible state of one random game, on one board layout (the sequence mode).

    With `illegal_attempt`, a player once lays a tile where it clashes and takes it back, as
    real players do now and then: the demo then shows the companion's warning too.
    """
    states: list = visible_states(seed)
    if illegal_attempt:
        states = _with_illegal_attempt(states, seed)
    every_cell = {cell for s in states for cell in s.board.cells}  # the illegal tile's cell too
    scene = random_scene(np.random.default_rng(seed), every_cell, geometry)
    return [observation_of(s, scene) for s in states]


def _with_illegal_attempt(states: list, seed: int) -> list:
    """The states with one clashing tile laid (from the mover's hand) and then taken back."""
    from types import SimpleNamespace

    from tablecam.rules.micropul.board import Placed
    from tablecam.rules.micropul.tiles import ROTATIONS, all_tiles

    rng = np.random.default_rng([seed, 11])
    start = max(2, len(states) // 4 + int(rng.integers(0, 3)))
    for k in range(start, len(states) - 1):
        state = states[k]
        hand = state.players[state.to_move].hand
        for index in hand:
            for cell in state.board.open_cells():
                for rot in ROTATIONS:
                    face = all_tiles()[index].face.rotated(rot)
                    if (state.board.check(cell, face).reason or "").startswith("colour clash"):
                        wrong = SimpleNamespace(board=state.board.with_tile(cell, Placed(face, index, rot)),
                                                stones=state.stones)
                        return states[:k + 1] + [wrong, state] + states[k + 1:]
    return states


# --- checking an Observation and making its truth ------------------------------------------------
def truth(obs: dict, geometry: TableGeometry) -> tuple[dict, list[list[float]], dict]:
    """(the Observation part a perfect detector prints, pixel points to project, scene)."""
    scene = _scene(obs)
    tile_mm = number(obs.get("tile_mm", scene["tile_mm"]), "tile_mm", 5, 200)
    scene["tile_mm"] = tile_mm
    tiles_in = obs.get("tiles", [])
    if not isinstance(tiles_in, list):
        raise UserError("tiles must be a list.")
    tiles, centres = [], []
    for i, t in enumerate(tiles_in):
        if not isinstance(t, dict):
            raise UserError(f"tile {i} must be an object.")
        c = point(t.get("center_mm"), f"tile {i} center_mm")
        check_on_table(c, tile_mm * 0.75, geometry, f"tile {i}")
        face_down = bool(t.get("face_down", False))
        rotation = t.get("rotation", 0)
        if rotation not in (0, 90, 180, 270):
            raise UserError(f"tile {i} rotation must be 0, 90, 180 or 270, not {rotation!r}.")
        if face_down:
            entry = {"center_mm": c, "rotation": rotation, "quadrants": None, "big": None, "catalyst": None,
                     "face_down": True, "index": None}
        else:
            try:
                face = face_from_observation(t)
            except ValueError as exc:
                raise UserError(f"tile {i}: {exc}.") from None
            if face is None:
                raise UserError(f"tile {i} needs its quadrants (or big and catalyst) to be drawn.")
            found = identify(face)
            indices = {idx for idx, _ in found}
            entry = {"center_mm": c, "rotation": found[0][1] if found else rotation, **face.as_dict(),
                     "face_down": False, "index": found[0][0] if len(indices) == 1 else None}
        tiles.append(entry)
        centres.append(c)
    check_apart(centres, tile_mm * 0.9, "tiles", "overlap")
    stones = []
    for i, s in enumerate(obs.get("stones", []) or []):
        c = point(s.get("center_mm") if isinstance(s, dict) else None, f"stone {i} center_mm")
        colour = s.get("colour")
        if colour not in STONE_COLOURS:
            raise UserError(f"stone {i} colour must be one of {', '.join(STONE_COLOURS)}, not {colour!r}.")
        check_on_table(c, STONE_MM / 2, geometry, f"stone {i}")
        stones.append({"center_mm": c, "colour": colour})
    check_apart([s["center_mm"] for s in stones], STONE_MM * 0.9, "stones", "overlap")
    part = {"tile_mm": tile_mm, "tiles": tiles, "stones": stones}
    return part, {"tiles": [t["center_mm"] for t in tiles], "stones": [s["center_mm"] for s in stones]}, scene


def _scene(obs: dict) -> dict:
    scene = dict(obs.get("scene") or {})
    scene.setdefault("tile_mm", obs.get("tile_mm", TILE_MM))
    scene.setdefault("board_angle_deg", 0.0)
    scene.setdefault("tile_art", "sheet")
    if scene["tile_art"] not in ART:
        raise UserError(f"tile_art must be sheet or vector, not {scene['tile_art']!r}.")
    scene["board_angle_deg"] = number(scene["board_angle_deg"], "board_angle_deg", -45, 45)
    return scene


# --- drawing ----------------------------------------------------------------------------------
def draw(canvas: Canvas, part: dict, scene: dict, light: Light) -> None:
    s = part["tile_mm"]
    angle = scene["board_angle_deg"]
    for t in part["tiles"]:
        if t["face_down"]:
            sprite = _back_sprite(s, canvas.ppm)
            canvas.place(sprite, t["center_mm"], angle + t["rotation"], light)
            continue
        face = face_from_observation(t)
        found = identify(face)
        if scene["tile_art"] == "sheet" and found:
            index, rot = found[0]
            canvas.place(_sheet_sprite(index, s, canvas.ppm), t["center_mm"], angle + rot, light)
        else:
            canvas.place(_vector_sprite(face, s, canvas.ppm), t["center_mm"], angle, light)
    for st in part["stones"]:
        canvas.place(_stone_sprite(st["colour"], canvas.ppm), st["center_mm"], 0.0, light)


TILE_THICKNESS_MM = 2.0
PAPER = (236, 240, 242)  # BGR: printed paper is a little warm, never pure white


def _tile_base(s: float, ppm: float) -> Raster:
    r = Raster(s, s, ppm, margin_mm=1.0)
    h = s / 2
    cut = 0.6  # rounded corners from the cutter
    pts = [(-h + cut, -h), (h - cut, -h), (h, -h + cut), (h, h - cut), (h - cut, h), (-h + cut, h), (-h, h - cut),
           (-h, -h + cut)]
    r.polygon(pts, PAPER)
    return r


@lru_cache(maxsize=64)
def _sheet() -> np.ndarray:
    data = resources.files(__package__).joinpath("data/micropul_sheet.jpg").read_bytes()
    return cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)


@lru_cache(maxsize=256)
def _sheet_sprite(index: int, s: float, ppm: float) -> Sprite:
    r = _tile_base(s, ppm)
    row, col = divmod(index, 6)
    crop = _sheet()[row * 90:(row + 1) * 90, col * 90:(col + 1) * 90].astype(np.float32)
    n = int(round(s * ppm))
    art = cv2.resize(crop, (n, n), interpolation=cv2.INTER_AREA if n < 90 else cv2.INTER_CUBIC)
    # The scan is pure white; a printed tile is paper-toned and its black is never quite black.
    art = 22 + art * (np.array(PAPER, np.float32) - 22) / 255.0
    layer = r.bgr.astype(np.float32)
    y0, x0 = (r.h - n) // 2, (r.w - n) // 2
    layer[y0:y0 + n, x0:x0 + n] = art
    r.paint(layer)
    return r.sprite(TILE_THICKNESS_MM, bevel_mm=0.5, gloss=0.25)


def micropul_marks(r: Raster, face: Face, s: float, ink=(30, 30, 30)) -> None:
    """Draw a face at the proportions measured on the sheet (micropul.md)."""
    if face.big:
        disc = 0.38 * s
        if face.big == "W":
            r.circle((0, 0), disc, ink, shape=False)
            r.circle((0, 0), disc - 0.035 * s, PAPER, shape=False)
            mark = ink
        else:
            r.circle((0, 0), disc, ink, shape=False)
            mark = PAPER
        _catalyst(r, face.catalyst, (0.0, 0.0), s, mark, big=True)
        return
    for q, (sx, sy) in QUADRANT_SIGNS.items():
        sym = face.quadrant(q)
        if sym in "WB":
            c = (sx * MICROPUL_OFFSET * s, sy * MICROPUL_OFFSET * s)
            r.circle(c, 0.145 * s, ink, shape=False)
            if sym == "W":
                r.circle(c, 0.145 * s - 0.034 * s, PAPER, shape=False)
        elif sym == "1":
            r.circle((sx * (0.5 - 0.13) * s, sy * (0.5 - 0.13) * s), 0.045 * s, ink, shape=False)
        elif sym == "2":
            # The sheet's pair in the lower-left quadrant, turned to this quadrant.
            turns = {"ll": 0, "ul": 1, "ur": 2, "lr": 3}[q]
            for fx, fy in ((0.12, 0.22), (0.24, 0.13)):
                p = np.array([(-0.5 + fx) * s, (0.5 - fy) * s])
                for _ in range(turns):
                    p = np.array([-p[1], p[0]])
                r.circle(tuple(p), 0.045 * s, ink, shape=False)
        elif sym == "+":
            _catalyst(r, "+", (sx * (0.5 - 0.18) * s, sy * (0.5 - 0.18) * s), s, ink)


def _catalyst(r: Raster, kind: str | None, c, s: float, colour, big: bool = False) -> None:
    if kind == "+":
        a, w = 0.09 * s, 0.05 * s
        r.polygon([(c[0] - a, c[1] - w / 2), (c[0] + a, c[1] - w / 2), (c[0] + a, c[1] + w / 2),
                   (c[0] - a, c[1] + w / 2)], colour, shape=False)
        r.polygon([(c[0] - w / 2, c[1] - a), (c[0] + w / 2, c[1] - a), (c[0] + w / 2, c[1] + a),
                   (c[0] - w / 2, c[1] + a)], colour, shape=False)
    elif kind in ("1", "2"):
        r.circle(c, 0.045 * s, colour, shape=False)


@lru_cache(maxsize=256)
def _vector_sprite(face: Face, s: float, ppm: float) -> Sprite:
    r = _tile_base(s, ppm)
    h = s / 2
    micropul_marks(r, face, s)
    # The thin grey cut line at the border, as printed.
    for a, b in (((-h, -h), (h, -h)), ((h, -h), (h, h)), ((h, h), (-h, h)), ((-h, h), (-h, -h))):
        r.line(a, b, (175, 175, 175), 0.25)
    return r.sprite(TILE_THICKNESS_MM, bevel_mm=0.5, gloss=0.25)


@lru_cache(maxsize=8)
def _back_sprite(s: float, ppm: float) -> Sprite:
    r = _tile_base(s, ppm)
    r.polygon([(-s / 2 + 1, -s / 2 + 1), (s / 2 - 1, -s / 2 + 1), (s / 2 - 1, s / 2 - 1), (-s / 2 + 1, s / 2 - 1)],
              (150, 120, 90), shape=False)
    return r.sprite(TILE_THICKNESS_MM, bevel_mm=0.5, gloss=0.2)


@lru_cache(maxsize=16)
def _stone_sprite(colour: str, ppm: float) -> Sprite:
    r = Raster(STONE_MM, STONE_MM, ppm)
    r.circle((0, 0), STONE_MM / 2, STONE_COLOURS[colour])
    return r.sprite(5.0, bevel_mm=STONE_MM / 2, dome=1.0, gloss=0.8)
