"""From a camera frame to the table in millimetres: lens, table homography, colours, settings.

The public names below are loaded on first use, so `from tablecam.calibration.geometry import
TableGeometry` (used everywhere) does not pull in OpenCV.

- lens.py: CameraProfile, calibrate_chessboard, calibrate_charuco (LensResult, per-view reasons)
- table.py: find_table -> TableFix (homography image -> table mm, marker-centre error in mm)
- topdown.py: rectify -> RectifiedTable (top-down image + its mm <-> pixel mapping)
- tracker.py: TableTracker (hold when markers are covered, re-lock when the table moved)
- light.py: white_reference -> LightReference (white balance from the markers)
- colours.py: ColourProfile, default_profile, teach_colours
- settings.py: Settings, load_settings, save_settings, data_dir
- fov.py / marker_sheet.py: camera planning and the printable markers
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "TableGeometry": "geometry",
    "CameraProfile": "lens", "LensResult": "lens", "ViewReport": "lens",
    "calibrate_chessboard": "lens", "calibrate_charuco": "lens",
    "TableFix": "table", "TableNotFound": "table", "find_table": "table",
    "RectifiedTable": "topdown", "TableRaster": "topdown", "rectify": "topdown", "rectify_maps": "topdown",
    "TableTracker": "tracker",
    "LightReference": "light", "white_reference": "light",
    "ColourProfile": "colours", "default_profile": "colours", "teach_colours": "colours", "TEACHING": "colours",
    "Settings": "settings", "load_settings": "settings", "save_settings": "settings", "data_dir": "settings",
    "field_of_view": "fov", "write_sheet": "marker_sheet",
    "read_image": "images",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
