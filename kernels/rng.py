"""splitmix64 streams and the position-hash terms of docs/ENGINE.md, in unsigned 64-bit arithmetic."""
import numpy as np
from numba import njit

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
