"""What the pure-Python reference engines of every family share: cards and their names, bit masks of cards,
the splitmix64 randomness (deal stream, round seeds, bot stream), the position-hash terms, the base classes
of positions and of lazily evaluated moves, and the built-in bots' draw and play loop.

Each family module (``khasino``, ``cassino``, ``kasino``) is written from its own rules page
(``docs/rules/khasino.md``, ``docs/rules/cassino.md``, ``docs/rules/kasino.md``) and the project's
conventions (``docs/rules/project.md``, ``docs/ENGINE.md``); what lives here is what those pages give every
family alike, so that it is written, and checked, once.  Standard library only, and independent of the Numba
kernels: the references are the oracle the compiled core is tested against, so they import nothing of it.

A card is its index ``4 * (rank - 1) + suit`` (rank A=1 .. K=13; suit S=0, H=1, D=2, C=3).  A card set is an
int bit mask (Khasino, Cassino) or a sorted tuple of indices (Kasino's double deck).
"""
from __future__ import annotations

from functools import lru_cache

M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15           # splitmix64's gamma (ENGINE.md "Randomness")
BOT_SALT = 0xD1B54A32D192ED03         # the bot stream of game seed g has state fmix(g ^ BOT_SALT)

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


def rank(c: int) -> int:
    """The card's rank, A = 1 .. K = 13."""
    return (c >> 2) + 1


def card_points(c: int) -> int:
    """The card points of Khasino (K13) and Cassino (C7): each ace 1, 2S 1, 10D 2.  (Kasino's differ, N6.)"""
    if (c >> 2) == 0:
        return 1
    if c == TWO_SPADES:
        return 1
    if c == TEN_DIAMONDS:
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


def popcount(m: int) -> int:
    """Number of cards in a mask."""
    return bin(m).count("1")


def k10_order(m: int) -> list[int]:
    """Cards of a group bottom to top (K10; Cassino the same): higher rank underneath; equal ranks S, H, D, C."""
    return sorted(bits(m), key=lambda c: (-(c >> 2), c & 3))


def capture_order(build_groups, groups, card: int) -> list[int]:
    """The cards a capture puts on the mover's pile, bottom to top (K10, and Cassino's C3): the captured
    build's groups oldest first, then the other groups in canonical order (larger card mask first), each group
    K10 ordered, then the played card on top."""
    out = [c for m in build_groups for c in k10_order(m)]
    for m in sorted(groups, reverse=True):
        out.extend(k10_order(m))
    out.append(card)
    return out


def sweep_order(builds: dict, loose: int) -> list[int]:
    """The table as the last capturer takes it at the end (K12, Cassino's C7): builds by ascending value (groups
    oldest first, each K10 ordered), then the loose cards as one group (K10)."""
    out = []
    for v in sorted(builds):
        for m in builds[v][1]:
            out.extend(k10_order(m))
    out.extend(k10_order(loose))
    return out


def disjoint_collections(cands, avail: int, key=None) -> list:
    """Every collection (a list, possibly empty, in ``cands`` order) of pairwise disjoint candidates within the
    card mask ``avail``, each with the cards of ``avail`` left over.  ``key`` gives a candidate's card mask
    (default: the candidate is its mask)."""
    pairs = [(x if key is None else key(x), x) for x in cands]
    pairs = [(S, x) for S, x in pairs if (S & avail) == S]
    out = []

    def rec(i, av, acc):
        out.append((acc, av))
        for j in range(i, len(pairs)):
            S, x = pairs[j]
            if (S & av) == S:
                rec(j + 1, av & ~S, acc + [x])

    rec(0, avail, [])
    return out


# ---------------------------------------------------------------------------------------------------------
# Randomness (ENGINE.md "Randomness"; docs/rules/project.md "Round seeds")
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


def shuffled_deck(n: int, seed: int) -> list[int]:
    """The deal stream of state ``seed``: the ids 0..n-1 in order, shuffled Fisher-Yates from the end."""
    rng = SplitMix64(seed)
    deck = list(range(n))
    for i in range(n - 1, 0, -1):
        j = rng.next() % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def round_seed(match_seed: int, r: int) -> int:
    """The r-th output (r >= 1) of a splitmix64 stream with state ``match_seed``: the seed of round r."""
    if r < 1:
        raise ValueError("rounds are numbered from 1")
    rng = SplitMix64(match_seed & M64)
    out = 0
    for _ in range(r):
        out = rng.next()
    return out


def bot_stream(seed: int) -> SplitMix64:
    """The built-in bots' stream of game (round) seed ``seed``, separate from its deal stream."""
    return SplitMix64(fmix((seed & M64) ^ BOT_SALT))


# ---------------------------------------------------------------------------------------------------------
# Position hash (ENGINE.md "Position hash and move keys")
# ---------------------------------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def Z(tag: int, a: int, b: int, payload: int) -> int:
    return fmix(fmix((((tag << 40) | (a << 20) | b) + GOLDEN) & M64) ^ (payload & M64))


def build_terms(v: int, owner: int, groups) -> int:
    """The hash terms of a build of value v: Z(3, v, owner, 0) and Z(4, v, i, group i)."""
    h = Z(3, v, owner, 0)
    for i, m in enumerate(groups):
        h ^= Z(4, v, i, m)
    return h


def mask_hash(st) -> int:
    """H of a position held as card masks (Khasino, Cassino), from scratch: hand terms Z(1, s, c, 0), loose
    Z(2, 0, c, 0), build terms, pile terms Z(5, s, i, c) for every seat s, last capturer Z(6, s, 0, 0); what
    is not listed (to_move, deal, stock, over, options, scores) is not part of it."""
    h = 0
    for s, hm in enumerate(st.hands):
        for c in bits(hm):
            h ^= Z(1, s, c, 0)
    for c in bits(st.loose):
        h ^= Z(2, 0, c, 0)
    for v, (o, gs) in st.builds.items():
        h ^= build_terms(v, o, gs)
    for s, pile in enumerate(st.piles):
        for i, c in enumerate(pile):
            h ^= Z(5, s, i, c)
    if st.last_capturer is not None:
        h ^= Z(6, st.last_capturer, 0, 0)
    return h


# ---------------------------------------------------------------------------------------------------------
# Positions and moves
# ---------------------------------------------------------------------------------------------------------
class Position:
    """Base of a family's internal position: a slotted record, immutable by convention (moves build new
    objects); ``replace`` is the copy with some fields changed."""

    __slots__ = ()

    def replace(self, **kw):
        d = {k: getattr(self, k) for k in self.__slots__}
        d.update(kw)
        return type(self)(**d)


class LazyMove:
    """Base of a family's move (and decision option) classes: ``after`` (the position right after the move,
    ``to_move`` still the mover) and ``result`` (its successor) as JSON, computed on first use, since a bot
    reads one move of the many generated.  A subclass binds ``_json_of`` (internal position -> JSON) and
    ``_successor`` (position right after a move -> successor) as staticmethods, and sets ``_after`` and
    ``_result`` (None until computed) with ``_after_json`` and ``_result_json`` None."""

    __slots__ = ("_after", "_result", "_after_json", "_result_json")

    @property
    def after(self) -> dict:
        if self._after_json is None:
            self._after_json = self._json_of(self._after)
        return self._after_json

    def _result_state(self):
        if self._result is None:
            self._result = self._successor(self._after)
        return self._result

    @property
    def result(self) -> dict:
        if self._result_json is None:
            self._result_json = self._json_of(self._result_state())
        return self._result_json


# ---------------------------------------------------------------------------------------------------------
# Bots and play (ENGINE.md "Bots")
# ---------------------------------------------------------------------------------------------------------
def distinct_by_key(moves) -> dict:
    """The moves by key, one per key (P7: equal keys are the same move); ValueError when there is none."""
    uniq = {}
    for m in moves:
        uniq.setdefault(m.key & M64, m)
    if not uniq:
        raise ValueError("no moves to choose from")
    return uniq


def draw(uniq: dict, keys, r: int):
    """ENGINE.md "Bots": the candidate whose key minimises fmix(key ^ r), a uniform draw over distinct moves."""
    return uniq[min(keys, key=lambda k: fmix(k ^ r))]


def choose(bot: str, moves: list, r: int):
    """The Khasino and Cassino built-in bot's choice among ``moves`` for the draw ``r``: ``random`` draws among
    all of them, ``greedy`` among those maximising (points, cards, spades, -table_points).  Khasino's 4p
    decision options are chosen the same way, by their fixed keys and features.  (Kasino's misère greedy is
    its own.)"""
    uniq = distinct_by_key(moves)
    if bot == "random":
        keys = list(uniq)
    elif bot == "greedy":
        feat = {k: (m.points, m.cards, m.spades, -m.table_points) for k, m in uniq.items()}
        best = max(feat.values())
        keys = [k for k, f in feat.items() if f == best]
    else:
        raise ValueError(f"unknown bot {bot!r}")
    return draw(uniq, keys, r)


def seat_bots(fmt: str, n: int, bots) -> tuple:
    """One bot name per seat: ``bots`` as a tuple, default all "random"; ValueError on a wrong count."""
    bots = tuple(bots) if bots is not None else ("random",) * n
    if len(bots) != n:
        raise ValueError(f"{fmt}: one bot per seat ({n})")
    return bots


def play_out(st, seed: int, bots: tuple, legal, fallback, choose) -> tuple:
    """Play internal position ``st`` to its end with the built-in bots (``bots[s]`` plays seat s): exactly one
    draw of the bot stream of ``seed`` per bot decision, in the order they arise; a seat without a legal move
    (``legal(st)`` empty) plays ``fallback(st)`` without a draw.  Returns (final position, the played keys in
    order, the number of such fallbacks)."""
    rng = bot_stream(seed)
    keys, no_move = [], 0
    while not st.over:
        moves = legal(st)
        if not moves:
            no_move += 1
            m = fallback(st)
        else:
            m = choose(bots[st.to_move], moves, rng.next())
        keys.append(m.key)
        st = m._result_state()
    return st, keys, no_move
