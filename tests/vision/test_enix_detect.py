"""The ENIX detector on fixed seeded simulator renders: the accuracy thresholds of issue 8, a ray
table read from the tiles (not assumed), a pawn of its tile's own colour, a hand over the layout,
an empty table, another game, bad input, the CLI, and a game seen through the camera giving the
game's own rule events.

Renders are made once per session (scene_batch: several states under one camera and light).
Accuracy is judged as bench/stixx_enix_detect.py judges it (board_scenes.py).
"""

from __future__ import annotations

import io
import itertools
import json
import math
from dataclasses import replace

import numpy as np
import pytest

from board_scenes import (EnixScore, canonical_enix, game_frames, render_scene, scene_batch, score_enix, shoot)
from tablecam.calibration.geometry import TableGeometry
from tablecam.errors import UserError
from tablecam.simulator import CameraModel, Nuisances, render
from tablecam.simulator.scene import Stage
from tablecam.vision.enix import NO_TILES, EnixDetector, EnixSettings, detect, ray_table, read_enix
from tablecam.vision.enix_rays import match_turns
from tablecam.vision.table_view import read_table

SMALL = (1014, 760)


@pytest.fixture(scope="session")
def fixed_set():
    """8 renders at 2028x1520: two cameras, lights and tables, every fourth shot with a hand."""
    return scene_batch("enix", 21, 4) + scene_batch("enix", 22, 4)


@pytest.fixture(scope="session")
def fixed_score(fixed_set) -> EnixScore:
    total = EnixScore()
    for scene in fixed_set:
        total.add(score_enix(detect(scene.image, profile=scene.profile), scene))
    return total


def test_layouts_meet_the_threshold(fixed_score):
    assert fixed_score.hexes_wrong_rotation == 0, fixed_score.failures
    assert fixed_score.layouts_right / fixed_score.layouts >= 0.99, fixed_score.failures


def test_card_values_are_never_wrong(fixed_score):
    assert fixed_score.values >= 8
    assert fixed_score.values_wrong == 0, fixed_score.failures


def test_pawns_on_the_fixed_renders_are_found_with_their_colour(fixed_score):
    """Nearly every pawn of these renders (crowded sources, dark pawns, the cap among them) is
    found, and none is given another colour: a wrong colour moves the wrong player."""
    assert fixed_score.pawns >= 20
    assert fixed_score.pawns_right / fixed_score.pawns >= 0.95, fixed_score.failures
    assert fixed_score.pawns_wrong_colour == 0, fixed_score.failures
    assert fixed_score.pawns_invented <= 1, fixed_score.failures
    assert fixed_score.caps_right == fixed_score.caps, fixed_score.failures


def test_pawns_meet_the_threshold(fixed_score):
    """Issue 8's 99 % on this fixed set (30 of 30 since session 5's pawn step). The bench on
    never-seen seeds still measures 97.9 % (1100000-1100199): pawns on a source's white ring
    among neighbours, a pink pawn with a clipped top; fingertips under a hand are invented."""
    assert fixed_score.pawns_right / fixed_score.pawns >= 0.99, fixed_score.failures


def test_card_colours_meet_the_threshold(fixed_score):
    """Issue 8's 99 % on this fixed set, none given a wrong colour (since session 10: the face-down
    stack of seed 22003, on a cloth of nearly its colour, is found by the faint backs' pass)."""
    assert fixed_score.card_colours_right / fixed_score.cards >= 0.99, fixed_score.failures
    assert fixed_score.card_colours_wrong == 0, fixed_score.failures


def test_card_values_meet_the_threshold(fixed_score):
    """95 % of the values the camera can see are read (bench/stixx_enix_detect.py: about 98 % on
    unseen seeds), the rest null, none wrong."""
    assert fixed_score.values >= 8
    assert fixed_score.values_right / fixed_score.values >= 0.95, fixed_score.failures
    assert fixed_score.values_wrong == 0, fixed_score.failures


# --- one tile set that differs from enix.md's ray table; a pawn of its tile's colour ---------------
def _clean_shot(state: dict, seed: int):
    geometry = TableGeometry()
    rng = np.random.default_rng(seed)
    stage = Stage.build(CameraModel.default(geometry=geometry), Nuisances.none(), geometry, rng)
    return shoot(stage, state, seed, rng, False)


def _layout(rotation: float, lattice: float = 0.0) -> dict:
    """Solar in the middle, the five others around it (across its sides when the layout is turned
    by `lattice`: `rotation` modulo 60), all turned by `rotation`."""
    from tablecam.simulator.enix import neighbour

    centre = (230.0, 250.0)
    hexes = [{"energy": "solar", "center_mm": list(centre), "rotation": rotation}]
    for k, energy in enumerate(("water", "geothermal", "waves", "wind", "biomass")):
        hexes.append({"energy": energy, "center_mm": list(neighbour(centre, 30.0 + lattice + 60 * k)),
                      "rotation": rotation})
    return {"game": "enix", "hexes": hexes, "pawns": [], "cap": None, "cards": []}


def test_a_ray_table_that_differs_is_read_not_assumed(monkeypatch):
    import tablecam.simulator.enix as sim

    other = dict(sim.RAYS, water=(2, 0, None, 1, 1, None))  # this set's water tile
    monkeypatch.setattr(sim, "RAYS", other)
    sim._hex_sprite.cache_clear()
    try:
        upright = _clean_shot(_layout(0.0), 1)  # the teaching shot: every tile with its side 0 up
        turned = _clean_shot(_layout(120.0), 2)
    finally:
        monkeypatch.undo()
        sim._hex_sprite.cache_clear()
    assumed = detect(upright.image, profile=upright.profile)
    water = next(h for h in assumed["hexes"] if h["energy"] == "water")
    assert water["rotation"] is None  # enix.md's table does not explain this tile: no rotation is guessed
    assert any("water" in w and "ray table" in w for w in assumed["warnings"])
    assert water["rays"] == [2, 0, None, 1, 1, None]  # ... but its rays are read as they are
    learned = {h["energy"]: h["rays"] for h in assumed["hexes"]}
    obs = detect(turned.image, profile=turned.profile, rays=learned)
    got = {h["energy"]: h["rotation"] for h in obs["hexes"]}
    assert got["water"] is not None and math.isclose(got["water"], 120.0, abs_tol=2.0)
    assert all(r is not None for r in got.values())


def test_a_pawn_on_a_tile_of_its_own_colour_is_seen(monkeypatch):
    import tablecam.simulator.enix as sim

    monkeypatch.setitem(sim.PAWN_COLOURS, "yellow", "#f5c800")
    sim._pawn_sprite.cache_clear()
    state = _layout(0.0)
    state["pawns"] = [{"colour": "yellow", "center_mm": [230.0, 250.0]},
                      {"colour": "pink", "center_mm": state["hexes"][1]["center_mm"]}]
    try:
        shot = _clean_shot(state, 3)
    finally:
        monkeypatch.undo()
        sim._pawn_sprite.cache_clear()
    palette = tuple(sim.PAWN_COLOURS.items()) + (("yellow", "#f5c800"),)
    settings = EnixSettings(profile=shot.profile, pawn_colours=palette)
    obs = read_enix(read_table(shot.image, profile=shot.profile, search_ppm=0.5, margin_mm=20), settings)
    pawns = {p["colour"]: p["center_mm"] for p in obs["pawns"]}
    assert set(pawns) == {"yellow", "pink"}
    assert math.dist(pawns["yellow"], (230.0, 250.0)) < 3.0


def test_a_turn_agrees_only_with_the_sides_read():
    from tablecam.vision.enix_rays import SideReading

    row = (0, None, 1, 2, None, 1)
    read = [SideReading(row[(j - 2) % 6], True) for j in range(6)]
    assert match_turns(read, row) == [2]
    read[0] = SideReading(None, False)
    assert 2 in match_turns(read, row)
    # An unread side that may be only some values agrees with the turns that put one of them there.
    read = [SideReading(row[(j - 2) % 6], True) for j in range(6)]
    read[4] = SideReading(None, False, frozenset((0, 1)))  # (row[2] = 1 lies there at turn 2)
    assert match_turns(read, row) == [2]
    read[4] = SideReading(None, False, frozenset((0, 2)))
    assert match_turns(read, row) == []


def _ray_profile(spots_mm: tuple[float, ...], depth: float, blur_mm: float) -> np.ndarray:
    """Linear brightness along a ray (enix_rays.ALONG_MM): 1, less `depth` on a path point's ring
    at each distance, blurred."""
    from tablecam.vision.enix_rays import ALONG_MM, RING_MM

    fine = np.arange(ALONG_MM[0] - 5, ALONG_MM[-1] + 5, 0.1)
    p = np.ones_like(fine)
    for at in spots_mm:
        r = np.abs(fine - at)
        p[(r >= RING_MM[0]) & (r <= RING_MM[1])] -= depth
    k = np.exp(-0.5 * (np.arange(-40, 41) * 0.1 / blur_mm) ** 2)
    return np.interp(ALONG_MM, fine, np.convolve(p, k / k.sum(), mode="same"))


def test_a_shallow_ring_is_no_point_or_the_fit_never_a_bare_ray():
    """A blurred frame's path point leaves a dip too shallow to be sure of (5200-5399: read as a
    bare ray, the tile's rotation was null): the side is unread, but may only be no point or the
    profile's fit. A deep ring is read; no dip at all is a bare ray."""
    from tablecam.vision.enix_rays import ALONG_MM, SPAN, read_sides

    middle = SPAN[0] + 0.5 * (SPAN[1] - SPAN[0])
    rows = [_ray_profile((middle,), 0.9, 0.5), _ray_profile((middle,), 0.9, 0.9), _ray_profile((), 0.0, 1.0),
            _ray_profile((middle,), 0.9, 0.9), _ray_profile((middle,), 0.9, 0.9), _ray_profile((middle,), 0.9, 0.9)]
    along = 20.0 * np.array(rows)  # a ray far brighter than the tile beside it
    beside = np.ones((6, len(ALONG_MM), 2))
    beside[5] = 40.0  # the tile beside the sixth side twice as bright as its "ray": no "no ray" claimed
    read = read_sides(along, beside, np.ones((6, len(ALONG_MM)), bool))
    assert (read[0].points, read[0].known) == (1, True)
    assert not read[1].known and read[1].options == frozenset((0, 1))
    assert (read[2].points, read[2].known) == (0, True)
    assert not read[5].known and None in read[5].options


def test_a_tile_is_centred_on_its_source_where_it_shows():
    """The coarse map's centre of a tile (a hand over it: several mm off, 5200-5399) moves onto its
    source's white ring; where the cap hides the source, the centre stays as it was given."""
    from tablecam.vision.enix import _on_sources
    from tablecam.vision.enix_hexes import HexFit

    state = _layout(10.0)
    state["cap"] = {"center_mm": state["hexes"][1]["center_mm"]}  # on the water tile's source
    shot = _clean_shot(state, 6)
    view = read_table(shot.image, profile=shot.profile, search_ppm=0.5, margin_mm=20)
    truth = {h["energy"]: h["center_mm"] for h in shot.truth["hexes"]}
    given = [HexFit(e, (c[0] + 4.0, c[1] - 3.0), 10.0, 1.0) for e, c in truth.items()]
    placed = {h.energy: h.centre for h in _on_sources(view, given)}
    for energy, centre in truth.items():
        if energy == "water":
            assert placed[energy] == (centre[0] + 4.0, centre[1] - 3.0)  # its source under the cap
        else:
            assert math.dist(placed[energy], centre) < 1.0, (energy, placed[energy], centre)
    # A source out of reach is not looked for: the centre stays.
    far = [replace(given[0], centre=(truth["solar"][0] + 12.0, truth["solar"][1]))]
    assert _on_sources(view, far)[0].centre == far[0].centre


@pytest.mark.parametrize("off", [2.5, -6.0])
def test_the_tiles_are_turned_as_their_sources_show(monkeypatch, off):
    """The coarse map's lattice sets every tile's angle; it is 1-2 degrees off at times (and 5-13 when
    a hand of a tile's colour misled it, 2200069), with 3 the limit of a right rotation. Neighbours'
    sources a pitch apart show the angle to a fraction of a degree: a lattice 2.5 degrees off is
    corrected, one 6 off disagrees with them (rotations null, never wrong)."""
    import tablecam.vision.enix as enix_module

    shot = _clean_shot(_layout(157.0, 37.0), 11)
    found = enix_module.find_hexes

    def lattice_off(*args, **kwargs):
        return [replace(h, side_angle=(h.side_angle + off) % 60.0) for h in found(*args, **kwargs)]

    monkeypatch.setattr(enix_module, "find_hexes", lattice_off)
    obs = detect(shot.image, profile=shot.profile)
    rotations = [h["rotation"] for h in obs["hexes"]]
    assert len(rotations) == 6
    if abs(off) < 4.0:
        assert all(r is not None and abs((r - 157.0 + 180.0) % 360.0 - 180.0) < 0.6 for r in rotations), rotations
    else:
        assert rotations == [None] * 6
        assert any("disagree" in w for w in obs["warnings"]), obs["warnings"]


def _tile_patch(tile_bgr=(200, 90, 30)) -> np.ndarray:
    """A tile's patch as the pawn reader sees it (2 px/mm, 92 mm): its colour, its source's white
    ring (18 mm) round an inner disc of its colour (9 mm)."""
    from tablecam.vision.enix_pawns import PATCH_MM, READ_PX_PER_MM

    n = int(round(PATCH_MM * READ_PX_PER_MM))
    patch = np.zeros((n, n, 3), np.uint8)
    patch[:] = tile_bgr
    c = (n // 2, n // 2)
    import cv2

    cv2.circle(patch, c, int(18 * READ_PX_PER_MM), (240, 242, 244), -1)
    cv2.circle(patch, c, int(9 * READ_PX_PER_MM), tile_bgr, -1)
    return patch


def test_a_cap_lit_grey_is_found_on_its_tile():
    """A glossy cap under a bright lamp is grey, not black (the coarse map names it no colour): it is
    still found, on the tile whose middle it covers; a bare source is no cap."""
    import cv2

    from tablecam.vision.enix_pawns import READ_PX_PER_MM, find_cap

    bare, capped = _tile_patch(), _tile_patch()
    n = capped.shape[0]
    cv2.circle(capped, (n // 2, n // 2), int(17 * READ_PX_PER_MM), (112, 110, 108), -1)
    cv2.circle(capped, (n // 2 - 8, n // 2 - 8), int(4 * READ_PX_PER_MM), (150, 150, 150), -1)  # its gloss
    no_black = np.zeros((50, 50), np.uint8)
    centres = [(200.0, 250.0), (311.0, 250.0)]
    cap = find_cap(no_black, lambda p: p, 0.5, [bare, capped], centres)
    assert cap is not None and math.dist(cap, centres[1]) < 3.0
    assert find_cap(no_black, lambda p: p, 0.5, [bare, bare], centres) is None


def test_a_finger_is_no_pawn_but_a_round_disc_may_be():
    """A fingertip ends in a dome too, but its colour goes on past where a pawn's rim would be."""
    import cv2

    from tablecam.vision.enix_pawns import READ_PX_PER_MM, _beyond_rim_fits, _goes_on, _stack

    def _continues(patch, x, y):  # (the detector's own test of a reading's colour going on)
        one = np.zeros(1, np.intp)
        return bool(_goes_on(_beyond_rim_fits(_stack([patch]).bgr, one, np.array([x]), np.array([y])))[0])

    skin = (70, 110, 170)
    finger, disc = _tile_patch((60, 150, 40)), _tile_patch((60, 150, 40))
    n = finger.shape[0]
    x, y, r = n // 2 + 60, n // 2, int(8 * READ_PX_PER_MM)
    cv2.circle(finger, (x, y), r, skin, -1)
    cv2.rectangle(finger, (x, y - r), (n - 1, y + r), skin, -1)  # the finger runs off the patch
    cv2.circle(disc, (x, y), r, skin, -1)
    assert _continues(finger, x, y)
    assert not _continues(disc, x, y)


# --- hands, empty tables, other games, bad input ---------------------------------------------------
def test_a_hand_over_the_layout_is_never_a_wrong_rotation():
    geometry = TableGeometry()
    rng = np.random.default_rng(8)
    from tablecam.simulator.render import random_state

    while True:
        state = random_state("enix", rng, geometry)
        try:
            from tablecam.simulator.render import check

            check(state, geometry)
            break
        except UserError:
            continue
    stage = Stage.build(CameraModel.default(geometry=geometry), Nuisances.none(), geometry, rng)
    solar = next(h for h in state["hexes"] if h["energy"] == "solar")
    scene = shoot(stage, state, 8, rng, True, hand_target=tuple(solar["center_mm"]))
    obs = detect(scene.image, profile=scene.profile)
    score = score_enix(obs, scene)
    assert score.hexes_wrong_rotation == 0 and score.hexes_invented == 0, score.failures
    assert score.values_wrong == 0
    # The companion waits while a hand is over the layout, instead of taking a half-hidden table for a move.
    from tablecam.companion.games import enix as companion_enix

    assert any("hand" in w for w in obs["warnings"]), obs["warnings"]
    assert companion_enix.disturbed(obs)


def test_the_cap_and_crowded_pawns_are_no_hand():
    """Pieces of the game over a tile (the cap, six pawns around one source) hide its colour too, but
    they are seen for what they are: no hand is reported, so the companion does not wait forever."""
    from tablecam.companion.games import enix as companion_enix
    from tablecam.simulator.enix import PAWN_COLOURS, _ring_mm

    state = _layout(0.0)
    solar, water = state["hexes"][0]["center_mm"], state["hexes"][1]["center_mm"]
    state["cap"] = {"center_mm": list(water)}
    ring = _ring_mm(6)
    state["pawns"] = [{"colour": c, "center_mm": [solar[0] + ring * math.cos(math.radians(60 * k + 25)),
                                                  solar[1] + ring * math.sin(math.radians(60 * k + 25))]}
                      for k, c in enumerate(PAWN_COLOURS)]
    shot = _clean_shot(state, 4)
    obs = detect(shot.image, profile=shot.profile)
    assert len(obs["hexes"]) == 6 and obs["cap"] is not None
    assert not any("hand" in w for w in obs["warnings"]), obs["warnings"]
    assert not companion_enix.disturbed(obs)


def test_every_random_enix_state_can_be_drawn():
    """Five or six pawns sharing a tile stand on a wider ring, apart: the simulator draws every seed."""
    from tablecam.simulator.render import check, random_state
    from tablecam.simulator.scene import GAMES

    geometry = TableGeometry()
    for seed in range(150):
        state = random_state("enix", np.random.default_rng([seed, GAMES.index("enix")]), geometry)
        check(state, geometry)  # raises UserError ("pawns overlap") for a state it cannot draw


def test_a_card_laid_against_the_layout_is_still_a_card():
    """A card laid a millimetre from a tile is found on its own, not swallowed into the layout's blob."""
    state = _layout(0.0)
    below = next(h for h in state["hexes"] if h["energy"] == "geothermal")["center_mm"]  # solar's neighbour below
    # 1 mm beyond the tile's flat lower side, long side along y (players lay cards close).
    at = (below[0], below[1] + 64.0 * math.sqrt(3) / 2 + 1.0 + 89.0 / 2)
    state["cards"] = [{"energy": "biomass", "value": 6, "center_mm": [float(at[0]), float(at[1])], "face_up": True}]
    shot = _clean_shot(state, 5)
    obs = detect(shot.image, profile=shot.profile)
    assert len(obs["hexes"]) == 6
    assert [(c["energy"], c["face_up"]) for c in obs["cards"]] == [("biomass", True)], obs["cards"]
    assert math.dist(obs["cards"][0]["center_mm"], at) < 6.0
    assert obs["cards"][0]["value"] in (6, None)


def test_an_empty_table_has_no_tiles():
    shot = render({"game": "stixx", "board": {"center_mm": [400, 250], "rotation": 0}, "sticks": []},
                  CameraModel.default(SMALL), Nuisances.none(), seed=3)
    empty = render({"game": "enix", "hexes": [], "pawns": [], "cap": None, "cards": []},
                   CameraModel.default(SMALL), Nuisances.none(), seed=3)
    obs = detect(empty.image)
    assert obs["hexes"] == [] and obs["pawns"] == [] and obs["cap"] is None and obs["cards"] == []
    assert NO_TILES in obs["warnings"]
    # An empty Stixx board is no ENIX layout either.
    assert detect(shot.image)["hexes"] == []


@pytest.mark.parametrize("game", ["stixx", "micropul"])
def test_another_game_on_the_table_is_no_enix_layout(game):
    scene = render_scene(game, 7, SMALL)
    obs = detect(scene.image, profile=scene.profile)
    assert obs["hexes"] == [] and obs["pawns"] == []
    assert NO_TILES in obs["warnings"]


def test_bad_input_is_one_sentence():
    with pytest.raises(UserError, match="colour"):
        detect(np.zeros((200, 300), np.uint8))
    with pytest.raises(UserError, match="marker"):
        detect(np.full((300, 400, 3), 128, np.uint8))
    with pytest.raises(UserError, match="rays of water"):
        ray_table({"water": [1, 2, 3]})


def test_the_cli_prints_the_observation(tmp_path, capsys, fixed_set):
    import cv2

    from tablecam.companion.cli import main

    scene = fixed_set[0]
    image = tmp_path / "enix.png"
    cv2.imwrite(str(image), scene.image)
    lens = tmp_path / "lens.json"
    lens.write_text(json.dumps(scene.profile.to_dict()))
    assert main(["detect", "--game", "enix", str(image), "--profile", str(lens)]) == 0
    obs = json.loads(capsys.readouterr().out)
    assert obs["game"] == "enix"
    assert sorted(h["energy"] for h in obs["hexes"]) == sorted(h["energy"] for h in scene.truth["hexes"])


# --- a game through the camera -----------------------------------------------------------------------
def _replay(lines: list[dict]) -> list[dict]:
    from tablecam.companion.commands.replay import replay_lines

    out, err = io.StringIO(), io.StringIO()
    assert replay_lines("enix", [json.dumps(x) for x in lines], out, err) == 0, err.getvalue()
    return [json.loads(x) for x in out.getvalue().splitlines()]


def _layout_events(events: list[dict]) -> list[dict]:
    return [{k: v for k, v in e.items() if k != "frame_id"} for e in events if e["event"] in ("layout", "cap")]


def test_a_game_seen_through_the_camera_gives_the_games_layout_events():
    """A rendered game, one frame per stable state -> detector (one object, the last reading as its
    state) -> replay: the same tile and cap events as replaying the game's own states."""
    detector = EnixDetector(EnixSettings())
    seen, truths = [], []
    last = None
    for image, truth in itertools.islice(game_frames("enix", 5, (2028, 1520)), 10):
        last = detector.detect(image, frame_id=truth["frame_id"], state=last)
        seen.append(last)
        truths.append(truth)
    expected = _replay(canonical_enix(truths))
    assert any(e["event"] == "layout" and e.get("kind") == "rotate" for e in expected)
    assert _layout_events(_replay(seen)) == _layout_events(expected)


def test_the_companion_reads_the_demo_camera_with_this_detector():
    """What `tablecam serve --game enix` does with the demo camera: its reader runs EnixDetector."""
    from tablecam.companion.readers import DetectorReader
    from tablecam.companion.sources import DemoSource

    source = DemoSource(seed=2, resolution=(2028, 1520), fps=None, game="enix")
    source.open()
    reader = DetectorReader("enix")
    frame = source.read()
    obs = reader.read(frame)
    assert obs is not None and obs["frame_id"] == frame.number
    truth = canonical_enix([frame.truth])[0]
    assert sorted(h["energy"] for h in obs["hexes"]) == sorted(h["energy"] for h in truth["hexes"])
    for h in obs["hexes"]:
        t = next(x for x in truth["hexes"] if x["energy"] == h["energy"])
        assert math.dist(h["center_mm"], t["center_mm"]) < 4.0
        assert h["rotation"] is None or abs((h["rotation"] - t["rotation"] + 180) % 360 - 180) < 3.0


def test_card_backs_on_a_cloth_of_nearly_their_colour_are_not_table():
    """A slate cloth whose noisy pixels come close to the backs' blue-grey: the table's shades are
    means of its pixels, not single pixels, so the table does not take the backs' tint (a whole
    row of face-down stacks on such a cloth was missed; single-pixel shades leave 0.28-0.91 of
    these backs labelled, varying with the noise)."""
    from tablecam.vision.enix import energy_colours
    from tablecam.vision.enix_search import class_map

    for seed in range(6):
        rng = np.random.default_rng(seed)
        # BGR as rendered: the cloth and the backs, with brightness noise and a little of each channel's own.
        top = np.array((58, 51, 42)) + rng.normal(0, 5.0, (200, 300, 1)) + rng.normal(0, 2.0, (200, 300, 3))
        back = np.array((74, 58, 53)) + rng.normal(0, 4.0, (45, 29, 1)) + rng.normal(0, 1.5, (45, 29, 3))
        cards = np.zeros(top.shape[:2], bool)
        for k in range(5):
            top[20:65, 20 + 35 * k:49 + 35 * k] = back
            cards[20:65, 20 + 35 * k:49 + 35 * k] = True
        top = np.clip(top, 0, 255).astype(np.uint8)
        backs = class_map(top, np.ones(top.shape[:2], bool), *energy_colours(None)).mask("back")
        assert backs[cards].mean() > 0.7, seed
        assert backs[cards].mean() > 4 * backs[~cards].mean(), seed


def _synthetic_map(paint) -> "ClassMap":
    """A class map (0.5 px/mm, 600 x 400 mm) of bare table, painted by `paint(labels, names)`."""
    from tablecam.vision.enix import energy_colours
    from tablecam.vision.enix_search import NEUTRALS, ClassMap

    names = energy_colours(None)[0] + NEUTRALS
    labels = np.full((200, 300), names.index("table"), np.int8)
    paint(labels, names)
    return ClassMap(labels, names)


def _blobs(cmap):
    from tablecam.vision.enix_search import find_card_blobs

    names = tuple(n for n in cmap.names if n not in ("table", "white", "black", "enix", "back"))
    return find_card_blobs(cmap, lambda p: np.asarray(p, dtype=np.float64) / 0.5, 0.5, names + ("enix", "back"))


def test_a_face_whose_strip_below_its_caption_is_lost_is_still_found():
    """A green face on a green cloth: the narrow strip below its caption band goes to the table, so
    only the part above the band shows (62 x 53 mm, no card's size). With the band's white beyond
    one end, it is a face whose centre lies 11 mm past that part's, towards the band."""
    def paint(labels, names):
        # Card centre (300, 200) mm = (150, 100) px, upright: its face from 42 mm above the centre to
        # the band (20-34 mm below it), a white border round it all.
        labels[100 - 22:100 + 23, 150 - 14:150 + 15] = names.index("white")
        labels[100 - 21:100 + 10, 150 - 13:150 + 14] = names.index("biomass")
        labels[100 + 17:100 + 22, 150 - 13:150 + 14] = names.index("table")  # the strip below: lost

    found = [b for b in _blobs(_synthetic_map(paint)) if b.kind == "biomass"]
    assert len(found) == 1
    assert math.dist(found[0].centre, (300.0, 200.0)) < 3.0
    assert min(found[0].angle, 180.0 - found[0].angle) > 80.0  # its long side runs along y


def test_a_part_of_a_face_with_no_caption_beyond_it_is_no_card():
    """The same colour blob without the band's white beyond either end (a patch of cloth, an arm's
    sleeve) is not made a card."""
    def paint(labels, names):
        labels[100 - 21:100 + 10, 150 - 13:150 + 14] = names.index("biomass")

    assert not [b for b in _blobs(_synthetic_map(paint)) if b.kind == "biomass"]


def test_an_enix_face_grey_and_black_in_shade_is_centred_on_both():
    """An ENIX face whose grey reads as black over half of it (shade): its centre is that of the
    grey and the black together, not of the grey alone (which put one 10 mm off, where its white
    border and head were not found and it was taken for a back)."""
    def paint(labels, names):
        labels[100 - 22:100 + 23, 150 - 14:150 + 15] = names.index("white")
        labels[100 - 21:100 + 21, 150 - 13:150] = names.index("black")
        labels[100 - 21:100 + 21, 150:150 + 14] = names.index("enix")

    found = [b for b in _blobs(_synthetic_map(paint)) if b.kind == "enix"]
    assert len(found) == 1
    assert math.dist(found[0].centre, (300.0, 200.0)) < 2.0


def _drawn_value(value: int, blur_mm: float, shift=(0, 0), seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A value's ink as read_value samples it: drawn in the cards' typeface with a blur the reader's
    templates do not have, placed off the model's place by `shift` px, with the sensor's noise."""
    from tablecam.vision.enix_cards import READ_PX_PER_MM, SEARCH_MM, VALUES, WINDOW_MM, templates

    ppm = READ_PX_PER_MM
    nx, ny = int(round((WINDOW_MM[0] + 2 * SEARCH_MM) * ppm)), int(round((WINDOW_MM[1] + 2 * SEARCH_MM) * ppm))
    drawing = templates(blur_mm)[VALUES.index(value)]
    ink = np.zeros((ny, nx), np.float32)
    x, y = int(SEARCH_MM * ppm) + shift[0], int(SEARCH_MM * ppm) + shift[1]
    ink[y:y + drawing.shape[0], x:x + drawing.shape[1]] = 0.8 * drawing
    ink += np.random.default_rng(seed).normal(0.0, 0.04, ink.shape).astype(np.float32)
    return np.clip(ink, 0.0, 1.0), np.zeros(ink.shape, bool)


def test_a_blurred_value_is_read_as_itself_or_null_never_another():
    """Every value drawn blurrier than the reader's templates (0.4 and 0.9 mm), a little off its
    place and noisy, is read as itself; far blurrier, most still are, and none is ever read as
    another (at 2 mm a 0 matches an 8 best)."""
    from tablecam.vision.enix_cards import VALUES, value_of

    for blur_mm, least in ((1.3, 20), (2.0, 12)):
        got = {v: value_of(*_drawn_value(v, blur_mm, shift=(v % 3 - 1, v % 2), seed=v + 10)) for v in VALUES}
        assert all(g in (v, None) for v, g in got.items()), (blur_mm, got)
        assert sum(g == v for v, g in got.items()) >= least, (blur_mm, got)


def test_the_values_matched_at_once_are_matchtemplates_own_scores():
    """The forty correlations made from one Fourier transform (speed, session 8) are
    cv2.matchTemplate's TM_CCOEFF_NORMED to rounding, with the same best place for each."""
    import cv2

    from tablecam.vision.enix_cards import BLURS_MM, _matches, templates

    for value, seed in ((-7, 3), (6, 4)):
        ink, _ = _drawn_value(value, 0.7, shift=(2, -1), seed=seed)
        got = _matches(ink)
        want = np.array([[cv2.matchTemplate(ink, t, cv2.TM_CCOEFF_NORMED) for t in templates(b)] for b in BLURS_MM])
        assert got.shape == want.shape
        assert np.abs(got - want).max() < 1e-5
        assert (got.reshape(*got.shape[:2], -1).argmax(axis=2) == want.reshape(*want.shape[:2], -1).argmax(axis=2)).all()


def test_ink_halfway_between_two_values_is_null():
    """Ink that is half a 6 and half an 8 (or a -3 and a -8) is neither: null, not the better match."""
    from tablecam.vision.enix_cards import READ_PX_PER_MM, SEARCH_MM, VALUES, _separation, templates, value_of

    for a, b in ((6, 8), (-3, -8), (5, 6)):
        ink_a, off = _drawn_value(a, 0.9, seed=1)
        ink_b, _ = _drawn_value(b, 0.9, seed=2)
        assert value_of((ink_a + ink_b) / 2, off) is None, (a, b)
        t = templates(0.9)
        at = (int(SEARCH_MM * READ_PX_PER_MM),) * 2  # where _drawn_value places a drawing
        assert _separation(ink_a, t[VALUES.index(a)], at, t[VALUES.index(b)], at) > 0.3
        assert _separation(ink_a, t[VALUES.index(b)], at, t[VALUES.index(a)], at) < -0.3


def test_the_speed_shortcuts_are_numpys_own_answers():
    """The frame's shortcuts (session 6) give numpy's very answers, to the last bit: the table's
    median from level counts, row means and three-channel sums and means written out (numpy's own
    reductions over so short an axis cost far more), the rays' centred expected profiles made once.
    The readings stay identical only so."""
    from tablecam.vision.enix import _across_all, _across_mean
    from tablecam.vision.enix_rays import _SLID, _centred, _centred_rows
    from tablecam.vision.enix_search import _mean_rows, _median_levels
    from tablecam.vision.piece_colours import _max3, _sum3

    rng = np.random.default_rng(6)
    for n in (1, 2, 3, 10, 11, 4000, 4001):
        pix = rng.integers(0, 256, (n, 3)).astype(np.uint8)
        pix[: n // 2, 1] = 77  # ties at the middle
        assert np.array_equal(_median_levels(pix), np.median(pix.astype(np.float32), axis=0))
        pts = rng.normal(0.0, 30.0, (n, 2)) + rng.uniform(-5, 5)
        assert np.array_equal(_mean_rows(pts), pts.mean(axis=0))
        assert np.array_equal(_mean_rows(pts), pts.T.mean(axis=1))
        x = rng.random((n, 4, 3)).astype(np.float32)
        planes = np.moveaxis(x, -1, 0)  # (session 9: the colour fit sums channel planes, first axis)
        assert np.array_equal(_sum3(planes), x.sum(axis=-1)) and np.array_equal(_max3(planes), x.max(axis=-1))
        assert np.array_equal(_across_mean(x), x.mean(axis=-1))
        assert np.array_equal(_across_all(x > 0.3), (x > 0.3).all(axis=-1))
    for k in (1, 2):
        for ok in (np.ones(_SLID.shape[2], bool), rng.random(_SLID.shape[2]) > 0.3):
            got, want = _centred_rows(k, ok), _centred(_SLID[k][:, ok])
            assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_fill_holes_fills_what_the_mask_encloses_only():
    from tablecam.vision.enix_search import fill_holes

    mask = np.zeros((40, 50), np.uint8)
    mask[5:20, 5:20] = 1
    mask[8:17, 8:17] = 0  # a hole
    mask[25:35, 30:45] = 1
    mask[27:33, 30:40] = 0  # a bay open to the left: no hole
    out = fill_holes(mask)
    assert out.dtype == np.uint8 and set(np.unique(out)) <= {0, 1}
    assert out[5:20, 5:20].all()
    assert not out[27:33, 30:40].any()
    assert np.array_equal(out[20:], mask[20:])
    assert not fill_holes(np.zeros((5, 5), np.uint8)).any()


def test_a_class_mask_is_made_once_and_cannot_be_changed():
    """The map's masks are shared by the seeds, each tile's centre and the cards: read-only."""
    def paint(labels, names):
        labels[10:20, 10:30] = names.index("water")

    cmap = _synthetic_map(paint)
    mask = cmap.mask("water")
    assert mask is cmap.mask("water")
    assert np.array_equal(mask, (cmap.labels == cmap.names.index("water")).astype(np.uint8))
    with pytest.raises(ValueError):
        mask[0, 0] = 1


def _speckled(labels, names, share: float, seed: int, box=(slice(None), slice(None))) -> None:
    """Labels the back's in `share` of the pixels of `box`, at random (a cloth of nearly the backs'
    colour: the map splits them between the back and the table)."""
    rng = np.random.default_rng(seed)
    region = labels[box]
    region[rng.random(region.shape) < share] = names.index("back")


def test_backs_the_map_gives_half_to_the_table_are_still_backs():
    """A row of face-down stacks of which the map labels only about half the pixels the back's (a
    slate or blue cloth; 40-70 % on 5000-5899) is found, one card per stack, on a table speckled
    with the back's label as such cloths are (under a quarter, card-sized)."""
    from tablecam.vision.enix_search import CARD_MM

    for seed in range(4):
        def paint(labels, names):
            _speckled(labels, names, 0.12, seed)
            for k in range(4):  # 58 x 89 mm stacks, 70 mm apart, centres (80 + 70 k, 100) mm
                x = (80 + 70 * k) // 2
                _speckled(labels, names, 0.5, seed + 10 * k, (slice(50 - 22, 50 + 22), slice(x - 14, x + 15)))

        found = [b for b in _blobs(_synthetic_map(paint)) if b.kind in ("back", "faint")]  # ("faint": a back once its edge shows)
        assert len(found) == 4, (seed, found)
        for k in range(4):
            assert min(math.dist(b.centre, (80 + 70 * k, 100)) for b in found) < 0.2 * CARD_MM[0], (seed, found)


def test_a_card_sized_patch_as_speckled_as_a_cloth_is_no_back():
    """A card-sized patch of cloth where the back's label takes a quarter of the pixels (the most a
    cloth of 5000-5899 shows card-sized, away from hands and props) on a cloth speckled at a tenth
    is not made a back: the faint backs' pass asks FAINT_SHARE (0.35) of the card's middle."""
    for seed in range(4):
        def paint(labels, names):
            _speckled(labels, names, 0.1, seed)
            _speckled(labels, names, 0.25, seed + 100, (slice(50 - 22, 50 + 22), slice(75 - 14, 75 + 15)))

        assert not _blobs(_synthetic_map(paint)), seed


def _face_in_outline(keep_every: int | None):
    """A paint: an ENIX face upright at (300, 200) mm whose grey the map gives to the table, the
    goblin's head a biomass-coloured disc, and its white outline whole (0), one pixel in
    `keep_every` (a dark cloth's noise) or none (None)."""
    def paint(labels, names):
        if keep_every is not None:
            ring = np.zeros(labels.shape, bool)
            ring[100 - 22:100 + 23, 150 - 14:150 + 15] = True
            ring[100 - 21:100 + 22, 150 - 13:150 + 14] = False
            yy, xx = np.nonzero(ring)
            kept = ((yy + xx) // 2) % keep_every == 0 if keep_every else np.ones(len(yy), bool)
            labels[yy[kept], xx[kept]] = names.index("white")
        yy, xx = np.mgrid[0:labels.shape[0], 0:labels.shape[1]]
        labels[(yy - 103) ** 2 + (xx - 150) ** 2 <= 6.5 ** 2] = names.index("biomass")
    return paint


def test_a_head_in_a_faint_outline_is_sought_as_an_outline():
    """A head in a whole white outline is a "frame" (the raw frame's green head makes it an ENIX
    face); in an outline the map shows only in places (0.24-0.29 of it on 5039 and 5427), an
    "outline", which the raw frame's white border must confirm too; with no outline, a "head" whose
    border the raw frame is asked for at every turn."""
    kinds = {k: [b.kind for b in _blobs(_synthetic_map(_face_in_outline(k)))] for k in (0, 8, None)}
    assert kinds == {0: ["frame"], 8: ["outline"], None: ["head"]}, kinds


class _FaceView:
    """A raw frame holding an ENIX face upright at (300, 200) mm: its grey, the goblin's green head
    (26 mm, 6 mm below the centre) and, if `border`, its white border; the table beyond."""

    def __init__(self, border: bool):
        self.border = border

    def sample(self, points_mm):
        from tablecam.vision.enix_search import CARD_BORDER_MM, CARD_MM

        d = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2) - (300.0, 200.0)
        bgr = np.tile(np.array([[90.0, 120.0, 110.0]], np.float32), (len(d), 1))  # the table
        on = (np.abs(d[:, 0]) <= CARD_MM[0] / 2) & (np.abs(d[:, 1]) <= CARD_MM[1] / 2)
        bgr[on] = (0x40, 0x3C, 0x3C)
        if self.border:
            inner = ((np.abs(d[:, 0]) <= CARD_MM[0] / 2 - CARD_BORDER_MM)
                     & (np.abs(d[:, 1]) <= CARD_MM[1] / 2 - CARD_BORDER_MM))
            bgr[on & ~inner] = (235, 236, 238)
        bgr[np.hypot(d[:, 0], d[:, 1] - 6.0) <= 13.0] = (60, 170, 70)
        return bgr, np.ones(len(d), bool), np.zeros((len(d), 3), bool)


def test_an_outline_is_an_enix_face_only_where_the_raw_frame_shows_its_border():
    from tablecam.vision.enix_cards import read_cards
    from tablecam.vision.enix_search import CardBlob

    for kind, border, expected in (("frame", False, 1), ("outline", False, 0), ("outline", True, 1)):
        cards, _ = read_cards(_FaceView(border), [CardBlob(kind, (300.0, 200.0), 90.0)], ("biomass",))
        assert [(c.energy, c.face_up) for c in cards] == [("enix", True)] * expected, (kind, border)


def test_a_found_card_is_cut_out_and_its_neighbour_kept():
    """_cut_cards clears a found card's rectangle (grown 2 mm) from a map-sized mask, turned as the
    card lies, and leaves a neighbour 12 mm beside it (a row of stacks) untouched."""
    from tablecam.vision.enix_search import CardBlob, _cut_cards

    mask = np.zeros((200, 300), np.uint8)
    mask[50 - 22:50 + 23, 40 - 14:40 + 15] = 1  # a card at (80, 100) mm, upright
    mask[50 - 22:50 + 23, 75 - 14:75 + 15] = 1  # its neighbour at (150, 100) mm
    _cut_cards(mask, [CardBlob("back", (80.0, 100.0), 90.0)], lambda p: (np.asarray(p, np.float64) + 0.5) / 0.5, 0.5)
    assert not mask[:, :60].any()
    assert mask[50 - 22:50 + 23, 75 - 14:75 + 15].all()


def test_a_lone_head_is_an_enix_face_where_its_border_shows_round_it():
    """A head whose outline the map hardly shows (a dark cloth taking the thin border's label all
    round: 5166) is a face only where the raw frame shows the white border at some turn round it,
    centred where that border lies; a green disc with no border is no card."""
    from tablecam.vision.enix_cards import read_cards
    from tablecam.vision.enix_search import CardBlob

    head = CardBlob("head", (300.0, 206.0), 0.0)  # the head lies 6 mm below the face's centre
    cards, _ = read_cards(_FaceView(True), [head], ("biomass",))
    assert [(c.energy, c.face_up) for c in cards] == [("enix", True)]
    assert math.dist(cards[0].centre, (300.0, 200.0)) < 0.5
    assert read_cards(_FaceView(False), [head], ("biomass",))[0] == []


def test_a_lone_head_cuts_no_card_out_of_a_faint_back_beside_it():
    """A lone head's pose is a guess the raw frame may reject (a green pawn beside the cards): a faint
    back 45-55 mm beside it (the map labelling 40 % of it the back's) is still sought, not cut out
    by a card rectangle placed round the head at angle 0."""
    for d in (45, 55):
        for seed in range(3):
            def paint(labels, names):
                _speckled(labels, names, 0.12, seed)
                _speckled(labels, names, 0.4, seed + 10, (slice(100 - 22, 100 + 23), slice(150 - 14, 150 + 15)))
                yy, xx = np.mgrid[0:labels.shape[0], 0:labels.shape[1]]
                labels[(yy - 100) ** 2 + (xx - 150 - d // 2) ** 2 <= 6.5 ** 2] = names.index("biomass")

            blobs = _blobs(_synthetic_map(paint))
            assert [b.kind for b in blobs if b.kind == "head"] == ["head"], (d, seed, blobs)
            backs = [b for b in blobs if b.kind in ("back", "faint")]
            assert len(backs) == 1 and math.dist(backs[0].centre, (300.0, 200.0)) < 3.0, (d, seed, blobs)


class _DiscView:
    """A raw frame of a plain table (BGR `table`) holding a lit disc (a pawn's top, or a head-sized
    green disc) of colour `disc` and radius `r_mm` at (300, 206) mm, and nothing else."""

    def __init__(self, table, disc, r_mm: float):
        self.table, self.disc, self.r = table, disc, r_mm

    def sample(self, points_mm):
        d = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2) - (300.0, 206.0)
        bgr = np.tile(np.array([self.table], np.float32), (len(d), 1))
        bgr[np.hypot(d[:, 0], d[:, 1]) <= self.r] = self.disc
        return bgr, np.ones(len(d), bool), np.zeros((len(d), 3), bool)


def test_a_green_disc_on_a_light_table_is_no_enix_face():
    """A light grey or white-ish table is as bright and neutral as a face's border everywhere: a lime
    pawn (#b4e03c) beside the board, or a head-sized green disc, on it is no ENIX face, sought as a
    lone head or in an outline. The border must show against both sides (the face's print just
    inside it much darker, the table outside not the same white); a face on a dark table still
    shows (test_a_lone_head_is_an_enix_face_where_its_border_shows_round_it)."""
    from tablecam.vision.enix_cards import read_cards
    from tablecam.vision.enix_search import CardBlob

    lime, green = (0x3C, 0xE0, 0xB4), (60, 200, 80)
    for table in ((160, 160, 160), (154, 160, 160), (184, 184, 186), (225, 226, 228)):
        for disc, r in ((lime, 8.0), (green, 13.0)):
            view = _DiscView(table, disc, r)
            for blob in (CardBlob("head", (300.0, 206.0), 0.0), CardBlob("outline", (300.0, 200.0), 90.0)):
                assert read_cards(view, [blob], ("biomass",))[0] == [], (table, disc, blob.kind)


class _BackView:
    """A raw frame of a cloth (BGR `cloth`) holding a back (BGR `back`) upright at (300, 200) mm."""

    def __init__(self, cloth, back):
        self.cloth, self.back = cloth, back

    def sample(self, points_mm):
        from tablecam.vision.enix_search import CARD_MM

        d = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2) - (300.0, 200.0)
        bgr = np.tile(np.array([self.cloth], np.float32), (len(d), 1))
        bgr[(np.abs(d[:, 0]) <= CARD_MM[0] / 2) & (np.abs(d[:, 1]) <= CARD_MM[1] / 2)] = self.back
        return bgr, np.ones(len(d), bool), np.zeros((len(d), 3), bool)


def test_a_faint_back_is_a_back_only_where_its_edge_shows():
    """A faint back (the map gives its blue-grey to the cloth in as many pixels as to the back) is a
    face-down card where the raw frame shows its edge (the faintest of 5000-5899: 2.9-3.6 CIELAB
    across three sides), and no card on a patch of cloth of its very colour (the map's speckle)."""
    from tablecam.vision.enix_cards import read_cards
    from tablecam.vision.enix_search import CardBlob

    faint = CardBlob("faint", (300.0, 200.0), 90.0)
    back = (112, 98, 90)
    for cloth, expected in ((back, []), ((108, 98, 94), [(None, False)]), ((104, 92, 86), [(None, False)])):
        cards, _ = read_cards(_BackView(cloth, back), [faint], ("biomass",))
        assert [(c.energy, c.face_up) for c in cards] == expected, cloth


def test_a_card_of_a_hidden_tiles_colour_off_the_layout_is_not_that_tile():
    """Tiles lie edge to edge: a solar card three cells off the layout, its tile hidden under a
    hand but for a part against the layout that fills less of a cell than the card (5361, 5411,
    5494, 5834), is no solar tile: solar stays unread, never placed on the card. The same part
    alone (no card) is the tile."""
    import cv2

    from tablecam.vision.enix_hexes import PITCH_MM, _hexagon_mm, find_hexes

    d0, d1 = np.array([0.0, -PITCH_MM]), PITCH_MM * np.array([math.sqrt(3) / 2, -0.5])  # side angle 0
    a = np.array([150.0, 200.0])
    whole = {"water": a, "geothermal": a + d0, "waves": a - d0, "wind": a + d1, "biomass": a + d1 - d0}
    part = a - d0 + 2 * d1  # solar's cell, beside wind and biomass (x 342 mm)
    card = a - 2 * d0 + 4 * d1  # three cells from the layout (x 534 mm)

    def paint(labels, names, with_card: bool):
        px = lambda mm: np.round(np.asarray(mm) * 0.5).astype(np.int32)  # noqa: E731 (the map is 0.5 px/mm)
        for energy, centre in whole.items():
            cv2.fillConvexPoly(labels.view(np.uint8), px(_hexagon_mm(centre, 0.0)), names.index(energy))
        solar = np.zeros(labels.shape, np.uint8)
        cv2.fillConvexPoly(solar, px(_hexagon_mm(part, 0.0)), 1)
        solar[:, int(round((part[0] - 10) * 0.5)):] = 0  # the hand covers all but its left ~40 %
        if with_card:
            cv2.rectangle(solar, tuple(px(card - (30, 45))), tuple(px(card + (30, 45))), 1, -1)  # a 60 x 90 mm card
        labels[solar > 0] = names.index("solar")

    def found(with_card: bool) -> dict:
        cmap = _synthetic_map(lambda labels, names: paint(labels, names, with_card))
        hexes = find_hexes(cmap, cmap.names[:6], lambda p: np.asarray(p, np.float64) / 0.5,
                           lambda p: np.asarray(p, np.float64) * 0.5, 0.5)
        return {h.energy: h.centre for h in hexes}

    for with_card in (True, False):
        tiles = found(with_card)
        assert all(math.dist(tiles[e], c) < 3.0 for e, c in whole.items()), tiles
    assert "solar" not in found(True)
    assert math.dist(found(False)["solar"], part) < 15.0


def test_a_hand_of_a_tiles_colour_does_not_turn_the_layout():
    """A hand read as wind over the solar tile (2200069, 2300107) looks like a whole tile, turned
    its own way: with the one other whole tile it set the layout's angle 5-8 degrees off, and a
    tile's rays read at that angle still matched a turn (a wrong rotation). Its outline disagrees
    with every other seed's by 13 degrees: it sets no angle."""
    import cv2

    from tablecam.vision.enix_hexes import PITCH_MM, _hexagon_mm, find_hexes

    angle = 35.0
    d0, d1 = (PITCH_MM * np.array([math.cos(math.radians(a + angle)), math.sin(math.radians(a + angle))])
              for a in (-90.0, -30.0))
    a = np.array([300.0, 200.0])
    cells = {"biomass": a, "solar": a + d1, "water": a + d0, "geothermal": a - d1, "waves": a - d0, "wind": a - d0 - d1}
    cut = {"water": 10.0, "geothermal": 100.0, "waves": 200.0, "wind": 290.0}  # where a hand's edge crosses each

    def paint(labels, names):
        u8 = labels.view(np.uint8)
        for energy, centre in cells.items():
            if energy != "solar":  # (under the hand)
                cv2.fillConvexPoly(u8, np.round(_hexagon_mm(centre, angle) * 0.5).astype(np.int32), names.index(energy))
        for energy, towards in cut.items():  # all of the tile beyond 5 mm from its centre that way is hidden
            u = np.array([math.cos(math.radians(towards)), math.sin(math.radians(towards))])
            box = (tuple(map(float, (cells[energy] + 65.0 * u) * 0.5)), (60.0, 80.0), towards)
            cv2.fillConvexPoly(u8, cv2.boxPoints(box).astype(np.int32), names.index("table"))
        hand = (tuple(map(float, (cells["solar"] + (6.0, 8.0)) * 0.5)), (60.0, 45.0), 50.0)  # 120 x 90 mm
        cv2.fillConvexPoly(u8, cv2.boxPoints(hand).astype(np.int32), names.index("wind"))

    cmap = _synthetic_map(paint)
    hexes = find_hexes(cmap, cmap.names[:6], lambda p: np.asarray(p, np.float64) / 0.5,
                       lambda p: np.asarray(p, np.float64) * 0.5, 0.5)
    assert {h.energy for h in hexes} >= {"biomass", "water", "waves"}
    assert all(abs((h.side_angle - angle + 30.0) % 60.0 - 30.0) < 1.5 for h in hexes), [h.side_angle for h in hexes]


def _pawn_read_at(seed: int, colour: str) -> list:
    """The colours read within the bench's match distance of seed's true pawn of `colour` (full size)."""
    scene = render_scene("enix", seed)
    obs = detect(scene.image, profile=scene.profile)
    (truth,) = [p for p in scene.truth["pawns"] if p["colour"] == colour]
    return [p["colour"] for p in obs["pawns"] if math.dist(p["center_mm"], truth["center_mm"]) <= 7.0]


def test_a_lit_pawn_clipped_in_glare_beside_the_sources_white_ring_is_found():
    """Tuning seed 6447: a pink pawn in strong glare on the solar tile's ring reads (255, 214, 255),
    which the source's white just past its rim fitted within SAME_COLOUR in two neighbouring
    directions: its colour 'went on' as a finger's does, and it was dropped (`_white_beyond`)."""
    assert _pawn_read_at(6447, "pink") == ["pink"]


def test_a_blurred_white_pawn_on_the_yellow_tile_is_found_by_its_flank():
    """Tuning seed 6411 (a wide lens, 1.45 px blur): a white pawn beside the cap on the solar tile
    has its rim 5.5-7.5 mm out blurred with the yellow, no longer its top in shade; its flank 5-6 mm
    out still is, its rim is darker than its top all round, and it falls to half at one distance
    all round, which a stretch of ray between two dark outlines does not (`_white_flank`)."""
    assert _pawn_read_at(6411, "white") == ["white"]


class _PairFaceView:
    """A raw frame holding an energy face upright at (300, 200) mm: `face` (white-balanced sRGB BGR)
    inside its white border, its caption band (14 mm high, 27 mm below the centre) `caption`; red
    at 254 and up reads clipped, as TableView.sample says."""

    def __init__(self, face, caption):
        self.face, self.caption = np.array(face, np.float32), np.array(caption, np.float32)

    def sample(self, points_mm):
        d = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2) - (300.0, 200.0)
        bgr = np.tile(self.face, (len(d), 1))
        bgr[np.abs(d[:, 1] - 27.0) <= 7.0] = self.caption
        return bgr, np.ones(len(d), bool), bgr >= 254


def _green_read(view, kind: str) -> str | None:
    """What `_green_names` makes of the face at (300, 200) mm, upright, that the map named `kind`."""
    from tablecam.vision.enix import energy_colours
    from tablecam.vision.enix_cards import _face_samples, _green_names, _green_shares
    from tablecam.vision.enix_search import CardBlob

    _, samples = _face_samples(view, [], [(CardBlob(kind, (300.0, 200.0), 90.0), False)])
    return _green_names(samples, [kind], _green_shares(*energy_colours(None)))[0]


@pytest.mark.parametrize("face, caption, read", [
    ((22, 196, 255), (233, 231, 246), "solar"),  # 2500059's solar face in a light warmer than the reference
    ((21, 219, 255), (235, 255, 255), "map"),  # the band's green clipped too: it cannot tell
    ((43, 150, 255), (244, 246, 243), "wind"),
    ((34, 167, 255), (200, 226, 255), "wind"),  # 2300160's: a dim caption
    ((30, 187, 255), (240, 242, 244), None),  # a green between the two: neither, unsure
])
def test_a_face_of_the_yellow_or_orange_whose_red_is_clipped_is_named_by_its_green(face, caption, read):
    """Solar and wind faces differ in green alone; where the sensor clipped their red, the face's
    green over its own caption band's white names it (null between), whatever the coarse map said;
    where the band's green is clipped too, it cannot tell, and the map's name stands."""
    for kind in ("solar", "wind"):
        assert _green_read(_PairFaceView(face, caption), kind) == (kind if read == "map" else read)


def test_a_face_whose_red_is_not_clipped_keeps_the_maps_name():
    assert _green_read(_PairFaceView((30, 180, 240), (240, 242, 244)), "wind") == "wind"


def test_a_solar_face_in_a_warm_light_with_its_red_clipped_is_not_read_wind():
    """Seed 2500059 (never seen until session 15): a solar face under a light warmer than the white
    reference (two markers' whites clipped) reads (22, 196, 255); the coarse map named it wind."""
    scene = render_scene("enix", 2500059)
    obs = detect(scene.image, profile=scene.profile)
    (truth,) = [c for c in scene.truth["cards"] if c["energy"] == "solar"]
    got = [c for c in obs["cards"] if math.dist(c["center_mm"], truth["center_mm"]) <= 10.0]
    assert [(c["energy"], c["value"]) for c in got] == [("solar", 0)]


def test_a_pale_hand_the_colour_of_a_wind_face_is_no_card():
    """Seed 2600318 (counted in session 17): a hand over the green cloth, as orange as a wind face
    and as bright and neutral as a card's white, was read as two wind faces (no border refined, but
    "white" all round them). A card's border is a band between its print and the table, not white
    all across: no card there, and the real cards are all found as before."""
    scene = render_scene("enix", 2600318)
    obs = detect(scene.image, profile=scene.profile)
    score = score_enix(obs, scene)
    assert score.cards_invented == 0, obs["cards"]
    assert score.card_colours_right == score.cards, score.failures
    tip = scene.truth["hand"]["tip_mm"]
    assert not [c for c in obs["cards"] if math.dist(c["center_mm"], tip) < 150.0]


def test_a_back_is_not_found_twice_across_a_hands_shadow():
    """Seed 2600377 (counted in session 17): a fingertip against a face-down card's side; the back was
    found by its own kind and again, 21.7 mm off and turned 78 degrees, by the dark kinds together
    (the hand's shadow joined to it). Cards lie a card's width apart: one card there."""
    scene = render_scene("enix", 2600377)
    obs = detect(scene.image, profile=scene.profile)
    score = score_enix(obs, scene)
    assert score.cards_invented == 0, obs["cards"]
    assert score.card_colours_right == score.cards, score.failures
    centres = [c["center_mm"] for c in obs["cards"]]
    assert all(math.dist(a, b) >= 0.5 * 58.0 for a, b in itertools.combinations(centres, 2))
