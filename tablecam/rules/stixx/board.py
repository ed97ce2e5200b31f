"""The Stixx board: 19 intersections, 42 grooves (slots), and how table millimetres map to them.

Model (stixx.md): the grooves are the edges of a triangular lattice cut to a hexagon
of side 2. Intersection (q, r), |q|, |r|, |q+r| ≤ 2, sits at q·e1 + r·e2 in the board's
own frame, e1 = (L, 0), e2 = (L/2, L·√3/2), y growing towards the near side. Slots are
the 42 grooves sorted by their midpoint's (y, x), rounded to 0.1 L: slot 0 is at the
far side, left. The board's rotation is the angle of e1 in the table frame (clockwise
seen from above), reported in [0, 60) since the board looks the same every 60 degrees.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

Point = tuple[int, int]  # an intersection (q, r)

DEFAULT_PITCH_MM = 55.0  # L: distance between neighbouring intersections
SLOTS = 42
IN_SLOT_FRACTION = 0.3  # a stick centre within 0.3 L of a groove's midpoint lies in that groove
_DIRECTIONS: tuple[Point, ...] = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))


def _on_board(p: Point) -> bool:
    q, r = p
    return max(abs(q), abs(r), abs(q + r)) <= 2


INTERSECTIONS: tuple[Point, ...] = tuple(sorted(
    (q, r) for q in range(-2, 3) for r in range(-2, 3) if _on_board((q, r))))
INNER: tuple[Point, ...] = tuple(p for p in INTERSECTIONS if max(abs(p[0]), abs(p[1]), abs(p[0] + p[1])) <= 1)


def board_xy(p: tuple[float, float], pitch: float = 1.0) -> tuple[float, float]:
    """An intersection (or a point between two) in the board frame, in units of `pitch`."""
    q, r = p
    return (pitch * (q + r / 2), pitch * (r * math.sqrt(3) / 2))


@lru_cache(maxsize=1)
def grooves() -> tuple[tuple[Point, Point], ...]:
    """The 42 grooves as pairs of intersections, in slot order."""
    edges = set()
    for p in INTERSECTIONS:
        for d in _DIRECTIONS:
            n = (p[0] + d[0], p[1] + d[1])
            if _on_board(n):
                edges.add(tuple(sorted((p, n))))

    def key(edge: tuple[Point, Point]) -> tuple[float, float]:
        (a, b) = edge
        mx, my = board_xy(((a[0] + b[0]) / 2, (a[1] + b[1]) / 2))
        return (round(my, 1), round(mx, 1))

    ordered = tuple(sorted(edges, key=key))
    assert len(ordered) == SLOTS
    return ordered


def ends(slot: int) -> tuple[Point, Point]:
    return grooves()[slot]


def midpoint(slot: int, pitch: float = 1.0) -> tuple[float, float]:
    a, b = ends(slot)
    return board_xy(((a[0] + b[0]) / 2, (a[1] + b[1]) / 2), pitch)


@lru_cache(maxsize=1)
def _touching() -> tuple[frozenset[int], ...]:
    at_point: dict[Point, set[int]] = {}
    for slot, (a, b) in enumerate(grooves()):
        at_point.setdefault(a, set()).add(slot)
        at_point.setdefault(b, set()).add(slot)
    return tuple(frozenset((at_point[a] | at_point[b]) - {slot}) for slot, (a, b) in enumerate(grooves()))


def touching(slot: int) -> frozenset[int]:
    """The slots sharing an intersection with this one (at either end)."""
    return _touching()[slot]


def slots_at(point: Point) -> frozenset[int]:
    """The grooves meeting at an intersection (six at an inner one: a six-branch star)."""
    return frozenset(s for s, (a, b) in enumerate(grooves()) if point in (a, b))


def stars() -> tuple[tuple[Point, frozenset[int]], ...]:
    return tuple((p, slots_at(p)) for p in INNER)


def _rotate_point(p: Point, steps: int) -> Point:
    """An intersection turned by steps × 60 degrees clockwise (seen from above) about the centre."""
    q, r = p
    for _ in range(steps % 6):
        # In axial coordinates a 60-degree turn that takes e1 to e2 is (q, r) → (-r, q + r).
        q, r = -r, q + r
    return (q, r)


@lru_cache(maxsize=6)
def _slot_rotation(steps: int) -> tuple[int, ...]:
    index = {edge: n for n, edge in enumerate(grooves())}
    return tuple(index[tuple(sorted((_rotate_point(a, steps), _rotate_point(b, steps))))] for a, b in grooves())


def rotate_slot(slot: int, steps: int) -> int:
    """The slot a groove becomes when the board is turned by steps × 60 degrees clockwise."""
    return _slot_rotation(steps % 6)[slot]


@dataclass(frozen=True)
class BoardPose:
    """Where the board lies: centre (table mm), rotation (deg, e1 clockwise from +x), pitch L (mm)."""

    centre: tuple[float, float]
    rotation: float
    pitch: float = DEFAULT_PITCH_MM

    def to_table(self, board_point: tuple[float, float]) -> tuple[float, float]:
        a = math.radians(self.rotation)
        x, y = board_point
        return (self.centre[0] + x * math.cos(a) - y * math.sin(a),
                self.centre[1] + x * math.sin(a) + y * math.cos(a))

    def to_board(self, table_point: tuple[float, float]) -> tuple[float, float]:
        a = math.radians(self.rotation)
        x, y = table_point[0] - self.centre[0], table_point[1] - self.centre[1]
        return (x * math.cos(a) + y * math.sin(a), -x * math.sin(a) + y * math.cos(a))

    def slot_centre(self, slot: int) -> tuple[float, float]:
        return self.to_table(midpoint(slot, self.pitch))

    def stick_angle(self, slot: int) -> float:
        """The direction of the groove in the table frame (deg, in [0, 180))."""
        a, b = ends(slot)
        ax, ay = board_xy(a)
        bx, by = board_xy(b)
        return (math.degrees(math.atan2(by - ay, bx - ax)) + self.rotation) % 180.0

    def slot_at(self, table_point: tuple[float, float]) -> int | None:
        """The groove whose middle is within 0.3 L of the point, or None (the stick is off the board)."""
        bx, by = self.to_board(table_point)
        best = min(range(SLOTS), key=lambda s: math.dist((bx, by), midpoint(s, self.pitch)))
        return best if math.dist((bx, by), midpoint(best, self.pitch)) <= IN_SLOT_FRACTION * self.pitch else None


def steps_between(reference: float, rotation: float) -> tuple[int, float]:
    """How a reported rotation in [0, 60) relates to a reference angle.

    Returns (steps, unwrapped): `unwrapped` = rotation + 60·k is the equivalent angle
    nearest the reference, and `steps` = k. A board sitting square on the table is read
    at 0.4 one frame and 59.7 the next; the slots of the second reading are then the
    first's turned by one step, and rotate_slot(slot, steps) maps them back.
    """
    k = round((reference - rotation) / 60.0)
    return k, rotation + 60.0 * k
