"""Colour profiles per game: the colours the detectors compare pieces against.

Until the user teaches them, a game's colours are the defaults of its page in shared/games
(copied below; tests check they still agree). Teaching takes ONE photo in which the user has
laid the game's coloured pieces in a row, in a fixed order; see `teach_colours` and
docs/calibration.md for the procedure.

Colours are stored as sRGB hex as seen under neutral light (after the marker-based white
balance of light.py), and compared in CIE Lab, where distance follows what people see.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from tablecam.calibration.light import LightReference, white_reference
from tablecam.calibration.topdown import rectify
from tablecam.calibration.table import TableFix
from tablecam.errors import UserError

# name -> sRGB hex, per game, from shared/games/<game>.md ("default sRGB" / "(model) colours").
DEFAULT_COLOURS: dict[str, tuple[tuple[str, str], ...]] = {
    "stixx": (("red", "#c81e28"), ("orange", "#f08214"), ("yellow", "#f5d21e"), ("green", "#28963c"),
              ("blue", "#1e50be"), ("purple", "#783296"), ("marker", "#8c8c8c")),
    "enix": (("solar", "#f5c800"), ("water", "#1e5ac8"), ("geothermal", "#c8282d"), ("waves", "#7a3c9c"),
             ("wind", "#f08c1e"), ("biomass", "#2d9641")),
    # micropul.md gives no stone colours: these are the simulator's red and blue stones, a model
    # to be replaced by teaching the players' own stones.
    "micropul": (("red", "#b81e26"), ("blue", "#1f48b0")),
}
DEFAULT_SOURCE = {
    "stixx": "defaults from games/stixx.md",
    "enix": "defaults from games/enix.md (model colours)",
    "micropul": "model defaults (micropul.md names no stone colours): teach your stones",
}


@dataclass(frozen=True)
class TeachSpec:
    """What to lay in a row for a game, left to right as seen from the camera."""

    names: tuple[str, ...]
    piece: str
    piece_area_mm2: float  # seen from above, to tell pieces from crumbs and from each other
    renamable: bool  # the names are the players' choice (stones), not the game's vocabulary


TEACHING: dict[str, TeachSpec] = {
    "stixx": TeachSpec(("red", "orange", "yellow", "green", "blue", "purple"), "stick", 8 * 47, False),
    "enix": TeachSpec(("solar", "water", "geothermal", "waves", "wind", "biomass"), "energy hex", 10640, False),
    "micropul": TeachSpec(("red", "blue"), "stone", 95, True),
}

# The table must differ from the pieces by at least this (CIE76 Delta E) to see them.
MIN_CONTRAST_DE = 18.0
SIMILAR_DE = 10.0  # two taught colours closer than this will be confused


@dataclass(frozen=True)
class ColourProfile:
    game: str
    colours: tuple[tuple[str, str], ...]  # (name, "#rrggbb" sRGB)
    source: str = ""
    taught: bool = False

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(n for n, _ in self.colours)

    def rgb(self, name: str) -> tuple[int, int, int]:
        for n, hx in self.colours:
            if n == name:
                return hex_to_rgb(hx)
        raise KeyError(name)

    def lab(self) -> np.ndarray:
        """(N, 3) CIE Lab of the colours, in `names` order."""
        return bgr_to_lab(np.array([hex_to_rgb(hx)[::-1] for _, hx in self.colours], dtype=np.float64))

    def classify(self, bgr) -> tuple[list[str], np.ndarray]:
        """Nearest profile colour of each (white-balanced) BGR colour (N, 3), and its Delta E."""
        lab = bgr_to_lab(np.asarray(bgr, dtype=np.float64).reshape(-1, 3))
        d = np.linalg.norm(lab[:, None, :] - self.lab()[None, :, :], axis=2)
        idx = np.argmin(d, axis=1)
        return [self.names[i] for i in idx], d[np.arange(len(idx)), idx]

    def to_dict(self) -> dict:
        return {"source": self.source, "taught": self.taught, "colours": dict(self.colours)}

    @classmethod
    def from_dict(cls, game: str, d: dict) -> "ColourProfile":
        if not isinstance(d, dict) or not isinstance(d.get("colours"), dict) or not d["colours"]:
            raise ValueError(f"the {game} colour profile needs a 'colours' table of name: \"#rrggbb\"")
        colours = []
        for name, hx in d["colours"].items():
            hex_to_rgb(hx)  # validates
            colours.append((str(name), str(hx).lower()))
        return cls(game, tuple(colours), str(d.get("source", "")), bool(d.get("taught", False)))


def default_profile(game: str) -> ColourProfile:
    if game not in DEFAULT_COLOURS:
        raise UserError(f"no colours are known for {game!r}: choose one of {', '.join(sorted(DEFAULT_COLOURS))}.")
    return ColourProfile(game, DEFAULT_COLOURS[game], DEFAULT_SOURCE[game], False)


@dataclass(frozen=True)
class TaughtPiece:
    name: str
    rgb: tuple[int, int, int]
    centre_mm: tuple[float, float]
    area_mm2: float


@dataclass(frozen=True)
class TeachResult:
    profile: ColourProfile
    pieces: tuple[TaughtPiece, ...]
    light: LightReference
    warnings: tuple[str, ...] = ()


def teach_colours(image: np.ndarray, fix: TableFix, game: str, names: Sequence[str] | None = None,
                  source: str = "taught from a photo") -> TeachResult:
    """Learns a game's colours from one frame in which its pieces lie in a row.

    Procedure (docs/calibration.md): inside the marker frame, on the bare table (a sheet of white
    paper under them helps on a busy or similar-coloured table), lay one piece of each colour in
    the order of TEACHING[game].names, left to right as seen from the camera, at least 10 mm
    apart, nothing else inside the frame. Each piece is found as a blob that differs from the
    table, the blobs are sorted by x, and each one's colour is the median of its inner part after
    the white balance of this frame.
    """
    if game not in TEACHING:
        raise UserError(f"there are no colours to teach for {game!r}: choose one of {', '.join(sorted(TEACHING))}.")
    spec = TEACHING[game]
    names = tuple(names) if names else spec.names
    if names != spec.names and not spec.renamable:
        raise UserError(f"{game} colours are the game's own ({', '.join(spec.names)}) and cannot be renamed.")
    if len(names) != len(spec.names) or len(set(names)) != len(names) or not all(n.strip() for n in names):
        raise UserError(f"{game} needs {len(spec.names)} different colour names, not {', '.join(names) or 'none'}.")
    if image.ndim != 3 or image.shape[2] != 3:
        raise UserError("colour teaching needs a colour photo.")

    light = white_reference(image, fix)
    ppm = 2.0 if spec.piece_area_mm2 < 2000 else 1.0
    rect = rectify(image, fix, ppm, margin_mm=0.0)
    valid = _valid_area(image, fix, rect.raster, ppm)
    corrected = light.correct(rect.image)
    lab = bgr_to_lab(corrected.reshape(-1, 3).astype(np.float64)).reshape(corrected.shape)
    table_lab = np.median(lab[valid], axis=0)
    diff = np.linalg.norm(lab - table_lab, axis=2)
    spread = float(np.median(diff[valid]))
    threshold = max(MIN_CONTRAST_DE, 4.0 * spread)
    mask = ((diff > threshold) & valid).astype(np.uint8)
    k = max(3, int(round(2.0 * ppm)) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel)

    count, labels, stats, centroids = cv2.connectedComponentsWithStats(mask, connectivity=8)
    min_area = 0.4 * spec.piece_area_mm2 * ppm * ppm
    h, w = mask.shape
    blobs = []
    for i in range(1, count):
        x, y, bw, bh, area = stats[i]
        if area < min_area:
            continue
        if x == 0 or y == 0 or x + bw >= w or y + bh >= h:
            continue  # cut by the frame's edge: not a piece laid out to be taught
        blobs.append((int(area), i))
    blobs.sort(reverse=True)
    n = len(names)
    if len(blobs) > n and blobs[n][0] < 0.5 * blobs[n - 1][0]:
        blobs = blobs[:n]  # the extra blobs are much smaller than any piece: crumbs, shadows, a pencil
    if len(blobs) != n:
        raise UserError(f"found {len(blobs)} {spec.piece}s, expected {n} ({', '.join(names)}) laid in a row "
                        f"inside the markers on the bare table, nothing else there.")
    ordered = sorted(blobs, key=lambda b: centroids[b[1]][0])
    xs = [centroids[i][0] / ppm for _, i in ordered]
    if any(b - a < 5.0 for a, b in zip(xs, xs[1:])):
        raise UserError(f"the {spec.piece}s must lie side by side from left to right (as seen from the camera), "
                        "not one above the other.")

    pieces = []
    erode = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (max(3, int(3 * ppm) | 1),) * 2)
    for name, (area, i) in zip(names, ordered):
        blob = (labels == i).astype(np.uint8)
        inner = cv2.erode(blob, erode)
        use = inner if np.count_nonzero(inner) >= 20 else blob
        bgr = np.median(corrected[use.astype(bool)], axis=0)
        rgb = tuple(int(round(v)) for v in bgr[::-1])
        centre = rect.px_to_mm(centroids[i][None])[0]
        pieces.append(TaughtPiece(name, rgb, (float(centre[0]), float(centre[1])), area / ppm / ppm))

    profile = _merge(default_profile(game), pieces, source)
    warnings = list(light.warnings) + _teaching_warnings(game, pieces, names == spec.names)
    return TeachResult(profile, tuple(pieces), light, tuple(warnings))


def _merge(defaults: ColourProfile, pieces: list[TaughtPiece], source: str) -> ColourProfile:
    colours = [(p.name, rgb_to_hex(p.rgb)) for p in pieces]
    # Colours outside the teaching row (Stixx's grey marker) keep their defaults.
    row = set(TEACHING[defaults.game].names)
    colours += [(n, hx) for n, hx in defaults.colours if n not in row]
    return ColourProfile(defaults.game, tuple(colours), source, True)


def _teaching_warnings(game: str, pieces: list[TaughtPiece], default_names: bool) -> list[str]:
    out = []
    bgr = np.array([p.rgb[::-1] for p in pieces], dtype=np.float64)
    lab = bgr_to_lab(bgr)
    for i in range(len(pieces)):
        for j in range(i + 1, len(pieces)):
            d = float(np.linalg.norm(lab[i] - lab[j]))
            if d < SIMILAR_DE:
                out.append(f"{pieces[i].name} and {pieces[j].name} look alike under this light (Delta E {d:.0f}): "
                           "the detector may confuse them")
    if default_names:
        defaults = default_profile(game)
        names, _ = defaults.classify(bgr)
        for p, nearest in zip(pieces, names):
            if nearest != p.name and nearest in TEACHING[game].names:
                out.append(f"the piece taught as {p.name} looks more like {nearest}: check the order "
                           f"({', '.join(TEACHING[game].names)}, left to right)")
    return out


def _valid_area(image: np.ndarray, fix: TableFix, raster, ppm: float) -> np.ndarray:
    """Rectified pixels that the camera saw and that are not a marker with its quiet zone."""
    seen = rectify(np.full(image.shape[:2], 255, np.uint8), fix, ppm, margin_mm=0.0).image > 128
    seen = cv2.erode(seen.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    g = fix.geometry
    keep_out = g.marker_mm / 2 + g.marker_mm / 3  # the marker, its quiet zone and a little more
    for m in range(4):
        cx, cy = g.marker_centre(m)
        (x0, y0), (x1, y1) = raster.mm_to_px([(cx - keep_out, cy - keep_out), (cx + keep_out, cy + keep_out)])
        seen[max(int(y0), 0):max(int(np.ceil(y1)) + 1, 0), max(int(x0), 0):max(int(np.ceil(x1)) + 1, 0)] = False
    return seen


def bgr_to_lab(bgr: np.ndarray) -> np.ndarray:
    """CIE Lab (L 0..100) of sRGB BGR values 0..255, shape (N, 3)."""
    arr = (np.asarray(bgr, dtype=np.float32).reshape(1, -1, 3) / 255.0).astype(np.float32)
    return cv2.cvtColor(arr, cv2.COLOR_BGR2Lab).reshape(-1, 3).astype(np.float64)


def hex_to_rgb(hx: str) -> tuple[int, int, int]:
    s = str(hx).strip()
    if len(s) != 7 or s[0] != "#":
        raise ValueError(f"a colour is written #rrggbb, not {hx!r}")
    try:
        return int(s[1:3], 16), int(s[3:5], 16), int(s[5:7], 16)
    except ValueError:
        raise ValueError(f"a colour is written #rrggbb, not {hx!r}") from None


def rgb_to_hex(rgb: Sequence[int]) -> str:
    r, g, b = (int(np.clip(round(v), 0, 255)) for v in rgb)
    return f"#{r:02x}{g:02x}{b:02x}"
