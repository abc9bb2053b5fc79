"""The Kasino scenario tests (one per clause of N1–N7 and P22–P26, from seed 003's own examples) run against the
compiled core: the hand-built positions of tests/test_reference_kasino.py, whose move scenarios read only
`legal_moves(state)` and the moves' public attributes, with the core's engine API in place of the reference."""
import pytest

from khasino_sim import engine
from tests import test_reference_kasino as scenarios


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
