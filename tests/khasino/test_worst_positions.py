"""The worst positions for the core's per-position scratch, searched for in both formats.

The only per-position scratch whose size depends on the position is the subset table (every subset of loose
cards and reachable opponent pile cards with sum <= 10, at most one card per pile) and the usable pile depth.
`engine.scratch_high_water` runs that preparation alone and reports what it needed: it must never overflow,
whatever valid state it is given. Positions come from hand-made extremes and a seeded random search plus
hill-climb (tests/positions_search.py), and from random play. Run with `-s` (or `-rP`) to see the worst
positions found.
"""
import json
import multiprocessing
import time

import numpy as np
import pytest

from khasino_sim import engine, reference
from khasino_sim.formats import get_format
from khasino_sim.kernels.core import layout as L
from tests.khasino import positions_search as P

COUNT_SECONDS = 2.0          # a position is "small" when count_moves finishes within this (in a forked child)
ITER_CHECK_MOVES = 20_000    # small positions with at most this many moves: iter_moves agrees with the count
REF_CHECK_MOVES = 3_000      # ... and at most this many: the reference lists the same keys (if it is quick)
REF_SECONDS = 10.0


def check_high_water(state, hw=None):
    """scratch_high_water of a valid state: no overflow, every bound respected. Returns it."""
    if hw is None:
        hw = engine.scratch_high_water(state)
    where = json.dumps(state)
    assert not hw["overflow"], f"scratch overflow in {where}: {hw}"
    assert 0 < hw["subsets"] <= hw["subset_capacity"], f"{hw} in {where}"
    for k, cap in hw.items():               # any other <name> reported with a <name>_capacity
        if k.endswith("_capacity") and k[: -len("_capacity")] in hw:
            assert hw[k[: -len("_capacity")]] <= cap, f"{k[:-9]} over capacity: {hw} in {where}"
    if "pile_depth" in hw and "pile_capacity" in hw:
        assert hw["pile_depth"] <= hw["pile_capacity"], f"{hw} in {where}"
    bound = P.subset_bound(state)
    assert hw["subsets"] <= bound, f"subset table {hw['subsets']} above the exact bound {bound} in {where}"
    return hw


def subsets(state):
    return check_high_water(state)["subsets"]


# ---------------------------------------------------------------------------------------------------------
# counting in a forked child, with a time limit
# ---------------------------------------------------------------------------------------------------------
def _child(conn, fn, args):
    try:
        conn.send(("ok", fn(*args)))
    except BaseException as e:                      # noqa: BLE001 (reported to the parent)
        conn.send(("error", f"{type(e).__name__}: {e}"))
    finally:
        conn.close()


def run_limited(fn, args, seconds):
    """fn(*args) in a forked child killed after `seconds`: ("ok", value), ("error", text) or ("timeout", s)."""
    ctx = multiprocessing.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(send, fn, args), daemon=True)
    t = time.perf_counter()
    proc.start()
    send.close()
    try:
        if recv.poll(seconds):
            try:
                status, value = recv.recv()
            except EOFError:
                status, value = "error", f"child died (exit code {proc.exitcode})"
        else:
            status, value = "timeout", seconds
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        recv.close()
    return status, value, time.perf_counter() - t


def reference_keys(state):
    return sorted({m.key for m in reference.legal_moves(state)})


def check_counts(name, state):
    """count_moves of a small position never raises; iter_moves and (for tiny ones) the reference agree."""
    status, value, dt = run_limited(engine.count_moves, (state,), COUNT_SECONDS)
    assert status != "error", f"{name}: count_moves raised {value} on {json.dumps(state)}"
    if status == "timeout":
        return f"count > {COUNT_SECONDS:.0f} s (not counted)"
    n = value
    assert n >= 1, f"{name}: no legal move"
    note = f"{n} moves counted in {dt:.2f} s"
    if n <= ITER_CHECK_MOVES:
        keys = [m.key for m in engine.iter_moves(state)]
        assert len(keys) == len(set(keys)) == n, f"{name}: iter_moves disagrees with count_moves {n}"
        if n <= REF_CHECK_MOVES:
            status, ref, _ = run_limited(reference_keys, (state,), REF_SECONDS)
            assert status != "error", f"{name}: the reference raised {ref}"
            if status == "ok":
                assert sorted(keys) == ref, f"{name}: the core's moves are not the reference's"
                note += ", = reference"
    return note


@pytest.fixture(scope="module", autouse=True)
def warm():
    """Load the compiled functions once in this process, so forked children time only the count."""
    st = P.make_state("durban", 2, 0, [["5H"], ["9C"]], [], [[c for c in P.CARDS if c not in ("5H", "9C")], []],
                      last_capturer=0)
    engine.count_moves(st)
    engine.scratch_high_water(st)
    list(engine.iter_moves(st))


# ---------------------------------------------------------------------------------------------------------
# hand-made extremes
# ---------------------------------------------------------------------------------------------------------
HAND_MADE = P.hand_made()


@pytest.mark.parametrize("name,state", HAND_MADE, ids=[n for n, _ in HAND_MADE])
def test_hand_made_extreme(name, state):
    hw = check_high_water(state)
    note = check_counts(name, state)
    print(f"\n{name}: {hw}, bound {P.subset_bound(state)}; {note}")


def test_all_loose_fills_the_table_exactly():
    """39 loose cards (all but 10C): the table holds every subset with sum <= 10 and no pile card: 4,050.
    The largest subset table any 40-card position can need (the mover holds at least one card)."""
    name, st = HAND_MADE[0]
    assert name.startswith("khasino: 39 loose")
    assert P.subset_bound(st) == 4050
    for fmt in P.FORMATS:
        st = dict(st, format=fmt)
        assert check_high_water(st)["subsets"] == 4050


# ---------------------------------------------------------------------------------------------------------
# seeded search
# ---------------------------------------------------------------------------------------------------------
def report(fmt, what, v, st):
    hw = check_high_water(st)
    note = check_counts(f"{fmt} {what}", st)
    print(f"WORST {fmt} {what}: {v}; subsets {hw['subsets']} (bound {P.subset_bound(st)}), pile depth "
          f"{hw.get('pile_depth')}, {len(st['table']['loose'])} loose, opponent pile "
          f"{len(st['piles'][1 - st['to_move']])}; {note}\n  {json.dumps(st)}")


@pytest.mark.parametrize("fmt", P.FORMATS)
def test_search_worst_subset_tables(fmt):
    """(a) many loose low cards, (b) deep opponent piles, and both: the largest subset table found."""
    seen = []
    t = time.perf_counter()
    best = P.search(fmt, subsets, seed=2024, candidates=600, climbs=4, steps=150,
                    on_state=lambda st, v: seen.append(v))
    print(f"\n{fmt}: {len(seen)} positions scored in {time.perf_counter() - t:.1f} s, "
          f"largest subset table {max(seen)}")
    for style, (v, st) in best.items():
        report(fmt, f"{style} (subsets)", v, st)
    # the search does reach the big tables: near-all-loose positions hold thousands of subsets
    assert best["loose"][0] >= 4000
    if fmt == "khasino":
        v, st = best["realistic"]
        assert P.khasino_realistic(st) and v >= 300


@pytest.mark.parametrize("fmt", P.FORMATS)
def test_search_deepest_piles(fmt):
    """(b) the deepest usable opponent pile prefix, then the largest subset table among those."""
    def score(st):
        hw = check_high_water(st)
        return hw["pile_depth"], hw["subsets"]

    seen = []
    t = time.perf_counter()
    styles = ("pile", "mixed", "realistic") if fmt == "khasino" else ("pile", "mixed")
    best = P.search(fmt, score, seed=7, candidates=450, climbs=4, steps=150, styles=styles,
                    on_state=lambda st, v: seen.append(v))
    print(f"\n{fmt}: {len(seen)} positions scored in {time.perf_counter() - t:.1f} s, deepest {max(seen)}")
    for style, (v, st) in best.items():
        report(fmt, f"{style} (pile depth, subsets)", v, st)
    assert max(v[0] for v, _ in best.values()) >= 10


# ---------------------------------------------------------------------------------------------------------
# positions reached in play
# ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", P.FORMATS)
def test_random_play_never_overflows(fmt):
    f = get_format(fmt)
    n = 1000
    seeds = np.random.default_rng(20240 + len(fmt)).integers(0, 2**64 - 1, size=n, dtype=np.uint64,
                                                              endpoint=True)
    if fmt == "durban":
        seeds[0] = np.uint64(11851277274612836922)      # reaches a 444,815-move position (test_large_positions)
    t = time.perf_counter()
    out = engine.play_games(fmt, seeds, np.array([("random", "random")] * n), check=True)
    print(f"\n{fmt}: {n} random games in {time.perf_counter() - t:.1f} s")
    assert (out[:, L.G_OVERFLOW] == 0).all(), f"overflow in games {seeds[out[:, L.G_OVERFLOW] != 0]}"
    assert (out[:, L.G_BAD] == 0).all(), f"card accounting failed in games {seeds[out[:, L.G_BAD] != 0]}"
    assert (out[:, L.G_NO_MOVE] == 0).all()
    assert (out[:, L.G_TURNS] == f.deck).all()
    total = sum(out[:, L.G_SEAT0 + s * L.SEAT_FIELDS + L.SEAT_SCORE] for s in range(f.seats))
    assert (total == f.total_points).all()
