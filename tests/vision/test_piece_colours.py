"""Which taught colour a pixel shows (piece_colours.fit_residuals)."""

import numpy as np

from tablecam.vision.piece_colours import fit_residuals

RED, YELLOW, ORANGE, GREY = (40, 40, 200), (40, 210, 230), (30, 120, 235), (128, 128, 128)
REFS = np.array([RED, YELLOW, ORANGE, GREY], np.float32)


def test_shaded_and_clipped_pixels_take_their_own_colour_and_the_wash_share_changes_nothing():
    pixels = np.array([
        (20, 20, 110),  # red in shadow
        (60, 60, 255),  # red in the lamp: red clipped
        (60, 255, 255),  # bright yellow: red and green clipped
        (25, 100, 200),  # orange
        (90, 90, 90),  # grey
    ], np.float32)
    res = fit_residuals(pixels, REFS)
    assert list(np.argmin(res, axis=1)) == [0, 0, 1, 2, 3]
    res_again, wash = fit_residuals(pixels, REFS, with_wash=True)
    assert np.array_equal(res, res_again)  # asking for the wash share does not change the residuals
    assert wash.shape == res.shape and (wash >= 0).all() and (wash <= 1).all()
    # Unclipped pixels alone give the same residuals as in a batch with clipped ones.
    plain = [0, 3, 4]
    assert np.array_equal(fit_residuals(pixels[plain], REFS), res[plain])


def _reference_fit(pixel, colour, clipped, k_range, w_max, brightest):
    """One pixel under one colour, written out plainly in float64 (the model of piece_colours'
    docstring): least squares for x = k c + w over the channels the sensor did not clip, k and w
    bounded, k refitted for the bounded w, a clipped channel needing k c + w to reach it; the
    residual relative to the pixel's brightness, and the washed-out share w / (w + k max c)."""
    from tablecam.vision.piece_colours import srgb_to_linear

    x = srgb_to_linear(np.asarray(pixel, np.float32)).astype(np.float64)
    c = srgb_to_linear(np.asarray(colour, np.float32)).astype(np.float64)
    k_lo, k_hi = k_range[0], min(k_range[1], brightest / max(c.max(), 1e-6))
    use = ~np.asarray(clipped, bool)
    n = max(use.sum(), 1)
    sc, sx, scc, scx = (c * use).sum(), (x * use).sum(), (c * c * use).sum(), (c * x * use).sum()
    det = n * scc - sc * sc
    k = (n * scx - sc * sx) / det if det > 1e-10 else sx / max(sc, 1e-6)
    k = min(max(k, k_lo), k_hi)
    w = min(max((sx - k * sc) / n, 0.0), w_max)
    k = min(max((c * (x - w) * use).sum() / max(scc, 1e-9), k_lo), k_hi)
    if not use.all():
        k = min(max(k, ((x - w) / np.maximum(c, 1e-6))[~use].max(), k_lo), k_hi)
    predicted = k * c + w
    err = np.where(use, predicted - x, np.maximum(x - predicted, 0.0))
    return np.sqrt((err ** 2).sum() / 3) / (x.sum() / 3 + 0.03), w / max(w + k * c.max(), 1e-6)


def _random_case(seed, n, k):
    """Pixels (some channels at the sensor's limit) and colours away from neutral: a neutral
    colour's fit turns on float32 rounding (its slope is 0 within a few ulps), not on the layout."""
    rng = np.random.default_rng(seed)
    pixels = rng.integers(0, 256, (n, 3)).astype(np.float32)
    pixels[rng.random((n, 3)) < 0.15] = 255.0
    refs = rng.integers(20, 236, (k, 3)).astype(np.float32)
    refs = refs[np.ptp(refs, axis=1) >= 40]
    return pixels, refs, rng


def test_every_pixel_and_colour_is_the_plain_least_squares_fit_in_any_batch():
    """fit_residuals works on (colours, pixels) arrays and returns their transpose: the values must be
    each pixel's own fit under each colour, whatever the mix of clipped and unclipped pixels, the
    colours' own w_max, the gain range or the paired form (a wrong axis would mix pixels up)."""
    for seed, kw in enumerate([{}, dict(k_range=(0.0, 1.0), brightest=np.inf), dict(k_range=(0.3, 1.5), w_max=0.0)]):
        pixels, refs, rng = _random_case(seed, 300, 12)
        w_max = kw.pop("w_max", rng.choice(np.float32([0.0, 0.3, 0.6]), len(refs)))
        k_range, brightest = kw.get("k_range", (0.35, 3.0)), kw.get("brightest", 1.2)
        res, wash = fit_residuals(pixels, refs, w_max=w_max, with_wash=True, **kw)
        assert res.shape == wash.shape == (len(pixels), len(refs)) and res.dtype == wash.dtype == np.float32
        assert np.array_equal(fit_residuals(pixels, refs, w_max=w_max, **kw), res)
        clipped = pixels >= 250
        assert clipped.any(axis=1).sum() > 50 and (~clipped.any(axis=1)).sum() > 50  # both kinds of pixel
        w_each = np.broadcast_to(w_max, (len(refs),))
        expected = np.array([[_reference_fit(p, r, cl, k_range, w, brightest) for r, w in zip(refs, w_each)]
                             for p, cl in zip(pixels, clipped)])
        assert np.allclose(res, expected[..., 0], rtol=1e-4, atol=2e-3)
        assert np.allclose(wash, expected[..., 1], rtol=1e-4, atol=1e-4)
        # Paired: each pixel under its own colour (here one drawn per pixel), w_max one per pixel.
        own = refs[rng.integers(0, len(refs), len(pixels))]
        w_own = rng.choice(np.float32([0.0, 0.6]), len(pixels))
        given = rng.random((len(pixels), 3)) < 0.1  # a caller's own clipped channels
        paired, paired_wash = fit_residuals(pixels, own, given, w_max=w_own, paired=True, with_wash=True, **kw)
        assert paired.shape == (len(pixels), 1)
        expected = np.array([_reference_fit(p, r, cl, k_range, w, brightest)
                             for p, r, cl, w in zip(pixels, own, given, w_own)])
        assert np.allclose(paired[:, 0], expected[:, 0], rtol=1e-4, atol=2e-3)
        assert np.allclose(paired_wash[:, 0], expected[:, 1], rtol=1e-4, atol=1e-4)


def test_a_lone_unclipped_pixel_among_clipped_ones_is_fitted_as_if_alone():
    """The unclipped pixels of a batch are fitted as though on their own (as before the (K, N)
    layout): one such pixel alone takes BLAS's matrix-vector path, whose last bit may differ from
    its row in a matrix product - readings must not change with that."""
    for seed in range(20):
        pixels, refs, _ = _random_case(100 + seed, 6, 8)
        pixels[1:, 0] = 255.0  # all but the first have a clipped channel
        pixels[0] = np.minimum(pixels[0], 240.0)
        assert np.array_equal(fit_residuals(pixels, refs)[:1], fit_residuals(pixels[:1], refs))


def _bits(a):
    """An array's float32 values as their bit patterns (so that -0 and +0 differ too)."""
    return np.ascontiguousarray(a, np.float32).view(np.uint32)


def test_a_matte_fit_takes_shorter_sums_to_the_very_same_bits():
    """A fit with no reflected white (w_max +0 for every colour) skips the fit of the white level
    (it is +0 there) by `_unclipped_matte` and `_with_clipping_matte`: each must give the general
    path's very bits, residual and wash, unclipped and clipped, all against all and paired, for any
    gain range (neutral colours and pixels at the sensor's limit included)."""
    from tablecam.vision import piece_colours as pc

    for seed in range(12):
        pixels, refs, rng = _random_case(200 + seed, 60, 9)
        refs = np.concatenate([refs, np.float32([[128, 128, 128], [0, 0, 0]])])  # a neutral and a black one
        pixels[:3] = (0, 0, 0)  # black pixels: every sum 0
        pixels = (pixels + 0.5 * rng.integers(0, 2, pixels.shape)).astype(np.float32)  # medians' half levels
        k_range = [(0.35, 3.0), (0.0, 1.0), (0.3, 1.5)][seed % 3]
        x = pc._linear_planes(pixels)
        clipped = np.ascontiguousarray((pixels >= pc.SATURATED).T)
        assert clipped.any(axis=0).sum() > 10
        own = refs[rng.integers(0, len(refs), len(pixels))]
        for colours, paired in ((refs, False), (own, True)):
            matte = pc._refs(colours, 0.0, k_range, pc.BRIGHTEST, paired)
            assert matte.matte
            general = pc._refs(colours, 0.0, k_range, pc.BRIGHTEST, paired)
            general.matte = False  # (only what fit_residuals dispatches on)
            for fast, plain, args in ((pc._unclipped_matte, pc._unclipped, (x, )),
                                      (pc._with_clipping_matte, pc._with_clipping, (x, ))):
                extra = (clipped,) if plain is pc._with_clipping else ()
                got, got_wash = fast(*args, matte, *extra, k_range, True)
                want, want_wash = plain(*args, general, *extra, k_range, True)
                assert got.shape == want.shape and np.array_equal(_bits(got), _bits(want))
                assert got_wash.shape == want_wash.shape and np.array_equal(_bits(got_wash), _bits(want_wash))
    # A white bound of -0 is no matte fit (its white would be -0): the general path answers it.
    assert not pc._refs(REFS, np.float32(-0.0), (0.0, 1.0), pc.BRIGHTEST, False).matte
    assert not pc._refs(REFS, np.float32([0.0, 0.0, 0.1, 0.0]), (0.0, 1.0), pc.BRIGHTEST, False).matte


def test_pixels_all_clipped_read_as_among_unclipped_ones():
    """A batch whose every pixel has a clipped channel is fitted once, by the clipping fit alone:
    the same bits as those pixels' rows in a batch with unclipped pixels."""
    for seed in range(12):
        pixels, refs, rng = _random_case(300 + seed, 80, 6)
        lit = np.flatnonzero((pixels >= 250).any(axis=1))
        assert 10 < len(lit) < len(pixels)
        own = refs[rng.integers(0, len(refs), len(pixels))]
        for kw in ({}, dict(k_range=(0.0, 1.0), w_max=0.0)):
            res, wash = fit_residuals(pixels, refs, with_wash=True, **kw)
            alone, alone_wash = fit_residuals(pixels[lit], refs, with_wash=True, **kw)
            assert np.array_equal(_bits(alone), _bits(res[lit])) and np.array_equal(_bits(alone_wash), _bits(wash[lit]))
            res = fit_residuals(pixels, own, paired=True, **kw)
            assert np.array_equal(_bits(fit_residuals(pixels[lit], own[lit], paired=True, **kw)), _bits(res[lit]))
