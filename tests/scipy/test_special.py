"""Special-function primitives (erf, erfc, erf_inv, lgamma, digamma) and funcarray.scipy.special.

Oracles: scipy.special for values, XLA (jax.lax and
our own compiled code) for edge values and low-precision behaviour, jax.grad for derivatives.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
import scipy.special as oracle
from helpers import assert_compiled_matches_eager, assert_same
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import lax
from funcarray.lowering.stablehlo import lower_ir
from funcarray.primitives import special
from funcarray.scipy import special as fsp
from funcarray.testing import check_grads, check_jvp_vjp, check_vmap
from funcarray.transforms.staging import make_ir

_ORACLE = {"erf": oracle.erf, "erfc": oracle.erfc, "erfinv": oracle.erfinv,
           "gammaln": oracle.gammaln, "digamma": oracle.digamma,
           "trigamma": lambda x: oracle.polygamma(1, x)}

FUNCS = {"erf": fsp.erf, "erfc": fsp.erfc, "erfinv": fsp.erfinv, "gammaln": fsp.gammaln,
         "digamma": fsp.digamma}
JAX_FUNCS = {"erf": jax.lax.erf, "erfc": jax.lax.erfc, "erfinv": jax.lax.erf_inv,
             "gammaln": jax.lax.lgamma, "digamma": jax.lax.digamma}
FLOAT_DTYPES = [np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16), np.dtype(np.float32),
                np.dtype(np.float64)]
# Relative error allowed against the exact value, per compute precision. float32 results come
# from XLA's float32 algorithms (a few ulps); float16/bfloat16 from rounding those.
_RTOL = {np.float16: 2e-3, ml_dtypes.bfloat16: 1.6e-2, np.float32: 1e-5, np.float64: 1e-13}


def _rtol(dt):
    return _RTOL[np.dtype(dt).type]


def _inputs(name, n=400, seed=0):
    """Float64 sample points inside each function's accurate range (edge values separately)."""
    rng = np.random.default_rng(seed)
    if name == "erfinv":
        return rng.uniform(-0.99, 0.99, n)
    if name in ("erf", "erfc"):
        return np.concatenate([rng.normal(0, 2, n // 2), rng.uniform(-6, 6, n // 2)])
    # lgamma/digamma: positive arguments and negative ones away from the poles.
    positive = rng.uniform(0.01, 60, n // 2)
    negative = -rng.uniform(0, 8, n // 2)
    return np.concatenate([positive, np.round(negative) + rng.uniform(0.1, 0.9, n // 2)])


def _atol(name, dt):
    """Absolute slack where the relative error is unbounded: lgamma's zeros at 1 and 2, digamma's
    near 1.46, erfc's tail underflowing in low precision; scaled to the compute precision."""
    eps = np.finfo(np.float32 if np.dtype(dt).itemsize < 4 else dt).eps
    return {"gammaln": 64, "digamma": 64, "erfc": 1, "erf": 1, "erfinv": 1}[name] * eps


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize("name", list(FUNCS))
def test_values_match_oracle(name, dtype):
    x = _inputs(name).astype(dtype)
    got = FUNCS[name](fnp.asarray(x))
    assert got.dtype == dtype and got.shape == x.shape
    want = _ORACLE[name](x.astype(np.float64)).astype(dtype).astype(np.float64)
    _assert_close(np.asarray(got).astype(np.float64), want, _rtol(dtype), _atol(name, dtype))


def _assert_close(got, want, rtol, atol):
    """|got - want| <= rtol |want| + atol max(1, |want|) (the atol scaled for large values)."""
    slack = rtol * np.abs(want) + atol * np.maximum(1, np.abs(want))
    with np.errstate(invalid="ignore"):  # inf - inf where both are infinite
        bad = ~(np.abs(got - want) <= slack) & ~(np.isnan(got) & np.isnan(want)) & (got != want)
    assert not bad.any(), (
        f"mismatch at {np.flatnonzero(bad)[:5]}: {got[bad][:5]} vs {want[bad][:5]}")


EDGES = {
    "erf": [-np.inf, np.inf, np.nan, 0.0, -0.0, 30.0, -30.0, 1e-30],
    "erfc": [-np.inf, np.inf, np.nan, 0.0, -0.0, 30.0, -30.0, 1e-30],
    "erfinv": [-1.0, 1.0, -1.5, 2.0, np.nan, 0.0, -0.0, -np.inf],
    "gammaln": [-np.inf, np.inf, np.nan, 0.0, -0.0, -1.0, -2.0, -10.0, 1.0, 2.0, 1e-30,
                -1e30, 1e30],
    "digamma": [-np.inf, np.inf, np.nan, 0.0, -0.0, -1.0, -2.0, -10.0, 1.0, 1e-30, -1e-30,
                -1e30],
}


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize("name", list(FUNCS))
def test_edge_values_match_xla(name, dtype):
    """Infinities, NaNs, poles and signed zeros exactly as XLA gives them."""
    with np.errstate(over="ignore"):  # +-1e30 overflow to +-inf in float16: fine
        x = np.asarray(EDGES[name]).astype(dtype)
    got = np.asarray(FUNCS[name](fnp.asarray(x))).astype(np.float64)
    want = np.asarray(JAX_FUNCS[name](jnp.asarray(x))).astype(np.float64)
    special_value = ~np.isfinite(want)
    np.testing.assert_array_equal(got[special_value], want[special_value])
    if name in ("erf", "erfinv"):  # odd functions keep the sign of zero
        np.testing.assert_array_equal(np.signbit(got[x == 0]), np.signbit(x[x == 0]))
    _assert_close(got, want, _rtol(dtype), _atol(name, dtype))


@settings(max_examples=25)
@given(st.sampled_from(list(FUNCS)), st.sampled_from(FLOAT_DTYPES),
       hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=4), st.integers(0, 99))
def test_compiled_matches_eager_random_shapes(name, dtype, shape, seed):
    x = _inputs(name, 64, seed=seed)[:int(np.prod(shape))].reshape(shape).astype(dtype)
    rtol = 4 * _rtol(dtype) if dtype != np.float64 else 1e-13
    assert_compiled_matches_eager(FUNCS[name], fnp.asarray(x), rtol=rtol,
                                  atol=_atol(name, dtype))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize("name", list(FUNCS))
def test_compiled_matches_eager(name, dtype):
    with np.errstate(over="ignore"):  # +-1e30 overflow to +-inf in float16: fine
        x = np.concatenate([_inputs(name, 64, seed=1), EDGES[name]]).astype(dtype)
    if name in ("erf", "erfc"):
        # Leave out float32's subnormal tail of erfc, which XLA's CPU code flushes to zero.
        x = x[~(np.abs(x.astype(np.float64)) > 9)] if dtype == np.float32 else x
    rtol = 4 * _rtol(dtype) if dtype != np.float64 else 1e-13
    assert_compiled_matches_eager(FUNCS[name], fnp.asarray(x), rtol=rtol,
                                  atol=_atol(name, dtype))


@pytest.mark.parametrize("name", list(FUNCS))
def test_compiled_matches_eager_scalar_and_empty(name):
    for x in (fnp.asarray(0.25), fnp.zeros((0, 3)), fnp.full((2, 1), 0.75, dtype="float64")):
        assert_compiled_matches_eager(FUNCS[name], x)


@pytest.mark.parametrize("name", list(FUNCS))
def test_matches_jax_in_float32_within_ulps(name):
    """The float32 kernels follow XLA's algorithms: a few ulps apart at most."""
    x = _inputs(name, 200, seed=2).astype(np.float32)
    got = np.asarray(FUNCS[name](fnp.asarray(x)))
    want = np.asarray(JAX_FUNCS[name](jnp.asarray(x)))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=_atol(name, np.float32))


def test_erf_inv_float32_is_within_two_ulps_of_xla():
    """``funcarray.random.normal`` relies on erf_inv following XLA's float32 evaluation."""
    x = np.random.default_rng(3).uniform(-1, 1, 2000).astype(np.float32)
    got = np.asarray(fsp.erfinv(fnp.asarray(x)))
    want = np.asarray(jax.lax.erf_inv(jnp.asarray(x)))
    np.testing.assert_array_max_ulp(got, want, maxulp=2)


@pytest.mark.parametrize("name", list(FUNCS))
def test_lowers_to_one_chlo_op(name):
    prim_name = {"erfinv": "erf_inv", "gammaln": "lgamma"}.get(name, name)
    text = lower_ir(make_ir(FUNCS[name])(fnp.ones(3)).closed)
    assert f'"chlo.{prim_name}"' in text


# --- public API: dtypes, weak types, errors --------------------------------------------------

@pytest.mark.parametrize("name", list(FUNCS))
@pytest.mark.parametrize("value", [0.5, 2, True, np.int64(3), np.float16(0.5),
                                   np.int8(1), np.float64(0.25)], ids=repr)
def test_dtype_and_weak_type_match_other_math_functions(name, value):
    """Like fnp.exp: ints as floats, Python scalars weak (jax agrees except that its x64 mode,
    on in these tests, makes Python scalars float64)."""
    got = FUNCS[name](value)
    want = fnp.exp(value)
    assert got.dtype == want.dtype
    assert got.weak_type == want.weak_type


def test_complex_input_is_rejected():
    with pytest.raises(TypeError, match=r"erf: complex inputs are not supported"):
        fsp.erf(fnp.asarray([1 + 1j]))


@pytest.mark.parametrize("prim", [special.erf_p, special.lgamma_p, special.digamma_p])
def test_primitive_needs_a_float_operand(prim):
    with pytest.raises(TypeError, match=rf"Primitive '{prim.name}' needs a float operand"):
        make_ir(prim.bind)(fnp.asarray([1, 2]))


# --- derivatives -----------------------------------------------------------------------------

_GRAD_POINTS = {
    "erf": [-2.5, -0.3, 0.0, 0.7, 3.0],
    "erfc": [-2.5, -0.3, 0.0, 0.7, 3.0],
    "erfinv": [-0.9, -0.3, 0.0, 0.5, 0.95],
    "gammaln": [0.3, 1.0, 2.5, 7.0, -0.5, -2.7],
    "digamma": [0.3, 1.0, 2.5, 12.0, -0.5, -2.7],
}


@pytest.mark.parametrize("name", list(FUNCS))
def test_check_grads_float64(name):
    x = fnp.asarray(np.asarray(_GRAD_POINTS[name], np.float64))
    check_grads(FUNCS[name], (x,), order=2)
    check_jvp_vjp(FUNCS[name], (x,))


@pytest.mark.parametrize("name", list(FUNCS))
def test_grad_matches_jax(name):
    def total(f):
        return lambda x: f(x).sum()

    x = np.asarray(_GRAD_POINTS[name], np.float64)
    got = fa.grad(total(FUNCS[name]))(fnp.asarray(x))
    want = jax.grad(total(getattr(jax.scipy.special, name)))(jnp.asarray(x))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12, atol=1e-13)
    # Second derivatives (digamma's goes through trigamma, lgamma's through digamma's jvp).
    got2 = fa.grad(total(fa.grad(total(FUNCS[name]))))(fnp.asarray(x))
    want2 = jax.grad(total(jax.grad(total(getattr(jax.scipy.special, name)))))(jnp.asarray(x))
    np.testing.assert_allclose(np.asarray(got2), np.asarray(want2), rtol=1e-10, atol=1e-12)


def test_grad_float32_keeps_dtype():
    g = fa.grad(lambda x: fsp.gammaln(x))(fnp.float32(3.0))
    assert g.dtype == np.float32
    np.testing.assert_allclose(float(g), 0.9227843, rtol=1e-6)


def test_trigamma_matches_oracle():
    x = np.concatenate([np.linspace(0.05, 40, 97), -np.linspace(0.1, 6.9, 31) - 0.013])
    got = special._trigamma(fnp.asarray(x))
    np.testing.assert_allclose(np.asarray(got), _ORACLE["trigamma"](x), rtol=2e-13)


def test_grad_compiles():
    f = fa.jit(fa.grad(lambda x: (fsp.digamma(x) + fsp.erf(x) + fsp.erfinv(x / 4)).sum()))
    x = fnp.asarray([0.3, 1.5, 2.0], dtype="float64")
    want = fa.grad(lambda x: (fsp.digamma(x) + fsp.erf(x) + fsp.erfinv(x / 4)).sum())(x)
    np.testing.assert_allclose(np.asarray(f(x)), np.asarray(want), rtol=1e-12)


# --- batching --------------------------------------------------------------------------------

@given(st.sampled_from(list(FUNCS)), st.integers(1, 3), st.integers(1, 4),
       st.sampled_from([0, 1, -1]))
def test_vmap(name, rows, cols, axis):
    x = fnp.asarray(np.random.default_rng(rows * cols).uniform(0.1, 0.9, (rows, cols)))
    check_vmap(FUNCS[name], (x,), in_axes=axis)
    check_vmap(lambda a, b: FUNCS[name](a) * b, (x, fnp.asarray(0.5)), in_axes=(axis, None))


# --- lgamma is exactly 0 at 1 and 2 ----------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lgamma_exact_zeros_and_accuracy(dtype):
    ones_twos = np.array([1.0, 2.0], dtype)
    for got in (lax.lgamma(ones_twos), fa.jit(lax.lgamma)(ones_twos)):
        assert_same(got, np.zeros(2, dtype))
    # Accuracy elsewhere is the Lanczos approximation's: within a few ulps of the terms it
    # sums (|lgamma| + 7), as XLA's lgamma is.
    xs = np.concatenate([np.linspace(0.01, 30.0, 2001), np.linspace(-9.7, 0.45, 501)])
    xs = xs.astype(dtype)
    want = np.array([math.lgamma(float(v)) for v in xs])
    scale = np.finfo(dtype).eps * (np.abs(want) + 7.0)
    for got in (lax.lgamma(xs), fa.jit(lax.lgamma)(xs)):
        assert np.max(np.abs(np.asarray(got, np.float64) - want) / scale) < 16
    # gammainc/gammaincc at a = 1 (exp(-x)) no longer carry lgamma(1)'s error
    one = dtype(1.0)
    np.testing.assert_allclose(fsp.gammaincc(one, one), math.exp(-1),
                               rtol=3 * np.finfo(dtype).eps)
