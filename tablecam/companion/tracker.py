"""From a stream of noisy readings to stable table states (the debounce between vision and rules).

A reading becomes a stable state only when `hold` readable frames IN A ROW agree on it. A frame
made while hands are over the table (or with a tile the recogniser could not read), and a frame
with no reading at all, are never a change: they break the run, so a state must be seen again
whole, `hold` times, after the hand has gone. A change the game calls doubtful (micropul: more
than one tile appeared or vanished at once, which is what a hand hiding part of the board looks
like when the recogniser does not notice the hand) must hold `doubt_hold` frames: a real
change stays, a partial view does not. Whether two readings show the same table, whether a
reading is disturbed and whether a change is plausible is the game's business
(`tablecam.companion.games.<game>`), so this module is the same for every game.

The phase shown to the players is debounced too: a single frame without a reading (a blur, a
shadow) does not flash "cannot read the table"; only `hold` of them in a row do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

STEADY = "steady"  # the table shows the last stable state
CHANGING = "changing"  # something new is on the table, not yet held long enough
HANDS = "hands"  # hands over the table: changes paused
NO_READING = "no_reading"  # the camera gives nothing readable (no markers, no board)
WAITING = "waiting"  # nothing stable seen yet
DOUBT_FACTOR = 4  # a doubtful change holds this many times longer than a plain one


def _always(last: dict, reading: dict) -> bool:
    return True


@dataclass(frozen=True)
class Step:
    """What one frame did: its phase, and the new stable state when one was just reached."""

    phase: str
    stable: dict | None = None


class StateTracker:
    """Debounces readings; small state (the current run, the last stable reading, the phase)."""

    def __init__(self, same_state: Callable[[dict, dict], bool], disturbed: Callable[[dict], bool],
                 hold: int = 3, plausible: Callable[[dict, dict], bool] | None = None,
                 doubt_hold: int | None = None) -> None:
        if hold < 1:
            raise ValueError("a reading must hold for at least one frame")
        self.same_state = same_state
        self.disturbed = disturbed
        self.plausible = plausible or _always
        self.hold = hold
        self.doubt_hold = max(hold, doubt_hold if doubt_hold is not None else DOUBT_FACTOR * hold)
        self.last_stable: dict | None = None
        self._run: dict | None = None  # the reading the current run agrees with
        self._count = 0
        self._blind = 0  # frames in a row without a reading
        self._phase = WAITING

    def reset(self, last_stable: dict | None = None) -> None:
        """Forget the run; `last_stable` is what the rules already know (after a restart)."""
        self.last_stable = last_stable
        self._run, self._count, self._blind = None, 0, 0

    def _step(self, phase: str, stable: dict | None = None) -> Step:
        self._phase = phase
        return Step(phase, stable)

    def update(self, reading: dict | None) -> Step:
        if reading is None:
            # Nothing readable (a camera hiccup, the board lost for a frame): never a change.
            self._run, self._count = None, 0
            self._blind += 1
            return self._step(NO_READING) if self._blind >= self.hold else Step(self._phase)
        self._blind = 0
        if self.disturbed(reading):
            self._run, self._count = None, 0
            return self._step(HANDS)
        if self._run is not None and self.same_state(self._run, reading):
            self._count += 1
            self._run = reading  # keep the freshest positions of the same state
        else:
            self._run, self._count = reading, 1
        if self.last_stable is not None and self.same_state(self.last_stable, reading):
            # Back to (or still at) the known state: nothing to report, however long it holds.
            return self._step(STEADY)
        doubtful = self.last_stable is not None and not self.plausible(self.last_stable, reading)
        if self._count >= (self.doubt_hold if doubtful else self.hold):
            self.last_stable = reading
            self._run, self._count = reading, 0  # the next change starts its own run
            return self._step(STEADY, stable=reading)
        return self._step(CHANGING if self.last_stable is not None else WAITING)
