"""Stixx: a camera frame -> the Stixx Observation of ARCHITECTURE.md.

    obs = detect(image, profile=camera_profile)                 # one photo
    detector = StixxDetector(StixxSettings(profile=...))
    obs = detector.detect(frame, frame_id=n)                   # a stream: table lock and warps kept

How a frame is read:
1. The table: the four markers give table millimetres and the frame's white reference
   (calibration), and a coarse white-balanced top-down image (0.5 px/mm) to search in.
2. The board: the three-way groove pattern finds the places it could be, each with its rotation
   (modulo 60 degrees) and centre (stixx_board.py); the place whose grooves read best is the
   board. No place reads as one (another game, an empty table): "no stixx board found".
3. The 42 grooves: each one read from the raw frame as a stick of a taught colour, the grey
   marker, empty, or not readable (something over it): stixx_grooves.py. Slots are numbered as
   games/stixx.md says, in the frame of the reported rotation.
4. Sticks beside the board (taken ones): bars of a stick's size and a taught colour, with slot
   null (stixx_loose.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from tablecam.calibration.geometry import TableGeometry

from .stixx_board import BOARD_BGR, PITCH_MM, find_boards, plate_polygon
from .stixx_grooves import EMPTY, GrooveReading, read_grooves
from .stixx_loose import find_loose_sticks
from .table_view import TableReader, TableView, read_table

GAME = "stixx"
SEARCH_PX_PER_MM = 0.5  # the board is 290 mm wide: 145 px are plenty to find it
MARGIN_MM = 40.0  # table searched beyond the markers' centres (taken sticks lie near the edge)
MARKER = "grey"  # the Observation's name for the marker stick (colour profiles call it "marker")
NO_BOARD = "no stixx board found"
# A place where the groove pattern matches is a board when at least this many of its 42 grooves read
# as a stick or an empty groove: a hand over a board leaves 12 or more readable (bench seeds
# 100000-100199), ENIX rays on a blue cloth, where the pattern half matches, at most 8 (seeds < 100000).
MIN_GROOVES_READ = 11
PLAIN_BOARD = 36  # grooves read at a place that make it the board without trying the other places


@dataclass(frozen=True)
class StixxSettings:
    """What the detector needs to know about this table (all from the settings file)."""

    geometry: TableGeometry = field(default_factory=TableGeometry)
    profile: object | None = None  # calibration.lens.CameraProfile
    colours: object | None = None  # calibration.colours.ColourProfile for stixx; None: the defaults
    pitch_mm: float = PITCH_MM
    board_bgr: tuple[float, float, float] = BOARD_BGR


class StixxDetector:
    """Reads Stixx frame after frame, keeping the table lock and the warp maps between frames."""

    def __init__(self, settings: StixxSettings = StixxSettings()) -> None:
        self.settings = settings
        self._reader = TableReader(settings.geometry, settings.profile, SEARCH_PX_PER_MM, MARGIN_MM)

    def detect(self, frame: np.ndarray, frame_id: int = 0, state: dict | None = None) -> dict:
        """The Observation of one frame (`state`, the last Observation, is accepted for symmetry with
        the other detectors; a Stixx frame is read on its own)."""
        start = time.perf_counter()
        obs = read_stixx(self._reader.view(frame), self.settings, frame_id)
        obs["ms"] = round(1000.0 * (time.perf_counter() - start), 2)
        return obs


def detect(image: np.ndarray, geometry: TableGeometry = TableGeometry(), profile=None, colours=None,
           state: dict | None = None, frame_id: int = 0) -> dict:
    """The Stixx Observation of one photo (ARCHITECTURE.md). Raises UserError (one sentence) when the
    image is not a usable frame or fewer than three table markers show."""
    start = time.perf_counter()
    settings = StixxSettings(geometry, profile, colours)
    obs = read_stixx(read_table(image, geometry, profile, SEARCH_PX_PER_MM, MARGIN_MM), settings, frame_id)
    obs["ms"] = round(1000.0 * (time.perf_counter() - start), 2)
    return obs


def stick_colours(colours) -> tuple[tuple[str, ...], np.ndarray]:
    """Names (the marker as "grey") and sRGB BGR references of the taught (or default) stick colours."""
    from tablecam.calibration.colours import default_profile

    profile = colours or default_profile(GAME)
    names = tuple(MARKER if n == "marker" else n for n in profile.names)
    refs = np.array([profile.rgb(n)[::-1] for n in profile.names], dtype=np.float32)
    return names, refs


def read_stixx(view: TableView, settings: StixxSettings, frame_id: int = 0) -> dict:
    """The Observation from one frame seen as the table."""
    geometry = settings.geometry
    warnings = list(view.fix.warnings)
    obs = {"game": GAME, "frame_id": int(frame_id), "table_mm": [geometry.width_mm, geometry.height_mm],
           "ms": 0.0, "markers_seen": len(view.fix.markers_seen), "warnings": warnings,
           "board": None, "sticks": []}
    if view.light is None:
        warnings.append("no marker paper can be seen to balance the colours: stick colours may be misread")
    names, refs = stick_colours(settings.colours)
    board = None
    best = MIN_GROOVES_READ - 1
    # The place whose grooves read best is the board (the pattern's best match may be a patch of
    # table beside a board half under a hand; a place one groove off reads few of them).
    search = find_boards(view.top.image, view.valid, view.ppm, view.top.px_to_mm, settings.pitch_mm,
                         settings.board_bgr)
    for fit in search.fits:
        pose = search.refined(fit).pose
        reading = read_grooves(view.sample, pose, names, refs, settings.board_bgr)
        read = sum(c is not None for c in reading.content)
        if read > best:
            board, best = (pose, reading), read
        if best >= PLAIN_BOARD:
            break  # a board seen plainly: no other place can be it
    plate = None
    if board is None:
        warnings.append(NO_BOARD)
    else:
        pose, reading = board
        obs["board"] = {"center_mm": _mm(pose.centre), "rotation": round(pose.rotation % 60.0, 2)}
        obs["sticks"] = _board_sticks(pose, reading)
        unread = sum(1 for c in reading.content if c is None)
        if unread:
            warnings.append(f"{unread} groove{'s' if unread > 1 else ''} could not be read (a hand or an object "
                            "over the board?): shown with colour null")
        plate = plate_polygon(pose)
    for colour, centre in find_loose_sticks(view, names, refs, plate, settings.pitch_mm):
        obs["sticks"].append({"colour": colour, "center_mm": _mm(centre), "slot": None})
    return obs


def _board_sticks(pose, reading: GrooveReading) -> list[dict]:
    """A stick per groove that holds one, and a stick of colour null per groove that could not be
    read (the rules then keep what they knew of that groove: a hand over it proves nothing)."""
    return [{"colour": content, "center_mm": _mm(pose.slot_centre(slot)), "slot": slot}
            for slot, content in enumerate(reading.content) if content != EMPTY]


def _mm(p) -> list[float]:
    return [round(float(p[0]), 2), round(float(p[1]), 2)]
