"""Choice while generating: every candidate move is folded into the sink as it is generated, so the game
path holds no move list and no position has a move cap.

- `SINK_RANDOM`: keep the candidate whose key k minimises fmix(k ^ r) for the decision's one draw r
  (docs/ENGINE.md, "Bots"): a uniform draw over distinct moves, since equal keys are the same move (P7).
- `SINK_GREEDY`: keep the candidates maximising (points, cards, spades, -table_points), then as random.
  `prefilter` rejects a main action (and with it all its follow-up variants, which share its features)
  before its key is computed, so most losing candidates cost only their features.
- `SINK_LIST`: write the records of candidates number lo .. hi-1 (in generation order) to the listing chunk
  at WS_LIST; the Python API lists any position by successive windows, in bounded memory. The first candidate
  past the window sets C_STOP and ends the selection enumerations under way (`groups.end_enumerations`), so
  the generator returns at once: a window costs the candidates up to it, not the whole position.
- `SINK_KEYS`: fold the keys of one class (key mod 2**b == r) into a key table (linear probing, at most half
  full), splitting the class (b + 1, the half with bit b clear kept) whenever it would be more than half full:
  `engine.count_moves` counts the distinct moves of any position class by class in fixed memory.

- `SINK_TREE` / `SINK_SELECT` (the search bots, kernels/khasino/search.py): each move folded into a tree node's
  selection (kernels/core/tree.py), or the move with a given key picked out.
- `SINK_USER`: a user bot's function scores each candidate (kernels/core/userbot.py); the highest score, then the
  draw.

A later bot plugs in here: a new mode with its own `prefilter` score and tie-break, fed by the same pass.
The running best is one move record at WS_BEST; `apply_move` plays it.
"""
import numpy as np
from numba import njit

from .groups import end_enumerations
from .layout import (
    CARD_BITS, C_BEST_F, C_BEST_H, C_DRAW, C_FEAT, C_FOUND, C_HW, C_KCOUNT, C_KMASK, C_KZERO, C_LIST_HI, C_LIST_LO,
    C_MKOWNER, C_SEEN, C_SINK, C_STOP, C_TBEST, C_TKEY, M_CARD, M_CARDS, M_FCOUNT, M_FGROUPS, M_GCOUNT, M_GROUPS,
    M_KEY, M_KIND, M_OWNER, M_PILE_USED, M_POINTS, M_SPADES, M_TABLE_POINTS, M_TARGET, M_USED, M_VALUE, REC_SIZE,
    SINK_GREEDY, SINK_HEURISTIC, SINK_KEYS, SINK_LIST, SINK_SELECT, SINK_TREE, SINK_USER, VALUE_SHIFT, WS_BEST,
    WS_CAND, WS_FOLLOW, WS_GBUF, WS_LIST, WS_OBS, WS_SEL2,
)
from .rng import fmix
from .tree import tree_offer
from .userbot import call_score


@njit(cache=True, nogil=True, _nrt=False)
def sink_begin(ws, mode, r, lo, hi):
    """Start a position: the sink mode, the decision's draw r (random/greedy), the listing window [lo, hi)."""
    ws[C_SINK] = mode
    ws[C_DRAW] = np.int64(r)
    ws[C_SEEN] = 0
    ws[C_FOUND] = 0
    ws[C_BEST_H] = 0
    ws[C_BEST_F] = -1
    ws[C_BEST_F + 1] = -1
    ws[C_BEST_F + 2] = -1
    ws[C_BEST_F + 3] = -(1 << 40)
    ws[C_LIST_LO] = lo
    ws[C_LIST_HI] = hi
    ws[C_STOP] = 0


@njit(cache=True, nogil=True, _nrt=False)
def listing_begin(ws, mode, lo, hi):
    """Start a listing pass over a position: `sink_begin`, and for SINK_KEYS an empty key table of the largest
    power of two of slots the workspace holds past WS_LIST (the caller sees that it holds at least 4, so a class
    is never split past 63 bits: two distinct keys of one class of 63 bits already fill half of 4 slots),
    counting the class (lo, hi) (C_LIST_LO/HI)."""
    sink_begin(ws, mode, 0, lo, hi)
    if mode == SINK_KEYS:
        room = ws.shape[0] - WS_LIST
        slots = 1
        while slots * 2 <= room:
            slots *= 2
        ws[C_KMASK] = slots - 1
        ws[C_KCOUNT] = 0
        ws[C_KZERO] = 0
        for i in range(slots):
            ws[WS_LIST + i] = 0


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def prefilter(ws, points, cards, spades, table_points):
    """Record a main action's greedy features; False if the sink can skip it and its follow-up variants."""
    ws[C_FEAT] = points
    ws[C_FEAT + 1] = cards
    ws[C_FEAT + 2] = spades
    ws[C_FEAT + 3] = table_points
    if ws[C_SINK] != SINK_GREEDY and ws[C_SINK] != SINK_HEURISTIC:
        return True
    nt = -table_points
    bp, bc, bs, bt = ws[C_BEST_F], ws[C_BEST_F + 1], ws[C_BEST_F + 2], ws[C_BEST_F + 3]
    if points != bp:
        better = points > bp
    elif cards != bc:
        better = cards > bc
    elif spades != bs:
        better = spades > bs
    elif nt != bt:
        better = nt > bt
    else:
        return True          # equal features: the key decides
    if not better:
        return False
    ws[C_BEST_F] = points
    ws[C_BEST_F + 1] = cards
    ws[C_BEST_F + 2] = spades
    ws[C_BEST_F + 3] = nt
    ws[C_FOUND] = 0          # every earlier candidate loses to this one
    return True


@njit(cache=True, nogil=True, _nrt=False)
def write_record(ws, at, kind, c, value, target, used, ng, nf, key, pile_used):
    """The move being generated (groups at WS_GBUF, follow-ups selected by WS_SEL2 from WS_FOLLOW) as the
    record at ws[at:at+REC_SIZE]."""
    ws[at + M_CARD] = c
    ws[at + M_KIND] = kind
    ws[at + M_VALUE] = value
    ws[at + M_TARGET] = target
    ws[at + M_USED] = used
    ws[at + M_GCOUNT] = ng
    ws[at + M_FCOUNT] = nf
    ws[at + M_KEY] = np.int64(key)
    ws[at + M_POINTS] = ws[C_FEAT]
    ws[at + M_CARDS] = ws[C_FEAT + 1]
    ws[at + M_SPADES] = ws[C_FEAT + 2]
    ws[at + M_TABLE_POINTS] = ws[C_FEAT + 3]
    ws[at + M_PILE_USED] = pile_used
    ws[at + M_OWNER] = ws[C_MKOWNER]
    for i in range(ng):
        ws[at + M_GROUPS + i] = ws[WS_GBUF + i]
    for i in range(nf):
        x = ws[WS_FOLLOW + ws[WS_SEL2 + i]]
        ws[at + M_FGROUPS + i] = x & (CARD_BITS | (15 << VALUE_SHIFT))


@njit(cache=True, nogil=True, _nrt=False)
def search_offer(ws, key, kind, c, value, target, used, ng, nf, pile_used):
    """The search bots' modes (kernels/core/tree.py): SINK_TREE folds the move into a tree node's selection and
    keeps the chosen move's record; SINK_SELECT keeps the first move whose key is ws[C_TKEY]. SINK_USER: a
    user bot's score of the candidate (the highest kept, then the draw as random's)."""
    mode = ws[C_SINK]
    if mode == SINK_USER:           # a user bot: its score of the candidate, then the draw (kernels/core/userbot.py)
        write_record(ws, WS_CAND, kind, c, value, target, used, ng, nf, key, pile_used)
        sc = call_score(ws[C_HW], ws, WS_OBS, WS_CAND)
        h = fmix(key ^ np.uint64(ws[C_DRAW]))
        if ws[C_FOUND] == 0 or sc > ws[C_TBEST] or (sc == ws[C_TBEST] and h < np.uint64(ws[C_BEST_H])):
            ws[C_FOUND] = 1
            ws[C_TBEST] = sc
            ws[C_BEST_H] = np.int64(h)
            for i in range(REC_SIZE):
                ws[WS_BEST + i] = ws[WS_CAND + i]
    elif mode == SINK_SELECT:
        if ws[C_FOUND] == 0 and np.int64(key) == ws[C_TKEY]:
            ws[C_FOUND] = 1
            write_record(ws, WS_BEST, kind, c, value, target, used, ng, nf, key, pile_used)
    elif tree_offer(ws, key):
        write_record(ws, WS_BEST, kind, c, value, target, used, ng, nf, key, pile_used)


@njit(cache=True, nogil=True, _nrt=False)
def key_slot(x, mask):
    """The home slot of key x (int64 bits, not 0) in a key table of mask + 1 slots."""
    return np.int64(fmix(np.uint64(x)) & np.uint64(mask))


@njit(cache=True, nogil=True, _nrt=False)
def split_keys(ws):
    """The key table is more than half full: halve the class (b + 1: the keys with bit b set leave it, for a
    later pass) until it is at most half full. One cyclic pass over the slots from an empty one drops the
    leaving keys and puts each kept key at the first empty slot from its home: as no probe run crosses the
    empty slot the pass starts after, every kept key stays reachable (each moves only back along its own run,
    and a slot is emptied only when the pass reaches it)."""
    mask = ws[C_KMASK]
    while 2 * ws[C_KCOUNT] > mask + 1:
        b = ws[C_LIST_HI]
        bit = np.int64(1) << b      # the class's residue is below 2**b: its bit b is clear
        ws[C_LIST_HI] = b + 1
        s = 0
        while ws[WS_LIST + s] != 0:
            s += 1
        n = 0
        for k in range(1, mask + 2):
            i = (s + k) & mask
            x = ws[WS_LIST + i]
            if x == 0:
                continue
            ws[WS_LIST + i] = 0
            if x & bit:
                continue
            j = key_slot(x, mask)
            while ws[WS_LIST + j] != 0:
                j = (j + 1) & mask
            ws[WS_LIST + j] = x
            n += 1
        ws[C_KCOUNT] = n


@njit(cache=True, nogil=True, _nrt=False)
def count_key(ws, key):
    """SINK_KEYS: add key to the key table if it is in the class counted and not there yet."""
    x = np.int64(key)
    if x & ~(np.int64(-1) << ws[C_LIST_HI]) != ws[C_LIST_LO]:    # the low C_LIST_HI bits (at most 63)
        return
    if x == 0:
        ws[C_KZERO] = 1
        return
    mask = ws[C_KMASK]
    j = key_slot(x, mask)
    while True:
        y = ws[WS_LIST + j]
        if y == x:
            return
        if y == 0:
            break
        j = (j + 1) & mask
    ws[WS_LIST + j] = x
    ws[C_KCOUNT] += 1
    if 2 * ws[C_KCOUNT] > mask + 1:
        split_keys(ws)


@njit(cache=True, nogil=True, _nrt=False)
def list_offer(ws, idx, key, kind, c, value, target, used, ng, nf, pile_used):
    """The listing modes: candidate number idx written to the window (SINK_LIST) or its key counted
    (SINK_KEYS). The first candidate past the window stops the generation (C_STOP, `end_enumerations`)."""
    if ws[C_SINK] == SINK_KEYS:
        count_key(ws, key)
    elif idx >= ws[C_LIST_HI]:
        ws[C_STOP] = 1
        end_enumerations(ws)
    elif idx >= ws[C_LIST_LO]:
        write_record(ws, WS_LIST + (idx - ws[C_LIST_LO]) * REC_SIZE, kind, c, value, target, used, ng, nf, key,
                     pile_used)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def consider(ws, key, kind, c, value, target, used, ng, nf, pile_used):
    """Fold one candidate (its features already given to `prefilter`) into the sink."""
    idx = ws[C_SEEN]
    ws[C_SEEN] = idx + 1
    mode = ws[C_SINK]
    if mode >= SINK_LIST:           # one test on the random and greedy path for every mode past theirs
        if mode >= SINK_TREE:
            search_offer(ws, key, kind, c, value, target, used, ng, nf, pile_used)
        else:
            list_offer(ws, idx, key, kind, c, value, target, used, ng, nf, pile_used)
        return
    h = fmix(key ^ np.uint64(ws[C_DRAW]))
    if ws[C_FOUND] == 0 or h < np.uint64(ws[C_BEST_H]):
        ws[C_BEST_H] = np.int64(h)
        ws[C_FOUND] = 1
        write_record(ws, WS_BEST, kind, c, value, target, used, ng, nf, key, pile_used)
