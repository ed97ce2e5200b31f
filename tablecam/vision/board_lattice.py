"""A square board lattice (tiles laid edge to edge, the board turned by any angle) from marks on it.

The marks are points that sit at known places inside the cells: for micropul, a micropul disc
lies `site` = 0.283 of a side from its tile's centre along both axes, one per quadrant. Such
points, written in cell units, have fractional parts of +-site along each axis, so the second
harmonic of their positions (period half a cell) is coherent for the right angle and phase and
washes out for a wrong one and for clutter. That gives the angle and the phase modulo half a
cell robustly; the half-cell ambiguity is settled by which choice puts the points nearest their
sites, and a weighted least-squares fit over the inliers then gives the final pose.

Plain numpy; angles in degrees clockwise as seen from above (table y points to the near side),
as everywhere in tablecam.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

INLIER_UNITS = 0.08  # how far (cell units) a mark may lie from its site while the pose settles: 2.4 mm
TIGHT_UNITS = 0.045  # 1.35 mm: the final fit uses only marks this close to a site
COARSE_STEP_DEG = 1.0
FINE_STEP_DEG = 0.1
PEAKS_TRIED = 4
SCAN_DEG = (-6.0, -5.0, -4.0, -3.0, -2.0, 2.0, 3.0, 4.0, 5.0, 6.0)  # around each peak, tried by cost
SCAN_MARKS = 16  # ... over the strongest marks
SCAN_SEEDS = 4  # ... with the phases of the strongest few
COST_SCALE_UNITS = 0.035  # 1 mm on a 30 mm tile
PHASE_SEEDS = 12  # the strongest marks, each tried on its four sites
REFINE_ROUNDS = 6
BEND_ROUNDS = 4
BENT_GAIN = 1.2  # a bend is kept when it brings this many times the straight lattice's inliers
CLUSTER_GAP = 2  # cells: a tile whose marks were all missed does not split the board


@dataclass(frozen=True)
class Lattice:
    """Cells of side `pitch_mm`, cell (0, 0) centred on `origin_mm`, axes turned by `angle_deg`."""

    angle_deg: float
    origin_mm: tuple[float, float]
    pitch_mm: float

    @property
    def rotation(self) -> np.ndarray:
        """Lattice directions -> table directions (a column per lattice axis)."""
        a = math.radians(self.angle_deg)
        return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])

    def to_units(self, points_mm) -> np.ndarray:
        """Table mm (N, 2) -> lattice units (N, 2); cell centres at whole numbers."""
        p = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2) - self.origin_mm
        return p @ self.rotation / self.pitch_mm

    def to_mm(self, units) -> np.ndarray:
        """Lattice units (N, 2) -> table mm (N, 2)."""
        u = np.asarray(units, dtype=np.float64).reshape(-1, 2)
        return u * self.pitch_mm @ self.rotation.T + self.origin_mm

    def cell_of(self, points_mm) -> np.ndarray:
        """The (i, j) cell each point falls in, (N, 2) int."""
        return np.round(self.to_units(points_mm)).astype(int)


@dataclass(frozen=True, eq=False)
class Bend:
    """A smooth correction (mm) of a lattice's cell centres, quadratic in lattice units: what an
    uncalibrated lens does to a straight board over the table."""

    coefficients: np.ndarray  # (terms, 2)

    def at(self, units) -> np.ndarray:
        u = np.asarray(units, dtype=np.float64).reshape(-1, 2)
        return _terms(u, len(self.coefficients)) @ self.coefficients


def _terms(u: np.ndarray, count: int) -> np.ndarray:
    x, y = u[:, 0], u[:, 1]
    return np.column_stack([np.ones_like(x), x, y, x * x, x * y, y * y][:count])


def fit_bend(lattice: Lattice, points_mm, cells, signs, site: float, weights) -> Bend:
    """The quadratic (affine for few points, none for fewer) field that best moves each mark's
    site onto the mark, weighted least squares."""
    p = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
    sites = lattice.to_mm(np.asarray(cells) + np.asarray(signs) * site)
    units = np.asarray(cells, dtype=np.float64)
    count = 6 if len(p) >= 18 else 3 if len(p) >= 8 else 1 if len(p) >= 3 else 0
    if count == 0:
        return Bend(np.zeros((1, 2)))
    a = _terms(units, count) * np.sqrt(weights)[:, None]
    b = (p - sites) * np.sqrt(weights)[:, None]
    coef, *_ = np.linalg.lstsq(a, b, rcond=None)
    return Bend(coef)


@dataclass(frozen=True, eq=False)
class LatticeFit:
    lattice: Lattice
    inliers: np.ndarray  # (N,) bool: the marks that sit on a site of the board
    cells: np.ndarray  # (N, 2) int: each mark's cell
    residual_units: np.ndarray  # (N,) distance of each mark from its site, cell units
    support: float  # summed weight of the inliers
    bend: Bend  # the lattice's cells as the marks show them: lattice centre + bend.at(cell)
    # When every inlier sits on the same side of its cell along an axis (three discs in a row),
    # the marks cannot tell this lattice from the one shifted by 2 * site along that axis: those
    # lattices, for the caller to try against what the cells look like.
    alternatives: tuple[Lattice, ...] = ()


def fit_lattice(points_mm, weights, pitch_mm: float, site: float, min_marks: int = 3,
                allow_bend: bool = True) -> LatticeFit | None:
    """The lattice that puts the most weight of `points_mm` on sites (+-site, +-site) of cells.

    None when fewer than `min_marks` marks agree on any lattice (two points fit some lattice
    whatever they are). `allow_bend=False` when the table frame is known to be straight (a calibrated
    lens): a bend could then only follow the marks' own errors (a catalyst beside a ring, spots on
    a hand), moving tiles off their ink by a millimetre or two.
    """
    p = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
    w = np.asarray(weights, dtype=np.float64).reshape(-1)
    if len(p) < 2:
        return None
    centre = np.average(p, axis=0, weights=w)
    q = p - centre  # small numbers: well-conditioned phases

    coarse = np.arange(-45.0, 45.0, COARSE_STEP_DEG)
    score = _angle_scores(q, w, pitch_mm, coarse)
    best: tuple[float, Lattice] | None = None
    # Clutter can make a false peak (wood grain along the table's axes): try the strongest few.
    peaks = _peaks(coarse, score, PEAKS_TRIED)
    for angle in peaks:
        fine = angle + np.arange(-1.5 * COARSE_STEP_DEG, 1.5 * COARSE_STEP_DEG, FINE_STEP_DEG)
        angle = float(fine[int(np.argmax(_angle_scores(q, w, pitch_mm, fine)))])
        origins = _phase_candidates(p, q, w, pitch_mm, angle, centre, site)
        costs = _costs(angle, origins, p, w, pitch_mm, site)
        k = int(np.argmin(costs))
        if best is None or costs[k] < best[0]:
            best = (float(costs[k]), Lattice(angle, (float(origins[k, 0]), float(origins[k, 1])), pitch_mm))
    assert best is not None
    # The harmonic's peak can sit degrees off the board's angle (a blurred board, big tiles' rings:
    # seed 5633 peaked 5 degrees off, and a lattice 45 degrees off won on cost). The angles around
    # each peak are tried too, with every phase candidate, by the same cost over the strongest marks
    # (all at once: cheap); the best of them is then costed over all marks, as the peaks were.
    scan = (np.asarray(peaks)[:, None] + np.asarray(SCAN_DEG)[None]).ravel()
    strong = np.argsort(-w, kind="stable")[:SCAN_MARKS]
    origins = _phase_candidates_at(p, q, w, pitch_mm, scan, centre, site, SCAN_SEEDS)  # (angles, C, 2)
    costs = _costs_at(scan, origins, p[strong], w[strong], pitch_mm, site)  # (angles, C)
    a, k = np.unravel_index(int(np.argmin(costs)), costs.shape)
    cost = float(_costs(float(scan[a]), origins[a, k:k + 1], p, w, pitch_mm, site)[0])
    if cost < best[0]:
        best = (cost, Lattice(float(scan[a]), (float(origins[a, k, 0]), float(origins[a, k, 1])), pitch_mm))
    return _settle(best[1], p, w, site, min_marks, allow_bend)


def _settle(lattice: Lattice, p: np.ndarray, w: np.ndarray, site: float, min_marks: int,
            allow_bend: bool) -> LatticeFit | None:
    """A lattice refined on the marks near its sites, in canonical form, bent if allowed and useful."""
    previous = None
    # The rounds often ask the main cluster of the same marks in the same cells again (a pose that
    # moved by a hair): each answer is kept for this settling (the weights stay the same throughout).
    memo: dict = {}

    def cluster(cells_now: np.ndarray, inliers: np.ndarray) -> np.ndarray:
        key = (inliers.tobytes(), cells_now[inliers].tobytes())
        if key not in memo:
            memo[key] = _main_cluster(cells_now, w, inliers)
        return memo[key].copy()

    for k in range(REFINE_ROUNDS):  # fit to the inliers, take the inliers of the better pose, repeat
        res, cells, signs = _sites(lattice, p, site)
        # Wide at first to gather the board, then tight: a catalyst near a site must not pull the pose.
        inl = res < (INLIER_UNITS if k < 2 else TIGHT_UNITS)
        inl &= cluster(cells, inl)
        if inl.sum() < 2:
            return None
        if k > 2 and previous is not None and np.array_equal(inl, previous):
            break
        previous = inl
        lattice = _refine(p[inl], w[inl], cells[inl], signs[inl], site, lattice)
    res, cells, _ = _sites(lattice, p, site)
    inl = (res < TIGHT_UNITS) & cluster(cells, res < TIGHT_UNITS)
    if inl.sum() < 2:
        return None
    if inl.sum() < min_marks:
        return None
    canonical = _canonical(lattice, cells[inl])
    res, cells, signs = _sites(canonical, p, site)
    # A board seen through an uncalibrated wide lens is bent by millimetres: grow the bend from the
    # marks near the middle outwards, taking in the marks that sit near their site once bent. A
    # straight board (a calibrated lens) keeps no bend: fitted to noise, it would only move the
    # outer cells.
    rigid_inliers = inl
    if not allow_bend:
        return LatticeFit(canonical, inl, cells, res, float(w[inl].sum()), Bend(np.zeros((1, 2))),
                          _mirror_images(canonical, signs[inl], w[inl], site))
    bend = fit_bend(canonical, p[inl], cells[inl], signs[inl], site, w[inl])
    for _ in range(BEND_ROUNDS):
        bent = _bent_residual(canonical, bend, p, cells, signs, site)
        wide = (bent < INLIER_UNITS) & (res < 3 * INLIER_UNITS)
        wide &= cluster(cells, wide)
        if wide.sum() <= inl.sum():
            break
        inl = wide
        bend = fit_bend(canonical, p[inl], cells[inl], signs[inl], site, w[inl])
    bent = _bent_residual(canonical, bend, p, cells, signs, site)
    bent_inliers = (bent < TIGHT_UNITS) & cluster(cells, bent < TIGHT_UNITS)
    if bent_inliers.sum() >= BENT_GAIN * rigid_inliers.sum() + 1:
        inl, res = bent_inliers, bent
    else:
        bend, inl = Bend(np.zeros((1, 2))), rigid_inliers
    if inl.sum() < min_marks:
        return None
    return LatticeFit(canonical, inl, cells, res, float(w[inl].sum()), bend,
                      _mirror_images(canonical, signs[inl], w[inl], site))


FALLBACK_SHIFTS = (-1.0, 0.0, 1.0)  # of 2 * site, along each axis


def other_fits(points_mm, weights, site: float, fit: LatticeFit, count: int,
               allow_bend: bool = True) -> list[LatticeFit]:
    """Up to `count` lattices at `fit`'s angle, shifted by 2 * site along either axis or both (and
    refined), cheapest first, other than `fit`'s and its alternatives: for the caller to read when
    `fit`'s cells show no tile. With a handful of marks a speck on the table or a hand can outweigh
    faint rings: the cost then prefers the lattice that takes a row of discs for the other half of
    a row of cells (seeds 5789, 6083: three black discs in a row, two or three tiles, a hand
    beside them). Lattices at other angles are not tried: with so few marks the cost cannot tell
    them apart, and a pale table read as paper on one of them made a tile of one disc (seed 5133)."""
    p = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
    w = np.asarray(weights, dtype=np.float64).reshape(-1)
    if len(p) < 2 or count <= 0:
        return []
    known = [fit.lattice, *fit.alternatives]
    pool = []
    for du in FALLBACK_SHIFTS:
        for dv in FALLBACK_SHIFTS:
            origin = fit.lattice.to_mm(np.array([[du * 2 * site, dv * 2 * site]]))[0]
            shifted = Lattice(fit.lattice.angle_deg, (float(origin[0]), float(origin[1])), fit.lattice.pitch_mm)
            if not any(same_lattice(shifted, t) for t in known):
                pool.append((_cost(shifted, p, w, site), shifted))
    out: list[LatticeFit] = []
    for _, lattice in sorted(pool, key=lambda c: c[0]):
        if len(out) >= count:
            break
        settled = _settle(lattice, p, w, site, 2, allow_bend)
        # Refined, a candidate may fall back onto a lattice already there.
        if settled is not None and not any(same_lattice(settled.lattice, t) for t in known):
            known.append(settled.lattice)
            out.append(settled)
    return out


def fit_at_angle(points_mm, weights, pitch_mm: float, site: float, angle_deg: float,
                 allow_bend: bool = True) -> LatticeFit | None:
    """The lattice at about `angle_deg` (within a degree) that puts the most weight of the marks on
    its sites, refined as fit_lattice's: for an angle known otherwise (the tiles' outlines)."""
    p = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
    w = np.asarray(weights, dtype=np.float64).reshape(-1)
    if len(p) < 2:
        return None
    centre = np.average(p, axis=0, weights=w)
    angles = angle_deg + np.arange(-1.0, 1.01, 0.25)
    origins = _phase_candidates_at(p, p - centre, w, pitch_mm, angles, centre, site)
    costs = _costs_at(angles, origins, p, w, pitch_mm, site)
    a, k = np.unravel_index(int(np.argmin(costs)), costs.shape)
    lattice = Lattice(float(angles[a]), (float(origins[a, k, 0]), float(origins[a, k, 1])), pitch_mm)
    return _settle(lattice, p, w, site, 2, allow_bend)


def fit_on(lattice: Lattice, points_mm, weights, site: float) -> LatticeFit:
    """The marks on the sites of a lattice placed otherwise (the tiles' outlines: a few millimetres
    off at worst), and the lattice refined on them when two or more sit within INLIER_UNITS of a
    site and the refined pose stays that close; unbent. The fit always holds the lattice's cells,
    with or without marks: what the cells look like decides whether it is a board."""
    p = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
    w = np.asarray(weights, dtype=np.float64).reshape(-1)
    res, cells, signs = _sites(lattice, p, site)
    near = res < INLIER_UNITS
    if near.sum() >= 2:
        refined = _refine(p[near], w[near], cells[near], signs[near], site, lattice)
        if same_lattice(refined, lattice, 1.0, INLIER_UNITS):
            lattice = refined
            res, cells, signs = _sites(lattice, p, site)
            near = res < TIGHT_UNITS
    return LatticeFit(lattice, near, cells, res, float(w[near].sum()), Bend(np.zeros((1, 2))))


def same_lattice(a: Lattice, b: Lattice, angle_deg: float = 1.0, units: float = 0.05) -> bool:
    """The same cells: about the same angle (mod 90 degrees), origins a whole number of cells apart."""
    if abs((a.angle_deg - b.angle_deg + 45.0) % 90.0 - 45.0) > angle_deg:
        return False
    d = a.to_units(np.array([b.origin_mm]))[0]
    return bool(np.all(np.abs(d - np.round(d)) < units))


def site_residuals(lattice: Lattice, bend: Bend, points_mm, site: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each point's distance (cell units) from its nearest site of the bent lattice, its cell
    (N, 2) int and the site's signs (N, 2) +-1."""
    p = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
    _, cells, signs = _sites(lattice, p, site)
    return _bent_residual(lattice, bend, p, cells, signs, site), cells, signs


def _bent_residual(lattice: Lattice, bend: Bend, p: np.ndarray, cells: np.ndarray, signs: np.ndarray,
                   site: float) -> np.ndarray:
    """Each mark's distance (cell units) from its site on the bent lattice."""
    sites = lattice.to_mm(cells + signs * site) + bend.at(cells)
    return np.hypot(*(p - sites).T) / lattice.pitch_mm


MIRROR_MIN_SHARE = 0.2  # of the strongest inlier's weight: a mark this weak does not pin the lattice


def _mirror_images(lattice: Lattice, signs: np.ndarray, weights: np.ndarray, site: float) -> tuple[Lattice, ...]:
    # A faint mark (a speck on the table beside a lone tile, weighted down as off paper) that sits
    # on a site by chance does not tell the two lattices apart: the strong marks alone decide
    # whether both must be read (seed 5496: one tile's two black discs in a row, its rings not
    # found, a speck 45 mm away on the table; the half-shifted lattice read a tile that was not there).
    signs = signs[weights >= MIRROR_MIN_SHARE * weights.max()]
    shifts_u = [0.0] + ([float(2 * site * signs[0, 0])] if np.all(signs[:, 0] == signs[0, 0]) else [])
    shifts_v = [0.0] + ([float(2 * site * signs[0, 1])] if np.all(signs[:, 1] == signs[0, 1]) else [])
    out = []
    for du in shifts_u:
        for dv in shifts_v:
            if du or dv:
                origin = lattice.to_mm(np.array([[du, dv]]))[0]
                out.append(Lattice(lattice.angle_deg, (float(origin[0]), float(origin[1])), lattice.pitch_mm))
    return tuple(out)


def _angle_scores(q: np.ndarray, w: np.ndarray, pitch: float, angles: np.ndarray) -> np.ndarray:
    a = np.radians(angles)[:, None]
    u = (q[:, 0] * np.cos(a) + q[:, 1] * np.sin(a)) / pitch
    v = (-q[:, 0] * np.sin(a) + q[:, 1] * np.cos(a)) / pitch
    return np.abs((w * np.exp(4j * np.pi * u)).sum(axis=1)) + np.abs((w * np.exp(4j * np.pi * v)).sum(axis=1))


def _peaks(angles: np.ndarray, score: np.ndarray, count: int) -> list[float]:
    """The `count` highest local maxima of a circular (period 90 degrees) score."""
    is_peak = (score >= np.roll(score, 1)) & (score >= np.roll(score, -1))
    order = [i for i in np.argsort(-score) if is_peak[i]]
    return [float(angles[i]) for i in order[:count]]


def _phase_candidates(p, q, w, pitch, angle, centre, site) -> np.ndarray:
    """The origins (C, 2) of the lattices at `angle` worth trying: the second harmonic's phase (both
    half-cell choices per axis), and, because other marks can bias that phase (a big tile's rim),
    the phases that put one of the strongest marks exactly on each of its four possible sites.
    (Origins only: the one chosen becomes a Lattice, not all of them.)"""
    rot = Lattice(angle, (0.0, 0.0), pitch).rotation
    # From a mark to its cell's centre, for each of its four sites (the same for every mark).
    to_centre = np.array([rot @ (np.array(sign) * site * pitch) for sign in ((1, 1), (1, -1), (-1, 1), (-1, -1))])
    strongest = p[np.argsort(-w)[:PHASE_SEEDS]]
    seeded = (strongest[:, None, :] - to_centre[None]).reshape(-1, 2)
    return np.concatenate([_phase_origins(q, w, pitch, angle, centre), seeded])


def _phase_origins(q, w, pitch, angle, centre) -> np.ndarray:
    """The origins (4, 2) of the lattices at the second harmonic's phase, with each half-cell
    choice per axis (the harmonic is measured once for the four)."""
    a = math.radians(angle)
    u = (q[:, 0] * math.cos(a) + q[:, 1] * math.sin(a)) / pitch
    v = (-q[:, 0] * math.sin(a) + q[:, 1] * math.cos(a)) / pitch
    # Marks at +-site (0.283) turn 4*pi*site ~ pi + 0.4 rad: the harmonic points away from the cell centre.
    u_phase = np.angle(-(w * np.exp(4j * np.pi * u)).sum()) / (4 * np.pi)
    v_phase = np.angle(-(w * np.exp(4j * np.pi * v)).sum()) / (4 * np.pi)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    out = []
    for half_u in (0.0, 0.5):
        for half_v in (0.0, 0.5):
            out.append(centre + rot @ np.array([u_phase + half_u, v_phase + half_v]) * pitch)
    return np.array(out)


def _phase_candidates_at(p, q, w, pitch, angles, centre, site, seeds: int = PHASE_SEEDS) -> np.ndarray:
    """`_phase_candidates` at many angles at once, seeded by the `seeds` strongest marks:
    (angles, 4 + 4 * seeds, 2)."""
    a = np.radians(np.asarray(angles, dtype=np.float64))
    c, s = np.cos(a)[:, None], np.sin(a)[:, None]
    signs = np.array([(1, 1), (1, -1), (-1, 1), (-1, -1)], dtype=np.float64) * site * pitch  # (4, 2)
    to_centre = np.stack([signs[:, 0] * c - signs[:, 1] * s, signs[:, 0] * s + signs[:, 1] * c], axis=2)  # (A, 4, 2)
    strongest = p[np.argsort(-w)[:seeds]]
    seeded = (strongest[None, :, None, :] - to_centre[:, None, :, :]).reshape(len(a), -1, 2)
    return np.concatenate([_phase_origins_at(q, w, pitch, angles, centre), seeded], axis=1)


def _phase_origins_at(q, w, pitch, angles, centre) -> np.ndarray:
    """`_phase_origins` at many angles at once: (angles, 4, 2)."""
    a = np.radians(np.asarray(angles, dtype=np.float64))[:, None]
    c, s = np.cos(a), np.sin(a)
    u = (q[None, :, 0] * c + q[None, :, 1] * s) / pitch
    v = (-q[None, :, 0] * s + q[None, :, 1] * c) / pitch
    u_phase = np.angle(-(w * np.exp(4j * np.pi * u)).sum(axis=1)) / (4 * np.pi)
    v_phase = np.angle(-(w * np.exp(4j * np.pi * v)).sum(axis=1)) / (4 * np.pi)
    halves = np.array([[0.0, 0.0], [0.0, 0.5], [0.5, 0.0], [0.5, 0.5]])
    uv = np.stack([u_phase, v_phase], axis=1)[:, None, :] + halves[None]  # (angles, 4, 2) cell units
    c, s = c[:, :, None], s[:, :, None]
    x = (uv[..., 0:1] * c - uv[..., 1:2] * s) * pitch
    y = (uv[..., 0:1] * s + uv[..., 1:2] * c) * pitch
    return np.asarray(centre)[None, None, :] + np.concatenate([x, y], axis=2)


def _costs_at(angles, origins: np.ndarray, p: np.ndarray, w: np.ndarray, pitch: float, site: float) -> np.ndarray:
    """`_cost` of the lattices at `angles` (A,) with `origins` (A, C, 2): (A, C)."""
    a = np.radians(np.asarray(angles, dtype=np.float64))
    c, s = np.cos(a)[:, None, None], np.sin(a)[:, None, None]
    dx = p[None, None, :, 0] - origins[:, :, None, 0]  # (A, C, N)
    dy = p[None, None, :, 1] - origins[:, :, None, 1]
    u = (dx * c + dy * s) / pitch
    v = (-dx * s + dy * c) / pitch
    du = np.abs(np.abs(u - np.round(u)) - site)
    dv = np.abs(np.abs(v - np.round(v)) - site)
    res2 = (du * du + dv * dv) / (COST_SCALE_UNITS * COST_SCALE_UNITS)
    return (w * (1.0 - np.exp(-0.5 * res2))).sum(axis=2)


def _sites(lattice: Lattice, p: np.ndarray, site: float):
    """Each mark's distance to its nearest site, its cell and the site's signs (+-1, +-1)."""
    u = lattice.to_units(p)
    cells = np.round(u).astype(int)
    f = u - cells
    signs = np.where(f >= 0, 1, -1)
    d = np.abs(np.abs(f) - site)
    return np.hypot(d[:, 0], d[:, 1]), cells, signs


def _cost(lattice: Lattice, p: np.ndarray, w: np.ndarray, site: float) -> float:
    """Weighted robust misfit: a mark on its site costs nothing, one a millimetre or more away
    almost its full weight. Sharp on purpose: the half-cell-shifted lattice puts every mark only
    0.066 of a cell (2 mm) from a site."""
    res, _, _ = _sites(lattice, p, site)
    return float((w * (1.0 - np.exp(-0.5 * (res / COST_SCALE_UNITS) ** 2))).sum())


def _costs(angle: float, origins: np.ndarray, p: np.ndarray, w: np.ndarray, pitch: float, site: float) -> np.ndarray:
    """`_cost` of many lattices that differ only in origin, at once."""
    rot = Lattice(angle, (0.0, 0.0), pitch).rotation
    u = (p[None, :, :] - origins[:, None, :]) @ rot / pitch  # (C, N, 2)
    f = u - np.round(u)
    d = np.abs(np.abs(f) - site)
    res = np.hypot(d[..., 0], d[..., 1])
    return (w[None, :] * (1.0 - np.exp(-0.5 * (res / COST_SCALE_UNITS) ** 2))).sum(axis=1)


_REACH = [(di, dj) for di in range(-CLUSTER_GAP, CLUSTER_GAP + 1) for dj in range(-CLUSTER_GAP, CLUSTER_GAP + 1)]


def _main_cluster(cells: np.ndarray, w: np.ndarray, inliers: np.ndarray) -> np.ndarray:
    """Marks in the heaviest group of marked cells, cells at most CLUSTER_GAP apart counting as
    one group: tiles touch, clutter elsewhere on the table that happens to sit on a site does not."""
    keep = np.zeros(len(cells), bool)
    if not inliers.any():
        return keep
    weight: dict[tuple[int, int], float] = {}
    marked = [tuple(c) for c in cells[inliers].tolist()]  # plain ints: hashed faster than numpy's
    for c, wi in zip(marked, w[inliers].tolist()):
        weight[c] = weight.get(c, 0.0) + wi
    todo = set(weight)
    best: tuple[float, set] = (-1.0, set())
    while todo:
        start = todo.pop()
        group, stack = {start}, [start]
        while stack and todo:  # (once every marked cell is in a group, the rest of the stack adds none)
            ci, cj = stack.pop()
            # The cells within reach looked up, not every cell left scanned (the same group).
            near = [c for di, dj in _REACH if (c := (ci + di, cj + dj)) in todo]
            for other in near:
                todo.discard(other)
                group.add(other)
                stack.append(other)
        total = sum(weight[c] for c in group)
        if total > best[0]:
            best = (total, group)
    members = best[1]
    keep[inliers] = [c in members for c in marked]
    return keep


def _refine(p, w, cells, signs, site, lattice: Lattice) -> Lattice:
    """Weighted rigid fit (rotation + translation, side fixed) of the sites to the marks."""
    pitch = lattice.pitch_mm
    ideal = (cells + signs * site) * pitch  # in lattice mm, cell (0, 0) at the origin
    wn = w / w.sum()
    mi = (wn[:, None] * ideal).sum(axis=0)
    mp = (wn[:, None] * p).sum(axis=0)
    cov = ((ideal - mi) * wn[:, None]).T @ (p - mp)
    # The rotation R maximising sum w p.R ideal: the angle of the 2x2 cross-covariance.
    a = math.atan2(cov[0, 1] - cov[1, 0], cov[0, 0] + cov[1, 1])
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    origin = mp - rot @ mi
    return Lattice(math.degrees(a), (float(origin[0]), float(origin[1])), pitch)


def _canonical(lattice: Lattice, cells: np.ndarray) -> Lattice:
    """The same cells with the angle in [-45, 45) and cell (0, 0) in the middle of the marked cells.

    A square lattice turned by 90 degrees about a cell centre is itself: only the axes' names change.
    """
    angle = (lattice.angle_deg + 45.0) % 90.0 - 45.0
    anchor = lattice.to_mm(np.round(np.median(cells, axis=0))[None])[0]
    return Lattice(angle, (float(anchor[0]), float(anchor[1])), lattice.pitch_mm)
