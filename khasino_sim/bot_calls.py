"""The calls of user bots' score functions in progress (khasino_sim/userbots.py), watched so that a run can stop
them: a time limit per call (`set_time_limit`, the CLI's --bot-timeout, issue 51) and a stop for every call at
once (`stop_calls`, Ctrl-C). A monitor thread, started by set_time_limit, checks every call in progress:

- a Python call is listed in its thread's record (`THREAD.call`, one per thread, reused by every call: `_Call.run`);
  one past the limit is stopped by BotTimeout raised in its thread, one that no exception stops is reported as
  stuck;
- a compiled call is listed in its bot's calls table (`calls_table`), which its cfunc writes with atomic stores
  (`call_intrinsics`); compiled code cannot be stopped, so one past the limit is reported as stuck.

A bot, to this module, is the object userbots loads: its `path`, `record(view, move, what)` (keep its first
fault), `where(view, move)` (the position of a call, one phrase) and, compiled, its `calls` table."""
import ctypes
import os
import threading
import time
import traceback

import numpy as np

from khasino_sim.kernels.core import layout as L

# a compiled bot's calls table: a stop flag (`stop_calls`), then one slot per thread, keyed by the address of the
# view it scores (each thread plays in its own workspace), holding whether a call is in progress, how many calls
# it began, and the address of the move record being scored. A slot is a cache line of its own, so threads do
# not share one; a thread that finds no slot within CALL_PROBES plays on untimed.
CALL_STOP, CALL_SLOTS, SLOT_WORDS, CALL_PROBES = 0, 1024, 8, 16
SLOT_KEY, SLOT_BUSY, SLOT_SEQ, SLOT_MOVE = 0, 1, 2, 3
CALLS_SIZE = SLOT_WORDS * (1 + CALL_SLOTS)     # the stop flag has a line of its own too
UNSTOPPABLE_S = 2.0         # after the exception is sent: a Python call still running is one that cannot stop


class BotTimeout(BaseException):
    """Raised in a Python score function that ran past the time limit (set_time_limit), by the monitor thread.
    A BaseException, so that the function's own `except Exception` does not swallow it."""


class Stopped(BaseException):
    """Raised in a Python score function in progress when its run stops (stop_calls): the call returns 0."""


_LOCK = threading.Lock()    # held to send an exception to a call, and to take back one it did not raise
_CALLS = {}                 # thread id -> that thread's _Call
_COMPILED = []              # the compiled bots, whose calls tables the monitor reads
_STOPPING = threading.Event()
stopping = _STOPPING.is_set     # whether the calls are stopped (stop_calls) and no run has started since
_LIMIT = {"seconds": None, "stuck": None}
_MONITOR = []
_SET_ASYNC_EXC = ctypes.pythonapi.PyThreadState_SetAsyncExc


class _Call:
    """One thread's Python score calls, one at a time: what it scores (`view` and `move`, read-only arrays over
    the game loop's workspace at `view_at` and `move_at`, made again only when the workspace moves), whose
    function, since when (`started`, None between calls; a new float object per call, so the monitor knows a
    call by it) and when an exception was sent to stop it (`sent`). The thread writes it without the lock: what
    the monitor reads is checked again under the lock before an exception is sent (`_send`), and the thread
    takes the lock only to take back an exception sent to a call that was over (`_take_back`)."""
    __slots__ = ("tid", "c_tid", "view_at", "move_at", "view", "move", "bot", "started", "sent")

    def __init__(self, tid):
        self.tid, self.c_tid = tid, ctypes.c_ulong(tid)
        self.view_at = self.move_at = self.view = self.move = self.bot = self.started = self.sent = None

    def run(self, bot, fn, view_at, move_at):
        """fn(view, move) for the view and the move record at these addresses, listed as this thread's call in
        progress of `bot`'s score function while it runs. An exception sent to stop it is raised out of it, or,
        if the call was over, taken back, so that none surfaces after the call (BotTimeout, Stopped)."""
        if view_at != self.view_at or move_at != self.move_at:
            self.view, self.move = _words(view_at, L.OBS_SIZE), _words(move_at, L.REC_SIZE)
            self.view_at, self.move_at = view_at, move_at
        self.bot, self.sent = bot, None
        self.started = time.monotonic()
        try:
            return fn(self.view, self.move)
        finally:
            self.started = None
            if self.sent is not None:
                self._take_back()

    def _take_back(self):
        with _LOCK:             # an exception being sent now is sent in full before it is taken back
            _SET_ASYNC_EXC(self.c_tid, None)


class _Thread(threading.local):
    """Each thread's _Call, made and listed (in _CALLS, for the monitor) at the thread's first Python call."""

    def __init__(self):
        tid = threading.get_ident()
        self.call = _Call(tid)
        with _LOCK:             # a thread id reused by a new thread: the ended thread's record is replaced
            _CALLS[tid] = self.call


THREAD = _Thread()


def _send(call, started, exc, now):
    """Raise `exc` in the thread of `call` if it is still in the call that began at `started` (under _LOCK;
    `call.sent` is written first, so a thread leaving the call at the same time sees it and takes it back)."""
    call.sent = now
    if call.started is started:
        _SET_ASYNC_EXC(call.c_tid, ctypes.py_object(exc))
    else:
        call.sent = None


def set_time_limit(seconds, stuck=None):
    """Limit every call of a bot file's score function to `seconds` (None or 0: no limit, the default; the CLI's
    --bot-timeout, docs/ENGINE.md "Bots"). A Python function that runs past it is stopped by BotTimeout raised
    in its thread: a fault like any other, which userbots.check_faults reports (`did not return within N s`). A
    call that no exception stops (a compiled one, or a Python one waiting in C or catching every exception for
    UNSTOPPABLE_S more) is kept as the bot's fault and passed to `stuck(message)` in the monitor thread (the CLI
    ends the process there, exit 2: the call can never return); without `stuck`, the run waits for it."""
    _LIMIT["seconds"] = float(seconds) if seconds else None
    _LIMIT["stuck"] = stuck
    if _LIMIT["seconds"] and not _MONITOR:
        thread = threading.Thread(target=_monitor, daemon=True, name="khasino-bot-timeout")
        _MONITOR.append(thread)
        thread.start()


def stop_calls():
    """A run stops (Ctrl-C): every user bot's calls return 0 at once from now on, the Python ones in progress
    in other threads too (Stopped raised there), and userbots.check_faults raises KeyboardInterrupt, so no chunk
    played so is written. `clear_stop` in the main thread (the next run) undoes it."""
    _STOPPING.set()
    for bot in list(_COMPILED):
        bot.calls[CALL_STOP] = 1
    me = threading.get_ident()
    with _LOCK:
        for call in _CALLS.values():
            started = call.started
            if call.tid != me and started is not None and call.sent is None:
                _send(call, started, Stopped, time.monotonic())


def clear_stop():
    """A run starts, in the main thread: a stopped run's stop undone, and the calls tables with no call in
    progress emptied (their threads' slots free for the run's threads)."""
    _STOPPING.clear()
    for bot in list(_COMPILED):
        if not bot.calls[SLOT_WORDS + SLOT_BUSY::SLOT_WORDS].any():
            bot.calls[:] = 0


def calls_table(bot):
    """A new calls table (above) for the compiled bot `bot`, watched by the monitor and stop_calls from now on."""
    raw = np.zeros(CALLS_SIZE + 8, dtype=np.int64)
    skip = (-raw.ctypes.data % 64) // 8         # on a 64-byte boundary, a cache line
    table = raw[skip: skip + CALLS_SIZE]
    _COMPILED.append(bot)
    return table


def timeout_text(e, path):
    """What a Python score function stopped by BotTimeout did: the limit, and the line of the bot file at `path`
    it was stopped at."""
    lines = [f.lineno for f in traceback.extract_tb(e.__traceback__) if os.path.abspath(f.filename) == path]
    return (f"did not return within {_LIMIT['seconds'] or 0:g} s (--bot-timeout)"
            + (f", stopped at line {lines[-1]}" if lines else ""))


def _monitor():
    """The time limit's thread: every tenth of the limit (at most 0.1 s), each call in progress is checked."""
    seen = {}               # (bot, slot) of a compiled call in progress -> (its call count, since when, reported)
    reported = {}           # a Python thread's _Call -> the `started` of its call reported stuck
    while True:
        limit = _LIMIT["seconds"]
        time.sleep(min(0.1, max(0.01, (limit or 1) / 10)))
        if not limit or _STOPPING.is_set():
            seen.clear()
            continue
        now = time.monotonic()
        stuck = []
        with _LOCK:
            for call in _CALLS.values():
                started = call.started          # read before `sent`: a new call has cleared its `sent` first
                if started is None:
                    continue
                sent = call.sent
                if sent is None and now - started >= limit:
                    _send(call, started, BotTimeout, now)
                elif sent is not None and now - sent >= UNSTOPPABLE_S and reported.get(call) is not started:
                    reported[call] = started
                    stuck.append((call.bot, call.view.copy(), call.move.copy(),
                                  ") and could not be stopped (it waits outside Python code, or catches every "
                                  "exception), so the process ends"))
        for bot in list(_COMPILED):
            stuck.extend(_compiled_stuck(bot, seen, now, limit))
        for bot, view, move, why in stuck:
            _report_stuck(bot, view, move, why)


def _compiled_stuck(bot, seen, now, limit):
    """The compiled calls of `bot` in progress for `limit` seconds or more: the same call (its slot's count
    unchanged) seen busy since then; each reported once."""
    table = bot.calls[SLOT_WORDS:].reshape(CALL_SLOTS, SLOT_WORDS)
    busy = set(np.flatnonzero(table[:, SLOT_BUSY] == 1).tolist())
    for key in [k for k in seen if k[0] is bot and k[1] not in busy]:
        del seen[key]
    out = []
    for j in busy:
        seq = int(table[j, SLOT_SEQ])
        first = seen.get((bot, j))
        if first is None or first[0] != seq:
            seen[(bot, j)] = (seq, now, False)
        elif not first[2] and now - first[1] >= limit:
            view = _words(int(table[j, SLOT_KEY]), L.OBS_SIZE).copy()     # alive while the call runs
            move = _words(int(table[j, SLOT_MOVE]), L.REC_SIZE).copy()
            if table[j, SLOT_BUSY] == 1 and int(table[j, SLOT_SEQ]) == seq:     # still that call: still stuck
                seen[(bot, j)] = (seq, first[1], True)
                out.append((bot, view, move, "; compiled code cannot be stopped, so the process ends)"))
    return out


def _words(address, n):
    """The n int64 words at `address` as a read-only array over them, not a copy: on a read-only buffer, so
    that a score function cannot set its WRITEABLE flag back either (they are the game loop's workspace)."""
    return np.frombuffer(memoryview((ctypes.c_int64 * n).from_address(address)).toreadonly(), dtype=np.int64)


def _report_stuck(bot, view, move, why):
    """A call that ran past the limit and cannot be stopped: kept as the bot's fault (its other calls return 0)
    and passed, as one line, to the `stuck` of set_time_limit."""
    what = f"did not return within {_LIMIT['seconds'] or 0:g} s (--bot-timeout{why}"
    bot.record(view, move, what)
    stuck = _LIMIT["stuck"]
    if stuck is not None:
        stuck(f"bot file {bot.path}: score(view, move) {what}, scoring {bot.where(view, move)}; the run stopped")


_INTRINSICS = []


def call_intrinsics():
    """The three operations a compiled bot's wrapper does on its calls table: a pointer's address as an int64;
    `claim(base, i, key)`, True if the word base[i] was 0 and is now `key` (an atomic compare-and-swap: two
    threads never take one slot); `publish(base, i, value)`, an atomic store the monitor thread sees and the
    compiler may not drop or move past the score call."""
    if not _INTRINSICS:
        from llvmlite import ir
        from numba.core import types
        from numba.extending import intrinsic
        i64 = ir.IntType(64)

        def word(builder, base, index):
            return builder.gep(builder.inttoptr(base, i64.as_pointer()), [index])

        @intrinsic
        def address_of(typingctx, ptr):
            def codegen(context, builder, signature, args):
                return builder.ptrtoint(args[0], i64)
            return types.int64(ptr), codegen

        @intrinsic
        def claim(typingctx, base, index, key):
            def codegen(context, builder, signature, args):
                pair = builder.cmpxchg(word(builder, args[0], args[1]), ir.Constant(i64, 0), args[2], "monotonic",
                                       "monotonic")
                return builder.extract_value(pair, 1)
            return types.boolean(types.int64, types.int64, types.int64), codegen

        @intrinsic
        def publish(typingctx, base, index, value):
            def codegen(context, builder, signature, args):
                builder.store_atomic(args[2], word(builder, args[0], args[1]), "release", 8)
                return context.get_dummy_value()
            return types.void(types.int64, types.int64, types.int64), codegen
        _INTRINSICS.extend((address_of, claim, publish))
    return tuple(_INTRINSICS)
