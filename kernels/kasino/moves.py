"""Norwegian misère Kasino's move rules (N2, N3; RULES.md P23, P24) on the shared group layer.

A played card c (hand value: A 14, J 11, Q 12, K 13) has as **matches** the table cards of its rank and the sets
of table cards whose table values (A 1) sum to its value: the sum bucket of its value in the item subsets
(`groups.item_subsets`), plus the single table aces for a played ace. A capture is a union U of disjoint matches
that leaves no match outside it (P23): every disjoint selection of matches (`groups.combo_next`) is made, and
those whose union meets every match are offered. A card with no match crawls (kind `trail`). If some hand card
can clear the table (an exact cover of the items by its matches), only the clearing captures are legal (N3).

Items are the table's cards with a second copy as its own item right after the first; a union taking a second
copy without the first is the same move as its mirror image and is skipped (P7), and unions reached by several
selections share one key (ENGINE.md, Kasino move keys), as every sink expects.
"""
import numpy as np
from numba import njit

from ..core.bits import lowbit_index, popcount
from ..core.groups import item_subsets
from ..core.heuristic import kasino_score
from ..core.layout import (
    CARD_BITS, C_BEND, C_BSTART, C_KACES, C_KBIT, C_KITEMH, C_KN, C_KPTS, C_KSECOND, C_KVAL, C_OVERFLOW, C_SEEN,
    C_SINK, C_STOP, KIND_CAPTURE, KIND_TRAIL, MAX_ITEMS, MAX_SUBSETS, R_CARD_POINTS, R_TABBE, R_TABBE_FORCED,
    SINK_HEURISTIC, SINK_RANDOM, SINK_USER, S_HANDS, S_LOOSE, S_LOOSE_HI, WS_RAW, WS_RAWH, WS_SEL1, WS_SEL2,
    WS_SUB, WS_SUBH, WS_USED1, WS_USED2,
)
from ..core.rng import z_hand, z_loose
from ..core.sink import consider, prefilter


ACE_HAND = 14           # an ace played from the hand counts 14, on the table 1 (seed 003)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def hand_value(c):
    r = (c >> 2) + 1
    return ACE_HAND if r == 1 else r


@njit(cache=True, nogil=True, _nrt=False)
def prepare_table(st, rules, ws):
    """The table's cards as items (card index ascending, a second copy right after its first) and their
    subsets by sum up to 14. Returns the number of items."""
    lo = st[S_LOOSE]
    hi = st[S_LOOSE_HI]
    n = 0
    second = 0
    aces = 0
    m = lo
    while m:
        b = m & -m
        m ^= b
        c = lowbit_index(b)
        for copy in range(2 if hi & b else 1):
            if n >= MAX_ITEMS:
                ws[C_OVERFLOW] = 1
                break
            ws[C_KVAL + n] = (c >> 2) + 1
            ws[C_KBIT + n] = b
            ws[C_KITEMH + n] = np.int64(z_loose(c + 52 * copy))
            ws[C_KPTS + n] = rules[R_CARD_POINTS + c]
            if copy:
                second |= 1 << n
            if c < 4:
                aces |= 1 << n
            n += 1
    ws[C_KN] = n
    ws[C_KSECOND] = second
    ws[C_KACES] = aces
    item_subsets(ws, n, ACE_HAND)
    return n


@njit(cache=True, nogil=True, _nrt=False)
def collect_matches(ws, c):
    """The matches of card c as packed item masks at WS_RAW (their key terms at WS_RAWH): its value's bucket,
    and for an ace the single table aces. Returns their number."""
    v = hand_value(c)
    nm = 0
    for k in range(ws[C_BSTART + v], ws[C_BEND + v]):
        ws[WS_RAW + nm] = ws[WS_SUB + k] & CARD_BITS
        ws[WS_RAWH + nm] = ws[WS_SUBH + k]
        nm += 1
    if v == ACE_HAND:
        a = ws[C_KACES]
        while a:
            b = a & -a
            a ^= b
            if nm >= MAX_SUBSETS:       # a guard: never in play (docs/ENGINE.md, "Scratch bounds")
                ws[C_OVERFLOW] = 1
                break
            ws[WS_RAW + nm] = b
            ws[WS_RAWH + nm] = ws[C_KITEMH + lowbit_index(b)]
            nm += 1
    return nm


@njit(cache=True, nogil=True, _nrt=False)
def clears(ws, nm, full):
    """N3: whether the matches at WS_RAW[:nm] cover the items `full` exactly with disjoint matches (a search
    that covers the lowest uncovered item first; its stack at WS_SEL2/WS_USED2, depth at most the items)."""
    if nm == 0 or full == 0:
        return False
    d = 0
    ws[WS_USED2] = 0
    i = 0
    while True:
        u = ws[WS_USED2 + d]
        if u == full:
            return True
        x = full & ~u
        x &= -x
        pushed = False
        while i < nm:
            g = ws[WS_RAW + i]
            if g & x and g & u == 0:
                ws[WS_SEL2 + d] = i
                ws[WS_USED2 + d + 1] = u | g
                d += 1
                i = 0
                pushed = True
                break
            i += 1
        if not pushed:
            if d == 0:
                return False
            d -= 1
            i = ws[WS_SEL2 + d] + 1


@njit(cache=True, nogil=True, _nrt=False)
def offer_capture(ws, p, c, cpts, u, h, tabbe):
    """Offer the capture of the items u (their key terms xor h) by card c (card points cpts): greedy features
    (misère: the fewest points taken, handed to the maximising sink as -points), key, then the sink."""
    lo = 0                          # the captured multiset, and the card points it holds, in one pass
    hi = 0
    pts = cpts + tabbe
    m = u
    while m:
        b = m & -m
        m ^= b
        i = lowbit_index(b)
        if (ws[C_KSECOND] >> i) & 1:
            hi |= ws[C_KBIT + i]
        else:
            lo |= ws[C_KBIT + i]
        pts += ws[C_KPTS + i]
    if ws[C_SINK] != SINK_RANDOM:
        sink = ws[C_SINK]           # a user bot reads the points taken; the maximising sinks, misère, minus
        score = kasino_score(ws, pts, ws[C_KN] - popcount(u)) if sink == SINK_HEURISTIC else \
            pts if sink == SINK_USER else -pts
        if not prefilter(ws, score, 0, 0, 0):
            return
    key = z_hand(p, c) ^ np.uint64(h)
    consider(ws, key, KIND_CAPTURE, c, hand_value(c), tabbe, lo, 0, 0, hi)


@njit(cache=True, nogil=True, _nrt=False)
def excludable(ws, nm, x, e):
    """Whether item x may join the items e left on the table: no match for the card lies within e + x."""
    ex = e | x
    for k in range(nm):
        g = ws[WS_RAW + k]
        if g & x and g & ~ex == 0:
            return False
    return True


@njit(cache=True, nogil=True, _nrt=False)
def offer_maximal(ws, p, c, cpts, nm, full, tabbe):
    """P23: every union U of disjoint matches (WS_RAW[:nm]) that leaves no match outside it. A search over the
    items, lowest undecided first: it stays on the table (if no match then lies wholly among the items left
    there), or a match holding it and no decided item is taken. Each partition of each capture is reached
    once; a branch whose left items hold a match ends at once. Unions taking a card's second copy without its
    first are skipped (their mirror images are the same moves). Stack: WS_SEL1 (-1: left, else the match),
    WS_USED1 (items taken), WS_USED2 (items left), depth at most the items."""
    second = ws[C_KSECOND]
    d = 0
    ws[WS_USED1] = 0
    ws[WS_USED2] = 0
    i = -2                          # -2: a new node; -1: try leaving its item; k >= 0: try match k
    while True:
        u = ws[WS_USED1 + d]
        e = ws[WS_USED2 + d]
        free = full & ~(u | e)
        pushed = False
        if free == 0:
            if i == -2 and ((u & second) >> 1) & ~u == 0:
                h = np.uint64(0)
                m = u
                while m:
                    b = m & -m
                    m ^= b
                    h ^= np.uint64(ws[C_KITEMH + lowbit_index(b)])
                offer_capture(ws, p, c, cpts, u, h, tabbe if u == full else 0)
                if ws[C_STOP]:      # a full listing window (sink.py)
                    return
        else:
            x = free & -free
            if i == -2:
                i = -1
            if i == -1:
                i = 0
                if excludable(ws, nm, x, e):
                    ws[WS_SEL1 + d] = -1
                    ws[WS_USED1 + d + 1] = u
                    ws[WS_USED2 + d + 1] = e | x
                    d += 1
                    i = -2
                    pushed = True
            if not pushed:
                while i < nm:
                    g = ws[WS_RAW + i]
                    if g & x and g & (u | e) == 0:
                        ws[WS_SEL1 + d] = i
                        ws[WS_USED1 + d + 1] = u | g
                        ws[WS_USED2 + d + 1] = e
                        d += 1
                        i = -2
                        pushed = True
                        break
                    i += 1
        if not pushed:
            if d == 0:
                return
            d -= 1
            i = ws[WS_SEL1 + d] + 1     # after leaving the item (-1): the first match


@njit(cache=True, nogil=True, _nrt=False)
def offer_trail_kasino(ws, p, c):
    """A card with no match crawls onto the table (N2): kind `trail`, nothing taken, 0 points."""
    if ws[C_SINK] != SINK_RANDOM and not prefilter(ws, kasino_score(ws, 0, ws[C_KN] + 1) if ws[C_SINK] == SINK_HEURISTIC
                                                   else 0, 0, 0, 0):
        return
    consider(ws, z_hand(p, c), KIND_TRAIL, c, hand_value(c), 0, 0, 0, 0, 0)


@njit(cache=True, nogil=True, _nrt=False)
def gen_kasino(st, rules, p, ws):
    """Offer every legal move of seat p to the sink (N2, N3; P23, P24). Returns the candidates offered."""
    ws[C_OVERFLOW] = 0
    n = prepare_table(st, rules, ws)
    full = (1 << n) - 1
    hand = st[S_HANDS + 2 * p]
    # N3: the hand cards that clear the table; if there is one, only their clearing captures are legal
    clearing = 0
    m = hand
    while m:
        b = m & -m
        m ^= b
        c = lowbit_index(b)
        if clears(ws, collect_matches(ws, c), full):
            clearing |= b
    # N4: one table card is cleared only by a card of its rank, a double tabbe (`tabbe_value` twice)
    tabbe = rules[R_TABBE] * (2 if n == 1 else 1)
    if clearing and rules[R_TABBE_FORCED]:
        h = np.uint64(0)
        for i in range(n):
            h ^= np.uint64(ws[C_KITEMH + i])
        m = clearing
        while m:
            b = m & -m
            m ^= b
            c = lowbit_index(b)
            offer_capture(ws, p, c, rules[R_CARD_POINTS + c], full, h, tabbe)
        return ws[C_SEEN]
    m = hand
    while m and not ws[C_STOP]:     # C_STOP: a full listing window (sink.py)
        b = m & -m
        m ^= b
        c = lowbit_index(b)
        nm = collect_matches(ws, c)
        if nm == 0:
            offer_trail_kasino(ws, p, c)
        else:
            offer_maximal(ws, p, c, rules[R_CARD_POINTS + c], nm, full, tabbe if (clearing >> c) & 1 else 0)
    return ws[C_SEEN]
