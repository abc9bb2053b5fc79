"""Write the perft fixtures (tests/fixtures/perft/*.json) from fixed positions, counted by the reference
engine. Run from the repository root: python scripts/make_perft_fixtures.py"""
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from khasino_sim import reference as ref  # noqa: E402
from khasino_sim.perft import perft  # noqa: E402
from tests.helpers import position  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "perft"


def after_random_plies(fmt, seed, plies):
    state = ref.initial_state(fmt, seed)
    rng = random.Random(seed)
    for _ in range(plies):
        state = rng.choice(ref.legal_moves(state)).result
    return state


def main():
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
    OUT.mkdir(parents=True, exist_ok=True)
    for name, state in cases.items():
        rec = {"name": name, "state": state,
               "perft": {"1": perft(state, 1, ref.legal_moves), "2": perft(state, 2, ref.legal_moves)}}
        (OUT / f"{name}.json").write_text(json.dumps(rec, indent=1) + "\n")
        print(name, rec["perft"])


if __name__ == "__main__":
    main()
