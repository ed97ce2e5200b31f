"""Reading the fields of one replay input line, with one-sentence errors.

Shared by the games' `replay.py` modules. Every function raises ValueError with one
sentence (no line number: the caller adds it) naming the field that is wrong, so a
user fixing a recorded file knows exactly what to change.
"""

from __future__ import annotations

import math
from typing import Any, Iterable


def field(mapping: dict, key: str, where: str) -> Any:
    """mapping[key], or a sentence saying that `where` lacks it."""
    if not isinstance(mapping, dict):
        raise ValueError(f"{where} must be a JSON object")
    if key not in mapping:
        raise ValueError(f"{where} has no {key!r} field")
    return mapping[key]


def a_list(value: Any, what: str) -> list:
    if not isinstance(value, list):
        raise ValueError(f"{what} must be a list")
    return value


def a_bool(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{what} must be true or false")
    return value


def an_int(value: Any, what: str, low: int | None = None, high: int | None = None) -> int:
    # JSON booleans are ints in Python; a `true` where a number belongs is a mistake.
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise ValueError(f"{what} must be a whole number")
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{what} must be between {low} and {high}, not {value}")
    return value


def a_number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{what} must be a number")
    return float(value)


def a_point(value: Any, what: str) -> tuple[float, float]:
    if not isinstance(value, list) or len(value) != 2:
        raise ValueError(f"{what} must be a pair [x, y] of millimetres")
    return (a_number(value[0], what), a_number(value[1], what))


def a_name(value: Any, what: str, allowed: Iterable[str]) -> str:
    allowed = tuple(allowed)
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{what} {value!r} is not one of {', '.join(allowed)}")
    return value


def a_text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} must be a non-empty text")
    return value


def frame_id(line: dict) -> int | None:
    """The line's frame_id (an int), None when it has none."""
    if "frame_id" not in line or line["frame_id"] is None:
        return None
    return an_int(line["frame_id"], "frame_id")


def check_game(line: dict, game: str) -> None:
    """An Observation of another game in this game's replay is a mistake worth one sentence."""
    if "game" in line and line["game"] != game:
        raise ValueError(f"this line is a {line['game']!r} Observation, not {game!r}")


def stamp(events: list[dict], frame: int | None) -> list[dict]:
    """Every event carries the frame_id of the line that caused it, when there is one."""
    if frame is None:
        return events
    return [{"frame_id": frame, **event} for event in events]


def joined(names: Iterable[str]) -> str:
    """'a', 'a and b', 'a, b and c' — for reason sentences."""
    names = [str(n) for n in names]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]
