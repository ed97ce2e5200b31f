"""Renders table scenes of any game state through a camera model, with ground truth.

    from tablecam.simulator import render, random_state, sequence, CameraModel, Nuisances
    state = random_state("micropul", np.random.default_rng(1))
    shot = render(state, CameraModel.default(), Nuisances.none(), seed=1)
    shot.image   # BGR uint8, 2028x1520
    shot.truth   # the Observation a perfect detector prints + "pixels", "camera", "scene"
"""

from .camera import RESOLUTIONS, CameraModel, parse_resolution
from .nuisances import Nuisances
from .render import random_state, render, render_random
from .scene import GAMES, Render
from .sequence import Frame, sequence

__all__ = ["CameraModel", "Frame", "GAMES", "Nuisances", "RESOLUTIONS", "Render", "parse_resolution",
           "random_state", "render", "render_random", "sequence"]
