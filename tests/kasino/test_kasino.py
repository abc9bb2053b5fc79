"""Norwegian misère Kasino (N1–N7, RULES.md P22–P26) in the compiled core, against the pure-Python reference
(khasino_sim/reference_kasino.py, written from the rulings alone): the deal, the same distinct successor states
with the same keys on positions of random play (every format), the same whole rounds and matches for the same
seeds and bots, and the invariants of every round of many random matches.

The full counts (20,000 positions per format, 10,000 matches' invariants) run in `scripts/differential_kasino.py`;
this suite keeps a sample of each."""
import json
import random
from pathlib import Path

import numpy as np
import pytest

from khasino_sim import engine
from tests.helpers import compare_walk
from khasino_sim import reference_kasino as ref
from khasino_sim.formats import get_format
from khasino_sim.kernels.core import layout as L
from khasino_sim.kernels.kasino.game import play_kasino_matches

FORMATS = ["kasino-2p", "kasino-2p-alt", "kasino-3p", "kasino-4p", "kasino-5p", "kasino-6p"]
POSITIONS = 1_000           # per format
PAIRINGS = {2: [("random", "random"), ("greedy", "greedy"), ("greedy", "random")],
            3: [("random",) * 3, ("greedy",) * 3, ("greedy", "random", "random")],
            4: [("random",) * 4, ("greedy",) * 4, ("greedy", "random", "greedy", "random")],
            5: [("random",) * 5, ("greedy",) * 5, ("greedy", "random") * 2 + ("greedy",)],
            6: [("random",) * 6, ("greedy",) * 6, ("greedy", "random") * 3]}


def canon(state):
    return json.dumps(state, sort_keys=True)


def walk(fmt, positions, first_seed):
    """Random walks through reference rounds of `fmt`, compared position by position with the core
    (tests/helpers.py); returns the number of positions compared."""
    return compare_walk(ref, fmt, positions, first_seed)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMATS)
def test_same_successor_states(fmt):
    assert walk(fmt, POSITIONS, 70_000) == POSITIONS


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMATS)
def test_same_whole_rounds(fmt):
    seats = get_format(fmt).seats
    for bots in PAIRINGS[seats]:
        for seed in range(3):
            rnd = 1 + seed % seats
            want = ref.play_round(fmt, seed, bots, round=rnd)
            got = engine.play_round(fmt, seed, bots, round=rnd)
            assert got["keys"] == want["keys"], f"seed {seed}: the rounds diverge"
            assert canon(got["final"]) == canon(want["final"])
            assert [s["score"] for s in got["seats"]] == [s["total"] for s in want["scores"]]
            assert got["no_move"] == want["no_move"] == 0 and got["bad"] == 0


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMATS)
def test_same_whole_matches(fmt):
    """N7: the same rounds (dealt from the round seeds), the same match totals and the same winner."""
    seats = get_format(fmt).seats
    for seed, bots in enumerate(PAIRINGS[seats]):
        want = ref.play_match(fmt, seed, bots)
        got = engine.play_match(fmt, seed, bots)
        assert len(got["rounds"]) == len(want["rounds"]) == seats
        assert got["totals"] == want["totals"] and got["winner"] == want["winner"], f"seed {seed}"


def _rows(fmt, n, bots=0, nrounds=None):
    f = get_format(fmt)
    codes = np.full((n, f.seats), bots, dtype=np.int64)
    if bots == 2:       # greedy v random, alternating seats
        codes = (np.arange(f.seats)[None, :] + np.arange(n)[:, None]) % 2
    return f, play_kasino_matches(f.rules_array(), np.arange(n, dtype=np.uint64), codes, check=True,
                                  nrounds=nrounds)


def _seat(rows, s, field):
    return rows[:, L.G_SEAT0 + s * L.SEAT_FIELDS + field]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("bots", [0, 1, 2], ids=["random", "greedy", "greedy-random"])
def test_invariants_of_random_matches(fmt, bots):
    """Every round of 1,000 matches: all 104 cards accounted for after every move (`bad`), never a position
    without a legal move, no scratch overflow, 43 points per round (42 card points and the last capturer's),
    tabbe pluses and minuses cancelling, and each match won by the lowest total (pairs combined) or drawn."""
    f, rows = _rows(fmt, 1_000 if bots == 0 else 400, bots)
    assert rows[:, L.G_BAD].sum() == 0 and rows[:, L.G_NO_MOVE].sum() == 0 and rows[:, L.G_OVERFLOW].sum() == 0
    seats = range(f.seats)
    assert (sum(_seat(rows, s, L.SEAT_SCORE) for s in seats) == 43).all()
    assert (sum(_seat(rows, s, L.SEAT_CARD_POINTS) for s in seats) == 42).all()
    assert (sum(_seat(rows, s, L.SEAT_LAST_POINT) for s in seats) == 1).all()
    assert (sum(_seat(rows, s, L.SEAT_TABBE_PLUS) + _seat(rows, s, L.SEAT_TABBE_MINUS) for s in seats) == 0).all()
    assert (rows[:, L.G_TURNS] == 104 - f.table_init).all()
    assert (rows[:, L.G_DEALER] == (rows[:, L.G_ROUND] + f.seats - 2) % f.seats).all()
    last = rows[rows[:, L.G_ROUND] == f.seats]
    totals = np.stack([_seat(last, s, L.SEAT_MATCH_TOTAL) for s in seats], axis=1)
    team = np.array([f.team_of(s) for s in seats])
    low = totals.min(axis=1)
    winners = [set(team[totals[i] == low[i]]) for i in range(len(last))]
    want = np.array([w.pop() if len(w) == 1 else -1 for w in winners])
    assert (last[:, L.G_MATCH_WINNER] == want).all()
    for t in range(f.n_teams):      # N7: each seat holds its pair's total
        members = [s for s in seats if team[s] == t]
        assert all((totals[:, s] == totals[:, members[0]]).all() for s in members)


def test_greedy_takes_the_fewest_points():
    """Greedy (misère) gives away fewer points per round than random play against it."""
    f, rows = _rows("kasino-2p", 400, 2)
    match = rows[:, L.G_MATCH]
    greedy_seat = (np.arange(2)[None, :] + match[:, None]) % 2 == 1
    scores = np.stack([_seat(rows, s, L.SEAT_SCORE) for s in range(2)], axis=1)
    assert scores[greedy_seat].mean() < scores[~greedy_seat].mean()


def test_json_round_trip_and_fields():
    s = engine.new_game("kasino-6p", 3, round=4, scores=[5, 1, 2, 5, 1, 2])
    assert (s["dealer"], s["round"], s["rounds"], s["last_player"], s["to_move"]) == (2, 4, 6, 2, 3)
    assert s["teams"] == [[0, 3], [1, 4], [2, 5]] and s["tabbe"] == [[0, 0]] * 6 and s["set_aside"] == []
    assert [len(h) for h in s["hands"]] == [5] * 6 and len(s["table"]["loose"]) == 2 and len(s["stock"]) == 72
    from khasino_sim.state_json import parse, to_json
    fmt, st, _ = parse(s)
    assert canon(to_json(st, fmt)) == canon(s)


@pytest.mark.parametrize("change, message", [
    ({"rounds": 3}, "multiple of 2"),
    ({"tabbe": [[-5, 0], [0, 5]]}, "plus >= 0, minus <= 0"),
    ({"set_aside": ["7H"]}, "appears more than twice|only face cards"),
    ({"teams": [[0, 1]]}, "has no pairs"),
    ({"deal": 13}, "deal must be 1..12"),
    ({"to_move": 1}, "hand sizes"),
    ({"table": {"loose": ["3H"], "builds": []}}, "appears more than twice"),
])
def test_bad_json_states_are_one_line(change, message):
    from khasino_sim.state_json import StateError, parse
    s = {**engine.new_game("kasino-2p", 2), **change}
    with pytest.raises(StateError, match=message):
        parse(s)


def test_table_size_bound_holds_in_play():
    """docs/ENGINE.md "Scratch bounds" (Kasino): a card crawls only with no card of its rank on the table, so a
    rank is on the table at most once unless its copies came from the first deal's table cards; hence at most
    13 + 5 = 18 table cards, whose subsets with sum at most 14 number at most 2,047 (MAX_SUBSETS: 28,944)."""
    from collections import Counter
    from khasino_sim.kernels.core.layout import MAX_SUBSETS
    for fmt in FORMATS:
        f = get_format(fmt)
        for g in range(6):
            state = engine.new_game(fmt, 900 + g)
            initial = Counter(c[:-1] for c in state["table"]["loose"])
            rng = random.Random(g)
            while not state["over"]:
                table = Counter(c[:-1] for c in state["table"]["loose"])
                assert sum(table.values()) <= 18 and MAX_SUBSETS >= 2_047
                for r, k in table.items():
                    assert k <= max(1, initial[r]), (fmt, state)
                state = rng.choice(engine.legal_moves(state)).result
            assert f.table_init <= 6


GOLDEN = sorted((Path(__file__).parent / "fixtures" / "golden").glob("kasino-*.json"))


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_golden_traces(path):
    """A whole round per format, recorded with the reference (scripts/make_kasino_golden.py), replayed by the
    core key for key, with the same round scores and perft counts of its first position."""
    from khasino_sim.perft import perft
    rec = json.loads(path.read_text())
    got = engine.play_round(rec["format"], rec["seed"], rec["bots"], round=rec["round"])
    assert [f"{k:016x}" for k in got["keys"]] == rec["keys"]
    assert [s["score"] for s in got["seats"]] == rec["scores"]
    state = engine.new_game(rec["format"], rec["seed"], round=rec["round"])
    assert canon(state) == canon({"options": state["options"], **rec["state"]})    # recorded before `options`
    assert state["options"] == {"alt_deal": rec["format"] == "kasino-2p-alt", "compulsory_tabbe": True,
                                "tabbe_value": 5}
    for depth, want in rec["perft"].items():
        assert perft(state, int(depth), engine.legal_moves) == want


def test_golden_traces_exist():
    assert sorted(p.stem for p in GOLDEN) == sorted(FORMATS)
