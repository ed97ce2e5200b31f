"""The PIN that guards every change (viewing stays open on the local network).

Generated on first run and kept in the data directory (readable by the service user only);
printed on the Pi's console and shown on the page until it has been used once, so whoever
sets the table up can read it without a keyboard on the Pi.
"""

from __future__ import annotations

import hmac
import os
import secrets
import threading
import time
from dataclasses import dataclass
from pathlib import Path

PIN_DIGITS = 6
# After this many wrong PINs in a row, answers slow down: guessing 10^6 PINs becomes hopeless.
FREE_TRIES = 5
PAUSE_S = 2.0


@dataclass(frozen=True)
class Pin:
    value: str
    first_run: bool  # True until the PIN has been used once


def load_or_create(data_dir: Path) -> Pin:
    """The stored PIN, or a new random one written with mode 600."""
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / "pin"
    used = (data_dir / "pin.used").exists()
    if path.exists():
        value = path.read_text(encoding="utf-8").strip()
        if value.isdigit() and len(value) >= 4:
            return Pin(value, not used)
    value = f"{secrets.randbelow(10 ** PIN_DIGITS):0{PIN_DIGITS}d}"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(value + "\n")
    (data_dir / "pin.used").unlink(missing_ok=True)
    return Pin(value, True)


class Guard:
    """Checks PINs in constant time; slows down a run of wrong ones."""

    def __init__(self, pin: Pin, data_dir: Path) -> None:
        self._pin = pin.value
        self._first_run = pin.first_run
        self._data_dir = data_dir
        self._wrong = 0
        self._lock = threading.Lock()

    @property
    def first_run(self) -> bool:
        return self._first_run

    @property
    def pin(self) -> str:
        return self._pin

    def check(self, offered: object) -> bool:
        ok = isinstance(offered, str) and hmac.compare_digest(offered.strip().encode(), self._pin.encode())
        with self._lock:
            if ok:
                self._wrong = 0
                if self._first_run:
                    self._first_run = False
                    (self._data_dir / "pin.used").touch()
                return True
            self._wrong += 1
            wrong = self._wrong
        if wrong > FREE_TRIES:
            time.sleep(PAUSE_S)
        return False
