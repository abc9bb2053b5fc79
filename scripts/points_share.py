"""Points share and win rate of bot A against bot B in a 1v1 format on duplicate deals: the same N deals played
with A in seat 0 and again with A in seat 1 (issue 10's strength target is a share of the points).
Run: python scripts/points_share.py [--games 20000] [--bots heuristic,greedy] khasino durban ..."""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from khasino_sim.engine import play_games  # noqa: E402
from khasino_sim.kernels import layout as L  # noqa: E402


def share(fmt, a, b, n):
    seeds = np.arange(n, dtype=np.uint64)
    points = {a: 0, b: 0}
    wins = {a: 0, b: 0}
    for order in ((a, b), (b, a)):
        rows = play_games(fmt, seeds, np.array([order] * n))
        for seat in range(2):
            points[order[seat]] += int(rows[:, L.G_SEAT0 + seat * L.SEAT_FIELDS + L.SEAT_SCORE].sum())
            wins[order[seat]] += int((rows[:, L.G_WINNER] == seat).sum())
    return points[a] / (points[a] + points[b]), wins[a] / (2 * n)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("formats", nargs="+")
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--bots", default="heuristic,greedy")
    args = ap.parse_args()
    a, b = args.bots.split(",")
    for fmt in args.formats:
        t = time.time()
        pts, win = share(fmt, a, b, args.games)
        print(f"{fmt}: {a} v {b} on {args.games:,} duplicate deals: points share {pts:.4f}, win rate {win:.4f} "
              f"({time.time() - t:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
