import numpy as np
import pytest

from tablecam.simulator import CameraModel


@pytest.fixture(scope="session")
def small_camera() -> CameraModel:
    """Straight down, half the HQ camera's binned resolution: fast, and markers still ~40 px wide."""
    return CameraModel.default((1014, 760))


@pytest.fixture(scope="session")
def detect_markers():
    """cv2.aruco's own detector, as the calibration code will use it: id -> 4 corners (px)."""
    return _detect_markers


def _detect_markers(image: np.ndarray) -> dict[int, np.ndarray]:
    import cv2

    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    corners, ids, _ = cv2.aruco.ArucoDetector(dictionary, params).detectMarkers(image)
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners)}
