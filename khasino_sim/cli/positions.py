"""The position commands: `khasino moves` and `khasino show` read a state file, `khasino play` plays one game
and prints it move by move (the text comes from khasino_sim/render.py)."""
import json
import os

import click

from ..render import render
from .common import InputError, _bots, _format, _load_state
from .shared_options import bot_file_option, bots_option, format_option, seed_option


@click.command()
@click.argument("state_file", metavar="STATE.json")
@click.option("--count", is_flag=True, help="Print only the number of distinct legal moves.")
@click.option("--limit", type=click.IntRange(min=0), default=None, metavar="N",
              help="Print at most N moves.")
def moves(state_file, count, limit):
    """Print every distinct legal move of STATE.json, one JSON object per line (card, kind, text, result).

    Any position is listed completely, streaming in bounded memory, however many moves it has."""
    from ..engine import iter_moves, count_moves, EngineError, StateError
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


@click.command()
@click.argument("state_file", metavar="STATE.json")
@click.option("--game", type=click.IntRange(0), default=None, metavar="K",
              help="A records file (docs/RECORDS.md): the record of game K [default: its first].")
@click.option("--line", type=click.IntRange(1), default=None, metavar="L", help="A records file: the record on line L.")
@click.option("--move", type=click.IntRange(1), default=None, metavar="M",
              help="A records file: the position before move M [default: 1, the first]; past the last, the end.")
def show(state_file, game, line, move):
    """Draw the position in STATE.json legibly in the terminal, or one position of a recorded game
    (`khasino show records.jsonl --game K --move M`: the position before move M)."""
    from ..records import describe_step, is_record_file, position_before
    from .recording import record_steps
    if state_file != "-" and is_record_file(state_file):
        rec, positions = record_steps(state_file, game, line)
        click.echo("\n".join(describe_step(rec, positions[position_before(positions, move or 1)], len(positions))))
        return
    if (game, line, move) != (None, None, None):
        raise InputError(f"--game, --line and --move read a records file (docs/RECORDS.md); {state_file} holds a "
                         "state")
    click.echo(render(_load_state(state_file)))


@click.command()
@format_option()
@seed_option("Game seed.")
@bots_option("One bot per seat (or one for all; one per team in khasino-4p).", default="greedy,random")
@click.option("--json", "as_json", is_flag=True,
              help="Print JSON lines only: {\"state\"} before each move, the move {\"seat\", \"bot\", \"move\", "
              "\"key\"}, the last {\"state\"}, then {\"final\"} (scores, score, winner).")
@click.option("--record", "record_file", default=None, metavar="FILE",
              help="Also write the game as a record (docs/RECORDS.md) to FILE, for `khasino replay`.")
@bot_file_option
def play(fmt_name, seed, bots, as_json, record_file):
    """Play one game in the compiled core and print it move by move, replayed through the Python API (in
    Cassino and Kasino: the first round of a match, dealt from the round seed SEED)."""
    from ..records import RecordError, dumps, play_record, steps, write_lines
    from .recording import pipe_closed_ok
    fmt = _format(fmt_name)
    names = _bots(bots, fmt)
    if record_file is not None and os.path.isdir(record_file):
        raise InputError(f"--record {record_file} is a folder, not a file")
    try:
        rec = play_record(fmt.name, None, names, seed, kind="round" if fmt.matches else "game")
        positions = steps(rec)
    except RecordError as e:
        raise InputError(str(e)) from None
    if record_file is not None:
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
