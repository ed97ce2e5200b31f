"""The ENIX card reader's speed shortcuts give the very answers of what they replace (the readings stay
identical only so). Session 12: every dark card's sample places mapped to the table at once. Session 15:
a frame's energy faces refined, their borders found and their value windows sampled all at once."""

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


class _CardsView:
    """A view of drawn energy faces on a table: each face its colour inside a white border
    (CARD_BORDER_MM), the table elsewhere, every point's level its own (a fixed ripple of its place,
    no ties). Read point by point, as the frame is."""

    def __init__(self, rng, cards):
        self.cards = cards  # (centre (2,), angle deg, sRGB BGR)
        self.table = rng.uniform(60, 140, 3)

    def sample(self, points_mm):
        from tablecam.vision.enix_search import CARD_BORDER_MM, CARD_MM

        p = np.asarray(points_mm, np.float64).reshape(-1, 2)
        out = np.tile(self.table, (len(p), 1))
        for centre, angle, colour in self.cards:
            a = np.radians(angle)
            down, right = np.array([np.cos(a), np.sin(a)]), np.array([np.sin(a), -np.cos(a)])
            x, y = (p - centre) @ right, (p - centre) @ down
            on = (np.abs(x) <= CARD_MM[0] / 2) & (np.abs(y) <= CARD_MM[1] / 2)
            face = (np.abs(x) <= CARD_MM[0] / 2 - CARD_BORDER_MM) & (np.abs(y) <= CARD_MM[1] / 2 - CARD_BORDER_MM)
            out[on] = (240.0, 238.0, 236.0)
            out[face] = colour
        ripple = 6.0 * np.sin(p[:, :1] * 1.7 + p[:, 1:] * 2.3 + np.arange(3))
        bgr = np.floor(np.clip(out + ripple, 0, 255)).astype(np.float32)
        inside = (p[:, 0] > -20) & (p[:, 0] < 900) & (p[:, 1] > -20) & (p[:, 1] < 700)
        return bgr, inside, np.zeros((len(p), 3), bool)


def _session14_refine_face(view, b, flip):
    """Session 14's refine_face (one face, the frame sampled at each step for it alone)."""
    import math

    from tablecam.vision import enix_cards as ec

    inner = (ec.CARD_MM[0] / 2 - ec.CARD_BORDER_MM, ec.CARD_MM[1] / 2 - ec.CARD_BORDER_MM)
    centre, angle = np.asarray(b.centre, dtype=np.float64), b.angle
    for step in range(3):
        here = CardBlob(b.kind, (float(centre[0]), float(centre[1])), angle)
        bgr, inside, _ = view.sample(_to_table(here, flip, ec._scan_points()))
        white = ec._linear(ec._least_channel(bgr)).reshape(5, len(ec.SCAN_T))
        inside = inside.reshape(5, len(ec.SCAN_T)).all(axis=1)
        mids, k = {}, 0
        for name, axis, _, sides in ec.SCANS:
            edges = []
            for sign in sides:
                edge = ec._rise(white[k], inner[axis])
                if edge is None or not inside[k]:
                    return None
                edges.append(sign * edge)
                k += 1
            mids[name] = edges[0] - sides[0] * inner[axis] if len(edges) == 1 else (edges[0] + edges[1]) / 2
        turn = math.degrees(math.atan2(mids["lower"] - mids["upper"], ec.ACROSS_AT_MM[1] - ec.ACROSS_AT_MM[0]))
        shift = np.array([(mids["upper"] + mids["lower"]) / 2, mids["along"]])
        if step == 0 and abs(shift[1]) > ec.MAX_SHIFT_MM:
            shift[1] = 0.0
        if np.abs(shift).max() > ec.MAX_SHIFT_MM or abs(turn) > ec.MAX_TURN_DEG:
            return None
        if step == 2:
            if np.abs(shift).max() > ec.CONVERGED_MM or abs(turn) > ec.CONVERGED_DEG:
                return None
            break
        right, down = ec._card_frame(here, flip)
        centre = centre + shift[0] * right + shift[1] * down
        angle = (angle - turn) % 180.0
    return CardBlob(b.kind, (float(centre[0]), float(centre[1])), angle)


def _session14_face_card(view, b, flip):
    """Session 14's reading of one energy face in read_cards: refined (retried from RETRY_POSES),
    its value read alone; None when no border shows."""
    import math

    from tablecam.vision import enix_cards as ec

    fine = _session14_refine_face(view, b, flip)
    a = math.radians(b.angle)
    for turn, along in ec.RETRY_POSES:
        if fine is not None:
            break
        centre = (b.centre[0] + along * math.cos(a), b.centre[1] + along * math.sin(a))
        fine = _session14_refine_face(view, CardBlob(b.kind, centre, (b.angle + turn) % 180.0), flip)
    if fine is None and not ec._border_seen(view, b):
        return None
    got = ec._value_patches(view, [(fine, flip)])[0] if fine is not None else None
    return ec.Card(b.kind, None if got is None else ec.value_of(*got), (fine or b).centre, True)


def test_faces_read_all_at_once_are_each_faces_own():
    """_face_cards (every face refined step by step together, retried together, the value windows
    sampled at once) gives each face what session 14's face-by-face reading gave: drawn faces seen
    from coarse poses a few mm and degrees off (most refined, some only from a retry pose, some
    never), either way up, some half off the frame."""
    from tablecam.vision import enix_cards as ec

    rng = np.random.default_rng(14)
    kinds = {"refined": 0, "none": 0, "retried": 0}
    for _ in range(60):
        cards = []
        for _ in range(int(rng.integers(1, 6))):
            centre = rng.uniform([-30, -30], [930, 730])
            cards.append((centre, float(rng.uniform(0, 180)), rng.uniform(0, 200, 3)))
        view = _CardsView(rng, cards)
        faces, flips = [], []
        for centre, angle, _ in cards:
            off = rng.normal(0, 3.0, 2) if rng.random() < 0.7 else rng.uniform(-12, 12, 2)
            turn = rng.normal(0, 4.0) if rng.random() < 0.7 else rng.uniform(-20, 20)
            faces.append(CardBlob("water", (float(centre[0] + off[0]), float(centre[1] + off[1])), (angle + turn) % 180.0))
            flips.append(bool(rng.random() < 0.5))
        got = ec._face_cards(view, faces, flips)
        want = [_session14_face_card(view, b, f) for b, f in zip(faces, flips)]
        assert got == want
        for b, f, card in zip(faces, flips, got):
            first = _session14_refine_face(view, b, f)
            kinds["refined" if first is not None else ("none" if card is None else "retried")] += 1
    assert min(kinds.values()) >= 3, kinds  # the comparison covers every path


def test_value_windows_sampled_at_once_are_each_faces_own():
    from tablecam.vision import enix_cards as ec

    rng = np.random.default_rng(15)
    for seed in range(40):
        view = _FakeView(seed)
        faces = [(CardBlob("fire", (float(rng.uniform(-40, 920)), float(rng.uniform(-40, 720))),
                           float(rng.uniform(0, 180))), bool(rng.random() < 0.5)) for _ in range(int(rng.integers(1, 6)))]
        together = ec._value_patches(view, faces)
        for (b, f), got in zip(faces, together):
            alone = ec._value_patches(view, [(b, f)])[0]
            assert (got is None) == (alone is None)
            if got is not None:
                assert got[0].tobytes() == alone[0].tobytes() and np.array_equal(got[1], alone[1])


def test_the_borders_of_many_profiles_at_once_are_each_ones_own():
    """_rises gives _rise's very answer (None, or the same float) for each profile: drawn rises from a
    face's colour to a white border (some blurred, some flat, some with no border at all, some noisy
    enough to cross half-way early, some rising at the first place, some exactly at half-way)."""
    from tablecam.vision import enix_cards as ec

    rng = np.random.default_rng(16)
    t = ec.SCAN_T
    kinds = set()
    for expected in (ec.CARD_MM[0] / 2 - ec.CARD_BORDER_MM, ec.CARD_MM[1] / 2 - ec.CARD_BORDER_MM, 0.5, 3.0):
        rows = []
        for _ in range(400):
            colour, white = rng.uniform(0.0, 0.5), rng.uniform(0.3, 1.0)
            edge = expected + rng.normal(0, 3.0)
            blur = rng.choice([0.05, 0.5, 2.0])
            w = colour + (white - colour) / (1 + np.exp(np.clip(-(t - edge) / blur, -50, 50)))
            w = w + rng.normal(0, rng.choice([0.0, 0.01, 0.1]), len(t))
            if rng.random() < 0.1:
                w = np.full(len(t), colour)  # no border
            rows.append(w)
        white = np.array(rows, np.float32)
        white[:5] = np.float32(0.5)  # flat
        white[5:10, :] = np.linspace(0, 1, len(t), dtype=np.float32)  # rises from the first place on
        # A value at half-way as float32 rounds it (a Python float against float32 is compared in
        # float32), where half-way itself lies between two float32 values: rounded up or down.
        lo = ec._rise_spans(expected)[1] if ec._rise_spans(expected) else 0
        for i in range(10, 60):
            c, top = np.float32(rng.uniform(0.05, 0.3)), np.float32(rng.uniform(0.6, 1.0))
            white[i] = c
            white[i, lo + 3:] = top
            white[i, lo + 1:lo + 3] = np.float32((float(c) + float(top)) / 2) + np.float32(rng.choice([0.0, 1e-7]))
        got = ec._rises(white, expected)
        want = [ec._rise(w, expected) for w in white]
        assert [None if v is None else float(v) for v in got] == want
        kinds.update("none" if v is None else ("first" if v == float(t[0]) else "between") for v in want)
    assert kinds == {"none", "first", "between"}

