"""The truth must describe the picture: markers, piece colours and positions where it says."""

import math

import numpy as np
import pytest

from tablecam.calibration.geometry import TableGeometry
from tablecam.simulator import CameraModel, Nuisances, random_state, render
from tablecam.simulator import enix, stixx
from tablecam.simulator.micropul import MICROPUL_OFFSET, QUADRANT_SIGNS
from tablecam.simulator.layout import rotate


def _assert_markers_where_truth_says(detect_markers, shot, tolerance_px: float) -> None:
    """Every corner within `tolerance_px`, and every marker's centre within half of it.

    (cornerSubPix places a square's corners a few tenths of a pixel outwards; that bias cancels
    in the centre, which must then sit where the truth says.)
    """
    found = {k: v for k, v in detect_markers(shot.image).items() if k in (0, 1, 2, 3)}
    assert sorted(found) == [0, 1, 2, 3]
    assert shot.truth["markers_seen"] == 4
    for mid, corners in found.items():
        expected = np.array(shot.truth["pixels"]["markers"][str(mid)])
        err = np.hypot(*(corners - expected).T)
        assert err.max() < tolerance_px, f"marker {mid} corners are up to {err.max():.2f} px from the truth"
        centre_err = np.hypot(*(corners.mean(axis=0) - expected.mean(axis=0)))
        assert centre_err < tolerance_px / 2, f"marker {mid} centre is {centre_err:.2f} px from the truth"


def test_clean_render_markers_where_truth_says(small_camera, detect_markers):
    state = random_state("micropul", np.random.default_rng(1))
    shot = render(state, small_camera, Nuisances.none(), seed=1)
    assert shot.image.shape == (760, 1014, 3) and shot.image.dtype == np.uint8
    _assert_markers_where_truth_says(detect_markers, shot, 0.8)


@pytest.mark.parametrize("seed", [2, 3, 4])
def test_tilted_rolled_distorted_camera_markers_where_truth_says(seed, detect_markers):
    rng = np.random.default_rng(seed)
    camera = CameraModel.random(rng, (1640, 1232))  # the camera v2's mode: markers ~30+ px even when rolled
    nuisances = Nuisances.random(rng, hand=False)
    shot = render(random_state("stixx", rng), camera, nuisances, seed=seed)
    # Blur, noise and JPEG move a detector's corners a little; the truth itself is exact.
    _assert_markers_where_truth_says(detect_markers, shot, 2.5)


def test_full_size_render_markers_where_truth_says(detect_markers):
    shot = render(random_state("enix", np.random.default_rng(4)), CameraModel.default(), Nuisances.none(), seed=4)
    assert shot.image.shape == (1520, 2028, 3)
    _assert_markers_where_truth_says(detect_markers, shot, 1.0)


def _bgr_at(image, px, radius=1):
    x, y = (int(round(v)) for v in px)
    return image[y - radius:y + radius + 1, x - radius:x + radius + 1].reshape(-1, 3).mean(axis=0)


def _nearest(colour, palette: dict) -> str:
    def bgr(hexcode):
        c = hexcode.lstrip("#")
        return np.array([int(c[4:6], 16), int(c[2:4], 16), int(c[0:2], 16)], float)

    return min(palette, key=lambda name: np.linalg.norm(bgr(palette[name]) - colour))


def test_micropul_quadrants_and_stones_at_truth_positions(small_camera):
    rng = np.random.default_rng(5)
    state = random_state("micropul", rng)
    while len(state["stones"]) < 2:
        state = random_state("micropul", rng)
    shot = render(state, small_camera, Nuisances.none(), seed=5)
    truth, angle = shot.truth, shot.truth["scene"]["board_angle_deg"]
    s = truth["tile_mm"]
    dark, light = 0, 0
    for tile in truth["tiles"]:
        if tile["quadrants"] is None:
            continue
        for q, (sx, sy) in QUADRANT_SIGNS.items():
            dx, dy = rotate((sx * MICROPUL_OFFSET * s, sy * MICROPUL_OFFSET * s), angle)
            point = (tile["center_mm"][0] + dx, tile["center_mm"][1] + dy)
            if any(math.dist(point, st["center_mm"]) < 8 for st in truth["stones"]):
                continue  # a stone sits on this micropul
            value = _bgr_at(shot.image, small_camera.project([point])[0]).mean()
            if tile["quadrants"][q] == "B":
                assert value < 90, f"a black micropul should be dark, got {value:.0f}"
                dark += 1
            elif tile["quadrants"][q] in "W.":
                assert value > 150, f"a white micropul or blank should be light, got {value:.0f}"
                light += 1
    assert dark and light
    for stone, px in zip(truth["stones"], truth["pixels"]["stones"]):
        b, g, r = _bgr_at(shot.image, px["center_px"])
        assert (r > b + 40) if stone["colour"] == "red" else (b > r + 40), (stone["colour"], (b, g, r))


def test_enix_hex_colours_at_truth_positions(small_camera):
    shot = render(random_state("enix", np.random.default_rng(6)), small_camera, Nuisances.none(), seed=6)
    assert len(shot.truth["hexes"]) == 6
    for h in shot.truth["hexes"]:
        # Towards a corner, between two rays: plain energy colour.
        d = math.radians(-60 + h["rotation"])
        point = (h["center_mm"][0] + 40 * math.cos(d), h["center_mm"][1] + 40 * math.sin(d))
        colour = _bgr_at(shot.image, small_camera.project([point])[0])
        assert _nearest(colour, enix.ENERGY_COLOURS) == h["energy"]


def test_stixx_stick_colours_at_truth_positions(small_camera):
    shot = render(random_state("stixx", np.random.default_rng(7)), small_camera, Nuisances.none(), seed=7)
    sticks = shot.truth["sticks"]
    assert sticks
    for stick, px in zip(sticks, shot.truth["pixels"]["sticks"]):
        assert _nearest(_bgr_at(shot.image, px["center_px"]), stixx.STICK_COLOURS) == stick["colour"]


def test_enigmo_shutters_and_row_corners(small_camera):
    from tablecam.simulator.enigmo import game_states

    states = [s for s in game_states(8, TableGeometry()) if 0 < sum(s["shutters"]) < 10]
    shot = render(states[0], small_camera, Nuisances.none(), seed=8)
    corners = np.array(shot.truth["shutter_row_mm"])
    assert corners.shape == (4, 2)
    assert math.dist(corners[0], corners[1]) == pytest.approx(250, abs=0.1)
    assert math.dist(corners[0], corners[3]) == pytest.approx(40, abs=0.1)
    for k, is_open in enumerate(shot.truth["shutters"]):
        # Upper part of each shutter, clear of its number or letter.
        top = corners[0] + (corners[1] - corners[0]) * (k + 0.5) / 10 + (corners[3] - corners[0]) * 0.22
        b, g, r = _bgr_at(shot.image, small_camera.project([top])[0])
        if is_open:
            assert min(b, g, r) > 170, f"open shutter {k + 1} should show the white card"
        else:
            assert r > b + 80, f"closed shutter {k + 1} should show its orange plastic"
    for die in shot.truth["dice"]:
        assert 1 <= die["value"] <= 6
