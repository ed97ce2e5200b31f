"""Speed and accuracy of the micropul detector on fresh simulator renders (issue 5).

    .venv/bin/python bench/micropul_detect.py [--count 200] [--first-seed 100000] [--repeat 3] [--cache DIR]

Renders (or loads from the cache) `count` scenes, seeds first-seed.., each with a random camera
mount, random nuisances (light, colour cast, blur, noise, JPEG, glare, shadows, props, a hand in
about a third) and a random micropul game state in either tile artwork, at 2028x1520. The
detector gets the camera's lens profile, as a calibrated tablecam has it. Single-threaded
(cv2.setNumThreads(1)). Prints ms per frame (median, p95; each frame is detected `repeat` times and
its fastest run counts, which keeps other processes on the machine out of the figure as far as one
can) in process CPU time and wall clock, the load average while it ran, and the accuracy figures:

- quadrants right: over the tiles the photo can show (no hand over them; a tile whose face a stone
  leaves open is excused), a tile reported unknown counts as wrong for its four quadrants;
- boards exactly right: every tile read right (a tile under a hand or left open by a stone may be
  unknown or missing), no tile invented;
- stones right: found within 6 mm with the right colour, over the stones no hand covers.
The detector was tuned on seeds below 100000 (0-999, 1000-1299, 2000-2286); the tests use seeds from
100000; seeds 100000-100199 were also looked at (crops of misses) in session 2; 200000-200199 and
300000-300199 (session 2), 400000-400199 and 500000-500199 (session 3), 600000-600199 and 700000-700199
(session 4), 800000-800199 (session 5, and 900000-900199 run by the lead), 1000000-1000199 (session 6),
1100000-1100199 (session 7), 1200000-1200099 (session 7b), 1300000-1300199 (session 8), 1400000-1400199
(session 9's verification), 1500000-1500199 (session 10's) and 1600000-1600199 (session 11's) are ranges
nothing was ever tuned on (only their totals were read); sessions 4 and 5 tuned on 3000-3399 and 4000-4199,
session 6 on 5000-5399, session 7 on 5400-5925, session 8 on 6000-6299, session 9 on 6300-6499, session 10 on
6500-6699 (and 5400-6499), session 12 on 6700-6899 (6900-6999 held out: its totals first, then looked into;
3000-6699 run before and after), session 14 on 7000-7499 and 5000-5399 (7800-7999 held out, totals only),
session 15 on 7800-7999, 1800000-1800199 and 2000000-2000199 (all three counted before: totals first);
session 16 on 2100000-2100199 and 2200000-2200299 (both counted before: totals first);
2200300-2200599 was counted in session 17 (pre-registered), not looked into before the count;
1700000-1700199 and 1900000-1900199 were counted once each, never looked into.
A seed whose board the simulator cannot lay out (2257 is one) is left out and named.
"""

from __future__ import annotations

import os

# One core, as on the Pi's budget: numpy's BLAS would otherwise spread the small matrix products.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import pickle  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "vision"))

from fastest import fastest  # noqa: E402
from micropul_scenes import Score, render_scene, score, simulator_version  # noqa: E402

from tablecam.errors import UserError  # noqa: E402
from tablecam.vision.micropul import MicropulDetector, MicropulSettings, detect  # noqa: E402

TARGETS = {"ms_median": 60.0, "quadrants_right_pct": 99.9, "boards_right_pct": 98.0, "stones_right_pct": 99.0}


def load_scene(seed: int, cache: Path | None):
    path = cache / f"micropul_{seed}.pkl" if cache else None
    if path is not None and path.exists():
        with path.open("rb") as fh:
            return pickle.load(fh)
    scene = render_scene(seed)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        with tmp.open("wb") as fh:
            pickle.dump(scene, fh)
        tmp.replace(path)
    return scene


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--first-seed", type=int, default=100000)
    ap.add_argument("--cache", default=str(Path.home() / ".cache" / "tablecam" / "micropul_bench"),
                    help="folder of rendered scenes kept between runs ('' for none)")
    ap.add_argument("--no-profile", action="store_true", help="also run without the lens profile")
    ap.add_argument("--render-only", action="store_true", help="fill the cache and stop")
    ap.add_argument("--list", action="store_true", help="print each scene's result")
    ap.add_argument("--repeat", type=int, default=3, help="runs per frame; the fastest counts")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    # Renders are remade when the simulator (or the rules it draws states from) changes.
    cache = Path(args.cache) / simulator_version() if args.cache else None

    seeds = range(args.first_seed, args.first_seed + args.count)
    total = Score()
    wall, cpu, tracked = [], [], []
    t_render = time.perf_counter()
    scenes, unrenderable = [], []
    for seed in seeds:
        try:
            scenes.append(load_scene(seed, cache))
        except UserError:
            # The simulator cannot lay out that seed's board between the markers: no picture to read.
            unrenderable.append(seed)
    print(f"{len(scenes)} scenes ready in {time.perf_counter() - t_render:.0f} s "
          f"(seeds {seeds.start}-{seeds.stop - 1}, 2028x1520, all nuisances)"
          + (f"; seeds the simulator cannot draw (board too large), left out: {unrenderable}" if unrenderable else ""))
    if args.render_only:
        return 0
    detect(scenes[0].image, profile=scenes[0].profile)  # warm up: templates, imports
    load_before = os.getloadavg()[0]
    for sc in scenes:
        obs, ms_cpu, ms_wall = fastest(lambda: detect(sc.image, profile=sc.profile), args.repeat)
        wall.append(ms_wall)
        cpu.append(ms_cpu)
        s = score(obs, sc)
        total = total + s
        if args.list:
            print(f"  seed {sc.seed}: {len(sc.truth['tiles'])} tiles, wrong {s.tiles_wrong}, unknown {s.tiles_unknown}, "
                  f"invented {s.tiles_invented}, stones {s.stones_right}/{s.stones}, {wall[-1]:.0f} ms")
        # The companion's frame loop: the table lock and warp maps carry over from the last frame.
        detector = MicropulDetector(MicropulSettings(profile=sc.profile))
        detector.detect(sc.image)
        tracked.append(fastest(lambda: detector.detect(sc.image, frame_id=1), args.repeat)[1])

    rates = total.rates()
    print(f"load average (1 min) {load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end, "
          f"{os.cpu_count()} cores; fastest of {max(1, args.repeat)} runs per frame")
    print(f"detect(), one photo:   median {statistics.median(cpu):.1f} ms, p95 {np.percentile(cpu, 95):.1f} ms "
          f"per frame (process CPU time; wall clock {statistics.median(wall):.1f} / {np.percentile(wall, 95):.1f} ms)")
    print(f"MicropulDetector loop: median {statistics.median(tracked):.1f} ms, p95 {np.percentile(tracked, 95):.1f} ms "
          "per frame (CPU; table lock and warp maps kept)")
    print(f"quadrants right:       {rates['quadrants_right_pct']:.2f} % of {total.quadrants}")
    print(f"boards exactly right:  {rates['boards_right_pct']:.1f} % of {total.boards} "
          f"(strict, counting tiles under a hand or a stone: {rates['boards_strict_pct']:.1f} %)")
    print(f"stones right colour:   {rates['stones_right_pct']:.2f} % of {total.stones} (invented: {total.stones_invented})")
    print(f"tiles: {total.tiles} in the truth; read wrong {total.tiles_wrong}, unknown though visible "
          f"{total.tiles_unknown}, invented {total.tiles_invented}")
    err = np.array(total.centre_error_mm)
    print(f"tile centres: median error {np.median(err):.2f} mm, p99 {np.percentile(err, 99):.2f} mm")
    if args.no_profile:
        # Without a lens profile the table frame itself is bent (calibration's matter): the truth is
        # moved into that same frame (its pixels through the uncalibrated fix) to judge the reading.
        from dataclasses import replace

        from tablecam.calibration import find_table

        nop = Score()
        for sc in scenes:
            fix = find_table(sc.image)
            truth = dict(sc.truth)
            for key in ("tiles", "stones"):
                px = [p["center_px"] for p in sc.truth["pixels"][key]]
                moved = fix.image_to_table(np.array(px).reshape(-1, 2)) if px else []
                truth[key] = [dict(t, center_mm=[float(v) for v in m]) for t, m in zip(sc.truth[key], moved)]
            nop = nop + score(detect(sc.image), replace(sc, truth=truth))
        r = nop.rates()
        print(f"without a lens profile (truth moved into the uncalibrated frame): quadrants "
              f"{r['quadrants_right_pct']:.2f} %, boards {r['boards_right_pct']:.1f} %, stones "
              f"{r['stones_right_pct']:.2f} %, read wrong {nop.tiles_wrong}, invented {nop.tiles_invented}")
    figures = dict(rates, ms_median=statistics.median(cpu))
    missed = [k for k, target in TARGETS.items()
              if (figures[k] > target if k == "ms_median" else figures[k] < target)]
    print("targets met" if not missed else "targets missed: " + ", ".join(
        f"{k} {figures[k]:.2f} (target {TARGETS[k]})" for k in missed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
