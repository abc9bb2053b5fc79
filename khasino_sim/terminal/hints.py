"""Practice hints and the after-game review: what a search bot makes of the seat's moves, found from what the
seat sees. The bot is asked through engine.bot_move, which hands it the seat's observation only (hidden cards
are dealt afresh in every determinisation), so a hint never leaks a hidden card; each legal move's statistics
are then read from the search tree's root (kernels/core/tree.py): how many searches chose it and the mean
reward they brought back (half the chance of winning, half the share of the points, kernels/khasino/search.py,
`rewards`)."""
from dataclasses import dataclass

import numpy as np

HINT_BOT = "ismcts:n=3000"          # the strongest bot at hand, about 0.1 s a decision once compiled
REVIEW_PLAYOUTS = (300, 30, 6000)   # rollout: at least 300 playouts, 30 per move, at most 6,000


@dataclass(frozen=True)
class Estimate:
    """One legal move as the search saw it."""
    move: object
    visits: int
    reward: float         # mean reward, 0..1; None when no search tried it


def _root_stats(moves):
    """(visits, mean reward) of each move at the root of the tree the last search left in this thread's
    workspace."""
    from khasino_sim.kernels.core import layout as L
    from khasino_sim.kernels.core.tree import find_child
    from ..engine import _workspace
    ws = _workspace("game")
    out = []
    for m in moves:
        node = find_child(ws, 0, np.array([m.key], dtype=np.uint64).view(np.int64)[0])
        if node < 0:
            out.append(Estimate(m, 0, None))
            continue
        o = L.A_NODES + L.NODE_FIELDS * int(node)
        visits, wsum = int(ws[o + L.N_VISITS]), int(ws[o + L.N_WSUM])
        out.append(Estimate(m, visits, wsum / visits / 1000 if visits else None))
    return out


def estimate(state, moves, bot, draw_seed):
    """(the move `bot` chooses, every move's Estimate sorted best first) for the seat to move in `state`."""
    from ..engine import bot_move
    chosen = bot_move(state, bot, draw_seed)
    stats = _root_stats(moves)
    stats.sort(key=lambda e: (-(e.visits if bot.startswith("ismcts") else 0), -(e.reward or 0.0)))
    return chosen, stats


def hint_lines(state, moves, bot=HINT_BOT, draw_seed=1, top=4):
    """The hint's lines: the move the bot would play, then its view of the best few."""
    chosen, stats = estimate(state, moves, bot, draw_seed)
    total = sum(e.visits for e in stats) or 1
    number = {m.key: i + 1 for i, m in enumerate(moves)}
    lines = [f"hint ({bot}, searching deals of the cards you cannot see): play {number[chosen.key]}: {chosen.text}"]
    for e in stats[:top]:
        if e.reward is None:
            continue
        lines.append(f"  {number[e.move.key]:>3}  {e.move.text}: chosen by {100 * e.visits / total:.0f}% of the "
                     f"searches, expected reward {e.reward:.3f}")
    lines.append("  (reward: half the chance of winning, half the share of the points; 0 to 1)")
    return lines


def review_playouts(n_moves):
    low, per, high = REVIEW_PLAYOUTS
    return int(min(high, max(low, per * n_moves)))


def judge(state, moves, chosen_key, draw_seed):
    """How the human's move compares with the best by flat Monte Carlo over the seat's view (every move
    played out equally often): (loss, the human's Estimate, the best Estimate); None with one move."""
    if len(moves) < 2:
        return None
    bot = f"rollout:n={review_playouts(len(moves))}"
    _, stats = estimate(state, moves, bot, draw_seed)
    tried = [e for e in stats if e.reward is not None]
    if not tried:
        return None
    best = max(tried, key=lambda e: e.reward)
    mine = next((e for e in stats if e.move.key == chosen_key), None)
    if mine is None or mine.reward is None:
        return None
    return best.reward - mine.reward, mine, best
