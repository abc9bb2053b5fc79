"""The hooks Khasino and Cassino share: both play one 52-card (or 40-card) deck on the one-deck compiled core
(kernels/khasino/game.py, movegen.py, state.py). Kernel entry points are imported where they are called, so that
reading the registry of formats loads no compiled code."""
import numpy as np

from khasino_sim.kernels.core import layout as L
from khasino_sim.kernels.core.bits import card_name, mask_cards, parse_card
from ..codec.common import StateError


def deck_order(fmt, deck, order):
    """An explicit deck order (a list of cards, top first) into `order`; StateError unless it holds each of the
    format's cards once."""
    ids = [parse_card(c) for c in deck]
    if sorted(ids) != list(range(fmt.deck)):
        raise StateError(f"a deck for {fmt.name} must hold each of its {fmt.deck} cards once")
    order[:fmt.deck] = ids


def lister():
    from khasino_sim.kernels.movegen import list_window
    return list_window


def seat_scores(st, fmt):
    """K13 scoring of a state's piles, per seat."""
    from khasino_sim.kernels.khasino.state import score
    row = np.zeros(L.STATS_SIZE, dtype=np.int64)
    score(st, fmt.rules_array(), row)
    return [{name: int(row[L.G_SEAT0 + s * L.SEAT_FIELDS + i]) for i, name in enumerate(L.SEAT_FIELD_NAMES[:8])}
            for s in range(fmt.seats)]


def winner(st, fmt):
    from khasino_sim.kernels.khasino.state import score
    return int(score(st, fmt.rules_array(), np.zeros(L.STATS_SIZE, dtype=np.int64)))


def play_games(fmt, seeds, bots, check, series):
    """Many games in one compiled call; in Cassino each game is a single round: round 1 of the match with that
    seed (P20, P21)."""
    from khasino_sim.kernels.khasino.game import play_batch
    from khasino_sim.kernels.dispatch import play_matches
    if fmt.match_target:        # Cassino: single rounds (each the first round of a match with that seed)
        return play_matches(fmt.rules_array(), seeds, bots, check, single=True)
    return play_batch(fmt.rules_array(), seeds, bots, check, series=series)


def play_round(args, fmt, rounds):
    from khasino_sim.kernels.cassino.game import dealt_round
    return dealt_round(*args)


def play_match(fmt, seed, ids, rounds, check, seat_stats):
    """C7, P21: a match to 21 from the match seed `seed` (round r dealt from `round_seed(seed, r)`)."""
    from khasino_sim.kernels.dispatch import play_matches
    rows = play_matches(fmt.rules_array(), np.array([seed], dtype=np.uint64), ids[None, :], check)
    per_round = [seat_stats(r, fmt.seats) for r in rows]
    return {"rounds": per_round, "totals": [s["match_total"] for s in per_round[-1]],
            "winner": int(rows[-1, L.G_MATCH_WINNER]), "bad": int(rows[:, L.G_BAD].sum()),
            "no_move": int(rows[:, L.G_NO_MOVE].sum())}


def total_points(fmt):
    return sum(fmt.card_points.values()) + fmt.most_cards + fmt.most_spades


def categories(fmt):
    """Points by category: {name: (seats column, points per unit of it)}."""
    rules = fmt.rules_array()
    pts = {c: int(rules[L.R_CARD_POINTS + parse_card(c)]) for c in ("AS", "2S", "10D")}
    return {"most cards": ("most_cards", 1), "most spades": ("most_spades", 1), "aces": ("aces", pts["AS"]),
            "2S": ("two_spades", pts["2S"]), "10D": ("ten_diamonds", pts["10D"])}


def describe_view(view, move, kind):
    """The move a user bot's score function was given, and what its seat saw, in one line."""
    def cards(mask):
        return " ".join(card_name(c) for c in mask_cards(int(mask) & (2**52 - 1)))
    card = card_name(int(move[L.M_CARD])) if 0 <= move[L.M_CARD] < 52 else "?"
    value = f" {move[L.M_VALUE]}" if kind in ("build", "load", "change") else ""
    builds = [f"{v} (seat {view[L.O_BOWNER + v]})" for v in range(L.MAX_VALUE + 1) if view[L.O_BOWNER + v] >= 0]
    return (f"{card} {kind}{value} for seat {view[L.O_SEAT]} (deal {view[L.O_DEAL]}) holding "
            f"[{cards(view[L.O_HAND])}], loose [{cards(view[L.O_LOOSE])}]"
            + (f", builds {', '.join(builds)}" if builds else ""))
