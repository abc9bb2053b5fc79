"""Compile only what a run uses (docs/ENGINE.md, "Compile time"): the game kernels are specialised on their
family and on whether a bot searches, the host calls each specialisation's entry point, and the package's
call hook keeps constant arguments from making copies of the shared functions. Games are unchanged: the
golden traces, perft counts and differential tests of tests/conformance hold the same kernels to the same
games. No test here times anything."""
import os
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from numba import njit, typeof, types

import khasino_sim.kernels as K
from khasino_sim import compile_bench
from khasino_sim.cli import main
from khasino_sim.engine import bot_id
from khasino_sim.formats import get_format
from khasino_sim.kernels.core import layout as L
from khasino_sim.kernels.core.heuristic import searches
from khasino_sim.kernels.core.sink import write_record
from khasino_sim.kernels.core.specialise import call, entry
from khasino_sim.kernels.core.workspace import new_workspace
from khasino_sim.kernels.khasino.game import play_batch
from khasino_sim.kernels.khasino.search import decide, NO_DECISION
from khasino_sim.kernels.khasino.state import init_state


def test_searching_is_set_by_the_bots_that_search():
    assert searches([L.BOT_RANDOM, L.BOT_GREEDY, L.BOT_HEURISTIC]) == 0
    assert searches(np.array([[L.BOT_GREEDY, L.BOT_ISMCTS]])) == 1
    assert searches([L.BOT_ROLLOUT]) == 1
    assert searches([bot_id("ismcts:n=50")]) == 1          # a row of the bot table, with its own parameters
    assert searches([bot_id("heuristic:cards=20")]) == 0


@njit
def _write_with_constants(ws):
    write_record(ws, L.WS_BEST, L.KIND_CAPTURE, 5, 6, 0, 0, 0, 0, np.uint64(7), 0)


def test_constant_arguments_make_no_copies_of_a_shared_function():
    """The call hook types a constant passed to a kernel function as its plain type (KIND_CAPTURE as int64, not
    Literal[int](0)): one compiled write_record serves every call site."""
    _write_with_constants(np.zeros(L.WS_SIZE, dtype=np.int64))
    assert write_record.signatures
    for sig in write_record.signatures:
        assert not any(isinstance(t, types.Literal) for t in sig), sig


def _khasino_position():
    fmt = get_format("khasino")
    rules = fmt.rules_array()
    st = np.zeros(L.STATE_SIZE, dtype=np.int64)
    init_state(st, rules, np.arange(104, dtype=np.int64) % 52)
    return rules, st


def test_the_host_calls_one_compiled_specialisation():
    rules, st = _khasino_position()
    ws = new_workspace()
    stream = np.array([3], dtype=np.uint64)
    args = (np.int64(L.BOT_GREEDY), st, rules, np.int64(0), ws, stream, np.int64(NO_DECISION), np.int64(-1))
    f = entry(decide, (L.FAMILY_KHASINO, 0), args)
    assert entry(decide, (L.FAMILY_KHASINO, 0), args) is f                      # kept, not looked up again
    sig = (types.literal(L.FAMILY_KHASINO), types.literal(0)) + tuple(typeof(a) for a in args)
    assert sig in decide.overloads
    n = call(decide, (L.FAMILY_KHASINO, 0), *args)
    assert n > 0 and ws[L.C_OVERFLOW] == 0


def test_a_kernel_compiled_without_the_search_reports_a_search_bot():
    """`searching` 0 leaves the search out; a search bot met there (never: the host sets `searching` from the
    run's bots) is reported as an overflow, which a run turns into an error, not a silent move."""
    rules, st = _khasino_position()
    ws = new_workspace()
    stream = np.array([3], dtype=np.uint64)
    call(decide, (L.FAMILY_KHASINO, 0), np.int64(L.BOT_ROLLOUT), st, rules, np.int64(0), ws, stream,
         np.int64(NO_DECISION), np.int64(-1))
    assert ws[L.C_OVERFLOW] == 1


def test_a_batch_with_a_search_bot_is_played_with_the_search():
    fmt = get_format("khasino")
    bots = np.array([[bot_id("rollout:n=8"), L.BOT_RANDOM]], dtype=np.int64)
    rows = play_batch(fmt.rules_array(), np.arange(1, dtype=np.uint64), bots, check=True)
    assert rows[0, L.G_OVERFLOW] == 0 and rows[0, L.G_NO_MOVE] == 0 and rows[0, L.G_BAD] == 0


def test_the_stale_cache_stamp_finds_numbas_own_folders(monkeypatch, tmp_path):
    """With NUMBA_CACHE_DIR set (a CI job's kept cache), the package drops stale code from the folders Numba
    itself uses for each kernel source folder."""
    from numba.core.caching import _CacheLocator
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    here = os.path.dirname(K.__file__)
    sources = [Path(here, "core", "offer.py"), Path(here, "movegen.py")]
    root, folders = K._cache_folders(Path(here), sources)
    assert str(root) == str(tmp_path)
    assert {f.name for f in folders} == {_CacheLocator.get_suitable_cache_subpath(str(p)) for p in sources}


def test_compile_bench_reports_each_part(monkeypatch):
    """`bench --compile` times each part in a fresh process; here the process is replaced by a stand-in, so
    only the report's shape is checked."""
    seen = []

    def child(fmt, bots, cache):
        seen.append((fmt, tuple(bots), cache))
        return {"import_s": 1.0, "first_game_s": 2.0 if len(seen) % 2 else 0.5, "process_s": 3.0}

    monkeypatch.setattr(compile_bench, "_child", child)
    report = compile_bench.run((("khasino", ("greedy", "random")), ("cassino", ("ismcts", "random"))))
    assert [(p["format"], p["bots"]) for p in report["parts"]] == [("khasino", ["greedy", "random"]),
                                                                    ("cassino", ["ismcts", "random"])]
    assert all(p["cold_s"] == 2.0 and p["cached_s"] == 0.5 for p in report["parts"])
    assert seen[0][2] == seen[1][2] != seen[2][2]           # cold then cached on one new cache, per part


@pytest.mark.parametrize("args", [["--compile", "--formats", "nope"]])
def test_compile_bench_bad_input_is_one_line(args):
    r = CliRunner().invoke(main, ["bench", *args])
    assert r.exit_code == 2
    assert len(r.output.strip().splitlines()) == 1


def test_the_one_deck_core_refuses_a_kasino_ruleset():
    """Kasino's game is compiled apart (kernels/dispatch.py); handed to the one-deck core's batch player it is a
    clear error, never Khasino's move rules run on a Kasino state."""
    fmt = get_format("kasino-4p")
    with pytest.raises(ValueError, match="Kasino"):
        play_batch(fmt.rules_array(), np.arange(1, dtype=np.uint64), np.zeros((1, fmt.seats), dtype=np.int64))
