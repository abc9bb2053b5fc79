"""Every registered format, invariants over many whole games in the compiled core (Cassino and Kasino: whole
matches, every round checked), for every bot pairing: every card accounted for after every move (the core's
own check, `check=True`), never a position without a legal move (K11), no scratch overflow, every card played
once, the format's points all handed out (`Format.total_points`, less the majorities a tie leaves unscored),
teammates carrying their team's score, a winner where the scores say so; and what the format's record promises
of its games: series rotating the leader (P10), the 4p lead decision and Stay (P11, P15), rounds dealt in turn
(P20) and matches won by their rule (C7/P21, N7).

The number of games per format and pairing is tests/helpers.py SAMPLE ("games"); scripts/differential_multi.py,
differential_cassino.py and differential_kasino.py play 10,000 each."""
import numpy as np
import pytest

from khasino_sim.formats import FORMATS
from khasino_sim.kernels.core import layout as L
from tests.helpers import batch_rows, pairing_id, pairings, sample, seat_field

ALL = list(FORMATS)
CASES = [(fmt, bots) for fmt in ALL for bots in pairings(fmt)]


def teams_of(f):
    """The format's teams in team-index order (every seat its own team where it has none)."""
    return [tuple(t) for t in f.teams] if f.teams else [(s,) for s in range(f.seats)]


def check_rows(f, rows, bots):
    """The invariants of statistics rows (one per game; Cassino and Kasino: one per round of whole matches)."""
    assert (rows[:, L.G_BAD] == 0).all(), "a card was lost, duplicated or a build group miscounted"
    assert (rows[:, L.G_NO_MOVE] == 0).all(), "a position had no legal move (K11 says it never happens)"
    assert (rows[:, L.G_OVERFLOW] == 0).all(), "a scratch bound was exceeded"
    assert (rows[:, L.G_TURNS] == f.deck - f.table_init).all(), "every card is played once (but the dealt table's)"
    cards = sum(seat_field(rows, s, L.SEAT_CARDS) for s in range(f.seats))
    if f.family == "kasino":        # N5: the face cards set aside at the end of a deal are nobody's
        assert (cards <= f.deck).all()
    else:
        assert (cards == f.deck).all(), "every card ends in a pile"
    teams = teams_of(f)
    for team in teams:              # K13, C8, N7: teammates carry their team's score
        for s in team:
            assert (seat_field(rows, s, L.SEAT_TEAM_SCORE) == seat_field(rows, team[0], L.SEAT_TEAM_SCORE)).all()
    score = np.stack([seat_field(rows, t[0], L.SEAT_TEAM_SCORE) for t in teams], axis=1)
    firsts = [t[0] for t in teams]
    unscored = 0
    if not f.split_ties:            # C7: a tie for a majority scores nobody
        unscored = (sum(seat_field(rows, s, L.SEAT_MOST_CARDS) for s in firsts) == 0) * f.most_cards + \
                   (sum(seat_field(rows, s, L.SEAT_MOST_SPADES) for s in firsts) == 0) * f.most_spades
    sweeps = sum(seat_field(rows, s, L.SEAT_SWEEPS) for s in firsts) if f.sweeps else 0
    assert (score.sum(axis=1) + unscored - sweeps == f.total_points).all(), \
        f"the points handed out are not the format's {f.total_points}"
    best = score.min(axis=1) if f.family == "kasino" else score.max(axis=1)       # N7: the lowest score wins
    tied = (score == best[:, None]).sum(axis=1) > 1
    winner = rows[:, L.G_WINNER]
    assert (score[~tied, winner[~tied]] == best[~tied]).all(), "the winner is not the best score"
    if f.tiebreak:                  # P9: tie-breaks leave no tie
        assert (winner >= 0).all() and (score[np.arange(len(rows)), winner] == best).all()
    else:
        assert (winner[tied] == -1).all(), "a tie has a winner"
    if f.family == "kasino":        # N4, N6: tabbe pluses and minuses cancel; the card points and the last point
        seats = range(f.seats)
        assert (sum(seat_field(rows, s, L.SEAT_TABBE_PLUS) + seat_field(rows, s, L.SEAT_TABBE_MINUS)
                    for s in seats) == 0).all()
        assert (sum(seat_field(rows, s, L.SEAT_CARD_POINTS) for s in seats) == f.total_points - 1).all()
        assert (sum(seat_field(rows, s, L.SEAT_LAST_POINT) for s in seats) == 1).all()
    if f.series:                    # P10: the loser of a match leads the next, so every seat leads some
        assert set(rows[:, L.G_LEADER]) == set(range(f.seats))
    if f.lead_choice:               # P11: team AB picks seat 0 or 1 to lead; P15: a Stay only where offered
        assert set(rows[:, L.G_LEADER]) <= {0, 1}
        offers = sum(seat_field(rows, s, L.SEAT_STAY_OFFERS) for s in range(f.seats))
        stays = sum(seat_field(rows, s, L.SEAT_STAYS) for s in range(f.seats))
        assert (stays <= offers).all() and offers.sum() > 0
        for s, bot in enumerate(bots):
            if bot == "greedy":     # docs/ENGINE.md: greedy declines every Stay
                assert (seat_field(rows, s, L.SEAT_STAYS) == 0).all()
    if f.matches:
        check_matches(f, rows, score)


def check_matches(f, rows, score):
    """P20: round r dealt by seat (r + n - 2) mod n; C7/P21: a match ends when a team reaches the target, the
    winner holding at least it; N7: after its rounds, won by the lowest total (pairs combined) or drawn."""
    r = rows[:, L.G_ROUND]
    assert (rows[:, L.G_DEALER] == (r + f.seats - 2) % f.seats).all()
    matches = rows[:, L.G_MATCH]
    n = matches.max() + 1
    end = rows[:, L.G_MATCH_WINNER] >= 0
    totals = np.stack([seat_field(rows, t[0], L.SEAT_MATCH_TOTAL) for t in teams_of(f)], axis=1)
    for team in teams_of(f):        # C8, N7: partners hold their team's match total
        for s in team:
            assert (seat_field(rows, s, L.SEAT_MATCH_TOTAL) == seat_field(rows, team[0], L.SEAT_MATCH_TOTAL)).all()
    if f.match_target:
        assert (rows[:, L.G_LEADER] == (rows[:, L.G_DEALER] + 1) % f.seats).all()
        assert (np.bincount(matches[end], minlength=n) == 1).all(), "a match without exactly one winner"
        assert (np.diff(np.r_[matches, n]) != 0)[end].all(), "a match goes on after its winner"
        assert (totals[end, rows[end, L.G_MATCH_WINNER]] >= f.match_target).all()
    if f.match_rounds:
        last = r == f.match_rounds
        assert (np.bincount(matches[last], minlength=n) == 1).all() and (r <= f.match_rounds).all()
        low = totals[last].min(axis=1)
        alone = (totals[last] == low[:, None]).sum(axis=1) == 1
        want = np.where(alone, np.argmin(totals[last], axis=1), -1)
        assert (rows[last, L.G_MATCH_WINNER] == want).all(), "N7: the lowest total wins, a tie draws"
        assert (rows[~last, L.G_MATCH_WINNER] == -1).all()


@pytest.mark.parametrize("fmt, bots", CASES, ids=[f"{f}-{pairing_id(b)}" for f, b in CASES])
def test_invariants(fmt, bots):
    n = sample(fmt, "games")
    f, rows = batch_rows(fmt, n, bots, seeds=np.arange(n, dtype=np.uint64) + 1_000_000,
                         series=5 if FORMATS[fmt].series else 1)
    check_rows(f, rows, bots)


@pytest.mark.parametrize("fmt", ALL)
def test_batch_is_a_function_of_the_seeds(fmt):
    """A batch's rows are a function of the seeds alone, in any order (Cassino and Kasino: single rounds; their
    column G_MATCH is the match's index in its batch)."""
    from khasino_sim.engine import play_games
    seeds = np.array([5, 17, 2**63 + 11, 2**64 - 1], dtype=np.uint64)
    bots = np.array([pairings(fmt)[2]] * 4)
    a = play_games(fmt, seeds, bots)
    b = play_games(fmt, seeds[::-1].copy(), bots)[::-1]
    b[:, L.G_MATCH] = b[::-1, L.G_MATCH]
    assert (a == b).all()
    assert (a[:, L.G_SEED].view(np.uint64) == seeds).all()
