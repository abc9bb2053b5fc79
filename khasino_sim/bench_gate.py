"""The regression gate of `khasino bench` (khasino_sim/bench.py): reading and checking a report (schema in
docs/BENCH.md), comparing it with a baseline, and the text both print.

A cell is a regression only when its median normalised figure fell by more than a tolerance AND a one-sided
Mann-Whitney U test over the two reports' samples says the fall is statistically clear (p < alpha), as google
benchmark's tools/compare.py does: the tolerance keeps the few percent two runs of the same code differ by from
failing the gate, the test keeps one noisy sample from failing it. The report also carries pytest-benchmark's
`benchmarks` list (`pytest_benchmark_view`), so `pytest-benchmark compare` reads it."""
import json
import math
import os
import platform

import numpy as np

SCHEMA_VERSION = 2
DEFAULT_TOLERANCE = 0.10      # a regression is a fall of the median normalised figure beyond this ...
DEFAULT_ALPHA = 0.05          # ... that the one-sided Mann-Whitney U test finds at this significance


class BenchError(ValueError):
    """Bad input to the benchmark: an unknown format or pairing, a bad option, a malformed report."""


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
    """The report as JSON at `path`, written whole and never through a symbolic link (khasino_sim/files.py)."""
    from .files import make_folder, write_text
    make_folder(os.path.dirname(os.path.abspath(path)))
    write_text(path, json.dumps(report, indent=1) + "\n")


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
