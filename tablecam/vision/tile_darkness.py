"""From a grey patch of a square printed tile (with a margin of table around it) to the darkness of
its ink alone.

Two things besides ink darken a printed tile in a photo: the light (uneven, shadows, glare) and
what lies beyond its edges (a darker table, the gap to the next tile), which blur carries a few
millimetres inwards. The first is taken out by measuring each quadrant's own paper white; the
second by measuring, along the middle of each edge (where no mark is ever printed), how the
darkness fades inwards, and removing that fade along the whole edge.
"""

from __future__ import annotations

import numpy as np

PAPER_PERCENTILE = 85  # at least half of every quadrant is bare paper, even under a big micropul
SPILL_DEPTH = 4.0 / 30.0  # how far (of a side) the edge's darkness is followed inwards
SPILL_STRIP = 0.12  # half-width (of a side) of the edge's middle, where no mark is printed


def tile_darkness(grey: np.ndarray, side_px: int, margin_px: int) -> tuple[np.ndarray, np.ndarray]:
    """Ink darkness (N, side, side) in [0, 1] of tile patches `grey` (N, side + 2 margin, same),
    and each quadrant's paper white (N, 4) in grey levels (order ul, ur, ll, lr)."""
    n = len(grey)
    half = side_px // 2
    tile = grey[:, margin_px:margin_px + side_px, margin_px:margin_px + side_px].astype(np.float32)
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
    np.clip(dark, 0.0, 1.0, out=dark)
    return remove_edge_spill(dark), whites


def remove_edge_spill(dark: np.ndarray) -> np.ndarray:
    """Darkness minus what the four edges bring in (a blurred darker surround): each edge's fade is
    read in the middle of the edge and removed along it; at a corner both edges add up as light
    blocked twice (1 - (1 - a)(1 - b))."""
    n, side, _ = dark.shape
    depth = max(2, int(round(SPILL_DEPTH * side)))
    lo, hi = side // 2 - int(round(SPILL_STRIP * side)), side // 2 + int(round(SPILL_STRIP * side))
    profiles = (dark[:, :depth, lo:hi].mean(axis=2),  # top edge, row 0 outermost
                dark[:, ::-1, lo:hi][:, :depth].mean(axis=2),  # bottom
                dark[:, lo:hi, :depth].mean(axis=1),  # left
                dark[:, lo:hi, ::-1][:, :, :depth].mean(axis=1))  # right
    fade = np.linspace(1.0, 0.0, depth, dtype=np.float32) ** 0.5  # nothing is left at `depth`
    fields = []
    for p in profiles:
        p = np.minimum.accumulate(p, axis=1) * fade  # darkness only fades inwards
        f = np.zeros((n, side), np.float32)
        f[:, :depth] = p
        fields.append(f)
    top, bottom, left, right = fields
    kept = ((1 - top)[:, :, None] * (1 - bottom[:, ::-1])[:, :, None]
            * (1 - left)[:, None, :] * (1 - right[:, ::-1])[:, None, :])
    return np.clip(dark - (1.0 - kept), 0.0, 1.0)
