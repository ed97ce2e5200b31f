"""How much table a camera sees from a height, and whether the smallest details stay visible.

Sensor figures (Raspberry Pi documentation and the sensors' datasheets):
- HQ camera, Sony IMX477: 4056 x 3040 px of 1.55 um = 6.287 x 4.712 mm; C/CS lenses of any focal length.
- Camera Module 3, Sony IMX708: 4608 x 2592 px of 1.4 um = 6.451 x 3.629 mm; fixed lens 4.74 mm
  (66 degrees horizontal), the Wide version 2.75 mm (102 degrees; it is close to a fisheye, so
  the pinhole figures here are optimistic at the edges of its view).

A detail is called resolvable when it spans at least RESOLVABLE_PX pixels: two pixels is the
sampling limit for a line, and the Bayer filter, the lens blur and JPEG take about one more.
"""

from __future__ import annotations

from dataclasses import dataclass

from tablecam.calibration.geometry import TableGeometry
from tablecam.errors import UserError

RESOLVABLE_PX = 3.0
FRAME_MARGIN = 1.05  # the marker frame should fill at most 95 % of the view: mounts are not exact


@dataclass(frozen=True)
class Sensor:
    key: str
    name: str
    width_px: int
    height_px: int
    pixel_um: float
    fixed_lens_mm: float | None  # None: interchangeable lens
    default_resolution: tuple[int, int]  # the full-field binned mode tablecam uses

    @property
    def width_mm(self) -> float:
        return self.width_px * self.pixel_um / 1000

    @property
    def height_mm(self) -> float:
        return self.height_px * self.pixel_um / 1000


SENSORS = {
    "hq": Sensor("hq", "Raspberry Pi HQ Camera (Sony IMX477)", 4056, 3040, 1.55, None, (2028, 1520)),
    "v3": Sensor("v3", "Raspberry Pi Camera Module 3 (Sony IMX708)", 4608, 2592, 1.4, 4.74, (2304, 1296)),
    "v3-wide": Sensor("v3-wide", "Raspberry Pi Camera Module 3 Wide (Sony IMX708)", 4608, 2592, 1.4, 2.75,
                      (2304, 1296)),
}


@dataclass(frozen=True)
class Detail:
    name: str
    size_mm: float

    def pixels(self, px_per_mm: float) -> float:
        return self.size_mm * px_per_mm


# The smallest things the detectors must see (shared/games): a micropul one-dot catalyst is
# 0.09 of a 30 mm tile; a Stixx stick is 8 mm wide; an ArUco 4x4 marker cell is a sixth of 40 mm.
DETAILS = (
    Detail("micropul one-dot catalyst (0.09 x 30 mm tile)", 0.09 * 30),
    Detail("Stixx stick width", 8.0),
    Detail("table marker cell (40 mm marker / 6)", 40 / 6),
)


@dataclass(frozen=True)
class FovReport:
    sensor: Sensor
    lens_mm: float
    height_mm: float
    resolution: tuple[int, int]
    area_mm: tuple[float, float]  # table covered, width x height
    px_per_mm: float
    details: tuple[tuple[Detail, float, bool], ...]  # (detail, pixels, resolvable)
    frame_mm: tuple[float, float]  # the marker frame's outer size
    frame_fits: bool
    lowest_mm: float  # the lowest height at which the marker frame fits the view
    highest_mm: float  # the highest height at which every detail stays resolvable

    def lines(self) -> list[str]:
        w, h = self.area_mm
        out = [f"{self.sensor.name}, {self.lens_mm:g} mm lens, {self.height_mm:g} mm above the table, "
               f"{self.resolution[0]}x{self.resolution[1]} px:",
               f"  sees {w:.0f} x {h:.0f} mm of table at {self.px_per_mm:.2f} px/mm "
               f"({1 / self.px_per_mm:.2f} mm per pixel)"]
        for detail, px, ok in self.details:
            verdict = "resolvable" if ok else f"NOT resolvable (needs {RESOLVABLE_PX:g} px)"
            out.append(f"  {detail.name}: {px:.1f} px, {verdict}")
        fw, fh = self.frame_mm
        out.append(f"  marker frame {fw:.0f} x {fh:.0f} mm: " + ("fits" if self.frame_fits else "does NOT fit"))
        if self.lowest_mm <= self.highest_mm:
            out.append(f"  mount this camera and lens between {self.lowest_mm:.0f} and {self.highest_mm:.0f} mm "
                       "above the table")
        else:
            out.append(f"  no height works with this lens: the frame needs {self.lowest_mm:.0f} mm but the "
                       f"smallest detail is lost above {self.highest_mm:.0f} mm (use a longer lens with more "
                       "height, or a higher resolution)")
        return out


def field_of_view(camera: str, height_mm: float, lens_mm: float | None = None,
                  resolution: tuple[int, int] | None = None, geometry: TableGeometry = TableGeometry()) -> FovReport:
    """The table area seen from `height_mm` (lens to table) and what that means for the details.

    A `resolution` other than the sensor's shape is taken as a scaled full-width mode, cropped
    top and bottom (or left and right) to its aspect ratio, as libcamera's full-field modes do.
    """
    sensor = SENSORS.get(camera)
    if sensor is None:
        raise UserError(f"unknown camera {camera!r}: choose one of {', '.join(SENSORS)}.")
    if sensor.fixed_lens_mm is not None:
        if lens_mm is not None and abs(lens_mm - sensor.fixed_lens_mm) > 0.01:
            raise UserError(f"the {sensor.name} has a fixed {sensor.fixed_lens_mm:g} mm lens: leave out --lens.")
        lens_mm = sensor.fixed_lens_mm
    if lens_mm is None:
        raise UserError(f"say which lens is on the {sensor.name}, e.g. --lens 6 (the 6 mm CS lens) or --lens 16.")
    if not 1.0 <= lens_mm <= 100.0:
        raise UserError(f"a lens of {lens_mm:g} mm is not a camera lens: give its focal length in mm (e.g. 6).")
    if not height_mm > 2 * lens_mm or height_mm > 10000:
        raise UserError(f"the camera height must be between {2 * lens_mm:g} and 10000 mm above the table, not {height_mm:g}.")
    res = resolution or sensor.default_resolution
    if res[0] <= 0 or res[1] <= 0 or res[0] > 4 * sensor.width_px or res[1] > 4 * sensor.height_px:
        raise UserError(f"a resolution of {res[0]}x{res[1]} is not one this camera can give.")

    used_w, used_h = _used_sensor_mm(sensor, res)
    area_w, area_h = (used_w * _magnification(height_mm, lens_mm), used_h * _magnification(height_mm, lens_mm))
    ppm = res[0] / area_w
    details = tuple((d, d.pixels(ppm), d.pixels(ppm) >= RESOLVABLE_PX) for d in DETAILS)
    frame = (geometry.width_mm + geometry.marker_mm, geometry.height_mm + geometry.marker_mm)
    # The frame may lie either way round under the camera: the better orientation counts.
    fits = _fits(frame, (area_w, area_h))
    lowest = _lowest_height(frame, used_w, used_h, lens_mm)
    smallest = min(d.size_mm for d in DETAILS)
    # ppm(h) = res_w / (used_w * (h - f) / f) >= RESOLVABLE_PX / smallest
    highest = lens_mm + lens_mm * res[0] * smallest / (RESOLVABLE_PX * used_w)
    return FovReport(sensor, float(lens_mm), float(height_mm), (int(res[0]), int(res[1])), (area_w, area_h), ppm,
                     details, frame, fits, lowest, highest)


def _magnification(height_mm: float, lens_mm: float) -> float:
    # Thin lens focused on the table: object distance / image distance = (d - f) / f.
    return (height_mm - lens_mm) / lens_mm


def _used_sensor_mm(sensor: Sensor, res: tuple[int, int]) -> tuple[float, float]:
    aspect = res[0] / res[1]
    if aspect >= sensor.width_px / sensor.height_px:
        return sensor.width_mm, sensor.width_mm / aspect
    return sensor.height_mm * aspect, sensor.height_mm


def _fits(frame: tuple[float, float], area: tuple[float, float]) -> bool:
    fw, fh = frame[0] * FRAME_MARGIN, frame[1] * FRAME_MARGIN
    aw, ah = area
    return (fw <= aw and fh <= ah) or (fh <= aw and fw <= ah)


def _lowest_height(frame: tuple[float, float], used_w: float, used_h: float, lens_mm: float) -> float:
    fw, fh = frame[0] * FRAME_MARGIN, frame[1] * FRAME_MARGIN
    # magnification needed for each orientation; the smaller one wins.
    need = min(max(fw / used_w, fh / used_h), max(fh / used_w, fw / used_h))
    return lens_mm + need * lens_mm


def parse_resolution(text: str) -> tuple[int, int]:
    parts = text.lower().replace("×", "x").split("x")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise UserError(f"a resolution is written WIDTHxHEIGHT, e.g. 2028x1520, not {text!r}.")
    return int(parts[0]), int(parts[1])
