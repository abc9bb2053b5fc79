"""Per-card speed of a multiplayer format against 1v1 khasino, on one thread (issue 7's figure: within 2x).

A 3p game plays 39 cards and a 1v1 game 40, so games/s alone would flatter neither. Here each round plays the
same seeded batch of 1v1 games and then of the format, one after the other in one process. The per-card ratio
of the round is (1v1 cards/s) / (format cards/s), with the cards played counted from the games' own
statistics (`G_TURNS`). Timing the two formats in turn, round after round, keeps a noisy machine's drift out
of the paired ratio. JIT compile time is excluded (a warm-up batch first).

Run: python bench/per_card_ratio.py [--formats khasino-3p,khasino-3p-stock,khasino-4p] [--bots random,greedy]
[--games 3000] [--rounds 11]. Prints, per format and bot, the best games/s of each side and the median and
quartiles of the per-card ratios.
"""
import argparse
import time

import numpy as np

from khasino_sim.engine import bot_id, play_games
from khasino_sim.formats import get_format
from khasino_sim.kernels.core.layout import G_TURNS

BASE = "khasino"


def timed(fmt, seeds, table):
    """(seconds, cards played) for one batch."""
    t = time.perf_counter()
    rows = play_games(fmt, seeds, table)
    return time.perf_counter() - t, int(rows[:, G_TURNS].sum())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--formats", default="khasino-3p,khasino-3p-stock,khasino-4p")
    ap.add_argument("--bots", default="random,greedy", help="comma-separated; the same bot in every seat")
    ap.add_argument("--games", type=int, default=3000)
    ap.add_argument("--rounds", type=int, default=11)
    args = ap.parse_args()
    seeds = np.arange(args.games, dtype=np.uint64)
    print(f"{'format':<17} {'bots':<7} {'1v1 games/s':>12} {'games/s':>9} {'per-card ratio, median [quartiles]':>36}")
    for fmt in args.formats.split(","):
        for bot in args.bots.split(","):
            # bot ids, not names: a name table is converted in Python on every call, which would be timed
            tables = {f: np.full((args.games, get_format(f).seats), bot_id(bot), np.int64) for f in (BASE, fmt)}
            for f in (BASE, fmt):
                play_games(f, seeds[:20], tables[f][:20])          # compile, or load from the cache
            best = {BASE: 0.0, fmt: 0.0}
            ratios = []
            for _ in range(args.rounds):
                (tb, cb), (tf, cf) = (timed(f, seeds, tables[f]) for f in (BASE, fmt))
                best[BASE] = max(best[BASE], args.games / tb)
                best[fmt] = max(best[fmt], args.games / tf)
                ratios.append((cb / tb) / (cf / tf))
            med, q1, q3 = np.percentile(ratios, [50, 25, 75])
            print(f"{fmt:<17} {bot:<7} {best[BASE]:>12,.0f} {best[fmt]:>9,.0f} "
                  f"{med:>20.3f} [{q1:.3f}, {q3:.3f}]", flush=True)


if __name__ == "__main__":
    main()
