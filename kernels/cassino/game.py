"""Whole games inside one compiled call: deal, then generate / choose / apply / advance until the end."""
import numpy as np
from numba import njit

from ..core.bits import TEN_DIAMONDS, TWO_SPADES
from ..core.deal import shuffle_deck
from ..core.layout import (
    FAMILY_CASSINO, G_DEALER, G_LEADER, G_MATCH, G_MATCH_WINNER, G_ROUND, G_SEAT0, G_SEED, G_WINNER,
    R_CARD_POINTS, R_DECK, R_MATCH_TARGET, R_NEXT, R_SEATS, R_SWEEPS, R_TEAM, SEAT_FIELDS, SEAT_MATCH_TOTAL,
    SEAT_MOST_CARDS, SEAT_MOST_SPADES, SEAT_SCORE, STATE_SIZE, STATS_SIZE, S_DEALER, S_ROUND, S_SCORES, S_SWEEPS,
    S_TO_MOVE,
)
from ..core.rng import bot_stream_seed, round_seed
from ..core.specialise import call
from ..core.teams import first_of_team
from ..core.workspace import new_workspace
from ..khasino.game import run_game
from ..khasino.state import init_state, pile_mask


# ---- Cassino rounds and matches (C2, C7; RULES.md P20, P21) ------------------------------------------------
ACE_ORDER = (0, 3, 1, 2)        # P21: the aces are counted AS, AC, AH, AD


@njit(cache=True, nogil=True, _nrt=False)
def credit(rules, totals_row, s, pts):
    """Add pts to the match total of seat s's team (every seat of it holds the team's total)."""
    for u in range(rules[R_SEATS]):
        if rules[R_TEAM + u] == rules[R_TEAM + s]:
            totals_row[G_SEAT0 + u * SEAT_FIELDS + SEAT_MATCH_TOTAL] += pts


@njit(cache=True, nogil=True, _nrt=False)
def match_leader(rules, row):
    """The team whose match total is at least the target and strictly above every other team's, or -1."""
    best = -1
    team = -1
    n_best = 0
    for s in range(rules[R_SEATS]):
        if not first_of_team(rules, s):
            continue
        t = row[G_SEAT0 + s * SEAT_FIELDS + SEAT_MATCH_TOTAL]
        if t > best:
            best = t
            team = rules[R_TEAM + s]
            n_best = 0
        if t == best:
            n_best += 1
    return team if best >= rules[R_MATCH_TARGET] and n_best == 1 else -1


@njit(cache=True, nogil=True, _nrt=False)
def count_round(st, rules, row):
    """P21: add the scored round in `row` to the match totals (st's S_SCORES, the totals before it) category by
    category in the seed's order (most cards, most spades, 10D, 2S, AS, AC, AH, AD, then every seat's sweeps
    together); the first category after which a team has reached the target alone decides the match. Writes
    each seat's total after the whole round (SEAT_MATCH_TOTAL) and the winner (G_MATCH_WINNER, -1: none)."""
    nseats = rules[R_SEATS]
    for s in range(nseats):
        row[G_SEAT0 + s * SEAT_FIELDS + SEAT_MATCH_TOTAL] = st[S_SCORES + s]
    winner = -1
    for cat in range(9):
        for s in range(nseats):
            o = G_SEAT0 + s * SEAT_FIELDS
            if cat == 0:            # most cards / most spades: already set on every seat of the team
                row[o + SEAT_MATCH_TOTAL] += row[o + SEAT_MOST_CARDS]
            elif cat == 1:
                row[o + SEAT_MATCH_TOTAL] += row[o + SEAT_MOST_SPADES]
            elif cat == 8:
                if rules[R_SWEEPS]:
                    credit(rules, row, s, st[S_SWEEPS + s])
            else:
                card = TEN_DIAMONDS if cat == 2 else TWO_SPADES if cat == 3 else ACE_ORDER[cat - 4]
                if (pile_mask(st, s) >> card) & 1:
                    credit(rules, row, s, rules[R_CARD_POINTS + card])
        if winner < 0:
            winner = match_leader(rules, row)
    row[G_MATCH_WINNER] = winner
    return winner


@njit(cache=True, nogil=True, _nrt=False)
def start_round(rules, seed, rnd, st, deck, stream):
    """The dealt position of round `rnd` (P20): deck order from the deal stream of `seed`, dealt by seat
    (rnd + n - 2) mod n and led by the seat after it. Match totals (S_SCORES) are left at zero. Returns the
    leader."""
    shuffle_deck(deck, rules[R_DECK], seed, stream)
    init_state(st, rules, deck)
    nseats = rules[R_SEATS]
    dealer = (rnd + nseats - 2) % nseats
    st[S_DEALER] = dealer
    st[S_ROUND] = rnd
    leader = rules[R_NEXT + dealer]
    st[S_TO_MOVE] = leader
    return leader


@njit(cache=True, nogil=True, _nrt=False)
def play_dealt_round(searching, rules, seed, rnd, bots, st, deck, ws, row, prev, check, stream, trace):
    """Deal round `rnd` from the round seed `seed` (its deal and bot streams, docs/ENGINE.md), with the match
    totals before it from the row `prev` (SEAT_MATCH_TOTAL; zeros in round 1), and play it to its end; its
    statistics row (scored) in `row`. Returns the number of keys written to `trace`."""
    for i in range(row.shape[0]):
        row[i] = 0
    leader = start_round(rules, seed, rnd, st, deck, stream)
    for s in range(rules[R_SEATS]):
        st[S_SCORES + s] = prev[G_SEAT0 + s * SEAT_FIELDS + SEAT_MATCH_TOTAL] if rnd > 1 else 0
    row[G_SEED] = np.int64(np.uint64(seed))
    row[G_LEADER] = leader
    row[G_DEALER] = st[S_DEALER]
    row[G_ROUND] = rnd
    stream[0] = bot_stream_seed(seed)
    return run_game(FAMILY_CASSINO, searching, rules, bots, stream, st, ws, row, trace, check)


@njit(cache=True, nogil=True, _nrt=False)
def play_round(searching, rules, match_seed, rnd, bots, st, deck, ws, row, prev, check, stream, single):
    """Round `rnd` of the match with seed `match_seed` (its seed: `round_seed`), the match totals before it from
    the previous round's row `prev` (unused in round 1): played, scored into `row` and counted towards the match
    (P21), or with `single` as a match of one round (its winner the round's). Returns the match's winning team
    (single: the round's, -1 on a tie), -1 while the match goes on."""
    play_dealt_round(searching, rules, round_seed(match_seed, rnd), rnd, bots, st, deck, ws, row, prev, check,
                     stream, row[0:0])
    row[G_SEED] = np.int64(np.uint64(match_seed))
    if single:
        for s in range(rules[R_SEATS]):
            o = G_SEAT0 + s * SEAT_FIELDS
            row[o + SEAT_MATCH_TOTAL] = row[o + SEAT_SCORE]
        row[G_MATCH_WINNER] = row[G_WINNER]
        return row[G_WINNER]
    return count_round(st, rules, row)


@njit(cache=True, nogil=True)
def _play_matches(searching, rules, seeds, bots, rows, check, ws, single, first):
    """Play matches first, first + 1, ... (bots[g] for every round of match g), one statistics row per round in
    `rows`, until the matches or the rows run out. A match that does not fit is left for the next call (it is a
    function of its seed, so it is played again from its start). Returns (the next match, rows used)."""
    st = np.zeros(STATE_SIZE, dtype=np.int64)
    deck = np.zeros(104, dtype=np.int64)
    stream = np.zeros(1, dtype=np.uint64)
    k = 0
    for g in range(first, seeds.shape[0]):
        start = k
        rnd = 1
        while True:
            if k >= rows.shape[0]:
                return g, start
            w = play_round(searching, rules, seeds[g], rnd, bots[g], st, deck, ws, rows[k],
                           rows[k - 1 if k > 0 else 0], check, stream, single)
            rows[k, G_MATCH] = g
            k += 1
            if single or w >= 0:
                break
            rnd += 1
    return seeds.shape[0], k


def play_matches(rules, seeds, bots, check=False, ws=None, single=False):
    """Play len(seeds) Cassino matches (C7, P21; with `single`, one round each); bots is (n_matches, n_seats)
    bot ids. Returns the statistics rows, one per round, match by match (G_MATCH: the match's index in `seeds`,
    G_ROUND its round; G_MATCH_WINNER is set on a match's last round). `kernels.dispatch.play_matches` picks
    this or Kasino's by the ruleset's family."""
    from ..core.heuristic import install_bot_table, searches
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    bots = np.ascontiguousarray(bots, dtype=np.int64)
    searching = searches(bots)
    ws = new_workspace() if ws is None else install_bot_table(ws)
    n = seeds.shape[0]
    cap = max(16, 8 * n)
    parts = []
    g = 0
    while g < n:
        rows = np.zeros((cap, STATS_SIZE), dtype=np.int64)
        nxt, used = call(_play_matches, (searching,), rules, seeds, bots, rows, bool(check), ws, bool(single),
                         np.int64(g))
        if nxt == g:
            cap *= 2            # one match longer than the whole buffer: a larger one (no cap on rounds)
            continue
        parts.append(rows[:used])
        g = nxt
    return np.concatenate(parts) if parts else np.zeros((0, STATS_SIZE), dtype=np.int64)


def dealt_round(rules, seed, rnd, bots, st, deck, ws, row, prev, check, stream, trace):
    """`play_dealt_round` called from the host, compiled with the search if a bot of the round searches."""
    from ..core.heuristic import searches
    return call(play_dealt_round, (searches(bots),), rules, np.uint64(seed), np.int64(rnd),
                np.ascontiguousarray(bots, dtype=np.int64), st, deck, ws, row, prev, bool(check), stream, trace)
