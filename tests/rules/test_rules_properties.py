"""Property tests for the ENIX, Stixx and Enigmo engines (hypothesis).

- random legal play never raises, and replaying it raises no false alarm;
- ENIX layouts stay connected under legal tile actions; mm → lattice survives any angle and noise;
- the Stixx marker is always in a slot (in the engine, and read back from millimetres);
- Enigmo points equal the sum of the closed shutters, and the pad adds exactly the stakes;
- a damaged record gives events or one ValueError (state unchanged), never a crash.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablecam.rules.enigmo import replay as enigmo_replay
from tablecam.rules.enigmo.game import random_game as enigmo_game, record as enigmo_record
from tablecam.rules.enigmo.shutters import options, points_at_stake
from tablecam.rules.enix import replay as enix_replay
from tablecam.rules.enix.energies import ENERGIES
from tablecam.rules.enix.game import random_game as enix_game, record as enix_record
from tablecam.rules.enix.lattice import Lattice, fit_lattice
from tablecam.rules.enix.layout import Layout, Placed, destinations, is_connected
from tablecam.rules.stixx import replay as stixx_replay
from tablecam.rules.stixx.board import SLOTS, BoardPose, rotate_slot
from tablecam.rules.stixx.game import random_game as stixx_game, record as stixx_record, reported_rotation, to_observation

FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
seeds = st.integers(min_value=0, max_value=2**31 - 1)


def alarms(events):
    return [e for e in events if e.get("legal") is False or e["event"] == "unexplained"]


# ---------------------------------------------------------------- ENIX


@FAST
@given(seeds, st.integers(2, 6))
def test_enix_random_play_is_legal_and_replays_without_alarms(seed, players):
    states = enix_game(seed, players=players, rounds=3)
    assert all(is_connected(s.layout) for s in states)
    replay = enix_replay.Replay()
    events = [e for line in enix_record(states) for e in replay.feed(line)]
    assert alarms(events) == []


@FAST
@given(st.lists(st.tuples(st.sampled_from(ENERGIES), st.integers(0, 50), st.booleans()), max_size=40))
def test_enix_layouts_stay_connected_under_legal_tile_actions(actions):
    layout = Layout.of([Placed("solar", (0, 0)), Placed("water", (1, 0)), Placed("geothermal", (0, 1)),
                        Placed("waves", (-1, 1)), Placed("wind", (-1, 0)), Placed("biomass", (0, -1))])
    for energy, pick, move in actions:
        tile = layout.get(energy)
        places = destinations(layout, energy)
        if move and places:
            layout = layout.with_tile(Placed(energy, places[pick % len(places)], tile.turn))
        else:
            layout = layout.with_tile(Placed(energy, tile.cell, (tile.turn + pick) % 6))
        assert is_connected(layout)
        assert len(layout.tiles) == 6


@FAST
@given(st.floats(0, 360), st.floats(100, 700), st.floats(100, 400),
       st.lists(st.tuples(st.floats(-4, 4), st.floats(-4, 4), st.floats(-5, 5)), min_size=6, max_size=6))
def test_enix_cells_survive_any_angle_place_and_a_few_mm_of_noise(angle, x, y, noise):
    lattice = Lattice((x, y), angle)
    cells = [(0, 0), (1, 0), (0, 1), (-1, 1), (-1, 0), (2, -1)]
    centres = [(lattice.centre(c)[0] + dx, lattice.centre(c)[1] + dy) for c, (dx, dy, _) in zip(cells, noise)]
    rotations = [lattice.rotation(n % 6) + dr for n, (_, _, dr) in enumerate(noise)]
    fitted = fit_lattice(rotations, centres, 110.9)
    base, _ = fitted.nearest(centres[0])
    found = [fitted.nearest(p)[0] for p in centres]
    relative = [(f[0] - base[0], f[1] - base[1]) for f in found]
    # Same shape up to the lattice's six-fold symmetry: pairwise hex distances are kept.
    def dist(a, b):
        di, dj = a[0] - b[0], a[1] - b[1]
        return (abs(di) + abs(dj) + abs(di + dj)) // 2
    assert [[dist(a, b) for b in relative] for a in relative] == [[dist(a, b) for b in cells] for a in cells]
    turns = [(fitted.turn(r) - fitted.turn(rotations[0])) % 6 for r in rotations]
    assert turns == [n % 6 for n in range(6)]


# ---------------------------------------------------------------- Stixx


@FAST
@given(seeds, st.integers(2, 6))
def test_stixx_basic_random_play_keeps_the_marker_in_a_slot(seed, players):
    states = stixx_game(seed, players=players)
    for state in states[1:]:
        marker = state.marker
        assert marker is not None and 0 <= marker < SLOTS
        assert state.sticks[marker] is None  # the marker lies in an emptied groove
    assert states[-1].engine.over is not None


@FAST
@given(seeds, st.floats(0, 60, exclude_max=True), st.floats(200, 600), st.floats(150, 350),
       st.floats(-5, 5), st.floats(-5, 5))
def test_stixx_marker_is_read_back_in_its_slot_from_millimetres(seed, rotation, x, y, dx, dy):
    states = stixx_game(seed, players=3)
    pose = BoardPose((x, y), rotation)
    replay = stixx_replay.Replay()
    for n, state in enumerate(states):
        obs = to_observation(state, n, pose)
        for stick in obs["sticks"]:
            stick["slot"] = None  # make the replay place every stick from millimetres
            stick["center_mm"] = [stick["center_mm"][0] + dx, stick["center_mm"][1] + dy]
        if state.declare:
            replay.feed({"declare": state.declare})
        events = replay.feed(obs)
        assert alarms(events) == []
        # The replay numbers slots in the frame of the first reported rotation (in [0, 60)).
        expected = None if state.marker is None else rotate_slot(state.marker, reported_rotation(pose)[1])
        assert replay.state.marker_at == expected


@FAST
@given(seeds, st.integers(2, 3), st.sampled_from(["basic", "expert"]))
def test_stixx_random_play_replays_without_alarms(seed, players, variant):
    states = stixx_game(seed, players=players, variant=variant)
    replay = stixx_replay.Replay()
    events = [e for line in stixx_record(states) for e in replay.feed(line)] + replay.finish()
    assert alarms(events) == []
    assert events[-1]["event"] == "end" and events[-1]["over"] is True


# ---------------------------------------------------------------- Enigmo


@FAST
@given(st.lists(st.booleans(), min_size=10, max_size=10), st.booleans())
def test_enigmo_points_equal_the_sum_of_the_closed_shutters(shutters, red):
    closed_labels = [label for label, is_open in zip(range(1, 11), shutters) if not is_open]
    assert points_at_stake(tuple(shutters), red) == sum(closed_labels) * (2 if red else 1)
    # And the replay's stake for a proposal on that row is the same number.
    replay = enigmo_replay.Replay()
    replay.feed({"players": ["Ann", "Bob"]})
    replay.feed({"shutters": shutters, "dice": []})
    [guess] = [e for e in replay.feed({"guess": "Ann", "right": True, "red": red}) if e["event"] == "guess"]
    assert guess["at_stake"] == sum(closed_labels) * (2 if red else 1)


@FAST
@given(st.integers(1, 6), st.integers(1, 6), st.lists(st.booleans(), min_size=10, max_size=10))
def test_enigmo_every_allowed_way_opens_closed_shutters_only(a, b, shutters):
    for way in options((a, b), tuple(shutters)):
        assert all(not shutters[label - 1] for label in way.shutters)
        if a == b:
            assert way.kind in ("sum", "zero")
        if way.kind == "sum":
            assert sum(way.shutters) == a + b <= 9


@FAST
@given(seeds, st.integers(2, 4), st.integers(1, 6))
def test_enigmo_random_play_scores_add_up(seed, players, rounds):
    states = enigmo_game(seed, players=players, rounds=rounds)
    replay = enigmo_replay.Replay()
    events = [e for line in enigmo_record(states, rounds) for e in replay.feed(line)] + replay.finish()
    assert alarms(events) == []
    totals: dict[str, int] = {}
    for e in events:
        if e["event"] == "guess":
            totals[e["player"]] = totals.get(e["player"], 0) + e["points"]
            assert abs(e["points"]) == e["at_stake"]
    final = [e for e in events if e["event"] == "final"][-1]
    assert all(final["scores"][p] == totals.get(p, 0) for p in final["scores"])
    assert final["winners"] == [p for p, s in final["scores"].items() if s == max(final["scores"].values())]


# ---------------------------------------------------------------- any JSON at all

RECORDS = Path(__file__).resolve().parents[1] / "data" / "replay"
ODD_VALUES = [None, True, 3, -1, 2.5, 1e300, "x", "red", "solar", "grey", [], {}, [1, 2], [1, "a"],
              {"center_mm": [1, 2]}]


def _mutate(value, rng) -> None:
    """Damage one place deep inside a line: drop a field or item, duplicate an item, or swap in an odd value."""
    if isinstance(value, dict) and value:
        key = rng.choice(sorted(value))
        roll = rng.random()
        if roll < 0.25:
            del value[key]
        elif roll < 0.6:
            value[key] = copy.deepcopy(rng.choice(ODD_VALUES))
        else:
            _mutate(value[key], rng)
    elif isinstance(value, list) and value:
        i = rng.randrange(len(value))
        roll = rng.random()
        if roll < 0.2:
            del value[i]
        elif roll < 0.4:
            value.append(copy.deepcopy(value[i]))
        elif roll < 0.6:
            value[i] = copy.deepcopy(rng.choice(ODD_VALUES))
        else:
            _mutate(value[i], rng)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["enix", "stixx", "enigmo"]), st.randoms(use_true_random=False))
def test_damaged_records_give_events_or_one_sentence_never_a_crash(game, rng):
    module = {"enix": enix_replay, "stixx": stixx_replay, "enigmo": enigmo_replay}[game]
    replay = module.Replay()
    for text in (RECORDS / f"{game}_game.jsonl").read_text(encoding="utf-8").splitlines():
        line = json.loads(text)
        if rng.random() < 0.3:
            for _ in range(rng.randint(1, 3)):
                _mutate(line, rng)
        before = copy.deepcopy(replay.state)
        try:
            events = replay.feed(line)
        except ValueError as exc:
            assert str(exc) and "\n" not in str(exc)
            assert replay.state == before
            continue
        assert all(isinstance(e, dict) and "event" in e for e in events)
        json.dumps(events)  # every event can be sent to the page as JSON
    json.dumps(replay.finish())
