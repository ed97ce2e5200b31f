"""Real-photo accuracy of `tablecam.vision.dice.read_dice`, with a confusion table.

    .venv/bin/python bench/dice_real.py [DATA_DIR] [--failures]

DATA_DIR holds images/*.jpg and labels/*.txt (default: ../shared/data/dice beside the
checkout). Scoring rules: tablecam/vision/dice_eval.py. Non-standard dice (symbol or marbled
faces) are listed in tests/data/dice/nonstandard.txt and reported apart.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tablecam.calibration.images import read_image  # noqa: E402
from tablecam.vision.dice import read_dice  # noqa: E402
from tablecam.vision.dice_eval import Tally, confusion_table, read_labels, read_nonstandard, score_photo  # noqa: E402

NONSTANDARD = ROOT / "tests" / "data" / "dice" / "nonstandard.txt"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", default=str(ROOT.parent / "shared" / "data" / "dice"))
    parser.add_argument("--failures", action="store_true", help="list every die not read right")
    parser.add_argument("--min-side", type=float, default=24.0)
    args = parser.parse_args()
    cv2.setNumThreads(1)
    data = Path(args.data)
    photos = sorted((data / "images").glob("*.jpg"))
    if not photos:
        print(f"no photos in {data / 'images'}", file=sys.stderr)
        return 2
    nonstandard = read_nonstandard(NONSTANDARD)
    standard, odd = Tally(), Tally()
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
        standard.add(score_photo(photo.stem, dice, labels, skip=odd_here, min_side=args.min_side))
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
    if args.failures:
        for photo, index, true, read in standard.failures:
            print(f"  {photo} #{index}: true {true}, read {read}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
