"""Sticks lying beside the board (taken by the players), reported with slot null.

Colourful places away from the board are found on the coarse top-down image; each one is then
read from the raw frame at a finer scale: every pixel gets the taught colour that explains it
(piece_colours.py), and each colour's pixels are cut into bars of a stick's size. Taken sticks
lie side by side, often two of one colour touching: a bar as wide as n sticks with their gaps is
n sticks. Anything else colourful (a pencil, a mug, a sleeve) is not a stick's shape and is left out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from .piece_colours import chroma, fit_residuals

READ_PX_PER_MM = 1.0
STICK_LENGTH = 0.85  # of the pitch L (stixx.md)
STICK_WIDTH_MM = 8.0
ROW_STEP_MM = 11.5  # centre to centre of sticks laid side by side
LENGTH_TOLERANCE = 0.3  # of a stick's length (rounded, shaded ends show less of it)
MIN_CHROMA = 45.0  # CIE Lab chroma of a stick's pixels; tables (wood, cloth) and skin stay below
MAX_RESIDUAL = 0.25  # as for the grooves (stixx_grooves.py)
MIN_FILL = 0.7  # of a bar's box covered by its colour
PLATE_CLEARANCE_MM = 15.0  # colour this near the board belongs to it (its sticks, their shadows)
MAX_AREA_MM2 = 12000.0  # colour over more than this is not a row of sticks (a sleeve, a mat)


@dataclass(frozen=True)
class _Place:
    origin_mm: tuple[float, float]
    shape: tuple[int, int]  # (rows, columns) at READ_PX_PER_MM
    points: np.ndarray  # flat indices into the place's grid that are read


def find_loose_sticks(view, names: tuple[str, ...], refs_bgr: np.ndarray, plate: np.ndarray | None,
                      pitch_mm: float) -> list[tuple[str, tuple[float, float]]]:
    """(colour, centre mm) of every stick-shaped bar of a taught colour away from the board."""
    top = view.top.image
    ppm = view.ppm
    colourful = (chroma(top) > MIN_CHROMA) & view.valid
    if plate is not None:
        keep_out = np.zeros(colourful.shape, np.uint8)
        centre = plate.mean(axis=0)
        grown = centre + (plate - centre) * (1.0 + PLATE_CLEARANCE_MM / np.linalg.norm(plate[0] - centre))
        cv2.fillConvexPoly(keep_out, np.round(view.top.mm_to_px(grown)).astype(np.int32), 1)
        colourful &= keep_out == 0
    near = cv2.dilate(colourful.astype(np.uint8), np.ones((3, 3), np.uint8))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(near, connectivity=8)
    length = STICK_LENGTH * pitch_mm
    places: list[_Place] = []
    grids = []
    for i in range(1, count):
        x, y, w, h, area = stats[i]
        if not 0.3 * length * STICK_WIDTH_MM <= area / ppm ** 2 <= MAX_AREA_MM2:
            continue
        (x0, y0), (x1, y1) = view.top.px_to_mm([(x - 1, y - 1), (x + w + 1, y + h + 1)])
        n_x = max(2, int(math.ceil((x1 - x0) * READ_PX_PER_MM)))
        n_y = max(2, int(math.ceil((y1 - y0) * READ_PX_PER_MM)))
        xs = x0 + (np.arange(n_x) + 0.5) / READ_PX_PER_MM
        ys = y0 + (np.arange(n_y) + 0.5) / READ_PX_PER_MM
        grid = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
        # Read only where the coarse image saw colour (grown by a coarse pixel): the rest is table.
        coarse = np.round(view.top.mm_to_px(grid)).astype(int)
        on = (coarse[:, 0] >= 0) & (coarse[:, 0] < labels.shape[1]) & (coarse[:, 1] >= 0) & (coarse[:, 1] < labels.shape[0])
        on[on] = labels[coarse[on, 1], coarse[on, 0]] == i
        places.append(_Place((x0, y0), (n_y, n_x), np.flatnonzero(on)))
        grids.append(grid[on])
    if not places:
        return []
    # One read of the frame and one colour fit for every place together.
    bgr, inside, clipped = view.sample(np.concatenate(grids))
    label = np.full(len(bgr), -1, np.int32)
    candidate = inside & (chroma(bgr) > MIN_CHROMA)
    if candidate.any():
        res = fit_residuals(bgr[candidate], refs_bgr, clipped[candidate])
        best = np.argmin(res, axis=1)
        good = res[np.arange(len(best)), best] < MAX_RESIDUAL
        label[np.flatnonzero(candidate)[good]] = best[good]
    out: list[tuple[str, tuple[float, float]]] = []
    start = 0
    for place in places:
        grid_labels = np.full(place.shape[0] * place.shape[1], -1, np.int32)
        grid_labels[place.points] = label[start:start + len(place.points)]
        start += len(place.points)
        out.extend(_bars(grid_labels.reshape(place.shape), place.origin_mm, names, length))
    return out


def _bars(label: np.ndarray, origin_mm, names, length: float) -> list[tuple[str, tuple[float, float]]]:
    """Sticks in a place's label map (taught colour index per pixel, -1 for none)."""
    x0, y0 = origin_mm
    found = []
    for k in np.unique(label[label >= 0]):
        mask = cv2.morphologyEx((label == k).astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
        for i in range(1, count):
            if stats[i, 4] < 0.25 * length * STICK_WIDTH_MM * READ_PX_PER_MM ** 2:
                continue
            pts = np.column_stack(np.nonzero(labels == i)[::-1]).astype(np.float32)
            # Principal axes (minAreaRect's angle convention changed between OpenCV versions).
            centre = pts.mean(axis=0)
            _, vecs = np.linalg.eigh(np.cov((pts - centre).T))
            across_dir, along_dir = vecs[:, 0], vecs[:, 1]
            along = (pts - centre) @ along_dir
            across = (pts - centre) @ across_dir
            long_px = float(along.max() - along.min() + 1.0)
            short_px = float(across.max() - across.min() + 1.0)
            if abs(long_px / READ_PX_PER_MM - length) > LENGTH_TOLERANCE * length:
                continue
            across_mm = short_px / READ_PX_PER_MM
            # Shaded flanks fall below the chroma limit: a lone stick shows 3-8 mm of its 8 mm.
            n = max(1, int(round((across_mm + ROW_STEP_MM - STICK_WIDTH_MM) / ROW_STEP_MM)))
            if not -5.0 <= across_mm - (n * ROW_STEP_MM - (ROW_STEP_MM - STICK_WIDTH_MM)) <= 3.0:
                continue
            if len(pts) < MIN_FILL * long_px * short_px:
                continue  # not a bar: a ragged or curved patch of colour
            # n sticks of one colour touching lie side by side across the bar.
            mid = centre + across_dir * (across.max() + across.min()) / 2 + along_dir * (along.max() + along.min()) / 2
            step = across_dir * ROW_STEP_MM * READ_PX_PER_MM
            for j in range(n):
                c = mid + (j - (n - 1) / 2) * step
                found.append((names[int(k)], (x0 + (c[0] + 0.5) / READ_PX_PER_MM, y0 + (c[1] + 0.5) / READ_PX_PER_MM)))
    return found
