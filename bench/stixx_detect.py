"""Speed and accuracy of the Stixx detector on fresh simulator renders (issue 8's Stixx targets).

    .venv/bin/python bench/stixx_detect.py                        # seeds 100000-100199
    .venv/bin/python bench/stixx_detect.py --first 300000         # a range never tuned on
    .venv/bin/python bench/stixx_detect.py --repeat 3             # speed: fastest of 3 per frame
    .venv/bin/python bench/stixx_detect.py --first 100500 --failures --crops /tmp/stixx_failures

Each seed is `tablecam.simulator.render_random("stixx", seed)` (all nuisances: lens, tilt, table
tops, light, shadows, glare, blur, noise, JPEG, objects, a hand in about a third) at 2028x1520,
kept as PNG under --cache (lossless: the detector sees the very pixels) so a second run only
detects. The detector gets the camera's lens profile, as a calibrated tablecam has it. Tuning
was done on seeds below 100000 and on the failures of 100000-100449 and 100500-100699; the
failures of 200000-200199 were looked at (not tuned on: one board under a hand); seeds from
300000 were only ever run through this script to be counted. Session 3 tuned on seeds 8000-8324 and on
hand-over-the-board renders of seeds 60000-61059; 800000-800199 were first rendered for the final count.

Timing is the `detect` call only, with OpenCV on one thread: wall clock and this process's CPU
time (process_time, fairer when other jobs share the machine; both printed, with the load
average); `--repeat N` times each frame N times and keeps the fastest. How readings are judged:
tests/vision/board_scenes.py (score_stixx).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "vision"))

from board_scenes import (HIDDEN, StixxScore, cached_scene, canonical_stixx, groove_hidden,  # noqa: E402
                          score_stixx)

from tablecam.errors import UserError  # noqa: E402
from tablecam.rules.stixx.board import BoardPose  # noqa: E402
from tablecam.vision.stixx import NO_BOARD, detect  # noqa: E402

# Renders of the simulator from session 2 on (board finish, slots in the reported frame); the
# session-1 cache of bench/stixx_enix_detect.py holds older pictures of the same seeds.
DEFAULT_CACHE = "/tmp/tablecam_stixx_renders"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--first", type=int, default=100000)
    parser.add_argument("--cache", default=DEFAULT_CACHE)
    parser.add_argument("--failures", action="store_true", help="list every reading that was not right")
    parser.add_argument("--crops", help="write a picture of each failing groove into this folder")
    parser.add_argument("--repeat", type=int, default=1,
                        help="time each frame this many times and keep the fastest (resists a loaded machine)")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    total = StixxScore()
    wall, cpu = [], []
    refused = []
    unfound = []  # (seed, its sticks counted wrong, its grooves a hand hides)
    seed = args.first
    while total.images < args.count:
        try:
            scene = cached_scene("stixx", seed, Path(args.cache))
        except UserError as exc:  # the simulator cannot draw this state (reported, not counted)
            refused.append((seed, str(exc)))
            seed += 1
            continue
        times = []
        for _ in range(args.repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            obs = detect(scene.image, profile=scene.profile)
            times.append((1000 * (time.perf_counter() - t0), 1000 * (time.process_time() - c0)))
        wall.append(min(t for t, _ in times))
        cpu.append(min(c for _, c in times))
        score = score_stixx(obs, scene)
        total.add(score)
        if obs["board"] is None:
            # Nothing claimed: the board is null with a warning; the judge counts its sticks wrong.
            unfound.append((seed, score.slots_wrong, sum(h > HIDDEN for h in groove_hidden(scene))))
        if args.failures and score.failures:
            print("  seed", seed, score.failures, "board", obs["board"], flush=True)
        if args.crops and score.failures:
            _write_crops(Path(args.crops), scene, obs, score.failures)
        seed += 1
    load = os.getloadavg()
    visible = total.slots - total.slots_null_hidden
    print(f"stixx: {total.images} renders, seeds {args.first}-{seed - 1}, 2028x1520, all nuisances "
          f"({len(refused)} seeds the simulator refused to draw)")
    print(f"detect ms per frame: wall median {statistics.median(wall):.1f}, p95 {np.percentile(wall, 95):.1f}; "
          f"CPU median {statistics.median(cpu):.1f}, p95 {np.percentile(cpu, 95):.1f} (fastest of {args.repeat} "
          f"per frame; one OpenCV thread; load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores)")
    print(f"slots right: {100 * total.slots_right / max(visible, 1):.2f} % of {visible} grooves in view "
          f"(wrong {total.slots_wrong}, unread although visible {total.slots_null_visible}); "
          f"{total.slots_null_hidden} grooves under a hand reported unread (colour null)")
    if unfound:
        print(f"  of the wrong: {sum(n for _, n, _ in unfound)} on {len(unfound)} board(s) not found (board null and "
              f"the warning '{NO_BOARD}'; seeds {', '.join(str(k) for k, _, _ in unfound)}, with "
              f"{', '.join(str(h) for _, _, h in unfound)} of 42 grooves under a hand); "
              f"{total.slots_wrong - sum(n for _, n, _ in unfound)} readings claimed wrong")
    print(f"boards exactly right: {100 * total.boards_right / total.images:.2f} % of {total.images} "
          f"(board found {total.boards_found}; pose within 3 mm and 1.5 deg, every groove right or unread "
          f"under a hand, none wrong)")
    if total.centre_errors:
        print(f"board centre error mm: median {np.median(total.centre_errors):.2f}, max {max(total.centre_errors):.2f}; "
              f"rotation error deg: median {np.median(total.rotation_errors):.2f}, max {max(total.rotation_errors):.2f}")
    print(f"sticks beside the board: {100 * total.loose_right / max(total.loose, 1):.1f} % of {total.loose} found "
          f"with their colour, {total.loose_invented} invented")
    return 0


def _write_crops(folder: Path, scene, obs: dict, failures: list) -> None:
    """A 160 px picture around each failing groove (from the truth's pose), named seed_slot_truth_read."""
    folder.mkdir(parents=True, exist_ok=True)
    truth = canonical_stixx(scene.truth)
    board = truth["board"]
    pose = BoardPose(tuple(board["center_mm"]), board["rotation"], 55.0)
    from tablecam.calibration.geometry import TableGeometry
    from tablecam.calibration.table import find_table  # the table fix maps mm to pixels

    fix = find_table(scene.image, TableGeometry(), scene.profile)
    for failure in failures:
        _, slot, want, got = failure[:4]
        x, y = fix.table_to_image([pose.slot_centre(slot)])[0]
        x, y = int(round(x)), int(round(y))
        crop = scene.image[max(0, y - 80):y + 80, max(0, x - 80):x + 80]
        if crop.size:
            cv2.imwrite(str(folder / f"{scene.seed}_{slot}_{want}_{got}.png"), cv2.resize(crop, None, fx=2, fy=2))


if __name__ == "__main__":
    raise SystemExit(main())
