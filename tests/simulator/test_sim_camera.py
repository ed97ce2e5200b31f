"""The camera model: random mounts stay in the brief's ranges and keep the whole table in view."""

import numpy as np

from tablecam.calibration.geometry import TableGeometry
from tablecam.simulator import RESOLUTIONS, CameraModel
from tablecam.simulator.camera import table_rays


def test_random_mounts_in_range_and_see_every_marker():
    g = TableGeometry()
    corners = np.array([c for m in range(4) for c in g.marker_corners(m)])
    rng = np.random.default_rng(0)
    for k in range(60):
        cam = CameraModel.random(rng, RESOLUTIONS[k % 3])
        assert 600 <= cam.height_mm <= 1000 and cam.tilt_deg <= 25
        assert cam.in_view(cam.project(corners), margin=5).all(), cam


def test_pixel_to_table_mapping_inverts_projection():
    cam = CameraModel.random(np.random.default_rng(11), (800, 600))
    mx, my = table_rays(cam)
    pixels = np.array([[5, 7], [400, 300], [790, 590], [123, 456]])
    table = np.column_stack([mx[pixels[:, 1], pixels[:, 0]], my[pixels[:, 1], pixels[:, 0]]])
    assert np.abs(cam.project(table) - pixels).max() < 0.05


def test_default_looks_straight_down_with_far_side_up():
    cam = CameraModel.default()
    px = cam.project(np.array([[0.0, 0.0], [800.0, 0.0], [0.0, 500.0]]))
    assert px[1, 0] > px[0, 0] + 1000  # marker 1 right of marker 0
    assert px[2, 1] > px[0, 1] + 700  # marker 3 below marker 0
