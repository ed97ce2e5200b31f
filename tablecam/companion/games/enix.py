"""ENIX on the live table: the layout, the last tile action, where a pawn may walk, the cap, the
order of play and the final scores from the cards laid out.

The rules are `tablecam.rules.enix.replay.Replay`. Players are known to it by their pawn colour
and sit where the simulator's `default_seats` puts them (near and far edges, in turn), so each
face-up card belongs to the nearest seat. Who ends the game the camera cannot see: that is a tap
with the PIN (`{"end": colour}`); the hands then laid out face up at the seats are scored when
the players tap "End the game".
"""

from __future__ import annotations

from tablecam.companion import narrate
from tablecam.companion.games.replayed import (Project, ReplaySession, check_players as _check, hands_over,
                                               matched, player_index, ring, rounded)
from tablecam.companion.i18n import both
from tablecam.errors import UserError
from tablecam.rules.enix.energies import PAWN_COLOURS
from tablecam.rules.enix.game import default_seats
from tablecam.rules.enix.replay import Replay

NAME = "enix"
TITLE = "ENIX"
STONE_COLOURS = PAWN_COLOURS + ("red", "blue", "green", "yellow")  # the players' pawn colours
MIN_PLAYERS, MAX_PLAYERS = 2, 6
CORRECTIONS = ("end", "finish")
TILE_SLACK = 0.25  # share of a tile's width a tile may wander between two readings of one table
PAWN_SLACK_MM = 10.0
CARD_SLACK_MM = 15.0
TURN_SLACK_DEG = 15.0


def disturbed(obs: dict) -> bool:
    """Hands over the table, no layout, or a tile not read: wait."""
    hexes = obs.get("hexes") or []
    return hands_over(obs) or not hexes or any(h.get("energy") is None for h in hexes)


def _turn_close(a: dict, b: dict) -> bool:
    ra, rb = a.get("rotation"), b.get("rotation")
    if ra is None or rb is None:
        return True
    d = abs(float(ra) - float(rb)) % 360.0
    return min(d, 360.0 - d) <= TURN_SLACK_DEG


def same_state(a: dict, b: dict) -> bool:
    pitch = 110.9
    ha, hb = a.get("hexes") or [], b.get("hexes") or []
    if not matched(ha, hb, TILE_SLACK * pitch, lambda h: h.get("energy")):
        return False
    by_energy = {h.get("energy"): h for h in hb}
    if not all(_turn_close(h, by_energy[h.get("energy")]) for h in ha):
        return False
    ca, cb = a.get("cap"), b.get("cap")
    if (ca is None) != (cb is None) or (ca and not matched([ca], [cb], TILE_SLACK * pitch, lambda c: 0)):
        return False
    up = lambda obs: [c for c in obs.get("cards") or [] if c.get("face_up")]  # noqa: E731
    return (matched(list(a.get("pawns") or []), list(b.get("pawns") or []), PAWN_SLACK_MM, lambda p: p.get("colour"))
            and matched(up(a), up(b), CARD_SLACK_MM, lambda c: (c.get("energy"), c.get("value"))))


def check_players(players: object) -> list[dict]:
    return _check(players, "ENIX", STONE_COLOURS, MIN_PLAYERS, MAX_PLAYERS)


class Session(ReplaySession):
    say = staticmethod(narrate.enix)

    def __init__(self, players: list[dict]) -> None:
        super().__init__()
        self.players = check_players(players)
        self.names = {p["stone_colour"]: p["name"] for p in self.players}
        seats = default_seats(tuple(self.names))
        self.replay = Replay()
        self.replay.feed({"players": [{"colour": c, "seat_mm": list(seats[c])} for c in self.names]})
        self.order: list[str] | None = None
        self.ended_by: str | None = None
        self.last_layout: dict | None = None

    def text(self, event: dict) -> dict:
        # The engine names players by pawn colour; the page says their names too.
        return {lang: narrate.with_names(t, self.names) for lang, t in super().text(event).items()}

    def apply(self, kind: str, payload: dict, input_id: int = 0, at: float = 0.0) -> list[dict]:
        if kind == "stable":
            return [] if self.over else self.feed(payload, input_id, at, kind, False)
        if self.over:
            raise UserError("the game is over: start a new game.")
        if kind == "end":
            if self.ended_by is not None:
                raise UserError("the game was already ended: lay out your cards, then tap End the game.")
            colour = self.players[player_index(payload.get("player"), self.players)]["stone_colour"]
            entries = self.feed({"end": colour}, input_id, at, kind, True)
            self.ended_by = colour
            text = both("enix_ended", name=self.names[colour])
            self.banner = {"level": "info", "text": text, "confirm": False}
            noted = both("tap_noted")
            return [dict(e, text=text) if e["text"] == noted else e for e in entries]
        if kind == "finish":
            return self.finish(input_id, at)
        raise UserError(f"unknown change {kind!r}.")

    def seen(self, event: dict) -> None:
        if event["event"] == "order" and event.get("order"):
            self.order = list(event["order"])
        if event["event"] == "layout":
            self.last_layout = event

    def ranking(self, event: dict) -> dict | None:
        scores = event.get("scores")
        if not scores:
            return None
        def worth(colour: str) -> float:
            s = scores.get(colour)
            return float(s) if isinstance(s, (int, float)) else -1.0
        out = set(event.get("out") or [])
        winners = set(event.get("winners") or [])
        order = sorted(self.players, key=lambda p: (p["stone_colour"] not in winners, p["stone_colour"] in out,
                                                    -worth(p["stone_colour"])))
        return {"ranking": [{"name": p["name"], "stone_colour": p["stone_colour"],
                             "score": scores.get(p["stone_colour"]), "out": p["stone_colour"] in out}
                            for p in order], "winners": [self.names.get(w, w) for w in winners]}

    # ---- the page ----------------------------------------------------------------------------------
    def todo(self, v: dict) -> dict:
        if self.over:
            return {} if self.final else both("enix_no_hands")
        if self.ended_by is not None:
            return both("enix_lay_out", name=self.names[self.ended_by])
        if v.get("layout") is None:
            return both("enix_setup")
        if not self.order:
            return both("enix_reveal")
        return both("enix_order", names=", ".join(self.names.get(c, c) for c in self.order))

    def view(self, project: Project | None = None) -> dict:
        v = self.replay.view()
        totals = v.get("totals") or {}
        pawns = v.get("pawns") or {}
        scores = (self.final or {}).get("ranking")
        final_score = {r["stone_colour"]: r["score"] for r in scores} if scores else {}
        players = []
        for p in self.players:
            c = p["stone_colour"]
            walk = (v.get("walks") or {}).get(c)
            players.append({"name": p["name"], "stone_colour": c, "total": totals.get(c), "on": pawns.get(c),
                            "score": final_score.get(c, totals.get(c, "–")),
                            "place": (self.order.index(c) + 1) if self.order and c in self.order else None,
                            "reachable": walk["reachable"] if walk else None, "to_move": False})
        last = self.last_layout
        return {"game": NAME, "players": players, "over": self.over, "final": self.final, "banner": self.banner,
                "todo": self.todo(v), "confirm": False,
                "enix": {"order": [self.names.get(c, c) for c in self.order or []], "cap": v.get("cap"),
                         "cut_tiles": v.get("cut_tiles", []), "ended_by": self.names.get(self.ended_by or ""),
                         "last_layout": None if last is None else {"kind": last["kind"], "legal": last["legal"],
                                                                   "tile": last.get("tile"), "text": self.text(last)}},
                "board": self._board(v, project)}

    def _board(self, v: dict, project: Project | None) -> dict:
        """Each tile as a ring in normalised picture coordinates, with what the page marks on it."""
        layout = v.get("layout")
        if not layout or project is None:
            return {"tiles": []}
        radius = 0.45 * self.replay.state.pitch
        reach: dict[str, dict[str, int]] = {c: w["reachable"] for c, w in (v.get("walks") or {}).items()}
        bad = self.last_layout["tile"] if self.last_layout and not self.last_layout["legal"] else None
        tiles = []
        for energy, tile in layout.items():
            flat = project(ring(tuple(tile["center_mm"]), radius) + [tuple(tile["center_mm"])])
            tiles.append({"energy": energy, "poly": rounded(flat[:-1]), "label": rounded(flat[-1:])[0],
                          "cut": energy in v.get("cut_tiles", []), "cap": v.get("cap") == energy,
                          "illegal": energy == bad,
                          "reach": {c: r[energy] for c, r in reach.items() if energy in r}})
        return {"tiles": tiles}
