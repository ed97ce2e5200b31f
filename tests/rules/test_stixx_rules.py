"""Stixx rules: the basic game (picks, reveals, guesses, the three ends, the winner) and the expert variant."""

from __future__ import annotations

import random
from dataclasses import replace

from tablecam.rules.stixx import basic, expert
from tablecam.rules.stixx.basic import COLOURS, full_board
from tablecam.rules.stixx.board import SLOTS, slots_at, touching
from tablecam.rules.stixx.expert import ExpertState
from tablecam.rules.stixx.game import expert_start

PLAYERS = ("Ann", "Bob", "Cleo")


def only(sticks: dict[int, str]) -> tuple[str | None, ...]:
    return tuple(sticks.get(s) for s in range(SLOTS))


# ---------------------------------------------------------------- basic game


def test_any_stick_may_be_taken_first_and_the_marker_goes_in_its_groove():
    game = basic.new_game(full_board(), PLAYERS)
    assert basic.options(game) == list(range(SLOTS))
    game, verdict = basic.pick(game, 20)
    assert verdict.legal and verdict.player == "Ann"
    assert game.marker == 20 and game.sticks[20] is None and game.on_turn == "Bob"


def test_then_only_sticks_touching_the_marker_may_be_taken():
    game, _ = basic.pick(basic.new_game(full_board(), PLAYERS), 20)
    assert basic.options(game) == sorted(touching(20))
    game, verdict = basic.pick(game, sorted(touching(20))[0])
    assert verdict.legal
    far = next(s for s in range(SLOTS) if game.sticks[s] and s not in touching(game.marker))
    game2, verdict = basic.pick(game, far)
    assert not verdict.legal
    assert f"slot {far}" in verdict.reason and "does not touch the marker" in verdict.reason
    assert game2.sticks[far] is None  # the stick is gone anyway: the table is the truth


def test_revealing_gives_two_picks_one_after_the_other():
    game, _ = basic.pick(basic.new_game(full_board(), PLAYERS), 20)  # Ann
    game, _ = basic.reveal(game, "Bob", "red")
    first = sorted(touching(20))[0]
    game, verdict = basic.pick(game, first)
    assert verdict.legal and game.on_turn == "Bob" and game.picks_allowed - game.picks_done == 1
    # The second stick must touch the first one's groove (where the marker now belongs).
    assert basic.options(game) == sorted(s for s in touching(first) if game.sticks[s])
    game, verdict = basic.pick(game, basic.options(game)[0])
    assert verdict.legal and game.on_turn == "Cleo"
    assert game.colour_of("Bob") == "red"


def test_a_right_guess_gives_two_picks_and_a_wrong_one_ends_the_turn():
    game, _ = basic.pick(basic.new_game(full_board(), PLAYERS), 20)  # Ann; Bob's turn
    right, sentence = basic.guess(game, "Bob", "Cleo", "green", True)
    assert right.picks_allowed == 2 and right.on_turn == "Bob" and right.colour_of("Cleo") == "green"
    assert "right" in sentence
    wrong, sentence = basic.guess(game, "Bob", "Cleo", "green", False)
    assert wrong.on_turn == "Cleo" and wrong.colour_of("Cleo") is None
    assert "turn passes" in sentence


def test_the_game_ends_when_the_marker_touches_no_stick():
    a = 0
    c = sorted(touching(a))[0]
    b = next(s for s in range(SLOTS) if s not in touching(a) | touching(c) | {a, c})
    game = basic.new_game(only({a: "red", b: "blue", c: "green"}), PLAYERS)
    game, _ = basic.pick(game, a)
    assert game.over is None  # c still touches the marker
    game, _ = basic.pick(game, c)
    assert game.over == "the marker touches no stick"
    game, verdict = basic.pick(game, b)
    assert not verdict.legal and "already over" in verdict.reason


def test_the_game_ends_when_the_board_is_empty():
    game = basic.new_game(only({5: "red"}), PLAYERS)
    game, _ = basic.pick(game, 5)
    assert game.over == "the board is empty"


def test_the_game_ends_when_a_player_holds_seven_of_their_colour():
    game = basic.new_game(full_board(), ("Ann", "Bob"), {"Ann": "red"})
    slot = sorted(touching(20))[0]
    sticks = list(game.sticks)
    sticks[slot] = "red"
    game = replace(game, sticks=tuple(sticks), taken=(("Ann", ("red",) * 6), ("Bob", ())), marker=20)
    game, _ = basic.pick(game, slot)
    assert game.over == "Ann holds 7 red sticks"


def test_a_late_reveal_of_seven_ends_the_game():
    game = basic.new_game(full_board(), ("Ann", "Bob"))
    game = replace(game, taken=(("Ann", ("blue",) * 7), ("Bob", ())), marker=20)
    game, _ = basic.reveal(game, "Ann", "blue")
    assert game.over == "Ann holds 7 blue sticks"


def test_winner_has_most_of_their_colour_then_most_in_all():
    game = replace(basic.new_game(full_board(), PLAYERS, {"Ann": "red", "Bob": "blue", "Cleo": "green"}),
                   taken=(("Ann", ("red", "red", "blue")), ("Bob", ("blue", "blue", "red", "red", "green")),
                          ("Cleo", ("green",))))
    rows, winners, sentence = basic.standings(game)
    assert winners == ("Bob",) and "most sticks in all" in sentence
    assert {r.player: (r.own, r.total) for r in rows} == {"Ann": (2, 3), "Bob": (2, 5), "Cleo": (1, 1)}


def test_no_winner_while_a_colour_is_secret():
    game = basic.new_game(full_board(), PLAYERS, {"Ann": "red"})
    _, winners, sentence = basic.standings(game)
    assert winners == () and "Bob and Cleo" in sentence


def test_setup_needs_seven_of_each_colour_and_no_marker():
    assert basic.check_setup(full_board(), marker_seen=False)[0]
    assert not basic.check_setup(full_board(), marker_seen=True)[0]
    short = list(full_board())
    short[3] = None
    legal, reason = basic.check_setup(tuple(short), False)
    assert not legal and "6 " + COLOURS[3] in reason


# ---------------------------------------------------------------- expert variant


def test_a_move_is_legal_only_if_same_colour_connections_grow():
    centre = sorted(slots_at((0, 0)))
    a, b = centre[0], centre[1]  # two grooves meeting at the centre
    target = next(t for t in touching(b) if t not in touching(a) and t != a)
    sticks = only({a: "red", b: "blue"})
    # Moving blue next to nothing red: its blue connections stay 0 → 0.
    move = expert.judge(sticks, b, target)
    assert not move.legal and (move.before, move.after) == (0, 0)
    # A red stick moving to touch another red one: 0 → 1.
    far = next(s for s in range(SLOTS) if s not in touching(a) and s not in (a, b))
    sticks = only({a: "red", far: "red"})
    empty_next_to_a = next(t for t in touching(a) if sticks[t] is None)
    move = expert.judge(sticks, far, empty_next_to_a)
    assert move.legal and (move.before, move.after) == (0, 1)
    assert "grow" in move.reason


def test_a_stick_does_not_count_its_own_old_groove():
    # A lone red stick slid into the next groove would "touch" its old place; that is no connection.
    b = 7
    target = sorted(touching(b))[0]
    move = expert.judge(only({b: "red"}), b, target)
    assert (move.before, move.after, move.legal) == (0, 0, False)


def test_legal_moves_lists_exactly_the_growing_moves():
    sticks = only({0: "red", 30: "red", 15: "blue"})
    moves = expert.legal_moves(sticks)
    for source, target in moves:
        assert expert.judge(sticks, source, target).legal
    empty = [s for s in range(SLOTS) if sticks[s] is None]
    assert len(moves) == sum(expert.judge(sticks, s, t).legal for s in (0, 30, 15) for t in empty)


def test_a_six_branch_star_of_one_colour_ends_the_game():
    star = {s: "purple" for s in slots_at((0, 0))}
    assert expert.star(only(star)) == "purple"
    assert expert.end_reason(only(star)) == "a six-branch star of purple"
    star[sorted(star)[0]] = "red"
    assert expert.star(only(star)) is None


def test_no_legal_move_ends_the_game():
    # One stick of each colour alone: no move can make a connection grow.
    sticks = only({0: "red", 41: "blue"})
    assert expert.legal_moves(sticks) == []
    assert expert.end_reason(sticks) == "no legal move remains"


def test_expert_setup_check():
    start = expert_start(random.Random(3))
    assert expert.check_setup(start)[0]
    # Swap two sticks so that two of one colour touch: refused, naming the slots.
    bad = list(start)
    s = next(i for i in range(SLOTS) if bad[i])
    t = next(i for i in touching(s) if bad[i] and bad[i] != bad[s])
    u = next(i for i in range(SLOTS) if bad[i] == bad[s] and i != s)
    bad[t], bad[u] = bad[u], bad[t]
    legal, reason = expert.check_setup(tuple(bad))
    assert not legal and "may touch" in reason
    short = list(start)
    short[s] = None
    assert not expert.check_setup(tuple(short))[0]


def test_a_player_who_has_shown_their_colour_moves_twice_a_turn():
    sticks = only({0: "red", 30: "red", 15: "blue", 20: "blue"})
    game = ExpertState(sticks, ("Ann", "Bob"))
    assert game.moves_allowed == 1
    game, _ = expert.reveal(game, "Ann", "red")
    assert game.moves_allowed == 2


def test_expert_winner_counts_connected_sticks_and_breaks_ties_by_showing():
    a, b = sorted(slots_at((0, 0)))[:2]
    c, d = sorted(slots_at((1, 0)) - slots_at((0, 0)))[:2]
    sticks = only({a: "red", b: "red", c: "blue", d: "blue", 40: "green"})
    game = ExpertState(sticks, ("Ann", "Bob"), shown=(("Ann", "red"),), colours=(("Ann", "red"), ("Bob", "blue")))
    scores, winners, sentence = expert.standings(game)
    assert scores == {"Ann": 2, "Bob": 2}
    assert winners == ("Bob",) and "did not show" in sentence
    game = replace(game, shown=(("Bob", "blue"), ("Ann", "red")))
    assert expert.standings(game)[1] == ("Ann",)
