"""Norwegian misère Kasino in the pure-Python reference engine (khasino_sim/reference/kasino.py): formats
``kasino-2p``, ``kasino-2p-alt``, ``kasino-3p``, ``kasino-4p``, ``kasino-5p``, ``kasino-6p``
(docs/rules/kasino.md N1-N7; docs/rules/project.md P22-P26; docs/ENGINE.md "Norwegian misère Kasino").

Every scenario is a hand-built JSON position (``position()`` names the cards that matter and fills in the rest
validly).  Move scenarios read only ``legal_moves(state)`` and the moves' public attributes, so ``ENGINE`` may
be set to another module with the same API to run them against it."""
import collections
import itertools
import os
import random
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from khasino_sim import reference_kasino as R  # noqa: E402

ENGINE = R

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
ALL52 = [RANKS[i >> 2] + "SHDC"[i & 3] for i in range(52)]
M64 = (1 << 64) - 1
# N1: seats, first-deal cards each, first-deal table cards, deals; teams (N7)
DEAL_TABLE = {
    "kasino-2p": (2, 6, 4, 12, None),
    "kasino-2p-alt": (2, 5, 6, 12, None),
    "kasino-3p": (3, 5, 5, 8, None),
    "kasino-4p": (4, 5, 4, 6, ((0, 2), (1, 3))),
    "kasino-5p": (5, 4, 4, 5, None),
    "kasino-6p": (6, 5, 2, 4, ((0, 3), (1, 4), (2, 5))),
}


def idx(card):
    return ALL52.index(card)


def by_index(cards):
    return sorted(cards, key=idx)


def rank(card):
    return idx(card) // 4 + 1


def points_of(card):
    """N6 card points, written out independently of the engine."""
    if card == "10D":
        return 3
    if card in ("2S", "AS"):
        return 2
    if card.startswith("A") or card.endswith("S"):
        return 1
    return 0


# ---------------------------------------------------------------------------------------------------------
# Independent splitmix64 / Z (ENGINE.md "Randomness", "Position hash and move keys")
# ---------------------------------------------------------------------------------------------------------
def fmix(z):
    z &= M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


class Stream:
    def __init__(self, s):
        self.s = s & M64

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & M64
        return fmix(self.s)


def Zf(tag, a, b, payload):
    return fmix(fmix((((tag << 40) | (a << 20) | b) + 0x9E3779B97F4A7C15) & M64) ^ payload)


# ---------------------------------------------------------------------------------------------------------
# Building positions
# ---------------------------------------------------------------------------------------------------------
def position(fmt="kasino-2p", hands=None, table=(), deal=None, to_move=0, dealer=None, piles=None,
             set_aside=(), rest_to=None, last_capturer="auto", **extra):
    """A valid JSON state holding exactly the named hands, table cards, set-aside cards and piles; every
    other card of the two decks goes to the stock (the size the deal needs, in card-index order), then to
    seat ``rest_to``'s pile (default: the last seat).  ``deal`` default: the last deal (no stock)."""
    n, _h, _t, deals, teams = DEAL_TABLE[fmt]
    deal = deals if deal is None else deal
    piles = [list(p) for p in (piles or [[] for _ in range(n)])]
    named = [c for h in hands for c in h] + list(table) + [c for p in piles for c in p] + list(set_aside)
    cnt = collections.Counter(named)
    assert all(k <= 2 for k in cnt.values()), cnt
    rest = [c for c in ALL52 for _ in range(2 - cnt[c])]
    stock_size = 4 * n * (deals - deal)
    stock, rest = rest[:stock_size], rest[stock_size:]
    piles[n - 1 if rest_to is None else rest_to] += rest
    piles = [by_index(p) for p in piles]
    if last_capturer == "auto":
        last_capturer = (n - 1 if rest_to is None else rest_to) if any(piles) else None
    d = {"format": fmt, "deal": deal, "to_move": to_move, "hands": [by_index(h) for h in hands],
         "table": {"loose": by_index(table), "builds": []}, "piles": piles, "stock": stock,
         "last_capturer": last_capturer}
    if dealer is not None:
        d["dealer"] = dealer
    if set_aside:
        d["set_aside"] = by_index(set_aside)
    d.update(extra)
    return d


def moves_of(state):
    return ENGINE.legal_moves(state)


def summary(moves):
    """{(card, kind, tuple(captured))} of a move list; asserts the moves are distinct."""
    out = [(m.card, m.kind, tuple(m.captured)) for m in moves]
    assert len(out) == len(set(out)), out
    assert len({m.key for m in moves}) == len(moves)
    return set(out)


def count_cards(state):
    """Every card of the two decks, counted over every zone of a JSON state."""
    zones = [c for h in state["hands"] for c in h] + state["table"]["loose"] + \
        [c for p in state["piles"] for c in p] + state["set_aside"] + state["stock"]
    return collections.Counter(zones)


def assert_104(state):
    cnt = count_cards(state)
    assert sum(cnt.values()) == 104 and set(cnt) == set(ALL52) and set(cnt.values()) == {2}


# ---------------------------------------------------------------------------------------------------------
# N1 / P22: the deal
# ---------------------------------------------------------------------------------------------------------
def independent_deal(seed):
    """ENGINE.md Randomness with N = 104, card index = id mod 52."""
    rng = Stream(seed)
    deck = list(range(104))
    for i in range(103, 0, -1):
        j = rng.next() % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return [ALL52[i % 52] for i in deck]


@pytest.mark.parametrize("fmt", sorted(DEAL_TABLE))
def test_n1_deal_table(fmt):
    n, h, t, deals, teams = DEAL_TABLE[fmt]
    F = R.FORMATS[fmt]
    assert (F["seats"], F["hand"], F["table"], F["deals"]) == (n, h, t, deals)
    assert F["teams"] == teams
    assert t + n * h + 4 * n * (deals - 1) == 104          # every card is dealt in the round
    for seed in (0, 1, 12345, 2 ** 64 - 1):
        for rnd in range(1, n + 1):
            s = R.initial_state(fmt, seed, round=rnd)
            assert_104(s)
            d = independent_deal(seed)
            assert s["table"]["loose"] == by_index(d[:t])
            for seat in range(n):
                assert s["hands"][seat] == by_index(d[t + seat * h:t + (seat + 1) * h])
            assert s["stock"] == d[t + n * h:]                # deal order, not sorted
            assert len(s["stock"]) == 4 * n * (deals - 1)
            dealer = (rnd + n - 2) % n                        # P22: round 1 by the last seat, then rotating
            assert s["dealer"] == dealer and s["last_player"] == dealer
            assert s["to_move"] == (dealer + 1) % n
            assert s["deal"] == 1 and s["round"] == rnd and s["rounds"] == n
            assert s["scores"] == [0] * n and s["tabbe"] == [[0, 0]] * n and s["set_aside"] == []
            assert s["piles"] == [[]] * n and s["last_capturer"] is None and s["over"] is False
            assert s["table"]["builds"] == []
            assert ("teams" in s) == (teams is not None)
            if teams:
                assert s["teams"] == [list(x) for x in teams]
    s = R.initial_state(fmt, 7, round=2, rounds=2 * n, scores=list(range(n)))
    assert s["rounds"] == 2 * n and s["scores"] == list(range(n))
    with pytest.raises(ValueError):
        R.initial_state(fmt, 7, rounds=n + 1)                # N7: a multiple of the seat count


def test_n1_deal_example_lists_duplicates_twice():
    """Some seed deals a card's two copies to one hand: the hand lists it twice, in card-index order."""
    for seed in range(200):
        s = R.initial_state("kasino-2p", seed)
        for h in s["hands"] + [s["table"]["loose"]]:
            assert h == by_index(h)
            if len(set(h)) < len(h):
                return
    pytest.fail("no duplicate in 200 deals")


def test_round_seed():
    g = 0xDEADBEEF
    rng = Stream(g)
    outs = [rng.next() for _ in range(5)]
    assert [R.round_seed(g, r) for r in range(1, 6)] == outs
    with pytest.raises(ValueError):
        R.round_seed(g, 0)


@pytest.mark.parametrize("fmt", sorted(DEAL_TABLE))
def test_n1_later_deals_four_each_no_table_cards(fmt):
    """Play deal 1 to its end: the next deal gives stock[0..3] to seat 0, stock[4..7] to seat 1, ...; no
    table cards are added (the table only loses its face cards, P25); the leader leads again."""
    n = DEAL_TABLE[fmt][0]
    s = R.initial_state(fmt, 99)
    stock = s["stock"]
    while s["deal"] == 1:
        prev = s
        m = sorted(moves_of(s), key=lambda m: m.key)[0]
        s = m.result
    assert s["deal"] == 2 and s["to_move"] == (s["dealer"] + 1) % n
    for seat in range(n):
        assert s["hands"][seat] == by_index(stock[4 * seat:4 * seat + 4])
    assert s["stock"] == stock[4 * n:]
    table_after = m.after["table"]["loose"]
    assert s["table"]["loose"] == [c for c in table_after if rank(c) <= 10]
    assert prev["deal"] == 1
    assert_104(s)


# ---------------------------------------------------------------------------------------------------------
# N1 / P7: the two copies of a card are one card
# ---------------------------------------------------------------------------------------------------------
def test_two_copies_in_hand_are_one_move():
    s = position(hands=[["7H", "7H", "KC"], ["2C", "3C", "4C"]], table=["9D"])
    assert summary(moves_of(s)) == {("7H", "trail", ()), ("KC", "trail", ())}
    s = position(hands=[["7H", "7H", "KC"], ["2C", "3C", "4C"]], table=["7C", "9D"])
    # the 7 must capture (one capture move whatever copy is played); the K has no match and crawls
    assert summary(moves_of(s)) == {("7H", "capture", ("7C",)), ("KC", "trail", ())}
    after = [m for m in moves_of(s) if m.card == "7H"][0].after
    assert after["hands"][0] == ["7H", "KC"] and after["table"]["loose"] == ["9D"]


def test_two_copies_on_table_one_move_and_second_copy_key():
    """Table 3H 3H 4S: a 7 takes 3H+4S (the other 3H is no match for 7): one move whichever 3H; with 7C 7C
    on the table a 7 takes both (one would leave a match), keyed with the second copy's term."""
    s = position(hands=[["7D", "KC"], ["2C", "3C"]], table=["3H", "3H", "4S"])
    ms = moves_of(s)
    assert summary(ms) == {("7D", "capture", ("3H", "4S")), ("KC", "trail", ())}
    s = position(hands=[["7D", "KC"], ["2C", "3C"]], table=["7C", "7C", "9H"])
    ms = [m for m in moves_of(s) if m.card == "7D"]
    assert summary(ms) == {("7D", "capture", ("7C", "7C"))}
    c7d, c7c = idx("7D"), idx("7C")
    assert ms[0].key == Zf(1, 0, c7d, 0) ^ Zf(2, 0, c7c, 0) ^ Zf(2, 0, c7c + 52, 0)


def test_move_keys():
    """ENGINE.md: key = Z(1, p, c, 0) XOR Z(2, 0, x, 0) per captured card (x + 52 for a second copy); a trail
    is Z(1, p, c, 0) alone."""
    s = position("kasino-3p", hands=[["KD"], ["5S", "9C"], ["2D", "3D"]], table=["2H", "3S", "AD", "4C"],
                 to_move=1, dealer=2, last_player=0)
    ms = {m.card: m for m in moves_of(s)}
    # 5S: 2H+3S and A+4 -> both matches, disjoint: takes all four (a tabbe, so N3 applies and 9C is out)
    assert set(ms) == {"5S"}
    m = ms["5S"]
    assert m.captured == ["AD", "2H", "3S", "4C"] and m.tabbe == 5
    expect = Zf(1, 1, idx("5S"), 0)
    for x in ("AD", "2H", "3S", "4C"):
        expect ^= Zf(2, 0, idx(x), 0)
    assert m.key == expect
    s = position(hands=[["KC"], ["2C"]], table=["9D"])
    (m,) = moves_of(s)
    assert m.kind == "trail" and m.captured == [] and m.tabbe == 0 and m.key == Zf(1, 0, idx("KC"), 0)
    assert m.to_json() == {"card": "KC", "kind": "trail", "captured": [], "tabbe": 0}


# ---------------------------------------------------------------------------------------------------------
# N2 / P23: compulsory maximal capture
# ---------------------------------------------------------------------------------------------------------
def test_n2_seed_example_seven_takes_seven_and_three_plus_four():
    """Source 003 (N2): with 3, 4 and 7 on the table a played 7 takes both the 7 and 3+4 (here a 9 stays, so no
    tabbe), and nothing smaller."""
    s = position(hands=[["7D", "5C"], ["2C", "QH"]], table=["3H", "4S", "7C", "9D"])
    assert summary(moves_of(s)) == {("7D", "capture", ("3H", "4S", "7C")), ("5C", "trail", ())}
    # with only 3, 4, 7 on the table the same capture clears it: a tabbe (N3 then keeps it alone)
    s = position(hands=[["7D", "5C"], ["2C", "QH"]], table=["3H", "4S", "7C"])
    (m,) = moves_of(s)
    assert (m.card, m.captured, m.tabbe) == ("7D", ["3H", "4S", "7C"], 5)


def test_n2_smaller_capture_is_not_legal():
    """A card that could capture more after a smaller capture has no such smaller capture: table 2 5 3 4 8,
    a played 7 must take 2+5 AND 3+4, never one pair alone."""
    s = position(hands=[["7D", "KC"], ["2C", "QH"]], table=["2H", "5S", "3D", "4C", "8H"])
    caps = {c for card, kind, c in summary(moves_of(s)) if card == "7D"}
    assert caps == {("2H", "3D", "4C", "5S")}


def test_n2_several_maximal_captures_player_chooses():
    """Table 2 3 4 5 6, a played 9: 3+6 with 4+5 (leaves 2: no match), or 2+3+4 (leaves 5, 6: 11, no match);
    4+5 alone (leaves 3+6) or 3+6 alone (leaves 4+5) are not legal.  Two moves: the player chooses."""
    s = position(hands=[["9C", "KC"], ["2C", "QH"]], table=["2H", "3S", "4D", "5C", "6H"])
    caps = {c for card, kind, c in summary(moves_of(s)) if card == "9C"}
    assert caps == {("3S", "4D", "5C", "6H"), ("2H", "3S", "4D")}


def test_p23_ace_example_not_the_largest():
    """RULES.md P23: AH KC 5D on the table, a played ace may take AH alone (K+5 = 18: no 14 left) or AH+KC
    (1 + 13 = 14); not all three (1+13+5 is no union of matches)."""
    s = position(hands=[["AS", "QC"], ["2C", "QH"]], table=["AH", "KC", "5D"])
    caps = {c for card, kind, c in summary(moves_of(s)) if card == "AS"}
    assert caps == {("AH",), ("AH", "KC")}


def test_ace_fourteen_from_hand_one_on_table():
    # from the hand an ace is 14: 9 + 5 is a match, a lone 4 + 5 (9) is not (and an ace is no 1 from the hand)
    s = position(hands=[["AS", "QC"], ["2C", "QH"]], table=["9C", "5H", "8D"])
    assert ("AS", "capture", ("5H", "9C")) in summary(moves_of(s))
    s = position(hands=[["AS", "QC"], ["2C", "QH"]], table=["4C", "5H"])
    assert ("AS", "trail", ()) in summary(moves_of(s))
    # on the table an ace is 1: a played 5 takes A+4; a played 2 takes A+A
    s = position(hands=[["5S", "QC"], ["2C", "QH"]], table=["AH", "4C", "8D"])
    assert ("5S", "capture", ("AH", "4C")) in summary(moves_of(s))
    s = position(hands=[["2S", "QC"], ["2C", "QH"]], table=["AH", "AD", "9D"])
    assert ("2S", "capture", ("AH", "AD")) in summary(moves_of(s))
    # a played ace takes table aces by rank, each a match of its own, and sets making 14 with aces as 1
    s = position(hands=[["AS", "8C"], ["2C", "QH"]], table=["AH", "AD", "QD", "7C"])
    caps = {c for card, kind, c in summary(moves_of(s)) if card == "AS"}
    # {AH}, {AD}, {QD+A+A}: AH + AD + QD = 14 (one set) -> clears? no, 7C stays: not a tabbe.
    # U must leave no match: AH alone leaves AD (a match): not legal.  AH+AD leaves QD, 7C (19): legal.
    # AH+AD+QD as one 14-set: legal (7C left).
    assert caps == {("AH", "AD"), ("AH", "AD", "QD")}


def test_king_takes_six_plus_seven_and_a_table_king():
    s = position(hands=[["KC", "QC"], ["2C", "QH"]], table=["6H", "7S", "KD", "2C"])
    caps = {c for card, kind, c in summary(moves_of(s)) if card == "KC"}
    assert caps == {("6H", "7S", "KD")}
    m = [m for m in moves_of(s) if m.card == "KC"][0]
    assert m.after["table"]["loose"] == ["2C"]
    assert m.points == points_of("7S")      # KC, 6H, KD score nothing; 7S one spade


def test_face_cards_sum_on_the_table():
    """J 11, Q 12, K 13 on the table count in sums: a played K takes J+2 and Q+A."""
    s = position(hands=[["KC", "9C"], ["2C", "QH"]], table=["JH", "2D", "QS", "AC", "8D"])
    caps = {c for card, kind, c in summary(moves_of(s)) if card == "KC"}
    assert caps == {("AC", "2D", "JH", "QS")}


def test_n2_crawl_only_without_match():
    """A card with no match crawls (a trail onto the table); a card with a match never crawls."""
    s = position(hands=[["8C", "10C", "KC"], ["2C", "QH", "QC"]], table=["3H", "5D", "6S"], deal=1)
    got = summary(moves_of(s))
    assert got == {("8C", "capture", ("3H", "5D")), ("10C", "trail", ()), ("KC", "trail", ())}
    trail = [m for m in moves_of(s) if m.card == "10C"][0]
    assert trail.after["table"]["loose"] == ["3H", "5D", "6S", "10C"]
    assert trail.after["piles"] == s["piles"]
    assert trail.points == 0


def test_empty_table_every_card_crawls():
    s = position(hands=[["5S", "5S", "AS"], ["2C", "3C", "QC"]], table=[], deal=1)
    assert summary(moves_of(s)) == {("5S", "trail", ()), ("AS", "trail", ())}


# ---------------------------------------------------------------------------------------------------------
# N3 / P24: compulsory tabbe
# ---------------------------------------------------------------------------------------------------------
def test_n3_compulsory_tabbe_only_clearing_moves():
    """Hand 5, 8, K; table 3 5: the 5 could take the 5 (leaving 3), the K crawls, but the 8 clears (3+5):
    only the 8's clearing capture is legal."""
    s = position(hands=[["5C", "8C", "KC"], ["2C", "QH", "QC"]], table=["3H", "5D"], deal=1)
    ms = moves_of(s)
    assert summary(ms) == {("8C", "capture", ("3H", "5D"))}
    assert ms[0].tabbe == 5


def test_n3_several_clearing_cards_one_move_each():
    """Table 7 7: a 7 and an ace (14) both clear: two moves, the K is out.  Table 4 10: the 4 (leaves the 10)
    and the 10 (leaves the 4) capture without clearing; the ace takes 4+10 = 14 and clears: only the ace."""
    s = position(hands=[["7C", "AS", "KC"], ["2C", "QH", "QC"]], table=["7H", "7D"], deal=1)
    got = summary(moves_of(s))
    assert got == {("7C", "capture", ("7H", "7D")), ("AS", "capture", ("7H", "7D"))}
    assert all(m.tabbe == 5 for m in moves_of(s))
    s = position(hands=[["4C", "10C", "AS"], ["2C", "QH", "QC"]], table=["4H", "10H"], deal=1)
    assert summary(moves_of(s)) == {("AS", "capture", ("4H", "10H"))}


def test_n3_every_move_or_none_is_a_tabbe():
    s = position(hands=[["9C", "KC"], ["2C", "QH"]], table=["2H", "3S", "4D", "5C", "6H"])
    assert all(m.tabbe == 0 for m in moves_of(s))


# ---------------------------------------------------------------------------------------------------------
# N4 / P24: tabbe scoring
# ---------------------------------------------------------------------------------------------------------
def test_n4_tabbe_plus_to_taker_minus_to_previous_player():
    """kasino-3p, seat 1 to move (seat 0 played just before): +5 to seat 1, -5 to seat 0, seat 2 untouched."""
    s = position("kasino-3p", hands=[["2C", "3C"], ["8C", "KC", "QC"], ["2D", "3D", "QD"]], table=["3H", "5D"],
                 to_move=1, deal=7, dealer=2, tabbe=[[0, 0], [0, 0], [5, -10]])
    (m,) = moves_of(s)
    assert m.tabbe == 5 and m.captured == ["3H", "5D"]
    assert m.after["tabbe"] == [[0, -5], [5, 0], [5, -10]]
    assert m.after["last_player"] == 1 and m.after["to_move"] == 1 and m.after["last_capturer"] == 1
    assert m.result["tabbe"] == [[0, -5], [5, 0], [5, -10]]
    assert m.result["to_move"] == 2 and m.result["last_player"] == 1
    assert m.points == 5 + points_of("8C") + points_of("3H") + points_of("5D")
    assert m.after["piles"][1] == by_index(s["piles"][1] + ["8C", "3H", "5D"])


def test_n4_first_play_of_round_charged_to_dealer():
    """At a round's first play the minus goes to the dealer.  kasino-3p round 1: dealer 2, leader 0 (no
    last_player in the input: its default, the seat before the mover, is the dealer)."""
    s = position("kasino-3p", hands=[["8C", "KC", "QC", "2C", "3C"], ["2D", "3D", "QD", "4D", "4H"],
                                     ["2H", "3S", "QS", "6D", "6H"]], table=["3H", "5D"], deal=1, dealer=2)
    (m,) = moves_of(s)
    assert m.card == "8C" and m.after["tabbe"] == [[5, 0], [0, 0], [0, -5]]
    assert m.result["tabbe"] == [[5, 0], [0, 0], [0, -5]]
    # round 2 of kasino-3p: dealer 0, leader 1: the minus goes to seat 0
    s2 = dict(s, dealer=0, round=2, to_move=1, hands=[s["hands"][2], s["hands"][0], s["hands"][1]])
    (m2,) = moves_of(s2)
    assert m2.card == "8C" and m2.after["tabbe"] == [[0, -5], [5, 0], [0, 0]]


def test_n4_first_play_from_a_real_deal_is_charged_to_dealer():
    """From initial_state: find a deal whose first play is a tabbe; the dealer (last seat) takes the minus."""
    for fmt in ("kasino-6p", "kasino-4p", "kasino-2p"):
        n = DEAL_TABLE[fmt][0]
        for seed in range(3000):
            s = R.initial_state(fmt, seed)
            ms = moves_of(s)
            if ms[0].tabbe:
                m = ms[0]
                expect = [[0, 0] for _ in range(n)]
                expect[0][0] += m.tabbe
                expect[n - 1][1] -= m.tabbe
                assert m.after["tabbe"] == expect
                break
        else:
            pytest.fail(f"{fmt}: no first-play tabbe in 3000 deals")


def test_n4_double_tabbe():
    """Capturing the only table card with a card of its rank: +10 / -10.  Two copies (7H 7H) are not the only
    card: an ordinary tabbe.  A lone ace taken by an ace is a double tabbe too."""
    s = position(hands=[["7D", "KC"], ["2C", "QH"]], table=["7H"], last_player=1)
    (m,) = moves_of(s)
    assert (m.card, m.captured, m.tabbe) == ("7D", ["7H"], 10)
    assert m.after["tabbe"] == [[10, 0], [0, -10]] and m.points == 10
    s = position(hands=[["7D", "KC"], ["2C", "QH"]], table=["7H", "7H"])
    (m,) = moves_of(s)
    assert m.tabbe == 5
    s = position(hands=[["AD", "KC"], ["2C", "QH"]], table=["AH"])
    (m,) = moves_of(s)
    assert (m.card, m.tabbe, m.points) == ("AD", 10, 12)


def test_n4_tabbe_on_the_rounds_last_card_counts():
    s = position(hands=[[], ["9S"]], table=["4H", "5H"], to_move=1, rest_to=0, last_capturer=0)
    (m,) = moves_of(s)
    assert m.tabbe == 5
    final = m.result
    assert final["over"] is True and final["to_move"] is None
    assert final["tabbe"] == [[0, -5], [5, 0]] and final["last_capturer"] == 1
    sc = R.score(final)
    assert sc[1]["tabbe_plus"] == 5 and sc[0]["tabbe_minus"] == -5 and sc[1]["last_point"] == 1
    assert sum(x["total"] for x in sc) == 43


# ---------------------------------------------------------------------------------------------------------
# N5 / P25: end of deal and round
# ---------------------------------------------------------------------------------------------------------
def test_n5_face_cards_set_aside_at_end_of_deal():
    """kasino-2p deal 1 ends (seat 1 plays the last card): the J, Q, K left on the table are set aside; the
    next deal is made; the number cards stay."""
    s = position(hands=[[], ["9C"]], table=["JH", "QS", "KD", "3H", "KD"], to_move=1, deal=1, rest_to=0,
                 last_capturer=0)
    (m,) = moves_of(s)
    assert m.kind == "trail"
    assert m.after["table"]["loose"] == ["3H", "9C", "JH", "QS", "KD", "KD"]   # not yet set aside
    r = m.result
    assert r["set_aside"] == ["JH", "QS", "KD", "KD"] and r["table"]["loose"] == ["3H", "9C"]
    assert r["deal"] == 2 and r["to_move"] == 0 and r["over"] is False
    assert r["hands"] == [by_index(s["stock"][:4]), by_index(s["stock"][4:8])] and r["stock"] == s["stock"][8:]
    assert_104(r)


def test_n5_round_end_spade_faces_to_last_capturer():
    """Last deal ends: faces on the table are set aside first; then the last capturer (seat 0) takes the
    number cards left and the set-aside spade faces (old and new) with the extra point; the other faces stay
    out of play."""
    s = position(hands=[[], ["9C"]], table=["JH", "KS", "3S"], set_aside=["QS", "QD", "JS"], to_move=1,
                 rest_to=1, last_capturer=0, piles=[["2H"], []])
    (m,) = moves_of(s)
    assert m.kind == "trail"
    final = m.result
    assert final["over"] is True and final["to_move"] is None and final["last_capturer"] == 0
    assert final["set_aside"] == ["JH", "QD"]
    assert final["table"]["loose"] == []
    assert final["piles"][0] == by_index(["2H", "3S", "9C", "JS", "QS", "KS"])
    assert_104(final)
    sc = R.score(final)
    assert sc[0] == {"card_points": 4, "last_point": 1, "tabbe_plus": 0, "tabbe_minus": 0, "total": 5}
    assert sc[1]["last_point"] == 0 and sc[0]["total"] + sc[1]["total"] == 43


def test_score_requires_finished_round():
    s = position(hands=[[], ["9C"]], table=["3H"], to_move=1, rest_to=0, last_capturer=0)
    with pytest.raises(ValueError):
        R.score(s)


# ---------------------------------------------------------------------------------------------------------
# N6, N7 / P26: points, round score, match
# ---------------------------------------------------------------------------------------------------------
def test_n6_card_points_table():
    assert sum(2 * R.card_points(i) for i in range(52)) == 42
    for i, c in enumerate(ALL52):
        assert R.card_points(i) == points_of(c), c
    assert [R.card_points(idx(c)) for c in ("10D", "2S", "AS", "AH", "AD", "AC", "KS", "3S", "10H", "KD")] == \
        [3, 2, 2, 1, 1, 1, 1, 1, 0, 0]


def test_greedy_minimises_points_and_random_draw():
    """Greedy (misère) keeps the moves with the fewest points; random takes the key minimising fmix(k ^ r)."""
    s = position(hands=[["7D", "5S", "KC"], ["2C", "QH", "QC"]], table=["AS", "4H", "2D", "6H", "KD"], deal=1)
    ms = moves_of(s)
    pts = {(m.card, tuple(m.captured)): m.points for m in ms}
    for m in ms:
        assert m.points == (sum(points_of(c) for c in [m.card] + m.captured) if m.kind == "capture" else 0) + \
            m.tabbe
    low = min(pts.values())
    for r in (0, 1, 2 ** 63, 12345678901234567):
        g = R.choose("greedy", ms, r)
        assert g.points == low
        best = min((m for m in ms if m.points == low), key=lambda m: fmix(m.key ^ r))
        assert g is best or g.key == best.key
        rnd = R.choose("random", ms, r)
        assert rnd.key == min(ms, key=lambda m: fmix(m.key ^ r)).key
    # equal keys are the same move
    assert R.choose("random", ms + ms, 5).key == R.choose("random", ms, 5).key
    with pytest.raises(ValueError):
        R.choose("nobot", ms, 1)


def test_play_round_bot_stream_one_draw_per_play():
    """play_round = a loop drawing one next() of the bot stream per card play, even with one move."""
    fmt, seed = "kasino-3p", 424242
    res = R.play_round(fmt, seed, bots=("greedy", "random", "greedy"))
    rng = Stream(fmix(seed ^ 0xD1B54A32D192ED03))
    s = R.initial_state(fmt, seed)
    keys = []
    bots = ("greedy", "random", "greedy")
    while not s["over"]:
        ms = moves_of(s)
        m = R.choose(bots[s["to_move"]], ms, rng.next())
        keys.append(m.key)
        s = m.result
    assert keys == res["keys"] and s == res["final"] and res["no_move"] == 0
    assert res["scores"] == R.score(res["final"])
    assert len(keys) == 104 - DEAL_TABLE[fmt][2]          # every card not dealt to the table is played


def test_seed_example_bea_and_dan():
    """Source 003 (N7): Bea 18 card points and a tabbe Dan set up (+5) ends on 23; Dan 24 - 5 on 19; Dan wins.
    (a) the example's arithmetic through add_round / match_winner; (b) a real finished 2p round: Bea (seat
    0) holds 18 card points, Dan (seat 1) 24, Bea's tabbe set up by Dan; the round's extra point, which the
    example leaves out (18 + 24 = 42 = all card points), goes to Bea as last capturer: Bea 24, Dan 19."""
    bea = {"card_points": 18, "last_point": 0, "tabbe_plus": 5, "tabbe_minus": 0, "total": 23}
    dan = {"card_points": 24, "last_point": 0, "tabbe_plus": 0, "tabbe_minus": -5, "total": 19}
    totals = R.add_round("kasino-2p", [0, 0], [bea, dan])
    assert totals == [23, 19] and R.match_winner("kasino-2p", totals) == 1
    # (b): Bea's pile: 10D 10D (6) + 2S 2S (4) + AS AS (4) + AH AH AD AD (4) = 18; Dan all other points (24)
    bea_pile = ["10D", "10D", "2S", "2S", "AS", "AS", "AH", "AH", "AD", "AD"]
    s = position(hands=[[], []], table=[], to_move=None, rest_to=1, last_capturer=0, piles=[bea_pile, []],
                 tabbe=[[5, 0], [0, -5]], over=True)
    sc = R.score(s)
    assert sc[0] == {"card_points": 18, "last_point": 1, "tabbe_plus": 5, "tabbe_minus": 0, "total": 24}
    assert sc[1] == {"card_points": 24, "last_point": 0, "tabbe_plus": 0, "tabbe_minus": -5, "total": 19}
    assert R.match_winner("kasino-2p", R.add_round("kasino-2p", [0, 0], sc)) == 1


def test_n7_pairs_totals_and_winner():
    """4p pairs 0+2 v 1+3, 6p pairs 0+3, 1+4, 2+5: each seat holds its pair's total; the lowest pair wins;
    a tie at the lowest has no winner."""
    mk = lambda t: {"card_points": t, "last_point": 0, "tabbe_plus": 0, "tabbe_minus": 0, "total": t}  # noqa
    tot = R.add_round("kasino-4p", [0, 0, 0, 0], [mk(5), mk(10), mk(6), mk(22)])
    assert tot == [11, 32, 11, 32] and R.match_winner("kasino-4p", tot) == 0
    tot = R.add_round("kasino-4p", tot, [mk(20), mk(0), mk(10), mk(13)])
    assert tot == [41, 45, 41, 45] and R.match_winner("kasino-4p", tot) == 0
    tot = R.add_round("kasino-6p", [0] * 6, [mk(1), mk(2), mk(3), mk(9), mk(20), mk(8)])
    assert tot == [10, 22, 11, 10, 22, 11] and R.match_winner("kasino-6p", tot) == 0
    assert R.match_winner("kasino-6p", [10, 22, 10, 10, 22, 10]) is None
    assert R.match_winner("kasino-3p", [4, 3, 36]) == 1
    assert R.match_winner("kasino-3p", [3, 3, 37]) is None


@pytest.mark.parametrize("fmt", sorted(DEAL_TABLE))
def test_n7_play_match(fmt):
    n, teams = DEAL_TABLE[fmt][0], DEAL_TABLE[fmt][4]
    res = R.play_match(fmt, 2024, bots=["greedy"] * n)
    assert len(res["rounds"]) == n
    totals = [0] * n
    for r, rd in enumerate(res["rounds"], start=1):
        assert rd["round"] == r and rd["seed"] == R.round_seed(2024, r)
        assert rd["final"]["dealer"] == (r + n - 2) % n     # the deal rotates: everyone deals once
        assert rd["final"]["scores"] == totals              # match totals before the round
        again = R.play_round(fmt, rd["seed"], ["greedy"] * n, round=r, rounds=n, scores=totals)
        assert again["keys"] == rd["keys"] and again["final"] == rd["final"]
        assert sum(x["total"] for x in rd["scores"]) == 43
        units = [(s,) for s in range(n)] if teams is None else teams
        new = list(totals)
        for u in units:
            for s in u:
                new[s] = totals[s] + sum(rd["scores"][x]["total"] for x in u)
        totals = new
    assert res["totals"] == totals
    units = [(s,) for s in range(n)] if teams is None else teams
    vals = [totals[u[0]] for u in units]
    assert res["winner"] == (vals.index(min(vals)) if vals.count(min(vals)) == 1 else None)
    with pytest.raises(ValueError):
        R.play_match(fmt, 1, rounds=n + 1)


# ---------------------------------------------------------------------------------------------------------
# JSON input checks
# ---------------------------------------------------------------------------------------------------------
def test_json_validation():
    good = position(hands=[["7D", "KC"], ["2C", "QH"]], table=["3H"])
    moves_of(good)
    bad = dict(good, format="kasino-7p")
    with pytest.raises(ValueError):
        moves_of(bad)
    bad = dict(good, stock=good["stock"] + ["2C"])                   # a card a third time / stock too big
    with pytest.raises(ValueError):
        moves_of(bad)
    bad = dict(good, table={"loose": ["3H", "3H"], "builds": []})    # 3H three times
    with pytest.raises(ValueError):
        moves_of(bad)
    bad = dict(good, table={"loose": [], "builds": []})              # a card missing
    with pytest.raises(ValueError):
        moves_of(bad)
    p = position(hands=[["7D", "KC"], ["2C"]], table=["3H"])           # seat 1 has one card fewer than leader
    with pytest.raises(ValueError):
        moves_of(p)
    p = position(hands=[["7D"], ["2C", "QH"]], table=["3H"], to_move=1)  # seat 0 led: fine
    moves_of(p)
    p = position(hands=[["7D", "KC", "2D", "3D", "4D"], ["2C", "QH", "3C", "4C", "5C"]], table=["3H"])
    with pytest.raises(ValueError):                                  # 5 cards in deal 12 (4 per later deal)
        moves_of(p)
    p = position(hands=[["7D", "KC"], ["2C", "QH"]], table=["3H"], deal=3)
    moves_of(p)
    p["piles"][1] = by_index(p["piles"][1] + p["stock"][-8:])       # a whole deal moved out of the stock
    p["stock"] = p["stock"][:-8]
    with pytest.raises(ValueError):                                  # the stock does not fit deal 3
        moves_of(p)
    moves_of(dict(p, deal=4))                                        # ... but fits deal 4
    with pytest.raises(ValueError):
        moves_of(dict(good, teams=[[0, 1]]))
    with pytest.raises(ValueError):
        moves_of(dict(good, table={"loose": ["3H"], "builds": [{"value": 3, "owner": 0, "groups": [["3H"]]}]}))
    with pytest.raises(ValueError):
        moves_of(dict(good, rounds=3))
    with pytest.raises(ValueError):
        moves_of(dict(good, set_aside=["3C"]))
    with pytest.raises(ValueError):
        moves_of(dict(good, bogus=1))
    with pytest.raises(ValueError):
        moves_of(dict(good, tabbe=[[0, 5], [0, 0]]))
    g4 = position("kasino-4p", hands=[["7D"], ["2C"], ["3C"], ["4C"]], table=["3H"])
    moves_of(g4)
    moves_of(dict(g4, teams=[[0, 2], [1, 3]]))
    with pytest.raises(ValueError):
        moves_of(dict(g4, teams=[[0, 1], [2, 3]]))


def test_after_and_result_round_trip():
    s = position(hands=[["7D", "KC"], ["2C", "QH"]], table=["3H", "4S", "7C", "9D"])
    for m in moves_of(s):
        assert m.after["to_move"] == 0 and m.result["to_move"] == 1
        assert R.advance(m.after) == m.result
        assert_104(m.after) and assert_104(m.result)
        moves_of(m.result)                                          # the successor is a valid state
    # a whole 4p round: every chosen move's ``after`` (any mover, any deal) advances to its ``result``
    s = R.initial_state("kasino-4p", 77, round=3, rounds=8, scores=[4, 9, 4, 9])
    rng = Stream(5)
    while not s["over"]:
        m = R.choose("random", moves_of(s), rng.next())
        assert m.after["to_move"] == s["to_move"] and m.after["last_player"] == s["to_move"]
        assert R.advance(m.after) == m.result
        s = m.result
    assert s["scores"] == [4, 9, 4, 9] and s["round"] == 3 and s["rounds"] == 8 and s["dealer"] == 1


# ---------------------------------------------------------------------------------------------------------
# An independent brute force of P23/P24 on small random tables
# ---------------------------------------------------------------------------------------------------------
def brute_force_moves(hand, table):
    """Over card positions: U is a subset of table positions that can be cut into blocks each a match (a
    single card of the played rank, or any cards whose table values sum to the hand value), and no subset
    of the other positions is a match.  Then N3."""
    def tval(c):
        return rank(c)

    def hval(c):
        return 14 if rank(c) == 1 else rank(c)

    def is_match(card, cards):
        return (len(cards) == 1 and rank(cards[0]) == rank(card)) or sum(tval(x) for x in cards) == hval(card)

    def partitions(items):
        if not items:
            yield []
            return
        first, rest = items[0], items[1:]
        for k in range(len(rest) + 1):
            for comb in itertools.combinations(range(len(rest)), k):
                block = [first] + [rest[i] for i in comb]
                others = [rest[i] for i in range(len(rest)) if i not in comb]
                for p in partitions(others):
                    yield [block] + p

    out = set()
    positions = range(len(table))
    for card in set(hand):
        for k in range(len(table) + 1):
            for U in itertools.combinations(positions, k):
                rest = [table[i] for i in positions if i not in U]
                if any(is_match(card, list(sub)) for j in range(1, len(rest) + 1)
                       for sub in itertools.combinations(rest, j)):
                    continue
                cards = [table[i] for i in U]
                if any(all(is_match(card, b) for b in p) for p in partitions(cards)):
                    out.add((card, "capture" if U else "trail", tuple(by_index(cards))))
    clearing = {m for m in out if table and len(m[2]) == len(table)}
    return clearing or out


def test_captures_match_brute_force():
    rng = random.Random(3)
    deck = [c for c in ALL52 for _ in range(2)]
    for _ in range(250):
        rng.shuffle(deck)
        t = rng.randint(0, 7)
        table, hand = deck[:t], deck[t:t + 4]
        cnt = collections.Counter(table + hand)
        rest = [c for c in ALL52 for _ in range(2 - cnt[c])]
        s = position(hands=[hand, rest[:4]], table=table, piles=[[], rest[4:]], rest_to=1)
        assert summary(moves_of(s)) == brute_force_moves(hand, table), (hand, table)


def test_large_table_is_fast_enough():
    """Fourteen cards on the table (A..K of hearts and AD): the generator copes in reasonable time."""
    import time
    table = [r + "H" for r in RANKS] + ["AD"]
    s = position(hands=[["AS", "7S", "KS", "5S"], ["2C", "3C", "4C", "5C"]], table=table)
    t0 = time.time()
    ms = moves_of(s)
    assert time.time() - t0 < 20
    assert ms and all(m.kind == "capture" for m in ms)


# ---------------------------------------------------------------------------------------------------------
# Invariants over whole random rounds
# ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", sorted(DEAL_TABLE))
def test_invariants_random_rounds(fmt):
    n = DEAL_TABLE[fmt][0]
    for seed in range(200):
        s = R.initial_state(fmt, seed * 7919 + 1)
        rng = Stream(fmix(seed ^ 0xD1B54A32D192ED03))
        plays = 0
        while not s["over"]:
            ms = moves_of(s)
            assert ms, "always a legal move"
            assert len({m.tabbe > 0 for m in ms}) == 1           # N3: all tabbes or none
            captures = {m.card for m in ms if m.kind == "capture"}
            trails = [m.card for m in ms if m.kind == "trail"]
            assert not captures & set(trails) and len(trails) == len(set(trails))   # N2, P7
            m = R.choose("random", ms, rng.next())
            s = m.result
            plays += 1
            assert_104(s)
            assert sum(p + q for p, q in s["tabbe"]) == 0
            assert all(c[:-1] in ("J", "Q", "K") for c in s["set_aside"])
        assert plays == 104 - DEAL_TABLE[fmt][2]
        sc = R.score(s)
        assert sum(x["total"] for x in sc) == 43
        assert sum(x["card_points"] for x in sc) == 42 and sum(x["last_point"] for x in sc) == 1
        assert sum(x["tabbe_plus"] + x["tabbe_minus"] for x in sc) == 0
        assert not any(c.endswith("S") for c in s["set_aside"])
