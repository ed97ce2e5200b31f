"""The debounce: a reading counts only after holding; hands pause; noise is not a move."""

import copy

from tablecam.companion.games import micropul
from tablecam.companion.tracker import CHANGING, HANDS, NO_READING, STEADY, StateTracker

from companion_helpers import game_inputs, with_hand


def tracker(hold=3):
    return StateTracker(micropul.same_state, micropul.disturbed, hold)


def states():
    _, inputs = game_inputs(0)
    return [obs for kind, obs in inputs if kind == "stable"]


def jitter(obs, dx):
    moved = copy.deepcopy(obs)
    for tile in moved["tiles"]:
        tile["center_mm"] = [tile["center_mm"][0] + dx, tile["center_mm"][1] - dx]
    return moved


def test_a_reading_becomes_stable_only_after_holding_n_frames():
    a, b = states()[:2]
    t = tracker(3)
    assert [t.update(a).stable for _ in range(3)] == [None, None, a]
    assert t.update(b).phase == CHANGING
    assert t.update(b).stable is None
    assert t.update(b).stable == b
    assert t.update(b).phase == STEADY and t.update(b).stable is None  # reported once


def test_a_flicker_shorter_than_the_hold_is_never_a_move():
    a, b = states()[:2]
    t = tracker(3)
    for _ in range(3):
        t.update(a)
    for frame in (b, b, a, b, a, a, b):
        assert t.update(frame).stable is None


def test_hands_over_the_table_pause_changes_instead_of_producing_them():
    a, b = states()[:2]
    t = tracker(3)
    for _ in range(3):
        t.update(a)
    # The hand lays the tile: the frames under the hand show it half done, never stable.
    steps = [t.update(with_hand(b)) for _ in range(10)]
    assert all(s.phase == HANDS and s.stable is None for s in steps)
    assert t.update(b).stable is None and t.update(b).stable is None
    assert t.update(b).stable == b


def test_an_unreadable_tile_is_a_disturbance_not_a_new_state():
    a, b = states()[:2]
    half_read = copy.deepcopy(b)
    half_read["tiles"][-1].update(quadrants=None, big=None)
    t = tracker(1)
    t.update(a)
    assert t.update(half_read).phase == HANDS


def test_detector_noise_of_a_few_millimetres_is_the_same_state():
    a = states()[3]
    t = tracker(3)
    for dx in (0.0, 2.0, -2.5):
        step = t.update(jitter(a, dx))
    assert step.stable is not None
    assert t.update(jitter(a, 3.0)).phase == STEADY


def test_a_frame_without_reading_is_never_a_change_and_breaks_the_run():
    a, b = states()[:2]
    t = tracker(2)
    t.update(a)
    t.update(a)
    t.update(b)
    # One lost frame (a blur, a shadow) does not flash "cannot read the table" on the page...
    assert t.update(None).phase == CHANGING
    # ...but the run of b is broken: b must be seen twice in a row again.
    assert t.update(b).stable is None
    assert t.update(b).stable == b
    # Lost for `hold` frames in a row: the page says so.
    assert [t.update(None).phase for _ in range(3)] == [STEADY, NO_READING, NO_READING]


def test_a_hand_between_two_agreeing_frames_breaks_their_agreement():
    a, b = states()[:2]
    t = tracker(3)
    for _ in range(3):
        t.update(a)
    for frame in (b, b, with_hand(b), b, b):
        assert t.update(frame).stable is None
    assert t.update(b).stable == b


def test_part_of_the_board_hidden_unnoticed_is_not_taken_for_a_move():
    """The recogniser sometimes misses tiles under a hand without saying so: several tiles
    vanishing at once must hold much longer than a move before the rules hear of it."""
    board = states()[8]
    t = StateTracker(micropul.same_state, micropul.disturbed, 2, plausible=micropul.plausible)
    t.update(board)
    assert t.update(board).stable == board
    partial = dict(board, tiles=board["tiles"][:3])
    assert [t.update(partial).stable for _ in range(7)] == [None] * 7
    assert t.update(board).phase == STEADY  # the hand has gone: nothing happened
    # A change that stays that long is real after all: it is passed on (and the rules report it).
    for _ in range(7):
        t.update(partial)
    assert t.update(partial).stable == partial


def test_one_move_is_plausible_several_at_once_are_not():
    seq = states()
    laid = [(x, y) for x, y in zip(seq, seq[1:]) if len(y["tiles"]) == len(x["tiles"]) + 1]
    before, after = laid[3]
    assert micropul.plausible(before, after)  # a tile laid
    assert micropul.plausible(after, before)  # a tile taken back
    two_later = next(s for s in seq if len(s["tiles"]) == len(before["tiles"]) + 2)
    assert not micropul.plausible(before, two_later)
    turned = copy.deepcopy(after)
    turned["tiles"][-1]["quadrants"] = dict(zip("ul ur ll lr".split(), "B B B B".split()))
    assert not micropul.plausible(after, turned)  # a tile changing its face where it lies


def test_after_a_restart_the_known_state_is_not_reported_again():
    a = states()[2]
    t = tracker(1)
    t.reset(last_stable=a)
    assert t.update(a).stable is None


def test_a_frame_where_the_detector_lost_the_board_pauses_instead_of_emptying_the_table():
    a = states()[4]
    lost = dict(a, tiles=[], stones=[], warnings=["no micropul board found"])
    t = tracker(2)
    t.update(a)
    t.update(a)
    assert [t.update(lost).phase for _ in range(5)] == [HANDS] * 5
    assert t.last_stable == a
