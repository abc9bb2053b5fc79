"""Game records on the command line (docs/RECORDS.md): the --record options of `simulate`, `tournament` and
`match`, and `khasino replay`, which steps through a recorded game."""
import contextlib
import os
import sys

import click

from .common import InputError, reading
from .shared_options import absolute_path, compose


def record_options(where=True, match=False):
    """--record N, --record-games LIST and (with `where`) --record-where FILTER; for `match` (no run folder, no
    games table): --record-out FILE instead of --record-where."""
    options = [
        click.option("--record", "record_n", default=None, type=click.IntRange(1), metavar="N",
                     help="Keep the full move list of the first N games in OUT/records.jsonl (docs/RECORDS.md); "
                          "with --record-where, of at most N matching games."),
        click.option("--record-games", default=None, metavar="I,J,...",
                     help="Record these games (indices in the games table, from 0) instead."),
    ]
    if match:
        options[0] = click.option("--record", "record_n", default=None, type=click.IntRange(1), metavar="N",
                                  help="Keep the full move list of the first N duplicate pairs (2N games) in "
                                       "--record-out (docs/RECORDS.md).")
        options[1] = click.option("--record-games", default=None, metavar="I,J,...",
                                  help="Record these pairs (indices from 0, both games of each) instead.")
        options.append(click.option("--record-out", default=None, metavar="FILE", callback=absolute_path,
                                    help="Where --record writes [default: results/match-FORMAT-A-B-sSEED/"
                                         "records.jsonl]."))
    elif where:
        options.append(click.option(
            "--record-where", default=None, metavar="FILTER",
            help="Record the games whose games-table row matches FILTER: columns, whole numbers, quoted names, + - "
                 "*, comparisons, and/or/not, parentheses (e.g. \"score_0 - score_1 > 5\", \"winner == 1 and "
                 "bot_0 == 'greedy'\"; docs/RECORDS.md), the first 100 unless --record N."))
    return compose(*options)


def record_choice(record_n, record_games=None, record_where=None, spec=None):
    """The selection (records.selection) the options ask for, or None; InputError (exit 2) on a bad one, a
    --record-where filter checked against the columns of `spec`'s games table before any game is played."""
    from ..records import RecordError, check_where, games_schema, selection
    try:
        choice = selection(record_n, record_where, record_games)
        if choice is not None and "where" in choice and spec is not None:
            check_where(choice["where"], games_schema(spec))
        if choice is not None and "games" in choice and spec is not None and choice["games"][-1] >= spec.games:
            raise RecordError(f"--record-games: the run has games 0 .. {spec.games - 1}, not {choice['games'][-1]}")
    except RecordError as e:
        raise InputError(str(e)) from None
    return choice


@contextlib.contextmanager
def pipe_closed_ok():
    """A reader that stops early (`| head`) ends the output, not with an error: the rest is discarded, exit 0."""
    try:
        yield
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())       # Python flushes stdout again at exit (docs: SIGPIPE)
        sys.exit(0)


def record_steps(path, game=None, line=None):
    """(record, its steps) of the record chosen in the file at `path`, every position rebuilt through the engine
    and checked against what the record says (khasino_sim/record_check.py): exit 2 on a bad file, a bad choice
    or a record that is not the game it claims."""
    from ..records import RecordError, load_record, steps
    try:
        rec = load_record(path, game, line)
    except RecordError as e:
        raise InputError(str(e)) from None
    try:
        return rec, steps(rec)
    except RecordError as e:
        raise InputError(f"{path}: {e}") from None


@click.command()
@click.argument("records_file", metavar="RECORDS.jsonl")
@click.option("--game", type=click.IntRange(0), default=None, metavar="K",
              help="The record of game K (its `game` field) [default: the file's first record].")
@click.option("--line", type=click.IntRange(1), default=None, metavar="L",
              help="The record on line L of the file instead (a tournament file holds a game once per assignment).")
@click.option("--all", "show_all", is_flag=True, help="Print every position and move, without stopping.")
@click.option("--step", is_flag=True,
              help="Step interactively even when stdout is not a terminal (commands read line by line from stdin).")
def replay(records_file, game, line, show_all, step):
    """Step through a recorded game of RECORDS.jsonl (written by `simulate --record`, `tournament --record`,
    `match --record` or `play --record`): each position, then the move played from it.

    Interactive on a terminal: Enter or n next, p or b back, a number jumps to the position before that move
    (the last move + 1: the end), q quits; commands are read line by line, so a pipe can drive it (with
    --step). With --all, or when stdout is not a terminal, every position is printed. The record is checked
    first: every position is rebuilt through the engine, and a record whose moves, seats, bots, scores or
    winner are not the game's is refused."""
    from ..records import describe_step, moves_in, position_before, title
    if show_all and step:
        raise InputError("--all prints every position, --step stops at each: give one")
    rec, positions = record_steps(records_file, game, line)
    total = len(positions)
    click.echo(title(rec))
    if show_all or not (step or sys.stdout.isatty()):
        with pipe_closed_ok():
            for p in positions:
                click.echo("\n".join(describe_step(rec, p, total)) + "\n")
        return
    i = 0
    while True:
        click.echo("\n".join(describe_step(rec, positions[i], total)))
        click.echo(f"[position {i + 1}/{total}] Enter/n next, p/b back, NUMBER jump, q quit> ", nl=False)
        answer = sys.stdin.readline()
        if not sys.stdin.isatty() or not answer:     # a terminal echoes the Enter; a pipe does not
            click.echo("")
        if not answer:              # end of input: as q
            return
        answer = answer.strip().lower()
        if answer in ("", "n"):
            if i + 1 >= total:
                click.echo("(the end of the game; q quits)")
            i = min(i + 1, total - 1)
        elif answer in ("p", "b"):
            i = max(i - 1, 0)
        elif answer == "q":
            return
        elif answer.isdigit():      # the position before that move; the last move + 1 is the end
            n = moves_in(positions)
            if not 1 <= int(answer) <= n + 1:
                click.echo(f"(the game has moves 1 .. {n}: a number from 1 to {n + 1}, the end; the nearest "
                           "shown)")
            i = position_before(positions, int(answer))
        else:
            click.echo(f"(unknown command {answer!r}: Enter/n, p/b, a number, q)")


def tournament_choice(record_n, record_games, record_where, fmt, names, games, options):
    """record_choice for a tournament: its assignments' runs have the games table of a `simulate` run."""
    from ..runs import RunSpec
    if record_n is None and record_games is None and record_where is None:
        return None
    spec = RunSpec(format=fmt.name, games=int(games), bots=tuple(names[:1]) * fmt.seats, rotate=False,
                   options=dict(options or {}))
    return record_choice(record_n, record_games, record_where, spec)


def write_tournament_records(out, choice):
    """After a tournament: its chosen games of every assignment in OUT/records.jsonl (one line said)."""
    from ..records import RecordError, nothing_matched, record_tournament
    if choice is None:
        return
    try:
        with reading(out):
            if record_tournament(out, choice, log=click.echo)[0] is None:
                click.echo(nothing_matched(out, choice), err=True)
    except RecordError as e:
        raise InputError(str(e)) from None


def match_records_target(record_n, record_games, record_out, fmt, bot_a, bot_b, seed, max_pairs):
    """(selection, file) for `match --record`, checked before any game is played: pairs the match can reach
    (below --max-pairs), a file whose folder is writable; a file already there is said to be replaced.
    (None, None) without --record."""
    from .common import _label, output_file
    choice = record_choice(record_n, record_games)
    if choice is None:
        if record_out is not None:
            raise InputError("--record-out says where --record writes: add --record N or --record-games")
        return None, None
    if "games" in choice and choice["games"][-1] >= max_pairs:
        raise InputError(f"--record-games: the match plays at most --max-pairs {max_pairs:,} pairs (0 .. "
                         f"{max_pairs - 1:,}), not {choice['games'][-1]:,}")
    path = record_out or os.path.join("results", f"match-{fmt.name}-{_label(bot_a)}-{_label(bot_b)}-s{seed}",
                                      "records.jsonl")
    output_file(path, "--record-out")
    if os.path.exists(path):
        click.echo(f"records of this match will replace {path}", err=True)
    return choice, path


def write_match_records(choice, path, fmt, bot_a, bot_b, seed, options, pairs_played):
    """After a match: the chosen duplicate pairs the match played (both games of each) in `path`, with
    progress on stderr (about 20 ms a Khasino game, 60 ms a Cassino match); pairs it did not reach (its test
    ended first) are left out and said. One line on stdout names the file."""
    import time
    from ..records import RecordError, match_records, write_lines
    if choice is None:
        return
    wanted = list(range(choice["first"])) if "first" in choice else choice["games"]
    kept = [k for k in wanted if k < pairs_played]
    missing = [k for k in wanted if k >= pairs_played]
    if missing:
        ended = f"the match ended after {pairs_played:,} pair{'s' * (pairs_played != 1)}"
        click.echo(f"{ended}: recording the first {len(kept):,} of the {len(wanted):,} asked for" if "first" in choice
                   else f"{ended}: not recording pairs {', '.join(map(str, missing[:10]))}"
                        f"{' ...' if len(missing) > 10 else ''}, which it did not play", err=True)
    if not kept:
        click.echo("no pair to record: nothing written", err=True)
        return
    lines, said, started = [], time.monotonic(), time.monotonic()
    try:
        for i in range(0, len(kept), 50):
            lines += match_records(fmt.name, bot_a, bot_b, seed, kept[i:i + 50], options)
            if time.monotonic() - said >= 1.0 and i + 50 < len(kept):
                click.echo(f"recording: {i + 50:,} of {len(kept):,} pairs", err=True)
                said = time.monotonic()
    except RecordError as e:
        raise InputError(str(e)) from None
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    write_lines(path, lines)
    pairs = f"{len(kept):,} pair{'s' * (len(kept) != 1)}"
    click.echo(f"records    {path} ({len(lines):,} games: {pairs}"
               + (f", in {time.monotonic() - started:.0f} s" if time.monotonic() - started >= 2 else "") + ")")
