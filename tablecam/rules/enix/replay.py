"""ENIX replay: stable Observations (JSON lines, table mm) in, rule events out.

Input lines, in time order:

- Observation (ARCHITECTURE.md): `{"game": "enix", "frame_id": n, "hexes": [{"energy",
  "center_mm", "rotation"}], "pawns": [{"colour", "center_mm"}], "cap": {"center_mm"} | null,
  "cards": [{"energy", "value", "center_mm", "face_up"}]}`. `hexes` and `pawns` are
  required; `cap` and `cards` may be left out. A hex `rotation` of null keeps the tile's
  last known turn; a hex with `energy` null counts as not seen; a pawn with `colour` null
  and a card with `energy` null (a card back, an unread face) are ignored.
- Setup line (optional, before the first Observation): `{"players": [{"colour": "red",
  "seat_mm": [x, y]}, ...], "rays": {energy: [6 × 0|1|2|null]}, "hex_mm": 110.9}`.
  Players are named by their pawn colour (any name: the seed does not fix the pawns'
  colours); `seat_mm` is where that player lays their
  cards (each face-up card belongs to the nearest seat). `players` may also be a list of
  colours without seats (then no order of play can be read). `rays` overrides the
  model ray table for a physical set (energies left out keep the default); `hex_mm` is
  the tiles' width across flats.
- End line: `{"end": "red"}` — red ends the game. The face-up cards at each seat in the
  following Observations are the hands laid out for scoring, or give them directly:
  `{"end": "red", "hands": {"red": [{"energy": "wind", "value": 7}, ...], ...}}`.

Events (each with the line's `frame_id` when it has one):

- `{"event": "layout", "kind": "setup" | "rotate" | "move" | "illegal", "legal", "reason",
  "tile", "from", "to", "turn"}` — cells are [i, j] on the layout's hex lattice (see
  lattice.py); `turn` is the tile's orientation in sixths of a turn.
- `{"event": "pawn_move", "colour", "from", "to", "total", "legal", "reason", "reachable"}` —
  checked from the tile where the pawn began its turn (a pawn walked in steps is judged
  on the whole walk) with the player's revealed total (null when unknown). When the next
  round's reveal shows that a pawn never moved although it could have walked at every
  reading of the round, a `pawn_move` with from = to and legal false says so (a positive
  total obliges a move).
- `{"event": "order", "order" | null, "ranking", "totals", "battle", "reason"}` — whenever
  the revealed cards change and every player has one.
- `{"event": "cap", "on": energy | null, "reason"}` — the cap was put on / moved / taken off.
- `{"event": "final", "scores", "out", "winners", "ended_by", "legal", "reason"}` — from
  finish(), after an end line.
- `{"event": "unexplained", "reason"}` — a reading no single legal action explains
  (two tiles changed at once, a tile off the lattice, a tile or pawn vanished...).

A new round starts when a new reveal gives a new order; each pawn's walk is judged from
where it stood then. Taking and refilling cards happens in hands the camera cannot see,
so it is not checked.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from tablecam.rules import linecheck as lc
from tablecam.rules.stepped import SteppedReplay
from tablecam.rules.enix.cards import Card, final_scores, play_order, score_json
from tablecam.rules.enix.energies import ENERGIES, ENIX_CARD, SOLAR, RayTable
from tablecam.rules.enix.lattice import DEFAULT_ACROSS_FLATS_MM, OFF_LATTICE_FRACTION, Lattice, fit_lattice
from tablecam.rules.enix.layout import (Layout, Placed, best_offset, check_setup, classify, destinations,
                                        is_cut_tile)
from tablecam.rules.enix.paths import check_pawn_move, reachable

PAWN_ON_TILE_FRACTION = 0.5  # a pawn within half the width across flats of a centre is on that tile


# ---------------------------------------------------------------- parsed input lines

@dataclass(frozen=True)
class SeenHex:
    energy: str
    centre: tuple[float, float]
    rotation: float | None


@dataclass(frozen=True)
class SeenCard:
    card: Card
    centre: tuple[float, float]
    face_up: bool


@dataclass(frozen=True)
class Seen:
    frame: int | None
    hexes: tuple[SeenHex, ...]
    pawns: tuple[tuple[str, tuple[float, float]], ...]
    cap: tuple[float, float] | None
    cards: tuple[SeenCard, ...]


@dataclass(frozen=True)
class SetupLine:
    players: tuple[tuple[str, tuple[float, float] | None], ...] | None
    rays: RayTable | None
    pitch: float | None


@dataclass(frozen=True)
class EndLine:
    ender: str
    hands: tuple[tuple[str, tuple[Card, ...]], ...] | None


def _card(raw: Any, what: str) -> Card | None:
    """A card as read; None for a card whose face could not be read (a card back, or an unsure detector)."""
    if lc.field(raw, "energy", what) is None:
        return None
    energy = lc.a_name(raw["energy"], f"the energy of {what}", ENERGIES + (ENIX_CARD,))
    value = raw.get("value")
    if energy == ENIX_CARD:
        return Card(energy, None)
    if value is None:
        return Card(energy, None)  # a detector unsure of the digits says null; such a card is skipped
    return Card(energy, lc.an_int(value, f"the value of {what}", -10, 9))


def _known(card: Card | None, what: str) -> Card:
    if card is None:
        raise ValueError(f"{what} needs its energy")
    return card


def parse_line(line: dict) -> Seen | SetupLine | EndLine:
    """One input line as a typed value; ValueError (one sentence) when malformed."""
    lc.check_game(line, "enix")
    if "end" in line and "hexes" not in line:
        ender = lc.a_text(line["end"], "the end line's player (a pawn colour)")
        hands = None
        if line.get("hands") is not None:
            raw = line["hands"]
            if not isinstance(raw, dict):
                raise ValueError("hands must map each player's colour to a list of cards")
            hands = tuple((lc.a_text(p, "a hand's player"),
                           tuple(_known(_card(c, f"a card in {p}'s hand"), f"a card in {p}'s hand")
                                 for c in lc.a_list(cs, f"{p}'s hand")))
                          for p, cs in raw.items())
        return EndLine(ender, hands)
    if "hexes" not in line and any(k in line for k in ("players", "rays", "hex_mm")):
        players = None
        if "players" in line:
            players = []
            for raw in lc.a_list(line["players"], "players"):
                if isinstance(raw, str):
                    players.append((lc.a_text(raw, "a player (a pawn colour)"), None))
                else:
                    colour = lc.a_text(lc.field(raw, "colour", "a player"), "a player's colour")
                    seat = raw.get("seat_mm")
                    players.append((colour, None if seat is None else lc.a_point(seat, f"{colour}'s seat_mm")))
            if len({p for p, _ in players}) != len(players):
                raise ValueError("a colour appears twice among the players")
            players = tuple(players)
        rays = RayTable.from_mapping(line["rays"]) if "rays" in line else None
        pitch = None
        if "hex_mm" in line:
            pitch = lc.a_number(line["hex_mm"], "hex_mm")
            if not 20 <= pitch <= 400:
                raise ValueError(f"hex_mm must be a tile's width across flats in mm (20 to 400), not {pitch:g}")
        return SetupLine(players, rays, pitch)
    frame = lc.frame_id(line)
    hexes = []
    for raw in lc.a_list(lc.field(line, "hexes", "an ENIX Observation"), "hexes"):
        if lc.field(raw, "energy", "a hex") is None:
            continue  # an unsure detector: the tile counts as not seen, its last place is kept
        energy = lc.a_name(raw["energy"], "a hex's energy", ENERGIES)
        centre = lc.a_point(lc.field(raw, "center_mm", f"the {energy} hex"), f"the {energy} hex's center_mm")
        rotation = raw.get("rotation")
        hexes.append(SeenHex(energy, centre,
                             None if rotation is None else lc.a_number(rotation, f"the {energy} hex's rotation")))
    pawns = []
    for raw in lc.a_list(lc.field(line, "pawns", "an ENIX Observation"), "pawns"):
        if lc.field(raw, "colour", "a pawn") is None:
            continue  # a pawn of unread colour cannot be told from the others
        colour = lc.a_text(raw["colour"], "a pawn's colour")
        pawns.append((colour, lc.a_point(lc.field(raw, "center_mm", f"the {colour} pawn"),
                                         f"the {colour} pawn's center_mm")))
    cap = line.get("cap")
    if cap is not None:
        cap = lc.a_point(lc.field(cap, "center_mm", "the cap"), "the cap's center_mm")
    cards = []
    for raw in lc.a_list(line.get("cards", []), "cards"):
        card = _card(raw, "a card")
        centre = lc.a_point(lc.field(raw, "center_mm", "a card"), "a card's center_mm")
        face_up = lc.a_bool(raw.get("face_up", True), "a card's face_up")
        if card is not None:  # a card back or an unreadable face tells nothing about the rules
            cards.append(SeenCard(card, centre, face_up))
    return Seen(frame, tuple(hexes), tuple(pawns), cap, tuple(cards))


# ---------------------------------------------------------------- replay state

@dataclass(frozen=True)
class ReplayState:
    rays: RayTable = field(default_factory=RayTable.default)
    pitch: float = DEFAULT_ACROSS_FLATS_MM
    players: tuple[tuple[str, tuple[float, float] | None], ...] | None = None
    lattice: Lattice | None = None
    layout: Layout | None = None
    complete_seen: bool = False  # a layout of all six tiles has been seen (setup judged)
    unseen: tuple[str, ...] = ()
    pawns: tuple[tuple[str, str | None], ...] = ()
    turn_start: tuple[tuple[str, str], ...] = ()
    cap: str | None = None
    revealed: tuple[tuple[str, tuple[Card, ...]], ...] = ()
    round_key: tuple | None = None
    cleared: bool = False  # some player's cards left the table since the last order
    totals: tuple[tuple[str, int], ...] | None = None
    # Per pawn: it could have walked at every reading of this round while it stood where the round
    # began; a pawn that then never moves broke "a positive total obliges a move".
    could_move: tuple[tuple[str, bool], ...] = ()
    ender: str | None = None
    hands: tuple[tuple[str, tuple[Card, ...]], ...] | None = None
    hands_frame: int | None = None
    hands_given: bool = False  # the end line gave the hands; the camera's reading does not replace them


def _cell(cell: tuple[int, int] | None) -> list[int] | None:
    return None if cell is None else [cell[0], cell[1]]


def _nearest_seat(point: tuple[float, float], seats: list[tuple[str, tuple[float, float]]]) -> str:
    return min(seats, key=lambda s: math.hypot(point[0] - s[1][0], point[1] - s[1][1]))[0]


def _cards_by_seat(state: ReplayState, cards: tuple[SeenCard, ...]) -> dict[str, list[SeenCard]] | None:
    seats = [(p, s) for p, s in (state.players or ()) if s is not None]
    if not state.players or len(seats) != len(state.players):
        return None
    by_seat: dict[str, list[SeenCard]] = {p: [] for p, _ in seats}
    for seen in cards:
        if seen.face_up:
            by_seat[_nearest_seat(seen.centre, seats)].append(seen)
    for p in by_seat:
        by_seat[p].sort(key=lambda c: (c.centre[0], c.centre[1]))
    return by_seat


def _grow(previous: tuple[Card, ...], now: list[Card]) -> tuple[tuple[Card, ...], bool]:
    """A player's revealed cards in the order laid: kept, plus the new ones; (cards, cleared)."""
    rest = list(now)
    for card in previous:
        if card in rest:
            rest.remove(card)
        else:
            return tuple(now), True  # a card left the table: these are not the same round's cards
    return previous + tuple(rest), False


def step(state: ReplayState, parsed: Seen | SetupLine | EndLine) -> tuple[ReplayState, list[dict]]:
    """The pure heart of the replay: one parsed line applied to the state."""
    if isinstance(parsed, SetupLine):
        return replace(state,
                       players=parsed.players if parsed.players is not None else state.players,
                       rays=parsed.rays or state.rays,
                       pitch=parsed.pitch or state.pitch), []
    if isinstance(parsed, EndLine):
        known = [p for p, _ in state.players or ()]
        for name in [parsed.ender] + [p for p, _ in parsed.hands or ()]:
            if known and name not in known:
                raise ValueError(f"{name!r} is not one of the players ({', '.join(known)})")
        return replace(state, ender=parsed.ender, hands=parsed.hands, hands_given=parsed.hands is not None), []
    events: list[dict] = []
    state = _see_layout(state, parsed, events)
    state = _see_pawns_and_cap(state, parsed, events)
    state = _see_cards(state, parsed, events)
    return state, lc.stamp(events, parsed.frame)


def _see_layout(state: ReplayState, seen: Seen, events: list[dict]) -> ReplayState:
    if not seen.hexes:
        return state
    names = [h.energy for h in seen.hexes]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        events.append({"event": "unexplained",
                       "reason": f"{lc.joined(twice)} seen twice; the layout part of this reading is ignored"})
        return state
    ordered = sorted(seen.hexes, key=lambda h: (h.energy != SOLAR, ENERGIES.index(h.energy)))
    lattice = fit_lattice([h.rotation for h in ordered if h.rotation is not None],
                          [h.centre for h in ordered], state.pitch, state.lattice)
    placed: list[Placed] = []
    for h in ordered:
        cell, off = lattice.nearest(h.centre)
        if off > OFF_LATTICE_FRACTION * state.pitch:
            events.append({"event": "unexplained",
                           "reason": f"{h.energy} lies {off:.0f} mm off the lattice of the other tiles; it is ignored"})
            continue
        old = state.layout.get(h.energy) if state.layout else None
        turn = lattice.turn(h.rotation) if h.rotation is not None else (old.turn if old else 0)
        placed.append(Placed(h.energy, cell, turn))
    if not placed:
        return state
    if state.layout is not None:
        offset = best_offset(state.layout, Layout(tuple(placed)))
        if offset != (0, 0):
            # The whole layout was bumped on the table: move the lattice, not the tiles.
            lattice = lattice.shifted(offset)
            placed = [Placed(p.energy, (p.cell[0] - offset[0], p.cell[1] - offset[1]), p.turn) for p in placed]
    cells = {p.cell for p in placed}
    if len(cells) < len(placed):
        events.append({"event": "unexplained",
                       "reason": "two tiles were read on the same place; the layout part of this reading is ignored"})
        return state
    unseen = []
    if state.layout is not None:
        for old in state.layout.tiles:
            if old.energy not in names:
                unseen.append(old.energy)
                if old.cell not in cells:
                    placed.append(old)  # not seen, so assumed where it was
    if unseen and tuple(unseen) != state.unseen:
        events.append({"event": "unexplained",
                       "reason": f"{lc.joined(unseen)} not seen; its last place is kept"})
    layout = Layout.of(placed)
    state = replace(state, lattice=lattice, unseen=tuple(unseen))
    if not state.complete_seen:
        pawn_tiles = {c: _tile_under(layout, lattice, state.pitch, p) for c, p in seen.pawns}
        if state.layout != layout:
            verdict = check_setup(layout, pawn_tiles)
            events.append({"event": "layout", "kind": "setup", "legal": verdict.legal, "reason": verdict.reason,
                           "tiles": {t.energy: {"cell": _cell(t.cell), "turn": t.turn} for t in layout.tiles}})
        return replace(state, layout=layout, complete_seen=len(layout.tiles) == len(ENERGIES))
    change = classify(state.layout, layout)
    if change.kind == "unexplained":
        events.append({"event": "unexplained", "reason": change.reason})
    elif change.kind != "none":
        events.append({"event": "layout", "kind": change.kind, "legal": change.legal, "reason": change.reason,
                       "tile": change.energy, "from": _cell(change.before.cell), "to": _cell(change.after.cell),
                       "turn": change.after.turn})
    return replace(state, layout=layout)


def _tile_under(layout: Layout | None, lattice: Lattice | None, pitch: float,
                point: tuple[float, float]) -> str | None:
    if layout is None or lattice is None:
        return None
    cell, off = lattice.nearest(point)
    return layout.at(cell) if off <= PAWN_ON_TILE_FRACTION * pitch else None


def _see_pawns_and_cap(state: ReplayState, seen: Seen, events: list[dict]) -> ReplayState:
    if state.layout is None:
        return state
    colours = [c for c, _ in seen.pawns]
    before = dict(state.pawns)
    after: dict[str, str | None] = dict(before)
    for colour, point in seen.pawns:
        if colours.count(colour) > 1:
            continue
        after[colour] = _tile_under(state.layout, state.lattice, state.pitch, point)
    twice = sorted({c for c in colours if colours.count(c) > 1})
    if twice:
        events.append({"event": "unexplained", "reason": f"two {lc.joined(twice)} pawns seen; they are ignored"})
    for colour in before:
        if colour not in colours and colour not in twice and before[colour] is not None:
            after[colour] = None
    totals = dict(state.totals) if state.totals is not None else {}
    # Walks are judged from the start of the turn only once rounds are known (from the cards);
    # without them each move is judged from the tile before.
    tracking = state.round_key is not None
    start = dict(state.turn_start)
    for colour in sorted(after):
        old, new = before.get(colour), after[colour]
        if old == new or colour in twice:
            continue
        if new is None:
            events.append({"event": "unexplained", "reason": f"the {colour} pawn is no longer seen on a tile"})
            continue
        if old is None:
            if tracking:
                start.setdefault(colour, new)
            continue
        origin = start.get(colour, old) if tracking else old
        if origin == new:
            events.append({"event": "pawn_move", "colour": colour, "from": old, "to": new,
                           "total": totals.get(colour), "legal": True, "reachable": [],
                           "reason": f"the {colour} pawn is back on {new}, where its turn began"})
            continue
        verdict = check_pawn_move(state.layout, state.rays, colour, origin, new, totals.get(colour), state.cap)
        events.append({"event": "pawn_move", "colour": colour, "from": origin, "to": new,
                       "total": totals.get(colour), "legal": verdict.legal, "reason": verdict.reason,
                       "reachable": list(verdict.reachable)})
        if tracking:
            start.setdefault(colour, old)
    cap = _tile_under(state.layout, state.lattice, state.pitch, seen.cap) if seen.cap is not None else None
    if cap != state.cap:
        reason = (f"the cap is now on {cap}: no pawn may enter or leave it" if cap
                  else "the cap was taken off the layout")
        events.append({"event": "cap", "on": cap, "reason": reason})
    could = dict(state.could_move)
    if tracking:
        for colour, tile in after.items():
            if tile is not None and tile == start.get(colour) and could.get(colour, True):
                could[colour] = bool(reachable(state.layout, state.rays, tile, totals.get(colour, 0), cap))
    return replace(state, pawns=tuple(sorted(after.items())), turn_start=tuple(sorted(start.items())), cap=cap,
                   could_move=tuple(sorted(could.items())))


def _see_cards(state: ReplayState, seen: Seen, events: list[dict]) -> ReplayState:
    by_seat = _cards_by_seat(state, seen.cards)
    if by_seat is None:
        return state
    if state.ender is not None:
        if state.hands_given:
            return state
        hands = tuple((p, tuple(c.card for c in cs)) for p, cs in by_seat.items())
        return replace(state, hands=hands, hands_frame=seen.frame)
    previous = dict(state.revealed)
    revealed, cleared = {}, state.cleared
    for player, cards in by_seat.items():
        values = [c.card for c in cards if not c.card.is_enix and c.card.value is not None]
        revealed[player], gone = _grow(previous.get(player, ()), values)
        cleared = cleared or gone
    state = replace(state, revealed=tuple(sorted(revealed.items())), cleared=cleared)
    if revealed == previous or not all(revealed.values()):
        return state
    order = play_order({p: [c.value for c in cs] for p, cs in revealed.items()})
    events.append({"event": "order", "order": list(order.order) if order.order else None,
                   "ranking": [list(g) for g in order.ranking], "totals": dict(order.totals),
                   "battle": [list(g) for g in order.battles], "reason": order.reason})
    key = tuple((p, cs[0]) for p, cs in sorted(revealed.items()))
    if key != state.round_key or state.cleared:
        if state.round_key is not None:
            events[-1:-1] = _stayed(state)
        # A new round: every pawn's walk is judged from where it stands now.
        start = tuple((c, e) for c, e in state.pawns if e is not None)
        totals = dict(order.totals)
        could = tuple((c, bool(reachable(state.layout, state.rays, e, totals.get(c, 0), state.cap)))
                      for c, e in start)
        state = replace(state, round_key=key, cleared=False, turn_start=start, could_move=could)
    return replace(state, totals=order.totals)


def _stayed(state: ReplayState) -> list[dict]:
    """Pawns that could walk throughout the round that just ended, yet never left their tile."""
    totals, here, start = dict(state.totals or ()), dict(state.pawns), dict(state.turn_start)
    found = []
    for colour, could in state.could_move:
        total = totals.get(colour, 0)
        if could and total > 0 and here.get(colour) is not None and here.get(colour) == start.get(colour):
            tile = here[colour]
            options = list(reachable(state.layout, state.rays, tile, total, state.cap))
            found.append({"event": "pawn_move", "colour": colour, "from": tile, "to": tile, "total": total,
                          "legal": False, "reachable": options,
                          "reason": f"the {colour} pawn stayed on {tile} with {total} points although it could "
                                    f"reach {lc.joined(options)}; a positive total obliges a move"})
    return found


def final_event(state: ReplayState) -> list[dict]:
    if state.ender is None:
        return []
    if state.hands is None:
        return [{"event": "final", "ended_by": state.ender, "legal": False, "scores": None, "out": [],
                 "winners": [], "reason": "the game was ended but no hands were seen laid out at the seats"}]
    result = final_scores(dict(state.hands), state.ender)
    event = {"event": "final", "scores": {p: score_json(s) for p, s in result.scores},
             "out": list(result.out), "winners": list(result.winners), "ended_by": state.ender,
             "legal": result.ender_may_end, "reason": result.reason}
    return lc.stamp([event], state.hands_frame)


def view(state: ReplayState) -> dict:
    """Everything a page shows now, as plain JSON values: the layout as seen, pawns, cap, order,
    where each pawn may walk with its total, where each tile may move, and the cut tiles."""
    if state.layout is None or state.lattice is None:
        return {"layout": None}
    lattice, layout = state.lattice, state.layout
    totals = dict(state.totals) if state.totals is not None else None
    start = dict(state.turn_start)
    walks = {}
    for colour, tile in state.pawns:
        origin = start.get(colour, tile)
        if tile is not None and totals is not None and colour in totals:
            walks[colour] = {"from": origin, "total": totals[colour],
                             "reachable": reachable(layout, state.rays, origin, totals[colour], state.cap)}
    return {
        "layout": {t.energy: {"cell": _cell(t.cell), "turn": t.turn,
                              "center_mm": [round(v, 1) for v in lattice.centre(t.cell)],
                              "rotation": round(lattice.rotation(t.turn), 1)} for t in layout.tiles},
        "pawns": dict(state.pawns), "cap": state.cap, "totals": totals, "walks": walks,
        "moves": {t.energy: [_cell(c) for c in destinations(layout, t.energy)] for t in layout.tiles},
        "cut_tiles": [t.energy for t in layout.tiles if is_cut_tile(layout, t.energy)],
        "ended_by": state.ender,
    }


class Replay(SteppedReplay):
    """`feed(line) -> events`, `finish() -> closing events`, `view() -> the page's picture of now`."""

    parse, step, show, closing = staticmethod(parse_line), staticmethod(step), staticmethod(view), staticmethod(final_event)

    def __init__(self, rays: RayTable | None = None, hex_mm: float = DEFAULT_ACROSS_FLATS_MM) -> None:
        super().__init__(ReplayState(rays=rays or RayTable.default(), pitch=hex_mm))
