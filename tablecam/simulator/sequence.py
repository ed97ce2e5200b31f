"""A whole game, frame by frame, as the demo camera of `tablecam serve` shows it.

Each stable state is held for a few frames (only the sensor noise changes); between two
states a hand reaches in, the pieces change under it, and it pulls back (those frames are
`stable=False` and their truth warns of the hand). When a game ends the next one starts with
the next seed, so the stream runs as long as it is read. Every frame's truth names its
`game_seed`, so a consumer can tell when a new game starts.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterator

import numpy as np

from tablecam.calibration.geometry import TableGeometry

from .camera import CameraModel
from .layout import rotate
from .nuisances import Nuisances
from .props import HandPose, random_hand
from .render import check, make_truth
from .scene import GAMES, PIECE_LISTS, Stage, game_module

# Where the fingertip is along its reach (1 = at the piece) in the frames between two states;
# the pieces change at the first frame at 1.0, while the hand covers them.
REACH = (0.3, 0.6, 0.85, 1.0, 1.0, 0.75, 0.45, 0.15)
REACH_MM = 380.0


def hand_reach(frames: int = len(REACH)) -> tuple[float, ...]:
    """The fingertip's positions in `frames` frames between two states: REACH itself for 8; fewer
    frames (a quicker hand, e.g. for a test that plays a whole game) reach in and out the same way."""
    if frames == len(REACH):
        return REACH
    if frames < 2:
        raise ValueError("a hand needs at least 2 frames: one reaching in, one pulling back")
    rise = np.linspace(REACH[0], 1.0, frames // 2)
    fall = np.linspace(1.0, REACH[-1], frames - frames // 2)
    return tuple(float(t) for t in (*rise, *fall))


@dataclass(frozen=True, eq=False)
class Frame:
    image: np.ndarray
    truth: dict
    stable: bool


def sequence(game: str, seed: int = 0, camera: CameraModel | None = None, nuisances: Nuisances | None = None,
             geometry: TableGeometry = TableGeometry(), frames_per_state: int = 8,
             hand_frames: int = len(REACH)) -> Iterator[Frame]:
    """Frames of random games of `game`, forever (read as many as you need).

    camera None: `CameraModel.default()`; nuisances None: realistic random ones drawn from the
    seed (a demo should look like a camera). The hand is driven by the sequence itself.
    """
    module = game_module(game)
    reach = hand_reach(hand_frames)
    rng = np.random.default_rng([seed, GAMES.index(game), 7])
    camera = camera or CameraModel.default(geometry=geometry)
    nuisances = replace(nuisances or Nuisances.random(rng), hand=False)
    stage = Stage.build(camera, nuisances, geometry, rng)
    frame_id = 0
    game_seed = seed
    while True:
        before = None  # (part, points, scene, canvas) of the state on the table
        for obs in module.game_states(game_seed, geometry):
            _, part, points, scene = check(obs, geometry)
            canvas = stage.paint(game, part, scene)
            if before is not None:
                target = _changed_point(before[1], points, before[0], part)
                if target is not None:
                    pose = random_hand(rng, target, geometry)
                    swapped = False
                    for t in reach:
                        swapped = swapped or t >= 1.0
                        p, pts, sc, base = (part, points, scene, canvas) if swapped else before
                        shown = base.copy()
                        at = _along(pose, t)
                        stage.add_hand(shown, at)
                        image = stage.expose(stage.develop(shown), rng)
                        truth = make_truth(game, p, pts, sc, stage, shown, at, frame_id)
                        yield Frame(image, dict(truth, game_seed=game_seed), False)
                        frame_id += 1
            clean = stage.develop(canvas)
            truth = make_truth(game, part, points, scene, stage, canvas, None, 0)
            for _ in range(frames_per_state):
                yield Frame(stage.expose(clean, rng), dict(truth, frame_id=frame_id, game_seed=game_seed), True)
                frame_id += 1
            before = (part, points, scene, canvas)
        game_seed += 1


def _along(pose: HandPose, t: float) -> HandPose:
    """The hand with its fingertip a fraction t of the way in from outside the table."""
    dx, dy = rotate((REACH_MM * (1.0 - t), 0.0), pose.arm_deg)
    return replace(pose, tip_mm=(pose.tip_mm[0] + dx, pose.tip_mm[1] + dy),
                   lift_mm=pose.lift_mm + 40.0 * (1.0 - t))


def _changed_point(old_points: dict, new_points: dict, old: dict, new: dict) -> tuple[float, float] | None:
    """Where the table changed between two states: the middle of the pieces that came, went or moved."""
    changed = []
    for key in set(old_points) | set(new_points):
        a = [_key(p) for p in old_points.get(key, [])]
        b = [_key(p) for p in new_points.get(key, [])]
        if key in PIECE_LISTS:
            # Same place, different piece (a hex turned, a shutter opened): compare the entries too.
            ea, eb = old.get(key) or [], new.get(key) or []
            for i, p in enumerate(new_points.get(key, [])):
                if _key(p) not in a or (i < len(ea) and i < len(eb) and ea[i] != eb[i]):
                    changed.append(p)
            changed += [p for p in old_points.get(key, []) if _key(p) not in b]
        else:
            changed += [p for p, q in zip(old_points.get(key, []), new_points.get(key, [])) if _key(p) != _key(q)]
    if old.get("shutters") != new.get("shutters") and "shutters" in new_points:
        changed += [p for p, x, y in zip(new_points["shutters"], old["shutters"], new["shutters"]) if x != y]
    if old.get("cap") != new.get("cap"):
        changed += [c["center_mm"] for c in (old.get("cap"), new.get("cap")) if c]
    if not changed:
        return None
    pts = np.asarray(changed, dtype=np.float64)
    mid = pts.mean(axis=0)
    # Reach for the changed piece nearest the middle: the hand then surely covers it.
    best = pts[int(np.argmin(np.hypot(*(pts - mid).T)))]
    return float(best[0]), float(best[1])


def _key(p) -> tuple[float, float]:
    return (round(float(p[0]), 1), round(float(p[1]), 1))

