"""ENIX on the table: six energy hexes with rays and path points, pawns, the cap, cards.

Looks follow games/enix.md (its *(model)* sizes and colours). The rules engine is written in
parallel, so states here are generated directly: plausible layouts and plausible changes
(a hex turned or moved, a pawn moved, the cap moved, cards revealed and taken).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from tablecam.calibration.geometry import TableGeometry
from tablecam.errors import UserError

from .canvas import Canvas, Light, Raster, Sprite
from .layout import check_apart, check_on_table, number, point, rotate

HEX_SIDE_MM = 64.0
APOTHEM_MM = HEX_SIDE_MM * math.sqrt(3) / 2
SOURCE_MM = 36.0
PATH_POINT_MM = 9.0
PAWN_MM = 16.0
CAP_MM = 34.0
CARD_MM = (58.0, 89.0)
ENERGY_COLOURS = {"solar": "#f5c800", "water": "#1e5ac8", "geothermal": "#c8282d", "waves": "#7a3c9c",
                  "wind": "#f08c1e", "biomass": "#2d9641"}
ENERGIES = tuple(ENERGY_COLOURS)
RAYS = {"solar": (1, 0, 2, 1, 0, 2), "water": (0, None, 1, 2, None, 1), "geothermal": (2, 1, None, 0, 1, None),
        "waves": (None, 0, 2, None, 1, 0), "wind": (1, None, 0, 2, 0, None), "biomass": (0, 2, None, 1, None, 1)}
# Pawn colours chosen to stand apart from every energy colour.
PAWN_COLOURS = {"white": "#f2f2ee", "black": "#222222", "pink": "#f07ab4", "cyan": "#3cc8dc",
                "brown": "#7a4a26", "lime": "#b4e03c"}
CARD_BACK = "#2a2e3a"
ENIX_CARD = "#3c3c40"


# --- geometry ---------------------------------------------------------------------------------
def side_direction(side: int, rotation: float) -> float:
    """Direction (degrees, clockwise from +x) from a hex's centre to the middle of its side."""
    return -90.0 + 60.0 * side + rotation


def neighbour(centre, direction_deg: float) -> tuple[float, float]:
    dx, dy = rotate((2 * APOTHEM_MM, 0.0), direction_deg)
    return centre[0] + dx, centre[1] + dy


# --- states -----------------------------------------------------------------------------------
def random_state(rng: np.random.Generator, geometry: TableGeometry) -> dict:
    states = _plausible_states(int(rng.integers(2**31)), geometry)
    return states[int(rng.integers(len(states)))]


def game_states(seed: int, geometry: TableGeometry, players: int = 3) -> list[dict]:
    """A game played by the rules engine (tablecam.rules.enix): setup, reveals, tile actions,
    walks, the cap, as the table looks after each action; cards lie at the engine's default seats.

    The layout's lattice is placed so that every tile of every state stays on the play area and
    clear of the card rows along the near and far edges.
    """
    from tablecam.rules.enix.game import default_seats, random_game, to_observation
    from tablecam.rules.enix.lattice import Lattice

    rng = np.random.default_rng(seed)
    states = random_game(seed, players=players)
    angle = float(rng.uniform(-30, 30))
    probe = Lattice((0.0, 0.0), angle)
    cells = {t.cell for state in states for t in state.layout.tiles}
    pts = np.array([probe.centre(c) for c in cells])
    lo, hi = pts.min(axis=0) - HEX_SIDE_MM, pts.max(axis=0) + HEX_SIDE_MM
    clear_y = CARD_MM[1] + 15.0  # the card rows' depth from the edges (default_seats puts them 55 mm in)
    span_x = (geometry.marker_mm, geometry.width_mm - geometry.marker_mm)
    span_y = (clear_y, geometry.height_mm - clear_y)
    origin = []
    for k, (a, b) in enumerate((span_x, span_y)):
        low, high = a - lo[k], b - hi[k]
        if low > high:  # a sprawling layout: centre it, the cards may then touch its edge
            low = high = ((a + b) - (lo[k] + hi[k])) / 2
        origin.append(float(rng.uniform(low, high)))
    lattice = Lattice((origin[0], origin[1]), angle)
    seats = default_seats(tuple(c for c, _ in states[0].pawns), (geometry.width_mm, geometry.height_mm))
    out = []
    for state in states:
        obs = to_observation(state, 0, lattice, seats)
        obs.pop("frame_id", None)
        obs["scene"] = {"layout_angle_deg": angle}
        out.append(obs)
    return out


def _rot(deg: float) -> float:
    return float(deg % 360.0)


def _ring_mm(n: int) -> float:
    """Radius of the ring on which n pawns share a tile's source: 12 mm, or wider when n pawns on
    that ring would touch (neighbours' centres at least a pawn and a millimetre apart)."""
    return max(12.0, (PAWN_MM + 1.0) / (2.0 * math.sin(math.pi / n)))


def _observation(hexes, on, cap, stacks, revealed, scene, geometry: TableGeometry) -> dict:
    pawns = []
    by_hex: dict[int, list[str]] = {}
    for colour, i in on.items():
        by_hex.setdefault(i, []).append(colour)
    for i, colours in by_hex.items():
        cx, cy = hexes[i]["center_mm"]
        n = len(colours)
        for k, colour in enumerate(colours):
            # Pawns share the source circle; under the cap they sit at the tile's edge of it. Five
            # or six pawns need a wider ring, so that neighbours stand apart (a 16 mm pawn each).
            r = 0.0 if n == 1 and cap != i else (_ring_mm(n) if cap != i else 27.0)
            a = -90 + 360 * k / n + 25
            pawns.append({"colour": colour, "center_mm": [cx + r * math.cos(math.radians(a)),
                                                          cy + r * math.sin(math.radians(a))]})
    cards = []
    angles = []
    jitter = np.random.default_rng(len(revealed) * 7 + sum(len(s) for s in stacks))
    # Five draw stacks along the far side, the revealed cards (one per player) along the near side.
    for k, stack in enumerate(stacks):
        if stack:
            cards.append({"energy": None, "value": None, "center_mm": [480.0 + 70 * k, 95.0], "face_up": False})
            angles.append(float(jitter.normal(0, 2.5)))
    spots = [(470.0 + 66 * p, geometry.height_mm - 115.0) for p in range(5)] + [(470.0, geometry.height_mm - 215.0)]
    for c in revealed:
        cards.append({"energy": c["energy"], "value": c["value"], "center_mm": list(spots[c["player"]]),
                      "face_up": True})
        angles.append(float(jitter.normal(0, 6)))
    obs = {"game": "enix", "hexes": [dict(h) for h in hexes], "pawns": pawns,
           "cap": {"center_mm": list(hexes[cap]["center_mm"])} if cap is not None else None,
           "cards": cards, "scene": dict(scene, card_angles_deg=angles)}
    return obs


# --- checking ---------------------------------------------------------------------------------
def truth(obs: dict, geometry: TableGeometry) -> tuple[dict, dict, dict]:
    scene = dict(obs.get("scene") or {})
    hexes = []
    for i, h in enumerate(_list(obs, "hexes")):
        if h.get("energy") not in ENERGY_COLOURS:
            raise UserError(f"hex {i} energy must be one of {', '.join(ENERGIES)}, not {h.get('energy')!r}.")
        c = point(h.get("center_mm"), f"hex {i} center_mm")
        check_on_table(c, HEX_SIDE_MM, geometry, f"hex {i}")
        rot = number(h.get("rotation", 0.0), f"hex {i} rotation", -360, 720) % 360.0
        hexes.append({"energy": h["energy"], "center_mm": c, "rotation": rot})
    check_apart([h["center_mm"] for h in hexes], 2 * APOTHEM_MM - 1, "hexes", "overlap")
    pawns = []
    for i, p in enumerate(_list(obs, "pawns")):
        if p.get("colour") not in PAWN_COLOURS:
            raise UserError(f"pawn {i} colour must be one of {', '.join(PAWN_COLOURS)}, not {p.get('colour')!r}.")
        c = point(p.get("center_mm"), f"pawn {i} center_mm")
        check_on_table(c, PAWN_MM / 2, geometry, f"pawn {i}")
        pawns.append({"colour": p["colour"], "center_mm": c})
    check_apart([p["center_mm"] for p in pawns], PAWN_MM * 0.9, "pawns", "overlap")
    cap = obs.get("cap")
    if cap is not None:
        if not isinstance(cap, dict):
            raise UserError("cap must be an object with center_mm, or null.")
        c = point(cap.get("center_mm"), "cap center_mm")
        check_on_table(c, CAP_MM / 2, geometry, "the cap")
        cap = {"center_mm": c}
    cards = []
    for i, k in enumerate(_list(obs, "cards")):
        face_up = bool(k.get("face_up", True))
        energy, value = k.get("energy"), k.get("value")
        if face_up:
            if energy not in ENERGY_COLOURS and energy != "enix":
                raise UserError(f"card {i} energy must be one of {', '.join(ENERGIES)} or enix, not {energy!r}.")
            if energy == "enix":
                value = None
            elif isinstance(value, bool) or not isinstance(value, int) or not -10 <= value <= 9:
                raise UserError(f"card {i} value must be a whole number from -10 to 9, not {value!r}.")
        else:
            energy, value = None, None  # a card back shows neither
        c = point(k.get("center_mm"), f"card {i} center_mm")
        check_on_table(c, CARD_MM[0] / 2, geometry, f"card {i}")
        cards.append({"energy": energy, "value": value, "center_mm": c, "face_up": face_up})
    angles = list(scene.get("card_angles_deg") or [])
    scene["card_angles_deg"] = [float(a) for a in angles[:len(cards)]] + [0.0] * max(0, len(cards) - len(angles))
    part = {"hexes": hexes, "pawns": pawns, "cap": cap, "cards": cards}
    points = {"hexes": [h["center_mm"] for h in hexes], "pawns": [p["center_mm"] for p in pawns],
              "cards": [k["center_mm"] for k in cards]}
    if cap is not None:
        points["cap"] = [cap["center_mm"]]
    return part, points, scene


def _list(obs: dict, key: str) -> list:
    value = obs.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise UserError(f"{key} must be a list of objects.")
    return value


# --- drawing ----------------------------------------------------------------------------------
def draw(canvas: Canvas, part: dict, scene: dict, light: Light) -> None:
    ppm = round(canvas.ppm, 3)
    for h in part["hexes"]:
        canvas.place(_hex_sprite(h["energy"], ppm), h["center_mm"], h["rotation"], light)
    for k, angle in zip(part["cards"], scene["card_angles_deg"]):
        if not k["face_up"]:
            sprite = _card_back(ppm)
        else:
            sprite = _card_sprite(k["energy"], k["value"], ppm)
        canvas.place(sprite, k["center_mm"], angle, light)
    if part["cap"] is not None:
        canvas.place(_cap_sprite(ppm), part["cap"]["center_mm"], 0.0, light)
    for p in part["pawns"]:
        canvas.place(_pawn_sprite(p["colour"], ppm), p["center_mm"], 0.0, light)


def _shade(colour: str, k: float) -> tuple[float, float, float]:
    c = colour.lstrip("#")
    rgb = [int(c[i:i + 2], 16) for i in (0, 2, 4)]
    return tuple(float(min(255, v * k)) for v in reversed(rgb))


def _lighten(colour: str, t: float) -> tuple[float, float, float]:
    b, g, r = _shade(colour, 1.0)
    return (b + (255 - b) * t, g + (255 - g) * t, r + (255 - r) * t)


@lru_cache(maxsize=16)
def _hex_sprite(energy: str, ppm: float) -> Sprite:
    colour = ENERGY_COLOURS[energy]
    r = Raster(2 * HEX_SIDE_MM, 2 * APOTHEM_MM, ppm)
    outline = [(HEX_SIDE_MM * math.cos(math.radians(60 * k)), HEX_SIDE_MM * math.sin(math.radians(60 * k)))
               for k in range(6)]
    r.polygon(outline, _shade(colour, 0.8))
    inner = [(x * 0.93, y * 0.93) for x, y in outline]
    r.polygon(inner, _shade(colour, 1.0), shape=False)
    light_c = _lighten(colour, 0.75)
    for side, points in enumerate(RAYS[energy]):
        if points is None:
            continue
        d = math.radians(side_direction(side, 0.0))
        end = (APOTHEM_MM * math.cos(d), APOTHEM_MM * math.sin(d))
        r.line((0, 0), end, light_c, 6.0)
        span = (SOURCE_MM / 2, APOTHEM_MM)
        for t in ([] if points == 0 else [0.5] if points == 1 else [0.3, 0.72]):
            dist = span[0] + t * (span[1] - span[0])
            c = (dist * math.cos(d), dist * math.sin(d))
            r.circle(c, PATH_POINT_MM / 2, (245, 245, 245), shape=False)
            r.circle(c, PATH_POINT_MM / 2, _shade(colour, 0.55), width_mm=1.0, shape=False)
    r.circle((0, 0), SOURCE_MM / 2, (240, 242, 244), shape=False)
    r.circle((0, 0), SOURCE_MM / 2 - 1.0, _shade(colour, 0.6), width_mm=2.0, shape=False)
    r.circle((0, 0), SOURCE_MM / 4, _shade(colour, 0.9), shape=False)
    return r.sprite(2.5, bevel_mm=0.8, gloss=0.2)


@lru_cache(maxsize=160)
def _card_sprite(energy: str, value: int | None, ppm: float) -> Sprite:
    w, h = CARD_MM
    r = Raster(w, h, ppm)
    r.rounded_rect(w, h, 3.5, (238, 240, 240))
    if energy == "enix":
        r.rounded_rect(w - 5, h - 5, 2.5, _shade(ENIX_CARD, 1.0), shape=False)
        r.circle((0, 6), 13, (90, 150, 90), shape=False)  # the goblin's head
        r.circle((-5, 3), 2.5, (240, 240, 240), shape=False)
        r.circle((5, 3), 2.5, (240, 240, 240), shape=False)
        r.text("ENIX", (0, -28), 7, (220, 220, 220))
    else:
        colour = ENERGY_COLOURS[energy]
        r.rounded_rect(w - 5, h - 5, 2.5, _shade(colour, 1.0), shape=False)
        r.text(str(value), (-w / 2 + 13, -h / 2 + 12), 12, (20, 20, 20))
        # The action symbols: an icon disc and a caption band, as action cards carry.
        r.circle((6, -4), 13, (245, 245, 245), shape=False)
        r.circle((6, -4), 6, _shade(colour, 0.7), shape=False)
        r.rounded_rect(w - 14, 14, 3, (235, 238, 238), shape=False, centre_mm=(0, 27))
        r.text(energy.upper(), (0, 27), 4.2, _shade(colour, 0.6))
    return r.sprite(0.4, bevel_mm=0.3, gloss=0.35)


@lru_cache(maxsize=4)
def _card_back(ppm: float) -> Sprite:
    w, h = CARD_MM
    r = Raster(w, h, ppm)
    r.rounded_rect(w, h, 3.5, _shade(CARD_BACK, 1.0))
    # A stack, seen from above, shows a little of the cards' edges: a uniform dark diagonal pattern.
    for k in range(-12, 13):
        r.line((-w / 2 + 3, k * 8.0), (w / 2 - 3, k * 8.0 + 20), _shade(CARD_BACK, 1.35), 1.2)
    return r.sprite(6.0, bevel_mm=0.6, gloss=0.3)


@lru_cache(maxsize=4)
def _cap_sprite(ppm: float) -> Sprite:
    r = Raster(CAP_MM, CAP_MM, ppm)
    r.circle((0, 0), CAP_MM / 2, (24, 24, 26))
    r.circle((0, 0), CAP_MM / 2 - 4, (34, 34, 38), shape=False)
    return r.sprite(22.0, bevel_mm=5.0, dome=6.0, gloss=0.6)


@lru_cache(maxsize=8)
def _pawn_sprite(colour: str, ppm: float) -> Sprite:
    r = Raster(PAWN_MM, PAWN_MM, ppm)
    r.circle((0, 0), PAWN_MM / 2, _shade(PAWN_COLOURS[colour], 0.85))
    r.circle((0, 0), PAWN_MM / 4, _shade(PAWN_COLOURS[colour], 1.0), shape=False)
    return r.sprite(20.0, bevel_mm=3.0, dome=8.0, gloss=0.5)


# Varied states for single renders (random_state): wider than one game's play, e.g. face-down
# stacks and any number of players; the sequence (game_states) follows the rules engine.
def _plausible_states(seed: int, geometry: TableGeometry, steps: int = 24) -> list[dict]:
    """A plausible stretch of play: setup, then one visible change per step."""
    rng = np.random.default_rng(seed)
    layout_angle = float(rng.uniform(-30, 30))
    centre = (float(rng.uniform(215, 235)), float(rng.uniform(240, 260)))
    slots = [neighbour(centre, layout_angle + 30 + 60 * k) for k in range(6)]  # the ring around solar
    free = int(rng.integers(6))
    others = list(rng.permutation([e for e in ENERGIES if e != "solar"]))
    hexes = [{"energy": "solar", "center_mm": list(centre), "rotation": _rot(layout_angle + 60 * int(rng.integers(6)))}]
    for k, energy in zip([k for k in range(6) if k != free], others):
        hexes.append({"energy": str(energy), "center_mm": list(slots[k]),
                      "rotation": _rot(layout_angle + 60 * int(rng.integers(6)))})
    players = int(rng.integers(2, 7))
    pawn_colours = list(PAWN_COLOURS)[:players]
    on = {c: 0 for c in pawn_colours}  # pawn colour -> hex index
    cap: int | None = None
    stacks = [[str(rng.choice(ENERGIES)) for _ in range(int(rng.integers(4, 12)))] for _ in range(5)]
    revealed: list[dict] = []
    scene = {"layout_angle_deg": layout_angle}

    def snapshot() -> dict:
        return _observation(hexes, on, cap, stacks, revealed, scene, geometry)

    out = [snapshot()]
    for _ in range(steps):
        kind = rng.choice(["pawn", "pawn", "rotate", "cap", "reveal", "move"])
        if kind == "pawn":
            colour = pawn_colours[int(rng.integers(players))]
            here = on[colour]
            near = [i for i in range(6) if i not in (here, cap)
                    and math.dist(hexes[i]["center_mm"], hexes[here]["center_mm"]) < 2 * APOTHEM_MM + 1]
            if near and here != cap:
                on[colour] = int(rng.choice(near))
        elif kind == "rotate":
            i = int(rng.integers(6))
            hexes[i] = dict(hexes[i], rotation=_rot(hexes[i]["rotation"] + 60 * int(rng.choice([-1, 1]))))
        elif kind == "cap":
            cap = int(rng.integers(6))
        elif kind == "reveal":
            if revealed:
                revealed = []  # the round is over: revealed cards are taken back
            else:
                for p in range(players):
                    enix = rng.uniform() < 0.12
                    revealed.append({"energy": "enix" if enix else str(rng.choice(ENERGIES)),
                                     "value": None if enix else int(rng.integers(-10, 10)), "player": p})
        else:  # move an outer hex to another free place around solar, pawns along
            empty = [s for s in slots if all(math.dist(s, h["center_mm"]) > 1 for h in hexes)]
            i = int(rng.integers(1, 6))
            if empty:
                target = empty[int(rng.integers(len(empty)))]
                hexes[i] = dict(hexes[i], center_mm=list(target))
        out.append(snapshot())
    return out
