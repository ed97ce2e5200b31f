"""`tablecam hardware fov`: real sensor figures, the 3-pixel criterion, and one-sentence mistakes."""

import pytest

from tablecam.calibration.fov import RESOLVABLE_PX, SENSORS, field_of_view
from tablecam.companion.cli import main
from tablecam.errors import UserError


def test_sensor_figures_are_the_datasheets():
    hq, v3 = SENSORS["hq"], SENSORS["v3"]
    assert (hq.width_mm, hq.height_mm) == pytest.approx((6.287, 4.712), abs=0.001)
    assert (v3.width_mm, v3.height_mm) == pytest.approx((6.451, 3.629), abs=0.001)
    assert SENSORS["v3"].fixed_lens_mm == 4.74 and SENSORS["v3-wide"].fixed_lens_mm == 2.75


def test_hq_camera_with_the_6_mm_lens_at_900_mm():
    r = field_of_view("hq", 900, 6)
    # (900 - 6) / 6 = 149x magnification: 6.287 mm of sensor covers 936.8 mm of table.
    assert r.area_mm == pytest.approx((6.287 * 149, 4.712 * 149), rel=1e-3)
    assert r.resolution == (2028, 1520)
    assert r.px_per_mm == pytest.approx(2028 / (6.287 * 149), rel=1e-3)
    catalyst, stick, _ = r.details
    assert catalyst[1] == pytest.approx(2.7 * r.px_per_mm) and catalyst[2]
    assert stick[1] == pytest.approx(8 * r.px_per_mm) and stick[2]
    assert r.frame_fits
    # The 840 x 540 mm frame needs ~882 mm of view: at 800 mm this lens sees only 832 mm.
    assert not field_of_view("hq", 800, 6).frame_fits
    assert 840 < r.lowest_mm < 900 < r.highest_mm


def test_a_wide_camera_too_high_loses_the_catalyst_dot():
    r = field_of_view("v3-wide", 1000, resolution=(1536, 864))
    catalyst = r.details[0]
    assert catalyst[1] < RESOLVABLE_PX and not catalyst[2]
    assert any("NOT resolvable" in line for line in r.lines())
    assert r.highest_mm < 1000


def test_the_cli_prints_the_plan(capsys):
    assert main(["hardware", "fov", "--camera", "hq", "--lens", "6", "--height", "900"]) == 0
    out = capsys.readouterr().out
    assert "sees 937 x 702 mm of table at 2.16 px/mm" in out
    assert "micropul one-dot catalyst (0.09 x 30 mm tile): 5.8 px, resolvable" in out
    assert "mount this camera and lens between" in out


@pytest.mark.parametrize("argv, words", [
    (["--camera", "hq", "--height", "800"], "say which lens"),
    (["--camera", "v3", "--lens", "6", "--height", "800"], "fixed 4.74 mm lens"),
    (["--camera", "hq", "--lens", "6", "--height", "5"], "camera height must be"),
    (["--camera", "hq", "--lens", "6", "--height", "800", "--resolution", "big"], "WIDTHxHEIGHT"),
])
def test_mistakes_are_one_sentence(capsys, argv, words):
    assert main(["hardware", "fov", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and len(err.splitlines()) == 1 and err.endswith(".")


def test_unknown_camera_is_a_user_error():
    with pytest.raises(UserError, match="unknown camera"):
        field_of_view("gopro", 800, 3)
