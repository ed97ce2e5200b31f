"""Frame -> Observation: the game's recogniser (the product), or the demo's ground truth (a test seam).

`DetectorReader` runs `tablecam.vision.<game>` on every frame. `SimulatorTruthReader` skips
recognition and returns the simulator's truth that comes with each demo frame: it exists so
that the tracker, the log and the page can be tested, and shown, independently of the
recogniser's accuracy; `tablecam serve` only uses it when asked (`--reader truth`).
"""

from __future__ import annotations

import importlib
import time
from types import ModuleType

from tablecam.calibration.geometry import TableGeometry
from tablecam.companion.sources import Frame
from tablecam.errors import UserError

OBSERVATION_KEYS = ("game", "frame_id", "table_mm", "ms", "markers_seen", "warnings",
                    "tile_mm", "tiles", "stones", "hexes", "pawns", "cap", "cards", "board", "sticks",
                    "shutters", "dice")


class NoRecogniser(UserError):
    """The game has no recogniser installed yet."""


class SimulatorTruthReader:
    """The test seam: the demo frame's ground truth as the reading (never the product path)."""

    name = "simulator truth"

    def read(self, frame: Frame) -> dict | None:
        if frame.truth is None:
            raise UserError("the truth reader needs the demo camera (its frames carry the simulator's truth).")
        return {k: frame.truth[k] for k in OBSERVATION_KEYS if k in frame.truth}


class DetectorReader:
    """`tablecam.vision.<game>`, called once per frame.

    The object form is preferred: `<Game>Detector(<Game>Settings(geometry, profile, colours))`
    with `detect(frame, frame_id, state)`, which keeps the table lock and warp maps between frames
    and gets the last reading as `state`; else the module's `detect(image, geometry, profile)`.
    """

    def __init__(self, game: str, geometry: TableGeometry = TableGeometry(), profile=None, colours=None) -> None:
        self.game = game
        self.name = f"tablecam.vision.{game}"
        try:
            module: ModuleType = importlib.import_module(self.name)
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.startswith("tablecam.vision"):
                raise NoRecogniser(f"no recogniser for {game} is installed yet.") from None
            raise
        self._last: dict | None = None
        title = game.capitalize()
        detector_cls = getattr(module, f"{title}Detector", None)
        settings_cls = getattr(module, f"{title}Settings", None)
        if detector_cls is not None and settings_cls is not None:
            detector = detector_cls(settings_cls(geometry=geometry, profile=profile, colours=colours))
            self._detect = lambda image, frame_id: detector.detect(image, frame_id=frame_id, state=self._last)
        elif hasattr(module, "detect"):
            self._detect = lambda image, frame_id: module.detect(image, geometry=geometry, profile=profile)
        else:
            raise NoRecogniser(f"{self.name} has no detector.")

    def read(self, frame: Frame) -> dict | None:
        started = time.perf_counter()
        try:
            obs = self._detect(frame.image, frame.number)
        except UserError:
            return None  # no markers, no board: nothing readable in this frame
        obs = dict(obs)
        obs["frame_id"] = frame.number
        obs.setdefault("ms", round((time.perf_counter() - started) * 1000, 1))
        self._last = obs
        return obs


class ReaderOfTheGame:
    """The recogniser of whichever game the players are playing: they may switch on the page.

    Readers are made on first use and kept (each keeps its table lock and warp maps).
    A game with no recogniser reads nothing, and `on_missing` is told once why.
    """

    def __init__(self, current_game, make_reader, on_missing=None) -> None:
        self.current_game = current_game  # () -> game name
        self.make_reader = make_reader  # game name -> DetectorReader
        self.on_missing = on_missing  # (game, NoRecogniser) -> None
        self._readers: dict[str, object] = {}
        self.name = "recogniser"

    def read(self, frame: Frame) -> dict | None:
        game = self.current_game()
        if game not in self._readers:
            try:
                self._readers[game] = self.make_reader(game)
            except NoRecogniser as exc:
                self._readers[game] = None
                if self.on_missing:
                    self.on_missing(game, exc)
        reader = self._readers[game]
        return reader.read(frame) if reader is not None else None
