"""Classic Cassino (C1-C8, P16-P21; docs/rules/cassino.md, docs/rules/project.md) in the compiled core: what the
conformance suite (tests/conformance) does not cover for every format. The core against the pure-Python reference
(khasino_sim/reference/cassino.py) under the rule options (face_values, ace_14, sweeps): the same distinct
successor states with the same keys on positions of random play, the same whole rounds and matches; the round
seeds, single rounds, the dealer's rotation, the invariants with every option, the JSON state, the CLI and
simulate. (The default rules' walks, whole rounds, matches and invariants are tests/conformance's.)

The full counts (20,000 positions per format and option set) run in `scripts/differential_cassino.py`; this
suite keeps a sample of each."""
import json

import numpy as np
import pytest

from khasino_sim import engine
from khasino_sim import reference_cassino as ref
from khasino_sim.kernels.core import layout as L
from tests.helpers import batch_rows, canon, pairings, same_whole_games, same_whole_matches, seat_field, walk

FORMATS = ["cassino", "cassino-3p", "cassino-4p"]
OPTION_SETS = [{}, {"face_values": True}, {"ace_14": True}, {"sweeps": True},
               {"face_values": True, "ace_14": True, "sweeps": True}]
OPTION_POSITIONS = 300      # per format and option set (the default rules: tests/conformance, 1,000 per format)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("options", OPTION_SETS[1:], ids=lambda o: "+".join(o))
def test_same_successor_states_with_options(fmt, options):
    assert walk(fmt, OPTION_POSITIONS, 60_000, options=options) == OPTION_POSITIONS


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMATS)
def test_same_whole_rounds_with_every_option(fmt):
    """Eight whole rounds per bot pairing (rounds rotating with the seed) under face_values + ace_14 + sweeps:
    every move key, the final state and the scores (the default rules: tests/conformance)."""
    for bots in pairings(fmt):
        same_whole_games(fmt, range(8), bots, options=OPTION_SETS[-1])


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMATS)
def test_same_whole_matches_with_sweeps(fmt):
    """P21 with the sweeps option (C1): the same rounds (dealt from the round seeds), the same match totals and
    the same winner (the default rules: tests/conformance)."""
    for seed, bots in enumerate(pairings(fmt) * 2):
        same_whole_matches(fmt, [seed], bots, options={"sweeps": True})


def test_round_seeds_are_splitmix_outputs():
    from khasino_sim.kernels.core.rng import round_seed
    for g in (0, 1, 2**63 + 5, 2**64 - 1):
        for r in (1, 2, 7):
            assert int(round_seed(np.uint64(g), r)) == ref.round_seed(g, r)


@pytest.mark.parametrize("fmt", FORMATS)
def test_invariants_with_every_option(fmt):
    f, rows = batch_rows(fmt, 300, 0, OPTION_SETS[-1])
    assert rows[:, L.G_BAD].sum() == 0 and rows[:, L.G_NO_MOVE].sum() == 0 and rows[:, L.G_OVERFLOW].sum() == 0
    sweeps = sum(seat_field(rows, s, L.SEAT_SWEEPS) for s in range(f.seats))
    assert sweeps.sum() > 0


def test_single_rounds():
    """`--rounds 1`: each match is one round, won by the highest round score (a tie has no winner)."""
    f, rows = batch_rows("cassino", 500, 2, single=True)
    assert len(rows) == 500 and (rows[:, L.G_ROUND] == 1).all()
    s0, s1 = seat_field(rows, 0, L.SEAT_SCORE), seat_field(rows, 1, L.SEAT_SCORE)
    assert (rows[:, L.G_MATCH_WINNER] == np.where(s0 > s1, 0, np.where(s1 > s0, 1, -1))).all()


def test_dealer_rotates_each_round():
    """P20: round r is dealt by seat (r + n - 2) mod n and led by the seat after it."""
    for fmt in FORMATS:
        f, rows = batch_rows(fmt, 200)
        r = rows[:, L.G_ROUND]
        assert (rows[:, L.G_DEALER] == (r + f.seats - 2) % f.seats).all()
        assert (rows[:, L.G_LEADER] == (rows[:, L.G_DEALER] + 1) % f.seats).all()


# ---- JSON state, CLI and simulate -------------------------------------------------------------------------------
def test_json_state_fields_and_round_trip():
    s = engine.new_game("cassino-4p", 11, options={"sweeps": True}, round=3, scores=[9, 4, 9, 4])
    assert s["options"] == {"ace_14": False, "face_values": False, "sweeps": True}
    assert (s["dealer"], s["round"], s["scores"], s["sweeps"]) == (1, 3, [9, 4, 9, 4], [0, 0, 0, 0])
    assert s["teams"] == [[0, 2], [1, 3]] and s["to_move"] == 2 and s["deal"] == 1
    assert len(s["table"]["loose"]) == 4 and [len(h) for h in s["hands"]] == [4] * 4 and len(s["stock"]) == 32
    assert "promises" not in s and "decision" not in s
    from khasino_sim.state_json import parse, to_json
    fmt, st, _ = parse(s)
    assert canon(to_json(st, fmt)) == canon(s)


@pytest.mark.parametrize("change, message", [
    ({"options": {"sweep": True}}, "unknown rule option 'sweep'"),
    ({"options": {"sweeps": 1}}, "must be true or false"),
    ({"teams": [[0, 1], [2, 3]]}, "teams must be"),
    ({"dealer": 7}, "dealer must be a seat"),
    ({"scores": [1, 2]}, "scores must hold 4"),
    ({"deal": 4}, "deal must be 1..3"),
    ({"scores": [5, 3, 7, 3]}, "partners hold their team's total"),
])
def test_bad_json_states_are_one_line(change, message):
    from khasino_sim.state_json import StateError, parse
    s = {**engine.new_game("cassino-4p", 2), **change}
    with pytest.raises(StateError, match=message):
        parse(s)


def test_cli_moves_options_and_bad_input(tmp_path):
    from click.testing import CliRunner
    from khasino_sim.cli import main
    state = engine.new_game("cassino", 5)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(state))
    r = CliRunner().invoke(main, ["moves", str(path)])
    assert r.exit_code == 0
    lines = [json.loads(x) for x in r.output.splitlines()]
    assert len(lines) == len(engine.legal_moves(state)) and {m["kind"] for m in lines} <= \
        {"capture", "build", "load", "change", "trail"}
    r = CliRunner().invoke(main, ["options"])
    assert r.exit_code == 0 and "face_values" in r.output and "ace_14" in r.output and "sweeps" in r.output
    path.write_text(json.dumps({**state, "options": {"jokers": True}}))
    r = CliRunner().invoke(main, ["moves", str(path)])
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1 and "jokers" in r.output
    for args, text in ((["--set", "follow_ups=false"], "unknown rule option"), (["--rounds", "2"], "--rounds"),
                       (["--set", "sweeps=maybe"], "true or false")):
        r = CliRunner().invoke(main, ["simulate", "--format", "cassino", "--games", "10", "--out",
                                      str(tmp_path / "x"), *args])
        assert r.exit_code == 2 and text in r.output and "Traceback" not in r.output
    r = CliRunner().invoke(main, ["simulate", "--format", "khasino", "--games", "10", "--rounds", "1",
                                  "--out", str(tmp_path / "y")])
    assert r.exit_code == 2 and "single games" in r.output


def test_simulate_writes_matches_rounds_and_seats(tmp_path):
    import pandas as pd
    from khasino_sim.runs import simulate, load
    out = simulate("cassino-4p", games=600, bots=("greedy", "random"), seed=3, out=tmp_path / "m",
                   shard_size=250, options={"sweeps": "true"}, workers=2)
    games = pd.read_parquet(out / "games").sort_values("game")
    seats = load(out)
    rounds = load(out, "rounds").sort_values(["game", "round"])
    assert len(games) == 600 and len(seats) == 2400 and len(rounds) == games.rounds.sum()
    assert (games.options.astype(str).str.contains('"sweeps": true')).all()
    last = rounds.groupby("game").tail(1).set_index("game")
    assert (last.match_winner.values == games.winner.values).all()
    assert (last.total_0.values == games.score_0.values).all() and (games.score_0 == games.score_2).all()
    assert (rounds.groupby("game").head(-1).match_winner == -1).all()
    assert games.sweeps.sum() == sum(rounds[f"sweeps_{s}"].sum() for s in range(4)) > 0
    # teams swap sides every match (rotation by one seat, C8): greedy plays seats 0+2 in even matches
    assert (games.bot_0.astype(str) == np.where(games.game % 2 == 0, "greedy", "random")).all()
    assert (games.bot_0.astype(str) == games.bot_2.astype(str)).all()
    won = seats[seats.won]
    assert set(won.groupby("game").seat.apply(lambda x: tuple(sorted(x)))) <= {(0, 2), (1, 3)}
    again = simulate("cassino-4p", games=600, bots=("greedy", "random"), seed=3, out=tmp_path / "m2",
                     shard_size=600, options={"sweeps": "true"}, workers=1)
    assert pd.read_parquet(again / "rounds").sort_values(["game", "round"]).reset_index(drop=True).equals(
        rounds.reset_index(drop=True))
    single = simulate("cassino", games=300, bots=("greedy", "random"), out=tmp_path / "r1", rounds=1)
    g = pd.read_parquet(single / "games")
    assert (g.rounds == 1).all() and len(pd.read_parquet(single / "rounds")) == 300


def _with_build(fmt, value, groups, owner_hand, options=None, promised=None):
    """A dealt position of `fmt` with one build of seat 0 (its groups' cards and seat 0's hand taken from wherever
    they were dealt; the hands' sizes kept by swapping cards with the stock)."""
    s = json.loads(json.dumps(engine.new_game(fmt, 8, options=options)))
    wanted = [c for g in groups for c in g] + owner_hand
    pool = s["stock"]
    for place in s["hands"] + [s["table"]["loose"]]:
        for c in wanted:
            if c in place:
                place.remove(c)
                place.append(next(x for x in pool if x not in wanted))
                pool.remove(place[-1])
                pool.append(c)
    for c in wanted:
        pool.remove(c)
    pool += s["hands"][0][:len(owner_hand)]
    s["hands"][0] = s["hands"][0][len(owner_hand):] + owner_hand
    k = len([c for g in groups for c in g])         # the stock keeps its size: k loose cards go into it
    pool += s["table"]["loose"][:k]
    s["table"]["loose"] = s["table"]["loose"][k:]
    s["table"]["builds"] = [{"value": value, "owner": 0, "groups": groups,
                             **({"promised": promised} if promised is not None else {})}]
    return s


@pytest.mark.parametrize("value, groups, hand, options, message", [
    (12, [["10S", "2H"]], ["QC"], {"ace_14": True}, "needs face_values"),
    (14, [["10S", "4H"]], ["QC"], {"ace_14": True}, "holds no card of value 14"),
    (9, [["5S", "4H"]], ["QC"], None, "holds no card of value 9"),
])
def test_build_owners_must_hold_its_card(value, groups, hand, options, message):
    """P1, P16, P17: a build's owner holds a card that can take it (a face card has no value without
    face_values; an ace is a 14 only under ace_14); builds of 11-13 need face_values."""
    from khasino_sim.state_json import StateError, parse
    parse(_with_build("cassino", 9, [["5S", "4H"]], ["9C"], options))      # the same position, a legal build
    s = _with_build("cassino", value, groups, hand, options)
    with pytest.raises(StateError, match=message):
        parse(s)


def test_promised_is_khasino_4p_only():
    from khasino_sim.state_json import StateError, parse
    parse(_with_build("cassino-4p", 9, [["5S", "4H"]], ["9C"]))
    s = _with_build("cassino-4p", 9, [["5S", "4H"]], ["9C"], promised=True)
    with pytest.raises(StateError, match="no promised builds"):
        parse(s)
