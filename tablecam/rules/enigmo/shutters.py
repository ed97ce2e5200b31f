"""Enigmo shutters: what a roll allows, whether an opening matches it, and the points at stake.

Shutters are named by their label, 1..10 from left to right; `open` is a tuple of ten
booleans in that order (index = label − 1), as in the Observation.

Rules (enigmo.md): roll both dice and use both values in one of three ways: open the
shutter of the sum (not when the sum is above 9); open the shutter of the difference;
open both shutters of the single values, only if both are still closed. A double allows
only the sum or shutter 0. If a shutter can be opened it must be; if every option's
shutter is already open, nothing opens. The points at stake are the sum of the labels
of the shutters still closed, doubled for a red word.

Ruling (from enigmo.md): the shutter labelled 10 is "shutter 0": only the 0 of a
double's difference opens it, and closed it is worth 10 points.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from tablecam.rules.linecheck import joined

SHUTTERS = 10
ZERO = 10  # the label of "shutter 0"
MAX_SUM = 9


def name(label: int) -> str:
    return "shutter 0 (labelled 10)" if label == ZERO else f"shutter {label}"


def names(labels: Iterable[int]) -> str:
    return joined(name(label) for label in sorted(labels))


@dataclass(frozen=True)
class Way:
    """One way to use a roll: which shutters it opens."""

    kind: str  # "sum", "difference", "zero" (a double's difference) or "singles"
    shutters: tuple[int, ...]

    @property
    def phrase(self) -> str:
        return {"sum": "the sum", "difference": "the difference", "zero": "the double's 0",
                "singles": "both single values"}[self.kind]

    def describe(self) -> str:
        return f"{names(self.shutters)} by {self.phrase}"


def alternatives(allowed: list[Way]) -> str:
    """'shutter 7 by the sum, shutter 1 by the difference or shutter 3 and shutter 4 by both single values'."""
    parts = [w.describe() for w in allowed]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]


def ways(dice: tuple[int, int]) -> list[Way]:
    """Every way the roll could be used on an all-closed row."""
    a, b = dice
    if not (1 <= a <= 6 and 1 <= b <= 6):
        raise ValueError(f"dice show 1 to 6, not {a} and {b}")
    found = []
    if a + b <= MAX_SUM:
        found.append(Way("sum", (a + b,)))
    if a == b:
        found.append(Way("zero", (ZERO,)))
    else:
        found.append(Way("difference", (abs(a - b),)))
        found.append(Way("singles", tuple(sorted((a, b)))))
    return found


def options(dice: tuple[int, int], open_: tuple[bool, ...]) -> list[Way]:
    """The ways the roll allows now: every shutter they open must still be closed."""
    return [w for w in ways(dice) if all(not open_[label - 1] for label in w.shutters)]


def closed(open_: tuple[bool, ...]) -> tuple[int, ...]:
    return tuple(label for label in range(1, SHUTTERS + 1) if not open_[label - 1])


def points_at_stake(open_: tuple[bool, ...], red: bool = False) -> int:
    """Sum of the labels of the closed shutters (shutter 0 is worth 10), doubled for a red word."""
    return sum(closed(open_)) * (2 if red else 1)


@dataclass(frozen=True)
class Opening:
    legal: bool
    complete: bool  # the shutters opened are a whole option (or nothing had to open)
    reason: str


def check_opening(dice: tuple[int, int], before: tuple[bool, ...], opened: frozenset[int]) -> Opening:
    """Were the shutters opened since the roll (all of them so far) what the roll allows?"""
    allowed = options(dice, before)
    roll = f"the roll {dice[0]} and {dice[1]}"
    if not opened:
        if allowed:
            return Opening(False, False, f"{roll} had to open {alternatives(allowed)}, "
                                         "but no shutter was opened")
        return Opening(True, True, f"{roll} opens nothing: every shutter it allows is already open")
    for way in allowed:
        if set(way.shutters) == opened:
            return Opening(True, True, f"{roll} opens {names(opened)} by {way.phrase}")
    for way in allowed:
        if opened < set(way.shutters):
            rest = set(way.shutters) - opened
            return Opening(True, False, f"{roll} opens both single values: {names(rest)} must open too")
    if not allowed:
        return Opening(False, True, f"{names(opened)} opened, but {roll} allows nothing: "
                                    "every shutter it names is already open")
    return Opening(False, True, f"{names(opened)} opened, but {roll} allows only "
                                f"{alternatives(allowed)}")
