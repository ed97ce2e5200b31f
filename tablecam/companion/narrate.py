"""Rule events in words, for the page's banners and the terminal demo."""

from __future__ import annotations

COLOUR = {"W": "white", "B": "black"}


def _tiles(n: int) -> str:
    return f"{n} tile{'s' if n != 1 else ''}"


def micropul(event: dict) -> str:
    """One sentence (or two) saying what a micropul replay event means for the players."""
    kind = event["event"]
    if kind == "placement":
        if not event["legal"]:
            return f"Illegal placement: {event['reason']}. Take the tile back."
        parts = ["Tile placed"]
        todo = []
        if event["draw"]:
            todo.append(f"draw {_tiles(event['draw'])} into your reserve")
        if event["extra_turns"]:
            todo.append("play again" if event["extra_turns"] == 1 else f"play {event['extra_turns']} more turns")
        for group in event["closed_groups"]:
            owner = group["owner"]
            worth = f"{group['points']} point{'s' if group['points'] != 1 else ''}"
            if owner:
                parts.append(f"closes a {COLOUR[group['colour']]} group worth {worth} for {owner}")
            elif group.get("stones", 0) > 1:
                parts.append(f"closes a {COLOUR[group['colour']]} group with {group['stones']} stones: it scores nothing")
            else:
                parts.append(f"closes an unclaimed {COLOUR[group['colour']]} group of {worth}")
        sentence = ", ".join(parts) + "."
        if todo:
            sentence += " " + " and ".join(todo).capitalize() + "."
        return sentence + f" {event['core_left']} left in the core."
    if kind == "stone":
        if event["legal"]:
            return f"A {event['colour']} stone claims a group."
        return f"Illegal stone: {event['reason']}. Take it back."
    if kind == "removed":
        what = "tile" if event.get("what", "tile") == "tile" else "stone"
        return f"The illegal {what} was taken back." if not event["was_legal"] else f"A {what} was taken off the board."
    if kind == "unexplained":
        return f"Please check the table: {event['reason']}."
    if kind == "final":
        if "ranking" in event:
            ranks = ", ".join(f"{r['name']} ({r['stone_colour']}) {r['score']}" for r in event["ranking"])
            return f"Game over. Ranking: {ranks}."
        points = ", ".join(f"{c} {p}" for c, p in event["group_points"].items()) or "none"
        return f"Game over. Group points: {points}; {event['core_left']} tiles left in the core."
    return kind
