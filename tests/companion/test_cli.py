"""The `tablecam` command: every mistake ends in one sentence and status 2."""

import subprocess
import sys
from pathlib import Path

TABLECAM = str(Path(sys.executable).with_name("tablecam"))


def run(*args):
    return subprocess.run([TABLECAM, *args], capture_output=True, text=True, timeout=120)


def test_demo_narrates_a_whole_game_to_its_ranking():
    result = run("demo", "--seed", "0")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "micropul demo game 0: 69 actions."
    assert "Draw 1 tile into your reserve" in result.stdout
    assert lines[-1] == "Game over. Ranking: Player 1 (red) 17, Player 2 (blue) 7."


def test_usage_mistakes_are_one_sentence_with_status_2():
    for args in (["frobnicate"], ["replay"], ["demo", "--seed", "abc"], []):
        result = run(*args)
        assert result.returncode == 2, args
        assert "Traceback" not in result.stderr
        if args:
            assert len(result.stderr.strip().splitlines()) == 1, result.stderr
            assert result.stderr.startswith("tablecam: ")


def test_a_directory_instead_of_a_file(tmp_path):
    result = run("replay", "micropul", str(tmp_path))
    assert result.returncode == 2
    assert result.stderr.strip() == f"tablecam: {tmp_path} is a directory, not a file."
