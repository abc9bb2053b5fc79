"""Points share and win rate of bot A against bot B in a 1v1 format on duplicate deals: the same N deals played
with A in seat 0 and again with A in seat 1 (issue 10's strength target is a share of the points).
Run: python scripts/points_share.py [--games 20000] [--bots heuristic,greedy] [--threads 2] khasino durban ...
(bot specs as everywhere: `--bots ismcts:n=500,heuristic`). The interval is over deals (each deal's two games
together), normal approximation."""
import argparse
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from khasino_sim.engine import play_games  # noqa: E402
from khasino_sim.kernels.core import layout as L


def deal_results(fmt, a, b, seeds):
    """Per deal: A's points, both bots' points and A's wins over the deal's two games (A in seat 0, then 1)."""
    mine = np.zeros(len(seeds))
    total = np.zeros(len(seeds))
    wins = np.zeros(len(seeds))
    for a_seat, order in ((0, (a, b)), (1, (b, a))):
        rows = play_games(fmt, seeds, np.array([order] * len(seeds)))
        pts = [rows[:, L.G_SEAT0 + s * L.SEAT_FIELDS + L.SEAT_SCORE] for s in range(2)]
        mine += pts[a_seat]
        total += pts[0] + pts[1]
        wins += rows[:, L.G_WINNER] == a_seat
    return mine, total, wins


def share(fmt, a, b, n, threads=1):
    """(A's points share, its 95% interval over deals, A's win rate)."""
    from khasino_sim.bots import code
    code(a), code(b)                                # registered before the threads start
    seeds = np.arange(n, dtype=np.uint64)
    chunks = np.array_split(seeds, max(1, threads * 4))
    with ThreadPoolExecutor(threads) as pool:       # the compiled games release the GIL
        parts = list(pool.map(lambda c: deal_results(fmt, a, b, c), chunks))
    mine, total, wins = (np.concatenate([p[i] for p in parts]) for i in range(3))
    ratio = mine.sum() / total.sum()
    resid = mine - ratio * total                    # delta method for a ratio of sums over deals
    half = 1.96 * np.sqrt((resid ** 2).sum()) / total.sum()
    return ratio, (ratio - half, ratio + half), wins.sum() / (2 * n)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("formats", nargs="+")
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--bots", default="heuristic,greedy")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    from khasino_sim.bots import split_list
    a, b = split_list(args.bots)
    for fmt in args.formats:
        t = time.time()
        pts, (lo, hi), win = share(fmt, a, b, args.games, args.threads)
        print(f"{fmt}: {a} v {b} on {args.games:,} duplicate deals: points share {pts:.4f} [{lo:.4f}, {hi:.4f}], "
              f"win rate {win:.4f} ({time.time() - t:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
