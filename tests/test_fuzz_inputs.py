"""Fuzzing every input a user can get wrong (issue 35): generated malformed positions for `moves` and `show`,
generated bad options for every command. Each must be answered with one line on stderr and exit code 2: never
a traceback, never exit 1 (our own bug), never a hang, and nothing written anywhere.

Hypothesis generates the cases; KHASINO_FUZZ_EXAMPLES sets how many per test (scripts/fuzz_inputs.py runs a
long campaign). The fixed corpus of the worst cases is tests/test_bad_inputs.py."""
import contextlib
import copy
import json
import os
import random
import re
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings, strategies as st

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


# ---- repeated keys, missing values, huge numbers (issue 51) ---------------------------------------------------
# A key given twice is refused (the last would silently win), a key without a value says it needs one, and an
# integer of any length is out of range, not "not an integer": in bot specs, --sprt and --set alike.

FEW = settings(FUZZ, max_examples=max(1, EXAMPLES // 3))
BOT_PARAMS = {name: sorted(params) for name, (_, params) in BOTS.items() if params}
huge_digits = st.one_of(st.integers(19, 5000).map(lambda n: "9" * n), st.integers(2**63, 10**40).map(str))


def _refused_saying(args, fragment):
    with tempfile.TemporaryDirectory() as tmp:
        code, out, err, exc = run_cli(args + (["--out", os.path.join(tmp, "r")] if args[0] == "simulate" else []))
        assert_clean_refusal(args, code, out, err, exc)
        assert fragment in err and len(err) < 400, f"{args[:6]}: {fragment!r} not in {err[:400]!r}"
        assert _tree(tmp) == {}


@st.composite
def flawed_bot_spec(draw):
    """(spec, what its line says): a bot's parameter given twice, without a value, or a huge integer, among
    valid parameters (1 and greedy are valid values of every parameter)."""
    name = draw(st.sampled_from(sorted(BOT_PARAMS)))
    numbers = [k for k in BOT_PARAMS[name] if k != "policy"]
    flaw = draw(st.sampled_from(["twice", "no value", "empty value", "huge"]))
    key = draw(st.sampled_from(numbers if flaw == "huge" else BOT_PARAMS[name]))
    good = "greedy" if key == "policy" else "1"
    others = [f"{k}={'greedy' if k == 'policy' else '1'}"
              for k in draw(st.lists(st.sampled_from(BOT_PARAMS[name]), max_size=3, unique=True)) if k != key]
    if flaw == "twice":
        again = draw(st.sampled_from([good, "random" if key == "policy" else "2"]))
        parts = others + [f"{key}={good}", f"{key}={again}"]
        return name + ":" + ",".join(draw(st.permutations(parts))), f"{key} is given twice"
    if flaw == "huge":
        parts = draw(st.permutations(others + [f"{key}={draw(st.sampled_from(['', '-', '+']))}{draw(huge_digits)}"]))
        return name + ":" + ",".join(parts), f"{key} must be in"
    flawed = key if flaw == "no value" else f"{key}="      # first: a bare word later may be a bot's name (policy)
    return name + ":" + ",".join([flawed] + others), f"{key} needs a value: {name}:{key}="


@FEW
@given(case=flawed_bot_spec(), command=st.sampled_from(["play", "simulate"]))
def test_flawed_bot_parameters_are_one_clear_line(case, command):
    spec, fragment = case
    _refused_saying([command, "--bots", f"{spec},greedy"] + (["--games", "5"] if command == "simulate" else []),
                    fragment)


@st.composite
def flawed_sprt(draw):
    """(--sprt text, what its line says): a key given twice, without a value, or a huge number."""
    parts = {"elo0": "0", "elo1": "10"}
    parts.update({k: "0.05" for k in draw(st.lists(st.sampled_from(["alpha", "beta"]), unique=True))})
    key = draw(st.sampled_from(sorted(parts)))
    flaw = draw(st.sampled_from(["twice", "no value", "empty value", "huge"]))
    items = [f"{k}={v}" for k, v in parts.items()]
    if flaw == "twice":
        items.append(f"{key}={draw(st.sampled_from([parts[key], '20', '0.1']))}")
        fragment = f"--sprt {key} is given twice"
    elif flaw == "huge":
        items[list(parts).index(key)] = f"{key}={draw(st.sampled_from(['', '-']))}{draw(huge_digits)}"
        fragment = "must be a finite Elo difference" if key.startswith("elo") else "alpha and beta must lie in"
    else:
        items[list(parts).index(key)] = key if flaw == "no value" else f"{key}="
        fragment = f"--sprt {key} needs a value"
    return ",".join(draw(st.permutations(items))), fragment


@FEW
@given(case=flawed_sprt())
def test_flawed_sprt_is_one_clear_line(case):
    text, fragment = case
    _refused_saying(["match", "greedy", "random", "--sprt", text, "--max-pairs", "1"], fragment)


@st.composite
def flawed_settings(draw):
    """(simulate's arguments, what its line says): a rule option set twice, without a value, or an integer
    option given more digits than any int64."""
    fmt = draw(st.sampled_from(FORMAT_NAMES))
    options = FORMATS[fmt].options
    ints = sorted(n for n in options if options[n][0] is not bool)
    flaw = draw(st.sampled_from(["twice", "empty value", "huge"] if ints else ["twice", "empty value"]))
    name = draw(st.sampled_from(ints if flaw == "huge" else sorted(options)))
    if flaw == "twice":
        values = draw(st.lists(st.sampled_from(["0", "1", "true", "false", "x"]), min_size=2, max_size=2))
        sets, fragment = [f"{name}={v}" for v in values], f"--set {name} is given twice"
    elif flaw == "huge":
        sets, fragment = [f"{name}={draw(st.sampled_from(['', '-', '+']))}{draw(huge_digits)}"], \
            f"option {name} must be in"
    else:
        sets, fragment = [f"{name}="], f"--set {name} needs a value"
    args = ["simulate", "--format", fmt, "--games", "5", "--quiet"]
    for s in sets:
        args += ["--set", s]
    return args, fragment


@FEW
@given(case=flawed_settings())
def test_flawed_settings_are_one_clear_line(case):
    _refused_saying(*case)


# ---- saved games (issue 51) -----------------------------------------------------------------------------------
# A save is untrusted: any edit is refused in one line with exit 2, writing nothing, or (an edit that changes
# nothing checked) the game plays on exactly as from the save unedited.

MOVE_KEY = re.compile(r"0x[0-9a-f]{16}")


def _save_of(fmt, seed, humans, bots, lines, **kw):
    """A real save of `fmt`, its humans having typed "1" `lines` times against `bots`, Classic."""
    import io
    from khasino_sim.terminal.session import Game
    names = ["human" if s in humans else bots for s in range(FORMATS[fmt].seats)]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "g.json")
        Game(fmt, seed, names, humans, "classic", plain=True, out=io.StringIO(), inp=io.StringIO("1\n" * lines),
             save=path, **kw).start()
        return json.loads(Path(path).read_text())


def _resumed(save, tmp):
    """`khasino play --resume` of `save` (a dict, or text) quitting at the first prompt: (exit code, stdout
    with `tmp` as TMP, stderr, the exception, the save as written back: None when refused, which must leave
    the file as it was)."""
    path = Path(tmp) / "g.json"
    path.write_text(save if isinstance(save, str) else json.dumps(save))
    before = path.read_bytes()
    code, out, err, exc = run_cli(["play", "--resume", str(path), "--trace", str(Path(tmp) / "t.jsonl")], "q\n")
    if code != 0:
        assert path.read_bytes() == before and not (Path(tmp) / "t.jsonl").exists()
        return code, out, err, exc, None
    return code, out.replace(str(tmp), "TMP"), err, exc, json.loads(path.read_text())


@pytest.fixture(scope="module")
def real_saves():
    """Saves a few moves into Khasino, Khasino-4p with a Stay offered to a human (Pass-and-Play) and with team
    AB's lead asked of a human, a Cassino and a Kasino match; each with what resuming it unedited prints and
    writes back. (A save of the previous version is refused whole: test_trust_saves.py.)"""
    saves = [_save_of("khasino", 0, [0], "greedy", 3), _save_of("khasino-4p", 2, [0, 2], "random", 9),
             _save_of("khasino-4p", 1, [1], "greedy", 0), _save_of("cassino", 1, [0], "greedy", 4),
             _save_of("kasino-2p", 1, [0], "random", 3, single=True)]
    out = []
    for save in saves:
        with tempfile.TemporaryDirectory() as tmp:
            code, text, err, _, after = _resumed(save, tmp)
        assert code == 0, err
        out.append((save, text, after))
    return out


def _key_paths(save):
    return [p for p in _paths(save) if p and isinstance(_at(save, p), str) and MOVE_KEY.fullmatch(_at(save, p))]


@st.composite
def save_edits(draw, save):
    """`save` changed by one to three edits: the mutations of positions above (a value replaced by junk, a
    field removed or added, a card moved, a list resized, a number out of range), two move keys or two items
    of lists of strings (move keys, seat names) swapped, a key replaced, a value's type changed; then, half the
    time, its digest made again (as someone editing it on purpose would)."""
    from khasino_sim.terminal.saves import save_digest
    save = copy.deepcopy(save)
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(["mutate", "swap keys", "swap items", "key", "type"]))
        keys = _key_paths(save) if isinstance(save, dict) else []
        paths = list(_paths(save))[1:]
        if op == "mutate":
            save = draw(mutations(save))
        elif op == "swap keys" and len(keys) > 1:
            a, b = draw(st.sampled_from(keys)), draw(st.sampled_from(keys))
            _at(save, a[:-1])[a[-1]], _at(save, b[:-1])[b[-1]] = _at(save, b), _at(save, a)
        elif op == "swap items":
            lists = [p for p in _card_lists(save) if _at(save, p)]
            if lists:
                a, b = draw(st.sampled_from(lists)), draw(st.sampled_from(lists))
                i, j = draw(st.integers(0, len(_at(save, a)) - 1)), draw(st.integers(0, len(_at(save, b)) - 1))
                _at(save, a)[i], _at(save, b)[j] = _at(save, b)[j], _at(save, a)[i]
        elif op == "key" and keys:
            path = draw(st.sampled_from(keys))
            _at(save, path[:-1])[path[-1]] = draw(st.sampled_from([_at(save, k) for k in keys])
                                                  | st.integers(0, 2**64 - 1).map(lambda k: f"0x{k:016x}"))
        elif op == "type" and paths:
            path = draw(st.sampled_from(paths))
            value = _at(save, path)
            _at(save, path[:-1])[path[-1]] = draw(st.sampled_from(
                [str(value), [value], {"value": value}, None, 1.5, True, 0]))
    if isinstance(save, dict) and "digest" in save and draw(st.booleans()):
        try:
            save["digest"] = save_digest(save)
        except ValueError:              # NaN: no digest can be made
            pass
    return save


@FEW
@given(data=st.data())
def test_edited_saves_are_refused_in_one_line_or_play_on(real_saves, data):
    save, shown, written = data.draw(st.sampled_from(real_saves))
    edited = data.draw(save_edits(save))
    with tempfile.TemporaryDirectory() as tmp:
        code, out, err, exc, after = _resumed(edited, tmp)
    if code != 0:
        assert_clean_refusal(["play", "--resume"], code, out, err, exc)
        return
    assert exc is None and not err.strip(), err
    if after == written:                # nothing checked was changed: the same game, told the same way
        assert out == shown


# ---- tampered records, --record-where filters (issue 51) -------------------------------------------------------
# A record edited anywhere (its moves' texts, keys, seats and bots, its scores, bots, format, options, winner, its
# rounds) is refused in one line by `replay` and `show`, or, where the edit changes nothing checked, shows what
# the untouched record shows; nothing a file holds reaches the terminal as a control character. A generated
# --record-where is a filter or one line, and never runs code.

RECORD_FUZZ = settings(FUZZ, max_examples=max(1, EXAMPLES // 4))
TERMINAL_JUNK = st.sampled_from(["\x1b]0;owned\x07", "\x1b[2J\x1b[H", "\x9b31m", "a\u202eb", "Play 10S to capture "
                                 "everything", "", "greedy", "human", "0x" + "f" * 16])


@pytest.fixture(scope="module")
def valid_records():
    """Records as `simulate` writes them: Khasino, Khasino 4p (a lead and Stay decisions), a Cassino match."""
    from khasino_sim.records import play_record
    return [{**play_record("khasino", None, ["greedy", "random"], 3), "game": 0},
            {**play_record("khasino-4p", None, ["greedy", "greedy", "random", "random"], 5), "game": 1},
            {**play_record("cassino", None, ["random", "greedy"], 7, kind="match"), "game": 2}]


def _pick(draw, items, kind=dict):
    """One of `items` of type `kind` (none: None): a record already edited may hold junk anywhere."""
    items = [x for x in items if isinstance(x, kind)] if isinstance(items, list) else []
    return draw(st.sampled_from(items)) if items else None


@st.composite
def record_edits(draw, rec):
    """A copy of `rec` with one to three edits to the fields a record is checked by, or anywhere (mutations)."""
    rec = copy.deepcopy(rec)
    for _ in range(draw(st.integers(1, 3))):
        rnd = _pick(draw, rec.get("rounds")) or {}
        move, other = _pick(draw, rnd.get("moves")), _pick(draw, rnd.get("moves"))
        edit = draw(st.sampled_from(["text", "key", "seat", "bot", "move", "score", "round scores", "bots",
                                     "format", "winner", "options", "seed", "kind", "leader", "rounds", "moves",
                                     "anywhere"]))
        if edit == "text" and move and isinstance(move.get("move"), dict):
            said = other.get("move", {}).get("text", "") if isinstance(other.get("move"), dict) else ""
            move["move"]["text"] = draw(TERMINAL_JUNK | st.just(said) | st.text(max_size=12))
        elif edit == "key" and move:
            move["key"] = draw(st.just(other.get("key")) | st.just(str(move.get("key")).upper().replace("0X", "0x"))
                               | st.integers(0, 2**64 - 1).map(lambda k: f"0x{k:016x}") | junk)
        elif edit == "seat" and move:
            move["seat"] = draw(st.integers(-2, 9) | st.just(True) | junk)
        elif edit == "bot" and move:
            move["bot"] = draw(TERMINAL_JUNK | st.sampled_from(sorted(BOTS)) | junk)
        elif edit == "move" and move:
            card = {**move["move"], "card": draw(st.sampled_from(CARDS))} if isinstance(move.get("move"), dict) else 0
            move["move"] = draw(st.just(other.get("move")) | st.just(card) | junk)
        elif edit == "score" and isinstance(rec.get("score"), list) and rec["score"]:
            rec["score"][draw(st.integers(0, len(rec["score"]) - 1))] = draw(st.integers(-3, 30) | junk)
        elif edit == "round scores" and _pick(draw, rnd.get("scores")):
            seat = _pick(draw, rnd.get("scores"))
            if seat:
                seat[draw(st.sampled_from(sorted(seat)))] = draw(st.integers(-3, 30) | junk)
        elif edit == "bots" and isinstance(rec.get("bots"), list) and rec["bots"]:
            seat = draw(st.integers(0, len(rec["bots"]) - 1))
            rec["bots"][seat] = draw(TERMINAL_JUNK | st.sampled_from(sorted(BOTS)))
        elif edit == "format":
            rec["format"] = draw(st.sampled_from(FORMAT_NAMES) | junk)
        elif edit == "winner":
            rec["winner"] = draw(st.sampled_from([None, 0, 1, 2, -1, 7, True]) | junk)
        elif edit == "options":
            known = FORMATS[rec["format"]].options if rec.get("format") in FORMATS else {"follow_ups": None}
            rec["options"] = {draw(st.sampled_from(sorted(known))): draw(st.booleans() | st.integers(0, 9) | junk)}
        elif edit == "seed":
            rec["seed"] = draw(st.integers(0, 2**64 + 5).map(str) | st.just("0" + str(rec.get("seed"))) | junk)
        elif edit == "kind":
            rec["kind"] = draw(st.sampled_from(["game", "match", "single", "round", "x"]) | junk)
        elif edit == "leader":
            rec["leader"] = draw(st.integers(-1, 5) | junk)
        elif edit == "rounds" and isinstance(rec.get("rounds"), list) and rec["rounds"]:
            i = draw(st.integers(0, len(rec["rounds"]) - 1))
            rec["rounds"] = draw(st.sampled_from([rec["rounds"][:i] + rec["rounds"][i + 1:],
                                                  rec["rounds"] + [rec["rounds"][i]], rec["rounds"][::-1]]))
        elif edit == "moves" and isinstance(rnd.get("moves"), list) and rnd["moves"]:
            i, j = draw(st.integers(0, len(rnd["moves"]) - 1)), draw(st.integers(0, len(rnd["moves"]) - 1))
            rnd["moves"][i], rnd["moves"][j] = rnd["moves"][j], rnd["moves"][i]
            if draw(st.booleans()):
                del rnd["moves"][i]
        else:
            rec = draw(mutations(rec))
    return rec


_SHOWN = {}


def _shown_or_refused(args):
    code, out, err, exc = run_cli(args)
    if code != 0:
        assert_clean_refusal(args, code, out, err, exc)
        return None
    assert exc is None or isinstance(exc, SystemExit), exc
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]", out), out[:300]
    return out.splitlines()[1:]          # the title names the record; the rest is the game


@pytest.mark.parametrize("which", [0, 1, 2])
@RECORD_FUZZ
@given(data=st.data())
def test_tampered_records_are_refused_or_show_the_same_game(valid_records, which, data):
    rec = valid_records[which]
    bad = data.draw(record_edits(rec))
    move = data.draw(st.integers(1, 3))
    with tempfile.TemporaryDirectory() as tmp:
        good, path = os.path.join(tmp, "good.jsonl"), os.path.join(tmp, "bad.jsonl")
        Path(good).write_text(json.dumps(rec) + "\n")
        Path(path).write_text(json.dumps(bad) + "\n")
        for args in (["replay", "{}", "--all"], ["show", "{}", "--move", str(move)]):
            shown = _shown_or_refused([a.format(path) for a in args])
            if shown is not None:       # accepted: the edit changed nothing that is checked or shown
                key = (which, *args)
                if key not in _SHOWN:
                    _SHOWN[key] = _shown_or_refused([a.format(good) for a in args])
                assert shown == _SHOWN[key], args


FILTER_PIECES = ["score_0", "score_1", "bot_0", "turns", "winner", "seed", "captures", "and", "or", "not", "(", ")",
                 "==", "!=", "<", ">=", "+", "-", "*", "0", "1", "255", "18446744073709551616", '"greedy"',
                 "'random'", "@", ".", "[0]", "=", ",", ":", "lambda", "abs(", "\x1b", "__class__",
                 "__import__('os').system('touch MARKER')", "open('MARKER', 'w')", "@pd.io.common.os.system",
                 "('touch MARKER')", "exec(\"open('MARKER','w')\")", "`touch MARKER`", "$(touch MARKER)"]
CHAIN_TERMS = ["turns", "score_0", "seed", "(turns)", "-1", "(1 - turns)", "255"]


@st.composite
def long_filters(draw):
    """A long chain, often as long as a filter may be (2,000 characters: MAX_LENGTH) and sometimes just past it:
    terms joined by + - * (or comparisons, and, or); or a deep nesting of parentheses, `not` and unary minus
    around a condition (up to past MAX_DEPTH, 60). A chain of 990 terms once overflowed Python's stack
    ("internal error: RecursionError")."""
    def length(piece, room=1990):
        most = room // len(piece)
        return draw(st.sampled_from([most, most + 5]) | st.integers(1, most))
    shape = draw(st.sampled_from(["arith", "compare", "logic", "nest"]))
    if shape == "arith":
        ops = draw(st.lists(st.sampled_from(["+", "-", "*"]), min_size=1, max_size=3))
        term = draw(st.sampled_from(["1", "0", "7"]) | st.sampled_from(CHAIN_TERMS))    # a digit: 995 terms
        n = length("+" + term)
        chain = term + "".join(ops[i % len(ops)] + term for i in range(n))
        return chain + draw(st.sampled_from([" > 0", " != 3", "", " == 'greedy'"]))
    if shape == "compare":
        op = draw(st.sampled_from(["<=", "<", "==", "!="]))
        return "turns" + (op + "turns") * length(op + "turns")
    if shape == "logic":
        word = draw(st.sampled_from([" and ", " or ", "and", " or not "]))
        return word.join(["turns>0"] * length(word + "turns>0"))
    opener, closer = draw(st.sampled_from([("(", ")"), ("not ", ""), ("-", ""), ("(not ", ")"), ("(-", ")")]))
    depth = draw(st.sampled_from([60, 61]) | st.integers(1, 80))
    return opener * depth + draw(st.sampled_from(["turns > 0", "turns", "turns + 1"])) + closer * depth \
        + draw(st.sampled_from(["", " > 0"]))


filters_text = st.one_of(
    st.lists(st.sampled_from(FILTER_PIECES), min_size=1, max_size=9).map(" ".join),
    st.lists(st.sampled_from(FILTER_PIECES), min_size=1, max_size=9).map("".join),
    st.text(max_size=30),
    long_filters())


@contextlib.contextmanager
def _python_stack(frames=900):
    """Python's own recursion limit (1000 frames) as a command started from a shell has it, `frames` above this
    one: Hypothesis raises the limit while a test runs, which would hide a filter that overflows the stack."""
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + frames)
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


@RECORD_FUZZ
@given(where=filters_text)
@example(where="turns" + "+1" * 990 + " > 0")     # once "internal error: RecursionError"
@example(where="(" * 60 + "turns" + " * 1" * 300 + ")" * 60 + " > 0")
def test_generated_record_where_is_a_filter_or_one_line_and_runs_no_code(where):
    with tempfile.TemporaryDirectory() as tmp:
        cwd = os.getcwd()
        os.chdir(tmp)
        try:
            args = ["simulate", "--games", "2", "--out", "r", "--quiet", "--record-where", where]
            with _python_stack():
                code, out, err, exc = run_cli(args)
        finally:
            os.chdir(cwd)
        assert not os.path.exists(os.path.join(tmp, "MARKER")), f"{where!r} ran code"
        if code != 0:
            assert_clean_refusal(args, code, out, err, exc)
            assert not os.path.exists(os.path.join(tmp, "r")), f"{where!r} refused after playing"
        else:
            assert exc is None or isinstance(exc, SystemExit), exc


@settings(FUZZ, max_examples=max(1, EXAMPLES * 2))
@given(where=long_filters())
def test_long_and_deep_filters_parse_or_are_one_line(where):
    """Long chains and deep nestings straight through the parser and the evaluator (many more than the command
    line fuzz above can afford): a filter's rows, or one FilterError line; never RecursionError."""
    import numpy as np
    from khasino_sim.filters import FilterError, parse
    cols = {"turns": "number", "score_0": "number", "seed": "number", "bot_0": "text"}
    table = {"turns": np.array([0, 40, 255], dtype=np.uint8), "score_0": np.array([0, 11, 3], dtype=np.int8),
             "seed": np.array([0, 2**64 - 1, 7], dtype=np.uint64), "bot_0": np.array(["a", "b", "c"], dtype=object)}
    from khasino_sim.filters import FRAMES_PER_LEVEL, MAX_DEPTH
    try:
        with _python_stack(MAX_DEPTH * FRAMES_PER_LEVEL + 25):      # what the parser says it needs at most
            rows = parse(where, cols).rows(table, 3)
    except FilterError as e:
        assert "\n" not in str(e) and str(e)
    else:
        assert rows.dtype == bool and rows.shape == (3,)
