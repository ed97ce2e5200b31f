"""A whole game of micropul: deal, turns, catalysts, stones, end and scores.

Rulings beyond the rule text (micropul.md gives the others):
- "A player with no tile in hand or reserve loses": checked when that player's turn starts;
  the game ends there and that player is ranked last. A player who has tiles but no legal
  action at all (hand full, no placement possible, no stone to lay) is treated the same way,
  since the rules give them nothing to do.
- Taking a tile from the reserve takes the first one: reserve tiles are face down and were
  drawn from a shuffled core, so the first is as random as any.
- The game ends the moment the last tile of the core is drawn, pending extra turns included.
- Solitaire (one player) deals 6 tiles (core 41) and scores like the two-player game.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Union

from .board import Board, Cell, Group, Placed, PlacementCheck, Stone, closed_by, stones_on
from .tiles import ROTATIONS, MICROPUL, all_tiles, identify, start_tile

HAND_SIZE = 6
STONES_EACH = 3
DEFAULT_STONE_COLOURS = ("red", "blue", "green", "yellow")


@dataclass(frozen=True)
class Player:
    name: str
    stone_colour: str
    hand: tuple[int, ...] = ()  # tile indices
    reserve: tuple[int, ...] = ()
    stones_left: int = STONES_EACH


@dataclass(frozen=True)
class PlayTile:
    tile_index: int
    cell: Cell
    rotation: int


@dataclass(frozen=True)
class TakeFromReserve:
    pass


@dataclass(frozen=True)
class PlaceStone:
    cell: Cell
    quadrant: str


Action = Union[PlayTile, TakeFromReserve, PlaceStone]


@dataclass(frozen=True)
class Outcome:
    """What the last action did, as the page tells it."""

    player: int
    action: Action
    drawn: int = 0  # tiles drawn from the core into the player's reserve (after the cap)
    extra_turns: int = 0
    closed: tuple[Group, ...] = ()


@dataclass(frozen=True)
class GameState:
    board: Board
    stones: tuple[Stone, ...]
    core: tuple[int, ...]  # face-down pile, drawn from the front
    players: tuple[Player, ...]
    to_move: int = 0
    extra_turns: int = 0  # turns still owed to the player to move after this one
    over: bool = False
    loser: int | None = None  # the player who lost by having nothing to play
    last: Outcome | None = None

    @property
    def core_left(self) -> int:
        return len(self.core)


def new_game(players: int = 2, seed: int = 0, names: tuple[str, ...] | None = None,
             stone_colours: tuple[str, ...] | None = None) -> GameState:
    """Deal: the start tile on the board, 6 tiles to each player, the rest in the core."""
    if not 1 <= players <= len(DEFAULT_STONE_COLOURS):
        raise ValueError(f"micropul is played by 1 to {len(DEFAULT_STONE_COLOURS)} players, not {players}")
    names = names or tuple(f"Player {i + 1}" for i in range(players))
    colours = stone_colours or DEFAULT_STONE_COLOURS[:players]
    start = start_tile()
    pile = [t.index for t in all_tiles() if t.index != start.index]
    random.Random(seed).shuffle(pile)
    dealt = []
    for i in range(players):
        dealt.append(Player(names[i], colours[i], tuple(pile[:HAND_SIZE])))
        pile = pile[HAND_SIZE:]
    board = Board({(0, 0): Placed(start.face, start.index, 0)})
    return GameState(board, (), tuple(pile), tuple(dealt))


def _face(tile_index: int, rotation: int):
    return all_tiles()[tile_index].face.rotated(rotation)


def placed_tile(tile_index: int, rotation: int) -> Placed:
    face = _face(tile_index, rotation)
    unique = len({i for i, _ in identify(face)}) == 1
    return Placed(face, tile_index if unique else None, rotation)


def check(state: GameState, action: Action) -> str | None:
    """None when the player to move may do this now, else the reason in one sentence."""
    if state.over:
        return "the game is over"
    player = state.players[state.to_move]
    if isinstance(action, PlayTile):
        if action.tile_index not in player.hand:
            return "that tile is not in the player's hand"
        if action.rotation not in ROTATIONS:
            return "a tile turns by multiples of 90 degrees"
        return state.board.check(action.cell, _face(action.tile_index, action.rotation)).reason
    if isinstance(action, TakeFromReserve):
        if not player.reserve:
            return "the reserve is empty"
        if len(player.hand) >= HAND_SIZE:
            return f"the hand already holds {HAND_SIZE} tiles"
        return None
    if isinstance(action, PlaceStone):
        return stone_problem(state.board, state.stones, action.cell, action.quadrant,
                             player.stone_colour, player.stones_left)
    return "unknown action"


def stone_problem(board: Board, stones: tuple[Stone, ...], cell: Cell, quadrant: str,
                  colour: str, stones_left: int) -> str | None:
    """Why a stone may not go on this quadrant now (rules 4 and 5), or None."""
    if stones_left <= 0:
        return f"no {colour} stone left to place"
    if cell not in board or board.symbol((cell, quadrant)) not in MICROPUL:
        return "a stone must go on a micropul"
    group = board.group_of((cell, quadrant))
    assert group is not None
    if stones_on(group, stones):
        return "that group already carries a stone"
    return None


def apply(state: GameState, action: Action) -> GameState:
    """The state after the player to move does `action`; ValueError with the reason if illegal."""
    problem = check(state, action)
    if problem:
        raise ValueError(problem)
    me = state.to_move
    player = state.players[me]
    board, stones, core = state.board, state.stones, state.core
    drawn = extra = 0
    closed: tuple[Group, ...] = ()
    if isinstance(action, PlayTile):
        verdict: PlacementCheck = board.check(action.cell, _face(action.tile_index, action.rotation))
        new_board = board.with_tile(action.cell, placed_tile(action.tile_index, action.rotation))
        closed = tuple(closed_by(board, new_board))
        board = new_board
        drawn = min(verdict.draw, len(core))
        extra = verdict.extra_turns
        hand = list(player.hand)
        hand.remove(action.tile_index)
        player = replace(player, hand=tuple(hand), reserve=player.reserve + core[:drawn])
        core = core[drawn:]
    elif isinstance(action, TakeFromReserve):
        player = replace(player, hand=player.hand + player.reserve[:1], reserve=player.reserve[1:])
    else:
        stones = stones + (Stone(action.cell, action.quadrant, player.stone_colour),)
        player = replace(player, stones_left=player.stones_left - 1)
    players = state.players[:me] + (player,) + state.players[me + 1:]
    outcome = Outcome(me, action, drawn, extra, closed)
    owed = state.extra_turns + extra
    if drawn and not core:  # rule 6: the last tile of the core was drawn
        return GameState(board, stones, core, players, me, 0, True, None, outcome)
    if owed:
        nxt, owed = me, owed - 1
    else:
        nxt = (me + 1) % len(players)
    after = GameState(board, stones, core, players, nxt, owed, False, None, outcome)
    if out_of_play(after):
        return replace(after, over=True, loser=nxt)
    return after


def out_of_play(state: GameState) -> bool:
    """Whether the player to move has lost: no tile in hand or reserve, or nothing legal to do."""
    player = state.players[state.to_move]
    return (not player.hand and not player.reserve) or not legal_actions(state)


def legal_actions(state: GameState) -> list[Action]:
    """Every action the player to move may take now (one stone action per unclaimed group)."""
    if state.over:
        return []
    player = state.players[state.to_move]
    actions: list[Action] = []
    open_cells = state.board.open_cells()
    for index in sorted(set(player.hand)):
        seen_faces = set()
        for rot in ROTATIONS:
            face = _face(index, rot)
            if face in seen_faces:
                continue
            seen_faces.add(face)
            for cell in open_cells:
                if state.board.check(cell, face).legal:
                    actions.append(PlayTile(index, cell, rot))
    if player.reserve and len(player.hand) < HAND_SIZE:
        actions.append(TakeFromReserve())
    if player.stones_left > 0:
        for group in state.board.groups():
            if not stones_on(group, state.stones):
                cell, quad = group.key
                actions.append(PlaceStone(cell, quad))
    return actions


def group_points(board: Board, stones: tuple[Stone, ...]) -> dict[str, int]:
    """Points of closed groups that carry exactly one stone, by stone colour (rule 6)."""
    points: dict[str, int] = {}
    for group in board.groups():
        on = stones_on(group, stones)
        if group.closed and len(on) == 1:
            points[on[0].colour] = points.get(on[0].colour, 0) + group.points
    return points


def scores(state: GameState) -> list[int]:
    """Each player's score: closed single-stone groups + 1 per tile in hand + 2 per tile in reserve."""
    by_colour = group_points(state.board, state.stones)
    return [by_colour.get(p.stone_colour, 0) + len(p.hand) + 2 * len(p.reserve) for p in state.players]


def ranking(state: GameState) -> list[int]:
    """Player numbers, best first; a player who lost by having nothing to play comes last."""
    points = scores(state)
    order = sorted(range(len(state.players)), key=lambda i: (i == state.loser, -points[i]))
    return order


def random_game(seed: int, players: int = 2, stone_chance: float = 0.08) -> list[GameState]:
    """A whole game of random legal moves: every state, the deal first, the end last.

    Tile placements are preferred, those firing catalysts most; a stone goes down now and then.
    """
    rng = random.Random(seed)
    state = new_game(players, seed)
    states = [state]
    while not state.over:
        actions = legal_actions(state)
        tiles = [a for a in actions if isinstance(a, PlayTile)]
        stones = [a for a in actions if isinstance(a, PlaceStone)]
        other = [a for a in actions if isinstance(a, TakeFromReserve)]
        if stones and rng.random() < stone_chance:
            action = rng.choice(stones)
        elif tiles:
            # Players seek catalysts (tiles to draw, turns to play), so weigh those moves up.
            weights = []
            for a in tiles:
                verdict = state.board.check(a.cell, _face(a.tile_index, a.rotation))
                weights.append(1 + 4 * verdict.draw + 2 * verdict.extra_turns)
            action = rng.choices(tiles, weights)[0]
        else:
            action = rng.choice(other or stones)
        state = apply(state, action)
        states.append(state)
    return states
