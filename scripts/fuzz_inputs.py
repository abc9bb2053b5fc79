"""A long fuzzing campaign over every input a user can get wrong (issue 35): the Hypothesis properties of
tests/test_fuzz_inputs.py (mutated positions of every format, random bytes, bad options of every command)
with many more generated cases each and fresh random seeds, plus the fixed corpus of tests/test_bad_inputs.py.

Run: python scripts/fuzz_inputs.py [--examples N] (default 2000 per property; the default suite runs 60).
Prints pytest's summary and Hypothesis's statistics (the cases each property ran); exits non-zero on a
failure, with the smallest failing input Hypothesis found."""
import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=2000, help="generated cases per property (and format)")
    ap.add_argument("--workers", type=int, default=1,
                    help="pytest-xdist workers (1: one process, the only way Hypothesis prints its statistics)")
    args = ap.parse_args()
    env = {**os.environ, "KHASINO_FUZZ_EXAMPLES": str(args.examples)}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--hypothesis-show-statistics",
           *(["-n", str(args.workers)] if args.workers > 1 else []), "tests/test_fuzz_inputs.py",
           "tests/test_bad_inputs.py"]
    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    out = r.stdout + r.stderr
    passing = [int(n) for n in re.findall(r"(\d+) passing examples", out)]
    keep = ("passed", "failed", "FAILED", "Falsifying", "E  ", "@example", "args=")
    print("\n".join(line for line in out.splitlines() if any(k in line for k in keep)))
    print(f"generated cases run: {sum(passing):,} over {len(passing)} properties "
          f"({args.examples:,} asked per property)")
    sys.exit(r.returncode)


if __name__ == "__main__":
    main()
