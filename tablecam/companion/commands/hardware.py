"""`tablecam hardware fov`: what a camera and lens see from a height, and whether the details survive."""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("hardware", help="plan the camera: field of view and detail at a height")
    sub = p.add_subparsers(dest="what", metavar="TOPIC")
    p.set_defaults(handler=lambda args: (p.print_help(sys.stderr), 2)[1])
    fov = sub.add_parser(
        "fov", help="table area covered, px/mm and whether the smallest details are resolvable",
        description="For a Raspberry Pi camera at a height above the table: the area covered, the pixels per "
                    "millimetre, whether the smallest details (a micropul one-dot catalyst, a Stixx stick) span "
                    "at least 3 pixels, whether the marker frame fits, and the range of heights that works.")
    fov.add_argument("--camera", required=True, choices=("hq", "v3", "v3-wide"),
                     help="hq = HQ camera (IMX477), v3 = Camera Module 3, v3-wide = Camera Module 3 Wide")
    fov.add_argument("--lens", type=float, metavar="MM", help="focal length of the HQ camera's lens (e.g. 6 or 16)")
    fov.add_argument("--height", type=float, required=True, metavar="MM", help="lens to table distance in mm")
    fov.add_argument("--resolution", metavar="WxH", help="frame size (default: the full-field binned mode)")
    fov.add_argument("--data-dir", metavar="DIR", help="settings to read the table size from")
    fov.set_defaults(handler=_fov)


def _fov(args: argparse.Namespace) -> int:
    from tablecam.calibration.fov import field_of_view, parse_resolution
    from tablecam.calibration.settings import load_settings

    geometry = load_settings(args.data_dir).geometry
    res = parse_resolution(args.resolution) if args.resolution else None
    report = field_of_view(args.camera, args.height, args.lens, res, geometry)
    print("\n".join(report.lines()))
    return 0
