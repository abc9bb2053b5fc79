"""`khasino bench --compile`: what each part of the compiled core costs to compile, from an empty cache.

A run compiles only its family's game and the search if one of its bots searches (kernels/core/specialise.py),
so the cold cost is per (format family, bots). Each part is timed in a fresh process with `NUMBA_CACHE_DIR`
pointing at a new empty folder (nothing cached, nothing shared with another part), then again in a second
process on that cache: the load a later run pays. Both include the package's import; the first game played is
the whole of the work, so the times are the compile (or load) plus milliseconds. A CI job tracks these as it
tracks games/s (docs/BENCH.md).
"""
import json
import os
import subprocess
import sys
import tempfile
import time

# (format, bots): a family each, and the search compiled in or not
DEFAULT_PARTS = (("khasino", ("greedy", "random")), ("khasino", ("ismcts", "random")),
                 ("cassino", ("greedy", "random")), ("cassino", ("ismcts", "random")),
                 ("kasino-4p", ("greedy", "random")))

_CHILD = """
import json, sys, time
t = time.perf_counter()
import numpy as np
from khasino_sim.engine import play_games
from khasino_sim.formats import get_format
imported = time.perf_counter() - t
fmt = get_format(sys.argv[1])
bots = sys.argv[2].split(",")
row = [bots[s % len(bots)] for s in range(fmt.seats)]
t = time.perf_counter()
play_games(fmt.name, np.arange(1, dtype=np.uint64), np.array([row]))
print(json.dumps({"import_s": imported, "first_game_s": time.perf_counter() - t}))
"""


def _child(fmt, bots, cache):
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", _CHILD, fmt, ",".join(bots)], env=env, capture_output=True,
                       text=True)
    wall = time.perf_counter() - t
    if p.returncode != 0:
        tail = (p.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"{fmt} {','.join(bots)}: the timing process failed: {tail}")
    out = json.loads(p.stdout.strip().splitlines()[-1])
    out["process_s"] = wall
    return out


def part_times(fmt, bots):
    """Cold and cached times of one part: {format, bots, cold_s, cached_s, import_s} (seconds of the first
    game in a process, compile or load included; `import_s` the package's import)."""
    with tempfile.TemporaryDirectory(prefix="khasino-compile-") as cache:
        cold = _child(fmt, bots, cache)
        warm = _child(fmt, bots, cache)
    return {"format": fmt, "bots": list(bots), "cold_s": round(cold["first_game_s"], 2),
            "cached_s": round(warm["first_game_s"], 2), "import_s": round(warm["import_s"], 2),
            "cold_process_s": round(cold["process_s"], 2)}


def run(parts=DEFAULT_PARTS, progress=None):
    """Time every part in turn (minutes on a 2-core machine: each cold part compiles from nothing)."""
    report = {"kind": "compile", "numba": _numba_version(), "python": sys.version.split()[0], "parts": []}
    for fmt, bots in parts:
        cell = part_times(fmt, bots)
        report["parts"].append(cell)
        if progress:
            progress(format_part(cell))
    return report


def format_part(c):
    return (f"{c['format']:<12} {','.join(c['bots']):<16} cold {c['cold_s']:6.1f} s   cached {c['cached_s']:5.2f} s"
            f"   (process {c['cold_process_s']:.1f} s, import {c['import_s']:.1f} s)")


def _numba_version():
    import numba
    return numba.__version__
