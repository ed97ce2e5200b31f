"""Checks that a state fits the table, each failure one sentence, and small geometry helpers."""

from __future__ import annotations

import math

import numpy as np

from tablecam.calibration.geometry import MARKER_IDS, TableGeometry
from tablecam.errors import UserError

# How far the table surface reaches beyond the markers' centres: pieces further out are off the table.
TABLE_BEYOND_MM = 150.0
QUIET_ZONE_MM = 8.0  # white paper around each printed marker


def rotate(v, degrees: float) -> tuple[float, float]:
    """Turn a vector clockwise as seen from above (the table's y points to the near side)."""
    a = math.radians(degrees)
    x, y = v
    return x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a)


def number(value, name: str, lo: float, hi: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise UserError(f"{name} must be a number, not {value!r}.")
    if not lo <= value <= hi:
        raise UserError(f"{name} must be between {lo:g} and {hi:g}, not {value:g}.")
    return float(value)


def point(value, name: str) -> list[float]:
    if (not isinstance(value, (list, tuple)) or len(value) != 2
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value)):
        raise UserError(f"{name} must be two numbers [x, y] in table mm, not {value!r}.")
    return [float(value[0]), float(value[1])]


def check_on_table(centre, radius_mm: float, geometry: TableGeometry, what: str) -> None:
    """A piece must lie on the table and leave every marker (and its white border) uncovered."""
    x, y = centre
    lo = -TABLE_BEYOND_MM
    if not (lo <= x <= geometry.width_mm + TABLE_BEYOND_MM and lo <= y <= geometry.height_mm + TABLE_BEYOND_MM):
        raise UserError(f"{what} at ({x:.0f}, {y:.0f}) mm lies off the table, more than "
                        f"{TABLE_BEYOND_MM:.0f} mm beyond the markers.")
    half = geometry.marker_mm / 2 + QUIET_ZONE_MM
    for mid in MARKER_IDS:
        mx, my = geometry.marker_centre(mid)
        # Distance from the piece's centre to the marker's square.
        dx = max(abs(x - mx) - half, 0.0)
        dy = max(abs(y - my) - half, 0.0)
        if math.hypot(dx, dy) < radius_mm:
            raise UserError(f"{what} at ({x:.0f}, {y:.0f}) mm covers marker {mid}, so the table could not be found.")


def check_apart(centres, min_mm: float, what: str, verb: str) -> None:
    """Pieces that cannot stack must keep their centres `min_mm` apart."""
    if len(centres) < 2:
        return
    p = np.asarray(centres, dtype=np.float64)
    d = np.hypot(p[:, None, 0] - p[None, :, 0], p[:, None, 1] - p[None, :, 1])
    np.fill_diagonal(d, np.inf)
    i, j = np.unravel_index(int(np.argmin(d)), d.shape)
    if d[i, j] < min_mm:
        a, b = sorted((int(i), int(j)))
        raise UserError(f"{what} {a} and {b} {verb}: their centres are {d[i, j]:.0f} mm apart, "
                        f"at least {min_mm:.0f} mm are needed.")
