"""Card multisets of the double deck (Kasino, N1): two 64-bit words per set, `lo` every card present and `hi`
the cards present twice (so hi is a subset of lo, and a set has one representation: two copies of a card are
interchangeable, P7). Card ids 0..103 in a deal order are card index + 52 * copy; the copy is forgotten once
the card is dealt. Plain integer arithmetic, portable to CUDA."""
from numba import njit

from .bits import popcount


FACE_CARDS = ((1 << 52) - 1) & ~((1 << 40) - 1)     # J, Q, K (card indices 40..51)
SPADE_FACES = (1 << 40) | (1 << 44) | (1 << 48)      # JS, QS, KS


@njit(cache=True, nogil=True, inline="always")
def card_of_id(i):
    """The card index of a double-deck card id (index + 52 * copy)."""
    return i - 52 if i >= 52 else i


@njit(cache=True, nogil=True, inline="always")
def ms_add_card(lo, hi, b):
    """The multiset (lo, hi) with one more copy of the card whose bit is b."""
    if lo & b:
        return lo, hi | b
    return lo | b, hi


@njit(cache=True, nogil=True, inline="always")
def ms_remove_card(lo, hi, b):
    """The multiset (lo, hi) with one copy fewer of the card whose bit is b (present)."""
    if hi & b:
        return lo, hi & ~b
    return lo & ~b, hi


@njit(cache=True, nogil=True, inline="always")
def ms_add(lo, hi, alo, ahi):
    """The sum of two multisets whose counts add to at most 2 per card."""
    return lo | alo, hi | ahi | (lo & alo)


@njit(cache=True, nogil=True, inline="always")
def ms_sub(lo, hi, alo, ahi):
    """The multiset (lo, hi) less (alo, ahi), which it contains."""
    return (hi & ~ahi) | (lo & ~alo), hi & ~alo


@njit(cache=True, nogil=True, inline="always")
def ms_size(lo, hi):
    return popcount(lo) + popcount(hi)
