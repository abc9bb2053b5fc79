"""The listing commands: `khasino formats`, `khasino bots` and `khasino options` (what can be played, by whom,
under which rule options). They read the registries and take no input."""
import click

from ..formats import FORMATS


@click.command()
def formats():
    """List the registered formats, one line each, with the source rulebook each follows (docs/rules/)."""
    width = max(len(n) for n in FORMATS)
    for name in sorted(FORMATS):
        f = FORMATS[name]
        click.echo(f"{name:<{width}}  seed {f.seed}: {f.description}")


@click.command("bots")
def bots_command():
    """List the bots, their parameters and defaults (a bot spec is NAME or NAME:KEY=VALUE,...; in a list of
    bots a KEY=VALUE item continues the bot before it: --bots heuristic:cards=20,spades=5,greedy)."""
    from ..bots import BOTS, PARAM_HELP, POLICIES
    for name, (text, params) in BOTS.items():
        click.echo(f"{name:<10} {text}")
        for key, value in params.items():
            shown = POLICIES[value] if key == "policy" else value
            click.echo(f"  {key:<14} default {shown:<9} {PARAM_HELP.get(key, '')}")


@click.command()
def options():
    """List the rule options `simulate --set` accepts, with each format's value, one table per family."""
    from ..formats import options_of
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
