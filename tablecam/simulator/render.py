"""`render(observation)`: one photo of a game state and the truth a perfect detector would print."""

from __future__ import annotations

import numpy as np

from tablecam.calibration.geometry import MARKER_IDS, TableGeometry
from tablecam.errors import UserError

from .camera import CameraModel
from .canvas import Canvas
from .nuisances import Nuisances
from .props import HandPose, random_hand
from .scene import GAMES, PIECE_LISTS, Render, Stage, game_module


def render(observation: dict, camera: CameraModel | None = None, nuisances: Nuisances | None = None,
           seed: int = 0, geometry: TableGeometry = TableGeometry()) -> Render:
    """A photo of `observation` (the state as an Observation dict, optionally with a "scene").

    camera None: `CameraModel.default()`; nuisances None: `Nuisances.none()` (a clean shot).
    `seed` drives everything random in the picture (table grain, objects, hand, noise), so the
    same arguments give the same image and byte-identical truth.
    """
    game, part, points, scene = check(observation, geometry)
    camera = camera or CameraModel.default(geometry=geometry)
    nuisances = nuisances or Nuisances.none()
    rng = np.random.default_rng(seed)
    stage = Stage.build(camera, nuisances, geometry, rng)
    canvas = stage.paint(game, part, scene)
    hand = None
    if nuisances.hand:
        hand = random_hand(rng, _hand_target(rng, points, geometry), geometry)
        stage.add_hand(canvas, hand)
    image = stage.expose(stage.develop(canvas), rng)
    truth = make_truth(game, part, points, scene, stage, canvas, hand, frame_id=0)
    truth["seed"] = int(seed)
    return Render(image, truth)


def check(observation: dict, geometry: TableGeometry) -> tuple[str, dict, dict, dict]:
    """(game, Observation part, piece points in mm, scene) or a UserError sentence."""
    if not isinstance(observation, dict):
        raise UserError("a game state must be a JSON object (an Observation).")
    game = observation.get("game")
    module = game_module(game)
    part, points, scene = module.truth(observation, geometry)
    return game, part, points, scene


def random_state(game: str, rng: np.random.Generator, geometry: TableGeometry = TableGeometry()) -> dict:
    """A plausible state of `game` as an Observation dict with its "scene" (layout and artwork)."""
    return game_module(game).random_state(rng, geometry)


def render_random(game: str, seed: int, resolution: tuple[int, int] = (2028, 1520), nuisances: bool = True,
                  geometry: TableGeometry = TableGeometry()) -> Render:
    """Everything from one seed: a random state, a random mount and (unless told not to) random nuisances."""
    if game not in GAMES:
        game_module(game)  # raises the one-sentence error
    rng = np.random.default_rng([seed, GAMES.index(game)])
    state = random_state(game, rng, geometry)
    camera = CameraModel.random(rng, resolution, geometry) if nuisances else CameraModel.default(resolution, geometry)
    noise = Nuisances.random(rng) if nuisances else Nuisances.none()
    return render(state, camera, noise, seed=seed, geometry=geometry)


def make_truth(game: str, part: dict, points: dict, scene: dict, stage: Stage, canvas: Canvas,
               hand: HandPose | None, frame_id: int) -> dict:
    camera, geometry = stage.camera, stage.geometry
    warnings: list[str] = []
    marker_px = {}
    seen = 0
    for mid in MARKER_IDS:
        corners = np.array(geometry.marker_corners(mid), dtype=np.float64)
        px = camera.project(corners)
        marker_px[str(mid)] = _r(px.tolist(), 2)
        samples = np.vstack([corners, [geometry.marker_centre(mid)]])
        hidden = stage.covered_px(canvas, samples).any()
        if camera.in_view(px, margin=2).all() and not hidden:
            seen += 1
        elif hidden:
            warnings.append(f"marker {mid} is hidden by a hand")
        else:
            warnings.append(f"marker {mid} is outside the camera's view")
    pixels: dict = {"markers": marker_px}
    hidden_count = 0
    outside_count = 0
    for key in PIECE_LISTS:
        if key not in points:
            continue
        mm = np.asarray(points[key], dtype=np.float64).reshape(-1, 2)
        if len(mm) == 0:
            pixels[key] = []
            continue
        px = camera.project(mm)
        in_view = camera.in_view(px)
        covered = stage.covered_px(canvas, mm)
        hidden_count += int(covered.sum())
        outside_count += int((~in_view).sum())
        pixels[key] = [{"center_px": _r(p.tolist(), 2), "in_view": bool(v), "hidden": bool(c)}
                       for p, v, c in zip(px, in_view, covered)]
    for key, value in points.items():  # extra truth points (e.g. Enigmo's shutter row corners)
        if key not in PIECE_LISTS:
            pixels[key] = _r(camera.project(np.asarray(value, dtype=np.float64)).tolist(), 2)
    if hand is not None:
        warnings.append("a hand is over the table")
    if hidden_count:
        warnings.append(f"{hidden_count} piece{'s are' if hidden_count > 1 else ' is'} hidden under a hand")
    if outside_count:
        warnings.append(f"{outside_count} piece{'s are' if outside_count > 1 else ' is'} outside the camera's view")
    truth = {"game": game, "frame_id": int(frame_id), "table_mm": [geometry.width_mm, geometry.height_mm],
             "ms": 0.0, "markers_seen": seen, "warnings": warnings}
    truth.update(_rounded_mm(part))
    truth["scene"] = _rounded_mm(scene)
    truth["pixels"] = pixels
    truth["camera"] = camera.as_truth()
    truth["nuisances"] = stage.nuisances.as_dict()
    if hand is not None:
        truth["hand"] = {"tip_mm": _r(list(hand.tip_mm), 2), "arm_deg": round(hand.arm_deg, 2),
                         "lift_mm": round(hand.lift_mm, 2)}
    return truth


def _hand_target(rng: np.random.Generator, points: dict, geometry: TableGeometry) -> tuple[float, float]:
    """Hands reach for pieces: aim at one of them, or the middle of the table when there is none."""
    pool = [p for key in PIECE_LISTS for p in points.get(key, [])]
    if not pool:
        return geometry.width_mm / 2, geometry.height_mm / 2
    x, y = pool[int(rng.integers(len(pool)))]
    return float(x + rng.normal(0, 15)), float(y + rng.normal(0, 15))


def _r(value, digits: int):
    if isinstance(value, (list, tuple)):
        return [_r(v, digits) for v in value]
    return round(float(value), digits)


def _rounded_mm(value):
    """Round every float to 0.01 (mm, degrees): truth files then compare byte for byte."""
    if isinstance(value, dict):
        return {k: _rounded_mm(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_rounded_mm(v) for v in value]
    if isinstance(value, float):
        return round(value, 2)
    if isinstance(value, np.floating):
        return round(float(value), 2)
    if isinstance(value, np.integer):
        return int(value)
    return value
