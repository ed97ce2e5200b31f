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
        return _LINEAR[v]  # whole levels already: no rounding or clipping to do (most calls, on pixels)
    return _LINEAR[np.clip(np.rint(np.asarray(v, dtype=np.float32)), 0, 255).astype(np.intp)]


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
    time; `w_max` one value or one per pixel)."""
    pixels = np.asarray(pixels_bgr, dtype=np.float32).reshape(-1, 3)
    x = _LINEAR[_clip(np.rint(pixels), 0, 255).astype(np.intp)]  # (N, 3)
    c = srgb_to_linear(np.asarray(refs_bgr, dtype=np.float32).reshape(-1, 3))  # (K, 3)
    clipped = pixels >= SATURATED if clipped is None else np.asarray(clipped, bool).reshape(-1, 3)
    some = clipped[:, 0] | clipped[:, 1] | clipped[:, 2]  # (clipped.any(axis=1): see _sum3)
    w_max = np.broadcast_to(np.asarray(w_max, np.float32), (len(c),))
    k_hi = np.minimum(k_range[1], brightest / np.maximum(c.max(axis=1), 1e-6))  # (K,)
    if paired and len(c) != len(x):
        raise ValueError("paired: one reference per pixel")
    refs = _Refs(c, w_max, k_hi, paired)
    if not some.any():  # nothing clipped (most calls): no rows to pick out and put back
        out, washed = _unclipped(x, refs, k_range, with_wash)
        return (out, washed) if with_wash else out
    out = np.empty((len(x), 1 if paired else len(c)), np.float32)
    washed = np.empty(out.shape, np.float32) if with_wash else None
    out[~some], wash = _unclipped(x[~some], refs.rows(~some), k_range, with_wash)
    if with_wash:
        washed[~some] = wash
    out[some], wash = _with_clipping(x[some], refs.rows(some), clipped[some], k_range, with_wash)
    if with_wash:
        washed[some] = wash
    return (out, washed) if with_wash else out


class _Refs:
    """The reference colours (K, 3 linear) with their most white and highest gain (K,), laid out to
    broadcast against a (N, K) fit: along K, or - `paired`, one reference per pixel - along N as
    (N, 1). The same element-wise arithmetic serves both."""

    def __init__(self, c: np.ndarray, w_max: np.ndarray, k_hi: np.ndarray, paired: bool):
        self.c, self.w_max, self.k_hi, self.paired = c, w_max, k_hi, paired

    def rows(self, at: np.ndarray) -> "_Refs":
        """Those of the pixels `at` (paired; otherwise all references serve every pixel)."""
        return _Refs(self.c[at], self.w_max[at], self.k_hi[at], True) if self.paired else self

    def along(self, v: np.ndarray) -> np.ndarray:
        """A per-reference (K,) value laid out against (N, K): (K,) or, paired, (N, 1)."""
        return v[:, None] if self.paired else v

    def dot(self, x: np.ndarray) -> np.ndarray:
        """(N, K) sum over channels of x times each reference (paired: its own, (N, 1))."""
        return _sum3(x * self.c)[:, None] if self.paired else x @ self.c.T


def _unclipped(x: np.ndarray, refs: _Refs, k_range: tuple[float, float],
               with_wash: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """The common case, every channel measured: least squares for (k, w) in x = k c + w, by sums.
    The residuals and (when `with_wash`; most callers do not ask) the washed-out share."""
    c, w_max, k_hi = refs.c, refs.along(refs.w_max), refs.along(refs.k_hi)
    sc, scc = refs.along(c.sum(axis=1)), refs.along((c * c).sum(axis=1))  # (K,)
    sx, sxx = _sum3(x)[:, None], _sum3(x * x)[:, None]  # (N, 1)
    scx = refs.dot(x)  # (N, K)
    det = 3.0 * scc - sc * sc
    k = np.where(det > 1e-10, (3.0 * scx - sc * sx) / np.maximum(det, 1e-10), sx / np.maximum(sc, 1e-6))
    _clip(k, k_range[0], k_hi, out=k)
    w = _clip((sx - k * sc) / 3.0, 0.0, w_max)
    # With w fixed by the bounds, k is refitted once (the 2D problem's box corners).
    k = _clip((scx - w * sc) / np.maximum(scc, 1e-9), k_range[0], k_hi)
    sse = k * k * scc - 2 * k * scx + 2 * k * w * sc - 2 * w * sx + 3 * w * w + sxx
    wash = w / np.maximum(w + k * refs.along(c.max(axis=1)), 1e-6) if with_wash else None
    return np.sqrt(np.maximum(sse, 0.0) / 3.0) / (sx / 3.0 + 0.03), wash


def _with_clipping(x: np.ndarray, refs: _Refs, clipped: np.ndarray, k_range: tuple[float, float],
                   with_wash: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """Pixels with a channel at the sensor's limit: the fit uses the other channels, and the
    clipped one only says the model must reach at least what was seen."""
    c, w_max = refs.c, refs.along(refs.w_max)
    use = (~clipped).astype(np.float32)[:, None, :]  # (N, 1, 3): channels that carry a value
    xs = x[:, None, :]
    cs = c[:, None, :] if refs.paired else c[None, :, :]  # (N, 1, 3) or (1, K, 3)
    n = np.maximum(_sum3(use), 1.0)
    k_hi = refs.along(refs.k_hi)
    used_c = use * cs  # (N, K, 3), shared by the sums below (the same products, made once)
    sc = _sum3(used_c)
    sx = _sum3(use * xs)
    scc = _sum3(used_c * cs)
    scx = _sum3(used_c * xs)
    det = n * scc - sc * sc
    ok = np.abs(det) > 1e-10
    k = np.where(ok, (n * scx - sc * sx) / np.where(ok, det, 1.0), sx / np.maximum(sc, 1e-6))
    k = _clip(k, k_range[0], k_hi)
    w = _clip((sx - k * sc) / n, 0.0, w_max)
    x_less_w = xs - w[..., None]
    k = _clip(_sum3(used_c * x_less_w) / np.maximum(scc, 1e-9), k_range[0], k_hi)
    # A clipped channel was at least as bright as seen: the gain must reach it (bright yellow clips
    # red and green and leaves only blue to fit, which alone would ask for no gain at all).
    needed = _max3(np.where(clipped[:, None, :], x_less_w / np.maximum(cs, 1e-6), 0.0))
    k = _clip(np.maximum(k, needed), k_range[0], k_hi)
    predicted = k[..., None] * cs + w[..., None]
    err = (predicted - xs) * use
    short = np.maximum(xs - predicted, 0.0) * (1.0 - use)
    total = np.sqrt(_sum3(err * err + short * short) / 3.0)
    wash = w / np.maximum(w + k * refs.along(c.max(axis=1)), 1e-6) if with_wash else None
    return total / (_sum3(x) / np.float32(3.0) + 0.03)[:, None], wash


def _clip(a: np.ndarray, lo, hi, out: np.ndarray | None = None) -> np.ndarray:
    """np.clip(a, lo, hi, out=out): the same values (the lower bound, then the upper), without its
    dispatch, which costs more than the clipping on the few pixels of most calls (nine a call)."""
    out = np.maximum(a, lo, out=out)
    return np.minimum(out, hi, out=out)


def _sum3(a: np.ndarray) -> np.ndarray:
    """a.sum(axis=-1) over a last axis of three channels: the very same additions in the same order
    ((a0 + a1) + a2), without numpy's reduction machinery, which over so short an axis costs some
    twenty times more than the sums (every pixel, every colour, on every frame)."""
    return a[..., 0] + a[..., 1] + a[..., 2]


def _max3(a: np.ndarray) -> np.ndarray:
    """a.max(axis=-1) over a last axis of three channels (as _sum3)."""
    return np.maximum(np.maximum(a[..., 0], a[..., 1]), a[..., 2])


def chroma(bgr: np.ndarray) -> np.ndarray:
    """CIE Lab chroma (float32) of a white-balanced BGR uint8 image, or of (N, 3) samples. Stick and
    tile colours reach 55-85; wood, cloth and skin stay below about 40."""
    arr = np.asarray(bgr)
    img = arr.reshape(1, -1, 3) if arr.ndim == 2 else arr
    lab = cv2.cvtColor(img.astype(np.float32) * np.float32(1 / 255.0), cv2.COLOR_BGR2Lab)
    _, a, b = cv2.split(lab)
    out = cv2.magnitude(a, b)
    return out.reshape(-1) if arr.ndim == 2 else out
