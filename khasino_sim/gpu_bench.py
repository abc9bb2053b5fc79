"""`khasino bench --backend cuda`: games/s on the GPU, per format and pairing, in two figures:

- kernel: seeds in, statistics rows back in host memory (`gpu.play_batch` / `gpu.play_matches`, the launch and
  the copies included, compilation excluded);
- end to end: a whole `simulate --backend cuda` run to Parquet in a temporary folder (seeding, the launches,
  Arrow conversion and zstd Parquet writing), as a user sees it.

With the launch configuration and the kernel's resources (registers, local memory, occupancy) and, for the
same games, the CPU's rate on all of this machine's cores (`simulate --backend cpu`), so the two are measured
in one run. Match formats are played as single rounds, as `khasino bench` plays them on the CPU."""
import os
import tempfile
import time

import numpy as np

from . import gpu
from .formats import get_format
from khasino_sim.kernels.core import layout as L

PAIRINGS = {"greedy-random": ("greedy", "random"), "random-random": ("random", "random"),
            "greedy-greedy": ("greedy", "greedy"), "heuristic-heuristic": ("heuristic", "heuristic")}
DEFAULT_GAMES = 1_000_000
DEFAULT_PAIRINGS = ("greedy-random",)
DEFAULT_FORMATS = ("khasino",)


def _unit_kind(fmt):
    from khasino_sim.kernels.device import UNIT_GAMES, UNIT_KASINO, UNIT_MATCHES
    from .families import family_of
    return UNIT_KASINO if family_of(fmt).compiled_apart else UNIT_MATCHES if fmt.matches else UNIT_GAMES


def _kernel_rate(fmt, bots, games, runner):
    """Seconds for the GPU to play seeds 0..games-1 with `bots` rotating as simulate rotates them."""
    from .engine import bot_id
    from .runs import RunSpec
    spec = RunSpec(format=fmt.name, games=games, bots=tuple(bots), seed=0, rounds=1 if fmt.matches else 0)
    ids = np.array([bot_id(n) for n in spec.bot_names()], dtype=np.int64)
    table = ids[spec.bot_codes(0, games)]
    seeds = np.arange(games, dtype=np.uint64)
    rules = fmt.rules_array()
    play = (lambda s, b: gpu.play_matches(rules, s, b, single=True, runner=runner)) if fmt.matches else \
        (lambda s, b: gpu.play_batch(rules, s, b, runner=runner))
    t = time.perf_counter()
    play(seeds[:64], table[:64])            # compiles the kernel (or loads it) and fills the scratch once
    compile_s = time.perf_counter() - t
    t = time.perf_counter()
    rows = play(seeds, table)
    return time.perf_counter() - t, compile_s, rows


def _run_rate(fmt, bots, games, backend, shard_size, workers=None):
    from .runs import simulate
    with tempfile.TemporaryDirectory(prefix="khasino-gpu-bench-") as tmp:
        t = time.perf_counter()
        simulate(format=fmt.name, games=games, bots=bots, seed=0, out=os.path.join(tmp, "run"), workers=workers,
                 shard_size=shard_size, quiet=True, rounds=1 if fmt.matches else 0, backend=backend)
        return time.perf_counter() - t


def run(formats=DEFAULT_FORMATS, pairings=DEFAULT_PAIRINGS, games=DEFAULT_GAMES, layout=gpu.DEFAULT_LAYOUT,
        threads_per_block=gpu.THREADS_PER_BLOCK, shard_size=None, cpu_games=None, progress=None):
    """Measure every format and pairing; returns the report (a dict). gpu.BackendError without a GPU."""
    runner = gpu.device(layout, threads_per_block)
    shard_size = shard_size or games
    report = {"device": gpu.device_name(), "layout": layout, "threads_per_block": threads_per_block,
              "games": games, "shard_size": shard_size, "cpu_cores": os.cpu_count(), "results": []}
    gpu._RUNNER[:] = [runner]               # the end-to-end runs launch with this configuration
    for name in formats:
        fmt = get_format(name)
        for pairing in pairings:
            bots = PAIRINGS[pairing]
            kernel_s, compile_s, rows = _kernel_rate(fmt, bots, games, runner)
            run_s = _run_rate(fmt, bots, games, "cuda", shard_size)
            n_cpu = cpu_games or max(1_000, games // 50)
            cpu_s = _run_rate(fmt, bots, n_cpu, "cpu", 50_000)
            cell = {"format": name, "pairing": pairing, "compile_seconds": compile_s,
                    "kernel_games_per_s": games / kernel_s, "end_to_end_games_per_s": games / run_s,
                    "cpu_games": n_cpu, "cpu_games_per_s": n_cpu / cpu_s,
                    "turns_per_game": float(rows[:, L.G_TURNS].mean()),
                    "launch": gpu.launch_report(_unit_kind(fmt), layout, threads_per_block, _searching(bots))}
            report["results"].append(cell)
            if progress:
                progress(format_cell(cell))
    return report


def _searching(bots):
    """Whether the pairing's kernel has the search compiled in (kernels/core/specialise.py)."""
    from khasino_sim.kernels.core.heuristic import searches
    from .engine import bot_id
    return searches([bot_id(b) for b in bots])


def format_cell(c):
    launch = c["launch"]
    occ = (f"{launch.get('registers', '?')} regs, {launch.get('local_bytes', '?')} B local, "
           f"occupancy {launch.get('occupancy', '?')}")
    return (f"{c['format']:<16} {c['pairing']:<20} kernel {c['kernel_games_per_s']:>12,.0f} games/s  "
            f"to Parquet {c['end_to_end_games_per_s']:>12,.0f} games/s  CPU (all cores) "
            f"{c['cpu_games_per_s']:>10,.0f} games/s  compile {c['compile_seconds']:.0f} s  [{occ}]")


def header(report):
    return (f"GPU {report['device']} · layout {report['layout']} · "
            f"{report['threads_per_block']} threads per block · "
            f"{report['games']:,} games per cell · shards of {report['shard_size']:,}")
