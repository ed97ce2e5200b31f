"""The table homography on a synthetic table seen through a tilted camera with a barrel lens."""

import re
from dataclasses import replace

import cv2
import numpy as np
import pytest

from synthetic_table import Scene, profile_of, table_errors_mm, view
from tablecam.calibration.geometry import TableGeometry
from tablecam.calibration.table import TableNotFound, find_table
from tablecam.calibration.topdown import rectify
from tablecam.errors import UserError

SCENE = Scene()
CENTRES = [SCENE.geometry.marker_centre(m) for m in range(4)]
PLAY_AREA = np.random.default_rng(7).uniform((0, 0), (800, 500), (300, 2))


def test_marker_centres_and_the_whole_play_area_within_1_mm():
    fix = find_table(view(SCENE), SCENE.geometry, profile_of(SCENE.cam))
    assert fix.markers_seen == (0, 1, 2, 3)
    assert table_errors_mm(fix, SCENE.cam, CENTRES).max() < 1.0
    assert table_errors_mm(fix, SCENE.cam, PLAY_AREA).max() < 1.0
    assert fix.reprojection_mm < 1.0 and fix.warnings == ()
    # And back: table mm to the raw (distorted) pixels, within a pixel.
    assert np.abs(fix.table_to_image(PLAY_AREA) - SCENE.cam.project(PLAY_AREA)).max() < 1.0


def test_without_a_lens_profile_a_barrel_lens_bends_the_middle_of_the_table():
    fix = find_table(view(SCENE), SCENE.geometry, None)
    # The markers still fit (they pinned the homography) but the middle is off by millimetres:
    # that is what the lens profile is for.
    assert table_errors_mm(fix, SCENE.cam, CENTRES).max() < 1.0
    assert table_errors_mm(fix, SCENE.cam, PLAY_AREA).max() > 3.0


def test_a_distortion_free_camera_needs_no_profile():
    scene = replace(SCENE, cam=replace(SCENE.cam, dist=(0.0, 0.0, 0.0, 0.0, 0.0), tilt_deg=20, roll_deg=-8))
    fix = find_table(view(scene), scene.geometry, None)
    assert table_errors_mm(fix, scene.cam, PLAY_AREA).max() < 1.0


def test_markers_stuck_down_turned_are_still_found_right():
    scene = replace(SCENE, marker_rotation=((1, 1), (2, 2), (3, 3)))
    fix = find_table(view(scene), scene.geometry, profile_of(scene.cam))
    assert table_errors_mm(fix, scene.cam, PLAY_AREA).max() < 1.0


def test_three_markers_still_fix_the_table_and_say_which_is_missing():
    scene = replace(SCENE, covered=(2,))
    fix = find_table(view(scene), scene.geometry, profile_of(scene.cam))
    assert fix.markers_seen == (0, 1, 3)
    assert "marker 2 not seen: the table is fixed from the other three" in fix.warnings
    # With the lens known, three markers fix the pose, and the far corner stays within 1 mm.
    assert table_errors_mm(fix, scene.cam, PLAY_AREA).max() < 1.0


def test_two_of_four_markers_is_one_clear_sentence():
    scene = replace(SCENE, covered=(1, 2))
    with pytest.raises(TableNotFound) as exc:
        find_table(view(scene), scene.geometry, profile_of(scene.cam))
    message = str(exc.value)
    assert message.startswith("only markers 0 and 3 of the four table markers are visible")
    assert isinstance(exc.value, UserError) and "\n" not in message


def test_no_table_at_all_is_one_clear_sentence():
    blank = np.full((480, 640, 3), 128, np.uint8)
    with pytest.raises(TableNotFound, match="^no table marker is visible"):
        find_table(blank)


def test_markers_in_the_wrong_corners_are_reported_not_mirrored():
    scene = replace(SCENE, marker_ids=(0, 3, 2, 1))  # 1 and 3 swapped: the table would come out mirrored
    with pytest.raises(TableNotFound, match="wrong corners"):
        find_table(view(scene), scene.geometry, profile_of(scene.cam))


def test_a_mis_measured_spacing_is_flagged():
    # The user measured between the inner edges (760 mm) instead of the centres (800 mm).
    wrong = TableGeometry(width_mm=760.0)
    fix = find_table(view(SCENE), wrong, profile_of(SCENE.cam))
    # 800 / 760 = 1.053: the camera sees it 5.3 % longer across than the settings say.
    assert any(re.search(r"sees the table 5\.[23]% longer across \(0 to 1\)", w) for w in fix.warnings)
    right = find_table(view(SCENE), SCENE.geometry, profile_of(SCENE.cam))
    assert not any("longer" in w for w in right.warnings)


def test_empty_or_odd_frames_are_user_errors():
    with pytest.raises(UserError):
        find_table(np.zeros((0, 0, 3), np.uint8))
    with pytest.raises(UserError):
        find_table(np.zeros((10, 10), np.float32))


def test_rectified_image_puts_table_mm_where_its_mapping_says():
    fix = find_table(view(SCENE), SCENE.geometry, profile_of(SCENE.cam))
    rect = rectify(view(SCENE), fix, px_per_mm=1.5, margin_mm=40)
    assert rect.image.shape[:2] == (round(580 * 1.5), round(880 * 1.5))
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    corners, ids, _ = detector.detectMarkers(cv2.cvtColor(rect.image, cv2.COLOR_BGR2GRAY))
    assert sorted(ids.ravel()) == [0, 1, 2, 3]
    for c, i in zip(corners, ids.ravel()):
        centre_mm = rect.px_to_mm(c.reshape(4, 2).mean(axis=0)[None])[0]
        assert np.linalg.norm(centre_mm - SCENE.geometry.marker_centre(int(i))) < 1.0
    # mm_to_px and px_to_mm are inverse, pixel centres at integers.
    assert np.allclose(rect.mm_to_px([(-40 + 0.5 / 1.5, -40 + 0.5 / 1.5)]), [(0.0, 0.0)])
    assert np.allclose(rect.px_to_mm(rect.mm_to_px(PLAY_AREA)), PLAY_AREA)


def test_rectify_refuses_a_frame_of_another_size():
    fix = find_table(view(SCENE), SCENE.geometry, profile_of(SCENE.cam))
    with pytest.raises(UserError, match="frame is 320x240"):
        rectify(np.zeros((240, 320, 3), np.uint8), fix)


RATIONAL = (0.1, -0.2, 0.001, -0.002, 0.05, 0.01, 0.02, -0.01)
THIN_PRISM = RATIONAL + (0.001, 0.002, -0.001, 5e-4)


@pytest.mark.parametrize("dist", [(-0.12, 0.03, 0.001, -0.002), (-0.12, 0.03, 0.001, -0.002, 0.01), RATIONAL,
                                  THIN_PRISM, THIN_PRISM + (0.01, -0.02)])
def test_table_points_land_on_the_same_pixels_however_many_are_asked_at_once(dist):
    """Many points at once go through numpy, a few through cv2.projectPoints: a piece must be
    sampled at the same pixel either way (readings may not depend on batching)."""
    from tablecam.calibration.lens import CameraProfile
    from tablecam.calibration.table import distort_pixels

    K = ((1124.4, 0.0, 991.2), (0.0, 1124.4, 764.4), (0.0, 0.0, 1.0))
    profile = CameraProfile(K, dist, (2028, 1520), 0.1)
    pts = np.random.default_rng(3).uniform(-100, 2100, (500, 2))
    many = distort_pixels(pts, profile)
    one_by_one = np.concatenate([distort_pixels(p[None], profile) for p in pts])
    normalised = np.column_stack([(pts - (991.2, 764.4)) / 1124.4, np.ones(len(pts))])
    opencv, _ = cv2.projectPoints(normalised, np.zeros(3), np.zeros(3), np.array(K), np.array(dist))
    # The same operations in the same order: equal to the last bit on x86-64, within 1e-9 px
    # where a compiler fuses OpenCV's multiply-adds.
    assert np.abs(many - one_by_one).max() < 1e-9
    assert np.abs(many - opencv.reshape(-1, 2)).max() < 1e-9


def _distort_session9(pts, K, dist):
    """table._distort_numpy as session 9 had it: every term of the 12-coefficient model, always."""
    k = np.zeros(12)
    k[:dist.size] = dist.ravel()
    fx, fy, cx, cy = K[0, 0], K[1, 1], K[0, 2], K[1, 2]
    x = (pts[:, 0] - cx) / fx
    y = (pts[:, 1] - cy) / fy
    r2 = x * x + y * y
    r4 = r2 * r2
    r6 = r4 * r2
    a1 = 2 * x * y
    a2 = r2 + 2 * x * x
    a3 = r2 + 2 * y * y
    cdist = 1 + k[0] * r2 + k[1] * r4 + k[4] * r6
    icdist2 = 1.0 / (1 + k[5] * r2 + k[6] * r4 + k[7] * r6)
    xd = x * cdist * icdist2 + k[2] * a1 + k[3] * a2 + k[8] * r2 + k[9] * r4
    yd = y * cdist * icdist2 + k[2] * a3 + k[3] * a1 + k[10] * r2 + k[11] * r4
    out = np.empty_like(pts)
    out[:, 0] = xd * fx + cx
    out[:, 1] = yd * fy + cy
    return out


def test_the_usual_lens_models_terms_that_are_zero_are_left_out_without_changing_a_bit():
    """The five-coefficient model (k3 zero or not) skips the rational and thin-prism terms, exact
    zeros: every pixel the very bytes of the full sums, also at the centre (zeros), with cx = 0,
    far outside the frame, and for points that are not numbers (those take the full sums)."""
    from tablecam.calibration.table import _distort_numpy

    rng = np.random.default_rng(10)
    for _ in range(400):
        dist = rng.normal(0, 0.1, int(rng.choice([4, 5, 8, 12]))) * (rng.random() < 0.9)
        dist[5:] = 0.0 if rng.random() < 0.7 else dist[5:]
        dist[4:5] = 0.0 if rng.random() < 0.3 else dist[4:5]
        K = np.array([[rng.uniform(300, 3000), 0, rng.uniform(0, 2000)], [0, rng.uniform(300, 3000), rng.uniform(0, 1500)],
                      [0, 0, 1.0]])
        K[0, 2] = 0.0 if rng.random() < 0.1 else K[0, 2]
        pts = rng.uniform(-3000, 5000, (int(rng.integers(1, 400)), 2)) * rng.choice([1.0, 1e-3, 1e3, 1e60])
        pts[0] = (K[0, 2], K[1, 2])
        if rng.random() < 0.2:
            pts[-1] = (np.nan, np.inf)
        with np.errstate(all="ignore"):
            got, want = _distort_numpy(pts, K, dist), _distort_session9(pts, K, dist)
        assert got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()
