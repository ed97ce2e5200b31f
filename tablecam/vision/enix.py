"""ENIX: a camera frame -> the ENIX Observation of ARCHITECTURE.md.

    obs = detect(image, profile=camera_profile)                        # one photo
    detector = EnixDetector(EnixSettings(profile=...))
    obs = detector.detect(frame, frame_id=n, state=last_obs)          # a stream: table lock and warps kept

How a frame is read:
1. The table: markers -> table millimetres and the frame's white reference (calibration); a coarse
   white-balanced top-down image (0.5 px/mm) whose every pixel is named after the colour that
   explains it: an energy, the table, print white, black, ENIX grey, card back (enix_search.py).
2. Tiles: each energy's hexagon on the layout's lattice (enix_hexes.py), then centred on its
   source's white ring where the raw frame shows it (_on_sources).
3. The cap: the black disc of its size; pawns: domed discs on and around the tiles, whatever
   their colour (enix_pawns.py).
4. Rays: each tile's six sides read from the raw frame (no ray, or 0-2 path points); the turn of
   the ray table's pattern that agrees is the tile's rotation (enix_rays.py). Every hex carries
   the rays as read, so a set whose tiles differ from the table is seen, not assumed.
5. Cards: rectangles of a card's size: faces (energy colour, or ENIX grey in a white border) and
   backs; a face's value read against the twenty values in the cards' typeface (enix_cards.py).

Whatever is not sure is null with a warning; `state` (the last Observation) settles which way a
tile whose rays repeat (solar) is turned, and which of several turns a partly hidden tile has.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from functools import lru_cache

import cv2
import numpy as np

from tablecam.calibration.geometry import TableGeometry
from tablecam.errors import UserError
from tablecam.rules.enix.energies import DEFAULT_RAYS

from .enix_cards import read_cards
from .enix_hexes import APOTHEM_MM, PITCH_MM, HexFit, find_hexes, hexagons_mask
from .enix_pawns import CAP_MM, PAWN_MM, find_cap, find_pawns, pawn_palette, tile_patches
from .enix_rays import ALONG_MM, SOURCE_MM, SideReading, match_turns, read_sides_many, sample_points_many
from .enix_search import class_map, find_card_blobs
from .piece_colours import srgb_to_linear
from .table_view import TableReader, TableView, read_table

GAME = "enix"
SEARCH_PX_PER_MM = 0.5  # a tile is 110 mm across: 55 px; a card 29 x 44 px
MARGIN_MM = 20.0
NO_TILES = "no enix tiles found"
UNREAD = "?"  # a side whose rays could not be read, in a hex's "rays"
# A tile showing less than this share of its colour, once its pawns and the cap are allowed for, is
# covered by something else (bench seeds below 100000: hands leave 0.3-0.8, a clear tile 0.83-1.05).
HAND_SEEN = 0.8
HEX_AREA_MM2 = 3 * math.sqrt(3) / 2 * 64.0 ** 2
PAWN_SHARE = math.pi * (PAWN_MM / 2) ** 2 / HEX_AREA_MM2
CAP_SHARE = math.pi * (CAP_MM / 2) ** 2 / HEX_AREA_MM2
# A tile's source (enix.md (model)): a white disc of SOURCE_MM edged by a dark ring 2 mm wide, the
# tile's colour inside 9 mm. Where it shows, it puts the tile's centre to a fraction of a mm.
SOURCE_WHITE_MM = (10.5, 15.0)  # radii of the white between the inner disc and the dark edge...
SOURCE_EDGE_MM = (SOURCE_MM / 2 - 1.6, SOURCE_MM / 2 - 0.4)  # ... and of the dark edge
SOURCE_REACH_MM = 6.0  # how far from the map's centre the source is looked for
SOURCE_STEP_MM = 0.5
# The white's whiteness (linear light) above the edge's at the best place: below it, the source is
# not seen (the cap or a crowd of pawns on it, a hand) and the map's centre stays (5200-5299: a
# source under the cap or five pawns scores 0.01-0.09, a clear one 0.2-1).
MIN_SOURCE_CONTRAST = 0.15
# Sources that set the tiles' angle (_turned_by_sources): both this clear (a source 8 mm off its
# tile, on a ring-like white under a hand, scored 0.154; steps between sources of 0.2 and more are
# within 0.74 degrees), a pitch apart within STEP_SLACK_MM (all such steps there: within 2 mm)...
MIN_STEP_CONTRAST = 0.2
STEP_SLACK_MM = 3.0
# ... and the lattice's angle kept only as a check: a source angle farther than this from it is a
# disagreement (after the outlines' check of enix_hexes, the lattice is within 2.1 degrees on those
# 840 frames).
MAX_SOURCE_TURN = 4.0
RAY_REACH_MM = float(ALONG_MM[-1]) + 1.0  # past the farthest ray sample from a tile's centre (its axis)


@dataclass(frozen=True)
class EnixSettings:
    """What the detector needs to know about this table (all from the settings file)."""

    geometry: TableGeometry = field(default_factory=TableGeometry)
    profile: object | None = None  # calibration.lens.CameraProfile
    colours: object | None = None  # calibration.colours.ColourProfile for enix; None: the defaults
    rays: tuple[tuple[str, tuple[int | None, ...]], ...] = tuple(DEFAULT_RAYS.items())  # the set's ray table
    pawn_colours: tuple[tuple[str, str], ...] | None = None  # (name, "#rrggbb"); None: the model's


class EnixDetector:
    """Reads ENIX frame after frame, keeping the table lock and the warp maps between frames."""

    def __init__(self, settings: EnixSettings = EnixSettings()) -> None:
        self.settings = settings
        self._reader = TableReader(settings.geometry, settings.profile, SEARCH_PX_PER_MM, MARGIN_MM)

    def detect(self, frame: np.ndarray, frame_id: int = 0, state: dict | None = None) -> dict:
        """The Observation of one frame. `state`: the last Observation (settles symmetric tiles' turns)."""
        start = time.perf_counter()
        obs = read_enix(self._reader.view(frame), self.settings, frame_id, state)
        obs["ms"] = round(1000.0 * (time.perf_counter() - start), 2)
        return obs


def detect(image: np.ndarray, geometry: TableGeometry = TableGeometry(), profile=None, colours=None,
           state: dict | None = None, frame_id: int = 0, rays=None) -> dict:
    """The ENIX Observation of one photo (ARCHITECTURE.md). `rays`: the set's ray table {energy: [6 x
    0|1|2|null]} (energies left out keep enix.md's). Raises UserError (one sentence) when the image is
    not a usable frame or fewer than three table markers show."""
    start = time.perf_counter()
    settings = EnixSettings(geometry, profile, colours, ray_table(rays))
    obs = read_enix(read_table(image, geometry, profile, SEARCH_PX_PER_MM, MARGIN_MM), settings, frame_id, state)
    obs["ms"] = round(1000.0 * (time.perf_counter() - start), 2)
    return obs


def ray_table(rays=None) -> tuple[tuple[str, tuple[int | None, ...]], ...]:
    """enix.md's ray table with the given energies' rows replaced (UserError when a row is malformed)."""
    table = dict(DEFAULT_RAYS)
    for energy, row in (rays or {}).items():
        if energy not in table:
            raise UserError(f"the ray table names {energy!r}, which is not one of {', '.join(table)}.")
        if (not isinstance(row, (list, tuple)) or len(row) != 6
                or any(r is not None and (isinstance(r, bool) or r not in (0, 1, 2)) for r in row)):
            raise UserError(f"the rays of {energy} must be six entries, each 0, 1, 2 or null.")
        table[energy] = tuple(row)
    return tuple(table.items())


def energy_colours(colours) -> tuple[tuple[str, ...], np.ndarray]:
    from tablecam.calibration.colours import default_profile

    profile = colours or default_profile(GAME)
    return profile.names, np.array([profile.rgb(n)[::-1] for n in profile.names], dtype=np.float32)


def read_enix(view: TableView, settings: EnixSettings, frame_id: int = 0, state: dict | None = None) -> dict:
    """The Observation from one frame seen as the table."""
    geometry = settings.geometry
    warnings = list(view.fix.warnings)
    obs = {"game": GAME, "frame_id": int(frame_id), "table_mm": [geometry.width_mm, geometry.height_mm],
           "ms": 0.0, "markers_seen": len(view.fix.markers_seen), "warnings": warnings,
           "hexes": [], "pawns": [], "cap": None, "cards": []}
    if view.light is None:
        warnings.append("no marker paper can be seen to balance the colours: colours may be misread")
    energies, refs = energy_colours(settings.colours)
    cmap = class_map(view.top.image, view.valid, energies, refs)
    hexes = find_hexes(cmap, energies, view.top.px_to_mm, view.top.mm_to_px, view.ppm)
    centres = [h.centre for h in hexes]
    patches = tile_patches(view, centres)
    cap = find_cap(cmap.mask("black"), view.top.px_to_mm, view.ppm, patches, centres)
    if cap is not None:
        obs["cap"] = {"center_mm": _mm(cap)}
    names, pawn_refs = pawn_palette(settings.pawn_colours)
    # (The cap is a dome too, three times a pawn's size: find_pawns reads nothing on it or its edge.)
    pawns = find_pawns(patches, centres, names, pawn_refs, refs[[energies.index(h.energy) for h in hexes]], cap=cap)
    obs["pawns"] = [{"colour": p.colour, "center_mm": _mm(p.centre)} for p in pawns]
    unknown_pawns = sum(p.colour is None for p in pawns)
    if unknown_pawns:
        # (Null: a colour no taught pawn has, or one the camera cannot tell - a tint of white, a clipped
        # top, a grey in shade - rather than a guess.)
        warnings.append(f"{unknown_pawns} pawn{'s' if unknown_pawns > 1 else ''} of a colour not told (glare or "
                        "shade, or a colour no pawn has: teach your set's pawn colours): shown with colour null")
    if not hexes:
        warnings.append(NO_TILES)
    else:
        table = dict(settings.rays)
        before = _last_rotations(state)
        covers = [(p.centre, PAWN_MM / 2 + 1.5) for p in pawns] + ([(cap, CAP_MM / 2 + 1.5)] if cap else [])
        # (The pawns and the cards keep the map's centres: only the tiles' own readings move.)
        placed, turned = _turned_by_sources(_sources(view, hexes))
        if turned is None:
            warnings.append("the tiles' sources and outlines disagree on how the layout is turned (a hand over it?): "
                            "rotations shown as null")
        ordered = sorted(placed, key=lambda h: energies.index(h.energy))
        for h, reading in zip(ordered, _ray_readings(view, ordered, covers)):
            entry, note = _read_hex(h, reading, table[h.energy], before.get(h.energy), turned is not None)
            obs["hexes"].append(entry)
            if note:
                warnings.append(note)
        hidden = [h.energy for h in hexes if h.snapped]
        if hidden:
            warnings.append(f"the {', '.join(hidden)} tile{'s are' if len(hidden) > 1 else ' is'} partly hidden: "
                            "placed on the layout's lattice")
        note = _hand_note(hexes, pawns, cap, len(energies))
        if note:
            warnings.append(note)
    tiles = hexagons_mask(hexes, cmap.labels.shape, view.top.mm_to_px) if hexes else None
    blobs = [b for b in find_card_blobs(cmap, view.top.px_to_mm, view.ppm, energies + ("enix", "back"), tiles)
             if all(math.dist(b.centre, h.centre) > APOTHEM_MM for h in hexes)]
    cards, unsure = read_cards(view, blobs, energies, refs)
    obs["cards"] = [{"energy": c.energy, "value": c.value, "center_mm": _mm(c.centre), "face_up": c.face_up}
                    for c in cards]
    if unsure:
        warnings.append(f"{unsure} card value{'s' if unsure > 1 else ''} could not be read for sure: shown as null")
    return obs


def _on_sources(view: TableView, hexes: list[HexFit]) -> list[HexFit]:
    """The tiles, each centred on its source where the raw frame shows it (_sources)."""
    return [h for h, _ in _sources(view, hexes)]


def _turned_by_sources(placed: list[tuple[HexFit, float | None]]) -> tuple[list[HexFit], float | None]:
    """The tiles turned to the angle their sources' centres show, and that angle: neighbours' sources
    lie a pitch apart across a side, and where both are clear (MIN_STEP_CONTRAST) the step between
    them gives the sides' angle to 0.7 degrees (840 frames of 2200000, 2300000, 4200, 6300-6699:
    4675 steps, 99 % within 0.36), where the lattice from the coarse map's outlines is 1-2 degrees
    off at times (the sides' angle is also the rotation's: the limit is 3). Without such a step the
    lattice's angle stays. When the two disagree by more than MAX_SOURCE_TURN one of them is
    misled (a hand of a tile's colour, a ring-like white thing): None, the rotations are unsure."""
    steps = []
    for i, (a, sa) in enumerate(placed):
        for b, sb in placed[i + 1:]:
            if sa is None or sb is None or min(sa, sb) < MIN_STEP_CONTRAST:
                continue
            dx, dy = b.centre[0] - a.centre[0], b.centre[1] - a.centre[1]
            if abs(math.hypot(dx, dy) - PITCH_MM) <= STEP_SLACK_MM:
                steps.append(math.atan2(dy, dx) + math.pi / 2)  # (a side's normal: -90 + angle + 60 k)
    hexes = [h for h, _ in placed]
    if not steps:  # (the tiles share the lattice's angle)
        return hexes, hexes[0].side_angle if hexes else None
    # (Their mean as sixfold angles: a step across any of the six sides gives the same angle modulo 60.)
    sin6, cos6 = sum(math.sin(6 * t) for t in steps), sum(math.cos(6 * t) for t in steps)
    angle = math.degrees(math.atan2(sin6, cos6)) / 6.0 % 60.0
    if abs((angle - hexes[0].side_angle + 30.0) % 60.0 - 30.0) > MAX_SOURCE_TURN:
        return hexes, None
    return [replace(h, side_angle=angle) for h in hexes], angle


def _sources(view: TableView, hexes: list[HexFit]) -> list[tuple[HexFit, float | None]]:
    """Each tile centred on its source where the raw frame shows it, with that source's contrast
    (None: not seen, the tile as it was): the coarse map's centre is 1-2 mm off (its pixel is 2
    mm), and a tile partly under a hand is placed by its lattice cell and what colour shows,
    several mm off at times. Within SOURCE_REACH_MM of the map's centre, the place where the
    source's white ring is brightest against its dark edge (both as mean whiteness over their
    annuli: pawns standing on the ring only dim it) is taken, when that contrast reaches
    MIN_SOURCE_CONTRAST."""
    grid, kernel = _source_grid(), _source_kernel()
    n = int(round(math.sqrt(len(grid))))
    # Point (i, j) of the grid is (t[j], t[i]) off the centre: sampled as a grid (far cheaper).
    bgr, inside = view.sample_grids([h.centre for h in hexes], grid[:n, 0])
    white = _whiteness(bgr)
    seen = inside.reshape(len(hexes), -1).all(axis=1)
    r = int(round(SOURCE_REACH_MM / SOURCE_STEP_MM))
    out: list[tuple[HexFit, float | None]] = []
    for h, w, whole in zip(hexes, white, seen):
        if not whole:  # (a window leaving the frame: no source to be sure of)
            out.append((h, None))
            continue
        # The kernel at every place within reach (the grid is just that wide): (2r + 1) squared.
        score = cv2.matchTemplate(w, kernel, cv2.TM_CCORR)
        iy, ix = np.unravel_index(int(np.argmax(score)), score.shape)
        if score[iy, ix] < MIN_SOURCE_CONTRAST:
            out.append((h, None))
            continue
        centre = (h.centre[0] + (ix - r) * SOURCE_STEP_MM, h.centre[1] + (iy - r) * SOURCE_STEP_MM)
        out.append((replace(h, centre=(float(centre[0]), float(centre[1]))), float(score[iy, ix])))
    return out


@lru_cache(maxsize=1)
def _source_kernel() -> np.ndarray:
    """The mean over the source's white annulus less the mean over its dark edge, on the grid's step."""
    m = int(math.ceil(SOURCE_EDGE_MM[1] / SOURCE_STEP_MM)) + 1
    t = np.arange(-m, m + 1) * SOURCE_STEP_MM
    rr = np.hypot(*np.meshgrid(t, t))
    white = ((rr >= SOURCE_WHITE_MM[0]) & (rr <= SOURCE_WHITE_MM[1])).astype(np.float32)
    edge = ((rr >= SOURCE_EDGE_MM[0]) & (rr <= SOURCE_EDGE_MM[1])).astype(np.float32)
    kernel = white / white.sum() - edge / edge.sum()
    kernel.setflags(write=False)
    return kernel


@lru_cache(maxsize=1)
def _source_grid() -> np.ndarray:
    """(N, 2) mm offsets: a square grid just wide enough for the kernel at every place within reach."""
    half = (_source_kernel().shape[0] // 2) * SOURCE_STEP_MM + SOURCE_REACH_MM
    t = np.arange(-half, half + 1e-9, SOURCE_STEP_MM)
    grid = np.stack(np.meshgrid(t, t), axis=-1).reshape(-1, 2)
    grid.setflags(write=False)
    return grid


def _ray_readings(view: TableView, hexes: list[HexFit],
                  covers: list[tuple[tuple[float, float], float]]) -> list[list[SideReading]]:
    """Per tile: its six sides read (enix_rays.read_sides) from the frame's whiteness (_whiteness)
    along and beside its rays; a point along a ray is not read where it lies outside the frame or
    under a pawn or the cap (`covers`: centre and radius, table mm). All tiles are sampled at once
    (each sampling costs a lens projection and a remap, and every point is read on its own: the
    same values as tile by tile), and read at once."""
    if not hexes:
        return []
    along, beside, flat = sample_points_many([h.centre for h in hexes], [h.side_angle for h in hexes])
    levels, inside = view.sample_levels(flat)  # (whole levels: their linear light is a lookup)
    white, inside = _whiteness(levels).reshape(len(hexes), -1), inside.reshape(len(hexes), -1)
    n_along = along[0, ..., 0].size  # (each tile's along samples, then its beside samples)
    a_lum = _across_mean(white[:, :n_along].reshape(along.shape[:4]))  # (T, 6, A)
    b_lum = white[:, n_along:].reshape(beside.shape[:4])  # (T, 6, A, 2)
    ok = _across_all(inside[:, :n_along].reshape(along.shape[:4]))  # (T, 6, A)
    pts = along[:, :, :, 1, :]  # the axis
    for t, h in enumerate(hexes):
        for centre, radius in covers:
            if math.dist(h.centre, centre) > radius + RAY_REACH_MM:
                continue  # (beyond every point of this tile's rays by a millimetre: hides none of them)
            ok[t] &= np.hypot(pts[t, ..., 0] - centre[0], pts[t, ..., 1] - centre[1]) > radius
    return read_sides_many(a_lum, b_lum, ok)


def _read_hex(h: HexFit, reading: list[SideReading], row: tuple[int | None, ...],
              before: float | None, angle_sure: bool = True) -> tuple[dict, str | None]:
    """One tile's rays and rotation, from its sides as read (_ray_readings); `angle_sure` False: the
    tiles' angle is in doubt (_turned_by_sources), the rotation is null (the rays are still given)."""
    turns = match_turns(reading, row)
    rotation = _choose(h.side_angle, turns, before, _look_alike(turns, row)) if angle_sure else None
    note = None
    if rotation is None and angle_sure:
        known = sum(r.known for r in reading)
        if not turns:
            note = (f"the rays of the {h.energy} tile match no turn of the ray table (another set? teach its rays): "
                    "rotation shown as null")
        else:
            note = f"the {h.energy} tile's rays are hidden in part ({6 - known} of 6 sides): rotation shown as null"
    entry = {"energy": h.energy, "center_mm": _mm(h.centre),
             "rotation": None if rotation is None else round(rotation % 360.0, 2),
             "rays": _rays_json(reading, h.side_angle, rotation)}
    return entry, note


def _hand_note(hexes: list[HexFit], pawns, cap, tiles_in_game: int) -> str | None:
    """A warning that names a hand when the layout is hidden in part by something that is not one
    of the game's pieces: a tile missing (the game always has all its tiles on the table), or a
    tile of which much less colour shows than its pawns and the cap hide. The companion waits
    while such a warning stands, instead of taking a half-hidden table for a move."""
    if len(hexes) < tiles_in_game:
        return (f"only {len(hexes)} of the {tiles_in_game} tiles can be seen "
                "(a hand or an object over the layout?)")
    covered = []
    for h in hexes:
        pieces = sum(PAWN_SHARE for p in pawns if math.dist(p.centre, h.centre) < APOTHEM_MM)
        if cap is not None and math.dist(cap, h.centre) < APOTHEM_MM:
            pieces += CAP_SHARE
        if h.seen + pieces < HAND_SEEN:
            covered.append(h.energy)
    if covered:
        return (f"the {', '.join(covered)} tile{'s are' if len(covered) > 1 else ' is'} covered in part "
                "(a hand or an object over the layout?)")
    return None


def _look_alike(turns: list[int], row: tuple[int | None, ...]) -> bool:
    """The turns show the very same pattern (a symmetric tile: solar's rays repeat every half turn)."""
    return all(row[(j + a) % 6] == row[(j + b) % 6] for a in turns for b in turns for j in range(6))


def _choose(side_angle: float, turns: list[int], before: float | None, look_alike: bool) -> float | None:
    """The rotation among the turns that agree: the only one; else the one the last reading had
    (a tile does not turn half way round between two frames); else, when they all look alike (a
    symmetric tile: no camera can tell them apart), the smallest; else unknown."""
    if not turns:
        return None
    options = sorted((side_angle + 60.0 * s) % 360.0 for s in turns)
    if len(options) == 1:
        return options[0]
    if before is not None:
        best = min(options, key=lambda r: _circular(r, before))
        if _circular(best, before) <= 30.0:
            return best
    return options[0] if look_alike else None


def _circular(a: float, b: float) -> float:
    d = (a - b) % 360.0
    return min(d, 360.0 - d)


def _rays_json(reading: list[SideReading], side_angle: float, rotation: float | None) -> list:
    """The rays as read, side 0..5 of the tile when its rotation is known, else clockwise from the
    side facing the table's far side; "?" for a side that could not be read."""
    if rotation is not None:
        turn = int(round((rotation - side_angle) / 60.0)) % 6
        order = [(j + turn) % 6 for j in range(6)]
    else:
        # Table-order side k points at -90 + side_angle + 60 k: with side_angle above 30, side 5 is
        # the one nearest the far side (-90).
        order = [(j + (5 if side_angle % 60.0 > 30.0 else 0)) % 6 for j in range(6)]
    return [r.points if r.known else UNREAD for r in (reading[k] for k in order)]


def _whiteness(bgr: np.ndarray) -> np.ndarray:
    """The weakest channel in linear light: a ray (the tile's colour lightened towards white) and a
    path point's white raise it far above the tile's saturated colour, whose brightest channels a
    camera often clips (a bright yellow tile and its pale rays can both read 255 in red and green)."""
    bgr = np.asarray(bgr)
    return srgb_to_linear(np.minimum(np.minimum(bgr[..., 0], bgr[..., 1]), bgr[..., 2]))


def _across_mean(a: np.ndarray) -> np.ndarray:
    """a.mean(axis=-1) over the points across a ray: for three, the same sums in the same order
    written out (numpy's reduction over so short an axis costs far more than the sums)."""
    if a.shape[-1] != 3:
        return a.mean(axis=-1)
    return (a[..., 0] + a[..., 1] + a[..., 2]) / np.float32(3.0)


def _across_all(a: np.ndarray) -> np.ndarray:
    """a.all(axis=-1) over the points across a ray (as _across_mean)."""
    if a.shape[-1] != 3:
        return a.all(axis=-1)
    return a[..., 0] & a[..., 1] & a[..., 2]


def _last_rotations(state: dict | None) -> dict[str, float]:
    out: dict[str, float] = {}
    if not state or state.get("game", GAME) != GAME:
        return out
    for h in state.get("hexes") or []:
        if isinstance(h, dict) and isinstance(h.get("rotation"), (int, float)) and isinstance(h.get("energy"), str):
            out[h["energy"]] = float(h["rotation"])
    return out


def _mm(p) -> list[float]:
    return [round(float(p[0]), 2), round(float(p[1]), 2)]
