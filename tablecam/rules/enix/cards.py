"""ENIX cards: the order of play from the revealed cards (battles included) and the final scores.

Rulings (enix.md leaves these open):
- In a battle the tied players compare their newly added cards; a player's cards
  are therefore compared in the order they were laid (first card first), which is
  the same as comparing running sums.
- Only value cards take part in the reveal; an ENIX card laid during a round was
  played to move the cap and is ignored for the order.
- Halving is exact: 17 halved is 8.5, never rounded. A score above 25 is out
  ("26 or more" for whole numbers; 25.5 is out too).
- A tie for the best score goes to the player who ended the game; if that player is
  not among the tied, the tied players share the win.
- If every player is out, nobody wins.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping, Sequence

from tablecam.rules.enix.energies import ENERGIES, ENIX_CARD
from tablecam.rules.linecheck import joined

LIMIT = 25


@dataclass(frozen=True)
class Card:
    energy: str  # one of ENERGIES, or "enix"
    value: int | None  # None only for an ENIX card

    @property
    def is_enix(self) -> bool:
        return self.energy == ENIX_CARD


@dataclass(frozen=True)
class Order:
    """The order of play: ranking groups, best first; a group of several players is a battle still open."""

    ranking: tuple[tuple[str, ...], ...]
    totals: tuple[tuple[str, int], ...]  # movement total per player: all their revealed values added
    reason: str

    @property
    def decided(self) -> bool:
        return all(len(group) == 1 for group in self.ranking)

    @property
    def order(self) -> tuple[str, ...] | None:
        return tuple(g[0] for g in self.ranking) if self.decided else None

    @property
    def battles(self) -> tuple[tuple[str, ...], ...]:
        return tuple(g for g in self.ranking if len(g) > 1)


def _rank(players: Sequence[str], cards: Mapping[str, Sequence[int]], depth: int,
          notes: list[str]) -> list[tuple[str, ...]]:
    """Rank players by their card at `depth`, breaking ties with the next card (a battle)."""
    lacking = [p for p in players if len(cards[p]) <= depth]
    if lacking:
        # A tied group in which someone has not yet added a card stays one open battle.
        notes.append(f"{joined(sorted(players))} tie and battle: {joined(sorted(lacking))} must add a card")
        return [tuple(sorted(players))]
    by_value: dict[int, list[str]] = {}
    for p in players:
        by_value.setdefault(cards[p][depth], []).append(p)
    ranked: list[tuple[str, ...]] = []
    for value in sorted(by_value, reverse=True):
        group = by_value[value]
        if len(group) == 1:
            ranked.append((group[0],))
        else:
            ranked.extend(_rank(group, cards, depth + 1, notes))
    return ranked


def play_order(revealed: Mapping[str, Sequence[int]]) -> Order:
    """Who plays first: highest card first; ties battle with further cards until broken.

    `revealed` maps each player to the values they laid this round, in the order laid.
    """
    players = sorted(revealed)
    if not players:
        return Order((), (), "no cards are revealed")
    missing = [p for p in players if not revealed[p]]
    if missing:
        return Order((tuple(players),), tuple((p, sum(revealed[p])) for p in players),
                     f"waiting for {joined(missing)} to reveal a card")
    notes: list[str] = []
    ranking = _rank(players, revealed, 0, notes)
    totals = tuple((p, sum(revealed[p])) for p in players)
    if notes:
        return Order(tuple(ranking), totals, "; ".join(notes))
    extra = [p for p in players if len(revealed[p]) > _cards_needed(p, revealed)]
    reason = "order of play: " + ", ".join(ranking_text(ranking, dict(totals)))
    if extra:
        reason += f" ({joined(extra)} laid more cards than a battle needs)"
    return Order(tuple(ranking), totals, reason)


def _cards_needed(player: str, revealed: Mapping[str, Sequence[int]]) -> int:
    """How many cards this player needed: one more than the longest common prefix with anyone."""
    mine = list(revealed[player])
    needed = 1
    for other, theirs in revealed.items():
        if other == player:
            continue
        n = 0
        while n < min(len(mine), len(theirs)) and mine[n] == theirs[n]:
            n += 1
        needed = max(needed, n + 1)
    return needed


def ranking_text(ranking: Sequence[Sequence[str]], totals: Mapping[str, int]) -> list[str]:
    return [f"{joined(group)} ({totals[group[0]]})" for group in ranking]


@dataclass(frozen=True)
class Final:
    scores: tuple[tuple[str, Fraction], ...]
    out: tuple[str, ...]
    winners: tuple[str, ...]
    ender: str | None
    ender_may_end: bool
    reason: str


def hand_score(hand: Sequence[Card]) -> Fraction:
    """Values added (negatives subtract), halved once per ENIX card held."""
    total = Fraction(sum(c.value for c in hand if not c.is_enix and c.value is not None))
    return total / (2 ** sum(1 for c in hand if c.is_enix))


def holds_all_energies(hand: Sequence[Card]) -> bool:
    return set(ENERGIES) <= {c.energy for c in hand}


def final_scores(hands: Mapping[str, Sequence[Card]], ender: str | None) -> Final:
    """End-of-game scores: closest to 25 without passing it wins; ties go to the player who ended."""
    scores = {p: hand_score(h) for p, h in hands.items()}
    out = sorted(p for p, s in scores.items() if s > LIMIT)
    inside = {p: s for p, s in scores.items() if s <= LIMIT}
    may_end = ender is not None and holds_all_energies(hands.get(ender, ()))
    if not inside:
        winners: list[str] = []
        reason = "every player passed 25, so nobody wins"
    else:
        best = max(inside.values())
        winners = sorted(p for p, s in inside.items() if s == best)
        if len(winners) > 1 and ender in winners:
            reason = f"{joined(winners)} tie on {_show(best)}; {ender} ended the game and wins the tie"
            winners = [ender]
        elif len(winners) > 1:
            reason = f"{joined(winners)} tie on {_show(best)} and share the win"
        else:
            reason = f"{winners[0]} wins with {_show(best)}"
    if out:
        reason += f"; {joined(out)} passed 25 and {'is' if len(out) == 1 else 'are'} out"
    if ender is not None and not may_end:
        missing = [e for e in ENERGIES if e not in {c.energy for c in hands.get(ender, ())}]
        reason += f"; {ender} ended the game without holding all six energies ({joined(missing)} missing)"
    return Final(tuple(sorted(scores.items())), tuple(out), tuple(winners), ender, may_end, reason)


def _show(score: Fraction) -> str:
    return str(int(score)) if score.denominator == 1 else f"{float(score):g}"


def score_json(score: Fraction) -> int | float:
    return int(score) if score.denominator == 1 else float(score)
