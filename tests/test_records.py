"""Game records (docs/RECORDS.md): `simulate/tournament/match --record`, `play --json` and `--record`, `replay`,
`show` of a record, and whole series (`--series K --games N`, N a multiple of K)."""
import json
from pathlib import Path

import pandas as pd
import pytest

from khasino_sim import engine, records
from khasino_sim.runs import RunSpec, SimulationError, simulate, validate
from tests.test_fuzz_inputs import assert_clean_refusal, run_cli, _tree


def cli(*args, stdin=None):
    code, out, err, exc = run_cli([str(a) for a in args], stdin=stdin)
    assert code == 0 and exc is None or isinstance(exc, SystemExit) and code == 0, (code, err, exc)
    return out


def refused(args, *fragments):
    code, out, err, exc = run_cli([str(a) for a in args])
    assert_clean_refusal(args, code, out, err, exc)
    for f in fragments:
        assert f in err, (f, err)
    return err.strip()


def lines(path):
    return [json.loads(ln) for ln in Path(path).read_text().splitlines()]


def games_of(out):
    return pd.read_parquet(Path(out) / "games").set_index("game")


RUNS = [  # (format, bots, run options): a Khasino format, series (P10), 4p (teams, lead choice), matches, rounds
    ("khasino", ("greedy", "random"), {}),
    ("khasino-3p", ("greedy", "random", "random"), {"series": 3}),
    ("khasino-4p", ("greedy", "random"), {}),
    ("cassino", ("greedy", "random"), {}),
    ("cassino-4p", ("greedy", "random"), {}),
    ("kasino-2p", ("greedy", "random"), {"options": {"match_rounds": "4"}}),     # as --set gives it: text
    ("kasino-3p", ("random", "greedy", "random"), {"rounds": 1}),
]


@pytest.mark.parametrize("fmt,bots,kw", RUNS, ids=[f"{f}-{'-'.join(k) or 'plain'}" for f, _, k in RUNS])
def test_a_record_is_the_game_the_run_stored(fmt, bots, kw, tmp_path):
    """Each record's final scores equal its game's row of the run (games and seats tables), its bots are the
    row's, and replaying its keys from its initial state ends on positions scoring what it says."""
    out = simulate(fmt, 12, bots, seed=11, out=tmp_path / "r", shard_size=5, **kw)
    path, n = records.record_run(out, {"first": 9})
    recs = lines(path)
    assert n == 9 and [r["game"] for r in recs] == list(range(9))
    games = games_of(out)
    seats = pd.read_parquet(Path(out) / "seats").set_index(["game", "seat"])
    for rec in recs:
        row = games.loc[rec["game"]]
        assert rec["record"] == records.SCHEMA and rec["format"] == fmt
        assert rec["options"] == ({"match_rounds": 4} if kw.get("options") else {})
        assert rec["score"] == [int(row[f"score_{s}"]) for s in range(len(rec["bots"]))]
        assert rec["score"] == [int(seats.loc[(rec["game"], s), "score"]) for s in range(len(rec["bots"]))]
        assert rec["bots"] == [str(row[f"bot_{s}"]) for s in range(len(rec["bots"]))]
        assert rec["seed"] == str(row["seed"]) and rec["leader"] == int(row["leader"])
        assert rec["winner"] == (None if row["winner"] < 0 else int(row["winner"]))
        assert len(rec["rounds"]) == int(row.get("rounds", 1))
        for rnd in rec["rounds"]:
            state = rnd["state"]
            for m in rnd["moves"]:
                assert m["seat"] == state["to_move"] and set(m) == {"seat", "bot", "move", "key"}
                state = next(x for x in engine.legal_moves(state) if x.key == int(m["key"], 16)).result
            assert engine.scores(state) == rnd["scores"]
    if kw.get("series"):        # later matches of a series are led by the previous one's lowest scorer
        assert any(r["leader"] != 0 for r in recs)


def test_rerun_resume_and_force_never_duplicate_records(tmp_path):
    out = tmp_path / "r"
    args = ["simulate", "--games", "40", "--shard-size", "10", "--out", out, "--quiet"]
    cli(*args, "--record", "3")
    first = (out / "records.jsonl").read_text()
    cli(*args, "--record", "3")                             # already complete: recorded again, not appended
    assert (out / "records.jsonl").read_text() == first and len(first.splitlines()) == 3
    (out / "games" / "part-000002.parquet").unlink()      # a lost shard: --resume plays it again
    cli(*args, "--record", "3", "--resume")
    assert (out / "records.jsonl").read_text() == first
    cli(*args, "--record-games", "5,39")
    assert [r["game"] for r in lines(out / "records.jsonl")] == [5, 39]
    cli("simulate", "--games", "20", "--seed", "9", "--out", out, "--quiet", "--force")   # another run
    assert not (out / "records.jsonl").exists()


def test_record_where_picks_rows_of_the_games_table(tmp_path):
    out = tmp_path / "r"
    text = cli("simulate", "--games", "300", "--out", out, "--quiet", "--record-where",
               'bot_0 == "random" and score_0 >= 7', "--record", "5")
    games = games_of(out)
    want = games[(games["bot_0"] == "random") & (games["score_0"] >= 7)].index[:5].tolist()
    assert [r["game"] for r in lines(out / "records.jsonl")] == want and len(want) == 5
    assert f"records    {out / 'records.jsonl'} (5 games)" in text


def test_bad_record_options_are_refused_before_any_game(tmp_path):
    before = _tree(tmp_path)
    refused(["simulate", "--games", "10", "--out", tmp_path / "r", "--record-where", "scor > 3"],
            "--record-where", "score_0")
    refused(["simulate", "--games", "10", "--out", tmp_path / "r", "--record-where", "score_0 >"], "--record-where")
    refused(["simulate", "--games", "10", "--out", tmp_path / "r", "--record-games", "3,x"], "--record-games")
    refused(["simulate", "--games", "10", "--out", tmp_path / "r", "--record-games", "10"], "games 0 .. 9")
    refused(["simulate", "--games", "10", "--out", tmp_path / "r", "--record-games", "1",
             "--record-where", "turns > 3"], "do not combine")
    refused(["simulate", "--games", "10", "--out", tmp_path / "r", "--record", "3", "--record-games", "1"],
            "--record N and --record-games", "give one")
    refused(["match", "greedy", "random", "--max-pairs", "5", "--record-games", "2,5",
             "--record-out", tmp_path / "m.jsonl"], "at most --max-pairs 5", "not 5")
    (tmp_path / "file").write_text("")
    refused(["match", "greedy", "random", "--max-pairs", "5", "--record", "2",
             "--record-out", tmp_path / "file" / "m.jsonl"], "--record-out", "is a file, not a folder")
    assert _tree(tmp_path) == {**before, "file": _tree(tmp_path)["file"]}


def test_record_where_matching_nothing_writes_nothing_and_says_so(tmp_path):
    out = tmp_path / "r"
    code, text, err, exc = run_cli(["simulate", "--games", "20", "--out", str(out), "--quiet",
                                    "--record-where", "score_0 > 1000"])
    assert code == 0, (err, exc)
    assert "no game matched --record-where 'score_0 > 1000': no records written" in err
    assert not (out / "records.jsonl").exists() and "records    " not in text


def test_match_records_only_the_pairs_it_played(tmp_path):
    target = tmp_path / "m.jsonl"
    target.write_text("old\n")
    code, text, err, exc = run_cli(["match", "greedy", "random", "--format", "kasino-2p", "--max-pairs", "3",
                                    "--batch", "3", "--record", "10", "--record-out", str(target)])
    assert code == 0, (err, exc)
    assert f"records of this match will replace {target}" in err
    assert "the match ended after 3 pairs: recording the first 3 of the 10 asked for" in err
    assert [(r["pair"], r["swapped"]) for r in lines(target)] == [(k, s) for k in range(3) for s in (False, True)]
    assert "(6 games: 3 pairs)" in text
    code, text, err, exc = run_cli(["match", "greedy", "random", "--format", "kasino-2p", "--max-pairs", "3",
                                    "--batch", "3", "--record-games", "0", "--record-out", str(target)])
    assert code == 0 and "(2 games: 1 pair)" in text, (text, err)


def test_series_must_hold_whole_series(tmp_path):
    err = refused(["simulate", "--format", "khasino-3p", "--bots", "greedy,random,random", "--series", "7",
                   "--games", "20000", "--out", tmp_path / "r"], "not a multiple of --series 7",
                  "--games 19999 or 20006")
    assert "20,000" in err
    refused(["simulate", "--format", "khasino-3p", "--bots", "greedy,random,random", "--series", "7",
             "--games", "5", "--out", tmp_path / "r"], "use --games 7)")
    assert not (tmp_path / "r").exists()
    with pytest.raises(SimulationError, match="not a multiple"):
        validate(RunSpec(format="khasino-3p", games=10, bots=("greedy", "random", "random"), series=3))
    validate(RunSpec(format="khasino-3p", games=21, bots=("greedy", "random", "random"), series=7))


def test_play_json_is_json_lines_only(tmp_path):
    out = cli("play", "--seed", "3", "--bots", "greedy,random", "--json", "--record", tmp_path / "g.jsonl")
    objs = [json.loads(ln) for ln in out.splitlines()]      # every line one object: `| jq .` works
    assert list(objs[0]) == ["state"] and list(objs[-1]) == ["final"] and list(objs[-2]) == ["state"]
    moves = [o for o in objs if "move" in o]
    assert len(moves) == 40 and all(set(m) == {"seat", "bot", "move", "key"} for m in moves)
    assert [list(o) for o in objs[:-1]] == [["state"], ["seat", "bot", "move", "key"]] * 40 + [["state"]]
    final = objs[-1]["final"]
    assert final["score"] == [s["score"] for s in final["scores"]] and objs[-2]["state"]["over"]
    rec, = lines(tmp_path / "g.jsonl")                      # the same game as a record
    assert rec["rounds"][0]["moves"] == moves and rec["score"] == final["score"] and rec["game"] is None
    text = cli("play", "--seed", "3", "--bots", "greedy,random")   # the text form is unchanged
    assert text.count("  seat 0 (greedy): ") == 20 and "final: seat 0 (greedy)" in text


@pytest.mark.parametrize("fmt", ["cassino", "kasino-2p", "khasino-4p"])
def test_play_json_other_families(fmt):
    objs = [json.loads(ln) for ln in cli("play", "--format", fmt, "--seed", "5", "--json").splitlines()]
    assert "final" in objs[-1] and all(len(o) == 1 or "move" in o for o in objs)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    out = tmp_path_factory.mktemp("rec") / "r"
    cli("simulate", "--games", "50", "--out", out, "--quiet", "--record", "3")
    return out / "records.jsonl"


def test_replay_all_prints_every_position_and_move(recorded):
    rec = lines(recorded)[1]
    text = cli("replay", recorded, "--game", "1", "--all")
    n = len(rec["rounds"][0]["moves"])
    assert text.startswith(f"khasino game 1: seat 0 {rec['bots'][0]}, seat 1 {rec['bots'][1]}")
    assert text.count("-- position ") == n + 1 and f"-- position {n + 1}/{n + 1}: end of the game" in text
    for i, m in enumerate(rec["rounds"][0]["moves"], 1):
        assert f"  move {i}: seat {m['seat']} ({m['bot']}): {m['move']['text']}" in text
    assert f"final: seat 0 ({rec['bots'][0]}) {rec['score'][0]}" in text
    assert cli("replay", recorded, "--game", "1") == text        # stdout not a terminal: the same


def test_replay_steps_from_a_pipe(recorded):
    text = cli("replay", recorded, "--step", "--game", "2", stdin="\nn\np\nb\n12\nxyz\nq\n")
    shown = [ln.split(":")[0] for ln in text.splitlines() if ln.startswith("-- position")]
    assert shown == ["-- position 1/41", "-- position 2/41", "-- position 3/41", "-- position 2/41",
                     "-- position 1/41", "-- position 12/41", "-- position 12/41"]
    assert "unknown command 'xyz'" in text
    ended = cli("replay", recorded, "--step", stdin="99\n\n")      # past the end: the end; end of input: quit
    assert "end of the game" in ended and "(the end of the game; q quits)" in ended


def test_show_a_recorded_position(recorded):
    text = cli("show", recorded, "--game", "0", "--move", "5")
    assert text.startswith("-- position 5/41: before move 5 of 40") and "  move 5: seat" in text
    refused(["show", recorded, "--game", "7"], "no record of game 7")
    refused(["replay", recorded, "--all", "--step"], "give one")


def test_replay_refuses_what_is_not_a_record(tmp_path):
    f = tmp_path / "x.jsonl"
    f.write_text('{"a": 1}\n')
    refused(["replay", f], "line 1 is not a game record")
    refused(["replay", tmp_path / "none.jsonl"], "cannot read")
    state = tmp_path / "s.json"
    state.write_text(json.dumps(engine.new_game("khasino", 1)))
    refused(["show", state, "--move", "3"], "read a records file")


def test_replay_of_a_play_record_says_it_has_no_game_index(tmp_path):
    cli("play", "--seed", "3", "--bots", "greedy,random", "--json", "--record", tmp_path / "g.jsonl")
    refused(["replay", tmp_path / "g.jsonl", "--game", "0"], "no game index", "--line 1 .. 1")


def test_tournament_and_match_record(tmp_path):
    cli("tournament", "--bots", "greedy,random", "--games", "6", "--out", tmp_path / "t", "--record", "2")
    recs = lines(tmp_path / "t" / "records.jsonl")
    assert [(r["game"], r["assignment"]) for r in recs] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    for r in recs:
        row = games_of(tmp_path / "t" / f"assignment-{r['assignment']:04d}").loc[r["game"]]
        assert r["score"] == [row["score_0"], row["score_1"]] and r["bots"] == [row["bot_0"], row["bot_1"]]
    text = cli("match", "greedy", "random", "--format", "kasino-2p", "--max-pairs", "4", "--batch", "4",
               "--record-games", "1,3", "--record-out", tmp_path / "m.jsonl")
    recs = lines(tmp_path / "m.jsonl")
    assert [(r["pair"], r["swapped"], r["bots"]) for r in recs] == [
        (1, False, ["greedy", "random"]), (1, True, ["random", "greedy"]),
        (3, False, ["greedy", "random"]), (3, True, ["random", "greedy"])]
    assert all(len(r["rounds"]) == 2 for r in recs) and "(4 games: 2 pairs)" in text
    # the deal of pair k is game k of a simulate run with the same seed (its rows, seats unrotated)
    out = simulate("kasino-2p", 4, ("greedy", "random"), seed=0, out=tmp_path / "s", rotate=False)
    assert recs[0]["seed"] == str(games_of(out).loc[1, "seed"])
    assert recs[0]["score"] == [int(games_of(out).loc[1, f"score_{s}"]) for s in (0, 1)]


@pytest.mark.parametrize("damage, fragment", [
    (lambda r: r.update(format="nope"), "unknown format 'nope'"),
    (lambda r: r.update(rounds=5), "'rounds' must be a non-empty list"),
    (lambda r: r["rounds"][0].pop("state"), "round 1 has no 'state' object"),
    (lambda r: r["rounds"][0]["moves"][2].update(key=17), "round 1, move 3: 'key' must be a hex string"),
    (lambda r: r["rounds"][0]["moves"][3].update(key="0x1234"), "move 4: key 0x1234 is no legal move"),
    (lambda r: r["rounds"][0]["state"].update(hands=[[], []]), "move 1: its position is not a valid state"),
])
def test_a_damaged_record_is_one_line(recorded, tmp_path, damage, fragment):
    rec = lines(recorded)[0]
    damage(rec)
    f = tmp_path / "bad.jsonl"
    f.write_text(json.dumps(rec) + "\n")
    refused(["replay", f, "--all"], fragment)
    refused(["show", f, "--move", "2"], fragment)


def test_a_binary_or_deeply_nested_file_is_one_line(tmp_path):
    f = tmp_path / "bin.jsonl"
    f.write_bytes(bytes(range(200, 256)) * 40)
    refused(["replay", f], "not UTF-8 text")
    f.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    refused(["replay", f], "nested too deeply")
