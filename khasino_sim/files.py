"""The files khasino-sim writes, and the one writer a folder has.

Every output is written whole or not at all (a temporary name beside it, then a rename) and never through a
symbolic link: a link where a file or folder of ours would go is refused in one line (`LinkError`), so a link
planted in a run folder cannot make a command overwrite what it points to. The folder the user names (`--out`,
`--report`, `--save`) must not itself be a link; the folders above it are the user's choice and are followed.
A write that fails (a full disk, a folder gone read-only) removes its temporary file and leaves the old file,
if any, as it was.

`FolderLock` is the lock a command holds on the folder it writes (a run, a tournament, a study): a second
process that would write there is refused while the first lives, and the lock is free again the moment its
owner ends, however it ends (the operating system releases an `flock` with the process).
"""
import contextlib
import errno
import hashlib
import io
import os
import socket
import time
from pathlib import Path

from .text import printable

LOCK = ".khasino.lock"      # the lock file of a folder being written (FolderLock)


class LinkError(OSError):
    """A symbolic link where khasino-sim would write; the message is one line naming it."""

    def __init__(self, path, what="a file"):
        super().__init__(errno.ELOOP, f"is a symbolic link; khasino-sim never writes through one (remove the "
                                      f"link, or give {what} that is not one)", str(path))


def check_not_link(path, what="a file"):
    """LinkError if `path` is a symbolic link (dangling or not)."""
    if os.path.islink(path):
        raise LinkError(path, what)


def make_folder(path, what="a folder"):
    """`path` as a folder (made with its parents when missing), refusing a symbolic link at `path` itself or
    at any folder this call makes. Returns it as a Path."""
    path = Path(path)
    check_not_link(path, what)
    missing = []
    p = path
    while not p.exists() and not os.path.islink(p):
        missing.append(p)
        if p.parent == p:
            break
        p = p.parent
    for q in reversed(missing):
        check_not_link(q, what)
        try:
            q.mkdir()
        except FileExistsError:     # made meanwhile by another thread of ours, or planted: checked below
            pass
        check_not_link(q, what)
    if not path.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, "is a file, not a folder", str(path))
    return path


def _temporary(path):
    """A new file beside `path`, created exclusively and without following links: (fd, its name)."""
    for attempt in range(100):
        tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}-{time.monotonic_ns() % 10**9}-{attempt}")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
        except FileExistsError:
            continue
        return fd, tmp
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(path))


def new_temporary(path):
    """A new, empty temporary file beside `path` (made exclusively, never through a link), closed: its Path.
    Hidden from dataset readers by its leading dot; run_folder.clean_partial removes leftovers."""
    fd, tmp = _temporary(Path(path))
    os.close(fd)
    return tmp


@contextlib.contextmanager
def replacing(path, mode="w", encoding="utf-8"):
    """Write `path` whole or not at all: yields a file object (text for mode "w", bytes for "wb") on a
    temporary file beside it, renamed over `path` when the block ends without an error, removed otherwise.
    LinkError if `path` is a symbolic link (its folder is the caller's: one it made with make_folder, or the
    user's)."""
    path = Path(path)
    check_not_link(path)
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a folder, not a file", str(path))
    fd, tmp = _temporary(path)
    try:
        with os.fdopen(fd, mode, **({} if "b" in mode else {"encoding": encoding})) as f:
            yield f
        check_not_link(path)          # planted while we wrote: refused, not replaced
        os.replace(tmp, path)
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(e, OSError) and e.filename in (None, str(tmp)):
            e.filename = str(path)      # a full disk is said of the file being written, not its temporary name
        raise


def write_text(path, text):
    """Write `text` (UTF-8) to `path` whole, never through a link."""
    with replacing(path) as f:
        f.write(text)


def write_bytes(path, data):
    """Write `data` to `path` whole, never through a link."""
    with replacing(path, "wb") as f:
        f.write(data)


def save_figure(fig, path, **kw):
    """A matplotlib figure written as PNG to `path` whole, never through a link (savefig to a buffer first)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", **kw)
    write_bytes(path, buf.getvalue())


def write_csv(frame, path):
    """A pandas DataFrame written as CSV to `path` whole, never through a link."""
    with replacing(path, "w") as f:
        frame.to_csv(f, index=False)


def sha256_file(path):
    """The SHA-256 of a file's content, as hex (read in blocks: any size)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class FolderBusy(OSError):
    """Another live process holds the folder's lock; the message is one line."""


class FolderLock:
    """The lock on a folder being written: `with FolderLock(folder):` holds it (the folder is made if needed),
    FolderBusy if another live process holds it. The lock file records the owner's pid, host and command, which
    the refusal names; it stays while the folder holds results (an unheld lock is free: `flock` dies with its
    process), and goes when the holder leaves a folder it found without one that still holds none of ours.
    Re-entrant within one process (a tournament's assignments run inside its own lock)."""

    _held = {}                      # real path -> [fd, depth] held by this process

    def __init__(self, folder, command=""):
        self.folder = Path(folder)
        self.command = command
        self.key = None

    def __enter__(self):
        import fcntl
        folder = make_folder(self.folder)
        key = os.path.realpath(folder)
        if key in self._held:
            self._held[key][1] += 1
            self.key = key
            return self
        path = folder / LOCK
        check_not_link(path)
        made = not path.exists()
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            owner = _read_owner(fd)
            os.close(fd)
            if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise
            raise FolderBusy(errno.EBUSY, f"another khasino process is writing there ({owner}); wait for it to "
                             "end, or stop it", str(folder)) from None
        try:
            os.ftruncate(fd, 0)
            os.write(fd, f"pid {os.getpid()} on {socket.gethostname()} since "
                         f"{time.strftime('%Y-%m-%d %H:%M:%S')}: {self.command or 'khasino'}\n".encode())
        except OSError:             # a full disk: the lock holds all the same, only its note is missing
            pass
        self._held[key] = [fd, 1, path if made else None]
        self.key = key
        return self

    def __exit__(self, *exc):
        held = self._held[self.key]
        held[1] -= 1
        if held[1] == 0:
            del self._held[self.key]
            fd, _, made = held
            if made is not None and not _holds_results(made.parent):
                made.unlink(missing_ok=True)        # a refused start leaves no trace in the user's folder
            os.close(fd)            # releases the flock
        return False


def _holds_results(folder):
    """Whether `folder` holds a manifest or journal of ours (run_folder.MANIFESTS, JOURNAL)."""
    from .run_folder import JOURNAL, MANIFESTS
    return any(os.path.lexists(Path(folder) / name) for name in MANIFESTS + (JOURNAL,))


def _read_owner(fd):
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        text = os.read(fd, 400).decode("utf-8", "replace").strip()
    except OSError:
        text = ""
    return printable(text.splitlines()[0], 200) if text else "its owner is unknown"
