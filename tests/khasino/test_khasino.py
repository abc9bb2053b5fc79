"""Khasino (K1-K16, P1-P15; docs/rules/khasino.md, docs/rules/project.md) in the compiled core against the
pure-Python reference (khasino_sim/reference/khasino.py): the hand-built positions the random walks of the
conformance suite (tests/conformance/test_differential.py, every format) seldom reach, and what the 1v1 games
of many random seeds promise beyond tests/conformance/test_invariants.py."""
import numpy as np
import pytest

from khasino_sim import engine
from khasino_sim import reference as ref
from khasino_sim.kernels.core import layout as L
from tests.helpers import batch_rows, canon, position, seat_field


def test_follow_up_groups_on_one_build_keep_the_reference_keys():
    """K9, P7: follow-up groups added to one build take its next group positions in the canonical group order
    (docs/rules/project.md), which the core gets from the order of its sum buckets (descending masks in
    each part). A capture here can add 6D+3D and 9H to the mover's build 9 together; every move's key and
    successor must be the reference's. (Taking the table items highest card first reordered the buckets and
    changed these keys, docs/ENGINE.md.)"""
    state = position("khasino", hands=(["9C", "7H"], ["2D", "3C"]), loose=["7D", "6D", "3D", "9H", "2S"],
                     builds=[(9, 0, [["5S", "4S"]])])
    moves = engine.legal_moves(state)
    assert {m.key: canon(m.result) for m in moves} == {m.key: canon(m.result) for m in ref.legal_moves(state)}
    groups = [len(b["groups"]) for m in moves for b in m.result["table"]["builds"]]
    assert max(groups) >= 3, "no move adds two follow-up groups to the build"


@pytest.mark.parametrize("fmt", ["khasino", "durban"])
def test_greedy_beats_random_and_someone_captures(fmt):
    """10,000 1v1 games of greedy (seat 0) against random: greedy wins more than 60% of them (K13's 11 points
    leave no tie), and every game has a last capturer (K12: the table's cards go to him)."""
    n = 10_000
    f, rows = batch_rows(fmt, n, ("greedy", "random"), seeds=np.arange(n, dtype=np.uint64) + 6_000_000)
    s0, s1 = seat_field(rows, 0, L.SEAT_SCORE), seat_field(rows, 1, L.SEAT_SCORE)
    assert (s0 > s1).mean() > 0.6, "greedy should beat random"
    assert (rows[:, L.G_LAST_CAP] >= 0).all()
