"""Render speed of the demo sequence (the demo camera of `tablecam serve`), frames per second.

    .venv/bin/python bench/render_speed.py [--frames 120] [--resolution 2028x1520] [--games micropul,enix,...]

Counts every frame the sequence yields (held stable frames and frames with the hand),
with realistic random nuisances (noise, blur, JPEG, light falloff...), after the one-off
set-up of the table (printed separately).
"""

from __future__ import annotations

import argparse
import sys
import time
from itertools import islice
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tablecam.simulator import GAMES, CameraModel, parse_resolution, sequence  # noqa: E402


def measure(game: str, frames: int, resolution: tuple[int, int], seed: int) -> tuple[float, float, float, int]:
    """(set-up seconds, frames per second, ms per frame, hand frames) over `frames` frames."""
    t0 = time.perf_counter()
    stream = sequence(game, seed, CameraModel.default(resolution))
    next(stream)
    setup = time.perf_counter() - t0
    hands = 0
    t1 = time.perf_counter()
    for frame in islice(stream, frames):
        hands += not frame.stable
    spent = time.perf_counter() - t1
    return setup, frames / spent, 1000 * spent / frames, hands


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--frames", type=int, default=120)
    ap.add_argument("--resolution", default="2028x1520")
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    resolution = parse_resolution(args.resolution)
    print(f"demo sequence at {resolution[0]}x{resolution[1]}, {args.frames} frames per game after set-up")
    worst = float("inf")
    for game in args.games.split(","):
        setup, fps, ms, hands = measure(game, args.frames, resolution, args.seed)
        worst = min(worst, fps)
        print(f"{game:9s} set-up {setup * 1000:6.0f} ms | {fps:5.1f} frames/s | {ms:6.1f} ms/frame "
              f"| {hands} of {args.frames} frames with the hand")
    print(f"slowest game: {worst:.1f} frames/s ({'meets' if worst >= 5 else 'MISSES'} the 5 frames/s target)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
