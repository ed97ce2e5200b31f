"""The micropul board: tiles on a square grid, placement legality, catalysts, groups.

Cells are (col, row) with rows growing towards the table's near side (+y), so a
tile's quadrant names (ul, ur, ll, lr) are also directions on the board.
Every function here is pure: a Board is a value, placing a tile returns a new one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Iterable, Iterator, Mapping

from .tiles import CATALYSTS, MICROPUL, Face

Cell = tuple[int, int]
Node = tuple[Cell, str]  # one quadrant of one tile on the board

# Quadrant name <-> position inside its tile (dx, dy), and back.
QUAD_POS = {"ul": (0, 0), "ur": (1, 0), "ll": (0, 1), "lr": (1, 1)}
POS_QUAD = {v: k for k, v in QUAD_POS.items()}
CENTRE = "centre"  # a big tile's central catalyst, as a catalyst position

DRAWS = {"1": 1, "2": 2, "+": 0}
COLOUR_NAME = {"W": "white", "B": "black"}


@dataclass(frozen=True)
class Placed:
    face: Face  # as seen on the table (already rotated)
    tile_index: int | None = None  # None when the face fits several tiles of the set
    rotation: int = 0


def across_edges(cell: Cell, quad: str) -> Iterator[Node]:
    """The two quadrants of neighbouring cells that face this quadrant across its tile's edges."""
    (cx, cy), (dx, dy) = cell, QUAD_POS[quad]
    if dx == 0:
        yield (cx - 1, cy), POS_QUAD[(1, dy)]
    else:
        yield (cx + 1, cy), POS_QUAD[(0, dy)]
    if dy == 0:
        yield (cx, cy - 1), POS_QUAD[(dx, 1)]
    else:
        yield (cx, cy + 1), POS_QUAD[(dx, 0)]


def within_tile(quad: str) -> Iterator[str]:
    """The two quadrants of the same tile that share a side with this one."""
    dx, dy = QUAD_POS[quad]
    yield POS_QUAD[(1 - dx, dy)]
    yield POS_QUAD[(dx, 1 - dy)]


def neighbour_cells(cell: Cell) -> tuple[Cell, ...]:
    x, y = cell
    return ((x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1))


@dataclass(frozen=True)
class Activation:
    cell: Cell
    position: str  # quadrant name, or CENTRE for a big tile's catalyst
    catalyst: str  # "1", "2" or "+"


@dataclass(frozen=True)
class Group:
    colour: str  # "W" or "B"
    nodes: frozenset[Node]
    points: int  # micropul in the group; a big micropul counts once
    closed: bool

    @property
    def key(self) -> Node:
        """A stable name for the group: its smallest quadrant."""
        return min(self.nodes)


@dataclass(frozen=True)
class PlacementCheck:
    legal: bool
    reason: str | None  # one sentence when illegal
    activations: tuple[Activation, ...] = ()

    @property
    def draw(self) -> int:
        """Tiles to draw from the core, before the cap by the tiles left in it."""
        return sum(DRAWS[a.catalyst] for a in self.activations)

    @property
    def extra_turns(self) -> int:
        return sum(1 for a in self.activations if a.catalyst == "+")


@dataclass(frozen=True)
class Board:
    cells: Mapping[Cell, Placed] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # A read-only view: a Board is a value that other code may keep and share.
        object.__setattr__(self, "cells", MappingProxyType(dict(self.cells)))

    def __contains__(self, cell: object) -> bool:
        return cell in self.cells

    def __len__(self) -> int:
        return len(self.cells)

    def symbol(self, node: Node) -> str | None:
        placed = self.cells.get(node[0])
        return None if placed is None else placed.face.quadrant(node[1])

    def with_tile(self, cell: Cell, placed: Placed) -> "Board":
        cells = dict(self.cells)
        cells[cell] = placed
        return Board(cells)

    def without(self, cell: Cell) -> "Board":
        cells = dict(self.cells)
        cells.pop(cell, None)
        return Board(cells)

    def open_cells(self) -> list[Cell]:
        """Empty cells that touch the board edge to edge: where a tile may go."""
        found = {n for c in self.cells for n in neighbour_cells(c) if n not in self.cells}
        return sorted(found)

    # ---- placement ----------------------------------------------------------------

    def check(self, cell: Cell, face: Face) -> PlacementCheck:
        """Whether a tile showing `face` may go at `cell`, why not, and what it activates."""
        if cell in self.cells:
            return PlacementCheck(False, f"occupied: cell {cell} already holds a tile")
        if self.cells and not any(n in self.cells for n in neighbour_cells(cell)):
            return PlacementCheck(False, "not touching: the tile must touch the board edge to edge")
        same_colour = False
        for quad in QUAD_POS:
            mine = face.quadrant(quad)
            for other_node in across_edges(cell, quad):
                other = self.symbol(other_node)
                if mine in MICROPUL and other in MICROPUL:
                    if mine != other:
                        return PlacementCheck(
                            False, f"colour clash: a {COLOUR_NAME[mine]} micropul would face "
                                   f"a {COLOUR_NAME[other]} micropul")
                    same_colour = True
        if not same_colour:
            return PlacementCheck(
                False, "no same-colour contact: none of its micropul faces a micropul of its colour")
        return PlacementCheck(True, None, self._activations(cell, face))

    def _activations(self, cell: Cell, face: Face) -> tuple[Activation, ...]:
        """Catalysts that fire when `face` is laid at `cell` (rule 3).

        A catalyst fires when it faces, across a tile edge, a micropul on another tile and the
        new tile is one of the two; at most once per turn however many micropul it faces.
        """
        fired: dict[tuple[Cell, str], str] = {}
        for quad in QUAD_POS:
            mine = face.quadrant(quad)
            for ocell, oquad in across_edges(cell, quad):
                placed = self.cells.get(ocell)
                if placed is None:
                    continue
                other = placed.face.quadrant(oquad)
                # The new tile's catalyst facing a neighbour's micropul.
                if other in MICROPUL:
                    if face.big:
                        fired[(cell, CENTRE)] = face.catalyst  # type: ignore[assignment]
                    elif mine in CATALYSTS:
                        fired[(cell, quad)] = mine
                # A neighbour's catalyst facing the new tile's micropul.
                if mine in MICROPUL:
                    if placed.face.big:
                        fired[(ocell, CENTRE)] = placed.face.catalyst  # type: ignore[assignment]
                    elif other in CATALYSTS:
                        fired[(ocell, oquad)] = other
        return tuple(Activation(c, p, k) for (c, p), k in sorted(fired.items()))

    def place(self, cell: Cell, placed: Placed) -> "Board":
        """The board with this tile laid; raises ValueError with the reason when illegal."""
        verdict = self.check(cell, placed.face)
        if not verdict.legal:
            raise ValueError(verdict.reason)
        return self.with_tile(cell, placed)

    # ---- groups ---------------------------------------------------------------------

    def micropul_nodes(self) -> Iterator[Node]:
        for cell, placed in self.cells.items():
            for quad in QUAD_POS:
                if placed.face.quadrant(quad) in MICROPUL:
                    yield cell, quad

    def groups(self) -> list[Group]:
        """Every group: orthogonally connected micropul quadrants of one colour (rule 5)."""
        seen: set[Node] = set()
        groups = []
        for start in sorted(self.micropul_nodes()):
            if start in seen:
                continue
            colour = self.symbol(start)
            nodes = {start}
            stack = [start]
            while stack:
                cell, quad = stack.pop()
                around = [(cell, q) for q in within_tile(quad)] + list(across_edges(cell, quad))
                for node in around:
                    if node not in nodes and self.symbol(node) == colour:
                        nodes.add(node)
                        stack.append(node)
            seen |= nodes
            groups.append(self._group(colour, frozenset(nodes)))  # type: ignore[arg-type]
        return groups

    def _group(self, colour: str, nodes: frozenset[Node]) -> Group:
        big_cells = {cell for cell, _ in nodes if self.cells[cell].face.big}
        points = sum(1 for cell, _ in nodes if cell not in big_cells) + len(big_cells)
        closed = all(ocell in self.cells for cell, quad in nodes for ocell, _ in across_edges(cell, quad))
        return Group(colour, nodes, points, closed)

    def group_of(self, node: Node) -> Group | None:
        if self.symbol(node) not in MICROPUL:
            return None
        return next(g for g in self.groups() if node in g.nodes)


def closed_by(before: Board, after: Board) -> list[Group]:
    """Groups closed on `after` that were not closed on `before` (a closed group never changes)."""
    was_closed = {g.nodes for g in before.groups() if g.closed}
    return [g for g in after.groups() if g.closed and g.nodes not in was_closed]


def stones_on(group: Group, stones: Iterable["Stone"]) -> list["Stone"]:
    return [s for s in stones if (s.cell, s.quadrant) in group.nodes]


@dataclass(frozen=True)
class Stone:
    cell: Cell
    quadrant: str
    colour: str
