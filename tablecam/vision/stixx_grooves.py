"""What lies in each of the 42 grooves: a stick of one of the six colours, the grey marker, nothing,
or something the camera cannot see through (a hand, a sleeve): then null, never a guess.

Each groove is read where a stick would lie, from the raw frame (white-balanced, sampled through
the table fix): a strip along the groove's axis, and the board itself on both sides (the middles
of the two triangles the groove separates).

- The sides must look like the board (its chromaticity, any brightness since a shadow only
  darkens; or the board washed out by the lamp's reflection): otherwise something lies over the
  groove and it is not read.
- A stick: its strip pixels fit taught colours under the shading/glare model of piece_colours.py
  (a pixel that needs more reflected white than colour votes for nothing: skin and a glared grey
  look like a washed-out orange or red). The colour is told where it shows best: a highlight
  only adds light and pushes a channel to the sensor's limit (a glossy orange under the lamp
  clips its red and looks yellow), so the unclipped pixels, else the least lit half, name it,
  provided the rest of the stick is that colour lit more. Grey is the marker.
- Empty: the strip has the board's colour, close to the sides and a little lighter (an empty
  groove is cut into the board and shows its paler floor), beside a board seen plainly. A
  uniform dark sleeve is as dark as the board but has no paler grooves, a grey marker in a
  shadow is as dark as a floor but not the board's colour: such grooves are not read.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from tablecam.rules.stixx.board import SLOTS, BoardPose

from .piece_colours import K_MIN, fit_residuals, linear_to_srgb, srgb_to_linear
from .stixx_board import board_to_table, groove_frames

# Where to sample, in mm of the board frame (for the default pitch; scaled with it).
STRIP_ALONG_MM = np.linspace(-17.0, 17.0, 12)  # a stick is 47 mm long; its rounded ends are left out
# A stick is 8 mm wide: its top and the start of both flanks (the lamp's highlight runs along one
# side of the top, so some rows show the colour unwashed). Whether the groove is empty is judged on
# the middle rows only (STRIP_MIDDLE): a blue stick's shaded flanks are nearly the board's navy.
STRIP_ACROSS_MM = np.array([-2.0, -0.8, 0.0, 0.8, 2.0])
STRIP_MIDDLE = np.abs(STRIP_ACROSS_MM) < 1.0
# The board either side: a patch around the triangle's middle (15.9 mm from each of its grooves),
# ten samples a side, whose median stays the board's colour in a dark, noisy frame.
SIDE_ALONG_MM = np.array([-8.0, -4.0, 0.0, 4.0, 8.0])  # all 8 mm or more from any other groove's stick
SIDE_ACROSS_MM = np.array([13.0, 17.0])

# Decision thresholds (tuned on simulator seeds < 100000, then on the failures of the bench's
# seeds 100000-100449 and 100500-100699; session 3: seeds 8000-8324 and hand-over-the-board renders
# of seeds 60000-61059; seeds from 200000 were kept unseen).
MAX_RESIDUAL = 0.25  # a strip pixel explained by a colour at least this well votes for it
MIN_SHARE = 0.6  # of the strip's pixels, voting for one colour, to read that colour
MIN_TELLING = 0.15  # of a strip's pixels: fewer unclipped ones than this do not decide its colour alone
LIT_MORE = 10.0  # shading gain allowed when checking that a stick's brighter half is its colour lit more
MAX_WASH = 0.35  # a pixel whose best colour needs more reflected white than colour votes for nothing
BOARD_LIKE = 0.12  # chromaticity distance from the board's model colour, to measure the board by
BOARD_SHIFTS = 3  # times the board's colour is measured again around the last measure (a colour cast)
GLARED_BOARD = 0.15  # piece_colours residual of a side as the board's colour in shade or under glare
SIDE_CHROMA = 0.15  # a side whose chromaticity is further than this from the board's: covered
SIDE_RATIO = (0.15, 3.0)  # ... or whose brightness is this far off the board's
SHADOW_RATIO = 0.3  # a side this much darker than the board is in a shadow: too dark to judge, no cover
HAND_ACROSS = 2  # of a side's ten samples, not the board on both sides of a groove: a hand lies across it
SHADE_FLOOR = 0.3  # a stick in a shadow is relit by the board's darkening beside it, at most this much (1/0.3)
SHADOW_RELIT = 0.7  # ... when the board beside it is darker than this (of the board's brightness in the frame)
EMPTY_DE = 22.0  # an empty groove's floor is within this (CIE76) of the board beside it
EMPTY_LIGHTER = 3.0  # ... and lighter than it by at least this (L*)
EMPTY_EVEN_DE = 25.0  # ... and every part of it within this (CIE76) of its middle's colour

EMPTY = ""  # a groove read as empty (None means: not read)


@dataclass(frozen=True)
class GrooveReading:
    content: tuple[str | None, ...]  # per slot: a colour name, EMPTY, or None (not read)
    covered: tuple[int, ...]  # slots not read because something lies over them


def sample_points(pose: BoardPose) -> tuple[np.ndarray, np.ndarray]:
    """Table mm of the strip (42, S, 2) and side (42, 2, A, 2) samples of every groove."""
    scale = pose.pitch / 55.0
    mids, dirs = groove_frames(pose.pitch)
    normals = np.stack([-dirs[:, 1], dirs[:, 0]], axis=1)
    along = STRIP_ALONG_MM * scale
    across = STRIP_ACROSS_MM * scale
    strip = (mids[:, None, None, :] + along[None, :, None, None] * dirs[:, None, None, :]
             + across[None, None, :, None] * normals[:, None, None, :]).reshape(SLOTS, -1, 2)
    side_along = np.repeat(SIDE_ALONG_MM, len(SIDE_ACROSS_MM)) * scale
    side_across = np.tile(SIDE_ACROSS_MM, len(SIDE_ALONG_MM)) * scale
    sides = (mids[:, None, None, :] + np.array([-1.0, 1.0])[None, :, None, None] * side_across[None, None, :, None]
             * normals[:, None, None, :] + side_along[None, None, :, None] * dirs[:, None, None, :])
    return board_to_table(pose, strip), board_to_table(pose, sides)


def read_grooves(sample, pose: BoardPose, names: tuple[str, ...], refs_bgr: np.ndarray,
                 board_bgr=(0x44, 0x2A, 0x1F)) -> GrooveReading:
    """`sample(points_mm) -> (white-balanced BGR (N, 3), inside (N,), clipped (N, 3))` (TableView.sample); `names`/`refs_bgr`: the taught
    stick colours (grey included, named as the Observation names it)."""
    strip_mm, side_mm = sample_points(pose)
    strip, strip_in, strip_clipped = sample(strip_mm.reshape(-1, 2))
    side, side_in, _ = sample(side_mm.reshape(-1, 2))
    strip = strip.reshape(SLOTS, -1, 3)
    side = side.reshape(SLOTS, 2, -1, 3)
    inside = strip_in.reshape(SLOTS, -1).all(axis=1) & side_in.reshape(SLOTS, -1).all(axis=1)

    side_colour = np.median(side, axis=2)  # (42, 2, 3) sRGB
    side_lin = srgb_to_linear(side_colour)
    samples_lin = srgb_to_linear(side)
    board_lin = _board_colour(samples_lin.reshape(-1, 3), board_bgr)
    chroma = side_lin / np.maximum(side_lin.sum(axis=2, keepdims=True), 1e-6)
    board_chroma = board_lin / max(float(board_lin.sum()), 1e-6)
    # The lamp's reflection washes the board out towards white: still the board, under glare.
    # (Not much darker than the board, though: with white added, a dark enough grey - a sleeve -
    # would pass for anything.)
    glared = fit_residuals(side_colour.reshape(-1, 3), linear_to_srgb(board_lin)[None],
                           k_range=(0.6, 3.0)).reshape(SLOTS, 2) < GLARED_BOARD
    ratio = side_lin.sum(axis=2) / max(float(board_lin.sum()), 1e-6)
    chroma_off = np.linalg.norm(chroma - board_chroma, axis=2)  # (42, 2)
    in_range = (ratio > SIDE_RATIO[0]) & (ratio < SIDE_RATIO[1])
    board_like = ((chroma_off < SIDE_CHROMA) | glared) & in_range
    # An empty groove is claimed only beside a board seen plainly: under glare a washed-out grey
    # marker looks like a groove's pale floor.
    sides_ok = ((chroma_off < SIDE_CHROMA) & in_range).all(axis=1)
    # A stick in a strong shadow (a hand's) may have a side too dark to show any colour; its own
    # colour still decides, so a dark side does not count as a cover for it.
    sides_ok_for_stick = (board_like | (ratio < SHADOW_RATIO)).all(axis=1)
    # A hand lying across a groove covers the board's edge on both sides of it, while each side's
    # median stays the board's as long as the hand covers fewer than half of its samples (2300277:
    # a thumb along a green stick, whose skin read red). Board seen plainly has at most one odd
    # sample on each side (noise, a grain) on the tuning sets.
    across = _hand_across(side, samples_lin, board_lin, inside & (sides_ok | sides_ok_for_stick))
    sides_ok &= ~across
    sides_ok_for_stick &= ~across

    rows = strip.reshape(SLOTS, len(STRIP_ALONG_MM), len(STRIP_ACROSS_MM), 3)
    middle = np.median(rows[:, :, STRIP_MIDDLE], axis=(1, 2))
    strip_lin = srgb_to_linear(middle)
    # The floor of an empty groove is the board's colour, lighter: a grey (the marker in a shadow)
    # as dark as that floor is not.
    floor_like = np.linalg.norm(strip_lin / np.maximum(strip_lin.sum(axis=1, keepdims=True), 1e-6) - board_chroma,
                                axis=1) < SIDE_CHROMA
    strip_lab = _lab(middle)
    side_lab = _lab(side_colour.mean(axis=1))
    near_board = np.linalg.norm(strip_lab - side_lab, axis=1) < EMPTY_DE
    lighter = strip_lab[:, 0] - side_lab[:, 0] > EMPTY_LIGHTER
    # ... all along the groove: a fingertip over one end of a dim stick in the hand's shadow leaves
    # a middle that passes for the floor, but the groove is not seen whole (then it is not read).
    along_lab = _lab(np.median(rows[:, :, STRIP_MIDDLE], axis=2)).reshape(SLOTS, len(STRIP_ALONG_MM), 3)
    floor_whole = np.linalg.norm(along_lab - strip_lab[:, None, :], axis=2).max(axis=1) < EMPTY_EVEN_DE

    # A hand's shadow darkens a stick and the board beside it alike, past the darkest shading a
    # colour fit accepts: the stick is read relit by as much as the board beside it is darkened.
    # Only in a shadow: the board's brightness varies by a fifth or so anyway (glare, uneven light),
    # and relighting a glossy orange by that pushes its red past the sensor's limit (yellow).
    shade = np.clip(ratio.max(axis=1), SHADE_FLOOR, 1.0)
    shade[shade > SHADOW_RELIT] = 1.0
    relit = srgb_to_linear(strip) / shade[:, None, None]
    strip_clipped = np.asarray(strip_clipped, bool) | (relit >= 1.0).reshape(-1, 3)
    strip = linear_to_srgb(np.minimum(relit, 1.0))
    rows = strip.reshape(rows.shape)
    residuals, wash = fit_residuals(strip.reshape(-1, 3), refs_bgr, strip_clipped, with_wash=True)
    residuals = residuals.reshape(SLOTS, strip.shape[1], len(names))
    wash = wash.reshape(SLOTS, strip.shape[1], len(names))
    best = np.argmin(residuals, axis=2)
    fits = np.take_along_axis(residuals, best[..., None], axis=2)[..., 0] < MAX_RESIDUAL
    # A colour explained mostly by reflected white is no longer told from the grey marker: such a
    # pixel votes for nothing (a glared stick is left unread rather than named grey or a colour).
    grey = [i for i, n in enumerate(names) if n == "grey"]
    washed = np.take_along_axis(wash, best[..., None], axis=2)[..., 0] > MAX_WASH
    if grey:
        washed &= best != grey[0]
    fits &= ~washed
    # A highlight only adds light and drives a channel to the sensor's limit (an orange's red: it
    # then looks yellow), so a stick's colour shows best where no channel is clipped, else in its
    # least lit half.
    unclipped = ~np.asarray(strip_clipped, bool).reshape(SLOTS, -1, 3).any(axis=2)
    level = srgb_to_linear(strip).sum(axis=2)
    dim = level <= np.median(level, axis=1, keepdims=True)
    middle_rows = np.tile(STRIP_MIDDLE, len(STRIP_ALONG_MM))
    # ... while the middle of the stick must still be that colour, lit more: with no bound on the
    # light (an orange lit past the sensor's red limit turns yellow-looking, not into skin).
    clipped_rows = np.asarray(strip_clipped, bool).reshape(rows.shape)
    lit_more = fit_residuals(rows[:, :, STRIP_MIDDLE].reshape(-1, 3), refs_bgr,
                             clipped_rows[:, :, STRIP_MIDDLE].reshape(-1, 3), k_range=(K_MIN, LIT_MORE),
                             brightest=np.inf).reshape(SLOTS, -1, len(names)) < MAX_RESIDUAL
    content: list[str | None] = []
    covered: list[int] = []
    for s in range(SLOTS):
        if not inside[s]:
            content.append(None)
            continue
        if near_board[s]:
            content.append(EMPTY if lighter[s] and sides_ok[s] and floor_like[s] and floor_whole[s] else None)
            if content[-1] is None:
                covered.append(s)
            continue
        if not sides_ok_for_stick[s]:
            content.append(None)
            covered.append(s)
            continue
        content.append(_stick_colour(best[s], fits[s], (unclipped[s], dim[s]), lit_more[s], middle_rows, names))
        if content[-1] is None:
            covered.append(s)
    return GrooveReading(tuple(content), tuple(covered))


def _stick_colour(best: np.ndarray, fits: np.ndarray, telling: tuple[np.ndarray, ...], lit_more: np.ndarray,
                  middle: np.ndarray, names: tuple[str, ...]) -> str | None:
    """The colour of a groove's stick from its strip pixels' best colours (`fits`: explained well
    enough to vote; `middle`: the strip's middle rows, on the stick whatever the blur and a
    millimetre of error in the pose; `lit_more` (middle pixels, colours): explained by a colour
    under any light).

    `telling` are the pixels that show the colour best, in order (the unclipped ones, the least lit
    half): the first that is a big enough part of the strip and mostly votes for one colour names it,
    if most of the middle rows are that colour under some light. Else the colour most of the
    middle rows vote for, else none."""
    for part in telling:
        if part.sum() < MIN_TELLING * len(best):
            continue
        votes = np.bincount(best[fits & part], minlength=len(names))
        top = int(np.argmax(votes))
        if votes[top] >= MIN_SHARE * part.sum() and lit_more[:, top].sum() >= MIN_SHARE * middle.sum():
            return names[top]
    votes = np.bincount(best[fits & middle], minlength=len(names))
    top = int(np.argmax(votes))
    if votes[top] < MIN_SHARE * middle.sum():
        return None
    # ... unless the stick's unclipped pixels say otherwise: a highlight along a glossy orange
    # clips its red on the lit side, which then reads yellow while the rest reads orange.
    part = telling[0]
    if part.sum() >= MIN_TELLING * len(best):
        shown = np.bincount(best[fits & part], minlength=len(names))
        if shown[top] < shown.max():
            return None
    return names[top]


def _hand_across(side: np.ndarray, side_lin: np.ndarray, board_lin: np.ndarray, asked: np.ndarray) -> np.ndarray:
    """(42,) whether each groove `asked` (the others are not read anyway) has at least HAND_ACROSS side
    samples (side: (42, 2, A, 3) sRGB, side_lin the same in linear light) unlike the board on both of
    its sides, by the tests a side's median passes: its chromaticity (or the board under glare) at a
    brightness near the board's, or a shadow too dark to judge. The glare fit is asked only of the few
    samples the others refuse, in grooves where enough are refused on both sides (most frames: none)."""
    total = max(float(board_lin.sum()), 1e-6)
    b, g, r = side_lin[..., 0], side_lin[..., 1], side_lin[..., 2]  # (channel by channel: numpy's sums
    level = b + g + r  # over a last axis of three are slow)
    ratio = level / total
    scale = 1.0 / np.maximum(level, 1e-6)
    cb, cg, cr = (board_lin / total).tolist()
    off2 = (b * scale - cb) ** 2 + (g * scale - cg) ** 2 + (r * scale - cr) ** 2
    in_range = (ratio > SIDE_RATIO[0]) & (ratio < SIDE_RATIO[1])
    unlike = ~(((off2 < SIDE_CHROMA ** 2) & in_range) | (ratio < SHADOW_RATIO))
    maybe = (unlike.sum(axis=2) >= HAND_ACROSS).all(axis=1) & asked
    if not maybe.any():
        return maybe
    ask = unlike & in_range & maybe[:, None, None]  # (the board washed out by the lamp: no cover)
    if ask.any():
        glared = fit_residuals(side[ask], linear_to_srgb(board_lin)[None], k_range=(0.6, 3.0))[:, 0] < GLARED_BOARD
        unlike[ask] = ~glared
    return (unlike.sum(axis=2) >= HAND_ACROSS).all(axis=1) & maybe


def _board_colour(sides_lin: np.ndarray, board_bgr) -> np.ndarray:
    """The board's colour in this frame: the median of the side samples whose chromaticity is near
    the board's model colour (a hand over half the board must not become the board's colour)."""
    model = srgb_to_linear(np.asarray(board_bgr, np.float32))
    model = model / max(float(model.sum()), 1e-6)
    chroma = sides_lin / np.maximum(sides_lin.sum(axis=1, keepdims=True), 1e-6)
    colour = None
    for _ in range(BOARD_SHIFTS):
        # Then again around the frame's own board colour: a colour cast (a cool lamp, a blue cloth's
        # reflection) moves the board's whole cluster off the model, and the samples nearest the
        # model are its fringe, not its middle (sides of a plain board then look "covered").
        near = np.linalg.norm(chroma - model, axis=1) < BOARD_LIKE
        if near.sum() < 0.1 * len(sides_lin):
            break
        colour = np.median(sides_lin[near], axis=0)
        model = colour / max(float(colour.sum()), 1e-6)
    return colour if colour is not None else np.median(sides_lin, axis=0)


def _lab(bgr: np.ndarray) -> np.ndarray:
    arr = np.asarray(bgr, dtype=np.float32).reshape(1, -1, 3) / 255.0
    return cv2.cvtColor(arr, cv2.COLOR_BGR2Lab).reshape(-1, 3)
