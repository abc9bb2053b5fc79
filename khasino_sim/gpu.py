"""The GPU backend (`--backend cuda`): whole shards played on an NVIDIA GPU by the same compiled game functions
the CPU runs, one thread per unit (a game, a series, a match), returning the same statistics rows as
`kernels.khasino.game.play_batch` / `play_matches`, so the storage path and every row are the CPU's.

The device code is a thin launcher: each CUDA kernel picks its thread's scratch and calls a unit body of
`kernels/device.py`, which calls `play_game` / `play_round` / `play_kasino_round` unchanged. Nothing here is
needed to build or test the project on a machine without a GPU: `status()` says why the backend is not usable,
and `require()` turns that into one line (exit 2 in the CLI). Tests run the same host code with the launch
replaced by a CPU loop over the units (`cpu_stand_in()`, which calls `device.units_on_cpu`).

Scratch layouts (`layout`), per thread:
- "global": state, deck, stream and workspace are rows of device arrays (each thread's contiguous);
- "local": state, deck and stream in the thread's local memory (`cuda.local.array`), the workspace a row of a
  device array (at ~1 MB it is above CUDA's 512 KB local-memory limit per thread).
scripts/gpu_check.py measures both on a GPU machine; docs/ENGINE.md "GPU backend" records which is kept.
"""
import numpy as np

from khasino_sim.kernels.core import layout as L
from khasino_sim.kernels.core.heuristic import searches

LAYOUTS = ("global", "local")
DEFAULT_LAYOUT = "global"
THREADS_PER_BLOCK = 64
MAX_THREADS = 1 << 17           # threads (scratch slots) per launch at most; fewer if device memory is short
MEMORY_SHARE = 0.8              # of the free device memory, for the scratch and rows of one launch
MATCH_ROWS = 12                 # rows a thread keeps for a Cassino match; a longer match is replayed on the CPU


class BackendError(ValueError):
    """The GPU backend cannot run here, or was asked for something it does not play (one line)."""


def status():
    """None if a CUDA GPU is usable from this process, else the reason in a few words."""
    try:
        from numba import cuda
    except Exception as e:          # noqa: BLE001 (any import failure means: no backend)
        return f"Numba's CUDA target cannot be imported ({e.__class__.__name__})"
    try:
        if not cuda.is_available():
            return "no CUDA driver or NVIDIA GPU was found"
        dev = cuda.get_current_device()
        return None if dev.compute_capability >= (3, 5) else f"{dev.name} is too old for Numba"
    except Exception as e:          # noqa: BLE001 (a broken driver: say what it said)
        return str(e).strip().splitlines()[0] if str(e).strip() else e.__class__.__name__


def require():
    """Raise BackendError (one line) unless a CUDA GPU is usable."""
    reason = status()
    if reason is not None:
        raise BackendError(f"--backend cuda needs a usable NVIDIA GPU: {reason}")


def device_name():
    from numba import cuda
    dev = cuda.get_current_device()
    name = dev.name.decode() if isinstance(dev.name, bytes) else dev.name
    return f"{name} (compute capability {dev.compute_capability[0]}.{dev.compute_capability[1]})"


# ---- kernels (compiled on first use, per unit kind and layout) --------------------------------------------
_KERNELS = {}


def _cuda_kernel(kind, layout, searching=0):
    """The CUDA kernel for units of `kind` (device.UNIT_*) with scratch `layout`: thread t plays unit t. With
    `searching` 1 the search bots' code is compiled in (kernels/core/specialise.py)."""
    searching = int(searching)
    key = (kind, layout, searching)
    if key in _KERNELS:
        return _KERNELS[key]
    from numba import cuda, int64, uint64
    from khasino_sim.kernels import device as D
    state_size = L.STATE_SIZE

    if layout == "local":
        @cuda.jit
        def kernel(rules, seeds, bots, rows, used, zero, sts, decks, wss, streams, check, param, cap):
            t = cuda.grid(1)
            if t < used.shape[0]:
                st = cuda.local.array(state_size, int64)
                deck = cuda.local.array(104, int64)
                stream = cuda.local.array(1, uint64)
                for i in range(state_size):
                    st[i] = 0
                for i in range(104):
                    deck[i] = 0
                stream[0] = 0
                if kind == D.UNIT_GAMES:
                    D.games_unit(searching, t, rules, seeds, bots, rows, st, deck, wss[t], stream, check, param)
                elif kind == D.UNIT_MATCHES:
                    D.matches_unit(searching, t, rules, seeds, bots, rows, used, st, deck, wss[t], stream, check,
                                   param != 0, cap)
                else:
                    D.kasino_unit(t, rules, seeds, bots, rows, zero, st, deck, wss[t], stream, check, param)
    else:
        @cuda.jit
        def kernel(rules, seeds, bots, rows, used, zero, sts, decks, wss, streams, check, param, cap):
            t = cuda.grid(1)
            if t < used.shape[0]:
                if kind == D.UNIT_GAMES:
                    D.games_unit(searching, t, rules, seeds, bots, rows, sts[t], decks[t], wss[t], streams[t], check,
                                 param)
                elif kind == D.UNIT_MATCHES:
                    D.matches_unit(searching, t, rules, seeds, bots, rows, used, sts[t], decks[t], wss[t], streams[t],
                                   check, param != 0, cap)
                else:
                    D.kasino_unit(t, rules, seeds, bots, rows, zero, sts[t], decks[t], wss[t], streams[t], check,
                                  param)
    _KERNELS[key] = kernel
    return kernel


def _fill_kernel():
    if "fill" not in _KERNELS:
        from numba import cuda

        @cuda.jit
        def fill(wss, template):
            """Every thread's workspace row starts as the template (the bot table installed, zeros elsewhere)."""
            t = cuda.grid(1)
            if t < wss.shape[0]:
                for i in range(template.shape[0]):
                    wss[t, i] = template[i]
        _KERNELS["fill"] = fill
    return _KERNELS["fill"]


class _Device:
    """The launch on a CUDA GPU: scratch rows on the device, one thread per unit."""

    def __init__(self, layout=DEFAULT_LAYOUT, threads_per_block=THREADS_PER_BLOCK, max_threads=MAX_THREADS):
        if layout not in LAYOUTS:
            raise BackendError(f"unknown GPU layout {layout!r} (layouts: {', '.join(LAYOUTS)})")
        require()
        self.layout = layout
        self.tpb = int(threads_per_block)
        self.max_threads = int(max_threads)

    def slots(self, unit_bytes, units):
        """Threads per launch: every unit if memory allows, else as many as MEMORY_SHARE of free memory holds."""
        from numba import cuda
        free, _ = cuda.current_context().get_memory_info()
        fit = int(MEMORY_SHARE * free // unit_bytes)
        if fit < 1:
            raise BackendError(f"one GPU thread needs {unit_bytes / 2**20:.1f} MiB; the device has "
                               f"{free / 2**20:.0f} MiB free")
        return max(1, min(units, self.max_threads, fit))

    def scratch(self, slots, template):
        from numba import cuda
        w = template.shape[0]
        local = self.layout == "local"
        sts = cuda.device_array((1 if local else slots, L.STATE_SIZE), dtype=np.int64)
        decks = cuda.device_array((1 if local else slots, 104), dtype=np.int64)
        streams = cuda.device_array((1 if local else slots, 1), dtype=np.uint64)
        wss = cuda.device_array((slots, w), dtype=np.int64)
        blocks = (slots + self.tpb - 1) // self.tpb
        _fill_kernel()[blocks, self.tpb](wss, cuda.to_device(template))
        return sts, decks, wss, streams

    def launch(self, kind, rules, seeds, bots, rows, used, zero, scratch, check, param, cap):
        from numba import cuda
        sts, decks, wss, streams = scratch
        n = used.shape[0]
        d_rows = cuda.to_device(rows)
        d_used = cuda.to_device(used)
        blocks = (n + self.tpb - 1) // self.tpb
        _cuda_kernel(kind, self.layout, searches(bots))[blocks, self.tpb](
            cuda.to_device(rules), cuda.to_device(seeds), cuda.to_device(bots), d_rows, d_used, cuda.to_device(zero),
            sts, decks, wss, streams, bool(check), np.int64(param), np.int64(cap))
        cuda.synchronize()
        d_rows.copy_to_host(rows)
        d_used.copy_to_host(used)


class _CpuStandIn:
    """The same launches done by a CPU loop (kernels/device.py `units_on_cpu`): for tests where no GPU is."""

    def __init__(self, slots=3):
        self.n_slots = slots

    def slots(self, unit_bytes, units):
        return max(1, min(units, self.n_slots))

    def scratch(self, slots, template):
        return (np.zeros((slots, L.STATE_SIZE), dtype=np.int64), np.zeros((slots, 104), dtype=np.int64),
                np.repeat(template[None, :], slots, axis=0), np.zeros((slots, 1), dtype=np.uint64))

    def launch(self, kind, rules, seeds, bots, rows, used, zero, scratch, check, param, cap):
        from khasino_sim.kernels.device import units_on_cpu
        sts, decks, wss, streams = scratch
        units_on_cpu(kind, rules, seeds, bots, rows, used, zero, sts, decks, wss, streams, check, param, cap)


def device(layout=DEFAULT_LAYOUT, threads_per_block=THREADS_PER_BLOCK, max_threads=MAX_THREADS):
    """The CUDA launcher (BackendError, one line, where no GPU is usable)."""
    return _Device(layout, threads_per_block, max_threads)


_RUNNER = []


def runner():
    """The process's CUDA launcher, made once (its kernels compile on first use and stay loaded)."""
    if not _RUNNER:
        _RUNNER.append(device())
    return _RUNNER[0]


def cpu_stand_in(slots=3):
    """A launcher that does the device's work in a CPU loop, `slots` scratch slots at a time (tests)."""
    return _CpuStandIn(slots)


# ---- the batch functions: play_batch / play_matches, on a launcher -------------------------------------
def _template():
    from khasino_sim.kernels.core.workspace import new_workspace
    return new_workspace()


def _waves(runner, units, unit_bytes, template):
    slots = runner.slots(unit_bytes + 8 * template.shape[0], units)
    scratch = runner.scratch(slots, template)
    for lo in range(0, units, slots):
        yield lo, min(units, lo + slots), scratch


def play_batch(rules, seeds, bots, check=False, series=1, runner=None):
    """`kernels.khasino.game.play_batch` on the GPU (or on `runner`): the same (n_games, STATS_SIZE) rows."""
    from khasino_sim.kernels.device import UNIT_GAMES
    runner = runner or device()
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    bots = np.ascontiguousarray(bots, dtype=np.int64)
    n = seeds.shape[0]
    series = int(series)
    out = np.zeros((n, L.STATS_SIZE), dtype=np.int64)
    units = (n + series - 1) // series
    zero = np.zeros(L.STATS_SIZE, dtype=np.int64)
    unit_bytes = 8 * (L.STATE_SIZE + 105 + series * L.STATS_SIZE)
    for lo, hi, scratch in _waves(runner, units, unit_bytes, _template()):
        g0, g1 = lo * series, min(n, hi * series)
        runner.launch(UNIT_GAMES, rules, seeds[g0:g1], bots[g0:g1], out[g0:g1], np.zeros(hi - lo, dtype=np.int64),
                      zero, scratch, check, series, 0)
    return out


def play_matches(rules, seeds, bots, check=False, single=False, runner=None):
    """`kernels.khasino.game.play_matches` on the GPU (or on `runner`): the same rows, one per round, match by match
    (G_MATCH the match's index in `seeds`). A Cassino match longer than MATCH_ROWS rounds is played again on the
    CPU (no cap on rounds); Kasino matches have their fixed number of rounds (N7)."""
    from khasino_sim.kernels.device import UNIT_KASINO, UNIT_MATCHES
    from khasino_sim.kernels.dispatch import play_matches as cpu_play_matches
    runner = runner or device()
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    bots = np.ascontiguousarray(bots, dtype=np.int64)
    n = seeds.shape[0]
    kasino = rules[L.R_FAMILY] == L.FAMILY_KASINO
    per = 1 if single else int(rules[L.R_MATCH_ROUNDS]) if kasino else MATCH_ROWS
    kind = UNIT_KASINO if kasino else UNIT_MATCHES
    param = per if kasino else int(bool(single))
    zero = np.zeros(L.STATS_SIZE, dtype=np.int64)
    parts = []
    for lo, hi, scratch in _waves(runner, n, 8 * (L.STATE_SIZE + 105 + per * L.STATS_SIZE), _template()):
        rows = np.zeros(((hi - lo) * per, L.STATS_SIZE), dtype=np.int64)
        used = np.full(hi - lo, per, dtype=np.int64)
        runner.launch(kind, rules, seeds[lo:hi], bots[lo:hi], rows, used, zero, scratch, check, param, per)
        for t in range(hi - lo):
            if used[t] < 0:             # longer than the rows a thread keeps: the CPU plays it (the same match)
                block = cpu_play_matches(rules, seeds[lo + t: lo + t + 1], bots[lo + t: lo + t + 1], check,
                                         single=single)
            else:
                block = rows[t * per: t * per + used[t]]
            block[:, L.G_MATCH] = lo + t
            parts.append(block)
    return np.concatenate(parts) if parts else np.zeros((0, L.STATS_SIZE), dtype=np.int64)


def launch_report(kind=0, layout=DEFAULT_LAYOUT, threads_per_block=THREADS_PER_BLOCK, searching=0):
    """The compiled kernel's resources and occupancy on this device (after a launch), for bench notes:
    registers and local memory per thread, active blocks per multiprocessor and the share of the device's
    thread slots they fill. Fields a Numba version cannot tell are left out."""
    from numba import cuda
    kernel = _KERNELS.get((kind, layout, int(searching)))
    out = {"layout": layout, "threads_per_block": threads_per_block}
    if kernel is None or not kernel.overloads:
        return out
    dev = cuda.get_current_device()
    out["multiprocessors"] = dev.MULTIPROCESSOR_COUNT
    for name, get in (("registers", kernel.get_regs_per_thread), ("local_bytes", kernel.get_local_mem_per_thread),
                      ("max_threads_per_block", kernel.get_max_threads_per_block)):
        try:
            out[name] = int(get())
        except Exception:       # noqa: BLE001 (not told by this Numba)
            pass
    try:
        sig = next(iter(kernel.overloads))
        func = kernel.overloads[sig]._codelibrary.get_cufunc()
        blocks = cuda.current_context().get_active_blocks_per_multiprocessor(func, threads_per_block, 0)
        out["active_blocks_per_sm"] = int(blocks)
        out["occupancy"] = round(blocks * threads_per_block / dev.MAX_THREADS_PER_MULTI_PROCESSOR, 3)
    except Exception:           # noqa: BLE001
        pass
    return out


__all__ = ["BackendError", "LAYOUTS", "status", "require", "device", "cpu_stand_in", "play_batch", "play_matches",
           "device_name", "launch_report", "runner"]
