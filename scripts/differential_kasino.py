"""The full differential and invariant counts of Norwegian misère Kasino (N1–N7), beyond the default suite's sample.

Compares the compiled core with the reference engine (khasino_sim/reference/kasino.py) on N positions per format
(distinct successor states and keys; default 20,000), on whole rounds and whole matches for every bot pairing,
then checks the core's invariants over many matches per format and pairing (all 104 cards accounted for after
every move, 43 points per round, tabbe pluses and minuses cancelling, never a position without a legal move,
the lowest total winning each match).
Run: python scripts/differential_kasino.py [--formats kasino-2p,...] [--positions 20000] [--rounds 40]
     [--invariant-games 10000]
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.test_kasino import FORMATS, PAIRINGS, walk, canon, _rows, _seat  # noqa: E402
from khasino_sim import engine  # noqa: E402
from khasino_sim.reference import kasino as ref  # noqa: E402
from khasino_sim.formats import get_format  # noqa: E402
from khasino_sim.kernels.core import layout as L


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=20_000)
    ap.add_argument("--rounds", type=int, default=40, help="whole rounds and matches per pairing")
    ap.add_argument("--invariant-games", type=int, default=10_000)
    ap.add_argument("--formats", default=",".join(FORMATS))
    args = ap.parse_args()
    for fmt in args.formats.split(","):
        f = get_format(fmt)
        t = time.time()
        n = walk(fmt, args.positions, 200_000)
        print(f"{fmt}: {n:,} positions, same successors and keys as the reference ({time.time() - t:.0f} s)",
              flush=True)
        for bots in PAIRINGS[f.seats]:
            for seed in range(args.rounds):
                rnd = 1 + seed % f.seats
                want = ref.play_round(fmt, seed, bots, round=rnd)
                got = engine.play_round(fmt, seed, bots, round=rnd)
                assert got["keys"] == want["keys"] and canon(got["final"]) == canon(want["final"]), (fmt, bots, seed)
                want = ref.play_match(fmt, seed, bots)
                got = engine.play_match(fmt, seed, bots)
                assert got["totals"] == want["totals"] and got["winner"] == want["winner"], (fmt, bots, seed)
            print(f"{fmt} {','.join(bots)}: {args.rounds} whole rounds and {args.rounds} matches identical to the "
                  f"reference", flush=True)
        for code, name in ((0, "random"), (1, "greedy"), (2, "greedy-random")):
            t = time.time()
            f, rows = _rows(fmt, args.invariant_games, code)
            seats = range(f.seats)
            assert rows[:, L.G_BAD].sum() == 0 and rows[:, L.G_NO_MOVE].sum() == 0
            assert rows[:, L.G_OVERFLOW].sum() == 0
            assert (sum(_seat(rows, s, L.SEAT_SCORE) for s in seats) == 43).all()
            assert (sum(_seat(rows, s, L.SEAT_TABBE_PLUS) + _seat(rows, s, L.SEAT_TABBE_MINUS) for s in seats)
                    == 0).all()
            last = rows[rows[:, L.G_ROUND] == f.seats]
            totals = np.stack([_seat(last, s, L.SEAT_MATCH_TOTAL) for s in seats], axis=1)
            team = np.array([f.team_of(s) for s in seats])
            low = totals.min(axis=1)
            want = np.array([(lambda w: w.pop() if len(w) == 1 else -1)(set(team[totals[i] == low[i]]))
                             for i in range(len(last))])
            assert (last[:, L.G_MATCH_WINNER] == want).all()
            tabbes = sum(_seat(rows, s, L.SEAT_TABBES) for s in seats).mean()
            print(f"{fmt} {name}: {args.invariant_games:,} matches ({len(rows):,} rounds, "
                  f"{len(rows) * (104 - f.table_init):,} moves) with every invariant, {tabbes:.2f} tabbes a round, "
                  f"{(last[:, L.G_MATCH_WINNER] < 0).sum()} drawn ({time.time() - t:.0f} s)", flush=True)
    print("all Kasino differential and invariant checks passed")


if __name__ == "__main__":
    main()
