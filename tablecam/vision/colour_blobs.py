"""Round coloured pieces (stones, pawns) lying on neutral ground (paper, printed black and white).

Colourfulness is measured as the spread between a pixel's channels relative to the local paper
white, not to the pixel's own brightness: black ink then stays neutral even where sensor noise
tints it, while a red or blue stone stands out at any brightness. The image must be white
balanced (calibration.light), so that paper is grey whatever the lamp.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

MIN_COLOURFULNESS = 0.2  # paper and ink stay below ~0.08 after white balance, stones reach 0.4-0.8


@dataclass(frozen=True)
class Blob:
    centre_px: tuple[float, float]
    diameter_px: float
    bgr: tuple[float, float, float]  # median colour of the blob's inner part
    split: bool = False  # found only with its more colourful pixels (it touched something coloured)
    part: bool = False  # not round, but within one piece's disc: a piece partly hidden (see PART_OF_DISC)


def colourfulness(bgr: np.ndarray, white: np.ndarray) -> np.ndarray:
    """(max - min channel) / local white, float32."""
    b, g, r = cv2.split(bgr)
    spread = cv2.subtract(cv2.max(cv2.max(b, g), r), cv2.min(cv2.min(b, g), r))
    return spread.astype(np.float32) / np.maximum(white.astype(np.float32), 16.0)


def blobs_in_regions(bgr: np.ndarray, white: np.ndarray, regions: list[np.ndarray], diameter_px: float,
                     size_tolerance: float = 0.45, max_coloured: float = 0.5, balance=None,
                     max_growth: float | None = None) -> list[Blob]:
    """Coloured round blobs of about `diameter_px` (area within `size_tolerance` of the disc's, about
    as wide as high, filling most of its box; bigger coloured areas - a hand, a sleeve - do not count;
    part of a vivid stone a finger cut off does, see `_blobs`) inside each polygon of `regions` (pixel
    corners) on its own, so that a piece near a region's edge is not joined to coloured things
    beyond it (a cloth table next to a tile). A region mostly coloured (bare table, a hand) is
    skipped. `balance`: a function that white-balances a BGR image, applied to the regions only. `max_growth`: how much larger than the
    disc (relative) a blob may be, when not `size_tolerance` (blur and a slanted view spread a
    piece's colour outwards more than they shrink it)."""
    h, w = white.shape
    if not regions:
        return []
    box = np.concatenate(regions)
    bx0, by0 = np.maximum(np.floor(box.min(axis=0)).astype(int), 0)
    bx1, by1 = np.minimum(np.ceil(box.max(axis=0)).astype(int) + 1, (w, h))
    if bx1 - bx0 < 3 or by1 - by0 < 3:
        return []
    roi = bgr[by0:by1, bx0:bx1]
    roi_white = white[by0:by1, bx0:bx1]
    if balance is not None:
        roi = balance(roi)
        # The local white of the balanced image: the closing of its grey, as `white` was made.
        k = max(3, int(round(diameter_px * 1.2)) | 1)
        roi_white = cv2.morphologyEx(cv2.cvtColor(roi, cv2.COLOR_BGR2GRAY), cv2.MORPH_CLOSE,
                                     cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    # Everything below stays inside the regions' box (every region's own box lies in it): arrays the
    # size of the whole image would cost more in fresh memory pages than the work on the regions.
    strength = colourfulness(roi, roi_white)
    colourful = strength > MIN_COLOURFULNESS
    # A blob is at most as large as the coloured pixels it is made of: a region with fewer than the
    # smallest piece's area holds none.
    least = (1 - size_tolerance) * (math.pi * diameter_px * diameter_px / 4)
    out = []
    # Every region's box at once (the same numbers as region by region).
    lows = np.maximum(np.floor(np.array([p.min(axis=0) for p in regions])).astype(int), 0).tolist()
    highs = np.minimum(np.ceil(np.array([p.max(axis=0) for p in regions])).astype(int) + 1, (w, h)).tolist()
    for poly, (x0, y0), (x1, y1) in zip(regions, lows, highs):
        if x1 - x0 < 3 or y1 - y0 < 3:
            continue
        box = slice(y0 - by0, y1 - by0), slice(x0 - bx0, x1 - bx0)
        if np.count_nonzero(colourful[box]) < least:
            continue  # fewer coloured pixels in its whole box than a piece has: most cells, passed over
        inside = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(inside, np.round(poly - (x0, y0)).astype(np.int32), 1)
        sel = colourful[box] & inside.astype(bool)
        coloured = np.count_nonzero(sel)
        if coloured > max_coloured * np.count_nonzero(inside) or coloured < least:
            continue
        rim = (inside - cv2.erode(inside, np.ones((3, 3), np.uint8), borderValue=0)).astype(bool)  # the region's edge
        for b in _blobs(roi[box], sel, diameter_px, size_tolerance, max_growth, strength[box], rim=rim):
            out.append(Blob((b.centre_px[0] + x0, b.centre_px[1] + y0), b.diameter_px, b.bgr, b.split, b.part))
    return out


# A piece touching something less colourful (a fingertip, a sleeve: skin is 0.3-0.5 once white
# balanced) joins it in one blob too large for a piece: that blob is looked at again with only its
# more colourful pixels, which leaves the piece alone (skin has a more colourful core too: the
# caller asks more of the colour of a blob found so, see Blob.split).
SPLIT_COLOURFULNESS = (0.35, 0.5)


def _blobs(bgr: np.ndarray, colourful: np.ndarray, diameter_px: float, size_tolerance: float,
           max_growth: float | None = None, strength: np.ndarray | None = None,
           levels: tuple[float, ...] = SPLIT_COLOURFULNESS, rim: np.ndarray | None = None) -> list[Blob]:
    mask = colourful.astype(np.uint8)
    k = max(3, int(round(diameter_px / 5)) | 1)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    count, labels, stats, centroids = cv2.connectedComponentsWithStats(mask, connectivity=8)
    area_disc = math.pi * diameter_px * diameter_px / 4
    grow = size_tolerance if max_growth is None else max_growth
    out = []
    for i in range(1, count):
        x, y, w, h, area = stats[i]
        if area > (1 + grow) * area_disc and strength is not None and levels:
            core = (labels[y:y + h, x:x + w] == i) & (strength[y:y + h, x:x + w] > levels[0])
            for b in _blobs(bgr[y:y + h, x:x + w], core, diameter_px, size_tolerance, max_growth,
                            strength[y:y + h, x:x + w], levels[1:], None if rim is None else rim[y:y + h, x:x + w]):
                out.append(Blob((b.centre_px[0] + x, b.centre_px[1] + y), b.diameter_px, b.bgr, True, b.part))
            continue
        if not (1 - size_tolerance) * area_disc <= area <= (1 + grow) * area_disc:
            continue
        blob = (labels[y:y + h, x:x + w] == i).astype(np.uint8)
        part = False
        if max(w, h) > 1.5 * min(w, h) or area < 0.6 * w * h:
            # Not round: a sleeve's or a finger's edge, or a piece a finger or its shade half hides,
            # which still lies within one piece's disc (the caller asks more of its colour).
            _, radius = cv2.minEnclosingCircle(cv2.findNonZero(blob))
            if 2 * radius > PART_OF_DISC * diameter_px:
                continue
            if rim is not None and np.count_nonzero(blob.astype(bool) & rim[y:y + h, x:x + w]) >= RIM_CUT * diameter_px:
                continue  # cut by the region's edge, not by a finger: something coloured goes on beyond the cell
            part = True
        inner = cv2.erode(blob, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        use = inner if np.count_nonzero(inner) >= 6 else blob
        pixels = bgr[y:y + h, x:x + w][use.astype(bool)].astype(np.float32)
        # The lamp's highlight on a glossy piece is white: take the colour from its most coloured half.
        spread = pixels.max(axis=1) - pixels.min(axis=1)
        colour = np.median(pixels[spread >= np.median(spread)], axis=0)
        out.append(Blob((float(centroids[i][0]), float(centroids[i][1])), 2 * math.sqrt(area / math.pi),
                        tuple(float(c) for c in colour), part=part))
    return out


# A blob that is not round counts as part of a piece when it fits in a circle this much wider than
# the piece: the parts of stones a finger or its shade left in view fitted 0.82-1.15 of a stone's
# disc (seeds 6496, 6620, 6629, 6487, 5569); a finger's or a sleeve's coloured edge is longer.
PART_OF_DISC = 1.2
RIM_CUT = 0.3
