"""Search bots for Norwegian misère Kasino (issue 10; kernels/khasino/search.py holds Khasino's and Cassino's): the
same `rollout` and `ismcts` on the same tree (kernels/core/tree.py), with Kasino's deal, moves and misère reward.

A determinisation deals the cards the seat cannot see (the other hands and the undealt stock) anew from the
double deck less its own hand, the table, every pile and the face cards set aside (N5): all public. Kasino has
no builds and no decisions besides card plays. The reward (thousandths) is half the result (1 for the lowest
team, an equal share on a tie) and half 500 + 500 (the other teams' mean points - the team's) / 43 (N6's
points of a round), clipped to 0..1000.

Kasino's entry points are compiled apart from the other families' (as kernels/kasino/game.py), hence a module
of its own; the walk is the same as kernels/khasino/search.py's without the decision nodes."""
import numpy as np
from numba import njit

from ..core.bits import lowbit_index, popcount
from ..core.deal import shuffle_unseen
from ..core.heuristic import use_weights
from ..core.layout import (
    A_CARDS, A_PATH, A_REWARD, A_ROW, A_ST, BOT_GREEDY, BOT_HEURISTIC, BOT_ISMCTS, BOT_ROLLOUT, BOT_USER, C_BEST_F,
    C_HW, C_OVERFLOW, G_SEAT0, KIND_TRAIL, KO_ASIDE, KO_DEALER, KO_HAND, KO_HAND_SIZES, KO_LAST_CAPTURER,
    KO_LAST_PLAYER, KO_PILE, KO_PILE_SIZES, KO_ROUND, KO_ROUNDS, KO_SCORES, KO_SEAT, KO_STOCK_LEFT, KO_TABBE,
    KO_TABLE, MAX_PILE, MAX_SEATS, M_CARD, M_KEY, M_KIND, M_TABBE, M_TAKEN_HI, M_TAKEN_LO, M_VALUE, R_SEATS,
    R_TEAM, SEAT_FIELDS, SEAT_TEAM_SCORE, SEL_LEAST, SEL_UCB, SINK_GREEDY, SINK_HEURISTIC, SINK_RANDOM, SINK_USER,
    STATE_SIZE, STATS_SIZE, S_ASIDE, S_DEALER, S_HANDS, S_LAST_CAP, S_LAST_MOVER, S_LOOSE, S_LOOSE_HI, S_OVER,
    S_PILE, S_PLEN, S_ROUND, S_ROUNDS, S_SCORES, S_STOCK, S_STOCK_LEN, S_STOCK_POS, S_TABBE, S_TO_MOVE, WS_BEST,
    WS_OBS,
)
from ..core.multiset import ms_add_card
from ..core.rng import GOLDEN, next_u64
from ..core.sink import sink_begin
from ..core.tree import backup, descend, fold_begin, pick_root, tree_begin, unit_totals
from .moves import gen_kasino
from .state import advance_kasino, apply_kasino, score_kasino


ROUND_POINTS = 43       # N6: a round's card points and the last point


@njit(cache=True, nogil=True, _nrt=False)
def observe_kasino(st, rules, seat, obs, at):
    """Write what `seat` sees of a Kasino position into obs[at:at+KO_SIZE] (docs/rules/project.md, "What bots see"; the
    KO_* fields): its hand, the table, the face cards set aside, every pile (captures are public history),
    the hand sizes, the stock left, the round, dealer, last player and capturer, match totals and tabbes."""
    obs[at + KO_SEAT] = seat
    obs[at + KO_HAND] = st[S_HANDS + 2 * seat]
    obs[at + KO_HAND + 1] = st[S_HANDS + 2 * seat + 1]
    obs[at + KO_TABLE] = st[S_LOOSE]
    obs[at + KO_TABLE + 1] = st[S_LOOSE_HI]
    obs[at + KO_ASIDE] = st[S_ASIDE]
    obs[at + KO_ASIDE + 1] = st[S_ASIDE + 1]
    obs[at + KO_ROUND] = st[S_ROUND]
    obs[at + KO_ROUNDS] = st[S_ROUNDS]
    obs[at + KO_DEALER] = st[S_DEALER]
    obs[at + KO_LAST_PLAYER] = st[S_LAST_MOVER]
    obs[at + KO_LAST_CAPTURER] = st[S_LAST_CAP]
    obs[at + KO_STOCK_LEFT] = st[S_STOCK_LEN] - st[S_STOCK_POS]
    for s in range(MAX_SEATS):
        live = s < rules[R_SEATS]
        obs[at + KO_HAND_SIZES + s] = popcount(st[S_HANDS + 2 * s]) + popcount(st[S_HANDS + 2 * s + 1]) \
            if live else 0
        obs[at + KO_PILE + 2 * s] = st[S_PILE + s * MAX_PILE] if live else 0
        obs[at + KO_PILE + 2 * s + 1] = st[S_PILE + s * MAX_PILE + 1] if live else 0
        obs[at + KO_PILE_SIZES + s] = st[S_PLEN + s] if live else 0
        obs[at + KO_SCORES + s] = st[S_SCORES + s] if live else 0
        obs[at + KO_TABBE + 2 * s] = st[S_TABBE + 2 * s] if live else 0
        obs[at + KO_TABBE + 2 * s + 1] = st[S_TABBE + 2 * s + 1] if live else 0


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def decide_kasino_basic(bot, st, rules, p, ws, stream):
    """Seat p's bot (one that does not search) decides (docs/ENGINE.md, "Bots"): one draw, every legal move
    generated into its sink; a user bot scores each from the seat's view (`observe_kasino`)."""
    bot = use_weights(ws, bot)
    if bot == BOT_USER:
        observe_kasino(st, rules, p, ws, WS_OBS)
    r = next_u64(stream)
    sink_begin(ws, SINK_GREEDY if bot == BOT_GREEDY else SINK_HEURISTIC if bot == BOT_HEURISTIC else
               SINK_USER if bot == BOT_USER else SINK_RANDOM, r, 0, 0)
    ws[C_BEST_F] = -(1 << 40)       # greedy folds -points (misère), which may be below sink_begin's start
    n = gen_kasino(st, rules, p, ws)
    if n == 0:
        stream[0] = stream[0] - GOLDEN
    return n


@njit(cache=True, nogil=True, _nrt=False)
def crawl_fallback(st, p, ws):
    """Never in play (a hand card always has a move): the lowest card of seat p's hand crawls."""
    h = st[S_HANDS + 2 * p]
    c = lowbit_index(h & -h)
    ws[WS_BEST + M_CARD] = c
    ws[WS_BEST + M_KIND] = KIND_TRAIL
    ws[WS_BEST + M_VALUE] = (c >> 2) + 1
    ws[WS_BEST + M_TABBE] = 0
    ws[WS_BEST + M_TAKEN_LO] = 0
    ws[WS_BEST + M_TAKEN_HI] = 0
    ws[WS_BEST + M_KEY] = 0


@njit(cache=True, nogil=True, _nrt=False)
def determinise_kasino(st, rules, p, ws, stream):
    """Copy st to A_ST with the cards seat p cannot see dealt anew (module docstring)."""
    for i in range(STATE_SIZE):
        ws[A_ST + i] = st[i]
    nseats = rules[R_SEATS]
    n = 0
    for c in range(52):
        b = 1 << c
        k = 2
        k -= ((st[S_HANDS + 2 * p] & b) != 0) + ((st[S_HANDS + 2 * p + 1] & b) != 0)
        k -= ((st[S_LOOSE] & b) != 0) + ((st[S_LOOSE_HI] & b) != 0)
        k -= ((st[S_ASIDE] & b) != 0) + ((st[S_ASIDE + 1] & b) != 0)
        for s in range(nseats):
            k -= ((st[S_PILE + s * MAX_PILE] & b) != 0) + ((st[S_PILE + s * MAX_PILE + 1] & b) != 0)
        for j in range(k):
            ws[A_CARDS + n] = c + 52 * j
            n += 1
    shuffle_unseen(ws, n, stream)
    at = 0
    for q in range(nseats):
        if q == p:
            continue
        size = popcount(st[S_HANDS + 2 * q]) + popcount(st[S_HANDS + 2 * q + 1])
        lo = 0
        hi = 0
        for k in range(size):
            c = ws[A_CARDS + at]
            lo, hi = ms_add_card(lo, hi, 1 << (c - 52 if c >= 52 else c))
            at += 1
        ws[A_ST + S_HANDS + 2 * q] = lo
        ws[A_ST + S_HANDS + 2 * q + 1] = hi
    for i in range(st[S_STOCK_POS], st[S_STOCK_LEN]):
        ws[A_ST + S_STOCK + i] = ws[A_CARDS + at]
        at += 1


@njit(cache=True, nogil=True, _nrt=False)
def play_kasino_record(sst, rules, q, ws, n):
    """Seat q plays the record at WS_BEST (the crawl fallback if it had no move) and the turn passes."""
    if n == 0:
        crawl_fallback(sst, q, ws)
    apply_kasino(sst, q, ws, WS_BEST)
    advance_kasino(sst, rules, q)


@njit(cache=True, nogil=True, _nrt=False)
def kasino_rewards(sst, rules, ws):
    """Score the finished round; each seat's reward (thousandths) at A_REWARD (module docstring)."""
    row = ws[A_ROW: A_ROW + STATS_SIZE]
    winner = score_kasino(sst, rules, row)
    total, units = unit_totals(rules, row, SEAT_TEAM_SCORE)
    for s in range(rules[R_SEATS]):
        own = row[G_SEAT0 + s * SEAT_FIELDS + SEAT_TEAM_SCORE]
        others = (total - own) / (units - 1)
        share = 500.0 + 500.0 * (others - own) / ROUND_POINTS
        share = 0.0 if share < 0.0 else 1000.0 if share > 1000.0 else share
        won = 1000 if winner == rules[R_TEAM + s] else (1000 // units if winner < 0 else 0)
        ws[A_REWARD + s] = (won + np.int64(share)) // 2


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def search_kasino(kind, n, c, policy, st, rules, p, ws, stream):
    """kernels/khasino/search.py's `search` for a Kasino card play: the chosen record at WS_BEST; returns the number
    of legal moves."""
    r = next_u64(stream)
    if not tree_begin(ws, n, SEL_UCB if kind == BOT_ISMCTS else SEL_LEAST, c):
        count = decide_kasino_basic(policy, st, rules, p, ws, stream)   # no room for this search in the
        ws[C_OVERFLOW] = 1              # workspace (a guard): the policy decides, the overflow is reported
        return count
    fold_begin(ws, 0, -1, r)
    count = gen_kasino(st, rules, p, ws)
    if count <= 1:
        return count
    limit = 1 if kind != BOT_ISMCTS else 1 << 30
    sst = ws[A_ST: A_ST + STATE_SIZE]
    nodes = 1
    for it in range(n):
        determinise_kasino(st, rules, p, ws, stream)
        node = 0
        depth = 0
        ws[A_PATH] = 0
        while sst[S_OVER] == 0 and depth < limit:
            fold_begin(ws, node, it, next_u64(stream))
            q = sst[S_TO_MOVE]
            m = gen_kasino(sst, rules, q, ws)
            if m == 0:
                play_kasino_record(sst, rules, q, ws, 0)
                continue
            node, grown, nodes = descend(ws, node, depth, nodes, q)
            depth += 1
            play_kasino_record(sst, rules, q, ws, m)
            if grown:
                break
        while sst[S_OVER] == 0:         # the playout
            q = sst[S_TO_MOVE]
            play_kasino_record(sst, rules, q, ws, decide_kasino_basic(policy, sst, rules, q, ws, stream))
        kasino_rewards(sst, rules, ws)
        backup(ws, A_PATH, depth, A_REWARD)
    pick_root(ws, nodes, kind == BOT_ISMCTS, r)
    gen_kasino(st, rules, p, ws)
    return count


@njit(cache=True, nogil=True, _nrt=False)
def decide_kasino(bot, st, rules, p, ws, stream):
    """Seat p's bot decides its Kasino play (the search bots here, the others by `decide_kasino_basic`);
    returns the number of legal moves, the chosen one at WS_BEST. One compiled function, the rest inlined
    (kernels/khasino/search.py, `decide`)."""
    kind = use_weights(ws, bot)
    if kind == BOT_ROLLOUT or kind == BOT_ISMCTS:
        return search_kasino(kind, ws[C_HW], ws[C_HW + 1], ws[C_HW + 2], st, rules, p, ws, stream)
    return decide_kasino_basic(bot, st, rules, p, ws, stream)
