"""Kasino's JSON state (docs/ENGINE.md, "Norwegian misère Kasino"): the double deck's multisets as card lists
with a repeated card named twice, the round and match fields (dealer, round, rounds, scores), tabbe points,
set-aside face cards and `last_player`. Validation names the problem in one line (StateError)."""
import numpy as np

from khasino_sim.kernels.core import layout as L
from khasino_sim.kernels.core.bits import card_name, parse_card, mask_cards
from khasino_sim.kernels.core.multiset import FACE_CARDS, card_of_id
from .common import (MAX_MATCH_ROUNDS, SCORE_LIMIT, StateError, brief, field, options_json, read_deal, seat,
                     seat_lists)


def multiset_names(lo, hi):
    """A multiset (lo, hi) as card names in card-index order, a card present twice named twice."""
    out = []
    for c in mask_cards(int(lo)):
        out.append(card_name(c))
        if int(hi) >> c & 1:
            out.append(card_name(c))
    return out


def to_json(st, fmt, decision=None):
    """The JSON state of a kernel state vector (Kasino has no pending decisions)."""
    seats = fmt.seats
    to_move = int(st[L.S_TO_MOVE])
    last = int(st[L.S_LAST_CAP])
    pile = [L.S_PILE + s * L.MAX_PILE for s in range(seats)]
    return {
        "format": fmt.name,
        "options": options_json(fmt),
        "dealer": int(st[L.S_DEALER]), "round": int(st[L.S_ROUND]), "rounds": int(st[L.S_ROUNDS]),
        "scores": [int(st[L.S_SCORES + s]) for s in range(seats)],
        "tabbe": [[int(st[L.S_TABBE + 2 * s]), int(st[L.S_TABBE + 2 * s + 1])] for s in range(seats)],
        "set_aside": multiset_names(st[L.S_ASIDE], st[L.S_ASIDE + 1]),
        "last_player": int(st[L.S_LAST_MOVER]),
        "deal": int(st[L.S_DEAL]),
        "to_move": None if to_move < 0 else to_move,
        "hands": [multiset_names(st[L.S_HANDS + 2 * s], st[L.S_HANDS + 2 * s + 1]) for s in range(seats)],
        "table": {"loose": multiset_names(st[L.S_LOOSE], st[L.S_LOOSE_HI]), "builds": []},
        "piles": [multiset_names(st[b], st[b + 1]) for b in pile],
        "stock": [card_name(card_of_id(int(c))) for c in st[L.S_STOCK + st[L.S_STOCK_POS]: L.S_STOCK + st[L.S_STOCK_LEN]]],
        "last_capturer": None if last < 0 else last,
        **({"teams": [list(t) for t in fmt.teams]} if fmt.teams else {}),
        "over": bool(st[L.S_OVER]),
    }


def _int(d, key, default, lo, hi):
    value = d.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise StateError(f"state field {key!r} must be an integer in {lo}..{hi}, not {brief(value)}")
    return value


def _int_list(d, key, n, default, limit):
    value = d.get(key, default)
    if not isinstance(value, list) or len(value) != n or \
            any(isinstance(x, bool) or not isinstance(x, int) or abs(x) > limit for x in value):
        raise StateError(f"state field {key!r} must be a list of {n} integers in -{limit}..{limit} (one per seat)")
    return value


class _Counts:
    """Counts every card of a double-deck state; each must appear exactly twice."""

    def __init__(self):
        self.count = [0] * 52

    def take(self, items, where):
        if not isinstance(items, list):
            raise StateError(f"{where} must be a list of cards")
        lo = hi = 0
        for text in items:
            try:
                c = parse_card(text)
            except ValueError:
                raise StateError(f"unknown card {brief(text)} in {where}") from None
            self.count[c] += 1
            if self.count[c] > 2:
                raise StateError(f"card {card_name(c)} appears more than twice (the double deck holds two)")
            if lo >> c & 1:
                if hi >> c & 1:
                    raise StateError(f"card {card_name(c)} appears three times in {where}")
                hi |= 1 << c
            else:
                lo |= 1 << c
        return lo, hi, [parse_card(t) for t in items]

    def check(self):
        short = [card_name(c) for c in range(52) if self.count[c] != 2]
        if short:
            raise StateError(f"{len(short)} card(s) of the double deck are not there exactly twice: "
                             f"{' '.join(short[:8])}{' …' if len(short) > 8 else ''}")


def parse(d, fmt):
    """Validate a Kasino JSON state (a dict, its format and options read) and return (state vector, None)."""
    seats = fmt.seats
    st = np.zeros(L.STATE_SIZE, dtype=np.int64)
    counts = _Counts()
    dealer = seat(d.get("dealer", seats - 1), seats, "dealer")
    rounds = _int(d, "rounds", fmt.match_rounds, 1, MAX_MATCH_ROUNDS)
    if rounds % seats:
        raise StateError(f"rounds must be a positive multiple of {seats} (N7), not {rounds}")
    rnd = _int(d, "round", 1, 1, rounds)         # N7: a round of this match
    scores = _int_list(d, "scores", seats, [0] * seats, SCORE_LIMIT)
    tabbe = d.get("tabbe", [[0, 0]] * seats)
    if not isinstance(tabbe, list) or len(tabbe) != seats or any(
            not isinstance(t, list) or len(t) != 2 or any(isinstance(x, bool) or not isinstance(x, int)
                                                          or abs(x) > SCORE_LIMIT for x in t)
            for t in tabbe):
        raise StateError(f"tabbe must be {seats} pairs [plus, minus] of integers in -{SCORE_LIMIT}..{SCORE_LIMIT} "
                    "(one per seat)")
    for s, (plus, minus) in enumerate(tabbe):
        if plus < 0 or minus > 0:
            raise StateError(f"tabbe of seat {s} must be [plus >= 0, minus <= 0], not {[plus, minus]}")
    deal = read_deal(d, fmt)
    hands = seat_lists(d, "hands", seats)
    sizes = []
    for s, h in enumerate(hands):
        lo, hi, cards = counts.take(h, f"hand {s}")
        st[L.S_HANDS + 2 * s], st[L.S_HANDS + 2 * s + 1] = lo, hi
        sizes.append(len(cards))
    table = field(d, "table", dict)
    lo, hi, loose = counts.take(field(table, "loose", list, "table"), "table.loose")
    st[L.S_LOOSE], st[L.S_LOOSE_HI] = lo, hi
    if table.get("builds", []):
        raise StateError("Kasino has no builds: table.builds must be empty")
    lo, hi, aside = counts.take(d.get("set_aside", []), "set_aside")
    if (lo | hi) & ~FACE_CARDS:
        raise StateError("set_aside holds only face cards (J, Q, K; N5)")
    st[L.S_ASIDE], st[L.S_ASIDE + 1] = lo, hi
    piles = seat_lists(d, "piles", seats)
    for s, pile in enumerate(piles):
        lo, hi, cards = counts.take(pile, f"pile {s}")
        b = L.S_PILE + s * L.MAX_PILE
        st[b], st[b + 1], st[L.S_PLEN + s] = lo, hi, len(cards)
    _, _, stock = counts.take(field(d, "stock", list), "stock")
    counts.check()
    seen = [0] * 52
    for i, c in enumerate(stock):       # the copy of each stock card: ids 0..103 (the copy does not matter)
        st[L.S_STOCK + i] = c + 52 * seen[c]
        seen[c] += 1
    st[L.S_STOCK_LEN] = len(stock)
    left = seats * fmt.later_hand * (fmt.deals - deal)
    if len(stock) != left:
        raise StateError(f"deal {deal} of {fmt.deals} leaves {left} cards in the stock, not {len(stock)}")
    if fmt.teams and d.get("teams", [list(t) for t in fmt.teams]) != [list(t) for t in fmt.teams]:
        raise StateError(f"{fmt.name} plays in pairs {[list(t) for t in fmt.teams]} (N7)")
    if not fmt.teams and "teams" in d:
        raise StateError(f"{fmt.name} has no pairs")
    to_move = d.get("to_move", "absent")
    if to_move == "absent":
        raise StateError("state has no 'to_move'")
    over = bool(d.get("over", False))
    leader = (dealer + 1) % seats
    if to_move is None:
        if any(sizes) or loose or stock:
            raise StateError("to_move is null (round over) but cards are still in play")
        over = True
        st[L.S_TO_MOVE] = -1
        default_last = dealer
    else:
        p = seat(to_move, seats, "to_move")
        if over:
            raise StateError("over is true but a seat is to move")
        h = fmt.hand if deal == 1 else fmt.later_hand
        m = sizes[p]
        order = [(leader + i) % seats for i in range(seats)]
        want = [m - 1 if order.index(s) < order.index(p) else m for s in range(seats)]
        if not 1 <= m <= h or sizes != want:
            raise StateError(f"hand sizes {sizes} do not fit deal {deal} with seat {p} to move (seat {leader} leads "
                        f"every deal, {h} cards each)")
        st[L.S_TO_MOVE] = p
        default_last = (p - 1) % seats
    st[L.S_LAST_MOVER] = seat(d.get("last_player", default_last), seats, "last_player")
    last = seat(d.get("last_capturer"), seats, "last_capturer", allow_none=True)
    if last < 0 and any(st[L.S_PLEN + s] for s in range(seats)):
        raise StateError("last_capturer is null but a pile holds cards (only captures make piles)")
    st[L.S_LAST_CAP] = last
    st[L.S_OVER] = over
    st[L.S_DEAL] = deal
    st[L.S_DEALER] = dealer
    st[L.S_ROUND] = rnd
    st[L.S_ROUNDS] = rounds
    st[L.S_SCORES: L.S_SCORES + seats] = scores
    for s, (plus, minus) in enumerate(tabbe):
        st[L.S_TABBE + 2 * s], st[L.S_TABBE + 2 * s + 1] = plus, minus
    st[L.S_TURN] = 104 - len(stock) - sum(sizes) - fmt.table_init
    return st, None
