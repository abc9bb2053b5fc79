"""The bot-against-bot commands on duplicate deals: `khasino tournament` (every bot against every other, a
crosstable and ratings) and `khasino match` (two bots until a sequential test decides)."""
import click

from .common import (InputError, _bot_list, _check_backend, _check_playable, _format, _settings, bots_tag,
                     default_out, output_folders, reading, to_stderr)
from .shared_options import (backend_option, bot_file_option, bots_option, format_option, games_option,
                             out_option, report_option, resume_force_options, seed_option, set_option,
                             workers_option)


@click.command()
@format_option()
@bots_option("The entrants, comma-separated (each once).")
@games_option(10_000, "Duplicate deals.")
@seed_option()
@out_option("results/tournament-FORMAT-BOTS-sSEED-nGAMES")
@workers_option()
@set_option()
@report_option("Also write tables, figures and report.md here.")
@resume_force_options("tournament")
@backend_option("cuda: play on this machine's NVIDIA GPU (the same games).")
@bot_file_option
def tournament(fmt_name, bots, games, seed, out, workers, settings, report_dir, resume, force, backend):
    """Every bot against every other on duplicate deals: each seat assignment plays the same deals (a
    `simulate` run each, in OUT/assignment-NNNN); prints the crosstable of score rates and the ratings."""
    from ..tournament import run, format_tables, write_report, TournamentError
    fmt = _format(fmt_name)
    names = _bot_list(bots)
    _check_backend(backend, names)
    if out is None:
        out = default_out("tournament", fmt.name, bots_tag(names), seed, games)
    output_folders(out, report_dir)
    try:
        with reading(out):
            run(fmt.name, names, games, seed, out, _settings(settings), workers, resume, force,
                log=to_stderr, backend=backend)
    except (TournamentError, ValueError) as e:
        raise InputError(str(e))
    with reading(out):
        for line in format_tables(out):
            click.echo(line)
        if report_dir:
            click.echo(f"report     {write_report(out, report_dir) / 'report.md'}")


@click.command()
@click.argument("bot_a")
@click.argument("bot_b")
@format_option("A format of two seats or teams.")
@click.option("--sprt", "sprt_text", default="elo0=0,elo1=10", show_default=True,
              help="elo0=E0,elo1=E1[,alpha=A,beta=B] (logistic Elo; alpha = beta = 0.05 by default).")
@seed_option()
@click.option("--batch", default=500, show_default=True, type=click.IntRange(1), help="Pairs between tests.")
@click.option("--max-pairs", default=1_000_000, show_default=True, type=click.IntRange(1),
              help="Stop undecided after this many duplicate pairs.")
@set_option()
@bot_file_option
def match(bot_a, bot_b, fmt_name, sprt_text, seed, batch, max_pairs, settings):
    """BOT_A against BOT_B on duplicate pairs (each deal played twice, seats swapped) until a sequential
    probability ratio test accepts H0 (BOT_A is elo0 stronger) or H1 (elo1); prints the verdict, the Elo
    estimate with its 95% interval and the games played."""
    from ..duplicate import pair_counts
    from ..sprt import SPRT, parse_sprt
    fmt = _format(fmt_name)
    _bot_list(f"{bot_a},{bot_b}", "the bots")
    _check_playable([bot_a, bot_b], fmt.family)
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
