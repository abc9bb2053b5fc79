"""The Cassino scenario tests (one per clause of C1–C8 and each option, from source 002's own examples as
docs/rules/cassino.md restates them; written against the reference in tests/cassino/test_reference_cassino.py)
run against the compiled core, and the reference's brute-force oracle (every partition of small random positions
into groups, written from docs/rules/cassino.md and docs/rules/project.md) checked against the core's moves
too."""
import pytest

from khasino_sim import engine
from tests.cassino import test_reference_cassino as T

SCENARIOS = [
    "test_c3_six_takes_one_or_more_sixes", "test_c3_six_takes_two_threes_and_three_twos",
    "test_c3_build_taken_whole_by_its_value_only", "test_c4_multiple_build_of_eight",
    "test_c4_build_needs_the_card_kept_and_a_table_card", "test_c4_add_passes_ownership",
    "test_c5_raise_single_build", "test_c5_no_raise_of_a_multiple_build_nor_onto_an_existing_value",
    "test_p19_raise_limit_ten_and_face_values", "test_c6_no_trail_while_owning_a_build",
    "test_p1_last_card_of_an_owned_build", "test_p1_ace_14_two_builds_one_ace_gap",
    "test_p1_ace_14_builds_of_1_and_14_need_two_aces", "test_p16_face_card_takes_exactly_one_of_its_rank",
    "test_c1_face_values", "test_c1_ace_14", "test_sweeps_option", "test_sweep_with_the_last_card_and_end_takeover",
    "test_p2_nobody_captured_last_player_takes_the_table", "test_p27_canonical_grouping_of_a_multiple_build",
]
OPTION_SETS = [{}, {"ace_14": True}, {"face_values": True}, {"sweeps": True},
               {"ace_14": True, "face_values": True, "sweeps": True}]


@pytest.fixture(autouse=True)
def core(monkeypatch):
    """The scenarios' `successors` reads ENGINE.legal_moves: the compiled core's here."""
    monkeypatch.setattr(T, "ENGINE", engine)


@pytest.mark.parametrize("name", SCENARIOS)
def test_scenario_on_the_core(name):
    getattr(T, name)()


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: "+".join(o) or "default")
def test_core_against_brute_force(options):
    T.test_against_brute_force(options)


@pytest.mark.parametrize("options", OPTION_SETS[1::3], ids=lambda o: "+".join(o))
def test_core_against_brute_force_aces(options):
    T.test_against_brute_force_aces(options)


def _counted(fmt, piles, before, sweeps=None, options=None):
    state = {**T.final(fmt, piles, sweeps=sweeps, options=options), "scores": before}
    got = engine.count_round(state)
    return got["totals"], got["winner"]


def test_core_match_counting_order():
    """P21 on the core (game.count_round), the reference test's cases: cards, spades, 10D, 2S, aces S C H D,
    then sweeps; the totals after the whole round; reaching 21 level with another seat is no win."""
    piles = [T.suit("C") + T.suit("H") + ["2D", "3D"], T.suit("S") + [c for c in T.suit("D") if c not in ("2D", "3D")]]
    assert _counted("cassino", piles, [19, 20]) == ([24, 26], 0)        # cards first: 22 v 20
    assert _counted("cassino", piles, [16, 19]) == ([21, 25], 1)        # 10D before 2S and the aces
    assert _counted("cassino", piles, [17, 16]) == ([22, 22], 1)        # AS (seat 1) before AC (seat 0)
    assert _counted("cassino", piles, [0, 0]) == ([5, 6], None)
    assert _counted("cassino", piles, [18, 21]) == ([23, 27], 1)        # cards 21 v 21, then spades


def test_core_sweeps_tie_plays_another_round():
    piles = [T.suit("S") + T.suit("H"), T.suit("D") + T.suit("C")]
    assert _counted("cassino", piles, [15, 15], sweeps=[2, 2], options={"sweeps": True}) == ([21, 21], None)
    nxt = [T.suit("S") + T.suit("H")[:12], T.suit("H")[12:] + T.suit("D") + T.suit("C")]
    assert _counted("cassino", nxt, [21, 21]) == ([25, 28], 1)          # the next round: cards decide at once


def test_core_match_counting_by_team():
    """C8: partners pool their piles; both carry the team's total; the winner is the team."""
    piles = [T.suit("S"), T.suit("H"), T.suit("D"), T.suit("C")]       # team 0: S+D (26, 13 spades, 10D, 2S)
    totals, winner = _counted("cassino-4p", piles, [17, 10, 17, 10])
    assert winner == 0 and totals[0] == totals[2] and totals[1] == totals[3]
    assert totals == [17 + 1 + 2 + 1 + 2, 12, 17 + 1 + 2 + 1 + 2, 12]   # cards tie (no points), spades, 10D, 2S, AS+AD; AH+AC


def test_p27_core_moves_a_player_can_tell_apart():
    """P27 on the core: the 22 moves of issue 36's example, with the reference's successors and keys."""
    T.test_p27_moves_a_player_can_tell_apart()
    s = T.position(hands=[["6D", "6C"], ["2D", "3D"]], loose=["2S", "2H", "4S", "4H"])
    want = {m.key: T.canon(m.result) for m in T.R.legal_moves(s)}
    assert T.successors(s) == want and len(want) == 22
