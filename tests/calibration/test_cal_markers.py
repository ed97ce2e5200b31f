"""Marker corners: where the table's accuracy starts."""

from dataclasses import replace

import cv2
import numpy as np
import pytest

import tablecam.calibration.markers as markers
from synthetic_table import Scene, view
from tablecam.calibration.markers import MarkerFinder, marker_bits, shows_marker

# A sharp-ish full-size frame: 2028x1520, markers about 70 px wide, a little blur.
BIG = replace(Scene(), cam=replace(Scene().cam, size=(2028, 1520), focal_px=1450.0), blur=1.0)


def test_corners_land_within_a_tenth_of_a_pixel_even_when_blurred():
    scene = BIG
    grey = cv2.cvtColor(view(scene), cv2.COLOR_BGR2GRAY)
    sightings = MarkerFinder().find_all(grey)
    assert sorted(sightings.markers) == [0, 1, 2, 3]
    for m, s in sightings.markers.items():
        truth = scene.cam.project(scene.geometry.marker_corners(m))
        assert np.abs(s.corners - truth).max() < 0.15, (m, s.corners - truth)


def test_tracking_reads_the_markers_cells_and_refuses_a_hand():
    grey = cv2.cvtColor(view(BIG), cv2.COLOR_BGR2GRAY)
    finder = MarkerFinder()
    where = {m: BIG.cam.project(BIG.geometry.marker_corners(m)) for m in range(4)}
    assert shows_marker(grey, where[0], marker_bits(0))
    assert not shows_marker(grey, where[0], marker_bits(1))
    assert shows_marker(grey, np.roll(where[2], 1, axis=0), marker_bits(2))  # stuck down turned
    tracked = finder.track(grey, where)
    assert sorted(tracked.markers) == [0, 1, 2, 3]
    hand = cv2.cvtColor(view(replace(BIG, covered=(3,))), cv2.COLOR_BGR2GRAY)
    assert sorted(finder.track(hand, where).markers) == [0, 1, 2]


def test_the_search_in_windows_finds_the_very_corners_a_search_of_the_whole_frame_finds(monkeypatch):
    """A whole-frame search looks roughly first and then searches windows (faster): the corners,
    and so the table and every reading, must be those of searching the whole image (to the last
    bit on these drawn tables; a window skips the 23 px threshold pass, see the next test)."""
    import tablecam.calibration.markers as markers

    for scene in (BIG, replace(BIG, cam=replace(BIG.cam, tilt_deg=25.0, roll_deg=-8.0)), replace(BIG, covered=(1,))):
        grey = cv2.cvtColor(view(scene), cv2.COLOR_BGR2GRAY)
        finder = MarkerFinder()
        staged = finder.find_all(grey)
        with monkeypatch.context() as m:
            m.setattr(markers, "STAGED_FROM_LONG_SIDE", 10**9)  # no windows: the whole image
            whole = finder.find_all(grey)
        assert sorted(staged.markers) == sorted(whole.markers) == ([0, 2, 3] if scene.covered else [0, 1, 2, 3])
        for mid in whole.markers:
            assert np.array_equal(staged.markers[mid].corners, whole.markers[mid].corners)
    # The windows were really searched (the test above compares something) on the open table.
    small = cv2.resize(cv2.cvtColor(view(BIG), cv2.COLOR_BGR2GRAY), None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    assert sorted(mid for mid, _ in MarkerFinder()._detect_in_windows(small)) == [0, 1, 2, 3]


def test_the_confirming_windows_skip_the_23_px_threshold_pass(monkeypatch):
    """In its window a marker and its paper fill most of the picture: the 3 and 13 px threshold passes
    find its outline, the 23 px pass only cost time. The corners stay those of all three passes."""
    finder = MarkerFinder()
    params = finder._window_detector(1014, 120).getDetectorParameters()
    passes = range(params.adaptiveThreshWinSizeMin, params.adaptiveThreshWinSizeMax + 1,
                   params.adaptiveThreshWinSizeStep)
    assert list(passes) == [3, 13]
    for scene in (BIG, replace(BIG, cam=replace(BIG.cam, tilt_deg=25.0, roll_deg=-8.0))):
        grey = cv2.cvtColor(view(scene), cv2.COLOR_BGR2GRAY)
        two = finder.find_all(grey)
        with monkeypatch.context() as m:
            m.setattr(markers, "WINDOW_THRESH_MAX", 23)
            three = finder.find_all(grey)
        assert sorted(two.markers) == sorted(three.markers) == [0, 1, 2, 3]
        for mid in three.markers:
            assert np.abs(two.markers[mid].corners - three.markers[mid].corners).max() < 0.01


def test_markers_the_rough_look_misses_are_found_where_the_others_put_them(monkeypatch):
    """The farthest markers are the ones a rough look at quarter size misses; with the table's layout
    the search looks for each where the others put it (three, or two and the first one found), and
    gets the corners of a whole-image search. One marker seen is too little: everything is searched."""
    import tablecam.calibration.markers as markers
    from tablecam.calibration.geometry import TableGeometry

    scene = replace(BIG, cam=replace(BIG.cam, tilt_deg=25.0, roll_deg=-8.0))
    grey = cv2.cvtColor(view(scene), cv2.COLOR_BGR2GRAY)
    small = cv2.resize(grey, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    whole = dict(markers._markers(MarkerFinder()._detector, small))
    real = markers._markers
    for missed in ({0}, {2}, {0, 1}, {1, 2}, {0, 2}, {2, 3}):
        finder, plain = MarkerFinder(geometry=TableGeometry()), MarkerFinder()

        def rough_misses(detector, image):
            found = real(detector, image)
            return [(m, c) for m, c in found if m not in missed] if detector in (finder._rough, plain._rough) else found

        with monkeypatch.context() as m:
            m.setattr(markers, "_markers", rough_misses)
            staged = finder._detect_in_windows(small)
            assert plain._detect_in_windows(small) is None  # without the layout: search everything
        assert staged is not None and sorted(mid for mid, _ in staged) == [0, 1, 2, 3], missed
        for mid, c in staged:
            assert np.array_equal(c, whole[mid])
    finder = MarkerFinder(geometry=TableGeometry())
    with monkeypatch.context() as m:
        m.setattr(markers, "_markers", lambda detector, image: [(k, c) for k, c in real(detector, image)
                                                                  if k == 3 or detector is not finder._rough])
        assert finder._detect_in_windows(small) is None


def test_a_marker_covered_for_good_leaves_the_guess_and_searches_everything(monkeypatch):
    """Two markers seen roughly, a third covered: its window shows nothing, so the whole reduced image
    is searched, as before the guess (which found the table there: the same sightings)."""
    import tablecam.calibration.markers as markers
    from tablecam.calibration.geometry import TableGeometry

    scene = replace(BIG, cam=replace(BIG.cam, tilt_deg=25.0, roll_deg=-8.0), covered=(1,))
    grey = cv2.cvtColor(view(scene), cv2.COLOR_BGR2GRAY)
    small = cv2.resize(grey, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    finder = MarkerFinder(geometry=TableGeometry())
    real = markers._markers
    with monkeypatch.context() as m:
        m.setattr(markers, "_markers", lambda detector, image: [(k, c) for k, c in real(detector, image)
                                                                  if k != 0 or detector is not finder._rough])
        assert finder._detect_in_windows(small) is None
        staged = finder.find_all(grey)
    with monkeypatch.context() as m:
        m.setattr(markers, "STAGED_FROM_LONG_SIDE", 10**9)  # no windows: the whole image
        whole = finder.find_all(grey)
    assert sorted(staged.markers) == sorted(whole.markers) == [0, 2, 3]
    for mid in whole.markers:
        assert np.array_equal(staged.markers[mid].corners, whole.markers[mid].corners)


def test_a_quads_mean_side_is_numpys_to_the_last_bit():
    """The side length a window's size rests on, in plain floats: the very value of numpy's expression."""
    from tablecam.calibration.markers import _mean_side

    rng = np.random.default_rng(3)
    for _ in range(20000):
        q = rng.normal(500, 300, (4, 2)) * rng.choice([1e-3, 1.0, 1e3])
        assert _mean_side(q) == float(np.mean(np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)))
    q32 = rng.normal(500, 300, (4, 2)).astype(np.float32)  # other types: numpy's own expression
    assert _mean_side(q32) == float(np.mean(np.linalg.norm(q32 - np.roll(q32, -1, axis=0), axis=1)))


def test_the_full_size_retry_searches_around_what_the_reduced_search_found(monkeypatch):
    """The second, full-size try (a marker too small at 1024 px) detects in windows around the
    markers the first try found and where they put the missing one: the corners of a search of
    the whole frame, without searching the whole frame."""
    import tablecam.calibration.markers as markers
    from tablecam.calibration.geometry import TableGeometry

    grey = cv2.cvtColor(view(replace(BIG, cam=replace(BIG.cam, tilt_deg=25.0, roll_deg=-8.0))), cv2.COLOR_BGR2GRAY)
    finder = MarkerFinder(geometry=TableGeometry())
    first = finder.find_all(grey)
    near = markers.Sightings({m: s for m, s in first.markers.items() if m != 1})  # as if 1 were too small
    whole = finder.find_all(grey, long_side=max(grey.shape))
    shapes = []
    real = markers._markers

    def counting(detector, image):
        shapes.append(image.shape)
        return real(detector, image)

    monkeypatch.setattr(markers, "_markers", counting)
    retry = finder.find_all(grey, long_side=max(grey.shape), near=near)
    assert sorted(retry.markers) == sorted(whole.markers) == [0, 1, 2, 3]
    for m in whole.markers:
        assert np.array_equal(retry.markers[m].corners, whole.markers[m].corners)
    assert shapes and grey.shape not in shapes  # only windows were searched


def test_markers_fitted_together_get_the_very_corners_each_gets_alone():
    """The edges of several markers are fitted in one go (one numpy pass over all their sides):
    each marker's corners must be those of fitting it alone, to the last bit, whatever else is in
    the batch (other sizes of marker, a quad whose edges cannot be fitted, another image)."""
    from tablecam.calibration.markers import fit_edges, fit_edges_many

    scene = replace(BIG, cam=replace(BIG.cam, tilt_deg=25.0, roll_deg=-8.0))  # markers of several sizes
    grey = cv2.cvtColor(view(scene), cv2.COLOR_BGR2GRAY)
    other = cv2.cvtColor(view(BIG), cv2.COLOR_BGR2GRAY)
    rng = np.random.default_rng(5)
    items = []
    for m in range(4):
        items.append((grey, scene.cam.project(scene.geometry.marker_corners(m)) + rng.normal(0, 0.7, (4, 2))))
        items.append((other, BIG.cam.project(BIG.geometry.marker_corners(m)) + rng.normal(0, 0.7, (4, 2))))
    items.insert(3, (grey, items[0][1] * 0.02))  # too small to fit: None, and no harm to the others
    alone = [fit_edges(g, q) for g, q in items]
    together = fit_edges_many(items)
    assert alone[3] is None and together[3] is None
    assert sum(a is not None for a in alone) == 8
    for a, b in zip(alone, together):
        assert (a is None and b is None) or np.array_equal(a, b)


def test_a_search_refined_later_gives_what_the_refined_search_gives():
    grey = cv2.cvtColor(view(BIG), cv2.COLOR_BGR2GRAY)
    finder = MarkerFinder()
    raw = finder.find_all(grey, refine=False)
    later, now = finder.refined(grey, raw), finder.find_all(grey)
    assert sorted(later.markers) == sorted(now.markers) == [0, 1, 2, 3]
    for m in now.markers:
        assert np.array_equal(later.markers[m].corners, now.markers[m].corners)
        assert not np.array_equal(raw.markers[m].corners, now.markers[m].corners)  # raw: the detector's own


def test_a_marker_too_small_for_the_reduced_search_costs_no_search_of_the_whole_reduced_frame(monkeypatch):
    """The rough look (lenient) sees a far marker that the detector cannot read at the reduced
    size: its window is not confirmed, and the whole reduced frame would not show it either. The
    other three stand, and the full-size try finds it, as it did after the whole search: the same
    table, without that search (10-20 ms)."""
    import tablecam.calibration.markers as markers
    from tablecam.calibration.geometry import TableGeometry
    from tablecam.calibration.table import search_markers

    grey = cv2.cvtColor(view(replace(BIG, cam=replace(BIG.cam, tilt_deg=25.0, roll_deg=-8.0))), cv2.COLOR_BGR2GRAY)
    real_markers, real_detect = markers._markers, MarkerFinder._detect
    reduced, calls = [False], []

    def detect(self, image, scale, staged=False):  # which detections are of the reduced frame
        reduced[0] = scale < 1.0
        try:
            return real_detect(self, image, scale, staged)
        finally:
            reduced[0] = False

    def too_small_when_reduced(detector, image):  # marker 1 unreadable at the reduced size, for the detector
        found = real_markers(detector, image)
        calls.append((reduced[0], detector, image.shape, {m for m, _ in found}))
        if reduced[0] and detector is not finder._rough:
            found = [(m, c) for m, c in found if m != 1]
        return found

    monkeypatch.setattr(MarkerFinder, "_detect", detect)
    monkeypatch.setattr(markers, "_markers", too_small_when_reduced)
    finder = MarkerFinder(geometry=TableGeometry())
    staged = search_markers(finder, grey)
    small_shape = markers._reduced(grey, markers.FULL_SEARCH_LONG_SIDE / max(grey.shape)).shape
    assert sorted(staged.markers) == [0, 1, 2, 3]
    assert not any(shape == small_shape for r, d, shape, _ in calls if d is finder._detector)  # no whole reduced search
    assert any(r and d is finder._rough and 1 in ids for r, d, _, ids in calls)  # the rough look saw it: the case
    with monkeypatch.context() as m:
        m.setattr(markers, "MIN_CONFIRMED", 5)  # as before: an unconfirmed window means searching everything
        calls.clear()
        searched = search_markers(finder, grey)
        assert any(shape == small_shape for r, d, shape, _ in calls if d is finder._detector)
    assert sorted(searched.markers) == [0, 1, 2, 3]
    for mid in searched.markers:
        assert np.array_equal(staged.markers[mid].corners, searched.markers[mid].corners)


# Session 12's edge fit (d1e92c7), kept verbatim as the reference that session 13's faster one
# (maps from per-side products, remap into strided views, one gather for the SVD groups, plain-float
# boxes, the moves checked at once) must match to the last bit.
def _session12_fit_edges_many(items):
    """`fit_edges` of several markers, each (grey, corners), at once: the very same corners (each
    marker's profiles are sampled from its own neighbourhood as alone), with the numpy work of all
    their sides done in one go (per call, numpy's overhead cost more than the sums of one marker)."""
    out = [None] * len(items)
    work = []  # [index, start, side, float neighbourhood, its offset, corners in it]
    for i, (grey, corners) in enumerate(items):
        start = np.asarray(corners, dtype=np.float64).reshape(4, 2)
        # Work on a float copy of the marker's neighbourhood only (not the whole frame).
        side = markers._mean_side(start)
        pad = int(np.ceil(side / 6)) + 4
        h, w = grey.shape[:2]
        x0, y0 = np.floor(start.min(axis=0)).astype(int) - pad
        x1, y1 = np.ceil(start.max(axis=0)).astype(int) + pad
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        if x1 - x0 < 8 or y1 - y0 < 8:
            continue
        offset = np.array([x0, y0], dtype=np.float64)
        work.append([i, start, side, grey[y0:y1, x0:x1].astype(np.float32), offset, start - offset])
    for _ in range(2):  # the second pass samples along the better edges of the first
        lines = _session12_edge_lines_many([(wk[3], wk[5]) for wk in work])
        corners = markers._corners_of_many([ln for ln in lines if ln is not None])
        kept = []
        for wk, new in zip([wk for wk, ln in zip(work, lines) if ln is not None], corners):
            if new is not None and np.isfinite(new).all():
                wk[5] = new
                kept.append(wk)
        work = kept
    for i, start, side, _, offset, refined in work:
        refined = refined + offset
        # A corner that moved by most of a cell found some other edge (the detector is closer than that).
        if np.max(np.linalg.norm(refined - start, axis=1)) > max(2.0, side / 8):
            continue
        out[i] = refined
    return out


def _session12_edge_lines_many(items):
    """For each (float image, quad): (points (4, 2), unit directions (4, 2)) of the ink-to-paper edge
    near each side k -> k+1 of the quad, or None when one of them is not clear.

    All sides of all the quads are worked on at once. Each quad's profiles are sampled from its own
    image in one remap with the very maps it would have alone (its sides' offsets padded to its
    own widest side); the rows are then padded to the widest side of all with their last sample,
    which changes none of the per-row tests (as the padding within a quad does not)."""
    out = [None] * len(items)
    quads = np.asarray([q for _, q in items], dtype=np.float64).reshape(-1, 4, 2)
    d_all = quads[:, markers._NEXT] - quads
    length_all = np.hypot(d_all[..., 0], d_all[..., 1])
    usable = np.flatnonzero(~(length_all < 8).any(axis=1)).tolist()
    if not usable:
        return out
    q = len(usable)
    mine = quads[usable]
    a = mine.reshape(-1, 2)  # the sides of all usable quads, four by four
    b = mine[:, markers._NEXT].reshape(-1, 2)
    d = d_all[usable].reshape(-1, 2)  # b - a
    length = length_all[usable].reshape(-1)
    n = d[:, ::-1] / length[:, None]  # (t_y, t_x) of the unit tangent t: made (t_y, -t_x), then outward
    n[:, 1] = -n[:, 1]
    centre = np.repeat(mine.mean(axis=1), 4, axis=0)  # each quad's own mean, as np.mean(axis=0) of it
    n *= np.where(np.add.reduce(((a + b) / 2 - centre) * n, axis=1) >= 0, 1.0, -1.0)[:, None]  # ink to paper
    # np.clip's values, without its wrapper: stay inside the one-cell black border (0.45 of a cell).
    reach = np.minimum(np.maximum(0.45 * (length / 6), 1.5), 6.0)
    steps = np.ceil(reach * 8).astype(int) * 2 + 1
    counts = np.minimum(np.maximum(length / 2.5, 6), 40).astype(int)
    # Offsets across each side (np.linspace(-reach, reach, steps), row by row, in its own
    # arithmetic), padded to a common width with their last value: a padded column repeats the
    # last sample, which changes none of the per-row tests below.
    own_width = steps.reshape(q, 4).max(axis=1)
    width = int(own_width.max())
    offsets = np.arange(width, dtype=np.float64)[None, :] * ((2 * reach) / (steps - 1))[:, None] - reach[:, None]
    offsets[np.arange(width)[None, :] >= (steps - 1)[:, None]] = np.repeat(reach, width - steps + 1)
    side = np.repeat(np.arange(4 * q), counts)  # the side of each sample row
    along = np.concatenate([markers._along(int(c)) for c in counts])  # away from the rounded corners
    base = a[side] + along[:, None] * d[side]
    # base + offset * normal, in float64 as ever, then float32 for remap (one gather, no temporaries).
    across = offsets[side]
    map_x = np.add(np.multiply(across, n[side, 0:1]), base[:, 0:1], out=np.empty(across.shape, np.float32),
                   casting="same_kind")
    map_y = np.add(np.multiply(across, n[side, 1:2], out=across), base[:, 1:2], out=np.empty(across.shape, np.float32),
                   casting="same_kind")
    profiles = np.empty(map_x.shape, np.float32)
    ends = np.cumsum(counts.reshape(q, 4).sum(axis=1))
    for k, i in enumerate(usable):
        r0, r1, wk = (ends[k - 1] if k else 0), ends[k], int(own_width[k])
        got = cv2.remap(items[i][0], np.ascontiguousarray(map_x[r0:r1, :wk]), np.ascontiguousarray(map_y[r0:r1, :wk]),
                        cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        profiles[r0:r1, :wk] = got
        profiles[r0:r1, wk:] = got[:, -1:]
    lo, hi = profiles.min(axis=1), profiles.max(axis=1)
    mid = (lo + hi) / 2
    above = profiles >= mid[:, None]
    j = np.argmax(above, axis=1)  # first sample on the paper side of half-way
    # A clean edge: ink then paper, crossing half-way once (a bit or a speck would cross again).
    ok = (hi - lo >= 20) & (j > 0) & (above.sum(axis=1) == above.shape[1] - j)
    good = np.bincount(side[ok], minlength=4 * q)
    clear = ~(good < np.maximum(4, counts // 3)).reshape(q, 4).any(axis=1)  # per quad: every side clear
    rows = np.nonzero(ok & clear[side // 4])[0]
    jj, sr = j[rows], side[rows]
    before, after = profiles[rows, jj - 1], profiles[rows, jj]
    frac = (mid[rows] - before) / np.maximum(after - before, 1e-6)
    s = offsets[sr, jj - 1] + frac * (offsets[sr, jj] - offsets[sr, jj - 1])
    pts = base[rows] + s[:, None] * n[sr]
    # Total least squares per side: the line through the points' mean along the main axis of
    # their scatter (np.linalg.svd: a closed form would differ in the last bits, and the readings
    # downstream are meant to stay the very same). The rows are in side order, so each side's
    # points are one run; sides with as many points are stacked and done in one call each (numpy
    # sums and LAPACK decomposes each matrix of a stack as it does one alone; the thin SVD has the
    # same V as the full one, without the n x n U).
    cuts = np.searchsorted(sr, np.arange(4 * q + 1))
    sizes = np.diff(cuts)
    points, directions = np.empty((4 * q, 2)), np.empty((4 * q, 2))
    sides = np.nonzero(np.repeat(clear, 4))[0]  # each has its run of points (no other side has any)
    if len(sides):
        # Each side's mean point: its points laid out one side a row (padded with zeros, which add
        # nothing) and summed along the row, in order, as np.add.reduce of one side's points along
        # their axis does (np.add.reduceat sums otherwise); then the points less their side's mean.
        runs = np.zeros((4 * q, int(sizes.max()), 2))
        runs[sr, np.arange(len(sr)) - cuts[sr]] = pts
        points[sides] = np.add.reduce(runs[sides], axis=1) / sizes[sides][:, None]
        centred = pts - points[sr]
        # The groups of sides with as many points, each in side order: the sides sorted by their
        # count (stable), cut where the count changes.
        order = sides[np.argsort(sizes[sides], kind="stable")]
        counted = sizes[order]
        starts = [0, *(np.flatnonzero(counted[1:] != counted[:-1]) + 1).tolist(), len(order)]
        for g0, g1 in zip(starts[:-1], starts[1:]):
            group, size = order[g0:g1], int(counted[g0])
            directions[group] = np.linalg.svd(centred[cuts[group][:, None] + np.arange(size)], full_matrices=False)[2][:, 0]
    for k, i in enumerate(usable):
        if clear[k]:
            out[i] = (points[4 * k:4 * k + 4], directions[4 * k:4 * k + 4])
    return out


def _perturbed_batches(rng, n):
    """Batches of 1-6 (grey, corners) from two synthetic views: corners off by 0.3-8 px, some shrunk
    or grown, some off the frame's edge, some float32: a mix of fittable and unfittable quads."""
    tilted = replace(BIG, cam=replace(BIG.cam, tilt_deg=25.0, roll_deg=-8.0))
    views = [(cv2.cvtColor(view(s), cv2.COLOR_BGR2GRAY), s) for s in (BIG, tilted)]
    truths = [(g, s.cam.project(s.geometry.marker_corners(m))) for g, s in views for m in range(4)]
    for _ in range(n):
        batch = []
        for _ in range(rng.integers(1, 7)):
            grey, c = truths[rng.integers(len(truths))]
            c = c + rng.normal(0, rng.choice([0.3, 1.0, 3.0, 8.0]), c.shape)
            u = rng.random()
            if u < 0.1:
                c = c.mean(axis=0) + (c - c.mean(axis=0)) * rng.choice([0.05, 0.3, 2.5])
            elif u < 0.2:
                c = c + rng.choice([-1, 1]) * rng.uniform(0, 2200, 2)
            elif u < 0.3:
                c = c.astype(np.float32)
            batch.append((grey, c))
        yield batch


def test_the_edge_fit_gives_session_12s_corners():
    """The same quads fitted or refused, and the same corners but for the last bits: the edge lines'
    directions are now the scatter's closed-form main axis, not LAPACK's SVD (within 1e-15 of it)."""
    rng = np.random.default_rng(13)
    fitted = 0
    for batch in _perturbed_batches(rng, 60):
        new, old = markers.fit_edges_many(batch), _session12_fit_edges_many(batch)
        for a, b in zip(new, old):
            assert (a is None) == (b is None)
            if a is not None:
                assert a.dtype == b.dtype and a.shape == b.shape
                assert np.abs(a - b).max() < 1e-9
                fitted += 1
    assert fitted > 100  # most quads are fitted: the comparison is of corners, not of Nones


def test_the_main_axis_in_closed_form_is_the_svds():
    """_main_axes gives, per group of centred points, the leading right singular vector np.linalg.svd
    gives (up to its sign): drawn edges at every angle (steep, flat, diagonal), short and long, clean
    and noisy, and groups of every size side by side."""
    rng = np.random.default_rng(5)
    groups, expected = [], []
    for angle in np.concatenate([np.linspace(0.0, np.pi, 37), rng.uniform(0, np.pi, 40)]):
        n = int(rng.integers(4, 41))
        t = rng.uniform(-20, 20, n)
        pts = np.column_stack([t * np.cos(angle), t * np.sin(angle)]) + rng.normal(0, rng.choice([0.0, 0.05, 0.5]), (n, 2))
        pts += rng.uniform(-500, 500, 2)
        centred = pts - pts.mean(axis=0)
        groups.append(centred)
        expected.append(np.linalg.svd(centred, full_matrices=False)[2][0])
    group = np.repeat(np.arange(len(groups)), [len(g) for g in groups])
    got = markers._main_axes(np.concatenate(groups), group, len(groups))
    assert np.allclose(np.hypot(got[:, 0], got[:, 1]), 1.0, atol=1e-15)
    along = np.abs((got * np.array(expected)).sum(axis=1))  # |cos| of the angle between them
    assert along.min() > 1.0 - 1e-13


def test_a_markers_box_in_plain_floats_is_numpys():
    """_padded_box and _window_box round the corners' extent in plain floats: the very integers of
    numpy's np.floor(...).astype(int) (negative, whole and half values; numpy's own beyond int64,
    and float32 corners, whose sums numpy makes in float32)."""
    import warnings

    rng = np.random.default_rng(7)
    cases = [rng.uniform(-50, 2100, (4, 2)) for _ in range(300)]
    cases += [np.round(rng.uniform(-20, 40, (4, 2)) * 2) / 2 for _ in range(100)]  # whole and half pixels
    cases += [np.array([[1e19, 5.0], [6.0, 7.0], [8.0, 9.0], [10.0, -3e19]])]  # beyond int64
    for c in cases:
        pad = int(rng.integers(0, 12))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            x0, y0 = np.floor(c.min(axis=0)).astype(int) - pad
            x1, y1 = np.ceil(c.max(axis=0)).astype(int) + pad
            assert markers._padded_box(c, pad) == (x0, y0, x1, y1)
    shape = (760, 1014)
    floats = [(c, float(rng.uniform(0, 30))) for c in cases[:400]]
    floats.append((np.full((4, 2), 1e7 + 1, dtype=np.float32) + np.float32([[0, 0], [1, 0], [1, 1], [0, 1]]), 0.25))
    floats.append((np.float32(cases[0]), 0.1))
    for c, pad in floats:
        x0, y0 = np.floor(c.min(axis=0) - pad).astype(int)
        x1, y1 = np.ceil(c.max(axis=0) + pad).astype(int)
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, shape[1]), min(y1, shape[0])
        want = None if x1 - x0 < 16 or y1 - y0 < 16 else (int(x0), int(y0), int(x1), int(y1))
        assert markers._window_box(c, pad, shape) == want
    # float32 corners round in float32 (1e7 + 1 - 0.25 is 1e7 + 1 there, 1e7 + 0.75 in float64).
    big = np.full((4, 2), 1e7 + 1, dtype=np.float32) + np.float32([[0, 0], [40, 0], [40, 40], [0, 40]])
    assert markers._window_box(big, 0.25, (2 * 10**7, 2 * 10**7))[:2] == (10**7 + 1, 10**7 + 1)


def _session12_quad_centre(corners):
    p0, p1, p2, p3 = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    d1, d2 = p2 - p0, p3 - p1
    denom = d1[0] * d2[1] - d1[1] * d2[0]
    if abs(denom) < 1e-12:
        return np.mean([p0, p1, p2, p3], axis=0)
    t = ((p1[0] - p0[0]) * d2[1] - (p1[1] - p0[1]) * d2[0]) / denom
    return p0 + t * d1


def test_a_quads_centre_in_plain_floats_is_numpys():
    """quad_centre works in plain floats: the very bits of session 12's numpy scalars, for skewed,
    degenerate (a point, a zero denominator), float32, huge and non-finite corners."""
    import warnings

    rng = np.random.default_rng(11)
    cases = [rng.uniform(-100, 2100, (4, 2)) for _ in range(400)]
    cases += [np.round(c) for c in cases[:50]] + [np.float32(c) for c in cases[50:100]] + [c * 1e300 for c in cases[:20]]
    cases += [np.repeat(c[:1], 4, axis=0) + rng.normal(0, 1e-7, (4, 2)) for c in cases[:20]]  # nearly a point
    cases += [np.array([c[0], c[1], c[0], c[1]]) for c in cases[:20]]  # a zero denominator
    cases += [np.where(np.arange(8).reshape(4, 2) == k, v, c) for k, v in ((0, np.nan), (5, np.inf)) for c in cases[:10]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for c in cases + [cases[0].tolist()]:
            got, want = markers.quad_centre(c), _session12_quad_centre(c)
            assert got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()


def test_the_edge_fit_of_a_colour_image_says_it_needs_grey():
    """cv2.remap writes into the edge fit's sample buffer only for one channel: a colour image is
    refused in one sentence, never fitted from uninitialised samples."""
    from tablecam.calibration.markers import fit_edges_many

    corners = np.array([[20, 20], [60, 20], [60, 60], [20, 60]], np.float64)
    with pytest.raises(ValueError, match="single-channel"):
        fit_edges_many([(np.zeros((80, 80, 3), np.uint8), corners)])
