"""Results on disk: a run's Parquet tables, `games/` (one row per game), `seats/` (one row per seat per game) and,
for matches, `rounds/` (one row per round), one file per shard, each written whole; the run's manifest, which
lists every shard's files with their checksums, is khasino_sim/run_folder.py's.

Schema (docs/RESULTS.md has the full table): small integer types, dictionary-encoded names, zstd. Every file
carries in its schema metadata (key `khasino`) the engine version, the rules and their hash, the root seed,
the bots, the shard and the command line.
"""
import json
import os
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from khasino_sim.kernels.core import layout as L

GAMES = "games"
SEATS = "seats"
ROUNDS = "rounds"       # Cassino matches (C7): one row per round

SEAT_COLUMNS = [  # (column, statistics field, arrow type)
    ("score", L.SEAT_SCORE, pa.int8()),
    ("cards", L.SEAT_CARDS, pa.uint8()),
    ("spades", L.SEAT_SPADES, pa.uint8()),
    ("aces", L.SEAT_ACES, pa.uint8()),
    ("two_spades", L.SEAT_TWO_SPADES, pa.uint8()),
    ("ten_diamonds", L.SEAT_TEN_DIAMONDS, pa.uint8()),
    ("most_cards", L.SEAT_MOST_CARDS, pa.uint8()),
    ("most_spades", L.SEAT_MOST_SPADES, pa.uint8()),
    ("captures", L.SEAT_CAPTURES, pa.uint8()),
    ("builds", L.SEAT_BUILDS, pa.uint8()),
    ("loads", L.SEAT_LOADS, pa.uint8()),
    ("changes", L.SEAT_CHANGES, pa.uint8()),
    ("builds_captured", L.SEAT_BUILDS_CAPTURED, pa.uint8()),
    ("pile_cards_taken", L.SEAT_PILE_TAKEN, pa.uint8()),
    ("trails", L.SEAT_TRAILS, pa.uint8()),
    ("followups", L.SEAT_FOLLOWUPS, pa.uint8()),
]


SEAT_TEAM_COLUMNS = [  # after SEAT_COLUMNS (columns added with the team formats come last)
    ("team_score", L.SEAT_TEAM_SCORE, pa.int8()),       # the team's K13 points (= score without teams)
    ("stay_offers", L.SEAT_STAY_OFFERS, pa.uint8()),    # P15 Stay decisions this seat was asked (0 without teams)
    ("stays", L.SEAT_STAYS, pa.uint8()),                # Stays it took
]


def _dict_column(codes, names):
    """A dictionary-encoded string column from integer codes into `names`."""
    return pa.DictionaryArray.from_arrays(pa.array(codes, type=pa.int8()), pa.array(list(names), pa.string()))


def _field(rows, seat, f):
    return rows[:, L.G_SEAT0 + seat * L.SEAT_FIELDS + f]


def shard_tables(rows, start, bot_codes, bot_names, fmt_name, rules_hash, meta):
    """The games and seats tables of one shard. rows: statistics rows of games start.., bot_codes:
    (n, seats) indices into bot_names."""
    n, seats = bot_codes.shape
    game = np.arange(start, start + n, dtype=np.uint64)
    game_col = pa.array(game.astype(np.uint32) if start + n < 2**32 else game)
    fmt_col = _dict_column(np.zeros(n, np.int8), [fmt_name])
    rules_col = _dict_column(np.zeros(n, np.int8), [rules_hash])
    winner = rows[:, L.G_WINNER].astype(np.int8)           # the winning team: the winning seat without teams
    team = np.stack([_field(rows, s, L.SEAT_TEAM) for s in range(seats)], axis=1)     # (n, seats)
    in_winner = team == winner[:, None]
    first_of_winner = np.argmax(in_winner, axis=1)         # the winning team's first seat
    win_code = np.where((winner >= 0) & in_winner.any(axis=1), bot_codes[np.arange(n), first_of_winner], -1)
    options = json.dumps(meta["rules"], sort_keys=True)
    cols = {
        "game": game_col,
        "seed": pa.array(rows[:, L.G_SEED].view(np.uint64)),
        "format": fmt_col,
        "rules": rules_col,
        "options": _dict_column(np.zeros(n, np.int8), [options]),
    }
    for s in range(seats):
        cols[f"bot_{s}"] = _dict_column(bot_codes[:, s], bot_names)
    for s in range(seats):
        cols[f"score_{s}"] = pa.array(_field(rows, s, L.SEAT_SCORE).astype(np.int8))
    cols["winner"] = pa.array(winner)
    cols["winner_bot"] = pa.DictionaryArray.from_arrays(
        pa.array(win_code, type=pa.int8(), mask=win_code < 0), pa.array(list(bot_names), pa.string()))
    series = int(meta.get("series", 1))
    cols["leader"] = pa.array(rows[:, L.G_LEADER].astype(np.int8))
    cols["leader_2"] = pa.array(rows[:, L.G_LEADER2].astype(np.int8))
    cols["ahead_1"] = pa.array(rows[:, L.G_AHEAD1].astype(np.int8))
    cols["series"] = pa.array((game // series).astype(np.uint32) if start + n < 2**32 else game // series)
    cols["match"] = pa.array((game % series).astype(np.uint16))
    cols["turns"] = pa.array(rows[:, L.G_TURNS].astype(np.uint8))
    cols["last_capturer"] = pa.array(rows[:, L.G_LAST_CAP].astype(np.int8))
    for name, f in (("captures", L.SEAT_CAPTURES), ("builds", L.SEAT_BUILDS),
                    ("builds_captured", L.SEAT_BUILDS_CAPTURED), ("pile_cards_taken", L.SEAT_PILE_TAKEN),
                    ("stay_offers", L.SEAT_STAY_OFFERS), ("stays", L.SEAT_STAYS)):
        cols[name] = pa.array(sum(_field(rows, s, f) for s in range(seats)).astype(np.uint8))
    games = pa.table(cols)

    seat_idx = np.tile(np.arange(seats, dtype=np.uint8), n)
    srows = np.repeat(np.arange(n), seats)
    scols = {
        "game": pa.array(np.repeat(game, seats).astype(np.uint32) if start + n < 2**32 else np.repeat(game, seats)),
        "seat": pa.array(seat_idx),
        "team": pa.array(team.reshape(-1).astype(np.uint8)),   # K15; each seat its own team without teams
        "bot": _dict_column(bot_codes.reshape(-1), bot_names),
        "won": pa.array(team.reshape(-1) == np.repeat(winner, seats)),      # the seat's team won
        "first": pa.array(seat_idx == np.repeat(rows[:, L.G_LEADER], seats)),   # the seat that led
    }
    per_seat = rows[:, L.G_SEAT0: L.G_SEAT0 + seats * L.SEAT_FIELDS].reshape(n * seats, L.SEAT_FIELDS)
    assert per_seat.shape[0] == srows.shape[0]
    for name, f, typ in SEAT_COLUMNS:
        scols[name] = pa.array(per_seat[:, f].astype(typ.to_pandas_dtype()))
    for name, f, typ in SEAT_TEAM_COLUMNS:
        scols[name] = pa.array(per_seat[:, f].astype(typ.to_pandas_dtype()))
    seats_t = pa.table(scols)
    stamp = {b"khasino": json.dumps(meta, sort_keys=True).encode()}
    return games.replace_schema_metadata(stamp), seats_t.replace_schema_metadata(stamp)


MATCH_SEAT_COLUMNS = [  # Cassino seats rows (one per seat per match): sums over the match's rounds
    ("cards", L.SEAT_CARDS), ("spades", L.SEAT_SPADES), ("aces", L.SEAT_ACES), ("two_spades", L.SEAT_TWO_SPADES),
    ("ten_diamonds", L.SEAT_TEN_DIAMONDS), ("most_cards", L.SEAT_MOST_CARDS), ("most_spades", L.SEAT_MOST_SPADES),
    ("sweeps", L.SEAT_SWEEPS), ("captures", L.SEAT_CAPTURES), ("builds", L.SEAT_BUILDS), ("loads", L.SEAT_LOADS),
    ("changes", L.SEAT_CHANGES), ("builds_captured", L.SEAT_BUILDS_CAPTURED), ("trails", L.SEAT_TRAILS),
]


def _u16(x):
    return pa.array(np.asarray(x).astype(np.uint16))


def match_tables(rows, start, bot_codes, bot_names, fmt_name, rules_hash, meta):
    """The games, seats and rounds tables of one shard of Cassino matches (C7, P21). rows: one statistics row
    per round, match by match (G_MATCH: the match's index in the shard's chunk, from 0); bot_codes: (matches,
    seats) indices into bot_names.

    games: one row per match (its seed, bots, final totals `score_s`, winner, rounds, turns, sweeps);
    seats: one row per seat per match (`score` the final match total, `won` the seat's team won the match,
    round statistics summed over the match); rounds: one row per round (dealer, leader, each seat's round points
    `score_s`, match total after it `total_s`, sweeps, the round's winner and, on a match's last round, the
    match's winner).

    Kasino matches (N7) have signed totals (`score_s`, `total_s`: int16; misère tabbe minuses) and add the
    tabbe and card-point counts: games `tabbes`; seats `card_points`, `last_points`, `tabbes`, `tabbe_plus`,
    `tabbe_minus` (summed over the match); rounds per seat `card_points_s`, `tabbe_s` (plus + minus) and
    `tabbes_s`."""
    from .families import family_of
    from .formats import get_format
    kasino = family_of(get_format(fmt_name)).misere      # signed totals and the tabbe columns (N4, N7)
    total_col = (lambda x: pa.array(np.asarray(x).astype(np.int16))) if kasino else _u16
    n, seats = bot_codes.shape
    m = rows[:, L.G_MATCH]
    first_row = np.flatnonzero(np.r_[True, m[1:] != m[:-1]])
    last_row = np.r_[first_row[1:] - 1, len(rows) - 1]
    assert len(first_row) == n
    game = np.arange(start, start + n, dtype=np.uint64)
    game32 = game.astype(np.uint32) if start + n < 2**32 else game
    last = rows[last_row]
    winner = last[:, L.G_MATCH_WINNER].astype(np.int8)       # the winning team (the seat without teams)
    team = np.stack([_field(last, s, L.SEAT_TEAM) for s in range(seats)], axis=1)
    in_winner = team == winner[:, None]
    win_code = np.where((winner >= 0) & in_winner.any(axis=1),
                        bot_codes[np.arange(n), np.argmax(in_winner, axis=1)], -1)
    sums = np.add.reduceat(rows, first_row, axis=0)         # per-match sums of every counter
    options = json.dumps(meta["rules"], sort_keys=True)
    one = np.zeros(n, np.int8)
    cols = {"game": pa.array(game32), "seed": pa.array(last[:, L.G_SEED].view(np.uint64)),
            "format": _dict_column(one, [fmt_name]), "rules": _dict_column(one, [rules_hash]),
            "options": _dict_column(one, [options])}
    for s in range(seats):
        cols[f"bot_{s}"] = _dict_column(bot_codes[:, s], bot_names)
    for s in range(seats):
        cols[f"score_{s}"] = total_col(_field(last, s, L.SEAT_MATCH_TOTAL))
    cols["winner"] = pa.array(winner)
    cols["winner_bot"] = pa.DictionaryArray.from_arrays(
        pa.array(win_code, type=pa.int8(), mask=win_code < 0), pa.array(list(bot_names), pa.string()))
    cols["leader"] = pa.array(rows[first_row, L.G_LEADER].astype(np.int8))
    cols["series"] = pa.array(game32)
    cols["match"] = pa.array(np.zeros(n, np.uint16))
    cols["rounds"] = _u16(last_row - first_row + 1)
    cols["turns"] = _u16(sums[:, L.G_TURNS])
    cols["last_capturer"] = pa.array(last[:, L.G_LAST_CAP].astype(np.int8))
    cols["sweeps"] = _u16(sum(_field(sums, s, L.SEAT_SWEEPS) for s in range(seats)))
    for name, f in (("captures", L.SEAT_CAPTURES), ("builds", L.SEAT_BUILDS), ("builds_captured",
                                                                             L.SEAT_BUILDS_CAPTURED)):
        cols[name] = _u16(sum(_field(sums, s, f) for s in range(seats)))
    if kasino:
        cols["tabbes"] = _u16(sum(_field(sums, s, L.SEAT_TABBES) for s in range(seats)))
    games = pa.table(cols)

    seat_idx = np.tile(np.arange(seats, dtype=np.uint8), n)
    flat_team = team.reshape(-1)
    scols = {
        "game": pa.array(np.repeat(game32, seats)), "seat": pa.array(seat_idx),
        "team": pa.array(flat_team.astype(np.uint8)), "bot": _dict_column(bot_codes.reshape(-1), bot_names),
        "won": pa.array(flat_team == np.repeat(winner, seats)),
        "first": pa.array(seat_idx == np.repeat(rows[first_row, L.G_LEADER], seats)),
        "score": total_col(np.stack([_field(last, s, L.SEAT_MATCH_TOTAL) for s in range(seats)], 1).reshape(-1)),
    }
    scols["team_score"] = scols["score"]
    per_seat = sums[:, L.G_SEAT0: L.G_SEAT0 + seats * L.SEAT_FIELDS].reshape(n * seats, L.SEAT_FIELDS)
    for name, f in MATCH_SEAT_COLUMNS:
        scols[name] = _u16(per_seat[:, f])
    if kasino:
        for name, f in (("card_points", L.SEAT_CARD_POINTS), ("last_points", L.SEAT_LAST_POINT),
                        ("tabbes", L.SEAT_TABBES), ("tabbe_plus", L.SEAT_TABBE_PLUS)):
            scols[name] = _u16(per_seat[:, f])
        scols["tabbe_minus"] = pa.array(per_seat[:, L.SEAT_TABBE_MINUS].astype(np.int16))
    seats_t = pa.table(scols)

    nr = len(rows)
    rcols = {"game": pa.array(game32[m - m[0]] if n else game32), "round": _u16(rows[:, L.G_ROUND]),
             "dealer": pa.array(rows[:, L.G_DEALER].astype(np.uint8)),
             "leader": pa.array(rows[:, L.G_LEADER].astype(np.uint8)), "turns": _u16(rows[:, L.G_TURNS]),
             "last_capturer": pa.array(rows[:, L.G_LAST_CAP].astype(np.int8)),
             "round_winner": pa.array(rows[:, L.G_WINNER].astype(np.int8)),
             "match_winner": pa.array(rows[:, L.G_MATCH_WINNER].astype(np.int8))}
    for s in range(seats):
        rcols[f"score_{s}"] = total_col(_field(rows, s, L.SEAT_SCORE))
        rcols[f"total_{s}"] = total_col(_field(rows, s, L.SEAT_MATCH_TOTAL))
        if kasino:
            rcols[f"card_points_{s}"] = _u16(_field(rows, s, L.SEAT_CARD_POINTS))
            rcols[f"tabbe_{s}"] = pa.array((_field(rows, s, L.SEAT_TABBE_PLUS) +
                                            _field(rows, s, L.SEAT_TABBE_MINUS)).astype(np.int16))
            rcols[f"tabbes_{s}"] = _u16(_field(rows, s, L.SEAT_TABBES))
        rcols[f"sweeps_{s}"] = _u16(_field(rows, s, L.SEAT_SWEEPS))
        rcols[f"cards_{s}"] = _u16(_field(rows, s, L.SEAT_CARDS))
        rcols[f"spades_{s}"] = _u16(_field(rows, s, L.SEAT_SPADES))
    assert nr == len(rcols["round"])
    rounds = pa.table(rcols)
    stamp = {b"khasino": json.dumps(meta, sort_keys=True).encode()}
    return (games.replace_schema_metadata(stamp), seats_t.replace_schema_metadata(stamp),
            rounds.replace_schema_metadata(stamp))


def add_tags(tables, tags):
    """The shard's tables with one constant dictionary column per tag (a balance study's variant: `variant`
    and `variant_NAME` per varied option) appended to every table."""
    if not tags:
        return tables
    out = []
    for t in tables:
        if t is None:
            out.append(t)
            continue
        meta = t.schema.metadata
        for name, value in tags.items():
            t = t.append_column(name, _dict_column(np.zeros(t.num_rows, np.int8), [str(value)]))
        out.append(t.replace_schema_metadata(meta))
    return out


def part_name(shard):
    return f"part-{shard:06d}.parquet"


# Games per Parquet row group: each chunk a worker plays (runs.CHUNK, 2,000 games) is written as it comes.
# A larger value buffers chunks into bigger row groups: reads get faster (pandas reads 1M games' tables in
# 0.2 s with 50,000, 0.7 s with 2,000) but every busy worker holds more (about +9 MiB each with 50,000).
ROW_GROUP_GAMES = 2_000


class ShardWriter:
    """Streams one shard's games and seats tables to Parquet, chunk by chunk, under temporary names.

    `write(games, seats)` takes the tables of the next games of the shard; they are buffered up to
    ROW_GROUP_GAMES games (compact Arrow columns, under 80 bytes a game) and then written as one row group,
    so memory is bounded whatever the shard size. `commit()` closes the files, renames them into place (seats
    first, games last) and returns their listing for the run's manifest (rows, size, SHA-256: khasino_sim/
    run_folder.py), which makes the shard count as played. Leaving the `with` block without commit (a stop, an
    error, Ctrl-C) closes and removes the temporary files. The temporary files are made new (never through a
    symbolic link) in the table folders the run set up."""

    def __init__(self, out, shard, row_group_games=None, rounds=False):
        out = Path(out)
        self.subs = ((ROUNDS,) if rounds else ()) + (SEATS, GAMES)     # written and committed in this order
        self.paths = {sub: out / sub / part_name(shard) for sub in self.subs}
        self.tmps = {}
        self.rows = {sub: 0 for sub in self.subs}
        self.row_group_games = row_group_games or ROW_GROUP_GAMES
        self.writers = {}
        self.pending = {sub: [] for sub in self.subs}
        self.pending_games = 0
        self.committed = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if not self.committed:
            self.abort()
        return False

    def write(self, games, seats, rounds=None):
        self.pending[GAMES].append(games)
        self.pending[SEATS].append(seats)
        if rounds is not None:
            self.pending[ROUNDS].append(rounds)
        self.pending_games += games.num_rows
        if self.pending_games >= self.row_group_games:
            self._flush()

    def _flush(self):
        from .files import new_temporary
        for sub in self.subs:
            tables = self.pending[sub]
            if not tables:
                continue
            table = pa.concat_tables(tables) if len(tables) > 1 else tables[0]
            w = self.writers.get(sub)
            if w is None:
                self.tmps[sub] = new_temporary(self.paths[sub])
                w = self.writers[sub] = pq.ParquetWriter(self.tmps[sub], table.schema, compression="zstd")
            w.write_table(table, row_group_size=table.num_rows)
            self.rows[sub] += table.num_rows
            self.pending[sub] = []
        self.pending_games = 0

    def commit(self):
        """Close and rename the shard's files into place; returns {table: listing} (run_folder.file_entry)."""
        from .run_folder import file_entry
        self._flush()
        if not self.writers:
            raise ValueError("a shard holds at least one game")
        for sub in self.subs:
            self.writers.pop(sub).close()
        entries = {sub: file_entry(self.tmps[sub], self.rows[sub]) for sub in self.subs}
        for sub in self.subs:       # the games file last
            os.replace(self.tmps[sub], self.paths[sub])
        self.committed = True
        return entries

    def abort(self):
        self.pending = {sub: [] for sub in self.subs}
        for w in self.writers.values():
            try:
                w.close()
            except Exception:
                pass
        self.writers = {}
        for tmp in self.tmps.values():
            tmp.unlink(missing_ok=True)


def shard_of(path):
    """The shard number of a file named part-NNNNNN.parquet, None for any other name."""
    m = re.fullmatch(r"part-(\d+)\.parquet", Path(path).name)
    return int(m.group(1)) if m else None
