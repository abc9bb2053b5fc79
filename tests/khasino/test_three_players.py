"""Scenario tests of three-player Khasino (docs/rules/khasino.md K16 with K1-K13;
docs/rules/project.md P8-P10) in the compiled
core: turn order, the deal, the stock refill, opponents' piles with two opponents (K8), the seven-point
scoring and its tie-breaks, and the series leader. Expectations come from source 000's three-player
section as docs/rules/khasino.md (K16) and docs/rules/project.md restate it, never from the implementation."""
import numpy as np
import pytest

from khasino_sim import engine
from khasino_sim.kernels.core import layout as L
from khasino_sim.state_json import StateError, from_json
from tests.helpers import position

THREE = ("khasino-3p", "khasino-3p-stock")
RANKS = ["A"] + [str(r) for r in range(2, 11)]
DECK40 = [r + s for r in RANKS for s in "SHDC"]          # card-index order (RULES.md "Cards")


def play_first_moves(state, n):
    """Play the first listed move n times; returns the seats that moved, in order."""
    seats = []
    for _ in range(n):
        seats.append(state["to_move"])
        state = engine.legal_moves(state)[0].result
    return seats, state


@pytest.mark.parametrize("fmt", THREE)
def test_k16_turn_order_is_a_c_b(fmt):
    """K16/P8: A=0, B=1, C=2 play A -> C -> B -> A, from whoever leads."""
    seats, _ = play_first_moves(engine.new_game(fmt, 3), 7)
    assert seats == [0, 2, 1, 0, 2, 1, 0]
    seats, _ = play_first_moves(engine.new_game(fmt, 3, leader=1), 4)
    assert seats == [1, 0, 2, 1]


def test_k16_deal_13_each_and_one_loose_card():
    """K16 / RULES.md "Deal, khasino-3p": d[0] loose, then 13 cards to each seat in seat order, no stock."""
    deck = DECK40[::-1]
    st = engine.new_game("khasino-3p", deck=deck)
    assert st["table"]["loose"] == [deck[0]] and st["stock"] == [] and st["deal"] == 1
    for s in range(3):
        assert sorted(st["hands"][s], key=DECK40.index) == sorted(deck[1 + 13 * s: 14 + 13 * s], key=DECK40.index)


def test_k16_stock_deal_and_refill_only_for_the_player_who_acted():
    """K16: 3 each, one loose card, 30 in stock; after a turn only the player who acted refills to three, from
    the front of the stock, while stock remains."""
    deck = DECK40[::-1]
    st = engine.new_game("khasino-3p-stock", deck=deck)
    assert [len(h) for h in st["hands"]] == [3, 3, 3] and st["stock"] == deck[10:]
    before = st
    after = engine.legal_moves(st)[0].result
    assert after["to_move"] == 2
    assert after["stock"] == before["stock"][1:], "one card drawn, from the front"
    assert before["stock"][0] in after["hands"][0] and len(after["hands"][0]) == 3
    assert after["hands"][1] == before["hands"][1] and after["hands"][2] == before["hands"][2]
    # play until the stock is empty: every hand holds three whenever stock remains
    state = after
    while state["stock"]:
        assert [len(h) for h in state["hands"]] == [3, 3, 3]
        state = engine.legal_moves(state)[0].result
    # then no refill: the hands run down together
    sizes = []
    while not state["over"]:
        sizes.append(sorted(len(h) for h in state["hands"]))
        state = engine.legal_moves(state)[0].result
    assert len(sizes) == 9 and sizes[0] == [3, 3, 3] and sizes[-1] == [0, 0, 1]


def three(hands, loose=(), piles=((), (), ()), builds=(), to_move=0, fmt="khasino-3p", last_capturer="auto"):
    return position(fmt, hands=hands, loose=loose, piles=piles, builds=builds, to_move=to_move, deal=1,
                    last_capturer=last_capturer)


def test_k8_both_opponents_top_cards_can_complete_one_group():
    """K8 with two opponents: from each opponent pile its top cards in order; cards of two piles may share a
    group. Seat 0 plays 9C on loose 2S + 3H (top of seat 1's pile) + 4D (top of seat 2's pile)."""
    st = three(hands=(["9C", "AH"], ["5C"], ["6C"]), loose=["2S"], piles=((), ["3H"], ["4D"]))
    moves = [m for m in engine.legal_moves(st) if m.card == "9C" and m.kind == "capture"]
    taken = [m for m in moves if m.result["piles"][1] == [] and m.result["piles"][2] == []]
    assert taken, [m.text for m in moves]
    assert any("3H" in m.result["piles"][0] and "4D" in m.result["piles"][0] and "2S" in m.result["piles"][0]
               for m in taken)


def test_k8_covered_cards_only_below_a_used_top_and_never_two_of_one_pile_in_a_group():
    """K8: a covered card is usable only with every card above it, each in a different group; 5D under 3H
    (seat 1's pile) cannot join 4D (seat 2's top) for 9 unless 3H is used too, and 3H + 6H of one pile
    cannot be one group."""
    st = three(hands=(["9C", "AH"], ["5C"], ["6C"]), loose=["9S"], piles=((), ["6H", "5D", "3H"], ["4D"]))
    for m in engine.legal_moves(st):
        used1 = [c for c in st["piles"][1] if c not in m.result["piles"][1]]
        if "5D" in used1:
            assert "3H" in used1, m.text
        assert "6H" not in used1 or m.card != "9C", m.text       # 6H needs 3H and 5D above it in other groups


def test_k8_own_pile_is_never_usable():
    """K8: never the mover's own pile. Seat 0's own top 7S with loose 2S does not make 9."""
    st = three(hands=(["9C", "AH"], ["5C"], ["6C"]), loose=["2S"], piles=(["7S"], [], []), last_capturer=0)
    for m in engine.legal_moves(st):
        assert m.result["piles"][0][:1] == ["7S"] or m.kind != "capture", m.text
        assert "7S" in m.result["piles"][0]


def final_state(fmt, piles):
    """A finished 3p state with these piles (every other card in seat 0's pile, under them)."""
    named = [c for p in piles for c in p]
    rest = [c for c in DECK40 if c not in named]
    piles = [list(p) for p in piles]
    piles[0] = rest + piles[0]
    return {"format": fmt, "deal": 1, "to_move": None, "hands": [[], [], []],
            "table": {"loose": [], "builds": []}, "piles": piles, "stock": [], "last_capturer": 0}


def test_p9_seven_points_most_cards_and_spades_score_nothing():
    """K16: ace 1 each, 2S 1, 10D 2 (7 points); most cards and most spades score nothing."""
    st = final_state("khasino-3p", [[], ["AS", "AH", "2S"], ["10D"]])
    sc = engine.scores(st)
    assert [s["score"] for s in sc] == [2, 3, 2] and sum(s["score"] for s in sc) == 7
    assert all(s["most_cards"] == 0 and s["most_spades"] == 0 for s in sc)
    assert engine.winner(st) == 1


def test_p9_equal_points_and_cards_then_most_spades():
    """K16: tied on points and cards at the top, most spades wins."""
    # seat 1: AS AH AC 3S (3 points, 4 cards, 2 spades); seat 2: 10D AD 4H 5H (3 points, 4 cards, 0 spades)
    st = final_state("khasino-3p", [[], ["AS", "AH", "AC", "3S"], ["10D", "AD", "4H", "5H"]])
    sc = engine.scores(st)
    assert [(sc[s]["score"], sc[s]["cards"], sc[s]["spades"]) for s in (1, 2)] == [(3, 4, 2), (3, 4, 0)]
    assert sc[0]["score"] == 1 and engine.winner(st) == 1


def test_p9_equal_points_cards_spades_then_10d_decides():
    """K16's last tie-break: points, cards and spades equal at the top, the 10D holder wins."""
    # seat 1: AS AH AC (3 points, 1 spade), 4 cards; seat 2: 10D AD (3 points), 3S (1 spade), 4 cards
    st = final_state("khasino-3p", [[], ["AS", "AH", "AC", "4H"], ["10D", "AD", "3S", "5H"]])
    sc = engine.scores(st)
    assert [(sc[s]["score"], sc[s]["cards"], sc[s]["spades"]) for s in (1, 2)] == [(3, 4, 1), (3, 4, 1)]
    assert engine.winner(st) == 2


def test_k16_three_three_one_goes_to_most_cards():
    """The seed's own example, 3-3-1: the two seats on 3 are split by most captured cards."""
    st = final_state("khasino-3p", [[], ["AS", "AH", "AC", "4H"], ["10D", "AD", "3S"]])
    sc = engine.scores(st)
    assert [s["score"] for s in sc] == [1, 3, 3]
    assert (sc[1]["cards"], sc[2]["cards"]) == (4, 3) and engine.winner(st) == 1


def p10(row_scores, winner):
    """P10 written out: fewest points; among ties the seat after the winner in turn order (A -> C -> B), else
    the lowest-numbered."""
    low = min(row_scores)
    tied = [s for s in range(3) if row_scores[s] == low]
    after = {0: 2, 2: 1, 1: 0}[winner]
    return after if after in tied else min(tied)


@pytest.mark.parametrize("fmt", THREE)
def test_p10_series_leader_is_the_previous_lowest_scorer(fmt):
    """K16/P10: in a series the previous match's lowest scorer leads the next; among tied lowest, the one that
    makes the previous winner play last; the first match is led by seat 0."""
    k = 5
    rows = engine.play_games(fmt, np.arange(2000, dtype=np.uint64), np.array([["random"] * 3] * 2000),
                             series=k)
    score = np.stack([rows[:, L.G_SEAT0 + s * L.SEAT_FIELDS + L.SEAT_SCORE] for s in range(3)], axis=1)
    leaders = rows[:, L.G_LEADER]
    assert (leaders[::k] == 0).all()
    ties = 0
    for g in range(2000):
        if g % k:
            want = p10(list(score[g - 1]), int(rows[g - 1, L.G_WINNER]))
            assert leaders[g] == want, g
            ties += sorted(score[g - 1])[0] == sorted(score[g - 1])[1]
    assert ties > 20, "the tie rule was exercised"
    assert set(leaders[1::k]) == {0, 1, 2}
    # a match is the same game whoever asks: match g with its leader, played alone, gives the same row
    for g in (1, 7, 13):
        alone = engine.play_game(fmt, g, ["random"] * 3, leader=int(leaders[g]))
        assert alone["winner"] == rows[g, L.G_WINNER]


def test_p10_series_leader_cases():
    """P10 by hand: lowest scorer leads; 2-2-3 with seat 2 the winner: of seats 0 and 1 the seat after the
    winner (C -> B: seat 1) leads."""
    from khasino_sim.kernels.khasino.state import series_leader
    rules = engine.get_format("khasino-3p").rules_array()

    def row(scores, winner):
        r = np.zeros(L.STATS_SIZE, dtype=np.int64)
        for s, v in enumerate(scores):
            r[L.G_SEAT0 + s * L.SEAT_FIELDS + L.SEAT_SCORE] = v
        r[L.G_WINNER] = winner
        return r
    assert series_leader(rules, row([4, 1, 2], 0)) == 1
    assert series_leader(rules, row([2, 2, 3], 2)) == 1      # after C comes B
    assert series_leader(rules, row([3, 2, 2], 0)) == 2      # after A comes C
    assert series_leader(rules, row([2, 3, 2], 1)) == 0      # after B comes A


def test_k16_hand_sizes_the_validator_accepts():
    """ENGINE.md, three players: going round from the mover, h cards for the seats yet to play this round,
    h - 1 for those that have; with stock left every hand holds three."""
    from_json(three(hands=(["9C", "AH"], ["5C"], ["6C"]), to_move=0))            # 0: 2, then 2: 1, 1: 1
    from_json(three(hands=(["9C", "AH"], ["5C"], ["6C", "2C"]), to_move=0))      # 0: 2, then 2: 2, 1: 1
    bad = three(hands=(["9C", "AH"], ["5C", "2C"], ["6C"]), to_move=0)          # 0: 2, then 2: 1, 1: 2
    with pytest.raises(StateError, match="hand sizes"):
        from_json(bad)
    st = engine.new_game("khasino-3p-stock", 5)
    st["hands"][1], st["stock"] = st["hands"][1][:2], st["stock"] + st["hands"][1][2:]
    with pytest.raises(StateError, match="stock"):
        from_json(st)


def test_3p_state_has_promises_and_decision_fields():
    """ENGINE.md: 3p states carry `promises` (one empty list per seat) and `decision` null; non-empty
    promises or a pending decision are rejected (no partners in 3p)."""
    st = engine.new_game("khasino-3p", 1)
    assert st["promises"] == [[], [], []] and st["decision"] is None
    with pytest.raises(StateError, match="promises"):
        from_json({**st, "promises": [[5], [], []]})
    with pytest.raises(StateError, match="decision"):
        from_json({**st, "decision": {"kind": "lead", "team": [0, 1]}})
    legacy = {k: v for k, v in st.items() if k not in ("promises", "decision")}
    from_json(legacy)
    assert "promises" not in engine.new_game("khasino", 1), "1v1 JSON is unchanged"


def test_series_needs_a_series_format(tmp_path):
    from khasino_sim.runs import simulate, SimulationError
    with pytest.raises(SimulationError, match="series"):
        simulate("khasino", 10, ("random", "random"), out=tmp_path / "r", series=3)


def test_simulate_three_players_with_series(tmp_path):
    """simulate: rows carry the leader, series and match numbers; each series keeps its players' seats; the
    dataset is the same whatever the shard size and workers."""
    from khasino_sim.runs import simulate, load
    a = load(simulate("khasino-3p", 600, ("greedy", "random", "random"), seed=3, out=tmp_path / "a",
                      series=4, shard_size=100, workers=2), "games")
    b = load(simulate("khasino-3p", 600, ("greedy", "random", "random"), seed=3, out=tmp_path / "b",
                      series=4, shard_size=250, workers=1), "games")
    assert a.equals(b)
    assert (a["series"] == a["game"] // 4).all() and (a["match"] == a["game"] % 4).all()
    assert (a.loc[a["match"] == 0, "leader"] == 0).all()
    for _, g in a.groupby("series"):
        assert g["bot_0"].nunique() == 1 and g["bot_1"].nunique() == 1
    assert set(a["score_0"] + a["score_1"] + a["score_2"]) == {7}
    seats = load(tmp_path / "a")
    assert (seats.loc[seats["first"], "seat"].to_numpy() == a["leader"].to_numpy()).all()


def test_k14_seat_0_leads_every_1v1_game():
    """K14: a 1v1 game is always led by seat 0; only formats with series (P10) take another leader."""
    with pytest.raises(StateError, match="K14"):
        engine.new_game("khasino", 1, leader=1)
    with pytest.raises(StateError, match="K14"):
        engine.play_game("durban", 1, ("random", "random"), leader=1)
    with pytest.raises(StateError, match="leader"):
        engine.new_game("khasino-3p", 1, leader=3)
    assert engine.new_game("khasino-3p", 1, leader=2)["to_move"] == 2
