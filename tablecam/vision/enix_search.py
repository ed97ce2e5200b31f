"""The ENIX table at a glance: every pixel of the coarse top-down image named after the colour that
explains it best, and the pieces' outlines cut from that map.

The classes are the six taught energy colours, the table itself (its median colour in this
frame: wood, cloth and laminate take any colour, so the table is a class, not a threshold), the
print's white, the cap's black, the ENIX card's grey and the card back. Each is compared with
the shading and glare model of piece_colours.py, its gain kept within a range that still tells
white from grey from black.

Tiles are the energy colours' hexagon-sized blobs once their rays are bridged; cards are the
rectangles of a card's size: an energy colour or the ENIX grey inside a white border (face up),
or the back's colour (face down).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from .piece_colours import fit_residuals

# Model colours of enix.md (sRGB): the print white, the cap, ENIX cards, card backs.
WHITE_BGR = (244, 242, 240)
BLACK_BGR = (26, 24, 24)
ENIX_CARD_BGR = (0x40, 0x3C, 0x3C)
CARD_BACK_BGR = (0x3A, 0x2E, 0x2A)
NEUTRALS = ("table", "white", "black", "enix", "back")
BRIGHTEST = 4.0  # no cap worth the name: flat tiles and cards under a bright exposure go far past paper white
K_RANGE = (0.3, 6.0)  # shading gains: wide enough for shadows, narrow enough to keep white, grey and black apart
TABLE_K_RANGE = (0.45, 1.6)  # the table's own shades: a shadow darkens it, nothing lights it far brighter
MAX_RESIDUAL = 0.35
W_MAX_GLOSSY = 0.6  # as piece_colours.W_MAX
SHADE_BAND = 0.05  # of the table's pixels, either side of a shade's brightness quantile, averaged into it
TABLE_PREFERENCE = 0.04  # residual by which an energy or the ENIX grey must beat the table's

CARD_MM = (58.0, 89.0)  # enix.md (model)
CARD_BORDER_MM = 2.5  # the white border of a card's face
CARD_TOLERANCE_MM = (9.0, 14.0)  # a blob may be this much smaller / larger than a card: blur, a corner
# hidden / a stack's shadow and edges, which look like its back
MIN_CARD_FILL = 0.6  # of its bounding box
MIN_KIND_SHARE = 0.45  # of a card's middle in one kind, to name the card after it
DENSITY_MM = 10.0  # a card's label is judged by its share over squares of this side...
# ... smaller for the energy faces: their white caption band leaves strips of colour only 4.5 mm
# wide at its ends, which a larger square thins away, cutting the face in two
FACE_DENSITY_MM = 6.0
DENSITY = 0.45  # ... which must reach this
ROW_GAP_MM = 10.0  # between cards laid side by side
CAPTION_GAP_MM = 18.0  # closes the caption band (14 mm) between a face's two pieces
ROW_TILT_MM = 6.0  # a row of faces is this much deeper than one: each is turned its own way
CAPTION_MM = 14.0  # the caption band's height...
CAPTION_AT_MM = 27.0  # ... and its middle, below the face's centre (enix.md model)
# The face's colour above its caption band: from the top border to the band.
UPPER_MM = CARD_MM[1] / 2 + CAPTION_AT_MM - CAPTION_MM / 2 - CARD_BORDER_MM
UPPER_SHIFT_MM = CARD_MM[1] / 2 - CARD_BORDER_MM - UPPER_MM / 2  # from that part's middle to the face's
UPPER_TOLERANCE_MM = 6.0  # (a blob of that part is measured to a few mm: the map's pixel is 2 mm)
CAPTION_WHITE = 0.3  # of the band's box beyond the part's end, in the print's white
HEAD_MM = 26.0  # the goblin's head on an ENIX face (enix.md model): a green disc...
HEAD_AT_MM = 6.0  # ... this far below the face's centre
HEAD_AREA = (0.4, 1.8)  # a head's blob may be this share of the disc's area: blur, the eyes
FRAME_SHARE = 0.3  # of a face's outline that must be the print's white around a head...
# ... or this much, when the raw frame shows the face's white border as well as the head (a dark
# cloth's noise takes the thin border's label in places: 0.24-0.29 on ENIX faces of 5000-5899)
FAINT_FRAME_SHARE = 0.2
# Backs on a cloth of nearly their colour: the back's label takes only 40-70 % of their pixels,
# speckled, and no 10 mm square is dense enough. They are sought again where it is dense over
# larger squares, and named backs when that much of the card's middle is the back's.
FAINT_DENSITY_MM = 14.0
FAINT_DENSITY = 0.25
# (Card-sized, the back's share of the table away from the cards stays under 0.27 on 896 of the
# frames of 5000-5899, the missed backs show 0.43-0.72; 0.41-0.92 on four frames, under a hand or
# a dark prop, of no card's shape.)
FAINT_SHARE = 0.35
FAINT_GRID = 15  # points each way over the card's middle: a share near FAINT_SHARE is measured, not guessed


@dataclass(frozen=True, eq=False)
class ClassMap:
    labels: np.ndarray  # int8 (h, w): index into names, -1 where nothing fits
    names: tuple[str, ...]
    _masks: dict = field(default_factory=dict, init=False, repr=False)

    def mask(self, name: str) -> np.ndarray:
        """uint8 mask of one class (read-only: made once per map, as the seeds, each tile's centre and
        the cards all ask for the same energies' masks)."""
        if name not in self._masks:
            mask = _labelled(self, (self.names.index(name),))
            mask.setflags(write=False)
            self._masks[name] = mask
        return self._masks[name]


@dataclass(frozen=True)
class CardBlob:
    kind: str  # an energy name, "enix", "back", "frame" (a white outline round a head: ENIX if it is green)
    # or "outline" (a fainter one: ENIX if it is green and the raw frame shows the white border), or
    # "head" (a head-sized disc with hardly any outline: centre the disc's, angle 0; enix_cards.py
    # seeks the face's border round it in the raw frame), or "faint" (a back the map hardly tells from
    # the cloth: a back if the raw frame shows its edge)
    centre: tuple[float, float]  # table mm
    angle: float  # direction of the card's long side, degrees in [0, 180)


def class_map(top: np.ndarray, valid: np.ndarray, energy_names: tuple[str, ...], energy_refs: np.ndarray) -> ClassMap:
    tables = table_colours(top, valid)
    # A frame has far fewer distinct colours (at 6 bits a channel) than pixels: each colour present
    # is classified once, and the pixels look their class up.
    key = _colour_keys(top, valid)
    seen = np.zeros(_OUTSIDE + 1, bool)  # (marking each colour seen is cheaper than counting them)
    seen[key] = True
    seen[_OUTSIDE] = False
    present = np.flatnonzero(seen)
    colours = np.stack([(present >> 12) & 63, (present >> 6) & 63, present & 63], axis=1).astype(np.float32) * 4 + 1.5
    first_table = len(energy_names)
    piece_res, piece_cls = _piece_fits(np.asarray(energy_refs, np.float32).reshape(-1, 3), present, colours)
    # The table is lit evenly but for shadows: its shades may only darken or brighten a little. With
    # the pieces' wide gain, dark wood brightened explains an orange card, a green cloth a green one.
    table_res = fit_residuals(colours, tables, k_range=TABLE_K_RANGE, w_max=W_MAX_GLOSSY, brightest=BRIGHTEST)
    table_res = _least_of_columns(table_res)
    # The best of all: a tie goes to the class listed first (the energies before the table's
    # shades, the table's shades before the neutral pieces).
    piece_wins = np.where(piece_cls < first_table, piece_res <= table_res, piece_res < table_res)
    favoured = (piece_cls < first_table) | (piece_cls == first_table + NEUTRALS.index("enix"))
    best_res = np.where(piece_wins, piece_res, table_res)
    best_cls = np.where(piece_wins, piece_cls, first_table)
    cls = np.where(best_res < MAX_RESIDUAL + TABLE_PREFERENCE * (piece_wins & favoured), best_cls, -1)
    lut = np.full(_OUTSIDE + 1, -1, np.int8)  # (outside the search area: nothing fits)
    lut[present] = cls
    return ClassMap(lut[key], tuple(energy_names) + NEUTRALS)


_OUTSIDE = 1 << 18  # the key of pixels outside the search area, past every 6-bit colour's


def _colour_keys(top: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Each pixel's 6-bit colour as one index, blue << 12 | green << 6 | red, and _OUTSIDE where
    not `valid` (a key of its own: no pixel list of the valid ones is needed). Index-sized: numpy
    converts any other to them for each look-up. Built in place with one spare: a fresh map-sized
    array of index size costs more to allocate than to fill."""
    q = top >> 2
    key = q[..., 0].astype(np.intp)
    key <<= 12
    spare = q[..., 1].astype(np.intp)
    spare <<= 6
    key |= spare
    np.copyto(spare, q[..., 2])
    key |= spare
    key[~valid] = _OUTSIDE
    return key


# Per energy palette: each 6-bit colour's best-fitting piece colour, filled in as colours are first
# seen. The pieces' colours do not change from frame to frame (the table's shades do), and a frame
# shows mostly colours an earlier one showed: the companion's frames then fit only the table.
_PIECE_FITS: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}


def _piece_fits(energy_refs: np.ndarray, present: np.ndarray, colours: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For the colours `present` (6-bit keys; `colours` their sRGB BGR): the smallest residual under
    the energies, the print white, black, the ENIX grey and the back (the energies and the ENIX grey
    with TABLE_PREFERENCE added), and its class (an index into the energies + NEUTRALS)."""
    if len(_PIECE_FITS) > 8:
        _PIECE_FITS.clear()  # (a palette is taught once in a while: a few are kept)
    palette = energy_refs.tobytes()
    if palette not in _PIECE_FITS:  # (made once per palette: a megabyte, not to be filled anew each frame)
        _PIECE_FITS[palette] = (np.full(1 << 18, np.nan, np.float32), np.zeros(1 << 18, np.int8))
    res, cls = _PIECE_FITS[palette]
    new = np.isnan(res[present])
    if new.any():
        n = len(energy_refs)
        refs = np.vstack([energy_refs, np.array([WHITE_BGR, BLACK_BGR, ENIX_CARD_BGR, CARD_BACK_BGR], np.float32)])
        # Glossy things (tiles, cards, the cap) reflect the lamp; the matte dark print colours do
        # not, and with white added a dark grey would explain any neutral colour.
        w_max = np.full(len(refs), W_MAX_GLOSSY, np.float32)
        w_max[n:] = 0.0
        fitted = fit_residuals(colours[new], refs, k_range=K_RANGE, w_max=w_max, brightest=BRIGHTEST)
        # Most of the view is table: the energies and the ENIX grey must explain a colour clearly
        # better than the table to take it (dark wood grain is nearly orange, grey cloth nearly the
        # ENIX grey). The back is left free: on a slate cloth it differs by its blue tint alone.
        fitted[:, list(range(n)) + [n + NEUTRALS[1:].index("enix")]] += TABLE_PREFERENCE
        best = np.argmin(fitted, axis=1)
        keys = present[new]
        res[keys] = fitted[np.arange(len(best)), best]
        cls[keys] = np.where(best < n, best, best + 1)  # the neutral pieces come after the table
    return res[present], cls[present]


def table_colours(top: np.ndarray, valid: np.ndarray, shades: int = 3) -> np.ndarray:
    """A few shades of the table (it fills most of the view): wood has light and dark planks and
    grain, cloth has folds. The median colour, then darker and lighter quantiles of what is near it."""
    pix = _rows_at(top, _every_third(top.shape[:2])[valid[::3, ::3]])
    if len(pix) == 0:
        return np.array([[128.0, 128.0, 128.0]], np.float32)
    median = _median_levels(pix)
    # Within 20 levels of the median in every channel: whole levels, so a range of them (the
    # median is a whole or a half level).
    lo = np.clip(np.floor(median - 20.0) + 1.0, 0, 255).astype(np.float64)
    hi = np.clip(np.ceil(median + 20.0) - 1.0, 0, 255).astype(np.float64)
    near = _rows_at(pix, np.flatnonzero(cv2.inRange(pix.reshape(-1, 1, 3), lo, hi))).astype(np.float32)
    if len(near) < 10:
        return median[None]
    # (Channel planes: whole levels, so every sum below is exact in float32 whatever its order - a
    # shade's mean along a plane is near[...].mean(axis=0), which numpy reduces far slower.)
    planes = np.ascontiguousarray(near.T)
    brightness = planes[0] + planes[1] + planes[2]  # (near.sum(axis=1), the same sums: see _least_of_columns)
    order = np.argsort(brightness)
    # Each shade is the mean of the pixels about its brightness quantile, not one pixel: a single
    # noisy pixel can take any tint near the table's, a card back's blue-grey on a slate cloth
    # included, and the table would then explain the backs.
    band = max(1, int(SHADE_BAND * len(order)))
    picks = []
    for q in np.linspace(0.1, 0.9, shades):
        at = int(q * (len(order) - 1))
        picks.append(planes.take(order[max(at - band, 0):at + band + 1], axis=1).mean(axis=1))
    return np.vstack([median[None]] + [np.asarray(p)[None] for p in picks]).astype(np.float32)


def _rows_at(a: np.ndarray, at: np.ndarray) -> np.ndarray:
    """a[at] for an array of colours (rows of 3, or any shape whose last axis is the colour) and
    flat pixel indices `at`: the same rows, in that order, by `take` along the first axis of its
    (pixels, 3) view, which for rows of three costs a third of numpy's fancy (or boolean) indexing."""
    return a.reshape(-1, a.shape[-1]).take(at, axis=0)


@lru_cache(maxsize=4)
def _every_third(shape: tuple[int, int]) -> np.ndarray:
    """Flat indices, into a map of `shape`, of the pixels map[::3, ::3] holds, in its shape (made
    once per map size, read-only)."""
    h, w = shape
    out = np.arange(0, h, 3)[:, None] * w + np.arange(0, w, 3)[None, :]
    out.setflags(write=False)
    return out


def _least_of_columns(a: np.ndarray) -> np.ndarray:
    """a.min(axis=1) of (N, K) for a few columns K: numpy's reduction over so short an axis costs far
    more than the K - 1 elementwise minima (the same values: a minimum is exact)."""
    out = a[:, 0].copy()
    for j in range(1, a.shape[1]):
        np.minimum(out, a[:, j], out=out)
    return out


def _median_levels(pix: np.ndarray) -> np.ndarray:
    """np.median(pix.astype(np.float32), axis=0) of uint8 colours (N, 3), from each channel's counts of
    its 256 levels (no sort): the middle level, or the mean of the two middle ones."""
    n = len(pix)
    out = np.empty(3, np.float32)
    for c in range(3):
        below = np.cumsum(np.bincount(pix[:, c], minlength=256))  # pixels at or below each level
        lo, hi = np.searchsorted(below, [(n - 1) // 2, n // 2], side="right")
        out[c] = (np.float32(lo) + np.float32(hi)) / np.float32(2.0)
    return out


def _labelled(cmap: ClassMap, ids) -> np.ndarray:
    """uint8 mask of the map's pixels labelled one of `ids` (a lookup: far cheaper than np.isin)."""
    return _ids_lut(cmap.labels, ids)


def _ids_lut(labels: np.ndarray, ids) -> np.ndarray:
    """uint8: 1 where the labels (int8) are one of `ids` (np.isin's answer), by comparing the labels
    as uint8 (-1, nothing fits, is 255: never an id) once per run of consecutive ids. numpy's
    comparisons are vectorised: on a whole map one costs a sixth of cv2.LUT's lookup (7 against 46 us),
    and the masks asked for are of one id or of a run (the energies, ENIX grey and black)."""
    u = labels.view(np.uint8)
    out = None
    for lo, hi in _id_runs(tuple(int(i) for i in ids)):
        if lo == hi:
            m = u == lo
        elif lo == 0:
            m = u <= hi
        else:
            m = (u >= lo) & (u <= hi)
        out = m if out is None else out | m
    return np.zeros(labels.shape, np.uint8) if out is None else out.view(np.uint8)


@lru_cache(maxsize=32)
def _id_runs(ids: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """The ids (0..254) as runs of consecutive values (lowest, highest), in order."""
    runs: list[list[int]] = []
    for i in sorted(set(ids)):
        if not 0 <= i < 255:
            raise ValueError(f"a label id is 0..254, not {i}")
        if runs and i == runs[-1][1] + 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return tuple((lo, hi) for lo, hi in runs)


def fill_holes(mask: np.ndarray) -> np.ndarray:
    """The mask with every region it encloses filled (the outside flooded from a padded border)."""
    # Only the box around what the mask holds: outside it all is open (the same holes, a smaller flood).
    x, y, w, h = cv2.boundingRect(mask)
    out = np.zeros(mask.shape, np.uint8)
    if w == 0:
        return out
    padded = np.zeros((h + 2, w + 2), np.uint8)
    padded[1:-1, 1:-1] = mask[y:y + h, x:x + w]
    cv2.floodFill(padded, None, (0, 0), 2)  # the outside, marked 2: all else is the mask or a hole
    out[y:y + h, x:x + w] = padded[1:-1, 1:-1] != 2
    return out


def find_card_blobs(cmap: ClassMap, px_to_mm, ppm: float, kinds: tuple[str, ...],
                    exclude: np.ndarray | None = None) -> list[CardBlob]:
    """Card-sized rectangles of one of the given classes (no bridging: cards lie a few mm apart).

    All kinds are labelled at once (a card's face is framed by its white border, a back by the
    table); a blob of two kinds (two cards touching) is split by kind. `exclude` (uint8, map
    pixels): where no card is looked for (the tiles: a card laid close to the layout would
    otherwise join it into one blob of no card's shape)."""
    out: list[CardBlob] = []
    colourful = tuple(k for k in kinds if k not in NEUTRALS)
    # Where cards are looked for, 0/1 (made once: every kind's mask is cut by it).
    keep = None if exclude is None else (exclude == 0).view(np.uint8)
    # Faces in energy colours are labelled together (each framed by its white border); the dark
    # kinds each on their own, as a cloth of a similar grey may take one of their labels in places.
    # An ENIX face's grey, in shade or under-exposed, reads as the cap's black in places: both are
    # its kind (the cap and black pawns are discs, far from a card's shape).
    dark = tuple(("enix", "black") if k == "enix" else (k,) for k in kinds if k in NEUTRALS)
    for group in (colourful,) + dark:
        if group:
            out.extend(_card_blobs_of(cmap, group, px_to_mm, ppm, keep))
    if "enix" in kinds and "back" in kinds:
        # A back's blue-grey reads, in shade or glare, as the ENIX grey or the cap's black in places
        # (and an ENIX face's grey as the back's): too few of either kind alone for a card, the
        # dark kinds together make one. Face or back is told in the raw frame (enix_cards.py).
        out.extend(_card_blobs_of(cmap, ("back", "enix", "black"), px_to_mm, ppm, keep, known=list(out)))
    if "enix" in kinds:
        out.extend(_framed_heads(cmap, px_to_mm, ppm, keep, out))
    if "back" in kinds:
        # A lone head's card is not yet known (its pose is only a guess, and the raw frame may reject
        # it): no card is cut out, nor a back refused, there.
        out.extend(_faint_backs(cmap, px_to_mm, ppm, keep, [b for b in out if b.kind != "head"]))
    return out


def _faint_backs(cmap: ClassMap, px_to_mm, ppm: float, keep: np.ndarray | None,
                 known: list[CardBlob]) -> list[CardBlob]:
    """Backs whose blue-grey the map gives to the table in as many pixels as to the back (a slate or
    blue cloth): where the back's label is FAINT_DENSITY dense over FAINT_DENSITY_MM squares (the
    table's own speckle stays below it, card-sized), a card's shape whose middle is FAINT_SHARE
    the back's. Face or back is still told in the raw frame (enix_cards.py)."""
    back = cmap.names.index("back")
    mask = cmap.mask("back").copy() if keep is None else cmap.mask("back") & keep
    # The cards found already are cut out first: what is left is the few regions no card explains
    # (most frames: none), and a missing stack is no longer joined to its found neighbours.
    _cut_cards(mask, known, px_to_mm, ppm)
    mask = _dense(mask, max(3, int(round(FAINT_DENSITY_MM * ppm)) | 1), FAINT_DENSITY)
    if mask is None:
        return []
    found, _ = _cards_in_mask(cmap, {back: "back"}, fill_holes(mask), CARD_MM, px_to_mm, ppm, known,
                              leftover=False, share=FAINT_SHARE, grid=FAINT_GRID)
    return [CardBlob("faint", b.centre, b.angle) for b in found]


def _cut_cards(mask: np.ndarray, cards: list[CardBlob], px_to_mm, ppm: float, grow_mm: float = 2.0) -> None:
    """Clears (in place) each card's rectangle, grown by `grow_mm`, from a map-sized mask. The map is
    the rectified table's raster (a scale and an offset): its pixels are the mm's inverse."""
    if not cards:
        return
    origin = px_to_mm(np.zeros((1, 2)))[0]
    half = np.array([CARD_MM[1] / 2 + grow_mm, CARD_MM[0] / 2 + grow_mm])
    corners = np.array([(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]) * half
    for b in cards:
        a = math.radians(b.angle)
        along, across = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
        mm = np.asarray(b.centre) + corners[:, :1] * along + corners[:, 1:] * across
        cv2.fillPoly(mask, [np.rint((mm - origin) * ppm).astype(np.int32)], 0)


def _framed_heads(cmap: ClassMap, px_to_mm, ppm: float, keep: np.ndarray | None,
                  known: list[CardBlob]) -> list[CardBlob]:
    """ENIX faces whose grey the map takes for the table (a cloth of nearly their grey): a disc of
    the head's size in an energy's colour (the goblin's green takes one) with a card's white
    outline around it, at the best of its turns. Kind "frame": the raw frame must still show the
    head's green (enix_cards.py) before it is a card; kind "outline" (less of the outline white in
    the map): the head's green and the face's white border."""
    energy_ids = [i for i, n in enumerate(cmap.names) if n not in NEUTRALS]
    head = _labelled(cmap, energy_ids)
    if keep is not None:
        head &= keep
    count, stats, centroids = _components8(head)
    disc = math.pi * (HEAD_MM / 2 * ppm) ** 2
    size = HEAD_MM * ppm
    h, w = head.shape
    outline, turns, down, right = _head_poses()
    out: list[CardBlob] = []
    area, longest = stats[:, cv2.CC_STAT_AREA], np.maximum(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT])
    heads = ((HEAD_AREA[0] * disc <= area) & (area <= HEAD_AREA[1] * disc)
             & (0.6 * size <= longest) & (longest <= 1.5 * size))
    heads[0] = False
    if heads.any():
        white = cv2.dilate(cmap.mask("white"), np.ones((3, 3), np.uint8))
    for i in np.flatnonzero(heads):  # (the speckles are thousands: judged all at once)
        # Every turn, either way up, at once: (poses, outline points, xy).
        centres = centroids[i] - HEAD_AT_MM * ppm * down
        px = np.rint(centres[:, None, :] + ppm * (outline[None, :, :1] * right[:, None, :]
                                                   + outline[None, :, 1:] * down[:, None, :])).astype(int)
        ok = (px[..., 0] >= 0) & (px[..., 0] < w) & (px[..., 1] >= 0) & (px[..., 1] < h)
        hits = np.where(ok, white[np.clip(px[..., 1], 0, h - 1), np.clip(px[..., 0], 0, w - 1)], 0)
        shares = hits.sum(axis=1) / outline.shape[0]
        best = int(np.argmax(shares))
        if shares[best] < FAINT_FRAME_SHARE:
            # Hardly any outline in the map (on a dark cloth the thin border may take the table's
            # label all round): the raw frame is asked for the border at every turn (kind "head",
            # its centre the head's; enix_cards.py).
            mm = px_to_mm(centroids[i][None])[0]
            if not any(math.dist(mm, b.centre) < 0.5 * CARD_MM[0] for b in known + out):
                out.append(CardBlob("head", (float(mm[0]), float(mm[1])), 0.0))
            continue
        centre, angle = centres[best], math.degrees(turns[best % len(turns)])
        mm = px_to_mm(np.array([centre]))[0]
        if any(math.dist(mm, b.centre) < 0.5 * CARD_MM[0] for b in known + out):
            continue
        kind = "frame" if shares[best] >= FRAME_SHARE else "outline"
        out.append(CardBlob(kind, (float(mm[0]), float(mm[1])), angle))
    return out


def _components8(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """cv2.connectedComponentsWithStats(mask, connectivity=8)'s count, stats and centroids of the
    blobs (labels 1 on; the background's row, label 0, is the box's own: not asked for).

    Grana's (BBDT) scan: the very labels, stats and centroids of the default (Spaghetti), which in
    OpenCV 5 costs three times as much once stats are asked for (0.97 -> 0.31 ms a frame). Labelled
    within the box of what the mask holds (about half the map, often less), from an even corner:
    the same blobs, met in the same order; their places are moved by the box's corner,
    and each centroid, which OpenCV works out as the blob's whole sum of x (or y) over its area, is
    that sum recovered exactly from the crop's (whole numbers far below 2**52), moved, and divided
    alike."""
    x, y, w, h = cv2.boundingRect(mask)
    if w == 0:
        return 1, np.zeros((1, 5), np.int32), np.zeros((1, 2))
    # (From an even corner: the scan goes by 2 x 2 blocks, and the crop's must be the map's for the
    # blobs to be met, and numbered, in the same order.)
    w, h, x, y = w + x % 2, h + y % 2, x - x % 2, y - y % 2
    count, _, stats, centroids = cv2.connectedComponentsWithStatsWithAlgorithm(mask[y:y + h, x:x + w], 8,
                                                                                   cv2.CV_32S, cv2.CCL_GRANA)
    stats[:, cv2.CC_STAT_LEFT] += x
    stats[:, cv2.CC_STAT_TOP] += y
    area = stats[1:, cv2.CC_STAT_AREA].astype(np.float64)[:, None]
    centroids[1:] = (np.rint(centroids[1:] * area) + area * (x, y)) / area
    return count, stats, centroids


@lru_cache(maxsize=1)
def _head_poses() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A face's white border (its middle line, a point every 2 mm, mm from the face's centre), the
    turns tried (radians), and per pose (each turn, then each the other way up) the directions
    towards the face's bottom and its right: made once (read-only)."""
    hw, hh = CARD_MM[0] / 2 - CARD_BORDER_MM / 2, CARD_MM[1] / 2 - CARD_BORDER_MM / 2
    xs, ys = np.arange(-hw, hw, 2.0), np.arange(-hh, hh, 2.0)
    outline = np.concatenate([np.column_stack([xs, np.full_like(xs, -hh)]),
                              np.column_stack([xs, np.full_like(xs, hh)]),
                              np.column_stack([np.full_like(ys, -hw), ys]),
                              np.column_stack([np.full_like(ys, hw), ys])])
    turns = np.radians(np.arange(0.0, 180.0, 4.0))
    down = np.concatenate([np.column_stack([np.cos(turns), np.sin(turns)]),
                           -np.column_stack([np.cos(turns), np.sin(turns)])])
    right = np.column_stack([-down[:, 1], down[:, 0]])
    for a in (outline, turns, down, right):
        a.setflags(write=False)
    return outline, turns, down, right


def _card_blobs_of(cmap: ClassMap, kinds: tuple[str, ...], px_to_mm, ppm: float,
                   keep: np.ndarray | None = None, known: list[CardBlob] = ()) -> list[CardBlob]:
    """Cards whose face (or back) takes one of `kinds`: found by shape on all of them together, then
    each named by the kind most of its middle shows (a card's pixels may split between two close
    colours, orange and yellow, without the card being two cards). `keep` (uint8 0/1): where cards
    are looked for (None: everywhere)."""
    index = {cmap.names.index(k): ("enix" if k == "black" else k) for k in kinds}
    mask = _labelled(cmap, list(index))
    if keep is not None:
        mask &= keep
    # (The cards found already are not cut out here: cut from a larger dark region - a shadow, dark
    # planks - they leave card-shaped pieces of it, read as backs: fresh seeds 6000-6099, 6078 two
    # such. Known cards are skipped blob by blob instead, `_near_any` in `_cards_in_mask`.)
    # Where the kind is dense, not where it speckles: a table's noise takes a card's label here and
    # there, a card's own pixels (shading, glare, the table showing through) miss it here and there.
    colourful = not set(index.values()) <= set(NEUTRALS)
    k = max(3, int(round((FACE_DENSITY_MM if colourful else DENSITY_MM) * ppm)) | 1)
    mask = _dense(mask, k)
    if mask is None:
        return []
    mask = fill_holes(mask)
    face = (CARD_MM[0] - 2 * CARD_BORDER_MM, CARD_MM[1] - 2 * CARD_BORDER_MM) if kinds != ("back",) else CARD_MM
    out, leftover = _cards_in_mask(cmap, index, mask, face, px_to_mm, ppm, known, leftover=colourful)
    if colourful and leftover.any():
        # A face cut in two (its caption band across it, the table's colour taking its narrow ends):
        # its pieces lie a band's width apart, and are joined across it; faces joined so lie side by
        # side, as a row the shape test splits.
        k = max(3, int(round(CAPTION_GAP_MM * ppm)) | 1)
        disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
        joined = fill_holes(_closed(leftover, disc))
        found, rest = _cards_in_mask(cmap, index, joined, face, px_to_mm, ppm)
        out += found
        if rest.any():
            out += _faces_above_captions(cmap, index, rest, px_to_mm, ppm)
    return out


def _dense(mask: np.ndarray, k: int, density: float = DENSITY) -> np.ndarray | None:
    """uint8: where more than `density` of the k x k square about a pixel is in the mask (whole pixel
    counts: a share of an odd k squared never lands on DENSITY itself); None for an empty mask.

    Counted only in the mask's box grown by more than half a square: beyond it every square is
    empty, and inside it each square sees what it sees in the whole map (the box's border reflects
    only the empty margin, the map's border the map as before)."""
    box = _grown_box(mask, k // 2 + 1)
    if box is None:
        return None
    out = np.zeros_like(mask)
    # (cv2.threshold of 8-bit counts compares with the threshold's floor: for whole counts, the
    # same as ">" the share itself, at a third of numpy's comparison and copy.)
    out[box] = cv2.threshold(cv2.boxFilter(mask[box], -1, (k, k), normalize=False), density * k * k, 1,
                             cv2.THRESH_BINARY)[1]
    return out


def _closed(mask: np.ndarray, disc: np.ndarray) -> np.ndarray:
    """cv2.morphologyEx(mask, MORPH_CLOSE, disc), worked out only in the mask's box grown by the
    disc's size: the dilation reaches half a disc past the box, and the erosion of the box's border
    (half a disc farther) sees only that empty margin, as it would in the whole map."""
    out = np.zeros_like(mask)
    box = _grown_box(mask, max(disc.shape))
    if box is not None:
        out[box] = cv2.morphologyEx(mask[box], cv2.MORPH_CLOSE, disc)
    return out


def _grown_box(mask: np.ndarray, r: int) -> tuple[slice, slice] | None:
    """The (rows, columns) slices of the mask's bounding box grown by r pixels each way, within the
    map; None for an empty mask."""
    x, y, w, h = cv2.boundingRect(mask)
    if w == 0:
        return None
    return (slice(max(y - r, 0), min(y + h + r, mask.shape[0])), slice(max(x - r, 0), min(x + w + r, mask.shape[1])))


def _faces_above_captions(cmap: ClassMap, index: dict, mask: np.ndarray, px_to_mm, ppm: float) -> list[CardBlob]:
    """Energy faces of which only the part above the caption band shows: on a cloth of nearly the
    face's colour, the strip below the band (8 mm) goes to the table and the band cannot be closed.
    A blob of that part's size with the band's white beyond one end of it (and not the other) is
    such a face, its centre UPPER_SHIFT_MM past the blob's towards the band. The raw frame's white
    border must still hold it (enix_cards.py) before it is a card."""
    # Labelled within the bounds of what the mask holds (as _cards_in_mask: the same blobs).
    bx, by, bw, bh = cv2.boundingRect(mask)
    if bw == 0:
        return []
    _, labels, areas = _blobs4(mask[by:by + bh, bx:bx + bw])
    part = (CARD_MM[0] - 2 * CARD_BORDER_MM, UPPER_MM)
    white = cmap.names.index("white")
    out: list[CardBlob] = []
    big = areas >= 0.6 * part[0] * part[1] * ppm * ppm
    big[0] = False
    for _, xs, ys in _blob_pixels(labels, np.flatnonzero(big), len(areas), bx, by):
        centre, d = _centred(xs, ys)
        _, vecs = np.linalg.eigh(_covariance(d))
        minor, major = vecs[:, 0], vecs[:, 1]
        a, b = d @ major, d @ minor
        long_mm, short_mm = (a.max() - a.min() + 1) / ppm, (b.max() - b.min() + 1) / ppm
        if (abs(long_mm - part[1]) > UPPER_TOLERANCE_MM or abs(short_mm - part[0]) > UPPER_TOLERANCE_MM
                or len(d) < MIN_CARD_FILL * long_mm * short_mm * ppm * ppm):
            continue
        middle = centre + major * (a.max() + a.min()) / 2 + minor * (b.max() + b.min()) / 2
        # The band's box starts past where a card's white border would end (the top end has that).
        near, far = long_mm / 2 + CARD_BORDER_MM + 1.0, long_mm / 2 + CAPTION_MM
        ends = [_white_share(cmap.labels, white, middle + sign * major * (near + far) / 2 * ppm,
                             major, 0.6 * part[0] * ppm, (far - near) * ppm) for sign in (1.0, -1.0)]
        if max(ends) < CAPTION_WHITE or min(ends) >= CAPTION_WHITE:
            continue  # no band beyond either end, or beyond both: not the top of a face
        towards = major if ends[0] > ends[1] else -major
        angle = math.degrees(math.atan2(major[1], major[0])) % 180.0
        kind = _main_kind(cmap, index, middle, angle, part, ppm)
        if kind is None:
            continue
        mm = px_to_mm(np.array([middle + towards * UPPER_SHIFT_MM * ppm]))[0]
        out.append(CardBlob(kind, (float(mm[0]), float(mm[1])), angle))
    return out


def _white_share(labels: np.ndarray, white: int, centre: np.ndarray, along: np.ndarray, width: float,
                 depth: float) -> float:
    """The share of the print's white in a box (width across `along`, depth along it) at `centre`."""
    across = np.array([-along[1], along[0]])
    u, v = np.meshgrid(np.linspace(-0.5, 0.5, 9), np.linspace(-0.5, 0.5, 5))
    pts = centre + (u.reshape(-1, 1) * width) * across + (v.reshape(-1, 1) * depth) * along
    xy = np.round(pts).astype(int)
    h, w = labels.shape
    ok = (xy[:, 0] >= 0) & (xy[:, 0] < w) & (xy[:, 1] >= 0) & (xy[:, 1] < h)
    return float(np.count_nonzero(labels[xy[ok, 1], xy[ok, 0]] == white)) / len(pts)


def _cards_in_mask(cmap: ClassMap, index: dict, mask: np.ndarray, face, px_to_mm, ppm: float,
                   known: list[CardBlob] = (), leftover: bool = True,
                   share: float = MIN_KIND_SHARE, grid: int = 7) -> tuple[list[CardBlob], np.ndarray | None]:
    """The cards of a mask's blobs (but those where a known card lies already), and the mask of
    the blobs that held none (None when `leftover` is False: not asked for). `share`: how much of
    a card's middle (`grid` x `grid` points) its kind must take."""
    # Labelled within the bounds of what the mask holds (most of the map is empty): the same blobs.
    bx, by, bw, bh = cv2.boundingRect(mask)
    if bw == 0:
        return [], np.zeros_like(mask) if leftover else None
    _, labels, areas = _blobs4(mask[by:by + bh, bx:bx + bw])
    smallest = 0.4 * (CARD_MM[0] - 2 * CARD_BORDER_MM) * (CARD_MM[1] - 2 * CARD_BORDER_MM) * ppm * ppm
    largest = 6 * CARD_MM[0] * CARD_MM[1] * ppm * ppm
    out: list[CardBlob] = []
    left = areas <= largest
    left[0] = False
    sized = (areas >= smallest) & (areas <= largest)  # (the speckles, judged all at once)
    sized[0] = False
    sized = np.flatnonzero(sized)
    pixels = {}
    for i, (at, xs, ys) in zip(sized, _blob_pixels(labels, sized, len(areas), bx, by)):
        pixels[i] = at
        for centre, angle in _cards_in_blob(*_centred(xs, ys), face, ppm):
            if known and _near_any(px_to_mm(np.array([centre]))[0], known):
                left[i] = False
                continue
            kind = _main_kind(cmap, index, centre, angle, face, ppm, share, grid)
            if kind is not None:
                left[i] = False
                # (An ENIX face's grey reads as black in shade: both are its own kind.)
                centre = _kind_centre(cmap, [j for j, n in index.items() if n == kind], centre, angle, face, ppm)
                mm = px_to_mm(np.array([centre]))[0]
                if known and _near_any(mm, known):
                    # ... nor where its kind's pixels bring it: the card found already, seen a second
                    # time across a hand's shadow (2600377: a back found again 21.7 mm off, turned 78
                    # degrees; cards lie a card's width apart, 66 mm and more)
                    continue
                out.append(CardBlob(kind, (float(mm[0]), float(mm[1])), angle))
    if not leftover:
        return out, None
    rest = np.zeros_like(mask)
    rest[by:by + bh, bx:bx + bw] = _blobs_left(labels, left, pixels)
    return out, rest


def _blobs_left(labels: np.ndarray, left: np.ndarray, pixels: dict) -> np.ndarray:
    """left.astype(np.uint8)[labels] (left[0] False: the background), uint8: the blobs still left.
    Clearing the few blobs not left costs less than a look-up of every pixel's label: each by its
    pixels' flat indices where `pixels` holds them (found already), or else by its label."""
    part = (labels != 0).view(np.uint8)
    for i in np.flatnonzero(~left[1:]) + 1:
        if i in pixels:
            part.ravel()[pixels[i]] = 0
        else:
            part[labels == i] = 0
    return part


def _blobs4(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """cv2.connectedComponentsWithStats(mask, connectivity=4)'s count, labels and areas (the area
    column of its stats): the same labelling without the stats, which OpenCV 5 gathers at three to
    four times the labelling's own cost; the areas are the labels' counts."""
    count, labels = cv2.connectedComponents(mask, connectivity=4)
    return count, labels, np.bincount(labels.ravel(), minlength=count)


def _blob_points(labels: np.ndarray, ids, x0: int, y0: int):
    """Per label of `ids`, in turn: (N, 2) float64 x, y of its pixels row by row (np.nonzero's order,
    as from its own box), offset by (x0, y0) (the labelled crop's place in the map)."""
    for _, xs, ys in _blob_pixels(labels, np.asarray(ids), int(labels.max(initial=0)) + 1, x0, y0):
        pts = np.empty((len(xs), 2))
        pts[:, 0], pts[:, 1] = xs, ys  # (whole numbers: exact in float64, as findNonZero's converted)
        yield pts


def _blob_pixels(labels: np.ndarray, ids: np.ndarray, count: int, x0: int,
                 y0: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per label of `ids` (distinct, each below `count`, the labels' number): the flat indices of its
    pixels in `labels`, ascending, and their x and y (whole numbers, row by row: np.nonzero's order)
    offset by (x0, y0). All the ids' pixels are gathered in one scan of the crop (each label's place
    among the ids looked up), then parted among the ids: one scan of the crop, not one comparison
    of the whole crop per label (x0.7 on the card passes' crops)."""
    if len(ids) == 0:
        return []
    place = np.zeros(count, np.int32)
    place[ids] = np.arange(1, len(ids) + 1)
    which = place.take(labels.ravel())
    at = np.flatnonzero(which)
    which = which.take(at)
    out = []
    for j in range(1, len(ids) + 1):
        mine = at[which == j]
        ys, xs = np.divmod(mine, labels.shape[1])
        xs += x0
        ys += y0
        out.append((mine, xs, ys))
    return out


def _near_any(mm, known: list[CardBlob]) -> bool:
    """A card found already lies within half a card's width of `mm` (the centre mapped once, not
    once per known card)."""
    return min(math.dist(mm, k.centre) for k in known) < 0.5 * CARD_MM[0]


def _kind_centre(cmap: ClassMap, ids: list[int], centre, angle: float, face, ppm: float) -> np.ndarray:
    """The centroid of the card's own kind within a card-sized box around it (the shape found on
    all kinds together may lean on a neighbour's pixels)."""
    a = math.radians(angle)
    along = np.array([math.cos(a), math.sin(a)])
    across = np.array([-along[1], along[0]])
    half = max(face) * 0.6 * ppm
    h, w = cmap.labels.shape
    x0, y0 = max(int(centre[0] - half), 0), max(int(centre[1] - half), 0)
    x1, y1 = min(int(centre[0] + half) + 1, w), min(int(centre[1] + half) + 1, h)
    # (The pixels' places from the flat indices, each coordinate less the centre written straight into
    # its column, the rows kept picked by index: the very values of np.nonzero, column_stack and a
    # boolean index, at four fifths of the cost.)
    at = np.flatnonzero(_ids_lut(cmap.labels[y0:y1, x0:x1], ids))
    if len(at) < 10:
        return np.asarray(centre)
    ys, xs = np.divmod(at, x1 - x0)
    d = np.empty((len(at), 2))
    np.subtract(xs + x0, centre[0], out=d[:, 0])
    np.subtract(ys + y0, centre[1], out=d[:, 1])
    inside = np.flatnonzero((np.abs(d @ along) <= 0.55 * face[1] * ppm) & (np.abs(d @ across) <= 0.55 * face[0] * ppm))
    if len(inside) < 10:
        return np.asarray(centre)
    return np.asarray(centre) + _mean_rows(d.take(inside, axis=0))  # (take: a tenth of d[inside]'s cost)


def _main_kind(cmap: ClassMap, index: dict, centre, angle: float, face, ppm: float,
               share: float = MIN_KIND_SHARE, grid: int = 7) -> str | None:
    """The kind most of a card's middle (its inner half; a dark card's inner four fifths) shows, if
    it is most of it."""
    a = math.radians(angle)
    along = np.array([math.cos(a), math.sin(a)])
    across = np.array([-along[1], along[0]])
    # An ENIX face shows the goblin's green head over most of its middle: its grey is judged over
    # most of the face instead (an energy face's caption band and value lie out there: its middle).
    u, v = _middle_grid(0.4 if set(index.values()) <= set(NEUTRALS) else 0.25, grid)
    pts = centre + ((u * face[1])[:, None] * along + (v * face[0])[:, None] * across) * ppm
    h, w = cmap.labels.shape
    xy = np.round(pts).astype(int)
    ok = (xy[:, 0] >= 0) & (xy[:, 0] < w) & (xy[:, 1] >= 0) & (xy[:, 1] < h)
    # (Every label counted at once: one call, not one comparison per kind.)
    counts = np.bincount(cmap.labels[xy[ok, 1], xy[ok, 0]].view(np.uint8), minlength=256)
    votes: dict[str, int] = {}
    for k, kind in index.items():
        votes[kind] = votes.get(kind, 0) + int(counts[k])
    best = max(votes, key=votes.get)
    return best if votes[best] >= share * len(pts) else None


@lru_cache(maxsize=4)
def _middle_grid(reach: float, n: int = 7) -> tuple[np.ndarray, np.ndarray]:
    """An n x n grid over a card's middle, from -reach to reach of its sides (made once per reach and n)."""
    t = np.linspace(-reach, reach, n)
    u, v = np.repeat(t, len(t)), np.tile(t, len(t))
    u.setflags(write=False)
    v.setflags(write=False)
    return u, v


def _cards_in_blob(centre: np.ndarray, d: np.ndarray, face: tuple[float, float],
                   ppm: float) -> list[tuple[np.ndarray, float]]:
    """(centre px, long side's direction in degrees [0, 180)) of one card, or of n cards side by side
    (their shadows or a blur can join them), or nothing (not a card's shape). `centre`, `d`: the
    blob's centre and its pixels less it (_centred)."""
    _, vecs = np.linalg.eigh(_covariance(d))
    minor, major = vecs[:, 0], vecs[:, 1]
    a = d @ major
    b = d @ minor
    (a_lo, a_hi), (b_lo, b_hi) = _extremes(a), _extremes(b)  # (each extreme found once)
    long_mm = (a_hi - a_lo + 1) / ppm
    short_mm = (b_hi - b_lo + 1) / ppm
    if len(d) < MIN_CARD_FILL * (long_mm * short_mm * ppm * ppm):
        return []
    mid_b = (b_hi + b_lo) / 2
    cards = []
    if _fits(long_mm, face[1]) and _fits(short_mm, face[0]):
        cards.append((centre + major * (a_hi + a_lo) / 2 + minor * mid_b, major))
    elif _fits(short_mm, face[1], ROW_TILT_MM):
        # Cards side by side along their short sides, joined: as many as fit, evenly spaced.
        n = int(round(long_mm / (face[0] + ROW_GAP_MM)))
        if n >= 2 and face[0] - CARD_TOLERANCE_MM[0] <= long_mm / n <= face[0] + ROW_GAP_MM + CARD_TOLERANCE_MM[1]:
            step = (a_hi - a_lo + 1) / n
            for j in range(n):
                along = a_lo - 0.5 + (j + 0.5) * step
                cards.append((centre + major * along + minor * mid_b, minor))
    return [(c, math.degrees(math.atan2(d[1], d[0])) % 180.0) for c, d in cards]


def _extremes(a: np.ndarray) -> tuple[float, float]:
    """(a.min(), a.max()) of float64 values (not NaN): both from one cv2.minMaxLoc, at half the cost
    of numpy's two reductions (the very values: a minimum is exact)."""
    lo, hi, _, _ = cv2.minMaxLoc(a)
    return lo, hi


def _covariance(d: np.ndarray) -> np.ndarray:
    """np.cov(d.T), the very same sums, without its argument checks (a card blob is small: those
    cost more than the sums)."""
    x = (d - _mean_rows(d)).T
    return (x @ x.T) * (1.0 / (len(d) - 1))


def _mean_rows(d: np.ndarray) -> np.ndarray:
    """d.mean(axis=0) of points (N, 2): the very same sums, row after row (numpy's own mean along
    the long axis of so narrow an array adds them in that order, at three times the cost). The rows
    are summed as complex numbers (x + iy): a complex sum adds each part on its own, in the same
    order, and one running sum of a flat array costs four fifths of two interleaved ones."""
    z = np.cumsum(np.ascontiguousarray(d, np.float64).view(np.complex128).ravel())[-1]
    return np.array([z.real, z.imag]) / len(d)


def _centred(xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A blob's centre, _mean_rows(pts), and its pixels less it, pts - centre (N, 2), of the pixels
    pts = (xs, ys) as float64 - the very values: whole numbers sum exactly in any order (below 2**53),
    so their integer sums give the running sums' totals, and each coordinate is converted exactly
    before it is subtracted (no points array made first)."""
    centre = np.array([float(xs.sum()), float(ys.sum())]) / len(xs)
    d = np.empty((len(xs), 2))
    np.subtract(xs, centre[0], out=d[:, 0])
    np.subtract(ys, centre[1], out=d[:, 1])
    return centre, d


def _fits(measured: float, expected: float, extra: float = 0.0) -> bool:
    return -CARD_TOLERANCE_MM[0] <= measured - expected <= CARD_TOLERANCE_MM[1] + extra
