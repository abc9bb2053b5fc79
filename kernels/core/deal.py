"""Shuffles: the deck of a game or round (Fisher-Yates from the end on the deal stream, docs/rules/project.md
"Conventions"), and the unseen cards a search bot redeals for one determinisation."""
import numpy as np
from numba import njit

from .layout import A_CARDS
from .rng import next_u64


@njit(cache=True, nogil=True, _nrt=False)
def shuffle_deck(deck, n, game_seed, stream):
    """Fisher-Yates shuffle of deck[:n] = 0..n-1 from the deal stream (docs/ENGINE.md); `stream` is a
    one-element uint64 scratch array."""
    stream[0] = np.uint64(game_seed)
    for i in range(n):
        deck[i] = i
    for i in range(n - 1, 0, -1):
        j = np.int64(next_u64(stream) % np.uint64(i + 1))
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def draw_below(stream, k):
    """A draw in 0 .. k-1 from the bot stream."""
    return np.int64(next_u64(stream) % np.uint64(k))


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def shuffle_unseen(ws, n, stream):
    """Fisher-Yates over the n unseen cards at A_CARDS, by draws from the bot stream."""
    for i in range(n - 1, 0, -1):
        j = draw_below(stream, i + 1)
        t = ws[A_CARDS + i]
        ws[A_CARDS + i] = ws[A_CARDS + j]
        ws[A_CARDS + j] = t
