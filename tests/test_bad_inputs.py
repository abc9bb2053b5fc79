"""The fixed corpus of the worst inputs and faults (issue 35): each answered with one line and exit code 2,
nothing lost. Positions (tests/fixtures/bad_inputs/), broken bot files (tests/fixtures/bad_bots/), output
paths that are files or read-only, damaged run folders, a disk that fills up mid-run, options out of range.
Generated cases are in tests/test_fuzz_inputs.py."""
import contextlib
import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from khasino_sim import run_folder, storage
from khasino_sim.runs import simulate
from tests.test_fuzz_inputs import assert_clean_refusal, run_cli, _tree
from tests.test_simulate import same_dataset

FIXTURES = Path(__file__).parent / "fixtures"
BAD_INPUTS = FIXTURES / "bad_inputs"
BAD_BOTS = FIXTURES / "bad_bots"


def refused(args, *fragments, stdin=None):
    """Run the CLI in this process; assert a clean refusal whose line holds every fragment. Returns it."""
    code, out, err, exc = run_cli([str(a) for a in args], stdin=stdin)
    assert_clean_refusal(args, code, out, err, exc)
    for f in fragments:
        assert f in err, f"{args}: {f!r} not in {err!r}"
    return err.strip()


# ---- positions ------------------------------------------------------------------------------------------------

POSITIONS = {
    "deep_nesting.json": "nested more than 16 deep",
    "deep_object.json": "nested more than 16 deep",
    "not_utf8.json": "not UTF-8 text: byte 0xff",
    "huge_integer.json": "an integer of 5001 digits",
    "nan.json": "NaN is not a JSON number",
    "infinity.json": "-Infinity is not a JSON number",
    "not_an_object.json": "a state must be a JSON object",
    "empty.json": "malformed JSON",
    "kasino_round_past_match.json": "'round' must be an integer in 1..2, not 99",
    "kasino_score_overflow.json": "an integer of 31 digits",
    "cassino_score_overflow.json": "an integer of 19 digits",
    "long_card_name.json": "unknown card",
    "duplicate_card.json": "appears twice",
    "wrong_seat_count.json": "hands must hold 4 lists",
    "seat_overflow.json": "an integer of 20 digits",
}


@pytest.mark.parametrize("name", sorted(POSITIONS))
@pytest.mark.parametrize("command", ["moves", "show"])
def test_corpus_position_is_refused(name, command):
    err = refused([command, BAD_INPUTS / name], POSITIONS[name])
    assert len(err) < 300, err          # one short line, whatever the input held


def test_corpus_position_from_stdin():
    refused(["moves", "-"], "not UTF-8", stdin=(BAD_INPUTS / "not_utf8.json").read_bytes())


@pytest.mark.parametrize("fmt, key, value, fragment", [
    ("cassino", "promises", 5, "has no promises"),
    ("cassino-4p", "promises", True, "has no promises"),
    ("khasino", "promises", {"a": 1}, "promises"),
    ("khasino-4p", "decision", [1], "decision"),
    ("kasino-3p", "tabbe", 7, "tabbe must be"),
])
def test_a_field_of_the_wrong_type_from_another_family(fmt, key, value, fragment):
    from khasino_sim import engine
    refused(["moves", "-"], fragment, stdin=json.dumps({**engine.new_game(fmt, seed=1), key: value}))


def test_endless_and_huge_inputs_are_cut_off(tmp_path):
    if os.path.exists("/dev/zero"):
        refused(["moves", "/dev/zero"], "larger than 1 MiB")
    big = tmp_path / "big.json"
    big.write_text('{"format": "khasino", "pad": "' + "x" * (2 << 20) + '"}')
    refused(["show", big], "larger than 1 MiB")


def test_unreadable_state_paths(tmp_path):
    refused(["moves", tmp_path], "cannot read", "directory")
    refused(["moves", tmp_path / "none.json"], "cannot read", "No such file")


def test_api_refuses_integers_no_state_holds():
    from khasino_sim import engine
    from khasino_sim.state_json import StateError, parse
    state = engine.new_game("kasino-2p", seed=1)
    for key, value in (("scores", [2**70, 0]), ("round", 2**64), ("rounds", 10**20), ("deal", 2**63)):
        with pytest.raises(StateError):
            parse({**state, key: value})


# ---- broken bot files -----------------------------------------------------------------------------------------

BOT_FAULTS = {      # the file: what its one line says
    "raise_bot.py": "raised RuntimeError: boom (line 2)",
    "str_bot.py": "returned 'high' (str), not an integer",
    "nan_bot.py": "returned nan (float), not an integer",
    "none_bot.py": "returned None (NoneType), not an integer",
    "oob_bot.py": "raised IndexError: index 1000000 is out of bounds",
    "njit_oob_bot.py": "raised IndexError: index 1000",
    "njit_raise_bot.py": "raised ValueError: too high (line 5)",
    "late_raise_bot.py": "raised ZeroDivisionError",
    "mutate_bot.py": "raised ValueError: assignment destination is read-only (line 2)",
}
BOT_LOAD_FAULTS = {
    "args_bot.py": "score must take two arguments, score(view, move); it is score(view)",
    "njit_args_bot.py": "score must take two arguments",
    "njit_nan_bot.py": "returns float64; it must return an integer",
    "syntax_bot.py": "failed to load: SyntaxError",
    "missing_bot.py": "does not exist",
    "njit_mutate_bot.py": "it writes to view or move, which it may only read",
    "async_bot.py": "score must be a plain function returning an integer, not an async function",
}


@pytest.mark.parametrize("name", sorted(BOT_FAULTS))
def test_a_failing_bot_stops_the_run_with_its_first_error(name, tmp_path):
    bot = BAD_BOTS / name
    out = tmp_path / "run"
    err = refused(["simulate", "--bot-file", bot, "--bots", f"{bot.stem},greedy", "--games", "4000",
                   "--shard-size", "2000", "--workers", "1", "--out", out, "--quiet"],
                  f"bot file {bot}", "score(view, move)", BOT_FAULTS[name], "scoring", "for seat", "holding",
                  "the run stopped")
    assert "(deal 2)" in err if name == "late_raise_bot.py" else True
    # the chunk being played when the bot failed is not written: no shard holds a game of the broken bot
    assert not list((out / "games").glob("part-*"))


@pytest.mark.parametrize("name", sorted(BOT_LOAD_FAULTS))
@pytest.mark.parametrize("command", ["simulate", "play", "match", "tournament"])
def test_a_bot_file_that_cannot_load_is_refused_before_anything_runs(name, command, tmp_path):
    bot = BAD_BOTS / name
    args = {"simulate": ["simulate", "--bots", f"{bot.stem},greedy", "--games", "10", "--out", tmp_path / "r"],
            "play": ["play", "--bots", f"{bot.stem},greedy"],
            "match": ["match", bot.stem, "greedy", "--max-pairs", "10"],
            "tournament": ["tournament", "--bots", f"{bot.stem},greedy", "--games", "10", "--out", tmp_path / "t"],
            }[command]
    before = _tree(tmp_path)
    refused(args[:1] + ["--bot-file", bot] + args[1:], BOT_LOAD_FAULTS[name])
    assert _tree(tmp_path) == before


@pytest.mark.parametrize("command, fmt", [("play", "khasino"), ("match", "kasino-2p"), ("match", "cassino-4p")])
def test_failing_bot_in_play_and_match(command, fmt):
    bot = BAD_BOTS / "oob_bot.py"
    args = (["play", "--format", fmt, "--bots", "oob_bot,greedy"] if command == "play" else
            ["match", "oob_bot", "greedy", "--format", fmt, "--max-pairs", "20"])
    refused(args[:1] + ["--bot-file", bot] + args[1:], "raised IndexError", "the run stopped")


def test_a_compiled_bot_out_of_bounds_is_one_line_in_a_real_process(tmp_path):
    """Without bounds checks this bot read past the view and crashed the process (SIGSEGV)."""
    bot = BAD_BOTS / "njit_oob_bot.py"
    r = subprocess.run([sys.executable, "-m", "khasino_sim", "simulate", "--bot-file", str(bot), "--bots",
                        "njit_oob_bot,greedy", "--games", "200", "--out", str(tmp_path / "r"), "--quiet"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 2, r.stderr[-2000:]
    assert len(r.stderr.strip().splitlines()) == 1 and "raised IndexError" in r.stderr


def test_after_a_fault_the_same_bot_file_plays_again_in_the_process(tmp_path):
    """A fault is raised once: the next run in the same process starts clean."""
    from khasino_sim.userbots import UserBotError
    bot = tmp_path / "flaky_bot.py"
    bot.write_text("def score(view, move):\n    return 1 // int(move[0] != 4)\n")
    with pytest.raises(UserBotError, match="ZeroDivisionError"):
        simulate(games=200, bots=(f"file:{bot}", "greedy"), out=tmp_path / "a", workers=1)
    with pytest.raises(UserBotError, match="ZeroDivisionError"):
        simulate(games=200, bots=(f"file:{bot}", "greedy"), out=tmp_path / "a", workers=1, force=True)
    good = tmp_path / "good_bot.py"
    good.write_text("def score(view, move):\n    return 0\n")
    simulate(games=50, bots=(f"file:{good}", "greedy"), out=tmp_path / "b", workers=1)


# ---- output paths ---------------------------------------------------------------------------------------------

def test_output_paths_that_are_files(tmp_path):
    f = tmp_path / "a-file"
    f.write_text("x")
    run = tmp_path / "run"
    simulate(games=20, out=run, workers=1)
    before = _tree(tmp_path)
    refused(["simulate", "--games", "10", "--out", f], "--out", "is a file, not a folder")
    refused(["simulate", "--games", "10", "--out", f / "below"], "is a file, not a folder")
    refused(["tournament", "--bots", "greedy,random", "--games", "5", "--out", f], "--out", "is a file")
    refused(["tournament", "--bots", "greedy,random", "--games", "5", "--out", tmp_path / "t", "--report", f],
            "--report", "is a file")
    refused(["balance", "--vary", "follow_ups=true,false", "--games", "5", "--out", f], "--out", "is a file")
    refused(["balance", "--vary", "follow_ups=true,false", "--games", "5", "--out", tmp_path / "b",
             "--report", f], "--report", "is a file")
    refused(["report", run, "--out", f], "--out", "is a file")
    refused(["report", f], "is a file")
    refused(["bench", "--quick", "--formats", "khasino", "--pairings", "random-random", "--games", "10",
             "--ref-games", "0", "--repeats", "1", "--json", f / "r.json"], "--json", "is a file, not a folder")
    assert _tree(tmp_path) == before


@pytest.fixture
def read_only(tmp_path):
    """A folder nobody may write in: a read-only mount for root (who ignores permissions), else chmod."""
    folder = tmp_path / "ro"
    folder.mkdir()
    if os.geteuid() != 0:
        folder.chmod(0o555)
        yield folder
        folder.chmod(0o755)
        return
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(folder)],
                      capture_output=True).returncode:
        pytest.skip("cannot mount a read-only file system here")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], capture_output=True)


def test_read_only_output_folders(read_only, tmp_path):
    run = tmp_path / "run"
    simulate(games=20, out=run, workers=1)
    for args in (["simulate", "--games", "10", "--out", read_only / "r"],
                 ["tournament", "--bots", "greedy,random", "--games", "5", "--out", read_only / "t"],
                 ["balance", "--vary", "follow_ups=true,false", "--games", "5", "--out", read_only / "b"],
                 ["report", run, "--out", read_only / "rep"]):
        refused(args, "is not writable")


# ---- damaged run folders --------------------------------------------------------------------------------------

def _run(out, games=3000):
    return simulate(games=games, bots=("greedy", "random"), seed=11, out=out, shard_size=1000, workers=1)


def test_garbage_manifest(tmp_path):
    out = _run(tmp_path / "run")
    (out / "run.json").write_text("garbage{")
    refused(["report", out], "run.json is damaged: not JSON")
    err = refused(["simulate", "--games", "3000", "--seed", "11", "--shard-size", "1000", "--out", out,
                   "--resume", "--quiet"], "run.json is damaged", "--force")
    code, _, err, _ = run_cli(["simulate", "--games", "3000", "--seed", "11", "--shard-size", "1000", "--out",
                               str(out), "--force", "--quiet"])
    assert code == 0, err
    same_dataset(out, _run(tmp_path / "fresh"))
    for folder, name in ((tmp_path / "t", "tournament.json"), (tmp_path / "b", "balance.json")):
        folder.mkdir()
        (folder / name).write_text("[1, 2")
        refused(["report", folder], f"{name} is damaged")
    (tmp_path / "t" / "tournament.json").write_text('{"format": "khasino"}')
    refused(["report", tmp_path / "t"], "tournament.json has no digest", "--force")
    run_folder.write_manifest(tmp_path / "t", {"format": "khasino"}, "tournament.json")     # signed, yet not one
    refused(["report", tmp_path / "t"], "tournament.json is damaged: not a tournament's manifest")
    for study in ({"variants": [], "spec": m_spec(out)}, {"variants": [{"name": 1, "label": "x"}], "spec": m_spec(out)},
                  {"variants": [{"name": "v0", "label": "x"}], "spec": {**m_spec(out), "format": "nope"}}):
        run_folder.write_manifest(tmp_path / "b", study, "balance.json")
        refused(["report", tmp_path / "b"], "balance.json is damaged: not a balance study's manifest")
    refused(["tournament", "--bots", "greedy,random", "--games", "5", "--out", tmp_path / "t", "--resume"],
            "tournament.json is damaged")


@pytest.mark.parametrize("spec", [{"format": "nope"}, {"bots": 5}, {"options": [1]}, {"options": {"x": 1}},
                                  {"games": "many"}])
def test_a_manifest_whose_spec_is_damaged(tmp_path, spec):
    out = _run(tmp_path / "run", games=200)
    m = json.loads((out / "run.json").read_text())
    m["spec"].update(spec)
    (out / "run.json").write_text(json.dumps(m))
    refused(["report", out], "run.json is damaged: its content does not match its digest")
    run_folder.write_manifest(out, m)               # signed by the tool, yet not a run's spec
    refused(["report", out], "run.json is damaged: its spec is not a run's")


@pytest.mark.parametrize("sub", ["games", "seats"])
def test_a_removed_results_folder_is_played_again(tmp_path, sub):
    out = _run(tmp_path / "run")
    for p in (out / sub).iterdir():
        p.unlink()
    (out / sub).rmdir()
    (out / "games" if sub == "seats" else out / "seats").joinpath("part-x.parquet").write_text("stray")
    simulate(games=3000, bots=("greedy", "random"), seed=11, out=out, shard_size=1000, workers=1, resume=True)
    for p in out.rglob("part-x.parquet"):
        p.unlink()
    same_dataset(out, _run(tmp_path / "fresh"))


def test_results_folders_swapped(tmp_path):
    """Every file reads back, but games/ holds the seats tables and seats/ the games': not the files listed."""
    out = _run(tmp_path / "run", games=200)
    (out / "games").rename(out / "tmp")
    (out / "seats").rename(out / "games")
    (out / "tmp").rename(out / "seats")
    refused(["report", out], str(out / "games" / storage.part_name(0)), "bytes where", "were written", "--resume")


@pytest.mark.parametrize("change", [{"bots": 5}, {"format": "nope"}, {"games": "many"}, {"assignments": []},
                                    {"assignments": [[0, 7]]}, {"options": [1]}])
def test_a_tournament_manifest_whose_fields_are_damaged(tmp_path, change):
    out = tmp_path / "t"
    code, _, err, _ = run_cli(["tournament", "--bots", "greedy,random", "--games", "20", "--out", str(out)])
    assert code == 0, err
    meta = json.loads((out / "tournament.json").read_text())
    run_folder.write_manifest(out, {**meta, **change}, "tournament.json")
    refused(["report", out], "tournament.json is damaged: not a tournament's manifest")


def test_an_unreachable_dask_scheduler_leaves_nothing(tmp_path):
    pytest.importorskip("distributed")
    refused(["simulate", "--games", "10", "--dask", "tcp://127.0.0.1:9", "--out", tmp_path / "r"],
            "cannot reach the Dask scheduler")
    assert not (tmp_path / "r").exists()


def test_bench_json_that_is_a_folder(tmp_path):
    refused(["bench", "--quick", "--json", tmp_path], "is a folder")


def test_an_empty_output_name(tmp_path):
    refused(["simulate", "--games", "10", "--out", "", "--force"], "--out needs a folder")


def m_spec(out):
    return json.loads((Path(out) / "run.json").read_text())["spec"]


@pytest.mark.parametrize("sub", ["games", "seats"])
def test_a_truncated_shard_is_named_and_played_again(tmp_path, sub):
    out = _run(tmp_path / "run")
    part = out / sub / storage.part_name(1)
    part.write_bytes(part.read_bytes()[:200])
    refused(["report", out], f"{part} is 200 bytes where", "--resume")
    code, _, err, _ = run_cli(["simulate", "--games", "3000", "--seed", "11", "--shard-size", "1000", "--out",
                               str(out), "--resume", "--quiet"])
    assert code == 0 and f"shard 1: {part} is 200 bytes where" in err and "playing it again" in err, err
    assert len(run_folder.verified_tables(out, sub)) == 3
    same_dataset(out, _run(tmp_path / "fresh"))


def test_a_shard_with_rows_missing_is_played_again(tmp_path):
    out = _run(tmp_path / "run")
    part = out / "seats" / storage.part_name(2)
    pq.write_table(pq.read_table(part).slice(0, 10), part)
    said = []
    simulate(games=3000, bots=("greedy", "random"), seed=11, out=out, shard_size=1000, workers=1, resume=True,
             log=said.append)
    assert said and said[0].startswith(f"shard 2: {part} is ") and said[0].endswith("; playing it again"), said
    same_dataset(out, _run(tmp_path / "fresh"))


# ---- a full disk ----------------------------------------------------------------------------------------------

SIM = ["simulate", "--games", "60000", "--shard-size", "10000", "--workers", "1", "--seed", "5", "--quiet"]


def _check_full_then_resume(out, tmp_path, free):
    """The run fails on the full disk with one line, keeps its finished shards, and once `free()` makes room,
    --resume finishes the same dataset as an undisturbed run."""
    err = refused(SIM + ["--out", out], "no space left on the device", "--resume")
    assert len(err.splitlines()) == 1
    kept = set(run_folder.listed(run_folder.read_manifest(out)))
    assert not list(Path(out).rglob(".part-*")), "temporary files left behind"
    free()
    code, _, err, _ = run_cli(SIM + ["--out", str(out), "--resume"])
    assert code == 0, err
    assert set(run_folder.listed(run_folder.read_manifest(out))) >= kept
    fresh = tmp_path / "fresh"
    run_cli(SIM + ["--out", str(fresh)])
    same_dataset(out, fresh)


def test_disk_full_injected(tmp_path, monkeypatch):
    """ENOSPC from the Parquet writer after a few row groups, as a full disk gives it (any machine)."""
    real = pq.ParquetWriter.write_table
    calls = {"n": 0, "full": True}

    def write_table(self, *a, **k):
        calls["n"] += 1
        if calls["full"] and calls["n"] > 25:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, *a, **k)
    monkeypatch.setattr(pq.ParquetWriter, "write_table", write_table)
    _check_full_then_resume(tmp_path / "run", tmp_path, lambda: calls.update(full=False))


@contextlib.contextmanager
def small_disk(tmp_path, size):
    """A real tmpfs of `size` (e.g. "1m") mounted at tmp_path/disk for the block, unmounted after (root only:
    the test is skipped elsewhere); `remount,size=...` grows it."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(disk)],
                                           capture_output=True).returncode:
        pytest.skip("needs root to mount a small tmpfs")
    try:
        yield disk
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True)


def test_disk_full_on_a_small_file_system(tmp_path):
    """A real 1 MiB tmpfs (root only): the run stops when it fills, and resumes once the mount is grown."""
    with small_disk(tmp_path, "1m") as disk:
        _check_full_then_resume(disk / "run", tmp_path, lambda: subprocess.run(
            ["mount", "-o", "remount,size=64m", str(disk)], check=True))


# ---- options --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("args, fragment", [
    (["simulate", "--set", "max_builds_owned=99999999999999999999"], "must be in 0..14"),
    (["simulate", "--set", "max_builds_owned=15"], "must be in 0..14"),
    (["simulate", "--set", "next_deal_leader=3"], "must be in 0..2"),
    (["simulate", "--format", "kasino-2p", "--set", "tabbe_value=51"], "must be in 1..50"),
    (["simulate", "--format", "kasino-3p", "--set", "match_rounds=4"], "multiple of 3"),
    (["balance", "--vary", "max_builds_owned=1,999999999999999999999"], "must be in 0..14"),
    (["match", "greedy", "random", "--sprt", "elo0=nan,elo1=10"], "elo0 must be a finite"),
    (["match", "greedy", "random", "--sprt", "elo0=0,elo1=inf"], "elo1 must be a finite"),
    (["match", "greedy", "random", "--sprt", "elo0=0"], "needs both elo0 and elo1"),
    (["match", "greedy", "random", "--sprt", "elo0=0,elo1=10,beta=nan"], "alpha and beta"),
    (["bench", "--tolerance", "nan"], "tolerance"),
])
def test_options_out_of_range(args, fragment, tmp_path):
    before = _tree(tmp_path)
    refused(args, fragment)
    assert _tree(tmp_path) == before
