"""Pip candidates: small round blobs darker (or brighter) than what surrounds them.

A pip is found at the scale where its radius is 2..6 px: the caller passes an image already
resized to that scale. Local contrast (the image minus a box mean a few pip sizes wide) makes
the search indifferent to uneven light; shape tests (fill of the bounding box, aspect) throw
out wood grain, text strokes and the rims of dice.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

# Pip radius range searched at one scale (px). A pyramid of scales covers the rest.
RADIUS_MIN = 1.6
RADIUS_MAX = 6.5

# A disc fills pi/4 of its bounding box; blur and JPEG blocks make small pips squarer.
_FILL_MIN = 0.55
_ASPECT_MAX = 1.7
# Weakest pip/face contrast (grey levels) we consider at all; tiny dark dice in dim light
# still show about this much.
MIN_CONTRAST = 10.0
RING_FLOOR = 0.3
RING_SHARE = 0.4
_CUTS = (5, 10, 20, 40, 80, 140)
_CORE_X = np.array([0.0, 1.0, -1.0, 0.0, 0.0])
_CORE_Y = np.array([0.0, 0.0, 0.0, 1.0, -1.0])
_RING_X = np.cos(np.linspace(0, 2 * np.pi, 16, endpoint=False))
_RING_Y = np.sin(np.linspace(0, 2 * np.pi, 16, endpoint=False))


@dataclass(frozen=True)
class Pip:
    x: float
    y: float
    radius: float
    dark: bool  # True: a dark pip on a lighter face
    contrast: float  # face level minus pip level (positive), grey levels
    face: float  # grey level of the face just around the pip
    elongation: float  # second-moment ratio x/y spread (>1: wider than tall)


def find_pips(grey: np.ndarray, dark: bool, radius_max: float = RADIUS_MAX,
              radius_min: float = RADIUS_MIN, min_contrast: float = MIN_CONTRAST,
              ring_floor: float = RING_FLOOR, ring_share: float = RING_SHARE,
              first_cut: float | None = None, local: tuple[np.ndarray, np.ndarray] | None = None) -> list[Pip]:
    """Round blobs of one polarity whose radius lies in [radius_min, radius_max] px.

    `ring_floor`: how much lighter (for a dark pip) than the pip the darkest point just around
    it must be, as a share of the pip's contrast. Grain and strokes run on through a blob and
    fail it; a pip near a die's shaded rim passes a lower floor. `ring_share`: the share of the
    ring at the face's level (the rest may be neighbouring pips or the die's rim). `first_cut`:
    the shallowest cut of the local contrast (default: half `min_contrast`); a blurred pip a
    few pixels wide stands out as a blob only at a shallow cut, though its core is dark.
    `local`: `local_contrast(grey, dark, radius_max)` when the caller has it already (the same
    image searched twice)."""
    g, diff = local_contrast(grey, dark, radius_max) if local is None else local
    H, W = grey.shape
    found: list[tuple[float, Pip]] = []
    # Several cuts of the local contrast, as MSER does: a pip that merges with a neighbour or a
    # shadow at a shallow cut stands alone at a deeper one. A deeper cut is only needed where
    # the shallower one left blobs too big to be one pip.
    regions = [(0, 0, W, H)]
    start = min_contrast * 0.5 if first_cut is None else first_cut
    for cut in (c for c in _CUTS if c >= start):
        deeper, blobs = [], []
        for x0, y0, x1, y1 in regions:
            candidates, big = _blobs(diff[y0:y1, x0:x1], (x0, y0), cut, radius_min, radius_max, W, H)
            blobs.append(candidates)
            deeper.extend(big)
        # the candidates of every region of this cut are measured at once, in region order
        found.extend((cut, p) for p in _pips(g, np.concatenate(blobs), dark, min_contrast, ring_floor, ring_share))
        # many small regions cost more than one pass over the whole image
        regions = deeper if len(deeper) <= 24 else [(0, 0, W, H)]
        if not regions:
            break
    found.sort(key=lambda cp: cp[0])
    return _dedupe(found)


def local_contrast(grey: np.ndarray, dark: bool, radius_max: float = RADIUS_MAX) -> tuple[np.ndarray, np.ndarray]:
    """The image as int16 and how much darker (brighter) each pixel is than the mean of a box a
    few pip sizes wide around it (uint8, 0 where it is not)."""
    k = int(round(radius_max * 5)) | 1
    mean = cv2.blur(grey, (k, k))
    diff = cv2.subtract(mean, grey) if dark else cv2.subtract(grey, mean)  # saturates at 0
    return grey.astype(np.int16), diff


def _dedupe(found: list[tuple[float, Pip]]) -> list[Pip]:
    """One pip per place. A shallow cut's blob that holds two or more deeper blobs is two pips
    merged (or a pip and a shadow): the deeper ones are kept. Otherwise the shallowest blob, which
    has the fullest outline, stands for the place."""
    if not found:
        return []
    cut = np.array([c for c, _ in found])
    xy = np.array([(p.x, p.y) for _, p in found])
    r = np.array([p.radius for _, p in found])
    out: list[Pip] = []
    taken = np.zeros(len(found), bool)
    for k in range(len(found)):  # found is ordered by cut, shallowest first
        d = np.hypot(xy[:, 0] - xy[k, 0], xy[:, 1] - xy[k, 1])
        if np.count_nonzero((cut > cut[k]) & (d < r[k])) >= 2:
            continue
        if np.any(taken & (d < np.maximum(r, r[k]))):
            continue
        taken[k] = True
        out.append(found[k][1])
    return out


def _blobs(diff: np.ndarray, offset: tuple[int, int], cut: float, radius_min: float, radius_max: float,
           W: int, H: int) -> tuple[np.ndarray, list[tuple[int, int, int, int]]]:
    """The pip-shaped blobs of `diff > cut` in one region, as rows (x, y, radius, inner, width,
    height; full-image pixels, inner: not cut by the region's border), and the boxes (full-image
    pixels) of blobs too big for one pip, where a deeper cut should look again."""
    none = np.empty((0, 6))
    mask = cv2.threshold(diff, cut, 1, cv2.THRESH_BINARY)[1]  # diff > cut (whole grey levels: > floor(cut))
    count = cv2.countNonZero(mask)
    if count == 0:  # (a third of the deeper cuts' regions)
        return none, []
    n, stats, centroids = _components(mask, count)
    if n <= 1:
        return none, []
    ox, oy = offset
    area = stats[1:, cv2.CC_STAT_AREA].astype(np.float64)
    w = stats[1:, cv2.CC_STAT_WIDTH].astype(np.float64)
    h = stats[1:, cv2.CC_STAT_HEIGHT].astype(np.float64)
    fill = area / (w * h)
    aspect = np.maximum(w, h) / np.minimum(w, h)
    a_min, a_max = np.pi * radius_min ** 2 * 0.8, np.pi * radius_max ** 2 * 1.3
    pip_like = (area >= a_min) & (area <= a_max) & (fill >= _FILL_MIN) & (aspect <= _ASPECT_MAX)
    keep = np.flatnonzero(pip_like) + 1
    # too big or too odd for one pip, yet no bigger than a die's face of pips: look deeper
    again = np.flatnonzero((area >= 2 * a_min) & (area <= 60 * a_max) & ~pip_like) + 1
    big: list[tuple[int, int, int, int]] = []
    if again.size:
        pad = int(math.ceil(radius_max))
        s = stats[again].astype(np.int64)
        boxes = np.column_stack([np.maximum(s[:, 0] + (ox - pad), 0), np.maximum(s[:, 1] + (oy - pad), 0),
                                 np.minimum(s[:, 0] + s[:, 2] + (ox + pad), W), np.minimum(s[:, 1] + s[:, 3] + (oy + pad), H)])
        big = [tuple(b) for b in boxes.tolist()]
    if keep.size == 0:
        return none, big
    x0, y0 = stats[keep, 0], stats[keep, 1]
    rh, rw = diff.shape  # a blob cut by the region's (or the image's) border is not seen whole
    inner = (x0 > 0) & (y0 > 0) & (x0 + stats[keep, 2] < rw) & (y0 + stats[keep, 3] < rh)
    return np.column_stack([centroids[keep, 0] + ox, centroids[keep, 1] + oy,
                            np.sqrt(stats[keep, cv2.CC_STAT_AREA] / np.pi), inner,
                            stats[keep, 2], stats[keep, 3]]).astype(np.float64), big


def _pips(g: np.ndarray, blobs: np.ndarray, dark: bool, min_contrast: float, ring_floor: float,
          ring_share: float) -> list[Pip]:
    """The blobs (rows of `_blobs`) that are pips, judged on a few sample points of the image
    `g` (int16)."""
    if len(blobs) == 0:
        return []
    cx, cy, r, inner, ww, hh = blobs.T
    # Measure every candidate at once on a few sample points: the core (centre and four points
    # at 0.4 r) and a ring at 1.35 r + 1 px, just outside the pip, on the face (pips of a small
    # die come close to its rounded edge).
    core = _sample(g, cx[:, None] + np.outer(0.4 * r, _CORE_X), cy[:, None] + np.outer(0.4 * r, _CORE_Y)).mean(1)
    rr = 1.35 * r + 1.0
    ring = _sample(g, cx[:, None] + np.outer(rr, _RING_X), cy[:, None] + np.outer(rr, _RING_Y))
    # The face is the ring's lighter part (darker for a bright pip): neighbouring pips of a 6 or
    # the shaded rim of a small die may cover half the ring. But a pip is darker than ALL its
    # ring, while wood grain, a crease or a letter stroke runs on through it.
    face = _percentile_16(ring, 70 if dark else 30)
    contrast = (face - core) if dark else (core - face)
    closest = (ring.min(axis=1) - core) if dark else (core - ring.max(axis=1))
    level = np.abs(ring - face[:, None]) <= np.maximum(0.3 * contrast, 4.0)[:, None]
    ok = (inner > 0) & (contrast >= min_contrast) & (closest >= ring_floor * contrast) & (level.mean(axis=1) >= ring_share)
    return [Pip(float(cx[k]), float(cy[k]), float(r[k]), dark, float(contrast[k]), float(face[k]),
                float(ww[k] / hh[k])) for k in np.flatnonzero(ok)]


def _components(mask: np.ndarray, count: int | None = None) -> tuple[int, np.ndarray, np.ndarray]:
    """The count, stats and centroids of cv2.connectedComponentsWithStats(mask, connectivity=4),
    the same components in the same order, in about three quarters of the time: Wu's algorithm
    writing 16-bit labels when there cannot be more than 16 bits' worth (the label image itself
    is not used). `count`: the mask's set pixels, when known."""
    ltype = cv2.CV_16U if (cv2.countNonZero(mask) if count is None else count) < 65535 else cv2.CV_32S
    n, _labels, stats, centroids = cv2.connectedComponentsWithStatsWithAlgorithm(mask, 4, ltype, cv2.CCL_WU)
    return n, stats, centroids


def _percentile_16(ring: np.ndarray, q: int) -> np.ndarray:
    """np.percentile(ring, q, axis=1) for rows of 16 samples and q = 30 or 70, the same numbers
    at a fraction of the cost: the linear method falls half-way between two order statistics
    (4 and 5, or 10 and 11), and numpy takes b - (b - a) / 2 there."""
    assert ring.shape[1] == len(_RING_X) == 16
    lo = {30: 4, 70: 10}[q]
    part = np.partition(ring, (lo, lo + 1), axis=1)
    a, b = part[:, lo], part[:, lo + 1]
    return b - (b - a) * 0.5


def _sample(g: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Grey levels at (rounded) points, clamped to the image."""
    # np.minimum / np.maximum: what np.clip does, without its Python-level wrapper
    xi = np.minimum(np.maximum(np.rint(xs).astype(np.intp), 0), g.shape[1] - 1)
    yi = np.minimum(np.maximum(np.rint(ys).astype(np.intp), 0), g.shape[0] - 1)
    return g[yi, xi].astype(np.float64)
