"""Pure-Python reference engine for khasino-sim (formats ``khasino`` and ``durban``, 1v1, 40 cards).

This is the slow, readable oracle the compiled core is tested against.  It is written from the rulebooks
(``shared/seeds/000_*``, ``001_*``), the rulings (``shared/RULINGS.md``, rules K1..K14) and the project's
contract (``docs/RULES.md`` rules P1..P7 + "Exact conventions", ``docs/ENGINE.md`` state/hash/randomness/bots)
only.  Standard library only.

Internal representation (JSON only at the API boundary):

* a card is its index ``4 * (rank - 1) + suit`` (S=0, H=1, D=2, C=3); its Khasino value is its rank (A=1);
* a card set (hand, loose cards, one group) is an int bit mask;
* builds: ``{value: (owner, (group_mask, ...))}`` with groups oldest first; the order of the cards inside a
  group is a function of its set (K10: higher rank underneath, equal ranks S, H, D, C), so a mask is enough;
* piles: tuples of card indices, bottom to top (last = exposed card).
"""
from __future__ import annotations

from functools import lru_cache

__all__ = [
    "FORMATS", "SplitMix64", "fmix", "RefMove", "initial_state", "state_hash", "legal_moves", "advance",
    "score", "choose", "play_game", "fallback_move", "card_name", "parse_card",
]

M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
BOT_SALT = 0xD1B54A32D192ED03

# ---------------------------------------------------------------------------------------------------------
# Formats (RULES.md "Format flags").  Kept here on purpose: the reference imports nothing from the project.
# ---------------------------------------------------------------------------------------------------------
FORMATS = {
    "khasino": {
        "deck": 40,                    # K1: A-10 in four suits
        "seats": 2,
        "hand": 10,                    # K14: 10 each, then the other 20 as 10 each
        "deals": 2,
        "trail_same_value": True,      # K11: no trail of a value present loose or as a build
        "no_trail_owning_deal1": True,  # K11: 1v1, first deal, no trail while owning a build
        "max_builds": None,            # K5: unlimited
        "change": "two_card_alone",    # K7: opponent's simple 2-card build, played card alone
        "followups": True,             # K9, P5
        "pile_cards": True,            # K8
    },
    "durban": {
        "deck": 40,
        "seats": 2,
        "hand": 10,
        "deals": 2,
        "trail_same_value": False,     # K11: Drift always allowed (P1 aside)
        "no_trail_owning_deal1": False,
        "max_builds": 1,               # K5, P6
        "change": "simple_plus",       # K7: opponent's simple build, played card + optional loose/pile cards
        "followups": False,            # K9: not durban
        "pile_cards": True,            # K8
    },
}

# ---------------------------------------------------------------------------------------------------------
# Cards
# ---------------------------------------------------------------------------------------------------------
RANK_NAMES = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUIT_NAMES = "SHDC"
TWO_SPADES = 4 * (2 - 1) + 0      # 2S
TEN_DIAMONDS = 4 * (10 - 1) + 2   # 10D


def card_name(i: int) -> str:
    return RANK_NAMES[i >> 2] + SUIT_NAMES[i & 3]


def parse_card(s: str) -> int:
    s = s.strip().upper()
    rank = RANK_NAMES.index(s[:-1]) + 1
    suit = SUIT_NAMES.index(s[-1])
    return 4 * (rank - 1) + suit


def value(i: int) -> int:
    """Khasino value of a card: its rank, A = 1 (K1)."""
    return (i >> 2) + 1


def card_points(i: int) -> int:
    """K13 card points: each ace 1, 2S 1, 10D 2."""
    if (i >> 2) == 0:
        return 1
    if i == TWO_SPADES:
        return 1
    if i == TEN_DIAMONDS:
        return 2
    return 0


def bits(m: int) -> list[int]:
    """Card indices of a mask, ascending."""
    out = []
    while m:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    return out


def mask_of(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def mask_sum(m: int) -> int:
    return sum(value(c) for c in bits(m))


def k10_order(m: int) -> list[int]:
    """Cards of a group bottom to top (K10): higher rank underneath; equal ranks S, H, D, C."""
    return sorted(bits(m), key=lambda c: (-(c >> 2), c & 3))


# ---------------------------------------------------------------------------------------------------------
# Randomness (ENGINE.md "Randomness")
# ---------------------------------------------------------------------------------------------------------
def fmix(z: int) -> int:
    z &= M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


class SplitMix64:
    """splitmix64 stream: ``next()`` adds the golden gamma to the state and returns fmix(state)."""

    fmix = staticmethod(fmix)

    def __init__(self, seed: int):
        self.s = seed & M64

    def next(self) -> int:
        self.s = (self.s + GOLDEN) & M64
        return fmix(self.s)


# ---------------------------------------------------------------------------------------------------------
# Position hash (ENGINE.md "Position hash and move keys")
# ---------------------------------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def Z(tag: int, a: int, b: int, payload: int) -> int:
    return fmix(fmix((((tag << 40) | (a << 20) | b) + GOLDEN) & M64) ^ (payload & M64))


class _State:
    """Internal position.  Immutable by convention: moves build new objects."""

    __slots__ = ("fmt", "deal", "to_move", "hands", "loose", "builds", "piles", "stock", "last_capturer", "over")

    def __init__(self, fmt, deal, to_move, hands, loose, builds, piles, stock, last_capturer, over):
        self.fmt = fmt
        self.deal = deal
        self.to_move = to_move
        self.hands = hands                  # tuple of masks, one per seat
        self.loose = loose                  # mask
        self.builds = builds                # {value: (owner, tuple of group masks oldest first)}
        self.piles = piles                  # tuple of tuples, bottom to top
        self.stock = stock                  # tuple of cards in dealing order
        self.last_capturer = last_capturer  # seat or None
        self.over = over


def _hash(st: _State) -> int:
    """H of ENGINE.md, from scratch (to_move, deal, stock and over are not part of it)."""
    h = 0
    for s, hm in enumerate(st.hands):
        for c in bits(hm):
            h ^= Z(1, s, c, 0)
    for c in bits(st.loose):
        h ^= Z(2, 0, c, 0)
    for v, (o, gs) in st.builds.items():
        h ^= Z(3, v, o, 0)
        for i, m in enumerate(gs):
            h ^= Z(4, v, i, m)
    for s, pile in enumerate(st.piles):
        for i, c in enumerate(pile):
            h ^= Z(5, s, i, c)
    if st.last_capturer is not None:
        h ^= Z(6, st.last_capturer, 0, 0)
    return h


# ---------------------------------------------------------------------------------------------------------
# JSON <-> internal
# ---------------------------------------------------------------------------------------------------------
def _from_json(d: dict) -> _State:
    fmt = d["format"]
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}")
    hands = tuple(mask_of(parse_card(c) for c in h) for h in d["hands"])
    table = d.get("table", {})
    loose = mask_of(parse_card(c) for c in table.get("loose", []))
    builds = {}
    for b in table.get("builds", []):
        v = int(b["value"])
        if v in builds:
            raise ValueError(f"two builds of value {v}")
        gs = tuple(mask_of(parse_card(c) for c in g) for g in b["groups"])
        builds[v] = (int(b["owner"]), gs)
    piles = tuple(tuple(parse_card(c) for c in p) for p in d["piles"])
    stock = tuple(parse_card(c) for c in d.get("stock", []))
    lc = d.get("last_capturer")
    tm = d.get("to_move")
    over = bool(d.get("over", False)) or tm is None
    return _State(fmt, int(d.get("deal", 1)), tm, hands, loose, builds, piles, stock,
                  None if lc is None else int(lc), over)


def _to_json(st: _State) -> dict:
    return {
        "format": st.fmt,
        "deal": st.deal,
        "to_move": st.to_move,
        # hands are sets: written in card-index order
        "hands": [[card_name(c) for c in bits(h)] for h in st.hands],
        "table": {
            "loose": [card_name(c) for c in bits(st.loose)],
            "builds": [
                {"value": v, "owner": st.builds[v][0],
                 "groups": [[card_name(c) for c in k10_order(m)] for m in st.builds[v][1]]}
                for v in sorted(st.builds)
            ],
        },
        "piles": [[card_name(c) for c in p] for p in st.piles],
        "stock": [card_name(c) for c in st.stock],
        "last_capturer": st.last_capturer,
        "over": bool(st.over),
    }


# ---------------------------------------------------------------------------------------------------------
# Deal (K14, ENGINE.md deal stream)
# ---------------------------------------------------------------------------------------------------------
def _initial(fmt: str, game_seed: int) -> _State:
    F = FORMATS[fmt]
    n = F["deck"]
    rng = SplitMix64(game_seed)
    deck = list(range(n))
    for i in range(n - 1, 0, -1):
        j = rng.next() % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    k = F["hand"]
    seats = F["seats"]
    hands = tuple(mask_of(deck[s * k:(s + 1) * k]) for s in range(seats))
    stock = tuple(deck[seats * k:])
    # K1: no table cards at the start of a 1v1 game; seat 0 leads (K14).
    return _State(fmt, 1, 0, hands, 0, {}, tuple(() for _ in range(seats)), stock, None, False)


def initial_state(fmt: str, game_seed: int) -> dict:
    return _to_json(_initial(fmt, game_seed))


def state_hash(state: dict) -> int:
    return _hash(_from_json(state))


# ---------------------------------------------------------------------------------------------------------
# Successor: turn passing, next deal, K12 sweep (ENGINE.md "successor")
# ---------------------------------------------------------------------------------------------------------
def _advance(after: _State) -> _State:
    F = FORMATS[after.fmt]
    n0 = bin(after.hands[0]).count("1")
    n1 = bin(after.hands[1]).count("1")
    hands, stock, deal = after.hands, after.stock, after.deal
    builds, loose, piles, lc = after.builds, after.loose, after.piles, after.last_capturer
    if n0 or n1:
        # Seat 0 leads each deal and turns alternate: after seat 0 plays it holds one card fewer than seat 1.
        return _State(after.fmt, deal, 1 if n0 < n1 else 0, hands, loose, builds, piles, stock, lc, False)
    if stock:
        # K14 / RULES "Deal": stock[0..9] to seat 0, stock[10..19] to seat 1; seat 0 leads; table untouched.
        k = F["hand"]
        seats = F["seats"]
        hands = tuple(mask_of(stock[s * k:(s + 1) * k]) for s in range(seats))
        return _State(after.fmt, deal + 1, 0, hands, loose, builds, piles, stock[seats * k:], lc, False)
    # K12 end sweep (RULES "End sweep"): builds by ascending value (groups oldest first, each group K10),
    # then the loose cards as one group (K10), on top of the receiver's pile.
    swept = []
    for v in sorted(builds):
        for m in builds[v][1]:
            swept.extend(k10_order(m))
    swept.extend(k10_order(loose))
    if lc is not None:
        receiver = lc
    else:
        # P2: nobody captured in the whole game -> the player who played the last card.  Seat 0 leads and
        # both seats play all their cards, so in 1v1 the last card is always played by seat 1.
        receiver = 1
    new_lc = lc
    if swept:
        piles = tuple((p + tuple(swept)) if s == receiver else p for s, p in enumerate(piles))
        if new_lc is None:
            # Reading: under P2 the receiver is recorded as last capturer, so that the final state keeps the
            # ENGINE.md invariant "last_capturer is null exactly when every pile is empty".
            new_lc = receiver
    return _State(after.fmt, deal, None, hands, 0, {}, piles, stock, new_lc, True)


def advance(after: dict) -> dict:
    return _to_json(_advance(_from_json(after)))


# ---------------------------------------------------------------------------------------------------------
# Moves
# ---------------------------------------------------------------------------------------------------------
KINDS = ("capture", "build", "load", "change", "trail")


class RefMove:
    """One distinct legal move (P7).  ``after`` is the position right after the move (to_move still the
    mover), ``result`` the successor (``advance(after)``); both JSON, computed lazily."""

    __slots__ = ("card", "kind", "key", "points", "cards", "spades", "table_points", "_after", "_after_json",
                 "_result_json", "_result")

    def __init__(self, card: int, kind: str, key: int, after: _State, before: _State, mover: int):
        self.card = card_name(card)
        self.kind = kind
        self.key = key
        self._after = after
        self._after_json = None
        self._result_json = None
        self._result = None
        # Greedy features (ENGINE.md "Bots"): the cards this move puts on the mover's pile (played card
        # included), and card points left on the table (loose + builds, follow-ups included).
        new_pile = after.piles[mover][len(before.piles[mover]):]
        self.points = sum(card_points(c) for c in new_pile)
        self.cards = len(new_pile)
        self.spades = sum(1 for c in new_pile if (c & 3) == 0)
        tp = sum(card_points(c) for c in bits(after.loose))
        for _o, gs in after.builds.values():
            for m in gs:
                tp += sum(card_points(c) for c in bits(m))
        self.table_points = tp

    @property
    def after(self) -> dict:
        if self._after_json is None:
            self._after_json = _to_json(self._after)
        return self._after_json

    def _result_state(self) -> _State:
        if self._result is None:
            self._result = _advance(self._after)
        return self._result

    @property
    def result(self) -> dict:
        if self._result_json is None:
            self._result_json = _to_json(self._result_state())
        return self._result_json

    def __repr__(self):
        return f"RefMove({self.card} {self.kind} key={self.key:#018x})"


def _subsets_by_sum(cards: list[int], maxsum: int = 10) -> dict[int, list[int]]:
    """All subsets (masks) of ``cards`` whose value sum is <= maxsum, by sum.  sub[0] == [0]."""
    acc = [(0, 0)]
    for c in cards:
        v = value(c)
        acc += [(m | (1 << c), s + v) for (m, s) in acc if s + v <= maxsum]
    out: dict[int, list[int]] = {s: [] for s in range(maxsum + 1)}
    for m, s in acc:
        out[s].append(m)
    for s in out:
        out[s].sort()
    return out


def _loose_collections(V, avail, sub):
    """All collections (lists) of disjoint non-empty loose-only groups of sum V within ``avail``,
    each returned with the loose mask left over.  The empty collection is included."""
    cands = [S for S in sub.get(V, ()) if S and (S & avail) == S]
    out = []

    def rec(i, av, acc):
        out.append((acc, av))
        for j in range(i, len(cands)):
            S = cands[j]
            if (S & av) == S:
                rec(j + 1, av & ~S, acc + [S])

    rec(0, avail, [])
    return out


def _collections(V, avail, top, reserved, sub):
    """Collections of disjoint groups of sum V made of loose cards (within ``avail``) and opponent pile cards.

    K8: each group holds at most one pile card, and the pile cards used are exactly the top k (``top[0]`` is
    the exposed card; using it exposes ``top[1]``, ...), each in a different group.  ``reserved`` is a pile
    depth already used by another group of the move (the played card's group), or None.  A group may be a
    single pile card (P4); whether the move as a whole is grounded is checked by the caller.

    Returns a list of (groups, loose_left, k) with groups a list of (loose_mask, depth_or_None).
    No cap is needed on the pile depth: every used depth needs its own group, and the recursion dies at the
    first depth that cannot be placed, so it never goes deeper than the number of disjoint groups of sum V.
    """
    out = []
    n = len(top)

    def tier(d, av, acc):
        if reserved is not None and d == reserved:
            tier(d + 1, av, acc)
            return
        if reserved is None or d > reserved:
            # stop using the pile here: k = d cards used (depths 0..d-1), then any loose-only groups
            for groups, left in _loose_collections(V, av, sub):
                out.append((acc + [(S, None) for S in groups], left, d))
        if d < n:
            need = V - value(top[d])
            if need >= 0:
                for S in sub.get(need, ()):
                    if (S & av) == S:
                        tier(d + 1, av & ~S, acc + [(S, d)])

    tier(0, avail, [])
    return out


def _group_mask(S, d, top):
    return S if d is None else (S | (1 << top[d]))


def _generate(st: _State) -> list[RefMove]:
    F = FORMATS[st.fmt]
    p = st.to_move
    q = 1 - p
    hand = st.hands[p]
    loose = st.loose
    builds = st.builds
    sub = _subsets_by_sum(bits(loose))
    opp_pile = st.piles[q]
    top = list(reversed(opp_pile)) if F["pile_cards"] else []   # top[0] = exposed card (K8)
    owned = {v for v, (o, _gs) in builds.items() if o == p}
    loose_vals = {value(c) for c in bits(loose)}
    h_before = _hash(st)
    moves: dict[int, RefMove] = {}

    def make(c, *, new_loose, new_builds, k, captured=None):
        """Position right after the move. captured: list of cards for the mover's pile (capture) or None."""
        hands = tuple((h & ~(1 << c)) if s == p else h for s, h in enumerate(st.hands))
        piles = list(st.piles)
        if k:
            piles[q] = piles[q][:len(piles[q]) - k]
        lc = st.last_capturer
        if captured is not None:
            piles[p] = piles[p] + tuple(captured)
            lc = p
        return _State(st.fmt, st.deal, p, hands, new_loose, new_builds, tuple(piles), st.stock, lc, False)

    def emit(c, kind, after):
        key = _hash(after) ^ h_before
        if key not in moves:  # P7: one move per resulting position (equal keys = equal moves)
            moves[key] = RefMove(c, kind, key, after, st, p)

    def with_followups(c, kind, *, new_loose, base_builds, new_groups, k, captured=None):
        """Apply K9/P5 follow-ups (khasino only): any collection of disjoint loose-only groups, each added to
        a build the mover owns after the main action, of that build's value.  ``new_groups``: {value: [masks]}
        the main action adds to existing/created builds; a build's new groups of this move are sorted
        together (RULES "Build groups")."""
        owned_after = sorted(v for v, (o, _g) in base_builds.items() if o == p)
        follow = [([], new_loose)]
        if F["followups"] and owned_after and new_loose:
            cands = [(S, W) for W in owned_after for S in sub.get(W, ()) if S and (S & new_loose) == S]
            follow = []

            def rec(i, av, acc):
                follow.append((acc, av))
                for j in range(i, len(cands)):
                    S, W = cands[j]
                    if (S & av) == S:
                        rec(j + 1, av & ~S, acc + [(S, W)])

            rec(0, new_loose, [])
        for extra, left in follow:
            add = {W: list(ms) for W, ms in new_groups.items()}
            for S, W in extra:
                add.setdefault(W, []).append(S)
            nb = dict(base_builds)
            for W, ms in add.items():
                o, gs = nb[W]
                nb[W] = (o, gs + tuple(sorted(ms, reverse=True)))  # canonical order: larger mask first
            emit(c, kind, make(c, new_loose=left, new_builds=nb, k=k, captured=captured))

    def played_group_options(c, V, avail):
        """The played card's group for a build/load of value V: c + loose cards + at most one pile card.
        Alone when value(c) == V (K5/K6)."""
        need = V - value(c)
        opts = []
        if need == 0:
            return [(0, None)]
        for S in sub.get(need, ()):
            if (S & avail) == S:
                opts.append((S, None))
        for d in range(len(top)):
            pv2 = value(top[d])
            if pv2 <= need:
                for S in sub.get(need - pv2, ()):
                    if (S & avail) == S:
                        opts.append((S, d))
        return opts

    for c in bits(hand):
        pv = value(c)
        cbit = 1 << c
        rest_vals = {value(x) for x in bits(hand & ~cbit)}
        # P1: owning a build of W, the last W card may only be played in a capture that takes that build.
        last_committed = pv in owned and pv not in rest_vals

        # ---------------- K4 capture ----------------
        b_opts = [False] + ([True] if pv in builds else [])
        for take_b in b_opts:
            if last_committed and not take_b:
                continue  # P1
            for groups, left, k in _collections(pv, loose, top, None, sub):
                if not take_b and not groups:
                    continue  # a capture takes a non-empty set of units
                if not take_b and not any(S for S, _d in groups):
                    continue  # K4 table-grounded: a loose card or a build, never pile cards alone
                captured = []
                nb = dict(builds)
                if take_b:
                    _o, gs = nb.pop(pv)
                    for m in gs:                       # K10: build's groups oldest first, each K10
                        captured.extend(k10_order(m))
                gms = sorted((_group_mask(S, d, top) for S, d in groups), reverse=True)
                for m in gms:                          # other groups in canonical order (larger mask first)
                    captured.extend(k10_order(m))
                captured.append(c)                     # the played card on top (K10)
                with_followups(c, "capture", new_loose=left, base_builds=nb, new_groups={}, k=k,
                               captured=captured)

        if last_committed:
            continue  # P1: no build, load, change or trail with the last committed card

        # ---------------- K5 build ----------------
        may_build = not (F["max_builds"] is not None and len(owned) >= F["max_builds"])  # P6 (durban)
        if may_build:
            for V in range(pv, 11):
                if V in builds:
                    continue  # K2: a group of an existing build's value is a load, not a new build
                if V not in rest_vals:
                    continue  # K5: still hold a card of value V after the play
                for S0, d0 in played_group_options(c, V, loose):
                    pg = _group_mask(S0, d0, top) | cbit
                    for groups, left, k in _collections(V, loose & ~S0, top, d0, sub):
                        if not S0 and not any(S for S, _d in groups):
                            continue  # K5: at least one loose card (pile cards never alone)
                        nb = dict(builds)
                        nb[V] = (p, ())
                        new = [pg] + [_group_mask(S, d, top) for S, d in groups]
                        with_followups(c, "build", new_loose=left, base_builds=nb, new_groups={V: new}, k=k)

        # ---------------- K6 load ----------------
        for V in sorted(builds):
            if V < pv or V not in rest_vals:
                continue  # played card inside a group of V; K6 still hold a V card after the play
            for S0, d0 in played_group_options(c, V, loose):
                pg = _group_mask(S0, d0, top) | cbit
                for groups, left, k in _collections(V, loose & ~S0, top, d0, sub):
                    new = [pg] + [_group_mask(S, d, top) for S, d in groups]
                    # any build may be loaded; the owner does not change (grounded by the build, P4)
                    with_followups(c, "load", new_loose=left, base_builds=dict(builds), new_groups={V: new}, k=k)

        # ---------------- K7 change ----------------
        if F["change"] == "two_card_alone":
            for V in sorted(builds):
                o, gs = builds[V]
                if o == p or len(gs) != 1 or bin(gs[0]).count("1") != 2:
                    continue  # opponent's simple two-card build only
                nv = V + pv
                if nv > 10 or nv in builds or nv not in rest_vals:
                    continue
                nb = dict(builds)
                del nb[V]
                nb[nv] = (p, (gs[0] | cbit,))  # stays simple: old group + played card; owner = changer
                with_followups(c, "change", new_loose=loose, base_builds=nb, new_groups={}, k=0)
        elif F["change"] == "simple_plus" and not owned:  # P6: durban owner of a build may not change
            for V in sorted(builds):
                o, gs = builds[V]
                if o == p or len(gs) != 1:
                    continue  # opponent's simple build only
                room = 10 - V - pv
                if room < 0:
                    continue
                opts = []   # (added loose mask, pile depth or None); a change has one group: <= 1 pile card
                for extra in range(room + 1):
                    for S in sub.get(extra, ()):
                        opts.append((S, None, extra))
                if top and value(top[0]) <= room:
                    tv = value(top[0])
                    for extra in range(room - tv + 1):
                        for S in sub.get(extra, ()):
                            opts.append((S, 0, extra + tv))
                for S, d, extra in opts:
                    nv = V + pv + extra
                    if nv in builds or nv not in rest_vals:
                        continue
                    nb = dict(builds)
                    del nb[V]
                    nb[nv] = (p, (gs[0] | cbit | _group_mask(S, d, top),))
                    emit(c, "change", make(c, new_loose=loose & ~S, new_builds=nb, k=0 if d is None else 1))

        # ---------------- K11 trail ----------------
        ok = True
        if F["trail_same_value"] and (pv in loose_vals or pv in builds):
            ok = False
        if F["no_trail_owning_deal1"] and st.deal == 1 and owned:
            ok = False
        if ok:
            emit(c, "trail", make(c, new_loose=loose | cbit, new_builds=dict(builds), k=0))

    return list(moves.values())


def _legal(st: _State) -> list[RefMove]:
    if st.over or st.to_move is None:
        return []
    return _generate(st)


def legal_moves(state: dict) -> list[RefMove]:
    """Distinct legal moves (P7: distinct by key), in no particular order.  Empty when the game is over or
    (never in reachable play) when the seat to move has no legal move: see ``fallback_move``."""
    return _legal(_from_json(state))


def _fallback(st: _State) -> RefMove:
    """K11 / ENGINE.md: no legal move at all -> trail the first hand card in card-index order."""
    p = st.to_move
    c = bits(st.hands[p])[0]
    hands = tuple((h & ~(1 << c)) if s == p else h for s, h in enumerate(st.hands))
    after = _State(st.fmt, st.deal, p, hands, st.loose | (1 << c), dict(st.builds), st.piles, st.stock,
                   st.last_capturer, False)
    return RefMove(c, "trail", _hash(after) ^ _hash(st), after, st, p)


def fallback_move(state: dict) -> RefMove:
    return _fallback(_from_json(state))


# ---------------------------------------------------------------------------------------------------------
# Scoring (K13)
# ---------------------------------------------------------------------------------------------------------
def _score_piles(piles) -> list[dict]:
    out = []
    for pile in piles:
        out.append({
            "cards": len(pile),
            "spades": sum(1 for c in pile if (c & 3) == 0),
            "aces": sum(1 for c in pile if (c >> 2) == 0),       # 1 point each
            "two_spades": 1 if TWO_SPADES in pile else 0,         # points
            "ten_diamonds": 2 if TEN_DIAMONDS in pile else 0,     # points
        })

    def majority(field, pts):
        best = max(s[field] for s in out)
        leaders = [s for s in out if s[field] == best]
        for s in out:
            if s[field] != best:
                s["most_" + field] = 0
            elif len(leaders) == 1:
                s["most_" + field] = pts
            else:
                s["most_" + field] = pts // 2  # 1v1: split 1-1 on a tie

    majority("cards", 2)
    majority("spades", 2)
    for s in out:
        s["total"] = s["aces"] + s["two_spades"] + s["ten_diamonds"] + s["most_cards"] + s["most_spades"]
    return out


def score(state: dict) -> list[dict]:
    return _score_piles(_from_json(state).piles)


# ---------------------------------------------------------------------------------------------------------
# Bots (ENGINE.md "Bots")
# ---------------------------------------------------------------------------------------------------------
def choose(bot: str, moves: list[RefMove], r: int) -> RefMove:
    uniq: dict[int, RefMove] = {}
    for m in moves:
        uniq.setdefault(m.key & M64, m)
    if not uniq:
        raise ValueError("no moves to choose from")
    if bot == "random":
        keys = list(uniq)
    elif bot == "greedy":
        feat = {k: (m.points, m.cards, m.spades, -m.table_points) for k, m in uniq.items()}
        best = max(feat.values())
        keys = [k for k, f in feat.items() if f == best]
    else:
        raise ValueError(f"unknown bot {bot!r}")
    # ENGINE.md "Bots": the candidate whose key minimises fmix(key ^ r), a uniform draw over distinct moves
    return uniq[min(keys, key=lambda k: fmix(k ^ r))]


def play_game(fmt: str, game_seed: int, bots=("random", "random")) -> dict:
    st = _initial(fmt, game_seed)
    rng = SplitMix64(fmix((game_seed & M64) ^ BOT_SALT))   # bot stream; the deal stream is separate
    keys = []
    no_move = 0
    while not st.over:
        moves = _legal(st)
        if not moves:
            no_move += 1            # K11 fallback: no bot asked, no draw
            m = _fallback(st)
        else:
            r = rng.next()          # exactly one draw per bot decision
            m = choose(bots[st.to_move], moves, r)
        keys.append(m.key)
        st = m._result_state()
    return {"keys": keys, "scores": _score_piles(st.piles), "final": _to_json(st), "no_move": no_move}
