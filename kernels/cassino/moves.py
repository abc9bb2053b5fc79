"""Classic Cassino's move rules (C3–C6, RULES.md P16–P19) on the shared group layer and Khasino's offer path:
captures (equal cards, sum groups, builds; a face card pairs one card of its rank; an ace may capture as 14),
builds, adds (move kind `load`, which make the adder the owner), raises (kind `change`, any single build by the
played card alone) and trails (never while owning a build).

Cassino has no usable pile cards and no follow-ups, so every group is loose-only and `offer` makes one
candidate per selection. `movegen.generate` calls it as it calls Khasino's `gen_hand`.
"""
from numba import njit

from ..core.bits import card_value, lowbit_index, popcount
from ..core.layout import (
    CARD_BITS, C_BEND, C_BSTART, C_BUILT, C_HV, C_HVMASK, C_LOOSE, C_MAXV, C_OWNMASK, C_STOP, C_SUMS, C_SUMS_LOOSE,
    KIND_BUILD, KIND_CAPTURE, KIND_CHANGE, KIND_LOAD, R_ACE_14, R_TRAIL_OWN_ANY, R_UNSUMMED, S_BNG, S_BOWNER,
    S_HANDS, WS_GBUF, WS_SUB, WS_SUBH,
)
from ..core.offer import offer, offer_selections_stacked, offer_trail
from ..core.rng import z_loose


ACE_HIGH = 14       # Cassino `ace_14` (P17): the value an ace in the hand also counts as
ACE_BUILDS = (1 << 1) | (1 << ACE_HIGH)     # builds of 1 and of 14: an ace keeps either, not both (P1)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def counts_as(c, w):
    """1 if playing card c spends a hand card of value w: its own value, and for an ace also 14 (P17; a value
    only Cassino's `ace_14` has)."""
    cv = card_value(c)
    return 1 if cv == w or (w == ACE_HIGH and cv == 1) else 0


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def aces_keep(ws, c, owns):
    """P1 under `ace_14`: a player who owns the builds of 1 and of 14 after playing card c (`owns`: bit v for
    each build he then owns) holds two aces."""
    return owns & ACE_BUILDS != ACE_BUILDS or ws[C_HV + 1] - counts_as(c, 1) >= 2


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def keeps_builds(ws, c, exempt):
    """P1 in Cassino (C6): after playing card c the mover still holds a card of the value of each build he owns,
    a different card for each, except the build of value `exempt` (the one the move captures or raises; -1:
    none)."""
    m = ws[C_OWNMASK]
    if m == 0:                      # the usual case: no build to keep
        return True
    if exempt >= 0:
        m &= ~(1 << exempt)
    if not aces_keep(ws, c, m):
        return False
    while m:
        b = m & -m
        m ^= b
        w = lowbit_index(b)
        if ws[C_HV + w] - counts_as(c, w) < 1:
            return False
    return True


@njit(cache=True, nogil=True, _nrt=False)
def captures_as(ws, p, c, v):
    """C3 (Khasino's `gen_captures` without piles): card c, counting v, takes a non-empty set of disjoint units:
    the build of value v (any owner) and loose groups summing to v (P3: any such set).

    Cassino's selections go through the general, non-inlined `offer_selections_stacked` (its buckets are small
    and have no pile cards): a second inlined copy of Khasino's small-bucket fast path would add about a
    minute to every cold compile for no measurable gain."""
    built = (ws[C_BUILT] >> v) & 1
    owned = (ws[C_OWNMASK] >> v) & 1
    for bcap in range(2):
        if bcap == 1 and not built:
            break
        target = v if bcap else 0
        if not keeps_builds(ws, c, v if (bcap and owned) else -1):
            continue
        if bcap:
            offer(ws, p, KIND_CAPTURE, c, v, target, 0, 0, 0)
        offer_selections_stacked(ws, p, KIND_CAPTURE, c, v, target, 0, 0, 0, bcap == 0)


@njit(cache=True, nogil=True, _nrt=False)
def groups_onto(ws, p, c, kind, value):
    """P18 builds and adds of value `value` (Khasino's `gen_groups_onto`, through the non-inlined selection
    path): the played card's group (alone when its value is `value`) plus any disjoint extra loose groups; a new
    build holds a loose card."""
    need = value - card_value(c)
    if need == 0:
        s_lo, s_hi = 0, 1           # the played card alone (bucket 0 holds only the empty set)
    else:
        s_lo, s_hi = ws[C_BSTART + need], ws[C_BEND + need]
    for si in range(s_lo, s_hi):
        if ws[C_STOP]:              # a full listing window (sink.py)
            return
        smask = ws[WS_SUB + si] & CARD_BITS
        offer_selections_stacked(ws, p, kind, c, value, value, smask, smask | (1 << c), ws[WS_SUBH + si],
                                 kind == KIND_BUILD)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def gen_face_pair(ws, p, c):
    """P16: a face card with no number takes exactly one loose card of its rank."""
    if not keeps_builds(ws, c, -1):
        return
    m = ws[C_LOOSE] & (15 << (c & ~3))
    while m:
        b = m & -m
        m ^= b
        ws[WS_GBUF] = b
        offer(ws, p, KIND_CAPTURE, c, card_value(c), 0, b, 1, z_loose(lowbit_index(b)))


@njit(cache=True, nogil=True, _nrt=False)
def gen_raises(st, ws, p, c, free):
    """P19 (C5): raise a single build of value w, whoever owns it, by the played card alone to w + v, a value
    no build has and the mover still holds after the play; the build passes to him. `free`: the card keeps
    every build the mover owns (P1); raising his own build of w needs that only of his other builds."""
    cv = card_value(c)
    for w in range(1, ws[C_MAXV] - cv + 1):
        o = st[S_BOWNER + w]
        if o < 0 or st[S_BNG + w] != 1:
            continue
        nv = w + cv
        if st[S_BOWNER + nv] >= 0 or ws[C_HV + nv] - counts_as(c, nv) < 1:
            continue
        if not (free or (o == p and keeps_builds(ws, c, w))):
            continue
        owns = ws[C_OWNMASK] & ~(1 << w) | (1 << nv)
        if not aces_keep(ws, c, owns):
            continue
        ws[WS_GBUF] = 1 << c
        offer(ws, p, KIND_CHANGE, c, nv, w, 0, 1, 0)


@njit(cache=True, nogil=True, _nrt=False)
def gen_hand_cassino(st, rules, p, ws, captures, others):
    """For each hand card in ascending order: its captures (if `captures`), then its builds, adds, raises and
    trail (if `others`)."""
    hand = st[S_HANDS + 2 * p]
    unsummed = rules[R_UNSUMMED]
    ace14 = rules[R_ACE_14]
    ne = ws[C_SUMS]
    bl = ws[C_SUMS_LOOSE]
    built = ws[C_BUILT]
    nowned = popcount(ws[C_OWNMASK])
    no_trail = nowned > 0 and rules[R_TRAIL_OWN_ANY]     # C6: no trail while owning a build
    m = hand
    while m:
        if ws[C_STOP]:              # a full listing window (sink.py): the selection enumerations have ended too
            break
        b = m & -m
        m ^= b
        c = lowbit_index(b)
        cv = card_value(c)
        if b & unsummed:            # P16: J, Q, K without face_values
            if captures:
                gen_face_pair(ws, p, c)
            if others and not no_trail:
                offer_trail(ws, p, c)
            continue
        v = cv
        while captures:             # P17: an ace captures as 1, then as 14
            if ws[C_BEND + v] > ws[C_BSTART + v] or (built >> v) & 1:
                captures_as(ws, p, c, v)
            if v != 1 or not ace14:
                break
            v = ACE_HIGH
        if not others:
            continue
        free = keeps_builds(ws, c, -1)
        if free:
            # P18: build or add V >= cv where a group of V can hold the played card (alone when V == cv) and
            # the mover still holds a V; a new build also needs a loose card (its group's, or another group of V)
            held = ws[C_HVMASK] & ~((1 << cv) - 1)
            if ws[C_HV + cv] == 1:
                held &= ~(1 << cv)
            if ace14 and cv == 1 and ws[C_HV + ACE_HIGH] == 1:
                held &= ~(1 << ACE_HIGH)
            held &= ne << cv
            own = ws[C_OWNMASK]
            if held & ACE_BUILDS and own & ACE_BUILDS and not aces_keep(ws, c, ACE_BUILDS):
                held &= ~(ACE_BUILDS & ~own)    # he would own the builds of 1 and 14 with one ace (P1)
            todo = (held & built) | (held & ~built & (((ne & bl) << cv) | bl))
            while todo:
                hb = todo & -todo
                todo ^= hb
                v = lowbit_index(hb)
                groups_onto(ws, p, c, KIND_LOAD if hb & built else KIND_BUILD, v)
        if built:
            gen_raises(st, ws, p, c, free)
        if free and not no_trail:
            offer_trail(ws, p, c)
