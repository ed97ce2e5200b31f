"""One module per game: what the companion needs to know of a game beyond its rules engine.

A game module (`tablecam.companion.games.<name>`) defines:
- `NAME`, `TITLE`, `STONE_COLOURS` (the colours players may choose), `MIN_PLAYERS`, `MAX_PLAYERS`;
- `same_state(a, b) -> bool`: two Observations show the same table (detector noise aside);
- `disturbed(observation) -> bool`: hands (or anything) over the pieces: pause, never a move;
- optionally `plausible(last_stable, observation) -> bool`: one move's worth of change (a change
  that is not must hold several times longer before the tracker believes it), and
  `recogniser_state(last_state, observation) -> state`: what the recogniser is given with the
  next frame (micropul: the faces last read where a stone or a hand now hides a tile);
- `Session(players)`: the game in progress, rebuilt from its stored inputs; its `apply(kind,
  payload, input_id, at)` takes a stable reading or a players' correction and returns the
  history entries it made, `view(project)` returns the page's state, `CORRECTIONS` names the
  inputs players may make (with the PIN) and undo.
The page part is `static/games/<name>.js`. Adding a game is adding these two files.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from tablecam.errors import UserError

# Games whose companion part exists; the others are recognised names with no page yet.
AVAILABLE = ("micropul", "enix", "stixx", "enigmo")
KNOWN = ("micropul", "enix", "stixx", "enigmo")


def game_module(name: object) -> ModuleType:
    if name not in KNOWN:
        raise UserError(f"unknown game {name!r}: choose one of {', '.join(KNOWN)}.")
    if name not in AVAILABLE:
        raise UserError(f"{name} cannot be followed live yet: only {', '.join(AVAILABLE)} can.")
    return importlib.import_module(f"{__name__}.{name}")
