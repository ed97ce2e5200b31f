"""Stixx on the table: the star board with 42 grooves, coloured sticks, the grey marker.

Board model and slot numbering from games/stixx.md. States follow the basic game: all 42
sticks laid out, then each turn a stick connected to the marker is taken (it goes to a pile
beside the board) and the marker moves into its groove.

Slots in the truth are numbered as games/stixx.md says, in the frame of the reported rotation
(0-60 degrees): the board looks the same every sixth of a turn, so that is the only numbering a
camera can give. A state may still give its slots in the frame of a full angle (0-360, the
scene's `board_angle_deg`, as the rules engine's random games do): `truth` turns them into the
reported frame, and its output, drawn again, gives the same picture and the same truth.
"""

from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np

from tablecam.calibration.geometry import TableGeometry
from tablecam.errors import UserError
from tablecam.rules.stixx.board import rotate_slot

from .canvas import Canvas, Light, Raster, Sprite
from .layout import check_apart, check_on_table, number, point, rotate

L_MM = 55.0
STICK_WIDTH_MM = 8.0
BOARD_COLOUR = "#1f2a44"
STICK_COLOURS = {"red": "#c81e28", "orange": "#f08214", "yellow": "#f5d21e", "green": "#28963c",
                 "blue": "#1e50be", "purple": "#783296", "grey": "#8c8c8c"}
PLAYER_COLOURS = tuple(c for c in STICK_COLOURS if c != "grey")
BOARD_RADIUS_MM = 2 * L_MM + 0.65 * L_MM  # corner of the plate, beyond the outer intersections
# The board's own finish (0 matte .. 1 glass): a printed, lacquered plate, not the table's laminate
# or varnish (the table's gloss must not show through it).
BOARD_GLOSS = 0.15


def intersections() -> list[tuple[int, int]]:
    return [(q, r) for q in range(-2, 3) for r in range(-2, 3) if abs(q + r) <= 2]


def _xy(q: float, r: float, L: float = L_MM) -> tuple[float, float]:
    return (q * L + r * L / 2, r * L * math.sqrt(3) / 2)


@lru_cache(maxsize=1)
def grooves() -> tuple[tuple[tuple[int, int], tuple[int, int]], ...]:
    """The 42 grooves as pairs of intersections, in slot order (games/stixx.md)."""
    nodes = set(intersections())
    edges = set()
    for q, r in nodes:
        for dq, dr in ((1, 0), (0, 1), (-1, 1)):
            other = (q + dq, r + dr)
            if other in nodes:
                edges.add(tuple(sorted(((q, r), other))))

    def key(e):
        (a, b) = e
        mx, my = np.add(_xy(*a, 1.0), _xy(*b, 1.0)) / 2
        return (round(my, 1), round(mx, 1))

    out = tuple(sorted(edges, key=key))
    assert len(out) == 42
    return out


def slot_pose(slot: int, board_centre, board_rotation: float) -> tuple[tuple[float, float], float]:
    """Table position and angle (degrees) of a groove's middle."""
    a, b = grooves()[slot]
    pa, pb = _xy(*a), _xy(*b)
    mid = ((pa[0] + pb[0]) / 2, (pa[1] + pb[1]) / 2)
    dx, dy = rotate(mid, board_rotation)
    angle = math.degrees(math.atan2(pb[1] - pa[1], pb[0] - pa[0])) + board_rotation
    return (board_centre[0] + dx, board_centre[1] + dy), angle


def reported_rotation(angle_deg: float) -> float:
    """The board's rotation as stixx.md reports it, in [0, 60), rounded as a detector prints it
    (59.996 is 0.0, not 60.0: the frame of the slots must be the reported one)."""
    return round(angle_deg % 60.0, 2) % 60.0


def connected(slot_a: int, slot_b: int) -> bool:
    return bool(set(grooves()[slot_a]) & set(grooves()[slot_b]))


# --- states -----------------------------------------------------------------------------------
def random_state(rng: np.random.Generator, geometry: TableGeometry) -> dict:
    states = _plausible_states(int(rng.integers(2**31)), geometry)
    return states[int(rng.integers(len(states)))]


def game_states(seed: int, geometry: TableGeometry) -> list[dict]:
    """A basic game played by the rules engine (random legal takes), from the full board to its end.

    Declarations change no stick, so they show no new state; taken sticks go to a pile beside the board.
    """
    from tablecam.rules.stixx.game import random_game

    rng = np.random.default_rng(seed)
    centre = (float(rng.uniform(330, 470)), float(rng.uniform(235, 265)))
    rotation = float(rng.uniform(0, 360))
    scene = {"pile_angles_deg": [float(a) for a in rng.uniform(0, 180, 42)]}
    out: list[dict] = []
    taken: list[str] = []
    before: tuple | None = None
    for state in random_game(seed, players=3, variant="basic"):
        if state.declare is not None:
            continue
        sticks = state.sticks
        if before is not None:
            taken += [before[s] for s in range(len(sticks)) if before[s] and not sticks[s]]
        on_board = {slot: colour for slot, colour in enumerate(sticks) if colour}
        out.append(_observation(centre, rotation, on_board, state.marker, list(taken), scene, geometry))
        before = sticks
    return out


def _observation(centre, rotation, on_board, marker, taken, scene, geometry: TableGeometry) -> dict:
    """The state as an Observation with its scene; `on_board` and `marker` are numbered in the frame
    of the full `rotation`, the Observation's slots in the frame of the reported one (stixx.md)."""
    reported = reported_rotation(rotation)
    steps = round((rotation % 360.0 - reported) / 60.0) % 6
    on_board = {rotate_slot(slot, steps): colour for slot, colour in on_board.items()}
    marker = None if marker is None else rotate_slot(marker, steps)
    rotation = reported
    sticks = []
    for slot in sorted(on_board):
        c, _ = slot_pose(slot, centre, rotation)
        sticks.append({"colour": on_board[slot], "center_mm": list(c), "slot": slot})
    if marker is not None:
        c, _ = slot_pose(marker, centre, rotation)
        sticks.append({"colour": "grey", "center_mm": list(c), "slot": marker})
    # Taken sticks lie side by side left of the board, ten to a row.
    for k, colour in enumerate(taken):
        x = 60.0 + (k % 10) * 11.5
        y = 110.0 + (k // 10) * 60.0
        sticks.append({"colour": colour, "center_mm": [x, y], "slot": None})
    angles = []
    for s in sticks:
        if s["slot"] is None:
            angles.append(90.0 + (scene["pile_angles_deg"][len(angles) % 42] - 90) * 0.05)
        else:
            angles.append(slot_pose(s["slot"], centre, rotation)[1])
    return {"game": "stixx", "board": {"center_mm": list(centre), "rotation": rotation},
            "sticks": sticks, "scene": {"board_angle_deg": rotation, "stick_angles_deg": angles,
                                         "pile_angles_deg": scene["pile_angles_deg"]}}


# --- checking ---------------------------------------------------------------------------------
def truth(obs: dict, geometry: TableGeometry) -> tuple[dict, dict, dict]:
    scene = dict(obs.get("scene") or {})
    board = obs.get("board")
    if not isinstance(board, dict):
        raise UserError("a Stixx state needs a board object with center_mm and rotation.")
    centre = point(board.get("center_mm"), "board center_mm")
    check_on_table(centre, BOARD_RADIUS_MM, geometry, "the board")
    # The angle the state's slots are numbered in (the scene's full angle, else the rotation), and
    # the reported rotation: slot s in the first frame is rotate_slot(s, steps) in the second.
    angle = number(scene.get("board_angle_deg", board.get("rotation", 0.0)), "board rotation", -360, 720) % 360.0
    reported = reported_rotation(angle)
    steps = round((angle - reported) / 60.0) % 6
    scene["board_angle_deg"] = reported
    raw = obs.get("sticks") or []
    if not isinstance(raw, list) or not all(isinstance(s, dict) for s in raw):
        raise UserError("sticks must be a list of objects.")
    given = list(scene.get("stick_angles_deg") or [])
    sticks, angles = [], []
    used = set()
    for i, s in enumerate(raw):
        colour = s.get("colour")
        if colour not in STICK_COLOURS:
            raise UserError(f"stick {i} colour must be one of {', '.join(STICK_COLOURS)}, not {colour!r}.")
        slot = s.get("slot")
        if slot is not None:
            if isinstance(slot, bool) or not isinstance(slot, int) or not 0 <= slot < 42:
                raise UserError(f"stick {i} slot must be 0 to 41 or null, not {slot!r}.")
            if slot in used:
                raise UserError(f"two sticks lie in groove {slot}.")
            used.add(slot)
            slot = rotate_slot(slot, steps)
            c, a = slot_pose(slot, centre, reported)
            c = [c[0], c[1]]
        else:
            c = point(s.get("center_mm"), f"stick {i} center_mm")
            a = float(given[i]) if i < len(given) else 90.0
            if math.dist(c, centre) < BOARD_RADIUS_MM:
                raise UserError(f"stick {i} has no slot but lies on the board; give its slot.")
        check_on_table(c, L_MM * 0.45, geometry, f"stick {i}")
        sticks.append({"colour": colour, "center_mm": c, "slot": slot})
        angles.append(a)
    check_apart([s["center_mm"] for s in sticks if s["slot"] is None], STICK_WIDTH_MM, "sticks beside the board",
                "overlap")
    scene["stick_angles_deg"] = angles
    part = {"board": {"center_mm": centre, "rotation": reported}, "sticks": sticks}
    return part, {"sticks": [s["center_mm"] for s in sticks], "board": [centre]}, scene


# --- drawing ----------------------------------------------------------------------------------
def draw(canvas: Canvas, part: dict, scene: dict, light: Light) -> None:
    ppm = round(canvas.ppm, 3)
    centre, angle = part["board"]["center_mm"], scene["board_angle_deg"]
    canvas.place(_board_sprite(ppm), centre, angle, light)
    _board_finish(canvas, centre, angle)
    for s, a in zip(part["sticks"], scene["stick_angles_deg"]):
        canvas.place(_stick_sprite(s["colour"], ppm), s["center_mm"], a, light)


def _board_finish(canvas: Canvas, centre, angle: float) -> None:
    """The board's own gloss where it lies (a sprite only raises the gloss below it, so without
    this the board would catch the lamp as the table under it does)."""
    plate = []
    for k in range(6):
        dx, dy = rotate((BOARD_RADIUS_MM * math.cos(math.radians(60 * k)),
                         BOARD_RADIUS_MM * math.sin(math.radians(60 * k))), angle)
        plate.append((centre[0] + dx, centre[1] + dy))
    px = np.round(np.asarray(canvas.to_px(plate), dtype=np.float64) * 16).astype(np.int32)
    cv2.fillPoly(canvas.gloss, [px], int(round(255 * BOARD_GLOSS)), cv2.LINE_AA, 4)


def _bgr(colour: str, k: float = 1.0) -> tuple[float, float, float]:
    c = colour.lstrip("#")
    return tuple(float(min(255, int(c[i:i + 2], 16) * k)) for i in (4, 2, 0))


@lru_cache(maxsize=4)
def _board_sprite(ppm: float) -> Sprite:
    R = BOARD_RADIUS_MM
    r = Raster(2 * R, 2 * R, ppm)
    plate = [(R * math.cos(math.radians(60 * k)), R * math.sin(math.radians(60 * k))) for k in range(6)]
    r.polygon(plate, _bgr(BOARD_COLOUR, 0.85))
    r.polygon([(x * 0.96, y * 0.96) for x, y in plate], _bgr(BOARD_COLOUR), shape=False)
    groove = _bgr(BOARD_COLOUR, 1.45)
    for a, b in grooves():
        pa, pb = _xy(*a), _xy(*b)
        r.capsule(pa, pb, STICK_WIDTH_MM + 2, groove, shape=False)
    for q, rr in intersections():
        r.circle(_xy(q, rr), 5.5, _bgr(BOARD_COLOUR, 1.25), shape=False)
    inside = (r.alpha > 127).astype(np.uint8)
    relief = np.where(inside, 6.0, 0.0).astype(np.float32)
    # Grooves are cut into the board: lower where the groove colour is.
    g = np.all(np.abs(r.bgr.astype(np.float32) - np.array(groove, np.float32)) < 12, axis=2)
    relief[g] = 4.5
    return r.sprite(6.0, relief=relief)


@lru_cache(maxsize=16)
def _stick_sprite(colour: str, ppm: float) -> Sprite:
    length = 0.85 * L_MM
    r = Raster(length, STICK_WIDTH_MM, ppm)
    r.capsule((-length / 2 + STICK_WIDTH_MM / 2, 0), (length / 2 - STICK_WIDTH_MM / 2, 0), STICK_WIDTH_MM,
              _bgr(STICK_COLOURS[colour]))
    return r.sprite(7.0, bevel_mm=STICK_WIDTH_MM / 2, dome=1.5, gloss=0.4)


# Varied states for single renders (random_state): wider than one game's play, e.g. face-down
# stacks and any number of players; the sequence (game_states) follows the rules engine.
def _plausible_states(seed: int, geometry: TableGeometry) -> list[dict]:
    """A basic game of random legal takes, from the full board to its end."""
    rng = np.random.default_rng(seed)
    centre = (float(rng.uniform(330, 470)), float(rng.uniform(235, 265)))
    rotation = float(rng.uniform(0, 360))
    colours = [c for c in PLAYER_COLOURS for _ in range(7)]
    rng.shuffle(colours)
    on_board = dict(enumerate(colours))  # slot -> colour
    marker: int | None = None
    taken: list[str] = []
    pile_angles = [float(a) for a in rng.uniform(0, 180, 42)]
    scene = {"pile_angles_deg": pile_angles}
    out = [_observation(centre, rotation, on_board, marker, taken, scene, geometry)]
    while on_board:
        if marker is None:
            choice = [int(rng.choice(list(on_board)))]
        else:
            choice = [s for s in on_board if connected(s, marker)]
            if not choice:
                break
        slot = int(rng.choice(choice))
        taken.append(on_board.pop(slot))
        marker = slot
        out.append(_observation(centre, rotation, on_board, marker, taken, scene, geometry))
    return out
