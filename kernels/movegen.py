"""Legal-move generation: the entry point the game loop and the Python API call.

`generate` offers every legal move of the seat to play to the sink the caller started (`sink.sink_begin`):
a bot's running best, or a listing window. The shared group layer is `groups`; each family's move rules
sit on it in a module of their own (`khasino.moves` for K3–K11, `cassino.moves` for C3–C6; Kasino's game is
compiled apart). The family is a compile-time argument (kernels/core/specialise.py): a Khasino game compiles
Khasino's move rules only.
"""
import numpy as np
from numba import literally, njit
from numba.extending import overload

from .cassino.moves import gen_hand_cassino
from .core.layout import C_FOUND, C_OVERFLOW, C_SEEN, C_SINK, FAMILY_CASSINO, SINK_GREEDY
from .core.sink import listing_begin
from .core.specialise import JIT_OPTIONS, call, literal_value, one_deck_family
from .khasino.moves import gen_hand, prepare_position



def generate(family, st, rules, p, ws):
    """Offer every legal move of seat p to the sink; returns the number offered (duplicates by key
    included, P7). ws[C_OVERFLOW] is set if a scratch bound was exceeded (a guard: never in any listed
    format, docs/ENGINE.md "Scratch bounds"). Compiled per family (`family` a literal, the overload below): a
    Khasino game compiles Khasino's move rules only.

    For each hand card its captures, then the rest (builds, loads, changes, trail). A greedy sink is handed the
    captures of every hand card first, and the other moves only if there is no capture: a capture takes at
    least one card besides the played one, so its features (points, cards, ...) beat those of every build,
    load, change or trail (0 points, 0 cards). The moves the greedy bot can choose, and the order of those it
    compares, are unchanged (captures and the rest never share a key)."""


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def first_pass(st, rules, p, ws):
    """Prepare the position; the (captures, others) flags of the first pass over the hand: a greedy sink is
    handed the captures alone first."""
    ws[C_OVERFLOW] = 0
    prepare_position(st, rules, p, ws)
    return True, ws[C_SINK] != SINK_GREEDY


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def next_pass(ws, captures, others):
    """The flags of the pass after (captures, others): the other moves after a greedy sink's captures pass that
    found none, else none (False, False)."""
    if captures and not others and ws[C_FOUND] == 0:
        return False, True
    return False, False


# Each family's generator is one inlined copy of its move rules, run a second time for a greedy sink that met no
# capture: a copy per flag pair (three) cost 40 of the core's compile seconds, two copies (the captures alone
# for a greedy sink's first pass) 17 (docs/ENGINE.md, "Compile time").
def _generate_khasino(family, st, rules, p, ws):
    captures, others = first_pass(st, rules, p, ws)
    while captures or others:
        gen_hand(st, rules, p, ws, captures, others)
        captures, others = next_pass(ws, captures, others)
    return ws[C_SEEN]


def _generate_cassino(family, st, rules, p, ws):
    captures, others = first_pass(st, rules, p, ws)
    while captures or others:
        gen_hand_cassino(st, rules, p, ws, captures, others)
        captures, others = next_pass(ws, captures, others)
    return ws[C_SEEN]


@overload(generate, prefer_literal=True, jit_options=JIT_OPTIONS)
def _generate(family, st, rules, p, ws):
    value = literal_value(family)
    if value is None:
        return lambda family, st, rules, p, ws: literally(family)
    return _generate_cassino if value == FAMILY_CASSINO else _generate_khasino


@njit(cache=True, nogil=True, _nrt=False)
def list_moves(family, st, rules, p, ws, mode, lo, hi):
    """Generate seat p's moves into a listing workspace. SINK_LIST: candidates lo .. hi-1 (generation order)
    are written from WS_LIST as records, and the generation stops at the first candidate past them
    (ws[C_STOP] = 1: there are more). SINK_KEYS: the distinct keys of the class key mod 2**hi == lo are
    counted in the key table from WS_LIST (C_KCOUNT, C_KZERO), the class halved as it fills (C_LIST_HI its
    final bits). Other modes (SINK_USER, SINK_SELECT: kernels/batch_env.py) as the game path's. Returns the
    number of candidates offered (duplicates by key included)."""
    listing_begin(ws, mode, lo, hi)
    return generate(family, st, rules, p, ws)


def list_window(st, rules, p, ws, mode, lo, hi):
    """`list_moves` for the ruleset's family (Khasino or Cassino), called from the host."""
    return call(list_moves, (one_deck_family(rules),), st, rules, np.int64(p), ws, np.int64(mode),
                np.int64(lo), np.int64(hi))


@njit(cache=True, nogil=True, _nrt=False)
def prepare_only(st, rules, p, ws):
    """The per-position tables alone (items, subset buckets): for measuring scratch use."""
    ws[C_OVERFLOW] = 0
    prepare_position(st, rules, p, ws)
