"""Remakes the scripted game records in this folder: `python tests/data/replay/compose.py`.

The records are written by hand as scripts of table states (below), placed on the table
at an angle, and given a few millimetres / degrees of deterministic noise, the way a
detector would report them. They are NOT camera recordings; the expected events in
tests/rules/test_replay_cli.py were worked out by hand from these scripts.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from tablecam.rules.enix.lattice import Lattice
from tablecam.rules.stixx.basic import COLOURS
from tablecam.rules.stixx.board import BoardPose

HERE = Path(__file__).parent


def write(name: str, lines: list[dict]) -> None:
    (HERE / name).write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


# ---------------------------------------------------------------- ENIX

def enix_lines() -> list[dict]:
    noise = random.Random(7)
    lattice = Lattice((390.0, 250.0), 17.0)
    seats = {"red": (90.0, 420.0), "blue": (710.0, 420.0), "green": (710.0, 80.0)}
    tiles = {"solar": (0, 0), "water": (1, 0), "geothermal": (0, 1), "waves": (-1, 1), "wind": (-1, 0),
             "biomass": (0, -1)}
    turns = {e: 0 for e in tiles}
    pawns = {"red": "solar", "blue": "solar", "green": "solar"}
    cap: list[str | None] = [None]
    cards: dict[str, list[tuple[str, int | None]]] = {p: [] for p in seats}
    shift = [0.0, 0.0]
    frame = [0]

    def jitter(p, mm=2.0):
        return [round(p[0] + shift[0] + noise.uniform(-mm, mm), 1), round(p[1] + shift[1] + noise.uniform(-mm, mm), 1)]

    def observe() -> dict:
        frame[0] += 1
        hexes = [{"energy": e, "center_mm": jitter(lattice.centre(c)),
                  "rotation": round((lattice.rotation(turns[e]) + noise.uniform(-2, 2)) % 360, 1)}
                 for e, c in tiles.items()]
        on: dict[str, list[str]] = {}
        for colour, e in pawns.items():
            on.setdefault(e, []).append(colour)
        seen_pawns = []
        for e, colours in on.items():
            cx, cy = lattice.centre(tiles[e])
            for n, colour in enumerate(colours):
                seen_pawns.append({"colour": colour, "center_mm": jitter((cx + 13 * n - 13, cy - 5 + 8 * (n % 2)))})
        cap_seen = None
        if cap[0]:
            cx, cy = lattice.centre(tiles[cap[0]])
            cap_seen = {"center_mm": jitter((cx, cy + 28))}
        seen_cards = [{"energy": e, "value": v, "center_mm": jitter((seats[p][0] + 30 * n, seats[p][1]), 3),
                       "face_up": True} for p, laid in cards.items() for n, (e, v) in enumerate(laid)]
        return {"game": "enix", "frame_id": frame[0], "table_mm": [800, 500], "ms": 41.0, "markers_seen": 4,
                "warnings": [], "hexes": hexes, "pawns": seen_pawns, "cap": cap_seen, "cards": seen_cards}

    lines = [{"players": [{"colour": p, "seat_mm": list(s)} for p, s in seats.items()]}]
    lines.append(observe())                                   # 1 setup
    cards.update(red=[("wind", 5)], blue=[("water", 5)], green=[("solar", 2)])
    lines.append(observe())                                   # 2 reveal: red and blue tie
    cards["red"].append(("geothermal", 3))
    cards["blue"].append(("waves", -4))
    lines.append(observe())                                   # 3 battle: red 8, blue 1, green 2
    pawns["red"] = "water"
    lines.append(observe())                                   # 4 red walks solar → water (4 points)
    turns["wind"] = 2
    lines.append(observe())                                   # 5 wind turned 120 degrees
    pawns["blue"] = "geothermal"
    lines.append(observe())                                   # 6 blue walks to geothermal: needs 2, has 1
    tiles["biomass"] = (2, 0)
    lines.append(observe())                                   # 7 biomass moved beyond water: legal
    tiles["water"] = (1, -1)
    lines.append(observe())                                   # 8 water moved: biomass cut off (illegal)
    tiles["water"] = (1, 1)
    lines.append(observe())                                   # 9 water moved where it reconnects: legal
    cap[0] = "geothermal"
    lines.append(observe())                                   # 10 cap on geothermal (blue stands there)
    pawns["green"] = "geothermal"
    lines.append(observe())                                   # 11 green walks into geothermal: capped
    turns["geothermal"], turns["solar"] = 1, 5
    lines.append(observe())                                   # 12 two tiles turned at once: unexplained
    shift[:] = [25.0, -12.0]
    lines.append(observe())                                   # 13 whole layout bumped: nothing to say
    for p in cards:
        cards[p] = []
    lines.append(observe())                                   # 14 cards cleared
    lines.append({"end": "red"})
    cards.update(red=[("solar", 9), ("water", 7), ("geothermal", 3), ("waves", 2), ("wind", 1), ("biomass", 1)],
                 blue=[("solar", 9), ("wind", 9), ("water", 8), ("waves", 7)],
                 green=[("waves", 9), ("geothermal", 9), ("solar", 9), ("wind", 9), ("water", 9), ("biomass", 1),
                        ("enix", None)])
    lines.append(observe())                                   # 15 hands laid out
    return lines


# ---------------------------------------------------------------- Stixx (basic game)

def stixx_colour(slot: int) -> str:
    return COLOURS[(slot * 5) % 6]  # 7 sticks of each colour


def stixx_lines() -> list[dict]:
    noise = random.Random(11)
    reference = BoardPose((420.0, 260.0), 59.2)
    nudged = BoardPose((421.0, 259.0), 60.6)  # the board nudged: the detector now reports 0.6 degrees
    sticks = {s: stixx_colour(s) for s in range(42)}
    marker: list[int | None] = [None]
    frame = [0]

    def observe(physical: BoardPose, reported: float, with_slots: bool = True) -> dict:
        frame[0] += 1
        detector = BoardPose(physical.centre, reported)
        seen = []
        for slot, colour in list(sticks.items()) + ([(marker[0], "grey")] if marker[0] is not None else []):
            x, y = physical.slot_centre(slot)
            point = [round(x + noise.uniform(-2, 2), 1), round(y + noise.uniform(-2, 2), 1)]
            seen.append({"colour": colour, "center_mm": point,
                         "slot": detector.slot_at(point) if with_slots else None})
        return {"game": "stixx", "frame_id": frame[0], "table_mm": [800, 500], "ms": 38.0, "markers_seen": 4,
                "warnings": [], "board": {"center_mm": list(physical.centre), "rotation": reported},
                "sticks": seen}

    def take(slot: int, marker_to: int | None) -> None:
        del sticks[slot]
        marker[0] = marker_to

    lines: list[dict] = [{"players": ["Ann", "Bob", "Cleo"], "variant": "basic"}]
    lines.append(observe(reference, 59.2))                     # 1 setup
    take(2, 2)
    lines.append(observe(reference, 59.2))                     # 2 Ann takes slot 2 (first stick)
    take(3, 3)
    lines.append(observe(reference, 59.2))                     # 3 Bob takes slot 3 (touches 2)
    take(6, 6)
    lines.append(observe(reference, 59.2))                     # 4 Cleo takes slot 6: does not touch 3
    lines.append({"declare": {"player": "Ann", "reveal": "blue"}})
    take(1, 6)
    lines.append(observe(nudged, 0.6))                         # 5 Ann takes slot 1, marker not moved yet
    take(4, 4)
    lines.append(observe(nudged, 0.6))                         # 6 Ann takes slot 4, marker follows
    lines.append({"declare": {"player": "Bob", "guess": "green", "of": "Cleo", "right": False}})
    take(5, 2)
    lines.append(observe(nudged, 0.6, with_slots=False))       # 7 Cleo takes slot 5, marker put in slot 2
    take(0, 0)
    lines.append(observe(nudged, 0.6, with_slots=False))       # 8 Ann takes slot 0: marker touches nothing
    lines.append({"declare": {"player": "Bob", "reveal": "green"}})
    lines.append({"declare": {"player": "Cleo", "reveal": "red"}})
    return lines


# ---------------------------------------------------------------- Enigmo

def enigmo_lines() -> list[dict]:
    frame = [0]
    shutters = [False] * 10

    def observe(dice: list[tuple[int | None, tuple[float, float]]]) -> dict:
        frame[0] += 1
        return {"game": "enigmo", "frame_id": frame[0], "table_mm": [800, 500], "ms": 12.0, "markers_seen": 4,
                "warnings": [], "shutters": list(shutters),
                "dice": [{"value": v, "center_mm": list(p)} for v, p in dice]}

    def open_(*labels: int) -> None:
        for label in labels:
            shutters[label - 1] = True

    lines: list[dict] = [{"players": ["Ann", "Bob"], "rounds": 2}]
    lines.append(observe([]))                                   # 1 empty table
    lines.append(observe([(3, (500.0, 380.0)), (4, (560.0, 410.0))]))   # 2 Ann rolls 3 and 4
    open_(3)
    lines.append(observe([(3, (500.0, 380.0)), (4, (560.0, 410.0))]))   # 3 opens 3: half of "both singles"
    open_(4)
    lines.append(observe([(3, (501.0, 381.0)), (4, (560.0, 410.0))]))   # 4 opens 4 (a die nudged 1 mm)
    lines.append(observe([]))                                   # 5 dice picked up
    lines.append(observe([(2, (620.0, 350.0)), (2, (540.0, 420.0))]))   # 6 Bob rolls a double 2
    open_(10)
    lines.append(observe([(2, (620.0, 350.0)), (2, (540.0, 420.0))]))   # 7 opens shutter 0 (labelled 10)
    lines.append(observe([(5, (470.0, 330.0)), (None, (600.0, 440.0))]))  # 8 one die unreadable: no roll yet
    lines.append(observe([(5, (470.0, 330.0)), (6, (600.0, 440.0))]))   # 9 Ann rolls 5 and 6
    open_(9)
    lines.append(observe([(5, (470.0, 330.0)), (6, (600.0, 440.0))]))   # 10 opens 9: not allowed
    lines.append({"guess": "Ann", "right": True, "red": True})
    shutters[:] = [True] * 10
    lines.append(observe([(5, (470.0, 330.0)), (6, (600.0, 440.0))]))   # 11 the word shown
    shutters[:] = [False] * 10
    lines.append(observe([(5, (470.0, 330.0)), (6, (600.0, 440.0))]))   # 12 next card, all closed
    lines.append(observe([(6, (520.0, 300.0)), (6, (640.0, 380.0))]))   # 13 Bob rolls a double 6
    lines.append({"guess": "Bob", "right": False})
    return lines


if __name__ == "__main__":
    write("enix_game.jsonl", enix_lines())
    write("stixx_game.jsonl", stixx_lines())
    write("enigmo_game.jsonl", enigmo_lines())
