"""Colour profiles: defaults from the games pages, and teaching from one photo of a row of pieces."""

import re
from pathlib import Path

import numpy as np
import pytest

from synthetic_table import Piece, Scene, profile_of, view
from tablecam.calibration.colours import (DEFAULT_COLOURS, ColourProfile, bgr_to_lab, default_profile, hex_to_rgb,
                                          teach_colours)
from tablecam.calibration.table import find_table
from tablecam.errors import UserError

GAMES_DIR = Path(__file__).resolve().parents[3] / "shared" / "games"
STIXX = [hex_to_rgb(hx) for _, hx in DEFAULT_COLOURS["stixx"][:6]]
# A real set is never exactly the page's colours.
REAL_STIXX = [(min(255, r + 12), max(0, g - 10), min(255, b + 6)) for r, g, b in STIXX]
WARM = (0.5, 0.8, 1.0)


def _sticks(colours, y=250.0, vertical=True, xs=None):
    xs = xs or [170 + 90 * i for i in range(len(colours))]
    return tuple(Piece((x, y + 8 * (i % 2)), c, 8, 47, angle_deg=0 if vertical else 90)
                 for i, (x, c) in enumerate(zip(xs, colours)))


def _teach(scene, game="stixx", names=None):
    img = view(scene)
    fix = find_table(img, scene.geometry, profile_of(scene.cam))
    return teach_colours(img, fix, game, names)


def _delta_e(rgb_a, rgb_b) -> float:
    a = bgr_to_lab(np.array([rgb_a[::-1]], dtype=float))
    b = bgr_to_lab(np.array([rgb_b[::-1]], dtype=float))
    return float(np.linalg.norm(a - b))


@pytest.mark.skipif(not GAMES_DIR.is_dir(), reason="shared/games is not beside the checkout")
@pytest.mark.parametrize("game", ["stixx", "enix"])
def test_defaults_are_the_colours_of_the_games_pages(game):
    text = (GAMES_DIR / f"{game}.md").read_text(encoding="utf-8")
    page = {m.group(2).lower() for m in re.finditer(r"(\w+) #([0-9a-fA-F]{6})", text)}
    ours = {hx[1:] for _, hx in DEFAULT_COLOURS[game]}
    assert ours <= page, f"{game} defaults not on its page: {ours - page}"
    assert len(ours) >= 6


def test_teaching_six_sticks_under_a_warm_lamp_learns_the_real_colours():
    scene = Scene(pieces=_sticks(REAL_STIXX), light_gain=WARM)
    result = _teach(scene)
    assert [p.name for p in result.pieces] == ["red", "orange", "yellow", "green", "blue", "purple"]
    for piece, true in zip(result.pieces, REAL_STIXX):
        assert _delta_e(piece.rgb, true) < 6.0, piece
    profile = result.profile
    assert profile.taught and profile.names[:6] == ("red", "orange", "yellow", "green", "blue", "purple")
    assert profile.rgb("marker") == hex_to_rgb("#8c8c8c")  # not in the row: keeps its default
    names, de = profile.classify(np.array([c[::-1] for c in REAL_STIXX], dtype=float))
    assert names == ["red", "orange", "yellow", "green", "blue", "purple"] and de.max() < 6.0
    assert result.warnings == ()


def test_sticks_lying_across_and_stones_with_chosen_names():
    across = _teach(Scene(pieces=_sticks(REAL_STIXX, vertical=False), seed=3))
    assert [p.name for p in across.pieces][0] == "red"
    stones = (Piece((300.0, 260.0), (235, 235, 225), 11.0), Piece((480.0, 240.0), (30, 30, 35), 11.0))
    result = _teach(Scene(pieces=stones, table_rgb=(40, 120, 60), seed=4), "micropul", ["white", "black"])
    assert result.profile.names == ("white", "black")
    assert _delta_e(result.pieces[0].rgb, (235, 235, 225)) < 8.0
    assert _delta_e(result.pieces[1].rgb, (30, 30, 35)) < 8.0


def test_a_missing_piece_is_one_sentence():
    scene = Scene(pieces=_sticks(REAL_STIXX[:5]), seed=5)
    with pytest.raises(UserError, match=r"^found 5 sticks, expected 6 \(red, orange"):
        _teach(scene)


def test_pieces_one_above_the_other_are_refused():
    pieces = tuple(Piece((400.0 + (i % 2), 60.0 + 65 * i), c, 47, 8) for i, c in enumerate(REAL_STIXX))
    with pytest.raises(UserError, match="side by side from left to right"):
        _teach(Scene(pieces=pieces, seed=6))


def test_a_swapped_order_is_flagged():
    swapped = [REAL_STIXX[4]] + REAL_STIXX[1:4] + [REAL_STIXX[0]] + [REAL_STIXX[5]]
    result = _teach(Scene(pieces=_sticks(swapped), seed=7))
    assert any("taught as red looks more like blue" in w for w in result.warnings)


def test_names_are_the_games_own_except_for_stones():
    scene = Scene(pieces=_sticks(REAL_STIXX))
    with pytest.raises(UserError, match="cannot be renamed"):
        _teach(scene, names=["a", "b", "c", "d", "e", "f"])
    with pytest.raises(UserError, match="no colours to teach"):
        _teach(scene, game="enigmo")


def test_profiles_round_trip_and_reject_bad_colours():
    p = default_profile("enix")
    assert ColourProfile.from_dict("enix", p.to_dict()) == p
    with pytest.raises(ValueError, match="#rrggbb"):
        ColourProfile.from_dict("enix", {"colours": {"solar": "yellow"}})
