"""Games with trained policies among their bots (`policy:PATH`, khasino_sim/agents/policy.py), played in the
batched environment (khasino_sim/agents/batch.py) into the statistics rows the game loop writes (kernels/core/
layout.py, G_*), so `simulate`, `tournament` and `match` take a policy as they take a compiled bot.

Each game is the one the game loop plays from its seed: the same deal, the same leader and Stay rules, the same
bot streams for the compiled bots of its other seats; a policy enters its most likely token at each step. The
environment writes every counter of the row (turns, move kinds, pile cards taken, Stays, the second deal's
leader...), checked equal to the game loop's where no seat is a policy (tests/test_agents_games.py). Games with no
policy seat are played by the game loop itself."""
import numpy as np

from khasino_sim.kernels.core import layout as L

from ..bots import canonical, is_policy
from .policy import load_policy

BATCH = 128         # games stepped together


def play_rows(fmt, seeds, seat_bots, single=False, batch=BATCH, ws=None, series=1):
    """The statistics rows of the games (matches, in a Cassino or match format: one row per round, match by
    match, with `single` one round each) dealt from `seeds`, seat s of game i played by seat_bots[i][s] (a bot
    spec; policies among them): the rows `play_batch` (`play_matches`) returns for compiled bots. With `series`
    K > 1 (P10) the games are series of K matches from the first, the same bots playing a whole series."""
    from khasino_sim.kernels.dispatch import play_matches
    from khasino_sim.kernels.khasino.game import play_batch
    from ..engine import bot_id
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    specs = np.array([[canonical(b) for b in row] for row in seat_bots], dtype=object).reshape(len(seeds), -1)
    agent = np.vectorize(is_policy, otypes=[bool])(specs) if specs.size else np.zeros(specs.shape, bool)
    has_policy = agent.any(axis=1)
    if len(seeds) % series or (has_policy.reshape(-1, series) != has_policy[::series, None]).any():
        raise ValueError(f"{len(seeds)} games are not whole series of {series}, each with the same bots")
    with_policy = np.flatnonzero(has_policy)
    plain = np.flatnonzero(~has_policy)
    matches = fmt.matches
    parts = []
    if plain.size:
        ids = np.vectorize(bot_id, otypes=[np.int64])(specs[plain])
        if matches:
            rows = play_matches(fmt.rules_array(), seeds[plain], ids, ws=ws, single=single)
            rows[:, L.G_MATCH] = plain[rows[:, L.G_MATCH]]
        else:
            rows = play_batch(fmt.rules_array(), seeds[plain], ids, ws=ws, series=series)
        parts.append(rows)
    if with_policy.size:
        if series > 1:
            rows = _series_rows(fmt, seeds[with_policy], specs[with_policy], series, batch)
        else:
            rows = _policy_rows(fmt, seeds[with_policy], specs[with_policy], single, batch)
        rows[:, L.G_MATCH] = with_policy[rows[:, L.G_MATCH]] if matches else 0
        parts.append(rows)
    rows = np.concatenate(parts) if parts else np.zeros((0, L.STATS_SIZE), dtype=np.int64)
    if matches:         # match by match, rounds in order
        return rows[np.argsort(rows[:, L.G_MATCH], kind="stable")]
    out = np.empty_like(rows)
    out[np.concatenate([plain, with_policy])] = rows
    return out


def _policy_rows(fmt, seeds, specs, single, batch, leaders=None):
    """The rows of games each with a policy seat, played in the batched environment, episode by episode (rounds
    in order; G_MATCH: the episode's index in `seeds`); `leaders`: the seat leading each game (a Khasino-family
    game; 0 without)."""
    from .batch import BatchEnv
    names = sorted({s for s in specs.ravel() if is_policy(s)})
    policies = [load_policy(p, fmt.name) for p in names]
    which = np.full(specs.shape, -1, dtype=np.int64)
    for k, p in enumerate(names):
        which[specs == p] = k
    deal_bots = [[None if is_policy(b) else b for b in row] for row in specs]
    count = len(seeds)
    env = BatchEnv(fmt, n=min(count, batch), deals=seeds, deal_leaders=leaders, deal_bots=deal_bots,
                   bots=deal_bots[0], limit=count,
                   episode=("single" if single else "match") if fmt.matches else "game", copy=False)
    got = []
    obs, mask = env.reset()
    left = count
    while left:
        live = np.flatnonzero(env.active)
        seat = env.to_move[live]
        pol = which[env.episode_of[live], seat]
        tokens = np.zeros(env.n, dtype=np.int64)
        for k, p in enumerate(policies):
            here = live[pol == k]
            if here.size:
                tokens[here] = p.act_batch(obs[here], mask[here])
        obs, mask, _, done = env.step(tokens)
        for g in np.flatnonzero(env.ready):
            got.append(env.rows[g].copy())
        left -= int(done.sum())
    rows = np.array(got, dtype=np.int64).reshape(-1, L.STATS_SIZE)
    return rows[np.argsort(rows[:, L.G_MATCH], kind="stable")]


def _series_rows(fmt, seeds, specs, series, batch):
    """_policy_rows for series of `series` matches (P10: the first led by seat 0, each later one by the previous
    one's loser, `series_leader`, as the game loop's series lead them): the j-th matches of all the series
    stepped together, each led as the row of its series' (j-1)-th says."""
    from khasino_sim.kernels.khasino.state import series_leader
    rules = fmt.rules_array()
    rows = np.zeros((len(seeds), L.STATS_SIZE), dtype=np.int64)
    firsts = np.arange(0, len(seeds), series)
    leaders = np.zeros(len(firsts), dtype=np.int64)
    for j in range(series):
        idx = firsts + j
        if j:
            leaders = np.array([series_leader(rules, rows[i - 1]) for i in idx], dtype=np.int64)
        rows[idx] = _policy_rows(fmt, seeds[idx], specs[idx], False, batch, leaders)
    rows[:, L.G_MATCH] = np.arange(len(seeds))
    return rows
