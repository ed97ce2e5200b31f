"""Shared makers for the ENIX, Stixx and Enigmo session tests: recorded or simulated games as the
inputs the companion gets (stable readings, and the players' taps for what the camera cannot see)."""

from __future__ import annotations

import json
from pathlib import Path

REPLAYS = Path(__file__).parent.parent / "data" / "replay"


def recorded(game: str) -> list[dict]:
    return [json.loads(line) for line in (REPLAYS / f"{game}_game.jsonl").read_text().splitlines() if line.strip()]


def stixx_inputs(lines: list[dict], names: list[str]) -> list[tuple[str, dict]]:
    """Replay lines (players line left out) as companion inputs: declarations become the page's taps."""
    out = []
    for line in lines:
        if "players" in line:
            continue
        if "declare" in line:
            d = line["declare"]
            who = names.index(d["player"])
            if "reveal" in d:
                out.append(("reveal", {"player": who, "colour": d["reveal"]}))
            else:
                tap = {"player": who, "colour": d["guess"], "right": d["right"]}
                if d.get("of"):
                    tap["of"] = names.index(d["of"])
                out.append(("guess", tap))
        else:
            out.append(("stable", line))
    return out


def enigmo_inputs(lines: list[dict], names: list[str]) -> list[tuple[str, dict]]:
    out = []
    for line in lines:
        if "players" in line:
            continue
        if "guess" in line:
            out.append(("word", {"player": names.index(line["guess"]), "right": line["right"],
                                 "red": line.get("red", False)}))
        else:
            out.append(("stable", line))
    return out


def play(session, inputs) -> list[dict]:
    entries = []
    for n, (kind, payload) in enumerate(inputs, start=1):
        entries += session.apply(kind, payload, n, float(n))
    return entries


def project(points):
    """Table mm -> normalised picture coordinates for an 800 x 500 mm table seen straight down."""
    return [(x / 800.0, y / 500.0) for x, y in points]
