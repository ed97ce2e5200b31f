"""One human-readable settings file: camera profile, table geometry and taught colour profiles.

It lives at DATA_DIR/settings.json, where DATA_DIR is --data-dir, else $TABLECAM_DATA, else
~/.local/share/tablecam. A missing file means "all defaults"; colour profiles that were never
taught are not written, so improved defaults reach users who did not teach.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

from tablecam.calibration.colours import DEFAULT_COLOURS, ColourProfile, default_profile
from tablecam.calibration.geometry import TableGeometry
from tablecam.calibration.lens import CameraProfile
from tablecam.errors import UserError

SETTINGS_FILE = "settings.json"
FORMAT_VERSION = 1
ABOUT = ("tablecam settings. Lengths in millimetres; colours are sRGB as seen under neutral light. "
         "Change them with `tablecam calibrate ...`, or edit with care; delete a section to go back to defaults.")


@dataclass(frozen=True)
class Settings:
    geometry: TableGeometry = field(default_factory=TableGeometry)
    camera: CameraProfile | None = None
    colours: tuple[tuple[str, ColourProfile], ...] = ()  # taught profiles only, by game
    # Enigmo's row of ten shutters, marked once on the live picture: four corners in table mm
    # (top-left, top-right, bottom-right, bottom-left as the camera sees them), or None
    enigmo_shutter_row_mm: tuple[tuple[float, float], ...] | None = None

    def colour_profile(self, game: str) -> ColourProfile:
        """The taught profile of a game, or its defaults."""
        for g, profile in self.colours:
            if g == game:
                return profile
        return default_profile(game)

    def with_colours(self, profile: ColourProfile) -> "Settings":
        others = tuple((g, p) for g, p in self.colours if g != profile.game)
        return replace(self, colours=tuple(sorted(others + ((profile.game, profile),))))

    def without_colours(self, game: str) -> "Settings":
        return replace(self, colours=tuple((g, p) for g, p in self.colours if g != game))

    def with_shutter_row(self, corners_mm) -> "Settings":
        """The settings with Enigmo's shutter row (four (x, y) corners in table mm, or None)."""
        return replace(self, enigmo_shutter_row_mm=_corners(corners_mm) if corners_mm is not None else None)

    def to_dict(self) -> dict:
        g = self.geometry
        out = {
            "about": ABOUT,
            "version": FORMAT_VERSION,
            "table": {"marker_mm": g.marker_mm, "width_mm": g.width_mm, "height_mm": g.height_mm},
            "camera": self.camera.to_dict() if self.camera else None,
            "colours": {game: p.to_dict() for game, p in self.colours},
        }
        if self.enigmo_shutter_row_mm is not None:
            out["enigmo"] = {"shutter_row_mm": [[round(x, 2), round(y, 2)] for x, y in self.enigmo_shutter_row_mm]}
        return out

    @classmethod
    def from_dict(cls, d: dict) -> "Settings":
        if not isinstance(d, dict):
            raise ValueError("the file must hold one JSON object")
        table = d.get("table") or {}
        if not isinstance(table, dict):
            raise ValueError("'table' must be an object with marker_mm, width_mm and height_mm")
        defaults = TableGeometry()
        try:
            geometry = TableGeometry(float(table.get("marker_mm", defaults.marker_mm)),
                                     float(table.get("width_mm", defaults.width_mm)),
                                     float(table.get("height_mm", defaults.height_mm)))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"the table section is wrong: {exc}") from None
        camera = CameraProfile.from_dict(d["camera"]) if d.get("camera") else None
        colours = d.get("colours") or {}
        if not isinstance(colours, dict):
            raise ValueError("'colours' must be an object with one entry per game")
        unknown = sorted(set(colours) - set(DEFAULT_COLOURS))
        if unknown:
            raise ValueError(f"'colours' names an unknown game {unknown[0]!r}")
        profiles = tuple(sorted((game, ColourProfile.from_dict(game, p)) for game, p in colours.items()))
        # files written before the shutter row existed have no "enigmo" section: not marked yet
        enigmo = d.get("enigmo") or {}
        if not isinstance(enigmo, dict):
            raise ValueError("'enigmo' must be an object with shutter_row_mm")
        row = enigmo.get("shutter_row_mm")
        return cls(geometry, camera, profiles, _corners(row) if row is not None else None)


def _corners(corners) -> tuple[tuple[float, float], ...]:
    """Four finite (x, y) pairs, or ValueError (whether they make a plausible row is the
    vision side's check: vision.enigmo_shutters.check_corners)."""
    try:
        pts = tuple((float(x), float(y)) for x, y in corners)
    except (TypeError, ValueError):
        raise ValueError("the Enigmo shutter row must be four corners [x, y] in mm") from None
    if len(pts) != 4 or not all(math.isfinite(v) for p in pts for v in p):
        raise ValueError("the Enigmo shutter row must be four corners [x, y] in mm")
    return pts


def data_dir(override: str | Path | None = None) -> Path:
    """Where tablecam keeps its data: the override, else $TABLECAM_DATA, else ~/.local/share/tablecam."""
    if override:
        return Path(override).expanduser()
    env = os.environ.get("TABLECAM_DATA")
    if env:
        return Path(env).expanduser()
    return Path.home() / ".local" / "share" / "tablecam"


def settings_path(directory: str | Path | None = None) -> Path:
    return data_dir(directory) / SETTINGS_FILE


def load_settings(directory: str | Path | None = None) -> Settings:
    """The saved settings, or the defaults when there is no file yet."""
    path = settings_path(directory)
    if not path.exists():
        return Settings()
    try:
        text = path.read_text(encoding="utf-8")
        return Settings.from_dict(json.loads(text))
    except json.JSONDecodeError as exc:
        raise UserError(f"{path} is not valid JSON (line {exc.lineno}: {exc.msg}): fix it, or delete it "
                        "to start again from the defaults.") from None
    except UnicodeDecodeError:
        raise UserError(f"{path} is not a text file: delete it to start again from the defaults.") from None
    except ValueError as exc:
        raise UserError(f"{path} is not valid settings ({exc}): fix it, or delete that part to use "
                        "the defaults.") from None


def save_settings(settings: Settings, directory: str | Path | None = None) -> Path:
    """Writes the settings atomically (a crash never leaves half a file) and returns the path."""
    path = settings_path(directory)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".settings-", suffix=".json", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(settings.to_dict(), fh, indent=2)
            fh.write("\n")
        os.replace(tmp, path)
    except OSError as exc:
        raise UserError(f"cannot write the settings to {path} ({exc.strerror or exc}).") from None
    return path


def describe(settings: Settings, path: Path | None = None) -> str:
    """The settings as a person reads them (what `tablecam calibrate show` prints)."""
    g = settings.geometry
    lines = []
    if path is not None:
        lines.append(f"settings file: {path}{'' if path.exists() else ' (not written yet: all defaults)'}")
    lines.append(f"table: markers {g.marker_mm:g} mm, centres {g.width_mm:g} mm apart (0->1) "
                 f"and {g.height_mm:g} mm (0->3)")
    cam = settings.camera
    if cam is None:
        lines.append("camera: no lens profile (positions away from the markers may be off by a few mm on a "
                     "wide lens; run `tablecam calibrate lens`)")
    else:
        k = cam.dist_coeffs
        lines.append(f"camera: {cam.image_size[0]}x{cam.image_size[1]} px, fx {cam.fx:.1f} fy {cam.fy:.1f}, "
                     f"centre ({cam.cx:.1f}, {cam.cy:.1f}), distortion k1 {k[0]:+.4f} k2 {k[1]:+.4f}, "
                     f"RMS {cam.rms_px:.3f} px from {cam.views} views ({cam.pattern}; {cam.calibrated})")
    for game in sorted(DEFAULT_COLOURS):
        p = settings.colour_profile(game)
        state = "taught" if p.taught else "default"
        lines.append(f"colours {game} ({state}: {p.source}): " + ", ".join(f"{n} {hx}" for n, hx in p.colours))
    row = settings.enigmo_shutter_row_mm
    lines.append("enigmo shutter row: " + ("not marked yet (mark it on the page when Enigmo is chosen)" if row is None
                                           else "corners " + ", ".join(f"({x:g}, {y:g})" for x, y in row) + " mm"))
    return "\n".join(lines)
