"""Norwegian misère Kasino (N1-N7, P22-P26; docs/rules/kasino.md, docs/rules/project.md) in the compiled core:
what the conformance suite (tests/conformance) does not cover for every format. Whole matches of one round per
seat (N7), the greedy bot's misère play, the JSON state and the table-size bound of docs/ENGINE.md. (The walks
against the reference, khasino_sim/reference/kasino.py, whole rounds and matches, the invariants of every round
of many matches and the golden traces are tests/conformance's.)

The full counts (20,000 positions per format, 10,000 matches' invariants) run in `scripts/differential_kasino.py`."""
import random

import numpy as np
import pytest

from khasino_sim import engine
from khasino_sim.formats import get_format
from khasino_sim.kernels.core import layout as L
from tests.helpers import batch_rows, canon, pairings, same_whole_matches, seat_field

FORMATS = ["kasino-2p", "kasino-2p-alt", "kasino-3p", "kasino-4p", "kasino-5p", "kasino-6p"]


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMATS)
def test_matches_have_one_round_per_seat(fmt):
    """N7: a match is one round dealt by each seat in turn; the core's and the reference's rounds, totals and
    winner agree (the conformance suite compares match 0 of every pairing; these are matches 1 and 2)."""
    seats = get_format(fmt).seats
    for seed, bots in list(enumerate(pairings(fmt)))[1:]:
        assert len(engine.play_match(fmt, seed, bots)["rounds"]) == seats
        same_whole_matches(fmt, [seed], bots)       # the reference's: as many rounds, the same totals


def test_greedy_takes_the_fewest_points():
    """Greedy (misère) gives away fewer points per round than random play against it."""
    f, rows = batch_rows("kasino-2p", 400, 2)
    match = rows[:, L.G_MATCH]
    greedy_seat = (np.arange(2)[None, :] + match[:, None]) % 2 == 1
    scores = np.stack([seat_field(rows, s, L.SEAT_SCORE) for s in range(2)], axis=1)
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
