"""`tablecam serve`: the product: camera, live tracking and the tablet page."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "serve", help="watch the table and serve the tablet page (demo camera when no camera is found)",
        description="Runs the camera, follows the game on the table and serves the page that a tablet "
                    "beside the board keeps open. Changes on the page need the PIN printed here.")
    p.add_argument("--host", default="0.0.0.0", help="address to listen on (default 0.0.0.0: the local network)")
    p.add_argument("--port", type=int, default=8080, help="port of the page (default 8080)")
    p.add_argument("--camera", default="auto",
                   help="auto, demo, picamera, usb:N, a video file or a folder of images (default auto: "
                        "the Pi camera, else the first USB camera, else the demo)")
    p.add_argument("--data-dir", default=None,
                   help="where the game log, PIN and settings live (default $TABLECAM_DATA or ~/.local/share/tablecam)")
    p.add_argument("--game", default="micropul", help="the game on the table (default micropul)")
    p.add_argument("--reader", default="detector", choices=("detector", "truth"),
                   help="detector (default) recognises the picture; truth reads the demo's ground truth instead "
                        "(for tests, or to see the page while no recogniser is installed)")
    p.add_argument("--hold", type=int, default=3, help="frames a new reading must hold to count (default 3)")
    p.add_argument("--fps", type=float, default=5.0, dest="fps",
                   help="frames followed per second (default 5): a steady rate with headroom, since a frame costs "
                        "the recogniser 40-70 ms of one core, so the page's clients and the Pi keep the rest; "
                        "a faster camera's extra frames are skipped, the demo camera renders at this rate")
    p.add_argument("--demo-fps", type=float, dest="fps", help=argparse.SUPPRESS)  # the name before --fps
    p.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from tablecam.calibration.settings import data_dir
    from tablecam.companion.serve import Server, ServeConfig
    from tablecam.errors import UserError

    if not 0 <= args.port <= 65535:
        raise UserError(f"the port must be 0 to 65535, not {args.port}.")
    if not 0.1 <= args.fps <= 60:
        raise UserError("--fps must be 0.1 to 60.")
    config = ServeConfig(host=args.host, port=args.port, camera=args.camera, data_dir=data_dir(args.data_dir),
                         game=args.game, reader=args.reader, hold=args.hold, demo_fps=args.fps, fps=args.fps)
    server = Server(config)
    try:
        server.serve_forever()
    except OSError as exc:
        raise UserError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}.") from None
    return 0
