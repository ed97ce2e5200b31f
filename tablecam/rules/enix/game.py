"""Random legal ENIX play, and how a game state maps to an Observation.

`random_game(seed, players=3, rounds=4)` returns a list of `EnixState`, each the table
after one action: the setup, a reveal (or a battle card added), a tile turned or moved,
a pawn walk, the cap moved, the round's cards cleared. Only what the camera sees is in
a state: tiles, pawns, the cap and the face-up cards in front of each player; hands are
off-camera.

State → Observation (`to_observation`): the layout's lattice is placed on the table by
a `Lattice` (origin = centre of cell (0, 0) in table mm, angle, width across flats);
each hex is at `lattice.centre(cell)` with rotation `lattice.rotation(turn)`; pawns sit
around their tile's centre (several pawns share a tile without overlapping); the cap
sits on its tile 28 mm towards +y from the centre; each player's face-up cards lie in a row at the player's
seat (`seats`, table mm), in the order laid. `record()` turns a whole game into replay
input lines (a setup line with the seats, then one Observation per state).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace

from tablecam.rules.enix.cards import Card, play_order
from tablecam.rules.enix.energies import ENERGIES, PAWN_COLOURS, SOLAR, RayTable
from tablecam.rules.enix.lattice import Lattice, neighbours
from tablecam.rules.enix.layout import Layout, Placed, destinations
from tablecam.rules.enix.paths import reachable

DEFAULT_LATTICE = Lattice((400.0, 250.0), 0.0)
CARD_STEP_MM = 30.0  # cards of a battle overlap, each shifted along x
CAP_OFFSET_MM = 28.0
PAWN_RING_MM = 14.0  # pawns sharing a tile sit on a small ring inside the 36 mm source circle


@dataclass(frozen=True)
class EnixState:
    layout: Layout
    pawns: tuple[tuple[str, str], ...]  # (colour, energy of the tile it stands on)
    cap: str | None
    revealed: tuple[tuple[str, tuple[Card, ...]], ...]  # face-up cards in front of each player, in order laid
    action: str  # what led to this state, for people reading a failing test


def setup_layout(rng: random.Random) -> Layout:
    """Solar at (0, 0), the five other tiles on five of the six places around it, random turns."""
    ring = list(neighbours((0, 0)))
    rng.shuffle(ring)
    others = list(ENERGIES[1:])
    rng.shuffle(others)
    return Layout.of([Placed(SOLAR, (0, 0), rng.randrange(6))] +
                     [Placed(e, c, rng.randrange(6)) for e, c in zip(others, ring)])


def _random_card(rng: random.Random) -> Card:
    return Card(rng.choice(ENERGIES), rng.randint(-10, 9))


def random_game(seed: int, players: int = 3, rounds: int = 4, rays: RayTable | None = None) -> list[EnixState]:
    """A whole random game of legal actions, as the table looks after each one."""
    if not 2 <= players <= 6:
        raise ValueError("ENIX is played by 2 to 6 players")
    rng = random.Random(seed)
    rays = rays or RayTable.default()
    colours = PAWN_COLOURS[:players]
    state = EnixState(setup_layout(rng), tuple((c, SOLAR) for c in colours), None, (), "setup")
    states = [state]
    for _ in range(rounds):
        revealed = {c: (_random_card(rng),) for c in colours}
        state = replace(state, revealed=tuple(sorted(revealed.items())), action="reveal")
        states.append(state)
        order = play_order({p: [c.value for c in cs] for p, cs in revealed.items()})
        while not order.decided:
            for group in order.battles:
                for p in group:
                    revealed[p] += (_random_card(rng),)
            state = replace(state, revealed=tuple(sorted(revealed.items())), action="battle")
            states.append(state)
            order = play_order({p: [c.value for c in cs] for p, cs in revealed.items()})
        totals = dict(order.totals)
        for colour in order.order:
            if rng.random() < 0.4:
                state = _tile_action(rng, state)
                states.append(state)
            if rng.random() < 0.15:
                cap = rng.choice((None,) + ENERGIES)
                if cap != state.cap:
                    state = replace(state, cap=cap, action=f"cap on {cap}")
                    states.append(state)
            pawns = dict(state.pawns)
            options = reachable(state.layout, rays, pawns[colour], totals[colour], state.cap)
            if options:  # a positive total obliges a move when one is possible
                pawns[colour] = rng.choice(sorted(options))
                state = replace(state, pawns=tuple(sorted(pawns.items())), action=f"{colour} walks")
                states.append(state)
        state = replace(state, revealed=(), action="cards cleared")
        states.append(state)
    return states


def _tile_action(rng: random.Random, state: EnixState) -> EnixState:
    energy = rng.choice(ENERGIES)
    tile = state.layout.get(energy)
    places = destinations(state.layout, energy)
    if places and rng.random() < 0.6:
        cell = rng.choice(places)
        turn = tile.turn if rng.random() < 0.7 else rng.randrange(6)
        return replace(state, layout=state.layout.with_tile(Placed(energy, cell, turn)), action=f"move {energy}")
    turn = (tile.turn + rng.randrange(1, 6)) % 6
    return replace(state, layout=state.layout.with_tile(Placed(energy, tile.cell, turn)), action=f"rotate {energy}")


def default_seats(colours: tuple[str, ...], table_mm: tuple[float, float] = (800.0, 500.0)) -> dict[str, tuple[float, float]]:
    """Seats spread along the near and far edges of the play area, for rendering cards."""
    seats = {}
    for n, colour in enumerate(colours):
        near = n % 2 == 0
        slot = n // 2
        count = (len(colours) + (1 if near else 0)) // 2
        x = table_mm[0] * (slot + 1) / (count + 1)
        seats[colour] = (x, table_mm[1] - 55.0 if near else 55.0)
    return seats


def to_observation(state: EnixState, frame_id: int = 0, lattice: Lattice = DEFAULT_LATTICE,
                   seats: dict[str, tuple[float, float]] | None = None) -> dict:
    """The Observation a perfect detector prints for this state (table mm)."""
    seats = seats if seats is not None else default_seats(tuple(c for c, _ in state.pawns))
    hexes = [{"energy": t.energy, "center_mm": _r(lattice.centre(t.cell)),
              "rotation": round(lattice.rotation(t.turn), 2)} for t in state.layout.tiles]
    on_tile: dict[str, list[str]] = {}
    for colour, energy in state.pawns:
        on_tile.setdefault(energy, []).append(colour)
    pawns = []
    for energy, colours in on_tile.items():
        cx, cy = lattice.centre(state.layout.get(energy).cell)
        for n, colour in enumerate(colours):
            a = 2 * math.pi * n / len(colours)
            r = PAWN_RING_MM if len(colours) > 1 else 0.0
            pawns.append({"colour": colour, "center_mm": _r((cx + r * math.cos(a), cy + r * math.sin(a)))})
    cap = None
    if state.cap is not None:
        # Beside the centre rather than on it, so the pawns under the cap stay visible.
        cx, cy = lattice.centre(state.layout.get(state.cap).cell)
        cap = {"center_mm": _r((cx, cy + CAP_OFFSET_MM))}
    cards = []
    for colour, laid in state.revealed:
        sx, sy = seats[colour]
        for n, card in enumerate(laid):
            cards.append({"energy": card.energy, "value": card.value,
                          "center_mm": _r((sx + CARD_STEP_MM * n, sy)), "face_up": True})
    return {"game": "enix", "frame_id": frame_id, "hexes": hexes, "pawns": pawns, "cap": cap, "cards": cards}


def record(states: list[EnixState], lattice: Lattice = DEFAULT_LATTICE,
           seats: dict[str, tuple[float, float]] | None = None) -> list[dict]:
    """Replay input lines for a game: the setup line (players and seats), then one Observation per state."""
    colours = tuple(c for c, _ in states[0].pawns)
    seats = seats if seats is not None else default_seats(colours)
    lines: list[dict] = [{"players": [{"colour": c, "seat_mm": list(seats[c])} for c in colours],
                          "hex_mm": lattice.pitch}]
    lines += [to_observation(s, n, lattice, seats) for n, s in enumerate(states)]
    return lines


def _r(point: tuple[float, float]) -> list[float]:
    return [round(point[0], 2), round(point[1], 2)]
