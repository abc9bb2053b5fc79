"""Offering a candidate move: its key (the position-hash delta, docs/ENGINE.md), its greedy and heuristic
features, commitment checks (P1) and follow-up groups (K9), then folded into the sink the caller started
(`sink.consider`): a bot's running best, a listing window or a search tree. Move rules (Khasino's
`khasino.moves`, Cassino's `cassino.moves`) call `offer` for each candidate they generate; nothing here
reads a family flag (what differs is read from the workspace the family's `prepare_position` filled)."""
import numpy as np
from numba import njit

from .bits import SPADES_MASK, card_value, lowbit_index, popcount
from .groups import combo_next, combo_start, pile_ok, piles_next, piles_start, prefix_next, prefix_start
from .heuristic import khasino_score
from .layout import (
    C_CARD_SETS,
    CARD_BITS, C_BEND, C_BGRP, C_BHASH, C_BMASK, C_BMID, C_BNGV, C_BPTS, C_BSTART, C_BUILT, C_CARDPTS, C_CTL,
    C_FOLLOW, C_HV, C_LASTCAP, C_LOADKEY, C_LOOSE, C_MKOWNER, C_MYPLEN, C_NOPP, C_OURPTS, C_OWNMASK,
    C_PARTNER_BUILDS, C_PILE_EXPOSE, C_PTMASK, C_RISK, C_SINK, C_STOP, C_SUMS_LOOSE_ONLY, C_SWEEPS_ON, C_TABLE_POINTS,
    KIND_BUILD, KIND_CAPTURE, KIND_CHANGE, KIND_LOAD, KIND_TRAIL, MAX_GROUPS, SINK_HEURISTIC, SINK_RANDOM,
    VALUE_SHIFT, WS_FOLLOW, WS_GBUF, WS_SEL1, WS_SEL2, WS_SEL3, WS_SUB, WS_SUBH, WS_USED1, WS_USED2, WS_USED3,
)
from .rng import z_build, z_group, z_hand, z_last, z_loose, z_pile
from .sink import consider, prefilter


SPADES = np.int64(SPADES_MASK)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def mask_points(m, ws):
    """Points of the cards in m (the ruleset's card points, copied to the workspace by prepare_position)."""
    total = 0
    m &= ws[C_PTMASK]
    while m:
        b = m & -m
        total += ws[C_CARDPTS + lowbit_index(b)]
        m ^= b
    return total


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def keeps_commitments(ws, cv, exempt):
    """P1: after playing a card of value cv, the mover still holds a card of each owned build's value (Cassino,
    whose aces may also count 14, has its own `keeps_builds`)."""
    m = ws[C_OWNMASK]
    while m:
        b = m & -m
        m ^= b
        w = lowbit_index(b)
        if w != exempt and ws[C_HV + w] - (1 if cv == w else 0) < 1:
            return False
    return True


@njit(cache=True, nogil=True, _nrt=False)
def pile_hash_group(seat, pos, g):
    """Hash terms of group g put on seat's pile from position pos, in K10 order (higher rank underneath,
    equal ranks S, H, D, C upwards); returns (hash, next pos). A card's place in the group is the number of
    its cards of higher rank plus those of its rank and a lower suit."""
    h = np.uint64(0)
    m = g
    while m:
        b = m & -m
        m ^= b
        x = lowbit_index(b)
        above = (g >> ((x | 3) + 1)) if x < 60 else 0
        h ^= z_pile(seat, pos + popcount(above) + popcount(g & (b - 1) & ~((1 << (x & ~3)) - 1)), x)
    return h, pos + popcount(g)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def last_capture_terms(ws, p):
    """The key terms of seat p becoming the last capturer."""
    lc = ws[C_LASTCAP]
    if lc == p:
        return np.uint64(0)
    return (z_last(lc) if lc >= 0 else np.uint64(0)) ^ z_last(p)


@njit(cache=True, nogil=True, _nrt=False)
def card_set_terms(ws, p, kind, c, value, target, ng):
    """P27 (Cassino's piles and builds as card sets): the key terms of a capture, build or load (groups at
    WS_GBUF[:ng]) beyond the played card's and the used table cards' own. A capture puts the table cards it
    takes on the pile as one block under the played card; a build's term is Z(4, v, 0, its cards)."""
    cards = 0
    for i in range(ng):
        cards |= ws[WS_GBUF + i]
    if kind == KIND_CAPTURE:
        key = np.uint64(0)
        if target > 0:
            key ^= np.uint64(ws[C_BHASH + target])
            cards |= ws[C_BMASK + target]
        h, pos = pile_hash_group(p, ws[C_MYPLEN], cards)
        return key ^ h ^ z_pile(p, pos, c) ^ last_capture_terms(ws, p)
    if kind == KIND_BUILD:
        return z_build(value, ws[C_MKOWNER]) ^ z_group(value, 0, cards)
    old = ws[C_BMASK + value]       # a load: the build's cards grow; C4: the adder becomes the owner
    return z_group(value, 0, old) ^ z_group(value, 0, old | cards) ^ np.uint64(ws[C_LOADKEY + value])


@njit(cache=True, nogil=True, _nrt=False)
def offer(ws, p, kind, c, value, target, used, ng, uhash):
    """Offer one main action (a capture, build, load or change; groups at WS_GBUF[:ng]; `uhash`: the hash
    terms of the table cards it uses, `used`) to the sink, then its K9 follow-up variants. Trails have their
    own `offer_trail`. Reads the position from the workspace copies prepare_position made."""
    loose = ws[C_LOOSE]
    cbit = 1 << c
    lused = used & loose
    pile_cards = used & ~loose
    if ws[C_SINK] != SINK_RANDOM:     # the random bot reads no features
        tp = ws[C_TABLE_POINTS]
        points = 0
        cards = 0
        spades = 0
        if kind == KIND_CAPTURE:
            taken = lused | pile_cards | cbit
            if target > 0:
                taken |= ws[C_BMASK + target]
                tp -= ws[C_BPTS + target]
            points = mask_points(taken, ws)
            if lused == loose and ws[C_SWEEPS_ON] and ws[C_BUILT] & ~(1 << target) == 0:
                points += 1             # C1 `sweeps`: the capture clears the table
            cards = popcount(taken)
            spades = popcount(taken & SPADES)
            tp -= mask_points(lused, ws)
        else:
            tp += mask_points(cbit | pile_cards, ws)
        if ws[C_SINK] == SINK_HEURISTIC:
            if not prefilter(ws, heuristic_offer(ws, kind, c, value, target, used, points, cards, spades, tp),
                             0, 0, 0):
                return
        elif not prefilter(ws, points, cards, spades, tp):
            return

    key = z_hand(p, c) ^ np.uint64(uhash)    # the loose and pile cards leave their places
    pile_used = popcount(pile_cards)
    if ws[C_CARD_SETS] and kind != KIND_CHANGE:
        key ^= card_set_terms(ws, p, kind, c, value, target, ng)
    elif kind == KIND_CAPTURE:
        pos = ws[C_MYPLEN]
        if target > 0:
            key ^= np.uint64(ws[C_BHASH + target])
            for i in range(ws[C_BNGV + target]):
                h, pos = pile_hash_group(p, pos, ws[C_BGRP + target * MAX_GROUPS + i])
                key ^= h
        for i in range(ng):
            h, pos = pile_hash_group(p, pos, ws[WS_GBUF + i])
            key ^= h
        key ^= z_pile(p, pos, c)
        lc = ws[C_LASTCAP]
        if lc != p:
            if lc >= 0:
                key ^= z_last(lc)
            key ^= z_last(p)
    elif kind == KIND_BUILD:
        key ^= z_build(value, ws[C_MKOWNER])     # the mover, or his partner in a P14 rebuild
        for i in range(ng):
            key ^= z_group(value, i, ws[WS_GBUF + i])
    elif kind == KIND_LOAD:
        base = ws[C_BNGV + value]
        for i in range(ng):
            key ^= z_group(value, base + i, ws[WS_GBUF + i])
        key ^= np.uint64(ws[C_LOADKEY + value])     # C4: the adder becomes the owner (0 in Khasino)
    else:  # change: target = old value, value = new value, group 0 = the added cards
        g0 = ws[C_BGRP + target * MAX_GROUPS]
        key ^= np.uint64(ws[C_BHASH + target])
        key ^= z_build(value, p) ^ z_group(value, 0, g0 | ws[WS_GBUF])
    consider(ws, key, kind, c, value, target, used, ng, 0, pile_used)
    if ws[C_FOLLOW] and loose & ~used:
        # K9/P5: the builds the mover owns after the main action can take follow-up groups: a captured build
        # is gone, a changed one is his; the build a build or load move itself makes or loads is left out, as
        # a loose-only group added to it is already one of that move's own extra groups (the same position, P7)
        own = ws[C_OWNMASK]
        if kind == KIND_CHANGE:
            own = (own & ~(1 << target)) | (1 << value)
        elif kind == KIND_CAPTURE:
            own &= ~(1 << target)
        else:
            own &= ~(1 << value)
        own &= ws[C_SUMS_LOOSE_ONLY]   # values some loose-only subset sums to (K9 follow-up groups)
        if own:
            offer_followups(ws, kind, value, used, own, key, c, target, ng, pile_used)


@njit(cache=True, nogil=True, _nrt=False)
def heuristic_offer(ws, kind, c, value, target, used, points, cards, spades, tp):
    """The heuristic bot's score of a main action (kernels/core/heuristic.py): the greedy features, the card points
    left exposed on the table (tp, less the safe part of the builds the mover's side owns after the move) and
    those builds' safe points and cards (the cards as a change from before the move). A build of value v is
    safe with the chance 1 - risk(v) that no opponent holds a card capturing it (`heuristic_context`); its
    points count as exposed otherwise. Build points in thousandths."""
    ours = ws[C_OWNMASK] | ws[C_PARTNER_BUILDS]
    our_m = ws[C_OURPTS]
    our_cards = 0
    new = used | (1 << c)
    if kind == KIND_CAPTURE:
        if target > 0 and (ours >> target) & 1:
            our_m -= ws[C_BPTS + target] * (1000 - ws[C_RISK + target])
            our_cards -= popcount(ws[C_BMASK + target])
    elif kind == KIND_BUILD:
        our_m += mask_points(new, ws) * (1000 - ws[C_RISK + value])
        our_cards += popcount(new)
    elif kind == KIND_LOAD:
        if (ours >> value) & 1:
            our_m += mask_points(new, ws) * (1000 - ws[C_RISK + value])
            our_cards += popcount(new)
        elif ws[C_LOADKEY + value] != 0:        # C4: the add makes the build the mover's
            our_m += (ws[C_BPTS + value] + mask_points(new, ws)) * (1000 - ws[C_RISK + value])
            our_cards += popcount(ws[C_BMASK + value] | new)
    else:                                       # a change (raise): the build becomes the mover's, of value `value`
        if (ours >> target) & 1:
            our_m -= ws[C_BPTS + target] * (1000 - ws[C_RISK + target])
        else:
            our_cards += popcount(ws[C_BMASK + target])
        our_m += (ws[C_BPTS + target] + mask_points(new, ws)) * (1000 - ws[C_RISK + value])
        our_cards += popcount(new)
    top = 0
    if kind == KIND_CAPTURE and ws[C_PILE_EXPOSE] >= 0:
        top = ws[C_CARDPTS + c] - ws[C_PILE_EXPOSE]
    return khasino_score(ws, points, cards, spades, tp * 1000 - our_m, our_m, our_cards, top)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def offer_trail(ws, p, c):
    """K11: offer the trail of card c (what `offer` does for a trail, without its general cases)."""
    if ws[C_SINK] != SINK_RANDOM:
        tp = ws[C_TABLE_POINTS] + mask_points(1 << c, ws)
        if ws[C_SINK] == SINK_HEURISTIC:
            if not prefilter(ws, khasino_score(ws, 0, 0, 0, tp * 1000 - ws[C_OURPTS], ws[C_OURPTS], 0, 0),
                             0, 0, 0):
                return
        elif not prefilter(ws, 0, 0, 0, tp):
            return
    consider(ws, z_hand(p, c) ^ z_loose(c), KIND_TRAIL, c, card_value(c), 0, 0, 0, 0, 0)


# `offer` is compiled once per combination of constant arguments at its call sites (a capture of loose cards
# only, a change, ...): 1.2% of greedy's speed for 4 of the core's compile seconds (docs/ENGINE.md, "Compile time")
offer.py_func.literal_args = ("p", "kind", "c", "value", "target", "used", "ng", "uhash")


@njit(cache=True, nogil=True, _nrt=False)
def offer_followups(ws, kind, value, used, own, key0, c, target, ng, pile_used):
    """K9/P5: every non-empty set of disjoint loose-only groups (none of the cards `used`) added to the builds
    of the values in `own` (those the mover may add to after the main action, `offer`)."""
    if ws[C_STOP]:                  # a full listing window (sink.py)
        return
    free = ws[C_LOOSE] & ~used
    nf = 0
    m = own
    while m:                        # ascending values
        b = m & -m
        m ^= b
        w = lowbit_index(b)
        for k in range(ws[C_BSTART + w], ws[C_BMID + w]):
            x = ws[WS_SUB + k]
            if x & CARD_BITS & ~free == 0:
                ws[WS_FOLLOW + nf] = x      # at most one entry per subset: nf <= MAX_SUBSETS
                nf += 1
    if nf == 0:
        return
    ctl = C_CTL + 2
    combo_start(ws, 0, 0, WS_USED2, ctl)
    while True:
        d = combo_next(ws, WS_FOLLOW, 0, nf, WS_SEL2, WS_USED2, ctl)
        if d < 0:
            break
        key = key0
        prev_w = -1
        pos = 0
        for i in range(d):
            x = ws[WS_FOLLOW + ws[WS_SEL2 + i]]
            g = x & CARD_BITS
            w = (x >> VALUE_SHIFT) & 15
            if w != prev_w:
                pos = 1 if (kind == KIND_CHANGE and w == value) else ws[C_BNGV + w]
                prev_w = w
            key ^= z_group(w, pos, g)
            pos += 1
            m = g
            while m:
                b = m & -m
                m ^= b
                key ^= z_loose(lowbit_index(b))
        consider(ws, key, kind, c, value, target, used, ng, d, pile_used)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def insert_sorted(ws, ng, g):
    """Insert mask g into ws[WS_GBUF:WS_GBUF+ng], kept in descending order; returns the new length."""
    i = ng
    while i > 0 and ws[WS_GBUF + i - 1] < g:
        ws[WS_GBUF + i] = ws[WS_GBUF + i - 1]
        i -= 1
    ws[WS_GBUF + i] = g
    return ng + 1


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def selected_groups(ws, db, d, extra, xhash):
    """Put the selected groups (db pile-card groups on stack 3, d loose-only groups on stack 1, and `extra`
    when non-zero) into WS_GBUF in canonical (descending mask) order; returns their number and the hash terms
    of their table cards (`xhash`: those of `extra`'s)."""
    ng = 0
    h = np.uint64(xhash)
    for i in range(db):
        k = ws[WS_SEL3 + i]
        ng = insert_sorted(ws, ng, ws[WS_SUB + k] & CARD_BITS)
        h ^= np.uint64(ws[WS_SUBH + k])
    for i in range(d):
        k = ws[WS_SEL1 + i]
        ng = insert_sorted(ws, ng, ws[WS_SUB + k] & CARD_BITS)
        h ^= np.uint64(ws[WS_SUBH + k])
    if extra:
        ng = insert_sorted(ws, ng, extra)
    return ng, h


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def offer_with_loose(ws, p, kind, c, value, target, ub, db, extra, xhash, need_loose, lo, mid):
    """Offer the selection of db pile-card groups (stack 3, cards used with the taken ones: ub) alone, where
    it is a move, then with every non-empty set of disjoint loose-only groups of bucket part [lo, mid)."""
    if (db > 0 or extra) and (not need_loose or ub & ws[C_LOOSE]):
        ng, h = selected_groups(ws, db, 0, extra, xhash)
        offer(ws, p, kind, c, value, target, ub, ng, h)
    if mid == lo:
        return
    combo_start(ws, ub, lo, WS_USED1, C_CTL)
    while True:
        d = combo_next(ws, WS_SUB, lo, mid, WS_SEL1, WS_USED1, C_CTL)
        if d < 0:
            break
        ng, h = selected_groups(ws, db, d, extra, xhash)
        offer(ws, p, kind, c, value, target, ws[WS_USED1 + d], ng, h)


@njit(cache=True, nogil=True, _nrt=False)
def offer_selections_stacked(ws, p, kind, c, value, target, taken, extra, xhash, need_loose):
    """`offer_selections` for a bucket of any size, in two stages: the groups holding a pile card (bucket part
    [mid, hi)), kept only if with `taken` they use each opponent pile's top cards exactly (K8), then any
    loose-only groups ([lo, mid)). A selection of pile groups alone (or `extra` alone) is offered only if it
    holds a loose card where `need_loose` says so.

    With one usable opponent pile (every 1v1 format) the pile groups are chosen depth by depth
    (`prefix_next`), so none is made only to fail K8. With several (3p, 4p) `piles_next` settles the piles one
    after another as an exact cover: a later pile's gap first, else closing the current pile or covering its
    topmost unused card."""
    lo = ws[C_BSTART + value]
    mid = ws[C_BMID + value]
    hi = ws[C_BEND + value]
    if hi == mid:                   # no pile-card groups: the empty pile selection is the only one
        if pile_ok(taken, ws):
            offer_with_loose(ws, p, kind, c, value, target, taken, 0, extra, xhash, need_loose, lo, mid)
        return
    if ws[C_NOPP] == 1:
        prefix_start(ws, taken, WS_USED3, C_CTL + 4)
        while True:
            db = prefix_next(ws, mid, hi, WS_SEL3, WS_USED3, C_CTL + 4)
            if db < 0:
                return
            offer_with_loose(ws, p, kind, c, value, target, ws[WS_USED3 + db], db, extra, xhash, need_loose,
                             lo, mid)
    if not piles_start(ws, taken, value, mid, hi):
        return
    while True:                     # each selection using every usable pile's top cards exactly (K8)
        db = piles_next(ws, value)
        if db < 0:
            return
        offer_with_loose(ws, p, kind, c, value, target, ws[WS_USED3 + db], db, extra, xhash, need_loose, lo, mid)
DIRECT_BUCKET = 2          # buckets of at most this many groups are enumerated in place


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def offer_pick(ws, p, kind, c, value, target, taken, extra, xhash, need_loose, k1, k2):
    """Offer the selection of subsets k1 and k2 (indices into the sum buckets, -1: none) with `extra`, the
    cards `taken` and their hash terms `xhash` (as in `offer_selections`), if it is a move: its groups are
    pairwise disjoint, it holds a loose card where `need_loose` says so, and it keeps K8's pile prefixes."""
    u = taken
    h = np.uint64(xhash)
    ng = 0
    if extra:
        ng = insert_sorted(ws, ng, extra)
    for k in (k1, k2):
        if k >= 0:
            g = ws[WS_SUB + k] & CARD_BITS
            if g & u:
                return
            u |= g
            h ^= np.uint64(ws[WS_SUBH + k])
            ng = insert_sorted(ws, ng, g)
    if (need_loose and u & ws[C_LOOSE] == 0) or not pile_ok(u, ws):
        return
    offer(ws, p, kind, c, value, target, u, ng, h)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def offer_selections(ws, p, kind, c, value, target, taken, extra, xhash, need_loose):
    """Offer every selection of disjoint groups of sum `value` (none of the cards `taken`), each with the
    group `extra` when non-zero (the played card's group of a build or load; `xhash`: the hash terms of its
    table cards, which are `taken`), as moves of `kind`; where `need_loose`, only those holding a loose card.

    A bucket of at most DIRECT_BUCKET groups (80% of them in khasino random play) is done in place, each
    subset of its groups in turn (`offer_pick`), without a call or a stack machine; a larger one goes to
    `offer_selections_stacked`. Both offer the same moves, in different orders."""
    lo = ws[C_BSTART + value]
    n = ws[C_BEND + value] - lo
    if n > DIRECT_BUCKET:
        offer_selections_stacked(ws, p, kind, c, value, target, taken, extra, xhash, need_loose)
        return
    if extra:
        offer_pick(ws, p, kind, c, value, target, taken, extra, xhash, need_loose, -1, -1)
    if n >= 1:
        offer_pick(ws, p, kind, c, value, target, taken, extra, xhash, need_loose, lo, -1)
    if n == 2:
        offer_pick(ws, p, kind, c, value, target, taken, extra, xhash, need_loose, lo + 1, -1)
        offer_pick(ws, p, kind, c, value, target, taken, extra, xhash, need_loose, lo, lo + 1)
