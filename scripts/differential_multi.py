"""The full differential and invariant counts of Khasino (1v1 `khasino` and `durban`, K16 three players, K15 four
in teams), beyond the default suite's sample.

Compares the compiled core with the reference engine on N positions per format (distinct successor states and
keys; default 20,000; in 4p decisions included) and on whole games for every bot pairing, then checks the core's
invariants over many random games per format and pairing (every card accounted for, 11 points in 1v1, 7 in 3p,
11 between the teams in 4p, never a position without a legal move).
Run: python scripts/differential_multi.py [--formats khasino-3p,...] [--positions 20000] [--games 60]
     [--invariant-games 10000]
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.test_differential import THREE, FOUR_PAIRINGS, walk, canon  # noqa: E402
from khasino_sim import engine  # noqa: E402
from khasino_sim.reference import khasino as ref  # noqa: E402
from khasino_sim.formats import get_format  # noqa: E402
from khasino_sim.kernels.core import layout as L

PAIRINGS = {2: [("random",) * 2, ("greedy",) * 2, ("greedy", "random")],
            3: [("random",) * 3, ("greedy",) * 3, ("greedy", "random", "random")], 4: FOUR_PAIRINGS}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=20_000)
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--invariant-games", type=int, default=10_000)
    ap.add_argument("--formats", default=",".join(THREE + ["khasino-4p"]))
    args = ap.parse_args()
    for fmt in args.formats.split(","):
        seats = get_format(fmt).seats
        t = time.time()
        n = walk(fmt, args.positions, 100_000)
        print(f"{fmt}: {n:,} positions, same successors and keys as the reference ({time.time() - t:.0f} s)")
        for bots in PAIRINGS[seats]:
            for seed in range(args.games):
                leader = seed % 3 if seats == 3 else 0
                want = ref.play_game(fmt, seed, bots, leader=leader)
                got = engine.play_game(fmt, seed, bots, leader=leader)
                assert got["keys"] == want["keys"] and canon(got["final"]) == canon(want["final"]), (fmt, bots, seed)
                assert got["winner"] == want["winner"]
            print(f"{fmt} {','.join(bots)}: {args.games} whole games identical to the reference")
        for bots in PAIRINGS[seats]:
            n = args.invariant_games
            rows = engine.play_games(fmt, np.arange(n, dtype=np.uint64) + 7_000_000, np.array([bots] * n),
                                     check=True)
            field = lambda s, f: rows[:, L.G_SEAT0 + s * L.SEAT_FIELDS + f]     # noqa: E731
            # the points handed out: 11 between two seats or two teams (K13), 7 among three seats (P9)
            points = sum(field(s, L.SEAT_TEAM_SCORE) for s in range(seats) if seats < 4 or s in (0, 2))
            total = 7 if seats == 3 else 11
            cards = sum(field(s, L.SEAT_CARDS) for s in range(seats))
            bad = int((rows[:, L.G_BAD] != 0).sum())
            no_move = int((rows[:, L.G_NO_MOVE] != 0).sum())
            turns = 39 if seats == 3 else 40
            ok = bad == 0 and no_move == 0 and (points == total).all() and (cards == 40).all() and \
                (rows[:, L.G_TURNS] == turns).all() and (rows[:, L.G_OVERFLOW] == 0).all() and \
                (rows[:, L.G_WINNER] >= 0).all()
            print(f"{fmt} {','.join(bots)}: {n:,} games, cards lost {bad}, no-move positions {no_move}, "
                  f"points always {total}: {(points == total).all()}, all 40 cards scored: {(cards == 40).all()}, "
                  f"a winner every game: {(rows[:, L.G_WINNER] >= 0).all()} -> {'ok' if ok else 'FAILED'}")
            assert ok

if __name__ == "__main__":
    main()
