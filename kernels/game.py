"""Whole games inside one compiled call: deal, then generate / choose / apply / advance until the end."""
import numpy as np
from numba import njit

from .bits import lowbit_index, popcount
from .search import decide, NO_DECISION
from .layout import (
    S_TO_MOVE, S_OVER, S_LAST_CAP, S_LOOSE, S_HANDS, S_BOWNER, S_BNG, S_BGROUPS, S_PLEN, S_PILE, S_DEAL,
    S_STOCK, S_STOCK_POS, S_STOCK_LEN,
    MAX_GROUPS, MAX_PILE, MAX_VALUE, STATE_SIZE, STATS_SIZE, R_SEATS, R_DECK,
    KIND_CAPTURE, M_KIND, M_TARGET, M_PILE_USED, M_FCOUNT, M_KEY, WS_BEST, C_OVERFLOW,
    R_TEAMS, R_LEAD_CHOICE, DECISION_TAG, DECIDE_LEAD, DECIDE_STAY,     SEAT_STAY_OFFERS, SEAT_STAYS,
    G_TURNS, G_LAST_CAP, G_NO_MOVE, G_OVERFLOW, G_WINNER, G_BAD, G_SEED, G_LEADER, G_SEAT0, SEAT_FIELDS,
    G_LEADER2, G_AHEAD1,
    G_ROUND, G_DEALER, G_MATCH_WINNER, G_MATCH, SEAT_MATCH_TOTAL, SEAT_MOST_CARDS, SEAT_MOST_SPADES, SEAT_SCORE,
    S_DEALER, S_ROUND, S_SCORES, S_SWEEPS, R_SWEEPS, R_MATCH_TARGET, R_TEAM, R_NEXT, R_CARD_POINTS,
    SEAT_CAPTURES, SEAT_BUILDS, SEAT_LOADS, SEAT_CHANGES, SEAT_BUILDS_CAPTURED, SEAT_PILE_TAKEN,
    SEAT_TRAILS, SEAT_FOLLOWUPS, R_FAMILY, FAMILY_KASINO,
)
from .movegen import new_workspace
from .bits import TEN_DIAMONDS, TWO_SPADES
from .rng import bot_stream_seed, fmix, zterm, GOLDEN
from .state import (
    shuffle_deck, init_state, apply_move, apply_stay, stay_partner, trail_fallback, advance, score, series_leader,
    pile_mask, first_of_team,
)

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
def run_game(rules, bots, bot_stream, st, ws, stats, trace, check):
    """Play the game in `st` to the end. bots[seat] is a bot id. trace (if long enough) receives the key of
    every decision (docs/ENGINE.md: each card play's key, -1 for a K11 fallback, then the Stay option chosen
    where one was offered); returns the number of keys recorded."""
    turns = 0
    nt = 0
    while st[S_OVER] == 0:
        p = st[S_TO_MOVE]
        n = decide(bots[p], st, rules, p, ws, bot_stream, np.int64(NO_DECISION), np.int64(-1))
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
                stay = decide(bots[partner], st, rules, partner, ws, bot_stream, np.int64(DECIDE_STAY), p)
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
def play_game(rules, game_seed, bots, st, deck, ws, stats, trace, check, stream, leader):
    """Deal from the game seed and play one whole game led by seat `leader` (in 4p, P11: by the seat team
    AB's first decision chooses); results in the statistics row `stats`. `stream` is a one-element uint64
    scratch array (the deal stream, then the bot stream). Returns the number of keys written to `trace`."""
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
        leader = decide(bots[0], st, rules, np.int64(0), ws, stream, np.int64(DECIDE_LEAD), np.int64(-1))
        if trace.shape[0] > 0:
            trace[0] = np.int64(zterm(DECISION_TAG, DECIDE_LEAD, leader, 0))
        nt = 1
    stats[G_LEADER] = leader
    st[S_TO_MOVE] = leader
    return nt + run_game(rules, bots, stream, st, ws, stats, trace[nt:], check)


@njit(cache=True, nogil=True)
def _play_batch(rules, seeds, bots, out, check, ws, series):
    st = np.zeros(STATE_SIZE, dtype=np.int64)
    deck = np.zeros(104, dtype=np.int64)
    trace = np.zeros(0, dtype=np.int64)
    stream = np.zeros(1, dtype=np.uint64)
    for g in range(seeds.shape[0]):
        # P10: the first match of a series is led by seat 0, each later one by the previous one's loser
        leader = series_leader(rules, out[g - 1]) if series > 1 and g % series else 0
        play_game(rules, seeds[g], bots[g], st, deck, ws, out[g], trace, check, stream, leader)


def play_batch(rules, seeds, bots, check=False, ws=None, series=1):
    """Play len(seeds) games; bots is (n_games, n_seats) bot ids. Returns the (n_games, STATS_SIZE) rows.

    `ws` is a workspace to reuse (one per thread); a new one is made when None. With `series` K > 1 the
    games are series of K matches (the batch starts a series): each later match is led as P10 says."""
    from .heuristic import install_bot_table
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    bots = np.ascontiguousarray(bots, dtype=np.int64)
    out = np.zeros((seeds.shape[0], STATS_SIZE), dtype=np.int64)
    ws = new_workspace() if ws is None else install_bot_table(ws)
    _play_batch(rules, seeds, bots, out, check, ws, int(series))
    return out


# ---- Cassino rounds and matches (C2, C7; RULES.md P20, P21) ------------------------------------------------
ACE_ORDER = (0, 3, 1, 2)        # P21: the aces are counted AS, AC, AH, AD


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def round_seed(match_seed, r):
    """The seed of round r (1-based) of a match: the r-th output of a splitmix64 stream with state match_seed."""
    return fmix(np.uint64(match_seed) + np.uint64(r) * GOLDEN)


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
def play_dealt_round(rules, seed, rnd, bots, st, deck, ws, row, prev, check, stream, trace):
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
    return run_game(rules, bots, stream, st, ws, row, trace, check)


@njit(cache=True, nogil=True, _nrt=False)
def play_round(rules, match_seed, rnd, bots, st, deck, ws, row, prev, check, stream, single):
    """Round `rnd` of the match with seed `match_seed` (its seed: `round_seed`), the match totals before it from
    the previous round's row `prev` (unused in round 1): played, scored into `row` and counted towards the match
    (P21), or with `single` as a match of one round (its winner the round's). Returns the match's winning team
    (single: the round's, -1 on a tie), -1 while the match goes on."""
    play_dealt_round(rules, round_seed(match_seed, rnd), rnd, bots, st, deck, ws, row, prev, check, stream,
                     row[0:0])
    row[G_SEED] = np.int64(np.uint64(match_seed))
    if single:
        for s in range(rules[R_SEATS]):
            o = G_SEAT0 + s * SEAT_FIELDS
            row[o + SEAT_MATCH_TOTAL] = row[o + SEAT_SCORE]
        row[G_MATCH_WINNER] = row[G_WINNER]
        return row[G_WINNER]
    return count_round(st, rules, row)


@njit(cache=True, nogil=True)
def _play_matches(rules, seeds, bots, rows, check, ws, single, first):
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
            w = play_round(rules, seeds[g], rnd, bots[g], st, deck, ws, rows[k], rows[k - 1 if k > 0 else 0],
                           check, stream, single)
            rows[k, G_MATCH] = g
            k += 1
            if single or w >= 0:
                break
            rnd += 1
    return seeds.shape[0], k


def play_matches(rules, seeds, bots, check=False, ws=None, single=False):
    """Play len(seeds) Cassino matches (C7, P21; Kasino's, N7; with `single`, one round each); bots is
    (n_matches, n_seats) bot ids. Returns the statistics rows, one per round, match by match (G_MATCH: the match's index in
    `seeds`, G_ROUND its round; G_MATCH_WINNER is set on a match's last round)."""
    if rules[R_FAMILY] == FAMILY_KASINO:    # N7: fixed-length matches, compiled apart (kernels/kasino_game.py)
        from .kasino_game import play_kasino_matches
        return play_kasino_matches(rules, seeds, bots, check, ws, nrounds=1 if single else None)
    from .heuristic import install_bot_table
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    bots = np.ascontiguousarray(bots, dtype=np.int64)
    ws = new_workspace() if ws is None else install_bot_table(ws)
    n = seeds.shape[0]
    cap = max(16, 8 * n)
    parts = []
    g = 0
    while g < n:
        rows = np.zeros((cap, STATS_SIZE), dtype=np.int64)
        nxt, used = _play_matches(rules, seeds, bots, rows, check, ws, single, g)
        if nxt == g:
            cap *= 2            # one match longer than the whole buffer: a larger one (no cap on rounds)
            continue
        parts.append(rows[:used])
        g = nxt
    return np.concatenate(parts) if parts else np.zeros((0, STATS_SIZE), dtype=np.int64)
