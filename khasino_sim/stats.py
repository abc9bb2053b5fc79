"""Run summaries read back from a results folder: win rate per bot (95% Wilson interval), mean score per
seat, first-seat advantage."""
import math

import numpy as np
import pyarrow as pa
import pyarrow.dataset as ds

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


class _GameSet:
    """The distinct game indices of one file, as a bitmap over the range they span (a shard's games are
    one contiguous range: one byte a game of the shard)."""

    def __init__(self):
        self.base, self.seen = 0, np.zeros(0, dtype=bool)

    def add(self, games):
        games = games.astype(np.int64, copy=False)
        lo, hi = int(games.min()), int(games.max()) + 1
        if not len(self.seen):
            self.base, self.seen = lo, np.zeros(hi - lo, dtype=bool)
        elif lo < self.base or hi > self.base + len(self.seen):
            new_base = min(lo, self.base)
            grown = np.zeros(max(hi, self.base + len(self.seen)) - new_base, dtype=bool)
            grown[self.base - new_base: self.base - new_base + len(self.seen)] = self.seen
            self.base, self.seen = new_base, grown
        self.seen[games - self.base] = True

    def count(self):
        return int(np.count_nonzero(self.seen))


def summarize(out):
    """The summary of a finished run as a dict of plain values.

    Streams the seats dataset one record batch at a time and keeps only running totals (per bot, per
    seat), so memory stays flat whatever the number of games. Distinct games are counted per file (a shard;
    files hold disjoint ranges of games) with a bitmap of one byte per game of that shard.
    Gives exactly the numbers of the plain pandas computation over the whole table
    (tests/test_simulate.py::pandas_summary)."""
    dataset = ds.dataset(f"{out}/{storage.SEATS}", format="parquet")
    games = 0
    bots = {}            # bot name -> [seats played, wins], in the order pandas' categories would have
    seats = {}           # seat -> [rows, wins, score total]
    lead = [0, 0]        # rows of the seat that led its game, their wins
    for fragment in dataset.get_fragments():
        seen = _GameSet()
        for batch in fragment.to_batches(columns=["game", "seat", "bot", "won", "score", "first"],
                                         batch_readahead=1):
            if batch.num_rows == 0:
                continue
            seen.add(batch.column("game").to_numpy(zero_copy_only=False))
            bot = batch.column("bot")
            if not pa.types.is_dictionary(bot.type):
                bot = bot.dictionary_encode()
            names = bot.dictionary.to_pylist()
            codes = bot.indices.to_numpy(zero_copy_only=False).astype(np.int64)
            won = batch.column("won").to_numpy(zero_copy_only=False).astype(bool)
            n_by = np.bincount(codes, minlength=len(names))
            w_by = np.bincount(codes[won], minlength=len(names))
            for i, name in enumerate(names):
                t = bots.setdefault(name, [0, 0])
                t[0] += int(n_by[i])
                t[1] += int(w_by[i])
            seat = batch.column("seat").to_numpy(zero_copy_only=False).astype(np.int64)
            score = batch.column("score").to_numpy(zero_copy_only=False).astype(np.int64)
            n_s = np.bincount(seat)
            w_s = np.bincount(seat[won], minlength=len(n_s))
            sc_s = np.bincount(seat, weights=score, minlength=len(n_s))
            for s_ in np.flatnonzero(n_s):
                t = seats.setdefault(int(s_), [0, 0, 0])
                t[0] += int(n_s[s_])
                t[1] += int(w_s[s_])
                t[2] += int(sc_s[s_])
            first = batch.column("first").to_numpy(zero_copy_only=False).astype(bool)
            lead[0] += int(first.sum())
            lead[1] += int((first & won).sum())
        games += seen.count()
    per_bot = []
    for bot, (n, w) in bots.items():
        if n == 0:
            continue
        lo, hi = wilson(w, n)
        per_bot.append({"bot": str(bot), "seats_played": n, "wins": w, "win_rate": w / n, "ci95": (lo, hi)})
    per_seat = [{"seat": s, "mean_score": seats[s][2] / seats[s][0], "win_rate": seats[s][1] / seats[s][0],
                 "ci95": wilson(seats[s][1], seats[s][0])} for s in sorted(seats)]
    n0, w0 = lead
    return {"games": games, "bots": per_bot, "seats": per_seat,
            "first_seat": {"win_rate": w0 / max(n0, 1), "ci95": wilson(w0, n0),
                           "fair": 1 / max(len(seats), 1)}}


def format_summary(s, elapsed=None):
    lines = [f"games      {s['games']:,}" + (f" in {elapsed:.1f} s ({s['games'] / elapsed:,.0f} games/s)"
                                               if elapsed else "")]
    for b in s["bots"]:
        lo, hi = b["ci95"]
        lines.append(f"bot        {b['bot']:<8} win rate {b['win_rate']:.4f}  95% CI [{lo:.4f}, {hi:.4f}]"
                     f"  ({b['wins']:,} of {b['seats_played']:,})")
    for p in s["seats"]:
        lo, hi = p["ci95"]
        lines.append(f"seat {p['seat']}     mean score {p['mean_score']:.3f}  win rate {p['win_rate']:.4f}"
                     f"  95% CI [{lo:.4f}, {hi:.4f}]")
    f = s["first_seat"]
    lo, hi = f["ci95"]
    lines.append(f"first seat advantage {f['win_rate'] - f['fair']:+.4f} (win rate of the seat that led "
                 f"{f['win_rate']:.4f}, 95% CI [{lo:.4f}, {hi:.4f}]; {f['fair']:.4f} would be fair)")
    return "\n".join(lines)
