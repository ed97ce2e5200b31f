"""Frame -> Observation: the game's recogniser (the product), or the demo's ground truth (a test seam).

`DetectorReader` runs `tablecam.vision.<game>` on every frame. `SimulatorTruthReader` skips
recognition and returns the simulator's truth that comes with each demo frame: it exists so
that the tracker, the log and the page can be tested, and shown, independently of the
recogniser's accuracy; `tablecam serve` only uses it when asked (`--reader truth`).
"""

from __future__ import annotations

import importlib
import threading
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

    def __init__(self, game: str, geometry: TableGeometry = TableGeometry(), profile=None, colours=None,
                 data_dir=None, remember=None) -> None:
        self.game = game
        # (last state, new reading) -> the state the detector gets with the next frame (the game
        # module's `recogniser_state`); None: the last reading as it is.
        self._remember = remember
        # Settings marked on the page while playing (Enigmo's shutter row) reach a detector that
        # has `use_settings(settings)`: the settings file is looked at (one stat) every frame.
        self._data_dir = data_dir
        self._settings_seen: int | None = None
        self._detector = None
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
            self._detector = detector
            self._detect = lambda image, frame_id: detector.detect(image, frame_id=frame_id, state=self._last)
        elif hasattr(module, "detect"):
            self._detect = lambda image, frame_id: module.detect(image, geometry=geometry, profile=profile)
        else:
            raise NoRecogniser(f"{self.name} has no detector.")

    def _follow_settings(self) -> None:
        if self._data_dir is None or not hasattr(self._detector, "use_settings"):
            return
        from tablecam.calibration.settings import load_settings, settings_path

        try:
            stamp = settings_path(self._data_dir).stat().st_mtime_ns
        except OSError:
            stamp = 0  # no file: the defaults
        if stamp == self._settings_seen:
            return
        self._settings_seen = stamp
        try:
            self._detector.use_settings(load_settings(self._data_dir))
        except UserError:
            pass  # a file broken by hand: keep what the detector had; `serve` said so at start

    def forget(self) -> None:
        """A new game: the last game's pieces must not settle anything on the new table."""
        self._last = None

    def read(self, frame: Frame) -> dict | None:
        started = time.perf_counter()
        self._follow_settings()
        try:
            obs = self._detect(frame.image, frame.number)
        except UserError:
            return None  # no markers, no board: nothing readable in this frame
        obs = dict(obs)
        obs["frame_id"] = frame.number
        obs.setdefault("ms", round((time.perf_counter() - started) * 1000, 1))
        self._last = self._remember(self._last, obs) if self._remember is not None else obs
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
        self._forget = threading.Event()  # set by the page's thread, acted on by the frame loop's

    def forget(self, game: str | None = None) -> None:
        """The players started a new game: at the next frame the recognisers start afresh, with
        neither the last game's pieces nor its table lock (the demo's next game is a new scene)."""
        self._forget.set()

    def read(self, frame: Frame) -> dict | None:
        if self._forget.is_set():
            self._forget.clear()
            for reader in self._readers.values():
                if reader is not None and hasattr(reader, "forget"):
                    reader.forget()
            self._readers = {game: None for game, reader in self._readers.items() if reader is None}
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
