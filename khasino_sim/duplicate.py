"""Duplicate deals: one deal played once per seat assignment, so every bot holds the same cards and the luck of
the deal cancels. A deal is the game seed of its index under the root seed (`kernels.core.seeding`, the same seeds
`simulate` uses), whatever the assignment; a match format (Cassino, Kasino) plays whole matches.

`units` are what a bot plays: seats, or teams in a team format (every seat of a team played by its bot)."""
import numpy as np

from khasino_sim.kernels.core import layout as L
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
    the match's for the match formats."""
    from khasino_sim.kernels.khasino.game import play_batch
    from khasino_sim.kernels.dispatch import play_matches
    from khasino_sim.kernels.core.seeding import seeds_for
    n_units, unit_of = units(fmt)
    codes = np.array([bot_id(bot_names[unit_of[s]]) for s in range(fmt.seats)], dtype=np.int64)
    seeds = seeds_for(root_seed, start, count)
    bots = np.repeat(codes[None, :], count, axis=0)
    rules = fmt.rules_array()
    with watching(fmt.family):
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


def _policy_deals(fmt, bot_names, root_seed, start, count, batch=128):
    """play_deals for a match with a trained policy (`policy:PATH`, khasino_sim/agents/policy.py): the same
    deals (the game seeds `simulate` uses) played in the batched environment (khasino_sim/agents/batch.py),
    a policy entering its most likely token at each step and the other bots playing in the core as in
    `simulate`. Khasino-family formats (a Cassino deal is a match of rounds, which the environment does not
    play)."""
    from khasino_sim.kernels.core.seeding import seeds_for
    from .agents.batch import BatchEnv
    from .agents.policy import is_policy, load_policy
    from .formats import options_of
    n_units, unit_of = units(fmt)
    specs = [bot_names[unit_of[s]] for s in range(fmt.seats)]
    policies = {s: load_policy(spec, fmt.name) for s, spec in enumerate(specs) if is_policy(spec)}
    env = BatchEnv(fmt.name, n=min(count, batch), options=options_of(fmt) or None,
                   deals=seeds_for(root_seed, start, count),
                   bots=[None if s in policies else spec for s, spec in enumerate(specs)])
    first = [unit_of.index(u) for u in range(n_units)]
    scores = np.zeros((count, n_units), dtype=np.int64)
    winners = np.zeros(count, dtype=np.int64)
    left = count
    obs, mask = env.reset()
    while left:
        seats = env.to_move
        tokens = np.zeros(env.n, dtype=np.int64)
        for s, pol in policies.items():
            here = seats == s
            if here.any():
                tokens[here] = pol.act_batch(obs[here], mask[here])
        obs, mask, rewards, done = env.step(tokens)
        for g in np.flatnonzero(done):
            i = int(env.finished[g])
            if i < count:
                scores[i] = rewards[g, first]
                winners[i] = env.winners[g]
                left -= 1
    return scores, winners


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
    from .agents.policy import is_policy
    deals = _policy_deals if is_policy(a) or is_policy(b) else play_deals
    _, w0 = deals(fmt, [a, b], root_seed, start, count)
    _, w1 = deals(fmt, [b, a], root_seed, start, count)
    pts = np.where(w0 == 0, 2, np.where(w0 < 0, 1, 0)) + np.where(w1 == 1, 2, np.where(w1 < 0, 1, 0))
    return np.bincount(pts, minlength=5)[:5]
