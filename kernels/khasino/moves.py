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

from ..core.bits import card_value, lowbit_index, popcount
from ..core.groups import pile_ok, prepare_items
from ..core.layout import (
    C_CARD_SETS, R_CARD_SETS,
    CARD_BITS, C_ABOVE, C_BEND, C_BGRP, C_BHASH, C_BMASK, C_BNGV, C_BPTS, C_BSTART, C_BUILT, C_CARDPTS,
    C_CHANGEABLE, C_FOLLOW, C_HV, C_HVMASK, C_HW, C_LASTCAP, C_LOADKEY, C_LOOSE, C_MAXV, C_MKOWNER, C_MYPLEN,
    C_OURPTS, C_OWNMASK, C_PARTNER_BUILDS, C_PILE_EXPOSE, C_PITEMS, C_PTMASK, C_RACES, C_REACH, C_RISK, C_SINK,
    C_STOP, C_SUMS, C_SUMS_LOOSE, C_SWEEPS_ON, C_TABLE_POINTS, H_SAFETY, KIND_BUILD, KIND_CAPTURE, KIND_CHANGE,
    KIND_LOAD, MAX_GROUPS, MAX_PILE, MAX_VALUE, R_ACE_14, R_CARD_POINTS, R_CHANGE, R_DECK, R_FOLLOW, R_LOAD_OWNS,
    R_MAX_BUILDS, R_MAX_BUILD_VALUE, R_PARTNER, R_PILES, R_POINT_MASK, R_SEATS, R_SWEEPS, R_TEAM, R_TEAMS,
    R_TRAIL_OWN_FIRST, R_TRAIL_SAME, R_UNSUMMED, SINK_HEURISTIC, SINK_RANDOM, S_BGROUPS, S_BNG, S_BOWNER, S_DEAL,
    S_HANDS, S_LAST_CAP, S_LOOSE, S_PILE, S_PLEN, S_PROMISES, WS_GBUF, WS_SUB, WS_SUBH,
)
from ..core.offer import SPADES, keeps_commitments, mask_points, offer, offer_selections, offer_trail
from ..core.rng import z_build, z_group


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
    card_sets = rules[R_CARD_SETS]
    ws[C_CARD_SETS] = card_sets
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
        if card_sets:               # P27: a build is its cards (its grouping leaves no trace)
            bh = z_build(v, o) ^ z_group(v, 0, bm)
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
    # K4, K5, P4: a group may be pile-only; with no loose card, a move using pile cards captures or loads a build
    # (its groups have the build's value), or is a K7 change with extra cards (one group: at most each pile's top
    # card)
    pile_values = group_values if st[S_LOOSE] else group_values & built
    one_group_values = group_values if not st[S_LOOSE] and changeable and rules[R_CHANGE] else 0
    prepare_items(st, rules, p, ws, pile_values, one_group_values)


@njit(cache=True, nogil=True, _nrt=False)
def heuristic_context(st, rules, p, ws):
    """The heuristic's view of the position (kernels/core/heuristic.py, `khasino_score`), from what seat p sees,
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
REBUILD_SHIFT = 16         # gen_hand: bit 16 + v of its to-do mask marks a P14 rebuild of value v


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
        if ws[C_STOP]:              # a full listing window (sink.py)
            return
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
                    if ws[C_STOP]:  # a full listing window (sink.py)
                        return
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
        if ws[C_STOP]:              # a full listing window (sink.py): the selection enumerations have ended too
            break
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
