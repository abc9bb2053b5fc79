"""Bots as specs (`name` or `name:key=value,...`): the registry of bots and their parameters, parsing with one
clear line per bad spec, and the process's bot table that gives a bot with parameters its compiled code.

`khasino bots` lists this registry. Every bot runs compiled inside the game loop (docs/ENGINE.md, "Bots"); a
spec with parameters is a row of the bot table (kernels/core/heuristic.py, `BOT_TABLE`), its code BOT_TABLE_BASE +
row, the same in every thread of a process."""
import os
import re

from khasino_sim.kernels.core import layout as L
from khasino_sim.kernels.core.heuristic import BOT_TABLE, DEFAULT_WEIGHTS, SEARCH_DEFAULTS

from .text import printable

BOTS = {
    "random": ("a uniform draw over the distinct legal moves", {}),
    "greedy": ("the most card points, then cards, spades, fewest points left on the table; misère in Kasino "
               "(the fewest points, tabbe included)", {}),
    "heuristic": ("a weighted score from what the seat sees (docs/ENGINE.md, Bots); weights in tenths of a point",
                  dict(DEFAULT_WEIGHTS)),
    "rollout": ("flat Monte Carlo: each legal move played out in turn over determinisations of the unseen "
                "cards by the policy bot; the best mean reward", dict(SEARCH_DEFAULTS["rollout"])),
    "ismcts": ("single-observer information-set MCTS (Cowling, Powley, Whitehouse 2012) over determinisations, "
               "policy-bot playouts; leader and Stay searched too", dict(SEARCH_DEFAULTS["ismcts"])),
    "file": ("a user bot: file:PATH (or --bot-file PATH, then its name), a function score(view, move) in Python "
             "or numba.njit (khasino_sim/userbots.py: its view and move fields per family)", {}),
    "policy": ("a trained policy: policy:PATH, a LinearPolicy .npz file (scripts/train_policy.py) entering its most "
               "likely token at each step of the action space; plays in the batched environment (docs/AGENTS.md), "
               "in the format it was trained for", {}),
}
ALIASES = {}        # a bot file's name (its stem) -> its spec file:PATH, from --bot-file
SEARCH_BOTS = ("rollout", "ismcts")     # always a row of the bot table: workspaces are sized by its rows' n
POLICIES = ("random", "greedy", "heuristic")       # a search bot's playout policy (its BOT_* code)
LIMITS = {"n": (1, 200_000), "c": (0, 1000)}       # the search area is sized for n (kernels/core/tree.py)
PARAM_HELP = {
    "points": "per card point taken (Kasino: subtracted, misère)",
    "cards": "per card taken",
    "spades": "per spade taken",
    "exposed": "per card point left on the table outside the builds the mover's side owns (subtracted)",
    "our_points": "per card point in the builds the mover's side owns after the move",
    "our_cards": "per card those builds gain",
    "kasino_setup": "Kasino: for leaving exactly one card on the table (a double tabbe set up)",
    "pile": "per card point a capture leaves exposed on top of the mover's pile for the opponents (K8; "
            "less the exposed top it covers; subtracted)",
    "races": "1: cards and spades count only while their K13 race is open (no side holds a majority); 0: always",
    "safety": "1: a build's points count as the owner's only with the chance that no opponent holds its value "
              "(the unseen cards dealt evenly), as exposed otherwise; 0: always the owner's",
    "n": "search iterations per decision (determinisations played out), 1 to 200000",
    "c": "ismcts: UCB exploration constant in hundredths (rollout ignores it)",
    "policy": "the playout bot for every seat: random, greedy or heuristic",
}
_ROWS = {}          # canonical spec -> row of the bot table
POLICY_PREFIX = "policy:"


class BotSpecError(ValueError):
    """A bad bot spec; the message is one line."""


def parse(spec):
    """(name, params) of a spec; params holds every parameter of the bot (defaults filled in). BotSpecError
    (one line) for an unknown bot or parameter, a parameter without a value or given twice (the last would
    silently win), a value out of range, and parameters on a bot file's name."""
    text = str(spec).strip()
    text = ALIASES.get(text, text)
    if text == "file" or text.startswith("file:"):
        from .userbots import resolve
        path = text[5:].strip()
        if not path:
            raise BotSpecError("a user bot is file:PATH, the path of a file defining score(view, move)")
        return "file", {"path": resolve(path)}
    if text == "policy" or text.startswith(POLICY_PREFIX):
        path = text[len(POLICY_PREFIX):].strip()
        if not path:
            raise BotSpecError("a trained policy is policy:PATH, the path of its .npz file (docs/AGENTS.md)")
        return "policy", {"path": os.path.abspath(os.path.expanduser(path))}
    name, sep, rest = text.partition(":")
    name = name.strip()
    if name in ALIASES and sep:
        raise BotSpecError(f"{name} is a bot file ({ALIASES[name][5:]}); a bot file takes no parameters, "
                           f"name it alone: {name}")
    if name not in BOTS:
        raise BotSpecError(f"unknown bot {_shown(name)!r} (known: {', '.join(BOTS)}; `khasino bots` lists them)")
    params = dict(BOTS[name][1])
    if sep:
        if not rest.strip():
            raise BotSpecError(f"bot spec {_shown(text)!r}: give key=value parameters after ':'")
        given = set()
        for part in (p for p in rest.split(",") if p.strip()):
            key, eq, value = (x.strip() for x in part.partition("="))
            if key not in params:
                known = ", ".join(params) or "none"
                raise BotSpecError(f"bot spec {_shown(text)!r}: {name} has no parameter {_shown(key)!r} "
                                   f"(parameters: {known})")
            if not value:
                raise BotSpecError(f"bot spec {_shown(text)!r}: {_needs_value(name, key)}")
            if key in given:        # else the last would silently win
                raise BotSpecError(f"bot spec {_shown(text)!r}: {key} is given twice; give each parameter once")
            given.add(key)
            params[key] = _value(text, key, value)
    return name, params


def _shown(text, width=60):
    """Typed text in a message: printable, cut to `width`, so a message stays one short line."""
    return printable(text, width)


def _needs_value(name, key):
    """What to say of a parameter given without a value."""
    example = "|".join(POLICIES) if key == "policy" else "N"
    return f"{key} needs a value: {name}:{key}={example}"


def _value(text, key, value):
    """A parameter's value from its text: a playout policy's BOT_* code, or an integer within its limits."""
    if key == "policy":
        if value not in POLICIES:
            raise BotSpecError(f"bot spec {_shown(text)!r}: policy is one of {', '.join(POLICIES)}, "
                               f"not {_shown(value, 20)!r}")
        return POLICIES.index(value)
    lo, hi = LIMITS.get(key, (-10**6, 10**6))
    try:
        number = int(value)
    except ValueError:
        if not re.fullmatch(r"[+-]?\d+", value):
            raise BotSpecError(f"bot spec {_shown(text)!r}: {key} takes an integer, not {_shown(value, 20)!r}") from None
        number = None           # more digits than Python converts: out of range anyway
    if number is None or not lo <= number <= hi:
        raise BotSpecError(f"bot spec {_shown(text)!r}: {key} must be in {lo}..{hi}, not {_shown(value, 20)}")
    return number


def canonical(spec):
    """The spec written canonically: the name, then the parameters that differ from the defaults, sorted."""
    name, params = parse(spec)
    if name in ("file", "policy"):
        return name + ":" + params["path"]
    changed = {k: (POLICIES[v] if k == "policy" else v) for k, v in sorted(params.items())
               if v != BOTS[name][1][k]}
    return name + (":" + ",".join(f"{k}={v}" for k, v in changed.items()) if changed else "")


def _canonical_or_same(spec):
    try:
        return canonical(spec)
    except BotSpecError:            # a name this process does not know (a test's stand-in): shown as written
        return spec


def display_names(specs):
    """The names results show for `specs` (issue 38): a user bot file by its file's stem, as --bot-file names it
    (`my_bot`, not `file:/home/me/bots/my_bot.py`), every other spec canonically. Where two bot files share a
    stem, or a stem is a built-in bot's name, those keep their full spec so no two bots of a run read alike."""
    canon = [_canonical_or_same(s) for s in specs]
    short = [os.path.splitext(os.path.basename(c.partition(":")[2]))[0] if is_file_or_policy(c) else c for c in canon]
    clash = {n for n in short if short.count(n) > 1 or (n in BOTS and n not in canon)}
    return [c if n in clash else n for c, n in zip(canon, short)]


def is_policy(spec):
    """Whether a bot spec names a trained policy (policy:PATH): an agent of the batched environment, not a
    compiled bot (no `code`)."""
    return str(spec).strip().startswith(POLICY_PREFIX)


def is_file_or_policy(spec):
    return str(spec).startswith(("file:", POLICY_PREFIX))


def code(spec):
    """The compiled bot code of a spec: its BOT_* id without parameters changed (not a search bot's), else its
    row of the bot table (registered on first use). A trained policy has none (BotSpecError)."""
    canon = canonical(spec)
    name, params = parse(canon)
    if name == "policy":
        raise BotSpecError(f"{spec}: a trained policy plays in `khasino simulate`, `tournament` and `match` (the "
                           "batched environment, docs/AGENTS.md), not as a compiled bot here")
    if ":" not in canon and name not in SEARCH_BOTS:
        return L.BOT_NAMES.index(name)
    if canon not in _ROWS:
        if len(_ROWS) >= L.BOT_TABLE_ROWS:
            raise BotSpecError(f"at most {L.BOT_TABLE_ROWS} bots with parameters in one process")
        if name == "file":          # the score function's address (kernels/core/userbot.py)
            from .userbots import address, UserBotError
            try:
                params = {"address": address(params["path"])}
            except UserBotError as e:
                raise BotSpecError(str(e)) from None
        row = len(_ROWS)
        base = row * L.BOT_STRIDE
        BOT_TABLE[base] = L.BOT_NAMES.index(name)
        for k, value in enumerate(params.values()):
            BOT_TABLE[base + 1 + k] = value
        _ROWS[canon] = row
    return L.BOT_TABLE_BASE + _ROWS[canon]


def add_bot_file(path):
    """--bot-file PATH: the bot file's name (its stem) becomes a bot name meaning file:PATH. Returns the name."""
    from .userbots import resolve
    if not os.path.isfile(str(path)):          # said at once, even when no bot of the command uses the file
        raise BotSpecError(f"bot file {path} is a folder, not a file" if os.path.isdir(str(path))
                           else f"bot file {path} does not exist")
    name = os.path.splitext(os.path.basename(str(path)))[0]
    if name in BOTS:
        raise BotSpecError(f"bot file {path}: its name {name!r} is a built-in bot's; rename the file")
    ALIASES[name] = "file:" + resolve(path)
    return name


def add_bot_files(paths):
    """Every --bot-file of one command (add_bot_file). Two different files with one stem are refused, naming
    both: the second would silently replace the first. The same file given twice is one bot. Returns the names."""
    named = {}
    for path in paths:
        name = add_bot_file(path)
        first = named.setdefault(name, path)
        if not os.path.samefile(first, path):
            raise BotSpecError(f"--bot-file {first} and --bot-file {path} both name a bot {name!r} (a bot file's "
                               "name is its stem); rename one of the files")
    return list(named)


def check_playable(names, family, format_name=None):
    """One line if a user bot's file does not load (loaded here, before any worker starts; every family has
    a view, khasino_sim/userbots.py, VIEWS), or a trained policy cannot play: a file that is not a policy, or
    one trained for another format than `format_name` (when given)."""
    for n in names:
        name = parse(n)[0]
        if name == "file":
            code(n)
        elif name == "policy" and format_name is not None:
            from .agents.policy import load_policy
            try:
                load_policy(canonical(n), format_name)
            except ValueError as e:
                raise BotSpecError(str(e)) from None


def split_list(text):
    """Bot specs from a comma-separated list: a `key=value` item continues the bot before it
    (`heuristic:cards=20,spades=5,greedy` is two bots)."""
    out = []
    for item in (x.strip() for x in str(text).split(",") if x.strip()):
        if "=" in item and ":" not in item and out:
            out[-1] += "," + item
        else:
            _check_not_a_parameter(out[-1] if out else None, item)
            out.append(item)
    for s in out:
        parse(s)
    return [canonical(s) for s in out]


def _check_not_a_parameter(previous, item):
    """A bare word after a bot with parameters that names none of the bots but one of that bot's parameters
    (`heuristic:cards=1,spades`) is a parameter without its value, not an unknown bot."""
    if previous is None or ":" not in previous or item in BOTS or item in ALIASES or ":" in item:
        return
    name = previous.partition(":")[0].strip()
    if item in BOTS.get(name, ("", {}))[1]:
        raise BotSpecError(f"bot spec {_shown(previous + ',' + item)!r}: {_needs_value(name, item)}")
