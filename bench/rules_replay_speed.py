"""How long the ENIX, Stixx and Enigmo rule engines take per stable table state (ms per line).

    .venv/bin/python bench/rules_replay_speed.py [--games N]

Replays N random legal games of each (tablecam.rules.<game>.game.random_game → record →
Replay.feed) and prints the mean and worst milliseconds per input line, plus the cost of
the questions a page asks on every frame (ENIX reachable tiles, Stixx expert legal moves,
Enigmo roll options).
"""

from __future__ import annotations

import argparse
import statistics
import time

from tablecam.rules.enigmo import replay as enigmo_replay
from tablecam.rules.enigmo.game import random_game as enigmo_game, record as enigmo_record
from tablecam.rules.enigmo.shutters import options
from tablecam.rules.enix import replay as enix_replay
from tablecam.rules.enix.energies import RayTable
from tablecam.rules.enix.game import random_game as enix_game, record as enix_record
from tablecam.rules.enix.paths import reachable
from tablecam.rules.stixx import replay as stixx_replay
from tablecam.rules.stixx.expert import legal_moves
from tablecam.rules.stixx.game import random_game as stixx_game, record as stixx_record


def per_line(module, records) -> list[float]:
    times = []
    for lines in records:
        replay = module.Replay()
        for line in lines:
            start = time.perf_counter()
            replay.feed(line)
            times.append((time.perf_counter() - start) * 1000.0)
    return times


def per_call(fn, args_list) -> float:
    start = time.perf_counter()
    for args in args_list:
        fn(*args)
    return (time.perf_counter() - start) * 1000.0 / max(1, len(args_list))


def report(name: str, times: list[float]) -> None:
    print(f"{name:<22} {len(times):6d} lines   mean {statistics.fmean(times):7.3f} ms/line   "
          f"p99 {sorted(times)[int(0.99 * (len(times) - 1))]:7.3f}   max {max(times):7.3f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    n = parser.parse_args().games
    enix = [enix_game(seed, players=4, rounds=6) for seed in range(n)]
    basic = [stixx_game(seed, players=4) for seed in range(n)]
    expert = [stixx_game(seed, players=3, variant="expert") for seed in range(n)]
    enigmo = [enigmo_game(seed, players=3, rounds=6) for seed in range(n)]
    report("enix replay", per_line(enix_replay, [enix_record(g) for g in enix]))
    report("stixx basic replay", per_line(stixx_replay, [stixx_record(g) for g in basic]))
    report("stixx expert replay", per_line(stixx_replay, [stixx_record(g) for g in expert]))
    report("enigmo replay", per_line(enigmo_replay, [enigmo_record(g, 6) for g in enigmo]))
    rays = RayTable.default()
    calls = [(s.layout, rays, "solar", 12, s.cap) for g in enix for s in g]
    print(f"{'enix reachable(12)':<22} {len(calls):6d} calls   mean {per_call(reachable, calls):7.3f} ms/call")
    calls = [(s.sticks,) for g in expert for s in g]
    print(f"{'stixx legal_moves':<22} {len(calls):6d} calls   mean {per_call(legal_moves, calls):7.3f} ms/call")
    calls = [((a, b), (False,) * 10) for a in range(1, 7) for b in range(1, 7)] * 50
    print(f"{'enigmo options':<22} {len(calls):6d} calls   mean {per_call(options, calls):7.3f} ms/call")


if __name__ == "__main__":
    main()
