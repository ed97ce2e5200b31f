"""The ENIX pawn reader (enix_pawns.py) on small synthetic patches: the colour rule, the domes, and
the candidate checks batched over a frame's patches reading as each patch alone."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

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
    such pawns were missed). Without the floor rule the same dome is refused."""
    import tablecam.vision.enix_pawns as pawns_module

    lum, at = _dome_beside_the_cap(), (np.zeros(1, np.intp), np.array([92]), np.array([92]))
    quality, dark_only = pawns_module._dome(lum, *at)
    assert np.isfinite(quality[0]) and not dark_only[0]
    monkeypatch.setattr(pawns_module, "ROUND_FLOOR", -1.0)
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
        return quality, np.array([False, True, False, False, True, False])

    monkeypatch.setattr(pawns_module, "_dome", fake_dome)
    monkeypatch.setattr(pawns_module, "_same_colour_rims", lambda bgr, k, x, y: np.ones(len(x), bool))
    stack = _stack(_noisy_patches(1))
    got = _refined(stack, np.array([0, 0]), np.array([60, 100]), np.array([60, 100]), np.array([-1.0, 0.0, 1.0]),
                   np.zeros(3))
    # The first peak keeps its dome (offset -1, quality 12) over its dark body; the second has only a dark body.
    assert got == [(0, (12.0, 59, 60, False)), (1, (13.0, 100, 100, True))]
