"""ENIX followed live through the companion's own frame path, as `tablecam serve --game enix` runs it
on the demo camera: demo frames (a hand moving the pieces between stable states) -> DetectorReader
(the ENIX recogniser) -> the state tracker -> the game session, in the Hub the page reads.

The same frames read by the simulator's ground truth through an identical Hub give the history the
players should see; the camera's history must be the same, entry for entry: no event missed, none
invented (a hand over the layout or the cards is waited out, never taken for a move).
"""

from __future__ import annotations

import pytest

from tablecam.companion.live import Hub
from tablecam.companion.readers import DetectorReader, SimulatorTruthReader
from tablecam.companion.sources import DemoSource
from tablecam.companion.store import Store

FRAMES = 36  # the setup, the first reveal and the first walks, hands in between
HOLD = 3  # as `tablecam serve` holds a reading before taking it


def _history(hub: Hub) -> list[tuple[str, str]]:
    return [(e["level"], e["text"]["en"]) for e in hub.history if e.get("kind") != "new_game"]


@pytest.fixture(scope="module")
def histories(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("enix_live")
    source = DemoSource(seed=2, resolution=(2028, 1520), fps=None, game="enix")
    source.open()
    pipelines = {"truth": (SimulatorTruthReader(), Hub(Store(tmp / "truth.sqlite3"), hold=HOLD)),
                 "camera": (DetectorReader("enix"), Hub(Store(tmp / "camera.sqlite3"), hold=HOLD))}
    first = source.read()
    players = [{"name": f"P{n}", "stone_colour": p["colour"]} for n, p in enumerate(first.truth["pawns"])]
    for reader, hub in pipelines.values():
        hub.new_game("enix", players, notify=False)
        hub.observe(reader.read(first))
    for _ in range(FRAMES - 1):
        frame = source.read()
        for reader, hub in pipelines.values():
            hub.observe(reader.read(frame))
    out = {name: _history(hub) for name, (_, hub) in pipelines.items()}
    for _, hub in pipelines.values():
        hub.close()
    return out


def test_the_demo_game_has_moves_to_follow(histories):
    texts = [t for _, t in histories["truth"]]
    assert texts[0].startswith("Setup correct")
    assert any(t.startswith("Order of play") for t in texts)
    assert any("pawn walked" in t for t in texts)


def test_the_camera_shows_the_players_the_same_history_as_the_truth(histories):
    assert histories["camera"] == histories["truth"]
