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
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from tablecam.calibration.images import to_grey
from tablecam.vision.dice import (Die, _big_enough, _pyramid, _read_level, _scales, _squeezed, choose_stretch,
                                  lone_hypotheses)
from tablecam.vision.pip_lattice import CHECKS, Lattices, pair_hypotheses, refine, rejections
from tablecam.vision.pips import MIN_CONTRAST

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


# --- why a die was missed ------------------------------------------------------------------------
# The stages of `read_dice` a labelled die can be lost at, first to last; a missed die is put at
# the furthest stage any of its hypotheses reached (at any pyramid level, either polarity).
STAGES = ("no pip", "one pip, no 1", "pips, no pair") + tuple(f"check: {c}" for c in CHECKS) \
    + ("lone pip: face not clean", "lost to a neighbour reading", "read, but too small to keep",
       "suppressed by an overlapping die", "taken by another label")


def missed_stages(image, labels: list[Label], dice: list[Die], skip: set[int] = frozenset(),
                  min_side: float = 24.0, min_contrast: float = MIN_CONTRAST) -> dict[int, str]:
    """For each scored label that `dice` (read_dice's answer on `image`) misses, the stage of
    `STAGES` where it was lost. Replays the photo path: the chosen squeeze, every pyramid level
    and polarity; a hypothesis counts for a label when its centre lies in the label's box."""
    tally = score_photo("", dice, labels, skip, min_side)
    missed = {index for _, index, _, read in tally.failures if read == "missed"}
    if not missed:
        return {}
    grey = to_grey(image)
    scales = _scales(grey.shape)
    polarities = (True, False)
    base = _pyramid(grey, scales, polarities, min_contrast)
    stretch = choose_stretch(grey, scales, polarities, min_contrast, base)
    work = _squeezed(grey, stretch)
    fx, fy = grey.shape[1] / work.shape[1], grey.shape[0] / work.shape[0]
    levels = base if stretch == 1.0 else _pyramid(work, scales, polarities, min_contrast)
    boxes = {lab.index: np.array(lab.box) / (fx, fy, fx, fy) for lab in labels if lab.index in missed}
    best = {i: 0 for i in boxes}

    def reach(stage: str, xy: np.ndarray, scale: float) -> None:
        rank = STAGES.index(stage)
        for i, b in boxes.items():
            if rank > best[i] and len(xy) and np.any((xy[:, 0] >= b[0] * scale) & (xy[:, 0] <= b[2] * scale)
                                                     & (xy[:, 1] >= b[1] * scale) & (xy[:, 1] <= b[3] * scale)):
                best[i] = rank

    for scale, level, found in levels:
        for pips in found:
            if not pips:
                continue
            dark = pips[0].dark
            xy = np.array([(p.x, p.y) for p in pips])
            # a box holding two or more pips that proposed no lattice
            for i, b in boxes.items():
                inside = (xy[:, 0] >= b[0] * scale) & (xy[:, 0] <= b[2] * scale) \
                    & (xy[:, 1] >= b[1] * scale) & (xy[:, 1] <= b[3] * scale)
                n = int(inside.sum())
                if n:
                    best[i] = max(best[i], STAGES.index("one pip, no 1" if n == 1 else "pips, no pair"))
            square = pair_hypotheses(pips)
            hyp = Lattices.join([square, refine(square, pips, level.shape), lone_hypotheses(pips)])
            reasons = rejections(level, dark, hyp, pips)
            n_lone = len(pips) * len(lone_hypotheses(pips[:1]))
            for k, why in enumerate(reasons):
                lone = k >= len(hyp) - n_lone
                passed = "lone pip: face not clean" if lone else "lost to a neighbour reading"
                stage = f"check: {why}" if why else passed
                reach(stage, hyp.centre[k:k + 1], scale)
            read = _read_level(level, pips)
            for small in (True, False):
                xy = [d.centre_px for d in read if (not _big_enough(replace(d, side_px=d.side_px / scale))) == small]
                reach("read, but too small to keep" if small else "suppressed by an overlapping die",
                      np.array(xy).reshape(-1, 2), scale)
    taken = np.array([(d.centre_px[0] / fx, d.centre_px[1] / fy) for d in dice]).reshape(-1, 2)
    reach("taken by another label", taken, 1.0)
    return {i: STAGES[r] for i, r in best.items()}
