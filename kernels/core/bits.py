"""Card-set bit tricks and card tables, portable to CUDA (no intrinsics): popcount, lowest-bit index."""
from numba import njit


# card id c (0..51): rank = c // 4 + 1 (A=1 .. K=13), suit = c % 4 (S, H, D, C)
RANK_CHARS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUIT_CHARS = ("S", "H", "D", "C")
SPADES_MASK = sum(1 << (4 * r) for r in range(13))          # every spade, 52-card deck
TWO_SPADES = 4                                              # 2S
TEN_DIAMONDS = 4 * 9 + 2                                    # 10D
ACES_MASK = 0xF

_M1 = 0x5555555555555555
_M2 = 0x3333333333333333
_M4 = 0x0F0F0F0F0F0F0F0F


@njit(cache=True, nogil=True)
def lowbit_index(m):
    """Index of the lowest set bit of a non-zero mask (< 2**63): the bits below it, counted. LLVM compiles this
    to one `tzcnt` on the CPU (and `popcount` to `popcnt`); no table, so nothing is copied into constant
    memory where it is inlined (the GPU's 64 KB limit, docs/ENGINE.md "GPU backend")."""
    return popcount((m & -m) - 1)


@njit(cache=True, nogil=True, inline="always")
def popcount(m):
    """Number of set bits of a mask (< 2**63)."""
    m = m - ((m >> 1) & _M1)
    m = (m & _M2) + ((m >> 2) & _M2)
    m = (m + (m >> 4)) & _M4
    return (m * 0x0101010101010101 & 0x7FFFFFFFFFFFFFFF) >> 56


@njit(cache=True, nogil=True, inline="always")
def card_value(c):
    """Khasino value of a card id: its rank, A = 1."""
    return (c >> 2) + 1


def card_name(c):
    return RANK_CHARS[c // 4] + SUIT_CHARS[c % 4]


def parse_card(text):
    """Card id of a card in the notation of docs/rules/project.md, "Cards" (`10D`, `AS`); ValueError if it is
    not a card."""
    if not isinstance(text, str) or len(text) < 2:
        raise ValueError(f"not a card: {text!r}")
    rank, suit = text[:-1].upper(), text[-1].upper()
    if rank not in RANK_CHARS or suit not in SUIT_CHARS:
        raise ValueError(f"not a card: {text!r}")
    return 4 * RANK_CHARS.index(rank) + SUIT_CHARS.index(suit)


def mask_cards(m):
    """Card ids of a mask, ascending."""
    out = []
    while m:
        b = m & -m
        out.append(b.bit_length() - 1)
        m ^= b
    return out
