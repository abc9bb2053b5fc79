"""splitmix64 streams and the position-hash terms of docs/ENGINE.md, in unsigned 64-bit arithmetic."""
import numpy as np
from numba import njit

from .layout import (MAX_CARDS as _CARDS, MAX_GROUPS as _GROUPS, MAX_PILE as _PILE, MAX_SEATS as _SEATS,
                     MAX_VALUE as _VALUES)


GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_C1 = np.uint64(0xBF58476D1CE4E5B9)
_C2 = np.uint64(0x94D049BB133111EB)
BOT_SALT = np.uint64(0xD1B54A32D192ED03)
_U30, _U27, _U31 = np.uint64(30), np.uint64(27), np.uint64(31)
_U40, _U20 = np.uint64(40), np.uint64(20)


@njit(cache=True, nogil=True, inline="always")
def fmix(z):
    z = (z ^ (z >> _U30)) * _C1
    z = (z ^ (z >> _U27)) * _C2
    return z ^ (z >> _U31)


@njit(cache=True, nogil=True, inline="always")
def next_u64(stream):
    """Advance a splitmix64 stream held in stream[0] (uint64 array) and return the next output."""
    s = stream[0] + GOLDEN
    stream[0] = s
    return fmix(s)


@njit(cache=True, nogil=True, inline="always")
def bot_stream_seed(game_seed):
    return fmix(np.uint64(game_seed) ^ BOT_SALT)


@njit(cache=True, nogil=True, inline="always")
def zterm(tag, a, b, payload):
    """Z(tag, a, b, payload) of docs/ENGINE.md."""
    head = (np.uint64(tag) << _U40) | (np.uint64(a) << _U20) | np.uint64(b)
    return fmix(fmix(head + GOLDEN) ^ np.uint64(payload))


# ---- tabulated hash terms ----------------------------------------------------------------------------------
# Every Z term with a zero payload is a table entry, and the inner fmix of the others (group and pile terms) is
# too, so a term costs one lookup, or one lookup and one fmix. 15 KB in all (fits a GPU's constant memory). The
# z_* readers are not inlined by Numba (a few % of CPU time): a Numba-inlined lookup copies its table into every
# caller, and on the GPU those copies overflowed the 64 KB of constant memory.
def _py_fmix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return z ^ (z >> 31)


def _py_inner(tag, a, b):
    return _py_fmix((((tag << 40) | (a << 20) | b) + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF)


def _table(rows, cols, f):
    return np.array([f(i, j) for i in range(rows) for j in range(cols)], dtype=np.uint64)
ZT_HAND = _table(_SEATS, _CARDS, lambda s, c: _py_inner(1, s, c))            # Z(1, s, c, 0)
ZT_LOOSE = _table(1, _CARDS, lambda _, c: _py_inner(2, 0, c))                # Z(2, 0, c, 0)
ZT_BUILD = _table(_VALUES + 1, _SEATS, lambda v, o: _py_inner(3, v, o))      # Z(3, v, o, 0)
ZT_GROUP = _table(_VALUES + 1, _GROUPS, lambda v, i: _py_inner(4, v, i))     # inner of Z(4, v, i, m)
ZT_PILE = _table(_SEATS, _PILE, lambda s, i: _py_inner(5, s, i))             # inner of Z(5, s, i, c)
ZT_LAST = _table(1, _SEATS, lambda _, s: _py_inner(6, s, 0))                 # Z(6, s, 0, 0)


# (fmix(inner ^ 0) == fmix(inner): the zero-payload tables hold the whole term)
ZT_HAND = np.array([_py_fmix(int(x)) for x in ZT_HAND], dtype=np.uint64)
ZT_LOOSE = np.array([_py_fmix(int(x)) for x in ZT_LOOSE], dtype=np.uint64)
ZT_BUILD = np.array([_py_fmix(int(x)) for x in ZT_BUILD], dtype=np.uint64)
ZT_LAST = np.array([_py_fmix(int(x)) for x in ZT_LAST], dtype=np.uint64)


@njit(cache=True, nogil=True)
def z_hand(s, c):
    return ZT_HAND[s * _CARDS + c]


@njit(cache=True, nogil=True)
def z_loose(c):
    return ZT_LOOSE[c]


@njit(cache=True, nogil=True)
def z_build(v, o):
    return ZT_BUILD[v * _SEATS + o]


@njit(cache=True, nogil=True)
def z_group(v, i, m):
    return fmix(ZT_GROUP[v * _GROUPS + i] ^ np.uint64(m))


@njit(cache=True, nogil=True)
def z_pile(s, i, c):
    return fmix(ZT_PILE[s * _PILE + i] ^ np.uint64(c))


@njit(cache=True, nogil=True)
def z_last(s):
    return ZT_LAST[s]


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def round_seed(match_seed, r):
    """The seed of round r (1-based) of a match: the r-th output of a splitmix64 stream with state match_seed."""
    return fmix(np.uint64(match_seed) + np.uint64(r) * GOLDEN)
