"""Random legal Enigmo play, and how a game state maps to an Observation.

`random_game(seed, players=2, rounds=3)` returns a list of `EnigmoState`, each the
table after one action: a roll (dice values and where they landed), an opening, a
proposal (its `proposal` field holds the replay input line), the shutters all opened
to show the word, all closed again for the next card.

State → Observation (`to_observation`): `shutters` as in the state (true = open, labels
1..10 left to right); each die with its value at its `center_mm` (table mm, in a throwing
area in front of the shutter box; between rolls the dice stay where they landed).
`record()` gives the replay input lines: the players line, then per state its
proposal line or its Observation.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace

from tablecam.rules.enigmo import pad as pads
from tablecam.rules.enigmo.shutters import SHUTTERS, closed, options, points_at_stake

PLAYER_NAMES = ("Ann", "Bob", "Cleo", "Dev")
THROW_AREA_MM = ((420.0, 300.0), (700.0, 450.0))  # (x0, y0), (x1, y1): where dice land
MIN_THROW_MM = 40.0  # dice of a new throw land at least this far from where they lay


@dataclass(frozen=True)
class EnigmoState:
    shutters: tuple[bool, ...]
    dice: tuple[tuple[int, tuple[float, float]], ...]  # (value, centre in table mm)
    scores: tuple[tuple[str, int], ...]
    proposal: dict | None  # the replay line of the proposal that led here
    action: str


def random_game(seed: int, players: int = 2, rounds: int = 3) -> list[EnigmoState]:
    """A whole random game of legal actions: rolls, openings and proposals until the agreed rounds."""
    if not 2 <= players <= 4:
        raise ValueError("Enigmo is played by 2 to 4 players")
    rng = random.Random(seed)
    pad = pads.Pad.new(PLAYER_NAMES[:players], rounds=rounds)
    shutters = (False,) * SHUTTERS
    dice: tuple = ()
    state = EnigmoState(shutters, dice, tuple(pad.as_dict().items()), None, "start")
    states = [state]
    while not pads.over(pad):
        roller = pad.players[pad.on_turn]
        proposer = roller
        if rng.random() < 0.9 or not any(shutters):  # now and then a player proposes without rolling
            dice = _throw(rng, dice)
            pad = pads.rolled(pad)
            state = replace(state, dice=dice, action=f"{roller} rolls")
            states.append(state)
            allowed = options((dice[0][0], dice[1][0]), shutters)
            if allowed:  # a shutter that can be opened must be
                way = rng.choice(allowed)
                shutters = tuple(s or (n + 1) in way.shutters for n, s in enumerate(shutters))
                state = replace(state, shutters=shutters, action=f"opens {way.shutters}")
                states.append(state)
        if rng.random() < 0.15 + 0.1 * (SHUTTERS - len(closed(shutters))):
            right, red = rng.random() < 0.6, rng.random() < 0.2
            pad = pads.propose(pad, proposer, right, points_at_stake(shutters, red))
            line = {"guess": proposer, "right": right, "red": red}
            state = replace(state, scores=tuple(pad.as_dict().items()), proposal=line, action="proposal")
            states.append(state)
            state = replace(state, shutters=(True,) * SHUTTERS, proposal=None, action="word shown")
            states.append(state)
            shutters = (False,) * SHUTTERS
            state = replace(state, shutters=shutters, action="next card")
            states.append(state)
    return states


def _throw(rng: random.Random, previous: tuple) -> tuple[tuple[int, tuple[float, float]], ...]:
    (x0, y0), (x1, y1) = THROW_AREA_MM
    while True:
        points = [(round(rng.uniform(x0, x1), 1), round(rng.uniform(y0, y1), 1)) for _ in range(2)]
        apart = math.dist(*points) > 30.0
        far = all(math.dist(p, q) > MIN_THROW_MM for p in points for _, q in previous)
        if apart and far:
            return tuple((rng.randint(1, 6), p) for p in points)


def to_observation(state: EnigmoState, frame_id: int = 0) -> dict:
    """The Observation a perfect detector prints for this state."""
    return {"game": "enigmo", "frame_id": frame_id, "shutters": list(state.shutters),
            "dice": [{"value": v, "center_mm": list(p)} for v, p in state.dice]}


def record(states: list[EnigmoState], rounds: int | None = None) -> list[dict]:
    """Replay input lines: the players line, then per state its proposal line or its Observation."""
    lines: list[dict] = [{"players": [p for p, _ in states[0].scores], "rounds": rounds}]
    for n, state in enumerate(states):
        lines.append(state.proposal if state.proposal else to_observation(state, n))
    return lines
