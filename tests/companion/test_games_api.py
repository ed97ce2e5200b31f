"""The page's API with ENIX, Stixx and Enigmo: a new game, readings, the players' taps, undo, mistakes."""

import json

import pytest

from tablecam.companion.app import create_app
from tablecam.companion.auth import Guard, load_or_create
from tablecam.companion.live import Hub, Pictures
from tablecam.companion.store import Store

from games_helpers import recorded

PLAYERS = {
    "enix": [{"name": "Ann", "stone_colour": "red"}, {"name": "Bob", "stone_colour": "blue"},
             {"name": "Cleo", "stone_colour": "green"}],
    "stixx": [{"name": "Ann", "stone_colour": "black"}, {"name": "Bob", "stone_colour": "white"},
              {"name": "Cleo", "stone_colour": "pink"}],
    "enigmo": [{"name": "Ann", "stone_colour": "red"}, {"name": "Bob", "stone_colour": "blue"}],
}


@pytest.fixture()
def served(tmp_path):
    pin = load_or_create(tmp_path)
    hub = Hub(Store(tmp_path / "g.sqlite3"), hold=1)
    app = create_app(hub, Pictures(), Guard(pin, tmp_path))
    return app.test_client(), hub, pin.value, tmp_path


def post(client, path, body, pin):
    return client.post(path, data=json.dumps(body), headers={"Content-Type": "application/json", "X-Tablecam-Pin": pin})


@pytest.mark.parametrize("game", ["enix", "stixx", "enigmo"])
def test_a_new_game_is_served_and_follows_readings(served, game):
    client, hub, pin, _ = served
    assert post(client, "/api/game", {"game": game, "players": PLAYERS[game]}, pin).status_code == 200
    for line in recorded(game)[1:4]:
        hub.observe(line)
    state = client.get("/api/state").json
    assert state["game"] == game and [p["name"] for p in state["players"]] == [p["name"] for p in PLAYERS[game]]
    assert state["banner"] and state["banner"]["text"]["en"] and state["banner"]["text"]["fr"]
    assert len([h for h in state["history"] if h["kind"] == "stable"]) >= 1
    page = client.get("/").get_data(as_text=True)
    assert f"games/{game}.js" in page
    assert client.get(f"/static/games/{game}.js").status_code == 200


@pytest.mark.parametrize("game, body, words", [
    ("stixx", {"kind": "reveal", "player": 0, "colour": "gold"}, "colour must be one of"),
    ("stixx", {"kind": "guess", "player": 0, "colour": "red", "right": "maybe"}, "right must be true or false"),
    ("stixx", {"kind": "reserve"}, "unknown change"),
    ("enigmo", {"kind": "word", "player": 5, "right": True}, "player must be a number"),
    ("enigmo", {"kind": "word", "player": 0}, "right must be true or false"),
    ("enix", {"kind": "end", "player": "Ann"}, "player must be a number"),
    ("enix", {"kind": "counts", "player": 0}, "unknown change"),
])
def test_malformed_taps_are_4xx_sentences(served, game, body, words):
    client, hub, pin, _ = served
    post(client, "/api/game", {"game": game, "players": PLAYERS[game]}, pin)
    hub.observe(recorded(game)[1])
    resp = post(client, "/api/correction", body, pin)
    assert resp.status_code == 400 and words in resp.json["error"]
    assert post(client, "/api/correction", body, "0000" if pin != "0000" else "1111").status_code == 403


@pytest.mark.parametrize("game, players, words", [
    ("stixx", PLAYERS["enigmo"], "colour must be one of"),
    ("enigmo", PLAYERS["enigmo"][:1], "2 to 4 players"),
    ("enix", [{"name": "Ann", "stone_colour": "red"}, {"name": "ann", "stone_colour": "blue"}], "same name"),
])
def test_bad_players_are_refused(served, game, players, words):
    client, _, pin, _ = served
    resp = post(client, "/api/game", {"game": game, "players": players}, pin)
    assert resp.status_code == 400 and words in resp.json["error"]


def test_a_tap_is_logged_undone_and_survives_a_restart(served):
    client, hub, pin, tmp_path = served
    post(client, "/api/game", {"game": "enigmo", "players": PLAYERS["enigmo"]}, pin)
    for line in recorded("enigmo")[1:4]:
        hub.observe(line)
    state = post(client, "/api/correction", {"kind": "word", "player": 0, "right": True, "red": True}, pin).json
    assert [p["score"] for p in state["players"]] == [104, 0]  # 52 points behind the closed shutters, doubled
    tap = next(h for h in state["history"] if h["kind"] == "word")
    assert tap["undoable"]
    again = Hub(Store(tmp_path / "g.sqlite3"), hold=1)  # a restart rebuilds from the log
    assert [p["score"] for p in again.state()["players"]] == [104, 0]
    state = post(client, "/api/undo", {"id": tap["id"]}, pin).json
    assert [p["score"] for p in state["players"]] == [0, 0]
