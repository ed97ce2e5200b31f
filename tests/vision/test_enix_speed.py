"""ENIX's speed shortcuts of session 8 give the very answers of what they replace (the readings stay
identical only so): the card search's density and closing worked out in the mask's box, and the
lattice's cells made unique by one key per cell."""

from __future__ import annotations

import cv2
import numpy as np

from tablecam.vision.enix_hexes import _RING_OFFSETS, _cell_centre, _cells_near, _hex_round, _to_cell
from tablecam.vision.enix_search import DENSITY, _closed, _dense


def _random_masks(rng, count):
    for _ in range(count):
        h, w = (int(v) for v in rng.integers(5, 70, 2))
        mask = np.zeros((h, w), np.uint8)
        for _ in range(int(rng.integers(0, 5))):
            y, x = int(rng.integers(0, h)), int(rng.integers(0, w))
            mask[y:y + int(rng.integers(1, 20)), x:x + int(rng.integers(1, 20))] = 1
        mask &= (rng.random((h, w)) > rng.uniform(0.0, 0.5)).astype(np.uint8)  # speckled, some at the edges
        yield mask


def test_the_card_masks_worked_in_their_box_are_the_whole_maps():
    rng = np.random.default_rng(8)
    for mask in _random_masks(rng, 600):
        for k in (3, 5, 9, 11):
            want = (cv2.boxFilter(mask, -1, (k, k), normalize=False) > DENSITY * k * k).astype(np.uint8)
            got = _dense(mask, k)
            assert (got is None and not mask.any()) or np.array_equal(got, want)
            disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
            assert np.array_equal(_closed(mask, disc), cv2.morphologyEx(mask, cv2.MORPH_CLOSE, disc))


def test_the_lattice_cells_are_numpys_own_answers():
    rng = np.random.default_rng(8)
    for _ in range(500):
        centres = rng.uniform(-200, 1000, (int(rng.integers(1, 7)), 2))
        angle = float(rng.uniform(0, 60))
        origin = rng.uniform(-50, 900, 2)
        base = _hex_round(_to_cell(centres, origin, angle))
        want = np.unique((base[:, None, :] + _RING_OFFSETS[None, :, :]).reshape(-1, 2), axis=0)
        got = _cells_near(centres, origin, angle)
        assert got.dtype == want.dtype and np.array_equal(got, want)
        # The seeds' cells centred all at once: each the same sums as alone.
        at_once = _cell_centre(base.T[:, :, None], origin, angle)
        assert np.array_equal(at_once, np.array([_cell_centre(c, origin, angle) for c in base]))
