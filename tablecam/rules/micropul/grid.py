"""From tile centres in table millimetres to board cells.

The board may lie anywhere on the table, turned up to about 20 degrees from the table's
axes. Its angle comes from the directions between neighbouring tiles (taken modulo 90
degrees, so it does not matter which neighbour), its offset from the tiles' positions
modulo one tile. Plain math, so the replay and the live tracker share it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

MAX_MISALIGNMENT = 0.3  # of a tile side: further than this from a grid point, a tile is off the grid


@dataclass(frozen=True)
class Grid:
    angle_deg: float  # the board's turn from the table axes, clockwise seen from above
    offset: tuple[float, float]  # where cell (0, 0) sits, in tile units of the turned frame
    tile_mm: float

    def to_units(self, point: tuple[float, float]) -> tuple[float, float]:
        """Table mm -> board units (1 = one tile side), cell (0, 0) centred on (0, 0)."""
        a = math.radians(self.angle_deg)
        x, y = point
        u = (x * math.cos(a) + y * math.sin(a)) / self.tile_mm
        v = (-x * math.sin(a) + y * math.cos(a)) / self.tile_mm
        return u - self.offset[0], v - self.offset[1]

    def cell_of(self, point: tuple[float, float]) -> tuple[tuple[int, int], float]:
        """The cell a point falls in, and its distance from that cell's centre (tile units)."""
        u, v = self.to_units(point)
        cell = (round(u), round(v))
        return cell, math.hypot(u - cell[0], v - cell[1])

    def quadrant_of(self, point: tuple[float, float]) -> tuple[tuple[int, int], str]:
        """The cell and quadrant (ul, ur, ll, lr) a point lies on."""
        u, v = self.to_units(point)
        cell = (round(u), round(v))
        return cell, ("u" if v < cell[1] else "l") + ("l" if u < cell[0] else "r")

    def centre_mm(self, cell: tuple[int, int]) -> tuple[float, float]:
        """The inverse of cell_of for a cell's centre."""
        a = math.radians(self.angle_deg)
        u = (cell[0] + self.offset[0]) * self.tile_mm
        v = (cell[1] + self.offset[1]) * self.tile_mm
        return u * math.cos(a) - v * math.sin(a), u * math.sin(a) + v * math.cos(a)


def board_angle(centres: list[tuple[float, float]], tile_mm: float, fallback: float = 0.0) -> float:
    """The board's angle in (-45, 45] degrees from pairs of edge-to-edge neighbours."""
    c = s = 0.0
    for i, (x1, y1) in enumerate(centres):
        for x2, y2 in centres[i + 1:]:
            d = math.hypot(x2 - x1, y2 - y1)
            if 0.75 * tile_mm < d < 1.25 * tile_mm:
                a = 4 * math.atan2(y2 - y1, x2 - x1)  # x4: the four neighbour directions coincide
                c += math.cos(a)
                s += math.sin(a)
    if c == 0 and s == 0:
        return fallback
    return math.degrees(math.atan2(s, c)) / 4


def fit_grid(centres: list[tuple[float, float]], tile_mm: float, angle_fallback: float = 0.0) -> Grid:
    """The grid that puts these tile centres closest to whole cells."""
    angle = board_angle(centres, tile_mm, angle_fallback)
    unturned = Grid(angle, (0.0, 0.0), tile_mm)
    points = [unturned.to_units(p) for p in centres] or [(0.0, 0.0)]
    offset = tuple(_circular_mean([p[k] for p in points]) for k in (0, 1))
    return Grid(angle, offset, tile_mm)  # type: ignore[arg-type]


def _circular_mean(values: list[float]) -> float:
    """The mean of values modulo 1, in [-0.5, 0.5): the grid's phase along one axis."""
    c = sum(math.cos(2 * math.pi * v) for v in values)
    s = sum(math.sin(2 * math.pi * v) for v in values)
    return math.atan2(s, c) / (2 * math.pi)
