"""Balance studies that cannot mislead (issue 38): identical variants named before any statistic and left out of
the tests, how often each varied rule was used, Holm's correction, p values as real numbers that the terminal
and the CSV agree on, figures drawn only when they can differ, snake_case CSV columns, no duplicated column,
`khasino report` on a plain run (2p and 4p, no NaN), and the simulate summary aligned for long bot names."""
import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from khasino_sim import balance
from khasino_sim.report import snake, write, write_study
from khasino_sim.stats import format_summary as run_summary


@pytest.fixture(scope="module")
def greedy_study(tmp_path_factory):
    """The README's old example, small: greedy bots never make a K9 follow-up, so follow_ups=false plays the
    games of follow_ups=true; turning off K8 pile use changes most games."""
    out = tmp_path_factory.mktemp("honest") / "study"
    balance.run("khasino", ["follow_ups=true,false", "opponent_piles=true,false"], ("greedy", "greedy"), 600,
                seed=1, out=out, workers=1, shard_size=250)
    return out


def test_identical_variants_are_named_before_any_statistic(greedy_study):
    s = balance.summarize(greedy_study)
    assert [(x["variant"], x["same_as"]) for x in s["identical"]] == [
        ("follow_ups=false,opponent_piles=true", "follow_ups=true,opponent_piles=true"),
        ("follow_ups=false,opponent_piles=false", "follow_ups=true,opponent_piles=false")]
    assert s["identical"][0]["text"] == (
        "follow_ups=false,opponent_piles=true: identical to follow_ups=true,opponent_piles=true for these bots "
        "(every game the same on all 600 deals): the bots never used the rule (follow_ups: no follow-up groups "
        "in any game)")
    text = balance.format_summary(s)
    assert text.index(s["identical"][0]["text"]) < text.index("seat 0 wins") < text.index("paired differences")
    # only the pair of the two distinct variants is tested; the copies' pairs are the originals'
    tested = [(p["a"], p["b"]) for p in s["pairs"] if p["tested"]]
    assert tested == [("follow_ups=true,opponent_piles=true", "follow_ups=true,opponent_piles=false")]
    assert s["tests"] == sum(len(p["differences"]) for p in s["pairs"])
    assert all(not p["differences"] for p in s["pairs"] if not p["tested"])
    # a metric no game changes is listed as the same, not tested: every test has an untied game
    assert all(d["positive"] + d["negative"] > 0 for p in s["pairs"] for d in p["differences"].values())
    # Khasino games are 40 turns and seat 0 always leads: neither is tested
    assert "length" in s["not_tested"] and "leader win" in s["not_tested"]
    assert f"significant after Holm correction over {s['tests']} tests" in text


def test_how_often_each_rule_was_used(greedy_study):
    s = balance.summarize(greedy_study)
    games = balance.load(greedy_study, "games")
    seats = balance.load(greedy_study, "seats")
    rules = {r["option"]: r for r in s["rules"]}
    assert rules["follow_ups"]["per_value"] == {"true": 0.0, "false": 0.0} and rules["follow_ups"]["changed"] == [0, 0]
    on = games[games["variant_opponent_piles"] == "true"]
    assert rules["opponent_piles"]["per_value"]["true"] == pytest.approx(on["pile_cards_taken"].astype(int).mean())
    assert rules["opponent_piles"]["per_value"]["false"] == 0
    # the share of deals a rule changed: compared by hand on the stored numbers of the games and seats tables
    a = games[games["variant"] == "follow_ups=true,opponent_piles=true"].sort_values("game")
    b = games[games["variant"] == "follow_ups=true,opponent_piles=false"].sort_values("game")
    sa = seats[seats["variant"] == "follow_ups=true,opponent_piles=true"].sort_values(["game", "seat"])
    sb = seats[seats["variant"] == "follow_ups=true,opponent_piles=false"].sort_values(["game", "seat"])
    num = lambda t: [c for c in t.columns if t[c].dtype.kind in "iub" and c not in balance.SAME_BY_DESIGN]  # noqa
    differ = (a[num(a)].to_numpy() != b[num(b)].to_numpy()).any(axis=1)
    differ |= (sa[num(sa)].to_numpy() != sb[num(sb)].to_numpy()).any(axis=1).reshape(-1, 2).any(axis=1)
    assert s["variants"][1]["differs_from_first"] == differ.sum() > 0
    assert differ.sum() / 600 in rules["opponent_piles"]["changed"]


def test_holm_by_hand():
    """p = (0.01, 0.04, 0.03, 0.005): sorted 0.005 x 4 = 0.02, 0.01 x 3 = 0.03, 0.03 x 2 = 0.06, 0.04 x 1 = 0.04
    raised to 0.06 (never below the step before)."""
    adjusted = balance.holm([math.log10(p) for p in (0.01, 0.04, 0.03, 0.005)])
    assert [10 ** x for x in adjusted] == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert balance.holm([0.0, -0.1]) == [0.0, 0.0]      # capped at p = 1
    assert balance.holm([]) == []


def test_p_below_the_floor_is_a_real_number():
    """2,000 positive differences and none negative: p = 2 / 2**2000, log10 p = -1999 log10 2; the CSV's p is
    the floor 1e-300, and the terminal says p < 1e-300 with the same log10."""
    lp = balance.sign_test_log10p(2000, 0)
    assert lp == pytest.approx(-1999 * math.log10(2), rel=1e-9)
    assert balance.sign_test_log10p(400, 1600) == pytest.approx(math.log10(2) + __import__("scipy").stats.binom
                                                              .logcdf(400, 2000, 0.5) / math.log(10), rel=1e-6)
    r = balance.paired_result(2000, 2000.0, 2000.0, 2000, 0)
    assert r["p"] == balance.P_FLOOR and r["log10_p"] == pytest.approx(lp)
    assert balance.p_text(lp) == f"p < 1e-300 (log10 {lp:.1f})"
    assert balance.p_text(math.log10(0.0123)) == "p = 0.0123"


def test_report_csv_and_figures(greedy_study, tmp_path):
    s = balance.summarize(greedy_study)
    md = write_study(s, tmp_path / "rep").read_text()
    for name in ("variants.csv", "pairs.csv", "rules.csv"):
        cols = pd.read_csv(tmp_path / "rep" / name).columns
        assert all(c == snake(c) for c in cols), cols
    variants = pd.read_csv(tmp_path / "rep" / "variants.csv")
    assert "share_most_cards" in variants.columns and "builds_captured_per_game" not in variants.columns
    assert "leader_win_rate" not in variants.columns       # the leader is seat 0: its column would be seat 0's
    assert variants["identical_to"].fillna("").tolist() == ["", "", "follow_ups=true,opponent_piles=true",
                                                             "follow_ups=true,opponent_piles=false"]
    pairs = pd.read_csv(tmp_path / "rep" / "pairs.csv")
    assert len(pairs) == s["tests"] and (pairs["p"] > 0).all() and (pairs["p_holm"] >= pairs["p"]).all()
    assert np.allclose(np.maximum(10.0 ** pairs["log10_p"], balance.P_FLOOR), pairs["p"])
    # Khasino: 40 turns a game and 11 points in fixed categories, so those panels are not drawn, and said so
    assert "`length.png`, game length: not drawn: 40 turns in every game of every variant" in md
    assert "share of all points by category: not drawn" in md
    assert "identical to follow_ups=true,opponent_piles=true for these bots" in md
    assert "nan" not in md.lower()


def test_builds_captured_equals_builds_in_every_game(greedy_study):
    """Why the summary keeps one of the two: P1, a build's owner always keeps a card that takes it, so every build
    made is captured; the games table's totals are equal in every game (per seat they differ)."""
    games = balance.load(greedy_study, "games")
    assert (games["builds"] == games["builds_captured"]).all() and games["builds"].sum() > 0
    assert "builds_captured" not in balance.EVENTS


def test_plain_run_report_2p_and_4p(tmp_path):
    for fmt, bots in (("khasino", "greedy,random"), ("khasino-4p", "greedy,random")):
        run = tmp_path / fmt
        subprocess.run([sys.executable, "-m", "khasino_sim", "simulate", "--format", fmt, "--bots", bots,
                        "--games", "300", "--out", str(run), "--quiet"], check=True, capture_output=True)
        text = write(run, tmp_path / f"{fmt}-rep").read_text()
        assert text.startswith(f"# Simulation report: {fmt}, bots ")
        assert "## Win rate per bot" in text and "| greedy" in text and "## Win rate per seat" in text
        assert "nan" not in text.lower() and "Balance report" not in text and "variant" not in text
        bots_csv = pd.read_csv(tmp_path / f"{fmt}-rep" / "bots.csv")
        assert set(bots_csv["bot"]) == {"greedy", "random"} and (bots_csv["low"] <= bots_csv["win_rate"]).all()
        assert ("## Win rate per team" in text) == (fmt == "khasino-4p")
        assert (tmp_path / f"{fmt}-rep" / "teams.csv").exists() == (fmt == "khasino-4p")
        for row in ("ahead_1", "leader_2"):     # a row's explanation only where the row is shown
            assert (f"| {row}" in text) == (f"`{row}` is how often" in text), (row, text)


def test_simulate_summary_aligns_long_bot_names():
    s = {"games": 10, "seats": [], "teams": [], "first_seat": {"win_rate": 0.5, "ci95": (0.2, 0.8), "fair": 0.5},
         "bots": [{"bot": b, "win_rate": 0.5, "ci95": (0.2, 0.8), "wins": 5, "played": 10, "seats_played": 10}
                  for b in ("ismcts:iterations=400", "greedy")]}
    lines = [line for line in run_summary(s).splitlines() if line.startswith("bot ")]
    assert len({line.index("win rate") for line in lines}) == 1


def test_report_of_a_bot_that_never_wins(tmp_path):
    """A team with no win: its Wilson interval's lower bound is 5.6e-17, a hair above the rate 0; the error bar
    is clipped at 0 rather than refused by matplotlib (found on a 3-game kasino-6p run)."""
    from khasino_sim.report import _err
    low, high = _err(np.array([0.0]), np.array([5.551115123125783e-17]), np.array([0.56]))
    assert low[0] == 0 and high[0] == pytest.approx(0.56)
    run = tmp_path / "run"
    subprocess.run([sys.executable, "-m", "khasino_sim", "simulate", "--format", "kasino-6p", "--bots",
                    "greedy,random,greedy", "--games", "3", "--out", str(run), "--quiet"], check=True,
                   capture_output=True)
    text = write(run, tmp_path / "rep").read_text()
    assert "## Win rate per team" in text and "nan" not in text.lower()
