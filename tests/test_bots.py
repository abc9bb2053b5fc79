"""Bot specs (khasino_sim/bots.py): parsing, canonical names, lists with parameters, one clear line per bad
spec, `khasino bots`, and a bot with parameters playing compiled, deterministic and blind to hidden cards."""
import re
import subprocess
import sys

import pytest

from khasino_sim import bots, engine
from khasino_sim.kernels.core import layout as L
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
    ("heuristic:cards", "cards needs a value: heuristic:cards=N"),
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


def naive_risk(fmt, st, p, v):
    """The heuristic's `safety` model (kernels/khasino_moves.py, `heuristic_context`) from its definition: the
    chance, in thousandths, that the opponents' hands hold a card that captures a build of v when the cards
    seat p cannot see are dealt evenly: 1 - C(U - k, H) / C(U, H)."""
    from math import comb
    seen = int(st[L.S_HANDS + 2 * p]) | int(st[L.S_LOOSE])
    for w in range(L.MAX_VALUE + 1):
        if st[L.S_BOWNER + w] >= 0:
            for i in range(int(st[L.S_BNG + w])):
                seen |= int(st[L.S_BGROUPS + w * L.MAX_GROUPS + i])
    for s in range(fmt.seats):
        for i in range(int(st[L.S_PLEN + s])):
            seen |= 1 << int(st[L.S_PILE + s * L.MAX_PILE + i])
    unseen = [c for c in range(fmt.deck) if not (seen >> c) & 1]
    held = sum(bin(int(st[L.S_HANDS + 2 * s])).count("1") for s in range(fmt.seats)
               if fmt.rules_array()[L.R_TEAM + s] != fmt.rules_array()[L.R_TEAM + p])
    ranks = [0] if v == 14 else [v - 1]              # card ids are 4 * rank + suit; 14 is an ace (P17)
    k = sum(1 for c in unseen if c // 4 in ranks)
    return 1000 - round(1000 * comb(len(unseen) - k, held) / comb(len(unseen), held))


@pytest.mark.parametrize("fmt", ["khasino", "khasino-4p", "cassino-ace14"])
def test_heuristic_build_risk_is_the_hypergeometric_chance(fmt):
    """`safety` (issue 10: build safety): at positions of random games, the risk the compiled heuristic gives
    each build value is the chance computed from the seat's view alone (math.comb), within rounding."""
    import random

    import numpy as np

    from khasino_sim.kernels.khasino.search import bot_decides as decide, NO_DECISION
    from tests.helpers import positions
    options = {"ace_14": True, "face_values": True} if fmt == "cassino-ace14" else None
    name = "cassino" if options else fmt
    checked = 0
    rng = random.Random(4)
    for i, state in enumerate(positions(name, 6)):
        if options:
            state = dict(state, options=options)
        if state.get("decision") or rng.random() < 0.5:
            continue
        f, st, _ = engine.parse(state)
        p = int(st[L.S_TO_MOVE])
        ws = engine._workspace("game")
        decide(L.BOT_HEURISTIC, st, f.rules_array(), p, ws, np.array([i], dtype=np.uint64), NO_DECISION, -1)
        for v in range(1, f.max_build_value + 1):
            assert abs(int(ws[L.C_RISK + v]) - naive_risk(f, st, p, v)) <= 1, (fmt, i, v)
        checked += 1
    assert checked > 50
