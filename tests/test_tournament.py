"""Duplicate-deal tournaments and SPRT matches (khasino_sim/tournament.py, duplicate.py, sprt.py): seat
assignments, the same deals in every assignment, the crosstable and ratings in the report files, bad input as
one line, and the SPRT's error rates on samples of known strength and on bots of known difference."""
import json
import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from khasino_sim import tournament as T
from khasino_sim.duplicate import pair_counts
from khasino_sim.formats import get_format
from khasino_sim.sprt import SPRT, expected_score, parse_sprt


def test_assignments():
    assert T.assignments(get_format("khasino"), 2) == [(0, 1), (1, 0)]
    assert len(T.assignments(get_format("khasino-3p"), 2)) == 6        # 2^3 - 2: both bots in every game
    assert len(T.assignments(get_format("khasino-3p"), 3)) == 6        # 3!
    assert T.assignments(get_format("khasino-4p"), 2) == [(0, 1), (1, 0)]   # one bot per team
    assert len(T.assignments(get_format("kasino-6p"), 2)) == 6         # three pairs
    with pytest.raises(T.TournamentError):
        T.assignments(get_format("khasino"), 1)


@pytest.fixture(scope="module")
def tour(tmp_path_factory):
    out = tmp_path_factory.mktemp("tour") / "t"
    T.run("khasino-3p", ["greedy", "random"], 300, seed=5, out=out)
    return out


def test_every_assignment_plays_the_same_deals(tour):
    seeds = [pd.read_parquet(p / "games", columns=["game", "seed"]).sort_values("game")["seed"].to_numpy()
             for p in sorted(tour.glob("assignment-*"))]
    assert len(seeds) == 6 and all((s == seeds[0]).all() for s in seeds) and len(seeds[0]) == 300


def test_crosstable_and_report(tour, tmp_path):
    ct = T.crosstable(tour)
    g, lo, hi, deals = ct[("greedy", "random")]
    r = ct[("random", "greedy")]
    assert deals == 300 and math.isclose(g + r[0], 1.0) and lo < g < hi and g > 0.5
    rt = T.ratings(tour)
    assert rt["greedy"][0] > rt["random"][0]
    rep = T.write_report(tour, tmp_path / "rep")
    for name in ("crosstable.csv", "ratings.csv", "crosstable.png", "ratings.png", "report.md"):
        assert (rep / name).stat().st_size > 0
    csv = pd.read_csv(rep / "crosstable.csv")
    row = csv[(csv.bot == "greedy") & (csv.opponent == "random")].iloc[0]
    assert math.isclose(row.score_rate, g) and math.isclose(row.low, lo) and row.deals == 300
    assert f"{g:.3f} [{lo:.3f}, {hi:.3f}]" in (rep / "report.md").read_text()


def test_rerun_needs_resume(tour):
    with pytest.raises(T.TournamentError, match="--resume"):
        T.run("khasino-3p", ["greedy", "random"], 300, seed=5, out=tour)
    T.run("khasino-3p", ["greedy", "random"], 300, seed=5, out=tour, resume=True)
    with pytest.raises(T.TournamentError, match="another tournament"):
        T.run("khasino-3p", ["greedy", "random"], 301, seed=5, out=tour, resume=True)


def _sprt_run(rng, score, test_args, batch=20, cap=200_000):
    """One SPRT on synthetic duplicate pairs: two independent games a pair, draws 10%, expected score `score`."""
    win, draw = score - 0.05, 0.1
    game = np.array([1 - win - draw, draw, win])        # loss, draw, win: 0, 1, 2 half-points
    pent = np.convolve(game, game)                      # pair score 0 .. 4 half-points
    test = SPRT(**test_args)
    while test.pairs < cap:
        test.add(rng.multinomial(batch, pent))
        v = test.verdict()
        if v:
            return v
    return None


@pytest.mark.parametrize("elo0, elo1", [(0, 10), (-5, 5)])
def test_sprt_error_rates(elo0, elo1):
    """alpha = beta = 0.05: at elo0 H1 is accepted rarely, at elo1 H0 is (the test's nominal error rates,
    with room for the sampling of 300 runs)."""
    rng = np.random.default_rng(7)
    args = {"elo0": elo0, "elo1": elo1}
    at0 = [_sprt_run(rng, expected_score(elo0), args) for _ in range(300)]
    at1 = [_sprt_run(rng, expected_score(elo1), args) for _ in range(300)]
    assert at0.count("H1") / 300 <= 0.08 and at1.count("H0") / 300 <= 0.08
    assert None not in at0 + at1


def test_sprt_on_bots_of_known_difference():
    greedy = SPRT(elo0=0, elo1=10)
    greedy.add(pair_counts("khasino", "greedy", "random", 0, 0, 400))
    assert greedy.verdict() == "H1" and greedy.elo()[1] > 100
    same = SPRT(elo0=0, elo1=10)
    same.add(pair_counts("durban", "random", "random", 0, 0, 400))
    assert same.counts == [0, 0, 400, 0, 0] and same.verdict() == "H0"     # mirrored deals: every pair 1-1


@pytest.mark.parametrize("args, message", [
    (["tournament", "--bots", "greedy"], "at least two bots"),
    (["tournament", "--bots", "greedy,greedy"], "each bot once"),
    (["tournament", "--bots", "greedy,nobot"], "unknown bot 'nobot'"),
    (["match", "greedy", "random", "--sprt", "elo0=20,elo1=10"], "elo1 must be above elo0"),
    (["match", "greedy", "random", "--sprt", "elo2=1"], "--sprt takes"),
    (["match", "greedy", "random", "--format", "khasino-3p"], "needs two"),
])
def test_bad_input_is_one_line_exit_2(args, message, tmp_path):
    r = subprocess.run([sys.executable, "-m", "khasino_sim", *args, "--out", str(tmp_path / "o")]
                       if args[0] == "tournament" else [sys.executable, "-m", "khasino_sim", *args],
                       capture_output=True, text=True)
    assert r.returncode == 2 and message in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_parse_sprt():
    assert parse_sprt("elo0=0,elo1=5,alpha=0.01") == {"elo0": 0.0, "elo1": 5.0, "alpha": 0.01}


def test_plackett_luce_where_every_unit_has_its_own_bot(tmp_path):
    """Three seats held by three distinct entrants: Plackett-Luce on each game's ranking. A synthetic
    tournament (the tables only) where entrant a always scores most and c least rates a > b > c, and the
    crosstable gives a 1.0 against both."""
    import itertools
    out = tmp_path / "t3"
    plan = list(itertools.permutations(range(3), 3))
    out.mkdir()
    (out / "tournament.json").write_text(json.dumps({"format": "khasino-3p", "bots": ["a", "b", "c"], "games": 40,
                                                     "seed": 0, "options": {}, "assignments": [list(x) for x in plan]}))
    for i, a in enumerate(plan):
        d = out / f"assignment-{i:04d}" / "games"
        d.mkdir(parents=True)
        cols = {"game": np.arange(40)}
        for s in range(3):
            cols[f"score_{s}"] = np.full(40, 5 - 2 * a[s])       # a: 5, b: 3, c: 1 wherever they sit
        pd.DataFrame(cols).to_parquet(d / "part-000000.parquet")
    rt = T.ratings(out)
    assert rt["a"][0] > rt["b"][0] > rt["c"][0]
    ct = T.crosstable(out)
    assert ct[("a", "b")][0] == ct[("a", "c")][0] == ct[("b", "c")][0] == 1.0
