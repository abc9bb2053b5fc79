"""Ctrl-C and SIGTERM in `khasino`: every command stops within about a second, with one line on stderr
("interrupted", and what there is to resume, if anything) and the shell's exit code, 128 + the signal's number:
130 for Ctrl-C (SIGINT), 143 for SIGTERM.

Python runs a signal handler only in the main thread, between bytecodes, and the main thread of a command is
often elsewhere for long: in a compiled game loop (a `nogil` Numba kernel), in LLVM compiling the core, in a
ctypes call, or at interpreter exit joining worker threads stuck in a user bot. So two paths stop a command:

- the graceful one: the handler raises KeyboardInterrupt in the main thread; the command's cleanup runs (a
  run's threads told to stop, `finally` blocks) and `Main` prints the line (`stop`) and exits;
- the watchdog: the signal also makes the C-level handler write a byte to a socket (`signal.set_wakeup_fd`),
  at once, whatever the main thread is doing; a daemon thread reading it waits GRACE_S, and if the process is
  still alive then, prints the same line (once: whichever path comes first prints it) and ends the process
  with os._exit. A second signal ends it at once. The watchdog also stops the user bots' calls at once
  (bot_calls.stop_calls), which wakes a main thread asleep waiting for its workers (below).

Once the graceful path has reached `Main`, the process ends there too (os._exit after flushing stdout): what
is left, the interpreter joining threads stuck in a bot and its own teardown, is skipped. Before `Main` runs,
while the package imports Numba, `early` handlers end the process at once with the same line.

Ending the process from the watchdog is safe: every output file is written whole under a temporary name and
renamed into place, and an interrupted run's leftovers are removed by --resume (run_folder.clean_partial).

Handlers are installed by `Main.main` (`installed`), only in the main thread, and handed back when the command
ends without a signal, so a command run in-process (click's CliRunner in the tests) leaves the process as it
found it. A signal the process was started with ignored (SIG_IGN: a background job of a script) stays ignored.
A command says what the line adds after "interrupted" with `on_interrupt` (a run writing to a folder: the
resume hint, cli/common.py)."""
import contextlib
import functools
import os
import signal
import socket
import sys
import threading
import time

import click

GRACE_S = 0.8           # from the signal to os._exit when the graceful path has not ended the process
SIGNALS = (signal.SIGINT, signal.SIGTERM)
_DISARM = b"\0"         # written by `installed` on its way out (signal numbers are never 0)


class _State:
    """What this process's command has registered, and what has happened."""
    def __init__(self):
        self.hint = None            # what the line says after "interrupted"
        self.signum = None          # the first signal received
        self.raised = False         # the handler has raised KeyboardInterrupt (once only)
        self.said = False           # the line is printed (by either path)
        self.closing = False        # the command is ending: a signal no longer raises KeyboardInterrupt
        self.lock = threading.Lock()    # held while the line is printed


_state = _State()


def on_interrupt(hint):
    """Register what the interrupted line says after "interrupted: " (None: nothing), e.g. a run's resume hint."""
    _state.hint = hint


def exit_code():
    """128 + the signal received (130 for SIGINT, 143 for SIGTERM); 130 for a KeyboardInterrupt without one."""
    return 128 + (_state.signum or signal.SIGINT)


def line():
    """The one line an interrupted command prints."""
    return "interrupted" + (f": {_state.hint}" if _state.hint else "")


def stop():
    """The graceful path: print the line (unless the watchdog did) and exit with `exit_code()` (SystemExit)."""
    _state.closing = True
    with _state.lock:
        if not _state.said:
            _state.said = True
            click.echo(("\n" if _isatty(sys.stderr) else "") + line(), err=True)
            with contextlib.suppress(Exception):
                sys.stderr.flush()
    raise SystemExit(exit_code())


def fatal(message, code=2):
    """End the process now with `message` as its one line on stderr and exit `code`, from any thread (a user bot
    stuck in compiled code that no exception can stop, khasino_sim/bot_calls.py)."""
    _end(message, code)


def _isatty(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _end(text, code):
    """Print `text` (once, unless the line is printed already), flush stdout if it does not block, os._exit."""
    if _state.lock.acquire(timeout=0.3):        # the main thread may be printing the line right now
        try:
            if not _state.said:
                _state.said = True
                _write_stderr(("\n" if os.isatty(2) else "") + text + "\n")
        finally:
            _state.lock.release()
    flush = threading.Thread(target=_flush_stdout, daemon=True)     # the main thread may hold stdout's lock
    flush.start()
    flush.join(0.2)
    os._exit(code)


def _write_stderr(text):
    data = text.encode("utf-8", "replace")
    with contextlib.suppress(OSError):
        while data:
            data = data[os.write(2, data):]


def _flush_stdout():
    with contextlib.suppress(Exception):
        sys.stdout.flush()


def early():
    """While `khasino` starts (its imports: about a second, mostly Numba's), before `installed`: a signal ends
    the process at once with the line and exit code, instead of a KeyboardInterrupt traceback from inside an
    import. Only in the `khasino` program itself (the console script, `python -m khasino_sim[.cli]`), never
    in a process that imports the package (a test, a notebook)."""
    argv0 = sys.argv[0] if sys.argv else ""
    program = (os.path.basename(argv0) == "khasino" or argv0 == "-m"
               or argv0.replace(os.sep, "/").endswith(("khasino_sim/__main__.py", "khasino_sim/cli/__main__.py")))
    if not program or threading.current_thread() is not threading.main_thread():
        return
    for s in SIGNALS:
        if signal.getsignal(s) in (signal.default_int_handler, signal.SIG_DFL):
            signal.signal(s, _early)


def _early(signum, frame):
    _write_stderr("interrupted\n")
    os._exit(128 + signum)


def _handler(signum, frame):
    """The graceful path's start: KeyboardInterrupt in the main thread, for the first signal only (after it, the
    command is already stopping, and the watchdog ends the process if it takes too long)."""
    if _state.signum is None:
        _state.signum = signum
    if not _state.raised and not _state.closing:
        _state.raised = True
        raise KeyboardInterrupt


def _watch(reader):
    """The watchdog: wait for a signal's byte; GRACE_S later (at once on a second signal) end the process."""
    deadline = None
    with reader:
        while True:
            reader.settimeout(None if deadline is None else max(0.0, deadline - time.monotonic()))
            try:
                data = reader.recv(64)
            except (TimeoutError, socket.timeout):
                break
            except OSError:
                return
            if not data or (deadline is None and data.strip(_DISARM) == b""):
                return              # handed back: the command ended without a signal
            for byte in data.strip(_DISARM):
                if deadline is None:
                    if _state.signum is None:
                        _state.signum = byte
                    deadline = time.monotonic() + GRACE_S
                    _stop_user_bots()
                else:
                    deadline = time.monotonic()         # a second signal: now
    _end(line(), exit_code())


def _stop_user_bots():
    """Make the user bots' score calls in progress return (khasino_sim/bot_calls.py, stop_calls), from the
    watchdog. A signal the kernel hands to a worker thread does not wake the main thread asleep waiting for the
    workers (runs._run_local: up to half a second between its checks), so its handler runs late; a worker whose
    call returns ends its shard with KeyboardInterrupt, and that wakes it."""
    bot_calls = sys.modules.get("khasino_sim.bot_calls")
    if bot_calls is not None:
        with contextlib.suppress(Exception):
            bot_calls.stop_calls()


def _unraisable(previous, unraisable):
    """sys.unraisablehook: a KeyboardInterrupt raised inside a ctypes callback (LLVM calls back into Numba while
    it compiles) cannot leave the callback; it is dropped without the "Exception ignored" traceback, and the
    watchdog ends the process."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt):
        return
    previous(unraisable)


@contextlib.contextmanager
def installed():
    """Around a command: SIGINT and SIGTERM stop it (the graceful path and the watchdog, above). Without a signal
    everything is handed back on the way out; after one, the watchdog stays armed until the process ends."""
    _state.__init__()
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {}
    for s in SIGNALS:
        old = signal.getsignal(s)
        if old is signal.SIG_IGN or old is None:    # ignored by whoever started us, or set from C: leave it
            continue
        previous[s] = old
        signal.signal(s, _handler)
    if not previous:
        yield
        return
    reader, writer = socket.socketpair()
    writer.setblocking(False)
    old_fd = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    old_hook = sys.unraisablehook
    sys.unraisablehook = functools.partial(_unraisable, old_hook)
    watchdog = threading.Thread(target=_watch, args=(reader,), daemon=True, name="khasino-interrupts")
    watchdog.start()
    try:
        yield
    except SystemExit:
        if _state.signum is None:
            raise
        # after a signal the command has cleaned up; what is left (joining threads stuck in a bot, the
        # interpreter's own teardown, during which the watchdog thread cannot run) is skipped
        _end(line(), exit_code())
    finally:
        _state.closing = True       # a signal from here on is the watchdog's alone
        if _state.signum is None:
            signal.set_wakeup_fd(old_fd)
            sys.unraisablehook = old_hook
            for s, old in previous.items():
                signal.signal(s, old)
            with contextlib.suppress(OSError):
                writer.send(_DISARM)
            writer.close()
            watchdog.join(1.0)
