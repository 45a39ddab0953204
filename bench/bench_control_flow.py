"""Control-flow benchmark: a 1,000-step RNN through ``scan``, funcarray against jax and NumPy.

An Elman RNN (hidden 128, input 32, float32, one sequence of 1,000 steps) written once with
``lax.scan``: ``h = tanh(x_t @ wx + h @ wh + b)``, the loss the mean of the squared hidden
states. Measured: the first call of the jitted forward pass and of the jitted gradient
(trace, lower, compile and one run, with every cache cleared), their steady-state run time,
and the eager forward pass (no jit) against a NumPy Python loop and jax's eager ``scan``.
Ratios are funcarray time / other time (lower is better), next to the issue's goals;
verdicts are information only: the script exits 0 whatever the numbers. A row funcarray
cannot run shows ``n/a`` with the error instead of stopping the script.

Usage:
    python bench/bench_control_flow.py            # full run, a few minutes on 2 cores
    python bench/bench_control_flow.py --quick    # fewer samples, noisier
    python bench/bench_control_flow.py --quick --json results.json
"""

from __future__ import annotations

import functools
import os
import sys

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
from bench_jit import load_libs as load_jit_libs
from bench_jit import put_tree, ready
from bench_transforms import close as close_leaves

IMPLEMENTATIONS = ("funcarray", "numpy", "jax")
LABELS = {"funcarray": "funcarray", "numpy": "NumPy loop", "jax": "jax"}

STEPS, HIDDEN, INPUT = 1000, 128, 32

# The goals. A ratio is funcarray time / the other's time.
COMPILE_GOALS = (Goal("jax", 1.0, "<=1x jax"),)
RUN_GOALS = (Goal("jax", 1.05, "<=1.05x jax (within 5%)"),)
EAGER_GOALS = (Goal("numpy", 2.0, "<=2x NumPy loop"),)


# --- the model --------------------------------------------------------------------------------
def make_data(seed=0):
    rng = np.random.default_rng(seed)
    params = {"wx": rng.standard_normal((INPUT, HIDDEN)) / np.sqrt(INPUT),
              "wh": rng.standard_normal((HIDDEN, HIDDEN)) / np.sqrt(HIDDEN),
              "b": np.zeros(HIDDEN)}
    params = {k: v.astype(np.float32) for k, v in params.items()}
    xs = rng.standard_normal((STEPS, INPUT), np.float32)
    return params, xs


def rnn_states(ns, scan, params, xs):
    """The hidden states of every step, ``[STEPS, HIDDEN]``."""
    def cell(h, x):
        h = ns.tanh(x @ params["wx"] + h @ params["wh"] + params["b"])
        return h, h

    return scan(cell, ns.zeros(HIDDEN, dtype=xs.dtype), xs)[1]


def rnn_loss(ns, scan, params, xs):
    return (rnn_states(ns, scan, params, xs) ** 2).mean()


def numpy_states(params, xs):
    """The reference forward pass: a Python loop over NumPy."""
    h, states = np.zeros(HIDDEN, xs.dtype), []
    for x in xs:
        h = np.tanh(x @ params["wx"] + h @ params["wh"] + params["b"])
        states.append(h)
    return np.stack(states)


def numpy_grads(params, xs):
    """The reference gradient of ``rnn_loss``: backpropagation through time, by hand."""
    hs = numpy_states(params, xs)
    grads = {k: np.zeros_like(v) for k, v in params.items()}
    carry = np.zeros(HIDDEN, xs.dtype)  # d loss / d h_t through the later steps
    for t in range(STEPS - 1, -1, -1):
        dz = (carry + 2.0 * hs[t] / hs.size) * (1.0 - hs[t] ** 2)
        grads["wx"] += np.outer(xs[t], dz)
        grads["wh"] += np.outer(hs[t - 1] if t else np.zeros(HIDDEN, xs.dtype), dz)
        grads["b"] += dz
        carry = dz @ params["wh"].T
    return grads


def close(got, expected) -> bool:
    """``bench_transforms.close`` for results that may be dicts (the gradients)."""
    def as_list(tree):
        return [tree[k] for k in sorted(tree)] if isinstance(tree, dict) else tree
    return close_leaves(as_list(got), as_list(expected))


def load_libs():
    """{"funcarray": lib, "jax": lib or None}: bench_jit's libraries plus their ``scan``."""
    libs = load_jit_libs()
    from funcarray import lax

    libs["funcarray"].scan = lax.scan
    if libs["jax"] is not None:
        import jax

        libs["jax"].scan = jax.lax.scan
    return libs


def forward_fn(lib):
    return functools.partial(rnn_states, lib.ns, lib.scan)


def grad_fn(lib):
    return lib.grad(functools.partial(rnn_loss, lib.ns, lib.scan))


def device_args(lib):
    params, xs = make_data()
    return put_tree(lib, params), lib.put(xs)


# --- jitted: first call and steady state ------------------------------------------------------
def bench_first_call(libs, settings: Settings) -> list[Row]:
    repeats = 3 if settings.quick else 7
    rows = []
    for label, make in (("forward", forward_fn), ("gradient", grad_fn)):
        notes: list[str] = []
        cases = {"funcarray": None, "numpy": None, "jax": None}
        for impl in ("funcarray", "jax"):
            lib = libs[impl]
            if lib is None:
                continue
            args = guarded(impl, functools.partial(device_args, lib), notes)
            if args is not None:
                cases[impl] = (functools.partial(_fresh_jit, lib, make),
                               functools.partial(_call, args=args))
        timings, cold_notes = time_cold(cases, repeats)
        rows.append(Row(f"jit first call, {label} (trace+lower+compile+run)",
                        medians(timings), COMPILE_GOALS, notes + cold_notes))
    return rows


def _fresh_jit(lib, make):
    lib.clear_caches()
    return lib.jit(make(lib))


def _call(fun, args):
    out = fun(*args)
    ready(out)  # (returns a dict's values as a list: keep the dict for the checks)
    return out


def bench_steady(libs, settings: Settings) -> list[Row]:
    params, xs = make_data()
    rows = []
    for label, make, expected in (("forward", forward_fn, numpy_states(params, xs)),
                                  ("gradient", grad_fn, numpy_grads(params, xs))):
        notes: list[str] = []
        calls = {"funcarray": None, "numpy": None, "jax": None}
        for impl in ("funcarray", "jax"):
            lib = libs[impl]
            if lib is not None:
                calls[impl] = guarded(impl, functools.partial(_checked_jit, lib, make,
                                                              expected, impl, notes), notes)
        timings = measure(calls, settings)
        rows.append(Row(f"jit run, {label}", medians(timings), RUN_GOALS,
                        notes + noise_notes(timings, goals=RUN_GOALS)))
    return rows


def _checked_jit(lib, make, expected, impl, notes):
    """The jitted call (compiled and checked against NumPy here), or None if it differs."""
    fun, args = lib.jit(make(lib)), device_args(lib)
    if not close(_call(fun, args), expected):
        notes.append(f"{impl}: n/a (its result differs from NumPy's)")
        return None
    return lambda: _call(fun, args)


# --- eager forward ----------------------------------------------------------------------------
def bench_eager(libs, settings: Settings) -> Row:
    params, xs = make_data()
    expected = numpy_states(params, xs)
    notes: list[str] = []
    calls = {"funcarray": None, "numpy": lambda: numpy_states(params, xs), "jax": None}
    for impl in ("funcarray", "jax"):
        lib = libs[impl]
        if lib is None:
            continue
        args = device_args(lib)
        fun = forward_fn(lib)
        call = functools.partial(_call, fun, args)
        result = guarded(impl, call, notes)
        if result is not None and not close(result, expected):
            notes.append(f"{impl}: n/a (its result differs from NumPy's)")
            result = None
        calls[impl] = None if result is None else call
    timings = measure(calls, settings)
    return Row("eager forward (no jit)", medians(timings), EAGER_GOALS,
               notes + noise_notes(timings, goals=EAGER_GOALS))


# --- report -----------------------------------------------------------------------------------
def header_lines(info: dict, settings: Settings, overhead_ns: float, load: tuple,
                 jax_platform: str | None, fa_platform: str) -> list[str]:
    mode = "quick" if settings.quick else "full"
    return [
        f"machine: {info['cpu_model']}, {info['cpu_count']} cores "
        f"({info['usable_cores']} usable); load average (1, 5, 15 min) before the run:"
        f" {load} (other processes add noise)",
        f"python {info['python']}, numpy {info['numpy']}, jax {info['jax'] or '(missing)'}"
        f" on {jax_platform or '-'}, funcarray {info['funcarray']} on {fa_platform}"
        f" (commit {info['git_commit'] or '?'})",
        f"model: Elman RNN, {STEPS} steps of lax.scan, hidden {HIDDEN}, input {INPUT}, one"
        " sequence, float32; loss = mean of the squared hidden states",
        f"mode: {mode}; steady and eager rows: median of {settings.repeats} samples"
        f" (timing-loop overhead {overhead_ns:.0f} ns/call subtracted); first-call rows:"
        f" median of {3 if settings.quick else 7} cold runs, all caches cleared before each",
        "every result is checked against NumPy (a Python loop; hand-written backpropagation"
        " through time for the gradient) before it is timed",
        "goals (issue 5): jitted first call <=1x jax, jitted run within 5% of jax, eager"
        " forward <=2x a NumPy Python loop (jax eager recompiles its scan body per call)",
        "ratios are funcarray time / other time: lower is better",
    ]


def main(argv: list[str] | None = None) -> int:
    args = make_parser(__doc__.splitlines()[0]).parse_args(argv)
    settings = Settings.from_args(args)
    heavy = scaled(settings, max_repeats=11, max_warmup_calls=2)
    load = tuple(round(v, 2) for v in os.getloadavg())
    info = machine_info()  # before timing, so the load average is not our own
    libs = load_libs()
    import funcarray as fa

    jax_platform = None
    if libs["jax"] is not None:
        import jax

        jax_platform = jax.default_backend()
    overhead_ns = call_overhead_ns(settings)

    rows = bench_first_call(libs, settings)
    rows += bench_steady(libs, heavy)
    rows.append(bench_eager(libs, heavy))
    if libs["jax"] is None:
        rows[0].notes.append("jax is not importable: its column is empty")

    print_report("funcarray control-flow benchmark (a 1,000-step RNN through scan)",
                 header_lines(info, heavy, overhead_ns, load, jax_platform,
                              fa.default_backend()),
                 rows, IMPLEMENTATIONS, LABELS)
    if args.json:
        meta = {**info, "load_average": load, "jax_platform": jax_platform,
                "quick": settings.quick, "repeats": heavy.repeats,
                "min_sample_ns": settings.min_sample_ns, "call_overhead_ns": overhead_ns}
        write_json(args.json, rows, IMPLEMENTATIONS, meta)
        print(f"results written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
