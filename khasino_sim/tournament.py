"""`khasino tournament`: every entrant against every other on duplicate deals, a crosstable and ratings.

Every **seat assignment** (each way to put distinct entrants on the format's units, seats or teams; with fewer
entrants than units, each way to fill the units using every entrant) plays the same N deals: deal g is game
g of a `simulate` run with the tournament's root seed and no seat rotation, so every assignment of a deal
holds the same cards (duplicate deals: the luck of the deal cancels). Each assignment is one `simulate` run in
OUT/assignment-NNNN (Parquet, resumable as `simulate` is).

Results are pairwise (rank breaking): in each game, every two units held by different entrants give the better
one a win (the higher score; in Kasino, misère, the lower), or each a half on equal scores; with three or more
units a game gives one result per such pair of units. The crosstable gives per pair of entrants the games they
met in, the wins, losses and draws of those results, the score (wins + draws/2) and the score rate (score per
result) with a 95% interval over deals (the mean over deals of the pair's per-deal score rate: the deals are
independent, the assignments of one deal are not).

Ratings are a batch maximum-likelihood Bradley-Terry fit of all those results at once (khasino_sim/
bradley_terry.py): draws are half a win each, the Elo scale (a 400-point difference is 10:1 odds) with mean 0,
95% intervals from a sandwich covariance clustered by deal, so they are honest about the correlated results of
one deal and narrow as 1/sqrt(deals). The fit does not depend on the order of the games."""
import itertools
import math
from pathlib import Path

import numpy as np

from .families import family_of
from .formats import get_format, with_options
from .duplicate import units
from . import files, run_folder, storage
from .text import markdown, printable

META = "tournament.json"      # the manifest: format, bots, deals, seed, options and the seat assignments

MAX_ASSIGNMENTS = 720


class TournamentError(ValueError):
    """Bad tournament input; the message is one line."""


def assignments(fmt, k):
    """The seat assignments of k entrants: tuples of entrant indices, one per unit."""
    n, _ = units(fmt)
    if k < 2:
        raise TournamentError("a tournament needs at least two bots")
    if k >= n:
        out = list(itertools.permutations(range(k), n))
    else:
        out = [a for a in itertools.product(range(k), repeat=n) if len(set(a)) == k]
    if len(out) > MAX_ASSIGNMENTS:
        raise TournamentError(f"{len(out):,} seat assignments of {k} bots in {fmt.name}; at most "
                              f"{MAX_ASSIGNMENTS} (give fewer bots)")
    return out


def _runs(out):
    return sorted(Path(out).glob("assignment-*"))


def _meta(out):
    """The tournament's manifest (RunFolderError, one line, if it is missing or damaged)."""
    meta = _checked_meta(out)
    if meta is None:
        raise run_folder.RunFolderError(f"{Path(out) / META} is missing: {out} holds no tournament")
    return meta


def _checked_meta(out):
    """The tournament's manifest, None if the folder has none; RunFolderError if it is damaged."""
    meta = run_folder.read_manifest(out, META)
    if meta is not None and not _well_formed(meta):
        raise run_folder.RunFolderError(f"{Path(out) / META} is damaged: not a tournament's manifest")
    return meta


def _well_formed(meta):
    """True if `meta` is what `run` writes: a known format and its options, two or more bot names, integer
    deals and seed, and exactly the seat assignments those bots have in that format."""
    from .formats import FORMATS
    try:
        if not (meta.get("format") in FORMATS and isinstance(meta.get("bots"), list) and len(meta["bots"]) >= 2
                and all(isinstance(b, str) for b in meta["bots"]) and isinstance(meta.get("options") or {}, dict)
                and all(isinstance(meta.get(k), int) and not isinstance(meta.get(k), bool) and meta[k] >= 0
                        for k in ("games", "seed"))):
            return False
        fmt = with_options(get_format(meta["format"]), meta.get("options") or {})
        return meta.get("assignments") == [list(a) for a in assignments(fmt, len(meta["bots"]))]
    except (ValueError, TournamentError):
        return False


PROGRESS_EVERY = 3.0    # seconds between progress lines


class _Progress:
    """Progress lines through `log`: games played of the total, at most one every `every` seconds (thread-safe:
    `simulate`'s worker threads report their chunks)."""

    def __init__(self, log, total, every):
        import threading
        import time
        self.log, self.total, self.every, self.clock = log, total, every, time.monotonic
        self.lock = threading.Lock()
        self.done = self.played = 0
        self.start = self.last = self.clock()
        self.where = ""

    def tick(self, n):
        with self.lock:
            self.played += n
            now = self.clock()
            if now - self.last >= self.every:
                self.last = now
                self._say(now)

    def finish_assignment(self, games):
        with self.lock:
            self.done += games
            self.played = 0

    def _say(self, now):
        played = min(self.done + self.played, self.total)
        rate = played / max(now - self.start, 1e-9)
        self.log(f"played {played:,} of {self.total:,} games ({100 * played / max(self.total, 1):.0f}%), "
                 f"{self.where}, {rate:,.0f} games/s")

    def end(self):
        self.log(f"played {self.total:,} games in {self.clock() - self.start:.1f} s")


def announce_compile(what, work, log, after=2.0):
    """Run `work()`; if it is still running after `after` seconds (a first run compiling the core, about a
    minute), say so through `log`, and when it ends, how long it took. Returns work()'s value."""
    import threading
    import time
    notice = threading.Timer(after, log, (f"compiling the {what} (first run of its kind: about a minute, then "
                                          "cached)",))
    notice.daemon = True
    t = time.monotonic()
    notice.start()
    try:
        value = work()
    finally:
        notice.cancel()
    if time.monotonic() - t > after:
        log(f"compiled the {what} in {time.monotonic() - t:.0f} s (cached for later runs)")
    return value


def _warm_up(fmt, bots, plan, seed, options, log):
    """Compile (or load) the core for the tournament's games before the first assignment, saying so if slow:
    one game of an assignment per kind of game kernel (with the search, without)."""
    from .runs import RunSpec, warm_up
    from khasino_sim.kernels.core.heuristic import searches
    kinds = {}
    for a in plan:
        spec = RunSpec(format=fmt.name, games=1, bots=tuple(bots[j] for j in a), seed=int(seed), rotate=False,
                       options=dict(options or {}))
        kinds.setdefault(searches(spec.bot_ids()), spec)
    what = f"{fmt.family} game{' with the search' if 1 in kinds else ''} for {', '.join(bots)}"
    announce_compile(what, lambda: [warm_up(s) for s in kinds.values()], log)


def run(format, bots, games, seed=0, out="results/tournament", options=None, workers=None, resume=False,
        force=False, log=None, backend="cpu", progress_every=PROGRESS_EVERY):
    """Play the tournament into `out` (`backend` "cuda": on this machine's GPU, the same games); returns the
    path. Raises TournamentError on bad input. `log` (a callable) receives progress lines: the compile if it
    is slow, then games played of the total every `progress_every` seconds, and the total at the end."""
    from .runs import simulate, validate, RunSpec, SimulationError
    fmt = get_format(format)
    if options:
        fmt = with_options(fmt, options)
    bots = list(bots)
    if len(set(bots)) != len(bots):
        raise TournamentError(f"each bot once, not {','.join(bots)}")
    plan = assignments(fmt, len(bots))
    for a in plan:          # every assignment's run is valid before anything is written or played
        try:
            validate(RunSpec(format=fmt.name, games=int(games), bots=tuple(bots[j] for j in a), seed=int(seed),
                             rotate=False, options=dict(options or {})))
        except SimulationError as e:
            raise TournamentError(str(e)) from None
    out = Path(out)
    meta = {"format": fmt.name, "bots": bots, "games": int(games), "seed": int(seed), "options": options or {},
            "assignments": [list(a) for a in plan]}
    from .runs import holding
    with holding(out, "khasino tournament", TournamentError):
        _prepare(out, meta, resume, force)
        progress = None
        if log:
            if backend == "cpu":
                _warm_up(fmt, bots, plan, seed, options, log)
            log(f"{len(plan)} seat assignments x {int(games):,} deals = {len(plan) * int(games):,} games")
            progress = _Progress(log, len(plan) * int(games), progress_every)
        from .bots import display_names
        shown = display_names(bots)
        for i, a in enumerate(plan):
            names = [bots[j] for j in a]
            if progress:
                progress.where = f"assignment {i + 1}/{len(plan)} ({', '.join(shown[j] for j in a)})"
            try:
                simulate(fmt.name, games, names, seed, out / f"assignment-{i:04d}", workers=workers, rotate=False,
                         options=options, resume=resume or force, force=force, quiet=True, backend=backend,
                         progress=progress.tick if progress else None)
            except SimulationError as e:
                raise TournamentError(str(e)) from None
            if progress:
                progress.finish_assignment(int(games))
        if progress:
            progress.end()
    return out


def _prepare(out, meta, resume, force):
    """Check the folder (its lock held) and write the tournament's manifest: a folder holding another
    tournament, a run, a study or anything else is refused without --force (--force clears what of ours it
    holds first); this tournament again needs --resume."""
    old = run_folder.claim(out, "tournament", force, TournamentError, _checked_meta)
    if old is not None:
        if {k: v for k, v in old.items() if k != "digest"} != meta:
            raise TournamentError(f"{out} holds another tournament (use --force to replace it)")
        if not resume:
            raise TournamentError(f"{out} holds this tournament already (use --resume to finish it)")
    run_folder.write_manifest(out, meta, META)


def _names(meta):
    """The entrants as results show them: a bot file by its stem (bots.display_names), the manifest keeping the
    full specs for resuming; no control character of a file's name reaches the terminal."""
    from .bots import display_names
    return [printable(n) for n in display_names(meta["bots"])]


def results(out):
    """The tournament's manifest and its pairwise results as arrays, one entry per result: (meta, deal, a, b,
    result for a), a and b entrant indices."""
    import pandas as pd
    meta = _meta(out)
    fmt = get_format(meta["format"])
    n, unit_of = units(fmt)
    first = [unit_of.index(u) for u in range(n)]
    lower_wins = family_of(fmt).misere
    deal, ea, eb, res = [], [], [], []
    for i, a in enumerate(meta["assignments"]):
        try:
            parts = run_folder.verified_tables(Path(out) / f"assignment-{i:04d}", storage.GAMES)
        except run_folder.RunFolderError as e:
            raise run_folder.RunFolderError(f"tournament {out}, assignment {i + 1} of {len(meta['assignments'])}: "
                                            f"{e}") from None
        games = pd.concat([pd.read_parquet(p, columns=["game"] + [f"score_{s}" for s in first]) for p in parts],
                          ignore_index=True).sort_values("game")
        scores = games[[f"score_{s}" for s in first]].to_numpy(dtype=np.int64)
        g = games["game"].to_numpy()
        for u, v in itertools.combinations(range(n), 2):
            if a[u] == a[v]:
                continue
            diff = scores[:, u] - scores[:, v]
            if lower_wins:
                diff = -diff
            deal.append(g)
            ea.append(np.full(len(g), a[u]))
            eb.append(np.full(len(g), a[v]))
            res.append(np.sign(diff) * 0.5 + 0.5)
    return meta, np.concatenate(deal), np.concatenate(ea), np.concatenate(eb), np.concatenate(res)


CROSSTABLE_COLUMNS = ["bot", "opponent", "games", "wins", "losses", "draws", "score", "score_rate", "low", "high",
                      "deals"]


def _rate_interval(per_deal):
    """95% interval of a score rate from its per-deal values: normal over deals; where every deal scored the
    same (no spread to measure), the Wilson interval of the deals as trials."""
    from scipy.stats import binomtest
    d, m = len(per_deal), float(per_deal.mean())
    sd = float(per_deal.std(ddof=1)) if d > 1 else 0.0
    if sd == 0.0:
        ci = binomtest(int(round(m * d)), d).proportion_ci(method="wilson")
        return ci.low, ci.high
    half = 1.959963984540054 * sd / math.sqrt(d)
    return max(0.0, m - half), min(1.0, m + half)


def crosstable(out, data=None):
    """Per ordered pair of entrants (both ways), a DataFrame of CROSSTABLE_COLUMNS: the games they met in, the
    wins, losses and draws of the bot's results against the opponent, score (wins + draws/2), score_rate (score
    per result) with its 95% interval (low, high) over the deals. `data`: results(out), if already read."""
    import pandas as pd
    meta, deal, ea, eb, res = data if data is not None else results(out)
    bots = _names(meta)
    rows = []
    for i, j in itertools.permutations(range(len(bots)), 2):
        mine = np.concatenate([res[(ea == i) & (eb == j)], 1 - res[(ea == j) & (eb == i)]])
        if len(mine) == 0:
            continue
        deals = np.concatenate([deal[(ea == i) & (eb == j)], deal[(ea == j) & (eb == i)]])
        _, inv = np.unique(deals, return_inverse=True)
        per_deal = np.bincount(inv, weights=mine) / np.bincount(inv)
        low, high = _rate_interval(per_deal)
        met = sum(1 for a in meta["assignments"] if i in a and j in a) * meta["games"]
        wins, losses = int((mine == 1).sum()), int((mine == 0).sum())
        draws = len(mine) - wins - losses
        rows.append({"bot": bots[i], "opponent": bots[j], "games": met, "wins": wins, "losses": losses,
                     "draws": draws, "score": wins + draws / 2, "score_rate": float(mine.mean()), "low": low,
                     "high": high, "deals": int(len(per_deal))})
    return pd.DataFrame(rows, columns=CROSSTABLE_COLUMNS)


def ratings(out, data=None):
    """A DataFrame of the Bradley-Terry ratings (module docstring), best first: rank, bot, elo, low, high (95%),
    se. `data`: results(out), if already read."""
    import pandas as pd
    from .bradley_terry import fit
    meta, deal, ea, eb, res = data if data is not None else results(out)
    f = fit(ea, eb, res, len(meta["bots"]), cluster=deal)
    df = pd.DataFrame({"bot": _names(meta), "elo": f.elo, "low": f.low, "high": f.high, "se": f.se})
    df = df.sort_values("elo", ascending=False, kind="stable").reset_index(drop=True)
    df.insert(0, "rank", np.arange(1, len(df) + 1))
    return df


def tables(out):
    """(meta, crosstable, ratings) from one read of the results."""
    data = results(out)
    return data[0], crosstable(out, data), ratings(out, data)


def _headline(meta):
    n = len(meta["assignments"])
    return (f"{meta['format']}: {len(meta['bots'])} bots, {n} seat assignments x {meta['games']:,} duplicate "
            f"deals (seed {meta['seed']}) = {n * meta['games']:,} games")


def _score_text(score):
    return f"{score:,.0f}" if score == int(score) else f"{score:,.1f}"


def _rate_text(r):
    return f"{r.score_rate:.3f} [{r.low:.3f}, {r.high:.3f}]"


def _pairs_view(meta, ct):
    """Each pair once (entrants in the order given), its columns as shown."""
    order = {b: k for k, b in enumerate(_names(meta))}
    one = ct[[order[a] < order[b] for a, b in zip(ct.bot, ct.opponent)]]
    return [[r.bot, r.opponent, f"{r.games:,}", f"{r.wins:,}", f"{r.losses:,}", f"{r.draws:,}", _score_text(r.score),
             _rate_text(r)] for r in one.itertuples()]


PAIR_HEADERS = ["bot", "opponent", "games", "wins", "losses", "draws", "score", "score rate [95%]"]
RATING_HEADERS = ["rank", "bot", "Elo", "95% interval"]


def _matrix_view(meta, ct):
    bots = _names(meta)
    rate = {(r.bot, r.opponent): f"{r.score_rate:.3f}" for r in ct.itertuples()}
    return [[a] + [rate.get((a, b), "-") for b in bots] for a in bots]


def _ratings_view(rt):
    return [[r.rank, r.bot, f"{r.elo:+.1f}", f"[{r.low:+.1f}, {r.high:+.1f}]"] for r in rt.itertuples()]


def _several_units(meta, ct):
    return bool(((ct.wins + ct.losses + ct.draws) != ct.games).any())


SEVERAL_UNITS_NOTE = ("a bot on several seats or teams of a game has a result against each of the opponent's: "
                      "wins + losses + draws count results, not games")
RATINGS_METHOD = "Bradley-Terry fit of all results, a draw half a win; Elo, mean 0; 95% interval clustered by deal"


def format_tables(out, data=None):
    """The crosstable and ratings as terminal lines, aligned whatever the bot names. `data`: tables(out)."""
    from tabulate import tabulate
    meta, ct, rt = data if data is not None else tables(out)
    lines = [_headline(meta), ""]
    if len(_names(meta)) > 2:
        lines += ["score rate of the row against the column:",
                  tabulate(_matrix_view(meta, ct), headers=[""] + _names(meta), tablefmt="simple",
                           disable_numparse=True, colalign=("left",) + ("right",) * len(_names(meta))), ""]
    lines += ["pairs (score = wins + draws/2; score rate per result, 95% interval over deals):",
              tabulate(_pairs_view(meta, ct), headers=PAIR_HEADERS, tablefmt="simple", disable_numparse=True,
                       colalign=("left", "left") + ("right",) * 6)]
    if _several_units(meta, ct):
        lines.append(f"({SEVERAL_UNITS_NOTE})")
    lines += ["", f"ratings ({RATINGS_METHOD}):",
              tabulate(_ratings_view(rt), headers=RATING_HEADERS, tablefmt="simple", disable_numparse=True,
                       colalign=("right", "left", "right", "left"))]
    return "\n".join(lines).splitlines()


def _figures(meta, ct, rt, report):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    bots = _names(meta)
    grid = np.full((len(bots), len(bots)), np.nan)
    for r in ct.itertuples():
        grid[bots.index(r.bot), bots.index(r.opponent)] = r.score_rate
    fig, ax = plt.subplots(figsize=(2.5 + 1.1 * len(bots), 1.8 + 0.9 * len(bots)))
    im = ax.imshow(grid, vmin=0, vmax=1, cmap="RdBu")
    ax.set_xticks(range(len(bots)), bots, rotation=30, ha="right")
    ax.set_yticks(range(len(bots)), bots)
    for i in range(len(bots)):
        for j in range(len(bots)):
            if not np.isnan(grid[i, j]):
                ax.text(j, i, f"{grid[i, j]:.3f}", ha="center", va="center")
    ax.set_title(f"{meta['format']}: score rate of row v column")
    fig.colorbar(im, ax=ax)
    fig.tight_layout()
    files.save_figure(fig, report / "crosstable.png", dpi=100)
    plt.close(fig)
    order = rt.iloc[::-1]
    fig, ax = plt.subplots(figsize=(6, 1 + 0.5 * len(order)))
    ax.errorbar(order.elo, range(len(order)), xerr=[order.elo - order.low, order.high - order.elo], fmt="o",
                capsize=4)
    ax.set_yticks(range(len(order)), order.bot)
    ax.axvline(0, color="grey", lw=0.5)
    ax.set_xlabel("Elo (Bradley-Terry, mean 0; 95% interval)")
    fig.tight_layout()
    files.save_figure(fig, report / "ratings.png", dpi=100)
    plt.close(fig)


def _escaped(rows, *columns):
    """Table rows with the bot names in `columns` escaped for Markdown (a `|` in a bot file's name would
    otherwise open a column)."""
    return [[markdown(x) if k in columns else x for k, x in enumerate(row)] for row in rows]


def write_report(out, report, data=None):
    """Tables (CSV), figures (PNG: crosstable heatmap, ratings with error bars) and report.md (Markdown tables)
    in `report`; returns the folder. `data`: tables(out), if already read."""
    import pandas as pd
    meta, ct, rt = data if data is not None else tables(out)
    report = files.make_folder(report, "a report folder")
    files.write_csv(ct, report / "crosstable.csv")
    files.write_csv(rt, report / "ratings.csv")
    _figures(meta, ct, rt, report)
    bots = [markdown(b) for b in _names(meta)]
    options = ", ".join(f"{k}={v}" for k, v in (meta.get("options") or {}).items())
    md = [f"# Tournament: {meta['format']}, {', '.join(bots)}", "",
          f"{_headline(meta)}{'; options ' + options if options else ''}.", "",
          "## Method", "",
          "Every seat assignment of the bots plays the same deals (duplicate deals, so the luck of the cards "
          "cancels). Each game gives one result per two seats (or teams) held by different bots: a win for the "
          "better score (in Kasino the lower), a draw on equal scores. Ratings are a Bradley-Terry maximum "
          "likelihood fit of all the results at once (draws count half a win), on the Elo scale with mean 0; "
          "their 95% intervals come from a sandwich covariance clustered by deal, as the results of one deal are "
          "not independent. A score rate is the score (wins + draws/2) per result, its 95% interval over deals.",
          "", "## Ratings", "",
          pd.DataFrame(_escaped(_ratings_view(rt), 1), columns=RATING_HEADERS).to_markdown(index=False, disable_numparse=True,
                                                                               colalign=("right", "left",
                                                                                         "right", "left")),
          "", "![ratings](ratings.png)", "", "## Pairs", "",
          pd.DataFrame(_escaped(_pairs_view(meta, ct), 0, 1), columns=PAIR_HEADERS).to_markdown(
              index=False, disable_numparse=True, colalign=("left", "left") + ("right",) * 6)]
    if _several_units(meta, ct):
        md += ["", f"Note: {SEVERAL_UNITS_NOTE}."]
    md += ["", "## Score rate of the row against the column", "",
           pd.DataFrame(_escaped(_matrix_view(meta, ct), 0), columns=["bot"] + bots).to_markdown(
               index=False, disable_numparse=True, colalign=("left",) + ("right",) * len(bots)),
           "", "![crosstable](crosstable.png)", "",
           "Tables: [crosstable.csv](crosstable.csv) (both directions of every pair), [ratings.csv](ratings.csv).",
           ""]
    files.write_text(report / "report.md", "\n".join(md))
    return report
