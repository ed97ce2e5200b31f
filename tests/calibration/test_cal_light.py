"""White balance from the markers: a warm lamp or a dim evening must not change the colours read."""

from dataclasses import replace

import numpy as np

from synthetic_table import INK, PAPER, Piece, Scene, profile_of, view
from tablecam.calibration.colours import bgr_to_lab
from tablecam.calibration.light import white_reference
from tablecam.calibration.table import find_table

WARM = (0.45, 0.75, 1.0)  # linear gains on B, G, R: an incandescent bulb
PIECE = Piece((400.0, 250.0), (40, 110, 200), 60.0, 60.0)  # a blue square in the middle of the table


def _measure(scene: Scene):
    img = view(scene)
    fix = find_table(img, scene.geometry, profile_of(scene.cam))
    return img, fix, white_reference(img, fix)


def _piece_colour(img, fix, light) -> np.ndarray:
    px = np.round(fix.table_to_image([PIECE.centre_mm])[0]).astype(int)
    patch = img[px[1] - 4:px[1] + 5, px[0] - 4:px[0] + 5].reshape(-1, 3)
    return light.correct_colours(np.median(patch, axis=0)[None])[0]


def test_a_colour_cast_is_measured_on_the_markers_and_removed():
    scene = replace(Scene(pieces=(PIECE,)), light_gain=WARM)
    img, fix, light = _measure(scene)
    w = np.array(light.white)
    assert w[2] > w[1] > w[0] + 40  # the camera saw warm paper
    corrected = light.correct(img)
    paper = light.correct_colours([light.white])[0]
    ink = light.correct_colours([light.black])[0]
    assert np.abs(paper - PAPER).max() <= 2 and np.abs(ink - INK).max() <= 2
    assert corrected.shape == img.shape and corrected.dtype == np.uint8
    seen = _piece_colour(img, fix, light)
    true = np.array(PIECE.rgb[::-1], dtype=float)
    assert np.linalg.norm(bgr_to_lab(seen[None]) - bgr_to_lab(true[None])) < 6.0
    assert light.warnings == ()


def test_the_same_piece_reads_the_same_under_two_lamps():
    cold_img, cold_fix, cold = _measure(replace(Scene(pieces=(PIECE,)), light_gain=(1.0, 0.9, 0.7)))
    warm_img, warm_fix, warm = _measure(replace(Scene(pieces=(PIECE,)), light_gain=WARM, seed=2))
    a = bgr_to_lab(_piece_colour(cold_img, cold_fix, cold)[None])
    b = bgr_to_lab(_piece_colour(warm_img, warm_fix, warm)[None])
    assert np.linalg.norm(a - b) < 5.0


def test_glare_and_dim_light_are_reported():
    _, _, glare = _measure(replace(Scene(), light_gain=(2.5, 2.5, 2.5)))
    assert any("saturated" in w for w in glare.warnings)
    _, _, dim = _measure(replace(Scene(), light_gain=(0.04, 0.04, 0.04), noise=0.5))
    assert any("the table is dim" in w for w in dim.warnings)


def test_the_lookup_tables_are_each_channels_own_sums_to_the_last_bit():
    """The three channels' tables are built at once: each must be what its channel alone gives."""
    from tablecam.calibration.light import INK_SRGB, PAPER_SRGB, LightReference, _lin, _srgb

    rng = np.random.default_rng(8)
    for k in range(300):
        white = tuple(float(v) for v in rng.uniform(0, 255, 3))
        black = white if k % 10 == 0 else tuple(float(v) for v in rng.uniform(0, 255, 3))  # flat: the 1e-4 floor
        tables = LightReference(white, black, ()).lookup_tables()
        for ch in range(3):
            w, b = _lin(white[ch]), _lin(black[ch])
            scale = (_lin(PAPER_SRGB) - _lin(INK_SRGB)) / max(w - b, 1e-4)
            alone = np.clip(np.round(_srgb((_lin(np.arange(256.0)) - b) * scale + _lin(INK_SRGB))), 0, 255)
            assert np.array_equal(tables[ch], alone.astype(np.uint8))


def test_bands_are_sampled_alike_all_at_once_or_one_by_one():
    """All markers' bands are read in one gather when they lie inside the frame; a band partly
    outside is read band by band, keeping only its points inside. The same samples either way."""
    from tablecam.calibration.light import _sample, _sample_bands

    rng = np.random.default_rng(9)
    image = rng.integers(0, 256, (120, 160, 3), dtype=np.uint8)
    inside = rng.uniform((0, 0), (159.4, 119.4), (3, 2, 50, 2))
    for px in (inside, inside * 1.3 - 20):  # all inside (one gather); partly outside (band by band)
        got = _sample_bands(image, px, 160, 120)
        for k in range(3):
            for j in range(2):
                assert np.array_equal(got[k][j], _sample(image, px[k, j], 160, 120))
