"""Duplicate deals: one deal played once per seat assignment, so every bot holds the same cards and the luck of
the deal cancels. A deal is the game seed of its index under the root seed (`kernels.core.seeding`, the same seeds
`simulate` uses), whatever the assignment; a match format (Cassino, Kasino) plays whole matches.

`units` are what a bot plays: seats, or teams in a team format (every seat of a team played by its bot)."""
import numpy as np

from khasino_sim.kernels.core import layout as L
from .bots import is_policy
from .engine import bot_id
from .formats import get_format
from .userbots import watching


def units(fmt):
    """The number of units (teams in a team format, else seats) and each seat's unit."""
    if fmt.teams:
        return fmt.n_teams, [fmt.team_of(s) for s in range(fmt.seats)]
    return fmt.seats, list(range(fmt.seats))


def play_deals(fmt, bot_names, root_seed, start, count, workspace=None):
    """Deals start .. start+count-1 played with bot_names[u] on every seat of unit u. Returns (count, units)
    outcomes per unit and deal: the unit's score (its team's), and the winning unit per deal (-1: a tie),
    the match's for the match formats. A trained policy among the bots plays in the batched environment
    (khasino_sim/agents/games.py): the same deals, the same rows."""
    from khasino_sim.kernels.khasino.game import play_batch
    from khasino_sim.kernels.dispatch import play_matches
    from khasino_sim.kernels.core.seeding import seeds_for
    n_units, unit_of = units(fmt)
    codes = np.array([-1 if is_policy(bot_names[unit_of[s]]) else bot_id(bot_names[unit_of[s]])
                      for s in range(fmt.seats)], dtype=np.int64)
    seeds = seeds_for(root_seed, start, count)
    bots = np.repeat(codes[None, :], count, axis=0)
    rules = fmt.rules_array()
    specs = [bot_names[unit_of[s]] for s in range(fmt.seats)]
    with watching(fmt.family):
        if any(is_policy(b) for b in specs):
            from .agents.games import play_rows
            rows = play_rows(fmt, seeds, [specs] * count, ws=workspace)
        else:
            rows = (play_matches if fmt.matches else play_batch)(rules, seeds, bots, ws=workspace)
    if fmt.matches:
        last = np.r_[np.flatnonzero(np.diff(rows[:, L.G_MATCH])), len(rows) - 1]
        rows = rows[last]
        field, winner = L.SEAT_MATCH_TOTAL, rows[:, L.G_MATCH_WINNER]
    else:
        field, winner = L.SEAT_SCORE, rows[:, L.G_WINNER]
    first = [unit_of.index(u) for u in range(n_units)]
    scores = np.stack([rows[:, L.G_SEAT0 + s * L.SEAT_FIELDS + field] for s in first], axis=1)
    return scores, winner.astype(np.int64)


def pair_counts(fmt_name, a, b, root_seed, start, count, options=None):
    """Duplicate pairs start .. start+count-1 of bot a against bot b in a two-unit format (two seats, or two
    teams): each deal played with a in unit 0 and again with a in unit 1. Returns the pentanomial counts of
    a's pair score (0, 1/2, 1, 3/2, 2 points: a win 1, a tie 1/2)."""
    from .formats import with_options
    fmt = get_format(fmt_name)
    if options:
        fmt = with_options(fmt, options)
    n_units, _ = units(fmt)
    if n_units != 2:
        raise ValueError(f"{fmt.name} has {n_units} seats or teams; a duplicate match needs two")
    _, w0 = play_deals(fmt, [a, b], root_seed, start, count)
    _, w1 = play_deals(fmt, [b, a], root_seed, start, count)
    pts = np.where(w0 == 0, 2, np.where(w0 < 0, 1, 0)) + np.where(w1 == 1, 2, np.where(w1 < 0, 1, 0))
    return np.bincount(pts, minlength=5)[:5]
