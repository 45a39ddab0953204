"""Transformation rules of the reduction primitives (jvp, transpose, batching) and of the
``funcarray.numpy`` reductions built on them, checked against finite differences, the
transpose identity, a Python loop, and jax as the oracle.

The rules of the non-linear reductions compute with elementwise and shape primitives
(``mul``, ``div``, ``eq``, ``slice``, ``concatenate``...): first-order forward mode runs those
eagerly, while reverse mode, second order and vmap-of-grad also exercise their rules.

JAX oracles are jitted and used on a few fixed cases (jax compiles every new shape, slowly for
a scan's many slices); the Hypothesis tests check against finite differences, the transpose
identity, a Python loop, or a derivative written out in NumPy.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jax import lax

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.primitives import reduce as red
from funcarray.testing import assert_allclose, check_grads, check_jvp_vjp, check_vmap
from funcarray.transforms.core import ShapedArray
from funcarray.transforms.jvp import Zero
from funcarray.transforms.transpose import UndefPrimal

jax.config.update("jax_enable_x64", True)

REDUCERS = {  # primitive -> the jax.lax reduction with the same contract
    "reduce_sum": (red.reduce_sum_p, lambda x, axes: lax.reduce_sum_p.bind(x, axes=axes)),
    "reduce_prod": (red.reduce_prod_p, lambda x, axes: lax.reduce_prod_p.bind(x, axes=axes)),
    "reduce_max": (red.reduce_max_p, lambda x, axes: lax.reduce_max_p.bind(x, axes=axes)),
    "reduce_min": (red.reduce_min_p, lambda x, axes: lax.reduce_min_p.bind(x, axes=axes)),
}
SCANS = {
    "cumsum": (red.cumsum_p, lax.cumsum),
    "cumprod": (red.cumprod_p, lax.cumprod),
    "cummax": (red.cummax_p, lax.cummax),
    "cummin": (red.cummin_p, lax.cummin),
    "cumlogsumexp": (red.cumlogsumexp_p, lax.cumlogsumexp),
}
BITWISE = (red.reduce_and_p, red.reduce_or_p, red.reduce_xor_p)


# --------------------------------------------------------------------------------------------
# Strategies and helpers
# --------------------------------------------------------------------------------------------

def _random(rng, shape, dtype=np.float64):
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    if dtype.kind in "iu":
        return rng.integers(0, 16, shape).astype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    return rng.standard_normal(shape).astype(dtype)


@st.composite
def reduce_cases(draw, min_size: int = 1, max_rank: int = 3):
    """(shape, axes): axes a sorted subset of the dimensions."""
    shape = tuple(draw(st.lists(st.integers(min_size, 3), max_size=max_rank)))
    axes = tuple(sorted(draw(st.sets(st.integers(0, len(shape) - 1), max_size=len(shape)))
                        if shape else ()))
    return shape, axes


@st.composite
def scan_cases(draw, min_size: int = 1):
    """(shape, axis, reverse): the scanned axis has up to 7 elements (odd and even counts
    exercise every branch of the prefix scan)."""
    rank = draw(st.integers(1, 3))
    axis = draw(st.integers(0, rank - 1))
    shape = tuple(draw(st.integers(min_size, 7)) if i == axis else draw(st.integers(1, 3))
                  for i in range(rank))
    return shape, axis, draw(st.booleans())


def _random_reduce_case(rng, max_rank: int = 3):
    """Like ``reduce_cases`` but from a seeded generator (for tests that are xfail while
    other families' rules are missing: Hypothesis would spend its time shrinking those)."""
    rank = int(rng.integers(0, max_rank + 1))
    shape = tuple(int(d) for d in rng.integers(1, 4, rank))
    axes = tuple(sorted(int(a) for a in rng.choice(rank, rng.integers(0, rank + 1),
                                                   replace=False)))
    return shape, axes


def _random_scan_case(rng):
    rank = int(rng.integers(1, 4))
    axis = int(rng.integers(0, rank))
    shape = tuple(int(rng.integers(1, 8)) if i == axis else int(rng.integers(1, 4))
                  for i in range(rank))
    return shape, axis, bool(rng.integers(0, 2))


def _batch_axis(draw, ndim):
    """A vmap in_axes for an operand of rank ``ndim`` (before batching), maybe negative."""
    return draw(st.integers(-(ndim + 1), ndim))


def _with_batch_axis(rng, shape, axis, size, dtype=np.float64):
    """A random operand of ``shape`` with a batch axis of ``size`` at ``axis`` (negative
    counts from the end of the batched shape); ``axis=None``: unbatched."""
    if axis is None:
        return _random(rng, shape, dtype)
    batched = list(shape)
    batched.insert(axis % (len(shape) + 1), size)
    return _random(rng, tuple(batched), dtype)


def _reducer(prim, axes):
    return lambda x: prim.bind(x, axes=axes)


def _scanner(prim, axis, reverse):
    return lambda x: prim.bind(x, axis=axis, reverse=reverse)


def _jax_jvp(g, x, t):
    """The oracle's jvp, jitted: one compilation instead of one per operation (eager jax
    compiles each operation for each new shape, which is slow for a scan's many slices)."""
    return jax.jit(lambda a, b: jax.jvp(g, (a,), (b,)))(x, t)


def _jax_vjp(g, x, ct):
    return jax.jit(lambda a, c: jax.vjp(g, a)[1](c)[0])(x, ct)


def _fa_jvp(f, x, t):
    return fa.jvp(f, (fnp.asarray(x),), (fnp.asarray(t),))


def _fa_vjp(f, x, ct):
    out, f_vjp = fa.vjp(f, fnp.asarray(x))
    return out, f_vjp(fnp.asarray(ct))[0]


# --------------------------------------------------------------------------------------------
# reduce_sum and cumsum: linear (jvp, transpose, finite differences, the transpose identity)
# --------------------------------------------------------------------------------------------

@given(reduce_cases(min_size=0), st.sampled_from([np.float64, np.complex128]),
       st.integers(0, 2**16))
def test_reduce_sum_grads_and_transpose_identity(case, dtype, seed):
    shape, axes = case
    rng = np.random.default_rng(seed)
    x = fnp.asarray(_random(rng, shape, dtype))
    check_grads(_reducer(red.reduce_sum_p, axes), (x,), order=2, seed=seed)
    check_jvp_vjp(_reducer(red.reduce_sum_p, axes), (x,), seed=seed)


@given(reduce_cases(min_size=0), st.integers(0, 2**16))
def test_reduce_sum_vjp_is_a_broadcast(case, seed):
    shape, axes = case
    rng = np.random.default_rng(seed)
    out_shape = tuple(d for i, d in enumerate(shape) if i not in axes)
    ct = _random(rng, out_shape)
    _, got = _fa_vjp(_reducer(red.reduce_sum_p, axes), _random(rng, shape), ct)
    expected = np.broadcast_to(np.expand_dims(ct, axes), shape)
    assert got.shape == shape and got.dtype == np.float64
    assert_allclose(got, expected)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex64])
def test_reduce_sum_transpose_rule_keeps_shape_and_dtype(dtype):
    operand = UndefPrimal(ShapedArray((2, 3, 4), dtype))
    ct = fnp.asarray(np.arange(3, dtype=dtype))
    (got,) = red.reduce_sum_p.transpose_rule(ct, operand, axes=(0, 2))
    assert got.shape == (2, 3, 4) and got.dtype == np.dtype(dtype)
    assert_allclose(got, np.broadcast_to(np.arange(3, dtype=dtype)[None, :, None], (2, 3, 4)))


@given(scan_cases(min_size=0), st.sampled_from([np.float64, np.complex128]),
       st.integers(0, 2**16))
def test_cumsum_grads_and_transpose_identity(case, dtype, seed):
    shape, axis, reverse = case
    rng = np.random.default_rng(seed)
    x = fnp.asarray(_random(rng, shape, dtype))
    check_grads(_scanner(red.cumsum_p, axis, reverse), (x,), order=2, seed=seed)
    check_jvp_vjp(_scanner(red.cumsum_p, axis, reverse), (x,), seed=seed)


@given(scan_cases(), st.integers(0, 2**16))
def test_cumsum_vjp_is_a_reverse_cumsum(case, seed):
    shape, axis, reverse = case
    rng = np.random.default_rng(seed)
    ct = _random(rng, shape)
    _, got = _fa_vjp(_scanner(red.cumsum_p, axis, reverse), _random(rng, shape), ct)
    flip = (lambda a: a) if reverse else (lambda a: np.flip(a, axis))
    assert_allclose(got, flip(np.cumsum(flip(ct), axis=axis)))


def test_linear_rules_under_jvp_keep_zero_tangents_symbolic():
    x = fnp.ones((2, 3))
    for prim, params in ((red.reduce_sum_p, {"axes": (1,)}),
                         (red.cumsum_p, {"axis": 1, "reverse": False})):
        out, tangent = prim.jvp_rule([x], [Zero(x.aval)], **params)
        assert type(tangent) is Zero and tangent.aval.shape == out.shape


# --------------------------------------------------------------------------------------------
# reduce_prod, reduce_max, reduce_min
# --------------------------------------------------------------------------------------------

@given(reduce_cases(), st.sampled_from(["reduce_prod", "reduce_max", "reduce_min"]),
       st.integers(0, 2**16))
def test_nonlinear_reductions_jvp_matches_finite_differences(case, name, seed):
    shape, axes = case
    rng = np.random.default_rng(seed)
    x = fnp.asarray(_random(rng, shape))  # distinct values: max/min are differentiable
    check_grads(_reducer(REDUCERS[name][0], axes), (x,), order=1, modes=("fwd",), seed=seed)


@pytest.mark.parametrize("name", ["reduce_prod", "reduce_max", "reduce_min"])
@pytest.mark.parametrize("seed", range(6))
def test_nonlinear_reductions_second_order_and_reverse(name, seed):
    rng = np.random.default_rng(seed)
    shape, axes = _random_reduce_case(rng)
    x = fnp.asarray(_random(rng, shape))
    check_grads(_reducer(REDUCERS[name][0], axes), (x,), order=2, seed=seed)


@pytest.mark.parametrize("seed", range(4))
def test_reduce_prod_complex_grads(seed):
    rng = np.random.default_rng(seed)
    shape, axes = _random_reduce_case(rng)
    x = fnp.asarray(_random(rng, shape, np.complex128))
    check_grads(_reducer(red.reduce_prod_p, axes), (x,), order=1, seed=seed)


PROD_WITH_ZEROS = [
    np.array([2.0, 0.0, 3.0, 4.0]),             # one zero: only its derivative is nonzero
    np.array([2.0, 0.0, 3.0, 0.0, 5.0]),        # two zeros: every derivative is zero
    np.array([[0.0, 2.0, 3.0], [1.0, 0.0, 0.0]]),
    np.array([[0.0, 2.0], [3.0, 4.0], [5.0, 0.0]]),
]


@pytest.mark.parametrize("x", PROD_WITH_ZEROS, ids=range(len(PROD_WITH_ZEROS)))
@pytest.mark.parametrize("axes", [None, (0,), (-1,)])
def test_reduce_prod_jvp_with_zeros_is_exact(x, axes):
    axes = tuple(range(x.ndim)) if axes is None else tuple(sorted(a % x.ndim for a in axes))
    t = np.random.default_rng(0).standard_normal(x.shape)
    out, got = _fa_jvp(_reducer(red.reduce_prod_p, axes), x, t)
    # sum_i t_i * prod_{j != i} x_j over the reduced elements, column by column.
    kept = [d for d in range(x.ndim) if d not in axes]
    xs = np.moveaxis(x, axes, range(len(axes))).reshape(-1, *(x.shape[d] for d in kept))
    ts = np.moveaxis(t, axes, range(len(axes))).reshape(xs.shape)
    expected = sum(ts[i] * np.prod(np.delete(xs, i, axis=0), axis=0) for i in range(len(xs)))
    assert_allclose(out, np.prod(x, axis=axes))
    assert_allclose(got, expected)


@pytest.mark.parametrize("x", PROD_WITH_ZEROS, ids=range(len(PROD_WITH_ZEROS)))
def test_reduce_prod_grad_and_hessian_with_zeros_match_jax(x):
    got = fa.grad(lambda v: fnp.prod(v))(fnp.asarray(x))
    assert_allclose(got, np.asarray(jax.jit(jax.grad(jnp.prod))(x)))
    flat = x.reshape(-1)
    hess = fa.hessian(lambda v: fnp.prod(v))(fnp.asarray(flat))
    assert_allclose(hess, np.asarray(jax.jit(jax.hessian(jnp.prod))(flat)))


def test_reduce_prod_of_an_empty_axis_has_a_zero_tangent():
    x = fnp.ones((0, 3), dtype=fnp.float64)
    out, tangent = red.reduce_prod_p.jvp_rule([x], [fnp.ones((0, 3), dtype=fnp.float64)],
                                              axes=(0,))
    assert_allclose(out, np.ones(3))
    assert type(tangent) is Zero and tangent.aval.shape == (3,)


TIES = [
    (np.array([1.0, 3.0, 3.0, 2.0, 3.0]), (0,)),
    (np.array([[1.0, 5.0, 5.0], [7.0, 7.0, 0.0]]), (1,)),
    (np.array([[1.0, 5.0, 5.0], [5.0, 2.0, 0.0]]), (0, 1)),
    (np.array([[2.0, 2.0], [2.0, 2.0]]), (0,)),
]


@pytest.mark.parametrize("name", ["reduce_max", "reduce_min"])
@pytest.mark.parametrize("x, axes", TIES, ids=range(len(TIES)))
def test_extremum_jvp_divides_ties_equally_like_jax(name, x, axes):
    prim, jax_fn = REDUCERS[name]
    x = x if name == "reduce_max" else -x
    t = np.random.default_rng(1).standard_normal(x.shape)
    _, got = _fa_jvp(_reducer(prim, axes), x, t)
    _, expected = _jax_jvp(lambda v: jax_fn(v, axes), x, t)
    assert_allclose(got, np.asarray(expected))


@pytest.mark.parametrize("x, axes", TIES, ids=range(len(TIES)))
def test_grad_of_max_and_min_with_ties_matches_jax(x, axes):
    for fa_fn, jax_fn in ((fnp.max, jnp.max), (fnp.min, jnp.min)):
        got = fa.grad(lambda v, f=fa_fn: fnp.sum(f(v, axis=axes)))(fnp.asarray(x))
        expected = jax.jit(jax.grad(lambda v, f=jax_fn: jnp.sum(f(v, axis=axes))))(x)
        assert_allclose(got, np.asarray(expected))


def test_extremum_of_nan_has_a_nan_tangent_like_jax():
    x = np.array([1.0, np.nan, 2.0])
    _, got = _fa_jvp(_reducer(red.reduce_max_p, (0,)), x, np.ones(3))
    _, expected = jax.jvp(lambda v: jnp.max(v), (x,), (np.ones(3),))
    assert np.isnan(np.asarray(got)) and np.isnan(np.asarray(expected))


# extremum_tangent: reduce_max/min's tangent as one equation linear in the tangent
def _jax_extremum_tangent(t, x, out, axes):
    """JAX's reduce_max/min jvp (lax's _reduce_chooser_jvp_rule): sum(t * hits) / counts."""
    hits = (x == jnp.expand_dims(out, axes)).astype(t.dtype)
    return jnp.sum(t * hits, axis=axes) / jnp.sum(hits, axis=axes)


@settings(max_examples=20)  # (each example compiles jax's and our jit: suite time)
@given(reduce_cases(max_rank=3), st.sampled_from(["max", "min"]),
       st.sampled_from([np.float32, np.float64]), st.integers(0, 2**16))
def test_extremum_tangent_matches_jax_eagerly_and_under_jit(case, choose, dtype, seed):
    shape, axes = case
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 3, shape).astype(dtype)  # few values: ties in most groups
    if x.size:
        x.reshape(-1)[rng.integers(0, x.size)] = np.nan if seed % 4 == 0 else x.reshape(-1)[0]
    with np.errstate(invalid="ignore"):
        out = (np.max if choose == "max" else np.min)(x, axis=axes)
    t = rng.standard_normal(shape).astype(dtype)
    expected = np.asarray(_jax_extremum_tangent(jnp.asarray(t), jnp.asarray(x),
                                                jnp.asarray(out), axes))
    args = [fnp.asarray(v) for v in (t, x, out)]
    eager = red.extremum_tangent_p.bind(*args, axes=axes)
    assert eager.dtype == np.dtype(dtype) and eager.shape == expected.shape
    assert_allclose(eager, expected)  # (NaNs compare equal)
    jitted = fa.jit(lambda *a: red.extremum_tangent_p.bind(*a, axes=axes))(*args)
    assert_allclose(jitted, expected)


@given(reduce_cases(max_rank=3), st.integers(0, 2**16))
def test_extremum_tangent_transpose_identity_and_zero_derivative(case, seed):
    shape, axes = case
    rng = np.random.default_rng(seed)
    x = fnp.asarray(rng.integers(0, 3, shape).astype(np.float64))
    out = red.reduce_max_p.bind(x, axes=axes)
    t = fnp.asarray(rng.standard_normal(shape))
    linear = lambda v: red.extremum_tangent_p.bind(v, x, out, axes=axes)  # noqa: E731
    check_jvp_vjp(linear, (t,), seed=seed)
    # The positions of the extremum are piecewise constant in x: no derivative through them.
    in_x = fa.grad(lambda v: fnp.sum(red.extremum_tangent_p.bind(t, v, out, axes=axes)))(x)
    assert_allclose(in_x, np.zeros(shape))


@given(st.data(), reduce_cases(max_rank=2), st.integers(0, 2**16))
def test_extremum_tangent_batch_rule_matches_a_loop(data, case, seed):
    shape, axes = case
    rng = np.random.default_rng(seed)
    in_axes = data.draw(st.sampled_from([(0, 0), (0, None), (None, 0), (-1, 0), (0, -1)]),
                        label="in_axes")
    size = 3
    t, x = (fnp.asarray(rng.integers(0, 3, (size, *shape)).astype(np.float64)
                        if axis is not None else rng.integers(0, 3, shape).astype(np.float64))
            for axis in in_axes)
    t, x = (v if axis in (None, 0) else fnp.asarray(np.moveaxis(np.asarray(v), 0, axis))
            for v, axis in zip((t, x), in_axes))

    def tangent_of_max(t, x):  # the extremum is batched exactly when x is
        return red.extremum_tangent_p.bind(t, x, red.reduce_max_p.bind(x, axes=axes), axes=axes)

    check_vmap(tangent_of_max, (t, x), in_axes=in_axes)


def test_max_under_stop_gradient_stages_one_equation_and_no_backward_work():
    x = fnp.asarray(np.array([[1.0, 3.0, 3.0], [2.0, 0.0, -1.0]]))

    def log_softmax_sum(z):
        z = z - fa.stop_gradient(fnp.max(z, axis=-1, keepdims=True))
        return fnp.sum(z - fnp.log(fnp.sum(fnp.exp(z), axis=-1, keepdims=True)))

    got = fa.grad(log_softmax_sum)(x)
    expected = jax.grad(lambda z: jnp.sum(jax.nn.log_softmax(z)))(np.asarray(x))
    assert_allclose(got, np.asarray(expected))
    # The linearized function: max's tangent is one extremum_tangent equation, whose output
    # stop_gradient discards, so the backward pass never transposes it.
    from funcarray.transforms.autodiff import linearize_flat
    _, linear, _ = linearize_flat(lambda z: [log_softmax_sum(z)], [x])
    names = [eqn.prim.name for eqn in linear.ir.eqns]
    assert names.count("extremum_tangent") == 1 and "eq" not in names, names


def test_extremum_tangent_rejects_mismatched_operands():
    x = fnp.ones((2, 3))
    with pytest.raises(TypeError, match="extremum_tangent: .*float32\\[2,3\\].*axes=\\(1,\\)"):
        red.extremum_tangent_p.bind(x, x, fnp.ones(3), axes=(1,))


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("name", ["reduce_sum", "reduce_prod", "reduce_max"])
def test_tangents_keep_low_precision_dtypes(name, dtype):
    x = fnp.asarray(np.array([[1.0, 2.0, 3.0], [4.0, 0.5, 6.0]], dtype))
    _, tangent = fa.jvp(_reducer(REDUCERS[name][0], (1,)), (x,), (fnp.ones_like(x),))
    assert tangent.dtype == np.dtype(dtype) and tangent.shape == (2,)


# --------------------------------------------------------------------------------------------
# Scans: cumprod, cummax, cummin, cumlogsumexp (a differentiated prefix scan, as in JAX)
# --------------------------------------------------------------------------------------------

@given(scan_cases(), st.sampled_from(["cumprod", "cummax", "cummin", "cumlogsumexp"]),
       st.integers(0, 2**16))
def test_scan_jvp_matches_finite_differences(case, name, seed):
    shape, axis, reverse = case
    rng = np.random.default_rng(seed)
    x = _random(rng, shape)
    f = _scanner(SCANS[name][0], axis, reverse)
    check_grads(f, (fnp.asarray(x),), order=1, modes=("fwd",), seed=seed)


@pytest.mark.parametrize("name", ["cumprod", "cummax", "cummin", "cumlogsumexp"])
@pytest.mark.parametrize("shape, axis, reverse", [((2, 6), 1, True)])
def test_scan_jvp_matches_jax(name, shape, axis, reverse):
    prim, jax_fn = SCANS[name]
    rng = np.random.default_rng(len(shape) + axis)
    x, t = _random(rng, shape), _random(rng, shape)
    out, got = _fa_jvp(_scanner(prim, axis, reverse), x, t)
    expected_out, expected = _jax_jvp(lambda v: jax_fn(v, axis, reverse), x, t)
    assert_allclose(out, np.asarray(expected_out))
    assert_allclose(got, np.asarray(expected))


@pytest.mark.parametrize("name", ["cumprod", "cummax", "cummin", "cumlogsumexp"])
@pytest.mark.parametrize("seed", range(5))
def test_scan_second_order_and_reverse(name, seed):
    rng = np.random.default_rng(seed)
    shape, axis, reverse = _random_scan_case(rng)
    x = fnp.asarray(_random(rng, shape))
    check_grads(_scanner(SCANS[name][0], axis, reverse), (x,), order=2, seed=seed)


def _cumprod_jacobian(x):
    """``J[k, i] = prod_{j <= k, j != i} x_j`` for ``i <= k``: exact with zeros."""
    n = x.size
    jac = np.zeros((n, n))
    for k in range(n):
        for i in range(k + 1):
            jac[k, i] = np.prod(np.delete(x[:k + 1], i))
    return jac


@pytest.mark.parametrize("x", [np.array([2.0, 0.0, 3.0, 0.0, 3.0, 1.5]),
                               np.array([0.0, 0.0, 0.0]), np.array([1.5, -2.0, 0.0, 4.0])])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumprod_jvp_and_vjp_with_zeros_are_exact(x, reverse):
    flip = (lambda a: a[::-1]) if reverse else (lambda a: a)
    jac = _cumprod_jacobian(flip(x))
    rng = np.random.default_rng(x.size)
    t, ct = rng.standard_normal(x.shape), rng.standard_normal(x.shape)
    f = _scanner(red.cumprod_p, 0, reverse)
    assert_allclose(_fa_jvp(f, x, t)[1], flip(jac @ flip(t)))
    assert_allclose(_fa_vjp(f, x, ct)[1], flip(jac.T @ flip(ct)))


SPECIAL_SCANS = [
    ("cummax", np.array([1.0, 1.0, 1.0, 1.0, 1.0])),        # ties share as in JAX's scan
    ("cummax", np.array([3.0, 1.0, 3.0, 2.0, 5.0, 5.0, 1.0])),
    ("cummin", np.array([2.0, 2.0, 1.0, 1.0, 3.0, 1.0])),
    ("cummax", np.array([1.0, np.nan, 2.0])),
    ("cumlogsumexp", np.array([-np.inf, -np.inf, 3.0, 0.0, 3.0])),
    ("cumlogsumexp", np.array([-1000.0, 0.0, 1000.0, np.inf, 2.0])),
]


@pytest.mark.parametrize("name, x", SPECIAL_SCANS, ids=range(len(SPECIAL_SCANS)))
def test_scan_jvp_on_ties_and_infinities_matches_jax(name, x):
    prim, jax_fn = SCANS[name]
    t = np.array([1.0, 10.0, 100.0, 1000.0, 1e4, 1e5, 1e6])[:x.size]
    # Both directions in one jitted oracle (one compilation).
    expected = _jax_jvp(lambda v: (jax_fn(v, 0, False), jax_fn(v, 0, True)), x, t)[1]
    for reverse, want in zip((False, True), expected):
        _, got = _fa_jvp(_scanner(prim, 0, reverse), x, t)
        assert_allclose(got, np.asarray(want), err_msg=f"reverse={reverse}: ")


@pytest.mark.parametrize("name, x", SPECIAL_SCANS[:3], ids=range(3))
@pytest.mark.parametrize("reverse", [False, True])
def test_scan_vjp_on_ties_is_the_transpose_of_the_jvp(name, x, reverse):
    check_jvp_vjp(_scanner(SCANS[name][0], 0, reverse), (fnp.asarray(x),))


# --------------------------------------------------------------------------------------------
# Zero tangents: arg-reductions and bitwise reductions
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("prim", [red.argmax_p, red.argmin_p])
def test_arg_reductions_have_zero_tangents(prim):
    x = fnp.asarray(np.array([[1.0, 3.0, 2.0], [5.0, 4.0, 6.0]]))
    out, tangent = prim.jvp_rule([x], [fnp.ones_like(x)], axes=(1,),
                                 index_dtype=np.dtype(np.int32))
    assert type(tangent) is Zero and tangent.aval.dtype == np.int32
    assert_allclose(out, np.asarray(jnp.argmax(np.asarray(x), 1) if prim is red.argmax_p
                                    else jnp.argmin(np.asarray(x), 1), np.int32))
    _, t_out = fa.jvp(lambda v: prim.bind(v, axes=(1,), index_dtype=np.dtype(np.int32)),
                      (x,), (fnp.ones_like(x),))
    assert t_out.dtype == fa.dtypes.float0 and t_out.shape == (2,)  # JAX's float0


@pytest.mark.parametrize("prim", BITWISE)
def test_bitwise_reductions_have_zero_tangents(prim):
    x = fnp.asarray(np.array([[1, 3, 2], [5, 4, 6]], np.int32))
    out, tangent = prim.jvp_rule([x], [Zero(x.aval)], axes=(0,))
    assert type(tangent) is Zero and tangent.aval.shape == (3,)
    assert_allclose(out, prim.bind(x, axes=(0,)))


def test_grad_through_argmax_is_zero_for_the_index_and_flows_through_the_value():
    x = np.array([[1.0, 3.0, 2.0], [5.0, 4.0, 6.0]])

    def f(v, np_):
        index = np_.argmax(v, axis=1)
        return np_.sum(np_.max(v, axis=1) * index.astype(v.dtype))

    got = fa.grad(lambda v: f(v, fnp))(fnp.asarray(x))
    assert_allclose(got, np.asarray(jax.jit(jax.grad(lambda v: f(v, jnp)))(x)))


# --------------------------------------------------------------------------------------------
# Batching: every primitive, random batch axes (negative too), unbatched operands
# --------------------------------------------------------------------------------------------

ALL_REDUCERS = [red.reduce_sum_p, red.reduce_prod_p, red.reduce_max_p, red.reduce_min_p,
                *BITWISE]


@given(st.data(), reduce_cases(max_rank=3), st.sampled_from(ALL_REDUCERS),
       st.integers(1, 3), st.integers(0, 2**16))
def test_reduction_batch_rules_match_a_loop(data, case, prim, size, seed):
    shape, axes = case
    dtype = np.int32 if prim in BITWISE else np.float64
    in_axis = _batch_axis(data.draw, len(shape))
    x = fnp.asarray(_with_batch_axis(np.random.default_rng(seed), shape, in_axis, size, dtype))
    out_axis = data.draw(st.integers(0, len(shape) - len(axes)))
    check_vmap(_reducer(prim, axes), (x,), in_axes=in_axis, out_axes=out_axis)


@given(st.data(), st.sampled_from([red.argmax_p, red.argmin_p]), st.integers(0, 2**16))
def test_arg_reduction_batch_rules_match_a_loop(data, prim, seed):
    shape = tuple(data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=3)))
    axis = data.draw(st.integers(0, len(shape) - 1))
    in_axis = _batch_axis(data.draw, len(shape))
    rng = np.random.default_rng(seed)
    # Small integers as floats: many ties, so the first-index rule is exercised.
    x = fnp.asarray(_with_batch_axis(rng, shape, in_axis, 3, np.int32).astype(np.float64))
    f = lambda v: prim.bind(v, axes=(axis,), index_dtype=np.dtype(np.int32))
    check_vmap(f, (x,), in_axes=in_axis)


@given(st.data(), scan_cases(), st.sampled_from(list(SCANS)), st.integers(0, 2**16))
def test_scan_batch_rules_match_a_loop(data, case, name, seed):
    shape, axis, reverse = case
    in_axis = _batch_axis(data.draw, len(shape))
    x = fnp.asarray(_with_batch_axis(np.random.default_rng(seed), shape, in_axis, 2))
    check_vmap(_scanner(SCANS[name][0], axis, reverse), (x,), in_axes=in_axis)


@pytest.mark.parametrize("in_axes", [(0, None), (None, 1), (-1, -2)])
def test_batch_rules_with_an_unbatched_operand(in_axes):
    rng = np.random.default_rng(3)
    shapes = {None: (3, 4)}
    x = fnp.asarray(_with_batch_axis(rng, shapes[None], in_axes[0], 2))
    y = fnp.asarray(_with_batch_axis(rng, shapes[None], in_axes[1], 2))

    def f(a, b):
        s = a * b
        return (red.reduce_max_p.bind(s, axes=(1,)), red.cumsum_p.bind(s, axis=0, reverse=True),
                red.argmin_p.bind(s, axes=(0,), index_dtype=np.dtype(np.int32)))
    check_vmap(f, (x, y), in_axes=in_axes)


def test_batch_rule_output_axis_is_where_the_batch_axis_lands():
    x = fnp.asarray(np.arange(2 * 3 * 4 * 5, dtype=np.float64).reshape(2, 3, 4, 5))
    # Batch axis 2: each member is (2, 3, 5); reducing its axes (0, 2) reduces axes (0, 3)
    # of the batched value, and the batch axis (4 members) lands at 1 of the (3, 4) result.
    out, out_dim = red.reduce_sum_p.batch_rule([x], [2], axes=(0, 2))
    assert out_dim == 1 and out.shape == (3, 4)
    assert_allclose(out, np.asarray(x).sum(axis=(0, 3)))
    out, out_dim = red.cumprod_p.batch_rule([x], [0], axis=1, reverse=False)
    assert out_dim == 0
    assert_allclose(out, np.cumprod(np.asarray(x), axis=2))


def test_vmap_matches_jax_vmap():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, 4, 5))
    cases = [
        (lambda v: red.reduce_max_p.bind(v, axes=(0,)), lambda v: jnp.max(v, axis=0), 1),
        (lambda v: red.reduce_prod_p.bind(v, axes=(0, 1)), lambda v: jnp.prod(v, (0, 1)), 2),
        (lambda v: red.cumlogsumexp_p.bind(v, axis=1, reverse=True),
         lambda v: lax.cumlogsumexp(v, 1, reverse=True), -1),
        (lambda v: red.argmax_p.bind(v, axes=(1,), index_dtype=np.dtype(np.int32)),
         lambda v: jnp.argmax(v, axis=1).astype(np.int32), 0),
    ]
    for f, g, in_axis in cases:
        got = fa.vmap(f, in_axes=in_axis)(fnp.asarray(x))
        assert_allclose(got, np.asarray(jax.jit(jax.vmap(g, in_axes=in_axis))(x)))


# --------------------------------------------------------------------------------------------
# funcarray.numpy reductions under the transforms, against jax.numpy
# --------------------------------------------------------------------------------------------

def _logsumexp(np_, stop_gradient):
    """The usual stable logsumexp: shift by the (constant) maximum, sum the exponentials."""
    def lse(x, axis=None, keepdims=False):
        m = stop_gradient(np_.max(x, axis=axis, keepdims=True))
        s = np_.log(np_.sum(np_.exp(x - m), axis=axis, keepdims=True)) + m
        return s if keepdims else np_.squeeze(s, axis=axis)
    return lse


COMPOSITIONS = {  # name -> (funcarray version, jax version), both f(x, axis, keepdims)
    "sum": (fnp.sum, jnp.sum),
    "prod": (fnp.prod, jnp.prod),
    "max": (fnp.max, jnp.max),
    "min": (fnp.min, jnp.min),
    "mean": (fnp.mean, jnp.mean),
    "var": (lambda x, axis, keepdims: fnp.var(x, axis, ddof=1, keepdims=keepdims),
            lambda x, axis, keepdims: jnp.var(x, axis, ddof=1, keepdims=keepdims)),
    "std": (fnp.std, jnp.std),
    "logsumexp": (_logsumexp(fnp, fa.stop_gradient), _logsumexp(jnp, lax.stop_gradient)),
    "max_minus_mean": (lambda x, axis, keepdims: fnp.max(x, axis, keepdims=keepdims)
                       - fnp.mean(x, axis, keepdims=keepdims),
                       lambda x, axis, keepdims: jnp.max(x, axis, keepdims=keepdims)
                       - jnp.mean(x, axis, keepdims=keepdims)),
}
# Reductions along one axis, not keepdims-aware: f(x, axis).
SCAN_COMPOSITIONS = {
    "cumsum": (fnp.cumsum, jnp.cumsum),
    "cumprod": (fnp.cumprod, jnp.cumprod),
    "argmax_weighted": (lambda x, axis: fnp.argmax(x, axis).astype(x.dtype) * fnp.sum(x, axis),
                        lambda x, axis: jnp.argmax(x, axis).astype(x.dtype) * jnp.sum(x, axis)),
}


@st.composite
def composition_cases(draw, names=tuple(COMPOSITIONS)):
    shape = tuple(draw(st.lists(st.integers(2, 3), min_size=1, max_size=3)))
    axis = draw(st.one_of(
        st.none(), st.integers(-len(shape), len(shape) - 1),
        st.sets(st.integers(0, len(shape) - 1), min_size=1).map(tuple)))
    return draw(st.sampled_from(names)), shape, axis, draw(st.booleans())


def _composition(name, axis, keepdims):
    fa_fn, jax_fn = COMPOSITIONS[name]
    return (lambda x: fa_fn(x, axis=axis, keepdims=keepdims),
            lambda x: jax_fn(x, axis=axis, keepdims=keepdims))


def _positive_if_prod(name, x):
    # Keep products away from zero so relative tolerances stay meaningful.
    return np.abs(x) + 0.5 if name == "prod" else x


def _numpy_tangent(name, x, t, axis, keepdims):
    """The directional derivative by hand (distinct, nonzero values: no ties, no zeros)."""
    if name == "sum":
        return np.sum(t, axis=axis, keepdims=keepdims)
    if name == "prod":
        return np.sum(t * np.prod(x, axis=axis, keepdims=True) / x, axis=axis,
                      keepdims=keepdims)
    extremum = (np.max if name == "max" else np.min)(x, axis=axis, keepdims=True)
    return np.sum(np.where(x == extremum, t, 0), axis=axis, keepdims=keepdims)


@given(composition_cases(names=("sum", "prod", "max", "min")), st.integers(0, 2**16))
def test_numpy_reductions_jvp_matches_a_hand_derivative(case, name_seed):
    name, shape, axis, keepdims = case
    rng = np.random.default_rng(name_seed)
    x, t = _positive_if_prod(name, _random(rng, shape)), _random(rng, shape)
    f, _ = _composition(name, axis, keepdims)
    _, got = _fa_jvp(f, x, t)
    assert_allclose(got, _numpy_tangent(name, x, t, axis, keepdims))


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min"])
@pytest.mark.parametrize("axis, keepdims", [(None, False), ((0, 2), True)])
def test_numpy_reductions_jvp_matches_jax(name, axis, keepdims):
    rng = np.random.default_rng(11)
    x, t = _positive_if_prod(name, _random(rng, (2, 3, 4))), _random(rng, (2, 3, 4))
    f, g = _composition(name, axis, keepdims)
    out, got = _fa_jvp(f, x, t)
    expected_out, expected = _jax_jvp(g, x, t)
    assert_allclose(out, np.asarray(expected_out))
    assert_allclose(got, np.asarray(expected))


def _random_composition_case(rng):
    rank = int(rng.integers(1, 4))
    shape = tuple(int(d) for d in rng.integers(2, 4, rank))
    axis = [None, int(rng.integers(-rank, rank)),
            tuple(int(a) for a in rng.choice(rank, rng.integers(1, rank + 1), replace=False))]
    return shape, axis[int(rng.integers(0, 3))], bool(rng.integers(0, 2))


@pytest.mark.parametrize("name", list(COMPOSITIONS))
@pytest.mark.parametrize("seed", [0])
def test_numpy_reductions_jvp_and_vjp_match_jax(name, seed):
    rng = np.random.default_rng(seed)
    shape, axis, keepdims = _random_composition_case(rng)
    x, t = _positive_if_prod(name, _random(rng, shape)), _random(rng, shape)
    f, g = _composition(name, axis, keepdims)
    _, got = _fa_jvp(f, x, t)
    assert_allclose(got, np.asarray(_jax_jvp(g, x, t)[1]))
    ct = _random(rng, np.shape(jax.eval_shape(g, x)))
    _, got = _fa_vjp(f, x, ct)
    assert_allclose(got, np.asarray(_jax_vjp(g, x, ct)))
    check_grads(f, (fnp.asarray(x),), order=1, seed=seed)


@pytest.mark.parametrize("name", list(COMPOSITIONS))
@pytest.mark.parametrize("seed", [10])
def test_numpy_reductions_grad_matches_jax(name, seed):
    rng = np.random.default_rng(seed)
    shape, axis, keepdims = _random_composition_case(rng)
    x = _positive_if_prod(name, _random(rng, shape))
    f, g = _composition(name, axis, keepdims)
    got = fa.grad(lambda v: fnp.sum(f(v) ** 2))(fnp.asarray(x))
    assert_allclose(got, np.asarray(jax.jit(jax.grad(lambda v: jnp.sum(g(v) ** 2)))(x)))


@pytest.mark.parametrize("name", list(SCAN_COMPOSITIONS))
@pytest.mark.parametrize("axis", [0, -1, None])
def test_numpy_scans_and_argmax_grad_and_vjp_match_jax(name, axis):
    fa_fn, jax_fn = SCAN_COMPOSITIONS[name]
    x = np.random.default_rng(5).standard_normal((3, 4))
    got = fa.grad(lambda v: fnp.sum(fa_fn(v, axis) ** 2))(fnp.asarray(x))
    assert_allclose(got, np.asarray(jax.jit(jax.grad(lambda v: jnp.sum(jax_fn(v, axis) ** 2)))(x)))
    check_grads(lambda v: fa_fn(v, axis), (fnp.asarray(x),), order=2)


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("axis", [0, -1, None])
def test_numpy_scans_jvp_matches_jax(name, axis):
    fa_fn, jax_fn = SCAN_COMPOSITIONS[name]
    rng = np.random.default_rng(6)
    x, t = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    _, got = _fa_jvp(lambda v: fa_fn(v, axis), x, t)
    assert_allclose(got, np.asarray(_jax_jvp(lambda v: jax_fn(v, axis), x, t)[1]))


@given(st.data(), composition_cases(names=("sum", "prod", "max", "min")),
       st.integers(0, 2**16))
def test_numpy_reductions_vmap_match_a_loop(data, case, seed):
    name, shape, axis, keepdims = case
    in_axis = _batch_axis(data.draw, len(shape))
    x = _with_batch_axis(np.random.default_rng(seed), shape, in_axis, 2)
    check_vmap(_composition(name, axis, keepdims)[0], (fnp.asarray(x),), in_axes=in_axis)


@pytest.mark.parametrize("name", list(COMPOSITIONS))
@pytest.mark.parametrize("seed", [20])
def test_numpy_reductions_vmap_matches_jax(name, seed):
    rng = np.random.default_rng(seed)
    shape, axis, keepdims = _random_composition_case(rng)
    in_axis = int(rng.integers(-len(shape) - 1, len(shape) + 1))
    x = _with_batch_axis(rng, shape, in_axis, 2)
    f, g = _composition(name, axis, keepdims)
    got = fa.vmap(f, in_axes=in_axis)(fnp.asarray(x))
    assert_allclose(got, np.asarray(jax.jit(jax.vmap(g, in_axes=in_axis))(x)))


@pytest.mark.parametrize("name", list(SCAN_COMPOSITIONS))
@pytest.mark.parametrize("in_axis", [0, 1, -1])
def test_numpy_scans_vmap_matches_jax(name, in_axis):
    fa_fn, jax_fn = SCAN_COMPOSITIONS[name]
    x = np.random.default_rng(7).standard_normal((2, 3, 4))
    got = fa.vmap(lambda v: fa_fn(v, 0), in_axes=in_axis)(fnp.asarray(x))
    assert_allclose(got, np.asarray(jax.jit(jax.vmap(lambda v: jax_fn(v, 0), in_axes=in_axis))(x)))


@pytest.mark.parametrize("name", ["max", "prod", "logsumexp", "std"])
def test_per_example_grads_vmap_of_grad_matches_jax(name):
    x = np.abs(np.random.default_rng(8).standard_normal((3, 2, 4))) + 0.5
    f, g = _composition(name, 1, False)
    got = fa.vmap(fa.grad(lambda v: fnp.sum(f(v))), in_axes=1)(fnp.asarray(x))
    expected = jax.jit(jax.vmap(jax.grad(lambda v: jnp.sum(g(v))), in_axes=1))(x)
    assert_allclose(got, np.asarray(expected))


def test_grad_of_vmap_through_scans_matches_jax():
    x = np.random.default_rng(9).standard_normal((3, 5))

    def loss(np_, cumlogsumexp, cummax):
        def f(v):
            return np_.sum(cumlogsumexp(v, 0, True) * cummax(v, 0, False))
        return lambda m: np_.sum(jax_or_fa_vmap(np_)(f)(m))

    def jax_or_fa_vmap(np_):
        return fa.vmap if np_ is fnp else jax.vmap

    fa_loss = loss(fnp, lambda v, a, r: red.cumlogsumexp_p.bind(v, axis=a, reverse=r),
                   lambda v, a, r: red.cummax_p.bind(v, axis=a, reverse=r))
    jax_loss = loss(jnp, lax.cumlogsumexp, lax.cummax)
    assert_allclose(fa.grad(fa_loss)(fnp.asarray(x)), np.asarray(jax.jit(jax.grad(jax_loss))(x)))
