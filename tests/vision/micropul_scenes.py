"""Rendered micropul scenes with what the detector is judged on, and the judging itself.

Shared by tests/vision and bench/micropul_detect.py (which puts this folder on sys.path).

A scene is a simulator render plus two things its truth JSON does not carry:
- the camera's lens profile, as `tablecam calibrate lens` would measure it for that camera
  (a mounted tablecam is calibrated once; without it a wide lens bends the table by up to 20 mm);
- how much of each tile and each quadrant a hand hides (read from the simulator's cover mask).

`render_scene(seed)` draws the same picture as `tablecam.simulator.render_random("micropul", seed)`
(same random stream, step by step), keeping the canvas to read the cover mask.
`scene_batch(seed, n)` renders n states under ONE camera, light and table, which is much cheaper
(building the table top is most of a render's time): tests use it to stay fast.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tablecam.calibration.geometry import TableGeometry
from tablecam.calibration.lens import CameraProfile
from tablecam.rules.micropul.tiles import Face, face_from_observation, identify
from tablecam.simulator.camera import CameraModel
from tablecam.simulator.nuisances import Nuisances
from tablecam.simulator.props import random_hand
from tablecam.simulator.render import check, make_truth, random_state
from tablecam.simulator.scene import GAMES, PIECE_LISTS, Stage

GAME = "micropul"
QUADRANT_SIGNS = {"ul": (-1, -1), "ur": (1, -1), "ll": (-1, 1), "lr": (1, 1)}
MATCH_TILE_FRACTION = 0.3  # a detected tile further than this (of a side) from a true one is another tile
STONE_MATCH_MM = 6.0
HIDDEN_TILE = 0.01  # a tile with more than this fraction under a hand may be reported unknown


@dataclass(frozen=True, eq=False)
class Scene:
    seed: int
    image: np.ndarray
    truth: dict
    profile: CameraProfile
    tile_hidden: tuple[float, ...]  # per truth tile: fraction of its area under a hand
    quadrant_hidden: tuple[dict, ...]  # per truth tile: {quadrant: fraction under a hand}


def camera_profile(camera: CameraModel) -> CameraProfile:
    """The lens profile of a simulated camera (what a lens calibration of it would give)."""
    K = camera.K
    return CameraProfile(tuple(tuple(float(v) for v in row) for row in K), tuple(float(v) for v in camera.dist),
                         camera.resolution, 0.1, "simulator truth", 0, "")


def profile_from_truth(truth: dict) -> CameraProfile:
    """The lens profile of the camera a render's truth describes."""
    cam = truth["camera"]
    return CameraProfile(tuple(tuple(float(v) for v in row) for row in cam["K"]), tuple(float(v) for v in cam["dist"]),
                         tuple(int(v) for v in cam["resolution"]), 0.1, "simulator truth", 0, "")


def render_scene(seed: int, resolution: tuple[int, int] = (2028, 1520), geometry: TableGeometry = TableGeometry(),
                 nuisances: bool = True) -> Scene:
    """One scene, exactly as render_random("micropul", seed, resolution) draws it."""
    rng = np.random.default_rng([seed, GAMES.index(GAME)])
    state = random_state(GAME, rng, geometry)
    camera = CameraModel.random(rng, resolution, geometry) if nuisances else CameraModel.default(resolution, geometry)
    noise = Nuisances.random(rng) if nuisances else Nuisances.none()
    return _shoot(state, camera, noise, seed, geometry)


def scene_batch(seed: int, count: int, resolution: tuple[int, int] = (2028, 1520), hand_every: int = 4,
                geometry: TableGeometry = TableGeometry()) -> list[Scene]:
    """`count` random states under one random camera, light and table (built once); every
    `hand_every`-th shot has a hand over the board."""
    rng = np.random.default_rng([seed, GAMES.index(GAME), 99])
    camera = CameraModel.random(rng, resolution, geometry)
    noise = Nuisances.random(rng, hand=False)
    stage = Stage.build(camera, noise, geometry, rng)
    out = []
    for k in range(count):
        state = random_state(GAME, rng, geometry)
        hand = hand_every > 0 and k % hand_every == hand_every - 1
        out.append(_shoot_on(stage, state, seed * 1000 + k, rng, hand))
    return out


def render_state(state: dict, camera: CameraModel | None = None, nuisances: Nuisances | None = None, seed: int = 0,
                 geometry: TableGeometry = TableGeometry()) -> Scene:
    """A chosen state (an Observation with its "scene"), as tablecam.simulator.render draws it."""
    return _shoot(state, camera or CameraModel.default(geometry=geometry), nuisances or Nuisances.none(), seed,
                  geometry)


def cached(cache_dir, key: str, make):
    """`make()` once, then from a pickle in `cache_dir` (None: no cache); `key` names the file."""
    import pickle
    from pathlib import Path

    if cache_dir is None:
        return make()
    path = Path(cache_dir) / f"{key}.pkl"
    if path.exists():
        with path.open("rb") as fh:
            return pickle.load(fh)
    value = make()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with tmp.open("wb") as fh:
        pickle.dump(value, fh)
    tmp.replace(path)
    return value


OTHER_GAMES = ("enix", "stixx", "enigmo")  # simulator modules that draw nothing of a micropul scene


def simulator_version() -> str:
    """A short hash of the sources that draw a micropul scene (the simulator but for the other games'
    modules, and the micropul rules): cached renders are remade when they change."""
    import hashlib
    from pathlib import Path

    import tablecam.rules.micropul as rules
    import tablecam.simulator as sim

    h = hashlib.sha1()
    for folder in (Path(sim.__file__).parent, Path(rules.__file__).parent):
        for f in sorted(folder.rglob("*.py")):
            if folder == Path(sim.__file__).parent and f.stem.startswith(OTHER_GAMES):
                continue
            h.update(f.read_bytes())
    return h.hexdigest()[:12]


def _shoot(state: dict, camera: CameraModel, noise: Nuisances, seed: int, geometry: TableGeometry) -> Scene:
    # The steps of tablecam.simulator.render.render, in the same order on the same random stream.
    rng = np.random.default_rng(seed)
    stage = Stage.build(camera, noise, geometry, rng)
    return _shoot_on(stage, state, seed, rng, noise.hand)


def _shoot_on(stage: Stage, state: dict, seed: int, rng: np.random.Generator, with_hand: bool) -> Scene:
    geometry = stage.geometry
    game, part, points, scene = check(state, geometry)
    canvas = stage.paint(game, part, scene)
    hand = None
    if with_hand:
        hand = random_hand(rng, _hand_target(rng, points, geometry), geometry)
        stage.add_hand(canvas, hand)
    image = stage.expose(stage.develop(canvas), rng)
    truth = make_truth(game, part, points, scene, stage, canvas, hand, frame_id=0)
    truth["seed"] = int(seed)
    tile_hidden, quadrant_hidden = _hidden(stage, canvas, truth)
    return Scene(seed, image, truth, camera_profile(stage.camera), tile_hidden, quadrant_hidden)


def _hand_target(rng: np.random.Generator, points: dict, geometry: TableGeometry) -> tuple[float, float]:
    # As tablecam.simulator.render._hand_target: hands reach for a piece.
    pool = [p for key in PIECE_LISTS for p in points.get(key, [])]
    if not pool:
        return geometry.width_mm / 2, geometry.height_mm / 2
    x, y = pool[int(rng.integers(len(pool)))]
    return float(x + rng.normal(0, 15)), float(y + rng.normal(0, 15))


def _hidden(stage: Stage, canvas, truth: dict) -> tuple[tuple[float, ...], tuple[dict, ...]]:
    s = truth["tile_mm"]
    angle = truth["scene"]["board_angle_deg"]
    a = math.radians(angle)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    n = 8  # samples per quadrant side
    offsets = (np.arange(n) + 0.5) / n * (s / 2)  # within a quadrant, from the tile centre outwards
    tiles, quads = [], []
    for t in truth["tiles"]:
        c = np.asarray(t["center_mm"])
        per_q = {}
        for q, (sx, sy) in QUADRANT_SIGNS.items():
            local = np.array([(sx * u, sy * v) for u in offsets for v in offsets])
            pts = c + local @ rot.T
            per_q[q] = float(stage.covered_px(canvas, pts).mean())
        quads.append(per_q)
        tiles.append(float(np.mean(list(per_q.values()))))
    return tuple(tiles), tuple(quads)


# --- judging a detector's Observation against the truth ---------------------------------------------
@dataclass(frozen=True)
class Score:
    quadrants: int = 0  # quadrants of the tiles that can be read (no hand over them, no stone hiding their face)
    quadrants_right: int = 0
    boards: int = 0
    boards_right: int = 0  # every visible tile right, tiles under a hand/stone right or unknown, nothing invented
    boards_strict: int = 0  # every tile of the truth reported with its exact face, nothing invented
    tiles: int = 0
    tiles_wrong: int = 0  # reported with a face that is not the tile's: the errors users see
    tiles_unknown: int = 0  # reported unknown (null) or missed although fully visible
    tiles_invented: int = 0
    stones: int = 0  # stones the camera can see
    stones_right: int = 0  # found at their place with the right colour
    stones_invented: int = 0
    centre_error_mm: tuple[float, ...] = ()

    def __add__(self, other: "Score") -> "Score":
        return Score(*(a + b for a, b in zip(_values(self), _values(other))))

    def rates(self) -> dict:
        return {
            "quadrants_right_pct": 100.0 * self.quadrants_right / max(self.quadrants, 1),
            "boards_right_pct": 100.0 * self.boards_right / max(self.boards, 1),
            "boards_strict_pct": 100.0 * self.boards_strict / max(self.boards, 1),
            "stones_right_pct": 100.0 * self.stones_right / max(self.stones, 1),
        }


def _values(score: Score) -> list:
    return [getattr(score, f) for f in Score.__dataclass_fields__]


def _face(tile: dict) -> Face | None:
    return face_from_observation(tile)


def hidden_by_stones(truth: dict) -> list[set[str]]:
    """Per truth tile, the quadrants a stone lies on."""
    s = truth["tile_mm"]
    a = math.radians(truth["scene"]["board_angle_deg"])
    out: list[set[str]] = [set() for _ in truth["tiles"]]
    centres = np.array([t["center_mm"] for t in truth["tiles"]]).reshape(-1, 2)
    for stone in truth["stones"]:
        if len(centres) == 0:
            break
        p = np.asarray(stone["center_mm"])
        d = np.hypot(*(centres - p).T)
        k = int(np.argmin(d))
        if d[k] > 0.75 * s:
            continue
        dx, dy = p - centres[k]
        u = dx * math.cos(a) + dy * math.sin(a)
        v = -dx * math.sin(a) + dy * math.cos(a)
        out[k].add(("u" if v < 0 else "l") + ("l" if u < 0 else "r"))
    return out


def readable_under_stones(truth: dict, unseen: frozenset[int] = frozenset()) -> list[bool]:
    """Per truth tile: can its face be known from this one photo? Not when a stone hides a quadrant
    and more than one real tile fits the rest, once the tiles that can be read elsewhere on the
    board are set aside (one copy of each tile), repeatedly. 'Unknown' is then the honest answer.
    `unseen`: tiles the photo does not show (under a hand): they set nothing aside."""
    stones = hidden_by_stones(truth)
    faces = [_face(t) for t in truth["tiles"]]
    used: set[int] = set()
    open_tiles: dict[int, list[Face]] = {}
    for k, (face, hidden) in enumerate(zip(faces, stones)):
        if face is None or k in unseen:
            continue
        if face.big or not hidden:
            ids = {i for i, _ in identify(face)}
            if len(ids) == 1:
                used |= ids
            continue
        visible = {q: face.quadrant(q) for q in ("ul", "ur", "ll", "lr") if q not in hidden}
        candidates = set()
        for combo in _fill(hidden):
            quads = dict(visible, **combo)
            f = Face(quads["ul"], quads["ur"], quads["lr"], quads["ll"])
            if identify(f):
                candidates.add(f)
        open_tiles[k] = sorted(candidates, key=repr)
    readable = [True] * len(faces)
    changed = True
    while changed:
        changed = False
        for k, candidates in list(open_tiles.items()):
            possible = [f for f in candidates if not {i for i, _ in identify(f)} <= used]
            if len(possible) == 1:
                ids = {i for i, _ in identify(possible[0])}
                if len(ids) == 1:
                    used |= ids
                del open_tiles[k]
                changed = True
            else:
                open_tiles[k] = possible
    for k in open_tiles:
        readable[k] = False
    return readable


def _fill(hidden: set[str]):
    names = sorted(hidden)
    symbols = "WB12+."
    for values in np.ndindex(*(len(symbols),) * len(names)):
        yield {q: symbols[i] for q, i in zip(names, values)}


def score(observation: dict, scene: Scene) -> Score:
    truth = scene.truth
    s = truth["tile_mm"]
    true_tiles = truth["tiles"]
    found = [t for t in observation["tiles"] if not t.get("face_down")]
    pairs = _match([t["center_mm"] for t in true_tiles], [t["center_mm"] for t in found], MATCH_TILE_FRACTION * s)
    stones_on = hidden_by_stones(truth)
    readable = readable_under_stones(truth, frozenset(k for k, h in enumerate(scene.tile_hidden) if h > HIDDEN_TILE))
    quadrants = quadrants_right = tiles_wrong = tiles_unknown = 0
    board_ok = strict_ok = True
    errors = []
    for k, t in enumerate(true_tiles):
        truth_face = _face(t)
        j = pairs.get(k)
        got = found[j] if j is not None else None
        got_face = _face(got) if got is not None else None
        if got is not None:
            errors.append(float(np.hypot(*(np.subtract(got["center_mm"], t["center_mm"])))))
        under_hand = scene.tile_hidden[k] > HIDDEN_TILE
        excused = under_hand or not readable[k]
        if got_face is not None and got_face != truth_face:
            tiles_wrong += 1
            board_ok = False
        elif got_face is None:
            if not excused:
                tiles_unknown += 1
                board_ok = False
        if got_face != truth_face:
            strict_ok = False
        if not excused:
            for q in ("ul", "ur", "ll", "lr"):
                if q in stones_on[k] and not truth_face.big:
                    continue
                quadrants += 1
                if got_face is not None and got_face.quadrant(q) == truth_face.quadrant(q) \
                        and got_face.big == truth_face.big and got_face.catalyst == truth_face.catalyst:
                    quadrants_right += 1
    invented = len(found) - len(pairs)
    if invented:
        board_ok = strict_ok = False
    stones = stones_right = 0
    stone_pairs = _match([st["center_mm"] for st in truth["stones"]],
                         [st["center_mm"] for st in observation["stones"]], STONE_MATCH_MM)
    for k, st in enumerate(truth["stones"]):
        if truth["pixels"]["stones"][k]["hidden"]:
            continue
        stones += 1
        j = stone_pairs.get(k)
        if j is not None and observation["stones"][j]["colour"] == st["colour"]:
            stones_right += 1
    stones_invented = len(observation["stones"]) - len(stone_pairs)
    return Score(quadrants, quadrants_right, 1, int(board_ok), int(strict_ok), len(true_tiles), tiles_wrong,
                 tiles_unknown, invented, stones, stones_right, stones_invented, tuple(errors))


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




def scene_cache(request, tmp_path_factory):
    """Where renders are kept between runs: pytest's cache, or a temporary folder without it."""
    cache = getattr(request.config, "cache", None)
    name = f"micropul_scenes_{simulator_version()}"
    return cache.mkdir(name) if cache is not None else tmp_path_factory.mktemp(name)
