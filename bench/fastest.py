"""Timing a call on a shared machine: other jobs only ever add time, so of a few runs of the same
call the fastest is the closest to what the code itself costs."""

from __future__ import annotations

import time
from typing import Callable, TypeVar

T = TypeVar("T")


def fastest(call: Callable[[], T], repeat: int = 1) -> tuple[T, float, float]:
    """Runs `call` `repeat` times (at least once): its last result, and the fewest milliseconds of
    this process's CPU time and of wall clock that a run took."""
    result, cpu, wall = None, [], []
    for _ in range(max(1, repeat)):
        t0, c0 = time.perf_counter(), time.process_time()
        result = call()
        cpu.append(1000 * (time.process_time() - c0))
        wall.append(1000 * (time.perf_counter() - t0))
    return result, min(cpu), min(wall)
