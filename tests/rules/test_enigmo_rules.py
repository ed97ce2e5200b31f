"""Enigmo rules: the shutters a roll allows, opening checks, points at stake, the score pad."""

from __future__ import annotations

import pytest

from tablecam.rules.enigmo import pad as pads
from tablecam.rules.enigmo.pad import Pad
from tablecam.rules.enigmo.shutters import check_opening, options, points_at_stake, ways

CLOSED = (False,) * 10


def opened(*labels: int) -> tuple[bool, ...]:
    return tuple((n + 1) in labels for n in range(10))


def shutter_sets(dice, state=CLOSED):
    return [w.shutters for w in options(dice, state)]


def test_a_roll_opens_the_sum_the_difference_or_both_singles():
    assert shutter_sets((3, 4)) == [(7,), (1,), (3, 4)]


def test_the_sum_is_not_allowed_above_nine():
    assert shutter_sets((4, 6)) == [(2,), (4, 6)]
    assert shutter_sets((3, 6)) == [(9,), (3,), (3, 6)]


def test_both_singles_only_if_both_are_still_closed():
    assert shutter_sets((2, 5), opened(5)) == [(7,), (3,)]
    assert shutter_sets((2, 5), opened(2)) == [(7,), (3,)]


def test_a_double_allows_only_the_sum_or_shutter_zero_labelled_ten():
    assert shutter_sets((2, 2)) == [(4,), (10,)]
    assert shutter_sets((5, 5)) == [(10,)]  # 10 is above nine: only shutter 0
    assert all(w.kind != "singles" for w in ways((3, 3)))


def test_only_a_double_opens_shutter_zero():
    for a in range(1, 7):
        for b in range(1, 7):
            if a != b:
                assert all(10 not in w.shutters for w in ways((a, b)))


def test_an_option_whose_shutter_is_open_is_gone_and_none_left_opens_nothing():
    assert shutter_sets((3, 4), opened(7)) == [(1,), (3, 4)]
    assert shutter_sets((1, 1), opened(2, 10)) == []
    verdict = check_opening((1, 1), opened(2, 10), frozenset())
    assert verdict.legal and "opens nothing" in verdict.reason


def test_a_shutter_that_can_be_opened_must_be():
    verdict = check_opening((3, 4), CLOSED, frozenset())
    assert not verdict.legal and "had to open" in verdict.reason


def test_an_opening_must_match_one_allowed_way():
    assert check_opening((3, 4), CLOSED, frozenset({7})).legal
    assert check_opening((3, 4), CLOSED, frozenset({3, 4})).legal
    wrong = check_opening((3, 4), CLOSED, frozenset({5}))
    assert not wrong.legal and "shutter 5 opened" in wrong.reason
    both = check_opening((3, 4), CLOSED, frozenset({7, 1}))
    assert not both.legal


def test_half_of_both_singles_is_legal_but_incomplete():
    half = check_opening((3, 5), CLOSED, frozenset({3}))
    assert half.legal and not half.complete and "shutter 5 must open too" in half.reason


def test_points_at_stake_are_the_closed_labels_with_shutter_zero_worth_ten():
    assert points_at_stake(CLOSED) == 55
    assert points_at_stake(opened(10)) == 45
    assert points_at_stake(opened(1, 2, 3)) == 49
    assert points_at_stake(opened(1, 2, 3), red=True) == 98
    assert points_at_stake((True,) * 10) == 0


def test_a_right_proposal_wins_the_stake_and_a_wrong_one_loses_it():
    pad = Pad.new(("Ann", "Bob", "Cleo"))
    pad = pads.propose(pad, "Bob", True, 40)
    assert pad.as_dict() == {"Ann": 0, "Bob": 40, "Cleo": 0}
    pad = pads.propose(pad, "Bob", False, 55)
    assert pad.score("Bob") == -15 and pad.rounds_played == 2


def test_the_player_left_of_the_proposer_rolls_next():
    pad = pads.propose(Pad.new(("Ann", "Bob", "Cleo")), "Cleo", True, 10)
    assert pad.players[pad.on_turn] == "Ann"
    pad = pads.propose(pad, "Ann", True, 10)
    assert pad.players[pad.on_turn] == "Bob"


def test_the_game_ends_at_the_agreed_rounds_or_score():
    pad = Pad.new(("Ann", "Bob"), rounds=2)
    pad = pads.propose(pad, "Ann", True, 30)
    assert pads.over(pad) is None
    pad = pads.propose(pad, "Bob", True, 30)
    assert pads.over(pad) == "the agreed 2 rounds are played"
    assert pads.winners(pad)[0] == ("Ann", "Bob")
    pad = Pad.new(("Ann", "Bob"), target=100)
    pad = pads.propose(pad, "Bob", True, 110)
    assert pads.over(pad) == "Bob reached the agreed 100 points"
    assert pads.winners(pad) == (("Bob",), "Bob wins with 110 points")


def test_an_unknown_proposer_is_refused():
    with pytest.raises(ValueError, match="Zoe"):
        pads.propose(Pad.new(("Ann",)), "Zoe", True, 5)
