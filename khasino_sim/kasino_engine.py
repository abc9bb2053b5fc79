"""The Python API's Kasino side (N1–N7): deal a round, its moves as engine.Move objects (with `captured` and
`tabbe`), whole matches, scores: the engine hooks of Kasino's family record (khasino_sim/families/kasino.py).
Listing windows, counting, bot moves and single rounds go through engine's own code with Kasino's compiled entry
points, which these hooks name."""
import numpy as np

from khasino_sim.kernels.core import layout as L
from khasino_sim.kernels.core.bits import card_name, parse_card
from khasino_sim.kernels.kasino.search import decide_kasino
from khasino_sim.kernels.kasino.game import kasino_list_window, play_kasino_matches, play_kasino_round
from khasino_sim.kernels.kasino.state import init_round, apply_kasino, advance_kasino, score_kasino
from khasino_sim.kernels.core.deal import shuffle_deck
from .codec.common import StateError
from .codec.kasino import multiset_names, to_json


def new_round(fmt, seed, deck, leader, rnd, scores, rounds):
    """The first position of round `rnd` dealt from the round seed `seed` (P22), or from an explicit deck order
    (104 cards, each card twice, top first), with the match totals `scores` before it."""
    if isinstance(rnd, bool) or not isinstance(rnd, int) or rnd < 1:
        raise StateError(f"round must be a positive integer, not {rnd!r}")
    order = np.zeros(104, dtype=np.int64)
    if deck is None:
        shuffle_deck(order, 104, np.uint64(seed), np.zeros(1, dtype=np.uint64))
    else:
        try:
            ids = [parse_card(c) for c in deck]
        except (ValueError, TypeError):
            raise StateError("a deck is a list of card names") from None
        if sorted(ids) != sorted(list(range(52)) * 2):
            raise StateError(f"a deck for {fmt.name} must hold each card twice (104 cards)")
        seen = [0] * 52
        for i, c in enumerate(ids):
            order[i] = c + 52 * seen[c]
            seen[c] += 1
    st = np.zeros(L.STATE_SIZE, dtype=np.int64)
    rules = fmt.rules_array()
    init_round(st, rules, order, rnd)
    if rounds is not None:
        if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1 or rounds % fmt.seats:
            raise StateError(f"rounds must be a positive multiple of {fmt.seats} (N7), not {rounds!r}")
        st[L.S_ROUNDS] = rounds
    if scores is not None:
        if len(scores) != fmt.seats:
            raise StateError(f"scores must hold {fmt.seats} totals (one per seat)")
        st[L.S_SCORES: L.S_SCORES + fmt.seats] = scores
    return to_json(st, fmt)


def describe(rec, p, fmt):
    """A move in words; its tabbe (N3, N4) in the points of the format's `tabbe_value`."""
    card = card_name(int(rec[L.M_CARD]))
    if int(rec[L.M_KIND]) == L.KIND_TRAIL:
        return f"Play {card}: no match, it crawls onto the table"
    taken = multiset_names(rec[L.M_TAKEN_LO], rec[L.M_TAKEN_HI])
    t = int(rec[L.M_TABBE])
    tabbe = "" if t == 0 else f" — double tabbe: +{t} / -{t}" if t == 2 * fmt.tabbe_value else \
        f" — tabbe: +{t} to you, -{t} to the player before"
    return f"Play {card} to take {' '.join(taken)}{tabbe}"


def iter_moves(fmt, st, records, move_class):
    """Every distinct legal move (P7) in generation order, as `move_class` (engine.Move) objects, from the
    candidate records engine's listing windows give."""
    rules = fmt.rules_array()
    p = int(st[L.S_TO_MOVE])
    seen = set()
    for rec in records:
        key = int(np.uint64(rec[L.M_KEY]))
        if key in seen:
            continue
        seen.add(key)
        nxt = st.copy()
        apply_kasino(nxt, p, rec, 0)
        after = (fmt, nxt.copy())
        advance_kasino(nxt, rules, p)
        yield move_class(card_name(int(rec[L.M_CARD])), L.KIND_NAMES[int(rec[L.M_KIND])], describe(rec, p, fmt), key,
                         to_json(nxt, fmt), features=(-int(rec[L.M_POINTS]), int(rec[L.M_TABBE])), _after=after,
                         captured=tuple(multiset_names(rec[L.M_TAKEN_LO], rec[L.M_TAKEN_HI])),
                         tabbe=int(rec[L.M_TABBE]))


def seat_scores(st, fmt):
    """P26: per seat, the round's card points, last point, tabbe plus and minus, its score and its pair's."""
    row = np.zeros(L.STATS_SIZE, dtype=np.int64)
    score_kasino(st, fmt.rules_array(), row)
    keys = ("card_points", "last_point", "tabbe_plus", "tabbe_minus", "score", "team_score", "cards", "spades")
    return [{k: int(row[L.G_SEAT0 + s * L.SEAT_FIELDS + L.SEAT_FIELD_NAMES.index(k)]) for k in keys}
            for s in range(fmt.seats)]


def play_match(fmt, seed, bot_ids, rounds, check, seat_stats):
    """N7: a match of `rounds` rounds (default: the format's), round r dealt from round_seed(seed, r)."""
    rows = play_kasino_matches(fmt.rules_array(), np.array([seed], dtype=np.uint64), bot_ids[None, :], check,
                               nrounds=rounds)
    per_round = [seat_stats(r, fmt.seats) for r in rows]
    w = int(rows[-1, L.G_MATCH_WINNER])
    return {"rounds": per_round, "totals": [s["match_total"] for s in per_round[-1]],
            "winner": None if w < 0 else w, "bad": int(rows[:, L.G_BAD].sum()),
            "no_move": int(rows[:, L.G_NO_MOVE].sum()), "overflow": int(rows[:, L.G_OVERFLOW].sum())}


def lister():
    return kasino_list_window


def scratch(st, rules, ws):
    """The table's items and their subsets (no piles are usable)."""
    from khasino_sim.kernels.kasino.moves import prepare_table
    ws[L.C_OVERFLOW] = 0
    items = int(prepare_table(st, rules, ws))
    return {"items": items, "item_capacity": L.MAX_ITEMS, "subsets": int(ws[L.C_NSUB]),
            "subset_capacity": L.MAX_SUBSETS, "pile_depth": 0, "pile_depths": {},
            "pile_capacity": L.PREFIX_STRIDE - 1, "overflow": bool(ws[L.C_OVERFLOW])}


def decide(code, st, rules, p, ws, stream):
    decide_kasino(code, st, rules, p, ws, stream)


def winner(st, fmt):
    """N7 in one round: the lowest round score (a pair's in 4p/6p)."""
    return int(score_kasino(st, fmt.rules_array(), np.zeros(L.STATS_SIZE, dtype=np.int64)))


def play_games(fmt, seeds, bots, check, series):
    """Single rounds: round 1 of the match with that seed (N7)."""
    return play_kasino_matches(fmt.rules_array(), seeds, bots, check, nrounds=1)


def play_round(args, fmt, rounds):
    """P22-P26: `winner` the lowest round score's team; `rounds` the match length."""
    return play_kasino_round(*args, rounds or fmt.match_rounds)


def describe_view(view, move, kind):
    """The move a user bot's score function was given, and what its seat saw, in one line."""
    from khasino_sim.kernels.core.multiset import card_of_id
    card = card_name(card_of_id(int(move[L.M_CARD]))) if 0 <= move[L.M_CARD] < 104 else "?"
    return (f"{card} {kind} for seat {view[L.KO_SEAT]} (round {view[L.KO_ROUND]}) holding "
            f"[{' '.join(multiset_names(view[L.KO_HAND], view[L.KO_HAND + 1]))}], table "
            f"[{' '.join(multiset_names(view[L.KO_TABLE], view[L.KO_TABLE + 1]))}]")
