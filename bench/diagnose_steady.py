"""Where a steady-state gap to jax comes from: our HLO, our runtime, or our dispatch.

For bench_jit's MLP training step and per-example gradients, times four ways of running the
same computation on the selected platform (FUNCARRAY_PLATFORM; jax uses its default device):
funcarray's jitted call, funcarray's executable run directly (no dispatch), jax's own
StableHLO compiled and run by funcarray's runtime, and jax's jitted call; and counts the
kernels of each optimised module (fusions, library calls). Writes the optimised HLO texts
to --out. A diagnostic for bench_jit's "steady" rows (bench/gpu_check.sh runs it on a GPU).

Usage:
    python bench/diagnose_steady.py --out /tmp/hlo
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import statistics
import time

import bench_jit as b
import jax
from bench_transforms import make_train_step, mlp_loss

import funcarray as fa
from funcarray.lowering import runtime


def per_call_us(fn, repeats: int = 7) -> float:
    """Median microseconds per call, over samples of about 20 ms each."""
    for _ in range(3):
        fn()
    start = time.perf_counter()
    fn()
    calls = max(1, min(200, int(0.02 / (time.perf_counter() - start))))
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(samples)


def kernels(hlo: str) -> dict:
    """Kernel launches of an optimised module, roughly: fusions and library custom calls in
    its entry computation."""
    entry = hlo[hlo.index("ENTRY"):]
    return {"fusion": len(re.findall(r"= [^ ]+ fusion\(", entry)),
            "custom-call": len(re.findall(r"custom-call\(", entry)),
            "instructions": entry.count("\n")}


def wait(outs):
    for out in outs:
        out.block_until_ready()
    return outs


def diagnose(name, make, out_dir):
    fa_lib, jax_lib = b.load_libs()["funcarray"], b.load_libs()["jax"]
    f_args, j_args = b.mlp_args(fa_lib), b.mlp_args(jax_lib)
    f_fn, j_fn = fa.jit(make(fa_lib)), jax.jit(make(jax_lib))
    f_comp, j_low = f_fn.lower(*f_args).compile(), j_fn.lower(*j_args)
    j_comp = j_low.compile()
    texts = {"funcarray": f_comp.as_text(), "jax": j_comp.as_text()}
    for impl, text in texts.items():
        with open(os.path.join(out_dir, f"{name}_{impl}_optimised.txt"), "w") as out:
            out.write(text)
    exe = f_comp._entry.exe
    bufs = [leaf._buf[1] for leaf in fa.tree.leaves(f_args)]
    leaves = fa.tree.leaves(f_args)
    in_avals = [fa.ShapeDtypeStruct(x.shape, x.dtype) for x in leaves]
    out_avals = [fa.ShapeDtypeStruct(s, d) for s, d in exe.out_avals]
    jax_exe = runtime.compile(j_low.as_text(), in_avals, out_avals, exe.device)
    times = {
        "funcarray jit call": per_call_us(lambda: b.ready(f_fn(*f_args))),
        "funcarray executable, no dispatch": per_call_us(
            lambda: wait(runtime.execute_buffers(exe, bufs))),
        "jax's StableHLO on funcarray's runtime": per_call_us(
            lambda: wait(runtime.execute_buffers(jax_exe, bufs))),
        "jax jit call": per_call_us(lambda: b.ready(j_fn(*j_args))),
    }
    print(f"== {name} ({exe.device})")
    for label, us in times.items():
        print(f"  {label:42s} {us:9.1f} us")
    for impl, text in texts.items():
        print(f"  {impl:10s} optimised module: {kernels(text)}")


def per_example(lib):
    loss = functools.partial(mlp_loss, lib.ns, lib.stop_gradient)
    return lib.vmap(lib.grad(loss), in_axes=(None, 0, 0))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="/tmp/diagnose_steady")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    diagnose("step", make_train_step, args.out)
    diagnose("per_example", per_example, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
