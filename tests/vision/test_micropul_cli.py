"""`tablecam detect`: one JSON line for a photo, one sentence and status 2 for anything a user can get wrong."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from micropul_scenes import scene_cache, cached, render_state, simulator_version
from tablecam.companion.cli import main


@pytest.fixture(scope="module")
def photo(request, tmp_path_factory):
    store = scene_cache(request, tmp_path_factory)

    def make():
        state = {"game": "micropul", "tile_mm": 30.0, "stones": [],
                 "tiles": [{"center_mm": [400.0, 250.0], "rotation": 0, "quadrants": {"ul": "W", "ur": "W", "ll": "B",
                                                                                    "lr": "B"}},
                           {"center_mm": [430.0, 250.0], "rotation": 0, "big": "B", "catalyst": "+"}],
                 "scene": {"board_angle_deg": 0.0, "board_origin_mm": [400.0, 250.0], "tile_mm": 30.0,
                           "tile_art": "vector"}}
        return render_state(state, seed=3)

    scene = cached(store, "cli_two_tiles", make)
    folder = tmp_path_factory.mktemp("cli")
    path = folder / "photo.png"
    cv2.imwrite(str(path), scene.image)
    profile = folder / "lens.json"
    profile.write_text(json.dumps(scene.profile.to_dict()))
    return path, profile


def test_detect_prints_the_observation_on_one_line(photo, capsys, monkeypatch, tmp_path):
    path, profile = photo
    monkeypatch.setenv("TABLECAM_DATA", str(tmp_path))
    assert main(["detect", "--game", "micropul", str(path), "--profile", str(profile), "--frame-id", "12"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    obs = json.loads(out)
    assert obs["game"] == "micropul" and obs["frame_id"] == 12 and obs["markers_seen"] == 4
    faces = sorted((t["big"] or "", t["catalyst"] or "", json.dumps(t["quadrants"], sort_keys=True)) for t in obs["tiles"])
    assert faces == [("", "", json.dumps({"ll": "B", "lr": "B", "ul": "W", "ur": "W"}, sort_keys=True)),
                     ("B", "+", "null")]
    assert obs["tiles"][0]["center_mm"] == pytest.approx([400.0, 250.0], abs=1.0)


def test_detect_uses_the_saved_settings_without_profile(photo, capsys, monkeypatch, tmp_path):
    path, profile = photo
    settings = {"camera": json.loads(profile.read_text())}
    (tmp_path / "settings.json").write_text(json.dumps(settings))
    monkeypatch.setenv("TABLECAM_DATA", str(tmp_path))
    assert main(["detect", "--game", "micropul", str(path)]) == 0
    assert len(json.loads(capsys.readouterr().out)["tiles"]) == 2


@pytest.mark.parametrize("game, words", [("chess", "unknown game 'chess'"), ("stixx", "no stixx detector yet")])
def test_a_game_without_a_detector_is_one_sentence(photo, capsys, monkeypatch, game, words):
    from tablecam.companion.commands import detect

    # Each game's detector plugs in as tablecam.vision.<game>; pretend Stixx's is not written yet.
    monkeypatch.setitem(detect.DETECTORS, "stixx", "tablecam.vision.no_such_detector")
    path, _ = photo
    assert main(["detect", "--game", game, str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and err.count("\n") == 0 and "Traceback" not in err


def test_bad_images_are_one_sentence(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TABLECAM_DATA", str(tmp_path))
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"\xff\xd8\xff\xe0" + b"\x00" * 200)
    grey = tmp_path / "grey.png"
    cv2.imwrite(str(grey), np.full((300, 400, 3), 128, np.uint8))
    for path, words in ((empty, "empty"), (broken, "damaged"), (grey, "no table marker"),
                        (tmp_path / "missing.png", "no such image")):
        assert main(["detect", "--game", "micropul", str(path)]) == 2
        err = capsys.readouterr().err.strip()
        assert words in err and err.count("\n") == 0, err


def test_a_broken_profile_file_is_one_sentence(photo, tmp_path, capsys):
    path, _ = photo
    bad = tmp_path / "lens.json"
    bad.write_text("{not json")
    assert main(["detect", "--game", "micropul", str(path), "--profile", str(bad)]) == 2
    assert "not a JSON settings or lens-profile file" in capsys.readouterr().err
