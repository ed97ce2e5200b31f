"""Real-photo accuracy of `tablecam.vision.dice.read_dice`, with a confusion table.

    .venv/bin/python bench/dice_real.py [DATA_DIR] [--failures] [--stages] [--only dev|test]

DATA_DIR holds images/*.jpg and labels/*.txt (default: ../shared/data/dice beside the
checkout). Scoring rules: tablecam/vision/dice_eval.py. Non-standard dice (symbol or marbled
faces) are listed in tests/data/dice/nonstandard.txt and reported apart. The photos that are
also in tests/data/dice (the 30 test photos, never used for tuning) and the other 120 (the
development photos) are scored apart too. `--stages`: for every missed die, the stage of the
reader that lost it (`dice_eval.missed_stages`), tabulated.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tablecam.calibration.images import read_image  # noqa: E402
from tablecam.vision.dice import read_dice  # noqa: E402
from tablecam.vision.dice_eval import (  # noqa: E402
    STAGES, Tally, confusion_table, missed_stages, read_labels, read_nonstandard, score_photo)

NONSTANDARD = ROOT / "tests" / "data" / "dice" / "nonstandard.txt"
TEST_PHOTOS = ROOT / "tests" / "data" / "dice" / "images"


def summary(name: str, tally: Tally) -> str:
    return (f"{name}: {tally.scored} dice, right {100 * tally.rate('right'):.1f}%, "
            f"wrong {100 * tally.rate('wrong'):.1f}%, null {100 * tally.rate('null'):.1f}%, "
            f"missed {100 * tally.rate('missed'):.1f}%, extra {tally.extra}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", default=str(ROOT.parent / "shared" / "data" / "dice"))
    parser.add_argument("--failures", action="store_true", help="list every die not read right")
    parser.add_argument("--min-side", type=float, default=24.0)
    parser.add_argument("--stages", action="store_true", help="say where each missed die was lost")
    parser.add_argument("--only", choices=("dev", "test"), help="only the 120 development or the 30 test photos")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    data = Path(args.data)
    photos = sorted((data / "images").glob("*.jpg"))
    if not photos:
        print(f"no photos in {data / 'images'}", file=sys.stderr)
        return 2
    tests = {p.name for p in TEST_PHOTOS.glob("*.jpg")}
    if args.only:
        photos = [p for p in photos if (p.name in tests) == (args.only == "test")]
    nonstandard = read_nonstandard(NONSTANDARD)
    standard, odd = Tally(), Tally()
    parts = {"development photos": Tally(), "test photos (tests/data/dice)": Tally()}
    stages: Counter = Counter()
    lost: list[str] = []
    ms, cpu = [], []
    found = 0
    for photo in photos:
        image = read_image(photo)
        t0, c0 = time.perf_counter(), time.process_time()
        dice = read_dice(image)
        ms.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
        found += len(dice)
        labels = read_labels(data / "labels" / (photo.stem + ".txt"), image.shape[1], image.shape[0])
        odd_here = {i for (stem, i) in nonstandard if stem == photo.stem}
        here = score_photo(photo.stem, dice, labels, skip=odd_here, min_side=args.min_side)
        standard.add(here)
        parts["test photos (tests/data/dice)" if photo.name in tests else "development photos"].add(here)
        if args.stages:
            for index, stage in sorted(missed_stages(image, labels, dice, odd_here, args.min_side).items()):
                stages[stage] += 1
                lost.append(f"  {photo.stem} #{index}: {stage}")
        others = {lab.index for lab in labels} - odd_here
        o = score_photo(photo.stem, dice, labels, skip=others, min_side=args.min_side)
        o.extra = 0  # extras are counted once, with the standard dice
        odd.add(o)
    print(f"photos: {len(photos)}; dice reported: {found}; "
          f"read_dice ms per photo: median {statistics.median(ms):.1f}, max {max(ms):.1f}; CPU ms median "
          f"{statistics.median(cpu):.1f}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"standard dice with side >= {args.min_side:g} px: {standard.scored}")
    for name in ("right", "wrong", "null", "missed"):
        print(f"  {name:>6}: {standard.outcomes[name]:4d}  ({100 * standard.rate(name):5.1f}%)")
    print(f"  read correctly: {100 * standard.rate('right'):.1f}%   wrong-read rate: "
          f"{100 * standard.rate('wrong'):.1f}%   dice read with a value but on no label: {standard.extra}")
    print(confusion_table(standard))
    print(f"non-standard dice (symbol / marbled faces, expected null): {odd.scored}: "
          + ", ".join(f"{k} {odd.outcomes[k]}" for k in ("right", "wrong", "null", "missed")))
    for name, tally in parts.items():
        if tally.scored:
            print(summary(name, tally))
    if args.stages:
        print(f"where the {sum(stages.values())} missed dice were lost (furthest stage reached):")
        for stage in STAGES:
            if stages[stage]:
                print(f"  {stage:<30} {stages[stage]:4d}")
        if args.failures:
            print("\n".join(lost))
    if args.failures:
        for photo, index, true, read in standard.failures:
            print(f"  {photo} #{index}: true {true}, read {read}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
