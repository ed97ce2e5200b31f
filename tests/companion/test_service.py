"""The systemd unit, the install script and the notify protocol the unit relies on."""

import configparser
import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from tablecam.companion import sdnotify

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "systemd" / "tablecam.service"
INSTALL = ROOT / "systemd" / "install.sh"


def unit():
    parser = configparser.ConfigParser(strict=False, interpolation=None, delimiters=("=",))
    parser.optionxform = str  # systemd keys are case-sensitive
    # Repeated keys (DeviceAllow=, Environment=) are legal in systemd: keep every value.
    values: dict[str, dict[str, list[str]]] = {}
    section = None
    for raw in UNIT.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            values.setdefault(section, {})
            continue
        key, _, value = line.partition("=")
        values[section].setdefault(key.strip(), []).append(value.strip())
    parser.read_string(UNIT.read_text())  # and it is a well-formed INI file
    return values


def test_the_unit_is_a_notify_service_with_a_watchdog_restarted_on_failure():
    service = unit()["Service"]
    assert service["Type"] == ["notify"]
    assert int(service["WatchdogSec"][0]) >= 10
    assert service["Restart"] == ["on-failure"]
    assert service["User"] == ["tablecam"] and "video" in service["SupplementaryGroups"][0].split()
    assert service["StateDirectory"] == ["tablecam"]
    assert "TABLECAM_DATA=/var/lib/tablecam" in service["Environment"]
    assert service["ExecStart"][0].startswith("/opt/tablecam/.venv/bin/tablecam serve")
    assert unit()["Install"]["WantedBy"] == ["multi-user.target"]


def test_hardening_keeps_the_camera_devices_usable():
    service = unit()["Service"]
    assert service["ProtectSystem"] == ["strict"] and service["NoNewPrivileges"] == ["yes"]
    assert service.get("PrivateDevices", ["no"]) == ["no"]  # a private /dev would hide the camera
    allowed = " ".join(service["DeviceAllow"])
    for device in ("char-video4linux", "char-media", "/dev/dma_heap/"):
        assert device in allowed
    assert service["DevicePolicy"] == ["closed"]


def test_the_install_script_sets_up_what_the_unit_needs():
    text = INSTALL.read_text()
    for needed in ("python3-picamera2", "useradd --system", "video", "/opt/tablecam", "bash setup.sh",
                   "systemctl enable", "daemon-reload"):
        assert needed in text, needed
    assert text.startswith("#!/usr/bin/env bash") and "set -euo pipefail" in text


@pytest.mark.skipif(shutil.which("shellcheck") is None,
                    reason="shellcheck is not installed here (apt install shellcheck; CI installs it)")
def test_shellcheck_finds_nothing_in_the_install_and_setup_scripts():
    result = subprocess.run(["shellcheck", str(INSTALL), str(ROOT / "setup.sh")], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_sd_notify_sends_one_datagram_to_the_socket(tmp_path):
    path = str(tmp_path / "notify")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(path)
    try:
        assert sdnotify.notify("READY=1", {"NOTIFY_SOCKET": path})
        assert server.recv(100) == b"READY=1"
    finally:
        server.close()
    assert not sdnotify.notify("READY=1", {})  # not under systemd: nothing to do


def test_watchdog_interval_is_half_the_watchdog_time():
    assert sdnotify.watchdog_interval({"WATCHDOG_USEC": "30000000"}) == 15.0
    assert sdnotify.watchdog_interval({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": str(os.getpid())}) == 15.0
    assert sdnotify.watchdog_interval({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"}) is None
    assert sdnotify.watchdog_interval({}) is None
