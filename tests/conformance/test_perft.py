"""Move-count fixtures: distinct positions 1 and 2 plies from fixed positions (tests/fixtures/perft, written
by scripts/make_perft_fixtures.py with the reference engine), recounted with the compiled core."""
import json
from pathlib import Path

import pytest

from khasino_sim import engine
from khasino_sim.perft import perft

FIXTURES = sorted((Path(__file__).parent / "fixtures" / "perft").glob("*.json"))


def test_fixtures_exist():
    assert len(FIXTURES) >= 10


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_perft(path):
    rec = json.loads(path.read_text())
    for depth, expected in rec["perft"].items():
        assert perft(rec["state"], int(depth), engine.legal_moves) == expected, f"depth {depth}"


def test_hand_counted_seed_example():
    """Hand 5H 9C, loose 4C (seed 000's Build 9 example): build 9 with 5H+4C keeping 9C, trail 9C, trail
    5H (no capture: nothing sums to 5 or 9). Three moves, counted by hand."""
    rec = json.loads((Path(__file__).parent / "fixtures" / "perft" / "khasino-build9-seed-example.json").read_text())
    assert rec["perft"]["1"] == 3
    texts = sorted(m.text for m in engine.legal_moves(rec["state"]))
    assert texts == ["Play 5H to build 9 (simple) with 5H+4C, keeping a 9", "Trail 5H", "Trail 9C"]
