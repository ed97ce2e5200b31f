"""The ENIX card search's speed shortcuts of session 12 give the very answers of what they replace
(the readings stay identical only so): the table's samples by `take`, the colour keys built in place,
row means as complex running sums, a blob's pixels parted from one scan of its crop and its centre from
their integer sums, the blobs left cleared blob by blob, the density's threshold by cv2.threshold,
extremes by cv2.minMaxLoc, a card's kind counted at once, the heads labelled in their box."""

from __future__ import annotations

import cv2
import numpy as np

from tablecam.vision.enix_search import (_OUTSIDE, DENSITY, NEUTRALS, ClassMap, _blob_pixels, _blobs4, _blobs_left,
                                         _colour_keys, _dense, _every_third, _extremes, _main_kind, _mean_rows,
                                         _rows_at, table_colours)


def _random_masks(rng, count):
    for _ in range(count):
        h, w = (int(v) for v in rng.integers(5, 70, 2))
        mask = np.zeros((h, w), np.uint8)
        for _ in range(int(rng.integers(0, 6))):
            y, x = int(rng.integers(0, h)), int(rng.integers(0, w))
            mask[y:y + int(rng.integers(1, 25)), x:x + int(rng.integers(1, 25))] = 1
        mask &= (rng.random((h, w)) > rng.uniform(0.0, 0.5)).astype(np.uint8)
        yield mask


def _table_colours_session11(top, valid, shades=3):
    """enix_search.table_colours as session 11 left it (boolean and fancy indexing)."""
    from tablecam.vision.enix_search import SHADE_BAND, _median_levels

    pix = top[::3, ::3][valid[::3, ::3]]
    if len(pix) == 0:
        return np.array([[128.0, 128.0, 128.0]], np.float32)
    median = _median_levels(pix)
    lo = np.clip(np.floor(median - 20.0) + 1.0, 0, 255).astype(np.float64)
    hi = np.clip(np.ceil(median + 20.0) - 1.0, 0, 255).astype(np.float64)
    near = pix[cv2.inRange(pix.reshape(-1, 1, 3), lo, hi).ravel() > 0].astype(np.float32)
    if len(near) < 10:
        return median[None]
    brightness = near[:, 0] + near[:, 1] + near[:, 2]
    order = np.argsort(brightness)
    band = max(1, int(SHADE_BAND * len(order)))
    picks = []
    for q in np.linspace(0.1, 0.9, shades):
        at = int(q * (len(order) - 1))
        picks.append(near[order[max(at - band, 0):at + band + 1]].mean(axis=0))
    return np.vstack([median[None]] + [np.asarray(p)[None] for p in picks]).astype(np.float32)


def test_the_tables_samples_by_take_are_the_indexed_ones():
    rng = np.random.default_rng(12)
    for t in range(300):
        h, w = (int(v) for v in rng.integers(1, 60, 2))
        base = rng.integers(0, 256, 3)
        top = np.clip(base + rng.normal(0, rng.choice([3.0, 15.0, 60.0]), (h, w, 3)), 0, 255).astype(np.uint8)
        valid = rng.random((h, w)) > rng.uniform(0.0, 1.0)
        grid = _every_third((h, w))
        assert np.array_equal(top.reshape(-1, 3)[grid], top[::3, ::3])
        got, want = table_colours(top, valid), _table_colours_session11(top, valid)
        assert got.dtype == want.dtype and np.array_equal(got, want)
        at = rng.integers(0, h * w, int(rng.integers(0, 50)))
        assert np.array_equal(_rows_at(top, at), top.reshape(-1, 3)[at])


def test_the_colour_keys_are_session11s():
    rng = np.random.default_rng(12)
    for _ in range(100):
        h, w = (int(v) for v in rng.integers(1, 50, 2))
        top = rng.integers(0, 256, (h, w, 3)).astype(np.uint8)
        valid = rng.random((h, w)) > 0.3
        q = top >> 2
        want = q[..., 0].astype(np.intp) << 12
        want |= q[..., 1].astype(np.intp) << 6
        want |= q[..., 2]
        want[~valid] = _OUTSIDE
        got = _colour_keys(top, valid)
        assert got.dtype == np.intp and np.array_equal(got, want)


def test_row_means_as_complex_sums_are_the_running_sums():
    rng = np.random.default_rng(12)
    for n in (1, 2, 3, 17, 1000, 4001):
        for scale, shift in ((1.0, 0.0), (30.0, 211.3), (1e-3, -5.0)):
            pts = rng.normal(shift, scale, (n, 2))
            want = np.cumsum(pts, axis=0)[-1] / n
            for a in (pts, np.asfortranarray(pts), np.repeat(pts, 2, axis=0)[::2]):
                got = _mean_rows(a)
                assert got.dtype == np.float64 and got.shape == (2,) and np.array_equal(got, want)


def test_a_blobs_pixels_from_one_scan_are_findnonzeros():
    rng = np.random.default_rng(12)
    for mask in _random_masks(rng, 400):
        count, labels, areas = _blobs4(mask)
        ids = np.flatnonzero(areas >= int(rng.integers(1, 30)))
        ids = rng.permutation(ids[ids > 0])
        got = _blob_pixels(labels, ids, count, 7, 3)
        assert len(got) == len(ids)
        for i, (at, xs, ys) in zip(ids, got):
            want = cv2.findNonZero((labels == i).view(np.uint8)).reshape(-1, 2).astype(np.float64) + (7, 3)
            assert np.array_equal(np.column_stack([xs, ys]).astype(np.float64), want)
            assert np.array_equal(at, np.flatnonzero(labels == i))
        # The blobs left: every pixel's label looked up.
        left = rng.random(count) > 0.4
        left[0] = False
        pixels = {i: at for i, (at, _, _) in zip(ids, got) if rng.random() > 0.3}
        want = left.astype(np.uint8)[labels]
        assert np.array_equal(_blobs_left(labels, left, pixels), want)


def test_density_by_threshold_is_the_shares_comparison():
    rng = np.random.default_rng(12)
    for mask in _random_masks(rng, 300):
        # (The densities include shares whose count threshold is a whole number.)
        for k, density in ((3, DENSITY), (5, DENSITY), (7, 0.25), (5, 12 / 25), (3, 4 / 9), (7, 1 / 49)):
            want = (cv2.boxFilter(mask, -1, (k, k), normalize=False) > density * k * k).astype(np.uint8)
            got = _dense(mask, k, density)
            assert (got is None and not mask.any()) or np.array_equal(got, want)


def test_extremes_are_numpys():
    rng = np.random.default_rng(12)
    for n in (1, 2, 5, 1300):
        a = rng.normal(0, 40, n)
        lo, hi = _extremes(a)
        assert lo == a.min() and hi == a.max()


def test_a_cards_kind_counted_at_once_is_counted_per_kind():
    rng = np.random.default_rng(12)
    names = ("a", "b", "c", "d", "e", "f") + NEUTRALS
    for _ in range(300):
        h, w = (int(v) for v in rng.integers(20, 80, 2))
        labels = rng.integers(-1, len(names), (h, w)).astype(np.int8)
        cmap = ClassMap(labels, names)
        ids = rng.choice(len(names), int(rng.integers(1, 5)), replace=False)
        index = {int(i): ("enix" if names[i] == "black" else names[i]) for i in ids}
        centre, angle = rng.uniform(-10, max(h, w) + 10, 2), float(rng.uniform(0, 180))
        share = float(rng.uniform(0.0, 0.5))
        got = _main_kind(cmap, index, centre, angle, (53.0, 84.0), 0.5, share, 7)
        assert got == _main_kind_session11(cmap, index, centre, angle, (53.0, 84.0), 0.5, share, 7)


def _main_kind_session11(cmap, index, centre, angle, face, ppm, share, grid):
    """enix_search._main_kind as session 11 left it (a comparison per kind)."""
    import math

    from tablecam.vision.enix_search import _middle_grid

    a = math.radians(angle)
    along = np.array([math.cos(a), math.sin(a)])
    across = np.array([-along[1], along[0]])
    u, v = _middle_grid(0.4 if set(index.values()) <= set(NEUTRALS) else 0.25, grid)
    pts = centre + ((u * face[1])[:, None] * along + (v * face[0])[:, None] * across) * ppm
    h, w = cmap.labels.shape
    xy = np.round(pts).astype(int)
    ok = (xy[:, 0] >= 0) & (xy[:, 0] < w) & (xy[:, 1] >= 0) & (xy[:, 1] < h)
    labels = cmap.labels[xy[ok, 1], xy[ok, 0]]
    votes = {}
    for k, kind in index.items():
        votes[kind] = votes.get(kind, 0) + int(np.count_nonzero(labels == k))
    best = max(votes, key=votes.get)
    return best if votes[best] >= share * len(pts) else None


def test_a_blobs_centre_from_whole_pixels_is_the_running_sums():
    from tablecam.vision.enix_search import _centred

    rng = np.random.default_rng(12)
    for n in (1, 2, 3, 17, 1300, 40000):
        for lo, hi in ((0, 5), (0, 420), (-3000, 3000), (10 ** 6, 10 ** 6 + 50)):
            xs, ys = rng.integers(lo, hi, n), rng.integers(lo, hi, n)
            pts = np.column_stack([xs, ys]).astype(np.float64)
            centre, d = _centred(xs, ys)
            want = np.cumsum(pts, axis=0)[-1] / n
            assert centre.dtype == np.float64 and np.array_equal(centre, want)
            assert d.dtype == np.float64 and d.flags.c_contiguous and np.array_equal(d, pts - want)


def test_heads_labelled_in_their_box_are_the_whole_maps():
    rng = np.random.default_rng(12)
    threads = cv2.getNumThreads()
    try:
        for n in (1, max(threads, 2)):  # (the companion labels on one thread; a photo may use several)
            cv2.setNumThreads(n)
            _heads_in_box_and_map(rng)
    finally:
        cv2.setNumThreads(threads)


def _heads_in_box_and_map(rng):
    for _ in range(40):  # map-sized, many blobs, clear of a margin (a large map is labelled in parallel stripes)
        mask = np.zeros((270, 420), np.uint8)
        y0, x0 = int(rng.integers(0, 60)), int(rng.integers(0, 60))
        for _ in range(int(rng.integers(1, 40))):
            y, x = int(rng.integers(y0, 270)), int(rng.integers(x0, 420))
            mask[y:y + int(rng.integers(1, 60)), x:x + int(rng.integers(1, 60))] = 1
        mask &= (rng.random(mask.shape) > rng.uniform(0.0, 0.6)).astype(np.uint8)
        _same_heads(mask)
    for small in _random_masks(rng, 300):
        # (Placed anywhere in a larger map, far from its corner too: the centroids' sums then grow.)
        h, w = small.shape
        big = np.zeros((h + int(rng.integers(0, 400)), w + int(rng.integers(0, 600))), np.uint8)
        y, x = int(rng.integers(0, big.shape[0] - h + 1)), int(rng.integers(0, big.shape[1] - w + 1))
        big[y:y + h, x:x + w] = small
        _same_heads(small)
        _same_heads(big)


def _same_heads(mask):
    from tablecam.vision.enix_search import _components8

    want_count, _, want_stats, want_centroids = cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S,
                                                                                           cv2.CCL_GRANA)
    count, stats, centroids = _components8(mask)
    assert count == want_count
    assert np.array_equal(stats[1:], want_stats[1:])
    assert centroids.dtype == want_centroids.dtype and np.array_equal(centroids[1:], want_centroids[1:])
