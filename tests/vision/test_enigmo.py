"""Enigmo on simulator renders: the shutters from the marked row, the dice, and bad inputs."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tablecam.calibration.geometry import TableGeometry
from tablecam.errors import UserError
from tablecam.simulator import Nuisances, random_state, render
from tablecam.vision.enigmo import NOT_MARKED, EnigmoDetector, EnigmoSettings, detect, shutter_row_from_pixels
from tablecam.vision.enigmo_shutters import ShutterRow, judge, parse_corners


@pytest.fixture(scope="module")
def shots():
    """Three clean shots of states with two dice (each state has its own shutters open)."""
    rng = np.random.default_rng(11)
    out = []
    while len(out) < 3:
        state = random_state("enigmo", rng)
        if len(state["dice"]) == 2:
            out.append(render(state, nuisances=Nuisances.none(), seed=len(out)))
    return out


@pytest.fixture(scope="module")
def readings(shots):
    return [detect(s.image, shutter_row_mm=s.truth["shutter_row_mm"]) for s in shots]


def test_every_shutter_is_read(shots, readings):
    for shot, obs in zip(shots, readings):
        assert obs["shutters"] == shot.truth["shutters"]


def test_dice_are_read_right_or_left_unread_never_wrong(shots, readings):
    right = 0
    for shot, obs in zip(shots, readings):
        for true in shot.truth["dice"]:
            near = [d for d in obs["dice"] if math.dist(d["center_mm"], true["center_mm"]) < 8.0]
            assert len(near) <= 1
            if near:
                assert near[0]["value"] in (true["value"], None)
                right += near[0]["value"] == true["value"]
        assert len(obs["dice"]) <= 2  # nothing else on the table passes for a die
    assert right >= 4  # of 6


def test_observation_has_the_common_fields_and_the_rules_take_it(readings):
    from tablecam.rules.enigmo.replay import Replay

    replay = Replay()
    for obs in readings:
        replay.feed(obs)
    obs = readings[0]
    assert obs["game"] == "enigmo" and obs["markers_seen"] == 4 and obs["table_mm"] == [800.0, 500.0]
    assert isinstance(obs["ms"], float) and isinstance(obs["warnings"], list) and len(obs["shutter_row_mm"]) == 4


def test_without_a_marked_row_the_shutters_are_unknown_and_the_page_is_told(shots):
    from tablecam.rules.enigmo.replay import Replay

    obs = detect(shots[0].image)
    Replay().feed(obs)  # the rules take it (a null shutter keeps its last reading)
    assert obs["shutters"] == [None] * 10 and NOT_MARKED in obs["warnings"]


def test_the_frame_loop_reads_the_same_and_takes_the_row_from_the_last_observation(shots, readings):
    detector = EnigmoDetector()
    first = detector.detect(shots[1].image, frame_id=7, state={"shutter_row_mm": shots[1].truth["shutter_row_mm"]})
    again = detector.detect(shots[1].image, frame_id=8, state=first)
    assert first["frame_id"] == 7 and again["shutters"] == readings[1]["shutters"] == shots[1].truth["shutters"]
    assert again["dice"] == readings[1]["dice"]


def test_marking_the_row_on_the_picture_gives_table_mm(shots):
    from tablecam.calibration import find_table

    shot = shots[0]
    fix = find_table(shot.image)
    corners_px = fix.table_to_image(shot.truth["shutter_row_mm"])
    row = shutter_row_from_pixels(corners_px.tolist(), fix)
    assert np.allclose(row.corners_mm, shot.truth["shutter_row_mm"], atol=0.5)
    detector = EnigmoDetector(EnigmoSettings())
    assert detector.detect(shot.image)["shutters"] == [None] * 10
    detector.mark_shutter_row(shutter_row_from_pixels(corners_px.tolist(), detector.table))
    assert detector.detect(shot.image)["shutters"] == shot.truth["shutters"]


def test_a_hand_over_a_shutter_is_unsure_not_closed():
    white, orange, skin = (240, 240, 240), (40, 110, 225), (120, 150, 190)
    samples = np.zeros((10, 56, 3))
    samples[:] = orange
    samples[0] = white
    samples[1, :20] = white
    samples[1, 20:] = skin  # half covered by a hand
    samples[2, :] = (140, 140, 140)  # grey: neither card nor plastic
    states, share = judge(samples)
    assert states[0] is True and states[1] is None and states[2] is None and states[3] is False


@pytest.mark.parametrize("corners", [
    [[10, 10], [260, 10], [260, 50]],  # three corners
    [[10, 10], [10, 50], [260, 50], [260, 10]],  # anticlockwise
    [[10, 10], [15, 10], [15, 14], [10, 14]],  # a few mm: not the row
    [[10, 10], [260, 10], ["a", 50], [10, 50]],
])
def test_bad_rows_are_one_sentence(corners):
    with pytest.raises(UserError):
        ShutterRow.from_list(corners)


def test_row_text_and_off_table_rows():
    assert parse_corners("10,10 260,10 260,50 10,50").as_list()[2] == [260.0, 50.0]
    with pytest.raises(UserError, match="eight numbers"):
        parse_corners("10 10 260")
    from tablecam.vision.enigmo_shutters import check_corners
    with pytest.raises(UserError, match="on the table"):
        check_corners([[900, 10], [1150, 10], [1150, 50], [900, 50]], TableGeometry())


def test_a_photo_without_markers_or_a_broken_frame_is_one_sentence():
    with pytest.raises(UserError):
        detect(np.full((480, 640, 3), 180, np.uint8))
    with pytest.raises(UserError):
        detect(np.zeros((0, 0, 3), np.uint8))
    with pytest.raises(UserError):
        EnigmoDetector().detect(np.zeros((10, 10), np.float64))


def test_a_camera_too_far_for_pips_says_so_instead_of_guessing():
    from tablecam.simulator import CameraModel

    rng = np.random.default_rng(4)
    state = random_state("enigmo", rng)
    while not state["dice"]:
        state = random_state("enigmo", rng)
    shot = render(state, CameraModel.default((640, 480)), Nuisances.none(), seed=1)
    obs = detect(shot.image, shutter_row_mm=shot.truth["shutter_row_mm"])
    assert obs["dice"] == []
    assert any("too small in the picture" in w for w in obs["warnings"])
