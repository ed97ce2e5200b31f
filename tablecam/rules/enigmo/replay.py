"""Enigmo replay: stable Observations (JSON lines) and proposals in, rule events out.

Input lines, in time order:

- Players line (optional, first): `{"players": ["Ann", "Bob"], "rounds": 5, "target": 100}` —
  seating order (the first player rolls first; "to the left" = next in the list), and the
  agreed number of rounds and/or score. Without it, players join in the order they
  first propose a word, and rolls are not credited to anyone.
- Observation (ARCHITECTURE.md): `{"game": "enigmo", "frame_id": n, "shutters": [10 × true |
  false | null], "dice": [{"value": 1..6 | null, "center_mm": [x, y]}]}` — true = open, left
  to right = labels 1..10; a null shutter keeps its last reading.
- Proposal: `{"guess": "Ann", "right": true, "red": false}` — Ann proposed a word; right or
  wrong; `red` (default false) when the word is printed in red (double points).

A roll is recognised when two dice with values are seen after the dice were gone, or
show other values, or both moved more than 15 mm. After a proposal the shutters are
opened and closed again for the next card without events.

Events (each with the line's `frame_id` when it has one):

- `{"event": "roll", "player", "dice", "options", "must_open", "at_stake", "reason"}` —
  `options` lists each allowed way as a list of shutter labels.
- `{"event": "open", "player", "opened", "legal", "complete", "reason", "at_stake"}` —
  shutters opened since the roll, checked (`complete` false while a two-shutter way is
  half done); also `opened: []` with legal false when a roll that had to open nothing
  opened before the next roll or proposal.
- `{"event": "guess", "player", "right", "red", "at_stake", "points", "scores", "round", "next", "reason"}`.
- `{"event": "final", "over", "scores", "winners", "reason"}` — when the agreed rounds or
  score are reached, or from finish().
- `{"event": "unexplained", "reason"}` — shutters closing in the middle of a round, etc.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from tablecam.rules import linecheck as lc
from tablecam.rules.stepped import SteppedReplay
from tablecam.rules.enigmo import pad as pads
from tablecam.rules.enigmo.pad import Pad
from tablecam.rules.enigmo.shutters import (SHUTTERS, alternatives, check_opening, closed, names, options,
                                            points_at_stake)

ROLL_MOVE_MM = 15.0
Dice = tuple[tuple[int, tuple[float, float]], ...]  # (value, centre mm) of each readable die


@dataclass(frozen=True)
class PlayersLine:
    players: tuple[str, ...]
    rounds: int | None
    target: int | None


@dataclass(frozen=True)
class Proposal:
    player: str
    right: bool
    red: bool
    frame: int | None = None


@dataclass(frozen=True)
class Seen:
    frame: int | None
    shutters: tuple[bool | None, ...]
    dice: tuple[tuple[int | None, tuple[float, float]], ...]


def parse_line(line: dict) -> PlayersLine | Proposal | Seen:
    lc.check_game(line, "enigmo")
    if "guess" in line:
        return Proposal(lc.a_text(line["guess"], "guess (the proposing player)"),
                        lc.a_bool(lc.field(line, "right", "a guess line"), "right"),
                        lc.a_bool(line.get("red", False), "red"), lc.frame_id(line))
    if "players" in line and "shutters" not in line:
        players = tuple(lc.a_text(p, "a player's name") for p in lc.a_list(line["players"], "players"))
        if not players or len(set(players)) != len(players):
            raise ValueError("players must be distinct names, at least one")
        rounds = None if line.get("rounds") is None else lc.an_int(line["rounds"], "rounds", 1, 1000)
        target = None if line.get("target") is None else lc.an_int(line["target"], "target", 1, 100000)
        return PlayersLine(players, rounds, target)
    frame = lc.frame_id(line)
    raw = lc.a_list(lc.field(line, "shutters", "an Enigmo Observation"), "shutters")
    if len(raw) != SHUTTERS:
        raise ValueError(f"shutters must list all {SHUTTERS} shutters, not {len(raw)}")
    shutters = tuple(None if s is None else lc.a_bool(s, f"shutter {n + 1}") for n, s in enumerate(raw))
    dice = []
    for d in lc.a_list(line.get("dice", []), "dice"):
        value = lc.field(d, "value", "a die")
        dice.append((None if value is None else lc.an_int(value, "a die's value", 1, 6),
                     lc.a_point(lc.field(d, "center_mm", "a die"), "a die's center_mm")))
    return Seen(frame, shutters, tuple(dice))


@dataclass(frozen=True)
class ReplayState:
    pad: Pad = Pad((), ())
    named: bool = False  # a players line named the players
    shutters: tuple[bool, ...] = (False,) * SHUTTERS
    dice: tuple[tuple[int, tuple[float, float]], ...] | None = None  # last two readable dice seen
    roll: tuple[int, int] | None = None  # the roll being used
    roller: str | None = None
    before_roll: tuple[bool, ...] = (False,) * SHUTTERS  # shutters when the roll was made
    opened: frozenset[int] = frozenset()  # opened since that roll
    settled: bool = True  # the roll's opening is complete (or judged)
    between_cards: bool = False  # after a proposal, until every shutter is closed again
    final_said: bool = False


def _new_roll(previous: Dice | None, dice: Dice) -> bool:
    if previous is None:
        return True
    if sorted(v for v, _ in previous) != sorted(v for v, _ in dice):
        return True
    (a, b), (c, d) = (p for _, p in previous), (p for _, p in dice)
    # Pair the dice the cheaper way round; a throw moves both, a nudge at most one.
    straight = (math.dist(a, c), math.dist(b, d))
    crossed = (math.dist(a, d), math.dist(b, c))
    moved = min((straight, crossed), key=sum)
    return min(moved) > ROLL_MOVE_MM


def _unsettled(state: ReplayState) -> list[dict]:
    """The roll in use had to open something it did not (checked before the next roll or proposal)."""
    if state.roll is None or state.settled:
        return []
    verdict = check_opening(state.roll, state.before_roll, state.opened)
    if verdict.legal and verdict.complete:
        return []
    if state.opened:
        reason = verdict.reason.replace("must open too", "was never opened")
    else:
        reason = verdict.reason
    return [{"event": "open", "player": state.roller, "opened": sorted(state.opened), "legal": False,
             "complete": False, "reason": reason, "at_stake": points_at_stake(state.shutters)}]


def step(state: ReplayState, parsed: PlayersLine | Proposal | Seen) -> tuple[ReplayState, list[dict]]:
    if isinstance(parsed, PlayersLine):
        if state.pad.rounds_played or state.roll is not None:
            raise ValueError("the players line must come before the game starts")
        return replace(state, pad=Pad.new(parsed.players, parsed.rounds, parsed.target), named=True), []
    if isinstance(parsed, Proposal):
        return _propose(state, parsed)
    events: list[dict] = []
    shutters = tuple(s if s is not None else old for s, old in zip(parsed.shutters, state.shutters))
    if state.between_cards:
        if any(shutters):
            return replace(state, shutters=shutters), []
        state = replace(state, between_cards=False, shutters=shutters)  # every shutter closed: the next card
    readable = _readable(parsed.dice, None)
    if readable is not None and _new_roll(state.dice, readable):
        events += _unsettled(state)
        roll = (readable[0][0], readable[1][0])
        roller = state.pad.players[state.pad.on_turn] if state.pad.players else None
        allowed = options(roll, shutters)
        state = replace(state, roll=roll, roller=roller, before_roll=shutters, opened=frozenset(),
                        settled=not allowed, pad=pads.rolled(state.pad))
        reason = (f"{roller + ' rolled' if roller else 'rolled'} {roll[0]} and {roll[1]}: "
                  + ("open " + alternatives(allowed) if allowed
                     else "every shutter it allows is already open, so nothing opens"))
        events.append({"event": "roll", "player": roller, "dice": list(roll),
                       "options": [list(w.shutters) for w in allowed], "must_open": bool(allowed),
                       "at_stake": points_at_stake(shutters), "reason": reason})
    # Fewer than two dice: they are in a hand, so the next pair seen is a new roll.
    state = replace(state, dice=readable if readable is not None else (None if len(parsed.dice) < 2 else state.dice))
    newly = frozenset(n + 1 for n in range(SHUTTERS) if shutters[n] and not state.shutters[n])
    shut = [n + 1 for n in range(SHUTTERS) if state.shutters[n] and not shutters[n]]
    if shut:
        events.append({"event": "unexplained",
                       "reason": f"{names(shut)} closed again in the middle of a round"})
    if newly:
        if state.roll is None or state.settled and state.opened:
            events.append({"event": "open", "player": state.roller, "opened": sorted(newly), "legal": False,
                           "complete": True, "at_stake": points_at_stake(shutters),
                           "reason": f"{names(newly)} opened with no roll to allow it"})
        else:
            opened = state.opened | newly
            verdict = check_opening(state.roll, state.before_roll, opened)
            events.append({"event": "open", "player": state.roller, "opened": sorted(opened),
                           "legal": verdict.legal, "complete": verdict.complete, "reason": verdict.reason,
                           "at_stake": points_at_stake(shutters)})
            state = replace(state, opened=opened, settled=verdict.complete)
    return replace(state, shutters=shutters), lc.stamp(events, parsed.frame)


def _readable(dice: tuple, fallback: Dice | None) -> Dice | None:
    """Two dice whose values were read, or `fallback`."""
    if len(dice) == 2 and all(v is not None for v, _ in dice):
        return tuple(dice)
    return fallback


def _propose(state: ReplayState, p: Proposal) -> tuple[ReplayState, list[dict]]:
    if state.named and p.player not in state.pad.players:
        raise ValueError(f"{p.player!r} is not one of the players ({', '.join(state.pad.players)})")
    if state.between_cards:
        raise ValueError("a second proposal for the same card (the shutters were not closed for a new card)")
    events = _unsettled(state)
    pad = pads.with_player(state.pad, p.player)
    stake = points_at_stake(state.shutters, p.red)
    pad = pads.propose(pad, p.player, p.right, stake)
    sign = "wins" if p.right else "loses"
    red = "; red word: doubled" if p.red else ""
    left = ", ".join(str(c) for c in closed(state.shutters)) or "none"
    events.append({"event": "guess", "player": p.player, "right": p.right, "red": p.red, "at_stake": stake,
                   "points": stake if p.right else -stake, "scores": pad.as_dict(), "round": pad.rounds_played,
                   "next": pad.players[pad.on_turn],
                   "reason": f"{p.player} {'found' if p.right else 'missed'} the word and {sign} {stake} points "
                             f"(closed: {left}{red}); {pad.players[pad.on_turn]} rolls next"})
    # The dice stay as last seen: the old roll still lying there is not a new one.
    state = replace(state, pad=pad, roll=None, roller=None, opened=frozenset(), settled=True,
                    between_cards=True)
    why = pads.over(pad)
    if why and not state.final_said:
        events.append(final_event(pad, why))
        state = replace(state, final_said=True)
    return state, lc.stamp(events, p.frame)


def final_event(pad: Pad, why: str | None) -> dict:
    top, sentence = pads.winners(pad)
    reason = f"the game is over: {why}; {sentence}" if why else f"the record stops before the agreed end; {sentence}"
    return {"event": "final", "over": why is not None, "scores": pad.as_dict(), "rounds": pad.rounds_played,
            "winners": list(top), "reason": reason}


def view(state: ReplayState) -> dict:
    """Everything a page shows now, as plain JSON values: shutters, points at stake (plain and red),
    the roll in use and the shutters it allows, the scores, who rolls next, the round."""
    allowed = options(state.roll, state.before_roll) if state.roll and not state.settled else []
    pad = state.pad
    return {"shutters": list(state.shutters), "closed": list(closed(state.shutters)),
            "at_stake": points_at_stake(state.shutters), "at_stake_red": points_at_stake(state.shutters, True),
            "roll": list(state.roll) if state.roll else None, "roller": state.roller,
            "options": [list(w.shutters) for w in allowed if state.opened < set(w.shutters) or not state.opened],
            "scores": pad.as_dict(), "next": pad.players[pad.on_turn] if pad.players else None,
            "round": pad.rounds_played + 1, "over": pads.over(pad)}


def closing(state: ReplayState) -> list[dict]:
    """What `finish()` adds: the unsettled roll and the final scores, said once."""
    if state.final_said:
        return []
    return _unsettled(state) + [final_event(state.pad, pads.over(state.pad))]


class Replay(SteppedReplay):
    """`feed(line) -> events`, `finish() -> closing events`, `view() -> the page's picture of now`."""

    parse, step, show, closing = staticmethod(parse_line), staticmethod(step), staticmethod(view), staticmethod(closing)

    def __init__(self) -> None:
        super().__init__(ReplayState())
