"""`simulate` in the team format khasino-4p (K15, docs/RULES.md P11-P15): bots per team or per seat, rotation by
whole teams, team columns and totals in the rows, per-team summary, bad bot counts."""
import json
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from khasino_sim.engine import play_game
from khasino_sim.runs import RunSpec, SimulationError, simulate
from khasino_sim.stats import format_summary, summarize
from tests.test_simulate import games_table, khasino, pandas_summary, same_dataset, seats_table

GAMES = 3000


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return simulate("khasino-4p", GAMES, ("greedy", "random"), seed=5, shard_size=1100, workers=2,
                    out=tmp_path_factory.mktemp("r4") / "r")


def test_one_bot_per_team_is_one_bot_per_seat(run, tmp_path):
    """(greedy, random) stands for (greedy, greedy, random, random): the same run, stamped per seat."""
    manifest = json.loads((Path(run) / "run.json").read_text())
    assert manifest["spec"]["bots"] == ["greedy", "greedy", "random", "random"]
    meta = json.loads(pq.read_schema(Path(run) / "games" / "part-000000.parquet").metadata[b"khasino"])
    assert meta["bots"] == ["greedy", "greedy", "random", "random"]
    other = simulate("khasino-4p", GAMES, ("greedy", "greedy", "random", "random"), seed=5, shard_size=700,
                     workers=1, out=tmp_path / "r")
    same_dataset(run, other)


def test_columns_and_team_sums(run):
    g, s = games_table(run), seats_table(run)
    assert len(g) == GAMES and len(s) == 4 * GAMES
    for col in ("bot_3", "score_3", "winner", "winner_bot", "leader", "series", "match", "stay_offers", "stays"):
        assert col in g.columns, col
    for col in ("team", "team_score", "won", "first", "stay_offers", "stays"):
        assert col in s.columns, col
    assert s["team"].dtype == np.uint8 and s["team_score"].dtype == np.int8 and s["stays"].dtype == np.uint8
    # teams AB (seats 0, 1) = 0 and CD (seats 2, 3) = 1; the two teams' scores sum to 11 (K13 by team)
    assert (s["team"].to_numpy() == np.tile([0, 0, 1, 1], GAMES)).all()
    assert (s["score"] == s["team_score"]).all(), "a seat's score is its team's"
    assert (g["score_0"] == g["score_1"]).all() and (g["score_2"] == g["score_3"]).all()
    assert (g["score_0"].astype(int) + g["score_2"] == 11).all()
    team_total = s.groupby(["game", "team"])["team_score"].first().groupby("game").sum()
    assert (team_total == 11).all()
    # the winner is a team; every seat of it won
    assert set(g["winner"]) == {0, 1}
    assert (g["winner"] == (g["score_2"] > g["score_0"]).astype(int)).all()
    winner = np.repeat(g["winner"].to_numpy(), 4)
    assert (s["won"].to_numpy() == (s["team"].to_numpy() == winner)).all()
    first_seat = 2 * g["winner"].to_numpy()
    bots = g[["bot_0", "bot_1", "bot_2", "bot_3"]].astype(str).to_numpy()
    assert (g["winner_bot"].astype(str).to_numpy() == bots[np.arange(GAMES), first_seat]).all()
    # P11: team AB leads, from the seat it chose; one game per series
    assert set(g["leader"]) == {0, 1}
    assert (s.loc[s["first"], "seat"].to_numpy() == g["leader"].to_numpy()).all()
    assert (g["series"] == g["game"]).all() and (g["match"] == 0).all()
    # P15: Stays taken never exceed the offers; the games' totals are the seats' sums
    assert (s["stays"] <= s["stay_offers"]).all()
    assert g["stay_offers"].sum() > 0 and g["stays"].sum() > 0
    per_game = s.groupby("game")[["stay_offers", "stays"]].sum()
    assert (per_game["stay_offers"].to_numpy() == g["stay_offers"].to_numpy()).all()
    assert (per_game["stays"].to_numpy() == g["stays"].to_numpy()).all()
    assert (g["turns"] == 40).all()


def test_rows_are_the_engines_games(run):
    g = games_table(run)
    for i in (0, 1, 1234, GAMES - 1):
        row = g.iloc[i]
        bots = tuple(str(row[f"bot_{k}"]) for k in range(4))
        ref = play_game("khasino-4p", int(row["seed"]), bots)
        assert [row[f"score_{k}"] for k in range(4)] == [x["score"] for x in ref["seats"]]
        assert row["winner"] == ref["winner"]


def test_rotation_keeps_teammates_together_and_swaps_the_teams(run):
    g = games_table(run)
    assert (g["bot_0"] == g["bot_1"]).all() and (g["bot_2"] == g["bot_3"]).all()
    even = g["game"] % 2 == 0
    assert (g.loc[even, "bot_0"] == "greedy").all() and (g.loc[even, "bot_2"] == "random").all()
    assert (g.loc[~even, "bot_0"] == "random").all() and (g.loc[~even, "bot_2"] == "greedy").all()


def test_rotation_steps_by_a_team():
    spec = RunSpec(format="khasino-4p", bots=("greedy", "random", "random", "greedy"))
    names = spec.bot_names()
    rows = [[names[c] for c in r] for r in spec.bot_codes(5, 3)]      # games 5, 6, 7
    assert rows == [["random", "greedy", "greedy", "random"], ["greedy", "random", "random", "greedy"],
                    ["random", "greedy", "greedy", "random"]]
    fixed = RunSpec(format="khasino-4p", bots=("greedy", "random"), rotate=False)
    assert [[fixed.bot_names()[c] for c in r] for r in fixed.bot_codes(0, 2)] == [["greedy"] * 2 + ["random"] * 2] * 2


def test_rotation_of_the_other_formats_is_unchanged():
    """Seat s of game i plays bots[(s + i) % seats] (resumed runs and stored datasets depend on it)."""
    for fmt, bots in (("khasino", ("greedy", "random")), ("khasino-3p", ("greedy", "random", "random"))):
        spec = RunSpec(format=fmt, bots=bots)
        codes = spec.bot_codes(3, 4)
        n = len(bots)
        want = [[bots[(s + i) % n] for s in range(n)] for i in range(3, 7)]
        assert [[spec.bot_names()[c] for c in r] for r in codes] == want
    spec = RunSpec(format="khasino-3p", bots=("greedy", "random", "random"), series=2)
    assert [[spec.bot_names()[c] for c in r] for r in spec.bot_codes(0, 4)] == [
        ["greedy", "random", "random"]] * 2 + [["random", "random", "greedy"]] * 2


def test_summary_per_team(run):
    s = summarize(run)
    assert s == pandas_summary(run)
    assert s["first_seat"]["fair"] == 0.5
    assert [(t["team"], t["seats"], t["games"]) for t in s["teams"]] == [(0, [0, 1], GAMES), (1, [2, 3], GAMES)]
    assert sum(t["wins"] for t in s["teams"]) == GAMES
    assert sum(t["mean_team_score"] for t in s["teams"]) == pytest.approx(11)
    for t in s["teams"]:
        lo, hi = t["ci95"]
        assert lo < t["win_rate"] < hi
    # one result per game per team: a bot holding both seats of a team counts each game once
    assert [(b["bot"], b["seats_played"], b["played"]) for b in s["bots"]] == [
        ("greedy", 2 * GAMES, GAMES), ("random", 2 * GAMES, GAMES)]
    assert sum(b["wins"] for b in s["bots"]) == GAMES
    text = format_summary(s)
    assert "team 0     seats 0+1" in text and "team 1     seats 2+3" in text and "0.5000 would be fair" in text


def test_no_team_lines_without_teams(tmp_path):
    s = summarize(simulate("khasino", 300, ("greedy", "random"), seed=1, out=tmp_path / "r"))
    assert s["teams"] == [] and s["first_seat"]["fair"] == 0.5
    assert "team" not in format_summary(s)
    s = summarize(simulate("khasino-3p", 300, ("greedy", "random", "random"), seed=1, out=tmp_path / "r3"))
    assert s["teams"] == [] and s["first_seat"]["fair"] == 1 / 3


def test_cli_4p_summary(tmp_path):
    r = khasino("simulate", "--format", "khasino-4p", "--bots", "greedy,random", "--games", "2000", "--workers",
                "2", "--out", str(tmp_path / "r"), "--quiet")
    assert r.returncode == 0, r.stderr
    assert "team 0" in r.stdout and "team 1" in r.stdout and "0.5000 would be fair" in r.stdout
    assert "bot        greedy" in r.stdout and "seat 3" in r.stdout


@pytest.mark.parametrize("bots", ["greedy", "greedy,random,random", "greedy,random,random,greedy,random"])
def test_bad_bot_counts_are_one_line_exit_2(tmp_path, bots):
    r = khasino("simulate", "--format", "khasino-4p", "--bots", bots, "--games", "10", "--quiet", "--out",
                str(tmp_path / "x"), timeout=120)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert "give 4 bots (one per seat) or 2 (one per team)" in r.stderr
    assert not (tmp_path / "x").exists()


def test_bad_bot_count_from_python(tmp_path):
    with pytest.raises(SimulationError, match=r"4 bots \(one per seat\) or 2 \(one per team\), not 3"):
        simulate("khasino-4p", 10, ("greedy", "random", "random"), out=tmp_path / "r")
