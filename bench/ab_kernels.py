"""A/B two versions of the compiled core in one process, interleaved, so a noisy machine reads as noise.

On a shared 2-core machine the same build measures up to ±30% apart from one minute to the next, which
swamps most changes when two builds are timed one after the other. This script imports two copies of the
`kernels` package (each a folder: `git worktree` or `cp -r kernels /tmp/v1`) side by side, plays the same
seeded batch with each in turn (ABBA order), and reports each one's best games/s and the median and
quartiles of the paired speed ratios B/A. An A/A run reads within about ±2%. It also checks that both
versions give identical statistics rows: a speed change must not change a game.

Run: python bench/ab_kernels.py DIR_A DIR_B [--format khasino] [--bots 0,1] [--games 1500] [--rounds 11]
(bots: 0 random, 1 greedy, the same bot in every seat). The copies are kept in the temporary folder's
`khasino_ab_kernels`, named by a hash of their sources, so each version compiles once (about 2 minutes) and
later runs load it from Numba's cache.
"""
import argparse
import glob
import hashlib
import importlib
import os
import shutil
import sys
import tempfile
import time

import numpy as np


def load(folder, root):
    """Import a copy of the kernels package in `folder` under a name made from its sources' hash."""
    sources = sorted(glob.glob(os.path.join(folder, "**", "*.py"), recursive=True))
    if not sources:
        sys.exit(f"error: no kernel sources in {folder}")
    digest = hashlib.sha256(b"".join(open(f, "rb").read() for f in sources)).hexdigest()[:10]
    name = f"kernels_{digest}"
    if not os.path.exists(os.path.join(root, name)):
        shutil.copytree(folder, os.path.join(root, name), ignore=shutil.ignore_patterns("__pycache__"))
    # the batch player: kernels/dispatch.py since the kernels have a folder per family, kernels/game.py before
    flat = os.path.exists(os.path.join(folder, "game.py"))
    return importlib.import_module(f"{name}.game" if flat else f"{name}.dispatch")


def _player(module, matches):
    """The version's batch player for the format: play_matches where it plays matches and has one, else play_batch."""
    return module.play_matches if matches and hasattr(module, "play_matches") else module.play_batch


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--format", default="khasino")
    ap.add_argument("--bots", default="0,1")
    ap.add_argument("--games", type=int, default=1500)
    ap.add_argument("--rounds", type=int, default=11)
    args = ap.parse_args()
    from khasino_sim.formats import get_format
    fmt = get_format(args.format)
    rules = fmt.rules_array()
    seats = int(rules[0])
    root = os.path.join(tempfile.gettempdir(), "khasino_ab_kernels")   # kept: each copy compiles once
    os.makedirs(root, exist_ok=True)
    sys.path.insert(0, root)
    # matches (Cassino, Kasino) through each version's play_matches, games (Khasino) through its play_batch
    games = [_player(load(args.a, root), fmt.matches), _player(load(args.b, root), fmt.matches)]
    seeds = np.arange(args.games, dtype=np.uint64)
    for bot in (int(x) for x in args.bots.split(",")):
        table = np.full((args.games, seats), bot, np.int64)
        same = np.array_equal(games[0](rules, seeds, table), games[1](rules, seeds, table))
        times = [[], []]
        for r in range(args.rounds):
            for i in ((0, 1) if r % 2 == 0 else (1, 0)):
                t = time.perf_counter()
                games[i](rules, seeds, table)
                times[i].append(time.perf_counter() - t)
        ratios = sorted(a / b for a, b in zip(*times))
        q = len(ratios)
        print(f"{args.format} bot {bot}: A {args.games / min(times[0]):,.0f} g/s, B {args.games / min(times[1]):,.0f} "
              f"g/s; B/A median {ratios[q // 2]:.3f} [{ratios[q // 4]:.3f}, {ratios[3 * q // 4]:.3f}]; "
              f"identical rows: {same}", flush=True)


if __name__ == "__main__":
    main()
