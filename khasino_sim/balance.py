"""Rule-variant balance studies (issue 11): one format played under a grid of rule variants on the same deals.

A study varies rule options (`--vary NAME=V1,V2`, several allowed: the grid is their product) and plays every
variant as a `simulate` run with the same root seed, bots, seat rotation and shard size, so game i of every
variant is dealt from the same seed with the same bots in the same seats (common random numbers): the
variants' differences are paired game by game. The study folder holds `balance.json` (the study's spec and
its variants) and one run folder per variant, `variants/vK`, whose rows carry the variant (`variant` and one
`variant_NAME` column per varied option; runs.simulate's `tags`).

`summarize` streams the variants' shards side by side (shard k of every variant holds the same games), so
memory holds one shard per variant, whatever the number of games. Per variant: win rate per unit (a seat, or
a team in a team format) with 95% Wilson intervals, mean score and margin per unit, the distribution of unit
0's margin, points by category, game length, moves of each kind per game, and how often the leader wins. Per
pair of variants: the paired per-game differences of unit 0's win, unit 0's margin, the leader's win, the game
length and the moves per game, each with a 95% normal interval of the mean difference and an **exact sign
test** (two-sided binomial test on the number of positive against negative differences, ties dropped; for
a win indicator this is the exact McNemar test), scipy.stats.binomtest."""
import itertools
import json
import math
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

from . import storage
from .families import family_of
from .formats import get_format, options_of, with_options
from .stats import Z95, wilson

MANIFEST = "balance.json"
VARIANTS = "variants"


class BalanceError(ValueError):
    """Bad study input; the message is one line."""


# ---- the grid -------------------------------------------------------------------------------------------------

def parse_vary(texts, fmt_name, base=None):
    """The varied options from `--vary NAME=V1,V2` texts: [(name, [value, ...])], each value as the format
    stores it (validated: BalanceError names a bad option or value)."""
    fmt = get_format(fmt_name)
    base = dict(base or {})
    try:
        fmt = with_options(fmt, base)
    except ValueError as e:
        raise BalanceError(str(e)) from None
    out = []
    for text in texts:
        name, eq, values = str(text).partition("=")
        name = name.strip()
        if not eq or not name or not values.strip():
            raise BalanceError(f"--vary takes NAME=V1,V2,... (e.g. follow_ups=true,false), not {text!r}")
        if name in dict(out):
            raise BalanceError(f"--vary {name} is given twice; list all its values in one --vary")
        if name in base:
            raise BalanceError(f"option {name} is both fixed (--set) and varied (--vary)")
        vals = []
        for raw in (v.strip() for v in values.split(",")):
            if not raw:
                raise BalanceError(f"--vary {name}: an empty value in {values!r}")
            try:
                value = options_of(with_options(fmt, {name: raw}))[name]
            except ValueError as e:
                raise BalanceError(str(e)) from None
            if value in vals:
                raise BalanceError(f"--vary {name}: the value {raw!r} is listed twice")
            vals.append(value)
        out.append((name, vals))
    if not out:
        raise BalanceError("give at least one --vary NAME=V1,V2")
    return out


def grid(vary):
    """Every variant of the grid, the first option varying slowest: a list of {name: value}."""
    names = [n for n, _ in vary]
    return [dict(zip(names, combo)) for combo in itertools.product(*(v for _, v in vary))]


def text(value):
    return str(value).lower() if isinstance(value, bool) else str(value)


def label(variant):
    """A variant's name: `follow_ups=false,trail_restricted=true` (`default` for none)."""
    return ",".join(f"{k}={text(v)}" for k, v in variant.items()) or "default"


# ---- running a study -----------------------------------------------------------------------------------------

def run(format, vary, bots, games, seed=0, out="results/balance", options=None, workers=None, shard_size=50_000,
        dask=None, resume=False, force=False, quiet=True, command="", log=None, backend="cpu"):
    """Play every variant of the grid (`vary` as parse_vary returns it, or its texts) and write the study
    folder (`backend` "cuda": every variant on this machine's GPU, the same games). Returns the folder.
    BalanceError (or runs.SimulationError) on bad input."""
    from . import runs
    options = dict(options or {})
    if vary and isinstance(vary[0], str):
        vary = parse_vary(vary, format, options)
    variants = grid(vary)
    out = Path(out)
    spec = {"kind": "balance", "format": get_format(format).name, "bots": list(bots), "games": int(games),
            "seed": int(seed), "shard_size": int(shard_size), "options": {k: text(v) for k, v in options.items()},
            "vary": [[n, [text(v) for v in vals]] for n, vals in vary]}
    for v in variants:          # validate every variant (and the bots) before anything is written
        runs.validate(runs.RunSpec(format=format, games=int(games), bots=tuple(bots), seed=int(seed),
                                   options={**options, **v}, shard_size=int(shard_size)))
    manifest = _read(out)
    if manifest is not None and manifest.get("spec") != spec and not force:
        raise BalanceError(f"{out} holds another study (use --force to replace it, or another --out)")
    if manifest is None and out.exists() and any(out.iterdir()) and not force:
        raise BalanceError(f"{out} is not empty and holds no balance study (use --force, or another --out)")
    out.mkdir(parents=True, exist_ok=True)
    entries = [{"name": f"v{k}", "label": label(v), "options": {n: text(x) for n, x in v.items()}}
               for k, v in enumerate(variants)]
    _write(out, {"spec": spec, "variants": entries, "command": command})
    for entry, v in zip(entries, variants):
        if log:
            log(f"variant {entry['name']}: {entry['label']}")
        runs.simulate(format=format, games=games, bots=bots, seed=seed, out=out / VARIANTS / entry["name"],
                      workers=workers, shard_size=shard_size, options={**options, **v}, dask=dask,
                      resume=resume, force=force, quiet=quiet, command=command, backend=backend,
                      tags={"variant": entry["label"], **{f"variant_{n}": text(x) for n, x in v.items()}})
    return out


def _run_spec(s):
    """True if `s` is a simulate run's spec as its manifest holds it: a known format, a list of bot names,
    integer games and seed, an object of options."""
    from .formats import FORMATS
    if not (isinstance(s, dict) and s.get("format") in FORMATS and isinstance(s.get("bots"), list)
            and all(isinstance(b, str) for b in s["bots"])
            and all(isinstance(s.get(k), int) and not isinstance(s.get(k), bool) for k in ("games", "seed"))
            and isinstance(s.get("options") or {}, dict)):
        return False
    try:
        with_options(get_format(s["format"]), s.get("options") or {})
    except ValueError:
        return False
    return True


def _read(out):
    manifest = storage.read_manifest(out, MANIFEST)
    variants = manifest.get("variants") if manifest is not None else None
    if manifest is not None and not (
            isinstance(variants, list) and variants and _run_spec(manifest.get("spec"))
            and all(isinstance(e, dict) and isinstance(e.get("name"), str) and isinstance(e.get("label"), str)
                    for e in variants)):
        raise storage.RunFolderError(f"{Path(out) / MANIFEST} is damaged: not a balance study's manifest")
    return manifest


def _write(out, manifest):
    path = Path(out) / MANIFEST
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(manifest, indent=1, sort_keys=True))
    tmp.replace(path)


def study_runs(out):
    """(manifest, [(label, run folder)]) of a study folder, or of a plain `simulate` run folder (one variant,
    its rule options as the label)."""
    out = Path(out)
    manifest = _read(out)
    if manifest is not None:
        return manifest, [(e["label"], out / VARIANTS / e["name"]) for e in manifest["variants"]]
    run = storage.read_manifest(out)
    if run is None or "spec" not in run:
        raise BalanceError(f"{out} holds no balance study or simulate run")
    s = run["spec"]
    if not _run_spec(s):
        raise storage.RunFolderError(f"{out / storage.MANIFEST} is damaged: its spec is not a run's")
    spec = {"kind": "simulate", "format": s["format"], "bots": s["bots"], "games": s["games"], "seed": s["seed"],
            "options": s.get("options", {}), "vary": []}
    return {"spec": spec, "variants": [{"name": ".", "label": "as run", "options": {}}]}, [("as run", out)]


def load(out, table="games"):
    """Every variant's rows of a study as one DataFrame (`games` or `seats`), with its variant columns."""
    import pandas as pd
    _, folders = study_runs(out)
    return pd.concat([pd.read_parquet(Path(f) / table) for _, f in folders], ignore_index=True)


# ---- statistics ----------------------------------------------------------------------------------------------

def categories(fmt):
    """Points by category: {name: (seats column, points per unit of it)} for the format's family."""
    return family_of(fmt).categories(fmt)


EVENTS = ("captures", "builds", "builds_captured", "tabbes", "sweeps", "stays")


class _Paired:
    """Running sums of one paired difference: count, sum, sum of squares, positives, negatives."""

    def __init__(self):
        self.n, self.s, self.s2, self.pos, self.neg = 0, 0.0, 0.0, 0, 0

    def add(self, d):
        d = d.astype(np.float64)
        self.n += len(d)
        self.s += float(d.sum())
        self.s2 += float((d * d).sum())
        self.pos += int((d > 0).sum())
        self.neg += int((d < 0).sum())

    def result(self):
        return paired_result(self.n, self.s, self.s2, self.pos, self.neg)


def paired_result(n, s, s2, pos, neg):
    """The mean paired difference with its 95% normal interval, and the exact two-sided sign test's p."""
    from scipy.stats import binomtest
    p = binomtest(pos, pos + neg, 0.5).pvalue if pos + neg else 1.0
    return {"n": n, "mean": s / n if n else float("nan"), "ci95": _mean_ci(s, s2, n), "positive": pos,
            "negative": neg,
            "p": float(p), "significant": bool(p < 0.05)}


def _units(fmt):
    """Units (teams in a team format, else seats): each unit's first seat."""
    if fmt.teams:
        return [min(t) for t in sorted(fmt.teams, key=min)]
    return list(range(fmt.seats))


def _game_metrics(games, seats, fmt, cats, unit_seats, misere, events):
    """Per game of one shard: each unit's score, win and margin, the leader's win, the game length, the moves
    of each kind and the points of each category."""
    n = games.num_rows
    col = lambda t, c: t.column(c).to_numpy(zero_copy_only=False)        # noqa: E731
    order = np.argsort(col(games, "game"), kind="stable")
    score = np.stack([col(games, f"score_{s}").astype(np.int64)[order] for s in unit_seats], axis=1)
    winner = col(games, "winner").astype(np.int64)[order]
    u = len(unit_seats)
    win = winner[:, None] == np.arange(u)[None, :]
    margin = np.empty_like(score)
    for k in range(u):
        others = np.delete(score, k, axis=1)
        margin[:, k] = (others.min(axis=1) - score[:, k]) if misere else (score[:, k] - others.max(axis=1))
    leader = col(games, "leader").astype(np.int64)[order]
    unit_of_seat = np.array([fmt.team_of(s) if fmt.teams else s for s in range(fmt.seats)])
    leader_unit = unit_of_seat[leader]
    leader_win = (winner == leader_unit).astype(np.int64)
    length = col(games, "rounds" if "rounds" in games.column_names else "turns").astype(np.int64)[order]
    events = {e: col(games, e).astype(np.int64)[order] for e in events}
    halves = {}
    for c in ("leader_2", "ahead_1"):     # after the first deal: its leader (a seat), the unit ahead
        if c in games.column_names:
            x = col(games, c).astype(np.int64)[order]
            unit = x if c == "ahead_1" else np.where(x >= 0, unit_of_seat[np.maximum(x, 0)], -1)
            halves[c] = (int((unit >= 0).sum()), int(((unit >= 0) & (unit == winner)).sum()))
    sg = col(seats, "game").astype(np.int64)
    base = int(col(games, "game").min())
    unit_of = np.array([fmt.team_of(s) if fmt.teams else s for s in range(fmt.seats)])
    su = unit_of[col(seats, "seat").astype(np.int64)]
    cat = {}
    for name, (c, per) in cats.items():     # (game, unit) points: a team's seats each count their own
        cat[name] = np.bincount((sg - base) * u + su, weights=col(seats, c).astype(np.float64) * per,
                                minlength=n * u).reshape(n, u)
    return {"game": col(games, "game").astype(np.int64)[order], "score": score, "win": win, "margin": margin,
            "leader_win": leader_win, "length": length, "events": events, "cats": cat, "halves": halves,
            "tie": (winner < 0).astype(np.int64)}


def summarize(out):
    """The study's statistics as a dict of plain values (module docstring), streamed shard by shard."""
    manifest, folders = study_runs(out)
    spec = manifest["spec"]
    runs_ = [storage.read_manifest(f) for _, f in folders]
    for (lab, f), m in zip(folders, runs_):
        if m is None or not m.get("complete"):
            raise BalanceError(f"variant {lab} in {f} is not complete (finish it with --resume)")
    fmt = with_options(get_format(spec["format"]), spec.get("options") or {})
    misere = family_of(fmt).misere
    cats = categories(fmt)
    unit_seats = _units(fmt)
    u = len(unit_seats)
    nv = len(folders)
    acc = [{"n": 0, "wins": np.zeros(u, np.int64), "ties": 0, "score": np.zeros(u), "margin": np.zeros(u),
            "margin2": np.zeros(u), "hist": {}, "leader": 0, "length": 0.0, "length2": 0.0,
            "events": {}, "cats": {}, "halves": {}} for _ in range(nv)]
    shards = sorted(Path(folders[0][1], storage.GAMES).glob("part-*.parquet"))
    if not shards:
        raise BalanceError(f"{folders[0][1]} holds no games")
    game_cols = pq.read_schema(shards[0]).names
    seat_cols = pq.read_schema(Path(folders[0][1]) / storage.SEATS / shards[0].name).names
    events = [e for e in EVENTS if e in game_cols]
    halves = [c for c in ("leader_2", "ahead_1") if c in game_cols and not fmt.matches]
    cats = {c: x for c, x in cats.items() if x[0] in seat_cols}
    pair_names = ("unit 0 win", "unit 0 margin", "leader win", "length") + tuple(f"{e} per game" for e in events)
    pairs = {(i, j): {name: _Paired() for name in pair_names} for i in range(nv) for j in range(i + 1, nv)}
    for part in shards:
        metrics = []
        for _, f in folders:
            games = pq.read_table(Path(f) / storage.GAMES / part.name,
                                  columns=sorted({"game", "winner", "leader", "turns", *events, *halves,
                                                  *[c for c in game_cols if c.startswith("score_") or
                                                    c == "rounds"]}))
            seats = pq.read_table(Path(f) / storage.SEATS / part.name,
                                  columns=["game", "seat"] + [c for c, _ in cats.values()])
            metrics.append(_game_metrics(games, seats, fmt, cats, unit_seats, misere, events))
        for m in metrics[1:]:
            if not np.array_equal(m["game"], metrics[0]["game"]):
                raise BalanceError(f"shard {part.name} holds different games in two variants: not a paired study")
        for a, m in zip(acc, metrics):
            a["n"] += len(m["game"])
            a["wins"] += m["win"].sum(axis=0)
            a["ties"] += int(m["tie"].sum())
            a["score"] += m["score"].sum(axis=0)
            a["margin"] += m["margin"].sum(axis=0)
            a["margin2"] += (m["margin"].astype(np.float64) ** 2).sum(axis=0)
            values, counts = np.unique(m["margin"][:, 0], return_counts=True)
            for v, c in zip(values.tolist(), counts.tolist()):
                a["hist"][v] = a["hist"].get(v, 0) + c
            a["leader"] += int(m["leader_win"].sum())
            a["length"] += float(m["length"].sum())
            a["length2"] += float((m["length"].astype(np.float64) ** 2).sum())
            for e, x in m["events"].items():
                a["events"][e] = a["events"].get(e, 0) + int(x.sum())
            for c, x in m["cats"].items():
                a["cats"][c] = a["cats"].get(c, np.zeros(u)) + x.sum(axis=0)
            for c, (n_, w_) in m["halves"].items():
                h = a["halves"].setdefault(c, [0, 0])
                h[0] += n_
                h[1] += w_
        for (i, j), ps in pairs.items():
            mi, mj = metrics[i], metrics[j]
            ps["unit 0 win"].add(mj["win"][:, 0].astype(np.int64) - mi["win"][:, 0])
            ps["unit 0 margin"].add(mj["margin"][:, 0] - mi["margin"][:, 0])
            ps["leader win"].add(mj["leader_win"] - mi["leader_win"])
            ps["length"].add(mj["length"] - mi["length"])
            for e in events:
                ps[f"{e} per game"].add(mj["events"][e] - mi["events"][e])
    live = [e for e in events if any(a["events"].get(e) for a in acc)]     # moves some variant makes
    variants = []
    for (lab, _), a, entry in zip(folders, acc, manifest["variants"]):
        n = a["n"]
        total_pts = float(sum(abs(x.sum()) for x in a["cats"].values()))     # Kasino's tabbe minus is < 0
        variants.append({
            "label": lab, "options": entry["options"], "games": n, "ties": a["ties"],
            "units": [{"unit": k, "seat": unit_seats[k], "win_rate": a["wins"][k] / n,
                       "ci95": wilson(int(a["wins"][k]), n), "mean_score": a["score"][k] / n,
                       "mean_margin": a["margin"][k] / n,
                       "margin_ci95": _mean_ci(a["margin"][k], a["margin2"][k], n)} for k in range(u)],
            "margins": {int(k): int(v) for k, v in sorted(a["hist"].items())},
            "leader_win_rate": a["leader"] / n, "leader_ci95": wilson(a["leader"], n),
            "after_first_deal": {c: {"games": h[0], "win_rate": h[1] / h[0] if h[0] else float("nan"),
                                     "ci95": wilson(h[1], h[0])}
                                 for c, h in a["halves"].items()},
            "length": {"unit": "rounds" if fmt.matches else "turns", "mean": a["length"] / n,
                       "ci95": _mean_ci(a["length"], a["length2"], n)},
            "events_per_game": {e: v / n for e, v in a["events"].items() if e in live},
            "points": {c: {"per_game": v.sum() / n,
                           "share": abs(v.sum()) / total_pts if total_pts else float("nan"),
                           "unit_shares": [float(x / v.sum()) if v.sum() else float("nan") for x in v]}
                       for c, v in a["cats"].items()},
        })
    pair_out = []
    for (i, j), ps in pairs.items():
        pair_out.append({"a": folders[i][0], "b": folders[j][0],
                         "differences": {name: p.result() for name, p in ps.items()
                                         if not name.endswith(" per game") or name[:-len(" per game")] in live}})
    return {"format": fmt.name, "bots": spec["bots"], "games": spec["games"], "seed": spec["seed"],
            "options": spec.get("options") or {}, "vary": spec.get("vary") or [], "units": u,
            "unit_kind": "team" if fmt.teams else "seat", "misere": misere, "fair": 1 / u,
            "variants": variants, "pairs": pair_out,
            "test": "exact sign test (two-sided binomial on positive against negative paired differences; "
                    "McNemar for wins); intervals: normal, of the mean paired difference"}


def _mean_ci(s, s2, n):
    """The 95% normal interval of a mean from the running sums of n values and of their squares."""
    if n == 0:
        return (float("nan"), float("nan"))
    mean = s / n
    var = (s2 - n * mean * mean) / (n - 1) if n > 1 else 0.0
    half = Z95 * math.sqrt(max(var, 0.0) / n)
    return (mean - half, mean + half)


def _num(x):
    return "-" if x != x else f"{x:.3f}"


def format_summary(s):
    """The terminal summary of a study: a table per variant, then the paired differences."""
    kind = s["unit_kind"]
    lines = [f"{s['format']}  bots {','.join(s['bots'])}  {s['games']:,} games per variant  seed {s['seed']}"
             + (f"  fixed {s['options']}" if s["options"] else ""),
             ""]
    w = max(8, *(len(v["label"]) for v in s["variants"]))
    lines.append(f"{'variant':<{w}} " + " ".join(f"{kind + ' ' + str(k) + ' wins':>22}" for k in range(s["units"]))
                 + f" {'margin ' + kind + ' 0':>16} {'leader wins':>12} {s['variants'][0]['length']['unit']:>7}")
    for v in s["variants"]:
        cells = " ".join(f"{u['win_rate']:.4f} [{u['ci95'][0]:.3f},{u['ci95'][1]:.3f}]".rjust(22) for u in v["units"])
        lines.append(f"{v['label']:<{w}} {cells} {v['units'][0]['mean_margin']:>+16.3f} "
                     f"{v['leader_win_rate']:>12.4f} {v['length']['mean']:>7.2f}")
    if s["variants"][0]["after_first_deal"]:
        lines += ["", f"after the first deal: how often the {kind} ahead then (on the points its piles would "
                  "score), and the second deal's leader, win", f"{'variant':<{w}} {'ahead wins':>26} "
                  f"{'second leader wins':>26}"]
        for v in s["variants"]:
            h = v["after_first_deal"]
            lines.append(f"{v['label']:<{w}} " + " ".join(
                (f"{h[c]['win_rate']:.4f} [{h[c]['ci95'][0]:.3f},{h[c]['ci95'][1]:.3f}]" if c in h else "-")
                .rjust(26) for c in ("ahead_1", "leader_2")))
    cats = list(s["variants"][0]["points"])
    lines += ["", f"points by category: share of all points (Kasino: of their magnitudes), and {kind} 0's share "
                  "of the category"]
    lines.append(f"{'variant':<{w}} " + " ".join(f"{c:>18}" for c in cats))
    for v in s["variants"]:
        lines.append(f"{v['label']:<{w}} " + " ".join(
            (f"{v['points'][c]['share']:.3f} / " + _num(v['points'][c]['unit_shares'][0])).rjust(18)
            for c in cats))
    events = list(s["variants"][0]["events_per_game"])
    lines += ["", "moves per game (all seats)", f"{'variant':<{w}} " + " ".join(f"{e:>16}" for e in events)]
    for v in s["variants"]:
        lines.append(f"{v['label']:<{w}} " + " ".join(f"{v['events_per_game'][e]:>16.3f}" for e in events))
    if s["pairs"]:
        lines += ["", f"paired differences (b - a, per game; {s['test']})"]
        for p in s["pairs"]:
            lines.append(f"  {p['b']}  -  {p['a']}")
            for name, d in p["differences"].items():
                flag = "significant" if d["significant"] else "no significant difference"
                p_text = f"p = {d['p']:.3g}" if d["p"] > 0 else "p < 1e-300"
                lines.append(f"    {name.replace('unit', kind):<26} {d['mean']:+.4f} [{d['ci95'][0]:+.4f}, "
                             f"{d['ci95'][1]:+.4f}]  {p_text}  {flag}")
    return "\n".join(lines)
