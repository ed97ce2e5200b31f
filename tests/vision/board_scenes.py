"""Rendered Stixx and ENIX scenes with what the detectors are judged on, and the judging itself.

Shared by tests/vision and bench/stixx_enix_detect.py (which puts this folder on sys.path).

A scene is a simulator render plus what its truth JSON does not carry:
- the camera's lens profile, as `tablecam calibrate lens` would measure it for that camera;
- how much of each groove / hex / pawn / card a hand hides (read from the simulator's cover mask);
- Stixx slots in the frame of the reported board rotation (see `canonical_stixx`).

`render_scene(game, seed)` draws the same picture as `tablecam.simulator.render_random(game, seed)`
(same random stream, step by step), keeping the canvas to read the cover mask.
`scene_batch(game, seed, n)` renders n states under ONE camera, light and table, which is much
cheaper (building the table top is most of a render's time): tests use it to stay fast.
`cached_scene(game, seed, directory)` keeps renders on disk (PNG, lossless) for the bench.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from tablecam.calibration.geometry import TableGeometry
from tablecam.calibration.lens import CameraProfile
from tablecam.errors import UserError
from tablecam.rules.stixx.board import BoardPose, rotate_slot, steps_between
from tablecam.simulator import enix as sim_enix
from tablecam.simulator import stixx as sim_stixx
from tablecam.simulator.camera import CameraModel
from tablecam.simulator.nuisances import Nuisances
from tablecam.simulator.props import random_hand
from tablecam.simulator.render import check, make_truth, random_state
from tablecam.simulator.scene import GAMES, PIECE_LISTS, Stage

COVER_ORIGIN_MM = (-150.0, -150.0)  # the hand's cover is kept over the table and a border around it
COVER_SIZE_MM = (1100, 800)
COVER_PX_PER_MM = 1.0
HIDDEN = 0.02  # a piece with more than this fraction under a hand may be reported unknown (null)
STICK_MATCH_MM = 8.0
PAWN_MATCH_MM = 7.0
CAP_MATCH_MM = 8.0
CARD_MATCH_MM = 15.0
HEX_MATCH_MM = 25.0
BOARD_CENTRE_MM = 3.0  # a board (or hex) placed further off than this is not "exactly right"
BOARD_ROTATION_DEG = 1.5
HEX_CENTRE_MM = 4.0
HEX_ROTATION_DEG = 3.0


@dataclass(frozen=True, eq=False)
class Scene:
    game: str
    seed: int
    image: np.ndarray
    truth: dict
    profile: CameraProfile
    hidden: dict = field(default_factory=dict)  # per piece list: fraction of each piece under a hand
    cover: np.ndarray | None = None  # where a hand hides the table: uint8, COVER_PX_PER_MM from COVER_ORIGIN_MM

    def covered(self, points_mm) -> np.ndarray:
        """True where a hand hides the table point (N, 2)."""
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
        if self.cover is None or len(pts) == 0:
            return np.zeros(len(pts), bool)
        px = np.floor((pts - COVER_ORIGIN_MM) * COVER_PX_PER_MM).astype(int)
        h, w = self.cover.shape
        ok = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
        out = np.zeros(len(pts), bool)
        out[ok] = self.cover[px[ok, 1], px[ok, 0]] > 0
        return out


def camera_profile(camera: CameraModel) -> CameraProfile:
    """The lens profile of a simulated camera (what a lens calibration of it would give)."""
    K = camera.K
    return CameraProfile(tuple(tuple(float(v) for v in row) for row in K), tuple(float(v) for v in camera.dist),
                         camera.resolution, 0.1, "simulator truth", 0, "")


def render_scene(game: str, seed: int, resolution: tuple[int, int] = (2028, 1520),
                 geometry: TableGeometry = TableGeometry(), nuisances: bool = True) -> Scene:
    """One scene, exactly as render_random(game, seed, resolution) draws it."""
    rng = np.random.default_rng([seed, GAMES.index(game)])
    state = random_state(game, rng, geometry)
    camera = CameraModel.random(rng, resolution, geometry) if nuisances else CameraModel.default(resolution, geometry)
    noise = Nuisances.random(rng) if nuisances else Nuisances.none()
    rng = np.random.default_rng(seed)
    stage = Stage.build(camera, noise, geometry, rng)
    return shoot(stage, state, seed, rng, noise.hand)


def scene_batch(game: str, seed: int, count: int, resolution: tuple[int, int] = (2028, 1520),
                hand_every: int = 4, geometry: TableGeometry = TableGeometry()) -> list[Scene]:
    """`count` random states under one random camera, light and table (built once); every
    `hand_every`-th shot has a hand over the table."""
    rng = np.random.default_rng([seed, GAMES.index(game), 99])
    camera = CameraModel.random(rng, resolution, geometry)
    noise = Nuisances.random(rng, hand=False)
    stage = Stage.build(camera, noise, geometry, rng)
    out = []
    for k in range(count):
        hand = hand_every > 0 and k % hand_every == hand_every - 1
        while True:
            state = random_state(game, rng, geometry)
            try:
                check(state, geometry)
            except UserError:
                continue  # a state the simulator refuses to draw (ENIX: six pawns crowded on one tile)
            break
        out.append(shoot(stage, state, seed * 1000 + k, rng, hand))
    return out


def shoot(stage: Stage, state: dict, seed: int, rng: np.random.Generator, with_hand: bool,
          hand_target: tuple[float, float] | None = None) -> Scene:
    """One photo of `state` on a built stage (the steps of simulator.render.render, same order)."""
    geometry = stage.geometry
    game, part, points, scene = check(state, geometry)
    canvas = stage.paint(game, part, scene)
    hand = None
    if with_hand:
        target = hand_target if hand_target is not None else _hand_target(rng, points, geometry)
        hand = random_hand(rng, target, geometry)
        stage.add_hand(canvas, hand)
    image = stage.expose(stage.develop(canvas), rng)
    truth = make_truth(game, part, points, scene, stage, canvas, hand, frame_id=0)
    truth["seed"] = int(seed)
    hidden = _hidden(game, stage, canvas, truth) if hand is not None else {}
    return Scene(game, seed, image, truth, camera_profile(stage.camera), hidden,
                 _cover(stage, canvas) if hand is not None else None)


def _cover(stage: Stage, canvas) -> np.ndarray:
    """The canvas's hand cover resampled to a table-mm grid (kept with a cached render)."""
    w, h = int(COVER_SIZE_MM[0] * COVER_PX_PER_MM), int(COVER_SIZE_MM[1] * COVER_PX_PER_MM)
    xs = COVER_ORIGIN_MM[0] + (np.arange(w) + 0.5) / COVER_PX_PER_MM
    ys = COVER_ORIGIN_MM[1] + (np.arange(h) + 0.5) / COVER_PX_PER_MM
    grid = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
    return stage.covered_px(canvas, grid).reshape(h, w).astype(np.uint8) * 255


def _hand_target(rng: np.random.Generator, points: dict, geometry: TableGeometry) -> tuple[float, float]:
    # As tablecam.simulator.render._hand_target: hands reach for a piece.
    pool = [p for key in PIECE_LISTS for p in points.get(key, [])]
    if not pool:
        return geometry.width_mm / 2, geometry.height_mm / 2
    x, y = pool[int(rng.integers(len(pool)))]
    return float(x + rng.normal(0, 15)), float(y + rng.normal(0, 15))


def _covered(stage: Stage, canvas, pts) -> float:
    return float(stage.covered_px(canvas, np.asarray(pts, dtype=np.float64).reshape(-1, 2)).mean())


def _disc(centre, radius: float, n: int = 5) -> np.ndarray:
    t = np.linspace(-radius, radius, n)
    g = np.array([(x, y) for x in t for y in t if x * x + y * y <= radius * radius + 1e-9])
    return np.asarray(centre, dtype=np.float64) + g


def _rect(centre, w: float, h: float, angle_deg: float, n: int = 6) -> np.ndarray:
    a = math.radians(angle_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    g = np.array([(x, y) for x in np.linspace(-w / 2, w / 2, n) for y in np.linspace(-h / 2, h / 2, n)])
    return np.asarray(centre, dtype=np.float64) + g @ rot.T


def _hidden(game: str, stage: Stage, canvas, truth: dict) -> dict:
    if game == "stixx":
        board = truth["board"]
        pose = BoardPose(tuple(board["center_mm"]), board["rotation"], sim_stixx.L_MM)
        grooves = []
        for slot in range(42):
            c = np.asarray(pose.slot_centre(slot))
            a = pose.stick_angle(slot)
            grooves.append(_covered(stage, canvas, _rect(c, 0.85 * sim_stixx.L_MM, 14.0, a)))
        angles = truth["scene"]["stick_angles_deg"]
        sticks = [_covered(stage, canvas, _rect(s["center_mm"], 0.85 * sim_stixx.L_MM, 8.0, a))
                  for s, a in zip(truth["sticks"], angles)]
        return {"grooves": grooves, "sticks": sticks}
    hexes = [_covered(stage, canvas, _disc(h["center_mm"], sim_enix.APOTHEM_MM, 9)) for h in truth["hexes"]]
    pawns = [_covered(stage, canvas, _disc(p["center_mm"], sim_enix.PAWN_MM / 2)) for p in truth["pawns"]]
    cap = [_covered(stage, canvas, _disc(truth["cap"]["center_mm"], sim_enix.CAP_MM / 2))] if truth["cap"] else []
    angles = truth["scene"]["card_angles_deg"]
    cards = [_covered(stage, canvas, _rect(k["center_mm"], *sim_enix.CARD_MM, a)) for k, a in zip(truth["cards"], angles)]
    return {"hexes": hexes, "pawns": pawns, "cap": cap, "cards": cards}


# --- a disk cache for the bench ------------------------------------------------------------------
def cached_scene(game: str, seed: int, directory: Path, resolution: tuple[int, int] = (2028, 1520)) -> Scene:
    """render_scene, kept on disk (PNG is lossless, so the detector sees the very same pixels)."""
    directory = Path(directory) / f"{game}_{resolution[0]}x{resolution[1]}"
    png, meta, cover = directory / f"{seed}.png", directory / f"{seed}.json", directory / f"{seed}_hand.png"
    if png.exists() and meta.exists():
        image = cv2.imread(str(png), cv2.IMREAD_COLOR)
        data = json.loads(meta.read_text())
        hand = cv2.imread(str(cover), cv2.IMREAD_GRAYSCALE) if cover.exists() else None
        if image is not None and (hand is not None or not data["truth"].get("hand")):
            return Scene(game, seed, image, data["truth"], CameraProfile.from_dict(data["profile"]), data["hidden"],
                         hand)
    scene = render_scene(game, seed, resolution)
    directory.mkdir(parents=True, exist_ok=True)
    # Written under a temporary name and renamed: two bench processes rendering the same seed
    # must never read each other's half-written PNG ("libpng error: Read Error").
    _write_atomically(png, lambda tmp: cv2.imwrite(str(tmp), scene.image, [cv2.IMWRITE_PNG_COMPRESSION, 1]))
    if scene.cover is not None:
        _write_atomically(cover, lambda tmp: cv2.imwrite(str(tmp), scene.cover))
    _write_atomically(meta, lambda tmp: tmp.write_text(json.dumps(
        {"truth": scene.truth, "profile": scene.profile.to_dict(), "hidden": scene.hidden})))
    return scene


def _write_atomically(path: Path, write) -> None:
    import os

    tmp = path.with_name(f".{path.stem}.{os.getpid()}{path.suffix}")  # same suffix: cv2 picks the format by it
    write(tmp)
    os.replace(tmp, path)


# --- Stixx truth in the frame of its reported rotation ---------------------------------------------
def canonical_stixx(truth: dict) -> dict:
    """The truth with slots numbered in the frame of the board's reported rotation.

    The simulator's truth is in that frame already (games/stixx.md: the board looks the same every
    60 degrees, so a camera can only number grooves in the frame of the reported rotation; its
    scene's `board_angle_deg` is then the reported rotation and nothing turns). Renders cached
    by older simulators numbered slots in the frame of the full angle (0-360, the scene's
    `board_angle_deg`): turning each slot by the whole steps of 60 degrees between the two gives
    the numbers a perfect detector prints.
    """
    board = truth.get("board")
    if not board:
        return truth
    full = truth["scene"]["board_angle_deg"]
    steps = int(round((full - board["rotation"]) / 60.0)) % 6
    sticks = [dict(s, slot=None if s["slot"] is None else rotate_slot(s["slot"], steps)) for s in truth["sticks"]]
    return dict(truth, sticks=sticks)


# --- judging ------------------------------------------------------------------------------------
def _match(truth_pts, found_pts, max_dist: float) -> dict[int, int]:
    """Truth index -> found index, nearest pairs first, each used once, within max_dist."""
    if not len(truth_pts) or not len(found_pts):
        return {}
    a = np.asarray(truth_pts, dtype=np.float64).reshape(-1, 2)
    b = np.asarray(found_pts, dtype=np.float64).reshape(-1, 2)
    d = np.hypot(a[:, None, 0] - b[None, :, 0], a[:, None, 1] - b[None, :, 1])
    out: dict[int, int] = {}
    used = set()
    for flat in np.argsort(d, axis=None):
        i, j = np.unravel_index(flat, d.shape)
        if d[i, j] > max_dist:
            break
        if i in out or j in used:
            continue
        out[int(i)] = int(j)
        used.add(int(j))
    return out


@dataclass
class StixxScore:
    """Slots: every groove of every board (42 each): RIGHT, WRONG (a colour or stick that is not
    there), NULL (reported unread). Grooves under a hand may be NULL; anywhere else NULL is a miss."""

    images: int = 0
    boards_found: int = 0
    boards_right: int = 0  # pose right, every groove right (or null under a hand), nothing wrong
    slots: int = 0
    slots_right: int = 0
    slots_wrong: int = 0
    slots_null_hidden: int = 0  # unread under a hand: honest
    slots_null_visible: int = 0  # unread although visible: a miss
    loose: int = 0  # sticks beside the board the camera can see
    loose_right: int = 0
    loose_invented: int = 0
    centre_errors: list = field(default_factory=list)
    rotation_errors: list = field(default_factory=list)
    failures: list = field(default_factory=list)

    def add(self, other: "StixxScore") -> None:
        for f in self.__dataclass_fields__:
            v = getattr(other, f)
            if isinstance(v, list):
                getattr(self, f).extend(v)
            else:
                setattr(self, f, getattr(self, f) + v)

    def rates(self) -> dict:
        return {"slots_right_pct": 100.0 * self.slots_right / max(self.slots, 1),
                "slots_wrong_pct": 100.0 * self.slots_wrong / max(self.slots, 1),
                "boards_right_pct": 100.0 * self.boards_right / max(self.images, 1),
                "loose_right_pct": 100.0 * self.loose_right / max(self.loose, 1)}


def groove_hidden(scene: Scene) -> list[float]:
    """Per slot (frame of the reported rotation): how much of its stick, or of the board just beside
    it, a hand hides. A groove is read from both (the board either side says nothing lies over
    it), so a hand over the triangle next to a groove hides that groove too."""
    if scene.cover is None:
        return list(scene.hidden.get("grooves") or [0.0] * 42)
    board = scene.truth["board"]
    pose = BoardPose(tuple(board["center_mm"]), board["rotation"], sim_stixx.L_MM)
    out = []
    for slot in range(42):
        c = np.asarray(pose.slot_centre(slot))
        a = pose.stick_angle(slot)
        stick = _rect(c, 0.85 * sim_stixx.L_MM, 8.0, a)
        beside = _rect(c, 20.0, 2 * 17.0, a)  # the side samples lie 14 mm out, +-8 mm along
        out.append(float(np.mean(np.concatenate([scene.covered(stick), scene.covered(beside)]))))
    return out


def score_stixx(observation: dict, scene: Scene) -> StixxScore:
    truth = canonical_stixx(scene.truth)
    s = StixxScore(images=1)
    board, found = truth["board"], observation.get("board")
    hidden = groove_hidden(scene)
    want = {st["slot"]: st["colour"] for st in truth["sticks"] if st["slot"] is not None}
    pose_ok = False
    steps = 0
    if found is not None:
        s.boards_found = 1
        err = math.dist(found["center_mm"], board["center_mm"])
        steps, unwrapped = steps_between(board["rotation"], found["rotation"])
        rot_err = abs(unwrapped - board["rotation"])
        s.centre_errors.append(err)
        s.rotation_errors.append(rot_err)
        pose_ok = err <= BOARD_CENTRE_MM and rot_err <= BOARD_ROTATION_DEG
    got: dict[int, str | None] = {}
    for st in observation.get("sticks", []):
        if st.get("slot") is not None:
            got[rotate_slot(st["slot"], -steps)] = st["colour"]
    ok = pose_ok
    for slot in range(42):
        s.slots += 1
        true_c = want.get(slot)
        if slot in got and got[slot] is None:
            if hidden[slot] > HIDDEN:
                s.slots_null_hidden += 1
            else:
                s.slots_null_visible += 1
                ok = False
                s.failures.append((scene.seed, slot, true_c, "null"))
            continue
        read = got.get(slot)
        if read == true_c:
            s.slots_right += 1
        else:
            s.slots_wrong += 1
            ok = False
            s.failures.append((scene.seed, slot, true_c, read))
    s.boards_right = int(ok)
    # Sticks beside the board.
    loose_truth = [(k, st) for k, st in enumerate(truth["sticks"]) if st["slot"] is None]
    loose_found = [st for st in observation.get("sticks", []) if st.get("slot") is None]
    pairs = _match([st["center_mm"] for _, st in loose_truth], [st["center_mm"] for st in loose_found], STICK_MATCH_MM)
    hidden_sticks = scene.hidden.get("sticks") or [0.0] * len(truth["sticks"])
    if scene.cover is not None:
        angles = truth["scene"]["stick_angles_deg"]
        hidden_sticks = [float(scene.covered(_rect(st["center_mm"], 0.85 * sim_stixx.L_MM, 8.0, a)).mean())
                         for st, a in zip(truth["sticks"], angles)]
    for i, (k, st) in enumerate(loose_truth):
        if hidden_sticks[k] > HIDDEN or not scene.truth["pixels"]["sticks"][k]["in_view"]:
            continue
        s.loose += 1
        j = pairs.get(i)
        if j is not None and loose_found[j]["colour"] == st["colour"]:
            s.loose_right += 1
    s.loose_invented = len(loose_found) - len(pairs)
    return s


@dataclass
class EnixScore:
    images: int = 0
    layouts: int = 0
    layouts_right: int = 0  # six hexes: energy, place and rotation right (null allowed under a hand)
    hexes: int = 0
    hexes_right: int = 0
    hexes_wrong_rotation: int = 0
    hexes_null_rotation: int = 0
    hexes_missed: int = 0
    hexes_invented: int = 0
    pawns: int = 0  # pawns the camera can see
    pawns_right: int = 0
    pawns_wrong_colour: int = 0  # found and named another colour (a real colour name: never acceptable)
    pawns_null_colour: int = 0  # found, colour null (not named: neither right nor wrong)
    pawns_missed: int = 0
    pawns_invented: int = 0
    caps: int = 0
    caps_right: int = 0
    caps_invented: int = 0
    cards: int = 0  # cards the camera can see
    cards_found: int = 0
    card_colours_right: int = 0  # face up/down right and, face up, the energy (or enix) right
    card_colours_wrong: int = 0
    values: int = 0  # face-up energy cards the camera can see
    values_right: int = 0
    values_null: int = 0
    values_wrong: int = 0
    values_card_missed: int = 0  # of values_null: the card itself was not found (its value never read)
    cards_invented: int = 0
    hex_centre_errors: list = field(default_factory=list)
    failures: list = field(default_factory=list)

    def add(self, other: "EnixScore") -> None:
        for f in self.__dataclass_fields__:
            v = getattr(other, f)
            if isinstance(v, list):
                getattr(self, f).extend(v)
            else:
                setattr(self, f, getattr(self, f) + v)

    def rates(self) -> dict:
        return {"layouts_right_pct": 100.0 * self.layouts_right / max(self.layouts, 1),
                "pawns_right_pct": 100.0 * self.pawns_right / max(self.pawns, 1),
                "card_colours_right_pct": 100.0 * self.card_colours_right / max(self.cards, 1),
                "card_values_right_pct": 100.0 * self.values_right / max(self.values, 1),
                "card_values_wrong_pct": 100.0 * self.values_wrong / max(self.values, 1),
                "caps_right_pct": 100.0 * self.caps_right / max(self.caps, 1)}


def hex_symmetry_deg(energy: str, rays=None) -> int:
    """The smallest turn (degrees) that maps the tile's ray pattern onto itself (360: none)."""
    row = tuple((rays or sim_enix.RAYS)[energy])
    for k in range(1, 6):
        if row[k:] + row[:k] == row:
            return 60 * k
    return 360


def rotation_error(a: float, b: float, period: float) -> float:
    d = (a - b) % period
    return min(d, period - d)


def score_enix(observation: dict, scene: Scene) -> EnixScore:
    truth = scene.truth
    s = EnixScore(images=1, layouts=1)
    hidden = scene.hidden
    hx_hidden = hidden.get("hexes") or [0.0] * len(truth["hexes"])
    by_energy = {h["energy"]: h for h in observation.get("hexes", []) if h.get("energy")}
    layout_ok = True
    for k, h in enumerate(truth["hexes"]):
        s.hexes += 1
        got = by_energy.get(h["energy"])
        under = hx_hidden[k] > HIDDEN
        if got is None or math.dist(got["center_mm"], h["center_mm"]) > HEX_MATCH_MM:
            if not under:
                s.hexes_missed += 1
                layout_ok = False
                s.failures.append((scene.seed, "hex missed", h["energy"]))
            continue
        err = math.dist(got["center_mm"], h["center_mm"])
        s.hex_centre_errors.append(err)
        if got.get("rotation") is None:
            s.hexes_null_rotation += 1
            if not under:
                layout_ok = False
                s.failures.append((scene.seed, "rotation null", h["energy"]))
            continue
        rot_err = rotation_error(got["rotation"], h["rotation"], hex_symmetry_deg(h["energy"]))
        if rot_err > HEX_ROTATION_DEG or err > HEX_CENTRE_MM:
            s.hexes_wrong_rotation += rot_err > HEX_ROTATION_DEG
            layout_ok = False
            s.failures.append((scene.seed, "hex off", h["energy"], round(err, 1), round(rot_err, 1)))
            continue
        s.hexes_right += 1
    invented = [h for h in observation.get("hexes", []) if h.get("energy") not in {t["energy"] for t in truth["hexes"]}]
    s.hexes_invented = len(invented)
    layout_ok = layout_ok and not invented
    s.layouts_right = int(layout_ok)

    pawn_hidden = hidden.get("pawns") or [0.0] * len(truth["pawns"])
    found = observation.get("pawns", [])
    pairs = _match([p["center_mm"] for p in truth["pawns"]], [p["center_mm"] for p in found], PAWN_MATCH_MM)
    for k, p in enumerate(truth["pawns"]):
        if pawn_hidden[k] > HIDDEN:
            continue
        s.pawns += 1
        j = pairs.get(k)
        if j is None:
            s.pawns_missed += 1
            s.failures.append((scene.seed, "pawn missed", p["colour"]))
        elif found[j]["colour"] == p["colour"]:
            s.pawns_right += 1
        elif found[j]["colour"] is None:  # unsure, said so: not right, not wrong
            s.pawns_null_colour += 1
            s.failures.append((scene.seed, "pawn colour null", p["colour"]))
        else:
            s.pawns_wrong_colour += 1
            s.failures.append((scene.seed, "pawn colour", p["colour"], found[j]["colour"]))
    s.pawns_invented = len(found) - len(pairs)
    if s.pawns_invented:
        s.failures.append((scene.seed, "pawns invented", s.pawns_invented))

    cap, got_cap = truth.get("cap"), observation.get("cap")
    if cap is not None and not (hidden.get("cap") or [0.0])[0] > HIDDEN:
        s.caps = 1
        s.caps_right = int(got_cap is not None and math.dist(got_cap["center_mm"], cap["center_mm"]) <= CAP_MATCH_MM)
    s.caps_invented = int(cap is None and got_cap is not None)

    card_hidden = hidden.get("cards") or [0.0] * len(truth["cards"])
    found = observation.get("cards", [])
    pairs = _match([c["center_mm"] for c in truth["cards"]], [c["center_mm"] for c in found], CARD_MATCH_MM)
    for k, c in enumerate(truth["cards"]):
        if card_hidden[k] > HIDDEN:
            continue
        s.cards += 1
        j = pairs.get(k)
        got = found[j] if j is not None else None
        if got is not None:
            s.cards_found += 1
        if got is not None and got["face_up"] == c["face_up"] and (not c["face_up"] or got["energy"] == c["energy"]):
            s.card_colours_right += 1
        elif got is not None and got.get("energy") is not None:
            s.card_colours_wrong += 1
            s.failures.append((scene.seed, "card", c["energy"], c["face_up"], got["energy"], got["face_up"]))
        else:
            s.failures.append((scene.seed, "card missed", c["energy"], c["face_up"]))
        if c["face_up"] and c["energy"] != "enix":
            s.values += 1
            if got is None or got.get("value") is None:
                s.values_null += 1
                s.values_card_missed += got is None
            elif got["value"] == c["value"]:
                s.values_right += 1
            else:
                s.values_wrong += 1
                s.failures.append((scene.seed, "value", c["value"], got["value"]))
    s.cards_invented = len(found) - len(pairs)
    return s


def game_frames(game: str, seed: int, resolution: tuple[int, int] = (1014, 760),
                geometry: TableGeometry = TableGeometry()):
    """One frame per state of a whole game, as `tablecam.simulator.sequence(game, seed)` shows each
    stable state (same camera, light and table for the game; the hand frames between states are
    not drawn, which is most of a sequence's cost). Yields (image, truth)."""
    from tablecam.simulator.scene import game_module

    rng = np.random.default_rng([seed, GAMES.index(game), 7])
    camera = CameraModel.default(resolution, geometry)
    nuisances = replace(Nuisances.random(rng), hand=False)
    stage = Stage.build(camera, nuisances, geometry, rng)
    for frame_id, obs in enumerate(game_module(game).game_states(seed, geometry)):
        try:
            _, part, points, scene = check(obs, geometry)
        except UserError:
            continue  # a state the simulator refuses to draw
        canvas = stage.paint(game, part, scene)
        image = stage.expose(stage.develop(canvas), rng)
        truth = make_truth(game, part, points, scene, stage, canvas, None, frame_id)
        yield image, truth


def canonical_enix(truths: list[dict]) -> list[dict]:
    """The Observations of a sequence of ENIX truths with each symmetric tile's rotation written as a
    camera can know it: a tile whose rays repeat under a turn (solar's every half turn) looks the
    same either way, so the first reading takes the smallest equivalent rotation and each later one
    the equivalent nearest the reading before (as `tablecam.vision.enix` does with its state)."""
    keys = ("game", "frame_id", "table_mm", "hexes", "pawns", "cap", "cards")
    last: dict[str, float] = {}
    out = []
    for truth in truths:
        obs = {k: truth[k] for k in keys if k in truth}
        hexes = []
        for h in truth["hexes"]:
            period = hex_symmetry_deg(h["energy"])
            options = sorted((h["rotation"] + period * k) % 360.0 for k in range(360 // period))
            before = last.get(h["energy"])
            rotation = options[0] if before is None else min(options, key=lambda r: rotation_error(r, before, 360.0))
            last[h["energy"]] = rotation
            hexes.append(dict(h, rotation=rotation))
        obs["hexes"] = hexes
        out.append(obs)
    return out
