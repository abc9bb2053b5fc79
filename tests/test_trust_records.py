"""Trust nothing read from disk (issue 51): `--record-where` is a filter parsed and evaluated by khasino-sim,
never code; `khasino replay` and `khasino show` rebuild every position of a record through the engine and refuse
in one line a record whose moves, seats, bots, scores, winner, format or deal are not the game's; what a file
says is shown without its control characters; a record is read with a bounded line, one at a time; `--move`
last + 1 is the end, past it names the range; records are written whole, never through a symbolic link."""
import json
import os
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from tests.test_bad_inputs import refused
from tests.test_fuzz_inputs import _tree, run_cli


def cli(*args, stdin=None):
    code, out, err, exc = run_cli([str(a) for a in args], stdin=stdin)
    assert code == 0 and (exc is None or isinstance(exc, SystemExit)), (args, code, err, exc)
    return out


def first(path):
    return json.loads(Path(path).read_text().splitlines()[0])


def write(path, *recs):
    Path(path).write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


WRITERS = [  # (name, the command that writes records into {out}, what it reads on stdin): every family
    ("simulate-khasino", "simulate --games 2 --record 2 --out {out}", None),
    ("simulate-khasino-4p", "simulate --format khasino-4p --bots greedy,random --games 2 --record 2 --out {out}",
     None),
    ("simulate-khasino-3p-series", "simulate --format khasino-3p --bots greedy,random,random --series 2 --games 2 "
     "--record 2 --out {out}", None),
    ("simulate-cassino", "simulate --format cassino --games 1 --record 1 --out {out}", None),
    ("simulate-cassino-4p-rounds-1", "simulate --format cassino-4p --bots greedy,random --rounds 1 --games 2 "
     "--record 2 --out {out}", None),
    ("simulate-kasino-2p", "simulate --format kasino-2p --set match_rounds=4 --games 1 --record 1 --out {out}", None),
    ("simulate-kasino-4p", "simulate --format kasino-4p --bots greedy,random --games 1 --record 1 --out {out}", None),
    ("simulate-kasino-3p-rounds-1", "simulate --format kasino-3p --bots greedy,random,random --rounds 1 --games 2 "
     "--record 2 --out {out}", None),
    ("tournament", "tournament --bots greedy,random --games 2 --record 1 --out {out}", None),
    ("match-khasino-4p", "match greedy random --format khasino-4p --max-pairs 2 --batch 2 --record 1 "
     "--record-out {out}/records.jsonl", None),
    ("match-cassino", "match greedy random --format cassino --max-pairs 2 --batch 2 --record 1 "
     "--record-out {out}/records.jsonl", None),
    ("play-khasino-4p", "play --format khasino-4p --seed 3 --record {out}/records.jsonl", None),
    ("play-cassino", "play --format cassino --seed 3 --record {out}/records.jsonl", None),
    ("play-kasino-4p", "play --format kasino-4p --seed 3 --record {out}/records.jsonl", None),
    ("human-khasino", "play --human 0", "khasino"),
    ("human-khasino-4p-lead-by-team", "play --human 1", "khasino-4p"),      # team AB's lead, asked of seat 1
    ("human-cassino", "play --human 0", "cassino"),
    ("human-cassino-rounds-1", "play --human 1 --rounds 1", "cassino"),
    ("human-kasino-2p", "play --human 0", "kasino-2p"),
    ("human-kasino-2p-rounds-1", "play --human 0 --rounds 1", "kasino-2p"),
    ("human-kasino-4p", "play --human 0", "kasino-4p"),
]


def _written(tmp_path, command, human):
    out = tmp_path / "out"
    out.mkdir()
    if human:                           # a person picking the first move every time, in Classic
        cli(*command.split(), "--format", human, "--seed", "4", "--bots", "random", "--mode", "classic", "--plain",
            "--trace", out / "records.jsonl", stdin="1\n" * 3000)
    else:
        cli(*command.format(out=out).split(), *(["--quiet"] if command.startswith("simulate") else []))
    return out / "records.jsonl"


@pytest.mark.parametrize("name, command, human", WRITERS, ids=[w[0] for w in WRITERS])
def test_every_record_written_today_passes_the_check(tmp_path, name, command, human):
    path = _written(tmp_path, command, human)
    recs = [json.loads(x) for x in path.read_text().splitlines()]
    assert recs
    for line, rec in enumerate(recs, 1):
        text = cli("replay", path, "--line", line, "--all")
        n = sum(len(r["moves"]) for r in rec["rounds"])
        assert f"before move {n} of {n}" in text and "final: " in text
    n = len(recs[-1]["rounds"][0]["moves"])
    assert cli("show", path, "--line", len(recs), "--move", n).startswith("-- position")
    if name == "human-khasino-4p-lead-by-team":
        lead = recs[0]["rounds"][0]["moves"][0]
        assert lead["move"]["kind"] == "lead" and lead["seat"] == 0 and lead["bot"] == "human"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A records file of `simulate` (Khasino: two games)."""
    out = tmp_path_factory.mktemp("rec") / "r"
    cli("simulate", "--games", "2", "--out", out, "--quiet", "--record", "2")
    return out / "records.jsonl"


# ---- --record-where: a filter, never code --------------------------------------------------------------------

@pytest.mark.parametrize("where", [
    '@pd.io.common.os.system("touch {marker}")',
    '__import__("os").system("touch {marker}") == 0',
    'score_0 > 0 and @pd.io.common.os.system("touch {marker}") == 0',
])
def test_record_where_runs_no_code(tmp_path, where):
    marker = tmp_path / "MARKER"
    before = _tree(tmp_path)
    refused(["simulate", "--games", "10", "--out", tmp_path / "r", "--record", "5", "--record-where",
             where.format(marker=marker)], "--record-where")
    assert not marker.exists() and _tree(tmp_path) == before


@pytest.mark.parametrize("where, fragment", [
    ("scor > 3", "unknown column 'scor'"),
    ("score_0 >", "the filter ends"),
    ("abs(score_0) > 3", "calls no function"),
    ("score_0.real > 3", "no attributes"),
    ("seed[0] > 3", "no subscripts"),
    ("score_0 > @x", "no @variables"),
    ("bot_0 == 3", "compares text with a number"),
    ("bot_0 > 'greedy'", "text compares with == and != only"),
    ("score_0", "not a condition"),
    ("score_0 = 3", "compare with =="),
    ("(score_0 > 3", "is not closed"),
    ("score_0 > 2.5", "whole"),
    ("lambda: 1", "unexpected character ':'"),
])
def test_a_bad_record_where_is_one_line_before_any_game(tmp_path, where, fragment):
    refused(["simulate", "--games", "10", "--out", tmp_path / "r", "--record-where", where], "--record-where",
            fragment)
    assert not (tmp_path / "r").exists()


def test_record_where_compares_names_and_does_exact_arithmetic(tmp_path):
    """`turns` and `captures` are uint8 columns: 40 * 10 and -captures must not wrap (pandas' query did)."""
    import pandas as pd
    out = tmp_path / "r"
    cli("simulate", "--games", "30", "--out", out, "--quiet", "--record", "100", "--record-where",
        "turns * 10 > 300 and -captures < 0 and (score_0 - score_1 > 2 or bot_0 == 'random')")
    g = pd.read_parquet(out / "games").sort_values("game")
    turns, captures, s0, s1 = (g[k].to_numpy(np.int64) for k in ("turns", "captures", "score_0", "score_1"))
    keep = (turns * 10 > 300) & (-captures < 0) & ((s0 - s1 > 2) | (g["bot_0"] == "random").to_numpy())
    got = [json.loads(x)["game"] for x in (out / "records.jsonl").read_text().splitlines()]
    assert got == g["game"][keep].tolist() and len(got) >= 10


def test_filters_evaluate_exactly():
    from khasino_sim.filters import parse
    cols = {"seed": "number", "a": "number", "b": "number", "bot_0": "text"}
    table = {"seed": np.array([1, 2**64 - 1, 2**63], dtype=np.uint64), "a": np.array([0, 200, 5], dtype=np.uint8),
             "b": np.array([100, -100, 5], dtype=np.int8), "bot_0": np.array(["greedy", "random", "x"], dtype=object)}
    rows = lambda text: parse(text, cols).rows(table, 3).tolist()      # noqa: E731
    assert rows("a - b > 5") == [False, True, False]            # no uint8/int8 wrap
    assert rows("seed == 18446744073709551615") == [False, True, False]
    assert rows("seed * 2 > 18446744073709551615") == [False, True, True]
    assert rows("3 <= a * a < 40000") == [False, False, True]
    assert rows('not (bot_0 == "greedy") and (a > 1 or b < 0)') == [False, True, True]


def _long(op, n):
    return "turns" + f"{op}1" * n + " > -1000"


@pytest.mark.parametrize("where", [
    "turns" + "+1" * 990 + " > 0",                       # the reported case: a left-deep tree once, RecursionError
    _long("-", 990), _long("*", 990), "turns" + "+1*1" * 490 + " > 0", "0" + "<=turns" * 280,
    " or ".join(["turns>0"] * 180), " and ".join(["turns>0"] * 160),
    "(" * 60 + "turns > 0" + ")" * 60, "not " * 60 + "turns > 0", "-" * 60 + "turns > 0",
], ids=["plus-990", "minus-990", "times-990", "sum-of-products", "compare-280", "or-180", "and-180", "paren-60",
        "not-60", "neg-60"])
def test_a_long_or_deep_record_where_is_a_filter(tmp_path, where):
    """Long chains of + - * (and of comparisons, and, or) are one wide node each, however long the filter may
    be; the deepest nesting allowed (MAX_DEPTH) runs too: a legal filter records, never "internal error"."""
    assert len(where) <= 2000
    out = tmp_path / "r"
    cli("simulate", "--games", "6", "--workers", "1", "--quiet", "--out", out, "--record", "2", "--record-where",
        where)
    assert len((out / "records.jsonl").read_text().splitlines()) == 2


@pytest.mark.parametrize("where, fragment", [
    ("(" * 61 + "turns > 0" + ")" * 61, "nested more than 60 deep"),
    ("not " * 61 + "turns > 0", "nested more than 60 deep"),
    ("-" * 61 + "turns > 0", "nested more than 60 deep"),
    ("(not -" * 21 + "turns > 0" + ")" * 21, "nested more than 60 deep"),
    ("turns" + "+1" * 1000 + " > 0", "at most 2000 characters"),
], ids=["paren-61", "not-61", "neg-61", "mixed-63", "plus-1000"])
def test_a_record_where_too_deep_or_too_long_is_one_line(tmp_path, where, fragment):
    refused(["simulate", "--games", "10", "--out", tmp_path / "r", "--record-where", where], "--record-where",
            fragment)
    assert not (tmp_path / "r").exists()


def test_no_filter_recurses_past_its_documented_frames():
    """Parsing takes at most MAX_DEPTH * FRAMES_PER_LEVEL frames (and a few more), evaluating none: the deepest
    and the longest filters run under a recursion limit just that much above the caller's stack."""
    import sys
    from khasino_sim import filters
    cols = {"turns": "number", "bot_0": "text"}
    table = {"turns": np.arange(4), "bot_0": np.array(["a", "b", "c", "d"], dtype=object)}
    d = filters.MAX_DEPTH
    cases = ["(" * d + "turns > 0" + ")" * d, "(" * d + "turns" + ")" * d + " > 0", "not " * d + "turns > 0",
             "-" * d + "turns > 0", "(not " * (d // 2) + "turns > 0" + ")" * (d // 2),
             "(-" * (d // 2) + "turns" + ")" * (d // 2) + " > 0", "turns" + "+1" * 990 + " > 0",
             " and ".join(["turns>0"] * 160), "(" * (d - 1) + "turns" + " * 1" * 400 + ")" * (d - 1) + " > 0"]
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + d * filters.FRAMES_PER_LEVEL + 25)
    try:
        got = [filters.parse(text, cols).rows(table, 4).tolist() for text in cases]
    finally:
        sys.setrecursionlimit(limit)
    assert got == [[False, True, True, True]] * 6 + [[True] * 4] + [[False, True, True, True]] * 2


# ---- records: rebuilt through the engine --------------------------------------------------------------------

def _swap_move_text(rec):
    rec["rounds"][0]["moves"][2]["move"]["text"] = "Play 10S to capture everything"


TAMPERED = [  # (the change, what the refusal says)
    (_swap_move_text, "move 3: its text 'Play 10S to capture everything' is not the move its key plays"),
    (lambda r: r.update(score=[99, 0]), "its final score [99, 0] is not the engine's"),
    (lambda r: r["rounds"][0]["moves"][1].update(seat=7), "move 2: seat 7 is not the seat to move"),
    (lambda r: r["rounds"][0]["moves"][1].update(bot="heuristic"), "move 2: bot 'heuristic' is not seat 1's"),
    (lambda r: r.update(bots=[r["bots"][1], r["bots"][0]]), "is not seat 0's"),
    (lambda r: r.update(winner=1 if r["winner"] == 0 else 0), "its winner"),
    (lambda r: r["rounds"][0]["scores"][0].update(score=9), "round 1: its scores are not those of its last"),
    (lambda r: r.update(format="durban"), "its first position's format khasino is not the record's (durban)"),
    (lambda r: r.update(options={"follow_ups": False}), "option follow_ups is True, the record's False"),
    (lambda r: r.update(seed=str(int(r["seed"]) + 1)), "is not the deal of its seed"),
    (lambda r: r.update(bots=r["bots"] + ["greedy"]), "'bots' names 3 bot(s): khasino has 2 seats"),
    (lambda r: r.update(kind="match"), "kind 'match' is not a kind of khasino records"),
    (lambda r: r["rounds"][0]["moves"].pop(), "round 1 stops after move 39, before its game is over"),
    (lambda r: r["rounds"][0]["moves"][5]["move"].update(card="ZZ"), "move 6: its card is not the move"),
    (lambda r: r.update(leader=1), "its leader 1 is not the seat that played first"),
]


@pytest.mark.parametrize("change, fragment", TAMPERED, ids=[f[1][:40] for f in TAMPERED])
def test_a_record_that_is_not_its_game_is_refused(recorded, tmp_path, change, fragment):
    rec = first(recorded)
    change(rec)
    bad = write(tmp_path / "bad.jsonl", rec)
    refused(["replay", bad, "--all"], fragment)
    refused(["show", bad, "--move", "1"], fragment)


def _record(fmt, seed, kind, bots=("greedy", "random")):
    from khasino_sim.records import play_record
    from khasino_sim.formats import FORMATS
    bots = list(bots) * (FORMATS[fmt].seats // len(bots))
    return {**play_record(fmt, None, bots, seed, kind=kind), "game": 0}


def _one_move_record(position, key, move=None):
    """A record of one move from `position` (no seed: any valid position is allowed), its move `key`."""
    from khasino_sim import engine
    fmt, st, _ = engine.parse(position)
    state = engine.to_json(st, fmt)
    move = move or {"card": "8H", "kind": "capture", "text": "Play 8H to capture 8S"}
    return {"record": 1, "format": state["format"], "options": {}, "bots": ["greedy", "random"], "game": None,
            "kind": "game", "score": [0, 0], "winner": None,
            "rounds": [{"state": state, "moves": [{"seat": 0, "bot": "greedy", "move": move, "key": key}],
                        "scores": []}]}


def _counting_passes(monkeypatch):
    """Count the generation passes of the record check (and the candidates each offered) and the moves whose
    result it builds."""
    from khasino_sim import engine
    passes, built = [], []
    lister, play_card = engine._lister, engine._play_card

    def counted_lister(fmt):
        inner = lister(fmt)

        def run(*args):
            passes.append(int(inner(*args)))
            return passes[-1]
        return run

    def counted_play(*args):
        built.append(1)
        return play_card(*args)
    monkeypatch.setattr(engine, "_lister", counted_lister)
    monkeypatch.setattr(engine, "_play_card", counted_play)
    monkeypatch.setattr(engine, "iter_moves", lambda state: pytest.fail("iter_moves builds every candidate"))
    return passes, built


def test_a_key_that_is_no_move_of_a_huge_position_is_refused_at_once(tmp_path, monkeypatch):
    """A crafted one-move record on SIXTEEN (16 loose cards, 2,440,294 moves) whose key is no legal move: the
    check compares keys in one generation pass and builds no move (it scanned engine.iter_moves, which built
    every candidate's result, about 130 us each, and generated the listing again window by window: tens of
    minutes here, hours on TWENTY's 177 million candidates)."""
    import time
    from khasino_sim.record_check import checked_steps
    from khasino_sim.records import RecordError
    from tests.test_moves_streaming import FOLLOW, SIXTEEN
    with pytest.raises(RecordError):                        # warm-up: the compiled listing loaded
        checked_steps(_one_move_record(FOLLOW, "0x3039"))
    passes, built = _counting_passes(monkeypatch)
    t = time.perf_counter()
    with pytest.raises(RecordError, match="move 1: key 0x3039 is no legal move of its position"):
        checked_steps(_one_move_record(SIXTEEN, "0x3039"))
    took = time.perf_counter() - t
    assert len(passes) == 1 and passes[0] >= 2_440_294 and not built, (passes, built)
    assert took < 5, f"{took:.1f} s"
    monkeypatch.undo()
    refused(["show", write(tmp_path / "crafted.jsonl", _one_move_record(SIXTEEN, "0x3039"))],
            "move 1: key 0x3039 is no legal move of its position")


def test_a_recorded_key_is_found_by_one_pass_and_is_the_engines_move(monkeypatch):
    """The move the check finds for a key is the one engine.iter_moves gives for it (text, result, features,
    Kasino's captured cards and tabbe), in every format, and a key no move has is None."""
    import random
    from khasino_sim import engine
    from khasino_sim.formats import FORMATS
    from khasino_sim.engine import move_of_key
    for name in FORMATS:
        state, rnd = engine.new_game(name, 7), random.Random(name)
        while not state.get("over"):
            moves = engine.legal_moves(state)
            for m in moves:
                got = move_of_key(state, m.key)
                assert got == m and got.after == m.after, (name, m.text)
            assert move_of_key(state, 12345) is None
            state = rnd.choice(moves).result


def test_a_huge_position_with_a_legal_key_replays(tmp_path):
    """A key that is a legal move of SIXTEEN: found, and its result alone built; the record goes on (to its
    next check: a one-move record of an unfinished game stops before its end)."""
    from khasino_sim import engine
    from tests.test_moves_streaming import SIXTEEN
    from khasino_sim.records import key_text
    first_move = next(engine.iter_moves(SIXTEEN))
    shown = {k: v for k, v in first_move.to_json().items() if k != "result"}
    rec = _one_move_record(SIXTEEN, key_text(first_move.key), shown)
    refused(["show", write(tmp_path / "ok.jsonl", rec), "--move", "1"], "round 1 stops after move 1")


def test_matches_and_teams_are_checked_round_by_round(tmp_path):
    rec = _record("cassino", 8668861027912758289, "match")
    assert len(rec["rounds"]) > 1
    assert "final: " in cli("replay", write(tmp_path / "ok.jsonl", rec), "--all")      # as written: good
    short = dict(rec, rounds=rec["rounds"][:-1])
    refused(["replay", write(tmp_path / "a.jsonl", short)], "the match is not over after its last round")
    more = dict(rec, rounds=rec["rounds"] + rec["rounds"][-1:])
    refused(["replay", write(tmp_path / "a2.jsonl", more)], f"round {len(more['rounds'])} follows the end")
    rec2 = json.loads(json.dumps(rec))
    rec2["rounds"][1]["scores_before"] = [20, 0]
    refused(["replay", write(tmp_path / "b.jsonl", rec2)], "round 2: its scores_before [20, 0] are not the match")
    rec3 = json.loads(json.dumps(rec))
    rec3["rounds"][1]["seed"] = rec3["rounds"][0]["seed"]
    refused(["replay", write(tmp_path / "c.jsonl", rec3)], "round 2's seed", "is not the round seed")
    kas = _record("kasino-2p", 5, "match")
    kas["rounds"] = kas["rounds"][:1] + kas["rounds"][:1]
    refused(["replay", write(tmp_path / "d.jsonl", kas)], "round 2 says it is round 1")
    four = _record("khasino-4p", 5, "game", ("greedy", "greedy", "random", "random"))
    assert four["rounds"][0]["moves"][0]["move"]["kind"] == "lead"     # team AB (seats 0, 1) chooses its leader
    four["rounds"][0]["moves"][0]["bot"] = "random"
    refused(["replay", write(tmp_path / "e.jsonl", four)], "move 1: bot 'random' is not seat 0's")


def test_text_from_a_record_reaches_the_terminal_without_control_characters(recorded, tmp_path):
    rec = first(recorded)
    evil = "\x1b]0;owned\x07\x1b]52;c;ZWNobyBvd25lZA==\x07gr\u202eeedy"
    rec["bots"][0] = evil
    for rnd in rec["rounds"]:
        for m in rnd["moves"]:
            if m["seat"] == 0:
                m["bot"] = evil
    path = write(tmp_path / "evil.jsonl", rec)
    for args in (["replay", path, "--all"], ["show", path, "--move", "3"], ["show", path, "--move", "4"]):
        text = cli(*args)
        assert not any(ch in text for ch in "\x1b\x07\u202e"), args
        assert "seat 0 ]0;owned]52;c;ZWNobyBvd25lZA==greedy" in text or args[0] == "show"


def test_a_line_too_long_is_one_line_read_in_bounded_memory(recorded, tmp_path):
    rec = first(recorded)
    rec["padding"] = "x" * (17 * 2**20)
    path = write(tmp_path / "big.jsonl", rec)
    tracemalloc.start()
    try:
        err = refused(["replay", path, "--all"], "line 1 is longer than 16 MiB")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 40 * 2**20, peak
    refused(["show", path], "line 1 is longer than 16 MiB")
    assert "Traceback" not in err


def test_is_record_file_reads_a_bounded_prefix(tmp_path):
    from khasino_sim.records import is_record_file
    path = tmp_path / "huge.json"
    with open(path, "wb") as f:
        for _ in range(40):
            f.write(b"x" * 2**20)
    tracemalloc.start()
    try:
        assert not is_record_file(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 24 * 2**20, peak
    refused(["show", path], "Error: ")


def test_a_big_file_is_read_one_record_at_a_time(recorded, tmp_path):
    line = Path(recorded).read_text().splitlines()[0]
    path = tmp_path / "many.jsonl"
    path.write_text((line + "\n") * 600)
    tracemalloc.start()
    try:
        text = cli("show", path, "--line", 600, "--move", 2)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert text.startswith("-- position 2/") and peak < 12 * 2**20, peak


def test_a_move_past_the_last_names_the_range(recorded, tmp_path):
    """--move M shows the position before move M, and M = last + 1 the game's end (as before issue 51's check);
    past that, one line naming the range 1 .. last + 1."""
    rec = first(recorded)
    n = len(rec["rounds"][0]["moves"])
    refused(["show", recorded, "--game", rec["game"], "--move", 99999],
            f"game {rec['game']} has moves 1 .. {n}: --move takes 1 .. {n + 1} ({n + 1}: the end), not 99999")
    refused(["show", recorded, "--move", n + 2], f"has moves 1 .. {n}: --move takes 1 .. {n + 1}", f"not {n + 2}")
    end = cli("show", recorded, "--move", n + 1)
    assert end.startswith(f"-- position {n + 1}/{n + 1}: end of the game") and "  final: seat 0" in end
    assert cli("show", recorded, "--move", n).startswith(f"-- position {n}/{n + 1}: before move {n} of {n}")
    play = write(tmp_path / "p.jsonl", {**_record("khasino", 3, "game"), "game": None})
    m = len(first(play)["rounds"][0]["moves"])
    refused(["show", play, "--move", 500], f"the game of seed 3 has moves 1 .. {m}: --move takes 1 .. {m + 1}")
    assert "end of the game" in cli("show", play, "--move", m + 1)


def test_the_end_of_a_match_is_its_last_move_plus_one(tmp_path):
    """In a match the positions run through every round (each round's end a position too): --move last + 1
    is the match's end, with the final score."""
    rec = _record("cassino", 8668861027912758289, "match")
    n = sum(len(r["moves"]) for r in rec["rounds"])
    path = write(tmp_path / "m.jsonl", rec)
    end = cli("show", path, "--move", n + 1)
    rounds = len(rec["rounds"])
    assert end.startswith(f"-- position {n + rounds}/{n + rounds}: round {rounds}/{rounds}, end of the game")
    assert "  final: seat 0" in end
    refused(["show", path, "--move", n + 2], f"--move takes 1 .. {n + 1}")


def test_replay_jumps_to_the_end_at_the_last_move_plus_one(recorded):
    rec = first(recorded)
    n = len(rec["rounds"][0]["moves"])
    text = cli("replay", recorded, "--step", stdin=f"{n + 1}\nq\n")
    assert f"-- position {n + 1}/{n + 1}: end of the game" in text and "the game has moves" not in text
    text = cli("replay", recorded, "--step", stdin=f"{n + 2}\nq\n")
    assert f"(the game has moves 1 .. {n}: a number from 1 to {n + 1}, the end; the nearest shown)" in text


def test_records_are_written_whole_never_through_a_link(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    link = tmp_path / "g.jsonl"
    link.symlink_to(victim)
    refused(["play", "--seed", "3", "--record", link], "symbolic link")
    assert victim.read_text() == "keep me\n" and link.is_symlink()
    target = tmp_path / "h.jsonl"       # a link planted where the old writer put its temporary file
    planted = tmp_path / f".h.jsonl.tmp-{os.getpid()}"
    planted.symlink_to(victim)
    cli("play", "--seed", "3", "--record", target)
    assert victim.read_text() == "keep me\n" and first(target)["seed"] == "3"
