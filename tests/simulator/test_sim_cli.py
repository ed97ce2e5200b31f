"""`tablecam render` writes image + truth; mistakes are one sentence and exit status 2."""

import json

import cv2

from tablecam.companion.cli import main


def test_render_writes_image_and_truth(tmp_path, capsys):
    assert main(["render", "--game", "enigmo", "--seed", "2", "--out", str(tmp_path), "--resolution", "640x480"]) == 0
    image = cv2.imread(str(tmp_path / "enigmo_2.png"))
    truth = json.loads((tmp_path / "enigmo_2.json").read_text())
    assert image.shape == (480, 640, 3)
    assert truth["game"] == "enigmo" and len(truth["shutters"]) == 10


def test_render_sequence_writes_frames(tmp_path):
    assert main(["render", "--game", "stixx", "--seed", "1", "--out", str(tmp_path), "--resolution", "320x240",
                 "--sequence", "--frames", "3", "--no-nuisances"]) == 0
    assert sorted(p.name for p in tmp_path.glob("*.png")) == [f"stixx_1_0000{k}.png" for k in range(3)]
    assert json.loads((tmp_path / "stixx_1_00000.json").read_text())["stable"] is True


def test_render_bad_game_and_bad_state(tmp_path, capsys):
    assert main(["render", "--game", "chess", "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip() == ("tablecam: unknown game 'chess': choose one of micropul, enix, "
                                               "stixx, enigmo.")
    state = tmp_path / "s.json"
    state.write_text(json.dumps({"game": "enigmo", "shutters": [True, False]}))
    assert main(["render", "--game", "enigmo", "--state", str(state), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("tablecam: shutters must be a list of 10") and err.count("\n") == 0
