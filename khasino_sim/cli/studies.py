"""The commands that study results: `khasino balance` (rule variants compared on the same deals,
docs/BALANCE.md) and `khasino report` (figures, tables and report.md for a run's output)."""
import os

import click

from .common import (InputError, _bot_list, _check_backend, _format, _settings, command_line, default_out,
                     os_problem, output_folders, reading, resumable, to_stderr, writable_folder)
from .shared_options import (backend_option, bot_file_option, bot_timeout_option, bots_option, dask_option,
                             format_option, games_option, out_option, quiet_option, report_option,
                             resume_force_options, seed_option, set_option, shard_size_option, workers_option)


@click.command()
@format_option()
@click.option("--vary", "vary", multiple=True, required=True, metavar="NAME=V1,V2",
              help="A rule option and the values to compare (repeatable: the grid is their product; "
              "`khasino options` lists the options).")
@bots_option("One bot per seat (or per team), comma-separated; seats rotate every game.", default="greedy,greedy")
@games_option(100_000, "Games per variant.")
@seed_option()
@out_option("results/balance-FORMAT-OPTIONS-sSEED-nGAMES")
@workers_option()
@shard_size_option("Games per file.")
@set_option("A rule option fixed for every variant.")
@report_option("Also write figures, tables and report.md here.")
@dask_option()
@resume_force_options("study")
@quiet_option("No progress bars.")
@backend_option("cuda: play on this machine's NVIDIA GPU (the same games).")
@bot_file_option
@bot_timeout_option
def balance(fmt_name, vary, bots, games, seed, out, workers, shard_size, settings, report_dir, dask, resume, force,
            quiet, backend):
    """Compare rule variants on the same deals: each variant of the --vary grid plays the same seeded games
    (common random numbers). The summary first names the variants whose games are identical to another's and
    how often the bots used each varied rule, then gives per variant the win rate per seat with intervals,
    margins, points by category, game length and moves per game, and per pair of distinct variants the paired
    differences with 95% intervals and an exact sign test, Holm-corrected (docs/BALANCE.md)."""
    from .. import balance as study
    from ..runs import SimulationError
    fmt = _format(fmt_name)
    names = _bot_list(bots)
    fixed = _settings(settings)
    _check_backend(backend, names, dask)
    try:
        grid = study.parse_vary(vary, fmt.name, fixed)
    except study.BalanceError as e:
        raise InputError(str(e))
    if out is None:
        out = default_out("balance", fmt.name, "-".join(n for n, _ in grid), seed, games)
    output_folders(out, report_dir)
    resumable(out)              # Ctrl-C from here on says so (cli/interrupts.py)
    try:
        with reading(out):
            path = study.run(fmt.name, grid, names, games, seed, out, fixed, workers, shard_size, dask, resume, force,
                             quiet, command=command_line(),
                             log=None if quiet else to_stderr, backend=backend)
    except (study.BalanceError, SimulationError) as e:
        raise InputError(str(e))
    except OSError as e:          # a full disk, a folder gone read-only: what is done is kept
        raise InputError(f"{os_problem(e, out)}; finished shards are kept: fix it, then run the same command with "
                         "--resume") from None
    with reading(path):
        summary = study.summarize(path)
    click.echo(f"results    {path}")
    click.echo(study.format_summary(summary))
    if report_dir:
        from ..report import write_study
        click.echo(f"report     {write_study(summary, report_dir)}")


@click.command()
@click.argument("run_dir", type=click.Path(file_okay=False))
@click.option("--out", "report_dir", default=None, help="Report folder [default: RUN_DIR/report].")
def report(run_dir, report_dir):
    """Write figures (PNG), tables (CSV) and report.md for a `simulate` (a simulation report: win rate per bot,
    seat and team), `tournament` or `balance` output."""
    from ..balance import BalanceError
    from ..report import write
    if not run_dir.strip():
        raise InputError("report needs a run folder, not an empty name")
    if not os.path.isdir(run_dir):
        raise InputError(f"{run_dir} is not a folder")
    report_dir = report_dir or os.path.join(run_dir, "report")
    writable_folder(report_dir, "--out")
    try:
        with reading(run_dir):
            path = write(run_dir, report_dir)
    except BalanceError as e:
        raise InputError(str(e))
    click.echo(f"report     {path}")
