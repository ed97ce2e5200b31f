"""The one shape every game's `Replay` has: pure functions over an immutable state.

Each game's `replay.py` writes `parse_line(line)`, `step(state, parsed) -> (state, events)`,
`view(state) -> dict` and its closing events as plain functions (easy to test, nothing
hidden); this class only holds the current state between lines, so the CLI and the
companion can `feed` one line at a time.
"""

from __future__ import annotations

from typing import Any, Callable


class SteppedReplay:
    """`feed(line) -> events`, `finish() -> closing events`, `view() -> the page's picture of now`.

    A malformed line raises ValueError and changes nothing (the state is replaced only after
    the line was parsed and stepped).
    """

    parse: Callable[[dict], Any]
    step: Callable[[Any, Any], tuple[Any, list[dict]]]
    show: Callable[[Any], dict]
    closing: Callable[[Any], list[dict]]

    def __init__(self, state: Any) -> None:
        self.state = state

    def feed(self, line: dict) -> list[dict]:
        self.state, events = type(self).step(self.state, type(self).parse(line))
        return events

    def view(self) -> dict:
        return type(self).show(self.state)

    def finish(self) -> list[dict]:
        return type(self).closing(self.state)
