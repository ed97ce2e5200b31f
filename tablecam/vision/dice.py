"""Dice seen from above: where each die lies and the number on its top face, read from its pips.

`read_dice(image)` works on any photo (no table needed):

1. pips: round blobs darker or brighter than their surround (`pips.find_pips`), searched on a
   pyramid so that pips of about 1 to 50 px radius are each seen at a scale where they are 2-6 px;
   a photo squeezed by its publisher (a 4:3 or 16:9 shot stored square) is read un-squeezed by
   each usual ratio too, and the ratio under which most pips land on read dice is kept;
2. lattices: every pip of a die sits on a 3x3 lattice of places; each pair of similar pips
   proposes the few lattices it can belong to, and lattices re-fitted to the pips they land on
   allow for a slanted view (`pip_lattice.pair_hypotheses`, `refine`);
3. reading by sampling: each lattice's nine places, the face between them and the table just
   outside are sampled (`pip_lattice.check`); the places that are pips must make one of the six
   layouts, the face must be even and the die must stand out from the table. A lone pip is a 1
   only when the face all around it is clean;
4. one reading per die: the one that accounts for the most pips wins; a value is withdrawn when a
   pip seen at another scale lies on the face off the layout's places (on a photo, a spot at
   least half the size of the die's own pips: glare specks are smaller);
5. faces found whole: where no die was read, a region shaped like a die's face (MSER) is read
   at the scale its size gives, as a die of known size (`face_regions`, `_read_face`).

A die that cannot be read for sure is still reported, with `value=None`: a guess dressed as a
fact would make the companion flag an illegal move that never happened.

With a known pip size (`pip_radius_px`, a camera over a table) only windows around dark (or
bright) spots of a half-size copy are read, at one scale: a 2028x1520 frame costs milliseconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from tablecam.calibration.images import check_frame, to_grey
from tablecam.errors import UserError
from tablecam.vision.pip_lattice import LAYOUT_PLACES, Lattices, Reading, check, choose, pair_hypotheses, refine
from tablecam.vision.pips import MIN_CONTRAST, Pip, find_pips, local_contrast

# Side of a die face over the lattice step a. Standard dice put the corner pips at about
# 0.25-0.3 of the side from the centre; 0.27 is the middle (and the simulator's die).
SIDE_PER_STEP = 1 / 0.27
MIN_SIDE_PX = 18.0  # smallest die (top face side, in the photo's pixels) read on a photo of unknown scale
# Dice of 14 to 18 px (pips of about a pixel) are read only with three pips or more, each
# place clearly pip or face: a lone pip or a pair that small is as often part of a bigger die's
# face (a "1" on a 6) as a die, and noise makes faint patterns of three or four spots.
SMALL_SIDE_PX = 14.0
SMALL_MIN_PIPS = 3
SMALL_MIN_CONFIDENCE = 0.55  # the faint patterns noise makes (synthetic noisy grounds) reached 0.51
_PHANTOM_RATIO = 3.0
_STRAY_ALIKE = 0.5  # a stray pip on a photo's die: at least half the radius of the die's own pips
# A value read on a photo of unknown scale needs its least clear place this far from the pip/face
# cut (pip_lattice.SURE allows 0.24): on the development photos no reading under 0.3 was right
# (a slanted glossy die's glare read as a 2 was at 0.25).
PHOTO_MIN_CONFIDENCE = 0.3
_POLARITIES = {"both": (True, False), "dark": (True,), "bright": (False,)}
# Steps (in pip radii) tried around a lone pip: the pip of a 1 is from a fifth to a twelfth of
# the side (big pips of ring dice to small pips).
_LONE_STEPS = (1.6, 2.0, 2.5, 3.1, 3.9, 4.8)
_LONE_MARGIN = 0.6  # every place of a lone pip's face within 20 % of the pip's contrast of the face
_LONE_SHADE = 0.12  # a 1's face near its pip at most this share of the pip's contrast darker than at its rim
# With a known die size: the margin over the centre and edge-middle places only (the corner
# places are on the rounded rim of a small die), and the die must stand out all round (a 2
# half under a hand shows one pip).
_KNOWN_LONE_MARGIN = 0.5
_KNOWN_LONE_RING = 0.9
# Known scale: pips are read at this radius (px; smaller ones are enlarged to it), from this cut
# of the local contrast; witnesses of stray pips are spots of this share of the least pip contrast,
# from the shallowest cut.
KNOWN_PIP_PX = 3.5
KNOWN_FIRST_CUT = 20.0
WITNESS_CONTRAST = 0.5
WITNESS_FIRST_CUT = 10.0
_LONE_EVEN = 0.2  # the face one step round a 1's pip: no point darker than this share of the pip's contrast
_LONE_REACH = 3.6  # steps: a face's full diagonal (2.83), and a top face seen up to 1.25 times the known step (tuning seed 1131: 3.3)


@dataclass(frozen=True)
class Die:
    value: int | None  # 1..6, or None when the pips do not say it for sure
    box_px: tuple[int, int, int, int]  # x0, y0, x1, y1 of the top face, in the image's pixels
    centre_px: tuple[float, float]
    confidence: float  # 0..1; below about 0.5 the value is None
    side_px: float = 0.0  # side of the top face
    angle_deg: float = 0.0  # direction of a face edge, 0..90
    pips: int = 0  # lattice places that read as pips (the value, when there is one)
    dark_pips: bool = True  # black pips on a lighter face (False: light pips on a darker face)

    def as_dict(self) -> dict:
        return {"value": self.value, "box_px": list(self.box_px),
                "centre_px": [round(self.centre_px[0], 1), round(self.centre_px[1], 1)],
                "confidence": round(self.confidence, 2)}


class FrameGrey:
    """The grey of a frame, made part by part as the reading asks for it: a camera frame read
    only round its play area need not be made grey (and blanked) whole. `prepare(grey, origin)`
    changes a part just made grey in place (Enigmo blanks the markers and the shutter box);
    `origin` is the part's top-left corner in the frame. A box inside the part made last is cut
    from it, so the windows read in a part see the same pixels as the part."""

    def __init__(self, image: np.ndarray, prepare=None) -> None:
        self.image = image
        self.shape = image.shape[:2]
        self._prepare = prepare
        self._made: tuple[tuple[int, int, int, int], np.ndarray] | None = None

    def part(self, box: tuple[int, int, int, int]) -> np.ndarray:
        """The grey of the frame's box (x0, y0, x1, y1), clipped to the frame."""
        h, w = self.shape
        x0, y0, x1, y1 = max(0, box[0]), max(0, box[1]), min(w, box[2]), min(h, box[3])
        if self._made is not None:
            (a0, b0, a1, b1), made = self._made
            if a0 <= x0 and b0 <= y0 and x1 <= a1 and y1 <= b1:
                return made[y0 - b0:y1 - b0, x0 - a0:x1 - a0]
            if x0 <= a0 and y0 <= b0 and a1 <= x1 and b1 <= y1:
                # a part grown round the last one: only the bands round it are made
                grey = np.empty((y1 - y0, x1 - x0), np.uint8)
                grey[b0 - y0:b1 - y0, a0 - x0:a1 - x0] = made
                for band in ((x0, y0, x1, b0), (x0, b1, x1, y1), (x0, b0, a0, b1), (a1, b0, x1, b1)):
                    if band[2] > band[0] and band[3] > band[1]:
                        grey[band[1] - y0:band[3] - y0, band[0] - x0:band[2] - x0] = self._made_grey(band)
                self._made = ((x0, y0, x1, y1), grey)
                return grey
        grey = self._made_grey((x0, y0, x1, y1))
        self._made = ((x0, y0, x1, y1), grey)
        return grey

    def _made_grey(self, box: tuple[int, int, int, int]) -> np.ndarray:
        x0, y0, x1, y1 = box
        grey = to_grey(self.image[y0:y1, x0:x1])
        if self._prepare is not None:
            if np.may_share_memory(grey, self.image):  # a grey frame: its own pixels stay as they are
                grey = grey.copy()
            self._prepare(grey, (x0, y0))
        return grey


def read_dice(image: np.ndarray, pip_radius_px: float | None = None, pips: str = "both",
              min_contrast: float = MIN_CONTRAST, square_pixels: bool = False,
              roi: tuple[int, int, int, int] | None = None) -> list[Die]:
    """Every die found in a BGR or grey photo, top face read from its pips.

    `pip_radius_px`: when the scale is known (a camera over a table), only pips of about that
    radius are looked for, and only around dark (or bright) spots found on a half-size copy, so
    a large frame costs a few milliseconds. Otherwise pips of 1 to 40 px radius are looked for.
    `pips`: "dark" (black pips on a light die), "bright" or "both". `min_contrast`: the weakest
    pip against its face, in grey levels. Photos whose pixels may not be square (stretched by some
    publisher) are also read un-stretched by the usual ratios, unless `square_pixels`.
    `roi` (x0, y0, x1, y1; known scale only): only the dice whose windows reach into this box are
    read, as reading the whole image reads them (a camera over a table: the play area). `image`
    may also be a `FrameGrey` (known scale only): then only the parts read are made grey.
    """
    parts = image if isinstance(image, FrameGrey) else FrameGrey(check_frame(image))
    if min(parts.shape) < 16:
        raise UserError(f"the image is too small ({parts.shape[1]}x{parts.shape[0]} px) to hold a die.")
    if pips not in _POLARITIES:
        raise UserError(f"pips must be one of {', '.join(_POLARITIES)}, not {pips!r}.")
    polarities = _POLARITIES[pips]
    if pip_radius_px is not None:
        if not (isinstance(pip_radius_px, (int, float)) and 0.5 <= pip_radius_px <= 100):
            raise UserError(f"the pip radius must be 0.5 to 100 pixels, not {pip_radius_px}.")
        return _read_known_scale(parts, float(pip_radius_px), polarities, min_contrast, roi)
    if isinstance(image, FrameGrey):
        raise UserError("a frame read part by part needs the pip radius.")
    grey = to_grey(image)
    scales = _scales(grey.shape)
    base = _pyramid(grey, scales, polarities, min_contrast)
    if square_pixels:
        dice = _checked(_read_stretched(grey, 1.0, scales, polarities, min_contrast, base), base)
        return _with_faces_read_whole(grey, dice, polarities, min_contrast)
    # A photo squeezed into a square by its publisher (a 4:3 or 16:9 shot made 640x640) has
    # oval pips and dice. Pips too small to show their shape cannot say by how much, so every
    # usual squeeze is tried and the one under which the dice read best (most pips on dice
    # given a value) is kept; a square-pixel reading gives way only to a clearly better one.
    # The one chosen is then read in full.
    best = choose_stretch(grey, scales, polarities, min_contrast, base)
    if best == 1.0:
        dice = _read_stretched(grey, 1.0, scales, polarities, min_contrast, base)
    else:
        dice = _read_stretched(grey, best, scales, polarities, min_contrast)
    return _with_faces_read_whole(grey, _checked(dice, base), polarities, min_contrast)


def _checked(dice: list[Die], base) -> list[Die]:
    """The photo's readings (after the squeeze is chosen, which they all count for) given no
    value when a place is too close to the pip/face cut (PHOTO_MIN_CONFIDENCE), or when a 1's
    pip is not one plain spot among the pips of the photo as stored (`base`, its pyramid: a
    squeezed copy may not show the spots inside it)."""
    pips = np.array([(p.x / scale, p.y / scale, p.radius / scale, p.dark) for scale, _level, found in base
                     for polarity in found for p in polarity], dtype=np.float64).reshape(-1, 4)
    out = []
    for d in dice:
        if d.value is not None and d.confidence < PHOTO_MIN_CONFIDENCE:
            d = replace(d, value=None, confidence=0.0)
        out.append(_unless_pip_holds_pips(d, pips))
    return out


# --- a face found whole, read at its own scale ------------------------------------------------------
# Small dice whose pips are a pixel or two (dark dice on white paper) are seen by the pip pyramid
# at no scale that suits them, and their pips do not pair into a lattice that passes. A die's top
# face is also a region of one grey with a border against the table (a maximally stable region):
# its size gives the pip size, and the face is then read as Enigmo reads a die of known size
# (`_read_known_scale`: the window enlarged so a pip is 3.5 px, the 1's extra checks, witnesses
# of stray pips). Only where the pip-first reading left no die.
FACE_SIDE_PX = (12, 250)  # side of a face region looked at (px of the photo)
_FACE_FILL = 0.75  # the region's hull over its turned bounding box: a square fills it, a blob of dice does not
_FACE_ASPECT = 1.4  # a face seen at a slant, no more
_PIP_PER_SIDE = 0.1  # a standard die's pip radius is about a tenth of its side


def face_regions(grey: np.ndarray) -> list[tuple[float, float, float]]:
    """(x, y, side) of regions of one grey shaped like a die's face, smallest first, one per place
    (MSER finds the same face at several levels)."""
    lo, hi = FACE_SIDE_PX
    mser = cv2.MSER_create(delta=5, min_area=int(lo * lo * 0.6), max_area=int(hi * hi), max_variation=0.5)
    regions, _ = mser.detectRegions(grey)
    found = []
    for region in regions:
        points = region.reshape(-1, 1, 2)
        (cx, cy), (w, h), _a = cv2.minAreaRect(points.astype(np.float32))
        if min(w, h) < lo or max(w, h) > _FACE_ASPECT * min(w, h):
            continue
        if cv2.contourArea(cv2.convexHull(points)) < _FACE_FILL * w * h:
            continue
        found.append((float(cx), float(cy), float(math.sqrt(w * h))))
    found.sort(key=lambda f: f[2])
    kept: list[tuple[float, float, float]] = []
    for f in found:
        if not any(math.dist(f[:2], k[:2]) < 0.3 * min(f[2], k[2]) and abs(math.log(f[2] / k[2])) < 0.15
                   for k in kept):
            kept.append(f)
    return kept


def _read_face(grey: np.ndarray, cx: float, cy: float, side: float, polarities: tuple[bool, ...],
               min_contrast: float) -> Die | None:
    """The die read at a known size in a window round a face region, the reading nearest its
    centre (within a third of a side), in the photo's pixels; None when nothing is read there."""
    h, w = grey.shape
    m = 1.3 * side
    x0, y0 = int(max(0, cx - m)), int(max(0, cy - m))
    x1, y1 = int(min(w, cx + m)), int(min(h, cy + m))
    if min(x1 - x0, y1 - y0) < 16:
        return None
    best = None
    for d in _read_known_scale(FrameGrey(grey[y0:y1, x0:x1]), _PIP_PER_SIDE * side, polarities, min_contrast):
        centre = (d.centre_px[0] + x0, d.centre_px[1] + y0)
        off = math.dist(centre, (cx, cy))
        if off < 0.35 * side and (best is None or off < best[0]):
            b = d.box_px
            best = (off, replace(d, centre_px=centre, box_px=(b[0] + x0, b[1] + y0, b[2] + x0, b[3] + y0)))
    return None if best is None else best[1]


def _with_faces_read_whole(grey: np.ndarray, dice: list[Die], polarities: tuple[bool, ...],
                           min_contrast: float) -> list[Die]:
    """`dice` plus the dice read on face regions where none of them lies (with a value only:
    an unread face adds nothing a player could use)."""
    out = list(dice)
    for cx, cy, side in face_regions(grey):
        if any(math.dist((cx, cy), d.centre_px) < 0.5 * max(side, d.side_px) for d in out):
            continue
        die = _read_face(grey, cx, cy, side, polarities, min_contrast)
        if die is not None and die.value is not None:
            out.append(die)
    return sorted(out, key=lambda d: (d.centre_px[1], d.centre_px[0]))


def choose_stretch(grey: np.ndarray, scales: list[float], polarities: tuple[bool, ...], min_contrast: float,
                   base) -> float:
    """The squeeze under which a photo's dice read best (1.0: square pixels). The squeezes are
    compared without the doubled level (three quarters of the work), which only adds pips under
    1.6 px; `base` is the square-pixel pyramid (`_pyramid`)."""
    coarse = [s for s in scales if s <= 1]
    plain = _score(_read_stretched(grey, 1.0, coarse, polarities, min_contrast, [lv for lv in base if lv[0] <= 1]))
    best, best_score = 1.0, plain
    guess = _stretch(base)
    tries = list(_STRETCHES) + ([guess] if min(abs(math.log(guess / s)) for s in _STRETCHES) > 0.12 else [])
    for stretch in tries:
        score = _score(_read_stretched(grey, stretch, coarse, polarities, min_contrast))
        if score > max(best_score, plain * _CLEARLY_BETTER + 1):
            best, best_score = stretch, score
    return best


# Squeezes tried on a photo of unknown origin: how much wider than tall round things look when
# a 16:9 or 4:3 shot (either way up) is stored as a square, and the like.
_STRETCHES = (1 / 1.78, 1 / 1.33, 1.33, 1.78)
_CLEARLY_BETTER = 1.15  # a squeeze wins over square pixels only with this many more pips read (and one more)


def _score(dice: list[Die]) -> int:
    # the squeeze is judged on dice of MIN_SIDE_PX and more: the few pips of the smaller ones
    # (read only in threes or more) would tip it on photos of many tiny dice
    return sum(d.pips for d in dice if d.value is not None and d.side_px >= MIN_SIDE_PX)


def _squeezed(plane: np.ndarray, stretch: float) -> np.ndarray:
    h, w = plane.shape
    if stretch > 1:
        return cv2.resize(plane, (max(16, int(round(w / stretch))), h), interpolation=cv2.INTER_AREA)
    if stretch < 1:
        return cv2.resize(plane, (w, max(16, int(round(h * stretch)))), interpolation=cv2.INTER_AREA)
    return plane


def _read_stretched(grey: np.ndarray, stretch: float, scales: list[float], polarities: tuple[bool, ...],
                    min_contrast: float, levels=None) -> list[Die]:
    """The dice of a photo whose round things look `stretch` times wider than tall: read on a
    copy squeezed back to square pixels (by narrowing it, or lowering it when stretch < 1)."""
    h, w = grey.shape
    work = _squeezed(grey, stretch)
    if levels is None:
        levels = _pyramid(work, scales, polarities, min_contrast)
    dice: list[Die] = []
    all_pips: list[tuple[float, float, float, bool]] = []  # x, y, radius (px of the squeezed copy), dark
    for scale, level, found in levels:
        for polarity in found:
            all_pips.extend((p.x / scale, p.y / scale, p.radius / scale, p.dark) for p in polarity)
            for die in _read_level(level, polarity):
                dice.append(_to_full(die, scale, 1.0))
    # below this a photo holds too few pixels per pip to tell a die from a speckled carpet
    kept = _suppress([d for d in dice if _big_enough(d)])
    kept = [_unless_stray_pips(d, all_pips, _STRAY_ALIKE) for d in kept]
    fx, fy = w / work.shape[1], h / work.shape[0]
    if fx == 1 and fy == 1:
        return kept
    return [_to_image(d, fx, fy) for d in kept]


def _big_enough(die: Die) -> bool:
    """Whether a reading is big enough to be a die on a photo of unknown scale (see SMALL_SIDE_PX)."""
    return die.side_px >= MIN_SIDE_PX or (die.side_px >= SMALL_SIDE_PX and die.pips >= SMALL_MIN_PIPS
                                           and die.confidence >= SMALL_MIN_CONFIDENCE)


def _to_image(die: Die, fx: float, fy: float) -> Die:
    x0, y0, x1, y1 = die.box_px
    return replace(die, box_px=(int(x0 * fx), int(y0 * fy), int(math.ceil(x1 * fx)), int(math.ceil(y1 * fy))),
                   centre_px=(die.centre_px[0] * fx, die.centre_px[1] * fy))


def _unless_stray_pips(die: Die, pips: list[tuple[float, float, float, bool]], alike_share: float = 0.0) -> Die:
    """The die with its value withdrawn when a pip seen at any scale lies on its face off the
    places its value puts pips on (a face read at one scale as a 1 may show four pips at another).
    `alike_share`: a spot off the places counts only when its radius is at least this share of the
    die's own pips' (those found on its places, median): the pips of one die are alike, while
    glare on a glossy face, or on the dark disc of a ringed die, makes specks a third their size."""
    if die.value is None or not pips:
        return die
    arr = np.array([p for p in pips if p[3] == die.dark_pips])
    if len(arr) == 0:
        return die
    step = die.side_px / SIDE_PER_STEP
    t = math.radians(die.angle_deg)
    rel = arr[:, :2] - np.array(die.centre_px)
    a = (rel[:, 0] * math.cos(t) + rel[:, 1] * math.sin(t)) / step
    b = (-rel[:, 0] * math.sin(t) + rel[:, 1] * math.cos(t)) / step
    alike = (arr[:, 2] >= 0.15 * step) & (arr[:, 2] <= 0.7 * step)
    on_face = alike & (np.maximum(np.abs(a), np.abs(b)) <= 1.6)
    if not on_face.any():
        return die
    places = np.array(LAYOUT_PLACES[die.value], dtype=np.float64)
    # a layout's places, turned by any quarter turn (the die's angle is known modulo 90 degrees)
    turned = np.vstack([places, places[:, ::-1] * np.array([-1, 1])])
    d = np.min(np.hypot(a[on_face, None] - turned[None, :, 0], b[on_face, None] - turned[None, :, 1]), axis=1)
    stray = d > 0.5
    if alike_share > 0 and stray.any() and not stray.all():
        radii = arr[on_face, 2]
        stray &= radii >= alike_share * float(np.median(radii[~stray]))
    return die if not stray.any() else replace(die, value=None, confidence=0.0)


_HELD_SPOT = 0.4  # a spot inside a 1's "pip", at most this share of its radius: a die's pip, or glare
_HELD_REACH = 0.8  # ... and within this share of its radius from its centre
_PART = (0.25, 0.7)  # a part of a 1's "pip" seen at a finer scale: this share of its radius ...
_PART_OFF = 0.3  # ... centred at least this share of it off the pip's centre (and within its radius)


def _unless_pip_holds_pips(die: Die, pips) -> Die:
    """A 1 loses its value when its pip is not one plain spot: when it holds two or more spots of
    the other polarity (a white die on a dark table read as the light pip of a big dark 1, its
    own dark pips inside it), or two or more smaller spots of its own polarity off its centre
    (two dark dice touching on white paper, seen at a coarse scale as one pip). One spot may be
    glare on a glossy pip, or the pip itself seen at a finer scale. `pips`: (x, y, radius, dark)
    rows, every scale of the image the die is in."""
    if die.value != 1 or len(pips) == 0:
        return die
    arr = np.asarray(pips, dtype=np.float64).reshape(-1, 4)
    step = die.side_px / SIDE_PER_STEP
    dist = np.hypot(arr[:, 0] - die.centre_px[0], arr[:, 1] - die.centre_px[1])
    alike = arr[:, 3] == float(die.dark_pips)
    own = alike & (dist < 0.35 * step)
    if not own.any():
        return die
    radius = float(arr[own, 2].max())
    held = ~alike & (dist < _HELD_REACH * radius) & (arr[:, 2] <= _HELD_SPOT * radius)
    parts = alike & (dist >= _PART_OFF * radius) & (dist < radius) & (arr[:, 2] >= _PART[0] * radius) \
        & (arr[:, 2] <= _PART[1] * radius)
    if _places(arr[held]) >= 2 or _places(arr[parts]) >= 2:
        return replace(die, value=None, confidence=0.0)
    return die


def _places(spots: np.ndarray) -> int:
    """How many places (x, y, radius rows) the spots are at: a spot is found at several scales."""
    places: list[np.ndarray] = []
    for q in spots:
        if not any(math.hypot(q[0] - o[0], q[1] - o[1]) <= max(q[2], o[2]) for o in places):
            places.append(q)
    return len(places)


def _read_known_scale(parts: FrameGrey, radius: float, polarities: tuple[bool, ...],
                      min_contrast: float, roi: tuple[int, int, int, int] | None = None) -> list[Die]:
    """Dice whose pips are about `radius` px: windows around candidate pips, read one by one.

    Each window is read enlarged so that a pip is about 3.5 px in radius: a blurred pip of 2 px
    (a 16 mm die seen at 1.3 px/mm) is a blob of a few pixels, which the pip finder's round-spot
    tests cannot judge, and only a shallow cut (`KNOWN_FIRST_CUT`) of the local contrast shows it
    whole. Faint spots found at a still shallower cut are the witnesses of `_unless_stray_pips`:
    a reading that leaves one on its face off its places (part of a bigger face whose other
    pips are faint) is given no value, and a 1 is checked harder (`_lone_unless_neighbours`,
    `_lone_on_even_face`). Readings closer than a die are one die (`_one_per_die`). With a `roi`
    only the windows reaching into it are read (`_windows_in`)."""
    scale = 1.0 if KNOWN_PIP_PX <= radius <= 5.5 else KNOWN_PIP_PX / radius
    side = radius / 0.1  # a die's side is about ten pip radii
    dice: list[Die] = []
    for dark in polarities:
        for x0, y0, x1, y1 in _windows_in(parts, radius, dark, min_contrast, side, roi):
            level = _resize(parts.part((x0, y0, x1, y1)), scale)
            # with a known scale only readings of the right size count, so the pip finder may
            # let in pips that touch a die's shaded rim
            local = local_contrast(level, dark)
            found = find_pips(level, dark, min_contrast=min_contrast, ring_floor=0.15, ring_share=0.3,
                              first_cut=KNOWN_FIRST_CUT, local=local)
            read = _read_level(level, found, rim=False, step=0.27 * side * scale)
            # the witnesses only ever take a value away: readings with none need no witness
            if any(d.value is not None for d in read):
                faint = find_pips(level, dark, min_contrast=min_contrast * WITNESS_CONTRAST, ring_floor=0.05,
                                  ring_share=0.15, first_cut=WITNESS_FIRST_CUT, local=local)
                witnesses = [(p.x, p.y, p.radius, p.dark) for p in faint]
                read = [_unless_stray_pips(d, witnesses) for d in read]
                # a 1's checks reach by the die's known step at least: a lone pip's lattice may
                # be fitted smaller (the face's blurred rim), which leaves the other pip of a
                # 2 and the rim beside a corner pip out of reach (tuning seed 1131)
                known_step = 0.27 * side * scale
                read = [_lone_unless_neighbours(d, witnesses, known_step) for d in read]
                read = [_lone_on_even_face(level, d, known_step) for d in read]
            for die in read:
                d = _to_full(die, scale, 1.0)
                cx, cy = d.centre_px
                b = d.box_px
                dice.append(replace(d, centre_px=(cx + x0, cy + y0), box_px=(b[0] + x0, b[1] + y0, b[2] + x0, b[3] + y0)))
    return _one_per_die(_suppress(dice), side)


def _lone_unless_neighbours(die: Die, pips: list[tuple[float, float, float, bool]],
                            known_step: float = 0.0) -> Die:
    """A 1 of known size loses its value when a spot like a pip lies within reach of another pip
    of the same die (up to the full diagonal of a face, 2.83 steps): a 2 or 3 whose other pips the
    pip finder missed (at the die's shaded rim, half under a finger) shows one clear pip."""
    if die.value != 1 or not pips:
        return die
    step = max(die.side_px / SIDE_PER_STEP, known_step)
    for x, y, r, dark in pips:
        d = math.hypot(x - die.centre_px[0], y - die.centre_px[1])
        if dark == die.dark_pips and 0.6 * step <= d <= _LONE_REACH * step and 0.15 * step <= r <= 0.7 * step:
            return replace(die, value=None, confidence=0.0)
    return die


def _lone_on_even_face(level: np.ndarray, die: Die, known_step: float = 0.0) -> Die:
    """A 1 of known size keeps its value only when the face is even all round its pip, one step
    out (inside the flat top of any die): the corner pip of a 2 or 3 whose other pips were not
    found has the die's rim and the table that close on its outer side."""
    if die.value != 1:
        return die
    step = max(die.side_px / SIDE_PER_STEP, known_step)
    t = np.linspace(0, 2 * np.pi, 16, endpoint=False)
    xs = np.clip(np.rint(die.centre_px[0] + step * np.cos(t)).astype(int), 0, level.shape[1] - 1)
    ys = np.clip(np.rint(die.centre_px[1] + step * np.sin(t)).astype(int), 0, level.shape[0] - 1)
    cx = int(np.clip(round(die.centre_px[0]), 0, level.shape[1] - 1))
    cy = int(np.clip(round(die.centre_px[1]), 0, level.shape[0] - 1))
    # the 3x3 mean at these points only: the box round them and a pixel more (the level's own
    # edges where it reaches them) blurs to the same values there
    x0, y0 = max(0, min(int(xs.min()), cx) - 1), max(0, min(int(ys.min()), cy) - 1)
    x1, y1 = min(level.shape[1], max(int(xs.max()), cx) + 2), min(level.shape[0], max(int(ys.max()), cy) + 2)
    smooth = cv2.blur(level[y0:y1, x0:x1], (3, 3)).astype(np.float64)
    xs, ys, cx, cy = xs - x0, ys - y0, cx - x0, cy - y0
    ring = smooth[ys, xs]
    face = float(np.median(ring))
    contrast = (face - smooth[cy, cx]) if die.dark_pips else (smooth[cy, cx] - face)
    off = (face - ring) if die.dark_pips else (ring - face)
    if contrast <= 0 or float(off.max()) > _LONE_EVEN * contrast:
        return replace(die, value=None, confidence=0.0)
    return die


def _one_per_die(dice: list[Die], side: float) -> list[Die]:
    """Readings closer than a die's side are parts of one die (two dice cannot overlap): a
    blurred 5 whose pips run together reads as two 1s. The one with the most pips stays, with
    no value: which reading is right cannot be told."""
    order = sorted(dice, key=lambda d: (d.pips, d.confidence), reverse=True)
    kept: list[Die] = []
    for d in order:
        near = [k for k, other in enumerate(kept) if math.dist(d.centre_px, other.centre_px) < 0.9 * side]
        if near:
            kept[near[0]] = replace(kept[near[0]], value=None, confidence=0.0)
            continue
        kept.append(d)
    return sorted(kept, key=lambda d: (d.centre_px[1], d.centre_px[0]))


# A window whose box comes this close (in dice sides) to an edge of the part of the image its
# windows were found on may be cut there, or lack a spot the whole image has beyond that edge:
# windows span two cells (a die's side) round their spots, cells are half a side, and the
# half-size copy's local mean reaches a quarter of a side.
_WINDOW_EDGE_SIDES = 2.5


def _windows_in(parts: FrameGrey, radius: float, dark: bool, min_contrast: float, side: float,
                roi: tuple[int, int, int, int] | None) -> list[tuple[int, int, int, int]]:
    """The windows `_windows` finds on the whole image that reach into `roi`, found on `roi` only:
    where one of them comes near an edge of the part looked at (not the image's own), that part
    is grown to the image's edge on that side and looked at again (growing by a few dice at a
    time took more rounds: the spots near the play area run on, a hand, the table's edge)."""
    h, w = parts.shape
    if roi is None:
        return _windows(parts.part((0, 0, w, h)), radius, dark, min_contrast, side)
    rx0, ry0, rx1, ry1 = (int(v) for v in roi)
    # the half-size copy must pair the image's own pixels: an even origin and size
    x0, y0 = max(0, rx0) & ~1, max(0, ry0) & ~1
    x1, y1 = min(w, x0 + ((max(rx1, x0) - x0 + 1) & ~1)), min(h, y0 + ((max(ry1, y0) - y0 + 1) & ~1))
    near = _WINDOW_EDGE_SIDES * side
    while True:
        found = [b for b in _windows(parts.part((x0, y0, x1, y1)), radius, dark, min_contrast, side, (x0, y0))
                 if b[0] < rx1 and b[2] > rx0 and b[1] < ry1 and b[3] > ry0]
        grow = (x0 > 0 and any(b[0] - x0 < near for b in found), y0 > 0 and any(b[1] - y0 < near for b in found),
                x1 < w and any(x1 - b[2] < near for b in found), y1 < h and any(y1 - b[3] < near for b in found))
        if not any(grow):
            return found
        x0, y0 = (0 if grow[0] else x0), (0 if grow[1] else y0)
        x1, y1 = (w if grow[2] else x1), (h if grow[3] else y1)


def _windows(grey: np.ndarray, radius: float, dark: bool, min_contrast: float,
             side: float, origin: tuple[int, int] = (0, 0)) -> list[tuple[int, int, int, int]]:
    """Image windows (x0, y0, x1, y1) around every pip-like spot of a half-size copy, merged where
    they overlap; each spans a die and more around each spot. `grey` may be a part of a bigger
    image, at `origin` (even) in it: the windows are then in that image's pixels, laid on its grid."""
    small = cv2.resize(grey, (max(1, grey.shape[1] // 2), max(1, grey.shape[0] // 2)), interpolation=cv2.INTER_AREA)
    k = int(round(radius * 2.5)) | 1
    mean = cv2.blur(small, (k, k))
    diff = cv2.subtract(mean, small) if dark else cv2.subtract(small, mean)
    # a pip is a spot against its local mean, and has the face's full brightness close by
    # (wood grain and cloth weave are spots of the first kind only)
    near = max(3, int(round(radius * 1.5)) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (near, near))
    reach = cv2.subtract(cv2.dilate(small, kernel), small) if dark else cv2.subtract(small, cv2.erode(small, kernel))
    # (OpenCV's thresholds: for whole grey levels "> t" is "> floor(t)", as numpy's comparison)
    mask = cv2.bitwise_and(cv2.threshold(diff, min_contrast * 0.4, 1, cv2.THRESH_BINARY)[1],
                           cv2.threshold(reach, min_contrast, 1, cv2.THRESH_BINARY)[1])
    found = cv2.findNonZero(mask)
    if found is None:
        return []
    ox, oy = origin
    spots = found.reshape(-1, 2).astype(np.float64) * 2 + 1 + np.array([ox, oy], dtype=np.float64)
    # mark a coarse occupancy grid (cells of half a die) and take its connected parts as windows
    cell = max(2.0, side / 2)
    h, w = grey.shape[0] + oy, grey.shape[1] + ox  # the far edges, in the image's pixels
    gh, gw = int(math.ceil(h / cell)) + 1, int(math.ceil(w / cell)) + 1
    occupied = np.zeros((gh, gw), np.uint8)
    gx = np.clip((spots[:, 0] / cell).astype(int), 0, gw - 1)
    gy = np.clip((spots[:, 1] / cell).astype(int), 0, gh - 1)
    occupied[gy, gx] = 1
    occupied = cv2.dilate(occupied, np.ones((5, 5), np.uint8))  # two cells = a die each way
    m, _, boxes, _ = cv2.connectedComponentsWithStats(occupied, connectivity=8)
    out = []
    for bx, by, bw, bh, _a in boxes[1:m]:
        x0, y0 = max(int(bx * cell), ox), max(int(by * cell), oy)
        x1, y1 = min(int((bx + bw) * cell), w), min(int((by + bh) * cell), h)
        if x1 - x0 >= 8 and y1 - y0 >= 8:
            out.append((x0, y0, x1, y1))
    return out


def _scales(shape: tuple[int, int]) -> list[float]:
    scales = []
    s = 2.0
    while min(shape) * s >= 48:
        scales.append(s)
        s /= 2
    return scales


def _resize(grey: np.ndarray, scale: float) -> np.ndarray:
    if abs(scale - 1.0) < 1e-6:
        return grey
    size = (max(1, int(round(grey.shape[1] * scale))), max(1, int(round(grey.shape[0] * scale))))
    return cv2.resize(grey, size, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)


def _pyramid(grey: np.ndarray, scales: list[float], polarities: tuple[bool, ...],
             min_contrast: float) -> list[tuple[float, np.ndarray, tuple[list[Pip], ...]]]:
    out = []
    for scale in scales:
        level = _resize(grey, scale)
        out.append((scale, level, tuple(find_pips(level, dark, min_contrast=min_contrast) for dark in polarities)))
    return out


def _stretch(levels) -> float:
    """How much wider than tall round pips look: 1.0 for a normal photo; a photo squeezed into
    a square by its publisher shows every pip as the same ellipse."""
    ratios, weights = [], []
    for _scale, _level, pips in levels:
        for p in [p for found in pips for p in found]:
            if p.radius >= 2.5:
                ratios.append(math.log(p.elongation))
                weights.append(p.contrast)
    if len(ratios) < 3:
        return 1.0
    order = np.argsort(ratios)
    cum = np.cumsum(np.asarray(weights)[order])
    median = float(np.asarray(ratios)[order][np.searchsorted(cum, cum[-1] / 2)])
    return float(math.exp(median)) if abs(median) > math.log(1.15) else 1.0


# --- one pyramid level ---------------------------------------------------------------------------
def _read_level(grey: np.ndarray, pips: list[Pip], rim: bool = True, step: float | None = None) -> list[Die]:
    """Dice read from one pyramid level's pips of one polarity. `step`: the expected lattice
    step (px) when the dice's size is known; readings far from it are not dice."""
    if not pips:
        return []
    dark = pips[0].dark
    square = pair_hypotheses(pips)
    readings = check(grey, dark, Lattices.join([square, refine(square, pips, grey.shape)]), pips, rim)
    if step is not None:
        readings = [r for r in readings if 0.7 * step <= r.step <= 1.4 * step]
    chosen = choose(readings)
    # A lone pip proposes no pair. It may be a 1 of any size: try lattices of several steps
    # (the check is nearly blind to the face's turn) and let the face's edge pick the step.
    lone = [p for p in pips
            if not any(math.hypot(p.x - r.centre[0], p.y - r.centre[1]) < 2.6 * r.step for r in chosen)]
    if lone:
        extra = check(grey, dark, lone_hypotheses(lone, step), pips, rim)
        # a lone pip is a 1 only on a face that is clearly face all around it: a corner pip of a
        # bigger face, taken for a 1, has places off its die, on a table only a little darker
        # and the face of a 1 is no darker (for a dark pip) near the pip than at its rim: a small
        # dark die on light paper, taken for the pip of a big 1, has its own blurred edge as
        # "face" close to it and paper further out
        # With a known size a small dark die cannot pass for a big 1's pip, and the places at a
        # die's rounded rim are shaded: neither the shade test nor the full margin applies.
        if step is None:
            lone_ok = [r for r in extra if r.margin >= _LONE_MARGIN and r.shade <= _LONE_SHADE]
        else:
            lone_ok = [r for r in extra if r.inner_margin >= _KNOWN_LONE_MARGIN and r.ring >= _KNOWN_LONE_RING]
        chosen = choose(chosen + [r for r in lone_ok if r.value in (1, None) and r.pips == 1 and r.ring >= 0.75])
    return [_die(r, dark) for r in chosen]


def lone_hypotheses(lone: list[Pip], step: float | None = None) -> Lattices:
    """Lattices of several steps centred on each lone pip (the pip of a 1 of any size; with a
    known `step`, of about that one)."""
    tries = np.array(_LONE_STEPS) if step is None else np.array([0.85, 1.0, 1.15]) * step
    n, m = len(lone), len(tries)
    centres = np.repeat(np.array([(p.x, p.y) for p in lone]), m, axis=0)
    if step is None:
        steps = (np.array([p.radius for p in lone])[:, None] * tries[None, :]).ravel()
    else:
        steps = np.tile(tries, n)
    u = np.column_stack([steps, np.zeros(n * m)])
    v = np.column_stack([np.zeros(n * m), steps])
    return Lattices(centres, u, v, np.repeat([p.face for p in lone], m).astype(float),
                    np.repeat([p.contrast for p in lone], m).astype(float),
                    np.repeat([p.radius for p in lone], m).astype(float))


def _die(r: Reading, dark: bool) -> Die:
    c, u, v = np.array(r.centre), np.array(r.u), np.array(r.v)
    corners = np.array([c + (sx * u + sy * v) * SIDE_PER_STEP / 2 for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
    x0, y0 = corners.min(axis=0)
    x1, y1 = corners.max(axis=0)
    confidence = r.margin if r.value is not None else 0.0
    angle = math.degrees(math.atan2(u[1], u[0])) % 90
    return Die(r.value, (int(x0), int(y0), int(math.ceil(x1)), int(math.ceil(y1))), (float(c[0]), float(c[1])),
               float(confidence), float(r.step * SIDE_PER_STEP), angle, r.pips, dark)


def _to_full(die: Die, scale: float, sx: float) -> Die:
    x0, y0, x1, y1 = die.box_px
    box = (int(x0 / scale * sx), int(y0 / scale), int(math.ceil(x1 / scale * sx)), int(math.ceil(y1 / scale)))
    return replace(die, box_px=box, centre_px=(die.centre_px[0] / scale * sx, die.centre_px[1] / scale),
                   side_px=die.side_px / scale)


def _suppress(dice: list[Die]) -> list[Die]:
    """One die per place. Of overlapping readings the one that accounts for the most pips wins
    (a 6 over the 3 its one row could pass for, and a die left unread over a 1 made of one of
    its pips); then a read value, then the surest."""
    order = sorted(dice, key=lambda d: (d.pips, d.value is not None, d.confidence), reverse=True)
    kept: list[Die] = []
    for d in order:
        if any(math.dist(d.centre_px, k.centre_px) < 0.75 * max(d.side_px, k.side_px) and not _inside_phantom(d, k)
               for k in kept):
            continue
        kept.append(d)
    return sorted(kept, key=lambda d: (d.centre_px[1], d.centre_px[0]))


def _inside_phantom(small: Die, big: Die) -> bool:
    """A die read with two or more pips inside an unread "die" over three times its size: the
    unread one is a lattice made of several small dice (each taken for a pip), not a die whose
    pips were read as a die (those readings are about the big die's own size)."""
    return (big.value is None and small.value is not None and small.pips >= 2
            and big.side_px > _PHANTOM_RATIO * small.side_px)
