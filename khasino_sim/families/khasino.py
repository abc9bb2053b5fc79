"""South African Khasino (docs/rules/, K1-K16, P1-P15): 1v1, durban, 3p and 4p with partners."""
import numpy as np

from khasino_sim.kernels.core import layout as L
from ..codec import khasino as codec
from ..codec.common import check_leader
from . import single_deck
from .base import Family, register_family

# Rule options a user may set per run (`khasino simulate --set NAME=VALUE`): the Format field, its type, and
# what it means. Changing one changes the rules hash stamped into the results.
OPTIONS = {
    "trail_restricted": (bool, "K11: no trail of a value already loose or built"),
    "no_trail_own_build_first_deal": (bool, "K11: no trail in the first deal while owning a build"),
    "max_builds_owned": (int, "K5/P6: builds one player may own at once (0 = unlimited)"),
    "change_mode": (int, "K7: 0 = two-card simple build, played card alone; 1 = any simple build, extra cards"),
    "follow_ups": (bool, "K9: follow-up groups after a capture, build, load or change"),
    "opponent_piles": (bool, "K8: opponents' exposed pile cards may be used"),
    "last_capturer_takes_table": (bool, "K12: the last capturer takes the cards left on the table at the end "
                                        "(false: nobody does; they score for no one)"),
    "next_deal_leader": (int, "K14: who leads the second deal: 0 the first deal's leader, 1 the other seat (the "
                              "lead passes on each deal), 2 the first deal's last capturer"),
}
INT_RANGES = {
    "max_builds_owned": (0, L.MAX_VALUE, f"0 = unlimited; no seat can own more than {L.MAX_VALUE} builds, one per "
                                         f"value"),
    "change_mode": (0, 1, "0 = two-card simple build, 1 = any simple build"),
    "next_deal_leader": (0, 2, "0 the same leader, 1 the lead passes on, 2 the last capturer"),
}


def new_game(fmt, seed, deck, leader, rnd, scores, rounds):
    """The state before the first move, dealt from `seed` or an explicit deck order; seat `leader` plays first
    (K14, P10); in 4p team AB's lead decision is pending (P11)."""
    from khasino_sim.kernels.khasino.state import init_state
    from khasino_sim.kernels.core.deal import shuffle_deck
    check_leader(fmt, leader)
    order = np.zeros(104, dtype=np.int64)
    if deck is None:
        shuffle_deck(order, fmt.deck, np.uint64(seed), np.zeros(1, dtype=np.uint64))
    else:
        single_deck.deck_order(fmt, deck, order)
    st = np.zeros(L.STATE_SIZE, dtype=np.int64)
    init_state(st, fmt.rules_array(), order)
    st[L.S_TO_MOVE] = leader
    return codec.to_json(st, fmt, {"kind": "lead", "team": [0, 1]} if fmt.lead_choice else None)


def reference_round(fmt, seed, bots):
    from ..reference import khasino as ref
    return ref.play_game(fmt, seed, bots)


KHASINO = register_family(Family(
    name="khasino", rules="K1-K16, P1-P15", kernel_code=L.FAMILY_KHASINO, options=OPTIONS, int_ranges=INT_RANGES,
    codec=codec, total_points=single_deck.total_points, categories=single_deck.categories,
    describe_view=single_deck.describe_view, reference_round=reference_round, new_game=new_game,
    lister=single_deck.lister, seat_scores=single_deck.seat_scores, winner=single_deck.winner,
    play_games=single_deck.play_games, play_round=single_deck.play_round, play_match=single_deck.play_match,
))
