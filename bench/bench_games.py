"""Games per second on one thread: compiled core vs the pure-Python reference, on the same seeded games.

JIT compile time is excluded (one warm-up batch first). Run: python bench/bench_games.py [--games N]
[--ref-games M]. Prints one line per format and bot pairing, and the ratio core / reference.
"""
import argparse
import time

import numpy as np

from khasino_sim.reference import cassino as ref_cassino, kasino as ref_kasino, khasino as ref
from khasino_sim.engine import bot_id, play_games
from khasino_sim.formats import get_format

PAIRINGS = {"random": ("random", "random"), "greedy": ("greedy", "greedy")}


def core_rate(fmt, bots, n, repeats=3):
    seeds = np.arange(n, dtype=np.uint64)
    table = np.array([[bot_id(b) for b in bots]] * n, dtype=np.int64)   # ids: names would be converted per call
    play_games(fmt, seeds[:50], table[:50])            # compile / load from cache
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        play_games(fmt, seeds, table)
        best = min(best, time.perf_counter() - t)
    return n / best


def ref_rate(fmt, bots, n):
    t = time.perf_counter()
    for seed in range(n):
        if fmt.startswith("cassino"):   # single rounds, as the core plays them (round 1 of each seed)
            ref_cassino.play_round(fmt, ref_cassino.round_seed(seed, 1), bots)
        elif fmt.startswith("kasino"):  # likewise: a 104-card round
            ref_kasino.play_round(fmt, ref_kasino.round_seed(seed, 1), bots)
        else:
            ref.play_game(fmt, seed, bots)
    return n / (time.perf_counter() - t)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--ref-games", type=int, default=200)
    ap.add_argument("--formats", default="khasino,durban", help="comma-separated formats")
    args = ap.parse_args()
    print(f"{'format':<10} {'bots':<7} {'core games/s':>13} {'ref games/s':>12} {'ratio':>8}")
    for fmt in args.formats.split(","):
        seats = get_format(fmt).seats
        for name, bots in PAIRINGS.items():
            bots = bots[:1] * seats
            c = core_rate(fmt, bots, args.games)
            r = ref_rate(fmt, bots, args.ref_games)
            print(f"{fmt:<10} {name:<7} {c:>13,.0f} {r:>12,.1f} {c / r:>7,.0f}x", flush=True)


if __name__ == "__main__":
    main()
