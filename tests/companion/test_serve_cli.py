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


def test_the_server_closes_and_frees_its_port_even_when_waitress_lost_its_wake_up_pipe(tmp_path):
    # Seen once in CI under heavy load: waitress's loop had closed its own trigger pipe before
    # close(), and pulling it raised "Bad file descriptor" (or could write into a reused fd).
    import socket
    import threading

    from tablecam.companion.serve import Server, ServeConfig

    srv = Server(ServeConfig(host="127.0.0.1", port=0, camera="demo", data_dir=tmp_path, game="micropul",
                             demo_fps=None))
    port = srv.start()
    gone = threading.Event()
    srv._wsgi.trigger.pull_trigger(lambda: (srv._wsgi.trigger.close(), gone.set()))
    assert gone.wait(5)
    srv.close()  # must not raise
    with socket.socket() as sock:  # the port is free again
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
