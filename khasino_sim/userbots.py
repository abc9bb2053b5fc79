"""User bots (issue 10 item 2): a bot written as one function of the seat's view and a legal move,

    def score(view, move) -> int

called for every legal move of the seat; the move with the highest score is played, ties broken by the
decision's draw exactly as the built-in bots break theirs (docs/ENGINE.md, "Bots"). `view` is the seat's
observation and `move` the candidate's move record, both int64 arrays whose fields are named in VIEW and MOVE
below. A file holding such a function is a bot: `--bot-file my_bot.py` (or the spec `file:my_bot.py`
wherever a bot is named). Write it in plain Python to prototype (each call goes through a ctypes callback:
slow, but print and pdb work), then put `@numba.njit` on the same function: it is then compiled into a C
callback the game loop calls at full speed. Both forms play the same games (tests/test_user_bots.py).
`view` and `move` are read-only; the score must be an integer. A function that raises, returns anything else or
(compiled) indexes out of bounds stops the run at its first fault, in one line naming it and the position
(issue 35; docs/ENGINE.md, "Bots"); so does a call that runs past the time limit (khasino_sim/bot_calls.py,
`set_time_limit`: the CLI's --bot-timeout, issue 51).

Khasino and Cassino share one view (VIEW, MOVE). Kasino's double deck has its own (KASINO_VIEW, KASINO_MOVE):
its card sets are multisets of two words, `lo` (every card present) and `hi` (the cards present twice), and
a move's `points` are the card points it takes, tabbe included (the fewer the better: misère). Card ids are
4 * rank + suit (A = 0, suits C D H S), as a mask bit 1 << id. Examples: examples/my_bot.py,
examples/my_kasino_bot.py."""
import contextlib
import ctypes
import importlib.util
import inspect
import os
import re
import threading
import traceback

import numpy as np

from khasino_sim.kernels.core import layout as L
from . import bot_calls
from .bot_calls import (CALL_PROBES, CALL_SLOTS, CALL_STOP, CALLS_SIZE, SLOT_BUSY, SLOT_KEY, SLOT_MOVE, SLOT_SEQ,
                        SLOT_WORDS)

# the fields of `view` (the seat's observation) and of `move` (a move record), by name
VIEW = {"seat": L.O_SEAT, "hand": L.O_HAND, "loose": L.O_LOOSE, "deal": L.O_DEAL, "stock_left": L.O_STOCK_LEFT,
        "pile_top": L.O_PILE_TOP, "pile_len": L.O_PILE_LEN, "build_owner": L.O_BOWNER, "build_cards": L.O_BCARDS,
        "hand_sizes": L.O_HAND_SIZES}
MOVE = {"card": L.M_CARD, "kind": L.M_KIND, "value": L.M_VALUE, "target": L.M_TARGET, "used": L.M_USED,
        "key": L.M_KEY, "points": L.M_POINTS, "cards": L.M_CARDS, "spades": L.M_SPADES,
        "table_points": L.M_TABLE_POINTS, "pile_used": L.M_PILE_USED}
KASINO_VIEW = {"seat": L.KO_SEAT, "hand_lo": L.KO_HAND, "hand_hi": L.KO_HAND + 1, "table_lo": L.KO_TABLE,
               "table_hi": L.KO_TABLE + 1, "aside_lo": L.KO_ASIDE, "aside_hi": L.KO_ASIDE + 1,
               "round": L.KO_ROUND, "rounds": L.KO_ROUNDS, "dealer": L.KO_DEALER,
               "last_player": L.KO_LAST_PLAYER, "last_capturer": L.KO_LAST_CAPTURER,
               "stock_left": L.KO_STOCK_LEFT, "hand_sizes": L.KO_HAND_SIZES, "piles": L.KO_PILE,
               "pile_sizes": L.KO_PILE_SIZES, "scores": L.KO_SCORES, "tabbe": L.KO_TABBE}
KASINO_MOVE = {"card": L.M_CARD, "kind": L.M_KIND, "value": L.M_VALUE, "tabbe": L.M_TABBE,
               "taken_lo": L.M_TAKEN_LO, "taken_hi": L.M_TAKEN_HI, "key": L.M_KEY, "points": L.M_POINTS}
KINDS = dict(zip(L.KIND_NAMES, range(len(L.KIND_NAMES))))
# per seat, the fields that start a block: hand_sizes, pile_sizes, scores (MAX_SEATS words); piles and tabbe
# (two words per seat: lo, hi and plus, minus); build_owner and build_cards by value 0..14 (VIEW)
VIEWS = {"khasino": VIEW, "cassino": VIEW, "kasino": KASINO_VIEW}
MOVES = {"khasino": MOVE, "cassino": MOVE, "kasino": KASINO_MOVE}

# a bot's fault buffer: a flag, then the view and the move record of the first call that failed
FAULT_FLAG, FAULT_VIEW = 0, 1
FAULT_MOVE = FAULT_VIEW + L.OBS_SIZE
FAULT_SIZE = FAULT_MOVE + L.REC_SIZE
_PROTO = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p)     # score(view, move): two addresses


class UserBotError(ValueError):
    """A bot file that cannot be used, or a score function that failed; the message is one line."""


class _Bot:
    """A loaded bot file: its score function, the C entry point the game loop calls, and its fault buffer.

    A score function that raises or returns something other than an integer is a fault: the first one is kept
    (the message, the seat's view and the move it was scoring), every later call returns 0 at once without
    calling the function, and `check_faults` raises it as one UserBotError when the compiled call returns, so
    a run stops at the end of the chunk it was playing instead of going on with a broken bot. A Python call
    past the time limit is such a fault (BotTimeout); a compiled function's calls table lets the time limit's
    monitor see a call that never returns (khasino_sim/bot_calls.py)."""

    def __init__(self, path, fn):
        self.path, self.fn = path, fn
        self.fault = np.zeros(FAULT_SIZE, dtype=np.int64)
        self.message = None             # a Python function's fault, as text
        self.lock = threading.Lock()
        compiled = hasattr(fn, "py_func")
        _check_arguments(fn.py_func if compiled else fn, path)
        self.address, self.keep = self._compiled() if compiled else self._python()

    def record(self, view, move, message=None):
        with self.lock:
            if not self.fault[FAULT_FLAG]:
                self.fault[FAULT_VIEW: FAULT_MOVE] = view
                self.fault[FAULT_MOVE:] = move
                self.message = message
                self.fault[FAULT_FLAG] = 1

    def where(self, view, move):
        """The position of a call, in the terms of the family of the last run checked (`check_faults`), or the
        move and the seat before any."""
        family = _FAMILY[0]
        try:
            return describe_position(view, move, family) if family else _describe_move(view, move)
        except Exception:           # a view read while it changed: the move alone
            return _describe_move(view, move)

    def _python(self):
        """A plain Python score function as a ctypes callback (the GIL is taken for each call). Each call goes
        through its thread's record (bot_calls: `_Call.run`), which holds the read-only view and move arrays the
        function gets (the same two for every call of the thread) and lists the call while it runs, so that the
        time limit's monitor can stop one that runs past the limit, and `stop_calls` one in progress when a run
        stops (an exception raised in its thread, BotTimeout or Stopped)."""
        fn, fault, thread, stopping = self.fn, self.fault, bot_calls.THREAD, bot_calls.stopping

        def callback(view_at, move_at):
            if fault[FAULT_FLAG] or stopping():
                return 0
            call = thread.call
            try:
                return integer_score(call.run(self, fn, view_at, move_at))
            except bot_calls.Stopped:   # the run stops (Ctrl-C): this call's score is never used
                return 0
            except KeyboardInterrupt:   # Ctrl-C in the main thread, inside the function: the run stops
                bot_calls.stop_calls()
                return 0
            except bot_calls.BotTimeout as e:
                self.record(call.view, call.move, bot_calls.timeout_text(e, self.path))
                return 0
            except BaseException as e:  # the user's code (sys.exit too): kept and reported once (check_faults)
                self.record(call.view, call.move, _describe_exception(e, self.path))
                return 0
        cb = _PROTO(callback)
        return ctypes.cast(cb, ctypes.c_void_p).value, cb

    def _compiled(self):
        """A numba.njit score function, compiled again with bounds checks, inside a cfunc that keeps its
        first fault: an exception (an index out of bounds among them) sets the fault buffer instead of
        printing a traceback per call or reading past the view."""
        from numba import cfunc, carray, njit, types
        from khasino_sim.kernels.core.userbot import int64_pointer, readonly
        options = {k: v for k, v in self.fn.targetoptions.items() if k not in ("nopython", "cache")}
        checked = njit(**{**options, "boundscheck": True})(self.fn.py_func)
        arg = types.Array(types.int64, 1, "C", readonly=True)
        try:
            checked.compile((arg, arg))
        except Exception as e:
            raise UserBotError(f"bot file {self.path}: score(view, move) does not compile as int64 "
                               f"score(int64[], int64[]): {_compile_error(e)}") from None
        returns = checked.nopython_signatures[0].return_type
        if not isinstance(returns, (types.Integer, types.Boolean)):
            raise UserBotError(f"bot file {self.path}: score(view, move) returns {returns}; it must return an "
                               "integer")
        self.calls = bot_calls.calls_table(self)
        at, calls_at = self.fault.ctypes.data, self.calls.ctypes.data
        obs, rec = L.OBS_SIZE, L.REC_SIZE
        address_of, claim, publish = bot_calls.call_intrinsics()
        words, probes, mask = SLOT_WORDS, CALL_PROBES, CALL_SLOTS - 1

        def wrapper(view_ptr, move_ptr):
            fault = carray(int64_pointer(at), (FAULT_SIZE,))
            calls = carray(int64_pointer(calls_at), (CALLS_SIZE,))
            if fault[FAULT_FLAG] != 0 or calls[CALL_STOP] != 0:
                return 0
            key = address_of(view_ptr)
            h = (key >> 4) ^ (key >> 16)
            slot = -1
            for probe in range(probes):     # this thread's slot (calls table, above)
                j = words * (1 + ((h + probe) & mask))
                if calls[j + SLOT_KEY] == key or claim(calls_at, j + SLOT_KEY, key):
                    slot = j
                    break
            if slot >= 0:
                calls[slot + SLOT_MOVE] = address_of(move_ptr)
                publish(calls_at, slot + SLOT_SEQ, calls[slot + SLOT_SEQ] + 1)
                publish(calls_at, slot + SLOT_BUSY, 1)
            view = readonly(carray(view_ptr, (obs,)))
            move = readonly(carray(move_ptr, (rec,)))
            score = 0
            try:
                score = checked(view, move)
            except Exception:
                if fault[FAULT_FLAG] == 0:
                    fault[FAULT_VIEW: FAULT_VIEW + obs] = view
                    fault[FAULT_MOVE: FAULT_MOVE + rec] = move
                    fault[FAULT_FLAG] = 1
                score = 0
            if slot >= 0:
                publish(calls_at, slot + SLOT_BUSY, 0)
            return score
        cb = cfunc(types.int64(types.CPointer(types.int64), types.CPointer(types.int64)))(wrapper)
        return cb.address, cb

    def fault_message(self, family):
        """The kept fault as one line: the file, the function, the error and the position."""
        view = self.fault[FAULT_VIEW: FAULT_MOVE].copy()
        move = self.fault[FAULT_MOVE:].copy()
        what = self.message
        if what is None:                # a compiled function's: run the Python source on the same input
            try:
                what = _describe_return(self.fn.py_func(view.copy(), move.copy()))
            except Exception as e:
                what = _describe_exception(e, self.path)
            if what is None:
                what = "raised an exception in compiled code (remove @njit to see it in Python)"
        return (f"bot file {self.path}: score(view, move) {what}, scoring {describe_position(view, move, family)}; "
                "the run stopped")


_LOADED = {}        # absolute path -> _Bot
_FAMILY = [None]    # the family of the last run checked, to describe a stuck call's position (_Bot.where)


class _BadScore(Exception):
    """A score function returned something other than an int64 integer; the message says what."""


def integer_score(value):
    """A score as an int64, or _BadScore naming what the function returned instead."""
    problem = _describe_return(value)
    if problem:
        raise _BadScore(problem)
    return int(value)


def _describe_return(value):
    """'returned X (type), not an integer' for a bad score, or None for a good one."""
    if isinstance(value, (bool, np.bool_, int, np.integer)):
        if -2**63 <= int(value) < 2**63:
            return None
        return f"returned {_short(value)}, outside the int64 range"
    return f"returned {_short(value)} ({type(value).__name__}), not an integer"


def _short(value, width=40):
    return _clip(repr(value), width)


def _clip(text, width):
    return text if len(text) <= width else text[:width - 3] + "..."


def _first_line(e):
    lines = [x for x in str(e).splitlines() if x.strip()]
    return _clip(lines[0].strip() if lines else type(e).__name__, 200)


def _compile_error(e):
    """Numba's typing error in a few words: its first line that says what failed."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(e))
    if "setitem" in text and "readonly" in text:
        return "it writes to view or move, which it may only read"
    lines = [x.strip() for x in text.splitlines() if x.strip() and not x.startswith("Failed in")]
    return _clip(lines[0] if lines else type(e).__name__, 200)


def _describe_exception(e, path):
    """'raised TypeError: ... (line N)' with the last line of the bot file the error went through."""
    if isinstance(e, _BadScore):
        return str(e)
    lines = [f.lineno for f in traceback.extract_tb(e.__traceback__) if os.path.abspath(f.filename) == path]
    where = f" (line {lines[-1]})" if lines else ""
    return f"raised {type(e).__name__}: {_first_line(e)}{where}"


def describe_position(view, move, family):
    """The move a score function was given, and what its seat saw, in one line (in the family's terms)."""
    from .families import family_of
    kind = L.KIND_NAMES[move[L.M_KIND]] if 0 <= move[L.M_KIND] < len(L.KIND_NAMES) else "?"
    return family_of(family).describe_view(view, move, kind)


def _check_arguments(fn, path):
    """UserBotError unless fn can be called as fn(view, move) and returns its score (not a coroutine or a
    generator)."""
    if inspect.iscoroutinefunction(fn) or inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn):
        raise UserBotError(f"bot file {path}: score must be a plain function returning an integer, not "
                           f"{'a generator' if inspect.isgeneratorfunction(fn) else 'an async'} function")
    try:
        inspect.signature(fn).bind(None, None)
    except TypeError:
        raise UserBotError(f"bot file {path}: score must take two arguments, score(view, move); it is "
                           f"score{inspect.signature(fn)}") from None
    except ValueError:          # no signature to read (a builtin): let the first call tell
        pass


def resolve(path):
    return os.path.abspath(os.path.expanduser(str(path)))


def load(path):
    """The score function of a bot file (UserBotError if the file is missing or holds none). The working
    folder is the same after the import as before it, whatever the file's top level does."""
    path = resolve(path)
    if not os.path.isfile(path):
        raise UserBotError(f"bot file {path} does not exist")
    spec = importlib.util.spec_from_file_location(f"khasino_user_bot_{abs(hash(path))}", path)
    module = importlib.util.module_from_spec(spec)
    try:
        cwd = os.getcwd()
    except OSError:             # the working folder is gone: there is none to keep
        cwd = None
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as e:         # the user's code: report it in one line
        raise UserBotError(f"bot file {path} failed to load: {type(e).__name__}: {_first_line(e)}") from None
    finally:            # a bot file that calls os.chdir must not move the command's relative paths
        if cwd is not None:
            try:
                os.chdir(cwd)
            except OSError as e:
                raise UserBotError(f"bot file {path} changed the working folder, and {cwd} cannot be entered "
                                   f"again ({e.strerror})") from None
    fn = getattr(module, "score", None)
    if not callable(fn):
        raise UserBotError(f"bot file {path} defines no function score(view, move)")
    return fn


def address(path):
    """The C function pointer the game loop calls for this bot file (loaded and wrapped once per process)."""
    path = resolve(path)
    if path not in _LOADED:
        _LOADED[path] = _Bot(path, load(path))
    return _LOADED[path].address


def clear_faults():
    """Forget every bot's kept fault (a run starts); in the main thread, also a stopped run's stop and the
    threads' slots of the calls tables (bot_calls.clear_stop)."""
    if threading.current_thread() is threading.main_thread():
        bot_calls.clear_stop()
    for bot in list(_LOADED.values()):
        with bot.lock:
            bot.fault[:] = 0
            bot.message = None


def check_faults(family):
    """UserBotError (one line) if a bot file's score function failed since the last check; its fault is then
    cleared. KeyboardInterrupt if the run is stopping (bot_calls.stop_calls): the chunk just played had its user
    bots' calls cut short, so it must not be written. Called after every compiled call that may have run a user
    bot."""
    _FAMILY[0] = family
    if bot_calls.stopping() and _LOADED:
        raise KeyboardInterrupt
    for bot in list(_LOADED.values()):
        if bot.fault[FAULT_FLAG]:
            message = bot.fault_message(family)
            with bot.lock:
                bot.fault[:] = 0
                bot.message = None
            raise UserBotError(message)


@contextlib.contextmanager
def watching(family):
    """Around one compiled call from the Python API: faults cleared before it, raised (UserBotError) after."""
    _FAMILY[0] = family
    clear_faults()
    yield
    check_faults(family)


def _describe_move(view, move):
    """The move and the seat, in any family's view (the seat and the move's card and kind are at the same places)."""
    from khasino_sim.kernels.core.bits import card_name
    kind = L.KIND_NAMES[move[L.M_KIND]] if 0 <= move[L.M_KIND] < len(L.KIND_NAMES) else "?"
    card = card_name(int(move[L.M_CARD])) if 0 <= move[L.M_CARD] < 52 else "?"
    return f"{card} {kind} for seat {view[L.O_SEAT]}"
