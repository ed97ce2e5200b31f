"""The Stixx detector on fixed seeded simulator renders: accuracy thresholds of issue 8, a hand over
the board, an empty table, another game on the table, bad input, the CLI, and a whole game seen
through the camera giving the same rule events as the game itself.

Renders are made once per session (scene_batch: several states under one camera and light, which
is what keeps this fast). Accuracy is judged as bench/stixx_enix_detect.py judges it
(board_scenes.py), where the bench's 200 fresh renders are measured.
"""

from __future__ import annotations

import io
import itertools
import json

import numpy as np
import pytest

from board_scenes import (StixxScore, canonical_stixx, game_frames, groove_hidden, render_scene, scene_batch, score_stixx,
                          shoot)
from tablecam.calibration.geometry import TableGeometry
from tablecam.errors import UserError
from tablecam.simulator import CameraModel, Nuisances
from tablecam.simulator.render import random_state
from tablecam.simulator.scene import Stage
from tablecam.vision.stixx import NO_BOARD, StixxDetector, StixxSettings, detect

SMALL = (1014, 760)


@pytest.fixture(scope="session")
def fixed_set():
    """12 renders at 2028x1520: two cameras, lights and tables, every fourth shot with a hand."""
    return scene_batch("stixx", 11, 6) + scene_batch("stixx", 12, 6)


def _score(scenes) -> StixxScore:
    total = StixxScore()
    for scene in scenes:
        total.add(score_stixx(detect(scene.image, profile=scene.profile), scene))
    return total


def test_slots_and_boards_meet_the_thresholds(fixed_set):
    total = _score(fixed_set)
    in_view = total.slots - total.slots_null_hidden
    assert total.slots_wrong == 0, total.failures
    assert total.slots_right / in_view >= 0.998, total.failures
    assert total.boards_right / total.images >= 0.97, total.failures
    assert max(total.centre_errors) < 2.0 and max(total.rotation_errors) < 1.0


def test_sticks_beside_the_board_are_listed_without_a_slot(fixed_set):
    # The first camera looks at a green cloth: green sticks on it are the hard case (bench: ~90 %).
    total = _score(fixed_set[:6])
    assert total.loose >= 30
    assert total.loose_right / total.loose >= 0.7
    assert total.loose_invented <= 1


def _shot_with_hand_on_board(seed: int, resolution=SMALL):
    geometry = TableGeometry()
    rng = np.random.default_rng(seed)
    state = random_state("stixx", rng, geometry)
    camera = CameraModel.default(resolution, geometry)
    stage = Stage.build(camera, Nuisances.none(), geometry, rng)
    return shoot(stage, state, seed, rng, True, hand_target=tuple(state["board"]["center_mm"]))


def test_a_hand_over_the_board_makes_grooves_unknown_never_wrong():
    scene = _shot_with_hand_on_board(5, (2028, 1520))
    obs = detect(scene.image, profile=scene.profile)
    score = score_stixx(obs, scene)
    hidden = [s for s, f in enumerate(groove_hidden(scene)) if f > 0.5]
    assert obs["board"] is not None and hidden
    assert score.slots_wrong == 0, score.failures
    unread = {s["slot"] for s in obs["sticks"] if s["colour"] is None}
    assert unread and unread <= {s for s, f in enumerate(groove_hidden(scene)) if f > 0.02}
    assert any("could not be read" in w for w in obs["warnings"])



def test_a_hand_flat_over_most_of_the_board_still_finds_it_and_reads_nothing_wrong():
    """A palm over the board (30 of its 42 grooves hidden, as bench seed 200163's): the board is
    found from the grooves that show, at its pose, and the hidden grooves are null, never a colour."""
    geometry = TableGeometry()
    rng = np.random.default_rng(5)
    state = random_state("stixx", rng, geometry)
    stage = Stage.build(CameraModel.default((2028, 1520), geometry), Nuisances.none(), geometry, rng)
    cx, cy = state["board"]["center_mm"]
    scene = shoot(stage, state, 5, rng, True, hand_target=(cx, cy - 60.0))
    assert sum(f > 0.02 for f in groove_hidden(scene)) >= 25
    obs = detect(scene.image, profile=scene.profile)
    score = score_stixx(obs, scene)
    assert obs["board"] is not None
    assert score.slots_wrong == 0 and score.slots_null_visible == 0, score.failures
    assert score.boards_right == 1

def test_a_stick_under_a_thumb_lying_across_its_groove_is_unknown_not_the_skins_colour():
    """Seed 2300277 (counted in session 17): a thumb lies along slot 32's green stick and over the
    board's edge on both sides of it, yet each side's median is still the board's; the skin read red.
    A hand reaching over both sides of a groove covers it: null."""
    scene = render_scene("stixx", 2300277)
    obs = detect(scene.image, profile=scene.profile)
    score = score_stixx(obs, scene)
    assert score.slots_wrong == 0, score.failures
    got = {s["slot"]: s["colour"] for s in obs["sticks"] if s["slot"] is not None}
    assert obs["board"] is not None and 32 in got and got[32] is None
    assert groove_hidden(scene)[32] > 0.5


def test_an_empty_table_has_no_board():
    empty = {"game": "enix", "hexes": [], "pawns": [], "cap": None, "cards": []}
    from tablecam.simulator import render

    shot = render(empty, CameraModel.default(SMALL), Nuisances.none(), seed=3)
    obs = detect(shot.image)
    assert obs["board"] is None and obs["sticks"] == []
    assert NO_BOARD in obs["warnings"]
    assert obs["markers_seen"] == 4


@pytest.mark.parametrize("game", ["enix", "micropul"])
def test_another_game_on_the_table_is_no_stixx_board(game):
    scene = render_scene(game, 7, SMALL)
    obs = detect(scene.image, profile=scene.profile)
    assert obs["board"] is None
    assert [s for s in obs["sticks"] if s["slot"] is not None] == []
    assert NO_BOARD in obs["warnings"]


def test_bad_frames_are_one_sentence_errors():
    with pytest.raises(UserError, match="colour"):
        detect(np.zeros((200, 300), np.uint8))
    with pytest.raises(UserError, match="marker"):
        detect(np.full((300, 400, 3), 128, np.uint8))


def test_the_cli_prints_the_observation(tmp_path, capsys):
    import cv2

    from tablecam.companion.cli import main

    scene = scene_batch("stixx", 13, 1, SMALL, hand_every=0)[0]
    image = tmp_path / "stixx.png"
    cv2.imwrite(str(image), scene.image)
    lens = tmp_path / "lens.json"
    lens.write_text(json.dumps(scene.profile.to_dict()))
    assert main(["detect", "--game", "stixx", str(image), "--profile", str(lens)]) == 0
    obs = json.loads(capsys.readouterr().out)
    assert obs["game"] == "stixx" and obs["board"] is not None
    want = {s["slot"]: s["colour"] for s in canonical_stixx(scene.truth)["sticks"] if s["slot"] is not None}
    got = {s["slot"]: s["colour"] for s in obs["sticks"] if s["slot"] is not None}
    # At half the camera's resolution a stick may be left unread (null), never misread.
    assert all(want.get(slot) == colour for slot, colour in got.items() if colour is not None)
    assert sum(colour is not None for colour in got.values()) >= len(want) - 2


def _replay(lines: list[dict]) -> list[dict]:
    from tablecam.companion.commands.replay import replay_lines

    out, err = io.StringIO(), io.StringIO()
    assert replay_lines("stixx", [json.dumps(x) for x in lines], out, err) == 0, err.getvalue()
    return [json.loads(x) for x in out.getvalue().splitlines()]


def _comparable(events: list[dict]) -> list[dict]:
    return [{k: v for k, v in e.items() if k != "frame_id"} for e in events]


def test_a_game_seen_through_the_camera_gives_the_games_events():
    """A rendered game, one frame per stable state as the demo camera's sequence shows it ->
    detector (one object, keeping the table lock between frames) -> replay: the same events as
    replaying the game's own states."""
    detector = StixxDetector(StixxSettings())
    players = {"players": ["Ann", "Bob", "Cid"]}
    seen, truths = [players], [players]
    for image, truth in itertools.islice(game_frames("stixx", 4), 16):
        seen.append(detector.detect(image, frame_id=truth["frame_id"], state=seen[-1]))
        truths.append({k: v for k, v in canonical_stixx(truth).items() if k in ("game", "frame_id", "board", "sticks")})
    assert len(truths) > 10
    expected = _replay(truths)
    assert [e["event"] for e in expected].count("pick") >= 5
    assert _comparable(_replay(seen)) == _comparable(expected)


def test_the_companion_reads_the_demo_camera_with_this_detector():
    """What `tablecam serve --game stixx` does with the demo camera: its reader runs StixxDetector."""
    from tablecam.companion.readers import DetectorReader
    from tablecam.companion.sources import DemoSource

    source = DemoSource(seed=2, resolution=SMALL, fps=None, game="stixx")
    source.open()
    reader = DetectorReader("stixx")
    frame = source.read()
    obs = reader.read(frame)
    assert obs is not None and obs["frame_id"] == frame.number and obs["board"] is not None
    truth = canonical_stixx(frame.truth)
    want = {s["slot"]: s["colour"] for s in truth["sticks"] if s["slot"] is not None}
    got = {s["slot"]: s["colour"] for s in obs["sticks"] if s["slot"] is not None}
    assert all(want.get(slot) == colour for slot, colour in got.items() if colour is not None)
    assert sum(c is not None for c in got.values()) >= len(want) - 2


def _shot_under_the_lamp(seed: int, exposure: float):
    """The full board (every stick in place) with the lamp's reflection right over it and the lamp
    low enough that the sticks' rounded tops carry a broad highlight: the glossy orange sticks clip
    their red there and look yellow."""
    from dataclasses import replace

    geometry = TableGeometry()
    rng = np.random.default_rng(seed)
    state = random_state("stixx", rng, geometry)
    full = sim_stixx_full_board(state)
    camera = CameraModel.default((2028, 1520), geometry)
    nuisances = replace(Nuisances.none(), exposure=exposure, glare=0.8, glare_mm=tuple(full["board"]["center_mm"]),
                        glare_radius_mm=110.0, lamp_elevation_deg=45.0, lamp_azimuth_deg=200.0)
    stage = Stage.build(camera, nuisances, geometry, rng)
    return shoot(stage, full, seed, rng, False)


def sim_stixx_full_board(state: dict) -> dict:
    """The state with the board full (all 42 sticks, no marker, nothing taken) at the same pose."""
    from tablecam.simulator.stixx import PLAYER_COLOURS

    colours = [c for c in PLAYER_COLOURS for _ in range(7)]
    sticks = [{"colour": c, "slot": slot, "center_mm": [0.0, 0.0]} for slot, c in enumerate(colours)]
    board = state["board"]
    return {"game": "stixx", "board": dict(board), "sticks": sticks,
            "scene": {"board_angle_deg": board["rotation"]}}


@pytest.mark.parametrize("exposure", [1.1, 1.2])
def test_glared_orange_sticks_are_not_read_yellow(exposure):
    scene = _shot_under_the_lamp(21, exposure)
    obs = detect(scene.image, profile=scene.profile)
    score = score_stixx(obs, scene)
    assert score.slots_wrong == 0, score.failures
    want = {s["slot"]: s["colour"] for s in canonical_stixx(scene.truth)["sticks"] if s["slot"] is not None}
    got = {s["slot"]: s["colour"] for s in obs["sticks"] if s["slot"] is not None}
    oranges = [slot for slot, c in want.items() if c == "orange"]
    assert sum(got.get(slot) == "orange" for slot in oranges) >= len(oranges) - 1


def test_the_simulators_truth_numbers_slots_as_the_rules_do():
    """games/stixx.md: slots in the frame of the reported rotation (0-60). A rendered game's truth
    is what the rules engine's perfect detector prints for the same state and pose, and drawing a
    truth again gives the same truth."""
    from tablecam.rules.stixx.board import BoardPose
    from tablecam.rules.stixx.game import random_game, to_observation
    from tablecam.simulator.render import check
    from tablecam.simulator.stixx import game_states

    geometry = TableGeometry()
    states = game_states(8, geometry)
    rng = np.random.default_rng(8)  # game_states draws the board's place and full angle first
    centre = (float(rng.uniform(330, 470)), float(rng.uniform(235, 265)))
    full_angle = float(rng.uniform(0, 360))
    assert full_angle >= 60.0  # the case the simulator used to number in the full angle's frame
    played = [s for s in random_game(8, players=3, variant="basic") if s.declare is None]
    for state, obs in list(zip(played, states))[::7]:
        _, part, _, scene = check(obs, geometry)
        perfect = to_observation(state, 0, BoardPose(centre, full_angle, 55.0))
        assert part["board"]["rotation"] == pytest.approx(perfect["board"]["rotation"])
        assert sorted((s["slot"], s["colour"]) for s in part["sticks"] if s["slot"] is not None) == \
            sorted((s["slot"], s["colour"]) for s in perfect["sticks"])
        again = check(dict(part, game="stixx", scene=scene), geometry)[1]
        assert again["sticks"] == part["sticks"]


def test_a_grid_sample_reads_as_its_points_do(fixed_set):
    """TableView.sample_grids (shared with ENIX: its tiles' sources) projects every few ticks through
    the lens and interpolates between them: where the grid's points lie in the frame and what they
    read stay those of sampling each point but for the odd read at a sharp edge (the interpolated
    place is off by well under a thousandth of a pixel, which moves the odd bilinear read across
    one of remap's 1/32-pixel steps)."""
    from tablecam.vision.table_view import read_table

    scene = fixed_set[0]
    view = read_table(scene.image, profile=scene.profile, search_ppm=0.5, margin_mm=20)
    ticks = np.arange(-24.5, 24.51, 0.5)
    centres = np.array([(40.0, 30.0), (400.0, 250.0), (790.0, 480.0)])  # two near the frame's corners
    got, inside = view.sample_grids(centres, ticks)
    xx, yy = np.meshgrid(ticks, ticks)
    points = np.concatenate([np.column_stack([xx.ravel() + cx, yy.ravel() + cy]) for cx, cy in centres])
    want, want_inside, _ = view.sample(points)
    assert got.shape == (3, len(ticks), len(ticks), 3) and got.dtype == np.uint8
    assert np.array_equal(inside.ravel(), want_inside)
    differ = np.abs(got.reshape(-1, 3).astype(int) - want.astype(int))
    assert differ.max() <= 8 and np.count_nonzero(differ) < 0.005 * differ.size
    empty, nowhere = view.sample_grids(np.zeros((0, 2)), ticks)
    assert empty.shape == (0, len(ticks), len(ticks), 3) and nowhere.shape == (0, len(ticks), len(ticks))
