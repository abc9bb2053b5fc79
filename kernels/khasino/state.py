"""The functional core on the flat state vector: init (deal), step (apply a move, then advance), terminal
sweep, scoring and the full position hash. All in place on preallocated arrays."""
import numpy as np
from numba import njit

from ..core.bits import ACES_MASK, SPADES_MASK, TEN_DIAMONDS, TWO_SPADES, card_value, lowbit_index, popcount
from ..core.layout import (
    R_CARD_SETS,
    CARD_BITS, G_SEAT0, G_WINNER, KIND_BUILD, KIND_CAPTURE, KIND_CHANGE, KIND_LOAD, KIND_TRAIL, MAX_GROUPS,
    MAX_PILE, MAX_VALUE, M_CARD, M_FCOUNT, M_FGROUPS, M_GCOUNT, M_GROUPS, M_KIND, M_OWNER, M_TARGET, M_USED,
    M_VALUE, R_CARD_POINTS, R_DEAL_LEADER, R_DECK, R_HAND, R_LOAD_OWNS, R_MAX_BUILDS, R_MAX_BUILD_VALUE,
    R_MOST_CARDS, R_MOST_SPADES, R_NEXT, R_PARTNER, R_REFILL, R_SEATS, R_SPLIT_TIES, R_SWEEPS, R_TABLE_INIT,
    R_TABLE_TO_LAST, R_TEAM, R_TEAMS, R_TIEBREAK, SEAT_ACES, SEAT_CARDS, SEAT_FIELDS, SEAT_MOST_CARDS,
    SEAT_MOST_SPADES, SEAT_SCORE, SEAT_SPADES, SEAT_SWEEPS, SEAT_TEAM, SEAT_TEAM_SCORE, SEAT_TEN_DIAMONDS,
    SEAT_TWO_SPADES, S_BGROUPS, S_BNG, S_BOWNER, S_DEAL, S_DEALER, S_HANDS, S_LAST_CAP, S_LAST_MOVER, S_LOOSE,
    S_OVER, S_PILE, S_PLEN, S_PROMISED, S_PROMISES, S_ROUND, S_STOCK, S_STOCK_LEN, S_STOCK_POS, S_SWEEPS,
    S_TO_MOVE, S_TURN, VALUE_SHIFT,
)
from ..core.rng import zterm
from ..core.teams import first_of_team, team_total


SPADES = np.int64(SPADES_MASK)


@njit(cache=True, nogil=True, _nrt=False)
def deal_round(st, rules):
    """Deal R_HAND cards to each seat from the stock (K14: seat order, consecutive cards)."""
    pos = st[S_STOCK_POS]
    for s in range(rules[R_SEATS]):
        h = st[S_HANDS + 2 * s]
        for _ in range(rules[R_HAND]):
            h |= 1 << st[S_STOCK + pos]
            pos += 1
        st[S_HANDS + 2 * s] = h
    st[S_STOCK_POS] = pos


@njit(cache=True, nogil=True, _nrt=False)
def init_state(st, rules, deck):
    """The position before the first move, from an explicit deck order (the injectable deal step): K1's deck
    (the three-player formats' first loose card) and the first hands (K14)."""
    for i in range(st.shape[0]):
        st[i] = 0
    st[S_LAST_CAP] = -1
    st[S_LAST_MOVER] = -1
    for v in range(MAX_VALUE + 1):
        st[S_BOWNER + v] = -1
    n = rules[R_DECK]
    for i in range(n):
        st[S_STOCK + i] = deck[i]
    st[S_STOCK_LEN] = n
    for i in range(rules[R_TABLE_INIT]):
        st[S_LOOSE] |= 1 << st[S_STOCK + i]
    st[S_STOCK_POS] = rules[R_TABLE_INIT]
    st[S_DEAL] = 1
    st[S_ROUND] = 1
    st[S_DEALER] = rules[R_SEATS] - 1      # K14, P20: the last seat deals, the seat after it leads
    deal_round(st, rules)
    st[S_TO_MOVE] = 0


@njit(cache=True, nogil=True, _nrt=False)
def push_group(st, seat, g, top_rank):
    """Put group g on seat's pile in K10 order: higher rank underneath, equal ranks S, H, D, C upwards."""
    base = S_PILE + seat * MAX_PILE
    pos = st[S_PLEN + seat]
    for r in range(top_rank, -1, -1):
        nib = (g >> (4 * r)) & 15
        if nib:
            for s in range(4):
                if (nib >> s) & 1:
                    st[base + pos] = 4 * r + s
                    pos += 1
    st[S_PLEN + seat] = pos


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def build_cards(st, v):
    """The cards of the build of value v (all its groups)."""
    m = 0
    for i in range(st[S_BNG + v]):
        m |= st[S_BGROUPS + v * MAX_GROUPS + i]
    return m


@njit(cache=True, nogil=True, _nrt=False)
def remove_build(st, v):
    st[S_BOWNER + v] = -1
    st[S_BNG + v] = 0


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def take_cards(st, rules, p, c, used):
    """Seat p plays card c from his hand and the move's table cards `used` leave their places: the loose
    ones the table, the others the tops of the opponents' piles (K8)."""
    st[S_HANDS + 2 * p] &= ~(1 << c)
    loose = st[S_LOOSE]
    pile_cards = used & ~loose
    st[S_LOOSE] = loose & ~used
    if pile_cards:
        for s in range(rules[R_SEATS]):
            if s == p:
                continue
            base = S_PILE + s * MAX_PILE
            while st[S_PLEN + s] > 0 and (pile_cards >> st[base + st[S_PLEN + s] - 1]) & 1:
                st[S_PLEN + s] -= 1


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def end_promise(st, p, cv):
    """P13: seat p has played a card of value cv: his open promise of cv ends, and so does the promised mark
    of his own build of cv (both are zero outside team formats)."""
    st[S_PROMISES + p] &= ~(1 << cv)
    if st[S_BOWNER + cv] == p:
        st[S_PROMISED] &= ~(1 << cv)


@njit(cache=True, nogil=True, _nrt=False)
def stay_partner(st, rules, p, kind, target):
    """P15: the partner who decides Stay on seat p's move of this kind and target build, or -1: a capture of
    a build, in a team format, whose value p's partner holds."""
    if not rules[R_TEAMS] or kind != KIND_CAPTURE or target <= 0:
        return -1
    q = rules[R_PARTNER + p]
    if q >= 0 and st[S_HANDS + 2 * q] & (15 << (4 * (target - 1))):
        if rules[R_MAX_BUILDS] > 0 and st[S_BOWNER + target] != q:     # K5/P6: not past his build limit
            n = 0
            for v in range(1, rules[R_MAX_BUILD_VALUE] + 1):
                n += st[S_BOWNER + v] == q
            if n >= rules[R_MAX_BUILDS]:
                return -1
        return q
    return -1


@njit(cache=True, nogil=True, _nrt=False)
def apply_move(st, rules, p, ws, r):
    """Play the move record at ws[r:r+REC_SIZE] (the bot's best, WS_BEST, or a listed record) for seat p:
    the position right after it (no deal, no sweep)."""
    c = ws[r + M_CARD]
    kind = ws[r + M_KIND]
    value = ws[r + M_VALUE]
    target = ws[r + M_TARGET]
    used = ws[r + M_USED]
    top_rank = (rules[R_DECK] >> 2) - 1
    take_cards(st, rules, p, c, used)
    g0 = r + M_GROUPS
    ng = ws[r + M_GCOUNT]
    if rules[R_TEAMS]:
        keep_promises(st, rules, p, c, kind, value, target)
    if kind == KIND_CAPTURE:
        if rules[R_CARD_SETS]:      # P27: the table cards taken go on the pile as one block
            block = 0
            if target > 0:
                block = build_cards(st, target)
                remove_build(st, target)
            for i in range(ng):
                block |= ws[g0 + i]
            push_group(st, p, block, top_rank)
        else:
            if target > 0:
                for i in range(st[S_BNG + target]):
                    push_group(st, p, st[S_BGROUPS + target * MAX_GROUPS + i], top_rank)
                remove_build(st, target)
            for i in range(ng):
                push_group(st, p, ws[g0 + i], top_rank)
        st[S_PILE + p * MAX_PILE + st[S_PLEN + p]] = c
        st[S_PLEN + p] += 1
        st[S_LAST_CAP] = p
        if rules[R_SWEEPS] and st[S_LOOSE] == 0 and table_builds(st, rules) == 0:
            st[S_SWEEPS + p] += 1       # C1 `sweeps`: the capture cleared the table
    elif kind == KIND_TRAIL:
        st[S_LOOSE] |= 1 << c
    elif kind == KIND_BUILD or kind == KIND_LOAD:
        if kind == KIND_BUILD:
            st[S_BOWNER + value] = ws[r + M_OWNER]      # the mover, or his partner (P14 rebuild)
            st[S_BNG + value] = 0
        elif rules[R_LOAD_OWNS]:
            st[S_BOWNER + value] = p                    # C4: the build belongs to whoever last added to it
        base = st[S_BNG + value]
        for i in range(ng):
            st[S_BGROUPS + value * MAX_GROUPS + base + i] = ws[g0 + i]
        st[S_BNG + value] = base + ng
    else:  # change: the single group grows by the added cards, the build moves to its new value
        grp = st[S_BGROUPS + target * MAX_GROUPS] | ws[g0]
        remove_build(st, target)
        st[S_BOWNER + value] = p
        st[S_BNG + value] = 1
        st[S_BGROUPS + value * MAX_GROUPS] = grp
    apply_followups(st, ws, r)
    st[S_LAST_MOVER] = p
    st[S_TURN] += 1


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def table_builds(st, rules):
    """The number of builds on the table."""
    n = 0
    for v in range(1, rules[R_MAX_BUILD_VALUE] + 1):
        n += (st[S_BOWNER + v] >> 63) + 1
    return n


@njit(cache=True, nogil=True, _nrt=False)
def keep_promises(st, rules, p, c, kind, value, target):
    """P13, before seat p's move of card c is applied: playing a card of value v ends p's promise of v (his
    open promise, and the promised mark of his build of v); a capture of a promised build by an opponent of its
    owner opens the owner's promise; a build p creates or changes (or rebuilds for his partner, P14) is
    promised."""
    end_promise(st, p, card_value(c))
    if kind == KIND_CAPTURE:
        if target > 0:
            o = st[S_BOWNER + target]
            if (st[S_PROMISED] >> target) & 1 and rules[R_TEAM + o] != rules[R_TEAM + p]:
                st[S_PROMISES + o] |= 1 << target
            st[S_PROMISED] &= ~(1 << target)
    elif kind == KIND_BUILD:
        st[S_PROMISED] |= 1 << value
    elif kind == KIND_CHANGE:
        st[S_PROMISED] = (st[S_PROMISED] & ~(1 << target)) | (1 << value)


@njit(cache=True, nogil=True, _nrt=False)
def apply_followups(st, ws, r):
    """The K9 follow-up groups of the move record at ws[r:]: loose-only groups added to the mover's builds."""
    f0 = r + M_FGROUPS
    for i in range(ws[r + M_FCOUNT]):  # K9 follow-ups, loose-only groups
        x = ws[f0 + i]
        g = x & CARD_BITS
        w = (x >> VALUE_SHIFT) & 15
        st[S_LOOSE] &= ~g
        k = st[S_BNG + w]
        st[S_BGROUPS + w * MAX_GROUPS + k] = g
        st[S_BNG + w] = k + 1


@njit(cache=True, nogil=True, _nrt=False)
def apply_stay(st, rules, p, ws, r, q):
    """P15: seat p's capture of a build (the record at ws[r:]) played as a load of that build instead, which
    passes to p's partner q: the move's other groups and the played card, a group of its own, join the build
    (all in the canonical order: larger card mask first); the cards used leave the table and the opponents'
    piles; nothing is captured, so the last capturer stays; p's K9 follow-ups are added as chosen."""
    c = ws[r + M_CARD]
    v = ws[r + M_TARGET]
    used = ws[r + M_USED]
    end_promise(st, p, card_value(c))
    take_cards(st, rules, p, c, used)
    ng = ws[r + M_GCOUNT]
    base = S_BGROUPS + v * MAX_GROUPS + st[S_BNG + v]
    cbit = 1 << c
    placed = False
    k = 0
    for i in range(ng):     # the move's groups are in canonical order; the played card goes in its place
        g = ws[r + M_GROUPS + i]
        if not placed and cbit > g:
            st[base + k] = cbit
            k += 1
            placed = True
        st[base + k] = g
        k += 1
    if not placed:
        st[base + k] = cbit
        k += 1
    st[S_BNG + v] += k
    if st[S_BOWNER + v] != q:       # P13: a build q comes to own by the Stay is not promised; his own keeps
        st[S_PROMISED] &= ~(1 << v)  # its mark (his promise still stands)
    st[S_BOWNER + v] = q
    apply_followups(st, ws, r)
    st[S_LAST_MOVER] = p
    st[S_TURN] += 1


@njit(cache=True, nogil=True, _nrt=False)
def trail_fallback(st, p):
    """K11: with no legal move at all, the lowest card of the hand is trailed."""
    hand = st[S_HANDS + 2 * p]
    b = hand & -hand
    end_promise(st, p, card_value(lowbit_index(b)))
    st[S_HANDS + 2 * p] = hand ^ b
    st[S_LOOSE] |= b
    st[S_LAST_MOVER] = p
    st[S_TURN] += 1


@njit(cache=True, nogil=True, _nrt=False)
def sweep(st, rules):
    """K12/P2: the last capturer (else the last player, who is then recorded as last capturer) takes the
    builds, then the loose cards."""
    if not rules[R_TABLE_TO_LAST]:      # the variant where nobody takes the last cards: they stay, unscored
        return
    taker = st[S_LAST_CAP]
    if taker < 0:
        taker = st[S_LAST_MOVER]
        st[S_LAST_CAP] = taker
    top_rank = (rules[R_DECK] >> 2) - 1
    for v in range(1, rules[R_MAX_BUILD_VALUE] + 1):
        if st[S_BOWNER + v] >= 0:
            if rules[R_CARD_SETS]:      # P27: each build as one block
                push_group(st, taker, build_cards(st, v), top_rank)
            else:
                for i in range(st[S_BNG + v]):
                    push_group(st, taker, st[S_BGROUPS + v * MAX_GROUPS + i], top_rank)
            remove_build(st, v)
    push_group(st, taker, st[S_LOOSE], top_rank)
    st[S_LOOSE] = 0


@njit(cache=True, nogil=True, _nrt=False)
def advance(st, rules, p):
    """After seat p's move: refill p's hand where the format does (K16 stock); pass the turn to the next
    seat in turn order (P8); deal when hands are empty and stock remains; else end (K12)."""
    nseats = rules[R_SEATS]
    refill = rules[R_REFILL]
    if refill:
        h = st[S_HANDS + 2 * p]
        pos = st[S_STOCK_POS]
        while popcount(h) < refill and pos < st[S_STOCK_LEN]:
            h |= 1 << st[S_STOCK + pos]
            pos += 1
        st[S_HANDS + 2 * p] = h
        st[S_STOCK_POS] = pos
    empty = True
    for s in range(nseats):
        if st[S_HANDS + 2 * s] != 0:
            empty = False
    if not empty:
        st[S_TO_MOVE] = rules[R_NEXT + p]
        return
    if st[S_STOCK_POS] < st[S_STOCK_LEN]:
        deal_round(st, rules)
        st[S_DEAL] += 1
        lead = rules[R_NEXT + st[S_DEALER]]             # K14: seat 0 leads again; P20: the seat after the dealer
        if rules[R_DEAL_LEADER] == 1:                   # the lead passes on one seat a deal
            for _ in range(st[S_DEAL] - 1):
                lead = rules[R_NEXT + lead]
        elif rules[R_DEAL_LEADER] == 2 and st[S_LAST_CAP] >= 0:
            lead = st[S_LAST_CAP]
        st[S_TO_MOVE] = lead
        return
    sweep(st, rules)
    st[S_OVER] = 1
    st[S_TO_MOVE] = -1


@njit(cache=True, nogil=True, _nrt=False)
def pile_mask(st, s):
    m = 0
    base = S_PILE + s * MAX_PILE
    for i in range(st[S_PLEN + s]):
        m |= 1 << st[base + i]
    return m


@njit(cache=True, nogil=True, _nrt=False)
def score(st, rules, out):
    """K13 scoring (P9 in 3p; by team in 4p, K15) into the per-seat blocks of a statistics row; returns the
    winning team (without teams, the winning seat), -1 on a tie.

    Per seat: its own pile's cards, spades, aces, 2S and 10D; its team's most-cards and most-spades points;
    `score` and `team_score`, the team's points (without teams, the seat's own)."""
    nseats = rules[R_SEATS]
    for s in range(nseats):
        m = pile_mask(st, s)
        o = G_SEAT0 + s * SEAT_FIELDS
        out[o + SEAT_TEAM] = rules[R_TEAM + s]
        out[o + SEAT_CARDS] = popcount(m)
        out[o + SEAT_SPADES] = popcount(m & SPADES)
        out[o + SEAT_ACES] = popcount(m & ACES_MASK)
        out[o + SEAT_TWO_SPADES] = (m >> TWO_SPADES) & 1
        out[o + SEAT_TEN_DIAMONDS] = (m >> TEN_DIAMONDS) & 1
        pts = st[S_SWEEPS + s]          # C1 `sweeps` (zero elsewhere)
        out[o + SEAT_SWEEPS] = pts
        while m:
            b = m & -m
            m ^= b
            pts += rules[R_CARD_POINTS + lowbit_index(b)]
        out[o + SEAT_SCORE] = pts
    best_cards = -1
    best_spades = -1
    n_best_cards = 0
    n_best_spades = 0
    for s in range(nseats):
        if not first_of_team(rules, s):
            continue
        tc = team_total(rules, out, s, SEAT_CARDS)
        ts = team_total(rules, out, s, SEAT_SPADES)
        if tc > best_cards:
            best_cards = tc
            n_best_cards = 0
        if tc == best_cards:
            n_best_cards += 1
        if ts > best_spades:
            best_spades = ts
            n_best_spades = 0
        if ts == best_spades:
            n_best_spades += 1
    for s in range(nseats):
        o = G_SEAT0 + s * SEAT_FIELDS
        mc = 0
        ms = 0
        if team_total(rules, out, s, SEAT_CARDS) == best_cards and (n_best_cards == 1 or rules[R_SPLIT_TIES]):
            mc = rules[R_MOST_CARDS] // n_best_cards
        if team_total(rules, out, s, SEAT_SPADES) == best_spades and (n_best_spades == 1 or rules[R_SPLIT_TIES]):
            ms = rules[R_MOST_SPADES] // n_best_spades
        out[o + SEAT_MOST_CARDS] = mc
        out[o + SEAT_MOST_SPADES] = ms
    for s in range(nseats):
        o = G_SEAT0 + s * SEAT_FIELDS
        out[o + SEAT_TEAM_SCORE] = team_total(rules, out, s, SEAT_SCORE)
    for s in range(nseats):
        o = G_SEAT0 + s * SEAT_FIELDS
        out[o + SEAT_TEAM_SCORE] += out[o + SEAT_MOST_CARDS] + out[o + SEAT_MOST_SPADES]
        out[o + SEAT_SCORE] = out[o + SEAT_TEAM_SCORE]
    winner = -1
    best = -1
    for s in range(nseats):
        if not first_of_team(rules, s):
            continue
        o = G_SEAT0 + s * SEAT_FIELDS
        sc = out[o + SEAT_SCORE]
        if rules[R_TIEBREAK]:       # P9: points, then cards, then spades, then the 10D holder
            sc = ((sc * 64 + out[o + SEAT_CARDS]) * 64 + out[o + SEAT_SPADES]) * 2 + out[o + SEAT_TEN_DIAMONDS]
        if sc > best:
            best = sc
            winner = rules[R_TEAM + s]
        elif sc == best:
            winner = -1
    return winner


@njit(cache=True, nogil=True, _nrt=False)
def series_leader(rules, row):
    """P10: the leader of a series' next match, from the statistics row of the previous one: the seat with
    the fewest points; among tied seats the one after the previous winner in turn order, else the
    lowest-numbered."""
    nseats = rules[R_SEATS]
    low = 1 << 30
    for s in range(nseats):
        x = row[G_SEAT0 + s * SEAT_FIELDS + SEAT_SCORE]
        low = x if x < low else low         # (no min(): the CUDA target does not type it)
    winner = row[G_WINNER]
    if winner >= 0:
        after = rules[R_NEXT + winner]
        if row[G_SEAT0 + after * SEAT_FIELDS + SEAT_SCORE] == low:
            return after
    for s in range(nseats):
        if row[G_SEAT0 + s * SEAT_FIELDS + SEAT_SCORE] == low:
            return s
    return 0


@njit(cache=True, nogil=True, _nrt=False)
def position_hash(st, rules):
    """H of docs/ENGINE.md computed from scratch (tests check the incremental move keys against it)."""
    h = np.uint64(0)
    for s in range(rules[R_SEATS]):
        m = st[S_HANDS + 2 * s]
        while m:
            b = m & -m
            m ^= b
            h ^= zterm(1, s, lowbit_index(b), 0)
        for i in range(st[S_PLEN + s]):
            h ^= zterm(5, s, i, st[S_PILE + s * MAX_PILE + i])
    m = st[S_LOOSE]
    while m:
        b = m & -m
        m ^= b
        h ^= zterm(2, 0, lowbit_index(b), 0)
    for v in range(1, MAX_VALUE + 1):
        o = st[S_BOWNER + v]
        if o >= 0:
            h ^= zterm(3, v, o, 0)
            if rules[R_CARD_SETS]:      # P27: a build is its cards
                h ^= zterm(4, v, 0, build_cards(st, v))
            else:
                for i in range(st[S_BNG + v]):
                    h ^= zterm(4, v, i, st[S_BGROUPS + v * MAX_GROUPS + i])
    if st[S_LAST_CAP] >= 0:
        h ^= zterm(6, st[S_LAST_CAP], 0, 0)
    return h
