"""The table frame of ARCHITECTURE.md: four ArUco markers, table millimetres.

Plain values shared by calibration (to find the table), the simulator (to draw it)
and the hardware sheet (to print the markers).
"""

from __future__ import annotations

from dataclasses import dataclass

ARUCO_DICTIONARY = "DICT_4X4_50"
MARKER_IDS = (0, 1, 2, 3)  # top-left, top-right, bottom-right, bottom-left as seen from the camera


@dataclass(frozen=True)
class TableGeometry:
    """Where the markers lie. Origin at marker 0's centre, x towards marker 1, y towards marker 3."""

    marker_mm: float = 40.0  # printed side of a marker (black border included)
    width_mm: float = 800.0  # centre of marker 0 to centre of marker 1
    height_mm: float = 500.0  # centre of marker 0 to centre of marker 3

    def __post_init__(self) -> None:
        if not (self.marker_mm > 0 and self.width_mm > 2 * self.marker_mm and self.height_mm > 2 * self.marker_mm):
            raise ValueError("the table needs a positive marker size and markers spaced more than two sides apart")

    def marker_centre(self, marker_id: int) -> tuple[float, float]:
        return {0: (0.0, 0.0), 1: (self.width_mm, 0.0),
                2: (self.width_mm, self.height_mm), 3: (0.0, self.height_mm)}[marker_id]

    def marker_corners(self, marker_id: int) -> list[tuple[float, float]]:
        """Corners in table mm in OpenCV's ArUco order (clockwise from the marker's top-left),
        each marker printed upright as seen from the camera."""
        cx, cy = self.marker_centre(marker_id)
        h = self.marker_mm / 2
        return [(cx - h, cy - h), (cx + h, cy - h), (cx + h, cy + h), (cx - h, cy + h)]
