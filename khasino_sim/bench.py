"""`khasino bench`: a fixed, seeded benchmark of the compiled core for CI, with a machine calibration.

For each registered format and bot pairing it plays the same games as bench/bench_games.py (seeds
0..n-1, one thread, JIT compile excluded, best of a few repeats, timed in CPU time) through the public API
`khasino_sim.engine.play_games`, and a few of the same games through the pure-Python reference
(`khasino_sim.reference.play_game`) for the core/reference ratio.

A calibration workload, independent of the engine (a small compiled integer kernel, below), is timed in the
same run, so that games/s divided by the calibration rate (the *normalised* figure) can be compared across
machines: a slower CI runner is slower at both and its normalised figures stay put, while a slower engine
moves only the games/s. `compare` flags the cells whose normalised figure fell by more than a tolerance.

The JSON report's schema is in docs/BENCH.md (SCHEMA_VERSION below).
"""
import json
import math
import os
import platform
import sys
import time
from datetime import datetime, timezone

import numpy as np
from numba import njit

SCHEMA_VERSION = 1

# Bot pairings: name -> the bot of every seat (as many seats as the format has).
PAIRINGS = {"random-random": ("random", "random"), "greedy-greedy": ("greedy", "greedy"),
            "heuristic-heuristic": ("heuristic", "heuristic")}
REFERENCE_BOTS = ("random", "greedy")   # the bots the reference engines play (the heuristic is the core's alone)
# The search bots at their defaults, asked for by name (--pairings): each of their decisions plays hundreds of
# games out, so a cell plays games / SEARCH_SLOWDOWN of them (at least 2) after a one-game warm-up.
SEARCH_PAIRINGS = {"rollout-rollout": ("rollout", "rollout"), "ismcts-ismcts": ("ismcts", "ismcts")}
SEARCH_SLOWDOWN = 1000

DEFAULT_GAMES = 20_000        # core games per cell (seeds 0..games-1)
DEFAULT_REF_GAMES = 30        # reference games per cell (seeds 0..ref_games-1)
DEFAULT_REPEATS = 3           # core timings per cell; the best is kept
QUICK = {"games": 2_000, "ref_games": 5, "repeats": 2}
WARMUP_GAMES = 50             # untimed games per cell first: loads (or compiles) the core

CALIBRATION_KERNEL = "splitmix64-popcount-chain/1"
CALIBRATION_STEPS = 1 << 24   # kernel steps per timing (about 0.1 s on a current x86 core)
CALIBRATION_REPEATS = 5


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


def calibrate(steps=CALIBRATION_STEPS, repeats=CALIBRATION_REPEATS):
    """Time the calibration kernel (after a warm-up call) and return its figure: million steps per second,
    best of `repeats`."""
    _calibration_kernel(1000, 1)                               # compile, or load from the cache
    best = math.inf
    for _ in range(repeats):
        t = _clock()
        checksum = _calibration_kernel(steps, 1)
        best = min(best, _clock() - t)
    return {"kernel": CALIBRATION_KERNEL, "unit": "Msteps/s", "steps": int(steps), "repeats": int(repeats),
            "clock": CLOCK, "seconds": best, "rate": steps / max(best, 1e-9) / 1e6, "checksum": int(checksum)}


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


def core_rate(fmt, bots, games, repeats, warmup_games=WARMUP_GAMES):
    """Best time of `repeats` calls of engine.play_games on seeds 0..games-1 (after an untimed warm-up batch).

    Returns (best seconds on CLOCK, best wall-clock seconds, warm-up seconds, games won by each seat, decisions
    per game); the wins depend only on the games played, so they fingerprint the workload."""
    from .engine import bot_id, play_games
    seeds = np.arange(games, dtype=np.uint64)
    # bot ids, converted once: a table of names is converted in Python on every call, which is not the engine
    table = np.array([[bot_id(b) for b in bots]] * games, dtype=np.int64)
    t = time.perf_counter()
    play_games(fmt, seeds[:warmup_games], table[:warmup_games])
    warmup = time.perf_counter() - t
    best, wall, rows = math.inf, math.inf, None
    for _ in range(repeats):
        w, t = time.perf_counter(), _clock()
        rows = play_games(fmt, seeds, table)
        best = min(best, _clock() - t)
        wall = min(wall, time.perf_counter() - w)
    from khasino_sim.kernels.core import layout as L
    wins = None
    if hasattr(L, "G_WINNER"):
        winners = rows[:, L.G_WINNER]
        wins = [int((winners == s).sum()) for s in range(len(bots))]
    return best, wall, warmup, wins, float(rows[:, L.G_TURNS].sum()) / games


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


def run_bench(games=DEFAULT_GAMES, ref_games=DEFAULT_REF_GAMES, repeats=DEFAULT_REPEATS, formats=None,
              pairings=None, calibration_steps=CALIBRATION_STEPS, calibration_repeats=CALIBRATION_REPEATS,
              progress=None):
    """Run the benchmark and return the report (a dict, docs/BENCH.md).

    formats / pairings: names (a list or a comma-separated string); default every registered format and
    every pairing in PAIRINGS. ref_games=0 skips the reference (its figures are then null). `progress`, if
    given, is called with lines of the table as they are known: the calibration, the header, then one line
    as each cell finishes."""
    from .formats import get_format
    fmts, pairs = plan(games, ref_games, repeats, formats, pairings, calibration_steps, calibration_repeats)
    started = time.perf_counter()
    machine = machine_info()
    calibration = calibrate(calibration_steps, calibration_repeats)
    if progress:
        progress(format_calibration(calibration, machine))
        progress(HEADER)
    results = []
    for fmt in fmts:
        for pairing in pairs:
            pair = PAIRINGS.get(pairing) or SEARCH_PAIRINGS[pairing]
            bots = pair[:1] * get_format(fmt).seats     # the same bot in every seat
            n = games if pairing in PAIRINGS else max(2, games // SEARCH_SLOWDOWN)
            seconds, wall, warmup, wins, turns = core_rate(fmt, bots, n, repeats,
                                                           WARMUP_GAMES if pairing in PAIRINGS else 1)
            core = n / max(seconds, 1e-9)
            ref = None
            if ref_games and bots[0] in REFERENCE_BOTS:
                ref = ref_games / max(ref_rate(fmt, bots, ref_games), 1e-9)
            cell = {"format": fmt, "pairing": pairing, "bots": list(bots), "games": int(n),
                    "seat_wins": wins, "core_seconds": seconds, "core_wall_seconds": wall,
                    "core_games_per_s": core, "decisions_per_s": core * turns,
                    "ref_games": int(ref_games), "ref_games_per_s": ref,
                    "ratio": core / ref if ref else None,
                    "normalised": core / calibration["rate"], "warmup_seconds": warmup}
            results.append(cell)
            if progress:
                progress(format_row(cell))
    return {
        "schema_version": SCHEMA_VERSION,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": machine,
        "versions": versions(),
        "workload": {"games": int(games), "ref_games": int(ref_games), "repeats": int(repeats),
                     "warmup_games": WARMUP_GAMES, "seeds": "0..games-1", "threads": 1, "clock": CLOCK,
                     "formats": fmts, "pairings": {p: list({**PAIRINGS, **SEARCH_PAIRINGS}[p]) for p in pairs}},
        "calibration": calibration,
        "normalised_unit": "core games/s per calibration Msteps/s",
        "elapsed_seconds": time.perf_counter() - started,
        "results": results,
    }


# --- reading reports and comparing ---------------------------------------------------------------------------

def _number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def validate(report, name="report"):
    """Check that `report` is a benchmark report this version reads; BenchError (one line) if not."""
    if not isinstance(report, dict):
        raise BenchError(f"{name}: not a benchmark report (expected a JSON object)")
    version = report.get("schema_version")
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
        if not _number(c.get("normalised")) or c["normalised"] <= 0:
            raise BenchError(f"{name}: {key} has no positive 'normalised' figure")
    cal = report.get("calibration")
    if not isinstance(cal, dict) or not _number(cal.get("rate")) or cal["rate"] <= 0:
        raise BenchError(f"{name}: 'calibration' needs a positive 'rate'")
    return report


def load_report(path):
    """Read and validate a report file; BenchError (one line) if it is unreadable or malformed."""
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
        json.dump(report, f, indent=2)
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


def changes(report, baseline):
    """Every cell in both reports: key, before/after normalised figures and the relative change."""
    now, before = _cells(report), _cells(baseline)
    out = []
    for key, b in before.items():
        if key in now:
            a = now[key]
            out.append({"cell": key, "format": a["format"], "pairing": a["pairing"], "before": b["normalised"],
                        "after": a["normalised"], "change": a["normalised"] / b["normalised"] - 1})
    return out


def compare(report, baseline, tolerance=0.10):
    """The regressions of `report` against `baseline`: the cells in both whose normalised figure fell by more
    than `tolerance` (a fraction: 0.10 = 10%), each {cell, format, pairing, before, after, change}."""
    tolerance = check_tolerance(tolerance)
    return [c for c in changes(report, baseline) if c["change"] < -tolerance]


def missing(report, baseline):
    """Cells only in the baseline (not measured now) and only in the report (new since the baseline)."""
    now, before = _cells(report), _cells(baseline)
    return {"baseline_only": [k for k in before if k not in now], "report_only": [k for k in now if k not in before]}


# --- text ----------------------------------------------------------------------------------------------------

HEADER = (f"{'format':<16} {'pairing':<19} {'games':>7} {'core games/s':>13} {'decisions/s':>12} {'ref games/s':>12} "
          f"{'ratio':>8} "
          f"{'normalised':>11}")


def format_row(c):
    ref = f"{c['ref_games_per_s']:>12,.1f}" if c.get("ref_games_per_s") else f"{'-':>12}"
    ratio = f"{c['ratio']:>7,.0f}x" if c.get("ratio") else f"{'-':>8}"
    dec = f"{c['decisions_per_s']:>12,.0f}" if c.get("decisions_per_s") else f"{'-':>12}"
    return (f"{c['format']:<16} {c['pairing']:<19} {c['games']:>7} {c['core_games_per_s']:>13,.1f} {dec} {ref} "
            f"{ratio} {c['normalised']:>11,.2f}")


def format_calibration(cal, machine):
    return (f"calibration {cal['rate']:,.1f} {cal.get('unit', 'Msteps/s')} ({cal.get('kernel', '?')}, best of "
            f"{cal.get('repeats', '?')}) on {machine.get('cpu', '?')}, {machine.get('cores', '?')} cores")


def format_footer(report):
    w = report.get("workload", {})
    clock = {"process_time": "CPU time", "perf_counter": "wall time"}.get(w.get("clock"), "?")
    return (f"core: one thread, JIT excluded, best of {w.get('repeats', '?')}; reference: {w.get('ref_games', '?')} "
            f"games per cell; timed in {clock}; normalised = core games/s per calibration Msteps/s")


def format_report(report):
    """The whole report as the table `khasino bench` prints."""
    lines = [format_calibration(report["calibration"], report.get("machine", {})), HEADER]
    lines += [format_row(c) for c in report["results"]]
    lines.append(format_footer(report))
    return "\n".join(lines)


def format_comparison(report, baseline, tolerance, baseline_name="baseline"):
    """Lines comparing every shared cell (regressions marked), then missing cells and notes."""
    tolerance = check_tolerance(tolerance)
    lines = [f"compared with {baseline_name} (tolerance {tolerance:.0%} on the normalised figures; "
             f"calibration {baseline['calibration']['rate']:,.1f} -> {report['calibration']['rate']:,.1f})"]
    for c in changes(report, baseline):
        flag = "REGRESSION" if c["change"] < -tolerance else "ok"
        lines.append(f"  {c['cell']:<24} {c['before']:>10,.2f} -> {c['after']:>10,.2f}  {c['change']:>+7.1%}  {flag}")
    gone = missing(report, baseline)
    for key in gone["baseline_only"]:
        lines.append(f"  {key:<24} missing: in the baseline, not measured in this run")
    for key in gone["report_only"]:
        lines.append(f"  {key:<24} missing: not in the baseline (new cell, not compared)")
    bw, rw = baseline.get("workload", {}), report.get("workload", {})
    if (bw.get("games"), bw.get("repeats")) != (rw.get("games"), rw.get("repeats")):
        lines.append(f"  note: workloads differ (baseline {bw.get('games')} games x {bw.get('repeats')} repeats, "
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
