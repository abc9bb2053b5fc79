"""Golden traces (OpenSpiel's golden playthroughs) of every registered format: one whole game per format
(Khasino formats: a whole game, the 4p lead and Stay decisions included; Cassino and Kasino: a whole round),
recorded with the format's reference engine (khasino_sim/reference/) by scripts/make_golden.py into
tests/fixtures/golden/<format>.json, replayed here by the compiled core: the same first state, every move key,
the scores (and winner, final state where recorded) and the perft counts of the first position. A change of
behaviour made in both engines at once still shows here."""
import json
from pathlib import Path

import pytest

from khasino_sim import engine
from khasino_sim.formats import FORMATS
from khasino_sim.perft import perft
from tests.helpers import GOLDEN_COMMAND, canon

DIR = Path(__file__).resolve().parents[1] / "fixtures" / "golden"
GOLDEN = sorted(DIR.glob("*.json"))


def where(rec):
    """The deal arguments the trace was recorded with: the round (formats of matches) or the leader."""
    return {"round": rec["round"]} if "round" in rec else {"leader": rec["leader"]}


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_golden_trace(path):
    rec = json.loads(path.read_text())
    fmt = rec["format"]
    assert path.stem == fmt and fmt in FORMATS
    args = where(rec)
    state = engine.new_game(fmt, rec["seed"], **args)
    # Kasino's traces were recorded before states carried their options (the default rules)
    assert canon(state) == canon({"options": state["options"], **rec["state"]}), "the first state differs"
    if FORMATS[fmt].matches:
        got = engine.play_round(fmt, rec["seed"], rec["bots"], **args)
    else:
        got = engine.play_game(fmt, rec["seed"], rec["bots"], **args)
    assert [f"{k:016x}" for k in got["keys"]] == rec["keys"], "the game diverges from its golden trace"
    assert [s["score"] for s in got["seats"]] == rec["scores"]
    assert got["no_move"] == 0 and got["bad"] == 0
    if "winner" in rec:
        assert got["winner"] == rec["winner"]
    if "final" in rec:
        assert canon(got["final"]) == canon(rec["final"]), "the final state differs"
    for depth, want in rec["perft"].items():
        assert perft(state, int(depth), engine.legal_moves) == want, f"perft {depth}"


def test_kasino_golden_options_are_the_defaults():
    """Kasino's traces hold no options: they were played under the defaults (N1-N7, docs/rules/kasino.md)."""
    for path in GOLDEN:
        rec = json.loads(path.read_text())
        if FORMATS[rec["format"]].family == "kasino":
            state = engine.new_game(rec["format"], rec["seed"], round=rec["round"])
            assert state["options"] == {"alt_deal": rec["format"] == "kasino-2p-alt", "compulsory_tabbe": True,
                                        "tabbe_value": 5}


def test_every_format_has_a_golden_trace():
    missing = sorted(set(FORMATS) - {p.stem for p in GOLDEN})
    assert not missing, f"formats without a golden trace: {missing}; run {GOLDEN_COMMAND}"
