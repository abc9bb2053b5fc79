"""The batch Bradley-Terry fit (khasino_sim/bradley_terry.py): it recovers known strengths, does not depend on the
order of the results, its intervals narrow as 1/sqrt(results), and clustering by deal widens them where the
results of one deal are correlated."""
import numpy as np
import pytest

from khasino_sim.bradley_terry import fit, pair_totals
from khasino_sim.sprt import expected_score

TRUE = np.array([150.0, 50.0, 0.0, -200.0])


def _results(rng, n, true=TRUE, draws=0.0):
    """n pairwise results between random distinct entrants of strengths `true` (Elo): a draw with probability
    `draws`, else a win with the logistic Elo chance rescaled so the expected score stays s(E_a - E_b)."""
    k = len(true)
    a = rng.integers(0, k, n)
    b = (a + rng.integers(1, k, n)) % k
    p = expected_score(true[a] - true[b])
    u = rng.random(n)
    win = (p - draws / 2) / (1 - draws)
    r = np.where(u < draws, 0.5, np.where(rng.random(n) < win, 1.0, 0.0))
    return a, b, r


def test_recovers_known_strengths():
    rng = np.random.default_rng(0)
    a, b, r = _results(rng, 40_000, draws=0.2)
    f = fit(a, b, r, 4, cluster=np.arange(len(r)))
    centred = TRUE - TRUE.mean()
    assert np.all(f.low < centred) and np.all(centred < f.high), (f.elo, centred)
    assert abs(f.elo.sum()) < 1e-9          # the anchor: mean 0


def test_order_independent():
    """The same results in another order (and the clusters relabelled) give the same fit."""
    rng = np.random.default_rng(1)
    a, b, r = _results(rng, 5_000)
    deal = np.arange(len(r)) // 3
    f = fit(a, b, r, 4, cluster=deal)
    perm = rng.permutation(len(r))
    g = fit(a[perm], b[perm], r[perm], 4, cluster=deal[perm] * 7 + 11)
    assert np.allclose(f.elo, g.elo, rtol=0, atol=1e-9) and np.allclose(f.cov, g.cov, rtol=1e-9, atol=1e-12)
    flipped = fit(b, a, 1 - r, 4, cluster=deal)            # each result seen from the other side
    assert np.allclose(f.elo, flipped.elo, atol=1e-9)


@pytest.mark.parametrize("cluster", [False, True])
def test_intervals_narrow_as_results_are_added(cluster):
    """4x the results about halves the width of every interval (1/sqrt(n))."""
    rng = np.random.default_rng(2)
    a, b, r = _results(rng, 32_000, draws=0.1)
    deal = np.arange(len(r)) // 2
    widths = []
    for n in (2_000, 8_000, 32_000):
        f = fit(a[:n], b[:n], r[:n], 4, cluster=deal[:n] if cluster else None)
        widths.append(f.high - f.low)
    for w, w4 in zip(widths, widths[1:]):
        assert np.all(np.abs(w4 / w - 0.5) < 0.08), w4 / w


def test_clusters_make_correlated_results_honest():
    """Every result repeated in its deal (perfectly correlated duplicates): the model-based interval shrinks as
    if there were twice the data, the one clustered by deal stays that of the distinct results."""
    rng = np.random.default_rng(3)
    a, b, r = _results(rng, 10_000)
    once = fit(a, b, r, 4, cluster=np.arange(len(r)))
    twice = np.r_[a, a], np.r_[b, b], np.r_[r, r]
    naive = fit(*twice, 4)
    honest = fit(*twice, 4, cluster=np.r_[np.arange(len(r)), np.arange(len(r))])
    assert np.allclose(naive.se * np.sqrt(2), once.se, rtol=0.05)
    assert np.allclose(honest.se, once.se, rtol=0.02)


def test_one_sided_results_stay_finite():
    """An entrant that wins every game: the prior of one virtual draw per pair keeps the fit finite."""
    f = fit(np.zeros(100, int), np.ones(100, int), np.ones(100), 2, cluster=np.arange(100))
    assert np.all(np.isfinite(f.elo)) and f.elo[0] > 300 and np.all(np.isfinite(f.cov))


def test_pair_totals():
    wins, games = pair_totals([0, 1, 0], [1, 0, 2], [1.0, 0.5, 0.0], 3)
    assert wins[0, 1] == 1.5 and wins[1, 0] == 0.5 and wins[2, 0] == 1.0 and games[0, 1] == games[1, 0] == 2
