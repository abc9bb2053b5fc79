"""A position with far more legal moves than any fixed move list would hold: the core enumerates it streaming.

BIG is the position at the start of deal 2 of durban game 11851277274612836922 (random v random), reached
after the 20 moves of deal 1: 13 loose cards, four aces on top of seat 1's pile (K8) and ten cards in each hand
give 444,815 distinct legal moves (P7): 63,166 captures, 381,639 builds and 10 trails, no load (no build on
the table) and no change. The pure-Python reference lists them in about 35-45 s (marked slow).

The per-kind counts are checked on the reference's list only: iterating all 444,815 engine moves with their
successor states (`engine.iter_moves`) takes about 120 s, so the core is checked by its count, its first
moves, and by playing the whole game key for key like the reference.
"""
import collections
import itertools
import json
import subprocess
import sys
import time
import tracemalloc

import pytest

from khasino_sim import engine, reference
from khasino_sim.state_json import from_json

BIG = {
    "format": "durban", "deal": 2, "to_move": 0,
    "hands": [["2S", "6S", "6H", "6D", "6C", "7S", "7D", "8H", "10S", "10H"],
              ["2H", "3S", "3H", "3C", "5S", "7H", "8C", "9S", "9H", "10C"]],
    "table": {"loose": ["2D", "2C", "3D", "4S", "4H", "5H", "5D", "5C", "7C", "8S", "9D", "9C", "10D"],
              "builds": []},
    "piles": [["4D", "4C", "8D"], ["AC", "AD", "AH", "AS"]],
    "stock": [], "last_capturer": 1,
}
BIG_SEED = 11851277274612836922
BIG_MOVES = 444_815
BIG_KINDS = {"capture": 63_166, "build": 381_639, "trail": 10}
BIG_AT = 20                   # BIG is the position after the first BIG_AT moves of game BIG_SEED


def khasino(*args):
    return subprocess.run([sys.executable, "-m", "khasino_sim", *args], capture_output=True, text=True,
                          timeout=600)


@pytest.fixture(scope="module")
def big_file(tmp_path_factory):
    f = tmp_path_factory.mktemp("large") / "big.json"
    f.write_text(json.dumps(BIG))
    return f


def without_over(state):
    """The state as BIG writes it: no `over`, and no `options` (BIG is durban's own rules, written without them)."""
    if "options" in state:
        from khasino_sim.state_json import options_json
        from khasino_sim.formats import get_format
        assert state["options"] == options_json(get_format(state["format"]))
    return {k: v for k, v in state.items() if k not in ("over", "options")}


# ---------------------------------------------------------------------------------------------------------
# the count, streaming
# ---------------------------------------------------------------------------------------------------------
def test_big_is_valid():
    from_json(BIG)


def test_count_moves():
    t = time.perf_counter()
    assert engine.count_moves(BIG) == BIG_MOVES
    print(f"\ncount_moves: {BIG_MOVES} distinct moves in {time.perf_counter() - t:.2f} s")
    assert engine.count_moves(json.dumps(BIG)) == BIG_MOVES       # JSON text too


def test_count_moves_memory_is_bounded():
    """Counting keeps (at most) the set of distinct keys, never the moves: 444,815 keys are 3.6 MB as
    64-bit integers, a Python set of them under 40 MB; a list of moves with states would be gigabytes."""
    engine.count_moves(BIG)                     # compile / warm up outside the measurement
    tracemalloc.start()
    try:
        n = engine.count_moves(BIG)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    print(f"\ncount_moves: Python peak {peak / 2**20:.1f} MiB")
    assert n == BIG_MOVES
    assert peak < 64 * 2**20


def test_scratch_high_water_of_big():
    hw = engine.scratch_high_water(BIG)
    print(f"\nscratch_high_water: {hw}")
    assert not hw["overflow"]
    assert 0 < hw["subsets"] <= hw["subset_capacity"]


def test_iter_moves_is_lazy():
    """The first moves come at once, without the whole list being built, and each is a real move."""
    list(engine.iter_moves(json.dumps({**BIG, "hands": [["2S"], ["2H"]],
                                       "piles": [BIG["piles"][0] + BIG["hands"][0][1:] + BIG["hands"][1][1:],
                                                 BIG["piles"][1]]})))      # compile outside the timing
    t = time.perf_counter()
    first = list(itertools.islice(engine.iter_moves(BIG), 1000))
    dt = time.perf_counter() - t
    assert len(first) == 1000 and len({m.key for m in first}) == 1000
    assert dt < 10, f"the first 1000 moves took {dt:.1f} s: the generator is not streaming"
    for m in first[:20]:
        res = from_json(m.result)
        assert res is not None and m.result["to_move"] == 1
        assert m.kind in BIG_KINDS and m.card in BIG["hands"][0] and m.text
        assert m.card not in m.result["hands"][0]


def test_legal_moves_limit():
    moves = engine.legal_moves(BIG, limit=5)
    assert len(moves) == 5 and len({m.key for m in moves}) == 5
    for m in moves:
        from_json(m.result)
        assert m.kind in BIG_KINDS and m.card in BIG["hands"][0]


# ---------------------------------------------------------------------------------------------------------
# the CLI
# ---------------------------------------------------------------------------------------------------------
def test_cli_count(big_file):
    r = khasino("moves", str(big_file), "--count")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [str(BIG_MOVES)]


def test_cli_limit(big_file):
    r = khasino("moves", str(big_file), "--limit", "5")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 5
    for ln in lines:
        m = json.loads(ln)
        assert set(m) >= {"card", "kind", "text", "result"}
        assert m["kind"] in BIG_KINDS and m["card"] in BIG["hands"][0]
        from_json(m["result"])
        assert m["result"]["to_move"] == 1
    assert len({json.dumps(json.loads(ln)["result"], sort_keys=True) for ln in lines}) == 5   # P7


# ---------------------------------------------------------------------------------------------------------
# the game that found it
# ---------------------------------------------------------------------------------------------------------
def reference_deal_one(seed=BIG_SEED):
    """The first BIG_AT moves of the reference game (deal 1: small positions): (keys, state, bot stream)."""
    st = reference.initial_state("durban", seed)
    rng = reference.SplitMix64(reference.fmix((seed & reference.M64) ^ reference.BOT_SALT))
    keys = []
    for _ in range(BIG_AT):
        m = reference.choose("random", reference.legal_moves(st), rng.next())
        keys.append(m.key)
        st = m.result
    return keys, st, rng


def test_game_reaches_big_and_completes():
    """The core plays the whole game through BIG (it overflowed the old fixed move list there)."""
    keys, st, _ = reference_deal_one()
    assert without_over(st) == BIG, "the reference no longer reaches BIG after deal 1 of this game"
    game = engine.play_game("durban", BIG_SEED, ("random", "random"))
    assert game["keys"][:BIG_AT] == keys
    assert game["turns"] == 40 and len(game["keys"]) == 40
    assert game["no_move"] == 0 and game["bad"] == 0
    assert sum(s["score"] for s in game["seats"]) == 11
    assert game["final"]["over"] is True


@pytest.mark.slow
def test_reference_count_and_game():
    """The reference lists BIG (35-45 s): the same 444,815 distinct keys by kind, and the rest of the game
    it then plays is the core's, key for key."""
    keys, st, rng = reference_deal_one()
    assert without_over(st) == BIG
    t = time.perf_counter()
    moves = reference.legal_moves(st)
    print(f"\nreference.legal_moves(BIG): {len(moves)} moves in {time.perf_counter() - t:.1f} s")
    distinct = {m.key: m for m in moves}
    assert len(distinct) == BIG_MOVES
    assert dict(collections.Counter(m.kind for m in distinct.values())) == BIG_KINDS
    m = reference.choose("random", moves, rng.next())
    del moves, distinct
    keys.append(m.key)
    st = m.result
    while not st.get("over"):
        m = reference.choose("random", reference.legal_moves(st), rng.next())
        keys.append(m.key)
        st = m.result
    game = engine.play_game("durban", BIG_SEED, ("random", "random"))
    assert game["keys"] == keys
    assert without_over(game["final"]) == without_over(st)
    assert [s["score"] for s in game["seats"]] == [s["total"] for s in reference.score(st)]
