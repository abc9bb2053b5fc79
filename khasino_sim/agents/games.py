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


def play_rows(fmt, seeds, seat_bots, single=False, batch=BATCH, ws=None, series=1, leaders=None):
    """The statistics rows of the games (matches, in a Cassino or match format: one row per round, match by
    match, with `single` one round each) dealt from `seeds`, seat s of game i played by seat_bots[i][s] (a bot
    spec; policies among them): the rows `play_batch` (`play_matches`) returns for compiled bots. With `series`
    K > 1 the games are series of K matches (P10, the batch starts a series; `_series_rows`); `leaders`: the seat
    leading each game (a Khasino-family game; 0 without)."""
    if series > 1:
        return _series_rows(fmt, seeds, seat_bots, series, batch, ws)
    from khasino_sim.kernels.dispatch import play_matches
    from khasino_sim.kernels.khasino.game import play_batch
    from ..engine import bot_id
    from .batch import BatchEnv
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    specs = np.array([[canonical(b) for b in row] for row in seat_bots], dtype=object).reshape(len(seeds), -1)
    agent = np.vectorize(is_policy, otypes=[bool])(specs) if specs.size else np.zeros(specs.shape, bool)
    with_policy = np.flatnonzero(agent.any(axis=1))
    plain = np.flatnonzero(~agent.any(axis=1))
    matches = fmt.matches
    parts = []
    if plain.size:
        ids = np.vectorize(bot_id, otypes=[np.int64])(specs[plain])
        if matches:
            rows = play_matches(fmt.rules_array(), seeds[plain], ids, ws=ws, single=single)
            rows[:, L.G_MATCH] = plain[rows[:, L.G_MATCH]]
        else:
            rows = play_batch(fmt.rules_array(), seeds[plain], ids, ws=ws)
        parts.append(rows)
    if with_policy.size:
        names = sorted({s for s in specs[with_policy].ravel() if is_policy(s)})
        policies = [load_policy(p, fmt.name) for p in names]
        which = np.full(specs[with_policy].shape, -1, dtype=np.int64)
        for k, p in enumerate(names):
            which[specs[with_policy] == p] = k
        deal_bots = [[None if is_policy(b) else b for b in row] for row in specs[with_policy]]
        count = len(with_policy)
        env = BatchEnv(fmt, n=min(count, batch), deals=seeds[with_policy],
                       deal_leaders=None if leaders is None else np.asarray(leaders)[with_policy],
                       deal_bots=deal_bots, bots=deal_bots[0], limit=count,
                       episode=("single" if single else "match") if matches else "game", copy=False)
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
        rows = rows[np.argsort(rows[:, L.G_MATCH], kind="stable")]     # episode by episode, rounds in order
        rows[:, L.G_MATCH] = with_policy[rows[:, L.G_MATCH]] if matches else 0
        parts.append(rows)
    rows = np.concatenate(parts) if parts else np.zeros((0, L.STATS_SIZE), dtype=np.int64)
    if matches:         # match by match, rounds in order
        return rows[np.argsort(rows[:, L.G_MATCH], kind="stable")]
    out = np.empty_like(rows)
    out[np.concatenate([plain, with_policy])] = rows
    return out


def _series_rows(fmt, seeds, seat_bots, series, batch, ws):
    """play_rows for series of `series` matches (P10: the first led by seat 0, each later one by the previous
    one's loser, `series_leader`): a series without a policy seat is played by the game loop's own series; the
    series with one (the same bots play a whole series) match by match, the j-th matches of all of them stepped
    together, each led as the rows of their (j-1)-th say."""
    from khasino_sim.kernels.khasino.game import play_batch
    from khasino_sim.kernels.khasino.state import series_leader
    from ..engine import bot_id
    n = len(seeds)
    if n % series:
        raise ValueError(f"{n} games are not whole series of {series}")
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    specs = np.array([[canonical(b) for b in row] for row in seat_bots], dtype=object).reshape(n, -1)
    firsts = np.arange(0, n, series)
    with_policy = np.array([any(is_policy(b) for b in specs[f]) for f in firsts], dtype=bool)
    rules = fmt.rules_array()
    rows = np.zeros((n, L.STATS_SIZE), dtype=np.int64)
    plain = (firsts[~with_policy][:, None] + np.arange(series)[None, :]).ravel()
    if plain.size:
        ids = np.vectorize(bot_id, otypes=[np.int64])(specs[plain])
        rows[plain] = play_batch(rules, seeds[plain], ids, ws=ws, series=series)
    firsts = firsts[with_policy]
    leaders = np.zeros(len(firsts), dtype=np.int64)
    for j in range(series if firsts.size else 0):
        idx = firsts + j
        if j:
            leaders = np.array([series_leader(rules, rows[i - 1]) for i in idx], dtype=np.int64)
        rows[idx] = play_rows(fmt, seeds[idx], specs[idx], batch=batch, ws=ws, leaders=leaders)
    return rows
