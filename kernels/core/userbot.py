"""User bots (issue 10 item 2; khasino_sim/userbots.py loads them): the compiled game loop scores each legal
move by calling the user's function through a C function pointer, `score(view, move) -> int64`, with pointers
to the seat's observation (WS_OBS, docs/ENGINE.md "Bots") and to the candidate's move record (WS_CAND).

The pointer is a run-time value from the bot table, never a constant in the compiled code, so the game loop
stays cached: a `numba.njit` score function is wrapped as a `numba.cfunc` (full speed), a plain Python one as
a ctypes callback (prototyping speed, the GIL taken per call), and both play the same games."""
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic


@intrinsic
def call_score(typingctx, address, ws, view_at, move_at):
    """score(&ws[view_at], &ws[move_at]) for the C function `int64 score(int64 *, int64 *)` at `address`. On a
    GPU target (no host function can run there) it is 0 and calls nothing."""
    sig = types.int64(types.int64, ws, types.int64, types.int64)

    def codegen(context, builder, signature, args):
        if type(context).__name__.startswith("CUDA"):
            return context.get_constant(types.int64, 0)
        addr, arr, a, b = args
        ary = context.make_array(signature.args[1])(context, builder, arr)
        i64p = ir.IntType(64).as_pointer()
        fnty = ir.FunctionType(ir.IntType(64), [i64p, i64p])
        fn = builder.inttoptr(addr, fnty.as_pointer())
        return builder.call(fn, [builder.gep(ary.data, [a]), builder.gep(ary.data, [b])])
    return sig, codegen


@intrinsic
def int64_pointer(typingctx, address):
    """The integer `address` as an int64 pointer (for `numba.carray`): a user bot's wrapper reaches its fault
    buffer, a numpy array of the loading process, through it (khasino_sim/userbots.py)."""
    sig = types.CPointer(types.int64)(types.int64)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], ir.IntType(64).as_pointer())
    return sig, codegen


@intrinsic
def readonly(typingctx, arr):
    """The same array typed read-only: a user bot's score function gets the view and the move record so, and
    one that writes to them does not compile (they are the game loop's own workspace)."""
    sig = arr.copy(readonly=True)(arr)

    def codegen(context, builder, signature, args):
        return args[0]
    return sig, codegen
