"""Saved games of `khasino play --save` (README, "Saved games"): the format, writing a save, and reading one back
for `--resume`.

A save is untrusted input: it holds only what cannot be derived (the format, rule options, seed, --rounds 1,
mode, humans, each seat's bot, the hint bot and the key of every move) and nothing that is run or written by
path, then a digest that tells a save as written from one damaged or edited by hand. `read` checks each part
of it; `replay` deals the game again and plays every key through the engine, each a legal move of its position
and each bot move the one its bot chooses with its draw. Whatever is not what a game played by `khasino play`
holds is refused in one line (SaveError). A save of an earlier khasino-sim, which kept every state as written
and was resumed without checks, is refused too: it is the untrusted kind this format replaces.

This module uses a session.Game it is given and never imports session (session imports it)."""
import hashlib
import io
import json
import os
import re

from .. import engine
from ..files import sha256_file
from ..records import key_text
from ..text import printable
from . import screen

SAVE_SCHEMA = "khasino-play/2"
EARLIER_SCHEMAS = ("khasino-play/1",)   # saves of an earlier khasino-sim: refused, named as such
SAVE_LIMIT = 4 << 20                    # bytes: a long Cassino match's save is a few kilobytes
SAVE_KEYS = ("khasino_play", "format", "options", "seed", "single", "mode", "humans", "names", "hint_bot", "moves",
             "digest")
MODES = ("practice", "classic")
# Resuming re-runs the bots' moves to check that each is the one its bot chooses: every move of the fast bots,
# a search bot's (rollout, ismcts: about 30 microseconds an iteration) from the last move back while this many
# iterations in all are left (about 1.5 s), so that a resume stays quick whatever the search bots' n.
REPLAY_SEARCH_BUDGET = 50_000
KEY = re.compile(r"0x[0-9a-f]{16}")
SEED = re.compile(r"0|[1-9][0-9]{0,19}")
SHA256 = re.compile(r"[0-9a-f]{64}")


class SaveError(ValueError):
    """A saved game that cannot be resumed; the message is one line."""


class Finished(SaveError):
    """A saved game that is over: there is nothing to resume."""


# ---------------------------------------------------------------------------------------------- writing a save
def save_digest(data):
    """The digest of a save: the SHA-256 (hex) of its content but the digest, as canonical JSON (keys sorted,
    no spaces, ASCII). It shows that a save is as `khasino play` wrote it, against damage and edits by hand;
    it is no signature (whoever edits a save can compute it again), so `read` and `replay` check everything
    regardless."""
    body = {k: v for k, v in data.items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def bot_entry(spec, contents):
    """How a seat's bot (or the hint bot) is saved: a built-in spec written canonically; a user bot file by its
    file name and the SHA-256 of its content, never by a path to load. `contents` maps a bot file's spec to that
    SHA-256 (a game's bot_files); one not there yet is read and added."""
    from .. import bots
    if spec is None or spec == "human":
        return spec
    try:
        canon = bots.canonical(spec)
    except bots.BotSpecError:       # a name this process does not know (a test's stand-in): as written
        return spec
    if not canon.startswith("file:"):
        return canon
    if canon not in contents:
        contents[canon] = sha256_file(canon[5:])
    return {"bot_file": os.path.basename(canon[5:]), "sha256": contents[canon]}


def bot_files(specs):
    """The SHA-256 of the content of each bot file among `specs` (bots), by its canonical spec: taken as a game
    begins, so that its saves name the file it began with however the file changes later (bot_entry)."""
    contents = {}
    for spec in specs:
        bot_entry(spec, contents)
    return contents


def to_json(game):
    """A session.Game as it is saved (SAVE_SCHEMA): the format, rule options, seed, --rounds 1, mode, humans,
    the bot of each seat, the hint bot and the move keys of every round so far, then its digest."""
    rounds = [r["moves"] for r in game.rounds] + ([] if game.over else [game.current["moves"]])
    data = {"khasino_play": SAVE_SCHEMA, "format": game.fmt.name, "options": game.options,
            "seed": str(game.seed), "single": game.single, "mode": game.mode, "humans": game.humans,
            "names": ["human" if s in game.humans else bot_entry(n, game.bot_files)
                      for s, n in enumerate(game.names)],
            "hint_bot": bot_entry(game.hint_bot, game.bot_files),
            "moves": [[m["key"] for m in moves] for moves in rounds]}
    return {**data, "digest": save_digest(data)}


def write(path, data):
    """Write a save (`to_json`) to `path`, whole (a temporary file renamed over it) and never through a link."""
    from ..files import make_folder, replacing
    make_folder(os.path.dirname(os.path.abspath(path)))
    with replacing(path) as f:
        json.dump(data, f)


# ------------------------------------------------------------------------------------- reading and checking one
def read(data, hint_bot=None):
    """The setup and the move keys (ints, round by round) of the game saved in `data` (a save's parsed JSON),
    each part checked; SaveError (one line) where `data` is not a game `khasino play --save` wrote. The setup is
    a dict of format, options, seed, single, mode, humans, names (each seat's bot spec, a bot file's the
    --bot-file given whose content has the saved SHA-256) and hint_bot (None where `hint_bot` is given, which
    replaces it)."""
    if isinstance(data, dict) and data.get("khasino_play") in EARLIER_SCHEMAS:
        raise SaveError(f"it was written by an earlier khasino-sim ({data['khasino_play']}), whose saves "
                        "are not checked and cannot be resumed; start a new game with `khasino play --human SEAT "
                        "...`")
    if not isinstance(data, dict) or data.get("khasino_play") != SAVE_SCHEMA:
        raise SaveError("it is not a game saved by `khasino play --save`")
    _exact_keys(data, SAVE_KEYS)
    if data["digest"] != _digest_or_none(data):
        raise SaveError("its digest does not match its content: the file was changed after `khasino play` wrote it")
    keys = _keys(data["moves"])
    return _setup(data, hint_bot), keys


def replay(game, rounds):
    """Play the saved move keys of each round (lists of ints, from `read`) in `game`, a session.Game just set up
    from the save, from the first deal as its `play` played them, printing nothing. Everything but the setup
    (the deals, hands, table, stock, piles, scores and match totals, the seat and text of each move, the humans'
    decisions, what each human has been shown, a pending Stay) is computed again here: each key must be a legal
    move of its position, the rounds must end where the save says, and each bot move must be the one its bot
    chooses with its draw (_check_bots). SaveError where that is not so; Finished when the game is over."""
    shown, game.con = game.con, screen.console(True, io.StringIO())
    checks = []
    try:
        game._deal(1, [0] * game.fmt.seats)
        for r, keys in enumerate(rounds, 1):
            for i, key in enumerate(keys, 1):
                if game._ended():
                    raise SaveError(f"round {r} ends after {i - 1} move(s), yet the save has {len(keys)}")
                move = engine.move_of_key(game.state, key)
                if move is None:
                    raise SaveError(f"round {r}, move {i}: {key_text(key)} is no legal move of its position")
                seat = game._decider()
                if seat in game.humans:     # what Game._ask does before the human chooses
                    game.last_human = seat
                    game._flush(seat)
                else:
                    checks.append((r, i, game.state, game.names[seat], game._draw(i - 1), key, move.text, seat))
                game._apply(seat, move)
            if not game._ended():
                if r < len(rounds):
                    raise SaveError(f"round {r} is not over after its {len(keys)} move(s), yet the save goes on "
                                    f"to round {r + 1}")
                break
            if game._round_over():
                if r < len(rounds):
                    raise SaveError(f"the game ended with round {r}, yet the save goes on to round {r + 1}")
                raise Finished("that game is finished")
    finally:
        game.con = shown
    _check_bots(checks)


def _check_bots(checks):
    """Each bot move of the replay, (round, move, state, bot, draw, key, text, seat), must be the one its bot
    chooses in its position with its draw: every move of the fast bots; a search bot's from the last one back
    while REPLAY_SEARCH_BUDGET iterations last (one move of ismcts:n=200000 takes seconds); a bot file's never
    (it is the user's code, which need not be a function of its position: its moves are checked for legality
    only)."""
    from .. import bots
    budget = REPLAY_SEARCH_BUDGET
    for r, i, state, bot, draw, key, text, seat in reversed(checks):
        name, params = bots.parse(bot)
        if name == "file":
            continue
        cost = params["n"] if name in bots.SEARCH_BOTS else 0
        if cost > budget:
            continue
        budget -= cost
        chosen = engine.bot_move(state, bot, draw)
        if chosen.key != key:
            raise SaveError(f"round {r}, move {i}: seat {seat}'s bot ({bot}) plays {chosen.text}, not the "
                            f"saved move ({text})")


def _digest_or_none(data):
    try:
        return save_digest(data)
    except (ValueError, TypeError, RecursionError):     # NaN, or nested too deeply: not what a save holds
        return None


def _shown(value, width=40):
    """A value read from a save, for a message: as JSON, printable, cut to `width`."""
    try:
        text = json.dumps(value)
    except (ValueError, TypeError, RecursionError):
        text = type(value).__name__
    return printable(text, width)


def _exact_keys(data, keys):
    missing = [k for k in keys if k not in data]
    if missing:
        raise SaveError(f"it has no {missing[0]!r}")
    extra = [k for k in data if k not in keys]
    if extra:
        raise SaveError(f"it holds {_shown(extra[0])}, which a saved game does not hold")


def _keys(rounds):
    """The move keys of a save's rounds, as ints."""
    if not isinstance(rounds, list) or not rounds or not all(isinstance(r, list) for r in rounds):
        raise SaveError("'moves' must be a list of rounds, each a list of move keys")
    for r, keys in enumerate(rounds, 1):
        for i, k in enumerate(keys, 1):
            if not isinstance(k, str) or not KEY.fullmatch(k):
                raise SaveError(f"round {r}, move {i}: {_shown(k)} is not a move key such as "
                                "\"0x6a2633bb9acb56d0\"")
    return [[int(k, 16) for k in keys] for keys in rounds]


def _setup(data, hint_bot):
    """The game's setup from a save, each part checked: the format, rule options (typed), seed, single, mode,
    humans, the bot of each seat (a bot file's spec from --bot-file) and the hint bot (None where `hint_bot`
    replaces it)."""
    from .. import bots
    from ..formats import FORMATS, options_of
    name = data["format"]
    if not isinstance(name, str) or name not in FORMATS:
        raise SaveError(f"unknown format {_shown(name)}")
    options = data["options"]
    if not isinstance(options, dict) or not all(type(v) in (bool, int) for v in options.values()):
        raise SaveError("'options' must map rule options to their values (`khasino options`)")
    try:
        fmt = engine._format(name, options)
    except ValueError as e:
        raise SaveError(f"'options': {printable(e, 200)}") from None
    typed = options_of(fmt)
    if any(type(v) is not type(typed[k]) or v != typed[k] for k, v in options.items()):
        raise SaveError("'options' are not written as `khasino play` writes them")
    seed = data["seed"]
    if not isinstance(seed, str) or not SEED.fullmatch(seed) or int(seed) >= 2**64:
        raise SaveError(f"'seed' must be a seed 0 .. 2**64 - 1 as a decimal string, not {_shown(seed)}")
    single = data["single"]
    if type(single) is not bool or (single and not fmt.matches):
        raise SaveError("'single' must be false, or true for a Cassino or Kasino game of one round")
    mode = data["mode"]
    if not isinstance(mode, str) or mode not in MODES:
        raise SaveError(f"'mode' must be practice or classic, not {_shown(mode)}")
    humans = data["humans"]
    if (not isinstance(humans, list) or not humans or any(type(h) is not int or not 0 <= h < fmt.seats for h in humans)
            or humans != sorted(set(humans))):
        raise SaveError(f"'humans' must list the humans' seats, at least one, each once and in order, of 0 .. "
                        f"{fmt.seats - 1}")
    names = data["names"]
    if not isinstance(names, list) or len(names) != fmt.seats:
        raise SaveError(f"'names' must name the player of each of the {fmt.seats} seats")
    specs = []
    for s, entry in enumerate(names):
        if s in humans:
            if entry != "human" or not isinstance(entry, str):
                raise SaveError(f"seat {s} is a human's: its name must be \"human\", not {_shown(entry)}")
            specs.append("human")
        else:
            specs.append(_bot(entry, f"seat {s}'s bot"))
    hint = _bot(data["hint_bot"], "the hint bot", needed=hint_bot is None)
    try:
        bots.check_playable([n for n in specs if n != "human"] + ([hint] if hint else []), fmt.family)
    except bots.BotSpecError as e:
        raise SaveError(str(e)) from None
    return {"format": fmt.name, "options": options, "seed": int(seed), "single": single, "mode": mode,
            "humans": humans, "names": specs, "hint_bot": hint}


def _bot(entry, what, needed=True):
    """The spec of a saved bot: a built-in bot's canonical spec, or a bot file's {"bot_file", "sha256"} (the
    --bot-file given with that content; None when not `needed`)."""
    from .. import bots
    if isinstance(entry, dict):
        if (set(entry) != {"bot_file", "sha256"} or not isinstance(entry["bot_file"], str)
                or not 0 < len(entry["bot_file"]) <= 255 or not isinstance(entry["sha256"], str)
                or not SHA256.fullmatch(entry["sha256"])):
            raise SaveError(f"{what} must be a bot's name or a bot file's {{\"bot_file\", \"sha256\"}}")
        return _bot_file(entry, what) if needed else None
    if not isinstance(entry, str) or len(entry) > 200:
        raise SaveError(f"{what} must be a bot's name, not {_shown(entry)}")
    if entry == "human":
        raise SaveError(f"{what} is \"human\", yet its seat is not among 'humans'")
    try:
        name, _ = bots.parse(entry)
        canon = bots.canonical(entry)
    except bots.BotSpecError as e:
        raise SaveError(f"{what}: {printable(e, 200)}") from None
    if name == "file":
        raise SaveError(f"{what}, {_shown(entry)}, names a bot file; a saved game holds a bot file's SHA-256 and "
                        "takes the file from --bot-file")
    if name == "policy":
        raise SaveError(f"{what} is a trained policy, which plays in simulate, tournament and match, not in "
                        "`khasino play`")
    if canon != entry:
        raise SaveError(f"{what} {_shown(entry)} is not written as `khasino play` writes it ({canon})")
    return entry


def _bot_file(entry, what):
    """The spec of the --bot-file (bots.ALIASES) whose content has the saved SHA-256: a save never loads a file
    by itself."""
    from .. import bots
    given = sorted({spec[5:] for spec in bots.ALIASES.values()})
    for path in given:
        try:
            if sha256_file(path) == entry["sha256"]:
                return "file:" + path
        except OSError:
            continue
    others = (f"; the --bot-file given ({', '.join(printable(os.path.basename(p), 60) for p in given)}) holds "
              "other content") if given else ""
    instead = " (or another hint bot, --hint-bot BOT)" if what == "the hint bot" else ""
    raise SaveError(f"{what} is the bot file {printable(entry['bot_file'], 60)} (SHA-256 {entry['sha256'][:16]}...): "
                    f"give that file again with --bot-file PATH{instead} to go on{others}")
