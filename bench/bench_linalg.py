"""Linear-algebra benchmark: funcarray.numpy.linalg against NumPy and jax, eager and jitted.

Rows: ``solve``, ``cholesky``, ``slogdet``, ``eigh`` and ``svd`` of float32 matrices of a few
sizes, eagerly (funcarray against NumPy's LAPACK and jax's eager mode) and under jit
(funcarray.jit against jax.jit), and the jitted gradient of a Gaussian log-likelihood (a
``slogdet`` and a ``solve``). No issue sets goals for these yet: the table is information for
planning. funcarray's jitted factorisations are backend-neutral compositions (XLA's
Cholesky/triangular-solve expanders, an LU loop, Householder QR, Jacobi eigh/svd), where jax
on CPU calls LAPACK, so the jit ratios show what that choice costs.

Usage:
    python bench/bench_linalg.py            # full run, a few minutes on 2 cores
    python bench/bench_linalg.py --quick    # fewer samples, noisier
    python bench/bench_linalg.py --quick --json results.json
"""

from __future__ import annotations

import os
import sys

import numpy as np
from _harness import (
    Row,
    Settings,
    call_overhead_ns,
    guarded,
    machine_info,
    make_parser,
    measure,
    medians,
    noise_notes,
    print_report,
    scaled,
    write_json,
)

IMPLEMENTATIONS = ("funcarray", "numpy", "jax")
LABELS = {"funcarray": "funcarray", "numpy": "NumPy", "jax": "jax"}


def _matrices(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal((n, n)) + n ** 0.5 * np.eye(n)).astype(np.float32)
    spd = (a @ a.T / n + np.eye(n)).astype(np.float32)
    b = rng.standard_normal((n, 4)).astype(np.float32)
    return a, spd, b


def _cases(n: int):
    """``name -> (argument builder, per-library function)``: each function takes the
    library's numpy namespace and the arguments."""
    a, spd, b = _matrices(n)
    return {
        f"solve ({n}x{n}, 4 right-hand sides)": ((a, b), lambda ns, a, b: ns.linalg.solve(a, b)),
        f"cholesky ({n}x{n})": ((spd,), lambda ns, s: ns.linalg.cholesky(s)),
        f"slogdet ({n}x{n})": ((a,), lambda ns, a: ns.linalg.slogdet(a)[1]),
        f"eigh ({n}x{n})": ((spd,), lambda ns, s: ns.linalg.eigh(s)[0]),
        f"svd values ({n}x{n})": ((a,), lambda ns, a: ns.linalg.svd(a, compute_uv=False)),
    }


def _ready(x):
    block = getattr(x, "block_until_ready", None)
    return x if block is None else block()


def _check(outs: dict, notes: list[str]) -> None:
    """Every library's result against NumPy's (float32 tolerances, scaled)."""
    reference = outs.get("numpy")
    for name, out in outs.items():
        if out is None or reference is None or name == "numpy":
            continue
        got, want = np.asarray(out, np.float64), np.asarray(reference, np.float64)
        scale = max(1.0, float(np.abs(want).max()))
        if got.shape != want.shape or not np.allclose(got, want, rtol=1e-3, atol=1e-3 * scale):
            notes.append(f"{name}: its result differs from NumPy's")


def bench_ops(libs: dict, settings: Settings, sizes, jitted: bool) -> list[Row]:
    fa, fnp, jax, jnp = libs["fa"], libs["fnp"], libs["jax"], libs["jnp"]
    rows = []
    for n in sizes:
        for name, (args, fn) in _cases(n).items():
            notes: list[str] = []
            fa_args = [fa.device_put(x) if jitted else fnp.asarray(x) for x in args]
            calls = {"funcarray": None, "numpy": None, "jax": None}
            if jitted:
                fa_fn = fa.jit(lambda *xs, fn=fn: fn(fnp, *xs))
                calls["funcarray"] = lambda f=fa_fn: _ready(f(*fa_args))
                if jax is not None:
                    jax_args = [jax.device_put(x) for x in args]
                    jax_fn = jax.jit(lambda *xs, fn=fn: fn(jnp, *xs))
                    calls["jax"] = lambda f=jax_fn: _ready(f(*jax_args))
            else:
                calls["funcarray"] = lambda fn=fn: fn(fnp, *fa_args)
                if jax is not None:
                    jax_args = [jax.device_put(x) for x in args]
                    calls["jax"] = lambda fn=fn: _ready(fn(jnp, *jax_args))
            calls["numpy"] = lambda fn=fn: fn(np, *args)
            outs = {impl: None if call is None else guarded(impl, call, notes)
                    for impl, call in calls.items()}
            _check(outs, notes)
            live = {impl: call if outs[impl] is not None else None
                    for impl, call in calls.items()}
            if jitted:
                live["numpy"] = None  # the jit table compares with jax.jit only
            timings = measure(live, settings)
            label = f"{'jit' if jitted else 'eager'}: {name}"
            rows.append(Row(label, medians(timings), (), notes + noise_notes(timings)))
    return rows


def bench_log_likelihood_grad(libs: dict, settings: Settings, n: int) -> Row:
    fa, fnp, jax, jnp = libs["fa"], libs["fnp"], libs["jax"], libs["jnp"]
    a, _, b = _matrices(n, seed=1)
    x = b[:, 0]

    def loss(ns):
        def f(scale, x):
            cov = scale @ scale.T / n + ns.eye(n, dtype=scale.dtype)
            return 0.5 * (ns.linalg.slogdet(cov)[1] + x @ ns.linalg.solve(cov, x))
        return f

    notes: list[str] = []
    fa_grad = fa.jit(fa.grad(loss(fnp)))
    fa_args = (fa.device_put(a), fa.device_put(x))
    calls = {"funcarray": lambda: _ready(fa_grad(*fa_args)), "numpy": None, "jax": None}
    if jax is not None:
        jax_grad = jax.jit(jax.grad(loss(jnp)))
        jax_args = (jax.device_put(a), jax.device_put(x))
        calls["jax"] = lambda: _ready(jax_grad(*jax_args))
    outs = {impl: None if call is None else guarded(impl, call, notes)
            for impl, call in calls.items()}
    if outs["funcarray"] is not None and outs["jax"] is not None:
        _check({"numpy": outs["jax"], "funcarray": outs["funcarray"]}, notes)
    timings = measure({k: v if outs[k] is not None else None for k, v in calls.items()},
                      settings)
    return Row(f"jit: grad of a Gaussian log-likelihood ({n}x{n} slogdet + solve)",
               medians(timings), (), notes + noise_notes(timings))


def load_libs() -> dict:
    import funcarray as fa
    import funcarray.numpy as fnp
    libs = {"fa": fa, "fnp": fnp, "jax": None, "jnp": None}
    try:
        import jax
        import jax.numpy as jnp
        libs["jax"], libs["jnp"] = jax, jnp
    except ImportError:
        pass
    return libs


def main(argv: list[str] | None = None) -> int:
    args = make_parser(__doc__.splitlines()[0]).parse_args(argv)
    settings = scaled(Settings.from_args(args), max_repeats=9, max_warmup_calls=2)
    load = tuple(round(v, 2) for v in os.getloadavg())
    info = machine_info()
    libs = load_libs()
    overhead_ns = call_overhead_ns(settings)
    sizes = (16, 128) if settings.quick else (16, 128, 512)
    rows = bench_ops(libs, settings, sizes, jitted=False)
    rows += bench_ops(libs, settings, sizes, jitted=True)
    rows.append(bench_log_likelihood_grad(libs, settings, 64))
    mode = "quick" if settings.quick else "full"
    header = [
        f"machine: {info['cpu_model']}, {info['cpu_count']} cores; load average before the "
        f"run: {load}",
        f"python {info['python']}, numpy {info['numpy']}, jax {info['jax'] or '(missing)'}, "
        f"funcarray {info['funcarray']} (commit {info['git_commit'] or '?'})",
        f"mode: {mode}; median of {settings.repeats} interleaved samples (timing-loop "
        f"overhead {overhead_ns:.0f} ns/call subtracted); float32; results checked against "
        f"NumPy (the gradient against jax) before timing",
        "eager rows: funcarray eager vs NumPy vs jax eager; jit rows: funcarray.jit vs jax.jit",
        "no goals yet (information for planning); ratios are funcarray time / other time",
    ]
    print_report("funcarray linear-algebra benchmark", header, rows, IMPLEMENTATIONS, LABELS)
    if args.json:
        meta = {**info, "load_average": load, "quick": settings.quick,
                "repeats": settings.repeats, "call_overhead_ns": overhead_ns}
        write_json(args.json, rows, IMPLEMENTATIONS, meta)
        print(f"results written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
