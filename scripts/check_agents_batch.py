"""The batched environment against the Python step functions at scale (the suite keeps a sample:
tests/test_agents_batch.py): for each format, EPISODES games played with the same
random tokens in a one-game BatchEnv (default table and cache, and a 64-slot table with no cache) and through
khasino_sim/agents/steps.py; every mask, observation, seat to move and return must agree.

Run: python scripts/check_agents_batch.py [--episodes 20] [--formats khasino,cassino-4p]
"""
import argparse
import time

import numpy as np

from khasino_sim import engine
from khasino_sim.agents import steps
from khasino_sim.agents.batch import BatchEnv
from khasino_sim.agents.observation import observe
from khasino_sim.formats import FORMATS
from khasino_sim.kernels.core.seeding import seeds_for


def compare(env, root, episodes, rng, kind):
    """Steps taken; AssertionError at the first difference."""
    obs, mask = env.reset(seed=root)
    taken = 0
    for ep in range(episodes):
        pos = steps.begin(engine.new_game(env.fmt.name, int(seeds_for(root, ep, 1)[0])))
        while True:
            seat = pos.seat
            st, played = pos.seen_by(seat)
            where = f"{env.fmt.name} root {root} episode {ep} step {taken}"
            assert int(env.to_move[0]) == seat, where
            assert np.array_equal(mask[0], pos.mask()), f"mask differs: {where}"
            assert np.array_equal(obs[0], observe(st, seat, played, pos.prefix)), f"observation differs: {where}"
            t = int(rng.choice(np.flatnonzero(pos.mask())))
            pos = steps.step(pos, t)
            obs, mask, rewards, done = env.step([t])
            taken += 1
            if pos.over:
                assert done[0] and list(rewards[0]) == steps.returns(pos.state, env.fmt, kind), where
                break
            assert not done[0], where
    return taken


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=20)
    ap.add_argument("--formats", default=",".join(sorted(FORMATS)))
    args = ap.parse_args()
    total = 0
    for i, fmt in enumerate(args.formats.split(",")):
        t = time.perf_counter()
        kind = "win" if i % 2 else "points"
        rng = np.random.default_rng(i)
        n = compare(BatchEnv(fmt, n=1, reward=kind), 100 + i, args.episodes, rng, kind)
        n += compare(BatchEnv(fmt, n=1, reward=kind, table_rows=64, cache_words=0), 200 + i, args.episodes, rng,
                     kind)
        total += n
        print(f"{fmt:<18} {2 * args.episodes} games, {n:,} steps agree ({time.perf_counter() - t:.0f} s)",
              flush=True)
    print(f"all agree: {total:,} steps")


if __name__ == "__main__":
    main()
