"""The Stixx board model: 19 intersections, 42 numbered slots, stars, and table mm ↔ slot."""

from __future__ import annotations

import math

import pytest

from tablecam.rules.stixx.board import (INNER, INTERSECTIONS, SLOTS, BoardPose, ends, grooves, midpoint,
                                        rotate_slot, slots_at, stars, steps_between, touching)


def test_the_board_has_19_intersections_and_42_grooves_of_one_length():
    assert len(INTERSECTIONS) == 19 and len(grooves()) == SLOTS == 42
    assert len(INNER) == 7
    for a, b in grooves():
        (ax, ay), (bx, by) = midpoint_of(a), midpoint_of(b)
        assert math.isclose(math.hypot(bx - ax, by - ay), 1.0)


def midpoint_of(point):
    from tablecam.rules.stixx.board import board_xy
    return board_xy(point)


def test_slots_are_numbered_far_side_first_then_left_to_right():
    keys = [(round(midpoint(s)[1], 1), round(midpoint(s)[0], 1)) for s in range(SLOTS)]
    assert keys == sorted(keys)
    # Slot 0 lies on the far edge (smallest y), on the left.
    x0, y0 = midpoint(0)
    assert y0 == min(midpoint(s)[1] for s in range(SLOTS)) and x0 < 0
    # The far edge holds two grooves: slots 0 and 1.
    assert ends(0) == ((0, -2), (1, -2)) and ends(1) == ((1, -2), (2, -2))


def test_six_branch_stars_are_the_six_grooves_at_each_inner_intersection():
    assert all(len(slots) == 6 for _, slots in stars())
    assert len(slots_at((2, 0))) == 3  # a corner of the hexagon


def test_touching_means_sharing_an_intersection():
    for s in range(SLOTS):
        for t in touching(s):
            assert set(ends(s)) & set(ends(t))
        assert s not in touching(s)
    # An inner groove touches 5 others at each end.
    inner = next(s for s in range(SLOTS) if set(ends(s)) <= set(INNER))
    assert len(touching(inner)) == 10


@pytest.mark.parametrize("rotation", [0.0, 12.0, 37.5, 59.9])
def test_slot_centres_map_back_to_their_slot_with_a_few_mm_of_noise(rotation):
    pose = BoardPose((400.0, 250.0), rotation)
    for s in range(SLOTS):
        x, y = pose.slot_centre(s)
        assert pose.slot_at((x + 4.0, y - 3.0)) == s
    assert pose.slot_at((400.0, 250.0 + 55 * 3)) is None  # beyond the board: a stick lying beside it


def test_a_point_on_an_intersection_is_in_no_slot():
    pose = BoardPose((400.0, 250.0), 0.0)
    # An intersection is half a groove (0.5 L) from the middle of every groove meeting there.
    assert pose.slot_at((400.0, 250.0)) is None


def test_turning_the_board_by_sixty_degrees_renumbers_slots_consistently():
    for steps in range(6):
        for s in range(SLOTS):
            assert rotate_slot(rotate_slot(s, steps), -steps) == s
    # Turning a star's slots gives another star.
    centre = slots_at((0, 0))
    assert {rotate_slot(s, 1) for s in centre} == centre


def test_a_reading_that_jumps_across_zero_degrees_is_mapped_back():
    reference = BoardPose((400.0, 250.0), 59.2)
    steps, unwrapped = steps_between(59.2, 0.6)
    assert steps == 1 and math.isclose(unwrapped, 60.6)
    detector = BoardPose((400.0, 250.0), 0.6)
    physical = BoardPose((400.0, 250.0), 60.6)
    for s in range(SLOTS):
        seen = detector.slot_at(physical.slot_centre(s))
        assert rotate_slot(seen, -steps) == s
    assert reference.slot_at(physical.slot_centre(7)) == 7
