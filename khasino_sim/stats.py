"""Run summaries read back from a results folder: win rate per bot (95% Wilson interval), mean score per
seat, first-seat advantage."""
import math

import pandas as pd

from . import storage

Z95 = 1.959963984540054


def wilson(wins, n, z=Z95):
    """95% Wilson score interval of a proportion."""
    if n == 0:
        return (float("nan"), float("nan"))
    p = wins / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return (centre - half, centre + half)


def summarize(out):
    """The summary of a finished run as a dict of plain values."""
    seats = pd.read_parquet(f"{out}/{storage.SEATS}", columns=["game", "seat", "bot", "won", "score"])
    games = int(seats["game"].nunique())
    per_bot = []
    for bot, g in seats.groupby("bot", observed=True):
        n = len(g)
        w = int(g["won"].sum())
        lo, hi = wilson(w, n)
        per_bot.append({"bot": str(bot), "seats_played": n, "wins": w, "win_rate": w / n, "ci95": (lo, hi)})
    per_seat = [{"seat": int(s), "mean_score": float(g["score"].mean()), "win_rate": float(g["won"].mean())}
                for s, g in seats.groupby("seat")]
    first = seats[seats["seat"] == 0]
    w0 = int(first["won"].sum())
    lo, hi = wilson(w0, len(first))
    return {"games": games, "bots": per_bot, "seats": per_seat,
            "first_seat": {"win_rate": w0 / max(len(first), 1), "ci95": (lo, hi)}}


def format_summary(s, elapsed=None):
    lines = [f"games      {s['games']:,}" + (f" in {elapsed:.1f} s ({s['games'] / elapsed:,.0f} games/s)"
                                               if elapsed else "")]
    for b in s["bots"]:
        lo, hi = b["ci95"]
        lines.append(f"bot        {b['bot']:<8} win rate {b['win_rate']:.4f}  95% CI [{lo:.4f}, {hi:.4f}]"
                     f"  ({b['wins']:,} of {b['seats_played']:,})")
    for p in s["seats"]:
        lines.append(f"seat {p['seat']}     mean score {p['mean_score']:.3f}  win rate {p['win_rate']:.4f}")
    f = s["first_seat"]
    lo, hi = f["ci95"]
    lines.append(f"first seat advantage {f['win_rate'] - 0.5:+.4f} (seat 0 win rate {f['win_rate']:.4f}, "
                 f"95% CI [{lo:.4f}, {hi:.4f}])")
    return "\n".join(lines)
