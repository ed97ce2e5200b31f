"""micropul rules and rulings, each from ../shared/games/micropul.md."""

from collections import Counter
from dataclasses import replace

import pytest

from tablecam.rules.micropul.board import Board, Placed, Stone, closed_by
from tablecam.rules.micropul.game import (
    GameState, PlaceStone, PlayTile, Player, TakeFromReserve, apply, check, group_points,
    legal_actions, new_game, scores,
)
from tablecam.rules.micropul.tiles import Face, all_tiles, big_face, identify, start_tile


def tile(index: int, rotation: int = 0) -> Placed:
    return Placed(all_tiles()[index].face.rotated(rotation), index, rotation)


def face(spec: str) -> Face:
    """'ul ur / ll lr' written as 'WB/+.'."""
    top, bottom = spec.split("/")
    return Face(top[0], top[1], bottom[1], bottom[0])


START = {(0, 0): tile(40)}  # W W over B B


# ---- the tile set -------------------------------------------------------------------

def test_tile_set_matches_the_published_statistics():
    tiles = all_tiles()
    assert len(tiles) == 48
    assert sum(t.is_big for t in tiles) == 4
    counts = Counter(t.face.quadrant(q) for t in tiles if not t.is_big for q in ("ul", "ur", "ll", "lr"))
    assert counts == {"W": 50, "B": 50, ".": 34, "1": 28, "2": 6, "+": 8}
    assert start_tile().face == face("WW/BB")


def test_a_turned_tile_is_recognised_with_its_rotation():
    turned = all_tiles()[2].face.rotated(90)  # W B / + .  turned a quarter clockwise
    assert turned == face("+W/.B")
    assert identify(turned) == ((2, 90),)
    # 40 and 41 are the same tile turned half a turn: the index is not unique.
    assert {i for i, _ in identify(face("BB/WW"))} == {40, 41}


# ---- placement legality (rules 1 and 2) ------------------------------------------------

def test_legal_placement_needs_same_colour_contact():
    board = Board(START)
    # Tile 2 turned 90: + W / . B, left of the start tile: W faces W, B faces B.
    assert board.check((-1, 0), tile(2, 90).face).legal


@pytest.mark.parametrize("cell, placed, reason", [
    ((0, 0), tile(46), "occupied"),
    ((3, 3), tile(46), "not touching"),
    ((0, -1), tile(0), "no same-colour contact"),  # only blanks face the start tile's W
    ((0, 1), tile(46), "colour clash"),  # W W W W under the start tile's B B
])
def test_illegal_placements_say_why(cell, placed, reason):
    verdict = Board(START).check(cell, placed.face)
    assert not verdict.legal
    assert verdict.reason.startswith(reason)


def test_colour_clash_beats_a_same_colour_contact_elsewhere():
    # W W / W B right of the start: ul W faces ur W (fine) but ll W faces lr B.
    verdict = Board(START).check((1, 0), tile(28).face)
    assert verdict.reason == "colour clash: a white micropul would face a black micropul"


def test_a_big_tile_is_a_micropul_in_all_four_quadrants():
    board = Board(START)
    assert board.check((0, -1), big_face("W", "+")).legal  # over the W W side
    assert board.check((0, 1), big_face("W", "+")).reason.startswith("colour clash")


# ---- catalysts (rule 3) ---------------------------------------------------------------

def test_catalyst_next_to_a_micropul_of_its_own_tile_does_not_fire():
    # + W / . B left of the start: the + touches its own tile's W, faces nothing across edges.
    verdict = Board(START).check((-1, 0), tile(2, 90).face)
    assert verdict.legal and verdict.extra_turns == 0 and verdict.draw == 0


def test_catalyst_facing_two_micropul_fires_once():
    board = Board({(1, 0): tile(46), (0, 1): tile(16)})  # W W W W right, W W / 1 W below
    # Tile 24 turned 90: . W / 1 1. Its lr one-dot faces two W (right and below),
    # its ll one-dot faces one W: two catalysts fire, one tile each.
    new = tile(24, 90).face
    assert new == face(".W/11")
    verdict = board.check((0, 0), new)
    assert verdict.legal
    assert verdict.draw == 2
    assert len(verdict.activations) == 2


def test_big_tile_catalyst_fires_once_however_many_micropul_face_it():
    verdict = Board(START).check((0, -1), big_face("W", "+"))  # both W of the start face it
    assert verdict.extra_turns == 1


def test_a_neighbours_big_catalyst_fires_when_the_new_tile_faces_it():
    board = Board({(0, 0): tile(42)})  # big white, one dot
    verdict = board.check((1, 0), tile(0).face)  # W . / . . : its W faces the big tile
    assert verdict.legal and verdict.draw == 1


def test_two_dot_catalyst_draws_two():
    board = Board({(0, 0): tile(46)})
    verdict = board.check((0, 1), tile(20).face)  # W W / 2 . under W W W W: the 2 faces nothing
    assert verdict.draw == 0
    verdict = board.check((1, 0), tile(20).face)  # right of it: the W and the 2 face its W
    assert verdict.legal and verdict.draw == 2


def test_one_extra_turn_per_activated_plus():
    board = Board({(0, 0): tile(38), (1, -1): tile(46)})  # W + / 1 W, and W W W W above right
    # Tile 18 (W 1 / + .) right of tile 38: its W fires 38's +, its + faces 38's W,
    # its 1 faces the W W W W tile above.
    verdict = board.check((1, 0), tile(18).face)
    assert verdict.legal
    assert verdict.extra_turns == 2
    assert verdict.draw == 1

    me = Player("Ann", "red", hand=(18, 0, 1))
    other = Player("Bob", "blue", hand=(5, 6))
    state = GameState(board, (), core=tuple(range(20, 30)), players=(me, other))
    state = apply(state, PlayTile(18, (1, 0), 0))
    assert (state.to_move, state.extra_turns) == (0, 1)  # plays again, one more owed
    assert state.players[0].reserve == (20,)  # the drawn tile went to the reserve
    state = apply(state, TakeFromReserve())
    assert (state.to_move, state.extra_turns) == (0, 0)  # the second extra turn
    state = apply(state, PlaceStone((1, -1), "ul"))  # the last of the three turns
    assert state.to_move == 1


def test_draws_are_capped_by_the_core_and_its_last_tile_ends_the_game():
    board = Board({(0, 0): tile(46)})
    me = Player("Ann", "red", hand=(20,))
    state = GameState(board, (), core=(7,), players=(me, Player("Bob", "blue", hand=(1,))))
    after = apply(state, PlayTile(20, (1, 0), 0))  # the two-dot wants two tiles
    assert after.last.drawn == 1
    assert after.core_left == 0
    assert after.over
    assert scores(after) == [2, 1]  # Ann: one tile in reserve (2); Bob: one in hand (1)


# ---- groups, closure, stones (rules 4 to 6) ------------------------------------------------

def test_closure_by_blank_and_catalyst_quadrants():
    board = Board({
        (0, 0): Placed(face("WB/.1")),
        (-1, 0): Placed(face("W./..")),  # its blank faces the W
        (0, -1): Placed(face("W./1.")),  # its one-dot faces the W, its blank faces the B
    })
    white = board.group_of(((0, 0), "ul"))
    black = board.group_of(((0, 0), "ur"))
    assert white.closed and white.points == 1
    assert not black.closed  # its right side borders an empty cell


def mega_board() -> Board:
    cells = {(0, 0): Placed(big_face("W", "+"))}
    for cell, rot in (((1, 0), 90), ((-1, 0), 0), ((0, -1), 0), ((0, 1), 180)):
        cells[cell] = tile(0, rot)  # W . / . . turned so that blanks face the big tile
    return Board(cells)


def test_the_mega_micropul_is_worth_one_point():
    board = mega_board()
    group = board.group_of(((0, 0), "lr"))
    assert group.closed and len(group.nodes) == 4 and group.points == 1
    assert group_points(board, (Stone((0, 0), "ul", "red"),)) == {"red": 1}


def test_big_micropul_counts_once_inside_a_larger_group():
    board = Board(START).with_tile((0, -1), Placed(big_face("W", "+")))
    group = board.group_of(((0, 0), "ul"))
    assert group.points == 3  # two quadrants of the start tile + the big micropul


def test_a_group_with_two_stones_scores_nothing():
    board = mega_board()
    two = (Stone((0, 0), "ul", "red"), Stone((0, 0), "lr", "blue"))
    assert group_points(board, two) == {}


def test_open_groups_score_nothing():
    assert group_points(Board(START), (Stone((0, 0), "ul", "red"),)) == {}


def test_closed_by_lists_only_groups_the_placement_closed():
    before = Board({(0, 0): Placed(face("WB/.1")), (-1, 0): Placed(face("W./.."))})
    after = before.with_tile((0, -1), Placed(face("W./1.")))
    closed = closed_by(before, after)
    assert [(g.colour, g.points) for g in closed] == [("W", 1)]


def test_stones_go_on_unclaimed_groups_open_or_closed_three_each():
    state = new_game(2, seed=1)
    assert check(state, PlaceStone((0, 0), "ul")) is None  # open group of the start tile
    state = apply(state, PlaceStone((0, 0), "ul"))
    state = replace(state, to_move=0)
    assert check(state, PlaceStone((0, 0), "ur")) == "that group already carries a stone"
    assert check(state, PlaceStone((0, 0), "ll")) is None
    assert check(replace(state, players=(replace(state.players[0], stones_left=0),) + state.players[1:]),
                 PlaceStone((0, 0), "ll")) == "no red stone left to place"
    assert check(state, PlaceStone((5, 5), "ul")) == "a stone must go on a micropul"


# ---- turns and the end (rules 4, 6, 7) --------------------------------------------------------

def test_the_deal_leaves_35_tiles_in_the_core():
    state = new_game(2, seed=3)
    assert state.core_left == 35
    assert [len(p.hand) for p in state.players] == [6, 6]
    assert set(state.board.cells) == {(0, 0)}
    everything = set(state.core) | {40} | set(state.players[0].hand) | set(state.players[1].hand)
    assert everything == set(range(48))


def test_solitaire_deals_one_hand():
    state = new_game(1, seed=3)
    assert state.core_left == 41 and len(state.players) == 1


def test_the_hand_holds_at_most_six():
    state = new_game(2, seed=3)
    full = replace(state.players[0], reserve=(state.core[0],))
    state = replace(state, players=(full,) + state.players[1:])
    assert check(state, TakeFromReserve()) == "the hand already holds 6 tiles"


def test_a_player_with_no_tile_in_hand_or_reserve_loses():
    board = Board(START)
    ann = Player("Ann", "red", hand=(2,))
    bob = Player("Bob", "blue", hand=())
    state = GameState(board, (), core=tuple(range(3, 20)), players=(ann, bob))
    after = apply(state, PlayTile(2, (-1, 0), 90))
    assert after.over and after.loser == 1
