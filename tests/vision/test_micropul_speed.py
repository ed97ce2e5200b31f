"""Session 11's faster steps of the micropul reader give the numbers the plain arithmetic gives (the
readings must not change with the speed): each against a straightforward reference on made-up inputs."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from tablecam.vision import micropul as mp
from tablecam.vision.board_lattice import Lattice
from tablecam.vision.micropul_faces import (BLUR_MM, GAIN_RANGE, MIN_SEEN_SHARE, QUADRANTS, _quadrant_slice,
                                           face_model, read_faces)
from tablecam.vision.print_ink import _four_points, disc_spots


def _reference_stone_weights(lattice: Lattice, centres: np.ndarray, stones: list, side_px: int,
                             reach_mm: float) -> np.ndarray:
    """Every pixel of every cell against every stone, np.hypot, as the reader did until session 11."""
    offsets = ((np.arange(side_px) + 0.5) / side_px - 0.5) * lattice.pitch_mm
    gx, gy = np.meshgrid(offsets, offsets)
    local = np.stack([gx.ravel(), gy.ravel()], axis=1) @ lattice.rotation.T
    out = np.ones((len(centres), side_px * side_px), np.float32)
    for k, c in enumerate(centres):
        pts = c[None, :] + local
        for s in stones:
            far = np.hypot(pts[:, 0] - s[3][0], pts[:, 1] - s[3][1]) >= reach_mm
            out[k] *= far
    return out.reshape(len(centres), side_px, side_px)


@pytest.mark.parametrize("angle", [0.0, 13.7, -31.0])
def test_stone_weights_are_the_plain_distances(angle):
    rng = np.random.default_rng(int(abs(angle) * 10) + 7)
    lattice = Lattice(angle, (300.0, 200.0), 30.0)
    cells = [(i, j) for i in range(-1, 3) for j in range(-1, 2)]
    centres = lattice.to_mm(np.array(cells, dtype=np.float64))
    stones = [((0, 0), "ul", "red", tuple(float(v) for v in p)) for p in rng.uniform((260, 170), (390, 250), (5, 2))]
    # A stone whose reach passes exactly through a pixel centre of cell (0, 0): the rounding case.
    px = lattice.to_mm(np.array([[0.0, 0.0]]))[0] + np.array([[(10.5 / 60 - 0.5) * 30, (20.5 / 60 - 0.5) * 30]]) \
        @ lattice.rotation.T
    stones.append(((0, 0), "ll", "blue", (float(px[0, 0] + mp.STONE_SHADE_MM), float(px[0, 1]))))
    for reach in (mp.STONE_SHADE_MM, mp.STONE_SHADE_WIDE_MM):
        got = mp._stone_weights(lattice, centres, stones, 60, reach)
        assert np.array_equal(got, _reference_stone_weights(lattice, centres, stones, 60, reach))
        assert 0.0 < got.mean() < 1.0


def test_the_four_point_dilation_is_the_largest_of_four_shifted_boxes():
    rng = np.random.default_rng(3)
    side = rng.random((57, 83)).astype(np.float32)
    off = 8
    pad = cv2.copyMakeBorder(side, off, off, off, off, cv2.BORDER_REPLICATE)
    h, w = side.shape
    shifted = [pad[off + dy:off + dy + h, off + dx:off + dx + w] for dx, dy in ((off, 0), (-off, 0), (0, off), (0, -off))]
    expected = np.maximum(np.maximum(shifted[0], shifted[1]), np.maximum(shifted[2], shifted[3]))
    got = cv2.dilate(side, _four_points(off), borderType=cv2.BORDER_REPLICATE)
    assert np.array_equal(got, expected)


def test_disc_spots_are_the_strong_local_peaks_in_row_order():
    # Two dark discs and a ring on paper: the spots come in raster order, as np.nonzero gives them.
    img = np.full((120, 200), 230, np.uint8)
    for (x, y), r in (((40, 30), 5), ((150, 40), 5), ((90, 90), 5)):
        cv2.circle(img, (x, y), r, 20, -1)
    cv2.circle(img, (90, 90), 3, 230, -1)
    dark = cv2.GaussianBlur(1.0 - img.astype(np.float32) / 230.0, (0, 0), 1.0)
    spots = disc_spots(dark, 1.2, 8.7, 0.1)
    assert len(spots.centres_px) == 3
    rows = np.round(spots.centres_px[:, 1]).astype(int)
    assert list(rows) == sorted(rows)


def _reference_reading(model, patches: np.ndarray, visible: np.ndarray, weights: np.ndarray):
    """read_faces' choice as written until session 11 (every patch's norms, a sum over the quadrants,
    the runner-up from a sort of all faces): best face, blur index, gain, the faces' errors, margin."""
    n, half = len(patches), model.quadrant_px
    slices = [_quadrant_slice(q, half) for q in QUADRANTS]
    obs = np.stack([patches[:, ys, xs].reshape(n, -1) for ys, xs in slices], axis=1)
    n_blur, _, n_t, n_p = model.templates.shape
    visible = visible.copy()
    obs_norm = np.einsum("nqp,nqp->nq", obs, obs)
    dots = np.stack([obs[:, q] @ model.by_quadrant[q].T for q in range(4)], axis=1)
    norms = np.repeat(model.norms.transpose(1, 0, 2).reshape(1, 4, -1), n, axis=0)
    masked = weights.reshape(n, -1).min(axis=1) < 1.0
    wq = np.stack([weights[masked][:, ys, xs].reshape(int(masked.sum()), -1) for ys, xs in slices], axis=1)
    visible[masked] &= wq.sum(axis=2) >= MIN_SEEN_SHARE * n_p
    ow = obs[masked] * wq
    obs_norm[masked] = np.einsum("nqp,nqp->nq", ow, obs[masked])
    dots[masked] = np.stack([ow[:, q] @ model.by_quadrant[q].T for q in range(4)], axis=1)
    norms[masked] = np.stack([wq[:, q] @ model.squares_by_quadrant[q].T for q in range(4)], axis=1)
    norms, dots = norms.reshape(n, 4, n_blur, n_t), dots.reshape(n, 4, n_blur, n_t)
    vis, ft = visible.astype(np.float32), model.face_templates
    a = sum(dots[:, q][:, :, ft[:, q]] * vis[:, q, None, None] for q in range(4))
    b = sum(norms[:, q][:, :, ft[:, q]] * vis[:, q, None, None] for q in range(4))
    gain = np.clip(a / np.maximum(b, 1e-9), *GAIN_RANGE)
    err = (obs_norm * vis).sum(axis=1)[:, None, None] - 2 * gain * a + gain * gain * b
    rows = np.arange(n)
    bis, fs = np.unravel_index(np.argmin(err.reshape(n, -1), axis=1), err.shape[1:])
    at_blur = err[rows, bis]
    order = np.argsort(at_blur, axis=1)
    differs = ((ft[order] != ft[fs][:, None, :]) & visible[:, None, :]).any(axis=2)
    differs[:, 0] = False
    first = np.argmax(differs, axis=1)
    runner = np.where(differs[rows, first], order[rows, first], -1)
    e_best = at_blur[rows, fs].astype(np.float64)
    e_next = np.where(runner >= 0, at_blur[rows, runner].astype(np.float64), np.inf)
    return fs, bis, gain[rows, bis, fs], at_blur, e_next - e_best


def test_faces_are_read_as_the_plain_sums_read_them():
    # The cached norms of unweighted patches, the weighted sums of the others and the runner-up
    # without a sort: the same face, blur, gain, errors and margin as the arithmetic written out.
    model = face_model(60)
    rng = np.random.default_rng(11)
    tiles = list(model.faces[:6])
    patches = []
    for face in tiles:
        k = model.faces.index(face)
        img = np.zeros((60, 60), np.float32)
        for qi, q in enumerate(QUADRANTS):
            ys, xs = _quadrant_slice(q, 30)
            img[ys, xs] = model.templates[1, qi, model.face_templates[k, qi]].reshape(30, 30)
        patches.append(0.8 * img + rng.normal(0, 0.03, img.shape).astype(np.float32))
    patches = np.stack(patches)
    visible = np.ones((len(patches), 4), bool)
    visible[2, 1] = False
    visible[4, 3] = False
    weights = np.ones_like(patches)
    weights[1, :20, :20] = 0.0
    weights[4, 40:, :] = 0.0
    readings = read_faces(model, patches, visible, weights=weights)
    fs, bis, gain, errors, margin = _reference_reading(model, patches, visible, weights)
    for k, r in enumerate(readings):
        assert (r.face_index, r.blur_mm, r.gain, r.margin) == (fs[k], BLUR_MM[bis[k]], float(gain[k]), float(margin[k]))
        assert np.array_equal(r.face_errors, errors[k])
    assert [r.face for r in readings][:2] == tiles[:2]
    assert not math.isnan(readings[0].margin)
