"""`khasino bench`: the CPU benchmark for CI (games/s per thread, the reference ratio, normalised figures
compared with a baseline report, docs/BENCH.md) and, with --backend cuda, the GPU benchmark
(khasino_sim/gpu_bench.py)."""
import os
import sys

import click

from .common import InputError, output_file
from .shared_options import backend_option


def _gpu_bench(games, fmt_names, pairings, json_path, layout, threads_per_block):
    """`bench --backend cuda` (khasino_sim/gpu_bench.py): one line per cell, the report to --json."""
    from .. import gpu, gpu_bench
    from ..formats import FORMATS
    from ..bench import _names, BenchError
    try:
        gpu.require()
        fmts = _names(fmt_names, list(gpu_bench.DEFAULT_FORMATS), "format", known=sorted(FORMATS))
        pairs = _names(pairings, list(gpu_bench.DEFAULT_PAIRINGS), "pairing", known=list(gpu_bench.PAIRINGS))
    except (gpu.BackendError, BenchError) as e:
        raise InputError(str(e))
    click.echo("compiling the GPU kernel on first use (minutes)", err=True)
    report = gpu_bench.run(fmts, pairs, games or gpu_bench.DEFAULT_GAMES, layout, threads_per_block,
                           progress=click.echo)
    click.echo(gpu_bench.header(report))
    if json_path:
        from ..bench_gate import write_report
        write_report(report, json_path)
        click.echo(f"report     {json_path}")


def _compile_bench(fmt_names, json_path):
    """`bench --compile` (khasino_sim/compile_bench.py): one line per part, the report to --json."""
    from .. import compile_bench as CB
    from ..formats import FORMATS
    from ..bench import _names, BenchError
    parts = CB.DEFAULT_PARTS
    if fmt_names:
        try:
            names = _names(fmt_names, [], "format", known=sorted(FORMATS))
        except BenchError as e:
            raise InputError(str(e))
        parts = tuple((f, bots) for f in names for bots in (("greedy", "random"), ("ismcts", "random")))
    click.echo("timing each part's compile from an empty cache, each in a fresh process (about a minute each)",
               err=True)
    try:
        report = CB.run(parts, progress=click.echo)
    except RuntimeError as e:
        raise InputError(str(e))
    if json_path:
        from ..bench_gate import write_report
        write_report(report, json_path)
        click.echo(f"report     {json_path}")


@click.command()
@click.option("--games", default=None, type=click.IntRange(1), help="Core games per sample, seeds 0..N-1, the "
              "same games every sample [default: 2000; 1000 with --quick].")
@click.option("--ref-games", default=None, type=click.IntRange(0), help="Reference games per cell; 0 skips the "
              "reference [default: 5; 2 with --quick].")
@click.option("--repeats", default=None, type=click.IntRange(1), help="Timed samples per cell; the report keeps "
              "them all, and their median [default: 9; 5 with --quick].")
@click.option("--formats", "fmt_names", default=None, metavar="A,B", help="Formats [default: all registered].")
@click.option("--pairings", default=None, metavar="A,B",
              help="Bot pairings: random-random, greedy-greedy, heuristic-heuristic [default: these three]; "
                   "rollout-rollout, ismcts-ismcts (the search bots at their defaults, games/1000 of them).")
@click.option("--quick", is_flag=True, help="A smaller workload (noisier figures).")
@click.option("--json", "json_path", default=None, metavar="PATH", help="Write the report (docs/BENCH.md) here.")
@click.option("--compare", "baseline_path", default=None, metavar="BASELINE.json",
              help="Exit 1 if a cell's median normalised figure fell by more than --tolerance against this "
              "report and a one-sided Mann-Whitney U test finds the fall significant at --alpha.")
@click.option("--tolerance", default=0.10, show_default=True, type=float,
              help="Allowed fall of a median normalised figure, as a fraction (0.10 = 10%).")
@click.option("--alpha", default=0.05, show_default=True, type=float,
              help="Significance level of the U test a regression must also pass.")
@click.option("--show", "show_path", default=None, metavar="REPORT.json",
              help="Read this saved report instead of running the benchmark (then the workload options and "
              "--json are unused); with --compare, compare it.")
@click.option("--report", "report_path", default=None, hidden=True,
              help="Deprecated alias of --show (`tournament`/`balance --report DIR` write a folder instead).")
@backend_option("cuda: games/s on this machine's NVIDIA GPU, kernel and end to end to Parquet, beside the CPU's "
                "(default workload: khasino, greedy-random, 1,000,000 games).")
@click.option("--layout", type=click.Choice(["global", "local"]), default="global", show_default=True,
              help="With --backend cuda: where each thread's state and deck live (docs/ENGINE.md, GPU backend).")
@click.option("--threads-per-block", default=64, show_default=True, type=click.IntRange(1, 1024),
              help="With --backend cuda: the launch's block size.")
@click.option("--compile", "compile_only", is_flag=True,
              help="Time each part of the core's compile instead: every family, with and without the search, "
                   "from an empty cache and then cached, each in a fresh process (minutes).")
def bench(games, ref_games, repeats, fmt_names, pairings, quick, json_path, baseline_path, tolerance, alpha,
          show_path, report_path, backend, layout, threads_per_block, compile_only):
    """Benchmark the core for CI: games/s per thread per format and pairing (every sample kept, with their
    median and spread), the reference ratio, and figures normalised by a calibration workload, compared with
    a baseline report (docs/BENCH.md)."""
    from .. import bench as B
    if report_path is not None:
        if show_path is not None:
            raise InputError("give --show REPORT.json only (--report is its deprecated alias)")
        if not os.path.isfile(report_path):
            what = "is a folder" if os.path.isdir(report_path) else "does not exist"
            raise InputError(f"--report {report_path} {what}: `khasino bench` writes no report folder "
                             "(that is `tournament`/`balance --report DIR`); write its report with --json "
                             "FILE, read one with --show FILE (--report is its deprecated alias)")
        click.echo("warning: `khasino bench --report` is deprecated: it reads a saved report; use --show "
                   "REPORT.json", err=True)
        show_path = report_path
    if json_path:
        output_file(json_path, "--json")
    if compile_only:
        _compile_bench(fmt_names, json_path)
        return
    if backend == "cuda":
        _gpu_bench(games, fmt_names, pairings, json_path, layout, threads_per_block)
        return
    try:
        tolerance, alpha = B.check_tolerance(tolerance), B.check_alpha(alpha)
        baseline = B.load_report(baseline_path) if baseline_path else None
        if show_path:
            report = B.load_report(show_path)
            click.echo(B.format_report(report))
        else:
            size = B.QUICK if quick else {"games": B.DEFAULT_GAMES, "ref_games": B.DEFAULT_REF_GAMES,
                                          "repeats": B.DEFAULT_REPEATS}
            work = dict(games=games or size["games"], repeats=repeats or size["repeats"],
                        ref_games=size["ref_games"] if ref_games is None else ref_games,
                        formats=fmt_names, pairings=pairings)
            B.plan(**work)
            click.echo("calibrating, then warming up the core (the first run compiles it, about a minute)",
                       err=True)
            report = B.run_bench(**work, progress=click.echo, status=lambda line: click.echo(line, err=True))
            click.echo(B.format_footer(report))
    except B.BenchError as e:
        raise InputError(str(e))
    if json_path and not show_path:
        try:
            B.write_report(report, json_path)
        except OSError as e:
            raise InputError(f"cannot write {json_path}: {e.strerror or e}")
        click.echo(f"report     {json_path}")
    if baseline is not None:
        for line in B.format_comparison(report, baseline, tolerance, alpha, baseline_path):
            click.echo(line)
        regressions = B.compare(report, baseline, tolerance, alpha)
        if regressions:
            click.echo(f"{len(regressions)} regression(s) beyond {tolerance:.0%} at alpha {alpha:g}: "
                       + ", ".join(r["cell"] for r in regressions), err=True)
            sys.exit(1)
        click.echo(f"no regression beyond {tolerance:.0%} at alpha {alpha:g}")
