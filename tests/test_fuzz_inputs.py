"""Fuzzing every input a user can get wrong (issue 35): generated malformed positions for `moves` and `show`,
generated bad options for every command. Each must be answered with one line on stderr and exit code 2: never
a traceback, never exit 1 (our own bug), never a hang, and nothing written anywhere.

Hypothesis generates the cases; KHASINO_FUZZ_EXAMPLES sets how many per test (scripts/fuzz_inputs.py runs a
long campaign). The fixed corpus of the worst cases is tests/test_bad_inputs.py."""
import copy
import json
import os
import random
import re
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings, strategies as st

from khasino_sim import engine
from khasino_sim.bots import BOTS
from khasino_sim.cli import main
from khasino_sim.formats import FORMATS, INT_RANGES, MAX_MATCH_ROUNDS
from khasino_sim.kernels.core.bits import card_name

EXAMPLES = int(os.environ.get("KHASINO_FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=not os.environ.get("KHASINO_FUZZ_EXAMPLES"),
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
FORMAT_NAMES = sorted(FORMATS)
CARDS = [card_name(c) for c in range(52)]
COMPILING = re.compile(r"compiling the .* \(first run of its kind: about a minute, then cached\)$")
STATE_KEYS = ["format", "options", "deal", "to_move", "hands", "table", "loose", "builds", "piles", "stock",
              "last_capturer", "teams", "promises", "decision", "over", "dealer", "round", "rounds", "scores",
              "sweeps", "tabbe", "set_aside", "last_player", "value", "owner", "groups", "promised", "kind",
              "seat", "move", "card"]


def run_cli(args, stdin=None):
    """The CLI in this process: (exit code, stdout, stderr)."""
    r = CliRunner().invoke(main, args, input=stdin, catch_exceptions=True)
    return r.exit_code, r.stdout, r.stderr, r.exception


def assert_clean_refusal(args, code, out, err, exc):
    """Exit 2 and exactly one line on stderr, naming the problem: the contract for every bad input. A failing
    bot file is found by playing, so on a first run its one line may follow the progress line that says the
    core is compiling (printed only while a compile takes over two seconds): that line is not counted."""
    assert exc is None or isinstance(exc, SystemExit), f"{args}: escaped {type(exc).__name__}: {exc}"
    assert code == 2, f"{args}: exit {code}, stderr {err!r}"
    lines = [line for line in err.strip().splitlines() if not COMPILING.match(line)]
    assert len(lines) == 1, f"{args}: {len(lines)} lines on stderr: {err[:500]!r}"
    assert "Traceback" not in err and "internal error" not in err, err
    assert lines[0].startswith("Error: "), lines[0]


# ---- malformed positions --------------------------------------------------------------------------------------

def _played(name, seed, plies):
    """A valid state of `name` some plies into a game (builds, piles and a stock in play)."""
    state = engine.new_game(name, seed=seed)
    rng = random.Random(seed)
    for _ in range(plies):
        moves = engine.legal_moves(state, limit=64)
        if not moves or state.get("to_move") is None:
            break
        state = rng.choice(moves).result
    return state


@pytest.fixture(scope="module")
def base_states():
    return {name: [_played(name, seed, plies) for seed, plies in ((1, 0), (2, 7), (3, 15))]
            for name in FORMAT_NAMES}


junk = st.recursive(
    st.none() | st.booleans() | st.integers(-10**30, 10**30) | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12) | st.sampled_from(CARDS + ["10H", "1C", "ZZ", "", "AS AS"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8)


def _paths(value, prefix=()):
    """Every path (keys and indices) to a value inside a JSON value."""
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, prefix + (i,))


def _at(state, path):
    for p in path:
        state = state[p]
    return state


def _card_lists(state):
    return [p for p in _paths(state) if isinstance(_at(state, p), list)
            and all(isinstance(x, str) for x in _at(state, p))]


@st.composite
def mutations(draw, state):
    """A copy of `state` changed by one to three mutations: a value replaced by junk, a field deleted or
    added, a card moved, copied or dropped (duplicates, missing cards, impossible builds), a per-seat list
    grown or shrunk (wrong seat counts), a number pushed out of range."""
    state = copy.deepcopy(state)
    for _ in range(draw(st.integers(1, 3))):
        paths = list(_paths(state))[1:]
        op = draw(st.sampled_from(["replace", "delete", "extra", "card", "resize", "number"]))
        if op == "replace" and paths:
            path = draw(st.sampled_from(paths))
            _at(state, path[:-1])[path[-1]] = draw(junk)
        elif op == "delete" and paths:
            path = draw(st.sampled_from(paths))
            del _at(state, path[:-1])[path[-1]]
        elif op == "extra":         # a stray key, or one another family's or format's state holds
            dicts = [p for p in [()] + paths if isinstance(_at(state, p), dict)]
            key = draw(st.sampled_from(STATE_KEYS) | st.text(max_size=10))
            _at(state, draw(st.sampled_from(dicts)))[key] = draw(junk)
        elif op == "card":
            lists = _card_lists(state)
            if lists:
                src, dst = draw(st.sampled_from(lists)), draw(st.sampled_from(lists))
                cards = _at(state, src)
                card = draw(st.sampled_from(cards)) if cards else draw(st.sampled_from(CARDS))
                if cards and draw(st.booleans()):
                    cards.remove(card)          # moved (or, if dst is src, dropped)
                _at(state, dst).append(card)
        elif op == "resize":
            lists = [p for p in [()] + paths if isinstance(_at(state, p), list)]
            if lists:
                target = _at(state, draw(st.sampled_from(lists)))
                if target and draw(st.booleans()):
                    target.pop()
                else:
                    target.append(copy.deepcopy(target[0]) if target else draw(junk))
        elif op == "number":
            ints = [p for p in paths if isinstance(_at(state, p), int) and not isinstance(_at(state, p), bool)]
            if ints:
                path = draw(st.sampled_from(ints))
                _at(state, path[:-1])[path[-1]] = draw(st.sampled_from(
                    [-1, 0, 99, 2**31, 2**63, -2**63 - 1, 10**40]) | st.integers(-200, 200))
    return state


def _check_position(text):
    """`moves --count` and `show` on the text: a valid position exits 0, anything else is a clean refusal."""
    for args in (["moves", "-", "--count"], ["show", "-"]):
        code, out, err, exc = run_cli(args, stdin=text)
        if code == 0:
            assert exc is None and not err.strip(), err
            continue
        assert_clean_refusal(args, code, out, err, exc)


@pytest.mark.parametrize("name", FORMAT_NAMES)
@FUZZ
@given(data=st.data())
def test_mutated_positions_are_refused_in_one_line(base_states, name, data):
    base = data.draw(st.sampled_from(base_states[name]))
    state = data.draw(mutations(base))
    text = json.dumps(state)
    if data.draw(st.integers(0, 9)) == 0:       # damaged text as well: cut short, or stray bytes
        cut = data.draw(st.integers(0, len(text)))
        text = text[:cut] + data.draw(st.sampled_from(["", "\x00", "\ufffd", "]]]", "{", "NaN", "\"\\ud800\""]))
    _check_position(text.encode("utf-8", "surrogatepass"))


@FUZZ
@given(data=st.binary(max_size=200))
def test_random_bytes_are_refused_in_one_line(data):
    _check_position(data)


# ---- bad options, every command -----------------------------------------------------------------------------

def _not_int(text):
    try:
        int(text)
    except ValueError:
        return True
    return False


not_an_int = st.text(min_size=0, max_size=12).filter(_not_int)
nonpositive = st.integers(max_value=0).map(str)
huge = st.integers(min_value=2**64, max_value=10**40).map(str)
bad_count = st.one_of(nonpositive, not_an_int, st.integers(min_value=2**32, max_value=2**70).map(str))
bad_seed = st.one_of(st.integers(max_value=-1).map(str), huge, not_an_int)
unknown_name = st.text(alphabet="abcdefghijklmnopqrstuvwxyz-_", min_size=1, max_size=10)


@st.composite
def bad_setting(draw, fmt_name):
    """--set NAME=VALUE that the format refuses: an unknown option, or a known one with a bad value."""
    fmt = FORMATS[fmt_name]
    names = sorted(fmt.options)
    if draw(st.integers(0, 4)) == 0 or not names:
        return f"{draw(unknown_name.filter(lambda n: n not in fmt.options))}=1"
    name = draw(st.sampled_from(names))
    kind = fmt.options[name][0]
    if kind is bool:
        value = draw(st.text(max_size=8).filter(
            lambda t: t.strip().lower() not in {"true", "false", "1", "0", "yes", "no", "on", "off"}))
    else:
        lo, hi = INT_RANGES[name]
        if name == "match_rounds":
            lo, hi = fmt.seats, MAX_MATCH_ROUNDS
        value = draw(st.one_of(st.integers(max_value=lo - 1), st.integers(min_value=hi + 1), not_an_int).map(str))
        if name == "match_rounds" and draw(st.booleans()) and fmt.seats > 1:
            value = str(fmt.seats + 1)      # not a multiple of the seats (N7)
    return f"{name}={value}"


bad_bot = st.one_of(
    unknown_name.filter(lambda n: n not in BOTS),
    st.sampled_from(["rollout:n=0", "ismcts:n=999999999", "heuristic:nope=1", "heuristic:cards=x",
                     "rollout:policy=ismcts", "heuristic:", "file:", "file:/no/such/bot.py", "ismcts:c=-5"]))


@st.composite
def bad_invocation(draw):
    """A command line with exactly one bad option (every other one valid)."""
    fmt = draw(st.sampled_from(FORMAT_NAMES))
    command = draw(st.sampled_from(["simulate", "tournament", "balance", "match", "play", "bench", "moves",
                                    "report"]))
    two_sided = [n for n in FORMAT_NAMES if (FORMATS[n].n_teams if FORMATS[n].teams else FORMATS[n].seats) == 2]
    if command == "simulate":
        base = ["simulate", "--format", fmt, "--games", "20", "--quiet"]
        bad = draw(st.sampled_from(["games", "seed", "shard", "workers", "set", "bots", "format", "rounds",
                                    "series"]))
        extra = {"games": lambda: ["--games", draw(bad_count)],
                 "seed": lambda: ["--seed", draw(bad_seed)],
                 "shard": lambda: ["--shard-size", draw(st.one_of(nonpositive, not_an_int))],
                 "workers": lambda: ["--workers", draw(st.one_of(nonpositive, st.integers(1025).map(str)))],
                 "set": lambda: ["--set", draw(bad_setting(fmt))],
                 "bots": lambda: ["--bots", draw(bad_bot)],
                 "format": lambda: ["--format", draw(unknown_name.filter(lambda n: n not in FORMATS))],
                 "rounds": lambda: ["--rounds", draw(st.integers(2, 10**6).map(str))],
                 "series": lambda: ["--series", draw(st.one_of(nonpositive, st.just("70000")))]}[bad]()
        return base + extra
    if command == "tournament":
        base = ["tournament", "--format", fmt, "--games", "5", "--bots", "greedy,random"]
        return base + draw(st.sampled_from([["--games", "0"], ["--games", "-3"]])
                           | bad_setting(fmt).map(lambda s: ["--set", s])
                           | bad_bot.map(lambda b: ["--bots", f"greedy,{b}"]))
    if command == "balance":
        base = ["balance", "--format", fmt, "--games", "5", "--quiet"]
        vary = draw(bad_setting(fmt)) + ",x"
        return base + draw(st.sampled_from([["--vary", vary], ["--vary", "novalue"], ["--games", "0"]]))
    if command == "match":
        fmt2 = draw(st.sampled_from(two_sided))
        return ["match", "greedy", "random", "--format", fmt2, "--batch", "10", "--max-pairs", "10"] + draw(
            st.one_of(
                st.sampled_from(["elo0=nan,elo1=10", "elo0=0,elo1=inf", "elo0=0", "elo1=3", "elo0=5,elo1=1",
                                 "alpha=0.7,elo0=0,elo1=5", "elo0=x,elo1=5", "bogus=1"]).map(lambda s: ["--sprt", s]),
                st.just(["--batch", "0"]), st.just(["--max-pairs", "-1"]),
                bad_setting(fmt2).map(lambda s: ["--set", s])))
    if command == "play":
        return ["play", "--format", fmt] + draw(st.one_of(
            bad_seed.map(lambda s: ["--seed", s]), bad_bot.map(lambda b: ["--bots", b]),
            unknown_name.filter(lambda n: n not in FORMATS).map(lambda n: ["--format", n])))
    if command == "bench":
        return ["bench", "--quick"] + draw(st.one_of(
            st.sampled_from([["--tolerance", "-0.5"], ["--tolerance", "nan"], ["--games", "0"],
                             ["--repeats", "0"], ["--report", "/no/such/report.json"]]),
            unknown_name.filter(lambda n: n not in FORMATS).map(lambda n: ["--formats", n]),
            unknown_name.filter(lambda n: n not in BOTS).map(lambda n: ["--pairings", n + "-" + n])))
    if command == "moves":
        return ["moves", "-", "--limit", draw(st.one_of(st.integers(max_value=-1).map(str), not_an_int))]
    return ["report", draw(unknown_name.map(lambda n: "no-such-run-" + n))]


def _tree(root):
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns) for p in Path(root).rglob("*")}


@FUZZ
@given(args=bad_invocation())
def test_bad_options_are_refused_in_one_line_and_write_nothing(args):
    state = json.dumps(engine.new_game("khasino", seed=1))
    with tempfile.TemporaryDirectory() as tmp:
        before = _tree(tmp)
        cwd = os.getcwd()
        os.chdir(tmp)
        try:
            code, out, err, exc = run_cli(args, stdin=state)
        finally:
            os.chdir(cwd)
        assert_clean_refusal(args, code, out, err, exc)
        assert _tree(tmp) == before, f"{args} wrote {set(_tree(tmp)) - set(before)}"


def test_usage_errors_are_one_line_naming_the_option():
    """click's usage errors (a value of the wrong type, an unknown option or command) are one line too."""
    for args, named in ((["simulate", "--workers", "0"], "'--workers'"), (["simulate", "--bogus"], "--bogus"),
                        (["bogus"], "bogus"), (["--bogus"], "--bogus")):
        code, _, err, exc = run_cli(args)
        assert_clean_refusal(args, code, "", err, exc)
        assert named in err and "-h` for help" in err, err
