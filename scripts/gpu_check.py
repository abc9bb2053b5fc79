"""The GPU backend's checks in one command.

On a GPU machine (default): the device tests of tests/test_gpu.py (device rows identical to the CPU's, both
scratch layouts, every family), then `khasino bench --backend cuda` for each layout (khasino greedy v random,
1,000,000 games by default, kernel and end to end to Parquet, beside the CPU's rate on all cores) and the other
formats with fewer games. Reports go to --out (JSON per layout, plus the pytest log).

Anywhere with the CUDA toolkit's NVVM but no GPU (`--ptx`): compile every unit kernel of khasino_sim/gpu.py
(each family's unit, each layout) to PTX for a compute capability (default 9.0, an H100/H200), which proves the
game functions compile for the device unchanged; a no-GPU machine cannot run them.

With `--ptxas` each PTX is also assembled for the device (the toolkit's ptxas -v): registers per thread,
stack frame, spills and the occupancy the registers allow.

Run: python scripts/gpu_check.py [--out DIR] [--games N] [--other-games N]
     python scripts/gpu_check.py --ptx [--ptxas] [--cc 9.0] [--kinds 0,1,2] [--layouts global,local]
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SIGNATURE = ("void(int64[::1], uint64[::1], int64[:, ::1], int64[:, ::1], int64[::1], int64[::1], "
             "int64[:, ::1], int64[:, ::1], int64[:, ::1], uint64[:, ::1], boolean, int64, int64)")


def occupancy(registers, threads_per_block=64, regs_per_sm=65_536, threads_per_sm=2_048, blocks_per_sm=32):
    """The share of a multiprocessor's thread slots the kernel can fill, as limited by its registers (sm_80/sm_90
    figures: 64K registers, 2,048 threads and 32 blocks per SM; registers allocated per warp in units of 256)."""
    per_warp = -(-registers * 32 // 256) * 256
    warps = regs_per_sm // per_warp
    blocks = min(warps // (threads_per_block // 32), blocks_per_sm, threads_per_sm // threads_per_block)
    return blocks * threads_per_block / threads_per_sm


def ptxas(code, cc):
    """Assemble PTX with the toolkit's ptxas (-v) and read the kernel entry's registers, stack and spills."""
    import re
    import shutil
    import tempfile
    exe = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "kernel.ptx"
        src.write_text(code)
        p = subprocess.run([exe, f"-arch=sm_{cc[0]}{cc[1]}", "-v", str(src), "-o", str(Path(tmp) / "k.cubin")],
                           capture_output=True, text=True)
    if p.returncode:
        return {"error": (p.stderr.strip().splitlines() or ["ptxas failed"])[-1]}
    text = p.stderr
    entry = text[text.index("Compiling entry function"):] if "Compiling entry function" in text else text
    regs = int(re.search(r"Used (\d+) registers", entry).group(1))
    frame = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", entry)
    return {"registers": regs, "stack_bytes": int(frame.group(1)), "spill_stores": int(frame.group(2)),
            "spill_loads": int(frame.group(3)), "occupancy_64": occupancy(regs)}


def ptx(cc, kinds, layouts, assemble=False):
    """PTX of each unit kernel, compiled without a GPU: Numba asks the current device for its compute
    capability when it compiles the functions a kernel calls, so that question is answered with `cc`."""
    from numba import cuda
    import numba.cuda.dispatcher as dispatcher
    from khasino_sim import gpu

    class _Device:
        compute_capability = cc
    dispatcher.get_current_device = lambda: _Device()
    ok = True
    for kind, layout, searching in [(k, lay, s) for k in kinds for lay in layouts for s in (0, 1)]:
        if searching and kind == 2:
            continue            # Kasino's game is compiled apart, with its search always in
        t = time.time()
        kernel = gpu._cuda_kernel(kind, layout, searching)
        search = "its search always in" if kind == 2 else "with the search" if searching else "without the search"
        name = f"unit kind {kind}, layout {layout}, {search}"
        try:
            code, _ = cuda.compile_ptx(kernel.py_func, SIGNATURE, cc=cc)
            print(f"{name}: PTX for sm_{cc[0]}{cc[1]}, {len(code):,} bytes, "
                  f"{code.count('.local'):,} local declarations ({time.time() - t:.0f} s)", flush=True)
            if assemble:
                t = time.time()
                r = ptxas(code, cc)
                print(f"  ptxas: {r.get('error') or ''}" if "error" in r else
                      f"  ptxas: {r['registers']} registers, {r['stack_bytes']} B stack frame, "
                      f"{r['spill_stores']} B spill stores, occupancy at 64 threads per block "
                      f"{r['occupancy_64']:.1%} (register-limited; {time.time() - t:.0f} s)", flush=True)
        except Exception as e:      # noqa: BLE001 (report and go on with the others)
            ok = False
            print(f"{name}: FAILED: {str(e).splitlines()[0]}", flush=True)
    return ok


def on_gpu(out, games, other_games):
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    log = out / "pytest-gpu.log"
    t = time.time()
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", str(ROOT / "tests" / "test_gpu.py")],
                       capture_output=True, text=True, env=env, cwd=ROOT)
    log.write_text(p.stdout + p.stderr)
    print(p.stdout.strip().splitlines()[-1] if p.stdout.strip() else p.stderr[-2000:], f"({time.time() - t:.0f} s)")
    ok = p.returncode == 0
    for layout in ("global", "local"):
        report = out / f"bench-{layout}.json"
        cmd = [sys.executable, "-m", "khasino_sim", "bench", "--backend", "cuda", "--layout", layout,
               "--games", str(games), "--json", str(report)]
        print(" ".join(cmd[2:]), flush=True)
        ok &= subprocess.run(cmd, cwd=ROOT).returncode == 0
    cmd = [sys.executable, "-m", "khasino_sim", "bench", "--backend", "cuda", "--games", str(other_games),
           "--formats", "durban,khasino-3p,khasino-4p,cassino,kasino-2p,kasino-4p", "--json",
           str(out / "bench-formats.json")]
    print(" ".join(cmd[2:]), flush=True)
    ok &= subprocess.run(cmd, cwd=ROOT).returncode == 0
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ptx", action="store_true", help="Only compile the kernels to PTX (no GPU needed).")
    ap.add_argument("--cc", default="9.0", help="Compute capability for --ptx.")
    ap.add_argument("--ptxas", action="store_true", help="With --ptx: also assemble each kernel (ptxas -v) and "
                    "report registers, stack, spills and the register-limited occupancy.")
    ap.add_argument("--kinds", default="0,1,2", help="Unit kinds for --ptx (kernels/device.py UNIT_*).")
    ap.add_argument("--layouts", default="global,local")
    ap.add_argument("--out", default=os.environ.get("OUT", "results/gpu-check"))
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--other-games", type=int, default=200_000)
    args = ap.parse_args()
    if args.ptx:
        cc = tuple(int(x) for x in args.cc.split("."))
        ok = ptx(cc, [int(k) for k in args.kinds.split(",")], args.layouts.split(","), args.ptxas)
    else:
        from khasino_sim import gpu
        if gpu.status() is not None:
            print(f"no usable GPU here ({gpu.status()}); run with --ptx to check the kernels compile")
            sys.exit(2)
        ok = on_gpu(Path(args.out), args.games, args.other_games)
    print(json.dumps({"ok": ok}))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
