"""Enigmo's shutter row marked on the page in a real browser (Debian's chromium through Playwright).

The demo camera plays Enigmo and the real recogniser reads it (not the truth seam): until the row
is marked the page asks for it; the test taps the row's four corners on the live picture where
the demo's box is, gives the PIN, and the page then shows the shutters read from the picture.
"""

from __future__ import annotations


import pytest

from tablecam.calibration.settings import load_settings
from tablecam.companion.serve import Server, ServeConfig

pytestmark = pytest.mark.browser

from browser_helpers import ARGS, CHROMIUM, sync_api  # noqa: E402 (skips this module without chromium)

PLAYERS = [{"name": "Ann", "stone_colour": "red"}, {"name": "Bob", "stone_colour": "blue"}]


@pytest.fixture()
def server(tmp_path):
    # the shutters are 25 mm wide: a 1014x760 frame reads them (the dice would need the full 2028x1520)
    config = ServeConfig(host="127.0.0.1", port=0, camera="demo", data_dir=tmp_path, game="enigmo", hold=1,
                         demo_fps=None, demo_frames_per_state=2, demo_resolution=(1014, 760), threads=8)
    srv = Server(config)
    port = srv.start()
    srv.hub.new_game("enigmo", PLAYERS)
    yield srv, f"http://127.0.0.1:{port}/", tmp_path
    srv.close()


def test_the_players_tap_the_row_and_the_page_shows_the_shutters_read(server):
    srv, url, data_dir = server
    hub = srv.hub
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(url, wait_until="domcontentloaded")
        page.wait_for_selector("#enigmo-row-ask", timeout=30_000)
        assert "four corners" in page.locator("#enigmo-row-ask").inner_text()

        frame = None
        for _ in range(30):  # the frame loop takes most frames: wait for one of our own
            frame = srv.camera.next_frame(timeout=2)
            if frame is not None:
                break
        assert frame is not None and frame.truth["shutter_row_mm"]  # the demo's box: where players would tap
        taps = hub.project(frame.truth["shutter_row_mm"])
        page.click("#btn-mark-row")
        box = page.locator("#live").bounding_box()
        for n, (fx, fy) in enumerate(taps, start=1):
            step = page.locator("#enigmo-row-step").inner_text()
            assert f"({n} of 4)" in step
            page.mouse.click(box["x"] + fx * box["width"], box["y"] + fy * box["height"])
            if n < 4:
                assert page.locator("#overlay circle.row-corner").count() == n
        page.fill("#pin-input", srv.guard.pin)
        page.click("#btn-pin-ok")
        page.wait_for_selector("#enigmo-row-saved", timeout=10_000)

        saved = load_settings(data_dir).enigmo_shutter_row_mm
        assert max(abs(a - b) for s, t in zip(saved, frame.truth["shutter_row_mm"]) for a, b in zip(s, t)) < 3.0
        # from now on the reader reads the shutters: the page stops asking, and shows shutters
        # opened on the table (the demo's game goes on: a roll opens some)
        page.wait_for_function("TC.state && TC.state.enigmo && TC.state.enigmo.row_unmarked === false",
                               timeout=30_000)
        page.wait_for_selector("#enigmo-shutters .shutter.open", timeout=60_000)
        assert page.locator("#enigmo-row-ask").count() == 0
        last = hub.session.last_stable
        assert None not in last["shutters"]
        shown = [page.locator(f"#enigmo-shutters .shutter[data-label-no='{k}']").get_attribute("class")
                 for k in range(1, 11)]
        assert [("open" in c.split()) for c in shown] == hub.state()["enigmo"]["shutters"]
        browser.close()
