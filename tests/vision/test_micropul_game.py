"""End to end through images: a rendered micropul game, frame by frame, read by `tablecam detect`
and replayed by `tablecam replay micropul`, must give the events the true states give."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

from micropul_scenes import scene_cache, cached, profile_from_truth, simulator_version
from tablecam.companion.commands.detect import detect_file, load_profile_file
from tablecam.companion.commands.replay import replay_lines
from tablecam.simulator import sequence
from tablecam.simulator.micropul import game_states

GAME_SEED = 100500
STATES = 12  # the start tile, then eleven moves (placements, stones)


def _stable_frames():
    """One stable frame per state of the game: (PNG bytes, truth)."""
    count = min(STATES, len(game_states(GAME_SEED, _geometry())))
    frames = []
    for frame in sequence("micropul", GAME_SEED, frames_per_state=1):
        if frame.stable:
            ok, png = cv2.imencode(".png", frame.image)
            assert ok
            frames.append((png.tobytes(), frame.truth))
            if len(frames) == count:
                return frames
    raise AssertionError("the sequence ended early")


def _geometry():
    from tablecam.calibration.geometry import TableGeometry

    return TableGeometry()


@pytest.fixture(scope="module")
def game(request, tmp_path_factory):
    store = scene_cache(request, tmp_path_factory)
    frames = cached(store, f"game_{GAME_SEED}_{STATES}", _stable_frames)
    folder = tmp_path_factory.mktemp("frames")
    paths = []
    for k, (png, _) in enumerate(frames):
        path = folder / f"frame_{k:03d}.png"
        path.write_bytes(png)
        paths.append(path)
    profile = folder / "lens.json"
    profile.write_text(json.dumps(profile_from_truth(frames[0][1]).to_dict()))
    return paths, [truth for _, truth in frames], profile


def _replay(lines: list[str]) -> list[dict]:
    out, err = io.StringIO(), io.StringIO()
    status = replay_lines("micropul", lines, out, err)
    assert status == 0, err.getvalue()
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_detected_frames_replay_to_the_events_of_the_true_states(game):
    paths, truths, profile = game
    settings = load_profile_file(profile)
    detected = [json.dumps(detect_file("micropul", p, settings, frame_id=t["frame_id"])) for p, t in zip(paths, truths)]
    expected = _replay([json.dumps(t) for t in truths])
    assert [e["event"] for e in expected].count("placement") >= 5  # the game does move on
    assert _replay(detected) == expected


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash for the pipe")
def test_tablecam_detect_piped_into_tablecam_replay(game):
    paths, truths, profile = game
    few = 6
    tablecam = str(Path(sys.executable).with_name("tablecam"))
    frames = " ".join(f"{p}:{t['frame_id']}" for p, t in zip(paths[:few], truths[:few]))
    script = (f'for pair in {frames}; do "{tablecam}" detect --game micropul "${{pair%%:*}}" '
              f'--profile "{profile}" --frame-id "${{pair##*:}}" || exit 3; done | "{tablecam}" replay micropul -')
    run = subprocess.run(["bash", "-o", "pipefail", "-c", script], capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, TABLECAM_DATA=str(profile.parent)))
    assert run.returncode == 0, run.stderr
    events = [json.loads(line) for line in run.stdout.splitlines()]
    assert events == _replay([json.dumps(t) for t in truths[:few]])
    assert any(e["event"] == "placement" and e["legal"] for e in events)
