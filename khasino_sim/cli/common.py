"""What every command of `khasino` shares: the InputError that makes bad input one line and exit 2, and the
helpers that read what the user gave (a state file, a format, bots, --set pairs) or check where results go
(a writable folder, a run folder that reads back)."""
import contextlib
import errno
import os
import sys

import click

from ..formats import get_format


class InputError(click.ClickException):
    """A problem with what the user gave us: one line, exit code 2."""
    exit_code = 2


def _label(name):
    """A bot's name in a default output folder: a user bot's (a trained policy's) file stem."""
    return os.path.splitext(os.path.basename(name))[0] if name.startswith(("file:", "policy:")) else name


def _load_state(path):
    """The state in a JSON file ("-": stdin), validated and written canonically (docs/ENGINE.md)."""
    from ..state_json import StateError, parse, read_text, to_json
    try:
        if path == "-":
            if sys.stdin.isatty():      # not a hang: say what the command waits for
                click.echo("reading the state from standard input (end it with Ctrl-D)", err=True)
            text = read_text(sys.stdin.buffer)
        else:
            with open(path, "rb") as f:
                text = read_text(f)
        fmt, st, decision = parse(text)
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror or e}")
    except StateError as e:
        raise InputError(f"{path}: {e}")
    return to_json(st, fmt, decision)


def os_problem(e, folder=None):
    """One line for a file-system error: the path (the error's own, else the `folder` being written) and why,
    pyarrow's errors included."""
    text = str(e).strip()
    reason = e.strerror or (text.splitlines()[0][:200] if text else type(e).__name__)
    if e.errno == errno.ENOSPC or "No space left" in text:
        reason = "no space left on the device"
    path = e.filename or folder
    return f"cannot write {path}: {reason}" if path else reason


@contextlib.contextmanager
def reading(folder):
    """Around reading a run's results: a missing, damaged or edited file (the manifest's checks,
    khasino_sim/run_folder.py), or a Parquet file that does not read as a run's table, is one line naming it,
    exit 2; a stray file in the run's folders is one warning line on stderr."""
    import warnings
    import pyarrow as pa
    from ..run_folder import RunFolderError, StrayFile
    try:
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always", StrayFile)
            yield
    except RunFolderError as e:
        raise InputError(str(e)) from None
    except pa.ArrowException as e:      # listed and unchanged, yet not a run's table: written by something else
        text = str(e).strip().splitlines()
        raise InputError(f"the results in {folder} do not read as a khasino run's tables "
                         f"({text[0][:120] if text else type(e).__name__})") from e
    finally:
        shown = set()
        for w in said:
            if issubclass(w.category, StrayFile) and str(w.message) not in shown:
                shown.add(str(w.message))
                click.echo(f"warning: {w.message}", err=True)
            elif not issubclass(w.category, StrayFile):
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def writable_folder(path, option):
    """InputError (one line) unless `path` is, or can be made, a folder this process may write in: checked
    before any game is played, so a bad --out or --report costs nothing."""
    if not str(path).strip():
        raise InputError(f"{option} needs a folder, not an empty name")
    if os.path.exists(path) and not os.path.isdir(path):
        raise InputError(f"{option} {path} is a file, not a folder")
    parent = os.path.abspath(path)
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent):
        raise InputError(f"{option} {path}: {parent} is a file, not a folder")
    if not os.access(parent, os.W_OK | os.X_OK) or _read_only(parent):
        raise InputError(f"{option} {path}: {parent} is not writable")


def output_file(path, option):
    """One line, before any work, if a file a command writes (--json, --save, --trace, --record, --record-out)
    is a symbolic link (files.replacing never writes through one) or a folder, exists unwritable, or its folder
    cannot be made or written. The folders above the file are the user's choice, and followed."""
    from ..files import LinkError, check_not_link
    if not str(path).strip():
        raise InputError(f"{option} needs a file name, not an empty one")
    try:
        check_not_link(path)
    except LinkError as e:
        raise InputError(f"{option} {e.filename} {e.strerror}") from None
    if os.path.isdir(path):
        raise InputError(f"{option} {path} is a folder, not a file")
    if os.path.exists(path) and not os.access(path, os.W_OK):
        raise InputError(f"{option} {path} is not writable")
    writable_folder(os.path.dirname(os.path.abspath(path)), option)


def output_folders(out, report_dir=None):
    """Check --out (and --report, when given) before any game is played."""
    writable_folder(out, "--out")
    if report_dir:
        writable_folder(report_dir, "--report")


def default_out(kind, fmt_name, tag, seed, games):
    """A run's default output folder: results/[KIND-]FORMAT-TAG-sSEED-nGAMES."""
    return os.path.join("results", f"{kind + '-' if kind else ''}{fmt_name}-{tag}-s{seed}-n{games}")


def bots_tag(names):
    """The bots in a default output folder's name: their labels joined by "-"."""
    return "-".join(map(_label, names))


def to_stderr(line):
    """A progress line, on stderr (stdout keeps the results)."""
    click.echo(line, err=True)


def _read_only(folder):
    """True on a file system mounted read-only (where even root cannot write)."""
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _format(name):
    """The registered format `name`; an unknown name is one line."""
    try:
        return get_format(name)
    except KeyError as e:
        raise InputError(e.args[0])


def _settings(pairs):
    """The --set NAME=VALUE pairs as a dict of rule options (values still text). An option set twice is
    refused (the last would silently win), and so is a name without a value."""
    from ..text import printable

    def clip(text, width=40):       # a message stays one short line whatever was typed
        return printable(text, width)
    out = {}
    for p in pairs:
        k, eq, v = (x.strip() for x in p.partition("="))
        if not eq or not k:
            raise InputError(f"--set takes NAME=VALUE, not {clip(p)!r}")
        if not v:
            raise InputError(f"--set {clip(k)} needs a value: --set {clip(k)}=VALUE (`khasino options` lists "
                             "the options and their values)")
        if k in out:
            raise InputError(f"--set {clip(k)} is given twice ({clip(out[k], 20)} and {clip(v, 20)}); give it once")
        out[k] = v
    return out


def _bot_list(text, what="--bots"):
    """The bot specs of a comma-separated list; a malformed one is one line naming `what`."""
    from ..bots import split_list, BotSpecError
    try:
        return split_list(text)
    except BotSpecError as e:
        raise InputError(f"{what}: {e}")


def _check_playable(names, family, format_name=None):
    """One line, before anything runs, if a bot cannot play this family (a bot file that does not load; a
    trained policy in a Kasino format, or one trained for another format than `format_name`)."""
    from ..bots import check_playable, BotSpecError
    try:
        check_playable(names, family, format_name)
    except BotSpecError as e:
        raise InputError(str(e))


def _no_policy_records(names):
    """--record replays games through the core's bots (khasino_sim/records.py): one line if a trained policy
    plays."""
    from ..bots import is_policy
    if any(is_policy(b) for b in names):
        raise InputError("--record replays games with the compiled bots; a trained policy's games are not "
                         "recorded (leave out --record)")


def _bots(spec, fmt):
    """One bot per seat of `fmt` from --bots: one name for all seats, one per team in team formats, or one
    per seat."""
    from ..bots import split_list, BotSpecError
    from ..runs import expand_bots
    seats = fmt.seats
    try:
        names = split_list(spec)
    except BotSpecError as e:
        raise InputError(str(e))
    if len(names) == 1:
        names = names * seats
    names = list(expand_bots(fmt.name, names))       # team formats: one bot per team
    if len(names) != seats:
        per_team = f", {fmt.n_teams} (one per team)" if fmt.teams else ""
        raise InputError(f"give one bot{per_team}, or {seats} (one per seat), not {len(names)}")
    _check_playable(names, fmt.family, fmt.name)
    return names


def _check_backend(backend, names, dask=None):
    """Exit 2 with one line, before anything is written, if `backend` cannot play these bots here."""
    from ..runs import check_backend, SimulationError
    try:
        check_backend(backend, names, dask)
    except SimulationError as e:
        raise InputError(str(e))


def resume_hint(out):
    """What the interrupted line says of a run writing to `out` (simulate, tournament, balance): what is kept,
    and how to finish it."""
    return f"finished shards are kept in {out}; finish with the same command and --resume"


def resumable(out):
    """Register the resume hint of a run writing to `out`: Ctrl-C or SIGTERM from now on prints
    "interrupted: finished shards are kept in OUT; ..." (cli/interrupts.py)."""
    from . import interrupts
    interrupts.on_interrupt(resume_hint(out))


def command_line():
    """The command as the user typed it, for a run's manifest."""
    return " ".join(["khasino"] + sys.argv[1:])
