"""`khasino simulate` and `khasino_sim.simulate`: dataset contents, determinism across workers, shard sizes
and backends, atomic shards and resume after a real kill -9, refusal to overwrite, bad input, Dask."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from khasino_sim import ENGINE_VERSION
from khasino_sim.runs import simulate, SimulationError, RunSpec
from khasino_sim.engine import play_game


def khasino(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "khasino_sim", *args], capture_output=True, text=True,
                          timeout=timeout)


def games_table(out):
    return pd.read_parquet(Path(out) / "games").sort_values("game", ignore_index=True)


def seats_table(out):
    return pd.read_parquet(Path(out) / "seats").sort_values(["game", "seat"], ignore_index=True)


def same_dataset(a, b):
    pd.testing.assert_frame_equal(games_table(a), games_table(b))
    pd.testing.assert_frame_equal(seats_table(a), seats_table(b))


def test_rows_schema_and_stamps(tmp_path):
    out = simulate(games=3000, bots=("greedy", "random"), seed=42, out=tmp_path / "r", shard_size=1000,
                   workers=2, command="test")
    g, s = games_table(out), seats_table(out)
    assert len(g) == 3000 and g["game"].tolist() == list(range(3000)) and len(s) == 6000
    assert (g["score_0"].astype(int) + g["score_1"] == 11).all()
    assert (g["turns"] == 40).all()
    # rotation: every bot plays every seat equally often
    assert s.groupby(["bot", "seat"], observed=True).size().tolist() == [1500] * 4
    assert str(g["bot_0"].dtype) == "category" and str(g["format"].dtype) == "category"
    assert g["game"].dtype == np.uint32 and s["score"].dtype == np.int8 and s["cards"].dtype == np.uint8
    assert ((s["won"]) == (s["score"] > 5)).all()
    # a game's row is the game the engine plays from that seed
    row = g.iloc[1234]
    bots = (str(row["bot_0"]), str(row["bot_1"]))
    ref = play_game("khasino", int(row["seed"]), bots)
    assert [row["score_0"], row["score_1"]] == [x["score"] for x in ref["seats"]]
    for part in (Path(out) / "games").glob("*.parquet"):
        meta = json.loads(pq.read_schema(part).metadata[b"khasino"])
        assert meta["engine_version"] == ENGINE_VERSION and meta["root_seed"] == 42
        assert meta["command"] == "test" and len(meta["rules_hash"]) == 16
        assert pq.ParquetFile(part).metadata.row_group(0).column(0).compression == "ZSTD"


def test_seeds_are_numpy_seedsequence_spawn_keys(tmp_path):
    g = games_table(simulate(games=50, seed=7, out=tmp_path / "r"))
    want = [np.random.SeedSequence(7, spawn_key=(i,)).generate_state(1, np.uint64)[0] for i in range(50)]
    assert g["seed"].tolist() == want


def test_same_games_whatever_workers_and_shards(tmp_path):
    a = simulate(games=5000, seed=3, out=tmp_path / "a", workers=1, shard_size=5000)
    b = simulate(games=5000, seed=3, out=tmp_path / "b", workers=2, shard_size=700)
    same_dataset(a, b)


@pytest.mark.parametrize("fmt, bots", [("khasino", ("heuristic:cards=30", "greedy")), ("kasino-4p", ("heuristic", "random")),
                                       ("cassino-3p", ("heuristic", "greedy", "random"))])
def test_heuristic_bot_same_games_whatever_workers(tmp_path, fmt, bots):
    """The heuristic bot is a function of its seat's view and the decision's one draw: the same run on one
    worker and on two, in other shards, gives the same dataset."""
    a = simulate(fmt, games=600, bots=bots, seed=4, out=tmp_path / "a", workers=1, shard_size=600)
    b = simulate(fmt, games=600, bots=bots, seed=4, out=tmp_path / "b", workers=2, shard_size=170)
    same_dataset(a, b)


def test_small_run_returns_a_dataframe():
    df = simulate(games=400, bots=("random", "greedy"), seed=1)
    assert isinstance(df, pd.DataFrame) and len(df) == 800
    assert {"bot", "seat", "won", "score", "winner", "seed"} <= set(df.columns)
    assert df.groupby("bot").won.mean()["greedy"] > 0.5


def test_rule_options_change_the_rules_hash(tmp_path):
    a = games_table(simulate(games=200, seed=1, out=tmp_path / "a"))
    b = games_table(simulate(games=200, seed=1, out=tmp_path / "b", options={"follow_ups": "false"}))
    assert a["rules"].iloc[0] != b["rules"].iloc[0]
    assert json.loads(b["options"].iloc[0])["follow_ups"] is False
    assert json.loads(a["options"].iloc[0])["follow_ups"] is True


def test_refuses_another_runs_output(tmp_path):
    simulate(games=100, seed=1, out=tmp_path / "r")
    with pytest.raises(SimulationError, match="another run"):
        simulate(games=100, seed=2, out=tmp_path / "r")
    simulate(games=100, seed=1, out=tmp_path / "r")          # the same finished run: nothing to do
    simulate(games=100, seed=2, out=tmp_path / "r", force=True)
    assert games_table(tmp_path / "r")["seed"].iloc[0] == np.random.SeedSequence(2, spawn_key=(0,)).generate_state(1, np.uint64)[0]


def test_resume_after_kill_9(tmp_path):
    """A real subprocess killed with SIGKILL mid-run, then --resume: no game lost or duplicated."""
    out = tmp_path / "killed"
    args = [sys.executable, "-m", "khasino_sim", "simulate", "--games", "120000", "--shard-size", "4000",
            "--workers", "1", "--seed", "9", "--out", str(out), "--quiet"]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 300
        while len(list((out / "games").glob("part-*.parquet"))) < 3:
            assert proc.poll() is None, "the run ended before it could be killed"
            assert time.time() < deadline
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
    done = len(list((out / "games").glob("part-*.parquet")))
    assert 3 <= done < 30
    r = khasino("simulate", "--games", "120000", "--shard-size", "4000", "--seed", "9", "--out", str(out),
                "--quiet")
    assert r.returncode == 2 and "--resume" in r.stderr
    r = khasino("simulate", "--games", "120000", "--shard-size", "4000", "--seed", "9", "--out", str(out),
                "--quiet", "--resume")
    assert r.returncode == 0, r.stderr
    g = games_table(out)
    assert g["game"].tolist() == list(range(120000))
    ref = simulate(games=120000, seed=9, out=tmp_path / "whole", shard_size=30000, workers=2)
    same_dataset(out, ref)
    assert not list(out.glob("**/.part-*"))


@pytest.mark.parametrize("args, expect", [
    (["--format", "poker"], "unknown format"),
    (["--bots", "greedy,genius"], "unknown bot"),
    (["--bots", "greedy,random,random"], "give 2 bots"),
    (["--set", "speed=fast"], "unknown rule option"),
    (["--set", "follow_ups=maybe"], "takes true or false"),
    (["--games", "0"], "must be positive"),
    (["--games", "-5"], "must be positive"),
    (["--out", "/proc/khasino-cannot-write"], "cannot write"),
    (["--dask", "tcp://127.0.0.1:9"], "cannot reach the Dask scheduler"),
])
def test_bad_input_is_one_line_exit_2(tmp_path, args, expect):
    base = ["simulate", "--games", "100", "--quiet"]
    if "--out" not in args:
        base += ["--out", str(tmp_path / "x")]
    r = khasino(*base, *args, timeout=120)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert expect in r.stderr and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_cli_summary(tmp_path):
    r = khasino("simulate", "--games", "2000", "--out", str(tmp_path / "r"), "--seed", "5")
    assert r.returncode == 0, r.stderr
    assert "games      2,000" in r.stdout and "win rate" in r.stdout and "first seat advantage" in r.stdout
    assert "95% CI" in r.stdout and "mean score" in r.stdout
    assert "\r" not in r.stderr, "no progress bar when not on a terminal"


def test_bot_order_is_per_seat_without_rotation():
    spec = RunSpec(bots=("random", "greedy"), rotate=False)
    codes = spec.bot_codes(0, 4)
    assert [[spec.bot_names()[c] for c in row] for row in codes] == [["random", "greedy"]] * 4


def test_dask_cluster_gives_the_local_dataset(tmp_path):
    """A real scheduler and two workers on loopback."""
    sched_file = tmp_path / "scheduler.json"
    env = dict(os.environ, DASK_DISTRIBUTED__WORKER__DAEMON="False")
    procs = [subprocess.Popen([sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1", "--port", "0",
                               "--no-dashboard", "--scheduler-file", str(sched_file)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)]
    try:
        deadline = time.time() + 120
        while not sched_file.exists():
            assert time.time() < deadline, "the scheduler did not start"
            time.sleep(0.2)
        address = json.loads(sched_file.read_text())["address"]
        for _ in range(2):
            procs.append(subprocess.Popen([sys.executable, "-m", "dask", "worker", address, "--nthreads", "1",
                                           "--nworkers", "1", "--no-dashboard", "--host", "127.0.0.1"],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env))
        from distributed import Client
        with Client(address, timeout="30s") as c:
            c.wait_for_workers(2, timeout=120)
        a = simulate(games=6000, seed=11, out=tmp_path / "dask", shard_size=1000, dask=address)
        b = simulate(games=6000, seed=11, out=tmp_path / "local", shard_size=3000, workers=1)
        same_dataset(a, b)
        # a balance study's variants run on the cluster like simulate, with the same summary as locally
        from khasino_sim import balance
        args = ("khasino", ["opponent_piles=true,false"], ("greedy", "random"), 2000)
        sa = balance.summarize(balance.run(*args, seed=3, out=tmp_path / "bal-dask", shard_size=500, dask=address))
        sb = balance.summarize(balance.run(*args, seed=3, out=tmp_path / "bal-local", shard_size=500, workers=1))
        assert sa == sb and sa["pairs"][0]["differences"]["unit 0 win"]["n"] == 2000
    finally:
        for p in procs[::-1]:
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()


def test_package_level_api_stays_callable():
    import khasino_sim
    assert len(khasino_sim.simulate(games=20)) == 40
    assert len(khasino_sim.simulate(games=10, bots=("random", "random"))) == 20


def test_ctrl_c_keeps_finished_shards_and_resumes(tmp_path):
    out = tmp_path / "interrupted"
    args = [sys.executable, "-m", "khasino_sim", "simulate", "--games", "120000", "--shard-size", "4000",
            "--workers", "2", "--seed", "4", "--out", str(out), "--quiet"]
    # SIGINT back to its default in the child: a test process started with SIGINT ignored (a background job
    # of a non-interactive shell) would otherwise hand the ignore on, and the child would never see Ctrl-C.
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 300
    while len(list((out / "games").glob("part-*.parquet"))) < 2:
        assert proc.poll() is None and time.time() < deadline
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "--resume" in err and "Traceback" not in err
    assert not list(out.glob("**/.part-*")), "no half-written file is left behind"
    r = khasino(*args[3:], "--resume")
    assert r.returncode == 0, r.stderr
    assert games_table(out)["game"].tolist() == list(range(120000))


def test_rerunning_a_finished_run_only_reports_it(tmp_path):
    args = ["simulate", "--games", "300", "--out", str(tmp_path / "r"), "--quiet"]
    assert khasino(*args).returncode == 0
    r = khasino(*args)
    assert r.returncode == 0 and "already complete" in r.stdout and "games      300\n" in r.stdout
    r = khasino(*args, "--no-rotate")
    assert r.returncode == 2 and "another run" in r.stderr


def test_dask_without_the_distributed_package_is_one_line_exit_2(tmp_path):
    """An install without the `dask` extra: `--dask` names what to install, no traceback, no output."""
    out = tmp_path / "x"
    code = "import sys; sys.modules['distributed'] = None; from khasino_sim.cli import main; main()"
    r = subprocess.run([sys.executable, "-c", code, "simulate", "--games", "100", "--quiet", "--out", str(out),
                        "--dask", "tcp://127.0.0.1:8786"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "pip install 'khasino-sim[dask]'" in r.stderr
    assert not (out / "run.json").exists(), "a run that cannot start writes no manifest"


def pandas_summary(out):
    """The summary computed the straightforward way, the whole seats table in memory."""
    from khasino_sim.stats import wilson
    seats = pd.read_parquet(f"{out}/seats", columns=["game", "seat", "team", "bot", "won", "score", "team_score",
                                                     "first"])
    outcomes = seats.drop_duplicates(["game", "team", "bot"])      # one result per game per team per bot
    per_bot = []
    for bot, g in seats.groupby("bot", observed=True):
        o = outcomes[outcomes["bot"] == bot]
        n, w = len(o), int(o["won"].sum())
        per_bot.append({"bot": str(bot), "seats_played": len(g), "played": n, "wins": w, "win_rate": w / n,
                        "ci95": wilson(w, n)})
    per_seat = [{"seat": int(s), "mean_score": float(g["score"].mean()), "win_rate": float(g["won"].mean()),
                 "ci95": wilson(int(g["won"].sum()), len(g))} for s, g in seats.groupby("seat")]
    per_team = []
    if seats.groupby("team")["seat"].nunique().max() > 1:
        for t, g in seats.groupby("team"):
            r = g[g["seat"] == g["seat"].min()]            # teammates carry the same result and team score
            n, w = len(r), int(r["won"].sum())
            per_team.append({"team": int(t), "seats": sorted(int(x) for x in g["seat"].unique()), "games": n,
                             "wins": w, "win_rate": w / n, "ci95": wilson(w, n),
                             "mean_team_score": float(r["team_score"].mean())})
    first = seats[seats["first"]]
    w0 = int(first["won"].sum())
    return {"games": int(seats["game"].nunique()), "bots": per_bot, "seats": per_seat, "teams": per_team,
            "first_seat": {"win_rate": w0 / max(len(first), 1), "ci95": wilson(w0, len(first)),
                           "fair": 1 / seats["team"].nunique()}}


@pytest.mark.parametrize("fmt, bots, rotate", [
    ("khasino", ("greedy", "random"), True), ("khasino", ("random", "greedy"), False),
    ("khasino", ("random", "random"), True), ("khasino-3p", ("greedy", "random", "random"), True),
    ("khasino-4p", ("greedy", "random"), True), ("khasino-4p", ("greedy", "random", "random", "random"), True),
    ("khasino-4p", ("random", "greedy", "greedy", "random"), False)])
def test_streamed_summary_matches_the_whole_table(tmp_path, fmt, bots, rotate):
    from khasino_sim.stats import summarize
    out = simulate(fmt, games=7000, bots=bots, rotate=rotate, seed=13, out=tmp_path / "r", shard_size=3000,
                   workers=2)
    want = pandas_summary(out)
    assert summarize(out) == want
    assert summarize(out, batch_size=7) == want, "games straddling record batches are counted once"


def test_shards_stream_in_row_groups(tmp_path, monkeypatch):
    """Small row groups give the same rows; a shard's files are whole Parquet files with several row
    groups, and nothing temporary is left."""
    from khasino_sim import storage
    monkeypatch.setattr(storage, "ROW_GROUP_GAMES", 2500)
    a = simulate(games=9000, seed=21, out=tmp_path / "a", shard_size=9000, workers=1)
    assert pq.ParquetFile(Path(a) / "games" / "part-000000.parquet").metadata.num_row_groups == 3
    assert pq.ParquetFile(Path(a) / "seats" / "part-000000.parquet").metadata.num_row_groups == 3
    monkeypatch.undo()
    b = simulate(games=9000, seed=21, out=tmp_path / "b", shard_size=4000, workers=2)
    same_dataset(a, b)
    assert not list(Path(a).glob("**/.part-*")) and not list(Path(b).glob("**/.part-*"))


def test_a_stopped_shard_leaves_nothing(tmp_path, monkeypatch):
    import threading
    from khasino_sim import storage
    from khasino_sim.runs import run_shard, _prepare_out
    monkeypatch.setattr(storage, "ROW_GROUP_GAMES", 1000)     # temporary files exist when the stop comes
    spec = RunSpec(games=6000, shard_size=6000)
    _prepare_out(tmp_path / "r", spec, False, False)
    stop = threading.Event()
    ticks = []

    def progress(n):
        ticks.append(n)
        if len(ticks) == 2:
            temporary.extend((tmp_path / "r").glob("**/.part-*"))
            stop.set()

    temporary = []
    assert run_shard(spec.identity(), 0, 0, 6000, str(tmp_path / "r"), progress=progress, stop=stop) == (0, 0, None)
    assert sum(ticks) == 4000 and len(temporary) == 2
    assert not list((tmp_path / "r").glob("**/*.parquet*")) and not list((tmp_path / "r").glob("**/.part-*"))


def test_shard_memory_does_not_grow_with_the_shard(tmp_path):
    """A worker holds one chunk of statistics rows at a time: the NumPy memory a 20,000-game shard needs is
    a small fraction of its rows (20,000 x 832 bytes = 16 MB)."""
    import tracemalloc
    from khasino_sim.runs import run_shard, _prepare_out
    spec = RunSpec(games=21000, shard_size=20000)
    _prepare_out(tmp_path / "r", spec, False, False)
    run_shard(spec.identity(), 1, 20000, 1000, str(tmp_path / "r"))     # the thread's workspace, compiled core
    tracemalloc.start()
    try:
        run_shard(spec.identity(), 0, 0, 20000, str(tmp_path / "r"))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 6 * 2**20, f"peak {peak / 2**20:.1f} MiB"


def test_summary_counts_distinct_games_in_any_order():
    from khasino_sim.stats import _GameSet
    s = _GameSet()
    for part in ([5, 6, 6], [2, 3], [10], [6, 2], [9]):
        s.add(np.array(part, dtype=np.uint32))
    assert s.count() == 6          # 2 3 5 6 9 10
