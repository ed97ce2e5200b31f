"""Readers: the game's recogniser on a frame (the product path), the demo's truth (the test seam)."""

import pytest

from tablecam.companion.readers import DetectorReader, NoRecogniser, SimulatorTruthReader
from tablecam.companion.sources import DemoSource, Frame
from tablecam.errors import UserError


@pytest.fixture(scope="module")
def demo_frame():
    demo = DemoSource(seed=3, resolution=(1014, 760), frames_per_state=1, fps=None)
    demo.open()
    return demo.read()


def test_the_micropul_recogniser_reads_a_demo_frame(demo_frame):
    reader = DetectorReader("micropul")
    obs = reader.read(demo_frame)
    assert obs is not None and obs["game"] == "micropul" and obs["frame_id"] == demo_frame.number
    assert isinstance(obs["tiles"], list) and "ms" in obs


def test_a_game_without_a_recogniser_says_so():
    with pytest.raises(NoRecogniser, match="no recogniser for go"):
        DetectorReader("go")


def test_the_truth_seam_returns_only_the_observation(demo_frame):
    obs = SimulatorTruthReader().read(demo_frame)
    assert obs["tiles"] == demo_frame.truth["tiles"]
    assert "pixels" not in obs and "camera" not in obs
    with pytest.raises(UserError, match="needs the demo camera"):
        SimulatorTruthReader().read(Frame(demo_frame.image, 1))


def test_a_new_game_makes_the_recogniser_forget_the_last_games_pieces(demo_frame):
    from tablecam.companion.games.micropul import recogniser_state
    from tablecam.companion.readers import ReaderOfTheGame

    made = []

    def make(game):
        made.append(DetectorReader(game, remember=recogniser_state))
        return made[-1]

    reader = ReaderOfTheGame(lambda: "micropul", make)
    reader.read(demo_frame)
    reader.read(demo_frame)
    assert len(made) == 1  # kept from frame to frame
    remembered = made[0]._last
    assert remembered is not None and remembered["tiles"]
    reader.forget("micropul")  # from the page's thread: acted on at the next frame
    assert reader.read(demo_frame) is not None
    assert made[0]._last is None  # nothing of the old table is kept...
    assert len(made) == 2 and made[1] is not made[0]  # ...not even its table lock: a fresh recogniser
