"""The Norwegian misère Kasino ("omvendt kasino") reference engine: formats ``kasino-2p``, ``kasino-2p-alt``,
``kasino-3p``, ``kasino-4p`` (pairs 0+2 v 1+3), ``kasino-5p`` and ``kasino-6p`` (pairs 0+3, 1+4, 2+5), on the
double deck (104 cards, two copies of each card).

The slow, readable oracle the compiled core is tested against.  Written from the Kasino rules page
(``docs/rules/kasino.md``, N1..N7), the project's rules (``docs/rules/project.md``: cards, P7, P22..P26,
round seeds) and ``docs/ENGINE.md`` (JSON state format (Norwegian misère Kasino), Randomness, move keys,
Bots).  Standard library only; it shares no rule with the Khasino engine, only the generic helpers of
``common`` (card names, splitmix64, round seeds, the deal stream, Z, the lazy moves, the bots' draw and play
loop).

Internal representation (JSON only at the API boundary):

* a card is its index ``4 * (rank - 1) + suit`` (rank A=1 .. K=13; suit S=0, H=1, D=2, C=3); the copy of a
  double-deck card is forgotten once it is dealt, so
* every zone that is a multiset (a hand, the table, a pile, the set-aside cards) is a sorted tuple of card
  indices, a card at most twice; the stock is a tuple in deal order;
* seats 0..n-1; play goes seat + 1 around the table (N1, P22);
* every state carries its resolved rule options (``opts``, a tuple in ``OPTIONS`` order: ``alt_deal`` N1,
  ``compulsory_tabbe`` N3, ``tabbe_value`` N4; docs/BALANCE.md "The variants").  JSON: ``options`` (optional on
  input, always written right after ``format``); not part of the move keys.

Values (``docs/rules/kasino.md``): played from the hand A 14, 2..10 face value, J 11, Q 12, K 13; on the table A 1,
the others the same.  A *match* for a played card is a single table card of its rank or a set of table cards whose
table values sum to its hand value.  Whether a multiset of table cards is a match, a union of disjoint matches or
holds a match depends only on the cards' table values (a table value of 1 is exactly an ace), so the capture tests
below work on sorted tuples of table values and are memoised on them.
"""
from __future__ import annotations

import itertools
from functools import lru_cache

from .common import (M64, TEN_DIAMONDS, TWO_SPADES, LazyMove, Position, Z, card_name, distinct_by_key, draw,
                     parse_card, play_out, rank, round_seed, seat_bots, shuffled_deck)

__all__ = [
    "FORMATS", "KINDS", "round_seed", "initial_state", "legal_moves", "advance", "choose", "play_round",
    "play_match", "score", "add_round", "match_winner", "KasinoMove", "card_points", "move_key", "OPTIONS",
    "default_options", "read_options",
]

# ---------------------------------------------------------------------------------------------------------
# Formats (docs/rules/kasino.md N1, N7; RULES.md P22, P26)
# ---------------------------------------------------------------------------------------------------------
FORMATS = {
    # N1 / P22: (cards each, table cards) of the first deal, number of deals; later deals 4 each, no table
    "kasino-2p": {"seats": 2, "hand": 6, "table": 4, "deals": 12, "teams": None},
    "kasino-2p-alt": {"seats": 2, "hand": 5, "table": 6, "deals": 12, "teams": None},
    "kasino-3p": {"seats": 3, "hand": 5, "table": 5, "deals": 8, "teams": None},
    "kasino-4p": {"seats": 4, "hand": 5, "table": 4, "deals": 6, "teams": ((0, 2), (1, 3))},
    "kasino-5p": {"seats": 5, "hand": 4, "table": 4, "deals": 5, "teams": None},
    "kasino-6p": {"seats": 6, "hand": 5, "table": 2, "deals": 4, "teams": ((0, 3), (1, 4), (2, 5))},
}
LATER_DEAL = 4          # N1: later deals give 4 cards to each player and none to the table
DECK_IDS = 104          # two 52-card decks; card id = index + 52 * copy (RULES.md "Double-deck cards")
KINDS = ("capture", "trail")
_JSON_FIELDS = ("format", "options", "dealer", "round", "rounds", "scores", "tabbe", "set_aside", "last_player",
                "deal", "to_move", "hands", "table", "piles", "stock", "last_capturer", "teams", "over")

ACE, JACK, QUEEN, KING = 1, 11, 12, 13
ACE_SPADES = 0                    # AS
TABBE = 5                         # N4 (the default of option ``tabbe_value``)
DOUBLE_TABBE = 10                 # N4: twice the tabbe value

# Rule options (docs/BALANCE.md "The variants"), written in this order right after "format"; not in the keys.
OPTIONS = (
    "alt_deal",           # N1: first deal 5 each + 6 to the table (kasino-2p-alt) instead of 6 + 4; 2 seats only
    "compulsory_tabbe",   # N3: a card that can clear the table must be played to clear it
    "tabbe_value",        # N4: a tabbe scores +v / -v, a double tabbe +2v / -2v; 1..50
)
ALT_DEAL = (5, 6)         # N1, P22: kasino-2p-alt's first deal (cards each, table cards)
PLAIN_2P_DEAL = (6, 4)    # N1, P22: kasino-2p's first deal


def default_options(fmt: str) -> dict:
    """The format's options (its rules, docs/rules/kasino.md), as the JSON ``options`` object."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}")
    return {"alt_deal": fmt == "kasino-2p-alt", "compulsory_tabbe": True, "tabbe_value": TABBE}


def read_options(fmt: str, raw=None) -> tuple:
    """The resolved options (a tuple in ``OPTIONS`` order) of a JSON ``options`` object: absent (None) -> the
    format's defaults; a partial object changes only the options it names.  ValueError naming the option for
    an unknown name, a value of the wrong type (bools true/false; ints ints, never bools) or range
    (``tabbe_value`` 1..50), and ``alt_deal`` true with other than 2 seats."""
    opts = default_options(fmt)
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ValueError("options: must be an object")
    for k, v in raw.items():
        if k not in opts:
            raise ValueError(f"options: unknown option {k!r}")
        if k == "tabbe_value":
            if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= 50:
                raise ValueError(f"options: tabbe_value must be an integer 1..50, not {v!r}")
        elif not isinstance(v, bool):
            raise ValueError(f"options: {k} must be true or false, not {v!r}")
        opts[k] = v
    if opts["alt_deal"] and FORMATS[fmt]["seats"] != 2:
        raise ValueError(f"options: alt_deal is only for 2 seats, not {fmt} (N1)")
    return tuple(opts[k] for k in OPTIONS)


def _opt(st, name: str):
    return st.opts[OPTIONS.index(name)]


def _suit(c: int) -> int:
    return c & 3


def _table_value(c: int) -> int:
    """Value of a card lying on the table: A 1, 2..10, J 11, Q 12, K 13 (docs/rules/kasino.md)."""
    return rank(c)


def _hand_value(c: int) -> int:
    """Value of a card played from the hand: A 14, 2..10, J 11, Q 12, K 13 (docs/rules/kasino.md)."""
    r = rank(c)
    return 14 if r == ACE else r


def _is_face(c: int) -> bool:
    return rank(c) in (JACK, QUEEN, KING)


def card_points(c: int) -> int:
    """N6: 10D 3, 2S 2, AS 2, other aces 1, other spades 1, all else 0 (42 in the double deck)."""
    if c == TEN_DIAMONDS:
        return 3
    if c in (TWO_SPADES, ACE_SPADES):
        return 2
    if rank(c) == ACE or _suit(c) == 0:
        return 1
    return 0


def _msort(cards) -> tuple:
    return tuple(sorted(cards))


def _msub(a: tuple, b: tuple) -> tuple:
    """Multiset a minus multiset b (b must be contained in a)."""
    rest = list(a)
    for c in b:
        rest.remove(c)
    return tuple(rest)


# ---------------------------------------------------------------------------------------------------------
# Internal state
# ---------------------------------------------------------------------------------------------------------
class _St(Position):
    """Internal position.  Immutable by convention: moves build new objects (``replace``: a changed copy)."""

    __slots__ = ("fmt", "dealer", "round", "rounds", "scores", "tabbe", "set_aside", "last_player", "deal",
                 "to_move", "hands", "table", "piles", "stock", "last_capturer", "over", "opts")

    def __init__(self, fmt, dealer, round, rounds, scores, tabbe, set_aside, last_player, deal, to_move, hands,
                 table, piles, stock, last_capturer, over, *, opts):
        self.fmt = fmt
        self.opts = opts                    # resolved rule options, a tuple in OPTIONS order
        self.dealer = dealer
        self.round = round
        self.rounds = rounds
        self.scores = scores                # tuple per seat: match totals before this round
        self.tabbe = tabbe                  # tuple per seat of (plus, minus), minus <= 0
        self.set_aside = set_aside          # sorted tuple: face cards set aside this round (P25)
        self.last_player = last_player      # seat that played just before (the dealer before the first play)
        self.deal = deal
        self.to_move = to_move
        self.hands = hands                  # tuple of sorted tuples
        self.table = table                  # sorted tuple
        self.piles = piles                  # tuple of sorted tuples
        self.stock = stock                  # tuple in deal order
        self.last_capturer = last_capturer  # seat or None
        self.over = over

    @property
    def n(self) -> int:
        return FORMATS[self.fmt]["seats"]

    @property
    def leader(self) -> int:
        """P22: the seat after the dealer leads every deal of the round."""
        return (self.dealer + 1) % self.n


def _first_deal(fmt: str, opts: tuple) -> tuple:
    """(cards each, table cards) of the first deal (N1, P22); with 2 seats option ``alt_deal`` picks 5 + 6
    (``kasino-2p-alt``) or 6 + 4 (``kasino-2p``)."""
    F = FORMATS[fmt]
    if F["seats"] == 2:
        return ALT_DEAL if opts[OPTIONS.index("alt_deal")] else PLAIN_2P_DEAL
    return F["hand"], F["table"]


def _deal_size(fmt: str, deal: int, opts: tuple) -> int:
    return _first_deal(fmt, opts)[0] if deal == 1 else LATER_DEAL


def _stock_size(fmt: str, deal: int) -> int:
    """P22: the stock holds exactly the cards of the deals still to come (4 to each seat per deal)."""
    F = FORMATS[fmt]
    return LATER_DEAL * F["seats"] * (F["deals"] - deal)


def _check_hands(st: _St, after: bool) -> None:
    """ENGINE.md hand sizes.  Going round in seat order from the leader, the seats that have played in the
    current deal hold one card fewer than the others.  In an ordinary state the mover (``to_move``) has not
    yet played; in an ``after`` state (right after a move, ``to_move`` still the mover) he has."""
    n, h = st.n, _deal_size(st.fmt, st.deal, st.opts)
    sizes = [len(x) for x in st.hands]
    if st.over:
        if any(sizes) or st.stock:
            raise ValueError("a finished round has empty hands and no stock")
        return
    order = [(st.leader + i) % n for i in range(n)]
    played = order[:order.index(st.to_move) + (1 if after else 0)]
    if after:
        k = sizes[st.to_move]                 # what the players of this deal hold now
        if k > h - 1:
            raise ValueError(f"hand sizes do not fit deal {st.deal} (deal size {h}) right after a move")
        expect = [k if s in played else k + 1 for s in range(n)]
    else:
        k = sizes[st.to_move]
        if not 1 <= k <= h:
            raise ValueError(f"the mover holds {k} cards: not 1..{h} in deal {st.deal}")
        expect = [k - 1 if s in played else k for s in range(n)]
    if sizes != expect:
        raise ValueError(f"hand sizes {sizes} do not fit the turn (expected {expect}; seats from the leader "
                         f"{st.leader} that have played hold one card fewer)")


_NAMES = tuple(card_name(i) for i in range(52))
_INDEX = {name: i for i, name in enumerate(_NAMES)}


def _parse(c) -> int:
    i = _INDEX.get(c) if isinstance(c, str) else None
    return i if i is not None else parse_card(str(c))


def _cards(raw, what: str) -> tuple:
    try:
        return tuple(_parse(c) for c in raw)
    except (ValueError, IndexError, TypeError):
        raise ValueError(f"{what}: unknown card in {raw!r}") from None


def _seat_or_none(x, n: int, what: str):
    if x is None:
        return None
    if isinstance(x, bool) or int(x) not in range(n):
        raise ValueError(f"{what}: not a seat")
    return int(x)


def _from_json(d: dict, after: bool = False) -> _St:
    """Read and check a JSON state (ENGINE.md "Norwegian misère Kasino").  ``after``: the state is a position
    right after a move (``to_move`` still the mover), as a move's ``after`` is."""
    if not isinstance(d, dict):
        raise ValueError("a state is a JSON object")
    unknown = set(d) - set(_JSON_FIELDS)
    if unknown:
        raise ValueError(f"unknown field(s) {sorted(unknown)}")
    fmt = d.get("format")
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}")
    F = FORMATS[fmt]
    n = F["seats"]
    opts = read_options(fmt, d.get("options"))
    if "teams" in d:
        want = None if F["teams"] is None else [list(t) for t in F["teams"]]
        got = None if d["teams"] is None else [list(t) for t in d["teams"]]
        if got != want:
            raise ValueError(f"teams: {fmt} has " + ("no teams" if want is None else f"teams {want}"))
    for f in ("hands", "piles"):
        if f not in d or len(d[f]) != n:
            raise ValueError(f"{fmt}: {f} must hold one list for each of {n} seats")
    dealer = _seat_or_none(d.get("dealer", n - 1), n, "dealer")
    rnd = int(d.get("round", 1))
    rounds = int(d.get("rounds", n))
    if dealer is None or rnd < 1:
        raise ValueError("dealer must be a seat and round >= 1")
    if rounds < 1 or rounds % n:
        raise ValueError(f"rounds: a positive multiple of the seat count {n} (N7)")
    scores = tuple(int(x) for x in d.get("scores", [0] * n))
    tabbe = tuple((int(p), int(m)) for p, m in d.get("tabbe", [[0, 0]] * n))
    if len(scores) != n or len(tabbe) != n:
        raise ValueError(f"{fmt}: scores and tabbe hold one entry per seat")
    if any(p < 0 or m > 0 for p, m in tabbe):
        raise ValueError("tabbe: [plus, minus] with plus >= 0 and minus <= 0")
    hands = tuple(_msort(_cards(h, "hands")) for h in d["hands"])
    table_d = d.get("table", {})
    if not isinstance(table_d, dict):
        raise ValueError("table: an object with loose and builds")
    if table_d.get("builds", []):
        raise ValueError("table.builds: Kasino has no builds")
    table = _msort(_cards(table_d.get("loose", []), "table.loose"))
    piles = tuple(_msort(_cards(p, "piles")) for p in d["piles"])
    set_aside = _msort(_cards(d.get("set_aside", []), "set_aside"))
    if any(not _is_face(c) for c in set_aside):
        raise ValueError("set_aside: only J, Q and K are set aside (N5)")
    stock = _cards(d.get("stock", []), "stock")
    every = [c for h in hands for c in h] + list(table) + [c for p in piles for c in p] + list(set_aside)
    every += list(stock)
    counts = [0] * 52
    for c in every:
        counts[c] += 1
    if len(every) != DECK_IDS or any(k != 2 for k in counts):
        bad = [card_name(c) for c in range(52) if counts[c] != 2]
        raise ValueError(f"{fmt}: every card of the two decks exactly twice ({len(every)} cards; "
                         f"wrong count for {bad[:6]})")
    deal = int(d.get("deal", 1))
    if not 1 <= deal <= F["deals"]:
        raise ValueError(f"{fmt}: deal {deal} not in 1..{F['deals']}")
    if len(stock) != _stock_size(fmt, deal):
        raise ValueError(f"{fmt}: the stock ({len(stock)} cards) does not fit deal {deal} "
                         f"({_stock_size(fmt, deal)} cards: the deals still to come)")
    lc = _seat_or_none(d.get("last_capturer"), n, "last_capturer")
    if lc is None and any(piles):
        raise ValueError("last_capturer: null while a pile holds cards")
    tm = d.get("to_move")
    over = tm is None
    if "over" in d and bool(d["over"]) != over:
        raise ValueError("over must be true exactly when to_move is null")
    tm = _seat_or_none(tm, n, "to_move")
    lp_default = dealer if tm is None else (tm - 1) % n
    lp = _seat_or_none(d.get("last_player", lp_default), n, "last_player")
    if lp is None:
        raise ValueError("last_player: not a seat")
    st = _St(fmt, dealer, rnd, rounds, scores, tabbe, set_aside, lp, deal, tm, hands, table, piles, stock, lc,
             over, opts=opts)
    _check_hands(st, after)
    return st


def _to_json(st: _St) -> dict:
    """JSON state; every multiset in card-index order (a repeated card twice), the stock in deal order."""
    names = lambda cards: [_NAMES[c] for c in cards]   # noqa: E731
    d = {
        "format": st.fmt,
        "options": dict(zip(OPTIONS, st.opts)),
        "dealer": st.dealer,
        "round": st.round,
        "rounds": st.rounds,
        "scores": list(st.scores),
        "tabbe": [[p, m] for p, m in st.tabbe],
        "set_aside": names(sorted(st.set_aside)),
        "last_player": st.last_player,
        "deal": st.deal,
        "to_move": st.to_move,
        "hands": [names(sorted(h)) for h in st.hands],
        "table": {"loose": names(sorted(st.table)), "builds": []},
        "piles": [names(sorted(p)) for p in st.piles],
        "stock": names(st.stock),
        "last_capturer": st.last_capturer,
    }
    teams = FORMATS[st.fmt]["teams"]
    if teams is not None:
        d["teams"] = [list(t) for t in teams]
    d["over"] = bool(st.over)
    return d


# ---------------------------------------------------------------------------------------------------------
# The deal (ENGINE.md "Randomness"; RULES.md P22, "Round seeds"; ``round_seed`` and the deal stream: ``common``)
# ---------------------------------------------------------------------------------------------------------
def _initial(fmt: str, seed: int, round: int = 1, rounds=None, scores=None, options=None) -> _St:
    """P22: d[0..T-1] to the table, then h cards to each seat in seat order, the rest is the stock.  Round r
    is dealt by seat (r + n - 2) mod n and led by the seat after it; the dealer counts as the player before
    the first play (N4).  ``options``: a (partial) options object (``read_options``); (h, T) follow
    ``alt_deal`` with 2 seats."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}")
    F = FORMATS[fmt]
    opts = read_options(fmt, options)
    n = F["seats"]
    h, t = _first_deal(fmt, opts)
    if round < 1:
        raise ValueError("rounds are numbered from 1")
    rounds = n if rounds is None else int(rounds)
    if rounds < 1 or rounds % n:
        raise ValueError(f"rounds: a positive multiple of the seat count {n} (N7)")
    scores = tuple(int(x) for x in (scores if scores is not None else [0] * n))
    if len(scores) != n:
        raise ValueError(f"{fmt}: one score per seat")
    # the deal stream of state ``seed`` over card ids 0..103 (id = index + 52 * copy); the copy is forgotten
    # once dealt
    cards = [i % 52 for i in shuffled_deck(DECK_IDS, seed)]
    table = _msort(cards[:t])
    hands = tuple(_msort(cards[t + s * h:t + (s + 1) * h]) for s in range(n))
    stock = tuple(cards[t + n * h:])
    dealer = (round + n - 2) % n
    return _St(fmt, dealer, round, rounds, scores, ((0, 0),) * n, (), dealer, 1, (dealer + 1) % n, hands, table,
               tuple(() for _ in range(n)), stock, None, False, opts=opts)


def initial_state(fmt: str, seed: int, round: int = 1, rounds=None, scores=None, options=None) -> dict:
    """JSON of the first position of round ``round`` dealt from game seed ``seed`` (P22); ``rounds`` the match
    length (default one round per seat), ``scores`` the match totals before this round (default zeros),
    ``options`` a (partial) options object (default: the format's rules)."""
    return _to_json(_initial(fmt, seed, round, rounds, scores, options))


# ---------------------------------------------------------------------------------------------------------
# Successor: turn passing, end of deal, next deal, end of round (ENGINE.md; RULES.md P22, P25)
# ---------------------------------------------------------------------------------------------------------
def _end_of_round(st: _St) -> _St:
    """P25: the last capturer (if nobody captured in the round: the player of its last card, the mover of this
    last move) takes the table and the spade face cards of ``set_aside``; the other set-aside cards stay out
    of play.  The extra point is not written here: ``score`` gives it to ``last_capturer``."""
    receiver = st.last_capturer if st.last_capturer is not None else st.to_move
    spade_faces = tuple(c for c in st.set_aside if _suit(c) == 0)
    others = tuple(c for c in st.set_aside if _suit(c) != 0)
    piles = tuple(_msort(p + st.table + spade_faces) if s == receiver else p for s, p in enumerate(st.piles))
    return st.replace(to_move=None, table=(), set_aside=others, piles=piles, last_capturer=receiver, over=True)


def _advance(after: _St) -> _St:
    """The turn passes to seat + 1.  When every hand is empty: the face cards on the table go to ``set_aside``
    (P25, after every deal); then the next deal (4 to each seat in seat order, no table cards, deal + 1, the
    leader to move) if stock remains, else the end of the round (``scores`` is not updated)."""
    n = after.n
    if any(after.hands):
        return after.replace(to_move=(after.to_move + 1) % n)
    faces = tuple(c for c in after.table if _is_face(c))
    st = after.replace(table=tuple(c for c in after.table if not _is_face(c)),
                       set_aside=_msort(after.set_aside + faces))
    if st.stock:
        k = LATER_DEAL
        hands = tuple(_msort(st.stock[s * k:(s + 1) * k]) for s in range(n))
        return st.replace(deal=st.deal + 1, to_move=st.leader, hands=hands, stock=st.stock[n * k:])
    return _end_of_round(st)


def advance(after: dict) -> dict:
    """JSON successor of a position right after a move (``to_move`` = the seat that just moved)."""
    return _to_json(_advance(_from_json(after, after=True)))


# ---------------------------------------------------------------------------------------------------------
# Captures (N2, N3; RULES.md P23, P24), on sorted tuples of table values
# ---------------------------------------------------------------------------------------------------------
def _sub_multisets(items: tuple):
    """Every sub-multiset of a sorted tuple, each once, as a sorted tuple."""
    distinct = sorted(set(items))
    counts = [items.count(x) for x in distinct]
    for pick in itertools.product(*(range(k + 1) for k in counts)):
        yield tuple(x for x, k in zip(distinct, pick) for _ in range(k))


def _sub_multisets_summing(values: tuple, total: int):
    """Every non-empty sub-multiset of a sorted tuple of positive values whose sum is ``total``, each once
    (as ``_sub_multisets`` filtered by the sum, pruned: no partial pick may exceed the total)."""
    distinct = sorted(set(values))
    counts = [values.count(x) for x in distinct]

    def walk(i: int, left: int, picked: tuple):
        if left == 0:
            if picked:
                yield picked
            return
        if i == len(distinct):
            return
        x = distinct[i]
        for k in range(counts[i] + 1):
            if k * x > left:
                break
            yield from walk(i + 1, left - k * x, picked + (x,) * k)

    yield from walk(0, total, ())


def _target(played_rank: int) -> int:
    """The hand value of a played card of this rank: the sum a set of table cards must make."""
    return 14 if played_rank == ACE else played_rank


@lru_cache(maxsize=None)
def _has_match(played_rank: int, values: tuple) -> bool:
    """Does this multiset of table values hold a match for a played card of ``played_rank``: a single table
    card of its rank, or a set of cards whose table values sum to its hand value?"""
    if played_rank in values:                 # a card of its rank (table value = rank; an ace is 1)
        return True
    target = _target(played_rank)
    sums = {0}
    for v in values:                          # subset sums up to the target
        sums |= {s + v for s in sums if s + v <= target}
    return target in sums


@lru_cache(maxsize=None)
def _is_union_of_matches(played_rank: int, values: tuple) -> bool:
    """Can this multiset of table values be split into pairwise disjoint matches (empty: yes)?  The first
    card must lie in some match; try each match holding it and recurse on what is left."""
    if not values:
        return True
    first, rest = values[0], values[1:]
    if first == played_rank and _is_union_of_matches(played_rank, rest):   # a single card of its rank
        return True
    need = _target(played_rank) - first                                     # a set summing to the value
    if need < 0:
        return False
    if need == 0:
        return _is_union_of_matches(played_rank, rest)
    for other in _sub_multisets_summing(rest, need):
        if _is_union_of_matches(played_rank, _msub(rest, other)):
            return True
    return False


def _splits(table: tuple) -> list:
    """Every way to take a sub-multiset U out of the table: (U, table values of U, table values of the rest),
    the values as sorted tuples (what the capture tests read)."""
    out = []
    for U in _sub_multisets(table):
        rest = _msub(table, U)
        out.append((U, tuple(sorted(_table_value(c) for c in U)), tuple(sorted(_table_value(c) for c in rest))))
    return out


def _captures(played: int, table: tuple, splits=None) -> list:
    """P23 for played card ``played``: every sub-multiset U of the table (a tuple of card indices) that is a
    union of pairwise disjoint matches and leaves no match among the other table cards.  A card without any
    match has exactly one such U, the empty one: it crawls (a trail)."""
    r = rank(played)
    out = []
    for U, u_values, rest_values in (splits if splits is not None else _splits(table)):
        if not _has_match(r, rest_values) and _is_union_of_matches(r, u_values):
            out.append(U)
    return out


def move_key(seat: int, card: int, captured) -> int:
    """ENGINE.md Kasino move key: Z(1, p, c, 0) XOR, over the captured multiset, Z(2, 0, x, 0) for the first
    copy of each captured card x and Z(2, 0, x + 52, 0) for its second copy."""
    k = Z(1, seat, card, 0)
    seen = set()
    for x in sorted(captured):
        k ^= Z(2, 0, x + 52, 0) if x in seen else Z(2, 0, x, 0)
        seen.add(x)
    return k & M64


class KasinoMove(LazyMove):
    """One distinct legal move (P7): the card played, the kind, the captured multiset, the tabbe plus, the
    key, the greedy ``points`` feature; ``after`` (position right after the move, to_move still the mover)
    and ``result`` (the successor) are JSON, computed on first use (``common.LazyMove``)."""

    __slots__ = ("card", "kind", "captured", "tabbe", "key", "points")
    _json_of = staticmethod(_to_json)
    _successor = staticmethod(_advance)

    def __init__(self, card: int, captured: tuple, tabbe: int, key: int, points: int, after: _St):
        self.card = card_name(card)
        self.kind = "capture" if captured else "trail"
        self.captured = [card_name(c) for c in sorted(captured)]
        self.tabbe = tabbe
        self.key = key
        self.points = points
        self._after = after
        self._result = None
        self._after_json = None
        self._result_json = None

    def to_json(self) -> dict:
        """ENGINE.md move object."""
        return {"card": self.card, "kind": self.kind, "captured": list(self.captured), "tabbe": self.tabbe}

    def __repr__(self):
        cap = "+".join(self.captured)
        return f"KasinoMove({self.card} {self.kind}{' ' + cap if cap else ''} tabbe={self.tabbe} key={self.key:#018x})"


def _play(st: _St, card: int, U: tuple) -> KasinoMove:
    """Apply seat ``to_move`` playing ``card`` and capturing multiset U (empty: a trail)."""
    p = st.to_move
    hands = tuple(_msub(h, (card,)) if s == p else h for s, h in enumerate(st.hands))
    tabbe_plus = 0
    tabbe = list(st.tabbe)
    if U:
        rest = _msub(st.table, U)
        if not rest:                               # P24: a capture that clears the table is a tabbe
            double = len(st.table) == 1 and rank(st.table[0]) == rank(card)
            v = _opt(st, "tabbe_value")                # N4, option tabbe_value (5): a double scores twice it
            tabbe_plus = 2 * v if double else v
            plus, minus = tabbe[p]
            tabbe[p] = (plus + tabbe_plus, minus)
            lp_plus, lp_minus = tabbe[st.last_player]
            tabbe[st.last_player] = (lp_plus, lp_minus - tabbe_plus)     # N4: to the player just before
        taken = (card,) + tuple(U)
        piles = tuple(_msort(pl + taken) if s == p else pl for s, pl in enumerate(st.piles))
        after = st.replace(hands=hands, table=rest, piles=piles, last_capturer=p, tabbe=tuple(tabbe),
                           last_player=p)
        points = sum(card_points(c) for c in taken) + tabbe_plus
    else:
        after = st.replace(hands=hands, table=_msort(st.table + (card,)), last_player=p)
        points = 0                                 # a trail puts nothing on the mover's pile
    return KasinoMove(card, tuple(U), tabbe_plus, move_key(p, card, U), points, after)


def _generate(st: _St) -> list:
    """Every distinct legal move (P7) of the mover, P23 for each distinct hand card, then N3/P24: if some hand
    card can clear the (non-empty) table, only the clearing captures are legal.  Option ``compulsory_tabbe``
    false: no such filter; a clearing capture is one P23 capture among the others (still a tabbe, N4)."""
    if st.over:
        return []
    hand = st.hands[st.to_move]
    options = []                                   # (card, U)
    splits = _splits(st.table)
    for card in sorted(set(hand)):                 # the two copies of a card are one card to play (N1, P7)
        for U in _captures(card, st.table, splits):
            options.append((card, U))
    if st.table and _opt(st, "compulsory_tabbe"):
        clearing = [(c, U) for c, U in options if len(U) == len(st.table)]
        if clearing:
            options = clearing
    return [_play(st, c, U) for c, U in options]


def legal_moves(state: dict) -> list:
    """The distinct legal moves (P7) of a JSON state, in no particular order."""
    return _generate(_from_json(state))


# ---------------------------------------------------------------------------------------------------------
# Scoring (N5, N6, N7; RULES.md P25, P26)
# ---------------------------------------------------------------------------------------------------------
def _score(st: _St) -> list:
    if not st.over:
        raise ValueError("score: the round is not finished")
    out = []
    for s in range(st.n):
        cp = sum(card_points(c) for c in st.piles[s])
        last = 1 if st.last_capturer == s else 0
        plus, minus = st.tabbe[s]
        out.append({"card_points": cp, "last_point": last, "tabbe_plus": plus, "tabbe_minus": minus,
                    "total": cp + last + plus + minus})
    return out


def score(state: dict) -> list:
    """Per seat of a finished round (P26): ``card_points`` (its pile's N6 points), ``last_point`` (1 for the
    last capturer), ``tabbe_plus``, ``tabbe_minus`` (<= 0) and ``total`` (the seat's own round score)."""
    return _score(_from_json(state))


def _units(fmt: str) -> list:
    teams = FORMATS[fmt]["teams"]
    n = FORMATS[fmt]["seats"]
    return [(s,) for s in range(n)] if teams is None else [tuple(t) for t in teams]


def add_round(fmt: str, totals, round_scores) -> list:
    """N7 / P26: the match totals per seat after a round; in pairs each seat holds its pair's total (the sum
    of its members' round totals added to the pair's total before)."""
    n = FORMATS[fmt]["seats"]
    if len(totals) != n or len(round_scores) != n:
        raise ValueError(f"{fmt}: one total and one score per seat")
    new = [0] * n
    for u in _units(fmt):
        t = int(totals[u[0]]) + sum(round_scores[s]["total"] for s in u)
        for s in u:
            new[s] = t
    return new


def match_winner(fmt: str, totals):
    """N7: the seat (in pairs, the pair index) with the lowest total; None on a tie at the lowest."""
    units = _units(fmt)
    vals = [int(totals[u[0]]) for u in units]
    low = min(vals)
    return vals.index(low) if vals.count(low) == 1 else None


# ---------------------------------------------------------------------------------------------------------
# Bots and play (ENGINE.md "Bots", RULES.md "Round seeds", P26; the draw and the play loop are ``common``'s)
# ---------------------------------------------------------------------------------------------------------
def choose(bot: str, moves: list, r: int):
    """random: the move whose key k minimises fmix(k ^ r).  greedy (misère): among the moves minimising
    ``points``, the same draw.  Equal keys are the same move."""
    uniq = distinct_by_key(moves)
    if bot == "random":
        keys = list(uniq)
    elif bot == "greedy":
        best = min(m.points for m in uniq.values())
        keys = [k for k, m in uniq.items() if m.points == best]
    else:
        raise ValueError(f"unknown bot {bot!r}")
    return draw(uniq, keys, r)


def _bots(fmt: str, bots) -> tuple:
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}")
    return seat_bots(fmt, FORMATS[fmt]["seats"], bots)


def _fallback(st: _St) -> KasinoMove:
    """ENGINE.md: a seat with no legal move trails the first card of its hand (never happens in Kasino: a
    card either has a match or crawls)."""
    return _play(st, min(st.hands[st.to_move]), ())


def play_round(fmt: str, seed: int, bots=None, round: int = 1, rounds=None, scores=None, options=None) -> dict:
    """Play one round from the deal of ``seed`` (P22) with the built-in bots (``bots[s]`` plays seat s).
    One draw of the bot stream (state fmix(seed ^ BOT_SALT)) per card play, even with one legal move.
    Returns ``keys`` (every move's key, in order), ``final`` (JSON of the finished round), ``scores``
    (``score(final)``) and ``no_move``.  ``options``: a (partial) options object (default: the format's rules)."""
    bots = _bots(fmt, bots)
    st = _initial(fmt, seed, round, rounds, scores, options)
    st, keys, no_move = play_out(st, seed, bots, _generate, _fallback, choose)
    return {"keys": keys, "final": _to_json(st), "scores": _score(st), "no_move": no_move}


def play_match(fmt: str, match_seed: int, bots=None, rounds=None, options=None) -> dict:
    """N7 / P26: ``rounds`` rounds (default one per seat; a positive multiple of the seat count), round r from
    round_seed(match_seed, r) with the match totals before it.  Returns ``rounds`` (per round: ``round``,
    ``seed`` and play_round's output), ``totals`` (per seat; in pairs each seat holds its pair's total) and
    ``winner`` (seat, or pair index in 4p/6p, with the lowest total; None on a tie).  ``options`` apply to
    every round."""
    bots = _bots(fmt, bots)
    read_options(fmt, options)                     # reject bad options before the first round
    n = FORMATS[fmt]["seats"]
    rounds = n if rounds is None else int(rounds)
    if rounds < 1 or rounds % n:
        raise ValueError(f"rounds: a positive multiple of the seat count {n} (N7)")
    totals, out = [0] * n, []
    for r in range(1, rounds + 1):
        seed = round_seed(match_seed, r)
        res = play_round(fmt, seed, bots, round=r, rounds=rounds, scores=totals, options=options)
        out.append({"round": r, "seed": seed, **res})
        totals = add_round(fmt, totals, res["scores"])
    return {"rounds": out, "totals": totals, "winner": match_winner(fmt, totals)}
