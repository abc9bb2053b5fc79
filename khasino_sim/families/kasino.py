"""Norwegian misère Kasino (docs/rules/, N1-N7, P22-P26): a double deck, 2-6 players, the lowest total wins.
Its moves and games are compiled apart (kernels/kasino_*); the engine hooks are khasino_sim/kasino_engine.py's."""
from khasino_sim.kernels.core import layout as L
from .. import kasino_engine as engine
from ..codec import kasino as codec
from ..codec.common import MAX_MATCH_ROUNDS
from .base import Family, register_family

OPTIONS = {
    "match_rounds": (int, "N7: rounds per match, a positive multiple of the number of seats"),
    "compulsory_tabbe": (bool, "N3: a card that can clear the table must be played to clear it (false: "
                               "clearing is one capture among the others, still scored as a tabbe)"),
    "tabbe_value": (int, "N4: a tabbe's points, 1 to 50 (+ to the taker, - to the player before); a double "
                         "tabbe scores twice them"),
    "alt_deal": (bool, "N1, 2 players: the first deal is 5 each and 6 to the table (kasino-2p-alt) instead of 6 "
                       "each and 4"),
}
INT_RANGES = {
    "tabbe_value": (1, 50, "a tabbe's points"),
    "match_rounds": (1, MAX_MATCH_ROUNDS, "rounds per match, a multiple of the seats"),
}


def check_option(fmt, name, value):
    """N7: a match is a multiple of the seats' rounds; N1: alt_deal is the 2-player first deal, 6 + 4 or 5 + 6
    (both leave 88 cards, 11 deals of 8)."""
    if name == "match_rounds" and (value < 1 or value % fmt.seats or value > MAX_MATCH_ROUNDS):
        raise ValueError(f"option match_rounds must be a multiple of {fmt.seats} (N7) from {fmt.seats} "
                         f"to {MAX_MATCH_ROUNDS}, not {value}")
    if name == "alt_deal":
        if fmt.seats != 2:
            raise ValueError(f"option alt_deal is the 2-player first deal (N1); {fmt.name} has {fmt.seats} seats")
        return {"hand": 5 if value else 6, "table_init": 6 if value else 4}
    return {}


def total_points(fmt):
    """N6: the double deck's card points and the last capturer's point."""
    return 2 * sum(fmt.card_points.values()) + 1


def categories(fmt):
    return {"card points": ("card_points", 1), "last capture": ("last_points", 1),
            "tabbe plus": ("tabbe_plus", 1), "tabbe minus": ("tabbe_minus", 1)}


def reference_round(fmt, seed, bots):
    """Single rounds: round 1 of the match of each seed (N7)."""
    from ..reference import kasino as ref
    return ref.play_round(fmt, ref.round_seed(seed, 1), bots)


KASINO = register_family(Family(
    name="kasino", rules="N1-N7, P22-P26", kernel_code=L.FAMILY_KASINO, options=OPTIONS, int_ranges=INT_RANGES,
    codec=codec, total_points=total_points, categories=categories, describe_view=engine.describe_view,
    reference_round=reference_round, new_game=engine.new_round, lister=engine.lister,
    seat_scores=engine.seat_scores, winner=engine.winner, play_games=engine.play_games,
    play_round=engine.play_round, play_match=engine.play_match, iter_moves=engine.iter_moves,
    scratch=engine.scratch, decide=engine.decide, check_option=check_option, misere=True,
    compiled_apart=True, position_hash=False,
))
