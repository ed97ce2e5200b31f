"""`tablecam replay GAME FILE`: a stream of stable Observations (JSON lines) -> rule events (JSON lines)."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from typing import IO, Iterable

from tablecam.errors import UserError

GAMES = ("micropul", "enix", "stixx", "enigmo")


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "replay", help="turn a file of Observations (JSON lines) into rule events",
        description="Reads JSON lines (one Observation per stable table state, in time order) "
                    "and prints one JSON line per rule event.")
    p.add_argument("game", help="micropul, enix, stixx or enigmo")
    p.add_argument("file", help="the JSON-lines file, or - for standard input")
    p.set_defaults(handler=_run)


def new_replay(game: str):
    """The game's Replay: `feed(line: dict) -> list[event]`, `finish() -> list[event]`.

    `feed` raises ValueError (or UserError) with one sentence when a line is malformed;
    the replay state is then as if the line had not been there.
    """
    if game not in GAMES:
        raise UserError(f"unknown game {game!r}: choose one of {', '.join(GAMES)}.")
    return importlib.import_module(f"tablecam.rules.{game}.replay").Replay()


def replay_lines(game: str, lines: Iterable[str], out: IO[str], err: IO[str]) -> int:
    """Feeds every line, printing events as they come (flushed, so nothing is lost if we stop).

    A malformed line is reported with its number and skipped; the lines after it are still
    replayed. Returns 0, or 2 when any line was malformed.
    """
    replay = new_replay(game)
    bad = 0
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            line = json.loads(text)
            if not isinstance(line, dict):
                raise ValueError("a line must be a JSON object")
            events = replay.feed(line)
        except json.JSONDecodeError as exc:
            bad += 1
            print(f"tablecam: line {number}: malformed JSON ({exc.msg}); line skipped.", file=err)
            continue
        except (ValueError, UserError) as exc:
            bad += 1
            print(f"tablecam: line {number}: {str(exc).rstrip('.')}; line skipped.", file=err)
            continue
        for event in events:
            out.write(json.dumps(event) + "\n")
        out.flush()
    for event in replay.finish():
        out.write(json.dumps(event) + "\n")
    out.flush()
    return 2 if bad else 0


def _run(args: argparse.Namespace) -> int:
    if args.game not in GAMES:
        raise UserError(f"unknown game {args.game!r}: choose one of {', '.join(GAMES)}.")
    if args.file == "-":
        return replay_lines(args.game, sys.stdin, sys.stdout, sys.stderr)
    try:
        with open(args.file, encoding="utf-8") as fh:
            return replay_lines(args.game, fh, sys.stdout, sys.stderr)
    except UnicodeDecodeError:
        raise UserError(f"{args.file} is not a text file of JSON lines.") from None
