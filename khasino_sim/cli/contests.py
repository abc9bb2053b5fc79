"""The bot-against-bot commands on duplicate deals: `khasino tournament` (every bot against every other, a
crosstable and ratings) and `khasino match` (two bots until a sequential test decides)."""
import click

from .common import (InputError, _bot_list, _check_backend, _check_playable, _format, _no_policy_records,
                     _settings, bots_tag, default_out, os_problem, output_folders, reading, resumable,
                     to_stderr)
from .shared_options import (backend_option, bot_file_option, bot_timeout_option, bots_option, format_option,
                             games_option, out_option, report_option, resume_force_options, seed_option,
                             set_option, workers_option)
from .recording import (match_records_target, record_options, tournament_choice, write_match_records,
                        write_tournament_records)


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
@record_options()
@bot_file_option
@bot_timeout_option
def tournament(fmt_name, bots, games, seed, out, workers, settings, report_dir, resume, force, backend, record_n,
               record_games, record_where):
    """Every bot against every other on duplicate deals: each seat assignment plays the same deals (a
    `simulate` run each, in OUT/assignment-NNNN); prints per pair the games, wins, losses, draws, score and
    score rate, and Bradley-Terry ratings on the Elo scale. Progress on stderr: the first compile, then the
    games played every few seconds."""
    from ..tournament import run, format_tables, tables, write_report, TournamentError
    fmt = _format(fmt_name)
    names = _bot_list(bots)
    _check_backend(backend, names)
    if record_n is not None or record_games is not None or record_where is not None:
        _no_policy_records(names)
    if out is None:
        out = default_out("tournament", fmt.name, bots_tag(names), seed, games)
    output_folders(out, report_dir)
    choice = tournament_choice(record_n, record_games, record_where, fmt, names, games, _settings(settings))
    resumable(out)              # Ctrl-C from here on says so (cli/interrupts.py)
    try:
        with reading(out):
            run(fmt.name, names, games, seed, out, _settings(settings), workers, resume, force,
                log=to_stderr, backend=backend)
    except (TournamentError, ValueError) as e:
        raise InputError(str(e))
    except OSError as e:          # a full disk, a folder gone read-only: what is done is kept
        raise InputError(f"{os_problem(e, out)}; finished assignments are kept: fix it, then run the same command "
                         "with --resume") from None
    with reading(out):
        data = tables(out)
        for line in format_tables(out, data):
            click.echo(line)
        if report_dir:
            click.echo(f"report     {write_report(out, report_dir, data) / 'report.md'}")
    write_tournament_records(out, choice)


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
@record_options(match=True)
@bot_file_option
@bot_timeout_option
def match(bot_a, bot_b, fmt_name, sprt_text, seed, batch, max_pairs, settings, record_n, record_games, record_out):
    """BOT_A against BOT_B on duplicate pairs (each deal played twice, seats swapped) until a sequential
    probability ratio test accepts H0 (BOT_A is elo0 stronger) or H1 (elo1); prints the verdict, the Elo
    estimate with its 95% interval and the games played. Progress on stderr: the first compile, and after the
    first batch and then at most once a second, the pairs played, BOT_A's score and the LLR against its bounds."""
    import time
    from khasino_sim.kernels.core.heuristic import searches
    from ..duplicate import pair_counts
    from ..engine import bot_id
    from ..sprt import SPRT, parse_sprt
    from ..tournament import announce_compile
    from ..bots import is_policy
    fmt = _format(fmt_name)
    engine_bots = [b for b in (bot_a, bot_b) if not is_policy(b)]
    _bot_list(",".join(engine_bots) or "random", "the bots")
    _check_playable([bot_a, bot_b], fmt.family, fmt.name)   # a policy: Khasino and Cassino formats, its own
    if record_n is not None or record_games is not None:
        _no_policy_records([bot_a, bot_b])
    record = match_records_target(record_n, record_games, record_out, fmt, bot_a, bot_b, seed, max_pairs)
    try:
        test = SPRT(**parse_sprt(sprt_text))
        options = _settings(settings)
        announce_compile(f"{fmt.family} game{' with the search' if searches([bot_id(b) for b in engine_bots]) else ''}"
                         f" for {bot_a}, {bot_b}",
                         lambda: pair_counts(fmt.name, bot_a, bot_b, seed, 0, 1, options), to_stderr)
        start = 0
        verdict = None
        said = time.monotonic()
        while verdict is None and start < max_pairs:
            n = min(batch, max_pairs - start)
            test.add(pair_counts(fmt.name, bot_a, bot_b, seed, start, n, options))
            start += n
            verdict = test.verdict()
            if start == n or verdict is not None or start >= max_pairs or time.monotonic() - said >= 1.0:
                to_stderr(test.progress())          # after the first batch, then at most once a second
                said = time.monotonic()
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
    write_match_records(*record, fmt, bot_a, bot_b, seed, _settings(settings), test.pairs)
