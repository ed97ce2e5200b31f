"""Where the Stixx board lies: its centre and rotation, from the pattern of its grooves.

The board is a dark hexagon cut by 42 grooves along three directions 60 degrees apart (a
triangular lattice), most of them holding a bright stick. Its colour alone does not find it (a
blue or slate cloth is as dark and as blue), but that three-way pattern does:

1. Where: gradient directions, averaged over a board-sized window as harmonics. Lines along three
   directions 60 degrees apart add up in the sixth harmonic and cancel in the second and fourth;
   wood grain, a row of parallel sticks or a marker's square edges fill the second or fourth as
   much as the sixth, and plain cloth has little gradient at all. |6th| - max(|2nd|, |4th|) peaks
   on the board.
2. Rotation (modulo 60 degrees, as the board looks the same every sixth of a turn): the angle of
   the sixth harmonic there.
3. Centre: the groove pattern drawn at that rotation, correlated with each pixel's colour
   distance from the board's around the peak; the few best places are kept (a hand over the
   board can make a patch of table beside it correlate better than the half-hidden board), each
   with its rotation refined. Which place, if any, is a board (a wrong game, an empty table,
   ENIX rays on a blue cloth) is for the grooves to say (stixx_grooves.py, stixx.py).

Geometry (intersections, grooves, slot numbering) is games/stixx.md's, taken from
`tablecam.rules.stixx.board`, whose functions are pure geometry: the slot numbers a detector
prints must be the very ones the rules engine reads.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from tablecam.rules.stixx.board import SLOTS, BoardPose, board_xy, ends, grooves, midpoint

PITCH_MM = 55.0  # L, distance between neighbouring intersections (stixx.md default, a setting)
PLATE_RADIUS = 2.65  # the plate's corners, in L, beyond the outer intersections (the board's look)
GROOVE_WIDTH = 8.0 / 55.0  # of L: the bright line a stick or an empty groove makes
WINDOW = 3.6  # of L: the harmonics' averaging window, about the board's width
CANDIDATES = 3  # structure peaks tried, best first
SEARCH_PITCHES = 2.2  # the pattern is searched this far (in L) around a peak (a hand over the board moves the peak)
PLACES_PER_PEAK = 3  # best places of the pattern tried around each peak
PLACES_APART = 0.5  # of L: two places nearer than this are one
REFINE_STEPS = 12  # half-degree steps the rotation may climb from the structure's angle (a hand over the board can pull that angle 4 degrees or more off)
MIN_MATCH = 0.08  # normalised correlation of the groove pattern worth reading as a board (tuned on seeds < 100000)
ANGLE_STEP_DEG = 0.25  # templates are drawn at this angular resolution
BOARD_BGR = (0x44, 0x2A, 0x1F)  # stixx.md: navy #1f2a44 (a setting: boards differ)
FAR_DE = 60.0  # colour distances are clipped here: a stick is far from the board, whatever its colour


@dataclass(frozen=True)
class BoardFit:
    pose: BoardPose  # centre in table mm, rotation in [0, 60)
    match: float  # normalised correlation of the groove pattern at the pose
    at_px: tuple[float, float] = (0.0, 0.0)  # the centre in the search image


@dataclass(frozen=True, eq=False)
class BoardSearch:
    """Where the groove pattern matches in one frame (`fits`, best first, the rotation as the
    structure gave it), and what it takes to refine one of them."""

    fits: list[BoardFit]
    away: np.ndarray  # each search pixel's colour distance from the board's, clipped at FAR_DE
    ppm: float
    pitch_mm: float
    px_to_mm: object

    def refined(self, fit: BoardFit) -> BoardFit:
        """The fit with its rotation refined (and its centre found again at that rotation); the
        caller refines place after place, best match first, until one reads as a board plainly."""
        (cx, cy), theta, match = _refine(self.away, FAR_DE, fit.at_px, fit.pose.rotation, fit.match, self.ppm,
                                         self.pitch_mm)
        centre = self.px_to_mm(np.array([[cx, cy]]))[0]
        return BoardFit(BoardPose((float(centre[0]), float(centre[1])), theta % 60.0, self.pitch_mm), match, (cx, cy))


def find_boards(top_bgr: np.ndarray, valid: np.ndarray, ppm: float, px_to_mm, pitch_mm: float = PITCH_MM,
                board_bgr: tuple[float, float, float] = BOARD_BGR) -> BoardSearch:
    """Places in a white-balanced top-down image at `ppm` px/mm (`px_to_mm` maps its pixels to table
    mm) where the groove pattern matches, best first. The caller confirms one by reading its
    grooves, then refines it (BoardSearch.refined)."""
    grey = cv2.cvtColor(top_bgr, cv2.COLOR_BGR2GRAY).astype(np.float32)
    fill = float(np.median(grey[valid])) if valid.any() else 0.0
    grey[~valid] = fill  # markers and the unseen border must not look like structure
    score, z6 = _structure(grey, int(round(WINDOW * pitch_mm * ppm)) | 1)
    # The pattern is matched on how far each pixel is from the board's colour: the triangles between
    # grooves are near 0, an empty groove a little more, every stick far more, whatever its colour.
    away = colour_distance(top_bgr, board_bgr)
    np.minimum(away, FAR_DE, out=away)
    away[~valid] = FAR_DE
    found: list[BoardFit] = []
    for x, y in _peaks(score, int(round(2.0 * pitch_mm * ppm)), CANDIDATES):
        theta = (math.degrees(math.atan2(z6[1][y, x], z6[0][y, x])) - 180.0) / 6.0 % 60.0
        # Not only the best place: a hand over the board can make a patch of table beside it
        # correlate better than the board's half-hidden pattern. The grooves decide (the caller).
        for (cx, cy), match in _match_places(away, FAR_DE, (x, y), theta, ppm, pitch_mm):
            centre = px_to_mm(np.array([[cx, cy]]))[0]
            if any(math.dist(centre, f.pose.centre) < PLACES_APART * pitch_mm for f in found):
                continue  # two peaks on one board
            drawn = int(round(theta / ANGLE_STEP_DEG)) * ANGLE_STEP_DEG % 60.0
            found.append(BoardFit(BoardPose((float(centre[0]), float(centre[1])), drawn, pitch_mm), match, (cx, cy)))
    return BoardSearch(sorted(found, key=lambda f: -f.match), away, ppm, pitch_mm, px_to_mm)


def colour_distance(bgr: np.ndarray, ref_bgr) -> np.ndarray:
    """CIE76 distance (float32, per pixel) of a BGR uint8 image from one sRGB BGR colour."""
    lab = cv2.cvtColor(bgr.astype(np.float32) * np.float32(1 / 255.0), cv2.COLOR_BGR2Lab)
    ref = cv2.cvtColor(np.array([[ref_bgr]], np.float32) / 255.0, cv2.COLOR_BGR2Lab)[0, 0]
    diff = cv2.subtract(lab, tuple(float(v) for v in ref) + (0.0,))
    return cv2.sqrt(cv2.transform(cv2.multiply(diff, diff), np.ones((1, 3), np.float32)))


def _structure(grey: np.ndarray, window: int) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    mag = cv2.magnitude(gx, gy)
    c = gx / np.maximum(mag, 1e-3)
    s = gy / np.maximum(mag, 1e-3)
    # Harmonics of the direction (cos kφ, sin kφ) from cos φ, sin φ by the double-angle rules.
    c2, s2 = c * c - s * s, 2 * c * s
    c4, s4 = c2 * c2 - s2 * s2, 2 * c2 * s2
    c6, s6 = c4 * c2 - s4 * s2, s4 * c2 + c4 * s2

    def avg(a: np.ndarray) -> np.ndarray:
        return cv2.boxFilter(mag * a, -1, (window, window), borderType=cv2.BORDER_CONSTANT)

    z2 = cv2.magnitude(avg(c2), avg(s2))
    z4 = cv2.magnitude(avg(c4), avg(s4))
    r6, i6 = avg(c6), avg(s6)
    score = cv2.magnitude(r6, i6) - cv2.max(z2, z4)
    return score, (r6, i6)


def _peaks(score: np.ndarray, apart: int, count: int) -> list[tuple[int, int]]:
    k = max(3, apart | 1)
    top = cv2.dilate(score, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    ys, xs = np.nonzero((score >= top) & (score > 0))
    order = np.argsort(-score[ys, xs])[:count]
    return [(int(xs[i]), int(ys[i])) for i in order]


@lru_cache(maxsize=256)
def pattern(ppm: float, theta_q: int, pitch_mm: float) -> np.ndarray:
    """The groove pattern at rotation theta_q * ANGLE_STEP_DEG, zero-mean: grooves positive, the
    triangles between them negative, nothing outside the plate."""
    theta = theta_q * ANGLE_STEP_DEG
    radius = PLATE_RADIUS * pitch_mm
    n = int(math.ceil(2 * radius * ppm)) | 1
    c = (n - 1) / 2
    a = math.radians(theta)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    shift, one = 4, 16

    def px(p) -> tuple[int, int]:
        q = rot @ np.array(board_xy(p, pitch_mm)) * ppm + c
        return int(round(q[0] * one)), int(round(q[1] * one))

    lines = np.zeros((n, n), np.float32)
    wide = np.zeros((n, n), np.float32)
    for u, v in grooves():
        cv2.line(lines, px(u), px(v), 1.0, max(1, int(round(GROOVE_WIDTH * pitch_mm * ppm))), cv2.LINE_AA, shift)
        cv2.line(wide, px(u), px(v), 1.0, max(1, int(round(0.36 * pitch_mm * ppm))), cv2.LINE_AA, shift)
    plate = np.zeros((n, n), np.float32)
    corners = [rot @ np.array([radius * math.cos(math.radians(60 * k)), radius * math.sin(math.radians(60 * k))])
               * 0.97 * ppm + c for k in range(6)]
    cv2.fillPoly(plate, [np.round(np.array(corners) * one).astype(np.int32)], 1.0, cv2.LINE_AA, shift)
    between = plate * (1.0 - np.clip(wide, 0.0, 1.0))
    return lines / lines.sum() - between / between.sum()


def _correlation(away: np.ndarray, fill: float, at: tuple[int, int], theta: float, ppm: float, pitch_mm: float,
                 win: int) -> tuple[np.ndarray, tuple[float, float], float]:
    """Normalised correlation of the pattern at rotation `theta` with centres within `win` px of
    `at`; the map's (0, 0) is the centre at (x0, y0) returned, and the rotation the pattern has."""
    q = int(round(theta / ANGLE_STEP_DEG))
    t = pattern(round(ppm, 4), q, pitch_mm)
    n = t.shape[0]
    x0, y0 = at[0] - n // 2 - win, at[1] - n // 2 - win
    res = cv2.matchTemplate(_crop(away, fill, x0, y0, n + 2 * win, n + 2 * win), t, cv2.TM_CCOEFF_NORMED)
    return res, (x0 + (n - 1) / 2, y0 + (n - 1) / 2), q * ANGLE_STEP_DEG


def _match_places(away: np.ndarray, fill: float, at: tuple[int, int], theta: float, ppm: float,
                  pitch_mm: float) -> list[tuple[tuple[float, float], float]]:
    """Up to PLACES_PER_PEAK centres (px) within SEARCH_PITCHES of `at` where the pattern at
    rotation `theta` correlates best (local maxima at least MIN_MATCH, best first)."""
    res, (ox, oy), _ = _correlation(away, fill, at, theta, ppm, pitch_mm,
                                    int(round(SEARCH_PITCHES * pitch_mm * ppm)))
    k = max(3, int(round(PLACES_APART * pitch_mm * ppm)) | 1)
    top = cv2.dilate(res, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    ys, xs = np.nonzero((res >= top) & (res >= MIN_MATCH))
    order = np.argsort(-res[ys, xs])[:PLACES_PER_PEAK]
    out = []
    for i in order:
        dx, dy = _subpixel(res, int(xs[i]), int(ys[i]))
        out.append(((ox + xs[i] + dx, oy + ys[i] + dy), float(res[ys[i], xs[i]])))
    return out


def _match_pattern(away: np.ndarray, fill: float, at: tuple[int, int], theta: float, ppm: float,
                   pitch_mm: float, win: int = 4) -> tuple[tuple[float, float], float, float]:
    """Best centre (px) within `win` px of `at` for the pattern at rotation `theta`, the rotation
    the pattern was drawn at, and the normalised correlation there."""
    res, (ox, oy), drawn = _correlation(away, fill, at, theta, ppm, pitch_mm, win)
    _, peak, _, (px_, py_) = cv2.minMaxLoc(res)
    dx, dy = _subpixel(res, px_, py_)
    return (ox + px_ + dx, oy + py_ + dy), drawn, float(peak)


def _refine(away: np.ndarray, fill: float, at: tuple[float, float], theta: float, peak: float, ppm: float,
            pitch_mm: float) -> tuple[tuple[float, float], float, float]:
    """The rotation refined by climbing in half degrees (the structure's angle can be a degree or
    two off when a hand lies over the board) until neither neighbour is better, then a parabola
    through the three; the centre follows, found again at each rotation."""
    centre, theta = at, int(round(theta / ANGLE_STEP_DEG)) * ANGLE_STEP_DEG
    for _ in range(REFINE_STEPS):
        here = (int(round(centre[0])), int(round(centre[1])))
        lo = _match_pattern(away, fill, here, theta - 0.5, ppm, pitch_mm)
        hi = _match_pattern(away, fill, here, theta + 0.5, ppm, pitch_mm)
        if peak >= max(lo[2], hi[2]):
            d = lo[2] - 2 * peak + hi[2]
            if abs(d) > 1e-9:
                theta += float(np.clip(0.5 * (lo[2] - hi[2]) / d, -0.5, 0.5)) * 0.5
            return centre, theta, peak
        centre, theta, peak = max((lo, hi), key=lambda f: f[2])
    return centre, theta, peak


def _crop(img: np.ndarray, fill: float, x0: int, y0: int, w: int, h: int) -> np.ndarray:
    """img[y0:y0+h, x0:x0+w], filled with `fill` where it reaches beyond the image."""
    H, W = img.shape
    out = np.full((h, w), fill, np.float32)
    sx0, sy0, sx1, sy1 = max(x0, 0), max(y0, 0), min(x0 + w, W), min(y0 + h, H)
    if sx0 < sx1 and sy0 < sy1:
        out[sy0 - y0:sy1 - y0, sx0 - x0:sx1 - x0] = img[sy0:sy1, sx0:sx1]
    return out


def _subpixel(res: np.ndarray, x: int, y: int) -> tuple[float, float]:
    h, w = res.shape

    def vertex(a: float, b: float, c: float) -> float:
        d = a - 2 * b + c
        return float(np.clip(0.5 * (a - c) / d, -0.5, 0.5)) if abs(d) > 1e-9 else 0.0

    dx = vertex(res[y, x - 1], res[y, x], res[y, x + 1]) if 0 < x < w - 1 else 0.0
    dy = vertex(res[y - 1, x], res[y, x], res[y + 1, x]) if 0 < y < h - 1 else 0.0
    return dx, dy


# --- where to look in each groove ------------------------------------------------------------------
@lru_cache(maxsize=8)
def groove_frames(pitch_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """Per slot, in the board frame: the groove's middle (42, 2) and its unit direction (42, 2)."""
    mids = np.array([midpoint(s, pitch_mm) for s in range(SLOTS)])
    dirs = []
    for s in range(SLOTS):
        a, b = ends(s)
        d = np.subtract(board_xy(b), board_xy(a))
        dirs.append(d / np.linalg.norm(d))
    return mids, np.array(dirs)


def board_to_table(pose: BoardPose, points: np.ndarray) -> np.ndarray:
    """Board-frame points (..., 2) in mm -> table mm."""
    a = math.radians(pose.rotation)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return points @ rot.T + np.asarray(pose.centre)


def plate_polygon(pose: BoardPose) -> np.ndarray:
    """The plate's six corners in table mm."""
    r = PLATE_RADIUS * pose.pitch
    local = np.array([(r * math.cos(math.radians(60 * k)), r * math.sin(math.radians(60 * k))) for k in range(6)])
    return board_to_table(pose, local)
