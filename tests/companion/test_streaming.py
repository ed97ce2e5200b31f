"""Many watchers: one JPEG per frame for all of them, and a bounded number of streaming places."""

import threading

import numpy as np
import pytest

from tablecam.companion.app import create_app
from tablecam.companion.auth import Guard, load_or_create
from tablecam.companion.live import Hub, Pictures
from tablecam.companion.store import Store


@pytest.fixture()
def served(tmp_path):
    pin = load_or_create(tmp_path)
    hub = Hub(Store(tmp_path / "g.sqlite3"), hold=1)
    pictures = Pictures(max_width=320)
    pictures.put(np.full((240, 640, 3), 90, np.uint8))
    app = create_app(hub, pictures, Guard(pin, tmp_path), max_streams=2)
    yield app.test_client(), hub, pictures
    hub.close()
    pictures.close()


def test_a_frame_is_encoded_once_however_many_clients_ask_at_once():
    pictures = Pictures(max_width=640)
    rng = np.random.default_rng(0)
    for number in (1, 2):
        pictures.put(rng.integers(0, 255, (960, 1280, 3), dtype=np.uint8))
        got: list = []
        start = threading.Barrier(8)

        def ask() -> None:
            start.wait()
            got.append(pictures.jpeg())

        threads = [threading.Thread(target=ask) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert {j.number for j in got} == {number} and len({id(j.data) for j in got}) == 1
        assert pictures.encoded == number
    import cv2

    shown = cv2.imdecode(np.frombuffer(got[0].data, np.uint8), cv2.IMREAD_COLOR)
    assert shown.shape[1] == 640  # a tablet's size, not the camera's
    assert got[0].part.startswith(b"--frame\r\n") and got[0].part.endswith(got[0].data + b"\r\n")


def test_viewers_beyond_the_streaming_places_are_told_to_come_back_and_the_page_still_answers(served):
    client, hub, pictures = served
    first = client.get("/api/events", buffered=False)
    second = client.get("/stream.mjpg", buffered=False)
    assert first.status_code == 200 and second.status_code == 200
    assert next(iter(second.response)).startswith(b"--frame\r\nContent-Type: image/jpeg")
    third = client.get("/stream.mjpg", buffered=False)
    assert third.status_code == 503 and "too many live viewers" in third.json["error"]
    assert client.get("/api/state").status_code == 200  # the page's own requests are never blocked
    assert client.get("/snapshot.jpg").status_code == 200
    first.close()  # a viewer leaves: its place is free again
    again = client.get("/api/events", buffered=False)
    assert again.status_code == 200
    again.close()
    second.close()


def test_live_figures_go_out_small_and_a_late_client_still_gets_a_whole_state(served):
    client, hub, _ = served
    hub.new_game("micropul", [{"name": "Ann", "stone_colour": "red"}])
    whole = hub.version
    for n in range(3):
        hub.set_live(force=True, fps=4.0 + n, frames=n)
    got = hub.states_after(whole - 1, timeout=0.1)
    assert [kind for _, kind, _ in got] == ["state", "live", "live", "live"]
    assert all(len(text) < 600 for _, kind, text in got if kind == "live")
    # A client so far behind that its updates left the ring starts again from the newest whole state.
    for n in range(1200):
        hub.set_live(force=True, frames=n)
    behind = hub.states_after(0, timeout=0.1)
    assert behind[0][1] == "state" and behind[0][0] == whole
    assert [v for v, _, _ in behind[1:]] == list(range(behind[1][0], hub.version + 1))


def test_a_new_page_first_gets_the_whole_state_then_the_live_figures(served):
    client, hub, _ = served
    hub.new_game("micropul", [{"name": "Ann", "stone_colour": "red"}])
    hub.set_live(force=True, fps=5.0)
    resp = client.get("/api/events", buffered=False)
    chunks = iter(resp.response)
    next(chunks)  # retry:
    text = next(chunks).decode()
    assert text.startswith(f"id: {hub.version - 1}\nevent: state\n") and f"id: {hub.version}\nevent: live\n" in text
    resp.close()
