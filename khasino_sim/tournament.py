"""`khasino tournament`: every entrant against every other on duplicate deals, a crosstable and ratings.

Every **seat assignment** (each way to put distinct entrants on the format's units, seats or teams; with fewer
entrants than units, each way to fill the units using every entrant) plays the same N deals: deal g is game
g of a `simulate` run with the tournament's root seed and no seat rotation, so every assignment of a deal
holds the same cards (duplicate deals: the luck of the deal cancels). Each assignment is one `simulate` run in
OUT/assignment-NNNN (Parquet, resumable as `simulate` is).

Results are pairwise: in each game, every two units held by different entrants give the better one a win
(the higher score; in Kasino, misère, the lower), or each a half on equal scores. The crosstable's score rate of
a against b is the mean over deals of a's mean result against b across the assignments of that deal, with a 95%
interval over deals (the deals are independent, the assignments of one deal are not). Ratings are openskill's:
Bradley-Terry (full pairing) on the pairwise results for two seats or teams, Plackett-Luce on each game's
ranking where more units are held by distinct entrants; mu with a 95% interval (mu +- 1.96 sigma)."""
import itertools
import json
import math
from pathlib import Path

import numpy as np

from .families import family_of
from .formats import get_format, with_options
from .duplicate import units
from . import storage

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
    meta = storage.read_manifest(out, META)
    if meta is None:
        raise storage.RunFolderError(f"{Path(out) / META} is missing: {out} holds no tournament")
    if not _well_formed(meta):
        raise storage.RunFolderError(f"{Path(out) / META} is damaged: not a tournament's manifest")
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


def run(format, bots, games, seed=0, out="results/tournament", options=None, workers=None, resume=False,
        force=False, log=None, backend="cpu"):
    """Play the tournament into `out` (`backend` "cuda": on this machine's GPU, the same games); returns the
    path. Raises TournamentError on bad input."""
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
    meta_path = out / META
    if meta_path.exists() and not force:
        old = _meta(out)
        if old != meta:
            raise TournamentError(f"{out} holds another tournament (use --force to replace it)")
        if not resume:
            raise TournamentError(f"{out} holds this tournament already (use --resume to finish it)")
    out.mkdir(parents=True, exist_ok=True)
    meta_path.write_text(json.dumps(meta, indent=1))
    for i, a in enumerate(plan):
        names = [bots[j] for j in a]
        if log:
            log(f"assignment {i + 1}/{len(plan)}: {', '.join(names)}")
        try:
            simulate(fmt.name, games, names, seed, out / f"assignment-{i:04d}", workers=workers, rotate=False,
                     options=options, resume=resume or force, force=force, quiet=True, backend=backend)
        except SimulationError as e:
            raise TournamentError(str(e)) from None
    return out


def results(out):
    """Per deal, entrant pair and assignment: the pairwise results as arrays (deal, a, b, result for a)."""
    import pandas as pd
    meta = _meta(out)
    fmt = get_format(meta["format"])
    n, unit_of = units(fmt)
    first = [unit_of.index(u) for u in range(n)]
    lower_wins = family_of(fmt).misere
    deal, ea, eb, res = [], [], [], []
    for i, a in enumerate(meta["assignments"]):
        path = Path(out) / f"assignment-{i:04d}" / "games"
        games = pd.read_parquet(path, columns=["game"] + [f"score_{s}" for s in first]).sort_values("game")
        scores = games[[f"score_{s}" for s in first]].to_numpy(dtype=np.int64)
        g = games["game"].to_numpy()
        for u, v in itertools.combinations(range(n), 2):
            if a[u] == a[v]:
                continue
            diff = scores[:, u] - scores[:, v]
            if lower_wins:
                diff = -diff
            r = np.where(diff > 0, 1.0, np.where(diff < 0, 0.0, 0.5))
            deal.append(g)
            ea.append(np.full(len(g), a[u]))
            eb.append(np.full(len(g), a[v]))
            res.append(r)
    return meta, np.concatenate(deal), np.concatenate(ea), np.concatenate(eb), np.concatenate(res)


def crosstable(out):
    """{(a, b): (rate, low, high, deals)}: entrant a's score rate against b (names), 95% interval over deals."""
    meta, deal, ea, eb, res = results(out)
    bots = meta["bots"]
    table = {}
    for i, j in itertools.permutations(range(len(bots)), 2):
        mine = np.concatenate([res[(ea == i) & (eb == j)], 1 - res[(ea == j) & (eb == i)]])
        deals = np.concatenate([deal[(ea == i) & (eb == j)], deal[(ea == j) & (eb == i)]])
        if len(mine) == 0:
            continue
        _, inv = np.unique(deals, return_inverse=True)
        per_deal = np.bincount(inv, weights=mine) / np.bincount(inv)
        m = float(per_deal.mean())
        half = 1.96 * float(per_deal.std(ddof=1)) / math.sqrt(len(per_deal)) if len(per_deal) > 1 else 0.5
        table[(bots[i], bots[j])] = (m, max(0.0, m - half), min(1.0, m + half), int(len(per_deal)))
    return table


def unit_scores(out):
    """Per assignment, its entrants per unit and the (deals, units) scores, deals in order."""
    import pandas as pd
    meta = _meta(out)
    n, unit_of = units(get_format(meta["format"]))
    first = [unit_of.index(u) for u in range(n)]
    for i, a in enumerate(meta["assignments"]):
        games = pd.read_parquet(Path(out) / f"assignment-{i:04d}" / "games",
                                columns=["game"] + [f"score_{s}" for s in first]).sort_values("game")
        yield a, games[[f"score_{s}" for s in first]].to_numpy(dtype=np.int64)


def ratings(out):
    """{name: (mu, low, high)}: openskill ratings, mu with a 95% interval. Two units (seats or teams): the
    Bradley-Terry (full pairing) model on the pairwise results in deal order. More units, each held by a
    different entrant: the Plackett-Luce model on each game's ranking of the units (deal by deal, assignment by
    assignment; equal scores share a rank). With an entrant on several units of one game (fewer entrants than
    units), the pairwise Bradley-Terry fit."""
    from openskill.models import BradleyTerryFull, PlackettLuce
    meta = _meta(out)
    fmt = get_format(meta["format"])
    n, _ = units(fmt)
    if n > 2 and all(len(set(a)) == n for a in meta["assignments"]):
        model = PlackettLuce()
        players = [model.rating(name=b) for b in meta["bots"]]
        sign = 1 if family_of(fmt).misere else -1          # openskill: rank 0 is first; Kasino: lowest first
        runs = list(unit_scores(out))
        for g in range(len(runs[0][1])):
            for a, scores in runs:
                ranks = [int(sign * x) for x in scores[g]]
                rated = model.rate([[players[e]] for e in a], ranks=ranks)
                for e, [p] in zip(a, rated):
                    players[e] = p
        return {p.name: (p.mu, p.mu - 1.96 * p.sigma, p.mu + 1.96 * p.sigma) for p in players}
    meta, deal, ea, eb, res = results(out)
    model = BradleyTerryFull()
    players = [model.rating(name=b) for b in meta["bots"]]
    for k in np.lexsort((eb, ea, deal)):
        i, j = int(ea[k]), int(eb[k])
        r = res[k]
        ranks = [0, 1] if r == 1 else [1, 0] if r == 0 else [0, 0]
        [[pi], [pj]] = model.rate([[players[i]], [players[j]]], ranks=ranks)
        players[i], players[j] = pi, pj
    return {p.name: (p.mu, p.mu - 1.96 * p.sigma, p.mu + 1.96 * p.sigma) for p in players}


def format_tables(out):
    """The crosstable and ratings as terminal lines."""
    meta = _meta(out)
    bots = meta["bots"]
    ct = crosstable(out)
    width = max(8, *(len(b) for b in bots)) + 2
    lines = [f"{meta['format']}: {len(bots)} bots, {len(meta['assignments'])} seat assignments x {meta['games']:,} "
             f"duplicate deals (seed {meta['seed']})", "score rate of the row against the column, 95% interval:",
             " " * width + "".join(b.rjust(24) for b in bots)]
    for a in bots:
        cells = []
        for b in bots:
            if (a, b) in ct:
                m, lo, hi, _ = ct[(a, b)]
                cells.append(f"{m:.3f} [{lo:.3f}, {hi:.3f}]".rjust(24))
            else:
                cells.append("-".rjust(24))
        lines.append(a.ljust(width) + "".join(cells))
    lines.append("ratings (openskill, mu with 95% interval):")
    for name, (mu, lo, hi) in sorted(ratings(out).items(), key=lambda kv: -kv[1][0]):
        lines.append(f"  {name.ljust(width)}{mu:8.2f}  [{lo:.2f}, {hi:.2f}]")
    return lines


def write_report(out, report):
    """Tables (CSV), figures (PNG: crosstable heatmap, ratings with error bars) and report.md in `report`."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd
    report = Path(report)
    report.mkdir(parents=True, exist_ok=True)
    meta = _meta(out)
    bots = meta["bots"]
    ct = crosstable(out)
    rows = [{"bot": a, "opponent": b, "score_rate": m, "low": lo, "high": hi, "deals": n}
            for (a, b), (m, lo, hi, n) in ct.items()]
    pd.DataFrame(rows).to_csv(report / "crosstable.csv", index=False)
    rt = ratings(out)
    pd.DataFrame([{"bot": k, "mu": v[0], "low": v[1], "high": v[2]} for k, v in rt.items()]).to_csv(
        report / "ratings.csv", index=False)
    grid = np.full((len(bots), len(bots)), np.nan)
    for (a, b), (m, *_rest) in ct.items():
        grid[bots.index(a), bots.index(b)] = m
    fig, ax = plt.subplots(figsize=(1.6 + 1.1 * len(bots), 1.2 + 0.9 * len(bots)))
    im = ax.imshow(grid, vmin=0, vmax=1, cmap="RdBu")
    ax.set_xticks(range(len(bots)), bots)
    ax.set_yticks(range(len(bots)), bots)
    for i in range(len(bots)):
        for j in range(len(bots)):
            if not np.isnan(grid[i, j]):
                ax.text(j, i, f"{grid[i, j]:.3f}", ha="center", va="center")
    ax.set_title(f"{meta['format']}: score rate of row v column")
    fig.colorbar(im, ax=ax)
    fig.tight_layout()
    fig.savefig(report / "crosstable.png", dpi=100)
    plt.close(fig)
    names = sorted(rt, key=lambda k: rt[k][0])
    fig, ax = plt.subplots(figsize=(6, 1 + 0.5 * len(names)))
    mus = [rt[k][0] for k in names]
    ax.errorbar(mus, range(len(names)), xerr=[[rt[k][0] - rt[k][1] for k in names],
                                            [rt[k][2] - rt[k][0] for k in names]], fmt="o", capsize=4)
    ax.set_yticks(range(len(names)), names)
    ax.set_xlabel("openskill mu (95% interval)")
    fig.tight_layout()
    fig.savefig(report / "ratings.png", dpi=100)
    plt.close(fig)
    md = ["# Tournament report", "", "```", *format_tables(out), "```", "",
          "![crosstable](crosstable.png)", "", "![ratings](ratings.png)", "",
          "Tables: `crosstable.csv`, `ratings.csv`.", ""]
    (report / "report.md").write_text("\n".join(md))
    return report
