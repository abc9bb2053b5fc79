"""Agent steps per second on one thread: the batched environment (khasino_sim/agents/batch.py) beside the core's
own game loop and the Python (PettingZoo) environment, measured in the same run, JIT compile time excluded.

The agents pick a uniformly random allowed token in every game at once (numpy, no Python per game), so the
figure is the environment's own. The core's figure is `engine.play_games` with the random bot on every seat:
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
    """(agent steps/s, moves/s, games/s) of a BatchEnv of n games stepped with random tokens."""
    env = BatchEnv(fmt, n=n, seed=seed, bots=bots)
    rng = np.random.default_rng(seed)
    obs, mask = env.reset()
    for _ in range(50):                     # warm: compiled or loaded from the cache
        obs, mask, rewards, done = env.step(random_tokens(mask, rng))
    steps = moves = games = 0
    t = time.perf_counter()
    while time.perf_counter() - t < seconds:
        tokens = random_tokens(mask, rng)
        moves += int((tokens == 155).sum())
        obs, mask, rewards, done = env.step(tokens)
        steps += n
        games += int(done.sum())
    dt = time.perf_counter() - t
    return steps / dt, moves / dt, games / dt


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
    print(f"{'format':<12} {'env steps/s':>12} {'moves/s':>9} {'games/s':>8} {'vs bot st/s':>12} "
          f"{'core games/s':>13} {'core dec/s':>11} {'dec/step':>9} {'dec/move':>9} {'python st/s':>12} "
          f"{'env/python':>10}")
    for fmt in args.formats.split(","):
        steps, moves, games = env_rate(fmt, args.n, args.seconds)
        seats = engine.get_format(fmt).seats
        vs_bot, _, _ = env_rate(fmt, args.n, args.seconds, bots=[None] + ["random"] * (seats - 1))
        core_games, core_dec = core_rate(fmt, args.core_games)
        py = python_rate(fmt, min(args.seconds, 5.0))
        print(f"{fmt:<12} {steps:>12,.0f} {moves:>9,.0f} {games:>8,.1f} {vs_bot:>12,.0f} {core_games:>13,.0f} "
              f"{core_dec:>11,.0f} {core_dec / steps:>8.2f}x {core_dec / moves:>8.2f}x {py:>12,.0f} "
              f"{steps / py:>9.0f}x", flush=True)


if __name__ == "__main__":
    main()
