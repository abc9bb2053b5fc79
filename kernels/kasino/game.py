"""Whole Kasino rounds and matches inside one compiled call (N1–N7; RULES.md P22–P26): deal, then generate /
choose / apply / advance until the round ends; matches of a fixed number of rounds, the lowest total winning.

Kasino's entry points are compiled apart from the other families' (`game.play_matches` dispatches here), so
the Khasino and Cassino kernels do not grow by Kasino's code, nor the other way round."""
import numpy as np
from numba import njit

from ..core.deal import shuffle_deck
from ..core.layout import (
    C_OVERFLOW, G_BAD, G_DEALER, G_LAST_CAP, G_LEADER, G_MATCH, G_MATCH_WINNER, G_NO_MOVE, G_OVERFLOW, G_ROUND,
    G_SEAT0, G_SEED, G_TURNS, G_WINNER, KIND_CAPTURE, M_KEY, M_KIND, M_TABBE, R_DECK, R_SEATS, SEAT_CAPTURES,
    SEAT_FIELDS, SEAT_MATCH_TOTAL, SEAT_TABBES, SEAT_TEAM_SCORE, SEAT_TRAILS, STATE_SIZE, S_DEALER, S_LAST_CAP,
    S_OVER, S_ROUNDS, S_SCORES, S_TO_MOVE, WS_BEST,
)
from ..core.rng import bot_stream_seed, round_seed
from ..core.sink import listing_begin
from ..core.workspace import new_workspace
from .moves import gen_kasino
from .search import crawl_fallback, decide_kasino
from .state import advance_kasino, apply_kasino, cards_accounted_kasino, init_round, lowest_team, score_kasino


@njit(cache=True, nogil=True, _nrt=False)
def run_round(rules, bots, stream, st, ws, row, trace, check):
    """Play the round in `st` to its end; trace (if long enough) receives every move's key. Returns the number
    of keys recorded."""
    turns = 0
    while st[S_OVER] == 0:
        p = st[S_TO_MOVE]
        n = decide_kasino(bots[p], st, rules, p, ws, stream)
        if ws[C_OVERFLOW]:
            row[G_OVERFLOW] = 1
        o = G_SEAT0 + p * SEAT_FIELDS
        if n == 0:
            row[G_NO_MOVE] += 1
            crawl_fallback(st, p, ws)
            ws[WS_BEST + M_KEY] = -1
        if turns < trace.shape[0]:
            trace[turns] = ws[WS_BEST + M_KEY]
        if ws[WS_BEST + M_KIND] == KIND_CAPTURE:
            row[o + SEAT_CAPTURES] += 1
            if ws[WS_BEST + M_TABBE]:
                row[o + SEAT_TABBES] += 1
        else:
            row[o + SEAT_TRAILS] += 1
        apply_kasino(st, p, ws, WS_BEST)
        advance_kasino(st, rules, p)
        turns += 1
        if check and not cards_accounted_kasino(st, rules):
            row[G_BAD] += 1
    row[G_TURNS] = turns
    row[G_LAST_CAP] = st[S_LAST_CAP]
    row[G_WINNER] = score_kasino(st, rules, row)
    return turns


@njit(cache=True, nogil=True, _nrt=False)
def play_kasino_round(rules, seed, rnd, bots, st, deck, ws, row, prev, check, stream, trace, nrounds):
    """Deal round `rnd` from the round seed `seed` (its deal and bot streams) with the match totals before it
    from the row `prev` (SEAT_MATCH_TOTAL) and play it to its end; its scored statistics row
    in `row`, the match totals after it in SEAT_MATCH_TOTAL. Returns the number of keys written to `trace`."""
    for i in range(row.shape[0]):
        row[i] = 0
    shuffle_deck(deck, rules[R_DECK], seed, stream)
    leader = init_round(st, rules, deck, rnd)
    st[S_ROUNDS] = nrounds
    nseats = rules[R_SEATS]
    for s in range(nseats):
        st[S_SCORES + s] = prev[G_SEAT0 + s * SEAT_FIELDS + SEAT_MATCH_TOTAL]
    row[G_SEED] = np.int64(np.uint64(seed))
    row[G_LEADER] = leader
    row[G_DEALER] = st[S_DEALER]
    row[G_ROUND] = rnd
    stream[0] = bot_stream_seed(seed)
    nt = run_round(rules, bots, stream, st, ws, row, trace, check)
    for s in range(nseats):     # N7: pairs' totals combined (each seat holds its pair's)
        o = G_SEAT0 + s * SEAT_FIELDS
        row[o + SEAT_MATCH_TOTAL] = st[S_SCORES + s] + row[o + SEAT_TEAM_SCORE]
    return nt


@njit(cache=True, nogil=True, _nrt=False)
def match_winner(rules, row):
    """N7: the team with the lowest match total (the seat without pairs); -1 on a tie at the lowest."""
    return lowest_team(rules, row, SEAT_MATCH_TOTAL)


@njit(cache=True, nogil=True)
def _play_kasino_matches(rules, seeds, bots, rows, check, ws, nrounds, first):
    """Matches first, first + 1, ... of `nrounds` rounds each (bots[g] for match g), one statistics row per
    round, until the matches or the rows run out. Returns (the next match, rows used)."""
    st = np.zeros(STATE_SIZE, dtype=np.int64)
    deck = np.zeros(104, dtype=np.int64)
    stream = np.zeros(1, dtype=np.uint64)
    trace = np.zeros(0, dtype=np.int64)
    zero = np.zeros(rows.shape[1], dtype=np.int64)      # the totals before a match's first round
    k = 0
    for g in range(first, seeds.shape[0]):
        if k + nrounds > rows.shape[0]:
            return g, k
        play_kasino_match(rules, seeds[g], g, bots[g], rows, k, zero, st, deck, ws, stream, check, trace, nrounds)
        k += nrounds
    return seeds.shape[0], k


@njit(cache=True, nogil=True, _nrt=False)
def play_kasino_match(rules, seed, g, bots, rows, k, zero, st, deck, ws, stream, check, trace, nrounds):
    """Match g (its seed `seed`) of `nrounds` rounds (N7) into rows[k .. k+nrounds-1]: round r dealt from
    `round_seed(seed, r)`, the totals before round 1 from `zero` (a row of zeros), the match's winner on its last
    round's row (G_MATCH_WINNER; -1 on the others)."""
    for rnd in range(1, nrounds + 1):
        row = rows[k]
        play_kasino_round(rules, round_seed(seed, rnd), rnd, bots, st, deck, ws, row,
                          rows[k - 1] if rnd > 1 else zero, check, stream, trace, nrounds)
        row[G_SEED] = np.int64(np.uint64(seed))
        row[G_MATCH] = g
        row[G_MATCH_WINNER] = match_winner(rules, row) if rnd == nrounds else -1
        k += 1


def play_kasino_matches(rules, seeds, bots, check=False, ws=None, nrounds=None):
    """Play len(seeds) Kasino matches of `nrounds` rounds (default: the format's, R_MATCH_ROUNDS); bots is
    (n_matches, n_seats) bot ids. Returns the statistics rows, one per round, match by match (G_MATCH, G_ROUND;
    G_MATCH_WINNER on a match's last round)."""
    from ..core.layout import R_MATCH_ROUNDS
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    bots = np.ascontiguousarray(bots, dtype=np.int64)
    from ..core.heuristic import install_bot_table
    ws = new_workspace() if ws is None else install_bot_table(ws)
    nrounds = int(rules[R_MATCH_ROUNDS]) if nrounds is None else int(nrounds)
    from ..core.layout import STATS_SIZE
    rows = np.zeros((seeds.shape[0] * nrounds, STATS_SIZE), dtype=np.int64)
    nxt, used = _play_kasino_matches(rules, seeds, bots, rows, check, ws, nrounds, 0)
    assert nxt == seeds.shape[0] and used == rows.shape[0]
    return rows


@njit(cache=True, nogil=True, _nrt=False)
def kasino_list_window(st, rules, p, ws, mode, lo, hi):
    """Generate seat p's moves into a listing workspace, as `movegen.list_moves`: candidates lo .. hi-1 as
    records (stopping at the first past them, ws[C_STOP] = 1), or the keys of one class counted (SINK_KEYS).
    Returns the number of candidates offered."""
    listing_begin(ws, mode, lo, hi)
    return gen_kasino(st, rules, p, ws)
