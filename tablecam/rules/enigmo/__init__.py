"""Enigmo rules engine (shared/games/enigmo.md): shutters a roll allows, openings checked, the score pad.

Modules: shutters (ways of using a roll, opening check, points at stake), pad (proposals
across rounds, turns, the end), game (random legal play, state → Observation), replay
(Observations and proposals → rule events).
"""

from tablecam.rules.enigmo.pad import Pad
from tablecam.rules.enigmo.shutters import check_opening, options, points_at_stake, ways

__all__ = ["Pad", "check_opening", "options", "points_at_stake", "ways"]
