"""Per-thread bodies of the GPU backend (`simulate --backend cuda`, khasino_sim/gpu.py): thread t of a launch
plays unit t (a game or a series of games, a Cassino match, a Kasino match) with the same compiled functions
the CPU batch loops call, into rows laid out as those loops lay them out. The CUDA kernels are thin wrappers
that pick each thread's scratch and call these; CPU tests call them in a plain loop (`units_on_cpu`) and check
the rows against `play_batch` / `play_matches`, since Numba's CUDA simulator cannot call `@njit` functions.

Scratch per thread: a state vector (STATE_SIZE), a deck (104), a one-word stream and a workspace (WS_SIZE plus
the search area of the process's search bots): passed in, never allocated here."""
import numpy as np
from numba import njit

from .cassino.game import play_round
from .core.heuristic import searches
from .core.layout import FAMILY_KHASINO, G_MATCH
from .core.specialise import call
from .kasino.game import play_kasino_match
from .khasino.game import play_game
from .khasino.state import series_leader


UNIT_GAMES = 0          # Khasino games; with series K > 1, one series of K games per thread (P10)
UNIT_MATCHES = 1        # Cassino matches to 21 (C7, P21), or single rounds; rows per thread capped (CPU redo)
UNIT_KASINO = 2         # Kasino matches of a fixed number of rounds (N7), or single rounds


@njit(cache=True, nogil=True, _nrt=False)
def games_unit(searching, t, rules, seeds, bots, out, st, deck, ws, stream, check, series):
    """Games t*series .. t*series+series-1 of `seeds` (those that exist) into out[g]: what `_play_batch` plays
    for them (a series starts at a multiple of `series`; each later game led by the previous one's loser)."""
    trace = st[0:0]
    for j in range(series):
        g = t * series + j
        if g >= seeds.shape[0]:
            return
        leader = series_leader(rules, out[g - 1]) if j > 0 else 0
        play_game(FAMILY_KHASINO, searching, rules, seeds[g], bots[g], st, deck, ws, out[g], trace, check, stream,
                  leader)


@njit(cache=True, nogil=True, _nrt=False)
def matches_unit(searching, t, rules, seeds, bots, rows, used, st, deck, ws, stream, check, single, cap):
    """Cassino match t (with `single`, its first round as a match of one) into rows[t*cap .. t*cap+cap-1], as
    `_play_matches` plays it; used[t] = the rounds played, or -1 when the match needs more than `cap` rows (the
    launcher plays it again on the CPU: no cap on rounds). G_MATCH is t."""
    base = t * cap
    rnd = 1
    k = 0
    while True:
        if k >= cap:
            used[t] = -1
            return
        w = play_round(searching, rules, seeds[t], rnd, bots[t], st, deck, ws, rows[base + k],
                       rows[base + k - 1 if k > 0 else base], check, stream, single)
        rows[base + k, G_MATCH] = t
        k += 1
        if single or w >= 0:
            break
        rnd += 1
    used[t] = k


@njit(cache=True, nogil=True, _nrt=False)
def kasino_unit(t, rules, seeds, bots, rows, zero, st, deck, ws, stream, check, nrounds):
    """Kasino match t of `nrounds` rounds (N7) into rows[t*nrounds .. t*nrounds+nrounds-1], as
    `_play_kasino_matches` plays it; `zero` is a row of zeros (the totals before round 1). G_MATCH is t."""
    play_kasino_match(rules, seeds[t], t, bots[t], rows, t * nrounds, zero, st, deck, ws, stream, check, st[0:0],
                      nrounds)


@njit(cache=True, nogil=True)
def _units_on_cpu(searching, kind, rules, seeds, bots, rows, used, zero, sts, decks, wss, streams, check, param, cap):
    for t in range(used.shape[0]):      # unit t in scratch slot t, as thread t of a launch (a wave <= its slots)
        if kind == UNIT_GAMES:
            games_unit(searching, t, rules, seeds, bots, rows, sts[t], decks[t], wss[t], streams[t], check, param)
        elif kind == UNIT_MATCHES:
            matches_unit(searching, t, rules, seeds, bots, rows, used, sts[t], decks[t], wss[t], streams[t], check,
                         param != 0, cap)
        else:
            kasino_unit(t, rules, seeds, bots, rows, zero, sts[t], decks[t], wss[t], streams[t], check, param)


def units_on_cpu(kind, rules, seeds, bots, rows, used, zero, sts, decks, wss, streams, check, param, cap):
    """The device launch's work done by a CPU loop over the units, with the same arrays: the tests' stand-in for
    the GPU (the launcher's array layout and the unit bodies are exercised; only the launch is not)."""
    call(_units_on_cpu, (searches(bots),), np.int64(kind), rules, seeds, bots, rows, used, zero, sts, decks, wss,
         streams, bool(check), np.int64(param), np.int64(cap))
