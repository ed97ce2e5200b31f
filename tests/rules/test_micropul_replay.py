"""`tablecam replay micropul`: from camera observations to rule events."""

import copy
import json
import random
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings, strategies as st

from tablecam.companion.cli import main
from tablecam.rules.micropul.board import Placed, Stone
from tablecam.rules.micropul.game import PlayTile, random_game, scores
from tablecam.rules.micropul.grid import Grid
from tablecam.rules.micropul.record import observation
from tablecam.rules.micropul.replay import Replay
from tablecam.rules.micropul.tiles import all_tiles

RECORDED = Path(__file__).parents[1] / "data" / "replay" / "micropul_game.jsonl"


def run_cli(args, capsys, stdin_text=None, monkeypatch=None):
    if stdin_text is not None:
        import io
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin_text))
    status = main(args)
    out, err = capsys.readouterr()
    return status, [json.loads(line) for line in out.splitlines()], err


def test_recorded_game_replays_to_the_right_events(capsys):
    # A whole game (engine seed 0) on a board turned -14 degrees, with 1.5 mm of noise,
    # the core face down beside it, and an illegal tile laid then taken back.
    status, events, err = run_cli(["replay", "micropul", str(RECORDED)], capsys)
    assert status == 0 and err == ""
    placements = [e for e in events if e["event"] == "placement"]
    assert len(placements) == 38  # 37 tiles played + the illegal one
    illegal = [e for e in placements if not e["legal"]]
    assert illegal == [{
        "frame_id": 36, "event": "placement", "cell": [-2, -2], "tile": 7, "rotation": 90,
        "legal": False, "reason": "colour clash: a black micropul would face a white micropul",
        "draw": 0, "extra_turns": 0, "closed_groups": [], "core_left": 25}]
    removed = [e for e in events if e["event"] == "removed"]
    assert removed == [{"frame_id": 39, "event": "removed", "what": "tile", "cell": [-2, -2],
                        "was_legal": False}]
    assert sum(e["draw"] for e in placements) == 35  # the whole core was drawn
    stones = [e for e in events if e["event"] == "stone"]
    assert len(stones) == 6 and all(e["legal"] for e in stones)
    assert not [e for e in events if e["event"] == "unexplained"]
    assert events[-1] == {
        "event": "final", "group_points": {"red": 5, "blue": 0}, "core_left": 0,
        "scores": {"red": 17, "blue": 7},
        "ranking": [{"name": "Player 1", "stone_colour": "red", "score": 17},
                    {"name": "Player 2", "stone_colour": "blue", "score": 7}]}


def test_the_console_command_reads_standard_input():
    result = subprocess.run([str(Path(sys.executable).with_name("tablecam")), "replay", "micropul", "-"],
                            input=RECORDED.read_text(), capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    assert json.loads(result.stdout.splitlines()[-1])["scores"] == {"red": 17, "blue": 7}


def test_malformed_lines_are_named_and_later_lines_still_replayed(capsys, monkeypatch):
    lines = RECORDED.read_text().splitlines()
    bad_symbol = json.loads(lines[5])
    bad_symbol["tiles"][0]["quadrants"]["ul"] = "X"
    no_field = json.loads(lines[7])
    del no_field["tile_mm"]
    lines[3] = '{"frame_id": 9, "tiles": [oops'
    lines[5] = json.dumps(bad_symbol)
    lines[7] = json.dumps(no_field)
    status, events, err = run_cli(["replay", "micropul", "-"], capsys, "\n".join(lines) + "\n", monkeypatch)
    assert status == 2
    said = err.strip().splitlines()
    assert said == [
        "tablecam: line 4: malformed JSON (Expecting value); line skipped.",
        "tablecam: line 6: tile 1: unknown micropul symbol 'X' in quadrant ul; line skipped.",
        "tablecam: line 8: missing field tile_mm; line skipped.",
    ]
    # Nothing after the bad lines is lost: the game still ends with the same scores.
    assert events[-1]["scores"] == {"red": 17, "blue": 7}
    assert "Traceback" not in err


def test_missing_file_and_unknown_game_are_one_sentence(capsys, tmp_path):
    assert main(["replay", "micropul", str(tmp_path / "nope.jsonl")]) == 2
    assert main(["replay", "chess", "-"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"tablecam: no such file: {tmp_path / 'nope.jsonl'}.",
                   "tablecam: unknown game 'chess': choose one of micropul, enix, stixx, enigmo."]


def test_another_games_observation_is_refused():
    replay = Replay()
    try:
        replay.feed({"game": "stixx", "frame_id": 1, "board": {}, "sticks": []})
    except ValueError as exc:
        assert str(exc) == "this is a stixx observation, not micropul"
    else:
        raise AssertionError("a stixx observation was accepted")


# ---- what changed between two views -----------------------------------------------------------

GRID = Grid(8.0, (4.3, 3.1), 30.0)


def obs(board, stones=(), frame=0, extra=None, grid=GRID):
    return observation(board, tuple(stones), grid, frame, extra_tiles=extra)


def started(seed=5, upto=6):
    states = random_game(seed)
    replay = Replay()
    for i, state in enumerate(states[:upto]):
        replay.feed(obs(state.board, state.stones, i))
    return replay, states


def test_an_unchanged_or_nudged_board_gives_no_event():
    replay, states = started()
    state = states[5]
    assert replay.feed(obs(state.board, state.stones, frame=10)) == []
    nudged = Grid(9.5, (4.3 + 1.0, 3.1 - 2.0), 30.0)  # pushed two tiles away, a little turned
    assert replay.feed(obs(state.board, state.stones, frame=11, grid=nudged)) == []


def test_two_legal_tiles_at_once_are_reported_then_scored_in_a_legal_order():
    replay, states = started(seed=7, upto=2)
    later = states[3]
    assert [type(s.last.action) for s in states[2:4]] == [PlayTile, PlayTile]
    events = replay.feed(obs(later.board, later.stones, 20))
    assert [e["event"] for e in events] == ["unexplained", "placement", "placement"]
    assert events[0]["reason"].startswith("2 tiles appeared at once")
    assert all(e["legal"] for e in events[1:])
    assert set(replay.board.cells) == set(later.board.cells)
    assert replay.feed(obs(later.board, later.stones, 21)) == []


def test_tiles_at_once_that_no_order_makes_legal_are_reported_once_and_not_accepted():
    replay, states = started(upto=6)
    state = states[5]
    other = next(s for s in states[6:] if isinstance(s.last.action, PlayTile))
    cell = other.last.action.cell
    clash = next((c, p) for c in state.board.open_cells() if c != cell
                 for i in range(48) for r in (0, 90, 180, 270)
                 for p in [Placed(all_tiles()[i].face.rotated(r))]
                 if (state.board.check(c, p.face).reason or "").startswith("colour clash"))
    both = {clash[0]: clash[1], cell: other.board.cells[cell]}
    first = replay.feed(obs(state.board, state.stones, 20, extra=both))
    assert [e["event"] for e in first] == ["unexplained"]
    assert first[0]["reason"] == ("2 tiles appeared at once: more than one move since the last "
                                  "stable view, please check the table")
    assert replay.feed(obs(state.board, state.stones, 21, extra=both)) == []  # said once, not every frame
    assert set(replay.board.cells) == set(state.board.cells)  # the board did not take them


def test_a_tile_that_changed_its_face_is_unexplained():
    replay, states = started()
    board, stones = states[5].board, states[5].stones
    cell = next(c for c, p in board.cells.items() if p.face.rotated(90) != p.face)
    turned = board.with_tile(cell, Placed(board.cells[cell].face.rotated(90)))
    events = replay.feed(obs(turned, stones, frame=30))
    assert events[0]["event"] == "unexplained" and "changed its face" in events[0]["reason"]
    assert replay.board.cells[cell].face == board.cells[cell].face


def test_a_legal_tile_taken_back_leaves_the_board():
    replay, states = started()
    board, stones = states[5].board, states[5].stones
    cell = max(board.cells)
    events = replay.feed(obs(board.without(cell), [s for s in stones if s.cell != cell], frame=40))
    assert events == [{"frame_id": 40, "event": "removed", "what": "tile", "cell": list(cell),
                       "was_legal": True}]
    assert cell not in replay.board


def test_a_stone_on_a_claimed_group_is_illegal_until_taken_back():
    replay, states = started(upto=4)  # no stone laid yet
    board = states[3].board
    assert board.symbol(((0, 0), "ul")) == board.symbol(((0, 0), "ur")) == "W"
    first = Stone((0, 0), "ul", "red")
    assert replay.feed(obs(board, [first], 50))[0]["legal"] is True
    second = Stone((0, 0), "ur", "blue")  # same white group of the start tile
    event = replay.feed(obs(board, [first, second], 51))[0]
    assert event["legal"] is False and event["reason"] == "that group already carries a stone"
    assert replay.feed(obs(board, [first], 52)) == [
        {"frame_id": 52, "event": "removed", "what": "stone", "cell": [0, 0], "colour": "blue",
         "was_legal": False}]


def test_an_illegal_tile_moved_to_a_legal_place_counts_as_taken_back_and_placed():
    states = random_game(5)
    i = next(i for i in range(5, len(states) - 1) if isinstance(states[i + 1].last.action, PlayTile))
    replay, states = started(upto=i + 1)
    state, nxt = states[i], states[i + 1]
    action = nxt.last.action
    placed = nxt.board.cells[action.cell]
    wrong = next(c for c in state.board.open_cells()
                 if not state.board.check(c, placed.face).legal and c != action.cell)
    first = replay.feed(obs(state.board, state.stones, frame=60, extra={wrong: placed}))
    assert first[0]["legal"] is False
    events = replay.feed(obs(nxt.board, nxt.stones, 61))
    assert [e["event"] for e in events] == ["removed", "placement"]
    assert events[1]["legal"] is True


# ---- property: every random game replays to the engine's own scores -----------------------------

@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), angle=st.floats(-20, 20), x=st.floats(100, 500),
       y=st.floats(100, 300), noise=st.floats(0, 2.0))
def test_random_games_replay_to_the_engines_scores(seed, angle, x, y, noise):
    states = random_game(seed)
    final = states[-1]
    grid = Grid(angle, (x / 30.0, y / 30.0), 30.0)
    rng = random.Random(seed)
    replay = Replay()
    replay.feed({"players": [{"name": p.name, "stone_colour": p.stone_colour} for p in final.players],
                 "hand": {p.stone_colour: len(p.hand) for p in final.players},
                 "reserve": {p.stone_colour: len(p.reserve) for p in final.players}})
    events = []
    for i, state in enumerate(states):
        o = obs(state.board, state.stones, i, grid=grid)
        for t in o["tiles"]:
            t["center_mm"] = [v + rng.uniform(-noise, noise) for v in t["center_mm"]]
        events += replay.feed(copy.deepcopy(o))
    last = replay.finish()[0]
    assert all(e.get("legal") for e in events), [e for e in events if not e.get("legal")][:2]
    assert last["core_left"] == final.core_left
    assert last["scores"] == {p.stone_colour: s for p, s in zip(final.players, scores(final))}
    tiles_played = sum(isinstance(s.last.action, PlayTile) for s in states[1:])
    assert sum(e["event"] == "placement" for e in events) == tiles_played


def test_players_can_confirm_a_reading_that_no_single_move_explains():
    replay, states = started(upto=6)
    state = states[5]
    cell = next(c for c, p in state.board.cells.items() if p.face.rotated(90) != p.face)
    turned = state.board.with_tile(cell, Placed(state.board.cells[cell].face.rotated(90)))
    seen = obs(turned, state.stones, 70)
    assert replay.feed(seen)[0]["event"] == "unexplained"
    assert replay.accept(seen) == [{"frame_id": 70, "event": "accepted", "tiles": len(turned),
                                    "stones": len(state.stones)}]
    assert replay.board.cells[cell].face == turned.cells[cell].face
    assert replay.feed(seen) == []  # the table now agrees with the board
