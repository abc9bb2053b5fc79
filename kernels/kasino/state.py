"""Norwegian misère Kasino's state functions (N1, N4–N7; RULES.md P22, P24–P26) on the flat state vector: the
deal, a move, the end of a deal and of a round, the round's score and the card accounting of the double deck.
Card sets are multisets of two words (`kernels/core/multiset.py`)."""
from numba import njit

from ..core.bits import ACES_MASK, SPADES_MASK, TEN_DIAMONDS, TWO_SPADES, popcount
from ..core.layout import (
    G_SEAT0, KIND_CAPTURE, MAX_PILE, M_CARD, M_KIND, M_TABBE, M_TAKEN_HI, M_TAKEN_LO, R_CARD_POINTS, R_DECK,
    R_HAND, R_LATER_HAND, R_MATCH_ROUNDS, R_NEXT, R_SEATS, R_TABLE_INIT, R_TEAM, SEAT_ACES, SEAT_CARDS,
    SEAT_CARD_POINTS, SEAT_FIELDS, SEAT_LAST_POINT, SEAT_SCORE, SEAT_SPADES, SEAT_TABBE_MINUS, SEAT_TABBE_PLUS,
    SEAT_TEAM, SEAT_TEAM_SCORE, SEAT_TEN_DIAMONDS, SEAT_TWO_SPADES, S_ASIDE, S_DEAL, S_DEALER, S_HANDS, S_LAST_CAP,
    S_LAST_MOVER, S_LOOSE, S_LOOSE_HI, S_OVER, S_PILE, S_PLEN, S_ROUND, S_ROUNDS, S_STOCK, S_STOCK_LEN,
    S_STOCK_POS, S_TABBE, S_TO_MOVE, S_TURN,
)
from ..core.multiset import FACE_CARDS, SPADE_FACES, card_of_id, ms_add, ms_add_card, ms_remove_card, ms_sub


ALL_CARDS = (1 << 52) - 1


@njit(cache=True, nogil=True, _nrt=False)
def deal_cards(st, rules, per_seat):
    """Deal `per_seat` cards from the stock to each seat in seat order (P22)."""
    pos = st[S_STOCK_POS]
    for s in range(rules[R_SEATS]):
        lo = st[S_HANDS + 2 * s]
        hi = st[S_HANDS + 2 * s + 1]
        for _ in range(per_seat):
            lo, hi = ms_add_card(lo, hi, 1 << card_of_id(st[S_STOCK + pos]))
            pos += 1
        st[S_HANDS + 2 * s] = lo
        st[S_HANDS + 2 * s + 1] = hi
    st[S_STOCK_POS] = pos


@njit(cache=True, nogil=True, _nrt=False)
def init_round(st, rules, deck, rnd):
    """The first position of round `rnd` from the deck order (card ids 0..103), P22: the table cards, then
    each seat's first hand in seat order; dealt by seat (rnd + n - 2) mod n, led by the next seat. Match totals
    (S_SCORES) are left at zero, the match length at the format's."""
    for i in range(st.shape[0]):
        st[i] = 0
    n = rules[R_SEATS]
    st[S_LAST_CAP] = -1
    for i in range(rules[R_DECK]):
        st[S_STOCK + i] = deck[i]
    st[S_STOCK_LEN] = rules[R_DECK]
    lo = 0
    hi = 0
    for i in range(rules[R_TABLE_INIT]):
        lo, hi = ms_add_card(lo, hi, 1 << card_of_id(deck[i]))
    st[S_LOOSE] = lo
    st[S_LOOSE_HI] = hi
    st[S_STOCK_POS] = rules[R_TABLE_INIT]
    deal_cards(st, rules, rules[R_HAND])
    st[S_DEAL] = 1
    st[S_ROUND] = rnd
    st[S_ROUNDS] = rules[R_MATCH_ROUNDS]
    dealer = (rnd + n - 2) % n
    st[S_DEALER] = dealer
    st[S_LAST_MOVER] = dealer          # N4: the dealer is charged for a tabbe at the round's first play
    st[S_TO_MOVE] = rules[R_NEXT + dealer]
    return st[S_TO_MOVE]


@njit(cache=True, nogil=True, _nrt=False)
def apply_kasino(st, p, ws, r):
    """Seat p plays the move record at ws[r:] (the position right after it: no end of deal). A capture puts the
    played card and the captured multiset on p's pile and makes p the last capturer; a tabbe scores its plus
    to p and its minus to the seat that played just before (N4); a trail puts the card on the table."""
    c = ws[r + M_CARD]
    b = 1 << c
    lo, hi = ms_remove_card(st[S_HANDS + 2 * p], st[S_HANDS + 2 * p + 1], b)
    st[S_HANDS + 2 * p] = lo
    st[S_HANDS + 2 * p + 1] = hi
    if ws[r + M_KIND] == KIND_CAPTURE:
        tlo = ws[r + M_TAKEN_LO]
        thi = ws[r + M_TAKEN_HI]
        lo, hi = ms_sub(st[S_LOOSE], st[S_LOOSE_HI], tlo, thi)
        st[S_LOOSE] = lo
        st[S_LOOSE_HI] = hi
        base = S_PILE + p * MAX_PILE
        plo, phi = ms_add(st[base], st[base + 1], tlo, thi)
        plo, phi = ms_add_card(plo, phi, b)
        st[base] = plo
        st[base + 1] = phi
        st[S_PLEN + p] += popcount(tlo) + popcount(thi) + 1
        st[S_LAST_CAP] = p
        t = ws[r + M_TABBE]
        if t:
            st[S_TABBE + 2 * p] += t
            st[S_TABBE + 2 * st[S_LAST_MOVER] + 1] -= t
    else:
        lo, hi = ms_add_card(st[S_LOOSE], st[S_LOOSE_HI], b)
        st[S_LOOSE] = lo
        st[S_LOOSE_HI] = hi
    st[S_LAST_MOVER] = p
    st[S_TURN] += 1


@njit(cache=True, nogil=True, _nrt=False)
def advance_kasino(st, rules, p):
    """After seat p's move: the turn passes to seat + 1; when every hand is empty the table's face cards are set
    aside (N5), then the next deal is made (4 each, the leader to move), or the round ends: the last capturer
    (P25: else the player of the last card) takes the table and the set-aside spade face cards."""
    nseats = rules[R_SEATS]
    for s in range(nseats):
        if st[S_HANDS + 2 * s] != 0:
            st[S_TO_MOVE] = rules[R_NEXT + p]
            return
    flo = st[S_LOOSE] & FACE_CARDS
    fhi = st[S_LOOSE_HI] & FACE_CARDS
    alo, ahi = ms_add(st[S_ASIDE], st[S_ASIDE + 1], flo, fhi)
    st[S_ASIDE] = alo
    st[S_ASIDE + 1] = ahi
    st[S_LOOSE] &= ~FACE_CARDS
    st[S_LOOSE_HI] &= ~FACE_CARDS
    if st[S_STOCK_POS] < st[S_STOCK_LEN]:
        deal_cards(st, rules, rules[R_LATER_HAND])
        st[S_DEAL] += 1
        st[S_TO_MOVE] = rules[R_NEXT + st[S_DEALER]]
        return
    taker = st[S_LAST_CAP]
    if taker < 0:
        taker = st[S_LAST_MOVER]
        st[S_LAST_CAP] = taker
    slo = alo & SPADE_FACES
    shi = ahi & SPADE_FACES
    alo, ahi = ms_sub(alo, ahi, slo, shi)
    st[S_ASIDE] = alo
    st[S_ASIDE + 1] = ahi
    base = S_PILE + taker * MAX_PILE
    plo, phi = ms_add(st[base], st[base + 1], st[S_LOOSE], st[S_LOOSE_HI])
    plo, phi = ms_add(plo, phi, slo, shi)
    st[S_PLEN + taker] += popcount(st[S_LOOSE]) + popcount(st[S_LOOSE_HI]) + popcount(slo) + popcount(shi)
    st[base] = plo
    st[base + 1] = phi
    st[S_LOOSE] = 0
    st[S_LOOSE_HI] = 0
    st[S_OVER] = 1
    st[S_TO_MOVE] = -1


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def mask_points(rules, m):
    t = 0
    while m:
        b = m & -m
        m ^= b
        t += rules[R_CARD_POINTS + popcount(b - 1)]
    return t


@njit(cache=True, nogil=True, _nrt=False)
def score_kasino(st, rules, out):
    """P26: each seat's round score (card points of its pile, the last capturer's point, tabbe pluses and
    minuses) and its pair's in 4p/6p (`team_score`; `score` too, as in Cassino), with the pile's counts, into
    the per-seat blocks of a statistics row. Returns the team with the lowest round score (-1 on a tie)."""
    nseats = rules[R_SEATS]
    for s in range(nseats):
        o = G_SEAT0 + s * SEAT_FIELDS
        lo = st[S_PILE + s * MAX_PILE]
        hi = st[S_PILE + s * MAX_PILE + 1]
        pts = mask_points(rules, lo) + mask_points(rules, hi)
        last = 1 if st[S_OVER] and st[S_LAST_CAP] == s else 0
        out[o + SEAT_TEAM] = rules[R_TEAM + s]
        out[o + SEAT_CARDS] = popcount(lo) + popcount(hi)
        out[o + SEAT_SPADES] = popcount(lo & SPADES_MASK) + popcount(hi & SPADES_MASK)
        out[o + SEAT_ACES] = popcount(lo & ACES_MASK) + popcount(hi & ACES_MASK)
        out[o + SEAT_TWO_SPADES] = ((lo >> TWO_SPADES) & 1) + ((hi >> TWO_SPADES) & 1)
        out[o + SEAT_TEN_DIAMONDS] = ((lo >> TEN_DIAMONDS) & 1) + ((hi >> TEN_DIAMONDS) & 1)
        out[o + SEAT_CARD_POINTS] = pts
        out[o + SEAT_LAST_POINT] = last
        out[o + SEAT_TABBE_PLUS] = st[S_TABBE + 2 * s]
        out[o + SEAT_TABBE_MINUS] = st[S_TABBE + 2 * s + 1]
        out[o + SEAT_SCORE] = pts + last + st[S_TABBE + 2 * s] + st[S_TABBE + 2 * s + 1]
    for s in range(nseats):
        t = 0
        for u in range(nseats):
            if rules[R_TEAM + u] == rules[R_TEAM + s]:
                t += out[G_SEAT0 + u * SEAT_FIELDS + SEAT_SCORE]
        out[G_SEAT0 + s * SEAT_FIELDS + SEAT_TEAM_SCORE] = t
    return lowest_team(rules, out, SEAT_TEAM_SCORE)


@njit(cache=True, nogil=True, _nrt=False)
def lowest_team(rules, row, field):
    """N7 (misère): the team whose per-seat `field` (a team total every seat of it holds) is the lowest; -1 on
    a tie at the lowest."""
    winner = -1
    best = 1 << 40
    for s in range(rules[R_SEATS]):
        t = row[G_SEAT0 + s * SEAT_FIELDS + field]
        team = rules[R_TEAM + s]
        if t < best:
            best = t
            winner = team
        elif t == best and team != winner:
            winner = -1
    return winner


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def count_in(c0, c1, c2, over, lo, hi):
    """Add the multiset (lo, hi) to per-card counters held as three bit planes (count = c0 + 2 c1 + 4 c2)."""
    b0 = lo ^ hi
    b1 = hi
    k0 = c0 & b0
    c0 ^= b0
    k1 = (c1 & b1) | (c1 & k0) | (b1 & k0)
    c1 ^= b1 ^ k0
    over |= c2 & k1
    c2 ^= k1
    return c0, c1, c2, over


@njit(cache=True, nogil=True, _nrt=False)
def cards_accounted_kasino(st, rules):
    """Every card of the double deck is in the hands, on the table, in a pile, set aside or in the stock exactly
    twice; every set is a well-formed multiset; pile counts agree with the piles."""
    c0 = 0
    c1 = 0
    c2 = 0
    over = 0
    for s in range(rules[R_SEATS]):
        for base in (S_HANDS + 2 * s, S_PILE + s * MAX_PILE):
            lo = st[base]
            hi = st[base + 1]
            if hi & ~lo:
                return False
            c0, c1, c2, over = count_in(c0, c1, c2, over, lo, hi)
        if st[S_PLEN + s] != popcount(st[S_PILE + s * MAX_PILE]) + popcount(st[S_PILE + s * MAX_PILE + 1]):
            return False
    for base in (S_LOOSE, S_ASIDE):
        lo = st[base]
        hi = st[base + 1]
        if hi & ~lo:
            return False
        c0, c1, c2, over = count_in(c0, c1, c2, over, lo, hi)
    if (st[S_ASIDE] | st[S_ASIDE + 1]) & ~FACE_CARDS:
        return False
    for i in range(st[S_STOCK_POS], st[S_STOCK_LEN]):
        c0, c1, c2, over = count_in(c0, c1, c2, over, 1 << card_of_id(st[S_STOCK + i]), 0)
    return over == 0 and c0 == 0 and c2 == 0 and c1 == ALL_CARDS
