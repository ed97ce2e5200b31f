"""From a grey patch of a square printed tile (with a margin of table around it) to the darkness of
its ink alone.

Two things besides ink darken a printed tile in a photo: the light (uneven, shadows, glare) and
what lies beyond its edges (a darker table, the gap to the next tile), which blur carries a few
millimetres inwards. The first is taken out by measuring each quadrant's own paper white; the
second by measuring, along the middle of each edge (where no mark is ever printed), how the
darkness fades inwards, and removing that fade along the whole edge (or, where the edge's outer band
shows it lies over part of the edge only, where it lies).
"""

from __future__ import annotations

import cv2
import numpy as np

from .micropul_faces import quadrants

PAPER_PERCENTILE = 85  # at least half of every quadrant is bare paper, even under a big micropul
SPILL_DEPTH = 4.0 / 30.0  # how far (of a side) the edge's darkness is followed inwards
# A neighbour's soft shadow (the lamp low beside the board) reaches further, fading slowly: where
# the edge's middle grows only lighter that far, its darkness is followed this deep.
SHADOW_DEPTH = 7.5 / 30.0
SHADOW_RISE = 0.01  # darkness regained beyond SPILL_RISE_FROM: ink (a big micropul's ring), not a shadow
SPILL_RISE_FROM = 0.07  # of a side: nearer the edge the gap and the bevel make the profile uneven
SPILL_STRIP = 0.12  # half-width (of a side) of the edge's middle, where no mark is printed


def tile_darkness(grey: np.ndarray, side_px: int, margin_px: int,
                  seen: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Ink darkness (N, side, side) in [0, 1] of tile patches `grey` (N, side + 2 margin, same),
    and each quadrant's paper white (N, 4) in grey levels (order ul, ur, ll, lr). `seen`: see
    remove_edge_spill."""
    tile = grey[:, margin_px:margin_px + side_px, margin_px:margin_px + side_px].astype(np.float32)
    dark, whites = _quadrant_darkness(tile) if side_px % 2 == 0 else _quadrant_darkness_odd(tile)
    np.clip(dark, 0.0, 1.0, out=dark)
    return remove_edge_spill(dark, seen), whites


def _quadrant_darkness(tile: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """1 - grey / its quadrant's paper white (N, side, side), unclipped, and the whites (N, 4) (ul, ur,
    ll, lr) of float32 patches of an even side: the four quadrants in one array, one partition and
    one division for all (quadrant by quadrant, the calls cost more than the arithmetic): per pixel
    the same float32 steps, the same white (the same order statistic), so the same numbers."""
    n, side, _ = tile.shape
    half = side // 2
    quads = quadrants(tile, half)
    kth = int(round(PAPER_PERCENTILE / 100 * (half * half - 1)))
    whites = np.ascontiguousarray(np.partition(quads, kth, axis=2)[:, :, kth])
    dark = 1.0 - quads / np.maximum(whites, 1.0)[:, :, None]
    return dark.reshape(n, 2, 2, half, half).transpose(0, 1, 3, 2, 4).reshape(n, side, side), whites


def _quadrant_darkness_odd(tile: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """_quadrant_darkness for an odd side (quadrants of unequal sizes), quadrant by quadrant."""
    n = len(tile)
    side_px = tile.shape[1]
    half = side_px // 2
    dark = np.empty_like(tile)
    whites = np.empty((n, 4), np.float32)
    for k, (ys, xs) in enumerate(((slice(0, half), slice(0, half)), (slice(0, half), slice(half, side_px)),
                                  (slice(half, side_px), slice(0, half)),
                                  (slice(half, side_px), slice(half, side_px)))):
        block = tile[:, ys, xs]
        flat = block.reshape(n, -1)
        kth = int(round(PAPER_PERCENTILE / 100 * (flat.shape[1] - 1)))
        white = np.partition(flat, kth, axis=1)[:, kth] if n else np.zeros(0, np.float32)
        whites[:, k] = white
        dark[:, ys, xs] = 1.0 - block / np.maximum(white, 1.0)[:, None, None]
    return dark, whites


def remove_edge_spill(dark: np.ndarray, seen: np.ndarray | None = None) -> np.ndarray:
    """Darkness minus what the four edges bring in (a blurred darker surround, a neighbour's
    shadow): each edge's fade is read in the middle of the edge and removed along it; at a corner
    both edges add up as light blocked twice (1 - (1 - a)(1 - b)).

    The fade is followed SPILL_DEPTH deep and brought to nothing there, unless it keeps growing
    lighter all the way to SHADOW_DEPTH: then it is a soft shadow, removed as deep as it was
    measured (left half-removed, its remains at the corner where two edges meet look like a
    one-dot catalyst). A profile that darkens again has met ink (a big micropul's ring reaches
    within 3.6 mm of the edge's middle): there only the short fade is taken.

    `seen` (N, side, side), 0 where a stone leans over the tile or shades it, else 1: such pixels
    are no edge's fade. A stone beside an edge's middle made its profile dark all the way in, and
    that darkness taken off the whole edge left a one-dot catalyst in the corner too faint to read
    (seed 5782: read as blank, the tile **wrong**). Where a stone hides almost all of an edge's
    middle (less than MIN_SEEN_SHARE of it at some depth) the fade is measured over all of it
    there, as without stones: left in place, a hand's shadow along that edge looked like ink (5877).
    A shade over part of an edge only, away from stones, is taken off where the edge's outer band
    shows it (_uneven_edges: a fingertip's shade, seed 2100013).
    """
    n, side, _ = dark.shape
    short = max(2, int(round(SPILL_DEPTH * side)))
    depth = max(short + 1, int(round(SHADOW_DEPTH * side)))
    lo, hi = side // 2 - int(round(SPILL_STRIP * side)), side // 2 + int(round(SPILL_STRIP * side))
    strips = _edge_strips(dark, depth, lo, hi)
    profiles = tuple(strip.mean(axis=2) for strip in strips)  # (N, depth) each, row 0 outermost
    if seen is not None and not seen.all():
        # Only the patches with a pixel unseen (near a stone) can change: the others keep their plain
        # means (as _seen_profile leaves them), and are not weighed again for nothing.
        part = (seen <= 0.5).reshape(n, -1).any(axis=1)
        if part.any():
            profiles = tuple(p.copy() for p in profiles)
            for p, d, s in zip(profiles, _edge_strips(dark[part], depth, lo, hi), _edge_strips(seen[part], depth, lo, hi)):
                p[part] = _seen_profile(p[part], d, s)
    near = np.zeros(depth, np.float32)
    near[:short] = np.linspace(1.0, 0.0, short, dtype=np.float32) ** 0.5  # nothing is left at `short`
    # The shadow's fade: as measured over the first two thirds, then brought down to nothing.
    deep = np.clip((depth - np.arange(depth)) / (depth / 3.0), 0.0, 1.0).astype(np.float32)
    start = int(round(SPILL_RISE_FROM * side))
    fields = []
    for p in profiles:
        lightest = np.minimum.accumulate(p, axis=1)  # darkness only fades inwards
        inked = ((p - lightest)[:, start:] > SHADOW_RISE).any(axis=1)
        f = np.zeros((n, side), np.float32)
        f[:, :depth] = lightest * np.where(inked[:, None], near[None], deep[None])
        fields.append(f)
    top, bottom, left, right = fields
    rows = (1 - top)[:, :, None] * (1 - bottom[:, ::-1])[:, :, None]
    # The same products and differences as written out, in one tile-stack buffer.
    out = np.multiply(rows, (1 - left)[:, None, :])
    np.multiply(out, (1 - right[:, ::-1])[:, None, :], out=out)  # what is kept of the light
    uneven, along = _uneven_edges(dark)
    if seen is not None and uneven.any():
        # Near a stone the fade is measured past its shade already (above): its body darkens the band.
        idx = np.nonzero(uneven)[0]
        uneven[idx] = (seen[idx] > 0.5).reshape(len(idx), -1).all(axis=1)
    if uneven.any():
        out[uneven] = _kept_along(tuple(f[uneven] for f in fields), tuple(a[uneven] for a in along))
    np.subtract(1.0, out, out=out)
    np.subtract(dark, out, out=out)
    return np.clip(out, 0.0, 1.0, out=out)


# A shade that falls over part of an edge only (a finger's or a hand's, beside the tile) darkens the
# edge's middle, and its fade taken off along the whole edge wipes a catalyst out in a corner it
# never reached (seed 2100013: a fingertip's shade over the middle of the lower edge, the one-dot
# in the lower-left corner read as blank, 6.9 ahead: the tile read **wrong**). How dark the edge's
# outer band is along it tells where the fade really lies: nothing is printed there (every mark
# lies 0.075 of a side or more inside the edge). Where that band is much lighter than in the middle
# somewhere along an edge, each edge's fade is scaled along it by the band's own darkness (never
# above the middle's); elsewhere the fade is one along the edge, as measured in its middle.
EDGE_BAND = (0.02, 0.07)  # of a side, from the edge: inside the tile's rim, outside every mark
EDGE_BAND_SMOOTH = 0.1  # of a side: the band's darkness is averaged this far along the edge
EDGE_BAND_MIN = 0.05  # darkness of the band in the edge's middle: a fainter fade is left as it is
# Somewhere along the edge the band is less dark than this share of its middle. At 0.5 a sixth of
# the patches cut on seeds 7040-7059 were uneven (a tile a few tenths of a pixel off its neighbours
# makes the gap beside it uneven) and read the same; at 0.25 under a tenth (2100013's tile: 0.09).
UNEVEN_SHARE = 0.25


def _uneven_edges(dark: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """((N,) bool: patches with an edge whose fade lies over part of it only, and (4, N, side) per
    edge (top, bottom, left, right) the band's darkness along it as a share of its middle's, in
    [0, 1]; 1 along an edge whose middle is too faint to tell)."""
    n, side, _ = dark.shape
    b0, b1 = max(1, int(round(EDGE_BAND[0] * side))), max(2, int(round(EDGE_BAND[1] * side)))
    lo, hi = side // 2 - int(round(SPILL_STRIP * side)), side // 2 + int(round(SPILL_STRIP * side))
    width = max(1, int(round(EDGE_BAND_SMOOTH * side)))
    bands = np.empty((4, n, side), np.float32)  # each edge's band summed over its depth, along the edge
    np.sum(dark[:, b0:b1, :], axis=1, out=bands[0])
    np.sum(dark[:, side - b1:side - b0, :], axis=1, out=bands[1])
    np.sum(dark[:, :, b0:b1], axis=2, out=bands[2])
    np.sum(dark[:, :, side - b1:side - b0], axis=2, out=bands[3])
    bands /= b1 - b0
    middle = bands[:, :, lo:hi].mean(axis=2)  # (4, N)
    flat = bands.reshape(4 * n, side)
    smooth = cv2.blur(flat, (width, 1), borderType=cv2.BORDER_REPLICATE).reshape(4, n, side) if n else bands
    told = middle >= EDGE_BAND_MIN
    share = np.clip(smooth / np.maximum(middle, EDGE_BAND_MIN)[:, :, None], 0.0, 1.0)
    share[~told] = 1.0
    uneven = (share.min(axis=2) < UNEVEN_SHARE).any(axis=0)
    return uneven, share


def _kept_along(fields: tuple[np.ndarray, ...], along) -> np.ndarray:
    """What is kept of the light (N, side, side) when each edge's fade (N, side, by depth) is scaled
    along the edge by `along` (N, side)."""
    top, bottom, left, right = fields
    a_top, a_bottom, a_left, a_right = along
    kept = np.multiply(top[:, :, None], a_top[:, None, :])
    np.subtract(1.0, kept, out=kept)
    term = np.empty_like(kept)
    for depth, share in ((bottom[:, ::-1][:, :, None], a_bottom[:, None, :]),
                         (left[:, None, :], a_left[:, :, None]),
                         (right[:, ::-1][:, None, :], a_right[:, :, None])):
        np.multiply(depth, share, out=term)  # one edge's fade at each pixel
        np.subtract(1.0, term, out=term)
        kept *= term
    return kept


MIN_SEEN_SHARE = 0.25  # of an edge's middle at each depth: less seen than this, no fade is measured


def _edge_strips(a: np.ndarray, depth: int, lo: int, hi: int) -> tuple[np.ndarray, ...]:
    """The middles of the four edges (N, depth, width), outermost row first: top, bottom, left, right."""
    return (a[:, :depth, lo:hi], a[:, ::-1, lo:hi][:, :depth],
            a[:, lo:hi, :depth].transpose(0, 2, 1), a[:, lo:hi, ::-1][:, :, :depth].transpose(0, 2, 1))


def _seen_profile(plain: np.ndarray, strip: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """An edge's fade (N, depth) over the pixels seen only; as measured over all of them where too
    few are seen (a stone over the edge's middle: what else is there is not known)."""
    w = (seen > 0.5).astype(np.float32)
    count = w.sum(axis=2)
    mean = (strip * w).sum(axis=2) / np.maximum(count, 1.0)
    enough = count >= MIN_SEEN_SHARE * strip.shape[2]
    out = np.where(enough, mean, plain).astype(np.float32)
    # Patches with nothing hidden keep the plain mean (the same numbers, whatever the order of addition).
    untouched = (w.min(axis=(1, 2)) > 0)
    out[untouched] = plain[untouched]
    return out


# A shadow's soft edge (a hand, a stone) or a lamp low beside the board grades the light across a
# tile: one white per quadrant then leaves the dark side of a quadrant looking inked. The white is
# then taken as a smooth surface: the paper of small blocks, fitted by a plane over the blocks
# that are paper (ink blocks, far below it, are dropped and the fit repeated).
GRADE_BLOCKS = 6  # per side: blocks of 5 mm, smaller than a micropul, so most hold paper
GRADE_PERCENTILE = 90
GRADE_INK = 0.12  # a block this much darker than the fitted white holds ink, not paper
GRADE_ROUNDS = 3


def graded_darkness(grey: np.ndarray, side_px: int, margin_px: int, seen: np.ndarray | None = None) -> np.ndarray:
    """Ink darkness (N, side, side) of tile patches `grey` as `tile_darkness`, against a paper white
    that varies smoothly (a plane) over each tile instead of one per quadrant."""
    n = len(grey)
    tile = grey[:, margin_px:margin_px + side_px, margin_px:margin_px + side_px].astype(np.float32)
    if n == 0:
        return tile
    b = side_px // GRADE_BLOCKS
    m = b * GRADE_BLOCKS
    blocks = tile[:, :m, :m].reshape(n, GRADE_BLOCKS, b, GRADE_BLOCKS, b).transpose(0, 1, 3, 2, 4)
    paper = np.percentile(blocks.reshape(n, GRADE_BLOCKS * GRADE_BLOCKS, -1), GRADE_PERCENTILE, axis=2)
    centres = (np.arange(GRADE_BLOCKS) + 0.5) * b / side_px - 0.5  # in tile sides, from the centre
    cy, cx = np.meshgrid(centres, centres, indexing="ij")
    design = np.stack([np.ones(cx.size), cx.ravel(), cy.ravel()], axis=1)  # (B, 3)
    coef = np.zeros((n, 3))
    for k in range(n):
        use = paper[k] >= np.median(paper[k])  # the brighter half to begin with: paper, mostly
        for _ in range(GRADE_ROUNDS):
            coef[k] = np.linalg.lstsq(design[use], paper[k, use], rcond=None)[0]
            fitted = design @ coef[k]
            use = paper[k] >= (1.0 - GRADE_INK) * fitted
            if use.sum() < 6:
                break
    px = (np.arange(side_px) + 0.5) / side_px - 0.5
    gy, gx = np.meshgrid(px, px, indexing="ij")
    white = coef[:, 0, None, None] + coef[:, 1, None, None] * gx[None] + coef[:, 2, None, None] * gy[None]
    dark = 1.0 - tile / np.maximum(white, 1.0).astype(np.float32)
    np.clip(dark, 0.0, 1.0, out=dark)
    return remove_edge_spill(dark, seen)
