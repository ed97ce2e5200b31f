"""The tablet page: Flask app with the page, a JSON API, server-sent events, a snapshot and MJPEG.

Viewing is open; every change (new game, corrections, undo) needs the PIN, sent as the
`X-Tablecam-Pin` header or a "pin" field. A mistake in a request is a 4xx with one sentence
in {"error": ...}; the server never answers a user's mistake with a 500.
"""

from __future__ import annotations

import json
import logging
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
MAX_BODY = 64 * 1024

log = logging.getLogger("tablecam.app")


class Refused(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def create_app(hub: Hub, pictures: Pictures, guard: Guard, health: Callable[[], dict] = lambda: {"ok": True}) -> Flask:
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
        last = int(header) if header.isdigit() else hub.version - 1

        @stream_with_context
        def stream():
            nonlocal last
            yield "retry: 2000\n\n"
            while not hub.closed:
                items = hub.states_after(last, KEEPALIVE_S)
                if not items:
                    yield ": keep-alive\n\n"
                    continue
                for version, text in items:
                    last = version
                    yield f"id: {version}\nevent: state\ndata: {text}\n\n"

        return Response(stream(), mimetype="text/event-stream",
                        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    @app.get("/snapshot.jpg")
    def snapshot():
        made = pictures.jpeg()
        if made is None:
            return jsonify(error="no picture yet: the camera is starting."), 503
        return Response(made[1], mimetype="image/jpeg")

    @app.get("/stream.mjpg")
    def mjpeg():
        def stream():
            number = 0
            while not pictures.closed:
                number = pictures.wait_newer(number, KEEPALIVE_S)
                made = pictures.jpeg()
                if made is None:
                    continue
                sent = time.monotonic()
                yield (b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n" % len(made[1])
                       + made[1] + b"\r\n")
                pause = 1.0 / MJPEG_MAX_FPS - (time.monotonic() - sent)
                if pause > 0:
                    time.sleep(pause)

        return Response(stream(), mimetype="multipart/x-mixed-replace; boundary=frame",
                        headers={"Cache-Control": "no-store"})

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

    return app
