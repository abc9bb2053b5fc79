"""The `heuristic` bot's evaluation (docs/ENGINE.md, "Bots"): one integer score per candidate, from what the
mover sees, folded by the sink as greedy's features are (the highest score; ties by the draw, as random).

Khasino and Cassino: points and cards taken, spades, the card points left exposed on the table (loose or in
builds the opponents own) and the value of the builds the mover's side owns after the move (a build is
usually captured by its owner). Kasino (misère): the fewest points taken (tabbe plus included), and a bonus for
leaving a single card on the table, which the next player must take with a card of its rank if he holds one
(a double tabbe: -10 for the mover, N3/N4). Weights in tenths of a point, tuned by duplicate matches against
greedy (`khasino match heuristic greedy --sprt ...`; figures in docs/ENGINE.md). They are the bot's parameters
(`heuristic:cards=20,...`, khasino_sim/bots.py): `use_weights` puts the deciding bot's in the workspace.
"""
import numpy as np
from numba import njit

from .layout import (
    BOT_HEURISTIC, BOT_ISMCTS, BOT_ROLLOUT, BOT_STRIDE, BOT_TABLE_BASE, BOT_TABLE_ROWS, C_BOTTAB, C_HW, C_RACES,
    H_CARDS, H_EXPOSED, H_KASINO_SETUP, H_OUR_CARDS, H_OUR_POINTS, H_PILE, H_POINTS, H_RACES, H_SPADES,
)


# the defaults, in the order of the H_* slots
DEFAULT_WEIGHTS = {"points": 100, "cards": 14, "spades": 12, "exposed": 45, "our_points": 200, "our_cards": 20,
                   "kasino_setup": 35, "pile": 50, "races": 1, "safety": 1}
_DEFAULTS = np.array(list(DEFAULT_WEIGHTS.values()), dtype=np.int64)
# the search bots' parameters (n, c, policy), kernels/khasino/search.py; policy is a BOT_* code (2: heuristic playouts,
# which beat greedy's by 12 points of share against heuristic in khasino: docs/ENGINE.md "Bots")
SEARCH_DEFAULTS = {"rollout": {"n": 200, "c": 70, "policy": 2}, "ismcts": {"n": 1000, "c": 70, "policy": 2}}
_SEARCH = np.array([list(SEARCH_DEFAULTS["rollout"].values()), list(SEARCH_DEFAULTS["ismcts"].values())],
                   dtype=np.int64)


@njit(cache=True, nogil=True, _nrt=False)
def use_weights(ws, bot):
    """The kind of bot code `bot` (a BOT_* id, or a row of the workspace's bot table), with its parameters
    copied to C_HW: a heuristic's weights, a search bot's (n, c, policy), a user bot's score function address;
    the defaults for a plain code."""
    if bot < BOT_TABLE_BASE:
        if bot == BOT_HEURISTIC:
            for k in range(_DEFAULTS.shape[0]):
                ws[C_HW + k] = _DEFAULTS[k]
        elif bot == BOT_ROLLOUT or bot == BOT_ISMCTS:
            for k in range(_SEARCH.shape[1]):
                ws[C_HW + k] = _SEARCH[bot - BOT_ROLLOUT, k]
        return bot
    row = C_BOTTAB + (bot - BOT_TABLE_BASE) * BOT_STRIDE
    for k in range(BOT_STRIDE - 1):
        ws[C_HW + k] = ws[row + 1 + k]
    return ws[row]


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def khasino_score(ws, points, cards, spades, exposed_m, our_m, our_cards, top_points):
    """The score in thousandths of the weights' units. `exposed_m`, `our_m`: card points left exposed and safe
    in the builds the mover's side owns, in thousandths (kernels/khasino/moves.py, `heuristic_offer`).
    `top_points`: for a capture where opponents use piles (K8), the card points of the played card, now the
    exposed top of the mover's pile, less those of the top it covers. With `races`, cards and spades count
    only while their K13 race is open (no side holds a majority)."""
    rc = ws[C_RACES] if ws[C_HW + H_RACES] else 3
    return (1000 * (ws[C_HW + H_POINTS] * points + ws[C_HW + H_CARDS] * cards * (rc & 1)
                    + ws[C_HW + H_SPADES] * spades * ((rc >> 1) & 1)
                    + ws[C_HW + H_OUR_CARDS] * our_cards - ws[C_HW + H_PILE] * top_points)
            - ws[C_HW + H_EXPOSED] * exposed_m + ws[C_HW + H_OUR_POINTS] * our_m)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def kasino_score(ws, points_taken, table_after):
    return -ws[C_HW + H_POINTS] * points_taken + (ws[C_HW + H_KASINO_SETUP] if table_after == 1 else 0)


# The process's bot table (khasino_sim/bots.py registers the bots with parameters here, one row each); every
# entry point that plays copies it into the workspace it uses (`install_bot_table`), so a bot code means the
# same in every thread of the process.
BOT_TABLE = np.zeros(BOT_TABLE_ROWS * BOT_STRIDE, dtype=np.int64)


def search_iterations():
    """The most iterations any search bot registered in this process's bot table runs (0: none)."""
    n = 0
    for row in range(BOT_TABLE_ROWS):
        if BOT_TABLE[row * BOT_STRIDE] in (BOT_ROLLOUT, BOT_ISMCTS):
            n = max(n, int(BOT_TABLE[row * BOT_STRIDE + 1]))
    return n


def searches(bots):
    """1 if a bot code in `bots` (ids, or rows of this process's bot table) is a search bot's, else 0: the
    `searching` a game kernel is compiled for (kernels/core/specialise.py)."""
    for code in np.unique(np.asarray(bots, dtype=np.int64)):
        kind = code if code < BOT_TABLE_BASE else BOT_TABLE[(code - BOT_TABLE_BASE) * BOT_STRIDE]
        if kind in (BOT_ROLLOUT, BOT_ISMCTS):
            return 1
    return 0


def install_bot_table(ws):
    """Copy the process's bot table into a workspace (before a kernel call that may meet a bot with
    parameters)."""
    ws[C_BOTTAB: C_BOTTAB + BOT_TABLE.shape[0]] = BOT_TABLE
    return ws
