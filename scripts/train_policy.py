"""Train a linear softmax policy (khasino_sim/agents/policy.py) against `random` with REINFORCE, numpy only
(docs/AGENTS.md, "A trained policy"). The games run in the batched environment (khasino_sim/agents/batch.py):
half of them with the policy at seat 0, half at seat 1, the other seat played by the opponent bot in the core
(as `khasino match` plays it); the return is +1/-1 for a win/loss of the policy's seat; at each game's end the
gradient of log pi over the policy's tokens times (return - a running baseline) is applied (the other games of
the batch go on with the updated weights).

    python3 scripts/train_policy.py --games 3000 --out results/policy-khasino.npz
    khasino match policy:results/policy-khasino.npz random

Run in the docs, not in the test suite."""
import argparse
import time
from pathlib import Path

import numpy as np

from khasino_sim import engine
from khasino_sim.agents.batch import BatchEnv
from khasino_sim.agents.policy import LinearPolicy


def sample(policy, obs, mask, rng):
    """A token per row drawn from the masked softmax (the Gumbel-max trick)."""
    z = obs @ policy.W.T + policy.b + rng.gumbel(size=mask.shape)
    return np.argmax(np.where(mask.astype(bool), z, -np.inf), axis=1)


def envs(fmt, n, seed, opponent):
    """Two batched environments: the policy at seat 0 against `opponent`, and at seat 1."""
    seats = engine._format(fmt).seats
    out = []
    for s in range(2):
        bots = [opponent] * seats
        bots[s] = None
        out.append((s, BatchEnv(fmt, n=n, reward="win", seed=seed + s, bots=bots)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--format", default="khasino")
    ap.add_argument("--games", type=int, default=3000)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch", type=int, default=16, help="games stepped together per seat")
    ap.add_argument("--opponent", default="random", help="the bot trained against [default: random]")
    ap.add_argument("--out", default="results/policy-khasino.npz")
    a = ap.parse_args()
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)     # before training, not after
    rng = np.random.default_rng(a.seed)
    policy = LinearPolicy(fmt=a.format)
    baseline, wins, t = 0.0, [], time.time()
    runs = [(s, env, *env.reset(), [[] for _ in range(env.n)]) for s, env in envs(a.format, a.batch, a.seed,
                                                                                   a.opponent)]
    while len(wins) < a.games:
        for i, (seat, env, obs, mask, traces) in enumerate(runs):
            tokens = sample(policy, obs, mask, rng)
            for g in range(env.n):
                traces[g].append((obs[g], mask[g], tokens[g]))
            obs, mask, rewards, done = env.step(tokens)
            runs[i] = (seat, env, obs, mask, traces)
            for g in np.flatnonzero(done):
                ret = float(rewards[g, seat])
                adv = ret - baseline
                baseline += 0.01 * (ret - baseline)
                o = np.stack([x[0] for x in traces[g]])
                grad = -policy.probabilities_batch(o, np.stack([x[1] for x in traces[g]]))
                grad[np.arange(len(o)), [x[2] for x in traces[g]]] += 1.0     # d log pi(token) / d logits
                policy.W += a.lr * adv * grad.T @ o
                policy.b += a.lr * adv * grad.sum(axis=0)
                traces[g] = []
                wins.append(ret > 0)
                if len(wins) % 500 == 0:
                    print(f"games {len(wins):,}: win rate of the last 500 {np.mean(wins[-500:]):.3f} "
                          f"({time.time() - t:.0f} s)", flush=True)
    policy.save(a.out)
    test = []
    for seat, env in envs(a.format, 100, a.seed + 1000, a.opponent):
        obs, mask = env.reset()
        while len(test) < (500 if seat == 0 else 1000):
            obs, mask, rewards, done = env.step(policy.act_batch(obs, mask))
            test += [rewards[g, seat] > 0 for g in np.flatnonzero(done)][: (500 if seat == 0 else 1000) - len(test)]
    print(f"saved {a.out}; the policy's most likely tokens against {a.opponent}, 1,000 new deals: win rate "
          f"{np.mean(test):.3f} ({time.time() - t:.0f} s)")


if __name__ == "__main__":
    main()
