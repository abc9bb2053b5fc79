"""The full differential counts of the rule options (docs/BALANCE.md "The variants"), beyond the default suite's
sample: for every variant of tests/test_option_differential.py, N positions compared with the reference engine
(distinct successor states and keys) and whole games for every bot pairing; then random option combinations
drawn from each format's options.

Run: python scripts/differential_options.py [--positions 2000] [--games 20] [--random 20]
"""
import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.test_option_differential import KHASINO_VARIANTS, KASINO_VARIANTS, walk, same_games, pairings  # noqa: E402
from khasino_sim.formats import get_format, with_options  # noqa: E402

CHOICES = {"trail_restricted": [True, False], "no_trail_own_build_first_deal": [True, False],
           "max_builds_owned": [0, 1, 2, 3], "change_mode": [0, 1], "follow_ups": [True, False],
           "opponent_piles": [True, False], "last_capturer_takes_table": [True, False], "next_deal_leader": [0, 1, 2],
           "compulsory_tabbe": [True, False], "tabbe_value": [1, 5, 7, 50], "alt_deal": [False, True]}
RANDOM_FORMATS = ["khasino", "durban", "khasino-3p", "khasino-3p-stock", "khasino-4p", "kasino-2p", "kasino-3p",
                  "kasino-4p", "kasino-6p"]


def random_variant(rng):
    fmt = rng.choice(RANDOM_FORMATS)
    names = [n for n in get_format(fmt).options if n in CHOICES and (n != "alt_deal" or get_format(fmt).seats == 2)]
    opts = {n: rng.choice(CHOICES[n]) for n in names if rng.random() < 0.6}
    with_options(get_format(fmt), opts)         # every drawn combination is a valid variant
    return fmt, opts


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=2_000, help="Positions per variant.")
    ap.add_argument("--games", type=int, default=20, help="Whole games per variant and pairing.")
    ap.add_argument("--random", type=int, default=20, help="Random option combinations (besides the fixed ones).")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    variants = KHASINO_VARIANTS + KASINO_VARIANTS + [random_variant(rng) for _ in range(args.random)]
    total = 0
    started = time.time()
    for fmt, opts in variants:
        t = time.time()
        n = walk(fmt, opts, args.positions, 200_000)
        same_games(fmt, opts, range(100, 100 + args.games), pairings(fmt))
        total += n
        print(f"{fmt} {opts}: {n:,} positions and {args.games} games x {len(pairings(fmt))} pairings as the "
              f"reference ({time.time() - t:.0f} s)", flush=True)
    print(f"{len(variants)} variants, {total:,} positions, all the same as the reference "
          f"({time.time() - started:.0f} s)")


if __name__ == "__main__":
    main()
