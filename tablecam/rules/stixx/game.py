"""Random legal Stixx play, and how a game state maps to an Observation.

`random_game(seed, players=3, variant="basic")` returns a list of `StixxState`: the
starting board, then the table after each action — a stick taken (basic), a stick
moved (expert), or a declaration (which changes no stick; its `declare` field holds
the replay input line announcing it).

State → Observation (`to_observation`): the board lies at `pose` (centre in table mm,
rotation in [0, 60), pitch L); each stick on the board is reported with its colour, its
slot (numbered in the frame of the reported rotation, see `reported_rotation`) and the
table position of its groove's middle (`pose.slot_centre(slot)`); the grey
marker is a stick of colour "grey" in the groove it belongs in. Sticks already taken
are off the board and not reported. `record()` gives the replay input lines: the
players line, then per state its declaration line or its Observation.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from tablecam.rules.stixx import basic, expert
from tablecam.rules.stixx.basic import COLOURS, MARKER, BasicState
from tablecam.rules.stixx.board import SLOTS, BoardPose, rotate_slot, touching
from tablecam.rules.stixx.expert import ExpertState

DEFAULT_POSE = BoardPose((400.0, 250.0), 12.0)
PLAYER_NAMES = ("Ann", "Bob", "Cleo", "Dev", "Eve", "Finn")


@dataclass(frozen=True)
class StixxState:
    variant: str  # "basic" or "expert"
    engine: BasicState | ExpertState
    declare: dict | None  # the declaration that led to this state, as a replay line's "declare" value
    action: str

    @property
    def sticks(self) -> tuple[str | None, ...]:
        return self.engine.sticks

    @property
    def marker(self) -> int | None:
        return self.engine.marker if isinstance(self.engine, BasicState) else None


def random_game(seed: int, players: int = 3, variant: str = "basic", max_actions: int = 300) -> list[StixxState]:
    """A whole random game of legal actions (declarations included)."""
    if variant not in ("basic", "expert"):
        raise ValueError("the variant is basic or expert")
    if not (2 <= players <= (6 if variant == "basic" else 3)):
        raise ValueError("Stixx basic is for 2 to 6 players, the expert variant for 2 or 3")
    rng = random.Random(seed)
    names = PLAYER_NAMES[:players]
    secret = dict(zip(names, rng.sample(COLOURS, players)))
    if variant == "basic":
        return _basic_game(rng, names, secret, max_actions)
    return _expert_game(rng, names, secret, max_actions)


def _basic_game(rng: random.Random, names: tuple[str, ...], secret: dict[str, str],
                max_actions: int) -> list[StixxState]:
    sticks = [c for c in COLOURS for _ in range(basic.PER_COLOUR_BASIC)]
    rng.shuffle(sticks)
    state = basic.new_game(tuple(sticks), names)
    states = [StixxState("basic", state, None, "start")]
    for _ in range(max_actions):
        if state.over:
            break
        player = state.on_turn
        if state.picks_done == 0 and state.marker is not None:
            roll = rng.random()
            if roll < 0.12 and state.colour_of(player) is None:
                state, _ = basic.reveal(state, player, secret[player])
                states.append(StixxState("basic", state, {"player": player, "reveal": secret[player]}, "reveal"))
                continue
            if roll < 0.24:
                target = rng.choice([p for p in names if p != player])
                named = secret[target] if rng.random() < 0.5 else rng.choice(COLOURS)
                right = named == secret[target]
                state, _ = basic.guess(state, player, target, named, right)
                states.append(StixxState("basic", state, {"player": player, "guess": named, "of": target,
                                                          "right": right}, "guess"))
                continue
        slot = rng.choice(basic.options(state))
        state, _ = basic.pick(state, slot)
        states.append(StixxState("basic", state, None, f"{player} takes slot {slot}"))
    return states


def expert_start(rng: random.Random) -> tuple[str | None, ...]:
    """36 sticks, 6 per colour, no two of one colour touching; 6 grooves empty (backtracking search)."""
    while True:
        empty = set(rng.sample(range(SLOTS), SLOTS - 6 * len(COLOURS)))
        slots = sorted((s for s in range(SLOTS) if s not in empty), key=lambda s: (-len(touching(s)), rng.random()))
        found = _colour(slots, {}, {c: 6 for c in COLOURS}, rng, [0])
        if found is not None:
            return tuple(found.get(s) for s in range(SLOTS))


def _colour(slots: list[int], chosen: dict[int, str], left: dict[str, int], rng: random.Random,
            budget: list[int]) -> dict[int, str] | None:
    if not slots:
        return dict(chosen)
    budget[0] += 1
    if budget[0] > 20000:  # an unlucky choice of empty grooves: start again with others
        return None
    slot, rest = slots[0], slots[1:]
    colours = [c for c in COLOURS if left[c] and all(chosen.get(t) != c for t in touching(slot))]
    rng.shuffle(colours)
    for colour in colours:
        chosen[slot] = colour
        left[colour] -= 1
        found = _colour(rest, chosen, left, rng, budget)
        left[colour] += 1
        del chosen[slot]
        if found is not None:
            return found
    return None


def _expert_game(rng: random.Random, names: tuple[str, ...], secret: dict[str, str],
                 max_actions: int) -> list[StixxState]:
    state = ExpertState(expert_start(rng), names)
    state = ExpertState(state.sticks, names, over=expert.end_reason(state.sticks))
    states = [StixxState("expert", state, None, "start")]
    for _ in range(max_actions):
        if state.over:
            break
        player = state.on_turn
        if state.moves_done == 0 and not state.has_shown(player) and rng.random() < 0.1:
            state, _ = expert.reveal(state, player, secret[player])
            states.append(StixxState("expert", state, {"player": player, "reveal": secret[player]}, "reveal"))
            continue
        source, target = rng.choice(expert.legal_moves(state.sticks))
        state, _ = expert.move(state, source, target)
        states.append(StixxState("expert", state, None, f"{player} moves {source}→{target}"))
    return states


def reported_rotation(pose: BoardPose) -> tuple[float, int]:
    """The rotation a detector reports for this pose, in [0, 60), and the 60-degree steps between them.

    The detector numbers slots in the reported frame: slot s of the state is slot
    rotate_slot(s, steps) in the Observation.
    """
    reported = round(pose.rotation % 60.0, 2) % 60.0  # 59.996 rounds to 60.0, which is 0.0
    return reported, round((pose.rotation - reported) / 60.0)


def to_observation(state: StixxState, frame_id: int = 0, pose: BoardPose = DEFAULT_POSE) -> dict:
    """The Observation a perfect detector prints for this state (table mm; slots in the reported frame)."""
    reported, steps = reported_rotation(pose)
    sticks = [{"colour": colour, "center_mm": _r(pose.slot_centre(slot)), "slot": rotate_slot(slot, steps)}
              for slot, colour in enumerate(state.sticks) if colour is not None]
    if state.marker is not None:
        sticks.append({"colour": MARKER, "center_mm": _r(pose.slot_centre(state.marker)),
                       "slot": rotate_slot(state.marker, steps)})
    return {"game": "stixx", "frame_id": frame_id,
            "board": {"center_mm": _r(pose.centre), "rotation": reported},
            "sticks": sticks}


def record(states: list[StixxState], pose: BoardPose = DEFAULT_POSE) -> list[dict]:
    """Replay input lines for a game: players line, then a declaration or an Observation per state."""
    lines: list[dict] = [{"players": list(states[0].engine.players), "variant": states[0].variant,
                          "pitch_mm": pose.pitch}]
    for n, state in enumerate(states):
        lines.append({"declare": state.declare} if state.declare else to_observation(state, n, pose))
    return lines


def _r(point: tuple[float, float]) -> list[float]:
    return [round(point[0], 2), round(point[1], 2)]
