"""Search bots for Khasino and Cassino (issue 10): `rollout` (flat Monte Carlo) and `ismcts` (single-observer
information-set MCTS, Cowling, Powley & Whitehouse 2012), compiled inside the game loop.

Both see only their seat (docs/rules/project.md, "What bots see"). Each iteration deals a *determinisation*: the
cards the seat cannot see (the other hands, the partner's included, and the stock) are shuffled from the bot stream and
dealt back into the same hand sizes and stock length, an opponent who owns a build or holds an open promise of
value v first given a card of value v (P1, P13), as the seat knows he holds one. The table, the builds and every
pile are public (K10: a pile's order follows from the public moves). The seat's own legal moves depend only on
what it sees, so they are the same in every determinisation; the opponents' are those of the determinisation.

- `ismcts`: one tree over the seat's information sets (kernels/core/tree.py). Each iteration walks down from the root
  in its determinisation, at each node choosing among the moves legal there by UCB with availability counts
  until it meets a move not yet in the tree, adds it (one node per iteration), plays the rest of the game out
  with the `policy` bot for every seat, and credits each node on its path with the reward of the seat that
  chose it. Decisions that are not card plays (P11 lead, P15 Stay) are nodes too, with options 0 and 1. The
  root plays its most visited child.
- `rollout`: the same walk cut after the root's move: every move of the seat is played out in turn (the least
  tried first, ties by the draw), and the best mean reward is played.

A reward is in thousandths: half for the result (1 for a win, an equal share on a tie), half for the share of
the round's points the seat's team took. Cassino's is its round's (the match totals do not enter).
"""
import numpy as np
from numba import literally, njit
from numba.extending import overload

from ..core.deal import draw_below, shuffle_unseen
from ..core.heuristic import searches, use_weights
from ..core.layout import (
    A_CARDS, A_PATH, A_REC, A_REWARD, A_ROOTREC, A_ROW, A_ST, BOT_ISMCTS, BOT_ROLLOUT, C_HW, C_OVERFLOW, C_TKEY,
    DECIDE_LEAD, DECIDE_STAY, DECISION_TAG, G_SEAT0, MAX_GROUPS, MAX_PILE, MAX_VALUE, M_KIND, M_TARGET, REC_SIZE,
    R_DECK, R_SEATS, R_TEAM, R_TEAMS, SEAT_FIELDS, SEAT_SCORE, SEL_LEAST, SEL_UCB, STATE_SIZE, STATS_SIZE,
    S_BGROUPS, S_BNG, S_BOWNER, S_HANDS, S_LOOSE, S_OVER, S_PILE, S_PLEN, S_PROMISES, S_STOCK, S_STOCK_LEN,
    S_STOCK_POS, S_TO_MOVE, WS_BEST,
)
from ..core.rng import next_u64, zterm
from ..core.specialise import JIT_OPTIONS, call, literal_value, one_deck_family
from ..core.tree import backup, descend, fold_begin, pick_root, tree_begin, tree_offer, unit_totals
from .bots import decide_basic, option_basic
from .state import advance, apply_move, apply_stay, score, stay_partner, trail_fallback
from ..movegen import generate


NO_DECISION = -1


@njit(cache=True, nogil=True, _nrt=False)
def determinise(st, rules, p, ws, stream):
    """Copy st to the search area (A_ST) with every card seat p cannot see dealt anew (module docstring)."""
    for i in range(STATE_SIZE):
        ws[A_ST + i] = st[i]
    nseats = rules[R_SEATS]
    seen = st[S_HANDS + 2 * p] | st[S_LOOSE]
    for v in range(1, MAX_VALUE + 1):
        if st[S_BOWNER + v] >= 0:
            for i in range(st[S_BNG + v]):
                seen |= st[S_BGROUPS + v * MAX_GROUPS + i]
    for s in range(nseats):
        for i in range(st[S_PLEN + s]):
            seen |= 1 << st[S_PILE + s * MAX_PILE + i]
    n = 0
    for c in range(rules[R_DECK]):
        if not (seen >> c) & 1:
            ws[A_CARDS + n] = c
            n += 1
    for q in range(nseats):                 # first the cards the seat knows a hand holds (P1, P13)
        if q == p:
            continue
        hand = 0
        left = 0
        size = 0
        h = st[S_HANDS + 2 * q]
        while h:
            h &= h - 1
            size += 1
        for v in range(1, MAX_VALUE + 1):
            if st[S_BOWNER + v] != q and not (st[S_PROMISES + q] >> v) & 1:
                continue
            rank = v - 1 if v <= 13 else 0  # a build of 14 is taken by an ace (P17)
            k = 0
            for i in range(n):
                if ws[A_CARDS + i] >> 2 == rank:
                    k += 1
            if k == 0 or left >= size:
                continue
            j = draw_below(stream, k)
            for i in range(n):
                if ws[A_CARDS + i] >> 2 == rank:
                    if j == 0:
                        hand |= 1 << ws[A_CARDS + i]
                        n -= 1
                        ws[A_CARDS + i] = ws[A_CARDS + n]
                        ws[A_CARDS + n] = -1
                        left += 1
                        break
                    j -= 1
        ws[A_ST + S_HANDS + 2 * q] = hand
        ws[A_REWARD + q] = size - left      # cards still to deal this hand
    shuffle_unseen(ws, n, stream)
    at = 0
    for q in range(nseats):
        if q == p:
            continue
        hand = ws[A_ST + S_HANDS + 2 * q]
        for k in range(ws[A_REWARD + q]):
            hand |= 1 << ws[A_CARDS + at]
            at += 1
        ws[A_ST + S_HANDS + 2 * q] = hand
    for i in range(st[S_STOCK_POS], st[S_STOCK_LEN]):
        ws[A_ST + S_STOCK + i] = ws[A_CARDS + at]
        at += 1


@njit(cache=True, nogil=True, _nrt=False)
def play_record(sst, rules, q, ws, rec):
    """Seat q plays the move record at ws[rec:]; returns the partner who now decides Stay (P15), else plays it
    and passes the turn and returns -1."""
    if rules[R_TEAMS]:
        partner = stay_partner(sst, rules, q, ws[rec + M_KIND], ws[rec + M_TARGET])
        if partner >= 0:
            return partner
    apply_move(sst, rules, q, ws, rec)
    advance(sst, rules, q)
    return -1


@njit(cache=True, nogil=True, _nrt=False)
def play_option(sst, rules, ws, kind, option, mover, partner, rec):
    """Option 0 or 1 of a decision: the lead (seat `option` leads, P11), or Stay (1) / decline (0) on the
    mover's capture at ws[rec:] (P15)."""
    if kind == DECIDE_LEAD:
        sst[S_TO_MOVE] = option
        return
    if option:
        apply_stay(sst, rules, mover, ws, rec, partner)
    else:
        apply_move(sst, rules, mover, ws, rec)
    advance(sst, rules, mover)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def playout(family, sst, rules, ws, stream, policy, pending, mover, partner):
    """Play the determinised position to its end with the policy bot in every seat (a pending decision first)."""
    if pending != NO_DECISION:
        play_option(sst, rules, ws, pending, option_basic(policy, pending, stream), mover, partner, A_REC)
    while sst[S_OVER] == 0:
        q = sst[S_TO_MOVE]
        if decide_basic(family, policy, sst, rules, q, ws, stream) == 0:
            trail_fallback(sst, q)
            advance(sst, rules, q)
            continue
        partner = play_record(sst, rules, q, ws, WS_BEST)
        if partner >= 0:
            play_option(sst, rules, ws, DECIDE_STAY, option_basic(policy, DECIDE_STAY, stream), q, partner,
                        WS_BEST)


@njit(cache=True, nogil=True, _nrt=False)
def rewards(sst, rules, ws):
    """Score the finished position and write each seat's reward (thousandths) at A_REWARD."""
    row = ws[A_ROW: A_ROW + STATS_SIZE]
    winner = score(sst, rules, row)
    total, units = unit_totals(rules, row, SEAT_SCORE)
    for s in range(rules[R_SEATS]):
        pts = row[G_SEAT0 + s * SEAT_FIELDS + SEAT_SCORE]
        share = 1000 * pts // total if total > 0 else 1000 // units
        won = 1000 if winner == rules[R_TEAM + s] else (1000 // units if winner < 0 else 0)
        ws[A_REWARD + s] = (won + share) // 2


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def search(family, kind, n, c, policy, st, rules, p, ws, stream, pending, mover):
    """Run the search for seat p (module docstring). With no pending decision the chosen move's record is left
    at WS_BEST and the number of legal moves is returned (0: none, nothing chosen); with a pending decision
    (`pending` DECIDE_LEAD, or DECIDE_STAY on `mover`'s capture recorded at WS_BEST) the option is returned."""
    r = next_u64(stream)
    if not tree_begin(ws, n, SEL_UCB if kind == BOT_ISMCTS else SEL_LEAST, c):
        if pending != NO_DECISION:      # the workspace has no room for this search (a guard, docs/ENGINE.md):
            option = option_basic(policy, pending, stream)      # the policy decides, the overflow is reported
            ws[C_OVERFLOW] = 1
            return option
        count = decide_basic(family, policy, st, rules, p, ws, stream)
        ws[C_OVERFLOW] = 1
        return count
    if pending == NO_DECISION:          # the root's moves, all unexpanded: the choice is one of them
        fold_begin(ws, 0, -1, r)
        count = generate(family, st, rules, p, ws)
        if count <= 1:                  # nothing to search
            return count
    else:
        count = 2
        for i in range(REC_SIZE):
            ws[A_ROOTREC + i] = ws[WS_BEST + i]
    limit = 1 if kind != BOT_ISMCTS else 1 << 30
    sst = ws[A_ST: A_ST + STATE_SIZE]
    nodes = 1
    for it in range(n):
        determinise(st, rules, p, ws, stream)
        if pending == DECIDE_STAY:
            for i in range(REC_SIZE):
                ws[A_REC + i] = ws[A_ROOTREC + i]
        pk = pending
        pm = mover
        pq = p
        node = 0
        depth = 0
        ws[A_PATH] = 0
        while sst[S_OVER] == 0 and depth < limit:
            fold_begin(ws, node, it, next_u64(stream))
            if pk == NO_DECISION:
                q = sst[S_TO_MOVE]
                if generate(family, sst, rules, q, ws) == 0:
                    trail_fallback(sst, q)
                    advance(sst, rules, q)
                    continue
            else:
                q = pq if pk == DECIDE_STAY else 0
                tree_offer(ws, zterm(DECISION_TAG, pk, 0, 0))
                tree_offer(ws, zterm(DECISION_TAG, pk, 1, 0))
            key = ws[C_TKEY]
            node, grown, nodes = descend(ws, node, depth, nodes, q)
            depth += 1
            if pk == NO_DECISION:
                partner = play_record(sst, rules, q, ws, WS_BEST)
                if partner >= 0:
                    for i in range(REC_SIZE):
                        ws[A_REC + i] = ws[WS_BEST + i]
                    pk = DECIDE_STAY
                    pm = q
                    pq = partner
            else:
                option = 1 if np.uint64(key) == zterm(DECISION_TAG, pk, 1, 0) else 0
                play_option(sst, rules, ws, pk, option, pm, pq, A_REC)
                pk = NO_DECISION
            if grown:
                break
        playout(family, sst, rules, ws, stream, policy, pk, pm, pq)
        rewards(sst, rules, ws)
        backup(ws, A_PATH, depth, A_REWARD)
    pick_root(ws, nodes, kind == BOT_ISMCTS, r)
    if pending != NO_DECISION:
        for i in range(REC_SIZE):
            ws[WS_BEST + i] = ws[A_ROOTREC + i]
        return 1 if np.uint64(ws[C_TKEY]) == zterm(DECISION_TAG, pending, 1, 0) else 0
    generate(family, st, rules, p, ws)
    return count


def searched(searching, family, kind, st, rules, p, ws, stream, pending, mover):
    """A search bot decides (`search`, its parameters at C_HW), compiled only where the run has a search bot
    (`searching` 1, kernels/core/specialise.py); elsewhere the search code is not compiled in, and meeting a
    search bot (never: the host sets `searching` from the run's bots) is reported as an overflow."""


def _search_compiled(searching, family, kind, st, rules, p, ws, stream, pending, mover):
    return search(family, kind, ws[C_HW], ws[C_HW + 1], ws[C_HW + 2], st, rules, p, ws, stream, pending, mover)


def _search_left_out(searching, family, kind, st, rules, p, ws, stream, pending, mover):
    ws[C_OVERFLOW] = 1
    return np.int64(0)


@overload(searched, prefer_literal=True, jit_options=JIT_OPTIONS)
def _searched(searching, family, kind, st, rules, p, ws, stream, pending, mover):
    if literal_value(searching) is None or literal_value(family) is None:
        return lambda searching, family, kind, st, rules, p, ws, stream, pending, mover: (literally(searching),
                                                                                         literally(family))
    return _search_compiled if literal_value(searching) else _search_left_out


@njit(cache=True, nogil=True, _nrt=False)
def decide(family, searching, bot, st, rules, p, ws, stream, pending, mover):
    """Seat p's bot decides. With `pending` NO_DECISION, its card play: returns the number of legal moves, the
    chosen one the record at WS_BEST (kernels/khasino/bots.py, `decide_basic`, for the bots that do not search). Else a
    decision that is not a card play, option 0 or 1 returned: the P11 lead (p is seat 0) or Stay on `mover`'s
    capture, the record at WS_BEST (p is his partner, P15).

    One compiled function per family and `searching` (kernels/core/specialise.py) for every bot and decision,
    the search compiled in where the run has a search bot. Callers pass `pending` and `mover` as np.int64 so
    that one compilation serves every call."""
    kind = use_weights(ws, bot)
    if kind == BOT_ROLLOUT or kind == BOT_ISMCTS:
        return searched(searching, family, kind, st, rules, p, ws, stream, pending, mover)
    if pending != NO_DECISION:
        return option_basic(kind, pending, stream)
    return decide_basic(family, bot, st, rules, p, ws, stream)


def bot_decides(bot, st, rules, p, ws, stream, pending=NO_DECISION, mover=-1):
    """`decide` called from the host: compiled for the ruleset's family, with the search if `bot` searches."""
    return call(decide, (one_deck_family(rules), searches([bot])), np.int64(bot), st, rules, np.int64(p), ws,
                stream, np.int64(pending), np.int64(mover))
