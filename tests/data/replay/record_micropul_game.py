"""Writes micropul_game.jsonl: a whole game played by the engine, as the camera would report it.

The board lies at -14 degrees on the table, tile centres carry up to 1.5 mm of noise, the core
lies face down beside the board and unplayed stones sit in the players' supply. After the
tenth action a player lays an illegal tile (colour clash); the next view shows it taken back.
Run it again to remake the file: `python tests/data/replay/record_micropul_game.py`.
"""

import json
import random
from pathlib import Path

from tablecam.rules.micropul.board import Placed
from tablecam.rules.micropul.game import PlayTile, random_game
from tablecam.rules.micropul.grid import Grid
from tablecam.rules.micropul.record import observation
from tablecam.rules.micropul.tiles import ROTATIONS, all_tiles

SEED = 0
ILLEGAL_AFTER = 10


def illegal_tile(state):
    """A tile from a player's hand that would clash, and where."""
    for index in sorted(i for p in state.players for i in p.hand):
        for cell in state.board.open_cells():
            for rot in ROTATIONS:
                face = all_tiles()[index].face.rotated(rot)
                if (state.board.check(cell, face).reason or "").startswith("colour clash"):
                    return cell, Placed(face, index, rot)
    raise RuntimeError("no clashing tile in hand")


def noisy(obs, rng):
    for tile in obs["tiles"]:
        tile["center_mm"] = [round(v + rng.uniform(-1.5, 1.5), 2) for v in tile["center_mm"]]
    return obs


def beside_the_board(obs, state):
    # The core, face down, and the stones still in the players' supply.
    obs["tiles"].append({"center_mm": [720.0, 420.0], "rotation": 0, "quadrants": None, "big": None,
                         "catalyst": None, "face_down": True, "index": None})
    for n, player in enumerate(state.players):
        for k in range(player.stones_left):
            obs["stones"].append({"center_mm": [40.0 + 20 * k, 60.0 + 380 * n], "colour": player.stone_colour})
    return obs


def main() -> None:
    rng = random.Random(1)
    states = random_game(SEED)
    final = states[-1]
    grid = Grid(-14.0, (9.4, 5.2), 30.0)
    lines = [{"players": [{"name": p.name, "stone_colour": p.stone_colour} for p in final.players],
              "hand": {p.stone_colour: len(p.hand) for p in final.players},
              "reserve": {p.stone_colour: len(p.reserve) for p in final.players}}]
    frame = 0
    for i, state in enumerate(states):
        frame += 3
        lines.append(beside_the_board(noisy(observation(state.board, state.stones, grid, frame), rng), state))
        if i == ILLEGAL_AFTER:
            cell, placed = illegal_tile(state)
            frame += 3
            obs = observation(state.board, state.stones, grid, frame, extra_tiles={cell: placed})
            lines.append(beside_the_board(noisy(obs, rng), state))
    out = Path(__file__).with_name("micropul_game.jsonl")
    out.write_text("".join(json.dumps(line) + "\n" for line in lines))
    plays = sum(isinstance(s.last.action, PlayTile) for s in states[1:])
    print(f"{out}: {len(lines)} lines, {plays} tiles played, core left {final.core_left}")


if __name__ == "__main__":
    main()
