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
