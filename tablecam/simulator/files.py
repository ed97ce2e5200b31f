"""Writing renders to a folder: an image and its truth JSON side by side (what `tablecam render` does)."""

from __future__ import annotations

import json
from itertools import islice
from pathlib import Path

import cv2
import numpy as np

from tablecam.calibration.geometry import TableGeometry
from tablecam.errors import UserError

from .camera import CameraModel
from .nuisances import Nuisances
from .render import render, render_random
from .scene import GAMES, game_module
from .sequence import sequence


def truth_json(truth: dict) -> str:
    return json.dumps(truth, indent=1, sort_keys=False) + "\n"


def write_pair(out: Path, stem: str, image: np.ndarray, truth: dict) -> Path:
    """`stem.png` and `stem.json` in `out`; returns the image path."""
    path = out / f"{stem}.png"
    if not cv2.imwrite(str(path), image):
        raise UserError(f"could not write {path}.")
    (out / f"{stem}.json").write_text(truth_json(truth), encoding="utf-8")
    return path


def render_to_dir(game: str, seed: int, out: str | Path, resolution: tuple[int, int], nuisances: bool = True,
                  frames: int | None = None, state_file: str | None = None,
                  geometry: TableGeometry = TableGeometry()) -> list[Path]:
    """Render one shot (or `frames` frames of the demo sequence) into `out`; returns the image paths."""
    game_module(game)  # an unknown game ends here, in one sentence
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise UserError(f"{out} exists and is not a folder.")
    out.mkdir(parents=True, exist_ok=True)
    if frames is not None:
        if frames < 1:
            raise UserError(f"--frames must be at least 1, not {frames}.")
        rng = np.random.default_rng([seed, GAMES.index(game), 7])
        noise = None if nuisances else Nuisances.none()
        camera = CameraModel.random(rng, resolution, geometry) if nuisances else CameraModel.default(resolution, geometry)
        paths = []
        for k, frame in enumerate(islice(sequence(game, seed, camera, noise, geometry), frames)):
            truth = dict(frame.truth, stable=frame.stable)
            paths.append(write_pair(out, f"{game}_{seed}_{k:05d}", frame.image, truth))
        return paths
    if state_file is not None:
        try:
            state = json.loads(Path(state_file).read_text(encoding="utf-8"))
        except UnicodeDecodeError:
            raise UserError(f"{state_file} is not a JSON text file.") from None
        if isinstance(state, dict) and state.get("game", game) != game:
            raise UserError(f"{state_file} holds a {state.get('game')} state, not a {game} one.")
        if isinstance(state, dict):
            state.setdefault("game", game)
        rng = np.random.default_rng(seed)
        camera = CameraModel.random(rng, resolution, geometry) if nuisances else CameraModel.default(resolution, geometry)
        noise = Nuisances.random(rng) if nuisances else Nuisances.none()
        shot = render(state, camera, noise, seed=seed, geometry=geometry)
    else:
        shot = render_random(game, seed, resolution, nuisances=nuisances, geometry=geometry)
    return [write_pair(out, f"{game}_{seed}", shot.image, shot.truth)]
