"""Write the perft fixtures (tests/fixtures/perft/*.json) from fixed positions, counted by the reference engine of
each format's family (khasino_sim/reference/): every registered format (khasino_sim.formats.FORMATS) gets at least
the first position of a seeded deal and a midgame position, each counted 1 and 2 plies deep; Khasino and Cassino
also get hand-built positions (docs/rules/khasino.md, docs/rules/cassino.md examples). The tests
(tests/conformance/test_perft.py) recount every fixture with the compiled core.

Run from the repository root: python scripts/make_perft_fixtures.py"""
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from khasino_sim import reference as ref  # noqa: E402
from khasino_sim.formats import FORMATS  # noqa: E402
from khasino_sim.perft import perft  # noqa: E402
from tests.helpers import position, reference_of  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "perft"
DEPTHS = (1, 2)


def after_random_plies(fmt, seed, plies, at_least=1):
    """The position `plies` random plies into the game (round 1) dealt from `seed`, in the format's reference,
    then further random plies until the mover has `at_least` legal moves."""
    engine = reference_of(fmt)
    state = engine.initial_state(fmt, seed)
    rng = random.Random(seed)
    for _ in range(plies):
        state = rng.choice(engine.legal_moves(state)).result
    while len(engine.legal_moves(state)) < at_least:
        state = rng.choice(engine.legal_moves(state)).result
    return state


def without_options(state):
    """The state as the reference wrote it before states carried their `options` (the default rules, which a
    state without `options` stands for): the fixtures written then keep their bytes."""
    return {k: v for k, v in state.items() if k != "options"}


def khasino_cases():
    """The Khasino fixtures written before every format had its own (their files must not change: written
    without `options`)."""
    cases = {
        "khasino-deal-seed1": ref.initial_state("khasino", 1),
        "durban-deal-seed1": ref.initial_state("durban", 1),
        "khasino-build9-seed-example": position(hands=(["5H", "9C"], ["2D", "3D"]), loose=["4C"]),
        "khasino-change-seed-example": position(
            hands=(["AH", "10C", "2C"], ["9D", "7S", "8S"]), builds=[(9, 1, [["4S", "5H"]])], loose=["3C"]),
        "khasino-pile-sequence": position(
            hands=(["9H", "9C", "6S"], ["2D", "AD", "3H"]), loose=["4C", "2S"], piles=([], ["5D", "3S", "7H"])),
        "khasino-follow-ups": position(
            hands=(["8H", "8C", "3S"], ["2D", "AD", "3H"]), builds=[(8, 0, [["6S", "2H"]])], loose=["5D", "3C", "4H", "4D"]),
        "durban-change-extra": position(
            fmt="durban", hands=(["2H", "8C", "AS"], ["6D", "9S", "10S"]), builds=[(6, 1, [["4S", "2D"]])],
            loose=["AC"], piles=([], ["AH"])),
        "khasino-midgame-seed5": after_random_plies("khasino", 5, 13),
        "khasino-midgame-seed9": after_random_plies("khasino", 9, 24),
        "durban-midgame-seed5": after_random_plies("durban", 5, 13),
        "durban-midgame-seed9": after_random_plies("durban", 9, 26),
    }
    return {name: without_options(state) for name, state in cases.items()}


def cassino_cases():
    """Hand-built Cassino positions: several loose cards of one rank next to builds of both seats (C3 captures
    of every card of a rank and of sums, C4 adds to a build, C5 raises, C6 no trail while owning a build;
    docs/rules/cassino.md)."""
    from tests.cassino.test_reference_cassino import position as cassino_position
    return {
        "cassino-equal-ranks-and-builds": cassino_position(
            hands=[["4C", "8D", "5D", "10C"], ["8C", "KD", "9S", "2C"]],
            loose=["4D", "4H", "4S", "AS", "3C", "7H"],
            builds=[(8, 1, [["5S", "3H"]]), (9, 1, [["6S", "3D"]]), (10, 0, [["7C", "3S"]])]),
        "cassino-4p-equal-ranks-and-builds": cassino_position(
            fmt="cassino-4p", hands=[["6C", "9D", "2S"], ["9C", "KD", "5H"], ["6D", "QS", "AH"], ["7S", "JD", "4H"]],
            loose=["6H", "6S", "3C", "3D", "3S", "AC"],
            builds=[(9, 1, [["5S", "4S"]]), (7, 3, [["4D", "2D", "AD"]])]),
    }


def generic_cases(done):
    """A seeded deal's first position and a midgame position (one where the mover has at least 4 legal moves)
    of every registered format without a deal fixture yet."""
    cases = {}
    for fmt in FORMATS:
        if any(n.startswith(f"{fmt}-deal-") for n in done):
            continue
        cases[f"{fmt}-deal-seed1"] = reference_of(fmt).initial_state(fmt, 1)
        cases[f"{fmt}-midgame-seed5"] = after_random_plies(fmt, 5, 3 * FORMATS[fmt].seats + 4, at_least=4)
    return cases


def main():
    cases = khasino_cases()
    cases.update(cassino_cases())
    cases.update(generic_cases(cases))
    OUT.mkdir(parents=True, exist_ok=True)
    for name, state in cases.items():
        moves = reference_of(state["format"]).legal_moves
        rec = {"name": name, "state": state, "perft": {str(d): perft(state, d, moves) for d in DEPTHS}}
        (OUT / f"{name}.json").write_text(json.dumps(rec, indent=1) + "\n")
        print(name, rec["perft"])
    missing = set(FORMATS) - {s["format"] for s in cases.values()}
    assert not missing, f"formats without a perft fixture: {sorted(missing)}"


if __name__ == "__main__":
    main()
