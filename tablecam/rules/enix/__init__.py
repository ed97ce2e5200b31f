"""ENIX rules engine (shared/games/enix.md): layout on the hex lattice, tile actions, pawn paths, cards.

Modules: energies (components, ray table), lattice (table mm ↔ hex cells), layout
(setup check, connectivity, rotate/move/illegal), paths (crossing costs, reachable
tiles, pawn-move check), cards (order of play with battles, final scores), game
(random legal play, state → Observation), replay (Observations → rule events).
"""

from tablecam.rules.enix.cards import Card, final_scores, play_order
from tablecam.rules.enix.energies import ENERGIES, PAWN_COLOURS, RayTable
from tablecam.rules.enix.lattice import Lattice
from tablecam.rules.enix.layout import Layout, Placed, check_setup, classify, destinations, is_connected
from tablecam.rules.enix.paths import check_pawn_move, crossing_cost, reachable

__all__ = ["Card", "ENERGIES", "Lattice", "Layout", "PAWN_COLOURS", "Placed", "RayTable", "check_pawn_move",
           "check_setup", "classify", "crossing_cost", "destinations", "final_scores", "is_connected",
           "play_order", "reachable"]
