"""The hex lattice of an ENIX layout, and how table millimetres map to it.

The tiles are flat-topped hexagons laid edge to edge, so their centres form a
lattice whose six neighbour directions are 60 degrees apart; the layout may sit at
any angle and place on the table. A cell is (i, j): the centre is
origin + i·D0 + j·D1, where Dk is the step to the neighbour across side k (side 0 =
the top side of a tile at rotation 0 when the lattice angle is 0; sides count
clockwise as seen from above, like every rotation in the table frame).

Neighbour steps in cell units, by direction 0..5:
(1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

Cell = tuple[int, int]

DEFAULT_ACROSS_FLATS_MM = 110.9  # enix.md model: side 64 mm
STEPS: tuple[Cell, ...] = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))
OFF_LATTICE_FRACTION = 0.25  # a centre further than this × pitch from a lattice point is not "on" it


def neighbour(cell: Cell, direction: int) -> Cell:
    di, dj = STEPS[direction % 6]
    return (cell[0] + di, cell[1] + dj)


def neighbours(cell: Cell) -> tuple[Cell, ...]:
    return tuple(neighbour(cell, d) for d in range(6))


def direction_between(a: Cell, b: Cell) -> int | None:
    """The direction 0..5 from a to an edge-adjacent b; None when they do not share a side."""
    step = (b[0] - a[0], b[1] - a[1])
    return STEPS.index(step) if step in STEPS else None


def wrap60(angle: float) -> float:
    """An angle brought into [-30, 30): the lattice looks the same every 60 degrees."""
    return (angle + 30.0) % 60.0 - 30.0


@dataclass(frozen=True)
class Lattice:
    """Where the lattice lies on the table: origin (mm), angle of direction 0 (deg, clockwise from −y), pitch (mm)."""

    origin: tuple[float, float]
    angle: float
    pitch: float = DEFAULT_ACROSS_FLATS_MM

    def step_mm(self, direction: int) -> tuple[float, float]:
        a = math.radians(self.angle + 60.0 * direction)
        return (self.pitch * math.sin(a), -self.pitch * math.cos(a))

    def centre(self, cell: Cell) -> tuple[float, float]:
        d0, d1 = self.step_mm(0), self.step_mm(1)
        return (self.origin[0] + cell[0] * d0[0] + cell[1] * d1[0],
                self.origin[1] + cell[0] * d0[1] + cell[1] * d1[1])

    def fractional(self, point: Sequence[float]) -> tuple[float, float]:
        d0, d1 = self.step_mm(0), self.step_mm(1)
        x, y = point[0] - self.origin[0], point[1] - self.origin[1]
        det = d0[0] * d1[1] - d1[0] * d0[1]
        return ((x * d1[1] - d1[0] * y) / det, (d0[0] * y - x * d0[1]) / det)

    def nearest(self, point: Sequence[float]) -> tuple[Cell, float]:
        """The cell whose centre is nearest the point, and the distance to it in mm."""
        cell = hex_round(*self.fractional(point))
        cx, cy = self.centre(cell)
        return cell, math.hypot(point[0] - cx, point[1] - cy)

    def turn(self, rotation: float) -> int:
        """A tile's rotation (deg) as sixths of a turn relative to the lattice, 0..5."""
        return round((rotation - self.angle) / 60.0) % 6

    def rotation(self, turn: int) -> float:
        """A tile's rotation in table degrees [0, 360) for sixths `turn` on this lattice."""
        return (self.angle + 60.0 * turn) % 360.0

    def shifted(self, offset: Cell) -> "Lattice":
        """The same lattice with its origin moved to what is now cell `offset`."""
        return Lattice(self.centre(offset), self.angle, self.pitch)


def hex_round(fi: float, fj: float) -> Cell:
    """Nearest lattice cell to fractional cell coordinates (cube rounding)."""
    fk = -fi - fj
    ri, rj, rk = round(fi), round(fj), round(fk)
    di, dj, dk = abs(ri - fi), abs(rj - fj), abs(rk - fk)
    if di > dj and di > dk:
        ri = -rj - rk
    elif dj > dk:
        rj = -ri - rk
    return (int(ri), int(rj))


def lattice_angle(rotations: Iterable[float], centres: Sequence[Sequence[float]], pitch: float,
                  near: float | None = None) -> float:
    """The lattice's angle from the tiles' rotations and the directions between neighbouring centres.

    Every estimate is only known modulo 60 degrees, so they are averaged as points on a
    circle of period 60 (angles × 6). With `near`, the result is the equivalent angle
    closest to it, so a layout sitting at about 0 degrees does not flip between 0 and 59.
    """
    estimates = [float(r) for r in rotations]
    for n, a in enumerate(centres):
        for b in centres[n + 1:]:
            dx, dy = b[0] - a[0], b[1] - a[1]
            if abs(math.hypot(dx, dy) - pitch) < 0.2 * pitch:
                estimates.append(math.degrees(math.atan2(dx, -dy)))
    if not estimates:
        return near if near is not None else 0.0
    s = sum(math.sin(math.radians(6 * e)) for e in estimates)
    c = sum(math.cos(math.radians(6 * e)) for e in estimates)
    mean = math.degrees(math.atan2(s, c)) / 6.0
    if near is None:
        return mean % 60.0
    return near + wrap60(mean - near)


def fit_lattice(rotations: Sequence[float], centres: Sequence[Sequence[float]], pitch: float,
                previous: Lattice | None = None) -> Lattice:
    """The lattice through the given hex centres (least-squares origin), continuing `previous` when given."""
    angle = lattice_angle(rotations, centres, pitch, previous.angle if previous else None)
    origin = previous.origin if previous else tuple(centres[0]) if centres else (0.0, 0.0)
    lattice = Lattice((float(origin[0]), float(origin[1])), angle, pitch)
    if not centres:
        return lattice
    # Two passes: the first snaps each centre to a cell, the second puts the origin where
    # the residuals average to zero, so one noisy centre cannot drag the lattice far.
    for _ in range(2):
        residuals = []
        for point in centres:
            cell, _ = lattice.nearest(point)
            cx, cy = lattice.centre(cell)
            residuals.append((point[0] - cx, point[1] - cy))
        mx = sum(r[0] for r in residuals) / len(residuals)
        my = sum(r[1] for r in residuals) / len(residuals)
        lattice = Lattice((lattice.origin[0] + mx, lattice.origin[1] + my), angle, pitch)
    return lattice
