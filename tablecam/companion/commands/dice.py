"""`tablecam dice IMAGE...`: the dice in any photo, each with its value (or null) and its box."""

from __future__ import annotations

import argparse
import json
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "dice", help="find the dice in a photo and read their values from the pips",
        description="Prints one JSON object per image: {\"image\", \"dice\": [{\"value\": 1..6 or null, "
                    "\"box_px\": [x0, y0, x1, y1], \"centre_px\": [x, y], \"confidence\"}]}. A die whose pips "
                    "cannot be read for sure has value null. Works on any photo taken from above; no table "
                    "markers needed.")
    p.add_argument("images", nargs="+", metavar="IMAGE", help="photo(s) (JPEG, PNG...) or a folder of them")
    p.add_argument("--pips", choices=("both", "dark", "bright"), default="both",
                   help="dark pips on light dice, bright pips on dark dice, or both (default)")
    p.add_argument("--pip-radius", type=float, metavar="PX",
                   help="pip radius in pixels when known (faster, and only dice of that size are reported)")
    p.set_defaults(handler=_dice)


def _dice(args: argparse.Namespace) -> int:
    from tablecam.calibration.images import image_paths, read_image
    from tablecam.vision.dice import read_dice

    for path in image_paths(args.images):
        image = read_image(path)
        dice = read_dice(image, pip_radius_px=args.pip_radius, pips=args.pips)
        print(json.dumps({"image": str(path), "dice": [d.as_dict() for d in dice]}), flush=True)
        if not dice:
            print(f"tablecam: no dice found in {path}.", file=sys.stderr)
    return 0
