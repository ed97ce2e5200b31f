"""Camera sources, and the one thread that owns the camera.

Sources: the Pi camera (picamera2: the full-resolution main stream for recognition, the lores
stream for the live picture), a USB camera (OpenCV), a video file or a folder of images, and the
demo camera (the simulator's game sequence). `open_source("auto")` takes the Pi camera, else the
first USB camera, else the demo.

`Camera` runs the source in its own thread. A camera that stops delivering frames is closed and
reopened with growing pauses (back-off), and its status (shown on the page) says so. A live
camera keeps only its newest frame (the frame loop takes the freshest picture); a recording or
the demo hands over every frame in order, so no state of the game is skipped.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Protocol

import numpy as np

from tablecam.errors import UserError

try:  # Raspberry Pi OS only (apt python3-picamera2); never a pip dependency
    from picamera2 import Picamera2  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - depends on the machine
    Picamera2 = None

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")
VIDEO_SUFFIXES = (".mp4", ".mkv", ".avi", ".mov", ".h264", ".mjpeg", ".mjpg", ".webm")
DEMO_RESOLUTION = (2028, 1520)
PREVIEW_RESOLUTION = (1014, 760)


class CameraStopped(Exception):
    """The source delivers no more frames (unplugged, closed, crashed)."""


class RecordingEnded(Exception):
    """A video file or image folder was played to its end."""


@dataclass(frozen=True, eq=False)
class Frame:
    image: np.ndarray  # BGR, for recognition
    number: int  # counts the frames of this source
    preview: np.ndarray | None = None  # a smaller BGR picture for the page, when the camera gives one
    truth: dict | None = None  # the simulator's ground truth (demo camera only)
    game_start: bool = False  # the demo began a new game with this frame


class Source(Protocol):
    name: str
    live: bool  # a real camera: only the newest frame matters

    def open(self) -> None: ...

    def read(self) -> Frame: ...

    def close(self) -> None: ...


# ---- sources ---------------------------------------------------------------------------------------

@dataclass
class DemoSource:
    """The simulator's sequence of the game being played (a hand moves the pieces), forever."""

    seed: int = 0
    resolution: tuple[int, int] = DEMO_RESOLUTION
    frames_per_state: int = 4
    fps: float | None = 5.0  # None: as fast as the frames render
    game: str = "micropul"
    hand_frames: int = 8  # frames of the hand moving a piece between two states
    name: str = "demo"
    live: bool = False
    _frames: Iterator | None = field(default=None, repr=False)
    _number: int = 0
    _restart: bool = False
    _next_at: float = 0.0
    _game_seed: int | None = None  # of the last stable frame: the sequence names each game's seed

    def open(self) -> None:
        from tablecam.simulator import CameraModel, sequence

        self._frames = sequence(self.game, self.seed, camera=CameraModel.default(resolution=self.resolution),
                                frames_per_state=self.frames_per_state, hand_frames=self.hand_frames)
        self._game_seed = None

    def restart(self, game: str | None = None) -> None:
        """Start a fresh game (of `game`, when given) with the next seed at the next frame."""
        if game:
            self.game = game
        self._restart = True

    def read(self) -> Frame:
        if self._restart:
            self._restart = False
            self.seed += 1
            self.open()
        if self._frames is None:
            raise CameraStopped("the demo camera is not open")
        if self.fps:
            wait = self._next_at - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            self._next_at = max(self._next_at, time.monotonic() - 1.0) + 1.0 / self.fps
        shot = next(self._frames)
        self._number += 1
        seed = shot.truth.get("game_seed")
        started = shot.stable and self._game_seed is not None and seed != self._game_seed
        if shot.stable:
            self._game_seed = seed
        return Frame(shot.image, self._number, truth=shot.truth, game_start=started)

    def close(self) -> None:
        self._frames = None



@dataclass
class OpenCVSource:
    """A USB camera (`usb:N`) or a video file, through cv2.VideoCapture."""

    target: int | str
    live: bool = True
    resolution: tuple[int, int] | None = None
    name: str = ""
    _cap: object = field(default=None, repr=False)
    _number: int = 0
    _fps: float = 0.0
    _next_at: float = 0.0

    def __post_init__(self) -> None:
        self.name = self.name or (f"usb:{self.target}" if isinstance(self.target, int) else Path(self.target).name)

    def open(self) -> None:
        import cv2

        cap = cv2.VideoCapture(self.target)
        if not cap.isOpened():
            cap.release()
            raise CameraStopped(f"cannot open {self.name}")
        if self.resolution and self.live:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.resolution[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.resolution[1])
        # A recording plays at its own speed, not as fast as it decodes.
        self._fps = 0.0 if self.live else float(cap.get(cv2.CAP_PROP_FPS) or 0.0)
        self._cap = cap

    def read(self) -> Frame:
        if self._cap is None:
            raise CameraStopped(f"{self.name} is not open")
        if self._fps > 0:
            wait = self._next_at - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            self._next_at = max(self._next_at, time.monotonic() - 1.0) + 1.0 / self._fps
        ok, image = self._cap.read()  # type: ignore[attr-defined]
        if not ok or image is None:
            if not self.live:
                raise RecordingEnded(f"{self.name} has ended")
            raise CameraStopped(f"{self.name} gave no picture")
        self._number += 1
        return Frame(image, self._number)

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()  # type: ignore[attr-defined]
            self._cap = None


@dataclass
class FolderSource:
    """The images of a folder in name order, one every 1/fps seconds, then the end."""

    folder: Path
    fps: float = 2.0
    name: str = ""
    live: bool = False
    _paths: list = field(default_factory=list, repr=False)
    _index: int = 0
    _next_at: float = 0.0

    def __post_init__(self) -> None:
        self.name = self.name or self.folder.name

    def open(self) -> None:
        self._paths = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self._paths:
            raise UserError(f"{self.folder} holds no images ({', '.join(IMAGE_SUFFIXES)}).")
        self._index = 0

    def read(self) -> Frame:
        import cv2

        if self._index >= len(self._paths):
            raise RecordingEnded(f"the last image of {self.name} was shown")
        wait = self._next_at - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        self._next_at = max(self._next_at, time.monotonic() - 1.0) + 1.0 / self.fps
        path = self._paths[self._index]
        self._index += 1
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            # One corrupt image in a folder is skipped, not fatal: show the next one.
            return self.read()
        return Frame(image, self._index)

    def close(self) -> None:
        self._paths = []


@dataclass
class PiCameraSource:
    """The Raspberry Pi camera through picamera2: main stream to recognise, lores for the page."""

    resolution: tuple[int, int] = DEMO_RESOLUTION
    preview: tuple[int, int] = PREVIEW_RESOLUTION
    name: str = "picamera"
    live: bool = True
    _cam: object = field(default=None, repr=False)
    _number: int = 0
    _lores_size: tuple[int, int] = PREVIEW_RESOLUTION

    def open(self) -> None:
        if Picamera2 is None:
            raise CameraStopped("picamera2 is not installed (apt install python3-picamera2)")
        try:
            cam = Picamera2()
            # The recogniser reads the full-resolution main stream (its accuracy figures are at
            # 2028x1520); the page's picture needs only about 1000 px, which the ISP scales for
            # free into the lores stream (YUV420: the only lores format a Pi 4 has).
            config = cam.create_video_configuration(
                main={"size": self.resolution, "format": "RGB888"},  # RGB888 is BGR in memory
                lores={"size": self.preview, "format": "YUV420"}, buffer_count=4)
            cam.configure(config)
            cam.start()
            # libcamera may have adjusted the sizes: keep what it gave.
            self._lores_size = tuple(cam.camera_configuration()["lores"]["size"])
        except Exception as exc:  # picamera2 raises bare RuntimeErrors and IndexErrors when no camera
            raise CameraStopped(f"the Pi camera did not start: {exc}") from None
        self._cam = cam

    def read(self) -> Frame:
        if self._cam is None:
            raise CameraStopped("the Pi camera is not open")
        try:
            request = self._cam.capture_request()  # type: ignore[attr-defined]
            try:
                main = request.make_array("main")
                lores = request.make_array("lores")
            finally:
                request.release()
        except Exception as exc:
            raise CameraStopped(f"the Pi camera stopped: {exc}") from None
        self._number += 1
        return Frame(main, self._number, preview=yuv420_to_bgr(lores, self._lores_size[0]))

    def close(self) -> None:
        if self._cam is not None:
            try:
                self._cam.stop()  # type: ignore[attr-defined]
                self._cam.close()  # type: ignore[attr-defined]
            finally:
                self._cam = None


def yuv420_to_bgr(yuv: np.ndarray, width: int) -> np.ndarray:
    """A BGR picture from picamera2's YUV420 array ((height * 3 / 2, stride) bytes). The stride can
    be wider than the picture (rows padded to the ISP's alignment, e.g. 1014 -> 1024): OpenCV
    converts the padded planes as they are, and the padding is cut off afterwards."""
    import cv2

    return np.ascontiguousarray(cv2.cvtColor(yuv, cv2.COLOR_YUV2BGR_I420)[:, :width])


def _usb_works(index: int) -> bool:
    import cv2

    cap = cv2.VideoCapture(index)
    try:
        return bool(cap.isOpened() and cap.read()[0])
    finally:
        cap.release()


def open_source(spec: str, demo_fps: float | None = 5.0, demo_frames_per_state: int = 4,
                demo_resolution: tuple[int, int] = DEMO_RESOLUTION, seed: int = 0, game: str = "micropul",
                demo_hand_frames: int = 8) -> Source:
    """`auto`, `demo`, `picamera`, `usb:N`, a video file or a folder of images -> a Source (not yet open)."""
    def demo() -> Source:
        return DemoSource(seed, demo_resolution, demo_frames_per_state, demo_fps, game, demo_hand_frames)

    if spec == "demo":
        return demo()
    if spec == "picamera":
        if Picamera2 is None:
            raise UserError("the Pi camera needs picamera2: sudo apt install python3-picamera2.")
        return PiCameraSource()
    if spec.startswith("usb:"):
        index = spec[4:]
        if not index.isdigit():
            raise UserError(f"a USB camera is usb:N with N a number (usb:0), not {spec!r}.")
        return OpenCVSource(int(index))
    if spec == "auto":
        if Picamera2 is not None:
            try:
                if Picamera2.global_camera_info():  # pragma: no cover - needs the Pi's camera
                    return PiCameraSource()
            except Exception:  # pragma: no cover
                pass
        if Path("/dev/video0").exists() and _usb_works(0):
            return OpenCVSource(0)
        return demo()
    path = Path(spec)
    if path.is_dir():
        return FolderSource(path)
    if path.is_file():
        if path.suffix.lower() not in VIDEO_SUFFIXES:
            raise UserError(f"{spec} is not a video file ({', '.join(VIDEO_SUFFIXES)}) nor a folder of images.")
        return OpenCVSource(str(path), live=False)
    raise UserError(f"unknown camera {spec!r}: use auto, demo, picamera, usb:N, a video file or a folder of images.")


# ---- the thread that owns the camera -------------------------------------------------------------

@dataclass(frozen=True)
class BackOff:
    first_s: float = 0.5
    longest_s: float = 30.0
    stalled_after: int = 3  # failed reads in a row before the camera is reopened

    def pause(self, attempt: int) -> float:
        return min(self.longest_s, self.first_s * 2 ** max(0, attempt - 1))


class Camera:
    """Owns one source in one thread; the frame loop takes frames with `next_frame`."""

    def __init__(self, source: Source, on_status: Callable[[dict], None] = lambda status: None,
                 backoff: BackOff = BackOff()) -> None:
        self.source = source
        self.on_status = on_status
        self.backoff = backoff
        self._slot = threading.Condition()
        self._frame: Frame | None = None
        self._taken = True
        self._generation = 0  # bumped by restart_game: frames read before it are stale
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)
        self.status: dict = {"ok": False, "state": "starting", "source": source.name, "attempt": 0, "error": None}

    def start(self) -> "Camera":
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        with self._slot:
            self._slot.notify_all()
        self._thread.join(timeout)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def restart_game(self, game: str | None = None) -> None:
        """Ask a demo source for a fresh game (the players started a new one).

        Frames of the old game still on their way are dropped: held long enough they would
        become the new game's starting board."""
        restart = getattr(self.source, "restart", None)
        if restart is None:
            return
        with self._slot:
            self._generation += 1
            restart(game)
            self._taken = True
            self._slot.notify_all()

    def next_frame(self, timeout: float = 1.0) -> Frame | None:
        """The next frame not yet taken (waiting up to `timeout`), or None."""
        with self._slot:
            if self._taken:
                self._slot.wait(timeout)
            if self._taken or self._frame is None:
                return None
            self._taken = True
            self._slot.notify_all()  # a recording waits for its frame to be taken
            return self._frame

    def _put(self, frame: Frame, generation: int) -> None:
        with self._slot:
            if not self.source.live:
                while not self._taken and not self._stop.is_set():
                    self._slot.wait(0.5)
            if generation != self._generation:
                return  # read before a restart: the old game's picture
            self._frame, self._taken = frame, False
            self._slot.notify_all()

    def _set_status(self, **values) -> None:
        self.status = {**self.status, **values}
        self.on_status(dict(self.status))

    def _run(self) -> None:
        attempt = 0
        while not self._stop.is_set():
            try:
                self.source.open()
            except (CameraStopped, OSError, UserError) as exc:
                attempt += 1
                self._set_status(ok=False, state="reopening", attempt=attempt, error=str(exc))
                self._stop.wait(self.backoff.pause(attempt))
                continue
            self._set_status(ok=True, state="running", attempt=attempt, error=None)
            failures = 0
            try:
                while not self._stop.is_set():
                    generation = self._generation
                    try:
                        frame = self.source.read()
                    except CameraStopped as exc:
                        failures += 1
                        if failures >= self.backoff.stalled_after:
                            raise
                        self._set_status(ok=False, state="stalling", error=str(exc))
                        self._stop.wait(0.1)
                        continue
                    if failures:
                        self._set_status(ok=True, state="running", error=None)
                    failures, attempt = 0, 0
                    self._put(frame, generation)
            except RecordingEnded as exc:
                self._set_status(ok=False, state="ended", error=str(exc))
                self.source.close()
                return
            except CameraStopped as exc:
                attempt += 1
                self._set_status(ok=False, state="reopening", attempt=attempt, error=str(exc))
            except Exception as exc:  # a driver crash must not end the service: reopen like a stall
                attempt += 1
                self._set_status(ok=False, state="reopening", attempt=attempt, error=f"{type(exc).__name__}: {exc}")
            try:
                self.source.close()
            except Exception:
                pass
            self._stop.wait(self.backoff.pause(attempt))
        try:
            self.source.close()
        except Exception:
            pass
