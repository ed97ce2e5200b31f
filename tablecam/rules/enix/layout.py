"""The ENIX layout on the hex lattice: setup check, connectivity, and what a change of layout was.

Rulings (enix.md leaves these open):
- A moved tile may land in any orientation: picking a tile up and putting it down
  turned is still one "move" action; the camera cannot tell a careful player from a
  careless one, and calling it illegal would be a false alarm.
- "No hole, no second group" is read as one rule: all six tiles form one
  edge-connected group. Six tiles in a ring around an empty place are connected
  and therefore legal.
- The layout's cells are relative: if the whole layout is bumped on the table, the
  replay re-anchors the lattice, so only a change of one tile against the others is
  an action.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Mapping

from tablecam.rules.enix.energies import ENERGIES, SOLAR
from tablecam.rules.enix.lattice import Cell, neighbours
from tablecam.rules.linecheck import joined


@dataclass(frozen=True)
class Placed:
    """One energy tile: its cell and its turn (sixths of a full turn clockwise, 0..5, relative to the lattice)."""

    energy: str
    cell: Cell
    turn: int = 0


@dataclass(frozen=True)
class Layout:
    """The tiles on the table, in ENERGIES order (each energy at most once)."""

    tiles: tuple[Placed, ...]

    @classmethod
    def of(cls, tiles: Iterable[Placed]) -> "Layout":
        tiles = list(tiles)
        names = [t.energy for t in tiles]
        duplicates = [e for e, n in Counter(names).items() if n > 1]
        if duplicates:
            raise ValueError(f"the layout holds {joined(duplicates)} more than once")
        cells = Counter(t.cell for t in tiles)
        if any(n > 1 for n in cells.values()):
            stacked = [t.energy for t in tiles if cells[t.cell] > 1]
            raise ValueError(f"{joined(stacked)} lie on the same place")
        return cls(tuple(sorted(tiles, key=lambda t: ENERGIES.index(t.energy))))

    def get(self, energy: str) -> Placed | None:
        for tile in self.tiles:
            if tile.energy == energy:
                return tile
        return None

    def at(self, cell: Cell) -> str | None:
        for tile in self.tiles:
            if tile.cell == cell:
                return tile.energy
        return None

    @property
    def cells(self) -> dict[str, Cell]:
        return {t.energy: t.cell for t in self.tiles}

    def with_tile(self, placed: Placed) -> "Layout":
        return Layout.of([t for t in self.tiles if t.energy != placed.energy] + [placed])

    def shifted(self, offset: Cell) -> "Layout":
        """The same layout described from a lattice whose origin is at `offset`."""
        return Layout(tuple(Placed(t.energy, (t.cell[0] - offset[0], t.cell[1] - offset[1]), t.turn)
                            for t in self.tiles))


def groups(cells: Iterable[Cell]) -> list[set[Cell]]:
    """The edge-connected groups of the given cells, largest first."""
    todo = set(cells)
    found = []
    while todo:
        start = todo.pop()
        group, frontier = {start}, [start]
        while frontier:
            for n in neighbours(frontier.pop()):
                if n in todo:
                    todo.discard(n)
                    group.add(n)
                    frontier.append(n)
        found.append(group)
    return sorted(found, key=len, reverse=True)


def is_connected(layout: Layout) -> bool:
    return len(groups(t.cell for t in layout.tiles)) <= 1


def split_reason(layout: Layout) -> str:
    """Why a layout is not one group, naming the tiles cut off from the largest group."""
    parts = groups(t.cell for t in layout.tiles)
    cut = [layout.at(c) for group in parts[1:] for c in sorted(group)]
    return f"the layout would split: {joined(cut)} would not touch the rest"


@dataclass(frozen=True)
class Verdict:
    legal: bool
    reason: str


def check_setup(layout: Layout, pawn_tiles: Mapping[str, str | None] | None = None) -> Verdict:
    """The setup rule: solar in the middle, each other tile beside solar and beside another outer tile,
    every pawn on solar."""
    missing = [e for e in ENERGIES if layout.get(e) is None]
    if missing:
        return Verdict(False, f"the setup needs all six tiles; {joined(missing)} {'is' if len(missing) == 1 else 'are'} not seen")
    solar = layout.get(SOLAR).cell
    ring = set(neighbours(solar))
    outer = [t for t in layout.tiles if t.energy != SOLAR]
    away = [t.energy for t in outer if t.cell not in ring]
    if away:
        return Verdict(False, f"at setup every tile touches solar; {joined(away)} {_does(away)} not")
    lonely = [t.energy for t in outer
              if not any(layout.at(n) not in (None, SOLAR) for n in neighbours(t.cell))]
    if lonely:
        return Verdict(False, f"at setup every outer tile touches another outer tile; {joined(lonely)} {_does(lonely)} not")
    astray = sorted(colour for colour, tile in (pawn_tiles or {}).items() if tile != SOLAR)
    if astray:
        return Verdict(False, f"all pawns start on solar; the {joined(astray)} pawn is not there")
    return Verdict(True, "solar is in the middle with the five other tiles around it")


def _does(names: list) -> str:
    return "does" if len(names) == 1 else "do"


def destinations(layout: Layout, energy: str) -> list[Cell]:
    """Every empty cell the tile may legally move to (the layout stays one group), sorted."""
    tile = layout.get(energy)
    rest = [t for t in layout.tiles if t.energy != energy]
    taken = {t.cell for t in rest}
    candidates = {n for t in rest for n in neighbours(t.cell)} - taken - {tile.cell}
    return sorted(c for c in candidates
                  if is_connected(Layout(tuple(rest) + (Placed(energy, c, tile.turn),))))


def is_cut_tile(layout: Layout, energy: str) -> bool:
    """True when lifting this tile would split the others: the seed's "may only be rotated" case."""
    return len(groups(t.cell for t in layout.tiles if t.energy != energy)) > 1


@dataclass(frozen=True)
class Change:
    """What happened between two layouts: kind is none, rotate, move, illegal or unexplained."""

    kind: str
    legal: bool
    reason: str
    energy: str | None = None
    before: Placed | None = None
    after: Placed | None = None


def best_offset(before: Layout, after: Layout) -> Cell:
    """The shift of the lattice origin that keeps the most tiles in place (the layout bumped as a whole).

    Ties keep no shift, so a single moved tile never re-anchors the layout.
    """
    offsets = Counter()
    for tile in after.tiles:
        old = before.get(tile.energy)
        if old is not None:
            offsets[(tile.cell[0] - old.cell[0], tile.cell[1] - old.cell[1])] += 1
    if not offsets:
        return (0, 0)
    top = max(offsets.values())
    return (0, 0) if offsets.get((0, 0), 0) == top else max(offsets, key=offsets.get)


def classify(before: Layout, after: Layout) -> Change:
    """One change of layout as one action: rotate, move, illegal move (split) — or unexplained."""
    changed = [t for t in after.tiles if before.get(t.energy) != t]
    if not changed:
        return Change("none", True, "the layout did not change")
    if len(changed) > 1:
        names = joined(t.energy for t in changed)
        return Change("unexplained", False,
                      f"{names} changed at once; one action turns or moves a single tile")
    tile = changed[0]
    old = before.get(tile.energy)
    if old is None:
        return Change("unexplained", False, f"{tile.energy} appeared on the layout", tile.energy, None, tile)
    if old.cell == tile.cell:
        sixths = (tile.turn - old.turn) % 6
        return Change("rotate", True, f"{tile.energy} was turned {sixths * 60} degrees in place",
                      tile.energy, old, tile)
    if not is_connected(after):
        why = split_reason(after)
        if is_cut_tile(before, tile.energy):
            why += f"; {tile.energy} holds the layout together, so it may only be turned unless its new place reconnects everything"
        return Change("illegal", False, why, tile.energy, old, tile)
    turned = " and turned" if tile.turn != old.turn else ""
    return Change("move", True, f"{tile.energy} was moved{turned}; the layout stays one group",
                  tile.energy, old, tile)
