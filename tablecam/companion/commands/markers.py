"""`tablecam markers --out FILE`: the four table markers at true size, to print."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "markers", help="print the four table markers at true size (PDF or PNG)",
        description="Writes A4 pages with the four ArUco table markers (DICT_4X4_50, ids 0-3) at true size, "
                    "each with where it goes, its side, a cutting line that keeps a white border and a 40 mm "
                    "check ruler. Print at 100 % (actual size).")
    p.add_argument("--out", required=True, metavar="FILE", help="markers.pdf, or markers.png (one PNG per page)")
    p.add_argument("--marker-mm", type=float, help="marker side in mm (default: the settings, 40 mm)")
    p.add_argument("--dpi", type=int, default=300, help="print resolution (default 300)")
    p.add_argument("--data-dir", metavar="DIR", help="settings to read the marker size and spacing from")
    p.set_defaults(handler=_markers)


def _markers(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from tablecam.calibration.marker_sheet import write_sheet
    from tablecam.calibration.settings import load_settings
    from tablecam.errors import UserError

    geometry = load_settings(args.data_dir).geometry
    if args.marker_mm is not None:
        try:
            geometry = replace(geometry, marker_mm=args.marker_mm)
        except ValueError as exc:
            raise UserError(f"{exc}.") from None
    written = write_sheet(args.out, geometry, args.dpi)
    print(f"wrote {', '.join(map(str, written))}: {geometry.marker_mm:g} mm markers at {args.dpi} dpi; "
          f"print at 100 % and check the 40 mm ruler")
    return 0
