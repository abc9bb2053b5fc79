"""The options several `khasino` commands take (--format, --seed, --bots, --set, --bot-file, --out, --workers,
--games, --shard-size, --report, --dask, --resume, --force, --quiet, --backend), each declared once here.

Each is a function returning a click decorator; the arguments are what differs between commands (a help
text, a default), so every command keeps its exact option names, defaults and help (a public contract).
"""
import os

import click

from .common import InputError

SEED_TYPE = click.IntRange(0, 2**64 - 1)
BACKENDS = click.Choice(["cpu", "cuda"])


def compose(*decorators):
    """One decorator applying `decorators` as if stacked in this order above a function."""
    def apply(command):
        for decorator in reversed(decorators):
            command = decorator(command)
        return command
    return apply


def format_option(help="Format to play."):
    """--format NAME (fmt_name), khasino by default."""
    return click.option("--format", "fmt_name", default="khasino", show_default=True, help=help)


def seed_option(help="Root seed."):
    """--seed N, 0 to 2**64 - 1, 0 by default."""
    return click.option("--seed", default=0, show_default=True, type=SEED_TYPE, help=help)


def bots_option(help, default=None):
    """--bots A,B,...: with a default, shown; without, required."""
    if default is None:
        return click.option("--bots", required=True, help=help)
    return click.option("--bots", default=default, show_default=True, help=help)


def games_option(default, help, type=click.IntRange(1)):
    """--games N."""
    return click.option("--games", default=default, show_default=True, type=type, help=help)


def set_option(help="Rule option (`khasino options`)."):
    """--set NAME=VALUE (settings), repeatable: a rule option."""
    return click.option("--set", "settings", multiple=True, metavar="NAME=VALUE", help=help)


def absolute_path(ctx, param, value):
    """A click callback: an output path made absolute when the command line is read, before any bot file is
    imported, so that where results land does not depend on what a bot file does (one that calls os.chdir).
    An empty name is left as given, for the command to refuse."""
    if value is None or not str(value).strip():
        return value
    return os.path.abspath(value)


def out_option(default_folder):
    """--out FOLDER, None by default (the command names one from its arguments, `default_folder`)."""
    return click.option("--out", default=None, callback=absolute_path,
                        help=f"Output folder [default: {default_folder}].")


def workers_option(help="Threads [default: all cores]."):
    """--workers N, 1 to 1024; None: all cores."""
    return click.option("--workers", default=None, type=click.IntRange(1, 1024), help=help)


def shard_size_option(help, type=click.IntRange(1)):
    """--shard-size N: games per Parquet file, 50,000 by default."""
    return click.option("--shard-size", default=50_000, show_default=True, type=type, help=help)


def report_option(help):
    """--report FOLDER (report_dir): also write a report there."""
    return click.option("--report", "report_dir", default=None, callback=absolute_path, help=help)


def dask_option():
    """--dask tcp://HOST:PORT, from KHASINO_DASK by default."""
    return click.option("--dask", default=lambda: os.environ.get("KHASINO_DASK"), metavar="tcp://HOST:PORT",
                        help="Run the shards on a Dask cluster [env KHASINO_DASK].")


def resume_force_options(what):
    """--resume and --force, for a command writing a `what` (run, tournament, study) to --out. They ask for
    opposite things (keep what is in --out, replace it), so both together are refused."""
    def one_of(ctx, param, value):
        other = "force" if param.name == "resume" else "resume"
        if value and ctx.params.get(other):     # whichever of the two is read second sees the first
            raise InputError(f"--resume finishes the {what} in --out, --force replaces it: give one")
        return value
    return compose(click.option("--resume", is_flag=True, callback=one_of,
                                help=f"Finish an interrupted {what} in --out."),
                   click.option("--force", is_flag=True, callback=one_of,
                                help=f"Replace another {what}'s output in --out."))


def quiet_option(help="No progress bar."):
    """--quiet: no progress bars."""
    return click.option("--quiet", is_flag=True, help=help)


def backend_option(help):
    """--backend cpu|cuda, cpu by default."""
    return click.option("--backend", type=BACKENDS, default="cpu", show_default=True, help=help)


def bot_file_option(command):
    """--bot-file PATH (repeatable) on a command that names bots: the file's stem becomes a bot name meaning the
    user bot file:PATH (khasino_sim/userbots.py), registered before the bots are read."""
    def register(ctx, param, value):
        from ..bots import add_bot_files, BotSpecError
        try:
            add_bot_files(value)
        except BotSpecError as e:
            raise InputError(str(e))
        return value
    return click.option("--bot-file", "bot_files", multiple=True, metavar="PATH", expose_value=False,
                        is_eager=True, callback=register,
                        help="A user bot: a file defining score(view, move), in Python or numba.njit "
                        "(khasino_sim/userbots.py); its name is the file's stem. Repeatable.")(command)


def bot_timeout_option(command):
    """--bot-timeout SECONDS on a command that plays user bots: the time limit of one call of a bot file's score
    function (khasino_sim/bot_calls.py, set_time_limit), set before any bot is loaded; one past it ends the run
    in one line, exit 2 (a compiled one, which nothing can stop, by ending the process)."""
    def limit(ctx, param, value):
        from ..bot_calls import set_time_limit
        from .interrupts import fatal
        set_time_limit(value, stuck=lambda message: fatal(f"Error: {message}", 2))
        return value
    return click.option("--bot-timeout", "bot_timeout", default=30.0, show_default=True, type=click.FloatRange(0),
                        metavar="SECONDS", expose_value=False, is_eager=True, callback=limit,
                        help="Time limit of one call of a bot file's score(view, move) (0: none). A Python call past "
                        "it is stopped and the run ends in one line naming the file and the position, exit 2; a "
                        "numba.njit call cannot be stopped, so the process ends the same way once it has run "
                        "this long.")(command)
