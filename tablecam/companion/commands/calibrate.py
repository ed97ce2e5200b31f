"""`tablecam calibrate lens|table|geometry|colours|show`: from a camera frame to the table in millimetres."""

from __future__ import annotations

import argparse
import json
import sys

from tablecam.errors import UserError

GAMES_WITH_COLOURS = ("enix", "micropul", "stixx")


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "calibrate", help="lens profile, table markers, colours and the settings file",
        description="Calibrates the camera and the table; everything is saved in one settings file "
                    "(DATA_DIR/settings.json; DATA_DIR is --data-dir, $TABLECAM_DATA or ~/.local/share/tablecam).")
    sub = p.add_subparsers(dest="what", metavar="STEP")
    p.set_defaults(handler=lambda args: _usage(p))

    lens = sub.add_parser("lens", help="lens profile from photos of a chessboard or ChArUco board",
                          description="Finds the pattern in each photo, refines the corners, calibrates, leaves "
                                      "out bad views with a reason, prints the RMS reprojection error and saves "
                                      "the camera profile.")
    lens.add_argument("images", nargs="+", metavar="IMAGE", help="photos of the pattern, or folders of them")
    kind = lens.add_mutually_exclusive_group(required=True)
    kind.add_argument("--chessboard", metavar="COLSxROWS", help="inner corners of the chessboard, e.g. 9x6")
    kind.add_argument("--charuco", metavar="COLSxROWS", help="squares of the ChArUco board, e.g. 5x7")
    lens.add_argument("--square-mm", type=float, required=True, help="side of one chessboard square in mm")
    lens.add_argument("--marker-mm", type=float, help="ChArUco: side of one marker in mm")
    lens.add_argument("--dict", default="DICT_6X6_250", help="ChArUco: ArUco dictionary (default DICT_6X6_250)")
    lens.add_argument("--no-save", action="store_true", help="print the result without saving it")
    _data_dir(lens)
    lens.set_defaults(handler=_lens)

    table = sub.add_parser("table", help="find the four markers in a photo and check the table fix",
                           description="Finds the four table markers, fits the homography to table mm (through the "
                                       "lens profile if there is one), prints the marker-centre reprojection error "
                                       "and the light measured on the markers, and can write the top-down image.")
    table.add_argument("image", metavar="IMAGE", help="a photo from the mounted camera")
    table.add_argument("--out", metavar="FILE", help="write the rectified top-down image here (.png or .jpg)")
    table.add_argument("--px-per-mm", type=float, default=2.0, help="scale of the top-down image (default 2)")
    table.add_argument("--margin-mm", type=float, default=40.0, help="table shown beyond the marker centres")
    table.add_argument("--white-balance", action="store_true", help="white-balance the top-down image")
    table.add_argument("--json", action="store_true", help="print the result as JSON")
    _data_dir(table)
    table.set_defaults(handler=_table)

    geometry = sub.add_parser("geometry", help="set the marker size and the measured spacing of the markers",
                              description="Saves the table geometry: the printed marker side and the distances "
                                          "between marker centres (0 to 1 across, 0 to 3 down), measured in mm.")
    geometry.add_argument("--marker-mm", type=float, help="side of the black marker square")
    geometry.add_argument("--width-mm", type=float, help="centre of marker 0 to centre of marker 1")
    geometry.add_argument("--height-mm", type=float, help="centre of marker 0 to centre of marker 3")
    _data_dir(geometry)
    geometry.set_defaults(handler=_geometry)

    colours = sub.add_parser("colours", help="teach a game's colours from a photo of its pieces in a row",
                             description="Lay one piece of each colour in a row inside the markers, in the order "
                                         "below, left to right as seen from the camera, at least 10 mm apart, "
                                         "on the bare table: stixx sticks red, orange, yellow, green, blue, purple; "
                                         "enix hexes solar, water, geothermal, waves, wind, biomass; "
                                         "micropul the two stones (names with --names).")
    colours.add_argument("game", help=", ".join(GAMES_WITH_COLOURS))
    colours.add_argument("image", nargs="?", metavar="IMAGE", help="the photo of the row")
    colours.add_argument("--names", help="micropul: the stone colours' names, left to right, e.g. white,black")
    colours.add_argument("--reset", action="store_true", help="forget the taught colours: use the defaults")
    colours.add_argument("--no-save", action="store_true", help="print the result without saving it")
    _data_dir(colours)
    colours.set_defaults(handler=_colours)

    show = sub.add_parser("show", help="print the saved settings")
    show.add_argument("--json", action="store_true", help="print the settings file's JSON")
    _data_dir(show)
    show.set_defaults(handler=_show)


def _data_dir(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data-dir", metavar="DIR",
                   help="where the settings live (default $TABLECAM_DATA or ~/.local/share/tablecam)")


def _usage(p: argparse.ArgumentParser) -> int:
    p.print_help(sys.stderr)
    return 2


def _lens(args: argparse.Namespace) -> int:
    from tablecam.calibration.images import image_paths
    from tablecam.calibration.lens import calibrate_charuco, calibrate_chessboard, parse_pattern
    from tablecam.calibration.settings import load_settings, save_settings, settings_path
    from dataclasses import replace

    settings = load_settings(args.data_dir)  # fail on a broken settings file before the slow part
    paths = image_paths(args.images)
    if args.chessboard:
        result = calibrate_chessboard(paths, parse_pattern(args.chessboard), args.square_mm)
    else:
        if args.marker_mm is None:
            raise UserError("a ChArUco board needs --marker-mm (the side of its markers in mm).")
        result = calibrate_charuco(paths, parse_pattern(args.charuco), args.square_mm, args.marker_mm, args.dict)
    for v in result.views:
        if v.used:
            print(f"{v.name}: used ({v.points} corners, reprojection error {v.error_px:.3f} px)")
        else:
            print(f"{v.name}: left out: {v.reason}")
    prof = result.profile
    print(f"RMS reprojection error: {prof.rms_px:.3f} px over {prof.views} views")
    k = prof.dist_coeffs
    print(f"fx {prof.fx:.2f} px, fy {prof.fy:.2f} px, centre ({prof.cx:.1f}, {prof.cy:.1f}) px, "
          f"image {prof.image_size[0]}x{prof.image_size[1]}, distortion "
          + " ".join(f"{v:+.5f}" for v in k))
    for w in result.warnings:
        print(f"warning: {w}")
    if not args.no_save:
        path = save_settings(replace(settings, camera=prof), args.data_dir)
        print(f"saved the camera profile in {path}")
    else:
        print(f"not saved (--no-save); the settings stay in {settings_path(args.data_dir)}")
    return 0


def _table(args: argparse.Namespace) -> int:
    import cv2

    from tablecam.calibration.images import read_image
    from tablecam.calibration.light import white_reference
    from tablecam.calibration.topdown import rectify
    from tablecam.calibration.settings import load_settings
    from tablecam.calibration.table import find_table

    settings = load_settings(args.data_dir)
    if args.out and not args.out.lower().endswith((".png", ".jpg", ".jpeg")):
        raise UserError(f"the top-down image is written as .png or .jpg, not {args.out!r}.")
    image = read_image(args.image)
    fix = find_table(image, settings.geometry, settings.camera)
    light = white_reference(image, fix) if image.ndim == 3 else None
    result = fix.summary()
    result["lens_profile"] = settings.camera is not None
    if light is not None:
        result["light"] = light.to_dict()
    if args.out:
        rect = rectify(image, fix, args.px_per_mm, args.margin_mm)
        out = light.correct(rect.image) if (args.white_balance and light is not None) else rect.image
        if not cv2.imwrite(args.out, out):
            raise UserError(f"cannot write {args.out}.")
        result["rectified"] = {"file": args.out, "px_per_mm": args.px_per_mm,
                               "origin_mm": list(rect.raster.origin_mm), "size_px": list(rect.raster.size)}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"markers seen: {', '.join(map(str, fix.markers_seen))}")
    print(f"marker-centre reprojection error: {fix.reprojection_mm:.2f} mm (worst marker); per marker: "
          + ", ".join(f"{m}: {e:.2f}" for m, e in sorted(fix.marker_errors_mm.items())))
    if settings.camera is None:
        print("no lens profile: the table is fitted to the raw image (run `tablecam calibrate lens` for a wide lens)")
    if light is not None:
        w, b = light.white, light.black
        print(f"light: paper reads B{w[0]:.0f} G{w[1]:.0f} R{w[2]:.0f}, ink B{b[0]:.0f} G{b[1]:.0f} R{b[2]:.0f}")
    for w in list(fix.warnings) + (list(light.warnings) if light else []):
        print(f"warning: {w}")
    if args.out:
        print(f"wrote the top-down image to {args.out} ({args.px_per_mm:g} px/mm, "
              f"table mm ({-args.margin_mm:g}, {-args.margin_mm:g}) at its top-left corner)")
    return 0


def _geometry(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from tablecam.calibration.geometry import TableGeometry
    from tablecam.calibration.settings import load_settings, save_settings

    if args.marker_mm is None and args.width_mm is None and args.height_mm is None:
        raise UserError("give at least one of --marker-mm, --width-mm and --height-mm.")
    settings = load_settings(args.data_dir)
    g = settings.geometry
    try:
        new = TableGeometry(args.marker_mm if args.marker_mm is not None else g.marker_mm,
                            args.width_mm if args.width_mm is not None else g.width_mm,
                            args.height_mm if args.height_mm is not None else g.height_mm)
    except ValueError as exc:
        raise UserError(f"{exc}.") from None
    path = save_settings(replace(settings, geometry=new), args.data_dir)
    print(f"table: markers {new.marker_mm:g} mm, centres {new.width_mm:g} mm apart (0->1) and "
          f"{new.height_mm:g} mm (0->3); saved in {path}")
    return 0


def _colours(args: argparse.Namespace) -> int:
    from tablecam.calibration.colours import TEACHING, teach_colours
    from tablecam.calibration.images import read_image
    from tablecam.calibration.settings import load_settings, save_settings
    from tablecam.calibration.table import find_table

    if args.game not in TEACHING:
        raise UserError(f"there are no colours to teach for {args.game!r}: choose one of "
                        f"{', '.join(GAMES_WITH_COLOURS)}.")
    settings = load_settings(args.data_dir)
    if args.reset:
        path = save_settings(settings.without_colours(args.game), args.data_dir)
        print(f"{args.game} colours back to the defaults; saved in {path}")
        return 0
    if not args.image:
        raise UserError(f"give the photo of the {args.game} pieces in a row (or --reset).")
    names = [n.strip() for n in args.names.split(",")] if args.names else None
    image = read_image(args.image)
    fix = find_table(image, settings.geometry, settings.camera)
    result = teach_colours(image, fix, args.game, names, source=f"taught from {args.image}")
    for piece in result.pieces:
        print(f"{piece.name}: #{piece.rgb[0]:02x}{piece.rgb[1]:02x}{piece.rgb[2]:02x} "
              f"(at {piece.centre_mm[0]:.0f}, {piece.centre_mm[1]:.0f} mm)")
    for w in result.warnings:
        print(f"warning: {w}")
    if args.no_save:
        print("not saved (--no-save)")
        return 0
    path = save_settings(settings.with_colours(result.profile), args.data_dir)
    print(f"saved the {args.game} colours in {path}")
    return 0


def _show(args: argparse.Namespace) -> int:
    from tablecam.calibration.settings import describe, load_settings, settings_path

    settings = load_settings(args.data_dir)
    if args.json:
        print(json.dumps(settings.to_dict(), indent=2))
    else:
        print(describe(settings, settings_path(args.data_dir)))
    return 0
