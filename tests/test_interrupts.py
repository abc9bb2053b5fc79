"""Issue 51: every `khasino` command stops within about a second on Ctrl-C (SIGINT) and SIGTERM, in one line
on stderr, exit 130 or 143 (khasino_sim/cli/interrupts.py); a user bot's score call has a time limit
(--bot-timeout); --dask gives up on a scheduler that never answers.

Each case runs `python -m khasino_sim` in a subprocess and signals it with os.kill; every wait is bounded, so a
regression fails instead of hanging the suite."""
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from khasino_sim.cli import main

FIXTURES = Path(__file__).parent / "fixtures"
WAIT = 60           # the longest any subprocess is waited for after its signal (a regression: a failure)
COMPILE_WAIT = 600  # a whole command that may first compile the core (a stale Numba cache)
STOPPED = 2.5       # from the signal to the process gone, at most (about a second, with room for a busy machine)

# plays as greedy in the main thread (the warm-up game) and never returns in a worker thread, saying so first
WORKER_LOOP = """import os, threading
def score(view, move):
    if threading.current_thread() is threading.main_thread():
        return 0
    if not os.path.exists({marker!r}):
        open({marker!r}, "w").close()
    while True:
        pass
"""
# never returns, from its first call (in the main thread: the warm-up game), saying so first
LOOP = """import os
def score(view, move):
    if not os.path.exists({marker!r}):
        open({marker!r}, "w").close()
    while True:
        pass
"""
COMPILED_LOOP = """from numba import njit
@njit
def score(view, move):
    s = 0
    while view[0] >= 0:
        s += 1
    return s
"""


def start(*args, env=None):
    """`python -m khasino_sim ARGS`, with SIGINT at its default (a test run as a background job of a script
    would hand on SIGINT ignored, and a process started so keeps ignoring Ctrl-C, as it should)."""
    return subprocess.Popen([sys.executable, "-m", "khasino_sim", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def wait_for(path, proc, limit=COMPILE_WAIT):
    """Until `path` exists (a bot file's marker: it is in the call that never returns)."""
    deadline = time.monotonic() + limit
    while not os.path.exists(path):
        assert proc.poll() is None, proc.communicate()[1]
        assert time.monotonic() < deadline, "the bot was never called"
        time.sleep(0.05)


def signal_and_wait(proc, sig):
    """Send `sig`; (exit code, stderr, seconds from the signal to the exit)."""
    t = time.monotonic()
    os.kill(proc.pid, sig)
    try:
        _, err = proc.communicate(timeout=WAIT)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        pytest.fail(f"still running {WAIT} s after the signal; stderr: {err[-500:]}")
    return proc.returncode, err, time.monotonic() - t


def bot_file(tmp_path, text, name="loop_bot"):
    path = tmp_path / f"{name}.py"
    marker = tmp_path / f"{name}.called"
    path.write_text(text.format(marker=str(marker)))
    return path, marker


def resume_line(out):
    return f"interrupted: finished shards are kept in {out}; finish with the same command and --resume\n"


def test_ctrl_c_stops_a_run_whose_python_bot_never_returns(tmp_path):
    """The threads of the run are in a plain-Python score function that loops forever: Ctrl-C ends the run
    within about a second, exit 130, the resume line alone; --resume then starts over from what is kept."""
    bot, marker = bot_file(tmp_path, WORKER_LOOP)
    out = tmp_path / "run"
    proc = start("simulate", "--bot-file", str(bot), "--bots", "loop_bot,greedy", "--games", "400", "--workers",
                 "2", "--shard-size", "100", "--out", str(out), "--quiet")
    wait_for(marker, proc)
    code, err, took = signal_and_wait(proc, signal.SIGINT)
    assert (code, err) == (130, resume_line(out)), err
    assert took < STOPPED, took
    assert not list(out.glob("games/part-*")), "no shard played by a stopped bot is written"


def test_sigterm_stops_a_python_bot_that_never_returns_in_the_main_thread(tmp_path):
    """SIGTERM while the main thread is inside the bot (the warm-up game): exit 143, the same one line."""
    bot, marker = bot_file(tmp_path, LOOP)
    out = tmp_path / "run"
    proc = start("simulate", "--bot-file", str(bot), "--bots", "loop_bot,greedy", "--games", "100", "--out",
                 str(out), "--quiet")
    wait_for(marker, proc)
    code, err, took = signal_and_wait(proc, signal.SIGTERM)
    assert code == 143 and err.count("\n") == 1 and err.startswith("interrupted"), err
    assert took < STOPPED, took


def test_ctrl_c_while_the_core_compiles(tmp_path):
    """An empty Numba cache: the core compiles for a minute; Ctrl-C a few seconds in stops it at once."""
    proc = start("simulate", "--games", "100", "--out", str(tmp_path / "run"), "--quiet",
                 env={"NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")})
    time.sleep(5)
    assert proc.poll() is None, proc.communicate()[1]
    code, err, took = signal_and_wait(proc, signal.SIGINT)
    assert (code, err) == (130, "interrupted\n"), err
    assert took < STOPPED, took


def timed_out(tmp_path, text):
    """A 100-game simulate of the bot file `text` against greedy with --bot-timeout 1: the finished process."""
    bot, _ = bot_file(tmp_path, text)
    r = subprocess.run([sys.executable, "-m", "khasino_sim", "simulate", "--bot-file", str(bot), "--bots",
                        "loop_bot,greedy", "--games", "100", "--out", str(tmp_path / "run"), "--quiet",
                        "--bot-timeout", "1"], capture_output=True, text=True, timeout=COMPILE_WAIT)
    return bot, r


def test_bot_timeout_stops_a_python_bot(tmp_path):
    bot, r = timed_out(tmp_path, LOOP)
    assert r.returncode == 2, r.stderr
    assert re.fullmatch(rf"Error: bot file {re.escape(str(bot))}: score\(view, move\) did not return within 1 s "
                        r"\(--bot-timeout\), stopped at line \d, scoring .+ for seat \d .+; the run stopped\n",
                        r.stderr), r.stderr


def test_bot_timeout_ends_the_process_for_a_compiled_bot(tmp_path):
    """Compiled code cannot be stopped from outside: the process ends, in one line, exit 2."""
    bot, r = timed_out(tmp_path, COMPILED_LOOP)
    assert r.returncode == 2, r.stderr
    said = f"Error: bot file {bot}: score(view, move) did not return within 1 s (--bot-timeout; compiled code"
    assert r.stderr.count("\n") == 1 and r.stderr.startswith(said), r.stderr


def test_dask_scheduler_that_never_answers(tmp_path):
    """A listener that accepts the connection and says nothing: one line, exit 2, within seconds."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        address = "tcp://127.0.0.1:%d" % silent.getsockname()[1]
        t = time.monotonic()
        r = subprocess.run([sys.executable, "-m", "khasino_sim", "simulate", "--games", "100", "--dask", address,
                            "--out", str(tmp_path / "run")], capture_output=True, text=True, timeout=WAIT)
        took = time.monotonic() - t
    assert (r.returncode, r.stderr) == (2, f"Error: cannot reach the Dask scheduler at {address} within 5 s "
                                        "(no answer)\n"), r.stderr
    assert took < 30, took


def test_every_command_exits_130_on_ctrl_c(tmp_path):
    """simulate, tournament, match, balance, play, moves and bench, each signalled while busy (loading,
    compiling or playing): exit 130 and one line, no traceback or click's "Aborted!"."""
    from khasino_sim.kernels.core.bits import card_name
    cards = [card_name(i) for i in range(40)]
    state = tmp_path / "durban.json"        # 20 loose cards: its moves take minutes to list
    state.write_text(json.dumps({"format": "durban", "deal": 2, "to_move": 0, "hands": [cards[20:30], cards[30:]],
                                 "table": {"loose": cards[:20], "builds": []}, "piles": [[], []], "stock": [],
                                 "last_capturer": None}))
    big = "10000000"
    commands = {
        "simulate": ["simulate", "--games", big, "--out", str(tmp_path / "sim"), "--quiet"],
        "tournament": ["tournament", "--bots", "greedy,random", "--games", big, "--out", str(tmp_path / "tour")],
        "match": ["match", "ismcts:n=200000", "greedy"],
        "balance": ["balance", "--vary", "opponent_piles=true,false", "--games", big, "--out", str(tmp_path / "bal"),
                    "--quiet"],
        "play": ["play", "--bots", "ismcts:n=200000"],
        "moves": ["moves", str(state)],
        "bench": ["bench", "--games", big, "--formats", "khasino", "--pairings", "greedy-greedy"],
    }
    procs = {name: start(*args) for name, args in commands.items()}
    try:
        time.sleep(8)
        for name, proc in procs.items():
            assert proc.poll() is None, (name, proc.communicate()[1])
        for proc in procs.values():
            os.kill(proc.pid, signal.SIGINT)
        t = time.monotonic()
        results = {name: proc.communicate(timeout=WAIT)[1] for name, proc in procs.items()}
        took = time.monotonic() - t
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    for name, err in results.items():
        last = err.splitlines()[-1] if err.strip() else ""
        assert procs[name].returncode == 130 and last.startswith("interrupted"), (name, procs[name].returncode, err)
        assert "Traceback" not in err and "Aborted" not in err, (name, err)
    assert took < 5, took       # seven processes stopping at once on a busy machine


def test_ctrl_c_inside_a_command_run_in_process(tmp_path, monkeypatch):
    """Through click's CliRunner (the command in this process): a KeyboardInterrupt is the same one line and
    130, and the process's signal handlers are as they were."""
    import khasino_sim.engine as engine
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(engine, "count_moves", interrupted)
    state = tmp_path / "s.json"
    state.write_text(json.dumps(json.loads((FIXTURES / "perft" / "durban-deal-seed1.json").read_text())["state"]))
    r = CliRunner().invoke(main, ["moves", "--count", str(state)])
    assert (r.exit_code, r.stdout, r.stderr) == (130, "", "interrupted\n"), r.output
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before
