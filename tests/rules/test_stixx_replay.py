"""Stixx replay: board Observations and declarations → setup, pick, move, declare and end events."""

from __future__ import annotations

import copy
import random
from dataclasses import replace

import pytest

from tablecam.rules.stixx import basic, expert
from tablecam.rules.stixx.basic import full_board
from tablecam.rules.stixx.board import SLOTS, BoardPose, touching
from tablecam.rules.stixx.expert import ExpertState
from tablecam.rules.stixx.game import StixxState, expert_start, random_game, record, to_observation
from tablecam.rules.stixx.replay import Replay

POSE = BoardPose((400.0, 250.0), 23.0)


def observe(sticks, marker=None, frame=0, pose=POSE, slots=True) -> dict:
    engine = replace(basic.new_game(tuple(sticks)), marker=marker)
    obs = to_observation(StixxState("basic", engine, None, ""), frame, pose)
    if not slots:
        for stick in obs["sticks"]:
            stick["slot"] = None
    return obs


def without(sticks, *slots):
    sticks = list(sticks)
    for s in slots:
        sticks[s] = None
    return tuple(sticks)


def started() -> Replay:
    replay = Replay()
    replay.feed({"players": ["Ann", "Bob"]})
    [setup] = replay.feed(observe(full_board(), frame=1))
    assert setup["event"] == "setup" and setup["legal"] is True
    return replay


def test_a_pick_is_credited_and_lists_the_next_options():
    replay = started()
    [pick] = replay.feed(observe(without(full_board(), 20), marker=20, frame=2))
    assert (pick["event"], pick["player"], pick["slot"], pick["legal"], pick["next"]) == ("pick", "Ann", 20, True, "Bob")
    assert pick["options"] == sorted(touching(20))


def test_a_stick_not_touching_the_marker_is_flagged():
    replay = started()
    replay.feed(observe(without(full_board(), 20), marker=20, frame=2))
    far = next(s for s in range(SLOTS) if s not in touching(20) and s != 20)
    [pick] = replay.feed(observe(without(full_board(), 20, far), marker=far, frame=3))
    assert pick["legal"] is False and pick["player"] == "Bob" and "does not touch the marker (slot 20)" in pick["reason"]


def test_a_marker_left_behind_for_a_moment_is_fine_but_a_marker_put_astray_is_reported():
    replay = started()
    replay.feed(observe(without(full_board(), 20), marker=20, frame=2))
    nxt = sorted(touching(20))[0]
    assert [e["event"] for e in replay.feed(observe(without(full_board(), 20, nxt), marker=20, frame=3))] == ["pick"]
    assert replay.feed(observe(without(full_board(), 20, nxt), marker=nxt, frame=4)) == []
    astray = replay.feed(observe(without(full_board(), 20, nxt), marker=20, frame=5))
    assert [e["event"] for e in astray] == ["unexplained"] and f"belongs in slot {nxt}" in astray[0]["reason"]


def test_sticks_without_slot_numbers_are_placed_from_millimetres():
    replay = started()
    [pick] = replay.feed(observe(without(full_board(), 33), marker=33, frame=2, slots=False))
    assert pick["slot"] == 33


def test_slot_numbers_survive_the_board_reading_jumping_across_zero_degrees():
    replay = Replay()
    replay.feed(observe(full_board(), frame=1, pose=BoardPose((400.0, 250.0), 59.5)))
    # The detector now reads 0.4 degrees and numbers the slots in that frame.
    physical = BoardPose((400.0, 250.0), 60.4)
    sticks = without(full_board(), 12)
    obs = observe(sticks, marker=12, frame=2, pose=physical)
    detector = BoardPose((400.0, 250.0), 0.4)
    for stick in obs["sticks"]:
        stick["slot"] = detector.slot_at(stick["center_mm"])
    obs["board"]["rotation"] = 0.4
    events = replay.feed(obs)
    assert [(e["event"], e["slot"]) for e in events] == [("pick", 12)]


def test_declarations_change_the_number_of_picks():
    replay = started()
    replay.feed(observe(without(full_board(), 20), marker=20, frame=2))  # Ann
    [declare] = replay.feed({"declare": {"player": "Bob", "guess": "red", "of": "Ann", "right": False}})
    assert declare["player"] == "Bob" and "turn passes" in declare["reason"]
    [declare] = replay.feed({"declare": {"reveal": "blue"}})  # Ann, on turn again
    assert declare["player"] == "Ann" and "two sticks" in declare["reason"]
    a = sorted(touching(20))[0]
    [pick] = replay.feed(observe(without(full_board(), 20, a), marker=a, frame=3))
    assert (pick["player"], pick["picks_left"], pick["next"]) == ("Ann", 1, "Ann")


def test_a_stick_put_back_is_unexplained():
    replay = started()
    replay.feed(observe(without(full_board(), 20), marker=20, frame=2))
    events = replay.feed(observe(full_board(), marker=None, frame=3))
    assert [e["event"] for e in events] == ["unexplained"] and "appeared in slot 20" in events[0]["reason"]


def test_expert_moves_are_checked():
    replay = Replay()
    replay.feed({"players": ["Ann", "Bob"], "variant": "expert"})
    board = expert_start(random.Random(5))
    [setup] = replay.feed(to_observation(StixxState("expert", ExpertState(board, ("Ann", "Bob")), None, ""), 1))
    assert setup["legal"] is True and setup["variant"] == "expert"

    def moved(board, source, target):
        sticks = list(board)
        sticks[target], sticks[source] = sticks[source], None
        return tuple(sticks)

    source, target = expert.legal_moves(board)[0]
    board = moved(board, source, target)
    [move] = replay.feed(to_observation(StixxState("expert", ExpertState(board), None, ""), 2))
    assert (move["from"], move["to"], move["legal"], move["player"], move["next"]) == (source, target, True, "Ann", "Bob")
    assert move["links_after"] > move["links_before"]
    empty = [s for s in range(SLOTS) if board[s] is None]
    source, target = next((s, t) for s in range(SLOTS) if board[s] for t in empty
                          if not expert.judge(board, s, t).legal)
    board = moved(board, source, target)
    [move] = replay.feed(to_observation(StixxState("expert", ExpertState(board), None, ""), 3))
    assert (move["from"], move["to"], move["legal"], move["player"]) == (source, target, False, "Bob")
    assert "do not grow" in move["reason"]


@pytest.mark.parametrize("line, words", [
    ({"board": None}, "sticks"),
    ({"sticks": [{"colour": "pink", "center_mm": [0, 0], "slot": 1}]}, "pink"),
    ({"sticks": [{"colour": "red", "center_mm": [0, 0], "slot": 42}]}, "slot"),
    ({"sticks": [{"colour": "red", "center_mm": [0, 0], "slot": "3"}]}, "whole number"),
    ({"declare": {"reveal": "black"}}, "black"),
    ({"declare": {"guess": "red"}}, "right"),
    ({"declare": {"player": "Zoe", "reveal": "red"}}, "Zoe"),
    ({"declare": "red"}, "declare"),
    ({"game": "enix", "sticks": []}, "enix"),
])
def test_a_malformed_line_is_one_sentence_and_changes_nothing(line, words):
    replay = started()
    before = copy.deepcopy(replay.state)
    with pytest.raises(ValueError) as caught:
        replay.feed(line)
    assert words in str(caught.value) and ". " not in str(caught.value)
    assert replay.state == before


def test_random_legal_play_replays_without_a_false_alarm():
    for seed in range(8):
        variant = ("basic", "expert")[seed % 2]
        states = random_game(seed, players=2 + seed % 2, variant=variant)
        pose = BoardPose((380.0 + seed, 240.0), (seed * 11.3) % 60)
        replay = Replay()
        events = [e for line in record(states, pose) for e in replay.feed(line)] + replay.finish()
        alarms = [e for e in events if e.get("legal") is False or e["event"] == "unexplained"]
        assert alarms == [], (seed, alarms)
        actions = sum(1 for s in states[1:] if not s.declare)
        assert sum(1 for e in events if e["event"] in ("pick", "move")) == actions
        ends = [e for e in events if e["event"] == "end"]
        assert ends and ends[-1]["over"] is True and ends[-1]["reason"].startswith("the game is over: " +
                                                                                  states[-1].engine.over)


def test_view_gives_the_page_the_sticks_the_marker_and_what_may_be_taken():
    import json
    replay = started()
    replay.feed(observe(without(full_board(), 20), marker=20, frame=2))
    page = replay.view()
    assert page["marker"] == 20 and page["on_turn"] == "Bob" and page["options"] == sorted(touching(20))
    assert "20" not in page["sticks"] and len(page["sticks"]) == 41 and page["taken"]["Ann"] == [full_board()[20]]
    json.dumps(page)


def test_a_stick_of_unread_colour_is_not_taken_for_a_pick():
    replay = started()
    obs = observe(full_board(), frame=2)
    obs["sticks"][5]["colour"] = None
    assert replay.feed(obs) == []
    obs = observe(without(full_board(), 20), marker=20, frame=3)
    obs["sticks"][5]["colour"] = None
    assert [(e["event"], e["slot"]) for e in replay.feed(obs)] == [("pick", 20)]
