"""Bots. A bot decides from its seat's observation and the candidate moves (keys and features) as they are
generated, never from the state: the engine builds the observation, and every candidate depends only on what
the mover sees (docs/ENGINE.md, "Bots")."""
from numba import njit

from ..core.bits import popcount
from ..core.heuristic import use_weights
from ..core.layout import (
    BOT_GREEDY, BOT_HEURISTIC, BOT_RANDOM, BOT_USER, C_BEST_F, DECIDE_STAY, DECISION_TAG, MAX_GROUPS, MAX_PILE,
    MAX_SEATS, MAX_VALUE, O_BCARDS, O_BOWNER, O_DEAL, O_HAND, O_HAND_SIZES, O_LOOSE, O_PILE_LEN, O_PILE_TOP,
    O_SEAT, O_STOCK_LEFT, R_SEATS, SINK_GREEDY, SINK_HEURISTIC, SINK_RANDOM, SINK_USER, S_BGROUPS, S_BNG, S_BOWNER,
    S_DEAL, S_HANDS, S_LOOSE, S_PILE, S_PLEN, S_STOCK_LEN, S_STOCK_POS, WS_OBS,
)
from ..core.rng import GOLDEN, fmix, next_u64, zterm
from ..core.sink import sink_begin
from ..movegen import generate


@njit(cache=True, nogil=True, _nrt=False)
def observe(st, rules, seat, obs, at):
    """Write what `seat` sees into obs[at:at+OBS_SIZE] (docs/rules/project.md, "What bots see"): own hand, loose cards,
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


@njit(cache=True, nogil=True, _nrt=False)
def option_basic(bot, kind, stream):
    """A decision that is not a card play (P11 lead, P15 Stay; docs/ENGINE.md) for a bot that does not search:
    one draw; options 0 and 1 with keys Z(7, kind, option, 0). Random: the option whose key minimises
    fmix(key ^ r). Greedy and heuristic: the lead options tie (the draw decides, as for random); for Stay they
    decline (option 0: the capture's cards beat the load's none). Returns the option chosen."""
    r = next_u64(stream)
    if kind == DECIDE_STAY and bot != BOT_RANDOM:
        return 0
    k0 = fmix(zterm(DECISION_TAG, kind, 0, 0) ^ r)
    k1 = fmix(zterm(DECISION_TAG, kind, 1, 0) ^ r)
    return 0 if k0 < k1 else 1


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def decide_basic(family, bot, st, rules, p, ws, stream):
    """Seat p's bot (one that does not search: kernels/khasino/search.py dispatches) decides: one draw r from the
    bot stream, then every legal move is generated into the bot's sink (kernels/core/sink.py), which keeps the
    running best at WS_BEST. The bot's inputs are the candidates' keys and features, all computed from what seat p
    sees (`observe` writes that view for a bot that reads it; none of the built-in ones does).

    Returns the number of candidates offered; with none (the K11 fallback, never in reachable play) the
    draw is given back, so no bot was asked (docs/ENGINE.md)."""
    bot = use_weights(ws, bot)      # a bot with parameters: its kind, its weights in the workspace
    if bot == BOT_USER:             # a user bot scores each candidate from the seat's view (kernels/core/userbot.py)
        observe(st, rules, p, ws, WS_OBS)
    r = next_u64(stream)
    sink_begin(ws, SINK_GREEDY if bot == BOT_GREEDY else SINK_HEURISTIC if bot == BOT_HEURISTIC else
               SINK_USER if bot == BOT_USER else SINK_RANDOM, r, 0, 0)
    if bot == BOT_HEURISTIC:
        ws[C_BEST_F] = -(1 << 40)   # its score may be negative
    n = generate(family, st, rules, p, ws)
    if n == 0:
        stream[0] = stream[0] - GOLDEN
    return n
