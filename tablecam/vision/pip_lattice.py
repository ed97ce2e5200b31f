"""Reading a die face as a 3x3 lattice of pip places, by hypothesis and check.

Every pip of a standard die sits on one of nine places: the centre, four corners and four edge
middles of a square lattice with step `a` (about 0.27 of the die's side). Any two pips of the
same face are therefore one of four lattice steps apart: one step along an axis, the
half-diagonal (a corner to the centre), two steps along an axis, or the full diagonal. Each pip
pair thus proposes a handful of lattices (centre, axes, step); each lattice is then *checked by
sampling the image*, not by trusting the pip finder:

- the nine places: each either clearly pip-dark (or pip-bright) or clearly face, and the set of
  pip places one of the six layouts;
- the face between the places: even, at the face's level (no stray pip, no edge of a die);
- just outside the face: a different grey on enough of the perimeter (a die stands out from
  the table, and two dice touching leave a rim between them).

All hypotheses of a pyramid level are checked at once with array sampling (numpy), so the cost
stays at a few milliseconds for a table of dice.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from tablecam.vision.pips import Pip

# The nine places in lattice units, row by row: index = (j + 1) * 3 + (i + 1).
PLACES = np.array([(i, j) for j in (-1, 0, 1) for i in (-1, 0, 1)], dtype=np.float64)


def _mask(points) -> int:
    return sum(1 << ((j + 1) * 3 + (i + 1)) for i, j in points)


_CORNERS = [(-1, -1), (1, -1), (-1, 1), (1, 1)]
# One layout of each value, as lattice places (the others are its quarter turns).
LAYOUT_PLACES = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)], 4: _CORNERS,
                 5: _CORNERS + [(0, 0)], 6: _CORNERS + [(-1, 0), (1, 0)]}
LAYOUT_VALUE = np.zeros(512, dtype=np.int8)  # 9-bit mask of pip places -> value (0: no layout)
for _v, _sets in {
    1: [[(0, 0)]],
    2: [[(-1, -1), (1, 1)], [(1, -1), (-1, 1)]],
    3: [[(-1, -1), (0, 0), (1, 1)], [(1, -1), (0, 0), (-1, 1)]],
    4: [_CORNERS],
    5: [_CORNERS + [(0, 0)]],
    6: [_CORNERS + [(-1, 0), (1, 0)], _CORNERS + [(0, -1), (0, 1)]],
}.items():
    for _s in _sets:
        LAYOUT_VALUE[_mask(_s)] = _v

# The same layouts seen on a lattice turned by 45 degrees and 1.41 times too big: the pips then
# sit on the edge middles. Such a lattice keeps its face samples off a pip-ringed face's rim, so
# it is often the one that passes; it is read as the layout it stands for.
TURNED_VALUE = np.zeros(512, dtype=np.int8)
for _v, _sets in {
    2: [[(-1, 0), (1, 0)], [(0, -1), (0, 1)]],
    3: [[(-1, 0), (0, 0), (1, 0)], [(0, -1), (0, 0), (0, 1)]],
    4: [[(-1, 0), (1, 0), (0, -1), (0, 1)]],
    5: [[(-1, 0), (1, 0), (0, -1), (0, 1), (0, 0)]],
}.items():
    for _s in _sets:
        TURNED_VALUE[_mask(_s)] = _v

# Where the face is sampled for evenness: between the pip places (0.71 steps from the nearest
# in the middle, 0.58 at the rim: pips of small dice come close to the rounded edge). The first
# four are the middle of the face, which every die has flat.
_FACE = np.array([(x, y) for x in (-0.5, 0.5) for y in (-0.5, 0.5)]
                 + [(s * 1.3, t) for s in (-1, 1) for t in (-0.5, 0.5)]
                 + [(t, s * 1.3) for s in (-1, 1) for t in (-0.5, 0.5)], dtype=np.float64)
# For each place, the face samples around it (weights, rows sum to 1).
_AROUND = np.array([[1.0 if np.hypot(*(f - p)) < 0.75 else 0.0 for f in _FACE] for p in PLACES])
_AROUND /= _AROUND.sum(axis=1, keepdims=True)
# Just outside the face (its edge is at about 1.85 steps from the centre).
_OUT = np.array([(s * 2.5, t) for s in (-1, 1) for t in (-1.2, 0.0, 1.2)]
                + [(t, s * 2.5) for s in (-1, 1) for t in (-1.2, 0.0, 1.2)], dtype=np.float64)
# Around a pip place, just outside the pip, in pip radii.
_HALO = np.array([(1.9 * np.cos(t), 1.9 * np.sin(t)) for t in np.linspace(0, 2 * np.pi, 8, endpoint=False)])
# The centre and the four edge middles (one step from the centre: on the flat top of any die).
_INNER = [1, 3, 4, 5, 7]
# Sub-samples of a pip place, in pip radii.
_SUB = np.array([(0, 0), (0.45, 0), (-0.45, 0), (0, 0.45), (0, -0.45)], dtype=np.float64)

# Relations between two pips of one face: (di, dj) from the first to the second, in lattice
# units, and the lattice places the first pip may hold for the second to stay on the face.
_RELATIONS = [
    ((1, 0), [(i, j) for i in (-1, 0) for j in (-1, 0, 1)]),
    ((1, 1), [(i, j) for i in (-1, 0) for j in (-1, 0)]),
    ((2, 0), [(-1, j) for j in (-1, 0, 1)]),
    ((2, 2), [(-1, -1)]),
]

# Step over pip radius a standard die allows (big pips on a 6: 1.6; small pips: 6).
STEP_PER_RADIUS = (1.6, 6.5)
# How sure a place must be: pipness (0 = face level, 1 = the die's pip level) at most 1 - SURE
# or at least SURE, for the die to be given a value.
SURE = 0.62


@dataclass(frozen=True)
class Lattices:
    """H lattice hypotheses as arrays: centre, the two axis steps u and v (level px), and the
    face grey level, pip contrast and pip radius they were proposed with."""

    centre: np.ndarray  # (H, 2)
    u: np.ndarray  # (H, 2)
    v: np.ndarray  # (H, 2)
    face: np.ndarray  # (H,)
    contrast: np.ndarray  # (H,)
    radius: np.ndarray  # (H,)

    def __len__(self) -> int:
        return len(self.centre)

    def take(self, index) -> "Lattices":
        return Lattices(self.centre[index], self.u[index], self.v[index], self.face[index],
                        self.contrast[index], self.radius[index])

    @staticmethod
    def empty() -> "Lattices":
        z2, z1 = np.zeros((0, 2)), np.zeros(0)
        return Lattices(z2, z2, z2, z1, z1, z1)

    @staticmethod
    def join(parts: list["Lattices"]) -> "Lattices":
        parts = [p for p in parts if len(p)]
        if not parts:
            return Lattices.empty()
        return Lattices(*(np.concatenate([getattr(p, f) for p in parts])
                          for f in ("centre", "u", "v", "face", "contrast", "radius")))


@dataclass(frozen=True)
class Reading:
    """A checked lattice: a die face at `centre` (level px) with axes u, v (one step each)."""

    centre: tuple[float, float]
    u: tuple[float, float]
    v: tuple[float, float]
    value: int | None
    pips: int  # places read as pips
    margin: float  # 0..1: how far the least clear place is from the pip/face cut
    ring: float  # share of the outside samples that differ from the face
    spread: float = 0.0  # spread of the face samples (20th to 80th percentile) over the pip contrast
    shade: float = 0.0  # how much more pip-like the face is near the places than at its rim (share of contrast)
    inner_margin: float = 0.0  # the margin over the centre and the four edge-middle places only

    @property
    def step(self) -> float:
        return float(math.hypot(*self.u) + math.hypot(*self.v)) / 2


def pair_hypotheses(pips: list[Pip]) -> Lattices:
    """Square lattices proposed by every plausible pip pair."""
    n = len(pips)
    empty = Lattices.empty()
    if n < 2:
        return empty
    xy = np.array([(p.x, p.y) for p in pips])
    r = np.array([p.radius for p in pips])
    k = np.array([p.contrast for p in pips])
    f = np.array([p.face for p in pips])
    i, j = np.triu_indices(n, 1)
    d = xy[j] - xy[i]
    L = np.hypot(d[:, 0], d[:, 1])
    rr = np.maximum(r[i], r[j])
    ok = (np.maximum(r[i], r[j]) <= 1.7 * np.minimum(r[i], r[j])) \
        & (np.maximum(k[i], k[j]) <= 2.5 * np.minimum(k[i], k[j])) \
        & (np.abs(f[i] - f[j]) <= 0.4 * np.minimum(k[i], k[j]) + 6) \
        & (L <= 2 * math.sqrt(2) * STEP_PER_RADIUS[1] * rr) & (L >= STEP_PER_RADIUS[0] * rr)
    i, j, d, L = i[ok], j[ok], d[ok], L[ok]
    if i.size == 0:
        return empty
    centres, axes, others, faces, contrasts, radii = [], [], [], [], [], []
    radius = (r[i] + r[j]) / 2
    for (di, dj), places in _RELATIONS:
        norm = math.hypot(di, dj)
        step = L / norm
        good = (step >= STEP_PER_RADIUS[0] * radius) & (step <= STEP_PER_RADIUS[1] * radius)
        if not good.any():
            continue
        # u is d rotated back by the relation's angle, scaled to one step
        ang = math.atan2(dj, di)
        c, s = math.cos(-ang), math.sin(-ang)
        u = np.column_stack([c * d[:, 0] - s * d[:, 1], s * d[:, 0] + c * d[:, 1]]) / norm
        v = np.column_stack([-u[:, 1], u[:, 0]])
        for pi, pj in places:
            centre = xy[i] - pi * u - pj * v
            centres.append(centre[good])
            axes.append(u[good])
            others.append(v[good])
            faces.append(((f[i] + f[j]) / 2)[good])
            contrasts.append(np.minimum(k[i], k[j])[good])
            radii.append(radius[good])
    if not centres:
        return empty
    return Lattices(np.concatenate(centres), np.concatenate(axes), np.concatenate(others),
                    np.concatenate(faces), np.concatenate(contrasts), np.concatenate(radii))


def refine(hyp: Lattices, pips: list[Pip], shape: tuple[int, int]) -> Lattices:
    """Lattices re-fitted (affine: any two axes) to the pips found on their places.

    A die seen at a slant, or in a photo squeezed by its publisher, has a lattice that is not
    square; a square hypothesis still lands near enough to its pips to say which is which, and
    three or more of them then give the true lattice."""
    if len(hyp) == 0 or len(pips) < 3:
        return Lattices.empty()
    found = pips_on_places(hyp, pips, shape)
    enough = np.flatnonzero((found >= 0).sum(axis=1) >= 3)
    if enough.size == 0:
        return Lattices.empty()
    # the same pips on the same places make the same fit
    _, first = np.unique(found[enough], axis=0, return_index=True)
    rows = enough[first]
    pip_xy = np.array([(p.x, p.y) for p in pips])
    on = found[rows] >= 0
    codes = (on * (1 << np.arange(9))).sum(axis=1)
    keep_q, cs, us, vs = [], [], [], []
    for code in np.unique(codes):  # one least-squares solve per set of places, for all its rows
        fit = _affine_fit(int(code))
        if fit is None:
            continue  # all in one line: no second axis to fit
        sel = rows[codes == code]
        xy = pip_xy[found[sel][:, on[codes == code][0]]]  # (n, m, 2)
        coef = np.einsum("km,nmd->nkd", fit, xy)  # (n, 3, 2): centre, u, v
        keep_q.append(sel)
        cs.append(coef[:, 0])
        us.append(coef[:, 1])
        vs.append(coef[:, 2])
    if not keep_q:
        return Lattices.empty()
    q = np.concatenate(keep_q)
    c, u, v = np.concatenate(cs), np.concatenate(us), np.concatenate(vs)
    nu, nv = np.hypot(u[:, 0], u[:, 1]), np.hypot(v[:, 0], v[:, 1])
    # nearly square, even for a slanted view
    ok = (np.minimum(nu, nv) > 1e-3) & (np.maximum(nu, nv) <= 1.6 * np.minimum(nu, nv)) \
        & (np.abs((u * v).sum(axis=1)) <= 0.5 * nu * nv)
    base = hyp.take(q[ok])
    return Lattices(c[ok], u[ok], v[ok], base.face, base.contrast, base.radius)


def pips_on_places(hyp: Lattices, pips: list[Pip], shape: tuple[int, int]) -> np.ndarray:
    """(H, 9): which pip (index in `pips`) covers each lattice place (the nearest pixel, clamped
    to the image of `shape`), or -1; a pip covers a disc of 1.2 radii, a later pip drawn over an
    earlier one. The discs are drawn on the box round them only, not on an image-sized map."""
    h, w = shape
    X = hyp.centre[:, None, 0] + PLACES[None, :, 0] * hyp.u[:, None, 0] + PLACES[None, :, 1] * hyp.v[:, None, 0]
    Y = hyp.centre[:, None, 1] + PLACES[None, :, 0] * hyp.u[:, None, 1] + PLACES[None, :, 1] * hyp.v[:, None, 1]
    xi = np.clip(np.rint(X).astype(np.intp), 0, w - 1)
    yi = np.clip(np.rint(Y).astype(np.intp), 0, h - 1)
    if not pips:
        return np.full(xi.shape, -1, np.int32)
    discs = [(int(round(p.x)), int(round(p.y)), max(1, int(round(p.radius * 1.2)))) for p in pips]
    bx0 = max(0, min(x - r for x, _y, r in discs) - 1)
    by0 = max(0, min(y - r for _x, y, r in discs) - 1)
    bx1 = max(bx0 + 1, min(w, max(x + r for x, _y, r in discs) + 2))
    by1 = max(by0 + 1, min(h, max(y + r for _x, y, r in discs) + 2))
    owner = np.full((by1 - by0, bx1 - bx0), -1, np.int32)
    for k, (x, y, r) in enumerate(discs):
        cv2.circle(owner, (x - bx0, y - by0), r, k, -1)
    inside = (xi >= bx0) & (xi < bx1) & (yi >= by0) & (yi < by1)
    return np.where(inside, owner[np.clip(yi - by0, 0, by1 - by0 - 1), np.clip(xi - bx0, 0, bx1 - bx0 - 1)], -1)


@functools.lru_cache(maxsize=512)
def _affine_fit(code: int) -> np.ndarray | None:
    """The least-squares fit (pseudo-inverse) of a lattice's centre and axes to pips on the set
    of places `code` (bit k: place k), or None when they lie in one line. There are 512 sets:
    each is worked out once."""
    places = PLACES[[(code >> k) & 1 == 1 for k in range(9)]]
    A = np.column_stack([np.ones(len(places)), places])
    if np.linalg.matrix_rank(A) < 3:
        return None
    fit = np.linalg.pinv(A)
    fit.flags.writeable = False  # shared by every call
    return fit


# The checks of `check`, in the order a hypothesis meets them; `rejections` names the first one
# each hypothesis fails (for the real-photo bench's account of dice that were missed).
CHECKS = ("in_image", "face_in_image", "even_middle", "even_rim", "spotty", "edge", "no_pip",
          "foreign_pip", "turned_small")


def check(grey: np.ndarray, dark: bool, hyp: Lattices, pips: list[Pip], rim: bool = True) -> list[Reading]:
    """Samples every hypothesis; returns those whose face looks like a die's (value may be None
    when the places are not all clear). `pips` are all pips of this polarity: one lying on the
    face but off the places it reads as pips means the lattice is only part of a die. `rim`:
    also require the face's rim, between the outer pips, to be even; small dice with a broad
    rounded edge (pips reaching into it) are read with `rim=False` when their size is known."""
    if len(hyp) == 0:
        return []
    m = _measure(grey, dark, hyp, rim)
    keep = np.flatnonzero(m["in_image"] & m["face_in_image"] & m["even_middle"] & m["even_rim"] & m["spotty"]
                          & m["edge"] & m["no_pip"])
    if keep.size and pips:
        keep = keep[_no_foreign_pips(hyp.centre[keep], hyp.u[keep], hyp.v[keep], m["present"][keep], pips)]
    return [r for r in (_reading(m, hyp, q) for q in keep) if r is not None]


def rejections(grey: np.ndarray, dark: bool, hyp: Lattices, pips: list[Pip], rim: bool = True) -> list[str]:
    """For each hypothesis, the first of `CHECKS` it fails, or "" when `check` keeps it."""
    if len(hyp) == 0:
        return []
    m = _measure(grey, dark, hyp, rim)
    m["foreign_pip"] = _no_foreign_pips(hyp.centre, hyp.u, hyp.v, m["present"], pips) if pips \
        else np.ones(len(hyp), bool)
    out = []
    for q in range(len(hyp)):
        failed = next((name for name in CHECKS[:-1] if not m[name][q]), "")
        out.append(failed or ("" if _reading(m, hyp, q) is not None else "turned_small"))
    return out


def _measure(grey: np.ndarray, dark: bool, hyp: Lattices, rim: bool) -> dict:
    """Every hypothesis sampled at once: the pass/fail arrays of `CHECKS` (but the foreign pips)
    and what a reading is made of."""
    centres, u, v, contrast, radius = hyp.centre, hyp.u, hyp.v, hyp.contrast, hyp.radius
    h, w = grey.shape
    sign = 1.0 if dark else -1.0
    k = np.maximum(contrast, 1.0)

    def at(points: np.ndarray, sub: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        # points (P,2) in lattice units -> grey levels (H,P) and an "inside the image" mask
        X = centres[:, None, 0] + points[None, :, 0] * u[:, None, 0] + points[None, :, 1] * v[:, None, 0]
        Y = centres[:, None, 1] + points[None, :, 0] * u[:, None, 1] + points[None, :, 1] * v[:, None, 1]
        if sub is not None:  # sub-samples around each point, in pip radii
            X = (X[:, :, None] + radius[:, None, None] * sub[None, None, :, 0]).reshape(len(X), -1)
            Y = (Y[:, :, None] + radius[:, None, None] * sub[None, None, :, 1]).reshape(len(Y), -1)
        inside = (X >= 0) & (X <= w - 1) & (Y >= 0) & (Y <= h - 1)
        xi = np.clip(np.rint(X).astype(np.intp), 0, w - 1)
        yi = np.clip(np.rint(Y).astype(np.intp), 0, h - 1)
        return grey[yi, xi].astype(np.float64), inside

    places, inside = at(PLACES, _SUB)
    places = places.reshape(len(centres), 9, len(_SUB)).mean(axis=2)
    in_image = inside.all(axis=1)
    face_vals, face_in = at(_FACE)
    # Each place against the face right around it (light falls unevenly across a die), and
    # against the die's own pip contrast (pips of one die are alike; dice differ).
    depth = sign * (face_vals @ _AROUND.T - places)
    first = depth > 0.5 * depth.max(axis=1, keepdims=True)
    own = (depth * first).sum(axis=1) / np.maximum(first.sum(axis=1), 1)
    pipness = depth / np.maximum(own, 1.0)[:, None]
    present = pipness > 0.5
    # A pip is a spot: just around it the face shows again. A place on a dark table beside a
    # white die (a lattice too big for its die) is dark all around.
    around, _ = at(PLACES, _HALO)
    halo = sign * (face_vals @ _AROUND.T)[:, :, None] - sign * around.reshape(len(centres), 9, len(_HALO))
    halo = halo.mean(axis=2) / np.maximum(own, 1.0)[:, None]
    spotty = ~np.any(present & (halo >= 0.45), axis=1)
    mask = (present * (1 << np.arange(9))).sum(axis=1)
    value = LAYOUT_VALUE[mask]
    turned = (value == 0) & (TURNED_VALUE[mask] > 0)
    value = np.where(turned, TURNED_VALUE[mask], value)
    margin = np.clip(np.min(np.abs(pipness - 0.5), axis=1) * 2, 0, 1)
    inner_margin = np.clip(np.min(np.abs(pipness[:, _INNER] - 0.5), axis=1) * 2, 0, 1)
    # the face's order statistics, taken once (np.median and np.percentile's own numbers)
    middle = np.sort(face_vals[:, :4], axis=1)
    level = (middle[:, 1] + middle[:, 2]) / 2
    face_pip = sign * (level[:, None] - face_vals) / np.maximum(own, 1.0)[:, None]
    # no pip between the places: the middle must be clean; the rim may be shaded by the edge
    even_middle = (own >= 0.5 * k) & (face_pip[:, :4].max(axis=1) < 0.45)
    lo, hi = _percentiles_20_80(face_vals)
    spread = (hi - lo) / np.maximum(own, 1.0)
    rim_sorted = np.sort(face_vals[:, 4:], axis=1)
    shade = sign * ((rim_sorted[:, 3] + rim_sorted[:, 4]) / 2 - level) / np.maximum(own, 1.0)
    even_rim = (face_pip[:, 4:].max(axis=1) < 0.65) & (spread <= 0.6) if rim else np.ones(len(centres), bool)
    out_vals, out_in = at(_OUT)
    differs = (np.abs(out_vals - level[:, None]) > np.maximum(0.12 * own, 12.0)[:, None]) | ~out_in
    ring = differs.mean(axis=1)

    # A die stands out from the table on part of its outline at least; the more pips make its
    # layout, the less of that is needed (a white die on white paper shows little edge, but
    # four spots in a square on an even face are no accident; two spots may be).
    count = present.sum(axis=1)
    layout = value > 0
    edge = ring >= np.where(layout & (count >= 4), 0.1, np.where(layout & (count == 3), 0.25, 0.4))
    return {"in_image": in_image, "face_in_image": face_in.all(axis=1), "even_middle": even_middle,
            "even_rim": even_rim, "spotty": spotty, "edge": edge, "no_pip": count >= 1, "present": present,
            "value": value, "turned": turned, "margin": margin, "inner_margin": inner_margin, "ring": ring,
            "spread": spread, "shade": shade}


def _percentiles_20_80(vals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """np.percentile(vals, (20, 80), axis=1) for rows of 12 samples, the same numbers without
    its general machinery: numpy's linear method between two order statistics (2 and 3, 8 and
    9), with its own fractions and formula."""
    assert vals.shape[1] == len(_FACE) == 12
    part = np.partition(vals, (2, 3, 8, 9), axis=1)
    out = []
    for q, k in ((20, 2), (80, 8)):
        t = (vals.shape[1] - 1) * (q / 100) - k  # numpy: (n - 1) * q / 100, less its floor
        a, b = part[:, k], part[:, k + 1]
        out.append(b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t)
    return out[0], out[1]


def _reading(m: dict, hyp: Lattices, q: int) -> Reading | None:
    """Hypothesis q as a reading (None: read as its turned layout, too small for its pips)."""
    u, v = hyp.u[q], hyp.v[q]
    turned = m["turned"][q]
    val = int(m["value"][q]) if m["value"][q] > 0 and m["margin"][q] >= 2 * (SURE - 0.5) else None
    uq, vq = (u, v) if not turned else ((u - v) / 2, (u + v) / 2)
    if turned and (math.hypot(*uq) + math.hypot(*vq)) / 2 < STEP_PER_RADIUS[0] * hyp.radius[q]:
        return None  # read as its turned layout, the die would be too small for its pips
    c = hyp.centre[q]
    return Reading((float(c[0]), float(c[1])), (float(uq[0]), float(uq[1])), (float(vq[0]), float(vq[1])), val,
                   int(m["present"][q].sum()), float(m["margin"][q]), float(m["ring"][q]), float(m["spread"][q]),
                   float(m["shade"][q]), float(m["inner_margin"][q]))


def _no_foreign_pips(centres: np.ndarray, u: np.ndarray, v: np.ndarray, present: np.ndarray,
                     pips: list[Pip]) -> np.ndarray:
    """For each lattice: every pip on its face sits on one of its pip places. "On its face":
    within 2.2 steps of the centre (the face's edge is at about 1.85): a lattice that is only
    part of a die has that die's other pips there, while a neighbouring die's pips, even of a
    die touching it, lie further out (its nearest pips are about 2.7 steps away)."""
    xy = np.array([(p.x, p.y) for p in pips])
    ok = np.ones(len(centres), bool)
    det = u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0]
    safe = np.where(np.abs(det) < 1e-9, 1e-9, det)
    chunk = max(1, 200_000 // max(len(xy), 1))  # bounds the (lattices x pips x places) arrays
    for lo in range(0, len(centres), chunk):
        sl = slice(lo, lo + chunk)
        rel = xy[None, :, :] - centres[sl, None, :]  # (Q, P, 2)
        # lattice coordinates of every pip: the inverse of [u v] applied to rel
        a = (v[sl, None, 1] * rel[:, :, 0] - v[sl, None, 0] * rel[:, :, 1]) / safe[sl, None]
        b = (-u[sl, None, 1] * rel[:, :, 0] + u[sl, None, 0] * rel[:, :, 1]) / safe[sl, None]
        on_face = np.maximum(np.abs(a), np.abs(b)) <= 2.2
        d = np.hypot(a[:, :, None] - PLACES[None, None, :, 0], b[:, :, None] - PLACES[None, None, :, 1])
        d = np.where(present[sl, None, :], d, np.inf).min(axis=2)  # to the nearest pip place
        ok[sl] = ~np.any(on_face & (d > 0.45), axis=1)
    return ok


def choose(readings: list[Reading]) -> list[Reading]:
    """One reading per die: the surest first (a value, then most pips, then the clearest), and no
    die that overlaps one already kept."""
    order = sorted(readings, key=lambda r: (r.value is not None, r.pips, r.margin, r.ring), reverse=True)
    kept: list[Reading] = []
    for r in order:
        if any(math.dist(r.centre, k.centre) < 1.6 * max(r.step, k.step) for k in kept):
            continue
        kept.append(r)
    return kept
