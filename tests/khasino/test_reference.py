"""Quick self-checks of the pure-Python reference engine (khasino_sim/reference.py)."""
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from khasino_sim import reference as R  # noqa: E402

ALL40 = [R.card_name(i) for i in range(40)]


def make_state(fmt, hand0, hand1, loose=(), builds=(), pile1=(), to_move=0, deal=2):
    """A deal-2 position (no stock), seat `to_move` to play.  Cards not named go to the bottom of the
    mover's own pile (never usable by him, K8), so all 40 cards are accounted for."""
    used = list(hand0) + list(hand1) + list(loose) + list(pile1)
    for b in builds:
        for g in b["groups"]:
            used += g
    assert len(used) == len(set(used))
    rest = [c for c in ALL40 if c not in used]
    piles = [[], list(pile1)]
    piles[to_move] = rest + piles[to_move]
    return {
        "format": fmt, "deal": deal, "to_move": to_move,
        "hands": [list(hand0), list(hand1)],
        "table": {"loose": sorted(loose, key=R.parse_card), "builds": list(builds)},
        "piles": piles, "stock": [], "last_capturer": to_move, "over": False,
    }


def moves_of(state, card=None, kind=None):
    return [m for m in R.legal_moves(state)
            if (card is None or m.card == card) and (kind is None or m.kind == kind)]


def builds_after(m):
    return [(b["value"], b["owner"], b["groups"]) for b in m.after["table"]["builds"]]


def all_cards(state):
    cards = [c for h in state["hands"] for c in h] + state["table"]["loose"] + state["stock"]
    cards += [c for b in state["table"]["builds"] for g in b["groups"] for c in g]
    cards += [c for p in state["piles"] for c in p]
    return cards


# ------------------------------------------------------------------ randomness / hash


def test_splitmix_and_fmix():
    rng = R.SplitMix64(0)
    # splitmix64 reference value for seed 0
    assert rng.next() == 0xE220A8397B1DCDAF
    assert R.fmix(0) == 0
    assert R.SplitMix64.fmix(12345) == R.fmix(12345)


def test_initial_state_deal():
    st = R.initial_state("khasino", 7)
    assert [len(h) for h in st["hands"]] == [10, 10] and len(st["stock"]) == 20
    assert sorted(all_cards(st), key=R.parse_card) == ALL40
    assert st["to_move"] == 0 and st["deal"] == 1 and st["over"] is False
    assert st["last_capturer"] is None and st["table"] == {"loose": [], "builds": []}
    json.dumps(st)


# ------------------------------------------------------------------ seed examples


def test_seed_build_nine_needs_a_kept_nine():
    # source 000 (docs/rules/khasino.md K5): "hand 5 + loose 4 makes Build 9 only if you keep a 9"
    st = make_state("khasino", ["5H", "9C"], ["2C", "3C"], loose=["4C"])
    b = moves_of(st, "5H", "build")
    assert [builds_after(m) for m in b] == [[(9, 0, [["5H", "4C"]])]]
    st = make_state("khasino", ["5H", "8C"], ["2C", "3C"], loose=["4C"])
    assert moves_of(st, "5H", "build") == []


def test_seed_pair_both_readings():
    # source 000 (K5): hand 5 + loose 5 -> Build 5 (compound, another 5 kept) or Build 10 (simple, a 10 kept)
    st = make_state("khasino", ["5H", "5D", "10C"], ["2C", "3C", "4C"], loose=["5S"])
    got = sorted(builds_after(m)[0][:2] + (len(builds_after(m)[0][2]),) for m in moves_of(st, "5H", "build"))
    assert got == [(5, 0, 2), (10, 0, 1)]


def test_khasino_change_example():
    # source 000 (docs/rules/khasino.md K7): opponent's 4 + 5 = Build 9, your Ace makes Build 10 if you retain a 10
    b9 = {"value": 9, "owner": 1, "groups": [["5S", "4H"]]}
    st = make_state("khasino", ["AH", "10C"], ["9C", "2C"], builds=[b9])
    ch = moves_of(st, "AH", "change")
    assert [builds_after(m) for m in ch] == [[(10, 0, [["5S", "4H", "AH"]])]]
    st = make_state("khasino", ["AH", "8C"], ["9C", "2C"], builds=[b9])
    assert moves_of(st, "AH", "change") == []
    # own build, or a compound build, cannot be changed
    st = make_state("khasino", ["AH", "10C", "9C"], ["2C", "3C", "4C"], builds=[dict(b9, owner=0)])
    assert moves_of(st, "AH", "change") == []
    b9c = {"value": 9, "owner": 1, "groups": [["5S", "4H"], ["9D"]]}
    st = make_state("khasino", ["AH", "10C"], ["9C", "2C"], builds=[b9c])
    assert moves_of(st, "AH", "change") == []


def test_durban_change_example():
    # source 001 (docs/rules/khasino.md K7): add a 2 to an opponent's Build 6 while keeping an 8 -> your Build 8
    b6 = {"value": 6, "owner": 1, "groups": [["4S", "2H"]]}
    st = make_state("durban", ["2C", "8C"], ["6C", "3C"], loose=["AD"], builds=[b6])
    got = sorted((builds_after(m)[0][0], tuple(m.after["table"]["loose"])) for m in moves_of(st, "2C", "change"))
    assert got == [(8, ("AD",))]   # 9 would need a kept 9
    st = make_state("durban", ["2C", "9C"], ["6C", "3C"], loose=["AD"], builds=[b6])
    got = [builds_after(m) for m in moves_of(st, "2C", "change")]
    assert got == [[(9, 0, [["4S", "2H", "2C", "AD"]])]]


# ------------------------------------------------------------------ rulings


def test_p1_last_committed_card_only_captures_its_build():
    b9 = {"value": 9, "owner": 0, "groups": [["5S", "4H"]]}
    st = make_state("khasino", ["9C", "3H"], ["2C", "3C"], loose=["9D"], builds=[b9])
    ms = moves_of(st, "9C")
    assert ms and all(m.kind == "capture" and "5S" in m.after["piles"][0] for m in ms)


def test_k8_pile_cards_each_in_a_different_group_and_grounded():
    # opponent pile top 3S, below it 4S: 7 cannot take 3S+4S as one group, and never pile cards alone
    st = make_state("khasino", ["7C", "2H"], ["2C", "3C"], pile1=["4S", "3S"])
    assert moves_of(st, "7C", "capture") == []
    st = make_state("khasino", ["7C", "2H"], ["2C", "3C"], loose=["4D"], pile1=["4S", "3S"])
    caps = moves_of(st, "7C", "capture")
    assert [m.after["piles"][0][-3:] for m in caps] == [["4D", "3S", "7C"]]
    assert caps[0].after["piles"][1] == ["4S"]


def test_k11_khasino_trail_restrictions_and_durban_drift():
    st = make_state("khasino", ["5H", "7C"], ["2C", "3C"], loose=["5S"])
    assert moves_of(st, "5H", "trail") == []
    assert len(moves_of(st, "7C", "trail")) == 1
    st = make_state("durban", ["5H", "7C"], ["2C", "3C"], loose=["5S"])
    assert len(moves_of(st, "5H", "trail")) == 1
    # khasino, first deal, owning a build: no trail at all
    b9 = {"value": 9, "owner": 0, "groups": [["5S", "4H"]]}
    st = make_state("khasino", ["9C", "9D", "AH"], ["2C", "3C", "4C"], builds=[b9], deal=1)
    st["stock"], st["piles"][0] = st["piles"][0][:20], st["piles"][0][20:]
    assert [m for m in R.legal_moves(st) if m.kind == "trail"] == []


def test_p6_durban_single_build():
    b9 = {"value": 9, "owner": 0, "groups": [["5S", "4H"]]}
    st = make_state("durban", ["9C", "9D", "3H", "6C"], ["2C", "3C", "4C", "AC"], loose=["3D"], builds=[b9])
    kinds = {m.kind for m in R.legal_moves(st)}
    assert "build" not in kinds and "load" in kinds


def test_k9_followups_khasino_only():
    # capture 2S with 2H, then add loose 6D+3D to own build 9 (khasino only)
    b9 = {"value": 9, "owner": 0, "groups": [["5S", "4H"]]}
    for fmt, expect in (("khasino", True), ("durban", False)):
        st = make_state(fmt, ["2H", "9C"], ["2C", "3C"], loose=["2S", "3D", "6D"], builds=[b9])
        caps = moves_of(st, "2H", "capture")
        found = any(b["groups"] == [["5S", "4H"], ["6D", "3D"]] for m in caps
                    for b in m.after["table"]["builds"])
        assert found is expect


# ------------------------------------------------------------------ whole games


def check_commitment(state):
    """P1 consequence: every build owner holds a card of its value; durban: at most one build each (P6)."""
    for b in state["table"]["builds"]:
        assert any(R.parse_card(c) // 4 + 1 == b["value"] for c in state["hands"][b["owner"]]) or \
            not any(state["hands"]), b
        assert all(sum(R.parse_card(c) // 4 + 1 for c in g) == b["value"] for g in b["groups"])
    if state["format"] == "durban":
        owners = [b["owner"] for b in state["table"]["builds"]]
        assert len(owners) == len(set(owners))


@pytest.mark.parametrize("fmt", ["khasino", "durban"])
def test_random_games_invariants(fmt):
    rng = R.SplitMix64(4242)
    st = R.initial_state(fmt, 77)
    while not st["over"]:  # one game played through the public API, checking every successor
        ms = R.legal_moves(st)
        assert ms
        for m in ms[:25]:
            check_commitment(m.after)
        st = R.choose("random", ms, rng.next()).result
    for g in range(30):
        res = R.play_game(fmt, 1000 + g)
        final = res["final"]
        assert res["no_move"] == 0
        assert len(res["keys"]) == 40
        assert final["over"] is True and final["to_move"] is None
        assert sorted(all_cards(final), key=R.parse_card) == ALL40
        assert sum(len(p) for p in final["piles"]) == 40
        assert sum(s["total"] for s in res["scores"]) == 11
        assert res["scores"] == R.score(final)
        json.dumps(res)


@pytest.mark.parametrize("fmt", ["khasino", "durban"])
def test_keys_are_hash_deltas_and_distinct(fmt):
    rng = R.SplitMix64(99)
    st = R.initial_state(fmt, 5)
    while not st["over"]:
        ms = R.legal_moves(st)
        assert len({m.key for m in ms}) == len(ms)
        h = R.state_hash(st)
        for m in ms[:40]:
            assert 0 <= m.key < 2 ** 64
            assert m.key == R.state_hash(m.after) ^ h
            assert sorted(all_cards(m.after), key=R.parse_card) == ALL40
            if any(m.after["hands"]):  # no deal or sweep: the successor only passes the turn
                assert R.state_hash(m.result) == R.state_hash(m.after)
                assert m.result["to_move"] == 1 - st["to_move"]
        st = R.choose("random", ms, rng.next()).result


def test_play_game_deterministic_and_greedy():
    a = R.play_game("khasino", 3, ("greedy", "random"))
    b = R.play_game("khasino", 3, ("greedy", "random"))
    assert a == b
    assert R.play_game("durban", 3, ("greedy", "greedy"))["no_move"] == 0
