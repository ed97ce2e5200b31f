"""ms per stable reading for the ENIX, Stixx and Enigmo companion sessions (apply + the page's view).

The frame loop only calls `Session.apply` on a stable change, but the page's state (`view`) is
built on every publish, so both are timed over simulated legal games (`rules.<game>.game`).

    .venv/bin/python bench/companion_games.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "companion"))

from games_helpers import enigmo_inputs, project, stixx_inputs  # noqa: E402

from tablecam.companion.games import enigmo, enix, stixx  # noqa: E402
from tablecam.rules.enigmo import game as enigmo_game  # noqa: E402
from tablecam.rules.enix import game as enix_game  # noqa: E402
from tablecam.rules.stixx import game as stixx_game  # noqa: E402

SEEDS = range(5)


def games():
    for seed in SEEDS:
        lines = stixx_game.record(stixx_game.random_game(seed))
        names = lines[0]["players"]
        yield "stixx", lambda n=names: stixx.Session([{"name": x, "stone_colour": c} for x, c in zip(n, stixx.STONE_COLOURS)]), stixx_inputs(lines, names)
        lines = enigmo_game.record(enigmo_game.random_game(seed))
        names = lines[0]["players"]
        yield "enigmo", lambda n=names: enigmo.Session([{"name": x, "stone_colour": c} for x, c in zip(n, enigmo.STONE_COLOURS)]), enigmo_inputs(lines, names)
        lines = enix_game.record(enix_game.random_game(seed))
        colours = [p["colour"] for p in lines[0]["players"]]
        yield "enix", lambda c=colours: enix.Session([{"name": f"P{i}", "stone_colour": x} for i, x in enumerate(c)]), [("stable", line) for line in lines[1:]]


def main() -> None:
    totals: dict[str, list[float]] = {}
    for game, make, inputs in games():
        session = make()
        apply_s = view_s = 0.0
        for n, (kind, payload) in enumerate(inputs):
            t0 = time.perf_counter()
            session.apply(kind, payload, n, 0.0)
            t1 = time.perf_counter()
            session.view(project)
            view_s += time.perf_counter() - t1
            apply_s += t1 - t0
        row = totals.setdefault(game, [0.0, 0.0, 0])
        row[0] += apply_s
        row[1] += view_s
        row[2] += len(inputs)
    for game, (apply_s, view_s, count) in totals.items():
        print(f"{game:7s} {count:5d} inputs  apply {1000 * apply_s / count:6.2f} ms/input  view {1000 * view_s / count:6.2f} ms/state")


if __name__ == "__main__":
    main()
