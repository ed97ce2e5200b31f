"""Printed ink on paper: darkness relative to the local paper white, and disc-sized spots of it.

Light over a table is uneven (a lamp's fall-off, a person's shadow, glare), so "dark" only means
something relative to the paper right around it. A morphological closing with a window larger
than the marks (but smaller than a tile) removes the marks and leaves the local white; the
darkness of a pixel is how much of that white it lacks: 0 on paper, about 0.9 on black ink,
whatever the light.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import cv2
import numpy as np


def darkness(grey: np.ndarray, window_px: int) -> np.ndarray:
    """1 - grey / local white, float32 in [0, 1]; the white is the closing over `window_px`."""
    k = max(3, int(window_px) | 1)
    white = cv2.morphologyEx(grey, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    g = grey.astype(np.float32)
    d = 1.0 - g / np.maximum(white.astype(np.float32), 1.0)
    return np.clip(d, 0.0, 1.0, out=d)


@dataclass(frozen=True, eq=False)
class Spots:
    """Centres (N, 2) in pixels of the image they were found in, and their strength (N,)."""

    centres_px: np.ndarray
    strength: np.ndarray


def disc_spots(dark: np.ndarray, px_per_mm: float, diameter_mm: float, min_strength: float) -> Spots:
    """Solid dark discs and dark rings of about `diameter_mm`, each with a bright surround.

    Three box means (about 0.55, 1.0 and 1.5 diameters wide) make two contrasts: a solid disc
    is dark in the middle against a bright surround; a ring is dark in the ring zone against
    both its bright middle and surround. A thin line or an edge crossing the boxes darkens them
    more alike and scores well below a disc (clutter is sorted out later: a lattice of sites, a
    paper surround). Box filters cost the same at any size.
    """
    h, w = dark.shape
    off = int(round(SIDE_OFFSET * diameter_mm * px_per_mm))

    def box_sum(mm: float, name: str) -> tuple[np.ndarray, float]:
        k = max(3, int(round(mm * px_per_mm)) | 1)
        return cv2.boxFilter(dark, cv2.CV_32F, (k, k), dst=work_array(name, (h, w)), normalize=False), float(k * k)

    mid_sum, a_mid = box_sum(0.55 * diameter_mm, "mid")
    disc_sum, a_disc = box_sum(1.0 * diameter_mm, "disc")
    side_sum, a_side = box_sum(SIDE_BOX * diameter_mm, "side")
    # cv2 arithmetic: one pass per step over the whole play area, written into the buffers already
    # there (a fresh play-area-sized array costs more in page faults than the arithmetic itself).
    ring = cv2.addWeighted(disc_sum, 1.0 / (a_disc - a_mid), mid_sum, -1.0 / (a_disc - a_mid), 0.0, dst=disc_sum)
    middle = cv2.multiply(mid_sum, 1.0 / a_mid, dst=mid_sum)
    # The surround is the darkest of four boxes beside the mark (left, right, above, below): a
    # disc has paper all round, a line or an edge runs into at least one of them.
    side = cv2.multiply(side_sum, 1.0 / a_side, dst=side_sum)
    # out[y, x] = the largest of side[y, x +- off] and side[y +- off, x], the frame's edge repeated
    # outwards: one dilation by those four points (a maximum, exact), not a padded copy and three
    # passes of cv2.max.
    surround = cv2.dilate(side, _four_points(off), dst=work_array("other", (h, w)), borderType=cv2.BORDER_REPLICATE)
    solid_score = cv2.subtract(middle, surround, dst=side_sum)
    ring_score = cv2.subtract(ring, cv2.max(middle, surround, dst=surround), dst=ring)
    score = cv2.max(solid_score, ring_score, dst=solid_score)
    k = max(3, int(round(0.8 * diameter_mm * px_per_mm)) | 1)
    peak = cv2.dilate(score, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)), dst=surround)
    # Strong enough first (a few per cent of the play area), then a peak: the same spots in the
    # same order, without two more play-area-sized comparisons.
    # cv2's threshold mask and its list of points: the same pixels in the same (row-major) order as
    # np.nonzero(score > min_strength), the threshold taken in float32 as numpy does, in a third of
    # the time (numpy's nonzero scanned the whole play area at 2 ms a frame).
    strong = cv2.compare(score, min_strength, cv2.CMP_GT, dst=work_array("strong", (h, w), np.uint8))
    found = cv2.findNonZero(strong)
    if found is None:
        return Spots(np.zeros((0, 2)), np.zeros(0))
    found = found.reshape(-1, 2).astype(np.intp)
    xs, ys = found[:, 0], found[:, 1]
    at_peak = score[ys, xs] >= peak[ys, xs]
    ys, xs = ys[at_peak], xs[at_peak]
    if len(xs) == 0:
        return Spots(np.zeros((0, 2)), np.zeros(0))
    inside = (xs > 0) & (xs < w - 1) & (ys > 0) & (ys < h - 1)
    xs, ys = xs[inside], ys[inside]
    # Sub-pixel: the vertex of a parabola through the peak and its two neighbours, per axis.
    c = score[ys, xs]
    dx = _vertex(score[ys, xs - 1], c, score[ys, xs + 1])
    dy = _vertex(score[ys - 1, xs], c, score[ys + 1, xs])
    centres = np.column_stack([xs + dx, ys + dy]).astype(np.float64)
    # The score's peak leans away from dark surroundings (a tile's edge, the table beyond): the
    # centroid of the mark's own ink is the better centre.
    centres = ink_centroids(dark, centres, 0.6 * diameter_mm * px_per_mm)
    return Spots(centres, c.astype(np.float64))


def _four_points(off: int) -> np.ndarray:
    """A dilation kernel of the four points `off` pixels left, right, above and below its centre."""
    kernel = np.zeros((2 * off + 1, 2 * off + 1), np.uint8)
    kernel[off, 0] = kernel[off, 2 * off] = kernel[0, off] = kernel[2 * off, off] = 1
    return kernel


_WORK = threading.local()


def work_array(name: str, shape: tuple[int, ...], dtype=np.float32) -> np.ndarray:
    """A work array, kept for this thread between calls under `name` (its contents are overwritten
    by the next call): the play area is the same size frame after frame, and fresh arrays of its
    size cost more in page faults than the filtering done in them (disc_spots' temporaries took
    15 ms a frame fresh, 8 ms kept). Only for arrays that do not outlive the reading of a frame."""
    arrays = _WORK.__dict__.setdefault("arrays", {})
    a = arrays.get(name)
    if a is None or a.shape != shape or a.dtype != dtype:
        a = arrays[name] = np.empty(shape, dtype)
    return a


def ink_centroids(dark: np.ndarray, centres: np.ndarray, radius_px: float, rounds: int = 2) -> np.ndarray:
    """Darkness-weighted centroids within `radius_px` of each centre (N, 2), iterated."""
    r = int(np.ceil(radius_px))
    oy, ox = np.mgrid[-r:r + 1, -r:r + 1]
    disc = (ox * ox + oy * oy) <= radius_px * radius_px
    ox, oy = ox[disc].astype(np.float64), oy[disc].astype(np.float64)
    h, w = dark.shape
    out = centres.astype(np.float64).copy()
    for _ in range(rounds):
        base = np.round(out).astype(int)
        xs = np.clip(base[:, 0:1] + ox.astype(int), 0, w - 1)
        ys = np.clip(base[:, 1:2] + oy.astype(int), 0, h - 1)
        wgt = dark[ys, xs].astype(np.float64)
        total = wgt.sum(axis=1)
        ok = total > 1e-6
        cx = (wgt * xs).sum(axis=1) / np.where(ok, total, 1.0)
        cy = (wgt * ys).sum(axis=1) / np.where(ok, total, 1.0)
        out[ok] = np.column_stack([cx, cy])[ok]
    return out


SIDE_BOX = 0.4  # of the diameter: the four boxes beside a mark
SIDE_OFFSET = 0.8  # of the diameter: how far their centres are from the mark's


def _vertex(left: np.ndarray, mid: np.ndarray, right: np.ndarray) -> np.ndarray:
    denom = left - 2 * mid + right
    safe = np.where(np.abs(denom) > 1e-9, denom, -1.0)
    return np.clip(0.5 * (left - right) / safe, -0.5, 0.5)
