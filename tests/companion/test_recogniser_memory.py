"""What the micropul recogniser is told between frames: the faces last read, where it cannot read now."""

import copy

from tablecam.companion.games.micropul import MEMORY_FRAMES, recogniser_state

from companion_helpers import game_inputs


def board(n):
    _, inputs = game_inputs(0)
    states = [obs for kind, obs in inputs if kind == "stable"]
    return next(s for s in states if len(s["tiles"]) >= n)


def hidden(obs, i):
    """The reading with tile i unread (a stone or a hand over it)."""
    out = copy.deepcopy(obs)
    out["tiles"][i].update(quadrants=None, big=None, catalyst=None)
    return out


def faces(obs):
    return sorted((round(t["center_mm"][0]), round(t["center_mm"][1]), str(t.get("quadrants")), str(t.get("big")))
                  for t in obs["tiles"])


def test_a_tile_a_stone_hides_keeps_the_face_read_before_even_after_a_hand_passed():
    clear = board(6)
    state = recogniser_state(None, clear)
    # A hand hides the tile for a few frames, then a stone lies on it: it is never read again.
    for _ in range(5):
        state = recogniser_state(state, hidden(clear, 2))
    assert faces(state) == faces(clear)


def test_a_tile_not_seen_at_all_is_remembered_while_a_hand_passes_then_forgotten():
    clear = board(6)
    without = dict(clear, tiles=clear["tiles"][:2] + clear["tiles"][3:])
    state = recogniser_state(None, clear)
    for _ in range(MEMORY_FRAMES):
        state = recogniser_state(state, without)
    assert faces(state) == faces(clear)  # still looked for where it was
    state = recogniser_state(state, without)
    assert faces(state) == faces(without)  # gone for longer than a hand takes: taken away


def test_a_tile_read_again_with_another_face_is_what_counts():
    clear = board(6)
    turned = copy.deepcopy(clear)
    turned["tiles"][1]["quadrants"] = {"ul": "B", "ur": "B", "ll": "B", "lr": "B"}
    state = recogniser_state(recogniser_state(None, clear), turned)
    assert faces(state) == faces(turned)
    assert all("unseen" not in t for t in state["tiles"])
