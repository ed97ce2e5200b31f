"""ENIX layout rules: the lattice read from table mm, the setup check, rotate / move / illegal move."""

from __future__ import annotations

import random

import pytest

from tablecam.rules.enix.lattice import Lattice, fit_lattice, neighbours
from tablecam.rules.enix.layout import Layout, Placed, check_setup, classify, destinations, is_connected, is_cut_tile

# Solar in the middle, the five others on five of the six places around it (place (1, -1) free).
SETUP = {"solar": (0, 0), "water": (1, 0), "geothermal": (0, 1), "waves": (-1, 1), "wind": (-1, 0),
         "biomass": (0, -1)}


def layout(cells: dict, turns: dict | None = None) -> Layout:
    return Layout.of(Placed(e, c, (turns or {}).get(e, 0)) for e, c in cells.items())


def moved(cells: dict, energy: str, cell) -> dict:
    return {**cells, energy: cell}


# ---------------------------------------------------------------- lattice from mm


@pytest.mark.parametrize("angle", [0.0, 17.0, 33.3, 59.0])
def test_cells_and_turns_are_read_back_from_noisy_millimetres(angle):
    lattice = Lattice((380.0, 240.0), angle)
    noise = random.Random(int(angle))
    turns = {"solar": 0, "water": 1, "geothermal": 2, "waves": 3, "wind": 4, "biomass": 5}
    centres, rotations = [], []
    for energy, cell in SETUP.items():
        x, y = lattice.centre(cell)
        centres.append((x + noise.uniform(-3, 3), y + noise.uniform(-3, 3)))
        rotations.append(lattice.rotation(turns[energy]) + noise.uniform(-4, 4))
    fitted = fit_lattice(rotations, centres, 110.9)
    origin_cell, _ = fitted.nearest(centres[0])
    for (energy, cell), point, rotation in zip(SETUP.items(), centres, rotations):
        found, off = fitted.nearest(point)
        assert (found[0] - origin_cell[0], found[1] - origin_cell[1]) == cell
        assert off < 8
        # Turns are relative to the fitted lattice, whose direction 0 may be any of the six sides.
        assert (fitted.turn(rotation) - fitted.turn(rotations[0])) % 6 == turns[energy]


def test_a_layout_sitting_square_keeps_its_turns_when_the_reading_wobbles_across_zero():
    first = fit_lattice([0.5, 60.5], [(400, 250), (400, 250 - 110.9)], 110.9)
    wobbled = fit_lattice([359.2, 59.4], [(400, 250), (400, 250 - 110.9)], 110.9, previous=first)
    assert abs(wobbled.angle - first.angle) < 2
    assert wobbled.turn(59.4) == first.turn(60.5)


# ---------------------------------------------------------------- setup


def test_the_seed_setup_is_accepted():
    verdict = check_setup(layout(SETUP), {"red": "solar", "blue": "solar"})
    assert verdict.legal


def test_setup_needs_solar_in_the_middle():
    cells = {**SETUP, "solar": (1, -1), "water": (0, 0)}  # water in the middle, solar outside
    verdict = check_setup(layout(cells))
    assert not verdict.legal and "touches solar" in verdict.reason


def test_setup_rejects_a_tile_away_from_solar():
    verdict = check_setup(layout(moved(SETUP, "biomass", (2, 0))))
    assert not verdict.legal and "biomass" in verdict.reason


def test_setup_accepts_any_five_of_the_six_places_around_solar():
    # With five of six places taken, every outer tile has an outer neighbour.
    for free in neighbours((0, 0)):
        places = [c for c in neighbours((0, 0)) if c != free]
        cells = dict(zip(("water", "geothermal", "waves", "wind", "biomass"), places), solar=(0, 0))
        assert check_setup(layout(cells)).legal


def test_setup_names_a_pawn_not_on_solar():
    verdict = check_setup(layout(SETUP), {"red": "solar", "blue": "wind"})
    assert not verdict.legal and "blue" in verdict.reason


def test_setup_needs_all_six_tiles():
    cells = dict(SETUP)
    del cells["wind"]
    verdict = check_setup(layout(cells))
    assert not verdict.legal and "wind" in verdict.reason


# ---------------------------------------------------------------- rotate, move, illegal


def test_rotating_any_tile_in_place_is_legal():
    before = layout(SETUP)
    change = classify(before, layout(SETUP, {"solar": 4}))
    assert (change.kind, change.legal, change.energy) == ("rotate", True, "solar")
    assert "240 degrees" in change.reason


def test_moving_an_end_tile_to_a_place_touching_the_rest_is_legal():
    change = classify(layout(SETUP), layout(moved(SETUP, "biomass", (2, 0))))
    assert (change.kind, change.legal) == ("move", True)


def test_moving_a_tile_away_from_everything_is_an_illegal_move():
    change = classify(layout(SETUP), layout(moved(SETUP, "biomass", (0, -3))))
    assert (change.kind, change.legal) == ("illegal", False)
    assert "split" in change.reason and "biomass" in change.reason


def test_the_seeds_example_a_cut_tile_may_only_be_rotated_unless_its_new_place_reconnects_everything():
    # biomass hangs on water alone, so water holds the layout together.
    chain = moved(SETUP, "biomass", (2, 0))
    before = layout(chain)
    assert is_cut_tile(before, "water")
    # Turning it is always fine.
    assert classify(before, layout(chain, {"water": 3})).legal
    # Moving it elsewhere splits the layout: illegal, and the reason says why.
    change = classify(before, layout(moved(chain, "water", (1, -1))))
    assert (change.kind, change.legal) == ("illegal", False)
    assert "biomass would not touch the rest" in change.reason
    assert "may only be turned" in change.reason
    # ...unless the new place touches both sides again.
    change = classify(before, layout(moved(chain, "water", (1, 1))))
    assert (change.kind, change.legal) == ("move", True)
    assert destinations(before, "water") == [(1, 1)]


def test_a_tile_moved_and_turned_is_one_legal_move():
    change = classify(layout(SETUP), Layout.of([*layout(moved(SETUP, "biomass", (1, -1))).tiles[:-1],
                                                Placed("biomass", (1, -1), 2)]))
    assert (change.kind, change.legal) == ("move", True)
    assert "turned" in change.reason


def test_two_tiles_changing_at_once_is_unexplained():
    change = classify(layout(SETUP), layout(moved(SETUP, "biomass", (1, -1)), {"solar": 1}))
    assert (change.kind, change.legal) == ("unexplained", False)
    assert "solar and biomass" in change.reason


def test_no_change_is_no_event():
    assert classify(layout(SETUP), layout(SETUP)).kind == "none"


def test_a_ring_of_six_around_an_empty_place_is_connected():
    ring = dict(zip(("solar", "water", "geothermal", "waves", "wind", "biomass"), neighbours((5, 5))))
    assert is_connected(layout(ring))


def test_two_tiles_on_one_place_are_refused():
    with pytest.raises(ValueError, match="same place"):
        Layout.of([Placed("solar", (0, 0)), Placed("water", (0, 0))])


def test_destinations_keep_the_layout_connected():
    before = layout(SETUP)
    for energy in SETUP:
        places = destinations(before, energy)
        assert places, energy
        for cell in places:
            assert before.at(cell) is None
            assert is_connected(before.with_tile(Placed(energy, cell)))
    assert (1, -1) in destinations(before, "solar")
    assert (0, -3) not in destinations(before, "biomass")
