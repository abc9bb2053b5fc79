"""khasino/game"""
import numpy as np
from numba import njit

from ..core.bits import lowbit_index, popcount
from ..core.deal import shuffle_deck
from ..core.layout import (
    C_OVERFLOW, DECIDE_LEAD, DECIDE_STAY, DECISION_TAG, G_AHEAD1, G_BAD, G_LAST_CAP, G_LEADER, G_LEADER2,
    G_NO_MOVE, G_OVERFLOW, G_SEAT0, G_SEED, G_TURNS, G_WINNER, KIND_CAPTURE, MAX_GROUPS, MAX_PILE, MAX_VALUE,
    M_FCOUNT, M_KEY, M_KIND, M_PILE_USED, M_TARGET, R_DECK, R_LEAD_CHOICE, R_SEATS, R_TEAMS, SEAT_BUILDS,
    SEAT_BUILDS_CAPTURED, SEAT_CAPTURES, SEAT_CHANGES, SEAT_FIELDS, SEAT_FOLLOWUPS, SEAT_LOADS, SEAT_PILE_TAKEN,
    SEAT_STAYS, SEAT_STAY_OFFERS, SEAT_TRAILS, STATE_SIZE, STATS_SIZE, S_BGROUPS, S_BNG, S_BOWNER, S_DEAL, S_HANDS,
    S_LAST_CAP, S_LOOSE, S_OVER, S_PILE, S_PLEN, S_STOCK, S_STOCK_LEN, S_STOCK_POS, S_TO_MOVE, WS_BEST,
)
from ..core.rng import bot_stream_seed, zterm
from ..core.specialise import call, one_deck_family
from ..core.workspace import new_workspace
from .search import NO_DECISION, decide
from .state import advance, apply_move, apply_stay, init_state, score, series_leader, stay_partner, trail_fallback


_KIND_COUNTER = np.array([SEAT_CAPTURES, SEAT_BUILDS, SEAT_LOADS, SEAT_CHANGES, SEAT_TRAILS], dtype=np.int64)


@njit(cache=True, nogil=True, _nrt=False)
def cards_accounted(st, rules):
    """Every card of the deck is in exactly one place: a hand, the table, a pile or the undealt stock."""
    seen = 0
    total = 0
    for s in range(rules[R_SEATS]):
        h = st[S_HANDS + 2 * s]
        if h & seen:
            return False
        seen |= h
        total += popcount(h)
        for i in range(st[S_PLEN + s]):
            b = 1 << st[S_PILE + s * MAX_PILE + i]
            if b & seen:
                return False
            seen |= b
            total += 1
    if st[S_LOOSE] & seen:
        return False
    seen |= st[S_LOOSE]
    total += popcount(st[S_LOOSE])
    for v in range(1, MAX_VALUE + 1):
        if st[S_BOWNER + v] >= 0:
            for i in range(st[S_BNG + v]):
                g = st[S_BGROUPS + v * MAX_GROUPS + i]
                if g & seen:
                    return False
                seen |= g
                total += popcount(g)
                m = g
                gs = 0
                while m:
                    b = m & -m
                    m ^= b
                    gs += (lowbit_index(b) >> 2) + 1
                if gs != v:
                    return False
    for i in range(st[S_STOCK_POS], st[S_STOCK_LEN]):
        b = 1 << st[S_STOCK + i]
        if b & seen:
            return False
        seen |= b
        total += 1
    return total == rules[R_DECK] and seen == (1 << rules[R_DECK]) - 1


@njit(cache=True, nogil=True, _nrt=False)
def run_game(family, searching, rules, bots, bot_stream, st, ws, stats, trace, check):
    """Play the game in `st` to the end, one card played per turn (K3). bots[seat] is a bot id. trace (if long
    enough) receives the key of every decision (docs/ENGINE.md: each card play's key, -1 for a K11 fallback, then
    the Stay option chosen where one was offered); returns the number of keys recorded."""
    turns = 0
    nt = 0
    while st[S_OVER] == 0:
        p = st[S_TO_MOVE]
        n = decide(family, searching, bots[p], st, rules, p, ws, bot_stream, np.int64(NO_DECISION), np.int64(-1))
        if ws[C_OVERFLOW]:
            stats[G_OVERFLOW] = 1
        o = G_SEAT0 + p * SEAT_FIELDS
        if n == 0:
            stats[G_NO_MOVE] += 1
            trail_fallback(st, p)
            stats[o + SEAT_TRAILS] += 1
            if nt < trace.shape[0]:
                trace[nt] = -1
            nt += 1
        else:
            r = WS_BEST
            kind = ws[r + M_KIND]
            target = ws[r + M_TARGET]
            if nt < trace.shape[0]:
                trace[nt] = ws[r + M_KEY]
            nt += 1
            q = -1
            partner = stay_partner(st, rules, p, kind, target) if rules[R_TEAMS] else -1
            if partner >= 0:        # P15: the partner may keep the captured build on the table
                stats[G_SEAT0 + partner * SEAT_FIELDS + SEAT_STAY_OFFERS] += 1
                stay = decide(family, searching, bots[partner], st, rules, partner, ws, bot_stream,
                              np.int64(DECIDE_STAY), p)
                if nt < trace.shape[0]:
                    trace[nt] = np.int64(zterm(DECISION_TAG, DECIDE_STAY, stay, 0))
                nt += 1
                if stay:
                    q = partner
            stats[o + SEAT_PILE_TAKEN] += ws[r + M_PILE_USED]
            stats[o + SEAT_FOLLOWUPS] += ws[r + M_FCOUNT]
            if q >= 0:
                stats[G_SEAT0 + q * SEAT_FIELDS + SEAT_STAYS] += 1
                stats[o + SEAT_LOADS] += 1
                apply_stay(st, rules, p, ws, r, q)
            else:
                stats[o + _KIND_COUNTER[kind]] += 1
                if kind == KIND_CAPTURE and target > 0:
                    stats[o + SEAT_BUILDS_CAPTURED] += 1
                apply_move(st, rules, p, ws, r)
        deal = st[S_DEAL]
        advance(st, rules, p)
        if deal == 1 and st[S_DEAL] == 2:       # the first deal is over: who leads the next, who is ahead (the
            stats[G_LEADER2] = st[S_TO_MOVE]    # piles scored as if the game ended now; the game's end scores
            stats[G_AHEAD1] = score(st, rules, stats)   # every field this writes again)
        turns += 1
        if check and not cards_accounted(st, rules):
            stats[G_BAD] += 1
    stats[G_TURNS] = turns
    stats[G_LAST_CAP] = st[S_LAST_CAP]
    stats[G_WINNER] = score(st, rules, stats)
    return nt


@njit(cache=True, nogil=True, _nrt=False)
def play_game(family, searching, rules, game_seed, bots, st, deck, ws, stats, trace, check, stream, leader):
    """Deal from the game seed and play one whole game led by seat `leader` (in 4p, P11: by the seat team
    AB's first decision chooses); results in the statistics row `stats`. `stream` is a one-element uint64
    scratch array (the deal stream, then the bot stream). Returns the number of keys written to `trace`.
    `family` and `searching` are compile-time (kernels/core/specialise.py); the host calls `play_one_game`."""
    for i in range(stats.shape[0]):
        stats[i] = 0
    stats[G_SEED] = np.int64(game_seed)
    stats[G_LEADER2] = -1
    stats[G_AHEAD1] = -1
    shuffle_deck(deck, rules[R_DECK], game_seed, stream)
    init_state(st, rules, deck)
    stream[0] = bot_stream_seed(game_seed)
    nt = 0
    if rules[R_LEAD_CHOICE]:
        leader = decide(family, searching, bots[0], st, rules, np.int64(0), ws, stream, np.int64(DECIDE_LEAD),
                        np.int64(-1))
        if trace.shape[0] > 0:
            trace[0] = np.int64(zterm(DECISION_TAG, DECIDE_LEAD, leader, 0))
        nt = 1
    stats[G_LEADER] = leader
    st[S_TO_MOVE] = leader
    return nt + run_game(family, searching, rules, bots, stream, st, ws, stats, trace[nt:], check)


def play_one_game(rules, game_seed, bots, st, deck, ws, stats, trace, check, stream, leader):
    """`play_game` called from the host, compiled for the ruleset's family and the bots' need of the search."""
    from ..core.heuristic import searches
    return call(play_game, (one_deck_family(rules), searches(bots)), rules, np.uint64(game_seed),
                np.ascontiguousarray(bots, dtype=np.int64), st, deck, ws, stats, trace, bool(check), stream,
                np.int64(leader))


@njit(cache=True, nogil=True)
def _play_batch(family, searching, rules, seeds, bots, out, check, ws, series):
    st = np.zeros(STATE_SIZE, dtype=np.int64)
    deck = np.zeros(104, dtype=np.int64)
    trace = np.zeros(0, dtype=np.int64)
    stream = np.zeros(1, dtype=np.uint64)
    for g in range(seeds.shape[0]):
        # P10: the first match of a series is led by seat 0, each later one by the previous one's loser
        leader = series_leader(rules, out[g - 1]) if series > 1 and g % series else 0
        play_game(family, searching, rules, seeds[g], bots[g], st, deck, ws, out[g], trace, check, stream, leader)


def play_batch(rules, seeds, bots, check=False, ws=None, series=1):
    """Play len(seeds) games; bots is (n_games, n_seats) bot ids. Returns the (n_games, STATS_SIZE) rows.

    `ws` is a workspace to reuse (one per thread); a new one is made when None. With `series` K > 1 the
    games are series of K matches (the batch starts a series): each later match is led as P10 says."""
    from ..core.heuristic import install_bot_table, searches
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    bots = np.ascontiguousarray(bots, dtype=np.int64)
    out = np.zeros((seeds.shape[0], STATS_SIZE), dtype=np.int64)
    ws = new_workspace() if ws is None else install_bot_table(ws)
    call(_play_batch, (one_deck_family(rules), searches(bots)), rules, seeds, bots, out, bool(check), ws,
         np.int64(series))
    return out
