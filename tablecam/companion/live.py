"""The live game: one place where the frame loop's readings and the players' taps meet.

`Hub` owns the game in progress (a game module's Session), the tracker that debounces readings,
and the log; every change is written to the store first, then applied, then published as a
numbered update that the page receives over server-sent events. An update is either the whole
state ("state": the game changed) or only the live figures ("live": phase, camera, frame rate),
which change often and are small, so a long game's history is not resent every second.
Updates are kept in a ring so a client that fell a little behind (or reconnected with
Last-Event-ID) gets every one.
`Pictures` holds the newest camera frame and its JPEG, encoded once per frame however many
clients watch.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from types import ModuleType
from typing import Callable, NamedTuple

import numpy as np

from tablecam.companion import tracker as phases
from tablecam.companion.games import game_module
from tablecam.companion.i18n import both
from tablecam.companion.store import Store
from tablecam.errors import UserError

RING = 1000  # published updates kept for clients catching up
HISTORY_SHOWN = 100
LIVE_EVERY_S = 5.0  # frame-rate figures alone (the page does not show them) go out at most this often
_KEEP = object()


class Hub:
    def __init__(self, store: Store, hold: int = 3, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.hold = hold
        self.clock = clock
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._ring: deque[tuple[int, str, str]] = deque(maxlen=RING)  # (version, "state"|"live", json)
        self._last_state: tuple[int, str, str] | None = None  # the newest whole state
        self.version = 0
        self.game_id: int | None = None
        self.module: ModuleType | None = None
        self.session = None
        self.tracker: phases.StateTracker | None = None
        self.history: list[dict] = []
        self.live: dict = {"phase": phases.WAITING, "camera": {"ok": False, "text": {}}, "fps": 0.0,
                           "frames": 0, "markers_seen": 0, "table_warnings": []}
        self._live_published = 0.0
        self.project: Callable | None = None  # table mm -> normalised picture coordinates
        self.first_run_pin: str | None = None  # shown on the page until the PIN is first used
        self.new_game_listeners: list[Callable[[str], None]] = []  # told the game that starts
        self.closed = False  # set on shutdown: streaming clients stop waiting
        self._resume()

    # ---- the game log ----------------------------------------------------------------------------
    def _resume(self) -> None:
        """Rebuild the latest game from its stored inputs (after a restart or a power cut)."""
        row = self.store.latest_game()
        if row is None:
            self._publish()
            return
        self._rebuild(row.id, row.game, row.players)
        self._publish()

    def _rebuild(self, game_id: int, game: str, players: list) -> None:
        module = game_module(game)
        session = module.Session(players)
        history: list[dict] = [self._started_entry(game, players)]
        texts = {}
        for event in self.store.events(game_id):
            texts.setdefault(event.get("id"), event.get("text"))
        for row in self.store.inputs(game_id):
            if row.undone:
                history.append({"id": row.id, "at": row.at, "kind": row.kind, "level": "info", "undoable": False,
                                "undone": True, "text": texts.get(row.id) or {"en": row.kind, "fr": row.kind}})
                continue
            try:
                history += session.apply(row.kind, row.payload, row.id, row.at)
            except UserError:
                continue  # a correction that no longer applies after an undo before it
        self.game_id, self.module, self.session, self.history = game_id, module, session, history
        self.tracker = phases.StateTracker(module.same_state, module.disturbed, self.hold,
                                           plausible=getattr(module, "plausible", None))
        self.tracker.reset(session.last_stable)
        if session.over:
            self.store.end_game(game_id)
        else:
            self.store.reopen_game(game_id)

    def _started_entry(self, game: str, players: list) -> dict:
        names = ", ".join(p["name"] for p in players)
        return {"id": 0, "at": self.clock(), "kind": "new_game", "level": "info", "undoable": False,
                "text": both("game_started", game=game, names=names)}

    def new_game(self, game: str, players: object, notify: bool = True) -> None:
        """Starts a game (the one in progress is ended); `notify` tells the camera (the demo restarts)."""
        module = game_module(game)
        players = module.check_players(players)
        with self._lock:
            game_id = self.store.new_game(game, players, self.clock())
            if self.game_id is not None:
                self.store.end_game(self.game_id, self.clock())
            self._rebuild(game_id, game, players)
            self._publish()
        if notify:
            for listener in list(self.new_game_listeners):
                listener(game)

    def _record(self, kind: str, payload: dict) -> list[dict]:
        """Log first, then apply: a refused input is marked undone so a rebuild skips it too."""
        if self.session is None or self.game_id is None:
            raise UserError("no game in progress: start a new game first.")
        at = self.clock()
        input_id = self.store.add_input(self.game_id, kind, payload, at)
        try:
            entries = self.session.apply(kind, payload, input_id, at)
        except UserError:
            self.store.set_undone(self.game_id, input_id)
            raise
        self.store.add_events(self.game_id, input_id, entries, at)
        self.history += entries
        if self.session.over:
            self.store.end_game(self.game_id, at)
        return entries

    def correct(self, kind: str, payload: dict) -> None:
        """A players' correction (the PIN was checked by the caller)."""
        with self._lock:
            if self.module is None or kind not in self.module.CORRECTIONS:
                raise UserError(f"unknown change {kind!r}: {self.module.NAME} takes {', '.join(self.module.CORRECTIONS)}."
                                if self.module else "no game in progress: start a new game first.")
            if kind == "accept" and self.session is not None and "observation" not in payload:
                # Log the reading confirmed, so a rebuild confirms the same one.
                if self.session.pending is None:
                    raise UserError("there is no reading to confirm.")
                payload = dict(payload, observation=self.session.pending)
            self._record(kind, payload)
            if kind == "accept" and self.tracker is not None:
                self.tracker.reset(self.session.last_stable)
            self._publish()

    def undo(self, input_id: object) -> None:
        with self._lock:
            if self.game_id is None or self.module is None:
                raise UserError("no game in progress.")
            if isinstance(input_id, bool) or not isinstance(input_id, int):
                raise UserError("say which correction to undo by its number.")
            row = self.store.input(self.game_id, input_id)
            if row is None or row.kind not in self.module.CORRECTIONS:
                raise UserError(f"there is no correction number {input_id} in this game.")
            if row.undone:
                raise UserError(f"correction {input_id} is already undone.")
            self.store.set_undone(self.game_id, input_id)
            game = self.store.latest_game()
            assert game is not None
            self._rebuild(self.game_id, self.module.NAME, game.players)
            self._publish()

    # ---- readings from the frame loop -------------------------------------------------------------
    def observe(self, reading: dict | None) -> phases.Step:
        """One frame's reading (None: nothing readable); a stable new state goes to the rules."""
        with self._lock:
            if self.tracker is None:
                step = phases.Step(phases.WAITING)
            else:
                step = self.tracker.update(reading)
                if step.stable is not None and not self.session.over:
                    self._record("stable", step.stable)
            moved = step.phase != self.live["phase"]
            self.live["phase"] = step.phase
            if step.stable is not None:
                self._publish()
            elif moved:
                self._publish_live()
            return step

    def set_live(self, project: object = _KEEP, force: bool = False, **values) -> None:
        """Camera status and frame-loop figures; published at most once a second unless `force`.

        `project` (table mm -> normalised picture coordinates, or None) replaces the current one."""
        with self._lock:
            found = False
            if project is not _KEEP:
                # The table found (or lost) in the picture: the overlay appears (or goes) with a whole state.
                found = (project is None) != (self.project is None)
                self.project = project  # type: ignore[assignment]
            important = any(self.live.get(k) != v for k, v in values.items() if k in ("camera", "table_warnings"))
            self.live.update(values)
            now = time.monotonic()
            if found:
                self._publish()
            elif force or important or now - self._live_published >= LIVE_EVERY_S:
                self._publish_live()

    # ---- publishing ----------------------------------------------------------------------------
    def state(self) -> dict:
        with self._lock:
            return self._state()

    def _state(self) -> dict:
        out: dict = {"version": self.version, "game_id": self.game_id, "live": dict(self.live),
                     "first_run_pin": self.first_run_pin}
        if self.session is None:
            out.update(game=None, players=[], history=[])
            return out
        view = self.session.view(self.project)
        out.update(view)
        out["history"] = self.history[-HISTORY_SHOWN:][::-1]
        return out

    def _publish(self) -> None:
        """The whole state, made and serialised once for every client."""
        with self._lock:
            self._live_published = time.monotonic()
            self.version += 1
            state = self._state()
            state["version"] = self.version
            self._last_state = (self.version, "state", json.dumps(state, separators=(",", ":")))
            self._ring.append(self._last_state)
            self._changed.notify_all()

    def _publish_live(self) -> None:
        """Only the live figures: a few hundred bytes, however long the game's history."""
        with self._lock:
            self._live_published = time.monotonic()
            self.version += 1
            live = {"version": self.version, "live": self.live}
            self._ring.append((self.version, "live", json.dumps(live, separators=(",", ":"))))
            self._changed.notify_all()

    def close(self) -> None:
        with self._changed:
            self.closed = True
            self._changed.notify_all()

    def first_version(self) -> int:
        """Where a new client starts: just before the newest whole state (then the live updates after it)."""
        with self._lock:
            return (self._last_state[0] if self._last_state else self.version) - 1

    def states_after(self, version: int, timeout: float) -> list[tuple[int, str, str]]:
        """Published updates (version, "state"|"live", json) newer than `version`, waiting up to
        `timeout` s for one (a condition: a waiting client costs nothing until something changes)."""
        with self._changed:
            if self.version <= version and not self.closed:
                self._changed.wait(timeout)
            if self._ring and self._ring[0][0] > version + 1 and self._last_state is not None:
                # Too far behind: the newest whole state, then what followed it.
                newest = self._last_state[0]
                return [self._last_state] + [u for u in self._ring if u[0] > newest]
            return [u for u in self._ring if u[0] > version]

    def set_first_run_pin(self, pin: str | None) -> None:
        with self._lock:
            if pin != self.first_run_pin:
                self.first_run_pin = pin
                self._publish()


class Jpeg(NamedTuple):
    number: int  # the frame it shows
    data: bytes  # the JPEG (the snapshot)
    part: bytes  # the same as one part of the MJPEG stream, made once for every client


class Pictures:
    """The newest frame, its number, and its JPEG: made at most once per frame, only when asked,
    at a tablet's size (`max_width`), by whichever client asks first; the others wait for it."""

    def __init__(self, max_width: int = 1024, quality: int = 75) -> None:
        self.max_width = max_width
        self.quality = quality
        self._lock = threading.Condition()
        self._encoding = threading.Lock()  # one encoder at a time: never the same frame twice
        self._image: np.ndarray | None = None
        self._number = 0
        self._jpeg: Jpeg | None = None
        self.encoded = 0  # JPEGs made so far (the load bench and tests count them)
        self.closed = False

    def close(self) -> None:
        with self._lock:
            self.closed = True
            self._lock.notify_all()

    def put(self, image: np.ndarray) -> None:
        with self._lock:
            self._image = image
            self._number += 1
            self._lock.notify_all()

    @property
    def number(self) -> int:
        return self._number

    @property
    def size(self) -> tuple[int, int] | None:
        image = self._image
        return None if image is None else (image.shape[1], image.shape[0])

    def wait_newer(self, number: int, timeout: float) -> int:
        with self._lock:
            if self._number <= number and not self.closed:
                self._lock.wait(timeout)
            return self._number

    def jpeg(self) -> Jpeg | None:
        with self._lock:
            image, number, cached = self._image, self._number, self._jpeg
        if image is None:
            return None
        if cached is not None and cached.number == number:
            return cached
        with self._encoding:
            cached = self._jpeg
            if cached is not None and cached.number >= number:
                return cached  # made by another client while this one waited
            made = self._encode(image, number)
            if made is None:
                return cached
            self._jpeg = made
            self.encoded += 1
            return made

    def _encode(self, image: np.ndarray, number: int) -> Jpeg | None:
        import cv2

        h, w = image.shape[:2]
        if w > self.max_width:
            image = cv2.resize(image, (self.max_width, round(h * self.max_width / w)), interpolation=cv2.INTER_AREA)
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, self.quality])
        if not ok:
            return None
        data = buf.tobytes()
        part = b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n" % len(data) + data + b"\r\n"
        return Jpeg(number, data, part)
