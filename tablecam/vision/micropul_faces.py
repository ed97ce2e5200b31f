"""Reading a micropul tile's face from its darkness patch: templates of the printed marks, and the
most likely face of the 48-tile set.

The marks' places and sizes are those measured on the official sheet (games/micropul.md), in
tile units (side 1, origin at the tile's centre, x right, y towards the table's near side).
Each quadrant is compared with the mark each symbol prints there, drawn at the patch's scale and
blurred by a few amounts (the camera's focus and resolution vary over the table). A face is four
quadrant symbols, or a big micropul: its score is the squared error of the four quadrants against
the face's templates with one ink gain for the whole tile (glare washes ink out, a dim corner
makes it weaker). Only faces of real tiles are candidates, so a misread quadrant must also turn
the tile into another real tile, and the margin to the best other face says how sure the read is.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import cv2
import numpy as np

from tablecam.rules.micropul.tiles import ROTATIONS, Face, all_tiles, big_face

QUADRANTS = ("ul", "ur", "ll", "lr")  # the order of every per-quadrant axis below
QUADRANT_SIGNS = {"ul": (-1, -1), "ur": (1, -1), "ll": (-1, 1), "lr": (1, 1)}
SYMBOLS = ("W", "B", "1", "2", "+", ".")
BIG_FACES = (("W", "+"), ("W", "1"), ("B", "+"), ("B", "1"))
# Quadrant templates: the six symbols, then each big face's share of the quadrant.
TEMPLATE_NAMES = SYMBOLS + tuple(f"big{c}{k}" for c, k in BIG_FACES)

# Geometry from games/micropul.md, tile side = 1.
MICROPUL_AT = 0.5 - 0.217
MICROPUL_R = 0.145
RING_WIDTH = 0.034
DOT_R = 0.045
ONE_DOT_AT = 0.5 - 0.13
TWO_DOTS_LL = ((-0.5 + 0.12, 0.5 - 0.22), (-0.5 + 0.24, 0.5 - 0.13))  # the sheet's pair, lower-left quadrant
PLUS_AT = 0.5 - 0.18
PLUS_ARM = 0.09  # half the length of a bar
PLUS_BAR = 0.05  # width of a bar
BIG_R = 0.38
BIG_RING = 0.035

BLUR_MM = (0.4, 0.7, 1.0, 1.4, 1.9)  # the spread of a point of ink in the patch, Gaussian sigma
SUPERSAMPLE = 8


@dataclass(frozen=True, eq=False)
class FaceModel:
    """Templates for one patch size, and every face of the tile set in quadrant-template indices."""

    side_px: int  # a tile is side_px x side_px pixels in the patch
    templates: np.ndarray  # (blur, quadrant, template, pixels of that quadrant) float32
    norms: np.ndarray  # (blur, quadrant, template): squared norms
    faces: tuple[Face, ...]
    face_templates: np.ndarray  # (face, quadrant) -> template index
    face_tiles: tuple[frozenset[int], ...]  # tile indices showing each face

    @property
    def quadrant_px(self) -> int:
        return self.side_px // 2

    @cached_property
    def by_quadrant(self) -> np.ndarray:
        """(quadrant, blur * template, pixels): each quadrant's templates of every blur, one matrix
        (contiguous: made once, not per read)."""
        n_blur, n_q, n_t, n_p = self.templates.shape
        return np.ascontiguousarray(self.templates.transpose(1, 0, 2, 3)).reshape(n_q, n_blur * n_t, n_p)

    @cached_property
    def face_gather(self) -> np.ndarray:
        """(quadrant, blur, face): where each face's template of each quadrant at each blur lies in a
        patch's (quadrant, blur, template) products, flattened (one take gathers all of them)."""
        n_blur, n_q, n_t, _ = self.templates.shape
        q = np.arange(n_q)[:, None, None]
        b = np.arange(n_blur)[None, :, None]
        return q * n_blur * n_t + b * n_t + self.face_templates.T[:, None, :]

    @cached_property
    def face_differences(self) -> np.ndarray:
        """(face, face) uint8: the quadrants (bits, QUADRANTS order) where two faces' templates differ."""
        neq = self.face_templates[:, None, :] != self.face_templates[None, :, :]
        return (neq.astype(np.uint8) << np.arange(4, dtype=np.uint8)).sum(axis=2).astype(np.uint8)

    @cached_property
    def squares_by_quadrant(self) -> np.ndarray:
        """`by_quadrant` squared, per pixel (the weighted norms of read_faces)."""
        return self.by_quadrant * self.by_quadrant


@lru_cache(maxsize=4)
def face_model(side_px: int) -> FaceModel:
    """The model for tiles of `side_px` pixels (even)."""
    if side_px % 2:
        raise ValueError("the tile side in pixels must be even")
    ink = {name: _draw(name, side_px) for name in TEMPLATE_NAMES}
    half = side_px // 2
    blocks = []
    for blur in BLUR_MM:
        per_q = []
        for q in QUADRANTS:
            ys, xs = _quadrant_slice(q, half)
            row = []
            for name in TEMPLATE_NAMES:
                t = _blurred(ink[name][q], blur * side_px / 30.0)
                row.append(t[ys, xs].ravel())
            per_q.append(row)
        blocks.append(per_q)
    templates = np.asarray(blocks, dtype=np.float32)
    norms = np.einsum("bqtp,bqtp->bqt", templates, templates)
    faces, tiles = _all_faces()
    index = {name: i for i, name in enumerate(TEMPLATE_NAMES)}
    face_templates = np.array([[index[_template_of(f, q)] for q in QUADRANTS] for f in faces], dtype=np.int64)
    return FaceModel(side_px, templates, norms, faces, face_templates, tiles)


def _template_of(face: Face, quadrant: str) -> str:
    if face.big:
        return f"big{face.big}{face.catalyst}"
    return face.quadrant(quadrant)


def _all_faces() -> tuple[tuple[Face, ...], tuple[frozenset[int], ...]]:
    seen: dict[Face, set[int]] = {}
    for tile in all_tiles():
        for rot in ROTATIONS:
            seen.setdefault(tile.face.rotated(rot), set()).add(tile.index)
    faces = tuple(seen)
    return faces, tuple(frozenset(seen[f]) for f in faces)


def _quadrant_slice(q: str, half: int) -> tuple[slice, slice]:
    sx, sy = QUADRANT_SIGNS[q]
    xs = slice(0, half) if sx < 0 else slice(half, 2 * half)
    ys = slice(0, half) if sy < 0 else slice(half, 2 * half)
    return ys, xs


def quadrants(patches: np.ndarray, half: int) -> np.ndarray:
    """(N, 4, half * half, ...), QUADRANTS order, each quadrant's pixels row by row: the quadrants of
    patches (N, >= 2 half, same, ...) cut at once (one copy, not four and a stack: the same numbers)."""
    n, rest = len(patches), patches.shape[3:]
    whole = patches[:, :2 * half, :2 * half]
    moved = whole.reshape((n, 2, half, 2, half) + rest).transpose((0, 1, 3, 2, 4) + tuple(range(5, 5 + len(rest))))
    return moved.reshape((n, 4, half * half) + rest)


def _blurred(img: np.ndarray, sigma_px: float) -> np.ndarray:
    return cv2.GaussianBlur(img, (0, 0), sigma_px, borderType=cv2.BORDER_REPLICATE)


def _draw(name: str, side_px: int) -> dict[str, np.ndarray]:
    """Ink coverage (0..1) of template `name` for each quadrant, whole-tile images of side_px."""
    n = side_px * SUPERSAMPLE
    out = {}
    for q, (sx, sy) in QUADRANT_SIGNS.items():
        canvas = np.zeros((n, n), np.float32)
        pen = _Pen(canvas, n)
        if name == "W" or name == "B":
            c = (sx * MICROPUL_AT, sy * MICROPUL_AT)
            pen.disc(c, MICROPUL_R, 1.0)
            if name == "W":
                pen.disc(c, MICROPUL_R - RING_WIDTH, 0.0)
        elif name == "1":
            pen.disc((sx * ONE_DOT_AT, sy * ONE_DOT_AT), DOT_R, 1.0)
        elif name == "2":
            turns = {"ll": 0, "ul": 1, "ur": 2, "lr": 3}[q]  # the sheet's pair, turned with the quadrant
            for p in TWO_DOTS_LL:
                x, y = p
                for _ in range(turns):
                    x, y = -y, x
                pen.disc((x, y), DOT_R, 1.0)
        elif name == "+":
            pen.plus((sx * PLUS_AT, sy * PLUS_AT), 1.0)
        elif name.startswith("big"):
            colour, catalyst = name[3], name[4]
            pen.disc((0.0, 0.0), BIG_R, 1.0)
            mark = 1.0
            if colour == "W":
                pen.disc((0.0, 0.0), BIG_R - BIG_RING, 0.0)
            else:
                mark = 0.0
            if catalyst == "+":
                pen.plus((0.0, 0.0), mark)
            else:
                pen.disc((0.0, 0.0), DOT_R, mark)
        out[q] = cv2.resize(canvas, (side_px, side_px), interpolation=cv2.INTER_AREA)
    return out


class _Pen:
    def __init__(self, canvas: np.ndarray, n: int) -> None:
        self.canvas, self.n = canvas, n

    def _px(self, v: float) -> float:
        return (v + 0.5) * self.n - 0.5

    def disc(self, c, r: float, value: float) -> None:
        shift = 4
        centre = (int(round(self._px(c[0]) * 16)), int(round(self._px(c[1]) * 16)))
        cv2.circle(self.canvas, centre, int(round(r * self.n * 16)), value, -1, cv2.LINE_8, shift)

    def plus(self, c, value: float) -> None:
        a, w = PLUS_ARM, PLUS_BAR / 2
        for (x0, y0, x1, y1) in ((c[0] - a, c[1] - w, c[0] + a, c[1] + w), (c[0] - w, c[1] - a, c[0] + w, c[1] + a)):
            pts = np.array([[self._px(x0), self._px(y0)], [self._px(x1), self._px(y0)],
                            [self._px(x1), self._px(y1)], [self._px(x0), self._px(y1)]])
            cv2.fillPoly(self.canvas, [np.round(pts * 16).astype(np.int32)], value, cv2.LINE_8, 4)


# --- scoring ----------------------------------------------------------------------------------------
GAIN_RANGE = (0.55, 1.15)  # ink darkness relative to a black print: glare and dim light lower it


@dataclass(frozen=True, eq=False)
class FaceReading:
    """The best face for one tile patch and how much better it is than the runner-up."""

    face: Face | None
    face_index: int
    tiles: frozenset[int]
    blur_mm: float
    gain: float
    error: float  # squared error of the best face over the visible quadrants (darkness units)
    margin: float  # runner-up's error minus the best's
    noise: float  # per-pixel variance of the best face's residual
    quadrant_error: tuple[float, float, float, float]  # per-pixel squared error of each quadrant
    runner_up: Face | None
    face_errors: np.ndarray  # (faces,) the error of every face of the set at the chosen blur
    visible: tuple[bool, bool, bool, bool] = (True, True, True, True)  # the quadrants that were read

    def close_faces(self, within: float) -> list[int]:
        """Faces whose error is within `within` of the best one's (the best included)."""
        return [int(i) for i in np.nonzero(self.face_errors <= self.error + within)[0]]


def read_faces(model: FaceModel, patches: np.ndarray, visible: np.ndarray, max_blur: int | None = None,
               weights: np.ndarray | None = None) -> list[FaceReading]:
    """The most likely face of each darkness patch.

    patches: (N, side_px, side_px) float32 darkness, tile-aligned; visible: (N, 4) bool per quadrant
    (False where a stone lies: that quadrant does not count); max_blur: the widest blur (an index
    into BLUR_MM) to consider, e.g. what the rest of the photo shows; weights: (N, side_px, side_px)
    per-pixel weights in [0, 1], or None for all ones (0 where a stone on a neighbouring place
    leans over the tile or shades it: those pixels say nothing about the print).
    """
    n = len(patches)
    if n == 0:
        return []
    half = model.quadrant_px
    obs = quadrants(patches, half)  # (N, 4, P)
    n_blur, _, n_t, n_p = model.templates.shape
    visible = np.asarray(visible, bool).copy()
    obs_norm = np.einsum("nqp,nqp->nq", obs, obs)  # (N, 4)
    # Per quadrant, one matrix product (BLAS) of the patches with every blur's templates.
    dots = np.stack([obs[:, q] @ model.by_quadrant[q].T for q in range(4)], axis=1)
    counts = np.full((n, 4), float(n_p), np.float32)
    masked = np.zeros(n, bool) if weights is None else weights.reshape(n, -1).min(axis=1) < 1.0
    masked_norms = None
    if masked.any():
        # The same sums with each pixel weighted, for the few patches that have weights.
        wm = weights[masked]
        wq = quadrants(wm, half).astype(np.float32)
        seen = wq.sum(axis=2)
        # A quadrant mostly under something else is not read at all.
        visible[masked] &= seen >= MIN_SEEN_SHARE * n_p
        ow = obs[masked] * wq
        obs_norm[masked] = np.einsum("nqp,nqp->nq", ow, obs[masked])
        dots[masked] = np.stack([ow[:, q] @ model.by_quadrant[q].T for q in range(4)], axis=1)
        masked_norms = np.stack([wq[:, q] @ model.squares_by_quadrant[q].T for q in range(4)], axis=1)
        counts[masked] = np.maximum(seen, 1.0)
    vis = visible.astype(np.float32)  # (N, 4)
    ft = model.face_templates  # (F, 4)
    # a[n, b, f] = sum over visible quadrants q of dots[n, q, b, ft[f, q]]; b the same of the
    # templates' squared norms. An unweighted patch's norms are the model's: b depends on its
    # visible quadrants only, and is made once per pattern of them (most patches show all four).
    a = _face_sums(dots.reshape(n, -1), model.face_gather, vis)  # (N, blur, F)
    b = np.empty_like(a)
    plain = ~masked
    codes = visible.astype(np.uint8) @ _QUADRANT_BITS  # (N,) the visible quadrants as 4 bits
    if plain.any():
        patterns = sorted(set(codes[plain].tolist()))
        table = np.stack([_plain_face_norms(model, c) for c in patterns])
        b[plain] = table[np.searchsorted(patterns, codes[plain])]
    if masked_norms is not None:
        b[masked] = _face_sums(masked_norms.reshape(len(masked_norms), -1), model.face_gather, vis[masked])
    dots = dots.reshape(n, 4, n_blur, n_t)  # (N, 4, blur, T)
    gain = np.clip(a / np.maximum(b, 1e-9), *GAIN_RANGE)
    o = (obs_norm * vis).sum(axis=1)[:, None, None]
    err = o - 2 * gain * a + gain * gain * b  # (N, blur, F)
    if max_blur is not None:
        err[:, max_blur + 1:] = np.inf
    # The blur belongs to the photo, not to a face: pick it with the best face, then compare every
    # face at that blur (a wider blur must not let a wrong catalyst fit a disc's edge). All patches
    # at once: per patch the same element-wise float32 steps as one at a time, without the loop.
    rows = np.arange(n)
    bis, fs = np.unravel_index(np.argmin(err.reshape(n, -1), axis=1), err.shape[1:])
    at_blur = err[rows, bis]  # (N, F), a fresh array: each reading keeps its row
    g = gain[rows, bis, fs]  # float32
    g64 = g.astype(np.float64)
    t_idx = ft[fs]  # (N, 4)
    at = (rows[:, None], np.arange(4)[None, :], bis[:, None], t_idx)
    norms_at = model.norms[bis[:, None], np.arange(4)[None, :], t_idx]  # (N, 4)
    if masked_norms is not None:
        norms_at[masked] = masked_norms.reshape(-1, 4, n_blur, n_t)[
            np.arange(len(masked_norms))[:, None], np.arange(4)[None, :], bis[masked][:, None], t_idx[masked]]
    q_err = (obs_norm - (2.0 * g64).astype(np.float32)[:, None] * dots[at]
             + (g64 * g64).astype(np.float32)[:, None] * norms_at) / counts
    # The runner-up must differ in what can be seen: faces equal on the visible quadrants tie. It is
    # the least error among those (no sort of all faces: only its error, the margin, is used).
    differs = (model.face_differences[fs] & codes[:, None]) != 0  # (N, F)
    others = np.where(differs, at_blur, np.inf)
    runner = np.argmin(others, axis=1)
    runner = np.where(differs[rows, runner], runner, -1)
    e_best = at_blur[rows, fs].astype(np.float64)
    e_next = np.where(runner >= 0, at_blur[rows, runner].astype(np.float64), np.inf)
    n_vis = np.maximum((counts * visible).sum(axis=1).astype(np.float64), 1.0)
    noise = e_best / n_vis
    # Python numbers for all readings at once (the same values as element by element).
    gains, bests, margins, noises = g64.tolist(), e_best.tolist(), (e_next - e_best).tolist(), noise.tolist()
    q_errs, seen = q_err.tolist(), visible.tolist()
    out = []
    for i, (f, bi, r) in enumerate(zip(fs.tolist(), bis.tolist(), runner.tolist())):
        out.append(FaceReading(model.faces[f], f, model.face_tiles[f], BLUR_MM[bi], gains[i], bests[i], margins[i],
                               noises[i], tuple(q_errs[i]), model.faces[r] if r >= 0 else None, at_blur[i],
                               tuple(seen[i])))
    return out


def _face_sums(per_template: np.ndarray, gather: np.ndarray, vis: np.ndarray) -> np.ndarray:
    """(N, blur, F): per face, the sum over the visible quadrants of `per_template` (N, 4 * blur * T)
    at the face's template of each quadrant, added quadrant after quadrant (the float32 steps of
    a sum over the four)."""
    g = per_template.take(gather, axis=1, mode="clip")  # (N, 4, blur, F); every index is in range
    if not vis.all():
        g *= vis[:, :, None, None]
    out = g[:, 0] + g[:, 1]
    out += g[:, 2]
    out += g[:, 3]
    return out


_QUADRANT_BITS = np.array([1, 2, 4, 8], np.uint8)  # in QUADRANTS order


@lru_cache(maxsize=64)
def _plain_face_norms(model: "FaceModel", visible_code: int) -> np.ndarray:
    """(blur, F) read-only: `_face_sums` of the model's own template norms, for an unweighted patch
    whose visible quadrants are the bits of `visible_code` (_QUADRANT_BITS)."""
    visible = (visible_code & _QUADRANT_BITS) != 0
    out = _face_sums(model.norms.transpose(1, 0, 2).reshape(1, -1), model.face_gather,
                     visible[None].astype(np.float32))[0]
    out.flags.writeable = False
    return out


MIN_SEEN_SHARE = 0.3  # of a quadrant's pixels: fewer left uncovered and the quadrant is not read


def face_image(model: FaceModel, reading: FaceReading) -> np.ndarray:
    """The reading's face as a whole-tile template (side_px, side_px), ink gain applied."""
    side, half = model.side_px, model.quadrant_px
    bi = BLUR_MM.index(reading.blur_mm)
    out = np.zeros((side, side), np.float32)
    for qi, q in enumerate(QUADRANTS):
        ys, xs = _quadrant_slice(q, half)
        out[ys, xs] = model.templates[bi, qi, model.face_templates[reading.face_index, qi]].reshape(half, half)
    return out * reading.gain


def _face_images(model: FaceModel, readings: list[FaceReading]) -> np.ndarray:
    """(N, side, side): face_image of each reading, all at once (the same float32 products)."""
    n, half = len(readings), model.quadrant_px
    bis = np.array([BLUR_MM.index(r.blur_mm) for r in readings])
    t_idx = model.face_templates[[r.face_index for r in readings]]  # (N, 4)
    quads = model.templates[bis[:, None], np.arange(4)[None, :], t_idx]  # (N, 4, half * half), QUADRANTS order
    # ul, ur, ll, lr: two rows of two quadrants each
    out = quads.reshape(n, 2, 2, half, half).transpose(0, 1, 3, 2, 4).reshape(n, 2 * half, 2 * half)
    return out * np.array([r.gain for r in readings], np.float32)[:, None, None]


ALIGN_BORDER = 0.1  # of a side: the tile's rim is left out when aligning (the edges' darkness is not ink)
MAX_SHIFT = 0.06  # of a side (1.8 mm): a larger correction means the face was wrong, not the place
ALIGN_STEPS = 2


def alignment(model: FaceModel, readings: list[FaceReading], patches: np.ndarray, visible: np.ndarray,
              steps: int = ALIGN_STEPS, weights: np.ndarray | None = None) -> np.ndarray:
    """Per patch, the shift (dx, dy) in pixels that moves its best face's template onto the ink:
    Gauss-Newton on the squared error over the tile's inner part and visible quadrants (pixels
    weighted by `weights`, see read_faces), the template shifted (not the patch) between steps;
    all patches at once."""
    n = len(readings)
    out = np.zeros((n, 2))
    if n == 0:
        return out
    side, half = model.side_px, model.quadrant_px
    b = int(round(ALIGN_BORDER * side))
    base = _face_images(model, readings)
    mask = np.zeros((n, side, side), np.float32)
    mask[:, b:side - b, b:side - b] = 1.0
    for qi, q in enumerate(QUADRANTS):
        ys, xs = _quadrant_slice(q, half)
        mask[:, ys, xs] *= visible[:, qi, None, None]
    if weights is not None:
        mask *= weights
    d = np.zeros((n, 2))
    ok = np.ones(n, bool)
    for step_no in range(steps):
        # Not shifted yet, the template is the face image itself (a shift by zero copies it).
        t = base if step_no == 0 else np.stack([
            cv2.warpAffine(base[k], np.float32([[1, 0, d[k, 0]], [0, 1, d[k, 1]]]), (side, side),
                           flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE) for k in range(n)])
        # The tiles stacked: one Sobel along x for all of them, and one along the rows of the
        # transposed stack for y (the same central differences, tiles kept apart).
        gx = cv2.Sobel(t.reshape(n * side, side), cv2.CV_32F, 1, 0, ksize=1, scale=0.5).reshape(n, side, side)
        flipped = np.ascontiguousarray(t.transpose(0, 2, 1)).reshape(n * side, side)
        gy = cv2.Sobel(flipped, cv2.CV_32F, 1, 0, ksize=1, scale=0.5).reshape(n, side, side).transpose(0, 2, 1)
        jx, jy = gx * mask, gy * mask
        res = (patches - t) * mask
        a11, a12, a22 = (jx * jx).sum(axis=(1, 2)), (jx * jy).sum(axis=(1, 2)), (jy * jy).sum(axis=(1, 2))
        b1, b2 = -(jx * res).sum(axis=(1, 2)), -(jy * res).sum(axis=(1, 2))  # observed ~ t(x - step)
        det = a11 * a22 - a12 * a12
        ok &= det > 1e-6
        safe = np.where(det > 1e-6, det, 1.0)
        step = np.column_stack([(a22 * b1 - a12 * b2) / safe, (a11 * b2 - a12 * b1) / safe])
        d += np.clip(np.where(ok[:, None], step, 0.0), -1.0, 1.0)
    ok &= np.hypot(d[:, 0], d[:, 1]) <= MAX_SHIFT * side
    out[ok] = d[ok]
    return out


def faces_matching(model: FaceModel, face_index: int, visible: np.ndarray) -> list[int]:
    """Faces equal to `face_index` on the visible quadrants (it included)."""
    a = model.face_templates[face_index]
    same = np.all((model.face_templates == a) | ~visible[None, :], axis=1)
    return [int(i) for i in np.nonzero(same)[0]]


def big_faces() -> tuple[Face, ...]:
    return tuple(big_face(c, k) for c, k in BIG_FACES)
