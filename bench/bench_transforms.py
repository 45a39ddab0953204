"""Transformations benchmark (eager, no jit): funcarray against NumPy backprop and jax eager.

Measures, without any jit, the medians of: an MLP training step (784-512-512-10, batch 128:
``grad`` of a softmax cross-entropy plus an SGD update) against hand-written NumPy backprop and
jax; the first such step in a fresh process (jax compiles every primitive on first use);
per-example gradients ``vmap(grad(loss))``; and the ``hessian`` of a function of a 100-vector.
torch.func gets a column when torch is importable. Ratios are funcarray time / other time
(lower is better); verdicts are information only: the script exits 0 whatever the numbers.

"jax eager" means jax functions called without ``jax.jit``: jax's default op-by-op dispatch,
in which each primitive is compiled by XLA once per shape and then cached. ``jax.disable_jit()``
is not used: jax documents it as a debugging mode that also un-jits jax.numpy's internals.

Usage:
    python bench/bench_transforms.py            # full run, a few minutes on 2 cores
    python bench/bench_transforms.py --quick    # fewer samples, noisier
    python bench/bench_transforms.py --quick --json results.json
"""

from __future__ import annotations

import argparse
import functools
import inspect
import sys
import types
from collections.abc import Callable

import numpy as np
from _harness import (
    Goal,
    Row,
    Settings,
    guarded,
    machine_info,
    make_parser,
    measure,
    medians,
    noise_notes,
    print_report,
    scaled,
    time_child_programs,
    write_json,
)

LABELS = {"funcarray": "funcarray", "numpy": "NumPy", "jax": "jax", "torch": "torch.func"}

SIZES = (784, 512, 512, 10)
BATCH = 128
LEARNING_RATE = 0.01
HESSIAN_SIZE = 100

# The goals. A ratio is funcarray time / reference time.
STEP_GOALS = (Goal("numpy", 1.5, "<=1.5x NumPy backprop"),)
FIRST_STEP_GOALS = (Goal("jax", 0.1, "<=0.1x jax eager"),)
PER_EXAMPLE_GOALS = (Goal("jax", 0.25, "<=0.25x jax eager"),)
HESSIAN_GOALS = (Goal("jax", 1.0, "<=1x jax eager"),)


# --- the model: library-neutral code (its source is also run in the fresh-process children) ---
def mlp_loss(ns, stop_gradient, params, x, y):
    """Mean softmax cross-entropy of a ReLU MLP; ``x`` is (batch, 784) or one example (784,).

    ``ns`` is the library's NumPy-like namespace; only maximum, max, sum, mean, log and exp
    are used, so every library runs the same computation.
    """
    h = x
    for w, b in params[:-1]:
        h = ns.maximum(h @ w + b, 0.0)
    w, b = params[-1]
    z = h @ w + b
    z = z - stop_gradient(ns.max(z, axis=-1, keepdims=True))
    log_probs = z - ns.log(ns.sum(ns.exp(z), axis=-1, keepdims=True))
    return -ns.mean(ns.sum(log_probs * y, axis=-1))


def make_mlp_data(seed=0):
    """NumPy float32 parameters [(w, b), ...], a batch ``x`` and one-hot labels ``y``."""
    rng = np.random.default_rng(seed)
    params = [(rng.normal(0.0, 1.0 / np.sqrt(m), (m, n)).astype(np.float32),
               rng.normal(0.0, 0.1, n).astype(np.float32))
              for m, n in zip(SIZES[:-1], SIZES[1:])]
    x = rng.normal(size=(BATCH, SIZES[0])).astype(np.float32)
    y = np.eye(SIZES[-1], dtype=np.float32)[rng.integers(0, SIZES[-1], BATCH)]
    return params, x, y


def make_train_step(lib):
    """``step(params, x, y) -> params - LEARNING_RATE * grad(loss)``, in ``lib``."""
    grad_loss = lib.grad(functools.partial(mlp_loss, lib.ns, lib.stop_gradient))

    def step(params, x, y):
        grads = grad_loss(params, x, y)
        return lib.tree_map(lambda p, g: p - LEARNING_RATE * g, params, grads)

    return step


def hessian_target(ns, a, x):
    """A scalar function of a 100-vector with a dense Hessian: sum(tanh(a @ x) ** 2)."""
    return ns.sum(ns.tanh(a @ x) ** 2)


def make_hessian_data(seed=1):
    rng = np.random.default_rng(seed)
    a = (rng.normal(size=(HESSIAN_SIZE, HESSIAN_SIZE)) / np.sqrt(HESSIAN_SIZE))
    return a.astype(np.float32), rng.normal(size=HESSIAN_SIZE).astype(np.float32)


# --- the libraries, as namespaces with one interface ------------------------------------------
# Each builder imports its library itself: the fresh-process children run these same functions.
def funcarray_lib():
    import types

    import funcarray as fa
    import funcarray.numpy as fnp

    # Eager funcarray computes synchronously: its results are ready when returned.
    return types.SimpleNamespace(
        ns=fnp, stop_gradient=fa.stop_gradient, grad=fa.grad, vmap=fa.vmap,
        hessian=fa.hessian, tree_map=fa.tree.map, put=fnp.asarray, block=lambda tree: tree)


def jax_lib():
    import types

    import jax
    import jax.numpy as jnp

    return types.SimpleNamespace(
        ns=jnp, stop_gradient=jax.lax.stop_gradient, grad=jax.grad, vmap=jax.vmap,
        hessian=jax.hessian, tree_map=jax.tree.map, put=jax.device_put,
        block=jax.block_until_ready)


class _TorchNamespace:
    """The few NumPy-style functions ``mlp_loss`` and ``hessian_target`` use, for torch."""

    def __init__(self, torch):
        self._torch = torch
        self.log, self.exp, self.tanh = torch.log, torch.exp, torch.tanh

    def maximum(self, a, b):
        return self._torch.clamp_min(a, b)

    def max(self, a, axis, keepdims=False):
        return self._torch.amax(a, dim=axis, keepdim=keepdims)

    def sum(self, a, axis=None, keepdims=False):
        return a.sum() if axis is None else a.sum(dim=axis, keepdim=keepdims)

    def mean(self, a):
        return a.mean()


def torch_lib():
    import types

    import torch
    import torch.func
    import torch.utils._pytree as pytree

    return types.SimpleNamespace(
        ns=_TorchNamespace(torch), stop_gradient=lambda t: t.detach(), grad=torch.func.grad,
        vmap=lambda f, in_axes: torch.func.vmap(f, in_dims=in_axes),
        hessian=torch.func.hessian, tree_map=pytree.tree_map,
        put=lambda value: torch.from_numpy(np.array(value)), block=lambda tree: tree)


def load_libs() -> dict[str, types.SimpleNamespace | None]:
    """funcarray, and jax and torch where importable (funcarray imported here, so that --help
    works even if it is broken)."""
    libs: dict[str, types.SimpleNamespace | None] = {"funcarray": funcarray_lib()}
    for name, builder in (("jax", jax_lib), ("torch", torch_lib)):
        try:
            libs[name] = builder()
        except ImportError:
            libs[name] = None
    return libs


# --- the NumPy baseline: hand-written backprop of the same MLP --------------------------------
def numpy_grads(params, x, y):
    """The gradient of ``mlp_loss`` with respect to ``params``, by hand (batched ``x``)."""
    activations = [x]
    h = x
    for w, b in params[:-1]:
        h = np.maximum(h @ w + b, 0.0)
        activations.append(h)
    w, b = params[-1]
    z = h @ w + b
    z = z - z.max(axis=-1, keepdims=True)
    probs = np.exp(z)
    probs /= probs.sum(axis=-1, keepdims=True)
    # d loss / d z for a mean over the batch of -sum(y * log_softmax(z)).
    delta = (probs * y.sum(axis=-1, keepdims=True) - y) / np.float32(x.shape[0])
    grads = []
    for layer in range(len(params) - 1, -1, -1):
        w, _ = params[layer]
        a = activations[layer]
        grads.append((a.T @ delta, delta.sum(axis=0)))
        if layer:
            delta = (delta @ w.T) * (a > 0)
    return grads[::-1]


def numpy_train_step(params, x, y):
    grads = numpy_grads(params, x, y)
    return [(w - LEARNING_RATE * gw, b - LEARNING_RATE * gb)
            for (w, b), (gw, gb) in zip(params, grads)]


def numpy_hessian(a, x):
    """The Hessian of ``hessian_target``: a.T diag(2 (1 - t^2)(1 - 3 t^2)) a, t = tanh(a x)."""
    t = np.tanh(a @ x)
    return a.T @ ((2 * (1 - t**2) * (1 - 3 * t**2))[:, None] * a)


# --- checks -----------------------------------------------------------------------------------
def leaves(tree) -> list[np.ndarray]:
    """The arrays of a nested list/tuple, as NumPy (works for every library's results)."""
    if isinstance(tree, (list, tuple)):
        return [leaf for item in tree for leaf in leaves(item)]
    if hasattr(tree, "detach"):  # a torch tensor
        tree = tree.detach().numpy()
    return [np.asarray(tree)]


def close(got, expected) -> bool:
    """float32 results agree to 1e-3, relative to each array's largest magnitude."""
    got, expected = leaves(got), leaves(expected)
    return len(got) == len(expected) and all(
        g.shape == e.shape and np.allclose(g, e, rtol=1e-3, atol=1e-3 * float(np.abs(e).max()))
        for g, e in zip(got, expected))


def check(name: str, call: Callable | None, expected, notes: list[str]) -> Callable | None:
    """Run ``call`` once (this also warms it up) and compare with ``expected``; a failure or
    a wrong result drops the implementation from the row with a note."""
    if call is None:
        return None
    result = guarded(name, call, notes)
    if result is None:
        return None
    if not close(result, expected):
        notes.append(f"{name}: n/a (its result differs from the reference)")
        return None
    return call


def bench_row(name: str, calls: dict[str, Callable | None], expected, goals, settings,
              notes: list[str]) -> Row:
    live = {impl: check(impl, call, expected, notes) for impl, call in calls.items()}
    timings = measure(live, settings)
    return Row(name, medians(timings), goals, notes + noise_notes(timings, goals=goals))


# --- the rows ---------------------------------------------------------------------------------
def bench_train_step(libs, settings: Settings) -> Row:
    params, x, y = make_mlp_data()
    expected = numpy_grads(params, x, y)
    notes: list[str] = []
    if libs["jax"] is not None:
        # The baseline must compute the same gradient, or the comparison is meaningless.
        jax = libs["jax"]
        got = jax.grad(functools.partial(mlp_loss, jax.ns, jax.stop_gradient))(
            jax.tree_map(jax.put, params), jax.put(x), jax.put(y))
        assert close(got, expected), "the NumPy backprop disagrees with jax.grad"
    calls: dict[str, Callable | None] = {"numpy": None}
    for impl, lib in libs.items():
        calls[impl] = guarded(impl, functools.partial(_grad_and_step_calls, lib, params, x, y),
                              notes) if lib is not None else None
    # Check each library's gradient, then time its full step (gradient + update).
    checked = {impl: None if pair is None else check(impl, pair[0], expected, notes)
               for impl, pair in calls.items() if impl != "numpy"}
    steps = {impl: None if checked[impl] is None else calls[impl][1] for impl in checked}
    steps["numpy"] = lambda: numpy_train_step(params, x, y)
    timings = measure(steps, settings)
    name = f"MLP step {'-'.join(map(str, SIZES))}, batch {BATCH}"
    return Row(name, medians(timings), STEP_GOALS,
               notes + noise_notes(timings, goals=STEP_GOALS) + [_page_fault_note(steps)])


# glibc settings under which freed arrays stay in the process's heap: no step faults its
# temporaries back in (see _page_fault_note). Both libraries run under them in one child.
NO_FAULT_ENV = {"MALLOC_MMAP_THRESHOLD_": "268435456", "MALLOC_TRIM_THRESHOLD_": "536870912"}


def bench_train_step_without_faults(settings: Settings) -> Row:
    """The MLP step row again, in a child process whose allocator never returns memory to
    the kernel: the comparison without page-fault costs, whatever regime this process is in.
    (jax is left out: its figures would not change the verdict, and it adds a minute.)"""
    import json
    import os
    import subprocess

    name = "MLP step, no page faults (glibc keeps freed memory)"
    command = [sys.executable, __file__, "--step-row-only"] + (
        ["--quick"] if settings.quick else [])
    done = subprocess.run(command, capture_output=True, text=True, check=False,
                          env={**os.environ, **NO_FAULT_ENV})
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()
        return Row(name, {"funcarray": None, "numpy": None}, STEP_GOALS,
                   [f"child failed: {tail[-1] if tail else done.returncode}"])
    record = json.loads(done.stdout.strip().splitlines()[-1])
    return Row(name, record["times_ns"], STEP_GOALS, record["notes"])


def _step_row_only(settings: Settings) -> int:
    """The child of ``bench_train_step_without_faults``: prints the row as one JSON line."""
    import json

    row = bench_train_step({"funcarray": funcarray_lib(), "jax": None}, settings)
    print(json.dumps({"times_ns": row.times_ns, "notes": row.notes}))
    return 0


def _page_fault_note(steps: dict) -> str:
    """Minor page faults per step of each library, measured after the timing.

    Whether the C allocator hands a step fresh pages (glibc returns freed arrays of a few
    hundred KB to the kernel, then faults them in again) or recycles its heap depends on the
    process's allocation history, and in a VM each fault is expensive: the same NumPy step
    measured 4-6 ms with few faults and 9-12 ms with many. The ratio moves with it (a step
    with more temporaries pays more faults), so the report says which regime it ran in.
    """
    import resource

    counts = {}
    for impl, step in steps.items():
        if step is None:
            continue
        step()
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        for _ in range(5):
            step()
        counts[impl] = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 5
    listed = ", ".join(f"{impl} {n:.0f}" for impl, n in counts.items())
    return f"minor page faults per step (allocator regime, see _page_fault_note): {listed}"


def _grad_and_step_calls(lib, params, x, y):
    """(the gradient call, the timed training-step call) on ``lib``'s arrays."""
    lp, lx, ly = lib.tree_map(lib.put, params), lib.put(x), lib.put(y)
    grad_loss = lib.grad(functools.partial(mlp_loss, lib.ns, lib.stop_gradient))
    step = make_train_step(lib)
    return (lambda: lib.block(grad_loss(lp, lx, ly)),
            lambda: lib.block(step(lp, lx, ly)))


def bench_per_example(libs, settings: Settings) -> Row:
    params, x, y = make_mlp_data()
    # Reference: NumPy backprop on each example alone (a batch of one).
    per_example = [numpy_grads(params, x[i:i + 1], y[i:i + 1]) for i in range(BATCH)]
    expected = [tuple(np.stack([g[layer][k] for g in per_example]) for k in range(2))
                for layer in range(len(params))]
    notes: list[str] = []
    calls: dict[str, Callable | None] = {"numpy": None}
    for impl, lib in libs.items():
        calls[impl] = None if lib is None else guarded(
            impl, functools.partial(_per_example_call, lib, params, x, y), notes)
    return bench_row(f"per-example grads vmap(grad), batch {BATCH}", calls, expected,
                     PER_EXAMPLE_GOALS, settings, notes)


def _per_example_call(lib, params, x, y):
    lp, lx, ly = lib.tree_map(lib.put, params), lib.put(x), lib.put(y)
    loss = functools.partial(mlp_loss, lib.ns, lib.stop_gradient)
    per_example = lib.vmap(lib.grad(loss), in_axes=(None, 0, 0))
    return lambda: lib.block(per_example(lp, lx, ly))


def bench_hessian(libs, settings: Settings) -> Row:
    a, v = make_hessian_data()
    notes: list[str] = []
    calls: dict[str, Callable | None] = {"numpy": None}
    for impl, lib in libs.items():
        calls[impl] = None if lib is None else guarded(
            impl, functools.partial(_hessian_call, lib, a, v), notes)
    return bench_row(f"hessian, {HESSIAN_SIZE}-vector", calls, numpy_hessian(a, v),
                     HESSIAN_GOALS, settings, notes)


def _hessian_call(lib, a, v):
    la, lv = lib.put(a), lib.put(v)
    hess = lib.hessian(functools.partial(hessian_target, lib.ns, la))
    return lambda: lib.block(hess(lv))


# --- the first step in a fresh process --------------------------------------------------------
CHILD_IMPORTS = {
    "funcarray": "import funcarray\nimport funcarray.numpy",
    "jax": "import jax\nimport jax.numpy",
    "torch": "import torch\nimport torch.func\nimport torch.utils._pytree",
}
CHILD_LIBS = {"funcarray": funcarray_lib, "jax": jax_lib, "torch": torch_lib}


def first_step_program(impl: str) -> str:
    """``python -c`` code: imports, then (timed from here) data + one training step; prints
    the elapsed nanoseconds. The functions are this module's own, by source."""
    sources = [mlp_loss, make_mlp_data, make_train_step, CHILD_LIBS[impl]]
    if impl == "torch":
        sources.insert(0, _TorchNamespace)
    constants = "\n".join(f"{k} = {globals()[k]!r}" for k in ("SIZES", "BATCH", "LEARNING_RATE"))
    return "\n".join([
        "import functools, time, types",
        "import numpy as np",
        CHILD_IMPORTS[impl],
        "_start = time.perf_counter_ns()",
        constants,
        *(inspect.getsource(source) for source in sources),
        f"lib = {CHILD_LIBS[impl].__name__}()",
        "params, x, y = make_mlp_data()",
        "params = lib.tree_map(lib.put, params)",
        "lib.block(make_train_step(lib)(params, lib.put(x), lib.put(y)))",
        "print(time.perf_counter_ns() - _start)",
    ])


def bench_first_step(libs, settings: Settings) -> list[Row]:
    programs = {impl: None if libs.get(impl) is None else first_step_program(impl)
                for impl in libs}
    wall, inner, notes = time_child_programs({"numpy": None, **programs},
                                             settings.startup_runs)
    return [
        Row("first MLP step, fresh process (after imports)", inner, FIRST_STEP_GOALS, notes),
        Row("first MLP step, fresh process (start-up+imports)", wall, ()),
    ]


# --- report -----------------------------------------------------------------------------------
def header_lines(info: dict, settings: Settings, heavy: Settings, libs) -> list[str]:
    import os

    mode = "quick" if settings.quick else "full"
    torch_version = _version("torch") if libs.get("torch") is not None else "(missing)"
    return [
        f"machine: {info['cpu_model']}, {info['cpu_count']} cores "
        f"({info['usable_cores']} usable); load average (1, 5, 15 min) before the run:"
        f" {tuple(round(v, 2) for v in os.getloadavg())} (other processes add noise)",
        f"python {info['python']}, numpy {info['numpy']}, jax {info['jax'] or '(missing)'},"
        f" torch {torch_version}, funcarray {info['funcarray']}"
        f" (commit {info['git_commit'] or '?'})",
        f"mode: {mode}; eager only (no jit anywhere); median of {heavy.repeats} interleaved"
        " samples after a checked warm-up call; float32",
        "jax eager: plain calls without jax.jit (op-by-op dispatch, each primitive compiled"
        " once per shape, warmed up so compile time is excluded except in the first-step rows);"
        " jax.block_until_ready on every result",
        "MLP step: grad of mean softmax cross-entropy (ReLU MLP) + SGD update of all params;"
        " NumPy: hand-written forward/backward, checked against jax.grad",
        f"first step: a fresh `python -c` per run, median of {settings.startup_runs}; 'after"
        " imports' is timed by the child (data + one step), 'start-up+imports' is its wall time",
        "each library's result is checked against NumPy once before timing (per-example:"
        " NumPy backprop per example; hessian: the closed form)",
        "ratios are funcarray time / other time: lower is better",
    ]


def _version(module: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(module)
    except metadata.PackageNotFoundError:
        return None


def main(argv: list[str] | None = None) -> int:
    parser = make_parser(__doc__.splitlines()[0])
    parser.add_argument("--step-row-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    settings = Settings.from_args(args)
    # These calls take milliseconds to seconds: fewer samples suffice (see _harness.scaled).
    heavy = scaled(settings, max_repeats=11, max_warmup_calls=1)
    if args.step_row_only:
        return _step_row_only(heavy)
    info = machine_info()  # before timing, so the load average is not our own
    libs = load_libs()
    header = header_lines(info, settings, heavy, libs)
    implementations = ("funcarray", "numpy", "jax") + (("torch",) if libs["torch"] else ())
    libs = {impl: libs[impl] for impl in implementations if impl != "numpy"}

    rows = [bench_train_step(libs, heavy), bench_train_step_without_faults(settings)]
    rows += bench_first_step(libs, settings)
    rows.append(bench_per_example(libs, heavy))
    rows.append(bench_hessian(libs, heavy))
    if libs["jax"] is None:
        rows[0].notes.append("jax is not importable: its column is empty")

    print_report("funcarray transformations benchmark (eager)", header, rows,
                 implementations, LABELS)
    if args.json:
        meta = {**info, "quick": settings.quick, "repeats": heavy.repeats,
                "startup_runs": settings.startup_runs, "torch": _version("torch")}
        write_json(args.json, rows, implementations, meta)
        print(f"results written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
