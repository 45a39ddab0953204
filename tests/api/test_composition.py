"""The composition matrix: every transform composed with the others (and with jit, in every
order) on real functions (``real_functions.py``), each result compared with jax.

A composition is written once as ``comp(T, lib, case)``: ``T`` is the transform namespace
(``funcarray`` or ``jax``), ``lib`` the array namespace (``funcarray.numpy`` or ``jax.numpy``)
and ``case`` a ``real_functions.Case`` already converted to ``lib`` arrays. So the very same
code runs on both sides; only the namespaces differ. The jax oracle of a composition is the
jit-free composition with the same meaning, run in jax under one outer ``jax.jit`` per case.
Float64 throughout (conftest enables jax's x64) with tight tolerances; a float32 spot-check
keeps the 32-bit path honest. Known funcarray bugs are strict xfails naming the file at fault.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from real_functions import (
    CASE_NAMES,
    elementwise_broadcast,
    make_case,
    mlp_mse_loss,
    softmax_cross_entropy,
)

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.testing import assert_trees_allclose

RTOL64, ATOL64 = 1e-10, 1e-12
RTOL32, ATOL32 = 2e-4, 2e-5


# --------------------------------------------------------------------------------------------
# Helpers: one case on both sides, comparison
# --------------------------------------------------------------------------------------------

def _to_lib(lib, tree):
    return jax.tree.map(lib.asarray, tree)


def _bind(lib, case):
    """``case`` with its function closed over ``lib`` and its arrays made ``lib`` arrays."""
    return case._replace(
        fun=functools.partial(case.fun, lib), args=_to_lib(lib, case.args),
        batch_args=_to_lib(lib, case.batch_args), tangent=_to_lib(lib, case.tangent))


def _as_numpy(tree):
    return jax.tree.map(np.asarray, tree)


def assert_matches_jax(ours, theirs, rtol=RTOL64, atol=ATOL64):
    """Same tree structure, same dtype per leaf, values close."""
    ours_np, theirs_np = _as_numpy(ours), _as_numpy(theirs)
    assert_trees_allclose(ours_np, theirs_np, rtol=rtol, atol=atol)
    ours_dtypes = [x.dtype for x in jax.tree.leaves(ours_np)]
    theirs_dtypes = [x.dtype for x in jax.tree.leaves(theirs_np)]
    assert ours_dtypes == theirs_dtypes


def _rest(case):
    """``case.fun`` as a function of arg 0 only (the others closed over)."""
    return lambda p: case.fun(p, *case.args[1:])


def _summed_vmap(T, lib, case):
    return lambda *a: lib.sum(T.vmap(case.fun, in_axes=case.in_axes)(*a))


def _with_aux(lib, f):
    def loss_and_aux(*a):
        loss = f(*a)
        return loss, {"loss_sq": loss ** 2, "scaled": 2.0 * lib.ones(3) * loss}
    return loss_and_aux


# --------------------------------------------------------------------------------------------
# The matrix
# --------------------------------------------------------------------------------------------
# Each entry: (composition, meaning). Compositions with the same meaning compute the same
# mathematical object (jit never changes a value). The jax oracle for a meaning is the jit-free
# composition of that meaning run in jax (under one outer jax.jit, compiled once per case and
# dtype): jax's op-by-op mode compiles every primitive separately and would dominate the run.

COMPOSITIONS = {
    # depth 1-2: grad, jit and their pairs
    "grad": (lambda T, lib, c: T.grad(c.fun)(*c.args), "grad"),
    "jit": (lambda T, lib, c: T.jit(c.fun)(*c.args), "value"),
    "jit(jit)": (lambda T, lib, c: T.jit(T.jit(c.fun))(*c.args), "value"),
    "jit(grad)": (lambda T, lib, c: T.jit(T.grad(c.fun))(*c.args), "grad"),
    "grad(jit)": (lambda T, lib, c: T.grad(T.jit(c.fun))(*c.args), "grad"),
    "grad(jit(jit))": (lambda T, lib, c: T.grad(T.jit(T.jit(c.fun)))(*c.args), "grad"),
    # vmap pairs: per-example gradients and the gradient of a summed batch
    "vmap": (lambda T, lib, c: T.vmap(c.fun, in_axes=c.in_axes)(*c.batch_args), "batch_value"),
    "jit(vmap)": (lambda T, lib, c: T.jit(T.vmap(c.fun, in_axes=c.in_axes))(*c.batch_args),
                  "batch_value"),
    "vmap(jit)": (lambda T, lib, c: T.vmap(T.jit(c.fun), in_axes=c.in_axes)(*c.batch_args),
                  "batch_value"),
    "vmap(grad)": (lambda T, lib, c: T.vmap(T.grad(c.fun), in_axes=c.in_axes)(*c.batch_args),
                   "per_example_grad"),
    "grad(vmap)": (lambda T, lib, c: T.grad(_summed_vmap(T, lib, c))(*c.batch_args),
                   "batch_grad"),
    # jit, grad, vmap: all six orders
    "jit(vmap(grad))": (lambda T, lib, c: T.jit(T.vmap(T.grad(c.fun), in_axes=c.in_axes))(
        *c.batch_args), "per_example_grad"),
    "vmap(jit(grad))": (lambda T, lib, c: T.vmap(T.jit(T.grad(c.fun)), in_axes=c.in_axes)(
        *c.batch_args), "per_example_grad"),
    "vmap(grad(jit))": (lambda T, lib, c: T.vmap(T.grad(T.jit(c.fun)), in_axes=c.in_axes)(
        *c.batch_args), "per_example_grad"),
    "jit(grad(vmap))": (lambda T, lib, c: T.jit(T.grad(_summed_vmap(T, lib, c)))(
        *c.batch_args), "batch_grad"),
    "grad(jit(vmap))": (lambda T, lib, c: T.grad(
        lambda *a: lib.sum(T.jit(T.vmap(c.fun, in_axes=c.in_axes))(*a)))(*c.batch_args),
        "batch_grad"),
    "grad(vmap(jit))": (lambda T, lib, c: T.grad(
        lambda *a: lib.sum(T.vmap(T.jit(c.fun), in_axes=c.in_axes)(*a)))(*c.batch_args),
        "batch_grad"),
    # second order
    "hessian": (lambda T, lib, c: T.hessian(c.fun)(*c.args), "hessian"),
    "jacfwd(jacrev)": (lambda T, lib, c: T.jacfwd(T.jacrev(c.fun))(*c.args), "hessian"),
    "jit(hessian)": (lambda T, lib, c: T.jit(T.hessian(c.fun))(*c.args), "hessian"),
    "jacrev(jit(grad))": (lambda T, lib, c: T.jacrev(T.jit(T.grad(c.fun)))(*c.args),
                          "hessian"),
    "jvp(grad)": (lambda T, lib, c: T.jvp(T.grad(_rest(c)), (c.args[0],), (c.tangent,)),
                  "hvp"),
    "jvp(jit(grad))": (lambda T, lib, c: T.jvp(T.jit(T.grad(_rest(c))), (c.args[0],),
                                               (c.tangent,)), "hvp"),
    "jit(jvp(grad))": (lambda T, lib, c: T.jit(
        lambda p, t: T.jvp(T.grad(_rest(c)), (p,), (t,)))(c.args[0], c.tangent), "hvp"),
    "vmap(jvp(grad))": (lambda T, lib, c: _vmapped_hvp(T, lib, c, jit=False), "hvp_batch"),
    "vmap(jvp(jit(grad)))": (lambda T, lib, c: _vmapped_hvp(T, lib, c, jit=True),
                             "hvp_batch"),
    # reverse and linearised forms of a jitted function
    "vjp": (lambda T, lib, c: _vjp(T, lib, c, jit=False), "vjp"),
    "vjp(jit)": (lambda T, lib, c: _vjp(T, lib, c, jit=True), "vjp"),
    "vjp(vmap)": (lambda T, lib, c: _vjp_vmap(T, lib, c, jit=False), "vjp_vmap"),
    "vjp(jit(vmap))": (lambda T, lib, c: _vjp_vmap(T, lib, c, jit=True), "vjp_vmap"),
    "linearize": (lambda T, lib, c: _linearize(T, lib, c, jit_inside=False, jit_linear=False),
                  "linearize"),
    "jit(linearize)": (lambda T, lib, c: _linearize(T, lib, c, jit_inside=False,
                                                    jit_linear=True), "linearize"),
    "jit(linearize(jit))": (lambda T, lib, c: _linearize(T, lib, c, jit_inside=True,
                                                         jit_linear=True), "linearize"),
    # value_and_grad with auxiliary outputs
    "value_and_grad(has_aux)": (lambda T, lib, c: T.value_and_grad(
        _with_aux(lib, c.fun), has_aux=True)(*c.args), "value_and_grad_aux"),
    "value_and_grad(jit, has_aux)": (lambda T, lib, c: T.value_and_grad(
        T.jit(_with_aux(lib, c.fun)), has_aux=True)(*c.args), "value_and_grad_aux"),
    "jit(value_and_grad(has_aux))": (lambda T, lib, c: T.jit(T.value_and_grad(
        _with_aux(lib, c.fun), has_aux=True))(*c.args), "value_and_grad_aux"),
}

# The jit-free composition that defines each meaning (run in jax as the oracle).
ORACLES = {"value": lambda T, lib, c: c.fun(*c.args)}
for _name, (_comp, _meaning) in COMPOSITIONS.items():
    ORACLES.setdefault(_meaning, _comp)


def _vmapped_hvp(T, lib, c, jit):
    """Hessian-vector products for a batch of tangents: vmap over forward-over-reverse."""
    tangents = T.tree.map(lambda t: lib.stack([t, 2.0 * t, -t]), c.tangent)
    grad = T.jit(T.grad(_rest(c))) if jit else T.grad(_rest(c))
    return T.vmap(lambda t: T.jvp(grad, (c.args[0],), (t,))[1])(tangents)


def _vjp(T, lib, c, jit):
    out, pullback = T.vjp(T.jit(_rest(c)) if jit else _rest(c), c.args[0])
    return out, pullback(lib.asarray(1.5, dtype=out.dtype))


def _vjp_vmap(T, lib, c, jit):
    def batched(p):
        return T.vmap(c.fun, in_axes=c.in_axes)(p, *c.batch_args[1:])
    out, pullback = T.vjp(T.jit(batched) if jit else batched, c.batch_args[0])
    cotangent = lib.linspace(-1.0, 2.0, out.shape[0], dtype=out.dtype)
    return out, pullback(cotangent)


def _linearize(T, lib, c, jit_inside, jit_linear):
    out, f_jvp = T.linearize(T.jit(_rest(c)) if jit_inside else _rest(c), c.args[0])
    linear = T.jit(f_jvp) if jit_linear else f_jvp
    return out, linear(c.tangent), linear(T.tree.map(lambda t: 3.0 * t, c.tangent))


@functools.cache
def _jax_oracles(case_name, dtype_name, meanings):
    """The jax results of ``meanings`` for a case, all from one jax.jit compilation (cached:
    each case is compiled once, whichever test asks first)."""
    case = make_case(case_name, _case_rng(case_name), dtype=np.dtype(dtype_name))
    bound = _bind(jnp, case)

    def run(args, batch_args, tangent):
        c = bound._replace(args=args, batch_args=batch_args, tangent=tangent)
        return {meaning: ORACLES[meaning](jax, jnp, c) for meaning in meanings}

    return _as_numpy(jax.jit(run)(bound.args, bound.batch_args, bound.tangent))


def _case_rng(case_name):
    return np.random.default_rng(CASE_NAMES.index(case_name))


XFAILS: dict = {}  # composition name -> pytest mark, for known bugs


def _check(case_name, comp_name, dtype, rtol, atol, meanings):
    comp, meaning = COMPOSITIONS[comp_name]
    case = make_case(case_name, _case_rng(case_name), dtype=dtype)
    ours = comp(fa, fnp, _bind(fnp, case))
    theirs = _jax_oracles(case_name, np.dtype(dtype).name, meanings)[meaning]
    assert_matches_jax(ours, theirs, rtol=rtol, atol=atol)


def _matrix_params(case_names, comp_names):
    return [pytest.param(case, comp, marks=XFAILS.get(comp, ()), id=f"{case}-{comp}")
            for case in case_names for comp in comp_names]


# mlp_mse (tanh, MSE) is covered by the dedicated tests below; the matrix takes the relu
# cross-entropy MLP, which keeps the file fast.
MATRIX_CASES = ("mlp_xent", "softmax_xent", "logdet_like", "elementwise")


@pytest.mark.parametrize(("case_name", "comp_name"),
                         _matrix_params(MATRIX_CASES, list(COMPOSITIONS)))
def test_composition_matches_jax_float64(case_name, comp_name):
    _check(case_name, comp_name, np.float64, RTOL64, ATOL64, tuple(ORACLES))


FLOAT32_SPOT_CHECKS = {"mlp_xent": ("vmap(jit(grad))", "jvp(jit(grad))"),
                       "logdet_like": ("grad(jit(vmap))", "jit(linearize(jit))")}


@pytest.mark.parametrize(("case_name", "comp_name"), [
    param for case, comps in FLOAT32_SPOT_CHECKS.items()
    for param in _matrix_params([case], comps)])
def test_composition_matches_jax_float32(case_name, comp_name):
    meanings = tuple(COMPOSITIONS[c][1] for c in FLOAT32_SPOT_CHECKS[case_name])
    _check(case_name, comp_name, np.float32, RTOL32, ATOL32, meanings)


def test_has_aux_returns_concrete_aux():
    """aux comes back as plain Arrays (primal values), as in JAX."""
    case = _bind(fnp, make_case("elementwise", _case_rng("elementwise")))
    (_, aux), _ = fa.value_and_grad(_with_aux(fnp, case.fun), has_aux=True)(*case.args)
    assert all(isinstance(leaf, fa.Array) for leaf in jax.tree.leaves(aux)), aux  # no tracer


def test_has_aux_is_differentiable_by_an_outer_grad():
    """An outer grad sees through an inner value_and_grad's aux output (JAX: 12 per entry)."""
    def inner(lib):
        def f(x):
            loss = lib.sum(x ** 2)
            return loss, {"sq": loss ** 2}
        return f

    def outer(T, lib):
        return T.grad(lambda x: T.value_and_grad(inner(lib), has_aux=True)(x)[0][1]["sq"])

    ours = outer(fa, fnp)(fnp.linspace(0.5, 1.5, 3, dtype=fnp.float64))
    assert_matches_jax(ours, jax.jit(outer(jax, jnp))(jnp.linspace(0.5, 1.5, 3, dtype=jnp.float64)))


# --------------------------------------------------------------------------------------------
# Values varied by Hypothesis (fixed shapes: each new shape would compile again)
# --------------------------------------------------------------------------------------------

_LOGITS = hnp.arrays(np.float64, (5, 4), elements=st.floats(-6, 6, width=64))
_LABELS = hnp.arrays(np.int32, (5,), elements=st.integers(0, 3))
_xent_fa = fa.jit(fa.vmap(fa.grad(functools.partial(softmax_cross_entropy, fnp))))
_xent_jax = jax.jit(jax.vmap(jax.grad(functools.partial(softmax_cross_entropy, jnp))))
_xent_grad_fa = fa.grad(fa.jit(functools.partial(softmax_cross_entropy, fnp)))


@settings(max_examples=10)
@given(logits=_LOGITS, labels=_LABELS)
def test_softmax_xent_per_example_and_batch_gradients_property(logits, labels):
    per_example = _xent_fa(fnp.asarray(logits), fnp.asarray(labels))
    assert_matches_jax(per_example, _xent_jax(jnp.asarray(logits), jnp.asarray(labels)))
    # The mean's gradient is the per-example gradients divided by the batch size.
    batch = _xent_grad_fa(fnp.asarray(logits), fnp.asarray(labels))
    np.testing.assert_allclose(np.asarray(batch), np.asarray(per_example) / len(labels),
                               rtol=1e-12, atol=1e-15)


_elementwise_fa = fa.jit(fa.grad(fa.jit(functools.partial(elementwise_broadcast, fnp)),
                                 argnums=(0, 1)))
_elementwise_jax = jax.jit(jax.grad(jax.jit(functools.partial(elementwise_broadcast, jnp)),
                                    argnums=(0, 1)))


@settings(max_examples=10)
@given(x=hnp.arrays(np.float64, (3, 4), elements=st.floats(-3, 3, width=64)),
       b=hnp.arrays(np.float64, (4,), elements=st.floats(-3, 3, width=64)))
def test_elementwise_jit_grad_jit_property(x, b):
    ours = _elementwise_fa(fnp.asarray(x), fnp.asarray(b))
    assert_matches_jax(ours, _elementwise_jax(jnp.asarray(x), jnp.asarray(b)))


# --------------------------------------------------------------------------------------------
# jit inside gradients: static arguments, a jitted function called twice, the dispatch cache
# --------------------------------------------------------------------------------------------

def _mlp_case(seed=3):
    return make_case("mlp_mse", np.random.default_rng(seed))


def _ours_and_jax(compute, *arrays):
    """``compute(T, lib, *arrays)`` with funcarray, and with jax under one outer jax.jit (the
    jax oracle, compiled once instead of op by op)."""
    ours = compute(fa, fnp, *_to_lib(fnp, arrays))
    theirs = jax.jit(functools.partial(compute, jax, jnp))(*_to_lib(jnp, arrays))
    return ours, theirs


def test_grad_of_jit_with_static_argnums_matches_jax():
    jitted = []

    def compute(T, lib, params, x, y):
        loss = T.jit(functools.partial(mlp_mse_loss, lib), static_argnums=3)
        jitted.append(loss)

        def objective(p):
            return loss(p, x, y, "tanh") + 0.5 * loss(p, x, y, "relu")

        return T.jit(T.grad(objective))(params), T.grad(objective)(params)

    ours, theirs = _ours_and_jax(compute, *_mlp_case().args)
    assert_matches_jax(ours, theirs)
    # One staging per static value (the jitted and the eager grad share them).
    info = jitted[0].cache_info()
    assert (info.misses, info.currsize) == (2, 2), info
    assert info.hits == 2, info


def test_grad_of_function_calling_a_jitted_function_twice():
    rng = np.random.default_rng(5)
    layers = []

    def compute(T, lib, w, x):
        layer = T.jit(lambda w, h: lib.tanh(h @ w + 0.1))
        layers.append(layer)

        def loss(w, x):
            return lib.sum(layer(w, layer(w, x)) ** 2)

        return (T.grad(loss)(w, x), T.grad(loss, argnums=(0, 1))(w, x), T.hessian(loss)(w, x),
                T.vmap(T.grad(loss), (None, 0))(w, lib.stack([x, 2.0 * x])))

    ours, theirs = _ours_and_jax(compute, rng.standard_normal((4, 4)),
                                 rng.standard_normal((3, 4)))
    assert_matches_jax(ours, theirs)
    info = layers[0].cache_info()
    assert info.misses == 1 and info.hits >= 1, info


def test_vmap_in_axes_none_zero_over_params_and_data():
    def compute(T, lib, params, xs, ys):
        f = functools.partial(mlp_mse_loss, lib)
        per_example = T.vmap(T.grad(f), in_axes=(None, 0, 0))(params, xs, ys)
        # Mapping over params instead (a stack of two parameter sets), data shared.
        stacked = T.tree.map(lambda a: lib.stack([a, -a]), params)
        losses = T.jit(T.vmap(f, in_axes=(0, None, None)))(stacked, xs, ys)
        grads = T.vmap(T.grad(f), in_axes=(0, None, None))(stacked, xs, ys)
        return per_example, losses, grads

    ours, theirs = _ours_and_jax(compute, *_mlp_case(11).args)
    assert_matches_jax(ours, theirs)


def _sgd_step(T, f, lr=0.1):
    def step(params, x, y):
        loss, grads = T.value_and_grad(f)(params, x, y)
        return T.tree.map(lambda p, g: p - lr * g, params, grads), loss
    return T.jit(step)


def test_training_loop_jitted_sgd_step_hits_cache_and_matches_jax():
    case = _mlp_case(13)
    histories = {}
    for T, lib in ((fa, fnp), (jax, jnp)):
        params, x, y = _to_lib(lib, case.args)
        step = _sgd_step(T, functools.partial(mlp_mse_loss, lib))
        losses = []
        for _ in range(3):
            params, loss = step(params, x, y)
            losses.append(loss)
        histories[T.__name__] = params, losses
        if T is fa:
            info = step.cache_info()
            assert (info.hits, info.misses, info.currsize) == (2, 1, 1), info
    assert_matches_jax(histories["funcarray"], histories["jax"])
    losses = [float(v) for v in histories["funcarray"][1]]
    assert losses[2] < losses[0], f"SGD did not decrease the loss: {losses}"


def _jit_of_jit(seed=17):
    case = make_case("logdet_like", np.random.default_rng(seed))
    inner = fa.jit(functools.partial(case.fun, fnp))
    return case, inner, fa.jit(inner)


def test_jit_of_jit_values_and_cache_counts():
    case, inner, outer = _jit_of_jit()
    args = _to_lib(fnp, case.args)
    first, second = outer(*args), outer(*args)
    assert outer.cache_info()[:2] == (1, 1)  # (hits, misses)
    want = jax.jit(jax.jit(functools.partial(case.fun, jnp)))(*_to_lib(jnp, case.args))
    assert_matches_jax((first, second), (want, want))


def test_jit_of_jit_keeps_separate_caches():
    case, inner, outer = _jit_of_jit()
    outer(*_to_lib(fnp, case.args))
    info = inner.cache_info()
    # Every entry of a cache comes from one of its own misses.
    assert info.currsize <= info.misses, info
