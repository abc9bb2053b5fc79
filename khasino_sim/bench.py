"""`khasino bench`: a fixed, seeded benchmark of the compiled core for CI, with a machine calibration and a
regression gate that does not fire on unchanged code.

For each format and bot pairing (a *cell*) it plays the same games (seeds 0..games-1, one thread, JIT compile
excluded, timed in CPU time) through the public API `khasino_sim.engine.play_games` `repeats` times, and keeps
every timing (a *sample*), not only the best: the median and its spread are what a comparison needs. A few
of the same games are played through the pure-Python reference for the core/reference ratio.

The samples are taken in rounds, one sample of every cell per round, so that a burst of load from another
job spoils one sample of many cells rather than most samples of one. A calibration workload, independent of
the engine (a small compiled integer kernel, below), is timed between samples: each sample's games/s is
divided by the mean of the two calibration timings that flank it (its *normalised* figure), so a machine
that is slower, or slows down during the run (a throttled CPU, a VM's stolen time), moves both and leaves the
normalised figure put, while a slower engine moves only the games/s.

`compare` (khasino_sim/bench_gate.py, re-exported here) flags a cell only when its median normalised figure
fell by more than a tolerance AND a one-sided Mann-Whitney U test over the two reports' samples says the fall
is statistically clear (p < alpha), as google benchmark's tools/compare.py does. The JSON report's schema is in docs/BENCH.md (SCHEMA_VERSION
below); it also carries pytest-benchmark's `benchmarks` list, so `pytest-benchmark compare` reads it.
"""
import os
import platform
import statistics
import sys
import time
from datetime import datetime, timezone

import numpy as np
from numba import njit

from .bench_gate import (DEFAULT_ALPHA, DEFAULT_TOLERANCE, HEADER, SCHEMA_VERSION, BenchError,  # noqa: F401
                         _cells, _number, cell_key, changes, check_alpha, check_tolerance, compare, format_calibration,
                         format_comparison, format_footer, format_report, format_row, load_report, missing,
                         pytest_benchmark_view, smallest_p, spread, validate, write_report)

# Bot pairings: name -> the bot of every seat (as many seats as the format has).
PAIRINGS = {"random-random": ("random", "random"), "greedy-greedy": ("greedy", "greedy"),
            "heuristic-heuristic": ("heuristic", "heuristic")}
REFERENCE_BOTS = ("random", "greedy")   # the bots the reference engines play (the heuristic is the core's alone)
# The search bots at their defaults, asked for by name (--pairings): each of their decisions plays hundreds of
# games out, so a cell plays games / SEARCH_SLOWDOWN of them (at least 2) after a one-game warm-up.
SEARCH_PAIRINGS = {"rollout-rollout": ("rollout", "rollout"), "ismcts-ismcts": ("ismcts", "ismcts")}
SEARCH_SLOWDOWN = 1000

# The default workload: every registered format x the three pairings above, 9 samples of 2,000 games each
# (about 30-40 s on a 2-core machine once compiled). Many short samples beat a few long ones for a
# comparison: the median of 9 shrugs off a sample a busy machine spoiled, and the U test needs n >= 4 a side.
DEFAULT_GAMES = 2_000         # core games per sample (seeds 0..games-1, the same games every sample)
DEFAULT_REF_GAMES = 5         # reference games per cell (seeds 0..ref_games-1)
DEFAULT_REPEATS = 9           # samples per cell
QUICK = {"games": 1_000, "ref_games": 2, "repeats": 5}
WARMUP_GAMES = 50             # untimed games per cell first: loads (or compiles) the core


CALIBRATION_KERNEL = "splitmix64-popcount-chain/1"
CALIBRATION_STEPS = 1 << 22   # kernel steps per calibration timing (about 20 ms on a current x86 core)
CALIBRATION_REPEATS = 5       # calibration timings before the first cell (the report's headline rate)


def _pick_clock():
    """CPU time of this process where the platform measures it finely (Linux, macOS): time the process was not
    running (other jobs on a shared CI runner) is then not counted against the engine or the calibration.
    Elsewhere, wall-clock time."""
    try:
        if time.get_clock_info("process_time").resolution <= 1e-6:
            return "process_time", time.process_time
    except (AttributeError, ValueError):
        pass
    return "perf_counter", time.perf_counter


CLOCK, _clock = _pick_clock()


# --- calibration ---------------------------------------------------------------------------------------------

@njit(cache=True, nogil=True)
def _calibration_kernel(steps, seed):
    """`steps` splitmix64 steps chained through their outputs, with a popcount of each.

    Each step's increment depends on the previous output's popcount, so the loop is one serial chain: it
    cannot be vectorised or folded, and it exercises what the engine's inner loops do (64-bit multiplies,
    shifts, xors, bit counting, a data-dependent branch). Deliberately not the engine's own code: a change to
    the engine never changes the calibration. Returns a checksum so nothing is optimised away."""
    s = np.uint64(seed)
    acc = np.uint64(0)
    golden = np.uint64(0x9E3779B97F4A7C15)
    m1 = np.uint64(0xBF58476D1CE4E5B9)
    m2 = np.uint64(0x94D049BB133111EB)
    k1 = np.uint64(0x5555555555555555)
    k2 = np.uint64(0x3333333333333333)
    k4 = np.uint64(0x0F0F0F0F0F0F0F0F)
    h01 = np.uint64(0x0101010101010101)
    for _ in range(steps):
        s += golden
        z = s
        z = (z ^ (z >> np.uint64(30))) * m1
        z = (z ^ (z >> np.uint64(27))) * m2
        z = z ^ (z >> np.uint64(31))
        c = z - ((z >> np.uint64(1)) & k1)                     # SWAR popcount
        c = (c & k2) + ((c >> np.uint64(2)) & k2)
        c = (((c + (c >> np.uint64(4))) & k4) * h01) >> np.uint64(56)
        if c & np.uint64(1):
            acc += c
        else:
            acc ^= z
        s += c                                                 # the chain: next state depends on this output
    return acc


def _time_calibration(steps):
    """CPU seconds of one calibration timing of `steps` steps, and the kernel's checksum."""
    t = _clock()
    checksum = _calibration_kernel(steps, 1)
    return max(_clock() - t, 1e-9), checksum


def calibrate(steps=CALIBRATION_STEPS, repeats=CALIBRATION_REPEATS):
    """Time the calibration kernel `repeats` times (after a warm-up call) and return its headline figure:
    million steps per second, the median of the timings (the per-sample calibration is in each cell)."""
    _calibration_kernel(1000, 1)                               # compile, or load from the cache
    timings = [_time_calibration(steps) for _ in range(repeats)]
    seconds = statistics.median(t for t, _ in timings)
    return {"kernel": CALIBRATION_KERNEL, "unit": "Msteps/s", "steps": int(steps), "repeats": int(repeats),
            "clock": CLOCK, "seconds": seconds, "rate": steps / seconds / 1e6, "checksum": int(timings[0][1])}


# --- machine and versions ------------------------------------------------------------------------------------

def _cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.lower().startswith(("model name", "hardware", "cpu model")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    if sys.platform == "darwin":
        import subprocess
        try:
            out = subprocess.run(["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True, text=True,
                                 timeout=5).stdout.strip()
            if out:
                return out
        except (OSError, subprocess.SubprocessError):
            pass
    return platform.processor() or platform.machine() or "unknown"


def machine_info():
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count()
    return {"cpu": _cpu_model(), "cores": os.cpu_count(), "usable_cores": usable, "arch": platform.machine(),
            "platform": platform.platform(), "python": platform.python_version(),
            "python_implementation": platform.python_implementation()}


def versions():
    import numba
    from importlib.metadata import PackageNotFoundError, version
    import khasino_sim
    try:
        pkg = version("khasino-sim")
    except PackageNotFoundError:
        pkg = khasino_sim.__version__
    return {"khasino_sim": pkg, "engine": khasino_sim.ENGINE_VERSION, "numba": numba.__version__,
            "numpy": np.__version__}


# --- the workload --------------------------------------------------------------------------------------------

def _names(given, default, what, known=None):
    """The names asked for (a list or a comma-separated string) among `known` (default: `default`), in order,
    once each; `default` when None."""
    known = default if known is None else known
    if given is None:
        return list(default)
    if isinstance(given, str):
        given = [g.strip() for g in given.split(",") if g.strip()]
    given = list(given)
    if not given:
        raise BenchError(f"give at least one {what}")
    for g in given:
        if g not in known:
            raise BenchError(f"unknown {what} {g!r} (known: {', '.join(known)})")
    return list(dict.fromkeys(given))


def prepare_cell(fmt, pairing, games):
    """The arguments of one cell's timed call, `engine.play_games(fmt, seeds, table)`: seeds 0..n-1 and the bot
    ids of every seat, converted once (a table of names is converted in Python on every call, which is not
    the engine). n is `games`, or games / SEARCH_SLOWDOWN (at least 2) for a search pairing. Shared by
    `khasino bench` and the pytest-benchmark entry (bench/test_bench_games.py): one workload, one harness."""
    from .engine import bot_id
    from .formats import get_format
    pair = PAIRINGS.get(pairing) or SEARCH_PAIRINGS[pairing]
    bots = pair[:1] * get_format(fmt).seats          # the same bot in every seat
    n = games if pairing in PAIRINGS else max(2, games // SEARCH_SLOWDOWN)
    seeds = np.arange(n, dtype=np.uint64)
    table = np.array([[bot_id(b) for b in bots]] * n, dtype=np.int64)
    return bots, seeds, table


def ref_rate(fmt, bots, games):
    """Seconds for the reference engine to play seeds 0..games-1 (one pass; it has nothing to compile)."""
    from .families import family_of
    from .formats import get_format
    play = family_of(get_format(fmt)).reference_round  # Cassino, Kasino: round 1 of the match of each seed
    t = _clock()
    for seed in range(games):
        play(fmt, seed, bots)
    return _clock() - t


def plan(games=DEFAULT_GAMES, ref_games=DEFAULT_REF_GAMES, repeats=DEFAULT_REPEATS, formats=None, pairings=None,
         calibration_steps=CALIBRATION_STEPS, calibration_repeats=CALIBRATION_REPEATS):
    """Check a workload without running it; returns (format names, pairing names). BenchError if bad."""
    from .formats import FORMATS
    for name, value, low in (("games", games, 1), ("ref_games", ref_games, 0), ("repeats", repeats, 1),
                             ("calibration_steps", calibration_steps, 1),
                             ("calibration_repeats", calibration_repeats, 1)):
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < low:
            raise BenchError(f"{name} must be an integer >= {low}, not {value!r}")
    return (_names(formats, sorted(FORMATS), "format"),
            _names(pairings, list(PAIRINGS), "pairing", known=list(PAIRINGS) + list(SEARCH_PAIRINGS)))


def _warm_cell(fmt, pairing, games, ref_games):
    """A cell ready to time: its call's arguments, an untimed warm-up batch played (it loads, or compiles, the
    core), and its reference rate (None without one)."""
    from .engine import play_games
    bots, seeds, table = prepare_cell(fmt, pairing, games)
    warm = WARMUP_GAMES if pairing in PAIRINGS else 1
    t = time.perf_counter()
    play_games(fmt, seeds[:warm], table[:warm])
    warmup = time.perf_counter() - t
    ref = None
    if ref_games and bots[0] in REFERENCE_BOTS:
        ref = ref_games / max(ref_rate(fmt, bots, ref_games), 1e-9)
    return {"format": fmt, "pairing": pairing, "bots": bots, "seeds": seeds, "table": table, "warmup": warmup,
            "ref": ref, "seconds": [], "walls": [], "rates": [], "rows": None}


def _time_sample(cell):
    """One sample of a cell: CPU and wall seconds of engine.play_games on its batch."""
    from .engine import play_games
    w, t = time.perf_counter(), _clock()
    cell["rows"] = play_games(cell["format"], cell["seeds"], cell["table"])
    cell["seconds"].append(max(_clock() - t, 1e-9))
    cell["walls"].append(time.perf_counter() - w)


def _finish_cell(cell, ref_games):
    """The cell's entry in the report (docs/BENCH.md, `results[]`) from its samples."""
    from khasino_sim.kernels.core import layout as L
    n, rows, bots = len(cell["seeds"]), cell["rows"], cell["bots"]
    wins = None
    if hasattr(L, "G_WINNER"):          # games won by each seat: they depend only on the games, a fingerprint
        wins = [int((rows[:, L.G_WINNER] == s).sum()) for s in range(len(bots))]
    rates = [n / sec for sec in cell["seconds"]]
    normalised = [r / c for r, c in zip(rates, cell["rates"])]
    median, iqr, ci = spread(normalised)
    core, ref = statistics.median(rates), cell["ref"]
    return {"format": cell["format"], "pairing": cell["pairing"], "bots": list(bots), "games": int(n),
            "samples": len(rates), "seat_wins": wins, "core_seconds": cell["seconds"],
            "core_wall_seconds": cell["walls"], "calibration_rates": cell["rates"],
            "normalised_samples": normalised, "normalised": median, "normalised_iqr": iqr, "normalised_ci95": ci,
            "core_games_per_s": core, "decisions_per_s": core * float(rows[:, L.G_TURNS].sum()) / n,
            "ref_games": int(ref_games), "ref_games_per_s": ref, "ratio": core / ref if ref else None,
            "warmup_seconds": cell["warmup"]}


def run_bench(games=DEFAULT_GAMES, ref_games=DEFAULT_REF_GAMES, repeats=DEFAULT_REPEATS, formats=None,
              pairings=None, calibration_steps=CALIBRATION_STEPS, calibration_repeats=CALIBRATION_REPEATS,
              progress=None, status=None):
    """Run the benchmark and return the report (a dict, docs/BENCH.md).

    formats / pairings: names (a list or a comma-separated string); default every registered format and
    every pairing in PAIRINGS. ref_games=0 skips the reference (its figures are then null).

    Every cell is warmed up (and its reference timed) first; then the samples are taken in `repeats` rounds,
    one sample of every cell per round, each sample followed by a calibration timing (and the first preceded
    by one): a sample's calibration rate is the mean of the two around it. Interleaving spreads each cell's
    samples over the whole run, so a burst of load from another job spoils one sample of many cells (the
    median shrugs it off) rather than most samples of one.

    `progress`, if given, is called with the lines of the table: the calibration, the header, then, in the
    last round, each cell's line as its last sample lands. `status`, if given, is called with a line as each
    cell is warmed up and as each round ends."""
    fmts, pairs = plan(games, ref_games, repeats, formats, pairings, calibration_steps, calibration_repeats)
    started = time.perf_counter()
    machine = machine_info()
    calibration = calibrate(calibration_steps, calibration_repeats)
    if progress:
        progress(format_calibration(calibration, machine))
    cells = []
    for fmt in fmts:
        for pairing in pairs:
            cells.append(_warm_cell(fmt, pairing, games, ref_games))
            if status and cells[-1]["warmup"] > 5:
                status(f"  {fmt}/{pairing}: compiled in {cells[-1]['warmup']:.0f} s")
    if status:
        status(f"warmed up {len(cells)} cells in {time.perf_counter() - started:.0f} s; timing {repeats} "
               f"rounds of one sample per cell")
    if progress:
        progress(HEADER)
    results = []
    before, _ = _time_calibration(calibration_steps)
    for r in range(repeats):
        for cell in cells:
            _time_sample(cell)
            after, _ = _time_calibration(calibration_steps)
            cell["rates"].append(calibration_steps / ((before + after) / 2) / 1e6)
            before = after
            if r == repeats - 1:
                results.append(_finish_cell(cell, ref_games))
                if progress:
                    progress(format_row(results[-1]))
        if status and r < repeats - 1:
            status(f"round {r + 1}/{repeats} done, {time.perf_counter() - started:.0f} s")
    report = {
        "schema_version": SCHEMA_VERSION,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": machine,
        "versions": versions(),
        "workload": {"games": int(games), "ref_games": int(ref_games), "repeats": int(repeats),
                     "warmup_games": WARMUP_GAMES, "seeds": "0..games-1", "threads": 1, "clock": CLOCK,
                     "calibration_steps": int(calibration_steps), "order": "interleaved",
                     "formats": fmts, "pairings": {p: list({**PAIRINGS, **SEARCH_PAIRINGS}[p]) for p in pairs}},
        "calibration": calibration,
        "normalised_unit": "core games/s per calibration Msteps/s",
        "elapsed_seconds": time.perf_counter() - started,
        "results": results,
    }
    report.update(pytest_benchmark_view(report))
    return report


