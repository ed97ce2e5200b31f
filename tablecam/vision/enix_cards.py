"""ENIX cards on the table: face up or down, the energy (or ENIX) of a face, and its value where
it can be read for sure.

The coarse map (enix_search.py) gives each card's kind, centre and the direction of its long side.
Two things are then read from the raw frame in the card's own frame:

- ENIX face or back: both are dark, but a face has a white border and a back has none.
- The value of an energy card (enix.md (model): black digits 12 mm high in the top-left corner,
  -10 to +9). The card may lie either way up, so the corner with ink is its top-left. The ink is
  compared with the twenty values drawn in the cards' typeface at the same place (a small shift
  allowed); the value is the best match if it is good and, against every value nearly as good,
  the ink lies on the strokes only it has; otherwise null: an unsure reading never becomes a number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from .enix_search import CARD_BORDER_MM, CARD_MM, CardBlob
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
STROKE = 0.2  # ... where one template has ink and the other not (by this much)...
MIN_EVIDENCE = 0.06  # ... by at least this much more ink on the best value's strokes
SURE_MATCH = 0.93  # a match this good...
SURE_MARGIN = 0.025  # ... ahead of every other value by this much is the value, strokes unexamined
MIN_INK = 0.02  # a corner with less ink than this (mean darkness) holds no value
MAX_SHIFT_MM = 8.0  # how far the border may say the coarse centre was off...
MAX_TURN_DEG = 25.0  # ... and its angle
ACROSS_AT_MM = (-21.5, 14.5)  # heights (card frame) of the across scans: below the value, clear of the icon
ALONG_AT_MM = 21.0  # side of the along scan (towards the top): clear of the icon and the value
CAPTION_Y_MM = 27.0  # the caption band's middle, below the card's centre (enix.md model)
BORDER_WHITE = 0.55  # share of border samples that must be white-ish for a face
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"  # the cards' typeface (as drawn by the simulator)


@dataclass(frozen=True)
class Card:
    energy: str | None  # an energy, "enix", or None (a back)
    value: int | None
    centre: tuple[float, float]
    face_up: bool


def read_cards(view, blobs: list[CardBlob], energies: tuple[str, ...]) -> tuple[list[Card], int]:
    """The cards, and how many values could not be read for sure."""
    cards: list[Card] = []
    unsure = 0
    for b in blobs:
        if b.kind in ("back", "enix"):
            face = _has_white_border(view, b)
            cards.append(Card("enix" if face else None, None, b.centre, face))
            continue
        fine = refine_face(view, b)
        value = read_value(view, fine) if fine is not None else None
        unsure += value is None
        cards.append(Card(b.kind, value, (fine or b).centre, True))
    return cards, unsure


def refine_face(view, b: CardBlob) -> CardBlob | None:
    """A face's centre and angle from its white border, or None when the border cannot be found all
    round (then its value is not read: the value's place is known only from the border).

    Scanned across at two heights clear of the value, the icon and the caption band (which gives
    the angle too), and along at a side clear of them; each scan finds where the colour meets the
    white border on both sides, in the raw frame. The coarse map's centre and angle can be
    millimetres and degrees off."""
    flip = _upside_down(view, b)
    inner = (CARD_MM[0] / 2 - CARD_BORDER_MM, CARD_MM[1] / 2 - CARD_BORDER_MM)
    centre, angle = np.asarray(b.centre, dtype=np.float64), b.angle
    for _ in range(2):
        here = CardBlob(b.kind, (float(centre[0]), float(centre[1])), angle)
        mids = {}
        for name, axis, at, half, sides in (("upper", 0, ACROSS_AT_MM[0], inner[0], (-1.0, 1.0)),
                                            ("lower", 0, ACROSS_AT_MM[1], inner[0], (-1.0, 1.0)),
                                            ("along", 1, ALONG_AT_MM, inner[1], (-1.0,))):
            mid = _border_middle(view, here, flip, axis, at, half, sides)
            if mid is None:
                return None
            mids[name] = mid
        # The across scans' middles drift with the angle error along the card's height.
        turn = math.degrees(math.atan2(mids["lower"] - mids["upper"], ACROSS_AT_MM[1] - ACROSS_AT_MM[0]))
        shift = np.array([(mids["upper"] + mids["lower"]) / 2, mids["along"]])
        if np.abs(shift).max() > MAX_SHIFT_MM or abs(turn) > MAX_TURN_DEG:
            return None
        right, down = _card_frame(here, flip)
        centre = centre + shift[0] * right + shift[1] * down
        # x turns towards y as the card turns clockwise; with the card upside down its frame is too.
        angle = (angle - turn) % 180.0
    return CardBlob(b.kind, (float(centre[0]), float(centre[1])), angle)


def _border_middle(view, b: CardBlob, flip: bool, axis: int, at: float, half: float, sides) -> float | None:
    """Where the face's middle lies along a scan, from its border on both sides; or, scanning one
    side only (the other crosses the caption band), from that side's border and the face's size."""
    t = np.arange(0.0, 0.75 * CARD_MM[1], 0.25)
    edges = []
    for sign in sides:
        local = np.zeros((len(t), 2))
        local[:, axis] = sign * t
        local[:, 1 - axis] = at
        bgr, inside, _ = view.sample(_to_table(b, flip, local))
        edge = _rise(srgb_to_linear(bgr.min(axis=1)), t, half)
        if edge is None or not inside.all():
            return None
        edges.append(sign * edge)
    if len(edges) == 1:
        return edges[0] - sides[0] * half
    return (edges[0] + edges[1]) / 2


def _rise(white: np.ndarray, t: np.ndarray, expected: float) -> float | None:
    """Where, going out from the middle, the face's colour gives way to the white border: the first
    crossing of half-way between the colour (near the middle) and the border's white, near where
    the border should be."""
    colour = float(np.median(white[t < 0.5 * expected]))
    near = (t > expected - MAX_SHIFT_MM) & (t < expected + MAX_SHIFT_MM + 3.0)
    if not near.any():
        return None
    top = float(white[near].max())
    if top - colour < 0.15:
        return None  # no white border to be seen
    level = (colour + top) / 2
    idx = np.flatnonzero(near & (white > level))
    if len(idx) == 0:
        return None
    k = int(idx[0])
    if k == 0:
        return float(t[0])
    # Linear interpolation between the samples either side of the crossing.
    a, b = white[k - 1], white[k]
    return float(t[k - 1] + (level - a) / max(b - a, 1e-6) * (t[k] - t[k - 1]))


def _card_frame(b: CardBlob, flip: bool) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors (table frame) of the card's x (right) and y (down, towards its bottom edge)."""
    a = math.radians(b.angle)
    down = np.array([math.cos(a), math.sin(a)])  # the long side
    if flip:
        down = -down
    right = np.array([down[1], -down[0]])  # x is y turned back a quarter turn (y points to the near side)
    return right, down


def _to_table(b: CardBlob, flip: bool, local: np.ndarray) -> np.ndarray:
    right, down = _card_frame(b, flip)
    return np.asarray(b.centre) + local[..., :1] * right + local[..., 1:2] * down


def _has_white_border(view, b: CardBlob) -> bool:
    w, h = CARD_MM
    inset = 1.3
    t = np.linspace(-0.4, 0.4, 9)
    local = np.concatenate([np.column_stack([t * w, np.full(9, -h / 2 + inset)]),
                            np.column_stack([t * w, np.full(9, h / 2 - inset)]),
                            np.column_stack([np.full(9, -w / 2 + inset), t * h]),
                            np.column_stack([np.full(9, w / 2 - inset), t * h])])
    bgr, inside, _ = view.sample(_to_table(b, False, local))
    if not inside.any():
        return False
    bgr = bgr[inside]
    bright = bgr.min(axis=1) > 150
    neutral = (bgr.max(axis=1) - bgr.min(axis=1)) < 0.25 * np.maximum(bgr.max(axis=1), 1)
    return float(np.mean(bright & neutral)) >= BORDER_WHITE


def read_value(view, b: CardBlob) -> int | None:
    """The value of an energy card face, or None when it cannot be read for sure."""
    got = _value_patch(view, b, _upside_down(view, b))
    if got is None:
        return None
    ink, off = got
    if float(ink.mean()) < MIN_INK:
        return None
    best = []  # (score, value index, template, top-left of the match)
    for i in range(len(VALUES)):
        for blur in BLURS_MM:
            t = templates(blur)[i]
            _, score, _, at = cv2.minMaxLoc(cv2.matchTemplate(ink, t, cv2.TM_CCOEFF_NORMED))
            if not best or i != best[-1][1] or score > best[-1][0]:
                if best and best[-1][1] == i:
                    best.pop()
                best.append((score, i, t, at))
    best.sort(key=lambda b: -b[0])
    score, i, t, (x, y) = best[0]
    if score < MIN_MATCH:
        return None
    # The typeface's digits share most of their strokes (6, 8, 9, 5, 0): the values nearly as good
    # are told apart by where they differ. Under the best match, the ink must be where this value
    # has strokes the other lacks, clearly more than where the other has strokes this one lacks.
    h, w = t.shape
    if VALUES[i] >= 0 and _sign_unseen(off, x, y, h):
        return None  # a minus could lie beyond what the camera shows of the card: no sign, no value
    if score >= SURE_MATCH and len(best) > 1 and score - best[1][0] >= SURE_MARGIN:
        return VALUES[i]  # clearly the best of the twenty: no rival to tell apart
    crop = ink[y:y + h, x:x + w]
    crop = crop / max(float(np.percentile(crop, 97)), 1e-3)
    for other_score, _, other, _ in best[1:]:
        if score - other_score > RIVAL_MATCH:
            break
        d = t - other
        mine, theirs = d > STROKE, d < -STROKE
        if mine.any() and theirs.any() and float(crop[mine].mean() - crop[theirs].mean()) < MIN_EVIDENCE:
            return None
    return VALUES[i]


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
    t = np.linspace(-15.0, 15.0, 7)
    ends = []
    for y in (CAPTION_Y_MM, -CAPTION_Y_MM):
        bgr, inside, _ = view.sample(_to_table(b, False, np.column_stack([t, np.full_like(t, y)])))
        ends.append(float(np.median(bgr.min(axis=1))) if inside.any() else 0.0)
    return ends[1] > ends[0]


def _value_patch(view, b: CardBlob, flip: bool) -> tuple[np.ndarray, np.ndarray] | None:
    """Ink darkness (float32) over the value's window grown by the search range, in the card's
    frame, and where that window leaves the card (bool)."""
    ppm = READ_PX_PER_MM
    w, h = WINDOW_MM[0] + 2 * SEARCH_MM, WINDOW_MM[1] + 2 * SEARCH_MM
    nx, ny = int(round(w * ppm)), int(round(h * ppm))
    xs = VALUE_AT_MM[0] - w / 2 + (np.arange(nx) + 0.5) / ppm
    ys = VALUE_AT_MM[1] - h / 2 + (np.arange(ny) + 0.5) / ppm
    local = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
    bgr, inside, _ = view.sample(_to_table(b, flip, local))
    if inside.mean() < 0.9:
        return None
    lin = srgb_to_linear(bgr)
    lum = (0.0722 * lin[:, 0] + 0.7152 * lin[:, 1] + 0.2126 * lin[:, 2]).reshape(ny, nx)
    # The card's own colour is most of the window; ink is how much of its light is missing.
    card = float(np.percentile(lum, 60))
    ink = np.clip(1.0 - lum / max(card, 1e-4), 0.0, 1.0).astype(np.float32)
    # Beyond the card's edge is table, not ink.
    off = (np.abs(local[:, 0]) > CARD_MM[0] / 2) | (np.abs(local[:, 1]) > CARD_MM[1] / 2)
    ink.reshape(-1)[off] = 0.0
    return ink, off.reshape(ny, nx)


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
