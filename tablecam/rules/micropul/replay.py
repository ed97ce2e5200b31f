"""micropul replay: stable Observations of the table, in time order -> rule events.

Input lines (JSON objects):
- optional first line `{"players": [{"name": str, "stone_colour": str}, ...],
  "hand": {colour: n}, "reserve": {colour: n}}`: the players, and the tiles each holds
  in hand and in reserve at the end (the camera cannot see them; with them the final
  event carries the scores);
- micropul Observations exactly as ARCHITECTURE.md defines them, each a stable state.

Each observation is compared with what the table should show: the board as the rules
know it, plus any illegal tile or stone still lying where a player put it. One tile more
is a placement, one tile less a tile taken back, one stone more a stone laid. Anything
else is reported as unexplained and the board stays as it was: the replay never guesses.
An illegal tile is not added to the board; when the players take it back, a `removed`
event says so. Stones lying beside the board (not on a tile) are a player's supply.

The live tracker of the companion feeds its stable states to this same class.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass

from .board import Board, Cell, Placed, Stone, closed_by, stones_on
from .game import HAND_SIZE, STONES_EACH, stone_problem
from .grid import MAX_MISALIGNMENT, Grid, fit_grid
from .tiles import Face, face_from_observation, identify

FULL_SET = 48


@dataclass(frozen=True)
class TableView:
    """One observation in board cells: tile faces (None = unreadable) and stones on tiles."""

    tiles: dict[Cell, Face | None]
    stones: tuple[Stone, ...]


class Replay:
    def __init__(self) -> None:
        self.players: list[dict] = []
        self.hand: dict[str, int] | None = None
        self.reserve: dict[str, int] | None = None
        self.board = Board()
        self.stones: tuple[Stone, ...] = ()
        self.core = FULL_SET - 1 - 2 * HAND_SIZE
        self.illegal_tiles: dict[Cell, Face] = {}  # lying on the table, not on the board
        self.illegal_stones: tuple[Stone, ...] = ()
        self.started = False
        self.grid: Grid | None = None
        self.shift = (0, 0)  # observation cell + shift = board cell
        self.last_unexplained: tuple | None = None

    # ---- input ----------------------------------------------------------------------------

    def feed(self, line: dict) -> list[dict]:
        if "players" in line and "tiles" not in line:
            self._players_line(line)
            return []
        if line.get("game", "micropul") != "micropul":
            raise ValueError(f"this is a {line.get('game')} observation, not micropul")
        frame_id, tiles, stones, tile_mm = _parse_observation(line)
        view = self._view(tiles, stones, tile_mm)
        if not self.started:
            return self._setup(view)
        return self._compare(frame_id, view)

    def accept(self, line: dict) -> list[dict]:
        """The players confirm that this observation is right: it becomes the board as it is.

        For a reading no single move explains (the companion asks the players with one tap).
        No rule is checked: the players vouch for the table.
        """
        frame_id, tiles, stones, tile_mm = _parse_observation(line)
        if any(face is None for _, face in tiles):
            raise ValueError("a tile that could not be read cannot be confirmed")
        view = self._view(tiles, stones, tile_mm)
        self.board = Board({c: _placed(f) for c, f in view.tiles.items()})  # type: ignore[arg-type]
        self.stones = view.stones
        self.illegal_tiles, self.illegal_stones = {}, ()
        self.started = bool(view.tiles)
        self.last_unexplained = None
        return [{"frame_id": frame_id, "event": "accepted", "tiles": len(view.tiles),
                 "stones": len(view.stones)}]

    def finish(self) -> list[dict]:
        points = self._group_points()
        final: dict = {"event": "final", "group_points": points, "core_left": self.core}
        if self.hand is not None and self.reserve is not None:
            scores = {c: points.get(c, 0) + self.hand.get(c, 0) + 2 * self.reserve.get(c, 0)
                      for c in self._colours()}
            final["scores"] = scores
            names = {p["stone_colour"]: p["name"] for p in self.players}
            final["ranking"] = [{"name": names.get(c, c), "stone_colour": c, "score": s}
                                for c, s in sorted(scores.items(), key=lambda kv: -kv[1])]
        return [final]

    def _players_line(self, line: dict) -> None:
        if self.started:
            raise ValueError("the players line must come before the first observation")
        players = line["players"]
        if not isinstance(players, list) or not players or not all(
                isinstance(p, dict) and isinstance(p.get("name"), str) and isinstance(p.get("stone_colour"), str)
                for p in players):
            raise ValueError('players must be a list of {"name": ..., "stone_colour": ...}')
        colours = [p["stone_colour"] for p in players]
        if len(set(colours)) != len(colours):
            raise ValueError("two players have the same stone colour")
        counts = {}
        for key in ("hand", "reserve"):
            value = line.get(key)
            if value is not None:
                if not isinstance(value, dict) or not all(
                        isinstance(v, int) and v >= 0 for v in value.values()):
                    raise ValueError(f"{key} must map stone colours to tile counts")
                unknown = set(value) - set(colours)
                if unknown:
                    raise ValueError(f"{key} names a colour no player has: {sorted(unknown)[0]}")
            counts[key] = value
        self.players = players
        self.hand, self.reserve = counts["hand"], counts["reserve"]
        self.core = FULL_SET - 1 - HAND_SIZE * len(players)

    # ---- reading an observation into board cells ---------------------------------------

    def _view(self, tiles: list[tuple[tuple[float, float], Face | None]],
              stones: list[tuple[tuple[float, float], str]], tile_mm: float) -> TableView:
        centres = [c for c, _ in tiles]
        grid = fit_grid(centres, tile_mm, self.grid.angle_deg if self.grid else 0.0)
        local: dict[Cell, Face | None] = {}
        for centre, face in tiles:
            cell, off = grid.cell_of(centre)
            if off > MAX_MISALIGNMENT:
                raise ValueError(f"the tile at {_mm(centre)} mm is not on the board's grid")
            if cell in local:
                raise ValueError(f"two tiles lie on one cell near {_mm(centre)} mm")
            local[cell] = face
        self.grid = grid
        shift = self._best_shift(local) if self.started else _start_at_origin(local)
        cells = {(x + shift[0], y + shift[1]): f for (x, y), f in local.items()}
        on_tiles = []
        for centre, colour in stones:
            (x, y), quad = grid.quadrant_of(centre)
            cell = (x + shift[0], y + shift[1])
            if cell in cells:  # a stone beside the board is in its owner's supply
                on_tiles.append(Stone(cell, quad, colour))
        self.shift = shift
        return TableView(cells, tuple(on_tiles))

    def _expected(self) -> dict[Cell, Face]:
        cells = {c: p.face for c, p in self.board.cells.items()}
        cells.update(self.illegal_tiles)
        return cells

    def _best_shift(self, local: dict[Cell, Face | None]) -> tuple[int, int]:
        """The translation that lays the observed tiles best over the tiles we know.

        The board may be nudged between observations; matching faces find it again.
        """
        expected = self._expected()
        if not expected or not local:
            return self.shift
        votes: Counter = Counter()
        by_face: dict[Face, list[Cell]] = {}
        for cell, face in expected.items():
            by_face.setdefault(face, []).append(cell)
        for (x, y), face in local.items():
            for bx, by in by_face.get(face, ()):  # type: ignore[arg-type]
                votes[(bx - x, by - y)] += 1
        if not votes:
            return self.shift
        best = max(votes.values())
        tied = [s for s, v in votes.items() if v == best]
        return min(tied, key=lambda s: (abs(s[0] - self.shift[0]) + abs(s[1] - self.shift[1]), s))

    # ---- comparing with what the table should show ------------------------------------

    def _setup(self, view: TableView) -> list[dict]:
        """The first observation with tiles on it is the board the game starts from."""
        if not view.tiles:
            return []
        if any(f is None for f in view.tiles.values()):
            raise ValueError("a tile of the starting board could not be read")
        self.board = Board({c: _placed(f) for c, f in view.tiles.items()})  # type: ignore[arg-type]
        self.stones = view.stones
        self.started = True
        return []

    def _compare(self, frame_id: int, view: TableView) -> list[dict]:
        events: list[dict] = []
        # Illegal pieces the players took back: say so, then look at what else changed.
        for cell in sorted(set(self.illegal_tiles) - set(view.tiles)):
            del self.illegal_tiles[cell]
            events.append({"frame_id": frame_id, "event": "removed", "what": "tile",
                           "cell": list(cell), "was_legal": False})
        seen_stones = Counter(_stone_key(s) for s in view.stones)
        for stone in self.illegal_stones:
            if not seen_stones[_stone_key(stone)]:
                events.append({"frame_id": frame_id, "event": "removed", "what": "stone",
                               "cell": list(stone.cell), "colour": stone.colour, "was_legal": False})
        self.illegal_stones = tuple(s for s in self.illegal_stones if seen_stones[_stone_key(s)])

        expected = self._expected()
        added = sorted(set(view.tiles) - set(expected))
        missing = sorted(set(expected) - set(view.tiles))
        changed = sorted(c for c in set(view.tiles) & set(expected)
                         if view.tiles[c] is not None and view.tiles[c] != expected[c])
        # Stones on a tile that is going away go with it.
        kept = [s for s in self.stones + self.illegal_stones if s.cell not in missing]
        unmatched = Counter(_stone_key(s) for s in kept)
        new_stones = []
        for stone in view.stones:
            if unmatched[_stone_key(stone)]:
                unmatched[_stone_key(stone)] -= 1
            else:
                new_stones.append(stone)
        lost_stones = sorted(unmatched.elements())

        signature = (tuple(added), tuple(missing), tuple(changed), tuple(map(_stone_key, new_stones)),
                     tuple(lost_stones))
        if not (added or missing or changed or new_stones or lost_stones):
            self.last_unexplained = None
            return events
        if len(added) == 1 and not (missing or changed or new_stones or lost_stones):
            events.append(self._placement(frame_id, added[0], view.tiles[added[0]]))
        elif len(missing) == 1 and not (added or changed or new_stones or lost_stones):
            events.append(self._take_back(frame_id, missing[0]))
        elif len(new_stones) == 1 and not (added or missing or changed or lost_stones):
            events.append(self._stone(frame_id, new_stones[0]))
        elif not (missing or changed or lost_stones) and self._catch_up(view, added, new_stones):
            # Several moves since the last stable view (the tracker missed one), all legal
            # one after the other: say so, then score them in that order.
            events.append({"frame_id": frame_id, "event": "unexplained",
                           "reason": _explain(added, missing, changed, new_stones, lost_stones,
                                              caught_up=True)})
            for cell in self._catch_up(view, added, new_stones):
                events.append(self._placement(frame_id, cell, view.tiles[cell]))
            events.extend(self._stone(frame_id, stone) for stone in new_stones)
        else:
            if signature != self.last_unexplained:
                events.append({"frame_id": frame_id, "event": "unexplained",
                               "reason": _explain(added, missing, changed, new_stones, lost_stones)})
            self.last_unexplained = signature
            return events
        self.last_unexplained = None
        return events

    def _catch_up(self, view: TableView, added: list[Cell], new_stones: list[Stone]) -> tuple[Cell, ...]:
        """An order in which the added tiles are each legal, then the new stones; () if none.

        Only a handful of tiles can appear between two stable views, so trying every order is cheap.
        """
        if len(added) > 4 or any(view.tiles[c] is None for c in added):
            return ()
        for order in itertools.permutations(added):
            board = self.board
            for cell in order:
                if not board.check(cell, view.tiles[cell]).legal:  # type: ignore[arg-type]
                    break
                board = board.with_tile(cell, Placed(view.tiles[cell]))  # type: ignore[arg-type]
            else:
                stones = self.stones
                for stone in new_stones:
                    laid = sum(1 for s in stones if s.colour == stone.colour)
                    if stone_problem(board, stones, stone.cell, stone.quadrant, stone.colour,
                                     STONES_EACH - laid):
                        break
                    stones += (stone,)
                else:
                    return order
        return ()

    def _placement(self, frame_id: int, cell: Cell, face: Face | None) -> dict:
        event: dict = {"frame_id": frame_id, "event": "placement", "cell": list(cell)}
        if face is None:
            return {"frame_id": frame_id, "event": "unexplained",
                    "reason": f"a new tile at cell {cell} could not be read"}
        candidates = sorted({i for i, _ in identify(face)})
        if not candidates:
            return {"frame_id": frame_id, "event": "unexplained",
                    "reason": f"the tile at cell {cell} shows a face no micropul tile has"}
        on_board = sum(1 for p in self.board.cells.values()
                       if sorted({i for i, _ in identify(p.face)}) == candidates)
        if on_board >= len(candidates):
            return {"frame_id": frame_id, "event": "unexplained",
                    "reason": f"the tile at cell {cell} is already on the board"}
        index, rotation = identify(face)[0]
        event["tile"] = index if len(candidates) == 1 else None
        event["rotation"] = rotation
        verdict = self.board.check(cell, face)
        if not verdict.legal:
            self.illegal_tiles[cell] = face
            event.update(legal=False, reason=verdict.reason, draw=0, extra_turns=0, closed_groups=[],
                         core_left=self.core)
            return event
        before = self.board
        self.board = before.with_tile(cell, Placed(face, event["tile"], rotation))
        draw = min(verdict.draw, self.core)
        self.core -= draw
        closed = []
        for group in closed_by(before, self.board):
            on = stones_on(group, self.stones)
            closed.append({"colour": group.colour, "points": group.points,
                           "owner": on[0].colour if len(on) == 1 else None, "stones": len(on)})
        event.update(legal=True, reason=None, draw=draw, extra_turns=verdict.extra_turns,
                     closed_groups=closed, core_left=self.core)
        return event

    def _take_back(self, frame_id: int, cell: Cell) -> dict:
        self.board = self.board.without(cell)
        self.stones = tuple(s for s in self.stones if s.cell != cell)
        return {"frame_id": frame_id, "event": "removed", "what": "tile", "cell": list(cell),
                "was_legal": True}

    def _stone(self, frame_id: int, stone: Stone) -> dict:
        colours = self._colours()
        if self.players and stone.colour not in colours:
            problem = f"no player has {stone.colour} stones"
        else:
            laid = sum(1 for s in self.stones if s.colour == stone.colour)
            problem = stone_problem(self.board, self.stones, stone.cell, stone.quadrant,
                                    stone.colour, STONES_EACH - laid)
        if problem:
            self.illegal_stones += (stone,)
        else:
            self.stones += (stone,)
        return {"frame_id": frame_id, "event": "stone", "colour": stone.colour,
                "cell": list(stone.cell), "quadrant": stone.quadrant,
                "legal": problem is None, "reason": problem}

    # ---- scores ---------------------------------------------------------------------------

    def _colours(self) -> list[str]:
        if self.players:
            return [p["stone_colour"] for p in self.players]
        return sorted({s.colour for s in self.stones})

    def _group_points(self) -> dict[str, int]:
        points = {c: 0 for c in self._colours()}
        for group in self.board.groups():
            on = stones_on(group, self.stones)
            if group.closed and len(on) == 1:
                points[on[0].colour] = points.get(on[0].colour, 0) + group.points
        return points


def _placed(face: Face) -> Placed:
    found = identify(face)
    indices = {i for i, _ in found}
    if not found:
        return Placed(face, None, 0)
    return Placed(face, found[0][0] if len(indices) == 1 else None, found[0][1])


def _start_at_origin(local: dict[Cell, Face | None]) -> tuple[int, int]:
    """The shift that puts the start tile (or else the first tile) at cell (0, 0)."""
    if not local:
        return (0, 0)
    starts = [c for c, f in local.items() if f is not None and {i for i, _ in identify(f)} == {40, 41}]
    x, y = min(starts or local)
    return (-x, -y)


def _stone_key(stone: Stone) -> tuple:
    # A stone nudged to another quadrant of the same tile is the same stone.
    return stone.cell, stone.colour


def _explain(added, missing, changed, new_stones, lost_stones, caught_up: bool = False) -> str:
    parts = []
    if len(added) > 1:
        parts.append(f"{len(added)} tiles appeared at once")
    elif added:
        parts.append(f"a tile appeared at cell {added[0]}")
    if missing:
        parts.append(f"{len(missing)} tile{'s' if len(missing) > 1 else ''} vanished")
    if changed:
        parts.append(f"the tile at cell {changed[0]} changed its face")
    if new_stones:
        parts.append(f"{len(new_stones)} stone{'s' if len(new_stones) > 1 else ''} appeared")
    if lost_stones:
        parts.append(f"{len(lost_stones)} stone{'s' if len(lost_stones) > 1 else ''} vanished")
    if caught_up:
        return "; ".join(parts) + ": more than one move since the last stable view, taken as played one after the other, please check the table"
    return "; ".join(parts) + ": more than one move since the last stable view, please check the table"


def _mm(point: tuple[float, float]) -> str:
    return f"({point[0]:.0f}, {point[1]:.0f})"


def _number(value, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{what} must be a number")
    return float(value)


def _point(value, what: str) -> tuple[float, float]:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise ValueError(f"{what} must be [x, y] in millimetres")
    return _number(value[0], what), _number(value[1], what)


def _parse_observation(line: dict):
    """Checks a micropul Observation and returns its plain parts; ValueError names the problem."""
    for key in ("frame_id", "tile_mm", "tiles"):
        if key not in line:
            raise ValueError(f"missing field {key}")
    frame_id = line["frame_id"]
    if isinstance(frame_id, bool) or not isinstance(frame_id, int):
        raise ValueError("frame_id must be a whole number")
    tile_mm = _number(line["tile_mm"], "tile_mm")
    if tile_mm <= 0:
        raise ValueError("tile_mm must be positive")
    if not isinstance(line["tiles"], list):
        raise ValueError("tiles must be a list")
    tiles = []
    for n, tile in enumerate(line["tiles"], start=1):
        if not isinstance(tile, dict):
            raise ValueError(f"tile {n} must be an object")
        if "center_mm" not in tile:
            raise ValueError(f"tile {n} has no center_mm")
        if tile.get("face_down"):
            continue  # the core or a reserve beside the board, not a board tile
        centre = _point(tile["center_mm"], f"tile {n}'s center_mm")
        try:
            face = face_from_observation(tile)
        except ValueError as exc:
            raise ValueError(f"tile {n}: {exc}") from None
        tiles.append((centre, face))
    stones = []
    raw_stones = line.get("stones", [])
    if not isinstance(raw_stones, list):
        raise ValueError("stones must be a list")
    for n, stone in enumerate(raw_stones, start=1):
        if not isinstance(stone, dict) or "center_mm" not in stone or "colour" not in stone:
            raise ValueError(f"stone {n} needs center_mm and colour")
        if not isinstance(stone["colour"], str):
            raise ValueError(f"stone {n}'s colour must be a name")
        stones.append((_point(stone["center_mm"], f"stone {n}'s center_mm"), stone["colour"]))
    return frame_id, tiles, stones, tile_mm

