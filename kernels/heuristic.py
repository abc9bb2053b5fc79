"""The `heuristic` bot's evaluation (docs/ENGINE.md, "Bots"): one integer score per candidate, from what the
mover sees, folded by the sink as greedy's features are (the highest score; ties by the draw, as random).

Khasino and Cassino: points and cards taken, spades, the card points left exposed on the table (loose or in
builds the opponents own) and the value of the builds the mover's side owns after the move (a build is
usually captured by its owner). Kasino (misère): the fewest points taken (tabbe plus included), and a bonus for
leaving a single card on the table, which the next player must take with a card of its rank if he holds one
(a double tabbe: -10 for the mover, N3/N4). Weights in tenths of a point, tuned by duplicate matches against
greedy (`khasino match heuristic greedy --sprt ...`; figures in docs/ENGINE.md)."""
from numba import njit

W_POINTS = 100          # a card point taken
W_CARDS = 14            # a card taken (most cards: 2 points for 21 of 40)
W_SPADES = 12           # a spade taken (most spades: 2 points for 6 of 10)
W_EXPOSED = 45          # a card point left on the table outside the mover's side's builds
W_OUR_POINTS = 55       # a card point in a build the mover's side owns
W_OUR_CARDS = 6         # a card in a build the mover's side owns
W_KASINO_SETUP = 35     # Kasino: leaving exactly one card on the table


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def khasino_score(points, cards, spades, exposed, our_points, our_cards):
    return (W_POINTS * points + W_CARDS * cards + W_SPADES * spades - W_EXPOSED * exposed
            + W_OUR_POINTS * our_points + W_OUR_CARDS * our_cards)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def kasino_score(points_taken, table_after):
    return -W_POINTS * points_taken + (W_KASINO_SETUP if table_after == 1 else 0)
