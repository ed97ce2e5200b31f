"""Marker corners: where the table's accuracy starts."""

from dataclasses import replace

import cv2
import numpy as np

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
    and so the table and every reading, must be exactly those of searching the whole image."""
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
