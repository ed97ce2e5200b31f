"""`tablecam detect --game GAME IMAGE`: one photo -> the game's Observation, one JSON line.

    for f in frames/*.png; do tablecam detect --game micropul "$f"; done | tablecam replay micropul -
"""

from __future__ import annotations

import argparse
import importlib
import json
from pathlib import Path

from tablecam.errors import UserError

ALL_GAMES = ("micropul", "enix", "stixx", "enigmo")
# game -> the vision module whose detect(image, geometry, profile, colours, state, frame_id) reads it;
# a game's detector plugs in by existing.
DETECTORS = {game: f"tablecam.vision.{game}" for game in ALL_GAMES}


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "detect", help="read a game's pieces from a photo: prints its Observation (one JSON line)",
        description="Finds the table markers, reads the game's pieces and prints the Observation of "
                    "ARCHITECTURE.md on one line (positions in table mm). Uses the saved settings (lens "
                    "profile, table geometry, colours) unless --profile names a settings or lens-profile file.")
    p.add_argument("--game", required=True, help=", ".join(ALL_GAMES))
    p.add_argument("image", metavar="IMAGE", help="a photo from the mounted camera (JPEG, PNG...)")
    p.add_argument("--profile", metavar="FILE",
                   help="a settings file (settings.json) or a lens profile JSON to use instead of the saved settings")
    p.add_argument("--frame-id", type=int, default=0, help="frame_id to print (default 0)")
    p.add_argument("--shutters", metavar="X,Y,...",
                   help="enigmo: the shutter row's four corners in table mm (top-left, top-right, bottom-right, "
                        "bottom-left: eight numbers), instead of the corners saved from the page")
    p.add_argument("--data-dir", metavar="DIR", help="where the saved settings live (default: $TABLECAM_DATA "
                                                      "or ~/.local/share/tablecam)")
    p.set_defaults(handler=_run)


def detector_for(game: str):
    """The vision module that reads `game`, or a one-sentence UserError."""
    if game not in ALL_GAMES:
        raise UserError(f"unknown game {game!r}: choose one of {', '.join(ALL_GAMES)}.")
    try:
        module = importlib.import_module(DETECTORS[game])
    except ModuleNotFoundError as exc:
        if exc.name != DETECTORS[game]:
            raise
        module = None
    if module is None or not callable(getattr(module, "detect", None)):
        raise UserError(f"there is no {game} detector yet.")
    return module


def detect_file(game: str, image_path: str | Path, settings, frame_id: int = 0) -> dict:
    """The Observation of the photo at `image_path`, read with `settings` (calibration Settings;
    Enigmo also takes the shutter row's corners saved in them)."""
    from tablecam.calibration.images import read_image

    module = detector_for(game)
    image = read_image(image_path)
    colours = settings.colour_profile(game) if game in _games_with_colours() else None
    if game == "enigmo":
        row = getattr(settings, "enigmo_shutter_row_mm", None)
        return module.detect(image, settings.geometry, settings.camera, colours, None, frame_id,
                             shutter_row_mm=row)
    return module.detect(image, settings.geometry, settings.camera, colours, None, frame_id)


def load_profile_file(path: str | Path):
    """Settings from a file: a settings.json, or a bare lens profile (camera_matrix, dist_coeffs, image_size)."""
    from tablecam.calibration import Settings
    from tablecam.calibration.lens import CameraProfile

    path = Path(path)
    if not path.is_file():
        raise UserError(f"no such profile file: {path}.")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise UserError(f"{path} is not a JSON settings or lens-profile file.") from None
    try:
        if isinstance(data, dict) and "camera_matrix" in data:
            return Settings(camera=CameraProfile.from_dict(data))
        return Settings.from_dict(data)
    except ValueError as exc:
        raise UserError(f"{path} is not a usable profile ({str(exc).rstrip('.')}).") from None


def _games_with_colours() -> tuple[str, ...]:
    from tablecam.calibration.colours import DEFAULT_COLOURS

    return tuple(DEFAULT_COLOURS)


def _run(args: argparse.Namespace) -> int:
    from tablecam.calibration import load_settings

    detector_for(args.game)  # an unknown game ends here, before the image is read
    settings = load_profile_file(args.profile) if args.profile else load_settings(args.data_dir)
    if args.shutters is not None:
        if args.game != "enigmo":
            raise UserError("--shutters is for --game enigmo only.")
        from tablecam.vision.enigmo_shutters import parse_corners

        settings = settings.with_shutter_row(parse_corners(args.shutters).corners_mm)
    obs = detect_file(args.game, args.image, settings, args.frame_id)
    print(json.dumps(obs, separators=(",", ":")), flush=True)
    return 0
