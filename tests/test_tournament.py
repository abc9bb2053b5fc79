"""Duplicate-deal tournaments and SPRT matches (khasino_sim/tournament.py, duplicate.py, sprt.py): seat
assignments, the same deals in every assignment, the crosstable and ratings in the report files, bad input as
one line, and the SPRT's error rates on samples of known strength and on bots of known difference."""
import json
import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
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
    ct = T.crosstable(tour).set_index(["bot", "opponent"])
    g, r = ct.loc[("greedy", "random")], ct.loc[("random", "greedy")]
    assert g.deals == 300 and math.isclose(g.score_rate + r.score_rate, 1.0) and g.low < g.score_rate < g.high
    assert g.score_rate > 0.5 and g.wins == r.losses and g.draws == r.draws
    # khasino-3p with two bots: one holds two seats, so a game gives it two results against the other
    assert g.games == 6 * 300 and g.wins + g.losses + g.draws == 2 * g.games
    assert g.score == g.wins + g.draws / 2 and math.isclose(g.score_rate, g.score / (2 * g.games))
    rt = T.ratings(tour).set_index("bot")
    assert rt.loc["greedy", "elo"] > 0 > rt.loc["random", "elo"] and math.isclose(rt.elo.sum(), 0, abs_tol=1e-9)
    assert rt.loc["greedy", "low"] > rt.loc["random", "high"]
    rep = T.write_report(tour, tmp_path / "rep")
    for name in ("crosstable.csv", "ratings.csv", "crosstable.png", "ratings.png", "report.md"):
        assert (rep / name).stat().st_size > 0
    csv = pd.read_csv(rep / "crosstable.csv")
    assert list(csv.columns) == T.CROSSTABLE_COLUMNS and not any(" " in c for c in csv.columns)
    row = csv[(csv.bot == "greedy") & (csv.opponent == "random")].iloc[0]
    assert math.isclose(row.score_rate, g.score_rate) and math.isclose(row.low, g.low) and row.deals == 300
    assert list(pd.read_csv(rep / "ratings.csv").columns) == ["rank", "bot", "elo", "low", "high", "se"]


def test_ratings_on_played_games_are_order_independent_and_narrow(tour):
    """The tournament's results shuffled give the same ratings; a quarter of the deals, intervals about twice
    as wide."""
    from khasino_sim.bradley_terry import fit
    meta, deal, ea, eb, res = T.results(tour)
    rt = T.ratings(tour).set_index("bot").loc[meta["bots"]]
    perm = np.random.default_rng(0).permutation(len(res))
    f = fit(ea[perm], eb[perm], res[perm], 2, cluster=deal[perm])
    assert np.allclose(f.elo, rt.elo, atol=1e-9) and np.allclose(f.high, rt.high, atol=1e-9)
    q = deal < 75
    quarter = fit(ea[q], eb[q], res[q], 2, cluster=deal[q])
    ratio = (rt.high - rt.low).to_numpy() / (quarter.high - quarter.low)
    assert np.all(np.abs(ratio - 0.5) < 0.15), ratio


def test_report_is_markdown(tour, tmp_path):
    """report.md: headings, Markdown tables, the figures linked, the method said; no terminal text."""
    md = (T.write_report(tour, tmp_path / "rep") / "report.md").read_text()
    assert "```" not in md and md.startswith("# Tournament: khasino-3p")
    for part in ("## Method", "## Ratings", "## Pairs", "![ratings](ratings.png)", "![crosstable](crosstable.png)",
                 "Bradley-Terry", "clustered by deal", "[crosstable.csv](crosstable.csv)"):
        assert part in md, part
    g = T.crosstable(tour).iloc[0]
    assert f"{g.score_rate:.3f} [{g.low:.3f}, {g.high:.3f}]" in md
    table = [line for line in md.splitlines() if line.startswith("| greedy ")]
    assert table and all(line.endswith("|") for line in table)


def test_tournament_progress_lines(tmp_path):
    lines = []
    T.run("khasino", ["greedy", "random"], 4500, seed=1, out=tmp_path / "t", log=lines.append, progress_every=0)
    assert lines[0] == "2 seat assignments x 4,500 deals = 9,000 games"
    played = [line for line in lines if line.startswith("played ") and " of 9,000 games" in line]
    assert len(played) >= 2 and "assignment 2/2 (random, greedy)" in played[-1]
    assert lines[-1].startswith("played 9,000 games in ")


def test_announce_compile():
    import time
    said = []
    assert T.announce_compile("khasino game", lambda: time.sleep(0.3) or 7, said.append, after=0.1) == 7
    assert said[0].startswith("compiling the khasino game (first run") and said[1].startswith("compiled the ")
    said.clear()
    T.announce_compile("khasino game", lambda: None, said.append, after=5)
    assert said == []


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


def _synthetic(out, fmt_name, bots, games, score):
    """A tournament's folder with its tables only: `score(entrant index, deal)` gives each unit's score."""
    fmt = get_format(fmt_name)
    plan = T.assignments(fmt, len(bots))
    from khasino_sim import run_folder
    from khasino_sim.runs import RunSpec
    out.mkdir()
    run_folder.write_manifest(out, {"format": fmt_name, "bots": bots, "games": games, "seed": 0, "options": {},
                                    "assignments": [list(x) for x in plan]}, "tournament.json")
    for i, a in enumerate(plan):
        run = out / f"assignment-{i:04d}"
        tables = {"games": pd.DataFrame({"game": np.arange(games), **{f"score_{s}": score(e, np.arange(games))
                                                                     for s, e in enumerate(a)}}),
                  "seats": pd.DataFrame({"game": np.repeat(np.arange(games), fmt.seats),
                                         "seat": np.tile(np.arange(fmt.seats), games)})}
        spec = RunSpec(format=fmt_name, games=games, bots=tuple(bots[j] for j in a), rotate=False)
        stamp = {b"khasino": json.dumps({"shard": 0, "first_game": 0, "games": games, "root_seed": 0,
                                         "bots": list(spec.bots), "format": fmt_name, "rotate": False,
                                         "series": 1}).encode()}
        listing = {}
        for name, frame in tables.items():
            (run / name).mkdir(parents=True)
            table = pa.Table.from_pandas(frame, preserve_index=False)
            pq.write_table(table.replace_schema_metadata(stamp), run / name / "part-000000.parquet")
            listing[name] = run_folder.file_entry(run / name / "part-000000.parquet", len(frame))
        run_folder.write_manifest(run, {"spec": spec.identity(), "complete": True, "files": {"0": listing}})
    return out


def test_rank_breaking_where_every_unit_has_its_own_bot(tmp_path):
    """Three seats held by three distinct entrants: each game is three pairwise results. A synthetic
    tournament where entrant a always scores most and c least rates a > b > c, finite, and the crosstable
    gives a 1.0 against both."""
    out = _synthetic(tmp_path / "t3", "khasino-3p", ["a", "b", "c"], 40, lambda e, g: np.full(len(g), 5 - 2 * e))
    rt = T.ratings(out)
    assert list(rt.bot) == ["a", "b", "c"] and np.isfinite(rt[["elo", "low", "high"]].to_numpy()).all()
    ct = T.crosstable(out).set_index(["bot", "opponent"])
    assert (ct.loc[[("a", "b"), ("a", "c"), ("b", "c")], "score_rate"] == 1.0).all()
    assert ct.loc[("a", "b"), "low"] > 0.9 and ct.loc[("a", "b"), "games"] == 6 * 40


def test_terminal_tables_align_with_long_names(tmp_path):
    """Bot names of any length (a bot file, a search bot with parameters): every table's lines line up."""
    bots = ["ismcts:n=400,c=70", "g", "file:/home/someone/bots/a_rather_long_bot_name.py"]
    rng = np.random.default_rng(3)
    noise = rng.integers(0, 6, (3, 50))
    out = _synthetic(tmp_path / "long", "khasino-3p", bots, 50, lambda e, g: 3 * e + noise[e, g])
    lines = T.format_tables(out)
    assert not any("nan" in line.lower() for line in lines)
    blocks = "\n".join(lines).split("\n\n")[1:]
    for block in blocks:
        table = block.splitlines()[1:]
        rule = next(line for line in table if set(line) <= {"-", " "})
        starts = [k for k in range(len(rule)) if rule[k] == "-" and (k == 0 or rule[k - 1] == " ")]
        for line in table:
            if line.startswith("("):
                continue
            assert len(line) <= len(rule), (line, rule)
            for k in starts[1:]:
                assert line[k - 1] == " ", (line, k)       # every column starts where its rule does




def test_match_progress_on_stderr_verdict_on_stdout():
    """`match`: a line per batch on stderr (pairs, games, score so far, LLR against its bounds), the verdict
    alone on stdout."""
    r = subprocess.run([sys.executable, "-m", "khasino_sim", "match", "greedy", "random", "--format", "khasino",
                        "--batch", "40", "--sprt", "elo0=150,elo1=200"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    progress = [line for line in r.stderr.splitlines() if line.startswith("pairs ")]
    assert progress[0].startswith("pairs 40 (games 80): score ") and "LLR " in progress[0]
    assert "(bounds -2.944, +2.944)" in progress[0]
    out = r.stdout.splitlines()
    assert len(out) == 3 and out[0].startswith("khasino: H") and "pairs " not in r.stdout.split("\n", 1)[0]
    assert f"pairs {progress[-1].split()[1]} = games" in out[1]         # the last progress line is the verdict's


def test_tournament_cli_tables_on_stdout_progress_on_stderr(tmp_path):
    r = subprocess.run([sys.executable, "-m", "khasino_sim", "tournament", "--bots", "greedy,random", "--games",
                        "200", "--out", str(tmp_path / "t")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "played 400 games in " in r.stderr and "played" not in r.stdout
    assert "greedy  random" in r.stdout and "ratings (Bradley-Terry" in r.stdout
