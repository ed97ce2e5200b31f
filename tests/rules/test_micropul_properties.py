"""Property tests: whatever legal choices players make, the game holds together."""

from hypothesis import given, settings, strategies as st

from tablecam.rules.micropul.board import across_edges, stones_on
from tablecam.rules.micropul.game import (
    PlayTile, apply, legal_actions, new_game, out_of_play, ranking, scores,
)


@settings(max_examples=25, deadline=None)
@given(data=st.data(), players=st.integers(1, 3), seed=st.integers(0, 10_000))
def test_random_legal_games_end_and_keep_their_invariants(data, players, seed):
    state = new_game(players, seed)
    core_start = state.core_left
    for _ in range(400):
        if state.over:
            break
        actions = legal_actions(state)
        assert actions, "a player with nothing legal to do must have been declared out"
        action = data.draw(st.sampled_from(actions))
        before = state
        state = apply(state, action)  # never raises for a legal action
        # The core never goes below zero and only shrinks by what was drawn.
        assert 0 <= state.core_left == before.core_left - state.last.drawn
        # Every tile is somewhere, exactly once.
        places = list(state.core) + [p.tile_index for p in state.board.cells.values() if p.tile_index is not None]
        ambiguous = sum(1 for p in state.board.cells.values() if p.tile_index is None)
        for p in state.players:
            places += list(p.hand) + list(p.reserve)
        assert len(places) + ambiguous == 48 and len(set(places)) == len(places)
        if isinstance(action, PlayTile):
            assert state.board.cells[action.cell].face is not None
    assert state.over, "a game must end"
    # It ends when the core's last tile is drawn, or when a player has nothing to play.
    assert state.core_left == 0 or (state.loser is not None and out_of_play(state))

    # Every score = closed single-stone group points + hand + 2 x reserve.
    expected = []
    for p in state.players:
        points = 0
        for group in state.board.groups():
            on = stones_on(group, state.stones)
            # closed: no quadrant of the group borders an empty cell
            closed = all(c in state.board.cells for n in group.nodes for c, _ in across_edges(*n))
            if closed and [s.colour for s in on] == [p.stone_colour]:
                points += group.points
        expected.append(points + len(p.hand) + 2 * len(p.reserve))
    assert scores(state) == expected
    assert sorted(ranking(state)) == list(range(players))
    assert core_start == 47 - 6 * players
