"""`khasino simulate`: many bot-vs-bot games written to a Parquet dataset (docs/RESULTS.md), then a summary."""
import os
import sys
import threading

import click

from .common import (InputError, _bot_list, _check_backend, _format, _no_policy_records, _settings, bots_tag,
                     command_line, default_out, os_problem, output_folders, reading, resumable)
from .shared_options import (backend_option, bot_file_option, bot_timeout_option, bots_option, dask_option,
                             format_option, games_option, out_option, quiet_option, resume_force_options,
                             seed_option, set_option, shard_size_option, workers_option)
from .recording import record_choice, record_options


@click.command()
@format_option()
@games_option(100_000, "Number of games.", type=int)
@bots_option("One bot per seat, comma-separated (random, greedy, heuristic); khasino-4p also takes one per team "
             "(greedy,random: seats A, B greedy, C, D random), teams swapping sides every game.",
             default="greedy,random")
@seed_option()
@out_option("results/FORMAT-BOTS-sSEED-nGAMES")
@workers_option("Threads on this machine [default: all cores].")
@shard_size_option("Games per Parquet file.", type=int)
@click.option("--no-rotate", is_flag=True, help="Keep each bot on its seat instead of rotating seats.")
@set_option("Rule option, e.g. --set follow_ups=false (see `khasino options`).")
@dask_option()
@resume_force_options("run")
@quiet_option()
@click.option("--series", default=1, show_default=True, type=int, metavar="K",
              help="Play series of K matches, the previous match's lowest scorer leading the next (3p, P10); "
              "--games must be a multiple of K.")
@click.option("--rounds", default=0, type=int, metavar="1",
              help="Cassino, Kasino: --rounds 1 plays single rounds [default: whole matches (Cassino to 21, "
              "Kasino `match_rounds` rounds), one row per match and a rounds table with one row per round].")
@backend_option("cuda: play each shard on this machine's NVIDIA GPU (the same rows as the CPU).")
@record_options()
@bot_file_option
@bot_timeout_option
def simulate(fmt_name, games, bots, seed, out, workers, shard_size, no_rotate, settings, dask, resume, force,
             quiet, series, rounds, backend, record_n, record_games, record_where):
    """Play many bot-vs-bot games and write per-game and per-seat statistics to a Parquet dataset
    (docs/RESULTS.md), then print a summary: win rate per bot, per seat and, in khasino-4p, per team."""
    import time
    from ..runs import simulate as run, SimulationError, RunSpec, validate, warm_up, compiled_parts
    from ..stats import summarize, format_summary
    fmt = _format(fmt_name)
    names = _bot_list(bots)
    if out is None:
        out = default_out("", fmt.name, bots_tag(names), seed, games)
    spec = RunSpec(format=fmt.name, games=games, bots=tuple(names), seed=seed, rotate=not no_rotate,
                   options=_settings(settings), shard_size=shard_size, series=series, rounds=rounds)
    try:
        validate(spec)
    except SimulationError as e:
        raise InputError(str(e))
    _check_backend(backend, names, dask)
    if record_n is not None or record_games is not None or record_where is not None:
        _no_policy_records(names)
    choice = record_choice(record_n, record_games, record_where, spec)
    output_folders(out)
    from ..run_folder import read_manifest, RunFolderError
    try:
        previous = read_manifest(out) if os.path.isdir(out) else None
    except RunFolderError:
        previous = None             # the run refuses it below (or --force replaces it)
    already = bool(previous and previous.get("complete") and previous.get("spec") == spec.identity()
                   and not force)
    if not dask:
        # said only when loading takes a while (a first run compiling): a cached load prints nothing
        notice = threading.Timer(2.0, click.echo, (f"compiling the {compiled_parts(spec)} (first run of its "
                                                   "kind: about a minute, then cached)",), {"err": True})
        if not quiet:
            notice.start()
        try:
            compile_s = warm_up(spec)
        finally:
            notice.cancel()
        if compile_s > 2 and not quiet:
            click.echo(f"compiled the {compiled_parts(spec)} in {compile_s:.0f} s (cached for later runs)",
                       err=True)
    started = time.time()
    resumable(out)              # Ctrl-C from here on says so (cli/interrupts.py)
    try:
        path = run(format=fmt.name, games=games, bots=names, seed=seed, out=out, workers=workers,
                   shard_size=shard_size, rotate=not no_rotate, options=_settings(settings), dask=dask,
                   resume=resume, force=force, quiet=quiet, command=command_line(),
                   series=series, rounds=rounds, backend=backend)
    except SimulationError as e:
        raise InputError(str(e))
    except OSError as e:          # a full disk, a folder gone read-only: what is done is kept
        raise InputError(f"{os_problem(e, out)}; finished shards are kept: fix it, then run the same command "
                         "with --resume") from None
    except RuntimeError as e:     # an engine guard (a scratch bound exceeded: never expected), not bad input
        click.echo(f"Error: {e}", err=True)
        sys.exit(1)
    elapsed = time.time() - started
    try:                        # complete before, and nothing played again (a damaged shard is, on --resume)
        already = already and read_manifest(path) == previous
    except RunFolderError:
        already = False
    click.echo(f"results    {path}" + ("  (this run was already complete)" if already else ""))
    if choice is not None:
        from ..records import RecordError, nothing_matched, record_run
        try:
            with reading(path):
                if record_run(path, choice, log=click.echo)[0] is None:
                    click.echo(nothing_matched(path, choice), err=True)
        except RecordError as e:
            raise InputError(str(e)) from None
    with reading(path):
        summary = summarize(path)
    click.echo(format_summary(summary, None if already else elapsed,
                              unit="matches" if spec.matches() and not rounds else "games"))
