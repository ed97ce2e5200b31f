"""What every browser test needs: Debian's chromium driven by Playwright (no browser download works
here), headless on a machine with no screen or GPU. Importing this skips the importing test module
when chromium or Playwright is missing."""

import shutil
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]

if not Path(CHROMIUM).exists():
    pytest.skip("Debian's chromium is not installed (apt install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")
