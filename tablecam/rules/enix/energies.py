"""The ENIX components the rules need: energies, pawn colours and the ray table.

Sides of a hex are numbered 0..5 clockwise from the top side at rotation 0
(enix.md). A ray runs from the centre to the middle of a side and carries 0, 1 or 2
path points; `None` means there is no ray on that side. The ray table is the
project's *model* (enix.md): a physical set may differ, so it is a value passed
to every function that needs it, never a constant hidden inside them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

SOLAR = "solar"
ENERGIES = ("solar", "water", "geothermal", "waves", "wind", "biomass")
ENIX_CARD = "enix"  # the goblin card: no value, halves the final total, moves the cap
# The seed does not name the pawns' six colours, so any name is accepted in an Observation (the
# vision's colour model is taught from the real set). These are the names random play uses;
# they match the simulator's renders (chosen to stand apart from every energy colour).
PAWN_COLOURS = ("white", "black", "pink", "cyan", "brown", "lime")
SIDES = 6

DEFAULT_RAYS: dict[str, tuple[int | None, ...]] = {
    "solar": (1, 0, 2, 1, 0, 2),
    "water": (0, None, 1, 2, None, 1),
    "geothermal": (2, 1, None, 0, 1, None),
    "waves": (None, 0, 2, None, 1, 0),
    "wind": (1, None, 0, 2, 0, None),
    "biomass": (0, 2, None, 1, None, 1),
}


@dataclass(frozen=True)
class RayTable:
    """Path points per side of each energy tile (None = no ray on that side)."""

    rays: tuple[tuple[str, tuple[int | None, ...]], ...]

    def points(self, energy: str, side: int) -> int | None:
        return dict(self.rays)[energy][side % SIDES]

    @classmethod
    def default(cls) -> "RayTable":
        return cls.from_mapping(DEFAULT_RAYS)

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, object]) -> "RayTable":
        """A ray table from {energy: [6 × (0|1|2|null)]}; energies left out keep the default.

        Raises ValueError with one sentence when an entry is not six rays of 0, 1, 2 or null.
        """
        if not isinstance(mapping, Mapping):
            raise ValueError("the ray table must map energies to six rays each")
        merged = dict(DEFAULT_RAYS)
        for energy, rays in mapping.items():
            if energy not in ENERGIES:
                raise ValueError(f"the ray table names {energy!r}, which is not one of {', '.join(ENERGIES)}")
            if (not isinstance(rays, (list, tuple)) or len(rays) != SIDES
                    or any(r is not None and (isinstance(r, bool) or r not in (0, 1, 2)) for r in rays)):
                raise ValueError(f"the rays of {energy} must be six entries, each 0, 1, 2 or null")
            merged[energy] = tuple(rays)
        return cls(tuple((e, tuple(merged[e])) for e in ENERGIES))
