"""`tablecam calibrate ...` as a user types it: results printed, settings saved, bad input one sentence."""

import json
from dataclasses import replace
from pathlib import Path

import cv2

from synthetic_table import Piece, Scene, view
from tablecam.calibration.colours import DEFAULT_COLOURS, hex_to_rgb
from tablecam.companion.cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "calibration"
UNDISTORTED = Scene(cam=replace(Scene().cam, dist=(0.0, 0.0, 0.0, 0.0, 0.0)))


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_sentence(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tablecam: ") and lines[0].endswith("."), err
    assert "Traceback" not in err
    return lines[0]


def test_lens_then_show(tmp_path, capsys):
    code, out, _ = run(capsys, "calibrate", "lens", str(DATA / "chessboard"), "--chessboard", "9x6",
                       "--square-mm", "25", "--data-dir", str(tmp_path))
    assert code == 0
    assert "RMS reprojection error: 0.1" in out and "over 12 views" in out
    assert "saved the camera profile" in out
    code, out, _ = run(capsys, "calibrate", "show", "--data-dir", str(tmp_path))
    assert code == 0 and "camera: 640x480 px, fx 53" in out
    code, out, _ = run(capsys, "calibrate", "show", "--json", "--data-dir", str(tmp_path))
    assert json.loads(out)["camera"]["image_size"] == [640, 480]


def test_charuco_lens_without_saving(tmp_path, capsys):
    code, out, _ = run(capsys, "calibrate", "lens", str(DATA / "charuco"), "--charuco", "5x7", "--dict",
                       "DICT_6X6_250", "--square-mm", "40", "--marker-mm", "20", "--no-save", "--data-dir", str(tmp_path))
    assert code == 0 and "RMS reprojection error: 0.1" in out
    assert not (tmp_path / "settings.json").exists()


def test_table_check_writes_the_top_down_image(tmp_path, capsys):
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), view(UNDISTORTED))
    out_img = tmp_path / "top.png"
    code, out, _ = run(capsys, "calibrate", "table", str(photo), "--out", str(out_img), "--px-per-mm", "1",
                       "--json", "--data-dir", str(tmp_path))
    assert code == 0
    result = json.loads(out)
    assert result["markers_seen"] == [0, 1, 2, 3] and result["reprojection_mm"] < 1.0
    assert cv2.imread(str(out_img)).shape[:2] == (580, 880)


def test_geometry_is_saved_and_used(tmp_path, capsys):
    code, out, _ = run(capsys, "calibrate", "geometry", "--width-mm", "812", "--data-dir", str(tmp_path))
    assert code == 0 and "812 mm apart" in out
    code, out, _ = run(capsys, "calibrate", "show", "--data-dir", str(tmp_path))
    assert "markers 40 mm, centres 812 mm apart (0->1) and 500 mm (0->3)" in out


def test_colours_taught_then_reset(tmp_path, capsys):
    sticks = tuple(Piece((170 + 90 * i, 250.0), hex_to_rgb(hx), 8, 47)
                   for i, (_, hx) in enumerate(DEFAULT_COLOURS["stixx"][:6]))
    photo = tmp_path / "row.png"
    cv2.imwrite(str(photo), view(replace(UNDISTORTED, pieces=sticks)))
    code, out, _ = run(capsys, "calibrate", "colours", "stixx", str(photo), "--data-dir", str(tmp_path))
    assert code == 0 and out.startswith("red: #") and "saved the stixx colours" in out
    _, out, _ = run(capsys, "calibrate", "show", "--data-dir", str(tmp_path))
    assert "colours stixx (taught" in out
    code, out, _ = run(capsys, "calibrate", "colours", "stixx", "--reset", "--data-dir", str(tmp_path))
    assert code == 0
    _, out, _ = run(capsys, "calibrate", "show", "--data-dir", str(tmp_path))
    assert "colours stixx (default" in out


def test_bad_inputs_end_in_one_sentence_and_status_2(tmp_path, capsys):
    empty_dir = tmp_path / "none"
    empty_dir.mkdir()
    (empty_dir / "notes.txt").write_text("no photos here")
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    corrupt = tmp_path / "corrupt.jpg"
    corrupt.write_bytes((DATA / "charuco" / "img_00.jpg").read_bytes()[:3000])
    two_markers = tmp_path / "two.png"
    cv2.imwrite(str(two_markers), view(replace(UNDISTORTED, covered=(1, 2))))
    d = ["--data-dir", str(tmp_path)]
    cases = {
        "no pattern found": (["calibrate", "lens", str(DATA / "charuco"), "--chessboard", "9x6", "--square-mm", "25"],
                             "none of the 4 images shows the 9x6 chessboard usably"),
        "2 of 4 markers": (["calibrate", "table", str(two_markers)],
                           "only markers 0 and 3 of the four table markers are visible"),
        "corrupt image": (["calibrate", "table", str(corrupt)], "is a damaged JPEG"),
        "empty image": (["calibrate", "table", str(empty)], "is empty (0 bytes)"),
        "no images in the directory": (["calibrate", "lens", str(empty_dir), "--chessboard", "9x6", "--square-mm", "25"],
                                       "holds no images"),
        "missing marker size": (["calibrate", "lens", str(DATA / "charuco"), "--charuco", "5x7", "--square-mm", "40"],
                                "needs --marker-mm"),
        "bad pattern": (["calibrate", "lens", str(DATA / "charuco"), "--chessboard", "9by6", "--square-mm", "25"],
                        "COLSxROWS"),
        "colours of a game without": (["calibrate", "colours", "enigmo", str(two_markers)], "no colours to teach"),
    }
    for name, (argv, words) in cases.items():
        code, out, err = run(capsys, *argv, *d)
        assert code == 2, name
        assert words in one_sentence(err), (name, err)


def test_a_broken_settings_file_is_one_sentence(tmp_path, capsys):
    (tmp_path / "settings.json").write_text("{oops")
    code, _, err = run(capsys, "calibrate", "show", "--data-dir", str(tmp_path))
    assert code == 2 and "is not valid JSON" in one_sentence(err)
