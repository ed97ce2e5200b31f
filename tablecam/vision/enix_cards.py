"""ENIX cards on the table: face up or down, the energy (or ENIX) of a face, and its value where
it can be read for sure.

The coarse map (enix_search.py) gives each card's kind, centre and the direction of its long side.
Two things are then read from the raw frame in the card's own frame:

- ENIX face or back: both are dark, but a face has a white border and the goblin's green head in
  its middle, and a back has neither.
- Solar or wind: the coarse map names an energy face by its colour, but where the sensor clipped
  red it cannot tell yellow from orange; such a face is named by its green against its own
  caption band's white, or null (`_green_names`).
- The value of an energy card (enix.md (model): black digits 12 mm high in the top-left corner,
  -10 to +9). The card may lie either way up, so the corner with ink is its top-left. The ink is
  compared with the twenty values drawn in the cards' typeface at the same place (a small shift
  allowed); the value is the best match if it is good and, against every value nearly as good,
  the ink lies clearly nearer its drawing than the other's; otherwise null: an unsure reading
  never becomes a number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from .enix_search import CAPTION_AT_MM, CARD_BORDER_MM, CARD_MM, HEAD_AT_MM, WHITE_BGR, CardBlob
from .piece_colours import srgb_to_linear

VALUES = tuple(range(-10, 10))
VALUE_AT_MM = (-CARD_MM[0] / 2 + 13.0, -CARD_MM[1] / 2 + 12.0)  # centre of the value, card frame (x right, y down)
VALUE_SIZE_MM = 12.0  # digit height; the typeface's size is 1.35 times it
READ_PX_PER_MM = 2.5
WINDOW_MM = (32.0, 17.0)  # the value's box (wide enough for "-10")
SEARCH_MM = 2.5  # how far the printed value may sit from where the model puts it
BLURS_MM = (0.4, 0.9)  # the camera's blur, tried both
MIN_MATCH = 0.6  # normalised correlation of the ink with the best value's
RIVAL_MATCH = 0.12  # values matching within this of the best are rivals, to be told apart...
MIN_SEPARATION = 0.1  # ... by where the ink lies between the two drawings (a drawing itself: 0.28-0.59 towards it)
MIN_INK = 0.02  # a corner with less ink than this (mean darkness) holds no value
MAX_SHIFT_MM = 8.0  # how far the border may say the coarse centre was off...
MAX_TURN_DEG = 25.0  # ... and its angle
RETRY_POSES = ((-9.0, 0.0), (9.0, 0.0), (0.0, -7.0), (0.0, 7.0))  # (turn deg, shift along mm): where else a
# face's border is sought from when the coarse pose finds none
CONVERGED_MM = 1.0  # after two corrections, a third may move the border no more than this...
CONVERGED_DEG = 1.5  # ... nor turn it more than this
ACROSS_AT_MM = (-21.5, 14.5)  # heights (card frame) of the across scans: below the value, clear of the icon
ALONG_AT_MM = 21.0  # side of the along scan (towards the top): clear of the icon and the value
CAPTION_Y_MM = CAPTION_AT_MM  # the caption band's middle, below the card's centre (enix.md model)
BORDER_WHITE = 0.55  # share of border samples that must be white-ish for a face
BORDER_REACH_MM = 5.0  # how far from where the coarse pose puts it a face's border is sought
PALE_PLACES = 3  # ... of its 12 places, white all across at this many: something pale, no border
HEAD_GREEN = 1.3  # the goblin's head: green this many times its red and blue (linear light)...
HEAD_LIGHTER = 1.5  # ... and its green this many times the face's grey around it
HEAD_SEARCH_MM = (0.0, -6.0, 6.0, -12.0, 12.0)  # where along the card's length the head is sought
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"  # the cards' typeface (as drawn by the simulator)
# Solar (yellow) and wind (orange) faces differ in green alone: red near the sensor's limit, no
# blue. Where red is clipped the coarse map cannot weigh it and takes one for the other (2500059:
# a solar face whose light is warmer than the white reference's, read wind). Such a face is named
# by its green against its own caption band's white (`_green_names`).
GREEN_PAIR = ("solar", "wind")
RED_CLIPPED = 0.5  # share of the face's samples whose red the sensor clipped: the map's pixels of it mostly lack red
# The face's green over its caption's, as a share of its taught colour's green over the print
# white's, is 1.0-1.68 for its own energy (glare adds white to both, blur mixes the caption's
# edge in) and at most 0.70 or at least 2.21 for the other's (the 71 such faces of the tuning
# sets; see docs/vision-stixx-enix.md).
GREEN_SHARE = (0.9, 1.8)
CAPTION_CLIPPED = 0.5  # ... the band's green clipped on more than this share: its median is a floor, no measure


@dataclass(frozen=True)
class Card:
    energy: str | None  # an energy, "enix", or None (a back)
    value: int | None
    centre: tuple[float, float]
    face_up: bool


def read_cards(view, blobs: list[CardBlob], energies: tuple[str, ...],
               refs: np.ndarray | None = None) -> tuple[list[Card], int]:
    """The cards, and how many values could not be read for sure. `refs`: the energies' taught
    colours (sRGB BGR, as `energies`), for the faces of GREEN_PAIR (`_green_names`); without them
    the coarse map's name stands."""
    cards: list[Card] = []
    unsure = 0
    dark = [b for b in blobs if b.kind in ("frame", "outline", "back", "enix", "faint")]
    faces = [b for b in blobs if b.kind not in ("frame", "outline", "back", "enix", "faint", "head")]
    marks, flips = _first_looks(view, dark, faces)
    marks, flips = dict(zip(map(id, dark), marks)), dict(zip(map(id, faces), flips))
    # The energy faces are refined, and their values read, all at once (`refine_faces`, `_face_samples`):
    # each sampling of the frame costs a lens projection and a remap, one for the frame's faces
    # instead of one per face. Their cards keep their places among the others. (Each face's end is
    # `_first_looks`' flip: the caption band is 14 mm high, a coarse pose tells it.)
    faces_at = [i for i, b in enumerate(blobs) if b.kind not in ("frame", "outline", "back", "enix", "faint", "head")]
    shares = _green_shares(energies, refs)
    face_cards = dict(zip(faces_at, _face_cards(view, [blobs[i] for i in faces_at],
                                                [flips[id(blobs[i])] for i in faces_at], shares)))
    for i, b in enumerate(blobs):
        if b.kind == "head":  # a lone head: an ENIX face if its border shows round it at some turn
            centre = _face_round_head(view, b)
            if centre is not None:
                cards.append(Card("enix", None, centre, True))
            continue
        if b.kind in ("frame", "outline"):  # a white outline round a disc: an ENIX face if it is its green head
            # (An outline faint in the map: the raw frame's border too, framed, as for a lone head.)
            if marks[id(b)][1] and (b.kind == "frame" or _framed_border(view, b)):
                cards.append(Card("enix", None, b.centre, True))
            continue
        if b.kind == "faint" and not _back_edged(view, b):
            continue  # a back's colour the map hardly tells from the cloth, but no card's edge against it
        if b.kind in ("back", "enix", "faint"):
            face = any(marks[id(b)])  # an ENIX face has a white border or shows the goblin's head
            cards.append(Card("enix" if face else None, None, b.centre, face))
            continue
        card = face_cards[i]
        if card is None:
            continue  # an energy's colour of a card's size, but no card's white border: an arm, a hand
        unsure += card.value is None
        cards.append(card)
    return cards, unsure


def _face_cards(view, faces: list[CardBlob], flips: list[bool], shares: dict[str, float] | None = None
                ) -> list[Card | None]:
    """Each energy face's Card (its value null when unsure), or None when no card's white border
    shows round it: refined from its coarse pose or, failing that, from each of RETRY_POSES in turn
    (cards a row shares one angle until split; each may be turned its own way, and a face whose
    colour the table takes in part has its coarse centre pulled along its length). A refined face
    of GREEN_PAIR is named by its green (`_green_names`, `shares`: `_green_shares`)."""
    fine = refine_faces(view, list(zip(faces, flips)))
    for turn, along in RETRY_POSES:
        left = [i for i, f in enumerate(fine) if f is None]
        if not left:
            break
        tries = []
        for i in left:
            b, a = faces[i], math.radians(faces[i].angle)
            centre = (b.centre[0] + along * math.cos(a), b.centre[1] + along * math.sin(a))
            tries.append((CardBlob(b.kind, centre, (b.angle + turn) % 180.0), flips[i]))
        for i, f in zip(left, refine_faces(view, tries)):
            fine[i] = f
    read = [i for i, f in enumerate(fine) if f is not None]
    poses = [(fine[i], flips[i]) for i in read]
    paired = [j for j, i in enumerate(read) if shares and faces[i].kind in shares]
    inks, colours = _face_samples(view, poses, [poses[j] for j in paired])
    values = dict(zip(read, [None if got is None else value_of(*got) for got in inks]))
    names = dict(zip([read[j] for j in paired], _green_names(colours, [faces[read[j]].kind for j in paired], shares)))
    out: list[Card | None] = []
    for i, b in enumerate(faces):
        if fine[i] is None:
            out.append(Card(b.kind, None, b.centre, True) if _border_seen(view, b) else None)
        else:
            out.append(Card(names.get(i, b.kind), values[i], fine[i].centre, True))
    return out


def _green_shares(energies: tuple[str, ...], refs: np.ndarray | None) -> dict[str, float] | None:
    """GREEN_PAIR's green over the print white's (linear light), from the taught colours; None when
    the palette lacks either."""
    if refs is None or not all(name in energies for name in GREEN_PAIR):
        return None
    white = float(srgb_to_linear(np.array([WHITE_BGR[1]], np.uint8))[0])
    greens = srgb_to_linear(np.clip(np.round(np.asarray(refs)[:, 1]), 0, 255).astype(np.uint8))
    return {name: float(greens[energies.index(name)]) / white for name in GREEN_PAIR}


def _green_names(samples: list[tuple[np.ndarray, np.ndarray, np.ndarray]], kinds: list[str],
                 shares: dict[str, float]) -> list[str | None]:
    """The energy of each face the map named one of GREEN_PAIR (`kinds`), from its samples at
    _COLOUR_PLACES (white-balanced BGR, inside the frame, clipped: TableView.sample's). Where the
    face's red is clipped (RED_CLIPPED) and its caption band's green is not (on at most half its
    samples: a clipped band's green is a floor, and puts a wind face's share into the gap, 2300145),
    the one whose green share (GREEN_SHARE) the face's green over the band's explains, None when
    neither or both does; elsewhere the map's name (it weighed the red, or the band cannot tell;
    so too for a face not seen whole)."""
    k = len(_FACE_COLOUR_PLACES)
    out: list[str | None] = []
    for (bgr, inside, clipped), kind in zip(samples, kinds):
        band_clipped = float(clipped[k:, 1].mean()) > CAPTION_CLIPPED
        if not inside.all() or float(clipped[:k, 2].mean()) < RED_CLIPPED or band_clipped:
            out.append(kind)
            continue
        green = _median(_linear(bgr[:k, 1])) / max(_median(_linear(bgr[k:, 1])), 1e-6)
        fits = [name for name in GREEN_PAIR if GREEN_SHARE[0] <= green / shares[name] <= GREEN_SHARE[1]]
        out.append(fits[0] if len(fits) == 1 else None)
    return out


def refine_faces(view, poses: list[tuple[CardBlob, bool]]) -> list[CardBlob | None]:
    """Each face's centre and angle from its white border (`poses`: its coarse pose and which way up
    it lies), or None when the border cannot be found all round (then its value is not read: the
    value's place is known only from the border).

    Scanned across at two heights clear of the value, the icon and the caption band (which gives
    the angle too), and along at a side clear of them; each scan finds where the colour meets the
    white border on both sides, in the raw frame. The coarse map's centre and angle can be
    millimetres and degrees off. All the faces are scanned together, the frame sampled once per step
    for all of them: each face's scans are what they would be alone (each point is read on its own)."""
    inner = (CARD_MM[0] / 2 - CARD_BORDER_MM, CARD_MM[1] / 2 - CARD_BORDER_MM)
    state = [(np.asarray(b.centre, dtype=np.float64), b.angle) for b, _ in poses]
    out: list[CardBlob | None] = [None] * len(poses)
    active = list(range(len(poses)))
    for step in range(3):
        if not active:
            break
        here = {i: CardBlob(poses[i][0].kind, (float(state[i][0][0]), float(state[i][0][1])), state[i][1])
                for i in active}
        mids_of = _border_middles_many(view, [(here[i], poses[i][1]) for i in active], inner)
        still = []
        for i, mids in zip(active, mids_of):
            if mids is None:
                continue
            centre, angle = state[i]
            # The across scans' middles drift with the angle error along the card's height.
            turn = math.degrees(math.atan2(mids["lower"] - mids["upper"], ACROSS_AT_MM[1] - ACROSS_AT_MM[0]))
            shift = np.array([(mids["upper"] + mids["lower"]) / 2, mids["along"]])
            if step == 0 and abs(shift[1]) > MAX_SHIFT_MM:
                # A pose turned far off: the along scan leaves the face through its side, short of the
                # top border. The across scans still give the turn; the next scan measures along again.
                shift[1] = 0.0
            if np.abs(shift).max() > MAX_SHIFT_MM or abs(turn) > MAX_TURN_DEG:
                continue
            if step == 2:
                # The third scan only checks: a border found where the pose puts it. Far from the truth
                # (a card turned far from its row's angle), the scans can settle on the icon's or the
                # caption's edges instead, and a value read there could be another value.
                if np.abs(shift).max() > CONVERGED_MM or abs(turn) > CONVERGED_DEG:
                    continue
                out[i] = CardBlob(poses[i][0].kind, (float(centre[0]), float(centre[1])), angle)
                continue
            right, down = _card_frame(here[i], poses[i][1])
            # x turns towards y as the card turns clockwise; with the card upside down its frame is too.
            state[i] = (centre + shift[0] * right + shift[1] * down, (angle - turn) % 180.0)
            still.append(i)
        active = still
    return out


SCANS = (("upper", 0, ACROSS_AT_MM[0], (-1.0, 1.0)), ("lower", 0, ACROSS_AT_MM[1], (-1.0, 1.0)),
         ("along", 1, ALONG_AT_MM, (-1.0,)))
SCAN_T = np.arange(0.0, 0.75 * CARD_MM[1], 0.25)


def _border_middles_many(view, poses: list[tuple[CardBlob, bool]], inner: tuple[float, float]
                         ) -> list[dict[str, float] | None]:
    """Per face (its pose, and which way up it lies): where its middle lies along each scan, from its
    border on both sides; or, scanning one side only (the other crosses the caption band), from that
    side's border and the face's size. All their profiles are sampled at once (each sampling costs
    a projection through the lens)."""
    if not poses:
        return []
    t = SCAN_T
    local = _scan_points()
    pts = np.concatenate([_to_table(b, flip, local) for b, flip in poses])
    bgr, inside, _ = view.sample(pts)
    scans = len(local) // len(t)
    white = _linear(_least_channel(bgr)).reshape(len(poses), scans, len(t))
    inside = inside.reshape(len(poses), scans, len(t)).all(axis=2)
    # Each scan's border for all faces at once (`_rises`): the scans of an axis share the border's
    # expected place.
    edges: list[list[float | None]] = [[] for _ in poses]
    k = 0
    for _, axis, _, sides in SCANS:
        n = len(sides)
        got = _rises(white[:, k:k + n].reshape(-1, len(t)), inner[axis])  # face after face, its n scans
        for f, own in enumerate(edges):
            own += got[f * n:(f + 1) * n]
        k += n
    return [_middles(e, ok, inner) for e, ok in zip(edges, inside)]


def _middles(edges: list[float | None], inside: np.ndarray, inner: tuple[float, float]) -> dict[str, float] | None:
    """`_border_middles_many`'s answer for one face from where each of its scans meets the border
    (`_rise`: a float or None) and whether each scan lies in the frame."""
    mids: dict[str, float] = {}
    k = 0
    for name, axis, _, sides in SCANS:
        half = inner[axis]
        found = []
        for sign in sides:
            edge = edges[k]
            if edge is None or not inside[k]:
                return None
            found.append(sign * edge)
            k += 1
        mids[name] = found[0] - sides[0] * half if len(found) == 1 else (found[0] + found[1]) / 2
    return mids


@lru_cache(maxsize=1)
def _scan_points() -> np.ndarray:
    """The five scans' points (card frame, mm), scan after scan (made once, read-only)."""
    local = []
    for _, axis, at, sides in SCANS:
        for sign in sides:
            pts = np.zeros((len(SCAN_T), 2))
            pts[:, axis] = sign * SCAN_T
            pts[:, 1 - axis] = at
            local.append(pts)
    out = np.concatenate(local)
    out.setflags(write=False)
    return out


def _linear(samples: np.ndarray) -> np.ndarray:
    """srgb_to_linear of a view's samples: their frame's whole levels 0..255 as float32
    (TableView.sample), looked up as uint8 - the table's very values, by cv2.LUT, at a fraction of
    the float lookup's cost (which rounds and clips first)."""
    return srgb_to_linear(samples.astype(np.uint8))


def _least_channel(bgr: np.ndarray) -> np.ndarray:
    """bgr.min(axis=1) of samples (N, 3): the same minima, without numpy's reduction over so short an axis."""
    return np.minimum(np.minimum(bgr[:, 0], bgr[:, 1]), bgr[:, 2])


def _rise(white: np.ndarray, expected: float) -> float | None:
    """Where, going out from the middle, the face's colour gives way to the white border, on a
    profile `white` sampled at SCAN_T: the first crossing of half-way between the colour (near the
    middle) and the border's white, near where the border should be."""
    t = SCAN_T
    spans = _rise_spans(expected)
    if spans is None:
        return None
    middle, lo, hi = spans
    colour = _median(white[:middle])
    top = float(white[lo:hi].max())
    if top - colour < 0.15:
        return None  # no white border to be seen
    level = (colour + top) / 2
    idx = np.flatnonzero(white[lo:hi] > level)
    if len(idx) == 0:
        return None
    k = lo + int(idx[0])
    if k == 0:
        return float(t[0])
    # Linear interpolation between the samples either side of the crossing.
    a, b = white[k - 1], white[k]
    return float(t[k - 1] + (level - a) / max(b - a, 1e-6) * (t[k] - t[k - 1]))


# numpy 2 (NEP 50) works a Python float with a float32 scalar or array in float32; numpy 1 promotes
# such a scalar pair to float64. `_rises` writes out numpy 2's arithmetic, and leaves numpy 1 to `_rise`.
_WEAK_FLOATS = type(0.5 - np.float32(1.0)) is np.float32


def _rises(white: np.ndarray, expected: float) -> list[float | None]:
    """[_rise(w, expected) for w in white] of profiles (rows, SCAN_T) float32: the same values, every
    row's steps done at once in the types _rise's Python floats and numpy scalars take (per row,
    numpy's calls cost more than its sums)."""
    spans = _rise_spans(expected)
    if not _WEAK_FLOATS or spans is None or not len(white):
        return [_rise(w, expected) for w in white]
    t = SCAN_T
    middle, lo, hi = spans
    colour = _median_rows(white[:, :middle]).astype(np.float64)  # (_median's float of each row's)
    near = white[:, lo:hi]
    top = near.max(axis=1).astype(np.float64)
    level = (colour + top) / 2
    level32 = level.astype(np.float32)  # (a Python float against float32: cast to float32 first)
    above = near > level32[:, None]
    k = lo + np.argmax(above, axis=1)
    rows = np.arange(len(white))
    a, b = white[rows, np.maximum(k - 1, 0)], white[rows, k]
    step = b - a
    tiny = np.float32(1e-6)
    frac = (level32 - a) / np.where(step < tiny, tiny, step)  # (max(b - a, 1e-6): the first when not smaller)
    at = t[np.maximum(k - 1, 0)] + frac.astype(np.float64) * (t[k] - t[np.maximum(k - 1, 0)])
    ok = (top - colour >= 0.15) & above.any(axis=1)
    return [None if not o else (float(t[0]) if kk == 0 else float(v)) for o, kk, v in zip(ok.tolist(), k.tolist(), at.tolist())]


@lru_cache(maxsize=8)
def _rise_spans(expected: float) -> tuple[int, int, int] | None:
    """Of a profile's places SCAN_T (ascending): how many lie within half of `expected` (the face's
    colour), and the span [lo, hi) near where its border is sought; None when no place is near.
    Slices of the profile hold the very values masks would pick, in the same order, without a mask
    made and applied for each of a scan's five profiles."""
    t = SCAN_T
    near = np.flatnonzero((t > expected - MAX_SHIFT_MM) & (t < expected + MAX_SHIFT_MM + 3.0))
    if len(near) == 0:
        return None
    return int(np.count_nonzero(t < 0.5 * expected)), int(near[0]), int(near[-1]) + 1


def _median(values: np.ndarray) -> float:
    """float(np.median(values)) of a few values without NaN: the middle one, or the middle two's sum
    halved in their own dtype, as np.median's mean of them (its checks cost most of the call here)."""
    n = len(values)
    if n % 2:
        return float(np.partition(values, n // 2)[n // 2])
    part = np.partition(values, (n // 2 - 1, n // 2))
    return float((part[n // 2 - 1] + part[n // 2]) / values.dtype.type(2))


def _median_rows(a: np.ndarray) -> np.ndarray:
    """np.median(a, axis=1) without NaN, by one sort (as _median: the middle one, or the middle two's
    sum halved in a's dtype); a may have more axes after the first two."""
    n = a.shape[1]
    s = np.sort(a, axis=1)
    return s[:, n // 2] if n % 2 else (s[:, n // 2 - 1] + s[:, n // 2]) / a.dtype.type(2)


def _card_frame(b: CardBlob, flip: bool) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors (table frame) of the card's x (right) and y (down, towards its bottom edge)."""
    a = math.radians(b.angle)
    down = np.array([math.cos(a), math.sin(a)])  # the long side
    if flip:
        down = -down
    right = np.array([down[1], -down[0]])  # x is y turned back a quarter turn (y points to the near side)
    return right, down


def _to_table(b: CardBlob, flip: bool, local: np.ndarray) -> np.ndarray:
    """Card-frame points (N, 2, mm) on the table: centre + x right + y down, in that order, worked
    out per coordinate (numpy's loops over an x, y pair cost more than the sums)."""
    right, down = _card_frame(b, flip)
    x, y = local[:, 0], local[:, 1]
    out = np.empty((len(local), 2))
    for i in (0, 1):
        out[:, i] = (b.centre[i] + x * right[i]) + y * down[i]
    return out


def _to_table_many(blobs: list[CardBlob], local: np.ndarray) -> np.ndarray:
    """_to_table(b, False, local) of each card (cards, N, 2): the same sums, element by element, for
    all cards at once (a frame's half-dozen backs one by one cost numpy's calls six times over)."""
    down = np.array([_card_frame(b, False)[1] for b in blobs]).reshape(-1, 2)
    right = np.column_stack([down[:, 1], -down[:, 0]])  # (as _card_frame)
    centres = np.array([b.centre for b in blobs], np.float64).reshape(-1, 2)
    x, y = local[:, 0], local[:, 1]
    out = np.empty((len(blobs), len(local), 2))
    for i in (0, 1):
        out[:, :, i] = (centres[:, i, None] + x * right[:, i, None]) + y * down[:, i, None]
    return out


def _first_looks(view, dark: list[CardBlob], faces: list[CardBlob]) -> tuple[list[tuple[bool, bool]], list[bool]]:
    """_face_marks of the dark cards and _upside_down of the energy faces, all sampled at once (each
    sampling costs a projection through the lens: one for the frame's cards, not one per face)."""
    if not faces:
        return _face_marks(view, dark), []
    k = len(dark) * len(_MARK_PLACES)
    pts = np.concatenate([_to_table_many(dark, _MARK_PLACES).reshape(-1, 2),
                          _to_table_many(faces, _CAPTION_PLACES).reshape(-1, 2)])
    bgr, inside, _ = view.sample(pts)
    return _marks_of(bgr[:k], inside[:k], len(dark)), _flips_of(bgr[k:], inside[k:], len(faces))


def _face_marks(view, blobs: list[CardBlob]) -> list[tuple[bool, bool]]:
    """(a white border, the goblin's head) of each dark card: all sampled at once (each sampling
    costs a projection through the lens) and all judged at once (a frame's half-dozen backs one by
    one cost numpy's calls six times over)."""
    if not blobs:
        return []
    bgr, inside, _ = view.sample(_to_table_many(blobs, _MARK_PLACES).reshape(-1, 2))
    return _marks_of(bgr, inside, len(blobs))


def _marks_of(bgr: np.ndarray, inside: np.ndarray, count: int) -> list[tuple[bool, bool]]:
    """_face_marks of `count` cards from their samples at _MARK_PLACES, card after card."""
    if count == 0:
        return []
    local = _MARK_PLACES
    n = len(_BORDER_PLACES)
    bgr, inside = bgr.reshape(count, len(local), 3), inside.reshape(count, len(local))
    borders = _white_borders(bgr[:, :n], inside[:, :n])
    heads = _heads_seen(bgr[:, n:], inside[:, n:])
    return list(zip(borders.tolist(), heads.tolist()))


HEAD_TURNS = np.radians(np.arange(0.0, 360.0, 4.0))  # a lone head's face: every turn, either way up
PRINT_DARKER = 0.6  # a face's print just inside its white border is at most this share of the border's brightness...
BEYOND_APART = 40.0  # ... and the table just outside the card, if a bright neutral too, this far from it (0-255)


def _face_round_head(view, b: CardBlob) -> tuple[float, float] | None:
    """The centre of the ENIX face round a lone head (`b.centre`: the head's), or None: the turn at
    which the face's edge is most a framed white border (_framed_shares), if BORDER_WHITE of it is
    there, and the head's green shows at that pose (all turns sampled at once)."""
    down = np.column_stack([np.cos(HEAD_TURNS), np.sin(HEAD_TURNS)])
    centres = np.asarray(b.centre) - HEAD_AT_MM * down  # the head lies HEAD_AT_MM below the face's centre
    shares, inside = _framed_shares(view, centres, down)
    best = int(np.argmax(shares))
    if shares[best] < BORDER_WHITE or not inside[best]:
        return None
    a = math.degrees(math.atan2(down[best, 1], down[best, 0]))
    pose = CardBlob("enix", (float(centres[best, 0]), float(centres[best, 1])), a % 180.0)
    # (Its frame either way up: the head test looks along the card both ways.)
    if not _face_marks(view, [pose])[0][1]:
        return None
    return pose.centre


def _framed_shares(view, centres: np.ndarray, down: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For faces at `centres` (P, 2 mm) whose long side points along `down` (P, 2), the share of
    the places round the edge (_BORDER_PLACES) where a white border shows *against* both sides, and
    whether all of them lie in the frame. Whiteness alone cannot tell a border from a light grey
    table (a plain laminate is as bright and neutral everywhere): the face's print just inside the
    border (_PRINT_PLACES) must be much darker than it, and the table just outside the card
    (_BEYOND_PLACES) not the same white."""
    right = np.column_stack([down[:, 1], -down[:, 0]])  # (as _card_frame)
    local = np.concatenate([_BORDER_PLACES, _PRINT_PLACES, _BEYOND_PLACES])
    x, y = local[:, 0], local[:, 1]
    pts = centres[:, None, :] + x[None, :, None] * right[:, None, :] + y[None, :, None] * down[:, None, :]
    bgr, inside, _ = view.sample(pts.reshape(-1, 2))
    n = len(_BORDER_PLACES)
    bgr, inside = bgr.reshape(len(centres), 3, n, 3), inside.reshape(len(centres), 3 * n)
    border, inner, beyond = bgr[:, 0], bgr[:, 1], bgr[:, 2]
    bright = border.mean(axis=2)
    framed = (_bright_neutral(border) & (inner.mean(axis=2) < PRINT_DARKER * bright)
              & ~(_bright_neutral(beyond) & (np.abs(beyond.mean(axis=2) - bright) < BEYOND_APART)))
    return framed.mean(axis=1), inside.all(axis=1)


def _framed_border(view, b: CardBlob) -> bool:
    """Whether a face's white border shows framed (_framed_shares) round BORDER_WHITE of its edge."""
    a = math.radians(b.angle)
    shares, inside = _framed_shares(view, np.array([b.centre], np.float64), np.array([[math.cos(a), math.sin(a)]]))
    return bool(inside[0]) and float(shares[0]) >= BORDER_WHITE


def _bright_neutral(bgr: np.ndarray) -> np.ndarray:
    """Where samples (..., 3) are a card border's bright neutral white: every channel above 150, the
    channels within a quarter of the brightest."""
    low, high = bgr.min(axis=-1), bgr.max(axis=-1)
    return (low > 150) & (high - low < 0.25 * np.maximum(high, 1))


def _white_borders(bgr: np.ndarray, inside: np.ndarray) -> np.ndarray:
    """Whether the samples just inside each card's edge (_BORDER_PLACES; bgr (cards, places, 3)) are
    mostly a bright neutral white, of those in the frame (the share as np.mean of them: the same
    count over the same number)."""
    seen = inside.sum(axis=1)
    white = (_bright_neutral(bgr) & inside).sum(axis=1)
    return (seen > 0) & (white / np.maximum(seen, 1) >= BORDER_WHITE)


def _border_seen(view, b: CardBlob) -> bool:
    """Whether a white border shows round most of a face whose pose is only roughly known: across
    each side at three places, the whitest point within a few millimetres of where the border
    should be is a bright neutral white."""
    w, h = CARD_MM
    t = np.arange(-BORDER_REACH_MM, BORDER_REACH_MM + 0.1, 0.5)
    profiles = []
    for u in (-0.3, 0.0, 0.3):
        for sx, sy in ((0, -1), (0, 1), (-1, 0), (1, 0)):
            if sx == 0:
                local = np.column_stack([np.full_like(t, u * w), sy * (h / 2 - CARD_BORDER_MM / 2 + t)])
            else:
                local = np.column_stack([sx * (w / 2 - CARD_BORDER_MM / 2 + t), np.full_like(t, u * h)])
            profiles.append(local)
    bgr, inside, _ = view.sample(_to_table(b, False, np.concatenate(profiles)))
    bgr = bgr.reshape(len(profiles), len(t), 3)
    inside = inside.reshape(len(profiles), len(t)).all(axis=1)
    white = _bright_neutral(bgr)
    # The border is a band (2.5 mm) between the face's print and the table, so a profile 10 mm
    # across it is white all along only where glare washes both out (one place of a water face under
    # the lamp, 2600440); a pale hand of a face's colour is at several (2600318: two wind faces read on
    # a hand over the cloth, 5 and 3 of their 12 places).
    if int((white.all(axis=1) & inside).sum()) >= PALE_PLACES:
        return False
    return float(np.mean(white.any(axis=1) & inside)) >= BORDER_WHITE


EDGE_APART = 2.5  # colour distance (CIELAB) across a side of a faint back that shows its edge...
EDGE_SIDES = 3  # ... on this many of its four sides


def _back_edged(view, b: CardBlob) -> bool:
    """Whether a faint back (its blue-grey nearly the cloth's, kind "faint") shows as a card in the
    raw frame: across EDGE_SIDES of its sides its colour just inside the edge differs by EDGE_APART
    from the cloth just outside. The map's back label alone (FAINT_SHARE of the middle) is the
    cloth's own speckle on a patch of cloth, which has the cloth on both sides of every side."""
    apart = _edge_contrasts(view, b)
    return apart is not None and int(np.sum(apart > EDGE_APART)) >= EDGE_SIDES


def _edge_contrasts(view, b: CardBlob) -> np.ndarray | None:
    """The CIELAB distance across each side of a card (top, bottom, left, right): the median colour
    4-7 mm inside the edge against the median 4-7 mm outside (clear of a stack's edges and of a
    coarse pose a few millimetres off; a step, unlike the middle against the cloth, which a light
    falling off across the table shifts too). None when any of it lies outside the frame."""
    bgr, inside, _ = view.sample(_to_table(b, False, np.concatenate([_INSIDE_PLACES, _OUTSIDE_PLACES])))
    if not inside.all():
        return None
    lab = cv2.cvtColor(np.ascontiguousarray(bgr, np.float32).reshape(1, -1, 3) / 255.0, cv2.COLOR_BGR2LAB)[0]
    strips = np.median(lab.reshape(8, -1, 3), axis=1)  # four sides inside, then the same four outside
    return np.linalg.norm(strips[:4] - strips[4:], axis=1)


def _heads_seen(bgr: np.ndarray, inside: np.ndarray) -> np.ndarray:
    """Whether each card's middle (samples at _HEAD_PLACES; bgr (cards, places, 3)) is the goblin's
    green head on the ENIX grey: the head (26 mm across, 6 mm below the centre, either way up)
    covers every point within 4 mm of the centre even when the centre is a few millimetres off; the
    grey is sampled where neither the head nor the "ENIX" print lie. A back shows its blue-grey all
    over, a stack's stripes included."""
    n = len(_HEAD_RING) + len(_HEAD_BODY)
    lin = _linear(bgr).reshape(-1, n, 3)  # (cards x places sought, points, 3)
    inside = inside.reshape(-1, n).all(axis=1)
    head, grey = _median_rows(lin[:, :len(_HEAD_RING)]), _median_rows(lin[:, len(_HEAD_RING):])
    blue, green, red = head[:, 0], head[:, 1], head[:, 2]
    found = (green > HEAD_GREEN * np.maximum(red, blue)) & (green > HEAD_LIGHTER * grey.max(axis=1)) & inside
    return found.reshape(len(bgr), len(HEAD_SEARCH_MM)).any(axis=1)


_BORDER_T = np.linspace(-0.4, 0.4, 9)


def _edge_places(inset_mm: float) -> np.ndarray:
    """Nine points along each side of a card (card frame, mm), `inset_mm` inside its edge (outside
    if negative)."""
    w, h = CARD_MM[0] / 2 - inset_mm, CARD_MM[1] / 2 - inset_mm
    across, along = _BORDER_T * CARD_MM[0], _BORDER_T * CARD_MM[1]
    return np.concatenate([np.column_stack([across, np.full(9, -h)]), np.column_stack([across, np.full(9, h)]),
                           np.column_stack([np.full(9, -w), along]), np.column_stack([np.full(9, w), along])])


_BORDER_PLACES = _edge_places(1.3)  # on a face's white border (2.5 mm wide)
_PRINT_PLACES = _edge_places(4.5)  # on the face's print just inside it
_BEYOND_PLACES = _edge_places(-3.0)  # on the table just outside the card


def _edge_strips(near_mm: float, far_mm: float) -> np.ndarray:
    """Points of a band along each side (top, bottom, left, right; 18 each) between two insets (mm,
    negative: outside the card)."""
    return np.concatenate([_edge_places(near_mm).reshape(4, 9, 2), _edge_places(far_mm).reshape(4, 9, 2)],
                          axis=1).reshape(-1, 2)


_INSIDE_PLACES = _edge_strips(4.0, 7.0)  # a back just inside its edge
_OUTSIDE_PLACES = _edge_strips(-4.0, -7.0)  # the cloth just outside it

_HEAD_RING = np.array([(r * math.cos(t), r * math.sin(t)) for r in (0.0, 2.0, 4.0)
                       for t in np.linspace(0, 2 * math.pi, 8, endpoint=False)])
_HEAD_BODY = np.array([(x, y) for x in (-19.0, 19.0) for y in (-34.0, -20.0, 20.0, 34.0)])
# A dark card's coarse centre can be most of a head's radius off along its length (its black and
# grey split its blob): the test is made at a few places along it.
_HEAD_PLACES = np.concatenate([np.concatenate([_HEAD_RING, _HEAD_BODY]) + (0.0, along) for along in HEAD_SEARCH_MM])
_MARK_PLACES = np.concatenate([_BORDER_PLACES, _HEAD_PLACES])  # what _face_marks samples on each dark card


def value_of(ink: np.ndarray, off: np.ndarray) -> int | None:
    """The value whose drawing the ink (float32, the value's window grown by the search range, in
    the card's frame; `off`: where that window leaves the card) is, or None when unsure."""
    if float(ink.mean()) < MIN_INK:
        return None
    scores = _matches(ink)  # (blur, value, y, x)
    flat = scores.reshape(len(BLURS_MM), len(VALUES), -1)
    where = flat.argmax(axis=2)  # (the first best place in rows, as cv2.minMaxLoc's)
    peak = np.take_along_axis(flat, where[..., None], axis=2)[..., 0]
    best = []  # (score, value index, template, top-left of the match)
    for i in range(len(VALUES)):
        k = 0
        for j in range(1, len(BLURS_MM)):  # a blurrier drawing only when it matches better
            if peak[j, i] > peak[k, i]:
                k = j
        y, x = divmod(int(where[k, i]), scores.shape[3])
        best.append((float(peak[k, i]), i, templates(BLURS_MM[k])[i], (x, y)))
    best.sort(key=lambda b: -b[0])
    score, i, t, at = best[0]
    if score < MIN_MATCH:
        return None
    if VALUES[i] >= 0 and _sign_unseen(off, at[0], at[1], t.shape[0]):
        return None  # a minus could lie beyond what the camera shows of the card: no sign, no value
    # The typeface's digits share most of their strokes (6, 8, 9, 5, 0): a blurred 6 matches an 8
    # nearly as well. Each value nearly as good is told apart where the two drawings differ, each
    # where it matched best (a value with a minus sits elsewhere in the window than one without).
    for other_score, _, other, other_at in best[1:]:
        if score - other_score > RIVAL_MATCH:
            break
        if _separation(ink, t, at, other, other_at) < MIN_SEPARATION:
            return None
    return VALUES[i]


def _matches(ink: np.ndarray) -> np.ndarray:
    """cv2.matchTemplate(ink, t, TM_CCOEFF_NORMED) of every value's drawing at every blur, (blur,
    value, y, x): the forty share the ink's one Fourier transform and its window sums (forty
    matchTemplate calls each transform the ink and their template anew: about twice the cost)."""
    th, tw = templates(BLURS_MM[0])[0].shape
    ih, iw = ink.shape
    shape, spectra, norms = _drawn_spectra(ih, iw)
    # The correlation with a zero-mean drawing: the window's own mean drops out of the numerator.
    # (np.fft.irfft2's own two steps - down the columns, then along the rows - with the second only on
    # the rows where a match is sought: a quarter of them, the very same values.)
    columns = np.fft.ifft(np.fft.rfft2(ink, s=shape)[None, None] * spectra, shape[0], axis=-2)
    corr = np.fft.irfft(columns[..., :ih - th + 1, :], shape[1], axis=-1)[..., :iw - tw + 1]
    return _normalised(corr, ink, (th, tw), norms)


def _normalised(corr: np.ndarray, ink: np.ndarray, size: tuple[int, int], norms: np.ndarray) -> np.ndarray:
    """The correlations `corr` (blur, value, y, x) of (th, tw) = `size` windows of `ink` with the
    zero-mean drawings of norms `norms`, divided by each window's spread (TM_CCOEFF_NORMED)."""
    th, tw = size
    sums, squares = cv2.integral2(ink.astype(np.float64))[:2]
    n = th * tw

    def windows(a):
        return a[th:, tw:] - a[:-th, tw:] - a[th:, :-tw] + a[:-th, :-tw]

    total = windows(sums)
    spread = np.sqrt(np.maximum(windows(squares) - total * total / n, 0.0))
    scale = spread * norms[..., None, None]
    # A window of one even shade matches no drawing (0, not a ratio of rounding errors).
    return np.divide(corr, scale, out=np.zeros_like(corr), where=scale > 1e-9)


@lru_cache(maxsize=2)
def _drawn_spectra(ih: int, iw: int) -> tuple[tuple[int, int], np.ndarray, np.ndarray]:
    """The drawings' conjugate spectra (zero mean, padded to a transform size holding the ink's
    window: a circular correlation wraps only where no match is sought) and their norms."""
    shape = (cv2.getOptimalDFTSize(ih), cv2.getOptimalDFTSize(iw))
    drawn = np.array([[t - t.mean() for t in templates(blur)] for blur in BLURS_MM], np.float64)
    # Single precision, as the ink's own transform (float32 ink) under numpy 2: a fifth of double's
    # cost, the scores within about 1e-6 of matchTemplate's. (numpy 1.x, as apt's on the Pi, works
    # its FFTs in double whatever the input: the same scores, without that saving.)
    spectra = np.conj(np.fft.rfft2(drawn, s=shape)).astype(np.complex64)
    norms = np.sqrt((drawn * drawn).sum(axis=(2, 3)))
    spectra.setflags(write=False)
    norms.setflags(write=False)
    return shape, spectra, norms


def _separation(ink: np.ndarray, t: np.ndarray, at: tuple[int, int], other: np.ndarray,
                other_at: tuple[int, int]) -> float:
    """Where the ink lies between two values' drawings, each placed where it matched: positive
    towards the first, negative towards the second, 0 halfway. Ink that is exactly one of the
    drawings scores 0.28-0.59 towards it over the twenty values' pairs (not 0.5 exactly: the contrast
    is fitted to the mean alone, so the drawing with more strokes scores less; MIN_SEPARATION was
    set on this measure as it is). The ink's level and contrast are fitted to the
    two drawings' mean, and the rest is projected on their difference (least squares, over the
    window both cover): the strokes they share count for neither, the blur is in both drawings."""
    h, w = t.shape
    (xa, ya), (xb, yb) = at, other_at
    x0, y0, x1, y1 = max(xa, xb), max(ya, yb), min(xa, xb) + w, min(ya, yb) + h
    seen = ink[y0:y1, x0:x1].astype(np.float64)
    mine = t[y0 - ya:y1 - ya, x0 - xa:x1 - xa].astype(np.float64)
    theirs = other[y0 - yb:y1 - yb, x0 - xb:x1 - xb].astype(np.float64)
    mid = (mine + theirs) / 2.0
    mid_c, seen_c = mid - mid.mean(), seen - seen.mean()
    diff = mine - theirs
    spread, apart = float((mid_c * mid_c).sum()), float((diff * diff).sum())
    contrast = float((mid_c * seen_c).sum()) / max(spread, 1e-9)
    if contrast <= 1e-6 or apart <= 1e-9:
        return -1.0  # no ink like either drawing, or the same drawing: nothing tells them apart
    return float(((seen_c - contrast * mid_c) * diff).sum() / (contrast * apart))


def _sign_unseen(off: np.ndarray, x: int, y: int, h: int) -> bool:
    """Whether the place left of the matched value, where a minus would be, is off the card."""
    ppm = READ_PX_PER_MM
    # A one-digit value is centred where the template's middle is; with a minus, the minus would
    # take about 3 to 10 mm left of that middle.
    middle = x + WINDOW_MM[0] / 2 * ppm
    x0, x1 = max(int(round(middle - 10.0 * ppm)), 0), max(int(round(middle - 3.0 * ppm)), 0)
    zone = off[y + h // 4:y + 3 * h // 4, x0:x1]
    return zone.size == 0 or float(np.mean(zone)) > 0.3


def _upside_down(view, b: CardBlob) -> bool:
    """Which way up the card lies: its caption band (white, across the lower part) is at the bottom."""
    # (Both ends at once: a sampling costs a lens projection.)
    bgr, inside, _ = view.sample(_to_table(b, False, _CAPTION_PLACES))
    return _flips_of(bgr, inside, 1)[0]


def _flips_of(bgr: np.ndarray, inside: np.ndarray, count: int) -> list[bool]:
    """_upside_down of `count` cards from their samples at _CAPTION_PLACES, card after card: the end
    whose band is the lighter (least channel's median) is the bottom."""
    n = len(_CAPTION_PLACES) // 2
    out = []
    for c in range(count):
        ends = []
        for end in (slice(2 * n * c, 2 * n * c + n), slice(2 * n * c + n, 2 * n * (c + 1))):
            ends.append(_median(_least_channel(bgr[end])) if inside[end].any() else 0.0)
        out.append(ends[1] > ends[0])
    return out


# A face's colour in strips along both long sides, clear of its border's blur (3.5-5.5 mm inside),
# of the value (top left) and of the icon and the caption band; and its caption band's white at
# both ends, clear of the caption's print and of the face's colour around the band.
_FACE_COLOUR_PLACES = np.array([(x, y) for x in (21.0, 23.0) for y in np.arange(-38.0, 16.0, 2.0)]
                               + [(x, y) for x in (-21.0, -23.0) for y in np.arange(-20.0, 16.0, 2.0)])
_CAPTION_WHITE_PLACES = np.array([(x, y) for x in (-20.0, -18.0, -16.0, 16.0, 18.0, 20.0)
                                  for y in CAPTION_Y_MM + np.array([-3.0, -1.5, 0.0, 1.5, 3.0])])
_COLOUR_PLACES = np.concatenate([_FACE_COLOUR_PLACES, _CAPTION_WHITE_PLACES])  # what `_green_names` reads
_CAPTION_T = np.linspace(-15.0, 15.0, 7)
# Across the caption band's middle at both ends (card frame, mm): where the band would be either way up.
_CAPTION_PLACES = np.concatenate([np.column_stack([_CAPTION_T, np.full_like(_CAPTION_T, y)])
                                  for y in (CAPTION_Y_MM, -CAPTION_Y_MM)])


def _value_patches(view, faces: list[tuple[CardBlob, bool]]) -> list[tuple[np.ndarray, np.ndarray] | None]:
    """Per face: ink darkness (float32) over the value's window grown by the search range, in the
    card's frame, and where that window leaves the card (bool); None when the window is not seen.
    All faces sampled at once."""
    return _face_samples(view, faces, [])[0]


Samples = tuple[np.ndarray, np.ndarray, np.ndarray]  # TableView.sample's: BGR, inside, clipped


def _face_samples(view, faces: list[tuple[CardBlob, bool]], coloured: list[tuple[CardBlob, bool]]
                  ) -> tuple[list[tuple[np.ndarray, np.ndarray] | None], list[Samples]]:
    """`_value_patches` of `faces`, and the samples (BGR, inside, clipped) at _COLOUR_PLACES of the
    faces `coloured` (`_green_names`), all sampled at once: a sampling costs a lens projection and a
    remap (each point is read on its own: the same samples as apart)."""
    if not faces and not coloured:
        return [], []
    local, off = _value_grid()
    pts = ([_to_table(b, flip, local) for b, flip in faces]
           + [_to_table(b, flip, _COLOUR_PLACES) for b, flip in coloured])
    bgr, inside, clipped = view.sample(np.concatenate(pts))
    n, m, first = len(local), len(_COLOUR_PLACES), len(faces) * len(local)
    inks = [_ink(bgr[i * n:(i + 1) * n], inside[i * n:(i + 1) * n], off) for i in range(len(faces))]
    colours = [(bgr[first + i * m:first + (i + 1) * m], inside[first + i * m:first + (i + 1) * m],
                clipped[first + i * m:first + (i + 1) * m]) for i in range(len(coloured))]
    return inks, colours


def _ink(bgr: np.ndarray, inside: np.ndarray, off: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """One face's `_value_patches` answer from its samples over the value's window (row after row)."""
    if inside.mean() < 0.9:
        return None
    ny, nx = off.shape
    lin = _linear(bgr)
    lum = (0.0722 * lin[:, 0] + 0.7152 * lin[:, 1] + 0.2126 * lin[:, 2]).reshape(ny, nx)
    # The card's own colour is most of the window; ink is how much of its light is missing.
    card = float(np.percentile(lum, 60))
    ink = np.clip(1.0 - lum / max(card, 1e-4), 0.0, 1.0).astype(np.float32)
    # Beyond the card's edge is table, not ink.
    ink[off] = 0.0
    return ink, off


@lru_cache(maxsize=1)
def _value_grid() -> tuple[np.ndarray, np.ndarray]:
    """The value window's points (card frame, mm, row after row) and where they leave the card
    (ny, nx): made once, read-only."""
    ppm = READ_PX_PER_MM
    w, h = WINDOW_MM[0] + 2 * SEARCH_MM, WINDOW_MM[1] + 2 * SEARCH_MM
    nx, ny = int(round(w * ppm)), int(round(h * ppm))
    xs = VALUE_AT_MM[0] - w / 2 + (np.arange(nx) + 0.5) / ppm
    ys = VALUE_AT_MM[1] - h / 2 + (np.arange(ny) + 0.5) / ppm
    local = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
    off = ((np.abs(local[:, 0]) > CARD_MM[0] / 2) | (np.abs(local[:, 1]) > CARD_MM[1] / 2)).reshape(ny, nx)
    for a in (local, off):
        a.setflags(write=False)
    return local, off


@lru_cache(maxsize=4)
def templates(blur_mm: float) -> tuple[np.ndarray, ...]:
    """The twenty values as ink (float32, 1 = ink) in the value's window at READ_PX_PER_MM."""
    ppm = READ_PX_PER_MM
    nx, ny = int(round(WINDOW_MM[0] * ppm)), int(round(WINDOW_MM[1] * ppm))
    scale = 4  # drawn large, then reduced: smooth edges like a camera's
    size = max(4, int(round(VALUE_SIZE_MM * 1.35 * ppm * scale)))
    try:
        font = ImageFont.truetype(FONT, size)
    except OSError:
        font = ImageFont.load_default(size=size)
    out = []
    for v in VALUES:
        img = Image.new("L", (nx * scale, ny * scale), 0)
        ImageDraw.Draw(img).text((nx * scale / 2, ny * scale / 2), str(v), fill=255, font=font, anchor="mm")
        ink = cv2.resize(np.asarray(img, np.float32) / 255.0, (nx, ny), interpolation=cv2.INTER_AREA)
        out.append(cv2.GaussianBlur(ink, (0, 0), max(blur_mm * ppm, 0.3)))
    return tuple(out)
