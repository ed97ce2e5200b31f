"""systemd's notify protocol (Type=notify, WatchdogSec) in a few lines: one datagram per message.

Without $NOTIFY_SOCKET (not started by systemd) every call does nothing.
"""

from __future__ import annotations

import os
import socket


def notify(message: str, environ: dict | None = None) -> bool:
    """Sends e.g. "READY=1", "WATCHDOG=1" or "STATUS=..."; True when systemd was told."""
    address = (environ if environ is not None else os.environ).get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):  # an abstract socket: the name starts with a NUL byte
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(address)
            sock.sendall(message.encode())
        return True
    except OSError:
        return False


def watchdog_interval(environ: dict | None = None) -> float | None:
    """Seconds between WATCHDOG=1 pings (half of WatchdogSec), or None when no watchdog is asked for."""
    env = environ if environ is not None else os.environ
    usec = env.get("WATCHDOG_USEC", "")
    pid = env.get("WATCHDOG_PID", "")
    if not usec.isdigit() or int(usec) <= 0 or (pid and pid != str(os.getpid())):
        return None
    return int(usec) / 2e6
