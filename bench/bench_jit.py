"""jit benchmark: funcarray.jit against jax.jit in one run.

Measures jit call overhead (a trivial function of 1 array, and of an 8-array pytree, with
and without the wait for its results), the cost of ``block_until_ready`` (function and
method) and ``device_get`` on computed results; the first-call time of an MLP training step
(784-512-512-10, batch 128) split into its stages (trace, lower, compile) and in total; and
the steady-state time of the jitted training step, of per-example gradients
``vmap(grad(loss))`` and of a Hessian. Ratios are funcarray time / jax time (lower is
better), next to the issue's goals; verdicts are information only: the script exits 0
whatever the numbers. A row funcarray cannot run (a missing lowering rule, say) shows
``n/a`` with the error instead of stopping the script.

Usage:
    python bench/bench_jit.py            # full run, a few minutes on 2 cores
    python bench/bench_jit.py --quick    # fewer samples, noisier
    python bench/bench_jit.py --quick --json results.json
"""

from __future__ import annotations

import functools
import operator
import sys
from collections.abc import Callable

import numpy as np
from _harness import (
    Goal,
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
    time_cold,
    write_json,
)
from bench_transforms import (
    BATCH,
    HESSIAN_SIZE,
    SIZES,
    close,
    funcarray_lib,
    hessian_target,
    jax_lib,
    make_hessian_data,
    make_mlp_data,
    make_train_step,
    mlp_loss,
    numpy_grads,
    numpy_hessian,
)

IMPLEMENTATIONS = ("funcarray", "jax")
LABELS = {"funcarray": "funcarray", "jax": "jax"}

# The goals. A ratio is funcarray time / jax time.
CALL_GOALS = (Goal("jax", 1.1, "<=1.1x jax"),)  # a call and its wait for the result
PYTREE_CALL_GOALS = (Goal("jax", 1.0, "<=1x jax"),)
WAIT_GOALS = (Goal("jax", 1.0, "<=1x jax"),)  # block_until_ready and device_get alone
STAGE_GOALS = (Goal("jax", 1.0, "<=1x jax"),)
STEADY_GOALS = (Goal("jax", 1.05, "<=1.05x jax (within 5%)"),)
PYTREE_SIZE = 8


# --- the libraries: funcarray_lib/jax_lib plus their jit, staging and cache clearing ----------
def load_libs():
    """{"funcarray": lib, "jax": lib or None}; each lib also has ``jit``, ``clear_caches``."""
    import funcarray as fa

    libs = {"funcarray": funcarray_lib(), "jax": None}
    libs["funcarray"].jit = fa.jit
    # Inputs are device arrays on both sides, as the header says (jax_lib puts with
    # jax.device_put):
    # bench_transforms' put, fnp.asarray, makes host arrays, whose buffer jit caches on the
    # first call and whose type it then reads from the NumPy value on every call.
    libs["funcarray"].put = fa.device_put
    libs["funcarray"].clear_caches = fa.clear_caches
    libs["funcarray"].block_until_ready = fa.block_until_ready
    libs["funcarray"].device_get = fa.device_get
    try:
        import jax
    except ImportError:
        return libs
    libs["jax"] = jax_lib()
    libs["jax"].jit = jax.jit
    libs["jax"].clear_caches = jax.clear_caches
    libs["jax"].block_until_ready = jax.block_until_ready
    libs["jax"].device_get = jax.device_get
    return libs


def put_tree(lib, tree):
    return lib.tree_map(lib.put, tree)


def ready(result):
    """Wait for every array of a (nested list/tuple/dict) result; both libraries' arrays
    have ``block_until_ready``."""
    if isinstance(result, dict):
        result = list(result.values())
    if isinstance(result, (list, tuple)):
        for item in result:
            ready(item)
        return result
    return result.block_until_ready()


# --- call overhead ----------------------------------------------------------------------------
def add_one(x):
    return x + 1.0


def sum_tree(tree):
    return functools.reduce(operator.add, tree.values())


def scale_tree(tree):
    return [v * 2.0 for v in tree.values()]


def bench_call(libs, settings: Settings) -> list[Row]:
    x = np.arange(4, dtype=np.float32)
    tree = {f"a{k}": x + k for k in range(PYTREE_SIZE)}
    scaled_tree = [v * 2.0 for v in tree.values()]
    n = PYTREE_SIZE
    rows = []
    for name, make, expected, goals in (
            ("jit call, 1 array (x + 1, f32[4])", _jit_call(add_one, x), x + 1.0,
             CALL_GOALS),
            (f"jit call, {n}-array pytree (sum, f32[4])", _jit_call(sum_tree, tree),
             sum(tree.values()), PYTREE_CALL_GOALS),
            (f"jit call, {n} arrays in and out (dict -> list), no wait",
             _jit_call(scale_tree, tree, wait=None), scaled_tree, PYTREE_CALL_GOALS),
            (f"jit call + block_until_ready(out), {n} arrays in and out",
             _jit_call(scale_tree, tree, wait="function"), scaled_tree, CALL_GOALS),
            (f"block_until_ready(out), {n} ready arrays (a list)",
             _ready_call(scale_tree, tree, "block_until_ready"), scaled_tree, WAIT_GOALS),
            ("block_until_ready(y), 1 ready array", _ready_call(add_one, x, "block_until_ready"),
             x + 1.0, WAIT_GOALS),
            ("y.block_until_ready(), 1 ready array", _ready_call(add_one, x, "method"),
             x + 1.0, WAIT_GOALS),
            ("device_get(y), 1 array", _ready_call(add_one, x, "device_get"), x + 1.0,
             WAIT_GOALS)):
        notes: list[str] = []
        calls = {impl: None if lib is None else guarded(impl, functools.partial(make, lib),
                                                        notes)
                 for impl, lib in libs.items()}
        rows.append(_checked_row(name, calls, expected, goals, settings, notes))
    return rows


def _jit_call(fun, arg, wait="method"):
    """``make(lib)`` -> the timed call: ``fun`` jitted on ``arg`` put on the device, then a
    wait for the result (its ``.block_until_ready()`` method, the library's
    ``block_until_ready`` function, or none)."""
    def make(lib):
        jitted = lib.jit(fun)
        on_device = lib.tree_map(lib.put, arg)
        if wait == "method":
            return lambda: jitted(on_device).block_until_ready()
        if wait == "function":
            block_until_ready = lib.block_until_ready
            return lambda: block_until_ready(jitted(on_device))
        return lambda: jitted(on_device)
    return make


def _ready_call(fun, arg, how):
    """``make(lib)`` -> the timed call on the computed result of jitted ``fun``: the
    library's ``block_until_ready`` or ``device_get`` function, or the array's method."""
    def make(lib):
        out = lib.block_until_ready(lib.jit(fun)(lib.tree_map(lib.put, arg)))
        if how == "method":
            return out.block_until_ready
        return functools.partial(getattr(lib, how), out)
    return make


def _checked_row(name, calls, expected, goals, settings, notes) -> Row:
    """Run each call once (this compiles it) and compare with ``expected``, then time it."""
    live: dict[str, Callable | None] = {}
    for impl, call in calls.items():
        result = None if call is None else guarded(impl, call, notes)
        if result is not None and not close(result, expected):
            notes.append(f"{impl}: n/a (its result differs from the reference)")
            result = None
        live[impl] = None if result is None else call
    timings = measure(live, settings)
    return Row(name, medians(timings), goals, notes + noise_notes(timings, goals=goals))


# --- first call, stage by stage ---------------------------------------------------------------
def mlp_args(lib):
    params, x, y = make_mlp_data()
    return put_tree(lib, params), lib.put(x), lib.put(y)


def funcarray_stages(lib, args) -> dict[str, tuple]:
    """(setup, run) per stage. Every setup clears funcarray's caches and makes a fresh step
    function, so each sample stages, lowers or compiles from scratch."""
    import funcarray as fa
    from funcarray.lowering import runtime, stablehlo

    def staged():
        fa.clear_caches()
        return fa.make_ir(make_train_step(lib))(*args)

    def lowered():
        ir = staged().closed.ir
        avals = [v.aval for v in (*ir.const_binders, *ir.in_binders)]
        return stablehlo.lower_ir(ir), avals, [v.aval for v in ir.outs]

    def fresh_jitted():
        fa.clear_caches()
        return fa.jit(make_train_step(lib))

    return {
        "trace": (lambda: (fa.clear_caches(), make_train_step(lib))[1],
                  lambda step: fa.make_ir(step)(*args)),
        "lower": (staged, stablehlo.lower_ir),
        "compile": (lowered, lambda state: runtime.compile(*state)),
        "total": (fresh_jitted, lambda jitted: ready(jitted(*args))),
    }


def jax_stages(lib, args) -> dict[str, tuple]:
    """The same stages through jax's AOT API: ``jit(f).trace``, ``.lower``, ``.compile``."""
    import jax

    def fresh_jitted():
        jax.clear_caches()
        return jax.jit(make_train_step(lib))

    return {
        "trace": (fresh_jitted, lambda jitted: jitted.trace(*args)),
        "lower": (lambda: fresh_jitted().trace(*args), lambda traced: traced.lower()),
        "compile": (lambda: fresh_jitted().trace(*args).lower(),
                    lambda lowered: lowered.compile()),
        "total": (fresh_jitted, lambda jitted: ready(jitted(*args))),
    }


STAGES = (
    ("trace", "trace/stage to IR (make_ir | .trace)", STAGE_GOALS),
    ("lower", "lower to StableHLO (lower_ir | .lower)", STAGE_GOALS),
    ("compile", "XLA compile (runtime.compile | .compile)", ()),
    ("total", "total: fresh jit(step)(*args)", ()),
)


def bench_first_call(libs, settings: Settings) -> list[Row]:
    repeats = 3 if settings.quick else 7
    stages: dict[str, dict] = {}
    notes: list[str] = []
    for impl, builder in (("funcarray", funcarray_stages), ("jax", jax_stages)):
        lib = libs[impl]
        if lib is not None:
            stages[impl] = guarded(impl, lambda: builder(lib, mlp_args(lib)), notes) or {}
        else:
            stages[impl] = {}
    rows = []
    for stage, label, goals in STAGES:
        cases = {impl: stages[impl].get(stage) for impl in IMPLEMENTATIONS}
        timings, stage_notes = time_cold(cases, repeats)
        rows.append(Row(f"first call, MLP step: {label}", medians(timings), goals,
                        (notes if stage == "trace" else []) + stage_notes))
    return rows


# --- steady state -----------------------------------------------------------------------------
def bench_steady(libs, settings: Settings) -> list[Row]:
    params, x, y = make_mlp_data()
    a, v = make_hessian_data()
    per_example = [numpy_grads(params, x[i:i + 1], y[i:i + 1]) for i in range(BATCH)]
    per_example = [tuple(np.stack([g[layer][k] for g in per_example]) for k in range(2))
                   for layer in range(len(params))]
    cases = (
        (f"steady: MLP step {'-'.join(map(str, SIZES))}, batch {BATCH}", _step_calls,
         numpy_grads(params, x, y)),
        (f"steady: per-example grads vmap(grad), batch {BATCH}", _per_example_call,
         per_example),
        (f"steady: hessian, {HESSIAN_SIZE}-vector", _hessian_call, numpy_hessian(a, v)),
    )
    rows = []
    for name, build, expected in cases:
        notes: list[str] = []
        checks, calls = {}, {}
        for impl, lib in libs.items():
            pair = None if lib is None else guarded(impl, functools.partial(build, lib), notes)
            checks[impl], calls[impl] = pair if pair is not None else (None, None)
        # The check call compiles the checked function; the timed one compiles in warm-up.
        for impl in libs:
            if checks[impl] is not None:
                result = guarded(impl, checks[impl], notes)
                if result is None or not close(result, expected):
                    if result is not None:
                        notes.append(f"{impl}: n/a (its result differs from NumPy's)")
                    calls[impl] = None
        timings = measure(calls, settings)
        rows.append(Row(name, medians(timings), STEADY_GOALS,
                        notes + noise_notes(timings, goals=STEADY_GOALS)))
    return rows


def _step_calls(lib):
    """(jitted gradient, checked against NumPy; jitted training step, timed)."""
    params, x, y = mlp_args(lib)
    grad_loss = lib.jit(lib.grad(functools.partial(mlp_loss, lib.ns, lib.stop_gradient)))
    step = lib.jit(make_train_step(lib))
    return (lambda: ready(grad_loss(params, x, y)), lambda: ready(step(params, x, y)))


def _per_example_call(lib):
    params, x, y = mlp_args(lib)
    loss = functools.partial(mlp_loss, lib.ns, lib.stop_gradient)
    per_example = lib.jit(lib.vmap(lib.grad(loss), in_axes=(None, 0, 0)))
    call = lambda: ready(per_example(params, x, y))
    return call, call


def _hessian_call(lib):
    a, v = (lib.put(value) for value in make_hessian_data())
    # ``a`` is an argument, not a closed-over constant: jax and funcarray treat large
    # constants differently, and a training loop passes its data in anyway.
    hess = lib.jit(lib.hessian(functools.partial(hessian_target, lib.ns), argnums=1))
    call = lambda: ready(hess(a, v))
    return call, call


# --- report -----------------------------------------------------------------------------------
def header_lines(info: dict, settings: Settings, heavy: Settings, overhead_ns: float,
                 jax_platform: str | None, fa_platform: str) -> list[str]:
    import os

    mode = "quick" if settings.quick else "full"
    return [
        f"machine: {info['cpu_model']}, {info['cpu_count']} cores "
        f"({info['usable_cores']} usable); load average (1, 5, 15 min) before the run:"
        f" {tuple(round(v, 2) for v in os.getloadavg())} (other processes add noise)",
        f"python {info['python']}, numpy {info['numpy']}, jax {info['jax'] or '(missing)'}"
        f" on {jax_platform or '-'}, funcarray {info['funcarray']} on {fa_platform}"
        f" (commit {info['git_commit'] or '?'})",
        f"mode: {mode}; call overhead: median of {settings.repeats} interleaved samples, each"
        f" >= {settings.min_sample_ns / 1e6:.0f} ms, timing-loop overhead ({overhead_ns:.0f}"
        f" ns/call) subtracted; steady state: median of {heavy.repeats}; float32",
        "every timed call waits for its results (.block_until_ready() on each output, or"
        " the row's block_until_ready) unless its row says 'no wait'; inputs"
        " are device arrays (funcarray.device_put / jax.device_put)",
        f"first call: median of {3 if settings.quick else 7} cold runs; before each, all caches"
        " are cleared (funcarray.clear_caches / jax.clear_caches) and a fresh step function"
        " is made; funcarray lowers to StableHLO text, jax to an in-memory MLIR module",
        "each steady-state function is checked against NumPy (backprop; closed-form Hessian)"
        " before timing",
        "goals (issues 'jit'): a call and its wait <=1.1x jax's C++ fast path, <=1x with 8"
        " arrays; block_until_ready and device_get alone <=1x jax;"
        " trace and lower stages each <=1x jax; steady state within 5% of jax",
        "ratios are funcarray time / jax time: lower is better",
    ]


def main(argv: list[str] | None = None) -> int:
    args = make_parser(__doc__.splitlines()[0]).parse_args(argv)
    settings = Settings.from_args(args)
    heavy = scaled(settings, max_repeats=11, max_warmup_calls=2)
    info = machine_info()  # before timing, so the load average is not our own
    libs = load_libs()
    import funcarray as fa

    jax_platform = None
    if libs["jax"] is not None:
        import jax

        jax_platform = jax.default_backend()
    overhead_ns = call_overhead_ns(settings)

    rows = bench_call(libs, settings)
    rows += bench_first_call(libs, settings)
    rows += bench_steady(libs, heavy)
    if libs["jax"] is None:
        rows[0].notes.append("jax is not importable: its column is empty")

    print_report("funcarray jit benchmark (against jax.jit)",
                 header_lines(info, settings, heavy, overhead_ns, jax_platform,
                              fa.default_backend()),
                 rows, IMPLEMENTATIONS, LABELS)
    if args.json:
        meta = {**info, "jax_platform": jax_platform, "quick": settings.quick,
                "repeats": settings.repeats, "steady_repeats": heavy.repeats,
                "min_sample_ns": settings.min_sample_ns, "call_overhead_ns": overhead_ns}
        write_json(args.json, rows, IMPLEMENTATIONS, meta)
        print(f"results written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
