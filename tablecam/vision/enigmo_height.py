"""Where a die stands on the table, from where its top face is seen.

The table homography maps a pixel to the point of the TABLE (z = 0) seen there. A die's top face
is 16 mm above the table, so the homography puts it where the camera's ray through it meets the
table: further from the point below the camera than the die's footprint, by (distance from that
point) x 16 / (camera height). With a camera tilted 25 degrees that is over 10 mm, too much for
the rules' "which die went where".

The camera's position in table mm follows from the homography and the lens's focal length: the
camera profile's when there is one, else the focal length that makes the homography a rigid
view (its two table axes equally long and square to each other, principal point in the middle
of the frame). A camera looking straight down does not show its focal length that way; it then
gets a usual one (a frame's width), whose error only scales the small correction it needs.
"""

from __future__ import annotations

import math

import numpy as np

# Focal length assumed when the view does not show it, in frame widths (a lens of about 53
# degrees across; wide lenses go down to a quarter of a width).
DEFAULT_FOCAL_WIDTHS = 1.0
_FOCAL_WIDTHS = (0.2, 4.0)  # a focal length estimated outside this is noise, not a lens


def camera_position_mm(homography: np.ndarray, image_size: tuple[int, int], K: np.ndarray | None = None) -> np.ndarray:
    """The camera's centre (x, y, height) in table mm. `homography` maps undistorted pixels to
    table mm; `K` is the lens's camera matrix (None: estimated as the module doc says)."""
    w, h = image_size
    H = np.linalg.inv(np.asarray(homography, dtype=np.float64))  # table mm -> pixels
    if K is None:
        K = np.array([[1.0, 0, w / 2], [0, 1.0, h / 2], [0, 0, 1]])
        f = _focal_from_view(np.linalg.inv(K) @ H)
        if f is None or not (_FOCAL_WIDTHS[0] * w <= f <= _FOCAL_WIDTHS[1] * w):
            f = DEFAULT_FOCAL_WIDTHS * w
        K = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]])
    A = np.linalg.inv(K) @ H
    scale = (np.linalg.norm(A[:, 0]) + np.linalg.norm(A[:, 1])) / 2
    A = A / scale
    if A[2, 2] < 0:  # the table lies in front of the camera
        A = -A
    r1, r2, t = A[:, 0], A[:, 1], A[:, 2]
    R = np.column_stack([r1, r2, np.cross(r1, r2)])
    centre = -R.T @ t
    return np.array([centre[0], centre[1], abs(centre[2])])


def _focal_from_view(A: np.ndarray) -> float | None:
    """The focal length (px) for which A = diag(f, f, 1) [r1 r2 t] has r1, r2 orthogonal and of
    equal length (least squares over both conditions); None when the view does not tell."""
    h1, h2 = A[:, 0], A[:, 1]
    # with w = 1/f^2: w (h1x h2x + h1y h2y) + h1z h2z = 0 and w (|h1xy|^2 - |h2xy|^2) + h1z^2 - h2z^2 = 0
    a = np.array([h1[0] * h2[0] + h1[1] * h2[1], h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2])
    b = np.array([h1[2] * h2[2], h1[2] ** 2 - h2[2] ** 2])
    denom = float(a @ a)
    if denom <= 0:
        return None
    inv_f2 = -float(a @ b) / denom
    return 1.0 / math.sqrt(inv_f2) if inv_f2 > 0 else None


def footprint_mm(seen_mm, camera_mm: np.ndarray, height_mm: float) -> np.ndarray:
    """Table points (N, 2) where the camera sees things `height_mm` tall -> the points below them."""
    p = np.asarray(seen_mm, dtype=np.float64).reshape(-1, 2)
    c = np.asarray(camera_mm, dtype=np.float64)
    if c[2] <= height_mm:
        return p
    return c[:2] + (p - c[:2]) * (1.0 - height_mm / c[2])
