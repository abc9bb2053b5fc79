"""Train a linear softmax policy (khasino_sim/agents/policy.py) against `random` with REINFORCE, numpy only
(docs/AGENTS.md, "A trained policy"): every game the policy plays one seat (alternating) through the agents'
step functions, the other seat is the `random` bot (as `khasino match` plays it); the return is +1/-1 for a win/loss of the policy's seat;
the gradient of log pi over the policy's tokens times (return - a running baseline).

    python3 scripts/train_policy.py --games 3000 --out results/policy-khasino.npz
    khasino match policy:results/policy-khasino.npz random

Run in the docs, not in the test suite."""
import argparse
import time

import numpy as np

from khasino_sim import engine
from khasino_sim.agents import steps
from khasino_sim.agents.observation import observe
from khasino_sim.agents.policy import LinearPolicy


def play(policy, fmt, seed, seat, rng, opponent="random", learn=True):
    """One game, the policy at `seat`, the `opponent` bot elsewhere (engine.bot_move: the bot as `khasino match`
    plays it): (return of the policy's seat, the policy's (obs, mask, token) steps)."""
    f = engine._format(fmt)
    pos = steps.begin(engine.new_game(fmt, seed))
    trace = []
    while not pos.over:
        if pos.seat == seat:
            obs, mask = observe(pos.state, seat, pos.played, pos.prefix), pos.mask()
            token = policy.act(obs, mask, rng if learn else None)
            trace.append((obs, mask, token))
            pos = steps.step(pos, token)
            continue
        key = engine.bot_move(pos.state, opponent, int(rng.integers(1 << 62))).key
        for t in next(q for q, k in pos.sequences.items() if k == key):
            pos = steps.step(pos, t)
    return steps.returns(pos.state, f, "win")[seat], trace


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--format", default="khasino")
    ap.add_argument("--games", type=int, default=3000)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--opponent", default="random", help="the bot trained against [default: random]")
    ap.add_argument("--out", default="results/policy-khasino.npz")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    policy = LinearPolicy(fmt=a.format)
    baseline, wins, t = 0.0, [], time.time()
    for g in range(a.games):
        seat = g % 2
        ret, trace = play(policy, a.format, 10_000_000 + g, seat, rng, a.opponent)
        adv = ret - baseline
        baseline += 0.01 * (ret - baseline)
        for obs, mask, token in trace:
            p = policy.probabilities(obs, mask)
            grad = -p
            grad[token] += 1.0                      # d log pi(token) / d logits
            policy.W += a.lr * adv * np.outer(grad, obs)
            policy.b += a.lr * adv * grad
        wins.append(ret > 0)
        if (g + 1) % 500 == 0:
            print(f"games {g + 1:,}: win rate of the last 500 {np.mean(wins[-500:]):.3f} "
                  f"({time.time() - t:.0f} s)", flush=True)
    policy.save(a.out)
    test = [play(policy, a.format, 20_000_000 + g, g % 2, rng, a.opponent, learn=False)[0] > 0 for g in range(1000)]
    print(f"saved {a.out}; the policy's most likely tokens against {a.opponent}, 1,000 new deals: win rate "
          f"{np.mean(test):.3f}")


if __name__ == "__main__":
    main()
