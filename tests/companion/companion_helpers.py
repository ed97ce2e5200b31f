"""Shared makers for the companion tests: micropul games as the Observations a camera would give."""

from __future__ import annotations

from tablecam.rules.micropul.game import TakeFromReserve, random_game
from tablecam.rules.micropul.grid import Grid
from tablecam.rules.micropul.record import observation

GRID = Grid(7.0, (9.0, 6.0), 30.0)  # a board laid a little askew, as on a real table
PLAYERS = [{"name": "Ann", "stone_colour": "red"}, {"name": "Bob", "stone_colour": "blue"}]


def game_inputs(seed: int):
    """(states, inputs): every action of a random game as the input the companion gets for it:
    ("reserve", {}) for a tile taken from a reserve (off camera), else ("stable", observation)."""
    states = random_game(seed)
    inputs = []
    for i, state in enumerate(states):
        if state.last is not None and isinstance(state.last.action, TakeFromReserve):
            inputs.append(("reserve", {}))
        else:
            inputs.append(("stable", observation(state.board, state.stones, GRID, i)))
    return states, inputs


def with_hand(obs: dict) -> dict:
    return dict(obs, warnings=["a hand is over the table"])
