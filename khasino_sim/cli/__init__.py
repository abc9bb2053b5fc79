"""The `khasino` command: formats, positions (moves, show), single games and simulations.

Bad input (a malformed or impossible state, an unknown format or bot, a bad option) is one line on stderr and
exit code 2, never a traceback.

This package holds the click group `main` (the console entry point `khasino_sim.cli:main`) and `Main`, which
turns what escapes a command into one line; the commands live one module per group (listings, positions,
simulation, contests, studies, benchmark), the options they share in shared_options, the helpers in common,
and the position renderer in khasino_sim/render.py. The names below that are not commands are re-exported
from those modules so that the import paths of the single-module cli keep working for one release.
"""
import contextlib  # noqa: F401  (re-exported, as the single-module cli had it)
import errno  # noqa: F401
import json  # noqa: F401
import os
import sys

import click

from . import interrupts
interrupts.early()      # before the imports below (Numba's): Ctrl-C while they load

from ..formats import FORMATS, get_format  # noqa: F401,E402  (re-exported: importable from here before the split)
from ..render import _cards, _changed_options, render  # noqa: F401,E402  (re-exported, likewise)
from .common import (InputError, _bot_list, _bots, _check_backend, _format, _label,  # noqa: F401,E402
                     _load_state, _read_only, _settings, os_problem, reading, writable_folder)
from .shared_options import bot_file_option as _bot_file_option  # noqa: F401,E402
from .benchmark import _gpu_bench, bench  # noqa: E402
from .contests import match, tournament  # noqa: E402
from .listings import bots_command, formats, options  # noqa: E402
from .playing import play  # noqa: E402
from .positions import moves, show  # noqa: E402
from .recording import replay  # noqa: E402
from .simulation import simulate  # noqa: E402
from .studies import balance, report  # noqa: E402


class Main(click.Group):
    """The command group; it turns what escapes a command into one line. A bad bot file or a file-system
    error (a full disk, a read-only folder, a file where a folder should be) is the user's to fix: exit 2.
    Anything else is a bug of ours: one line naming it, exit 1, and KHASINO_TRACEBACK=1 shows the
    traceback."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        """click's standalone handling, with a usage error (an unknown option, a value of the wrong type) in
        one line as well: the problem, then where help is. Ctrl-C and SIGTERM stop every command within about
        a second, in one line, exit 130 or 143 (cli/interrupts.py)."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, **extra)
        with interrupts.installed():
            try:
                code = super().main(args, prog_name, complete_var, False, **extra)
            except click.UsageError as e:
                where = e.ctx.command_path if e.ctx is not None else "khasino"
                message = " ".join(e.format_message().split())
                click.echo(f"Error: {message} (`{where} -h` for help)", err=True)
                sys.exit(e.exit_code)
            except click.ClickException as e:
                e.show()
                sys.exit(e.exit_code)
            except (click.Abort, KeyboardInterrupt):    # Ctrl-C outside a command's own code (reading options)
                interrupts.stop()
            sys.exit(code if isinstance(code, int) else 0)

    def invoke(self, ctx):
        from ..userbots import UserBotError
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort, SystemExit):
            raise
        except KeyboardInterrupt:       # Ctrl-C or SIGTERM (cli/interrupts.py): its one line, exit 130 or 143
            interrupts.stop()
        except UserBotError as e:
            raise InputError(str(e)) from None
        except BrokenPipeError:         # the reader stopped early (`| head`): the rest is discarded, exit 0
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())       # Python flushes stdout again at exit
            sys.exit(0)
        except OSError as e:
            raise InputError(os_problem(e)) from None
        except Exception as e:
            if os.environ.get("KHASINO_TRACEBACK"):
                raise
            first = str(e).splitlines()[0] if str(e) else ""
            click.echo(f"internal error: {type(e).__name__}: {first[:300]} (a bug in khasino-sim; please report "
                       "it; KHASINO_TRACEBACK=1 shows the traceback)", err=True)
            sys.exit(1)


@click.group(cls=Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="khasino-sim")
def main():
    """khasino-sim: exact, fast simulation of the Cassino family of card games."""


for _command in (formats, moves, show, play, simulate, bots_command, options, bench, tournament, match, balance,
                 report, replay):
    main.add_command(_command)
del _command
