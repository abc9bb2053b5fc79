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


N_THREE = 1_000     # per format and pairing in the default suite; scripts/differential_multi.py plays 10,000


@pytest.mark.parametrize("fmt", ["khasino-3p", "khasino-3p-stock"])
@pytest.mark.parametrize("bots", [("random",) * 3, ("greedy", "random", "random"), ("greedy",) * 3])
def test_three_player_invariants(fmt, bots):
    """K16/P9: all 40 cards accounted for after every move, 39 turns, 7 points handed out, a winner every
    game (P9's tie-breaks leave no tie), never a position without a legal move, in series of 5 matches."""
    seeds = np.arange(N_THREE, dtype=np.uint64) + 2_000_000
    out = play_games(fmt, seeds, np.array([bots] * N_THREE), check=True, series=5)
    assert (out[:, L.G_BAD] == 0).all(), "a card was lost, duplicated or a build group miscounted"
    assert (out[:, L.G_NO_MOVE] == 0).all(), "a position had no legal move (K11 says it never happens)"
    assert (out[:, L.G_OVERFLOW] == 0).all()
    assert (out[:, L.G_TURNS] == 39).all(), "39 cards are played: one starts loose"
    cards = sum(seat_field(out, s, L.SEAT_CARDS) for s in range(3))
    assert (cards == 40).all()
    scores = np.stack([seat_field(out, s, L.SEAT_SCORE) for s in range(3)], axis=1)
    assert (scores.sum(axis=1) == 7).all()
    winner = out[:, L.G_WINNER]
    assert (winner >= 0).all()
    assert (scores[np.arange(N_THREE), winner] == scores.max(axis=1)).all()
    assert set(out[:, L.G_LEADER]) == {0, 1, 2}


N_FOUR = 1_000      # per pairing in the default suite; scripts/differential_multi.py plays 10,000


@pytest.mark.parametrize("bots", [("random",) * 4, ("greedy",) * 4, ("greedy", "greedy", "random", "random")])
def test_four_player_invariants(bots):
    """K15/K13: all 40 cards accounted for after every move, 40 turns, 11 points between the two teams (both
    teammates carry their team's score), a winning team every game, never a position without a legal move;
    the leader chosen is seat 0 or 1 (P11); a Stay is taken only where one was offered (P15)."""
    seeds = np.arange(N_FOUR, dtype=np.uint64) + 3_000_000
    out = play_games("khasino-4p", seeds, np.array([bots] * N_FOUR), check=True)
    assert (out[:, L.G_BAD] == 0).all(), "a card was lost, duplicated or a build group miscounted"
    assert (out[:, L.G_NO_MOVE] == 0).all(), "a position had no legal move (K11 says it never happens)"
    assert (out[:, L.G_OVERFLOW] == 0).all()
    assert (out[:, L.G_TURNS] == 40).all()
    assert (sum(seat_field(out, s, L.SEAT_CARDS) for s in range(4)) == 40).all()
    team = [seat_field(out, s, L.SEAT_TEAM_SCORE) for s in range(4)]
    assert (team[0] == team[1]).all() and (team[2] == team[3]).all() and (team[0] + team[2] == 11).all()
    assert all((seat_field(out, s, L.SEAT_SCORE) == team[s]).all() for s in range(4))
    assert ((out[:, L.G_WINNER] == 0) == (team[0] > team[2])).all() and set(out[:, L.G_WINNER]) == {0, 1}
    assert set(out[:, L.G_LEADER]) == {0, 1}
    offers = sum(seat_field(out, s, L.SEAT_STAY_OFFERS) for s in range(4))
    stays = sum(seat_field(out, s, L.SEAT_STAYS) for s in range(4))
    assert (stays <= offers).all() and offers.sum() > 0
    if bots[0] == "greedy":
        assert (seat_field(out, 0, L.SEAT_STAYS) + seat_field(out, 1, L.SEAT_STAYS) == 0).all(), "greedy declines"
