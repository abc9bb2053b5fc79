"""The Kasino scenario tests (one per clause of N1–N7 and P22–P26, from source 003's own examples as
docs/rules/kasino.md restates them) run against the compiled core: the hand-built positions of
tests/kasino/test_reference_kasino.py, whose move scenarios read only
`legal_moves(state)` and the moves' public attributes, with the core's engine API in place of the reference."""
import pytest

from khasino_sim import engine
from tests.kasino import test_reference_kasino as scenarios


class CoreMove:
    """engine.Move as the scenarios read a move (the reference's attribute names)."""

    def __init__(self, m):
        self.card, self.kind, self.key, self.tabbe = m.card, m.kind, m.key, m.tabbe
        self.captured = list(m.captured)
        self.points = m.points
        self.result = m.result
        self.after = m.after
        self._json = m.to_json()

    def to_json(self):
        """The move's own fields (the core's JSON adds its sentence and result)."""
        return {k: self._json[k] for k in ("card", "kind", "captured", "tabbe")}


class Core:
    @staticmethod
    def legal_moves(state):
        return [CoreMove(m) for m in engine.legal_moves(state)]


MOVE_SCENARIOS = [
    "test_two_copies_in_hand_are_one_move",
    "test_two_copies_on_table_one_move_and_second_copy_key",
    "test_move_keys",
    "test_n2_seed_example_seven_takes_seven_and_three_plus_four",
    "test_n2_smaller_capture_is_not_legal",
    "test_n2_several_maximal_captures_player_chooses",
    "test_p23_ace_example_not_the_largest",
    "test_ace_fourteen_from_hand_one_on_table",
    "test_king_takes_six_plus_seven_and_a_table_king",
    "test_face_cards_sum_on_the_table",
    "test_n2_crawl_only_without_match",
    "test_empty_table_every_card_crawls",
    "test_n3_compulsory_tabbe_only_clearing_moves",
    "test_n3_several_clearing_cards_one_move_each",
    "test_n3_every_move_or_none_is_a_tabbe",
    "test_n4_tabbe_plus_to_taker_minus_to_previous_player",
    "test_n4_first_play_of_round_charged_to_dealer",
    "test_n4_double_tabbe",
    "test_n4_tabbe_on_the_rounds_last_card_counts",
    "test_n5_face_cards_set_aside_at_end_of_deal",
    "test_n5_round_end_spade_faces_to_last_capturer",
    "test_captures_match_brute_force",
]


@pytest.mark.parametrize("name", MOVE_SCENARIOS)
def test_scenario_on_the_core(name, monkeypatch):
    monkeypatch.setattr(scenarios, "ENGINE", Core)
    getattr(scenarios, name)()


def _match_winner(fmt, totals):
    """The core's N7 winner (kasino_game.match_winner) for match totals per seat; None on a tie."""
    import numpy as np
    from khasino_sim.formats import get_format
    from khasino_sim.kernels.core import layout as L
    from khasino_sim.kernels.kasino.game import match_winner
    row = np.zeros(L.STATS_SIZE, dtype=np.int64)
    for s, t in enumerate(totals):
        row[L.G_SEAT0 + s * L.SEAT_FIELDS + L.SEAT_MATCH_TOTAL] = t
    w = int(match_winner(get_format(fmt).rules_array(), row))
    return None if w < 0 else w


def test_seed_example_bea_and_dan_on_the_core():
    """Source 003's worked example (N7): Bea 18 card points and a tabbe Dan set up (+5) ends on 23, Dan 24 - 5 on 19,
    Dan wins. The example leaves out the round's extra point (18 + 24 = 42, every card point); in a real
    finished round it goes to the last capturer, here Bea: 24 against 19, and Dan still wins."""
    assert _match_winner("kasino-2p", [18 + 5, 24 - 5]) == 1
    bea_pile = ["10D", "10D", "2S", "2S", "AS", "AS", "AH", "AH", "AD", "AD"]
    s = scenarios.position(hands=[[], []], table=[], to_move=None, rest_to=1, last_capturer=0,
                           piles=[bea_pile, []], tabbe=[[5, 0], [0, -5]], over=True)
    bea, dan = engine.scores(s)
    assert (bea["card_points"], bea["last_point"], bea["tabbe_plus"], bea["score"]) == (18, 1, 5, 24)
    assert (dan["card_points"], dan["tabbe_minus"], dan["score"]) == (24, -5, 19)
    assert engine.winner(s) == 1


def test_pairs_totals_and_winner_on_the_core():
    """N7: pairs 0+2 v 1+3 (4p) and 0+3, 1+4, 2+5 (6p) combine their totals; the lowest wins; a tie at the
    lowest is a drawn match."""
    assert _match_winner("kasino-4p", [41, 45, 41, 45]) == 0
    assert _match_winner("kasino-6p", [10, 22, 11, 10, 22, 11]) == 0
    assert _match_winner("kasino-6p", [10, 22, 10, 10, 22, 10]) is None
    assert _match_winner("kasino-3p", [4, 3, 36]) == 1
    assert _match_winner("kasino-3p", [3, 3, 37]) is None
    s = scenarios.position("kasino-4p", hands=[[], [], [], []], table=[], to_move=None, rest_to=3,
                           last_capturer=3, piles=[["10D"], ["2S"], ["AS", "AH"], []], over=True)
    sc = engine.scores(s)
    assert [x["score"] for x in sc[:3]] == [3, 2, 3] and sc[0]["team_score"] == sc[2]["team_score"] == 6
    assert sc[1]["team_score"] == sc[3]["team_score"] == 43 - 6
    assert engine.winner(s) == 0


@pytest.mark.parametrize("engine_name", ["reference", "core"])
def test_p27_kasino_captures_of_the_same_cards_are_one_move(engine_name, monkeypatch):
    """P27's test applied to Kasino (face-down piles, no builds): with 2S 2H 4S 4H on the table a played 6 takes
    both pairs (N2: maximal), and the two pairings of them are one move, whose cards go on the pile in
    card-index order under the played card (P23); the two sixes in hand are two moves."""
    if engine_name == "core":
        monkeypatch.setattr(scenarios, "ENGINE", Core)
    s = scenarios.position(hands=[["6D", "6C"], ["2C", "QH"]], table=["2S", "2H", "4S", "4H"])
    moves = scenarios.moves_of(s)
    assert scenarios.summary(moves) == {("6D", "capture", ("2S", "2H", "4S", "4H")),
                                        ("6C", "capture", ("2S", "2H", "4S", "4H"))}
    assert sorted(m.result["piles"][0][-5:] for m in moves) == [["2S", "2H", "4S", "4H", "6C"],
                                                                ["2S", "2H", "4S", "4H", "6D"]]
