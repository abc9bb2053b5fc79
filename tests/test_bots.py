"""Bot specs (khasino_sim/bots.py): parsing, canonical names, lists with parameters, one clear line per bad
spec, `khasino bots`, and a bot with parameters playing compiled, deterministic and blind to hidden cards."""
import re
import subprocess
import sys

import pytest

from khasino_sim import bots, engine
from khasino_sim.kernels import layout as L
from tests.helpers import count_blind_choices


def test_parse_and_canonical():
    assert bots.parse("greedy") == ("greedy", {})
    name, params = bots.parse("heuristic:cards=20, spades=3")
    assert name == "heuristic" and params["cards"] == 20 and params["spades"] == 3 and params["points"] == 100
    assert bots.canonical("heuristic:spades=3,cards=20") == "heuristic:cards=20,spades=3"
    assert bots.canonical("heuristic:cards=14") == "heuristic"          # the default: the plain bot
    assert bots.code("heuristic") == L.BOT_HEURISTIC and bots.code("random") == L.BOT_RANDOM
    c = bots.code("heuristic:cards=21")
    assert c >= L.BOT_TABLE_BASE and bots.code("heuristic:cards=21") == c


def test_lists_with_parameters():
    assert bots.split_list("heuristic:cards=20,spades=5,greedy") == ["heuristic:cards=20,spades=5", "greedy"]
    assert bots.split_list("random, greedy") == ["random", "greedy"]


@pytest.mark.parametrize("spec, message", [
    ("nobot", "unknown bot 'nobot'"),
    ("greedy:cards=3", "greedy has no parameter 'cards' (parameters: none)"),
    ("heuristic:cards", "heuristic has no parameter 'cards'"),
    ("heuristic:cards=x", "cards takes an integer, not 'x'"),
    ("heuristic:", "give key=value parameters"),
    ("ismcts:n=0", "n must be in 1..200000, not 0"),
    ("rollout:n=300000", "n must be in 1..200000, not 300000"),
    ("ismcts:policy=smart", "policy is one of random, greedy, heuristic, not 'smart'"),
    ("rollout:depth=2", "rollout has no parameter 'depth'"),
])
def test_bad_specs(spec, message):
    with pytest.raises(bots.BotSpecError, match=re.escape(message)):
        bots.parse(spec)
    r = subprocess.run([sys.executable, "-m", "khasino_sim", "simulate", "--bots", f"{spec},greedy", "--games", "5",
                        "--out", "/nonexistent/never-written"], capture_output=True, text=True)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_khasino_bots_lists_parameters_and_defaults():
    r = subprocess.run([sys.executable, "-m", "khasino_sim", "bots"], capture_output=True, text=True)
    assert r.returncode == 0
    assert [ln.split()[0] for ln in r.stdout.splitlines() if not ln.startswith(" ")] == list(bots.BOTS)
    assert "cards          default 14" in r.stdout


def test_parameters_change_the_play():
    a = engine.play_game("khasino", 3, ("heuristic", "greedy"))
    b = engine.play_game("khasino", 3, ("heuristic:exposed=0,our_points=0,our_cards=0", "greedy"))
    assert a["keys"] != b["keys"] and a["no_move"] == b["no_move"] == 0 and a["bad"] == b["bad"] == 0


@pytest.mark.parametrize("fmt", ["khasino", "kasino-2p"])
def test_bot_with_parameters_is_blind(fmt):
    assert count_blind_choices(fmt, "heuristic:exposed=90,kasino_setup=80", 3, 5) > 100
