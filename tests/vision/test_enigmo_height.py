"""A die's top face is 16 mm above the table: where it is seen is moved down to its footprint."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from tablecam.vision.enigmo_height import camera_position_mm, footprint_mm

SIZE = (2028, 1520)


def _camera(tilt_deg: float, focal_px: float, centre_mm=(400.0, 250.0), height_mm: float = 800.0):
    """A pinhole camera `height_mm` above the table point `centre_mm`, leaning `tilt_deg`
    (looking back at the table's middle), as rvec, tvec, K; its centre in table mm."""
    t = math.radians(tilt_deg)
    cam = np.array([centre_mm[0] - height_mm * math.tan(t), centre_mm[1], -height_mm])  # z points down into the table
    target = np.array([centre_mm[0], centre_mm[1], 0.0])
    z = target - cam
    z /= np.linalg.norm(z)
    x = np.cross([0.0, 1.0, 0.0], z)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    R = np.vstack([x, y, z])
    tvec = -R @ cam
    K = np.array([[focal_px, 0, SIZE[0] / 2], [0, focal_px, SIZE[1] / 2], [0, 0, 1]])
    return cv2.Rodrigues(R)[0], tvec, K, np.array([cam[0], cam[1], height_mm])


def _project(points_xyz, rvec, tvec, K):
    px, _ = cv2.projectPoints(np.asarray(points_xyz, np.float64), rvec, tvec, K, None)
    return px.reshape(-1, 2)


def _table_homography(rvec, tvec, K):
    """Pixels -> table mm, fitted on table points as the markers would give it."""
    table = np.array([(x, y, 0.0) for x in (0, 800) for y in (0, 500)] + [(400, 0, 0), (400, 500, 0)])
    H, _ = cv2.findHomography(_project(table, rvec, tvec, K), table[:, :2], 0)
    return H


# A camera looking straight down does not show its focal length: a usual one is assumed, which
# only scales the (smaller) correction it needs.
@pytest.mark.parametrize("tilt, focal, within_mm", [(0.0, 1500.0, 2.0), (12.0, 1100.0, 1.0), (25.0, 800.0, 1.0),
                                                    (25.0, 1800.0, 1.0)])
def test_a_die_seen_from_a_tilted_camera_is_placed_on_its_footprint(tilt, focal, within_mm):
    rvec, tvec, K, _ = _camera(tilt, focal)
    H = _table_homography(rvec, tvec, K)
    feet = np.array([(120.0, 80.0), (650.0, 420.0), (400.0, 250.0), (90.0, 460.0)])
    tops = np.column_stack([feet, np.full(len(feet), -16.0)])  # 16 mm above the table (z down)
    seen = cv2.perspectiveTransform(_project(tops, rvec, tvec, K)[None], H)[0]
    camera = camera_position_mm(H, SIZE)  # no lens profile: the focal length from the view itself
    placed = footprint_mm(seen, camera, 16.0)
    # without the correction the tilted camera puts some dice several mm off their place
    assert np.abs(placed - feet).max() < within_mm
    assert np.abs(placed - feet).max() < 0.4 * np.abs(seen - feet).max()
    if tilt >= 12:
        assert np.abs(seen - feet).max() > 4.0


def test_with_the_lens_profile_the_camera_is_found_where_it_hangs():
    rvec, tvec, K, centre = _camera(20.0, 1200.0)
    H = _table_homography(rvec, tvec, K)
    assert np.allclose(camera_position_mm(H, SIZE, K), centre, atol=1.0)
    assert np.allclose(camera_position_mm(H, SIZE), centre, atol=15.0)  # focal length estimated


def test_flat_things_stay_where_they_are_seen():
    camera = np.array([400.0, 250.0, 800.0])
    pts = np.array([(10.0, 20.0), (700.0, 480.0)])
    assert np.allclose(footprint_mm(pts, camera, 0.0), pts)
