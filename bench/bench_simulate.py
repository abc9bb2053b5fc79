"""End-to-end `khasino simulate` benchmarks: wall time and peak memory of whole runs (a fresh process each,
warm JIT cache), and the speed-up of 2 workers over 1.

Run: python bench/bench_simulate.py [--games 1000000] [--small 100000] [--scale-games 200000]
"""
import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time


def run(games, workers, out):
    """Wall seconds, the run's own seconds (as its summary reports them: process start-up, loading the
    compiled core and the storage path's first-use imports excluded, `runs.warm_up`) and peak resident memory
    (MiB) of one `khasino simulate` process."""
    cmd = [sys.executable, "-m", "khasino_sim", "simulate", "--games", str(games), "--bots", "greedy,random",
           "--workers", str(workers), "--out", out, "--force", "--quiet"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t = time.perf_counter()
    out_text = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout
    wall = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    inner = float(re.search(r" in ([0-9.]+) s", out_text).group(1))
    return wall, inner, max(peak, before) / 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--small", type=int, default=100_000)
    ap.add_argument("--scale-games", type=int, default=200_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run(1000, 1, os.path.join(tmp, "warm"))                       # make sure the JIT cache is warm
        for n in (args.small, args.games):
            wall, _, mib = run(n, os.cpu_count(), os.path.join(tmp, f"n{n}"))
            print(f"{n:>9,} games, {os.cpu_count()} workers: {wall:6.1f} s end to end "
                  f"({n / wall:,.0f} games/s), peak memory {mib:,.0f} MiB", flush=True)
        w1, i1, _ = run(args.scale_games, 1, os.path.join(tmp, "w1"))
        w2, i2, _ = run(args.scale_games, 2, os.path.join(tmp, "w2"))
        print(f"{args.scale_games:,} games: 1 worker {w1:.1f} s, 2 workers {w2:.1f} s end to end, speed-up "
              f"{w1 / w2:.2f}x; the runs alone (start-up excluded) {i1:.1f} s and {i2:.1f} s, {i1 / i2:.2f}x")


if __name__ == "__main__":
    main()
