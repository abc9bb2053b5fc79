"""The shared group layer's pile selections (K8) and usable pile depths against brute force.

For 1,000 random khasino positions with a usable opponent pile, for every sum s and for `taken` (the played
card's subset of a build: nothing, or one of up to three subsets of lower sums), the selections of pile-card
groups of bucket s that `prefix_next` yields must be exactly the sets of pairwise-disjoint groups, disjoint
from `taken`, whose pile cards together with `taken`'s are the top k usable cards of the pile for some k (K8),
each exactly once. The brute force reads the pile order from the state, not from the kernel's prefix tables,
and walks every disjoint set of the bucket's pile part, so parts of more than 14 groups are skipped. The same
for the several-pile search (`piles_start`/`piles_next`: 3p and 4p, each pile's cards its top ones), and the
usable pile depths against their definition.
"""
import random

import numpy as np
import pytest
from numba import njit

from khasino_sim.formats import get_format
from khasino_sim.kernels.core import layout as L
from khasino_sim.kernels.core.bits import card_value, parse_card
from khasino_sim.kernels.core.groups import prefix_start, prefix_next, piles_start, piles_next
from khasino_sim.kernels.core.workspace import new_workspace
from khasino_sim.kernels.movegen import prepare_only
from khasino_sim.state_json import from_json
from tests.khasino import positions_search as P


@njit  # not cached: it inlines kernel code, whose layout constants a cache would freeze
def _selections(ws, s, taken, out, several):
    """Every selection of bucket s's pile part that prefix_next (one usable pile) or piles_next (several)
    yields: rows of group indices (-1 padded), written while they fit; returns their number (0 if
    piles_start found none)."""
    mid = ws[L.C_BMID + s]
    hi = ws[L.C_BEND + s]
    if several:
        if not piles_start(ws, taken, s, mid, hi):
            return 0
    else:
        prefix_start(ws, taken, L.WS_USED3, L.C_CTL + 4)
    n = 0
    while True:
        d = piles_next(ws, s) if several else prefix_next(ws, mid, hi, L.WS_SEL3, L.WS_USED3, L.C_CTL + 4)
        if d < 0:
            return n
        if n < out.shape[0]:
            for k in range(out.shape[1]):
                out[n, k] = ws[L.WS_SEL3 + k] if k < d else -1
        n += 1


def _brute(groups, taken, piles):
    """All sets of pairwise-disjoint groups (indices), disjoint from taken, whose cards of each pile (with
    taken's) are its top k for some k (piles: each usable pile's card bits from the top)."""
    prefixes = []
    for top_down in piles:
        acc, ok = 0, {0}
        for b in top_down:
            acc |= b
            ok.add(acc)
        prefixes.append((acc, ok))
    found = []

    def walk(start, used, chosen):
        if all(used & bits in ok for bits, ok in prefixes):
            found.append(frozenset(chosen))
        for j in range(start, len(groups)):
            idx, g = groups[j]
            if g & used == 0:
                walk(j + 1, used | g, chosen + [idx])

    walk(0, taken, [])
    return found


def test_prefix_selections_match_brute_force():
    rng = random.Random(20261130)
    fmt = get_format("khasino")
    rules = fmt.rules_array()
    ws = new_workspace()
    out = np.zeros((1 << 14, L.STACK_LEN), dtype=np.int64)
    positions = checked = skipped = 0
    while positions < 1000:
        state = P.random_position(rng, "khasino", rng.choice(("realistic", "mixed", "pile")))
        _, st = from_json(state)
        p = int(st[L.S_TO_MOVE])
        prepare_only(st, rules, p, ws)
        if ws[L.C_NOPP] != 1:
            continue
        positions += 1
        q = int(ws[L.C_OPP])
        plen = int(st[L.S_PLEN + q])
        top_down = [1 << int(st[L.S_PILE + q * L.MAX_PILE + plen - 1 - d]) for d in range(plen)]
        usable = int(ws[L.C_PMASK])
        top_down = [b for b in top_down[:bin(usable).count("1")]]
        sub = lambda i: int(ws[L.WS_SUB + i]) & L.CARD_BITS          # noqa: E731
        for s in range(1, int(rules[L.R_MAX_BUILD_VALUE]) + 1):
            mid, hi = int(ws[L.C_BMID + s]), int(ws[L.C_BEND + s])
            if mid == hi:
                continue
            groups = [(i, sub(i)) for i in range(mid, hi)]
            if len(groups) > 14:
                skipped += 1
                continue          # the brute force walks every disjoint set of the part: keep it small
            takens = [0] + [sub(i) for i in range(int(ws[L.C_BSTART + 1]), int(ws[L.C_BEND + s - 1]))][:3]
            for taken in takens:
                n = _selections(ws, s, taken, out, False)
                assert n <= out.shape[0]
                got = [frozenset(int(x) for x in row if x >= 0) for row in out[:n]]
                want = _brute(groups, taken, [top_down])
                assert len(got) == len(set(got)), f"a selection yielded twice in {state}"
                assert set(got) == set(want), f"sum {s}, taken {taken:#x}: {state}"
                checked += 1
    assert checked > 10000 and skipped < checked // 3     # 14,367 checked, 3,089 skipped with this seed


def _pile_cards_used(before, after, seat):
    """Cards a move took from seat's pile: how much shorter the pile is after it."""
    return len(before["piles"][seat]) - len(after["piles"][seat])


def test_usable_pile_depth_never_cuts_a_legal_move():
    """`prepare_items` makes items of only the top cards some move could use (docs/ENGINE.md, "Usable pile
    depth"). On positions with deep opponent piles of low cards, no move of the reference engine (written
    from K8 alone) takes more pile cards than that depth, and the core lists the same moves."""
    from khasino_sim import engine, reference as ref

    rng = random.Random(20261201)
    positions = deep = 0
    for _ in range(400):
        fmt = rng.choice(("khasino", "durban"))
        state = P.random_position(rng, fmt, rng.choice(("pile", "mixed", "realistic")))
        if len(state["hands"][state["to_move"]]) > 6 or len(state["table"]["loose"]) > 6:
            continue          # keep the reference quick
        p = state["to_move"]
        q = 1 - p
        depth = engine.scratch_high_water(state)["pile_depth"]
        moves = ref.legal_moves(state)
        used = max([_pile_cards_used(state, m.after, q) for m in moves] + [0])
        assert used <= depth, f"a legal move takes {used} pile cards, the core allows {depth}: {state}"
        assert {m.key for m in engine.legal_moves(state)} == {m.key for m in moves}
        positions += 1
        deep += used >= 2
    # this seed: 225 positions, 82 with a move taking 2 to 7 pile cards; in 9 the depth is exactly the deepest use
    assert positions >= 200 and deep >= 50


def _depth(top, values, partners):
    """The largest k such that, for some V in `values`, none of the top k cards is above V and at most
    `partners` of them are not V (docs/ENGINE.md, "Usable pile depth")."""
    return next((k for k in range(len(top), 0, -1)
                 if any(max(top[:k]) <= v and sum(x != v for x in top[:k]) <= partners for v in values)), 0)


def _pile_values(state, fmt, values):
    """The values a move's groups with pile cards may take, from `values` (those any group may take), and the
    values a one-group move (a K7 change) may take, or None: with a loose card, all of them and None; with
    none (K4, K5), only the built ones, and every value for a change where an opponent's simple build can
    be changed with extra cards (change_mode 1)."""
    from khasino_sim.formats import get_format
    f = get_format(fmt)
    if state["table"]["loose"]:
        return values, None
    builds = state["table"]["builds"]
    team = f.team_of(state["to_move"])
    change = f.change_mode == 1 and any(f.team_of(b["owner"]) != team and len(b["groups"]) == 1 for b in builds)
    return values & {b["value"] for b in builds}, (values if change else None)


def _oracle_pile_depth(state, fmt, max_value=10):
    """The usable depth of the opponent's pile (1v1), read straight from its definition (docs/ENGINE.md,
    "Usable pile depth"): the largest k such that, for some value V <= max_value the mover holds (with no
    loose card, a built one), none of the top k cards is above V and at most loose + 1 of them are not V;
    with no loose card and a change possible, at least the top card if it is usable alone."""
    p = state["to_move"]
    held = {card_value(parse_card(c)) for c in state["hands"][p]} & set(range(1, max_value + 1))
    values, one_group = _pile_values(state, fmt, held)
    top = [card_value(parse_card(c)) for c in reversed(state["piles"][1 - p])]
    depth = _depth(top, values, len(state["table"]["loose"]) + 1)
    if depth == 0 and one_group:
        depth = min(1, _depth(top, one_group, 1))
    return depth


def test_usable_pile_depth_matches_its_definition():
    """The depth `prepare_items` computes with its nibble-parallel test (docs/ENGINE.md, "Usable pile depth") is
    the one its definition gives, on 3,000 random positions with deep opponent piles and on realistic ones."""
    from khasino_sim import engine

    rng = random.Random(3000)
    deep = 0
    for i in range(3000):
        fmt = ("khasino", "durban")[i % 2]
        state = P.random_position(rng, fmt, ("pile", "mixed", "realistic", "loose")[i % 4])
        want = _oracle_pile_depth(state, fmt)
        assert engine.scratch_high_water(state)["pile_depth"] == want, state
        deep += want >= 4
    assert deep >= 1000         # 1,416 of them with a usable depth of 4 to 21 with this seed


def test_wraparound_hook_keeps_other_packages_behaviour():
    """kernels/__init__.py compiles this package's functions without negative-index wraparound (docs/ENGINE.md,
    "No index wraparound"); a function of any other module, compiled in the same process, keeps Numba's."""
    import numba.np.arrayobj as arrayobj
    import khasino_sim.kernels as kernels

    assert "11khasino_sim7kernels" in arrayobj.fix_integer_index.khasino_prefixes
    assert kernels.__name__ == "khasino_sim.kernels"

    @njit
    def last(a, i):
        return a[i]

    a = np.arange(5, dtype=np.int64)
    assert last(a, -1) == 4 and last(a, -5) == 0 and last(a, 2) == 2


def _oracle_depths_several(state, fmt):
    """The usable depths of every usable opponent pile (3p, 4p), from their definition (docs/ENGINE.md, "Usable
    pile depth"): the greatest fixpoint of depth(s) = the largest k such that, for some value V a group may
    take, none of the top k cards of pile s is above V and at most loose + 1 + (the other opponents' depths)
    of them are not V; found by lowering every bound from the pile lengths, all piles at once, until stable."""
    from khasino_sim.formats import get_format
    f = get_format(fmt)
    p = state["to_move"]
    values = {card_value(parse_card(c)) for c in state["hands"][p]}
    if f.teams:
        q = next(t for team in f.teams if p in team for t in team if t != p)
        values |= set(state["promises"][q]) | {b["value"] for b in state["table"]["builds"] if b["owner"] == q}
    values, one_group = _pile_values(state, fmt, values & set(range(1, 11)))
    opps = [s for s in range(f.seats) if f.team_of(s) != f.team_of(p)]
    tops = {s: [card_value(parse_card(c)) for c in reversed(state["piles"][s])] for s in opps}
    bound = {s: len(tops[s]) for s in opps}
    while True:
        new = {s: _depth(tops[s], values, len(state["table"]["loose"]) + 1 + sum(bound[t] for t in opps if t != s))
               for s in opps}
        if new == bound:
            break
        bound = new
    return {s: min(1, _depth(tops[s], one_group, 1)) if bound[s] == 0 and one_group else bound[s] for s in opps}


@pytest.mark.parametrize("fmt", ["khasino-3p", "khasino-3p-stock", "khasino-4p"])
def test_usable_pile_depths_of_several_piles_match_their_definition(fmt):
    """With several opponents the depths `prepare_items` computes (a greatest fixpoint, one pile after another)
    are the definition's (all piles at once), on every position of random games played to the end."""
    from khasino_sim import engine

    rng = random.Random(77)
    positions = deep = 0
    for g in range(40):
        state = engine.new_game(fmt, 900 + g)
        while not state["over"]:
            if state["decision"] is None:
                got = engine.scratch_high_water(state)["pile_depths"]
                assert got == _oracle_depths_several(state, fmt), state
                positions += 1
                deep += sum(d >= 3 for d in got.values())
            state = rng.choice(engine.legal_moves(state)).result
    assert positions >= 1500 and deep >= 100


@pytest.mark.parametrize("fmt", ["khasino-3p", "khasino-3p-stock", "khasino-4p"])
def test_several_pile_selections_match_brute_force(fmt):
    """`piles_start`/`piles_next` (the exact-cover search over several usable opponent piles, K8) yield, for
    every sum bucket and a few `taken` sets (nothing, or one of the lower-sum subsets a build's played card
    group could hold), exactly the disjoint selections whose cards of each pile are its top ones, each once;
    on every position of 25 random games (pile parts of more than 14 groups are left to the differential
    tests; 8,000 to 11,000 checks a format, over 1,000 of them with a selection of two groups or more)."""
    from khasino_sim import engine

    f = get_format(fmt)
    rules = f.rules_array()
    ws = new_workspace()
    out = np.zeros((1 << 14, L.STACK_LEN), dtype=np.int64)
    rng = random.Random(fmt)
    states = []
    for g in range(25):
        state = engine.new_game(fmt, 500 + g)
        while not state["over"]:
            if state["decision"] is None:
                states.append(state)
            state = rng.choice(engine.legal_moves(state)).result
    checked = several = 0
    for state in states:
        _, st = from_json(state)
        prepare_only(st, rules, int(st[L.S_TO_MOVE]), ws)
        nopp = int(ws[L.C_NOPP])
        piles = []
        for j in range(nopp):
            q = int(ws[L.C_OPP + j])
            plen = int(st[L.S_PLEN + q])
            usable = bin(int(ws[L.C_PMASK + j])).count("1")
            piles.append([1 << int(st[L.S_PILE + q * L.MAX_PILE + plen - 1 - d]) for d in range(usable)])
        sub = lambda i: int(ws[L.WS_SUB + i]) & L.CARD_BITS          # noqa: E731
        for s in range(1, int(rules[L.R_MAX_BUILD_VALUE]) + 1):
            mid, hi = int(ws[L.C_BMID + s]), int(ws[L.C_BEND + s])
            if mid == hi or hi - mid > 14:
                continue
            groups = [(i, sub(i)) for i in range(mid, hi)]
            takens = [0] + [sub(i) for i in range(int(ws[L.C_BSTART + 1]), int(ws[L.C_BEND + s - 1]))][:3]
            for taken in takens:
                n = _selections(ws, s, taken, out, True)
                assert n <= out.shape[0]
                got = [frozenset(int(x) for x in row if x >= 0) for row in out[:n]]
                want = _brute(groups, taken, piles)
                assert len(got) == len(set(got)), f"a selection yielded twice in {state}"
                assert set(got) == set(want), f"sum {s}, taken {taken:#x}: {state}"
                checked += 1
                several += sum(1 for sel in want if len(sel) >= 2)
    assert checked > 5000 and several > 1000, (checked, several)


@pytest.mark.parametrize("fmt", ["khasino", "khasino-3p", "khasino-4p"])
def test_played_group_dropped_only_without_a_selection(fmt):
    """`gen_groups_onto` drops a build's or load's played-card group before any search when a pile card in it
    lies under a card no group of the build's value holds (`above_reached`, K8). Every group it drops has no
    pile selection at all to go with it (the search it skips would make none), on every position of random
    games; the drop is not vacuous."""
    from khasino_sim import engine
    from khasino_sim.kernels.khasino.moves import above_reached

    rules = get_format(fmt).rules_array()
    ws = new_workspace()
    out = np.zeros((1 << 14, L.STACK_LEN), dtype=np.int64)
    rng = random.Random(fmt + "-drop")
    dropped = kept = 0
    for g in range(25):
        state = engine.new_game(fmt, 700 + g)
        while not state["over"]:
            if state.get("decision") is None:       # 1v1 states have no decision field
                _, st = from_json(state)
                prepare_only(st, rules, int(st[L.S_TO_MOVE]), ws)
                pitems = int(ws[L.C_PITEMS])
                several = int(ws[L.C_NOPP]) > 1
                for value in range(2, int(rules[L.R_MAX_BUILD_VALUE]) + 1):
                    mid, hi = int(ws[L.C_BMID + value]), int(ws[L.C_BEND + value])
                    if several and hi - mid > 14:
                        continue        # the search is exercised elsewhere; keep this test quick
                    for need in range(1, value):
                        for si in range(int(ws[L.C_BSTART + need]), int(ws[L.C_BEND + need])):
                            smask = int(ws[L.WS_SUB + si]) & L.CARD_BITS
                            pt = smask & pitems
                            if not pt:
                                continue
                            if above_reached(ws, pt, int(ws[L.C_REACH + value]) | smask):
                                kept += 1
                            else:
                                assert _selections(ws, value, smask, out, several) == 0, (value, smask, state)
                                dropped += 1
            state = rng.choice(engine.legal_moves(state)).result
    assert dropped >= 50 and kept >= 50, (dropped, kept)


def test_deep_several_pile_search_lists_the_reference_moves():
    """A late 3p position with two deep usable opponent piles (10 and 15 cards) and a 76-group pile part
    in bucket 10: the search that took 552,126 steps before the gap-first order (docs/ENGINE.md) lists the
    reference engine's 209 distinct moves."""
    import json
    from khasino_sim import engine, reference as ref

    state = json.loads(DEEP_3P)
    keys = {m.key for m in engine.legal_moves(state)}
    assert keys == {m.key for m in ref.legal_moves(state)} and len(keys) == 209


DEEP_3P = (
    '{"format": "khasino-3p", "deal": 1, "to_move": 1, "hands": [[], ["10D"], []], "table": {"loose": '
    '["3S", "4C", "6S", "9C"], "builds": [{"value": 10, "owner": 1, "groups": [["10S"], ["8C", "AH", "AD"]]}]}, '
    '"piles": [["4H", "AS", "5S", "8D", "4S", "4D", "8S", "5H", "3H", "8H"], ["10C", "10H", "6C", "3D", "7D", "7S"], '
    '["5D", "9D", "9H", "6H", "3C", "9S", "5C", "2S", "7H", "6D", "AC", "7C", "2C", "2D", "2H"]], "stock": [], '
    '"last_capturer": 2}')


@pytest.mark.parametrize("fmt", ["durban", "khasino-3p", "khasino-4p"])
def test_positions_without_loose_cards_list_the_reference_moves(fmt):
    """With no loose card, pile cards are usable only for built values, or each pile's top card for a K7
    change (docs/ENGINE.md, "Usable pile depth"): on positions of random games with a build on the table
    and their loose cards moved onto the mover's own pile (which he never uses, K8), the core lists the
    reference's moves, many of them taking opponents' pile cards, some with a changeable build (with these
    seeds 373 to 467 positions a format, 92 to 252 moves taking pile cards, 88 to 167 with a changeable
    build)."""
    import copy
    from khasino_sim import engine, reference as ref

    f = get_format(fmt)
    rng = random.Random(fmt)
    positions = pile_moves = changeable = 0
    for g in range(15):
        state = engine.new_game(fmt, 3000 + g)
        while not state["over"]:
            if state.get("decision") is None and state["table"]["builds"]:
                p = state["to_move"]
                bare = copy.deepcopy(state)
                bare["piles"][p] += bare["table"]["loose"]
                bare["table"]["loose"] = []
                bare["last_capturer"] = p if bare["last_capturer"] is None else bare["last_capturer"]
                moves = ref.legal_moves(bare)
                assert {m.key for m in engine.legal_moves(bare)} == {m.key for m in moves}, bare
                others = sum(len(x) for s, x in enumerate(bare["piles"]) if s != p)
                pile_moves += sum(sum(len(x) for s, x in enumerate(m.after["piles"]) if s != p) < others
                                  for m in moves)
                changeable += any(f.team_of(b["owner"]) != f.team_of(p) and len(b["groups"]) == 1
                                  for b in bare["table"]["builds"])
                positions += 1
            state = rng.choice(engine.legal_moves(state)).result
    assert positions >= 300 and pile_moves >= 50 and changeable >= 50, (positions, pile_moves, changeable)
