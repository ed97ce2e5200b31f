"""The one settings file: what it holds, where it lives, and what happens when it is broken."""

import json

import pytest

from tablecam.calibration.colours import ColourProfile, default_profile
from tablecam.calibration.geometry import TableGeometry
from tablecam.calibration.lens import CameraProfile
from tablecam.calibration.settings import Settings, data_dir, describe, load_settings, save_settings, settings_path
from tablecam.errors import UserError

CAMERA = CameraProfile(((1500.0, 0.0, 1013.5), (0.0, 1500.0, 759.5), (0.0, 0.0, 1.0)),
                       (-0.1, 0.02, 0.0, 0.0, 0.0), (2028, 1520), 0.21, "chessboard 9x6", 14, "2026-01-01T00:00:00")
TAUGHT = ColourProfile("stixx", (("red", "#d02030"),) + default_profile("stixx").colours[1:], "taught from x.jpg", True)


def test_settings_round_trip_through_a_readable_file(tmp_path):
    s = Settings(TableGeometry(40.0, 812.0, 498.5), CAMERA).with_colours(TAUGHT)
    path = save_settings(s, tmp_path)
    assert path == tmp_path / "settings.json"
    raw = json.loads(path.read_text())
    assert raw["table"] == {"marker_mm": 40.0, "width_mm": 812.0, "height_mm": 498.5}
    assert raw["colours"]["stixx"]["colours"]["red"] == "#d02030"
    assert "enix" not in raw["colours"]  # never taught: defaults are not frozen into the file
    again = load_settings(tmp_path)
    assert again == s
    assert again.colour_profile("stixx").rgb("red") == (0xd0, 0x20, 0x30)
    assert again.colour_profile("enix") == default_profile("enix")
    assert again.without_colours("stixx").colour_profile("stixx") == default_profile("stixx")


def test_no_file_means_defaults(tmp_path):
    s = load_settings(tmp_path / "nothing-here")
    assert s == Settings() and s.camera is None and s.geometry == TableGeometry()


def test_data_dir_is_the_option_then_the_environment_then_home(tmp_path, monkeypatch):
    monkeypatch.setenv("TABLECAM_DATA", str(tmp_path / "env"))
    assert data_dir(tmp_path / "opt") == tmp_path / "opt"
    assert data_dir(None) == tmp_path / "env"
    monkeypatch.delenv("TABLECAM_DATA")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert data_dir(None) == tmp_path / "home" / ".local" / "share" / "tablecam"


@pytest.mark.parametrize("content, words", [
    ("{not json", "is not valid JSON (line 1"),
    ('{"table": {"marker_mm": -4}}', "is not valid settings"),
    ('{"camera": {"camera_matrix": [[1]]}}', "is not valid settings"),
    ('{"colours": {"chess": {"colours": {"white": "#ffffff"}}}}', "unknown game 'chess'"),
    ('{"colours": {"stixx": {"colours": {"red": "red"}}}}', "#rrggbb"),
])
def test_a_broken_file_is_one_sentence_naming_it(tmp_path, content, words):
    settings_path(tmp_path).parent.mkdir(parents=True, exist_ok=True)
    settings_path(tmp_path).write_text(content)
    with pytest.raises(UserError) as exc:
        load_settings(tmp_path)
    assert str(tmp_path / "settings.json") in str(exc.value) and words in str(exc.value)


def test_describe_says_what_is_set_and_what_is_default(tmp_path):
    text = describe(Settings(camera=CAMERA).with_colours(TAUGHT), tmp_path / "settings.json")
    assert "not written yet" in text
    assert "fx 1500.0" in text and "RMS 0.210 px" in text
    assert "colours stixx (taught" in text and "colours enix (default" in text
