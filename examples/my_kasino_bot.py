"""An example user bot for Norwegian misère Kasino (khasino_sim/userbots.py: KASINO_VIEW, KASINO_MOVE): the
fewest points taken wins there, so take little, and leave a single card on the table when it costs nothing
(the next player must clear it with a card of its rank if he has one: a double tabbe, N3/N4). Run it:

    khasino simulate --format kasino-2p --bot-file examples/my_kasino_bot.py --bots my_kasino_bot,greedy

Delete the @njit lines to prototype it in plain Python (same games, slower)."""
from numba import njit

from khasino_sim.userbots import KASINO_MOVE, KASINO_VIEW, KINDS

TABLE_LO, TABLE_HI = KASINO_VIEW["table_lo"], KASINO_VIEW["table_hi"]
POINTS, KIND, VALUE = KASINO_MOVE["points"], KASINO_MOVE["kind"], KASINO_MOVE["value"]
TAKEN_LO, TAKEN_HI = KASINO_MOVE["taken_lo"], KASINO_MOVE["taken_hi"]
TRAIL = KINDS["trail"]


@njit
def popcount(m):
    n = 0
    while m:
        m &= m - 1
        n += 1
    return n


@njit
def score(view, move):
    """Fewest points taken; then leave one card on the table; then crawl (trail) the lowest card."""
    left = (popcount(view[TABLE_LO]) + popcount(view[TABLE_HI])
            - popcount(move[TAKEN_LO]) - popcount(move[TAKEN_HI]))
    s = -100 * move[POINTS]
    if move[KIND] == TRAIL:
        left += 1
        s -= move[VALUE]
    if left == 1:
        s += 30
    return s
