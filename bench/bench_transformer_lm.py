"""Transformer LM benchmark: a training step of a small GPT-2, funcarray against jax.

The model is ``examples/transformer_lm.py``'s default: ``funcarray.nn.GPT2`` with a
96-character vocabulary, context 64, width 64, 4 blocks of 4 heads (about 0.2M parameters),
on a batch of 8 windows. The step is the mean next-token cross-entropy over the batch (the
model ``vmap``-ed over it), its gradient and an SGD update of every parameter. The jax side
is the same model written here with ``jax.numpy`` (the same operations in the same order:
embeddings, pre-norm blocks with a fused query-key-value projection, causal softmax
attention, tanh-GELU MLP, tied head; ``jax.vmap`` over the batch), started from the same
weights. Measured: the first call of the jitted step (trace, lower, compile, run, with every
cache cleared), its steady-state run time, and the step run eagerly (no jit) against jax's
eager mode. Both steps are checked to give the same loss and parameters before they are
timed. Ratios are funcarray time / jax time (lower is better); verdicts are information
only: the script exits 0 whatever the numbers.

Usage:
    python bench/bench_transformer_lm.py            # full run, a few minutes on 2 cores
    python bench/bench_transformer_lm.py --quick    # fewer samples, noisier
    python bench/bench_transformer_lm.py --quick --json results.json
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

IMPLEMENTATIONS = ("funcarray", "jax")
LABELS = {"funcarray": "funcarray", "jax": "jax"}

VOCAB, CONTEXT, WIDTH, LAYERS, HEADS, BATCH = 96, 64, 64, 4, 4, 8
LEARNING_RATE = 0.1

# The goals. A ratio is funcarray time / jax time.
FIRST_CALL_GOALS = (Goal("jax", 1.10, "<=1.10x jax (within 10%)"),)
STEADY_GOALS = (Goal("jax", 1.05, "<=1.05x jax (within 5%)"),)
EAGER_GOALS = ()


# --- data ----------------------------------------------------------------------------------------
def make_data(seed=0):
    """The initial weights (dotted name -> float32 NumPy array, ``Linear`` layout) and a
    batch of input windows and their targets."""
    import funcarray as fa
    import funcarray.nn as nn

    config = nn.GPT2Config(VOCAB, CONTEXT, WIDTH, LAYERS, HEADS)
    model = nn.GPT2(config, key=fa.random.key(seed))
    weights = {name: np.asarray(p) for name, p in nn.named_parameters(model)}
    rng = np.random.default_rng(seed)
    windows = rng.integers(0, VOCAB, size=(BATCH, CONTEXT + 1)).astype(np.int32)
    return weights, windows[:, :-1], windows[:, 1:]


# --- funcarray -----------------------------------------------------------------------------------
def funcarray_case():
    """``(step, args)``: the step over the ``nn.GPT2`` module and its device arguments."""
    import funcarray as fa
    import funcarray.nn as nn
    import funcarray.numpy as fnp

    weights, inputs, targets = make_data()
    like = nn.GPT2(nn.GPT2Config(VOCAB, CONTEXT, WIDTH, LAYERS, HEADS), key=fa.random.key(0))
    model = fa.device_put(nn.load_state_dict(like, weights))

    def loss_fn(model, inputs, targets):
        log_probs = nn.log_softmax(fa.vmap(model)(inputs))
        return -fnp.mean(fnp.take_along_axis(log_probs, targets[..., None], axis=-1))

    def step(model, inputs, targets):
        loss, grads = fa.value_and_grad(loss_fn)(model, inputs, targets)
        return fa.tree.map(lambda p, g: p - LEARNING_RATE * g, model, grads), loss

    return step, (model, fa.device_put(inputs), fa.device_put(targets))


def funcarray_result(out) -> tuple[float, dict]:
    import funcarray.nn as nn

    model, loss = out
    return float(loss), {name: np.asarray(p) for name, p in nn.named_parameters(model)}


# --- jax -----------------------------------------------------------------------------------------
def jax_case():
    """``(step, args)``: the same model and step written with ``jax.numpy``."""
    import jax
    import jax.numpy as jnp

    weights, inputs, targets = make_data()

    def linear(p, name, x):
        return jnp.matmul(x, p[name + ".weight"].T) + p[name + ".bias"]

    def layer_norm(p, name, x):
        mean = jnp.mean(x, axis=-1, keepdims=True)
        var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
        y = (x - mean) * jnp.reciprocal(jnp.sqrt(var + 1e-5))
        return y * p[name + ".weight"] + p[name + ".bias"]

    def attention(p, name, x):
        t, c = x.shape
        q, k, v = jnp.split(linear(p, name + ".c_attn", x), 3, axis=-1)
        q, k, v = (a.reshape(t, HEADS, c // HEADS) for a in (q, k, v))
        logits = jnp.einsum("tnh,snh->nts", q, k) * np.float32(1 / np.sqrt(c // HEADS))
        causal = jnp.tril(jnp.ones((t, t), dtype=bool))
        logits = jnp.where(causal, logits, jnp.finfo(logits.dtype).min)
        heads = jnp.einsum("nts,snh->tnh", jax.nn.softmax(logits, axis=-1), v)
        return linear(p, name + ".c_proj", heads.reshape(t, c))

    def forward(p, ids):
        x = p["wte.weight"][ids] + p["wpe.weight"][:ids.shape[0]]
        for i in range(LAYERS):
            h = f"h.{i}."
            x = x + attention(p, h + "attn", layer_norm(p, h + "ln_1", x))
            hidden = jax.nn.gelu(linear(p, h + "mlp.c_fc", layer_norm(p, h + "ln_2", x)),
                                 approximate=True)
            x = x + linear(p, h + "mlp.c_proj", hidden)
        return jnp.matmul(layer_norm(p, "ln_f", x), p["wte.weight"].T)

    def loss_fn(p, inputs, targets):
        log_probs = jax.nn.log_softmax(jax.vmap(forward, in_axes=(None, 0))(p, inputs))
        return -jnp.mean(jnp.take_along_axis(log_probs, targets[..., None], axis=-1))

    def step(p, inputs, targets):
        loss, grads = jax.value_and_grad(loss_fn)(p, inputs, targets)
        return jax.tree.map(lambda a, g: a - LEARNING_RATE * g, p, grads), loss

    params = {name: jax.device_put(w) for name, w in weights.items()}
    return step, (params, jax.device_put(inputs), jax.device_put(targets))


def jax_result(out) -> tuple[float, dict]:
    params, loss = out
    return float(loss), {name: np.asarray(p) for name, p in params.items()}


# --- libraries -----------------------------------------------------------------------------------
def libraries() -> dict:
    """{name: (make_case, to_result, jit, clear_caches, block_until_ready)} or None."""
    import funcarray as fa

    libs = {"funcarray": (funcarray_case, funcarray_result, fa.jit, fa.clear_caches,
                          fa.block_until_ready), "jax": None}
    try:
        import jax
    except ImportError:
        return libs
    libs["jax"] = (jax_case, jax_result, jax.jit, jax.clear_caches, jax.block_until_ready)
    return libs


def agree(a, b) -> bool:
    """Same loss and updated parameters, to float32 rounding over a few hundred ops."""
    (loss_a, params_a), (loss_b, params_b) = a, b
    return bool(np.isclose(loss_a, loss_b, rtol=1e-4) and params_a.keys() == params_b.keys()
                and all(np.allclose(params_a[k], params_b[k], rtol=1e-3, atol=1e-5)
                        for k in params_a))


def reference_result(libs, notes):
    """The jax step's result (eager), which funcarray's steps must reproduce; None without
    jax."""
    if libs["jax"] is None:
        return None
    make, to_result, *_ = libs["jax"]
    step, args = make()
    return to_result(step(*args))


def checked(impl, libs, run_step, reference, notes):
    """``run_step`` after one call whose result is compared with ``reference``."""
    def build():
        out = run_step()
        if reference is not None and not agree(libs[impl][1](out), reference):
            raise AssertionError("its loss or updated parameters differ from jax's")
        return run_step
    return guarded(impl, build, notes)


# --- rows ----------------------------------------------------------------------------------------
def bench_first_call(libs, settings: Settings) -> Row:
    repeats = 3 if settings.quick else 7
    cases = {}
    for impl, lib in libs.items():
        if lib is None:
            cases[impl] = None
            continue
        make, _, jit, clear, block = lib

        def setup(make=make, jit=jit, clear=clear):
            step, args = make()
            clear()
            return jit(step), args

        def run(state, block=block):
            fun, args = state
            block(fun(*args))

        cases[impl] = (setup, run)
    timings, notes = time_cold(cases, repeats)
    return Row("jitted step, first call (trace+lower+compile+run)", medians(timings),
               FIRST_CALL_GOALS, notes)


def bench_steady(libs, settings: Settings, reference) -> Row:
    notes: list[str] = []
    calls = {}
    for impl, lib in libs.items():
        if lib is None:
            calls[impl] = None
            continue
        make, _, jit, _, block = lib
        step, args = make()
        fun = jit(step)
        calls[impl] = checked(impl, libs, functools.partial(_blocked, block, fun, args),
                              reference, notes)
    timings = measure(calls, settings)
    return Row("jitted step, steady state", medians(timings), STEADY_GOALS,
               notes + noise_notes(timings, goals=STEADY_GOALS))


def bench_eager(libs, settings: Settings, reference) -> Row:
    notes: list[str] = []
    calls = {}
    for impl, lib in libs.items():
        if lib is None:
            calls[impl] = None
            continue
        make, _, _, _, block = lib
        step, args = make()
        calls[impl] = checked(impl, libs, functools.partial(_blocked, block, step, args),
                              reference, notes)
    timings = measure(calls, settings)
    return Row("eager step (no jit)", medians(timings), EAGER_GOALS,
               notes + noise_notes(timings))


def _blocked(block, fun, args):
    out = fun(*args)
    block(out)
    return out


# --- report --------------------------------------------------------------------------------------
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
        f"model: GPT-2, vocabulary {VOCAB}, context {CONTEXT}, width {WIDTH}, {LAYERS} blocks"
        f" of {HEADS} heads, float32; step: loss, gradient and SGD update on a batch of"
        f" {BATCH} windows; funcarray's nn.GPT2 against the same model in jax.numpy",
        f"mode: {mode}; steady and eager rows: median of {settings.repeats} samples"
        f" (timing-loop overhead {overhead_ns:.0f} ns/call subtracted); first-call row:"
        f" median of {3 if settings.quick else 7} cold runs, all caches cleared before each",
        "every step is checked against jax's (same loss and updated parameters) before it"
        " is timed",
        "goals (issue 26): jitted step within 5% of jax in steady state, first call within"
        " 10%; the eager row is information",
        "ratios are funcarray time / jax time: lower is better",
    ]


def main(argv: list[str] | None = None) -> int:
    args = make_parser(__doc__.splitlines()[0]).parse_args(argv)
    settings = Settings.from_args(args)
    heavy = scaled(settings, max_repeats=11, max_warmup_calls=2)
    load = tuple(round(v, 2) for v in os.getloadavg())
    info = machine_info()  # before timing, so the load average is not our own
    libs = libraries()
    import funcarray as fa

    jax_platform = None
    if libs["jax"] is not None:
        import jax

        jax_platform = jax.default_backend()
    overhead_ns = call_overhead_ns(settings)
    notes: list[str] = []
    reference = reference_result(libs, notes)

    rows = [bench_first_call(libs, settings), bench_steady(libs, heavy, reference),
            bench_eager(libs, heavy, reference)]
    if libs["jax"] is None:
        rows[0].notes.append("jax is not importable: its column is empty")
    rows[0].notes.extend(notes)

    print_report("funcarray transformer LM benchmark (a GPT-2 training step)",
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
