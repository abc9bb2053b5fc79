"""The compiled core against the pure-Python reference (khasino_sim/reference.py, written from the rulings
alone): the same distinct successor states, with the same keys, on positions reached by random play from
seeded deals; and the same whole games (every move key, final state and score) for the same seeds and bots."""
import json
import random

import pytest

from khasino_sim import engine
from khasino_sim import reference as ref
from khasino_sim.formats import get_format
from tests.helpers import compare_successors, position

FORMATS = ["khasino", "durban"]
POSITIONS_1V1 = 2_600           # per format in the default suite (65 games of 40 positions);
                                # scripts/differential_multi.py --formats khasino,durban runs 10,400 each


def canon(state):
    return json.dumps(state, sort_keys=True)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMATS)
def test_same_successor_states(fmt):
    assert walk(fmt, POSITIONS_1V1, 10_000) == POSITIONS_1V1


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("bots", [("random", "random"), ("greedy", "greedy"), ("greedy", "random")])
def test_same_whole_games(fmt, bots):
    for seed in range(60):
        want = ref.play_game(fmt, seed, bots)
        got = engine.play_game(fmt, seed, bots)
        assert got["keys"] == want["keys"], f"seed {seed}: the games diverge"
        assert canon(got["final"]) == canon(want["final"])
        assert [s["score"] for s in got["seats"]] == [s["total"] for s in want["scores"]]
        assert got["no_move"] == want["no_move"] == 0


def test_move_keys_are_position_hash_deltas():
    """docs/ENGINE.md: a move's key is H(after) ^ H(before); the core computes it incrementally, the
    reference from scratch."""
    state = engine.new_game("khasino", 7)
    rng = random.Random(7)
    while not state["over"]:
        moves = ref.legal_moves(state)
        for m in moves:
            assert m.key == ref.state_hash(m.after) ^ ref.state_hash(state)
            assert engine.position_key(m.result) == ref.state_hash(m.result)
        state = rng.choice(moves).result


def test_follow_up_groups_on_one_build_keep_the_reference_keys():
    """K9, P7: follow-up groups added to one build take its next group positions in the canonical group order
    (RULES.md), which the core gets from the order of its sum buckets (descending masks in each part). A
    capture here can add 6D+3D and 9H to the mover's build 9 together; every move's key and successor must be
    the reference's. (Taking the table items highest card first reordered the buckets and changed these keys,
    docs/ENGINE.md.)"""
    state = position("khasino", hands=(["9C", "7H"], ["2D", "3C"]), loose=["7D", "6D", "3D", "9H", "2S"],
                     builds=[(9, 0, [["5S", "4S"]])])
    moves = engine.legal_moves(state)
    assert {m.key: canon(m.result) for m in moves} == {m.key: canon(m.result) for m in ref.legal_moves(state)}
    groups = [len(b["groups"]) for m in moves for b in m.result["table"]["builds"]]
    assert max(groups) >= 3, "no move adds two follow-up groups to the build"


THREE = ["khasino-3p", "khasino-3p-stock"]
THREE_POSITIONS = 1_000        # per format in the default suite; scripts/differential_multi.py runs 20,000


def walk(fmt, positions, first_seed):
    """Random walks through reference games of `fmt` from seeds first_seed, first_seed + 1, ... (formats with
    series: leaders rotating; 4p: from the lead decision, its Stay decisions included), comparing every
    position's distinct successors and keys with the core's; returns the number of positions compared."""
    done = 0
    g = 0
    while done < positions:
        leader = g % get_format(fmt).seats if get_format(fmt).series else 0
        state = ref.initial_state(fmt, first_seed + g, leader=leader)
        assert canon(state) == canon(engine.new_game(fmt, first_seed + g, leader=leader)), "the deal differs"
        done += compare_successors(ref, state, random.Random(g), positions - done)
        g += 1
    return done


@pytest.mark.slow
@pytest.mark.parametrize("fmt", THREE)
def test_three_players_same_successor_states(fmt):
    assert walk(fmt, THREE_POSITIONS, 30_000) == THREE_POSITIONS


@pytest.mark.slow
@pytest.mark.parametrize("fmt", THREE)
@pytest.mark.parametrize("bots", [("random",) * 3, ("greedy",) * 3, ("greedy", "random", "random")])
def test_three_players_same_whole_games(fmt, bots):
    for seed in range(12):
        leader = seed % 3
        want = ref.play_game(fmt, seed, bots, leader=leader)
        got = engine.play_game(fmt, seed, bots, leader=leader)
        assert got["keys"] == want["keys"], f"seed {seed}: the games diverge"
        assert canon(got["final"]) == canon(want["final"])
        assert [s["score"] for s in got["seats"]] == [s["total"] for s in want["scores"]]
        assert got["winner"] == want["winner"] and got["no_move"] == want["no_move"] == 0


FOUR_POSITIONS = 1_000         # in the default suite; scripts/differential_multi.py runs 20,000
FOUR_PAIRINGS = [("random",) * 4, ("greedy",) * 4, ("greedy", "random", "greedy", "random")]


@pytest.mark.slow
def test_four_players_same_successor_states():
    """K15 (P11-P15): the lead decision, card plays (rebuilds and partner loads included) and Stay decisions
    give the reference's successors and keys."""
    assert walk("khasino-4p", FOUR_POSITIONS, 40_000) == FOUR_POSITIONS


@pytest.mark.slow
@pytest.mark.parametrize("bots", FOUR_PAIRINGS)
def test_four_players_same_whole_games(bots):
    """Every decision's key (lead, card plays, Stays), the final state and the winning team."""
    for seed in range(12):
        want = ref.play_game("khasino-4p", seed, bots)
        got = engine.play_game("khasino-4p", seed, bots)
        assert got["keys"] == want["keys"], f"seed {seed}: the games diverge"
        assert canon(got["final"]) == canon(want["final"])
        assert [s["score"] for s in got["seats"]] == [s["total"] for s in want["scores"]]
        assert got["winner"] == want["winner"] and got["no_move"] == want["no_move"] == 0
