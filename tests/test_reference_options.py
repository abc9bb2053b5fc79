"""Rule options (variants) in the pure-Python reference engines: the Khasino family (khasino_sim/reference.py)
and Norwegian misère Kasino (khasino_sim/reference_kasino.py).

The options are those of docs/BALANCE.md "The variants"; each format's default is its ruling (docs/rules/khasino.md
K5, K7, K8, K9, K11, K12, K14; docs/rules/kasino.md N1, N3, N4; docs/rules/project.md P6; the "Rule options"
tables of docs/rules/khasino.md and docs/rules/kasino.md).  Every scenario is a hand-written JSON
position naming the cards that matter; the rest of the deck is filled in validly.  JSON contract: an optional
``options`` object (absent: the format's defaults; partial: only the named options change; unknown names and
wrong types or ranges are a ValueError naming them), always written right after ``format``, never part of the
position hash nor of move keys."""
import collections
import hashlib
import json
import os
import random
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from khasino_sim import reference as R  # noqa: E402
from khasino_sim import reference_kasino as K  # noqa: E402

KHASINO_FORMATS = ("khasino", "durban", "khasino-3p", "khasino-3p-stock", "khasino-4p")
KASINO_FORMATS = ("kasino-2p", "kasino-2p-alt", "kasino-3p", "kasino-4p", "kasino-5p", "kasino-6p")
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
ALL40 = [RANKS[i >> 2] + "SHDC"[i & 3] for i in range(40)]
ALL52 = [RANKS[i >> 2] + "SHDC"[i & 3] for i in range(52)]
KHASINO_OPTION_NAMES = ["change_mode", "follow_ups", "last_capturer_takes_table", "max_builds_owned",
                        "next_deal_leader", "no_trail_own_build_first_deal", "opponent_piles", "trail_restricted"]
# docs/RULES.md "Format flags" / docs/BALANCE.md "The variants": each format's rulings
KHASINO_DEFAULTS = {
    "khasino": dict(trail_restricted=True, no_trail_own_build_first_deal=True, max_builds_owned=0, change_mode=0,
                    follow_ups=True, opponent_piles=True, last_capturer_takes_table=True, next_deal_leader=0),
    "durban": dict(trail_restricted=False, no_trail_own_build_first_deal=False, max_builds_owned=1,
                   change_mode=1, follow_ups=False, opponent_piles=True, last_capturer_takes_table=True,
                   next_deal_leader=0),
}
for _f in ("khasino-3p", "khasino-3p-stock", "khasino-4p"):
    KHASINO_DEFAULTS[_f] = dict(KHASINO_DEFAULTS["khasino"], no_trail_own_build_first_deal=False)


# ---------------------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------------------
def kidx(card):
    return ALL40.index(card)


def kpoints(card):
    """K13 card points, written out: each ace 1, 2S 1, 10D 2."""
    return 1 if card.startswith("A") else 1 if card == "2S" else 2 if card == "10D" else 0


def kpos(fmt, hands, loose=(), builds=(), piles=None, to_move=0, deal=2, last_capturer="auto", options=None,
         **extra):
    """A Khasino-family JSON state with exactly these hands, loose cards, builds ((value, owner, groups)) and
    pile cards (bottom to top).  Every other card goes to the stock (20 in a 1v1 first deal), then under the
    mover's own pile (never usable by him, K8)."""
    n = len(hands)
    piles = [list(p) for p in (piles or [[] for _ in range(n)])]
    named = [c for h in hands for c in h] + list(loose) + [c for b in builds for g in b[2] for c in g]
    named += [c for p in piles for c in p]
    assert len(named) == len(set(named)), named
    rest = [c for c in ALL40 if c not in named]
    stock_size = 20 if (n == 2 and deal == 1) else 0
    stock, rest = rest[:stock_size], rest[stock_size:]
    piles[to_move] = rest + piles[to_move]
    if last_capturer == "auto":
        last_capturer = to_move if any(piles) else None
    d = {"format": fmt, "deal": deal, "to_move": to_move, "hands": [list(h) for h in hands],
         "table": {"loose": sorted(loose, key=kidx),
                   "builds": [{"value": v, "owner": o, "groups": [list(g) for g in gs]} for v, o, gs in builds]},
         "piles": piles, "stock": stock, "last_capturer": last_capturer}
    if options is not None:
        d["options"] = options
    d.update(extra)
    return d


def kmoves(state, card=None, kind=None):
    return [m for m in R.legal_moves(state) if (card is None or m.card == card) and (kind is None or m.kind == kind)]


def builds_of(st):
    return [(b["value"], b["owner"], b["groups"]) for b in st["table"]["builds"]]


def khasino_cards(state):
    cards = [c for h in state["hands"] for c in h] + state["table"]["loose"] + state["stock"]
    cards += [c for b in state["table"]["builds"] for g in b["groups"] for c in g]
    cards += [c for p in state["piles"] for c in p]
    return cards


def assert_40(state):
    assert sorted(khasino_cards(state), key=kidx) == ALL40


def kasino_pos(fmt="kasino-2p", hands=None, table=(), to_move=0, dealer=None, rest_to=None, options=None,
               **extra):
    """A Kasino JSON state in the last deal (no stock): the named hands and table cards; every other card of
    the two decks goes to seat ``rest_to``'s pile (default the last seat), who is the last capturer."""
    n = len(hands)
    named = [c for h in hands for c in h] + list(table)
    cnt = collections.Counter(named)
    rest = [c for c in ALL52 for _ in range(2 - cnt[c])]
    piles = [[] for _ in range(n)]
    rest_to = n - 1 if rest_to is None else rest_to
    piles[rest_to] = sorted(rest, key=ALL52.index)
    d = {"format": fmt, "deal": K.FORMATS[fmt]["deals"], "to_move": to_move,
         "hands": [sorted(h, key=ALL52.index) for h in hands],
         "table": {"loose": sorted(table, key=ALL52.index), "builds": []}, "piles": piles, "stock": [],
         "last_capturer": rest_to}
    if dealer is not None:
        d["dealer"] = dealer
    if options is not None:
        d["options"] = options
    d.update(extra)
    return d


def ksummary(moves):
    return {(m.card, m.kind, tuple(m.captured)) for m in moves}


def kasino_count(state):
    zones = [c for h in state["hands"] for c in h] + state["table"]["loose"] + state["set_aside"] + state["stock"]
    zones += [c for p in state["piles"] for c in p]
    return collections.Counter(zones)


# ---------------------------------------------------------------------------------------------------------
# JSON contract: defaults, placement, partial objects, validation, hash and keys
# ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", KHASINO_FORMATS)
def test_khasino_defaults_written_right_after_format_and_round_trip(fmt):
    st = R.initial_state(fmt, 5)
    assert list(st)[:2] == ["format", "options"]
    assert st["options"] == KHASINO_DEFAULTS[fmt] == R.default_options(fmt)
    assert sorted(st["options"]) == KHASINO_OPTION_NAMES
    assert all(type(v) is bool for k, v in st["options"].items() if k not in
               ("change_mode", "max_builds_owned", "next_deal_leader"))
    assert all(type(st["options"][k]) is int for k in ("change_mode", "max_builds_owned", "next_deal_leader"))
    # JSON out -> in -> out is the same (through text too); absent options read as the defaults
    text = json.loads(json.dumps(st))
    assert R._to_json(R._from_json(text)) == st
    bare = {k: v for k, v in st.items() if k != "options"}
    assert R._to_json(R._from_json(bare)) == st
    # a mid-game state and a successor carry them too
    m = R.legal_moves(st)[0]
    assert m.after["options"] == st["options"] == m.result["options"]
    assert R._to_json(R._from_json(json.loads(json.dumps(m.result)))) == m.result


@pytest.mark.parametrize("fmt", KHASINO_FORMATS)
def test_khasino_partial_options_change_only_what_they_name(fmt):
    st = R.initial_state(fmt, 3, options={"follow_ups": False, "max_builds_owned": 3})
    want = dict(KHASINO_DEFAULTS[fmt], follow_ups=False, max_builds_owned=3)
    assert st["options"] == want
    again = dict(st, options={"next_deal_leader": 2})    # a state's partial object: the rest are the defaults
    assert R.legal_moves(again)[0].result["options"] == dict(KHASINO_DEFAULTS[fmt], next_deal_leader=2)


@pytest.mark.parametrize("bad,name", [
    ({"sweeps": True}, "sweeps"),
    ({"follow_ups": 1}, "follow_ups"),
    ({"trail_restricted": "true"}, "trail_restricted"),
    ({"opponent_piles": None}, "opponent_piles"),
    ({"last_capturer_takes_table": 0}, "last_capturer_takes_table"),
    ({"no_trail_own_build_first_deal": 1.0}, "no_trail_own_build_first_deal"),
    ({"max_builds_owned": True}, "max_builds_owned"),
    ({"max_builds_owned": -1}, "max_builds_owned"),
    ({"max_builds_owned": 1.5}, "max_builds_owned"),
    ({"change_mode": 2}, "change_mode"),
    ({"change_mode": False}, "change_mode"),
    ({"next_deal_leader": 3}, "next_deal_leader"),
    ({"next_deal_leader": "1"}, "next_deal_leader"),
])
def test_khasino_bad_options_rejected_naming_them(bad, name):
    with pytest.raises(ValueError, match=name):
        R.initial_state("khasino", 1, options=bad)
    with pytest.raises(ValueError, match=name):
        R.play_game("khasino-3p", 1, options=bad)
    st = R.initial_state("khasino", 1)
    with pytest.raises(ValueError, match=name):
        R.legal_moves(dict(st, options=bad))
    with pytest.raises(ValueError, match=name):
        R.state_hash(dict(st, options=dict(st["options"], **bad)))


def test_khasino_options_must_be_an_object():
    st = R.initial_state("khasino", 1)
    with pytest.raises(ValueError, match="options"):
        R.legal_moves(dict(st, options=[["follow_ups", False]]))
    with pytest.raises(ValueError, match="options"):
        R.initial_state("khasino", 1, options=True)


def test_khasino_options_not_in_hash_nor_keys():
    """ENGINE.md "Position hash": H and the move keys leave the options out."""
    st = kpos("khasino", [["5H", "9C", "4C"], ["2C", "3C", "8C"]], loose=["5S"])
    h = R.state_hash(st)
    other = dict(last_capturer_takes_table=False, next_deal_leader=2, max_builds_owned=4, opponent_piles=False)
    assert R.state_hash(dict(st, options=other)) == h
    keys = {m.key for m in R.legal_moves(st)}
    assert {m.key for m in R.legal_moves(dict(st, options=other))} == keys


@pytest.mark.parametrize("fmt", KHASINO_FORMATS)
def test_khasino_default_options_play_exactly_as_no_options(fmt):
    a = R.play_game(fmt, 11, ("greedy",) + ("random",) * (R.FORMATS[fmt]["seats"] - 1))
    b = R.play_game(fmt, 11, ("greedy",) + ("random",) * (R.FORMATS[fmt]["seats"] - 1),
                    options=R.default_options(fmt))
    c = R.play_game(fmt, 11, ("greedy",) + ("random",) * (R.FORMATS[fmt]["seats"] - 1), options={})
    assert a == b == c


@pytest.mark.parametrize("fmt,bots,want", [
    # tests/test_reference_3p.py's digests, computed before options existed: the games are unchanged (the
    # final JSON now also carries "options", left out here)
    ("khasino", ("random", "random"), "4bfc8864efcc8517"),
    ("khasino", ("greedy", "random"), "17bfa3e1cd00d073"),
    ("durban", ("random", "greedy"), "800da44c9ff8ec53"),
])
def test_one_v_one_games_unchanged_by_the_options_field(fmt, bots, want):
    h = hashlib.sha256()
    for seed in range(3):
        res = R.play_game(fmt, seed, bots)
        assert res["final"]["options"] == KHASINO_DEFAULTS[fmt]
        final = {k: v for k, v in res["final"].items() if k != "options"}
        h.update(json.dumps(res["keys"]).encode())
        h.update(json.dumps(final).encode())
        h.update(json.dumps(res["scores"]).encode())
    assert h.hexdigest()[:16] == want


# ---------------------------------------------------------------------------------------------------------
# K11: trail_restricted, no_trail_own_build_first_deal
# ---------------------------------------------------------------------------------------------------------
def test_k11_trail_of_a_loose_value_only_unrestricted():
    st = kpos("khasino", [["5H", "9C"], ["2C", "3C"]], loose=["5S"])
    assert kmoves(st, "5H", "trail") == []
    st["options"] = {"trail_restricted": False}
    (t,) = kmoves(st, "5H", "trail")
    assert t.after["table"]["loose"] == ["5S", "5H"]
    # durban (unrestricted by its ruling) with trail_restricted=true
    st = kpos("durban", [["5H", "9C"], ["2C", "3C"]], loose=["5S"])
    assert len(kmoves(st, "5H", "trail")) == 1
    st["options"] = {"trail_restricted": True}
    assert kmoves(st, "5H", "trail") == []


def test_k11_trail_of_a_built_value_only_unrestricted():
    st = kpos("khasino", [["9D", "2D"], ["9C", "3C"]], builds=[(9, 1, [["5S", "4H"]])])
    assert kmoves(st, "9D", "trail") == []
    assert len(kmoves(dict(st, options={"trail_restricted": False}), "9D", "trail")) == 1


def test_k11_first_deal_no_trail_while_owning_a_build():
    b9 = (9, 0, [["5S", "4H"]])
    st = kpos("khasino", [["9C", "3D"], ["2C", "4C"]], builds=[b9], deal=1)
    assert kmoves(st, "3D", "trail") == []
    assert len(kmoves(dict(st, options={"no_trail_own_build_first_deal": False}), "3D", "trail")) == 1
    # the second deal: allowed either way
    st2 = kpos("khasino", [["9C", "3D"], ["2C", "4C"]], builds=[b9], deal=2)
    assert len(kmoves(st2, "3D", "trail")) == 1
    # durban (no such ban by its ruling) with the option on
    st = kpos("durban", [["9C", "3D"], ["2C", "4C"]], builds=[b9], deal=1)
    assert len(kmoves(st, "3D", "trail")) == 1
    assert kmoves(dict(st, options={"no_trail_own_build_first_deal": True}), "3D", "trail") == []


def test_k11_first_deal_ban_in_3p_holds_all_game():
    """3p has one deal (K16, deal 1 throughout): with the option on, no trail while owning a build at all."""
    b9 = (9, 0, [["5S", "4H"]])
    st = kpos("khasino-3p", [["9C", "3D"], ["2C", "4C"], ["6C", "7C"]], builds=[b9], deal=1)
    assert len(kmoves(st, "3D", "trail")) == 1
    assert kmoves(dict(st, options={"no_trail_own_build_first_deal": True}), "3D", "trail") == []


# ---------------------------------------------------------------------------------------------------------
# K5 / P6: max_builds_owned
# ---------------------------------------------------------------------------------------------------------
def test_k5_second_build_refused_with_one_allowed_with_two():
    st = kpos("khasino", [["AH", "7C", "9C", "2D"], ["2C", "3C", "4C", "8C"]], loose=["6D"],
              builds=[(9, 0, [["5S", "4H"]])])
    new7 = lambda opts: [m for m in kmoves(dict(st, options=opts), "AH", "build")  # noqa: E731
                         if (7, 0, [["6D", "AH"]]) in builds_of(m.after)]
    assert len(new7({})) == 1                                   # khasino: unlimited (0)
    assert new7({"max_builds_owned": 1}) == []
    assert len(new7({"max_builds_owned": 2})) == 1
    # durban: 1 by its ruling (P6), 2 and 0 (unlimited) by the option
    st["format"] = "durban"
    assert new7({}) == []
    assert len(new7({"max_builds_owned": 2})) == 1
    assert len(new7({"max_builds_owned": 0})) == 1


def test_k5_third_build_refused_with_two_loads_still_allowed():
    st = kpos("khasino", [["AH", "7C", "9C", "3C"], ["2C", "4C", "5C", "6C"]], loose=["6D", "8D"],
              builds=[(3, 0, [["2S", "AS"]]), (9, 0, [["5S", "4H"]])])
    with2 = dict(st, options={"max_builds_owned": 2})
    assert kmoves(with2, "AH", "build") == []                   # owns 2: a third is refused
    assert len(kmoves(dict(st, options={"max_builds_owned": 3}), "AH", "build")) >= 1
    loads = kmoves(with2, "AH", "load")                          # AH + 8D onto his build 9 (P6: loads allowed)
    assert any((9, 0, [["5S", "4H"], ["8D", "AH"]]) in builds_of(m.after) for m in loads)


def test_p6_change_refused_at_the_limit():
    """P6: a change gives the changer one more build, so a player at the limit may not change."""
    st = kpos("khasino", [["2D", "7C", "9C"], ["3C", "4C", "6C"]],
              builds=[(5, 1, [["3S", "2H"]]), (9, 0, [["5S", "4H"]])])
    assert len(kmoves(st, "2D", "change")) == 1                 # khasino: unlimited
    assert kmoves(dict(st, options={"max_builds_owned": 1}), "2D", "change") == []
    assert len(kmoves(dict(st, options={"max_builds_owned": 2}), "2D", "change")) == 1
    st["format"] = "durban"
    assert kmoves(st, "2D", "change") == []                     # durban, P6
    assert len(kmoves(dict(st, options={"max_builds_owned": 2}), "2D", "change")) == 1


def test_k5_limit_counts_for_the_partner_in_a_rebuild_and_a_stay():
    """4p: a P14 rebuild and a P15 Stay make the partner own the build, so his count is the one limited."""
    # P14: seat 1 promised 8 (open); seat 1 already owns a build of 6; seat 0 may rebuild 8 for him
    st = kpos("khasino-4p", [["5C", "2D"], ["6H", "8H"], ["7C", "9C"], ["10C", "10H"]], loose=["3S"],
              builds=[(6, 1, [["4D", "2C"]])], deal=1, promises=[[], [8], [], []])
    rebuild = lambda opts: [m for m in kmoves(dict(st, options=opts), "5C", "build")  # noqa: E731
                            if (8, 1, [["5C", "3S"]]) in builds_of(m.after)]
    assert len(rebuild({})) == 1
    assert rebuild({"max_builds_owned": 1}) == []
    assert len(rebuild({"max_builds_owned": 2})) == 1
    # P15: seat 0 captures seat 2's build of 9; seat 1 holds a 9 and already owns a build of 7
    st = kpos("khasino-4p", [["9C", "2D"], ["9H", "7H"], ["8C", "6C"], ["10C", "10H"]],
              builds=[(7, 1, [["4D", "3C"]]), (9, 2, [["5S", "4H"]])], deal=1)
    offered = lambda opts: [m.stay_offered for m in kmoves(dict(st, options=opts), "9C", "capture")]  # noqa
    assert offered({}) == [True]
    assert offered({"max_builds_owned": 1}) == [False]
    assert offered({"max_builds_owned": 2}) == [True]
    # the partner's own build: a Stay leaves his count unchanged, so it is offered at the limit
    st = kpos("khasino-4p", [["9C", "2D"], ["9H", "7H"], ["8C", "6C"], ["10C", "10H"]],
              builds=[(9, 1, [["5S", "4H"]])], deal=1)
    assert [m.stay_offered for m in kmoves(dict(st, options={"max_builds_owned": 1}), "9C", "capture")] == [True]


# ---------------------------------------------------------------------------------------------------------
# K7: change_mode
# ---------------------------------------------------------------------------------------------------------
def test_k7_change_of_a_three_card_build_only_with_mode_1():
    st = kpos("khasino", [["AH", "10C"], ["9C", "2C"]], builds=[(9, 1, [["5S", "3H", "AD"]])])
    assert kmoves(st, "AH", "change") == []
    (m,) = kmoves(dict(st, options={"change_mode": 1}), "AH", "change")
    assert builds_of(m.after) == [(10, 0, [["5S", "3H", "AH", "AD"]])]
    # durban (mode 1 by its ruling) with mode 0: no change of a three-card build
    st["format"] = "durban"
    assert len(kmoves(st, "AH", "change")) == 1
    assert kmoves(dict(st, options={"change_mode": 0}), "AH", "change") == []


def test_k7_change_with_an_extra_loose_card_only_with_mode_1():
    st = kpos("khasino", [["2C", "9C"], ["6C", "3C"]], loose=["AD"], builds=[(6, 1, [["4S", "2H"]])])
    assert kmoves(st, "2C", "change") == []                     # 6 + 2 = 8: no 8 kept
    (m,) = kmoves(dict(st, options={"change_mode": 1}), "2C", "change")
    assert builds_of(m.after) == [(9, 0, [["4S", "2H", "2C", "AD"]])] and m.after["table"]["loose"] == []
    # durban with mode 0: the two-card build, played card alone
    st = kpos("durban", [["2C", "8C"], ["6C", "3C"]], loose=["AD"], builds=[(6, 1, [["4S", "2H"]])])
    assert [builds_of(m.after) for m in kmoves(dict(st, options={"change_mode": 0}), "2C", "change")] == \
        [[(8, 0, [["4S", "2H", "2C"]])]]


def test_k7_mode_1_in_4p_opponents_builds_only():
    b = [["5S", "3H", "AD"]]
    opp = kpos("khasino-4p", [["AH", "10C"], ["2C", "3C"], ["9C", "4C"], ["6C", "7C"]], builds=[(9, 2, b)],
               deal=1, options={"change_mode": 1})
    assert [builds_of(m.after) for m in kmoves(opp, "AH", "change")] == [[(10, 0, [["5S", "3H", "AH", "AD"]])]]
    mate = kpos("khasino-4p", [["AH", "10C"], ["9C", "3C"], ["2C", "4C"], ["6C", "7C"]], builds=[(9, 1, b)],
                deal=1, options={"change_mode": 1})
    assert kmoves(mate, "AH", "change") == []


# ---------------------------------------------------------------------------------------------------------
# K9: follow_ups
# ---------------------------------------------------------------------------------------------------------
def _followup_position(fmt):
    return kpos(fmt, [["4C", "8C"], ["2D", "3D"]], loose=["4D", "6D", "2C"], builds=[(8, 0, [["5S", "3H"]])])


def test_k9_follow_ups_absent_when_off():
    st = _followup_position("khasino")
    caps = kmoves(st, "4C", "capture")
    assert sorted(len(builds_of(m.after)[0][2]) for m in caps) == [1, 2]   # 4D alone; 4D + follow-up 6D+2C
    caps = kmoves(dict(st, options={"follow_ups": False}), "4C", "capture")
    assert [builds_of(m.after) for m in caps] == [[(8, 0, [["5S", "3H"]])]]
    assert all(len(b[2]) == 1 for m in R.legal_moves(dict(st, options={"follow_ups": False}))
               for b in builds_of(m.after) if b[0] == 8 and m.kind != "load")


def test_k9_follow_ups_in_durban_when_on():
    st = _followup_position("durban")
    assert len(kmoves(st, "4C", "capture")) == 1
    caps = kmoves(dict(st, options={"follow_ups": True}), "4C", "capture")
    assert sorted(builds_of(m.after)[0][2] for m in caps) == [[["5S", "3H"]], [["5S", "3H"], ["6D", "2C"]]]


def test_k9_follow_up_after_a_mode_1_change():
    """P5: follow-ups may go to the build the action changed (durban change, follow-ups on)."""
    st = kpos("durban", [["2C", "8C"], ["6C", "9C"]], loose=["5D", "3D"], builds=[(6, 1, [["4S", "2H"]])])
    assert [builds_of(m.after) for m in kmoves(st, "2C", "change")] == [[(8, 0, [["4S", "2H", "2C"]])]]
    got = sorted(builds_of(m.after)[0][2] for m in kmoves(dict(st, options={"follow_ups": True}), "2C", "change"))
    assert got == [[["4S", "2H", "2C"]], [["4S", "2H", "2C"], ["5D", "3D"]]]


# ---------------------------------------------------------------------------------------------------------
# K8: opponent_piles
# ---------------------------------------------------------------------------------------------------------
def test_k8_opponent_pile_cards_unusable_when_off():
    st = kpos("khasino", [["9C", "2D"], ["4C", "5C"]], loose=["6D"], piles=[[], ["3S"]])
    (m,) = kmoves(st, "9C", "capture")
    assert m.after["piles"][0][-3:] == ["6D", "3S", "9C"] and m.after["piles"][1] == []
    assert kmoves(dict(st, options={"opponent_piles": False}), "9C", "capture") == []
    st["format"] = "durban"
    assert len(kmoves(st, "9C", "capture")) == 1
    assert kmoves(dict(st, options={"opponent_piles": False}), "9C", "capture") == []


def test_k8_both_opponents_piles_off_in_3p():
    st = kpos("khasino-3p", [["9C", "2D"], ["4C", "5C"], ["7C", "8C"]], loose=["2H"], piles=[[], ["3S"], ["4S"]],
              deal=1)
    assert len(kmoves(st, "9C", "capture")) == 1                # 2H + 3S + 4S, one card of each pile (P4)
    assert kmoves(dict(st, options={"opponent_piles": False}), "9C", "capture") == []


# ---------------------------------------------------------------------------------------------------------
# K12: last_capturer_takes_table
# ---------------------------------------------------------------------------------------------------------
def _tie_end():
    """A 1v1 position right after the game's last card: each pile 18 cards, 4 spades, 2 aces; left on the
    table 2S, 3S, 4H, 10D.  Seat 0 captured last."""
    p0 = ["AS", "4S", "5S", "6S", "AH"]
    p1 = ["7S", "8S", "9S", "10S", "AD", "AC"]
    loose = ["2S", "3S", "4H", "10D"]
    others = [c for c in ALL40 if c not in p0 + p1 + loose]
    p0, p1 = p0 + others[:13], p1 + others[13:]
    return {"format": "khasino", "deal": 2, "to_move": 1, "hands": [[], []],
            "table": {"loose": loose, "builds": []}, "piles": [p0, p1], "stock": [], "last_capturer": 0}


def test_k12_default_last_capturer_takes_the_table():
    end = R.advance(_tie_end())
    assert end["over"] is True and end["table"] == {"loose": [], "builds": []}
    assert [s["total"] for s in R.score(end)] == [9, 2]


def test_k12_off_table_stays_and_scores_for_no_one_so_a_game_can_tie():
    after = dict(_tie_end(), options={"last_capturer_takes_table": False})
    end = R.advance(after)
    assert end["over"] is True and end["to_move"] is None and end["last_capturer"] == 0
    assert end["table"] == {"loose": ["2S", "3S", "4H", "10D"], "builds": []}
    assert end["piles"] == after["piles"] and end["options"]["last_capturer_takes_table"] is False
    assert_40(end)
    scores = R.score(end)
    assert [s["total"] for s in scores] == [4, 4]               # 11 less 2S (1) and 10D (2), split evenly
    with pytest.raises(ValueError):
        R.winner("khasino", scores)
    assert R._to_json(R._from_json(end)) == end


def test_k12_off_builds_stay_on_the_table():
    pile = [c for c in ALL40 if c not in ("5S", "4H", "7D", "AD")]
    after = {"format": "khasino", "options": {"last_capturer_takes_table": False}, "deal": 2, "to_move": 1,
             "hands": [[], []], "table": {"loose": ["7D"], "builds": [{"value": 9, "owner": 1,
                                                                       "groups": [["5S", "4H"]]}]},
             "piles": [pile[:20], pile[20:] + ["AD"]], "stock": [], "last_capturer": 1}
    end = R.advance(after)
    assert builds_of(end) == [(9, 1, [["5S", "4H"]])] and end["table"]["loose"] == ["7D"]
    assert sum(s["total"] for s in R.score(end)) == 11
    assert R.advance(dict(after, options={}))["table"] == {"loose": [], "builds": []}


def test_k12_off_3p_and_4p_keep_the_table():
    st = {"format": "khasino-3p", "options": {"last_capturer_takes_table": False}, "deal": 1, "to_move": 2,
          "hands": [[], [], []], "table": {"loose": ["AS", "10D"], "builds": []},
          "piles": [[], [c for c in ALL40 if c not in ("AS", "10D")], []], "stock": [], "last_capturer": 1}
    end = R.advance(st)
    assert end["table"]["loose"] == ["AS", "10D"] and end["last_capturer"] == 1
    assert sum(s["total"] for s in R.score(end)) == 7 - 3
    st = {"format": "khasino-4p", "options": {"last_capturer_takes_table": False}, "deal": 1, "to_move": 3,
          "hands": [[], [], [], []], "table": {"loose": ["2S"], "builds": []},
          "piles": [[], [c for c in ALL40 if c != "2S"], [], []], "stock": [], "last_capturer": 1}
    end = R.advance(st)
    assert end["table"]["loose"] == ["2S"]
    assert [s["total"] for s in R.score(end)] == [10, 10, 0, 0]


@pytest.mark.parametrize("fmt", KHASINO_FORMATS)
def test_k12_off_whole_games_points_less_the_tables(fmt):
    """Whole games: what is left on the table stays and its card points score for no one."""
    seats = R.FORMATS[fmt]["seats"]
    full = 7 if fmt.startswith("khasino-3p") else 11
    ties = 0
    for seed in range(12):
        res = R.play_game(fmt, seed, options={"last_capturer_takes_table": False})
        final = res["final"]
        assert_40(final)
        left = final["table"]["loose"] + [c for b in final["table"]["builds"] for g in b["groups"] for c in g]
        totals = [s["total"] for s in res["scores"]]
        units = [totals[0], totals[2]] if seats == 4 else totals
        assert sum(units) == full - sum(kpoints(c) for c in left)
        ties += res["winner"] is None
        same = R.play_game(fmt, seed)                            # the same play to the last card
        assert same["keys"] == res["keys"]
    assert ties < 12


def test_k12_off_a_1v1_game_can_tie():
    ties = [s for s in range(40) if R.play_game("durban", s, options={"last_capturer_takes_table": False})["winner"]
            is None]
    assert ties
    res = R.play_game("durban", ties[0], options={"last_capturer_takes_table": False})
    assert res["scores"][0]["total"] == res["scores"][1]["total"]


# ---------------------------------------------------------------------------------------------------------
# K14: next_deal_leader
# ---------------------------------------------------------------------------------------------------------
def _end_of_deal_1(last_capturer):
    """A 1v1 position right after the first deal's last card (seat 1 played it); 20 cards in stock."""
    stock = ALL40[20:]
    loose = ["AS", "2H"]
    piles = [[c for c in ALL40[:20] if c not in loose], []]
    if last_capturer is None:
        piles = [[], []]
        loose = ALL40[:20]
    return {"format": "khasino", "deal": 1, "to_move": 1, "hands": [[], []],
            "table": {"loose": loose, "builds": []}, "piles": piles, "stock": stock, "last_capturer": last_capturer}


@pytest.mark.parametrize("mode,lc,leader", [
    (0, 1, 0), (0, 0, 0), (1, 0, 1), (1, 1, 1), (2, 1, 1), (2, 0, 0), (2, None, 0), (1, None, 1), (0, None, 0)])
def test_k14_second_deal_leader(mode, lc, leader):
    st = dict(_end_of_deal_1(lc), options={"next_deal_leader": mode})
    nxt = R.advance(st)
    assert nxt["deal"] == 2 and nxt["to_move"] == leader and nxt["over"] is False
    assert nxt["hands"] == [ALL40[20:30], ALL40[30:40]] and nxt["stock"] == []
    assert nxt["options"]["next_deal_leader"] == mode


@pytest.mark.parametrize("fmt", ["khasino", "durban"])
@pytest.mark.parametrize("mode", [0, 1, 2])
def test_k14_whole_games_deal_2_led_as_the_option_says(fmt, mode):
    for seed in range(4):
        st = R.initial_state(fmt, seed, options={"next_deal_leader": mode})
        rng = R.SplitMix64(seed)
        leader, movers = None, []
        while not st["over"]:
            if st["deal"] == 2:
                movers.append(st["to_move"])
            m = R.choose("random", R.legal_moves(st), rng.next())
            nxt = m.result
            if nxt["deal"] == 2 and st["deal"] == 1:
                lc1 = m.after["last_capturer"]               # the first deal's last capturer
                leader = {0: 0, 1: 1, 2: 0 if lc1 is None else lc1}[mode]
                assert nxt["to_move"] == leader and [len(h) for h in nxt["hands"]] == [10, 10]
            assert nxt["options"]["next_deal_leader"] == mode
            st = nxt
        assert movers == [leader, 1 - leader] * 10                # deal 2 alternates from its leader
        assert_40(st)


@pytest.mark.parametrize("fmt", ["khasino-3p", "khasino-3p-stock", "khasino-4p"])
def test_k14_no_effect_in_one_deal_formats(fmt):
    for mode in (1, 2):
        a = R.play_game(fmt, 7)
        b = R.play_game(fmt, 7, options={"next_deal_leader": mode})
        assert a["keys"] == b["keys"] and a["scores"] == b["scores"]
        assert b["final"]["options"]["next_deal_leader"] == mode


# ---------------------------------------------------------------------------------------------------------
# Whole games with random option combinations: every successor carries the options, every card accounted for
# ---------------------------------------------------------------------------------------------------------
def _random_khasino_options(rnd):
    return {"trail_restricted": rnd.random() < 0.5, "no_trail_own_build_first_deal": rnd.random() < 0.5,
            "max_builds_owned": rnd.choice([0, 1, 2, 3]), "change_mode": rnd.choice([0, 1]),
            "follow_ups": rnd.random() < 0.5, "opponent_piles": rnd.random() < 0.5,
            "last_capturer_takes_table": rnd.random() < 0.5, "next_deal_leader": rnd.choice([0, 1, 2])}


@pytest.mark.parametrize("fmt", KHASINO_FORMATS)
def test_khasino_random_option_games_keep_every_card(fmt):
    rnd = random.Random(fmt)
    seats = R.FORMATS[fmt]["seats"]
    for seed in range(6):
        opts = _random_khasino_options(rnd)
        bots = tuple(rnd.choice(["random", "greedy"]) for _ in range(seats))
        res = R.play_game(fmt, seed, bots, options=opts)
        assert res["no_move"] == 0 and res["final"]["over"] is True
        assert res["final"]["options"] == opts
        assert_40(res["final"])
        if opts["last_capturer_takes_table"]:
            assert res["final"]["table"] == {"loose": [], "builds": []} and res["winner"] is not None
        # step by step through the JSON API: every position, move and successor
        st = R.initial_state(fmt, seed, options=opts)
        rng = R.SplitMix64(seed ^ 0x5555)
        while not st["over"]:
            moves = R.legal_moves(st)
            assert moves
            m = R.choose(bots[st["to_move"]], moves, rng.next())
            assert m.after["options"] == opts and m.result["options"] == opts
            assert list(m.result)[:2] == ["format", "options"]
            if m.after.get("decision") is None:
                assert_40(m.after)
            st = m.result
            assert_40(st)
        # the options change the rules only: with the same bot choices, the options equal to the defaults
        # replay as no options at all
    d = R.play_game(fmt, 99, options=R.default_options(fmt))
    assert d == R.play_game(fmt, 99)


# ---------------------------------------------------------------------------------------------------------
# Kasino (reference_kasino.py): JSON contract
# ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", KASINO_FORMATS)
def test_kasino_defaults_written_right_after_format_and_round_trip(fmt):
    st = K.initial_state(fmt, 4)
    assert list(st)[:2] == ["format", "options"]
    assert list(st["options"]) == ["alt_deal", "compulsory_tabbe", "tabbe_value"]
    assert st["options"] == {"alt_deal": fmt == "kasino-2p-alt", "compulsory_tabbe": True, "tabbe_value": 5}
    assert st["options"] == K.default_options(fmt)
    assert K._to_json(K._from_json(json.loads(json.dumps(st)))) == st
    bare = {k: v for k, v in st.items() if k != "options"}
    assert K._to_json(K._from_json(bare)) == st
    m = K.legal_moves(st)[0]
    assert m.after["options"] == m.result["options"] == st["options"]


def test_kasino_partial_options():
    st = K.initial_state("kasino-3p", 2, options={"tabbe_value": 9})
    assert st["options"] == {"alt_deal": False, "compulsory_tabbe": True, "tabbe_value": 9}
    st = K.initial_state("kasino-2p-alt", 2, options={"compulsory_tabbe": False})
    assert st["options"] == {"alt_deal": True, "compulsory_tabbe": False, "tabbe_value": 5}


@pytest.mark.parametrize("bad,name", [
    ({"rounds": 4}, "rounds"),
    ({"match_rounds": 4}, "match_rounds"),
    ({"compulsory_tabbe": 1}, "compulsory_tabbe"),
    ({"compulsory_tabbe": None}, "compulsory_tabbe"),
    ({"alt_deal": "yes"}, "alt_deal"),
    ({"tabbe_value": 0}, "tabbe_value"),
    ({"tabbe_value": 51}, "tabbe_value"),
    ({"tabbe_value": True}, "tabbe_value"),
    ({"tabbe_value": 5.0}, "tabbe_value"),
])
def test_kasino_bad_options_rejected_naming_them(bad, name):
    with pytest.raises(ValueError, match=name):
        K.initial_state("kasino-2p", 1, options=bad)
    with pytest.raises(ValueError, match=name):
        K.play_match("kasino-2p", 1, options=bad)
    st = K.initial_state("kasino-2p", 1)
    with pytest.raises(ValueError, match=name):
        K.legal_moves(dict(st, options=bad))


@pytest.mark.parametrize("fmt", ["kasino-3p", "kasino-4p", "kasino-5p", "kasino-6p"])
def test_n1_alt_deal_only_with_two_seats(fmt):
    with pytest.raises(ValueError, match="alt_deal"):
        K.initial_state(fmt, 1, options={"alt_deal": True})
    st = K.initial_state(fmt, 1, options={"alt_deal": False})
    assert st == K.initial_state(fmt, 1)
    with pytest.raises(ValueError, match="alt_deal"):
        K.legal_moves(dict(st, options={"alt_deal": True}))


def test_kasino_options_not_in_move_keys():
    st = kasino_pos(hands=[["7C", "2D"], ["9H", "9S"]], table=["3H", "4S", "7D"])
    keys = {m.key for m in K.legal_moves(st)}
    other = {m.key for m in K.legal_moves(dict(st, options={"tabbe_value": 7}))}
    assert keys == other


@pytest.mark.parametrize("fmt", KASINO_FORMATS)
def test_kasino_default_options_play_exactly_as_no_options(fmt):
    a = K.play_round(fmt, 8)
    assert a == K.play_round(fmt, 8, options=K.default_options(fmt)) == K.play_round(fmt, 8, options={})


# ---------------------------------------------------------------------------------------------------------
# N3: compulsory_tabbe
# ---------------------------------------------------------------------------------------------------------
def test_n3_clearing_card_compulsory_by_default():
    st = kasino_pos(hands=[["7C", "2D"], ["9H", "9S"]], table=["3H", "4S", "7D"])
    assert ksummary(K.legal_moves(st)) == {("7C", "capture", ("3H", "4S", "7D"))}


def test_n3_off_other_moves_legal_and_n2_still_maximal():
    """compulsory_tabbe=false: the clearing capture is one move among the others, still a tabbe; N2 (P23)
    still applies: 7C may not take 7D alone while 3H + 4S would be left as a match."""
    st = kasino_pos(hands=[["7C", "2D"], ["9H", "9S"]], table=["3H", "4S", "7D"],
                    options={"compulsory_tabbe": False})
    moves = K.legal_moves(st)
    assert ksummary(moves) == {("7C", "capture", ("3H", "4S", "7D")), ("2D", "trail", ())}
    (clear,) = [m for m in moves if m.kind == "capture"]
    assert clear.tabbe == 5 and clear.after["tabbe"] == [[5, 0], [0, -5]]


def test_n3_off_non_clearing_captures_also_legal():
    st = kasino_pos(hands=[["7C", "3D"], ["9H", "9S"]], table=["3H", "4S"], options={"compulsory_tabbe": False})
    assert ksummary(K.legal_moves(st)) == {("7C", "capture", ("3H", "4S")), ("3D", "capture", ("3H",))}
    st["options"] = {}
    assert ksummary(K.legal_moves(st)) == {("7C", "capture", ("3H", "4S"))}


# ---------------------------------------------------------------------------------------------------------
# N4: tabbe_value
# ---------------------------------------------------------------------------------------------------------
def test_n4_tabbe_value_seven():
    st = kasino_pos(hands=[["5C", "9D"], ["9H", "9S"]], table=["2H", "3S"], options={"tabbe_value": 7})
    (m,) = K.legal_moves(st)
    assert (m.card, m.captured, m.tabbe) == ("5C", ["2H", "3S"], 7)
    assert m.to_json()["tabbe"] == 7
    assert m.after["tabbe"] == [[7, 0], [0, -7]]                 # the player just before (seat 1) pays
    assert m.points == 1 + 7                                      # 3S (1 card point) + the tabbe plus


def test_n4_double_tabbe_twice_the_value():
    st = kasino_pos(hands=[["5C", "9D"], ["9H", "9S"]], table=["5H"], options={"tabbe_value": 7})
    (m,) = K.legal_moves(st)
    assert m.tabbe == 14 and m.after["tabbe"] == [[14, 0], [0, -14]]
    st["options"] = {}
    (m,) = K.legal_moves(st)
    assert m.tabbe == 10


def test_n4_tabbe_value_with_three_seats_charges_the_player_before():
    st = kasino_pos("kasino-3p", hands=[["9D"], ["KC", "5C"], ["9H", "9S"]], table=["2H", "3S"], to_move=1,
                    dealer=2, options={"tabbe_value": 12}, last_player=0)
    moves = {m.card: m for m in K.legal_moves(st)}
    assert set(moves) == {"5C"}
    assert moves["5C"].after["tabbe"] == [[0, -12], [12, 0], [0, 0]]


@pytest.mark.parametrize("fmt", KASINO_FORMATS)
def test_n4_tabbe_value_whole_rounds_sum_to_43(fmt):
    for seed in range(3):
        res = K.play_round(fmt, seed, options={"tabbe_value": 7})
        assert sum(s["total"] for s in res["scores"]) == 43      # pluses and minuses cancel (P26)
        for s in res["scores"]:
            assert s["tabbe_plus"] % 7 == 0 and s["tabbe_minus"] % 7 == 0
        plain = K.play_round(fmt, seed)
        assert plain["keys"] == res["keys"]                      # same play: the value changes the scores only
        for a, b in zip(plain["scores"], res["scores"]):
            assert b["tabbe_plus"] * 5 == a["tabbe_plus"] * 7 and b["tabbe_minus"] * 5 == a["tabbe_minus"] * 7


# ---------------------------------------------------------------------------------------------------------
# N1: alt_deal
# ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1, 17, 2 ** 63 + 5])
def test_n1_kasino_2p_with_alt_deal_deals_like_kasino_2p_alt(seed):
    a = K.initial_state("kasino-2p", seed, options={"alt_deal": True})
    b = K.initial_state("kasino-2p-alt", seed)
    assert [len(h) for h in a["hands"]] == [5, 5] and len(a["table"]["loose"]) == 6
    assert dict(a, format="kasino-2p-alt") == b
    # and back: kasino-2p-alt without alt_deal deals like kasino-2p (6 each, 4 to the table)
    c = K.initial_state("kasino-2p-alt", seed, options={"alt_deal": False})
    d = K.initial_state("kasino-2p", seed)
    assert [len(h) for h in c["hands"]] == [6, 6] and dict(c, format="kasino-2p") == d


def test_n1_alt_deal_whole_rounds_and_matches_identical():
    for seed in range(3):
        a = K.play_round("kasino-2p", seed, ("greedy", "random"), options={"alt_deal": True})
        b = K.play_round("kasino-2p-alt", seed, ("greedy", "random"))
        assert a["keys"] == b["keys"] and a["scores"] == b["scores"]
        assert dict(a["final"], format="kasino-2p-alt") == b["final"]
    a = K.play_match("kasino-2p", 5, options={"alt_deal": True})
    b = K.play_match("kasino-2p-alt", 5)
    assert a["totals"] == b["totals"] and a["winner"] == b["winner"]


def test_n1_alt_deal_hand_sizes_checked_by_the_option():
    st = K.initial_state("kasino-2p", 3)
    assert K.legal_moves(st)                                      # 6 each: kasino-2p's first deal
    with pytest.raises(ValueError):
        K.legal_moves(dict(st, options={"alt_deal": True}))     # 6 each does not fit a 5-card first deal
    alt = K.initial_state("kasino-2p", 3, options={"alt_deal": True})
    assert [len(h) for h in alt["hands"]] == [5, 5] and K.legal_moves(alt)


# ---------------------------------------------------------------------------------------------------------
# Kasino: whole rounds with random option combinations
# ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", KASINO_FORMATS)
def test_kasino_random_option_rounds_keep_every_card(fmt):
    rnd = random.Random(fmt)
    for seed in range(3):
        opts = {"compulsory_tabbe": rnd.random() < 0.5, "tabbe_value": rnd.randint(1, 50)}
        if K.FORMATS[fmt]["seats"] == 2:
            opts["alt_deal"] = rnd.random() < 0.5
        st = K.initial_state(fmt, seed, options=opts)
        full = dict(K.default_options(fmt), **opts)
        rng = K.SplitMix64(seed)
        while not st["over"]:
            moves = K.legal_moves(st)
            assert moves
            if full["compulsory_tabbe"]:
                assert len({m.tabbe > 0 for m in moves}) == 1    # N3: all tabbes or none
            for m in moves:
                assert m.tabbe in (0, full["tabbe_value"], 2 * full["tabbe_value"])
            m = K.choose(rnd.choice(["random", "greedy"]), moves, rng.next())
            assert m.after["options"] == full
            st = m.result
            assert st["options"] == full and list(st)[:2] == ["format", "options"]
            cnt = kasino_count(st)
            assert sum(cnt.values()) == 104 and set(cnt.values()) == {2}
        assert sum(s["total"] for s in K.score(st)) == 43
    res = K.play_match(fmt, 3, options={"compulsory_tabbe": False, "tabbe_value": 2})
    assert all(r["final"]["options"]["tabbe_value"] == 2 for r in res["rounds"])
