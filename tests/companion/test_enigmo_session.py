"""Enigmo followed live: the shutters a roll allows, wrong shutters, points at stake, the score pad."""

import pytest

from tablecam.companion.games import enigmo
from tablecam.errors import UserError
from tablecam.rules.enigmo import game as enigmo_game

from games_helpers import enigmo_inputs, play, project, recorded

NAMES = ["Ann", "Bob"]
PLAYERS = [{"name": "Ann", "stone_colour": "red"}, {"name": "Bob", "stone_colour": "blue"}]


def test_a_roll_shows_the_shutters_it_allows_and_the_points_at_stake():
    inputs = enigmo_inputs(recorded("enigmo"), NAMES)
    session = enigmo.Session(PLAYERS)
    play(session, inputs[:2])  # no dice, then 3 and 4
    view = session.view(project)
    assert view["enigmo"]["roll"] == [3, 4] and view["enigmo"]["roller"] == "Ann"
    assert view["enigmo"]["options"] == [[7], [1], [3, 4]]
    assert view["enigmo"]["at_stake"] == 55 and view["enigmo"]["at_stake_red"] == 110
    assert view["todo"]["en"] == "Ann: open shutter 7 / 1 / 3+4."
    assert [p["to_move"] for p in view["players"]] == [True, False]
    assert len(view["board"]["dice"]) == 2 and {d["value"] for d in view["board"]["dice"]} == {3, 4}
    play(session, inputs[2:3])  # shutter 3 of "both singles"
    view = session.view()
    assert view["enigmo"]["options"] == [[3, 4]]
    assert view["banner"]["text"]["en"] == "Shutter 3 open: open the other one too."


def test_a_recorded_game_flags_the_wrong_shutters_and_keeps_the_score_pad():
    session = enigmo.Session(PLAYERS)
    entries = play(session, enigmo_inputs(recorded("enigmo"), NAMES))
    warnings = [e["text"]["en"] for e in entries if e["level"] == "warning"]
    assert warnings[0].startswith("Wrong shutter (9)")
    assert warnings[1].startswith("Wrong shutter (—)")  # a double had to open shutter 10, none was
    found = [e for e in entries if e["kind"] == "word"]
    assert found[0]["undoable"] and "Ann found the word: +58 (red word: doubled)" in found[0]["text"]["en"]
    assert "Ann a trouvé le mot" in found[0]["text"]["fr"]
    view = session.view()
    assert [p["score"] for p in view["players"]] == [58, -55]
    assert view["todo"]["en"] == "Ann: roll the dice."
    assert not session.over
    final = session.apply("finish", {}, 99, 0.0)
    assert final[-1]["level"] == "final" and session.over
    assert session.view()["final"]["ranking"][0] == {"name": "Ann", "stone_colour": "red", "score": 58}
    with pytest.raises(UserError, match="over"):
        session.apply("word", {"player": 0, "right": True}, 100, 0.0)


@pytest.mark.parametrize("seed", [0, 1])
def test_a_legal_simulated_game_raises_no_warning(seed):
    lines = enigmo_game.record(enigmo_game.random_game(seed))
    names = lines[0]["players"]
    session = enigmo.Session([{"name": n, "stone_colour": c} for n, c in zip(names, enigmo.STONE_COLOURS)])
    entries = play(session, enigmo_inputs(lines, names))
    assert [e for e in entries if e["level"] != "info"] == []
    scores = {p["name"]: p["score"] for p in session.view()["players"]}
    assert scores == dict(enigmo_game.random_game(seed)[-1].scores)


@pytest.mark.parametrize("payload, words", [
    ({"player": 0}, "right must be true or false"),
    ({"player": 0, "right": True, "red": "no"}, "red must be true or false"),
    ({"player": 2, "right": True}, "player must be a number from 0 to 1"),
    ({"player": True, "right": True}, "player must be a number"),
])
def test_malformed_taps_are_refused_with_one_sentence(payload, words):
    with pytest.raises(UserError, match=words):
        enigmo.Session(PLAYERS).apply("word", payload, 1, 0.0)


def test_readings_rolling_dice_and_noise():
    obs = recorded("enigmo")[3]
    assert not enigmo.disturbed(obs)
    assert enigmo.disturbed(dict(obs, dice=[{"value": None, "center_mm": [1, 1]}]))
    assert enigmo.disturbed(dict(obs, warnings=["hand over the box"]))
    nudged = dict(obs, dice=[dict(d, center_mm=[d["center_mm"][0] + 2, d["center_mm"][1]]) for d in obs["dice"]])
    assert enigmo.same_state(obs, nudged)
    opened = dict(obs, shutters=[True] + obs["shutters"][1:])
    assert not enigmo.same_state(obs, opened)
    with pytest.raises(UserError, match="2 to 4 players"):
        enigmo.Session(PLAYERS * 3)
