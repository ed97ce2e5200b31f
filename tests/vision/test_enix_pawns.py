"""The ENIX pawn reader (enix_pawns.py) on small synthetic patches: the colour rule, the domes, and
the candidate checks batched over a frame's patches reading as each patch alone; a rim blurred
with its tile, a crowded source, a dull brown top, and the cap on a tile rather than beside it."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from tablecam.vision.piece_colours import linear_to_srgb
from tablecam.vision.enix_pawns import (READ_PX_PER_MM, STACK_PAD, _candidates, _colour, _luminance,
                                        _pawns_in_patches, _refined, _spoke_offsets, _spokes, _stack, _white_index,
                                        pawn_palette)


def _top(bgr) -> np.ndarray:
    """A 30 x 30 px patch (2 px/mm) of one flat colour: a pawn's top as _colour reads it, at (15, 15)."""
    patch = np.zeros((30, 30, 3), np.uint8)
    patch[:] = bgr
    return patch


@pytest.mark.parametrize("bgr", [(177, 176, 173), (188, 199, 200), (189, 191, 196), (245, 231, 222)])
def test_a_white_top_in_shade_is_white_not_a_glossy_dark_or_washed_colour(bgr):
    """Shaded white is grey, which a black or brown pawn with its gloss, or a washed-out colour, also
    explains (seeds 3000-3399: eight white pawns read black, brown, pink or cyan): white is read."""
    names, refs = pawn_palette()
    assert _colour(_top(bgr), 15, 15, names, refs) == "white"


@pytest.mark.parametrize("bgr, colour", [((133, 130, 129), "black"), ((27, 27, 27), "black"),
                                         ((226, 177, 246), "pink"), ((38, 74, 122), "brown"),
                                         ((220, 200, 60), "cyan")])
def test_a_coloured_or_dark_top_keeps_its_colour(bgr, colour):
    """A glossy black top lit to mid grey is too dark for a white pawn; colours white does not explain stay."""
    names, refs = pawn_palette()
    assert _colour(_top(bgr), 15, 15, names, refs) == colour


def test_the_white_pawn_is_found_in_a_taught_palette_or_not_at_all():
    names, refs = pawn_palette((("red", "#d02020"), ("ivory", "#f4f0e6"), ("blue", "#2040d0")))
    assert names[_white_index(refs)] == "ivory"
    _, refs = pawn_palette((("red", "#d02020"), ("blue", "#2040d0")))
    assert _white_index(refs) is None


# --- the batched candidate checks ------------------------------------------------------------------
def _noisy_patches(count: int = 3, n: int = 184, seed: int = 5) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, (n, n, 3), dtype=np.uint8) for _ in range(count)]


@pytest.mark.parametrize("radii", [tuple(np.arange(0.0, 10.01, 0.5)), (9.5, 11.0, 13.0), (25.0, 40.0)])
def test_a_ring_read_from_the_padded_stack_is_the_ring_clamped_to_its_own_patch(radii):
    """All patches' candidates are read in one gather from a stack padded with each patch's edge:
    what a read clamped to that patch sees, also for a point near its edge or past the padding."""
    patches = _noisy_patches()
    stack = _stack(patches)
    k = np.array([0, 1, 2, 2, 1, 0])
    x = np.array([20, 100, 3, 183, 0, 92])
    y = np.array([50, 20, 180, 0, 91, 92])
    got = _spokes(stack.bgr, k, x, y, radii, READ_PX_PER_MM)
    dx, dy = _spoke_offsets(radii, READ_PX_PER_MM)
    n = patches[0].shape[0]
    for i in range(len(k)):
        want = patches[k[i]][np.clip(y[i] + dy, 0, n - 1), np.clip(x[i] + dx, 0, n - 1)]
        assert np.array_equal(got[i], want)
    lum = _spokes(stack.lum, k, x, y, radii, READ_PX_PER_MM)
    for i in range(len(k)):
        assert np.array_equal(lum[i], _luminance(patches[k[i]])[np.clip(y[i] + dy, 0, n - 1),
                                                                 np.clip(x[i] + dx, 0, n - 1)])


def test_candidates_checked_together_read_as_each_patch_alone():
    """Batching the checks over the patches changes no reading: a frame's patches together give each
    patch's own domes, in the same order, as that patch checked on its own."""
    names, refs = pawn_palette()
    patches = [_pawn_patch((150, 60, 120), (180, 122, 240), (70, 92)), _pawn_patch((0, 200, 245), (220, 200, 60),
                                                                                  (100, 80)),
               _pawn_patch((30, 140, 240), (38, 74, 122), (92, 110))]
    together = _candidates(_stack(patches))
    for k, patch in enumerate(patches):
        assert together[k] == _candidates(_stack([patch]))[0]
    tiles = np.array([(150, 60, 120), (0, 200, 245), (30, 140, 240)], np.float32)
    both = _pawns_in_patches(_stack(patches), names, refs, tiles)
    assert both == [_pawns_in_patches(_stack([p]), names, refs, tiles[k:k + 1])[0] for k, p in enumerate(patches)]
    assert [len(p) for p in both] == [1, 1, 1]


# --- domes -----------------------------------------------------------------------------------------
def _pawn_patch(tile_bgr, pawn_bgr, at, n: int = 184) -> np.ndarray:
    """A tile's patch (2 px/mm) with one pawn: a dome shaded from its top (brightest) to a dark rim
    at 7-8 mm, as the simulator draws one lit from above."""
    patch = np.empty((n, n, 3), np.float32)
    patch[:] = tile_bgr
    yy, xx = np.mgrid[0:n, 0:n]
    r = np.hypot(xx - at[0], yy - at[1]) / READ_PX_PER_MM
    shade = np.clip(1.0 - 0.85 * (r / 8.0) ** 3, 0.15, 1.0)
    pawn = r <= 8.0
    patch[pawn] = np.asarray(pawn_bgr, np.float32) * shade[pawn, None]
    return np.clip(patch, 0, 255).astype(np.uint8)


def _dome_beside_the_cap(n: int = 184) -> np.ndarray:
    """A padded luminance stack of one patch: a dome (bright top to 3 mm, falling to its rim at 7 mm)
    on a tile as dark as that rim, and on its right (within 50 degrees) the cap from 8.5 mm out, a
    shade darker still."""
    yy, xx = np.mgrid[0:n, 0:n]
    c = n // 2
    r = np.hypot(xx - c, yy - c) / READ_PX_PER_MM
    angle = np.degrees(np.arctan2(yy - c, xx - c)) % 360
    lum = np.where(r <= 3, 0.6, np.where(r <= 7, 0.6 - 0.55 * (r - 3) / 4, 0.05)).astype(np.float32)
    lum[(np.minimum(angle, 360 - angle) < 50) & (r >= 8.5)] = 0.048
    return cv2.copyMakeBorder(lum, STACK_PAD, STACK_PAD, STACK_PAD, STACK_PAD, cv2.BORDER_REPLICATE)[None]


def test_a_pawn_on_a_dark_tile_beside_the_cap_is_a_dome(monkeypatch):
    """Beyond a pawn's rim a dark tile is as dark as the rim, and the cap darker still: towards the
    cap each direction is darkest 2 mm past the rim, but just as dark at the rim (seeds 3802, 4018:
    such pawns were missed). Its brightness falls to half at the rim all round too (`_half_round`).
    Without the floor rule and the half-way roundness the same dome is refused."""
    import tablecam.vision.enix_pawns as pawns_module

    lum, at = _dome_beside_the_cap(), (np.zeros(1, np.intp), np.array([92]), np.array([92]))
    quality, dark_only, lit_only, *_ = pawns_module._dome(lum, *at)
    assert np.isfinite(quality[0]) and not dark_only[0] and not lit_only[0]
    monkeypatch.setattr(pawns_module, "ROUND_FLOOR", -1.0)
    assert np.isfinite(pawns_module._dome(lum, *at)[0][0])
    monkeypatch.setattr(pawns_module, "HALF_ROUND_MM", -1.0)
    assert np.isnan(pawns_module._dome(lum, *at)[0][0])


def test_a_flat_disc_of_print_is_no_dome():
    """A tile's flat print (its source's inner disc) has no darker rim: no pawn, whatever the floor rule."""
    names, refs = pawn_palette()
    tile = (60, 20, 40)
    patch = np.empty((184, 184, 3), np.uint8)
    patch[:] = tile
    cv2.circle(patch, (92, 92), int(9 * READ_PX_PER_MM), (240, 242, 244), -1)
    assert _pawns_in_patches(_stack([patch]), names, refs, np.array([tile], np.float32)) == [[]]


def test_a_dome_found_near_a_peak_is_read_before_a_dark_body_there(monkeypatch):
    """The dark-body reading is a fallback for a dark pawn with no dome: where a dome shows at some
    offset of the same peak, it is the reading even when the dark body scores higher (seed 3844: a
    brown pawn's dark body won, was refused as no dark colour, and the pawn was lost)."""
    import tablecam.vision.enix_pawns as pawns_module

    def fake_dome(lum, k, x, y):
        quality = np.array([12.0, 14.0, np.nan, np.nan, 13.0, np.nan])  # two peaks, three offsets each
        return quality, np.array([False, True, False, False, True, False]), *(np.zeros(6, bool) for _ in range(3))

    monkeypatch.setattr(pawns_module, "_dome", fake_dome)
    monkeypatch.setattr(pawns_module, "_same_colour_rims", lambda bgr, k, x, y, palette=None, colours=None: np.ones(len(x), bool))
    stack = _stack(_noisy_patches(1))
    got = _refined(stack, np.array([0, 0]), np.array([60, 100]), np.array([60, 100]), np.array([-1.0, 0.0, 1.0]),
                   np.zeros(3))
    # The first peak keeps its dome (offset -1, quality 12) over its dark body; the second has only a dark body.
    assert got == [(0, (12.0, 59, 60, False)), (1, (13.0, 100, 100, True))]


def _blurred_pawn(tile_bgr, pawn_bgr, radius_mm: float, blur_mm: float, fall: float = 0.85, power: int = 3,
                  n: int = 184) -> np.ndarray:
    """A tile's patch (2 px/mm) with one pawn in its middle, as `_pawn_patch` draws one but of any
    (unclipped) brightness, radius and shading, clipped by the sensor and blurred by the lens."""
    patch = np.empty((n, n, 3), np.float32)
    patch[:] = tile_bgr
    yy, xx = np.mgrid[0:n, 0:n]
    r = np.hypot(xx - n // 2, yy - n // 2) / READ_PX_PER_MM
    shade = np.clip(1.0 - fall * (r / radius_mm) ** power, 0.15, 1.0)
    pawn = r <= radius_mm
    patch[pawn] = np.asarray(pawn_bgr, np.float32) * shade[pawn, None]
    return cv2.GaussianBlur(np.clip(patch, 0, 255).astype(np.uint8), (0, 0), blur_mm * READ_PX_PER_MM)


YELLOW_TILE = (0, 200, 245)


@pytest.mark.parametrize("pawn_bgr, colour", [((300, 200, 330), "pink"), ((220, 200, 60), "cyan")])
def test_a_lit_pawn_whose_rim_is_blurred_with_a_yellow_tile_keeps_its_rim(monkeypatch, pawn_bgr, colour):
    """A pink top clipped by the sensor, or a cyan one, on the yellow tile: 7.5 mm out its rim is
    blurred with the tile (too green, not blue enough for the top in shade), 5-6 mm out it is still
    the pawn's own colour (tuning seeds 4600-4799: pawns round the cap on solar were missed). Only
    the outer ring read, the same pawn is refused."""
    import tablecam.vision.enix_pawns as pawns_module

    names, refs = pawn_palette()
    stack = _stack([_blurred_pawn(YELLOW_TILE, pawn_bgr, 7.5, 1.0)])
    at = (np.zeros(1, np.intp), np.array([92]), np.array([92]))
    assert pawns_module._same_colour_rims(stack.bgr, *at)[0]
    assert _pawns_in_patches(stack, names, refs, np.array([YELLOW_TILE], np.float32)) == [[((92.0, 92.0), colour)]]
    monkeypatch.setattr(pawns_module, "INNER_RIM_MIN_LUM", np.inf)
    assert not pawns_module._same_colour_rims(stack.bgr, *at)[0]


def test_a_dark_top_is_not_given_the_inner_rim():
    """A fingertip in the hand's shade is as dark 5-6 mm out as its top: a dark top's rim is read
    at the rim only (4600-4699: ten fingertips were taken for black and brown pawns so); only a
    black top clear all round is given its flank, by `_refined` (see the test of a black pawn on a
    source's ring)."""
    import tablecam.vision.enix_pawns as pawns_module

    stack = _stack([_blurred_pawn(YELLOW_TILE, (38, 50, 62), 7.5, 1.0)])
    at = (np.zeros(1, np.intp), np.array([92]), np.array([92]))
    top = np.median(_spokes(stack.bgr, *at, pawns_module._TOP_RING, READ_PX_PER_MM).reshape(-1, 3), axis=0)
    assert _luminance(top.astype(np.float32)) < pawns_module.INNER_RIM_MIN_LUM
    assert not pawns_module._same_colour_rims(stack.bgr, *at)[0]


@pytest.mark.parametrize("tile", [(240, 242, 244), YELLOW_TILE])
def test_a_brown_pawn_with_a_dull_top_is_found_by_its_dark_body(monkeypatch, tile):
    """On a source's white or the yellow tile, a brown pawn's top may be too dull for a dome; its
    body is dark against much brighter surroundings, as a black pawn's is, and brown is a dark
    colour for that (4600-4799: two brown pawns missed). Counting black alone as dark, it is lost."""
    import tablecam.vision.enix_pawns as pawns_module

    names, refs = pawn_palette()
    stack = _stack([_blurred_pawn(tile, (57, 85, 123), 7.5, 0.75, fall=0.5, power=2)])
    tiles = np.array([tile], np.float32)
    got = _pawns_in_patches(stack, names, refs, tiles)
    assert len(got[0]) == 1 and got[0][0][1] == "brown"
    assert np.hypot(*(np.array(got[0][0][0]) - 92)) <= 1.5 * READ_PX_PER_MM  # within 1.5 mm
    monkeypatch.setattr(pawns_module, "DARK_BODY_REF", pawns_module.DARK_REF)
    assert _pawns_in_patches(stack, names, refs, tiles) == [[]]


def test_the_cap_is_the_black_disc_on_a_tile_not_one_of_its_size_beside_the_layout():
    """The cap is only ever put on a tile: a black prop of its size off the layout is not it, even
    when that disc is rounder than the cap dented by its pawns (tuning seed 4817: the prop was
    taken, and the real cap's top read as two pawns)."""
    from tablecam.vision.enix_pawns import CAP_MM, find_cap

    ppm = 0.5
    mask = np.zeros((300, 400), np.uint8)
    cv2.circle(mask, (100, 100), int(CAP_MM / 2 * ppm), 255, -1)  # the cap at (200, 200) mm...
    cv2.circle(mask, (100 + int(CAP_MM / 2 * ppm), 100), 3, 0, -1)  # ... dented by a pawn at its edge
    cv2.circle(mask, (300, 200), int(CAP_MM / 2 * ppm), 255, -1)  # a black cup's foot at (600, 400) mm

    def px_to_mm(px):
        return np.asarray(px, np.float64) / ppm

    assert math.dist(find_cap(mask, px_to_mm, ppm, [], [(205.0, 195.0)]), (200.0, 200.0)) < 3.0
    # Without tiles there is nothing to tell them apart by: the rounder disc.
    assert math.dist(find_cap(mask, px_to_mm, ppm), (600.0, 400.0)) < 3.0


def _dome_in_a_crowd(n: int = 184) -> np.ndarray:
    """A padded luminance stack of one patch: a dome (bright top to 2 mm, its flank falling to its
    rim at 6.5-7.5 mm) on a tile brighter than that rim, and past the rim, as on a crowded source,
    neighbours: two a shade darker than the rim (230-310 degrees), one much darker (0-30 degrees)."""
    yy, xx = np.mgrid[0:n, 0:n]
    c = n // 2
    r = np.hypot(xx - c, yy - c) / READ_PX_PER_MM
    angle = np.degrees(np.arctan2(yy - c, xx - c)) % 360
    lum = np.where(r <= 2, 0.75, np.where(r <= 6.5, 0.75 - 0.6 * (r - 2) / 4.5, 0.2)).astype(np.float32)
    lum[(r > 6.5) & (r <= 7.5)] = 0.16
    lum[(angle > 230) & (angle < 310) & (r >= 8.5)] = 0.145
    lum[(angle < 30) & (r >= 8.5)] = 0.10
    return cv2.copyMakeBorder(lum, STACK_PAD, STACK_PAD, STACK_PAD, STACK_PAD, cv2.BORDER_REPLICATE)[None]


def test_a_pawn_in_a_crowd_one_direction_short_of_round_is_a_dome_of_a_lit_colour(monkeypatch):
    """Five or six pawns on one source: past a pawn's rim its neighbours are darker, so several
    directions are darkest beyond the rim, and one is darker there than the floor rule allows
    (tuning seeds 4626, 4753, 4769: pink, lime, cyan pawns missed). One direction short of round
    is a dome whose top must be a lit colour, not white (`_refined` checks it). Not even that, it
    is still round where its brightness falls to half (`_half_round`: a dome `_refined` then asks
    to stand on its tile); neither, no dome."""
    import tablecam.vision.enix_pawns as pawns_module

    lum, at = _dome_in_a_crowd(), (np.zeros(1, np.intp), np.array([92]), np.array([92]))
    quality, dark_only, lit_only, _, half_round = pawns_module._dome(lum, *at)
    assert np.isfinite(quality[0]) and not dark_only[0] and lit_only[0] and not half_round[0]
    monkeypatch.setattr(pawns_module, "SHORT_OF_ROUND", 0)
    quality, dark_only, lit_only, _, half_round = pawns_module._dome(lum, *at)
    assert np.isfinite(quality[0]) and not dark_only[0] and not lit_only[0] and half_round[0]
    monkeypatch.setattr(pawns_module, "HALF_ROUND_MM", -1.0)
    assert np.isnan(pawns_module._dome(lum, *at)[0][0])


@pytest.mark.parametrize("top_bgr, lit", [((255, 171, 255), True), ((60, 230, 180), True), ((250, 250, 250), False),
                                          ((180, 190, 200), False), ((40, 50, 60), False)])
def test_only_a_lit_top_not_the_prints_white_is_a_lit_colour(top_bgr, lit):
    """The looser readings (a rim read on the flank, one direction short of round) are for a lit
    coloured top: not white or a white in shade (the print's), not a dark one (a fingertip's)."""
    from tablecam.vision.enix_pawns import _lit_colour

    assert bool(_lit_colour(np.array([top_bgr], np.float32))[0]) is lit


# --- the shortcuts for numpy's slow short-axis reductions -----------------------------------------
@pytest.mark.parametrize("radii", [2, 3, 5, 13])
def test_the_written_out_reductions_over_the_radii_are_numpys_own(radii):
    """_mean_over_radii, _extreme_over_radii: the very values numpy's mean, max and min over axis 1
    give (same additions in the same order, same division), on views and copies of a profile."""
    from tablecam.vision.enix_pawns import _extreme_over_radii, _mean_over_radii

    rng = np.random.default_rng(radii)
    prof = (rng.random((257, 21, 12)) ** 3).astype(np.float32)  # skewed: many tiny, a few large values
    prof[::5, :, 3] = np.float32(1 / 3)  # ties and values that do not add exactly
    for part in (prof[:, 4:4 + radii], prof[:, [1, 3, 4, 8, 9, 10, 15, 16, 17, 18, 19, 20, 2][:radii]]):
        mean = _mean_over_radii(part)
        assert mean.dtype == part.mean(axis=1).dtype and np.array_equal(mean, part.mean(axis=1))
        assert np.array_equal(_extreme_over_radii(part, np.maximum), part.max(axis=1))
        assert np.array_equal(_extreme_over_radii(part, np.minimum), part.min(axis=1))
    with_inf = np.where(prof[:, :radii] > 0.5, np.inf, prof[:, :radii])
    assert np.array_equal(_extreme_over_radii(with_inf, np.minimum), with_inf.min(axis=1))


def test_the_loops_over_a_profiles_radii_are_opencvs_on_its_strided_rows(monkeypatch):
    """A spokes profile's radius is a (points, directions) view whose rows lie a profile apart:
    `_mean_over_radii`, `_extreme_over_radii` and `_darkest_radius` take such rows with OpenCV
    (numpy works them row by row, several times slower) - the very values numpy gives; anything
    else (not float32 (points, radii, directions), or no points) stays numpy's."""
    import cv2 as cv

    import tablecam.vision.enix_pawns as pm

    calls = []

    def counting(fn):
        def wrapped(*a, **k):
            calls.append(fn.__name__)
            return fn(*a, **k)
        return wrapped

    monkeypatch.setattr(pm.cv2, "add", counting(cv.add))
    monkeypatch.setattr(pm.cv2, "min", counting(cv.min))
    monkeypatch.setitem(pm._CV_PICK, np.maximum, counting(cv.max))
    monkeypatch.setitem(pm._CV_PICK, np.minimum, counting(cv.min))
    stack = _stack(_noisy_patches(2))
    k, x, y = np.repeat([0, 1], 40), np.tile(np.arange(50, 130, 2), 2), np.tile(np.arange(60, 140, 2), 2)
    prof = _spokes(stack.lum, k, x, y, tuple(pm._RADII), READ_PX_PER_MM)
    assert pm._cv_rows(prof[:, pm._R_RIM]) and not prof[:, pm._R_RIM].flags.c_contiguous
    rim = prof[:, pm._R_RIM]
    assert np.array_equal(pm._mean_over_radii(rim), rim.mean(axis=1)) and calls.count("add") == 4
    band = prof[:, pm._R_BAND]
    assert np.array_equal(pm._extreme_over_radii(band, np.minimum), band.min(axis=1))
    assert np.array_equal(pm._extreme_over_radii(band, np.maximum), band.max(axis=1))
    radii = pm._RADII[pm._R_BAND]
    assert np.array_equal(pm._darkest_radius(band, radii), radii[np.argmin(band, axis=1)])
    assert calls.count("min") == 12 + 12 + len(radii) - 2 and calls.count("max") == 12
    calls.clear()
    for other in (band.astype(np.float64), band[:0], _spokes(stack.bgr, k, x, y, (5.0, 6.0), READ_PX_PER_MM)):
        assert not pm._cv_rows(other)
        assert np.array_equal(pm._extreme_over_radii(other, np.minimum), other.min(axis=1))
    assert calls == []


def test_the_cap_is_read_from_every_other_pixel_near_the_middle_in_row_order():
    """_cap_pixels: the pixels within 21 mm of the patch's middle on even rows and columns, as
    np.nonzero lists them, and the core's among them."""
    from tablecam.vision.enix_pawns import CAP_CORE_MM, CAP_MM, _cap_pixels, _patch_radii

    r = _patch_radii(184)
    near = (r < CAP_MM / 2 + 4.0) & (np.arange(184)[:, None] % 2 == 0) & (np.arange(184)[None, :] % 2 == 0)
    ys, xs, core = _cap_pixels(184)
    assert np.array_equal(ys, np.nonzero(near)[0]) and np.array_equal(xs, np.nonzero(near)[1])
    assert np.array_equal(core, r[near] < CAP_CORE_MM) and 0 < core.sum() < len(core)


# --- session 7: the same readings, less work -------------------------------------------------------
def test_the_cheap_rejection_drops_no_point_the_full_check_takes():
    """`_dome` measures only what every kind of pawn needs on all points, and the rest on the points
    that pass: on domes, black pawns, dark bodies and noise, the very answers of the full check
    (`_dome_kind`) on every point."""
    import tablecam.vision.enix_pawns as pm

    patches = [_pawn_patch((150, 60, 120), (180, 122, 240), (70, 92)), _pawn_patch((240, 242, 244), (34, 34, 34),
                                                                                  (92, 92)),
               _pawn_patch((30, 140, 240), (38, 74, 122), (92, 110))] + _noisy_patches(2)
    stack = _stack(patches)
    yy, xx = np.mgrid[20:164:3, 20:164:3]
    k = np.repeat(np.arange(len(patches)), xx.size)
    x, y = np.tile(xx.ravel(), len(patches)), np.tile(yy.ravel(), len(patches))
    prof = _spokes(stack.lum, k, x, y, tuple(pm._RADII), READ_PX_PER_MM)
    n = len(prof)
    top = prof[:, pm._R_TOP].reshape(n, -1).mean(axis=1)
    rim_dirs = pm._mean_over_radii(prof[:, pm._R_RIM])
    full = pm._dome_kind(prof, top, rim_dirs, pm._median(rim_dirs), prof[:, pm._R_MID].reshape(n, -1).mean(axis=1),
                         pm._extreme_over_radii(prof[:, pm._R_FAR], np.maximum),
                         (rim_dirs < pm.DARK_RIM * top[:, None]).sum(axis=1))
    got = pm._dome(stack.lum, k, x, y)
    assert np.isfinite(full[0]).sum() >= 3  # the three pawns at least
    for a, b in zip(got[:3] + got[4:], full):  # (clear_black is `_dome`'s own)
        assert np.array_equal(a, b, equal_nan=True)


def test_the_darkest_radius_is_numpys_first_argmin():
    from tablecam.vision.enix_pawns import _darkest_radius

    rng = np.random.default_rng(3)
    band = rng.integers(0, 4, (300, 13, 12)).astype(np.float32)  # many ties: the first lowest wins
    radii = np.arange(3.0, 9.01, 0.5)
    assert np.array_equal(_darkest_radius(band, radii), radii[np.argmin(band, axis=1)])


def test_ring_means_on_a_window_are_the_whole_patchs_there():
    """The peaks' ring means are taken on the window where peaks are looked for (a smaller transform):
    the means of the whole patch there, to float32 rounding."""
    from tablecam.vision.enix_pawns import _ring_means

    lum = _luminance(_noisy_patches(1)[0])
    rings = ((0.0, 2.5), (5.5, 7.5), (0.0, 4.8), (8.8, 11.2))
    for inset in (13, 30):
        for part, whole in zip(_ring_means(lum, rings, READ_PX_PER_MM, inset), _ring_means(lum, rings, READ_PX_PER_MM)):
            assert part.shape == (184 - 2 * inset,) * 2
            assert np.allclose(part, whole[inset:-inset, inset:-inset], rtol=0, atol=2e-6)


@pytest.mark.parametrize("rows, cols", [(216, 216), (216, 225), (225, 216), (27, 30)])
def test_the_ring_kernels_gain_is_its_spectrum_with_no_imaginary_part(rows, cols):
    """`_ring_means` scales a packed spectrum by `_kernel_gain`: exactly mulSpectrums by the kernel's
    spectrum with its imaginary parts (rounding: the kernel is symmetric) set to zero - found here by
    the packed layout's own product (1 + i)(1 + i) = 2i - and within rounding of the full product."""
    from tablecam.vision.enix_pawns import _kernel_gain, _kernel_spectrum

    spectrum = _kernel_spectrum(0.0, 2.5, READ_PX_PER_MM, rows, cols)
    ones = np.ones((rows, cols), np.float32)
    imaginary = cv2.mulSpectrums(ones, ones, 0) == 2
    assert np.abs(spectrum[imaginary]).max() < 1e-6
    real = np.where(imaginary, 0, spectrum).astype(np.float32)
    image = cv2.dft(np.random.default_rng(5).random((rows, cols), np.float32))
    scaled = image * _kernel_gain(0.0, 2.5, READ_PX_PER_MM, rows, cols)
    assert np.array_equal(scaled, cv2.mulSpectrums(image, real, 0))
    assert np.allclose(scaled, cv2.mulSpectrums(image, spectrum, 0), rtol=0, atol=1e-4)


def test_ring_means_are_filter2ds_with_the_edge_replicated():
    """`_ring_means` (one transform of the patch, each ring's gain, the scaling folded into it) is the
    mean over each annulus that cv2.filter2D gives, to float32 rounding."""
    from tablecam.vision.enix_pawns import _disc_kernel, _ring_means

    lum = _luminance(_noisy_patches(1)[0])
    rings = ((0.0, 2.5), (5.5, 7.5), (0.0, 4.8), (8.8, 11.2))
    for inset in (0, 13):
        for (r0, r1), got in zip(rings, _ring_means(lum, rings, READ_PX_PER_MM, inset)):
            want = cv2.filter2D(lum, -1, _disc_kernel(r0, r1, READ_PX_PER_MM), borderType=cv2.BORDER_REPLICATE)
            assert np.allclose(got, want[inset:184 - inset, inset:184 - inset], rtol=0, atol=2e-6)


def test_ring_means_read_from_the_stacks_padding_are_those_of_the_patch_alone():
    """The peaks' transform reads the replicated edge from the padded stack: the very means of the
    patch padded again (and of a border too narrow to reach, padded again)."""
    from tablecam.vision.enix_pawns import _ring_means

    lum = _luminance(_noisy_patches(1)[0])
    rings = ((0.0, 2.5), (5.5, 7.5), (0.0, 4.8), (8.8, 11.2))
    for border in (STACK_PAD, 4):
        padded = cv2.copyMakeBorder(lum, border, border, border, border, cv2.BORDER_REPLICATE)
        for inset in (13, 30):
            for a, b in zip(_ring_means(padded, rings, READ_PX_PER_MM, inset, border),
                            _ring_means(lum, rings, READ_PX_PER_MM, inset)):
                assert a.shape == (184 - 2 * inset,) * 2
                assert np.array_equal(a, b)


def test_the_transform_size_is_one_cv2_transforms_fast_and_big_enough():
    from tablecam.vision.enix_pawns import _dft_size

    for n in range(1, 400):
        size = _dft_size(n)
        assert n <= size <= cv2.getOptimalDFTSize(n)
    assert _dft_size(204) == 208  # the peaks' window and its reach (216 by getOptimalDFTSize)


def test_the_luminance_of_pixels_is_the_weighted_sum_of_their_linear_channels():
    """`_luminance` of uint8 pixels (channel planes, each by its own table) is the very value of the
    weighted sum it takes of float pixels, whatever the array's shape."""
    rng = np.random.default_rng(11)
    bgr = rng.integers(0, 256, (4, 50, 60, 3)).astype(np.uint8)
    bgr[0, 0, :27] = np.array(np.meshgrid(*[[0, 128, 255]] * 3)).reshape(3, -1).T  # the extremes too
    want = _luminance(bgr.astype(np.float32))
    assert np.array_equal(_luminance(bgr), want)
    assert np.array_equal(_luminance(bgr[1]), want[1])
    assert np.array_equal(_luminance(bgr[2, 3]), want[2, 3])  # (pixels, 3)
    assert _luminance(bgr[:0]).shape == (0, 50, 60)


def test_a_paired_colour_fit_is_the_diagonal_of_all_against_all():
    """piece_colours.fit_residuals(paired=True): each pixel under its own reference, clipped channels
    or not, as the diagonal of every pixel under every reference (to float32 rounding)."""
    from tablecam.vision.piece_colours import fit_residuals

    rng = np.random.default_rng(7)
    pixels = rng.integers(0, 256, (200, 3)).astype(np.float32)
    pixels[::7, 1] = 255  # clipped
    refs = rng.integers(0, 256, (200, 3)).astype(np.float32)
    for kw in ({}, {"k_range": (0.0, 1.0), "w_max": 0.0}):
        paired = fit_residuals(pixels, refs, paired=True, **kw)
        assert paired.shape == (200, 1)
        assert np.allclose(paired[:, 0], np.diagonal(fit_residuals(pixels, refs, **kw)), rtol=1e-4, atol=1e-6)
    with pytest.raises(ValueError):
        fit_residuals(pixels, refs[:3], paired=True)


# --- session 7: no invented pawns ------------------------------------------------------------------
def _padded(lum: np.ndarray) -> np.ndarray:
    return cv2.copyMakeBorder(lum, STACK_PAD, STACK_PAD, STACK_PAD, STACK_PAD, cv2.BORDER_REPLICATE)[None]


def test_a_dark_band_through_a_point_is_a_strip_a_black_pawn_is_not():
    """The shadow a hand casts along its edge is a dark band longer than a pawn (tuning seed 5011:
    two black pawns invented on it); a black pawn is a dark disc, also beside the cap (dark on
    one side only), and on the blue tile, whose luminance is low but its blue bright (5759: a black
    pawn against the cap there was taken for a shadow)."""
    from tablecam.vision.enix_pawns import _dark_strip

    at = (np.zeros(1, np.intp), np.array([92]), np.array([92]))
    yy, xx = np.mgrid[0:184, 0:184]
    r = np.hypot(xx - 92, yy - 92) / READ_PX_PER_MM
    cap = np.hypot(xx - 92 - 27 * READ_PX_PER_MM, yy - 92) <= 17 * READ_PX_PER_MM
    black = (35, 35, 35)
    for tile in ((190, 190, 190), (200, 90, 30)):  # a grey tile, the water tile (sRGB BGR)
        pawn = np.zeros((184, 184, 3), np.uint8)
        pawn[:] = tile
        pawn[r <= 8.0] = black
        assert not _dark_strip(_stack([pawn]).bgr, *at)[0]
        beside_cap = pawn.copy()
        beside_cap[cap] = (20, 20, 20)
        assert not _dark_strip(_stack([beside_cap]).bgr, *at)[0]
        band = np.zeros((184, 184, 3), np.uint8)
        band[:] = tile
        band[:, 92 - 8:92 + 8] = black  # 8 mm wide, across the patch
        assert _dark_strip(_stack([band]).bgr, *at)[0]


def _ring_patch(n: int = 184) -> np.ndarray:
    """A source's white ring (12-16 mm round the middle, brightest along its middle line) on a
    purple tile, with a dark inner disc: luminance, padded stack."""
    yy, xx = np.mgrid[0:n, 0:n]
    r = np.hypot(xx - n // 2, yy - n // 2) / READ_PX_PER_MM
    lum = np.where(r < 9.0, 0.1, 0.15).astype(np.float32)
    on = (r >= 9.0) & (r <= 17.0)
    lum[on] = 0.9 - 0.5 * np.abs(r[on] - 13.0) / 4.0
    return _padded(lum)


def test_a_white_tops_rim_brighter_than_it_somewhere_is_the_sources_ring():
    """A stretch of the ring is brightest along the ring, past the point: its rim there is as bright
    as its top (tuning seeds 5004, 5028, 5104: white pawns invented so); a dome's top is its brightest."""
    from tablecam.vision.enix_pawns import RING_GOES_ON, _brightest_rim

    ring = _ring_patch()
    at = (np.zeros(1, np.intp), np.array([92 + 26]), np.array([92]))  # on the ring, 13 mm out
    assert _brightest_rim(ring, *at)[0] >= RING_GOES_ON
    dome = _luminance(_pawn_patch((150, 60, 120), (240, 242, 244), (92, 92)))
    assert _brightest_rim(_padded(dome), np.zeros(1, np.intp), np.array([92]), np.array([92]))[0] < RING_GOES_ON


def test_a_pale_fingertip_is_asked_whether_its_colour_goes_on():
    """A lit fingertip's top is pale enough for the print's white, which used to let it be (tuning
    seeds 5047, 5094, 5109: fingertips read brown); its colour going on past the rim now drops it
    unless it is read as the white pawn."""
    from tablecam.vision.enix_pawns import _beyond_rim_fits, _goes_on

    skin = (190, 210, 240)  # pale, lit skin: the print's white explains it
    finger = np.empty((184, 184, 3), np.uint8)
    finger[:] = (150, 60, 120)
    x, y, r = 92, 92, int(8 * READ_PX_PER_MM)
    cv2.circle(finger, (x, y), r, skin, -1)
    cv2.rectangle(finger, (x, y - r), (183, y + r), skin, -1)  # the finger runs off the patch
    assert _goes_on(_beyond_rim_fits(_stack([finger]).bgr, np.zeros(1, np.intp), np.array([x]), np.array([y])))[0]


def test_the_colour_fits_clip_is_numpys_own():
    """piece_colours._clip (np.clip without its dispatch, nine times a fit): the very values, with
    array or scalar bounds, in place or not."""
    from tablecam.vision.piece_colours import _clip

    rng = np.random.default_rng(11)
    a = (rng.random((300, 7)) * 4 - 1).astype(np.float32)
    a[::9] = 0.5  # values on a bound
    hi = rng.random(7).astype(np.float32) + 0.5
    for lo, top in ((0.0, hi), (0.35, 3.0), (0.0, 0.5)):
        want = np.clip(a, lo, top)
        got = _clip(a, lo, top)
        assert got.dtype == want.dtype and np.array_equal(got, want)
        inplace = a.copy()
        _clip(inplace, lo, top, out=inplace)
        assert np.array_equal(inplace, want)


def _finger_patch(skin=(120, 150, 200), tile=(150, 60, 120), at=(92, 92), n: int = 184) -> np.ndarray:
    """A fingertip (a dome 16 mm wide, shaded like a pawn's) on a tile, its finger running on to the
    patch's right edge in the same colour, shaded across its width."""
    patch = _pawn_patch(tile, skin, at, n).astype(np.float32)
    yy, xx = np.mgrid[0:n, 0:n]
    across = np.abs(yy - at[1]) / READ_PX_PER_MM
    finger = (xx >= at[0]) & (across <= 8.0)
    shade = np.clip(1.0 - 0.85 * (across / 8.0) ** 3, 0.15, 1.0)
    patch[finger] = np.asarray(skin, np.float32) * shade[finger, None]
    return np.clip(patch, 0, 255).astype(np.uint8)


def _spreads(patch: np.ndarray, at) -> bool:
    from tablecam.vision.enix_pawns import _spreading, _top_colours

    stack = _stack([patch])
    k, x, y = np.zeros(1, np.intp), np.array([at[0]]), np.array([at[1]])
    return bool(_spreading(stack, k, x, y, _top_colours(stack.bgr, k, x, y))[0])


@pytest.mark.parametrize("pawn_bgr", [(38, 74, 122), (34, 34, 34), (180, 122, 240), (60, 224, 180)])
def test_a_fingertips_colour_runs_on_along_its_finger_a_pawns_ends_at_its_rim(pawn_bgr):
    """Under a hand, fingertips are domes of a pawn's size, brown or dark in shade (tuning seeds
    5000-5399: 11 of 16 invented pawns): the tip's colour, shaded, runs on along the finger,
    whichever way it lies; a pawn's colour ends at its rim, also near the patch's edge (the
    padding repeats the edge, which is not the frame)."""
    tile = (150, 60, 120)
    assert not _spreads(_pawn_patch(tile, pawn_bgr, (92, 92)), (92, 92))
    assert not _spreads(_pawn_patch(tile, pawn_bgr, (8, 92)), (8, 92))  # half off the patch
    assert _spreads(_finger_patch(pawn_bgr, tile), (92, 92))
    assert _spreads(cv2.rotate(_finger_patch(pawn_bgr, tile), cv2.ROTATE_90_CLOCKWISE), (91, 92))


def test_a_white_top_one_short_of_round_is_a_pawn_when_pure_white_lit_and_dark_all_round():
    """Crowded on a source, a white pawn's neighbours shift where its rim is darkest in one direction
    (tuning seeds 5068, 5135, 5424, 5446: white pawns missed); the print's white is let be one short
    no more than before: a ring's stretch is tinted by its tile and its rim goes on bright. A lit
    colour is one short as before; without a white pawn in the palette, no white is."""
    from tablecam.vision.enix_pawns import _lit_or_clear_white

    names, refs = pawn_palette()
    white = refs[_white_index(refs)]
    pawn = _pawn_patch((40, 200, 240), (240, 242, 244), (92, 92))
    at = (np.zeros(1, np.intp), np.array([92]), np.array([92]))
    lum = _padded(_luminance(pawn))
    pure, tinted, grey, pink = (np.array([c], np.float32) for c in ((240, 242, 244), (200, 215, 235), (110, 112, 114),
                                                                   (180, 122, 240)))
    assert _lit_or_clear_white(lum, *at, pure, white)[0]
    assert not _lit_or_clear_white(lum, *at, pure, None)[0]  # no white pawn taught
    assert not _lit_or_clear_white(lum, *at, tinted, white)[0]  # the tile's colour in it: print
    assert not _lit_or_clear_white(lum, *at, grey, white)[0]  # in shade: not sure enough
    assert _lit_or_clear_white(lum, *at, pink, white)[0] and _lit_or_clear_white(lum, *at, pink, None)[0]
    ring_at = (np.zeros(1, np.intp), np.array([92 + 26]), np.array([92]))
    assert not _lit_or_clear_white(_ring_patch(), *ring_at, pure, white)[0]  # its rim goes on bright


def test_nothing_on_the_cap_or_its_edge_is_a_pawn_a_pawn_beside_it_is():
    """The cap's blurred edge under a hand was read as a black pawn 17.5 mm from its centre as read
    (tuning seed 5495); a pawn beside the cap stands 25 mm from its centre, which is read up to
    5.3 mm off. The cap's readings are dropped before any pawn hides a neighbour."""
    from tablecam.vision.enix_pawns import CAP_CLEAR_MM, CAP_MM, PAWN_MM, find_pawns

    names, refs = pawn_palette()
    patch = _pawn_patch((150, 60, 120), (180, 122, 240), (92 + 20, 92))
    (pawn,) = find_pawns([patch], [(100.0, 100.0)], names, refs)
    assert pawn.colour == "pink"
    x, y = pawn.centre
    assert not find_pawns([patch], [(100.0, 100.0)], names, refs, cap=(x + CAP_CLEAR_MM - 0.5, y))
    beside = (x - (CAP_MM + PAWN_MM) / 2 + 4.0, y)  # the cap's centre read 4 mm off towards the pawn
    assert find_pawns([patch], [(100.0, 100.0)], names, refs, cap=beside) == [pawn]


def _black_pawn_on_a_ring(n: int = 184) -> np.ndarray:
    """A black pawn standing on a source's white ring (9-17 mm round the source's middle, 13 mm to
    the pawn's left) on a blue tile, blurred as a render's lit tile is into a pawn's rim (tuning
    seeds 5393 and 5486)."""
    at = (92, 92)
    patch = np.empty((n, n, 3), np.float32)
    patch[:] = (200, 120, 40)
    yy, xx = np.mgrid[0:n, 0:n]
    from_source = np.hypot(xx - (at[0] - 13.0 * READ_PX_PER_MM), yy - at[1]) / READ_PX_PER_MM
    patch[(from_source >= 9.0) & (from_source <= 17.0)] = (240, 242, 244)
    r = np.hypot(xx - at[0], yy - at[1]) / READ_PX_PER_MM
    shade = np.clip(1.0 - 0.85 * (r / 8.0) ** 3, 0.15, 1.0)
    pawn = r <= 8.0
    patch[pawn] = np.float32(34) * shade[pawn, None]
    return cv2.GaussianBlur(np.clip(patch, 0, 255).astype(np.uint8), (0, 0), 2.0 * READ_PX_PER_MM)


def test_a_black_pawn_whose_rim_takes_in_a_sources_ring_is_read_by_its_flank(monkeypatch):
    """On a source's white ring the rim 5.5-7.5 mm out takes in the blurred print and is no longer
    the black top in shade (tuning seeds 5393, 5486: black pawns missed so); a black top with bright
    surroundings all round is read by its flank 5-6 mm out. A fingertip's black (its finger going on
    behind it, as dark) is not clear all round, so it is not given the flank."""
    import tablecam.vision.enix_pawns as pawns_module

    names, refs = pawn_palette()
    patch = _black_pawn_on_a_ring()
    stack = _stack([patch])
    at = (np.zeros(1, np.intp), np.array([92]), np.array([92]))
    assert not pawns_module._same_colour_rims(stack.bgr, *at)[0]  # the ring's white is in the rim
    assert pawns_module._dome(stack.lum, *at)[3][0]  # black, clear all round
    assert pawns_module._black_flank(stack.bgr, *at)[0]
    (pawn,) = pawns_module.find_pawns([patch], [(100.0, 100.0)], names, refs)
    assert pawn.colour == "black" and math.dist(pawn.centre, (100.0, 100.0)) < 1.5
    finger = _stack([_finger_patch((34, 34, 34), (200, 120, 40))])
    assert not pawns_module._dome(finger.lum, *at)[3][0]
    monkeypatch.setattr(pawns_module, "_black_flank", lambda bgr, k, x, y, top=None: np.zeros(len(x), bool))
    assert not pawns_module.find_pawns([patch], [(100.0, 100.0)], names, refs)


def _ringed(top_bgr, flank_bgr, tile_bgr, n: int = 184) -> np.ndarray:
    """A patch with a top (to 3 mm), a flank (to 8 mm) and the tile beyond, round its middle."""
    yy, xx = np.mgrid[0:n, 0:n]
    r = np.hypot(xx - n // 2, yy - n // 2) / READ_PX_PER_MM
    patch = np.empty((n, n, 3), np.uint8)
    patch[:] = tile_bgr
    patch[r <= 8.0] = flank_bgr
    patch[r <= 3.0] = top_bgr
    return patch


def test_a_clipped_tops_flank_is_asked_to_be_its_pawn_colour_in_shade():
    """A lit pink top clipped in red and blue reads (255, 175, 255), its flank a deeper pink: the
    flank is not that top in shade, but it is the pink pawn's colour in shade (tuning seeds 5388,
    5393, 5503: pink pawns missed so). A path point's pale top on the red tile, clipped in red,
    fits pink too; its flank, the red tile in shade, is no pink."""
    import tablecam.vision.enix_pawns as pawns_module

    _, refs = pawn_palette()
    at = (np.zeros(1, np.intp), np.array([92]), np.array([92]))
    pink = _stack([_ringed((255, 175, 255), (124, 86, 174), (45, 40, 200))]).bgr
    assert not pawns_module._same_colour_rims(pink, *at)[0]
    assert pawns_module._same_colour_rims(pink, *at, refs)[0]
    path_point = _stack([_ringed((226, 215, 255), (30, 28, 150), (45, 40, 200))]).bgr
    assert not pawns_module._same_colour_rims(path_point, *at, refs)[0]


def _black_pawn_against_the_cap(tile_bgr=(140, 60, 15), n: int = 184) -> np.ndarray:
    """A black pawn in the middle of a patch of the water tile (dark blue: bright blue, little
    luminance), the cap (34 mm) against it on its right, blurred as a render is."""
    patch = np.empty((n, n, 3), np.float32)
    patch[:] = tile_bgr
    yy, xx = np.mgrid[0:n, 0:n]
    patch[np.hypot(xx - 92 - 25.0 * READ_PX_PER_MM, yy - 92) <= 17.0 * READ_PX_PER_MM] = 22
    r = np.hypot(xx - 92, yy - 92) / READ_PX_PER_MM
    shade = np.clip(1.0 - 0.85 * (r / 8.0) ** 3, 0.15, 1.0)
    pawn = r <= 8.0
    patch[pawn] = np.float32(45) * (0.6 + 0.4 * shade[pawn, None])  # a glossy top, a dull dome
    return cv2.GaussianBlur(np.clip(patch, 0, 255).astype(np.uint8), (0, 0), 1.0 * READ_PX_PER_MM)


def test_a_black_pawn_against_the_cap_is_read_by_its_dark_body_the_caps_side_let_be(monkeypatch):
    """Against the cap a black pawn's surroundings are dark towards the cap, and on the blue or
    purple tile dark in luminance all round (tuning seeds 5244, 5453, 5563, 5759: missed so): its
    body is read against the brightest channel round it, the directions facing the cap let be."""
    import tablecam.vision.enix_pawns as pawns_module

    names, refs = pawn_palette()
    patch = _black_pawn_against_the_cap()
    cap = (125.0, 100.0)  # table mm: 25 mm right of the patch's middle, (100, 100)
    (pawn,) = pawns_module.find_pawns([patch], [(100.0, 100.0)], names, refs, cap=cap)
    assert pawn.colour == "black" and math.dist(pawn.centre, (100.0, 100.0)) < 1.5
    monkeypatch.setattr(pawns_module, "_beside_cap", lambda *args: [])
    assert not pawns_module.find_pawns([patch], [(100.0, 100.0)], names, refs, cap=cap)


def test_a_dome_of_no_pawns_colour_but_its_tiles_is_the_print_in_shade():
    """A source's inner disc in the shade of the pawns round it is darker than the print's own
    brightness, and no pawn colour explains it: it was read as a pawn of colour null (tuning seeds
    5619, 5793). Its tile's colour explains it: it is the tile's print, not a pawn."""
    names, refs = pawn_palette()
    water = (200, 90, 30)
    shaded = (127, 55, 15)  # the water tile's colour at 0.37 of its brightness (linear)
    patch = _pawn_patch(water, shaded, (92, 92))
    assert not _pawns_in_patches(_stack([patch]), names, refs, np.array([water], np.float32))[0]
    assert _pawns_in_patches(_stack([patch]), names, refs)[0] == [((92.0, 92.0), None)]  # no tile given


def _profiles(falls_at_mm: float, stays_lit=(), n_dirs: int = 12) -> np.ndarray:
    """One point's brightness profile (1, radii, directions) on `_RADII`: a top of 1.0 falling to
    0.1 over 2 mm about `falls_at_mm`, then flat; the directions `stays_lit` stay at 1.0 out to 10 mm."""
    import tablecam.vision.enix_pawns as pm

    r = pm._RADII[:, None] * np.ones((1, n_dirs))
    prof = np.clip(1.0 - 0.45 * (r - falls_at_mm + 1.0), 0.1, 1.0).astype(np.float32)
    prof[:, list(stays_lit)] = 1.0
    return prof[None]


def test_a_dome_is_round_where_its_brightness_falls_to_half_whatever_lies_beyond():
    """A pawn in a crowd: half its directions darkest at its rim, the others darker still beyond
    it, at its neighbours (tuning seeds 5284, 5495: white pawns missed so). Its brightness falls
    to half at the rim all round. A stretch of the print's ring does not fall along the ring."""
    import tablecam.vision.enix_pawns as pm

    def half_round(prof):
        band = prof[:, pm._R_BAND]
        return int(pm._half_round(band, prof[:, pm._R_TOP].reshape(1, -1).mean(axis=1),
                                  pm._extreme_over_radii(band, np.minimum))[0])

    crowd = _profiles(6.0)
    crowd[:, pm._RADII >= 9.0, :3] = 0.02  # neighbours' shadows on one side
    darkest = pm._darkest_radius(crowd[:, pm._R_BAND], pm._RADII[pm._R_BAND])
    assert (np.abs(darkest - pm._median(darkest)[:, None]) <= 1.0).sum() < pm.MIN_DARK_DIRECTIONS  # not round so
    assert half_round(crowd) == 12
    assert half_round(_profiles(6.0, stays_lit=(2, 8))) <= 10  # the ring going on both ways


def test_a_dome_round_only_where_it_falls_to_half_must_stand_on_its_tile(monkeypatch):
    """`_refined` keeps a dome round only by `_half_round` when its tile's print fills
    HALF_ROUND_GROUND of its surroundings (fingertips beside a tile were read so)."""
    import tablecam.vision.enix_pawns as pm

    def fake_dome(lum, k, x, y):
        n = len(x)
        return np.full(n, 12.0), np.zeros(n, bool), np.zeros(n, bool), np.zeros(n, bool), np.ones(n, bool)

    monkeypatch.setattr(pm, "_dome", fake_dome)
    monkeypatch.setattr(pm, "_same_colour_rims", lambda bgr, k, x, y, palette=None, colours=None: np.ones(len(x), bool))
    stack, tiles = _stack(_noisy_patches(1)), np.array([[0, 200, 245]], np.float32)
    args = (stack, np.array([0]), np.array([60]), np.array([60]), np.zeros(1), np.zeros(1), None, None)
    monkeypatch.setattr(pm, "_ground_shares", lambda bgr, k, x, y, t: np.full(len(k), pm.HALF_ROUND_GROUND - 0.01))
    assert _refined(*args, tiles) == []
    assert _refined(*args) == []  # (no tiles known: a dome round only by its half-way fall has no ground to stand on)
    monkeypatch.setattr(pm, "_ground_shares", lambda bgr, k, x, y, t: np.full(len(k), pm.HALF_ROUND_GROUND))
    assert len(_refined(*args, tiles)) == 1


def test_a_clipped_pawn_of_its_tiles_hue_is_told_by_its_flank():
    """A lime pawn on the yellow tile: its clipped top reads (100-115, 255, 255), which the tile's
    yellow explains better than lime (tuning seeds 5583, 5862: read as the tile's print). Its flank
    5-6 mm out is lime in shade, not yellow: a pawn. A flank of the tile's own colour, or a top not
    clipped, is not asked so."""
    import tablecam.vision.enix_pawns as pm

    yellow, lime = (0, 200, 245), (60, 224, 180)
    patch = np.empty((184, 184, 3), np.uint8)
    patch[:] = yellow
    yy, xx = np.mgrid[0:184, 0:184]
    r = np.hypot(xx - 92, yy - 92) / READ_PX_PER_MM
    patch[r <= 8.0] = (50, 180, 145)  # the lime flank in shade
    patch[r <= 3.0] = (105, 255, 255)  # its clipped top
    other = patch.copy()
    other[(r > 3.0) & (r <= 8.0)] = (0, 170, 210)  # the tile's yellow in shade
    stack = _stack([patch, other])
    k, x, y = np.array([0, 1, 0]), np.array([92, 92, 92]), np.array([92, 92, 92])
    tops = np.array([[105, 255, 255], [105, 255, 255], [105, 240, 240]], np.float32)
    refs, tiles = np.array([lime] * 3, np.float32), np.array([yellow] * 3, np.float32)
    assert pm._pawn_flank(stack.bgr, k, x, y, tops, refs, tiles).tolist() == [True, False, False]


def test_a_top_its_best_pawn_colour_explains_only_loosely_is_named_no_colour():
    """NAMED_RESIDUAL: a source's inner disc in a crowd's shade fits brown at 0.27 (tuning seeds
    5561, 5843); no pawn found on 5000-5899 fits its colour worse than 0.23."""
    import tablecam.vision.enix_pawns as pm

    names = ("white", "brown")
    assert pm._named(1, np.array([0.5, pm.NAMED_RESIDUAL - 0.01]), names) == "brown"
    assert pm._named(1, np.array([0.5, pm.NAMED_RESIDUAL + 0.01]), names) is None


def _unsure_of(top_bgr, flank_bgr, colour: str, dark_only: bool = False, taught=None) -> bool:
    """`_unsure` for a top (and its flank, on a grey tile) named `colour` of the model palette (or of
    `taught`), its arguments made as `_pawns_in_patches` makes them."""
    import tablecam.vision.enix_pawns as pm

    names, refs = pawn_palette(taught)
    c = names.index(colour)
    white = _white_index(refs)
    tops = np.array([top_bgr], np.float32)
    _, res, wash = pm._colour_fits(tops, refs)
    black = pm.srgb_to_linear(refs).max(axis=1) < pm.DARK_REF
    grey_black = black & (np.ptp(refs, axis=1) <= pm.WHITE_SPREAD)
    lit = ~black & (np.arange(len(names)) != (-1 if white is None else white))
    fits = int(np.argmin(res[0]))
    over_white = colour == "white" and lit[fits]
    asked = fits if over_white else c
    white_fits = np.array([white is not None and res[0, white] < pm.NAMED_RESIDUAL])
    bgr = _stack([_ringed(top_bgr, flank_bgr, (90, 90, 90))]).bgr
    at = (np.zeros(1, np.intp), np.array([92]), np.array([92]))
    return bool(pm._unsure(bgr, *at, tops, refs[[asked]], wash[:, asked], lit[[asked]], grey_black[[c]],
                           np.array([dark_only]), np.array([over_white]), white_fits)[0])


def test_a_colour_named_from_a_tint_of_white_is_unsure():
    """WASHED: a white pawn's warm top on the solar tile, (213, 222, 245), fits brown (with the lamp's
    white) better than white (tuning seed 6223: read brown); brown is mostly reflected white there
    (0.65). A lit glossy brown pawn's top is brown at 0.40 of white at most, and stays named."""
    assert _unsure_of((213, 222, 245), (108, 115, 130), "brown")
    assert not _unsure_of((138, 157, 196), (114, 126, 137), "brown")
    assert not _unsure_of((38, 74, 122), (25, 50, 80), "brown")


def test_a_clipped_colour_is_named_only_when_its_flank_is_that_colour_in_shade():
    """A top clipped in two channels has lost its hue there: a white pawn's (254, 240, 254) fits pink
    better than white. A pink pawn's flank is pink in shade, a white one's grey."""
    assert _unsure_of((254, 240, 254), (135, 138, 143), "pink")
    assert not _unsure_of((255, 175, 255), (124, 86, 174), "pink")


def test_a_grey_top_read_black_on_a_dome_is_unsure_by_its_dark_body_not():
    """GREY_TOP: a white pawn in a hand's shadow reads grey (144, 142, 141), which black with its gloss
    explains better than white (tuning seed 6266); black pawns read as domes are darker than 0.10.
    A glossy black read by its dark body against bright surroundings keeps its name."""
    assert _unsure_of((144, 142, 141), (99, 99, 97), "black")
    assert not _unsure_of((144, 142, 141), (99, 99, 97), "black", dark_only=True)
    assert not _unsure_of((60, 60, 60), (34, 34, 34), "black")


def test_white_by_the_slack_over_a_colour_its_flank_shows_is_unsure():
    """A pale top (230, 217, 240) fits pink best, white within WHITE_SLACK: read white. A white pawn's
    flank is grey (white pawns read so on 5000-6299: 0.36 and more from that colour); a pale pink
    pawn's is pink in shade, and the name white rests on the slack alone."""
    import tablecam.vision.enix_pawns as pm

    names, refs = pawn_palette()
    best, res, _ = pm._colour_fits(np.array([(230, 217, 240)], np.float32), refs)
    assert names[best[0]] == "white" and names[int(np.argmin(res[0]))] == "pink"
    assert _unsure_of((230, 217, 240), (124, 86, 174), "white")
    assert not _unsure_of((230, 217, 240), (122, 125, 136), "white")


TAUGHT_DARK = (("white", "#f2f0ea"), ("navy", "#1b2a4a"), ("dark green", "#1e4a2a"), ("maroon", "#5a1a22"),
               ("black", "#1c1c1c"))


@pytest.mark.parametrize("colour", ["navy", "dark green", "maroon"])
@pytest.mark.parametrize("with_white", [True, False])
def test_a_taught_dark_colour_under_gloss_keeps_its_name(colour, with_white):
    """WASHED is a share of the lamp's white: a dark lit colour (small channels) passes it under
    ordinary gloss, yet no white pawn's top is navy, dark green or maroon (white fits them at 1.0 and
    worse). Such a top is named; a palette with no white pawn has no tint of white to fear."""
    import tablecam.vision.enix_pawns as pm

    taught = TAUGHT_DARK if with_white else TAUGHT_DARK[1:]
    names, refs = pawn_palette(taught)
    ref = pm.srgb_to_linear(refs[names.index(colour)])
    top = linear_to_srgb(0.4 * ref + 0.05)  # in part lit, with some of the lamp's white on it
    tops = np.array([top], np.float32)
    best, res, wash = pm._colour_fits(tops, refs)
    assert names[best[0]] == colour and wash[0, best[0]] >= pm.WASHED  # what the rule once nulled
    flank = linear_to_srgb(0.3 * ref)
    assert not _unsure_of(tuple(top), tuple(flank), colour, taught=taught)


def test_a_grey_top_against_a_dark_tinted_colour_is_not_a_white_pawn_in_shade():
    """GREY_TOP was measured on black: an ink blue as dark as black (linear under DARK_REF) is not
    neutral, and a white pawn in shade (grey) does not explain a blue-grey top it names (white fits
    it at 0.5). That top keeps its name; black in the same palette is still unsure of a grey top."""
    import tablecam.vision.enix_pawns as pm

    taught = (("white", "#f2f0ea"), ("ink", "#101830"), ("black", "#1c1c1c"))
    names, refs = pawn_palette(taught)
    assert pm.srgb_to_linear(refs[names.index("ink")]).max() < pm.DARK_REF
    top = np.array([(134, 117, 113)], np.float32)
    best, _, _ = pm._colour_fits(top, refs)
    assert names[best[0]] == "ink" and pm._luminance(top)[0] > pm.GREY_TOP
    assert not _unsure_of((134, 117, 113), (70, 50, 40), "ink", taught=taught)
    assert _unsure_of((144, 142, 141), (99, 99, 97), "black", taught=taught)


def test_the_luminance_of_a_lone_pixel_is_that_of_a_one_pixel_image():
    px = np.array([10, 200, 30], np.uint8)
    assert _luminance(px) == pytest.approx(float(_luminance(px.reshape(1, 1, 3))[0, 0]))


def test_the_peak_scores_are_numpys_very_values():
    """`_dome_score` and `_dark_disc_score` work the dome and dark-disc scores out with OpenCV (faster on the transforms'
    strided windows): the very bits numpy's formulas give, for dark, bright and zero means, on
    strided windows as `_ring_means` hands them over."""
    import tablecam.vision.enix_pawns as pm

    rng = np.random.default_rng(5)
    big = [rng.random((60, 70)).astype(np.float32) ** 3 for _ in range(4)]  # many under the 1e-3 bound
    for a in big:
        a[:3] = 0.0
        a[3:6, :] = 1e-3
    top, rim, disc, around = (a[5:-5, 7:-7] for a in big)
    score, dark_disc = pm._dome_score(top, rim), pm._dark_disc_score(disc, around)
    want_score = (top - rim) / np.maximum(top, 1e-3)
    want_dark = (around - disc) / np.maximum(around, 1e-3) - 0.5
    assert score.dtype == dark_disc.dtype == np.float32
    assert np.array_equal(score.view(np.uint32), np.ascontiguousarray(want_score).view(np.uint32))
    assert np.array_equal(dark_disc.view(np.uint32), np.ascontiguousarray(want_dark).view(np.uint32))


def test_ring_colours_at_once_are_each_rings_own():
    """`_ring_colours` reads several rings in one gather and one sort: each ring's medians are
    `_ring_colour`'s, points near the stack's edge (clamped) and none at all included."""
    import tablecam.vision.enix_pawns as pm

    rng = np.random.default_rng(6)
    patches = [rng.integers(0, 256, (60, 60, 3), dtype=np.uint8) for _ in range(3)]
    stack = _stack(patches)
    k = np.array([0, 1, 2, 2, 1])
    x, y = np.array([30, 2, 57, 10, 45]), np.array([30, 40, 3, 58, 12])
    rings = (pm._TOP_RING, pm._RIM_RING, pm._INNER_RIM_RING)
    got = pm._ring_colours(stack.bgr, k, x, y, rings)
    assert got.shape == (5, 3, 3) and got.dtype == np.float32
    for j, radii in enumerate(rings):
        assert np.array_equal(got[:, j], pm._ring_colour(stack.bgr, k, x, y, radii))
    assert pm._ring_colours(stack.bgr, k[:0], x[:0], y[:0], rings).shape == (0, 3, 3)


def test_directions_counted_by_words_are_numpys_row_sums():
    """Session 13: `_count_true` counts a (points, 12) bool array's true directions per point from its
    bytes read as 32-bit words: numpy's row sums (intp), all-true and all-false rows, views and no
    points included; other shapes go to numpy."""
    import tablecam.vision.enix_pawns as pm

    rng = np.random.default_rng(13)
    for n in (0, 1, 7, 500):
        for p in (0.0, 0.3, 0.9, 1.0):
            m = rng.random((n, 12)) < p
            got = pm._count_true(m)
            assert got.dtype == np.intp and np.array_equal(got, m.sum(axis=1))
    wide = rng.random((40, 24)) < 0.5
    assert np.array_equal(pm._count_true(wide[:, ::2]), wide[:, ::2].sum(axis=1))  # (a strided view)
    assert np.array_equal(pm._count_true(wide), wide.sum(axis=1))  # (not twelve: numpy's sum)


def _floor_round_session12(prof, top, darkest_median, ask, lowest=None):
    """enix_pawns._floor_round as session 12 had it (the radii away from the rim made infinite)."""
    import tablecam.vision.enix_pawns as pm

    out = np.zeros(len(prof), np.intp)
    at = np.flatnonzero(ask)
    if len(at):
        band = prof[at, pm._R_BAND]
        lowest = pm._extreme_over_radii(band, np.minimum) if lowest is None else lowest[at]
        near_rim = np.abs(pm._RADII[pm._R_BAND][None, :, None] - darkest_median[at, None, None]) <= 1.0
        at_rim = pm._extreme_over_radii(band + np.where(near_rim, np.float32(0.0), np.float32(np.inf)), np.minimum)
        out[at] = (at_rim - lowest <= pm.ROUND_FLOOR * (top[at, None] - lowest)).sum(axis=1)
    return out


def test_the_floor_round_from_the_rims_run_of_radii_is_session12s():
    """Session 13: `_floor_round` takes each direction's least near the rim from the run of radii
    within 1 mm of the median darkest one (`_near_rim_min`): session 12's counts, for medians on
    every radius of the band and between two (the quarter millimetres), at its ends too, with
    ties and with the points' own or given lows."""
    import tablecam.vision.enix_pawns as pm

    rng = np.random.default_rng(14)
    band = pm._RADII[pm._R_BAND]
    for n in (0, 1, 9, 300):
        prof = (rng.integers(0, 40, (n, len(pm._RADII), 12)) / 40.0).astype(np.float32)  # (many ties)
        top = (rng.integers(20, 60, n) / 40.0).astype(np.float32)
        darkest = band[rng.integers(0, len(band), (n, 12))]
        median = pm._median(darkest)
        assert set(np.unique(median * 4) % 1) <= {0.0}  # (quarter millimetres)
        ask = rng.random(n) < 0.7
        lowest = pm._extreme_over_radii(prof[:, pm._R_BAND], np.minimum)
        for low in (None, lowest):
            assert np.array_equal(pm._floor_round(prof, top, median, ask, low),
                                  _floor_round_session12(prof, top, median, ask, low))
    # Each run alone: a median at each band radius and between each two, one direction low at one radius.
    medians = np.concatenate([band, (band[:-1] + band[1:]) / 2])
    for m in medians:
        for r in range(len(band)):
            prof = np.ones((1, len(pm._RADII), 12), np.float32)
            prof[0, pm._R_BAND.start + r, 3] = 0.0
            near = abs(band[r] - m) <= 1.0
            got = pm._near_rim_min(prof, np.array([0]), np.array([m]))
            assert got[0, 3] == (0.0 if near else 1.0) and (got[0, np.arange(12) != 3] == 1.0).all()


def test_the_module_median_of_one_row_is_numpys():
    """Session 13: `_print_brightness` takes a row's median by `_median`: np.median's float32 value
    for odd and even counts and repeated values."""
    import tablecam.vision.enix_pawns as pm

    rng = np.random.default_rng(16)
    for n in (1, 2, 6, 7, 40, 41):
        v = (rng.integers(0, 9, n) / 7.0).astype(np.float32) ** 2.2
        got = pm._median(v[None])[0]
        assert got.dtype == np.float32 and float(got) == float(np.median(v))


def test_local_maxima_over_their_box_are_the_whole_maps():
    """Session 13: `_local_maxima` dilates a score map only over the box of its points over MIN_SCORE
    and their reach: the points (and their order) of the whole map's dilation, for maps over the
    threshold nowhere, at one point, at the edges, in a corner, with plateaus and everywhere."""
    import tablecam.vision.enix_pawns as pm

    rng = np.random.default_rng(17)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7))
    r = 3
    for trial in range(300):
        h, w = (int(v) for v in rng.integers(8, 60, 2))
        score = (rng.random((h, w)) * rng.uniform(0.05, 0.6)).astype(np.float32)
        if trial % 4 == 0:
            score = np.round(score * 20) / 20  # (plateaus: equal neighbours)
        if trial % 5 == 1:
            score[:] = 0.05
            score[int(rng.integers(0, h)), int(rng.integers(0, w))] = 0.5  # (one point, maybe at an edge)
        if trial % 7 == 2:
            score[: h // 3, : w // 3] += 0.3  # (a corner)
        inner = score[r:-r, r:-r]
        want = np.divmod(np.flatnonzero((inner >= cv2.dilate(score, kernel)[r:-r, r:-r]) & (inner > pm.MIN_SCORE)),
                         w - 2 * r)
        got = pm._local_maxima(score, kernel, r)
        assert all(g.dtype == np.intp and np.array_equal(g, v) for g, v in zip(got, want))


def test_a_patch_pixel_to_mm_in_python_numbers_is_numpys():
    """Session 13: `_patch_to_mm` works in Python floats: the very values of its numpy arithmetic."""
    import tablecam.vision.enix_pawns as pm

    def numpy_way(centre, px, py, angle_deg):
        local = (np.array([px, py]) + 0.5) / pm.READ_PX_PER_MM - pm.PATCH_MM / 2
        a = math.radians(angle_deg)
        return (float(centre[0] + local[0] * math.cos(a) - local[1] * math.sin(a)),
                float(centre[1] + local[0] * math.sin(a) + local[1] * math.cos(a)))

    rng = np.random.default_rng(18)
    for _ in range(2000):
        centre = tuple(rng.uniform(-100, 900, 2))
        px, py = (float(v) for v in rng.uniform(-5, 190, 2))
        if rng.random() < 0.5:
            px, py = float(round(px)), float(round(py))
        angle = float(rng.choice([0.0, rng.uniform(-180, 180)]))
        assert pm._patch_to_mm(centre, px, py, angle) == numpy_way(centre, px, py, angle)


def test_the_sources_white_past_a_rim_is_the_print_a_fingers_skin_is_not():
    """A lit pawn clipped near white in glare fits the source's white ring past its rim as its own
    colour going on (tuning seed 6447: a pink pawn dropped as a finger; the end-to-end case is in
    test_enix_detect.py); that white is the print (`_white_beyond`), a pale finger's skin is not, so
    a fingertip's colour still goes on."""
    from tablecam.vision.enix_pawns import _white_beyond

    x, y, r = 92, 92, int(8 * READ_PX_PER_MM)
    one, at = np.zeros(1, np.intp), (np.array([x]), np.array([y]))
    ring = _pawn_patch((0, 200, 245), (255, 214, 255), (x, y))  # a clipped pink pawn on the yellow tile...
    cv2.rectangle(ring, (x + r + 2, 0), (183, 183), (230, 228, 226), -1)  # ... the source's white (in shade) on its right
    white = _white_beyond(_stack([ring]).bgr, one, *at)[0]
    right = np.cos(np.radians(np.arange(12) * 30.0 + 15.0)) > 0.9  # the two directions 15 deg either side of it
    assert white[right].all() and not white[~right].any()
    skin = (190, 210, 240)
    finger = np.empty((184, 184, 3), np.uint8)
    finger[:] = (150, 60, 120)
    cv2.circle(finger, (x, y), r, skin, -1)
    cv2.rectangle(finger, (x, y - r), (183, y + r), skin, -1)
    assert not _white_beyond(_stack([finger]).bgr, one, *at).any()


def test_a_reading_between_two_pawns_closer_than_a_pawn_fits_is_a_gap():
    """Three pawns on a source 20.8 mm apart leave the source's white between them, bright inside
    their dark flanks: read as a white dome 11-12 mm from each (2500146, and 13 more on the tuning
    sets), where no 16 mm pawn fits. It goes; a pawn with one close neighbour stays."""
    from tablecam.vision.enix_pawns import Pawn, _without_gaps

    ring = [Pawn(c, (100.0 + 12.0 * math.cos(a), 100.0 + 12.0 * math.sin(a)))
            for c, a in (("white", 0.0), ("black", 2 * math.pi / 3), ("brown", 4 * math.pi / 3))]
    gap = Pawn("white", (100.0, 100.0))
    assert _without_gaps(ring + [gap]) == ring
    assert _without_gaps([gap] + ring) == ring
    pair = [Pawn("black", (0.0, 0.0)), Pawn("white", (13.2, 0.0)), Pawn("pink", (40.0, 0.0))]
    assert _without_gaps(pair) == pair


def test_the_sources_white_between_three_pawns_is_no_white_pawn():
    """Seed 2500146: a white, a black and a brown pawn on the biomass source; the white between them
    was read as a fourth (white) pawn 11 mm from two of them."""
    from board_scenes import render_scene
    from tablecam.vision.enix import detect

    scene = render_scene("enix", 2500146)
    obs = detect(scene.image, profile=scene.profile)
    truth = [p["center_mm"] for p in scene.truth["pawns"]]
    assert all(min(math.dist(p["center_mm"], t) for t in truth) <= 7.0 for p in obs["pawns"])
    assert sorted(p["colour"] for p in obs["pawns"]) == sorted(p["colour"] for p in scene.truth["pawns"])


def _black_pawn_lum(at) -> np.ndarray:
    """The padded luminance of one patch with a black pawn at `at` (patch px) on a light tile."""
    return _stack([_pawn_patch((200, 210, 220), (34, 34, 34), at)]).lum[0]


def test_the_dark_disc_score_is_read_at_half_scale():
    """The dark-disc rings (wide and smooth) are read on the patch halved, a transform a quarter the
    size of the dome's: only the dome's rings are read at the patch's own scale."""
    import tablecam.vision.enix_pawns as pm

    seen = []
    real = pm._ring_means

    def spy(lum, rings, ppm, *args):
        seen.append((lum.shape, ppm, rings))
        return real(lum, rings, ppm, *args)

    lum = _black_pawn_lum((90, 95))
    pm._ring_means = spy
    try:
        pm._peaks(lum, STACK_PAD)
    finally:
        pm._ring_means = real
    dark_rings = ((0.0, 0.3 * pm.PAWN_MM), (0.55 * pm.PAWN_MM, 0.7 * pm.PAWN_MM))
    assert [(s, p) for s, p, r in seen if r == dark_rings] == [((lum.shape[0] // 2, lum.shape[1] // 2), READ_PX_PER_MM / 2)]
    assert all(p == READ_PX_PER_MM and dark_rings[0] not in r for s, p, r in seen if r != dark_rings)


@pytest.mark.parametrize("at", [(90, 95), (91, 96), (60.5, 120.25)])
def test_the_half_scale_dark_disc_score_peaks_where_the_full_scale_one_does(at):
    """Brought back to the patch's pixels, the half-scale score follows the full-scale one (within
    0.03 over the window), is as high at the black pawn's centre as anywhere, and a peak lies
    within a pixel of that centre, wherever it stands against the 2x2 blocks."""
    import tablecam.vision.enix_pawns as pm

    lum = _black_pawn_lum(at)
    margin, r = int(math.ceil(pm.RIM_RADII_MM[1] * READ_PX_PER_MM)) + 1, 3
    disc, around = pm._ring_means(lum, ((0.0, 0.3 * pm.PAWN_MM), (0.55 * pm.PAWN_MM, 0.7 * pm.PAWN_MM)),
                                  READ_PX_PER_MM, margin - r, STACK_PAD)
    full = pm._dark_disc_score(disc, around)
    half = pm._dark_disc_map(lum, STACK_PAD, margin - r)
    assert half.shape == full.shape
    assert float(np.abs(half - full).max()) < 0.03
    # (A drawn disc's score is a plateau: its top lies within a pixel or two of the centre at either scale.)
    o = margin - r
    assert float(half.max() - half[int(round(at[1])) - o, int(round(at[0])) - o]) < 0.002
    xs, ys = pm._peaks(lum, STACK_PAD)
    assert min(math.hypot(px - at[0], py - at[1]) for px, py in zip(xs, ys)) <= 1.0
