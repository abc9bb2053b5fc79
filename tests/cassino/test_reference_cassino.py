"""Classic Cassino in the pure-Python reference engine (khasino_sim/reference/cassino.py): formats ``cassino``,
``cassino-3p`` and ``cassino-4p`` (docs/rules/cassino.md C1-C8; docs/rules/project.md P16-P21;
docs/ENGINE.md "Classic Cassino").

Move scenarios go through ONE helper, ``successors(state) -> {key: canonical JSON of result}``, which reads
only ``legal_moves(state)`` and each move's ``.key`` and ``.result``; set ``ENGINE`` to another module with the
same ``legal_moves`` (e.g. ``khasino_sim.engine``) to run the same scenarios against it.  Scoring, match
counting and whole-round checks use the reference's own API."""
import itertools
import json
import os
import random
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from khasino_sim import reference_cassino as R  # noqa: E402

ENGINE = R          # the engine whose legal_moves the move scenarios run against

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
ALL52 = [RANKS[i >> 2] + "SHDC"[i & 3] for i in range(52)]
SEATS = {"cassino": 2, "cassino-3p": 3, "cassino-4p": 4}
DEALS = {"cassino": 6, "cassino-3p": 4, "cassino-4p": 3}
M64 = (1 << 64) - 1


def idx(card):
    return ALL52.index(card)


def by_index(cards):
    return sorted(cards, key=idx)


def value(card, face_values=False):
    r = idx(card) // 4 + 1
    return r if (r <= 10 or face_values) else None


def canon(state):
    return json.dumps(state, sort_keys=True)


def card_values(card, options):
    """The values a held card is a card of (C4-C6 "keeping V"): its number, and 14 for an ace with ace_14."""
    out = {value(card, options.get("face_values", False))} - {None}
    if options.get("ace_14") and card.startswith("A"):
        out.add(14)
    return out


def keeps(hand, build_values, options):
    """P1 in Cassino (RULES.md): the hand holds a card of each build value, a different card for each."""
    k = len(build_values)
    return any(all(v in card_values(c, options) for v, c in zip(build_values, pick))
               for pick in itertools.permutations(hand, k))


# ------------------------------------------------------------------------------------------------ helpers
def successors(state):
    """{key: canonical JSON of the successor} of every distinct legal move (P7)."""
    out = {}
    for m in ENGINE.legal_moves(state):
        assert m.key not in out, "P7: moves are distinct by key"
        out[m.key & M64] = canon(m.result)
    return out


def outcomes(state):
    """Each successor summarised from the mover's side, as a set of tuples (card played, loose cards, builds
    as (value, owner, groups), cards added to the mover's pile, sweeps).  Scenario positions keep cards in
    every hand, so each successor just passes the turn (checked)."""
    p = state["to_move"]
    out = set()
    for res in successors(state).values():
        r = json.loads(res)
        assert r["deal"] == state["deal"] and not r["over"] and r["to_move"] == (p + 1) % len(state["hands"])
        (played,) = set(state["hands"][p]) - set(r["hands"][p])
        builds = tuple((b["value"], b["owner"], tuple(tuple(g) for g in b["groups"])) for b in r["table"]["builds"])
        tail = tuple(r["piles"][p][len(state["piles"][p]):])
        out.add((played, tuple(r["table"]["loose"]), builds, tail, tuple(r["sweeps"])))
    return out


def played_with(state, card):
    """The outcomes of the moves that play ``card``."""
    return {o for o in outcomes(state) if o[0] == card}


def position(fmt="cassino", hands=None, loose=(), builds=(), piles=None, to_move=0, deal=None, dealer=None,
             options=None, last_capturer="auto", sweeps=None, scores=None, rnd=1):
    """A valid JSON state with exactly these hands, loose cards and builds (``builds``: (value, owner,
    [[cards], ...]) with groups written in K10 order).  Cards not named go to the stock (as many as the deal
    needs: 52 - 4 - 4n * deal), then to the bottom of the pile of the seat after the mover.  Checks what the
    JSON contract asks of a state: hand sizes fit the deal and turn (ENGINE.md), each build owner holds a card
    of each of his builds' values, a different card for each (P1 in Cassino)."""
    n = SEATS[fmt]
    deal = DEALS[fmt] if deal is None else deal
    dealer = n - 1 if dealer is None else dealer
    hands = [by_index(h) for h in (hands or [[] for _ in range(n)])]
    piles = [list(p) for p in (piles or [[] for _ in range(n)])]
    named = [c for h in hands for c in h] + list(loose) + [c for b in builds for g in b[2] for c in g]
    named += [c for p in piles for c in p]
    assert len(named) == len(set(named)), named
    rest = [c for c in ALL52 if c not in named]
    k = 52 - 4 - 4 * n * deal
    stock, rest = rest[:k], rest[k:]
    assert len(stock) == k, "not enough cards left for the stock"
    if rest:
        piles[(to_move + 1) % n] = rest + piles[(to_move + 1) % n]
    if last_capturer == "auto":
        last_capturer = (to_move + 1) % n if any(piles) else None
    # ENGINE.md hand sizes: from the leader up to the seat before the mover, one card fewer than the mover
    leader, h = (dealer + 1) % n, len(hands[to_move])
    played = (to_move - leader) % n
    for i in range(n):
        assert len(hands[(leader + i) % n]) == (h - 1 if i < played else h), "hand sizes do not fit the turn"
    opts = dict(options or {})
    for o in range(n):
        assert keeps(hands[o], [v for v, ow, _gs in builds if ow == o], opts), \
            "P1: a build owner holds a different card for each of his builds"
    state = {
        "format": fmt,
        "options": {"ace_14": False, "face_values": False, "sweeps": False, **opts},
        "dealer": dealer, "round": rnd,
        "scores": list(scores or [0] * n), "sweeps": list(sweeps or [0] * n),
        "deal": deal, "to_move": to_move, "hands": hands,
        "table": {"loose": by_index(loose),
                  "builds": [{"value": v, "owner": o, "groups": [list(g) for g in gs]}
                             for v, o, gs in sorted(builds)]},
        "piles": piles, "stock": stock, "last_capturer": last_capturer,
    }
    if fmt == "cassino-4p":
        state["teams"] = [[0, 2], [1, 3]]
    state["over"] = False
    return state


def final(fmt, piles, sweeps=None, options=None, last_capturer=0):
    """A finished round with these piles (every card once)."""
    n = SEATS[fmt]
    assert sorted(c for p in piles for c in p) == sorted(ALL52)
    state = {
        "format": fmt, "options": {"ace_14": False, "face_values": False, "sweeps": False, **(options or {})},
        "dealer": n - 1, "round": 1, "scores": [0] * n, "sweeps": list(sweeps or [0] * n),
        "deal": DEALS[fmt], "to_move": None, "hands": [[] for _ in range(n)],
        "table": {"loose": [], "builds": []}, "piles": [list(p) for p in piles], "stock": [],
        "last_capturer": last_capturer,
    }
    if fmt == "cassino-4p":
        state["teams"] = [[0, 2], [1, 3]]
    state["over"] = True
    return state


def suit(s):
    return [r + s for r in RANKS]


def splitmix(state):
    """ENGINE.md "Randomness", written out again: a generator of the outputs of a stream of state ``state``."""
    while True:
        state = (state + 0x9E3779B97F4A7C15) & M64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        yield z ^ (z >> 31)


def deck_order(seed):
    rng = splitmix(seed)
    deck = list(range(52))
    for i in range(51, 0, -1):
        j = next(rng) % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return [ALL52[c] for c in deck]


# ------------------------------------------------------------------------------------------------ C3 capture
def test_c3_six_takes_one_or_more_sixes():
    """Source 002 (C3): "Playing a 6 allows capturing one or more 6s" (P3: any non-empty set of units)."""
    s = position(hands=[["6S", "9C"], ["KD", "QD"]], loose=["6H", "6D", "7C"])
    got = {(o[1], o[3]) for o in played_with(s, "6S")}
    assert got == {
        (("6D", "7C"), ("6H", "6S")),
        (("6H", "7C"), ("6D", "6S")),
        (("7C",), ("6H", "6D", "6S")),                  # P27: one block, equal ranks S, H, D, C upwards
        (("6S", "6H", "6D", "7C"), ()),                 # the trail (C6: allowed with a capture available)
    }


def test_c3_six_takes_two_threes_and_three_twos():
    """Source 002 (C3): "... or a combination like two 3s and three 2s": disjoint sum sets, separately or together;
    pile order: groups larger card mask first, higher rank underneath, suits S H D C, played card on top."""
    s = position(hands=[["6C", "10D"], ["KD", "QD"]], loose=["3S", "3H", "2S", "2H", "2D"])
    caps = {o[3] for o in played_with(s, "6C") if o[3]}
    assert caps == {
        ("3S", "3H", "6C"),
        ("2S", "2H", "2D", "6C"),
        ("3S", "3H", "2S", "2H", "2D", "6C"),
    }
    # an equal card and a sum set together
    s = position(hands=[["6C", "10D"], ["KD", "QD"]], loose=["3S", "3H", "6H"])
    assert ("6H", "3S", "3H", "6C") in {o[3] for o in played_with(s, "6C")}


def test_c3_build_taken_whole_by_its_value_only():
    """C3: builds of equal value; a build is taken whole, with other sum sets (P27: the table cards taken as one
    block, higher rank underneath)."""
    s = position(hands=[["8S", "10S"], ["8C", "KD"]], loose=["4H", "4C", "2C"],
                 builds=[(8, 1, [["5S", "3H"], ["8D"]])])
    caps = {o[3] for o in played_with(s, "8S") if o[3]}
    assert caps == {("4H", "4C", "8S"), ("8D", "5S", "3H", "8S"), ("8D", "5S", "4H", "4C", "3H", "8S")}
    # a 10 never takes part of a build, nor the build of 8 with a 2
    s = position(hands=[["8S", "10S"], ["8C", "KD"]], loose=["2C", "KH"], builds=[(8, 1, [["5S", "3H"], ["8D"]])])
    assert {o[3] for o in played_with(s, "10S")} == {()}


# ------------------------------------------------------------------------------------------------ C4 build
def test_c4_multiple_build_of_eight():
    """Source 002 (C4): "an 8 build could consist of an 8, an Ace and a seven, two 4s, or a 5 and a 3"."""
    s = position(hands=[["8S", "8H"], ["KD", "QD"]], loose=["AC", "7D", "4S", "4H", "5C", "3D"])
    builds = {o[2] for o in played_with(s, "8S") if o[2]}
    assert ((8, 0, (("8S",), ("7D", "AC"), ("5C", "3D"), ("4S", "4H"))),) in builds
    # the played card may be in a sum group
    s = position(hands=[["7S", "8H"], ["KD", "QD"]], loose=["AC", "8D", "4S", "4H", "5C", "3D"])
    builds = {o[2] for o in played_with(s, "7S") if o[2]}
    assert ((8, 0, (("8D",), ("7S", "AC"), ("5C", "3D"), ("4S", "4H"))),) in builds
    assert ((8, 0, (("7S", "AC"),)),) in builds


def test_c4_build_needs_the_card_kept_and_a_table_card():
    s = position(hands=[["5S", "9C"], ["KD", "QD"]], loose=["3H"])
    assert not any(o[2] for o in played_with(s, "5S"))       # no 8 kept: no build of 8
    s = position(hands=[["5S", "8C"], ["KD", "QD"]], loose=["3H"])
    assert {o[2] for o in played_with(s, "5S") if o[2]} == {((8, 0, (("5S", "3H"),)),)}
    # a single card is no build (played card + at least one table card), even holding its twin
    s = position(hands=[["5S", "5C"], ["KD", "QD"]], loose=["KH"])
    assert not any(o[2] for o in outcomes(s))
    # K2: one build per value: a group of an existing build's value joins it (an add), never a second build
    s = position(hands=[["5S", "8C"], ["8D", "KD"]], loose=["3H"], builds=[(8, 1, [["6S", "2H"]])])
    assert {o[2] for o in played_with(s, "5S") if o[2] and o[2][0][1] == 0} == {
        ((8, 0, (("6S", "2H"), ("5S", "3H"))),)}


def test_c4_add_passes_ownership():
    """C4 / P18: a build belongs to whoever last added to it; P27: its groups written canonically (the group of
    the highest card first)."""
    s = position(hands=[["4C", "8D"], ["8C", "KD"]], loose=["4D", "AS", "7H"], builds=[(8, 1, [["5S", "3H"]])])
    adds = {o[2] for o in played_with(s, "4C") if o[2] and o[2][0][1] == 0}
    assert ((8, 0, (("5S", "3H"), ("4D", "4C"))),) in adds
    assert ((8, 0, (("7H", "AS"), ("5S", "3H"), ("4D", "4C"))),) in adds
    # an add needs the card kept
    s = position(hands=[["4C", "9D"], ["8C", "KD"]], loose=["4D"], builds=[(8, 1, [["5S", "3H"]])])
    assert not any(o[2] and o[2][0][1] == 0 for o in outcomes(s))


# ------------------------------------------------------------------------------------------------ C5 raise
def test_c5_raise_single_build():
    """Source 002 (C5): "If a build of 5 (2 and 3) is on the table and you have a 3 and an 8, you can add the 3 and
    announce building 8" (P19: the single group becomes old group + played card; passes to the raiser)."""
    s = position(hands=[["3C", "8S"], ["5D", "KD"]], loose=["2C"], builds=[(5, 1, [["3H", "2D"]])])
    assert ((8, 0, (("3H", "3C", "2D"),)),) in {o[2] for o in played_with(s, "3C")}
    # the played card alone: the loose 2 never joins (no raise to 10)
    assert not any(b[0] == 10 for o in outcomes(s) for b in o[2])
    # not when no 8 is kept
    s = position(hands=[["3C", "9S"], ["5D", "KD"]], builds=[(5, 1, [["3H", "2D"]])], loose=["KH"])
    assert not any(b[0] == 8 for o in outcomes(s) for b in o[2])
    # one's own build may be raised too
    s = position(hands=[["3C", "8S", "5C"], ["5D", "KD", "QD"]], builds=[(5, 0, [["3H", "2D"]])], loose=["KH"])
    assert ((8, 0, (("3H", "3C", "2D"),)),) in {o[2] for o in played_with(s, "3C")}


def test_c5_no_raise_of_a_multiple_build_nor_onto_an_existing_value():
    s = position(hands=[["3C", "8S"], ["5D", "KD"]], loose=["KH"], builds=[(5, 1, [["5S"], ["3H", "2D"]])])
    assert not any(b[0] == 8 for o in outcomes(s) for b in o[2])
    # K2: no raise to a value a build already has
    s = position(hands=[["3C", "8S"], ["5D", "8D"]], loose=["KH"],
                 builds=[(5, 1, [["3H", "2D"]]), (8, 1, [["6S", "2S"]])])
    assert all(len(o[2]) == 2 for o in played_with(s, "3C"))


def test_p19_raise_limit_ten_and_face_values():
    s = position(hands=[["3C", "JS"], ["8D", "KD"]], loose=["KH"], builds=[(8, 1, [["6S", "2S"]])])
    assert not any(b[0] == 11 for o in outcomes(s) for b in o[2])
    s = position(hands=[["3C", "JS"], ["8D", "KD"]], loose=["KH"], builds=[(8, 1, [["6S", "2S"]])],
                 options={"face_values": True})
    assert ((11, 0, (("6S", "3C", "2S"),)),) in {o[2] for o in played_with(s, "3C")}


# ------------------------------------------------------------------------------------------------ C6 trail, P1
def test_c6_no_trail_while_owning_a_build():
    s = position(hands=[["8S", "2C", "KC"], ["KD", "QD", "JD"]], loose=["3H"], builds=[(8, 0, [["5S", "3D"]])])
    assert outcomes(s) and not any(o[3] == () and o[2] == s_builds(s) and o[0] in o[1] for o in outcomes(s))
    assert played_with(s, "KC") == set()          # a face card with nothing to take has no move at all
    # the opponent (no build) may trail, even with a capture available
    s = position(hands=[["8S", "2C"], ["KD", "3C", "QD"]], loose=["3H"], builds=[(8, 0, [["5S", "3D"]])],
                 to_move=1)
    assert ("3C", ("3H", "3C"), s_builds(s), (), (0, 0)) in outcomes(s)


def s_builds(state):
    return tuple((b["value"], b["owner"], tuple(tuple(g) for g in b["groups"])) for b in state["table"]["builds"])


def test_p1_last_card_of_an_owned_build():
    """P1 in Cassino (C6): the owner of a build of 8 may play his last 8 only in a capture of that build."""
    s = position(hands=[["8S", "5C"], ["KD", "QD"]], loose=["3H", "8D"], builds=[(8, 0, [["6S", "2D"]])])
    got = played_with(s, "8S")
    assert got and all(o[2] == () for o in got)                  # every 8S move takes the build
    assert {o[3] for o in got} == {("6S", "2D", "8S"), ("8D", "6S", "2D", "8S")}
    # the 5 may still be added with the 3 (the 8 is kept)
    assert ((8, 0, (("6S", "2D"), ("5C", "3H"))),) in {o[2] for o in played_with(s, "5C")}
    # ... or raise that very build with its last card
    s = position(hands=[["4S", "8C"], ["KD", "QD"]], loose=["KH"], builds=[(4, 0, [["3H", "AD"]])])
    assert ((8, 0, (("4S", "3H", "AD"),)),) in {o[2] for o in played_with(s, "4S")}
    assert (("KH",), (), ("3H", "AD", "4S")) in {o[1:4] for o in played_with(s, "4S")}
    # but not raise another build with it
    s = position(hands=[["4S", "8C", "6C"], ["KD", "QD", "2H"]], loose=["KH"],
                 builds=[(4, 0, [["3H", "AD"]]), (2, 1, [["AH", "AC"]])])
    assert {o[2] for o in played_with(s, "4S")} == {
        ((2, 1, (("AH", "AC"),)),),                                      # the capture of the build of 4
        ((2, 1, (("AH", "AC"),)), (8, 0, (("4S", "3H", "AD"),))),       # the raise of that very build
    }
    # with the 4 not committed, the other build could be raised by it (to 6, a 6 kept)
    s = position(hands=[["4S", "4C", "8C", "6C"], ["KD", "QD", "2H", "JD"]], loose=["KH"],
                 builds=[(4, 0, [["3H", "AD"]]), (2, 1, [["AH", "AC"]])])
    assert any(b == (6, 0, (("4S", "AH", "AC"),)) for o in played_with(s, "4S") for b in o[2])


def test_p1_ace_14_two_builds_one_ace_gap():
    """P1 in Cassino under ace_14 (RULES.md): one ace cannot keep both a build of 1 and a build of 14.  The
    position in which a player owns both with one ace left (his ace can take only one of them, and he may not
    trail) used to be reachable and had no legal move; the move that would create it is now illegal."""
    opts = {"ace_14": True}
    # seat 0 owns the build of 14 and holds AH, AD: AD would build 1 with the loose AC, keeping AH alone
    s = position(hands=[["AH", "AD"], ["2H", "9S"]], loose=["AC", "2S", "3S"], options=opts,
                 builds=[(14, 0, [["7D", "7C"]])])
    for o in outcomes(s):
        owned = [b[0] for b in o[2] if b[1] == 0]
        assert not (1 in owned and 14 in owned), o           # never both builds with one ace left
    assert not any(b[0] == 1 for o in outcomes(s) for b in o[2])
    # what he may do: take the build of 14 with either ace (as 14), or take AC with either ace (as 1)
    assert {o[3] for o in outcomes(s)} == {("7D", "7C", "AH"), ("7D", "7C", "AD"), ("AC", "AH"), ("AC", "AD")}
    # the gap position breaks P1 (a different card for each owned build): the test helper refuses it
    with pytest.raises(AssertionError):
        position(hands=[["AH"], ["2H"]], loose=["2S", "3S"], options=opts,
                 builds=[(1, 0, [["AC"], ["AD"]]), (14, 0, [["7D", "7C"]])])
    # holding a third ace he keeps two: the build of 1 is then legal
    s = position(hands=[["AS", "AH", "AD"], ["2S", "9S", "3H"]], loose=["AC", "3S"], options=opts,
                 builds=[(14, 0, [["7D", "7C"]])])
    assert any(b[0] == 1 and b[1] == 0 for o in outcomes(s) for b in o[2])


def test_p1_ace_14_builds_of_1_and_14_need_two_aces():
    """P1 in Cassino under ace_14: coming to own both the build of 1 and the build of 14 by a build, an add
    (which passes ownership) or a raise needs two aces kept; a capture of one of them must keep an ace for the
    other, and a move taking neither must keep two aces."""
    opts = {"ace_14": True}
    # a build of 14 (4C + 10H) while owning the build of 1: one ace kept is not enough, two are
    s = position(hands=[["AS", "4C", "5C"], ["2S", "9S", "3H"]], loose=["10H", "KH"], options=opts,
                 builds=[(1, 0, [["AC"], ["AD"]])])
    assert not any(b[0] == 14 for o in outcomes(s) for b in o[2])
    s = position(hands=[["AS", "AH", "4C"], ["2S", "9S", "3H"]], loose=["10H", "KH"], options=opts,
                 builds=[(1, 0, [["AC"], ["AD"]])])
    assert ((1, 0, (("AC",), ("AD",))), (14, 0, (("10H", "4C"),))) in {o[2] for o in played_with(s, "4C")}
    # an add onto the opponent's build of 14 passes it to the adder: illegal with one ace kept
    s = position(hands=[["AS", "4C", "5C"], ["AH", "9S", "3H"]], loose=["10H", "KH"], options=opts,
                 builds=[(1, 0, [["AC"], ["AD"]]), (14, 1, [["7D", "7C"]])])
    assert all(b[1] == 1 for o in outcomes(s) for b in o[2] if b[0] == 14)
    assert played_with(s, "4C") == set()
    # a raise of the opponent's build of 10 to 14: the same
    s = position(hands=[["AS", "4C", "9C"], ["10S", "9S", "3H"]], loose=["KH"], options=opts,
                 builds=[(1, 0, [["AC"], ["AD"]]), (10, 1, [["6S", "4D"]])])
    assert not any(b[0] == 14 for o in outcomes(s) for b in o[2])
    s = position(hands=[["AS", "AH", "4C"], ["10S", "9S", "3H"]], loose=["KH"], options=opts,
                 builds=[(1, 0, [["AC"], ["AD"]]), (10, 1, [["6S", "4D"]])])
    assert ((1, 0, (("AC",), ("AD",))), (14, 0, (("6S", "4D", "4C"),))) in {o[2] for o in played_with(s, "4C")}
    # owning both with two aces: an ace takes one build (keeping the other ace), never neither
    s = position(hands=[["AS", "AH", "5C"], ["2S", "3S", "4S"]], loose=["10S", "4H"], options=opts,
                 builds=[(1, 0, [["AC"], ["AD"]]), (14, 0, [["7D", "7C"]])])
    assert {o[3] for o in played_with(s, "AS")} == {
        ("7D", "7C", "AS"), ("10S", "7D", "7C", "4H", "AS"),          # as 14: the build of 14 (and 10 + 4)
        ("AD", "AC", "AS"),                                           # as 1: the build of 1
    }
    assert played_with(s, "5C") == set()
    assert all(o[0] in ("AS", "AH") and o[3] for o in outcomes(s))


# ------------------------------------------------------------------------------------------------ C1 face cards
def test_p16_face_card_takes_exactly_one_of_its_rank():
    s = position(hands=[["KS", "5C"], ["KD", "9S"]], loose=["KH", "KC", "10D", "3S"])
    assert {o[3] for o in played_with(s, "KS")} == {("KH", "KS"), ("KC", "KS"), ()}
    # never a number: no K capture of 10 + 3, no build of 13 with a K kept
    s = position(hands=[["3C", "KS"], ["KD", "9S"]], loose=["10H", "JH"])
    assert not any(o[2] for o in outcomes(s))
    assert played_with(s, "3C") == {("3C", ("3C", "10H", "JH"), (), (), (0, 0))}


def test_c1_face_values():
    """face_values: J 11, Q 12, K 13: a K captures 10 + 3 (and its equal cards), builds reach 13."""
    s = position(hands=[["KS", "5C"], ["KD", "9S"]], loose=["KH", "KC", "10D", "3S"], options={"face_values": True})
    caps = {o[3] for o in played_with(s, "KS")}
    assert {("10D", "3S", "KS"), ("KH", "KC", "KS"), ("KH", "KC", "10D", "3S", "KS")} <= caps
    s = position(hands=[["3C", "KS"], ["KD", "9S"]], loose=["10H"], options={"face_values": True})
    assert ((13, 0, (("10H", "3C"),)),) in {o[2] for o in played_with(s, "3C")}


def test_c1_ace_14():
    """ace_14: an ace from the hand captures as 1 or 14 (10 + 4, a build of 14); in builds it counts 1.  As 14
    it takes units of 14 only, as 1 units of 1 only: one capture never mixes them (P17)."""
    s = position(hands=[["AS", "5H"], ["KD", "9S"]], loose=["10C", "4D", "AH", "2S"], options={"ace_14": True})
    caps = {o[3] for o in played_with(s, "AS") if o[3]}
    assert caps == {("AH", "AS"), ("10C", "4D", "AS")}                 # never 10 + 4 and the loose ace
    # a table ace counts 1 in a sum of 14 (10 + 3 + A), but is no unit of 14 by itself
    s = position(hands=[["AS", "5H"], ["KD", "9S"]], loose=["10C", "3C", "AH", "AD"], options={"ace_14": True})
    caps = {o[3] for o in played_with(s, "AS") if o[3]}
    assert caps == {("AH", "AS"), ("AD", "AS"), ("AH", "AD", "AS"),    # as 1: loose aces (P27: one block)
                    ("10C", "3C", "AH", "AS"), ("10C", "3C", "AD", "AS")}   # as 14: 10 + 3 + A
    s_off = position(hands=[["AS", "5H"], ["KD", "9S"]], loose=["10C", "4D", "AH", "2S"])
    assert {o[3] for o in played_with(s_off, "AS") if o[3]} == {("AH", "AS")}
    # a build of 14, captured by an ace
    s = position(hands=[["AS", "5H"], ["AD", "9S"]], loose=["2S"], builds=[(14, 1, [["10C", "4D"]])],
                 options={"ace_14": True})
    assert ("10C", "4D", "AS") in {o[3] for o in played_with(s, "AS")}
    # a build of 14 while keeping an ace; the played ace counts 1
    s = position(hands=[["AS", "AH", "4C"], ["KD", "9S", "QD"]], loose=["10D", "3C"], options={"ace_14": True})
    builds = {o[2] for o in outcomes(s) if o[2]}
    assert ((14, 0, (("10D", "3C", "AS"),)),) in builds
    assert ((14, 0, (("10D", "4C"),)),) in builds
    s_off = position(hands=[["AS", "AH", "4C"], ["KD", "9S", "QD"]], loose=["10D", "3C"])
    assert not any(b[0] > 10 for o in outcomes(s_off) for b in o[2])


# ------------------------------------------------------------------------------------------------ sweeps
def test_sweeps_option():
    s = position(hands=[["6S", "9C"], ["KD", "QD"]], loose=["6H"], options={"sweeps": True})
    assert (("6H", "6S"), (1, 0)) in {(o[3], o[4]) for o in played_with(s, "6S")}
    m = [m for m in ENGINE.legal_moves(s) if m.card == "6S" and m.kind == "capture"][0]
    assert (m.points, m.cards, m.spades, m.table_points) == (1, 2, 1, 0)     # +1 for the sweep
    off = position(hands=[["6S", "9C"], ["KD", "QD"]], loose=["6H"])
    assert (("6H", "6S"), (0, 0)) in {(o[3], o[4]) for o in played_with(off, "6S")}
    m = [m for m in ENGINE.legal_moves(off) if m.card == "6S" and m.kind == "capture"][0]
    assert (m.points, m.cards, m.spades, m.table_points) == (0, 2, 1, 0)
    # a loose face card left: the table is not cleared
    s = position(hands=[["6S", "9C"], ["KD", "QD"]], loose=["6H", "KH"], options={"sweeps": True})
    assert all(o[4] == (0, 0) for o in outcomes(s))


def test_sweep_with_the_last_card_and_end_takeover():
    """A capture clearing the table with the round's last card is a sweep; the last capturer's takeover of
    what is left is not (C7, RULES.md "Sweeps")."""
    s = position(hands=[[], ["6C"]], loose=["6H"], to_move=1, options={"sweeps": True})
    res = [json.loads(r) for r in successors(s).values()]
    cap = [r for r in res if r["last_capturer"] == 1 and r["piles"][1][-2:] == ["6H", "6C"]]
    assert cap and cap[0]["over"] and cap[0]["to_move"] is None and cap[0]["sweeps"] == [0, 1]
    trail = [r for r in res if r is not cap[0]]
    assert len(trail) == 1 and trail[0]["sweeps"] == [0, 0]
    # the last capturer (seat 0 here) takes both loose cards: loose as one group, higher rank underneath
    assert trail[0]["piles"][0][-2:] == ["6H", "6C"] and trail[0]["last_capturer"] == 0


def test_p2_nobody_captured_last_player_takes_the_table():
    """C7 / P2: the last capturer takes what is left; nobody captured in the round: the player of its last
    card (3p round 1: seat 2, the dealer), recorded as last capturer; loose cards as one group, higher rank
    underneath, suits S H D C."""
    rest = [c for c in ALL52 if c != "KS"]
    s = position("cassino-3p", hands=[[], [], ["KS"]], loose=rest, to_move=2)
    assert s["last_capturer"] is None and not any(s["piles"])
    res = [json.loads(r) for r in successors(s).values()]
    assert len(res) == 4                                   # KS takes KH, KD or KC (one each, P16), or trails
    for r in res:
        assert r["over"] and r["to_move"] is None and r["last_capturer"] == 2
        assert r["piles"][:2] == [[], []] and sorted(r["piles"][2]) == sorted(ALL52)
        assert r["table"] == {"loose": [], "builds": []} and r["sweeps"] == [0, 0, 0]
    trail = [r for r in res if r["piles"][2] == _k10(ALL52)]
    capture = [r for r in res if r["piles"][2][:2] == ["KH", "KS"]]
    assert len(trail) == 1 and len(capture) == 1
    assert {tuple(r["piles"][2][:2]) for r in res if r is not trail[0]} == {("KH", "KS"), ("KD", "KS"), ("KC", "KS")}
    assert capture[0]["piles"][2][2:] == _k10([c for c in ALL52 if c not in ("KH", "KS")])


# ------------------------------------------------------------------------------------------------ C2 deal
@pytest.mark.parametrize("fmt", list(SEATS))
def test_c2_deal(fmt):
    n = SEATS[fmt]
    for seed in (0, 1, 0xDEADBEEF, 2 ** 64 - 1):
        st = R.initial_state(fmt, seed)
        d = deck_order(seed)
        assert st["dealer"] == n - 1 and st["to_move"] == 0 and st["deal"] == 1 and st["round"] == 1
        assert st["table"] == {"loose": by_index(d[:4]), "builds": []}
        assert st["hands"] == [by_index(d[4 + 4 * s:8 + 4 * s]) for s in range(n)]
        assert st["stock"] == d[4 + 4 * n:] and len(st["stock"]) == 48 - 4 * n
        assert st["scores"] == [0] * n and st["sweeps"] == [0] * n and st["last_capturer"] is None
        assert list(st) == ["format", "options", "dealer", "round", "scores", "sweeps", "deal", "to_move",
                            "hands", "table", "piles", "stock", "last_capturer"] + \
            (["teams"] if fmt == "cassino-4p" else []) + ["over"]
    for r in range(1, 9):
        st = R.initial_state(fmt, 5, round=r, scores=[3] * n)
        assert st["dealer"] == (r + n - 2) % n and st["to_move"] == (r - 1) % n and st["round"] == r
        assert st["scores"] == [3] * n


def test_c2_round_two_led_by_seat_one_every_deal():
    """2p round 2 is dealt by seat 0 and led by seat 1, in every deal of the round (P20)."""
    st = R.initial_state("cassino", 77, round=2)
    assert st["dealer"] == 0 and st["to_move"] == 1
    deals = {1: 1}
    while not st["over"]:
        moves = R.legal_moves(st)
        m = R.choose("random", moves, len(st["stock"]) * 1000 + len(st["hands"][0]))
        res = m.result
        if res["deal"] != st["deal"] and not res["over"]:
            assert st["to_move"] == 0                                  # the seat before the leader ends it
            assert res["to_move"] == 1 and res["hands"] == [by_index(st["stock"][:4]), by_index(st["stock"][4:8])]
            assert res["stock"] == st["stock"][8:] and res["table"] == m.after["table"]
            deals[res["deal"]] = 1
        else:
            assert res["over"] or res["to_move"] == 1 - st["to_move"]
        st = res
    assert sorted(deals) == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize("fmt", list(SEATS))
def test_c2_c8_turn_order_and_deal_count(fmt):
    n = SEATS[fmt]
    for seed in range(3):
        st = R.initial_state(fmt, seed, round=2)
        seen_deals = {1}
        while not st["over"]:
            m = R.legal_moves(st)[0]
            nxt = m.result
            if nxt["over"]:
                assert st["to_move"] == (st["dealer"]) % n                 # the dealer plays the last card
            elif nxt["deal"] == st["deal"]:
                assert nxt["to_move"] == (st["to_move"] + 1) % n           # C2, C8: seat + 1
            else:
                assert nxt["to_move"] == (st["dealer"] + 1) % n
                seen_deals.add(nxt["deal"])
            st = nxt
        assert max(seen_deals) == DEALS[fmt]


# ------------------------------------------------------------------------------------------------ C7 scoring
def test_c7_round_scoring_2p():
    piles = [suit("S") + suit("H") + ["10D"], [c for c in suit("D") if c != "10D"] + suit("C")]
    sc = R.score(final("cassino", piles))
    assert [(x["cards"], x["spades"], x["most_cards"], x["most_spades"], x["aces"], x["two_spades"],
             x["ten_diamonds"], x["sweeps"], x["total"]) for x in sc] == [
        (27, 13, 3, 1, 2, 1, 2, 0, 9), (25, 0, 0, 0, 2, 0, 0, 0, 2)]
    # a tie for most cards scores nobody
    piles = [suit("S") + suit("H"), suit("D") + suit("C")]
    sc = R.score(final("cassino", piles))
    assert [(x["most_cards"], x["most_spades"], x["total"]) for x in sc] == [(0, 1, 4), (0, 0, 4)]


def test_c7_round_scoring_3p_and_4p():
    # 3p: spades 5, 5, 3: nobody gets the spades point; cards 20, 16, 16
    p0 = suit("S")[:5] + suit("H") + ["2D", "3D"]
    p1 = suit("S")[5:10] + ["AD"] + suit("C")[:10]
    p2 = suit("S")[10:] + [c for c in suit("D") if c not in ("2D", "3D", "AD")] + suit("C")[10:]
    sc = R.score(final("cassino-3p", [p0, p1, p2]))
    assert [(x["cards"], x["spades"], x["most_cards"], x["most_spades"]) for x in sc] == [
        (20, 5, 3, 0), (16, 5, 0, 0), (16, 3, 0, 0)]
    assert [x["total"] for x in sc] == [3 + 2 + 1, 2, 2]          # AS AH + 2S; AD AC; 10D
    # 4p: partners 0+2 and 1+3 pool their piles and sweeps
    piles = [suit("S"), suit("H"), suit("D")[:6], suit("D")[6:] + suit("C")]
    sc = R.score(final("cassino-4p", piles, sweeps=[1, 0, 2, 0], options={"sweeps": True}))
    assert [x["team"] for x in sc] == [0, 1, 0, 1]
    assert sc[0] == sc[2] and sc[1] == sc[3]
    assert (sc[0]["cards"], sc[0]["spades"], sc[0]["sweeps"], sc[0]["total"]) == (19, 13, 3, 1 + 3 + 2 + 1)
    assert (sc[1]["cards"], sc[1]["most_cards"], sc[1]["total"]) == (33, 3, 3 + 2 + 2)


# ------------------------------------------------------------------------------------------------ P21 match
def test_p21_counting_order_decides_who_reaches_21():
    # seat 0: most cards, AC, AH (5); seat 1: most spades, 10D, 2S, AS, AD (6)
    piles = [suit("C") + suit("H") + ["2D", "3D"], suit("S") + [c for c in suit("D") if c not in ("2D", "3D")]]
    sc = R.score(final("cassino", piles))
    assert [x["total"] for x in sc] == [5, 6]
    # the totals returned are those after the whole round; the winner is decided in counting order
    assert R.add_round("cassino", [19, 20], sc) == ([24, 26], 0)         # cards first: 22 v 20, seat 0 out
    assert R.add_round("cassino", [16, 19], sc) == ([21, 25], 1)         # 10D (19 v 22) before 2S and aces
    # aces in the order AS, AC, AH, AD: seat 1's AS makes 21 (20 v 21) before seat 0's AC
    assert R.add_round("cassino", [17, 16], sc) == ([22, 22], 1)
    assert R.add_round("cassino", [0, 0], sc) == ([5, 6], None)
    # reaching 21 level with another seat is no win; a later category of the same round decides
    assert R.add_round("cassino", [18, 21], sc) == ([23, 27], 1)         # cards 21 v 21, spades 21 v 22


def test_p21_sweeps_tie_plays_another_round():
    piles = [suit("S") + suit("H"), suit("D") + suit("C")]
    sc = R.score(final("cassino", piles, sweeps=[2, 2], options={"sweeps": True}))
    assert [x["total"] for x in sc] == [6, 6]
    totals, winner = R.add_round("cassino", [15, 15], sc)
    assert (totals, winner) == ([21, 21], None)
    nxt = R.score(final("cassino", [suit("S") + suit("H")[:12], suit("H")[12:] + suit("D") + suit("C")]))
    # seat 1 wins at once on cards (21 v 24); the totals include the whole round: 21 + 4, 21 + 7
    assert R.add_round("cassino", totals, nxt) == ([25, 28], 1)


def test_p21_four_players_by_team():
    piles = [suit("S"), suit("H"), suit("D")[:6], suit("D")[6:] + suit("C")]
    sc = R.score(final("cassino-4p", piles))
    # team 0 (seats 0+2): spades, AS, AD, 2S (4); team 1 (seats 1+3): cards, 10D, AH, AC (7)
    assert [x["total"] for x in sc] == [4, 7, 4, 7]
    # team 1: cards 17 -> 20; team 0: spades 18 -> 19; team 1: 10D -> 22, out (totals: the whole round)
    assert R.add_round("cassino-4p", [18, 17, 18, 17], sc) == ([22, 24, 22, 24], 1)
    assert R.add_round("cassino-4p", [20, 0, 20, 0], sc) == ([24, 7, 24, 7], 0)   # spades after cards


def _count_round(fmt, totals, sc):
    """P21 written out again: per unit (seat; 4p team), the categories in counting order; returns the totals
    after the whole round and the index of the first category after which one unit has 21 or more and
    strictly more than every other (None if none)."""
    units = [[0, 2], [1, 3]] if fmt == "cassino-4p" else [[s] for s in range(SEATS[fmt])]
    u_sc = [sc[u[0]] for u in units]
    run = [totals[u[0]] for u in units]
    cats = [[x["most_cards"] for x in u_sc], [x["most_spades"] for x in u_sc], [x["ten_diamonds"] for x in u_sc],
            [x["two_spades"] for x in u_sc]]
    cats += [[1 if a in x["aces_held"] else 0 for x in u_sc] for a in ("AS", "AC", "AH", "AD")]
    cats.append([x["sweeps"] for x in u_sc])
    first = None
    for i, cat in enumerate(cats):
        run = [t + p for t, p in zip(run, cat)]
        top = max(run)
        if first is None and top >= 21 and run.count(top) == 1:
            first = (i, run.index(top))
    assert sum(sum(c) for c in cats) == sum(x["total"] for x in u_sc)
    out = [0] * len(sc)
    for ui, u in enumerate(units):
        for s in u:
            out[s] = run[ui]
    return out, first


@pytest.mark.parametrize("fmt", list(SEATS))
def test_play_match(fmt):
    """P21: every round replays from its round seed with the totals before it; the totals are those after
    each round's full points; the match ends in the first round in which a category gives one unit 21 or
    more and strictly more than every other: that unit wins (even if it ends the round behind)."""
    n = SEATS[fmt]
    bots = ["greedy"] + ["random"] * (n - 1)
    for seed, options in [(0, None), (1, None), (2, None), (3, {"sweeps": True}),
                          (4, {"ace_14": True, "face_values": True, "sweeps": True})]:
        res = R.play_match(fmt, seed, bots, options)
        totals = [0] * n
        for r, rd in enumerate(res["rounds"], start=1):
            assert {"keys", "final", "scores"} <= set(rd)
            assert rd["round"] == r and rd["seed"] == R.round_seed(seed, r)
            assert rd["final"]["round"] == r and rd["final"]["scores"] == totals and rd["final"]["over"]
            assert rd["scores"] == R.score(rd["final"]) and rd["no_move"] == 0 and len(rd["keys"]) == 48
            again = R.play_round(fmt, R.round_seed(seed, r), bots, options, round=r, scores=totals)
            assert again["keys"] == rd["keys"] and again["final"] == rd["final"]
            first = R.initial_state(fmt, R.round_seed(seed, r), round=r, scores=totals)
            assert first["dealer"] == rd["final"]["dealer"] == (r + n - 2) % n
            want_totals, decided = _count_round(fmt, totals, rd["scores"])
            totals, w = R.add_round(fmt, totals, rd["scores"])
            assert totals == want_totals
            assert w == (None if decided is None else decided[1])
            assert (w is None) == (r < len(res["rounds"]))
            assert [t - b for t, b in zip(totals, rd["final"]["scores"])] == [x["total"] for x in rd["scores"]]
        assert totals == res["totals"] and w == res["winner"]
        wseats = [w, w + 2] if fmt == "cassino-4p" else [w]
        assert all(totals[s] >= 21 for s in wseats)


def test_round_seed():
    outs = splitmix(12345)
    for r in range(1, 6):
        assert R.round_seed(12345, r) == next(outs)


# ------------------------------------------------------------------------------------------------ JSON, bots
def test_json_reading():
    s = position(hands=[["6S", "9C"], ["KD", "QD"]], loose=["6H"])
    assert R.legal_moves(s)[0].after["format"] == "cassino"
    for bad in ({"options": {"ace_15": True}}, {"options": {"sweeps": 1}}, {"promises": [[], []]},
                {"teams": [[0, 2], [1, 3]]}):
        with pytest.raises(ValueError):
            R.legal_moves({**s, **bad})
    s4 = position("cassino-4p", hands=[["6S"], ["KD"], ["QD"], ["2C"]], loose=["6H"])
    with pytest.raises(ValueError):
        R.legal_moves({**s4, "teams": [[0, 1], [2, 3]]})
    # optional fields and partial options
    t = {k: v for k, v in s.items() if k not in ("options", "dealer", "round", "scores", "sweeps", "over")}
    assert successors(t) == successors(s)
    t["options"] = {"sweeps": True}
    assert all(json.loads(r)["options"] == {"ace_14": False, "face_values": False, "sweeps": True}
               for r in successors(t).values())


def test_keys_are_hash_deltas():
    s = position(hands=[["8S", "5C", "AS"], ["8C", "KD", "2D"]], loose=["3H", "8D", "4S", "4H", "AD"],
                 builds=[(8, 1, [["6S", "2S"]])], options={"ace_14": True, "sweeps": True})
    h0 = R.state_hash(s)
    for m in R.legal_moves(s):
        assert m.key == R.state_hash(m.after) ^ h0
        assert m.after["to_move"] == 0
        assert m.kind in ("capture", "build", "load", "change", "trail")


def test_greedy_and_random_choice():
    s = position(hands=[["10S", "2C"], ["KD", "QD"]], loose=["10D", "AH", "5C", "5H"])
    moves = R.legal_moves(s)
    g = R.choose("greedy", moves, 123)
    # the most card points, then the most cards: 10S takes 10D and 5 + 5 (AH stays: table point 1)
    assert (g.card, g.points, g.cards, g.spades, g.table_points) == ("10S", 2, 4, 1, 1)
    r = R.choose("random", moves, 123)
    assert r.key == min((m.key for m in moves), key=lambda k: R.fmix(k ^ 123))


# ------------------------------------------------------------------------------------------------ whole rounds
def _check_round(fmt, seed, bots, options, deep=False):
    st = R.initial_state(fmt, seed, options)
    total_plays = 0
    while not st["over"]:
        moves = R.legal_moves(st)
        assert moves, "C6 / P1: never a position without a legal move"
        assert len({m.key for m in moves}) == len(moves)
        for s in range(len(st["hands"])):            # P1: owners hold a different card for each of their builds
            assert keeps(st["hands"][s], [b["value"] for b in st["table"]["builds"] if b["owner"] == s],
                         options or {})
        if deep:
            h0 = R.state_hash(st)
            for m in moves:
                assert m.key == R.state_hash(m.after) ^ h0
                cards = [c for h in m.after["hands"] for c in h] + m.after["table"]["loose"] + m.after["stock"]
                cards += [c for b in m.after["table"]["builds"] for g in b["groups"] for c in g]
                cards += [c for p in m.after["piles"] for c in p]
                assert sorted(cards) == sorted(ALL52)
        st = R.choose(bots[st["to_move"]], moves, (seed * 1000003 + total_plays) & M64).result
        total_plays += 1
    assert total_plays == 52 - 4
    assert sorted(c for p in st["piles"] for c in p) == sorted(ALL52)
    return st


@pytest.mark.parametrize("fmt", list(SEATS))
def test_whole_rounds(fmt):
    """100 random rounds per format (plus greedy): every card accounted for, 11 points per round without
    sweeps less the tied majorities, never a position without a legal move."""
    n = SEATS[fmt]
    for seed in range(100):
        bots = ["random"] * n if seed % 4 else ["greedy"] + ["random"] * (n - 1)
        res = R.play_round(fmt, seed, bots)
        assert res["no_move"] == 0
        assert len(res["keys"]) == 48
        st = res["final"]
        assert st["over"] and st["to_move"] is None and st["table"] == {"loose": [], "builds": []}
        assert sorted(c for p in st["piles"] for c in p) == sorted(ALL52)
        sc = res["scores"]
        units = [sc[0], sc[1]] if fmt == "cassino-4p" else sc
        ties = (3 if [u["cards"] for u in units].count(max(u["cards"] for u in units)) > 1 else 0) + \
               (1 if [u["spades"] for u in units].count(max(u["spades"] for u in units)) > 1 else 0)
        assert sum(u["total"] for u in units) == 11 - ties
        assert res["scores"] == R.score(st)
    for seed in range(4):
        _check_round(fmt, seed, ["random"] * n, None, deep=True)


@pytest.mark.parametrize("options", [{"face_values": True}, {"sweeps": True}, {"ace_14": True},
                                     {"ace_14": True, "face_values": True, "sweeps": True}])
def test_whole_rounds_with_options(options):
    for fmt, n in SEATS.items():
        for seed in range(40):
            res = R.play_round(fmt, seed, ["random"] * n, options)
            assert res["no_move"] == 0
            st = res["final"]
            assert sorted(c for p in st["piles"] for c in p) == sorted(ALL52)
            units = [res["scores"][0], res["scores"][1]] if fmt == "cassino-4p" else res["scores"]
            sweeps = sum(st["sweeps"])
            if not options.get("sweeps"):
                assert sweeps == 0
            assert sum(u["total"] for u in units) <= 11 + sweeps
            assert sum(u["aces"] + u["two_spades"] + u["ten_diamonds"] for u in units) == 7
        _check_round(fmt, 7, ["random"] * n, options, deep=True)


@pytest.mark.parametrize("options", [{"ace_14": True}, {"ace_14": True, "face_values": True}])
@pytest.mark.parametrize("fmt", list(SEATS))
def test_ace_14_never_without_a_legal_move(fmt, options):
    """P1 in Cassino under ace_14: no build of 1 and build of 14 kept by one ace, so random rounds never reach
    a position without a legal move (scripts check 1,000 rounds per format; here 150, greedy in some)."""
    n = SEATS[fmt]
    for seed in range(1000, 1150):
        bots = ["random"] * n if seed % 3 else ["greedy"] * n
        assert R.play_round(fmt, seed, bots, options)["no_move"] == 0, seed


def test_play_round_determinism_and_bot_stream():
    a = R.play_round("cassino", 99, ["random", "greedy"])
    b = R.play_round("cassino", 99, ["random", "greedy"])
    assert a == b
    # one draw of the bot stream per card play
    st = R.initial_state("cassino", 99)
    draws = splitmix(R.fmix(99 ^ 0xD1B54A32D192ED03))
    keys = []
    while not st["over"]:
        m = R.choose(["random", "greedy"][st["to_move"]], R.legal_moves(st), next(draws))
        keys.append(m.key)
        st = m.result
    assert keys == a["keys"] and st == a["final"]


# ------------------------------------------------------------------------------------------------ brute force
def _partitions(items):
    """Every set partition of ``items`` (lists of blocks)."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for p in _partitions(rest):
        yield [[first]] + p
        for i in range(len(p)):
            yield p[:i] + [[first] + p[i]] + p[i + 1:]


def _k10(cards):
    return sorted(cards, key=lambda c: (-(idx(c) // 4), idx(c) % 4))


def _canon_groups(blocks):
    """New groups of one move: larger card mask (highest card index) first; each group in K10 order."""
    return sorted((_k10(b) for b in blocks), key=lambda g: sum(1 << idx(c) for c in g), reverse=True)


def _canonical_build(v, groups, fv):
    """P27, brute force: of every partition of the build's cards into groups summing to v, the one whose group
    masks, highest first, are lexicographically highest (each group in K10 order)."""
    cards = [c for g in groups for c in g]
    if len(groups) < 2:
        return [_k10(g) for g in groups]
    best = None
    for part in _partitions(cards):
        if all(sum(value(c, fv) or 99 for c in b) == v for b in part):
            masks = sorted((sum(1 << idx(c) for c in b) for b in part), reverse=True)
            best = masks if best is None or masks > best else best
    return [_k10([c for c in cards if m >> idx(c) & 1]) for m in best]


def brute_force_afters(state):
    """{canonical JSON of the position right after: (kind, card)} for every play, found by trying every set
    of loose cards in every arrangement into groups, straight from RULES.md C3-C6, P1, P16-P19.  "Keeping V"
    (P18, P19) and P1 are checked together on the position after the move: the mover holds a different card
    for each build he then owns (``keeps``)."""
    o = state["options"]
    ace_14, fv, sweeps_on = o["ace_14"], o["face_values"], o["sweeps"]
    maxv = 14 if ace_14 else (13 if fv else 10)
    p = state["to_move"]
    hand, loose = state["hands"][p], state["table"]["loose"]
    builds = {b["value"]: (b["owner"], [list(g) for g in b["groups"]]) for b in state["table"]["builds"]}
    owned = {v for v, (ow, _g) in builds.items() if ow == p}

    arrangements = []          # (cards used, blocks) for every subset of loose cards and partition of it
    for mask in range(1 << len(loose)):
        used = [c for i, c in enumerate(loose) if mask >> i & 1]
        for part in _partitions(used):
            arrangements.append((used, part))
    out = {}

    def emit(kind, card, new_loose, new_builds, captured=None):
        # P1 in Cassino: after the move, a different card of the mover's for each build he then owns
        if not keeps([c for c in hand if c != card], [v for v, (ow, _g) in new_builds.items() if ow == p], o):
            return
        st = json.loads(json.dumps(state))
        st["hands"][p] = [c for c in hand if c != card]
        st["table"]["loose"] = by_index(new_loose)
        st["table"]["builds"] = [{"value": v, "owner": ow, "groups": _canonical_build(v, gs, fv)}
                                 for v, (ow, gs) in sorted(new_builds.items())]
        if captured is not None:
            st["piles"][p] = st["piles"][p] + captured
            st["last_capturer"] = p
            if sweeps_on and not new_loose and not new_builds:
                st["sweeps"][p] += 1
        out.setdefault(canon(st), (kind, card))

    def sums_to(block, v):
        vals = [value(c, fv) for c in block]
        return None not in vals and sum(vals) == v

    for card in hand:
        pv = value(card, fv)
        if pv is None:                                            # P16
            for x in loose:
                if x[:-1] == card[:-1]:
                    emit("capture", card, [c for c in loose if c != x], dict(builds), [x, card])
            if not owned:
                emit("trail", card, loose + [card], dict(builds))
            continue
        cvals = {pv, 14} if (ace_14 and card.startswith("A")) else {pv}
        for cv in cvals:                                          # C3, P17: units of cv only
            for take in [None] + ([cv] if cv in builds else []):
                for used, part in arrangements:
                    if take is None and not part:
                        continue
                    if not all(sums_to(b, cv) for b in part):
                        continue
                    nb = dict(builds)
                    captured = [c for g in nb.pop(take)[1] for c in g] if take is not None else []
                    captured = _k10(captured + [c for g in part for c in g]) + [card]     # P27: one block
                    emit("capture", card, [c for c in loose if c not in used], nb, captured)
        for w, (ow, gs) in builds.items():                        # P19
            nv = w + pv
            if len(gs) == 1 and nv <= maxv and nv not in builds:
                nb = dict(builds)
                del nb[w]
                nb[nv] = (p, [_k10(gs[0] + [card])])
                emit("change", card, loose, nb)
        for used, part in arrangements:                           # P18 build and add
            for i in range(len(part) + 1):
                blocks = [list(b) for b in part] + [[]]
                blocks[i] = blocks[i] + [card]
                blocks = [b for b in blocks if b]
                if len(blocks) != len(part) + (1 if i == len(part) else 0):
                    continue
                v = sum(value(c, fv) or 99 for c in blocks[0])
                if not all(sums_to(b, v) for b in blocks) or v > maxv:
                    continue
                nb = dict(builds)
                if v in builds:
                    nb[v] = (p, builds[v][1] + _canon_groups(blocks))
                    emit("load", card, [c for c in loose if c not in used], nb)
                elif used:
                    nb[v] = (p, _canon_groups(blocks))
                    emit("build", card, [c for c in loose if c not in used], nb)
        if not owned:
            emit("trail", card, loose + [card], dict(builds))
    return out


def _random_position(rng, fmt, options, aces=False):
    """A random small position.  ``aces``: the mover gets one to three aces and builds of 1 and 14 are
    likely (P1 under ace_14: a build of 1 and a build of 14 of one owner need two of his aces)."""
    n = SEATS[fmt]
    fv = options.get("face_values", False)
    maxv = 14 if options.get("ace_14") else (13 if fv else 10)
    deck = ALL52[:]
    rng.shuffle(deck)
    to_move, h = rng.randrange(n), rng.randint(1, 4)
    hands = [[] for _ in range(n)]
    if aces:                                                 # the mover holds one to three aces
        h = rng.randint(2, 4)
        hands[to_move] = rng.sample(["AS", "AH", "AD", "AC"], rng.randint(1, min(3, h)))
        for a in hands[to_move]:
            deck.remove(a)
    for s in range(n):
        while len(hands[s]) < (h - 1 if s < to_move else h):
            hands[s].append(deck.pop())
    builds, taken = [], set()
    for _ in range(rng.randint(0, 3 if aces else 2)):
        owner = to_move if (aces and rng.random() < 0.6) else rng.randrange(n)
        vals = {v for c in hands[owner] for v in card_values(c, options)}
        low = 1 if options.get("ace_14") else 2               # a build of 1 only matters with ace_14
        vals = sorted(v for v in vals if low <= v <= maxv and v not in taken)
        if aces and {1, 14} & set(vals) and rng.random() < 0.7:
            vals = sorted({1, 14} & set(vals))
        if not vals:
            continue
        V = rng.choice(vals)
        groups = []
        if V == 1:                                           # a build of 1: two or more loose aces as groups
            loose_aces = [c for c in deck if c.startswith("A")]
            if len(loose_aces) >= 2:
                groups = [[c] for c in rng.sample(loose_aces, rng.randint(2, len(loose_aces)))]
                for (c,) in groups:
                    deck.remove(c)
        else:
            for _ in range(rng.choice([1, 1, 2])):
                for _try in range(200):
                    pick = rng.sample(deck, rng.choice([2, 2, 3]))
                    vs = [value(c, fv) for c in pick]
                    if None not in vs and sum(vs) == V:
                        groups.append(_k10(pick))
                        for c in pick:
                            deck.remove(c)
                        break
        if groups and keeps(hands[owner], [b[0] for b in builds if b[1] == owner] + [V], options):
            builds.append((V, owner, groups))
            taken.add(V)
        else:
            deck += [c for g in groups for c in g]
    small = [c for c in deck if value(c, True) <= 6 or rng.random() < 0.3]
    loose = rng.sample(small, min(len(small), rng.randint(0, 6)))
    return position(fmt, hands, loose, builds, to_move=to_move, options=options)


BRUTE_POSITIONS = 250       # random small positions per option set (the core runs the same ones)


# the reference on two option sets here; tests/test_cassino_scenarios.py runs the core against the same oracle on
# all five (and the differential tests compare the two engines everywhere)
@pytest.mark.parametrize("options", [{}, {"ace_14": True, "face_values": True, "sweeps": True}])
def test_against_brute_force(options):
    """Random small positions: the moves' ``after`` positions (and kinds) equal a brute-force enumeration of
    every arrangement of loose cards, written straight from RULES.md; keys are H(after) ^ H(before)."""
    rng = random.Random(json.dumps(options, sort_keys=True))
    checked, kinds = 0, set()
    for i in range(BRUTE_POSITIONS):
        fmt = list(SEATS)[i % 3]
        s = _random_position(rng, fmt, options)
        moves = ENGINE.legal_moves(s)
        got = {canon(m.after): (m.kind, m.card) for m in moves}
        assert len(got) == len(moves)
        assert got == brute_force_afters(s), json.dumps(s)
        h0 = R.state_hash(s)
        assert all(m.key == R.state_hash(m.after) ^ h0 for m in moves)
        checked += len(moves)
        kinds |= {m.kind for m in moves}
    assert checked > 1000 and kinds == {"capture", "build", "load", "change", "trail"}


@pytest.mark.parametrize("options", [{"ace_14": True}, {"ace_14": True, "face_values": True, "sweeps": True}])
def test_against_brute_force_aces(options):
    """The same, on positions rich in aces and in builds of 1 and 14 (P17 units, P1 under ace_14: a build of 1
    and a build of 14 of one owner need two of his aces after the move)."""
    rng = random.Random("aces" + json.dumps(options, sort_keys=True))
    both_before = both_after = 0
    for i in range(BRUTE_POSITIONS):
        fmt = list(SEATS)[i % 3]
        s = _random_position(rng, fmt, options, aces=True)
        p = s["to_move"]
        moves = ENGINE.legal_moves(s)
        got = {canon(m.after): (m.kind, m.card) for m in moves}
        assert len(got) == len(moves)
        assert got == brute_force_afters(s), json.dumps(s)
        assert moves, "P1 / C6: a legal move in every valid position"
        both_before += {1, 14} <= {b["value"] for b in s["table"]["builds"] if b["owner"] == p}
        for m in moves:
            owned = [b["value"] for b in m.after["table"]["builds"] if b["owner"] == p]
            assert keeps(m.after["hands"][p], owned, options)
            both_after += {1, 14} <= set(owned)
    assert both_before >= 10 and both_after >= 20, (both_before, both_after)


# ------------------------------------------------------------------------------------------------ P27 card sets
def test_p27_moves_a_player_can_tell_apart():
    """P27 (issue 36's example): seat 0 holds 6D 6C, loose 2S 2H 4S 4H. "6C takes 4H + 2H and 4S + 2S" and "6C
    takes 4H + 2S and 4S + 2H" put the same cards on the pile, and the two groupings of "build 6 with 6C and
    both pairs" leave the same build: 22 moves, not 26."""
    s = position(hands=[["6D", "6C"], ["2D", "3D"]], loose=["2S", "2H", "4S", "4H"])
    moves = ENGINE.legal_moves(s)
    assert len(moves) == 22
    assert len({canon(m.result) for m in moves}) == 22
    six = played_with(s, "6C")
    caps = sorted(o[3] for o in six if o[3])
    assert caps == sorted([("4S", "2S", "6C"), ("4S", "2H", "6C"), ("4H", "2S", "6C"), ("4H", "2H", "6C"),
                           ("4S", "4H", "2S", "2H", "6C")])
    builds = {o[2] for o in six if o[2]}
    assert len(builds) == 5
    assert ((6, 0, (("6C",), ("4H", "2H"), ("4S", "2S"))),) in builds     # the canonical grouping of the both
    assert ((6, 0, (("6C",), ("4H", "2S"), ("4S", "2H"))),) not in builds


def test_p27_canonical_grouping_of_a_multiple_build():
    """P27: a multiple build is written with its canonical grouping whatever grouping made it or was read in:
    the group of the highest card with the highest mask that leaves cards still splitting into groups of the
    value (5 + 4 would leave 3 + 3 + 3 + 2, which does not split into tens, so 5 goes with 3D + 2S). Its hash
    is that of its card set."""
    a = position(hands=[["9S", "QC"], ["10D", "3C"]], builds=[(10, 1, [["5S", "3D", "2S"], ["4S", "3S", "3H"]])])
    b = position(hands=[["9S", "QC"], ["10D", "3C"]], builds=[(10, 1, [["4S", "3D", "3S"], ["5S", "3H", "2S"]])])
    assert R.state_hash(a) == R.state_hash(b)
    for s in (a, b):
        (after,) = [m.result for m in ENGINE.legal_moves(s) if m.card == "9S"]       # the trail
        assert after["table"]["builds"] == [{"value": 10, "owner": 1,
                                             "groups": [["5S", "3D", "2S"], ["4S", "3S", "3H"]]}]
    # a load keeps the card set: the same build whichever pairing the added cards were grouped with
    s = position(hands=[["6C", "6D"], ["6S", "3D"]], loose=["4S", "2S", "4H", "2H"],
                 builds=[(6, 1, [["6H"]])])
    loads = {o[2] for o in played_with(s, "6C") if o[2] and len(o[2][0][2]) == 4}
    assert loads == {((6, 0, (("6C",), ("6H",), ("4H", "2H"), ("4S", "2S"))),)}
