"""`tablecam demo`: a whole micropul game told as the companion sees it, no camera needed."""

from __future__ import annotations

import argparse
import time


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "demo", help="play a generated micropul game through the rules engine and narrate it",
        description="Plays a random micropul game, turns every table state into the Observation a "
                    "camera would report, replays it through the rules and prints what the page would say.")
    p.add_argument("--seed", type=int, default=0, help="which generated game (default 0)")
    p.add_argument("--delay", type=float, default=0.0, help="seconds between events (default 0)")
    p.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from tablecam.companion.narrate import micropul
    from tablecam.rules.micropul.game import random_game
    from tablecam.rules.micropul.grid import Grid
    from tablecam.rules.micropul.record import observation
    from tablecam.rules.micropul.replay import Replay

    states = random_game(args.seed)
    final = states[-1]
    replay = Replay()
    replay.feed({"players": [{"name": p.name, "stone_colour": p.stone_colour} for p in final.players],
                 "hand": {p.stone_colour: len(p.hand) for p in final.players},
                 "reserve": {p.stone_colour: len(p.reserve) for p in final.players}})
    grid = Grid(7.0, (9.0, 6.0), 30.0)  # a board laid a little askew, as on a real table
    print(f"micropul demo game {args.seed}: {len(states) - 1} actions.")
    for frame, state in enumerate(states):
        for event in replay.feed(observation(state.board, state.stones, grid, frame)):
            who = state.players[state.last.player].name if state.last else ""
            print(f"[{frame:3d}] {who}: {micropul(event)}", flush=True)
            time.sleep(args.delay)
    for event in replay.finish():
        print(micropul(event))
    return 0
