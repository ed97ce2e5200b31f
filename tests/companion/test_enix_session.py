"""ENIX followed live: the layout and the last tile action, where a pawn may walk, the cap, the order
of play, the end and the final scores from the cards laid out."""

import pytest

from tablecam.companion.games import enix
from tablecam.errors import UserError
from tablecam.rules.enix import game as enix_game

from games_helpers import play, project, recorded

PLAYERS = [{"name": "Ann", "stone_colour": "red"}, {"name": "Bob", "stone_colour": "blue"},
           {"name": "Cleo", "stone_colour": "green"}]


def readings(lines):
    return [("stable", line) for line in lines if "game" in line]


def test_the_layout_and_an_illegal_tile_action_are_shown():
    session = enix.Session(PLAYERS)
    entries = play(session, [r for r in readings(recorded("enix")) if r[1]["frame_id"] <= 8])
    assert entries[0]["text"]["en"].startswith("Setup correct")
    last = entries[-1]
    assert last["level"] == "warning" and last["text"]["en"].startswith("Illegal tile action: the layout would split")
    view = session.view(project)
    assert view["enix"]["last_layout"]["legal"] is False and view["enix"]["last_layout"]["tile"] == "water"
    tiles = {t["energy"]: t for t in view["board"]["tiles"]}
    assert set(tiles) == {"solar", "water", "geothermal", "waves", "wind", "biomass"}
    assert tiles["water"]["illegal"] and not tiles["solar"]["illegal"]
    assert all(len(t["poly"]) == 12 and 0 < t["label"][0] < 1 for t in tiles.values())


def test_where_a_pawn_may_walk_and_the_cap():
    lines = recorded("enix")
    session = enix.Session(PLAYERS)
    entries = play(session, [r for r in readings(lines) if r[1]["frame_id"] <= 11])
    assert any(e["text"]["en"].startswith("The cap is on geothermal") for e in entries)
    assert entries[-1]["level"] == "warning" and "under the cap" in entries[-1]["text"]["en"]
    view = session.view(project)
    players = {p["name"]: p for p in view["players"]}
    assert all(p["total"] is not None and p["place"] for p in players.values())
    reach = {c: set(r) for c, r in ((p["stone_colour"], p["reachable"]) for p in view["players"]) if r}
    tiles = {t["energy"]: t for t in view["board"]["tiles"]}
    for colour, reachable in reach.items():
        assert {e for e, t in tiles.items() if colour in t["reach"]} == reachable
    assert "geothermal" not in set().union(*reach.values())  # under the cap
    assert tiles["geothermal"]["cap"] and view["enix"]["cap"] == "geothermal"
    assert view["enix"]["order"] and set(view["enix"]["order"]) == {"Ann", "Bob", "Cleo"}


def test_a_legal_simulated_game_raises_no_warning_and_follows_the_order():
    lines = enix_game.record(enix_game.random_game(1))
    players = [{"name": f"P{n}", "stone_colour": p["colour"]} for n, p in enumerate(lines[0]["players"])]
    session = enix.Session(players)
    entries = play(session, readings(lines))
    assert [e for e in entries if e["level"] != "info"] == []
    orders = [e for e in entries if e["text"]["en"].startswith("Order of play")]
    assert orders and "(P" in orders[0]["text"]["en"]  # colours said with the players' names


def test_ending_the_game_scores_the_cards_laid_out():
    lines = recorded("enix")
    obs = readings(lines)
    session = enix.Session(PLAYERS)
    play(session, obs[:-1])
    ended = session.apply("end", {"player": 0}, 50, 0.0)
    assert ended[0]["undoable"] and ended[0]["text"]["en"].startswith("Ann ends the game")
    with pytest.raises(UserError, match="already ended"):
        session.apply("end", {"player": 1}, 51, 0.0)
    session.apply("stable", obs[-1][1], 52, 0.0)  # the hands laid out face up
    final = session.apply("finish", {}, 53, 0.0)
    assert final[-1]["level"] == "final" and session.over
    result = session.view()["final"]
    assert result["winners"] and result["ranking"][0]["name"] in result["winners"]
    assert all(isinstance(r["score"], (int, float)) for r in result["ranking"])
    outs = [r["out"] for r in result["ranking"]]
    assert outs == sorted(outs)  # a player past 25 is ranked after every player still in


def test_ending_without_hands_says_so():
    session = enix.Session(PLAYERS)
    play(session, readings(recorded("enix"))[:2])
    session.apply("end", {"player": 1}, 10, 0.0)
    final = session.apply("finish", {}, 11, 0.0)
    assert "no hands were seen" in final[-1]["text"]["en"] and session.over


@pytest.mark.parametrize("kind, payload, words", [
    ("end", {"player": 3}, "player must be a number from 0 to 2"),
    ("end", {}, "player must be a number"),
    ("reveal", {"player": 0}, "unknown change"),
])
def test_malformed_taps_are_refused_with_one_sentence(kind, payload, words):
    with pytest.raises(UserError, match=words):
        enix.Session(PLAYERS).apply(kind, payload, 1, 0.0)


def test_readings_hands_and_noise():
    obs = recorded("enix")[2]
    assert not enix.disturbed(obs)
    assert enix.disturbed(dict(obs, hexes=[]))
    assert enix.disturbed(dict(obs, hexes=[dict(obs["hexes"][0], energy=None)] + obs["hexes"][1:]))
    nudged = dict(obs, hexes=[dict(h, center_mm=[h["center_mm"][0] + 4, h["center_mm"][1]]) for h in obs["hexes"]])
    assert enix.same_state(obs, nudged)
    turned = dict(obs, hexes=[dict(obs["hexes"][0], rotation=(obs["hexes"][0]["rotation"] or 0) + 60)] + obs["hexes"][1:])
    assert not enix.same_state(obs, turned)
    moved = dict(obs, pawns=[dict(obs["pawns"][0], center_mm=[0, 0])] + obs["pawns"][1:])
    assert not enix.same_state(obs, moved)
