"""Pawn movement on the ENIX layout: crossing costs from the ray table, reachable tiles, move checks.

The model (enix.md): two edge-adjacent tiles are connected across their shared side
only if both have a ray towards it; crossing costs (path points on A's ray) +
(path points on B's ray) + 1. A pawn ends on a centre, may cross several tiles if
the total allows (extra points are lost), never enters a tile twice in one turn,
and cannot enter or leave the tile under the cap.

Ruling: the tile a pawn starts its turn on counts as already entered, so a pawn
cannot end its turn where it began by walking a loop (otherwise "a positive total
obliges a move" could be dodged).
"""

from __future__ import annotations

from dataclasses import dataclass

from tablecam.rules.enix.energies import RayTable
from tablecam.rules.enix.layout import Layout
from tablecam.rules.enix.lattice import direction_between, neighbour


def side_towards(turn: int, direction: int) -> int:
    """The tile's own side number (as printed) that faces lattice direction `direction`."""
    return (direction - turn) % 6


def crossing_cost(layout: Layout, rays: RayTable, a: str, b: str) -> int | None:
    """Points to go from the centre of tile a to the centre of the adjacent tile b; None if no path."""
    ta, tb = layout.get(a), layout.get(b)
    if ta is None or tb is None:
        return None
    d = direction_between(ta.cell, tb.cell)
    if d is None:
        return None
    pa = rays.points(a, side_towards(ta.turn, d))
    pb = rays.points(b, side_towards(tb.turn, (d + 3) % 6))
    if pa is None or pb is None:
        return None
    return pa + pb + 1


def connections(layout: Layout, rays: RayTable) -> dict[str, dict[str, int]]:
    """For each tile, the adjacent tiles it connects to and the cost of each crossing."""
    found: dict[str, dict[str, int]] = {t.energy: {} for t in layout.tiles}
    for tile in layout.tiles:
        for d in range(6):
            other = layout.at(neighbour(tile.cell, d))
            if other is not None:
                cost = crossing_cost(layout, rays, tile.energy, other)
                if cost is not None:
                    found[tile.energy][other] = cost
    return found


def reachable(layout: Layout, rays: RayTable, start: str, total: int, cap: str | None = None) -> dict[str, int]:
    """Every tile a pawn on `start` may end on with card total `total`, with the cheapest cost.

    Empty when the total is zero or negative, or the pawn sits under the cap. With six
    tiles a search over every simple path is instant and exact.
    """
    if total <= 0 or start == cap or layout.get(start) is None:
        return {}
    graph = connections(layout, rays)
    best: dict[str, int] = {}

    def walk(here: str, spent: int, seen: frozenset[str]) -> None:
        for there, cost in graph[here].items():
            if there in seen or there == cap or spent + cost > total:
                continue
            if spent + cost < best.get(there, total + 1):
                best[there] = spent + cost
            walk(there, spent + cost, seen | {there})

    walk(start, 0, frozenset({start}))
    return dict(sorted(best.items(), key=lambda kv: (kv[1], kv[0])))


def cheapest(layout: Layout, rays: RayTable, start: str, end: str, cap: str | None = None) -> int | None:
    """The fewest points that take a pawn from start to end (cap respected); None if impossible."""
    big = 1 + sum(c for row in connections(layout, rays).values() for c in row.values())
    return reachable(layout, rays, start, big, cap).get(end)


@dataclass(frozen=True)
class PawnVerdict:
    legal: bool
    reason: str
    reachable: tuple[str, ...]
    cost: int | None


def check_pawn_move(layout: Layout, rays: RayTable, colour: str, start: str, end: str,
                    total: int | None, cap: str | None = None) -> PawnVerdict:
    """Was the pawn's walk from start to end possible with the card total? (None = total unknown.)"""
    need = cheapest(layout, rays, start, end, cap)
    if total is None:
        options = tuple(reachable(layout, rays, start, 10**6, cap))
        if start == cap:
            return PawnVerdict(False, f"the {colour} pawn left {start}, which is under the cap", options, None)
        if end == cap:
            return PawnVerdict(False, f"the {colour} pawn entered {end}, which is under the cap", options, None)
        if need is None:
            return PawnVerdict(False, f"no path joins {start} to {end}; only a jump card allows this move", options, None)
        return PawnVerdict(True, f"the {colour} pawn walked from {start} to {end} ({need} points at least); "
                                 "no revealed total is known to check it against", options, need)
    options = tuple(reachable(layout, rays, start, total, cap))
    if end in options:
        return PawnVerdict(True, f"the {colour} pawn may walk from {start} to {end} with {total} points "
                                 f"(it costs {need})", options, need)
    if start == cap:
        why = f"{start} is under the cap, so the {colour} pawn may not leave it"
    elif end == cap:
        why = f"{end} is under the cap, so no pawn may enter it"
    elif total <= 0:
        why = f"the {colour} total is {total}, so the pawn does not walk"
    elif need is None:
        why = f"no path joins {start} to {end}"
    else:
        why = f"the {colour} pawn needs {need} points to walk from {start} to {end} but has {total}"
    return PawnVerdict(False, why + "; only a jump card allows this move", options, need)
