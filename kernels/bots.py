"""Built-in bots. A bot sees its seat's observation and the legal-move list (with keys and features), never
the state: the engine builds the observation, and the move list depends only on what the mover sees."""
import numpy as np
from numba import njit

from .layout import (
    S_HANDS, S_LOOSE, S_DEAL, S_STOCK_POS, S_STOCK_LEN, S_PLEN, S_PILE, S_BOWNER, S_BNG, S_BGROUPS,
    MAX_PILE, MAX_GROUPS, MAX_SEATS, MAX_VALUE, R_SEATS,
    O_SEAT, O_HAND, O_LOOSE, O_DEAL, O_STOCK_LEFT, O_PILE_TOP, O_PILE_LEN, O_BOWNER, O_BCARDS, O_HAND_SIZES,
    M_KEY, M_POINTS, M_CARDS, M_SPADES, M_TABLE_POINTS, MOVE_FIELDS, WS_MOVES, WS_KEYS, WS_OBS,
    BOT_RANDOM, BOT_GREEDY,
)
from .bits import popcount
from .rng import next_u64

SIGN = np.int64(-9223372036854775808)   # XOR with this maps unsigned order onto signed order


@njit(cache=True, nogil=True)
def observe(st, rules, seat, obs, at):
    """Write what `seat` sees into obs[at:at+OBS_SIZE] (RULINGS.md, "What bots see"): own hand, loose cards,
    builds (cards, owner), each pile's top card and size, hand sizes, stock size. Nothing else."""
    obs[at + O_SEAT] = seat
    obs[at + O_HAND] = st[S_HANDS + 2 * seat]
    obs[at + O_LOOSE] = st[S_LOOSE]
    obs[at + O_DEAL] = st[S_DEAL]
    obs[at + O_STOCK_LEFT] = st[S_STOCK_LEN] - st[S_STOCK_POS]
    for s in range(MAX_SEATS):
        n = st[S_PLEN + s] if s < rules[R_SEATS] else 0
        obs[at + O_PILE_LEN + s] = n
        obs[at + O_PILE_TOP + s] = st[S_PILE + s * MAX_PILE + n - 1] if n > 0 else -1
        obs[at + O_HAND_SIZES + s] = popcount(st[S_HANDS + 2 * s]) if s < rules[R_SEATS] else 0
    for v in range(MAX_VALUE + 1):
        o = st[S_BOWNER + v]
        obs[at + O_BOWNER + v] = o
        m = 0
        if o >= 0:
            for i in range(st[S_BNG + v]):
                m |= st[S_BGROUPS + v * MAX_GROUPS + i]
        obs[at + O_BCARDS + v] = m


@njit(cache=True, nogil=True)
def sort_unique(a, lo, n):
    """Sort a[lo:lo+n] ascending in place (shell sort, no allocation) and drop repeats; returns the count."""
    gap = 1
    while gap < n // 3:
        gap = 3 * gap + 1
    while gap >= 1:
        for i in range(gap, n):
            x = a[lo + i]
            j = i
            while j >= gap and a[lo + j - gap] > x:
                a[lo + j] = a[lo + j - gap]
                j -= gap
            a[lo + j] = x
        gap //= 3
    if n == 0:
        return 0
    d = 1
    for i in range(1, n):
        if a[lo + i] != a[lo + d - 1]:
            a[lo + d] = a[lo + i]
            d += 1
    return d


@njit(cache=True, nogil=True, inline="always")
def mv(ws, i, field):
    return ws[WS_MOVES + i * MOVE_FIELDS + field]


@njit(cache=True, nogil=True)
def pick_key(ws, n, d, stream):
    """Draw one bot-stream value; return the candidate with the (r mod d)-th smallest of the d sorted keys."""
    r = next_u64(stream)
    k = ws[WS_KEYS + np.int64(r % np.uint64(d))] ^ SIGN
    for i in range(n):
        if mv(ws, i, M_KEY) == k:
            return i
    return 0


@njit(cache=True, nogil=True)
def choose(bot, ws, n, stream):
    """Candidate the bot plays among the n in the workspace move list (docs/ENGINE.md, "Bots").

    A bot reads the move list and the observation at ws[WS_OBS:], nothing else."""
    if bot == BOT_GREEDY:
        bp, bc, bs, bt = -1, -1, -1, -1
        for i in range(n):
            p_, c_, s_, t_ = mv(ws, i, M_POINTS), mv(ws, i, M_CARDS), mv(ws, i, M_SPADES), -mv(ws, i, M_TABLE_POINTS)
            if (p_, c_, s_, t_) > (bp, bc, bs, bt):
                bp, bc, bs, bt = p_, c_, s_, t_
        d = 0
        for i in range(n):
            if (mv(ws, i, M_POINTS) == bp and mv(ws, i, M_CARDS) == bc and mv(ws, i, M_SPADES) == bs
                    and -mv(ws, i, M_TABLE_POINTS) == bt):
                ws[WS_KEYS + d] = mv(ws, i, M_KEY) ^ SIGN
                d += 1
        d = sort_unique(ws, WS_KEYS, d)
        return pick_key(ws, n, d, stream)
    for i in range(n):
        ws[WS_KEYS + i] = mv(ws, i, M_KEY) ^ SIGN
    d = sort_unique(ws, WS_KEYS, n)
    return pick_key(ws, n, d, stream)
