"""Enigmo replay: shutter and dice Observations plus proposals → roll, open, guess and final events."""

from __future__ import annotations

import copy

import pytest

from tablecam.rules.enigmo.game import random_game, record
from tablecam.rules.enigmo.replay import Replay

A, B = (500.0, 380.0), (560.0, 410.0)


def obs(frame, open_labels=(), dice=((3, A), (4, B))) -> dict:
    return {"game": "enigmo", "frame_id": frame, "shutters": [(n + 1) in open_labels for n in range(10)],
            "dice": [{"value": v, "center_mm": list(p)} for v, p in dice]}


def started(players=("Ann", "Bob"), **agreed) -> Replay:
    replay = Replay()
    replay.feed({"players": list(players), **agreed})
    return replay


def test_a_roll_lists_the_allowed_shutters_and_whose_roll_it_is():
    replay = started()
    [roll] = replay.feed(obs(1))
    assert (roll["event"], roll["player"], roll["dice"], roll["options"], roll["at_stake"]) == \
        ("roll", "Ann", [3, 4], [[7], [1], [3, 4]], 55)


def test_the_same_dice_lying_still_are_not_a_new_roll_but_a_throw_is():
    replay = started()
    replay.feed(obs(1))
    assert replay.feed(obs(2, dice=((3, (503.0, 381.0)), (4, B)))) == []  # one die nudged
    replay.feed(obs(3, open_labels=(7,), dice=((3, (503.0, 381.0)), (4, B))))
    # Same values, thrown again: both dice landed elsewhere.
    [roll] = replay.feed(obs(4, open_labels=(7,), dice=((3, (420.0, 300.0)), (4, (650.0, 460.0)))))
    assert (roll["event"], roll["player"]) == ("roll", "Bob")
    replay.feed(obs(5, open_labels=(7, 1), dice=()))  # Bob opened 1; dice picked up
    [roll] = replay.feed(obs(6, open_labels=(7, 1), dice=((3, (420.0, 300.0)), (4, (650.0, 460.0)))))
    assert (roll["event"], roll["player"], roll["options"]) == ("roll", "Ann", [[3, 4]])


def test_an_opening_is_checked_against_the_roll():
    replay = started()
    replay.feed(obs(1))
    [ok] = replay.feed(obs(2, open_labels=(7,)))
    assert (ok["event"], ok["opened"], ok["legal"]) == ("open", [7], True)
    replay.feed(obs(3, open_labels=(7,), dice=((2, (420.0, 300.0)), (6, (650.0, 460.0)))))
    [bad] = replay.feed(obs(4, open_labels=(7, 5), dice=((2, (420.0, 300.0)), (6, (650.0, 460.0)))))
    assert (bad["legal"], bad["opened"]) == (False, [5]) and "allows only" in bad["reason"]


def test_an_opening_with_no_roll_is_flagged():
    replay = started()
    replay.feed(obs(1, dice=()))
    [bad] = replay.feed(obs(2, open_labels=(8,), dice=()))
    assert bad["legal"] is False and "no roll" in bad["reason"]


def test_a_roll_that_had_to_open_but_did_not_is_flagged_at_the_next_roll():
    replay = started()
    replay.feed(obs(1))
    events = replay.feed(obs(2, dice=((1, (420.0, 300.0)), (6, (650.0, 460.0)))))
    assert [e["event"] for e in events] == ["open", "roll"]
    assert events[0]["legal"] is False and events[0]["player"] == "Ann" and "had to open" in events[0]["reason"]


def test_the_points_at_stake_and_the_red_word_double():
    replay = started()
    replay.feed(obs(1))
    replay.feed(obs(2, open_labels=(3, 4)))
    [guess] = replay.feed({"guess": "Ann", "right": True, "red": True})
    assert (guess["at_stake"], guess["points"], guess["scores"], guess["next"]) == (96, 96, {"Ann": 96, "Bob": 0}, "Bob")


def test_a_wrong_guess_loses_the_stake_and_the_card_change_makes_no_event():
    replay = started()
    [guess] = replay.feed({"guess": "Ann", "right": False})  # proposing without rolling
    assert guess["points"] == -55
    assert replay.feed(obs(1, open_labels=range(1, 11), dice=())) == []
    assert replay.feed(obs(2, dice=())) == []
    [roll] = replay.feed(obs(3))
    assert roll["player"] == "Bob" and roll["at_stake"] == 55


def test_the_game_ends_at_the_agreed_score_with_a_final_event():
    replay = started(target=45)  # 55 - 7 = 48 points at stake
    replay.feed(obs(1))
    replay.feed(obs(2, open_labels=(7,)))
    events = replay.feed({"guess": "Ann", "right": True})
    assert [e["event"] for e in events] == ["guess", "final"]
    assert events[1]["over"] is True and events[1]["winners"] == ["Ann"]
    assert replay.finish() == []


def test_finish_gives_the_standing_when_the_record_stops_early():
    replay = started()
    replay.feed({"guess": "Bob", "right": True})
    [final] = replay.finish()
    assert final["over"] is False and final["winners"] == ["Bob"]


def test_players_join_as_they_propose_when_no_players_line():
    replay = Replay()
    replay.feed({"guess": "Zoe", "right": True})
    replay.feed(obs(1, open_labels=range(1, 11), dice=()))
    replay.feed(obs(2, dice=()))  # the next card
    [guess] = replay.feed({"guess": "Max", "right": False})
    assert guess["scores"] == {"Zoe": 55, "Max": -55}


def test_a_second_proposal_on_the_same_card_is_refused():
    replay = started()
    replay.feed({"guess": "Ann", "right": True})
    with pytest.raises(ValueError, match="same card"):
        replay.feed({"guess": "Bob", "right": True})


@pytest.mark.parametrize("line, words", [
    ({"shutters": [True] * 9}, "10 shutters"),
    ({"shutters": ["open"] + [False] * 9}, "shutter 1"),
    ({"shutters": [False] * 10, "dice": [{"value": 7, "center_mm": [1, 2]}]}, "between 1 and 6"),
    ({"shutters": [False] * 10, "dice": [{"center_mm": [1, 2]}]}, "value"),
    ({"guess": "Ann"}, "right"),
    ({"guess": "Zoe", "right": True}, "Zoe"),
    ({"guess": "Ann", "right": "yes"}, "true or false"),
    ({"dice": []}, "shutters"),
])
def test_a_malformed_line_is_one_sentence_and_changes_nothing(line, words):
    replay = started()
    replay.feed(obs(1))
    before = copy.deepcopy(replay.state)
    with pytest.raises(ValueError) as caught:
        replay.feed(line)
    assert words in str(caught.value) and ". " not in str(caught.value)
    assert replay.state == before


def test_random_legal_play_replays_without_a_false_alarm_and_scores_match():
    for seed in range(10):
        states = random_game(seed, players=2 + seed % 3, rounds=4)
        replay = Replay()
        events = [e for line in record(states, rounds=4) for e in replay.feed(line)] + replay.finish()
        alarms = [e for e in events if e.get("legal") is False or e["event"] == "unexplained"]
        assert alarms == [], (seed, alarms)
        [final] = [e for e in events if e["event"] == "final"]
        assert final["scores"] == dict(states[-1].scores) and final["over"] is True
        assert sum(1 for e in events if e["event"] == "roll") == sum(1 for s in states if s.action.endswith("rolls"))


def test_view_gives_the_page_the_roll_options_stake_and_scores():
    import json
    replay = started()
    replay.feed(obs(1, dice=((3, A), (5, B))))
    page = replay.view()
    assert (page["roll"], page["options"], page["at_stake"], page["next"]) == ([3, 5], [[8], [2], [3, 5]], 55, "Bob")
    replay.feed(obs(2, open_labels=(3,), dice=((3, A), (5, B))))
    assert replay.view()["options"] == [[3, 5]]  # half of both singles: only that way remains
    replay.feed({"guess": "Ann", "right": True})
    page = replay.view()
    assert page["scores"] == {"Ann": 52, "Bob": 0} and page["round"] == 2 and page["options"] == []
    json.dumps(page)
