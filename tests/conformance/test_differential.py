"""Every registered format, the compiled core against its family's pure-Python reference (khasino_sim/reference.py,
reference_cassino.py, reference_kasino.py, each written from the rulings alone): the same distinct successor
states, with the same keys, on positions reached by random play from seeded deals (rounds and leaders
rotating, tests/helpers.py `walk`; every card accounted for at every position); the same whole games (Cassino
and Kasino: whole rounds and whole matches) for the same seeds and bots: every move key, the final state, the
scores and the winner; and, where positions have a hash (Khasino, Cassino), move keys that are hash deltas.

The sample of each format is tests/helpers.py SAMPLE; scripts/differential_multi.py, differential_cassino.py and
differential_kasino.py run the full counts."""
import random

import pytest

from khasino_sim import engine
from khasino_sim.formats import FORMATS, get_format
from tests.helpers import (pairing_id, pairings, reference_of, same_whole_games, same_whole_matches, sample,
                           walk)

ALL = list(FORMATS)
WHOLE = [(fmt, bots) for fmt in ALL for bots in pairings(fmt)]


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ALL)
def test_same_successor_states(fmt):
    n = sample(fmt, "positions")
    assert walk(fmt, n, 10_000) == n


@pytest.mark.slow
@pytest.mark.parametrize("fmt, bots", WHOLE, ids=[f"{f}-{pairing_id(b)}" for f, b in WHOLE])
def test_same_whole_games(fmt, bots):
    same_whole_games(fmt, range(sample(fmt, "whole")), bots)
    if get_format(fmt).matches:
        same_whole_matches(fmt, range(sample(fmt, "matches")), bots)


@pytest.mark.parametrize("fmt", [fmt for fmt in ALL if get_format(fmt).family != "kasino"])
def test_move_keys_are_position_hash_deltas(fmt):
    """docs/ENGINE.md: a move's key is H(after) ^ H(before); the core computes it incrementally, the reference
    from scratch, and the core's H of every successor is the reference's. (Kasino positions have no H: its
    move keys are compared in test_same_successor_states; nor have the 4p lead and Stay options, whose keys are
    fixed, docs/ENGINE.md "Decisions that are not card plays".)"""
    ref = reference_of(fmt)
    state = engine.new_game(fmt, 7)
    rng = random.Random(7)
    while not state["over"]:
        moves = ref.legal_moves(state)
        for m in moves if state.get("decision") is None else ():    # 4p lead and Stay options: Z(7, ...) keys
            assert m.key == ref.state_hash(m.after) ^ ref.state_hash(state)
            assert engine.position_key(m.result) == ref.state_hash(m.result)
        state = rng.choice(moves).result
