"""Stixx replay: stable Observations (JSON lines, table mm) and declarations in, rule events out.

Input lines, in time order:

- Players line (optional, first): `{"players": ["Ann", "Bob"], "variant": "basic" | "expert",
  "colours": {"Ann": "red"}, "pitch_mm": 55}` — the turn order (first player first), the
  variant (default basic), colours already known (usually none: they are secret), and
  the board's intersection spacing L. Without it, picks are not credited to anyone and
  no winner is called.
- Observation (ARCHITECTURE.md): `{"game": "stixx", "frame_id": n, "board": {"center_mm",
  "rotation"} | null, "sticks": [{"colour", "center_mm", "slot"}]}`. The grey stick is
  the marker. A stick's `slot` is used when given (turned back into this replay's frame
  if the board's reported rotation jumped across 0/60 degrees); when null, the slot is
  found from `center_mm` and the board; a stick in no groove (taken, lying beside the
  board) is ignored; a stick with colour null keeps its groove's last known colour.
- Declaration (basic game): `{"declare": {"player": "Ann", "reveal": "red"}}` (Ann shows red:
  two picks this turn), `{"declare": {"player": "Ann", "guess": "blue", "of": "Bob", "right":
  true}}` (Ann names Bob's colour: right → two picks, wrong → the turn passes). `player`
  defaults to the player on turn, `of` may be left out. In the expert variant only
  `reveal` exists (two moves per turn from then on). A reveal after the end only tells the
  colour, for the winner.

Events (each with the line's `frame_id` when it has one):

- `{"event": "setup", "legal", "reason", "variant"}` — the first board seen, checked.
- `{"event": "pick", "player", "slot", "colour", "legal", "reason", "picks_left", "next",
  "options"}` — a stick taken (basic); `options` = the slots that may be taken now.
- `{"event": "move", "player", "from", "to", "colour", "legal", "reason", "links_before",
  "links_after", "next", "options"}` — a stick moved (expert); `options` = legal [from, to].
- `{"event": "declare", "player", "reason"}` — a reveal or guess taken into account.
- `{"event": "end", "over", "reason", "winners", "standings", "on_board"}` — when the game
  ends (again if a later reveal settles the winner), and from finish() if it never ended.
- `{"event": "unexplained", "reason"}` — a change no single legal action explains (a stick
  put back, a stick changing colour, the marker somewhere it does not belong...).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import permutations

from tablecam.rules import linecheck as lc
from tablecam.rules.stepped import SteppedReplay
from tablecam.rules.stixx import basic, expert
from tablecam.rules.stixx.basic import COLOURS, MARKER, BasicState
from tablecam.rules.stixx.board import DEFAULT_PITCH_MM, SLOTS, BoardPose, rotate_slot, steps_between, touching
from tablecam.rules.stixx.expert import ExpertState

VARIANTS = ("basic", "expert")
UNREAD = "?"  # a stick seen in a groove whose colour was not read
Sticks = tuple[str | None, ...]  # colour per slot


@dataclass(frozen=True)
class PlayersLine:
    players: tuple[str, ...]
    variant: str
    colours: tuple[tuple[str, str], ...]
    pitch: float


@dataclass(frozen=True)
class Declare:
    player: str | None
    reveal: str | None = None
    guess: str | None = None
    of: str | None = None
    right: bool = False
    frame: int | None = None


@dataclass(frozen=True)
class Seen:
    frame: int | None
    board: tuple[tuple[float, float], float] | None  # (centre, rotation)
    sticks: tuple[tuple[str, tuple[float, float] | None, int | None], ...]  # (colour, centre, slot)


def parse_line(line: dict) -> PlayersLine | Declare | Seen:
    lc.check_game(line, "stixx")
    if "declare" in line:
        raw = line["declare"]
        if not isinstance(raw, dict):
            raise ValueError("declare must be a JSON object with reveal or guess")
        player = None if raw.get("player") is None else lc.a_text(raw["player"], "the declaring player")
        frame = lc.frame_id(line)
        if "reveal" in raw:
            return Declare(player, reveal=lc.a_name(raw["reveal"], "the revealed colour", COLOURS), frame=frame)
        if "guess" in raw:
            named = lc.a_name(raw["guess"], "the guessed colour", COLOURS)
            of = None if raw.get("of") is None else lc.a_text(raw["of"], "the guessed player")
            return Declare(player, guess=named, of=of, right=lc.a_bool(lc.field(raw, "right", "a guess"), "right"),
                           frame=frame)
        raise ValueError("declare needs either reveal (a colour) or guess (a colour, with right: true or false)")
    if "players" in line and "sticks" not in line:
        players = tuple(lc.a_text(p, "a player's name") for p in lc.a_list(line["players"], "players"))
        if len(set(players)) != len(players):
            raise ValueError("a player's name appears twice")
        variant = lc.a_name(line.get("variant", "basic"), "the variant", VARIANTS)
        raw_colours = line.get("colours") or {}
        if not isinstance(raw_colours, dict):
            raise ValueError("colours must map player names to colours")
        colours = []
        for p, c in raw_colours.items():
            if p not in players:
                raise ValueError(f"colours names {p!r}, who is not among the players")
            colours.append((p, lc.a_name(c, f"{p}'s colour", COLOURS)))
        pitch = lc.a_number(line.get("pitch_mm", DEFAULT_PITCH_MM), "pitch_mm")
        if not 10 <= pitch <= 200:
            raise ValueError(f"pitch_mm must be the board's intersection spacing in mm (10 to 200), not {pitch:g}")
        return PlayersLine(players, variant, tuple(sorted(colours)), pitch)
    frame = lc.frame_id(line)
    board = line.get("board")
    if board is not None:
        board = (lc.a_point(lc.field(board, "center_mm", "the board"), "the board's center_mm"),
                 lc.a_number(lc.field(board, "rotation", "the board"), "the board's rotation"))
    sticks = []
    for raw in lc.a_list(lc.field(line, "sticks", "a Stixx Observation"), "sticks"):
        colour = lc.field(raw, "colour", "a stick")
        # An unsure detector says null: the groove is taken by a stick whose colour is not known.
        colour = UNREAD if colour is None else lc.a_name(colour, "a stick's colour", COLOURS + (MARKER,))
        centre = None if raw.get("center_mm") is None else lc.a_point(raw["center_mm"], f"a {colour} stick's center_mm")
        slot = None if raw.get("slot") is None else lc.an_int(raw["slot"], f"a {colour} stick's slot", 0, SLOTS - 1)
        sticks.append((colour, centre, slot))
    return Seen(frame, board, tuple(sticks))


@dataclass(frozen=True)
class ReplayState:
    players: tuple[str, ...] = ()
    variant: str = "basic"
    colours: tuple[tuple[str, str], ...] = ()
    pitch: float = DEFAULT_PITCH_MM
    reference: float | None = None  # board rotation of the first reading (unwrapped later ones follow it)
    pose: BoardPose | None = None
    engine: BasicState | ExpertState | None = None
    marker_at: int | None = None  # where the marker was physically seen last
    ended: bool = False
    end_said: tuple | None = None  # (reason, winners) last announced, so `end` is not repeated


def _read_board(state: ReplayState, seen: Seen, events: list[dict]) -> tuple[ReplayState, dict[int, str], int | None]:
    """Sticks by slot (this replay's frame) and the marker's slot."""
    steps = 0
    if seen.board is not None:
        centre, rotation = seen.board
        reference = state.reference if state.reference is not None else rotation % 60.0
        steps, unwrapped = steps_between(reference, rotation)
        state = replace(state, reference=reference, pose=BoardPose(centre, unwrapped, state.pitch))
    board: dict[int, str] = {}
    markers: list[int] = []
    clashes: list[int] = []
    for colour, centre, slot in seen.sticks:
        if slot is not None:
            slot = rotate_slot(slot, -steps)
        elif centre is not None and state.pose is not None:
            slot = state.pose.slot_at(centre)
        if slot is None:
            continue  # off the board: a taken stick lying in front of a player
        if colour == MARKER:
            markers.append(slot)
        elif slot in board:
            clashes.append(slot)
        else:
            board[slot] = colour
    if clashes:
        events.append({"event": "unexplained",
                       "reason": f"two sticks read in slot {lc.joined(map(str, sorted(set(clashes))))}; one is ignored"})
    if len(markers) > 1:
        events.append({"event": "unexplained", "reason": "more than one grey marker seen; none is used"})
    marker = markers[0] if len(markers) == 1 else None
    if marker is not None and marker in board:
        events.append({"event": "unexplained",
                       "reason": f"the marker and a {board[marker]} stick were both read in slot {marker}"})
    return state, board, marker


def step(state: ReplayState, parsed: PlayersLine | Declare | Seen) -> tuple[ReplayState, list[dict]]:
    if isinstance(parsed, PlayersLine):
        if state.engine is not None:
            raise ValueError("the players line must come before the first Observation")
        return replace(state, players=parsed.players, variant=parsed.variant, colours=parsed.colours,
                       pitch=parsed.pitch), []
    if isinstance(parsed, Declare):
        return _declare(state, parsed)
    events: list[dict] = []
    state, board, marker = _read_board(state, parsed, events)
    # A stick whose colour was not read is taken to be the stick that was there before.
    known = state.engine.sticks if state.engine is not None else (None,) * SLOTS
    sticks = tuple(known[s] if board.get(s) == UNREAD else board.get(s) for s in range(SLOTS))
    if state.engine is None:
        state = _start(state, sticks, marker, events)
    elif state.variant == "basic":
        state = _basic_change(state, sticks, marker, events)
    else:
        state = _expert_change(state, sticks, events)
    state, end = _maybe_end(state)
    return state, lc.stamp(events + end, parsed.frame)


def _start(state: ReplayState, sticks: Sticks, marker: int | None, events: list[dict]) -> ReplayState:
    if state.variant == "basic":
        legal, reason = basic.check_setup(sticks, marker is not None)
        engine = replace(basic.new_game(sticks, state.players, dict(state.colours)), marker=marker)
        engine = replace(engine, over=basic.end_reason(engine) if marker is not None else None)
    else:
        legal, reason = expert.check_setup(sticks)
        engine = ExpertState(sticks, state.players, colours=state.colours)
        engine = replace(engine, over=expert.end_reason(sticks))
    events.append({"event": "setup", "variant": state.variant, "legal": legal, "reason": reason})
    return replace(state, engine=engine, marker_at=marker)


def _basic_change(state: ReplayState, sticks: Sticks, marker: int | None, events: list[dict]) -> ReplayState:
    engine: BasicState = state.engine
    removed = [s for s in range(SLOTS) if engine.sticks[s] is not None and sticks[s] is None]
    added = [s for s in range(SLOTS) if engine.sticks[s] is None and sticks[s] is not None]
    recoloured = [s for s in range(SLOTS) if engine.sticks[s] and sticks[s] and engine.sticks[s] != sticks[s]]
    if added or recoloured:
        what = [f"a {sticks[s]} stick appeared in slot {s}" for s in added]
        what += [f"slot {s} now reads {sticks[s]} instead of {engine.sticks[s]}" for s in recoloured]
        events.append({"event": "unexplained", "reason": "; ".join(what) + " (the board as seen is kept)"})
        kept = list(engine.sticks)
        for s in added + recoloured:
            kept[s] = sticks[s]
        engine = replace(engine, sticks=tuple(kept))
    for slot in _pick_order(engine, removed, marker):
        engine, verdict = basic.pick(engine, slot)
        events.append({"event": "pick", "player": verdict.player, "slot": slot, "colour": verdict.colour,
                       "legal": verdict.legal, "reason": verdict.reason,
                       "picks_left": engine.picks_allowed - engine.picks_done, "next": engine.on_turn,
                       "options": basic.options(engine)})
    if marker is not None and marker != engine.marker and marker != state.marker_at:
        events.append({"event": "unexplained",
                       "reason": (f"the marker was put in slot {marker}, but it belongs in slot {engine.marker}, "
                                  "where the last stick was taken") if engine.marker is not None
                       else f"the marker was put in slot {marker} before any stick was taken"})
    return replace(state, engine=engine, marker_at=marker if marker is not None else state.marker_at)


def _pick_order(engine: BasicState, removed: list[int], marker: int | None) -> list[int]:
    """The order of several sticks taken between two readings: one that explains them legally, if any."""
    if len(removed) <= 1:
        return removed
    if len(removed) > 4:
        return sorted(removed)  # too many to be one turn; judged in slot order
    best, best_score = sorted(removed), -1
    for order in permutations(sorted(removed)):
        reference, score = engine.marker, 0
        for slot in order:
            score += reference is None or slot in touching(reference)
            reference = slot
        score += 0.5 * (order[-1] == marker)
        if score > best_score:
            best, best_score = list(order), score
    return best


def _expert_change(state: ReplayState, sticks: Sticks, events: list[dict]) -> ReplayState:
    engine: ExpertState = state.engine
    removed = [s for s in range(SLOTS) if engine.sticks[s] is not None and sticks[s] is None]
    added = [s for s in range(SLOTS) if engine.sticks[s] is None and sticks[s] is not None]
    pairs = _pair_moves(engine, removed, added, sticks)
    if pairs is None:
        if removed or added:
            events.append({"event": "unexplained",
                           "reason": _describe(engine.sticks, sticks, removed, added) + " (the board as seen is kept)"})
        return replace(state, engine=replace(engine, sticks=sticks))
    for source, target in pairs:
        engine, verdict = expert.move(engine, source, target)
        events.append({"event": "move", "player": verdict.player, "from": source, "to": target,
                       "colour": verdict.colour, "legal": verdict.legal, "reason": verdict.reason,
                       "links_before": verdict.before, "links_after": verdict.after, "next": engine.on_turn,
                       "options": [list(m) for m in expert.legal_moves(engine.sticks)]})
    if engine.sticks != sticks:
        changed = [s for s in range(SLOTS) if engine.sticks[s] != sticks[s]]
        events.append({"event": "unexplained",
                       "reason": f"slots {lc.joined(map(str, changed))} do not read as the moves explain; "
                                 "the board as seen is kept"})
        engine = replace(engine, sticks=sticks)
    return replace(state, engine=engine)


def _describe(before: Sticks, after: Sticks, removed: list[int], added: list[int]) -> str:
    parts = [f"a {before[s]} stick left slot {s}" for s in removed]
    parts += [f"a {after[s]} stick appeared in slot {s}" for s in added]
    recoloured = [s for s in range(SLOTS) if before[s] and after[s] and before[s] != after[s]]
    parts += [f"slot {s} now reads {after[s]} instead of {before[s]}" for s in recoloured]
    return "; ".join(parts) or "the board changed"


def _pair_moves(engine: ExpertState, removed: list[int], added: list[int],
                sticks: Sticks) -> list[tuple[int, int]] | None:
    """Moves (source, target) explaining the change, legal ones preferred; None if colours do not match."""
    if len(removed) != len(added) or not removed or len(removed) > 3:
        return None
    best, best_score = None, -1
    for targets in permutations(added):
        pairs = list(zip(removed, targets))
        if any(engine.sticks[s] != sticks[t] for s, t in pairs):
            continue
        for order in permutations(pairs):
            board, score = list(engine.sticks), 0
            for s, t in order:
                score += expert.judge(tuple(board), s, t).legal
                board[t], board[s] = board[s], None
            if score > best_score:
                best, best_score = list(order), score
    return best


def _declare(state: ReplayState, d: Declare) -> tuple[ReplayState, list[dict]]:
    engine = state.engine
    if engine is None:
        raise ValueError("a declaration needs the board seen first")
    for name in (d.player, d.of):
        if name is not None and state.players and name not in state.players:
            raise ValueError(f"{name!r} is not one of the players ({', '.join(state.players)})")
    if state.variant == "expert":
        if d.reveal is None:
            raise ValueError("the expert variant has no guesses, only reveal")
        engine, reason = expert.reveal(engine, d.player, d.reveal)
    elif d.reveal is not None:
        engine, reason = basic.reveal(engine, d.player, d.reveal)
    else:
        engine, reason = basic.guess(engine, d.player, d.of, d.guess, d.right)
    state = replace(state, engine=engine)
    state, end = _maybe_end(state)
    return state, lc.stamp([{"event": "declare", "player": d.player or engine.on_turn, "reason": reason}] + end, d.frame)


def end_event(state: ReplayState) -> dict:
    engine = state.engine
    on_board = {c: sum(1 for s in engine.sticks if s == c) for c in COLOURS}
    if state.variant == "basic":
        rows, winners, why = basic.standings(engine)
        table = {r.player: {"colour": r.colour, "own": r.own, "total": r.total} for r in rows}
    else:
        scores, winners, why = expert.standings(engine)
        table = {p: {"colour": dict(engine.colours).get(p), "connected": n} for p, n in scores.items()}
    over = engine.over is not None
    reason = f"the game is over: {engine.over}; {why}" if over else f"the game is not over yet; {why}"
    return {"event": "end", "over": over, "reason": reason, "winners": list(winners),
            "standings": table, "on_board": on_board}


def _maybe_end(state: ReplayState) -> tuple[ReplayState, list[dict]]:
    if state.engine is None or state.engine.over is None:
        return state, []
    event = end_event(state)
    said = (event["reason"], tuple(event["winners"]))
    if said == state.end_said:
        return state, []
    return replace(state, ended=True, end_said=said), [event]


def view(state: ReplayState) -> dict:
    """Everything a page shows now, as plain JSON values: sticks by slot, the marker, whose turn,
    the sticks that may be taken (basic) or the legal moves (expert), counts, and the end."""
    engine = state.engine
    if engine is None:
        return {"variant": state.variant, "sticks": None}
    page = {"variant": state.variant,
            "sticks": {str(s): c for s, c in enumerate(engine.sticks) if c is not None},
            "on_board": {c: sum(1 for s in engine.sticks if s == c) for c in COLOURS},
            "on_turn": engine.on_turn, "over": engine.over,
            "colours": dict(engine.colours)}
    if state.variant == "basic":
        page.update(marker=engine.marker, picks_left=engine.picks_allowed - engine.picks_done,
                    options=basic.options(engine), taken={p: list(engine.taken_by(p)) for p in engine.players})
    else:
        page.update(moves_left=engine.moves_allowed - engine.moves_done,
                    options=[list(m) for m in expert.legal_moves(engine.sticks)],
                    shown=[p for p, _ in engine.shown])
    return page


def closing(state: ReplayState) -> list[dict]:
    """What `finish()` adds: the end, when the game never reached it."""
    if state.engine is None or state.ended:
        return []
    return [end_event(state)]


class Replay(SteppedReplay):
    """`feed(line) -> events`, `finish() -> closing events`, `view() -> the page's picture of now`."""

    parse, step, show, closing = staticmethod(parse_line), staticmethod(step), staticmethod(view), staticmethod(closing)

    def __init__(self) -> None:
        super().__init__(ReplayState())
