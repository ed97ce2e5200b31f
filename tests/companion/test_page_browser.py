"""The tablet page in a real browser (Debian's chromium through Playwright) on the demo camera.

One server for the module (restarted once, to show that a game survives it), running the
product's path: the demo camera renders each frame and the real micropul recogniser
(`tablecam.vision.micropul` through `DetectorReader`) reads it; nothing is injected. For CI time
only, the demo renders at 1640x1232 (a real camera mode the recogniser supports) as fast as it
can, and holds each state for 3 frames (the tracker needs 2 in a row).
"""

import dataclasses
import itertools
import os
import tempfile
import time
from pathlib import Path

import pytest

from tablecam.companion.serve import Server, ServeConfig

pytestmark = pytest.mark.browser
# Screenshots go to docs/ only when asked (TABLECAM_SHOTS=docs): a test run must not dirty the checkout.
SHOTS = Path(os.environ.get("TABLECAM_SHOTS") or tempfile.gettempdir())

RESOLUTION = (1640, 1232)
HOLD, FRAMES_PER_STATE = 2, 3
HAND_FRAMES = 4  # a quicker hand than the demo's 8 frames: the whole game is ~320 frames instead of ~500

from browser_helpers import ARGS, CHROMIUM, sync_api  # noqa: E402 (skips this module without chromium)


class Running:
    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.server: Server | None = None
        self.url = ""
        self.port = 0  # a free port at first, then the same one (the PIN is kept per address)
        self.start()

    def start(self) -> None:
        config = ServeConfig(host="127.0.0.1", port=self.port, camera="demo", data_dir=self.data_dir,
                             reader="detector", hold=HOLD, demo_fps=None, demo_frames_per_state=FRAMES_PER_STATE,
                             demo_hand_frames=HAND_FRAMES,
                             demo_resolution=RESOLUTION, ranking_pause_s=600.0, threads=16)
        self.server = Server(config)
        self.port = self.server.start()
        self.url = f"http://127.0.0.1:{self.port}/"

    def restart(self) -> None:
        self.server.close()
        self.start()

    @property
    def hub(self):
        return self.server.hub


@pytest.fixture(scope="module")
def running(tmp_path_factory):
    run = Running(tmp_path_factory.mktemp("tablecam-data"))
    yield run
    run.server.close()


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture()
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-GB")
    pg = context.new_page()
    yield pg
    context.close()


def hold_the_demo_still(server) -> None:
    """From now on the demo camera shows one picture: the first of the next game it starts (or the
    next one it renders, when no new game is started). The counts test corrects a reserve and reads it
    back; with the demo playing on, a catalyst's draw could change that reserve under the test."""
    source = server.camera.source
    render = source.read
    held: list = []
    numbers = itertools.count(1_000_000)

    def still():
        if source._restart or not held:
            held[:] = [render()]
        return dataclasses.replace(held[0], number=next(numbers), game_start=False)

    source.read = still


def open_page(page, running):
    page.goto(running.url, wait_until="domcontentloaded")
    page.wait_for_function("window.TC && window.TC.version > 0")


def new_game(page, running, names=("Ann", "Bob")):
    page.click("#btn-new")
    rows = page.locator("#new-players .player-row")
    for i, name in enumerate(names):
        rows.nth(i).locator(".name").fill(name)
    page.click("#btn-start")
    pin_box = page.locator("#dlg-pin")
    if pin_box.is_visible():
        page.fill("#pin-input", running.server.guard.pin)
        page.click("#btn-pin-ok")
    page.wait_for_function("document.querySelector('#players .who') && "
                           f"document.querySelector('#players .who').textContent === {names[0]!r}")
    # The names come by the event stream, and may show before the page has the start's own answer,
    # on which it stores the PIN: wait for that too, or a test that clears the PIN next races it.
    page.wait_for_function("localStorage.getItem('tablecam.pin') !== null")


def test_the_recogniser_follows_a_whole_demo_game_with_its_illegal_tile_to_the_final_ranking(page, running):
    """The product end to end: first run, a new game, every move read from the rendered pictures,
    the illegal tile the demo lays (and takes back) in its banner, then the final ranking."""
    open_page(page, running)
    pin = page.locator("#first-run-pin").inner_text()
    assert pin == running.server.guard.pin
    new_game(page, running)  # the stored PIN is asked for once
    assert page.locator("#first-run").is_hidden()
    page.wait_for_selector("#todo:has-text('your turn')", timeout=60_000)
    page.wait_for_selector("#overlay polygon.tile", state="attached", timeout=60_000)

    def progress() -> str:
        return page.evaluate("JSON.stringify({live: TC.state.live, over: TC.state.over, core: TC.state.core_left, "
                             "banner: TC.state.banner, todo: TC.state.todo, h: TC.state.history.slice(0, 6)})")

    try:
        banner = page.wait_for_selector("#banner.warning:has-text('Illegal placement')", timeout=400_000)
    except Exception:
        print(progress())
        raise
    assert "Take the tile back" in banner.inner_text()
    assert page.locator("#overlay polygon.tile.illegal").count() == 1
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "page_illegal.png"), full_page=True)
    page.click("#btn-lang")
    assert page.locator("#banner").inner_text().startswith("Pose illégale")
    page.click("#btn-lang")
    page.wait_for_function("TC.state.history.some(h => h.text.en.startsWith('The illegal tile was taken back'))",
                           timeout=120_000)
    try:
        page.wait_for_selector("#ranking:not([hidden])", timeout=600_000)
    except Exception:
        print(progress())
        raise
    ranking = page.locator("#ranking-list li").all_inner_texts()
    assert len(ranking) == 2 and {r.split()[0] for r in ranking} == {"Ann", "Bob"}
    scores = [int(r.split()[-1]) for r in ranking]
    assert scores == sorted(scores, reverse=True)
    assert page.locator("#banner").inner_text().startswith("The last tile of the core was drawn. Game over.")
    assert page.locator("#core").inner_text().endswith(": 0")
    # Followed move by move: the players were never asked to check a reading the rules could not explain.
    assert not page.evaluate("TC.state.history.some(h => h.level === 'question')"), progress()
    page.screenshot(path=str(SHOTS / "page_final.png"), full_page=True)


def test_a_correction_with_the_pin_survives_a_server_restart_and_can_be_undone(page, running):
    hold_the_demo_still(running.server)
    open_page(page, running)
    # The start's answer arrives late (a slow link): the players' names come first, by the event
    # stream. The PIN cleared below must not be stored again by that answer afterwards (new_game waits).
    page.evaluate("""() => { const f = window.fetch; window.fetch = async (...a) => { const r = await f(...a);
        if (String(a[0]).includes('/api/game')) await new Promise(ok => setTimeout(ok, 1500)); return r; }; }""")
    new_game(page, running, ("Eve", "Finn"))
    page.evaluate("localStorage.removeItem('tablecam.pin')")  # this tablet must give the PIN again
    page.click("#btn-counts")
    row = page.locator("#counts-rows .count-row").nth(1)
    row.locator(".reserve").fill("4")
    page.click("#btn-counts-save")
    page.locator("#pin-input").fill("999999" if running.server.guard.pin != "999999" else "111111")
    page.click("#btn-pin-ok")
    page.wait_for_selector("#pin-error:has-text('Wrong PIN.')")
    page.fill("#pin-input", running.server.guard.pin)
    page.click("#btn-pin-ok")
    page.wait_for_selector("#history li:has-text('Counts corrected for Finn')", state="attached")

    running.restart()
    hold_the_demo_still(running.server)
    open_page(page, running)
    finn = page.locator("#players .player").nth(1)
    assert "Reserve 4" in finn.inner_text()
    entry = page.locator("#history li", has_text="Counts corrected for Finn")
    assert entry.count() == 1
    page.click("details.history summary")
    entry.locator("button.undo").click()
    page.wait_for_selector("#history li.undone:has-text('Counts corrected for Finn')")
    assert "Reserve 0" in page.locator("#players .player").nth(1).inner_text()


def test_the_players_counts_show_when_the_games_script_arrives_after_the_first_state(page, running):
    """A tablet on a slow link may get the state before micropul's script: the players must still
    show their hand and reserve counts, not only their names and scores until the next change."""
    hold_the_demo_still(running.server)
    open_page(page, running)
    new_game(page, running, ("Gil", "Hana"))

    def late(route):
        time.sleep(0.8)  # the state (asked for by app.js) is answered well before this script
        route.continue_()

    page.route("**/static/games/micropul.js*", late)
    open_page(page, running)
    hana = page.locator("#players .player").nth(1)
    assert "Hana" in hana.inner_text() and "Reserve 0" in hana.inner_text()
