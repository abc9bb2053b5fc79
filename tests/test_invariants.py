"""Invariants over many whole games in the compiled core: every card accounted for after every move, the
format's points all handed out, never a position without a legal move (K11), no buffer overflow."""
import numpy as np
import pytest

from khasino_sim.kernels import layout as L
from khasino_sim.engine import play_games
from khasino_sim.formats import get_format

N = 10_000


def seat_field(out, seat, field):
    return out[:, L.G_SEAT0 + seat * L.SEAT_FIELDS + field]


@pytest.mark.parametrize("fmt", ["khasino", "durban"])
@pytest.mark.parametrize("bots", [("random", "random"), ("greedy", "random"), ("greedy", "greedy")])
def test_invariants(fmt, bots):
    f = get_format(fmt)
    seeds = np.arange(N, dtype=np.uint64) + 1_000_000 * len(bots[0])
    out = play_games(fmt, seeds, np.array([bots] * N), check=True)
    assert (out[:, L.G_BAD] == 0).all(), "a card was lost, duplicated or a build group miscounted"
    assert (out[:, L.G_NO_MOVE] == 0).all(), "a position had no legal move (K11 says it never happens)"
    assert (out[:, L.G_OVERFLOW] == 0).all()
    assert (out[:, L.G_TURNS] == f.deck).all(), "every card is played exactly once"
    cards = seat_field(out, 0, L.SEAT_CARDS) + seat_field(out, 1, L.SEAT_CARDS)
    assert (cards == f.deck).all()
    total = seat_field(out, 0, L.SEAT_SCORE) + seat_field(out, 1, L.SEAT_SCORE)
    assert (total == f.total_points).all() and f.total_points == 11
    winner = out[:, L.G_WINNER]
    s0, s1 = seat_field(out, 0, L.SEAT_SCORE), seat_field(out, 1, L.SEAT_SCORE)
    assert ((winner == 0) == (s0 > s1)).all() and ((winner == 1) == (s1 > s0)).all()
    assert (out[:, L.G_LAST_CAP] >= 0).all()
    if bots[0] == "greedy" and bots[1] == "random":
        assert (s0 > s1).mean() > 0.6, "greedy should beat random"


def test_batch_is_a_function_of_the_seeds():
    seeds = np.array([5, 17, 2**63 + 11, 2**64 - 1], dtype=np.uint64)
    bots = np.array([("greedy", "random")] * 4)
    a = play_games("khasino", seeds, bots)
    b = play_games("khasino", seeds[::-1].copy(), bots)[::-1]
    assert (a == b).all()
    assert (a[:, L.G_SEED].view(np.uint64) == seeds).all()
