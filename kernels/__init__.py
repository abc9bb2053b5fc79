"""The Numba core of khasino-sim: bit-packed card sets, legal-move enumeration, bots and whole games.

Everything in the per-move path is nopython, nogil, allocation-free and non-recursive, on plain int64 arrays,
so the same functions can later be compiled for a GPU. Layouts of the state vector, the ruleset record, the
move records and the per-game statistics are in `layout`.
"""
import hashlib as _hashlib
from pathlib import Path as _Path


def _drop_stale_cache():
    """Numba's on-disk cache (cache=True) is keyed by each file's own timestamp, so a change to a constant in
    `layout` would leave stale machine code in the modules that import it. Key the whole cache on a hash of
    every kernel source and on the package's import name (cached code refers to its modules by name): when
    either changes, every cached kernel is dropped."""
    here = _Path(__file__).parent
    digest = _hashlib.sha256(__name__.encode() + b"\0" +
                             b"".join(p.read_bytes() for p in sorted(here.glob("*.py")))).hexdigest()
    cache = here / "__pycache__"
    stamp = cache / "kernels-source.sha256"
    try:
        if stamp.exists() and stamp.read_text() == digest:
            return
        cache.mkdir(exist_ok=True)
        for f in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
            f.unlink()
        stamp.write_text(digest)
    except OSError:
        pass  # a read-only install: numba then compiles in memory


_drop_stale_cache()
