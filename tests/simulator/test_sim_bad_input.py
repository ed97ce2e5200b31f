"""Bad parameters end in one clear sentence (UserError), never a traceback."""

import numpy as np
import pytest

from tablecam.errors import UserError
from tablecam.simulator import CameraModel, Nuisances, parse_resolution, random_state, render, sequence


def _one_sentence(exc: pytest.ExceptionInfo) -> str:
    text = str(exc.value)
    assert text.endswith(".") and "\n" not in text and text.count(". ") == 0, text
    return text


W = {"ul": "W", "ur": ".", "ll": ".", "lr": "."}


@pytest.mark.parametrize("state, words", [
    ({"game": "chess"}, "unknown game"),
    ({"game": "micropul", "tiles": [{"center_mm": [5, 5], "quadrants": W}]}, "covers marker 0"),
    ({"game": "micropul", "tiles": [{"center_mm": [100, 100], "quadrants": W},
                                    {"center_mm": [110, 100], "quadrants": W}]}, "overlap"),
    ({"game": "micropul", "tiles": [{"center_mm": [2000, 100], "quadrants": W}]}, "off the table"),
    ({"game": "micropul", "tiles": [{"center_mm": [100, 100], "quadrants": {"ul": "Q", "ur": ".", "ll": ".", "lr": "."}}]},
     "unknown micropul symbol"),
    ({"game": "micropul", "stones": [{"center_mm": [100, 100], "colour": "mauve"}]}, "colour"),
    ({"game": "stixx", "board": {"center_mm": [400, 250], "rotation": 0},
      "sticks": [{"colour": "red", "center_mm": [0, 0], "slot": 42}]}, "slot"),
    ({"game": "stixx", "board": {"center_mm": [400, 250], "rotation": 0},
      "sticks": [{"colour": "red", "slot": 3}, {"colour": "blue", "slot": 3}]}, "groove 3"),
    ({"game": "enigmo", "shutters": [False] * 9}, "10 true/false"),
    ({"game": "enigmo", "shutters": [False] * 10, "dice": [{"value": 7, "center_mm": [400, 400]}]}, "1 to 6"),
    ({"game": "enix", "hexes": [{"energy": "nuclear", "center_mm": [300, 250], "rotation": 0}]}, "energy"),
    ({"game": "enix", "hexes": [{"energy": "solar", "center_mm": [300, 250]},
                                {"energy": "wind", "center_mm": [350, 250]}]}, "overlap"),
])
def test_bad_state_is_one_sentence(state, words):
    with pytest.raises(UserError) as exc:
        render(state, CameraModel.default((320, 240)))
    assert words in _one_sentence(exc)


def test_bad_parameters_are_one_sentence():
    for call in (lambda: parse_resolution("big"), lambda: parse_resolution("20x20"),
                 lambda: CameraModel(tilt_deg=80), lambda: Nuisances(table="glass"),
                 lambda: Nuisances(jpeg_quality=0), lambda: random_state("go", np.random.default_rng(0)),
                 lambda: next(sequence("go", 0))):
        with pytest.raises(UserError) as exc:
            call()
        _one_sentence(exc)
