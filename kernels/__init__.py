"""The Numba core of khasino-sim: bit-packed card sets, legal-move enumeration, bots and whole games.

Everything in the per-move path is nopython, nogil, allocation-free and non-recursive, on plain int64 arrays,
so the same functions compile for a GPU too. One room per family on a shared ground floor:

- `core/`: what every family uses and no family flag is read in (bit sets, layouts, rng and seeding, group
  enumeration, the offer/sink/tree machinery, workspaces);
- `khasino/`, `cassino/`, `kasino/`: each family's rules in role-named modules (`moves`, `state`, `game`,
  `search`); a Cassino module imports Khasino's only where Cassino is Khasino plus a rule;
- `movegen` (the compile-time switch between Khasino's and Cassino's move rules: kernels/core/specialise.py),
  `dispatch` (the host's choice of a family's batch player), `device` (the GPU entry points) and `batch_env`
  (the agents' batched environment of the Khasino and Cassino formats): the only modules that name several
  families.

Layouts of the state vector, the ruleset record, the move records and the per-game statistics are in
`core.layout`.
"""
import hashlib as _hashlib
from pathlib import Path as _Path


def _cache_folders(here, sources):
    """Where Numba keeps the cached code of these source files: each one's `__pycache__`, or with
    NUMBA_CACHE_DIR set (a CI job's kept cache, README) a folder per source folder under it, named as Numba
    names it (the folder's name and the SHA-1 of its absolute path)."""
    import os
    root = os.environ.get("NUMBA_CACHE_DIR")
    if not root:
        return here / "__pycache__", {p.parent / "__pycache__" for p in sources}
    folders = set()
    for p in sources:
        parent = os.path.dirname(os.path.abspath(p))
        folders.add(_Path(root) / f"{_Path(parent).name}_{_hashlib.sha1(parent.encode()).hexdigest()}")
    return _Path(root), folders


def _drop_stale_cache():
    """Numba's on-disk cache (cache=True) is keyed by each file's own timestamp, so a change to a constant in
    `layout` would leave stale machine code in the modules that import it. Key the whole cache on a hash of
    every kernel source in this folder and its subfolders (with its path: a moved file counts as a change)
    and on the package's import name (cached code refers to its modules by name): when
    either changes, every cached kernel is dropped."""
    here = _Path(__file__).parent
    sources = sorted(p for p in here.rglob("*.py") if "__pycache__" not in p.parts)
    digest = _hashlib.sha256(__name__.encode() + b"\0" + b"".join(
        str(p.relative_to(here)).encode() + b"\0" + p.read_bytes() for p in sources)).hexdigest()
    cache, folders = _cache_folders(here, sources)
    stamp = cache / ("kernels-source.sha256" if cache.name == "__pycache__" else
                     f"kernels-source-{_hashlib.sha1(str(here.resolve()).encode()).hexdigest()[:12]}.sha256")
    try:
        if stamp.exists() and stamp.read_text() == digest:
            return
        cache.mkdir(parents=True, exist_ok=True)
        for folder in folders:
            for f in list(folder.glob("*.nbi")) + list(folder.glob("*.nbc")):
                f.unlink()
        stamp.write_text(digest)
    except OSError:
        pass  # a read-only install: numba then compiles in memory


_drop_stale_cache()


def _compile_without_wraparound():
    """Numba gives every signed array index Python's negative wraparound (i < 0 reads a[n + i]): a compare
    and a select on each of the thousands of accesses a position makes. No kernel indexes with a negative
    value (every index is a layout offset plus counts), so while Numba lowers a function of this package the
    index is used as it is. Functions of any other package keep Numba's behaviour: the hook acts only on
    functions whose mangled name holds this package's name (docs/ENGINE.md, "No index wraparound")."""
    try:
        from numba.core import types
        import numba.np.arrayobj as arrayobj
    except ImportError:             # pragma: no cover - another Numba layout: keep its behaviour
        return
    original = arrayobj.fix_integer_index
    prefixes = getattr(original, "khasino_prefixes", None)
    prefix = "".join(f"{len(part)}{part}" for part in __name__.split("."))
    if prefixes is not None:        # hooked already (another copy of this package in the process)
        prefixes.add(prefix)
        return

    def fix_integer_index(context, builder, idxty, idx, size):
        if idxty.signed and any(p in builder.function.name for p in fix_integer_index.khasino_prefixes):
            return context.cast(builder, idx, idxty, types.intp)
        return original(context, builder, idxty, idx, size)

    fix_integer_index.khasino_prefixes = {prefix}
    arrayobj.fix_integer_index = fix_integer_index


_compile_without_wraparound()



def _no_literal_specialisations():
    """Numba types a constant passed to a compiled function as a literal (KIND_CAPTURE as Literal[int](0), WS_BEST
    as Literal[int](119712)) and compiles the callee once per combination of constants at its call sites: 39
    copies of `write_record`, 7 of `offer`, two thirds of the core's compile time (docs/ENGINE.md, "Compile
    time"). For the functions of this package every argument is typed as its plain type, but those whose name
    is in `core.specialise.COMPILE_TIME_ARGS` (the family, whether bots search) or in the function's own
    `literal_args` (a hot function whose constant arguments pay for their copies: `core.offer.offer`), which stay
    literal."""
    try:
        from numba.core import types
        from numba.core.dispatcher import Dispatcher
    except ImportError:             # pragma: no cover - another Numba layout: keep its behaviour
        return
    from .core.specialise import COMPILE_TIME_ARGS
    original = Dispatcher.get_call_template
    prefixes = getattr(original, "khasino_prefixes", None)
    if prefixes is not None:        # hooked already (another copy of this package in the process)
        prefixes.add(__name__ + ".")
        return

    def get_call_template(self, args, kws):
        module = getattr(self.py_func, "__module__", None) or ""
        if module.startswith(tuple(get_call_template.khasino_prefixes)):
            code = self.py_func.__code__
            names = code.co_varnames[:code.co_argcount]
            keep = COMPILE_TIME_ARGS + getattr(self.py_func, "literal_args", ())
            args = tuple(a if i < len(names) and names[i] in keep else types.unliteral(a)
                         for i, a in enumerate(args))
        return original(self, args, kws)

    get_call_template.khasino_prefixes = {__name__ + "."}
    Dispatcher.get_call_template = get_call_template


_no_literal_specialisations()
