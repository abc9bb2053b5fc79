"""The Classic Cassino reference engine: formats ``cassino`` (2 seats), ``cassino-3p`` and ``cassino-4p``
(partners 0+2 v 1+3), on the 52-card deck.

The slow, readable oracle the compiled core is tested against.  Written from the Cassino rules page
(``docs/rules/cassino.md``, C1..C8), the project's rules (``docs/rules/project.md``: cards, P1..P7, the exact
conventions, P16..P21) and ``docs/ENGINE.md`` (JSON state format (Classic Cassino), Randomness, Position hash
and move keys, Bots).  Standard library only.  Cassino is not Khasino plus a rule (its values, builds, adds,
raises and scoring are its own), so it imports nothing of the Khasino engine: the generic helpers (cards,
masks, K10 pile order, splitmix64, hash terms, the lazy moves, the bots' draw and play loop) are ``common``'s.

Internal representation (JSON only at the API boundary):

* a card is its index ``4 * (rank - 1) + suit`` (rank A=1 .. K=13; suit S=0, H=1, D=2, C=3);
* a card set (hand, loose cards, one group) is an int bit mask;
* builds: ``{value: (owner, (group_mask, ...))}`` with groups oldest first; the order of the cards inside a
  group is a function of its set (higher rank underneath, equal ranks S, H, D, C), so a mask is enough;
* piles: tuples of card indices, bottom to top;
* seats 0..n-1; play goes seat + 1 around the table (C2, C8).

Card values (C1, P16, P17): A 1, 2..10 face value; J, Q, K have no number unless ``face_values`` (J 11,
Q 12, K 13).  With ``ace_14`` an ace played from the hand may also capture as 14 (units of 14 only: the build
of 14, loose groups summing to 14; as 1 it takes units of 1: loose aces, the build of 1; one capture never
mixes the two), and a player holding an ace holds a card of value 14 (and of value 1); on the table and in
builds, adds and raises an ace counts 1.

P1 in Cassino (C6): after every move, for the builds its mover owns then, he holds a card of each build's
value, a different card for each (``_keeps``): under ``ace_14`` one ace cannot keep both a build of 1 and a
build of 14.  So a build owner can always take any one of his builds, and nobody is ever left without a legal
move.
"""
from __future__ import annotations

from .common import (TEN_DIAMONDS, TWO_SPADES, LazyMove, Position, Z, bits, build_terms, capture_order,
                     card_name, card_points, choose, disjoint_collections, k10_order, mask_hash, mask_of,
                     parse_card, play_out, rank, round_seed, seat_bots, shuffled_deck, sweep_order)

__all__ = [
    "FORMATS", "OPTIONS", "round_seed", "initial_state", "legal_moves", "state_hash", "score", "add_round",
    "choose", "play_round", "play_match", "advance", "fallback_move", "CassinoMove", "KINDS", "TEAMS_4P",
]

# ---------------------------------------------------------------------------------------------------------
# Formats and options (RULES.md "Classic Cassino", P20; ENGINE.md "Classic Cassino")
# ---------------------------------------------------------------------------------------------------------
FORMATS = {
    # C2 / P20: 4 table cards, 4 per seat, then 4 per seat until the pack is used: 6 / 4 / 3 deals
    "cassino": {"seats": 2, "deals": 6, "teams": None, "deck": 52, "hand": 4, "table": 4},
    "cassino-3p": {"seats": 3, "deals": 4, "teams": None, "deck": 52, "hand": 4, "table": 4},
    # C8: partners sit opposite, seats 0+2 (team 0) v 1+3 (team 1); play goes 0, 1, 2, 3
    "cassino-4p": {"seats": 4, "deals": 3, "teams": ((0, 2), (1, 3)), "deck": 52, "hand": 4, "table": 4},
}
TEAMS_4P = [[0, 2], [1, 3]]
OPTIONS = ("ace_14", "face_values", "sweeps")          # C1; all default False
KINDS = ("capture", "build", "load", "change", "trail")  # load = a Cassino add (P18), change = a raise (P19)
_JSON_FIELDS = ("format", "options", "dealer", "round", "scores", "sweeps", "deal", "to_move", "hands", "table",
                "piles", "stock", "last_capturer", "teams", "over")
TARGET = 21                                            # C7: the first to reach 21 wins

# TWO_SPADES (2S, "Little Casino") and TEN_DIAMONDS (10D, "Big Casino"): ``common``
ACE_ORDER = (0, 3, 1, 2)          # P21: the aces are counted AS, AC, AH, AD


def _num(c: int, face_values: bool):
    """The number value of a card (C1, P16): A 1, 2..10; J 11, Q 12, K 13 only with ``face_values``; else
    None (a face card without ``face_values`` has no number: never summed, never built)."""
    r = rank(c)
    return r if (r <= 10 or face_values) else None


# ---------------------------------------------------------------------------------------------------------
# Internal state
# ---------------------------------------------------------------------------------------------------------
class _St(Position):
    """Internal position.  Immutable by convention: moves build new objects (``replace``: a changed copy).
    ``opts`` is the triple (ace_14, face_values, sweeps)."""

    __slots__ = ("fmt", "opts", "dealer", "round", "scores", "sweeps", "deal", "to_move", "hands", "loose",
                 "builds", "piles", "stock", "last_capturer", "over")

    def __init__(self, fmt, opts, dealer, round, scores, sweeps, deal, to_move, hands, loose, builds, piles,
                 stock, last_capturer, over):
        self.fmt = fmt
        self.opts = opts
        self.dealer = dealer
        self.round = round
        self.scores = scores                # tuple per seat: match totals before this round
        self.sweeps = sweeps                # tuple per seat: sweeps made in this round
        self.deal = deal
        self.to_move = to_move
        self.hands = hands                  # tuple of masks
        self.loose = loose                  # mask
        self.builds = builds                # {value: (owner, groups oldest first)}
        self.piles = piles                  # tuple of tuples, bottom to top
        self.stock = stock                  # tuple, deal order
        self.last_capturer = last_capturer  # seat or None
        self.over = over

    @property
    def n(self) -> int:
        return FORMATS[self.fmt]["seats"]

    @property
    def leader(self) -> int:
        """P20: the seat after the dealer leads every deal of the round."""
        return (self.dealer + 1) % self.n


def _max_build(opts) -> int:
    """P17: the highest build value: 14 with ace_14, else 13 with face_values, else 10."""
    ace_14, face_values, _ = opts
    return 14 if ace_14 else (13 if face_values else 10)


def _card_values(c: int, opts) -> tuple:
    """The values one card is a card of (C4-C6 "keeping V"): its number value (P16), and 14 too for an ace
    under ace_14 (P17)."""
    ace_14, face_values, _ = opts
    v = _num(c, face_values)
    out = () if v is None else (v,)
    return out + (14,) if (ace_14 and rank(c) == 1) else out


def _keeps(hand: int, values, opts) -> bool:
    """P1 in Cassino (C6): ``hand`` holds a card of each value in ``values`` (the values of the builds a
    player owns), a different card for each: a matching of values to cards (augmenting paths)."""
    values = sorted(values)
    if not values:
        return True
    cards = bits(hand)
    if len(cards) < len(values):
        return False
    match = {}                                              # card -> value

    def place(v, seen):
        for c in cards:
            if c in seen or v not in _card_values(c, opts):
                continue
            seen.add(c)
            if c not in match or place(match[c], seen):
                match[c] = v
                return True
        return False

    return all(place(v, set()) for v in values)


def _held_values(hand: int, opts) -> set:
    """The values of which a hand holds a card (C4-C6 "keeping V"): number values (P16), and 14 for an ace
    under ace_14 (P17: holding an ace is holding a card of value 14)."""
    return {v for c in bits(hand) for v in _card_values(c, opts)}


# ---------------------------------------------------------------------------------------------------------
# Position hash (ENGINE.md "Position hash and move keys"): options, dealer, round, scores, sweeps left out;
# from scratch ``common.mask_hash``, the same terms as Khasino's
# ---------------------------------------------------------------------------------------------------------
def _cards_of(groups) -> int:
    """The card set of a build (P27: in Cassino a build is its cards; its grouping is not part of the position)."""
    out = 0
    for g in groups:
        out |= g
    return out


def _build_terms(v: int, owner: int, groups) -> int:
    """P27: a Cassino build's hash terms are Z(3, v, owner, 0) and Z(4, v, 0, its card set), whatever its
    grouping (for a single build, the terms of its one group)."""
    return build_terms(v, owner, (_cards_of(groups),))


def _as_card_sets(st: _St) -> _St:
    """The position with every build held as one group, its card set (P27): what the hash and the end-of-round
    sweep read."""
    return st.replace(builds={v: (o, (_cards_of(gs),)) for v, (o, gs) in st.builds.items()})


def _canonical_groups(v: int, groups) -> list:
    """P27: the grouping a multiple build of value v is written with, from its card set alone: the group holding
    the highest remaining card (card-index order) that has the highest mask among those leaving cards that still
    split into groups of v, then the same for the rest (a card counts its rank: build cards are summable)."""
    from itertools import combinations

    def value(m):
        return sum(rank(c) for c in bits(m))

    def split(cards):
        if not cards:
            return []
        top = max(bits(cards))
        others = [c for c in bits(cards) if c != top]
        options = []
        for k in range(len(others) + 1):
            for combo in combinations(others, k):
                g = (1 << top) | sum(1 << c for c in combo)
                if value(g) == v:
                    options.append(g)
        for g in sorted(options, reverse=True):
            tail = split(cards & ~g)
            if tail is not None:
                return [g] + tail
        return None

    if len(groups) < 2:
        return list(groups)
    return split(_cards_of(groups))


def _delta(before: _St, after: _St) -> int:
    """H(after) ^ H(before) from what differs (the same terms as ``mask_hash``, only the changed ones)."""
    h = 0
    for s, (a, b) in enumerate(zip(before.hands, after.hands)):
        for c in bits(a ^ b):
            h ^= Z(1, s, c, 0)
    for c in bits(before.loose ^ after.loose):
        h ^= Z(2, 0, c, 0)
    for v in set(before.builds) | set(after.builds):
        x, y = before.builds.get(v), after.builds.get(v)
        if x != y:
            if x is not None:
                h ^= _build_terms(v, x[0], x[1])
            if y is not None:
                h ^= _build_terms(v, y[0], y[1])
    for s, (p, q) in enumerate(zip(before.piles, after.piles)):
        if p != q:
            k = 0
            while k < min(len(p), len(q)) and p[k] == q[k]:
                k += 1
            for i in range(k, len(p)):
                h ^= Z(5, s, i, p[i])
            for i in range(k, len(q)):
                h ^= Z(5, s, i, q[i])
    if before.last_capturer != after.last_capturer:
        if before.last_capturer is not None:
            h ^= Z(6, before.last_capturer, 0, 0)
        if after.last_capturer is not None:
            h ^= Z(6, after.last_capturer, 0, 0)
    return h


# ---------------------------------------------------------------------------------------------------------
# JSON <-> internal (ENGINE.md "JSON state format", "Classic Cassino")
# ---------------------------------------------------------------------------------------------------------
def _read_options(raw) -> tuple:
    """``options``: absent -> the defaults (all False); a partial object changes only the options it names;
    unknown names and non-boolean values are rejected."""
    opts = dict.fromkeys(OPTIONS, False)
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ValueError("options: an object of booleans")
    for k, v in raw.items():
        if k not in OPTIONS:
            raise ValueError(f"options: unknown option {k!r}")
        if not isinstance(v, bool):
            raise ValueError(f"options: {k} must be true or false")
        opts[k] = v
    return tuple(opts[k] for k in OPTIONS)


def _from_json(d: dict) -> _St:
    unknown = set(d) - set(_JSON_FIELDS)
    if unknown:
        raise ValueError(f"unknown field(s) {sorted(unknown)}")
    fmt = d.get("format")
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}")
    F = FORMATS[fmt]
    n = F["seats"]
    opts = _read_options(d.get("options"))
    if "teams" in d:
        if F["teams"] is None or [list(t) for t in d["teams"]] != TEAMS_4P:
            raise ValueError(f"teams: {fmt} has " + ("no teams" if F["teams"] is None else f"teams {TEAMS_4P}"))
    if len(d["hands"]) != n or len(d["piles"]) != n:
        raise ValueError(f"{fmt}: one hand and one pile for each of {n} seats")
    dealer = int(d.get("dealer", n - 1))
    rnd = int(d.get("round", 1))
    scores = tuple(int(x) for x in d.get("scores", [0] * n))
    sweeps = tuple(int(x) for x in d.get("sweeps", [0] * n))
    if dealer not in range(n) or rnd < 1 or len(scores) != n or len(sweeps) != n:
        raise ValueError("dealer, round, scores or sweeps out of range")
    hands = tuple(mask_of(parse_card(c) for c in h) for h in d["hands"])
    table = d.get("table", {})
    loose = mask_of(parse_card(c) for c in table.get("loose", []))
    builds = {}
    for b in table.get("builds", []):
        v, o = int(b["value"]), int(b["owner"])
        if v in builds:
            raise ValueError(f"two builds of value {v} (K2)")
        if o not in range(n):
            raise ValueError(f"build {v}: owner {o} is not a seat")
        gs = tuple(mask_of(parse_card(c) for c in g) for g in b["groups"])
        for g in gs:
            vals = [_num(c, opts[1]) for c in bits(g)]
            if not g or None in vals or sum(vals) != v:
                raise ValueError(f"build {v}: a group does not sum to its value (P16-P18)")
        if not gs or v > _max_build(opts):
            raise ValueError(f"build {v}: no groups or value over the highest build value (P17)")
        builds[v] = (o, gs)
    piles = tuple(tuple(parse_card(c) for c in p) for p in d["piles"])
    stock = tuple(parse_card(c) for c in d.get("stock", []))
    every = [c for h in hands for c in bits(h)] + bits(loose) + [c for p in piles for c in p] + list(stock)
    every += [c for _o, gs in builds.values() for g in gs for c in bits(g)]
    if sorted(every) != list(range(F["deck"])):
        raise ValueError(f"{fmt}: every card of the 52-card deck exactly once")
    deal = int(d.get("deal", 1))
    if not 1 <= deal <= F["deals"] or len(stock) != F["deck"] - F["table"] - F["hand"] * n * deal:
        raise ValueError(f"{fmt}: the stock does not fit deal {deal} (52 - 4 - 4n*deal cards)")
    lc = d.get("last_capturer")
    if lc is not None and int(lc) not in range(n):
        raise ValueError("last_capturer: not a seat")
    tm = d.get("to_move")
    over = bool(d.get("over", False)) or tm is None
    if not over and int(tm) not in range(n):
        raise ValueError("to_move: not a seat")
    return _St(fmt, opts, dealer, rnd, scores, sweeps, deal, None if over else int(tm), hands, loose, builds,
               piles, stock, None if lc is None else int(lc), over)


def _to_json(st: _St) -> dict:
    """JSON state; keys in the order format, options, dealer, round, scores, sweeps, deal, to_move, hands,
    table, piles, stock, last_capturer, teams (4p), over."""
    d = {
        "format": st.fmt,
        "options": dict(zip(OPTIONS, st.opts)),
        "dealer": st.dealer,
        "round": st.round,
        "scores": list(st.scores),
        "sweeps": list(st.sweeps),
        "deal": st.deal,
        "to_move": st.to_move,
        "hands": [[card_name(c) for c in bits(h)] for h in st.hands],        # card-index order
        "table": {
            "loose": [card_name(c) for c in bits(st.loose)],                 # card-index order
            "builds": [{"value": v, "owner": st.builds[v][0],
                        "groups": [[card_name(c) for c in k10_order(m)]
                                   for m in _canonical_groups(v, st.builds[v][1])]}
                       for v in sorted(st.builds)],
        },
        "piles": [[card_name(c) for c in p] for p in st.piles],
        "stock": [card_name(c) for c in st.stock],
        "last_capturer": st.last_capturer,
    }
    if FORMATS[st.fmt]["teams"] is not None:
        d["teams"] = [list(t) for t in TEAMS_4P]
    d["over"] = bool(st.over)
    return d


def state_hash(state: dict) -> int:
    """Position hash H (ENGINE.md): hands, loose cards, builds (owner, groups), piles, last capturer."""
    return mask_hash(_as_card_sets(_from_json(state)))


# ---------------------------------------------------------------------------------------------------------
# The deal (ENGINE.md "Randomness"; RULES.md P20, "Round seeds"; ``round_seed`` and the deal stream: ``common``)
# ---------------------------------------------------------------------------------------------------------
def _initial(fmt: str, seed: int, options=None, round: int = 1, scores=None) -> _St:
    """P20: d[0..3] are the table cards; seat s gets d[4 + 4s .. 7 + 4s]; the rest is the stock.  Round r is
    dealt by seat (r + n - 2) mod n and led by the seat after the dealer."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}")
    F = FORMATS[fmt]
    n = F["seats"]
    if round < 1:
        raise ValueError("rounds are numbered from 1")
    opts = _read_options(options)
    scores = tuple(int(x) for x in (scores if scores is not None else [0] * n))
    if len(scores) != n:
        raise ValueError(f"{fmt}: one score per seat")
    deck = shuffled_deck(F["deck"], seed)           # the deal stream of state ``seed``
    t, k = F["table"], F["hand"]
    loose = mask_of(deck[:t])
    hands = tuple(mask_of(deck[t + s * k:t + (s + 1) * k]) for s in range(n))
    stock = tuple(deck[t + n * k:])
    dealer = (round + n - 2) % n
    return _St(fmt, opts, dealer, round, scores, (0,) * n, 1, (dealer + 1) % n, hands, loose, {},
               tuple(() for _ in range(n)), stock, None, False)


def initial_state(fmt: str, seed: int, options=None, round: int = 1, scores=None) -> dict:
    """JSON of the dealt position of round ``round`` (P20), ``scores`` the match totals before it."""
    return _to_json(_initial(fmt, seed, options, round, scores))


# ---------------------------------------------------------------------------------------------------------
# Successor: turn passing, next deal, end of round (ENGINE.md "Classic Cassino", C2, C7, P2, P20)
# ---------------------------------------------------------------------------------------------------------
def _end_of_round(after: _St) -> _St:
    """C7 / P2: the last capturer takes what is left: builds by ascending value (groups oldest first, each
    group higher rank underneath), then the loose cards as one group, on top of his pile.  Nobody captured
    in the round: the player of its last card (the mover of this last move), then recorded as last
    capturer.  Not a sweep."""
    swept = sweep_order(_as_card_sets(after).builds, after.loose)      # P27: each build as one block
    lc = after.last_capturer
    receiver = lc if lc is not None else after.to_move
    piles = after.piles
    if swept:
        piles = tuple((p + tuple(swept)) if s == receiver else p for s, p in enumerate(piles))
        lc = receiver
    return after.replace(to_move=None, loose=0, builds={}, piles=piles, last_capturer=lc, over=True)


def _advance(after: _St) -> _St:
    """The turn passes to seat + 1; every hand empty with stock left: the next deal (4 to each seat in seat
    order, no table cards, deal + 1, the round's leader to move); every hand empty and no stock: the end of
    the round (``scores`` is not updated)."""
    n, k = after.n, FORMATS[after.fmt]["hand"]
    if any(after.hands):
        return after.replace(to_move=(after.to_move + 1) % n)
    if after.stock:
        stock = after.stock
        hands = tuple(mask_of(stock[s * k:(s + 1) * k]) for s in range(n))
        return after.replace(deal=after.deal + 1, to_move=after.leader, hands=hands, stock=stock[n * k:])
    return _end_of_round(after)


def advance(after: dict) -> dict:
    """JSON successor of a position right after a move (``to_move`` = the seat that just moved)."""
    return _to_json(_advance(_from_json(after)))


# ---------------------------------------------------------------------------------------------------------
# Moves
# ---------------------------------------------------------------------------------------------------------
class CassinoMove(LazyMove):
    """One distinct legal move (P7).  ``after`` (position right after the move, to_move still the mover) and
    ``result`` (the successor) are JSON, computed on first use (``common.LazyMove``)."""

    __slots__ = ("card", "kind", "key", "points", "cards", "spades", "table_points")
    _json_of = staticmethod(_to_json)
    _successor = staticmethod(_advance)

    def __init__(self, card: int, kind: str, key: int, after: _St, features: tuple):
        self.card = card_name(card)
        self.kind = kind
        self.key = key
        self.points, self.cards, self.spades, self.table_points = features
        self._after = after
        self._result = None
        self._after_json = None
        self._result_json = None

    def __repr__(self):
        return f"CassinoMove({self.card} {self.kind} key={self.key:#018x})"


def _subsets_by_sum(cards, maxsum: int, face_values: bool) -> dict:
    """All subsets (masks) of the loose number cards with sum 1..maxsum, by sum (aces 1)."""
    acc = [(0, 0)]
    for c in cards:
        v = _num(c, face_values)
        acc += [(m | (1 << c), s + v) for (m, s) in acc if s + v <= maxsum]
    out = {s: [] for s in range(maxsum + 1)}
    for m, s in acc:
        if m:
            out[s].append(m)
    return out


class _Gen:
    """Move generation for one position (C3-C6, P16-P19, P1).  ``card`` emits every move of one hand card;
    ``moves`` keeps one move per resulting position (P7: equal keys are equal moves)."""

    def __init__(self, st: _St):
        self.st = st
        self.p = st.to_move
        self.ace_14, self.face_values, self.sweeps_on = st.opts
        self.maxv = _max_build(st.opts)
        self.loose = st.loose
        self.builds = st.builds
        numbers = [c for c in bits(st.loose) if _num(c, self.face_values) is not None]
        self.sub = _subsets_by_sum(numbers, self.maxv, self.face_values)
        self.owned = {v for v, (o, _gs) in st.builds.items() if o == self.p}
        self.moves: dict = {}

    # ------------------------------------------------------------------ making positions
    def emit(self, c: int, kind: str, loose: int, builds: dict, captured=None) -> None:
        """Record the move playing c that leaves ``loose`` and ``builds`` on the table; ``captured`` (a capture
        only) goes on top of the mover's pile in that order, and the mover becomes the last capturer.  A
        capture leaving no loose card and no build is a sweep (``sweeps`` option).  Every move goes through
        here: one after which the mover does not hold a different card for each build he then owns (P1 in
        Cassino) is not emitted; the generators below only prune what certainly fails it."""
        st, p = self.st, self.p
        # P1 in Cassino (C6): the mover keeps a different card for each build he owns after the move
        if not _keeps(st.hands[p] & ~(1 << c), [v for v, (o, _gs) in builds.items() if o == p], st.opts):
            return
        hands = tuple((h & ~(1 << c)) if s == p else h for s, h in enumerate(st.hands))
        piles, lc, sweeps = st.piles, st.last_capturer, st.sweeps
        sweep = False
        if captured is not None:
            piles = tuple((pl + tuple(captured)) if s == p else pl for s, pl in enumerate(piles))
            lc = p
            sweep = self.sweeps_on and loose == 0 and not builds
            if sweep:
                sweeps = tuple(x + 1 if s == p else x for s, x in enumerate(sweeps))
        after = st.replace(hands=hands, loose=loose, builds=builds, piles=piles, last_capturer=lc, sweeps=sweeps)
        key = _delta(st, after)
        if key in self.moves:
            return
        new = captured or ()
        tp = sum(card_points(x) for x in bits(loose))
        tp += sum(card_points(x) for _o, gs in builds.values() for g in gs for x in bits(g))
        feats = (sum(card_points(x) for x in new) + (1 if sweep else 0), len(new),
                 sum(1 for x in new if (x & 3) == 0), tp)
        self.moves[key] = CassinoMove(c, kind, key, after, feats)

    # ------------------------------------------------------------------ the five kinds
    def capture(self, c: int, take: int, groups) -> None:
        """C3 / K10 pile order: the captured build's groups oldest first, then the other groups in canonical
        order (larger card mask first), each group higher rank underneath, then the played card on top."""
        builds = dict(self.builds)
        taken = _cards_of(builds.pop(take)[1]) if take is not None else 0
        captured = capture_order((), [taken | _cards_of(groups)], c)     # P27: the table cards as one block
        used = 0
        for m in groups:
            used |= m
        self.emit(c, "capture", self.loose & ~used, builds, captured)

    def captures(self, c: int, cvals, committed) -> None:
        """C3, P3, P17: for each value cv the played card captures as (its number; 14 too for an ace under
        ace_14), a non-empty set of disjoint units of cv: the build of value cv, and loose groups summing to
        cv (a single equal card is such a group).  Table aces count 1, so they are units of 1 only: an ace
        playing as 14 takes the build of 14 and loose groups summing to 14 (a table ace may be in such a
        sum), never a loose ace by rank; one capture never mixes the two values.
        P1: a committed card (the owner's last card of a build's value) only in a capture of that build."""
        for cv in sorted(cvals):
            colls = disjoint_collections(self.sub.get(cv, ()), self.loose)
            for take in ([None, cv] if cv in self.builds else [None]):
                if not committed <= ({take} if take is not None else set()):
                    continue
                for groups, _left in colls:
                    if take is None and not groups:
                        continue                                # non-empty
                    self.capture(c, take, groups)

    def face_captures(self, c: int) -> None:
        """P16: without face_values a face card captures exactly one loose card of its rank (each a move)."""
        for x in bits(self.loose):
            if rank(x) == rank(c):
                self.capture(c, None, [1 << x])

    def played_groups(self, c: int, pv: int, V: int) -> list:
        """The played card's group for a build or add of value V: alone when pv == V, else with loose number
        cards summing to V - pv.  Returns (group mask with the played card, loose cards used)."""
        if pv == V:
            return [(1 << c, 0)]
        return [((1 << c) | S, S) for S in self.sub.get(V - pv, ())]

    def new_builds(self, c: int, pv: int, rest_vals) -> None:
        """C4 / P18: the played card plus at least one loose card, in one or more groups of V (the played card
        in one), V not an existing build's value (K2), V <= the highest build value (P17), the player still
        holding a card of value V.  All the groups are new: canonical order."""
        for V in range(pv, self.maxv + 1):
            if V in self.builds or V not in rest_vals:
                continue
            cands = self.sub.get(V, ())
            for g0, used in self.played_groups(c, pv, V):
                for extra, left in disjoint_collections(cands, self.loose & ~used):
                    if not used and not extra:
                        continue                                # at least one loose card
                    builds = dict(self.builds)
                    builds[V] = (self.p, tuple(sorted([g0] + extra, reverse=True)))
                    self.emit(c, "build", left, builds)

    def adds(self, c: int, pv: int, rest_vals) -> None:
        """C5 / P18 (kind ``load``): one or more groups of V (the played card in one, loose cards completing
        them) onto the build of V, single or multiple, any owner, by a player still holding a V card; the
        new groups are appended in canonical order; the adder becomes the owner (C4)."""
        for V in sorted(self.builds):
            if V < pv or V not in rest_vals:
                continue
            _o, gs = self.builds[V]
            cands = self.sub.get(V, ())
            for g0, used in self.played_groups(c, pv, V):
                for extra, left in disjoint_collections(cands, self.loose & ~used):
                    builds = dict(self.builds)
                    builds[V] = (self.p, gs + tuple(sorted([g0] + extra, reverse=True)))
                    self.emit(c, "load", left, builds)

    def raises(self, c: int, pv: int, rest_vals, committed) -> None:
        """C5 / P19 (kind ``change``): a single build (one group) of W, any owner, raised by the played card
        alone (aces 1) to W + pv <= the highest build value, no build of W + pv on the table, the player still
        holding a card of W + pv; it stays single and passes to the raiser.  P1: a committed card only in a
        raise of that very build."""
        for W in sorted(self.builds):
            _o, gs = self.builds[W]
            nv = W + pv
            if len(gs) != 1 or nv > self.maxv or nv in self.builds or nv not in rest_vals:
                continue
            if not committed <= {W}:
                continue
            builds = dict(self.builds)
            del builds[W]
            builds[nv] = (self.p, (gs[0] | (1 << c),))
            self.emit(c, "change", self.loose, builds)

    def trail(self, c: int) -> None:
        """C6: allowed, even with a capture available, unless the player owns a build."""
        if not self.owned:
            self.emit(c, "trail", self.loose | (1 << c), dict(self.builds))

    def card(self, c: int) -> None:
        """Every move playing hand card c."""
        pv = _num(c, self.face_values)
        if pv is None:                                          # P16: a face card without face_values
            self.face_captures(c)
            self.trail(c)
            return
        rest_vals = _held_values(self.st.hands[self.p] & ~(1 << c), self.st.opts)
        cvals = {pv, 14} if (self.ace_14 and rank(c) == 1) else {pv}
        # P1 in Cassino: the values W of the mover's builds for which c is his last card of value W (a
        # pruning only: ``emit`` checks the whole rule, a different card kept for each build owned after)
        committed = {W for W in self.owned if W in cvals and W not in rest_vals}
        self.captures(c, cvals, committed)
        self.raises(c, pv, rest_vals, committed)
        if committed:
            return
        self.new_builds(c, pv, rest_vals)
        self.adds(c, pv, rest_vals)
        self.trail(c)


def _generate(st: _St) -> list:
    if st.over or st.to_move is None:
        return []
    g = _Gen(st)
    for c in bits(st.hands[st.to_move]):
        g.card(c)
    return list(g.moves.values())


def legal_moves(state: dict) -> list:
    """The distinct legal moves (P7) of the seat to move; empty when the round is over.  A seat to move always
    has one (P1 in Cassino, C6); ``fallback_move`` only covers a JSON position that breaks P1."""
    return _generate(_from_json(state))


def _fallback(st: _St) -> CassinoMove:
    """No legal move at all (ENGINE.md "Bots"): trail the first hand card in card-index order."""
    p = st.to_move
    c = bits(st.hands[p])[0]
    hands = tuple((h & ~(1 << c)) if s == p else h for s, h in enumerate(st.hands))
    after = st.replace(hands=hands, loose=st.loose | (1 << c))
    tp = sum(card_points(x) for x in bits(after.loose))
    tp += sum(card_points(x) for _o, gs in after.builds.values() for g in gs for x in bits(g))
    return CassinoMove(c, "trail", _delta(st, after), after, (0, 0, 0, tp))


def fallback_move(state: dict) -> CassinoMove:
    return _fallback(_from_json(state))


# ---------------------------------------------------------------------------------------------------------
# Scoring (C7, P21)
# ---------------------------------------------------------------------------------------------------------
def _unit_counts(pile_cards, sweeps: int) -> dict:
    cards = list(pile_cards)
    return {
        "cards": len(cards),
        "spades": sum(1 for c in cards if (c & 3) == 0),
        "aces": sum(1 for c in cards if rank(c) == 1),              # 1 point each
        "two_spades": 1 if TWO_SPADES in cards else 0,               # points
        "ten_diamonds": 2 if TEN_DIAMONDS in cards else 0,           # points
        "sweeps": sweeps,                                            # 1 point each (sweeps option)
        # P21 needs to know which aces: the unit's aces in counting order AS, AC, AH, AD
        "aces_held": [card_name(a) for a in ACE_ORDER if a in cards],
    }


def _score(st: _St) -> list:
    """Per seat (C7): most cards 3 and most spades 1, each only to a seat (4p: a team) with strictly more
    than every other; each ace 1, 10D 2, 2S 1; with ``sweeps`` 1 per sweep.  4p: partners pool their piles
    and sweeps; each seat gets its team's pooled values, ``team`` and the team's total."""
    teams = FORMATS[st.fmt]["teams"]
    sweeps_on = st.opts[2]
    units = [(s,) for s in range(st.n)] if teams is None else [tuple(t) for t in teams]
    out = [_unit_counts([c for s in u for c in st.piles[s]], sum(st.sweeps[s] for s in u) if sweeps_on else 0)
           for u in units]
    for field, pts in (("cards", 3), ("spades", 1)):
        best = max(u[field] for u in out)
        sole = sum(1 for u in out if u[field] == best) == 1
        for u in out:
            u["most_" + field] = pts if (sole and u[field] == best) else 0
    for u in out:
        u["total"] = (u["most_cards"] + u["most_spades"] + u["aces"] + u["two_spades"] + u["ten_diamonds"]
                      + u["sweeps"])
    if teams is None:
        return out
    per_seat = [None] * st.n
    for ti, t in enumerate(teams):
        for s in t:
            per_seat[s] = dict(out[ti], team=ti, aces_held=list(out[ti]["aces_held"]))
    return per_seat


def score(state: dict) -> list:
    """Per-seat scores of a finished round: cards, spades, aces, two_spades (0/1), ten_diamonds (0/2),
    most_cards (3/0), most_spades (1/0), sweeps, total (round points); 4p: the team's pooled values, the
    team's total and ``team``.  Also ``aces_held`` (the aces, in P21's counting order), which ``add_round``
    reads."""
    return _score(_from_json(state))


def add_round(fmt: str, totals, round_scores) -> tuple:
    """P21: add a round's points to the match totals category by category in the order of ``docs/rules/cassino.md``:
    most cards, most spades, 10D, 2S, the aces AS, AC, AH, AD, then sweeps (all seats' sweeps together).  The match
    ends at the first category after which some seat (team) has at least 21 and strictly more than every other: it
    wins.  Returns (new_totals per seat, winner): new_totals the totals after the WHOLE round (every category added,
    also those after the deciding one); winner the seat (4p: the team index, 0 for seats 0+2, 1 for seats 1+3) or
    None when the match goes on (a tie at the top reached in the sweeps category included)."""
    F = FORMATS[fmt]
    n = F["seats"]
    units = [(s,) for s in range(n)] if F["teams"] is None else [tuple(t) for t in F["teams"]]
    if len(totals) != n or len(round_scores) != n:
        raise ValueError(f"{fmt}: one total and one score per seat")
    run = [int(totals[u[0]]) for u in units]
    sc = [round_scores[u[0]] for u in units]
    for u in sc:
        if "aces_held" not in u and u["aces"]:
            raise ValueError("add_round: the scores must say which aces each seat holds (aces_held)")
    categories = [[x["most_cards"] for x in sc], [x["most_spades"] for x in sc],
                  [x["ten_diamonds"] for x in sc], [x["two_spades"] for x in sc]]
    for a in ACE_ORDER:
        name = card_name(a)
        categories.append([1 if name in x.get("aces_held", ()) else 0 for x in sc])
    categories.append([x["sweeps"] for x in sc])
    winner = None
    for cat in categories:
        run = [t + p for t, p in zip(run, cat)]
        best = max(run)
        if winner is None and best >= TARGET and run.count(best) == 1:
            winner = run.index(best)
    new = [0] * n
    for ui, u in enumerate(units):
        for s in u:
            new[s] = run[ui]
    return new, winner


# ---------------------------------------------------------------------------------------------------------
# Bots and play (ENGINE.md "Bots", RULES.md "Round seeds"; ``choose`` and the play loop are ``common``'s)
# ---------------------------------------------------------------------------------------------------------
def _bots(fmt: str, bots) -> tuple:
    return seat_bots(fmt, FORMATS[fmt]["seats"], bots)


def play_round(fmt: str, seed: int, bots=None, options=None, round: int = 1, scores=None) -> dict:
    """Play one round from the deal of ``seed`` (P20) with the built-in bots (``bots[s]`` plays seat s).
    One draw of the bot stream (state fmix(seed ^ 0xD1B54A32D192ED03)) per card play; a seat without a legal
    move (never expected: P1 in Cassino) trails its first card without a draw and counts a ``no_move``.
    Returns ``keys`` (every move's key, in order), ``final`` (the JSON of the finished round), ``scores``
    (``score(final)``) and ``no_move``."""
    bots = _bots(fmt, bots)
    st = _initial(fmt, seed, options, round, scores)
    st, keys, no_move = play_out(st, seed, bots, _generate, _fallback, choose)
    return {"keys": keys, "scores": _score(st), "final": _to_json(st), "no_move": no_move}


def play_match(fmt: str, match_seed: int, bots=None, options=None) -> dict:
    """C7 / P21: rounds until a seat (team) reaches 21 first; round r is played from round_seed(match_seed, r)
    with the match totals before it.  Returns ``rounds`` (per round: ``round``, ``seed`` (its round seed),
    ``keys``, ``final``, ``scores`` = ``score(final)``, ``no_move``: what a comparison with another engine
    needs), ``totals`` (after the last round's full points, P21) and ``winner`` (seat; 4p: team)."""
    bots = _bots(fmt, bots)
    n = FORMATS[fmt]["seats"]
    totals, rounds, r = [0] * n, [], 1
    while True:
        seed = round_seed(match_seed, r)
        res = play_round(fmt, seed, bots, options, round=r, scores=totals)
        rounds.append({"round": r, "seed": seed, **res})
        totals, winner = add_round(fmt, totals, res["scores"])
        if winner is not None:
            return {"rounds": rounds, "totals": totals, "winner": winner}
        r += 1
