"""The Stixx page in a real browser: the sticks that may be taken drawn on the picture, and the
"I show my colour" tap with the PIN. The camera is stopped once it has located the table; the test
then lays the readings itself (recorded Observations through the hub: the test seam)."""

import tempfile
from pathlib import Path

import pytest

from tablecam.companion.serve import Server, ServeConfig

from games_helpers import recorded

pytestmark = pytest.mark.browser

from browser_helpers import ARGS, CHROMIUM, sync_api  # noqa: E402 (skips this module without chromium)

PLAYERS = [{"name": "Ann", "stone_colour": "black"}, {"name": "Bob", "stone_colour": "white"},
           {"name": "Cleo", "stone_colour": "pink"}]


@pytest.fixture()
def server(tmp_path):
    config = ServeConfig(host="127.0.0.1", port=0, camera="demo", data_dir=tmp_path, reader="truth", hold=1,
                         demo_fps=None, demo_frames_per_state=2, demo_resolution=(640, 480), threads=8)
    srv = Server(config)
    port = srv.start()
    yield srv, f"http://127.0.0.1:{port}/"
    srv.close()


def test_stixx_options_are_highlighted_and_a_reveal_is_a_tap(server):
    server, url = server
    hub = server.hub
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(url, wait_until="domcontentloaded")
        page.wait_for_function("window.TC && TC.state && TC.state.live && TC.state.live.size", timeout=30_000)
        server.loop.stop()  # the table is located; from here the test lays the pieces
        hub.new_game("stixx", PLAYERS, notify=False)
        for line in recorded("stixx")[1:4]:
            hub.observe(line)
        page.wait_for_selector("#stixx-options:has-text('0, 4, 8, 9, 13, 14')", timeout=10_000)
        assert page.locator("#overlay line.may-take").count() == 6
        assert page.locator("#overlay line.marker").count() == 1
        assert page.locator("#todo").inner_text() == "Cleo: take a stick touching the marker (1 this turn)."

        page.click("#btn-reveal")
        page.select_option("#dlg-stixx select.who", "0")
        page.select_option("#dlg-stixx select.colour", "blue")
        page.click("#btn-stixx-ok")
        page.fill("#pin-input", server.guard.pin)
        page.click("#btn-pin-ok")
        page.wait_for_selector("#banner:has-text('Ann shows blue and takes two sticks this turn')", timeout=10_000)
        assert "own colour 1" in page.locator("#players .player").nth(0).inner_text()
        page.screenshot(path=str(Path(tempfile.gettempdir()) / "page_stixx.png"), full_page=True)
        page.click("#btn-lang")
        assert page.locator("#todo").inner_text().startswith("Ann : prenez un bâton")
        browser.close()

