"""Eager ops on an accelerator: funcarray against jax, both on the same device.

On an accelerator funcarray's eager ops run as cached single-op XLA executables (as jax's
do), so per-op cost is dispatch plus the kernel: this measures small ops (dispatch-bound),
a 15-op chain and a large matmul (kernel-bound), each result waited for. Ratios are
funcarray time / jax time (lower is better). Needs a GPU (or another non-CPU platform);
bench/gpu_check.sh runs it. Information only: exits 0 whatever the numbers are.

Usage:
    python bench/bench_gpu_eager.py --quick --json results.json
"""

from __future__ import annotations

import sys

import numpy as np
from _harness import (
    Goal,
    Row,
    Settings,
    machine_info,
    make_parser,
    measure,
    medians,
    noise_notes,
    print_report,
    write_json,
)

IMPLEMENTATIONS = ("funcarray", "jax")
GOALS = (Goal("jax", 1.25, "<=1.25x jax"),)


def _cases(fa, fnp, jax, jnp) -> dict[str, tuple]:
    """name -> (funcarray callable, jax callable), inputs already on the device."""
    rng = np.random.default_rng(0)
    small = rng.standard_normal(16).astype(np.float32)
    big_a = rng.standard_normal((2048, 2048)).astype(np.float32)
    big_b = rng.standard_normal((2048, 2048)).astype(np.float32)
    f_small, j_small = fa.device_put(small), jax.device_put(small)
    f_a, f_b = fa.device_put(big_a), fa.device_put(big_b)
    j_a, j_b = jax.device_put(big_a), jax.device_put(big_b)

    def chain(xp, x):
        for _ in range(5):
            x = xp.sin(x) * 1.5 + x
        return x

    return {
        "x + y, 16 float32": (lambda: (f_small + f_small).block_until_ready(),
                              lambda: (j_small + j_small).block_until_ready()),
        "sin(x), 16 float32": (lambda: fnp.sin(f_small).block_until_ready(),
                               lambda: jnp.sin(j_small).block_until_ready()),
        "15-op chain, 16 float32": (lambda: chain(fnp, f_small).block_until_ready(),
                                    lambda: chain(jnp, j_small).block_until_ready()),
        "matmul 2048^2 float32 (HIGHEST)": (
            lambda: (f_a @ f_b).block_until_ready(),
            lambda: jnp.matmul(j_a, j_b, precision="highest").block_until_ready()),
    }


def main(argv: list[str] | None = None) -> int:
    args = make_parser(__doc__.splitlines()[0]).parse_args(argv)
    settings = Settings.from_args(args)
    import jax
    import jax.numpy as jnp

    import funcarray as fa
    import funcarray.numpy as fnp

    platform = fa.default_backend()
    if platform == "cpu":
        print("bench_gpu_eager: no accelerator here (funcarray's platform is cpu); "
              "run with FUNCARRAY_PLATFORM=cuda on a GPU machine.")
        return 0
    rows = []
    for name, (ours, theirs) in _cases(fa, fnp, jax, jnp).items():
        timings = measure({"funcarray": ours, "jax": theirs}, settings)
        rows.append(Row(name, medians(timings), GOALS, noise_notes(timings, goals=GOALS)))
    info = machine_info()
    header = [f"platform: {platform} ({jax.devices()[0].device_kind}); funcarray eager ops on "
              f"device arrays (XLA single-op executables) vs jax eager on the same device",
              f"mode: {'quick' if settings.quick else 'full'}; {settings.repeats} samples"]
    print_report("funcarray eager on an accelerator vs jax", header, rows, IMPLEMENTATIONS)
    if args.json:
        write_json(args.json, rows, IMPLEMENTATIONS, {**info, "platform": platform})
    return 0


if __name__ == "__main__":
    sys.exit(main())
