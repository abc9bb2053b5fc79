"""Every registered format, docs/rules/project.md "What bots see": a bot's choice must not change when hidden cards are
permuted. The hidden cards of the mover are the other seats' hands (in 4p the partner's too) and the undealt
stock; shuffling them together (sizes kept, tests/helpers.py `permute_hidden`) must leave every bot's move
unchanged, for the same bot-stream draw. In 4p Khasino this covers the lead decision (seat 0 sees only its own
hand) and Stay decisions (the partner's view). Search bots and user bots are checked in tests/test_search_bots.py
and tests/test_user_bots.py (tests/helpers.py `count_blind_choices`)."""
import random

import pytest

from khasino_sim import engine
from khasino_sim.formats import FORMATS
from tests.helpers import permute_hidden, positions, sample


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("bot", ["random", "greedy", "heuristic"])
def test_choice_ignores_hidden_cards(fmt, bot):
    rng = random.Random(99)
    checked = 0
    for i, state in enumerate(positions(fmt, sample(fmt, "hidden"))):
        p = state["to_move"]
        if not any(h for q, h in enumerate(state["hands"]) if q != p) and not state["stock"]:
            continue
        base = engine.bot_move(state, bot, i)
        for _ in range(3):
            other = permute_hidden(state, rng)
            try:
                move = engine.bot_move(other, bot, i)
            except engine.StateError:
                continue          # the permutation broke P1 for the opponent's build (or, in a 4p Stay
                                  # decision, took the mover's card): not a reachable state
            assert (move.card, move.kind, move.key) == (base.card, base.kind, base.key), \
                f"{fmt} {bot}: position {i} played differently with the hidden cards permuted"
            checked += 1
    assert checked > 1000
