"""Everything that makes a photo harder than a diagram, each a parameter with a realistic range."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from tablecam.errors import UserError

from .canvas import Light
from .textures import TABLE_KINDS


@dataclass(frozen=True)
class Nuisances:
    table: str = "plain"  # table top: wood, cloth or plain laminate
    exposure: float = 1.0  # overall brightness gain
    colour_cast: tuple[float, float, float] = (1.0, 1.0, 1.0)  # B, G, R gains (white balance off)
    uneven_light: float = 0.0  # brightness lost across the table, 0..1
    uneven_angle_deg: float = 0.0  # the direction the light falls off towards
    vignetting: float = 0.0  # brightness lost in the image corners, 0..1
    lamp_azimuth_deg: float = 225.0  # where the main light comes from (table frame)
    lamp_elevation_deg: float = 80.0
    shadow_strength: float = 0.3  # how dark the pieces' own shadows are
    shadow_softness_mm: float = 1.0
    cast_shadow: float = 0.0  # depth of a large soft shadow (a person leaning in, the lamp arm), 0..1
    cast_shadow_angle_deg: float = 0.0
    cast_shadow_offset_mm: float = 0.0
    glare: float = 0.0  # strength of the lamp's reflection on glossy pieces, 0..1
    glare_mm: tuple[float, float] = (400.0, 250.0)
    glare_radius_mm: float = 60.0
    blur_px: float = 0.0  # lens/focus blur, Gaussian sigma in pixels
    noise: float = 0.0  # sensor noise, standard deviation in grey levels
    jpeg_quality: int | None = None  # None: no compression artefacts
    props: int = 0  # objects left beside the play area (mug, phone, pencil, score pad)
    hand: bool = False  # a hand partly over the board

    def __post_init__(self) -> None:
        if self.table not in TABLE_KINDS:
            raise UserError(f"the table must be one of {', '.join(TABLE_KINDS)}, not {self.table!r}.")
        for name, lo, hi in (("exposure", 0.2, 3.0), ("uneven_light", 0, 1), ("vignetting", 0, 1),
                             ("shadow_strength", 0, 1), ("cast_shadow", 0, 1), ("glare", 0, 1),
                             ("blur_px", 0, 20), ("noise", 0, 60), ("lamp_elevation_deg", 10, 90)):
            v = getattr(self, name)
            if not lo <= v <= hi:
                raise UserError(f"the nuisance {name} must be between {lo} and {hi}, not {v}.")
        if self.jpeg_quality is not None and not 5 <= self.jpeg_quality <= 100:
            raise UserError(f"the JPEG quality must be 5 to 100, not {self.jpeg_quality}.")
        if not 0 <= self.props <= 4:
            raise UserError(f"there can be 0 to 4 objects beside the play area, not {self.props}.")

    @property
    def light(self) -> Light:
        return Light(self.lamp_azimuth_deg, self.lamp_elevation_deg, self.shadow_strength, self.shadow_softness_mm)

    def as_dict(self) -> dict:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in dataclasses.asdict(self).items()}

    @classmethod
    def none(cls) -> "Nuisances":
        """A clean, evenly lit shot: the pieces' own soft shadows only."""
        return cls()

    @classmethod
    def random(cls, rng: np.random.Generator, hand: bool | None = None) -> "Nuisances":
        """Each nuisance drawn from the range seen under home lighting with a Pi camera."""
        warm = float(rng.uniform(-1, 1))  # tungsten (warm) to daylight/LED (cool) white balance error
        cast = (1.0 - 0.12 * warm + rng.normal(0, 0.02), 1.0 + rng.normal(0, 0.03), 1.0 + 0.12 * warm + rng.normal(0, 0.02))
        return cls(
            table=TABLE_KINDS[int(rng.integers(len(TABLE_KINDS)))],
            exposure=float(rng.uniform(0.75, 1.2)),
            colour_cast=tuple(float(c) for c in cast),
            uneven_light=float(rng.uniform(0.0, 0.4)),
            uneven_angle_deg=float(rng.uniform(0, 360)),
            vignetting=float(rng.uniform(0.05, 0.4)),
            lamp_azimuth_deg=float(rng.uniform(0, 360)),
            lamp_elevation_deg=float(rng.uniform(45, 85)),
            shadow_strength=float(rng.uniform(0.25, 0.6)),
            shadow_softness_mm=float(rng.uniform(0.8, 4.0)),
            cast_shadow=float(rng.uniform(0.0, 0.45)) if rng.uniform() < 0.5 else 0.0,
            cast_shadow_angle_deg=float(rng.uniform(0, 360)),
            cast_shadow_offset_mm=float(rng.uniform(150, 400)),
            glare=float(rng.uniform(0.2, 0.9)) if rng.uniform() < 0.6 else 0.0,
            glare_mm=(float(rng.uniform(50, 750)), float(rng.uniform(50, 450))),
            glare_radius_mm=float(rng.uniform(30, 110)),
            blur_px=float(rng.uniform(0.3, 1.5)),
            noise=float(rng.uniform(1.0, 5.0)),
            jpeg_quality=int(rng.integers(60, 96)),
            props=int(rng.integers(0, 4)),
            hand=bool(rng.uniform() < 0.3) if hand is None else hand,
        )
