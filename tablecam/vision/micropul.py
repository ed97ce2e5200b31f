"""micropul: a camera frame -> the micropul Observation of ARCHITECTURE.md.

    obs = detect(image, profile=camera_profile)              # one photo
    detector = MicropulDetector(MicropulSettings(profile=...))
    obs = detector.detect(frame, frame_id=n, state=last_obs)  # a stream: the table lock and warps are kept

How a frame is read:
1. The table: the four markers give table millimetres (calibration.find_table, or the tracker's lock).
2. Where the board is: the play area, rectified at 1.2 px/mm and turned into ink darkness (relative
   to the local paper white). Micropul discs and rings are found as disc-sized spots, weighted by
   whether paper surrounds them (white-balanced on the markers); the board's lattice (angle,
   phase) is the one that puts the most of them on micropul sites (board_lattice.py). Clutter,
   hands and other games do not make such a lattice.
3. Stones: round colourful blobs on the board's cells (colour_blobs.py); the quadrant under a
   stone cannot be seen and does not count when its tile is read, nor do the pixels a stone leans
   over or shades on the quadrants and tiles around it.
4. Each cell of the lattice that has discs, and each neighbour (big tiles have no small discs), is
   cut out of the raw frame at 2 px/mm, aligned on its own ink and read against templates of the
   printed marks, among the faces of the 48 real tiles only (micropul_faces.py). The board grows
   cell by cell from the tiles found; cells of the table's own colour (wood, cloth) are not read.
5. A cell is a tile when its paper is paper (neutral, as bright as the board's) and the best face
   fits it closely, with ink where the face has micropul. A tile something covers in part (a hand)
   or whose best face is not clearly better than the next is reported with `quadrants: null` and a
   warning: never a guess. The set has one copy of each tile: a tile read elsewhere on the board
   rules a candidate out, which can settle a quadrant a stone hides.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache

import cv2
import numpy as np

from tablecam.calibration.geometry import TableGeometry
from tablecam.rules.micropul.tiles import Face, face_from_observation, identify

from .board_lattice import (TIGHT_UNITS, Lattice, fit_at_angle, fit_lattice, fit_on, other_fits, same_lattice,
                            site_residuals)
from .colour_blobs import blobs_in_regions, colourfulness
from .face_down import find_face_down
from .micropul_faces import (BLUR_MM, QUADRANTS, TEMPLATE_NAMES, FaceModel, FaceReading, alignment,
                             face_model, faces_matching, quadrants, read_faces)
from .print_ink import disc_spots, work_array
from .table_patches import quad_patches
from .tile_darkness import graded_darkness, tile_darkness

GAME = "micropul"
TILE_MM = 30.0
STONE_MM = 11.0
SEARCH_PX_PER_MM = 1.2  # where the board is: discs (8.7 mm) are 10 px wide
READ_PX_PER_MM = 2.0  # reading a tile: about the camera's own resolution over a 900 mm view
PATCH_MARGIN_MM = 3.0  # table read around each tile (the edges' darkness is measured there)
DISC = 0.29  # micropul disc diameter, of a tile side (games/micropul.md)
SITE = 0.5 - 0.217  # where a micropul's centre sits, from the tile's centre along both axes
WHITE_WINDOW = 0.45  # local-white window, of a tile: wider than a disc, narrower than a tile
MIN_SPOT = 0.1  # disc-spot contrast worth considering (rings under heavy blur reach ~0.12)

# A cell is a tile when (tuned on simulator seeds 0-999, see bench/micropul_detect.py):
MAX_QUADRANT_ERROR = 0.012  # the best face's mean squared darkness error, in its worst visible quadrant
MIN_MICROPUL_INK = 0.55  # every visible micropul of that face shows at least this much of full ink
MIN_GAIN = 0.5  # the tile's ink as a whole
MAX_PAPER_TINT = 0.15  # white-balanced paper is grey: (max - min channel) / mean stays below this
MIN_PAPER_WHITE = 0.55  # ... and at least this bright against the board's paper
# ... or, where discs were found on the cell's sites, this bright: a hand's shadow darkens a tile
# that still reads (the face must fit as closely, with ink on its micropul).
MIN_SHADED_PAPER_WHITE = 0.3
# ... and its face is read when the best face beats the next one that differs where it can be seen:
MIN_MARGIN = 1.0  # squared-darkness units for a 60 px tile (scaled with the tile's pixel area)
# Faces this close to the best (same units) stay candidates when the set's one-copy-per-tile rule
# settles an unsure tile: wider than MIN_MARGIN, so that the true face is surely among them.
ELIMINATION_WINDOW = 2.5
MAX_UNSUPPORTED_ERROR = 0.007  # a cell without a disc spot whose face is unclear must fit this well
# ... and one fitting within the last tenth below the limit must show its face by far (its margin over
# every face but a big micropul's twin, in MIN_MARGIN units): a corner of one tile in view beside a
# hand, the lattice of two or three marks a cell or half a cell off, made a tile of a hand's shade
# or of a tile's edge (seeds 6713, 5314: 0.0116, 4.3 and 3.9 ahead: invented tiles). The 36 tiles
# without a disc spot read right on seeds 3000-3399 and 5000-6899 that fit above 0.007 reached
# 0.0114, that one 9.9 ahead; those fitting above 0.008 were at least 5.5 ahead. From three quarters
# of the limit since session 15: a tile in a hand's shadow beside a stone that was not found read a
# one-dot as a ring, 1.68 ahead at 0.0105 (seed 7052; the clash rule caught it only because that
# face was another tile's); the 11 cells without a disc spot read right above 0.006 on seeds
# 5000-5399, 7000-7499, 7800-7999 and 1800000-1800199 were 5.3 and more ahead (one above 0.009: 8.9).
NEAR_LIMIT_ERROR = 0.75 * MAX_QUADRANT_ERROR
NEAR_LIMIT_MARGIN = 5.0
# A cell without a disc spot read as a big micropul must show it by far (its margin over every face
# that is not a big micropul of that colour, in MIN_MARGIN units): a big micropul's print is a ring
# or disc across the whole tile, and the 1478 big tiles read right on those seeds with under two
# spots' worth of discs were 25 and more ahead, while the grey table beside a board, in a hand's soft
# shadow, fitted a big white ring at the widest blur 5.7 ahead (seed 7921: a tile invented).
MIN_UNSUPPORTED_BIG_MARGIN = 12.0

NO_BOARD = "no micropul board found"


@dataclass(frozen=True)
class MicropulSettings:
    """What the detector needs to know about this table (all from the settings file)."""

    geometry: TableGeometry = field(default_factory=TableGeometry)
    profile: object | None = None  # calibration.lens.CameraProfile
    colours: object | None = None  # calibration.colours.ColourProfile of the stones; None: the defaults
    tile_mm: float = TILE_MM


class MicropulDetector:
    """Reads micropul frame after frame, keeping the table lock and the warp maps between frames."""

    def __init__(self, settings: MicropulSettings = MicropulSettings()) -> None:
        from tablecam.calibration import TableTracker

        self.settings = settings
        self._tracker = TableTracker(settings.geometry, settings.profile)

    def detect(self, frame: np.ndarray, frame_id: int = 0, state: dict | None = None) -> dict:
        """The Observation of one frame. `state`: the last Observation; its faces settle quadrants a
        stone now hides, and its tiles are looked at even where no disc shows now."""
        start = time.perf_counter()
        fix = self._tracker.update(frame)
        search = self._tracker.rectify(frame, fix, SEARCH_PX_PER_MM, margin_mm=0.0)
        obs = read_board(frame, fix, search, self.settings, state, frame_id)
        obs["ms"] = round(1000.0 * (time.perf_counter() - start), 2)
        return obs


def detect(image: np.ndarray, geometry: TableGeometry = TableGeometry(), profile=None, colours=None,
           state: dict | None = None, frame_id: int = 0) -> dict:
    """The micropul Observation of one photo (ARCHITECTURE.md). Raises UserError (one sentence) when
    the image is not a usable frame or fewer than three table markers show."""
    from tablecam.calibration import find_table, rectify
    from tablecam.calibration.images import check_frame

    start = time.perf_counter()
    image = check_frame(image)
    settings = MicropulSettings(geometry, profile, colours)
    fix = find_table(image, geometry, profile)
    search = rectify(image, fix, SEARCH_PX_PER_MM, margin_mm=0.0)
    obs = read_board(image, fix, search, settings, state, frame_id)
    obs["ms"] = round(1000.0 * (time.perf_counter() - start), 2)
    return obs


# --- one frame ----------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class _Search:
    """The play area at search resolution: white-balanced colour, local white, ink darkness."""

    bgr: np.ndarray
    grey: np.ndarray
    white: np.ndarray
    dark: np.ndarray  # a work array of print_ink: overwritten by the next frame
    valid: np.ndarray  # seen by the camera and not a marker
    px_to_mm: object
    mm_to_px: object
    ppm: float
    light: object  # calibration.light.LightReference, or None
    # _paper_points' answers in this frame, by stone centre: each lattice read and each round of
    # growth asks again about the stones it already knew.
    paper_beside: dict = field(default_factory=dict)


def read_board(frame: np.ndarray, fix, search_table, settings: MicropulSettings, state: dict | None,
               frame_id: int) -> dict:
    """The Observation from a frame, its table fix and its rectified play area."""
    from tablecam.calibration import white_reference

    geometry = settings.geometry
    warnings = list(fix.warnings)
    obs = {"game": GAME, "frame_id": int(frame_id), "table_mm": [geometry.width_mm, geometry.height_mm],
           "ms": 0.0, "markers_seen": len(fix.markers_seen), "warnings": warnings,
           "tile_mm": settings.tile_mm, "tiles": [], "stones": []}
    if frame.ndim != 3 or frame.shape[2] != 3:
        warnings.append("the frame has no colour: stones cannot be told apart")
    light = white_reference(frame, fix) if frame.ndim == 3 and frame.shape[2] == 3 else None
    search = _prepare_search(search_table, light, geometry, settings.tile_mm)
    tile = settings.tile_mm

    spots = disc_spots(search.dark, search.ppm, DISC * tile, MIN_SPOT)
    inside = _inside(search, spots.centres_px)
    spots_mm = search.px_to_mm(spots.centres_px[inside])
    # A micropul is printed on paper: spots on a coloured or dark ground (wood grain, cloth,
    # a sleeve) hardly count, however dark and round they are.
    strength = spots.strength[inside] * _on_paper(search, spots.centres_px[inside], DISC * tile)
    # With a lens profile the table frame is straight: the board is not bent (see fit_lattice).
    fit = fit_lattice(spots_mm, strength, tile, SITE, min_marks=2, allow_bend=settings.profile is None)
    if fit is None:
        warnings.append(NO_BOARD)
        return obs
    side_px = 2 * int(round(tile * READ_PX_PER_MM / 2))
    model = face_model(side_px)
    # Discs in a single row fit two lattices; the cells' faces say which one is the board.
    readings_by_lattice = [_read_lattice(frame, fix, search, lat, fit, spots_mm, strength, state, settings, model,
                                         light) for lat in (fit.lattice,) + fit.alternatives]
    best = max(readings_by_lattice, key=_board_score)
    if len(readings_by_lattice) > 1 and not _clear_row_winner(best, model):
        warnings.append(NO_BOARD)
        return obs
    if _board_score(best)[0] == 0:
        # No tile read on that lattice: with a few marks a speck can outweigh faint rings (see
        # other_fits). The lattices shifted by a disc's place are read in turn; one that reads more
        # tiles, one of them showing two discs on its sites, wins (a tile of one disc is a pale
        # table's cell as often: seed 5133, a tile invented).
        for other in other_fits(spots_mm, strength, SITE, fit, FALLBACK_LATTICES, allow_bend=settings.profile is None):
            reading = _read_lattice(frame, fix, search, other.lattice, other, spots_mm, strength, state, settings,
                                    model, light)
            if _more_tiles(reading, best) and _tile_with_discs(reading[4], other, strength):
                best = reading
    if _board_score(best)[0] <= FEW_TILES:
        # A few tiles, a hand over the rest: the marks may agree on a lattice turned away from the
        # board (seeds 5650, 6293, 6408: 20-34 degrees off, one to three tiles lost). The tiles'
        # straight outlines give the angle; the lattice there is read, and wins as the fallbacks do,
        # or without a tile of two discs when it reads more faces than a small board shows: under a
        # hand the discs in view are few (seed 6485: six tiles read, one disc spot among them), and
        # a pale table's cell beside a real tile (seed 5133) is one or two.
        outline = _outline(search, spots_mm, strength, tile)
        angle = None if outline is None else outline[0]
        if angle is not None and abs((angle - best[0].angle_deg + 45.0) % 90.0 - 45.0) > OUTLINE_DISAGREES_DEG:
            other = fit_at_angle(spots_mm, strength, tile, SITE, angle, allow_bend=settings.profile is None)
            if other is not None:
                reading = _read_lattice(frame, fix, search, other.lattice, other, spots_mm, strength, state,
                                        settings, model, light)
                if _more_tiles(reading, best) and (_tile_with_discs(reading[4], other, strength)
                                                   or _board_score(reading)[0] > FEW_TILES) \
                        or _clearly_truer(reading, best, other, strength, model):
                    best = reading
        if outline is not None and _board_score(best)[0] <= FEW_TILES:
            best = _outline_placed(best, outline, frame, fix, search, spots_mm, strength, state, settings, model,
                                   light)
    lattice, cells, parts, stone_cells, verdicts, support, remembered, bend = best
    if parts:
        # The photo's sharpness is one: a cell that only fits with much more blur than the tiles
        # read clearly is fitting a smudge (a shadow, the table beside the board), not ink.
        everything = _Cells.join(parts)
        blurs = [BLUR_MM.index(v.reading.blur_mm) for v in verdicts.values() if v.kind == "tile" and v.face]
        if blurs:
            limit = int(np.median(blurs)) + 1
            # Read again the cells read with a wider blur, and those near a stone (every stone is
            # known now: one found late may lean over a cell read early); the others would read
            # the same.
            redo = np.array([BLUR_MM.index(r.blur_mm) > limit for r in everything.readings], bool)
            redo |= _near_stones(everything.centres, stone_cells, STONE_SHADE_WIDE_MM + tile / math.sqrt(2)) \
                & ~_reads_the_same(everything, lattice, stone_cells)
            readings, visible = list(everything.readings), everything.visible.copy()
            fits, weights = everything.fits.copy(), everything.weights.copy()
            if redo.any():
                idx = np.nonzero(redo)[0]
                r2, v2, f2, w2 = _read_shaded(model, everything.dark[redo], _stone_quadrants(cells, stone_cells)[redo],
                                              lattice, everything.centres[redo], stone_cells, limit)
                for j, k in enumerate(idx):
                    readings[k], visible[k], fits[k], weights[k] = r2[j], v2[j], f2[j], w2[j]
            dark, whites, tint = everything.dark, everything.whites, everything.tint
            if stone_cells and redo.any():
                # Every stone is known now: one found late may shade a cell read early (_recut_unsure).
                idx = np.nonzero(redo)[0]
                sub = [cells[k] for k in idx]
                shifts = everything.centres[redo] - _cell_centres(lattice, bend, sub)
                r5, arr = _recut_unsure(frame, fix, lattice, bend, sub, shifts,
                                        _stone_quadrants(cells, stone_cells)[redo], stone_cells, model, light, limit,
                                        [readings[k] for k in idx],
                                        tuple(a[redo] for a in (dark, whites, tint, visible, fits, weights)))
                dark, whites, tint = dark.copy(), whites.copy(), tint.copy()
                for j, k in enumerate(idx):
                    readings[k] = r5[j]
                    dark[k], whites[k], tint[k], visible[k], fits[k], weights[k] = (a[j] for a in arr)
            parts = [replace(everything, readings=readings, fits=fits, visible=visible, weights=weights, dark=dark,
                             whites=whites, tint=tint)]
            verdicts = _judge(model, readings, visible, whites, tint, fits, cells,
                              support, side_px, _stone_bearing(stone_cells, search, lattice), _paper_floor(light))
    everything = _Cells.join(parts) if parts else None

    for _, _, colour, centre in stone_cells:
        if colour is not None:
            obs["stones"].append({"center_mm": [round(centre[0], 2), round(centre[1], 2)], "colour": colour})
    unknown_colours = [s for s in stone_cells if s[2] is None]
    if unknown_colours:
        warnings.append(f"{len(unknown_colours)} coloured piece{'s' if len(unknown_colours) > 1 else ''} on the "
                        "board match no stone colour (teach the stones: tablecam calibrate colours micropul)")

    over: frozenset = frozenset()
    if everything is not None:
        verdicts, everything, over = _past_odd_quadrants(model, verdicts, cells, everything, (side_px / 60.0) ** 2)
        verdicts = _big_catalysts(verdicts, cells, everything, model)
        verdicts = _told_faces(verdicts, cells, everything.visible, (side_px / 60.0) ** 2)
    stoned = frozenset(s[0] for s in stone_cells if s[2] is not None)
    blank = _blank_tiles(verdicts, support, remembered)
    tiles = _board(verdicts, stoned, frozenset(c for c in stoned if support.get(c, 0.0) >= WEAK_SUPPORT), blank)
    if everything is None or not any(v.kind == "tile" for v in tiles.values()):
        warnings.append(NO_BOARD)
        obs["stones"] = []
        return obs
    visible, centres = everything.visible, everything.centres

    faces = _resolve_faces(model, tiles, cells, visible, remembered, warnings, (side_px / 60.0) ** 2, over)
    for cell in sorted(tiles, key=lambda c: (c[1], c[0])):
        k = cells.index(cell)
        face = faces.get(cell)
        centre = centres[k]
        entry = {"center_mm": [round(float(centre[0]), 2), round(float(centre[1]), 2)], "rotation": 0,
                 "quadrants": None, "big": None, "catalyst": None, "face_down": False, "index": None}
        if face is not None:
            found = identify(face)
            entry.update(face.as_dict())
            entry["rotation"] = found[0][1]
            indices = {i for i, _ in found}
            entry["index"] = found[0][0] if len(indices) == 1 else None
        obs["tiles"].append(entry)
    covered = [c for c, v in tiles.items() if v.kind == "covered" or (c in over and faces.get(c) is None)]
    if covered:
        warnings.append(f"{len(covered)} tile{'s are' if len(covered) > 1 else ' is'} partly hidden "
                        "(a hand or an object over the board?): shown as unknown")
    obs["stones"] = [s for s in obs["stones"] if _on_or_near(s["center_mm"], lattice, tiles)]
    board_paper = float(np.median([everything.whites[cells.index(c)].max() for c, v in tiles.items()
                                   if v.kind == "tile"]))
    for fd in find_face_down(search.grey, search.px_to_mm, search.valid, frame, fix.table_to_image, tile, board_paper,
                             np.array([t["center_mm"] for t in obs["tiles"]]).reshape(-1, 2)):
        if _hole_in_board(fd, lattice, tiles):
            continue  # the table seen through a gap among the tiles is a square of a tile's size too
        obs["tiles"].append({"center_mm": [round(fd.centre_mm[0], 2), round(fd.centre_mm[1], 2)], "rotation": 0,
                             "quadrants": None, "big": None, "catalyst": None, "face_down": True, "index": None})
    return obs


def _clear_row_winner(best, model: FaceModel) -> bool:
    """Discs in one row fit two lattices a disc's place apart, and the marks cannot tell which is
    the board: the faces must. A board of a few tiles (FEW_TILES) wins only when every tile it reads
    with a face shows it by far (NEAR_LIMIT_MARGIN): on a pale table the cell a disc's place off a
    tile, half table, half the tile's blank quadrants, fitted a face of three blanks and a disc 3.6
    ahead, while the true cell lost one quadrant to a finger (seed 7955: a tile invented **with a
    face**, and a covered one beside it). No board is the honest reading then."""
    faced = [v for v in best[4].values() if v.kind == "tile" and v.face is not None]
    if not faced or len(faced) > FEW_TILES:
        return True
    scale = (model.side_px / 60.0) ** 2
    return all(_tile_margin(model, v.reading) >= NEAR_LIMIT_MARGIN * MIN_MARGIN * scale for v in faced)


def _outline_placed(best, outline, frame, fix, search, spots_mm, strength, state, settings, model, light):
    """`best`, or the board read on the lattice the tiles' outlines place (angle and phase), when that
    reads more tiles with a face and they are clear (_clear_outline_board). With two to four tiles
    under a hand the marks are a handful and their lattice can be turned or shifted away from the
    tiles even at the outlines' angle (seeds 5133, 5618, 7158: no board found)."""
    tile = settings.tile_mm
    placed = _outline_lattice(search, outline, tile)
    if placed is None or same_lattice(placed, best[0], 1.0, OUTLINE_SAME_UNITS):
        return best
    fit = fit_on(placed, spots_mm, strength, SITE)
    # The marks did not choose this lattice: a lone faint spot near one of its sites is as likely
    # chance (seed 5133: a finger's edge on a white table beside a tile, 0.17, made a covered tile
    # there). Only spots of two spots' worth make a cell a tile the reading must account for.
    strong = replace(fit, inliers=fit.inliers & (strength >= WEAK_SUPPORT))
    reading = _read_lattice(frame, fix, search, fit.lattice, strong, spots_mm, strength, state, settings, model,
                            light)
    if _more_tiles(reading, best) and (_clear_outline_board(reading, fit, strength, model)
                                       or _many_with_discs(reading, strong, strength)):
        return reading
    return best


def _many_with_discs(reading, fit, strength: np.ndarray) -> bool:
    """The outlines' lattice reads more faces than a board of a few tiles under a hand shows, one of
    them with two disc spots on its sites (`fit`: the spots of two spots' worth only), as the lattice
    at the outlines' angle wins (seed 6485). A small board far off and blurred, its marks' lattice 16
    degrees off, read one tile **wrong** and three invented there, while the outlines' lattice read
    all five with a face (the three in view right), two of them not by far (4.1, 4.8; seed 2200262)."""
    return _board_score(reading)[0] > FEW_TILES and _tile_with_discs(reading[4], fit, strength)


OUTLINE_SAME_UNITS = 0.15  # the outlines place edges within 0.1 of a side: a lattice this near is the same board


def _clear_outline_board(reading, fit, strength: np.ndarray, model: FaceModel) -> bool:
    """Every tile read with a face on the outlines' lattice shows a disc spot on one of its sites and
    its face by far (NEAR_LIMIT_MARGIN, a big micropul over every face but its twin): the lattice
    comes from straight edges, which a hand's or a table's edges can make too, so its tiles must
    show the print themselves. The tiles these boards lost showed one or two spots each, 5.5-125
    ahead (seeds 5133, 5618, 7158)."""
    marked = {tuple(c) for c in fit.cells[fit.inliers & (strength >= MIN_SPOT)].tolist()}
    scale = (model.side_px / 60.0) ** 2
    faced = [(c, v) for c, v in reading[4].items() if v.kind == "tile" and v.face is not None]
    return bool(faced) and all(c in marked and _tile_margin(model, v.reading) >= NEAR_LIMIT_MARGIN * MIN_MARGIN * scale
                               for c, v in faced)


MAX_GROWTH_ROUNDS = 12
FALLBACK_LATTICES = 2  # other lattices read when the marks' own shows no tile (board_lattice.other_fits)
# Cells fitting this much worse than a tile are still aligned, then judged. A big micropul's disc two
# pixels off its place fits up to 3 times worse than the limit in one quadrant (seed 5653: a big tile
# placed by a lattice of two discs beside two stones, 2.8-3.0; not aligned at 2.5, it was missed);
# 3.5 aligns one cell more in 450 (seeds 3000-3019).
ALIGN_LOOSENESS = 3.5
REREAD_SHIFT_PX = 0.3  # a tile found further than this from its lattice place is cut out again


def _neighbours(cell: tuple[int, int]) -> list[tuple[int, int]]:
    i, j = cell
    return [(i + 1, j), (i - 1, j), (i, j + 1), (i, j - 1)]


@dataclass(frozen=True, eq=False)
class _Cells:
    """What was read of some cells, in their order."""

    centres: np.ndarray
    visible: np.ndarray
    readings: list
    dark: np.ndarray
    whites: np.ndarray
    tint: np.ndarray
    fits: np.ndarray  # the best face fits closely, with ink where it has micropul (see _fits)
    weights: np.ndarray  # per pixel of `dark`: 0 where a stone leans over the cell or shades it
    stones_known: np.ndarray  # (N,) int: how many of the board's stones were known when each cell was read

    @staticmethod
    def join(parts: list["_Cells"]) -> "_Cells":
        return _Cells(np.concatenate([p.centres for p in parts]), np.concatenate([p.visible for p in parts]),
                      [r for p in parts for r in p.readings], np.concatenate([p.dark for p in parts]),
                      np.concatenate([p.whites for p in parts]), np.concatenate([p.tint for p in parts]),
                      np.concatenate([p.fits for p in parts]), np.concatenate([p.weights for p in parts]),
                      np.concatenate([p.stones_known for p in parts]))


def _read_lattice(frame, fix, search: _Search, lattice: Lattice, fit, spots_mm, strength, state, settings, model,
                  light):
    """Read the cells with discs and their neighbours, then the neighbours of every tile found, until
    the board is closed (a tile of W rings alone may show no disc spot at search resolution)."""
    # Cells with micropul discs printed on paper (clutter on a hand or the table may sit on a site too).
    support: dict[tuple[int, int], float] = {}
    on_board = fit.inliers & (strength >= MIN_SPOT)
    for w, c in zip(strength[on_board], lattice.cell_of(spots_mm[on_board])):
        key = (int(c[0]), int(c[1]))
        support[key] = support.get(key, 0.0) + float(w)
    # Tiles that a hand cuts off from the rest of the board are still on its lattice: a cell beyond
    # the main group counts when two of its sites carry a disc (one spot on a site may be chance).
    residual, spot_cells, signs = site_residuals(lattice, fit.bend, spots_mm, SITE)
    beyond = ~fit.inliers & (residual < TIGHT_UNITS) & (strength >= MIN_SPOT)
    sites_by_cell: dict[tuple[int, int], set] = {}
    for c, sg in zip(spot_cells[beyond], signs[beyond]):
        sites_by_cell.setdefault((int(c[0]), int(c[1])), set()).add((int(sg[0]), int(sg[1])))
    for key, sites in sites_by_cell.items():
        if len(sites) >= 2 and key not in support:
            support[key] = float(len(sites)) * MIN_SPOT
    remembered = _remembered_tiles(state, lattice)
    frontier = set(support) | set(remembered)
    for cell in list(frontier):
        frontier |= set(_neighbours(cell))
    # A cell beyond with one disc on a site is read too, without the support of discs (it must
    # read as a tile on its own, face and paper): a tile or two cut off beyond a hand whose only
    # disc spot is one ring, a big tile beside it showing none (seed 3350, and 100002003 of the
    # tests, a stone on the big tile).
    frontier |= {key for key in sites_by_cell if key not in support}
    side_px = model.side_px
    cells: list[tuple[int, int]] = []
    parts: list[_Cells] = []
    stone_cells: list = []
    verdicts: dict = {}
    table: set = set()  # cells whose colour is the table's, not paper: not cut out and read
    for _ in range(MAX_GROWTH_ROUNDS):
        new = sorted(frontier - set(cells) - table, key=lambda c: (c[1], c[0]))
        looks_table, some_paper = _coloured_ground(search, lattice, new)
        maybe_table = {c for c, t in zip(new, looks_table) if t and c not in support and c not in remembered}
        # A hand over most of a tile makes its cell look like the table, yet the stone it carries
        # shows, with the tile's paper beside it (a stone in a supply on the table has none).
        found_stones = _find_stones(search, lattice, [c for c, p in zip(new, some_paper)
                                                      if c not in maybe_table or p], settings, frame)
        on_paper = {s[0] for s in found_stones
                    if s[0] in maybe_table and s[2] is not None and _paper_beside(search, s[3])}
        table |= maybe_table - on_paper
        new = [c for c in new if c not in table]
        if not new:
            break
        stone_cells += [s for s in found_stones if s[0] not in table]
        parts.append(_read_new_cells(frame, fix, lattice, fit.bend, new, stone_cells, model, light))
        cells += new
        everything = _Cells.join(parts)
        verdicts = _judge(model, everything.readings, everything.visible, everything.whites, everything.tint,
                          everything.fits, cells, support, side_px, _stone_bearing(stone_cells, search, lattice),
                          _paper_floor(light))
        frontier = set()
        for cell, v in verdicts.items():
            if v.kind != "none":
                frontier |= set(_neighbours(cell))
        frontier |= _beyond_covered(verdicts, cells, everything, _paper_floor(light))
    return lattice, cells, parts, stone_cells, verdicts, support, remembered, fit.bend


def _beyond_covered(verdicts: dict, cells: list, read: "_Cells", paper_floor: float | None) -> set:
    """The neighbours of cells that are no tile as read, partly paper and partly coloured (or with
    one quadrant alone far off its face), next to a tile: a hand over a tile may leave it without a
    disc or a face, and the tiles beyond it unreached (a big tile shows no disc spot: seeds 4024,
    5053). They stand on their own once read. (Bare
    pale table beside the board is partly paper too, but nothing coloured lies over it: reading
    beyond it read a third more cells for nothing.)"""
    paper_ok = np.where(read.visible, read.tint, 0.0).max(axis=1) <= MAX_PAPER_TINT
    board_white = _board_white(read.whites, read.fits, paper_ok, paper_floor)
    out: set = set()
    if board_white is None:
        return out
    for k, cell in enumerate(cells):
        if verdicts[cell].kind != "none":
            continue
        over = _something_over(k, read.tint, read.visible) or _one_quadrant_over(read.readings[k], read.visible[k])
        # A finger in its own shade (not coloured) over half a tile whose other half shows micropul
        # that fit: the tile is there, and it may join a column of tiles beyond the hand to a
        # tile the hand covers in part (seed 5511: two tiles and a stone beyond a hand missed).
        half = _half_over(read.readings[k], read.visible[k])
        if not (over or half):
            continue
        beside = ("tile", "covered") if half else ("tile",)
        if _partly_paper(k, read.whites, read.tint, board_white) \
                and any(n in verdicts and verdicts[n].kind in beside for n in _neighbours(cell)):
            out |= set(_neighbours(cell))
    return out


# The face read on half a tile must win by far (margin in MIN_MARGIN units) to grow the board past
# it: the table beside a board passed the other tests of _half_over twice as often as a tile did,
# and grew the board onto table at 0.7-4.0 (seeds 5496, 5893, 5898); the finger over half a tile
# on seed 5511 left a face read at 11.9.
HALF_OVER_MARGIN = 5.0


def _half_over(r: FaceReading, visible: np.ndarray) -> bool:
    """Two visible quadrants or more fit the face closely and show micropul ink there (template
    energy), the others do not fit at all, and the face is read by far: something lies over part
    of a tile."""
    errors = np.asarray(r.quadrant_error, dtype=np.float64)
    close = np.asarray(visible, bool) & (errors <= MAX_QUADRANT_ERROR)
    off = np.asarray(visible, bool) & (errors > MAX_QUADRANT_ERROR)
    return bool(close.sum() >= 2 and off.any() and r.face is not None and r.margin >= HALF_OVER_MARGIN * MIN_MARGIN
                and _micropul_quadrants(r.face, close) > 0)


def _micropul_quadrants(face: Face, which: np.ndarray) -> int:
    """How many of the quadrants `which` (in QUADRANTS order) carry a micropul on `face`."""
    if face.big:
        return int(np.asarray(which, bool).sum())
    return sum(1 for q, w in zip(QUADRANTS, which) if w and face.quadrant(q) in ("W", "B"))


def _reads_the_same(read: "_Cells", lattice: Lattice, stones: list) -> np.ndarray:
    """(N,) bool: cells that a new reading near the stones, at a blur the reading already has, would
    read exactly as before (time saved, nothing else): no stone found since the cell was read can
    reach it, the face fitted, and not only once the wide reach was masked (_read_shaded)."""
    n = len(read.centres)
    if n == 0 or not stones:
        return np.ones(n, bool)
    stone_mm = np.array([s[3] for s in stones], dtype=np.float64).reshape(-1, 2)
    # Every stone that could touch a pixel of the cell (as _stone_weights, and a millimetre more).
    reach = STONE_SHADE_WIDE_MM + lattice.pitch_mm / math.sqrt(2) + 1.0
    d = np.hypot(read.centres[:, None, 0] - stone_mm[None, :, 0], read.centres[:, None, 1] - stone_mm[None, :, 1])
    found_later = np.arange(len(stones))[None, :] >= read.stones_known[:, None]
    same = ~((d < reach) & found_later).any(axis=1) & np.asarray(read.fits, bool)
    if same.any():
        # A reading with the wide reach masked (its weights are 0 beyond the narrow reach somewhere)
        # came from a retry that a narrower blur limit could change.
        narrow = _stone_weights(lattice, read.centres[same], stones, read.weights.shape[1], STONE_SHADE_MM)
        same[np.nonzero(same)[0]] = (narrow == read.weights[same]).reshape(int(same.sum()), -1).all(axis=1)
    return same


FEW_TILES = 3  # a board read with this many faces or fewer is checked against the tiles' outlines
OUTLINE_DISAGREES_DEG = 8.0  # the lattices that lost tiles were 15-45 degrees off; closer is the lines' own scatter
OUTLINE_REACH_MM = 37.0  # around the disc spots: the tiles they lie on and their outlines
OUTLINE_MIN_LINE_MM = 18.0  # a straight edge this long (a tile's side is 30 mm; rings are curved)
OUTLINE_LINES = 20  # the strongest lines vote
# The box the outlines are looked for in holds the marks this near the strongest only: a speck far
# off widened it to 200 x 330 mm (seed 6485), where a hand's long edges outvoted the tiles'.
OUTLINE_BOX_MM = 90.0
OUTLINE_SPECK_SHARE = 0.5  # of the heaviest marks' weight within reach: less, a lone strongest mark is a speck
OUTLINE_PAPER_PX = 2  # an edge counts within this many pixels of paper: tiles' sides and gaps have paper beside
OUTLINE_PITCH_MM = 2.0  # two parallel outlines a whole number of tiles apart, give or take this
OUTLINE_PITCHES = (1, 2, 3)
OUTLINE_PEAKS = 3  # the angles tried, most voted first
OUTLINE_PARALLEL_DEG = 1.5


def _outline_angle(search: _Search, spots_mm: np.ndarray, strength: np.ndarray,
                   tile_mm: float = TILE_MM) -> float | None:
    """The angle (degrees, mod 90) the straight edges beside paper near the disc spots share, where two
    of them lie a whole number of tiles apart: tiles' sides and the gaps between tiles, whatever
    the marks say; None without such edges. Wood grain, a cloth's weave and a hand's edges on the
    table have no paper beside them; a finger's edges over a tile do, but are not a tile apart."""
    found = _outline(search, spots_mm, strength, tile_mm)
    return None if found is None else found[0]


def _outline(search: _Search, spots_mm: np.ndarray, strength: np.ndarray,
             tile_mm: float = TILE_MM) -> tuple[float, np.ndarray, tuple, tuple] | None:
    """_outline_angle's angle, the Hough lines (rho, theta) it came from, the most voted first, the
    top left corner of the box they were found in and its middle (search px)."""
    keep = strength >= MIN_SPOT
    marks = spots_mm[keep]
    if len(marks) == 0:
        return None
    # Around the strongest mark, unless it is alone within reach and the marks around another weigh
    # more than twice as much: a speck on a pale table 150 mm off outweighed every disc of a board by
    # a hair, and the box held it alone (seed 7358, no board found). (Around the heaviest marks always,
    # or whenever they weigh twice the strongest's, turned the angle wrong on more frames of 5000-5399
    # and 7000-7399 than it mended: 6 against 4, 1 against 3; alone, none against 1.)
    close = np.hypot(marks[:, None, 0] - marks[None, :, 0], marks[:, None, 1] - marks[None, :, 1]) <= OUTLINE_BOX_MM
    reach = close @ strength[keep]
    centre = int(np.argmax(strength[keep]))
    if close[centre].sum() == 1 and reach[centre] < OUTLINE_SPECK_SHARE * reach.max():
        centre = int(np.argmax(reach))
    marks = marks[close[centre]]
    px = search.mm_to_px(marks)
    pad = OUTLINE_REACH_MM * search.ppm
    h, w = search.grey.shape
    x0, y0 = np.maximum(np.floor(px.min(axis=0) - pad).astype(int), 0)
    x1, y1 = np.minimum(np.ceil(px.max(axis=0) + pad).astype(int), (w, h))
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    box = (slice(y0, y1), slice(x0, x1))
    edges = cv2.Canny(search.grey[box], 30, 80)
    paper = _paper_pixels(search, box)
    if paper is not None:
        side = 2 * OUTLINE_PAPER_PX + 1
        edges &= cv2.dilate(paper.view(np.uint8), np.ones((side, side), np.uint8)) * np.uint8(255)
    lines = cv2.HoughLines(edges, 1, np.pi / 360, int(round(OUTLINE_MIN_LINE_MM * search.ppm)))
    if lines is None:
        return None
    lines = lines[:, 0, :]
    # A line's normal angle, mod 90: a square lattice's sides share one. The strongest lines first.
    angles = (np.degrees(lines[:OUTLINE_LINES, 1]) + 45.0) % 90.0 - 45.0
    votes = np.zeros(90)
    np.add.at(votes, np.round(angles + 45.0).astype(int) % 90, 1.0 / (1.0 + 0.1 * np.arange(len(angles))))
    votes = votes + np.roll(votes, 1) + np.roll(votes, -1)
    tried: list[int] = []
    for top in np.argsort(-votes, kind="stable"):
        if votes[top] <= 0 or len(tried) == OUTLINE_PEAKS:
            break
        if any(min((top - t) % 90, (t - top) % 90) <= 2 for t in tried):
            continue  # a bin beside a peak already tried is that peak (the votes were smoothed over 3 bins)
        tried.append(int(top))
        off = (angles - (top - 45) + 45.0) % 90.0 - 45.0
        near = np.abs(off) <= OUTLINE_PARALLEL_DEG
        angle = float(top - 45 + off[near].mean()) if near.any() else float(top - 45)
        if _tiles_apart(lines, angle, search.ppm * tile_mm, search.ppm * OUTLINE_PITCH_MM):
            return angle, lines, (x0, y0), ((x0 + x1) / 2.0, (y0 + y1) / 2.0)
    return None


def _lines_mm(search: _Search, lines: np.ndarray, corner: tuple[int, int], middle: tuple[float, float]) -> np.ndarray:
    """Hough lines (rho, theta) of a box whose top left is `corner` (search px) -> (N, 4) table mm:
    the unit normal and the point of the line nearest `middle` (search px). Near the tiles: a line
    a degree off an axis drifts along it by 7 mm over 400 mm. The search image is the table scaled
    (mm_to_px has no turn), so the normal keeps its direction."""
    normal = np.stack([np.cos(lines[:, 1]), np.sin(lines[:, 1])], axis=1).astype(np.float64)
    m = np.asarray(middle, np.float64) - np.asarray(corner, np.float64)
    nearest = m + normal * (lines[:, :1] - (normal * m).sum(axis=1, keepdims=True))
    return np.column_stack([normal, search.px_to_mm(nearest + np.asarray(corner, np.float64))])


# The lines near the outline angle are the tiles' sides and the gaps between them: on the tuning
# frames where the marks' lattice was turned or shifted (5133, 5618, 6293, 5650, 5348) 92-100 % of
# their votes lay within 0.1 of a side from a cell's edge (3 mm). They must agree about that well on
# where the edges are (the mean resultant of their phases on the unit circle) to place the lattice.
OUTLINE_PHASE_AGREEMENT = 0.8


def _outline_lattice(search: _Search, outline: tuple, tile_mm: float) -> Lattice | None:
    """The lattice at the outline angle whose cell edges lie on the outline lines (_outline) along
    both of its axes, or None when either axis has no such line or they disagree on the phase."""
    angle_deg, lines, corner, middle = outline
    lines_mm = _lines_mm(search, lines, corner, middle)
    a = math.radians(angle_deg)
    axes = np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
    origin = np.zeros(2)
    for axis in axes:
        cos_off = lines_mm[:, :2] @ axis  # the line runs across this axis when its normal lies along it
        across = np.abs(cos_off) >= math.cos(math.radians(OUTLINE_PARALLEL_DEG))
        if not across.any():
            return None
        # Where the line crosses the axis near the tiles: an edge between cells, half a cell from a centre.
        along = lines_mm[across, 2:] @ axis
        phase = np.exp(2j * np.pi * (along / tile_mm - 0.5))
        weight = 1.0 / (1.0 + 0.1 * np.nonzero(across)[0])  # the most voted lines count most (as the angle's)
        mean = (weight * phase).sum() / weight.sum()
        if abs(mean) < OUTLINE_PHASE_AGREEMENT:
            return None
        origin += axis * tile_mm * (np.angle(mean) / (2 * np.pi))
    return Lattice(float(angle_deg), (float(origin[0]), float(origin[1])), tile_mm)


def _paper_pixels(search: _Search, box) -> np.ndarray | None:
    """Which pixels of the box are paper: neutral once white balanced and not dark against the
    markers' paper; None when the light is not known."""
    if search.light is None:
        return None
    tint = colourfulness(search.light.correct(search.bgr[box]), search.white[box])
    return (tint <= MAX_PAPER_TINT) & (search.grey[box] >= _paper_floor(search.light))


def _tiles_apart(lines: np.ndarray, angle_deg: float, tile_px: float, tolerance_px: float) -> bool:
    """Two of the Hough lines (rho, theta) run along `angle_deg` or across it and lie 1-3 tiles apart."""
    theta = np.degrees(lines[:, 1])
    for direction in (angle_deg, angle_deg + 90.0):
        off = (theta - direction + 180.0) % 360.0 - 180.0  # theta and theta + 180 are one line, rho flipped
        flipped = np.abs(off) > 90.0
        along = np.abs((off + 90.0) % 180.0 - 90.0) <= OUTLINE_PARALLEL_DEG
        rho = np.where(flipped, -lines[:, 0], lines[:, 0])[along]
        gaps = np.abs(rho[:, None] - rho[None, :])
        if any((np.abs(gaps - k * tile_px) <= tolerance_px).any() for k in OUTLINE_PITCHES):
            return True
    return False


def _tile_with_discs(verdicts: dict, fit, strength: np.ndarray, least: int = 2) -> bool:
    """A cell read as a tile with a face carries `least` disc spots on the fit's sites."""
    marked = fit.cells[fit.inliers & (strength >= MIN_SPOT)]
    counts: dict = {}
    for c in marked.tolist():
        counts[tuple(c)] = counts.get(tuple(c), 0) + 1
    return any(v.kind == "tile" and v.face is not None and counts.get(c, 0) >= least for c, v in verdicts.items())


def _clearly_truer(reading, than, fit, strength: np.ndarray, model: FaceModel) -> bool:
    """`reading` (the lattice at the outlines' angle) reads as many faces as `than` (the marks'
    lattice, turned away from it), each of them on a disc spot and by far (_clear_outline_board),
    while none of `than`'s is by far: the two lattices cannot both be the board, and only this one's
    tiles show it (seed 2200050: a hand over most of a board, the marks' lattice 46 degrees off read
    one cell 4.6 ahead, the outlines' lattice the tile beside the hand 13.5 ahead; no board was found)."""
    count = _board_score(reading)[0]
    if count == 0 or count != _board_score(than)[0]:
        return False
    scale = (model.side_px / 60.0) ** 2
    clear = NEAR_LIMIT_MARGIN * MIN_MARGIN * scale
    faced = [v for v in than[4].values() if v.kind == "tile" and v.face is not None]
    if any(_tile_margin(model, v.reading) >= clear for v in faced):
        return False
    return _clear_outline_board(reading, fit, strength, model)


def _more_tiles(reading, than) -> bool:
    """`reading` reads more tiles with a face than `than` (a lattice that only reads the same tiles a
    little more clearly is the same board, a hair's breadth away: it changes nothing worth a switch)."""
    return _board_score(reading)[0] > _board_score(than)[0]


def _board_score(reading) -> tuple[int, float]:
    """Tiles read with a face, then how clearly: the better of two candidate lattices."""
    verdicts = reading[4]
    faced = [v for v in verdicts.values() if v.kind == "tile" and v.face is not None]
    return len(faced), sum(min(v.reading.margin, 50.0) for v in faced)


def _read_new_cells(frame, fix, lattice: Lattice, bend, cells: list, stones: list, model: FaceModel,
                    light) -> _Cells:
    """Read cells: cut, read, align each tile-looking cell on its own ink, read again."""
    tile = lattice.pitch_mm
    side_px = model.side_px
    centres = _cell_centres(lattice, bend, cells)
    shifts = np.zeros((len(cells), 2))  # mm, from each cell's lattice place to its tile
    under_stones = _stone_quadrants(cells, stones)
    margin_px = int(round(PATCH_MARGIN_MM * side_px / tile))
    # The pixels near stones are known before the cells are cut: an edge's fade is measured without them.
    seen = _stone_weights(lattice, centres, stones, side_px, STONE_SHADE_MM)
    patches, grey, dark, whites = _cut_cells(frame, fix, lattice, bend, cells, shifts, model, seen)
    readings, visible, fits, weights = _read_shaded(model, dark, under_stones, lattice, centres, stones,
                                                    weights=seen)
    tint = _paper_tint(patches, grey, light, side_px, margin_px, weights)
    # Align each tile on its own ink (a big tile's thin ring and the small catalysts are sensitive
    # to half a pixel), then read again. Table cells keep their place: aligning them on clutter
    # would only help clutter look like a tile.
    # Align what may be a tile: a misplaced thin ring fits loosely until it is aligned.
    # (A cell that fits closely fits loosely too: only the others are asked, row by row the same.)
    loose = np.array(fits, bool).copy()
    if not loose.all():
        rest = ~loose
        loose[rest] = _fits(model, [r for r, f in zip(readings, rest) if f], dark[rest], visible[rest], ALIGN_LOOSENESS,
                            weights[rest])
    looks = loose & (np.where(visible, tint, 0.0).max(axis=1) <= MAX_PAPER_TINT)
    shift_px = np.zeros((len(cells), 2))
    if looks.any():
        shift_px[looks] = alignment(model, [r for r, ok in zip(readings, looks) if ok], dark[looks], visible[looks],
                                    weights=weights[looks])
    # Read again where the shift matters (most tiles sit on the lattice within a fifth of a pixel).
    again = np.hypot(shift_px[:, 0], shift_px[:, 1]) > REREAD_SHIFT_PX
    if again.any():
        shifts[again] = (shift_px[again] / (side_px / tile)) @ lattice.rotation.T
        centres = centres + shifts
        seen2 = _stone_weights(lattice, centres[again], stones, side_px, STONE_SHADE_MM)
        p2, g2, d2, w2 = _cut_cells(frame, fix, lattice, bend, [c for c, a in zip(cells, again) if a],
                                    shifts[again], model, seen2)
        r2, v2, f2, wt2 = _read_shaded(model, d2, under_stones[again], lattice, centres[again], stones,
                                       weights=seen2)
        t2 = _paper_tint(p2, g2, light, side_px, margin_px, wt2)
        idx = np.nonzero(again)[0]
        dark, whites, tint, visible, fits, weights = (a.copy() for a in (dark, whites, tint, visible, fits, weights))
        readings = list(readings)
        grey = grey.copy()
        for j, k in enumerate(idx):
            dark[k], whites[k], tint[k], readings[k], fits[k] = d2[j], w2[j], t2[j], r2[j], f2[j]
            visible[k], weights[k], grey[k] = v2[j], wt2[j], g2[j]
    # A paper cell that fits only loosely may lie under a shadow's soft edge: read it once more
    # against a white that follows the light across the tile.
    graded = ~np.asarray(fits, bool) & looks
    if graded.any():
        idx = np.nonzero(graded)[0]
        d3 = graded_darkness(grey[graded], side_px, margin_px, weights[graded] if stones else None)
        # (A cell that did not fit kept its narrow stone weights: at its place as it now stands.)
        r3, v3, f3, w3 = _read_shaded(model, d3, under_stones[graded], lattice, centres[graded], stones,
                                      weights=weights[graded])
        if f3.any():
            dark, visible, fits, weights = (a.copy() for a in (dark, visible, fits, weights))
            readings = list(readings)
            for j, k in enumerate(idx):
                if f3[j]:
                    dark[k], readings[k], visible[k], fits[k], weights[k] = d3[j], r3[j], v3[j], True, w3[j]
    if stones:
        readings, (dark, whites, tint, visible, fits, weights) = _recut_unsure(
            frame, fix, lattice, bend, cells, centres - _cell_centres(lattice, bend, cells), under_stones, stones,
            model, light, None, readings, (dark, whites, tint, visible, fits, weights))
    return _Cells(centres, visible, readings, dark, whites, tint, fits, weights, np.full(len(cells), len(stones)))


def _recut_unsure(frame, fix, lattice: Lattice, bend, cells: list, shifts: np.ndarray, under_stones: np.ndarray,
                  stones: list, model: FaceModel, light, max_blur, readings: list, arrays: tuple):
    """A face left unsure beside a stone: cut once more with the stones' wide reach left out of the
    edges' fades too, and read so. _read_shaded's wide retry masks those pixels, but the stone's
    shade over part of an edge's middle, past the narrow reach, was already taken off along the whole
    edge (tile_darkness.remove_edge_spill) and faded the one-dot in the corner of the next quadrant
    (seed 1800197: 0.3 ahead, the tile unknown; cut so, right and 4.6 ahead). Taken when it fits and
    its face is sure. `arrays`: (dark, whites, tint, visible, fits, weights) of the cells; returns
    (readings, arrays), new or as given."""
    dark, whites, tint, visible, fits, weights = arrays
    side_px = model.side_px
    centres = _cell_centres(lattice, bend, cells) + shifts
    wide = _unsure_beside_stones(readings, fits, lattice, centres, stones, side_px)
    if wide is None:
        return readings, arrays
    sel, seen = wide
    if not sel.any():
        return readings, arrays
    idx = np.nonzero(sel)[0]
    p4, g4, d4, w4 = _cut_cells(frame, fix, lattice, bend, [cells[k] for k in idx], shifts[sel], model, seen)
    r4 = read_faces(model, d4, under_stones[sel], max_blur, seen)
    v4 = np.array([r.visible for r in r4], bool).reshape(-1, 4)
    f4 = np.array(_fits(model, r4, d4, v4, weights=seen), bool).reshape(-1)
    least = MIN_MARGIN * (side_px / 60.0) ** 2
    take = [j for j in range(len(idx)) if f4[j] and r4[j].margin >= least]
    if not take:
        return readings, arrays
    margin_px = int(round(PATCH_MARGIN_MM * side_px / lattice.pitch_mm))
    t4 = _paper_tint(p4, g4, light, side_px, margin_px, seen)
    dark, whites, tint, visible, fits, weights = (a.copy() for a in arrays)
    readings = list(readings)
    for j in take:
        k = idx[j]
        dark[k], whites[k], tint[k], readings[k], fits[k] = d4[j], w4[j], t4[j], r4[j], True
        visible[k], weights[k] = v4[j], seen[j]
    return readings, (dark, whites, tint, visible, fits, weights)


def _unsure_beside_stones(readings, fits, lattice: Lattice, centres: np.ndarray, stones: list, side_px: int):
    """(cells whose face fits but is unsure and whose pixels the stones' wide reach touches, those
    cells' wide weights), or None."""
    least = MIN_MARGIN * (side_px / 60.0) ** 2
    unsure = np.array([bool(f) and r.margin < least for r, f in zip(readings, fits)], bool)
    if not unsure.any():
        return None
    wide = _stone_weights(lattice, centres[unsure], stones, side_px, STONE_SHADE_WIDE_MM)
    near = wide.reshape(len(wide), -1).min(axis=1) < 1.0
    unsure[np.nonzero(unsure)[0][~near]] = False
    return unsure, wide[near]


# From a stone's centre, what its body (seen at a slant it leans over the next quadrant or tile)
# and its shadow may cover. Masking the wide reach always would also hide the catalysts of the
# tiles around (then unsure): the narrow one is used first, the wide one where the tile does not
# fit without it.
STONE_SHADE_MM = 10.0
STONE_SHADE_WIDE_MM = 12.5


def _read_shaded(model: FaceModel, dark: np.ndarray, under_stones: np.ndarray, lattice: Lattice,
                 centres: np.ndarray, stones: list, max_blur: int | None = None, weights: np.ndarray | None = None):
    """Read the cells' faces with the pixels near stones left out: (readings, visible quadrants,
    fits, pixel weights). `weights`: the cells' narrow stone weights when already known."""
    side_px = model.side_px
    if weights is None:
        weights = _stone_weights(lattice, centres, stones, side_px, STONE_SHADE_MM)
    readings = read_faces(model, dark, under_stones, max_blur, weights)
    visible = np.array([r.visible for r in readings], bool).reshape(-1, 4)
    fits = np.array(_fits(model, readings, dark, visible, weights=weights), bool).reshape(-1)
    # A face left unsure beside a stone is read once more too, without the wide reach: its shade past
    # the narrow reach can blur a catalyst (taken only when the face is then sure; _recut_unsure also
    # cuts such a cell again, its edges' fades measured without that shade).
    least = MIN_MARGIN * (side_px / 60.0) ** 2
    unsure = np.array([r.margin < least for r in readings], bool).reshape(-1)
    retry = (~fits | unsure) if stones else np.zeros(len(fits), bool)
    if retry.any():
        wide = _stone_weights(lattice, centres[retry], stones, side_px, STONE_SHADE_WIDE_MM)
        near = wide.reshape(len(wide), -1).min(axis=1) < 1.0
        retry[np.nonzero(retry)[0][~near]] = False
        wide = wide[near]
    if retry.any():
        r2 = read_faces(model, dark[retry], under_stones[retry], max_blur, wide)
        v2 = np.array([r.visible for r in r2], bool).reshape(-1, 4)
        f2 = np.array(_fits(model, r2, dark[retry], v2, weights=wide), bool)
        readings = list(readings)
        weights = weights.copy()  # (the caller's array, when it passed one, stays as it gave it)
        for j, k in enumerate(np.nonzero(retry)[0]):
            if f2[j] and (not fits[k] or r2[j].margin >= least):
                readings[k], visible[k], fits[k], weights[k] = r2[j], v2[j], True, wide[j]
    return readings, visible, fits, weights


GROUND_TINT = 0.3  # twice what paper may show: the brightest half of a cell this coloured is no tile


def _coloured_ground(search: _Search, lattice: Lattice, cells: list) -> tuple[np.ndarray, np.ndarray]:
    """(N,) bool: cells whose brightest half is clearly coloured once white balanced (wood, cloth):
    the table around the board, which need not be cut out and read. A tile's paper is grey there
    whatever lies on part of it (a stone, a finger). And (N,) bool: cells where some points are
    paper all the same (a hand over most of a tile)."""
    n = len(cells)
    if n == 0 or search.light is None:
        return np.zeros(n, bool), np.ones(n, bool)
    steps = (np.arange(7) - 3) / 3 * 0.35  # 7 x 7 points over the inner 70 % of a cell
    gu, gv = np.meshgrid(steps, steps)
    units = np.array(cells, dtype=np.float64)[:, None, :] + np.stack([gu.ravel(), gv.ravel()], axis=1)[None]
    px = np.round(search.mm_to_px(lattice.to_mm(units.reshape(-1, 2)))).astype(int)
    h, w = search.grey.shape
    px[:, 0] = np.clip(px[:, 0], 0, w - 1)
    px[:, 1] = np.clip(px[:, 1], 0, h - 1)
    colours = search.bgr[px[:, 1], px[:, 0]].reshape(n, -1, 3).astype(np.float64)
    half = colours.shape[1] // 2
    order = np.argsort(colours.sum(axis=2), axis=1)[:, half:]
    bright = np.take_along_axis(colours, order[..., None], axis=1).mean(axis=1)
    balanced = search.light.correct_colours(bright)
    tint = (balanced.max(axis=1) - balanced.min(axis=1)) / np.maximum(balanced.mean(axis=1), 1.0)
    every = search.light.correct_colours(colours.reshape(-1, 3)).reshape(colours.shape)
    point_tint = (every.max(axis=2) - every.min(axis=2)) / np.maximum(every.mean(axis=2), 1.0)
    paper = (point_tint <= MAX_PAPER_TINT) & (every.mean(axis=2) / 243.0 >= PAPER_VS_MARKERS)
    return tint > GROUND_TINT, paper.sum(axis=1) >= PAPER_BESIDE_MIN_POINTS


def _near_stones(centres: np.ndarray, stones: list, reach_mm: float) -> np.ndarray:
    """(N,) bool: cells whose centre lies within `reach_mm` of a stone."""
    if not stones or len(centres) == 0:
        return np.zeros(len(centres), bool)
    stone_mm = np.array([s[3] for s in stones], dtype=np.float64).reshape(-1, 2)
    d = np.hypot(centres[:, None, 0] - stone_mm[None, :, 0], centres[:, None, 1] - stone_mm[None, :, 1])
    return d.min(axis=1) < reach_mm


def _stone_quadrants(cells: list, stones: list) -> np.ndarray:
    """(N, 4) bool: False for the quadrant each stone lies on (a stone sits on a micropul)."""
    visible = np.ones((len(cells), 4), bool)
    index = {c: k for k, c in enumerate(cells)}
    for cell, quadrant, _, _ in stones:
        if cell in index:
            visible[index[cell], QUADRANTS.index(quadrant)] = False
    return visible


def _stone_weights(lattice: Lattice, centres: np.ndarray, stones: list, side_px: int, reach_mm: float) -> np.ndarray:
    """(N, side, side) pixel weights of the cells' patches: 0 within `reach_mm` of a stone.
    A stone seen at a slant leans over the next quadrant or tile, and its shadow falls there: those
    pixels say nothing about the print, and would make a good tile look covered or misread."""
    n = len(centres)
    weights = np.ones((n, side_px, side_px), np.float32)
    if n == 0 or not stones:
        return weights
    stone_mm = np.array([s[3] for s in stones], dtype=np.float64).reshape(-1, 2)
    pitch = lattice.pitch_mm
    reach = reach_mm + pitch / math.sqrt(2)
    # (cells, stones): the stones near enough to reach into each cell
    near = np.hypot(centres[:, None, 0] - stone_mm[None, :, 0], centres[:, None, 1] - stone_mm[None, :, 1]) < reach
    if not near.any():
        return weights
    local = _pixel_offsets(side_px, pitch, lattice.angle_deg)  # (P, 2) mm from the centre
    # Only the (cell, stone) pairs in reach: most cells near a stone are near one or two of the
    # board's stones, and every pixel's distance to the others was computed for nothing. The same
    # distances as over all pairs; a pixel is kept when it is out of reach of each of its cell's stones.
    kk, ss = np.nonzero(near)  # sorted by cell
    dx = (centres[kk, 0, None] + local[None, :, 0]) - stone_mm[ss, 0, None]  # (pairs, P)
    dy = (centres[kk, 1, None] + local[None, :, 1]) - stone_mm[ss, 1, None]
    # The squared distance against the squared reach (a third of np.hypot's time); the few pixels
    # within rounding of the reach are decided by np.hypot itself, as before: the same weights.
    d2 = dx * dx
    d2 += dy * dy
    r2 = reach_mm * reach_mm
    far = d2 >= r2
    close_call = np.abs(d2 - r2) <= STONE_REACH_ROUNDING * r2
    if close_call.any():
        far[close_call] = np.hypot(dx[close_call], dy[close_call]) >= reach_mm
    flat = weights.reshape(n, -1)
    for k, f in zip(kk.tolist(), far):
        flat[k][~f] = 0.0
    return weights


STONE_REACH_ROUNDING = 1e-9  # relative: far wider than float64's rounding of a squared distance (1e-15)


@lru_cache(maxsize=32)
def _pixel_offsets(side_px: int, pitch_mm: float, angle_deg: float) -> np.ndarray:
    """(side * side, 2) read-only: each patch pixel's centre from the cell's centre, table mm (row-major)."""
    offsets = ((np.arange(side_px) + 0.5) / side_px - 0.5) * pitch_mm  # pixel centres along a side, mm
    gx, gy = np.meshgrid(offsets, offsets)
    local = np.stack([gx.ravel(), gy.ravel()], axis=1) @ Lattice(angle_deg, (0.0, 0.0), pitch_mm).rotation.T
    local.flags.writeable = False
    return local


def _cut_cells(frame, fix, lattice: Lattice, bend, cells: list, shifts_mm: np.ndarray, model: FaceModel,
               seen: np.ndarray | None = None):
    """Cut the cells out of the frame: (colour patches, grey, ink darkness, quadrant whites). Each
    patch follows its cell of the bent lattice (without a lens profile a wide lens shrinks the
    tiles near the frame's edge by a few per cent, and turns them a little), moved by `shifts_mm`.
    `seen`: the stones' pixel weights of the cells (tile_darkness), or None."""
    side_px = model.side_px
    ppm = side_px / lattice.pitch_mm
    margin_px = int(round(PATCH_MARGIN_MM * ppm))
    n = side_px + 2 * margin_px
    half = n / 2 / side_px  # the patch's half side, in cells
    first, last = -half + 0.5 / side_px, half - 0.5 / side_px  # pixel centres at the patch's corners
    offsets = np.array([[first, first], [last, first], [last, last], [first, last]])
    units = np.array(cells, dtype=np.float64).reshape(-1, 1, 2) + offsets[None]
    flat = units.reshape(-1, 2)
    corners = (lattice.to_mm(flat) + bend.at(flat)).reshape(-1, 4, 2) + np.asarray(shifts_mm)[:, None, :]
    patches = quad_patches(frame, fix.table_to_image, corners, n)
    if patches.ndim == 4:
        # The patches side by side in one image: one conversion, the same pixels.
        grey = cv2.cvtColor(patches.reshape(-1, n, 3), cv2.COLOR_BGR2GRAY).reshape(patches.shape[:3]) \
            if len(patches) else np.zeros(patches.shape[:3], np.uint8)
    else:
        grey = patches
    dark, whites = tile_darkness(grey, side_px, margin_px, seen)
    return patches, grey, dark, whites


def _prepare_search(table, light, geometry: TableGeometry, tile_mm: float) -> _Search:
    # Darkness is a ratio to the local white, so it needs no white balance; the colours of stones
    # do, and only there is it applied (see _find_stones).
    image = table.image
    # Grey, white and the valid mask are work arrays too (print_ink.work_array): they serve this
    # frame's reading only, and fresh play-area-sized arrays cost page faults every frame.
    shape = image.shape[:2]
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY, dst=work_array("search_grey", shape, np.uint8)) \
        if image.ndim == 3 else image
    ppm = table.px_per_mm
    k = max(3, int(round(WHITE_WINDOW * tile_mm * ppm)) | 1)
    white = cv2.morphologyEx(grey, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)),
                             dst=work_array("search_white", shape, np.uint8))
    # One look-up per pixel in a table of every (white, grey) pair: the same float32 values as the
    # arithmetic, without its four play-area-sized temporaries (fresh memory pages cost more than
    # the arithmetic itself).
    # Both arrays are work arrays kept between frames: the darkness only serves this frame's spots.
    pair = work_array("white_grey", white.shape, np.uint16)
    np.left_shift(white, 8, out=pair, dtype=np.uint16)
    pair |= grey
    # (mode "clip": every uint16 index is in the table; numpy's checked "raise" mode took a third longer)
    dark = np.take(_darkness_table(), pair, out=work_array("dark", white.shape), mode="clip")
    valid = np.greater(white, VALID_WHITE, out=work_array("search_valid", shape, bool))
    keep_out = geometry.marker_mm / 2 + geometry.marker_mm / 4  # the marker and its paper
    for m in range(4):
        cx, cy = geometry.marker_centre(m)
        (x0, y0), (x1, y1) = table.mm_to_px([(cx - keep_out, cy - keep_out), (cx + keep_out, cy + keep_out)])
        rows = slice(max(int(y0), 0), max(int(math.ceil(y1)) + 1, 0))
        cols = slice(max(int(x0), 0), max(int(math.ceil(x1)) + 1, 0))
        valid[rows, cols] = False
        dark[rows, cols] = 0.0
    bgr = image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    return _Search(bgr, grey, white, dark, valid, table.px_to_mm, table.mm_to_px, ppm, light)


VALID_WHITE = 8  # outside the camera's view the rectified image is black: a local white this low is no view


@lru_cache(maxsize=1)
def _darkness_table() -> np.ndarray:
    """(65536,) float32: the ink darkness 1 - grey / max(white, 1), clipped to [0, 1], at index
    white * 256 + grey; 0 where the white is no view (VALID_WHITE)."""
    white = np.arange(256, dtype=np.float32)[:, None]
    grey = np.arange(256, dtype=np.float32)[None, :]
    table = 1.0 - grey / np.maximum(white, 1.0)
    np.clip(table, 0.0, 1.0, out=table)
    table[:VALID_WHITE + 1] = 0.0
    return table.ravel()


ON_OTHER_GROUND = 0.05  # the weight of a spot whose surround is not paper
PAPER_VS_MARKERS = 0.3  # paper around a disc is at least this bright against the markers' paper


def _on_paper(search: _Search, centres_px: np.ndarray, diameter_mm: float) -> np.ndarray:
    """1 for spots whose surround looks like paper (the brightest half of eight points around
    them is neutral once white balanced, and not dark against the markers' paper), else small."""
    n = len(centres_px)
    if n == 0 or search.light is None:
        return np.ones(n)
    r = 0.75 * diameter_mm * search.ppm
    angles = np.arange(8) * np.pi / 4
    ring = centres_px[:, None, :] + r * np.stack([np.cos(angles), np.sin(angles)], axis=1)[None]
    h, w = search.white.shape
    xy = np.round(ring).astype(int)
    xy[..., 0] = np.clip(xy[..., 0], 0, w - 1)
    xy[..., 1] = np.clip(xy[..., 1], 0, h - 1)
    colours = search.bgr[xy[..., 1], xy[..., 0]].astype(np.float64)  # (n, 8, 3)
    order = np.argsort(colours.sum(axis=2), axis=1)[:, 4:]
    bright = np.take_along_axis(colours, order[..., None], axis=1).reshape(-1, 3)
    balanced = search.light.correct_colours(bright).reshape(n, 4, 3).mean(axis=1)
    tint = (balanced.max(axis=1) - balanced.min(axis=1)) / np.maximum(balanced.mean(axis=1), 1.0)
    level = balanced.mean(axis=1) / 243.0  # light.PAPER_SRGB: the markers' paper once balanced
    paper = (tint <= MAX_PAPER_TINT) & (level >= PAPER_VS_MARKERS)
    return np.where(paper, 1.0, ON_OTHER_GROUND)


PAPER_BESIDE_MIN_POINTS = 2  # of 12 points around a stone: a tile's paper, not the table


def _paper_beside(search: _Search, centre_mm) -> bool:
    """Some of the ground just around a stone is paper (neutral once white balanced, and not dark
    against the markers' paper): the stone lies on a tile, though a hand may hide the rest of it."""
    return int(_paper_points(search, centre_mm)[0].sum()) >= PAPER_BESIDE_MIN_POINTS


def _paper_in_own_cell(search: _Search, lattice: Lattice, cell, centre_mm) -> bool:
    """_paper_beside, counting only the points within the stone's own cell: the stone lies on that
    cell's paper. A stone on the table beside the board (a player's supply) may have a tile's paper
    within reach, but in the next cell, never in its own."""
    paper, points_mm = _paper_points(search, centre_mm)
    if not paper.any():
        return False
    units = lattice.to_units(points_mm[paper])
    own = (np.round(units[:, 0]) == cell[0]) & (np.round(units[:, 1]) == cell[1])
    return int(own.sum()) >= PAPER_BESIDE_MIN_POINTS


def _paper_points(search: _Search, centre_mm) -> tuple[np.ndarray, np.ndarray]:
    """(12,) bool: which of 12 points around a stone (0.8 of its width from its centre) are paper,
    and (12, 2) where they are, mm; measured once per stone and frame (every lattice read and every
    round of growth asks again)."""
    key = (float(centre_mm[0]), float(centre_mm[1]))
    if key not in search.paper_beside:
        search.paper_beside[key] = _paper_points_now(search, centre_mm)
    return search.paper_beside[key]


def _paper_points_now(search: _Search, centre_mm) -> tuple[np.ndarray, np.ndarray]:
    """_paper_points, measured."""
    c = search.mm_to_px(np.array([centre_mm], dtype=np.float64))[0]
    r = 0.8 * STONE_MM * search.ppm
    angles = np.arange(12) * np.pi / 6
    px = c + r * np.stack([np.cos(angles), np.sin(angles)], axis=1)
    xy = np.round(px).astype(int)
    h, w = search.grey.shape
    ok = (xy[:, 0] >= 0) & (xy[:, 0] < w) & (xy[:, 1] >= 0) & (xy[:, 1] < h)
    paper = np.zeros(len(xy), bool)
    if search.light is None or not ok.any():
        return paper, search.px_to_mm(px)
    colours = search.light.correct_colours(search.bgr[xy[ok, 1], xy[ok, 0]].astype(np.float64))
    tint = (colours.max(axis=1) - colours.min(axis=1)) / np.maximum(colours.mean(axis=1), 1.0)
    level = colours.mean(axis=1) / 243.0  # light.PAPER_SRGB
    paper[ok] = (tint <= MAX_PAPER_TINT) & (level >= PAPER_VS_MARKERS)
    return paper, search.px_to_mm(px)


def _inside(search: _Search, px: np.ndarray) -> np.ndarray:
    if len(px) == 0:
        return np.zeros(0, bool)
    h, w = search.valid.shape
    xy = np.round(px).astype(int)
    ok = (xy[:, 0] >= 0) & (xy[:, 0] < w) & (xy[:, 1] >= 0) & (xy[:, 1] < h)
    ok[ok] = search.valid[xy[ok, 1], xy[ok, 0]]
    return ok


def _cell_centres(lattice: Lattice, bend, cells: list[tuple[int, int]]) -> np.ndarray:
    """The lattice's centres of the cells, bent as the board's discs show (without a lens profile
    the table bends by millimetres and the lattice is straight)."""
    units = np.array(cells, dtype=np.float64).reshape(-1, 2)
    return lattice.to_mm(units) + bend.at(units)


def _remembered_tiles(state: dict | None, lattice: Lattice) -> dict[tuple[int, int], Face | None]:
    """Tiles of the last Observation that sit on this lattice, by cell."""
    out: dict[tuple[int, int], Face | None] = {}
    if not state or state.get("game", GAME) != GAME:
        return out
    for t in state.get("tiles") or []:
        if not isinstance(t, dict) or t.get("face_down") or "center_mm" not in t:
            continue
        try:
            units = lattice.to_units(np.array([t["center_mm"]], dtype=np.float64))[0]
            face = face_from_observation(t)
        except (ValueError, TypeError):
            continue
        cell = (int(round(units[0])), int(round(units[1])))
        if math.hypot(units[0] - cell[0], units[1] - cell[1]) < 0.3:
            out[cell] = face
    return out


def _find_stones(search: _Search, lattice: Lattice, cells: list[tuple[int, int]], settings: MicropulSettings,
                 frame: np.ndarray) -> list:
    """Stones on the given cells: [(cell, quadrant, colour or None, centre_mm)]."""
    from tablecam.calibration import default_profile

    if frame.ndim != 3 or not cells:
        return []
    # Each tile on its own (a stone lies on one tile): coloured table next to a tile stays out.
    half = lattice.pitch_mm / 2 - 0.5
    square = np.array([[-half, -half], [half, -half], [half, half], [-half, half]]) @ lattice.rotation.T
    regions = [search.mm_to_px(lattice.to_mm(np.array([cell], dtype=np.float64))[0] + square) for cell in cells]
    balance = search.light.correct if search.light is not None else None
    blobs = blobs_in_regions(search.bgr, search.white, regions, STONE_MM * search.ppm, balance=balance,
                             max_coloured=MAX_COLOURED_CELL, max_growth=STONE_MAX_GROWTH,
                             size_tolerance=STONE_SIZE_TOLERANCE)
    profile = settings.colours or default_profile(GAME)
    stones = []
    for b in blobs:
        centre = search.px_to_mm(np.array([b.centre_px]))[0]
        if _lab_chroma(b.bgr) < _least_blob_chroma(b):
            continue  # skin, a sleeve, a shadow: not a coloured piece
        colour = stone_colour(b.bgr, profile)
        units = lattice.to_units(centre[None])[0]
        cell = (int(round(units[0])), int(round(units[1])))
        du, dv = units - cell
        quadrant = ("u" if dv < 0 else "l") + ("l" if du < 0 else "r")
        stones.append((cell, quadrant, colour, (float(centre[0]), float(centre[1]))))
    return stones


# A cell's region is looked at for stones unless this much of it is coloured: a hand over most of
# a tile may leave its stone in view (a coloured table is one big blob, never a stone's size).
MAX_COLOURED_CELL = 0.9
# A stone's colour blob may be this much larger than its disc (relative): under blur and seen at a
# slant (its side shows) it spreads; 0.45 missed stones on seeds 1000-1099.
STONE_MAX_GROWTH = 0.7
# ... and this much smaller (down to 0.45 of its disc; 0.55 until session 6): a fingertip over the
# edge of a stone leaves less of it in view (seed 5134: 0.49). Seeds 3000-3399 and 5000-5199 found
# the same stones otherwise, and none more that are no stone.
STONE_SIZE_TOLERANCE = 0.55
STONE_COLOUR_DELTA_E = 40.0  # further than this from every taught colour: not one of the stones
MIN_STONE_CHROMA = 28.0  # CIE Lab chroma: stones are vivid, skin and washed-out shadows are not
# ... but the lamp's glare washes a glossy blue or green stone to about 25 (seeds 2000-2286). Skin,
# wood and cloth in warm light all have warm hues (Lab a* and b* both above 0): a blob of a cool
# hue is let in paler.
MIN_COOL_STONE_CHROMA = 20.0
# A warm blob (Lab a* and b* above 0) must be more vivid than that: a pale fingertip in the lamp's
# light reached 28.7-30.3 and was read as a red stone (seeds 5191, 5511), while red stones showed
# 35.8 and up (seeds 5000-5199 and 5400-5545: 42 and up but one dark stone in shade); skin's hue
# stays 50-66 degrees, a red stone's 11-31.
MIN_WARM_STONE_CHROMA = 33.0
# ... but a warm blob of a red stone's hue (Lab hue under this) is let in as pale as a cool one: the
# lamp's glare washed a red stone to chroma 28.1 at hue 10 (seed 6231, missed), and of the blobs
# looked at on seeds 5000-5399 the warm ones that were no stone (skin, wood, a sleeve) showed hues of
# 44-68 degrees, red stones 13-33.
MAX_RED_HUE_DEG = 38.0
# A blob cut out of a larger coloured one (a stone touching a fingertip) must be vivid: the most
# colourful core of a finger reached Lab chroma 31 (seed 3063), stones touching one 58-64 (3208, 3234).
MIN_SPLIT_STONE_CHROMA = 45.0
# A blob that is only part of a stone's disc (colour_blobs.PART_OF_DISC: a finger or its shade over
# the stone) must be vivid: on seeds 5400-6699 (the first lattice's cells) such parts of stones showed
# 26-57 (49-57 on 6629, 6487, 5569; 6620's half stone in a finger's shade 34), the 122 as small and
# not round that were no stone (skin, wood, cloth) 31.7 at most.
MIN_PART_STONE_CHROMA = 45.0
# Both limits are for warm blobs, a finger's or wood's hue. Cut out of a larger blob or only part of a
# disc, a blob of a red stone's hue (under MAX_RED_HUE_DEG) or a cool one counts from this: of the
# split and part blobs on seeds 3000-6899 those that were no stone and had such a hue reached 18.9
# (the rest, skin, wood and cloth, hues of 49-77 degrees, up to 41), while stones were cut out of a
# finger's blob at 42.3 (seed 6686, a red one in a finger's shade: missed) and half stones in a
# finger's shade showed 34.4 and 36.0 (seeds 6620, 3159; blue).
MIN_CUT_RED_COOL_CHROMA = 30.0


def stone_colour(bgr, profile) -> str | None:
    """The profile colour a stone's colour is, or None.

    The lamp's glare washes a glossy stone towards white: lightness and saturation change, the hue
    hardly does. So the nearest hue decides, unless two profile colours have about the same hue
    (then the nearest colour in Lab does)."""
    from tablecam.calibration.colours import bgr_to_lab

    lab = bgr_to_lab(np.array([bgr], dtype=np.float64))[0]
    ref = profile.lab()
    hue = math.atan2(lab[2], lab[1])
    ref_hue = np.arctan2(ref[:, 2], ref[:, 1])
    gap = np.abs((ref_hue - hue + math.pi) % (2 * math.pi) - math.pi)
    order = np.argsort(gap)
    chroma = np.hypot(ref[:, 1], ref[:, 2])
    if len(order) > 1:
        between = abs((ref_hue[order[0]] - ref_hue[order[1]] + math.pi) % (2 * math.pi) - math.pi)
        if between < math.radians(SAME_HUE_DEG) or chroma[order[0]] < MIN_STONE_CHROMA:
            d = np.linalg.norm(ref - lab, axis=1)
            k = int(np.argmin(d))
            return profile.names[k] if d[k] < STONE_COLOUR_DELTA_E else None
    k = int(order[0])
    return profile.names[k] if gap[k] < math.radians(MAX_HUE_GAP_DEG) else None


SAME_HUE_DEG = 35.0  # two stone colours nearer than this in hue are told apart in Lab instead
MAX_HUE_GAP_DEG = 40.0  # a stone's hue this far from every stone colour's: not a stone


def _least_chroma(bgr) -> float:
    """The least Lab chroma a stone of this colour shows (see MIN_COOL_STONE_CHROMA and
    MAX_RED_HUE_DEG)."""
    from tablecam.calibration.colours import bgr_to_lab

    lab = bgr_to_lab(np.array([bgr], dtype=np.float64))[0]
    if lab[1] < 0 or lab[2] < 0 or math.degrees(math.atan2(lab[2], lab[1])) < MAX_RED_HUE_DEG:
        return MIN_COOL_STONE_CHROMA
    return MIN_WARM_STONE_CHROMA


def _least_blob_chroma(b) -> float:
    """The least Lab chroma a colour blob must show to be a stone: more for a blob cut out of a larger
    one (a stone touching a finger) or only part of a disc (a stone partly hidden)."""
    if (b.part or b.split) and _least_chroma(b.bgr) != MIN_WARM_STONE_CHROMA:
        return MIN_CUT_RED_COOL_CHROMA  # a red stone's hue or a cool one: no finger's, no wood's
    if b.part:
        return MIN_PART_STONE_CHROMA
    if b.split:
        return MIN_SPLIT_STONE_CHROMA
    return _least_chroma(b.bgr)


def _lab_chroma(bgr) -> float:
    from tablecam.calibration.colours import bgr_to_lab

    lab = bgr_to_lab(np.array([bgr], dtype=np.float64))[0]
    return float(math.hypot(lab[1], lab[2]))


def _paper_tint(patches: np.ndarray, grey: np.ndarray, light, side_px: int, margin_px: int,
                weights: np.ndarray | None = None) -> np.ndarray:
    """Per patch and quadrant, how un-paper-like its colour is, once white balanced: the larger of
    the tint of its brightest third (paper is grey) and the share of its pixels that are coloured
    at all (ink is black; skin and sleeves are not, even where they leave paper around).
    Every other pixel is enough for colour statistics."""
    n = len(patches)
    out = np.zeros((n, 4), np.float32)
    if n == 0 or patches.ndim != 4:
        return out
    half = side_px // 2
    inner = np.ascontiguousarray(patches[:, margin_px:margin_px + side_px:2, margin_px:margin_px + side_px:2])
    if light is not None:
        inner = light.correct(inner.reshape(-1, inner.shape[2], 3)).reshape(inner.shape)
    g = grey[:, margin_px:margin_px + side_px:2, margin_px:margin_px + side_px:2].astype(np.float32)
    colour = inner.astype(np.float32)
    # max - min channel, on the bytes: the same integers, without a slow reduction over 3 channels
    b, gr, r = inner[..., 0], inner[..., 1], inner[..., 2]
    spread = (np.maximum(np.maximum(b, gr), r) - np.minimum(np.minimum(b, gr), r)).astype(np.float32)
    # Pixels a stone leans over or shades (weight 0) are neither paper nor something over the tile.
    seen = np.ones(g.shape, bool) if weights is None else weights[:, ::2, ::2] > 0.5
    # The table's colour bleeds over the tile's rim (blur, the camera's coarser colour): a tile at
    # the board's edge is not covered for that. Nothing is printed there.
    rim = int(round(COLOUR_RIM * g.shape[1]))
    middle = np.zeros(g.shape[1:], bool)
    middle[rim:g.shape[1] - rim, rim:g.shape[2] - rim] = True
    h = half // 2
    if g.shape[1] == g.shape[2] == 2 * h:
        # Four equal quadrants: all of them at once, each pixel where the loop below would take it.
        out[:] = _quadrant_tint(quadrants(colour, h), quadrants(g, h), quadrants(seen, h), quadrants(spread, h),
                                quadrants(middle[None], h)[0])
        return out
    for k, (ys, xs) in enumerate(((slice(0, h), slice(0, h)), (slice(0, h), slice(h, None)),
                                  (slice(h, None), slice(0, h)), (slice(h, None), slice(h, None)))):
        out[:, k] = _quadrant_tint(colour[:, ys, xs].reshape(n, -1, 3), g[:, ys, xs].reshape(n, -1),
                                   seen[:, ys, xs].reshape(n, -1), spread[:, ys, xs].reshape(n, -1),
                                   middle[ys, xs].reshape(1, -1))
    return out


def _quadrant_tint(block: np.ndarray, grey: np.ndarray, seen: np.ndarray, spread: np.ndarray,
                   middle: np.ndarray) -> np.ndarray:
    """_paper_tint of quadrants: `block` (..., P, 3) balanced colour, `grey`, `seen`, `spread` (..., P)
    and `middle` (P,) or broadcastable: the pixels counted for colour."""
    kth = int(0.67 * (grey.shape[-1] - 1))
    cut = np.partition(grey, kth, axis=-1)[..., kth:kth + 1]
    sel = (grey >= cut) & seen
    # Sums of whole grey levels stay below 2**24: exact in float32 in any order of addition.
    paper = np.matmul(sel[..., None, :].astype(np.float32), block)[..., 0, :] \
        / np.maximum(sel.sum(axis=-1), 1)[..., None]
    mean = paper.mean(axis=-1)
    tint = (paper.max(axis=-1) - paper.min(axis=-1)) / np.maximum(mean, 1.0)
    white = np.maximum(mean, 16.0)[..., None]
    # Only light pixels: JPEG smears colour along every black edge, and ink is dark.
    light_px = grey > COLOURED_MIN_GREY * white
    counted = seen & middle
    coloured = ((spread / white > COLOURED_PIXEL) & light_px & counted).sum(axis=-1) / np.maximum(counted.sum(axis=-1), 1)
    return np.maximum(tint, coloured * (MAX_PAPER_TINT / MAX_COLOURED_SHARE))


COLOURED_PIXEL = 0.2  # (max - min channel) / paper white: a pixel this coloured is not ink nor paper
COLOURED_MIN_GREY = 0.4  # of the paper white: darker pixels are ink (or shadow) whatever their tint
MAX_COLOURED_SHARE = 0.05  # a quadrant with more coloured pixels than this has something over it
# ... not counting a rim of this much of a side (2 mm): a lone tile on wood showed 6 % of a quadrant
# coloured along its edges, its face clear (seed 4068). Ink starts 2.2 mm from the edge.
COLOUR_RIM = 1.0 / 15.0


@dataclass(frozen=True)
class _Verdict:
    kind: str  # "tile": a tile whose face fits; "covered": a tile that something hides in part; "none"
    reading: FaceReading | None = None
    face: Face | None = None
    odd: bool = False  # covered because one quadrant alone fits far worse (_odd_quadrant): see _past_odd_quadrants


def _judge(model: FaceModel, readings: list[FaceReading], visible: np.ndarray, whites: np.ndarray,
           tint: np.ndarray, fits: np.ndarray, cells, support, side_px: int, stone_bearing=None,
           paper_floor: float | None = None) -> dict:
    """Is each cell a tile, a partly hidden tile, or table? `stone_bearing`: cells a stone of a
    known colour lies on, and whether a tile's paper shows beside the stone (stones lie on tiles:
    with ink or paper beside them that is evidence too). `paper_floor`: the least grey level the
    board's paper may have in this frame (see _paper_floor), None when the light is not known."""
    stone_bearing = stone_bearing or {}
    scale = (side_px / 60.0) ** 2
    paper_ok = np.where(visible, tint, 0.0).max(axis=1) <= MAX_PAPER_TINT  # a stone is coloured: its quadrant aside
    board_white = _board_white(whites, fits, paper_ok, paper_floor)
    # Per cell, once for all (the same numbers as asked cell by cell below): the darkest visible
    # quadrant's white, the worst visible quadrant's error, and the quadrant tests of the face read.
    visible = np.asarray(visible, bool)
    any_visible, all_visible = visible.any(axis=1), visible.all(axis=1)
    darkest = np.where(visible, whites, np.inf).min(axis=1) if len(cells) else np.zeros(0, np.float32)
    odd, loose, worst_errors = _quadrant_tests(readings, visible, LOOSE_MARGIN * MIN_MARGIN * scale, model)
    smeared = _smeared(readings, visible)
    out = {}
    for k, cell in enumerate(cells):
        r = readings[k]
        # Discs on its sites, or micropul ink read clearly beside a tile: a tile in a shadow.
        shaded_ok = cell in support or (fits[k] and _clear_ink_beside_a_tile(
            model, k, cell, cells, readings, fits, paper_ok, visible, MIN_MARGIN * scale))
        least = MIN_SHADED_PAPER_WHITE if shaded_ok else MIN_PAPER_WHITE
        bright = board_white is not None and darkest[k] >= least * board_white if any_visible[k] else False
        if fits[k] and paper_ok[k] and bright and (
                all_visible[k] or _visible_ink(model, r, visible[k]) > 1.0
                or _next_to_a_tile(cell, cells, fits, paper_ok, visible, model, readings)):
            face = r.face if r.margin >= MIN_MARGIN * scale else None
            worst = float(worst_errors[k])
            # Two stones on a tile hide half of it (and their shade more): its discs may not show at
            # search resolution, but the ink left in view, under stones, is a tile's.
            inked_stone_cell = cell in stone_bearing and _visible_ink(model, r, visible[k]) > 1.0
            if cell not in support and not inked_stone_cell and (
                    (face is None and worst > MAX_UNSUPPORTED_ERROR)
                    or (worst > NEAR_LIMIT_ERROR and not (odd[k] and not loose[k])
                        and _tile_margin(model, r) < NEAR_LIMIT_MARGIN * MIN_MARGIN * scale)
                    or _faint_big(model, r, scale)):
                # No disc found here, no clear face and a loose fit (or a fit near the limit, the face
                # not far ahead): more likely table, or a lattice off its tiles, than a tile. Not for
                # one odd quadrant: its error is high by construction (a finger), and such a cell stays
                # covered and is read on its other three (_past_odd_quadrants), by its own margin.
                out[cell] = _Verdict("none", r, None)
                continue
            if odd[k] or loose[k] or smeared[k]:
                # Something the colour does not show lies over one quadrant (a finger in its own
                # shade), or over most of the tile, or fills a ring at the widest blur (_smeared):
                # the face read there would be its, not the print's.
                out[cell] = _Verdict("covered", r, None, odd=bool(odd[k] and not loose[k]))
                continue
            out[cell] = _Verdict("tile", r, face)
        elif (cell in support or (cell in stone_bearing and _something_over(k, tint, visible))) \
                and board_white is not None and _partly_paper(k, whites, tint, board_white, _least_bare_paper(
                    support.get(cell, 0.0), cell in stone_bearing)):
            out[cell] = _Verdict("covered", r, None)
        elif stone_bearing.get(cell) and _something_over(k, tint, visible) \
                and _next_to_a_tile(cell, cells, fits, paper_ok, visible, model, readings, corners=tint):
            # A hand over all of a tile but the stones on it: its quadrants are skin, yet the stones
            # lie on paper, beside a tile that reads (a supply on the table has no paper beside it),
            # or at its corner, the hand over the tile between as well (seed 6510; _board keeps such
            # a tile with its stone).
            out[cell] = _Verdict("covered", r, None)
        elif stone_bearing.get(cell) and _odd_quadrant(r, visible[k]) and board_white is not None \
                and _partly_paper(k, whites, tint, board_white) and _print_beside_odd(model, r, visible[k]) \
                and _next_to_a_tile(cell, cells, fits, paper_ok, visible, model, readings):
            # A finger in its own shade over a quadrant of a tile carrying a stone: too dark to count
            # as coloured, and no face's ink either, while the rest of the cell is paper and print
            # beside a tile that reads and the stone lies on paper (seeds 5823, 6491: the stone was
            # dropped with its tile).
            out[cell] = _Verdict("covered", r, None)
        else:
            out[cell] = _Verdict("none", r, None)
    # A stone on its tile (ON_ITS_TILE) is asked about once every cell has its verdict: whether the
    # board (as judged so far, not grown by this) lies next to it.
    board = {c for c, v in out.items() if v.kind != "none"}
    for k, cell in enumerate(cells):
        if out[cell].kind != "none" or stone_bearing.get(cell) != ON_ITS_TILE:
            continue
        if board_white is not None and worst_errors[k] > MAX_QUADRANT_ERROR \
                and _partly_paper(k, whites, tint, board_white) and _print_beside_odd(model, readings[k], visible[k]) \
                and _next_to_a_tile(cell, cells, fits, paper_ok, visible, model, readings):
            # The odd quadrant's case above, the quadrant not three times worse than the others: a
            # finger in its own shade over a corner of a blurred tile, its other quadrants loose too
            # (seed 6962: 0.0178 against 0.010). The stone on a micropul's place on its own cell's
            # paper, and the tile's print in view beside a tile that reads, say it is a tile.
            out[cell] = _Verdict("covered", readings[k], None)
        elif _something_over(k, tint, visible) and _touches(cell, board, cells, tint, visible):
            # A hand over a tile but for its stone and the paper just around it, next to a tile
            # that a hand covers in part too (or at its corner, the hand over a cell between): the
            # tile is there, and the hand took its face and its neighbour's (seeds 4036, 5807,
            # 6686: the stone was dropped with its tile). The stone on a micropul's place, with
            # paper within its own cell: a player's supply on the table beside the board may touch
            # a tile's paper, but in the next cell, and lies anywhere.
            out[cell] = _Verdict("covered", readings[k], None)
    return out


def _touches(cell, board: set, cells, tint: np.ndarray, visible) -> bool:
    """A cell of `board` is next to the cell, or at its corner with a hand over a cell between
    (as _next_to_a_tile's corners: never across bare table)."""
    i, j = cell
    if any(n in board for n in _neighbours(cell)):
        return True
    return any((i + di, j + dj) in board and (_hand_over((i + di, j), cells, tint, visible)
                                               or _hand_over((i, j + dj), cells, tint, visible))
               for di in (-1, 1) for dj in (-1, 1))


def _quadrant_tests(readings: list[FaceReading], visible: np.ndarray, least_margin: float,
                    model: FaceModel | None = None):
    """(N,) bool _odd_quadrant and _loose_quadrants of each reading over its visible quadrants, and
    (N,) its worst visible quadrant's error (-inf with none visible), all cells at once: the same
    sorted errors, the invisible quadrants sorted below them all. With `model`, a big micropul's
    margin is its _tile_margin: its catalyst is told by area afterwards (_big_catalysts), so
    what the loose test asks of it is that it is clearly a big micropul of its colour (seed 6777:
    a big tile in full view, three quadrants at 0.0063-0.0093, 7.1 ahead of its twin with the other
    catalyst and 142 ahead of any other face, was left covered)."""
    n = len(readings)
    if n == 0:
        return np.zeros(0, bool), np.zeros(0, bool), np.zeros(0)
    errors = np.sort(np.where(visible, np.array([r.quadrant_error for r in readings], np.float64), -np.inf), axis=1)
    count = visible.sum(axis=1)
    odd = (count >= 2) & (errors[:, -1] > ODD_QUADRANT_ERROR) & (errors[:, -1] > ODD_QUADRANT_RATIO * errors[:, -2])
    margins = np.array([_tile_margin(model, r) if model is not None else r.margin for r in readings], np.float64)
    loose = (count >= 3) & (errors[:, -3] > LOOSE_QUADRANT_ERROR) & (margins < least_margin)
    return odd, loose, errors[:, -1]


# At the widest blur a ring and a disc differ least: a finger's edge in its own shade that fills a
# white ring fits a black disc there, and the catalyst beside it follows as another real tile's
# (seeds 7815, 2000021: read **wrong**, 8.0 and 6.0 ahead, disc spots on the cell; quadrants 0.0069
# / 0.0057 and 0.0118 / 0.0057). A print that fits only at the widest blur fits it closely: of the
# 109 tiles read right at that blur on seeds 5000-5399, 7000-7499, 7800-7999, 1800000-1800199 and
# 2000000-2000199 the second worst quadrant reached 0.0031 but on one (1800016: 0.0077 / 0.0071 /
# 0.0057, a hand's shade over the tile, 2.1 ahead, in one of the lattices tried; the frame still
# reads both its tiles right).
SMEARED_QUADRANT_ERROR = MAX_QUADRANT_ERROR / 3.0


def _smeared(readings: list[FaceReading], visible: np.ndarray) -> np.ndarray:
    """(N,) bool: read at the widest blur with two visible quadrants fitting loosely
    (SMEARED_QUADRANT_ERROR): something over the tile, not its print blurred."""
    if not len(readings):
        return np.zeros(0, bool)
    errors = np.sort(np.where(visible, np.array([r.quadrant_error for r in readings], np.float64), -np.inf), axis=1)
    widest = np.array([r.blur_mm == BLUR_MM[-1] for r in readings], bool)
    return widest & (errors[:, -2] > SMEARED_QUADRANT_ERROR)


# A tile in a shadow is let in darker only when its face is read by far (margin over the next face
# in MIN_MARGIN units): the shaded tiles this lets in read 5.5-16.4 (seeds 5472, 5877, 5900); the
# dark table beside a board fitted a face at 1.0-1.4 (seed 5439: only its colour kept it out; a grey
# table would have made a tile **with a face** there).
CLEAR_INK_MARGIN = 3.0


def _clear_ink_beside_a_tile(model: FaceModel, k: int, cell, cells, readings, fits, paper_ok, visible,
                             least_margin: float) -> bool:
    """The cell's face is read clearly, with micropul ink in view, next to a tile that reads: a
    tile in a hand's shadow (seed 5472: its rings too faint at search resolution to make disc
    spots, its paper at 0.46 of the board's), which may then be as dark as a tile with discs.
    Not a face that fits loosely all over or far off in one quadrant: the dark table seen through
    a hole in the board fitted four rings loosely at a wide blur (seed 5394, a tile invented)."""
    r = readings[k]
    return bool(paper_ok[k] and _tile_margin(model, r) >= CLEAR_INK_MARGIN * least_margin
                and _visible_ink(model, r, visible[k]) > 1.0
                and not _odd_quadrant(r, visible[k])
                and not _loose_quadrants(r, visible[k], LOOSE_MARGIN * least_margin)
                and _next_to_a_tile(cell, cells, fits, paper_ok, visible, model, readings))


def _faint_big(model: FaceModel, r: FaceReading, scale: float) -> bool:
    """The best face is a big micropul, yet hardly ahead of every small face
    (MIN_UNSUPPORTED_BIG_MARGIN): a soft shade on the table, not a big micropul's print."""
    return bool(r.face is not None and r.face.big
                and _tile_margin(model, r) < MIN_UNSUPPORTED_BIG_MARGIN * MIN_MARGIN * scale)


def _tile_margin(model: FaceModel, r: FaceReading) -> float:
    """How clearly the cell shows a tile's print: the reading's margin, but for a big micropul the
    margin to every face that is not a big micropul of that colour. Its catalyst (dot or plus) is
    told by area afterwards (_big_catalysts), and the two big faces' templates stay close: a big
    tile in a hand's shadow read at 0.87 against its twin with the other catalyst, 10 and more
    against any other face (seed 5877)."""
    if r.face is None or not r.face.big:
        return r.margin
    others = _not_big_of(model, r.face.big)
    return float(np.min(r.face_errors[others]) - r.error) if others.any() else r.margin


@lru_cache(maxsize=8)
def _not_big_of(model: FaceModel, colour: str) -> np.ndarray:
    """(F,) bool read-only: the model's faces that are not a big micropul of `colour`."""
    out = np.array([f.big != colour for f in model.faces], bool)
    out.flags.writeable = False
    return out


# The board's paper against the markers' paper (grey levels of the raw frame): 0.76-1.5 on the
# tuning seeds 3000-3399 (the lamp lights the middle of the table more than its corners); the dark
# sleeve that made a board of its own on seed 3141 showed 0.19.
MIN_BOARD_PAPER_VS_MARKERS = 0.45


def _paper_floor(light) -> float | None:
    """The least grey level a board's paper may have in this frame: a share of the markers' paper."""
    if light is None:
        return None
    b, g, r = light.white
    return MIN_BOARD_PAPER_VS_MARKERS * (0.114 * b + 0.587 * g + 0.299 * r)  # cv2's BGR -> grey weights


def _board_white(whites: np.ndarray, fits: np.ndarray, paper_ok: np.ndarray, paper_floor: float | None):
    """The board's paper white (grey level), which the cells are judged against: the median over
    the cells that fit a face on paper, or None. That paper is paper as the markers show it: a dark
    sleeve's edge is neutral and fits a face loosely, and judged against itself it was a board of
    its own (seed 3141)."""
    fitting = [k for k in range(len(whites)) if fits[k] and paper_ok[k]
               and (paper_floor is None or whites[k].max() >= paper_floor)]
    return float(np.median(whites[fitting].max(axis=1))) if fitting else None


# What a stone of a known colour has around it (_stone_bearing): no paper, a tile's paper beside it,
# or paper within its own cell with the stone on one of the cell's micropul (ON_ITS_TILE).
NO_PAPER, PAPER_BESIDE, ON_ITS_TILE = 0, 1, 2
# A stone is put on a micropul: its centre lies this close to a micropul's place on its cell. The
# stones found on tiles a hand covers in part lay within 1 mm of it (seeds 4036, 5807, 6620, 6686;
# half a stone's blob is centred up to 2 mm off); a player's supply beside the board lies anywhere.
ON_SITE_MM = 3.0


def _stone_bearing(stone_cells: list, search: "_Search", lattice: Lattice) -> dict:
    """Cells a stone of a known colour lies on -> the paper around it (NO_PAPER, PAPER_BESIDE,
    ON_ITS_TILE; true when it has a tile's paper beside it)."""
    out: dict = {}
    for cell, _, colour, centre in stone_cells:
        if colour is not None:
            paper = NO_PAPER
            if _paper_beside(search, centre):
                paper = ON_ITS_TILE if _on_a_site(lattice, cell, centre) \
                    and _paper_in_own_cell(search, lattice, cell, centre) else PAPER_BESIDE
            out[cell] = max(out.get(cell, NO_PAPER), paper)
    return out


def _on_a_site(lattice: Lattice, cell, centre_mm) -> bool:
    """The point lies within ON_SITE_MM of one of the cell's four micropul places."""
    du, dv = np.abs(lattice.to_units(np.array([centre_mm], dtype=np.float64))[0] - cell)
    return math.hypot(du - SITE, dv - SITE) * lattice.pitch_mm <= ON_SITE_MM


# A quadrant fitting its face this loosely, and this many times worse than every other quadrant of
# its tile, has something over it: a finger in its own shade, dark and brown, is too dark to count
# as coloured, and its edge over a blank quadrant read as a catalyst (seeds 5027, 5035: 0.0106-0.0107,
# the tile's other quadrants 0.001-0.003). Of the 2000 tiles read right on seeds 5000-5134 one had
# a quadrant above 0.009, its next quadrant close behind.
def _visible_errors(r: FaceReading, visible: np.ndarray) -> np.ndarray:
    """The fit errors of a tile's visible quadrants, smallest first."""
    return np.sort(np.asarray(r.quadrant_error, dtype=np.float64)[np.asarray(visible, bool)])


ODD_QUADRANT_ERROR = 0.75 * MAX_QUADRANT_ERROR
ODD_QUADRANT_RATIO = 3.0


def _print_beside_odd(model, r, visible) -> bool:
    """The visible quadrants but the worst one fit the face closely and carry its print (a bare table fits blank quadrants)."""
    errors = np.asarray(r.quadrant_error, dtype=np.float64)
    v = np.asarray(visible, bool).copy()
    v[int(np.argmax(np.where(v, errors, -np.inf)))] = False
    return bool(v.any() and errors[v].max() <= 2 * MAX_QUADRANT_ERROR and _visible_ink(model, r, v) > 1.0)


def _odd_quadrant(r: FaceReading, visible: np.ndarray) -> bool:
    """One visible quadrant fits far worse than the tile's others (see ODD_QUADRANT_ERROR)."""
    errors = _visible_errors(r, visible)
    return len(errors) >= 2 and errors[-1] > ODD_QUADRANT_ERROR and errors[-1] > ODD_QUADRANT_RATIO * errors[-2]


# The three quadrants left must tell the face by far (margin in MIN_MARGIN units, as _half_over's):
# a finger over one quadrant may hide a corner's one-dot in the next too, which then reads blank. Of
# the 34 cells covered for an odd quadrant on seeds 3000-3399 and 5000-6899 (nearly all beside a
# hand), read on their other three: 31 right, 1.2-44.8 ahead, 3 wrong, 1.47-1.87 ahead (seeds 5027,
# 5081, 6390; 5027 came out a tile read **wrong** with the plain margin as the limit).
ODD_REREAD_MARGIN = 5.0


def _past_odd_quadrants(model: FaceModel, verdicts: dict, cells: list, read: "_Cells", scale: float):
    """Cells covered for one odd quadrant (_odd_quadrant) read again without it, as a stone's
    quadrant is: when the other three fit their face closely and clearly, the cell is a tile whose
    face is open in that quadrant only, and the set's one-copy rule may settle it (_resolve_faces).
    Returns (verdicts, cells read, the cells so read)."""
    odd = [k for k, c in enumerate(cells) if verdicts[c].kind == "covered" and verdicts[c].odd]
    if not odd:
        return verdicts, read, frozenset()
    visible = read.visible[odd].copy()
    for j, k in enumerate(odd):
        errors = np.where(visible[j], read.readings[k].quadrant_error, -np.inf)
        visible[j, int(np.argmax(errors))] = False
    # No wider a blur than the cell was read at: the photo's, not one that lets the three quadrants fit looser.
    again = [read_faces(model, read.dark[k:k + 1], visible[j:j + 1], BLUR_MM.index(read.readings[k].blur_mm),
                        read.weights[k:k + 1])[0] for j, k in enumerate(odd)]
    seen = np.array([r.visible for r in again], bool).reshape(-1, 4)
    fits = _fits(model, again, read.dark[odd], seen, weights=read.weights[odd])
    verdicts = dict(verdicts)
    new_visible = read.visible.copy()
    readings = list(read.readings)
    done = set()
    for j, k in enumerate(odd):
        r = again[j]
        # Not a big micropul: its catalyst is told by ink area round its centre (_big_catalysts),
        # which reaches into the quadrant under the finger. Nor three quadrants that _judge would
        # still call loose, or one of them odd again.
        if (fits[j] and r.margin >= ODD_REREAD_MARGIN * MIN_MARGIN * scale and seen[j].sum() == 3
                and r.face is not None and not r.face.big and not _odd_quadrant(r, seen[j])
                and not _loose_quadrants(r, seen[j], LOOSE_MARGIN * MIN_MARGIN * scale)):
            verdicts[cells[k]] = _Verdict("tile", r, r.face)
            new_visible[k], readings[k] = seen[j], r
            done.add(cells[k])
    if not done:
        return verdicts, read, frozenset()
    return verdicts, replace(read, visible=new_visible, readings=readings), frozenset(done)


# Three quadrants of a tile fitting this loosely each, and the face not far ahead of the next (a
# margin under LOOSE_MARGIN times the least): a pale finger over one corner and the dark table's
# remains at another read as a two-dot and a one-dot (seed 5317: 0.0069-0.0098, margin 6.2). Tiles
# read right with three quadrants as loose (4 of some 13000 on seeds 3000-3399 and 5000-5399) were
# 13.9-42.5 ahead. The third worst quadrant of 1869 tiles read right on 5000-5134 reached 0.0049.
LOOSE_QUADRANT_ERROR = 0.5 * MAX_QUADRANT_ERROR
LOOSE_MARGIN = 10.0


def _loose_quadrants(r: FaceReading, visible: np.ndarray, least_margin: float) -> bool:
    """Three visible quadrants fit their face loosely, and the face is not clearly ahead (see
    LOOSE_QUADRANT_ERROR)."""
    errors = _visible_errors(r, visible)
    return len(errors) >= 3 and errors[-3] > LOOSE_QUADRANT_ERROR and r.margin < least_margin


def _one_quadrant_over(r: FaceReading, visible: np.ndarray) -> bool:
    """All visible quadrants but one fit the face closely, that one does not: something lies over
    it, which the colour may not show (a finger in its own shade over a big tile: seed 5053)."""
    errors = _visible_errors(r, visible)
    return len(errors) >= 2 and errors[-1] > MAX_QUADRANT_ERROR >= errors[-2]


def _something_over(k: int, tint: np.ndarray, visible: np.ndarray) -> bool:
    """A visible quadrant of the cell is coloured (a hand, a sleeve): bare table beside the board
    with a stone from a supply on it shows none, a tile a hand reaches over does."""
    return bool((tint[k] > MAX_PAPER_TINT)[visible[k]].any())


def _next_to_a_tile(cell, cells, fits, paper_ok, visible, model, readings, corners: np.ndarray | None = None) -> bool:
    """A bare cell with a stone counts as a tile only beside a tile that shows its ink (a stone on
    the table next to the board is a player's supply, and a light table looks like bare paper).
    That tile may carry a stone too, as long as the ink it leaves in view is a tile's (a column of
    tiles each under a stone). `corners` (the cells' tint): a tile touching the cell at a corner
    counts too when a hand lies over a cell between them (the hand over the tile between that hid
    it), never across bare table."""
    i, j = cell
    diagonal = [(i + 1, j + 1), (i + 1, j - 1), (i - 1, j + 1), (i - 1, j - 1)] if corners is not None else []
    for n in _neighbours(cell) + diagonal:
        if n in cells:
            k = cells.index(n)
            if fits[k] and paper_ok[k] and (visible[k].all() or _visible_ink(model, readings[k], visible[k]) > 1.0) \
                    and (n not in diagonal or any(_hand_over(b, cells, corners, visible) for b in ((n[0], j), (i, n[1])))):
                return True
    return False


def _hand_over(cell, cells, tint: np.ndarray, visible) -> bool:
    """A hand lies over the cell: none of it in view, or some of what is coloured (see _something_over)."""
    if cell not in cells:
        return False
    k = cells.index(cell)
    return not visible[k].any() or _something_over(k, tint, visible)


def _fits(model: FaceModel, readings: list[FaceReading], dark: np.ndarray, visible: np.ndarray,
          looseness: float = 1.0, weights: np.ndarray | None = None) -> list[bool]:
    """The best face fits the cell closely (error up to `looseness` times the limit), with ink where
    it has micropul."""
    n = len(readings)
    if n == 0:
        return []
    visible = np.asarray(visible, bool).reshape(n, 4)
    q_err = np.array([r.quadrant_error for r in readings])
    gain = np.array([r.gain for r in readings])
    bi = np.array([BLUR_MM.index(r.blur_mm) for r in readings])
    t_idx = model.face_templates[[r.face_index for r in readings]]  # (N, 4)
    # Under a stone lies a micropul: a tile whose other quadrants are bare shows no ink to gauge.
    energy = model.norms[bi[:, None], np.arange(4)[None, :], t_idx]  # (N, 4)
    inked = (energy * visible).sum(axis=1) > 1.0
    worst = np.where(visible, q_err, -np.inf).max(axis=1)
    ok = visible.any(axis=1) & (worst <= looseness * MAX_QUADRANT_ERROR) & ((gain >= MIN_GAIN) | ~inked)
    ink = _micropul_ink(model, readings, dark, visible, weights)
    passed = ok & (ink >= MIN_MICROPUL_INK)
    # The few cells short of ink are asked whether they are a far board's faint print (none on most frames).
    for i in np.nonzero(ok & ~passed & (ink >= FAR_BOARD_INK))[0]:
        passed[i] = _far_board_print(model, readings[i], float(worst[i]))
    return [bool(v) for v in passed]


# On a board far off (0.6-0.8 px per mm, read at the widest blur) a white ring is a pixel wide and keeps
# less of its ink than the blurred template: tiles whose faces read right showed 0.41-0.549 of it
# (session 17: 2100122, 1800060; no fit, so no tile, or a covered one). Such a cell's floor is lower when
# the face is sure (MIN_MARGIN) and every visible quadrant fits within a quarter of the limit: the
# cells off the tiles with that much ink that fit a face there fitted at 0.0071 and looser, most under
# MIN_MARGIN (ink_a: the tuning sets' cells read at the widest blur).
FAR_BOARD_INK = 0.5
FAR_BOARD_FIT = 0.25 * MAX_QUADRANT_ERROR


def _far_board_print(model: FaceModel, r: FaceReading, worst: float) -> bool:
    """May the reading's micropul show as little as FAR_BOARD_INK: read at the widest blur, its face
    sure (MIN_MARGIN), its worst visible quadrant within FAR_BOARD_FIT."""
    return (r.blur_mm == BLUR_MM[-1] and r.margin >= MIN_MARGIN * (model.side_px / 60.0) ** 2
            and worst <= FAR_BOARD_FIT)


def _visible_ink(model: FaceModel, r: FaceReading, visible: np.ndarray) -> float:
    """Squared template energy of the reading's face over the visible quadrants."""
    bi = BLUR_MM.index(r.blur_mm)
    t_idx = model.face_templates[r.face_index]
    return float(sum(model.norms[bi, q, t_idx[q]] for q in range(4) if visible[q]))


def _partly_paper(k: int, whites: np.ndarray, tint: np.ndarray, board_white: float,
                  least: float = MIN_PAPER_WHITE) -> bool:
    """Some quadrant of the cell is white paper (at least `least` as bright as the board's): a tile
    is there, though not all of it can be read."""
    paper = (whites[k] >= least * board_white) & (tint[k] <= MAX_PAPER_TINT)
    return bool(paper.any())


# A grey table is neutral too, and a little darker than paper: beside the board, under a hand, a cell
# of it with one faint disc-like spot (a finger's shade) looked like a covered tile (seed 3236, paper
# at 0.65 of the board's). With less than two spots' worth of discs on its sites, the paper left in
# view must be the board's own (covered tiles with so little showed 0.83-0.99 on seeds 3000-3270).
WEAK_SUPPORT = 2 * MIN_SPOT
MIN_BARE_PAPER_WHITE = 0.75
# ... and without a stone on it, brighter still: a paler grey table showed 0.81-0.83 beside a board,
# a dark finger in its own shade (not coloured) over it making the one spot (seed 6211, a covered tile
# invented). Such a cell brings the user nothing but an unknown tile (a hidden tile may be missing),
# while a stone on it is reported only with its tile.
MIN_BARE_PAPER_WHITE_NO_STONE = 0.9
# "Two spots' worth" is counted from three here: beside a board under a hand, a grey table's cell (0.65
# of the board's paper, nothing coloured on it) with a finger's shade as its spots reached 0.203 and
# was a covered tile invented (session 17, seed 7520). The real covered tiles of 0.2-0.3 on the tuning
# sets that this leaves out lay under a hand on paper of 0.65-0.77 (2200035, 2200092, 1800151), carried
# no stone, and may be missing (a hidden tile is excused); those kept showed 0.93 and more, or a stone.
BARE_PAPER_SUPPORT = 3 * MIN_SPOT


def _least_bare_paper(support: float, stone: bool = True) -> float:
    """How bright (of the board's paper) the paper of a partly hidden cell must be."""
    if support >= BARE_PAPER_SUPPORT:
        return MIN_PAPER_WHITE
    return MIN_BARE_PAPER_WHITE if stone else MIN_BARE_PAPER_WHITE_NO_STONE


def _micropul_ink(model: FaceModel, readings: list[FaceReading], dark: np.ndarray, visible: np.ndarray,
                  weights: np.ndarray | None = None) -> np.ndarray:
    """Per reading, the weakest ink relative to the face's template over the face's visible micropul
    quadrants (inf when a stone hides the only micropul, 0 when the face shows none at all)."""
    n = len(readings)
    half = model.quadrant_px
    bi = np.array([BLUR_MM.index(r.blur_mm) for r in readings])
    t_idx = model.face_templates[[r.face_index for r in readings]]  # (N, 4)
    big = np.array([bool(r.face.big) for r in readings])
    micropul = (t_idx == TEMPLATE_NAMES.index("W")) | (t_idx == TEMPLATE_NAMES.index("B")) | big[:, None]
    best = np.full(n, np.inf)
    # Each quadrant's pixels cut once for all (the same numbers as quadrant by quadrant).
    dark_q = quadrants(dark, half)
    weights_q = None if weights is None else quadrants(weights, half)
    for qi in range(len(QUADRANTS)):
        use = visible[:, qi] & micropul[:, qi]
        if not use.any():
            continue
        o = dark_q[use, qi]  # (M, P)
        t = model.templates[bi[use], qi, t_idx[use, qi]]  # (M, P)
        if weights_q is not None:
            t = t * weights_q[use, qi]  # the ink where it can be seen
        ratio = (o * t).sum(axis=1) / np.maximum((t * t).sum(axis=1), 1e-9)
        best[use] = np.minimum(best[use], ratio)
    # No micropul of this face can be seen: fine when a stone hides one (it lies on a micropul).
    none_seen = ~np.isfinite(best) & visible.all(axis=1)
    best[none_seen] = 0.0
    return best


def _board(verdicts: dict, stone_cells: frozenset = frozenset(), anchored: frozenset = frozenset(),
           blank: frozenset = frozenset()) -> dict:
    """The cells that are the board: tiles and partly hidden tiles, in groups that hold a tile, and
    groups of partly hidden tiles carrying a stone that touch those at a corner: a hand over the
    tile between leaves a tile beyond it in part, cut off from the board, and its stone was dropped
    (seeds 4114, 5446). Without a stone such a group would only add an unknown tile. A group whose
    stone lies on a cell with discs on its sites (`anchored`) may lie one cell further, a hand over
    the tile between (seeds 6025, 6385: a column of two tiles beyond a hand, the stone on one).
    A tile that shows nothing of its own (`blank`, _blank_tiles) holds no group: it is kept as the
    partly hidden tiles beside it are."""
    tiles = {c: v for c, v in verdicts.items() if v.kind in ("tile", "covered")}
    groups = _groups(set(tiles))
    keep = set()
    for g in groups:
        if any(tiles[c].kind == "tile" and c not in blank for c in g):
            keep |= g
    corners = {(i + di, j + dj) for i, j in keep for di in (-1, 1) for dj in (-1, 1)}
    reach = {(i + di, j + dj) for i, j in keep for di in range(-2, 3) for dj in range(-2, 3)}
    for g in groups:
        if not g & keep and ((g & stone_cells and g & corners) or (g & anchored and g & reach)):
            keep |= g
    return {c: tiles[c] for c in keep}


def _blank_tiles(verdicts: dict, support: dict, remembered: dict) -> frozenset:
    """Cells judged tiles that show nothing of a tile of their own: no face read or told
    (_told_faces), no disc spot on their sites, no face the last frame read there. A plain grey table
    is such a cell: flat, it fits a blank face with one faint ring closely, and beside a tile under
    a hand it was the only cell fitting on paper, so the board's paper white was its own (session
    17, seed 2200569: a lone tile under a fingertip, every lattice tried 40 degrees off; the table
    cell beside the tile's covered one made a board of two unknown tiles, both invented). Such a
    cell is a tile only beside one that shows itself, as a bare cell with a stone is
    (_next_to_a_tile)."""
    return frozenset(c for c, v in verdicts.items()
                     if v.kind == "tile" and v.face is None and c not in support and remembered.get(c) is None)


def _groups(cells: set) -> list[set]:
    todo, out = set(cells), []
    while todo:
        start = todo.pop()
        group, stack = {start}, [start]
        while stack:
            i, j = stack.pop()
            for n in ((i + 1, j), (i - 1, j), (i, j + 1), (i, j - 1)):
                if n in todo:
                    todo.discard(n)
                    group.add(n)
                    stack.append(n)
        out.append(group)
    return out


def _resolve_faces(model: FaceModel, tiles: dict, cells, visible, remembered, warnings, scale: float = 1.0,
                   over: frozenset = frozenset()) -> dict:
    """The face of each tile, or None with a warning when it cannot be told for sure.

    A tile read clearly, with no stone on it, has its face. For the others the candidates are the
    faces the photo cannot tell from the best one (equal where a stone hides the tile, or nearly
    as good); the last frame's reading settles them when it is a candidate; a candidate whose
    tiles already lie elsewhere on the board is out (one copy of each tile), repeatedly.
    """
    faces: dict = {}
    sure: dict = {}
    for cell, v in tiles.items():
        if v.kind == "tile" and v.face is not None and visible[cells.index(cell)].all():
            faces[cell] = v.face
            sure[cell] = v.face
    used: dict[int, int] = {}
    for f in sure.values():
        _use(f, used)
    open_tiles: dict = {}
    for cell, v in tiles.items():
        if cell in faces or v.kind != "tile":
            continue
        k = cells.index(cell)
        if v.face is not None and v.face.big:
            candidates = [v.face]  # a stone leaves a big micropul's colour and catalyst to be seen
        elif v.face is not None:
            # What can be seen was read for sure (as for a tile in full view): only what a stone
            # hides is open.
            candidates = [model.faces[i] for i in faces_matching(model, v.reading.face_index, visible[k])]
        else:
            candidates = [model.faces[i] for i in v.reading.close_faces(ELIMINATION_WINDOW * scale)]
        before = remembered.get(cell)
        if before is not None and before in candidates:
            faces[cell] = before
            _use(before, used)
        else:
            open_tiles[cell] = candidates
    # One copy of each tile: a candidate whose tiles all lie elsewhere on the board is out; a tile
    # left with one candidate is settled, which may settle others.
    changed = True
    while changed and open_tiles:
        changed = False
        for cell, candidates in list(open_tiles.items()):
            possible = [f for f in candidates if not _all_used(f, used)]
            if len(possible) == 1:
                faces[cell] = possible[0]
                _use(possible[0], used)
                del open_tiles[cell]
                changed = True
            else:
                open_tiles[cell] = possible
    # (A tile in `over` left open is reported as partly hidden by the caller.)
    hidden_by_stone = sum(1 for c in open_tiles if c not in over and not visible[cells.index(c)].all())
    unsure = len(open_tiles) - hidden_by_stone - sum(1 for c in open_tiles if c in over)
    if unsure:
        warnings.append(f"{unsure} tile{'s' if unsure > 1 else ''} could not be read for sure: shown as unknown")
    if hidden_by_stone:
        warnings.append(f"a stone hides part of {hidden_by_stone} tile{'s' if hidden_by_stone > 1 else ''}: "
                        "shown as unknown until it was seen without the stone")
    # One copy of each tile: two tiles read as the same (unique) tile means one of them is misread.
    by_index: dict[int, list] = {}
    for cell, f in faces.items():
        ids = {i for i, _ in identify(f)}
        if len(ids) == 1:
            by_index.setdefault(next(iter(ids)), []).append(cell)
    twice = [cs for cs in by_index.values() if len(cs) > 1]
    kept = 0
    for cs in twice:
        keep = _clearly_better(cs, tiles, sure, cells, visible, scale)
        kept += keep is not None
        for c in cs:
            if c != keep:
                faces[c] = None
    if twice:
        warnings.append("two tiles read as the same tile: " + (
            "both shown as unknown" if not kept else "the one that fits worse is shown as unknown"))
    return faces


# A face that leads by less than MIN_MARGIN is still told when the print fits so closely that its lead
# stands far above what the fit leaves unexplained: at least half of MIN_MARGIN, and this many times
# the per-pixel error of the worst visible quadrant (a 60 px tile; a lead is a sum over pixels). A
# catalyst on a far or blurred board is a pixel or two, its lead small however clean the photo
# (session 17: 1800060, 2100122, 5109, 5371, 7898, tiles 0.61-0.99 ahead on fits of 0.0004-0.0009,
# 877-2430 times); the faces read **wrong** that led by under MIN_MARGIN, on every tile cell of the
# tuning sets, led on loose fits, a hand's or a stone's shade over the tile (5365: 0.52 ahead on
# 0.0019, 272 times; 1800066, 1800160, 1800186: 7-100 times).
CLOSE_FIT_MARGIN_SHARE = 0.5
CLOSE_FIT_LEAD = 500.0


def _told_faces(verdicts: dict, cells: list, visible: np.ndarray, scale: float) -> dict:
    """The verdicts, each tile without a face given the one _face_told tells (once, for the board
    and the faces alike)."""
    out = dict(verdicts)
    for cell, v in verdicts.items():
        if v.kind == "tile" and v.face is None:
            face = _face_told(v, visible[cells.index(cell)], scale)
            if face is not None:
                out[cell] = replace(v, face=face)
    return out


def _face_told(v: "_Verdict", visible: np.ndarray, scale: float) -> Face | None:
    """The face of a tile's verdict, or the reading's best one when it leads clearly for how closely it
    fits (CLOSE_FIT_LEAD); None when neither. A big micropul's catalyst has its own rule (_big_catalysts)."""
    if v.face is not None:
        return v.face
    r = v.reading
    if r is None or r.face is None or r.face.big or not np.any(visible):
        return None
    worst = max(e for e, seen in zip(r.quadrant_error, visible) if seen)
    if r.margin >= CLOSE_FIT_MARGIN_SHARE * MIN_MARGIN * scale and r.margin >= CLOSE_FIT_LEAD * scale * worst:
        return r.face
    return None


# Of two tiles read as the same tile, one is misread (a hand's edge or shadow over it, most often):
# the one read in full view that fits this many times closer, in its worst quadrant, than every
# other, and clearly (twice the margin a face needs), keeps its face. On seeds 1000-1199 the
# misread one fitted 5 times worse in one scene, 2.96 times in another (left unknown).
CLASH_FIT_RATIO = 3.0


def _clearly_better(cs: list, tiles: dict, sure: dict, cells, visible, scale: float):
    """The cell among `cs` (tiles read as the same tile) whose reading is clearly the right one, or
    None."""
    def worst(c):
        r = tiles[c].reading
        return float(np.array(r.quadrant_error)[visible[cells.index(c)]].max())

    best = min(cs, key=worst)
    if best not in sure or tiles[best].reading.margin < 2 * MIN_MARGIN * scale:
        return None
    if all(CLASH_FIT_RATIO * worst(best) <= worst(c) for c in cs if c != best):
        return best
    return None


def _all_used(face: Face, used: dict[int, int]) -> bool:
    """Every physical tile that shows this face is already on the board."""
    ids = {i for i, _ in identify(face)}
    return not ids or all(used.get(i, 0) >= 1 for i in ids)


def _use(face: Face, used: dict[int, int]) -> None:
    """Count a face's tile as placed, when the face names one tile (twins are left alone)."""
    ids = {i for i, _ in identify(face)}
    if len(ids) == 1:
        i = next(iter(ids))
        used[i] = used.get(i, 0) + 1


# A big tile's catalyst from the area of its central mark (mm2 of missing ink, white on a black
# micropul or black on a white one, within 4 mm of the centre): an integral, so blur and half a pixel
# of misplacement hardly change it, unlike the mark's shape. Measured on both artworks: a dot
# 5-12 mm2, a plus 11-25 mm2 (the simulator's drawing prints them larger than the sheet). On seeds
# 5400-6699 (first lattice read, 1455 big tiles): white dots 3.5-9.55, white pluses 11.02-21.3 (the
# white split sits in the middle of that gap since session 10: at 10.0 two dots fell in the unsure
# band, one left unknown, seed 6389), black dots 5.0-11.5, black pluses 12.8-25.3.
BIG_CATALYST_SPLIT = {"B": 12.8, "W": 10.3}
BIG_CATALYST_UNSURE = 0.6  # mm2 either side of the split: the templates decide, or unknown
# ... by this margin (squared-darkness units for a 60 px tile, as MIN_MARGIN) between the two big
# faces of that colour: on seeds 1000-1099 a dot read against a plus by at most 0.12 the wrong way,
# a plus by at least 1.4 the right way.
BIG_TEMPLATE_MARGIN = 2.0
CATALYST_REACH_MM = 4.0
# At the widest blur (BLUR_MM[-1], 1.9 mm; a board far off, 0.6 px per mm in the photo, blurs more) a
# mark's ink spreads past CATALYST_REACH_MM and its area shrinks: the splits no longer part dots from
# pluses, and the templates decide as near the split (by BIG_TEMPLATE_MARGIN), else the catalyst is
# unknown. The 2007 big tiles judged on 2100000-2100199, 2000000-2000199, 1800000-1800199, 5000-5399
# and 7000-7999 (all right but one): black pluses 13.6 mm2 and more up to 1.0 mm of blur, 12.85 at
# 1.4, black dots 11.6 and less; at 1.9 mm (two tiles, seed 2100122) a black plus showed 10.67, read
# as a one-dot, and the real one-dot tile beside it (4.81, the templates 2.7 for it) then read as the
# same tile, both unknown. The templates alone do not separate it: they put the plus 0.99 ahead there,
# and up to 1.58 ahead on black dots read right by area (5191, 7104, 7125).


def _big_catalysts(verdicts: dict, cells: list, read: "_Cells", model: FaceModel) -> dict:
    from tablecam.rules.micropul.tiles import big_face

    side = model.side_px
    ppm = side / 30.0  # templates are in tile units; areas below are for a 30 mm tile, scaled
    yy, xx = np.mgrid[0:side, 0:side]
    near = np.hypot(xx - (side - 1) / 2, yy - (side - 1) / 2) / ppm < CATALYST_REACH_MM
    out = dict(verdicts)
    for cell, v in verdicts.items():
        if v.kind != "tile" or v.reading is None or not v.reading.face.big:
            continue
        k = cells.index(cell)
        colour, g = v.reading.face.big, max(v.reading.gain, 1e-6)
        dark = read.dark[k][near]
        ink = (g - dark) / g if colour == "B" else dark / g
        area = float(np.clip(ink, 0.0, 1.0).sum()) / (ppm * ppm)
        split = BIG_CATALYST_SPLIT[colour]
        if abs(area - split) < BIG_CATALYST_UNSURE or v.reading.blur_mm >= BLUR_MM[-1]:
            errors = v.reading.face_errors
            dot_vs_plus = float(errors[model.faces.index(big_face(colour, "1"))]
                                - errors[model.faces.index(big_face(colour, "+"))])
            margin = BIG_TEMPLATE_MARGIN * (side / 60.0) ** 2
            face = big_face(colour, "+") if dot_vs_plus >= margin else \
                big_face(colour, "1") if dot_vs_plus <= -margin else None
        else:
            face = big_face(colour, "1" if area < split else "+")
        out[cell] = replace(v, face=face)
    return out


def _hole_in_board(fd, lattice: Lattice, tiles: Mapping) -> bool:
    units = lattice.to_units(np.array([fd.centre_mm]))[0]
    cell = (int(round(units[0])), int(round(units[1])))
    aligned = abs((fd.angle_deg - lattice.angle_deg + 45.0) % 90.0 - 45.0) < 6.0
    on_cell = math.hypot(units[0] - cell[0], units[1] - cell[1]) < 0.3
    return aligned and on_cell and any(n in tiles for n in _neighbours(cell))


def _on_or_near(centre_mm, lattice: Lattice, tiles: Mapping) -> bool:
    units = lattice.to_units(np.array([centre_mm], dtype=np.float64))[0]
    cell = (int(round(units[0])), int(round(units[1])))
    return cell in tiles
