"""The Stixx expert variant (2–3 players): legal moves, the six-branch star, the end and the winner.

Rules (stixx.md): 36 sticks (6 per colour) start with no two same-colour sticks
touching; 6 grooves stay empty. A move puts one stick into an empty groove, allowed
only if the stick's number of same-colour connections (counted at both ends) grows.
A player who has shown their colour moves two sticks in a turn. The game ends with a
six-branch star of one colour, or when no legal move remains. Winner: most sticks of
their own colour connected to another of that colour; tie: the player who did not
show their colour, or showed it last.

Rulings (the rules leave these open):
- A connection is another stick of the same colour sharing an intersection; it is
  counted once per stick (two grooves share at most one intersection). The stick's
  old groove is empty after the move, so it never counts as its own connection.
- Showing one's colour lasts: from the turn a player shows it, each of their turns
  has two moves (the second only if a legal move remains).
- Players tied on connected sticks and all showing at the same moment (or none of
  them showing) share the win.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tablecam.rules.linecheck import joined
from tablecam.rules.stixx.basic import COLOURS
from tablecam.rules.stixx.board import SLOTS, stars, touching

PER_COLOUR_EXPERT = 6
EMPTY_EXPERT = 6


@dataclass(frozen=True)
class ExpertState:
    sticks: tuple[str | None, ...]
    players: tuple[str, ...] = ()
    shown: tuple[tuple[str, str], ...] = ()  # (player, colour) in the order they were shown
    colours: tuple[tuple[str, str], ...] = ()  # every colour known (shown or given at setup)
    turn: int = 0
    moves_done: int = 0
    over: str | None = None

    @property
    def on_turn(self) -> str | None:
        return self.players[self.turn] if self.players else None

    def has_shown(self, player: str | None) -> bool:
        return any(p == player for p, _ in self.shown)

    @property
    def moves_allowed(self) -> int:
        return 2 if self.has_shown(self.on_turn) else 1


def links(sticks: tuple[str | None, ...], slot: int, colour: str, ignore: int | None = None) -> int:
    """Same-colour sticks sharing an intersection with `slot` (not counting `ignore`)."""
    return sum(1 for s in touching(slot) if s != ignore and sticks[s] == colour)


def check_setup(sticks: tuple[str | None, ...]) -> tuple[bool, str]:
    counts = {c: sum(1 for s in sticks if s == c) for c in COLOURS}
    wrong = [f"{n} {c}" for c, n in counts.items() if n != PER_COLOUR_EXPERT]
    if wrong:
        return False, f"the expert variant starts with 6 sticks of each colour; seen {joined(wrong)}"
    touching_pairs = sorted({tuple(sorted((s, t))) for s in range(SLOTS) if sticks[s]
                             for t in touching(s) if sticks[t] == sticks[s]})
    if touching_pairs:
        a, b = touching_pairs[0]
        return False, (f"no two sticks of one colour may touch at the start; the {sticks[a]} sticks in "
                       f"slots {a} and {b} do" + (f" ({len(touching_pairs)} such pairs)" if len(touching_pairs) > 1 else ""))
    return True, "36 sticks, 6 of each colour, none touching its own colour"


@dataclass(frozen=True)
class Move:
    player: str | None
    source: int
    target: int
    colour: str
    before: int
    after: int
    legal: bool
    reason: str


def judge(sticks: tuple[str | None, ...], source: int, target: int) -> Move:
    """Is moving the stick in `source` to the empty groove `target` legal? (No player or turn involved.)"""
    colour = sticks[source]
    if colour is None:
        raise ValueError(f"slot {source} holds no stick to move")
    if sticks[target] is not None:
        raise ValueError(f"slot {target} is not empty")
    before = links(sticks, source, colour)
    after = links(sticks, target, colour, ignore=source)
    legal = after > before
    verb = "grow" if legal else "do not grow"
    reason = (f"the {colour} stick moved from slot {source} to {target}: its {colour} connections {verb} "
              f"({before} → {after})")
    return Move(None, source, target, colour, before, after, legal, reason)


def legal_moves(sticks: tuple[str | None, ...]) -> list[tuple[int, int]]:
    """Every (source, target) move allowed now."""
    empty = [s for s in range(SLOTS) if sticks[s] is None]
    found = []
    for source in range(SLOTS):
        colour = sticks[source]
        if colour is None:
            continue
        before = links(sticks, source, colour)
        found.extend((source, t) for t in empty if links(sticks, t, colour, ignore=source) > before)
    return found


def star(sticks: tuple[str | None, ...]) -> str | None:
    """The colour of a six-branch star (the 6 grooves at an inner intersection all one colour), if any."""
    for _, slots in stars():
        colours = {sticks[s] for s in slots}
        if len(colours) == 1 and None not in colours:
            return colours.pop()
    return None


def end_reason(sticks: tuple[str | None, ...]) -> str | None:
    colour = star(sticks)
    if colour:
        return f"a six-branch star of {colour}"
    if not legal_moves(sticks):
        return "no legal move remains"
    return None


def move(state: ExpertState, source: int, target: int) -> tuple[ExpertState, Move]:
    """The player on turn moves a stick; the board changes whatever the verdict."""
    verdict = judge(state.sticks, source, target)
    player = state.on_turn
    reason = verdict.reason
    legal = verdict.legal
    if state.over:
        legal, reason = False, f"the game is already over ({state.over}); " + reason
    sticks = list(state.sticks)
    sticks[target], sticks[source] = sticks[source], None
    done = state.moves_done + 1
    new = replace(state, sticks=tuple(sticks), moves_done=done)
    if done >= state.moves_allowed or (not state.over and not legal_moves(new.sticks)):
        new = _next_turn(new)
    if not state.over:
        new = replace(new, over=end_reason(new.sticks))
    return new, replace(verdict, player=player, legal=legal, reason=(f"{player}: " if player else "") + reason)


def _next_turn(state: ExpertState) -> ExpertState:
    turn = (state.turn + 1) % len(state.players) if state.players else 0
    return replace(state, turn=turn, moves_done=0)


def reveal(state: ExpertState, player: str | None, colour: str) -> tuple[ExpertState, str]:
    note = ""
    if player is not None and state.players:
        if player not in state.players:
            raise ValueError(f"{player!r} is not one of the players ({', '.join(state.players)})")
        if player != state.on_turn and not state.over:
            note = f" (it was {state.on_turn}'s turn)"
            state = replace(state, turn=state.players.index(player), moves_done=0)
    shown = state.shown + ((player or "?", colour),) if not state.has_shown(player) else state.shown
    known = dict(state.colours)
    if player is not None:
        known[player] = colour
    state = replace(state, shown=shown, colours=tuple(sorted(known.items())))
    if state.over:
        return state, f"{player or 'a player'} is {colour}"
    return state, f"{player or 'a player'} shows {colour} and moves two sticks each turn from now{note}"


def connected_count(sticks: tuple[str | None, ...], colour: str) -> int:
    """Sticks of the colour touching at least one other of that colour."""
    return sum(1 for s in range(SLOTS) if sticks[s] == colour and links(sticks, s, colour) > 0)


def standings(state: ExpertState) -> tuple[dict[str, int | None], tuple[str, ...], str]:
    colours = dict(state.colours)
    scores = {p: (connected_count(state.sticks, colours[p]) if p in colours else None) for p in state.players}
    if not scores:
        return scores, (), "no players were named, so no winner can be called"
    unknown = [p for p, s in scores.items() if s is None]
    if unknown:
        return scores, (), f"the colour of {joined(unknown)} is not known; reveal it to call the winner"
    best = max(scores.values())
    tied = [p for p in state.players if scores[p] == best]
    if len(tied) == 1:
        return scores, (tied[0],), f"{tied[0]} wins with {best} connected sticks of their colour"
    # Tie: a player who never showed beats those who did; among those who showed, the latest wins.
    order = [p for p, _ in state.shown]
    rank = {p: (len(order) + 1 if p not in order else order.index(p)) for p in tied}
    top = max(rank.values())
    winners = tuple(p for p in tied if rank[p] == top)
    if len(winners) > 1:
        return scores, winners, f"{joined(winners)} tie on {best} connected sticks and share the win"
    how = "did not show their colour" if winners[0] not in order else "showed their colour last"
    return scores, winners, f"{joined(tied)} tie on {best} connected sticks; {winners[0]} {how} and wins"
