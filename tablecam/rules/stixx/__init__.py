"""Stixx rules engine (shared/games/stixx.md): the 42-slot board, the basic game and the expert variant.

Modules: board (intersections, slots, table mm ↔ slot, 60-degree turns), basic (sticks
that may be taken, picks, declarations, the end, the winner), expert (legal moves,
six-branch star, the end, the winner), game (random legal play, state → Observation),
replay (Observations and declarations → rule events).
"""

from tablecam.rules.stixx.basic import COLOURS, MARKER, BasicState
from tablecam.rules.stixx.board import SLOTS, BoardPose, touching
from tablecam.rules.stixx.expert import ExpertState, legal_moves

__all__ = ["BasicState", "BoardPose", "COLOURS", "ExpertState", "MARKER", "SLOTS", "legal_moves", "touching"]
