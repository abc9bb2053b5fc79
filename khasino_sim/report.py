"""Reports (issue 11): `khasino report RUN_DIR` and `--report DIR` write figures (PNG, matplotlib), tables (CSV)
and a Markdown page for a balance study or a `simulate` run (read as a study of one variant,
khasino_sim/balance.py); a tournament folder gets the tournament's report (khasino_sim/tournament.py).

Figures: win rate per seat (or team) by variant with 95% intervals against the fair share; the distribution of
seat 0's margin; the share of the points by category; game length and moves per game. Each has a title,
labelled axes with units, and the format, bots and games in its caption."""
import json
from pathlib import Path

import numpy as np

from . import balance


def write(out, report):
    """Write the report of the run or study in `out` to the folder `report`; returns the report.md path."""
    out = Path(out)
    if (out / "tournament.json").exists():
        from .tournament import write_report
        return write_report(out, report) / "report.md"
    return write_study(balance.summarize(out), report)


def _caption(s):
    fixed = ", ".join(f"{k}={v}" for k, v in s["options"].items())
    return (f"{s['format']} · bots {', '.join(s['bots'])} · {s['games']:,} games per variant · seed {s['seed']}"
            + (f" · fixed {fixed}" if fixed else ""))


def _finish(fig, s, path):
    fig.text(0.01, 0.005, _caption(s), fontsize=7, color="0.35", ha="left", va="bottom")
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    fig.savefig(path, dpi=110)


def write_study(s, report):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd
    report = Path(report)
    report.mkdir(parents=True, exist_ok=True)
    labels = [v["label"] for v in s["variants"]]
    kind = s["unit_kind"]
    x = np.arange(len(labels))
    short = [lab.replace(",", "\n") for lab in labels]
    longest = max(len(line) for lab in short for line in lab.split("\n"))
    tick = {"fontsize": 8, "rotation": 25 if longest * len(labels) > 80 else 0,
            "ha": "right" if longest * len(labels) > 80 else "center"}

    # win rate per unit with intervals
    tall = 1.2 if tick["rotation"] else 0
    fig, ax = plt.subplots(figsize=(max(5.5, 1.6 * len(labels) + 2), 4 + tall))
    width = 0.8 / s["units"]
    for k in range(s["units"]):
        rate = np.array([v["units"][k]["win_rate"] for v in s["variants"]])
        lo = np.array([v["units"][k]["ci95"][0] for v in s["variants"]])
        hi = np.array([v["units"][k]["ci95"][1] for v in s["variants"]])
        pos = x - 0.4 + width * (k + 0.5)
        ax.bar(pos, rate, width * 0.9, label=f"{kind} {k}" + (" (leads)" if k == 0 else ""))
        ax.errorbar(pos, rate, yerr=[rate - lo, hi - rate], fmt="none", ecolor="black", capsize=3)
    ax.axhline(s["fair"], color="0.3", linestyle="--", linewidth=1, label=f"fair share {s['fair']:.3f}")
    ax.set_xticks(x, short, **tick)
    ax.set_ylabel("win rate (fraction of games, 95% interval)")
    ax.set_xlabel("rule variant")
    ax.set_title(f"Win rate per {kind} by rule variant")
    ax.legend(fontsize=8)
    _finish(fig, s, report / "seat_advantage.png")
    plt.close(fig)

    # margin distributions
    fig, ax = plt.subplots(figsize=(7, 4))
    for v in s["variants"]:
        m = v["margins"]
        keys = np.array(sorted(m))
        freq = np.array([m[k] for k in keys]) / v["games"]
        ax.plot(keys, freq, drawstyle="steps-mid", marker="o", markersize=3, alpha=0.8, label=v["label"])
    ahead = "points below the best other" if s["misere"] else "points above the best other"
    ax.set_xlabel(f"margin of {kind} 0 ({ahead} {kind}; positive: ahead)")
    ax.set_ylabel("fraction of games")
    ax.set_title(f"Distribution of {kind} 0's margin")
    ax.axvline(0, color="0.5", linewidth=0.8)
    ax.legend(fontsize=8)
    _finish(fig, s, report / "margins.png")
    plt.close(fig)

    # points by category: their share of all points, and unit 0's share of each
    cats = list(s["variants"][0]["points"])
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 1.8 + 0.55 * len(labels)))
    left = np.zeros(len(labels))
    for c in cats:
        share = np.array([v["points"][c]["share"] for v in s["variants"]])
        a1.barh(x, share, left=left, label=c)
        left += share
    a1.set_yticks(x, labels, fontsize=8)
    a1.set_xlabel("share of all points scored (fraction" + ("; of their magnitudes" if s["misere"] else "") + ")")
    a1.set_title("Points by category")
    a1.legend(fontsize=8, ncol=min(len(cats), 3), loc="lower center", bbox_to_anchor=(0.5, 1.08))
    height = 0.8 / len(cats)
    for k, c in enumerate(cats):
        a2.barh(x - 0.4 + height * (k + 0.5), [v["points"][c]["unit_shares"][0] for v in s["variants"]],
                height * 0.9, label=c)
    a2.axvline(s["fair"], color="0.3", linestyle="--", linewidth=1, label="fair share")
    a2.legend(fontsize=7, loc="lower right")
    a2.set_yticks(x, labels, fontsize=8)
    a2.set_xlabel(f"{kind} 0's share of each category (fraction)")
    a1.invert_yaxis()
    a2.invert_yaxis()
    a2.set_title(f"Who wins each category: {kind} 0")
    _finish(fig, s, report / "points.png")
    plt.close(fig)

    # game length and moves per game
    unit = s["variants"][0]["length"]["unit"]
    events = list(s["variants"][0]["events_per_game"])
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(max(10, 2.4 * len(labels) + 2), 4 + tall))
    mean = np.array([v["length"]["mean"] for v in s["variants"]])
    lo = np.array([v["length"]["ci95"][0] for v in s["variants"]])
    hi = np.array([v["length"]["ci95"][1] for v in s["variants"]])
    a1.bar(x, mean, 0.6)
    a1.errorbar(x, mean, yerr=[mean - lo, hi - mean], fmt="none", ecolor="black", capsize=3)
    a1.set_xticks(x, short, **tick)
    a1.set_ylabel(f"{unit} per game (mean, 95% interval)")
    a1.set_title("Game length")
    width = 0.8 / max(len(events), 1)
    for k, e in enumerate(events):
        a2.bar(x - 0.4 + width * (k + 0.5), [v["events_per_game"][e] for v in s["variants"]], width * 0.9, label=e)
    a2.set_xticks(x, short, **tick)
    a2.set_ylabel("moves per game (all seats)")
    a2.set_title("Moves per game")
    a2.legend(fontsize=8)
    _finish(fig, s, report / "length.png")
    plt.close(fig)

    # tables
    rows = []
    for v in s["variants"]:
        row = {"variant": v["label"], "games": v["games"], "ties": v["ties"],
               "leader_win_rate": v["leader_win_rate"], f"mean_{unit}": v["length"]["mean"]}
        for u in v["units"]:
            k = u["unit"]
            row.update({f"{kind}{k}_win_rate": u["win_rate"], f"{kind}{k}_low": u["ci95"][0],
                        f"{kind}{k}_high": u["ci95"][1], f"{kind}{k}_mean_score": u["mean_score"],
                        f"{kind}{k}_mean_margin": u["mean_margin"]})
        for c, h in v.get("after_first_deal", {}).items():      # games of two deals: ahead_1, leader_2
            row.update({f"{c}_win_rate": h["win_rate"], f"{c}_low": h["ci95"][0], f"{c}_high": h["ci95"][1]})
        row.update({f"{e}_per_game": x_ for e, x_ in v["events_per_game"].items()})
        row.update({f"share_{c}": p["share"] for c, p in v["points"].items()})
        row.update({f"{kind}0_share_{c}": p["unit_shares"][0] for c, p in v["points"].items()})
        rows.append(row)
    variants = pd.DataFrame(rows)
    variants.to_csv(report / "variants.csv", index=False)
    prow = [{"a": p["a"], "b": p["b"], "metric": name, "mean_difference": d["mean"], "low": d["ci95"][0],
             "high": d["ci95"][1], "positive": d["positive"], "negative": d["negative"], "p": d["p"],
             "significant": d["significant"]} for p in s["pairs"] for name, d in p["differences"].items()]
    pairs = pd.DataFrame(prow, columns=["a", "b", "metric", "mean_difference", "low", "high", "positive",
                                        "negative", "p", "significant"])
    pairs.to_csv(report / "pairs.csv", index=False)
    (report / "summary.json").write_text(json.dumps(s, indent=1, default=float))

    md = [f"# Balance report: {s['format']}", "", _caption(s), "",
          f"Variants: {', '.join(labels)}. Every variant plays the same deals (game i from the same seed, the same "
          "bots in the same seats), so differences are paired game by game.", "",
          "## Win rate per " + kind, "", "![win rate per seat](seat_advantage.png)", "",
          _md_table(variants[["variant", "games"] + [c for c in variants.columns if c.startswith(kind) and (
              c.endswith("_win_rate") or c.endswith("_low") or c.endswith("_high"))] + ["leader_win_rate"]]), "",
          *([f"After the first deal: how often the {kind} ahead then wins (`ahead_1`: on the points its pile "
             "would score then) and how often the second deal's leader wins (`leader_2`).", "",
             _md_table(variants[["variant"] + [c for c in variants.columns if c.startswith("ahead_1_")
                                               or c.startswith("leader_2_")]]), ""]
            if "ahead_1_win_rate" in variants.columns else []),
          "## Margins", "", "![margins](margins.png)", "",
          _md_table(variants[["variant"] + [c for c in variants.columns if c.endswith("_mean_margin")
                                            or c.endswith("_mean_score")]]), "",
          "## Points by category", "", "![points by category](points.png)", "",
          _md_table(variants[["variant"] + [c for c in variants.columns if c.startswith("share_")]]), "",
          _md_table(variants[["variant"] + [c for c in variants.columns if c.startswith(f"{kind}0_share_")]]), "",
          "## Game length and moves", "", "![game length](length.png)", "",
          _md_table(variants[["variant", f"mean_{unit}"] + [c for c in variants.columns
                                                          if c.endswith("_per_game")]]), ""]
    if len(pairs):
        md += ["## Paired differences (b − a)", "", f"Test: {s['test']}.", "", _md_table(pairs), ""]
    md += ["Tables: `variants.csv`, `pairs.csv`; every number: `summary.json`.", ""]
    path = report / "report.md"
    path.write_text("\n".join(md))
    return path


def _md_table(df):
    def cell(v):
        if isinstance(v, float):
            return f"{v:.4g}"
        return str(v)
    head = "| " + " | ".join(df.columns) + " |"
    sep = "|" + "---|" * len(df.columns)
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([head, sep, *body])
