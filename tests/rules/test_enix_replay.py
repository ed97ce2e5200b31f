"""ENIX replay: Observations in table mm → layout, pawn, order and final events."""

from __future__ import annotations

import copy
import random

import pytest

from tablecam.rules.enix.cards import Card
from tablecam.rules.enix.game import EnixState, random_game, record, setup_layout, to_observation
from tablecam.rules.enix.lattice import Lattice
from tablecam.rules.enix.layout import Layout, Placed
from tablecam.rules.enix.replay import Replay

SETUP = Layout.of([Placed("solar", (0, 0)), Placed("water", (1, 0)), Placed("geothermal", (0, 1)),
                   Placed("waves", (-1, 1)), Placed("wind", (-1, 0)), Placed("biomass", (0, -1))])
TILTED = Lattice((350.0, 260.0), 41.0)
SEATS = {"red": (60.0, 450.0), "blue": (740.0, 450.0)}


def state(layout=SETUP, pawns=(("blue", "solar"), ("red", "solar")), cap=None, revealed=()) -> EnixState:
    return EnixState(layout, pawns, cap, revealed, "test")


def feed_all(replay: Replay, lines) -> list[dict]:
    return [e for line in lines for e in replay.feed(line)]


def started() -> Replay:
    replay = Replay()
    replay.feed({"players": [{"colour": c, "seat_mm": list(s)} for c, s in SEATS.items()]})
    replay.feed(to_observation(state(), 1, TILTED, SEATS))
    return replay


def test_first_reading_is_the_setup_check_wherever_the_layout_lies():
    events = Replay().feed(to_observation(state(), 5, TILTED, SEATS))
    assert events == [{**events[0], "frame_id": 5, "event": "layout", "kind": "setup", "legal": True}]


def test_a_moved_tile_is_reported_with_its_places():
    replay = started()
    events = replay.feed(to_observation(state(SETUP.with_tile(Placed("biomass", (1, -1)))), 2, TILTED, SEATS))
    assert [(e["event"], e["kind"], e["legal"], e["tile"]) for e in events] == [("layout", "move", True, "biomass")]
    assert events[0]["from"] != events[0]["to"]


def test_bumping_the_whole_layout_is_not_an_action():
    replay = started()
    bumped = Lattice((TILTED.origin[0] + 70.0, TILTED.origin[1] - 35.0), TILTED.angle)  # more than half a hex
    assert replay.feed(to_observation(state(), 2, bumped, SEATS)) == []
    # ...and a real move afterwards is still seen as one tile moving.
    events = replay.feed(to_observation(state(SETUP.with_tile(Placed("wind", (1, -1)))), 3, bumped, SEATS))
    assert [(e["kind"], e["tile"]) for e in events] == [("move", "wind")]


def test_a_tile_not_seen_is_reported_once_and_kept_in_place():
    replay = started()
    obs = to_observation(state(), 2, TILTED, SEATS)
    obs["hexes"] = [h for h in obs["hexes"] if h["energy"] != "waves"]
    events = replay.feed(obs)
    assert [e["event"] for e in events] == ["unexplained"] and "waves" in events[0]["reason"]
    assert replay.feed({**obs, "frame_id": 3}) == []
    assert replay.feed(to_observation(state(), 4, TILTED, SEATS)) == []


def test_pawn_walks_are_judged_on_the_revealed_total():
    replay = started()
    revealed = (("blue", (Card("water", 1),)), ("red", (Card("wind", 4),)))
    events = replay.feed(to_observation(state(revealed=revealed), 2, TILTED, SEATS))
    assert [(e["event"], e["order"]) for e in events] == [("order", ["red", "blue"])]
    # red (4 points) walks solar → water (costs 4): legal; blue (1 point) walks solar → geothermal (2): not.
    pawns = (("blue", "geothermal"), ("red", "water"))
    events = replay.feed(to_observation(state(pawns=pawns, revealed=revealed), 3, TILTED, SEATS))
    verdicts = {e["colour"]: (e["legal"], e["total"]) for e in events if e["event"] == "pawn_move"}
    assert verdicts == {"red": (True, 4), "blue": (False, 1)}


def test_a_walk_seen_in_two_steps_is_judged_from_where_the_turn_began():
    line = Layout.of([Placed("wind", (-1, 0)), Placed("solar", (0, 0)), Placed("water", (1, 0)),
                      Placed("geothermal", (1, -1)), Placed("waves", (-1, 1)), Placed("biomass", (0, -1))])
    replay = Replay()
    replay.feed({"players": [{"colour": c, "seat_mm": list(s)} for c, s in SEATS.items()]})
    replay.feed(to_observation(state(line, (("blue", "wind"), ("red", "wind"))), 1, TILTED, SEATS))
    revealed = (("blue", (Card("water", -3),)), ("red", (Card("wind", 7),)))
    replay.feed(to_observation(state(line, (("blue", "wind"), ("red", "wind")), revealed=revealed), 2, TILTED, SEATS))
    # wind → solar costs 3, solar → water 4: 7 in all, exactly red's total.
    step1 = replay.feed(to_observation(state(line, (("blue", "wind"), ("red", "solar")), revealed=revealed), 3,
                                       TILTED, SEATS))
    step2 = replay.feed(to_observation(state(line, (("blue", "wind"), ("red", "water")), revealed=revealed), 4,
                                       TILTED, SEATS))
    assert (step1[0]["from"], step1[0]["to"], step1[0]["legal"]) == ("wind", "solar", True)
    assert (step2[0]["from"], step2[0]["to"], step2[0]["legal"]) == ("wind", "water", True)


def test_a_pawn_riding_on_a_moved_tile_has_not_walked():
    replay = started()
    pawns = (("blue", "biomass"), ("red", "solar"))
    replay.feed(to_observation(state(pawns=pawns), 2, TILTED, SEATS))
    events = replay.feed(to_observation(state(SETUP.with_tile(Placed("biomass", (1, -1))), pawns), 3, TILTED, SEATS))
    assert [e["event"] for e in events] == ["layout"]


def test_the_cap_is_reported_and_blocks():
    replay = started()
    events = replay.feed(to_observation(state(cap="water"), 2, TILTED, SEATS))
    assert [(e["event"], e["on"]) for e in events] == [("cap", "water")]
    events = replay.feed(to_observation(state(pawns=(("blue", "solar"), ("red", "water")), cap="water"), 3,
                                        TILTED, SEATS))
    assert events[0]["legal"] is False and "under the cap" in events[0]["reason"]


def test_a_ray_table_from_the_setup_line_is_used():
    replay = Replay()
    # With no path points at all, solar → water costs 1.
    replay.feed({"players": [{"colour": c, "seat_mm": list(s)} for c, s in SEATS.items()],
                 "rays": {e: [0] * 6 for e in ("solar", "water", "geothermal", "waves", "wind", "biomass")}})
    replay.feed(to_observation(state(), 1, TILTED, SEATS))
    revealed = (("blue", (Card("water", 1),)), ("red", (Card("wind", 2),)))
    replay.feed(to_observation(state(revealed=revealed), 2, TILTED, SEATS))
    events = replay.feed(to_observation(state(pawns=(("blue", "water"), ("red", "solar")), revealed=revealed), 3,
                                        TILTED, SEATS))
    assert events[0]["legal"] is True and "costs 1" in events[0]["reason"]


def test_the_end_line_scores_the_hands_laid_at_the_seats():
    replay = started()
    replay.feed({"end": "red"})
    hands = (("blue", (Card("solar", 9), Card("wind", 9), Card("water", 9))),
             ("red", tuple(Card(e, 3) for e in ("solar", "water", "geothermal", "waves", "wind", "biomass"))))
    replay.feed(to_observation(state(revealed=hands), 9, TILTED, SEATS))
    [final] = replay.finish()
    assert final["event"] == "final" and final["frame_id"] == 9
    assert final["scores"] == {"red": 18, "blue": 27} and final["out"] == ["blue"]
    assert final["winners"] == ["red"] and final["legal"] is True


def test_card_backs_and_unread_faces_are_ignored():
    replay = started()
    obs = to_observation(state(revealed=(("blue", (Card("water", 2),)), ("red", (Card("wind", 1),)))), 2,
                         TILTED, SEATS)
    obs["cards"] += [{"energy": None, "value": None, "center_mm": [60.0, 400.0], "face_up": False},
                     {"energy": "wind", "value": None, "center_mm": [60.0, 420.0], "face_up": True}]
    [order] = replay.feed(obs)
    assert order["order"] == ["blue", "red"] and order["totals"] == {"blue": 2, "red": 1}


def test_hands_given_on_the_end_line():
    replay = started()
    replay.feed({"end": "blue", "hands": {"blue": [{"energy": "wind", "value": 9}, {"energy": "enix"}],
                                          "red": [{"energy": "wind", "value": 4}]}})
    [final] = replay.finish()
    assert final["scores"] == {"blue": 4.5, "red": 4} and final["winners"] == ["blue"]
    assert final["legal"] is False  # blue did not hold the six energies


@pytest.mark.parametrize("line, words", [
    ({"game": "enix", "pawns": []}, "hexes"),
    ({"hexes": [{"energy": "coal", "center_mm": [0, 0], "rotation": 0}], "pawns": []}, "coal"),
    ({"hexes": [{"energy": "solar", "center_mm": [0], "rotation": 0}], "pawns": []}, "center_mm"),
    ({"hexes": [{"energy": "solar", "center_mm": [0, 0], "rotation": "up"}], "pawns": []}, "rotation"),
    ({"hexes": [], "pawns": [{"colour": 7, "center_mm": [1, 1]}]}, "pawn's colour"),
    ({"hexes": [], "pawns": [], "cards": [{"energy": "wind", "value": 12, "center_mm": [1, 1]}]}, "between"),
    ({"game": "stixx", "hexes": [], "pawns": []}, "stixx"),
    ({"players": [{"colour": "red"}, {"colour": "red"}]}, "twice"),
    ({"end": "mauve"}, "mauve"),
    ({"end": "red", "hands": {"red": [{"value": 3}]}}, "energy"),
])
def test_a_malformed_line_is_one_sentence_and_changes_nothing(line, words):
    replay = started()
    before = copy.deepcopy(replay.state)
    with pytest.raises(ValueError) as caught:
        replay.feed(line)
    message = str(caught.value)
    assert words in message and "\n" not in message and message.count(". ") == 0
    assert replay.state == before


def test_random_legal_play_at_any_angle_with_noise_replays_without_a_false_alarm():
    for seed in range(6):
        rng = random.Random(seed)
        lattice = Lattice((rng.uniform(300, 500), rng.uniform(200, 300)), rng.uniform(0, 360))
        states = random_game(seed, players=2 + seed % 4)
        lines = record(states, lattice)
        for line in lines[1:]:
            for item in line["hexes"] + line["pawns"]:
                item["center_mm"] = [v + rng.uniform(-3, 3) for v in item["center_mm"]]
            for h in line["hexes"]:
                h["rotation"] = (h["rotation"] + rng.uniform(-3, 3)) % 360
        events = feed_all(Replay(), lines)
        alarms = [e for e in events if e.get("legal") is False or e["event"] == "unexplained"]
        assert alarms == [], (seed, alarms)
        tile_actions = sum(1 for s in states if s.action.startswith(("move", "rotate")))
        assert sum(1 for e in events if e["event"] == "layout" and e["kind"] != "setup") == tile_actions
        walks = sum(1 for s in states if s.action.endswith("walks"))
        assert sum(1 for e in events if e["event"] == "pawn_move") == walks


def test_setup_layout_is_always_a_legal_setup():
    from tablecam.rules.enix.layout import check_setup
    for seed in range(20):
        assert check_setup(setup_layout(random.Random(seed))).legal


def test_a_pawn_that_could_walk_but_stayed_all_round_is_flagged_at_the_next_reveal():
    replay = started()
    round1 = (("blue", (Card("water", 3),)), ("red", (Card("wind", 4),)))
    replay.feed(to_observation(state(revealed=round1), 2, TILTED, SEATS))
    replay.feed(to_observation(state(pawns=(("blue", "geothermal"), ("red", "solar")), revealed=round1), 3,
                               TILTED, SEATS))  # blue walks (costs 2), red never does
    replay.feed(to_observation(state(pawns=(("blue", "geothermal"), ("red", "solar"))), 4, TILTED, SEATS))
    round2 = (("blue", (Card("water", 1),)), ("red", (Card("wind", 2),)))
    events = replay.feed(to_observation(state(pawns=(("blue", "geothermal"), ("red", "solar")), revealed=round2), 5,
                                        TILTED, SEATS))
    assert [(e["event"], e.get("colour"), e.get("legal")) for e in events] == [("pawn_move", "red", False),
                                                                              ("order", None, None)]
    assert events[0]["from"] == events[0]["to"] == "solar" and "obliges a move" in events[0]["reason"]


def test_a_pawn_held_by_the_cap_for_part_of_the_round_is_not_flagged_for_staying():
    replay = started()
    round1 = (("blue", (Card("water", 3),)), ("red", (Card("wind", 4),)))
    replay.feed(to_observation(state(revealed=round1), 2, TILTED, SEATS))
    replay.feed(to_observation(state(revealed=round1, cap="solar"), 3, TILTED, SEATS))  # nobody may leave solar
    replay.feed(to_observation(state(revealed=round1), 4, TILTED, SEATS))
    round2 = (("blue", (Card("water", 1),)), ("red", (Card("wind", 2),)))
    events = replay.feed(to_observation(state(revealed=round2), 5, TILTED, SEATS))
    assert [e["event"] for e in events] == ["order"]


def test_an_enix_card_laid_at_a_seat_does_not_count_for_the_order():
    replay = started()
    revealed = (("blue", (Card("water", 2), Card("enix", None))), ("red", (Card("wind", 1),)))
    [order] = replay.feed(to_observation(state(revealed=revealed), 2, TILTED, SEATS))
    assert order["order"] == ["blue", "red"] and order["totals"] == {"blue": 2, "red": 1}


def test_view_gives_the_page_the_layout_walks_and_tile_moves():
    import json
    replay = started()
    revealed = (("blue", (Card("water", 1),)), ("red", (Card("wind", 3),)))
    replay.feed(to_observation(state(revealed=revealed), 2, TILTED, SEATS))
    page = replay.view()
    assert page["layout"]["solar"]["cell"] == [0, 0]
    assert abs(page["layout"]["solar"]["center_mm"][0] - TILTED.origin[0]) < 1
    assert page["walks"]["red"]["reachable"] == {"geothermal": 2, "biomass": 3, "waves": 3, "wind": 3}
    assert page["walks"]["blue"]["reachable"] == {}
    assert page["cut_tiles"] == [] and [1, -1] in page["moves"]["solar"]
    json.dumps(page)


def test_a_hex_of_unread_energy_counts_as_not_seen():
    replay = started()
    obs = to_observation(state(), 2, TILTED, SEATS)
    obs["hexes"][2]["energy"] = None
    events = replay.feed(obs)
    assert [e["event"] for e in events] == ["unexplained"] and "not seen" in events[0]["reason"]
