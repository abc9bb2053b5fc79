"""Issue 51: `khasino moves --limit` streams its first move at once, and `khasino moves --count` counts in fixed
memory (docs/ENGINE.md, "Listing").

- A listing window's generation stops at the first candidate past the window (the sink sets C_STOP and ends
  the selection enumerations under way): TWENTY, a Durban position with 20 loose cards and 177,544,394
  candidate moves, gave its first move after a whole enumeration (35 to 45 s on the 2-core machine) and now
  at once.
- The listing is the same, move for move and in the same order, whatever the window: a window that never
  fills runs the generator exactly as before the change, and windows of 1, 3, 7 ... candidates stop and
  start again at every window on positions of random walks of every format.
- `count_moves` counts the distinct keys class by class (key mod 2**b) in one fixed key table, splitting a
  class that would fill more than half of it: exact (equal to the distinct keys of the whole listing, also
  with a table so small that hundreds of passes are needed), and on SIXTEEN (16 loose cards, 2,440,294
  distinct moves) its memory does not grow with the position (before: every distinct key kept, about 190 MB
  more for SIXTEEN, 360 MB in all for `khasino moves --count`; 772 MB for a position of 8 million moves).
"""
import json
import random
import select
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
from click.testing import CliRunner

from khasino_sim import engine
from khasino_sim.cli import main as cli
from khasino_sim.formats import FORMATS
from khasino_sim.kernels.core import layout as L
from khasino_sim.kernels.core.workspace import new_workspace

TWENTY = {
    "format": "durban", "deal": 2, "to_move": 0,
    "hands": [["8H", "8D", "8C", "9H", "9D", "9C", "10S", "10H", "10D", "10C"],
              ["3D", "3C", "4D", "4C", "5D", "5C", "6D", "6C", "7D", "7C"]],
    "table": {"loose": ["AS", "AH", "AD", "AC", "2S", "2H", "2D", "2C", "3S", "3H", "4S", "4H", "5S", "5H", "6S",
                        "6H", "7S", "7H", "8S", "9S"], "builds": []},
    "piles": [[], []], "stock": [], "last_capturer": None,
}
TWENTY_CANDIDATES = 177_544_394
# the first moves of TWENTY as listed before the change (after a whole enumeration), in order
TWENTY_FIRST = [
    (12205916962532375884, "Play 8H to capture 8S"),
    (15043342161589595261, "Play 8H to capture 8S, 7H+AC"),
    (11781967463511284959, "Play 8H to capture 8S, 7H+AC, 7S+AD"),
    (14260175853047429020, "Play 8H to capture 8S, 7H+AC, 7S+AD, 6H+2C"),
    (11954327723771854666, "Play 8H to capture 8S, 7H+AC, 7S+AD, 6H+2C, 6S+2D"),
    (3070433810966192014, "Play 8H to capture 8S, 7H+AC, 7S+AD, 6H+2C, 6S+2D, 5H+3H"),
]

SIXTEEN = {
    "format": "durban", "deal": 2, "to_move": 0,
    "hands": [["8D", "8C", "9S", "9H", "9D", "9C", "10S", "10H", "10D", "10C"],
              ["4D", "4C", "5D", "5C", "6D", "6C", "7H", "7D", "7C", "8H"]],
    "table": {"loose": ["AS", "AH", "AD", "AC", "2S", "2H", "3S", "3H", "4S", "4H", "5S", "5H", "6S", "6H", "7S",
                        "8S"], "builds": []},
    "piles": [["2D", "2C", "3D", "3C"], []], "stock": [], "last_capturer": 0,
}
SIXTEEN_MOVES = 2_440_294

# a Khasino position whose moves take follow-ups (seat 0 owns the build of 9): 8,485 moves
FOLLOW = {
    "format": "khasino", "deal": 2, "to_move": 0,
    "hands": [["7C", "8C", "9D", "9C", "10D", "10C"], ["AS", "AC", "2S", "2C", "3D", "3C"]],
    "table": {"loose": ["AH", "AD", "2H", "2D", "3H", "4H", "5H", "6H", "7H", "8H"],
              "builds": [{"value": 9, "owner": 0, "groups": [["5S", "4S"], ["6S", "3S"]]}]},
    "piles": [["4D", "4C", "5D", "5C", "6D", "6C", "7S", "7D", "8S", "8D", "9S", "9H", "10S", "10H"], []],
    "stock": [], "last_capturer": 0,
}
FOLLOW_MOVES = 8_485

# a Kasino table of the largest kind reachable play makes (ranks 1-13 once and five more aces, docs/ENGINE.md
# "Scratch bounds"): 52,271 candidates, 369 distinct moves
KASINO_TABLE = ["AS", "AS", "AH", "AH", "AD", "AC", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "JH",
                "QH", "KH"]


def kasino_position():
    from tests.kasino.test_reference_kasino import position
    return position(hands=[["KS", "QS", "JS", "9S"], ["KC", "QC", "JC", "10C"]], table=KASINO_TABLE)


def small(fmt="durban"):
    """A small position of `fmt` (compiles or loads the listing and counting paths)."""
    return engine.new_game(fmt, seed=3)


def window(state, lo, hi):
    """One listing window's call: (candidates offered, stopped)."""
    fmt, st, rules = engine._position(state)
    ws = engine._workspace("list")
    n = engine._lister(fmt)(st, rules, int(st[L.S_TO_MOVE]), ws, L.SINK_LIST, lo, hi)
    return int(n), bool(ws[L.C_STOP])


def listing(state):
    return [(m.key, m.text, json.dumps(m.result, sort_keys=True)) for m in engine.iter_moves(state)]


def walk_positions(fmt, games=2, every=3, seed=0):
    """Positions of random walks through `fmt` (engine moves drawn uniformly), every `every`-th of each game."""
    rng = random.Random(seed)
    out = []
    for g in range(games):
        state = engine.new_game(fmt, seed=seed * 100 + g)
        step = 0
        while True:
            moves = engine.legal_moves(state)
            if not moves:
                break
            if step % every == 0:
                out.append(state)
            state = rng.choice(moves).result
            step += 1
    return out


@pytest.fixture(scope="module", autouse=True)
def warm():
    """Compile (or load) the Khasino listing and counting paths once, outside every timing."""
    engine.legal_moves(small(), limit=3)
    engine.count_moves(small())


# ---------------------------------------------------------------------------------------------------------
# the first move at once
# ---------------------------------------------------------------------------------------------------------
def test_first_move_of_twenty_loose_cards_comes_at_once():
    t = time.perf_counter()
    first = next(engine.iter_moves(TWENTY))
    dt = time.perf_counter() - t
    print(f"\nTWENTY: first move in {dt:.3f} s")
    assert dt < 10, f"the first move of TWENTY took {dt:.1f} s (a whole enumeration: 35 to 45 s before issue 51)"
    assert (first.key, first.text) == TWENTY_FIRST[0]


def test_first_moves_of_twenty_are_the_former_ones():
    got = [(m.key, m.text) for m in engine.legal_moves(TWENTY, limit=len(TWENTY_FIRST))]
    assert got == TWENTY_FIRST


def test_a_window_stops_generating_once_full():
    """The kernel comes back after the first candidate past the window (C_STOP), not after all 177 million."""
    n, stopped = window(TWENTY, 0, 1)
    assert stopped and n < 1_000, (n, stopped)
    n, stopped = window(TWENTY, 0, engine.LIST_RECORDS)
    assert stopped and n < 2 * engine.LIST_RECORDS, (n, stopped)
    far = 10 ** 12                                  # a window past every candidate: the whole position
    n, stopped = window(FOLLOW, far, far + 1)
    assert (n, stopped) == (FOLLOW_MOVES, False)
    n, stopped = window(FOLLOW, 100, 200)
    assert stopped and n < 1_000, (n, stopped)
    n, stopped = window(kasino_position(), 0, 1)
    assert stopped and n < 100, (n, stopped)
    n, stopped = window(kasino_position(), far, far + 1)
    assert (n, stopped) == (52_271, False)


def test_moves_limit_prints_the_first_move_at_once(tmp_path):
    f = tmp_path / "twenty.json"
    f.write_text(json.dumps(TWENTY))
    t = time.perf_counter()
    res = CliRunner().invoke(cli, ["moves", "--limit", "2", str(f)])
    dt = time.perf_counter() - t
    assert res.exit_code == 0, res.output
    lines = [json.loads(x) for x in res.output.splitlines()]
    assert [x["text"] for x in lines] == [text for _, text in TWENTY_FIRST[:2]]
    assert dt < 10, f"`moves --limit 2` took {dt:.1f} s"


def test_moves_streams_without_a_limit(tmp_path):
    """`khasino moves` with no limit prints its first lines long before the listing could end (TWENTY has 177
    million candidates): read the first line from a child process, then stop it."""
    f = tmp_path / "twenty.json"
    f.write_text(json.dumps(TWENTY))
    t = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "khasino_sim", "moves", str(f)], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 120)
        line = proc.stdout.readline() if ready else ""
        dt = time.perf_counter() - t
    finally:
        proc.kill()
        proc.wait()
    print(f"\nTWENTY: `khasino moves` printed its first line after {dt:.1f} s (process start included)")
    assert line, "no line within 120 s"
    assert json.loads(line)["text"] == TWENTY_FIRST[0][1]
    assert dt < 30, f"the first line took {dt:.1f} s"


# ---------------------------------------------------------------------------------------------------------
# the same listing whatever the window
# ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_listing_is_the_same_whatever_the_window(fmt, monkeypatch):
    """Positions of random walks: the moves, their order and their successors are those of a window that
    never fills (the generator as it ran before issue 51: each has far fewer than LIST_RECORDS candidates), with
    windows of 1 and 3 candidates (a stop and a new start at every window); `count_moves` is the number of
    distinct keys listed."""
    positions = walk_positions(fmt, games=1, every=4, seed=len(fmt))
    whole = [listing(s) for s in positions]
    assert sum(len(x) for x in whole) > len(positions)
    for w in (1, 3):
        monkeypatch.setattr(engine, "LIST_RECORDS", w)
        assert [listing(s) for s in positions] == whole, f"window {w}"
    monkeypatch.undo()
    assert [engine.count_moves(s) for s in positions] == [len({k for k, _, _ in x}) for x in whole]


def meaning(rec):
    """What a move record says (its slots past its groups and follow-ups hold whatever was there before)."""
    ng, nf = int(rec[L.M_GCOUNT]), int(rec[L.M_FCOUNT])
    return (tuple(int(x) for x in rec[:L.M_GROUPS]), tuple(int(x) for x in rec[L.M_GROUPS: L.M_GROUPS + ng]),
            tuple(int(x) for x in rec[L.M_FGROUPS: L.M_FGROUPS + nf]))


@pytest.mark.parametrize("state", [FOLLOW, TWENTY], ids=["follow", "twenty"])
def test_large_listing_is_the_same_whatever_the_window(state, monkeypatch):
    """Windows stopping inside follow-ups (FOLLOW) and deep in a large bucket's selections (TWENTY's first
    1,000 candidates): the same records in the same order as one window."""
    fmt, st, rules = engine._position(state)
    p = int(st[L.S_TO_MOVE])
    n = 1_000

    def records(w):
        monkeypatch.setattr(engine, "LIST_RECORDS", w)
        out = []
        for rec in engine._records(st, rules, p, engine._lister(fmt)):
            out.append(meaning(rec))
            if len(out) == n:
                break
        return out

    one = records(n)
    assert len(one) == n
    for w in (1, 7, 64, 999):
        assert records(w) == one, f"window {w}"


# ---------------------------------------------------------------------------------------------------------
# counting in fixed memory
# ---------------------------------------------------------------------------------------------------------
def distinct_keys(state):
    fmt, st, rules = engine._position(state)
    keys = [int(np.uint64(rec[L.M_KEY])) for rec in engine._records(st, rules, int(st[L.S_TO_MOVE]),
                                                                     engine._lister(fmt))]
    return len(set(keys))


@pytest.mark.parametrize("state,moves,slots", [(FOLLOW, FOLLOW_MOVES, 64), (kasino_position(), 369, 16)],
                         ids=["follow", "kasino"])
def test_count_is_exact_with_a_small_key_table(state, moves, slots):
    """A key table of a few slots: the classes are split again and again, each split-off half counted in a
    pass of its own; the passes' classes partition the keys, and the total is the number of distinct keys."""
    assert distinct_keys(state) == moves == engine.count_moves(state)
    fmt, st, rules = engine._position(state)
    ws = new_workspace(-(-slots // L.REC_SIZE))
    table = 1 << ((ws.shape[0] - L.WS_LIST).bit_length() - 1)
    passes = []
    assert engine._count_keys(st, rules, int(st[L.S_TO_MOVE]), engine._lister(fmt), ws, passes) == moves
    assert len(passes) >= 2 * moves // table, passes
    assert all(found <= table // 2 for *_, found in passes)
    # the classes counted (residue r, final bits) cover every 64-bit key once: their measures sum to 1
    assert sum(2.0 ** -final for _, _, final, _ in passes) == 1.0
    assert len({(r, final) for r, _, final, _ in passes}) == len(passes)


def test_count_of_sixteen_loose_cards_keeps_its_memory():
    """`count_moves` of SIXTEEN in a child process: the peak of its resident memory during the count (the high-
    water mark reset after a warm-up count, which loads the compiled code and makes the key table) stays within
    a few MB of its memory before it. Before issue 51 every distinct key was kept and the peak grew by about
    190 MB (360 MB in all for `khasino moves --count`)."""
    code = textwrap.dedent("""
        import json, resource, sys
        from khasino_sim import engine

        def status(name):
            for line in open("/proc/self/status"):
                if line.startswith(name + ":"):
                    return int(line.split()[1])         # kB

        engine.count_moves(engine.new_game("durban", seed=3))
        try:                                            # Linux: reset the peak (VmHWM) to the current RSS
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
            before, peak = status("VmRSS"), "VmHWM"
        except OSError:                                 # elsewhere: the peak so far
            before, peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, None
        n = engine.count_moves(json.loads(sys.argv[1]))
        after = status(peak) if peak else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(json.dumps([n, before, after]))
    """)
    out = subprocess.run([sys.executable, "-c", code, json.dumps(SIXTEEN)], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    n, before, after = json.loads(out.stdout.splitlines()[-1])
    print(f"\nSIXTEEN: {n} moves; resident {before / 1024:.0f} MB before the count, peak {after / 1024:.0f} MB")
    assert n == SIXTEEN_MOVES
    assert after - before < 16 * 1024, f"the count's peak memory grew by {(after - before) / 1024:.0f} MB"
