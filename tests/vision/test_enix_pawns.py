"""The ENIX pawn reader's colour rule (enix_pawns.py) on small synthetic tops."""

from __future__ import annotations

import numpy as np
import pytest

from tablecam.vision.enix_pawns import _colour, _white_index, pawn_palette


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
