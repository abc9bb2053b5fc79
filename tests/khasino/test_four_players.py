"""Scenario tests of four-player Khasino in teams (docs/rules/khasino.md K15 with K1-K13;
docs/rules/project.md P11-P15) in the
compiled core: the deal and the lead decision, the turn order, teammates' piles and builds (K8, K7), loading a
partner's build (P12), promises and rebuilds (P13, P14), Stay (P15), team scoring (K13) and the JSON state.
Expectations come from source 000's four-player section as docs/rules/khasino.md (K15) and docs/rules/project.md
restate it, never from the implementation."""
import json

import numpy as np
import pytest

from khasino_sim import engine
from khasino_sim.kernels.core import layout as L
from khasino_sim.state_json import StateError
from tests.helpers import position

FMT = "khasino-4p"
RANKS = ["A"] + [str(r) for r in range(2, 11)]
DECK40 = [r + s for r in RANKS for s in "SHDC"]          # card-index order (RULES.md "Cards")


def state4(hands, loose=(), builds=(), piles=((), (), (), ()), to_move=0, last_capturer=None, promises=None,
           promised=()):
    """A valid 4p state: the named cards, the rest under the mover's own pile (never usable by him).
    builds: (value, owner, groups); `promised`: the values of the builds whose owner's promise stands."""
    st = position(FMT, hands=hands, loose=loose, builds=builds, piles=piles, to_move=to_move, deal=1,
                  last_capturer=last_capturer)
    if st["last_capturer"] is None and any(st["piles"]):
        st["last_capturer"] = to_move
    for b in st["table"]["builds"]:
        b["promised"] = b["value"] in promised
    st["promises"] = promises or [[], [], [], []]
    return st


def moves(state):
    return engine.legal_moves(state)


def texts(state):
    return [m.text for m in moves(state)]


def build_of(state, v):
    return next((b for b in state["table"]["builds"] if b["value"] == v), None)


def play_first(state, n):
    seats = []
    for _ in range(n):
        if state["decision"] is None:
            seats.append(state["to_move"])
        state = moves(state)[0].result
    return seats, state


# ---- P11: deal, lead decision, turn order ---------------------------------------------------------------

def test_p11_deal_ten_each_no_table_no_stock():
    """K15/P11: 10 each in seat order, nothing on the table, no stock, one deal."""
    deck = DECK40[::-1]
    st = engine.new_game(FMT, deck=deck)
    for s in range(4):
        assert sorted(st["hands"][s], key=DECK40.index) == sorted(deck[10 * s: 10 * s + 10], key=DECK40.index)
    assert st["table"] == {"loose": [], "builds": []} and st["stock"] == [] and st["deal"] == 1
    assert st["teams"] == [[0, 1], [2, 3]] and st["promises"] == [[], [], [], []]


def test_k15_team_ab_chooses_its_leader_after_the_deal():
    """K15: when team AB leads it chooses A or B after seeing its hands: a decision seat 0 answers."""
    st = engine.new_game(FMT, 11)
    assert st["decision"] == {"kind": "lead", "team": [0, 1]} and st["to_move"] == 0
    opts = moves(st)
    assert [(m.kind, m.seat) for m in opts] == [("lead", 0), ("lead", 1)]
    for m in opts:
        assert m.result["to_move"] == m.seat and m.result["decision"] is None
        assert m.result["hands"] == st["hands"], "the decision plays no card"
        assert m.to_json()["seat"] == m.seat and "card" not in m.to_json()
    assert engine.count_moves(st) == 2


@pytest.mark.parametrize("leader, order", [(0, [0, 2, 1, 3, 0, 2, 1, 3]), (1, [1, 3, 0, 2, 1, 3, 0, 2])])
def test_k15_turn_order_a_c_b_d_from_the_leader(leader, order):
    """K15: turn order A, C, B, D rotated to start at the leader."""
    st = moves(engine.new_game(FMT, 5))[leader].result
    seats = []
    for _ in range(8):
        if st["decision"] is None:
            seats.append(st["to_move"])
        st = next(m for m in moves(st) if m.kind != "stay").result
    assert seats[:8] == order


def test_p11_leader_is_not_a_new_game_argument():
    """P11: team AB always leads and decides who; other leaders are refused."""
    with pytest.raises(StateError):
        engine.new_game(FMT, 1, leader=2)


# ---- K8, K7, P12: teammates' piles and builds --------------------------------------------------------------

def test_k8_opponents_piles_usable_never_the_teammates():
    """K8/K15: only an opponent's exposed pile card is usable, never a teammate's (nor the mover's own)."""
    st = state4(hands=[["7S", "2H"], ["9C", "3D"], ["10C", "AD"], ["10H", "AH"]], loose=["4S"],
                piles=[[], ["3C"], ["3H"], ["3S"]], to_move=0)
    caps = [m.text for m in moves(st) if m.kind == "capture"]
    assert any("3H from seat 2's pile" in t for t in caps) and any("3S from seat 3's pile" in t for t in caps)
    assert not any("3C" in t for t in caps), "seat 1 is seat 0's teammate"


def test_k8_one_card_of_each_opponent_pile_in_one_group():
    """P4 with two opponents (as in 3p): one group may hold the top card of each opponent pile; pile cards
    alone are no capture (K4 grounding)."""
    st = state4(hands=[["7S", "2H"], ["9C", "3D"], ["10C", "AD"], ["10H", "AH"]], loose=["7C"],
                piles=[[], [], ["3H"], ["4D"]], to_move=0)
    taken = [set(m.result["piles"][0][-4:]) for m in moves(st) if m.kind == "capture"]
    assert {"7S", "7C", "3H", "4D"} in taken
    assert not any({"3H", "4D"} <= t and "7C" not in t for t in taken)


def test_k7_change_only_an_opponents_build():
    """K7/K15: an opponent's simple two-card build may be changed, never a teammate's."""
    hands = [["2S", "9H"], ["7C", "AD"], ["7D", "4C"], ["8H", "AH"]]
    mate = state4(hands=hands, builds=[(7, 1, [["4S", "3S"]])], to_move=0)
    assert not [m for m in moves(mate) if m.kind == "change"]
    opp = state4(hands=hands, builds=[(7, 2, [["4S", "3S"]])], to_move=0)
    ch = [m for m in moves(opp) if m.kind == "change"]
    assert len(ch) == 1 and build_of(ch[0].result, 9)["owner"] == 0


def test_p12_partner_loads_without_holding_the_value():
    """K6/K15 (P12): a teammate may load a partner's build without owning it and without holding V; the
    owner does not change."""
    st = state4(hands=[["3H", "5C"], ["8C", "AD"], ["9D", "4C"], ["6H", "AH"]], loose=["5S"],
                builds=[(8, 1, [["6S", "2S"]])], to_move=0)
    loads = [m for m in moves(st) if m.kind == "load"]
    assert loads, "seat 0 holds no 8 but may load its partner's build 8 with 3H + 5S"
    b = build_of(loads[0].result, 8)
    assert b["owner"] == 1 and ["5S", "3H"] in b["groups"]


def test_k6_no_load_of_an_opponents_build_without_the_value():
    """K6: loading an opponent's build needs a card of its value kept."""
    st = state4(hands=[["3H", "5C"], ["8C", "AD"], ["8D", "4C"], ["6H", "AH"]], loose=["5S"],
                builds=[(8, 2, [["6S", "2S"]])], to_move=0)
    assert not [m for m in moves(st) if m.kind == "load"]


def test_p1_still_binds_the_partner_loader():
    """P1: a player may not load his partner's build with his last card of a build he owns himself."""
    st = state4(hands=[["3H", "5C"], ["8C", "AD"], ["9D", "4C"], ["6H", "AH"]], loose=["5S", "2D"],
                builds=[(8, 1, [["6S", "2S"]]), (3, 0, [["AS", "2C"]])], to_move=0)
    assert not [m for m in moves(st) if m.kind == "load" and m.card == "3H"]


# ---- P13, P14: promises and rebuilds -------------------------------------------------------------------------

def test_p13_capture_by_an_opponent_opens_the_promise():
    """P13: seat 1 created build 8 (promised); seat 2 captures it: 8 joins seat 1's open promises."""
    # led by seat 0, which has played (A, then C: seats 1 and 3 still hold as many cards as the mover)
    st = state4(hands=[["3H"], ["8C", "AD"], ["8D", "4C"], ["6H", "AH"]],
                builds=[(8, 1, [["6S", "2S"]])], promised=(8,), to_move=2, last_capturer=2)
    cap = next(m for m in moves(st) if m.kind == "capture" and m.card == "8D")
    assert cap.result["promises"][1] == [8] and cap.result["last_capturer"] == 2


def test_p13_no_promise_without_the_mark_or_by_a_teammate():
    """P13: an unpromised build opens nothing; nor does a capture by the owner's teammate."""
    unmarked = state4(hands=[["5C"], ["8C", "AD"], ["8D", "4C"], ["6H", "AH"]], builds=[(8, 1, [["6S", "2S"]])],
                      to_move=2, last_capturer=2)
    cap = next(m for m in moves(unmarked) if m.kind == "capture" and m.card == "8D")
    assert cap.result["promises"] == [[], [], [], []]
    mate = state4(hands=[["8H", "5C"], ["8C", "AD"], ["8D", "4C"], ["6H", "AH"]], builds=[(8, 1, [["6S", "2S"]])],
                  promised=(8,), to_move=0)
    cap = next(m for m in moves(mate) if m.kind == "capture" and m.card == "8H")
    assert cap.result["decision"]["kind"] == "stay", "seat 1 holds 8C: a Stay is offered first"
    declined = next(m for m in moves(cap.result) if m.kind == "decline").result
    assert build_of(declined, 8) is None and declined["promises"] == [[], [], [], []]


def test_p14_rebuild_for_the_partner_while_the_promise_is_open():
    """K15 rebuild: seat 1's 8 was captured by an opponent while promised; seat 0 (no 8 in hand) may build 8
    again, owned by seat 1; the rebuilt build is promised."""
    st = state4(hands=[["3H", "5C"], ["8C", "AD"], ["9D", "4C"], ["6H", "AH"]], loose=["5S"],
                promises=[[], [8], [], []], to_move=0)
    rb = [m for m in moves(st) if m.kind == "build" and build_of(m.result, 8)]
    assert len(rb) == 1 and "rebuild" in rb[0].text
    b = build_of(rb[0].result, 8)
    assert b["owner"] == 1 and b["promised"] is True and b["groups"] == [["5S", "3H"]]
    assert rb[0].result["promises"][1] == [8]


def test_p14_no_rebuild_without_an_open_promise_or_with_the_value_built():
    """K15: no rebuild without the promise; none while a build of V is on the table (it is loaded instead);
    only the promiser's partner rebuilds."""
    hands = [["3H", "5C"], ["8C", "AD"], ["9D", "4C"], ["6H", "AH"]]
    none = state4(hands=hands, loose=["5S"], to_move=0)
    assert not [m for m in moves(none) if m.kind == "build" and build_of(m.result, 8)]
    opp = state4(hands=[["3H", "5C"], ["9C", "AD"], ["9D", "4C"], ["8H", "AH"]], loose=["5S"],
                 promises=[[], [], [], [8]], to_move=0)
    assert not [m for m in moves(opp) if m.kind == "build" and build_of(m.result, 8)], "seat 3 is no partner"
    built = state4(hands=[["3H", "5C"], ["8C", "AD"], ["8D", "4C"], ["6H", "AH"]], loose=["5S"],
                   builds=[(8, 2, [["6S", "2S"]])], promises=[[], [8], [], []], to_move=0)
    assert not [m for m in moves(built) if "rebuild" in m.text], "build 8 is on the table"


def test_p13_playing_the_value_ends_the_promise():
    """P13: once the promiser plays a card of V, his open promise ends, and his partner may not rebuild."""
    # led by seat 0: seats 0 and 2 have played this round, seat 1 is to move
    st = state4(hands=[["3H"], ["8C", "8H"], ["9D"], ["6H", "AH"]], loose=["8S", "5S"],
                promises=[[], [8], [], []], to_move=1, last_capturer=1)
    cap = next(m for m in moves(st) if m.kind == "capture" and m.card == "8C")
    assert cap.result["promises"][1] == []


# ---- P15: Stay --------------------------------------------------------------------------------------------------

def stay_position(partner_holds="9H", owner=2):
    """Seat 0 can capture build 9 (owned by `owner`) with 9S and 6C + 3D loose; partner seat 1 holds
    `partner_holds`."""
    return state4(hands=[["9S", "2C"], [partner_holds, "AD"], ["9D", "4C"], ["9C", "AH"]], loose=["6C", "3D"],
                  builds=[(9, owner, [["5S", "4S"]])], promised=(9,), to_move=0, last_capturer=3,
                  piles=[[], [], [], ["7D"]])


def test_p15_stay_offered_when_the_partner_holds_the_value():
    """K15 Stay: a capture of exactly one build of V whose mover's partner holds a V card is the partner's
    decision; the position is unchanged until he answers."""
    st = stay_position()
    cap = next(m for m in moves(st) if m.kind == "capture" and "build 9" in m.text and "6C" in m.text)
    d = cap.result["decision"]
    assert cap.result["to_move"] == 1 and d["kind"] == "stay" and d["seat"] == 0 and d["value"] == 9
    assert d["move"] == {"card": "9S", "kind": "capture", "build": 9, "groups": [["6C", "3D"]], "followups": []}
    assert [set(h) for h in cap.result["hands"]] == [set(h) for h in st["hands"]]
    assert cap.result["table"]["loose"] == ["3D", "6C"] and cap.result["piles"] == st["piles"]
    assert [m.kind for m in moves(cap.result)] == ["decline", "stay"]
    # a capture without the build offers nothing
    plain = next(m for m in moves(st) if m.kind == "capture" and "build" not in m.text)
    assert plain.result["decision"] is None


def test_p15_stay_turns_the_capture_into_a_load_for_the_partner():
    """K15: on Stay the move becomes a load of that build by the move's other groups and its played card;
    ownership passes to the partner; no capture is made, so last_capturer is unchanged."""
    st = stay_position()
    dec = next(m for m in moves(st) if m.kind == "capture" and "build 9" in m.text and "6C" in m.text).result
    stay = next(m for m in moves(dec) if m.kind == "stay").result
    b = build_of(stay, 9)
    assert b["owner"] == 1 and b["promised"] is False
    assert b["groups"] == [["5S", "4S"], ["9S"], ["6C", "3D"]], "new groups in canonical order (larger mask first)"
    assert stay["last_capturer"] == 3 and stay["table"]["loose"] == []
    assert "9S" not in stay["hands"][0] and stay["to_move"] == 2
    assert stay["promises"] == [[], [], [], []], "a build kept by a Stay opens no promise"
    decline = next(m for m in moves(dec) if m.kind == "decline").result
    assert build_of(decline, 9) is None and decline["last_capturer"] == 0
    assert decline["piles"][0][-1] == "9S" and decline["promises"][2] == [9], "the opponent's promise opens"


def test_p15_no_offer_when_the_partner_lacks_the_value():
    """K15: the Stay decision exists only when the partner holds a card of V."""
    st = stay_position(partner_holds="8H")
    for m in moves(st):
        assert m.result["decision"] is None


def test_p15_stay_on_the_movers_own_build():
    """P15: the offer is made whoever owned the captured build (here the mover)."""
    st = stay_position(owner=0)
    st["hands"][0] = ["9S", "9C"]
    st["hands"][3] = ["2C", "AH"]
    cap = [m for m in moves(st) if m.kind == "capture" and "your build 9" in m.text]
    assert cap and all(m.result["decision"] and m.result["decision"]["kind"] == "stay" for m in cap)


def test_p15_stay_decision_state_round_trips_and_is_checked():
    """ENGINE.md: a Stay decision state is a state of its own; its move must be a legal capture."""
    st = stay_position()
    dec = next(m for m in moves(st) if m.kind == "capture" and "build 9" in m.text and "6C" in m.text).result
    assert engine.to_json(*_parsed(dec)) == dec
    bad = json.loads(json.dumps(dec))
    bad["decision"]["move"]["groups"] = [["6C"]]
    with pytest.raises(StateError):
        moves(bad)
    wrong = json.loads(json.dumps(dec))
    wrong["to_move"] = 2
    with pytest.raises(StateError):
        moves(wrong)


def _parsed(state):
    fmt, st, decision = engine.parse(state)
    return st, fmt, decision


# ---- K13 team scoring, JSON, bots ----------------------------------------------------------------------------

def test_k13_team_scoring_pools_piles():
    """K13/K15: teammates combine captures: most cards 2, most spades 2, aces, 2S, 10D; 11 points by team."""
    g = engine.play_game(FMT, 17, ["random"] * 4)
    sc = g["seats"]
    for team in ((0, 1), (2, 3)):
        assert sc[team[0]]["team_score"] == sc[team[1]]["team_score"] == sc[team[0]]["score"]
    assert sc[0]["team_score"] + sc[2]["team_score"] == 11
    cards = [sc[0]["cards"] + sc[1]["cards"], sc[2]["cards"] + sc[3]["cards"]]
    most = 2 if cards[0] > cards[1] else (1 if cards[0] == cards[1] else 0)
    assert sc[0]["most_cards"] == sc[1]["most_cards"] == most
    assert g["winner"] == (0 if sc[0]["team_score"] > sc[2]["team_score"] else 1)


def test_json_teams_must_match_the_format():
    """ENGINE.md: input whose teams differ from the format's is rejected."""
    st = engine.new_game(FMT, 2)
    st["teams"] = [[0, 2], [1, 3]]
    with pytest.raises(StateError, match="teams"):
        engine.legal_moves(st)


def test_json_hand_sizes_must_fit_a_round_led_by_team_ab():
    """ENGINE.md: hand sizes are those reachable: the round was led by seat 0 or 1 (P11)."""
    st = moves(engine.new_game(FMT, 2))[0].result
    st["to_move"] = 2
    with pytest.raises(StateError, match="led by"):
        engine.legal_moves(st)


def test_json_open_promise_needs_the_card():
    """P13: an open promise of V means its seat still holds a V card."""
    st = moves(engine.new_game(FMT, 2))[0].result
    v = next(v for v in range(1, 11) if not any(c[:-1] == RANKS[v - 1] for c in st["hands"][1]))
    st["promises"][1] = [v]
    with pytest.raises(StateError, match="promise"):
        engine.legal_moves(st)


def test_greedy_never_stays_and_every_decision_draws():
    """ENGINE.md: greedy declines every Stay (the capture's cards beat a load's none); random takes some."""
    seeds = np.arange(400, dtype=np.uint64)
    rows = engine.play_games(FMT, seeds, np.array([["greedy"] * 4] * 400))
    f = lambda x: sum(rows[:, L.G_SEAT0 + s * L.SEAT_FIELDS + x] for s in range(4))   # noqa: E731
    assert f(L.SEAT_STAY_OFFERS).sum() > 0 and f(L.SEAT_STAYS).sum() == 0
    rows = engine.play_games(FMT, seeds, np.array([["random"] * 4] * 400))
    assert 0 < f(L.SEAT_STAYS).sum() < f(L.SEAT_STAY_OFFERS).sum()
    assert set(np.unique(rows[:, L.G_LEADER])) == {0, 1}


def test_whole_game_keys_hold_every_decision():
    """ENGINE.md: the key list holds the lead option, each card play and each Stay option, in order; the
    moves replayed through the listing API reach the same final state."""
    for seed in range(6):
        g = engine.play_game(FMT, seed, ["random"] * 4)
        st = engine.new_game(FMT, seed)
        for k in g["keys"]:
            st = next(m for m in moves(st) if m.key == k).result
        assert st == g["final"]
        assert len(g["keys"]) == 41 + sum(s["stay_offers"] for s in g["seats"])


def test_p13_a_partner_staying_on_his_own_build_keeps_his_promise():
    """P13/P15: seat 1 captures its partner seat 0's promised build 9; seat 0 (who made it and holds 9C)
    stays: the build is still seat 0's and still promised, so an opponent's later capture opens the promise."""
    st = state4(hands=[["9C", "2C"], ["9S", "AD"], ["9D", "4C"], ["6H", "AH"]], loose=["6C", "3D"],
                builds=[(9, 0, [["5S", "4S"]])], promised=(9,), to_move=1, last_capturer=1)
    st["hands"][0] = ["9C"]            # led by seat 0: seats 0 and 2 have played this round
    st["hands"][2] = ["9D"]
    st["piles"][1] += ["2C", "4C"]
    cap = next(m for m in moves(st) if m.kind == "capture" and "build 9" in m.text and "6C" in m.text)
    assert cap.result["decision"]["kind"] == "stay" and cap.result["to_move"] == 0
    stay = next(m for m in moves(cap.result) if m.kind == "stay").result
    b = build_of(stay, 9)
    assert b["owner"] == 0 and b["promised"] is True
    other = stay_position(owner=2)        # a build the partner did not own: not promised after the Stay
    dec = next(m for m in moves(other) if m.kind == "capture" and "build 9" in m.text).result
    assert build_of(next(m for m in moves(dec) if m.kind == "stay").result, 9)["promised"] is False
