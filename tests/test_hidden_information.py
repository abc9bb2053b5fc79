"""RULINGS.md, "What bots see": a bot's choice must not change when hidden cards are permuted. The hidden
cards of the mover are the other seats' hands (in 4p the partner's too) and the undealt stock; shuffling them
together (sizes kept) must leave every bot's move unchanged, for the same bot-stream draw. In 4p this covers
the lead decision (seat 0 sees only its own hand) and Stay decisions (the partner's view)."""
import random

import pytest

from khasino_sim import engine

FORMATS = ["khasino", "durban", "khasino-3p", "khasino-3p-stock", "khasino-4p", "cassino", "cassino-3p",
           "cassino-4p", "kasino-2p", "kasino-3p", "kasino-4p", "kasino-6p"]


def positions(fmt, games):
    for g in range(games):
        state = engine.new_game(fmt, 500 + g)
        rng = random.Random(g)
        while not state["over"]:
            yield state
            state = rng.choice(engine.legal_moves(state)).result


def permute_hidden(state, rng):
    """The other seats' hands and the stock shuffled together, every size kept."""
    p = state["to_move"]
    others = [q for q in range(len(state["hands"])) if q != p]
    hidden = [c for q in others for c in state["hands"][q]] + state["stock"]
    rng.shuffle(hidden)
    out = dict(state)
    hands = [list(h) for h in state["hands"]]
    at = 0
    for q in others:
        hands[q] = sorted(hidden[at: at + len(state["hands"][q])], key=engine.parse_card)
        at += len(state["hands"][q])
    out["hands"] = hands
    out["stock"] = hidden[at:]
    # P1 bookkeeping: an opponent build owner must still hold its value; skip permutations that break it
    return out


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("bot", ["random", "greedy", "heuristic"])
def test_choice_ignores_hidden_cards(fmt, bot):
    rng = random.Random(99)
    checked = 0
    games = 12 if fmt.startswith("cassino") else 4 if fmt.startswith("kasino") else 25
    for i, state in enumerate(positions(fmt, games)):
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
            assert (move.card, move.kind, move.key) == (base.card, base.kind, base.key)
            checked += 1
    assert checked > 1000
