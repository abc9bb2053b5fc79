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
a win indicator this is the exact McNemar test), scipy.stats.binomtest.

Before any statistic (issue 38): which variants played games identical to another's (every stored per-game
number the same on every deal; they are named, marked and left out of the tests), the share of deals each
variant's games differ from the first variant's, and per varied rule how often the bots used it (its counter,
RULE_COUNTERS) and how many deals it changed. The tests leave out metrics that cannot differ and are read with
Holm's correction over every test made; p is a real number floored at 1e-300, its log10 exact."""
import itertools
import math
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

from . import files, run_folder, storage
from .families import family_of
from .formats import get_format, options_of, with_options
from .stats import P_FLOOR, Z95, holm, p_text, p_value, sign_test_log10p, wilson  # noqa: F401

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
    with runs.holding(out, command, BalanceError):
        manifest = run_folder.claim(out, "balance", force, BalanceError, _read)
        if manifest is not None and manifest.get("spec") != spec:
            raise BalanceError(f"{out} holds another study (use --force to replace it, or another --out)")
        entries = [{"name": f"v{k}", "label": label(v), "options": {n: text(x) for n, x in v.items()}}
                   for k, v in enumerate(variants)]
        run_folder.write_manifest(out, {"spec": spec, "variants": entries, "command": command}, MANIFEST)
        files.make_folder(out / VARIANTS)
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
    manifest = run_folder.read_manifest(out, MANIFEST)
    variants = manifest.get("variants") if manifest is not None else None
    if manifest is not None and not (
            isinstance(variants, list) and variants and _run_spec(manifest.get("spec"))
            and all(isinstance(e, dict) and isinstance(e.get("name"), str) and isinstance(e.get("label"), str)
                    for e in variants)):
        raise run_folder.RunFolderError(f"{Path(out) / MANIFEST} is damaged: not a balance study's manifest")
    return manifest


def study_runs(out):
    """(manifest, [(label, run folder)]) of a study folder, or of a plain `simulate` run folder (one variant,
    its rule options as the label)."""
    out = Path(out)
    manifest = _read(out)
    if manifest is not None:
        return manifest, [(e["label"], out / VARIANTS / e["name"]) for e in manifest["variants"]]
    run = run_folder.read_manifest(out)
    if run is None or "spec" not in run:
        raise BalanceError(f"{out} holds no balance study, tournament or simulate run")
    s = run["spec"]
    if not _run_spec(s):
        raise run_folder.RunFolderError(f"{out / run_folder.MANIFEST} is damaged: its spec is not a run's")
    spec = {"kind": "simulate", "format": s["format"], "bots": s["bots"], "games": s["games"], "seed": s["seed"],
            "options": s.get("options", {}), "vary": []}
    return {"spec": spec, "variants": [{"name": ".", "label": "as run", "options": {}}]}, [("as run", out)]


def _table(path, key, folder):
    """One shard file of a run's table (checked against its manifest already), RunFolderError (one line) unless
    it holds the table's `key` column (a file of another table reads back, but not as this one)."""
    t = pq.read_table(path)
    if key not in t.column_names:
        raise run_folder.RunFolderError(f"the results in {folder} do not read as a khasino run's tables "
                                        f"({Path(path).parent.name}/{Path(path).name} has no {key!r} column)")
    return t


def _variant_tables(out, label, folder):
    """(games files, seats files) of one variant's run, checked (run_folder.verified_tables); a problem is said
    of the study and the variant."""
    try:
        return run_folder.verified_tables(folder, storage.GAMES), run_folder.verified_tables(folder, storage.SEATS)
    except run_folder.RunFolderError as e:
        if str(folder) == str(out):         # a plain simulate run read as a study of one variant
            raise
        raise run_folder.RunFolderError(f"study {out}, variant {label}: {e}") from None


def load(out, table="games"):
    """Every variant's rows of a study as one DataFrame (`games` or `seats`), with its variant columns."""
    import pandas as pd
    _, folders = study_runs(out)
    return pd.concat([pd.read_parquet(p) for _, f in folders for p in run_folder.verified_tables(f, table)],
                     ignore_index=True)


# ---- statistics ----------------------------------------------------------------------------------------------

def categories(fmt):
    """Points by category: {name: (seats column, points per unit of it)} for the format's family."""
    return family_of(fmt).categories(fmt)


# Moves per game, drawn and tested. Not `builds_captured`: under P1 (Cassino: its commitment rule) a build's owner
# always keeps a card that takes it, so every build made is captured before the game ends and the games table's
# `builds_captured` equals `builds` in every game (per seat they differ: who took whose build).
EVENTS = ("captures", "builds", "tabbes", "sweeps", "stays")
# Counters of moves (all seats of a game): how often the bots did what a rule allows or forbids.
COUNTERS = ("captures", "builds", "loads", "changes", "trails", "followups", "pile_cards_taken", "tabbes",
            "sweeps", "stay_offers", "stays")
COUNTER_WORDS = {"followups": "follow-up groups", "pile_cards_taken": "opponent pile cards used",
                 "stay_offers": "Stay decisions", "stays": "Stays"}
# The counter of each option's own events: a rule whose counter is 0 in every game was never used.
RULE_COUNTERS = {"follow_ups": "followups", "opponent_piles": "pile_cards_taken", "change_mode": "changes",
                 "max_builds_owned": "builds", "trail_restricted": "trails",
                 "no_trail_own_build_first_deal": "trails", "sweeps": "sweeps", "compulsory_tabbe": "tabbes",
                 "tabbe_value": "tabbes"}
# Per-game columns the same in every variant by design (the deal and its place in the run), left out when games
# are compared; text columns (format, rules, options, bots, variant tags) are left out too.
SAME_BY_DESIGN = {"game", "seed", "series", "match", "seat", "team"}
ALPHA = 0.05
METRICS = ("unit 0 win", "unit 0 margin", "leader win", "length")


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
    """The mean paired difference with its 95% normal interval, and the exact two-sided sign test's p (and its
    log10, exact where p is below P_FLOOR)."""
    lp = sign_test_log10p(pos, neg)
    return {"n": n, "mean": s / n if n else float("nan"), "ci95": _mean_ci(s, s2, n), "positive": pos,
            "negative": neg, "p": p_value(lp), "log10_p": lp}


def _units(fmt):
    """Units (teams in a team format, else seats): each unit's first seat."""
    if fmt.teams:
        return [min(t) for t in sorted(fmt.teams, key=min)]
    return list(range(fmt.seats))


def _col(t, c):
    return t.column(c).to_numpy(zero_copy_only=False)


def _numeric(t, c):
    import pyarrow as pa
    typ = t.schema.field(c).type
    return pa.types.is_integer(typ) or pa.types.is_boolean(typ)


def _stored(games, seats):
    """Every stored per-game number of a shard, one row a game (in game order): the games table's integer and
    true/false columns and each seat's of the seats table, less SAME_BY_DESIGN; what "identical" compares."""
    order = np.argsort(_col(games, "game"), kind="stable")
    cols = [_col(games, c).astype(np.int32)[order] for c in games.column_names
            if c not in SAME_BY_DESIGN and not c.startswith("variant") and _numeric(games, c)]
    s_order = np.lexsort((_col(seats, "seat"), _col(seats, "game")))
    n = games.num_rows
    for c in seats.column_names:
        if c not in SAME_BY_DESIGN and not c.startswith("variant") and _numeric(seats, c):
            cols.extend(_col(seats, c).astype(np.int32)[s_order].reshape(n, -1).T)
    return np.stack(cols, axis=1)


def _counters(games, seats):
    """Each counter of COUNTERS per game (in game order): the games table's total, or the seats' sum."""
    g = _col(games, "game").astype(np.int64)
    order = np.argsort(g, kind="stable")
    base, n = int(g.min()), games.num_rows
    sg = _col(seats, "game").astype(np.int64) - base
    out = {}
    for c in COUNTERS:
        if c in games.column_names:
            out[c] = _col(games, c).astype(np.int64)[order]
        elif c in seats.column_names:
            out[c] = np.bincount(sg, weights=_col(seats, c).astype(np.float64), minlength=n).astype(np.int64)
    return out


def _game_metrics(games, seats, fmt, cats, unit_seats, misere, events):
    """Per game of one shard: each unit's score, win and margin, the leader's win, the game length, the moves
    of each kind and the points of each category."""
    n = games.num_rows
    col = _col
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
    halves, second_same = {}, None
    for c in ("leader_2", "ahead_1"):     # after the first deal: its leader (a seat), the unit ahead
        if c in games.column_names:
            x = col(games, c).astype(np.int64)[order]
            if c == "leader_2":
                second_same = bool((x == leader).all())
            unit = x if c == "ahead_1" else np.where(x >= 0, unit_of_seat[np.maximum(x, 0)], -1)
            halves[c] = (int((unit >= 0).sum()), int(((unit >= 0) & (unit == winner)).sum()))
    sg = col(seats, "game").astype(np.int64)
    base = int(col(games, "game").min())
    su = unit_of_seat[col(seats, "seat").astype(np.int64)]
    cat = {}
    for name, (c, per) in cats.items():     # (game, unit) points: a team's seats each count their own
        cat[name] = np.bincount((sg - base) * u + su, weights=col(seats, c).astype(np.float64) * per,
                                minlength=n * u).reshape(n, u)
    return {"game": col(games, "game").astype(np.int64)[order], "score": score, "win": win, "margin": margin,
            "leader_win": leader_win, "leader_unit": leader_unit, "length": length, "events": events,
            "cats": cat, "halves": halves, "tie": (winner < 0).astype(np.int64), "second_same": second_same}


class _Range:
    """The smallest and largest value seen of each named per-game quantity, over every variant and game."""

    def __init__(self):
        self.lo, self.hi = {}, {}

    def add(self, name, x):
        if len(x):
            self.lo[name] = min(self.lo.get(name, math.inf), float(np.min(x)))
            self.hi[name] = max(self.hi.get(name, -math.inf), float(np.max(x)))

    def constant(self, name):
        return name in self.lo and self.lo[name] == self.hi[name]


def summarize(out):
    """The study's statistics as a dict of plain values (module docstring), streamed shard by shard.

    Before any statistic: which variants played games identical to another's (every stored per-game number,
    `_stored`, the same on every deal), the share of deals on which each variant's games differ from the first
    variant's, and per varied rule how often the bots used it (its RULE_COUNTERS counter) and how many deals it
    changed. The paired tests leave out pairs of identical variants and metrics constant over every game of
    every variant (or, like the leader's win where the leader is always unit 0, equal to another metric game by
    game), and are read with Holm's correction over all the tests made."""
    manifest, folders = study_runs(out)
    spec = manifest["spec"]
    files_of = [_variant_tables(out, lab, f) for lab, f in folders]
    fmt = with_options(get_format(spec["format"]), spec.get("options") or {})
    misere = family_of(fmt).misere
    cats = categories(fmt)
    unit_seats = _units(fmt)
    u = len(unit_seats)
    nv = len(folders)
    acc = [{"n": 0, "wins": np.zeros(u, np.int64), "ties": 0, "score": np.zeros(u), "margin": np.zeros(u),
            "margin2": np.zeros(u), "hist": {}, "leader": 0, "length": 0.0, "length2": 0.0,
            "events": {}, "cats": {}, "halves": {}, "counters": {}} for _ in range(nv)]
    shards = files_of[0][0]
    game_cols = pq.read_schema(shards[0]).names
    seat_cols = pq.read_schema(files_of[0][1][0]).names
    events = [e for e in EVENTS if e in game_cols]
    cats = {c: x for c, x in cats.items() if x[0] in seat_cols}
    pair_names = METRICS + tuple(f"{e} per game" for e in events)
    pairs = {(i, j): {name: _Paired() for name in pair_names} for i in range(nv) for j in range(i + 1, nv)}
    differ = {ij: 0 for ij in pairs}
    seen = _Range()
    leader_is_unit0 = True
    second_same = True          # the second deal's leader is the first's in every game (K14 option 0)
    for i, part in enumerate(shards):
        metrics, stored = [], []
        for (_, f), (games_files, seats_files) in zip(folders, files_of):
            games = _table(games_files[i], "winner", f)
            seats = _table(seats_files[i], "seat", f)
            m = _game_metrics(games, seats, fmt, cats, unit_seats, misere, events)
            m["counters"] = _counters(games, seats)
            metrics.append(m)
            stored.append(_stored(games, seats))
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
            for c, x in m["counters"].items():
                a["counters"][c] = a["counters"].get(c, 0) + int(x.sum())
            for c, x in m["cats"].items():
                a["cats"][c] = a["cats"].get(c, np.zeros(u)) + x.sum(axis=0)
                seen.add(f"points {c}", x.sum(axis=1))
            for c, (n_, w_) in m["halves"].items():
                h = a["halves"].setdefault(c, [0, 0])
                h[0] += n_
                h[1] += w_
            seen.add("length", m["length"])
            seen.add("unit 0 margin", m["margin"][:, 0])
            seen.add("unit 0 win", m["win"][:, 0])
            seen.add("leader win", m["leader_win"])
            for e, x in m["events"].items():
                seen.add(f"{e} per game", x)
            leader_is_unit0 &= bool((m["leader_unit"] == 0).all())
            second_same &= bool(m["second_same"])
        for (i, j), ps in pairs.items():
            mi, mj = metrics[i], metrics[j]
            differ[(i, j)] += int((stored[i] != stored[j]).any(axis=1).sum())
            ps["unit 0 win"].add(mj["win"][:, 0].astype(np.int64) - mi["win"][:, 0])
            ps["unit 0 margin"].add(mj["margin"][:, 0] - mi["margin"][:, 0])
            ps["leader win"].add(mj["leader_win"] - mi["leader_win"])
            ps["length"].add(mj["length"] - mi["length"])
            for e in events:
                ps[f"{e} per game"].add(mj["events"][e] - mi["events"][e])
    live = [e for e in events if any(a["events"].get(e) for a in acc)]     # moves some variant makes
    scored = [c for c in cats if any(a["cats"][c].any() for a in acc)]     # e.g. not sweeps where none score
    n_games = acc[0]["n"]
    entries = manifest["variants"]
    names = [e["name"] if e["name"] != "." else "v0" for e in entries]
    same_as = [next((i for i in range(j) if differ[(i, j)] == 0), None) for j in range(nv)]
    variants = []
    for k, ((lab, _), a, entry) in enumerate(zip(folders, acc, entries)):
        n = a["n"]
        total_pts = float(sum(abs(x.sum()) for x in a["cats"].values()))     # Kasino's tabbe minus is < 0
        variants.append({
            "name": names[k], "label": lab, "options": entry["options"], "games": n, "ties": a["ties"],
            "identical_to": None if same_as[k] is None else folders[same_as[k]][0],
            "differs_from_first": differ[(0, k)] if k else 0,
            "units": [{"unit": q, "seat": unit_seats[q], "win_rate": a["wins"][q] / n,
                       "ci95": wilson(int(a["wins"][q]), n), "mean_score": a["score"][q] / n,
                       "mean_margin": a["margin"][q] / n,
                       "margin_ci95": _mean_ci(a["margin"][q], a["margin2"][q], n)} for q in range(u)],
            "margins": {int(q): int(v) for q, v in sorted(a["hist"].items())},
            "leader_win_rate": a["leader"] / n, "leader_ci95": wilson(a["leader"], n),
            "after_first_deal": {c: {"games": h[0], "win_rate": h[1] / h[0], "ci95": wilson(h[1], h[0])}
                                 for c, h in a["halves"].items()      # none in the one-deal formats; no
                                 if h[0] and not (c == "leader_2" and second_same)},  # copy of the leader's
            "length": {"unit": "rounds" if fmt.matches else "turns", "mean": a["length"] / n,
                       "ci95": _mean_ci(a["length"], a["length2"], n)},
            "events_per_game": {e: v / n for e, v in a["events"].items() if e in live},
            "counters_per_game": {c: v / n for c, v in a["counters"].items()},
            "points": {c: {"per_game": v.sum() / n,
                           "share": abs(v.sum()) / total_pts if total_pts else float("nan"),
                           "unit_shares": [float(x / v.sum()) if v.sum() else float("nan") for x in v]}
                       for c, v in a["cats"].items() if c in scored},
        })
    identical = [_identical(variants[j], variants[i], n_games, acc) for j, i in enumerate(same_as) if i is not None]
    # what the tests leave out, and why
    skipped = {}
    length_unit = "rounds" if fmt.matches else "turns"
    for name in pair_names:
        if seen.constant(name) and (not name.endswith(" per game") or name[:-len(" per game")] in live):
            skipped[name] = (f"{seen.lo[name]:g}{' ' + length_unit if name == 'length' else ''} in every game"
                             + (" of every variant" if nv > 1 else ""))
    if leader_is_unit0 and "leader win" not in skipped:
        skipped["leader win"] = "the leader is unit 0 in every game: the same as unit 0 win"
    pair_out, tests = [], []
    for (i, j), ps in pairs.items():
        entry = {"a": folders[i][0], "b": folders[j][0], "identical": differ[(i, j)] == 0,
                 "games_differing": differ[(i, j)], "differences": {},
                 "tested": same_as[i] is None and same_as[j] is None,   # a copy's pairs are its original's
                 "same": []}                                            # metrics equal in every game: no test
        if entry["tested"]:
            for name, p in ps.items():
                if name in skipped or (name.endswith(" per game") and name[:-len(" per game")] not in live):
                    continue
                d = p.result()
                if d["positive"] + d["negative"] == 0:
                    entry["same"].append(name)
                    continue
                entry["differences"][name] = d
                tests.append(d)
        pair_out.append(entry)
    for d, lp in zip(tests, holm([d["log10_p"] for d in tests])):
        d.update({"log10_p_holm": lp, "p_holm": p_value(lp), "significant": lp < math.log10(ALPHA)})
    return {"format": fmt.name, "bots": spec["bots"], "games": spec["games"], "seed": spec["seed"],
            "options": spec.get("options") or {}, "vary": spec.get("vary") or [], "units": u,
            "unit_kind": "team" if fmt.teams else "seat", "misere": misere, "fair": 1 / u,
            "variants": variants, "identical": identical, "rules": _rule_use(spec, variants, differ, n_games),
            "pairs": pair_out, "not_tested": skipped, "tests": len(tests), "alpha": ALPHA,
            "points_constant": all(seen.constant(f"points {c}") for c in scored),
            "leader_is_unit0": leader_is_unit0,
            "test": "exact sign test (two-sided binomial on positive against negative paired differences; "
                    "McNemar for wins); intervals: normal, of the mean paired difference",
            "correction": f"significant after Holm correction over {len(tests)} tests (family-wise error "
                          f"{ALPHA:g})"}


def _counter_words(c):
    return COUNTER_WORDS.get(c, c)


def _identical(v, w, n, acc):
    """Why variant v played w's games: the options they differ in, and whether the bots ever used them."""
    changed = [k for k in v["options"] if v["options"][k] != w["options"].get(k)]
    reasons = []
    for k in changed:
        c = RULE_COUNTERS.get(k)
        if c is None or c not in v["counters_per_game"]:
            reasons.append(f"{k} never changed a game")
        elif v["counters_per_game"][c] == 0 and w["counters_per_game"][c] == 0:
            reasons.append(f"the bots never used the rule ({k}: no {_counter_words(c)} in any game)")
        else:
            reasons.append(f"{k} never changed a game ({_counter_words(c)} a game: "
                           f"{v['counters_per_game'][c]:.3f} in both)")
    return {"variant": v["label"], "same_as": w["label"], "games": n, "options": changed,
            "text": f"{v['label']}: identical to {w['label']} for these bots (every game the same on all "
                    f"{n:,} deals): " + "; ".join(reasons)}


def _rule_use(spec, variants, differ, n):
    """Per varied option: its counter per game under each value, and the share of deals it changed between
    variants that differ in that option alone."""
    out = []
    for name, values in spec.get("vary") or []:
        c = RULE_COUNTERS.get(name)
        per_value = {}
        if c is not None and c in variants[0]["counters_per_game"]:
            for val in values:
                xs = [v["counters_per_game"][c] for v in variants if v["options"].get(name) == val]
                per_value[val] = sum(xs) / len(xs)
        shares = [differ[(i, j)] / n for i, j in differ
                  if {k for k in variants[i]["options"] if variants[i]["options"][k] != variants[j]["options"][k]}
                  == {name}]
        out.append({"option": name, "counter": c if per_value else None, "per_value": per_value,
                    "changed": shares})
    return out


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


def _mark(v):
    """A variant's label in the tables, identical ones marked."""
    return v["label"] + (f" (= {v['identical_to']})" if v["identical_to"] else "")


def format_summary(s):
    """The terminal summary of a study: which variants are identical and how often each rule was used, then a
    table per variant, then the paired differences (Holm-corrected)."""
    kind = s["unit_kind"]
    n = s["games"]
    lines = [f"{s['format']}  bots {','.join(s['bots'])}  {n:,} games per variant  seed {s['seed']}"
             + (f"  fixed {s['options']}" if s["options"] else ""), ""]
    vs = s["variants"]
    if len(vs) > 1:
        first = vs[0]["label"]
        lines.append(f"games compared deal by deal with {first}'s on every stored per-game number "
                     "(docs/BALANCE.md):")
        for v in vs[1:]:
            share = v["differs_from_first"] / n
            lines.append(f"  {v['label']}: differs on {share:.2%} of the deals ({v['differs_from_first']:,} of {n:,})")
        if s["identical"]:
            lines += ["", "identical variants (left out of the paired tests):"]
            lines += [f"  {x['text']}" for x in s["identical"]]
        lines += ["", "how often the bots used each varied rule (all seats, per game), and the deals it changed:"]
        for r in s["rules"]:
            used = (f"{_counter_words(r['counter'])} a game " + ", ".join(f"{k} {x:.3f}"
                                                                         for k, x in r["per_value"].items())
                    if r["counter"] else "no counter of its own")
            ch = r["changed"]
            changed = (f"changed {min(ch):.2%}" + (f" to {max(ch):.2%}" if f"{max(ch):.2%}" != f"{min(ch):.2%}"
                                                   else "")
                       + " of the deals" if ch else "")
            lines.append(f"  {r['option']}: {used}" + (f"; {changed}" if changed else ""))
        lines.append("")
    w = max(8, *(len(_mark(v)) for v in vs))
    lead = not s.get("leader_is_unit0")
    lines.append(f"{'variant':<{w}} " + " ".join(f"{kind + ' ' + str(k) + ' wins':>22}" for k in range(s["units"]))
                 + f" {'margin ' + kind + ' 0':>16}" + (f" {'leader wins':>12}" if lead else "")
                 + f" {vs[0]['length']['unit']:>7}")
    for v in vs:
        cells = " ".join(f"{u['win_rate']:.4f} [{u['ci95'][0]:.3f},{u['ci95'][1]:.3f}]".rjust(22) for u in v["units"])
        lines.append(f"{_mark(v):<{w}} {cells} {v['units'][0]['mean_margin']:>+16.3f}"
                     + (f" {v['leader_win_rate']:>12.4f}" if lead else "") + f" {v['length']['mean']:>7.2f}")
    if vs[0]["after_first_deal"]:
        lines += ["", f"after the first deal: how often the {kind} ahead then (on the points its piles would "
                  "score), and the second deal's leader, win", f"{'variant':<{w}} {'ahead wins':>26} "
                  f"{'second leader wins':>26}"]
        for v in vs:
            h = v["after_first_deal"]
            lines.append(f"{_mark(v):<{w}} " + " ".join(
                (f"{h[c]['win_rate']:.4f} [{h[c]['ci95'][0]:.3f},{h[c]['ci95'][1]:.3f}]" if c in h else "-")
                .rjust(26) for c in ("ahead_1", "leader_2")))
    cats = list(vs[0]["points"])
    lines += ["", f"points by category: share of all points (Kasino: of their magnitudes), and {kind} 0's share "
                  "of the category"]
    lines.append(f"{'variant':<{w}} " + " ".join(f"{c:>18}" for c in cats))
    for v in vs:
        lines.append(f"{_mark(v):<{w}} " + " ".join(
            (f"{v['points'][c]['share']:.3f} / " + _num(v['points'][c]['unit_shares'][0])).rjust(18)
            for c in cats))
    counters = [c for c in vs[0]["counters_per_game"] if any(v["counters_per_game"][c] for v in vs)]
    lines += ["", "moves per game (all seats)", f"{'variant':<{w}} " + " ".join(f"{c:>16}" for c in counters)]
    for v in vs:
        lines.append(f"{_mark(v):<{w}} " + " ".join(f"{v['counters_per_game'][c]:>16.3f}" for c in counters))
    if s["pairs"]:
        lines += ["", f"paired differences (b - a, per game; {s['test']}); {s['correction']}"]
        for name, why in s["not_tested"].items():
            lines.append(f"  not tested: {name.replace('unit', kind)} ({why.replace('unit', kind)})")
        for x in s["identical"]:
            lines.append(f"  not tested: every pair with {x['variant']} (identical to {x['same_as']}: its pairs "
                         "are that variant's)")
        for p in s["pairs"]:
            if not p.get("tested", True):
                continue
            lines.append(f"  {p['b']}  -  {p['a']}   ({p['games_differing'] / n:.2%} of the deals differ)")
            if p["same"]:
                same = ", ".join(x.replace("unit", kind) for x in p["same"])
                lines.append(f"    the same in every game, not tested: {same}")
            for name, d in p["differences"].items():
                flag = "significant" if d["significant"] else "not significant"
                lines.append(f"    {name.replace('unit', kind):<26} {d['mean']:+.4f} [{d['ci95'][0]:+.4f}, "
                             f"{d['ci95'][1]:+.4f}]  {p_text(d['log10_p'])}  {p_text(d['log10_p_holm'], 'Holm p')}"
                             f"  {flag}")
    return "\n".join(lines)
