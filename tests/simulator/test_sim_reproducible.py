"""Same seed, same picture and byte-identical truth; another seed, another scene."""

import numpy as np
import pytest

from tablecam.simulator import GAMES, render_random
from tablecam.simulator.files import truth_json


@pytest.mark.parametrize("game", GAMES)
def test_seed_reproduces_truth_bytes_and_image(game):
    a = render_random(game, 21, (640, 480))
    b = render_random(game, 21, (640, 480))
    assert truth_json(a.truth).encode() == truth_json(b.truth).encode()
    assert np.array_equal(a.image, b.image)
    c = render_random(game, 22, (640, 480))
    assert truth_json(c.truth) != truth_json(a.truth)


def test_truth_is_an_observation_with_pixels_and_camera():
    t = render_random("micropul", 3, (640, 480), nuisances=False).truth
    for key in ("game", "frame_id", "table_mm", "ms", "markers_seen", "warnings", "tile_mm", "tiles", "stones"):
        assert key in t
    assert t["table_mm"] == [800.0, 500.0]
    for tile in t["tiles"]:
        assert tile["rotation"] in (0, 90, 180, 270)
        assert set(tile) >= {"center_mm", "quadrants", "big", "catalyst", "face_down", "index"}
    assert {s["colour"] for s in t["stones"]} <= {"red", "blue"}
    assert set(t["pixels"]["markers"]) == {"0", "1", "2", "3"}
    assert len(t["pixels"]["tiles"]) == len(t["tiles"])
    assert set(t["camera"]) >= {"K", "dist", "rvec", "tvec", "resolution"}
