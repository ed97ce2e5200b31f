"""Never lose a game: everything goes to SQLite (WAL) and a restart resumes where the game was."""

import sqlite3

import pytest

from tablecam.companion.live import Hub
from tablecam.companion.store import Store
from tablecam.errors import UserError

from companion_helpers import PLAYERS, game_inputs, with_hand


def feed(hub, inputs, hold):
    for kind, payload in inputs:
        if kind == "reserve":
            hub.correct("reserve", {})
            continue
        hub.observe(with_hand(payload))  # the hand that laid it
        for _ in range(hold):
            hub.observe(payload)


def test_a_restart_resumes_the_game_where_it_was(tmp_path):
    _, inputs = game_inputs(1)
    store = Store(tmp_path / "games.sqlite3")
    hub = Hub(store, hold=2)
    hub.new_game("micropul", PLAYERS)
    feed(hub, inputs[:25], hold=2)
    hub.correct("counts", {"player": 1, "reserve": 4})
    before = hub.state()
    store.close()  # the power goes; nothing else is saved

    hub2 = Hub(Store(tmp_path / "games.sqlite3"), hold=2)
    after = hub2.state()
    for key in ("players", "core_left", "todo", "banner", "over"):
        assert after[key] == before[key], key
    assert [h["text"] for h in after["history"]] == [h["text"] for h in before["history"]]
    # The same table seen again after the restart is not a new move.
    hub2.observe(inputs[24][1])
    hub2.observe(inputs[24][1])
    assert hub2.state()["players"] == before["players"]
    # And the game goes on to its end.
    feed(hub2, inputs[25:], hold=2)
    assert hub2.state()["over"] and hub2.state()["final"]["ranking"]


def test_the_log_is_sqlite_in_wal_mode_with_every_input_and_event(tmp_path):
    _, inputs = game_inputs(0)
    store = Store(tmp_path / "g.sqlite3")
    hub = Hub(store, hold=1)
    hub.new_game("micropul", PLAYERS)
    feed(hub, inputs[:6], hold=1)
    assert store.journal_mode() == "wal"
    db = sqlite3.connect(tmp_path / "g.sqlite3")
    kinds = [k for (k,) in db.execute("SELECT kind FROM inputs ORDER BY id")]
    assert kinds.count("stable") == sum(1 for k, _ in inputs[:6] if k == "stable")
    assert db.execute("SELECT COUNT(*) FROM events").fetchone()[0] >= 4


def test_undoing_a_correction_rebuilds_the_game_without_it_and_survives_a_restart(tmp_path):
    store = Store(tmp_path / "g.sqlite3")
    hub = Hub(store, hold=1)
    hub.new_game("micropul", PLAYERS)
    hub.correct("counts", {"player": 0, "hand": 2})
    wrong = hub.state()
    assert wrong["players"][0]["hand"] == 2
    correction = next(h for h in wrong["history"] if h["kind"] == "counts")
    assert correction["undoable"]
    hub.undo(correction["id"])
    assert hub.state()["players"][0]["hand"] == 6
    assert any(h.get("undone") for h in hub.state()["history"])
    store.close()
    again = Hub(Store(tmp_path / "g.sqlite3"), hold=1).state()
    assert again["players"][0]["hand"] == 6
    assert any(h.get("undone") and h["kind"] == "counts" for h in again["history"])


def test_undo_refuses_what_is_not_a_correction(tmp_path):
    hub = Hub(Store(tmp_path / "g.sqlite3"), hold=1)
    with pytest.raises(UserError, match="no game"):
        hub.undo(1)
    hub.new_game("micropul", PLAYERS)
    for bad, message in ((99, "no correction number 99"), ("1", "by its number"), (None, "by its number")):
        with pytest.raises(UserError, match=message):
            hub.undo(bad)


def test_a_refused_correction_leaves_no_trace_in_the_rebuilt_game(tmp_path):
    store = Store(tmp_path / "g.sqlite3")
    hub = Hub(store, hold=1)
    hub.new_game("micropul", PLAYERS)
    with pytest.raises(UserError):
        hub.correct("reserve", {})  # the reserve is empty
    store.close()
    assert Hub(Store(tmp_path / "g.sqlite3"), hold=1).state()["players"][0]["hand"] == 6


def test_a_new_game_ends_the_one_in_progress(tmp_path):
    store = Store(tmp_path / "g.sqlite3")
    hub = Hub(store, hold=1)
    hub.new_game("micropul", PLAYERS)
    first = hub.game_id
    hub.new_game("micropul", PLAYERS[:1])
    assert hub.game_id != first and [p["name"] for p in hub.state()["players"]] == ["Ann"]
    db = sqlite3.connect(tmp_path / "g.sqlite3")
    assert db.execute("SELECT ended IS NOT NULL FROM games WHERE id = ?", (first,)).fetchone()[0] == 1


def test_every_published_state_reaches_a_client_that_asks_from_where_it_was(tmp_path):
    hub = Hub(Store(tmp_path / "g.sqlite3"), hold=1)
    start = hub.version
    hub.new_game("micropul", PLAYERS)
    hub.correct("counts", {"player": 0, "hand": 5})
    got = hub.states_after(start, timeout=0.1)
    assert [v for v, _, _ in got] == list(range(start + 1, hub.version + 1))
    assert hub.states_after(hub.version, timeout=0.05) == []


def test_an_unwritable_log_is_one_sentence(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(UserError, match="cannot open the game log"):
        Store(tmp_path / "file" / "g.sqlite3")
