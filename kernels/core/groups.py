"""The shared group layer of the move generator: table items, their subsets by sum, disjoint selections.

Every family's move rules sit on these three things:

- **items**: the loose cards and the usable top cards of each opponent pile (K8), with the pile prefixes a
  move must respect (`pile_ok`);
- **subsets by sum**: every item subset whose sum is at most the highest group value, with at most one card
  of each pile, made from the loose cards first and then from each usable pile's cards in turn, and bucketed
  by sum: in each bucket the loose-only subsets in descending mask order (the canonical group order of
  RULES.md, in which K9 follow-up groups take their places in a build), then those holding a pile card, in
  the reverse of the order they were made (that order decides only the order moves are generated and listed
  in, never a move or its key);
- **disjoint selections** (`combo_start`/`combo_next`): every set of pairwise-disjoint subsets of a bucket
  range, each set once, enumerated with an explicit stack. A move's selection is made in two stages, its
  groups holding pile cards first, then its loose-only groups: a pile-card choice that breaks K8's prefix
  rule is dropped before any loose-only groups are combined with it. With one usable opponent pile the
  pile-card groups are chosen depth by depth (`prefix_start`/`prefix_next`), so only K8 prefixes are made.

Subsets are packed group words (layout: card mask, sum, source flags), each with its hash terms (the xor of
its cards' terms in place: `z_loose` for a loose card, `z_pile` at its pile position for a pile card), so a
move's key takes one term per group instead of one per card. All scratch is in the thread's flat workspace
`ws`; every size is a bound proven in docs/ENGINE.md ("Scratch bounds").
"""
import numpy as np
from numba import njit

from .bits import card_value, lowbit_index, popcount
from .layout import (
    CARD_BITS, C_ABOVE, C_BEND, C_BMID, C_BSTART, C_CTL, C_ITEMH, C_KITEMH, C_KMAX, C_KVAL, C_NOPP, C_NSUB, C_OPP,
    C_OVERFLOW, C_PFORBID, C_PIDX, C_PIDX_BUILT, C_PIDX_TOP, C_PITEMS, C_PLEN, C_PMASK, C_PREFIX, C_REACH, C_SUMS,
    C_SUMS_LOOSE, C_SUMS_LOOSE_ONLY, FLAG_LOOSE, FLAG_SHIFT, MAX_PILE, MAX_SUBSETS, PIDX_STRIDE, PREFIX_STRIDE,
    R_MAX_BUILD_VALUE, R_PILES, R_SEATS, R_TEAM, R_UNSUMMED, S_LOOSE, S_PILE, S_PLEN, VALUE_SHIFT, WS_PIDX, WS_RAW,
    WS_RAWH, WS_SEL3, WS_SEL4, WS_SUB, WS_SUBH, WS_USED3, WS_USED4,
)
from .rng import z_loose, z_pile


NIBBLE_LOW = np.uint64(0x1111111111111111)      # bit 0 of every 4-bit field
NIBBLE_HIGH = np.uint64(0x8888888888888888)     # bit 3 of every 4-bit field
_U3 = np.uint64(3)


NEW_NODE = -1               # `piles_next` states: a node not yet visited,
COVER_TOP = -2              # one whose current pile is to get its topmost unused card (no gap),
DONE = -3                   # and the end of the search
PAST_END = 1 << 62          # an enumeration index past every bucket


@njit(cache=True, nogil=True, _nrt=False)
def end_enumerations(ws):
    """Make every selection enumeration under way end at its next step: `combo_next` (C_CTL, C_CTL + 2) and
    `prefix_next` (C_CTL + 4) at depth 0 past their last index, `piles_next` (C_CTL + 6) done. A listing window
    that is full calls this (sink.py), so the generator comes back at once with no test in its loops; an
    enumeration started afterwards (combo_start, prefix_start, piles_start) runs until its next candidate
    ends it again, and the loops above them test C_STOP."""
    ws[C_CTL] = 0
    ws[C_CTL + 1] = PAST_END
    ws[C_CTL + 2] = 0
    ws[C_CTL + 3] = PAST_END
    ws[C_CTL + 4] = 0
    ws[C_CTL + 5] = PAST_END
    ws[C_CTL + 6] = 0
    ws[C_CTL + 7] = DONE
    ws[C_CTL + 8] = 0


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def combo_start(ws, taken, lo, used, ctl):
    """Start a `combo_next` enumeration from index lo, with the cards `taken` unavailable."""
    ws[used] = taken
    ws[ctl] = 0
    ws[ctl + 1] = lo


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def combo_next(ws, cm, lo, hi, sel, used, ctl):
    """Next selection of pairwise-disjoint groups among the packed words ws[cm+lo : cm+hi] (ascending
    indices), each selection once.

    sel, used and ctl are workspace offsets. After `combo_start`, call until -1. On return d >= 1,
    ws[sel : sel+d] are the chosen indices and ws[used+d] the union of their cards with the taken ones.
    The stack depth never exceeds the number of disjoint non-empty groups (docs/ENGINE.md).
    """
    d = ws[ctl]
    i = ws[ctl + 1]
    while True:
        while i < hi:
            g = ws[cm + i] & CARD_BITS
            if g & ws[used + d] == 0:
                ws[sel + d] = i
                ws[used + d + 1] = ws[used + d] | g
                d += 1
                ws[ctl] = d
                ws[ctl + 1] = i + 1
                return d
            i += 1
        if d == 0:
            ws[ctl + 1] = hi
            return -1
        d -= 1
        i = ws[sel + d] + 1


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def next_holding(ws, i, hi, card, u, forbid):
    """The first index k in [i, hi) whose group ws[WS_SUB+k] holds `card` and none of the cards u or
    `forbid`; hi if there is none."""
    while i < hi:
        g = ws[WS_SUB + i] & CARD_BITS
        if g & card and g & (u | forbid) == 0:
            return i
        i += 1
    return hi


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def prefix_start(ws, taken, used, ctl):
    """Start a `prefix_next` enumeration with the cards `taken` already used."""
    ws[used] = taken
    ws[ctl] = 0
    ws[ctl + 1] = -1                # -1: the current selection is not yet tested


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def prefix_next(ws, lo, hi, sel, used, ctl):
    """Next selection of pile-card groups among ws[WS_SUB+lo : WS_SUB+hi] that, with the taken cards, uses
    exactly the top cards of the one usable opponent pile (K8); -1 when there is none left.

    With one pile each of these groups holds exactly one of its cards, so the groups are chosen depth by
    depth: the next group must hold the topmost pile card not yet used. Every valid selection, its groups
    ordered by the depth of their pile card, is reached exactly once (the empty one first), and none is made
    only to fail the prefix test. Stack as `combo_next`: ws[sel : sel+d] chosen indices, ws[used+d] cards."""
    d = ws[ctl]
    i = ws[ctl + 1]
    depth = popcount(ws[C_PMASK])
    while True:
        u = ws[used + d]
        if i < 0:                       # a new selection: yield it if it is a prefix, then extend it
            i = lo
            if pile_ok(u, ws):
                ws[ctl] = d
                ws[ctl + 1] = i
                return d
        k = 0                           # the topmost pile card not yet used; the next group must hold it
        while k < depth and ws[C_PREFIX + k + 1] & ~u == 0:
            k += 1
        card = ws[C_PREFIX + k + 1] & ~u if k < depth else 0
        pushed = False
        if card:
            i = next_holding(ws, i, hi, card, u, 0)
            if i < hi:
                ws[sel + d] = i
                ws[used + d + 1] = u | (ws[WS_SUB + i] & CARD_BITS)
                d += 1
                i = -1
                pushed = True
        if not pushed:
            if d == 0:
                ws[ctl + 1] = hi
                return -1
            d -= 1
            i = ws[sel + d] + 1


@njit(cache=True, nogil=True, _nrt=False)
def pile_index(ws, v, lo, hi):
    """Index the pile-card groups ws[WS_SUB+lo : WS_SUB+hi] of bucket v by the pile cards they hold, once per
    position: the groups holding pile card x are then WS_PIDX[r[x] : r[x+1]], r = ws[C_PIDX+v*PIDX_STRIDE:]
    (a counting sort; each run in bucket order; a group holding cards of two piles is in both runs)."""
    base = C_PIDX + v * PIDX_STRIDE
    for x in range(PIDX_STRIDE):
        ws[base + x] = 0
    nopp = ws[C_NOPP]
    for k in range(lo, hi):         # the count of card x's run at base + x + 2
        g = ws[WS_SUB + k]
        for j in range(nopp):
            y = g & ws[C_PMASK + j]
            if y:
                ws[base + lowbit_index(y) + 2] += 1
    at = ws[C_PIDX_TOP]
    for x in range(PIDX_STRIDE):    # now base + x + 1 holds the start of card x's run
        at += ws[base + x]
        ws[base + x] = at
    for k in range(lo, hi):         # each group at its runs' cursors; a cursor ends where the next run starts
        g = ws[WS_SUB + k]
        for j in range(nopp):
            y = g & ws[C_PMASK + j]
            if y:
                x = lowbit_index(y) + 1
                ws[WS_PIDX + ws[base + x]] = k
                ws[base + x] += 1
    ws[C_PIDX_TOP] = at
    ws[C_PIDX_BUILT] |= 1 << v




@njit(cache=True, nogil=True, _nrt=False)
def piles_start(ws, taken, v, lo, hi):
    """Several usable opponent piles: start a `piles_next` search over the pile-card groups of bucket v,
    ws[WS_SUB+lo : WS_SUB+hi], with the cards `taken` already used. Per pile, the search goes no deeper than
    the groups (with the taken cards) reach without a gap (C_KMAX); the cards below are never used. Returns
    False when no selection exists (a taken pile card lies under a card no group holds)."""
    if not (ws[C_PIDX_BUILT] >> v) & 1:
        pile_index(ws, v, lo, hi)
    pitems = ws[C_PITEMS]
    reach = (taken | ws[C_REACH + v]) & pitems
    usable = 0
    for j in range(ws[C_NOPP]):
        base = C_PREFIX + j * PREFIX_STRIDE
        depth = popcount(ws[C_PMASK + j])
        kmax = 0
        while kmax < depth and ws[base + kmax + 1] & ~reach == 0:
            kmax += 1
        if taken & ws[C_PMASK + j] & ~ws[base + kmax]:
            return False
        ws[C_KMAX + j] = kmax
        usable |= ws[base + kmax]
    ws[C_PFORBID] = pitems & ~usable
    ws[WS_USED4] = taken
    ws[C_CTL + 6] = 0
    ws[C_CTL + 7] = NEW_NODE
    ws[C_CTL + 8] = 0
    return True


@njit(cache=True, nogil=True, _nrt=False)
def piles_next(ws, v):
    """Next selection of pile-card groups of bucket v, pairwise disjoint and disjoint from the taken cards,
    that with them uses from each usable opponent pile exactly its top k cards, for any k (K8); -1 when there
    is none left.

    An exact-cover search over the piles in order, each node branching on one card, chosen from the cards
    used so far: if a pile not yet closed has a gap (an unused card above a used one), its topmost gap card,
    which every completion must cover; otherwise the current pile is closed (no more of its cards), or its
    topmost unused card is covered. The branches are the groups holding that card and no card of a closed
    pile: the card's run in the pile index (`pile_index`), in bucket order. Each selection is reached once
    (every completion covers the node's card with exactly one group), and a gap no group can fill ends its
    branch at once. On return d >= 0: ws[WS_SEL3 : WS_SEL3+d] are the chosen groups' bucket indices and
    ws[WS_USED3+d] the cards used. The search's own stack is WS_SEL4/WS_USED4 (per entry: -1 for a close, or
    the run position t >= 0 of the chosen group and the card it covers, t * 64 + card, so that going back to
    a node goes on with its run without finding its card again; at most 40 + 4 entries, docs/ENGINE.md)."""
    d = ws[C_CTL + 6]
    t = ws[C_CTL + 7]               # NEW_NODE, COVER_TOP, DONE, or the next run position to try
    j = ws[C_CTL + 8]               # piles closed so far
    if t == DONE:
        return -1
    nopp = ws[C_NOPP]
    runs = C_PIDX + v * PIDX_STRIDE
    forbid = ws[C_PFORBID]
    closed = 0                      # the cards of the closed piles
    for i in range(j):
        closed |= ws[C_PMASK + i]
    x = -1                          # the card the node branches on, once known
    while True:
        u = ws[WS_USED4 + d]
        if t == NEW_NODE:
            x = -1
            for i in range(j, nopp):
                base = C_PREFIX + i * PREFIX_STRIDE
                y = u & ws[C_PMASK + i]
                if ws[base + popcount(y)] != y:     # a gap: cover its topmost card
                    k = 0
                    while ws[base + k + 1] & ~u == 0:
                        k += 1
                    x = lowbit_index(ws[base + k + 1] & ~ws[base + k])
                    t = 0
                    break
            if x < 0:
                if j == nopp - 1:           # closing the last pile completes a selection: its groups for the
                    ng = 0                  # caller; the next call covers that pile's next card instead
                    for e in range(d):
                        s = ws[WS_SEL4 + e]
                        if s >= 0:
                            ws[WS_SEL3 + ng] = ws[WS_PIDX + (s >> 6)]
                            ng += 1
                    ws[WS_USED3 + ng] = u
                    ws[C_CTL + 6] = d
                    ws[C_CTL + 7] = COVER_TOP
                    ws[C_CTL + 8] = j
                    return ng
                ws[WS_SEL4 + d] = -1        # close the current pile
                ws[WS_USED4 + d + 1] = u
                closed |= ws[C_PMASK + j]
                d += 1
                j += 1
                continue
        elif t == COVER_TOP:                # no gap: cover the current pile's topmost unused card, within reach
            k = popcount(u & ws[C_PMASK + j])
            x = -1
            if k < ws[C_KMAX + j]:
                base = C_PREFIX + j * PREFIX_STRIDE
                x = lowbit_index(ws[base + k + 1] & ~ws[base + k])
                t = 0
        if x >= 0:                          # the groups holding card x and no closed pile's card
            end = ws[runs + x + 1]
            if t < ws[runs + x]:
                t = ws[runs + x]
            block = u | forbid | closed
            while t < end:
                g = ws[WS_SUB + ws[WS_PIDX + t]] & CARD_BITS
                if g & block == 0:
                    break
                t += 1
            if t < end:
                ws[WS_SEL4 + d] = t * 64 + x
                ws[WS_USED4 + d + 1] = u | g
                d += 1
                t = NEW_NODE
                continue
        if d == 0:
            ws[C_CTL + 6] = 0
            ws[C_CTL + 7] = DONE
            ws[C_CTL + 8] = 0
            return -1
        d -= 1
        s = ws[WS_SEL4 + d]
        if s == -1:                         # back from a close: cover that pile's next card instead
            j -= 1
            closed &= ~ws[C_PMASK + j]
            t = COVER_TOP
        else:                               # back from a cover: the node's next branch
            x = s & 63
            t = (s >> 6) + 1


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def pile_ok(used, ws):
    """K8: the cards used from each opponent pile are exactly its top k."""
    if used & ws[C_PITEMS] == 0:
        return True
    for j in range(ws[C_NOPP]):
        x = used & ws[C_PMASK + j]
        if x != ws[C_PREFIX + j * PREFIX_STRIDE + popcount(x)]:
            return False
    return True


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def nibbles(values):
    """Bit v of `values` (< 2**16) moved to bit 4v, one nibble per value (the "part 1 by 3" bit trick)."""
    x = (values | (values << 24)) & 0x000000FF000000FF
    x = (x | (x << 12)) & 0x000F000F000F000F
    x = (x | (x << 6)) & 0x0303030303030303
    return (x | (x << 3)) & 0x1111111111111111


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def usable_depth(st, s, partners, held4):
    """How many top cards of seat s's pile a move can use (K8): the largest k such that, for some value V in
    held4 (bit 4V), none of the top k is above V and at most `partners` of them are not V."""
    plen = st[S_PLEN + s]
    depth = 0
    alive = held4                 # bit 4V: the top depth cards can all go to value V
    counts = 0                    # nibble V: cards of value V among the top depth+1
    while depth < plen:
        w = card_value(st[S_PILE + s * MAX_PILE + plen - 1 - depth])
        alive &= ~((1 << (4 * w)) - 1)          # no card above V
        counts += 1 << (4 * w)
        # at most `partners` of the top depth+1 are not V: count(V) >= t, tested in every nibble at once
        # (8 + count - t >= 8) with no borrow between nibbles, as a count is at most 4 (usable piles exist
        # only with one deck) and t <= 7 when it is tested
        t = depth + 1 - partners
        if t > 7:
            alive = 0
        elif t > 0:
            alive &= np.int64((((np.uint64(counts) | NIBBLE_HIGH) - np.uint64(t) * NIBBLE_LOW)
                               & NIBBLE_HIGH) >> _U3)
        if alive == 0:
            break
        depth += 1
    return depth


@njit(cache=True, nogil=True, _nrt=False)
def several_depths(st, rules, ws, team, nloose, held4):
    """The usable depths of several opponents' piles, by seat at C_KMAX + seat: the greatest fixpoint of
    `usable_depth` with each pile's partners counting the other piles' depths (docs/ENGINE.md)."""
    nseats = rules[R_SEATS]
    total = 0
    for s in range(nseats):
        if rules[R_TEAM + s] != team:
            ws[C_KMAX + s] = st[S_PLEN + s]
            total += st[S_PLEN + s]
    changed = True
    while changed:
        changed = False
        for s in range(nseats):
            if rules[R_TEAM + s] == team:     # K8, K15: never the mover's own pile nor his teammate's
                continue
            depth = usable_depth(st, s, nloose + 1 + total - ws[C_KMAX + s], held4)
            if depth != ws[C_KMAX + s]:
                total -= ws[C_KMAX + s] - depth
                ws[C_KMAX + s] = depth
                changed = True


@njit(cache=True, nogil=True, _nrt=False)
def prepare_items(st, rules, p, ws, held, top_held):
    """The items of seat p's position (loose cards, usable opponent pile cards) and their subsets by sum.
    `held`: bit v set for each value v a move's groups with pile cards may take: those of which the mover
    holds a card, and in 4p his partner's builds' and open promises' values (P12, P14); with no loose card
    only the built ones (K4, K5). `top_held`: the values a move of one group may take (a K7 change), for which
    each pile's top card stays usable; 0 for none."""
    nseats = rules[R_SEATS]
    loose = st[S_LOOSE] & ~rules[R_UNSUMMED]     # P16: a card with no number is never in a group
    maxv = rules[R_MAX_BUILD_VALUE]

    # Opponent pile items (K8): only an opponent's pile, only its top k cards, each in a different group of
    # the move's one value V, a value the mover holds (the played card's, or a build's he keeps a card for).
    # A pile card of value V may be a group alone; one of another value needs a partner of its own in its
    # group: a loose card, the played card or another opponent's pile card. So the top k cards are usable
    # only if, for some held V, none of them is above V and at most `partners` are not V; the depth below
    # is the largest such k, and so never cuts a legal move (docs/ENGINE.md, "Usable pile depth"). With
    # several opponents a pile's partners include the other piles' usable cards, so the depths are a
    # greatest fixpoint: from the pile lengths, each pile's depth is recomputed from the others' until none
    # changes (each pass keeps every depth an upper bound of what a move can use).
    nloose = popcount(loose)
    nopp = 0
    items = loose
    if rules[R_PILES]:
        team = rules[R_TEAM + p]
        held4 = nibbles(held)
        top4 = nibbles(top_held)
        if nseats > 2:
            several_depths(st, rules, ws, team, nloose, held4)
        for s in range(nseats):
            if rules[R_TEAM + s] == team:
                continue
            plen = st[S_PLEN + s]
            # 1v1: one opponent, so loose cards and the played card are the only partners
            depth = ws[C_KMAX + s] if nseats > 2 else usable_depth(st, s, nloose + 1, held4)
            if depth == 0 and top4:         # a move of one group uses at most each pile's top card
                depth = 1 if usable_depth(st, s, 1, top4) > 0 else 0
            ws[C_OPP + nopp] = s
            ws[C_PLEN + nopp] = plen
            pm = 0
            ws[C_PREFIX + nopp * PREFIX_STRIDE] = 0
            for d in range(depth):
                card = st[S_PILE + s * MAX_PILE + plen - 1 - d]
                ws[C_ABOVE + card] = pm
                pm |= 1 << card
                ws[C_ITEMH + card] = np.int64(z_pile(s, plen - 1 - d, card))
                ws[C_PREFIX + nopp * PREFIX_STRIDE + d + 1] = pm
            ws[C_PMASK + nopp] = pm
            items |= pm
            nopp += 1
    ws[C_NOPP] = nopp
    ws[C_PITEMS] = items & ~loose

    # subsets with sum <= maxv, counted by sum as they are made (all at C_BSTART + s + 1, loose-only at
    # C_BMID + s)
    for s in range(maxv + 2):
        ws[C_BSTART + s] = 0
        ws[C_BMID + s] = 0
        ws[C_REACH + s] = 0
    sums = 1                        # bit s: some subset has sum s (bit 0: the empty set)
    sums_loose = 0                  # bit s: some subset of sum s holds a loose card
    sums_only = 1                   # bit s: some subset of sum s holds only loose cards
    ws[C_BSTART + 1] = 1            # the empty set, sum 0
    ws[C_BMID] = 1
    n = 1
    ws[WS_RAW] = 0
    ws[WS_RAWH] = 0
    m = loose                       # the loose cards first, in ascending order: the loose-only subsets
    while m:                        # come out in ascending mask order
        b = m & -m
        m ^= b
        card = lowbit_index(b)
        w = card_value(card)
        hb = z_loose(card)
        add = b | (w << VALUE_SHIFT)
        cnt = n
        for e in range(cnt):
            x = ws[WS_RAW + e]
            s = ((x >> VALUE_SHIFT) & 15) + w
            if s > maxv:
                continue
            if n >= MAX_SUBSETS:
                ws[C_OVERFLOW] = 1
                break
            # the card bit is new and the sums add without carry (<= maxv < 16)
            x = (x + add) | (FLAG_LOOSE << FLAG_SHIFT)
            ws[WS_RAW + n] = x
            ws[WS_RAWH + n] = np.int64(np.uint64(ws[WS_RAWH + e]) ^ hb)
            ws[C_BSTART + s + 1] += 1
            ws[C_BMID + s] += 1
            sums_only |= 1 << s
            n += 1
    sums |= sums_only
    sums_loose = sums_only & ~1
    # then each usable pile's cards, each with every subset made before that pile's: so no subset holds two
    # cards of one pile, and none of those made is tested and dropped for it. A subset's pile cards go in
    # ascending order, so the first too high for its sum ends its turn.
    for j in range(nopp):
        pm = ws[C_PMASK + j]
        if pm == 0:
            continue
        pflag = (2 << j) << FLAG_SHIFT
        cnt = n
        for e in range(cnt):
            x = ws[WS_RAW + e]
            s0 = (x >> VALUE_SHIFT) & 15
            xh = np.uint64(ws[WS_RAWH + e])
            lf = ((x >> FLAG_SHIFT) & FLAG_LOOSE)
            m = pm
            while m:
                b = m & -m
                m ^= b
                card = lowbit_index(b)
                w = card_value(card)
                s = s0 + w
                if s > maxv:
                    break
                if n >= MAX_SUBSETS:
                    ws[C_OVERFLOW] = 1
                    break
                ws[WS_RAW + n] = (x + b + (w << VALUE_SHIFT)) | pflag
                ws[WS_RAWH + n] = np.int64(xh ^ np.uint64(ws[C_ITEMH + card]))
                ws[C_BSTART + s + 1] += 1
                sums |= 1 << s
                sums_loose |= lf << s
                n += 1
    ws[C_NSUB] = n
    ws[C_PIDX_BUILT] = 0
    ws[C_PIDX_TOP] = 0
    ws[C_SUMS] = sums
    ws[C_SUMS_LOOSE] = sums_loose
    ws[C_SUMS_LOOSE_ONLY] = sums_only
    # bucket by sum, from the last made: the loose-only subsets (descending mask order), then those holding a
    # pile card. C_BMID and C_BEND are the two parts' fill cursors, so each ends where its part ends.
    start = 0
    for s in range(maxv + 1):
        start += ws[C_BSTART + s]
        ws[C_BSTART + s] = start
        ws[C_BEND + s] = start + ws[C_BMID + s]
        ws[C_BMID + s] = start
    ws[C_BSTART + maxv + 1] = start + ws[C_BSTART + maxv + 1]
    for e in range(n - 1, -1, -1):
        x = ws[WS_RAW + e]
        s = (x >> VALUE_SHIFT) & 15
        if x >> (FLAG_SHIFT + 1):
            cur = C_BEND + s
            ws[C_REACH + s] |= x
        else:
            cur = C_BMID + s
        k = ws[cur]
        ws[cur] = k + 1
        ws[WS_SUB + k] = x
        ws[WS_SUBH + k] = ws[WS_RAWH + e]


@njit(cache=True, nogil=True, _nrt=False)
def item_subsets(ws, n, maxv):
    """Every subset of the items 0..n-1 (values at ws[C_KVAL + i], key terms at ws[C_KITEMH + i]) with sum at
    most maxv, bucketed by sum as `prepare_items` does (bucket s: WS_SUB[C_BSTART+s : C_BEND+s], packed words
    item mask | sum << VALUE_SHIFT, hash terms in WS_SUBH). Items stand for cards of any deck (Kasino's double
    deck: one item per copy on the table). Sets C_OVERFLOW past MAX_SUBSETS."""
    for s in range(maxv + 2):
        ws[C_BSTART + s] = 0
    ws[WS_RAW] = 0
    ws[WS_RAWH] = 0
    ws[C_BSTART + 1] = 1
    cnt = 1
    for i in range(n):
        w = ws[C_KVAL + i]
        add = (1 << i) | (w << VALUE_SHIFT)
        hb = np.uint64(ws[C_KITEMH + i])
        top = cnt
        for e in range(top):
            x = ws[WS_RAW + e]
            s = (x >> VALUE_SHIFT) + w
            if s > maxv:
                continue
            if cnt >= MAX_SUBSETS:
                ws[C_OVERFLOW] = 1
                break
            ws[WS_RAW + cnt] = x + add
            ws[WS_RAWH + cnt] = np.int64(np.uint64(ws[WS_RAWH + e]) ^ hb)
            ws[C_BSTART + s + 1] += 1
            cnt += 1
    start = 0
    for s in range(maxv + 1):
        start += ws[C_BSTART + s]
        ws[C_BSTART + s] = start
        ws[C_BEND + s] = start
    for e in range(cnt):
        x = ws[WS_RAW + e]
        cur = C_BEND + (x >> VALUE_SHIFT)
        k = ws[cur]
        ws[cur] = k + 1
        ws[WS_SUB + k] = x
        ws[WS_SUBH + k] = ws[WS_RAWH + e]
    ws[C_NSUB] = cnt
