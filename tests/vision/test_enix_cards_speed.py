"""The ENIX card reader's speed shortcuts of session 12 give the very answers of what they replace (the
readings stay identical only so): every dark card's sample places mapped to the table at once."""

from __future__ import annotations

import numpy as np

from tablecam.vision.enix_cards import _MARK_PLACES, _to_table, _to_table_many
from tablecam.vision.enix_search import CardBlob


def test_all_cards_places_at_once_are_each_cards_own():
    rng = np.random.default_rng(12)
    for _ in range(300):
        blobs = [CardBlob("back", (float(rng.uniform(-50, 900)), float(rng.uniform(-50, 700))),
                          float(rng.uniform(0, 180))) for _ in range(int(rng.integers(1, 9)))]
        local = _MARK_PLACES if rng.random() < 0.5 else rng.normal(0, 40, (int(rng.integers(1, 60)), 2))
        got = _to_table_many(blobs, local)
        want = np.stack([_to_table(b, False, local) for b in blobs])
        assert got.dtype == want.dtype and np.array_equal(got, want)


class _FakeView:
    """A view whose colours are a fixed function of the table point (each point's alone, as the frame's)."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.k = self.rng.uniform(0.01, 0.2, (3, 2))
        self.lit = float(self.rng.uniform(100, 255))

    def sample(self, points_mm):
        p = np.asarray(points_mm, np.float64).reshape(-1, 2)
        waves = np.sin(p @ self.k.T) * 0.5 + 0.5  # (N, 3) in 0..1
        bgr = np.floor(waves * self.lit).astype(np.float32)
        inside = (p[:, 0] > -20) & (p[:, 0] < 900) & (p[:, 1] > -20) & (p[:, 1] < 700)
        return bgr, inside, np.zeros((len(p), 3), bool)


def _upside_down_session11(view, b):
    from tablecam.vision.enix_cards import CAPTION_Y_MM, _least_channel, _median

    t = np.linspace(-15.0, 15.0, 7)
    local = np.concatenate([np.column_stack([t, np.full_like(t, y)]) for y in (CAPTION_Y_MM, -CAPTION_Y_MM)])
    bgr, inside, _ = view.sample(_to_table(b, False, local))
    ends = []
    for end in (slice(0, len(t)), slice(len(t), 2 * len(t))):
        ends.append(_median(_least_channel(bgr[end])) if inside[end].any() else 0.0)
    return ends[1] > ends[0]


def test_the_first_looks_at_all_cards_at_once_are_each_cards_own():
    from tablecam.vision.enix_cards import _face_marks, _first_looks, _upside_down

    rng = np.random.default_rng(12)
    flips = set()
    for seed in range(200):
        view = _FakeView(seed)

        def cards(kind):
            return [CardBlob(kind, (float(rng.uniform(-40, 920)), float(rng.uniform(-40, 720))),
                             float(rng.uniform(0, 180))) for _ in range(int(rng.integers(0, 6)))]

        dark, faces = cards("back"), cards("water")
        marks, up = _first_looks(view, dark, faces)
        assert marks == [_face_marks(view, [b])[0] for b in dark]
        assert up == [_upside_down_session11(view, b) for b in faces] == [_upside_down(view, b) for b in faces]
        flips.update(up)
    assert flips == {True, False}
