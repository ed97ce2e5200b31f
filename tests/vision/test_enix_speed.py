"""ENIX's speed shortcuts give the very answers of what they replace (the readings stay identical only
so). Session 8: the card search's density and closing worked out in the mask's box, and the
lattice's cells made unique by one key per cell. Session 9: Grana's labelling for the heads, grey
moments of 0/1 masks, the rays' sample points of all tiles at once (and the covers that cannot
reach them skipped), a card value's inverse transform on the rows it needs, a median by partition."""

from __future__ import annotations

import cv2
import numpy as np

from tablecam.vision.enix import RAY_REACH_MM
from tablecam.vision.enix_cards import (BLURS_MM, _card_frame, _drawn_spectra, _least_channel, _matches, _median,
                                        _median_rows, _normalised, _to_table, templates)
from tablecam.vision.enix_search import CardBlob
from tablecam.vision.enix_hexes import _RING_OFFSETS, _cell_centre, _cells_near, _hex_round, _to_cell
from tablecam.vision.enix_rays import ACROSS_MM, ALONG_MM, BESIDE_MM, sample_points, sample_points_many, side_directions
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


def test_grana_labels_the_heads_as_the_default_does():
    rng = np.random.default_rng(9)
    for mask in _random_masks(rng, 300):
        want = cv2.connectedComponentsWithStats(mask, connectivity=8)
        got = cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_GRANA)
        assert got[0] == want[0]
        for a, b in zip(got[1:], want[1:]):
            assert np.array_equal(a, b, equal_nan=True)


def test_grey_moments_of_a_0_1_mask_are_its_binary_moments():
    rng = np.random.default_rng(9)
    for mask in _random_masks(rng, 300):
        want, got = cv2.moments(mask, binaryImage=True), cv2.moments(mask)
        for key in ("m00", "m10", "m01"):
            assert got[key] == want[key]


def _sample_points_alone(centre, side_angle):
    """The rays' sample points of one tile as session 8 made them."""
    d = side_directions(side_angle)
    n = np.column_stack([-d[:, 1], d[:, 0]])
    c = np.asarray(centre, dtype=np.float64)
    along = (c + ALONG_MM[None, :, None, None] * d[:, None, None, :]
             + ACROSS_MM[None, None, :, None] * n[:, None, None, :])
    beside = (c + ALONG_MM[None, :, None, None] * d[:, None, None, :]
              + np.array([-BESIDE_MM, BESIDE_MM])[None, None, :, None] * n[:, None, None, :])
    return along, beside


def test_the_rays_sample_points_of_all_tiles_at_once_are_each_tiles_own():
    rng = np.random.default_rng(9)
    for _ in range(200):
        tiles = int(rng.integers(1, 7))
        centres, angles = rng.uniform(-100, 1200, (tiles, 2)), rng.uniform(0, 60, tiles)
        along, beside, flat = sample_points_many(centres, angles)
        alone = [_sample_points_alone(c, a) for c, a in zip(centres, angles)]
        assert np.array_equal(flat, np.concatenate([p.reshape(-1, 2) for pair in alone for p in pair]))
        for k, (a, b) in enumerate(alone):
            assert np.array_equal(along[k], a) and np.array_equal(beside[k], b)
            one_a, one_b = sample_points(centres[k], angles[k])
            assert np.array_equal(one_a, a) and np.array_equal(one_b, b)
        # A cover farther than RAY_REACH_MM plus its radius from the centre reaches no point of the axis.
        axis = along[:, :, :, 1, :] - centres[:, None, None, :]
        assert np.hypot(axis[..., 0], axis[..., 1]).max() < RAY_REACH_MM - 0.99


def _matches_session8(ink):
    """enix_cards._matches as session 8 had it: the whole inverse transform."""
    th, tw = templates(BLURS_MM[0])[0].shape
    ih, iw = ink.shape
    shape, spectra, norms = _drawn_spectra(ih, iw)
    corr = np.fft.irfft2(np.fft.rfft2(ink, s=shape)[None, None] * spectra, s=shape)[..., :ih - th + 1, :iw - tw + 1]
    return _normalised(corr, ink, (th, tw), norms)  # (unchanged: only the inverse transform is)


def test_a_values_matches_are_those_of_the_whole_inverse_transform():
    rng = np.random.default_rng(9)
    th, tw = templates(BLURS_MM[0])[0].shape
    for _ in range(30):
        ih, iw = th + int(rng.integers(1, 20)), tw + int(rng.integers(1, 20))
        ink = (rng.random((ih, iw)) * rng.random()).astype(np.float32)
        ink[:, : int(rng.integers(0, 10))] = 0.0  # (beyond the card's edge)
        got, want = _matches(ink), _matches_session8(ink)
        assert got.dtype == want.dtype and np.array_equal(got, want)


def test_the_median_by_partition_is_numpys():
    rng = np.random.default_rng(9)
    for _ in range(3000):
        values = (rng.random(int(rng.integers(1, 120))) * rng.choice([1e-3, 1.0, 1e3])).astype(
            rng.choice([np.float32, np.float64]))
        if rng.random() < 0.3:
            values = np.round(values, 1)  # (ties)
        assert _median(values) == float(np.median(values))


def test_the_card_frames_shortcuts_are_numpys_own_answers():
    rng = np.random.default_rng(9)
    for _ in range(500):
        blob = CardBlob("water", (float(rng.uniform(-50, 900)), float(rng.uniform(-50, 700))), float(rng.uniform(0, 180)))
        flip = bool(rng.integers(0, 2))
        local = rng.uniform(-60, 60, (int(rng.integers(1, 300)), 2))
        right, down = _card_frame(blob, flip)
        assert np.array_equal(_to_table(blob, flip, local),
                              np.asarray(blob.centre) + local[..., :1] * right + local[..., 1:2] * down)
        bgr = rng.uniform(0, 255, (len(local), 3)).astype(np.float32)
        assert np.array_equal(_least_channel(bgr), bgr.min(axis=1))
        rows = rng.random((5, int(rng.integers(1, 30)), 3)).astype(np.float32)
        assert np.array_equal(_median_rows(rows), np.median(rows, axis=1))
