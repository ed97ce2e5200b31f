"""Enigmo's shutter row marked on the page: POST /api/settings/shutter-row (PIN), saved with the
settings (old files still load), followed by the reader, and used by `tablecam detect`."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from tablecam.calibration.geometry import TableGeometry
from tablecam.calibration.settings import Settings, load_settings, save_settings
from tablecam.companion.app import create_app
from tablecam.companion.auth import Guard, load_or_create
from tablecam.companion.live import Hub, Pictures
from tablecam.companion.store import Store
from tablecam.errors import UserError

ROW_MM = [[250.0, 60.0], [520.0, 66.0], [519.0, 108.0], [249.0, 102.0]]
SIZE = (1014, 760)


def slanted_camera(points_mm):
    """A table seen at a slant through a lens with barrel distortion: table mm -> picture fractions
    (what the frame loop's table lock gives the page)."""
    h = np.array([[1.05, 0.08, 80.0], [-0.03, 1.1, 90.0], [0.00004, 0.0002, 1.0]])
    p = np.column_stack([np.asarray(points_mm, dtype=np.float64).reshape(-1, 2), np.ones(len(points_mm))]) @ h.T
    xy = p[:, :2] / p[:, 2:]
    c = np.array(SIZE) / 2
    d = (xy - c) / SIZE[0]
    k = 1 - 0.12 * (d ** 2).sum(axis=1, keepdims=True)  # barrel: far points pulled in
    xy = c + d * k * SIZE[0]
    return [(x / SIZE[0], y / SIZE[1]) for x, y in xy]


@pytest.fixture()
def served(tmp_path):
    pin = load_or_create(tmp_path)
    hub = Hub(Store(tmp_path / "g.sqlite3"), hold=1)
    app = create_app(hub, Pictures(), Guard(pin, tmp_path), settings_dir=tmp_path)
    return app.test_client(), hub, pin.value, tmp_path


def post(client, body, pin=None):
    headers = {"Content-Type": "application/json"}
    if pin is not None:
        headers["X-Tablecam-Pin"] = pin
    return client.post("/api/settings/shutter-row", data=json.dumps(body), headers=headers)


def test_the_four_taps_are_saved_in_table_mm_and_survive_a_restart(served, tmp_path):
    client, hub, pin, data_dir = served
    hub.set_live(project=slanted_camera)
    taps = [list(p) for p in slanted_camera(ROW_MM)]
    resp = post(client, {"corners": taps}, pin)
    assert resp.status_code == 200, resp.json
    assert np.allclose(resp.json["shutter_row_mm"], ROW_MM, atol=0.3)
    # a restarted server (a new app on the same data directory) has the row
    again = load_settings(data_dir)
    assert np.allclose(again.enigmo_shutter_row_mm, ROW_MM, atol=0.3)
    assert again.geometry == TableGeometry()  # the rest of the settings untouched


@pytest.mark.parametrize("body, pin, status, words", [
    ({"corners": [[0.3, 0.2], [0.6, 0.2], [0.6, 0.3], [0.3, 0.3]]}, None, 401, "needs the PIN"),
    ({"corners": [[0.3, 0.2], [0.6, 0.2], [0.6, 0.3], [0.3, 0.3]]}, "999999x", 403, "wrong PIN"),
    ({"corners": [[0.3, 0.2], [0.6, 0.2], [0.6, 0.3]]}, "PIN", 400, "four corners"),
    ({}, "PIN", 400, "four corners"),
    ({"corners": [[0.3, 0.2], [0.3, 0.3], [0.6, 0.3], [0.6, 0.2]]}, "PIN", 400, "in this order"),
    ({"corners": [[0.3, 0.2], [1.6, 0.2], [1.6, 0.3], [0.3, 0.3]]}, "PIN", 400, "on the picture"),
    ({"corners": [[0.3, 0.2], [0.301, 0.2], [0.301, 0.201], [0.3, 0.201]]}, "PIN", 400, "mm apart"),
    ({"corners": [[0.3, 0.2], ["x", 0.2], [0.6, 0.3], [0.3, 0.3]]}, "PIN", 400, "two numbers"),
])
def test_bad_taps_and_wrong_pins_are_refused_and_nothing_is_saved(served, body, pin, status, words):
    client, hub, real_pin, data_dir = served
    hub.set_live(project=slanted_camera)
    resp = post(client, body, real_pin if pin == "PIN" else pin)
    assert resp.status_code == status and words in resp.json["error"], resp.json
    assert load_settings(data_dir).enigmo_shutter_row_mm is None


def test_before_the_table_is_found_the_page_is_told_to_wait(served):
    client, _hub, pin, data_dir = served
    resp = post(client, {"corners": [[0.3, 0.2], [0.6, 0.2], [0.6, 0.3], [0.3, 0.3]]}, pin)
    assert resp.status_code == 409 and "markers" in resp.json["error"]
    assert load_settings(data_dir).enigmo_shutter_row_mm is None


def test_old_settings_files_load_and_a_broken_row_is_one_sentence(tmp_path):
    old = {"version": 1, "table": {"marker_mm": 40, "width_mm": 800, "height_mm": 500}, "camera": None, "colours": {}}
    (tmp_path / "settings.json").write_text(json.dumps(old))
    assert load_settings(tmp_path).enigmo_shutter_row_mm is None
    saved = Settings().with_shutter_row(ROW_MM)
    save_settings(saved, tmp_path)
    assert load_settings(tmp_path) == saved
    (tmp_path / "settings.json").write_text(json.dumps(dict(old, enigmo={"shutter_row_mm": [[1, 2], [3]]})))
    with pytest.raises(UserError, match="shutter row"):
        load_settings(tmp_path)


def test_the_reader_follows_the_row_saved_while_it_runs(tmp_path):
    from tablecam.companion.readers import DetectorReader
    from tablecam.companion.sources import Frame
    from tablecam.simulator import Nuisances, random_state, render

    rng = np.random.default_rng(21)
    shot = render(random_state("enigmo", rng), nuisances=Nuisances.none(), seed=2)
    reader = DetectorReader("enigmo", data_dir=tmp_path)
    assert reader.read(Frame(shot.image, 1))["shutters"] == [None] * 10
    save_settings(Settings().with_shutter_row(shot.truth["shutter_row_mm"]), tmp_path)
    assert reader.read(Frame(shot.image, 2))["shutters"] == shot.truth["shutters"]


def test_detect_takes_the_saved_row_or_the_shutters_option(tmp_path):
    from tablecam.simulator import Nuisances, random_state, render
    import cv2

    rng = np.random.default_rng(5)
    shot = render(random_state("enigmo", rng), nuisances=Nuisances.none(), seed=3)
    photo = tmp_path / "enigmo.png"
    cv2.imwrite(str(photo), shot.image)
    run = [sys.executable, "-m", "tablecam.companion.cli", "detect", "--game", "enigmo", str(photo),
           "--data-dir", str(tmp_path)]
    unmarked = json.loads(subprocess.run(run, capture_output=True, text=True, timeout=120, check=True).stdout)
    assert unmarked["shutters"] == [None] * 10
    corners = " ".join(f"{x},{y}" for x, y in shot.truth["shutter_row_mm"])
    given = json.loads(subprocess.run(run + ["--shutters", corners], capture_output=True, text=True, timeout=120,
                                      check=True).stdout)
    assert given["shutters"] == shot.truth["shutters"]
    save_settings(Settings().with_shutter_row(shot.truth["shutter_row_mm"]), tmp_path)
    saved = json.loads(subprocess.run(run, capture_output=True, text=True, timeout=120, check=True).stdout)
    assert saved["shutters"] == shot.truth["shutters"]
    bad = subprocess.run(run + ["--shutters", "1 2 3"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "eight numbers" in bad.stderr and "Traceback" not in bad.stderr
