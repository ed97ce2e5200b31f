"""Enigmo: a camera frame -> the Enigmo Observation of ARCHITECTURE.md.

    obs = detect(image, shutter_row_mm=[[x, y], ...])            # one photo
    detector = EnigmoDetector(EnigmoSettings(shutter_row=row))    # a stream (the companion's loop)
    obs = detector.detect(frame, frame_id=n)

`obs["shutters"]` lists the ten shutters left to right (True = open, None = cannot tell, all
None while the row is not marked);
`obs["dice"]` the dice on the table with their value (None = the pips cannot be read for sure)
and their centre in table mm. The shutter row is not searched for: the user marks its four
corners once (`shutter_row_from_pixels` turns the taps on the live picture into table mm).

How a frame is read:
1. the table: the four markers (calibration's tracker keeps the lock between frames);
2. the shutters: a grid of samples over each shutter, white-balanced on the markers' paper, is
   judged card-white (open) or coloured plastic (closed) (enigmo_shutters.py);
3. the dice: black pips on white dice, about `PIP_MM` in radius, found around dark spots of a
   half-size copy of the frame and read from their pip layout (dice.py); the shutter box and
   the markers are blanked first, so letters and marker cells cannot pass for pips. A reading
   whose face is coloured (a hand) is dropped, a 2 or 3 too small for a die where it lies (a
   6's row) loses its value, and each die is placed on its footprint, 16 mm below its top face
   (enigmo_height.py).
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from tablecam.calibration.geometry import MARKER_IDS, TableGeometry
from tablecam.calibration.images import check_frame, to_grey
from tablecam.errors import UserError
from tablecam.vision.dice import Die, FrameGrey, read_dice
from tablecam.vision.enigmo_height import camera_position_mm, footprint_mm
from tablecam.vision.enigmo_shutters import SHUTTERS, ShutterRow, judge

GAME = "enigmo"
DIE_MM = 16.0
PIP_MM = 1.5  # radius of a pip of a 16 mm die
MIN_PIP_CONTRAST = 50.0  # black pips on a white die stand out by far more than this (wood grain does not)
# Below this pip radius (px) in the frame a blurred 5 reads as a 4 (its centre pip fades into
# the face, tuning seed 11 at 0.8 px/mm): the dice are then not read, with a warning.
MIN_PIP_PX = 1.4
# A die's face (white-balanced on the markers' paper) at most this coloured: white dice measured
# up to 0.05 on the tuning renders, hands' knuckles taken for pips 0.12 and more.
MAX_FACE_CHROMA = 0.1
# A 2 or 3 whose face (from its pip spacing) is under this share of a die's where it lies is a
# row of a bigger face (0.71); read 2s and 3s measured 0.89 to 1.13 on the tuning renders.
MIN_ROW_SIZE = 0.85
BOX_FRAME_MM = 14.0  # the box's frame around the shutter row (games/enigmo.md model: 12 mm)
NOT_MARKED = ("the shutter row is not marked yet: mark its four corners once on the live picture "
              "(top-left, top-right, bottom-right, bottom-left)")


@dataclass(frozen=True)
class EnigmoSettings:
    geometry: TableGeometry = field(default_factory=TableGeometry)
    profile: object | None = None  # calibration.lens.CameraProfile
    shutter_row: ShutterRow | None = None
    pip_mm: float = PIP_MM
    # how high the dice's top faces stand: where they are seen is moved down to their footprint
    # (0: reported where the table homography sees them)
    die_height_mm: float = DIE_MM
    colours: object | None = None  # the frame loop passes every game's colour profile; Enigmo needs none


class EnigmoDetector:
    """Reads Enigmo frame after frame, keeping the table lock and the shutter sample points."""

    def __init__(self, settings: EnigmoSettings = EnigmoSettings()) -> None:
        from tablecam.calibration import TableTracker

        self.settings = settings
        self._tracker = TableTracker(settings.geometry, settings.profile)
        self._points: tuple[bytes, ShutterRow, np.ndarray] | None = None

    @property
    def table(self):
        """The table as last found (calibration.TableFix), or None before the first frame: what
        `shutter_row_from_pixels` needs to turn taps on the live picture into table mm."""
        return self._tracker.locked

    def mark_shutter_row(self, row: ShutterRow | None) -> None:
        """The user marked (or cleared) the row: use it from the next frame on."""
        self.settings = replace(self.settings, shutter_row=row)
        self._points = None

    def use_settings(self, settings) -> None:
        """The saved settings changed (calibration.Settings): take the shutter row marked on the
        page. A row the file holds but that makes no sense (edited by hand) counts as unmarked,
        so the players are asked to mark it again rather than shown wrong shutters."""
        corners = getattr(settings, "enigmo_shutter_row_mm", None)
        try:
            row = ShutterRow.from_list(corners) if corners is not None else None
        except UserError:
            row = None
        if row != self.settings.shutter_row:
            self.mark_shutter_row(row)

    def detect(self, frame: np.ndarray, frame_id: int = 0, state: dict | None = None) -> dict:
        """The Observation of one frame. `state` (the last Observation) may carry the row's
        corners (`shutter_row_mm`) when the settings have none."""
        start = time.perf_counter()
        frame = check_frame(frame)
        fix = self._tracker.update(frame)
        row = self.settings.shutter_row or _row_from_state(state)
        points_px = None
        if row is not None:
            if self._points is None or self._points[0] != fix.lock or self._points[1] != row:
                self._points = (fix.lock, row, fix.table_to_image(row.points_mm().reshape(-1, 2)))
            points_px = self._points[2]
        obs = read_frame(frame, fix, row, points_px, self.settings.pip_mm, frame_id, self.settings.die_height_mm)
        obs["ms"] = round(1000.0 * (time.perf_counter() - start), 2)
        return obs


def detect(image: np.ndarray, geometry: TableGeometry = TableGeometry(), profile=None, colours=None,
           state: dict | None = None, frame_id: int = 0, shutter_row_mm=None) -> dict:
    """The Enigmo Observation of one photo. `shutter_row_mm`: the row's four corners in table mm
    (else taken from `state["shutter_row_mm"]`; without them every shutter is null, with a warning).
    `colours` is accepted for the common signature; Enigmo needs no taught colours. Raises
    UserError (one sentence) when the image is not a usable frame or fewer than three markers show."""
    from tablecam.calibration import find_table

    start = time.perf_counter()
    image = check_frame(image)
    row = ShutterRow.from_list(shutter_row_mm) if shutter_row_mm is not None else _row_from_state(state)
    fix = find_table(image, geometry, profile)
    points_px = fix.table_to_image(row.points_mm().reshape(-1, 2)) if row is not None else None
    obs = read_frame(image, fix, row, points_px, PIP_MM, frame_id)
    obs["ms"] = round(1000.0 * (time.perf_counter() - start), 2)
    return obs


def shutter_row_from_pixels(corners_px, fix) -> ShutterRow:
    """The four corners the user tapped on the live picture (image pixels, top-left first,
    clockwise) -> the row in table mm, checked."""
    from tablecam.vision.enigmo_shutters import _as_corners, check_corners

    px = np.array(_as_corners(corners_px, "pixels"), dtype=np.float64)
    mm = fix.image_to_table(px)
    check_corners(mm, fix.geometry)
    return ShutterRow(tuple((float(x), float(y)) for x, y in mm))


def shutter_row_from_picture(corners, project, geometry: TableGeometry) -> ShutterRow:
    """The four corners the players tapped on the live picture, as fractions (0..1) of its width
    and height, -> the row in table mm, checked. `project` is the frame loop's table lock (table mm
    -> the same picture fractions, lens included): it is inverted numerically, first with one
    homography over the whole table, then with one fitted on a small patch around each point,
    so a lens's distortion costs nothing measurable."""
    from tablecam.vision.enigmo_shutters import _as_corners, check_corners

    taps = np.array(_as_corners(corners, "picture fractions"), dtype=np.float64)
    if not np.all((taps >= 0) & (taps <= 1)):
        raise UserError("tap the four corners on the picture itself.")
    mm = picture_to_table(project, taps, geometry)
    check_corners(mm, geometry)
    return ShutterRow(tuple((float(x), float(y)) for x, y in mm))


def picture_to_table(project, points, geometry: TableGeometry, patch_mm: float = 20.0) -> np.ndarray:
    """Points of the picture (in `project`'s output units) -> table mm, inverting `project`."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    m = geometry.marker_mm
    gx, gy = np.meshgrid(np.linspace(-m, geometry.width_mm + m, 9), np.linspace(-m, geometry.height_mm + m, 7))
    grid = np.column_stack([gx.ravel(), gy.ravel()])

    def fitted(table_pts: np.ndarray) -> np.ndarray:
        seen = np.asarray(project(table_pts.tolist()), dtype=np.float64).reshape(-1, 2)
        h, _ = cv2.findHomography(seen, table_pts, 0)
        if h is None:
            raise UserError("the table's position in the picture is not known yet: wait until the four markers show.")
        return h

    whole = fitted(grid)
    out = cv2.perspectiveTransform(pts[None], whole)[0]
    patch = np.array([(a, b) for a in (-1, 0, 1) for b in (-1, 0, 1)], dtype=np.float64) * patch_mm
    for _ in range(2):  # the second pass starts from a point already within a fraction of a mm
        for k in range(len(out)):
            local = fitted(out[k] + patch)
            out[k] = cv2.perspectiveTransform(pts[k][None, None], local)[0, 0]
    return out


def read_frame(frame: np.ndarray, fix, row: ShutterRow | None, points_px: np.ndarray | None, pip_mm: float,
               frame_id: int, die_height_mm: float = DIE_MM) -> dict:
    """Shutters and dice of one frame whose table is known (`fix`)."""
    g = fix.geometry
    warnings = list(fix.warnings)
    light = functools.cache(lambda: _white_reference(frame, fix))  # measured once, if needed
    # ten nulls, not null: the rules keep each shutter's last reading through a null one
    shutters: list[bool | None] = [None] * SHUTTERS
    if row is None:
        warnings.append(NOT_MARKED)
    else:
        shutters = _read_shutters(frame, points_px, light)
        unclear = [k + 1 for k, s in enumerate(shutters) if s is None]
        if unclear:
            warnings.append(f"shutter{'s' if len(unclear) > 1 else ''} {', '.join(map(str, unclear))} "
                            "cannot be told open or closed (hidden, or half open)")
    dice = _read_dice(frame, fix, row, pip_mm, die_height_mm, light)
    if pip_mm * _px_per_mm(fix) < MIN_PIP_PX:
        warnings.append(f"the dice are too small in the picture to read ({_px_per_mm(fix):.2f} px per mm): "
                        "bring the camera closer or raise its resolution")
    for d in dice:
        if d["value"] is None:
            x, y = d["center_mm"]
            warnings.append(f"the die at ({x:.0f}, {y:.0f}) mm cannot be read: its pips are unclear")
    if len(dice) > 2:
        warnings.append(f"{len(dice)} dice are on the table; Enigmo rolls two")
    return {"game": GAME, "frame_id": int(frame_id), "table_mm": [g.width_mm, g.height_mm], "ms": 0.0,
            "markers_seen": len(fix.markers_seen), "warnings": warnings, "shutters": shutters, "dice": dice,
            "shutter_row_mm": row.as_list() if row is not None else None}


def _read_shutters(frame: np.ndarray, points_px: np.ndarray, light) -> list[bool | None]:
    h, w = frame.shape[:2]
    px = np.rint(points_px).astype(np.intp)
    seen = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
    if frame.ndim == 2:
        frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    samples = frame[np.clip(px[:, 1], 0, h - 1), np.clip(px[:, 0], 0, w - 1)].astype(np.float64)
    reference = light()
    if reference is not None:  # None: every marker covered, the raw colours are judged
        samples = reference.correct_colours(samples)
    per = samples.reshape(SHUTTERS, -1, 3)
    states, _share = judge(per)
    outside = ~seen.reshape(SHUTTERS, -1).all(axis=1)
    return [None if outside[k] else states[k] for k in range(SHUTTERS)]


def _read_dice(frame: np.ndarray, fix, row: ShutterRow | None, pip_mm: float, die_height_mm: float,
               light) -> list[dict]:
    """The dice on the play area; `light()`: the frame's white reference (or None)."""
    g = fix.geometry
    px_per_mm = _px_per_mm(fix)
    if pip_mm * px_per_mm < MIN_PIP_PX:
        return []  # read_frame warns: the camera is too far (or its resolution too low) for pips
    camera = camera_position_mm(fix.homography, fix.image_size, fix.profile.K if fix.profile is not None else None)
    # blank what has pip-like marks but is no die: marker cells and the shutter box's letters
    fill = int(np.median(to_grey(frame[::16, ::16])))  # the frame's usual grey (per pixel, as the whole frame's)
    blanks = [_grow(g.marker_corners(m), g.marker_mm * 0.3) for m in MARKER_IDS]
    if row is not None:
        blanks.append(_grow(row.corners_mm, BOX_FRAME_MM))
    blanks_px = _blank_masks([np.rint(fix.table_to_image(poly_mm)).astype(np.int32) for poly_mm in blanks],
                             frame.shape[:2])
    # only the part of the frame where a die can lie is read (the play area is 19-43 % of a
    # frame), and only the parts read are made grey and blanked (FrameGrey): read_dice reads the
    # dice there as it reads them on the whole frame made grey
    area = _dice_area_px(fix, camera, die_height_mm, pip_mm * px_per_mm / 0.1, frame.shape[:2])
    parts = FrameGrey(frame, functools.partial(_blank, masks=blanks_px, fill=fill))
    found: list[Die] = read_dice(parts, pip_radius_px=pip_mm * px_per_mm, pips="dark", min_contrast=MIN_PIP_CONTRAST,
                                 square_pixels=True, roi=area)
    if not found:
        return []
    # the homography sees the top face where its ray meets the table: move it down to the die's footprint
    seen = footprint_mm(fix.image_to_table([d.centre_px for d in found]), camera, die_height_mm)
    chroma = _face_chroma(frame, found, light)
    sizes = _size_ratios(fix, found, camera, die_height_mm)
    out = []
    for d, (x, y), c, size in zip(found, seen, chroma, sizes):
        x, y = float(x), float(y)
        if d.value in (2, 3) and size < MIN_ROW_SIZE:
            # pips in a row a step apart (a 6's row, a 4's or 5's side) read as the diagonal of a
            # 2 or 3 make a face 0.71 times a die's: the die's own size tells them apart
            d = replace(d, value=None, confidence=0.0)
        if c > MAX_FACE_CHROMA:
            continue  # not a white die: a hand's knuckles, a sleeve's pattern
        if not (0 <= x <= g.width_mm and 0 <= y <= g.height_mm):
            continue  # off the play area between the markers
        if row is not None and row.contains_mm((x, y), BOX_FRAME_MM):
            continue
        out.append({"value": d.value, "center_mm": [round(x, 1), round(y, 1)]})
    return sorted(out, key=lambda d: (d["center_mm"][0], d["center_mm"][1]))


def _blank_masks(polys_px: list[np.ndarray], shape: tuple[int, int]) -> list[tuple[int, int, np.ndarray]]:
    """Each polygon (frame pixels) as the pixels cv2.fillPoly fills on the whole frame: (x0, y0,
    mask) on the polygon's box within the frame. The box's sides are the frame's own where the
    polygon runs off it, so its outline is clipped where the frame clips it (a polygon clipped
    anywhere else is drawn with other edge pixels)."""
    h, w = shape
    out = []
    for poly in polys_px:
        x0, y0 = max(0, int(poly[:, 0].min())), max(0, int(poly[:, 1].min()))
        x1, y1 = min(w, int(poly[:, 0].max()) + 1), min(h, int(poly[:, 1].max()) + 1)
        if x1 <= x0 or y1 <= y0:
            continue  # off the frame
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillPoly(mask, [poly - np.array([x0, y0], dtype=np.int32)], 1)
        out.append((x0, y0, mask))
    return out


def _blank(grey: np.ndarray, origin: tuple[int, int], masks: list[tuple[int, int, np.ndarray]], fill: int) -> None:
    """Sets the pixels of the masks (`_blank_masks`) to `fill` on a part of the frame whose
    top-left corner is at `origin` (in place)."""
    ox, oy = origin
    h, w = grey.shape
    for x0, y0, mask in masks:
        a0, b0 = max(x0, ox), max(y0, oy)
        a1, b1 = min(x0 + mask.shape[1], ox + w), min(y0 + mask.shape[0], oy + h)
        if a1 > a0 and b1 > b0:
            part = grey[b0 - oy:b1 - oy, a0 - ox:a1 - ox]
            part[mask[b0 - y0:b1 - y0, a0 - x0:a1 - x0] > 0] = fill


# How far round the play area (in dice sides) the frame is read: a reading just outside it may
# still take the place of one inside (readings closer than a die are one die), so that reading
# is made as before.
AREA_MARGIN_SIDES = 3.0


def _dice_area_px(fix, camera: np.ndarray, die_height_mm: float, side_px: float,
                  shape: tuple[int, int]) -> tuple[int, int, int, int]:
    """The frame's box (x0, y0, x1, y1) holding every place where the top face of a die standing
    on the play area can be seen, and AREA_MARGIN_SIDES dice round it."""
    g = fix.geometry
    t = np.linspace(0.0, 1.0, 17)
    w, h = g.width_mm, g.height_mm
    edge = np.concatenate([np.column_stack([t * w, 0 * t]), np.column_stack([w + 0 * t, t * h]),
                           np.column_stack([t * w, h + 0 * t]), np.column_stack([0 * t, t * h])])
    # a top face die_height_mm up is seen further from the point below the camera than its footprint
    if die_height_mm > 0 and camera[2] > die_height_mm:
        edge = camera[:2] + (edge - camera[:2]) / (1.0 - die_height_mm / camera[2])
    px = fix.table_to_image(edge)
    grow = AREA_MARGIN_SIDES * side_px
    fh, fw = shape
    x0 = int(np.clip(math.floor(px[:, 0].min() - grow), 0, fw))
    y0 = int(np.clip(math.floor(px[:, 1].min() - grow), 0, fh))
    return x0, y0, int(np.clip(math.ceil(px[:, 0].max() + grow), x0, fw)), int(np.clip(math.ceil(px[:, 1].max() + grow), y0, fh))


def _size_ratios(fix, dice: list[Die], camera: np.ndarray, die_height_mm: float) -> list[float]:
    """Each reading's face side over the side a 16 mm die's top face has where it is seen (the
    local scale of the table there, enlarged by the face's height over the table)."""
    out = []
    for d in dice:
        cx, cy = d.centre_px
        pts = fix.image_to_table([(cx - 5, cy), (cx + 5, cy), (cx, cy - 5), (cx, cy + 5)])
        mm_per_px = (np.hypot(*(pts[1] - pts[0])) + np.hypot(*(pts[3] - pts[2]))) / 20
        lift = camera[2] / max(camera[2] - die_height_mm, 1.0) if die_height_mm > 0 else 1.0
        out.append(float(d.side_px * mm_per_px / (DIE_MM * lift)))
    return out


def _face_chroma(frame: np.ndarray, dice: list[Die], light) -> list[float]:
    """How coloured each die's face is under the table's light (white-balanced on the markers'
    paper, `light()`: the frame's white reference or None): 0 for grey or white, towards 1 for a
    saturated colour. The lighter half of the pixels around the face's centre is the face between
    the pips."""
    if frame.ndim == 2:
        return [0.0] * len(dice)
    light = light()
    h, w = frame.shape[:2]
    out = []
    for d in dice:
        half = max(1, int(round(d.side_px * 0.3)))
        cx, cy = int(round(d.centre_px[0])), int(round(d.centre_px[1]))
        patch = frame[max(0, cy - half):min(h, cy + half + 1), max(0, cx - half):min(w, cx + half + 1)].reshape(-1, 3)
        if len(patch) == 0:
            out.append(0.0)
            continue
        grey = patch.astype(np.float64).sum(axis=1)
        face = patch[grey >= np.median(grey)].astype(np.float64)
        colour = np.median(face, axis=0)
        if light is not None:
            colour = light.correct_colours(colour[None])[0].astype(np.float64)
        top = max(float(colour.max()), 1.0)
        out.append(float((colour.max() - colour.min()) / top))
    return out


def _white_reference(frame: np.ndarray, fix):
    """The markers' paper white and ink black in this frame (calibration.LightReference), or
    None when every marker is covered (the raw colours are then judged)."""
    from tablecam.calibration import white_reference

    if frame.ndim == 2:
        frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    try:
        return white_reference(frame, fix)
    except UserError:
        return None


def _px_per_mm(fix) -> float:
    """Frame pixels per table mm at the middle of the table."""
    g = fix.geometry
    centre = np.array([[g.width_mm / 2, g.height_mm / 2], [g.width_mm / 2 + 10, g.height_mm / 2],
                       [g.width_mm / 2, g.height_mm / 2 + 10]])
    c = fix.table_to_image(centre)
    return float(np.hypot(*(c[1] - c[0])) + np.hypot(*(c[2] - c[0]))) / 20


def _grow(poly_mm, by_mm: float) -> np.ndarray:
    p = np.array(poly_mm, dtype=np.float64)
    c = p.mean(axis=0)
    d = p - c
    n = np.hypot(d[:, 0], d[:, 1])[:, None]
    return c + d * (n + by_mm * 1.42) / np.maximum(n, 1e-9)


def _row_from_state(state: dict | None) -> ShutterRow | None:
    if isinstance(state, dict) and state.get("shutter_row_mm") is not None:
        return ShutterRow.from_list(state["shutter_row_mm"])
    return None
