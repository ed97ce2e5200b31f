"""The frame loop: camera frame -> table position -> reading -> tracker -> rules, in one thread.

Per frame: the picture goes to the page; calibration's `TableTracker` finds the table (it keeps
the last good position while hands cover markers) so the page can draw the board over the live
picture; the reader (the game's recogniser) turns the frame into an Observation; the hub's tracker
debounces it and feeds stable states to the rules. A reading that fails is "nothing readable",
never a crash: the loop must outlive any frame.

A live camera is followed at a steady target rate (`max_fps`; `tablecam serve --fps`, 5 by
default) rather than as fast as it delivers: a frame costs the micropul reader some 40-70 ms of
one core at 2028x1520, so at 5 frames a second more than half a core is left for the page's
clients and the rest of the Pi. The camera's extra frames are simply not taken (its thread keeps
only the newest). The demo camera and recordings pace themselves and hand over every frame.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections import deque
from typing import Callable

import numpy as np

from tablecam.companion.live import Hub, Pictures
from tablecam.companion.sources import Camera, Frame
from tablecam.errors import UserError

RATE_WINDOW_S = 3.0
CPU_WINDOW = 50  # frames over which the loop's CPU time per frame is reported


def projector(fix, size: tuple[int, int]) -> Callable:
    """Table mm -> picture coordinates in 0..1 (so the page can scale them to any picture size)."""
    w, h = size

    def project(points_mm):
        px = fix.table_to_image(np.asarray(points_mm, dtype=np.float64).reshape(-1, 2))
        return [(x / w, y / h) for x, y in px]

    return project


class FrameLoop:
    def __init__(self, camera: Camera, reader, hub: Hub, pictures: Pictures, table=None,
                 demo_continues: bool = True, ranking_pause_s: float = 10.0, max_fps: float | None = None) -> None:
        self.camera = camera
        self.reader = reader
        self.hub = hub
        self.pictures = pictures
        self.table = table  # calibration.tracker.TableTracker, or None (no overlay)
        self.demo_continues = demo_continues
        self.ranking_pause_s = ranking_pause_s
        self.max_fps = max_fps  # None: as fast as frames come
        self._cpu: deque[float] = deque(maxlen=CPU_WINDOW)  # thread CPU seconds of recent frames
        self.beat = time.monotonic()  # the watchdog checks that this keeps moving
        self.frames = 0
        self.errors = 0
        self._times: deque[float] = deque()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="frame-loop", daemon=True)

    def start(self) -> "FrameLoop":
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._thread.join(timeout)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    @property
    def rate(self) -> float:
        """Frames processed per second over the last few seconds."""
        times = list(self._times)
        if len(times) < 2:
            return 0.0
        return (len(times) - 1) / max(1e-6, times[-1] - times[0])

    @property
    def cpu_ms(self) -> float:
        """Median CPU time of this loop's thread per frame, in ms (less noisy than the rate
        on a shared machine: it does not count the time other processes took the cores)."""
        times = list(self._cpu)
        return round(statistics.median(times) * 1000, 1) if times else 0.0

    def _run(self) -> None:
        next_at = time.monotonic()
        while not self._stop.is_set():
            self.beat = time.monotonic()
            if self.max_fps:
                # The steady target rate: wait for the next tick (a late frame does not make the
                # loop rush to catch up: it starts counting again from now).
                wait = next_at - time.monotonic()
                if wait > 0 and self._stop.wait(wait):
                    break
                next_at = max(next_at + 1.0 / self.max_fps, time.monotonic())
            frame = self.camera.next_frame(timeout=0.5)
            if frame is None:
                continue
            started = time.thread_time()
            try:
                self.process(frame)
            except Exception as exc:  # a bug on one frame must not stop the table being watched
                self.errors += 1
                self.hub.set_live(loop_error=f"{type(exc).__name__}: {exc}")
            self._cpu.append(time.thread_time() - started)

    def process(self, frame: Frame) -> None:
        self.pictures.put(frame.preview if frame.preview is not None else frame.image)
        if frame.game_start and self.demo_continues and self.hub.session is not None and self.hub.session.over:
            # The demo laid out its next game: leave the ranking on the page a while (the demo
            # camera waits for its frames to be taken), then carry on with the same players.
            finished = self.hub.game_id
            until = time.monotonic() + self.ranking_pause_s
            while time.monotonic() < until and not self._stop.is_set() and self.hub.game_id == finished:
                self.beat = time.monotonic()
                self._stop.wait(0.2)
            if self.hub.game_id == finished:  # the players did not start one themselves meanwhile
                self.hub.new_game(self.hub.module.NAME, self.hub.session.players, notify=False)
        project, markers, table_warnings = None, 0, []
        if self.table is not None:
            try:
                fix = self.table.update(frame.image)
                project = projector(fix, (frame.image.shape[1], frame.image.shape[0]))
                markers, table_warnings = len(fix.markers_seen), list(fix.warnings)
            except UserError as exc:
                table_warnings = [str(exc)]
        try:
            reading = self.reader.read(frame) if self.reader is not None else None
        except UserError as exc:
            reading = None
            table_warnings = table_warnings + [str(exc)]
        self.hub.observe(reading)
        now = time.monotonic()
        self._times.append(now)
        while self._times and now - self._times[0] > RATE_WINDOW_S:
            self._times.popleft()
        self.frames += 1
        self.hub.set_live(project=project, fps=round(self.rate, 2), frames=self.frames, markers_seen=markers,
                          table_warnings=table_warnings, size=[frame.image.shape[1], frame.image.shape[0]])
