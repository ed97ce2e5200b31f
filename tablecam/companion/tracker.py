"""From a stream of noisy readings to stable table states (the debounce between vision and rules).

A reading becomes a stable state only after it has held for `hold` frames in a row; a
reading made while hands are over the table pauses everything (it neither starts nor
breaks a run), so a hand reaching in never produces a move. Whether two readings show
the same table, and whether a reading is disturbed by hands, is the game's business
(`tablecam.companion.games.<game>`), so this module is the same for every game.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

STEADY = "steady"  # the table shows the last stable state
CHANGING = "changing"  # something new is on the table, not yet held long enough
HANDS = "hands"  # hands over the table: changes paused
NO_READING = "no_reading"  # the camera gives nothing readable (no markers, no board)
WAITING = "waiting"  # nothing stable seen yet


@dataclass(frozen=True)
class Step:
    """What one frame did: its phase, and the new stable state when one was just reached."""

    phase: str
    stable: dict | None = None


class StateTracker:
    """Debounces readings; small state (the current run and the last stable reading)."""

    def __init__(self, same_state: Callable[[dict, dict], bool], disturbed: Callable[[dict], bool],
                 hold: int = 3) -> None:
        if hold < 1:
            raise ValueError("a reading must hold for at least one frame")
        self.same_state = same_state
        self.disturbed = disturbed
        self.hold = hold
        self.last_stable: dict | None = None
        self._run: dict | None = None  # the reading the current run agrees with
        self._count = 0

    def reset(self, last_stable: dict | None = None) -> None:
        """Forget the run; `last_stable` is what the rules already know (after a restart)."""
        self.last_stable = last_stable
        self._run, self._count = None, 0

    def update(self, reading: dict | None) -> Step:
        if reading is None:
            # Nothing readable (a camera hiccup, the markers covered at start): like a hand, it pauses.
            return Step(NO_READING)
        if self.disturbed(reading):
            return Step(HANDS)
        if self._run is not None and self.same_state(self._run, reading):
            self._count += 1
            self._run = reading  # keep the freshest positions of the same state
        else:
            self._run, self._count = reading, 1
        if self.last_stable is not None and self.same_state(self.last_stable, reading):
            # Back to (or still at) the known state: nothing to report, however long it holds.
            return Step(STEADY)
        if self._count >= self.hold:
            self.last_stable = reading
            return Step(STEADY, stable=reading)
        return Step(CHANGING if self.last_stable is not None else WAITING)
