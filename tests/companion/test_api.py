"""The page's JSON API: open to read, PIN to change, every mistake a clear 4xx, never a 500."""

import json

import numpy as np
import pytest

from tablecam.companion.app import create_app
from tablecam.companion.auth import Guard, load_or_create
from tablecam.companion.live import Hub, Pictures
from tablecam.companion.store import Store

from companion_helpers import PLAYERS, game_inputs


@pytest.fixture()
def served(tmp_path):
    pin = load_or_create(tmp_path)
    hub = Hub(Store(tmp_path / "g.sqlite3"), hold=1)
    hub.set_first_run_pin(pin.value)
    pictures = Pictures()
    app = create_app(hub, pictures, Guard(pin, tmp_path))
    return app.test_client(), hub, pictures, pin.value


def post(client, path, body, pin=None):
    headers = {"Content-Type": "application/json"}
    if pin is not None:
        headers["X-Tablecam-Pin"] = pin
    return client.post(path, data=body if isinstance(body, (str, bytes)) else json.dumps(body), headers=headers)


def test_the_page_shows_the_pin_on_first_run_only(served):
    client, _, _, pin = served
    page = client.get("/")
    assert page.status_code == 200 and pin in page.get_data(as_text=True)
    assert b"/static/app.js" in page.data and b"http" not in page.data.split(b"<body>")[1].replace(b"http://www.w3.org", b"")
    assert post(client, "/api/pin", {}, pin).status_code == 200
    assert pin not in client.get("/").get_data(as_text=True)
    assert client.get("/api/state").json["first_run_pin"] is None


def test_a_new_game_with_the_pin_and_its_state(served):
    client, _, _, pin = served
    resp = post(client, "/api/game", {"game": "micropul", "players": PLAYERS}, pin)
    assert resp.status_code == 200
    state = client.get("/api/state").json
    assert state["game"] == "micropul" and [p["name"] for p in state["players"]] == ["Ann", "Bob"]
    assert state["todo"]["en"].startswith("Ann: your turn")
    assert state["core_left"] == 35


@pytest.mark.parametrize("path, body, pin, status, words", [
    ("/api/game", {"game": "micropul", "players": PLAYERS}, None, 401, "needs the PIN"),
    ("/api/game", {"game": "micropul", "players": PLAYERS}, "000000x", 403, "wrong PIN"),
    ("/api/game", "{not json", "PIN", 400, "not valid JSON"),
    ("/api/game", "[1, 2]", "PIN", 400, "must be a JSON object"),
    ("/api/game", {"game": "chess", "players": PLAYERS}, "PIN", 400, "unknown game 'chess'"),
    ("/api/game", {"game": "stixx", "players": PLAYERS}, "PIN", 400, "colour must be one of"),
    ("/api/game", {"players": PLAYERS}, "PIN", 400, "say which game"),
    ("/api/game", {"game": "micropul", "players": [{"name": "A"}]}, "PIN", 400, "stones must be one of"),
    ("/api/correction", {"kind": "reserve"}, "PIN", 400, "no game in progress"),
    ("/api/correction", {}, "PIN", 400, "say which change"),
    ("/api/undo", {"id": 3}, "PIN", 400, "no game in progress"),
])
def test_bad_requests_are_clear_4xx_sentences(served, path, body, pin, status, words):
    client, _, _, real_pin = served
    resp = post(client, path, body, real_pin if pin == "PIN" else pin)
    assert resp.status_code == status, resp.json
    assert words in resp.json["error"]
    assert resp.json["error"].endswith(".")


def test_corrections_in_a_game(served):
    client, _, _, pin = served
    post(client, "/api/game", {"game": "micropul", "players": PLAYERS}, pin)
    resp = post(client, "/api/correction", {"kind": "reserve"}, pin)
    assert resp.status_code == 400 and "Ann's reserve is empty" in resp.json["error"]
    resp = post(client, "/api/correction", {"kind": "counts", "player": 0, "reserve": 2}, pin)
    assert resp.status_code == 200 and resp.json["players"][0]["reserve"] == 2
    resp = post(client, "/api/correction", {"kind": "teleport"}, pin)
    assert resp.status_code == 400 and "unknown change" in resp.json["error"]
    counts = next(h for h in client.get("/api/state").json["history"] if h["kind"] == "counts")
    resp = post(client, "/api/undo", {"id": counts["id"]}, pin)
    assert resp.status_code == 200 and resp.json["players"][0]["reserve"] == 0
    resp = post(client, "/api/undo", {"id": counts["id"]}, pin)
    assert resp.status_code == 400 and "already undone" in resp.json["error"]


def test_unknown_addresses_and_methods_answer_json(served):
    client = served[0]
    assert client.get("/api/nothing").status_code == 404
    assert client.get("/api/nothing").json["error"] == "no such page."
    assert client.get("/api/game").status_code == 405
    assert client.post("/api/state").status_code == 405


def test_garbage_never_makes_a_500(served):
    client, hub, _, pin = served
    post(client, "/api/game", {"game": "micropul", "players": PLAYERS}, pin)
    weird = [None, 0, "", [], {}, {"kind": None}, {"kind": ["x"]}, {"kind": "counts", "player": "0"},
             {"kind": "counts", "player": 0, "hand": 1e9}, {"kind": "turn", "player": -1}, {"kind": "accept"},
             {"kind": "accept", "observation": "x"}, {"id": {"a": 1}}, {"game": 5}, {"players": "x", "game": "micropul"},
             {"game": "micropul", "players": [None]}, {"pin": 123456}]
    for path in ("/api/game", "/api/correction", "/api/undo", "/api/pin"):
        for body in weird:
            resp = post(client, path, body, pin)
            assert 200 <= resp.status_code < 500, (path, body, resp.json)
    resp = client.post("/api/game", data=b"\xff\xfe", headers={"X-Tablecam-Pin": pin})
    assert resp.status_code == 400
    assert client.post("/api/game", data=b"x" * 100_000, headers={"X-Tablecam-Pin": pin}).status_code == 413


def test_snapshot_and_mjpeg(served):
    client, _, pictures, _ = served
    assert client.get("/snapshot.jpg").status_code == 503
    pictures.put(np.full((240, 320, 3), 128, np.uint8))
    snap = client.get("/snapshot.jpg")
    assert snap.status_code == 200 and snap.mimetype == "image/jpeg" and snap.data[:2] == b"\xff\xd8"
    stream = client.get("/stream.mjpg", buffered=False)
    assert stream.mimetype == "multipart/x-mixed-replace"
    first = next(iter(stream.response))
    assert first.startswith(b"--frame\r\nContent-Type: image/jpeg") and b"\xff\xd8" in first
    stream.close()


def test_server_sent_events_carry_numbered_states(served):
    client, hub, _, pin = served
    resp = client.get("/api/events", buffered=False)
    assert resp.mimetype == "text/event-stream"
    chunks = iter(resp.response)
    assert next(chunks).startswith(b"retry:")
    event = next(chunks).decode()
    assert event.startswith(f"id: {hub.version}\nevent: state\ndata: ")
    assert json.loads(event.split("data: ", 1)[1])["version"] == hub.version
    resp.close()
    # A client that reconnects with Last-Event-ID gets every state it missed, in order.
    seen = hub.version
    post(client, "/api/game", {"game": "micropul", "players": PLAYERS}, pin)
    post(client, "/api/correction", {"kind": "counts", "player": 1, "hand": 3}, pin)
    resp = client.get("/api/events", headers={"Last-Event-ID": str(seen)}, buffered=False)
    chunks = iter(resp.response)
    next(chunks)
    ids: list[int] = []
    while len(ids) < hub.version - seen:  # several pending updates may come in one write
        ids += [int(line[4:]) for line in next(chunks).decode().split("\n") if line.startswith("id: ")]
    assert ids == list(range(seen + 1, hub.version + 1))
    resp.close()


def test_a_stable_reading_shows_in_the_state(served):
    client, hub, _, pin = served
    post(client, "/api/game", {"game": "micropul", "players": PLAYERS}, pin)
    _, inputs = game_inputs(0)
    hub.observe(inputs[0][1])
    hub.observe(inputs[1][1])
    state = client.get("/api/state").json
    assert state["live"]["phase"] == "steady"
    assert any("Tile placed" in h["text"]["en"] for h in state["history"])
