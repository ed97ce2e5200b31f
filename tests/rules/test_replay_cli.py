"""`tablecam replay GAME FILE` on the scripted game records in tests/data/replay/ (see compose.py there).

The expected events were worked out by hand from the scripts, not copied from a run:
ENIX costs from enix.md's ray table, Stixx slots from the board model, Enigmo stakes by
adding the closed shutters' labels.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data" / "replay"


def run(game: str, path: Path) -> tuple[int, list[dict], str]:
    done = subprocess.run([sys.executable, "-m", "tablecam.companion.cli", "replay", game, str(path)],
                          capture_output=True, text=True, timeout=60)
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines()], done.stderr


def test_enix_game_replays_to_the_right_events():
    code, events, err = run("enix", DATA / "enix_game.jsonl")
    assert (code, err) == (0, "")
    summary = [(e.get("frame_id"), e["event"], e.get("kind") or e.get("colour") or e.get("on"), e.get("legal"))
               for e in events]
    assert summary == [
        (1, "layout", "setup", True),
        (2, "order", None, None),          # red and blue tie on 5: battle
        (3, "order", None, None),          # red 5+3, blue 5-4: red, blue, green
        (4, "pawn_move", "red", True),     # solar → water costs 1+2+1 = 4 ≤ 8
        (5, "layout", "rotate", True),     # wind turned 120 degrees
        (6, "pawn_move", "blue", False),   # solar → geothermal costs 2 > 1
        (7, "layout", "move", True),       # biomass moved beyond water
        (8, "layout", "illegal", False),   # water moved: biomass cut off
        (9, "layout", "move", True),       # water moved where it touches geothermal and biomass
        (10, "cap", "geothermal", None),
        (11, "pawn_move", "green", False),  # into the capped tile
        (12, "unexplained", None, None),   # solar and geothermal turned at once
        (15, "final", None, True),
    ]
    by_frame = {e.get("frame_id"): e for e in events}
    assert by_frame[2]["battle"] == [["blue", "red"]] and by_frame[2]["order"] is None
    assert by_frame[3]["order"] == ["red", "blue", "green"]
    assert by_frame[3]["totals"] == {"red": 8, "blue": 1, "green": 2}
    assert by_frame[4]["reachable"] == ["geothermal", "biomass", "waves", "wind", "water"]
    assert by_frame[5]["turn"] == 2
    assert "needs 2 points" in by_frame[6]["reason"] and "has 1" in by_frame[6]["reason"]
    assert (by_frame[8]["tile"], by_frame[8]["from"], by_frame[8]["to"]) == ("water", [1, 0], [1, -1])
    assert "biomass would not touch the rest" in by_frame[8]["reason"]
    assert "may only be turned unless its new place reconnects everything" in by_frame[8]["reason"]
    assert by_frame[11]["reachable"] == ["wind"]  # wind turned 120 degrees joins solar for 1+0+1
    assert "solar and geothermal" in by_frame[12]["reason"]
    final = by_frame[15]
    # red 9+7+3+2+1+1 = 23; blue 9+9+8+7 = 33 (out); green (9·5+1)/2 = 23 with its ENIX card.
    assert final["scores"] == {"red": 23, "blue": 33, "green": 23}
    assert final["out"] == ["blue"] and final["winners"] == ["red"]  # the tie goes to red, who ended
    assert final["ended_by"] == "red"


def test_stixx_game_replays_to_the_right_events():
    code, events, err = run("stixx", DATA / "stixx_game.jsonl")
    assert (code, err) == (0, "")
    picks = [(e["player"], e["slot"], e["legal"]) for e in events if e["event"] == "pick"]
    # Ann 2 (first); Bob 3 (touches 2); Cleo 6 (does not touch 3); Ann shows blue: 1 then 4;
    # Bob guesses Cleo's colour wrong; Cleo 5; Ann 0, after which the marker touches nothing.
    assert picks == [("Ann", 2, True), ("Bob", 3, True), ("Cleo", 6, False), ("Ann", 1, True), ("Ann", 4, True),
                     ("Cleo", 5, True), ("Ann", 0, True)]
    assert [e["event"] for e in events] == ["setup", "pick", "pick", "pick", "declare", "pick", "pick", "declare",
                                            "pick", "unexplained", "pick", "end", "declare", "end", "declare", "end"]
    assert events[0]["legal"] is True
    illegal = events[3]
    assert illegal["colour"] == "red" and "does not touch the marker (slot 3)" in illegal["reason"]
    assert "belongs in slot 5" in events[9]["reason"]  # the marker was put back in slot 2
    first_end, last_end = events[11], events[-1]
    assert first_end["over"] and first_end["winners"] == [] and "marker touches no stick" in first_end["reason"]
    # Everyone holds one stick of their colour (Ann blue 2, Bob green 3, Cleo red 6); Ann took 4 in all.
    assert last_end["winners"] == ["Ann"]
    assert last_end["standings"] == {"Ann": {"colour": "blue", "own": 1, "total": 4},
                                     "Bob": {"colour": "green", "own": 1, "total": 1},
                                     "Cleo": {"colour": "red", "own": 1, "total": 2}}


def test_enigmo_game_replays_to_the_right_events():
    code, events, err = run("enigmo", DATA / "enigmo_game.jsonl")
    assert (code, err) == (0, "")
    summary = [(e.get("frame_id"), e["event"], e.get("player"), e.get("legal")) for e in events]
    assert summary == [
        (2, "roll", "Ann", None), (3, "open", "Ann", True), (4, "open", "Ann", True),
        (6, "roll", "Bob", None), (7, "open", "Bob", True),
        (9, "roll", "Ann", None), (10, "open", "Ann", False),
        (None, "guess", "Ann", None),
        (13, "roll", "Bob", None), (None, "open", "Bob", False), (None, "guess", "Bob", None),
        (None, "final", None, None),
    ]
    assert events[0]["options"] == [[7], [1], [3, 4]]
    assert events[1]["complete"] is False and events[2]["complete"] is True
    assert events[3]["options"] == [[10]]  # 2+2: shutter 4 already open, so only shutter 0
    assert events[5]["options"] == [[1], [5, 6]]  # 5+6 is above nine
    # Ann's red word: closed 1, 2, 5, 6, 7, 8 = 29, doubled.
    assert (events[7]["at_stake"], events[7]["scores"]) == (58, {"Ann": 58, "Bob": 0})
    assert events[10]["scores"] == {"Ann": 58, "Bob": -55}
    assert events[-1]["over"] is True and events[-1]["winners"] == ["Ann"]


@pytest.mark.parametrize("game, bad_lines", [
    ("enix", {3: "{not json", 6: '{"hexes": [{"energy": "coal", "center_mm": [1, 2], "rotation": 0}], "pawns": []}'}),
    ("stixx", {2: '{"sticks": [{"colour": "pink", "slot": 3}]}', 5: "[1, 2]"}),
    ("enigmo", {4: '{"shutters": [true, false]}', 9: '{"guess": "Ann"}'}),
])
def test_malformed_lines_are_reported_by_number_and_the_rest_still_replays(tmp_path, game, bad_lines):
    clean = (DATA / f"{game}_game.jsonl").read_text(encoding="utf-8").splitlines()
    lines = list(clean)
    for number in sorted(bad_lines):
        lines.insert(number - 1, bad_lines[number])
    path = tmp_path / "broken.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, events, err = run(game, path)
    assert code == 2
    reported = err.strip().splitlines()
    assert [line.split(":")[1].strip() for line in reported] == [f"line {n}" for n in sorted(bad_lines)]
    assert all(line.startswith("tablecam: line ") and line.endswith("; line skipped.") for line in reported)
    # The good lines still give exactly the clean record's events.
    assert events == run(game, DATA / f"{game}_game.jsonl")[1]


def test_an_unknown_game_is_one_sentence():
    done = subprocess.run([sys.executable, "-m", "tablecam.companion.cli", "replay", "chess",
                           str(DATA / "enix_game.jsonl")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "unknown game 'chess'" in done.stderr and "Traceback" not in done.stderr
