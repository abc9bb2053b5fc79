"""Per-game seeds from the run's root seed and the game's global index, bit-identical to numpy's
`SeedSequence(root, spawn_key=(index,)).generate_state(1, numpy.uint64)[0]`, compiled so a million seeds cost
milliseconds. A game is a function of (root seed, index) only: workers, shards and backends cannot change it.
"""
import numpy as np
from numba import njit


INIT_A = np.uint32(0x43B0D7E5)
MULT_A = np.uint32(0x931E8875)
INIT_B = np.uint32(0x8B51F9DD)
MULT_B = np.uint32(0x58F38DED)
MIX_MULT_L = np.uint32(0xCA01F9DD)
MIX_MULT_R = np.uint32(0x4973F715)
POOL = 4
MASK32 = np.uint64(0xFFFFFFFF)


# Arithmetic is done in uint64 and cut to 32 bits after every product (Numba widens uint32 products).
@njit(cache=True, nogil=True, inline="always")
def _hashmix(value, hc):
    value = np.uint64(value) ^ np.uint64(hc[0])
    hc[0] = np.uint32((np.uint64(hc[0]) * np.uint64(MULT_A)) & MASK32)
    value = (value * np.uint64(hc[0])) & MASK32
    return np.uint32(value ^ (value >> np.uint64(16)))


@njit(cache=True, nogil=True, inline="always")
def _mix(x, y):
    r = (np.uint64(MIX_MULT_L) * np.uint64(x) - np.uint64(MIX_MULT_R) * np.uint64(y)) & MASK32
    return np.uint32(r ^ (r >> np.uint64(16)))


@njit(cache=True, nogil=True)
def _words(x, out, at):
    """numpy's _coerce_to_uint32_array for one non-negative integer < 2**64: little-endian 32-bit words."""
    out[at] = np.uint32(x & MASK32)
    hi = x >> np.uint64(32)
    if hi != 0:
        out[at + 1] = np.uint32(hi)
        return 2
    return 1


@njit(cache=True, nogil=True)
def game_seeds(root, start, out):
    """out[i] = seed of game start+i under root seed `root` (both < 2**64)."""
    ent = np.zeros(8, dtype=np.uint32)
    mixer = np.zeros(POOL, dtype=np.uint32)
    hc = np.zeros(1, dtype=np.uint32)
    nr = _words(np.uint64(root), ent, 0)
    for k in range(nr, POOL):
        ent[k] = 0
    base = POOL if nr < POOL else nr           # run entropy padded to the pool size when a spawn key follows
    for i in range(out.shape[0]):
        n = base + _words(np.uint64(start) + np.uint64(i), ent, base)
        hc[0] = INIT_A
        for k in range(POOL):
            mixer[k] = _hashmix(ent[k] if k < n else np.uint32(0), hc)
        for s in range(POOL):
            for d in range(POOL):
                if s != d:
                    mixer[d] = _mix(mixer[d], _hashmix(mixer[s], hc))
        for s in range(POOL, n):
            for d in range(POOL):
                mixer[d] = _mix(mixer[d], _hashmix(ent[s], hc))
        h = np.uint64(INIT_B)
        word = np.uint64(0)
        for k in range(2):
            v = np.uint64(mixer[k]) ^ h
            h = (h * np.uint64(MULT_B)) & MASK32
            v = (v * h) & MASK32
            word |= (v ^ (v >> np.uint64(16))) << np.uint64(32 * k)
        out[i] = word


def seeds_for(root, start, count):
    """Seeds of games start .. start+count-1 (numpy uint64 array)."""
    if not (0 <= root < 2**64 and 0 <= start and start + count <= 2**64):
        raise ValueError("root seed and game indices must be in 0 .. 2**64-1")
    out = np.zeros(count, dtype=np.uint64)
    game_seeds(np.uint64(root), np.uint64(start), out)
    return out
