"""A board as the Observation a perfect camera would report (ARCHITECTURE.md).

Used to record games for tests and to give the simulator its ground truth, so both
speak exactly the format the detector prints.
"""

from __future__ import annotations

from .board import QUAD_POS, Board, Stone
from .grid import Grid


def observation(board: Board, stones: tuple[Stone, ...], grid: Grid, frame_id: int,
                extra_tiles: dict | None = None) -> dict:
    """The micropul Observation of `board` laid on the table as `grid` says.

    `extra_tiles` maps cells to Placed tiles lying on the table but not on the board
    (an illegal tile a player has not yet taken back).
    """
    tiles = []
    for cell, placed in sorted({**board.cells, **(extra_tiles or {})}.items()):
        x, y = grid.centre_mm(cell)
        tile = {"center_mm": [round(x, 2), round(y, 2)], "rotation": placed.rotation,
                **placed.face.as_dict(), "face_down": False, "index": placed.tile_index}
        tiles.append(tile)
    out_stones = []
    for stone in stones:
        dx, dy = QUAD_POS[stone.quadrant]
        # The middle of the quadrant: a quarter tile from the cell centre on each axis.
        u = stone.cell[0] + (dx - 0.5) / 2
        v = stone.cell[1] + (dy - 0.5) / 2
        x, y = _units_to_mm(grid, u, v)
        out_stones.append({"center_mm": [round(x, 2), round(y, 2)], "colour": stone.colour})
    return {"game": "micropul", "frame_id": frame_id, "table_mm": [800, 500], "ms": 0.0,
            "markers_seen": 4, "warnings": [], "tile_mm": grid.tile_mm, "tiles": tiles,
            "stones": out_stones}


def _units_to_mm(grid: Grid, u: float, v: float) -> tuple[float, float]:
    # centre_mm takes whole cells; a fractional cell is the same linear map.
    return grid.centre_mm((u, v))  # type: ignore[arg-type]
