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

`compare` flags a cell only when its median normalised figure fell by more than a tolerance AND a one-sided
Mann-Whitney U test over the two reports' samples says the fall is statistically clear (p < alpha), as
google benchmark's tools/compare.py does. The JSON report's schema is in docs/BENCH.md (SCHEMA_VERSION
below); it also carries pytest-benchmark's `benchmarks` list, so `pytest-benchmark compare` reads it.
"""
import json
import math
import os
import platform
import statistics
import sys
import time
from datetime import datetime, timezone

import numpy as np
from numba import njit

SCHEMA_VERSION = 2

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

DEFAULT_TOLERANCE = 0.10      # a regression is a fall of the median normalised figure beyond this ...
DEFAULT_ALPHA = 0.05          # ... that the one-sided Mann-Whitney U test finds at this significance

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


class BenchError(ValueError):
    """Bad input to the benchmark: an unknown format or pairing, a bad option, a malformed report."""


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


def spread(samples):
    """Median, interquartile range [q1, q3] and a distribution-free 95% confidence interval of the median
    (order statistics, scipy.stats.quantile_test; None below 6 samples, where none reaches 95%)."""
    x = np.asarray(samples, dtype=float)
    q1, med, q3 = np.percentile(x, [25, 50, 75])
    ci = None
    if len(x) >= 6:
        from scipy.stats import quantile_test
        c = quantile_test(x, q=med, p=0.5).confidence_interval(0.95)
        ci = [float(c.low), float(c.high)]
    return float(med), [float(q1), float(q3)], ci


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


def pytest_benchmark_view(report):
    """The keys that make the report a pytest-benchmark JSON file too (`pytest-benchmark compare A.json
    B.json` lists it): one entry per cell whose `stats` are pytest-benchmark's own (pytest_benchmark.stats)
    over the samples in CPU seconds per game; `extra_info` carries the normalised median. Empty without
    pytest-benchmark installed (the gate itself never reads these keys)."""
    try:
        from pytest_benchmark.stats import Stats
        from pytest_benchmark import __version__ as pb_version
    except ImportError:
        return {"benchmarks": []}
    benchmarks = []
    for c in report["results"]:
        stats = Stats()
        for sec in c["core_seconds"]:
            stats.update(sec / c["games"])
        key = cell_key(c)
        benchmarks.append({
            "group": "khasino bench", "name": f"core[{key}]", "fullname": f"khasino bench::core[{key}]",
            "params": {"format": c["format"], "pairing": c["pairing"]}, "param": key,
            "extra_info": {"games": c["games"], "unit": "CPU seconds per game", "normalised": c["normalised"],
                           "normalised_iqr": c["normalised_iqr"]},
            "options": {"timer": f"time.{report['workload']['clock']}", "min_rounds": len(c["core_seconds"]),
                        "warmup": True, "disable_gc": False, "max_time": None, "min_time": None},
            "stats": {**stats.as_dict(), "data": list(stats.data), "iterations": 1}})
    return {"benchmarks": benchmarks, "datetime": report["created"], "version": pb_version,
            "machine_info": {"node": platform.node(), "processor": report["machine"]["cpu"],
                             "machine": report["machine"]["arch"],
                             "python_implementation": report["machine"]["python_implementation"],
                             "python_version": report["machine"]["python"], "cpu": report["machine"]},
            "commit_info": {}}


# --- reading reports and comparing ---------------------------------------------------------------------------

def _number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def validate(report, name="report"):
    """Check that `report` is a benchmark report this version reads; BenchError (one line) if not."""
    if not isinstance(report, dict):
        raise BenchError(f"{name}: not a benchmark report (expected a JSON object)")
    version = report.get("schema_version")
    if version == 1:
        raise BenchError(f"{name}: schema_version 1 is an older `khasino bench` report (one best-of figure per "
                         f"cell, no samples to test); this version reads {SCHEMA_VERSION}: remake it with "
                         "`khasino bench --json` (docs/BENCH.md)")
    if version != SCHEMA_VERSION:
        raise BenchError(f"{name}: schema_version {version!r} is not {SCHEMA_VERSION} "
                         "(not a `khasino bench --json` report of this version)")
    cells = report.get("results")
    if not isinstance(cells, list):
        raise BenchError(f"{name}: 'results' must be a list")
    seen = set()
    for i, c in enumerate(cells):
        if not isinstance(c, dict) or not isinstance(c.get("format"), str) or not isinstance(c.get("pairing"), str):
            raise BenchError(f"{name}: results[{i}] needs a 'format' and a 'pairing'")
        key = cell_key(c)
        if key in seen:
            raise BenchError(f"{name}: {key} appears twice")
        seen.add(key)
        samples = c.get("normalised_samples")
        if not isinstance(samples, list) or not samples or not all(_number(x) and x > 0 for x in samples):
            raise BenchError(f"{name}: {key} has no positive 'normalised_samples'")
        if not _number(c.get("normalised")) or c["normalised"] <= 0:
            raise BenchError(f"{name}: {key} has no positive 'normalised' figure")
    cal = report.get("calibration")
    if not isinstance(cal, dict) or not _number(cal.get("rate")) or cal["rate"] <= 0:
        raise BenchError(f"{name}: 'calibration' needs a positive 'rate'")
    return report


def load_report(path):
    """Read and validate a report file; BenchError (one line) if it is unreadable or malformed."""
    if os.path.isdir(path):
        raise BenchError(f"{path} is a folder, not a `khasino bench --json` report file")
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise BenchError(f"cannot read {path}: {e.strerror or e}")
    except UnicodeDecodeError:
        raise BenchError(f"{path}: not a text file")
    try:
        report = json.loads(text)
    except json.JSONDecodeError as e:
        raise BenchError(f"{path}: not valid JSON ({e.msg}, line {e.lineno} column {e.colno})")
    return validate(report, path)


def write_report(report, path):
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def cell_key(cell):
    return f"{cell['format']}/{cell['pairing']}"


def _cells(report):
    return {cell_key(c): c for c in report["results"]}


def check_tolerance(tolerance):
    if not _number(tolerance) or tolerance < 0:
        raise BenchError(f"tolerance must be a number >= 0 (0.10 = a 10% fall), not {tolerance!r}")
    return float(tolerance)


def check_alpha(alpha):
    if not _number(alpha) or not 0 < alpha < 1:
        raise BenchError(f"alpha must be a number between 0 and 1 (0.05 = 5%), not {alpha!r}")
    return float(alpha)


def smallest_p(n_after, n_before):
    """The smallest p-value the one-sided U test can give with these sample sizes (all samples apart)."""
    return 1 / math.comb(n_after + n_before, n_before)


def changes(report, baseline, tolerance=DEFAULT_TOLERANCE, alpha=DEFAULT_ALPHA):
    """Every cell in both reports: {cell, format, pairing, before, after (median normalised figures), change
    (after / before - 1), p (one-sided Mann-Whitney U: are this run's samples lower than the baseline's?),
    testable (the sample sizes can reach p < alpha at all), regression}.

    A regression is a change below -tolerance that the test finds significant (p < alpha); with too few
    samples to test (fewer than 4 a side at alpha 0.05) the tolerance alone decides."""
    from scipy.stats import mannwhitneyu
    tolerance, alpha = check_tolerance(tolerance), check_alpha(alpha)
    now, before = _cells(report), _cells(baseline)
    out = []
    for key, b in before.items():
        if key not in now:
            continue
        a = now[key]
        xa, xb = a["normalised_samples"], b["normalised_samples"]
        change = a["normalised"] / b["normalised"] - 1
        p = float(mannwhitneyu(xa, xb, alternative="less").pvalue)
        testable = smallest_p(len(xa), len(xb)) < alpha
        out.append({"cell": key, "format": a["format"], "pairing": a["pairing"], "before": b["normalised"],
                    "after": a["normalised"], "change": change, "p": p, "n_before": len(xb), "n_after": len(xa),
                    "testable": testable,
                    "regression": change < -tolerance and (p < alpha or not testable)})
    return out


def compare(report, baseline, tolerance=DEFAULT_TOLERANCE, alpha=DEFAULT_ALPHA):
    """The regressions of `report` against `baseline` (the entries of `changes` marked regression)."""
    return [c for c in changes(report, baseline, tolerance, alpha) if c["regression"]]


def missing(report, baseline):
    """Cells only in the baseline (not measured now) and only in the report (new since the baseline)."""
    now, before = _cells(report), _cells(baseline)
    return {"baseline_only": [k for k in before if k not in now], "report_only": [k for k in now if k not in before]}


# --- text ----------------------------------------------------------------------------------------------------

HEADER = (f"{'format':<16} {'pairing':<19} {'games':>6} {'core games/s':>13} {'decisions/s':>12} {'ref games/s':>12} "
          f"{'ratio':>8} {'normalised':>11} {'IQR':>6}")


def format_row(c):
    """One cell's line; a figure the report lacks (only `normalised_samples` is required) prints as '-'."""
    def num(key, width, fmt):
        return f"{c[key]:>{width}{fmt}}" if c.get(key) else f"{'-':>{width}}"
    ratio = f"{c['ratio']:>7,.0f}x" if c.get("ratio") else f"{'-':>8}"
    q1, q3 = c.get("normalised_iqr") or spread(c["normalised_samples"])[1]
    return (f"{c['format']:<16} {c['pairing']:<19} {num('games', 6, '')} {num('core_games_per_s', 13, ',.1f')} "
            f"{num('decisions_per_s', 12, ',.0f')} {num('ref_games_per_s', 12, ',.1f')} "
            f"{ratio} {c['normalised']:>11,.2f} {(q3 - q1) / c['normalised']:>6.1%}")


def format_calibration(cal, machine):
    return (f"calibration {cal['rate']:,.1f} {cal.get('unit', 'Msteps/s')} ({cal.get('kernel', '?')}, median of "
            f"{cal.get('repeats', '?')}) on {machine.get('cpu', '?')}, {machine.get('cores', '?')} cores")


def format_footer(report):
    w = report.get("workload", {})
    clock = {"process_time": "CPU time", "perf_counter": "wall time"}.get(w.get("clock"), "?")
    return (f"core: one thread, JIT excluded, median of {w.get('repeats', '?')} samples of {w.get('games', '?')} "
            f"games taken in rounds, each normalised by the calibration timed around it (IQR: its spread); reference: "
            f"{w.get('ref_games', '?')} games per cell; timed in {clock}; normalised = core games/s per "
            f"calibration Msteps/s; {report.get('elapsed_seconds', 0):.0f} s in all")


def format_report(report):
    """The whole report as the table `khasino bench` prints."""
    lines = [format_calibration(report["calibration"], report.get("machine", {})), HEADER]
    lines += [format_row(c) for c in report["results"]]
    lines.append(format_footer(report))
    return "\n".join(lines)


def format_comparison(report, baseline, tolerance=DEFAULT_TOLERANCE, alpha=DEFAULT_ALPHA,
                      baseline_name="baseline"):
    """Lines comparing every shared cell (regressions marked), then missing cells and notes."""
    tolerance, alpha = check_tolerance(tolerance), check_alpha(alpha)
    lines = [f"compared with {baseline_name}: a regression is a median normalised figure more than "
             f"{tolerance:.0%} below the baseline's that a one-sided Mann-Whitney U test over the samples finds "
             f"significant (p < alpha = {alpha:g}); calibration {baseline['calibration']['rate']:,.1f} -> "
             f"{report['calibration']['rate']:,.1f} Msteps/s",
             None]
    found = changes(report, baseline, tolerance, alpha)
    gone = missing(report, baseline)
    w = max([24] + [len(c["cell"]) for c in found] + [len(k) for v in gone.values() for k in v])
    lines[1] = f"  {'cell':<{w}} {'baseline':>10}    {'this run':>10}  {'change':>7}  {'p':>8}  verdict"
    untestable = []
    for c in found:
        if c["regression"]:
            flag = "REGRESSION"
        elif c["change"] < -tolerance:
            flag = f"ok (beyond {tolerance:.0%} but not significant)"
        else:
            flag = "ok"
        if not c["testable"]:
            untestable.append(f"{c['cell']} ({c['n_after']} vs {c['n_before']} samples: smallest p "
                              f"{smallest_p(c['n_after'], c['n_before']):.2g})")
        lines.append(f"  {c['cell']:<{w}} {c['before']:>10,.2f} -> {c['after']:>10,.2f}  {c['change']:>+7.1%}  "
                     f"{c['p']:>8.2g}  {flag}")
    if untestable:
        lines.append(f"  note: too few samples for the U test to reach p < {alpha:g}, so the tolerance alone "
                     f"judged {len(untestable)} cell(s), e.g. {untestable[0]}; use more --repeats")
    for key in gone["baseline_only"]:
        lines.append(f"  {key:<{w}} missing: in the baseline, not measured in this run")
    for key in gone["report_only"]:
        lines.append(f"  {key:<{w}} missing: not in the baseline (new cell, not compared)")
    bw, rw = baseline.get("workload", {}), report.get("workload", {})
    if (bw.get("games"), bw.get("repeats")) != (rw.get("games"), rw.get("repeats")):
        lines.append(f"  note: workloads differ (baseline {bw.get('games')} games x {bw.get('repeats')} samples, "
                     f"this run {rw.get('games')} x {rw.get('repeats')}); figures are less comparable")
    now = _cells(report)
    for key, b in _cells(baseline).items():
        a = now.get(key)
        if a and a.get("games") == b.get("games") and a.get("seat_wins") and b.get("seat_wins") \
                and a["seat_wins"] != b["seat_wins"]:
            lines.append(f"  note: {key} played different games (seat wins {b['seat_wins']} -> {a['seat_wins']})")
    bv, rv = baseline.get("versions", {}), report.get("versions", {})
    if bv.get("engine") != rv.get("engine"):
        lines.append(f"  note: ENGINE_VERSION {bv.get('engine')} -> {rv.get('engine')}: the games themselves changed")
    return lines
