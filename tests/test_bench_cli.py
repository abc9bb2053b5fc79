"""`khasino bench`: the report's schema, comparisons with a baseline, exit codes. Never asserts on wall time:
the figures' values are whatever this machine measures; only their shape, their relations and the comparison
logic (on figures chosen by the test) are checked."""
import copy
import json
import math
import statistics
import subprocess
import sys

import pytest
from click.testing import CliRunner

import khasino_sim
from khasino_sim import bench as B
from khasino_sim.cli import main
from khasino_sim.formats import FORMATS

TINY = ["--games", "300", "--ref-games", "2", "--repeats", "5"]
CELL_KEYS = {"format", "pairing", "bots", "games", "samples", "seat_wins", "core_seconds", "core_wall_seconds",
             "calibration_rates", "normalised_samples", "normalised", "normalised_iqr", "normalised_ci95",
             "core_games_per_s", "decisions_per_s", "ref_games", "ref_games_per_s", "ratio", "warmup_seconds"}


def bench(*args):
    return CliRunner().invoke(main, ["bench", *args])


def write(path, obj):
    path.write_text(json.dumps(obj) if not isinstance(obj, str) else obj)
    return str(path)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """One tiny real run over every format and pairing: (CliRunner result, report path, report)."""
    path = tmp_path_factory.mktemp("bench") / "report.json"
    r = bench(*TINY, "--json", str(path))
    assert r.exit_code == 0, r.output + repr(r.exception)
    return r, str(path), json.loads(path.read_text())


def test_tiny_run_writes_the_documented_schema(tiny):
    r, _, rep = tiny
    assert rep["schema_version"] == B.SCHEMA_VERSION == 2
    assert set(rep) >= {"schema_version", "created", "machine", "versions", "workload", "calibration",
                        "normalised_unit", "elapsed_seconds", "results"}
    assert set(rep["machine"]) >= {"cpu", "cores", "usable_cores", "arch", "platform", "python"}
    assert isinstance(rep["machine"]["cpu"], str) and rep["machine"]["cores"] >= 1
    v = rep["versions"]
    assert v["engine"] == khasino_sim.ENGINE_VERSION and v["khasino_sim"] == khasino_sim.__version__
    assert set(v) == {"khasino_sim", "engine", "numba", "numpy"}
    w = rep["workload"]
    assert (w["games"], w["ref_games"], w["repeats"], w["threads"]) == (300, 2, 5, 1)
    assert w["clock"] in ("process_time", "perf_counter")
    cal = rep["calibration"]
    assert cal["kernel"] == B.CALIBRATION_KERNEL and cal["unit"] == "Msteps/s"
    assert cal["rate"] > 0 and cal["seconds"] > 0
    assert math.isclose(cal["rate"], cal["steps"] / cal["seconds"] / 1e6)
    assert w["calibration_steps"] == B.CALIBRATION_STEPS

    cells = rep["results"]
    assert [(c["format"], c["pairing"]) for c in cells] == [(f, p) for f in sorted(FORMATS) for p in B.PAIRINGS]
    for c in cells:
        assert set(c) == CELL_KEYS
        seats = FORMATS[c["format"]].seats
        assert c["games"] == 300 and c["ref_games"] == 2 and c["bots"] == [B.PAIRINGS[c["pairing"]][0]] * seats
        assert len(c["seat_wins"]) == seats and 0 < sum(c["seat_wins"]) <= 300
        # every sample is kept: its CPU seconds, wall seconds, the calibration around it, its normalised figure
        assert c["samples"] == 5 and all(len(c[k]) == 5 for k in ("core_seconds", "core_wall_seconds",
                                                                  "calibration_rates", "normalised_samples"))
        for sec, cal_rate, norm in zip(c["core_seconds"], c["calibration_rates"], c["normalised_samples"]):
            assert math.isclose(norm, 300 / sec / cal_rate)
        assert math.isclose(c["core_games_per_s"], statistics.median(300 / s for s in c["core_seconds"]))
        assert math.isclose(c["normalised"], statistics.median(c["normalised_samples"]))
        q1, q3 = c["normalised_iqr"]
        assert min(c["normalised_samples"]) <= q1 <= c["normalised"] <= q3 <= max(c["normalised_samples"])
        assert c["normalised_ci95"] is None                        # 5 samples: no order statistics reach 95%
        if c["bots"][0] not in B.REFERENCE_BOTS:      # the reference has no heuristic bot
            assert c["ref_games_per_s"] is None and c["ratio"] is None
        else:
            assert c["ref_games_per_s"] > 0
            assert math.isclose(c["ratio"], c["core_games_per_s"] / c["ref_games_per_s"])
        # the table on stdout has one row per cell
        assert any(line.split()[:3] == [c["format"], c["pairing"], "300"] for line in r.stdout.splitlines())
    assert "core games/s" in r.stdout and "ref games/s" in r.stdout and "normalised" in r.stdout
    assert "IQR" in r.stdout and "median of 5 samples" in r.stdout
    # progress on stderr while it runs: the compile warning first, then a line per round but the last
    assert "compiles it" in r.stderr.splitlines()[0]
    rounds = [line.split(" done")[0] for line in r.stderr.splitlines() if line.startswith("round ")]
    assert rounds == [f"round {i}/5" for i in range(1, 5)]
    assert w["order"] == "interleaved"
    assert B.validate(rep) is rep


def test_the_workload_is_fixed_seeds(tiny):
    """Same games, same winners: the workload does not depend on timing."""
    _, _, rep = tiny
    again = B.run_bench(games=300, ref_games=0, repeats=1, formats="khasino", pairings=["greedy-greedy"],
                        calibration_steps=10_000, calibration_repeats=1)
    (cell,) = again["results"]
    before = next(c for c in rep["results"] if (c["format"], c["pairing"]) == ("khasino", "greedy-greedy"))
    assert cell["seat_wins"] == before["seat_wins"]
    assert cell["ref_games_per_s"] is None and cell["ratio"] is None    # --ref-games 0 skips the reference


def test_compare_against_itself_exits_0(tiny):
    _, path, rep = tiny
    assert B.compare(rep, rep, 0.0) == []
    r = bench("--show", path, "--compare", path, "--tolerance", "0")
    assert r.exit_code == 0, r.output
    assert "no regression" in r.stdout and "REGRESSION" not in r.stdout


def test_inflated_baseline_exits_1_and_names_the_cell(tiny, tmp_path):
    _, _, rep = tiny
    rep = copy.deepcopy(rep)
    cell = next(c for c in rep["results"] if (c["format"], c["pairing"]) == ("durban", "greedy-greedy"))
    # the cell's samples made tight around its median: a busy machine's spread (IQR 25% was seen) must not
    # decide whether a 20% fall is significant, which is what this test is not about
    cell["normalised_samples"] = [cell["normalised"] * (1 + 0.001 * (i - 2)) for i in range(5)]
    path = write(tmp_path / "rep.json", rep)
    base = copy.deepcopy(rep)
    target = next(c for c in base["results"] if (c["format"], c["pairing"]) == ("durban", "greedy-greedy"))
    target["normalised"] *= 1.25                                     # now 20% below the baseline
    target["normalised_samples"] = [x * 1.25 for x in target["normalised_samples"]]
    r = bench("--show", path, "--compare", write(tmp_path / "base.json", base), "--tolerance", "0.10")
    assert r.exit_code == 1, r.output
    flagged = [line for line in r.stdout.splitlines() if "REGRESSION" in line]
    assert len(flagged) == 1 and "durban/greedy-greedy" in flagged[0] and "-20.0%" in flagged[0]
    assert "durban/greedy-greedy" in r.stderr
    (reg,) = B.compare(rep, base, 0.10)
    assert reg["cell"] == "durban/greedy-greedy" and math.isclose(reg["change"], -0.2)
    # within a wider tolerance it passes
    assert bench("--show", path, "--compare", str(tmp_path / "base.json"), "--tolerance", "0.25").exit_code == 0


def test_a_real_run_against_a_baseline(tiny, tmp_path):
    """A real run compared with a baseline whose figures are far above (one cell) or far below (the others)
    anything this machine can measure: exactly that cell regresses, whatever the timings."""
    _, _, rep = tiny
    base = copy.deepcopy(rep)
    for c in base["results"]:
        k = 1e6 if (c["format"], c["pairing"]) == ("khasino", "random-random") else 1e-6
        c["normalised"] *= k
        c["normalised_samples"] = [x * k for x in c["normalised_samples"]]
    new = tmp_path / "new.json"
    r = bench(*TINY, "--formats", "khasino", "--json", str(new), "--compare", write(tmp_path / "base.json", base))
    assert r.exit_code == 1, r.output
    flagged = [line for line in r.stdout.splitlines() if "REGRESSION" in line]
    assert len(flagged) == 1 and "khasino/random-random" in flagged[0]
    assert "khasino/greedy-greedy" in r.stdout                      # compared, ok
    missing = [line for line in r.stdout.splitlines() if " missing: " in line]
    assert sorted(line.split()[0] for line in missing) == sorted(
        f"{f}/{p}" for f in FORMATS if f != "khasino" for p in B.PAIRINGS)
    assert [c["format"] for c in json.loads(new.read_text())["results"]] == ["khasino"] * len(B.PAIRINGS)


def test_missing_cells_are_reported_not_failed(tiny, tmp_path):
    _, path, rep = tiny
    base = copy.deepcopy(rep)
    extra = dict(base["results"][0], format="kasino-9p")
    base["results"] = base["results"][1:] + [extra]
    r = bench("--show", path, "--compare", write(tmp_path / "base.json", base))
    assert r.exit_code == 0, r.output
    lines = [line for line in r.stdout.splitlines() if " missing: " in line]
    first = f"{rep['results'][0]['format']}/{rep['results'][0]['pairing']}"
    assert len(lines) == 2
    assert any(line.split()[0] == f"kasino-9p/{extra['pairing']}" and "not measured" in line for line in lines)
    assert any(line.split()[0] == first and "not in the baseline" in line for line in lines)
    assert B.missing(rep, base) == {"baseline_only": [f"kasino-9p/{extra['pairing']}"], "report_only": [first]}


@pytest.mark.parametrize("content", [
    "{not json",
    "[1, 2]",
    json.dumps({"schema_version": 99, "results": []}),
    json.dumps({"schema_version": 1, "results": [], "calibration": {"rate": 1.0}}),   # the old schema
    json.dumps({"schema_version": 2, "results": [{"format": "khasino"}], "calibration": {"rate": 1.0}}),
    json.dumps({"schema_version": 2, "results": [{"format": "khasino", "pairing": "greedy-greedy",
                                                  "normalised_samples": [1.0], "normalised": -3}],
                "calibration": {"rate": 1.0}}),
    json.dumps({"schema_version": 2, "results": [{"format": "khasino", "pairing": "greedy-greedy",
                                                  "normalised": 3.0}], "calibration": {"rate": 1.0}}),
    json.dumps({"schema_version": 2, "results": []}),
    None,      # no such file
])
def test_a_bad_baseline_is_one_line_and_exit_2(tmp_path, content):
    path = tmp_path / "base.json"
    if content is not None:
        path.write_text(content)
    r = bench("--compare", str(path), *TINY)
    assert r.exit_code == 2, r.output
    assert len(r.stderr.strip().splitlines()) == 1 and r.stderr.startswith("Error: ")
    assert r.stdout == ""                                            # refused before running anything


def test_a_malformed_baseline_from_the_command_line(tmp_path):
    """As a user runs it: one line on stderr, exit code 2, no traceback."""
    bad = write(tmp_path / "base.json", '{"schema_version": 2, "results": [')
    r = subprocess.run([sys.executable, "-m", "khasino_sim", "bench", "--compare", bad, *TINY],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "not valid JSON" in r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""


@pytest.mark.parametrize("args, message", [
    (["--tolerance", "-0.1"], "tolerance"),
    (["--alpha", "0"], "alpha"),
    (["--alpha", "1.5"], "alpha"),
    (["--formats", "nope"], "unknown format"),
    (["--pairings", "greedy-random"], "unknown pairing"),
])
def test_bad_options_are_one_line_and_exit_2(args, message):
    r = bench(*TINY, *args)
    assert r.exit_code == 2, r.output
    assert len(r.stderr.strip().splitlines()) == 1 and message in r.stderr
