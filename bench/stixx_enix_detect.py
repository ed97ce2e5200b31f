"""Speed and accuracy of the Stixx and ENIX detectors on fresh simulator renders.

    .venv/bin/python bench/stixx_enix_detect.py --game stixx [--count 200] [--first 100000] [--failures]
    .venv/bin/python bench/stixx_enix_detect.py --game enix [--repeat 3]
    .venv/bin/python bench/stixx_enix_detect.py --game enix --first 4200 --count 30 --against a74715f

`--against REV` (speed work): that revision's own ENIX reader (enix.py, enix_hexes.py,
enix_search.py, enix_rays.py, enix_cards.py, piece_colours.py, table_view.py, table_patches.py,
from git, or from a directory holding copies of them when REV is one; pawns and the table step are the working tree's in both) is run on the same frames, alternating with the working tree's, in this
one process: both arms' medians under the same load, and how many observations differ (a speed
change must read identically: the observations are compared as JSON, frame by frame).

Each seed is `tablecam.simulator.render_random(game, seed)` (all nuisances: lens, tilt, table tops,
light, shadows, glare, blur, noise, JPEG, objects, a hand in about a third) at 2028x1520, kept as
PNG under --cache (PNG is lossless: the detector sees the very pixels) so a second run only
detects. The detector gets the camera's lens profile, as a calibrated tablecam has it. Seeds from
100000 up were never used for tuning (that was done below 100000), but ENIX 2200000-2300199
(session 15), 2400000-2600299 (session 16) and Stixx 2200000-2200199 (session 16): their totals were counted first;
ENIX 2600300-2600599 and Stixx 2300000-2300399 were counted (sessions 16-17), then looked into.

Timing is the `detect` call only, with OpenCV on one thread: wall clock (perf_counter) and this
process's CPU time (process_time, fairer when other jobs load the machine; both are printed, with
the load average). With `--repeat N` each frame is timed N times and its fastest run counts (as
bench/micropul_detect.py does): other jobs on a shared machine only ever add time, so the fastest
run is the closest to what the code itself costs. How the readings are judged: tests/vision/board_scenes.py.

ENIX card values are scored on the cards whose value the camera can see: face-up energy cards
(an ENIX face has no value, a face-down card shows none: neither is counted, whatever the detector
says of them) not under a hand (a card with more than 2 % of its area under the hand is left out
of both card counts: a null there is fair). Of those, a value read right is right, a number that
differs is WRONG, and null is null - including when the card itself was not found, which is
printed apart. Pawns, the cap and cards are counted only when not under a hand either; a hexagon
under a hand may have its rotation null without spoiling its layout.
"""

from __future__ import annotations

import os

# One core, as on the Pi's budget: numpy's BLAS would otherwise spread the small matrix products.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import json
import statistics
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "vision"))

from board_scenes import EnixScore, StixxScore, cached_scene, score_enix, score_stixx  # noqa: E402
from fastest import fastest  # noqa: E402

from tablecam.errors import UserError  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True, choices=("stixx", "enix"))
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--first", type=int, default=100000)
    parser.add_argument("--cache", default="/tmp/tablecam_bench_renders")
    parser.add_argument("--failures", action="store_true", help="list every reading that was not right")
    parser.add_argument("--repeat", type=int, default=1, help="time each frame this many times; the fastest counts")
    parser.add_argument("--against", metavar="REV", help="ENIX: time REV's own ENIX modules side by side "
                        "(alternating, same frames) and compare the observations")
    args = parser.parse_args()
    if args.against and args.game != "enix":
        parser.error("--against is for --game enix")
    cv2.setNumThreads(1)
    module = __import__(f"tablecam.vision.{args.game}", fromlist=["detect"])
    detect = module.detect
    title = args.game.capitalize()
    detector_cls, settings_cls = getattr(module, f"{title}Detector"), getattr(module, f"{title}Settings")
    total = StixxScore() if args.game == "stixx" else EnixScore()
    wall, cpu, loop_cpu = [], [], []
    against = _revision_reader(args.against) if args.against else None
    old_cpu, old_loop_cpu, differing = [], [], []
    refused = []
    seed = args.first
    while total.images < args.count:
        try:
            scene = cached_scene(args.game, seed, Path(args.cache))
        except UserError as exc:  # the simulator cannot draw this state (reported, not counted)
            refused.append((seed, str(exc)))
            seed += 1
            continue
        if against is not None and seed % 2:  # (the revision first on every other frame: neither gains from order)
            old_obs = _timed(against, scene, old_cpu, old_loop_cpu, args.repeat)
        obs, ms_cpu, ms_wall = fastest(lambda: detect(scene.image, profile=scene.profile), args.repeat)
        cpu.append(ms_cpu)
        wall.append(ms_wall)
        # The companion's form: the table lock and warp maps are made on the first frame and kept,
        # so a steady camera's next frame is what each frame costs while a game is played.
        detector = detector_cls(settings_cls(profile=scene.profile))
        detector.detect(scene.image)
        loop_obs, ms_cpu, _ = fastest(lambda: detector.detect(scene.image), args.repeat)
        loop_cpu.append(ms_cpu)
        if against is not None:
            if not seed % 2:
                old_obs = _timed(against, scene, old_cpu, old_loop_cpu, args.repeat)
            if _json(old_obs[0]) != _json(obs) or _json(old_obs[1]) != _json(loop_obs):
                differing.append(seed)
        score = score_stixx(obs, scene) if args.game == "stixx" else score_enix(obs, scene)
        total.add(score)
        if args.failures and score.failures:
            print("  seed", seed, score.failures)
        seed += 1
    load = os.getloadavg()
    print(f"{args.game}: {total.images} renders, seeds {args.first}-{seed - 1}, 2028x1520, all nuisances "
          f"({len(refused)} seeds the simulator refused to draw{': ' + ', '.join(str(s) for s, _ in refused) if refused else ''})")
    print(f"detect ms per frame: wall median {statistics.median(wall):.1f}, p95 {np.percentile(wall, 95):.1f}; "
          f"CPU median {statistics.median(cpu):.1f}, p95 {np.percentile(cpu, 95):.1f} "
          f"(one OpenCV thread; load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores"
          f"{f'; fastest of {args.repeat} runs per frame' if args.repeat > 1 else ''})")
    print(f"{title}Detector frame loop (table lock and warp maps kept): CPU median {statistics.median(loop_cpu):.1f}, "
          f"p95 {np.percentile(loop_cpu, 95):.1f} ms per frame")
    if against is not None:
        print(f"against {args.against}, the same frames alternating: one photo CPU median {statistics.median(old_cpu):.1f} "
              f"-> {statistics.median(cpu):.1f} ms (x{statistics.median(cpu) / statistics.median(old_cpu):.3f}), frame loop "
              f"{statistics.median(old_loop_cpu):.1f} -> {statistics.median(loop_cpu):.1f} ms "
              f"(x{statistics.median(loop_cpu) / statistics.median(old_loop_cpu):.3f}); observations differing: "
              f"{len(differing)} of {total.images}{' (seeds ' + ', '.join(map(str, differing)) + ')' if differing else ''}")
    if args.game == "stixx":
        visible = total.slots - total.slots_null_hidden
        print(f"slots right: {100 * total.slots_right / max(visible, 1):.2f} % of {visible} grooves in view "
              f"(wrong {total.slots_wrong}, unread although visible {total.slots_null_visible}); "
              f"{total.slots_null_hidden} grooves under a hand reported unread (colour null)")
        print(f"boards exactly right: {100 * total.boards_right / total.images:.2f} % of {total.images} "
              f"(board found {total.boards_found}; pose within 3 mm and 1.5 deg, every groove right or unread "
              f"under a hand, none wrong)")
        print(f"board centre error mm: median {np.median(total.centre_errors):.2f}, max {max(total.centre_errors):.2f}; "
              f"rotation error deg: median {np.median(total.rotation_errors):.2f}, max {max(total.rotation_errors):.2f}")
        print(f"sticks beside the board: {100 * total.loose_right / max(total.loose, 1):.1f} % of {total.loose} found "
              f"with their colour, {total.loose_invented} invented")
    else:
        r = total.rates()
        print(f"layouts exactly right: {r['layouts_right_pct']:.2f} % of {total.layouts} (six hexes: energy, centre "
              f"within 4 mm, rotation within 3 deg modulo the tile's symmetry; unknown allowed under a hand) - "
              f"hexes: {total.hexes_right}/{total.hexes} right, rotation wrong {total.hexes_wrong_rotation}, "
              f"rotation null {total.hexes_null_rotation}, missed {total.hexes_missed}")
        print(f"pawns: {r['pawns_right_pct']:.2f} % of {total.pawns} in view found with their colour "
              f"(missed {total.pawns_missed}, wrong colour {total.pawns_wrong_colour}, colour null {total.pawns_null_colour}, "
              f"invented {total.pawns_invented})")
        print(f"cap: {r['caps_right_pct']:.2f} % of {total.caps} found (invented {total.caps_invented})")
        print(f"card colours: {r['card_colours_right_pct']:.2f} % of {total.cards} cards in view right (face up or "
              f"down, and a face's energy or ENIX; found {total.cards_found}, wrong {total.card_colours_wrong}, "
              f"invented {total.cards_invented})")
        print(f"card values: {r['card_values_right_pct']:.2f} % of {total.values} energy faces in view read right; "
              f"null {total.values_null} (of which the card was not found: {total.values_card_missed}), "
              f"WRONG {total.values_wrong}")
    return 0


def _revision_reader(rev: str):
    """The ENIX module of revision `rev` with its own reader modules (from git, in a temporary
    package); every other module of tablecam.vision it imports is the working tree's, the very
    same module objects."""
    import subprocess
    import tempfile

    own = ("enix.py", "enix_hexes.py", "enix_search.py", "enix_rays.py", "enix_cards.py", "piece_colours.py",
           "table_view.py", "table_patches.py")
    copies = Path(rev) if Path(rev).is_dir() else None  # (a snapshot of the files: uncommitted work compared)
    name = "enix_at_" + "".join(ch for ch in rev if ch.isalnum())
    package = Path(tempfile.mkdtemp(prefix="tablecam_against_")) / name
    package.mkdir()
    (package / "__init__.py").write_text("")
    for path in sorted((ROOT / "tablecam" / "vision").glob("*.py")):
        if path.name in own and copies is not None:
            text = (copies / path.name).read_text()
        elif path.name in own:
            text = subprocess.run(["git", "show", f"{rev}:tablecam/vision/{path.name}"], cwd=ROOT, check=True,
                                  capture_output=True, text=True).stdout
        elif path.name != "__init__.py":
            text = (f"import sys\nfrom tablecam.vision import {path.stem} as _same\n"
                    "sys.modules[__name__] = _same\n")
        else:
            continue
        (package / path.name).write_text(text)
    sys.path.insert(0, str(package.parent))
    return __import__(f"{name}.enix", fromlist=["detect"])


def _timed(module, scene, cpu: list, loop_cpu: list, repeat: int = 1) -> tuple[dict, dict]:
    """One photo and the frame loop's second frame with `module`, CPU ms appended (the fastest of
    `repeat` runs, as the working tree's arm is timed); both observations."""
    photo, ms_cpu, _ = fastest(lambda: module.detect(scene.image, profile=scene.profile), repeat)
    cpu.append(ms_cpu)
    detector = module.EnixDetector(module.EnixSettings(profile=scene.profile))
    detector.detect(scene.image)
    loop, ms_cpu, _ = fastest(lambda: detector.detect(scene.image), repeat)
    loop_cpu.append(ms_cpu)
    return photo, loop


def _json(obs: dict) -> str:
    return json.dumps({k: v for k, v in obs.items() if k != "ms"}, sort_keys=True)


if __name__ == "__main__":
    raise SystemExit(main())
