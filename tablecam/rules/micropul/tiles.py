"""The 48 micropul tiles (data/micropul_tiles.json, the official sheet's order) and their faces.

A face is what one sees of a tile lying on the table: the symbol in each quadrant,
named by position in the table frame (ul = nearest the table's top-left corner).
Symbols: W white micropul, B black micropul, 1 one-dot and 2 two-dot catalyst,
+ plus catalyst, . blank. A big tile is one micropul covering the tile (W or B)
with a catalyst ('1' or '+') at its centre.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

QUADRANTS = ("ul", "ur", "lr", "ll")  # clockwise, so a 90-degree turn is a shift by one
MICROPUL = frozenset("WB")
CATALYSTS = frozenset("12+")
SYMBOLS = frozenset("WB12+.")
ROTATIONS = (0, 90, 180, 270)


@dataclass(frozen=True)
class Face:
    """One tile as seen from above: quadrant symbols in table orientation, or a big micropul."""

    ul: str
    ur: str
    lr: str
    ll: str
    big: str | None = None  # "W" or "B" for a big tile; its four quadrants then all hold that colour
    catalyst: str | None = None  # a big tile's central catalyst

    def quadrant(self, name: str) -> str:
        return getattr(self, name)

    def clockwise(self) -> tuple[str, str, str, str]:
        return (self.ul, self.ur, self.lr, self.ll)

    def rotated(self, degrees: int) -> "Face":
        """This face turned clockwise (seen from above) by a multiple of 90 degrees."""
        if degrees % 90:
            raise ValueError(f"a tile turns by multiples of 90 degrees, not {degrees}")
        k = (degrees // 90) % 4
        q = self.clockwise()
        ul, ur, lr, ll = (q[(i - k) % 4] for i in range(4))
        return Face(ul, ur, lr, ll, self.big, self.catalyst)

    def as_dict(self) -> dict:
        """The Observation fields for this face (ARCHITECTURE.md)."""
        if self.big:
            return {"quadrants": None, "big": self.big, "catalyst": self.catalyst}
        return {"quadrants": {"ul": self.ul, "ur": self.ur, "ll": self.ll, "lr": self.lr},
                "big": None, "catalyst": None}


def big_face(colour: str, catalyst: str) -> Face:
    return Face(colour, colour, colour, colour, big=colour, catalyst=catalyst)


@dataclass(frozen=True)
class Tile:
    index: int  # position on the official sheet, row-major
    face: Face  # as printed (rotation 0)

    @property
    def is_big(self) -> bool:
        return self.face.big is not None


@lru_cache(maxsize=1)
def _load() -> tuple[tuple[Tile, ...], int]:
    raw = json.loads(resources.files(__package__).joinpath("data/micropul_tiles.json").read_text())
    tiles = []
    for t in raw["tiles"]:
        if t.get("big"):
            face = big_face(t["big"], t["catalyst"])
        else:
            q = t["quadrants"]
            face = Face(q["ul"], q["ur"], q["lr"], q["ll"])
        tiles.append(Tile(t["index"], face))
    return tuple(tiles), raw["start_tile_index"]


def all_tiles() -> tuple[Tile, ...]:
    return _load()[0]


def start_tile() -> Tile:
    tiles, start = _load()
    return tiles[start]


@lru_cache(maxsize=1)
def _faces() -> dict[Face, tuple[tuple[int, int], ...]]:
    found: dict[Face, list[tuple[int, int]]] = {}
    for tile in all_tiles():
        for rot in ROTATIONS:
            face = tile.face.rotated(rot)
            found.setdefault(face, [])
            if not any(i == tile.index for i, _ in found[face]):
                found[face].append((tile.index, rot))
    return {f: tuple(v) for f, v in found.items()}


def identify(face: Face) -> tuple[tuple[int, int], ...]:
    """Every (tile index, rotation) that shows this face; empty when no micropul tile does.

    Three pairs of tiles are identical up to rotation (34/35, 40/41, 44/45), and a
    symmetric tile shows the same face under several rotations: the first rotation wins.
    """
    return _faces().get(face, ())


def face_from_observation(tile: dict) -> Face | None:
    """The face an Observation tile describes, or None when it was not read (quadrants and big null).

    Raises ValueError with a sentence when a symbol is not a micropul symbol.
    """
    big = tile.get("big")
    if big is not None:
        cat = tile.get("catalyst")
        if big not in MICROPUL:
            raise ValueError(f"big must be W or B, not {big!r}")
        if cat not in ("1", "+"):
            raise ValueError(f"a big tile's catalyst must be 1 or +, not {cat!r}")
        return big_face(big, cat)
    quads = tile.get("quadrants")
    if quads is None:
        return None
    if not isinstance(quads, dict):
        raise ValueError("quadrants must be an object with ul, ur, ll, lr")
    symbols = []
    for name in ("ul", "ur", "lr", "ll"):
        if name not in quads:
            raise ValueError(f"quadrant {name} is missing")
        s = quads[name]
        if s not in SYMBOLS:
            raise ValueError(f"unknown micropul symbol {s!r} in quadrant {name}")
        symbols.append(s)
    return Face(*symbols)
