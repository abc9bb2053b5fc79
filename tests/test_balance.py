"""Balance studies (khasino_sim/balance.py, report.py; issue 11): the paired design (every variant plays the
same seeded games), the statistics against hand-computed and pandas-computed values, a variant that changes
nothing reports no significant difference, bad --vary input gets one clear line, and the report files hold
the summary's numbers."""
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from khasino_sim import balance
from khasino_sim.report import write, write_study


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """khasino greedy v random with and without K9 follow-ups, and with and without K8 pile use: a 2 x 2 grid
    of 1,000 games each, in shards of 400 (the last one short)."""
    out = tmp_path_factory.mktemp("balance") / "study"
    balance.run("khasino", ["follow_ups=true,false", "opponent_piles=true,false"], ("greedy", "random"), 1000,
                seed=5, out=out, workers=2, shard_size=400)
    return out


def test_grid_and_labels():
    vary = balance.parse_vary(["follow_ups=true,false", "max_builds_owned=0,1"], "khasino")
    assert vary == [("follow_ups", [True, False]), ("max_builds_owned", [0, 1])]
    variants = balance.grid(vary)
    assert [balance.label(v) for v in variants] == [
        "follow_ups=true,max_builds_owned=0", "follow_ups=true,max_builds_owned=1",
        "follow_ups=false,max_builds_owned=0", "follow_ups=false,max_builds_owned=1"]


@pytest.mark.parametrize("vary, message", [
    (["colour=red,blue"], "unknown rule option 'colour'"),
    (["follow_ups=maybe"], "option follow_ups takes true or false, not 'maybe'"),
    (["follow_ups"], "--vary takes NAME=V1,V2"),
    (["follow_ups=true,true"], "is listed twice"),
    (["follow_ups=true", "follow_ups=false"], "is given twice"),
    (["change_mode=0,2"], "change_mode"),
    (["face_values=true,false"], "unknown rule option 'face_values' for khasino"),
])
def test_bad_vary(vary, message, tmp_path):
    with pytest.raises(balance.BalanceError, match=message.replace("(", r"\(").replace(")", r"\)")):
        balance.parse_vary(vary, "khasino")
    args = [a for v in vary for a in ("--vary", v)]
    r = subprocess.run([sys.executable, "-m", "khasino_sim", "balance", *args, "--games", "10", "--out",
                        str(tmp_path / "never")], capture_output=True, text=True)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert not (tmp_path / "never").exists()


def test_every_variant_plays_the_same_deals(study):
    games = balance.load(study, "games")
    assert set(games["variant"]) == {"follow_ups=true,opponent_piles=true", "follow_ups=true,opponent_piles=false",
                                     "follow_ups=false,opponent_piles=true", "follow_ups=false,opponent_piles=false"}
    assert set(games["variant_follow_ups"]) == {"true", "false"}
    by = {v: g.sort_values("game") for v, g in games.groupby("variant", observed=True)}
    first = next(iter(by.values()))
    for g in by.values():
        assert len(g) == 1000
        assert np.array_equal(g["seed"].to_numpy(), first["seed"].to_numpy())
        assert np.array_equal(g["bot_0"].astype(str).to_numpy(), first["bot_0"].astype(str).to_numpy())
        opts = {json.loads(o)["follow_ups"] for o in g["options"].astype(str)}
        assert opts == {g["variant_follow_ups"].iloc[0] == "true"}
    seats = balance.load(study, "seats")
    assert "variant" in seats.columns and len(seats) == 8000
    # the rules change the games: not every variant plays the same moves
    assert len({tuple(g["captures"]) for g in by.values()}) > 1


def test_statistics_match_pandas(study):
    s = balance.summarize(study)
    games = balance.load(study, "games")
    seats = balance.load(study, "seats")
    assert [v["label"] for v in s["variants"]] == [
        "follow_ups=true,opponent_piles=true", "follow_ups=true,opponent_piles=false",
        "follow_ups=false,opponent_piles=true", "follow_ups=false,opponent_piles=false"]
    for v in s["variants"]:
        g = games[games["variant"] == v["label"]].sort_values("game")
        margin0 = (g["score_0"].astype(int) - g["score_1"].astype(int)).to_numpy()
        assert v["games"] == 1000
        assert v["units"][0]["win_rate"] == pytest.approx((g["winner"] == 0).mean())
        assert v["units"][1]["mean_score"] == pytest.approx(g["score_1"].astype(int).mean())
        assert v["units"][0]["mean_margin"] == pytest.approx(margin0.mean())
        assert v["margins"] == {int(k): int(c) for k, c in zip(*np.unique(margin0, return_counts=True))}
        assert v["leader_win_rate"] == pytest.approx((g["winner"] == g["leader"]).mean())
        assert v["events_per_game"]["captures"] == pytest.approx(g["captures"].astype(int).mean())
        ahead = g[g["ahead_1"] >= 0]
        assert v["after_first_deal"]["ahead_1"]["games"] == len(ahead)
        half = v["after_first_deal"]
        assert half["ahead_1"]["win_rate"] == pytest.approx((ahead["winner"] == ahead["ahead_1"]).mean())
        # K14: seat 0 leads the second deal too, so its win rate would repeat seat 0's: left out
        assert (g["leader_2"] == g["leader"]).all() and "leader_2" not in half
        sv = seats[seats["variant"] == v["label"]]
        pts = {"most cards": sv["most_cards"].sum(), "most spades": sv["most_spades"].sum(),
               "aces": sv["aces"].sum(), "2S": sv["two_spades"].sum(), "10D": 2 * sv["ten_diamonds"].sum()}
        assert sum(pts.values()) == 11 * 1000       # K13: 11 points a game
        for c, total in pts.items():
            assert v["points"][c]["share"] == pytest.approx(total / 11000)
    # a pair's differences are game by game
    a, b = s["variants"][0]["label"], s["variants"][3]["label"]
    pair = next(p for p in s["pairs"] if (p["a"], p["b"]) == (a, b))
    ga = games[games["variant"] == a].sort_values("game")
    gb = games[games["variant"] == b].sort_values("game")
    d = (gb["winner"].to_numpy() == 0).astype(int) - (ga["winner"].to_numpy() == 0).astype(int)
    win = pair["differences"]["unit 0 win"]
    assert win["mean"] == pytest.approx(d.mean())
    assert (win["positive"], win["negative"]) == ((d > 0).sum(), (d < 0).sum())
    assert len(s["pairs"]) == 6


def test_paired_result_by_hand():
    """d = (1, 0, -1, 1, 1, 0): mean 1/3, sample variance 2/3, so the interval is 1/3 -+ 1.96 sqrt(2/3 / 6) =
    1/3 -+ 0.6533; three positives against one negative: the two-sided sign test's p is
    2 (C(4,3) + C(4,4)) / 16 = 0.625."""
    d = np.array([1, 0, -1, 1, 1, 0])
    acc = balance._Paired()
    acc.add(d[:4])
    acc.add(d[4:])
    r = acc.result()
    assert r["mean"] == pytest.approx(1 / 3)
    assert r["ci95"][0] == pytest.approx(1 / 3 - 1.959964 * (2 / 3 / 6) ** 0.5, abs=1e-6)
    assert r["ci95"][1] == pytest.approx(1 / 3 + 1.959964 * (2 / 3 / 6) ** 0.5, abs=1e-6)
    assert (r["positive"], r["negative"]) == (3, 1)
    assert r["p"] == pytest.approx(0.625) and r["log10_p"] == pytest.approx(np.log10(0.625))
    r = balance.paired_result(20, 20.0, 20.0, 20, 0)     # twenty positive differences: p = 2 / 2**20
    assert r["p"] == pytest.approx(2 / 2 ** 20)


def test_a_variant_that_changes_nothing_is_named_identical_and_not_tested(tmp_path):
    """K5/P6: owning at most 10 builds is no limit (there are ten build values), so the variants are the same
    games: the summary names the second identical to the first and makes no test of the pair."""
    out = balance.run("khasino", ["max_builds_owned=0,10"], ("greedy", "random"), 600, seed=2, out=tmp_path / "s",
                      workers=1, shard_size=600)
    s = balance.summarize(out)
    (pair,) = s["pairs"]
    assert pair["identical"] and not pair["tested"] and pair["differences"] == {} and s["tests"] == 0
    assert s["variants"][0]["units"] == s["variants"][1]["units"]
    (same,) = s["identical"]
    assert same["text"].startswith("max_builds_owned=10: identical to max_builds_owned=0 for these bots (every "
                                   "game the same on all 600 deals): max_builds_owned never changed a game")


def test_a_real_change_is_significant(study):
    """Turning off K8 pile use (greedy v random, 1,000 games) changes the number of builds a game, significant
    after Holm's correction (the captures a game, raw p = 0.008, are not once corrected over 24 tests)."""
    s = balance.summarize(study)
    pair = next(p for p in s["pairs"] if p["a"] == "follow_ups=true,opponent_piles=true"
                and p["b"] == "follow_ups=true,opponent_piles=false")
    d = pair["differences"]["builds per game"]
    assert d["significant"] and d["log10_p_holm"] < np.log10(0.05) and d["p_holm"] >= d["p"]
    captures = pair["differences"]["captures per game"]
    assert captures["p"] < 0.05 and not captures["significant"]
    assert s["correction"] == f"significant after Holm correction over {s['tests']} tests (family-wise error 0.05)"


def test_report_files_hold_the_numbers(study, tmp_path):
    s = balance.summarize(study)
    md = write_study(s, tmp_path / "report")
    for name in ("seat_advantage.png", "margins.png", "points.png", "length.png", "variants.csv", "pairs.csv",
                 "summary.json", "report.md"):
        assert (tmp_path / "report" / name).stat().st_size > 0
    variants = pd.read_csv(tmp_path / "report" / "variants.csv")
    for v, row in zip(s["variants"], variants.itertuples(index=False)):
        assert row.variant == v["label"]
        assert row.seat0_win_rate == pytest.approx(v["units"][0]["win_rate"])
        assert row.seat1_mean_margin == pytest.approx(v["units"][1]["mean_margin"])
    pairs = pd.read_csv(tmp_path / "report" / "pairs.csv")
    assert len(pairs) == sum(len(p["differences"]) for p in s["pairs"])
    text = md.read_text()
    assert "![win rate per seat](seat_advantage.png)" in text
    assert f"{s['variants'][0]['units'][0]['win_rate']:.4g}" in text


def test_cli_balance_and_report(tmp_path):
    out = tmp_path / "study"
    r = subprocess.run([sys.executable, "-m", "khasino_sim", "balance", "--format", "cassino", "--vary",
                        "sweeps=true,false", "--bots", "greedy,random", "--games", "200", "--out", str(out),
                        "--report", str(tmp_path / "rep"), "--quiet"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "paired differences" in r.stdout and "sweeps=true" in r.stdout
    assert (tmp_path / "rep" / "report.md").exists()
    # the same study again: complete, nothing is replayed; another study in its folder is refused
    before = (out / "variants" / "v0" / "games" / "part-000000.parquet").stat().st_mtime_ns
    balance.run("cassino", ["sweeps=true,false"], ("greedy", "random"), 200, out=out)
    assert (out / "variants" / "v0" / "games" / "part-000000.parquet").stat().st_mtime_ns == before
    with pytest.raises(balance.BalanceError, match="holds another study"):
        balance.run("cassino", ["ace_14=true,false"], ("greedy", "random"), 200, out=out)
    # khasino report on a simulate run
    run = tmp_path / "run"
    subprocess.run([sys.executable, "-m", "khasino_sim", "simulate", "--games", "300", "--out", str(run),
                    "--quiet"], check=True, capture_output=True)
    r = subprocess.run([sys.executable, "-m", "khasino_sim", "report", str(run)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert (run / "report" / "win_rates.png").exists() and (run / "report" / "report.md").exists()
    assert (run / "report" / "report.md").read_text().startswith("# Simulation report: khasino, bots ")
    r = subprocess.run([sys.executable, "-m", "khasino_sim", "report", str(tmp_path / "nothing")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1


def test_kasino_and_team_studies():
    """Misère margins (the lowest total wins) and units that are teams (khasino-4p)."""
    pytest.importorskip("scipy")
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        out = balance.run("kasino-2p", ["match_rounds=2,4"], ("greedy", "random"), 100, out=f"{tmp}/k",
                          workers=1)
        s = balance.summarize(out)
        assert s["misere"] and set(s["variants"][0]["points"]) == {"card points", "last capture", "tabbe plus",
                                                                  "tabbe minus"}
        g = balance.load(out, "games")
        g = g[g["variant"] == "match_rounds=2"].sort_values("game")
        margin0 = (g["score_1"].astype(int) - g["score_0"].astype(int)).to_numpy()
        assert s["variants"][0]["units"][0]["mean_margin"] == pytest.approx(margin0.mean())
        out = balance.run("khasino-4p", ["follow_ups=true,false"], ("greedy", "random"), 200, out=f"{tmp}/t",
                          workers=1)
        s = balance.summarize(out)
        assert s["unit_kind"] == "team" and s["units"] == 2
        assert all(v["units"][0]["win_rate"] + v["units"][1]["win_rate"] == pytest.approx(1)
                   for v in s["variants"])
