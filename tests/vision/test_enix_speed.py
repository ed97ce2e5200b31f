"""ENIX's speed shortcuts give the very answers of what they replace (the readings stay identical only
so). Session 8: the card search's density and closing worked out in the mask's box, and the
lattice's cells made unique by one key per cell. Session 9: Grana's labelling for the heads, grey
moments of 0/1 masks, the rays' sample points of all tiles at once (and the covers that cannot
reach them skipped), a card value's inverse transform on the rows it needs, a median by partition.
Session 10: a seed's centre that stops re-centring once settled, and its outline's gradients from 8 bits.
Session 11: label masks by comparison, card blobs labelled without stats and their pixels by findNonZero,
linear light by cv2.LUT, a hexagon's cover from 8 bits, the seeds' closing near the colour and their
band's counts from one summed-area table, a card's own-kind centre from flat indices.
Session 13: a seed's outline terms looked up by gradient pair, its share from its moments, a partly
hidden tile's nearest tie from the ties alone."""

from __future__ import annotations

import math

import cv2
import numpy as np

from tablecam.vision.enix import RAY_REACH_MM
from tablecam.vision.enix_cards import (BLURS_MM, _card_frame, _drawn_spectra, _least_channel, _matches, _median,
                                        _median_rows, _normalised, _to_table, templates)
from tablecam.vision.enix_search import CardBlob
from tablecam.vision.enix_hexes import _RING_OFFSETS, _cell_centre, _cells_near, _hex_round, _to_cell
from tablecam.vision.enix_rays import ACROSS_MM, ALONG_MM, BESIDE_MM, sample_points, sample_points_many, side_directions
from tablecam.vision.enix_search import DENSITY, _closed, _dense


def _random_masks(rng, count):
    for _ in range(count):
        h, w = (int(v) for v in rng.integers(5, 70, 2))
        mask = np.zeros((h, w), np.uint8)
        for _ in range(int(rng.integers(0, 5))):
            y, x = int(rng.integers(0, h)), int(rng.integers(0, w))
            mask[y:y + int(rng.integers(1, 20)), x:x + int(rng.integers(1, 20))] = 1
        mask &= (rng.random((h, w)) > rng.uniform(0.0, 0.5)).astype(np.uint8)  # speckled, some at the edges
        yield mask


def test_the_card_masks_worked_in_their_box_are_the_whole_maps():
    rng = np.random.default_rng(8)
    for mask in _random_masks(rng, 600):
        for k in (3, 5, 9, 11):
            want = (cv2.boxFilter(mask, -1, (k, k), normalize=False) > DENSITY * k * k).astype(np.uint8)
            got = _dense(mask, k)
            assert (got is None and not mask.any()) or np.array_equal(got, want)
            disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
            assert np.array_equal(_closed(mask, disc), cv2.morphologyEx(mask, cv2.MORPH_CLOSE, disc))


def test_the_lattice_cells_are_numpys_own_answers():
    rng = np.random.default_rng(8)
    for _ in range(500):
        centres = rng.uniform(-200, 1000, (int(rng.integers(1, 7)), 2))
        angle = float(rng.uniform(0, 60))
        origin = rng.uniform(-50, 900, 2)
        base = _hex_round(_to_cell(centres, origin, angle))
        want = np.unique((base[:, None, :] + _RING_OFFSETS[None, :, :]).reshape(-1, 2), axis=0)
        got = _cells_near(centres, origin, angle)
        assert got.dtype == want.dtype and np.array_equal(got, want)
        # The seeds' cells centred all at once: each the same sums as alone.
        at_once = _cell_centre(base.T[:, :, None], origin, angle)
        assert np.array_equal(at_once, np.array([_cell_centre(c, origin, angle) for c in base]))


def test_grana_labels_the_heads_as_the_default_does():
    rng = np.random.default_rng(9)
    for mask in _random_masks(rng, 300):
        want = cv2.connectedComponentsWithStats(mask, connectivity=8)
        got = cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_GRANA)
        assert got[0] == want[0]
        for a, b in zip(got[1:], want[1:]):
            assert np.array_equal(a, b, equal_nan=True)


def test_grey_moments_of_a_0_1_mask_are_its_binary_moments():
    rng = np.random.default_rng(9)
    for mask in _random_masks(rng, 300):
        want, got = cv2.moments(mask, binaryImage=True), cv2.moments(mask)
        for key in ("m00", "m10", "m01"):
            assert got[key] == want[key]


def _sample_points_alone(centre, side_angle):
    """The rays' sample points of one tile as session 8 made them."""
    d = side_directions(side_angle)
    n = np.column_stack([-d[:, 1], d[:, 0]])
    c = np.asarray(centre, dtype=np.float64)
    along = (c + ALONG_MM[None, :, None, None] * d[:, None, None, :]
             + ACROSS_MM[None, None, :, None] * n[:, None, None, :])
    beside = (c + ALONG_MM[None, :, None, None] * d[:, None, None, :]
              + np.array([-BESIDE_MM, BESIDE_MM])[None, None, :, None] * n[:, None, None, :])
    return along, beside


def test_the_rays_sample_points_of_all_tiles_at_once_are_each_tiles_own():
    rng = np.random.default_rng(9)
    for _ in range(200):
        tiles = int(rng.integers(1, 7))
        centres, angles = rng.uniform(-100, 1200, (tiles, 2)), rng.uniform(0, 60, tiles)
        along, beside, flat = sample_points_many(centres, angles)
        alone = [_sample_points_alone(c, a) for c, a in zip(centres, angles)]
        assert np.array_equal(flat, np.concatenate([p.reshape(-1, 2) for pair in alone for p in pair]))
        for k, (a, b) in enumerate(alone):
            assert np.array_equal(along[k], a) and np.array_equal(beside[k], b)
            one_a, one_b = sample_points(centres[k], angles[k])
            assert np.array_equal(one_a, a) and np.array_equal(one_b, b)
        # A cover farther than RAY_REACH_MM plus its radius from the centre reaches no point of the axis.
        axis = along[:, :, :, 1, :] - centres[:, None, None, :]
        assert np.hypot(axis[..., 0], axis[..., 1]).max() < RAY_REACH_MM - 0.99


def _matches_session8(ink):
    """enix_cards._matches as session 8 had it: the whole inverse transform."""
    th, tw = templates(BLURS_MM[0])[0].shape
    ih, iw = ink.shape
    shape, spectra, norms = _drawn_spectra(ih, iw)
    corr = np.fft.irfft2(np.fft.rfft2(ink, s=shape)[None, None] * spectra, s=shape)[..., :ih - th + 1, :iw - tw + 1]
    return _normalised(corr, ink, (th, tw), norms)  # (unchanged: only the inverse transform is)


def test_a_values_matches_are_those_of_the_whole_inverse_transform():
    rng = np.random.default_rng(9)
    th, tw = templates(BLURS_MM[0])[0].shape
    for _ in range(30):
        ih, iw = th + int(rng.integers(1, 20)), tw + int(rng.integers(1, 20))
        ink = (rng.random((ih, iw)) * rng.random()).astype(np.float32)
        ink[:, : int(rng.integers(0, 10))] = 0.0  # (beyond the card's edge)
        got, want = _matches(ink), _matches_session8(ink)
        assert got.dtype == want.dtype and np.array_equal(got, want)


def test_the_median_by_partition_is_numpys():
    rng = np.random.default_rng(9)
    for _ in range(3000):
        values = (rng.random(int(rng.integers(1, 120))) * rng.choice([1e-3, 1.0, 1e3])).astype(
            rng.choice([np.float32, np.float64]))
        if rng.random() < 0.3:
            values = np.round(values, 1)  # (ties)
        assert _median(values) == float(np.median(values))


def test_the_card_frames_shortcuts_are_numpys_own_answers():
    rng = np.random.default_rng(9)
    for _ in range(500):
        blob = CardBlob("water", (float(rng.uniform(-50, 900)), float(rng.uniform(-50, 700))), float(rng.uniform(0, 180)))
        flip = bool(rng.integers(0, 2))
        local = rng.uniform(-60, 60, (int(rng.integers(1, 300)), 2))
        right, down = _card_frame(blob, flip)
        assert np.array_equal(_to_table(blob, flip, local),
                              np.asarray(blob.centre) + local[..., :1] * right + local[..., 1:2] * down)
        bgr = rng.uniform(0, 255, (len(local), 3)).astype(np.float32)
        assert np.array_equal(_least_channel(bgr), bgr.min(axis=1))
        rows = rng.random((5, int(rng.integers(1, 30)), 3)).astype(np.float32)
        assert np.array_equal(_median_rows(rows), np.median(rows, axis=1))


# --- session 10 ----------------------------------------------------------------------------------
def _blob_centre_session9(mask, start, ppm):
    """enix_hexes._blob_centre as session 9 had it: always three passes."""
    from tablecam.vision.enix_hexes import AREA_MM2, SIDE_MM

    r = SIDE_MM * 1.05 * ppm
    h, w = mask.shape
    x0, y0 = max(int(start[0] - 2 * r), 0), max(int(start[1] - 2 * r), 0)
    x1, y1 = min(int(start[0] + 2 * r) + 1, w), min(int(start[1] + 2 * r) + 1, h)
    sub = mask[y0:y1, x0:x1] > 0
    cx, cy = float(start[0]), float(start[1])
    disc, box = np.zeros((0, 0), bool), (slice(0, 0), slice(0, 0))
    for _ in range(3):
        bx0, by0 = max(int(math.floor(cx - r)), x0), max(int(math.floor(cy - r)), y0)
        bx1, by1 = max(min(int(math.ceil(cx + r)) + 1, x1), bx0), max(min(int(math.ceil(cy + r)) + 1, y1), by0)
        yy, xx = np.arange(by0, by1)[:, None], np.arange(bx0, bx1)
        box = (slice(by0 - y0, by1 - y0), slice(bx0 - x0, bx1 - x0))
        disc = sub[box] & ((xx - cx) ** 2 + (yy - cy) ** 2 <= r * r)
        m = cv2.moments(disc.view(np.uint8)) if disc.size else {"m00": 0}
        if m["m00"] == 0:
            break
        cy, cx = (m["m01"] + by0 * m["m00"]) / m["m00"], (m["m10"] + bx0 * m["m00"]) / m["m00"]
    blob = np.zeros_like(sub)
    blob[box] = disc
    return (cx, cy), float(disc.sum()) / (AREA_MM2 * ppm * ppm), blob


def _outline_angle_session9(blob):
    """enix_hexes._outline_angle as session 9 had it: float32 gradients of the whole crop."""
    x, y, w, h = cv2.boundingRect(blob.view(np.uint8))
    if w == 0:
        return 0.0
    b = blob[max(y - 2, 0):y + h + 2, max(x - 2, 0):x + w + 2].astype(np.float32)
    gx = cv2.Sobel(b, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(b, cv2.CV_32F, 0, 1, ksize=3)
    edge = (gx != 0) | (gy != 0)
    gx, gy = gx[edge], gy[edge]
    z = (cv2.magnitude(gx, gy).ravel() * np.exp(6j * np.arctan2(gy, gx))).sum()
    return float((np.degrees(np.angle(z)) - 180.0) / 6.0 % 60.0)


def _tile_like_masks(rng, count):
    """0/1 masks holding a hexagon of a tile's size at the seeds' scale (0.5 px/mm), with speckle,
    bites and a second blob, anywhere (at the edges too)."""
    for _ in range(count):
        mask = np.zeros((int(rng.integers(40, 200)), int(rng.integers(40, 200))), np.uint8)
        for _ in range(int(rng.integers(0, 3))):
            c = rng.uniform(-20, 220, 2)
            a = np.radians(rng.uniform(0, 60) + 60 * np.arange(6))
            size = rng.uniform(5, 40)
            cv2.fillConvexPoly(mask, np.round(c + size * np.column_stack([np.cos(a), np.sin(a)])).astype(np.int32), 1)
        mask ^= (rng.random(mask.shape) < rng.uniform(0.0, 0.15)).astype(np.uint8)
        yield mask


def test_the_seeds_centre_stops_when_settled_and_its_angle_from_whole_gradients_are_session9s():
    from tablecam.vision.enix_hexes import _blob_centre, _outline_angle

    rng = np.random.default_rng(10)
    for mask in _tile_like_masks(rng, 400):
        start = (int(rng.integers(0, mask.shape[1])), int(rng.integers(0, mask.shape[0])))
        ppm = float(rng.choice([0.4, 0.5, 0.6]))
        (cx, cy), seen, blob = _blob_centre(mask, start, ppm)
        (wx, wy), want_seen, want_blob = _blob_centre_session9(mask, start, ppm)
        assert (cx, cy, seen) == (wx, wy, want_seen) and blob.dtype == want_blob.dtype
        assert np.array_equal(blob, want_blob)
        assert _outline_angle(blob) == _outline_angle_session9(want_blob)
        whole = mask.astype(bool)  # (any 0/1 blob, the whole mask too)
        assert _outline_angle(whole) == _outline_angle_session9(whole)


def _read_sides_session9(along_lum, beside_lum, along_ok):
    """enix_rays.read_sides as session 9 had it: every side's samples through its mask, and the
    guarded correlations taken whole."""
    from tablecam.vision import enix_rays as r

    def correlations(a, rows, squares):
        d = np.sqrt(float(a @ a) * squares)
        return np.where(d > 1e-12, (rows @ a) / np.maximum(d, 1e-12), 0.0)

    out = []
    local = cv2.dilate(np.ascontiguousarray(along_lum), r._LOCAL_WINDOW, borderType=cv2.BORDER_REPLICATE)
    profiles = along_lum / np.maximum(local, 1e-5)
    contrasts = along_lum / np.maximum(np.maximum(beside_lum[..., 0], beside_lum[..., 1]), 1e-5)
    visible = along_ok.mean(axis=1)
    for k in range(6):
        ok = along_ok[k]
        if visible[k] < r.MIN_VISIBLE:
            out.append(r.SideReading(None, False))
            continue
        if r._percentile_below(contrasts[k][ok], 80, r.MIN_RAY_CONTRAST):
            out.append(r.SideReading(None, not r._percentile_below(contrasts[k][ok], 80, r.MIN_NO_RAY_CONTRAST)))
            continue
        prof = profiles[k][ok]
        dip = float(prof.min())
        if dip > r.NO_POINT_DIP:
            out.append(r.SideReading(0, True))
            continue
        centred = prof - prof.mean()
        one, two = (float(correlations(centred, *r._centred_rows(n, ok)).max()) for n in (1, 2))
        fit = 1 if one > two else 2
        if max(one, two) < r.MIN_FIT or abs(one - two) < r.MIN_MARGIN:
            fit = None
        if dip > r.POINT_DIP:
            out.append(r.SideReading(None, False, frozenset((0, fit)) if fit else frozenset((0, 1, 2))))
        elif fit is not None:
            out.append(r.SideReading(fit, True))
        else:
            out.append(r.SideReading(None, False))
    return out


def test_the_rays_sides_read_whole_rows_and_unguarded_correlations_as_session9_did():
    from tablecam.vision.enix_rays import _EXPECTED, _SLID, read_sides

    rng = np.random.default_rng(10)
    n = _EXPECTED.shape[1]
    for _ in range(400):
        # Rays of 0, 1 or 2 path points (slid, noisy, shaded) or flat ones, beside a darker or a brighter tile.
        kinds = rng.integers(0, 4, 6)
        rows = [np.full(n, 1.0) if kind == 3 else _SLID[kind][rng.integers(0, _SLID.shape[1])] for kind in kinds]
        along = np.array(rows) * rng.uniform(0.05, 1.0, (6, 1)) * np.linspace(1.0, rng.uniform(0.6, 1.4), n)
        along = (along + rng.normal(0, rng.uniform(0, 0.05), along.shape)).clip(0, None).astype(np.float32)
        beside = (along[..., None] * rng.uniform(0.05, 1.6, (6, 1, 2))).astype(np.float32)
        ok = rng.random((6, n)) > rng.choice([0.0, 0.0, 0.2, 0.6], (6, 1))
        for k in np.flatnonzero(rng.random(6) < 0.4):  # a pawn over part of a side: samples unlike the ray's
            at, width = int(rng.integers(0, n)), int(rng.integers(3, n // 2))
            ok[k, at:at + width] = False
            along[k, at:at + width] *= np.float32(rng.choice([0.02, 8.0]))
        got, want = read_sides(along, beside, ok), _read_sides_session9(along, beside, ok)
        assert got == want


def test_the_best_correlation_is_the_guarded_correlations_best():
    from tablecam.vision.enix_rays import _best_correlation, _centred

    rng = np.random.default_rng(11)
    for _ in range(2000):
        m, n = int(rng.integers(1, 15)), int(rng.integers(2, 70))
        rows, squares = _centred(rng.random((m, n)) * rng.choice([0.0, 1e-9, 1.0], (m, 1)))
        a = (rng.random(n) * rng.choice([0.0, 1e-8, 1.0])).astype(np.float32)
        a = a - a.mean()
        d = np.sqrt(float(a @ a) * squares)
        want = float(np.where(d > 1e-12, (rows @ a) / np.maximum(d, 1e-12), 0.0).max())
        assert _best_correlation(a, float(a @ a), rows, squares) == want


# --- session 11 -------------------------------------------------------------------------------------
from tablecam.vision.enix_hexes import _cover  # noqa: E402
from tablecam.vision.enix_search import _blob_points, _blobs4, _id_runs, _ids_lut  # noqa: E402
from tablecam.vision.piece_colours import _LINEAR, srgb_to_linear  # noqa: E402


def test_label_masks_by_comparison_are_the_lookup_tables_answers():
    rng = np.random.default_rng(11)
    for t in range(2000):
        labels = rng.integers(-1, 12, size=(int(rng.integers(1, 40)), int(rng.integers(1, 40)))).astype(np.int8)
        if t % 3 == 0:
            labels = labels[:, ::2]  # (a crop of the map: not contiguous)
        ids = [int(i) for i in rng.choice(12, size=int(rng.integers(0, 7)), replace=False)]
        lut = np.zeros(256, np.uint8)
        lut[np.asarray(ids, dtype=np.intp)] = 1
        want = cv2.LUT(np.ascontiguousarray(labels).view(np.uint8), lut)
        got = _ids_lut(labels, ids)
        assert got.dtype == np.uint8 and np.array_equal(got, want)
    assert _id_runs((9, 0, 1, 2, 8, 5)) == ((0, 2), (5, 5), (8, 9))


def test_blobs_labelled_without_stats_are_the_stats_blobs_and_their_points():
    rng = np.random.default_rng(11)
    for mask in _random_masks(rng, 400):
        count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
        got_count, got_labels, areas = _blobs4(mask)
        assert got_count == count and np.array_equal(got_labels, labels)
        assert np.array_equal(areas, stats[:, cv2.CC_STAT_AREA])
        ids = np.flatnonzero(areas >= int(rng.integers(1, 30)))
        ids = ids[ids > 0]
        for i, pts in zip(ids, _blob_points(labels, ids, 7, 3)):
            x, y, w, h, _ = stats[i]
            want = np.column_stack(np.nonzero(labels[y:y + h, x:x + w] == i)[::-1]).astype(np.float64) + (x + 7, y + 3)
            assert pts.dtype == want.dtype and np.array_equal(pts, want)


def test_linear_light_of_whole_levels_is_the_tables_own():
    rng = np.random.default_rng(11)
    for shape in [(0,), (1,), (5,), (3, 0), (7, 3), (6, 99, 99), (2, 3, 4, 5), (1000,)]:
        v = rng.integers(0, 256, size=shape).astype(np.uint8)
        for w in (v, v[..., ::2]):
            got = srgb_to_linear(w)
            assert got.dtype == np.float32 and got.shape == w.shape
            assert np.array_equal(got.view(np.uint32), _LINEAR[w].view(np.uint32))


def test_a_hexagons_cover_from_8_bits_is_the_whole_count():
    rng = np.random.default_rng(11)
    for mask in _random_masks(rng, 300):
        n = int(rng.integers(1, min(mask.shape) + 1))
        kernel = np.zeros((n, n), np.uint8)
        c = (n - 1) / 2
        a = rng.uniform(0, math.pi / 3) + np.arange(6) * math.pi / 3
        corners = np.column_stack([c + c * np.cos(a), c + c * np.sin(a)])
        cv2.fillConvexPoly(kernel, np.round(corners).astype(np.int32), 1)
        want = np.rint(cv2.matchTemplate(mask.astype(np.float32), kernel.astype(np.float32), cv2.TM_CCORR))
        got = _cover(mask, kernel)
        assert np.array_equal(got, want)
        # ... and they are the counts themselves (checked directly at a few shifts).
        for _ in range(3):
            dy, dx = (int(rng.integers(0, s)) for s in got.shape)
            assert got[dy, dx] == np.count_nonzero(mask[dy:dy + n, dx:dx + n] & kernel)


def test_the_seeds_ring_counts_are_two_box_filters():
    from tablecam.vision.enix_hexes import _ring_counts

    rng = np.random.default_rng(11)
    for mask in _random_masks(rng, 400):
        rows, cols = mask.shape
        band_in = 2 * int(rng.integers(1, 12)) + 1
        band_out = band_in + 2 * int(rng.integers(1, 10))
        x, y = int(rng.integers(0, cols)), int(rng.integers(0, rows))
        w, h = int(rng.integers(1, cols - x + 1)), int(rng.integers(1, rows - y + 1))
        want = (cv2.boxFilter(mask, cv2.CV_32S, (band_out, band_out), normalize=False, borderType=cv2.BORDER_CONSTANT)
                - cv2.boxFilter(mask, cv2.CV_32S, (band_in, band_in), normalize=False, borderType=cv2.BORDER_CONSTANT))
        got = _ring_counts(mask, (x, y, w, h), band_in, band_out)
        assert got.dtype == want.dtype and np.array_equal(got, want[y:y + h, x:x + w])


def test_the_seeds_closing_near_the_colour_is_the_whole_masks():
    from tablecam.vision.enix_hexes import _closed_near

    rng = np.random.default_rng(11)
    for mask in _random_masks(rng, 400):
        # (Set in a larger empty map at times: the window's edge then lies inside the map.)
        top, left, bottom, right = (int(v) for v in rng.integers(0, 12, 4) * (rng.random() < 0.7))
        mask = cv2.copyMakeBorder(mask, top, bottom, left, right, cv2.BORDER_CONSTANT, value=0)
        for k in (3, 5, 9):
            x, y, w, h = cv2.boundingRect(mask)
            kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
            want = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel)
            assert np.array_equal(_closed_near(mask, (x, y, w, h), kernel, k), want)


def _kind_centre_session10(labels, ids, centre, angle, face, ppm):
    """enix_search._kind_centre as session 10 wrote it (np.nonzero, column_stack, a boolean index)."""
    from tablecam.vision.enix_search import _mean_rows

    a = math.radians(angle)
    along = np.array([math.cos(a), math.sin(a)])
    across = np.array([-along[1], along[0]])
    half = max(face) * 0.6 * ppm
    h, w = labels.shape
    x0, y0 = max(int(centre[0] - half), 0), max(int(centre[1] - half), 0)
    x1, y1 = min(int(centre[0] + half) + 1, w), min(int(centre[1] + half) + 1, h)
    ys, xs = np.nonzero(_ids_lut(labels[y0:y1, x0:x1], ids))
    if len(xs) < 10:
        return np.asarray(centre)
    d = np.column_stack([xs + x0, ys + y0]) - centre
    inside = (np.abs(d @ along) <= 0.55 * face[1] * ppm) & (np.abs(d @ across) <= 0.55 * face[0] * ppm)
    if inside.sum() < 10:
        return np.asarray(centre)
    return np.asarray(centre) + _mean_rows(d[inside])


def test_a_cards_kind_centre_is_session10s():
    from tablecam.vision.enix_search import NEUTRALS, ClassMap, _kind_centre

    rng = np.random.default_rng(11)
    for _ in range(400):
        h, w = (int(v) for v in rng.integers(30, 120, 2))
        labels = rng.integers(-1, 11, size=(h, w)).astype(np.int8)
        for _ in range(int(rng.integers(0, 4))):
            y, x = int(rng.integers(0, h)), int(rng.integers(0, w))
            labels[y:y + int(rng.integers(5, 40)), x:x + int(rng.integers(5, 40))] = int(rng.integers(0, 11))
        cmap = ClassMap(labels, tuple(f"e{i}" for i in range(6)) + NEUTRALS[1:] + ("extra",))
        ids = [int(i) for i in rng.choice(11, size=int(rng.integers(1, 3)), replace=False)]
        centre = rng.uniform(-10, max(h, w) + 10, 2)
        face, ppm, angle = (53.0, 84.0), float(rng.choice([0.5, 1.0])), float(rng.uniform(0, 180))
        want = _kind_centre_session10(labels, ids, centre, angle, face, ppm)
        got = _kind_centre(cmap, ids, centre, angle, face, ppm)
        assert got.dtype == want.dtype and np.array_equal(got, want)


# Session 11 (cards): a frame's dark cards judged at once, a border's crossing found on slices, linear
# light of a view's samples by the uint8 lookup.


def _white_border_session10(bgr, inside):
    """enix_cards._white_border as session 10 had it (one card)."""
    from tablecam.vision.enix_cards import BORDER_WHITE, _bright_neutral

    if not inside.any():
        return False
    return float(np.mean(_bright_neutral(bgr[inside]))) >= BORDER_WHITE


def _head_seen_session10(bgr, inside):
    """enix_cards._head_seen as session 10 had it (one card, the float lookup)."""
    from tablecam.vision.enix_cards import _HEAD_BODY, _HEAD_RING, HEAD_GREEN, HEAD_LIGHTER, HEAD_SEARCH_MM
    from tablecam.vision.piece_colours import srgb_to_linear

    n = len(_HEAD_RING) + len(_HEAD_BODY)
    lin = srgb_to_linear(bgr).reshape(len(HEAD_SEARCH_MM), n, 3)
    inside = inside.reshape(len(HEAD_SEARCH_MM), n).all(axis=1)
    head, grey = _median_rows(lin[:, :len(_HEAD_RING)]), _median_rows(lin[:, len(_HEAD_RING):])
    blue, green, red = head[:, 0], head[:, 1], head[:, 2]
    found = (green > HEAD_GREEN * np.maximum(red, blue)) & (green > HEAD_LIGHTER * grey.max(axis=1)) & inside
    return bool(found.any())


def _whole_levels(rng, shape, palette):
    """Samples as TableView.sample gives them (whole levels as float32): palette colours with noise."""
    base = palette[rng.integers(0, len(palette), shape[:-1])]
    return np.clip(base + rng.normal(0, rng.choice([0.0, 4.0, 20.0]), shape), 0, 255).round().astype(np.float32)


def test_a_frames_dark_cards_judged_at_once_are_each_judged_alone():
    from tablecam.vision.enix_cards import _BORDER_PLACES, _HEAD_PLACES, _heads_seen, _white_borders

    rng = np.random.default_rng(12)
    # A face's white border, its grey, the goblin's green, a back's blue-grey, a cloth, a glare.
    palette = np.array([(236, 236, 238), (60, 60, 64), (70, 170, 60), (120, 100, 90), (90, 120, 110),
                        (250, 252, 255), (200, 150, 160)], np.float64)
    seen_border = seen_head = 0
    for _ in range(300):
        cards = int(rng.integers(1, 9))
        border = _whole_levels(rng, (cards, len(_BORDER_PLACES), 3), palette[rng.permutation(7)[:rng.integers(1, 4)]])
        head = _whole_levels(rng, (cards, len(_HEAD_PLACES), 3), palette[rng.permutation(7)[:rng.integers(1, 4)]])
        in_border = rng.random((cards, len(_BORDER_PLACES))) > rng.choice([0.0, 0.02, 0.5, 1.0])
        in_head = rng.random((cards, len(_HEAD_PLACES))) > rng.choice([0.0, 0.002, 0.5])
        got_border, got_head = _white_borders(border, in_border), _heads_seen(head, in_head)
        want_border = [_white_border_session10(border[k], in_border[k]) for k in range(cards)]
        want_head = [_head_seen_session10(head[k], in_head[k]) for k in range(cards)]
        assert got_border.tolist() == want_border and got_head.tolist() == want_head
        seen_border += sum(want_border)
        seen_head += sum(want_head)
    assert seen_border > 50 and seen_head > 50  # both answers met, not only "no"


def _rise_session10(white, t, expected):
    """enix_cards._rise as session 10 had it: masks over the profile's places."""
    from tablecam.vision.enix_cards import MAX_SHIFT_MM

    colour = _median(white[t < 0.5 * expected])
    near = (t > expected - MAX_SHIFT_MM) & (t < expected + MAX_SHIFT_MM + 3.0)
    if not near.any():
        return None
    top = float(white[near].max())
    if top - colour < 0.15:
        return None
    level = (colour + top) / 2
    idx = np.flatnonzero(near & (white > level))
    if len(idx) == 0:
        return None
    k = int(idx[0])
    if k == 0:
        return float(t[0])
    a, b = white[k - 1], white[k]
    return float(t[k - 1] + (level - a) / max(b - a, 1e-6) * (t[k] - t[k - 1]))


def test_a_borders_crossing_on_slices_is_the_masks():
    from tablecam.vision.enix_cards import CARD_BORDER_MM, CARD_MM, SCAN_T, _linear, _rise

    rng = np.random.default_rng(13)
    halves = (CARD_MM[0] / 2 - CARD_BORDER_MM, CARD_MM[1] / 2 - CARD_BORDER_MM)
    found = 0
    for _ in range(4000):
        expected = float(rng.choice(halves)) if rng.random() < 0.8 else float(rng.uniform(1.0, 45.0))
        edge = expected + rng.uniform(-10.0, 10.0)
        levels = np.where(SCAN_T < edge, rng.uniform(20, 200), rng.uniform(100, 255)) + rng.normal(0, rng.choice([0, 3, 30]), len(SCAN_T))
        white = _linear(np.clip(levels, 0, 255).round().astype(np.float32))
        want = _rise_session10(white, SCAN_T, expected)
        got = _rise(white, expected)
        assert got == want, (expected, got, want)
        found += want is not None
    assert found > 1000


def test_linear_light_of_whole_levels_is_the_float_lookups():
    from tablecam.vision.enix_cards import _linear
    from tablecam.vision.piece_colours import srgb_to_linear

    levels = np.arange(256, dtype=np.float32)
    samples = np.stack([levels, levels[::-1], np.roll(levels, 7)], axis=1)
    got, want = _linear(samples), srgb_to_linear(samples)
    assert got.dtype == want.dtype and np.array_equal(got, want)


# --- session 12 (hexes, rays, the table view) ---------------------------------------------------------
def _rays_of_tiles(rng, tiles):
    """Sides as the session-9 test above makes them (0-2 path points or flat, shaded, noisy, a pawn
    over part of some), for several tiles: (T, 6, A), (T, 6, A, 2), (T, 6, A)."""
    from tablecam.vision.enix_rays import _EXPECTED, _SLID

    n = _EXPECTED.shape[1]
    out = []
    for _ in range(tiles):
        kinds = rng.integers(0, 4, 6)
        rows = [np.full(n, 1.0) if kind == 3 else _SLID[kind][rng.integers(0, _SLID.shape[1])] for kind in kinds]
        along = np.array(rows) * rng.uniform(0.05, 1.0, (6, 1)) * np.linspace(1.0, rng.uniform(0.6, 1.4), n)
        along = (along + rng.normal(0, rng.uniform(0, 0.05), along.shape)).clip(0, None).astype(np.float32)
        beside = (along[..., None] * rng.uniform(0.05, 1.6, (6, 1, 2))).astype(np.float32)
        for k in np.flatnonzero(rng.random(6) < 0.4):
            # Contrasts about a limit (no ray / ray, something bright beside): the order statistics
            # either side of the 80th percentile then often straddle it.
            limit = rng.choice([3.0, 0.6])
            contrast = rng.uniform(0.97 * limit, 1.03 * limit, n)
            if rng.random() < 0.5:  # the two straddling it, the percentile itself on either side
                a, b = limit * rng.uniform(0.9, 0.999), limit * rng.uniform(1.001, 1.3)
                contrast = rng.permutation(np.concatenate([rng.uniform(0.5 * a, a, 48), [a, b],
                                                           rng.uniform(b, 1.3 * b, n - 50)]))
            beside[k] = (along[k] / np.maximum(contrast, 1e-3).astype(np.float32))[:, None]
        ok = rng.random((6, n)) > rng.choice([0.0, 0.0, 0.0, 0.2, 0.6], (6, 1))
        for k in np.flatnonzero(rng.random(6) < 0.3):
            at, width = int(rng.integers(0, n)), int(rng.integers(3, n // 2))
            ok[k, at:at + width] = False
            along[k, at:at + width] *= np.float32(rng.choice([0.02, 8.0]))
        out.append((along, beside, ok))
    return tuple(np.array(a) for a in zip(*out))


def test_the_sides_of_all_tiles_read_at_once_are_each_tiles_own():
    """read_sides_many (a frame's tiles in one pass, whole sides' measures taken for all at once) reads
    every side as session 9's read_sides of its tile alone."""
    from tablecam.vision.enix_rays import read_sides_many

    rng = np.random.default_rng(12)
    for _ in range(300):
        along, beside, ok = _rays_of_tiles(rng, int(rng.integers(1, 8)))
        got = read_sides_many(along, beside, ok)
        assert got == [_read_sides_session9(a, b, o) for a, b, o in zip(along, beside, ok)]
    assert read_sides_many(np.zeros((0, 6, 62), np.float32), np.zeros((0, 6, 62, 2), np.float32),
                           np.zeros((0, 6, 62), bool)) == []


def test_a_rows_mean_least_and_order_statistics_are_the_rows_own():
    """What read_sides_many relies on: numpy's mean, least value and partition of each row of a 2-D
    float32 array are those of the row alone (bit for bit), and so is a row's dot product with itself."""
    rng = np.random.default_rng(12)
    for _ in range(300):
        rows = (rng.random((int(rng.integers(1, 40)), 62)) * rng.choice([1e-3, 1.0, 50.0])).astype(np.float32)
        means, least = rows.mean(axis=1), rows.min(axis=1)
        part = np.partition(rows, (48, 49), axis=1)
        centred = rows - means[:, None]
        for k, row in enumerate(rows):
            alone = np.partition(row.copy(), (48, 49))
            assert means[k] == row.copy().mean() and least[k] == row.copy().min()
            assert (part[k, 48], part[k, 49]) == (alone[48], alone[49])
            own = row.copy() - row.copy().mean()
            assert np.array_equal(centred[k], own) and float(centred[k] @ centred[k]) == float(own @ own)


def _sample_session11(view, points_mm):
    """TableView.sample as session 11 had it (the look-up on the folded image)."""
    pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
    px = view.fix.table_to_image(pts).astype(np.float32)
    h, w = view.frame.shape[:2]
    inside = (px[:, 0] >= 0) & (px[:, 0] <= w - 1) & (px[:, 1] >= 0) & (px[:, 1] <= h - 1)
    n = len(px)
    width = min(n, 1024)
    rows = -(-n // width)
    maps = np.zeros((rows * width, 2), np.float32)
    maps[:n] = px
    maps = maps.reshape(rows, width, 2)
    raw = cv2.remap(view.frame, maps[..., 0].copy(), maps[..., 1].copy(), cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REPLICATE)
    got = cv2.LUT(raw, view.lut) if view.lut is not None else raw
    got = got.reshape(-1, 3)[:n]
    clipped = (raw.reshape(-1, 3)[:n] >= 250) | (got >= 254)
    return got.astype(np.float32), inside, clipped


def test_a_views_samples_and_their_whole_levels_are_session11s():
    """TableView.sample (its look-up now on the points alone) and sample_levels (the same levels as
    uint8, without the clipped channels) read what session 11's sample read, at points in and out
    of the frame, with and without a white balance."""
    from types import SimpleNamespace

    from tablecam.vision.table_view import TableView

    rng = np.random.default_rng(12)
    frame = rng.integers(0, 256, (300, 400, 3), dtype=np.uint8)
    frame[50:80] = 255  # (clipped channels)
    h = np.array([[1.1, 0.2, 30.0], [-0.1, 0.9, 20.0], [1e-4, 2e-4, 1.0]])

    def to_image(p):
        q = np.column_stack([np.asarray(p, np.float64).reshape(-1, 2), np.ones(len(p))]) @ h.T
        return q[:, :2] / q[:, 2:]

    for lut in (None, rng.integers(0, 256, (1, 256, 3), dtype=np.uint8)):
        view = TableView(frame, SimpleNamespace(table_to_image=to_image), None, None, None, lut)
        for n in (0, 1, 7, 1024, 2500):
            points = rng.uniform(-40, 400, (n, 2))
            want = _sample_session11(view, points) if n else None
            got = view.sample(points)
            levels, inside = view.sample_levels(points)
            if n == 0:
                assert got[0].shape == (0, 3) and levels.shape == (0, 3) and inside.shape == (0,)
                continue
            assert all(np.array_equal(g, w) and g.dtype == w.dtype for g, w in zip(got, want))
            assert levels.dtype == np.uint8 and np.array_equal(levels, want[0]) and np.array_equal(inside, want[1])


def test_whole_sides_best_correlations_at_once_are_each_sides_own():
    """_best_correlations (the profiles read whole, all at once) gives each profile's
    _best_correlation with the expected rows of one and of two path points, near-zero
    denominators included."""
    from tablecam.vision.enix_rays import _CENTRED, _best_correlation, _best_correlations

    rng = np.random.default_rng(12)
    n = _CENTRED[1][0].shape[1]
    for _ in range(200):
        profiles = (rng.random((int(rng.integers(1, 20)), n)) * rng.choice([0.0, 1e-8, 1.0], (1, 1))).astype(np.float32)
        profiles[rng.random(len(profiles)) < 0.2] = 0.0  # (flat profiles: every denominator zero)
        centred = profiles - profiles.mean(axis=1)[:, None]
        squares = np.array([float(c @ c) for c in centred])
        products = np.array([[_CENTRED[k][0] @ c for k in (1, 2)] for c in centred])
        want = [[_best_correlation(c, float(c @ c), *_CENTRED[k]) for k in (1, 2)] for c in centred]
        assert _best_correlations(products, squares).tolist() == want


def test_the_side_directions_of_all_tiles_at_once_are_each_tiles_own():
    """side_directions_many gives each angle's directions as session 11's side_directions of it alone."""
    from tablecam.vision.enix_rays import side_directions_many

    def alone(side_angle):
        a = np.radians(-90.0 + side_angle + 60.0 * np.arange(6))
        return np.column_stack([np.cos(a), np.sin(a)])

    rng = np.random.default_rng(12)
    for _ in range(500):
        angles = rng.uniform(-400.0, 400.0, int(rng.integers(1, 9))).tolist()
        assert np.array_equal(side_directions_many(angles), np.array([alone(a) for a in angles]))


def test_the_tiles_hexagons_mask_drawn_from_corners_made_at_once_is_session11s():
    """hexagons_mask (all corners mapped and rounded in one call) draws what session 11's mask, a
    mapping per tile, drew, tiles over the map's edges too."""
    from tablecam.vision.enix_hexes import HexFit, _hexagon_mm, hexagons_mask

    def alone(hexes, shape, mm_to_px, grow=1.04):
        out = np.zeros(shape, np.uint8)
        for h in hexes:
            poly = mm_to_px(_hexagon_mm(np.asarray(h.centre, dtype=np.float64), h.side_angle, grow))
            cv2.fillConvexPoly(out, np.round(poly).astype(np.int32), 1)
        return out

    rng = np.random.default_rng(12)
    for _ in range(200):
        origin, ppm = rng.uniform(-30, 30, 2), float(rng.choice([0.5, 0.37, 1.0]))

        def mm_to_px(p, origin=origin, ppm=ppm):
            return (np.asarray(p, dtype=np.float64).reshape(-1, 2) - origin) * ppm - 0.5

        hexes = [HexFit("x", tuple(rng.uniform(-80, 900, 2)), float(rng.uniform(0, 60)), 1.0)
                 for _ in range(int(rng.integers(0, 8)))]
        grow = float(rng.choice([1.0, 1.04]))
        want = alone(hexes, (270, 420), mm_to_px, grow)
        assert np.array_equal(hexagons_mask(hexes, (270, 420), mm_to_px, grow), want)


def _own_centre_session11(mask, near_mm, angle, mm_to_px, px_to_mm, ppm):
    """enix_hexes._own_centre as session 11 had it (its window's bounds by numpy)."""
    from tablecam.vision.enix_hexes import CLOSE_MM, _disc, _hexagon_mm
    from tablecam.vision.enix_search import fill_holes

    k = max(3, int(round(CLOSE_MM * ppm)) | 1)
    h, w = mask.shape
    centre = np.asarray(near_mm, dtype=np.float64)
    box, sub = None, None
    for _ in range(2):
        poly = mm_to_px(_hexagon_mm(centre, angle, 1.04))
        x0, y0 = np.maximum(np.floor(poly.min(axis=0)).astype(int) - k, 0)
        x1, y1 = np.minimum(np.ceil(poly.max(axis=0)).astype(int) + k + 1, (w, h))
        if x1 <= x0 or y1 <= y0:
            break
        if box != (x0, y0, x1, y1):
            box = (x0, y0, x1, y1)
            sub = fill_holes(cv2.morphologyEx(mask[y0:y1, x0:x1], cv2.MORPH_CLOSE, _disc(k)))
        inside = np.zeros_like(sub)
        cv2.fillConvexPoly(inside, np.round(poly - (x0, y0)).astype(np.int32), 1)
        m = cv2.moments(sub & inside)
        if m["m00"] == 0:
            break
        centre = px_to_mm(np.array([[m["m10"] / m["m00"] + x0, m["m01"] / m["m00"] + y0]]))[0]
    return centre


def test_a_whole_tiles_own_centre_is_session11s():
    """_own_centre (its window's bounds as whole numbers) gives session 11's centre, tiles at and
    past the map's edges too."""
    from types import SimpleNamespace

    from tablecam.vision.enix_hexes import _own_centre

    rng = np.random.default_rng(12)
    for mask in _tile_like_masks(rng, 300):
        origin, ppm = rng.uniform(-20, 20, 2), float(rng.choice([0.4, 0.5, 0.6]))

        def mm_to_px(p, origin=origin, ppm=ppm):
            return (np.asarray(p, dtype=np.float64).reshape(-1, 2) - origin) * ppm - 0.5

        def px_to_mm(p, origin=origin, ppm=ppm):
            return (np.asarray(p, dtype=np.float64).reshape(-1, 2) + 0.5) / ppm + origin

        cmap = SimpleNamespace(mask=lambda energy, mask=mask: mask)
        near = px_to_mm([rng.uniform(-30, mask.shape[1] + 30), rng.uniform(-30, mask.shape[0] + 30)])[0]
        angle = float(rng.uniform(0, 60))
        got = _own_centre(cmap, "x", near, angle, mm_to_px, px_to_mm, ppm)
        assert np.array_equal(got, _own_centre_session11(mask, near, angle, mm_to_px, px_to_mm, ppm))


def _outline_angle_session12(blob):
    """enix_hexes._outline_angle as session 12 had it (each outline pixel's term worked out)."""
    x, y, w, h = cv2.boundingRect(blob.view(np.uint8))
    if w == 0:
        return 0.0
    b = blob[max(y - 2, 0):y + h + 2, max(x - 2, 0):x + w + 2].view(np.uint8)
    gx, gy = cv2.spatialGradient(b)
    edge = (gx != 0) | (gy != 0)
    gx, gy = gx[edge].astype(np.float32), gy[edge].astype(np.float32)
    z = (cv2.magnitude(gx, gy).ravel() * np.exp(6j * np.arctan2(gy, gx))).sum()
    return float((np.degrees(np.angle(z)) - 180.0) / 6.0 % 60.0)


def test_a_seeds_outline_terms_looked_up_by_gradient_pair_are_session12s():
    """Session 13: `_outline_angle` looks each outline pixel's term up by its (gx, gy) pair
    (`_outline_terms`): session 12's angle to the bit, on tile-like blobs (at the window's edges
    too) and their seeds' discs; every pair's term is the expression's own."""
    from tablecam.vision.enix_hexes import _blob_centre, _outline_angle, _outline_terms

    rng = np.random.default_rng(131)
    for mask in _tile_like_masks(rng, 300):
        blob = mask.astype(bool)
        if blob.any() and not blob.all():
            assert _outline_angle(blob) == _outline_angle_session12(blob)
        start = (int(rng.integers(0, mask.shape[1])), int(rng.integers(0, mask.shape[0])))
        _, _, disc = _blob_centre(mask, start, 0.5)
        if disc.any():
            assert _outline_angle(disc) == _outline_angle_session12(disc)
    terms = _outline_terms()
    for gx in range(-4, 5):
        for gy in range(-4, 5):
            fx, fy = np.array([gx], np.float32), np.array([gy], np.float32)
            want = cv2.magnitude(fx, fy).ravel() * np.exp(6j * np.arctan2(fy, fx))
            assert terms[(gx + 4) * 9 + gy + 4] == want[0]


def _covering_centre_session12(mask, cell_mm, angle, mm_to_px, px_to_mm, ppm):
    """enix_hexes._covering_centre as session 12 had it (distances of every shift, inf off the ties)."""
    import math

    from tablecam.vision.enix_hexes import CLOSE_MM, COVER_SLACK, SLIDE_MM, _cover, _disc, _hexagon_mm, _shifts

    k = max(3, int(round(CLOSE_MM * ppm)) | 1)
    poly = mm_to_px(_hexagon_mm(np.asarray(cell_mm, dtype=np.float64), angle, 1.0))
    c_px = poly.mean(axis=0)
    reach = int(math.ceil(SLIDE_MM * ppm)) + 1
    half = int(math.ceil(np.abs(poly - c_px).max())) + reach + k
    h, w = mask.shape
    x0, y0 = int(round(c_px[0])) - half, int(round(c_px[1])) - half
    if x0 < 0 or y0 < 0 or x0 + 2 * half + 1 > w or y0 + 2 * half + 1 > h:
        return np.asarray(cell_mm, dtype=np.float64)
    sub = cv2.morphologyEx(mask[y0:y0 + 2 * half + 1, x0:x0 + 2 * half + 1], cv2.MORPH_CLOSE, _disc(k))
    kernel = np.zeros((2 * (half - reach) + 1,) * 2, np.uint8)
    cv2.fillConvexPoly(kernel, np.round(poly - c_px + (half - reach)).astype(np.int32), 1)
    cover = _cover(sub, kernel)
    yy, xx, near = _shifts(reach, SLIDE_MM * ppm)
    best = float(cover[near].max())
    ties = near & (cover >= best - COVER_SLACK * float(kernel.sum()))
    d = np.where(ties, np.hypot(xx + (c_px[0] - round(c_px[0])), yy + (c_px[1] - round(c_px[1]))), np.inf)
    iy, ix = np.unravel_index(int(np.argmin(d)), d.shape)
    return px_to_mm(np.array([[x0 + half - reach + ix, y0 + half - reach + iy]], dtype=np.float64))[0]


def test_a_partly_hidden_tiles_nearest_tie_is_session12s():
    """Session 13: `_covering_centre` measures the distances of the tied shifts alone (and counts the
    hexagon's pixels by countNonZero): session 12's centre, with many ties (an empty or a full window)
    and at the map's edges."""
    from types import SimpleNamespace

    from tablecam.vision.enix_hexes import _covering_centre

    rng = np.random.default_rng(132)
    masks = list(_tile_like_masks(rng, 250)) + [np.zeros((120, 120), np.uint8), np.ones((120, 120), np.uint8)]
    for mask in masks:
        origin, ppm = rng.uniform(-20, 20, 2), float(rng.choice([0.4, 0.5, 0.6]))

        def mm_to_px(p, origin=origin, ppm=ppm):
            return (np.asarray(p, dtype=np.float64).reshape(-1, 2) - origin) * ppm - 0.5

        def px_to_mm(p, origin=origin, ppm=ppm):
            return (np.asarray(p, dtype=np.float64).reshape(-1, 2) + 0.5) / ppm + origin

        cmap = SimpleNamespace(mask=lambda energy, mask=mask: mask, labels=mask)
        cell = px_to_mm([rng.uniform(0, mask.shape[1]), rng.uniform(0, mask.shape[0])])[0]
        angle = float(rng.uniform(0, 60))
        got = _covering_centre(cmap, "x", cell, angle, mm_to_px, px_to_mm, ppm)
        assert np.array_equal(got, _covering_centre_session12(mask, cell, angle, mm_to_px, px_to_mm, ppm))


def _cell_fills_session12(labels, n, cells, origin, angle, mm_to_px, ppm):
    """enix_hexes._cell_fills as session 12 had it (each cell's shares divided out on their own)."""
    from tablecam.vision.enix_hexes import AREA_MM2, SIDE_MM, _corner_directions, _steps
    from tablecam.vision.enix_search import _ids_lut

    h, w = labels.shape
    out = np.zeros((len(cells), n))
    if len(cells) == 0:
        return out
    d0, d1 = _steps(angle)
    centres = origin + cells[:, :1] * d0 + cells[:, 1:] * d1
    polys = mm_to_px((centres[:, None, :] + 0.97 * SIDE_MM * _corner_directions(angle)[None]).reshape(-1, 2))
    polys = polys.reshape(len(cells), 6, 2)
    lows = np.floor(polys.min(axis=1)).astype(int)
    highs = np.ceil(polys.max(axis=1)).astype(int) + 1
    energy = cv2.integral(_ids_lut(labels, range(n)))
    bx0, by0 = np.clip(lows[:, 0], 0, w), np.clip(lows[:, 1], 0, h)
    bx1, by1 = np.clip(highs[:, 0], 0, w), np.clip(highs[:, 1], 0, h)
    any_energy = (energy[by1, bx1] - energy[by0, bx1] - energy[by1, bx0] + energy[by0, bx0]) > 0
    total = AREA_MM2 * 0.97 ** 2 * ppm * ppm
    corners = np.round(polys - lows[:, None, :]).astype(np.int32)
    u = labels.view(np.uint8)
    for ci in np.flatnonzero(any_energy).tolist():
        x0, y0 = lows[ci]
        x1, y1 = highs[ci]
        if x1 <= 0 or y1 <= 0 or x0 >= w or y0 >= h:
            continue
        cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        inside = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(inside, corners[ci], 1)
        counts = cv2.calcHist([u[cy0:cy1, cx0:cx1]], [0], inside[cy0 - y0:cy1 - y0, cx0 - x0:cx1 - x0], [256], [0, 256])
        out[ci] = counts.ravel()[:n].astype(np.float64) / total
    return out


def test_the_cells_shares_divided_at_once_are_session12s():
    """Session 13: `_cell_fills` divides all measured cells' counts at once: session 12's shares to the
    bit, cells off the map, bare and with no cell at all included."""
    from types import SimpleNamespace

    from tablecam.vision.enix_hexes import _RING_OFFSETS, _cell_fills

    rng = np.random.default_rng(133)
    for trial in range(60):
        n = 6
        labels = rng.integers(-1, n + 3, (90, 140)).astype(np.int8)
        if trial % 3 == 0:
            labels[:, : int(rng.integers(0, 140))] = -1  # (bare table over part of the map)
        origin, ppm = rng.uniform(-50, 250, 2), float(rng.choice([0.4, 0.5]))

        def mm_to_px(p, ppm=ppm):
            return (np.asarray(p, dtype=np.float64).reshape(-1, 2) - (-30.0, -20.0)) * ppm - 0.5

        cells = (_RING_OFFSETS + rng.integers(-1, 2, 2)) if trial % 10 else _RING_OFFSETS[:0]
        angle = float(rng.uniform(0, 60))
        got = _cell_fills(SimpleNamespace(labels=labels), tuple("abcdef"), cells, origin, angle, mm_to_px, ppm)
        want = _cell_fills_session12(labels, n, cells, origin, angle, mm_to_px, ppm)
        assert got.dtype == want.dtype and np.array_equal(got, want)


def _hex_round_session12(f):
    """enix_hexes._hex_round as session 12 had it (numpy throughout)."""
    i, j = f[:, 0], f[:, 1]
    k = -i - j
    ri, rj, rk = np.round(i), np.round(j), np.round(k)
    di, dj, dk = np.abs(ri - i), np.abs(rj - j), np.abs(rk - k)
    fix_i = (di > dj) & (di > dk)
    fix_j = ~fix_i & (dj > dk)
    ri = np.where(fix_i, -rj - rk, ri)
    rj = np.where(fix_j, -ri - rk, rj)
    return np.column_stack([ri, rj]).astype(int)


def test_a_few_cells_rounded_in_python_numbers_are_session12s():
    """Session 13: `_hex_round` rounds a few points (a frame's seeds) in Python numbers: session 12's
    cells, with halves (round to even), ties between the three distances, negatives and none."""
    from tablecam.vision.enix_hexes import _hex_round

    rng = np.random.default_rng(134)
    for trial in range(3000):
        n = int(rng.integers(0, 17))
        f = rng.uniform(-6, 6, (n, 2))
        if trial % 3 == 0:
            f = np.round(f * 2) / 2  # (halves)
        elif trial % 3 == 1:
            f = np.round(f * 6) / 6  # (thirds: ties between the distances)
        got = _hex_round(f)
        assert got.dtype == _hex_round_session12(f).dtype and np.array_equal(got, _hex_round_session12(f))
    many = rng.uniform(-6, 6, (40, 2))  # (more points: numpy's own way)
    assert np.array_equal(_hex_round(many), _hex_round_session12(many))
