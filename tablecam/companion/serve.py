"""`tablecam serve`: the camera thread, the frame loop, the game log and the page, under waitress.

Everything is built from a `ServeConfig` by `Server`, which tests start on a free loopback port.
Under systemd (Type=notify) it says READY once the page answers and pings the watchdog only
while the camera thread and the frame loop are alive and the loop keeps turning.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from tablecam.companion import sdnotify
from tablecam.companion.auth import Guard, load_or_create
from tablecam.companion.games import game_module
from tablecam.companion.i18n import both
from tablecam.companion.live import Hub, Pictures
from tablecam.companion.loop import FrameLoop
from tablecam.companion.readers import DetectorReader, NoRecogniser, SimulatorTruthReader, ReaderOfTheGame
from tablecam.companion.sources import DEMO_RESOLUTION, Camera, open_source
from tablecam.companion.store import Store
from tablecam.errors import UserError

log = logging.getLogger("tablecam.serve")
READERS = ("detector", "truth")
LOOP_STALL_S = 10.0  # a frame loop whose heartbeat is older than this is stuck: stop pinging the watchdog
PAGE_THREADS = 8  # waitress threads never given to streaming clients: the page's own requests use them


@dataclass(frozen=True)
class ServeConfig:
    host: str = "0.0.0.0"
    port: int = 8080
    camera: str = "auto"
    data_dir: Path = Path("~/.local/share/tablecam")
    game: str = "micropul"
    reader: str = "detector"  # "truth": the demo's ground truth instead of recognition (tests)
    hold: int = 3  # frames a reading must hold to become a stable state
    demo_fps: float | None = 5.0
    demo_frames_per_state: int = 4
    demo_hand_frames: int = 8  # a test that plays a whole game asks for a quicker hand
    demo_resolution: tuple[int, int] = DEMO_RESOLUTION
    seed: int = 0
    threads: int = 64  # waitress worker threads: each SSE or MJPEG client holds one (PAGE_THREADS are kept free)
    fps: float | None = 5.0  # a live camera's frames taken per second (the demo and recordings pace themselves)
    calibrate: bool = True  # find the table in each frame (for the overlay on the live picture)
    ranking_pause_s: float = 10.0  # the demo shows each final ranking this long before its next game


class Server:
    def __init__(self, config: ServeConfig) -> None:
        from tablecam.calibration.settings import load_settings

        self.config = config
        if config.reader not in READERS:
            raise UserError(f"unknown reader {config.reader!r}: choose detector or truth.")
        if config.threads < 2:
            raise UserError("the page needs at least 2 server threads.")
        if not 1 <= config.hold <= 100:
            raise UserError("--hold must be 1 to 100 frames.")
        game_module(config.game)  # an unknown game is a mistake before anything starts
        data_dir = self.data_dir = Path(config.data_dir).expanduser()
        try:
            settings = load_settings(data_dir)
        except (ValueError, UserError) as exc:
            raise UserError(f"the settings in {data_dir} cannot be read: {str(exc).rstrip('.')}.") from None
        source = open_source(config.camera, config.demo_fps, config.demo_frames_per_state,
                             config.demo_resolution, config.seed, config.game, config.demo_hand_frames)
        if config.reader == "truth" and source.name != "demo":
            raise UserError("--reader truth needs --camera demo (only the demo knows the truth).")
        self.store = Store(data_dir / "games.sqlite3")
        pin = load_or_create(data_dir)
        self.guard = Guard(pin, data_dir)
        self.hub = Hub(self.store, hold=config.hold)
        if pin.first_run:
            self.hub.set_first_run_pin(pin.value)
        self.pictures = Pictures()
        self.camera = Camera(source, on_status=self._camera_status)
        self.hub.new_game_listeners.append(self.camera.restart_game)
        self.reader = self._reader(settings)
        if hasattr(self.reader, "forget"):
            self.hub.new_game_listeners.append(self.reader.forget)
        table = None
        if config.calibrate:
            from tablecam.calibration.tracker import TableTracker

            table = TableTracker(settings.geometry, settings.camera)
        self.loop = FrameLoop(self.camera, self.reader, self.hub, self.pictures, table,
                              ranking_pause_s=config.ranking_pause_s, max_fps=config.fps if source.live else None)
        from tablecam.companion.app import create_app

        self.app = create_app(self.hub, self.pictures, self.guard, self.health, settings_dir=data_dir,
                              max_streams=config.threads - min(PAGE_THREADS, config.threads // 2))
        self._wsgi = None
        self._wsgi_thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._watchdog: threading.Thread | None = None

    def _reader(self, settings):
        if self.config.reader == "truth":
            return SimulatorTruthReader()

        def make(game: str) -> DetectorReader:
            from tablecam.calibration.colours import DEFAULT_COLOURS

            # Enigmo has no colours to teach: asking for its profile is an error, not a default
            colours = settings.colour_profile(game) if game in DEFAULT_COLOURS else None
            return DetectorReader(game, settings.geometry, settings.camera, colours, data_dir=self.data_dir,
                                  remember=getattr(game_module(game), "recogniser_state", None))

        def missing(game: str, exc: NoRecogniser) -> None:
            # The page still shows the picture and keeps the game log; it says why nothing is read.
            log.warning("%s", exc)
            self.hub.set_live(reader_error=both("no_detector", game=game), force=True)

        return ReaderOfTheGame(lambda: self.hub.module.NAME if self.hub.module else self.config.game, make, missing)

    def _camera_status(self, status: dict) -> None:
        if status["state"] == "running":
            text = both("camera_ok", name=status["source"])
        elif status["state"] == "reopening":
            text = both("camera_reopening", n=status["attempt"])
        else:
            text = {"en": f"Camera: {status['state']} ({status.get('error')})",
                    "fr": f"Caméra : {status['state']} ({status.get('error')})"}
        self.hub.set_live(camera={"ok": status["ok"], "state": status["state"], "text": text}, force=True)

    def health(self) -> dict:
        beat_age = time.monotonic() - self.loop.beat
        ok = self.camera.alive and self.loop.alive and beat_age < LOOP_STALL_S
        return {"ok": ok, "camera": self.camera.status, "loop_alive": self.loop.alive,
                "loop_beat_s": round(beat_age, 2), "fps": round(self.loop.rate, 2), "frames": self.loop.frames,
                "loop_cpu_ms": self.loop.cpu_ms,
                "journal_mode": self.store.journal_mode()}

    # ---- running ---------------------------------------------------------------------------------
    def start(self) -> int:
        """Starts everything in background threads; returns the port the page listens on."""
        import cv2
        from waitress.server import create_server

        # The server already runs its work in parallel threads (camera, frame loop, viewers' JPEG);
        # OpenCV's own pool on top makes them queue behind each other's parallel jobs and spin while
        # waiting (bench/serve_load.py, 20+20 viewers: 224 against 250 ms of server CPU per frame).
        cv2.setNumThreads(1)
        self._wsgi = create_server(self.app, host=self.config.host, port=self.config.port,
                                   threads=self.config.threads, channel_timeout=300, ident="tablecam",
                                   clear_untrusted_proxy_headers=True)
        self.camera.start()
        self.loop.start()
        self._wsgi_thread = threading.Thread(target=self._wsgi.run, name="waitress", daemon=True)
        self._wsgi_thread.start()
        self._watchdog = threading.Thread(target=self._ping_systemd, name="watchdog", daemon=True)
        self._watchdog.start()
        return int(self._wsgi.effective_port)  # type: ignore[attr-defined]

    def _ping_systemd(self) -> None:
        sdnotify.notify("READY=1\nSTATUS=serving the table page")
        interval = sdnotify.watchdog_interval()
        if interval is None:
            return
        while not self._stop.wait(interval):
            if self.health()["ok"]:
                sdnotify.notify("WATCHDOG=1")
            # else: systemd restarts us after WatchdogSec: the camera or the loop is stuck.

    def serve_forever(self) -> None:
        port = self.start()
        shown = "localhost" if self.config.host in ("0.0.0.0", "::") else self.config.host
        print(f"tablecam: the table page is at http://{shown}:{port}/ (camera: {self.camera.source.name}).", flush=True)
        print(f"tablecam: PIN for changes: {self.guard.pin}", flush=True)
        try:
            while not self._stop.wait(1.0):
                pass
        except KeyboardInterrupt:
            pass
        finally:
            self.close()

    def close(self) -> None:
        """Stops everything: streaming clients end, connections close, the port is free again."""
        self._stop.set()
        sdnotify.notify("STOPPING=1")
        self.hub.close()
        self.pictures.close()
        if self._wsgi is not None:
            from waitress import wasyncore

            wsgi, closed = self._wsgi, threading.Event()

            def close_all() -> None:  # runs in waitress's own loop thread: no race on its sockets
                wasyncore.close_all(wsgi._map)  # type: ignore[attr-defined]
                closed.set()

            # The streaming answers end first (the hub and pictures are closed), then the sockets.
            wsgi.task_dispatcher.shutdown(timeout=5)
            try:
                if wsgi.trigger._closed:  # type: ignore[attr-defined]
                    raise OSError("waitress's trigger is closed")
                wsgi.trigger.pull_trigger(close_all)  # type: ignore[attr-defined]
                closed.wait(5)
            except OSError:
                # The loop already closed its own trigger (seen once in CI under heavy load): nothing
                # can wake it any more, so the sockets are closed from here; the port must be freed.
                wasyncore.close_all(wsgi._map, ignore_all=True)  # type: ignore[attr-defined]
            if self._wsgi_thread is not None:
                self._wsgi_thread.join(5)
            self._wsgi = None
        if self.loop.alive:
            self.loop.stop()
        if self.camera.alive:
            self.camera.stop()
        self.store.close()
