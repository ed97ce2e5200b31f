"""Enigmo's dice at the camera's scale: small (20-28 px), blurred, read right or left unread."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from tablecam.vision.dice import Die, _lone_unless_neighbours, _one_per_die, read_dice
from dice_drawing import draw_die, ground

WHITE, BLACK = (225, 225, 225), (30, 30, 30)


def _row(side: float, angle: float, blur: float) -> list[tuple[int, int | None]]:
    """Dice 1..6 left to right, blurred like a 2028x1520 frame of 16 mm dice; (true, read) pairs."""
    img = ground((int(side * 3), int(side * 11)), (60, 50, 40), noise=3, seed=1)
    for v in range(1, 7):
        draw_die(img, v, (side * (1.5 + 1.6 * (v - 1)), side * 1.5), side, angle, WHITE, BLACK)
    img = cv2.GaussianBlur(img, (0, 0), blur)
    dice = read_dice(img, pip_radius_px=side * 0.09, pips="dark", min_contrast=50, square_pixels=True)
    return [(round((d.centre_px[0] / side - 1.5) / 1.6) + 1, d.value) for d in dice]


@pytest.mark.parametrize("side, angle", [(20, 0), (24, 20), (24, 45), (28, 20)])
def test_small_sharp_dice_read_one_to_six(side, angle):
    # 20-28 px: a 16 mm die at 1.25-1.75 px/mm, pips of 1.8-2.5 px radius
    assert sorted(_row(side, angle, 0.8)) == [(v, v) for v in range(1, 7)]


@pytest.mark.parametrize("side, angle", [(20, 0), (20, 20), (20, 45), (24, 0), (28, 45)])
def test_blurred_small_dice_are_read_right_or_left_unread(side, angle):
    read = _row(side, angle, 1.2)
    assert all(value is None or value == true for true, value in read), read
    assert sum(value == true for true, value in read) >= (2 if side == 20 else 6)


def test_two_readings_closer_than_a_die_are_one_die_left_unread():
    # a blurred 5 whose pips run together can read as two 1s side by side
    ones = [Die(1, (0, 0, 20, 20), (10.0, 10.0), 0.8, 20.0, 0.0, 1), Die(1, (8, 0, 28, 20), (18.0, 10.0), 0.9, 20.0, 0.0, 1)]
    apart = [Die(4, (0, 0, 20, 20), (10.0, 10.0), 0.8, 20.0, 0.0, 4), Die(2, (30, 0, 50, 20), (40.0, 10.0), 0.8, 20.0, 0.0, 2)]
    assert [d.value for d in _one_per_die(ones, side=22.0)] == [None]
    assert sorted(d.value for d in _one_per_die(apart, side=22.0)) == [2, 4]


def test_a_one_whose_lattice_is_fitted_small_still_sees_the_other_pip_of_a_two():
    # the top pip of a 2 turned 45 degrees, read as a 1 on a lattice smaller than the known die
    # (its blurred rim): the other pip, a face's diagonal away by the known step, withdraws the value
    one = Die(1, (0, 0, 16, 16), (50.0, 50.0), 0.8, 16.0, 0.0, 1, True)
    other_pip = [(50.0, 66.5, 1.9, True)]  # 3.3 known steps of 5 px: out of reach of the small lattice
    assert _lone_unless_neighbours(one, other_pip, known_step=5.0).value is None
    # a pip of a neighbouring die, beyond a face's diagonal, leaves a real 1 its value
    assert _lone_unless_neighbours(one, [(50.0, 70.0, 1.9, True)], known_step=5.0).value == 1


# Renders with random camera mounts, light, tables and hands (tuning seeds: the bench uses
# seeds from 100000). 15, 78, 127 once read a 2 half under a hand as a 1, a 2 as a 1 and a 6 as
# a 3; 0, 3 and 29 hold 1s, once all missed; 1131 read a 2 turned 45 degrees (pips at the rim's
# corners, 1.24 px/mm) as a 1.
SEEDS = (0, 3, 15, 29, 78, 127, 1131)


@pytest.fixture(scope="module")
def nuisance_readings():
    from tablecam.calibration.lens import CameraProfile
    from tablecam.simulator import render_random
    from tablecam.vision.enigmo import EnigmoDetector, EnigmoSettings
    from tablecam.vision.enigmo_shutters import ShutterRow

    out = []
    for seed in SEEDS:
        truth = (shot := render_random("enigmo", seed)).truth
        cam = truth["camera"]
        profile = CameraProfile(tuple(tuple(float(v) for v in r) for r in cam["K"]), tuple(float(v) for v in cam["dist"]),
                                tuple(int(v) for v in cam["resolution"]), 0.1)
        # the simulator paints a die's top face flat on the table: no height to correct
        detector = EnigmoDetector(EnigmoSettings(shutter_row=ShutterRow.from_list(truth["shutter_row_mm"]),
                                                 profile=profile, die_height_mm=0.0))
        out.append((truth["dice"], detector.detect(shot.image)["dice"]))
    return out


def test_dice_under_random_nuisances_are_never_read_wrong(nuisance_readings):
    right = 0
    for truth, read in nuisance_readings:
        for t in truth:
            near = [r for r in read if math.dist(r["center_mm"], t["center_mm"]) < 10]
            assert all(r["value"] in (None, t["value"]) for r in near), (t, read)
            right += any(r["value"] == t["value"] for r in near)
        for r in read:  # nothing read where there is no die (a hand's knuckles)
            if r["value"] is not None:
                assert any(math.dist(r["center_mm"], t["center_mm"]) < 10 for t in truth), (r, truth)
    assert right >= 6  # of 14 dice (7 on the last run); one half under a hand, one 1 and one 5 blurred


# --- the frame's speed-ups read the same (issue 9, session 5) -----------------------------------
def test_reading_only_a_part_of_the_frame_gives_the_dice_the_whole_frame_gives_there():
    # dice spread over a wide frame, one chain of spots (a die row) crossing the part's edge:
    # the part is grown where a window nears its edge, so the dice in it are read as before
    side = 24
    img = ground((int(side * 12), int(side * 30)), (60, 50, 40), noise=3, seed=2)
    for k in range(12):
        draw_die(img, k % 6 + 1, (side * (1.5 + 2.2 * k), side * (2 + 0.6 * k)), side, 15 * k, WHITE, BLACK)
    img = cv2.GaussianBlur(img, (0, 0), 0.8)
    kw = dict(pip_radius_px=side * 0.09, pips="dark", min_contrast=50, square_pixels=True)
    whole = read_dice(img, **kw)
    roi = (int(side * 9), int(side * 3), int(side * 19) + 1, int(side * 9) + 1)
    part = read_dice(img, roi=roi, **kw)
    inside = [d for d in whole if roi[0] <= d.centre_px[0] <= roi[2] and roi[1] <= d.centre_px[1] <= roi[3]]
    assert len(inside) >= 4
    assert [d for d in part if d in inside] == inside
    assert all(d in whole for d in part)


def test_pip_blobs_are_the_components_and_percentiles_opencv_and_numpy_give():
    from tablecam.vision.pips import _components, _percentile_16

    rng = np.random.default_rng(5)
    for _ in range(200):
        h, w = rng.integers(5, 120, 2)
        mask = (rng.random((h, w)) < rng.uniform(0.05, 0.6)).astype(np.uint8)
        n, _labels, stats, centroids = cv2.connectedComponentsWithStats(mask, connectivity=4)
        m, stats2, centroids2 = _components(mask)
        assert m == n and np.array_equal(stats2, stats) and np.array_equal(centroids2, centroids, equal_nan=True)
    ring = np.rint(rng.normal(120, 50, (5000, 16)))
    for q in (30, 70):
        assert np.array_equal(_percentile_16(ring, q), np.percentile(ring, q, axis=1))


# --- the frame's speed-ups read the same (issue 9, session 6) -----------------------------------
def test_a_frame_made_grey_part_by_part_is_the_whole_frame_made_grey_and_blanked():
    # Enigmo makes grey (and blanks the markers and the shutter box on) only the parts it reads;
    # a part grown round the last one is made from it and the bands round it. The blanks are
    # the pixels cv2.fillPoly fills on the whole frame, polygons running off it included.
    from tablecam.calibration.images import to_grey
    from tablecam.vision.dice import FrameGrey
    from tablecam.vision.enigmo import _blank, _blank_masks

    rng = np.random.default_rng(3)
    frame = rng.integers(0, 256, (300, 400, 3), dtype=np.uint8)
    for trial in range(30):
        polys = [np.rint(rng.uniform((-60, -60), (460, 360)) + rng.uniform(-120, 120, (4, 2))).astype(np.int32)
                 for _ in range(3)]
        whole = to_grey(frame).copy()
        for poly in polys:
            cv2.fillPoly(whole, [poly], 77)
        masks = _blank_masks(polys, frame.shape[:2])
        parts = FrameGrey(frame, lambda grey, origin: _blank(grey, origin, masks, 77))
        x0, y0 = int(rng.integers(0, 200)), int(rng.integers(0, 150))
        boxes = [(x0, y0, x0 + 150, y0 + 100), (x0 + 10, y0 + 10, x0 + 60, y0 + 50), (0, y0, 400, 300), (0, 0, 400, 300)]
        for bx0, by0, bx1, by1 in boxes:
            assert np.array_equal(parts.part((bx0, by0, bx1, by1)), whole[by0:by1, bx0:bx1]), (trial, polys)
    # a grey frame is not written on
    grey = to_grey(frame).copy()
    before = grey.copy()
    assert np.array_equal(FrameGrey(grey, lambda g, o: _blank(g, o, masks, 77)).part((0, 0, 400, 300)), whole)
    assert np.array_equal(grey, before)


def test_the_lattice_checks_take_numpys_own_statistics_and_fits():
    from tablecam.vision.pip_lattice import PLACES, _affine_fit, _percentiles_20_80

    rng = np.random.default_rng(7)
    for spread in (0.5, 3.0, 40.0):
        for vals in (np.rint(rng.normal(120, spread, (400, 12))), rng.normal(0, spread, (400, 12))):
            lo, hi = _percentiles_20_80(vals)
            want = np.percentile(vals, (20, 80), axis=1)
            assert np.array_equal(lo, want[0]) and np.array_equal(hi, want[1])
    for code in range(512):
        on = [(code >> k) & 1 == 1 for k in range(9)]
        A = np.column_stack([np.ones(sum(on)), PLACES[on]])
        fit = _affine_fit(code)
        if np.linalg.matrix_rank(A) < 3:
            assert fit is None
        else:
            assert np.array_equal(fit, np.linalg.pinv(A))


def test_the_pips_on_a_lattices_places_are_those_an_image_sized_map_gives():
    # refine draws the pips' discs on the box round them only: the same pip on every place,
    # pips and lattices at and beyond the image's edges included
    from tablecam.vision.pip_lattice import PLACES, Lattices, pips_on_places
    from tablecam.vision.pips import Pip

    rng = np.random.default_rng(11)
    shape = (120, 160)
    covered = 0
    for _ in range(40):
        n = int(rng.integers(1, 12))
        pips = [Pip(float(x), float(y), float(r), True, 80.0, 200.0, 1.0)
                for x, y, r in zip(rng.uniform(-3, 163, n), rng.uniform(-3, 123, n), rng.uniform(0.5, 6, n))]
        m = 200
        u = rng.uniform(-15, 15, (m, 2))
        hyp = Lattices(rng.uniform(-20, 180, (m, 2)), u, np.column_stack([-u[:, 1], u[:, 0]]), np.zeros(m), np.ones(m), np.ones(m))
        owner = np.full(shape, -1, np.int32)
        for k, p in enumerate(pips):
            cv2.circle(owner, (int(round(p.x)), int(round(p.y))), max(1, int(round(p.radius * 1.2))), k, -1)
        X = hyp.centre[:, None, 0] + PLACES[None, :, 0] * hyp.u[:, None, 0] + PLACES[None, :, 1] * hyp.v[:, None, 0]
        Y = hyp.centre[:, None, 1] + PLACES[None, :, 0] * hyp.u[:, None, 1] + PLACES[None, :, 1] * hyp.v[:, None, 1]
        want = owner[np.clip(np.rint(Y).astype(int), 0, shape[0] - 1), np.clip(np.rint(X).astype(int), 0, shape[1] - 1)]
        assert np.array_equal(pips_on_places(hyp, pips, shape), want)
        covered += int((want >= 0).sum())
    assert covered > 200  # places on pips were compared, not only empty ones
