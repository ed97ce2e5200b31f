"""Scoring `read_dice` against labelled photos (YOLO labels: `class cx cy w h`, class 0..5 = 1..6).

How a label counts (the bench and the tests use this one definition):
- a detection *belongs* to a label when the detection's centre lies inside the label's box;
  each label takes the nearest such detection (to its centre), each detection serves one label;
- RIGHT: that detection reads the label's value; WRONG: it reads another number;
  NULL: it reads None; MISSED: no detection belongs to the label;
- EXTRA: a detection with a value that belongs to no label (a die the labeller skipped, or a
  phantom die: either way the table would show a die the players did not throw).
"Read correctly" is RIGHT over all labels scored; the wrong-read rate is WRONG over the same.
Labels are scored when the die is standard (see tests/data/dice/nonstandard.txt) and its box's
shorter side is at least `min_side` px.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from tablecam.vision.dice import Die

OUTCOMES = ("right", "wrong", "null", "missed")


@dataclass(frozen=True)
class Label:
    value: int  # 1..6
    box: tuple[float, float, float, float]  # x0, y0, x1, y1 px
    index: int  # line number in the label file

    @property
    def side(self) -> float:
        return min(self.box[2] - self.box[0], self.box[3] - self.box[1])

    @property
    def centre(self) -> tuple[float, float]:
        return ((self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2)


@dataclass
class Tally:
    outcomes: Counter = field(default_factory=Counter)
    confusion: Counter = field(default_factory=Counter)  # (true, read | "null" | "missed") -> n
    extra: int = 0
    failures: list = field(default_factory=list)  # (photo, label index, true, read)

    @property
    def scored(self) -> int:
        return sum(self.outcomes.values())

    def rate(self, outcome: str) -> float:
        return self.outcomes[outcome] / self.scored if self.scored else 0.0

    def add(self, other: "Tally") -> None:
        self.outcomes.update(other.outcomes)
        self.confusion.update(other.confusion)
        self.extra += other.extra
        self.failures.extend(other.failures)


def read_labels(path: str | Path, width: int, height: int) -> list[Label]:
    labels = []
    for index, line in enumerate(Path(path).read_text().splitlines()):
        if not line.strip():
            continue
        c, cx, cy, w, h = (float(v) for v in line.split())
        labels.append(Label(int(c) + 1, ((cx - w / 2) * width, (cy - h / 2) * height,
                                         (cx + w / 2) * width, (cy + h / 2) * height), index))
    return labels


def read_nonstandard(path: str | Path) -> set[tuple[str, int]]:
    """(photo stem, label index) of the dice marked non-standard in a list file."""
    out = set()
    for line in Path(path).read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            stem, index = line.split()[:2]
            out.add((stem, int(index)))
    return out


def score_photo(photo: str, dice: list[Die], labels: list[Label], skip: set[int] = frozenset(),
                min_side: float = 24.0) -> Tally:
    """Scores one photo; labels whose index is in `skip` or that are small are not scored but
    still own the detections on them (a reading there is neither counted nor called extra)."""
    tally = Tally()
    taken: set[int] = set()
    match: dict[int, int] = {}
    pairs = []
    for li, lab in enumerate(labels):
        for di, d in enumerate(dice):
            x, y = d.centre_px
            if lab.box[0] <= x <= lab.box[2] and lab.box[1] <= y <= lab.box[3]:
                pairs.append(((x - lab.centre[0]) ** 2 + (y - lab.centre[1]) ** 2, li, di))
    for _, li, di in sorted(pairs):
        if li in match or di in taken:
            continue
        match[li] = di
        taken.add(di)
    inside_any = {di for _, _, di in pairs}
    for li, lab in enumerate(labels):
        if lab.index in skip or lab.side < min_side:
            continue
        if li not in match:
            outcome, read = "missed", "missed"
        else:
            value = dice[match[li]].value
            read = "null" if value is None else value
            outcome = "null" if value is None else ("right" if value == lab.value else "wrong")
        tally.outcomes[outcome] += 1
        tally.confusion[(lab.value, read)] += 1
        if outcome != "right":
            tally.failures.append((photo, lab.index, lab.value, read))
    tally.extra = sum(1 for di, d in enumerate(dice) if d.value is not None and di not in inside_any)
    return tally


def confusion_table(tally: Tally) -> str:
    """Rows: the labelled value; columns: what was read (1..6), null, or missed."""
    cols = [1, 2, 3, 4, 5, 6, "null", "missed"]
    head = "true\\read " + " ".join(f"{str(c):>6}" for c in cols) + "   total  right"
    lines = [head]
    for t in range(1, 7):
        row = [tally.confusion[(t, c)] for c in cols]
        total = sum(row)
        right = tally.confusion[(t, t)]
        lines.append(f"{t:>9} " + " ".join(f"{v:>6}" for v in row)
                     + f"  {total:>6}  {100 * right / total if total else 0:5.1f}%")
    return "\n".join(lines)
