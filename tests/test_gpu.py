"""The GPU backend (khasino_sim/gpu.py, kernels/device.py).

Everywhere: the launcher's host code and the per-thread unit bodies, with the launch done by a CPU loop over
the units (`gpu.cpu_stand_in`, a few scratch slots so that launches come in waves), give exactly the rows of
`play_batch` / `play_matches`, and a `simulate --backend cuda` run through it writes the CPU run's Parquet rows;
without a GPU, `--backend cuda` is one line and exit 2. Where CUDA is present (marked `gpu`, skipped
elsewhere): the same comparisons on the device, in both scratch layouts. scripts/gpu_check.py runs these and
the benchmark on a GPU machine in one command."""
import subprocess
import sys

import numpy as np
import pytest

from khasino_sim import gpu
from khasino_sim.engine import bot_id
from khasino_sim.formats import get_format, with_options
from khasino_sim.kernels.core import layout as L
from khasino_sim.kernels.khasino.game import play_batch
from khasino_sim.kernels.dispatch import play_matches

HAS_GPU = gpu.status() is None
needs_gpu = pytest.mark.skipif(not HAS_GPU, reason=f"no usable GPU: {gpu.status()}")


def _table(fmt, games, names=("greedy", "random")):
    ids = [bot_id(n) for n in names]
    return np.array([[ids[(g + s) % len(ids)] for s in range(fmt.seats)] for g in range(games)], dtype=np.int64)


CASES = [("khasino", 1, {}), ("durban", 1, {}), ("khasino-3p", 3, {}), ("khasino-3p-stock", 1, {}),
         ("khasino-4p", 1, {}), ("khasino", 1, {"follow_ups": False, "next_deal_leader": 2})]


@pytest.mark.parametrize("name,series,options", CASES, ids=[f"{n}-x{s}{'-opts' if o else ''}" for n, s, o in CASES])
def test_stand_in_games_are_play_batch(name, series, options):
    fmt = with_options(get_format(name), options)
    rules = fmt.rules_array()
    games = 24 if series == 1 else 25        # 3p series: the last series cut short, as a shard may cut it
    seeds = np.arange(1000, 1000 + games, dtype=np.uint64)
    bots = _table(fmt, games)
    want = play_batch(rules, seeds, bots, series=series)
    got = gpu.play_batch(rules, seeds, bots, series=series, runner=gpu.cpu_stand_in(slots=4))
    assert np.array_equal(got, want)


@pytest.mark.parametrize("name,single", [("cassino", False), ("cassino", True), ("cassino-4p", False),
                                         ("kasino-2p", False), ("kasino-3p", True)])
def test_stand_in_matches_are_play_matches(name, single, monkeypatch):
    """Cassino matches (a thread keeps MATCH_ROWS rounds; set to 2 here so that longer matches take the CPU
    path) and Kasino's fixed-length matches: the rows, match by match, G_MATCH included."""
    monkeypatch.setattr(gpu, "MATCH_ROWS", 2)
    fmt = get_format(name)
    rules = fmt.rules_array()
    seeds = np.arange(7, 7 + 10, dtype=np.uint64)
    bots = _table(fmt, 10)
    want = play_matches(rules, seeds, bots, single=single)
    got = gpu.play_matches(rules, seeds, bots, single=single, runner=gpu.cpu_stand_in(slots=3))
    assert np.array_equal(got, want)
    if name == "cassino" and not single:
        assert (np.bincount(want[:, L.G_MATCH]) > 2).any(), "no match was long enough to take the CPU path"


def test_simulate_through_the_backend_writes_the_cpu_rows(tmp_path, monkeypatch):
    """runs.simulate with backend="cuda" (the launch replaced by the stand-in): the same Parquet rows as the CPU
    run, whole shards per launch."""
    import pandas as pd
    from khasino_sim import runs
    monkeypatch.setattr(gpu, "require", lambda: None)
    monkeypatch.setattr(gpu, "runner", lambda: gpu.cpu_stand_in(slots=5))
    for name, kw in (("khasino", {}), ("cassino", {"rounds": 0})):
        cpu = runs.simulate(format=name, games=30, bots=("greedy", "random"), seed=5, out=tmp_path / f"{name}-cpu",
                            shard_size=12, **kw)
        dev = runs.simulate(format=name, games=30, bots=("greedy", "random"), seed=5, out=tmp_path / f"{name}-gpu",
                            shard_size=12, backend="cuda", **kw)
        tables = ("games", "seats", "rounds") if name == "cassino" else ("games", "seats")
        for table in tables:
            pd.testing.assert_frame_equal(runs.load(cpu, table), runs.load(dev, table))


def test_backend_cuda_without_a_gpu_is_one_line(tmp_path):
    if HAS_GPU:
        pytest.skip("a GPU is present")
    for args in (["simulate", "--games", "10", "--out", str(tmp_path / "r"), "--backend", "cuda"],
                 ["bench", "--backend", "cuda", "--games", "10"],
                 ["balance", "--vary", "follow_ups=true,false", "--games", "10", "--out", str(tmp_path / "b"),
                  "--backend", "cuda"]):
        p = subprocess.run([sys.executable, "-m", "khasino_sim", *args], capture_output=True, text=True)
        assert p.returncode == 2, (args, p.stderr)
        lines = p.stderr.strip().splitlines()
        assert len(lines) == 1 and "--backend cuda needs a usable NVIDIA GPU" in lines[0], p.stderr
    assert not (tmp_path / "r").exists() and not (tmp_path / "b").exists()


def test_backend_refusals_name_the_problem():
    from khasino_sim.runs import SimulationError, check_backend
    with pytest.raises(SimulationError, match="unknown backend"):
        check_backend("tpu", ("greedy",))
    with pytest.raises(SimulationError, match="--dask"):
        check_backend("cuda", ("greedy",), dask="tcp://h:1")


# ---- on a GPU only --------------------------------------------------------------------------------------
@needs_gpu
@pytest.mark.parametrize("layout", gpu.LAYOUTS)
@pytest.mark.parametrize("name", ["khasino", "khasino-4p", "khasino-3p"])
def test_device_games_are_play_batch(name, layout):
    fmt = get_format(name)
    rules = fmt.rules_array()
    seeds = np.arange(4096, dtype=np.uint64)
    bots = _table(fmt, 4096)
    series = 3 if fmt.series else 1
    want = play_batch(rules, seeds, bots, series=series)
    got = gpu.play_batch(rules, seeds, bots, series=series, runner=gpu.device(layout))
    assert np.array_equal(got, want)


@needs_gpu
@pytest.mark.parametrize("name,single", [("cassino", False), ("cassino-3p", True), ("kasino-2p", False),
                                         ("kasino-4p", True)])
def test_device_matches_are_play_matches(name, single):
    fmt = get_format(name)
    rules = fmt.rules_array()
    seeds = np.arange(1024, dtype=np.uint64)
    bots = _table(fmt, 1024)
    want = play_matches(rules, seeds, bots, single=single)
    got = gpu.play_matches(rules, seeds, bots, single=single, runner=gpu.device())
    assert np.array_equal(got, want)


def test_gpu_bench_report_on_the_stand_in(monkeypatch, tmp_path):
    """`khasino bench --backend cuda`'s measurement code (khasino_sim/gpu_bench.py), the launch done by the
    stand-in: a cell per format and pairing with the kernel, end-to-end and CPU rates."""
    from khasino_sim import gpu_bench
    monkeypatch.setattr(gpu, "require", lambda: None)
    monkeypatch.setattr(gpu, "device", lambda *a, **k: gpu.cpu_stand_in(slots=8))
    monkeypatch.setattr(gpu, "device_name", lambda: "stand-in")
    monkeypatch.setattr(gpu, "launch_report", lambda *a, **k: {"threads_per_block": 64})
    monkeypatch.setattr(gpu, "_RUNNER", [])
    lines = []
    report = gpu_bench.run(["khasino", "cassino"], ["greedy-random"], games=40, cpu_games=20, progress=lines.append)
    assert [(c["format"], c["pairing"]) for c in report["results"]] == [("khasino", "greedy-random"),
                                                                        ("cassino", "greedy-random")]
    for c in report["results"]:
        assert c["kernel_games_per_s"] > 0 and c["end_to_end_games_per_s"] > 0 and c["cpu_games_per_s"] > 0
        assert c["turns_per_game"] > 10
    assert len(lines) == 2 and "games/s" in lines[0]
    assert "stand-in" in gpu_bench.header(report)
