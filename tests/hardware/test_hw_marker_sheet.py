"""`tablecam markers`: true-size markers that a camera reads back, on A4 pages."""

import re

import cv2
import numpy as np
import pytest
from PIL import Image

from tablecam.calibration.geometry import TableGeometry
from tablecam.calibration.marker_sheet import render_pages, write_sheet
from tablecam.companion.cli import main
from tablecam.errors import UserError

DPI = 150  # small pages keep the test quick; the size check scales with it


def _markers_on(page: Image.Image) -> dict[int, np.ndarray]:
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    corners, ids, _ = detector.detectMarkers(np.array(page.convert("L")))
    return {int(i): c.reshape(4, 2) for c, i in zip(corners, ids.ravel())} if ids is not None else {}


def test_pages_are_a4_and_the_markers_true_size():
    pages = render_pages(TableGeometry(), dpi=DPI)
    assert len(pages) == 2
    for page in pages:
        assert page.size == (round(210 / 25.4 * DPI), round(297 / 25.4 * DPI))
    found = [_markers_on(p) for p in pages]
    assert sorted(found[0]) == [0, 1] and sorted(found[1]) == [2, 3]
    for page, markers in zip(pages, found):
        ink = np.array(page) < 128
        for corners in markers.values():
            # The black square's extent in pixels, read off the page around the detected marker.
            (x0, y0), (x1, y1) = corners.min(axis=0).astype(int) - 3, corners.max(axis=0).astype(int) + 4
            rows, cols = np.nonzero(ink[y0:y1, x0:x1])
            for extent in (cols.max() - cols.min() + 1, rows.max() - rows.min() + 1):
                assert extent / DPI * 25.4 == pytest.approx(40.0, abs=0.5 * 25.4 / DPI)


def test_big_markers_get_a_page_each():
    pages = render_pages(TableGeometry(marker_mm=100, width_mm=900, height_mm=600), dpi=72)
    assert len(pages) == 4 and [sorted(_markers_on(p)) for p in pages] == [[0], [1], [2], [3]]


def test_pdf_has_two_a4_pages(tmp_path):
    out = write_sheet(tmp_path / "markers.pdf", TableGeometry(), dpi=DPI)
    data = out[0].read_bytes()
    assert data.startswith(b"%PDF")
    assert len(re.findall(rb"/Type\s*/Page\b", data)) == 2
    box = [float(v) for v in re.search(rb"/MediaBox\s*\[([^\]]*)\]", data).group(1).split()]
    assert box[2] / 72 * 25.4 == pytest.approx(210, abs=0.5) and box[3] / 72 * 25.4 == pytest.approx(297, abs=0.5)


def test_cli_writes_png_pages_and_refuses_other_formats(tmp_path, capsys):
    assert main(["markers", "--out", str(tmp_path / "m.png"), "--dpi", "100", "--data-dir", str(tmp_path)]) == 0
    assert (tmp_path / "m-1.png").exists() and (tmp_path / "m-2.png").exists()
    assert "print at 100 %" in capsys.readouterr().out
    assert main(["markers", "--out", str(tmp_path / "m.svg"), "--data-dir", str(tmp_path)]) == 2
    assert "written as .pdf or .png" in capsys.readouterr().err
    with pytest.raises(UserError, match="does not fit on an A4 page"):
        render_pages(TableGeometry(marker_mm=200, width_mm=900, height_mm=600))
