"""Write Kasino's golden traces (tests/fixtures/golden/kasino-*.json) with the reference engine: per format, one
whole round (its deal seed, bots, every move's key, the round scores) and the perft counts of its first position,
so a later change of behaviour in both engines at once is still caught (OpenSpiel's golden traces).
Run from the repository root: python scripts/make_kasino_golden.py"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from khasino_sim import reference_kasino as ref  # noqa: E402
from khasino_sim.perft import perft  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "golden"
FORMATS = ("kasino-2p", "kasino-2p-alt", "kasino-3p", "kasino-4p", "kasino-5p", "kasino-6p")


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for i, fmt in enumerate(FORMATS):
        seats = ref.FORMATS[fmt]["seats"]
        bots = ["greedy" if s % 2 == 0 else "random" for s in range(seats)]
        seed, rnd = 1000 + i, 1 + i % seats
        res = ref.play_round(fmt, seed, bots, round=rnd)
        state = ref.initial_state(fmt, seed, round=rnd)
        rec = {"format": fmt, "seed": seed, "round": rnd, "bots": bots, "keys": [f"{k:016x}" for k in res["keys"]],
               "scores": [s["total"] for s in res["scores"]], "state": state,
               "perft": {"1": perft(state, 1, ref.legal_moves), "2": perft(state, 2, ref.legal_moves)}}
        (OUT / f"{fmt}.json").write_text(json.dumps(rec, indent=1) + "\n")
        print(fmt, len(res["keys"]), "keys", rec["scores"], rec["perft"])


if __name__ == "__main__":
    main()
