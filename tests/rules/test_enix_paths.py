"""ENIX pawn movement: crossing costs from the ray table, reachable tiles, the cap, move checks.

Costs below are worked out by hand from enix.md's default ray table: crossing from A to
an adjacent B costs (points on A's ray) + (points on B's ray) + 1, rays facing each other.
"""

from __future__ import annotations

from tablecam.rules.enix.energies import RayTable
from tablecam.rules.enix.layout import Layout, Placed
from tablecam.rules.enix.paths import check_pawn_move, crossing_cost, reachable

RAYS = RayTable.default()
SETUP = {"solar": (0, 0), "water": (1, 0), "geothermal": (0, 1), "waves": (-1, 1), "wind": (-1, 0),
         "biomass": (0, -1)}


def layout(cells=SETUP, turns=None) -> Layout:
    return Layout.of(Placed(e, c, (turns or {}).get(e, 0)) for e, c in cells.items())


def test_crossing_costs_follow_the_ray_table():
    lay = layout()
    # solar side 0 has 1 point; water (above solar) faces it with its side 3: 2 points.
    assert crossing_cost(lay, RAYS, "solar", "water") == 1 + 2 + 1
    # solar side 1: 0 points; geothermal's side 4: 1 point.
    assert crossing_cost(lay, RAYS, "solar", "geothermal") == 0 + 1 + 1
    # Crossing is the same both ways.
    assert crossing_cost(lay, RAYS, "geothermal", "solar") == 2


def test_no_ray_on_either_side_means_no_connection():
    lay = layout()
    # water (side 2: 1 point) and geothermal (side 5: no ray) share a side.
    assert crossing_cost(lay, RAYS, "water", "geothermal") is None
    # Tiles that do not share a side are never connected.
    assert crossing_cost(lay, RAYS, "water", "waves") is None


def test_turning_a_tile_changes_its_connections():
    # wind below solar: solar side 3 (1 point) meets wind side 0 (1 point) = 3.
    assert crossing_cost(layout(), RAYS, "solar", "wind") == 3
    # wind turned 120 degrees: its side 4 (0 points) now faces solar = 2.
    assert crossing_cost(layout(turns={"wind": 2}), RAYS, "solar", "wind") == 2
    # wind turned 60 degrees: its side 5 (no ray) faces solar.
    assert crossing_cost(layout(turns={"wind": 1}), RAYS, "solar", "wind") is None


def test_reachable_tiles_with_a_total_and_their_cheapest_cost():
    assert reachable(layout(), RAYS, "solar", 3) == {"geothermal": 2, "biomass": 3, "waves": 3, "wind": 3}
    assert reachable(layout(), RAYS, "solar", 8) == {"geothermal": 2, "biomass": 3, "waves": 3, "wind": 3,
                                                     "water": 4}
    assert reachable(layout(), RAYS, "solar", 1) == {}


def test_a_pawn_may_cross_several_tiles_if_the_total_allows():
    # A line: wind - solar - water, pawn on wind. wind→solar 3, solar→water 4.
    line = {"wind": (-1, 0), "solar": (0, 0), "water": (1, 0), "geothermal": (5, 5), "waves": (6, 5),
            "biomass": (7, 5)}
    assert reachable(layout(line), RAYS, "wind", 6) == {"solar": 3}
    assert reachable(layout(line), RAYS, "wind", 7) == {"solar": 3, "water": 7}


def test_a_pawn_never_enters_a_tile_twice_nor_comes_back_to_its_start():
    # From geothermal the only connection is solar; going back would need entering geothermal again.
    assert reachable(layout(), RAYS, "geothermal", 30) == {"solar": 2, "water": 6, "waves": 5, "wind": 5,
                                                           "biomass": 5}


def test_zero_or_negative_total_moves_nothing():
    assert reachable(layout(), RAYS, "solar", 0) == {}
    assert reachable(layout(), RAYS, "solar", -7) == {}


def test_the_cap_blocks_entering_and_leaving():
    assert "geothermal" not in reachable(layout(), RAYS, "solar", 9, cap="geothermal")
    assert reachable(layout(), RAYS, "solar", 9, cap="solar") == {}
    # Nor may a pawn pass through the capped tile: from geothermal everything goes through solar.
    assert reachable(layout(), RAYS, "geothermal", 30, cap="solar") == {}


def test_an_observed_walk_is_checked_against_the_total_with_a_reason():
    ok = check_pawn_move(layout(), RAYS, "red", "solar", "water", 4)
    assert ok.legal and ok.cost == 4
    short = check_pawn_move(layout(), RAYS, "red", "solar", "water", 3)
    assert not short.legal
    assert "needs 4 points" in short.reason and "has 3" in short.reason
    capped = check_pawn_move(layout(), RAYS, "red", "solar", "geothermal", 9, cap="geothermal")
    assert not capped.legal and "under the cap" in capped.reason
    stuck = check_pawn_move(layout(), RAYS, "red", "solar", "water", -2)
    assert not stuck.legal and "-2" in stuck.reason


def test_a_walk_with_no_known_total_is_checked_for_connections_only():
    assert check_pawn_move(layout(), RAYS, "red", "solar", "water", None).legal
    # wind turned 60 degrees shows solar its side without a ray; here it touches nothing else.
    line = {"wind": (-1, 0), "solar": (0, 0), "water": (1, 0), "geothermal": (5, 5), "waves": (6, 5),
            "biomass": (7, 5)}
    unjoined = check_pawn_move(layout(line, {"wind": 1}), RAYS, "red", "solar", "wind", None)
    assert not unjoined.legal and "no path" in unjoined.reason


def test_the_ray_table_is_configurable_per_physical_set():
    rays = RayTable.from_mapping({"water": [0, None, 1, 0, None, 1]})
    assert crossing_cost(layout(), rays, "solar", "water") == 1 + 0 + 1
    assert crossing_cost(layout(), rays, "solar", "geothermal") == 2  # other energies keep the default


def test_a_bad_ray_table_is_one_sentence():
    import pytest
    with pytest.raises(ValueError, match="six entries"):
        RayTable.from_mapping({"water": [0, 1, 2]})
    with pytest.raises(ValueError, match="not one of"):
        RayTable.from_mapping({"coal": [0, 0, 0, 0, 0, 0]})
