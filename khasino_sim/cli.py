"""The `khasino` command: formats, positions (moves, show), single games and simulations.

Bad input (a malformed or impossible state, an unknown format or bot, a bad option) is one line on stderr and
exit code 2, never a traceback.
"""
import contextlib
import errno
import json
import os
import sys

import click

from .formats import FORMATS, get_format


class InputError(click.ClickException):
    """A problem with what the user gave us: one line, exit code 2."""
    exit_code = 2


def _bot_file_option(command):
    """--bot-file PATH (repeatable) on a command that names bots: the file's stem becomes a bot name meaning the
    user bot file:PATH (khasino_sim/userbots.py), registered before the bots are read."""
    def register(ctx, param, value):
        from .bots import add_bot_file, BotSpecError
        for path in value:
            try:
                add_bot_file(path)
            except BotSpecError as e:
                raise InputError(str(e))
        return value
    return click.option("--bot-file", "bot_files", multiple=True, metavar="PATH", expose_value=False,
                        is_eager=True, callback=register,
                        help="A user bot: a file defining score(view, move), in Python or numba.njit "
                        "(khasino_sim/userbots.py); its name is the file's stem. Repeatable.")(command)


def _label(name):
    """A bot's name in a default output folder: a user bot's file stem."""
    return os.path.splitext(os.path.basename(name))[0] if name.startswith("file:") else name


def _load_state(path):
    """The state in a JSON file ("-": stdin), validated and written canonically (docs/ENGINE.md)."""
    from .state_json import StateError, parse, read_text, to_json
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


RESUME_HINT = "; run the same command with --resume to play its games again"


@contextlib.contextmanager
def reading(folder, hint=RESUME_HINT):
    """Around reading a run's results: a damaged manifest, or a Parquet file that does not read back, is one
    line naming the file (found by reading every file of `folder`), exit 2."""
    import pyarrow as pa
    from .storage import RunFolderError, damaged_file
    try:
        yield
    except RunFolderError as e:
        raise InputError(str(e)) from None
    except (pa.ArrowException, OSError) as e:
        bad = damaged_file(folder) if os.path.isdir(folder) else None
        if bad is not None:
            raise InputError(f"{bad[0]} does not read back ({bad[1]}){hint}") from e
        if isinstance(e, pa.ArrowException):    # every file reads, but not as a run's tables (moved, replaced)
            text = str(e).strip().splitlines()
            raise InputError(f"the results in {folder} do not read as a khasino run's tables "
                             f"({text[0][:120] if text else type(e).__name__})") from e
        raise


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


def _read_only(folder):
    """True on a file system mounted read-only (where even root cannot write)."""
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return False


class Main(click.Group):
    """The command group; it turns what escapes a command into one line. A bad bot file or a file-system
    error (a full disk, a read-only folder, a file where a folder should be) is the user's to fix: exit 2.
    Anything else is a bug of ours: one line naming it, exit 1, and KHASINO_TRACEBACK=1 shows the
    traceback."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        """click's standalone handling, with a usage error (an unknown option, a value of the wrong type) in
        one line as well: the problem, then where help is."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, **extra)
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
        except click.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)

    def invoke(self, ctx):
        from .userbots import UserBotError
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort, KeyboardInterrupt, SystemExit):
            raise
        except UserBotError as e:
            raise InputError(str(e)) from None
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


@main.command()
def formats():
    """List the registered formats, one line each, with the seed rulebook each follows."""
    width = max(len(n) for n in FORMATS)
    for name in sorted(FORMATS):
        f = FORMATS[name]
        click.echo(f"{name:<{width}}  seed {f.seed}: {f.description}")


@main.command()
@click.argument("state_file", metavar="STATE.json")
@click.option("--count", is_flag=True, help="Print only the number of distinct legal moves.")
@click.option("--limit", type=click.IntRange(min=0), default=None, metavar="N",
              help="Print at most N moves.")
def moves(state_file, count, limit):
    """Print every distinct legal move of STATE.json, one JSON object per line (card, kind, text, result).

    Any position is listed completely, streaming in bounded memory, however many moves it has."""
    from .engine import iter_moves, count_moves, EngineError, StateError
    state = _load_state(state_file)
    try:
        if count:
            click.echo(count_moves(state))
            return
        for i, m in enumerate(iter_moves(state)):
            if limit is not None and i >= limit:
                break
            click.echo(json.dumps(m.to_json()))
    except StateError as e:          # a 4p Stay decision whose move is not a legal capture
        raise InputError(f"{state_file}: {e}")
    except EngineError as e:
        raise InputError(str(e))


def _cards(cards):
    return " ".join(cards) if cards else "-"


def _changed_options(fmt, options):
    """" (name, name=value, ...)" for the state's options that differ from its format's own; "" if none."""
    from .state_json import options_json
    own = options_json(fmt)
    changed = [k if v is True else f"{k}={str(v).lower()}" for k, v in sorted(options.items()) if own.get(k) != v]
    return f" ({', '.join(changed)})" if changed else ""


def render(state):
    """The position as terminal text."""
    fmt = get_format(state["format"])
    lines = []
    name = fmt.name + _changed_options(fmt, state.get("options", {}))
    head = f"{name} · deal {state['deal']} of {fmt.deals}"
    if fmt.family == "kasino":  # N1-N7
        tabbe = [p + m for p, m in state["tabbe"]]
        head = (f"{name} · round {state['round']} of {state['rounds']}, dealt by seat {state['dealer']} · match "
                f"totals {state['scores']}" + (f" · tabbe {tabbe}" if any(p or m for p, m in state["tabbe"]) else "")
                + f" · deal {state['deal']} of {fmt.deals}")
    elif "round" in state:      # Cassino (C7, P20)
        head = (f"{name} · round {state['round']}, dealt by seat "
                f"{state['dealer']} · match totals {state['scores']}"
                + (f" · sweeps {state['sweeps']}" if any(state["sweeps"]) else "")
                + f" · deal {state['deal']} of {fmt.deals}")
    if state.get("to_move") is None:
        head += " · round over" if "round" in state else " · game over"
    else:
        head += f" · seat {state['to_move']} to move"
    last = state.get("last_capturer")
    head += f" · last capture: {'none' if last is None else 'seat ' + str(last)}"
    lines.append(head)
    for s, hand in enumerate(state["hands"]):
        pile = state["piles"][s]
        top = f", top {pile[-1]}" if pile and fmt.family != "kasino" else ""   # a Kasino pile has no order
        marker = ">" if state.get("to_move") == s else " "
        lines.append(f"{marker} seat {s}  hand [{_cards(hand)}]  pile {len(pile)} card(s){top}")
    table = state["table"]
    lines.append(f"  table   loose [{_cards(table['loose'])}]")
    for b in table["builds"]:
        kind = "simple" if len(b["groups"]) == 1 else "compound"
        groups = " ".join("[" + " ".join(g) + "]" for g in b["groups"])
        lines.append(f"          build {b['value']:>2} ({kind}, seat {b['owner']}): {groups}")
    if state.get("set_aside"):
        lines.append(f"  aside   [{_cards(state['set_aside'])}]")
    lines.append(f"  stock   {len(state['stock'])} card(s)")
    if state.get("to_move") is None:
        from .engine import scores
        pts = ", ".join(f"seat {s}: {sc['score']}" for s, sc in enumerate(scores(state)))
        lines.append(f"  score   {pts}")
    return "\n".join(lines)


@main.command()
@click.argument("state_file", metavar="STATE.json")
def show(state_file):
    """Draw the position in STATE.json legibly in the terminal."""
    click.echo(render(_load_state(state_file)))


def _bots(spec, fmt):
    from .bots import split_list, check_playable, BotSpecError
    from .runs import expand_bots
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
    try:
        check_playable(names, fmt.family)       # a bot file that does not load: one line before anything runs
    except BotSpecError as e:
        raise InputError(str(e))
    return names


def _gpu_bench(games, fmt_names, pairings, json_path, layout, threads_per_block):
    """`bench --backend cuda` (khasino_sim/gpu_bench.py): one line per cell, the report to --json."""
    from . import gpu, gpu_bench
    from .formats import FORMATS
    from .bench import _names, BenchError
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
        with open(json_path, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=1)
        click.echo(f"report     {json_path}")


def _check_backend(backend, names, dask=None):
    """Exit 2 with one line, before anything is written, if `backend` cannot play these bots here."""
    from .runs import check_backend, SimulationError
    try:
        check_backend(backend, names, dask)
    except SimulationError as e:
        raise InputError(str(e))


def _format(name):
    try:
        return get_format(name)
    except KeyError as e:
        raise InputError(e.args[0])


@main.command()
@click.option("--format", "fmt_name", default="khasino", show_default=True, help="Format to play.")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**64 - 1), help="Game seed.")
@click.option("--bots", default="greedy,random", show_default=True,
              help="One bot per seat (or one for all; one per team in khasino-4p).")
@click.option("--json", "as_json", is_flag=True, help="Print each position as a JSON state instead.")
@_bot_file_option
def play(fmt_name, seed, bots, as_json):
    """Play one game in the compiled core and print it move by move, replayed through the Python API (in
    Cassino: the first round of a match, dealt from the round seed SEED)."""
    from .engine import new_game, legal_moves, play_game, play_round, scores
    fmt = _format(fmt_name)
    names = _bots(bots, fmt)
    game = (play_round if fmt.matches else play_game)(fmt.name, seed, names)
    state = new_game(fmt.name, seed)
    for key in game["keys"]:
        click.echo(json.dumps(state) if as_json else render(state))
        moves = legal_moves(state)
        move = next((m for m in moves if m.key == key), moves[0])
        p = state["to_move"]
        click.echo(f"  seat {p} ({names[p]}): {move.text}\n")
        state = move.result
    click.echo(json.dumps(state) if as_json else render(state))
    pts = scores(state)
    click.echo("final: " + ", ".join(f"seat {s} ({names[s]}) {sc['score']}" for s, sc in enumerate(pts)))


def _settings(pairs):
    out = {}
    for p in pairs:
        if "=" not in p:
            raise InputError(f"--set takes NAME=VALUE, not {p!r}")
        k, v = p.split("=", 1)
        out[k.strip()] = v.strip()
    return out


@main.command()
@click.option("--format", "fmt_name", default="khasino", show_default=True, help="Format to play.")
@click.option("--games", default=100_000, show_default=True, type=int, help="Number of games.")
@click.option("--bots", default="greedy,random", show_default=True,
              help="One bot per seat, comma-separated (random, greedy, heuristic); khasino-4p also takes one per team "
              "(greedy,random: seats A, B greedy, C, D random), teams swapping sides every game.")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**64 - 1), help="Root seed.")
@click.option("--out", default=None, help="Output folder [default: results/FORMAT-BOTS-sSEED-nGAMES].")
@click.option("--workers", default=None, type=click.IntRange(1, 1024),
              help="Threads on this machine [default: all cores].")
@click.option("--shard-size", default=50_000, show_default=True, type=int, help="Games per Parquet file.")
@click.option("--no-rotate", is_flag=True, help="Keep each bot on its seat instead of rotating seats.")
@click.option("--set", "settings", multiple=True, metavar="NAME=VALUE",
              help="Rule option, e.g. --set follow_ups=false (see `khasino options`).")
@click.option("--dask", default=lambda: os.environ.get("KHASINO_DASK"), metavar="tcp://HOST:PORT",
              help="Run the shards on a Dask cluster [env KHASINO_DASK].")
@click.option("--resume", is_flag=True, help="Finish an interrupted run in --out.")
@click.option("--force", is_flag=True, help="Replace another run's output in --out.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option("--series", default=1, show_default=True, type=int, metavar="K",
              help="Play series of K matches, the previous match's lowest scorer leading the next (3p, P10).")
@click.option("--rounds", default=0, type=int, metavar="1",
              help="Cassino, Kasino: --rounds 1 plays single rounds [default: whole matches (Cassino to 21, "
              "Kasino `match_rounds` rounds), one row per match and a rounds table with one row per round].")
@click.option("--backend", type=click.Choice(["cpu", "cuda"]), default="cpu", show_default=True,
              help="cuda: play each shard on this machine's NVIDIA GPU (the same rows as the CPU).")
@_bot_file_option
def simulate(fmt_name, games, bots, seed, out, workers, shard_size, no_rotate, settings, dask, resume, force,
             quiet, series, rounds, backend):
    """Play many bot-vs-bot games and write per-game and per-seat statistics to a Parquet dataset
    (docs/RESULTS.md), then print a summary: win rate per bot, per seat and, in khasino-4p, per team."""
    import time
    from .runs import simulate as run, SimulationError, RunSpec, validate, warm_up
    from .stats import summarize, format_summary
    fmt = _format(fmt_name)
    names = _bot_list(bots)
    if out is None:
        out = f"results/{fmt.name}-{'-'.join(map(_label, names))}-s{seed}-n{games}"
    spec = RunSpec(format=fmt.name, games=games, bots=tuple(names), seed=seed, rotate=not no_rotate,
                   options=_settings(settings), shard_size=shard_size, series=series, rounds=rounds)
    try:
        validate(spec)
    except SimulationError as e:
        raise InputError(str(e))
    _check_backend(backend, names, dask)
    writable_folder(out, "--out")
    from .storage import read_manifest, RunFolderError
    try:
        previous = read_manifest(out) if os.path.isdir(out) else None
    except RunFolderError:
        previous = None             # the run refuses it below (or --force replaces it)
    already = bool(previous and previous.get("complete") and previous.get("spec") == spec.identity()
                   and not force)
    if not dask:
        compile_s = warm_up(spec)
        if compile_s > 2 and not quiet:
            click.echo(f"compiled the core in {compile_s:.0f} s (cached for later runs)", err=True)
    started = time.time()
    try:
        path = run(format=fmt.name, games=games, bots=names, seed=seed, out=out, workers=workers,
                   shard_size=shard_size, rotate=not no_rotate, options=_settings(settings), dask=dask,
                   resume=resume, force=force, quiet=quiet, command=" ".join(["khasino"] + sys.argv[1:]),
                   series=series, rounds=rounds, backend=backend)
    except SimulationError as e:
        raise InputError(str(e))
    except KeyboardInterrupt:
        click.echo(f"interrupted: finished shards are kept in {out}; finish with the same command and --resume",
                   err=True)
        sys.exit(130)
    except OSError as e:          # a full disk, a folder gone read-only: what is done is kept
        raise InputError(f"{os_problem(e, out)}; finished shards are kept: fix it, then run the same command "
                         "with --resume") from None
    except RuntimeError as e:     # an engine guard (a scratch bound exceeded: never expected), not bad input
        click.echo(f"Error: {e}", err=True)
        sys.exit(1)
    elapsed = time.time() - started
    click.echo(f"results    {path}" + ("  (this run was already complete)" if already else ""))
    with reading(path):
        summary = summarize(path)
    click.echo(format_summary(summary, None if already else elapsed,
                              unit="matches" if spec.matches() and not rounds else "games"))


@main.command("bots")
def bots_command():
    """List the bots, their parameters and defaults (a bot spec is NAME or NAME:KEY=VALUE,...; in a list of
    bots a KEY=VALUE item continues the bot before it: --bots heuristic:cards=20,spades=5,greedy)."""
    from .bots import BOTS, PARAM_HELP, POLICIES
    for name, (text, params) in BOTS.items():
        click.echo(f"{name:<10} {text}")
        for key, value in params.items():
            shown = POLICIES[value] if key == "policy" else value
            click.echo(f"  {key:<14} default {shown:<9} {PARAM_HELP.get(key, '')}")


@main.command()
def options():
    """List the rule options `simulate --set` accepts, with each format's value, one table per family."""
    from .formats import options_of
    families = {}
    for name in sorted(FORMATS):
        families.setdefault(FORMATS[name].family, []).append(name)
    for i, names in enumerate(families.values()):
        if i:
            click.echo("")
        width = max(len(n) for n in names)
        click.echo(f"{'option':<30} " + " ".join(f"{n:>{width}}" for n in names) + "  meaning")
        for opt, (_, meaning) in FORMATS[names[0]].options.items():
            vals = " ".join(f"{str(options_of(FORMATS[n])[opt]):>{width}}" for n in names)
            click.echo(f"{opt:<30} {vals}  {meaning}")


@main.command()
@click.option("--games", default=None, type=click.IntRange(1), help="Core games per cell, seeds 0..N-1 "
              "[default: 20000; 2000 with --quick].")
@click.option("--ref-games", default=None, type=click.IntRange(0), help="Reference games per cell; 0 skips the "
              "reference [default: 30; 5 with --quick].")
@click.option("--repeats", default=None, type=click.IntRange(1), help="Core timings per cell, best kept "
              "[default: 3; 2 with --quick].")
@click.option("--formats", "fmt_names", default=None, metavar="A,B", help="Formats [default: all registered].")
@click.option("--pairings", default=None, metavar="A,B",
              help="Bot pairings: random-random, greedy-greedy, heuristic-heuristic [default: these three]; "
                   "rollout-rollout, ismcts-ismcts (the search bots at their defaults, games/1000 of them).")
@click.option("--quick", is_flag=True, help="A smaller workload (noisier figures).")
@click.option("--json", "json_path", default=None, metavar="PATH", help="Write the report (docs/BENCH.md) here.")
@click.option("--compare", "baseline_path", default=None, metavar="BASELINE.json",
              help="Exit 1 if a normalised figure fell by more than --tolerance against this report.")
@click.option("--tolerance", default=0.10, show_default=True, type=float,
              help="Allowed fall of a normalised figure, as a fraction (0.10 = 10%).")
@click.option("--report", "report_path", default=None, metavar="REPORT.json",
              help="Read this saved report instead of running the benchmark (then the workload options and "
              "--json are unused).")
@click.option("--backend", type=click.Choice(["cpu", "cuda"]), default="cpu", show_default=True,
              help="cuda: games/s on this machine's NVIDIA GPU, kernel and end to end to Parquet, beside the CPU's "
              "(default workload: khasino, greedy-random, 1,000,000 games).")
@click.option("--layout", type=click.Choice(["global", "local"]), default="global", show_default=True,
              help="With --backend cuda: where each thread's state and deck live (docs/ENGINE.md, GPU backend).")
@click.option("--threads-per-block", default=64, show_default=True, type=click.IntRange(1, 1024),
              help="With --backend cuda: the launch's block size.")
def bench(games, ref_games, repeats, fmt_names, pairings, quick, json_path, baseline_path, tolerance,
          report_path, backend, layout, threads_per_block):
    """Benchmark the core for CI: games/s per thread per format and pairing, the reference ratio, and
    figures normalised by a calibration workload, compared with a baseline report (docs/BENCH.md)."""
    from . import bench as B
    if json_path:
        if os.path.isdir(json_path):
            raise InputError(f"--json {json_path} is a folder; give the report's file name")
        writable_folder(os.path.dirname(os.path.abspath(json_path)), "--json")
    if backend == "cuda":
        _gpu_bench(games, fmt_names, pairings, json_path, layout, threads_per_block)
        return
    try:
        tolerance = B.check_tolerance(tolerance)
        baseline = B.load_report(baseline_path) if baseline_path else None
        if report_path:
            report = B.load_report(report_path)
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
            report = B.run_bench(**work, progress=click.echo)
            click.echo(B.format_footer(report))
    except B.BenchError as e:
        raise InputError(str(e))
    if json_path and not report_path:
        try:
            B.write_report(report, json_path)
        except OSError as e:
            raise InputError(f"cannot write {json_path}: {e.strerror or e}")
        click.echo(f"report     {json_path}")
    if baseline is not None:
        for line in B.format_comparison(report, baseline, tolerance, baseline_path):
            click.echo(line)
        regressions = B.compare(report, baseline, tolerance)
        if regressions:
            click.echo(f"{len(regressions)} regression(s) beyond {tolerance:.0%}: "
                       + ", ".join(r["cell"] for r in regressions), err=True)
            sys.exit(1)
        click.echo(f"no regression beyond {tolerance:.0%}")


if __name__ == "__main__":
    main()


def _bot_list(text, what="--bots"):
    from .bots import split_list, BotSpecError
    try:
        return split_list(text)
    except BotSpecError as e:
        raise InputError(f"{what}: {e}")


@main.command()
@click.option("--format", "fmt_name", default="khasino", show_default=True, help="Format to play.")
@click.option("--bots", required=True, help="The entrants, comma-separated (each once).")
@click.option("--games", default=10_000, show_default=True, type=click.IntRange(1), help="Duplicate deals.")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**64 - 1), help="Root seed.")
@click.option("--out", default=None, help="Output folder [default: results/tournament-FORMAT-BOTS-sSEED-nGAMES].")
@click.option("--workers", default=None, type=click.IntRange(1, 1024), help="Threads [default: all cores].")
@click.option("--set", "settings", multiple=True, metavar="NAME=VALUE", help="Rule option (`khasino options`).")
@click.option("--report", "report_dir", default=None, help="Also write tables, figures and report.md here.")
@click.option("--resume", is_flag=True, help="Finish an interrupted tournament in --out.")
@click.option("--force", is_flag=True, help="Replace another tournament's output in --out.")
@click.option("--backend", type=click.Choice(["cpu", "cuda"]), default="cpu", show_default=True,
              help="cuda: play on this machine's NVIDIA GPU (the same games).")
@_bot_file_option
def tournament(fmt_name, bots, games, seed, out, workers, settings, report_dir, resume, force, backend):
    """Every bot against every other on duplicate deals: each seat assignment plays the same deals (a
    `simulate` run each, in OUT/assignment-NNNN); prints the crosstable of score rates and the ratings."""
    from .tournament import run, format_tables, write_report, TournamentError
    fmt = _format(fmt_name)
    names = _bot_list(bots)
    _check_backend(backend, names)
    if out is None:
        out = os.path.join("results", f"tournament-{fmt.name}-{'-'.join(map(_label, names))}-s{seed}-n{games}")
    writable_folder(out, "--out")
    if report_dir:
        writable_folder(report_dir, "--report")
    try:
        with reading(out):
            run(fmt.name, names, games, seed, out, _settings(settings), workers, resume, force,
                log=lambda line: click.echo(line, err=True), backend=backend)
    except (TournamentError, ValueError) as e:
        raise InputError(str(e))
    with reading(out):
        for line in format_tables(out):
            click.echo(line)
        if report_dir:
            click.echo(f"report     {write_report(out, report_dir) / 'report.md'}")


@main.command()
@click.argument("bot_a")
@click.argument("bot_b")
@click.option("--format", "fmt_name", default="khasino", show_default=True, help="A format of two seats or teams.")
@click.option("--sprt", "sprt_text", default="elo0=0,elo1=10", show_default=True,
              help="elo0=E0,elo1=E1[,alpha=A,beta=B] (logistic Elo; alpha = beta = 0.05 by default).")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**64 - 1), help="Root seed.")
@click.option("--batch", default=500, show_default=True, type=click.IntRange(1), help="Pairs between tests.")
@click.option("--max-pairs", default=1_000_000, show_default=True, type=click.IntRange(1),
              help="Stop undecided after this many duplicate pairs.")
@click.option("--set", "settings", multiple=True, metavar="NAME=VALUE", help="Rule option (`khasino options`).")
@_bot_file_option
def match(bot_a, bot_b, fmt_name, sprt_text, seed, batch, max_pairs, settings):
    """BOT_A against BOT_B on duplicate pairs (each deal played twice, seats swapped) until a sequential
    probability ratio test accepts H0 (BOT_A is elo0 stronger) or H1 (elo1); prints the verdict, the Elo
    estimate with its 95% interval and the games played."""
    from .duplicate import pair_counts
    from .sprt import SPRT, parse_sprt
    fmt = _format(fmt_name)
    _bot_list(f"{bot_a},{bot_b}", "the bots")
    from .bots import check_playable, BotSpecError
    try:
        check_playable([bot_a, bot_b], fmt.family)
    except BotSpecError as e:
        raise InputError(str(e))
    try:
        test = SPRT(**parse_sprt(sprt_text))
        options = _settings(settings)
        start = 0
        verdict = None
        while verdict is None and start < max_pairs:
            n = min(batch, max_pairs - start)
            test.add(pair_counts(fmt.name, bot_a, bot_b, seed, start, n, options))
            start += n
            verdict = test.verdict()
    except ValueError as e:
        raise InputError(str(e))
    elo, lo, hi = test.elo()
    lo_b, hi_b = test.bounds
    what = {"H1": f"H1 accepted: {bot_a} is stronger than {bot_b} by elo1 = {test.elo1:g}",
            "H0": f"H0 accepted: {bot_a} is not stronger than {bot_b} by more than elo0 = {test.elo0:g}",
            None: f"no verdict after {max_pairs:,} pairs"}[verdict]
    click.echo(f"{fmt.name}: {what}")
    click.echo(f"LLR {test.llr():.3f} (bounds {lo_b:.3f}, {hi_b:.3f}); pairs {test.pairs:,} = games "
               f"{2 * test.pairs:,}; pentanomial {test.counts}")
    click.echo(f"Elo {bot_a} - {bot_b}: {elo:+.1f} [{lo:+.1f}, {hi:+.1f}] (95%)")


@main.command()
@click.option("--format", "fmt_name", default="khasino", show_default=True, help="Format to play.")
@click.option("--vary", "vary", multiple=True, required=True, metavar="NAME=V1,V2",
              help="A rule option and the values to compare (repeatable: the grid is their product; "
              "`khasino options` lists the options).")
@click.option("--bots", default="greedy,greedy", show_default=True,
              help="One bot per seat (or per team), comma-separated; seats rotate every game.")
@click.option("--games", default=100_000, show_default=True, type=click.IntRange(1), help="Games per variant.")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**64 - 1), help="Root seed.")
@click.option("--out", default=None, help="Output folder [default: results/balance-FORMAT-OPTIONS-sSEED-nGAMES].")
@click.option("--workers", default=None, type=click.IntRange(1, 1024), help="Threads [default: all cores].")
@click.option("--shard-size", default=50_000, show_default=True, type=click.IntRange(1), help="Games per file.")
@click.option("--set", "settings", multiple=True, metavar="NAME=VALUE", help="A rule option fixed for every variant.")
@click.option("--report", "report_dir", default=None, help="Also write figures, tables and report.md here.")
@click.option("--dask", default=lambda: os.environ.get("KHASINO_DASK"), metavar="tcp://HOST:PORT",
              help="Run the shards on a Dask cluster [env KHASINO_DASK].")
@click.option("--resume", is_flag=True, help="Finish an interrupted study in --out.")
@click.option("--force", is_flag=True, help="Replace another study's output in --out.")
@click.option("--quiet", is_flag=True, help="No progress bars.")
@click.option("--backend", type=click.Choice(["cpu", "cuda"]), default="cpu", show_default=True,
              help="cuda: play on this machine's NVIDIA GPU (the same games).")
@_bot_file_option
def balance(fmt_name, vary, bots, games, seed, out, workers, shard_size, settings, report_dir, dask, resume, force,
            quiet, backend):
    """Compare rule variants on the same deals: each variant of the --vary grid plays the same seeded games
    (common random numbers), then the summary gives per variant the win rate per seat with intervals, margins,
    points by category, game length and moves per game, and per pair of variants the paired differences with
    95% intervals and an exact sign test (docs/BALANCE.md)."""
    from . import balance as study
    from .runs import SimulationError
    fmt = _format(fmt_name)
    names = _bot_list(bots)
    fixed = _settings(settings)
    _check_backend(backend, names, dask)
    try:
        grid = study.parse_vary(vary, fmt.name, fixed)
    except study.BalanceError as e:
        raise InputError(str(e))
    if out is None:
        tag = "-".join(n for n, _ in grid)
        out = os.path.join("results", f"balance-{fmt.name}-{tag}-s{seed}-n{games}")
    writable_folder(out, "--out")
    if report_dir:
        writable_folder(report_dir, "--report")
    try:
        with reading(out):
            path = study.run(fmt.name, grid, names, games, seed, out, fixed, workers, shard_size, dask, resume, force,
                             quiet, command=" ".join(["khasino"] + sys.argv[1:]),
                             log=None if quiet else (lambda line: click.echo(line, err=True)), backend=backend)
    except (study.BalanceError, SimulationError) as e:
        raise InputError(str(e))
    except KeyboardInterrupt:
        click.echo(f"interrupted: finished shards are kept in {out}; finish with the same command and --resume",
                   err=True)
        sys.exit(130)
    with reading(path):
        summary = study.summarize(path)
    click.echo(f"results    {path}")
    click.echo(study.format_summary(summary))
    if report_dir:
        from .report import write_study
        click.echo(f"report     {write_study(summary, report_dir)}")


@main.command()
@click.argument("run_dir", type=click.Path(file_okay=False))
@click.option("--out", "report_dir", default=None, help="Report folder [default: RUN_DIR/report].")
def report(run_dir, report_dir):
    """Write figures (PNG), tables (CSV) and report.md for a `simulate`, `tournament` or `balance` output."""
    from .balance import BalanceError
    from .report import write
    if not os.path.isdir(run_dir):
        raise InputError(f"{run_dir} is not a folder")
    report_dir = report_dir or os.path.join(run_dir, "report")
    writable_folder(report_dir, "--out")
    try:
        with reading(run_dir, "; finish or repair the run with the command that made it and --resume"):
            path = write(run_dir, report_dir)
    except BalanceError as e:
        raise InputError(str(e))
    click.echo(f"report     {path}")
