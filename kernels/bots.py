"""Built-in bots. A bot sees its seat's observation and the legal-move list (with keys and features), never
the state: the engine builds the observation, and the move list depends only on what the mover sees."""
import numpy as np
from numba import njit

from .layout import (
    S_HANDS, S_LOOSE, S_DEAL, S_STOCK_POS, S_STOCK_LEN, S_PLEN, S_PILE, S_BOWNER, S_BNG, S_BGROUPS,
    MAX_PILE, MAX_GROUPS, MAX_SEATS, MAX_VALUE, R_SEATS,
    O_SEAT, O_HAND, O_LOOSE, O_DEAL, O_STOCK_LEFT, O_PILE_TOP, O_PILE_LEN, O_BOWNER, O_BCARDS, O_HAND_SIZES,
    M_KEY, M_POINTS, M_CARDS, M_SPADES, M_TABLE_POINTS, MOVE_FIELDS, WS_MOVES,
    BOT_GREEDY,
)
from .bits import popcount
from .rng import next_u64, fmix



@njit(cache=True, nogil=True, _nrt=False)
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


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def mv(ws, i, field):
    return ws[WS_MOVES + i * MOVE_FIELDS + field]


@njit(cache=True, nogil=True, _nrt=False)
def choose(bot, ws, n, stream):
    """Candidate the bot plays among the n in the workspace move list (docs/ENGINE.md, "Bots"): after the
    greedy filter, the move whose key minimises fmix(key ^ r) for one draw r, a uniform pick over distinct
    moves. A bot reads the move list and the observation at ws[WS_OBS:], nothing else."""
    r = next_u64(stream)
    bp, bc, bs, bt = 0, 0, 0, 0
    if bot == BOT_GREEDY:
        bp, bc, bs, bt = -1, -1, -1, -(1 << 40)
        for i in range(n):
            f = (mv(ws, i, M_POINTS), mv(ws, i, M_CARDS), mv(ws, i, M_SPADES), -mv(ws, i, M_TABLE_POINTS))
            if f > (bp, bc, bs, bt):
                bp, bc, bs, bt = f
    best = 0
    best_h = np.uint64(0)
    found = False
    for i in range(n):
        if bot == BOT_GREEDY and (mv(ws, i, M_POINTS) != bp or mv(ws, i, M_CARDS) != bc
                                  or mv(ws, i, M_SPADES) != bs or -mv(ws, i, M_TABLE_POINTS) != bt):
            continue
        h = fmix(np.uint64(mv(ws, i, M_KEY)) ^ r)
        if not found or h < best_h:
            best, best_h, found = i, h, True
    return best
