"""Compile only what a run uses: kernels specialised on compile-time arguments.

A game kernel takes its family (`family`: the move rules it generates, Khasino's or Cassino's) and whether
any bot of the run searches (`searching`: the search bots' tree code, kernels/khasino/search.py) as its first
arguments. Both are typed as literals (the package's call hook keeps arguments of these names literal,
kernels/__init__.py), so each value is a compiled function of its own, cached on disk apart, and a choice made
on them (an `@overload` that returns one branch's function: `movegen.generate`, `khasino.search.searched`)
compiles only the branch taken: a Khasino run of greedy and random never compiles Cassino's move rules or the
search.

The host calls a specialisation's compiled entry point directly (`call`): calling the dispatcher with a plain
int would type it as int64 first, fail, and retype it on every call (about 50 ms each).
"""
import numba
from numba.core import types

# the argument names the call hook keeps literal
COMPILE_TIME_ARGS = ("family", "searching")
# the options of an overload's chosen function: those of every kernel (`@njit(cache=True, nogil=True, _nrt=False)`)
JIT_OPTIONS = {"cache": True, "nogil": True, "_nrt": False}

_ENTRIES = {}


def entry(dispatcher, literals, args):
    """The compiled entry point of `dispatcher` for the literal leading arguments `literals` (ints) and the
    types of `args`; compiled, or loaded from the disk cache, on first use."""
    key = (dispatcher, literals, tuple(numba.typeof(a) for a in args))
    f = _ENTRIES.get(key)
    if f is None:
        sig = tuple(types.literal(int(v)) for v in literals) + key[2]
        dispatcher.compile(sig)
        f = dispatcher.overloads[sig].entry_point
        _ENTRIES[key] = f
    return f


def call(dispatcher, literals, *args):
    """dispatcher(*literals, *args) through the specialisation for those literal values."""
    literals = tuple(int(v) for v in literals)
    return entry(dispatcher, literals, args)(*literals, *args)


def one_deck_family(rules):
    """The family code of a Khasino or Cassino ruleset (the families of `movegen.generate`); ValueError for any
    other (Kasino's game is compiled apart: kernels/dispatch.py)."""
    from .layout import FAMILY_CASSINO, FAMILY_KHASINO, R_FAMILY
    code = int(rules[R_FAMILY])
    if code not in (FAMILY_KHASINO, FAMILY_CASSINO):
        raise ValueError(f"family code {code} is not played by the one-deck core (Kasino: kernels/dispatch.py)")
    return code


def literal_value(ty):
    """The value of a literal integer argument's type, None for a plain type (an overload then asks for the
    literal with `numba.literally`)."""
    return ty.literal_value if isinstance(ty, types.IntegerLiteral) else None
