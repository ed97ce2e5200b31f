"""`tablecam render`: simulated camera photos of a game state, with the truth a perfect detector prints."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "render", help="render a simulated camera photo of a game (image + truth JSON)",
        description="Renders what the overhead camera would see of a random (or given) game state, "
                    "and writes GAME_SEED.png with GAME_SEED.json (the Observation a perfect detector "
                    "prints, plus pixel positions and the camera). With --sequence, renders a whole game "
                    "frame by frame, a hand moving the pieces between stable states.")
    p.add_argument("--game", required=True, help="micropul, enix, stixx or enigmo")
    p.add_argument("--seed", type=int, default=0, help="everything random follows from it (default 0)")
    p.add_argument("--out", required=True, help="folder to write into (made if missing)")
    p.add_argument("--resolution", default="2028x1520",
                   help="WIDTHxHEIGHT (default 2028x1520, the HQ camera's binned mode; also 1640x1232, 4608x2592)")
    p.add_argument("--no-nuisances", action="store_true",
                   help="a clean shot straight from above: even light, no noise, no blur, no hand")
    p.add_argument("--state", help="an Observation JSON file to render instead of a random state")
    p.add_argument("--sequence", action="store_true", help="render the demo sequence (a whole game, frame by frame)")
    p.add_argument("--frames", type=int, default=60, help="how many sequence frames to write (default 60)")
    p.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from tablecam.errors import UserError
    from tablecam.simulator.camera import parse_resolution
    from tablecam.simulator.files import render_to_dir

    if args.sequence and args.state:
        raise UserError("--state renders one shot; it cannot be combined with --sequence.")
    paths = render_to_dir(args.game, args.seed, args.out, parse_resolution(args.resolution),
                          nuisances=not args.no_nuisances, frames=args.frames if args.sequence else None,
                          state_file=args.state)
    for path in paths[:3]:
        print(path)
    if len(paths) > 3:
        print(f"... {len(paths)} frames in {paths[0].parent}")
    return 0
