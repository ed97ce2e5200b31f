"""The Enigmo score pad: proposals scored across rounds, whose turn it is, and the end.

Rules (enigmo.md): after opening (or without rolling at all) the player may propose a
word; the points at stake are won if right, lost if wrong. Then the card changes and
the player to the left of the proposer rolls next. The game ends at the agreed number
of rounds or score; most points wins.

Rulings (the rules leave these open):
- A round is one word card: it ends with a proposal, right or wrong.
- "The agreed score" ends the game as soon as a player reaches it or more after a
  proposal; "the agreed number of rounds" after that many proposals. With neither
  agreed, the game ends when the players stop (the replay's finish()).
- Scores may go below zero (a wrong proposal loses the points at stake).
- Players tied on the most points share the win.
- "To the left" is the next player in the players list (the list is in seating order,
  clockwise).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tablecam.rules.linecheck import joined


@dataclass(frozen=True)
class Pad:
    players: tuple[str, ...]
    scores: tuple[int, ...]
    rounds_played: int = 0
    rounds: int | None = None  # agreed number of rounds (word cards)
    target: int | None = None  # agreed score
    on_turn: int = 0  # index of the player who rolls next

    @classmethod
    def new(cls, players: tuple[str, ...], rounds: int | None = None, target: int | None = None) -> "Pad":
        if len(players) != len(set(players)):
            raise ValueError("a player's name appears twice")
        return cls(tuple(players), tuple(0 for _ in players), 0, rounds, target, 0)

    def score(self, player: str) -> int:
        return self.scores[self.players.index(player)]

    def as_dict(self) -> dict[str, int]:
        return dict(zip(self.players, self.scores))


def with_player(pad: Pad, player: str) -> Pad:
    """The pad with a player added at the end of the seating (when no players line named them)."""
    if player in pad.players:
        return pad
    return replace(pad, players=pad.players + (player,), scores=pad.scores + (0,))


def rolled(pad: Pad) -> Pad:
    """The player on turn rolled: the turn passes to the left."""
    return replace(pad, on_turn=(pad.on_turn + 1) % len(pad.players)) if pad.players else pad


def propose(pad: Pad, player: str, right: bool, stake: int) -> Pad:
    """A proposal: the stake is won or lost, the round ends, the proposer's left rolls next."""
    if player not in pad.players:
        raise ValueError(f"{player!r} is not one of the players ({', '.join(pad.players)})")
    i = pad.players.index(player)
    scores = list(pad.scores)
    scores[i] += stake if right else -stake
    return replace(pad, scores=tuple(scores), rounds_played=pad.rounds_played + 1,
                   on_turn=(i + 1) % len(pad.players))


def over(pad: Pad) -> str | None:
    """Why the game is over, or None."""
    if pad.target is not None:
        reached = [p for p, s in zip(pad.players, pad.scores) if s >= pad.target]
        if reached:
            return f"{joined(reached)} reached the agreed {pad.target} points"
    if pad.rounds is not None and pad.rounds_played >= pad.rounds:
        return f"the agreed {pad.rounds} rounds are played"
    return None


def winners(pad: Pad) -> tuple[tuple[str, ...], str]:
    if not pad.players:
        return (), "nobody proposed a word"
    best = max(pad.scores)
    top = tuple(p for p, s in zip(pad.players, pad.scores) if s == best)
    if len(top) > 1:
        return top, f"{joined(top)} share the win with {best} points"
    return top, f"{top[0]} wins with {best} points"
