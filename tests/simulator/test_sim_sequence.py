"""The demo sequence: stable states held for a few frames, a hand in between, the game moving on."""

from itertools import islice

from tablecam.simulator import CameraModel, Nuisances, sequence

PIECES = ("tiles", "stones", "hexes", "pawns", "cap", "cards", "sticks", "board", "shutters", "dice")


def _state(truth):
    return {k: truth[k] for k in PIECES if k in truth}


def test_micropul_sequence_hand_between_stable_states():
    frames = list(islice(sequence("micropul", 3, CameraModel.default((400, 300)), Nuisances.none()), 40))
    assert [f.truth["frame_id"] for f in frames] == list(range(40))
    assert frames[0].stable and not all(f.stable for f in frames)
    stable_states = []
    for i, f in enumerate(frames):
        assert f.image.shape == (300, 400, 3)
        if f.stable:
            assert not any("hand" in w for w in f.truth["warnings"])
            if i and frames[i - 1].stable:
                # Held state: the same truth, only the frame differs.
                assert _state(f.truth) == _state(frames[i - 1].truth)
            else:
                stable_states.append(_state(f.truth))
        else:
            assert "a hand is over the table" in f.truth["warnings"]
            assert "hand" in f.truth
    # The game moves on: a tile more after the hand has been.
    assert len(stable_states) >= 2
    assert len(stable_states[1]["tiles"]) == len(stable_states[0]["tiles"]) + 1
    # The hand hides what it changes, in at least one frame.
    assert any(any(p["hidden"] for p in f.truth["pixels"]["tiles"]) for f in frames if not f.stable)


def test_sequences_of_every_other_game_change_state():
    for game in ("enix", "stixx", "enigmo"):
        frames = islice(sequence(game, 1, CameraModel.default((320, 240)), Nuisances.none()), 30)
        states = {repr(_state(f.truth)) for f in frames if f.stable}
        assert len(states) >= 2, game


def test_a_quicker_hand_still_reaches_in_changes_the_pieces_under_it_and_pulls_back():
    from tablecam.simulator.sequence import REACH, hand_reach

    assert hand_reach() == REACH
    frames = list(islice(sequence("micropul", 3, CameraModel.default((400, 300)), Nuisances.none(),
                                  frames_per_state=2, hand_frames=4), 14))
    # two stable frames, four hand frames, two stable frames, ...
    assert [f.stable for f in frames[:14]] == [True] * 2 + [False] * 4 + [True] * 2 + [False] * 4 + [True] * 2
    hand = frames[2:6]
    assert [len(f.truth["tiles"]) for f in hand] == [len(frames[0].truth["tiles"])] + \
        [len(frames[6].truth["tiles"])] * 3  # the tile appears at the first frame at the piece
    assert any(any(p["hidden"] for p in f.truth["pixels"]["tiles"]) for f in hand)
