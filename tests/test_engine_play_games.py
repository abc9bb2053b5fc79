"""engine.play_games as a user calls it (issue 38): one row of bot names is played in every game, and a bad
argument is one clear ValueError, never a Numba typing error."""
import numpy as np
import pytest

from khasino_sim import engine


def test_one_row_of_names_is_every_game():
    seeds = np.arange(200)
    rows = engine.play_games("khasino", seeds, ("greedy", "random"))
    full = engine.play_games("khasino", seeds.astype(np.uint64), np.array([["greedy", "random"]] * 200))
    assert rows.shape[0] == 200
    assert np.array_equal(rows, full)


@pytest.mark.parametrize("seeds, bots, words", [
    (np.arange(10), ("greedy",), "2 per game"),
    (np.arange(10), np.zeros((3, 2), dtype=np.int64), "2 per game"),
    (np.arange(10.0), ("greedy", "random"), "integers"),
    (np.arange(10).reshape(5, 2), ("greedy", "random"), "one-dimensional"),
    (np.arange(-3, 3), ("greedy", "random"), "non-negative"),
    (np.arange(10), ("greedy", "nosuch"), "unknown bot"),
    (np.arange(10), np.full((10, 2), 0.5), "names or bot ids"),
])
def test_bad_arguments_are_one_line(seeds, bots, words):
    with pytest.raises((ValueError, KeyError)) as e:
        engine.play_games("khasino", seeds, bots)
    assert words in str(e.value)
    assert "\n" not in str(e.value)
