"""Which taught colour a pixel of a glossy, rounded piece shows, under shading, glare and clipping.

A stick or a pawn is not one flat colour in a photo. Its rounded top turns away from the lamp on
one side (darker) and towards it on the other (brighter, up to the sensor's limit, where a red
channel stops at 255 while green goes on rising: orange drifts towards yellow); a glossy piece
also reflects the lamp, which adds white. So a pixel x (white-balanced, linear light) is modelled
from a taught colour c as

    x = k * c + w        k: shading gain within [K_MIN, K_MAX],  w >= 0: white reflected light

and a channel at the sensor's limit only says "at least this much". The colour whose model leaves
the smallest residual (relative to the pixel's brightness) is the pixel's colour. Grey (neutral)
fits any neutral pixel, so k has a floor: a colour washed out below it is not claimed as anything.
"""

from __future__ import annotations

from functools import cached_property, lru_cache

import cv2
import numpy as np

K_MIN = 0.35  # darkest shading accepted: a piece's flank under the lamp's side, a cast shadow
K_MAX = 3.0  # brightest: a flank facing the lamp, an over-exposed frame
W_MAX = 0.6  # most reflected white (linear light, paper white is ~0.9)
BRIGHTEST = 1.2  # no channel of a lit colour goes past this (linear; white-balanced paper is 0.9): where a
# camera clips red, a bright yellow and a brighter-than-possible orange would otherwise look alike
SATURATED = 250.0  # an sRGB channel at or above this is clipped by the sensor


def _decode(v) -> np.ndarray:
    v = np.asarray(v, dtype=np.float32) / 255.0
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4).astype(np.float32)


_LINEAR = _decode(np.arange(256))


def linear_to_srgb(v) -> np.ndarray:
    """sRGB values 0..255 (float32) of linear light values."""
    v = np.clip(np.asarray(v, dtype=np.float32), 0.0, 1.0)
    return (255.0 * np.where(v <= 0.0031308, v * 12.92, 1.055 * v ** (1 / 2.4) - 0.055)).astype(np.float32)


def srgb_to_linear(v) -> np.ndarray:
    """Linear light (float32) of sRGB values 0..255 (rounded to whole levels: a lookup, not a power)."""
    if isinstance(v, np.ndarray) and v.dtype == np.uint8:
        # Whole levels already: no rounding or clipping to do (most calls, on pixels). cv2.LUT gives
        # the table's very values at a fifth of numpy's fancy indexing (which widens every index).
        if v.size == 0:
            return _LINEAR[v]
        return cv2.LUT(v.reshape(-1, 1), _LINEAR).reshape(v.shape)
    return _LINEAR[_clip(np.rint(np.asarray(v, dtype=np.float32)), 0, 255).astype(np.intp)]  # (_clip: np.clip's values)


def fit_residuals(pixels_bgr: np.ndarray, refs_bgr: np.ndarray, clipped: np.ndarray | None = None,
                  k_range: tuple[float, float] = (K_MIN, K_MAX), w_max=W_MAX, brightest: float = BRIGHTEST,
                  with_wash: bool = False, paired: bool = False):
    """(N, K) relative residual of each pixel (N, 3 sRGB BGR, white-balanced) under each reference
    colour (K, 3). `clipped` (N, 3): the channels the sensor clipped (default: those >= SATURATED).
    `k_range`: the shading gains allowed; a narrow one tells neutral colours apart by brightness.
    `w_max`: the most reflected white allowed, one value or one per reference (0 for a matte,
    dark colour: with white added, a dark grey explains any neutral at all). `brightest`: the most any
    channel of a lit colour may reach (linear). `with_wash`: also return, per pixel and colour, how
    much of the fitted light is reflected white rather than the colour (w / (w + k max c)): a colour
    washed out that far is no longer told from grey. `paired`: refs has a row per pixel, and each
    pixel is fitted to its own only ((N, 1): what the diagonal of all against all holds, in linear
    time; `w_max` one value or one per pixel).

    The (N, K) arrays returned are transposed views of (K, N) ones (F-ordered): the fit is worked out
    with the pixels along the last axis (see _Refs), and copying it back would only cost time."""
    pixels = np.asarray(pixels_bgr, dtype=np.float32).reshape(-1, 3)
    x = _linear_planes(pixels)  # (3, N)
    clipped = pixels >= SATURATED if clipped is None else np.asarray(clipped, bool).reshape(-1, 3)
    some = clipped[:, 0] | clipped[:, 1] | clipped[:, 2]  # (clipped.any(axis=1): see _sum3)
    refs = _refs(refs_bgr, w_max, k_range, brightest, paired)
    if paired and len(refs.c) != pixels.shape[0]:
        raise ValueError("paired: one reference per pixel")
    # A matte fit (no white at all: w_max +0 for every reference) takes the shorter sums of
    # `_unclipped_matte` and `_with_clipping_matte`, the very same values.
    unclipped, with_clipping = (_unclipped_matte, _with_clipping_matte) if refs.matte else (_unclipped, _with_clipping)
    if len(some) and some.all():  # (every pixel clipped - a clipped top asked against the pawn colours: one fit, not two)
        out, washed = with_clipping(x, refs, np.ascontiguousarray(clipped.T), k_range, with_wash)
        return (out.T, washed.T) if with_wash else out.T
    # Every pixel fitted as if nothing were clipped (each pixel's fit is its own: the same values as
    # fitting the unclipped ones alone, without picking them out and putting them back), then the
    # few with a clipped channel fitted again.
    out, washed = unclipped(x, refs, k_range, with_wash)  # (K, N)
    if not some.any():
        return (out.T, washed.T) if with_wash else out.T
    lit = np.flatnonzero(some)
    if not paired and len(lit) == len(some) - 1:
        # ... but for one pixel left unclipped: its products with the references, alone, take BLAS's
        # matrix-vector path, whose last bit may differ from a matrix product's (as fitted so far).
        lone = np.flatnonzero(~some)
        out[:, lone], wash = unclipped(x[:, lone], refs, k_range, with_wash)
        if with_wash:
            washed[:, lone] = wash
    out[:, lit], wash = with_clipping(x[:, lit], refs.rows(lit), np.ascontiguousarray(clipped[lit].T), k_range,
                                      with_wash)
    if with_wash:
        washed[:, lit] = wash
    return (out.T, washed.T) if with_wash else out.T


def _linear_planes(pixels: np.ndarray) -> np.ndarray:
    """(3, N) channel planes, linear light, of (N, 3) float32 sRGB pixels (rounded to whole levels)."""
    return np.ascontiguousarray(_LINEAR[_clip(np.rint(pixels), 0, 255).astype(np.intp)].T)


def _refs(refs_bgr: np.ndarray, w_max, k_range: tuple[float, float], brightest: float, paired: bool) -> "_Refs":
    """The reference colours (K, 3 sRGB BGR) as `fit_residuals` fits them (see its arguments).
    All against all, the same few colours (a palette, a tile's) are asked again and again: their
    terms are kept (`_kept_refs`, by value), not worked out again each call - on the few pixels of
    most calls they are much of its cost. (Paired, the references are the pixels' own.)"""
    refs_bgr = np.asarray(refs_bgr, dtype=np.float32)
    if not paired:
        w = np.asarray(w_max, np.float32)
        return _kept_refs(refs_bgr.tobytes(), refs_bgr.size, w.tobytes(), w.shape, float(k_range[1]), float(brightest))
    return _new_refs(refs_bgr, w_max, k_range[1], brightest, paired)


@lru_cache(maxsize=64)
def _kept_refs(refs_bytes: bytes, size: int, w_bytes: bytes, w_shape: tuple[int, ...], k_max: float,
               brightest: float) -> "_Refs":
    """`_new_refs` of all-against-all references given by value (their float32 bytes, and w_max's
    as float32). Its arrays are read-only: shared by every call that asks the same."""
    refs = np.frombuffer(refs_bytes, np.float32, size)
    w_max = np.frombuffer(w_bytes, np.float32).reshape(w_shape)
    out = _new_refs(refs, w_max, k_max, brightest, False)
    for a in (out.c, out.planes, out.w_max, out.k_hi, out.sc, out.scc, out.c_max):
        a.setflags(write=False)
    return out


def _new_refs(refs_bgr: np.ndarray, w_max, k_max: float, brightest: float, paired: bool) -> "_Refs":
    c = srgb_to_linear(refs_bgr.reshape(-1, 3))  # (K, 3)
    w_max = np.asarray(w_max, np.float32)
    if w_max.shape != (len(c),):  # (one for all: np.full costs less than np.broadcast_to, on few pixels)
        w_max = np.full(len(c), w_max) if w_max.ndim == 0 else np.broadcast_to(w_max, (len(c),))
    planes = np.ascontiguousarray(c.T)  # (3, K)
    # (_max3: c.max(axis=1)'s very values - a maximum is exact - without its reduction machinery)
    k_hi = np.minimum(k_max, brightest / np.maximum(_max3(planes), 1e-6))  # (K,)
    return _Refs(c, planes, w_max, k_hi, paired)


class _Refs:
    """The reference colours (K, 3 linear) with their most white and highest gain (K,), laid out to
    broadcast against a (K, N) fit - the pixels along the last axis, so that numpy's element-wise
    loops run along the many pixels rather than the few references (a (N, K) layout made the whole
    fit of 9500 pixels under 4 colours take twice as long): along K as (K, 1), or - `paired`, one
    reference per pixel - along N as (1, N). The same element-wise arithmetic serves both, and gives
    the same values in either layout."""

    def __init__(self, c: np.ndarray, planes: np.ndarray, w_max: np.ndarray, k_hi: np.ndarray, paired: bool):
        # `planes`: c.T as channel planes (3, K), each contiguous: against (3, N) pixel planes numpy
        # then loops along N (through a transposed view it would loop along the three channels).
        self.c, self.planes, self.w_max, self.k_hi, self.paired = c, planes, w_max, k_hi, paired
        # No reflected white for any reference: +0 itself (a -0 bound would give a white of -0).
        self.matte = not w_max.any() and not np.signbit(w_max).any()

    # Per reference: the sums of its channels and of their squares, and its brightest (the same
    # values whether kept or worked out per call).
    @cached_property
    def sc(self) -> np.ndarray:
        return self.c.sum(axis=1)

    @cached_property
    def scc(self) -> np.ndarray:
        return (self.c * self.c).sum(axis=1)

    @cached_property
    def c_max(self) -> np.ndarray:
        return self.c.max(axis=1)

    def rows(self, at: np.ndarray) -> "_Refs":
        """Those of the pixels `at` (paired; otherwise all references serve every pixel)."""
        return _Refs(self.c[at], self.planes[:, at], self.w_max[at], self.k_hi[at], True) if self.paired else self

    def along(self, v: np.ndarray) -> np.ndarray:
        """A per-reference (K,) value laid out against (K, N): (K, 1) or, paired, (1, N)."""
        return v[None, :] if self.paired else v[:, None]

    def against_planes(self) -> np.ndarray:
        """The references as channel planes against (3, K, N): (3, K, 1) or, paired, (3, 1, N)."""
        return self.planes[:, None, :] if self.paired else self.planes[:, :, None]

    def dot(self, x: np.ndarray) -> np.ndarray:
        """(K, N) sum over channels of x (3, N) times each reference (paired: its own, (1, N)).
        The product is the (N, K) layout's, x (N, 3) @ c.T, turned: c @ x gives the same bits on this
        OpenBLAS (checked), but a BLAS may sum a product laid out otherwise in another order, and
        the last bit would change; the two transposed copies cost about 1 % of the fit.
        (Summed as _sum3 does, rounding each product, it would differ too: BLAS multiplies and adds
        in one rounding.)"""
        if self.paired:
            return _sum3(x * self.planes)[None, :]
        return np.ascontiguousarray((np.ascontiguousarray(x.T) @ self.c.T).T)


def _unclipped(x: np.ndarray, refs: _Refs, k_range: tuple[float, float],
               with_wash: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """The common case, every channel measured: least squares for (k, w) in x = k c + w, by sums.
    The residuals and (when `with_wash`; most callers do not ask) the washed-out share, (K, N) for
    x's (3, N) channel planes."""
    c, w_max, k_hi = refs.c, refs.along(refs.w_max), refs.along(refs.k_hi)
    sc, scc = refs.along(refs.sc), refs.along(refs.scc)  # (K, 1)
    sx, sxx = _sum3(x)[None, :], _sum3(x * x)[None, :]  # (1, N)
    scx = refs.dot(x)  # (K, N)
    det = 3.0 * scc - sc * sc
    k = (3.0 * scx - sc * sx) / np.maximum(det, 1e-10)
    flat = ~(det > 1e-10)  # a neutral reference: no slope to fit k by, only a level
    if flat.any():  # (np.where(~flat, k, level) for those alone: np.where costs more than the fit)
        if refs.paired:
            k = np.where(flat, sx / np.maximum(sc, 1e-6), k)
        else:
            k[flat[:, 0]] = sx / np.maximum(sc[flat[:, 0]], 1e-6)
    _clip(k, k_range[0], k_hi, out=k)
    w = _clip((sx - k * sc) / 3.0, 0.0, w_max)
    # With w fixed by the bounds, k is refitted once (the 2D problem's box corners).
    k = _clip((scx - w * sc) / np.maximum(scc, 1e-9), k_range[0], k_hi)
    sse = k * k * scc - 2 * k * scx + 2 * k * w * sc - 2 * w * sx + 3 * w * w + sxx
    wash = w / np.maximum(w + k * refs.along(refs.c_max), 1e-6) if with_wash else None
    return np.sqrt(np.maximum(sse, 0.0) / 3.0) / (sx / 3.0 + 0.03), wash


def _unclipped_matte(x: np.ndarray, refs: _Refs, k_range: tuple[float, float],
                     with_wash: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """`_unclipped` for a matte fit (refs.matte: no white): the same values by fewer operations,
    which on the few pixels of most calls are most of the cost. There the white w is +0 exactly
    (the bounds clip the level fitted first, finite, to [+0, +0]), so the first fit of k, only there
    to find w, is not needed; scx - w sc is scx, and each term of the residual with w in it adds or
    takes away a zero, which leaves every partial sum as it was (none is -0: the pixels' and colours'
    sums are >= +0, and k k scc - 2 k scx is -0 for no k). The washed-out share w / (...) is +0."""
    k_hi = refs.along(refs.k_hi)
    scc = refs.along(refs.scc)
    sx, sxx = _sum3(x)[None, :], _sum3(x * x)[None, :]  # (1, N)
    scx = refs.dot(x)  # (K, N)
    k = _clip(scx / np.maximum(scc, 1e-9), k_range[0], k_hi)
    sse = k * k * scc - 2 * k * scx + sxx
    wash = np.zeros(np.broadcast_shapes(k.shape, sx.shape), np.float32) if with_wash else None
    return np.sqrt(np.maximum(sse, 0.0) / 3.0) / (sx / 3.0 + 0.03), wash


def _with_clipping(x: np.ndarray, refs: _Refs, clipped: np.ndarray, k_range: tuple[float, float],
                   with_wash: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """Pixels with a channel at the sensor's limit: the fit uses the other channels, and the
    clipped one only says the model must reach at least what was seen. x, clipped: (3, N) channel
    planes; the arrays below are (3, K, N)."""
    c, w_max = refs.c, refs.along(refs.w_max)
    use = (~clipped).astype(np.float32)[:, None, :]  # (3, 1, N): channels that carry a value
    xs = x[:, None, :]
    cs = refs.against_planes()  # (3, 1, N) or (3, K, 1)
    n = np.maximum(_sum3(use), 1.0)
    k_hi = refs.along(refs.k_hi)
    used_c = use * cs  # (3, K, N), shared by the sums below (the same products, made once)
    sc = _sum3(used_c)
    sx = _sum3(use * xs)
    scc = _sum3(used_c * cs)
    scx = _sum3(used_c * xs)
    det = n * scc - sc * sc
    ok = np.abs(det) > 1e-10
    if ok.all():  # (most fits: no neutral reference - the very values of the np.where below, fewer steps)
        k = (n * scx - sc * sx) / det
    else:
        k = np.where(ok, (n * scx - sc * sx) / np.where(ok, det, 1.0), sx / np.maximum(sc, 1e-6))
    k = _clip(k, k_range[0], k_hi)
    w = _clip((sx - k * sc) / n, 0.0, w_max)
    x_less_w = xs - w[None]
    k = _clip(_sum3(used_c * x_less_w) / np.maximum(scc, 1e-9), k_range[0], k_hi)
    # A clipped channel was at least as bright as seen: the gain must reach it (bright yellow clips
    # red and green and leaves only blue to fit, which alone would ask for no gain at all).
    needed = _max3(np.where(clipped[:, None, :], x_less_w / np.maximum(cs, 1e-6), 0.0))
    k = _clip(np.maximum(k, needed), k_range[0], k_hi)
    predicted = k[None] * cs + w[None]
    err = (predicted - xs) * use
    short = np.maximum(xs - predicted, 0.0) * (1.0 - use)
    total = np.sqrt(_sum3(err * err + short * short) / 3.0)
    wash = w / np.maximum(w + k * refs.along(refs.c_max), 1e-6) if with_wash else None
    return total / (_sum3(x) / np.float32(3.0) + 0.03)[None, :], wash


def _with_clipping_matte(x: np.ndarray, refs: _Refs, clipped: np.ndarray, k_range: tuple[float, float],
                         with_wash: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """`_with_clipping` for a matte fit (refs.matte), the same values by fewer operations (as
    `_unclipped_matte`): w is +0, so x - w is x (its products with the colours are scx's), the first
    fit of k is not needed and k c + w is k c."""
    use = (~clipped).astype(np.float32)[:, None, :]  # (3, 1, N): channels that carry a value
    xs = x[:, None, :]
    cs = refs.against_planes()  # (3, 1, N) or (3, K, 1)
    k_hi = refs.along(refs.k_hi)
    used_c = use * cs  # (3, K, N)
    scc = _sum3(used_c * cs)
    scx = _sum3(used_c * xs)
    k = _clip(scx / np.maximum(scc, 1e-9), k_range[0], k_hi)
    needed = _max3(np.where(clipped[:, None, :], xs / np.maximum(cs, 1e-6), 0.0))
    k = _clip(np.maximum(k, needed), k_range[0], k_hi)
    predicted = k[None] * cs
    err = (predicted - xs) * use
    short = np.maximum(xs - predicted, 0.0) * (1.0 - use)
    total = np.sqrt(_sum3(err * err + short * short) / 3.0)
    wash = np.zeros(k.shape, np.float32) if with_wash else None
    return total / (_sum3(x) / np.float32(3.0) + 0.03)[None, :], wash


def _clip(a: np.ndarray, lo, hi, out: np.ndarray | None = None) -> np.ndarray:
    """np.clip(a, lo, hi, out=out): the same values (the lower bound, then the upper), without its
    dispatch, which costs more than the clipping on the few pixels of most calls (nine a call)."""
    out = np.maximum(a, lo, out=out)
    return np.minimum(out, hi, out=out)


def _sum3(a: np.ndarray) -> np.ndarray:
    """a.sum(axis=0) over a first axis of three channel planes: the very same additions in the same
    order ((a0 + a1) + a2) as a pixel's channels were summed in, without numpy's reduction
    machinery, which over so short an axis costs some twenty times more than the sums."""
    return a[0] + a[1] + a[2]


def _max3(a: np.ndarray) -> np.ndarray:
    """a.max(axis=0) over a first axis of three channel planes (as _sum3)."""
    return np.maximum(np.maximum(a[0], a[1]), a[2])


def chroma(bgr: np.ndarray) -> np.ndarray:
    """CIE Lab chroma (float32) of a white-balanced BGR uint8 image, or of (N, 3) samples. Stick and
    tile colours reach 55-85; wood, cloth and skin stay below about 40."""
    arr = np.asarray(bgr)
    img = arr.reshape(1, -1, 3) if arr.ndim == 2 else arr
    lab = cv2.cvtColor(img.astype(np.float32) * np.float32(1 / 255.0), cv2.COLOR_BGR2Lab)
    _, a, b = cv2.split(lab)
    out = cv2.magnitude(a, b)
    return out.reshape(-1) if arr.ndim == 2 else out
