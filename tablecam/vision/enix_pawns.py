"""ENIX pawns and the blackout cap, on and around the tiles.

A pawn is a domed disc (enix.md (model): 16 mm seen from above). Whatever its colour - white on a
tile's white source, yellow on the yellow tile - its rounded flank turns away from the camera
and the lamp, so it shows a bright top inside a ring darker than the top all the way round. The
tiles' print has no such thing: a path point's ring is smaller and a ray runs bright through its
surround; a tile's inner disc is one flat colour. So pawns are found by that dome signature:

1. around each tile the raw frame is cut out at 2 px/mm (white-balanced), its brightness filtered
   with round kernels: the top (a disc of 5 mm) against the rim (the ring 5.5-7.5 mm out), and a
   black pawn's dark disc against its surroundings; peaks of either are candidates, each checked
   over half a millimetre around it;
2. each candidate is checked all the way round (`_dome`): a rim darker than the top in at least
   10 of 12 directions, round (darkest at one distance, or as dark there as anywhere out to 9 mm;
   a lit coloured top - not dark - may be one direction short: a crowded source; a white one only
   when it is the white pawn's clear white, lit, and dark all round; or, standing on its tile,
   falling to half its brightness at one distance all round: a crowd's neighbours darken some
   directions beyond its rim),
   no dark ring close in (a path point's), and a rim of the top's colour in shade (at 5.5-7.5 mm,
   or for a lit coloured top at 5-6 mm, inside the blur of the tile; so too for a black top with
   brighter surroundings all round, where a source's ring or a lit tile blurs into its rim and
   nothing else was read near that peak; for a lit top the sensor clipped, a flank of its pawn
   colour in shade; for a lit white top whose rim takes in a blurred tile, a flank of its top in
   shade when it is dark and falls to half at one distance all round). A dark body against bright surroundings is a black or brown pawn; against
   the cap, brightness is the brightest channel and the directions facing the cap are let be
   (`_beside_cap`). The patches are stacked (`_Stack`) so that every patch's candidates are
   checked in one numpy pass;
3. its colour is the taught pawn colour that explains the top (piece_colours.py), or null; white
   when white explains it nearly as well (a white top in shade is grey, as is a glossy dark one);
   a top no pawn colour explains but its tile's is that tile's print in shade, no pawn; a clipped
   top of its tile's hue is a pawn when its flank is its pawn colour in shade (lime on yellow); a
   name another colour's pawn could show too is null, never a guess (`_unsure`: a colour mostly the
   lamp's white, a clipped top whose flank is not that colour in shade, a grey read black on a dome);
4. no pawn is a reading whose colour goes on past its rim (a finger; but for the white pawn, which
   stands on a source's white, and the sources' white past a lit colour clipped in glare) - in two
   neighbouring directions just past it, or joined to it
   anywhere out to 13 mm (`_spreading`: a fingertip's finger, whichever way it lies) -, a white
   one whose rim is as bright as its top somewhere (the source's ring going on), a black one
   inside a dark band through it (a hand's shadow; dark in every channel: the blue tile is not),
   nor anything on the cap or its edge (the cap beside a pawn is no finger nor its colour going on);
5. no pawn is a reading within GAP_MM of two others: the source's white between pawns standing on
   it, where no pawn fits (`_without_gaps`).

The cap (34 mm, black) is the black class's disc of its size on a tile in the coarse map
(enix_search.py), else a tile whose middle is its grey.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from .piece_colours import SATURATED, W_MAX, fit_residuals, srgb_to_linear
from .table_patches import square_patches

PAWN_MM = 16.0
CAP_MM = 34.0
PATCH_MM = 92.0  # around each tile's centre: pawns stand on the source or, under the cap, around it
READ_PX_PER_MM = 2.0
TOP_MM = 5.0  # the pawn's top: a disc of this diameter
MIN_SCORE = 0.12  # (top - rim) / top in linear light, for a candidate
RIM_RADII_MM = (5.5, 7.5)
DARK_RIM = 0.85  # the rim's brightness over the top's, in a direction, to count as dark there
MIN_DARK_DIRECTIONS = 10  # of 12
NEAR_SLACK_DIRECTIONS = 3  # a peak with this many fewer dark directions is still refined...
NEAR_BLACK = 1.5  # ... as is one whose top is nearly black (BLACK_TOP times this)
CLIPPED_TOP = 0.9  # linear luminance: a top the sensor clipped (white-balanced)...
CLIPPED_SLACK_DIRECTIONS = 1  # ... may have this many fewer dark directions for the wider look
RIM_AT_MM = (7.0, 2.0)  # where a pawn's rim is darkest (its shaded edge): 5-8 mm from its centre
MID_OVER_TOP = 0.45  # 4 mm out, a pawn's dome is still this bright (a path point's ring is darker)
MID_OVER_RIM = 1.5  # ... and brighter than its rim by this
MAX_RIM_RESIDUAL = 0.3
ROUND_FLOOR = 0.035  # a direction within this share of its top's contrast of its darkest at the rim is round there
SHORT_OF_ROUND = 1  # directions a lit coloured top's rim may be short of round (a crowded source's neighbours)
BLACK_TOP = 0.07  # linear luminance: a black pawn's top
BLACK_SURROUND = 2.5  # ... with surroundings 9-10 mm out at least this much brighter...
BLACK_BRIGHT_DIRECTIONS = 9  # ... in this many of 12 directions (other pawns may stand beside it)
DARK_BODY = 0.35  # linear luminance (`_beside_cap`: the brightest channel): a dark pawn's body (2.5-6 mm out) under the brightest lamp...
DARK_TOP_OVER_BODY = 1.6  # ... its glossy top no more than this much brighter...
DARK_BODY_REF = 0.25  # ... and its colour no brighter than this (linear: brown 0.19; the others 0.7 and up)...
DARK_BODY_FIT = 0.08  # ... its top fitting it this well when it is not black
MAX_COLOUR_RESIDUAL = 0.3
# A top is named a pawn colour only when that colour explains it this well: tuning seeds 5000-5899,
# 3415 pawns found: one over 0.2 (a glossy black at 0.225); a source's inner disc in a crowd's
# shade read as brown (5561, 5843) at 0.27.
NAMED_RESIDUAL = 0.25
DARK_REF = 0.05  # a pawn colour no brighter than this (linear) is dark (black, dark brown)...
W_MAX_DARK = 0.4  # ... and its gloss adds at most this much white (a white pawn's lit top is brighter)
WHITE_SLACK = 0.08  # a top white explains within this residual of the best colour is read white...
WHITE_MIN, WHITE_SPREAD = 200, 30  # ... the white pawn: a reference this bright in every channel, this neutral
PEAK_MM = 3.0  # candidate peaks at least this far apart
REFINE_MM = 1.0  # each candidate is checked this far around its peak...
REFINE_STEP_MM = 0.5  # ... this far apart (a dome reads as one over a millimetre or so)
APART_MM = 11.0  # two pawns' centres are at least this far apart (16 mm discs, overlapping a little at most)
REACH_MM = 48.0  # pawns are looked for within this distance of a tile's centre
GROUND_RADII = tuple(np.arange(9.5, 13.01, 0.5))  # just round a pawn (its radius is 8 mm)
MIN_GROUND = 0.25  # share of that ring its tile's print must fill
PRINT_WHITE = (244, 242, 240)  # the sources' white (sRGB BGR, white-balanced)
CONTINUE_RADII = (10.5, 11.5, 12.5)  # just beyond a pawn's rim...
SAME_COLOUR = 0.06  # ... the top's colour again (fit residual under this) in two neighbouring directions: a finger
TILE_SURFACE_RADII = tuple(np.arange(25.0, 40.01, 1.5))
PRINT_LUM = 0.4  # a top at least this bright (of the tile's surface) and of the tile's colour is print
# The cap is a dome too, but three times a pawn's size: its own top is no pawn, nor is its blurred
# edge (tuning seed 5495: read as a black pawn 17.5 mm from its centre as read, beside a hand). A
# pawn beside it stands CAP_MM / 2 + PAWN_MM / 2 = 25 mm from its centre; the cap's centre as read
# is up to 5.3 mm off (tuning seeds 5000-5399: true pawns 21.9 mm from it and farther).
CAP_CLEAR_MM = CAP_MM / 2 + 2.0
CAP_ON_TILE_MM = 55.0  # the cap's centre is within a tile's apothem of that tile's centre
CAP_CORE_MM = 14.0  # the cap's middle, well inside its 17 mm radius...
CAP_SHARE_MIN = 0.6  # ... at least this share of it dark grey...
CAP_MAX_CHROMA = 0.3  # ... (channel spread over the brightest channel at most this...
CAP_MAX_SRGB = 160  # ... and no channel brighter than this, white-balanced: a source's ring is ~240)

# Model pawn colours: the seed names none; these are the simulator's, chosen apart from every
# energy colour (rules/enix/energies.py names the same). A set of other colours is taught.
PAWN_COLOURS = (("white", "#f2f2ee"), ("black", "#222222"), ("pink", "#f07ab4"), ("cyan", "#3cc8dc"),
                ("brown", "#7a4a26"), ("lime", "#b4e03c"))


@dataclass(frozen=True)
class Pawn:
    colour: str | None
    centre: tuple[float, float]  # table mm


def pawn_palette(colours=None) -> tuple[tuple[str, ...], np.ndarray]:
    """Names and sRGB BGR of the pawn colours: `colours` ((name, "#rrggbb"), ...) or the model's."""
    pairs = tuple(colours) if colours else PAWN_COLOURS
    names = tuple(n for n, _ in pairs)
    refs = np.array([[int(h[5:7], 16), int(h[3:5], 16), int(h[1:3], 16)] for _, h in pairs], np.float32)
    return names, refs


def tile_patches(view, tile_centres: list[tuple[float, float]], angle_deg: float = 0.0) -> list[np.ndarray]:
    """The raw frame around each tile centre (table mm), PATCH_MM square at READ_PX_PER_MM,
    white-balanced: what the pawns and the cap are read from."""
    if not tile_centres:
        return []
    patches = square_patches(view.frame, view.fix.table_to_image, np.array(tile_centres), angle_deg, PATCH_MM,
                             READ_PX_PER_MM)
    return [cv2.LUT(p, view.lut) if view.lut is not None else p for p in patches]


def find_pawns(patches: list[np.ndarray], tile_centres: list[tuple[float, float]], names: tuple[str, ...],
               refs: np.ndarray, tile_colours: np.ndarray | None = None, angle_deg: float = 0.0,
               cap: tuple[float, float] | None = None) -> list[Pawn]:
    """Pawns within reach of the given tile centres (table mm), read from their `tile_patches`.
    `tile_colours` (sRGB BGR, one per tile): a dome whose top is its tile's own colour rather than
    any pawn's is the tile's print (its source's inner disc), unless a pawn has that colour too.
    `cap` (table mm): where the cap is (`find_cap`); nothing within CAP_CLEAR_MM of it is a pawn."""
    if not len(patches):
        return []
    stack = _stack(patches)
    tiles = None if tile_colours is None else np.asarray(tile_colours, np.float32).reshape(-1, 3)
    caps = None if cap is None else [_mm_to_patch(centre, cap, angle_deg) for centre in tile_centres]
    found: list[Pawn] = []
    for centre, pawns in zip(tile_centres, _pawns_in_patches(stack, names, refs, tiles, caps)):
        for (px, py), colour in pawns:
            mm = _patch_to_mm(centre, px, py, angle_deg)
            if math.dist(mm, centre) > REACH_MM:
                continue
            if any(math.dist(mm, p.centre) < APART_MM for p in found):
                continue  # the same pawn seen from the patch of a neighbouring tile
            found.append(Pawn(colour, mm))
    return _without_gaps(found)


GAP_MM = 13.5  # two pawns (16 mm discs) stand at least 16 mm apart; their centres are read within 1.5 mm


def _without_gaps(found: list[Pawn]) -> list[Pawn]:
    """The pawns but readings that lie within GAP_MM of two others: a gap between pawns (the
    source's white between two or three pawns on it, bright inside their dark flanks, reads as a
    dome), where no pawn fits without overlapping both. The reading whose two nearest are nearest
    goes first, then the others are asked again (a pawn beside a gap is no gap once it is gone)."""
    found = list(found)
    while len(found) >= 3:
        worst, worst_sum = None, math.inf
        for i, p in enumerate(found):
            near = sorted(math.dist(p.centre, q.centre) for j, q in enumerate(found) if j != i)[:2]
            if near[1] < GAP_MM and sum(near) < worst_sum:
                worst, worst_sum = i, sum(near)
        if worst is None:
            break
        del found[worst]
    return found


def _mm_to_patch(centre, mm, angle_deg: float) -> tuple[float, float]:
    """The patch pixel (x, y) of a table point: `_patch_to_mm`'s inverse."""
    a = math.radians(angle_deg)
    dx, dy = mm[0] - centre[0], mm[1] - centre[1]
    local = np.array([dx * math.cos(a) + dy * math.sin(a), -dx * math.sin(a) + dy * math.cos(a)])
    px, py = (local + PATCH_MM / 2) * READ_PX_PER_MM - 0.5
    return float(px), float(py)


def _patch_to_mm(centre, px: float, py: float, angle_deg: float) -> tuple[float, float]:
    # (In Python floats: the same double arithmetic as numpy's, without an array for two numbers.)
    lx, ly = (float(px) + 0.5) / READ_PX_PER_MM - PATCH_MM / 2, (float(py) + 0.5) / READ_PX_PER_MM - PATCH_MM / 2
    a = math.radians(angle_deg)
    return (float(centre[0] + lx * math.cos(a) - ly * math.sin(a)),
            float(centre[1] + lx * math.sin(a) + ly * math.cos(a)))


# srgb_to_linear as a table for cv2.LUT: the same values, several times faster on a whole patch.
_LINEAR_LUT = srgb_to_linear(np.arange(256, dtype=np.uint8)).reshape(1, 256)
_LUM_WEIGHTS = (0.0722, 0.7152, 0.2126)  # B, G, R
# ... and each channel's share of the luminance (its weight times its linear value, in float32 as the
# sum below takes them), one table per channel: the luminance is then a lookup and two additions.
_LUMINANCE_LUT = np.stack([np.float32(w) * _LINEAR_LUT[0] for w in _LUM_WEIGHTS], axis=-1).reshape(1, 256, 3)
_CHANNEL_LUTS = tuple(np.ascontiguousarray(_LUMINANCE_LUT[..., c]) for c in range(3))  # (1, 256) each


def _luminance(bgr: np.ndarray) -> np.ndarray:
    """Linear luminance of a BGR image or a stack of them (..., H, W, 3), float32."""
    if bgr.dtype == np.uint8 and bgr.size:
        # (The very values of the weighted sum below - each product rounded to float32, added blue,
        # green, red - for all 256^3 colours: half the time on a patch.) Each channel plane is looked
        # up in its own table and the planes added in place: the same values in the same order as
        # one three-channel lookup whose interleaved channels are added, at half its time (a 184 px
        # patch 118 -> 66 us: strided additions cost more than the split).
        # (A lone pixel (3,) is one 1 x 1 image: cv2 reads a (1, 3) array as one channel.)
        planes = cv2.split(bgr.reshape((-1,) + bgr.shape[-2:]) if bgr.ndim > 1 else bgr.reshape(1, 1, 3))
        lum = cv2.LUT(planes[0], _CHANNEL_LUTS[0])
        lum += cv2.LUT(planes[1], _CHANNEL_LUTS[1])
        lum += cv2.LUT(planes[2], _CHANNEL_LUTS[2])
        return lum.reshape(bgr.shape[:-1])
    lin = srgb_to_linear(bgr)
    return (_LUM_WEIGHTS[0] * lin[..., 0] + _LUM_WEIGHTS[1] * lin[..., 1] + _LUM_WEIGHTS[2] * lin[..., 2]).astype(np.float32)


STACK_PAD = 32  # px: farther than any ring read here reaches past a candidate inside its patch


@dataclass(frozen=True)
class _Stack:
    """The tiles' patches stacked, each padded by STACK_PAD px with its edge pixels repeated (what a
    read clamped to the patch sees): the rings round the candidates of every patch are read in one
    gather and checked in one numpy pass, not patch by patch."""

    bgr: np.ndarray  # (tiles, H + 2 pad, W + 2 pad, 3) uint8
    lum: np.ndarray  # (tiles, H + 2 pad, W + 2 pad) linear luminance, float32
    shape: tuple[int, int]  # one patch's own (H, W)


def _stack(patches) -> _Stack:
    p = STACK_PAD
    # The luminance of the patches only, then padded: the same values, half the pixels converted.
    # Each padded patch is written straight into the stack (no copy of them all stacked again).
    n, (h, w) = len(patches), patches[0].shape[:2]
    # copyMakeBorder writes into `dst` only when the patch is uint8 of the first one's size (else it
    # quietly makes a new array and leaves the stack's slot unset): say so rather than read garbage.
    if any(q.dtype != np.uint8 or q.shape[:2] != (h, w) for q in patches):
        raise ValueError("pawn patches must be uint8 BGR of one size")
    bgr = np.empty((n, h + 2 * p, w + 2 * p, 3), np.uint8)
    lum = np.empty((n, h + 2 * p, w + 2 * p), np.float32)
    for i, q in enumerate(patches):
        cv2.copyMakeBorder(np.ascontiguousarray(q), p, p, p, p, cv2.BORDER_REPLICATE, dst=bgr[i])
        cv2.copyMakeBorder(_luminance(q), p, p, p, p, cv2.BORDER_REPLICATE, dst=lum[i])
    return _Stack(bgr, lum, (h, w))


def _peaks(lum: np.ndarray, border: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """One patch's candidate points (x, y arrays): peaks of the dome score and of the dark-disc score.
    `border`: px of the patch's edge replicated round it in `lum` already (`_Stack.lum`'s STACK_PAD)."""
    ppm = READ_PX_PER_MM
    # Round kernels (a dome is round; square boxes lean its peak off its centre). A black pawn has
    # no bright top to speak of: it is a dark disc (`disc`) in brighter surroundings (`around`).
    # Peaks are kept only `margin` inside the patch (its rim must be in it): they are looked for
    # there alone, the means, the scores and their dilation on that window and the dilation
    # kernel's reach round it (the same maxima).
    k = max(3, int(round(PEAK_MM * ppm)) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    margin = int(math.ceil(RIM_RADII_MM[1] * ppm)) + 1
    r = k // 2
    top, rim = _ring_means(lum, ((0.0, TOP_MM / 2), RIM_RADII_MM), ppm, margin - r, border)
    score = _dome_score(top, rim)
    # Peaks a few mm apart are all checked; only then does a checked pawn hide its neighbours (a
    # print feature next to a pawn can outscore it without being one).
    dark_disc = _dark_disc_map(lum, border, margin - r)
    ys, xs = zip(*(_local_maxima(sc, kernel, r) for sc in (score, dark_disc)))
    return np.concatenate(xs) + margin, np.concatenate(ys) + margin


DARK_DISC_PX_PER_MM = READ_PX_PER_MM / 2  # the dark-disc score's rings are read at half the patch's scale


def _dark_disc_map(lum: np.ndarray, border: int, inset: int) -> np.ndarray:
    """The dark-disc score of every pixel `inset` px or more inside the patch (as `_ring_means`'
    window). A black pawn's disc (4.8 mm) and its surroundings (8.8-11.2 mm out) are wide and smooth:
    their means are read on the patch halved (2x2 means, DARK_DISC_PX_PER_MM: a transform a quarter
    the dome's size) and the score brought back to the patch's pixels bilinearly, so its peaks lie
    where the full-scale score's do, within a pixel or so (the refinement then looks round them)."""
    h, w = lum.shape
    half = cv2.resize(lum, (w // 2, h // 2), interpolation=cv2.INTER_AREA)  # (border and patch are even)
    half_inset = inset // 2 - 1  # a half pixel more than the window on each side, for the interpolation
    disc, around = _ring_means(half, ((0.0, 0.3 * PAWN_MM), (0.55 * PAWN_MM, 0.7 * PAWN_MM)),
                               DARK_DISC_PX_PER_MM, half_inset, border // 2)
    dark = _dark_disc_score(disc, around)
    full = cv2.resize(dark, (2 * dark.shape[1], 2 * dark.shape[0]), interpolation=cv2.INTER_LINEAR)
    cut = inset - 2 * half_inset  # the window's first pixel in the upsampled map
    size = (h - 2 * border - 2 * inset, w - 2 * border - 2 * inset)
    return full[cut:cut + size[0], cut:cut + size[1]]


def _local_maxima(score: np.ndarray, kernel: np.ndarray, r: int) -> tuple[np.ndarray, np.ndarray]:
    """(y, x) of score[r:-r, r:-r]'s points over MIN_SCORE that are the greatest of their `kernel`
    (odd, 2r + 1 wide) neighbourhood in `score` - as np.flatnonzero((inner >= cv2.dilate(score,
    kernel)[r:-r, r:-r]) & (inner > MIN_SCORE)) gives them, in row order. The dilation is taken only
    over the box of the points over MIN_SCORE and its reach: no other point can be one, and a point in
    the box sees the very neighbourhood it sees in the whole map (a dark disc's score is often over
    it nowhere, or in a small part of the patch)."""
    inner = score[r:-r, r:-r]
    over = inner > MIN_SCORE
    bx, by, bw, bh = cv2.boundingRect(over.view(np.uint8))
    if bw == 0:
        return np.zeros(0, np.intp), np.zeros(0, np.intp)
    box = (slice(by, by + bh), slice(bx, bx + bw))
    grown = cv2.dilate(score[by:by + bh + 2 * r, bx:bx + bw + 2 * r], kernel)[r:-r, r:-r]
    # (np.nonzero of a 2-D mask costs ten times np.flatnonzero's row-major indices split by the width:
    # the same points in the same order.)
    y, x = np.divmod(np.flatnonzero((inner[box] >= grown) & over[box]), bw)
    return y + by, x + bx


def _dome_score(top: np.ndarray, rim: np.ndarray) -> np.ndarray:
    """The dome score (top - rim) / max(top, 1e-3) of the ring means (float32). OpenCV's float
    subtraction, maximum and division give numpy's very values (IEEE; the bound 1e-3 as float32) at
    about half its time on these strided windows of the transforms."""
    return cv2.divide(cv2.subtract(top, rim), cv2.max(top, 1e-3))


def _dark_disc_score(disc: np.ndarray, around: np.ndarray) -> np.ndarray:
    """The dark-disc score (around - disc) / max(around, 1e-3) - 0.5 of the ring means (float32), as
    `_dome_score` works it out."""
    return cv2.subtract(_dome_score(around, disc), 0.5)


def _candidates(stack: _Stack, white: np.ndarray | None = None, palette: np.ndarray | None = None,
                peaks: list | None = None, tiles: np.ndarray | None = None) -> list[list[tuple[float, int, int, bool]]]:
    """Per patch: its checked domes (quality, x, y, dark only), in the order they were found.
    `white`: the white pawn's sRGB BGR, if the palette has one; `peaks`: each patch's `_peaks`,
    if they were taken already; `tiles`: each patch's tile colour (sRGB BGR), if known."""
    ppm = READ_PX_PER_MM
    if peaks is None:
        peaks = [_peaks(stack.lum[t], STACK_PAD) for t in range(len(stack.lum))]
    k = np.concatenate([np.full(len(xs), t, np.intp) for t, (xs, _) in enumerate(peaks)])
    x, y = np.concatenate([xs for xs, _ in peaks]), np.concatenate([ys for _, ys in peaks])
    checked: list[list[tuple[float, int, int, bool]]] = [[] for _ in peaks]
    if len(k):
        # Most peaks are print (ray ends, path points, the source's ring): a rim far from dark all
        # round, and a top far from black, does not become a dome half a millimetre away.
        dark, top = _near_dome_measures(stack.lum, k, x, y)
        near = _near_dome_from(dark, top)
        k, x, y, dark, top = k[near], x[near], y[near], dark[near], top[near]
    if not len(k):
        return checked
    # A peak of the box score leans towards the lamp's side of a dome: each is checked over a
    # small neighbourhood and moved to where the dome looks clearest - first within half a
    # millimetre, then (only the peaks not settled so) out to REFINE_MM.
    steps = np.arange(-REFINE_MM, REFINE_MM + 1e-9, REFINE_STEP_MM)
    ox, oy = (g.ravel() for g in np.meshgrid(steps, steps))
    inner = (np.abs(ox) <= 0.5) & (np.abs(oy) <= 0.5)
    found = _refined(stack, k, x, y, ox[inner] * ppm, oy[inner] * ppm, white, palette, tiles)
    settled = {i for i, _ in found}
    # Print that passed the loose look above rarely has a rim dark all round: only such peaks
    # (and near-black ones) are worth the wider look - or all round but in one direction when the
    # top is clipped: a white pawn's on a source's white ring leans its peak off its dome to where
    # the ring lights one direction of the rim (tuning seed 4620).
    rest = np.array([i for i in range(len(k)) if i not in settled], np.intp)
    if len(rest):
        rest = rest[_near_dome_from(dark[rest], top[rest], 0, CLIPPED_SLACK_DIRECTIONS)]  # (measured above)
    outer = ~inner & (np.abs(ox) % 1.0 < 1e-6) & (np.abs(oy) % 1.0 < 1e-6)  # whole millimetres: half the points
    if len(rest) and outer.any():
        found += [(int(rest[i]), c) for i, c in _refined(stack, k[rest], x[rest], y[rest], ox[outer] * ppm,
                                                           oy[outer] * ppm, white, palette, tiles)]
    for i, c in found:
        checked[k[i]].append(c)
    return checked


def _refined(stack: _Stack, k: np.ndarray, x: np.ndarray, y: np.ndarray, ox: np.ndarray,
             oy: np.ndarray, white: np.ndarray | None = None, palette: np.ndarray | None = None,
             tiles: np.ndarray | None = None) -> list[tuple[int, tuple[float, int, int, bool]]]:
    """Per peak (patch k, x, y) that has one: (its index, (quality, x, y, dark only)) of its clearest
    dome among the offsets (patch pixels) whose rim is its top in shade. Half a millimetre off a
    small pawn's centre the rim ring already takes in the tile around it, so the clearest alone may
    fail: every domed point is checked at once (one colour fit), then each peak takes its best."""
    pk = np.repeat(k, len(ox))
    px = (x[:, None] + ox[None, :]).ravel()
    py = (y[:, None] + oy[None, :]).ravel()
    ix, iy = np.rint(px).astype(int), np.rint(py).astype(int)  # (the whole pixels `_spokes` reads at)
    quality, needs_dark, needs_lit, clear_black, half_round = _dome(stack.lum, pk, ix, iy)
    quality, needs_dark = quality.reshape(len(x), -1), needs_dark.reshape(len(x), -1)
    domed = np.flatnonzero(np.isfinite(quality.ravel()))
    rim_ok = np.zeros(quality.size, bool)
    # Each domed point's top and rim colour, read once (one gather, one sort) for all that ask them.
    colours = _ring_colours(stack.bgr, pk[domed], ix[domed], iy[domed], (_TOP_RING, _RIM_RING))
    top_of = np.zeros((quality.size, 3), np.float32)
    top_of[domed] = colours[:, 0]
    rim_ok[domed] = _same_colour_rims(stack.bgr, pk[domed], ix[domed], iy[domed], palette, colours)
    # A black pawn whose rim takes in a lit tile or a source's ring (`_black_flank`): asked only of
    # peaks with no offset read yet (the others' readings stay as they were, and it costs less).
    unread = np.repeat(~rim_ok.reshape(quality.shape).any(axis=1), quality.shape[1])
    black = domed[unread[domed] & ~needs_dark.ravel()[domed] & clear_black[domed]]
    if len(black):
        rim_ok[black] = _black_flank(stack.bgr, pk[black], ix[black], iy[black], top_of[black])
    # A white pawn whose rim takes in a coloured tile's blur (`_white_flank`): likewise.
    pale = domed[unread[domed] & ~needs_dark.ravel()[domed] & ~rim_ok[domed]]
    if len(pale) and white is not None:
        rim_ok[pale] = _white_flank(stack, pk[pale], ix[pale], iy[pale], top_of[pale], white)
    lit = np.flatnonzero(rim_ok & needs_lit)  # (domed points all: rim_ok is set of those alone)
    if len(lit):
        rim_ok[lit] = _lit_or_clear_white(stack.lum, pk[lit], ix[lit], iy[lit], top_of[lit], white)
    # Round only where its brightness falls to half (`_half_round`): it must stand on its tile as a
    # pawn does (fingertips beside a tile were read so, with the tile a quarter of their ground).
    # Asked only of a peak's best offset, until its best is no such dome or stands on its tile:
    # the same readings as asking every offset (an offset not asked is no peak's reading, and the
    # dark bodies it keeps out are kept out by the best), at a fraction of the points.
    if tiles is None:  # (no tile to stand on is known: a dome round only so is not a pawn)
        rim_ok &= ~half_round
    pending = rim_ok & half_round
    while True:
        rows, best, good = _best_offsets(quality, needs_dark, rim_ok)
        ask = rows * quality.shape[1] + best
        ask = ask[pending[ask]]
        if not len(ask):
            break
        rim_ok[ask] = _ground_shares(stack.bgr, pk[ask], ix[ask], iy[ask], tiles) >= HALF_ROUND_GROUND
        pending[ask] = False
    # (Each reading's numbers taken for all peaks at once and made Python numbers by tolist: the same
    # values - np.rint rounds halves to even as round() does - without numpy's cost per element read.)
    at = rows * quality.shape[1] + best
    return [(i, (q, x_, y_, d)) for i, q, x_, y_, d in zip(
        rows.tolist(), good[rows, best].tolist(), np.rint(px[at]).astype(np.intp).tolist(),
        np.rint(py[at]).astype(np.intp).tolist(), needs_dark[rows, best].tolist())]


def _best_offsets(quality: np.ndarray, needs_dark: np.ndarray, rim_ok: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`_refined`'s choice: the peaks (rows of quality, (peaks, offsets)) with a reading, the offset
    each reads at (its clearest among those whose rim is fine, `rim_ok` flat), and the qualities."""
    good = np.where(rim_ok.reshape(quality.shape), quality, -np.inf)
    # The dark-body reading is for a dark pawn no dome shows: where a dome shows at some offset,
    # that is the reading, however the two scores compare (else a brown pawn's dark body, refused
    # as no dark colour, hides its dome).
    dome = (np.isfinite(good) & ~needs_dark).any(axis=1)
    good = np.where(dome[:, None] & needs_dark, -np.inf, good)
    rows = np.flatnonzero(np.isfinite(good).any(axis=1))
    return rows, np.argmax(good[rows], axis=1), good


CLEAR_WHITE_FIT = 0.06  # a white top one direction short of round: the white pawn's own colour this closely...
CLEAR_WHITE_LUM = 0.5  # ... lit (linear luminance at least this)...
CLEAR_WHITE_RIM = 0.7  # ... and its rim under this share of its top in every direction


def _lit_or_clear_white(lum: np.ndarray, k: np.ndarray, x: np.ndarray, y: np.ndarray, tops: np.ndarray,
                        white: np.ndarray | None) -> np.ndarray:
    """Per point (its top's colour `tops`) one direction short of round: whether it is still a
    pawn - a lit colour's (`_lit_colour`), or a clear white pawn's (`white`: the palette's white
    pawn, if it has one). In a crowd on a source a pawn's neighbours shift where one direction of
    its rim is darkest, a white pawn's as a coloured one's (tuning seeds 5068, 5135, 5424, 5446:
    white pawns missed so). The print's white - a source's ring, a path point - is narrower than a
    pawn's top, so the tile's colour blurs into it, and its rim is bright where the ring goes on:
    tuning seeds 5000-5199, one short of round: white pawns fit white within 0.09, their rims under
    0.81 of their tops; of the print's white, two fit within 0.06, one of them 0.41 bright, the
    other with a rim at 0.71 of its top."""
    refs = np.array([PRINT_WHITE] + ([white] if white is not None else []), np.float32)
    res = fit_residuals(tops, refs)  # (one fit for both)
    bright = _luminance(tops)
    out = (bright >= INNER_RIM_MIN_LUM) & (res[:, 0] >= MAX_COLOUR_RESIDUAL)  # `_lit_colour`
    if white is not None:
        at = np.flatnonzero(~out & (res[:, 1] < CLEAR_WHITE_FIT) & (bright >= CLEAR_WHITE_LUM))
        if len(at):
            out[at] = _brightest_rim(lum, k[at], x[at], y[at]) < CLEAR_WHITE_RIM
    return out


def _print_brightness(stack: _Stack, tiles: np.ndarray, refs: np.ndarray, asked: np.ndarray | None = None
                      ) -> list[float | None]:
    """Per tile: how bright its own colour is in its patch (its surface 25-40 mm from the centre,
    between the rays, where at least 6 pixels show it): the source's inner disc, printed in that
    colour, is about as bright. None when a pawn colour explains the tile's colour too (the
    tile's print and a pawn of its colour cannot be told apart by colour). All tiles in one fit
    (not one call per tile: a small fit's cost is mostly its calls; readings as tile by tile,
    frames 4200-4229 and 5400-5429 compared). `asked` (bool per tile): those measured (the
    others None), if not all."""
    out: list[float | None] = [None] * len(tiles)
    own = ~(fit_residuals(tiles, refs) < MAX_COLOUR_RESIDUAL).any(axis=1)
    at = np.flatnonzero(own if asked is None else own & asked)
    if not len(at):
        return out
    c = np.full(len(at), (stack.shape[1] - 1) / 2.0)
    pix = _spokes(stack.bgr, at, c, c, TILE_SURFACE_RADII, READ_PX_PER_MM).reshape(len(at), -1, 3)
    lums = _spokes(stack.lum, at, c, c, TILE_SURFACE_RADII, READ_PX_PER_MM).reshape(len(at), -1)
    m = pix.shape[1]
    own = fit_residuals(pix.reshape(-1, 3).astype(np.float32), np.repeat(tiles[at], m, axis=0), w_max=0.0,
                        paired=True)[:, 0].reshape(len(at), m) < MAX_COLOUR_RESIDUAL
    for j, t in enumerate(at):
        if own[j].sum() >= 6:
            out[t] = float(_median(lums[j][own[j]][None])[0])  # (np.median's value)
    return out


def _pawns_in_patches(stack: _Stack, names, refs, tiles: np.ndarray | None = None,
                      caps: list[tuple[float, float]] | None = None
                      ) -> list[list[tuple[tuple[float, float], str | None]]]:
    """Per patch, its pawns: (patch pixel, colour name or None). `tiles`: each tile's sRGB BGR;
    `caps`: the cap's place in each patch (pixels), if there is a cap."""
    white = _white_index(refs)
    palette = np.asarray(refs, np.float32)
    peaks = [_peaks(stack.lum[t], STACK_PAD) for t in range(len(stack.lum))]
    checked = _candidates(stack, None if white is None else palette[white], palette, peaks, tiles)
    if caps is not None:
        for t, c in _beside_cap(stack, peaks, caps, checked):
            checked[t].append(c)  # (dark only: its colour must be a dark one, as a dark body's)
    flat = [c for cs in checked for c in cs]
    if not flat:
        return [[] for _ in checked]
    # What every checked dome needs, measured at once; the domes are then taken patch by patch.
    k = np.concatenate([np.full(len(cs), t, np.intp) for t, cs in enumerate(checked)])
    x, y = np.array([c[1] for c in flat], np.intp), np.array([c[2] for c in flat], np.intp)
    ground = None if tiles is None else _ground_shares(stack.bgr, k, x, y, tiles)
    beyond = _beyond_rim_fits(stack.bgr, k, x, y)
    if caps is not None:
        # Just past the rim of a pawn against the cap lies the cap, as black as a black pawn.
        beyond[_facing_cap(x, y, np.array([caps[t] for t in k], np.float32).reshape(-1, 2))] = np.inf
    goes_on = _goes_on(beyond)
    tops = _top_colours(stack.bgr, k, x, y)
    best, res, wash = _colour_fits(tops, refs)
    lin_refs = srgb_to_linear(np.asarray(refs, np.float32)).max(axis=1)
    # A lit coloured top's colour is not going on where the sources' white lies past its rim: that
    # is the print, and no finger (`_white_beyond`). Asked only of such tops that would be refused so.
    lit_best = (lin_refs[best] >= DARK_BODY_REF) & (best != (-1 if white is None else white))
    ask = np.flatnonzero(goes_on & lit_best & (res[np.arange(len(k)), best] < NAMED_RESIDUAL))
    if len(ask):
        own = beyond[ask].copy()
        own[_white_beyond(stack.bgr, k[ask], x[ask], y[ask])] = np.inf
        goes_on[ask] = _goes_on(own)
    # Only a white reading is asked whether its rim is as bright somewhere (it fits white best).
    rim_over_top = np.zeros(len(k), np.float32)
    if white is not None:
        ask = np.flatnonzero(best == white)
        if len(ask):
            rim_over_top[ask] = _brightest_rim(stack.lum, k[ask], x[ask], y[ask])
    # Each top under its own tile's colour (whether it is that tile's print is asked below).
    tile_res = None if tiles is None else fit_residuals(tops, tiles[k], paired=True)[:, 0]
    # A body dark against its bright surroundings may be any dark colour's: black, or brown (on a
    # source's white or the solar tile, a brown pawn's top is too dull for a dome; 4600-4842: three
    # missed so) - brown only when its top is clearly brown: a finger's shaded edge in a hand's
    # shadow is a dull brown too (fits 0.12 where those pawns fit 0.05 at most).
    black_refs, dark_refs = lin_refs < DARK_REF, lin_refs < DARK_BODY_REF
    # Only a black reading is asked whether it lies in a dark band (a top read black fits black best).
    strip = np.zeros(len(k), bool)
    ask = np.flatnonzero(black_refs[best])
    if len(ask):
        strip[ask] = _dark_strip(stack.bgr, k[ask], x[ask], y[ask])
    ppm = READ_PX_PER_MM
    # Each dome's reading on its own (its colour, or None where a rule refuses it), then per patch
    # the clearest of overlapping domes among those kept (a refused one hides no neighbour).
    kept: dict[int, str | None] = {}
    # The tile's colour as bright as the tile: its source's inner disc (a darker pawn of a like
    # hue - brown on orange - is a pawn). Asked only where the tile's colour explains the top
    # better than any pawn's (elsewhere it is no print however bright: `_named`).
    best_res = res[np.arange(len(k)), best]
    print_like = np.zeros(len(k), bool)
    if tiles is not None and (tile_res < best_res).any():
        maybe = tile_res < best_res
        asked = np.isin(np.arange(len(tiles)), k[maybe])
        own_lum = np.array([np.nan if v is None else v for v in _print_brightness(stack, tiles, refs, asked)],
                           np.float64)[k]  # (float64: the comparison is the same on numpy 1 and 2)
        with np.errstate(invalid="ignore"):
            print_like = maybe & (stack.lum[k, y + STACK_PAD, x + STACK_PAD] >= PRINT_LUM * own_lum)
    # ... unless it is a clipped pawn of a colour like its tile's (lime on yellow: `_pawn_flank`).
    pawn = np.zeros(len(k), bool)
    ask = np.flatnonzero(print_like & (best_res < NAMED_RESIDUAL))
    if len(ask):
        pawn[ask] = _pawn_flank(stack.bgr, k[ask], x[ask], y[ask], tops[ask], palette[best[ask]], tiles[k[ask]])
    first = 0
    for t, cs in enumerate(checked):
        index = range(first, first + len(cs))
        first += len(cs)
        tile = None if tiles is None else tiles[t]
        for i in index:  # (each on its own: the clearest of overlapping ones is chosen below)
            _, px, py, dark_only = flat[i]
            if caps is not None and math.hypot(px - caps[t][0], py - caps[t][1]) <= CAP_CLEAR_MM * ppm:
                continue  # the cap's top or edge (nor does it hide a pawn beside it)
            if tile is not None and ground[i] < MIN_GROUND:
                continue  # no tile round it: a fingertip, a knuckle
            colour = _named(int(best[i]), res[i], names, tile_res[i] if print_like[i] and not pawn[i] else None)
            if colour is None and tile is not None and tile_res[i] < MAX_COLOUR_RESIDUAL:
                continue  # no pawn's colour but its tile's: its print in shade (a source's inner disc)
            if dark_only and (colour is None or colour is _PRINT or not dark_refs[names.index(colour)]
                              or (not black_refs[names.index(colour)] and res[i, best[i]] > DARK_BODY_FIT)):
                continue
            if goes_on[i] and (white is None or colour != names[white]):
                continue  # its colour goes on past its rim: a finger (a white pawn stands on a source's white)
            # (These two ask the best fit when no colour was named: a top fitting white or black too
            # loosely to be named is no pawn of no colour where it would be refused as one.)
            seen = best[i] if colour is None else (None if colour is _PRINT else names.index(colour))
            if white is not None and seen == white and rim_over_top[i] >= RING_GOES_ON:
                continue  # a white top with a rim as bright in some direction: the source's ring going on
            if strip[i] and seen is not None and black_refs[seen]:
                continue  # a black reading inside a dark band longer than a pawn: a hand's shadow
            if colour is not _PRINT:
                kept[i] = colour
    # A reading whose colour spreads, unbroken, well past a pawn's rim is a finger (the white pawn
    # excepted: it stands on a source's white). Only a top whose colour shows somewhere just past
    # its rim (most pawns' does nowhere) is looked at so.
    ask = np.array([i for i, c in kept.items() if (white is None or c != names[white])
                    and beyond[i].min() < SPREAD_NEAR], np.intp)
    if len(ask):
        cap_at = None if caps is None else np.array([caps[t] for t in k[ask]], np.float32)
        for i in ask[_spreading(stack, k[ask], x[ask], y[ask], tops[ask], cap_at)]:
            del kept[i]
    # A pawn is named only where its colour shows for itself; where the name rests on a tint the lamp
    # or a neighbour could give another colour's pawn, it is a pawn of colour null (`_unsure`).
    named = np.array([i for i, c in kept.items() if c is not None], np.intp)
    if len(named):
        col = np.array([names.index(kept[i]) for i in named], np.intp)
        lit_refs = ~black_refs & (np.arange(len(names)) != (-1 if white is None else white))
        # White by the slack: the colour that fits the top better, if a lit one, is asked about instead.
        fits = np.argmin(res[named], axis=1)
        over_white = (col == white) & lit_refs[fits]
        asked = np.where(over_white, fits, col)
        dark_only = np.array([flat[i][3] for i in named], bool)
        # A tint of white is one only where the white pawn would explain the top too: a taught navy,
        # dark green or maroon (small channels) is mostly reflected white under ordinary gloss, but
        # fits white at 1.0 and worse (the warm white read brown, 6223, at 0.12).
        white_fits = np.zeros(len(named), bool) if white is None else res[named, white] < NAMED_RESIDUAL
        # A grey top is a white pawn in shade only against a neutral dark colour (black, tuned so).
        grey_black = black_refs & (palette.max(axis=1) - palette.min(axis=1) <= WHITE_SPREAD)
        for i in named[_unsure(stack.bgr, k[named], x[named], y[named], tops[named], palette[asked],
                               wash[named, asked], lit_refs[asked], grey_black[col], dark_only, over_white,
                               white_fits)]:
            kept[i] = None
    result = []
    first = 0
    for t, cs in enumerate(checked):
        index = range(first, first + len(cs))
        first += len(cs)
        out: list[tuple[tuple[float, float], str | None]] = []
        for i in sorted(index, key=lambda i: flat[i][0], reverse=True):
            if i not in kept:
                continue
            _, px, py, _ = flat[i]
            if any(math.hypot(px - ox_, py - oy_) < APART_MM * ppm for (ox_, oy_), _ in out):
                continue  # the clearer of two overlapping domes is the pawn
            out.append(((float(px), float(py)), kept[i]))
        result.append(out)
    return result


BESIDE_CAP_MM = (CAP_CLEAR_MM + 2.0, CAP_MM / 2 + PAWN_MM / 2 + 8.0)  # a pawn against the cap stands 25 mm from it
CAP_FACING_DEG = 45.0  # directions this close to the cap's bearing
BODY_LOOSE = 1.5  # a peak's body (a millimetre off its middle) this much brighter, the contrast this much less


def _beside_cap(stack: _Stack, peaks, caps, checked) -> list[tuple[int, tuple[float, int, int, bool]]]:
    """Dark pawns against the cap: (patch, (quality, x, y, True)) for peaks BESIDE_CAP_MM from the
    cap with nothing checked near them, where a dark body (2.5-6 mm out) has surroundings
    BLACK_SURROUND times brighter 9-10 mm out in every direction but those facing the cap (the
    cap is as black: it darkens a third of the ring), brightness read as the brightest channel (a
    black pawn on the blue or purple tile: dark blue is bright blue, little luminance). The peaks
    here are all of the patch's (`_peaks`), not only those `_candidates` found near a dome: against
    the cap a black pawn's rim is not dark all round (tuning seeds 5244, 5563 missed so)."""
    if not peaks:
        return []
    ppm = READ_PX_PER_MM
    k = np.concatenate([np.full(len(xs), t, np.intp) for t, (xs, _) in enumerate(peaks)])
    x, y = np.concatenate([xs for xs, _ in peaks]), np.concatenate([ys for _, ys in peaks])
    cap = np.asarray(caps, np.float32)[k].reshape(-1, 2)
    d = np.hypot(x - cap[:, 0], y - cap[:, 1]) / ppm
    at = np.flatnonzero((d >= BESIDE_CAP_MM[0]) & (d <= BESIDE_CAP_MM[1]))
    seen = np.array([(t, c[1], c[2]) for t, cs in enumerate(checked) for c in cs], np.float64).reshape(-1, 3)
    if len(at) and len(seen):
        near = ((k[at, None] == seen[None, :, 0])
                & (np.hypot(x[at, None] - seen[None, :, 1], y[at, None] - seen[None, :, 2]) <= APART_MM / 2 * ppm))
        at = at[~near.any(axis=1)]
    if len(at):
        # Most peaks there are print or a tile, without a dark body in much brighter surroundings:
        # only the others are looked at closely (loosely asked at the peak alone).
        value = _value(_spokes(stack.bgr, k[at], x[at], y[at], _BODY_FAR_RADII, ppm))
        body = value[:, :_N_BODY].reshape(len(at), -1).mean(axis=1)
        far = _extreme_over_radii(value[:, _N_BODY:], np.maximum)
        bright = (far >= BLACK_SURROUND / BODY_LOOSE * body[:, None]) | _facing_cap(x[at], y[at], cap[at])
        at = at[(body < BODY_LOOSE * DARK_BODY) & bright.all(axis=1)]
    if not len(at):
        return []
    steps = np.arange(-REFINE_MM, REFINE_MM + 1e-9, REFINE_STEP_MM)
    ox, oy = (np.rint(g.ravel() * ppm).astype(np.intp) for g in np.meshgrid(steps, steps))
    px, py = (x[at][:, None] + ox[None]).ravel(), (y[at][:, None] + oy[None]).ravel()
    pk, pcap = np.repeat(k[at], len(ox)), np.repeat(cap[at], len(ox), axis=0)
    value = _value(_spokes(stack.bgr, pk, px, py, tuple(_RADII), ppm))  # (points, radii, directions)
    n = len(value)
    body = value[:, _R_BODY].reshape(n, -1).mean(axis=1)
    top = value[:, _R_TOP].reshape(n, -1).mean(axis=1)
    far = _extreme_over_radii(value[:, _R_FAR], np.maximum)
    bright = (far >= BLACK_SURROUND * body[:, None]) | _facing_cap(px, py, pcap)
    ok = (body < DARK_BODY) & (top <= DARK_TOP_OVER_BODY * body) & bright.all(axis=1)
    # (Scored as a dark body is in `_dome_kind`, so that overlapping readings compare alike.)
    quality = np.where(ok, bright.sum(axis=1) + np.minimum(far.mean(axis=1) / np.maximum(body, 1e-6), 10.0) / 2.5,
                       -np.inf).reshape(len(at), -1)
    # Each peak's reading is where its body is darkest (its middle: the brightness round it leans
    # away from the cap).
    body = np.where(np.isfinite(quality), body.reshape(quality.shape), np.inf)
    out = []
    for i in np.flatnonzero(np.isfinite(quality).any(axis=1)):
        j = i * len(ox) + int(np.argmin(body[i]))
        out.append((int(pk[j]), (float(quality.ravel()[j]), int(px[j]), int(py[j]), True)))
    return out


def _facing_cap(x: np.ndarray, y: np.ndarray, caps: np.ndarray) -> np.ndarray:
    """(points, directions): the directions within CAP_FACING_DEG of the cap's bearing from each
    point (patch px) no farther than BESIDE_CAP_MM from it (`caps`: its place, one row per point
    or one for all)."""
    dx, dy = caps[:, 0] - x, caps[:, 1] - y
    bearing = np.arctan2(dy, dx)[:, None]
    off = np.abs((_ANGLES[None, :] - bearing + np.pi) % (2 * np.pi) - np.pi)
    near = np.hypot(dx, dy) <= BESIDE_CAP_MM[1] * READ_PX_PER_MM
    return (off <= math.radians(CAP_FACING_DEG)) & near[:, None]


SPREAD_MM = 13.0  # a pawn's colour (its top, and its flank in shade) ends at its rim, 8 mm out (blurred: 10)...
SPREAD_FIT = 0.06  # ... each pixel its top's colour within this fit residual (any shade, no white)...
SPREAD_STEP_PX = 2  # ... looked at on a 1 mm grid (a finger joins its tip some 15 mm wide)
# ... where the colour just past the rim (`_beyond_rim_fits`) fits the top this well somewhere (tuning seeds 4200-4203
# and 17 with fingers: every reading that spreads within 0.14 there, nine in ten of the rest 0.2-0.93)
SPREAD_NEAR = 0.2
CAP_SPREAD_MM = CAP_MM / 2 + 2.0  # the cap and its blurred edge: no finger


def _spreading(stack: _Stack, k: np.ndarray, x: np.ndarray, y: np.ndarray, tops: np.ndarray,
               caps: np.ndarray | None = None) -> np.ndarray:
    """Per point of the padded stack (its top's colour `tops`, sRGB BGR): whether the pixels of
    that colour round it, joined to it, reach the last millimetre before SPREAD_MM within its own
    patch. A pawn's colour ends at its rim (no two pawns share one, none has a tile's); a
    fingertip's goes on along its finger, whichever way that lies, and the cap's black past a
    reading on its edge (tuning seeds 5000-5399: the colour of 1134 true pawns, white left out,
    reaches 10.2 mm at most; of the 16 readings invented, 12 - fingertips, the cap's edge - reach
    17-57 mm)."""
    offsets, far = _spread_grid()
    out = np.zeros(len(k), bool)
    # A path out from the middle crosses that last millimetre: where none of it is the top's
    # colour (most pawns), the colour cannot spread, and the whole disc is not looked at.
    maybe = _same_as_top(stack, k, x, y, tops, offsets[far]).any(axis=1)
    at = np.flatnonzero(maybe)
    if not len(at):
        return out
    same = _same_as_top(stack, k[at], x[at], y[at], tops[at], offsets)
    if caps is not None:
        # The cap is as black as a black pawn against it, and joined to it: it is no finger.
        cx, cy = caps[at, 0, None] - x[at, None], caps[at, 1, None] - y[at, None]
        same &= np.hypot(offsets[None, :, 1] - cx, offsets[None, :, 0] - cy) > CAP_SPREAD_MM * READ_PX_PER_MM
    side = 2 * int(math.ceil(SPREAD_MM * READ_PX_PER_MM / SPREAD_STEP_PX)) + 1
    cells = (offsets // SPREAD_STEP_PX) + side // 2  # (grid points, 2: y, x) in a side x side square
    c = side // 2
    for j, row in zip(at, same):
        grid = np.zeros((side, side), np.uint8)
        grid[cells[:, 0], cells[:, 1]] = row
        _, labels = cv2.connectedComponents(grid, connectivity=4)
        centre = labels[c - 1:c + 2, c - 1:c + 2].ravel()
        centre = centre[centre > 0]
        if len(centre):
            out[j] = bool((labels[cells[far, 0], cells[far, 1]] == np.bincount(centre).argmax()).any())
    return out


def _same_as_top(stack: _Stack, k: np.ndarray, x: np.ndarray, y: np.ndarray, tops: np.ndarray,
                 offsets: np.ndarray) -> np.ndarray:
    """(points, offsets): whether the pixel at each (dy, dx) offset from each point is its top's
    colour in any shade (SPREAD_FIT) and lies in the point's own patch (the padding repeats the
    patch's edge, which is not the frame)."""
    n, h, w = stack.bgr.shape[:3]
    py = y[:, None] + STACK_PAD + offsets[None, :, 0]
    px = x[:, None] + STACK_PAD + offsets[None, :, 1]
    own = (px >= STACK_PAD) & (px < w - STACK_PAD) & (py >= STACK_PAD) & (py < h - STACK_PAD)
    index = k[:, None] * (h * w) + np.clip(py, 0, h - 1) * w + np.clip(px, 0, w - 1)
    pix = np.take(stack.bgr.reshape(-1, 3), index.ravel(), axis=0).astype(np.float32)
    res = fit_residuals(pix, np.repeat(tops, len(offsets), axis=0), k_range=(0.3, 1.5), w_max=0.0, paired=True)
    return (res[:, 0].reshape(index.shape) < SPREAD_FIT) & own


@lru_cache(maxsize=1)
def _spread_grid() -> tuple[np.ndarray, np.ndarray]:
    """`_spreading`'s grid: pixel offsets (dy, dx) every SPREAD_STEP_PX within SPREAD_MM of a point,
    and which of them lie in the last millimetre (where a finger's colour reaches)."""
    step, r = SPREAD_STEP_PX, int(math.ceil(SPREAD_MM * READ_PX_PER_MM / SPREAD_STEP_PX))
    oy, ox = (g.ravel() * step for g in np.mgrid[-r:r + 1, -r:r + 1])
    dist = np.hypot(ox, oy) / READ_PX_PER_MM
    inside = dist <= SPREAD_MM
    offsets = np.stack([oy[inside], ox[inside]], axis=1)
    far = np.flatnonzero(dist[inside] > SPREAD_MM - 1.0)
    for a in (offsets, far):
        a.setflags(write=False)
    return offsets, far


def _beyond_rim_fits(bgr: np.ndarray, k: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per point of the padded stack and direction (points, 12): how well the colour just beyond a
    pawn's rim (CONTINUE_RADII) is its top's in some shade (fit residual, no white added)."""
    spokes = _spokes(bgr, k, x, y, (0.0, 1.0, 2.0) + CONTINUE_RADII, READ_PX_PER_MM)  # (points, radii, dirs, 3)
    n = len(spokes)
    top = _median(spokes[:, :3].reshape(n, -1, 3).astype(np.float32))  # (np.median's values, less overhead)
    beyond = _median(spokes[:, 3:].astype(np.float32))  # (points, directions, 3)
    # Each point's twelve directions against its own top.
    return fit_residuals(beyond.reshape(-1, 3), np.repeat(top, beyond.shape[1], axis=0), k_range=(0.3, 1.5),
                         w_max=0.0, paired=True).reshape(n, -1)


def _white_beyond(bgr: np.ndarray, k: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per point of the padded stack and direction (points, 12): whether the colour just beyond a
    pawn's rim (CONTINUE_RADII, as `_beyond_rim_fits` reads it) is the sources' white in some shade
    (PRINT_WHITE within SAME_COLOUR, no white added). A lit pawn in glare has its top clipped to
    near white (a pink one reads (255, 214, 255)), which the source's white ring past its rim then
    fits as if its colour went on (tuning seed 6447: 0.059 in two neighbouring directions, against
    SAME_COLOUR 0.06). A finger going on is skin, not the print's white."""
    beyond = _median(_spokes(bgr, k, x, y, CONTINUE_RADII, READ_PX_PER_MM).astype(np.float32))  # (points, dirs, 3)
    res = fit_residuals(beyond.reshape(-1, 3), np.array([PRINT_WHITE], np.float32), k_range=(0.3, 1.5), w_max=0.0)
    return (res[:, 0] < SAME_COLOUR).reshape(len(k), -1)


def _goes_on(beyond: np.ndarray) -> np.ndarray:
    """Per point, from `_beyond_rim_fits`: whether the top's colour goes on beyond a pawn's rim
    (CONTINUE_RADII) in two neighbouring directions: a finger does, a pawn does not (no two pawns
    share a colour and none has a tile's; the caller lets a white pawn be, which stands on a
    source's white). A lit finger's pale top is as near the print's white as a pawn's: it is asked
    too (tuning seeds 5000-5199: fingertips read brown within 0.03-0.10 of their finger beyond, two
    of them under SAME_COLOUR; a pink pawn on the purple tile within 0.089 of it, so no looser)."""
    same = beyond < SAME_COLOUR
    return (same & np.roll(same, 1, axis=1)).any(axis=1)


RING_GOES_ON = 1.0  # a white top's rim this bright (over the top) in any direction: no dome


def _brightest_rim(lum: np.ndarray, k: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per point of the padded luminance stack: its rim's brightest direction over its top (as
    `_dome` reads them). A dome's top is its brightest; a stretch of a source's white ring may pass
    `_dome` with its rim dark in 10 of 12 directions, but where the ring goes on, a direction or two
    is as bright as the point or brighter (tuning seeds 5000-5149: 1.01-1.13 on four such; at most
    0.97 on 145 white pawns)."""
    prof = _spokes(lum, k, x, y, tuple(_RADII[:_R_RIM.stop]), READ_PX_PER_MM)
    top = prof[:, _R_TOP].reshape(len(k), -1).mean(axis=1)
    return _mean_over_radii(prof[:, _R_RIM]).max(axis=1) / np.maximum(top, 1e-6)


STRIP_RADII = (10.0, 10.5, 11.0, 11.5, 12.0)  # past a pawn's rim (8 mm) and its blur...
STRIP_DARK = 1.5  # ... as dark as its top (this many times its brightness at most) in two opposite directions


def _dark_strip(bgr: np.ndarray, k: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per point of the padded stack: whether its darkness goes on past a pawn's rim in two
    opposite directions - a dark band through it, longer than a pawn is wide (the shadow a hand
    casts along its edge, tuning seed 5011), where a black pawn is a dark disc with brighter ground
    beyond it all round but where its neighbours or the cap stand (on one side). Brightness is the
    brightest channel (linear): a hand's shadow is dark in all three, the blue tile is bright blue
    with little luminance (5759: a black pawn against the cap on it was taken for a shadow)."""
    top = _value(_spokes(bgr, k, x, y, tuple(_RADII[_R_TOP]), READ_PX_PER_MM)).reshape(len(k), -1).mean(axis=1)
    beyond = _mean_over_radii(_value(_spokes(bgr, k, x, y, STRIP_RADII, READ_PX_PER_MM)))  # (points, directions)
    dark = beyond <= STRIP_DARK * np.maximum(top, 1e-3)[:, None]
    return (dark & np.roll(dark, len(_ANGLES) // 2, axis=1)).any(axis=1)


def _value(bgr: np.ndarray) -> np.ndarray:
    """The brightest channel of sRGB BGR uint8 pixels (..., 3), in linear light (float32)."""
    if bgr.size == 0:  # (cv2.LUT gives None for no pixels)
        return np.zeros(bgr.shape[:-1], np.float32)
    lin = cv2.LUT(bgr.reshape(-1, 1, 3), _LINEAR_LUT).reshape(bgr.shape)
    return np.maximum(np.maximum(lin[..., 0], lin[..., 1]), lin[..., 2])




def _ground_shares(bgr: np.ndarray, k: np.ndarray, x: np.ndarray, y: np.ndarray, tiles: np.ndarray) -> np.ndarray:
    """Per point of the padded stack: the share of the ring just round a pawn (GROUND_RADII) that is
    its tile's print: the tile's colour (tiles[k]), its rays (that colour lightened) or its source's
    white. A pawn stands on a tile and leaves some of it in view however crowded (bench seeds below
    100000: 0.35 and up but one in 700); a hand's fingertip is skin all round (most under 0.2)."""
    n = len(k)
    ring = _spokes(bgr, k, x, y, GROUND_RADII, READ_PX_PER_MM).reshape(-1, 3)
    refs = np.concatenate([tiles, np.array([PRINT_WHITE], np.float32)])
    res = fit_residuals(ring.astype(np.float32), refs).reshape(n, -1, len(refs))
    own = np.minimum(res[np.arange(n), :, k], res[:, :, -1])  # (points, ring pixels): its tile or white
    return (own < MAX_COLOUR_RESIDUAL).mean(axis=1)


def _ring_means(lum: np.ndarray, rings: tuple[tuple[float, float], ...], ppm: float,
                inset: int = 0, border: int = 0) -> list[np.ndarray]:
    """Per ring (r0, r1 mm): the mean of `lum` over that annulus around every pixel `inset` px or
    more inside the image (the window lum[inset:-inset, inset:-inset]), as cv2.filter2D with
    BORDER_REPLICATE gives it.

    The kernels are big, so filter2D would go through the DFT anyway - once per kernel, each time
    transforming the patch and the kernel again. Here the patch is transformed once and the
    kernels' spectra are kept: a third of the cost, the same means to float32 rounding. Only the
    window and the kernels' reach round it are transformed (a patch's 184 px peak window fits a
    208 px transform, under half the work of a 240 px one). `border`: px of the image's edge
    replicated round it in `lum` already (the image is lum[border:-border, border:-border]): where
    the transform's reach stays within them, its input is read from there (the very values
    replicating the edge again would give, without the two copies)."""
    h, w = lum.shape[0] - 2 * border, lum.shape[1] - 2 * border
    pad = max(int(math.ceil(r1 * ppm)) for _, r1 in rings)
    wh, ww = h - 2 * inset, w - 2 * inset
    rows, cols = _dft_size(wh + 2 * pad), _dft_size(ww + 2 * pad)
    # The window and its reach, replicated past the image's edge and out to the transform's size:
    # what wraps round only reaches the padding.
    lo = inset - pad  # where the transform's first row (and column) lies in the image
    if lo < 0 and -lo <= border and rows + lo - h <= border and cols + lo - w <= border:
        padded = lum[border + lo:border + lo + rows, border + lo:border + lo + cols]  # (the whole image and its edge)
    else:
        own = lum[border:border + h, border:border + w]
        cut = np.ascontiguousarray(own[max(lo, 0):min(h, h - lo), max(lo, 0):min(w, w - lo)], np.float32)
        top, left = max(-lo, 0), max(-lo, 0)
        padded = cv2.copyMakeBorder(cut, top, rows - cut.shape[0] - top, left, cols - cut.shape[1] - left,
                                    cv2.BORDER_REPLICATE)
    spectrum = cv2.dft(padded)
    out = []
    for r0, r1 in rings:
        mean = cv2.dft(spectrum * _mean_gain(r0, r1, ppm, rows, cols), flags=cv2.DFT_INVERSE | cv2.DFT_REAL_OUTPUT)
        out.append(mean[pad:pad + wh, pad:pad + ww])
    return out


@lru_cache(maxsize=16)
def _dft_size(n: int) -> int:
    """A size of at least n that cv2.dft transforms fast: cv2.getOptimalDFTSize's (a product of 2, 3
    and 5), or a smaller multiple of 16 by an odd prime up to 13, which OpenCV transforms as fast or
    faster: the peaks' window needs 204 px, and 208 = 16 * 13 takes 15 % less time than 216 (a real
    transform and its inverse, 192 against 228 us; 210 = 2 * 3 * 5 * 7 no less than 216)."""
    best = cv2.getOptimalDFTSize(n)
    for m in range(n + (-n) % 16, best, 16):
        if m // 16 in (3, 5, 7, 11, 13):
            return m
    return best


@lru_cache(maxsize=16)
def _mean_gain(r0: float, r1: float, ppm: float, rows: int, cols: int) -> np.ndarray:
    """`_kernel_gain` over the transform's size: the inverse transform's scaling folded into the gain
    (DFT_SCALE is one more pass over every output, 7 of 105 us a 208 px inverse)."""
    gain = _kernel_gain(r0, r1, ppm, rows, cols) / np.float32(rows * cols)
    gain.setflags(write=False)  # shared between calls
    return gain


@lru_cache(maxsize=16)
def _kernel_gain(r0: float, r1: float, ppm: float, rows: int, cols: int) -> np.ndarray:
    """The annulus kernel's spectrum as a gain per element of a packed (CCS) spectrum: the kernel is
    symmetric, so its spectrum is real (its imaginary parts are rounding, ~5e-8), and multiplying a
    packed spectrum by it is scaling each element's real and imaginary part alike - one numpy
    product, a third of mulSpectrums' time. Where the packed layout holds an imaginary part, the
    gain is its element's real part: the pair's left neighbour in the inner columns, the one above
    in the first column (and the last, for an even width)."""
    spectrum = _kernel_spectrum(r0, r1, ppm, rows, cols)
    gain = spectrum.copy()
    inner_im = slice(2, cols - 1 if cols % 2 == 0 else cols, 2)  # Im Y(i, j) at 2j, beside Re Y(i, j) at 2j - 1
    gain[:, inner_im] = spectrum[:, slice(1, inner_im.stop - 1, 2)]
    edge = [0] + ([cols - 1] if cols % 2 == 0 else [])
    edge_im = slice(2, rows - 1 if rows % 2 == 0 else rows, 2)  # Im Y(i, 0) at 2i, below Re Y(i, 0) at 2i - 1
    gain[edge_im, edge] = spectrum[slice(1, edge_im.stop - 1, 2), edge]
    gain.setflags(write=False)  # shared between calls
    return gain


@lru_cache(maxsize=16)
def _kernel_spectrum(r0: float, r1: float, ppm: float, rows: int, cols: int) -> np.ndarray:
    """The DFT of the annulus kernel laid out centred on (0, 0) of a (rows, cols) plane (it is
    symmetric, so convolving with it is filter2D's correlation)."""
    k = _disc_kernel(r0, r1, ppm)
    n = k.shape[0] // 2
    plane = np.zeros((rows, cols), np.float32)
    plane[np.ix_(np.arange(-n, n + 1) % rows, np.arange(-n, n + 1) % cols)] = k
    spectrum = cv2.dft(plane)
    spectrum.setflags(write=False)  # shared between calls
    return spectrum


@lru_cache(maxsize=8)
def _disc_kernel(r0: float, r1: float, ppm: float) -> np.ndarray:
    """A normalised annulus (r0 < r <= r1 mm; a disc for r0 = 0) for cv2.filter2D."""
    n = int(math.ceil(r1 * ppm))
    yy, xx = np.mgrid[-n:n + 1, -n:n + 1] / ppm
    r = np.hypot(xx, yy)
    k = ((r <= r1) & (r > r0) if r0 > 0 else (r <= r1)).astype(np.float32)
    return k / k.sum()


_ANGLES = np.radians(np.arange(12) * 30.0 + 15.0)
_RADII = np.arange(0.0, 10.01, 0.5)


def _spokes(stack: np.ndarray, k, x, y, radii: tuple[float, ...], ppm: float) -> np.ndarray:
    """The pixels (points, radii, directions[, channels]) along the 12 directions (_ANGLES) out from
    each whole-pixel point (x, y) of patch k of a padded stack (_Stack.bgr or .lum; x, y in the
    patch's own pixels), nearest pixel, clamped to the patch."""
    n, h, w = stack.shape[:3]
    x, y = _whole_px(x) + STACK_PAD, _whole_px(y) + STACK_PAD
    base = np.asarray(k, np.intp).ravel() * (h * w)
    reach = _spoke_reach(radii, ppm)
    # One flat index per pixel (a single gather is several times faster than indexing by y and x).
    if len(x) and x.min() >= reach and y.min() >= reach and x.max() < w - reach and y.max() < h - reach:
        # (each point's own index first, then its offsets: one pass over the (points, radii,
        # directions) index instead of three)
        index = (base + y * w + x).reshape(-1, 1, 1) + _flat_offsets(radii, ppm, w)  # inside the padding: nothing to clamp
    else:
        dx, dy = _spoke_offsets(radii, ppm)
        x, y, base = x.reshape(-1, 1, 1), y.reshape(-1, 1, 1), base.reshape(-1, 1, 1)
        index = base + np.clip(y + dy, 0, h - 1) * w + np.clip(x + dx, 0, w - 1)
    # (mode="clip": every index is in the stack already, clamped or inside the padding - the same
    # pixels, without mode "raise"'s check of every index: some 15 % of the gather.)
    return np.take(stack.reshape((n * h * w,) + stack.shape[3:]), index, axis=0, mode="clip")


def _whole_px(v) -> np.ndarray:
    """Points' coordinates as whole pixels (intp, flat): rounded to the nearest (np.rint), or as they
    are when whole already (most callers' - no rounding through float64 to do)."""
    v = np.asarray(v)
    return v.astype(np.intp, copy=False).ravel() if v.dtype.kind in "iu" else np.rint(v).astype(np.intp).ravel()


@lru_cache(maxsize=32)
def _flat_offsets(radii: tuple[float, ...], ppm: float, width: int) -> np.ndarray:
    dx, dy = _spoke_offsets(radii, ppm)
    out = dy * width + dx
    out.setflags(write=False)
    return out


# (A dozen sets of radii are read: these caches hold them all - at 8 they were recomputed some
# eleven times a frame.)
@lru_cache(maxsize=32)
def _spoke_reach(radii: tuple[float, ...], ppm: float) -> int:
    """The farthest a spoke's pixel lies from its point, in whole pixels along x or y."""
    dx, dy = _spoke_offsets(radii, ppm)
    return int(max(np.abs(dx).max(), np.abs(dy).max()))


@lru_cache(maxsize=32)
def _spoke_offsets(radii: tuple[float, ...], ppm: float) -> tuple[np.ndarray, np.ndarray]:
    """Whole-pixel offsets (radii, directions) of the spokes. Rounding the offset alone is rounding
    the point plus offset for whole-pixel points: no offset is near a half pixel (0.01 px at least)."""
    dx = np.rint(np.outer(radii, np.cos(_ANGLES)) * ppm).astype(np.intp)
    dy = np.rint(np.outer(radii, np.sin(_ANGLES)) * ppm).astype(np.intp)
    dx.setflags(write=False)
    dy.setflags(write=False)
    return dx, dy


def _near_dome_measures(lum: np.ndarray, k: np.ndarray, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per point (patch k of the padded luminance stack, x, y): its directions with a rim darker
    than DARK_RIM of its top, and its top's brightness - what `_near_dome_from` asks."""
    radii = _RADII[(_RADII <= 2.0) | ((_RADII >= RIM_RADII_MM[0]) & (_RADII <= RIM_RADII_MM[1]))]
    prof = _spokes(lum, k, x, y, tuple(radii), READ_PX_PER_MM)
    top = prof[:, radii <= 2.0].reshape(len(prof), -1).mean(axis=1)
    rim_dirs = _mean_over_radii(prof[:, radii >= RIM_RADII_MM[0]])
    return _count_true(rim_dirs < DARK_RIM * top[:, None]), top


def _near_dome_from(dark: np.ndarray, top: np.ndarray, slack: int = NEAR_SLACK_DIRECTIONS,
                    clipped_slack: int = 0) -> np.ndarray:
    """Per point, from `_near_dome_measures`: whether a dome could be read close by (what `_dome`
    asks, loosely: a rim darker than the top in most directions, or a top nearly black). A top the
    sensor clipped (CLIPPED_TOP) may have `clipped_slack` directions fewer. (Measured once, asked
    twice: loosely of every peak, then strictly of those the first look did not settle.)"""
    slack = np.where(top >= CLIPPED_TOP, slack + clipped_slack, slack)
    return (dark >= MIN_DARK_DIRECTIONS - slack) | (top < NEAR_BLACK * BLACK_TOP)


def _dome(lum: np.ndarray, k: np.ndarray, x: np.ndarray, y: np.ndarray
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """How clearly a pawn stands at each point (patch k of the padded luminance stack, x, y) (NaN:
    not a pawn), from brightness along 12 directions out to 10 mm; whether that pawn, if it is
    one, must be of a dark colour; whether it must be of a lit colour, not white (its rim round in
    all directions but one); and whether its top is black with brighter surroundings 9-10 mm out
    in every direction (BLACK_SURROUND): a black pawn standing clear, not a fingertip (its finger
    goes on behind it, as dark) nor a hand's shadow; and whether it is round only where its
    brightness falls to half (`_half_round`: it must then stand on its tile).

    A coloured (or white) pawn: a bright top, still fairly bright 4 mm out (a path point's dark
    ring is there), and a rim 5.5-7.5 mm out darker than the top in (nearly) every direction. A
    black pawn: a dark top with much brighter surroundings 9-10 mm out (the cap, three times as
    wide, is still black there). A dark pawn under a bright lamp: its gloss lifts its top well above
    black, but its body (2.5-6 mm out) stays dark against much brighter surroundings; only a pawn
    of a dark colour (its colour is checked) is taken that way."""
    prof = _spokes(lum, k, x, y, tuple(_RADII), READ_PX_PER_MM)  # (points, radii, directions)
    n = len(prof)
    # Slices of the radii (views, not copies: _RADII rise by 0.5 mm from 0).
    top = prof[:, _R_TOP].reshape(n, -1).mean(axis=1)
    rim_dirs = _mean_over_radii(prof[:, _R_RIM])
    rim = _median(rim_dirs)
    mid = prof[:, _R_MID].reshape(n, -1).mean(axis=1)
    far_max = _extreme_over_radii(prof[:, _R_FAR], np.maximum)
    dark = _count_true(rim_dirs < DARK_RIM * top[:, None])
    # Cheap rejection first: most points fail what every kind of pawn needs, and the costlier
    # measures below (where each direction is darkest, the body) are taken of the rest only (per
    # point, so the very same values). A coloured pawn's rim is dark and its dome still bright 4 mm
    # out; a black pawn's top and a dark body's (top <= DARK_TOP_OVER_BODY * body < DARK_BODY times
    # that) are dark with surroundings BLACK_SURROUND times the body, so 1 / DARK_TOP_OVER_BODY of
    # that times the top (a little less, clear of rounding) in as many directions.
    maybe_coloured = (mid >= MID_OVER_TOP * top) & (mid >= MID_OVER_RIM * rim) & (dark >= MIN_DARK_DIRECTIONS)
    dark_bound = DARK_TOP_OVER_BODY * DARK_BODY * 1.001
    around_bound = 0.999 * BLACK_SURROUND / DARK_TOP_OVER_BODY
    maybe_dark = (top < dark_bound) & (_count_true(far_max >= around_bound * top[:, None]) >= BLACK_BRIGHT_DIRECTIONS)
    clear_black = (top < BLACK_TOP) & (_count_true(far_max >= BLACK_SURROUND * top[:, None]) == len(_ANGLES))
    quality = np.full(n, np.nan)
    dark_body, one_short, half_round = np.zeros(n, bool), np.zeros(n, bool), np.zeros(n, bool)
    at = np.flatnonzero(maybe_coloured | maybe_dark)
    if len(at):
        quality[at], dark_body[at], one_short[at], half_round[at] = _dome_kind(
            prof[at], top[at], rim_dirs[at], rim[at], mid[at], far_max[at], dark[at])
    return quality, dark_body, one_short, clear_black, half_round


def _dome_kind(prof, top, rim_dirs, rim, mid, far_max, dark) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`_dome`'s answers for points that may be a pawn, from their profiles and the measures
    `_dome` took of all points."""
    n = len(prof)
    out = prof[:, _R_FAR].reshape(n, -1).mean(axis=1)
    # Where each direction is darkest (3-9 mm out): all round a pawn, at its rim; elsewhere (a
    # tile's white source ring between its dark centre and dark edge) at different distances.
    band = prof[:, _R_BAND]
    lowest = _extreme_over_radii(band, np.minimum)  # (points, directions): shared by the roundness measures below
    darkest = _darkest_radius(band, _RADII[_R_BAND], lowest)  # (points, directions)
    darkest_median = _median(darkest)
    round_rim = _count_true(np.abs(darkest - darkest_median[:, None]) <= 1.0)
    coloured = ((mid >= MID_OVER_TOP * top) & (mid >= MID_OVER_RIM * rim) & (dark >= MIN_DARK_DIRECTIONS)
                & (np.abs(darkest_median - RIM_AT_MM[0]) <= RIM_AT_MM[1]))
    round_ok = round_rim >= MIN_DARK_DIRECTIONS
    floor = _floor_round(prof, top, darkest_median, coloured & ~round_ok, lowest)
    # A pawn in a crowd (five or six on a source) has a darker neighbour just past its rim in one
    # direction or two: one direction short of round is let be, for a lit coloured top only
    # (`_refined` checks its colour; print's white and fingertips come that close too).
    one_short = coloured & ~round_ok & (floor < len(_ANGLES)) & (floor >= len(_ANGLES) - SHORT_OF_ROUND)
    round_ok |= floor >= len(_ANGLES) - SHORT_OF_ROUND
    # Where a crowd's neighbours stand just past the rim, several directions are darkest out there,
    # not at the rim; the brightness still falls to half at the rim. Round so alone, `_refined`
    # asks the dome to stand on its tile (HALF_ROUND_GROUND). Asked only where half the directions
    # or more are darkest at the rim already (the neighbours stand on one side; it costs less).
    half_round = coloured & ~round_ok & (round_rim >= len(_ANGLES) // 2)
    half_round[half_round] = _half_round(band[half_round], top[half_round], lowest[half_round]) >= len(_ANGLES)
    coloured &= round_ok | half_round
    bright_around = _count_true(far_max >= BLACK_SURROUND * top[:, None])
    black = (top < BLACK_TOP) & (bright_around >= BLACK_BRIGHT_DIRECTIONS)
    body = prof[:, _R_BODY].reshape(n, -1).mean(axis=1)
    bright_body = _count_true(far_max >= BLACK_SURROUND * body[:, None])
    dark_body = ((body < DARK_BODY) & (top <= DARK_TOP_OVER_BODY * body)
                 & (bright_body >= BLACK_BRIGHT_DIRECTIONS) & ~coloured & ~black)
    safe_top, safe_body = np.maximum(top, 1e-6), np.maximum(body, 1e-6)
    quality = np.where(coloured, dark + 4.0 * (1.0 - rim / safe_top),
                       np.where(black, bright_around + np.minimum(out / safe_top, 10.0) / 2.5,
                                np.where(dark_body, bright_body + np.minimum(out / safe_body, 10.0) / 2.5, np.nan)))
    return quality, dark_body, one_short, half_round  # (within `coloured` by construction)


HALF_ROUND_MM = 1.0  # each direction's half-way fall within this of the directions' median: round
HALF_ROUND_GROUND = 0.5  # a dome round only so: the share of its surroundings its tile's print fills (`_ground_shares`)


def _half_round(band: np.ndarray, top: np.ndarray, lowest: np.ndarray) -> np.ndarray:
    """Per point (`band`: its profile 3-9 mm out, (points, radii, directions); `lowest`: its minimum
    over the radii): in how many directions its brightness falls half way from its top to that
    direction's darkest within HALF_ROUND_MM of where it does in the directions' median. A dome's flank falls to half at its rim in every direction, whatever lies
    beyond it; where a direction is darkest is a neighbour's shadow in a crowd (white pawns on a
    source's white ring: tuning seeds 5284, 5495 missed so). A stretch of the print's ring does not
    fall where it goes on."""
    if not len(band):
        return np.zeros(0, np.intp)
    half = (top[:, None] + lowest) / 2
    first = _RADII[_R_BAND][np.argmax(band <= half[:, None, :], axis=1)]  # (a direction that falls reaches it: its lowest)
    falls = lowest < top[:, None]  # (one that does not fall - flat, or brighter than the top - is not round there)
    return _count_true((np.abs(first - _median(first)[:, None]) <= HALF_ROUND_MM) & falls)


def _darkest_radius(band: np.ndarray, radii: np.ndarray, lowest: np.ndarray | None = None) -> np.ndarray:
    """radii[np.argmin(band, axis=1)] of a (points, radii, directions) array - the first radius
    where each direction is at its lowest - written out over the few radii (numpy's argmin over a
    middle axis costs several times more). `lowest`: band's minimum over the radii, if taken already."""
    lowest = _extreme_over_radii(band, np.minimum) if lowest is None else lowest
    # The first low's index is the count of radii before it, where the running minimum out from the
    # first radius is still above the lowest (exact: a minimum is one of the values).
    run = band[:, 0].copy()
    first = (run > lowest).astype(np.intp)
    least = cv2.min if _cv_rows(band) else lambda a, b, dst: np.minimum(a, b, out=dst)  # (see `_cv_rows`)
    for i in range(1, band.shape[1] - 1):
        least(run, band[:, i], dst=run)
        first += run > lowest
    return radii[first]


def _floor_round(prof: np.ndarray, top: np.ndarray, darkest_median: np.ndarray, ask: np.ndarray,
                 lowest: np.ndarray | None = None) -> np.ndarray:
    """Per point (0 where not `ask`ed): in how many directions it is as dark near the rim (within
    1 mm of the directions' median darkest distance) as anywhere out to 9 mm, to ROUND_FLOOR of the
    top's contrast. On a dark tile, or against the cap or a neighbour's shadow, a pawn's rim is no
    darker than what lies beyond it, and where exactly a direction is darkest is noise: such a rim
    is still round (tuning seeds 3800-4199: pawns beside the cap, on a purple source, were missed).
    `lowest`: each point's minimum 3-9 mm out per direction, if taken already."""
    out = np.zeros(len(prof), np.intp)
    at = np.flatnonzero(ask)
    if len(at):
        lowest = _extreme_over_radii(prof[at, _R_BAND], np.minimum) if lowest is None else lowest[at]
        out[at] = _count_true(_near_rim_min(prof, at, darkest_median[at]) - lowest
                              <= ROUND_FLOOR * (top[at, None] - lowest))
    return out


# Radii within 1 mm either side of a median on the band's 0.5 mm steps: a run of at most five.
_NEAR_RIM_RUN = int(2 * 1.0 / float(_RADII[1] - _RADII[0])) + 1


def _near_rim_min(prof: np.ndarray, at: np.ndarray, darkest_median: np.ndarray) -> np.ndarray:
    """(points, directions): each asked point's (`at`, rows of `prof`) least value over the band's
    radii within 1 mm of its median darkest radius (`darkest_median`, in the band: a radius or the
    mean of two). Those radii are a run of at most five: each direction's least is the minimum of five
    whole-row reads of that run (its last radius repeated where it is shorter: a minimum is not
    changed by a value read twice), not of the whole band with the others made infinite (the same
    minima: they are exact), at a fraction of the pixels."""
    band = _RADII[_R_BAND]
    # The run's first and last radius: |radius - median| <= 1 mm, worked out as the comparison does
    # (the radii and the medians are multiples of a quarter millimetre: exact in float64).
    near = np.abs(band[None, :] - darkest_median[:, None]) <= 1.0
    lo = np.argmax(near, axis=1)
    hi = len(band) - 1 - np.argmax(near[:, ::-1], axis=1)
    rows = prof.reshape(-1, prof.shape[2])  # (points x radii, directions): a radius's twelve in a row
    row0 = at * prof.shape[1] + _R_BAND.start  # each point's first band radius
    out = None
    for k in range(_NEAR_RIM_RUN):
        v = np.take(rows, row0 + np.minimum(lo + k, hi), axis=0)  # (whole rows: one copy each)
        out = v if out is None else np.minimum(out, v, out=out)
    return out


def _count_true(mask: np.ndarray) -> np.ndarray:
    """mask.sum(axis=1) (intp) of a (points, 12) bool array - per point, in how many of the twelve
    directions a test holds. numpy reduces each row of twelve on its own, several times the cost of
    the test itself; here each row's twelve 0/1 bytes are read as three 32-bit words, added (a
    byte's sum is at most 3: no carry into its neighbour), and the four bytes of that summed by
    one multiplication into the top byte: the very counts, whole numbers."""
    if mask.ndim != 2 or mask.shape[1] != 12:
        return mask.sum(axis=1)
    words = np.ascontiguousarray(mask).view(np.uint32)  # (points, 3): four 0/1 bytes each
    total = words[:, 0] + words[:, 1]
    total += words[:, 2]
    total *= np.uint32(0x01010101)
    total >>= np.uint32(24)
    return total.astype(np.intp)


# numpy 2.4's reductions over a short axis cost far more than the operations they make (see
# piece_colours._sum3); the profiles here are (points, radii, directions) with a few radii, so
# the reductions over the radii are written out: the very same values, in the same order.
def _mean_over_radii(a: np.ndarray) -> np.ndarray:
    """a.mean(axis=1) of a (points, radii, ...) float32 array: numpy adds over a middle axis one
    radius after another, then divides by the count (an intp, so in float64, cast back)."""
    if _cv_rows(a):  # (OpenCV's float32 addition: IEEE, numpy's very sums)
        total = cv2.add(a[:, 0], a[:, 1])
        for i in range(2, a.shape[1]):
            cv2.add(total, a[:, i], dst=total)
    else:
        total = a[:, 0] + a[:, 1]
        for i in range(2, a.shape[1]):
            total += a[:, i]
    return np.true_divide(total, np.intp(a.shape[1]), out=total, casting="unsafe")


def _extreme_over_radii(a: np.ndarray, pick=np.maximum) -> np.ndarray:
    """a.max(axis=1) (pick=np.maximum) or a.min(axis=1) (np.minimum) of a (points, radii, ...) array."""
    if _cv_rows(a) and pick in _CV_PICK:  # (a maximum or minimum is exact, whoever takes it)
        cv_pick = _CV_PICK[pick]
        out = cv_pick(a[:, 0], a[:, 1])
        for i in range(2, a.shape[1]):
            cv_pick(out, a[:, i], dst=out)
        return out
    out = pick(a[:, 0], a[:, 1])
    for i in range(2, a.shape[1]):
        pick(out, a[:, i], out=out)
    return out


_CV_PICK = {np.maximum: cv2.max, np.minimum: cv2.min}


def _cv_rows(a: np.ndarray) -> bool:
    """Whether the loops over the radii of `a` (points, radii, directions) are taken by OpenCV: a
    profile's radius is a (points, directions) view whose rows of twelve lie a whole profile apart,
    and numpy's elementwise operations on such a view work row by row (a loop of twelve each, the
    row's overhead several times the arithmetic); OpenCV takes the rows at their step, a few times
    faster, with the same IEEE float32 results. Profiles of pixels only: no NaN (whose maximum
    OpenCV and numpy take differently)."""
    return a.dtype == np.float32 and a.ndim == 3 and len(a) > 0 and a.shape[1] >= 2 and a.strides[2] == 4


def _radii_slice(lo: float, hi: float) -> slice:
    """The slice of _RADII from lo to hi mm (both included)."""
    at = np.flatnonzero((_RADII >= lo) & (_RADII <= hi))
    return slice(int(at[0]), int(at[-1]) + 1)


_R_TOP, _R_RIM, _R_MID = _radii_slice(0.0, 2.0), _radii_slice(*RIM_RADII_MM), _radii_slice(3.5, 4.5)
_R_FAR, _R_BAND, _R_BODY = _radii_slice(9.0, _RADII[-1]), _radii_slice(3.0, 9.0), _radii_slice(2.5, 6.0)
_BODY_FAR_RADII = tuple(_RADII[_R_BODY]) + tuple(_RADII[_R_FAR])  # what `_beside_cap` asks first
_N_BODY = len(_RADII[_R_BODY])


def _median(a: np.ndarray) -> np.ndarray:
    """np.median(a, axis=1), the same values (middle one, or the mean of the middle two, in a's
    dtype) by one sort: np.median's own overhead is most of its cost on the few values per point
    read here, and it is called for every candidate."""
    n = a.shape[1]
    s = np.sort(a, axis=1)
    return s[:, n // 2] if n % 2 else (s[:, n // 2 - 1] + s[:, n // 2]) / 2


_TOP_RING = tuple(np.linspace(0.0, 2.0, 3))  # where `_same_colour_rims` reads a top...
_RIM_RING = tuple(np.linspace(*RIM_RADII_MM, 3))  # ... and its rim...
_INNER_RIM_RING = (5.0, 5.5, 6.0)  # ... or its flank just inside, clear of the tile the blur mixes in...
INNER_RIM_MIN_LUM = 0.2  # ... for a top at least this bright (linear luminance) and not white
CLIPPED_FLANK_FIT = 0.12  # a clipped top's flank: its pawn colour in shade this closely (`_clipped_flank`)


def _same_colour_rims(bgr: np.ndarray, k: np.ndarray, x: np.ndarray, y: np.ndarray,
                      palette: np.ndarray | None = None, colours: np.ndarray | None = None) -> np.ndarray:
    """Per point (patch k of the padded stack, x, y): whether a pawn's rim there would be its top in
    shade, the same colour, darker. (The end of a ray by a tile's source looks domed too, but its
    surround is the tile's own, stronger colour.) `palette` (the pawn colours, sRGB BGR): a lit top
    the sensor clipped is asked against them (`_clipped_flank`). `colours`: the points' top and rim
    colours (`_ring_colours` of _TOP_RING and _RIM_RING), if read already."""
    if len(x) == 0:
        return np.zeros(0, bool)

    def ring(radii: tuple[float, ...], at: np.ndarray) -> np.ndarray:
        return _ring_colour(bgr, k[at], x[at], y[at], radii)

    everywhere = np.arange(len(x))
    if colours is None:
        colours = _ring_colours(bgr, k, x, y, (_TOP_RING, _RIM_RING))
    top = colours[:, 0]
    out = _shaded_tops(colours[:, 1], top)
    # A pawn's outer rim (7.5 mm) is blurred with the tile round it: a clipped pink or a cyan top on
    # the yellow tile is then too green and not blue enough out there (tuning seeds 4600-4699: six
    # pawns round the cap or on a source lost so). Its flank 5-6 mm out is still its own colour in
    # shade. Only a lit coloured top is read so: the print's white (path points, the source's ring)
    # has white or pale rays 5-6 mm out in many places, and a dark top (a fingertip in the hand's
    # shade) is as dark as anything 5-6 mm out (4600-4699: ten fingertips taken so, none bright).
    rest = everywhere[~out]
    rest = rest[_lit_colour(top[rest])] if len(rest) else rest
    if len(rest):
        flank, tops = ring(_INNER_RIM_RING, rest), top[rest]
        at, colours = _clipped_flank(tops, palette) if palette is not None else (rest[:0], tops[:0])
        # The flank as the top in shade (`_shaded_tops`) and, for a clipped top, as its pawn colour in
        # shade, in one paired fit (each pixel's fit is its own; two small fits cost mostly their calls).
        res = fit_residuals(np.concatenate([flank, flank[at]]), np.concatenate([tops, colours]), k_range=(0.0, 1.0),
                            w_max=0.0, paired=True)[:, 0]
        out[rest] = res[:len(rest)] < MAX_RIM_RESIDUAL
        out[rest[at]] |= res[len(rest):] < CLIPPED_FLANK_FIT
    return out


def _clipped_flank(top: np.ndarray, palette: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Of lit coloured tops (sRGB BGR): those the sensor clipped that fit a taught pawn colour
    (`palette`: the pawn colours, sRGB BGR), and that colour. Such a top is a pawn's when its flank
    (5-6 mm out) is that colour in shade (`_same_colour_rims` asks). A top the sensor clipped has
    lost its hue where it clipped (a lit pink pawn reads (255, 186, 255), its flank a deeper pink:
    tuning seeds 5388, 5393, 5503 missed so), so its flank is no longer that top in shade. Closely
    (CLIPPED_FLANK_FIT): a path point's pale top on the red tile, clipped in red, fits pink too, and
    its flank the pink in shade at 0.19-0.24, where those pawns' fit at 0.03-0.07. (Every top asked
    is clipped, and a clipped pixel's fit is worked out on its own: asking the tops a flank already
    shows as shaded too changes no other's values.)"""
    at = np.flatnonzero(top.max(axis=1) >= SATURATED)
    if not len(at):
        return at, palette[:0]
    res = fit_residuals(top[at], palette)
    best = np.argmin(res, axis=1)
    fits = res[np.arange(len(at)), best] < MAX_COLOUR_RESIDUAL
    return at[fits], palette[best[fits]]


def _pawn_flank(bgr: np.ndarray, k: np.ndarray, x: np.ndarray, y: np.ndarray, tops: np.ndarray, refs: np.ndarray,
                tiles: np.ndarray) -> np.ndarray:
    """Per point of the padded stack: whether a top (`tops`, sRGB BGR) its tile's colour (`tiles`)
    explains better than its best pawn colour (`refs`) is still that pawn: the top is clipped (it
    has lost its hue where it clipped: a lime pawn on the yellow tile reads (100-115, 255, 255)) and
    its flank 5-6 mm out is that pawn colour in shade (CLIPPED_FLANK_FIT), not the tile's colour in
    shade. Tuning seeds 5583, 5862: lime pawns on solar, their flanks lime within 0.03 and the
    tile's colour at 0.46-0.50; the one print read lime on 5000-5899 (5102, beside a black pawn on
    the source) has a flank at 0.5 of lime."""
    out = np.zeros(len(k), bool)
    at = np.flatnonzero(tops.max(axis=1) >= SATURATED)
    if len(at):
        flank = _ring_colour(bgr, k[at], x[at], y[at], _INNER_RIM_RING)
        # (its pawn colour and its tile's in one paired fit)
        res = fit_residuals(np.concatenate([flank, flank]), np.concatenate([refs[at], tiles[at]]).astype(np.float32),
                            k_range=(0.0, 1.0), w_max=0.0, paired=True)[:, 0].reshape(2, -1)
        out[at] = (res[0] < CLIPPED_FLANK_FIT) & (res[1] >= MAX_COLOUR_RESIDUAL)
    return out


WHITE_FLANK_TOP = 0.1  # a lit top (CLEAR_WHITE_LUM) the white pawn explains this well...
WHITE_FLANK_RIM = DARK_RIM  # ... with its rim darker than this share of it in every direction


def _white_flank(stack: _Stack, k: np.ndarray, x: np.ndarray, y: np.ndarray, tops: np.ndarray,
                 white: np.ndarray) -> np.ndarray:
    """Per point (its top's colour `tops`): whether a lit white top whose rim (5.5-7.5 mm) is not
    that top in shade is still the white pawn's: its rim is darker than the top in every direction
    (WHITE_FLANK_RIM), its brightness falls to half at one distance all round (`_half_round`), and
    its flank 5-6 mm out is the top in shade (`_shaded_tops`). Blurred (a wide lens, a soft focus),
    a white pawn's rim takes in the tile round it, and on the yellow tile is no longer grey (tuning
    seed 6411: rim 0.36 from the top in shade, flank 0.20). A stretch of ray between the source's
    ring and a path point is white, dark at both ends and its flank is its top in shade too, but it
    falls to half at a ray's width across and farther along (tuning seeds 4200-4239 and 6300-6599:
    no other point asked so falls to half in more than 11 directions). The brightness measures are
    taken first, of the lit tops alone: the colour fits, costlier, only of the few still round."""
    out = np.zeros(len(k), bool)
    at = np.flatnonzero(_luminance(tops) >= CLEAR_WHITE_LUM)
    if len(at):
        prof = _spokes(stack.lum, k[at], x[at], y[at], tuple(_RADII), READ_PX_PER_MM)
        top = prof[:, _R_TOP].reshape(len(at), -1).mean(axis=1)
        dark = _mean_over_radii(prof[:, _R_RIM]).max(axis=1) < WHITE_FLANK_RIM * np.maximum(top, 1e-6)
        band = prof[dark][:, _R_BAND]
        at = at[dark][_half_round(band, top[dark], _extreme_over_radii(band, np.minimum)) >= len(_ANGLES)]
    if len(at):
        at = at[fit_residuals(tops[at], np.asarray(white, np.float32)[None])[:, 0] < WHITE_FLANK_TOP]
    if len(at):
        out[at] = _shaded_tops(_ring_colour(stack.bgr, k[at], x[at], y[at], _INNER_RIM_RING), tops[at])
    return out


def _black_flank(bgr: np.ndarray, k: np.ndarray, x: np.ndarray, y: np.ndarray,
                 top: np.ndarray | None = None) -> np.ndarray:
    """Per point: whether a black top's flank 5-6 mm out is that top in shade. On a source's white
    ring, or beside a lit tile, the rim 5.5-7.5 mm out takes in the blurred print and is no longer
    the top's colour (tuning seeds 5393, 5486: black pawns missed so); the flank still is. `top`:
    the points' top colours (`_ring_colour` of _TOP_RING), if read already."""
    if len(x) == 0:
        return np.zeros(0, bool)
    top = _ring_colour(bgr, k, x, y, _TOP_RING) if top is None else top
    return _shaded_tops(_ring_colour(bgr, k, x, y, _INNER_RIM_RING), top)


def _shaded_tops(rim: np.ndarray, top: np.ndarray) -> np.ndarray:
    """Per point: whether its rim colour is its top's in shade (k up to 1, no white added)."""
    return fit_residuals(rim, top, k_range=(0.0, 1.0), w_max=0.0, paired=True)[:, 0] < MAX_RIM_RESIDUAL


def _ring_colour(bgr: np.ndarray, k: np.ndarray, x: np.ndarray, y: np.ndarray, radii: tuple[float, ...]) -> np.ndarray:
    """Per whole-pixel point of the padded stack: the median sRGB BGR (float32) on its spokes at `radii`."""
    spokes = _spokes(bgr, k, x, y, radii, READ_PX_PER_MM)
    return _median(spokes.reshape(len(spokes), -1, 3).astype(np.float32))


def _ring_colours(bgr: np.ndarray, k: np.ndarray, x: np.ndarray, y: np.ndarray,
                  rings: tuple[tuple[float, ...], ...]) -> np.ndarray:
    """(points, rings, 3): `_ring_colour` of each of `rings` (as many radii each), in one gather and
    one sort - the same pixels, so the same medians, at one call's overhead instead of several."""
    n, m = len(k), len(rings)
    spokes = _spokes(bgr, k, x, y, sum(rings, ()), READ_PX_PER_MM)  # (points, rings x radii, directions, 3)
    s = np.sort(spokes.reshape(n, m, spokes.shape[1] // m * spokes.shape[2], 3).astype(np.float32), axis=2)
    c = s.shape[2]
    return s[:, :, c // 2] if c % 2 else (s[:, :, c // 2 - 1] + s[:, :, c // 2]) / 2


def _lit_colour(top: np.ndarray) -> np.ndarray:
    """Per top (N, 3 sRGB BGR): whether it is lit (INNER_RIM_MIN_LUM) and not the print's white."""
    white = fit_residuals(top, np.array([PRINT_WHITE], np.float32))[:, 0] < MAX_COLOUR_RESIDUAL
    return (_luminance(top) >= INNER_RIM_MIN_LUM) & ~white


_PRINT = "print"  # _colour's answer for a top of the tile's own colour
_TOP_R_PX = int(round(3.0 * READ_PX_PER_MM))  # a top's colour is the median of the disc this wide round it


@lru_cache(maxsize=4)
def _disc_flat_offsets(width: int) -> np.ndarray:
    yy, xx = np.mgrid[-_TOP_R_PX:_TOP_R_PX + 1, -_TOP_R_PX:_TOP_R_PX + 1]
    inside = yy * yy + xx * xx <= _TOP_R_PX * _TOP_R_PX
    out = yy[inside] * width + xx[inside]
    out.setflags(write=False)
    return out


def _top_colours(bgr: np.ndarray, k: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per point of the padded stack: the median sRGB BGR (float32) of the 3 mm disc round it."""
    n, h, w = bgr.shape[:3]
    centre = (k * (h * w) + (y + STACK_PAD) * w + (x + STACK_PAD))[:, None]
    pix = np.take(bgr.reshape(-1, 3), centre + _disc_flat_offsets(w), axis=0).astype(np.float32)
    return _median(pix)  # (np.median's values - the disc holds an odd count, 113 - for less overhead)


def _colour_fits(tops: np.ndarray, refs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per top (N, 3): the index of the taught pawn colour that explains it, the fit residuals
    (N, colours) and how much of each fit is the lamp's reflected white (N, colours: `_unsure`)."""
    # A black pawn's gloss adds some white to its top, but a lit white top is far brighter than
    # any black with its gloss: a dark colour may take less reflected white than the others.
    dark = srgb_to_linear(np.asarray(refs, np.float32)).max(axis=1) < DARK_REF
    res, wash = fit_residuals(tops, refs, w_max=np.where(dark, W_MAX_DARK, W_MAX), with_wash=True)
    best = np.argmin(res, axis=1)
    # A white top in shade is grey, and grey is also a dark colour with its gloss or any colour
    # washed out by reflected white: when white explains the top nearly as well, it is white (seeds
    # 3000-3399: every white pawn read as another colour was within 0.03; no other pawn within 0.19).
    white = _white_index(refs)
    if white is not None:
        best = np.where(res[:, white] <= res[np.arange(len(res)), best] + WHITE_SLACK, white, best)
    return best, res, wash


def _named(best: int, res: np.ndarray, names, tile_res: float | None = None) -> str | None:
    """A top's colour name from its fits (`_colour_fits`), None when no taught colour explains it, or
    _PRINT when the tile's own colour explains it better (`tile_res`: its fit residual under it)."""
    if tile_res is not None and tile_res < res[best]:
        return _PRINT
    return names[best] if res[best] < NAMED_RESIDUAL else None


# A lit colour (neither the white pawn's nor a dark one) named from a fit that is at least this much
# the lamp's reflected white (w / (w + k max c)) is a tint of white, not that colour: tuning seeds
# 5000-6299, the 3632 pink, cyan, lime and brown pawns found fit their colour at 0.40 at most (a
# lit glossy brown); the white pawn read brown (6223, a warm white on the solar tile) at 0.65, and
# white pawns' tops fit brown, cyan, lime or pink (unclipped) at 0.44-0.90 where those come within
# 0.2 of being named.
WASHED = 0.5
# A top read black on a dome (not by its dark body) brighter than this (linear luminance) is a grey
# a white pawn in shade gives too (white fits no grey darker than ~0.29: K_MIN): 5000-6299, the 1194
# black pawns read so are 0.10 at most, white pawns 0.33 and up, and a white pawn in a hand's
# shadow at 0.27 read black (6266; refused there only as a dark band).
GREY_TOP = 0.15


def _unsure(bgr: np.ndarray, k: np.ndarray, x: np.ndarray, y: np.ndarray, tops: np.ndarray, asked: np.ndarray,
            wash: np.ndarray, lit: np.ndarray, black: np.ndarray, dark_only: np.ndarray,
            over_white: np.ndarray, white_fits: np.ndarray) -> np.ndarray:
    """Per reading of the padded stack named a pawn colour: whether that name rests on what another
    colour's pawn shows too, so that it is to be null. `asked` (sRGB BGR): the colour it is named or,
    named white by the slack over a colour that fits its top better (`over_white`), that colour;
    `wash`: how much of the top's fit to `asked` is reflected white; `lit`: `asked` is neither white
    nor dark; `black`: named a neutral dark colour (black); `dark_only`: read by its dark body;
    `white_fits`: the palette's white pawn fits the top within NAMED_RESIDUAL.

    A lit colour: its fit mostly white where white fits the top too (WASHED: a tinted white top; a
    dark lit colour's gloss is no white pawn's top), or, the sensor having clipped
    the top (its hue lost there), a flank 5-6 mm out not that colour in shade (MAX_RIM_RESIDUAL;
    tuning seeds 5000-6299: pink, cyan and lime pawns' flanks 0.29 at most, a white pawn's against
    the colour its clipped top fits 0.36 and up). White over a lit colour: a flank that is that
    colour in shade (a pale top of a pink pawn; the white pawns read so have flanks 0.36 and more
    from it). Black on a dome: a top brighter than GREY_TOP (read by its dark body, the body's own
    darkness against its surroundings is the evidence)."""
    named_lit = lit & ~over_white
    out = (named_lit & (wash >= WASHED) & white_fits) | (black & ~dark_only & (_luminance(tops) > GREY_TOP))
    # (over_white implies lit: the colour asked is the lit one that fits better.)
    ask = np.flatnonzero((named_lit & ~out & (tops.max(axis=1) >= SATURATED)) | over_white)
    if len(ask):
        flank = _ring_colour(bgr, k[ask], x[ask], y[ask], _INNER_RIM_RING)
        shows = fit_residuals(flank, asked[ask], k_range=(0.0, 1.0), w_max=0.0, paired=True)[:, 0] < MAX_RIM_RESIDUAL
        out[ask] = shows == over_white[ask]
    return out


def _colour(patch: np.ndarray, x: int, y: int, names, refs, tile: np.ndarray | None = None) -> str | None:
    """The colour of the top at (x, y) of one patch (see `_named`): the name alone. `find_pawns` may
    still make it null where it rests on what another colour's pawn shows too (`_unsure`)."""
    top = _top_colours(_stack([patch]).bgr, np.zeros(1, np.intp), np.array([x]), np.array([y]))
    best, res, _ = _colour_fits(top, refs)
    tile_res = None if tile is None else fit_residuals(top, np.asarray(tile, np.float32)[None])[0, 0]
    return _named(int(best[0]), res[0], names, tile_res)


def _white_index(refs: np.ndarray) -> int | None:
    """The palette's white pawn (a bright neutral reference), if it has one."""
    refs = np.asarray(refs, np.float32)
    low = refs.min(axis=1)  # (max - min is np.ptp's value, without its dispatch: asked twice a frame)
    white = np.flatnonzero((low >= WHITE_MIN) & (refs.max(axis=1) - low <= WHITE_SPREAD))
    return int(white[np.argmax(refs[white].sum(axis=1))]) if len(white) else None


def find_cap(black_mask: np.ndarray, px_to_mm, ppm: float, patches: list[np.ndarray] = (),
             tile_centres: list[tuple[float, float]] = ()) -> tuple[float, float] | None:
    """The cap: the black disc of its size in the coarse map (pawns standing on its edge dent it a
    little); else, as the cap is only ever put on a tile, a tile whose middle is covered by it."""
    return _cap_in_map(black_mask, px_to_mm, ppm, tile_centres) or _cap_on_tiles(patches, tile_centres)


def _cap_in_map(black_mask: np.ndarray, px_to_mm, ppm: float, tile_centres=()) -> tuple[float, float] | None:
    """The black disc of the cap's size in the coarse map; when tiles were found, on one of them
    only (the cap is only ever put on a tile: a black cup or box of its size beside the layout is
    not it, tuning seed 4817, whose cap among pawns was then read as two pawns)."""
    k = max(3, int(round(3.0 * ppm)) | 1)
    mask = cv2.morphologyEx(black_mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    # Grana's scan: the default's very stats and centroids, at a third of its cost in OpenCV 5 (see
    # enix_search._framed_heads).
    count, _, stats, centroids = cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_GRANA)
    area = math.pi * (CAP_MM / 2) ** 2 * ppm * ppm
    best, best_err = None, 0.45
    for i in range(1, count):
        x, y, w, h, a = stats[i]
        err = abs(a / area - 1.0)
        if err < best_err and max(w, h) <= 1.4 * CAP_MM * ppm and min(w, h) >= 0.6 * CAP_MM * ppm:
            c = px_to_mm(centroids[i][None])[0]
            if not len(tile_centres) or min(math.dist(c, t) for t in tile_centres) <= CAP_ON_TILE_MM:
                best, best_err = (float(c[0]), float(c[1])), err
    return best


@lru_cache(maxsize=4)
def _patch_radii(n: int) -> np.ndarray:
    """Distance (mm) of each pixel of an n x n patch from its centre."""
    yy, xx = (np.mgrid[0:n, 0:n] + 0.5) / READ_PX_PER_MM - n / READ_PX_PER_MM / 2
    r = np.hypot(xx, yy)
    r.setflags(write=False)  # shared between calls
    return r


def _cap_on_tiles(patches: list[np.ndarray], tile_centres) -> tuple[float, float] | None:
    """The cap seen in the tiles' patches: its glossy top is lit grey as often as black (the coarse
    map then names it no colour), but it is always grey - no tile's print, no pawn but the black
    one - and darker than a source's white ring. A tile whose middle is mostly such grey wears
    the cap (bench seeds below 100000: 0.76-1.0 on the cap's tile, 5 %-95 %; at most 0.51 elsewhere,
    under a hand); its centre is that grey's centroid near the tile's centre."""
    best, best_share = None, CAP_SHARE_MIN
    for centre, patch in zip(tile_centres, patches):
        ys, xs, core = _cap_pixels(patch.shape[0])
        p = patch[ys, xs]
        # The channels' spread and brightest, written out (a 3-long max/min axis costs numpy ~20x:
        # see piece_colours._sum3); uint8 max and min are exact, the float32 test as before.
        hi = np.maximum(np.maximum(p[:, 0], p[:, 1]), p[:, 2]).astype(np.float32)
        lo = np.minimum(np.minimum(p[:, 0], p[:, 1]), p[:, 2]).astype(np.float32)
        grey = ((hi - lo) < CAP_MAX_CHROMA * np.maximum(hi, 1.0)) & (hi < CAP_MAX_SRGB)
        share = float(grey[core].mean())
        if share > best_share:
            best, best_share = _patch_to_mm(centre, float(xs[grey].mean()), float(ys[grey].mean()), 0.0), share
    return best


@lru_cache(maxsize=4)
def _cap_pixels(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pixels `_cap_on_tiles` reads of an n x n patch (y, x, in row order) - those near its
    centre, every other row and column (plenty for a 34 mm disc, a quarter the work) - and which
    of them are in the cap's core."""
    r = _patch_radii(n)
    near = r < CAP_MM / 2 + 4.0
    near[1::2, :] = False
    near[:, 1::2] = False
    ys, xs = np.nonzero(near)
    core = r[near] < CAP_CORE_MM
    for a in (ys, xs, core):
        a.setflags(write=False)  # shared between calls
    return ys, xs, core
