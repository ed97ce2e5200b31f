"""The tablet page: Flask app with the page, a JSON API, server-sent events, a snapshot and MJPEG.

Viewing is open; every change (new game, corrections, undo) needs the PIN, sent as the
`X-Tablecam-Pin` header or a "pin" field. A mistake in a request is a 4xx with one sentence
in {"error": ...}; the server never answers a user's mistake with a 500.

Streaming answers (SSE, MJPEG) each hold one of the WSGI server's threads for as long as the
client watches, so they get at most `max_streams` threads: a client beyond that is told to come
back later (503), and the page's own requests (state, changes) always find a free thread.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from pathlib import Path
from typing import Callable

from flask import Flask, Response, jsonify, render_template, request, stream_with_context
from werkzeug.exceptions import HTTPException

from tablecam import __version__
from tablecam.companion.auth import Guard
from tablecam.companion.games import AVAILABLE, KNOWN, game_module
from tablecam.companion.i18n import labels
from tablecam.companion.live import Hub, Pictures
from tablecam.errors import UserError

HERE = Path(__file__).parent
KEEPALIVE_S = 15.0
MJPEG_MAX_FPS = 10.0
MAX_STREAMS = 56  # the default for create_app: serve passes its own (its threads minus a reserve)
MAX_BODY = 64 * 1024

log = logging.getLogger("tablecam.app")


class Refused(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def create_app(hub: Hub, pictures: Pictures, guard: Guard, health: Callable[[], dict] = lambda: {"ok": True},
               settings_dir: Path | None = None, max_streams: int = MAX_STREAMS) -> Flask:
    """`settings_dir`: where settings marked on the page (Enigmo's shutter row) are saved;
    `max_streams`: how many SSE and MJPEG clients may watch at once."""
    app = Flask("tablecam.companion", template_folder=str(HERE / "templates"), static_folder=str(HERE / "static"))
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    app.json.sort_keys = False  # type: ignore[attr-defined]

    def body() -> dict:
        if request.content_length and request.content_length > MAX_BODY:
            raise Refused(413, "the request is too large.")
        raw = request.get_data(cache=True)
        if not raw:
            return {}
        try:
            data = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise Refused(400, "the request body is not valid JSON.") from None
        if not isinstance(data, dict):
            raise Refused(400, "the request body must be a JSON object.")
        return data

    streams = threading.BoundedSemaphore(max_streams)

    def streaming(make_body, mimetype: str) -> Response:
        """A streaming answer that holds one of the `max_streams` places until the client leaves."""
        if not streams.acquire(blocking=False):
            raise Refused(503, f"too many live viewers ({max_streams}): close a page and try again.")
        released = threading.Event()

        def release() -> None:  # once: call_on_close may run after the generator's own end
            if not released.is_set():
                released.set()
                streams.release()

        try:
            resp = Response(make_body(), mimetype=mimetype, headers={"Cache-Control": "no-store",
                                                                      "X-Accel-Buffering": "no"})
        except BaseException:
            release()
            raise
        resp.call_on_close(release)
        return resp

    def need_pin(data: dict) -> None:
        offered = request.headers.get("X-Tablecam-Pin", data.get("pin"))
        if offered is None:
            raise Refused(401, "this change needs the PIN shown on the Pi's console.")
        if not guard.check(offered if isinstance(offered, str) else str(offered)):
            raise Refused(403, "wrong PIN.")
        hub.set_first_run_pin(None)

    @app.errorhandler(Refused)
    def refused(exc: Refused):
        return jsonify(error=str(exc)), exc.status

    @app.errorhandler(UserError)
    def user_error(exc: UserError):
        return jsonify(error=str(exc)), 400

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        messages = {404: "no such page.", 405: "this address does not take that kind of request.",
                    413: "the request is too large."}
        return jsonify(error=messages.get(exc.code or 0, (exc.description or exc.name).rstrip(".") + ".")), exc.code

    @app.errorhandler(Exception)
    def bug(exc: Exception):  # a bug in tablecam: logged with its traceback, the page gets one sentence
        log.exception("internal error")
        return jsonify(error=f"internal error ({type(exc).__name__}); please report it."), 500

    @app.after_request
    def no_cache(resp: Response) -> Response:
        if request.path.startswith("/api/") or request.path.endswith((".jpg", ".mjpg")):
            resp.headers["Cache-Control"] = "no-store"
        return resp

    # ---- pages --------------------------------------------------------------------------------
    @app.get("/")
    def index():
        games = [{"name": g, "available": g in AVAILABLE,
                  "colours": list(game_module(g).STONE_COLOURS) if g in AVAILABLE else [],
                  "min": game_module(g).MIN_PLAYERS if g in AVAILABLE else 0,
                  "max": game_module(g).MAX_PLAYERS if g in AVAILABLE else 0} for g in KNOWN]
        return render_template("index.html", labels=labels(), games=games, version=__version__,
                               first_run_pin=guard.pin if guard.first_run else None)

    # ---- reading ---------------------------------------------------------------------------------
    @app.get("/api/state")
    def state():
        return jsonify(hub.state())

    @app.get("/api/health")
    def health_route():
        report = health()
        return jsonify(report), (200 if report.get("ok") else 503)

    @app.get("/api/events")
    def events():
        header = request.headers.get("Last-Event-ID", "")
        last = int(header) if header.isdigit() else hub.first_version()

        @stream_with_context
        def stream():
            nonlocal last
            yield "retry: 2000\n\n"
            while not hub.closed:
                items = hub.states_after(last, KEEPALIVE_S)
                if not items:
                    yield ": keep-alive\n\n"
                    continue
                # One write for everything pending: fewer wake-ups of the server's socket loop.
                last = items[-1][0]
                yield "".join(f"id: {version}\nevent: {kind}\ndata: {text}\n\n" for version, kind, text in items)

        return streaming(stream, "text/event-stream")

    @app.get("/snapshot.jpg")
    def snapshot():
        made = pictures.jpeg()
        if made is None:
            return jsonify(error="no picture yet: the camera is starting."), 503
        return Response(made[1], mimetype="image/jpeg", headers={"X-Frame": str(made[0])})

    @app.get("/stream.mjpg")
    def mjpeg():
        def stream():
            number = 0
            while not pictures.closed:
                # Sleeps on a condition until the frame loop puts a newer picture (no polling); the
                # JPEG is made once per frame by whichever client asks first and shared by all.
                number = pictures.wait_newer(number, KEEPALIVE_S)
                made = pictures.jpeg()
                if made is None:
                    continue
                number = made[0]
                sent = time.monotonic()
                yield made[2]
                pause = 1.0 / MJPEG_MAX_FPS - (time.monotonic() - sent)
                if pause > 0:
                    time.sleep(pause)

        return streaming(stream, "multipart/x-mixed-replace; boundary=frame")

    # ---- changing (PIN) -----------------------------------------------------------------------
    @app.post("/api/pin")
    def check_pin():
        need_pin(body())
        return jsonify(ok=True)

    @app.post("/api/game")
    def new_game():
        data = body()
        need_pin(data)
        game = data.get("game")
        if not isinstance(game, str):
            raise Refused(400, "say which game: micropul, enix, stixx or enigmo.")
        hub.new_game(game, data.get("players"))
        return jsonify(hub.state())

    @app.post("/api/correction")
    def correction():
        data = body()
        need_pin(data)
        kind = data.get("kind")
        if not isinstance(kind, str):
            names = ", ".join(hub.module.CORRECTIONS) if hub.module else "none: no game in progress"
            raise Refused(400, f"say which change (kind): {names}.")
        payload = {k: v for k, v in data.items() if k not in ("pin", "kind")}
        hub.correct(kind, payload)
        return jsonify(hub.state())

    @app.post("/api/undo")
    def undo():
        data = body()
        need_pin(data)
        hub.undo(data.get("id"))
        return jsonify(hub.state())

    @app.post("/api/settings/shutter-row")
    def shutter_row():
        """Enigmo's shutter row, tapped on the live picture: {"corners": [[x, y] x 4]} as fractions
        (0..1) of the picture's width and height, top-left first, clockwise. Turned into table mm
        with the frame loop's table lock and saved with the settings (the reader follows them)."""
        from tablecam.calibration.settings import load_settings, save_settings
        from tablecam.vision.enigmo import shutter_row_from_picture

        data = body()
        need_pin(data)
        if settings_dir is None:
            raise Refused(503, "this server keeps no settings file.")
        project = hub.project
        if project is None:
            raise Refused(409, "the table is not found in the picture yet: make sure the four markers show.")
        settings = load_settings(settings_dir)
        row = shutter_row_from_picture(data.get("corners"), project, settings.geometry)
        save_settings(settings.with_shutter_row(row.corners_mm), settings_dir)
        return jsonify(shutter_row_mm=row.as_list())

    return app
