"""The position commands: `khasino moves` and `khasino show` read a state file (the text comes from
khasino_sim/render.py); `khasino play` is in playing.py."""
import json

import click

from ..render import render
from .common import InputError, _load_state


@click.command()
@click.argument("state_file", metavar="STATE.json")
@click.option("--count", is_flag=True,
              help="Print only the number of distinct legal moves (exact, in fixed memory: about 32 MiB).")
@click.option("--limit", type=click.IntRange(min=0), default=None, metavar="N",
              help="Print at most N moves (the first come at once, however many the position has).")
def moves(state_file, count, limit):
    """Print every distinct legal move of STATE.json, one JSON object per line (card, kind, text, result).

    Any position is listed completely, streaming in bounded memory, however many moves it has: each move is
    printed as soon as the window of moves holding it is generated (docs/ENGINE.md, "Listing")."""
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
              help="A records file: the position before move M; M = last + 1 is the end [default: 1, the "
                   "first].")
def show(state_file, game, line, move):
    """Draw the position in STATE.json legibly in the terminal, or one position of a recorded game
    (`khasino show records.jsonl --game K --move M`: the position before move M, or with M the last move + 1
    the game's end; the record is checked through the engine first, as `khasino replay` checks it)."""
    from ..records import RecordError, describe_step, is_record_file, position_of_move
    from .recording import record_steps
    if state_file != "-" and is_record_file(state_file):
        rec, positions = record_steps(state_file, game, line)
        try:
            at = position_of_move(rec, positions, move or 1)
        except RecordError as e:
            raise InputError(f"{state_file}: {e}") from None
        click.echo("\n".join(describe_step(rec, positions[at], len(positions))))
        return
    if (game, line, move) != (None, None, None):
        raise InputError(f"--game, --line and --move read a records file (docs/RECORDS.md); {state_file} holds a "
                         "state")
    click.echo(render(_load_state(state_file)))
