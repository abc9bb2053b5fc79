"""Scenario tests of the 1v1 rulings (docs/rules/khasino.md K1-K14, docs/rules/project.md P1-P7
and the formats' table of docs/rules/khasino.md).

Every position is built by hand with `tests.helpers.position`; expectations come from the rules pages
(docs/rules/khasino.md, restating sources 000 khasino and 001 durban, and docs/rules/project.md), never from
the implementation.
Each test's name cites the ruling(s) it checks.
"""
import json
import random

import pytest

from khasino_sim.engine import legal_moves, new_game, play_game, scores
from khasino_sim.state_json import StateError, from_json
from tests.helpers import position

FORMATS = ("khasino", "durban")
RANKS = ["A"] + [str(r) for r in range(2, 11)]
SUITS = "SHDC"
DECK40 = [r + s for r in RANKS for s in SUITS]          # card-index order (RULES.md "Cards")


def all_cards(st):
    cards = [c for h in st["hands"] for c in h] + list(st["table"]["loose"]) + list(st["stock"])
    cards += [c for b in st["table"]["builds"] for g in b["groups"] for c in g]
    cards += [c for p in st["piles"] for c in p]
    return cards


# ---------------------------------------------------------------------------------------------- helpers


def moves(state, card=None, kind=None):
    """legal_moves, with every result checked: a valid state (ENGINE.md), one card played (K3), the turn
    passed, all 40 cards still present, distinct positions (P7). Optionally filtered by card and kind."""
    ms = legal_moves(state)
    p = state["to_move"]
    results = set()
    for m in ms:
        r = m.result
        from_json(r)                                   # raises StateError when the successor is invalid
        assert sorted(all_cards(r)) == sorted(DECK40), m.text
        assert m.card in state["hands"][p], m.text
        assert "fallback" not in m.text, f"K11 fallback used in a position with legal moves: {m.text}"
        if not r.get("over") and r["deal"] == state["deal"]:
            # K3: exactly one hand card was played; the other hand is untouched; turn passes
            assert sorted(r["hands"][p]) == sorted(c for c in state["hands"][p] if c != m.card), m.text
            assert sorted(r["hands"][1 - p]) == sorted(state["hands"][1 - p]), m.text
            assert r["to_move"] == 1 - p
            results.add(json.dumps(r, sort_keys=True))
    n_plain = sum(1 for m in ms if not m.result.get("over") and m.result["deal"] == state["deal"])
    assert len(results) == n_plain, "P7: two listed moves lead to the same position"
    assert len({m.key for m in ms}) == len(ms), "P7: duplicate move keys"
    return [m for m in ms if (card is None or m.card == card) and (kind is None or m.kind == kind)]


def bld(v, owner, *groups):
    """A build, normalised: (value, owner, set of groups as card sets)."""
    return (v, owner, frozenset(frozenset(g) for g in groups))


def builds_of(st):
    return frozenset(bld(b["value"], b["owner"], *b["groups"]) for b in st["table"]["builds"])


def gained(state, m):
    """Cards the move put onto the mover's pile (capture), as a set."""
    p = state["to_move"]
    return frozenset(m.result["piles"][p][len(state["piles"][p]):])


def outcome(state, m):
    """(card, kind, builds, loose, cards gained by the mover's pile) after a move, as sets."""
    r = m.result
    return (m.card, m.kind, builds_of(r), frozenset(r["table"]["loose"]), gained(state, m))


def outcomes(state, card=None, kind=None):
    return {outcome(state, m) for m in moves(state, card, kind)}


def O(card, kind, builds=(), loose=(), gain=()):
    return (card, kind, frozenset(builds), frozenset(loose), frozenset(gain))


def kinds(state, card=None):
    return {m.kind for m in moves(state, card)}


def trails(state):
    return {m.card for m in moves(state, kind="trail")}


def finished(p0, p1, fmt="khasino", last=0):
    """A finished game (K12 done): empty hands and table, the whole deck in two piles."""
    assert sorted(p0 + p1) == sorted(DECK40)
    return {"format": fmt, "deal": 2, "to_move": None, "over": True, "hands": [[], []],
            "table": {"loose": [], "builds": []}, "piles": [p0, p1], "stock": [], "last_capturer": last}


# ---------------------------------------------------------------------------------------------- K1, K14


@pytest.mark.parametrize("fmt", FORMATS)
def test_K1_K14_new_game_deals_40_cards_A_to_10_and_empty_table(fmt):
    for seed in (0, 1, 12345):
        st = new_game(fmt, seed=seed)
        assert sorted(all_cards(st)) == sorted(DECK40)          # K1: 40 cards, A-10 in four suits
        assert len(st["hands"][0]) == len(st["hands"][1]) == 10  # K14: 10 each
        assert len(st["stock"]) == 20
        assert st["table"] == {"loose": [], "builds": []}        # K1: no table cards in 1v1
        assert st["piles"] == [[], []] and st["last_capturer"] is None
        assert st["deal"] == 1 and st["to_move"] == 0            # K14: seat 0 leads


def test_K1_face_cards_are_not_in_the_khasino_deck():
    st = position("khasino", hands=(["JS", "5H"], ["2C", "3C"]))
    with pytest.raises(StateError):
        legal_moves(st)


@pytest.mark.parametrize("fmt", FORMATS)
def test_K14_scripted_deck_deals_0_9_then_10_19_and_stock_20_39(fmt):
    deck = list(DECK40)
    random.Random(7).shuffle(deck)
    st = new_game(fmt, seed=0, deck=deck)
    assert set(st["hands"][0]) == set(deck[0:10])
    assert set(st["hands"][1]) == set(deck[10:20])
    assert st["stock"] == deck[20:40]
    assert st["deal"] == 1 and st["to_move"] == 0
    # play the first deal out (first listed move each turn); the second deal gives stock[0:10] to seat 0,
    # stock[10:20] to seat 1, seat 0 leads again, and the table is carried over untouched
    for ply in range(20):
        assert st["deal"] == 1 and st["to_move"] == ply % 2
        ms = moves(st)
        m = ms[0]
        st_next = m.result
        if ply < 19:
            assert st_next["deal"] == 1
        st = st_next
    assert st["deal"] == 2 and st["to_move"] == 0 and st["stock"] == []
    assert set(st["hands"][0]) == set(deck[20:30])
    assert set(st["hands"][1]) == set(deck[30:40])
    # play the second deal out: the game ends after 40 cards in all
    for ply in range(20):
        assert st["deal"] == 2 and st["to_move"] == ply % 2 and not st.get("over")
        st = moves(st)[-1].result
    assert st["over"] is True and st["to_move"] is None
    assert sum(len(p) for p in st["piles"]) == 40


@pytest.mark.parametrize("fmt", FORMATS)
def test_K14_second_deal_after_last_card_of_first_deal_table_untouched(fmt):
    st = position(fmt, hands=([], ["9D"]), loose=["3S", "7H"], piles=(["4C"], []), to_move=1, deal=1,
                  last_capturer=0)
    stock = list(st["stock"])
    assert len(stock) == 20
    (m,) = moves(st)                        # 9D: no capture, no build (nothing kept): trail only
    assert m.kind == "trail"
    r = m.result
    assert r["deal"] == 2 and r["to_move"] == 0 and r["stock"] == [] and not r["over"]
    assert set(r["hands"][0]) == set(stock[0:10])
    assert set(r["hands"][1]) == set(stock[10:20])
    assert set(r["table"]["loose"]) == {"3S", "7H", "9D"} and r["table"]["builds"] == []
    assert r["piles"] == st["piles"]          # no sweep between deals
    assert r["last_capturer"] == 0


# ---------------------------------------------------------------------------------------------- K2


def test_K2_and_P1_invalid_states_are_rejected():
    ok = position("khasino", hands=(["9C", "2H"], ["9D", "3H"]), builds=[(9, 0, [["5S", "4S"]])])
    legal_moves(ok)
    bad = [
        # two builds of one value (K2)
        position("khasino", hands=(["9C", "2H"], ["9D", "3H"]),
                 builds=[(9, 0, [["5S", "4S"]]), (9, 1, [["6S", "3S"]])]),
        # a group that does not sum to the build's value (K2)
        position("khasino", hands=(["9C", "2H"], ["9D", "3H"]), builds=[(9, 0, [["5S", "3S"]])]),
        # the owner holds no card of the build's value (P1)
        position("khasino", hands=(["8C", "2H"], ["9D", "3H"]), builds=[(9, 0, [["5S", "4S"]])]),
        # durban: one player owning two builds (K5, P6)
        position("durban", hands=(["9C", "7H"], ["9D", "3H"]),
                 builds=[(9, 0, [["5S", "4S"]]), (7, 0, [["6S", "AS"]])]),
        # hand sizes that do not fit the turn (seat 0 to move: equal hands)
        position("khasino", hands=(["9C", "2H"], ["9D"])),
        position("khasino", hands=(["9C"], ["9D"]), to_move=1),
    ]
    for st in bad:
        with pytest.raises(StateError):
            legal_moves(st)
    # a khasino player may own two builds
    legal_moves(position("khasino", hands=(["9C", "7H"], ["9D", "3H"]),
                         builds=[(9, 0, [["5S", "4S"]]), (7, 0, [["6S", "AS"]])]))


@pytest.mark.parametrize("fmt", FORMATS)
def test_K2_K6_group_of_an_existing_build_value_is_a_load_not_a_new_build(fmt):
    # own build 9: hand 5 + loose 4 adds a group; there is never a second build 9
    st = position(fmt, hands=(["5H", "9C"], ["2C", "3C"]), loose=["4C"], builds=[(9, 0, [["5S", "4S"]])])
    assert outcomes(st, "5H") - outcomes(st, "5H", "trail") == {
        O("5H", "load", [bld(9, 0, ["5S", "4S"], ["5H", "4C"])]),
    }
    # opponent's build 9: the same play loads it, the owner stays seat 1 (K6)
    st = position(fmt, hands=(["5H", "9C"], ["9D", "3C"]), loose=["4C"], builds=[(9, 1, [["5S", "4S"]])])
    assert outcomes(st, "5H") - outcomes(st, "5H", "trail") == {
        O("5H", "load", [bld(9, 1, ["5S", "4S"], ["5H", "4C"])]),
    }


# ---------------------------------------------------------------------------------------------- K4, P3


@pytest.mark.parametrize("fmt", FORMATS)
def test_K4_P3_seed001_eight_captures_loose_8_and_separate_5_plus_3(fmt):
    # source 001 (K4): "Play an 8 to capture a loose 8 and a separate 5 + 3 unit in the same turn."
    st = position(fmt, hands=(["8H", "2S"], ["9D", "10D"]), loose=["8D", "5C", "3C"])
    assert outcomes(st, "8H", "capture") == {
        O("8H", "capture", [], ["5C", "3C"], ["8D", "8H"]),                 # P3: partial captures
        O("8H", "capture", [], ["8D"], ["5C", "3C", "8H"]),
        O("8H", "capture", [], [], ["8D", "5C", "3C", "8H"]),              # both units in one turn
    }
    for m in moves(st, "8H", "capture"):
        assert m.result["piles"][0][-1] == "8H"                           # K10: played card on top
        assert m.result["last_capturer"] == 0


@pytest.mark.parametrize("fmt", FORMATS)
def test_K4_build_is_taken_whole_by_its_value_any_owner(fmt):
    # opponent's build 9 (5C+4C): a 9 takes it whole; a 5 or 4 cannot take part of it
    st = position(fmt, hands=(["9H", "5H", "4H"], ["9D", "2D", "3D"]), builds=[(9, 1, [["5C", "4C"]])])
    assert outcomes(st, "9H", "capture") == {O("9H", "capture", [], [], ["5C", "4C", "9H"])}
    assert moves(st, "5H", "capture") == [] and moves(st, "4H", "capture") == []
    # own build: capturable too
    st = position(fmt, hands=(["9H", "9S"], ["2D", "3D"]), builds=[(9, 0, [["5C", "4C"]])])
    assert O("9H", "capture", [], [], ["5C", "4C", "9H"]) in outcomes(st, "9H", "capture")


@pytest.mark.parametrize("fmt", FORMATS)
def test_K4_pile_cards_alone_are_no_capture(fmt):
    # only an exposed opponent pile 7D matches the 7H: no capture at all (table-grounded)
    st = position(fmt, hands=(["7H", "2S"], ["9D", "10D"]), piles=([], ["7D"]))
    assert moves(st, "7H", "capture") == []
    # with a loose 7C the pile card may join as its own group (P4)
    st = position(fmt, hands=(["7H", "2S"], ["9D", "10D"]), loose=["7C"], piles=([], ["7D"]))
    assert outcomes(st, "7H", "capture") == {
        O("7H", "capture", [], [], ["7C", "7H"]),
        O("7H", "capture", [], [], ["7C", "7D", "7H"]),
    }
    # a loose 3C grounds a group completed by the exposed 4D
    st = position(fmt, hands=(["7H", "2S"], ["9D", "10D"]), loose=["3C"], piles=([], ["4D"]))
    assert outcomes(st, "7H", "capture") == {O("7H", "capture", [], [], ["3C", "4D", "7H"])}
    (m,) = moves(st, "7H", "capture")
    assert m.result["piles"][1] == []                                       # K8: the pile card moved


@pytest.mark.parametrize("fmt", FORMATS)
def test_K4_P4_build_capture_grounds_a_pile_only_group(fmt):
    st = position(fmt, hands=(["9H", "2S"], ["9D", "10D"]), builds=[(9, 1, [["5C", "4C"]])],
                  piles=([], ["9S"]))
    assert outcomes(st, "9H", "capture") == {
        O("9H", "capture", [], [], ["5C", "4C", "9H"]),
        O("9H", "capture", [], [], ["5C", "4C", "9S", "9H"]),
    }


@pytest.mark.parametrize("fmt", FORMATS)
def test_K4_each_card_in_only_one_unit(fmt):
    # 8H, loose 5C 3C 3D: 5C+3C or 5C+3D, never both (the 5C would be used twice)
    st = position(fmt, hands=(["8H", "2S"], ["9D", "10D"]), loose=["5C", "3C", "3D"])
    assert outcomes(st, "8H", "capture") == {
        O("8H", "capture", [], ["3D"], ["5C", "3C", "8H"]),
        O("8H", "capture", [], ["3C"], ["5C", "3D", "8H"]),
    }


# ---------------------------------------------------------------------------------------------- K5


@pytest.mark.parametrize("fmt", FORMATS)
def test_K5_seed000_hand5_loose4_builds_9_only_while_a_9_is_kept(fmt):
    st = position(fmt, hands=(["5H", "9C"], ["2C", "3C"]), loose=["4C"])
    assert outcomes(st, "5H", "build") == {O("5H", "build", [bld(9, 0, ["5H", "4C"])])}
    st = position(fmt, hands=(["5H", "8C"], ["2C", "3C"]), loose=["4C"])
    assert moves(st, "5H", "build") == []


@pytest.mark.parametrize("fmt", FORMATS)
def test_K5_seed000_hand5_loose5_is_build5_compound_or_build10_simple(fmt):
    st = position(fmt, hands=(["5H", "5S", "10C"], ["2C", "3C", "4D"]), loose=["5C"])
    assert outcomes(st, "5H", "build") == {
        O("5H", "build", [bld(5, 0, ["5H"], ["5C"])]),          # compound Build 5, another 5 kept
        O("5H", "build", [bld(10, 0, ["5H", "5C"])]),           # simple Build 10, a 10 kept
    }
    st = position(fmt, hands=(["5H", "5S", "7S"], ["2C", "3C", "4D"]), loose=["5C"])
    assert outcomes(st, "5H", "build") == {O("5H", "build", [bld(5, 0, ["5H"], ["5C"])])}
    st = position(fmt, hands=(["5H", "10C", "7S"], ["2C", "3C", "4D"]), loose=["5C"])
    assert outcomes(st, "5H", "build") == {O("5H", "build", [bld(10, 0, ["5H", "5C"])])}


@pytest.mark.parametrize("fmt", FORMATS)
def test_K5_K7_seed000_ace_plus_ace_is_compound_build_A_and_cannot_be_changed(fmt):
    st = position(fmt, hands=(["AH", "AS"], ["2D", "3D"]), loose=["AC"])
    (m,) = moves(st, "AH", "build")
    assert builds_of(m.result) == {bld(1, 0, ["AH"], ["AC"])}
    assert len(m.result["table"]["builds"][0]["groups"]) == 2          # compound: two groups
    # the opponent holds 2D and 3D: adding 2D would make 3, but a compound build cannot be changed
    after = m.result
    assert after["to_move"] == 1
    assert {(x.card, x.kind) for x in moves(after)} == {("2D", "trail"), ("3D", "trail")}
    # without another ace kept there is no Build A (and no Build 2 without a 2)
    st = position(fmt, hands=(["AH", "7S"], ["2D", "3D"]), loose=["AC"])
    assert moves(st, "AH", "build") == []


@pytest.mark.parametrize("fmt", FORMATS)
def test_K5_new_build_needs_a_loose_card_pile_cards_only_join(fmt):
    # only the opponent's exposed 4D would make 5+4: no new build from a pile card alone
    st = position(fmt, hands=(["5H", "9C"], ["2C", "3C"]), piles=([], ["4D"]))
    assert moves(st, "5H", "build") == []
    # loose 2C + exposed 4D + played 3H: one group of 9 holding a loose card
    st = position(fmt, hands=(["3H", "9C"], ["2D", "3C"]), loose=["2C"], piles=([], ["4D"]))
    assert outcomes(st, "3H", "build") == {O("3H", "build", [bld(9, 0, ["4D", "3H", "2C"])])}
    (m,) = moves(st, "3H", "build")
    assert m.result["piles"][1] == []                                   # K8: pile card went to the table
    # P4: a pile card may be a group of its own in a new build that holds a loose card
    st = position(fmt, hands=(["5H", "9C"], ["2D", "3C"]), loose=["4C"], piles=([], ["9D"]))
    assert outcomes(st, "5H", "build") == {
        O("5H", "build", [bld(9, 0, ["5H", "4C"])]),
        O("5H", "build", [bld(9, 0, ["5H", "4C"], ["9D"])]),
    }


@pytest.mark.parametrize("fmt", FORMATS)
def test_K5_P7_build_with_two_groups_at_once(fmt):
    # hand 5 + loose 4 and the separate loose 6+3: Build 9 simple, or compound with both groups.
    # (khasino: building 5+4 and then adding 6+3 as a follow-up is the same position, one move: P7)
    st = position(fmt, hands=(["5H", "9C"], ["2C", "2D"]), loose=["4C", "6D", "3D"])
    assert outcomes(st, "5H", "build") == {
        O("5H", "build", [bld(9, 0, ["5H", "4C"])], ["6D", "3D"]),
        O("5H", "build", [bld(9, 0, ["5H", "4C"], ["6D", "3D"])]),
    }


def test_K5_seed001_durban_play_2_on_loose_4_keeping_6_makes_build_6():
    st = position("durban", hands=(["2H", "6C"], ["9D", "10D"]), loose=["4S"])
    assert outcomes(st, "2H", "build") == {O("2H", "build", [bld(6, 0, ["4S", "2H"])])}
    (m,) = moves(st, "2H", "build")
    assert m.result["table"]["builds"][0]["owner"] == 0


@pytest.mark.parametrize("fmt,allowed", [("khasino", True), ("durban", False)])
def test_K5_P6_durban_owns_one_build_khasino_unlimited(fmt, allowed):
    st = position(fmt, hands=(["9C", "3H", "7D"], ["2D", "2C", "10D"]), loose=["4S"],
                  builds=[(9, 0, [["5S", "4H"]])])
    expect = {O("3H", "build", [bld(9, 0, ["5S", "4H"]), bld(7, 0, ["4S", "3H"])])} if allowed else set()
    got = {o for o in outcomes(st, "3H", "build")
           if o[2] == frozenset([bld(9, 0, ["5S", "4H"]), bld(7, 0, ["4S", "3H"])])}
    assert got == expect


# ---------------------------------------------------------------------------------------------- K6


@pytest.mark.parametrize("fmt", FORMATS)
def test_K6_seed001_add_a_9_directly_to_build_9_while_another_9_is_kept(fmt):
    st = position(fmt, hands=(["9H", "9S"], ["2D", "3D"]), builds=[(9, 0, [["5C", "4C"]])])
    assert outcomes(st, "9H", "load") == {O("9H", "load", [bld(9, 0, ["5C", "4C"], ["9H"])])}
    # the last 9 cannot be dropped onto the build (K6 commitment); it can only capture it
    st = position(fmt, hands=(["9H", "2S"], ["2D", "3D"]), builds=[(9, 0, [["5C", "4C"]])])
    assert outcomes(st, "9H") == {O("9H", "capture", [], [], ["5C", "4C", "9H"])}


@pytest.mark.parametrize("fmt", FORMATS)
def test_K6_seed001_augment_with_3_plus_6_unit(fmt):
    # "Add 3 + 6 as another unit in Build 9": played 3 + loose 6
    st = position(fmt, hands=(["3H", "9S"], ["2D", "2C"]), loose=["6D"], builds=[(9, 0, [["5C", "4C"]])])
    assert outcomes(st, "3H", "load") == {O("3H", "load", [bld(9, 0, ["5C", "4C"], ["3H", "6D"])])}
    # the 6 may come from the opponent's exposed pile card (K8; a load is grounded by its build, P4)
    st = position(fmt, hands=(["3H", "9S"], ["2D", "2C"]), piles=([], ["6D"]), builds=[(9, 0, [["5C", "4C"]])])
    assert outcomes(st, "3H", "load") == {O("3H", "load", [bld(9, 0, ["5C", "4C"], ["3H", "6D"])])}
    (m,) = moves(st, "3H", "load")
    assert m.result["piles"][1] == []


@pytest.mark.parametrize("fmt", FORMATS)
def test_K6_loading_the_opponents_build_keeps_its_owner_and_needs_the_card_kept(fmt):
    st = position(fmt, hands=(["5H", "9C"], ["9D", "3D"]), loose=["4S"], builds=[(9, 1, [["5C", "4C"]])])
    assert outcomes(st, "5H", "load") == {O("5H", "load", [bld(9, 1, ["5C", "4C"], ["5H", "4S"])])}
    st = position(fmt, hands=(["5H", "8C"], ["9D", "3D"]), loose=["4S"], builds=[(9, 1, [["5C", "4C"]])])
    assert moves(st, "5H", "load") == []
    assert moves(st, "5H", "build") == []            # and never a second build 9 (K2)


@pytest.mark.parametrize("fmt", FORMATS)
def test_K6_P6_durban_owner_may_still_load_the_opponents_build(fmt):
    # seat 0 owns Build 3 and loads seat 1's Build 9 with 5H+4S, keeping 9C: allowed in both formats
    st = position(fmt, hands=(["5H", "9C", "3H"], ["9D", "3D", "2D"]), loose=["4S"],
                  builds=[(3, 0, [["2S", "AS"]]), (9, 1, [["5C", "4C"]])])
    assert O("5H", "load", [bld(3, 0, ["2S", "AS"]), bld(9, 1, ["5C", "4C"], ["5H", "4S"])]) \
        in outcomes(st, "5H", "load")


@pytest.mark.parametrize("fmt", FORMATS)
def test_K6_any_build_may_be_loaded_even_an_opponents_compound_build(fmt):
    st = position(fmt, hands=(["3H", "5H"], ["5S", "9D"]), loose=["2S"], builds=[(5, 1, [["5C"], ["5D"]])])
    assert outcomes(st, "3H", "load") == {O("3H", "load", [bld(5, 1, ["5C"], ["5D"], ["3H", "2S"])])}


@pytest.mark.parametrize("fmt", FORMATS)
def test_K6_load_with_the_played_card_alone_plus_more_loose_groups(fmt):
    # 9H (another 9 kept) onto own Build 9, optionally with the loose 6D+3D as a second new group
    st = position(fmt, hands=(["9H", "9S"], ["2D", "2C"]), loose=["6D", "3D"], builds=[(9, 0, [["5C", "4C"]])])
    assert outcomes(st, "9H", "load") == {
        O("9H", "load", [bld(9, 0, ["5C", "4C"], ["9H"])], ["6D", "3D"]),
        O("9H", "load", [bld(9, 0, ["5C", "4C"], ["9H"], ["6D", "3D"])]),
    }


@pytest.mark.parametrize("fmt", FORMATS)
def test_K6_K8_load_uses_exposed_then_next_pile_card_in_separate_groups(fmt):
    # opponent pile bottom..top 7D, 6D: 3H+6D, then 2C+7D once 6D is used
    st = position(fmt, hands=(["3H", "9C"], ["2D", "5D"]), loose=["2C"], piles=([], ["7D", "6D"]),
                  builds=[(9, 0, [["5S", "4S"]])])
    assert outcomes(st, "3H", "load") == {
        O("3H", "load", [bld(9, 0, ["5S", "4S"], ["3H", "6D"])], ["2C"]),
        O("3H", "load", [bld(9, 0, ["5S", "4S"], ["3H", "6D"], ["2C", "7D"])]),
    }


# ---------------------------------------------------------------------------------------------- K7


@pytest.mark.parametrize("fmt", FORMATS)
def test_K7_seed000_ace_raises_opponents_4_plus_5_to_10_while_a_10_is_kept(fmt):
    st = position(fmt, hands=(["AH", "10S"], ["9D", "2S"]), builds=[(9, 1, [["5C", "4C"]])])
    assert outcomes(st, "AH", "change") == {O("AH", "change", [bld(10, 0, ["5C", "4C", "AH"])])}
    (m,) = moves(st, "AH", "change")
    (b,) = m.result["table"]["builds"]
    assert len(b["groups"]) == 1 and b["owner"] == 0                  # stays simple, passes to the changer
    # no 10 kept: no change
    st = position(fmt, hands=(["AH", "8S"], ["9D", "2S"]), builds=[(9, 1, [["5C", "4C"]])])
    assert moves(st, "AH", "change") == []


@pytest.mark.parametrize("fmt", FORMATS)
def test_K7_seed000_no_raising_your_own_build(fmt):
    st = position(fmt, hands=(["AH", "10S", "9D"], ["2S", "3S", "4S"]), builds=[(9, 0, [["5C", "4C"]])])
    assert moves(st, kind="change") == []
    for m in moves(st, "AH"):
        assert all(b["value"] != 10 for b in m.result["table"]["builds"])


@pytest.mark.parametrize("fmt", FORMATS)
def test_K7_seed000_no_changing_a_compound_build(fmt):
    st = position(fmt, hands=(["4H", "9C"], ["5S", "2S"]), builds=[(5, 1, [["5C"], ["5D"]])])
    assert moves(st, kind="change") == []
    st = position(fmt, hands=(["AH", "10S"], ["9D", "2S"]), builds=[(9, 1, [["5C", "4C"], ["6C", "3C"]])])
    assert moves(st, kind="change") == []


@pytest.mark.parametrize("fmt", FORMATS)
def test_K7_seed001_add_a_2_to_opponents_build_6_keeping_an_8(fmt):
    st = position(fmt, hands=(["2C", "8D"], ["6D", "9S"]), builds=[(6, 1, [["4H", "2H"]])])
    assert outcomes(st, "2C", "change") == {O("2C", "change", [bld(8, 0, ["4H", "2H", "2C"])])}


@pytest.mark.parametrize("fmt,allowed", [("khasino", False), ("durban", True)])
def test_K7_flag_khasino_changes_two_card_builds_only_durban_any_simple(fmt, allowed):
    st = position(fmt, hands=(["AH", "10S"], ["9D", "2S"]), builds=[(9, 1, [["4C", "3C", "2C"]])])
    expect = {O("AH", "change", [bld(10, 0, ["4C", "3C", "2C", "AH"])])} if allowed else set()
    assert outcomes(st, "AH", "change") == expect


@pytest.mark.parametrize("fmt,allowed", [("khasino", False), ("durban", True)])
def test_K7_flag_durban_change_may_add_loose_and_pile_cards(fmt, allowed):
    # played AC alone makes 7 (no 7 kept); AC + loose AS makes 8 (8 kept): durban only
    st = position(fmt, hands=(["AC", "8D"], ["6D", "9S"]), loose=["AS"], builds=[(6, 1, [["4H", "2H"]])])
    expect = {O("AC", "change", [bld(8, 0, ["4H", "2H", "AC", "AS"])])} if allowed else set()
    assert outcomes(st, "AC", "change") == expect
    # the same with the opponent's exposed pile card AD
    st = position(fmt, hands=(["AC", "8D"], ["6D", "9S"]), piles=([], ["AD"]), builds=[(6, 1, [["4H", "2H"]])])
    expect = {O("AC", "change", [bld(8, 0, ["4H", "2H", "AC", "AD"])])} if allowed else set()
    assert outcomes(st, "AC", "change") == expect
    if allowed:
        (m,) = moves(st, "AC", "change")
        assert m.result["piles"][1] == []


def test_K7_new_value_at_most_10_and_not_the_value_of_another_build():
    # own Build 10 on the table: raising the opponent's 9 to 10 is not allowed
    st = position("khasino", hands=(["AH", "10H"], ["9D", "2S"]),
                  builds=[(9, 1, [["5C", "4C"]]), (10, 0, [["6S", "4S"]])])
    assert moves(st, kind="change") == []
    # a 2 on a Build 9 would make 11
    st = position("khasino", hands=(["2H", "10H"], ["9D", "2S"]), builds=[(9, 1, [["5C", "4C"]])])
    assert moves(st, kind="change") == []


@pytest.mark.parametrize("fmt,allowed", [("khasino", True), ("durban", False)])
def test_K7_P6_durban_build_owner_cannot_change_an_opponents_build(fmt, allowed):
    st = position(fmt, hands=(["AH", "10S", "3H"], ["9D", "2D", "7D"]),
                  builds=[(3, 0, [["2S", "AS"]]), (9, 1, [["5C", "4C"]])])
    expect = {O("AH", "change", [bld(3, 0, ["2S", "AS"]), bld(10, 0, ["5C", "4C", "AH"])])} if allowed else set()
    assert outcomes(st, "AH", "change") == expect


def test_K7_K8_durban_change_uses_at_most_one_pile_card():
    # opponent pile bottom..top AS, AD: 6 + AC + AD + AS = 9 would put two pile cards in the one group
    st = position("durban", hands=(["AC", "9C"], ["6D", "9S"]), piles=([], ["AS", "AD"]),
                  builds=[(6, 1, [["4H", "2H"]])])
    assert moves(st, "AC", "change") == []
    # with an 8 kept instead, AC + AD makes 8
    st = position("durban", hands=(["AC", "8C"], ["6D", "9S"]), piles=([], ["AS", "AD"]),
                  builds=[(6, 1, [["4H", "2H"]])])
    assert outcomes(st, "AC", "change") == {O("AC", "change", [bld(8, 0, ["4H", "2H", "AC", "AD"])])}


# ---------------------------------------------------------------------------------------------- K8


@pytest.mark.parametrize("fmt", FORMATS)
def test_K8_exposed_pile_card_then_the_one_under_it_in_another_group_never_two_in_one(fmt):
    # opponent pile bottom..top: AD, 2D. 8H can take 6C+2D, and then 7C+AD (AD exposed by using 2D).
    # 5C+2D+AD would put two pile cards (one covered) in one group: never.
    st = position(fmt, hands=(["8H", "10S"], ["3S", "4S"]), loose=["6C", "5C", "7C"], piles=([], ["AD", "2D"]))
    assert outcomes(st, "8H", "capture") == {
        O("8H", "capture", [], ["5C", "7C"], ["6C", "2D", "8H"]),
        O("8H", "capture", [], ["5C"], ["6C", "2D", "7C", "AD", "8H"]),
    }
    n = len(st["piles"][0])
    piles_after = {tuple(m.result["piles"][0][n:]): m.result["piles"][1] for m in moves(st, "8H", "capture")}
    assert piles_after == {
        ("6C", "2D", "8H"): ["AD"],
        # K10: groups in canonical order (7C, the highest card index, first), higher rank under
        ("7C", "AD", "6C", "2D", "8H"): [],
    }


@pytest.mark.parametrize("fmt", FORMATS)
def test_K8_never_your_own_pile(fmt):
    st = position(fmt, hands=(["8H", "10S"], ["3S", "4S"]), loose=["7C"], piles=(["AC"], ["2H"]),
                  last_capturer=0)
    assert moves(st, "8H", "capture") == []
    # same cards, the AC on the opponent's pile: now 8H takes 7C+AC
    st = position(fmt, hands=(["8H", "10S"], ["3S", "4S"]), loose=["7C"], piles=(["2H"], ["AC"]),
                  last_capturer=0)
    assert outcomes(st, "8H", "capture") == {O("8H", "capture", [], [], ["7C", "AC", "8H"])}


# ---------------------------------------------------------------------------------------------- K9, P5


def k9_position(fmt):
    # seat 0 owns Build 9 (5S+4S), keeps 9C; plays 7H to capture 7D; 6D+3D could follow to Build 9
    return position(fmt, hands=(["9C", "7H"], ["2D", "3C"]), loose=["7D", "6D", "3D"],
                    builds=[(9, 0, [["5S", "4S"]])])


def test_K9_khasino_capture_then_table_only_group_to_own_build():
    st = k9_position("khasino")
    assert outcomes(st, "7H") == {
        O("7H", "capture", [bld(9, 0, ["5S", "4S"])], ["6D", "3D"], ["7D", "7H"]),
        O("7H", "capture", [bld(9, 0, ["5S", "4S"], ["6D", "3D"])], [], ["7D", "7H"]),
    }


def test_K9_durban_has_no_follow_ups():
    st = k9_position("durban")
    assert outcomes(st, "7H") == {
        O("7H", "capture", [bld(9, 0, ["5S", "4S"])], ["6D", "3D"], ["7D", "7H"]),
        O("7H", "trail", [bld(9, 0, ["5S", "4S"])], ["7D", "6D", "3D", "7H"]),     # K11: durban trails
    }


def test_K9_P5_follow_up_groups_are_loose_only_and_to_own_builds_only():
    # 6C on the opponent's pile + loose 3D: not a follow-up (loose cards only)
    st = position("khasino", hands=(["9C", "7H"], ["2D", "3C"]), loose=["7D", "3D"], piles=([], ["6C"]),
                  builds=[(9, 0, [["5S", "4S"]])])
    assert outcomes(st, "7H") == {O("7H", "capture", [bld(9, 0, ["5S", "4S"])], ["3D"], ["7D", "7H"])}
    # the opponent's build 9: no follow-up onto it, and none creates a build
    st = position("khasino", hands=(["9C", "7H"], ["9D", "3C"]), loose=["7D", "6D", "3D"],
                  builds=[(9, 1, [["5S", "4S"]])])
    assert outcomes(st, "7H") == {O("7H", "capture", [bld(9, 1, ["5S", "4S"])], ["6D", "3D"], ["7D", "7H"])}
    # no owned build at all, a 9 kept: the capture creates no build
    st = position("khasino", hands=(["9C", "7H"], ["9D", "3C"]), loose=["7D", "6D", "3D"])
    assert outcomes(st, "7H") == {O("7H", "capture", [], ["6D", "3D"], ["7D", "7H"])}


def test_K9_P5_P7_follow_ups_to_several_owned_builds():
    # seat 0 owns Build 9 and Build 7; 8H takes 8D; then any choice of disjoint loose groups may follow:
    # 6D+3D or 6D+3H to Build 9, 4H+3D or 4H+3H to Build 7
    st = position("khasino", hands=(["9C", "7C", "8H"], ["2D", "2C", "10D"]),
                  loose=["8D", "6D", "3D", "4H", "3H"],
                  builds=[(9, 0, [["5S", "4S"]]), (7, 0, [["6S", "AS"]])])
    b9, b7 = ["5S", "4S"], ["6S", "AS"]
    gain = ["8D", "8H"]
    assert outcomes(st, "8H") == {
        O("8H", "capture", [bld(9, 0, b9), bld(7, 0, b7)], ["6D", "3D", "4H", "3H"], gain),
        O("8H", "capture", [bld(9, 0, b9, ["6D", "3D"]), bld(7, 0, b7)], ["4H", "3H"], gain),
        O("8H", "capture", [bld(9, 0, b9, ["6D", "3H"]), bld(7, 0, b7)], ["4H", "3D"], gain),
        O("8H", "capture", [bld(9, 0, b9), bld(7, 0, b7, ["4H", "3D"])], ["6D", "3H"], gain),
        O("8H", "capture", [bld(9, 0, b9), bld(7, 0, b7, ["4H", "3H"])], ["6D", "3D"], gain),
        O("8H", "capture", [bld(9, 0, b9, ["6D", "3D"]), bld(7, 0, b7, ["4H", "3H"])], [], gain),
        O("8H", "capture", [bld(9, 0, b9, ["6D", "3H"]), bld(7, 0, b7, ["4H", "3D"])], [], gain),
    }


def test_K9_no_follow_up_after_a_trail():
    st = position("khasino", hands=(["9C", "2H"], ["2D", "3C"]), loose=["6D", "3D"],
                  builds=[(9, 0, [["5S", "4S"]])])
    assert outcomes(st, "2H") == {O("2H", "trail", [bld(9, 0, ["5S", "4S"])], ["6D", "3D", "2H"])}


def test_K9_P5_follow_up_after_a_build_to_another_owned_build():
    st = position("khasino", hands=(["9C", "3H", "7C"], ["2D", "2C", "10D"]), loose=["4D", "6D", "3D"],
                  builds=[(9, 0, [["5S", "4S"]])])
    got = outcomes(st, "3H", "build")
    assert O("3H", "build", [bld(9, 0, ["5S", "4S"]), bld(7, 0, ["4D", "3H"])], ["6D", "3D"]) in got
    assert O("3H", "build", [bld(9, 0, ["5S", "4S"], ["6D", "3D"]), bld(7, 0, ["4D", "3H"])]) in got


def test_K9_P5_follow_up_after_a_change_to_the_changed_build():
    st = position("khasino", hands=(["AH", "10S"], ["9D", "2S"]), loose=["6D", "4D"],
                  builds=[(9, 1, [["5C", "4C"]])])
    assert outcomes(st, "AH", "change") == {
        O("AH", "change", [bld(10, 0, ["5C", "4C", "AH"])], ["6D", "4D"]),
        O("AH", "change", [bld(10, 0, ["5C", "4C", "AH"], ["6D", "4D"])]),
    }
    st = position("durban", hands=(["AH", "10S"], ["9D", "2S"]), loose=["6D", "4D"],
                  builds=[(9, 1, [["5C", "4C"]])])
    assert outcomes(st, "AH", "change") == {O("AH", "change", [bld(10, 0, ["5C", "4C", "AH"])], ["6D", "4D"])}


# ---------------------------------------------------------------------------------------------- K10


@pytest.mark.parametrize("fmt", FORMATS)
def test_K10_pile_order_build_groups_then_other_groups_then_played_card(fmt):
    # seat 1's Build 8: groups 6S+2S (oldest) and 8D. Loose 5D 3H 7C AC. 8H takes everything.
    st = position(fmt, hands=(["8H", "10S"], ["8C", "3S"]), loose=["5D", "3H", "7C", "AC"],
                  builds=[(8, 1, [["6S", "2S"], ["8D"]])])
    n = len(st["piles"][0])
    full = [m for m in moves(st, "8H", "capture") if len(gained(st, m)) == 8]
    assert len(full) == 1
    # build groups oldest first (higher rank underneath), then the other groups in canonical order
    # (the group holding the highest card index first: 7C+AC before 5D+3H), then the played card on top
    assert full[0].result["piles"][0][n:] == ["6S", "2S", "8D", "7C", "AC", "5D", "3H", "8H"]
    assert full[0].result["table"] == {"loose": [], "builds": []}


@pytest.mark.parametrize("fmt", FORMATS)
def test_K10_within_a_group_higher_rank_under_and_ties_by_suit_order(fmt):
    st = position(fmt, hands=(["8H", "10S"], ["9C", "3S"]), loose=["2H", "2S", "4C"])
    n = len(st["piles"][0])
    (m,) = moves(st, "8H", "capture")
    assert m.result["piles"][0][n:] == ["4C", "2S", "2H", "8H"]
    assert m.result["piles"][0][-1] == "8H"          # the capturing card is the exposed one


def test_K10_conventions_build_and_change_group_order():
    # a new build records its groups in canonical order (the group holding the highest card index first)
    st = position("khasino", hands=(["5H", "9C"], ["2C", "2D"]), loose=["4C", "6D", "3D"])
    (m,) = [x for x in moves(st, "5H", "build") if len(x.result["table"]["builds"][0]["groups"]) == 2]
    assert m.result["table"]["builds"] == [{"value": 9, "owner": 0, "groups": [["6D", "3D"], ["5H", "4C"]]}]
    # a load appends the new group after the existing ones
    st = position("khasino", hands=(["3H", "9S"], ["2D", "2C"]), loose=["6D"], builds=[(9, 0, [["5C", "4C"]])])
    (m,) = moves(st, "3H", "load")
    assert m.result["table"]["builds"] == [{"value": 9, "owner": 0, "groups": [["5C", "4C"], ["6D", "3H"]]}]
    # a change keeps one group: old cards plus the played card, higher rank underneath
    st = position("khasino", hands=(["AH", "10S"], ["9D", "2S"]), builds=[(9, 1, [["5C", "4C"]])])
    (m,) = moves(st, "AH", "change")
    assert m.result["table"]["builds"] == [{"value": 10, "owner": 0, "groups": [["5C", "4C", "AH"]]}]


# ---------------------------------------------------------------------------------------------- K11


def test_K11_khasino_no_trail_of_a_value_loose_or_built():
    st = position("khasino", hands=(["5H", "9C"], ["2C", "3C"]), loose=["5C"])
    assert trails(st) == {"9C"}
    st = position("khasino", hands=(["7H", "2H"], ["7D", "3C"]), builds=[(7, 1, [["4C", "3D"]])])
    assert trails(st) == {"2H"}


def test_K11_durban_always_allows_a_trail():
    st = position("durban", hands=(["5H", "9C"], ["2C", "3C"]), loose=["5C"])
    assert trails(st) == {"5H", "9C"}
    st = position("durban", hands=(["7H", "2H"], ["7D", "3C"]), builds=[(7, 1, [["4C", "3D"]])])
    assert trails(st) == {"7H", "2H"}


@pytest.mark.parametrize("fmt,deal,expect", [
    ("khasino", 1, set()),          # first deal, owning a build: no trail at all
    ("khasino", 2, {"2H"}),         # second deal: allowed (9C is committed, P1)
    ("durban", 1, {"2H"}),          # durban: always allowed
])
def test_K11_no_trail_in_the_first_deal_while_owning_a_build(fmt, deal, expect):
    st = position(fmt, hands=(["9C", "2H"], ["3D", "6D"]), builds=[(9, 0, [["5S", "4S"]])], deal=deal)
    assert trails(st) == expect
    assert moves(st)                 # always some legal move (P1, K11)


def test_K11_first_deal_opponents_build_does_not_block_a_trail():
    st = position("khasino", hands=(["2H", "3H"], ["9C", "6D"]), builds=[(9, 1, [["5S", "4S"]])], deal=1)
    assert trails(st) == {"2H", "3H"}


# ---------------------------------------------------------------------------------------------- K12


@pytest.mark.parametrize("fmt", FORMATS)
def test_K12_last_capturer_takes_the_table_after_the_last_card(fmt):
    st = position(fmt, hands=([], ["9D"]), loose=["3S", "7H"], piles=(["4C"], []), to_move=1,
                  last_capturer=0)
    (m,) = moves(st)
    assert m.kind == "trail"
    r = m.result
    assert r["over"] is True and r["to_move"] is None
    assert r["table"] == {"loose": [], "builds": []} and r["hands"] == [[], []]
    assert r["piles"][0] == ["4C", "9D", "7H", "3S"]           # loose as one group, higher rank under
    assert r["piles"][1] == st["piles"][1]
    assert r["last_capturer"] == 0
    # the same with seat 1 the last capturer: the table goes to seat 1
    st = position(fmt, hands=([], ["9D"]), loose=["3S", "7H"], piles=(["4C"], []), to_move=1,
                  last_capturer=1)
    (m,) = moves(st)
    assert m.result["piles"][1] == st["piles"][1] + ["9D", "7H", "3S"]
    assert m.result["piles"][0] == ["4C"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_K12_K8_K10_capture_with_the_last_card_then_sweep_to_that_player(fmt):
    # seat 1 plays the last card, 9D; loose 9C 3S 2H; seat 0's exposed pile card 4C completes 3S+2H+4C
    st = position(fmt, hands=([], ["9D"]), loose=["9C", "3S", "2H"], piles=(["4C"], []), to_move=1,
                  last_capturer=0)
    n = len(st["piles"][1])
    caps = moves(st, "9D", "capture")
    got = {}
    for m in caps:
        r = m.result
        assert r["over"] is True and r["to_move"] is None and r["last_capturer"] == 1
        assert r["table"] == {"loose": [], "builds": []}
        got[tuple(r["piles"][1][n:])] = r["piles"][0]
    assert got == {
        # capture 9C, then the K12 sweep of the rest (as one group, higher rank under) to the capturer
        ("9C", "9D", "3S", "2H"): ["4C"],
        # capture 4C+3S+2H (pile card used, K8), then the sweep of 9C
        ("4C", "3S", "2H", "9D", "9C"): [],
        # both units: groups in canonical order (the group with the highest card index, 9C, first)
        ("9C", "4C", "3S", "2H", "9D"): [],
    }
    tr = moves(st, "9D", "trail")
    if fmt == "khasino":
        assert tr == []                                            # K11: a 9 is loose
    else:
        (t,) = tr                                                  # durban trail: sweep to seat 0
        assert t.result["piles"][0] == ["4C", "9D", "9C", "3S", "2H"]
        assert t.result["last_capturer"] == 0


def test_P2_K12_durban_nobody_captured_sweep_goes_to_the_last_player():
    # a durban game with no capture at all: 39 cards loose, seat 1 trails the last card (AC)
    loose = [c for c in DECK40 if c != "AC"]
    st = position("durban", hands=([], ["AC"]), loose=loose, to_move=1, last_capturer=None)
    assert st["piles"] == [[], []] and st["last_capturer"] is None
    (t,) = moves(st, "AC", "trail")
    r = t.result
    assert r["over"] is True and r["to_move"] is None
    assert r["last_capturer"] == 1                        # P2: recorded as the last capturer
    assert r["piles"][0] == []
    # K12 sweep: the loose cards as one group, higher rank underneath, equal ranks S under H under D under C
    assert r["piles"][1] == [rk + su for rk in reversed(RANKS) for su in SUITS]


# ---------------------------------------------------------------------------------------------- K13


def test_K13_scoring_with_clear_majorities():
    p0 = ["AS", "AH", "2S", "3S", "4S", "5S", "6S"] + [c for c in DECK40 if c[-1] in "HC" and c[0] != "A"][:14]
    p1 = [c for c in DECK40 if c not in p0]
    assert len(p0) == 21 and len(p1) == 19
    s0, s1 = scores(finished(p0, p1))
    assert (s0["cards"], s0["spades"], s0["aces"], s0["two_spades"], s0["ten_diamonds"]) == (21, 6, 2, 1, 0)
    assert (s1["cards"], s1["spades"], s1["aces"], s1["two_spades"], s1["ten_diamonds"]) == (19, 4, 2, 0, 1)
    assert (s0["most_cards"], s0["most_spades"], s1["most_cards"], s1["most_spades"]) == (2, 2, 0, 0)
    assert s0["score"] == 2 + 2 + 2 + 1 == 7
    assert s1["score"] == 2 + 2 == 4


@pytest.mark.parametrize("fmt", FORMATS)
def test_K13_ties_in_cards_and_spades_split_1_1(fmt):
    spades = [c for c in DECK40 if c[-1] == "S"]
    p0 = ["AS", "AH", "AD", "10D"] + [s for s in spades if s not in ("AS", "2S")][:4]
    p0 += [c for c in DECK40 if c[-1] in "HC" and c[0] != "A" and c not in p0][:12]
    p1 = [c for c in DECK40 if c not in p0]
    assert len(p0) == len(p1) == 20
    s0, s1 = scores(finished(p0, p1, fmt))
    assert s0["spades"] == s1["spades"] == 5
    assert (s0["most_cards"], s0["most_spades"], s1["most_cards"], s1["most_spades"]) == (1, 1, 1, 1)
    assert s0["score"] == 1 + 1 + 3 + 2 == 7          # split cards, split spades, 3 aces, 10D
    assert s1["score"] == 1 + 1 + 1 + 1 == 4          # split, split, AC, 2S
    assert s0["score"] + s1["score"] == 11


# ---------------------------------------------------------------------------------------------- P1


@pytest.mark.parametrize("fmt", FORMATS)
def test_P1_last_card_of_an_owned_builds_value_only_captures_that_build(fmt):
    # seat 0 owns Build 9 and holds one 9 (9C): 9C may not take the loose 9D alone, may not build 10
    # with the loose AD (10H kept), may not trail (durban would otherwise allow it)
    st = position(fmt, hands=(["9C", "10H"], ["2D", "3D"]), loose=["9D", "AD"], builds=[(9, 0, [["5S", "4S"]])])
    got = outcomes(st, "9C")
    assert got == {
        O("9C", "capture", [], ["9D", "AD"], ["5S", "4S", "9C"]),
        O("9C", "capture", [], ["AD"], ["5S", "4S", "9D", "9C"]),
    }
    # holding a second 9, the first may be played freely (capture 9D alone, or build 10 with AD)
    st = position(fmt, hands=(["9C", "9H", "10H"], ["2D", "3D", "2C"]), loose=["9D", "AD"],
                  builds=[(9, 0, [["5S", "4S"]])])
    got = outcomes(st, "9C")
    assert O("9C", "capture", [bld(9, 0, ["5S", "4S"])], ["AD"], ["9D", "9C"]) in got
    if fmt == "khasino":
        assert O("9C", "build", [bld(9, 0, ["5S", "4S"]), bld(10, 0, ["9C", "AD"])], ["9D"]) in got


def test_P1_commitment_also_blocks_a_load_of_another_build_with_the_last_card():
    # seat 0 owns Build 5 (holds only 5H) and could load seat 1's Build 9 with 5H+4S (9C kept): not allowed
    st = position("khasino", hands=(["5H", "9C"], ["9D", "3D"]), loose=["4S"],
                  builds=[(5, 0, [["3C", "2C"]]), (9, 1, [["6C", "3H"]])])
    assert {m.kind for m in moves(st, "5H")} == {"capture"}


# ---------------------------------------------------------------------------------------------- format table, P7, whole games


@pytest.mark.parametrize("fmt", FORMATS)
def test_flags_and_K3_P7_random_playouts_give_valid_states(fmt):
    """Random play through whole games: every successor is a valid state (checked in `moves`), each move
    plays one card (K3), positions are distinct (P7), no K11 fallback, 40 plies, builds owned within the
    format's limit (durban one, P6), and the finished game scores 11 (K13)."""
    rng = random.Random(fmt)
    for game in range(3):
        st = new_game(fmt, seed=1000 + game)
        plies = 0
        while not st.get("over"):
            ms = moves(st)
            assert ms
            st = rng.choice(ms).result
            plies += 1
            if fmt == "durban":
                owners = [b["owner"] for b in st["table"]["builds"]]
                assert len(owners) == len(set(owners))
        assert plies == 40
        assert st["table"] == {"loose": [], "builds": []}
        s0, s1 = scores(st)
        assert s0["score"] + s1["score"] == 11
        assert s0["cards"] + s1["cards"] == 40


@pytest.mark.parametrize("fmt", FORMATS)
def test_K11_P1_compiled_games_never_need_the_no_move_fallback(fmt):
    for seed in range(40):
        g = play_game(fmt, seed, bots=("random", "greedy"))
        assert g["no_move"] == 0 and g["bad"] == 0
        assert g["turns"] == 40
        assert sum(s["score"] for s in g["seats"]) == 11
