"""Agent steps per second on one thread: the batched environment (khasino_sim/agents/batch.py) beside the core's
own game loop and the Python (PettingZoo) environment, measured in the same run, JIT compile time excluded.

The agents pick a uniformly random allowed token in every game at once (numpy, no Python per game); `env
steps/s` counts the time inside `step` (the environment's own cost, its arrays returned uncopied, `copy=False`),
`loop st/s` the whole loop, the agent's numpy choice included (about 50 us a call at n = 64). The core's figure is `engine.play_games` with the random bot on every seat:
its games/s and its decisions/s (card plays, the G_TURNS of its rows). `dec/step`: the core's decisions/s over
the environment's agent steps/s (the issue's measure: a token per step); `dec/move`: over its moves/s (a move
is several tokens, each with its own mask and observation). `vs bot`: one agent seat, the others the core's
random bot played inside the step.

Run: python bench/bench_agents.py [--formats khasino,khasino-4p,cassino,kasino-2p] [--n 64] [--seconds 5]
"""
import argparse
import time

import numpy as np

from khasino_sim import engine
from khasino_sim.agents.batch import BatchEnv
from khasino_sim.kernels.core import layout as L


def random_tokens(mask, rng):
    """A uniformly random allowed token per row of `mask`, vectorised."""
    return np.argmax(rng.random(mask.shape) * mask, axis=1)


def env_rate(fmt, n, seconds, bots=None, seed=0):
    """(agent steps/s, steps/s of the whole loop, moves/s, games/s) of a BatchEnv of n games stepped with
    random tokens. The rates but the loop's count the time inside `step` only: the environment's own cost, as
    the core's figure is its game loop's; the loop's adds the random agent's choice (numpy over the n masks)."""
    env = BatchEnv(fmt, n=n, seed=seed, bots=bots, copy=False)
    rng = np.random.default_rng(seed)
    obs, mask = env.reset()
    for _ in range(50):                     # warm: compiled or loaded from the cache
        obs, mask, rewards, done = env.step(random_tokens(mask, rng))
    steps = moves = games = 0
    inside = 0.0
    clock = time.perf_counter
    t = clock()
    while clock() - t < seconds:
        tokens = random_tokens(mask, rng)
        moves += int((tokens == 155).sum())
        t0 = clock()
        obs, mask, rewards, done = env.step(tokens)
        inside += clock() - t0
        steps += n
        games += int(done.sum())
    dt = clock() - t
    return steps / inside, steps / dt, moves / inside, games / inside


def core_rate(fmt, games, seed=0):
    """(games/s, decisions/s) of the core's game loop, random bots on every seat."""
    f = engine.get_format(fmt)
    seeds = np.arange(seed, seed + games, dtype=np.uint64)
    engine.play_games(fmt, seeds[:20], ["random"] * f.seats)
    t = time.perf_counter()
    rows = engine.play_games(fmt, seeds, ["random"] * f.seats)
    dt = time.perf_counter() - t
    return games / dt, int(rows[:, L.G_TURNS].sum()) / dt


def python_rate(fmt, seconds, seed=0):
    """Agent steps/s of the PettingZoo environment (khasino_sim.agents.env), random masked tokens."""
    from khasino_sim.agents import env as make_env
    e = make_env(format=fmt)
    rng = np.random.default_rng(seed)
    steps = 0
    e.reset(seed=seed)
    t = time.perf_counter()
    while time.perf_counter() - t < seconds:
        for agent in e.agent_iter():
            obs, reward, term, trunc, info = e.last()
            e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
            if time.perf_counter() - t >= seconds:
                break
        else:
            e.reset()
    return steps / (time.perf_counter() - t)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--formats", default="khasino,khasino-4p,cassino,kasino-2p")
    ap.add_argument("--n", type=int, default=64, help="games stepped together")
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--core-games", type=int, default=20000)
    args = ap.parse_args()
    print(f"{'format':<12} {'env steps/s':>12} {'loop st/s':>10} {'moves/s':>9} {'games/s':>8} "
          f"{'vs bot st/s':>12} {'core games/s':>13} {'core dec/s':>11} {'dec/step':>9} {'dec/move':>9} "
          f"{'python st/s':>12} {'env/python':>10}")
    for fmt in args.formats.split(","):
        steps, loop, moves, games = env_rate(fmt, args.n, args.seconds)
        seats = engine.get_format(fmt).seats
        vs_bot = env_rate(fmt, args.n, args.seconds, bots=[None] + ["random"] * (seats - 1))[0]
        core_games, core_dec = core_rate(fmt, args.core_games)
        py = python_rate(fmt, min(args.seconds, 5.0))
        print(f"{fmt:<12} {steps:>12,.0f} {loop:>10,.0f} {moves:>9,.0f} {games:>8,.1f} {vs_bot:>12,.0f} "
              f"{core_games:>13,.0f} {core_dec:>11,.0f} {core_dec / steps:>8.2f}x {core_dec / moves:>8.2f}x "
              f"{py:>12,.0f} {steps / py:>9.0f}x", flush=True)

if __name__ == "__main__":
    main()
