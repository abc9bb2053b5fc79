"""pytest-benchmark timings of whole games: the same cells as `khasino bench` (one workload, one harness).

Run: pytest bench --benchmark-only [--benchmark-timer time.process_time] [--benchmark-json out.json]. Not part
of the test suite: tests never assert on wall time. Each cell's timed call is the one `khasino bench` times,
built by `khasino_sim.bench.prepare_cell` (seeds 0..games-1, the bots as compiled ids), played
`khasino_sim.bench.DEFAULT_REPEATS` rounds after a warm-up round. `khasino bench` is the CI gate (it also
normalises each sample by a calibration kernel and tests a fall with a Mann-Whitney U test, docs/BENCH.md);
its report is a pytest-benchmark JSON file too, so `pytest-benchmark compare` lists either."""
import pytest

from khasino_sim import bench as B
from khasino_sim.engine import play_games
from khasino_sim.reference import khasino as ref


@pytest.mark.parametrize("fmt", ["khasino", "durban", "cassino", "kasino-2p", "kasino-4p", "khasino-4p"])
@pytest.mark.parametrize("pairing", list(B.PAIRINGS))
def test_core_games(benchmark, fmt, pairing):
    bots, seeds, table = B.prepare_cell(fmt, pairing, B.DEFAULT_GAMES)
    benchmark.extra_info["games"] = len(seeds)
    out = benchmark.pedantic(play_games, args=(fmt, seeds, table), rounds=B.DEFAULT_REPEATS, warmup_rounds=1)
    assert out.shape[0] == len(seeds)


@pytest.mark.parametrize("fmt", ["khasino", "durban"])
def test_reference_games(benchmark, fmt):
    benchmark.extra_info["games"] = 5
    benchmark.pedantic(lambda: [ref.play_game(fmt, s, ("random", "random")) for s in range(5)], rounds=3)
