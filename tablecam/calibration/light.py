"""White balance and exposure from the markers: the quiet zone is white paper, the border is black ink.

Every frame carries its own reference: the paper around each marker and the marker's black
border cells are the same objects whatever the lamp, so mapping them to fixed neutral values
makes a red stick read the same under a warm bulb, a cold window or a dim evening.

The correction works in linear light (sRGB decoded), per channel: a black offset (veiling
glare, haze) then a gain, so that marker paper becomes PAPER_SRGB and marker ink INK_SRGB,
the values of a typical matte print (90 % and 2 % reflectance). It is applied with one
256-entry table per channel, which costs about as much as copying the image.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import cv2
import numpy as np

from tablecam.calibration.geometry import TableGeometry
from tablecam.calibration.table import TableFix
from tablecam.errors import UserError

PAPER_SRGB = 243.0  # what the marker paper becomes: sRGB of 90 % reflectance
INK_SRGB = 40.0  # what the marker ink becomes: sRGB of 2 % reflectance
CLIPPED = 250  # a white channel this high is saturated: glare or overexposure
DIM = 70  # a white channel below this: too little light or too short an exposure
UNEVEN = 0.35  # markers' whites differing by more than this fraction (in linear light)

# Where to sample, in marker cells (a 4x4 marker with its border is 6 cells across) from the
# marker's edge: the quiet zone is at least one cell of paper; the border is one cell of ink.
_PAPER_BAND = (0.2, 0.8)  # outside the edge
_INK_BAND = (0.2, 0.8)  # inside the edge
_SAMPLES_PER_SIDE = 12


@dataclass(frozen=True)
class LightReference:
    """The table's light as the camera saw it: paper white and ink black (BGR, sRGB 0..255)."""

    white: tuple[float, float, float]
    black: tuple[float, float, float]
    per_marker_white: tuple[tuple[int, tuple[float, float, float]], ...]
    warnings: tuple[str, ...] = ()

    @property
    def gains(self) -> tuple[float, float, float]:
        """Linear-light gain per channel that maps paper to the neutral paper value."""
        w, b = _lin(np.array(self.white)), _lin(np.array(self.black))
        return tuple(float(v) for v in (_lin(PAPER_SRGB) - _lin(INK_SRGB)) / np.maximum(w - b, 1e-4))

    def lookup_tables(self) -> np.ndarray:
        """(3, 256) uint8: the corrected value of every input value, per B, G, R channel (built
        once per reference: a frame balances colours a dozen times, and a build costs more than
        the look-ups; read-only, as it is shared)."""
        return self._tables

    @cached_property
    def _tables(self) -> np.ndarray:
        # The three channels at once, each row in the very arithmetic of a channel alone.
        target_w, target_b = _lin(PAPER_SRGB), _lin(INK_SRGB)
        w, b = _lin(np.array(self.white, dtype=np.float64)), _lin(np.array(self.black, dtype=np.float64))
        scale = (target_w - target_b) / np.maximum(w - b, 1e-4)
        lin = (_LIN_LEVELS - b[:, None]) * scale[:, None] + target_b
        out = np.clip(np.round(_srgb(lin)), 0, 255).astype(np.uint8)
        out.setflags(write=False)
        return out

    def correct(self, image: np.ndarray) -> np.ndarray:
        """The image as it would look under neutral light of the calibrated brightness (BGR uint8)."""
        if image.ndim != 3 or image.shape[2] != 3:
            raise UserError("white balance needs a colour (BGR) image.")
        # One call with a three-channel table: each channel looks up its own column.
        lut = np.ascontiguousarray(self.lookup_tables().T).reshape(1, 256, 3)
        return cv2.LUT(np.ascontiguousarray(image), lut)

    def correct_colours(self, bgr) -> np.ndarray:
        """Corrected values of some colours (N, 3) without building an image."""
        luts = self.lookup_tables()
        c = np.clip(np.asarray(bgr, dtype=np.float64).reshape(-1, 3), 0, 255)
        out = np.empty_like(c)
        for ch in range(3):
            out[:, ch] = np.interp(c[:, ch], np.arange(256), luts[ch].astype(np.float64))
        return out

    def to_dict(self) -> dict:
        return {"white_bgr": [round(v, 1) for v in self.white], "black_bgr": [round(v, 1) for v in self.black],
                "warnings": list(self.warnings)}


def white_reference(image: np.ndarray, fix: TableFix) -> LightReference:
    """Reads paper white and ink black around the markers seen in this frame.

    Raises UserError when no marker of the frame can be sampled (all covered).
    """
    if image.ndim != 3 or image.shape[2] != 3:
        raise UserError("white balance needs a colour (BGR) image.")
    h, w = image.shape[:2]
    seen = fix.markers_seen
    whites, blacks, per_marker = [], [], []
    if seen:
        # One mapping through the lens for every marker's paper and ink points (a call per band
        # cost more than its maths); every band has as many points.
        bands = _all_bands(fix.geometry, seen)
        px = fix.table_to_image(bands.reshape(-1, 2)).reshape(bands.shape)
        samples = _sample_bands(image, px, w, h)
    for k, m in enumerate(seen):
        paper, ink = samples[k]
        if len(paper) < 8 or len(ink) < 8:
            continue
        # Medians: a finger tip or a speck of dirt on the paper must not tint the whole frame.
        white = _median(paper)
        whites.append(white)
        blacks.append(_median(ink))
        per_marker.append((m, tuple(float(v) for v in white)))
    if not whites:
        raise UserError("no table marker can be seen to measure the light: uncover at least one marker.")
    white = _median(np.array(whites))
    black = _median(np.array(blacks))
    return LightReference(tuple(float(v) for v in white), tuple(float(v) for v in black), tuple(per_marker),
                          tuple(_light_warnings(white, black, per_marker)))


def _median(rows: np.ndarray) -> np.ndarray:
    """np.median(rows, axis=0), the same values (the middle row of the sorted columns, or the mean of
    the middle two) without its general machinery, which costs more than the sort of a few hundred."""
    s = np.sort(rows, axis=0)
    mid = len(s) // 2
    return s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2


def _light_warnings(white: np.ndarray, black: np.ndarray, per_marker) -> list[str]:
    out = []
    clipped = [m for m, wv in per_marker if max(wv) >= CLIPPED]
    if clipped:
        which = ", ".join(map(str, clipped))
        out.append(f"the white around marker {which} is saturated: glare or overexposure hides colours "
                   "(move the lamp to the side or lower the exposure)")
    if max(white) < DIM:
        out.append(f"the table is dim (paper reads {max(white):.0f} of 255): add light or lengthen the exposure")
    if float(np.min(white - black)) < 40:
        out.append("black and white barely differ on the markers: the light is too flat or the lens is fogged")
    # Every marker's mean linear white in one go (each row's mean: the sum of its three, in order, over 3).
    means = np.mean(_lin(np.array([wv for _, wv in per_marker]).reshape(-1, 3)), axis=1).tolist()
    lums = {m: mean for (m, _), mean in zip(per_marker, means)}
    if len(lums) >= 2:
        hi, lo = max(lums.values()), min(lums.values())
        if hi > 0 and (hi - lo) / hi > UNEVEN:
            dark = min(lums, key=lums.get)
            out.append(f"the light is uneven: marker {dark} gets {100 * (1 - lo / hi):.0f} % less light "
                       "than the brightest: colours may be misread there")
    return out


@lru_cache(maxsize=64)
def _all_bands(g: TableGeometry, seen: tuple[int, ...]) -> np.ndarray:
    """(markers, 2, points, 2): each seen marker's paper and ink points (table mm), stacked once per
    set of markers seen."""
    out = np.stack([np.stack(_marker_bands(g, m)) for m in seen])
    out.flags.writeable = False
    return out


@lru_cache(maxsize=64)
def _marker_bands(g: TableGeometry, marker_id: int) -> tuple[np.ndarray, np.ndarray]:
    """The paper and the ink sample points (table mm) of one marker: the same for every frame."""
    cell = g.marker_mm / 6
    half = g.marker_mm / 2
    cx, cy = g.marker_centre(marker_id)
    paper = _square_band(cx, cy, half + _PAPER_BAND[0] * cell, half + _PAPER_BAND[1] * cell)
    ink = _square_band(cx, cy, half - _INK_BAND[1] * cell, half - _INK_BAND[0] * cell)
    paper.flags.writeable = False
    ink.flags.writeable = False
    return paper, ink


def _square_band(cx: float, cy: float, inner: float, outer: float) -> np.ndarray:
    """Points on square rings between half-sides `inner` and `outer` around (cx, cy)."""
    pts = []
    for r in np.linspace(inner, outer, 3):
        t = np.linspace(-r, r, _SAMPLES_PER_SIDE, endpoint=False)
        pts += [np.column_stack([cx + t, np.full_like(t, cy - r)]),
                np.column_stack([np.full_like(t, cx + r), cy + t]),
                np.column_stack([cx - t, np.full_like(t, cy + r)]),
                np.column_stack([np.full_like(t, cx - r), cy - t])]
    return np.concatenate(pts)


def _sample_bands(image: np.ndarray, px: np.ndarray, w: int, h: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """`_sample` of every band of `px` (markers, 2, points, 2): (paper, ink) per marker. All points in
    one gather when they all fall inside the frame (the usual case: the same pixels, in the same order)."""
    xy = np.round(px).astype(int)
    if (xy >= 0).all() and (xy[..., 0] < w).all() and (xy[..., 1] < h).all():
        got = image[xy[..., 1], xy[..., 0]].astype(np.float64)
        return [(got[k, 0], got[k, 1]) for k in range(len(got))]
    return [(_sample(image, px[k, 0], w, h), _sample(image, px[k, 1], w, h)) for k in range(len(px))]


def _sample(image: np.ndarray, px: np.ndarray, w: int, h: int) -> np.ndarray:
    xy = np.round(px).astype(int)
    ok = (xy[:, 0] >= 0) & (xy[:, 0] < w) & (xy[:, 1] >= 0) & (xy[:, 1] < h)
    xy = xy[ok]
    return image[xy[:, 1], xy[:, 0]].astype(np.float64)


def _lin(v):
    v = np.asarray(v, dtype=np.float64) / 255.0
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


_LIN_LEVELS = _lin(np.arange(256, dtype=np.float64))  # every 8-bit level in linear light
_LIN_LEVELS.flags.writeable = False


def _srgb(v):
    v = np.clip(np.asarray(v, dtype=np.float64), 0, 1)
    return 255.0 * np.where(v <= 0.0031308, v * 12.92, 1.055 * v ** (1 / 2.4) - 0.055)
