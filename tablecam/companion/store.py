"""The game log in SQLite (WAL): games, their inputs (stable readings and players' corrections), events.

Event sourcing: a game's state is never stored, only what went into it. On start the game in
progress is rebuilt by feeding its inputs, in order, to a fresh session; an undone correction is
kept (marked undone) and skipped. Every write is its own committed transaction with
synchronous=FULL, so a power cut loses at most the reading being written.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from tablecam.errors import UserError

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    players TEXT NOT NULL,
    started REAL NOT NULL,
    ended REAL
);
CREATE TABLE IF NOT EXISTS inputs (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    at REAL NOT NULL,
    undone INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS inputs_by_game ON inputs(game_id, id);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    input_id INTEGER NOT NULL REFERENCES inputs(id),
    payload TEXT NOT NULL,
    at REAL NOT NULL
);
"""


@dataclass(frozen=True)
class GameRow:
    id: int
    game: str
    players: list
    started: float
    ended: float | None


@dataclass(frozen=True)
class InputRow:
    id: int
    kind: str
    payload: dict
    at: float
    undone: bool


class Store:
    """One connection shared by the server's threads, serialised by a lock (writes are rare)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(SCHEMA)
        except (OSError, sqlite3.DatabaseError) as exc:
            raise UserError(f"cannot open the game log {self.path}: {exc}.") from None
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _write(self, sql: str, args: tuple) -> int:
        with self._lock:
            cur = self._db.execute(sql, args)
            return int(cur.lastrowid or 0)

    def new_game(self, game: str, players: list, at: float | None = None) -> int:
        return self._write("INSERT INTO games (game, players, started) VALUES (?, ?, ?)",
                           (game, json.dumps(players), time.time() if at is None else at))

    def end_game(self, game_id: int, at: float | None = None) -> None:
        self._write("UPDATE games SET ended = ? WHERE id = ? AND ended IS NULL",
                    (time.time() if at is None else at, game_id))

    def reopen_game(self, game_id: int) -> None:
        self._write("UPDATE games SET ended = NULL WHERE id = ?", (game_id,))

    def add_input(self, game_id: int, kind: str, payload: dict, at: float | None = None) -> int:
        return self._write("INSERT INTO inputs (game_id, kind, payload, at) VALUES (?, ?, ?, ?)",
                           (game_id, kind, json.dumps(payload), time.time() if at is None else at))

    def add_events(self, game_id: int, input_id: int, events: list[dict], at: float | None = None) -> None:
        if not events:
            return
        stamp = time.time() if at is None else at
        with self._lock:
            self._db.execute("BEGIN")
            self._db.executemany("INSERT INTO events (game_id, input_id, payload, at) VALUES (?, ?, ?, ?)",
                                 [(game_id, input_id, json.dumps(e), stamp) for e in events])
            self._db.execute("COMMIT")

    def set_undone(self, game_id: int, input_id: int, undone: bool = True) -> None:
        self._write("UPDATE inputs SET undone = ? WHERE id = ? AND game_id = ?", (int(undone), input_id, game_id))

    def latest_game(self) -> GameRow | None:
        with self._lock:
            row = self._db.execute("SELECT id, game, players, started, ended FROM games "
                                   "ORDER BY id DESC LIMIT 1").fetchone()
        return None if row is None else GameRow(row[0], row[1], json.loads(row[2]), row[3], row[4])

    def inputs(self, game_id: int) -> list[InputRow]:
        with self._lock:
            rows = self._db.execute("SELECT id, kind, payload, at, undone FROM inputs WHERE game_id = ? "
                                    "ORDER BY id", (game_id,)).fetchall()
        return [InputRow(r[0], r[1], json.loads(r[2]), r[3], bool(r[4])) for r in rows]

    def input(self, game_id: int, input_id: int) -> InputRow | None:
        return next((r for r in self.inputs(game_id) if r.id == input_id), None)

    def events(self, game_id: int) -> list[dict]:
        with self._lock:
            rows = self._db.execute("SELECT payload FROM events WHERE game_id = ? ORDER BY id", (game_id,)).fetchall()
        return [json.loads(r[0]) for r in rows]

    def journal_mode(self) -> str:
        with self._lock:
            return str(self._db.execute("PRAGMA journal_mode").fetchone()[0])
