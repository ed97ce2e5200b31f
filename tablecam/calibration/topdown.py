"""The top-down table image at a chosen px/mm, and the mm <-> pixel mapping of that image.

Lens undistortion and the homography are folded into ONE remap table, built once per table
position: cv2.initUndistortRectifyMap accepts any 3x3 "new camera matrix" and inverts it, so
giving it M = A @ H @ K (A: table mm -> rectified pixel, H: undistorted pixel -> mm, K: lens)
makes every rectified pixel look up its raw frame pixel through the lens model directly.
Per frame only cv2.remap runs.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from tablecam.calibration.images import check_frame
from tablecam.calibration.table import TableFix
from tablecam.errors import UserError

MAX_OUTPUT_PIXELS = 40_000_000  # a rectified image beyond this is a typo in px/mm, not a wish


@dataclass(frozen=True)
class TableRaster:
    """How a rectified image's pixels lie on the table: pixel (u, v) covers table mm
    [x0 + u/ppm, x0 + (u+1)/ppm) x [y0 + v/ppm, y0 + (v+1)/ppm)."""

    px_per_mm: float
    origin_mm: tuple[float, float]  # table mm at the outer top-left corner of pixel (0, 0)
    size: tuple[int, int]  # (width, height) in pixels

    def mm_to_px(self, points_mm) -> np.ndarray:
        """Table mm (N, 2) -> rectified pixel coordinates (N, 2), pixel centres at integers."""
        p = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
        return (p - self.origin_mm) * self.px_per_mm - 0.5

    def px_to_mm(self, points_px) -> np.ndarray:
        """Rectified pixel coordinates (N, 2) -> table mm (N, 2)."""
        p = np.asarray(points_px, dtype=np.float64).reshape(-1, 2)
        return (p + 0.5) / self.px_per_mm + self.origin_mm

    @property
    def mm_to_px_matrix(self) -> np.ndarray:
        s = self.px_per_mm
        return np.array([[s, 0, -self.origin_mm[0] * s - 0.5],
                         [0, s, -self.origin_mm[1] * s - 0.5],
                         [0, 0, 1.0]])


@dataclass(frozen=True, eq=False)
class RectifiedTable:
    """The table seen from straight above: `image` (BGR or grey) and where its pixels lie in table mm."""

    image: np.ndarray
    raster: TableRaster
    fix: TableFix

    @property
    def px_per_mm(self) -> float:
        return self.raster.px_per_mm

    def mm_to_px(self, points_mm) -> np.ndarray:
        return self.raster.mm_to_px(points_mm)

    def px_to_mm(self, points_px) -> np.ndarray:
        return self.raster.px_to_mm(points_px)


@dataclass(frozen=True, eq=False)
class RectifyMaps:
    """A precomputed remap for one table position, one px/mm and one margin."""

    lock: bytes
    raster: TableRaster
    map1: np.ndarray
    map2: np.ndarray

    def fits(self, fix: TableFix, px_per_mm: float, margin_mm: float) -> bool:
        return (self.lock == fix.lock and self.raster.px_per_mm == px_per_mm
                and self.raster.origin_mm == (-float(margin_mm), -float(margin_mm)))


def table_raster(fix: TableFix, px_per_mm: float, margin_mm: float) -> TableRaster:
    """The play area between the marker centres, grown by `margin_mm` on every side."""
    if not (px_per_mm > 0 and np.isfinite(px_per_mm)):
        raise UserError(f"px per mm must be a positive number, not {px_per_mm}.")
    if not (margin_mm >= 0 and np.isfinite(margin_mm)):
        raise UserError(f"the margin must be zero or more millimetres, not {margin_mm}.")
    g = fix.geometry
    w = int(round((g.width_mm + 2 * margin_mm) * px_per_mm))
    h = int(round((g.height_mm + 2 * margin_mm) * px_per_mm))
    if w * h > MAX_OUTPUT_PIXELS:
        raise UserError(f"{px_per_mm:g} px per mm would make a {w}x{h} image: choose fewer px per mm.")
    return TableRaster(float(px_per_mm), (-float(margin_mm), -float(margin_mm)), (max(w, 1), max(h, 1)))


# With a lens model, the map is computed on a grid of every MAP_STEP-th pixel and interpolated:
# the lens and the homography bend it smoothly (far below a hundredth of a pixel between grid
# points), and the lens model per pixel is most of a one-photo rectification's cost.
MAP_STEP = 8


def rectify_maps(fix: TableFix, px_per_mm: float, margin_mm: float = 40.0) -> RectifyMaps:
    raster = table_raster(fix, px_per_mm, margin_mm)
    A = raster.mm_to_px_matrix
    if fix.profile is None:
        # A plain homography: OpenCV's own warp maps are exact and cheap.
        M = A @ fix.homography
        map1, map2 = cv2.initUndistortRectifyMap(np.eye(3), np.zeros(5), np.eye(3), M, raster.size, cv2.CV_16SC2)
        return RectifyMaps(fix.lock, raster, map1, map2)
    K, dist = fix.profile.K, fix.profile.dist
    s = MAP_STEP
    w, h = raster.size
    cw, ch = -(-w // s) + 2, -(-h // s) + 2
    # Coarse pixel i sits where cv2.resize (pixel centres aligned) puts it, fine pixel s*i + (s-1)/2
    # of the upscaled map; the grid starts one step before the raster so that no edge pixel is
    # extrapolated (resize would hold the edge value instead).
    o = (s - 1) / (2.0 * s) - 1.0
    C = np.array([[1.0 / s, 0.0, -o], [0.0, 1.0 / s, -o], [0.0, 0.0, 1.0]])
    coarse_x, coarse_y = cv2.initUndistortRectifyMap(K, dist, np.eye(3), C @ A @ fix.homography @ K, (cw, ch),
                                                     cv2.CV_32FC1)
    fine_x = cv2.resize(coarse_x, (cw * s, ch * s), interpolation=cv2.INTER_LINEAR)[s:s + h, s:s + w]
    fine_y = cv2.resize(coarse_y, (cw * s, ch * s), interpolation=cv2.INTER_LINEAR)[s:s + h, s:s + w]
    map1, map2 = cv2.convertMaps(fine_x, fine_y, cv2.CV_16SC2)
    return RectifyMaps(fix.lock, raster, map1, map2)


def rectify(image: np.ndarray, fix: TableFix, px_per_mm: float = 2.0, margin_mm: float = 40.0,
            maps: RectifyMaps | None = None) -> RectifiedTable:
    """The top-down table image. Pass `maps` (from rectify_maps, for this fix) to skip building
    the warp; outside the camera's view the image is black."""
    image = check_frame(image)
    if (image.shape[1], image.shape[0]) != fix.image_size:
        raise UserError(f"the frame is {image.shape[1]}x{image.shape[0]} but the table was found in a "
                        f"{fix.image_size[0]}x{fix.image_size[1]} frame.")
    if maps is None or not maps.fits(fix, px_per_mm, margin_mm):
        maps = rectify_maps(fix, px_per_mm, margin_mm)
    out = cv2.remap(image, maps.map1, maps.map2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return RectifiedTable(out, maps.raster, fix)
