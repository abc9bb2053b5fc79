"""The Khasino family's move rules (K3–K11, P1–P7) on the shared group layer: captures, builds, loads,
changes, trails and follow-ups, each candidate folded into the sink as it is generated (no move list).

For each hand card, every capture, build, load and change is a selection of disjoint subsets from the right
sum buckets (`groups`), filtered for grounding (K4, K5), pile prefixes (K8) and commitment (K5–K7, P1).
Khasino follow-ups (K9, P5) extend each capture, build, load and change with disjoint loose-only groups for
the builds the mover then owns. Keys (docs/ENGINE.md) and greedy features are computed per candidate from
tabulated hash terms; a greedy sink skips a losing main action before its key (`sink.prefilter`).
"""
import numpy as np
from numba import njit

from .bits import lowbit_index, popcount, card_value, SPADES_MASK
from .groups import (
    combo_start, combo_next, prefix_start, prefix_next, pile_ok, prepare_items, piles_start, piles_next,
)
from .heuristic import khasino_score
from .layout import (
    S_LOOSE, S_HANDS, S_BOWNER, S_BNG, S_BGROUPS, S_PLEN, S_DEAL, S_LAST_CAP,
    MAX_GROUPS, MAX_VALUE,
    R_TRAIL_SAME, R_TRAIL_OWN_FIRST, R_MAX_BUILDS, R_CHANGE, R_FOLLOW,
    R_MAX_BUILD_VALUE, R_CARD_POINTS, R_POINT_MASK, R_TEAMS, R_TEAM, R_PARTNER, S_PROMISES,
    KIND_CAPTURE, KIND_BUILD, KIND_LOAD, KIND_CHANGE, KIND_TRAIL,
    CARD_BITS, VALUE_SHIFT,
    C_NOPP, C_BSTART, C_BMID, C_BEND, C_HV, C_TABLE_POINTS, C_CTL,
    C_SUMS, C_SUMS_LOOSE, C_SUMS_LOOSE_ONLY, C_BUILT, C_HVMASK, C_CHANGEABLE, C_BMASK, C_BHASH, C_BPTS, C_SINK,
    SINK_RANDOM, SINK_HEURISTIC, C_OURPTS,
    C_OWNMASK, C_LOOSE, C_MYPLEN, C_LASTCAP, C_MAXV, C_FOLLOW, C_BNGV, C_BGRP, C_PTMASK,
    C_CARDPTS, C_MKOWNER, C_REACH, C_ABOVE, C_PITEMS, C_PARTNER_BUILDS, C_LOADKEY, C_SWEEPS_ON,
    R_UNSUMMED, R_ACE_14, R_LOAD_OWNS, R_SWEEPS,
    WS_SUB, WS_SUBH, WS_FOLLOW, WS_SEL1, WS_USED1, WS_SEL2, WS_USED2, WS_SEL3, WS_USED3, WS_GBUF,
    C_PILE_EXPOSE, C_RACES, R_PILES, R_SEATS, R_DECK, S_PILE, MAX_PILE, C_RISK, C_HW, H_SAFETY,
)
from .rng import z_hand, z_loose, z_build, z_group, z_pile, z_last
from .sink import prefilter, consider

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


@njit(cache=True, nogil=True, _nrt=False)
def prepare_position(st, rules, p, ws):
    """Per-position tables: items and subset buckets, hand value counts, owned and changeable builds, each
    build's cards, hash terms and points (filled only for the values that have a build: no reader looks at
    the others), and the points on the table."""
    hand = st[S_HANDS + 2 * p]
    maxv = rules[R_MAX_BUILD_VALUE]
    for v in range(MAX_VALUE + 1):   # face cards (values above maxv) are counted too
        ws[C_HV + v] = 0
    hvmask = 0
    m = hand & ~rules[R_UNSUMMED]     # P16: a card with no number is no card of any value
    while m:
        b = m & -m
        m ^= b
        cv = card_value(lowbit_index(b))
        ws[C_HV + cv] += 1
        hvmask |= 1 << cv
    if rules[R_ACE_14] and ws[C_HV + 1]:     # P17: an ace in the hand is also a card of value 14
        ws[C_HV + 14] = ws[C_HV + 1]
        hvmask |= 1 << 14
    ws[C_HVMASK] = hvmask & ((2 << maxv) - 1)
    ws[C_LOOSE] = st[S_LOOSE]
    ws[C_MYPLEN] = st[S_PLEN + p]
    ws[C_LASTCAP] = st[S_LAST_CAP]
    ws[C_MAXV] = maxv
    ws[C_FOLLOW] = rules[R_FOLLOW]
    ws[C_SWEEPS_ON] = rules[R_SWEEPS]
    load_owns = rules[R_LOAD_OWNS]
    built = 0
    for v in range(1, maxv + 1):
        built |= ((st[S_BOWNER + v] >> 63) + 1) << v       # owner -1: no build (no branch)
    ownmask = 0
    changeable = 0
    partner_builds = 0
    partner = rules[R_PARTNER + p]
    team = rules[R_TEAM + p]
    ws[C_MKOWNER] = p
    features = ws[C_SINK] != SINK_RANDOM          # the random bot reads no features
    if features:
        m = rules[R_POINT_MASK]     # mask_points reads only these cards' entries
        ws[C_PTMASK] = m
        while m:
            b = m & -m
            m ^= b
            ws[C_CARDPTS + lowbit_index(b)] = rules[R_CARD_POINTS + lowbit_index(b)]
    tp = mask_points(st[S_LOOSE], ws) if features else 0
    ours = 0
    m = built                       # the per-build tables are read only for values with a build
    while m:
        b = m & -m
        m ^= b
        v = lowbit_index(b)
        o = st[S_BOWNER + v]
        ng = st[S_BNG + v]
        # C4: an add passes the build to the adder (Cassino); Khasino's loads keep the owner (K6)
        ws[C_LOADKEY + v] = np.int64(z_build(v, o) ^ z_build(v, p)) if load_owns else 0
        if o == p:
            ownmask |= b
        elif o == partner:
            partner_builds |= b         # K15: never changed by the mover; loaded without holding v (P12)
        elif ng == 1 and rules[R_TEAM + o] != team:
            changeable |= b
        bh = z_build(v, o)
        bm = 0
        for i in range(ng):
            g = st[S_BGROUPS + v * MAX_GROUPS + i]
            ws[C_BGRP + v * MAX_GROUPS + i] = g
            bm |= g
            bh ^= z_group(v, i, g)
        ws[C_BNGV + v] = ng
        ws[C_BMASK + v] = bm
        ws[C_BHASH + v] = np.int64(bh)
        if features:
            ws[C_BPTS + v] = mask_points(bm, ws)
            tp += ws[C_BPTS + v]
            if o == p or o == partner:
                ours += ws[C_BPTS + v]
    ws[C_OURPTS] = ours
    ws[C_OWNMASK] = ownmask
    ws[C_PARTNER_BUILDS] = partner_builds
    ws[C_CHANGEABLE] = changeable
    ws[C_BUILT] = built
    ws[C_TABLE_POINTS] = tp
    if ws[C_SINK] == SINK_HEURISTIC:
        heuristic_context(st, rules, p, ws)
    # the values a move's groups may take: those the mover holds, and in 4p without holding them his
    # partner's builds' (P12 loads) and open promises' (P14 rebuilds); pile cards may complete them too (K8)
    group_values = ws[C_HVMASK] | partner_builds
    if partner >= 0:
        group_values |= st[S_PROMISES + partner]
    # K4, K5: with no loose card, a move using pile cards captures or loads a build (its groups have the
    # build's value), or is a K7 change with extra cards (one group: at most each pile's top card)
    pile_values = group_values if st[S_LOOSE] else group_values & built
    one_group_values = group_values if not st[S_LOOSE] and changeable and rules[R_CHANGE] else 0
    prepare_items(st, rules, p, ws, pile_values, one_group_values)


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
    if kind == KIND_CAPTURE:
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
    """The heuristic bot's score of a main action (kernels/heuristic.py): the greedy features, the card points
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


@njit(cache=True, nogil=True, _nrt=False)
def heuristic_context(st, rules, p, ws):
    """The heuristic's view of the position (kernels/heuristic.py, `khasino_score`), from what seat p sees,
    after prepare_position has filled the builds' tables:
    - the K13 races still open (no team holds more than half the cards, or of the spades);
    - the card points of the mover's exposed pile top (-1 in a format without K8 pile use);
    - with `safety`, each build value's risk (thousandths): the chance that the opponents' hands hold a card
      of that value, the unseen cards (in no place p sees: his hand, the table, the builds, the piles, which
      are public history) being equally likely anywhere: 1 - C(U - k, H) / C(U, H) for U unseen cards, k of
      them of the value, H cards in the opponents' hands (their sizes are public). C_OURPTS becomes the safe
      points of the builds the mover's side owns (thousandths of a point)."""
    team = rules[R_TEAM + p]
    ours_c = 0
    ours_s = 0
    theirs_c = 0
    theirs_s = 0
    seen = st[S_HANDS + 2 * p] | st[S_LOOSE]
    held = 0                        # cards in the opponents' hands
    for s in range(rules[R_SEATS]):
        n = st[S_PLEN + s]
        sp = 0
        for i in range(n):
            x = st[S_PILE + s * MAX_PILE + i]
            sp += (SPADES >> x) & 1
            seen |= 1 << x
        if rules[R_TEAM + s] == team:
            ours_c += n
            ours_s += sp
        else:
            theirs_c = n if n > theirs_c else theirs_c   # (no max(): CUDA)
            theirs_s = sp if sp > theirs_s else theirs_s
            held += popcount(st[S_HANDS + 2 * s])
    deck = rules[R_DECK]
    cards_open = ours_c * 2 <= deck and theirs_c * 2 <= deck
    spades_open = ours_s * 8 <= deck and theirs_s * 8 <= deck
    ws[C_RACES] = (1 if cards_open else 0) | (2 if spades_open else 0)
    n = st[S_PLEN + p]
    ws[C_PILE_EXPOSE] = -1 if not rules[R_PILES] else \
        (rules[R_CARD_POINTS + st[S_PILE + p * MAX_PILE + n - 1]] if n > 0 else 0)
    maxv = rules[R_MAX_BUILD_VALUE]
    built = ws[C_BUILT]
    for v in range(1, maxv + 1):
        if (built >> v) & 1:
            seen |= ws[C_BMASK + v]
    unseen = ((1 << deck) - 1) & ~seen
    u = popcount(unseen)
    ours = ws[C_OWNMASK] | ws[C_PARTNER_BUILDS]
    our_m = 0
    for v in range(MAX_VALUE + 1):
        risk = 0
        if ws[C_HW + H_SAFETY] and 1 <= v <= maxv:
            vm = (15 << (4 * (v - 1))) if v <= 13 else (15 if rules[R_ACE_14] else 0)
            k = popcount(unseen & vm & ~rules[R_UNSUMMED])
            none = 1.0
            for i in range(held):
                if u - k - i <= 0:
                    none = 0.0
                    break
                none *= (u - k - i) / (u - i)
            risk = 1000 - np.int64(none * 1000.0 + 0.5)
        ws[C_RISK + v] = risk
        if (ours >> v) & 1:
            our_m += ws[C_BPTS + v] * (1000 - risk)
    ws[C_OURPTS] = our_m


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


@njit(cache=True, nogil=True, _nrt=False)
def offer_followups(ws, kind, value, used, own, key0, c, target, ng, pile_used):
    """K9/P5: every non-empty set of disjoint loose-only groups (none of the cards `used`) added to the builds
    of the values in `own` (those the mover may add to after the main action, `offer`)."""
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


REBUILD_SHIFT = 16         # gen_hand: bit 16 + v of its to-do mask marks a P14 rebuild of value v
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


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def gen_captures(ws, p, c, v):
    """K4: card c, of value v, takes a non-empty set of disjoint units (its build, groups of loose/pile cards;
    P3: any such set)."""
    built = (ws[C_BUILT] >> v) & 1
    owned = (ws[C_OWNMASK] >> v) & 1
    for bcap in range(2):
        if bcap == 1 and not built:
            break
        target = v if bcap else 0
        if not keeps_commitments(ws, v, v if (bcap and owned) else -1):
            continue
        if bcap:
            offer(ws, p, KIND_CAPTURE, c, v, target, 0, 0, 0)
        # table-grounded: without the build, pile cards alone are no capture
        offer_selections(ws, p, KIND_CAPTURE, c, v, target, 0, 0, 0, bcap == 0)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def above_reached(ws, pt, reach):
    """Whether the cards above each usable pile card in pt are all among the cards `reach` (K8)."""
    while pt:
        b = pt & -pt
        pt ^= b
        if ws[C_ABOVE + lowbit_index(b)] & ~reach:
            return False
    return True


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def gen_groups_onto(ws, p, c, kind, value):
    """K5 builds and K6 loads of value `value`: the played card's group plus any disjoint extra groups."""
    need = value - card_value(c)
    if need == 0:
        s_lo, s_hi = 0, 1           # the played card alone (bucket 0 holds only the empty set)
    else:
        s_lo, s_hi = ws[C_BSTART + need], ws[C_BEND + need]
    reach = ws[C_REACH + value]
    pitems = ws[C_PITEMS]
    for si in range(s_lo, s_hi):
        smask = ws[WS_SUB + si] & CARD_BITS
        # K8: the cards above a pile card of the played card's group must be used too, and only the groups
        # of sum `value` can use them; where they cannot, the group has no selection to go with
        pt = smask & pitems
        if pt and not above_reached(ws, pt, reach | smask):
            continue
        # K5: a new build holds a loose card; pile cards never start one alone
        offer_selections(ws, p, kind, c, value, value, smask, smask | (1 << c), ws[WS_SUBH + si],
                         kind == KIND_BUILD)


@njit(cache=True, nogil=True, _nrt=False)
def gen_changes(st, rules, p, ws, c):
    """K7: raise an opponent's simple build to a new value the mover holds; it passes to the mover."""
    cv = card_value(c)
    maxv = rules[R_MAX_BUILD_VALUE]
    for w in range(1, maxv - cv + 1):
        if not (ws[C_CHANGEABLE] >> w) & 1:   # an opponent's simple build (never the mover's or a teammate's)
            continue
        g0 = st[S_BGROUPS + w * MAX_GROUPS]
        if rules[R_CHANGE] == 0:
            if popcount(g0) != 2:
                continue
            nv = w + cv
            if st[S_BOWNER + nv] >= 0 or ws[C_HV + nv] - (1 if nv == cv else 0) < 1:
                continue
            ws[WS_GBUF] = 1 << c
            offer(ws, p, KIND_CHANGE, c, nv, w, 0, 1, 0)
        else:
            for s in range(0, maxv - w - cv + 1):
                nv = w + cv + s
                if st[S_BOWNER + nv] >= 0 or ws[C_HV + nv] - (1 if nv == cv else 0) < 1:
                    continue
                for k in range(ws[C_BSTART + s], ws[C_BEND + s]):
                    smask = ws[WS_SUB + k] & CARD_BITS
                    if not pile_ok(smask, ws):
                        continue
                    ws[WS_GBUF] = smask | (1 << c)
                    offer(ws, p, KIND_CHANGE, c, nv, w, smask, 1, ws[WS_SUBH + k])


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def gen_hand(st, rules, p, ws, captures, others):
    """Offer, for each hand card in ascending order, its captures (if `captures`) and its builds, loads,
    changes and trail (if `others`)."""
    hand = st[S_HANDS + 2 * p]
    loose = st[S_LOOSE]
    maxv = rules[R_MAX_BUILD_VALUE]
    nowned = popcount(ws[C_OWNMASK])
    can_build = rules[R_MAX_BUILDS] == 0 or nowned < rules[R_MAX_BUILDS]
    # P14 rebuilds, for the partner: not past his build limit (K5/P6, `max_builds_owned`)
    can_rebuild = rules[R_TEAMS] != 0 and (rules[R_MAX_BUILDS] == 0 or
                                           popcount(ws[C_PARTNER_BUILDS]) < rules[R_MAX_BUILDS])
    ne = ws[C_SUMS]
    bl = ws[C_SUMS_LOOSE]
    built = ws[C_BUILT]
    m = hand
    while m:
        b = m & -m
        m ^= b
        c = lowbit_index(b)
        cv = card_value(c)
        if captures and cv <= maxv and (ws[C_BEND + cv] > ws[C_BSTART + cv] or st[S_BOWNER + cv] >= 0):
            gen_captures(ws, p, c, cv)
        if not others:
            continue
        if not keeps_commitments(ws, cv, -1):
            continue              # P1: the last card of an owned build's value only captures that build
        # K5/K6: build or load only a value the player still holds after playing c, and only where a group
        # can be made: the played card alone (v == cv) or with a subset of sum v - cv; a new build also
        # needs a loose card, in the played card's group or in an extra group of v.
        held = ws[C_HVMASK] & ~((2 << cv) - 1 if ws[C_HV + cv] == 1 else (1 << cv) - 1)
        held &= ne << cv
        todo = held & built
        if can_build:
            todo |= held & ~built & (((ne & bl) << cv) | bl)
        todo |= ws[C_PARTNER_BUILDS] & (ne << cv)     # P12: a partner's build, loaded without holding v
        if can_rebuild:
            # P14: rebuild a value the partner promised, whose build an opponent captured, for the partner (he
            # holds its card, P13); the mover need not hold one; a K5 build otherwise. Marked at bit 16 + v,
            # so one loop (one inlined copy of gen_groups_onto) makes both
            rebuild = st[S_PROMISES + rules[R_PARTNER + p]] & ~built & (ne << cv) & (((ne & bl) << cv) | bl)
            todo |= (rebuild & ((2 << maxv) - 1)) << REBUILD_SHIFT
        while todo:                 # ascending values, loads and builds as they come, then rebuilds
            hb = todo & -todo
            todo ^= hb
            v = lowbit_index(hb)
            if v >= REBUILD_SHIFT:
                v -= REBUILD_SHIFT
                ws[C_MKOWNER] = rules[R_PARTNER + p]
                hb = 0
            gen_groups_onto(ws, p, c, KIND_LOAD if hb & built else KIND_BUILD, v)
        ws[C_MKOWNER] = p
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
        offer_trail(ws, p, c)
