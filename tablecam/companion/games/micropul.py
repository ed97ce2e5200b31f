"""micropul on the live table: when readings agree, what players hold, what they must do now.

The rules come from `tablecam.rules.micropul.replay.Replay`, the same class `tablecam replay`
uses; this module only adds what a camera cannot see: whose turn it is and the tiles in each
player's hand and reserve, followed from the turn structure (6 tiles in hand at the start; a
tile laid leaves the hand; tiles drawn go to the reserve; "I took a tile from my reserve" is one
tap), and corrected by the players when they disagree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable

from tablecam.companion import narrate
from tablecam.companion.games.replayed import matched, unmatched
from tablecam.companion.i18n import both, both_of
from tablecam.errors import UserError
from tablecam.rules.micropul.board import QUAD_POS, stones_on
from tablecam.rules.micropul.game import HAND_SIZE, STONES_EACH, group_points
from tablecam.rules.micropul.replay import Replay

NAME = "micropul"
TITLE = "micropul"
STONE_COLOURS = ("red", "blue", "green", "yellow")
MIN_PLAYERS, MAX_PLAYERS = 1, 4
CORRECTIONS = ("accept", "reserve", "counts", "turn", "finish")
# Two readings are the same table when every tile lies within this share of a tile side of
# its counterpart with the same face, and every stone within STONE_SLACK with its colour.
TILE_SLACK = 0.35
STONE_SLACK = 0.3

Project = Callable[[list[tuple[float, float]]], list[tuple[float, float]]]


# ---- readings ---------------------------------------------------------------------------------

def _face_key(tile: dict) -> tuple:
    q = tile.get("quadrants")
    quads = tuple(q.get(k) for k in ("ul", "ur", "lr", "ll")) if isinstance(q, dict) else None
    return quads, tile.get("big"), tile.get("catalyst")


def _board_tiles(obs: dict) -> list[dict]:
    return [t for t in obs.get("tiles", []) if not t.get("face_down")]


def _unreadable(tile: dict) -> bool:
    return not isinstance(tile.get("quadrants"), dict) and not tile.get("big")


def disturbed(obs: dict) -> bool:
    """Hands over the table, a tile the detector could not read, or no board at all: wait, do not score.

    A reading without a single tile is never a state the rules need (before the start tile there is
    nothing to follow; a board does not vanish in one move): it is a frame the detector lost."""
    if any("hand" in str(w).lower() for w in obs.get("warnings", [])):
        return True
    tiles = _board_tiles(obs)
    return not tiles or any(_unreadable(t) for t in tiles)


def same_state(a: dict, b: dict) -> bool:
    tile_mm = float(a.get("tile_mm") or b.get("tile_mm") or 30.0)
    return (matched(_board_tiles(a), _board_tiles(b), TILE_SLACK * tile_mm, _face_key)
            and matched(list(a.get("stones", [])), list(b.get("stones", [])), STONE_SLACK * tile_mm,
                        lambda s: s.get("colour")))


def plausible(last: dict, reading: dict) -> bool:
    """One move's worth of change: at most one tile laid, or one tile taken back, not both.

    Players lay one tile (or a stone) at a time and only take back a tile laid illegally, so
    several tiles appearing or vanishing at once, or a tile changing its face where it lies, is
    what a partial view (a hand hiding part of the board unnoticed, a misread) looks like. The
    tracker does not refuse it: it waits longer before believing it, and the rules then report
    it if it stays."""
    tile_mm = float(last.get("tile_mm") or reading.get("tile_mm") or 30.0)
    before, now = _board_tiles(last), _board_tiles(reading)
    vanished = unmatched(before, now, TILE_SLACK * tile_mm, _face_key)
    appeared = unmatched(now, before, TILE_SLACK * tile_mm, _face_key)
    return vanished + appeared <= 1


# ---- what the recogniser remembers between frames ---------------------------------------------

FACE_KEYS = ("quadrants", "big", "catalyst", "rotation", "index")
MEMORY_FRAMES = 12  # a tile not seen at all for longer than this (a hand passes in ~8 frames) is forgotten


def _nearest(tile: dict, others: list[dict], slack_mm: float) -> int | None:
    x, y = tile["center_mm"]
    best, best_d = None, slack_mm
    for j, other in enumerate(others):
        d = math.hypot(other["center_mm"][0] - x, other["center_mm"][1] - y)
        if d <= best_d:
            best, best_d = j, d
    return best


def recogniser_state(previous: dict | None, reading: dict) -> dict:
    """The `state` the recogniser gets with the next frame: this reading, plus the face last read at
    each place where this frame could not read a tile (a stone or a hand over it) or saw none (a
    hand hiding it, for up to MEMORY_FRAMES frames).

    The recogniser settles a quadrant a stone hides from the last reading's face; given only the
    last reading, one frame with a hand over the tile would make it forget that face for good, and
    the tile would stay "unknown" (the game stalled) for as long as the stone lies on it. The
    recogniser still checks a remembered face against what it sees: memory only settles what the
    picture cannot tell."""
    tile_mm = float(reading.get("tile_mm") or (previous or {}).get("tile_mm") or 30.0)
    slack = TILE_SLACK * tile_mm
    known = [t for t in (previous or {}).get("tiles", []) if not t.get("face_down") and not _unreadable(t)]
    tiles, matched = [], set()
    for tile in reading.get("tiles", []):
        j = _nearest(tile, known, slack) if "center_mm" in tile else None
        if j is not None:
            matched.add(j)
            if _unreadable(tile) and not tile.get("face_down"):
                tile = dict(tile, **{k: known[j].get(k) for k in FACE_KEYS if k in known[j]})
        tiles.append({k: v for k, v in tile.items() if k != "unseen"})
    for j, old in enumerate(known):
        unseen = int(old.get("unseen", 0)) + 1
        if j not in matched and unseen <= MEMORY_FRAMES:
            tiles.append(dict(old, unseen=unseen))
    return dict(reading, tiles=tiles)


# ---- players -----------------------------------------------------------------------------------

def check_players(players: object) -> list[dict]:
    """[{"name", "stone_colour"}] checked, or a UserError sentence."""
    if not isinstance(players, list) or not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise UserError(f"micropul needs {MIN_PLAYERS} to {MAX_PLAYERS} players.")
    out = []
    for n, p in enumerate(players, start=1):
        if not isinstance(p, dict):
            raise UserError(f"player {n} must be an object with a name and a stone colour.")
        name = p.get("name")
        colour = p.get("stone_colour", p.get("colour"))
        if not isinstance(name, str) or not name.strip() or len(name.strip()) > 24:
            raise UserError(f"player {n} needs a name of 1 to 24 characters.")
        if colour not in STONE_COLOURS:
            raise UserError(f"player {n}'s stones must be one of {', '.join(STONE_COLOURS)}.")
        out.append({"name": name.strip(), "stone_colour": colour})
    if len({p["stone_colour"] for p in out}) != len(out):
        raise UserError("two players cannot have the same stone colour.")
    if len({p["name"].lower() for p in out}) != len(out):
        raise UserError("two players cannot have the same name.")
    return out


@dataclass(frozen=True)
class Turns:
    """What the camera cannot see: hands, reserves and whose turn it is."""

    hand: tuple[int, ...]
    reserve: tuple[int, ...]
    to_move: int = 0
    owed: int = 0  # extra turns still owed to the player to move

    def passed(self) -> "Turns":
        """After the player to move finished one action."""
        if self.owed:
            return replace(self, owed=self.owed - 1)
        return replace(self, to_move=(self.to_move + 1) % len(self.hand))

    def with_counts(self, player: int, hand: int | None = None, reserve: int | None = None) -> "Turns":
        h, r = list(self.hand), list(self.reserve)
        if hand is not None:
            h[player] = hand
        if reserve is not None:
            r[player] = reserve
        return replace(self, hand=tuple(h), reserve=tuple(r))


def _entry(input_id: int, at: float, kind: str, text: dict, level: str = "info", undoable: bool = False) -> dict:
    return {"id": input_id, "at": at, "kind": kind, "text": text, "level": level, "undoable": undoable}


class Session:
    """One game of micropul, fed in order with stable readings and the players' corrections."""

    def __init__(self, players: list[dict]) -> None:
        self.players = check_players(players)
        self.replay = Replay()
        self.replay.feed({"players": self.players})
        n = len(self.players)
        self.turns = Turns((HAND_SIZE,) * n, (0,) * n)
        self.history: list[dict] = []
        self.banner: dict | None = None  # {"level", "text", "confirm"}
        self.pending: dict | None = None  # the unexplained reading the players may confirm
        self.last_draw: tuple[int, int] | None = None  # (player, tiles) still to draw
        self.last_actor: int | None = None  # who made the last move (to say "play again")
        self.just_closed: list[frozenset] = []
        self.laid: list[tuple[tuple[int, int], Turns]] = []  # legal placements: cell, turns before
        self.last_stable: dict | None = None
        self.over = False
        self.core_emptied = False
        self.final: dict | None = None
        self.loser: int | None = None

    # ---- input ---------------------------------------------------------------------------------
    def apply(self, kind: str, payload: dict, input_id: int = 0, at: float = 0.0) -> list[dict]:
        """Takes one input; returns the history entries it made. UserError: refused, nothing changed."""
        if self.over and kind != "stable":
            raise UserError("the game is over: start a new game.")
        if kind == "stable":
            return self._stable(payload, input_id, at)
        if kind == "accept":
            return self._accept(payload, input_id, at)
        if kind == "reserve":
            return self._reserve(input_id, at)
        if kind == "counts":
            return self._counts(payload, input_id, at)
        if kind == "turn":
            player = self._player(payload.get("player"))
            self.turns = replace(self.turns, to_move=player, owed=0)
            self.last_draw = self.last_actor = None
            return [_entry(input_id, at, kind, both("turn_done", name=self.players[player]["name"]), undoable=True)]
        if kind == "finish":
            return self._finish(input_id, at, both("finished_by_players"), undoable=True)
        raise UserError(f"unknown change {kind!r}.")

    def _player(self, value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < len(self.players):
            raise UserError(f"player must be a number from 0 to {len(self.players) - 1}.")
        return value

    def _stable(self, obs: dict, input_id: int, at: float) -> list[dict]:
        if self.over:
            return []
        try:
            events = self.replay.feed(obs)
        except ValueError as exc:
            # The reading does not make a board (e.g. a tile off the grid): say so, change nothing.
            text = both_of(lambda lang: narrate.micropul({"event": "unexplained", "reason": str(exc)}, lang))
            self.banner = {"level": "warning", "text": text, "confirm": False}
            return [_entry(input_id, at, "stable", text, "warning")]
        self.last_stable = obs
        return self._events(events, input_id, at, obs)

    def _events(self, events: list[dict], input_id: int, at: float, obs: dict | None) -> list[dict]:
        entries = []
        for event in events:
            text = both_of(lambda lang, e=event: narrate.micropul(e, lang))
            level = "info"
            kind = event["event"]
            if kind == "placement" and event["legal"]:
                self._placed(event)
            elif kind == "placement" or (kind == "stone" and not event["legal"]):
                level = "warning"
                self.banner = {"level": "warning", "text": text, "confirm": False}
            elif kind == "stone":
                self._stone(event)
            elif kind == "removed":
                self._removed(event)
            elif kind == "unexplained":
                level = "question"
                self.pending = obs
            if level == "info":
                self.banner = {"level": "info", "text": text, "confirm": False}
            if kind != "unexplained" and kind != "removed":
                self.pending = None
            entries.append(_entry(input_id, at, "stable", text, level))
            if kind == "unexplained" and obs is not None:
                self.banner = {"level": "question", "text": text, "confirm": True}
        if self.core_emptied and not self.over:
            entries += self._finish(input_id, at, both("core_empty"))
        # A player left with no tile loses (rule 5), but the counts are only followed, not seen:
        # the page asks the players (todo) instead of ending the game on a count that may be off.
        return entries

    def _placed(self, event: dict) -> None:
        before = self._closed_groups()
        me = self.last_actor = self.turns.to_move
        self.laid.append((tuple(event["cell"]), self.turns))
        hand, reserve = self.turns.hand[me], self.turns.reserve[me]
        if hand == 0 and reserve > 0:
            # A tile laid from an empty hand came from the reserve: the tap was forgotten.
            hand, reserve = 1, reserve - 1
        turns = self.turns.with_counts(me, hand=max(0, hand - 1), reserve=reserve + event["draw"])
        self.turns = replace(turns, owed=turns.owed + event["extra_turns"]).passed()
        self.last_draw = (me, event["draw"]) if event["draw"] else None
        self.just_closed = [g for g in self._closed_groups() if g not in before]
        if event["draw"] and event["core_left"] == 0:  # rule 6: the last tile of the core was drawn
            self.core_emptied = True

    def _stone(self, event: dict) -> None:
        by_colour = [p["stone_colour"] for p in self.players]
        if event["colour"] in by_colour:
            # Whoever laid it, it was their action: their turn ends with it.
            self.last_actor = by_colour.index(event["colour"])
            self.turns = replace(self.turns, to_move=self.last_actor).passed()
        self.last_draw = None
        self.just_closed = []

    def _removed(self, event: dict) -> None:
        if not self.replay.illegal_tiles and not self.replay.illegal_stones:
            self.banner = None
        if event["was_legal"] and event["what"] == "tile":
            cell = tuple(event["cell"])
            if self.laid and self.laid[-1][0] == cell:
                # The last tile laid was taken back: the turn is played again from before it.
                self.turns = self.laid.pop()[1]
                self.last_draw = self.last_actor = None
                self.just_closed = []

    def _accept(self, payload: dict, input_id: int, at: float) -> list[dict]:
        obs = payload.get("observation") or self.pending
        if obs is None:
            raise UserError("there is no reading to confirm.")
        try:
            events = self.replay.accept(obs)
        except ValueError as exc:
            raise UserError(f"this reading cannot be confirmed: {exc}.") from None
        self.pending = None
        self.last_stable = obs
        self.just_closed = []
        text = both_of(lambda lang: narrate.micropul(events[0], lang))
        self.banner = {"level": "info", "text": text, "confirm": False}
        return [_entry(input_id, at, "accept", text, undoable=True)]

    def _reserve(self, input_id: int, at: float) -> list[dict]:
        me = self.turns.to_move
        name = self.players[me]["name"]
        if self.turns.reserve[me] <= 0:
            raise UserError(f"{name}'s reserve is empty: correct the counts if it is not.")
        if self.turns.hand[me] >= HAND_SIZE:
            raise UserError(f"{name} already holds {HAND_SIZE} tiles: a reserve tile may only join a smaller hand.")
        self.turns = self.turns.with_counts(me, hand=self.turns.hand[me] + 1,
                                            reserve=self.turns.reserve[me] - 1).passed()
        self.last_draw, self.last_actor = None, me
        text = both("took_reserve_done", name=name)
        self.banner = {"level": "info", "text": text, "confirm": False}
        return [_entry(input_id, at, "reserve", text, undoable=True)]

    def _counts(self, payload: dict, input_id: int, at: float) -> list[dict]:
        player = self._player(payload.get("player"))
        values = {}
        for key, top in (("hand", HAND_SIZE), ("reserve", 48)):
            value = payload.get(key, self.turns.hand[player] if key == "hand" else self.turns.reserve[player])
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= top:
                raise UserError(f"{key} must be a whole number from 0 to {top}.")
            values[key] = value
        self.turns = self.turns.with_counts(player, **values)
        text = both("counts_done", name=self.players[player]["name"], **values)
        return [_entry(input_id, at, "counts", text, undoable=True)]

    def _finish(self, input_id: int, at: float, why: dict, undoable: bool = False) -> list[dict]:
        if not self.core_emptied and self._out_of_tiles():
            self.loser = self.turns.to_move  # the players confirmed the loss by ending the game
        self.replay.hand = {p["stone_colour"]: h for p, h in zip(self.players, self.turns.hand)}
        self.replay.reserve = {p["stone_colour"]: r for p, r in zip(self.players, self.turns.reserve)}
        final = self.replay.finish()[0]
        if self.loser is not None:
            colour = self.players[self.loser]["stone_colour"]
            final["ranking"] = ([r for r in final["ranking"] if r["stone_colour"] != colour]
                                + [r for r in final["ranking"] if r["stone_colour"] == colour])
        self.over = True
        self.final = final
        text = both_of(lambda lang: why[lang] + " " + narrate.micropul(final, lang))
        self.banner = {"level": "final", "text": text, "confirm": False}
        return [_entry(input_id, at, "finish", text, "final", undoable)]

    # ---- the page ---------------------------------------------------------------------------------
    def _out_of_tiles(self) -> bool:
        return self.turns.hand[self.turns.to_move] == 0 and self.turns.reserve[self.turns.to_move] == 0

    def _closed_groups(self) -> list[frozenset]:
        return [g.nodes for g in self.replay.board.groups() if g.closed]

    def todo(self) -> dict:
        """What the players must do now, in both languages."""
        if self.over:
            return both("finished_by_players") if self.final is None else {}
        if self.replay.illegal_tiles:
            return both("take_back_tile")
        if self.replay.illegal_stones:
            return both("take_back_stone")
        if self.pending is not None:
            return both("check_table")
        name = self.players[self.turns.to_move]["name"]
        if self._out_of_tiles():
            return both("out_of_tiles", name=name)
        parts = []
        if self.last_draw:
            who, n = self.last_draw
            parts.append({lang: both("draw_then", name=self.players[who]["name"], n=narrate._tiles(n, lang))[lang]
                          for lang in narrate.LANGUAGES})
        again = self.last_actor == self.turns.to_move and len(self.players) > 1
        parts.append(both("again" if again else "turn", name=name))
        return {lang: " ".join(p[lang] for p in parts) for lang in narrate.LANGUAGES}

    def view(self, project: Project | None = None) -> dict:
        board_points = group_points(self.replay.board, self.replay.stones)
        players = []
        for i, p in enumerate(self.players):
            colour = p["stone_colour"]
            laid = sum(1 for s in self.replay.stones if s.colour == colour)
            hand, reserve = self.turns.hand[i], self.turns.reserve[i]
            players.append({"name": p["name"], "stone_colour": colour, "hand": hand, "reserve": reserve,
                            "stones_left": STONES_EACH - laid, "group_points": board_points.get(colour, 0),
                            "score": board_points.get(colour, 0) + hand + 2 * reserve,
                            "to_move": i == self.turns.to_move and not self.over})
        return {"game": NAME, "players": players, "core_left": self.replay.core, "over": self.over,
                "final": self.final, "banner": self.banner, "todo": self.todo(),
                "confirm": self.pending is not None, "board": self._board(project)}

    def _board(self, project: Project | None) -> dict:
        """The board's tiles and groups, in normalised picture coordinates when `project` is given."""
        grid = self.replay.grid
        cells = dict(self.replay.board.cells)
        out: dict = {"tiles": [], "groups": [], "stones": len(self.replay.stones)}
        if grid is None or project is None or not cells:
            return out
        sx, sy = self.replay.shift

        def mm(u: float, v: float) -> tuple[float, float]:
            return grid.centre_mm((u - sx, v - sy))  # type: ignore[arg-type]

        def square(u0: float, v0: float, side: float) -> list[tuple[float, float]]:
            return [mm(u0, v0), mm(u0 + side, v0), mm(u0 + side, v0 + side), mm(u0, v0 + side)]

        for (cx, cy), illegal in [(c, False) for c in cells] + [(c, True) for c in self.replay.illegal_tiles]:
            out["tiles"].append({"poly": _rounded(project(square(cx - 0.5, cy - 0.5, 1.0))), "illegal": illegal})
        just = set(self.just_closed)
        for group in self.replay.board.groups():
            on = stones_on(group, self.replay.stones)
            polys, centres = [], []
            for (cx, cy), quad in sorted(group.nodes):
                dx, dy = QUAD_POS[quad]
                u0, v0 = cx - 0.5 + 0.5 * dx, cy - 0.5 + 0.5 * dy
                polys.append(square(u0, v0, 0.5))
                centres.append((u0 + 0.25, v0 + 0.25))
            label = mm(sum(u for u, _ in centres) / len(centres), sum(v for _, v in centres) / len(centres))
            flat = project([pt for poly in polys for pt in poly] + [label])
            out["groups"].append({
                "colour": group.colour, "closed": group.closed, "points": group.points,
                "owner": on[0].colour if len(on) == 1 else None, "stones": len(on),
                "just_closed": group.nodes in just,
                "polys": [_rounded(flat[4 * k: 4 * k + 4]) for k in range(len(polys))],
                "label": _rounded(flat[-1:])[0]})
        return out


def _rounded(points) -> list[list[float]]:
    return [[round(float(x), 4), round(float(y), 4)] for x, y in points]
