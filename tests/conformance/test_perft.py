"""Move-count fixtures ("perft"): the number of distinct positions 1 and 2 plies from fixed positions
(tests/fixtures/perft, written by scripts/make_perft_fixtures.py with the reference engine of each family,
khasino_sim/reference/), recounted with the compiled core. Every registered format has at least a seeded deal's
first position and a midgame position; Khasino and Cassino also hand-built ones (docs/rules/khasino.md,
docs/rules/cassino.md: equal-rank loose cards next to builds of both sides)."""
import json
from pathlib import Path

import pytest

from khasino_sim import engine
from khasino_sim.formats import FORMATS
from khasino_sim.perft import perft
from tests.helpers import PERFT_COMMAND

DIR = Path(__file__).resolve().parents[1] / "fixtures" / "perft"
FIXTURES = sorted(DIR.glob("*.json"))


def test_fixtures_exist():
    assert len(FIXTURES) >= 2 * len(FORMATS), f"perft fixtures missing: run {PERFT_COMMAND}"


def test_every_format_has_a_fixture():
    """A format registered in khasino_sim.formats.FORMATS needs its fixtures written (scripts/make_perft_fixtures.py
    writes a deal and a midgame position of every registered format)."""
    covered = {json.loads(p.read_text())["state"]["format"] for p in FIXTURES}
    missing = sorted(set(FORMATS) - covered)
    assert not missing, f"formats without a perft fixture: {missing}; run {PERFT_COMMAND}"


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_perft(path):
    rec = json.loads(path.read_text())
    assert rec["name"] == path.stem and set(rec["perft"]) >= {"1", "2"}
    for depth, expected in rec["perft"].items():
        assert perft(rec["state"], int(depth), engine.legal_moves) == expected, \
            f"{path.stem} depth {depth} (the fixture comes from {PERFT_COMMAND})"


def test_hand_counted_khasino_build9_example():
    """Hand 5H 9C, loose 4C (docs/rules/khasino.md K5, source 000's Build 9 example): build 9 with 5H+4C keeping 9C,
    trail 9C, trail 5H (no capture: nothing sums to 5 or 9). Three moves, counted by hand."""
    rec = json.loads((DIR / "khasino-build9-seed-example.json").read_text())
    assert rec["perft"]["1"] == 3
    texts = sorted(m.text for m in engine.legal_moves(rec["state"]))
    assert texts == ["Play 5H to build 9 (simple) with 5H+4C, keeping a 9", "Trail 5H", "Trail 9C"]
