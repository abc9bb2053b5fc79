"""Game records (docs/RECORDS.md): the full move list of chosen games, one JSON object per game and per line of
`records.jsonl`, which `khasino replay` and `khasino show` step through.

A run stores statistics, not moves. A game is a function of its seed, its bots per seat, its leader and the rule
options (khasino_sim/runs.py), all of which the run's games table holds, so a game is recorded after the run by
playing it again in the compiled core through the Python API (engine.play_game, play_round: the core's move
keys) and replaying those keys on the JSON state (engine.move_of_key). The kernels are untouched,
and each record checks itself: its final scores must equal the game's row in the run (RecordError otherwise).

Cassino and Kasino games are matches of rounds: round r is dealt from round_seed(match seed, r) and starts
from the match totals after round r - 1 (C7, N7), exactly as kernels/cassino/game.py and kernels/kasino/game.py
play them; `--rounds 1` runs play round 1 alone.
"""
import json
import re
from pathlib import Path

from .text import printable

SCHEMA = 1
RECORDS = "records.jsonl"
MAX_ROUNDS = 200        # a Cassino match to 21 ends within a few rounds: a guard against a loop
WHERE_CAP = 100         # --record-where without --record N: at most this many games
MAX_LINE = 16 * 2**20   # bytes of one record (a line): a Khasino game takes about 6 KB, a long Cassino match 100 KB
PROBE = 2**20           # bytes is_record_file reads


class RecordError(ValueError):
    """A record that cannot be made or read (bad selection, unreadable file); the message is one line."""


def key_text(key):
    """A move key as JSON: 16 hex digits in a string (jq 1.6 reads numbers as doubles, which lose 64-bit keys;
    seeds are decimal strings for the same reason)."""
    return f"0x{int(key):016x}"


# ----------------------------------------------------------------------------------------- making records

def _replay(state, keys, bots):
    """Apply the core's move keys to the JSON `state`: ([{seat, bot, move, key}], the final state)."""
    from .engine import move_of_key
    moves = []
    for i, key in enumerate(keys):
        move = move_of_key(state, key)
        if move is None:
            raise RecordError(f"move {i + 1}: key {key_text(key)} is no legal move of its position (a bug in "
                              "khasino-sim; please report it)")
        seat = int(state["to_move"])
        shown = move.to_json()
        del shown["result"]             # the position after it is the next move's (or the round's end)
        moves.append({"seat": seat, "bot": bots[seat], "move": shown, "key": key_text(key)})
        state = move.result
    return moves, state


def _round(fmt_name, options, bots, seed, rnd=None, scores=None, rounds=None, leader=0):
    """One game (rnd None) or one round of a match: its record entry and its final state."""
    from . import engine
    if rnd is None:
        played = engine.play_game(fmt_name, seed, bots, leader=leader, options=options)
        state = engine.new_game(fmt_name, seed, leader=leader, options=options)
    else:
        played = engine.play_round(fmt_name, seed, bots, options=options, round=rnd, scores=scores, rounds=rounds)
        state = engine.new_game(fmt_name, seed, options=options, round=rnd, scores=scores)
        # Kasino single rounds: the core plays a match of one round (kernels/kasino/game.py), which the JSON
        # state cannot say (N7: a multiple of the seats); the round's moves and scores do not depend on it
    moves, final = _replay(state, played["keys"], bots)
    entry = {"state": state, "moves": moves, "scores": engine.scores(final)}
    if rnd is not None:
        entry = {"round": rnd, "seed": str(int(seed)), **entry}
    return entry, final, played


def round_seed(match_seed, r):
    """The seed of round r of the match with seed `match_seed` (kernels/core/rng.py), as a Python int."""
    import numpy as np
    from khasino_sim.kernels.core.rng import round_seed as seed_of_round
    return int(seed_of_round(np.uint64(match_seed), r))


def play_record(fmt_name, options, bots, seed, kind="game", leader=0):
    """A record of one game: `kind` "game" (a Khasino-family game led by `leader`), "match" (a Cassino or Kasino
    match from the match seed `seed`), "single" (round 1 of that match alone, as `--rounds 1` plays it) or
    "round" (the round dealt from the round seed `seed` itself, as `khasino play` plays Cassino).

    Returns the record without its run fields (game, and what the caller adds): format, options, bots, seed,
    leader, rounds (each: round, seed, state, moves, scores), score (the final score per seat: the match totals
    in a match) and winner."""
    from . import engine
    fmt = engine._format(fmt_name, options)
    bots = list(bots)
    kasino = fmt.family == "kasino"
    if kind == "game":
        entry, final, played = _round(fmt_name, options, bots, seed, leader=leader)
        rounds, score, winner = [entry], [s["score"] for s in entry["scores"]], engine.winner(final)
    elif kind in ("single", "round"):
        rs = round_seed(seed, 1) if kind == "single" else int(seed)
        single = 1 if kasino and kind == "single" else None
        entry, final, played = _round(fmt_name, options, bots, rs, rnd=1, rounds=single)
        rounds, score, winner = [entry], [s["score"] for s in entry["scores"]], engine.winner(final)
    else:
        n = fmt.match_rounds        # Kasino: a fixed number of rounds (N7, the option match_rounds); Cassino: to 21
        rounds, totals, winner, r = [], None, None, 0
        while True:
            r += 1
            entry, final, played = _round(fmt_name, options, bots, round_seed(seed, r), rnd=r, scores=totals,
                                          rounds=n if kasino else None)
            entry["scores_before"] = totals or [0] * fmt.seats
            rounds.append(entry)
            if kasino:
                totals = [s["match_total"] for s in played["seats"]]
                if r >= n:
                    break
            else:
                counted = engine.count_round(final)
                totals, winner = counted["totals"], counted["winner"]
                if winner is not None:
                    break
                if r >= MAX_ROUNDS:     # 11 points a round (C7): never, unless a bug stops the totals
                    raise RecordError(f"match {seed}: no winner after {r} rounds (a bug in khasino-sim; please "
                                      "report it)")
        score = totals
        if kasino:
            winner = None           # N7's match winner is the run's (run_record, match_records copy it)
    first = rounds[0]["moves"][0]["move"] if rounds[0]["moves"] else {}
    if kind != "game":
        leader = rounds[0]["state"]["to_move"]
    elif first.get("kind") == "lead":          # 4p (P11): team AB's first decision chose the leader
        leader = first["seat"]
    from .formats import options_of
    typed = options_of(fmt)             # "--set match_rounds=4" arrives as text: the record holds the value
    return {"record": SCHEMA, "format": fmt.name, "options": {k: typed[k] for k in options or {}}, "bots": bots,
            "seed": str(int(seed)), "leader": int(leader),
            "kind": kind, "rounds": rounds, "score": [int(x) for x in score],
            "winner": None if winner is None or winner < 0 else int(winner)}


# ------------------------------------------------------------------------------------- choosing run games

def parse_games(text):
    """--record-games "3,17,42": the game indices, sorted and unique; RecordError on anything else."""
    try:
        games = sorted({int(x) for x in str(text).split(",") if x.strip()})
    except ValueError:
        raise RecordError(f"--record-games takes game indices separated by commas (e.g. 3,17,42), not {text!r}")
    if not games or games[0] < 0:
        raise RecordError(f"--record-games takes non-negative game indices (e.g. 3,17,42), not {text!r}")
    return games


def where_filter(where, columns):
    """The filter (khasino_sim/filters.py) of --record-where `where` over `columns` (name -> "number" or
    "text"); RecordError (one line) on a bad one. Checked against the run's columns before any game is played."""
    from .filters import FilterError, parse
    try:
        return parse(where, columns)
    except FilterError as e:
        raise RecordError(f"--record-where {_where_text(where)}: {e}") from None


def check_where(where, columns):
    """RecordError unless `where` is a filter over the games table's `columns` (name -> "number" or "text")."""
    where_filter(where, columns)


def _where_text(where):
    return repr(printable(where, 120))


def games_schema(spec):
    """The columns of the games table of a run of `spec` (for --record-where) as a filter sees them (name ->
    "number" or "text"), from one empty game's tables."""
    import numpy as np
    from khasino_sim.kernels.core import layout as L
    from . import storage
    from .runs import _meta
    fmt = spec.fmt()
    rows = np.zeros((1, L.STATS_SIZE), dtype=np.int64)
    codes = np.zeros((1, len(spec.bots)), dtype=np.int8)
    tables = (storage.match_tables if spec.matches() else storage.shard_tables)(
        rows, 0, codes, spec.bot_names(), fmt.name, fmt.rules_hash(), _meta(spec, 0, 0, 1, ""))
    from .filters import kinds_of_schema
    return kinds_of_schema(tables[0].schema)


def selection(count=None, where=None, games=None):
    """The selection as stored with the records: {"first": N} | {"where": Q, "max": N} | {"games": [...]}."""
    chosen = [x is not None for x in (games, where)]
    if all(chosen):
        raise RecordError("--record-games and --record-where do not combine: give one")
    if games is not None and count is not None:
        raise RecordError("--record N and --record-games both choose the games to record: give one")
    if games is not None:
        return {"games": parse_games(games) if isinstance(games, str) else sorted(set(games))}
    if where is not None:
        return {"where": where, "max": WHERE_CAP if count is None else int(count)}
    if count is None:
        return None
    if count < 1:
        raise RecordError(f"--record takes a positive number of games, not {count}")
    return {"first": int(count)}


def _chosen_rows(out, choice, n_games):
    from .runs import load
    games = load(out, "games").sort_values("game", ignore_index=True)
    if "first" in choice:
        return games[games["game"] < choice["first"]]
    if "games" in choice:
        missing = [g for g in choice["games"] if g >= n_games]
        if missing:
            raise RecordError(f"--record-games: the run has games 0 .. {n_games - 1}, not {missing[0]}")
        return games[games["game"].isin(choice["games"])]
    from .filters import kinds_of_frame
    keep = where_filter(choice["where"], kinds_of_frame(games)).rows(games, len(games))
    return games[keep].head(choice["max"])


def record_run(out, choice, extra=None, log=None):
    """Record the games of the run in `out` that `choice` (selection()) picks into OUT/records.jsonl, written
    whole and atomically (a resumed or repeated run rewrites it: never a duplicate). `extra`: fields added to
    every record (a tournament's assignment). Returns (path, number of records); when no game matches a
    --record-where query, writes nothing and returns (None, 0) (the caller says so)."""
    lines = run_records(out, choice, extra)
    if not lines:
        return None, 0
    path = Path(out) / RECORDS
    write_lines(path, lines)
    if log is not None:
        log(f"records    {path} ({len(lines)} game{'s' * (len(lines) != 1)})")
    return path, len(lines)


def nothing_matched(out, choice):
    """The warning when a --record-where query matched no game: nothing written, an older file left alone."""
    old = Path(out) / RECORDS
    return (f"warning: no game matched --record-where {_where_text(choice['where'])}: no records written"
            + (f" ({old} is left as it was)" if old.exists() else ""))


def run_records(out, choice, extra=None):
    """The records (JSON lines) of the games of the run in `out` that `choice` picks, in game order."""
    from .run_folder import check_spec, read_manifest
    spec = check_spec(out, read_manifest(out))
    rows = _chosen_rows(out, choice, spec.games)
    return [dumps(run_record(spec, row, extra)) for row in rows.to_dict("records")]


def record_tournament(out, choice, log=None):
    """Record the chosen games of every assignment of the tournament in `out` (each a `simulate` run in
    OUT/assignment-NNNN) into OUT/records.jsonl, game by game and within a game by assignment (the same deal
    played by every seat assignment, one after the other); each record holds its `assignment`."""
    assignments = sorted(Path(out).glob("assignment-[0-9][0-9][0-9][0-9]"))
    per = [run_records(folder, choice, {"assignment": int(folder.name.split("-")[1])}) for folder in assignments]
    lines = [line for group in zip(*per) for line in group]
    if not lines:
        return None, 0
    path = Path(out) / RECORDS
    write_lines(path, lines)
    if log is not None:
        log(f"records    {path} ({len(lines)} games: {len(per[0]) if per else 0} deals x {len(per)} assignments)")
    return path, len(lines)


def dumps(rec):
    """One record as one line of compact JSON."""
    return json.dumps(rec, separators=(",", ":"))


def match_records(fmt_name, bot_a, bot_b, root_seed, pairs, options=None):
    """The records of the duplicate pairs `pairs` (indices) of `khasino match` (khasino_sim/duplicate.py): deal k
    (the game seed of index k under the root seed, as `simulate` seeds game k) played with bot_a in unit 0,
    then in unit 1; each record holds `pair` k and `swapped` (bot_a in unit 1) and is checked against
    duplicate.play_deals, which the match plays."""
    from .duplicate import play_deals, units
    from .engine import _format
    from khasino_sim.kernels.core.seeding import seeds_for
    fmt = _format(fmt_name, options)
    _, unit_of = units(fmt)
    first = [unit_of.index(u) for u in range(2)]
    lines = []
    for k in pairs:
        seed = int(seeds_for(root_seed, k, 1)[0])
        for swapped, pair_bots in ((False, [bot_a, bot_b]), (True, [bot_b, bot_a])):
            want, winners = play_deals(fmt, pair_bots, root_seed, k, 1)
            bots = [pair_bots[unit_of[s]] for s in range(fmt.seats)]
            rec = play_record(fmt.name, options, bots, seed, kind="match" if fmt.matches else "game")
            got = [rec["score"][s] for s in first]
            if got != [int(x) for x in want[0]]:
                raise RecordError(f"pair {k}: the replayed scores {got} differ from the match's {list(want[0])} "
                                  "(a bug in khasino-sim; please report it)")
            rec["winner"] = None if winners[0] < 0 else int(winners[0])
            head = {key: rec.pop(key) for key in ("record", "format", "options", "bots")}
            lines.append(dumps({**head, "game": k, "pair": k, "swapped": swapped, **rec}))
    return lines


def run_record(spec, row, extra=None):
    """The record of the game in the games-table `row` of a run of `spec`, checked against that row."""
    bots = [str(row[f"bot_{s}"]) for s in range(len(spec.bots))]
    if spec.matches():
        kind = "single" if spec.rounds == 1 else "match"
        rec = play_record(spec.format, spec.options, bots, int(row["seed"]), kind=kind)
    else:
        leader = int(row["leader"]) if spec.series > 1 else 0   # P10: a series' later matches (else 0 or chosen)
        rec = play_record(spec.format, spec.options, bots, int(row["seed"]), kind="game", leader=leader)
    stored = [int(row[f"score_{s}"]) for s in range(len(bots))]
    if rec["score"] != stored:
        raise RecordError(f"game {row['game']}: the replayed scores {rec['score']} differ from the run's {stored} "
                          "(a bug in khasino-sim; please report it)")
    rec["winner"] = None if int(row["winner"]) < 0 else int(row["winner"])
    head = {k: rec.pop(k) for k in ("record", "format", "options", "bots")}
    series = {"series": int(row["series"]), "match": int(row["match"])} if spec.series > 1 else {}
    return {**head, "game": int(row["game"]), **series, **(extra or {}), **rec}


def write_lines(path, lines):
    """Write `lines` to `path` whole (a temporary file renamed over it), never through a symbolic link."""
    from .files import replacing
    with replacing(path) as f:
        for line in lines:
            f.write(line + "\n")


# ------------------------------------------------------------------------------------------ reading records

def _lines(path):
    """(line number, text) of each non-blank line of the file at `path`, read one line at a time and at most
    MAX_LINE bytes of it: a longer line is a RecordError (never read whole), and so is text that is not UTF-8."""
    try:
        f = open(path, "rb")
    except OSError as e:
        raise RecordError(f"cannot read {path}: {e.strerror or e}") from None
    with f:
        n = 0
        while True:
            try:
                raw = f.readline(MAX_LINE + 1)
            except OSError as e:
                raise RecordError(f"cannot read {path}: {e.strerror or e}") from None
            if not raw:
                return
            n += 1
            if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
                raise RecordError(f"{path}: line {n} is longer than {MAX_LINE // 2**20} MiB: not a game record (a "
                                  "whole match takes a few hundred KB)")
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise RecordError(f"{path}: not UTF-8 text (byte 0x{e.object[e.start]:02x} at offset {e.start} of "
                                  f"line {n})") from None
            if text.strip():
                yield n, text


def _parse_line(path, n, text):
    """The record on line `n` (its text), its shape checked (docs/RECORDS.md); RecordError otherwise."""
    try:
        rec = json.loads(text)
    except ValueError as e:
        raise RecordError(f"{path}: line {n} is not JSON ({printable(e, 200)})") from None
    except RecursionError:
        raise RecordError(f"{path}: line {n} is nested too deeply to be a game record") from None
    if not isinstance(rec, dict) or rec.get("record") != SCHEMA or "rounds" not in rec:
        raise RecordError(f"{path}: line {n} is not a game record of schema {SCHEMA} (docs/RECORDS.md)")
    problem = _malformed(rec)
    if problem:
        raise RecordError(f"{path}: line {n} is not a well-formed game record: {problem} (docs/RECORDS.md)")
    return rec


def read_records(path):
    """Every record in a records.jsonl file, as dicts (for a small file: the commands read one record with
    load_record); RecordError (one line) on a file that is not one."""
    out = [_parse_line(path, n, text) for n, text in _lines(path)]
    if not out:
        raise RecordError(f"{path} holds no game record")
    return out


def load_record(path, game=None, line=None):
    """The record of game `game` in a records file (the first holding it), or its `line`-th record (1-based),
    or its first: found while reading the file line by line, so that only one record is held at a time."""
    count, held, indexed = 0, [], False
    for n, text in _lines(path):
        count += 1
        if line is not None:
            if count == line:
                return _parse_line(path, n, text)
            continue
        rec = _parse_line(path, n, text)
        if game is None or rec.get("game") == game:
            return rec
        indexed = indexed or rec.get("game") is not None
        if len(held) <= 20:
            held.append(rec.get("game"))
    if not count:
        raise RecordError(f"{path} holds no game record")
    if line is not None:
        raise RecordError(f"{path} holds {count} record(s): --line 1 .. {count}, not {line}")
    if not indexed:
        raise RecordError(f"{path} holds records of `play --record`, which have no game index: leave out --game, "
                          f"or choose one by --line 1 .. {count}")
    raise RecordError(f"{path} holds no record of game {game} (games: {', '.join(map(str, held[:20]))}"
                      f"{' ...' if len(held) > 20 else ''})")


_INDEX_FIELDS = ("game", "series", "match", "assignment", "pair")     # whole numbers, shown in a record's title


def _malformed(rec):
    """What is wrong with a record's shape (docs/RECORDS.md), or None: the fields replay and show read. Whether
    its contents are a game is record_check's."""
    from .formats import FORMATS
    if not isinstance(rec.get("format"), str) or rec["format"] not in FORMATS:
        return f"unknown format {printable(repr(rec.get('format')), 60)}"
    if not isinstance(rec.get("bots"), list) or not all(isinstance(b, str) for b in rec["bots"]):
        return "'bots' must be a list of names"
    for k in _INDEX_FIELDS:
        v = rec.get(k)
        if v is not None and (not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < 2**63):
            return f"'{k}' must be a whole number"
    if rec.get("kind") is not None and not isinstance(rec["kind"], str):
        return "'kind' must be a name"
    rounds = rec["rounds"]
    if not isinstance(rounds, list) or not rounds:
        return "'rounds' must be a non-empty list"
    for r, rnd in enumerate(rounds, 1):
        if not isinstance(rnd, dict) or not isinstance(rnd.get("state"), dict):
            return f"round {r} has no 'state' object"
        if not isinstance(rnd.get("moves"), list) or "scores" not in rnd:
            return f"round {r} needs 'moves' (a list) and 'scores'"
        for m, move in enumerate(rnd["moves"], 1):
            if not isinstance(move, dict) or not isinstance(move.get("key"), str) \
                    or not re.fullmatch(r"0x[0-9a-fA-F]{1,16}", move["key"]):
                return f"round {r}, move {m}: 'key' must be a hex string such as \"0x6a2633bb9acb56d0\""
    return None


def is_record_file(path):
    """True when `path`'s first non-blank line is a game record (so `khasino show` can take either). Reads at
    most 1 MiB, a state's largest (khasino_sim/codec/common.py): a longer line is no state, and is taken for a
    record when it opens as records are written (`{"record"`), which the record reader then checks."""
    try:
        with open(path, "rb") as f:
            scanned = 0
            while scanned <= PROBE:
                raw = f.readline(PROBE + 1)
                if not raw:
                    return False
                scanned += len(raw)
                if not raw.strip():
                    continue
                if len(raw) > PROBE:
                    return raw.lstrip().startswith(b'{"record"')
                rec = json.loads(raw)
                return isinstance(rec, dict) and "record" in rec and "rounds" in rec
    except (OSError, ValueError, RecursionError):
        return False
    return False


def steps(rec):
    """Every position of a record in order, rebuilt through the engine and checked (khasino_sim/record_check.py):
    dicts {index (1-based), round, move (the number of the move played from it, 1-based over the record; at a
    round's end the next one's), state, played (the move entry played from it, None at a round's end), scores
    (at a round's end)}. RecordError (one line) where the record is not the game the engine plays."""
    from .record_check import checked_steps
    return checked_steps(rec)


def moves_in(positions):
    """The number of moves of a record (its steps)."""
    return positions[-1]["move"] - 1 if positions else 0


def position_before(positions, move):
    """The index (0-based) of the position before move `move` (1-based); past the last move: the end."""
    for i, p in enumerate(positions):
        if p["played"] is not None and p["move"] >= move:
            return i
    return len(positions) - 1


def position_of_move(rec, positions, move):
    """The index (0-based) of the position before move `move` (1-based), the last move + 1 being the game's
    end (its final position, which no move is played from: `show --move 41` of a 40-move game); RecordError
    naming the range 1 .. last + 1 for another."""
    n = moves_in(positions)
    if not 1 <= move <= n + 1:
        raise RecordError(f"{_name(rec)} has {f'moves 1 .. {n}' if n else 'no move'}: --move takes 1 .. {n + 1} "
                          f"({n + 1}: the end), not {move}")
    return position_before(positions, move)


def _name(rec):
    if rec.get("game") is not None:
        return f"game {rec['game']}"
    if rec.get("seed") is not None:
        return f"the game of seed {printable(rec['seed'], 30)}"
    return "the record"


def title(rec):
    """One line naming a record's game."""
    where = _name(rec).replace("the game of ", "").replace("the record", "without a seed")
    extra = "".join(f", {k} {rec[k]}" for k in ("assignment", "pair", "series", "match") if rec.get(k) is not None)
    bots = ", ".join(f"seat {s} {printable(b, 80)}" for s, b in enumerate(rec["bots"]))
    return f"{printable(rec['format'])} {where}{extra}: {bots}"


def describe_step(rec, step, total):
    """The lines shown for one step: a header, the position, the move played from it (or the round's scores)."""
    from .render import render
    rounds = len(rec["rounds"])
    where = f"round {step['round']}/{rounds}, " if rounds > 1 or rec.get("kind") not in ("game", None) else ""
    if step["played"] is None:
        what = "end of the round" if step["round"] != rounds else "end of the game"
    else:
        what = f"before move {step['move']} of {total - rounds}"
    lines = [f"-- position {step['index']}/{total}: {where}{what}", render(step["state"])]
    bots = [printable(b, 80) for b in rec["bots"]]
    if step["played"] is not None:
        p = step["played"]
        lines.append(f"  move {step['move']}: seat {p['seat']} ({printable(p['bot'], 80)}): "
                     f"{printable(p['move']['text'])}")
    else:
        named = ", ".join(f"seat {s} ({bots[s]}) {sc['score']}" for s, sc in enumerate(step["scores"]))
        if rounds > 1:
            lines.append(f"  round {step['round']} scores: {named}")
        if step["round"] == rounds:
            lines.append("  final: " + ", ".join(f"seat {s} ({b}) {x}" for s, (b, x) in
                                                 enumerate(zip(bots, rec["score"]))) + _winner(rec))
    return lines


def _winner(rec):
    from .formats import get_format
    if rec.get("winner") is None:
        return "; a tie"
    teams = get_format(rec["format"]).teams
    return f"; winner {'team' if teams else 'seat'} {rec['winner']}"
