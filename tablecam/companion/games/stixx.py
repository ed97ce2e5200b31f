"""Stixx on the live table: the sticks that may be taken, highlighted on the picture, counts, the end.

The rules are `tablecam.rules.stixx.replay.Replay` (the same class `tablecam replay stixx` uses).
The camera sees sticks leave their grooves; what it cannot see — a player showing their secret
colour, or naming another player's colour right or wrong — is a tap with the PIN, fed to the
Replay as its own `{"declare": ...}` line.
"""

from __future__ import annotations

from tablecam.companion import narrate
from tablecam.companion.games.replayed import (Project, ReplaySession, check_players as _check, flag,
                                               hands_over, matched, player_index, rounded)
from tablecam.companion.i18n import both
from tablecam.errors import UserError
from tablecam.rules.stixx.basic import COLOURS, MARKER
from tablecam.rules.stixx.board import board_xy, ends
from tablecam.rules.stixx.replay import Replay

NAME = "stixx"
TITLE = "Stixx"
# Badges for the page only: a player's stick colour is secret until shown, so it cannot be asked here.
STONE_COLOURS = ("black", "white", "pink", "teal", "brown", "navy")
MIN_PLAYERS, MAX_PLAYERS = 2, 6
CORRECTIONS = ("reveal", "guess", "finish")
STICK_SLACK_MM = 12.0  # two readings of a stick in its groove differ by less than this


def disturbed(obs: dict) -> bool:
    """Hands over the board, or no board: wait."""
    return hands_over(obs) or not obs.get("board")


def _in_groove(obs: dict) -> list[dict]:
    return [s for s in obs.get("sticks", []) if s.get("center_mm") is not None]


def same_state(a: dict, b: dict) -> bool:
    return matched(_in_groove(a), _in_groove(b), STICK_SLACK_MM, lambda s: (s.get("colour"), s.get("slot")))


def check_players(players: object) -> list[dict]:
    return _check(players, "Stixx", STONE_COLOURS, MIN_PLAYERS, MAX_PLAYERS)


class Session(ReplaySession):
    say = staticmethod(narrate.stixx)

    def __init__(self, players: list[dict]) -> None:
        super().__init__()
        self.players = check_players(players)
        self.replay = Replay()
        self.replay.feed({"players": [p["name"] for p in self.players], "variant": "basic"})

    def apply(self, kind: str, payload: dict, input_id: int = 0, at: float = 0.0) -> list[dict]:
        if kind == "stable":
            return [] if self.over and self.final else self.feed(payload, input_id, at, kind, False)
        if kind == "reveal":
            # A reveal after the end is how the winner gets called: allowed while the winner is unknown.
            if self.over and self.final:
                raise UserError("the game is over: start a new game.")
            player = self.players[player_index(payload.get("player"), self.players)]["name"]
            return self.feed({"declare": {"player": player, "reveal": self._colour(payload)}}, input_id, at, kind, True)
        if self.over:
            raise UserError("the game is over: start a new game.")
        if kind == "guess":
            player = self.players[player_index(payload.get("player"), self.players)]["name"]
            line: dict = {"player": player, "guess": self._colour(payload), "right": flag(payload, "right")}
            if payload.get("of") is not None:
                line["of"] = self.players[player_index(payload.get("of"), self.players)]["name"]
            return self.feed({"declare": line}, input_id, at, kind, True)
        if kind == "finish":
            return self.finish(input_id, at)
        raise UserError(f"unknown change {kind!r}.")

    @staticmethod
    def _colour(payload: dict) -> str:
        colour = payload.get("colour")
        if colour not in COLOURS:
            raise UserError(f"colour must be one of {', '.join(COLOURS)}.")
        return colour

    def ranking(self, event: dict) -> dict | None:
        if not event.get("winners"):
            return None  # a colour is still secret: the page asks for the reveal
        rows = event["standings"]
        order = sorted(self.players, key=lambda p: (p["name"] not in event["winners"],
                                                    -(rows[p["name"]].get("own") or 0), -rows[p["name"]]["total"]))
        return {"ranking": [{"name": p["name"], "stone_colour": p["stone_colour"],
                             "score": rows[p["name"]].get("own") or 0} for p in order],
                "winners": event["winners"]}

    def finish(self, input_id: int, at: float) -> list[dict]:
        entries = super().finish(input_id, at)
        self.over = True
        return entries

    # ---- the page ----------------------------------------------------------------------------------
    def todo(self, view: dict) -> dict:
        if self.over:
            secret = [p["name"] for p in self.players if p["name"] not in view.get("colours", {})]
            if self.final is None and secret:
                return both("stixx_reveal_to_win", names=", ".join(secret))
            return {}
        if view.get("sticks") is None:
            return both("stixx_lay_board")
        name, left = view["on_turn"], view["picks_left"]
        if view.get("marker") is None:
            return both("stixx_first_pick", name=name)
        return both("stixx_pick", name=name, n=left)

    def view(self, project: Project | None = None) -> dict:
        v = self.replay.view()
        taken = v.get("taken", {})
        colours = v.get("colours", {})
        players = []
        for p in self.players:
            mine = taken.get(p["name"], [])
            colour = colours.get(p["name"])
            own = sum(1 for c in mine if c == colour) if colour else None
            players.append({"name": p["name"], "stone_colour": p["stone_colour"], "colour": colour,
                            "taken": len(mine), "own": own, "score": own if own is not None else len(mine),
                            "to_move": v.get("on_turn") == p["name"] and not self.over})
        return {"game": NAME, "players": players, "over": self.over, "final": self.final, "banner": self.banner,
                "todo": self.todo(v), "confirm": False, "colours": list(COLOURS),
                "stixx": {k: v.get(k) for k in ("options", "picks_left", "marker", "on_board", "over")},
                "board": self._board(v, project)}

    def _board(self, v: dict, project: Project | None) -> dict:
        """The sticks that may be taken and the marker as segments in normalised picture coordinates."""
        pose = self.replay.state.pose
        out: dict = {"options": [], "marker": None}
        if pose is None or project is None or v.get("sticks") is None:
            return out

        def segment(slot: int) -> list[list[float]]:
            # A groove's ends are its two intersections, one pitch apart.
            a, b = ends(slot)
            return rounded(project([pose.to_table(board_xy(a, pose.pitch)), pose.to_table(board_xy(b, pose.pitch))]))

        out["options"] = [{"slot": s, "colour": v["sticks"].get(str(s)), "line": segment(s)} for s in v.get("options") or []]
        if v.get("marker") is not None:
            out["marker"] = {"slot": v["marker"], "line": segment(v["marker"]), "colour": MARKER}
        return out

