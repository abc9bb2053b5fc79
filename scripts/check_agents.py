"""The action space and the observation at scale (the suite keeps a sample: tests/test_agents.py): for each
format, the positions of random games until POSITIONS are checked. Bijection: the token sequences the masks
allow, followed from the empty prefix, are as many as the engine's distinct legal moves and name each of them
once. Hidden information: every seat's observation is unchanged when the cards it cannot see (the other hands,
the stock) are dealt afresh.

Run: python scripts/check_agents.py [--positions 1000] [--formats khasino,cassino-4p] [--seed 0]
"""
import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from test_agents import _shuffle_hidden, walk  # noqa: E402  the suite's own checks, run on more positions

from khasino_sim import engine  # noqa: E402
from khasino_sim.agents.observation import observe  # noqa: E402
from khasino_sim.formats import FORMATS  # noqa: E402


def check(fmt, positions, seed):
    """(positions, moves, observations) checked; AssertionError at the first difference."""
    rng = random.Random(seed)
    done_pos = moves = views = 0
    game = 0
    while done_pos < positions:
        state = engine.new_game(fmt, seed * 1_000_003 + game)
        game += 1
        while not state["over"] and done_pos < positions:
            where = f"{fmt} seed {seed} game {game - 1} position {done_pos}"
            seqs_done, seqs = walk(state)
            keys = [seqs[s] for s in seqs_done]
            listed = list(engine.iter_moves(state))
            legal = [m.key for m in listed]
            assert len(seqs_done) == len(set(seqs_done)) == len(set(keys)) == len(legal), where
            assert set(keys) == set(legal), where
            moves += len(legal)
            if not state.get("decision"):
                played = ["5H"]
                for seat in range(len(state["hands"])):
                    other = _shuffle_hidden(state, seat, rng)
                    assert np.array_equal(observe(state, seat, played), observe(other, seat, played)), where
                    views += 1
            done_pos += 1
            state = rng.choice(listed).result
    return done_pos, moves, views, game


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=1000)
    ap.add_argument("--formats", default=",".join(sorted(FORMATS)))
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    total = [0, 0, 0]
    for fmt in args.formats.split(","):
        t = time.perf_counter()
        p, m, v, g = check(fmt, args.positions, args.seed)
        total = [total[0] + p, total[1] + m, total[2] + v]
        print(f"{fmt:<18} {p:,} positions of {g} games: {m:,} moves each reached by one token sequence, "
              f"{v:,} observations blind to hidden cards ({time.perf_counter() - t:.0f} s)", flush=True)
    print(f"all agree: {total[0]:,} positions, {total[1]:,} moves, {total[2]:,} observations")


if __name__ == "__main__":
    main()
