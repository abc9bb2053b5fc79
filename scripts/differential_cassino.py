"""The full differential and invariant counts of Classic Cassino (C1–C8), beyond the default suite's sample.

Compares the compiled core with the reference engine (khasino_sim/reference/cassino.py) on N positions per
format and option set (distinct successor states and keys; default 20,000), on whole rounds and whole
matches for every bot pairing, then checks the core's invariants over many random matches per format and
pairing (every card accounted for after every move, 11 points per round less tied majorities, never a
position without a legal move, one winner with at least 21 per match).
Run: python scripts/differential_cassino.py [--formats cassino,...] [--options default,face_values,...]
     [--positions 20000] [--rounds 40] [--invariant-games 10000]
Option sets: default, face_values, ace_14, sweeps, all (the three together).
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.test_cassino import FORMATS, PAIRINGS, walk, canon, _rows, _seat  # noqa: E402
from khasino_sim import engine  # noqa: E402
from khasino_sim.reference import cassino as ref  # noqa: E402
from khasino_sim.formats import get_format  # noqa: E402
from khasino_sim.kernels.core import layout as L

OPTION_SETS = {"default": {}, "face_values": {"face_values": True}, "ace_14": {"ace_14": True},
               "sweeps": {"sweeps": True}, "all": {"face_values": True, "ace_14": True, "sweeps": True}}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=20_000)
    ap.add_argument("--rounds", type=int, default=40, help="whole rounds and matches per pairing and option set")
    ap.add_argument("--invariant-games", type=int, default=10_000)
    ap.add_argument("--formats", default=",".join(FORMATS))
    ap.add_argument("--options", default=",".join(OPTION_SETS))
    args = ap.parse_args()
    for fmt in args.formats.split(","):
        seats = get_format(fmt).seats
        for oname in args.options.split(","):
            options = OPTION_SETS[oname]
            t = time.time()
            n = walk(fmt, options, args.positions, 200_000)
            print(f"{fmt} [{oname}]: {n:,} positions, same successors and keys as the reference "
                  f"({time.time() - t:.0f} s)", flush=True)
            for bots in PAIRINGS[seats]:
                for seed in range(args.rounds):
                    rnd = 1 + seed % seats
                    want = ref.play_round(fmt, seed, bots, options=options, round=rnd)
                    got = engine.play_round(fmt, seed, bots, options=options, round=rnd)
                    assert got["keys"] == want["keys"] and canon(got["final"]) == canon(want["final"]), \
                        (fmt, oname, bots, seed)
                    want = ref.play_match(fmt, seed, bots, options=options)
                    got = engine.play_match(fmt, seed, bots, options=options)
                    assert got["totals"] == want["totals"] and got["winner"] == want["winner"], (fmt, bots, seed)
                print(f"{fmt} [{oname}] {','.join(bots)}: {args.rounds} whole rounds and {args.rounds} matches "
                      f"identical to the reference", flush=True)
        for code, name, options in ((0, "random", {}), (1, "greedy", {}), (2, "greedy-random", {}),
                                    (0, "random [all options]", OPTION_SETS["all"]),
                                    (1, "greedy [all options]", OPTION_SETS["all"])):
            n = args.invariant_games
            f, rows = _rows(fmt, n, code, options)
            firsts = list(range(f.seats))[:f.n_teams] if not f.teams else [0, 1]
            points = sum(_seat(rows, s, L.SEAT_SCORE) for s in firsts)
            tied = (sum(_seat(rows, s, L.SEAT_MOST_CARDS) for s in firsts) == 0) * 3 + \
                   (sum(_seat(rows, s, L.SEAT_MOST_SPADES) for s in firsts) == 0) * 1
            cards = sum(_seat(rows, s, L.SEAT_CARDS) for s in range(f.seats))
            last = rows[rows[:, L.G_MATCH_WINNER] >= 0]
            win_seat = last[:, L.G_MATCH_WINNER]       # a team in 4p: its first seat is the team's number
            win_total = last[np.arange(len(last)), L.G_SEAT0 + win_seat * L.SEAT_FIELDS + L.SEAT_MATCH_TOTAL]
            sweeps = sum(_seat(rows, s, L.SEAT_SWEEPS) for s in firsts) if not f.teams else \
                sum(_seat(rows, s, L.SEAT_SWEEPS) for s in range(f.seats))
            ok = rows[:, L.G_BAD].sum() == 0 and rows[:, L.G_NO_MOVE].sum() == 0 and \
                rows[:, L.G_OVERFLOW].sum() == 0 and (points - sweeps + tied == 11).all() and (cards == 52).all() and \
                len(last) == n and (win_total >= 21).all()
            print(f"{fmt} {name}: {n:,} matches, {len(rows):,} rounds: invariants "
                  f"{'hold' if ok else 'FAIL'} (11 points per round less tied majorities, 52 cards, no position "
                  f"without a move, one winner with >= 21 per match)", flush=True)
            if not ok:
                sys.exit(1)


if __name__ == "__main__":
    main()
