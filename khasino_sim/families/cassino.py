"""Classic Cassino (docs/rules/, C1-C8, P16-P21): 52 cards, 2-4 players, matches to 21."""
import numpy as np

from khasino_sim.kernels.core import layout as L
from ..codec import cassino as codec
from ..codec.common import StateError
from . import single_deck
from .base import Family, register_family

OPTIONS = {
    "face_values": (bool, "C1/P16: J 11, Q 12, K 13 count as numbers (builds reach 13)"),
    "ace_14": (bool, "C1/P17: an ace played from the hand may capture as 1 or 14"),
    "sweeps": (bool, "C1: 1 point per capture that clears the table"),
}


def derive(fmt):
    """P17: the highest build value follows the options."""
    return {"max_build_value": 14 if fmt.ace_14 else 13 if fmt.face_values else 10}


def unsummed(fmt):
    """P16: without face_values, J, Q and K have no number (they only pair)."""
    if fmt.face_values:
        return 0
    return sum(1 << (4 * rank + suit) for rank in (10, 11, 12) for suit in range(4))


def new_game(fmt, seed, deck, leader, rnd, scores, rounds):
    """P20: the position of round `rnd` dealt from the round seed `seed` (or an explicit deck order), with the
    match totals `scores` before it; the seat after the round's dealer leads (`leader` unused)."""
    from khasino_sim.kernels.cassino.game import start_round
    from khasino_sim.kernels.khasino.state import init_state
    if isinstance(rnd, bool) or not isinstance(rnd, int) or rnd < 1:
        raise StateError(f"round must be a positive integer, not {rnd!r}")
    order = np.zeros(104, dtype=np.int64)
    st = np.zeros(L.STATE_SIZE, dtype=np.int64)
    rules = fmt.rules_array()
    start_round(rules, np.uint64(seed), rnd, st, order, np.zeros(1, dtype=np.uint64))
    if deck is not None:        # the same round dealt from an explicit deck order
        single_deck.deck_order(fmt, deck, order)
        dealer, to_move = st[L.S_DEALER], st[L.S_TO_MOVE]
        init_state(st, rules, order)
        st[L.S_DEALER], st[L.S_ROUND], st[L.S_TO_MOVE] = dealer, rnd, to_move
    if scores is not None:
        if len(scores) != fmt.seats:
            raise StateError(f"scores must hold {fmt.seats} totals (one per seat)")
        st[L.S_SCORES: L.S_SCORES + fmt.seats] = scores
    return codec.to_json(st, fmt)


def categories(fmt):
    return {**single_deck.categories(fmt), "sweeps": ("sweeps", 1)}


def reference_round(fmt, seed, bots):
    """The same single rounds as the core's: round 1 of the match of each seed."""
    from ..reference import cassino as ref
    return ref.play_round(fmt, ref.round_seed(seed, 1), bots)


CASSINO = register_family(Family(
    name="cassino", rules="C1-C8, P16-P21", kernel_code=L.FAMILY_CASSINO, options=OPTIONS, int_ranges={},
    codec=codec, total_points=single_deck.total_points, categories=categories,
    describe_view=single_deck.describe_view, reference_round=reference_round, new_game=new_game,
    lister=single_deck.lister, seat_scores=single_deck.seat_scores, winner=single_deck.winner,
    play_games=single_deck.play_games, play_round=single_deck.play_round, play_match=single_deck.play_match,
    derive=derive, unsummed=unsummed, raise_words=True,
))
