"""Reading an ENIX tile's rays: for each of its six sides, no ray, or a ray with 0, 1 or 2 path
points; and from that pattern and the ray table, which way the tile is turned.

Along each side's direction the raw frame is sampled from just outside the source to just inside
the rim. A ray is the tile's colour lightened towards white, so it is brighter than the tile
beside it. A path point is a white disc with a dark ring (enix.md (model): 9 mm, one at the
middle of the ray, or two at 0.3 and 0.72 of its length): along the ray each ring shows as two
dips of brightness. A ray without such a dip has no path point; else its profile is compared
with those of one and of two points (allowed to slide a little); the clearly better one is the
reading, otherwise the side is unknown. A shallow dip (a blurred ring, or a bare ray's shading:
both happen) is neither: the side is unread but may be only no point or the better fit, and a
ray darker than the tile beside it (something bright there) is unread, not "no ray".

The pattern read is matched against the ray table's entry for the energy under the six turns;
the turn that agrees with every side read (and with what an unread side may still be) is the
tile's rotation. A tile whose pattern repeats
when turned (solar's repeats every half turn) has several: the caller chooses (the last reading
settles it). Sides under a pawn or the cap are unknown and do not vote. A pattern that no turn
of the table explains is reported as read, with the rotation unknown: the set may differ from
the table (teach it), or something hides part of the tile.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

SOURCE_MM = 36.0  # enix.md (model)
APOTHEM_MM = 64.0 * math.sqrt(3) / 2
SPAN = (SOURCE_MM / 2, APOTHEM_MM)  # a ray runs from the source's edge to the middle of the side
POINT_AT = {0: (), 1: (0.5,), 2: (0.3, 0.72)}  # where path points sit along the span
RING_MM = (3.4, 4.6)  # the dark ring of a path point, from its centre
ALONG_MM = np.arange(21.0, 52.0, 0.5)  # sampled distances from the tile's centre
ACROSS_MM = np.array([-1.0, 0.0, 1.0])  # a ray is 6 mm wide
BESIDE_MM = 9.0  # the tile's own colour, either side of a ray
_BESIDE_MM = np.array([-BESIDE_MM, BESIDE_MM])
BLUR_MM = 0.9  # the camera's blur, for the expected profiles
MIN_RAY_CONTRAST = 3.0  # a ray's weakest channel is at least this much brighter (linear light) than the tile's
LOCAL_MAX_MM = 6.0  # the ray's brightness is judged against its maximum this far either way
NO_POINT_DIP = 0.65  # a ray never darker than this (of its nearby maximum) has no path point's ring...
POINT_DIP = 0.45  # ... and one darker than this has: between them (5200-5399: 5 % of bare rays and the rings
# of a blurred frame), the side is 0 or the profile's fit, no more is claimed
MIN_NO_RAY_CONTRAST = 0.6  # a side less bright than this (of the tile beside it) is not "no ray" (a bare
# side is the tile either way, 0.8-1.5 on 5200-5399) but a ray beside something brighter (glare, a white piece)
MIN_FIT = 0.6  # correlation of the profile with the expected one (1 or 2 path points)...
MIN_MARGIN = 0.15  # ... and by how much it beats the other
SHIFTS = range(-6, 7)  # samples (0.5 mm): how far an expected profile may slide
MIN_VISIBLE = 0.45  # share of a side's samples that must be free of pawns, the cap and hands
RAY_PERCENTILE = 80  # a side's contrast with the tile beside it: this percentile along it (a path point's
# ring and a pawn's edge darken a few samples only)


ANY = frozenset((None, 0, 1, 2))


@dataclass(frozen=True)
class SideReading:
    points: int | None  # 0, 1 or 2 path points; None: no ray
    known: bool  # False: this side could not be read
    may_be: frozenset = ANY  # an unread side: what it may still be (a turn must agree with one of them)

    @property
    def options(self) -> frozenset:
        return frozenset((self.points,)) if self.known else self.may_be


def side_directions(side_angle: float) -> np.ndarray:
    """Unit vectors (6, 2) from a tile's centre to the middles of its sides, in table order: side
    k of the table order points at -90 + side_angle + 60 k degrees."""
    return side_directions_many([side_angle])[0]


def side_directions_many(side_angles) -> np.ndarray:
    """side_directions of several tiles (T, 6, 2): the same sums, angles and their cosines and
    sines, in one call each."""
    a = np.radians((-90.0 + np.asarray(side_angles, dtype=np.float64).reshape(-1))[:, None] + 60.0 * np.arange(6))
    return np.stack([np.cos(a), np.sin(a)], axis=-1)


def sample_points(centre, side_angle: float) -> tuple[np.ndarray, np.ndarray]:
    """Table mm of the along-ray samples (6, A, C, 2) and, at the same distances, the tile either
    side of the ray (6, A, 2, 2)."""
    along, beside, _ = sample_points_many([centre], [side_angle])
    return along[0], beside[0]


def sample_points_many(centres, side_angles) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """sample_points of several tiles (T, ...), and all their points (N, 2): each tile's along
    samples then its beside samples, tile after tile (the order a flat list of them would have).

    Each point is centre + distance along times the side's direction + offset across times its
    normal, summed in that order; worked out per coordinate with the samples along a ray as the
    innermost axis (numpy's loops are per innermost run: over the x, y pair they cost three times
    as much for all six tiles)."""
    d = side_directions_many(side_angles)
    n = np.stack([-d[..., 1], d[..., 0]], axis=-1)
    c = np.asarray(centres, dtype=np.float64).reshape(-1, 2)
    tiles, count = len(c), len(ALONG_MM)
    sizes = (6 * count * len(ACROSS_MM), 6 * count * len(_BESIDE_MM))
    flat = np.empty((tiles, sizes[0] + sizes[1], 2))
    along = flat[:, :sizes[0]].reshape(tiles, 6, count, len(ACROSS_MM), 2)
    beside = flat[:, sizes[0]:].reshape(tiles, 6, count, len(_BESIDE_MM), 2)
    for xy in (0, 1):
        base = c[:, xy, None, None] + ALONG_MM[None, None, :] * d[:, :, xy, None]  # (tiles, sides, along)
        for out, across in ((along, ACROSS_MM), (beside, _BESIDE_MM)):
            offset = across[None, None, :, None] * n[:, :, xy, None, None]  # (tiles, sides, across, along)
            out[..., xy] = (base[:, :, None, :] + offset).transpose(0, 1, 3, 2)
    return along, beside, flat.reshape(-1, 2)


def expected_profiles() -> np.ndarray:
    """(3, A) brightness along a ray with 0, 1, 2 path points, relative to the bare ray, blurred."""
    out = np.ones((3, len(ALONG_MM)))
    fine = np.arange(ALONG_MM[0] - 5, ALONG_MM[-1] + 5, 0.1)
    for n, spots in POINT_AT.items():
        p = np.ones_like(fine)
        for s in spots:
            at = SPAN[0] + s * (SPAN[1] - SPAN[0])
            r = np.abs(fine - at)
            p[(r >= RING_MM[0]) & (r <= RING_MM[1])] = 0.35
        k = np.exp(-0.5 * (np.arange(-40, 41) * 0.1 / BLUR_MM) ** 2)
        p = np.convolve(p, k / k.sum(), mode="same")
        out[n] = np.interp(ALONG_MM, fine, p)
    return out


_EXPECTED = expected_profiles()


def read_sides(along_lum: np.ndarray, beside_lum: np.ndarray, along_ok: np.ndarray) -> list[SideReading]:
    """Per side (table order): linear brightness along the ray (6, A), either side of it at the same
    distances (6, A, 2), and which along-samples are free to read (6, A).

    Both are compared distance by distance, against each side separately: a shadow (the cap's, a
    pawn's) darkens the ray and one side together, so it neither makes a ray where there is none
    nor a dip where there is no path point."""
    return read_sides_many(along_lum[None], beside_lum[None], along_ok[None])[0]


def read_sides_many(along_lum: np.ndarray, beside_lum: np.ndarray, along_ok: np.ndarray) -> list[list[SideReading]]:
    """read_sides of several tiles ((T, 6, A), (T, 6, A, 2), (T, 6, A)), in one pass: every measure
    of a side read whole (most: no pawn, cap or frame edge on it) is taken for all such sides at
    once, row by row (numpy's cost per call is most of a side's over 62 samples; a row's sum, least
    value and order statistics are the very ones of the row alone). Only each profile's own dot
    products (BLAS, whose sums a batched product may add in another order) and the partly covered
    sides, read through their masks, are worked out side by side."""
    count = along_lum.shape[-1]
    lum = np.ascontiguousarray(along_lum.reshape(-1, count))
    beside = beside_lum.reshape(-1, count, 2)
    ok_all = along_ok.reshape(-1, count)
    if len(lum) == 0:
        return []
    # Shading along the ray (a shadow's edge) is divided out by the ray's own nearby maximum; the
    # path points' dark rings, 1 mm wide, stay. (All sides at once: one windowed maximum.)
    # (A grey dilation along each row is that maximum, the ends repeated as np.pad's "edge" would.)
    local = cv2.dilate(lum, _LOCAL_WINDOW, borderType=cv2.BORDER_REPLICATE)
    profiles = lum / np.maximum(local, 1e-5)
    brighter = np.maximum(np.maximum(beside[..., 0], beside[..., 1]), 1e-5)  # (the brighter side)
    contrasts = lum / brighter
    visible = ok_all.mean(axis=1).tolist()
    whole = ok_all.all(axis=1)  # (their rows are read as they are, not copied through a mask)
    # A whole side's 80th percentile of contrast lies between two order statistics of its row; its
    # profile's least value and mean (as np.percentile, .min() and .mean() of the row alone).
    lo, hi = _percentile_place(count, RAY_PERCENTILE)
    ends = np.zeros((len(lum), 2), contrasts.dtype)
    if whole.any():
        ends[whole] = np.partition(contrasts[whole], (lo, hi) if hi != lo else lo, axis=1)[:, [lo, hi]]
    ends, dips = ends.tolist(), profiles.min(axis=1).tolist()
    centred_all = profiles - profiles.mean(axis=1)[:, None]
    out: list[SideReading | None] = []
    fitted = []  # the sides whose profile is fitted: (place in out, dip, correlations or None: a whole side's)
    products, squares_whole = [], []  # a whole side's products with the expected rows, its sum of squares
    for k, is_whole in enumerate(whole.tolist()):
        ok = ok_all[k]
        if visible[k] < MIN_VISIBLE:
            out.append(SideReading(None, False))
            continue
        seen, order = (contrasts[k], ends[k]) if is_whole else (contrasts[k][ok], None)
        if _contrast_below(seen, order, MIN_RAY_CONTRAST):
            # Darker than beside: a ray may lie by something bright (unread); else no ray.
            out.append(SideReading(None, not _contrast_below(seen, order, MIN_NO_RAY_CONTRAST)))
            continue
        if is_whole:
            dip, centred = dips[k], centred_all[k]
        else:
            prof = profiles[k][ok]
            dip, centred = float(prof.min()), prof - prof.mean()
        if dip > NO_POINT_DIP:
            out.append(SideReading(0, True))  # a bare ray: no dark ring anywhere along it
            continue
        # The tile's centre is known to a mm or two: each expected profile may slide a little.
        squares = float(centred @ centred)  # (for both expected profiles)
        if is_whole:
            products.append([_CENTRED[n][0] @ centred for n in (1, 2)])
            squares_whole.append(squares)
            fitted.append((len(out), dip, None))
        else:
            fitted.append((len(out), dip, [_best_correlation(centred, squares, *_centred_rows(n, ok)) for n in (1, 2)]))
        out.append(None)
    whole_fits = iter(_best_correlations(np.array(products), np.array(squares_whole)).tolist() if products else ())
    for at, dip, pair in fitted:
        out[at] = _fit_reading(*(pair if pair is not None else next(whole_fits)), dip)
    return [out[6 * t:6 * t + 6] for t in range(len(out) // 6)]


def _fit_reading(one: float, two: float, dip: float) -> SideReading:
    """A ray's side from its profile's best correlations with one and with two path points, and its dip."""
    fit = 1 if one > two else 2
    if max(one, two) < MIN_FIT or abs(one - two) < MIN_MARGIN:
        fit = None
    if dip > POINT_DIP:
        # A shallow dip: a blurred ring, or a bare ray's shading (a bare ray can fit one point
        # well): no point or the fit, whichever the other sides agree with.
        return SideReading(None, False, frozenset((0, fit)) if fit else frozenset((0, 1, 2)))
    if fit is not None:
        return SideReading(fit, True)
    return SideReading(None, False)


def _percentile_below(values: np.ndarray, q: float, limit: float) -> bool:
    """float(np.percentile(values, q)) < limit, without np.percentile's overhead (it is asked for
    every side of every tile): its linear interpolation lies between the two values either side of
    its place, so when both are on the same side of `limit` the answer is theirs; only otherwise is
    the percentile itself worked out."""
    lo, hi = _percentile_place(len(values), q)
    part = np.partition(values, (lo, hi)) if hi != lo else np.partition(values, lo)
    return _between_below(float(part[lo]), float(part[hi]), values, q, limit)


def _percentile_place(n: int, q: float) -> tuple[int, int]:
    """The two places in the order of n values either side of np.percentile's (q) (the same one at
    the end)."""
    lo = int(math.floor(q / 100.0 * (n - 1)))
    return lo, min(lo + 1, n - 1)


def _contrast_below(values: np.ndarray, order: np.ndarray | None, limit: float) -> bool:
    """_percentile_below(values, RAY_PERCENTILE, limit), given the two order statistics either side
    of its place when they are known already (`order`; None: worked out here)."""
    if order is None:
        return _percentile_below(values, RAY_PERCENTILE, limit)
    return _between_below(float(order[0]), float(order[1]), values, RAY_PERCENTILE, limit)


def _between_below(a: float, b: float, values: np.ndarray, q: float, limit: float) -> bool:
    """_percentile_below given the order statistics a <= b either side of the percentile's place."""
    if a >= limit:
        return False
    if b < limit:
        return True
    return float(np.percentile(values, q)) < limit


def _shifted(profile: np.ndarray, samples: int) -> np.ndarray:
    if samples == 0:
        return profile
    out = np.roll(profile, samples)
    if samples > 0:
        out[:samples] = profile[0]
    else:
        out[samples:] = profile[-1]
    return out


def _best_correlation(a: np.ndarray, squares: float, r: np.ndarray, r_squares: np.ndarray) -> float:
    """The best correlation of a profile (n,) less its mean with the rows of (m, n), given those rows
    less their means, their sums of squares (_centred_rows) and the profile's own (a @ a, made once
    for both expected profiles). A near-zero denominator gives 0; when there is none (as good as
    always) the very same quotients are taken without the guards."""
    d = np.sqrt(squares * r_squares)
    if d.min() > 1e-12:
        return float(((r @ a) / d).max())
    return float(np.where(d > 1e-12, (r @ a) / np.maximum(d, 1e-12), 0.0).max())


def _best_correlations(products: np.ndarray, squares: np.ndarray) -> np.ndarray:
    """(P, 2): _best_correlation of P profiles read whole with the expected rows of one and of two
    path points (_CENTRED), given each profile's products with those rows (P, 2, m) and its own sum
    of squares (P,): the same quotients, guarded or not (where no denominator is near zero both
    are the plain quotients), for all the profiles at once."""
    out = np.empty((len(products), 2))
    for j, n in enumerate((1, 2)):
        d = np.sqrt(squares[:, None] * _CENTRED[n][1][None, :])
        out[:, j] = np.where(d > 1e-12, products[:, j] / np.maximum(d, 1e-12), 0.0).max(axis=1)
    return out


def _centred(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r = rows - rows.mean(axis=1, keepdims=True)
    return r, (r * r).sum(axis=1)


def _centred_rows(n: int, ok: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The expected profiles of n path points, slid by every shift, at the samples `ok`, less their
    means, and their sums of squares: made once for a side read whole (most sides)."""
    if ok.all():
        return _CENTRED[n]
    return _centred(_SLID[n][:, ok])


def match_turns(reading: list[SideReading], row: tuple[int | None, ...]) -> list[int]:
    """The turns s (sixths) under which the table's row agrees with every side read: side j of the
    tile lies at table-order position (j + s) mod 6."""
    options = [r.options for r in reading]  # (each side's set made once, not once per turn)
    turns = []
    for s in range(6):
        if all(row[j] in options[(j + s) % 6] for j in range(6)):
            turns.append(s)
    return turns


# Each expected profile slid by every allowed shift: (3, shifts, A).
_SLID = np.array([[_shifted(_EXPECTED[n], d) for d in SHIFTS] for n in range(3)])
# (Taken as a side read whole takes them, through the same boolean index: the copy it makes is laid
# out differently from _SLID, and numpy's sums along it add in another order.)
_CENTRED = [_centred(_SLID[n][:, np.ones(_SLID.shape[2], bool)]) for n in range(3)]
for _pair in _CENTRED:
    for _array in _pair:
        _array.setflags(write=False)  # (shared by every side read whole)
_LOCAL_WINDOW = np.ones((1, 2 * max(1, int(round(LOCAL_MAX_MM / (ALONG_MM[1] - ALONG_MM[0])))) + 1), np.uint8)
