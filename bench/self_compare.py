"""The `khasino bench --compare` gate's false-alarm rate and power, measured on saved reports of unchanged code.

Every ordered pair of the reports is compared as `--compare` would (a failed pair is a false alarm), then each
report against itself with every baseline sample made 15% faster (each should fail). Run, e.g.:

    for i in 1 2 3 4 5 6 7; do khasino bench --json r$i.json; done
    python3 bench/self_compare.py r*.json [--tolerance 0.10] [--alpha 0.05]
"""
import argparse
import copy
import itertools

from khasino_sim import bench as B


def faster(report, k=1.15):
    out = copy.deepcopy(report)
    for c in out["results"]:
        c["normalised_samples"] = [x * k for x in c["normalised_samples"]]
        c["normalised"] *= k
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reports", nargs="+")
    ap.add_argument("--tolerance", type=float, default=B.DEFAULT_TOLERANCE)
    ap.add_argument("--alpha", type=float, default=B.DEFAULT_ALPHA)
    a = ap.parse_args()
    reps = {p: B.load_report(p) for p in a.reports}
    failed = cells = significant = 0
    worst = 0.0
    for x, y in itertools.permutations(reps, 2):
        found = B.changes(reps[x], reps[y], a.tolerance, a.alpha)
        cells += len(found)
        significant += sum(c["p"] < a.alpha for c in found)
        worst = min([worst] + [c["change"] for c in found])
        regressions = [c["cell"] for c in found if c["regression"]]
        if regressions:
            failed += 1
            print(f"false alarm: {x} against {y}: {', '.join(regressions)}")
    pairs = len(reps) * (len(reps) - 1)
    print(f"{len(reps)} reports, {pairs} ordered self-comparisons ({cells} cells): {failed} failed; worst change "
          f"of a median {worst:+.1%}; cells with p < {a.alpha:g} alone: {significant}")
    caught = total = runs = 0
    for r in reps.values():
        n = len(B.compare(r, faster(r), a.tolerance, a.alpha))
        caught, total, runs = caught + n, total + len(r["results"]), runs + (n > 0)
    print(f"baselines made 15% faster: {caught} of {total} cells flagged; {runs} of {len(reps)} comparisons fail")


if __name__ == "__main__":
    main()
