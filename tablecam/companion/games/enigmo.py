"""Enigmo on the live table: the dice, the shutters they allow, the points at stake, the score pad.

The rules are `tablecam.rules.enigmo.replay.Replay`. The camera sees the dice and the shutters;
whether the word a player proposed was right (and printed in red) it cannot see: that is a tap
with the PIN, fed to the Replay as its own `{"guess": ..., "right": ..., "red": ...}` line.
"""

from __future__ import annotations

from tablecam.companion import narrate
from tablecam.companion.games.replayed import (Project, ReplaySession, check_players as _check, flag, hands_over,
                                               matched, player_index, ring, rounded)
from tablecam.companion.i18n import both
from tablecam.errors import UserError
from tablecam.rules.enigmo.replay import Replay

NAME = "enigmo"
TITLE = "Enigmo"
STONE_COLOURS = ("red", "blue", "green", "yellow", "orange", "purple")  # badges on the page only
MIN_PLAYERS, MAX_PLAYERS = 2, 4
CORRECTIONS = ("word", "finish")
DIE_SLACK_MM = 8.0  # a die lying still reads within this of itself
DIE_MM = 16.0
ROW_NOT_MARKED = "the shutter row is not marked yet"  # how vision.enigmo.NOT_MARKED begins


def disturbed(obs: dict) -> bool:
    """Hands over the table or a die still rolling (unreadable): wait."""
    return hands_over(obs) or any(d.get("value") is None for d in obs.get("dice", []))


def same_state(a: dict, b: dict) -> bool:
    return (list(a.get("shutters") or []) == list(b.get("shutters") or [])
            and matched(list(a.get("dice", [])), list(b.get("dice", [])), DIE_SLACK_MM, lambda d: d.get("value")))


def check_players(players: object) -> list[dict]:
    return _check(players, "Enigmo", STONE_COLOURS, MIN_PLAYERS, MAX_PLAYERS)


class Session(ReplaySession):
    say = staticmethod(narrate.enigmo)

    def __init__(self, players: list[dict]) -> None:
        super().__init__()
        self.players = check_players(players)
        self.replay = Replay()
        self.replay.feed({"players": [p["name"] for p in self.players]})

    def apply(self, kind: str, payload: dict, input_id: int = 0, at: float = 0.0) -> list[dict]:
        if kind == "stable":
            return [] if self.over else self.feed(payload, input_id, at, kind, False)
        if self.over:
            raise UserError("the game is over: start a new game.")
        if kind == "word":
            player = self.players[player_index(payload.get("player"), self.players)]["name"]
            line = {"guess": player, "right": flag(payload, "right"), "red": flag(payload, "red", False)}
            return self.feed(line, input_id, at, kind, True)
        if kind == "finish":
            return self.finish(input_id, at)
        raise UserError(f"unknown change {kind!r}.")

    def ranking(self, event: dict) -> dict | None:
        scores = event.get("scores") or {}
        order = sorted(self.players, key=lambda p: -scores.get(p["name"], 0))
        return {"ranking": [{"name": p["name"], "stone_colour": p["stone_colour"], "score": scores.get(p["name"], 0)}
                            for p in order], "winners": event.get("winners", [])}

    # ---- the page ----------------------------------------------------------------------------------
    def todo(self, v: dict) -> dict:
        if self.over:
            return {}
        if v["roll"] is None or v["roller"] is None:
            return both("enigmo_roll", name=v["next"])
        if v["options"]:
            ways = " / ".join("+".join(str(s) for s in way) for way in v["options"])
            return both("enigmo_open", name=v["roller"], ways=ways)
        return both("enigmo_word", points=v["at_stake"], red=v["at_stake_red"])

    def view(self, project: Project | None = None) -> dict:
        v = self.replay.view()
        scores = v["scores"]
        players = [{"name": p["name"], "stone_colour": p["stone_colour"], "score": scores.get(p["name"], 0),
                    "to_move": (v["roller"] or v["next"]) == p["name"] and not self.over} for p in self.players]
        return {"game": NAME, "players": players, "over": self.over, "final": self.final, "banner": self.banner,
                "todo": self.todo(v), "confirm": False,
                "enigmo": dict({k: v[k] for k in ("shutters", "closed", "at_stake", "at_stake_red", "roll", "roller",
                                                  "options", "round")}, row_unmarked=self.row_unmarked()),
                "board": self._board(project)}

    def row_unmarked(self) -> bool:
        """True when the last stable reading says the shutter row is not marked yet (the page then
        asks for its four corners); False before any reading, so the page never asks needlessly."""
        return any(str(w).startswith(ROW_NOT_MARKED) for w in (self.last_stable or {}).get("warnings", []))

    def _board(self, project: Project | None) -> dict:
        """The dice as read, circled on the picture (the shutters have no place in the reading)."""
        dice = (self.last_stable or {}).get("dice", [])
        if project is None:
            return {"dice": []}
        return {"dice": [{"value": d["value"], "poly": rounded(project(ring(tuple(d["center_mm"]), DIE_MM)))}
                         for d in dice if d.get("value") is not None and d.get("center_mm")]}
