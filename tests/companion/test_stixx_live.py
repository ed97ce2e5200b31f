"""Stixx followed live through the companion's own frame path, as `tablecam serve --game stixx` runs it
on the demo camera: demo frames (a hand reaching over the board between stable states) ->
DetectorReader (the Stixx recogniser) -> the state tracker -> the game session, in the Hub the page
reads.

The same frames read by the simulator's ground truth through an identical Hub give the history the
players should see; the camera's history must be the same, entry for entry: no take missed, none
invented, no false "illegal" (a hand over the board is waited out, never taken for a move).
Part of a game (the first takes) keeps this short.
"""

from __future__ import annotations

import pytest

from tablecam.companion.live import Hub
from tablecam.companion.readers import DetectorReader, SimulatorTruthReader
from tablecam.companion.sources import DemoSource
from tablecam.companion.store import Store

FRAMES = 30  # the full board, then two takes with the hand reaching in between
HOLD = 3  # as `tablecam serve` holds a reading before taking it
PLAYERS = [{"name": n, "stone_colour": c} for n, c in (("Ann", "black"), ("Bob", "white"), ("Cleo", "pink"))]


def _history(hub: Hub) -> list[tuple[str, str]]:
    return [(e["level"], e["text"]["en"]) for e in hub.history if e.get("kind") != "new_game"]


@pytest.fixture(scope="module")
def histories(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("stixx_live")
    source = DemoSource(seed=2, resolution=(2028, 1520), fps=None, game="stixx")
    source.open()
    pipelines = {"truth": (SimulatorTruthReader(), Hub(Store(tmp / "truth.sqlite3"), hold=HOLD)),
                 "camera": (DetectorReader("stixx"), Hub(Store(tmp / "camera.sqlite3"), hold=HOLD))}
    for _, hub in pipelines.values():
        hub.new_game("stixx", PLAYERS, notify=False)
    hands = 0
    for _ in range(FRAMES):
        frame = source.read()
        hands += "a hand is over the table" in frame.truth["warnings"]
        for reader, hub in pipelines.values():
            hub.observe(reader.read(frame))
    out = {name: _history(hub) for name, (_, hub) in pipelines.items()}
    for _, hub in pipelines.values():
        hub.close()
    return out, hands


def test_the_demo_game_has_takes_to_follow(histories):
    history, hands = histories
    texts = [t for _, t in history["truth"]]
    assert texts[0].startswith("Board ready")
    assert sum(" took the " in t for t in texts) >= 2
    assert hands >= 10  # the hand is over the board for a good part of the frames


def test_the_camera_shows_the_players_the_same_history_as_the_truth(histories):
    history, _ = histories
    assert history["camera"] == history["truth"]
    assert all(level != "warning" for level, _ in history["camera"])  # no false "illegal" on a legal game
