"""Run summaries read back from a results folder: win rate per bot and per seat (95% Wilson intervals), mean
score per seat, per team in a team format (khasino-4p), first-seat advantage. Also the tests the balance
studies share (docs/BALANCE.md): the exact sign test's p on a log10 scale (exact where p underflows), p as a
real number floored at P_FLOOR, and Holm's multiple-comparison correction."""
import math

import numpy as np
import pyarrow as pa
import pyarrow.dataset as ds

from . import storage

Z95 = 1.959963984540054
P_FLOOR = 1e-300        # the smallest p written as a number; its log10 is kept exact below it


def wilson(wins, n, z=Z95):
    """95% Wilson score interval of a proportion."""
    if n == 0:
        return (float("nan"), float("nan"))
    p = wins / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return (centre - half, centre + half)


def sign_test_log10p(pos, neg):
    """log10 of the exact two-sided sign test's p (scipy.stats.binomtest(pos, pos + neg, 0.5)); where that p
    underflows, the same p summed in logs: 2 P(X <= min(pos, neg)), X ~ Binomial(pos + neg, 1/2)."""
    from scipy.stats import binom, binomtest
    from scipy.special import logsumexp
    n = pos + neg
    if n == 0:
        return 0.0
    p = binomtest(pos, n, 0.5).pvalue
    if p > 1e-280:
        return math.log10(p)
    k = min(pos, neg)
    tail = logsumexp(binom.logpmf(np.arange(max(0, k - 1_000_000), k + 1), n, 0.5))
    return min(0.0, (math.log(2) + tail) / math.log(10))


def p_value(log10p):
    """A p as a real number: 10 ** log10 p, floored at P_FLOOR (terminal: "p < 1e-300", CSV: 1e-300)."""
    return max(10.0 ** log10p, P_FLOOR)


def p_text(log10p, name="p"):
    """A p for the terminal: `p = 0.0123`, or below the floor `p < 1e-300 (log10 -326.5)` (the CSV: 1e-300 and
    the same log10)."""
    return (f"{name} < 1e-300 (log10 {log10p:.1f})" if log10p < math.log10(P_FLOOR)
            else f"{name} = {10.0 ** log10p:.3g}")


def holm(log10ps):
    """Holm's step-down adjustment of m p values, on log10 p: the i-th smallest p times m - i + 1, made
    non-decreasing, capped at 1. Keeps the chance of any false "significant" among the m at the level the
    adjusted p are compared with (balance.ALPHA, 0.05)."""
    m = len(log10ps)
    adjusted = [0.0] * m
    running = -math.inf
    for rank, i in enumerate(sorted(range(m), key=lambda i: log10ps[i])):
        running = max(running, min(0.0, log10ps[i] + math.log10(m - rank)))
        adjusted[i] = running
    return adjusted


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


def summarize(out, batch_size=None):
    """The summary of a finished run as a dict of plain values: per bot, per seat and (in a team format, K15)
    per team, win rates with 95% Wilson intervals; the first-seat advantage against 1/teams.

    A bot's win rate counts one outcome per game per team it plays for (`played`: seats it played when every
    seat is its own team; in khasino-4p a bot holding both seats of a team counts that game once, not twice,
    so its interval is not narrowed by the teammate's identical result). Teams are found from the `team`
    column: the run has teams when a team id covers two seats; a team's figures are those of its first seat
    (teammates carry the same `won` and `team_score`).

    Reads the files the run's manifest lists, each checked first (khasino_sim/run_folder.py). Streams the seats
    dataset one record batch at a time and keeps only running totals (per bot, per seat,
    per team and seat), so memory stays flat whatever the number of games. Distinct games are counted per
    file (a shard; files hold disjoint ranges of games, in order) with a bitmap of one byte per game of that
    shard. Gives exactly the numbers of the plain pandas computation over the whole table
    (tests/test_simulate.py::pandas_summary). `batch_size`: rows per record batch (pyarrow's default if None;
    the tests make it small so that games straddle batches)."""
    from .run_folder import verified_tables
    dataset = ds.dataset([str(p) for p in verified_tables(out, storage.SEATS)], format="parquet")
    team_score_col = "team_score" if "team_score" in dataset.schema.names else "score"
    columns = sorted({"game", "seat", "team", "bot", "won", "score", "first", team_score_col})
    games = 0
    bots = {}            # bot name -> [seats played, outcomes played, wins], in pandas' category order
    seats = {}           # seat -> [rows, wins, score total]
    teams = {}           # (team, seat) -> [rows, wins, team score total]
    lead = [0, 0]        # rows of the seat that led its game, their wins
    for fragment in dataset.get_fragments():
        seen = _GameSet()
        tail = np.zeros(0, dtype=np.int64)      # outcome keys of the previous batch's last game
        extra = {} if batch_size is None else {"batch_size": batch_size}
        for batch in fragment.to_batches(columns=columns, batch_readahead=1, **extra):
            if batch.num_rows == 0:
                continue
            game = batch.column("game").to_numpy(zero_copy_only=False).astype(np.int64)
            seen.add(game)
            bot = batch.column("bot")
            if not pa.types.is_dictionary(bot.type):
                bot = bot.dictionary_encode()
            names = bot.dictionary.to_pylist()
            for name in names:
                bots.setdefault(name, [0, 0, 0])
            order = list(bots)
            to_global = np.array([order.index(name) for name in names], dtype=np.int64)
            codes = to_global[bot.indices.to_numpy(zero_copy_only=False).astype(np.int64)]
            won = batch.column("won").to_numpy(zero_copy_only=False).astype(bool)
            seat = batch.column("seat").to_numpy(zero_copy_only=False).astype(np.int64)
            team = batch.column("team").to_numpy(zero_copy_only=False).astype(np.int64)
            # one outcome per (game, team, bot); a game split between two batches is counted once
            keys = ((game << 16) | (team << 8)) | codes
            keys_u, first_row = np.unique(keys, return_index=True)
            new = ~np.isin(keys_u, tail)
            tail = keys_u[(keys_u >> 16) == game[-1]]
            k_bot, k_won = codes[first_row][new], won[first_row][new]
            n_rows = np.bincount(codes, minlength=len(order))
            n_out = np.bincount(k_bot, minlength=len(order))
            w_out = np.bincount(k_bot[k_won], minlength=len(order))
            for i, name in enumerate(order):
                t = bots[name]
                t[0] += int(n_rows[i])
                t[1] += int(n_out[i])
                t[2] += int(w_out[i])
            score = batch.column("score").to_numpy(zero_copy_only=False).astype(np.int64)
            n_s = np.bincount(seat)
            w_s = np.bincount(seat[won], minlength=len(n_s))
            sc_s = np.bincount(seat, weights=score, minlength=len(n_s))
            for s_ in np.flatnonzero(n_s):
                t = seats.setdefault(int(s_), [0, 0, 0])
                t[0] += int(n_s[s_])
                t[1] += int(w_s[s_])
                t[2] += int(sc_s[s_])
            team_score = batch.column(team_score_col).to_numpy(zero_copy_only=False).astype(np.int64)
            ts = team * 256 + seat
            n_t = np.bincount(ts)
            w_t = np.bincount(ts[won], minlength=len(n_t))
            sc_t = np.bincount(ts, weights=team_score, minlength=len(n_t))
            for k in np.flatnonzero(n_t):
                t = teams.setdefault((int(k) // 256, int(k) % 256), [0, 0, 0])
                t[0] += int(n_t[k])
                t[1] += int(w_t[k])
                t[2] += int(sc_t[k])
            first = batch.column("first").to_numpy(zero_copy_only=False).astype(bool)
            lead[0] += int(first.sum())
            lead[1] += int((first & won).sum())
        games += seen.count()
    per_bot = []
    for bot, (rows, n, w) in bots.items():
        if n == 0:
            continue
        lo, hi = wilson(w, n)
        per_bot.append({"bot": str(bot), "seats_played": rows, "played": n, "wins": w, "win_rate": w / n,
                        "ci95": (lo, hi)})
    per_seat = [{"seat": s, "mean_score": seats[s][2] / seats[s][0], "win_rate": seats[s][1] / seats[s][0],
                 "ci95": wilson(seats[s][1], seats[s][0])} for s in sorted(seats)]
    team_seats = {}
    for t, s in sorted(teams):
        team_seats.setdefault(t, []).append(s)
    per_team = []
    if any(len(ss) > 1 for ss in team_seats.values()):
        for t, ss in team_seats.items():
            n, w, sc = teams[(t, ss[0])]
            per_team.append({"team": t, "seats": ss, "games": n, "wins": w, "win_rate": w / n,
                             "ci95": wilson(w, n), "mean_team_score": sc / n})
    n0, w0 = lead
    return {"games": games, "bots": per_bot, "seats": per_seat, "teams": per_team,
            "first_seat": {"win_rate": w0 / max(n0, 1), "ci95": wilson(w0, n0),
                           "fair": 1 / max(len(team_seats), 1)}}


def format_summary(s, elapsed=None, unit="games"):
    """The summary as terminal lines; `unit` names what a row is ("matches" for Cassino matches)."""
    lines = [f"{unit:<10} {s['games']:,}" + (f" in {elapsed:.1f} s ({s['games'] / elapsed:,.0f} {unit}/s)"
                                               if elapsed else "")]
    width = max([8] + [len(str(b["bot"])) for b in s["bots"]])     # long bot specs keep the columns aligned
    for b in s["bots"]:
        lo, hi = b["ci95"]
        lines.append(f"bot        {b['bot']:<{width}} win rate {b['win_rate']:.4f}  95% CI [{lo:.4f}, {hi:.4f}]"
                     f"  ({b['wins']:,} of {b.get('played', b['seats_played']):,})")
    for p in s["seats"]:
        lo, hi = p["ci95"]
        lines.append(f"seat {p['seat']}     mean score {p['mean_score']:.3f}  win rate {p['win_rate']:.4f}"
                     f"  95% CI [{lo:.4f}, {hi:.4f}]")
    for t in s.get("teams", ()):
        lo, hi = t["ci95"]
        seats = "+".join(str(x) for x in t["seats"])
        lines.append(f"team {t['team']}     seats {seats:<4} mean score {t['mean_team_score']:.3f}  win rate "
                     f"{t['win_rate']:.4f}  95% CI [{lo:.4f}, {hi:.4f}]  ({t['wins']:,} of {t['games']:,})")
    f = s["first_seat"]
    lo, hi = f["ci95"]
    lines.append(f"first seat advantage {f['win_rate'] - f['fair']:+.4f} (win rate of the seat that led "
                 f"{f['win_rate']:.4f}, 95% CI [{lo:.4f}, {hi:.4f}]; {f['fair']:.4f} would be fair)")
    return "\n".join(lines)
