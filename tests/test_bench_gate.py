"""The `khasino bench --compare` gate (issue 38): a regression is a fall of the median normalised figure beyond
the tolerance that a one-sided Mann-Whitney U test over the samples finds significant; `--show` reads a saved
report and `--report` is its deprecated alias. The statistics are checked on synthetic reports with samples
chosen by the test; one real small run checks that a baseline made 15% faster fails. Never asserts on time."""
import copy
import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from khasino_sim import bench as B
from khasino_sim.cli import main

# a cell's samples as a busy machine gives them: a few percent of spread, one sample spoiled (slow)
NOISY = [100.0, 101.5, 98.7, 100.9, 99.2, 102.3, 97.8, 100.4, 83.0]


def report(cells):
    """A minimal schema-2 report: {"format/pairing": [normalised samples]}."""
    results = []
    for key, samples in cells.items():
        fmt, pairing = key.split("/")
        results.append({"format": fmt, "pairing": pairing, "games": 1000, "normalised_samples": list(samples),
                        "normalised": float(sorted(samples)[len(samples) // 2]) if len(samples) % 2 else
                        sum(sorted(samples)[len(samples) // 2 - 1:len(samples) // 2 + 1]) / 2})
    return {"schema_version": B.SCHEMA_VERSION, "calibration": {"rate": 200.0}, "workload": {},
            "versions": {}, "results": results}


def scaled(rep, k):
    out = copy.deepcopy(rep)
    for c in out["results"]:
        c["normalised_samples"] = [x * k for x in c["normalised_samples"]]
        c["normalised"] *= k
    return out


def bench(*args):
    return CliRunner().invoke(main, ["bench", *args])


def save(tmp_path, name, rep):
    path = tmp_path / name
    path.write_text(json.dumps(rep))
    return str(path)


def test_the_same_samples_in_another_order_pass():
    now = report({"khasino/random-random": NOISY})
    base = report({"khasino/random-random": NOISY[::-1]})
    (c,) = B.changes(now, base)
    assert c["change"] == 0 and c["p"] > 0.4 and not c["regression"]
    assert B.compare(now, base, 0.0) == []


def test_a_baseline_made_15_percent_faster_fails():
    """Issue 38: every baseline sample x 1.15 (this run 13% slower) is a regression at 10%, alpha 0.05."""
    now = report({"khasino/random-random": NOISY, "cassino/greedy-greedy": [x * 0.6 for x in NOISY]})
    (a, b) = B.compare(now, scaled(now, 1.15), 0.10, 0.05)
    assert {a["cell"], b["cell"]} == {"khasino/random-random", "cassino/greedy-greedy"}
    assert a["change"] == pytest.approx(1 / 1.15 - 1) and a["p"] < 0.05
    # the same fall is no regression under a 15% tolerance
    assert B.compare(now, scaled(now, 1.15), 0.15, 0.05) == []


def test_a_fall_beyond_the_tolerance_that_noise_explains_is_not_a_regression():
    """Medians 12% apart, but the samples overlap so much that the U test cannot tell them apart."""
    base = report({"khasino/random-random": [100, 60, 140, 95, 70, 130, 100, 50, 150]})
    now = report({"khasino/random-random": [88, 65, 135, 80, 60, 145, 88, 55, 120]})
    (c,) = B.changes(now, base, 0.10, 0.05)
    assert c["change"] == pytest.approx(-0.12) and c["p"] > 0.05 and c["testable"]
    assert not c["regression"]
    lines = B.format_comparison(now, base, 0.10, 0.05, "base.json")
    assert any("khasino/random-random" in line and "not significant" in line for line in lines)
    assert "alpha = 0.05" in lines[0] and "Mann-Whitney" in lines[0]


def test_a_significant_fall_within_the_tolerance_is_not_a_regression():
    base = report({"khasino/random-random": NOISY[:-1]})
    now = scaled(base, 0.95)
    (c,) = B.changes(now, base, 0.10, 0.05)
    assert c["p"] < 0.05 and not c["regression"]


def test_too_few_samples_to_test_fall_back_on_the_tolerance_and_say_so():
    base = report({"khasino/random-random": [100.0, 101.0]})
    now = scaled(base, 0.8)
    (c,) = B.changes(now, base, 0.10, 0.05)
    assert not c["testable"] and c["regression"]                     # 2 vs 2: the U test cannot reach 0.05
    assert B.smallest_p(2, 2) == pytest.approx(1 / 6) and B.smallest_p(4, 4) < 0.05
    assert any("too few samples" in line for line in B.format_comparison(now, base, 0.10, 0.05))


def test_cli_prints_the_alpha_and_the_p_values(tmp_path):
    now = report({"khasino/random-random": NOISY})
    base = save(tmp_path, "base.json", scaled(now, 1.15))
    r = bench("--show", save(tmp_path, "now.json", now), "--compare", base)
    assert r.exit_code == 1, r.output
    assert "alpha = 0.05" in r.stdout and "REGRESSION" in r.stdout
    assert "khasino/random-random" in r.stderr and "alpha 0.05" in r.stderr
    # the spoiled sample makes p 0.0024: at alpha 0.001 the fall is not significant, exit 0
    r = bench("--show", str(tmp_path / "now.json"), "--compare", base, "--alpha", "0.001")
    assert r.exit_code == 0, r.output
    assert "not significant" in r.stdout and "at alpha 0.001" in r.stdout
    # an alpha that 9 + 9 samples can never reach: the tolerance alone decides, and the output says so
    r = bench("--show", str(tmp_path / "now.json"), "--compare", base, "--alpha", "1e-6")
    assert r.exit_code == 1 and "too few samples" in r.stdout and "smallest p 2.1e-05" in r.stdout


def test_an_old_schema_is_one_clear_line(tmp_path):
    old = save(tmp_path, "old.json", {"schema_version": 1, "calibration": {"rate": 1.0}, "results": []})
    r = bench("--show", old)
    assert r.exit_code == 2
    (line,) = r.stderr.strip().splitlines()
    assert "schema_version 1" in line and "older" in line and "remake" in line


def test_show_and_the_deprecated_report_alias(tmp_path):
    path = save(tmp_path, "now.json", report({"khasino/random-random": NOISY}))
    shown = bench("--show", path)
    assert shown.exit_code == 0 and "khasino" in shown.stdout and shown.stderr == ""
    old = bench("--report", path)
    assert old.exit_code == 0 and old.stdout == shown.stdout
    assert "deprecated" in old.stderr and "--show" in old.stderr
    assert "--report" not in bench("--help").stdout and "--show" in bench("--help").stdout


def test_report_with_a_folder_is_refused_not_misread(tmp_path):
    """`tournament/balance --report DIR` write a folder; `bench --report DIR` must not pass for that."""
    r = bench("--report", str(tmp_path))
    assert r.exit_code == 2 and r.stdout == ""
    (line,) = r.stderr.strip().splitlines()
    assert "folder" in line and "--json" in line and "--show" in line
    r = bench("--report", str(tmp_path / "new-folder"))                # meant as a place to write to
    assert r.exit_code == 2 and r.stdout == "" and len(r.stderr.strip().splitlines()) == 1
    assert "does not exist" in r.stderr and "--json" in r.stderr
    r = bench("--show", str(tmp_path))
    assert r.exit_code == 2 and "folder" in r.stderr
    both = bench("--show", str(tmp_path / "a.json"), "--report", str(tmp_path / "b.json"))
    assert both.exit_code == 2 and "--show" in both.stderr


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    """A real small run: two formats, the three pairings, 7 samples of 1,000 games."""
    path = tmp_path_factory.mktemp("gate") / "real.json"
    r = CliRunner().invoke(main, ["bench", "--formats", "khasino,kasino-2p", "--games", "1000", "--repeats", "7",
                                  "--ref-games", "0", "--json", str(path)])
    assert r.exit_code == 0, r.output + repr(r.exception)
    return str(path), json.loads(path.read_text())


def test_a_real_report_against_itself_15_percent_faster_fails(real, tmp_path):
    path, rep = real
    assert bench("--show", path, "--compare", path).exit_code == 0
    r = bench("--show", path, "--compare", save(tmp_path, "fast.json", scaled(rep, 1.15)))
    flagged = {c["cell"] for c in B.compare(rep, scaled(rep, 1.15))}
    # a cell is caught whenever its own samples spread less than 15% (they do but on a very busy machine)
    apart = {B.cell_key(c) for c in rep["results"]
             if max(c["normalised_samples"]) < 1.15 * min(c["normalised_samples"])}
    assert flagged >= apart and flagged
    assert r.exit_code == 1 and all(cell in r.stderr for cell in flagged)


def test_the_report_is_a_pytest_benchmark_file(real):
    """`pytest-benchmark compare REPORT.json` lists every cell, from the same samples."""
    path, rep = real
    assert [b["param"] for b in rep["benchmarks"]] == [B.cell_key(c) for c in rep["results"]]
    for b, c in zip(rep["benchmarks"], rep["results"]):
        assert b["stats"]["data"] == pytest.approx([s / c["games"] for s in c["core_seconds"]])
        assert b["stats"]["rounds"] == 7 and b["extra_info"]["normalised"] == c["normalised"]
    r = subprocess.run([sys.executable, "-m", "pytest_benchmark", "compare", path], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "core[khasino/greedy-greedy]" in r.stdout and "core[kasino-2p/random-random]" in r.stdout
