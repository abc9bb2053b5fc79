"""pytest-benchmark timings of whole games (run: pytest bench --benchmark-only). Not part of the test
suite: tests never assert on wall time."""
import numpy as np
import pytest

from khasino_sim.reference import khasino as ref
from khasino_sim.engine import play_games

N = 2000


@pytest.mark.parametrize("fmt", ["khasino", "durban", "cassino", "kasino-2p", "kasino-4p"])
@pytest.mark.parametrize("bot", ["random", "greedy"])
def test_core_games(benchmark, fmt, bot):
    from khasino_sim.formats import get_format
    seeds = np.arange(N, dtype=np.uint64)
    bots = np.array([(bot,) * get_format(fmt).seats] * N)
    play_games(fmt, seeds[:10], bots[:10])
    benchmark.extra_info["games"] = N
    out = benchmark(play_games, fmt, seeds, bots)
    assert out.shape[0] == N


@pytest.mark.parametrize("fmt", ["khasino", "durban"])
def test_reference_games(benchmark, fmt):
    benchmark.extra_info["games"] = 5
    benchmark.pedantic(lambda: [ref.play_game(fmt, s, ("random", "random")) for s in range(5)], rounds=3)
