"""The rule options (docs/BALANCE.md "The variants") against the reference engines: for each variant, the same
distinct successor states and keys on positions reached by random play from its deals, and the same whole games
(every key, the final state, the scores) for the same seeds and bots. The variants are the reference's own
readings of K5, K7, K8, K9, K11, K12, K14 (Khasino) and N1, N3, N4 (Kasino), written apart from the core.

The default suite walks POSITIONS per variant; scripts/differential_options.py runs the full counts."""
import json
import random

import pytest

from khasino_sim import engine
from khasino_sim import reference as ref
from khasino_sim import reference_kasino as ref_kasino
from khasino_sim.formats import get_format
from tests.helpers import compare_successors

# One option changed at a time from the ruling, then combinations, in every Khasino format.
KHASINO_VARIANTS = [
    ("khasino", {"trail_restricted": False}),                                           # K11
    ("khasino", {"no_trail_own_build_first_deal": False}),                              # K11
    ("khasino", {"max_builds_owned": 1}),                                               # K5, P6
    ("khasino", {"max_builds_owned": 2}),
    ("khasino", {"change_mode": 1}),                                                    # K7
    ("khasino", {"follow_ups": False}),                                                 # K9
    ("khasino", {"opponent_piles": False}),                                             # K8
    ("khasino", {"last_capturer_takes_table": False}),                                  # K12
    ("khasino", {"next_deal_leader": 1}),                                               # K14
    ("khasino", {"next_deal_leader": 2}),
    ("durban", {"trail_restricted": True, "follow_ups": True}),
    ("durban", {"max_builds_owned": 0, "change_mode": 0, "no_trail_own_build_first_deal": True}),
    ("durban", {"last_capturer_takes_table": False, "next_deal_leader": 2, "opponent_piles": False}),
    ("khasino-3p", {"change_mode": 1, "max_builds_owned": 2}),
    ("khasino-3p-stock", {"follow_ups": False, "trail_restricted": False, "last_capturer_takes_table": False}),
    ("khasino-4p", {"change_mode": 1, "opponent_piles": False}),
    ("khasino-4p", {"max_builds_owned": 1, "last_capturer_takes_table": False, "follow_ups": False}),
]
KASINO_VARIANTS = [
    ("kasino-2p", {"compulsory_tabbe": False}),                                         # N3
    ("kasino-2p", {"tabbe_value": 7, "alt_deal": True}),                                # N4, N1
    ("kasino-3p", {"compulsory_tabbe": False, "tabbe_value": 1}),
    ("kasino-4p", {"tabbe_value": 50, "compulsory_tabbe": False}),
]
POSITIONS = 120                 # per variant in the default suite
GAMES = 3                       # whole games per variant and bot pairing


def canon(state):
    return json.dumps(state, sort_keys=True)


def _ids(variants):
    return [f"{fmt}:{','.join(f'{k}={v}' for k, v in opts.items())}" for fmt, opts in variants]


def _start(fmt, opts, seed):
    """The variant's first position, from the reference and from the core (they must be the same)."""
    if get_format(fmt).family == "kasino":
        state = ref_kasino.initial_state(fmt, seed, options=opts)
    else:
        state = ref.initial_state(fmt, seed, options=opts)
    assert canon(state) == canon(engine.new_game(fmt, seed, options=opts)), "the deal differs"
    return state


def walk(fmt, opts, positions, first_seed):
    """Random walks through the variant's games from seeds first_seed, first_seed + 1, ..., comparing every
    position's distinct successors and keys with the reference's; returns the number of positions compared."""
    module = ref_kasino if get_format(fmt).family == "kasino" else ref
    done = g = 0
    while done < positions:
        state = _start(fmt, opts, first_seed + g)
        assert state["options"] == {**state["options"], **opts}, "the options are not in the state"
        done += compare_successors(module, state, random.Random(g), positions - done)
        g += 1
    return done


def same_games(fmt, opts, seeds, pairings):
    """Whole games (Kasino: whole rounds) of the variant, core against reference, for every seed and pairing."""
    kasino = get_format(fmt).family == "kasino"
    for bots in pairings:
        for seed in seeds:
            if kasino:
                want = ref_kasino.play_round(fmt, seed, bots, options=opts)
                got = engine.play_round(fmt, seed, bots, options=opts)
            else:
                want = ref.play_game(fmt, seed, bots, options=opts)
                got = engine.play_game(fmt, seed, bots, options=opts)
            assert got["keys"] == want["keys"], f"seed {seed}, {bots}: the games diverge"
            assert canon(got["final"]) == canon(want["final"])
            assert [s["score"] for s in got["seats"]] == [s["total"] for s in want["scores"]]
            assert got["no_move"] == want["no_move"] == 0


def pairings(fmt):
    n = get_format(fmt).seats
    return [("random",) * n, ("greedy",) * n, ("greedy",) + ("random",) * (n - 1)]


@pytest.mark.slow
@pytest.mark.parametrize("fmt,opts", KHASINO_VARIANTS + KASINO_VARIANTS, ids=_ids(KHASINO_VARIANTS + KASINO_VARIANTS))
def test_variant_successors_and_games_match_the_reference(fmt, opts):
    assert walk(fmt, opts, POSITIONS, 50_000) == POSITIONS
    same_games(fmt, opts, range(GAMES), pairings(fmt))


def test_the_table_stays_unscored_without_the_k12_sweep():
    """K12 variant: with last_capturer_takes_table false the cards left at the end stay on the table and score
    for no one, in both engines; the game's points fall short of the format's total exactly by theirs."""
    opts = {"last_capturer_takes_table": False}
    short = 0
    for seed in range(40):
        got = engine.play_game("khasino", seed, ("random", "random"), options=opts)
        left = got["final"]["table"]["loose"] + [c for b in got["final"]["table"]["builds"] for g in b["groups"]
                                                 for c in g]
        total = sum(s["score"] for s in got["seats"])
        assert total <= 11
        if left:
            short += total < 11
        else:
            assert total == 11
    assert short > 0, "no game ended with cards left on the table that changed the points"


def test_options_round_trip_and_are_rejected_in_one_line():
    """ENGINE.md "JSON state format": `options` is written in full, read back as it stands, partial on input,
    and bad names or values are one-line errors."""
    from khasino_sim.state_json import StateError, parse, to_json
    for fmt in ("khasino", "durban", "khasino-4p", "kasino-3p", "kasino-2p-alt", "cassino"):
        state = engine.new_game(fmt, 3)
        assert list(state)[:2] == ["format", "options"]
        f, st, decision = parse(state)
        assert canon(to_json(st, f, decision)) == canon(state)
    state = engine.new_game("khasino", 3)
    partial = dict(state, options={"follow_ups": False})
    assert engine.legal_moves(partial)[0].result["options"] == {**state["options"], "follow_ups": False}
    del state["options"]
    first = engine.legal_moves(engine.new_game("khasino", 3))[0].result
    assert canon(engine.legal_moves(state)[0].result) == canon(first)
    bad = [({"follow_ups": 1}, "must be true or false"), ({"max_builds_owned": True}, "must be an integer"),
           ({"sweeps": True}, "unknown rule option 'sweeps'"), ({"change_mode": 2}, "change_mode must be in 0..1"),
           ({"next_deal_leader": 3}, "next_deal_leader"), ([], "must be an object")]
    for options, message in bad:
        with pytest.raises(StateError, match=message):
            parse(dict(state, options=options))
    kasino = engine.new_game("kasino-3p", 3)
    for options, message in [({"alt_deal": True}, "2-player first deal"), ({"match_rounds": 6}, "rounds"),
                             ({"tabbe_value": 0}, "1..50")]:
        with pytest.raises(StateError, match=message):
            parse(dict(kasino, options=options))


def test_show_and_moves_read_a_variant_state(tmp_path):
    """`khasino show` names the options that differ from the format's; `khasino moves` lists the variant's moves
    (here K11 without its trail restriction: every card may trail)."""
    from click.testing import CliRunner
    from khasino_sim.cli import main
    from tests.helpers import position
    state = position("khasino", hands=(("5S", "9H"), ("5H", "2C")), loose=("5D", "9C"), deal=2)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(state))
    before = CliRunner().invoke(main, ["moves", str(path)])
    path.write_text(json.dumps(dict(state, options={"trail_restricted": False})))
    after = CliRunner().invoke(main, ["moves", str(path)])
    shown = CliRunner().invoke(main, ["show", str(path)])
    assert before.exit_code == after.exit_code == shown.exit_code == 0
    kinds = lambda out: sorted(json.loads(line)["kind"] for line in out.splitlines())     # noqa: E731
    assert "trail" not in kinds(before.output) and kinds(after.output).count("trail") == 2
    assert shown.output.splitlines()[0].startswith("khasino (trail_restricted=false) ·")
