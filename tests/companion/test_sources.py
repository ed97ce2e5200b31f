"""Camera sources: choosing one, one thread owning it, reopening a camera that stops, with back-off."""

import threading
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from tablecam.companion import sources
from tablecam.companion.sources import (BackOff, Camera, CameraStopped, DemoSource, FolderSource, Frame,
                                        OpenCVSource, open_source)
from tablecam.errors import UserError


class Flaky:
    """A camera that delivers `good` frames, then fails `bad` reads in a row, then works again."""

    name = "flaky"
    live = True

    def __init__(self, good=3, bad=5, fail_opens=1):
        self.good, self.bad, self.fail_opens = good, bad, fail_opens
        self.opens = self.reads = 0
        self.threads = set()

    def open(self):
        self.threads.add(threading.get_ident())
        self.opens += 1
        if self.opens <= self.fail_opens:
            raise CameraStopped("no camera yet")

    def read(self):
        self.threads.add(threading.get_ident())
        self.reads += 1
        if self.good < self.reads <= self.good + self.bad:
            raise CameraStopped("unplugged")
        time.sleep(0.005)
        return Frame(np.zeros((8, 8, 3), np.uint8), self.reads)

    def close(self):
        self.threads.add(threading.get_ident())


def test_a_camera_that_stops_is_reopened_with_back_off_and_the_status_says_so():
    source = Flaky()
    statuses = []
    camera = Camera(source, statuses.append, BackOff(first_s=0.01, longest_s=0.05, stalled_after=2)).start()
    frames = []
    deadline = time.monotonic() + 5
    while len(frames) < 8 and time.monotonic() < deadline:
        frame = camera.next_frame(timeout=0.2)
        if frame is not None:
            frames.append(frame.number)
    camera.stop()
    states = [s["state"] for s in statuses]
    assert states[0] == "reopening" and "running" in states
    assert "stalling" in states and states.count("reopening") >= 2  # the failed start, then the stall
    assert source.opens >= 3 and len(frames) >= 8
    assert len(source.threads) == 1  # one thread owns the camera


def test_back_off_grows_and_is_capped():
    b = BackOff(first_s=0.5, longest_s=30)
    assert [b.pause(n) for n in (1, 2, 3, 8, 20)] == [0.5, 1.0, 2.0, 30, 30]


def test_a_recording_hands_over_every_frame_in_order(tmp_path):
    for i in range(6):
        cv2.imwrite(str(tmp_path / f"f{i:02d}.png"), np.full((16, 16, 3), i * 40, np.uint8))
    (tmp_path / "notes.txt").write_text("not an image")
    camera = Camera(FolderSource(tmp_path, fps=200), lambda s: None).start()
    got = []
    for _ in range(40):
        frame = camera.next_frame(timeout=0.2)
        if frame is not None:
            got.append(int(frame.image[0, 0, 0]))
            time.sleep(0.02)  # a slow loop must not make the recording skip frames
        elif camera.status["state"] == "ended":
            break
    camera.stop()
    assert got == [0, 40, 80, 120, 160, 200]
    assert camera.status["state"] == "ended"


def test_a_video_file_plays_to_its_end(tmp_path):
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 50, (32, 24))
    if not writer.isOpened():
        pytest.skip("this OpenCV build cannot write MJPG AVI files")
    for i in range(5):
        writer.write(np.full((24, 32, 3), i * 50, np.uint8))
    writer.release()
    source = open_source(str(path))
    assert isinstance(source, OpenCVSource) and not source.live
    source.open()
    frames = [source.read() for _ in range(5)]
    with pytest.raises(sources.RecordingEnded):
        source.read()
    source.close()
    assert len(frames) == 5


@pytest.mark.parametrize("spec, message", [
    ("usb:x", "usb:N with N a number"),
    ("nowhere/at/all", "unknown camera"),
])
def test_bad_camera_names_are_one_sentence(spec, message):
    with pytest.raises(UserError, match=message):
        open_source(spec)


def test_a_file_that_is_not_a_video(tmp_path):
    (tmp_path / "x.txt").write_text("hi")
    with pytest.raises(UserError, match="not a video file"):
        open_source(str(tmp_path / "x.txt"))


def test_an_empty_folder(tmp_path):
    with pytest.raises(UserError, match="holds no images"):
        FolderSource(tmp_path).open()


def test_picamera_without_picamera2_is_one_sentence(monkeypatch):
    monkeypatch.setattr(sources, "Picamera2", None)
    with pytest.raises(UserError, match="python3-picamera2"):
        open_source("picamera")


def test_auto_falls_back_to_the_demo_without_a_camera(monkeypatch):
    monkeypatch.setattr(sources, "Picamera2", None)
    monkeypatch.setattr(sources, "_usb_works", lambda index: False)
    assert isinstance(open_source("auto"), DemoSource)


class _FakeRequest:
    """A completed request as picamera2 hands it over: make_array gives main as (h, w, 3) and the
    YUV420 lores as (h * 3 / 2, stride), its rows padded to the stride (picamera2/helpers.py)."""

    def __init__(self, main: np.ndarray, lores_bgr: np.ndarray, stride: int) -> None:
        import cv2

        h, w = lores_bgr.shape[:2]
        i420 = cv2.cvtColor(lores_bgr, cv2.COLOR_BGR2YUV_I420)  # (h * 3 / 2, w): Y, then U and V planes
        y, u, v = i420[:h], i420[h:h + h // 4].reshape(h // 2, w // 2), i420[h + h // 4:].reshape(h // 2, w // 2)
        padded = np.zeros(h * 3 // 2 * stride, np.uint8)
        # Each plane's rows padded to its stride (the chroma planes' stride is half the luma's).
        ys = np.zeros((h, stride), np.uint8)
        ys[:, :w] = y
        us, vs = (np.zeros((h // 2, stride // 2), np.uint8) for _ in range(2))
        us[:, :w // 2], vs[:, :w // 2] = u, v
        padded[:] = np.concatenate([ys.ravel(), us.ravel(), vs.ravel()])
        self.arrays = {"main": main, "lores": padded.reshape(h * 3 // 2, stride)}
        self.released = False

    def make_array(self, name: str) -> np.ndarray:
        return self.arrays[name]

    def release(self) -> None:
        self.released = True


def _fake_picamera2(lores_bgr: np.ndarray, stride: int, fail_after: int | None = None):
    main = np.full((1520, 2028, 3), 90, np.uint8)

    class FakePicamera2:
        requests: list = []

        def __init__(self) -> None:
            self.config = None
            self.captured = 0

        def create_video_configuration(self, main, lores, buffer_count):
            return {"main": dict(main), "lores": dict(lores), "buffer_count": buffer_count}

        def configure(self, config) -> None:
            self.config = config

        def camera_configuration(self):
            # libcamera's answer: the lores size as asked (1014 x 760 lies in a 1024-byte stride).
            return {**self.config, "lores": {**self.config["lores"], "size": lores_bgr.shape[1::-1]}}

        def start(self) -> None:
            pass

        def capture_request(self):
            self.captured += 1
            if fail_after is not None and self.captured > fail_after:
                raise RuntimeError("Camera frontend has timed out!")
            request = _FakeRequest(main, lores_bgr, stride)
            FakePicamera2.requests.append(request)
            return request

        def stop(self) -> None:
            pass

        def close(self) -> None:
            pass

    return FakePicamera2


def test_the_pi_camera_source_reads_main_and_a_padded_lores(monkeypatch):
    # A picture of 1014 px lies in rows of 1024 bytes: the page must get the picture, not the padding.
    rng = np.random.default_rng(3)
    lores = np.repeat(np.repeat(rng.integers(0, 255, (76, 102, 3), dtype=np.uint8), 10, 0), 10, 1)[:, :1014]
    fake = _fake_picamera2(lores, stride=1024)
    monkeypatch.setattr(sources, "Picamera2", fake)
    source = open_source("picamera")
    source.open()
    frame = source.read()
    assert frame.image.shape == (1520, 2028, 3)
    assert frame.preview.shape == (760, 1014, 3)
    # Colours survive the YUV round trip (chroma is halved: compare away from the blocks' edges).
    inner = np.s_[3:-3:10, 3:-3:10]
    assert np.abs(frame.preview[2:-2, 2:-2].astype(int) - lores[2:-2, 2:-2].astype(int))[inner].mean() < 6
    assert all(r.released for r in fake.requests)  # every buffer goes back to the camera
    source.close()


def test_a_pi_camera_that_stops_is_reported_not_raised_through(monkeypatch):
    fake = _fake_picamera2(np.zeros((760, 1014, 3), np.uint8), stride=1024, fail_after=1)
    monkeypatch.setattr(sources, "Picamera2", fake)
    source = open_source("picamera")
    source.open()
    source.read()
    with pytest.raises(sources.CameraStopped, match="the Pi camera stopped"):
        source.read()  # the camera thread closes and reopens it with back-off


@pytest.mark.picamera
@pytest.mark.skipif(sources.Picamera2 is None, reason="picamera2 is only on Raspberry Pi OS (apt python3-picamera2)")
def test_the_pi_camera_gives_a_frame_and_a_preview():  # pragma: no cover - Raspberry Pi only
    source = open_source("picamera")
    source.open()
    try:
        frame = source.read()
    finally:
        source.close()
    assert frame.image.shape[2] == 3 and frame.preview is not None


def test_the_demo_plays_micropul_with_truth_and_marks_a_new_game():
    demo = DemoSource(seed=0, resolution=(320, 240), frames_per_state=2, fps=None)
    demo.open()
    frames = [demo.read() for _ in range(12)]
    assert frames[0].truth["game"] == "micropul" and frames[0].image.shape == (240, 320, 3)
    assert any("a hand is over the table" in f.truth["warnings"] for f in frames)
    demo.restart()  # the players started a new game: the demo lays out a fresh one
    first = demo.read()
    assert len(first.truth["tiles"]) == 1 and not first.game_start
    demo.restart("stixx")  # the players chose another game: the demo lays that one out
    assert demo.read().truth["game"] == "stixx"


def test_the_demo_says_when_its_next_game_starts():
    demo = DemoSource(seed=0, resolution=(320, 240), frames_per_state=1, fps=None)
    demo.open()
    starts = []
    for _ in range(1500):  # game 0 is 46 states of 1 still + 8 hand frames each
        frame = demo.read()
        if frame.game_start:
            starts.append(frame.truth["game_seed"])
            break
    assert starts == [1]  # game 0 ended, game 1 began; nothing before counted as a start
