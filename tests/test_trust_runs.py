"""Issue 51: a results folder proves what it holds, is written by one process at a time and never through a
symbolic link. Each test reproduces a case reported against the earlier code (a stray or damaged shard read as
if it were the run's, an edited manifest setting the caption, a bot file changed between a kill and --resume,
names breaking report.md, a second process's --force, a tournament written into a simulate run's folder, a full
disk at the first write, report files written through links) and checks the answer is now one line (exit 2)
or the right result."""
import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from tests.test_fuzz_inputs import run_cli
from tests.test_bad_inputs import refused, small_disk
from tests.test_simulate import same_dataset

SIM = ["simulate", "--games", "3000", "--shard-size", "1000", "--seed", "7", "--workers", "1", "--quiet"]


def _run(out):
    code, _, err, _ = run_cli(SIM + ["--out", str(out)])
    assert code == 0, err
    return Path(out)


def _games_line(stdout):
    return next(line for line in stdout.splitlines() if line.startswith("games "))


# ---- the manifest lists every shard -----------------------------------------------------------------------------

def test_a_stray_shard_is_named_and_ignored(tmp_path):
    """A copy of a shard in seats/ counted 1,500 games of a 1,000-game run in report, a re-run and --resume."""
    out = _run(tmp_path / "run")
    (out / "seats" / "copy.parquet").write_bytes((out / "seats" / "part-000000.parquet").read_bytes())
    for args in (SIM + ["--out", str(out)], SIM + ["--out", str(out), "--resume"]):
        code, stdout, err, _ = run_cli(args)
        assert code == 0, err
        assert _games_line(stdout).startswith("games      3,000"), stdout
        assert f"{out / 'seats' / 'copy.parquet'} is not a file of this run" in err, err
    code, _, err, _ = run_cli(["report", str(out)])
    assert code == 0 and "copy.parquet is not a file of this run" in err, err
    assert pd.read_csv(out / "report" / "bots.csv")["played"].tolist() == [3000, 3000]


def test_a_byte_flipped_in_a_data_page_is_found(tmp_path):
    """A byte flipped inside a Parquet data page read back without a word (no checksum)."""
    out = _run(tmp_path / "run")
    part = out / "games" / "part-000001.parquet"
    data = bytearray(part.read_bytes())
    data[len(data) // 3] ^= 0x40
    part.write_bytes(bytes(data))
    refused(["report", out], str(part), "checksum", "--resume")
    code, stdout, err, _ = run_cli(SIM + ["--out", str(out)])
    assert code == 2 and "checksum" in err, (code, err)
    code, _, err, _ = run_cli(SIM + ["--out", str(out), "--resume"])
    assert code == 0 and f"shard 1: {part} is damaged" in err, err
    same_dataset(out, _run(tmp_path / "fresh"))


def test_a_removed_shard_is_missing_not_fewer_games(tmp_path):
    """report exited 0 with the games left under the caption of the whole run."""
    out = _run(tmp_path / "run")
    (out / "games" / "part-000002.parquet").unlink()
    err = refused(["report", out], "part-000002.parquet is missing", "--resume")
    assert not (out / "report").exists()
    code, _, err, _ = run_cli(SIM + ["--out", str(out), "--resume"])
    assert code == 0, err
    same_dataset(out, _run(tmp_path / "fresh"))


def test_an_edited_manifest_is_refused(tmp_path):
    """An edited run.json set the caption (and the counts a resume trusts)."""
    out = _run(tmp_path / "run")
    m = json.loads((out / "run.json").read_text())
    m["spec"]["games"] = 2000
    (out / "run.json").write_text(json.dumps(m, indent=1))
    refused(["report", out], "run.json is damaged", "digest")
    refused(["simulate", "--games", "2000", "--shard-size", "1000", "--seed", "7", "--workers", "1", "--quiet",
             "--out", out], "run.json is damaged")


def test_a_bot_file_changed_before_resume_is_refused(tmp_path):
    """A bot file edited between a kill and --resume mixed two bots under one label."""
    bot = tmp_path / "my_bot.py"
    bot.write_text("def score(view, move):\n    return move[6]\n")
    out = tmp_path / "run"
    args = ["simulate", "--games", "2000", "--shard-size", "1000", "--workers", "1", "--quiet", "--bot-file",
            str(bot), "--bots", "my_bot,random", "--out", str(out)]
    code, _, err, _ = run_cli(args)
    assert code == 0, err
    m = json.loads((out / "run.json").read_text())
    assert list(m["bot_files"].values())[0] == __import__("hashlib").sha256(bot.read_bytes()).hexdigest()
    m["files"].pop("1")                     # as a kill leaves it: shard 1 not yet played
    m["complete"] = False
    from khasino_sim.run_folder import write_manifest
    write_manifest(out, m)
    (out / "games" / "part-000001.parquet").unlink()
    bot.write_text("def score(view, move):\n    return -move[6]\n")
    refused(args + ["--resume"], f"bot file {bot} changed since the run", "--force")
    refused(args, f"bot file {bot} changed since the run")


def test_bot_names_are_escaped_in_report_md(tmp_path):
    """A `|` in a bot file's name broke the Markdown tables of report.md."""
    bot = tmp_path / "a|b_c.py"
    bot.write_text("def score(view, move):\n    return move[6]\n")
    out = tmp_path / "run"
    code, _, err, _ = run_cli(["simulate", "--games", "200", "--workers", "1", "--quiet", "--bot-file", str(bot),
                               "--bots", "a|b_c,random", "--out", str(out)])
    assert code == 0, err
    code, _, err, _ = run_cli(["report", str(out)])
    assert code == 0, err
    md = (out / "report" / "report.md").read_text()
    assert "a\\|b" in md, md
    tables, current = [], []
    for line in md.splitlines() + [""]:
        if line.startswith("|"):
            current.append(line.replace("\\|", "").count("|"))
        elif current:
            tables.append(current)
            current = []
    assert tables and all(len(set(t)) == 1 for t in tables), tables


# ---- one writer per folder ---------------------------------------------------------------------------------------

def _wait_for(path, process, seconds=180):
    t = time.monotonic()
    while not path.exists():
        assert process.poll() is None, f"the first run ended: {process.stderr.read()[-2000:]}"
        assert time.monotonic() - t < seconds, f"{path} never appeared"
        time.sleep(0.1)


def test_a_second_process_cannot_force_a_running_run_and_a_dead_ones_lock_is_free(tmp_path):
    """A --force from a second process deleted the first one's finished shards and left it unresumable."""
    out = tmp_path / "run"
    args = ["simulate", "--games", "400000", "--shard-size", "2000", "--workers", "1", "--seed", "3", "--quiet",
            "--out", str(out)]
    first = subprocess.Popen([sys.executable, "-m", "khasino_sim.cli"] + args, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(out / "games" / "part-000000.parquet", first)
        refused(args + ["--force"], "another khasino process is writing there", f"pid {first.pid}")
        refused(args + ["--resume"], "another khasino process is writing there")
        assert (out / "games" / "part-000000.parquet").exists()
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=60)
    small = ["simulate", "--games", "6000", "--shard-size", "2000", "--workers", "1", "--seed", "3", "--quiet"]
    code, _, err, _ = run_cli(small + ["--out", str(out), "--force"])      # the dead owner's lock is free
    assert code == 0, err
    code, _, err, _ = run_cli(small + ["--out", str(tmp_path / "fresh")])
    same_dataset(out, tmp_path / "fresh")


@pytest.mark.parametrize("kind", ["simulate", "balance"])
def test_a_tournament_refuses_another_kind_of_folder(tmp_path, kind):
    """`tournament` wrote into a simulate or balance folder without --force."""
    out = tmp_path / "x"
    if kind == "simulate":
        _run(out)
    else:
        code, _, err, _ = run_cli(["balance", "--vary", "follow_ups=true,false", "--games", "50", "--workers", "1",
                                   "--quiet", "--out", str(out)])
        assert code == 0, err
    before = sorted(p.name for p in out.iterdir())
    refused(["tournament", "--bots", "greedy,random", "--games", "20", "--out", out], "not a tournament",
            "--force")
    assert sorted(p.name for p in out.iterdir()) == before
    code, _, err, _ = run_cli(["tournament", "--bots", "greedy,random", "--games", "20", "--out", str(out),
                               "--force"])
    assert code == 0, err
    assert not (out / "run.json").exists() and not (out / "balance.json").exists()


def test_simulate_and_balance_refuse_another_kind_of_folder(tmp_path):
    t = tmp_path / "t"
    code, _, err, _ = run_cli(["tournament", "--bots", "greedy,random", "--games", "20", "--out", str(t)])
    assert code == 0, err
    refused(SIM + ["--out", t], "holds a tournament, not a simulate run", "--force")
    refused(["balance", "--vary", "follow_ups=true,false", "--games", "50", "--out", t],
            "holds a tournament, not a balance study", "--force")
    run = _run(tmp_path / "r")
    refused(["balance", "--vary", "follow_ups=true,false", "--games", "50", "--out", run],
            "holds a simulate run, not a balance study", "--force")


# ---- a full disk at the first write ------------------------------------------------------------------------------

def _dev_full(monkeypatch):
    """Every file khasino_sim.files writes whole goes to /dev/full (ENOSPC), as on a full disk; the temporary
    file beside it is made as usual, so what is left behind is what a full disk leaves."""
    from khasino_sim import files
    real = files._temporary

    def temporary(path):
        fd, tmp = real(path)
        os.close(fd)
        return os.open("/dev/full", os.O_WRONLY), tmp
    monkeypatch.setattr(files, "_temporary", temporary)


@pytest.mark.parametrize("command", [
    SIM,
    ["tournament", "--bots", "greedy,random", "--games", "30"],
    ["balance", "--vary", "follow_ups=true,false", "--games", "30", "--workers", "1", "--quiet"],
])
def test_a_full_disk_at_the_first_write_leaves_a_folder_that_finishes(tmp_path, monkeypatch, command):
    """A full disk at the start left a 0-byte .run.json.tmp (or tournament.json) after which neither a re-run
    nor --resume worked; tournament and balance said "no space left" with no path or hint."""
    out = tmp_path / "out"
    _dev_full(monkeypatch)
    err = refused(command + ["--out", out], "no space left on the device", str(out), "--resume")
    monkeypatch.undo()
    assert not [p for p in out.rglob("*") if p.is_file() and p.stat().st_size == 0 and p.name != ".khasino.lock"]
    code, _, err, _ = run_cli(command + ["--out", str(out), "--resume"])
    assert code == 0, err
    code, _, err, _ = run_cli(command + ["--out", str(out)])
    assert code == 0 or "--resume" in err, err


def test_a_full_small_file_system_at_the_start(tmp_path):
    """The same on a real file system that is full before the run starts (root only: a 64 KiB tmpfs)."""
    with small_disk(tmp_path, "64k") as disk:
        out = disk / "run"
        out.mkdir()
        filler = disk / "filler"
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
        try:
            while True:
                os.write(fd, b"x" * 4096)
        except OSError as e:
            assert e.errno == errno.ENOSPC
        finally:
            os.close(fd)
        refused(SIM + ["--out", out], "no space left on the device", "--resume")
        assert not list(out.glob(".run.json.tmp*")), list(out.iterdir())
        filler.unlink()
        subprocess.run(["mount", "-o", "remount,size=4m", str(disk)], check=True)
        for args in (SIM + ["--out", str(out), "--resume"], SIM + ["--out", str(out)]):
            code, _, err, _ = run_cli(args)
            assert code == 0, err


# ---- never through a symbolic link --------------------------------------------------------------------------------

def test_report_never_writes_through_a_link(tmp_path):
    """`ln -s VICTIM RUN/report; khasino report RUN` overwrote VICTIM/report.md; a linked report.md too."""
    out = _run(tmp_path / "run")
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "report.md").write_text("precious")
    (out / "report").symlink_to(victim)
    refused(["report", out], f"{out / 'report'}", "symbolic link")
    assert (victim / "report.md").read_text() == "precious" and sorted(os.listdir(victim)) == ["report.md"]
    (out / "report").unlink()
    (out / "report").mkdir()
    (out / "report" / "report.md").symlink_to(victim / "report.md")
    refused(["report", out], "report.md", "symbolic link")
    assert (victim / "report.md").read_text() == "precious"


def test_runs_never_write_through_a_link(tmp_path):
    victim = tmp_path / "victim"
    victim.mkdir()
    link = tmp_path / "link"
    link.symlink_to(victim)
    refused(SIM + ["--out", link], "symbolic link")
    out = _run(tmp_path / "run")
    (out / "games").rename(tmp_path / "moved")
    (out / "games").symlink_to(victim)
    refused(SIM + ["--out", out, "--resume"], "symbolic link")
    assert not list(victim.iterdir())
    t = tmp_path / "t"
    tour = ["tournament", "--bots", "greedy,random", "--games", "20", "--out", str(t)]
    code, _, err, _ = run_cli(tour)
    assert code == 0, err
    (t / "assignment-0001").rename(tmp_path / "moved-1")
    (t / "assignment-0001").symlink_to(victim)
    code, _, err, _ = run_cli(tour + ["--resume"])
    assert code == 2 and err.splitlines()[-1].startswith(f"Error: {t / 'assignment-0001'} is a symbolic link"), err
    assert not list(victim.iterdir())
    code, _, err, _ = run_cli(tour + ["--force"])        # --force removes the link, never what it points to
    assert code == 0 and not (t / "assignment-0001").is_symlink(), err


def test_a_removed_table_folder_is_named_with_what_to_do(tmp_path):
    """A removed seats/ folder was reported as a bare path ("Error: RUN/seats")."""
    out = _run(tmp_path / "run")
    for p in (out / "seats").iterdir():
        p.unlink()
    (out / "seats").rmdir()
    err = refused(["report", out], f"{out / 'seats' / 'part-000000.parquet'} is missing", "--resume")
    assert err != f"Error: {out / 'seats'}"


# ---- after review: what the first answer missed ------------------------------------------------------------------

def test_a_run_of_many_shards_writes_its_manifest_once_not_per_shard(tmp_path, monkeypatch):
    """Rewriting run.json after every shard made a run of many small shards quadratic (40,000 games in shards
    of 10: 150 s against 22 s): finished shards go to an append-only journal, folded into run.json at the end."""
    from khasino_sim import run_folder
    from khasino_sim.runs import simulate
    writes = []
    real = run_folder.write_manifest
    monkeypatch.setattr(run_folder, "write_manifest", lambda *a, **k: writes.append(1) or real(*a, **k))
    out = simulate(games=2000, shard_size=10, workers=1, out=tmp_path / "run")
    assert len(writes) <= 3, len(writes)
    assert not (out / run_folder.JOURNAL).exists()
    assert len(json.loads((out / "run.json").read_text())["files"]) == 200


def test_a_journal_cut_short_by_a_kill_resumes(tmp_path):
    """A kill while a journal line is written leaves it cut short: that shard is played again."""
    from khasino_sim import run_folder
    out = _run(tmp_path / "run")
    m = json.loads((out / "run.json").read_text())
    files_ = m["files"]
    m.update(files={}, complete=False)
    run_folder.write_manifest(out, m)
    with run_folder.Journal(out) as journal:
        for k in ("0", "1"):
            journal.add(k, files_[k])
    with open(out / run_folder.JOURNAL, "a") as f:
        f.write('{"shard": 2, "files": {"ga')
    refused(["report", out], "unfinished run (2 of 3 shards played)", "--resume")
    code, _, err, _ = run_cli(SIM + ["--out", str(out), "--resume"])
    assert code == 0, err
    same_dataset(out, _run(tmp_path / "fresh"))


def test_a_shard_listed_as_another_is_found_even_with_the_digest_recomputed(tmp_path):
    """A shard copied over another, its listing copied and the manifest's digest recomputed, counted games
    1,000-1,999 twice: each file's own stamp (shard, first game, seed, bots) must match its listing."""
    from khasino_sim import run_folder
    out = _run(tmp_path / "run")
    for table in ("games", "seats"):
        (out / table / "part-000002.parquet").write_bytes((out / table / "part-000001.parquet").read_bytes())
    m = json.loads((out / "run.json").read_text())
    m["files"]["2"] = m["files"]["1"]
    run_folder.write_manifest(out, m)
    refused(["report", out], "part-000002.parquet is written as another shard or run's (its shard is 1, not 2)")


def test_force_removes_only_what_khasino_wrote(tmp_path):
    """--force removed a user's files by name (games/mydata.csv, records.jsonl, variants/, assignment-0001/)."""
    out = tmp_path / "mine"
    (out / "games").mkdir(parents=True)
    (out / "games" / "mydata.csv").write_text("mine")
    (out / "records.jsonl").write_text("mine")
    (out / "variants" / "x").mkdir(parents=True)
    (out / "assignment-0001").mkdir()
    (out / "notes.txt").write_text("mine")
    before = sorted(str(p.relative_to(out)) for p in out.rglob("*"))
    code, _, err, _ = run_cli(SIM + ["--out", str(out), "--force"])
    assert code == 0, err
    after = {str(p.relative_to(out)) for p in out.rglob("*")}
    assert set(before) <= after, sorted(set(before) - after)
    run = _run(tmp_path / "run")                       # ours: a run folder's files all go, a report too
    code, _, err, _ = run_cli(["report", str(run)])
    code, _, err, _ = run_cli(["tournament", "--bots", "greedy,random", "--games", "20", "--out", str(run),
                               "--force"])
    assert code == 0, err
    assert sorted(p.name for p in run.iterdir()) == [".khasino.lock", "assignment-0000", "assignment-0001",
                                                    "tournament.json"]


def test_a_refused_start_leaves_no_lock_in_the_users_folder(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    refused(SIM + ["--out", out], "is not empty and holds no simulate run")
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]


def test_the_lock_owner_is_shown_without_control_characters(tmp_path):
    from khasino_sim.files import FolderLock
    out = tmp_path / "run"
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time\nfrom khasino_sim.files import FolderLock\n"
                               f"with FolderLock({str(out)!r}, 'khasino simulate \\x1b]0;TITLE\\x07'):\n"
                               "    print('held', flush=True); time.sleep(60)"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        err = refused(SIM + ["--out", out], "another khasino process is writing there", f"pid {holder.pid}")
        assert "\x1b" not in err and "\x07" not in err and "]0;TITLE" in err
    finally:
        holder.kill()
        holder.wait(timeout=60)
    with FolderLock(out):               # its owner is dead: the lock is free
        pass


def test_a_lock_is_released_whatever_the_working_folder_became(tmp_path, monkeypatch):
    """A bot's os.chdir during a run made the lock's release fail (KeyError) and leak its descriptor."""
    from khasino_sim.files import FolderLock
    monkeypatch.chdir(tmp_path)
    lock = FolderLock("rel")
    with lock:
        (tmp_path / "elsewhere").mkdir()
        os.chdir(tmp_path / "elsewhere")
    assert not FolderLock._held
