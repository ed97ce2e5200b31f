"""`tablecam serve` mistakes end in one sentence and status 2 before anything starts."""

import subprocess
import sys
from pathlib import Path

import pytest

TABLECAM = str(Path(sys.executable).with_name("tablecam"))


@pytest.mark.parametrize("args, words", [
    (["--camera", "usb:x"], "usb:N with N a number"),
    (["--camera", "/no/such/camera"], "unknown camera"),
    (["--game", "chess"], "unknown game 'chess'"),
    (["--camera", "demo", "--port", "70000"], "port must be 0 to 65535"),
    (["--camera", "demo", "--hold", "0"], "--hold must be 1 to 100"),
    (["--camera", "demo", "--fps", "0"], "--fps must be 0.1 to 60"),
])
def test_serve_mistakes_are_one_sentence(tmp_path, args, words):
    result = subprocess.run([TABLECAM, "serve", "--data-dir", str(tmp_path), *args],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("tablecam: ") and words in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
