"""User bots (issue 10 item 2): a bot written as one function of the seat's view and a legal move,

    def score(view, move) -> int

called for every legal move of the seat; the move with the highest score is played, ties broken by the
decision's draw exactly as the built-in bots break theirs (docs/ENGINE.md, "Bots"). `view` is the seat's
observation and `move` the candidate's move record, both int64 arrays whose fields are named in VIEW and MOVE
below. A file holding such a function is a bot: `--bot-file my_bot.py` (or the spec `file:my_bot.py`
wherever a bot is named). Write it in plain Python to prototype (each call goes through a ctypes callback:
slow, but print and pdb work), then put `@numba.njit` on the same function: it is then compiled into a C
callback the game loop calls at full speed. Both forms play the same games (tests/test_user_bots.py).

Khasino and Cassino share one view (VIEW, MOVE). Kasino's double deck has its own (KASINO_VIEW, KASINO_MOVE):
its card sets are multisets of two words, `lo` (every card present) and `hi` (the cards present twice), and
a move's `points` are the card points it takes, tabbe included (the fewer the better: misère). Card ids are
4 * rank + suit (A = 0, suits C D H S), as a mask bit 1 << id. Examples: examples/my_bot.py,
examples/my_kasino_bot.py."""
import ctypes
import importlib.util
import os

import numpy as np

from khasino_sim.kernels import layout as L

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

_LOADED = {}        # absolute path -> (address, the callback object kept alive)
_PROTO = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_int64))


class UserBotError(ValueError):
    """A bot file that cannot be used; the message is one line."""


def resolve(path):
    return os.path.abspath(os.path.expanduser(str(path)))


def load(path):
    """The score function of a bot file (UserBotError if the file is missing or holds none)."""
    path = resolve(path)
    if not os.path.isfile(path):
        raise UserBotError(f"bot file {path} does not exist")
    spec = importlib.util.spec_from_file_location(f"khasino_user_bot_{abs(hash(path))}", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as e:                       # the user's code: report it in one line
        raise UserBotError(f"bot file {path} failed to load: {type(e).__name__}: {e}") from None
    fn = getattr(module, "score", None)
    if not callable(fn):
        raise UserBotError(f"bot file {path} defines no function score(view, move)")
    return fn


def address(path):
    """The C function pointer the game loop calls for this bot file (loaded and wrapped once per process)."""
    path = resolve(path)
    if path not in _LOADED:
        fn = load(path)
        _LOADED[path] = _compiled(fn, path) if hasattr(fn, "py_func") else _python(fn)
    return _LOADED[path][0]


def _compiled(fn, path):
    """A numba.njit score function as a cfunc (compiled in this process)."""
    from numba import cfunc, carray, types
    sig = types.int64(types.CPointer(types.int64), types.CPointer(types.int64))

    def wrapper(view_ptr, move_ptr):
        return fn(carray(view_ptr, (L.OBS_SIZE,)), carray(move_ptr, (L.REC_SIZE,)))
    try:
        cb = cfunc(sig)(wrapper)
    except Exception as e:
        raise UserBotError(f"bot file {path}: score(view, move) does not compile as int64 score(int64[], "
                           f"int64[]): {str(e).splitlines()[0]}") from None
    return cb.address, cb


def _python(fn):
    """A plain Python score function as a ctypes callback (the GIL is taken for each call)."""
    def callback(view_ptr, move_ptr):
        return int(fn(np.ctypeslib.as_array(view_ptr, (L.OBS_SIZE,)),
                      np.ctypeslib.as_array(move_ptr, (L.REC_SIZE,))))
    cb = _PROTO(callback)
    return ctypes.cast(cb, ctypes.c_void_p).value, cb
