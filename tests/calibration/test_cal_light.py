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
