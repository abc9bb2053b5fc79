"""The search bots' tree (kernels/khasino/search.py): nodes in the workspace's search area, a child table keyed by
(parent node, move key), and the sink mode that folds each legal move of a node into the selection.

Nodes are created one per iteration at most, so a search of n iterations holds at most n + 1 (the root): the
area is sized for that (`search_words`), never guessed. A node's statistics are from the point of view of the
seat whose decision led to it (N_SEAT): visits, the sum of that seat's rewards (thousandths), and its
availability (single-observer ISMCTS, Cowling, Powley & Whitehouse 2012: how many iterations offered it)."""
import math
import numpy as np
from numba import njit

from .layout import (
    A_NODES, A_PATH, A_ST, C_BEST_H, C_DRAW, C_FOUND, C_SEEN, C_SINK, C_TBEST, C_TC, C_TCAP, C_THASH, C_TITER,
    C_TKEY, C_TNEW, C_TNODE, C_TSEL, G_SEAT0, NODE_FIELDS, N_AVAIL, N_KEY, N_PARENT, N_SEAT, N_SEEN, N_VISITS,
    N_WSUM, R_SEATS, SEAT_FIELDS, SEL_LEAST, SINK_SELECT, SINK_TREE,
)
from .rng import GOLDEN, fmix
from .teams import first_of_team


def search_words(n):
    """The workspace words after WS_SIZE a search of n iterations needs (n + 1 nodes, a child table of twice as
    many slots rounded up to a power of two)."""
    cap = n + 1
    slots = 1
    while slots < 2 * cap:
        slots *= 2
    return A_NODES - A_ST + NODE_FIELDS * cap + slots


@njit(cache=True, nogil=True, _nrt=False)
def tree_begin(ws, n, sel, c):
    """An empty tree for n iterations (the root, node 0); False if the workspace is too small (a guard)."""
    cap = n + 1
    slots = 1
    while slots < 2 * cap:
        slots *= 2
    if ws.shape[0] < A_NODES + NODE_FIELDS * cap + slots:
        return False
    ws[C_TCAP] = cap
    ws[C_THASH] = slots
    ws[C_TSEL] = sel
    ws[C_TC] = c
    h0 = A_NODES + NODE_FIELDS * cap
    for i in range(slots):
        ws[h0 + i] = 0
    new_node(ws, 0, -1, 0, -1)
    return True


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def slot_of(parent, key):
    return fmix(np.uint64(key) ^ (np.uint64(parent + 1) * GOLDEN))


@njit(cache=True, nogil=True, _nrt=False)
def find_child(ws, parent, key):
    """The child of `parent` reached by the move (or option) `key`, or -1."""
    slots = ws[C_THASH]
    h0 = A_NODES + NODE_FIELDS * ws[C_TCAP]
    i = np.int64(slot_of(parent, key) & np.uint64(slots - 1))
    while ws[h0 + i] != 0:
        c = ws[h0 + i] - 1
        o = A_NODES + NODE_FIELDS * c
        if ws[o + N_PARENT] == parent and ws[o + N_KEY] == np.int64(key):
            return c
        i = (i + 1) & (slots - 1)
    return -1


@njit(cache=True, nogil=True, _nrt=False)
def new_node(ws, index, parent, key, seat):
    """Node `index` (the next free one), child of `parent` by `key`, a decision of `seat`."""
    o = A_NODES + NODE_FIELDS * index
    ws[o + N_KEY] = np.int64(key)
    ws[o + N_PARENT] = parent
    ws[o + N_VISITS] = 0
    ws[o + N_AVAIL] = 0
    ws[o + N_WSUM] = 0
    ws[o + N_SEEN] = -1
    ws[o + N_SEAT] = seat
    if parent >= 0:
        slots = ws[C_THASH]
        h0 = A_NODES + NODE_FIELDS * ws[C_TCAP]
        i = np.int64(slot_of(parent, key) & np.uint64(slots - 1))
        while ws[h0 + i] != 0:
            i = (i + 1) & (slots - 1)
        ws[h0 + i] = index + 1


@njit(cache=True, nogil=True, _nrt=False)
def node_field(ws, node, f):
    return ws[A_NODES + NODE_FIELDS * node + f]


@njit(cache=True, nogil=True, _nrt=False)
def backup(ws, path, depth, reward_at):
    """Count one visit and its reward on nodes path[1..depth] (ws indices from `path`), each from the point of
    view of the seat that chose it."""
    for d in range(1, depth + 1):
        o = A_NODES + NODE_FIELDS * ws[path + d]
        ws[o + N_VISITS] += 1
        ws[o + N_WSUM] += ws[reward_at + ws[o + N_SEAT]]


@njit(cache=True, nogil=True, _nrt=False)
def tree_offer(ws, key):
    """Fold one legal move (key) of node ws[C_TNODE] into the selection; True if it is the new choice.

    An unexpanded move beats every expanded one (the tree grows by one of them, uniformly by the draw); among
    expanded moves, each counted available once per iteration, SEL_UCB takes the highest
    mean + c sqrt(ln(availability) / visits), SEL_LEAST the fewest visits; ties go to the draw."""
    child = find_child(ws, ws[C_TNODE], key)
    h = fmix(np.uint64(key) ^ np.uint64(ws[C_DRAW]))
    new = 1 if child < 0 else 0
    score = 0
    if child >= 0:
        o = A_NODES + NODE_FIELDS * child
        if ws[o + N_SEEN] != ws[C_TITER]:
            ws[o + N_SEEN] = ws[C_TITER]
            ws[o + N_AVAIL] += 1
        v = ws[o + N_VISITS]
        if ws[C_TSEL] == SEL_LEAST:
            score = -v
        else:
            u = ws[o + N_WSUM] / (1000.0 * v) + ws[C_TC] / 100.0 * math.sqrt(math.log(ws[o + N_AVAIL]) / v)
            score = np.int64(u * 4294967296.0)
    if ws[C_FOUND] == 0:
        better = True
    elif new != ws[C_TNEW]:
        better = new > ws[C_TNEW]
    elif new == 0 and score != ws[C_TBEST]:
        better = score > ws[C_TBEST]
    else:
        better = h < np.uint64(ws[C_BEST_H])
    if better:
        ws[C_FOUND] = 1
        ws[C_TNEW] = new
        ws[C_TBEST] = score
        ws[C_BEST_H] = np.int64(h)
        ws[C_TKEY] = np.int64(key)
    return better


@njit(cache=True, nogil=True, _nrt=False)
def root_choice(ws, count, most_visits, r):
    """The root's child to play among nodes 1..count-1: the most visited (ISMCTS), else the best mean (flat
    Monte Carlo); ties by the other criterion, then the lower hash of the key with the draw r. Returns the
    node, -1 if the root has no child."""
    best = -1
    for i in range(1, count):
        o = A_NODES + NODE_FIELDS * i
        if ws[o + N_PARENT] != 0:
            continue
        if best < 0:
            best = i
            continue
        b = A_NODES + NODE_FIELDS * best
        va, vb = ws[o + N_VISITS], ws[b + N_VISITS]
        ma, mb = ws[o + N_WSUM] * vb, ws[b + N_WSUM] * va      # the means compared without a division
        if most_visits:
            better = va > vb or (va == vb and (ma > mb or (ma == mb and tie_lower(ws, o, b, r))))
        else:
            better = ma > mb or (ma == mb and (va > vb or (va == vb and tie_lower(ws, o, b, r))))
        if better:
            best = i
    return best


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def tie_lower(ws, o, b, r):
    return fmix(np.uint64(ws[o + N_KEY]) ^ r) < fmix(np.uint64(ws[b + N_KEY]) ^ r)


@njit(cache=True, nogil=True, _nrt=False)
def fold_begin(ws, node, it, r):
    """Start folding the moves of `node` in iteration `it` (SINK_TREE, the node's draw r)."""
    ws[C_SINK] = SINK_TREE
    ws[C_DRAW] = np.int64(r)
    ws[C_SEEN] = 0
    ws[C_FOUND] = 0
    ws[C_TNODE] = node
    ws[C_TITER] = it


@njit(cache=True, nogil=True, _nrt=False)
def descend(ws, node, depth, nodes, seat):
    """After the moves of `node` were folded: the chosen child, added as node number `nodes` (a decision of
    `seat`) if it was not in the tree yet, recorded on the path at depth + 1. Returns (the child, 1 if it was
    added, the number of nodes now)."""
    key = ws[C_TKEY]
    grown = ws[C_TNEW]
    if grown:
        child = nodes
        new_node(ws, child, node, key, seat)
        nodes += 1
    else:
        child = find_child(ws, node, key)
    ws[A_PATH + depth + 1] = child
    return child, grown, nodes


@njit(cache=True, nogil=True, _nrt=False)
def pick_root(ws, nodes, most_visits, r):
    """The root's child to play (`root_choice`), its key set for SINK_SELECT, which the caller's generation
    pass then picks out. Returns the child."""
    best = root_choice(ws, nodes, most_visits, r)
    ws[C_SINK] = SINK_SELECT
    ws[C_DRAW] = np.int64(r)
    ws[C_SEEN] = 0
    ws[C_FOUND] = 0
    ws[C_TKEY] = ws[A_NODES + NODE_FIELDS * best + N_KEY]
    return best


@njit(cache=True, nogil=True, _nrt=False)
def unit_totals(rules, row, field):
    """The sum of per-seat `field` (a team total every seat of the team holds) over the teams, and their
    number (each seat its own team without teams)."""
    total = 0
    units = 0
    for s in range(rules[R_SEATS]):
        if first_of_team(rules, s):
            total += row[G_SEAT0 + s * SEAT_FIELDS + field]
            units += 1
    return total, units
