"""Eager-mode benchmark: funcarray against NumPy and jax eager, side by side.

Measures per-call medians of small and large elementwise ops, a 20-op chain, a Python-scalar
operand, a plain Python RNN loop (indexing, matmuls, tanh), and interpreter start-up, and
states the issue's goals next to the measured ratios (funcarray time / NumPy time and
funcarray time / jax time; lower is better). Verdicts are information only: the script exits
0 whatever the numbers are.

Usage:
    python bench/bench_eager.py            # full run, a few minutes at most
    python bench/bench_eager.py --quick    # under a minute on 2 cores
    python bench/bench_eager.py --quick --json results.json
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from _harness import (
    Goal,
    Row,
    Settings,
    call_overhead_ns,
    machine_info,
    make_parser,
    measure,
    medians,
    noise_notes,
    print_report,
    time_startup,
    write_json,
)

IMPLEMENTATIONS = ("funcarray", "numpy", "jax")
LABELS = {"funcarray": "funcarray", "numpy": "NumPy", "jax": "jax"}

# The goals. A ratio is funcarray time / reference time.
SMALL_OP_GOALS = (
    Goal("numpy", 3.0, "<=3x NumPy (floor 5x)", floor=5.0),
    Goal("jax", 0.2, ">=5x faster than jax"),
)
# "Equal to NumPy" at a million elements, with 10% allowed for noise.
LARGE_OP_GOALS = (Goal("numpy", 1.1, "=NumPy (<=1.1x)"),)
STARTUP_GOALS = (Goal("numpy", 2.0, "<=2x NumPy"),)
RNN_GOALS = (Goal("numpy", 2.0, "<=2x NumPy"),)  # issue 22's Python RNN loop

STARTUP_PROGRAMS = {
    "funcarray": "import funcarray.numpy as fnp; fnp.ones(3) + 1",
    "numpy": "import numpy as np; np.ones(3) + 1",
    "jax": "import jax.numpy as jnp; jnp.ones(3) + 1",
}


# --- the implementations ----------------------------------------------------------------------
@dataclass(frozen=True)
class Backend:
    """How one library is driven: its namespace, how inputs are made, how results are awaited."""

    name: str
    ns: object  # module with sin, tanh, exp
    put: Callable[[np.ndarray], object]
    # jax dispatches asynchronously, so its timed call must wait for the result.
    needs_block: bool = False


def load_backends() -> tuple[dict[str, Backend | None], str | None]:
    """NumPy, funcarray and (if importable) jax; plus jax's backend platform name."""
    import funcarray.numpy as fnp  # here, so that --help works even if funcarray is broken

    backends: dict[str, Backend | None] = {
        "funcarray": Backend("funcarray", fnp, fnp.asarray),
        "numpy": Backend("numpy", np, lambda value: value),
        "jax": None,
    }
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return backends, None
    backends["jax"] = Backend("jax", jnp, jax.device_put, needs_block=True)
    return backends, jax.default_backend()


# --- the operations ---------------------------------------------------------------------------
# Each builder takes a namespace and two inputs and returns the zero-argument call to time.
# Functions are looked up once, outside the timed call, identically for every library.
def build_add(ns, x, y):
    return lambda: x + y


def build_sin(ns, x, y):
    sin = ns.sin
    return lambda: sin(x)


def build_scalar_mul(ns, x, y):
    return lambda: x * 2.0


def build_chain(ns, x, y):
    """20 elementwise ops: 4 x (add, mul, sin, tanh, exp); values stay within about [0, 3]."""
    sin, tanh, exp = ns.sin, ns.tanh, ns.exp

    def chain():
        z = x
        for _ in range(4):
            z = exp(tanh(sin((z + y) * y)))
        return z

    return chain


RNN_HIDDEN = 128


def build_rnn(ns, x, y):
    """A plain Python RNN loop, ``h = tanh(h @ w + xs[t] @ u)``, 128 steps of hidden size 128
    (issue 22's: indexing, two matmuls, an add and a tanh a step); ``x`` gives the weights,
    ``y`` the inputs."""
    tanh, n = ns.tanh, RNN_HIDDEN
    w = x.reshape(n, n) * 0.1
    u = w.T
    xs = y.reshape(n, n)
    h0 = xs[0] * 0.0

    def loop():
        h = h0
        for t in range(n):
            h = tanh(h @ w + xs[t] @ u)
        return h

    return loop


@dataclass(frozen=True)
class Case:
    name: str
    size: int
    build: Callable
    goals: tuple[Goal, ...]


CASES = (
    Case("x + y", 4, build_add, SMALL_OP_GOALS),
    Case("x + y", 1_000, build_add, SMALL_OP_GOALS),
    Case("x + y", 1_000_000, build_add, LARGE_OP_GOALS),
    Case("sin(x)", 4, build_sin, SMALL_OP_GOALS),
    Case("sin(x)", 1_000, build_sin, SMALL_OP_GOALS),
    Case("sin(x)", 1_000_000, build_sin, LARGE_OP_GOALS),
    Case("x * 2.0", 4, build_scalar_mul, SMALL_OP_GOALS),
    Case("20-op chain", 4, build_chain, SMALL_OP_GOALS),
    Case("20-op chain", 1_000, build_chain, SMALL_OP_GOALS),
    Case("Python RNN loop, 128 steps, H=128", RNN_HIDDEN * RNN_HIDDEN, build_rnn, RNN_GOALS),
)


def make_inputs(size: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(size)
    x = rng.uniform(-1.0, 1.0, size).astype(np.float32)
    y = rng.uniform(0.25, 0.75, size).astype(np.float32)
    return x, y


def timed_call(backend: Backend, case: Case, x: np.ndarray, y: np.ndarray) -> Callable:
    """The call to time: the op on this backend's arrays, waiting for the result if async."""
    call = case.build(backend.ns, backend.put(x), backend.put(y))
    if backend.needs_block:
        return lambda: call().block_until_ready()
    return call


def check_results(calls: dict[str, Callable | None]) -> list[str]:
    """Run each call once and compare with NumPy, so no row times a wrong computation."""
    expected = np.asarray(calls["numpy"]())
    notes = []
    for name, call in calls.items():
        if call is None or name == "numpy":
            continue
        got = np.asarray(call())
        if got.dtype != expected.dtype:
            notes.append(f"{name} returned {got.dtype}, NumPy {expected.dtype}")
        elif not np.allclose(got, expected, rtol=1e-4, atol=1e-5):
            notes.append(f"{name} result differs from NumPy's")
    return notes


def bench_case(case: Case, backends: dict[str, Backend | None], settings: Settings) -> Row:
    x, y = make_inputs(case.size)
    calls = {name: None if backend is None else timed_call(backend, case, x, y)
             for name, backend in backends.items()}
    notes = check_results(calls)  # also the first call: jax compiles here, outside the timing
    timings = measure(calls, settings)
    notes += noise_notes(timings, goals=case.goals)
    return Row(f"{case.name} ({case.size:,})", medians(timings), case.goals, notes)


def bench_startup(backends: dict[str, Backend | None], settings: Settings) -> Row:
    programs = {name: code if backends[name] is not None else None
                for name, code in STARTUP_PROGRAMS.items()}
    times, notes = time_startup(programs, settings)
    return Row("start-up: python -c import+ones(3)+1", times, STARTUP_GOALS, notes)


# --- report -----------------------------------------------------------------------------------
def header_lines(info: dict, jax_platform: str | None, settings: Settings,
                 overhead_ns: float) -> list[str]:
    env = ", ".join(f"{name}={info[name] if info[name] is not None else '(unset)'}"
                    for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"))
    mode = "quick" if settings.quick else "full"
    return [
        f"machine: {info['cpu_model']}, {info['cpu_count']} cores "
        f"({info['usable_cores']} usable); 1-min load average before the run:"
        f" {info['load_average_1min']} (other processes add noise)",
        f"python {info['python']}, numpy {info['numpy']}, jax {info['jax'] or '(missing)'}"
        f" on {jax_platform or '-'}, funcarray {info['funcarray']}"
        f" (commit {info['git_commit'] or '?'})",
        f"env: {env} (may be set on this machine for BLAS; left as they are, since these"
        " elementwise benchmarks do not use BLAS)",
        f"mode: {mode}; median of {settings.repeats} interleaved samples, each >= "
        f"{settings.min_sample_ns / 1e6:.0f} ms; timing-loop overhead "
        f"({overhead_ns:.0f} ns/call) subtracted; float32 inputs",
        "jax: jax.numpy on jax.device_put arrays, .block_until_ready() on each result (the"
        " chain: on its final result), warmed up so compile time is excluded",
        "start-up: median wall time of a fresh `python -c` over"
        f" {settings.startup_runs} runs (after one unmeasured run each)",
        "goals (issue 'Benchmark'): per small op <=3x NumPy (5x is the floor) and >=5x faster"
        " than jax eager (funcarray/jax <= 0.2x); equal to NumPy at 1e6 elements;"
        " start-up within 2x of NumPy's",
        "ratios are funcarray time / other time: lower is better",
    ]


def main(argv: list[str] | None = None) -> int:
    args = make_parser(__doc__.splitlines()[0]).parse_args(argv)
    settings = Settings.from_args(args)
    info = machine_info()  # before timing, so the load average is not our own
    backends, jax_platform = load_backends()
    overhead_ns = call_overhead_ns(settings)
    rows = [bench_case(case, backends, settings) for case in CASES]
    rows.append(bench_startup(backends, settings))
    if backends["jax"] is None:
        rows[0].notes.append("jax is not importable: its columns are empty")

    print_report("funcarray eager-mode benchmark",
                 header_lines(info, jax_platform, settings, overhead_ns),
                 rows, IMPLEMENTATIONS, LABELS)
    if args.json:
        meta = {**info, "jax_platform": jax_platform, "quick": settings.quick,
                "repeats": settings.repeats, "min_sample_ns": settings.min_sample_ns,
                "startup_runs": settings.startup_runs, "call_overhead_ns": overhead_ns}
        write_json(args.json, rows, IMPLEMENTATIONS, meta)
        print(f"results written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
