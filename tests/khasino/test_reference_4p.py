"""Four-player team Khasino in the pure-Python reference engine (khasino_sim/reference/khasino.py): format
``khasino-4p`` (docs/rules/khasino.md K15; docs/rules/project.md P11-P15; docs/ENGINE.md "Four players",
"Decisions that are not card plays").  Seats A=0, B=1 (team AB = 0), C=2, D=3 (team CD = 1)."""
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from khasino_sim import reference as R  # noqa: E402
from tests.khasino.test_reference_3p import deck_order  # noqa: E402 (the same deal stream, written out once)

FMT = "khasino-4p"
ALL40 = [R.card_name(i) for i in range(40)]
STAY_KEY, DECLINE_KEY = R.Z(7, 1, 1, 0), R.Z(7, 1, 0, 0)
PARTNER = [1, 0, 3, 2]
TEAM = [0, 0, 1, 1]


def val(card):
    return R.parse_card(card) // 4 + 1


def by_index(cards):
    return sorted(cards, key=R.parse_card)


def all_cards(state):
    cards = [c for h in state["hands"] for c in h] + state["table"]["loose"] + state["stock"]
    cards += [c for b in state["table"]["builds"] for g in b["groups"] for c in g]
    cards += [c for p in state["piles"] for c in p]
    return cards


def build(value, owner, groups, promised=False):
    return {"value": value, "owner": owner, "groups": groups, "promised": promised}


def make_state4(hands, loose=(), builds=(), piles=([], [], [], []), to_move=0, promises=None, last_capturer=0,
                rest_to=None):
    """A 4p position, seat ``to_move`` to play.  Cards not named go to the bottom of the pile of ``rest_to``
    (default: the mover's own pile, never usable by him, K8), so all 40 cards are accounted for."""
    used = [c for h in hands for c in h] + list(loose) + [c for p in piles for c in p]
    used += [c for b in builds for g in b["groups"] for c in g]
    assert len(used) == len(set(used))
    rest = [c for c in ALL40 if c not in used]
    piles = [list(p) for p in piles]
    who = to_move if rest_to is None else rest_to
    piles[who] = rest + piles[who]
    return {
        "format": FMT, "deal": 1, "to_move": to_move, "hands": [by_index(h) for h in hands],
        "table": {"loose": by_index(loose), "builds": sorted(builds, key=lambda b: b["value"])},
        "piles": piles, "stock": [], "last_capturer": last_capturer, "teams": [[0, 1], [2, 3]],
        "promises": promises or [[], [], [], []], "decision": None, "over": False,
    }


def moves_of(state, card=None, kind=None):
    return [m for m in R.legal_moves(state)
            if (card is None or m.card == card) and (kind is None or m.kind == kind)]


def builds_after(m):
    return [(b["value"], b["owner"], b["groups"], b["promised"]) for b in m.after["table"]["builds"]]


def canon(state):
    return json.dumps(state, sort_keys=True)




# ------------------------------------------------------------------ K15, P11: seats, deal, lead, turn order


def test_p11_deal_and_lead_decision_state():
    d = deck_order(31)
    st = R.initial_state(FMT, 31)
    assert st["hands"] == [by_index(d[0:10]), by_index(d[10:20]), by_index(d[20:30]), by_index(d[30:40])]
    assert st["table"] == {"loose": [], "builds": []} and st["stock"] == [] and st["deal"] == 1
    assert st["piles"] == [[], [], [], []] and st["last_capturer"] is None and st["over"] is False
    assert st["to_move"] == 0 and st["decision"] == {"kind": "lead", "team": [0, 1]}
    assert st["teams"] == [[0, 1], [2, 3]] and st["promises"] == [[], [], [], []]
    assert list(st) == ["format", "options", "deal", "to_move", "hands", "table", "piles", "stock", "last_capturer",
                        "teams", "promises", "decision", "over"]
    json.dumps(st)


def test_p11_leader_argument_is_zero_only():
    for bad in (1, 2, 3, 4):
        with pytest.raises(ValueError):
            R.initial_state(FMT, 3, leader=bad)
    with pytest.raises(ValueError):
        R.play_game(FMT, 3, ("random",) * 4, leader=1)
    with pytest.raises(ValueError):
        R.play_game(FMT, 3, ("random",) * 3)               # one bot per seat


def test_p11_lead_options():
    st = R.initial_state(FMT, 9)
    ms = R.legal_moves(st)
    assert sorted((m.kind, m.seat) for m in ms) == [("lead", 0), ("lead", 1)]
    for m in ms:
        assert m.key == R.Z(7, 0, m.seat, 0)               # ENGINE.md: fixed option keys
        assert m.result == dict(st, to_move=m.seat, decision=None)
        assert (m.points, m.cards, m.spades, m.table_points) == (0, 0, 0, 0)
    # the hash of the dealt position does not see the decision (ENGINE.md: decisions are not part of H)
    assert R.state_hash(st) == R.state_hash(ms[0].result)


def test_k15_p11_turn_order():
    assert [R.next_seat(FMT, s) for s in range(4)] == [2, 3, 1, 0]      # A -> C -> B -> D -> A


@pytest.mark.parametrize("leader", [0, 1])
def test_k15_p11_turn_order_from_either_leader(leader):
    st = R.initial_state(FMT, 8)
    (lead,) = [m for m in R.legal_moves(st) if m.seat == leader]
    st = lead.result
    order = {0: [0, 2, 1, 3], 1: [1, 3, 0, 2]}[leader]
    rng = R.SplitMix64(8)
    seen = []
    while not st["over"]:
        if st["decision"] is None:
            seen.append(st["to_move"])
        else:                                              # a Stay decision: answered by the partner
            assert st["decision"]["kind"] == "stay" and st["to_move"] == PARTNER[st["decision"]["seat"]]
        st = R.choose("random", R.legal_moves(st), rng.next()).result
    assert seen == [order[i % 4] for i in range(40)]       # every seat plays 10 cards, in turn order


# ------------------------------------------------------------------ K8, K15: opponents' piles only


@pytest.mark.parametrize("mover", [0, 1, 2, 3])
def test_k8_k15_both_opponents_piles_never_the_teammates(mover):
    # each seat's pile shows a 5; loose 10S grounds a capture (K4); 10C may add a pile-only group 5 + 5 of one
    # card of each opponent pile (P4), never a 5 of the teammate's pile or of his own
    fives = ["5S", "5H", "5D", "5C"]
    others = [["9H", "8S"], ["9D", "8H"], ["9C", "8D"]]
    hands = [["10C", "2S"] if s == mover else others.pop(0) for s in range(4)]
    st = make_state4(hands, loose=["10S"], piles=[[f] for f in fives], to_move=mover)
    opps = [q for q in range(4) if TEAM[q] != TEAM[mover]]
    pair = tuple(sorted((fives[q] for q in opps), key=R.parse_card))    # K10: equal ranks S, H, D, C
    tails = {tuple(m.after["piles"][mover][len(st["piles"][mover]):]) for m in moves_of(st, "10C", "capture")}
    assert tails == {("10S", "10C"), ("10S",) + pair + ("10C",)}       # groups by mask: 10S's first
    for m in R.legal_moves(st):
        own = st["piles"][mover]
        assert m.after["piles"][mover][:len(own)] == own                # own pile: only added to
        assert m.after["piles"][PARTNER[mover]] == st["piles"][PARTNER[mover]]   # teammate's intact


def test_k8_teammates_top_card_never_completes_a_group():
    # seat 0: 10C with loose AC needs 9; seat 1's (teammate) pile shows 9H; seat 2's shows 4S over seat 3's 5D
    st = make_state4([["10C", "2S"], ["8S"], ["8H"], ["8D"]], loose=["AC"],
                     piles=([], ["9H"], ["4S"], ["5D"]))
    caps = {tuple(m.after["piles"][0][len(st["piles"][0]):]) for m in moves_of(st, "10C", "capture")}
    assert caps == {("5D", "4S", "AC", "10C")}           # one group with one card of each opponent (P4)
    for m in R.legal_moves(st):
        assert m.after["piles"][1] == ["9H"]


# ------------------------------------------------------------------ K7, K15: change only opponents' builds


@pytest.mark.parametrize("owner", [1, 2, 3])
def test_k7_k15_change_never_a_teammates_build(owner):
    b7 = build(7, owner, [["4S", "3H"]])
    hands = [["AC", "8D", "2C"], ["7S", "9S"], ["7H", "9H"], ["7D", "9D"]]
    st = make_state4(hands, builds=[b7])
    ch = moves_of(st, kind="change")
    if owner == 1:
        assert ch == []                                   # the teammate's build: never (K15)
    else:
        (m,) = ch
        assert builds_after(m) == [(8, 0, [["4S", "3H", "AC"]], True)]      # P13: changed to 8, promised


# ------------------------------------------------------------------ P12 (K6, K15): teammate load


def test_p12_teammate_loads_partners_build_without_holding_its_value():
    b9 = build(9, 1, [["5S", "4H"]], promised=True)
    st = make_state4([["4C", "2D"], ["9H", "AS"], ["8H"], ["8D"]], loose=["5C"], builds=[b9])
    (m,) = moves_of(st, "4C", "load")
    assert builds_after(m) == [(9, 1, [["5S", "4H"], ["5C", "4C"]], True)]   # owner and promise unchanged
    # an opponent's build: K6 needs a 9 kept
    st = make_state4([["4C", "2D"], ["AS"], ["9H", "8H"], ["8D"]], loose=["5C"],
                     builds=[build(9, 2, [["5S", "4H"]])])
    assert moves_of(st, "4C", "load") == []
    st = make_state4([["4C", "9C"], ["AS"], ["9H", "8H"], ["8D"]], loose=["5C"],
                     builds=[build(9, 2, [["5S", "4H"]])])
    assert len(moves_of(st, "4C", "load")) == 1


def test_p12_teammate_may_drop_his_last_card_of_the_value_on_the_partners_build():
    b9 = build(9, 1, [["5S", "4H"]])
    st = make_state4([["9C", "2D"], ["9H", "AS"], ["8H"], ["8D"]], builds=[b9])
    (m,) = moves_of(st, "9C", "load")
    assert builds_after(m) == [(9, 1, [["5S", "4H"], ["9C"]], False)]
    # on his own build he may not (K6, P1): own build 9, only one 9 left in hand
    st = make_state4([["9C", "4C"], ["9H", "AS"], ["8H"], ["8D"]], loose=["5C"],
                     builds=[build(9, 0, [["5S", "4H"]])])
    assert moves_of(st, "9C", "load") == []
    assert len(moves_of(st, "4C", "load")) == 1          # 4C + 5C, keeping the 9 (K6)


def test_p12_p1_the_movers_own_commitment_still_binds():
    # seat 0 owns build 4 and holds one 4: loading the partner's 9 with 4C + 5C would drop it (P1)
    st = make_state4([["4C", "6C"], ["9H"], ["8H"], ["8D"]], loose=["5C"],
                     builds=[build(4, 0, [["3S", "AH"]]), build(9, 1, [["5S", "4H"]])])
    assert [m.kind for m in moves_of(st, "4C")] == ["capture"]
    (cap,) = moves_of(st, "4C")
    assert [b["value"] for b in cap.after["table"]["builds"]] == [9]


# ------------------------------------------------------------------ P13: promises


def test_p13_promise_opens_when_an_opponent_captures_and_closes_when_the_owner_plays_the_value():
    st = make_state4([["4C", "9C", "2C"], ["3H", "7S", "8S"], ["9D", "6S", "7H"], ["AS", "8H", "10H"]],
                     loose=["5C", "6H"], rest_to=2, last_capturer=2)
    # A builds 9 (5C + 4C), keeping 9C: a public promise, the build is promised
    (b,) = [m for m in moves_of(st, "4C", "build") if builds_after(m) == [(9, 0, [["5C", "4C"]], True)]]
    assert b.after["promises"] == [[], [], [], []]
    st = b.result
    assert st["to_move"] == 2
    # C captures it (his partner D holds no 9: no Stay): A's promise 9 is open
    (cap,) = [m for m in moves_of(st, "9D", "capture") if m.after["table"]["loose"] == ["6H"]]
    assert cap.after["promises"] == [[9], [], [], []]
    st = cap.result
    assert st["promises"] == [[9], [], [], []] and st["to_move"] == 1
    # B rebuilds 9 for A: 3H + loose 6H, without holding a 9 (P14); the rebuilt build is A's and promised
    # (C's pile now shows 9D over 4C, 5C: rebuilds may also take 9D as a group of its own, P4)
    rbs = moves_of(st, "3H", "build")
    assert rbs and all(builds_after(m)[0][1] == 0 for m in rbs)
    (rb,) = [m for m in rbs if builds_after(m) == [(9, 0, [["6H", "3H"]], True)]]
    assert rb.after["promises"] == [[9], [], [], []]      # the open promise stays until A plays a 9 (P13)
    st = rb.result
    # D trails; then A captures his rebuilt build with 9C: playing a 9 closes his open promise
    (tr,) = moves_of(st, "AS", "trail")
    st = tr.result
    assert st["to_move"] == 0
    caps = moves_of(st, "9C", "capture")
    assert caps and all(m.after["promises"][0] == [] for m in caps)


def test_p13_capture_by_owner_or_teammate_opens_nothing():
    b9 = build(9, 0, [["5C", "4C"]], promised=True)
    for mover in (0, 1):
        hands = [["9C", "2C"], ["9H", "3H"], ["8D"], ["8H"]]
        if mover == 0:
            hands[0] = ["9C", "9S"]
            hands[1] = ["3H", "2C"]                        # partner without a 9: no Stay
        st = make_state4(hands, builds=[b9], to_move=mover)
        for m in moves_of(st, "9C" if mover == 0 else "9H", "capture"):
            assert m.after["promises"] == [[], [], [], []]


def test_p13_stay_offered_capture_by_teammate_opens_nothing_either_way():
    b9 = build(9, 0, [["5C", "4C"]], promised=True)
    st = make_state4([["9C", "2C"], ["9H", "3H"], ["8D"], ["8H"]], builds=[b9], to_move=1)
    (cap,) = moves_of(st, "9H", "capture")
    dec = cap.result
    for o in R.legal_moves(dec):
        assert o.after["promises"] == [[], [], [], []]


def test_p13_change_by_an_opponent_opens_nothing_and_the_changer_promises():
    b7 = build(7, 0, [["4S", "3H"]], promised=True)
    st = make_state4([["7C", "2C"], ["9H"], ["AC", "8D"], ["8H"]], builds=[b7], to_move=2)
    (m,) = moves_of(st, "AC", "change")
    assert builds_after(m) == [(8, 2, [["4S", "3H", "AC"]], True)]
    assert m.after["promises"] == [[], [], [], []]


def test_p13_owner_playing_the_value_ends_the_promise_on_his_build():
    # A owns promised build 9 and holds two 9s: loading it with 9C ends the promise (the build stays A's)
    b9 = build(9, 0, [["5C", "4C"]], promised=True)
    st = make_state4([["9C", "9S"], ["3H"], ["8D"], ["8H"]], builds=[b9])
    (m,) = moves_of(st, "9C", "load")
    assert builds_after(m) == [(9, 0, [["5C", "4C"], ["9C"]], False)]
    # a load with another card keeps it
    st = make_state4([["9C", "2S"], ["3H"], ["8D"], ["8H"]], loose=["7D"], builds=[b9])
    (m,) = moves_of(st, "2S", "load")
    assert builds_after(m) == [(9, 0, [["5C", "4C"], ["7D", "2S"]], True)]
    # playing a 9 closes an open promise 9, whatever the move (here a trail)
    st = make_state4([["9C", "2S"], ["3H"], ["8D"], ["8H"]], loose=["7D"], promises=[[9], [], [], []])
    (m,) = moves_of(st, "9C", "trail")
    assert m.after["promises"] == [[], [], [], []]
    (m,) = moves_of(st, "2S", "trail")
    assert m.after["promises"] == [[9], [], [], []]


def test_p13_creating_card_of_the_value_does_not_end_the_promise_it_makes():
    # A plays 9C alone as a group beside 5D + 4D, keeping 9S: compound build 9, promised
    st = make_state4([["9C", "9S"], ["3H"], ["8D"], ["8H"]], loose=["5D", "4D"])
    bs = [builds_after(m) for m in moves_of(st, "9C", "build")]
    assert [(9, 0, [["9C"], ["5D", "4D"]], True)] in bs


# ------------------------------------------------------------------ P14: rebuild


def rebuild_state(promises, builds=(), hand1=("3H", "7S"), loose=("6H",), piles=([], [], [], []),
                  hand2=("8D", "7D")):
    """B (seat 1) to move; A (seat 0) holds 9C."""
    return make_state4([["9C", "2C"], list(hand1), list(hand2), ["8H", "7H"]], loose=loose, builds=builds,
                       piles=piles, to_move=1, promises=promises)


def rebuilds(st):
    return [m for m in moves_of(st, kind="build") if any(b["owner"] == 0 and b["value"] == 9
                                                        for b in m.after["table"]["builds"])]


def test_p14_rebuild_while_the_promise_is_open():
    st = rebuild_state([[9], [], [], []])
    (m,) = rebuilds(st)
    assert m.card == "3H" and builds_after(m) == [(9, 0, [["6H", "3H"]], True)]   # owned by A, promised
    assert m.after["hands"][1] == ["7S"] and m.result["to_move"] == 3            # B held no 9 (P14)


def test_p14_no_rebuild_without_an_open_promise():
    # nothing open: A's build was captured by his teammate, or A has played his 9 since (P13)
    assert rebuilds(rebuild_state([[], [], [], []])) == []


def test_p14_no_rebuild_when_the_teammate_captured_the_build():
    # B captures A's promised build 9 with 9H (A holds 9C: a Stay is offered; B's capture opens nothing,
    # P13), then B, still holding 3H with 6H loose, may not rebuild 9 for A; had C captured it, B could
    b9 = build(9, 0, [["5C", "4C"]], promised=True)
    st = make_state4([["9C", "2C"], ["9H", "3H", "8S"], ["8D", "7D"], ["8H", "7H"]], loose=["6H"], builds=[b9],
                     to_move=1)
    (cap,) = [m for m in moves_of(st, "9H", "capture") if m.after["table"]["loose"] == ["6H"]]
    (decline,) = [o for o in R.legal_moves(cap.result) if o.kind == "decline"]
    after = decline.after                                  # B still to move in it: his moves from there
    assert after["promises"] == [[], [], [], []] and after["to_move"] == 1
    assert rebuilds(after) == []
    st = make_state4([["9C", "2C"], ["3H", "8S"], ["9H", "8D", "7D"], ["8H", "7H"]], loose=["6H"], builds=[b9],
                     to_move=2)
    (cap,) = [m for m in moves_of(st, "9H", "capture") if m.after["table"]["loose"] == ["6H"]]
    assert cap.after["promises"] == [[9], [], [], []]
    got = [builds_after(m) for m in rebuilds(dict(cap.after, to_move=1))]     # (C's exposed 9H may join)
    assert [(9, 0, [["6H", "3H"]], True)] in got


def test_p14_no_rebuild_while_a_build_of_the_value_is_on_the_table():
    b9 = build(9, 2, [["5S", "4S"]])
    st = rebuild_state([[9], [], [], []], builds=[b9], hand2=("9D", "7D"))
    assert rebuilds(st) == []
    assert all(m.kind != "build" or all(b["value"] != 9 for b in m.after["table"]["builds"] if b["owner"] != 2)
               for m in R.legal_moves(st))


def test_p14_rebuild_is_a_k5_build_needs_a_loose_card():
    # 3H + the exposed 6S of opponent C's pile, no loose card: not a build (K5, K8)
    st = rebuild_state([[9], [], [], []], loose=(), piles=([], [], ["6S"], []))
    assert rebuilds(st) == []
    # with a loose card the pile card may join: 2H + AD + C's exposed 6S
    st = rebuild_state([[9], [], [], []], loose=("AD",), hand1=("2H", "7S"), piles=([], [], ["6S"], []))
    (m,) = rebuilds(st)
    assert builds_after(m) == [(9, 0, [["6S", "2H", "AD"]], True)]


def test_p14_rebuild_and_own_build_are_different_moves():
    # B holds a 9 too: his own build 9 and the rebuild for A are two moves (the owner differs)
    st = rebuild_state([[9], [], [], []], hand1=("3H", "9S"))
    got = sorted(builds_after(m)[0][:2] for m in moves_of(st, "3H", "build"))
    assert got == [(9, 0), (9, 1)]


def test_p14_k9_followups_never_onto_the_partners_builds():
    # A owns build 8; B rebuilds 9 for A with 3H + 6H; loose 4S + 4H would be an 8 group: B may not add it
    # to A's build 8 as a follow-up (K9: only builds the mover owns)
    b8 = build(8, 0, [["5D", "3D"]])
    st = make_state4([["9C", "8C"], ["3H", "7S"], ["8D", "7D"], ["8H", "7H"]], loose=["6H", "4S", "4H"],
                     builds=[b8], to_move=1, promises=[[9], [], [], []])
    for m in moves_of(st, "3H"):
        b = {x["value"]: x for x in m.after["table"]["builds"]}
        assert b[8]["groups"] == [["5D", "3D"]]
    assert rebuilds(st)


# ------------------------------------------------------------------ P15: Stay


def stay_state(owner=2, partner_hand=("9H", "2H"), loose=("6C", "3C"), promised=False, promises=None,
               extra_builds=(), hand0=("9C", "2D")):
    """A (seat 0) to move with 9C; a build 9 owned by ``owner``; B (partner) holds ``partner_hand``."""
    hands = [list(hand0), list(partner_hand), ["8D", "7D"], ["8H", "7H"]]
    if owner == 2:
        hands[2] = ["9D", "7D"]
    b9 = build(9, owner, [["5S", "4H"]], promised=promised)
    return make_state4(hands, loose=loose, builds=[b9] + list(extra_builds), promises=promises,
                       last_capturer=3, rest_to=3)


def test_p15_stay_offered_only_when_the_partner_holds_the_value_and_a_build_is_captured():
    st = stay_state()
    caps = moves_of(st, "9C", "capture")
    offered = {tuple(m.after["piles"][0]): m.stay_offered for m in caps}
    assert offered == {("5S", "4H", "9C"): True, ("5S", "4H", "6C", "3C", "9C"): True,
                       ("6C", "3C", "9C"): False}
    for m in caps:
        if m.stay_offered:
            assert m.result["decision"]["kind"] == "stay"
        else:
            assert m.result["decision"] is None and m.result["to_move"] == 2
    # the partner without a 9: never offered
    st = stay_state(partner_hand=("8S", "2H"))
    assert all(not m.stay_offered and m.result["decision"] is None for m in moves_of(st, "9C", "capture"))


def test_p15_stay_decision_state_and_options():
    st = stay_state()
    (m,) = [m for m in moves_of(st, "9C", "capture") if len(m.after["piles"][0]) == 5]
    dec = m.result
    assert m.key == R.state_hash(m.after) ^ R.state_hash(st)            # the key of the capture as played
    assert dec["to_move"] == 1
    assert dec["decision"] == {"kind": "stay", "seat": 0, "value": 9, "move": {
        "card": "9C", "kind": "capture", "build": 9, "groups": [["6C", "3C"]], "followups": []}}
    # the rest is the position before the move
    assert canon(dict(dec, to_move=0, decision=None)) == canon(dict(st, options=dec["options"]))
    opts = {o.kind: o for o in R.legal_moves(dec)}
    assert set(opts) == {"stay", "decline"}
    assert opts["stay"].key == STAY_KEY and opts["decline"].key == DECLINE_KEY


def test_p15_stay_turns_the_capture_into_a_load_for_the_partner():
    st = stay_state()
    (m,) = [m for m in moves_of(st, "9C", "capture") if len(m.after["piles"][0]) == 5]
    (stay,) = [o for o in R.legal_moves(m.result) if o.kind == "stay"]
    a = stay.after
    # new groups: the played card alone and the other groups, sorted together (larger mask first: 9C)
    assert a["table"]["builds"] == [build(9, 1, [["5S", "4H"], ["9C"], ["6C", "3C"]], promised=False)]
    assert a["table"]["loose"] == [] and a["hands"][0] == ["2D"]
    assert a["piles"] == st["piles"]                       # nothing to the mover's pile
    assert a["last_capturer"] == 3                         # unchanged
    assert stay.result["to_move"] == 2                     # the turn passes on from the mover (A -> C)
    assert stay.result["decision"] is None
    assert (stay.points, stay.cards, stay.spades) == (0, 0, 0)


def test_p15_decline_keeps_the_capture():
    st = stay_state()
    (m,) = [m for m in moves_of(st, "9C", "capture") if len(m.after["piles"][0]) == 5]
    (dec,) = [o for o in R.legal_moves(m.result) if o.kind == "decline"]
    assert canon(dec.after) == canon(m.after)
    assert R.state_hash(dec.after) ^ R.state_hash(st) == m.key
    assert dec.after["last_capturer"] == 0 and dec.after["table"]["builds"] == []
    assert dec.result["to_move"] == 2
    assert (dec.points, dec.cards, dec.spades) == (m.points, m.cards, m.spades)


@pytest.mark.parametrize("owner", [0, 1, 2])
def test_p15_offered_whoever_owned_the_build(owner):
    hand0 = ("9C", "9S") if owner == 0 else ("9C", "2D")
    st = stay_state(owner=owner, hand0=hand0, loose=())
    (m,) = moves_of(st, "9C", "capture")
    assert m.stay_offered
    (stay,) = [o for o in R.legal_moves(m.result) if o.kind == "stay"]
    assert stay.after["table"]["builds"] == [build(9, 1, [["5S", "4H"], ["9C"]])]


def test_p15_followups_applied_as_chosen():
    # A also owns build 7 (holds 7S); the capture adds loose 5H + 2H to it as a follow-up (K9)
    b7 = build(7, 0, [["4D", "3S"]], promised=True)
    st = stay_state(loose=("5H", "2H"), extra_builds=[b7], hand0=("9C", "7S"), partner_hand=("9H", "AS"))
    (m,) = [m for m in moves_of(st, "9C", "capture")
            if any(b["value"] == 7 and len(b["groups"]) == 2 for b in m.after["table"]["builds"])]
    assert m.result["decision"]["move"]["followups"] == [{"build": 7, "group": ["5H", "2H"]}]
    (stay,) = [o for o in R.legal_moves(m.result) if o.kind == "stay"]
    assert stay.after["table"]["builds"] == [build(7, 0, [["4D", "3S"], ["5H", "2H"]], promised=True),
                                             build(9, 1, [["5S", "4H"], ["9C"]])]
    assert stay.after["table"]["loose"] == []


def test_p15_p13_promises_and_stay():
    # C's promised build captured by A: decline opens C's promise 9, stay opens nothing
    st = stay_state(owner=2, promised=True, loose=())
    (m,) = moves_of(st, "9C", "capture")
    opts = {o.kind: o for o in R.legal_moves(m.result)}
    assert opts["decline"].after["promises"] == [[], [], [9], []]
    assert opts["stay"].after["promises"] == [[], [], [], []]
    # A captures his own rebuilt promised build with 9C: his promise 9 closes either way; after a Stay the
    # build is B's and not promised
    st = stay_state(owner=0, promised=True, loose=(), hand0=("9C", "9S"), promises=[[9], [], [], []])
    (m,) = moves_of(st, "9C", "capture")
    opts = {o.kind: o for o in R.legal_moves(m.result)}
    for o in opts.values():
        assert o.after["promises"] == [[], [], [], []]
    assert opts["stay"].after["table"]["builds"][0]["promised"] is False


def test_p15_greedy_always_declines():
    st = stay_state()
    m = [m for m in moves_of(st, "9C", "capture") if m.stay_offered][0]
    opts = R.legal_moves(m.result)
    for r in range(20):
        assert R.choose("greedy", opts, R.fmix(r + 1)).kind == "decline"
    assert {R.choose("random", opts, R.fmix(r + 1)).kind for r in range(40)} == {"stay", "decline"}


def test_p15_decision_json_round_trip_and_validation():
    st = stay_state(loose=("5H", "2H"), extra_builds=[build(7, 0, [["4D", "3S"]])], hand0=("9C", "7S"),
                    partner_hand=("9H", "AS"))
    for m in moves_of(st, "9C", "capture"):
        if not m.stay_offered:
            continue
        dec = m.result
        back = R._to_json(R._from_json(json.loads(json.dumps(dec))))
        assert canon(back) == canon(dec)
        # the order of groups and follow-ups does not matter on input
        shuffled = json.loads(json.dumps(dec))
        shuffled["decision"]["move"]["groups"].reverse()
        assert canon(R._to_json(R._from_json(shuffled))) == canon(dec)
        assert [o.key for o in R.legal_moves(shuffled)] == [o.key for o in R.legal_moves(dec)]
    (m,) = [m for m in moves_of(st, "9C", "capture") if m.stay_offered and not m.after["table"]["loose"]][:1]
    dec = m.result
    with pytest.raises(ValueError):                                    # answered by the partner only
        R.legal_moves(dict(dec, to_move=2))
    bad = json.loads(json.dumps(dec))
    bad["decision"]["move"]["groups"] = [["8D", "AS"]]                 # not cards A can take
    with pytest.raises(ValueError):
        R.legal_moves(bad)
    bad = json.loads(json.dumps(dec))
    bad["hands"][1], bad["hands"][3] = ["8H", "AS"], ["7H", "9H"]      # the partner holds no 9
    with pytest.raises(ValueError):
        R.legal_moves(bad)
    bad = json.loads(json.dumps(dec))
    bad["decision"]["move"]["card"] = "7S"
    with pytest.raises(ValueError):
        R.legal_moves(bad)


# ------------------------------------------------------------------ K13 (K15): team scoring, P2


def final_with_piles(piles):
    assert sorted(c for p in piles for c in p) == sorted(ALL40)
    return {"format": FMT, "deal": 1, "to_move": None, "hands": [[], [], [], []],
            "table": {"loose": [], "builds": []}, "piles": [list(p) for p in piles], "stock": [],
            "last_capturer": 0, "over": True}


def test_k13_k15_team_scoring_pools_teammates_piles():
    spades = [c for c in ALL40 if c.endswith("S")]
    rest = [c for c in ALL40 if not c.endswith("S")]
    # AB: all 10 spades (AS, 2S included), split over A and B; CD the other 30 cards (3 aces, 10D)
    piles = [spades[:4], spades[4:], rest[:15], rest[15:]]
    sc = R.score(final_with_piles(piles))
    assert [s["team"] for s in sc] == [0, 0, 1, 1]
    assert [s["cards"] for s in sc] == [4, 6, 15, 15]                   # each seat's own pile
    assert sc[0]["team_cards"] == 10 and sc[2]["team_cards"] == 30
    # AB: most spades 2, AS 1, 2S 1 = 4; CD: most cards 2, three aces 3, 10D 2 = 7
    assert [s["total"] for s in sc] == [4, 4, 7, 7]
    assert sc[0]["total"] + sc[2]["total"] == 11
    assert R.winner(FMT, sc) == 1
    # a 20-20 tie in cards splits 1-1 between the teams
    piles = [spades[:4] + rest[:6], spades[4:] + rest[6:10], rest[10:20], rest[20:]]
    sc = R.score(final_with_piles(piles))
    assert sc[0]["most_cards"] == sc[2]["most_cards"] == 1
    # AB: most cards 1, most spades 2, four aces 4, 2S 1 = 8; CD: most cards 1, 10D 2 = 3
    assert [s["total"] for s in sc] == [8, 8, 3, 3]
    assert R.winner(FMT, sc) == 0
    with pytest.raises(ValueError):
        R.series_leader(FMT, sc)


@pytest.mark.parametrize("mover", [0, 1, 2, 3])
def test_p2_sweep_to_who_played_last(mover):
    st = {"format": FMT, "deal": 1, "to_move": mover, "hands": [[], [], [], []],
          "table": {"loose": list(ALL40), "builds": []}, "piles": [[], [], [], []], "stock": [],
          "last_capturer": None}
    end = R.advance(st)
    assert end["over"] is True and end["to_move"] is None
    assert len(end["piles"][mover]) == 40 and end["last_capturer"] == mover


# ------------------------------------------------------------------ JSON


def test_json_round_trip_and_bad_teams():
    st = stay_state(promised=True, promises=[[], [], [], [8]])
    back = R._to_json(R._from_json(st))
    assert canon(back) == canon(dict(st, options=R.default_options("khasino-4p")))    # options absent: the format's
    assert back["table"]["builds"][0]["promised"] is True and back["promises"][3] == [8]
    bare = {k: v for k, v in st.items() if k not in ("teams", "promises", "decision")}
    bare["table"] = {"loose": st["table"]["loose"],
                     "builds": [{k: v for k, v in b.items() if k != "promised"} for b in st["table"]["builds"]]}
    back = R._to_json(R._from_json(bare))                 # optional on input: defaults
    assert back["teams"] == [[0, 1], [2, 3]] and back["promises"] == [[], [], [], []]
    assert back["decision"] is None and back["table"]["builds"][0]["promised"] is False
    for teams in ([[0, 2], [1, 3]], [[1, 0], [2, 3]], [[0, 1]], []):
        with pytest.raises(ValueError):
            R.legal_moves(dict(st, teams=teams))
    with pytest.raises(ValueError):
        R.legal_moves(dict(st, promises=[[11], [], [], []]))
    with pytest.raises(ValueError):
        R.legal_moves(dict(st, promises=[[], [], []]))
    # a lead decision is the dealt position only
    with pytest.raises(ValueError):
        R.legal_moves(dict(st, decision={"kind": "lead", "team": [0, 1]}))
    lead = R.initial_state(FMT, 3)
    assert canon(R._to_json(R._from_json(lead))) == canon(lead)
    with pytest.raises(ValueError):
        R.legal_moves(dict(lead, decision={"kind": "lead", "team": [2, 3]}))
    # other formats' JSON is unchanged: no teams, no promised flag
    one = R.initial_state("khasino", 4)
    assert "teams" not in one and "promises" not in one
    three = R.initial_state("khasino-3p", 4)
    assert "teams" not in three and three["promises"] == [[], [], []]


# ------------------------------------------------------------------ whole games


def check_position(st):
    """Invariants of a 4p position to answer: 40 cards, hand sizes (ENGINE.md "Four players"), P1 and P13."""
    assert sorted(all_cards(st), key=R.parse_card) == ALL40
    dec = st["decision"]
    mover = dec["seat"] if dec and dec["kind"] == "stay" else st["to_move"]
    if dec and dec["kind"] == "stay":
        assert st["to_move"] == PARTNER[mover]
        assert any(val(c) == dec["value"] for c in st["hands"][st["to_move"]])
    sizes = [len(h) for h in st["hands"]]
    h = sizes[mover]
    seq, s = [], mover
    for _ in range(4):
        seq.append(s)
        s = R.next_seat(FMT, s)
    got = [sizes[x] for x in seq]
    k = sum(1 for x in got if x == h)
    assert h >= 1 and got == [h] * k + [h - 1] * (4 - k), got
    assert (seq[k] if k < 4 else mover) in (0, 1)          # team AB led the round
    for b in st["table"]["builds"]:
        assert any(val(c) == b["value"] for c in st["hands"][b["owner"]]), b    # P1
    for seat, vals in enumerate(st["promises"]):
        for v in vals:
            assert any(val(c) == v for c in st["hands"][seat])                  # P13: P still holds V


def test_public_api_game_invariants():
    """Two random games walked through the JSON API: invariants, keys as hash deltas, JSON round trip."""
    offers = 0
    for seed in (2024, 7):
        st = R.initial_state(FMT, seed)
        rng = R.SplitMix64(seed)
        while not st["over"]:
            if st["decision"] is None or st["decision"]["kind"] == "stay":
                check_position(st)
            assert canon(R._to_json(R._from_json(json.loads(json.dumps(st))))) == canon(st)
            ms = R.legal_moves(st)
            assert ms and len({m.key for m in ms}) == len(ms)
            if st["decision"] is None:
                h = R.state_hash(st)
                for m in ms[:25]:
                    assert m.key == R.state_hash(m.after) ^ h
                for m in ms:
                    if m.stay_offered:                     # P15: decline is the capture as played
                        offers += 1
                        opts = {o.kind: o for o in R.legal_moves(m.result)}
                        assert canon(opts["decline"].after) == canon(m.after)
                        assert opts["stay"].after["last_capturer"] == st["last_capturer"]
                        assert opts["stay"].after["piles"][st["to_move"]] == st["piles"][st["to_move"]]
            else:
                with pytest.raises(ValueError):
                    R.advance(st)
            st = R.choose("random", ms, rng.next()).result
        assert st["promises"] == [[], [], [], []]
    assert offers > 0


def replay(seed, bots):
    """play_game's key list rebuilt through the JSON API: one draw per decision, in order (ENGINE.md)."""
    st = R.initial_state(FMT, seed)
    rng = R.SplitMix64(R.fmix(seed ^ 0xD1B54A32D192ED03))
    keys = []
    while not st["over"]:
        m = R.choose(bots[st["to_move"]], R.legal_moves(st), rng.next())
        keys.append(m.key)
        st = m.result
    return keys, st


@pytest.mark.parametrize("seed,bots", [(11, ("random",) * 4), (12, ("greedy", "random", "greedy", "random"))])
def test_play_game_key_order_and_bot_stream(seed, bots):
    res = R.play_game(FMT, seed, bots)
    keys, final = replay(seed, bots)
    assert res["keys"] == keys and canon(res["final"]) == canon(final)
    assert res["keys"][0] in (R.Z(7, 0, 0, 0), R.Z(7, 0, 1, 0))      # the lead option first
    n_opts = sum(1 for k in res["keys"] if k in (STAY_KEY, DECLINE_KEY))
    assert len(res["keys"]) == 41 + n_opts


def test_whole_games_random_and_greedy():
    bots_cycle = [("random",) * 4, ("greedy",) * 4, ("greedy", "random", "random", "greedy"),
                  ("random", "greedy", "greedy", "random")]
    winners, stays, declines = set(), 0, 0
    for g in range(48):
        bots = bots_cycle[g % 4]
        res = R.play_game(FMT, 900 + g, bots)
        final = res["final"]
        assert res["no_move"] == 0                        # never a position without a legal move (K11, P1)
        assert final["over"] is True and final["to_move"] is None and final["deal"] == 1
        assert sorted(all_cards(final), key=R.parse_card) == ALL40
        assert sum(len(p) for p in final["piles"]) == 40 and final["table"] == {"loose": [], "builds": []}
        sc = res["scores"]
        assert sc == R.score(final)
        assert sc[0]["total"] == sc[1]["total"] and sc[2]["total"] == sc[3]["total"]
        assert sc[0]["total"] + sc[2]["total"] == 11      # K13: 11 points between the teams
        assert res["winner"] == R.winner(FMT, sc) == (0 if sc[0]["total"] > sc[2]["total"] else 1)
        assert final["promises"] == [[], [], [], []]
        keys = res["keys"]
        assert keys[0] in (R.Z(7, 0, 0, 0), R.Z(7, 0, 1, 0))
        n_opts = sum(1 for k in keys if k in (STAY_KEY, DECLINE_KEY))
        assert len(keys) == 41 + n_opts
        if bots == ("greedy",) * 4:
            assert STAY_KEY not in keys                   # greedy never stays
        stays += keys.count(STAY_KEY)
        declines += keys.count(DECLINE_KEY)
        winners.add(res["winner"])
        json.dumps(res)
    assert winners == {0, 1} and stays > 0 and declines > 0
    assert R.play_game(FMT, 900, bots_cycle[0]) == R.play_game(FMT, 900, bots_cycle[0])
