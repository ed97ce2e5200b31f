"""Lens calibration on OpenCV's own real photos (tests/data/calibration, see its README)."""

from pathlib import Path

import cv2
import numpy as np
import pytest

from tablecam.calibration.lens import CameraProfile, calibrate_charuco, calibrate_chessboard
from tablecam.errors import UserError

DATA = Path(__file__).resolve().parents[1] / "data" / "calibration"
CHESSBOARD = sorted((DATA / "chessboard").glob("*.jpg"))
CHARUCO = sorted((DATA / "charuco").glob("*.jpg"))


@pytest.fixture(scope="module")
def chessboard_result():
    return calibrate_chessboard(CHESSBOARD, (9, 6), 25.0)


def test_chessboard_photos_give_opencvs_published_figures(chessboard_result):
    prof = chessboard_result.profile
    assert len(CHESSBOARD) == 12
    assert abs(prof.rms_px - 0.198) <= 0.02
    assert abs(prof.fx - 536) <= 0.01 * 536
    assert abs(prof.fy - 536) <= 0.01 * 536
    assert abs(prof.cx - 342) < 10 and abs(prof.cy - 235) < 10
    assert prof.image_size == (640, 480)
    assert [v.used for v in chessboard_result.views] == [True] * 12
    assert all(0 < v.error_px < 0.4 for v in chessboard_result.views)


def test_charuco_photos_give_about_the_tutorials_error():
    result = calibrate_charuco(CHARUCO, (5, 7), 40.0, 20.0, "DICT_6X6_250")
    assert abs(result.profile.rms_px - 0.19) <= 0.02
    assert len(result.used) == 4 and all(v.points >= 20 for v in result.used)
    # Four views are few: the user is told so.
    assert any("only 4 views" in w for w in result.warnings)


def test_a_view_without_the_pattern_is_left_out_with_its_reason(chessboard_result):
    result = calibrate_chessboard(CHESSBOARD + [CHARUCO[0]], (9, 6), 25.0)
    left_out = result.rejected
    assert [Path(v.name).name for v in left_out] == ["img_00.jpg"]
    assert "no 9x6 chessboard found" in left_out[0].reason
    assert result.profile.rms_px == pytest.approx(chessboard_result.profile.rms_px, abs=1e-9)


def test_a_damaged_file_and_a_wrong_size_view_are_left_out_with_reasons(tmp_path):
    damaged = tmp_path / "cut.jpg"
    damaged.write_bytes(CHESSBOARD[0].read_bytes()[:5000])
    small = cv2.resize(cv2.imread(str(CHESSBOARD[1])), (320, 240))
    result = calibrate_chessboard(CHESSBOARD + [damaged, small], (9, 6), 25.0)
    reasons = {Path(v.name).name: v.reason for v in result.rejected}
    assert "damaged JPEG" in reasons["cut.jpg"]
    assert "320x240" in reasons["image 14"] and "640x480" in reasons["image 14"]
    assert len(result.used) == 12


def test_a_view_far_worse_than_the_others_is_left_out():
    # A wavy sheet: the corners are found, but no lens model explains them.
    img = cv2.imread(str(CHESSBOARD[3]), cv2.IMREAD_GRAYSCALE)
    h, w = img.shape
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    wavy = cv2.remap(img, xs + 3.0 * np.sin(ys / 40.0), ys + 3.0 * np.sin(xs / 33.0), cv2.INTER_LINEAR)
    result = calibrate_chessboard(CHESSBOARD + [wavy], (9, 6), 25.0)
    bad = [v for v in result.rejected if v.name == "image 13"]
    assert bad and "far above the others" in bad[0].reason
    assert abs(result.profile.rms_px - 0.198) <= 0.02


def test_too_few_views_is_one_sentence():
    with pytest.raises(UserError) as exc:
        calibrate_chessboard(CHARUCO, (9, 6), 25.0)
    message = str(exc.value)
    assert message.startswith("none of the 4 images shows the 9x6 chessboard")
    assert message.count(".") <= 2 and "\n" not in message


def test_profile_survives_the_settings_file_and_scales_to_a_binned_mode(chessboard_result):
    prof = chessboard_result.profile
    again = CameraProfile.from_dict(prof.to_dict())
    assert np.allclose(again.K, prof.K, atol=1e-5) and np.allclose(again.dist, prof.dist, atol=1e-7)
    assert again.image_size == prof.image_size
    half = prof.for_size((320, 240))
    assert half.fx == pytest.approx(prof.fx / 2)
    assert half.cx == pytest.approx((prof.cx + 0.5) / 2 - 0.5)
    with pytest.raises(UserError, match="another shape"):
        prof.for_size((640, 360))
    with pytest.raises(ValueError):
        CameraProfile.from_dict({"camera_matrix": [[1, 0], [0, 1]], "dist_coeffs": [0, 0, 0, 0], "image_size": [1, 1]})
