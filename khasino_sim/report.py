"""Reports (issue 11, 38): `khasino report RUN_DIR` and `--report DIR` write figures (PNG, matplotlib), tables
(CSV, snake_case columns) and a Markdown page: a balance study gets a balance report (identical variants and rule
use first, then the statistics and the Holm-corrected paired tests); a `simulate` run gets a simulation report
(win rate per bot, per seat and per team with 95% intervals); a tournament folder gets the tournament's report
(khasino_sim/tournament.py).

Figures: win rate per seat (or team) by variant with 95% intervals against the fair share; the distribution of
unit 0's margin (one line per group of identical variants); points by category; game length and moves per
game. A figure, or a panel, whose quantity is the same in every game of every variant is not drawn, and the
page says so and why. Each figure has a title, labelled axes with units, the legend outside the bars, and the
format, bots and games in its caption."""
import json
import re
from pathlib import Path

import numpy as np

from . import balance, files
from .text import markdown, printable


def snake(name):
    """A column name in snake_case: `most cards` -> `most_cards`, `2S` -> `2s`."""
    return re.sub(r"[^0-9a-z]+", "_", str(name).lower()).strip("_")


def _after_first_deal(rows, kind):
    """What the after-the-first-deal rows shown mean, only those shown (a format whose second deal is led by
    the first's leader has no `leader_2` row)."""
    say = {"ahead_1": f"`ahead_1` is how often the {kind} ahead when the first deal ends (on the points its pile "
                      "would score then) wins the game",
           "leader_2": "`leader_2` is how often the second deal's leader wins"}
    return "; ".join(say[r] for r in rows)


def write(out, report):
    """Write the report of the run or study in `out` to the folder `report`; returns the report.md path."""
    out = Path(out)
    if (out / "tournament.json").exists():
        from .tournament import write_report
        return write_report(out, report) / "report.md"
    manifest, _ = balance.study_runs(out)
    if manifest["spec"]["kind"] == "simulate":
        return write_run(out, report)
    return write_study(balance.summarize(out), report)


def _caption(s, per="per variant", bots=None):
    """A figure's or page's caption: format, bots (shown as `bots` gives them, if given), games, seed, options."""
    fixed = ", ".join(f"{k}={v}" for k, v in s["options"].items())
    games = f"{s['games']:,} games" + (f" {per}" if per else "")
    names = bots if bots is not None else [printable(b) for b in s["bots"]]
    return f"{s['format']} · bots {', '.join(names)} · {games} · seed {s['seed']}" + (
        f" · options {fixed}" if fixed else "")


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _finish(fig, s, path, per="per variant"):
    fig.text(0.01, 0.005, _caption(s, per).replace("$", r"\$"), fontsize=7, color="0.35", ha="left", va="bottom")
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    files.save_figure(fig, path, dpi=110, bbox_inches="tight")


def _outside(ax, **kw):
    """The legend to the right of the axes, off the bars."""
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0, **kw)


def _err(mid, lo, hi):
    """Error bar lengths, never negative (a Wilson bound at 0 wins is 1e-17 above the rate, not below)."""
    return [np.clip(mid - lo, 0, None), np.clip(hi - mid, 0, None)]


def _mark(v):
    return v["label"] + (f" (= {v['identical_to']})" if v.get("identical_to") else "")


def figures(s, report, per="per variant"):
    """Draw the figures that can differ; returns [(file, what, None)] for those drawn and [(file, what, why)]
    for those (or their panels) left out."""
    plt = _plt()
    report = Path(report)
    vs = s["variants"]
    labels = [_mark(v) for v in vs]
    kind = s["unit_kind"]
    x = np.arange(len(vs))
    short = [lab.replace(",", "\n").replace(" (=", "\n(=") for lab in labels]
    wide = max(len(line) for lab in short for line in lab.split("\n")) * len(vs) > 80
    tick = {"fontsize": 8, "rotation": 25 if wide else 0, "ha": "right" if wide else "center"}
    tall = 1.2 if wide else 0
    out = []

    fig, ax = plt.subplots(figsize=(max(6.5, 1.6 * len(vs) + 3), 4 + tall))
    width = 0.8 / s["units"]
    for k in range(s["units"]):
        rate = np.array([v["units"][k]["win_rate"] for v in vs])
        lo = np.array([v["units"][k]["ci95"][0] for v in vs])
        hi = np.array([v["units"][k]["ci95"][1] for v in vs])
        pos = x - 0.4 + width * (k + 0.5)
        ax.bar(pos, rate, width * 0.9, label=f"{kind} {k}" + (" (leads)" if k == 0 else ""))
        ax.errorbar(pos, rate, yerr=_err(rate, lo, hi), fmt="none", ecolor="black", capsize=3)
    ax.axhline(s["fair"], color="0.3", linestyle="--", linewidth=1, label=f"fair share {s['fair']:.3f}")
    ax.set_xticks(x, short, **tick)
    ax.set_ylabel("win rate (fraction of games, 95% interval)")
    ax.set_xlabel("rule variant" if len(vs) > 1 else "")
    ax.set_title(f"Win rate per {kind}" + (" by rule variant" if len(vs) > 1 else ""))
    _outside(ax)
    _finish(fig, s, report / "seat_advantage.png", per)
    plt.close(fig)
    out.append(("seat_advantage.png", f"win rate per {kind}", None))

    # margins: one line per group of identical variants (they would hide each other)
    keys = {k for v in vs for k in v["margins"]}
    if len(keys) <= 1:
        out.append(("margins.png", f"{kind} 0's margin", f"{next(iter(keys), 0)} in every game of every variant"))
    else:
        fig, ax = plt.subplots(figsize=(10, 4))
        groups = {}
        for v in vs:
            groups.setdefault(v.get("identical_to") or v["label"], []).append(v)
        styles = ("-", "--", ":", "-.")
        for k, group in enumerate(groups.values()):     # thinner and dashed in turn: near-equal lines stay seen
            m = group[0]["margins"]
            ks = np.array(sorted(m))
            ax.plot(ks, np.array([m[q] for q in ks]) / group[0]["games"], drawstyle="steps-mid", marker="o",
                    markersize=max(4 - k, 1.5), linewidth=max(3 - 0.6 * k, 0.8), linestyle=styles[k % 4],
                    alpha=0.85, label=" = ".join(g["label"] for g in group))
        ahead = "points below the best other" if s["misere"] else "points above the best other"
        ax.set_xlabel(f"margin of {kind} 0 ({ahead} {kind}; positive: ahead)")
        ax.set_ylabel("fraction of games")
        ax.set_title(f"Distribution of {kind} 0's margin")
        ax.axvline(0, color="0.5", linewidth=0.8)
        _outside(ax)
        _finish(fig, s, report / "margins.png", per)
        plt.close(fig)
        out.append(("margins.png", f"{kind} 0's margin", None))

    # points by category: their share of all points (left out where it is fixed by the rules), unit 0's share
    cats = list(vs[0]["points"])
    shares = not s.get("points_constant")
    fig, axes = plt.subplots(1, 2 if shares else 1, figsize=(12 if shares else 7.5, 1.8 + 0.55 * len(vs)),
                             squeeze=False)
    axes = list(axes[0])
    if shares:
        a1 = axes.pop(0)
        left = np.zeros(len(vs))
        for c in cats:
            share = np.array([v["points"][c]["share"] for v in vs])
            a1.barh(x, share, left=left, label=c)
            left += share
        a1.set_yticks(x, labels, fontsize=8)
        a1.set_xlabel("share of all points scored (fraction" + ("; of their magnitudes" if s["misere"] else "") + ")")
        a1.set_title("Points by category")
        a1.legend(fontsize=8, ncol=min(len(cats), 3), loc="lower center", bbox_to_anchor=(0.5, 1.08))
        a1.invert_yaxis()
    else:
        out.append(("points.png", "share of all points by category",
                    "every category's points are the same in every game (fixed by the scoring rules)"))
    a2 = axes[0]
    height = 0.8 / max(len(cats), 1)
    for k, c in enumerate(cats):
        a2.barh(x - 0.4 + height * (k + 0.5), [v["points"][c]["unit_shares"][0] for v in vs], height * 0.9, label=c)
    a2.axvline(s["fair"], color="0.3", linestyle="--", linewidth=1, label="fair share")
    _outside(a2)
    a2.set_yticks(x, [] if shares else labels, fontsize=8)     # beside the shares panel: its labels serve
    a2.set_xlabel(f"{kind} 0's share of each category (fraction)")
    a2.invert_yaxis()
    a2.set_title(f"Who wins each category: {kind} 0")
    _finish(fig, s, report / "points.png", per)
    plt.close(fig)
    out.append(("points.png", ("share of all points by category and " if shares else "")
                + f"{kind} 0's share of each category", None))

    # game length and moves per game
    unit = vs[0]["length"]["unit"]
    events = list(vs[0]["events_per_game"])
    long_ = "length" not in s.get("not_tested", {})
    if not long_:
        out.append(("length.png", "game length", s["not_tested"]["length"]))
    if not events:
        out.append(("length.png", "moves per game", "no counted move is made in any game"))
    if long_ or events:
        panels = int(long_) + int(bool(events))
        fig, axes = plt.subplots(1, panels, figsize=(max(5 * panels + 1, 2.4 * len(vs) * panels + 2), 4 + tall),
                                 squeeze=False)
        axes = list(axes[0])
        if long_:
            a1 = axes.pop(0)
            mean = np.array([v["length"]["mean"] for v in vs])
            lo = np.array([v["length"]["ci95"][0] for v in vs])
            hi = np.array([v["length"]["ci95"][1] for v in vs])
            a1.bar(x, mean, 0.6)
            a1.errorbar(x, mean, yerr=_err(mean, lo, hi), fmt="none", ecolor="black", capsize=3)
            a1.set_xticks(x, short, **tick)
            a1.set_ylabel(f"{unit} per game (mean, 95% interval)")
            a1.set_title("Game length")
        if events:
            a2 = axes[0]
            width = 0.8 / len(events)
            for k, e in enumerate(events):
                a2.bar(x - 0.4 + width * (k + 0.5), [v["events_per_game"][e] for v in vs], width * 0.9, label=e)
            a2.set_xticks(x, short, **tick)
            a2.set_ylabel("moves per game (all seats)")
            a2.set_title("Moves per game")
            _outside(a2)
        _finish(fig, s, report / "length.png", per)
        plt.close(fig)
        out.append(("length.png", " and ".join(w for w, ok in (("game length", long_), ("moves per game", events))
                                               if ok), None))
    else:
        (report / "length.png").unlink(missing_ok=True)
    return out


def _variant_rows(s):
    """variants.csv: one row a variant, snake_case columns."""
    kind = s["unit_kind"]
    unit = s["variants"][0]["length"]["unit"]
    rows = []
    for v in s["variants"]:
        row = {"variant": v["label"], "identical_to": v.get("identical_to") or "",
               "deals_differing_from_first": v.get("differs_from_first", 0), "games": v["games"], "ties": v["ties"]}
        for u in v["units"]:
            k = u["unit"]
            row.update({f"{kind}{k}_win_rate": u["win_rate"], f"{kind}{k}_low": u["ci95"][0],
                        f"{kind}{k}_high": u["ci95"][1], f"{kind}{k}_mean_score": u["mean_score"],
                        f"{kind}{k}_mean_margin": u["mean_margin"]})
        if not s.get("leader_is_unit0"):
            row["leader_win_rate"] = v["leader_win_rate"]
        for c, h in v.get("after_first_deal", {}).items():      # games of two deals: ahead_1, leader_2
            row.update({f"{c}_win_rate": h["win_rate"], f"{c}_low": h["ci95"][0], f"{c}_high": h["ci95"][1]})
        row[f"mean_{unit}"] = v["length"]["mean"]
        row.update({f"{snake(e)}_per_game": x_ for e, x_ in v.get("counters_per_game", v["events_per_game"]).items()})
        row.update({f"share_{snake(c)}": p["share"] for c, p in v["points"].items()})
        row.update({f"{kind}0_share_{snake(c)}": p["unit_shares"][0] for c, p in v["points"].items()})
        rows.append(row)
    return rows


def _pair_rows(s):
    kind = s["unit_kind"]
    return [{"a": p["a"], "b": p["b"], "metric": snake(name.replace("unit ", kind)), "mean_difference": d["mean"],
             "low": d["ci95"][0], "high": d["ci95"][1], "positive": d["positive"], "negative": d["negative"],
             "p": d["p"], "log10_p": d["log10_p"], "p_holm": d["p_holm"], "log10_p_holm": d["log10_p_holm"],
             "significant_holm": d["significant"]}
            for p in s["pairs"] for name, d in p["differences"].items()]


PAIR_COLUMNS = ["a", "b", "metric", "mean_difference", "low", "high", "positive", "negative", "p", "log10_p",
                "p_holm", "log10_p_holm", "significant_holm"]


def _md(df):
    """A DataFrame as a Markdown table; a number the variant does not have (a category it never scores) is "-".
    A bot's name (a user's bot file is named by its file's stem) is escaped, so no `|` or markup in it can
    break the table."""
    df = df.astype(object).where(df.notna(), None)
    if "bot" in df.columns:
        df["bot"] = [markdown(b) for b in df["bot"]]
    return df.to_markdown(index=False, floatfmt=".4g", missingval="-")


def _figure_lines(drawn):
    lines = ["## Figures", ""]
    for f, what, why in drawn:
        lines.append(f"- `{f}`, {what}: " + (f"not drawn: {why}" if why else "drawn"))
    return lines + [""]


def write_study(s, report):
    """The balance report of a study's summary (balance.summarize) in the folder `report`; returns report.md."""
    import pandas as pd
    report = files.make_folder(report, "a report folder")
    kind = s["unit_kind"]
    drawn = figures(s, report)
    shown = {f for f, _, why in drawn if why is None}
    variants = pd.DataFrame(_variant_rows(s))
    files.write_csv(variants, report / "variants.csv")
    pairs = pd.DataFrame(_pair_rows(s), columns=PAIR_COLUMNS)
    files.write_csv(pairs, report / "pairs.csv")
    rules = pd.DataFrame([{"option": r["option"], "value": val, "counter": r["counter"], "counter_per_game": x,
                           "deals_changed_min": min(r["changed"], default=float("nan")),
                           "deals_changed_max": max(r["changed"], default=float("nan"))}
                          for r in s["rules"] for val, x in (r["per_value"] or {"": float("nan")}).items()],
                         columns=["option", "value", "counter", "counter_per_game", "deals_changed_min",
                                  "deals_changed_max"])
    files.write_csv(rules, report / "rules.csv")
    files.write_text(report / "summary.json", json.dumps(s, indent=1, default=float))
    unit = s["variants"][0]["length"]["unit"]
    cols = lambda pred: [c for c in variants.columns if pred(c)]     # noqa: E731
    md = [f"# Balance report: {s['format']}", "", _caption(s, bots=[markdown(b) for b in s["bots"]]), "",
          "Every variant plays the same deals (game i from the same seed, the same bots in the same seats), so "
          "differences are paired game by game.", "", "## Identical variants and rule use", "",
          f"Each variant's games compared deal by deal with {s['variants'][0]['label']}'s, on every stored "
          "per-game number (docs/BALANCE.md, \"Identical variants and rule use\"):", "",
          _md(variants[["variant", "identical_to", "deals_differing_from_first", "games"]]), ""]
    md += [f"- **{x['text']}**" for x in s["identical"]] + ([""] if s["identical"] else [])
    md += ["How often the bots used each varied rule (its counter, per game, all seats) and the share of deals it "
           "changed (pairs of variants that differ in it alone):", "", _md(rules), ""]
    md += ["## Win rate per " + kind, ""] + (["![win rate per seat](seat_advantage.png)", ""]
                                             if "seat_advantage.png" in shown else [])
    win = cols(lambda c: c.startswith(kind) and c.endswith(("_win_rate", "_low", "_high")))
    md += [_md(variants[["variant", "games"] + win + cols(lambda c: c == "leader_win_rate")]), ""]
    if "ahead_1_win_rate" in variants.columns or "leader_2_win_rate" in variants.columns:
        shown_rows = [c for c in ("ahead_1", "leader_2") if f"{c}_win_rate" in variants.columns]
        md += [f"After the first deal: {_after_first_deal(shown_rows, kind)}.", "",
               _md(variants[["variant"] + cols(lambda c: c.startswith("ahead_1_") or c.startswith("leader_2_"))]), ""]
    md += ["## Margins", ""] + (["![margins](margins.png)", ""] if "margins.png" in shown else [])
    md += [_md(variants[["variant"] + cols(lambda c: c.endswith("_mean_margin") or c.endswith("_mean_score"))]), ""]
    md += ["## Points by category", "", "![points by category](points.png)", ""]
    if not s.get("points_constant"):
        md += [_md(variants[["variant"] + cols(lambda c: c.startswith("share_"))]), ""]
    md += [_md(variants[["variant"] + cols(lambda c: c.startswith(f"{kind}0_share_"))]), ""]
    md += ["## Game length and moves", ""] + (["![game length](length.png)", ""] if "length.png" in shown else [])
    md += [_md(variants[["variant", f"mean_{unit}"] + cols(lambda c: c.endswith("_per_game"))]), ""]
    if len(s["variants"]) > 1:
        md += ["## Paired differences (b − a)", "", f"Test: {s['test']}; {s['correction']}.", ""]
        md += [f"- not tested: {name.replace('unit ', kind + ' ')} ({why.replace('unit ', kind + ' ')})"
               for name, why in s["not_tested"].items()]
        md += [f"- not tested: {p['b']} − {p['a']}: {', '.join(x.replace('unit ', kind + ' ') for x in p['same'])} "
               "(the same in every game)" for p in s["pairs"] if p.get("same")]
        md += [f"- not tested: every pair with {x['variant']} (identical to {x['same_as']}: its pairs are that "
               "variant's)" for x in s["identical"]]
        md += ["", _md(pairs) if len(pairs) else "No pair of variants to test.", ""]
    md += _figure_lines(drawn)
    md += ["Tables: `variants.csv`, `rules.csv`, `pairs.csv` (p floored at 1e-300; `log10_p` exact); every number: "
           "`summary.json`.", ""]
    path = report / "report.md"
    files.write_text(path, "\n".join(md))
    return path


def write_run(out, report):
    """The simulation report of a `simulate` run: win rate per bot, per seat and (team formats) per team with
    95% intervals, the first seat's advantage, and the figures that can differ; returns report.md."""
    import pandas as pd
    from . import stats
    s = balance.summarize(out)      # first: it refuses an unfinished or damaged run
    st = stats.summarize(out)
    report = files.make_folder(report, "a report folder")
    kind = s["unit_kind"]
    per = ""
    bots = pd.DataFrame([{"bot": b["bot"], "played": b["played"], "wins": b["wins"], "win_rate": b["win_rate"],
                          "low": b["ci95"][0], "high": b["ci95"][1]} for b in st["bots"]])
    seats = pd.DataFrame([{"seat": p["seat"], "mean_score": p["mean_score"], "win_rate": p["win_rate"],
                           "low": p["ci95"][0], "high": p["ci95"][1]} for p in st["seats"]])
    teams = pd.DataFrame([{"team": t["team"], "seats": "+".join(map(str, t["seats"])), "games": t["games"],
                           "wins": t["wins"], "win_rate": t["win_rate"], "low": t["ci95"][0], "high": t["ci95"][1],
                           "mean_team_score": t["mean_team_score"]} for t in st["teams"]])
    files.write_csv(bots, report / "bots.csv")
    files.write_csv(seats, report / "seats.csv")
    if len(teams):
        files.write_csv(teams, report / "teams.csv")
    files.write_text(report / "summary.json", json.dumps({"run": st, "game": s}, indent=1, default=float))
    _win_figure(st, s, report / "win_rates.png")
    drawn = [("win_rates.png", "win rate per bot and per " + kind, None)] + [
        d for d in figures(s, report, per) if d[0] != "seat_advantage.png"]
    (report / "seat_advantage.png").unlink(missing_ok=True)
    shown = {f for f, _, why in drawn if why is None}
    v = s["variants"][0]
    f = st["first_seat"]
    names = [markdown(b) for b in s["bots"]]
    md = [f"# Simulation report: {s['format']}, bots {', '.join(names)}", "", _caption(s, per, names), "",
          "Seats rotate over the bots game by game, so every seat assignment is played equally often.", "",
          "## Win rate per bot", "", "![win rates](win_rates.png)", "",
          "A bot's win rate counts one outcome per game per team it plays for (95% Wilson intervals).", "",
          _md(bots), "", "## Win rate per seat", "", _md(seats), ""]
    if len(teams):
        md += ["## Win rate per team", "", _md(teams), ""]
    md += [f"First seat advantage: {f['win_rate'] - f['fair']:+.4f} (the seat that led won {f['win_rate']:.4f}, "
           f"95% interval [{f['ci95'][0]:.4f}, {f['ci95'][1]:.4f}]; {f['fair']:.4f} would be fair).", ""]
    if v["after_first_deal"]:
        md += [_md(pd.DataFrame([{"after_first_deal": c, "games": h["games"], "win_rate": h["win_rate"],
                                  "low": h["ci95"][0], "high": h["ci95"][1]}
                                 for c, h in v["after_first_deal"].items()])),
               "", f"After the first deal: {_after_first_deal(list(v['after_first_deal']), kind)}.", ""]
    md += ["## Margins and points", ""] + (["![margins](margins.png)", ""] if "margins.png" in shown else [])
    md += ["![points by category](points.png)", "",
           _md(pd.DataFrame([{"category": c, "points_per_game": p["per_game"], "share": p["share"],
                              f"{kind}0_share": p["unit_shares"][0]} for c, p in v["points"].items()])), ""]
    md += ["## Game length and moves", ""] + (["![game length](length.png)", ""] if "length.png" in shown else [])
    md += [_md(pd.DataFrame([{f"mean_{v['length']['unit']}": v["length"]["mean"],
                              **{f"{snake(c)}_per_game": x for c, x in v["counters_per_game"].items()}}])), ""]
    md += _figure_lines(drawn)
    md += ["Tables: `bots.csv`, `seats.csv`" + (", `teams.csv`" if len(teams) else "") + "; every number: "
           "`summary.json`.", ""]
    path = report / "report.md"
    files.write_text(path, "\n".join(md))
    return path


def _win_figure(st, s, path):
    """Win rate per bot and per seat (per team in a team format), 95% intervals, the fair share dashed."""
    plt = _plt()
    units = st["teams"] or st["seats"]
    kind = "team" if st["teams"] else "seat"
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    for ax, rows, names, title in ((a1, st["bots"], [printable(b["bot"]).replace("$", r"\$") for b in st["bots"]],
                                    "per bot"),
                                   (a2, units, [f"{kind} {u[kind]}" for u in units], f"per {kind}")):
        rate = np.array([r["win_rate"] for r in rows])
        lo = np.array([r["ci95"][0] for r in rows])
        hi = np.array([r["ci95"][1] for r in rows])
        x = np.arange(len(rows))
        ax.bar(x, rate, 0.6)
        ax.errorbar(x, rate, yerr=_err(rate, lo, hi), fmt="none", ecolor="black", capsize=3)
        ax.axhline(s["fair"], color="0.3", linestyle="--", linewidth=1, label=f"fair share {s['fair']:.3f}")
        ax.set_xticks(x, names, fontsize=8, rotation=20 if max(map(len, names)) > 10 else 0)
        ax.set_ylabel("win rate (fraction of games, 95% interval)")
        ax.set_title(f"Win rate {title}")
    _outside(a2)
    _finish(fig, s, path, "")
    plt.close(fig)
