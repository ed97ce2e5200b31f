"""read_dice on 30 real photos of dice (tests/data/dice, provenance in its README).

The issue asks for 95 % of the standard dice read right; the reader is not there (70 % on these
30 photos, 71.5 % on all 150 since session 9, with 1.8 % wrong since session 5: see bench/dice_real.py). These thresholds hold what it does today, so
that a change that reads fewer dice, or reads more of them WRONG, fails here. Sessions 2 to 5
developed the reader on the other 120 photos; these 30 were only scored (session 2's last change,
how far out a stray pip counts, was also looked at on them; session 5's last checks turned one
of their right reads to null; session 9's glare specks, scored once at the end, gave one more).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tablecam.calibration.images import read_image
from tablecam.vision.dice import read_dice
from tablecam.vision.dice_eval import Tally, confusion_table, read_labels, read_nonstandard, score_photo

DATA = Path(__file__).resolve().parents[1] / "data" / "dice"
MIN_RIGHT = 0.69  # share of the standard dice (side >= 24 px) read right (70.1 % today: 82 of 117)
MAX_WRONG = 0.03  # share read as another number (0.9 % today: 1 of 117)


@pytest.fixture(scope="module")
def tally() -> Tally:
    odd = read_nonstandard(DATA / "nonstandard.txt")
    total = Tally()
    for photo in sorted((DATA / "images").glob("*.jpg")):
        image = read_image(photo)
        labels = read_labels(DATA / "labels" / f"{photo.stem}.txt", image.shape[1], image.shape[0])
        total.add(score_photo(photo.stem, read_dice(image), labels,
                              skip={i for stem, i in odd if stem == photo.stem}))
    return total


def test_the_subset_is_what_the_readme_says():
    photos = sorted((DATA / "images").glob("*.jpg"))
    assert len(photos) == 30
    assert all((DATA / "labels" / f"{p.stem}.txt").exists() for p in photos)


def test_most_standard_dice_are_read_right(tally):
    assert tally.scored >= 100
    assert tally.rate("right") >= MIN_RIGHT, confusion_table(tally)


def test_wrong_numbers_are_rare(tally):
    assert tally.rate("wrong") <= MAX_WRONG, tally.failures


def test_confusion_table_has_a_row_per_value(tally):
    table = confusion_table(tally).splitlines()
    assert len(table) == 7 and table[0].split()[-2:] == ["total", "right"]
    assert sum(int(line.split()[9]) for line in table[1:]) == tally.scored


def test_scoring_counts_wrong_null_and_missed():
    from tablecam.vision.dice import Die
    from tablecam.vision.dice_eval import Label

    labels = [Label(3, (0, 0, 40, 40), 0), Label(5, (100, 0, 140, 40), 1), Label(2, (200, 0, 240, 40), 2),
              Label(6, (300, 0, 340, 40), 3)]
    dice = [Die(3, (0, 0, 40, 40), (20, 20), 0.9), Die(4, (100, 0, 140, 40), (121, 19), 0.9),
            Die(None, (200, 0, 240, 40), (220, 20), 0.0), Die(1, (500, 0, 540, 40), (520, 20), 0.9)]
    t = score_photo("p", dice, labels)
    assert dict(t.outcomes) == {"right": 1, "wrong": 1, "null": 1, "missed": 1}
    assert t.extra == 1


def test_missed_dice_are_put_at_the_stage_that_lost_them():
    import numpy as np
    from dice_drawing import draw_die, ground

    from tablecam.vision.dice_eval import Label, missed_stages

    image = ground((200, 400), (90, 80, 70), noise=3)
    draw_die(image, 5, (100, 100), 60, 10, (235, 235, 235), (25, 25, 25))
    draw_die(image, 2, (300, 100), 60, 10, (235, 235, 235), (25, 25, 25))
    labels = [Label(5, (70, 70, 130, 130), 0), Label(2, (270, 70, 330, 130), 1), Label(3, (170, 20, 230, 80), 2)]
    # the 2 read elsewhere (its reading taken away): its pips are found and it reads there
    dice = [d for d in read_dice(image) if d.centre_px[0] < 200]
    stages = missed_stages(image, labels, dice)
    assert set(stages) == {1, 2}
    assert stages[2] == "no pip"  # nothing drawn there
    assert stages[1] in ("suppressed by an overlapping die", "taken by another label")
    assert missed_stages(np.full((100, 100, 3), 128, np.uint8), [], []) == {}


def test_cli_prints_json_and_a_clear_sentence_for_bad_files(tmp_path):
    photo = sorted((DATA / "images").glob("*.jpg"))[0]
    cut = tmp_path / "cut.jpg"
    cut.write_bytes(photo.read_bytes()[:2000])
    run = [sys.executable, "-m", "tablecam.companion.cli", "dice"]
    ok = subprocess.run(run + [str(photo)], capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0 and '"dice": [{"value"' in ok.stdout
    bad = subprocess.run(run + [str(cut)], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "damaged" in bad.stderr and "Traceback" not in bad.stderr
    blank = tmp_path / "table.png"
    import cv2
    import numpy as np
    cv2.imwrite(str(blank), np.full((200, 300, 3), 180, np.uint8))
    none = subprocess.run(run + [str(blank)], capture_output=True, text=True, timeout=120)
    assert none.returncode == 0 and '"dice": []' in none.stdout and "no dice found" in none.stderr
