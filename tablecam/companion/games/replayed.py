"""What the ENIX, Stixx and Enigmo sessions share: a game followed by feeding its one Replay.

Each game's rules live in `tablecam.rules.<game>.replay.Replay`; a session only feeds it the
stable readings and the players' taps (as that Replay's own input lines), turns its events into
history entries and banners, and asks `Replay.view()` what the page shows. Rebuilding a session
from the stored inputs replays the same lines, so an undo is just a rebuild without one of them.
"""

from __future__ import annotations

import math
from typing import Callable

from tablecam.companion.i18n import both, both_of
from tablecam.errors import UserError

Project = Callable[[list[tuple[float, float]]], list[tuple[float, float]]]
Say = Callable[[dict, str], str]


def entry(input_id: int, at: float, kind: str, text: dict, level: str = "info", undoable: bool = False) -> dict:
    return {"id": input_id, "at": at, "kind": kind, "text": text, "level": level, "undoable": undoable}


def hands_over(obs: dict) -> bool:
    return any("hand" in str(w).lower() for w in obs.get("warnings", []))


def unmatched(a: list, b: list, slack_mm: float, key: Callable[[dict], object]) -> int:
    """How many items of `a` have no counterpart of their own in `b` (same key, within `slack_mm`)."""
    free = list(b)
    missing = 0
    for item in a:
        ax, ay = item["center_mm"]
        for j, other in enumerate(free):
            bx, by = other["center_mm"]
            if key(item) == key(other) and math.hypot(ax - bx, ay - by) <= slack_mm:
                del free[j]
                break
        else:
            missing += 1
    return missing


def matched(a: list, b: list, slack_mm: float, key: Callable[[dict], object]) -> bool:
    """Every item of `a` has its own counterpart in `b` with the same key within `slack_mm`."""
    return len(a) == len(b) and unmatched(a, b, slack_mm, key) == 0


def check_players(players: object, game: str, colours: tuple[str, ...], low: int, high: int) -> list[dict]:
    """[{"name", "stone_colour"}] checked, or a UserError sentence (the colour is the player's badge)."""
    if not isinstance(players, list) or not low <= len(players) <= high:
        raise UserError(f"{game} needs {low} to {high} players.")
    out = []
    for n, p in enumerate(players, start=1):
        if not isinstance(p, dict):
            raise UserError(f"player {n} must be an object with a name and a colour.")
        name = p.get("name")
        colour = p.get("stone_colour", p.get("colour"))
        if not isinstance(name, str) or not name.strip() or len(name.strip()) > 24:
            raise UserError(f"player {n} needs a name of 1 to 24 characters.")
        if colour not in colours:
            raise UserError(f"player {n}'s colour must be one of {', '.join(colours)}.")
        out.append({"name": name.strip(), "stone_colour": colour})
    if len({p["stone_colour"] for p in out}) != len(out):
        raise UserError("two players cannot have the same colour.")
    if len({p["name"].lower() for p in out}) != len(out):
        raise UserError("two players cannot have the same name.")
    return out


def player_index(value: object, players: list[dict]) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < len(players):
        raise UserError(f"player must be a number from 0 to {len(players) - 1}.")
    return value


def flag(payload: dict, key: str, default: bool | None = None) -> bool:
    value = payload.get(key, default)
    if not isinstance(value, bool):
        raise UserError(f"{key} must be true or false.")
    return value


class ReplaySession:
    """A game fed to its Replay. Subclasses set `say`, `replay`, `players` and override the hooks."""

    say: Say
    END_EVENTS = ("final", "end")

    def __init__(self) -> None:
        self.history: list[dict] = []
        self.banner: dict | None = None
        self.last_stable: dict | None = None
        self.over = False
        self.final: dict | None = None
        self.last_event: dict | None = None

    def text(self, event: dict) -> dict:
        return both_of(lambda lang: type(self).say(event, lang))

    def feed(self, line: dict, input_id: int, at: float, kind: str, undoable: bool) -> list[dict]:
        """One line to the Replay; a line it refuses is a UserError for a tap, a warning for a reading."""
        try:
            events = self.replay.feed(line)
        except ValueError as exc:
            if kind != "stable":
                raise UserError(f"this cannot be taken into account: {exc}.") from None
            said = {"event": "unreadable", "reason": str(exc)}
            text = both_of(lambda lang: type(self).say(said, lang))
            self.banner = {"level": "warning", "text": text, "confirm": False}
            return [entry(input_id, at, kind, text, "warning")]
        if kind == "stable":
            self.last_stable = line
        return self.entries(events, input_id, at, kind, undoable)

    def level(self, event: dict) -> str:
        if event["event"] in self.END_EVENTS and event.get("over", True):
            return "final"
        if event["event"] == "unexplained" or event.get("legal") is False:
            return "warning"
        return "info"

    def entries(self, events: list[dict], input_id: int, at: float, kind: str, undoable: bool) -> list[dict]:
        out = []
        for event in events:
            self.seen(event)
            text = self.text(event)
            level = self.level(event)
            if level == "final":
                self.over = True
                self.final = self.ranking(event)
            self.banner = {"level": level, "text": text, "confirm": False}
            self.last_event = event
            out.append(entry(input_id, at, kind, text, level))
        if kind != "stable" and not events:
            out.append(entry(input_id, at, kind, both("tap_noted"), "info"))
        if undoable and out:
            out[-1]["undoable"] = True  # one undo button per tap, on its newest line (shown first)
        return out

    def seen(self, event: dict) -> None:
        """Hook: a game follows what it needs of each event (before it is said)."""

    def finish(self, input_id: int, at: float) -> list[dict]:
        # The players ended it: whatever the engine's own end condition says, this is the end.
        events = [dict(e, over=True) if e["event"] in self.END_EVENTS else e for e in self.replay.finish()]
        entries = self.entries(events, input_id, at, "finish", True)
        self.over = True
        if not entries:
            entries = [entry(input_id, at, "finish", both("finished_by_players"), "final", True)]
        return entries

    def ranking(self, event: dict) -> dict | None:
        """{"ranking": [{"name", "stone_colour", "score"}]} from a final event (override)."""
        return None


def rounded(points) -> list[list[float]]:
    return [[round(float(x), 4), round(float(y), 4)] for x, y in points]


def ring(centre: tuple[float, float], radius: float, n: int = 12) -> list[tuple[float, float]]:
    """A circle as a polygon in table mm: it stays right under the picture's perspective."""
    cx, cy = centre
    return [(cx + radius * math.cos(2 * math.pi * k / n), cy + radius * math.sin(2 * math.pi * k / n)) for k in range(n)]
