"""The `khasino` command as a user runs it: real subprocesses, exit codes, one-line errors."""
import json
import subprocess
import sys

import pytest

from tests.helpers import position


def khasino(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "khasino_sim", *args], capture_output=True, text=True,
                          input=stdin, timeout=300)


def test_formats_lists_each_with_its_seed():
    r = khasino("formats")
    assert r.returncode == 0
    lines = r.stdout.strip().splitlines()
    assert [ln.split()[0] for ln in lines] == ["cassino", "cassino-3p", "cassino-4p", "durban", "kasino-2p",
                                               "kasino-2p-alt", "kasino-3p", "kasino-4p", "kasino-5p", "kasino-6p",
                                               "khasino", "khasino-3p", "khasino-3p-stock", "khasino-4p"]
    assert all("seed 002" in ln for ln in lines[:3]) and "seed 001" in lines[3]
    assert all("seed 003" in ln for ln in lines[4:10])
    assert all("seed 000" in ln for ln in lines[10:])


def test_moves_prints_one_json_object_per_move(tmp_path):
    f = tmp_path / "s.json"
    f.write_text(json.dumps(position(hands=(["5H", "9C"], ["2D", "3D"]), loose=["4C"])))
    r = khasino("moves", str(f))
    assert r.returncode == 0, r.stderr
    moves = [json.loads(ln) for ln in r.stdout.splitlines()]
    assert sorted((m["card"], m["kind"]) for m in moves) == [("5H", "build"), ("5H", "trail"), ("9C", "trail")]
    for m in moves:
        assert set(m) == {"card", "kind", "text", "result"}
        assert m["result"]["to_move"] == 1
    build = next(m for m in moves if m["kind"] == "build")
    assert build["result"]["table"]["builds"] == [{"value": 9, "owner": 0, "groups": [["5H", "4C"]]}]


def test_moves_reads_stdin():
    r = khasino("moves", "-", stdin=json.dumps(position(hands=(["5H", "9C"], ["2D", "3D"]), loose=["4C"])))
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 3


def test_show_draws_the_position(tmp_path):
    f = tmp_path / "s.json"
    f.write_text(json.dumps(position(hands=(["5H", "9C"], ["2D", "9H"]), builds=[(9, 1, [["4S", "5D"]])],
                                     piles=([], ["7C"]))))
    r = khasino("show", str(f))
    assert r.returncode == 0, r.stderr
    assert "seat 0 to move" in r.stdout and "build  9 (simple, seat 1): [5D 4S]" in r.stdout
    assert "top 7C" in r.stdout


BAD = {
    "malformed": ('{"format": "khasino", ', "malformed JSON"),
    "unknown card": (None, "unknown card"),
    "duplicate": (None, "appears twice"),
    "missing": (None, "nowhere in the state"),
    "bad sum": (None, "does not sum to 9"),
    "unknown format": (None, "unknown format"),
    "hand sizes": (None, "hand sizes"),
}


def bad_state(kind):
    s = position(hands=(["5H", "9C"], ["2D", "9H"]), builds=[(9, 1, [["4S", "5D"]])])
    if kind == "unknown card":
        s["hands"][0][0] = "11H"
    elif kind == "duplicate":
        s["hands"][0][0] = "2D"
    elif kind == "missing":
        s["piles"][0] = s["piles"][0][1:]
    elif kind == "bad sum":
        s["table"]["builds"][0]["groups"][0] = ["4S", "6D"]
        s["piles"][0].remove("6D")
        s["piles"][0].append("5D")
    elif kind == "unknown format":
        s["format"] = "poker"
    elif kind == "hand sizes":
        s["to_move"] = 1
    return json.dumps(s)


@pytest.mark.parametrize("kind", list(BAD))
def test_bad_state_is_one_line_and_exit_2(tmp_path, kind):
    text, expect = BAD[kind]
    f = tmp_path / "bad.json"
    f.write_text(text if text is not None else bad_state(kind))
    for cmd in ("moves", "show"):
        r = khasino(cmd, str(f))
        assert r.returncode == 2, (cmd, r.stdout, r.stderr)
        assert "Traceback" not in r.stderr and r.stdout == ""
        assert len(r.stderr.strip().splitlines()) == 1 and expect in r.stderr, r.stderr


def test_missing_file_is_one_line_and_exit_2(tmp_path):
    r = khasino("moves", str(tmp_path / "nope.json"))
    assert r.returncode == 2 and "cannot read" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_play_prints_a_whole_game():
    r = khasino("play", "--seed", "3", "--bots", "greedy,random")
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("  seat 0 (greedy): ") == 20 and r.stdout.count("  seat 1 (random): ") == 20
    assert "final: seat 0 (greedy)" in r.stdout


def test_play_unknown_bot_is_exit_2():
    r = khasino("play", "--bots", "genius")
    assert r.returncode == 2 and "unknown bot" in r.stderr and "Traceback" not in r.stderr


def test_moves_lists_a_4p_decision_and_rejects_a_bad_one(tmp_path):
    """ENGINE.md "Four players": a decision state lists its options (kind lead with the seat chosen, or
    decline/stay); a Stay decision whose move is no legal capture is one line and exit 2."""
    from khasino_sim import engine
    state = engine.new_game("khasino-4p", 3)
    path = tmp_path / "lead.json"
    path.write_text(json.dumps(state))
    r = khasino("moves", str(path))
    assert r.returncode == 0, r.stderr
    opts = [json.loads(line) for line in r.stdout.splitlines()]
    assert [(o["kind"], o["seat"]) for o in opts] == [("lead", 0), ("lead", 1)]
    assert opts[1]["result"]["to_move"] == 1 and opts[1]["result"]["decision"] is None
    assert khasino("moves", "--count", str(path)).stdout.strip() == "2"
    # a Stay decision state reached in play, then spoiled
    st = state
    while st["decision"] is None or st["decision"]["kind"] != "stay":
        ms = engine.legal_moves(st)
        st = next((m.result for m in ms if m.result["decision"]), ms[-1].result)
        assert not st["over"], "seed 3 reaches a Stay decision"
    good = tmp_path / "stay.json"
    good.write_text(json.dumps(st))
    assert [json.loads(x)["kind"] for x in khasino("moves", str(good)).stdout.splitlines()] == ["decline", "stay"]
    st["decision"]["move"]["card"] = next(c for c in st["hands"][st["decision"]["seat"]]
                                          if c != st["decision"]["move"]["card"])
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(st))
    r = khasino("moves", str(bad))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "decision" in r.stderr, r.stderr
