"""Legal-move enumeration (K3–K11, P1–P7): every capture, build, load, change and trail, with follow-ups.

One call fills the move list in the workspace for the seat to play. Each candidate carries its key
(docs/ENGINE.md) and the greedy features, computed incrementally; equal keys are the same move (P7) and are
merged by the bots and the Python API, not here. The algorithm:

1. "Items" are the loose cards and the reachable top cards of each opponent pile (K8). All item subsets with
   sum <= the highest build value and at most one card from each pile (a group holds at most one card of a
   pile) are listed in ascending mask order, then bucketed by sum, each bucket in descending mask order: the
   canonical group order of RULES.md, so a selection of bucket entries by ascending index is already sorted.
2. For each hand card, every capture, build, load, change and trail is a selection of disjoint subsets from the
   right buckets, enumerated with an explicit stack (`combo_next`), then filtered for grounding, pile
   prefixes (K8) and commitment (K5–K7, P1).
3. Khasino follow-ups (K9, P5) extend each capture, build, load and change with disjoint loose-only groups for
   the builds the mover then owns.

All scratch lives in one flat int64 workspace `ws` (offsets in `layout`), so nothing is allocated and no
array view is taken per move.
"""
import numpy as np
from numba import njit

from .bits import lowbit_index, popcount, card_value, SPADES_MASK
from .layout import (
    S_LOOSE, S_HANDS, S_BOWNER, S_BNG, S_BGROUPS, S_PLEN, S_PILE, S_DEAL, S_LAST_CAP,
    MAX_GROUPS, MAX_PILE, MAX_VALUE, MAX_MOVES, MAX_POOL, MAX_SUBSETS, WORK_LEN,
    R_SEATS, R_DECK, R_TRAIL_SAME, R_TRAIL_OWN_FIRST, R_MAX_BUILDS, R_CHANGE, R_FOLLOW, R_PILES,
    R_MAX_BUILD_VALUE, R_CARD_POINTS, R_POINT_MASK,
    KIND_CAPTURE, KIND_BUILD, KIND_LOAD, KIND_CHANGE, KIND_TRAIL,
    M_CARD, M_KIND, M_VALUE, M_TARGET, M_USED, M_GSTART, M_GCOUNT, M_FSTART, M_FCOUNT, M_KEY,
    M_POINTS, M_CARDS, M_SPADES, M_TABLE_POINTS, M_PILE_USED, MOVE_FIELDS,
    PREFIX_STRIDE, C_N, C_NPOOL, C_OVERFLOW, C_NOPP, C_OPP, C_PMASK, C_PLEN, C_PREFIX, C_BSTART, C_BEND,
    C_HV, C_OWNED, C_NOWNED, C_TABLE_POINTS, C_NSUB, C_CTL, C_BLOOSE, C_HVMASK, C_CHANGEABLE,
    SUB_RAW_MASK, SUB_RAW_SUM, SUB_RAW_FLAGS, SUB_MASK, SUB_FLAGS,
    W_SEL1, W_USED1, W_SEL2, W_USED2, W_GBUF, W_FMASK, W_FVAL,
    WS_SUB, WS_WORK, WS_MOVES, WS_POOL, WS_SIZE,
)
from .rng import zterm

SPADES = np.int64(SPADES_MASK)
FLAG_LOOSE = 1          # subset flag: it holds a loose card; bit 1 + j: it holds a card of opponent j's pile

# workspace bases of the rows used below
SUBM = WS_SUB + SUB_MASK * MAX_SUBSETS
SUBF = WS_SUB + SUB_FLAGS * MAX_SUBSETS
SEL1 = WS_WORK + W_SEL1 * WORK_LEN
USED1 = WS_WORK + W_USED1 * WORK_LEN
SEL2 = WS_WORK + W_SEL2 * WORK_LEN
USED2 = WS_WORK + W_USED2 * WORK_LEN
GBUF = WS_WORK + W_GBUF * WORK_LEN
FMASK = WS_WORK + W_FMASK * WORK_LEN
FVAL = WS_WORK + W_FVAL * WORK_LEN


def new_workspace():
    """The scratch of one thread: allocated once, reused for every position of every game."""
    return np.zeros(WS_SIZE, dtype=np.int64)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def combo_next(ws, cm, lo, hi, sel, used, ctl):
    """Next selection of pairwise-disjoint masks ws[cm+lo : cm+hi] (ascending indices), each selection once.

    sel, used and ctl are workspace offsets. The caller sets ws[used] (cards already taken), ws[ctl] = 0 and
    ws[ctl+1] = lo, then calls until -1. On return d >= 1, ws[sel : sel+d] are the chosen indices and
    ws[used+d] the union with ws[used].
    """
    d = ws[ctl]
    i = ws[ctl + 1]
    while True:
        while i < hi:
            g = ws[cm + i]
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
def combo_start(ws, taken, lo, used, ctl):
    """Start a `combo_next` enumeration from index lo, with the cards `taken` unavailable."""
    ws[used] = taken
    ws[ctl] = 0
    ws[ctl + 1] = lo


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def mask_points(m, rules):
    total = 0
    m &= rules[R_POINT_MASK]
    while m:
        b = m & -m
        total += rules[R_CARD_POINTS + lowbit_index(b)]
        m ^= b
    return total


@njit(cache=True, nogil=True, _nrt=False)
def pile_hash_group(seat, pos, g, top_rank):
    """Hash terms of group g put on seat's pile from position pos, in K10 order; returns (hash, next pos)."""
    h = np.uint64(0)
    for r in range(top_rank, -1, -1):
        nib = (g >> (4 * r)) & 15
        if nib:
            for s in range(4):
                if (nib >> s) & 1:
                    h ^= zterm(5, seat, pos, 4 * r + s)
                    pos += 1
    return h, pos


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def pile_ok(used, ws):
    """K8: the cards used from each opponent pile are exactly its top k."""
    for j in range(ws[C_NOPP]):
        x = used & ws[C_PMASK + j]
        if x != ws[C_PREFIX + j * PREFIX_STRIDE + popcount(x)]:
            return False
    return True


@njit(cache=True, nogil=True, _nrt=False)
def prepare(st, rules, p, ws):
    """Per-position tables: opponent pile items, subset buckets, hand value counts, owned builds, points."""
    nseats = rules[R_SEATS]
    loose = st[S_LOOSE]
    hand = st[S_HANDS + 2 * p]
    maxv = rules[R_MAX_BUILD_VALUE]
    ws[C_N] = 0
    ws[C_NPOOL] = 0
    ws[C_OVERFLOW] = 0

    # opponent pile items (K8): only an opponent's pile, only its top k cards, each in a different group.
    # All groups of a move have one value V, and a group holding a pile card either is that card alone (so
    # its value is V) or also holds a loose card or the played card. So the top k cards are usable only if
    # k <= n_loose + 1 + (how many of them have one same value): the depth below never cuts a legal move.
    nloose = popcount(loose)
    nopp = 0
    items = loose
    if rules[R_PILES]:
        for s in range(nseats):
            if s == p:
                continue
            plen = st[S_PLEN + s]
            depth = 0
            same = 0
            counts = 0                    # 4 bits per value: cards of that value among the top depth+1
            while depth < plen:
                cv_top = card_value(st[S_PILE + s * MAX_PILE + plen - 1 - depth])
                if cv_top <= maxv:
                    counts += 1 << (4 * cv_top)
                    same = max(same, (counts >> (4 * cv_top)) & 15)
                if depth + 1 > nloose + 1 + same:
                    break             # and every deeper k fails too: k - same(k) never decreases
                depth += 1
            ws[C_OPP + nopp] = s
            ws[C_PLEN + nopp] = plen
            pm = 0
            ws[C_PREFIX + nopp * PREFIX_STRIDE] = 0
            for d in range(depth):
                pm |= 1 << st[S_PILE + s * MAX_PILE + plen - 1 - d]
                ws[C_PREFIX + nopp * PREFIX_STRIDE + d + 1] = pm
            ws[C_PMASK + nopp] = pm
            items |= pm
            nopp += 1
    ws[C_NOPP] = nopp

    # subsets with sum <= maxv, generated in ascending mask order (items taken in ascending card order)
    rm = WS_SUB + SUB_RAW_MASK * MAX_SUBSETS
    rs = WS_SUB + SUB_RAW_SUM * MAX_SUBSETS
    rf = WS_SUB + SUB_RAW_FLAGS * MAX_SUBSETS
    n = 1
    ws[rm] = 0
    ws[rs] = 0
    ws[rf] = 0
    m = items
    while m:
        b = m & -m
        m ^= b
        w = card_value(lowbit_index(b))
        flag = FLAG_LOOSE
        if b & loose == 0:
            for j in range(nopp):
                if b & ws[C_PMASK + j]:
                    flag = 2 << j
        cnt = n
        for e in range(cnt):
            s = ws[rs + e] + w
            if s > maxv:
                continue
            f = ws[rf + e]
            if flag != FLAG_LOOSE and f & flag:
                continue
            if n >= MAX_SUBSETS:
                ws[C_OVERFLOW] = 1
                break
            ws[rm + n] = ws[rm + e] | b
            ws[rs + n] = s
            ws[rf + n] = f | flag
            n += 1
    ws[C_NSUB] = n
    # bucket by sum, each bucket in descending mask order
    for s in range(maxv + 2):
        ws[C_BSTART + s] = 0
    for e in range(n):
        ws[C_BSTART + ws[rs + e] + 1] += 1
    for s in range(1, maxv + 2):
        ws[C_BSTART + s] += ws[C_BSTART + s - 1]
    for s in range(maxv + 1):
        ws[C_BEND + s] = ws[C_BSTART + s]
    for s in range(maxv + 1):
        ws[C_BLOOSE + s] = 0
    for e in range(n - 1, -1, -1):
        s = ws[rs + e]
        k = ws[C_BEND + s]
        ws[SUBM + k] = ws[rm + e]
        ws[SUBF + k] = ws[rf + e]
        ws[C_BEND + s] = k + 1
        ws[C_BLOOSE + s] |= ws[rf + e] & FLAG_LOOSE

    for v in range(MAX_VALUE + 1):   # face cards (values above maxv) are counted too
        ws[C_HV + v] = 0
    hvmask = 0
    m = hand
    while m:
        b = m & -m
        m ^= b
        cv = card_value(lowbit_index(b))
        ws[C_HV + cv] += 1
        hvmask |= 1 << cv
    ws[C_HVMASK] = hvmask & ((2 << maxv) - 1)
    nowned = 0
    changeable = 0
    tp = mask_points(loose, rules)
    for v in range(1, maxv + 1):
        o = st[S_BOWNER + v]
        if o >= 0:
            if o == p:
                ws[C_OWNED + nowned] = v
                nowned += 1
            elif st[S_BNG + v] == 1:
                changeable |= 1 << v
            for i in range(st[S_BNG + v]):
                tp += mask_points(st[S_BGROUPS + v * MAX_GROUPS + i], rules)
    ws[C_NOWNED] = nowned
    ws[C_CHANGEABLE] = changeable
    ws[C_TABLE_POINTS] = tp


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def keeps_commitments(ws, cv, exempt):
    """P1: after playing a card of value cv, the mover still holds a card of each owned build's value."""
    for k in range(ws[C_NOWNED]):
        w = ws[C_OWNED + k]
        if w != exempt and ws[C_HV + w] - (1 if cv == w else 0) < 1:
            return False
    return True


@njit(cache=True, nogil=True, _nrt=False)
def emit(st, rules, p, ws, kind, c, value, target, used, ng):
    """Write one candidate (groups in ws[GBUF:GBUF+ng]): record, pool entries, key and greedy features.

    Returns its row, or -1 when the move list is full (flagged as overflow).
    """
    n = ws[C_N]
    np_ = ws[C_NPOOL]
    if n >= MAX_MOVES or np_ + ng > MAX_POOL:
        ws[C_OVERFLOW] = 1
        return -1
    top_rank = (rules[R_DECK] >> 2) - 1
    loose = st[S_LOOSE]
    key = zterm(1, p, c, 0)
    lused = used & loose
    m = lused
    while m:
        b = m & -m
        m ^= b
        key ^= zterm(2, 0, lowbit_index(b), 0)
    pile_used = 0
    pile_cards = used & ~loose
    if pile_cards:
        for j in range(ws[C_NOPP]):
            k = popcount(used & ws[C_PMASK + j])
            if k:
                s = ws[C_OPP + j]
                plen = ws[C_PLEN + j]
                for d in range(k):
                    pos = plen - 1 - d
                    key ^= zterm(5, s, pos, st[S_PILE + s * MAX_PILE + pos])
                pile_used += k
    points = 0
    cards = 0
    spades = 0
    tp = ws[C_TABLE_POINTS]
    cbit = 1 << c
    if kind == KIND_CAPTURE:
        pos = st[S_PLEN + p]
        taken = lused | pile_cards | cbit
        if target > 0:
            key ^= zterm(3, target, st[S_BOWNER + target], 0)
            for i in range(st[S_BNG + target]):
                g = st[S_BGROUPS + target * MAX_GROUPS + i]
                key ^= zterm(4, target, i, g)
                h, pos = pile_hash_group(p, pos, g, top_rank)
                key ^= h
                taken |= g
                tp -= mask_points(g, rules)
        for i in range(ng):
            h, pos = pile_hash_group(p, pos, ws[GBUF + i], top_rank)
            key ^= h
        key ^= zterm(5, p, pos, c)
        lc = st[S_LAST_CAP]
        if lc != p:
            if lc >= 0:
                key ^= zterm(6, lc, 0, 0)
            key ^= zterm(6, p, 0, 0)
        points = mask_points(taken, rules)
        cards = popcount(taken)
        spades = popcount(taken & SPADES)
        tp -= mask_points(lused, rules)
    elif kind == KIND_TRAIL:
        key ^= zterm(2, 0, c, 0)
        tp += mask_points(cbit, rules)
    else:
        tp += mask_points(cbit | pile_cards, rules)
        if kind == KIND_BUILD:
            key ^= zterm(3, value, p, 0)
            for i in range(ng):
                key ^= zterm(4, value, i, ws[GBUF + i])
        elif kind == KIND_LOAD:
            base = st[S_BNG + value]
            for i in range(ng):
                key ^= zterm(4, value, base + i, ws[GBUF + i])
        else:  # change: target = old value, value = new value, group 0 = the added cards
            g0 = st[S_BGROUPS + target * MAX_GROUPS]
            key ^= zterm(3, target, st[S_BOWNER + target], 0) ^ zterm(4, target, 0, g0)
            key ^= zterm(3, value, p, 0) ^ zterm(4, value, 0, g0 | ws[GBUF])
    r = WS_MOVES + n * MOVE_FIELDS
    ws[r + M_CARD] = c
    ws[r + M_KIND] = kind
    ws[r + M_VALUE] = value
    ws[r + M_TARGET] = target
    ws[r + M_USED] = used
    ws[r + M_GSTART] = np_
    ws[r + M_GCOUNT] = ng
    ws[r + M_FSTART] = np_ + ng
    ws[r + M_FCOUNT] = 0
    ws[r + M_KEY] = np.int64(key)
    ws[r + M_POINTS] = points
    ws[r + M_CARDS] = cards
    ws[r + M_SPADES] = spades
    ws[r + M_TABLE_POINTS] = tp
    ws[r + M_PILE_USED] = pile_used
    for i in range(ng):
        ws[WS_POOL + 2 * (np_ + i)] = ws[GBUF + i]
        ws[WS_POOL + 2 * (np_ + i) + 1] = value
    ws[C_N] = n + 1
    ws[C_NPOOL] = np_ + ng
    return n


@njit(cache=True, nogil=True, _nrt=False)
def emit_followups(st, rules, p, ws, base):
    """K9/P5: every non-empty set of disjoint loose-only groups added to builds the mover owns after `base`.

    The build a build or load move itself makes or loads is left out: a loose-only group added to it is
    already one of that move's own extra groups, giving the same position (P7).
    """
    rb = WS_MOVES + base * MOVE_FIELDS
    kind = ws[rb + M_KIND]
    value = ws[rb + M_VALUE]
    target = ws[rb + M_TARGET]
    free = st[S_LOOSE] & ~ws[rb + M_USED]
    if free == 0 or (ws[C_NOWNED] == 0 and kind != KIND_CHANGE):
        return            # only a change gives the mover a build he did not own before (a new build is skipped)
    nf = 0
    maxv = rules[R_MAX_BUILD_VALUE]
    for w in range(1, maxv + 1):
        owned = st[S_BOWNER + w] == p
        if kind == KIND_CAPTURE and w == target:
            owned = False
        if kind == KIND_CHANGE:
            if w == target:
                owned = False
            if w == value:
                owned = True
        if (kind == KIND_BUILD or kind == KIND_LOAD) and w == value:
            owned = False
        if not owned:
            continue
        for k in range(ws[C_BSTART + w], ws[C_BEND + w]):
            g = ws[SUBM + k]
            if ws[SUBF + k] == FLAG_LOOSE and g & ~free == 0:
                if nf >= WORK_LEN:
                    ws[C_OVERFLOW] = 1
                    break
                ws[FMASK + nf] = g
                ws[FVAL + nf] = w
                nf += 1
    if nf == 0:
        return
    ctl = C_CTL + 2
    combo_start(ws, 0, 0, USED2, ctl)
    while True:
        d = combo_next(ws, FMASK, 0, nf, SEL2, USED2, ctl)
        if d < 0:
            break
        n = ws[C_N]
        np_ = ws[C_NPOOL]
        if n >= MAX_MOVES or np_ + d > MAX_POOL:
            ws[C_OVERFLOW] = 1
            return
        r = WS_MOVES + n * MOVE_FIELDS
        for f in range(MOVE_FIELDS):
            ws[r + f] = ws[rb + f]
        key = np.uint64(ws[rb + M_KEY])
        prev_w = -1
        pos = 0
        for i in range(d):
            g = ws[FMASK + ws[SEL2 + i]]
            w = ws[FVAL + ws[SEL2 + i]]
            if w != prev_w:
                pos = 1 if (kind == KIND_CHANGE and w == value) else st[S_BNG + w]
                prev_w = w
            key ^= zterm(4, w, pos, g)
            pos += 1
            m = g
            while m:
                b = m & -m
                m ^= b
                key ^= zterm(2, 0, lowbit_index(b), 0)
            ws[WS_POOL + 2 * (np_ + i)] = g
            ws[WS_POOL + 2 * (np_ + i) + 1] = w
        ws[r + M_FSTART] = np_
        ws[r + M_FCOUNT] = d
        ws[r + M_KEY] = np.int64(key)
        ws[C_N] = n + 1
        ws[C_NPOOL] = np_ + d


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def insert_sorted(ws, ng, g):
    """Insert mask g into ws[GBUF:GBUF+ng], kept in descending order; returns the new length."""
    i = ng
    while i > 0 and ws[GBUF + i - 1] < g:
        ws[GBUF + i] = ws[GBUF + i - 1]
        i -= 1
    ws[GBUF + i] = g
    return ng + 1


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def emit_with_followups(st, rules, p, ws, kind, c, value, target, used, ng):
    row = emit(st, rules, p, ws, kind, c, value, target, used, ng)
    if row >= 0 and rules[R_FOLLOW]:
        emit_followups(st, rules, p, ws, row)


@njit(cache=True, nogil=True, _nrt=False)
def gen_captures(st, rules, p, ws, c):
    """K4: the card takes a non-empty set of disjoint units (its build, groups of loose/pile cards)."""
    v = card_value(c)
    if v > rules[R_MAX_BUILD_VALUE]:
        return
    loose = st[S_LOOSE]
    bo = st[S_BOWNER + v]
    lo = ws[C_BSTART + v]
    hi = ws[C_BEND + v]
    for bcap in range(2):
        if bcap == 1 and bo < 0:
            break
        target = v if bcap else 0
        if not keeps_commitments(ws, v, v if (bcap and bo == p) else -1):
            continue
        if bcap:
            emit_with_followups(st, rules, p, ws, KIND_CAPTURE, c, v, target, 0, 0)
        combo_start(ws, 0, lo, USED1, C_CTL)
        while True:
            d = combo_next(ws, SUBM, lo, hi, SEL1, USED1, C_CTL)
            if d < 0:
                break
            u = ws[USED1 + d]
            if not bcap and u & loose == 0:
                continue          # table-grounded: pile cards alone are no capture
            if not pile_ok(u, ws):
                continue
            for i in range(d):
                ws[GBUF + i] = ws[SUBM + ws[SEL1 + i]]
            emit_with_followups(st, rules, p, ws, KIND_CAPTURE, c, v, target, u, d)


@njit(cache=True, nogil=True, _nrt=False)
def gen_groups_onto(st, rules, p, ws, c, kind, value):
    """K5 builds and K6 loads of value `value`: the played card's group plus any disjoint extra groups."""
    cv = card_value(c)
    loose = st[S_LOOSE]
    need = value - cv
    lo = ws[C_BSTART + value]
    hi = ws[C_BEND + value]
    if need == 0:
        s_lo, s_hi = 0, 1           # the played card alone (bucket 0 holds only the empty set)
    else:
        s_lo, s_hi = ws[C_BSTART + need], ws[C_BEND + need]
    for si in range(s_lo, s_hi):
        smask = ws[SUBM + si]
        pg = smask | (1 << c)
        # the played card's group alone
        if kind == KIND_LOAD or smask & loose:
            if pile_ok(smask, ws):
                ws[GBUF] = pg
                emit_with_followups(st, rules, p, ws, kind, c, value, value, smask, 1)
        if lo == hi:
            continue
        combo_start(ws, smask, lo, USED1, C_CTL)
        while True:
            d = combo_next(ws, SUBM, lo, hi, SEL1, USED1, C_CTL)
            if d < 0:
                break
            u = ws[USED1 + d]
            if kind == KIND_BUILD and u & loose == 0:
                continue          # K5: a new build holds a loose card; pile cards never start one alone
            if not pile_ok(u, ws):
                continue
            ng = 0
            for i in range(d):
                ng = insert_sorted(ws, ng, ws[SUBM + ws[SEL1 + i]])
            ng = insert_sorted(ws, ng, pg)
            emit_with_followups(st, rules, p, ws, kind, c, value, value, u, ng)


@njit(cache=True, nogil=True, _nrt=False)
def gen_changes(st, rules, p, ws, c):
    """K7: raise an opponent's simple build to a new value the mover holds; it passes to the mover."""
    cv = card_value(c)
    maxv = rules[R_MAX_BUILD_VALUE]
    for w in range(1, maxv - cv + 1):
        o = st[S_BOWNER + w]
        if o < 0 or o == p or st[S_BNG + w] != 1:
            continue
        g0 = st[S_BGROUPS + w * MAX_GROUPS]
        if rules[R_CHANGE] == 0:
            if popcount(g0) != 2:
                continue
            nv = w + cv
            if st[S_BOWNER + nv] >= 0 or ws[C_HV + nv] - (1 if nv == cv else 0) < 1:
                continue
            ws[GBUF] = 1 << c
            emit_with_followups(st, rules, p, ws, KIND_CHANGE, c, nv, w, 0, 1)
        else:
            for s in range(0, maxv - w - cv + 1):
                nv = w + cv + s
                if st[S_BOWNER + nv] >= 0 or ws[C_HV + nv] - (1 if nv == cv else 0) < 1:
                    continue
                for k in range(ws[C_BSTART + s], ws[C_BEND + s]):
                    smask = ws[SUBM + k]
                    if not pile_ok(smask, ws):
                        continue
                    ws[GBUF] = smask | (1 << c)
                    emit_with_followups(st, rules, p, ws, KIND_CHANGE, c, nv, w, smask, 1)


@njit(cache=True, nogil=True, _nrt=False)
def generate(st, rules, p, ws):
    """Fill the workspace move list with every legal move of seat p (duplicates by key possible, P7).

    Returns the number of candidates; ws[C_OVERFLOW] is set if a buffer was too small (the list is then
    incomplete, and callers report it).
    """
    prepare(st, rules, p, ws)
    hand = st[S_HANDS + 2 * p]
    loose = st[S_LOOSE]
    maxv = rules[R_MAX_BUILD_VALUE]
    nowned = ws[C_NOWNED]
    can_build = rules[R_MAX_BUILDS] == 0 or nowned < rules[R_MAX_BUILDS]
    m = hand
    while m:
        b = m & -m
        m ^= b
        c = lowbit_index(b)
        cv = card_value(c)
        if cv <= maxv and (ws[C_BEND + cv] > ws[C_BSTART + cv] or st[S_BOWNER + cv] >= 0):
            gen_captures(st, rules, p, ws, c)
        if not keeps_commitments(ws, cv, -1):
            continue              # P1: the last card of an owned build's value only captures that build
        # K5/K6: build or load only a value the player still holds after playing c
        held = ws[C_HVMASK] & ~((2 << cv) - 1 if ws[C_HV + cv] == 1 else (1 << cv) - 1)
        while held:
            hb = held & -held
            held ^= hb
            v = lowbit_index(hb)
            if st[S_BOWNER + v] >= 0:
                gen_groups_onto(st, rules, p, ws, c, KIND_LOAD, v)
            elif can_build:
                # a new build needs a loose card: in the played card's group or in an extra group of v
                if v == cv:
                    if ws[C_BLOOSE + v]:
                        gen_groups_onto(st, rules, p, ws, c, KIND_BUILD, v)
                elif ws[C_BEND + v - cv] > ws[C_BSTART + v - cv] and (ws[C_BLOOSE + v - cv] or ws[C_BLOOSE + v]):
                    gen_groups_onto(st, rules, p, ws, c, KIND_BUILD, v)
        if can_build and cv < maxv and ws[C_CHANGEABLE] & ((2 << (maxv - cv)) - 1):
            gen_changes(st, rules, p, ws, c)
        # K11 trail
        if rules[R_TRAIL_SAME]:
            if cv <= maxv and st[S_BOWNER + cv] >= 0:
                continue
            if loose & (15 << (4 * (cv - 1))):
                continue
        if rules[R_TRAIL_OWN_FIRST] and st[S_DEAL] == 1 and nowned > 0:
            continue
        emit(st, rules, p, ws, KIND_TRAIL, c, cv, 0, 0, 0)
    return ws[C_N]
