"""Legal-move generation: the entry point the game loop and the Python API call.

`generate` offers every legal move of the seat to play to the sink the caller started (`sink.sink_begin`):
a bot's running best, or a listing window. The shared group layer is `groups`; each family's move rules
sit on it in a module of their own (`khasino.moves` for K3–K11, `cassino.moves` for C3–C6; Kasino to come).
"""
from numba import njit

from .cassino.moves import gen_hand_cassino
from .core.layout import C_FOUND, C_OVERFLOW, C_SEEN, C_SINK, FAMILY_CASSINO, R_FAMILY, SINK_GREEDY
from .core.sink import sink_begin
from .khasino.moves import gen_hand, prepare_position


@njit(cache=True, nogil=True, _nrt=False)
def generate(st, rules, p, ws):
    """Offer every legal move of seat p to the sink; returns the number offered (duplicates by key
    included, P7). ws[C_OVERFLOW] is set if a scratch bound was exceeded (a guard: never in any listed
    format, docs/ENGINE.md "Scratch bounds")."""
    ws[C_OVERFLOW] = 0
    prepare_position(st, rules, p, ws)
    if ws[C_SINK] == SINK_GREEDY:
        gen_moves(st, rules, p, ws, True, False)
        if ws[C_FOUND] == 0:
            gen_moves(st, rules, p, ws, False, True)
    else:
        gen_moves(st, rules, p, ws, True, True)
    return ws[C_SEEN]


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def gen_moves(st, rules, p, ws, captures, others):
    """The family's moves for each hand card: its captures (if `captures`), then the rest (if `others`).

    A greedy sink is handed the captures of every hand card first, and the other moves only if there is no
    capture (`generate`): a capture takes at least one card besides the played one, so its features (points,
    cards, ...) beat those of every build, load, change or trail (0 points, 0 cards). The moves the greedy bot
    can choose, and the order of those it compares, are unchanged (captures and the rest never share a key)."""
    if rules[R_FAMILY] == FAMILY_CASSINO:
        gen_hand_cassino(st, rules, p, ws, captures, others)
    else:
        gen_hand(st, rules, p, ws, captures, others)


@njit(cache=True, nogil=True, _nrt=False)
def list_window(st, rules, p, ws, mode, lo, hi):
    """Generate seat p's moves into a listing workspace: candidates lo .. hi-1 (generation order) are written
    from WS_LIST as records (SINK_LIST) or keys (SINK_KEYS). Returns the total number of candidates."""
    sink_begin(ws, mode, 0, lo, hi)
    return generate(st, rules, p, ws)


@njit(cache=True, nogil=True, _nrt=False)
def prepare_only(st, rules, p, ws):
    """The per-position tables alone (items, subset buckets): for measuring scratch use."""
    ws[C_OVERFLOW] = 0
    prepare_position(st, rules, p, ws)
