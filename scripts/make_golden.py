"""Write the golden traces (tests/fixtures/golden/<format>.json) of every registered format
(khasino_sim.formats.FORMATS) with the reference engine of its family (khasino_sim/reference/): per format, one
whole game (Khasino formats: a whole game, `play_game`, the 4p lead and Stay decisions included; Cassino and
Kasino: a whole round, `play_round`), its deal seed, leader or round, bots, every move's key, the scores, the
first state and the perft counts of the first position, so that a later change of behaviour in both engines at
once is still caught (OpenSpiel's golden playthroughs). tests/conformance/test_golden.py replays them with the
compiled core.

Kasino's traces (kasino-*.json) were written first and keep their bytes: the same seeds, rounds and bots, their
first state written without `options` (the default rules).

Run from the repository root: python scripts/make_golden.py"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from khasino_sim.formats import FORMATS  # noqa: E402
from khasino_sim.perft import perft  # noqa: E402
from khasino_sim.reference import kasino as kasino_ref  # noqa: E402
from tests.helpers import reference_of  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "golden"
KASINO = ("kasino-2p", "kasino-2p-alt", "kasino-3p", "kasino-4p", "kasino-5p", "kasino-6p")


def bots_of(seats):
    """Greedy in the even seats, random in the odd ones (every 4p team and Kasino pair holds both)."""
    return ["greedy" if s % 2 == 0 else "random" for s in range(seats)]


def perft_counts(state, legal_moves):
    return {"1": perft(state, 1, legal_moves), "2": perft(state, 2, legal_moves)}


def kasino_trace(i, fmt):
    """Kasino's traces as they were first written (their files must not change)."""
    ref = kasino_ref
    seats = ref.FORMATS[fmt]["seats"]
    bots = bots_of(seats)
    seed, rnd = 1000 + i, 1 + i % seats
    res = ref.play_round(fmt, seed, bots, round=rnd)
    state = {k: v for k, v in ref.initial_state(fmt, seed, round=rnd).items() if k != "options"}
    return {"format": fmt, "seed": seed, "round": rnd, "bots": bots, "keys": [f"{k:016x}" for k in res["keys"]],
            "scores": [s["total"] for s in res["scores"]], "state": state,
            "perft": perft_counts(state, ref.legal_moves)}


def trace(i, fmt):
    """A Khasino format's whole game (leaders rotating with `i` where the format has series) or a Cassino
    format's whole round (rounds rotating with `i`)."""
    f = FORMATS[fmt]
    ref = reference_of(fmt)
    bots = bots_of(f.seats)
    seed = 2000 + i
    if f.matches:
        where = {"round": 1 + i % f.seats}
        res = ref.play_round(fmt, seed, bots, **where)
    else:
        where = {"leader": i % f.seats if f.series else 0}
        res = ref.play_game(fmt, seed, bots, **where)
    state = ref.initial_state(fmt, seed, **where)
    rec = {"format": fmt, "family": f.family, "seed": seed, **where, "bots": bots,
           "keys": [f"{k:016x}" for k in res["keys"]], "scores": [s["total"] for s in res["scores"]]}
    if "winner" in res:
        rec["winner"] = res["winner"]
    rec.update({"final": res["final"], "state": state, "perft": perft_counts(state, ref.legal_moves)})
    return rec


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for i, fmt in enumerate(FORMATS):
        rec = kasino_trace(KASINO.index(fmt), fmt) if fmt in KASINO else trace(i, fmt)
        (OUT / f"{fmt}.json").write_text(json.dumps(rec, indent=1) + "\n")
        print(fmt, len(rec["keys"]), "keys", rec["scores"], rec["perft"])


if __name__ == "__main__":
    main()
