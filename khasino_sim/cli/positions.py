"""The position commands: `khasino moves` and `khasino show` read a state file, `khasino play` plays one game
and prints it move by move (the text comes from khasino_sim/render.py)."""
import json

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
def show(state_file):
    """Draw the position in STATE.json legibly in the terminal."""
    click.echo(render(_load_state(state_file)))


@click.command()
@format_option()
@seed_option("Game seed.")
@bots_option("One bot per seat (or one for all; one per team in khasino-4p).", default="greedy,random")
@click.option("--json", "as_json", is_flag=True, help="Print each position as a JSON state instead.")
@bot_file_option
def play(fmt_name, seed, bots, as_json):
    """Play one game in the compiled core and print it move by move, replayed through the Python API (in
    Cassino: the first round of a match, dealt from the round seed SEED)."""
    from ..engine import new_game, legal_moves, play_game, play_round, scores
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
