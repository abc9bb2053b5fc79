"""An example user bot (khasino_sim/userbots.py): score each legal move from the seat's view; the highest
score is played. Run it:

    khasino simulate --bot-file examples/my_bot.py --bots my_bot,greedy --games 10000

Delete the @njit line to prototype it in plain Python (same games, slower)."""
from numba import njit

from khasino_sim.userbots import MOVE, KINDS

POINTS, CARDS, SPADES, TABLE_POINTS, KIND = (MOVE["points"], MOVE["cards"], MOVE["spades"], MOVE["table_points"],
                                             MOVE["kind"])
TRAIL, BUILD = KINDS["trail"], KINDS["build"]


@njit
def score(view, move):
    """Card points first, then cards and spades taken; leave few points on the table; a build beats a trail."""
    s = 100 * move[POINTS] + 12 * move[CARDS] + 10 * move[SPADES] - 30 * move[TABLE_POINTS]
    if move[KIND] == BUILD:
        s += 20
    elif move[KIND] == TRAIL:
        s -= 5
    return s
