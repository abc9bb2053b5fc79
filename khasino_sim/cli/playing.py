"""`khasino play`: one game. Without --human, the bots play it in the compiled core and it is printed move by
move; with --human SEAT (or --mode, or --resume), people play it in the terminal (khasino_sim/terminal/):
Practice or Classic against the bots, Pass-and-Play with two or more humans, every format."""
import json
import os

import click

from ..render import render
from .common import InputError, _bots, _format, _settings, output_file
from .shared_options import (absolute_path, bot_file_option, bot_timeout_option, format_option, seed_option,
                             set_option)


def _bot_only(fmt_name, seed, bots, as_json, record_file):
    """The game played by bots alone, printed (or as JSON lines), optionally recorded."""
    from ..records import RecordError, dumps, play_record, steps, write_lines
    from .recording import pipe_closed_ok
    fmt = _format(fmt_name)
    names = _bots(bots or "greedy,random", fmt)
    if record_file is not None:
        output_file(record_file, "--record")
    try:
        rec = play_record(fmt.name, None, names, seed, kind="round" if fmt.matches else "game")
        positions = steps(rec)
    except RecordError as e:
        raise InputError(str(e)) from None
    if record_file is not None:
        os.makedirs(os.path.dirname(record_file), exist_ok=True)      # checked can be made (common.output_file)
        write_lines(record_file, [dumps({**rec, "game": None})])
    with pipe_closed_ok():
        for p in positions:
            if as_json:
                click.echo(json.dumps({"state": p["state"]}))
            else:
                click.echo(render(p["state"]))
            m = p["played"]
            if m is None:
                continue
            if as_json:
                click.echo(json.dumps(m))
            else:
                click.echo(f"  seat {m['seat']} ({m['bot']}): {m['move']['text']}\n")
        final = rec["rounds"][-1]["scores"]
        if as_json:
            click.echo(json.dumps({"final": {"scores": final, "score": rec["score"], "winner": rec["winner"]}}))
        else:
            click.echo("final: " + ", ".join(f"seat {s} ({names[s]}) {sc['score']}" for s, sc in enumerate(final)))


def _seat_bots(bots, fmt, humans):
    """The bot of each seat that no human holds, from --bots: one name for all, or one per such seat in seat
    order; "human" at a human's seat."""
    from ..bots import split_list, BotSpecError
    from .common import _check_playable
    try:
        names = split_list(bots or "heuristic")
    except BotSpecError as e:
        raise InputError(str(e))
    free = [s for s in range(fmt.seats) if s not in humans]
    if len(names) == 1:
        names = names * len(free)
    if len(names) != len(free):
        raise InputError(f"--bots: give one bot for every seat no human holds ({len(free)}: seats "
                         f"{', '.join(map(str, free))}), or one for all, not {len(names)}")
    from ..bots import is_policy
    policy = next((n for n in names if is_policy(n)), None)
    if policy is not None:
        raise InputError(f"--bots: {policy} is a trained policy, which plays in simulate, tournament and match "
                         "(the batched environment), not in `khasino play`")
    _check_playable(names, fmt.family)
    out = ["human"] * fmt.seats
    for s, n in zip(free, names):
        out[s] = n
    return out


def _load_saved(path):
    """The parsed JSON of a saved game (checked by Game.resume, terminal/saves.py); one line if it cannot be read
    as JSON."""
    from ..terminal.saves import SAVE_LIMIT
    from ..text import printable
    try:
        with open(path, "rb") as f:
            raw = f.read(SAVE_LIMIT + 1)
    except FileNotFoundError:
        raise InputError(f"--resume {path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"--resume {path} is a folder, not a saved game") from None
    except OSError as e:
        raise InputError(f"--resume {path}: cannot read it ({e.strerror or type(e).__name__})") from None
    if len(raw) > SAVE_LIMIT:
        raise InputError(f"--resume {path}: too large to be a saved game (over {SAVE_LIMIT >> 20} MiB)")
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError(f"--resume {path} is not a saved game (not UTF-8 text)") from None
    except RecursionError:
        raise InputError(f"--resume {path} is not a saved game (nested too deeply)") from None
    except ValueError as e:         # not JSON, or a number too long for Python to read
        first = (str(e).splitlines() or [type(e).__name__])[0]
        if "integer string conversion" in first:
            first = "a number of thousands of digits"
        raise InputError(f"--resume {path} is not a saved game (not JSON: {printable(first, 100)})") from None


def _default_trace(fmt_name, seed):
    return os.path.join("results", "play", f"{fmt_name}-s{seed}.jsonl")


@click.command()
@format_option()
@seed_option("Game seed.")
@click.option("--bots", default=None,
              help="Without --human: one bot per seat (or one for all; one per team in khasino-4p) [default: "
                   "greedy,random]. With --human: the bots of the other seats in seat order, or one for all "
                   "[default: heuristic].")
@click.option("--human", "humans", multiple=True, type=click.IntRange(0), metavar="SEAT",
              help="A seat you play (repeat for Pass-and-Play: two or more humans on one screen).")
@click.option("--mode", type=click.Choice(["practice", "classic"]), default=None,
              help="practice: pile counts, build details, hints (?) and a review after the game; classic: none "
                   "of those (the rulebook's Classic) [default: practice]. Alone, you play seat 0.")
@set_option()
@click.option("--rounds", type=click.IntRange(1, 1), default=None, metavar="1",
              help="Cassino, Kasino: play one round instead of the whole match.")
@click.option("--save", "save_file", default=None, metavar="GAME.json", callback=absolute_path,
              help="Write the game after every move; `khasino play --resume GAME.json` continues it.")
@click.option("--resume", "resume_file", default=None, metavar="GAME.json", help="Continue a saved game.")
@click.option("--trace", "trace_file", default=None, metavar="FILE", callback=absolute_path,
              help="Where the finished game is written as a record for `khasino replay` [default: "
                   "results/play/FORMAT-sSEED.jsonl].")
@click.option("--plain", is_flag=True, help="No colour or styling (for pipes and screen readers).")
@click.option("--hint-bot", default=None, metavar="BOT",
              help="The bot that gives Practice hints [default: ismcts:n=3000].")
@click.option("--json", "as_json", is_flag=True,
              help="Bots only: print JSON lines only: {\"state\"} before each move, the move {\"seat\", \"bot\", "
                   "\"move\", \"key\"}, the last {\"state\"}, then {\"final\"} (scores, score, winner).")
@click.option("--record", "record_file", default=None, metavar="FILE", callback=absolute_path,
              help="Bots only: also write the game as a record (docs/RECORDS.md) to FILE, for `khasino replay`.")
@bot_file_option
@bot_timeout_option
def play(fmt_name, seed, bots, humans, mode, settings, rounds, save_file, resume_file, trace_file, plain, hint_bot,
         as_json, record_file):
    """Play one game. Without --human the bots play it in the compiled core and it is printed move by move (in
    Cassino and Kasino: the first round of a match, dealt from the round seed SEED).

    With --human SEAT you play that seat in the terminal against the bots (--mode practice or classic); with
    two or more --human seats, Pass-and-Play. Pick a move by its number or in the short notation (`help` at
    the prompt; README, "Playing in the terminal"). Input is read line by line, so a pipe can play."""
    import sys
    from ..terminal.session import Game
    interactive = humans or mode or resume_file
    if not interactive:
        if settings or rounds or save_file or trace_file or plain or hint_bot:
            raise InputError("--set, --rounds, --save, --trace, --plain and --hint-bot are for games with a "
                             "human: add --human SEAT (or --mode)")
        return _bot_only(fmt_name, seed, bots, as_json, record_file)
    if as_json or record_file:
        raise InputError("--json and --record are for games the bots play alone; a game with a human is written "
                         "to --trace")
    if hint_bot is not None:
        from ..engine import bot_id
        try:
            bot_id(hint_bot)
        except KeyError as e:
            raise InputError(f"--hint-bot: {e.args[0]}") from None
    if save_file is not None:
        from ..files import LinkError, make_folder
        output_file(save_file, "--save")
        folder = os.path.dirname(os.path.abspath(save_file))
        try:
            make_folder(folder)
        except LinkError as e:
            raise InputError(f"--save {save_file}: {e.filename} {e.strerror}") from None
        except OSError as e:
            raise InputError(f"--save {save_file}: cannot make {folder} ({e.strerror})") from None
    plain = plain or not sys.stdout.isatty()
    if resume_file is not None:
        ctx = click.get_current_context()
        given = [f"--{n.replace('_', '-')}" for n in ("fmt_name", "seed", "bots", "humans", "settings", "rounds")
                 if ctx.get_parameter_source(n) == click.core.ParameterSource.COMMANDLINE]
        if given:
            names = ", ".join("--format" if g == "--fmt-name" else "--set" if g == "--settings" else
                              "--human" if g == "--humans" else g for g in given)
            raise InputError(f"--resume continues the saved game as it was set up: leave out {names}")
        from ..terminal.saves import Finished, SaveError
        save_to = save_file or os.path.abspath(resume_file)
        if save_file is None:
            output_file(save_to, "--resume")
        data = _load_saved(resume_file)
        try:
            game = Game.resume(data, plain=plain, save=save_to, mode=mode, hint_bot=hint_bot, trace=trace_file)
        except Finished:
            raise InputError(f"--resume {resume_file}: that game is finished (`khasino replay` steps through the "
                             "trace written when it ended)") from None
        except SaveError as e:
            raise InputError(f"--resume {resume_file}: {e}") from None
        game.trace_path = trace_file or _default_trace(game.fmt.name, game.seed)     # never the save's
        output_file(game.trace_path, "--trace")
        game.say(f"resuming {game.fmt.name}, seed {game.seed}: humans at seat(s) "
                 f"{', '.join(map(str, game.humans))}")
        game.play()
        return
    fmt = _format(fmt_name)
    options = _settings(settings)
    if options:
        from ..formats import with_options
        try:
            with_options(fmt, options)
        except ValueError as e:
            raise InputError(str(e)) from None
    humans = sorted(set(humans or (0,)))
    bad = [h for h in humans if h >= fmt.seats]
    if bad:
        raise InputError(f"--human {bad[0]}: {fmt.name} has seats 0 .. {fmt.seats - 1}")
    if len(humans) == fmt.seats and bots:
        raise InputError("--bots: every seat is a human's")
    if rounds and not fmt.matches:
        raise InputError(f"--rounds: {fmt.name} plays single games, not matches")
    names = _seat_bots(bots, fmt, humans) if len(humans) < fmt.seats else ["human"] * fmt.seats
    trace = trace_file or _default_trace(fmt.name, seed)
    output_file(trace, "--trace")
    from ..terminal.hints import HINT_BOT
    game = Game(fmt.name, seed, names, humans, mode or "practice", options, single=bool(rounds),
                hint_bot=hint_bot or HINT_BOT, plain=plain, save=save_file, trace=trace)
    who = "Pass-and-Play: seats " + ", ".join(map(str, humans)) if len(humans) > 1 else f"you are seat {humans[0]}"
    game.say(f"{fmt.name}, seed {seed}, {mode or 'practice'}: {who}; "
             + ", ".join(f"seat {s} {n}" for s, n in enumerate(names) if n != "human")
             + " (help: the notation and commands)")
    game.start()
