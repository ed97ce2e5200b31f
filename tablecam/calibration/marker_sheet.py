"""Printable pages with the four table markers at true size (A4, PDF or PNG).

Each page carries two markers (one per half page, to cut apart; one per page when the markers
are too big for that), each with its id, where it goes on the table, its side in mm, a dashed
line for cutting that keeps a white quiet zone, and a 40 mm check ruler: if the ruler does not
measure 40 mm the printer scaled the page.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from tablecam.calibration.geometry import ARUCO_DICTIONARY, TableGeometry
from tablecam.errors import UserError

A4_MM = (210.0, 297.0)
MM_PER_INCH = 25.4
RULER_MM = 40
PLACES = {
    0: "top-left corner of the play area (far side, left, as seen from the camera)",
    1: "top-right corner of the play area (far side, right)",
    2: "bottom-right corner of the play area (near side, right)",
    3: "bottom-left corner of the play area (near side, left)",
}


def quiet_zone_mm(marker_mm: float) -> float:
    """White paper to keep around a marker: at least a quarter side, and 8 mm for easy cutting."""
    return max(marker_mm / 4, 8.0)


def marker_image(marker_id: int, side_px: int, dictionary: str = ARUCO_DICTIONARY) -> np.ndarray:
    """The marker's black-and-white pattern (border included), `side_px` square, uint8."""
    aruco = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    return cv2.aruco.generateImageMarker(aruco, marker_id, int(side_px), borderBits=1)


@dataclass(frozen=True)
class SheetLayout:
    pages: tuple[tuple[int, ...], ...]  # marker ids per page
    dpi: int


def plan_pages(geometry: TableGeometry, dpi: int) -> SheetLayout:
    if not 72 <= dpi <= 1200:
        raise UserError(f"print at 72 to 1200 dpi, not {dpi}.")
    block = geometry.marker_mm + 2 * quiet_zone_mm(geometry.marker_mm)
    usable_w, usable_h = A4_MM[0] - 20, A4_MM[1] - 20
    if block + 30 > usable_w or block + 45 > usable_h:
        raise UserError(f"a {geometry.marker_mm:g} mm marker does not fit on an A4 page: use markers of at most "
                        f"{usable_w - 30 - 2 * 8:.0f} mm.")
    per_page = 2 if 2 * (block + 45) <= usable_h else 1
    ids = (0, 1, 2, 3)
    pages = tuple(ids[i:i + per_page] for i in range(0, 4, per_page))
    return SheetLayout(pages, dpi)


def render_pages(geometry: TableGeometry = TableGeometry(), dpi: int = 300) -> list[Image.Image]:
    """The A4 pages as greyscale images at `dpi` (true size when printed at 100 %)."""
    layout = plan_pages(geometry, dpi)
    px = dpi / MM_PER_INCH
    page_w, page_h = round(A4_MM[0] * px), round(A4_MM[1] * px)
    pages = []
    for ids in layout.pages:
        page = Image.new("L", (page_w, page_h), 255)
        draw = ImageDraw.Draw(page)
        slot_h = page_h / len(ids)
        for k, marker_id in enumerate(ids):
            _draw_slot(page, draw, marker_id, geometry, px, top=k * slot_h, height=slot_h)
            if k:
                _dashed_line(draw, (0, k * slot_h), (page_w, k * slot_h), px)
        pages.append(page)
    return pages


def write_sheet(path: str | Path, geometry: TableGeometry = TableGeometry(), dpi: int = 300) -> list[Path]:
    """Writes the pages: one PDF with every page, or PNG files (NAME.png, or NAME-1.png, NAME-2.png...)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".pdf", ".png"):
        raise UserError(f"the marker sheet is written as .pdf or .png, not {path.name!r}.")
    if path.parent and not path.parent.exists():
        raise UserError(f"the folder {path.parent} does not exist.")
    pages = render_pages(geometry, dpi)
    try:
        if suffix == ".pdf":
            # Pure black and white: Pillow then stores the pages losslessly (CCITT), where greys
            # would go through JPEG and blur the marker edges.
            bw = [p.convert("1", dither=Image.Dither.NONE) for p in pages]
            bw[0].save(path, "PDF", resolution=float(dpi), save_all=True, append_images=bw[1:],
                       title="tablecam table markers")
            return [path]
        if len(pages) == 1:
            pages[0].save(path, dpi=(dpi, dpi))
            return [path]
        out = []
        for i, page in enumerate(pages, start=1):
            p = path.with_name(f"{path.stem}-{i}{path.suffix}")
            page.save(p, dpi=(dpi, dpi))
            out.append(p)
        return out
    except OSError as exc:
        raise UserError(f"cannot write {path} ({exc.strerror or exc}).") from None


def _draw_slot(page: Image.Image, draw: ImageDraw.ImageDraw, marker_id: int, geometry: TableGeometry,
               px: float, top: float, height: float) -> None:
    side_px = round(geometry.marker_mm * px)
    quiet = quiet_zone_mm(geometry.marker_mm) * px
    title = _font(5.0 * px)
    body = _font(3.2 * px)
    page_w = page.width
    y = top + 8 * px
    draw.text((12 * px, y), f"tablecam table marker {marker_id}", fill=0, font=title)
    y += 7.5 * px
    draw.text((12 * px, y), f"Goes at the {PLACES[marker_id]}.", fill=0, font=body)
    y += 5 * px
    # The marker, centred, with its quiet zone and a dashed cutting line around that.
    x0 = round((page_w - side_px) / 2)
    y0 = round(y + quiet + 4 * px)
    page.paste(Image.fromarray(marker_image(marker_id, side_px)), (x0, y0))
    cut = (x0 - quiet, y0 - quiet, x0 + side_px + quiet, y0 + side_px + quiet)
    for a, b in (((cut[0], cut[1]), (cut[2], cut[1])), ((cut[2], cut[1]), (cut[2], cut[3])),
                 ((cut[2], cut[3]), (cut[0], cut[3])), ((cut[0], cut[3]), (cut[0], cut[1]))):
        _dashed_line(draw, a, b, px)
    # The printed top faces the far side of the table (any turn is still found, but this way the
    # sheet reads like the table).
    ax = x0 + side_px / 2
    draw.polygon([(ax, cut[1] + 0.8 * px), (ax - 1.8 * px, cut[1] + 3.2 * px), (ax + 1.8 * px, cut[1] + 3.2 * px)],
                 fill=0)
    draw.text((cut[2] + 3 * px, cut[1] + 0.5 * px), "top: towards the\nfar side of the table", fill=0, font=body)
    y = cut[3] + 5 * px
    g = geometry
    lines = [
        f"Black square: {g.marker_mm:g} mm a side. Cut along the dashed line: keep the white border.",
        f"Centres: 0 to 1 = {g.width_mm:g} mm, 0 to 3 = {g.height_mm:g} mm (or measure yours, centre to centre,",
        "and run: tablecam calibrate geometry --width-mm W --height-mm H). Tape them flat.",
        f"Check: the ruler below must measure exactly {RULER_MM} mm. If not, print again at 100 % (actual size).",
    ]
    for line in lines:
        draw.text((12 * px, y), line, fill=0, font=body)
        y += 4.6 * px
    _ruler(draw, 12 * px, y + 2 * px, px, body)


def _ruler(draw: ImageDraw.ImageDraw, x: float, y: float, px: float, font) -> None:
    length = RULER_MM * px
    draw.line([(x, y), (x + length, y)], fill=0, width=max(1, round(0.3 * px)))
    for mm in range(RULER_MM + 1):
        tick = 4 if mm % 10 == 0 else 2.5 if mm % 5 == 0 else 1.5
        xx = x + mm * px
        draw.line([(xx, y), (xx, y + tick * px)], fill=0, width=max(1, round(0.15 * px)))
        if mm % 10 == 0:
            draw.text((xx - 1 * px, y + 4.5 * px), str(mm), fill=0, font=font)
    draw.text((x + length + 3 * px, y), f"{RULER_MM} mm check ruler", fill=0, font=font)


def _dashed_line(draw: ImageDraw.ImageDraw, a, b, px: float) -> None:
    (x0, y0), (x1, y1) = a, b
    length = float(np.hypot(x1 - x0, y1 - y0))
    dash = 2.0 * px
    n = max(1, int(length / dash))
    for i in range(0, n, 2):
        t0, t1 = i / n, min(1.0, (i + 1) / n)
        draw.line([(x0 + (x1 - x0) * t0, y0 + (y1 - y0) * t0), (x0 + (x1 - x0) * t1, y0 + (y1 - y0) * t1)],
                  fill=0, width=max(1, round(0.2 * px)))


def _font(size_px: float):
    try:
        return ImageFont.load_default(size=max(8, round(size_px)))
    except TypeError:  # Pillow < 10.1 has only the small bitmap font
        return ImageFont.load_default()
