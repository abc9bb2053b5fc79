"""Trust nothing read from disk (issue 51): `--record-where` is a filter parsed and evaluated by khasino-sim,
never code; `khasino replay` and `khasino show` rebuild every position of a record through the engine and refuse
in one line a record whose moves, seats, bots, scores, winner, format or deal are not the game's; what a file
says is shown without its control characters; a record is read with a bounded line, one at a time; `--move`
past the last move names the range; records are written whole, never through a symbolic link."""
import json
import os
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from tests.test_fuzz_inputs import _tree, assert_clean_refusal, run_cli


def cli(*args, stdin=None):
    code, out, err, exc = run_cli([str(a) for a in args], stdin=stdin)
    assert code == 0 and (exc is None or isinstance(exc, SystemExit)), (args, code, err, exc)
    return out


def refused(args, *fragments):
    args = [str(a) for a in args]
    code, out, err, exc = run_cli(args)
    assert_clean_refusal(args, code, out, err, exc)
    for f in fragments:
        assert f in err, (f, err)
    return err.strip()


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
    rec = first(recorded)
    n = len(rec["rounds"][0]["moves"])
    refused(["show", recorded, "--game", rec["game"], "--move", 99999],
            f"game {rec['game']} has moves 1 .. {n}, not 99999")
    refused(["show", recorded, "--move", n + 1], f"has moves 1 .. {n}, not {n + 1}")
    play = write(tmp_path / "p.jsonl", {**_record("khasino", 3, "game"), "game": None})
    refused(["show", play, "--move", 500], f"the game of seed 3 has moves 1 .. {n}, not 500")


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
