"""The Stixx basic game: which sticks may be taken, each pick checked, turns, the end and the winner.

Rules (stixx.md): the first move takes any stick and puts the grey marker in its
groove. Then a player either (A) takes one stick connected to the marker (sharing an
intersection with one of the marker's ends) and moves the marker into its groove; or
(B) reveals their colour and takes two sticks that way, one after the other; or (C)
names another player's colour: if right, takes two sticks as in (B); if wrong, the
turn ends. The game ends when a player holds 7 sticks of their colour, when the
marker touches no stick, or when the board is empty. Winner: most sticks of their own
colour; tie: most sticks in all.

Rulings (the rules leave these open):
- A stick counts as taken when it leaves its groove; the marker may follow in a
  later moment. The next stick of a two-stick turn must touch the groove of the
  stick just taken (where the marker belongs).
- "Holds 7 sticks of their colour" can only be checked once that colour is known
  (given at setup, revealed, or guessed right); a reveal made after the fact ends the
  game at once when the player holds 7.
- A pick is credited to the player on turn. A declaration by another player moves
  the turn to that player (the companion follows the table rather than arguing).
- Players still tied on own-colour sticks and on sticks in all share the win.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tablecam.rules.linecheck import joined
from tablecam.rules.stixx.board import SLOTS, touching

COLOURS = ("red", "orange", "yellow", "green", "blue", "purple")
MARKER = "grey"
PER_COLOUR_BASIC = 7


@dataclass(frozen=True)
class BasicState:
    sticks: tuple[str | None, ...]  # colour per slot, None = empty groove
    marker: int | None  # the groove the marker belongs in (None before the first move)
    players: tuple[str, ...] = ()
    colours: tuple[tuple[str, str], ...] = ()  # (player, colour) for each colour known
    taken: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (player, colours of the sticks taken)
    turn: int = 0  # index in players of the player on turn
    picks_allowed: int = 1
    picks_done: int = 0
    over: str | None = None  # why the game ended

    @property
    def on_turn(self) -> str | None:
        return self.players[self.turn] if self.players else None

    def colour_of(self, player: str) -> str | None:
        return dict(self.colours).get(player)

    def taken_by(self, player: str) -> tuple[str, ...]:
        return dict(self.taken).get(player, ())


def full_board() -> tuple[str, ...]:
    """A starting board: 7 sticks of each colour (the arrangement is the players'; this one is for tests)."""
    return tuple(COLOURS[s % len(COLOURS)] for s in range(SLOTS))


def new_game(sticks: tuple[str | None, ...], players: tuple[str, ...] = (),
             colours: dict[str, str] | None = None) -> BasicState:
    return BasicState(tuple(sticks), None, tuple(players), tuple(sorted((colours or {}).items())),
                      tuple((p, ()) for p in players))


def check_setup(sticks: tuple[str | None, ...], marker_seen: bool) -> tuple[bool, str]:
    counts = {c: sum(1 for s in sticks if s == c) for c in COLOURS}
    wrong = [f"{n} {c}" for c, n in counts.items() if n != PER_COLOUR_BASIC]
    if wrong:
        return False, f"the basic game starts with 7 sticks of each colour in the 42 grooves; seen {joined(wrong)}"
    if marker_seen:
        return False, "the marker goes on the board only with the first stick taken"
    return True, "42 sticks, 7 of each colour: take any stick to begin"


def options(state: BasicState) -> list[int]:
    """The slots whose stick may be taken now."""
    if state.over:
        return []
    if state.marker is None:
        return [s for s in range(SLOTS) if state.sticks[s] is not None]
    return sorted(s for s in touching(state.marker) if state.sticks[s] is not None)


@dataclass(frozen=True)
class Pick:
    player: str | None
    slot: int
    colour: str
    legal: bool
    reason: str


def pick(state: BasicState, slot: int) -> tuple[BasicState, Pick]:
    """The stick in `slot` is taken by the player on turn. The stick is gone whatever the verdict."""
    colour = state.sticks[slot]
    if colour is None:
        raise ValueError(f"slot {slot} holds no stick to take")
    player = state.on_turn
    who = player or "a player"
    allowed = options(state)
    if state.over:
        legal, reason = False, f"the game is already over ({state.over}), yet {who} took the {colour} stick in slot {slot}"
    elif slot in allowed:
        legal = True
        reason = (f"{who} took the {colour} stick in slot {slot} and puts the marker there" if state.marker is not None
                  else f"{who} took the first stick ({colour}, slot {slot}); the marker goes in its groove")
    else:
        legal = False
        reason = (f"{who} took the {colour} stick in slot {slot}, which does not touch the marker (slot {state.marker}); "
                  f"allowed: {', '.join(map(str, allowed)) or 'none'}")
    sticks = list(state.sticks)
    sticks[slot] = None
    taken = dict(state.taken)
    if player is not None:
        taken[player] = taken.get(player, ()) + (colour,)
    done = state.picks_done + 1
    new = replace(state, sticks=tuple(sticks), marker=slot, taken=tuple(sorted(taken.items())))
    if done >= state.picks_allowed:
        new = _next_turn(new)
    else:
        new = replace(new, picks_done=done)
    if not state.over:
        new = replace(new, over=end_reason(new))
    return new, Pick(player, slot, colour, legal, reason)


def _next_turn(state: BasicState) -> BasicState:
    turn = (state.turn + 1) % len(state.players) if state.players else 0
    return replace(state, turn=turn, picks_allowed=1, picks_done=0)


def _to_player(state: BasicState, player: str | None) -> tuple[BasicState, str]:
    """The declaring player is on turn from now (noting when the table got ahead of us)."""
    if player is None or not state.players or player == state.on_turn:
        return state, ""
    if player not in state.players:
        raise ValueError(f"{player!r} is not one of the players ({', '.join(state.players)})")
    note = f" (it was {state.on_turn}'s turn)" if state.picks_done == 0 else f" ({state.on_turn} had not finished)"
    return replace(state, turn=state.players.index(player), picks_allowed=1, picks_done=0), note


def reveal(state: BasicState, player: str | None, colour: str) -> tuple[BasicState, str]:
    """The player shows their colour: two picks this turn (or, after the end, just the colour recorded)."""
    if state.over:
        known = dict(state.colours)
        if player is not None:
            known[player] = colour
        return replace(state, colours=tuple(sorted(known.items()))), f"{player or 'a player'} is {colour}"
    state, note = _to_player(state, player)
    known = dict(state.colours)
    if player is not None:
        known[player] = colour
    state = replace(state, colours=tuple(sorted(known.items())), picks_allowed=2)
    state = replace(state, over=end_reason(state))
    return state, f"{player or 'a player'} shows {colour} and takes two sticks this turn{note}"


def guess(state: BasicState, player: str | None, target: str | None, colour: str, right: bool) -> tuple[BasicState, str]:
    """The player names another player's colour: right → two picks; wrong → the turn ends."""
    state, note = _to_player(state, player)
    if target is not None and state.players and target not in state.players:
        raise ValueError(f"{target!r} is not one of the players ({', '.join(state.players)})")
    who, whom = player or "a player", target or "another player"
    if right:
        known = dict(state.colours)
        if target is not None:
            known[target] = colour
        state = replace(state, colours=tuple(sorted(known.items())), picks_allowed=2)
        return replace(state, over=state.over or end_reason(state)), \
            f"{who} named {whom}'s colour ({colour}) right and takes two sticks this turn{note}"
    return _next_turn(state), f"{who} named {whom}'s colour wrong ({colour}); the turn passes{note}"


def end_reason(state: BasicState) -> str | None:
    """Why the game is over now, or None."""
    for player, colour in state.colours:
        if state.taken_by(player).count(colour) >= PER_COLOUR_BASIC:
            return f"{player} holds 7 {colour} sticks"
    if all(s is None for s in state.sticks):
        return "the board is empty"
    if state.marker is not None and not any(state.sticks[s] is not None for s in touching(state.marker)):
        return "the marker touches no stick"
    return None


@dataclass(frozen=True)
class Standing:
    player: str
    colour: str | None
    own: int | None
    total: int


def standings(state: BasicState) -> tuple[tuple[Standing, ...], tuple[str, ...], str]:
    """Each player's own-colour and total sticks, the winners, and a sentence."""
    rows = tuple(Standing(p, state.colour_of(p),
                          state.taken_by(p).count(state.colour_of(p)) if state.colour_of(p) else None,
                          len(state.taken_by(p))) for p in state.players)
    if not rows:
        return rows, (), "no players were named, so no winner can be called"
    unknown = [r.player for r in rows if r.colour is None]
    if unknown:
        return rows, (), f"the colour of {joined(unknown)} is not known; reveal it to call the winner"
    best = max((r.own, r.total) for r in rows)
    winners = tuple(r.player for r in rows if (r.own, r.total) == best)
    top_own = [r for r in rows if r.own == best[0]]
    own = f"{best[0]} stick{'' if best[0] == 1 else 's'} of their colour"
    if len(winners) > 1:
        return rows, winners, f"{joined(winners)} share the win with {own} and {best[1]} in all"
    if len(top_own) > 1:
        return rows, winners, f"{winners[0]} wins: tied with {own}, but most sticks in all ({best[1]})"
    return rows, winners, f"{winners[0]} wins with {own}"
