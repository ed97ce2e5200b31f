"""Stixx followed live: the sticks that may be taken, illegal picks, the declarations, the end."""

import pytest

from tablecam.companion.games import stixx
from tablecam.errors import UserError
from tablecam.rules.stixx import game as stixx_game

from games_helpers import play, project, recorded, stixx_inputs

NAMES = ["Ann", "Bob", "Cleo"]
PLAYERS = [{"name": n, "stone_colour": c} for n, c in zip(NAMES, ("black", "white", "pink"))]


def until(inputs, frame):
    return [i for i in inputs if i[0] != "stable" or i[1]["frame_id"] <= frame]


def test_the_sticks_that_may_be_taken_are_shown_and_drawn():
    inputs = stixx_inputs(recorded("stixx"), NAMES)
    session = stixx.Session(PLAYERS)
    play(session, [i for i in inputs if i[0] == "stable" and i[1]["frame_id"] <= 3])
    view = session.view(project)
    # Bob took slot 3 and put the marker there: Cleo must take a stick touching it.
    assert view["stixx"]["marker"] == 3
    assert view["stixx"]["options"] == [0, 4, 8, 9, 13, 14]
    assert [o["slot"] for o in view["board"]["options"]] == [0, 4, 8, 9, 13, 14]
    for option in view["board"]["options"]:
        (x0, y0), (x1, y1) = option["line"]
        assert 0 < x0 < 1 and 0 < y1 < 1 and (x0, y0) != (x1, y1)
    assert view["todo"]["en"] == "Cleo: take a stick touching the marker (1 this turn)."
    assert [p["to_move"] for p in view["players"]] == [False, False, True]
    assert [p["taken"] for p in view["players"]] == [1, 1, 0]


def test_a_recorded_game_flags_the_illegal_pick_and_calls_the_winner_after_the_reveals():
    session = stixx.Session(PLAYERS)
    entries = play(session, stixx_inputs(recorded("stixx"), NAMES))
    warnings = [e["text"]["en"] for e in entries if e["level"] == "warning"]
    assert warnings[0].startswith("Illegal pick: Cleo took the red stick in slot 6")
    assert any("marker was put in slot 2" in w for w in warnings)
    assert session.over
    view = session.view(project)
    assert view["final"]["winners"] == ["Ann"]
    assert view["final"]["ranking"][0]["name"] == "Ann"
    assert [p["colour"] for p in view["players"]] == ["blue", "green", "red"]
    assert entries[-1]["level"] == "final" and "Ann wins" in entries[-1]["text"]["en"]
    assert "Ann gagne" in entries[-1]["text"]["fr"]


def test_the_end_asks_for_the_secret_colours_before_calling_a_winner():
    session = stixx.Session(PLAYERS)
    inputs = stixx_inputs(recorded("stixx"), NAMES)
    play(session, [i for i in inputs if not (i[0] == "reveal" and i[1]["player"] in (1, 2))])
    view = session.view()
    assert session.over and view["final"] is None
    assert view["todo"]["en"] == "Game over: Bob, Cleo, show your colour to call the winner."
    with pytest.raises(UserError, match="over"):
        session.apply("guess", {"player": 1, "colour": "red", "right": True}, 99, 0.0)
    session.apply("reveal", {"player": 1, "colour": "green"}, 100, 0.0)
    session.apply("reveal", {"player": 2, "colour": "red"}, 101, 0.0)
    assert session.view()["final"]["winners"] == ["Ann"]


@pytest.mark.parametrize("seed", [0, 2])
def test_a_legal_simulated_game_raises_no_warning_and_ends(seed):
    lines = stixx_game.record(stixx_game.random_game(seed))
    names = lines[0]["players"]
    session = stixx.Session([{"name": n, "stone_colour": c} for n, c in zip(names, stixx.STONE_COLOURS)])
    entries = play(session, stixx_inputs(lines, names))
    assert [e for e in entries if e["level"] == "warning"] == []
    assert session.over and session.view()["final"]["ranking"]


@pytest.mark.parametrize("kind, payload, words", [
    ("reveal", {"player": 0, "colour": "pink"}, "colour must be one of"),
    ("reveal", {"player": 7, "colour": "red"}, "player must be a number from 0 to 2"),
    ("guess", {"player": 0, "colour": "red"}, "right must be true or false"),
    ("guess", {"player": 0, "colour": "red", "right": "yes"}, "right must be true or false"),
    ("turn", {"player": 0}, "unknown change"),
])
def test_malformed_taps_are_refused_with_one_sentence(kind, payload, words):
    session = stixx.Session(PLAYERS)
    play(session, [i for i in stixx_inputs(recorded("stixx"), NAMES)[:1]])
    with pytest.raises(UserError, match=words):
        session.apply(kind, payload, 5, 0.0)


def test_a_declaration_before_the_board_is_seen_is_refused():
    with pytest.raises(UserError, match="board seen first"):
        stixx.Session(PLAYERS).apply("reveal", {"player": 0, "colour": "red"}, 1, 0.0)


def test_readings_hands_and_noise():
    first = recorded("stixx")[1]
    assert not stixx.disturbed(first)
    assert stixx.disturbed(dict(first, warnings=["a hand is over the table"]))
    assert stixx.disturbed(dict(first, board=None))
    nudged = dict(first, sticks=[dict(s, center_mm=[s["center_mm"][0] + 3, s["center_mm"][1]]) for s in first["sticks"]])
    assert stixx.same_state(first, nudged)
    assert not stixx.same_state(first, dict(first, sticks=first["sticks"][1:]))


def test_players_are_checked():
    with pytest.raises(UserError, match="2 to 6 players"):
        stixx.Session(PLAYERS[:1])
    with pytest.raises(UserError, match="same colour"):
        stixx.Session([PLAYERS[0], dict(PLAYERS[1], stone_colour="black")])


def test_a_reading_the_rules_cannot_use_is_a_warning_and_changes_nothing():
    session = stixx.Session(PLAYERS)
    play(session, stixx_inputs(recorded("stixx"), NAMES)[:2])
    before = session.view()
    entries = session.apply("stable", {"game": "micropul", "frame_id": 9, "tiles": []}, 9, 0.0)
    assert [e["level"] for e in entries] == ["warning"]
    assert entries[0]["text"]["en"].startswith("Reading not used: this line is a 'micropul' Observation")
    assert session.view()["stixx"] == before["stixx"] and session.last_stable["frame_id"] == 2
