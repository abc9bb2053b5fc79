"""A reader that stops early (`khasino ... | head -1`) ends the output quietly with exit 0, never with
"Error: Broken pipe" (issue 38)."""
import subprocess
import sys


def test_simulate_into_head(tmp_path):
    cmd = (f"{sys.executable} -m khasino_sim simulate --games 3000 --out {tmp_path / 'run'} 2>{tmp_path / 'err'} "
           "| head -1; echo rc=${PIPESTATUS[0]}")
    out = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True).stdout
    err = (tmp_path / "err").read_text()
    assert "rc=0" in out and "Broken pipe" not in err and "Error" not in err
