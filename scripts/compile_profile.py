"""Where a cold compile's time goes: every compiled function of the core, its own seconds and those of what it
compiled, from Numba's compile events, in a process with an empty cache (docs/ENGINE.md, "Compile time").

Run: python scripts/compile_profile.py [--format khasino] [--bots greedy,random] [--top 25] [--signatures]
(a new NUMBA_CACHE_DIR is made unless one is set; with --signatures, the signatures each of the core's small
shared functions was compiled for: more than one or two means constant arguments are making copies of it).
"""
import argparse
import collections
import os
import sys
import tempfile
import time

os.environ.setdefault("NUMBA_CACHE_DIR", tempfile.mkdtemp(prefix="khasino-compile-profile-"))

import numpy as np                      # noqa: E402
from numba.core import event            # noqa: E402

SHARED = [("core.offer", "offer"), ("core.offer", "offer_followups"), ("core.offer", "heuristic_offer"),
          ("core.offer", "card_set_terms"), ("core.offer", "offer_selections_stacked"),
          ("core.sink", "write_record"), ("core.sink", "search_offer")]


class Timer(event.Listener):
    """Inclusive and exclusive seconds per compiled function (nested compiles are the callees')."""

    def __init__(self):
        self.stack = []
        self.incl = collections.defaultdict(float)
        self.excl = collections.defaultdict(float)
        self.count = collections.Counter()

    def on_start(self, ev):
        f = ev.data["dispatcher"].py_func
        self.stack.append([f"{f.__module__.split('kernels.')[-1]}.{f.__name__}", time.perf_counter(), 0.0])

    def on_end(self, ev):
        name, t0, child = self.stack.pop()
        d = time.perf_counter() - t0
        self.incl[name] += d
        self.excl[name] += d - child
        self.count[name] += 1
        if self.stack:
            self.stack[-1][2] += d


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--format", default="khasino")
    ap.add_argument("--bots", default="greedy,random")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--signatures", action="store_true")
    a = ap.parse_args()
    timer = Timer()
    t = time.perf_counter()
    with event.install_listener("numba:compile", timer):
        from khasino_sim.engine import play_games
        from khasino_sim.formats import get_format
        fmt = get_format(a.format)
        bots = a.bots.split(",")
        play_games(fmt.name, np.arange(1, dtype=np.uint64),
                   np.array([[bots[s % len(bots)] for s in range(fmt.seats)]]))
    print(f"{a.format} {a.bots}: {time.perf_counter() - t:.1f} s in all (imports included)")
    print(f"{'own s':>7} {'with callees':>12}  function")
    for name, e in sorted(timer.excl.items(), key=lambda kv: -kv[1])[:a.top]:
        print(f"{e:7.1f} {timer.incl[name]:12.1f}  {name}")
    if a.signatures:
        import importlib
        for module, fn in SHARED:
            d = getattr(importlib.import_module("khasino_sim.kernels." + module), fn)
            print(f"{fn}: {len(d.signatures)} signature(s)")
            for s in d.signatures:
                print("   ", s)


if __name__ == "__main__":
    sys.exit(main())
