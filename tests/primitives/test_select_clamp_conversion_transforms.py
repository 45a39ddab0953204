"""Transformation rules (jvp, transpose, batching) of ``select_n``, ``clamp`` and the
conversions (``funcarray/primitives/select_n.py``, ``clamp.py``, ``conversions.py``): gradients
with ``check_grads`` and against ``jax``, ``vmap`` against a Python loop and ``jax.vmap``, and
the transposes (a select's cotangent clipped like its forward pass, a conversion's cotangent
of the operand's dtype).
"""
from __future__ import annotations

import hypothesis.strategies as st
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from elementwise_domains import (
    BATCH,
    INTERVALS,
    JAX_SHAPE,
    Interval,
    _as_fa,
    _batched,
    _compare_jvp_with_jax,
    _compare_vjp_with_jax,
    _sample,
    in_axes_for,
    seeds,
    shapes,
)
from hypothesis import given, settings
from jax import lax

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.primitives.clamp import clamp_p
from funcarray.primitives.conversions import bitcast_convert_type_p, convert_element_type_p
from funcarray.primitives.select_n import select_n_p
from funcarray.testing import assert_allclose, check_grads, check_jvp_vjp, check_vmap
from funcarray.transforms.core import ShapedArray
from funcarray.transforms.transpose import UndefPrimal

jax.config.update("jax_enable_x64", True)

# --------------------------------------------------------------------------------------------
# select_n
# --------------------------------------------------------------------------------------------

def _select_case(rng, ncases, which_scalar, shape, dtype=np.float64):
    which_shape = () if which_scalar else shape
    if ncases == 2 and rng.integers(2):
        which = rng.integers(0, 2, which_shape).astype(bool)
    else:
        which = rng.integers(0, ncases, which_shape).astype(np.int32)
    cases = [_sample(rng, INTERVALS["any"], shape, dtype) for _ in range(ncases)]
    return which, cases


@settings(max_examples=20)
@given(ncases=st.integers(1, 3), which_scalar=st.booleans(), shape=shapes, seed=seeds)
def test_select_n_grads(ncases, which_scalar, shape, seed):
    rng = np.random.default_rng(seed)
    which, cases = _select_case(rng, ncases, which_scalar, shape)
    w = fnp.asarray(which)

    def f(*cs):
        return select_n_p.bind(w, *cs)
    check_grads(f, _as_fa(*cases), order=2)


@pytest.mark.parametrize("ncases, which_scalar, in_axes", [
    (1, False, (0, -1)), (2, False, (None, 1, 0)), (2, True, (0, None, -1)),
    (2, True, (None, 0, 2)), (3, False, (-1, None, 0, 1)), (3, True, (0, 1, None, None))])
def test_select_n_against_jax(ncases, which_scalar, in_axes):
    rng = np.random.default_rng(ncases)
    which, cases = _select_case(rng, ncases, which_scalar, JAX_SHAPE)
    w = fnp.asarray(which)
    _compare_vjp_with_jax(lambda *cs: select_n_p.bind(w, *cs),
                          lambda *cs: lax.select_n(which, *cs), cases, rng)

    def sample(i):
        if i == 0:
            return _select_case(rng, ncases, which_scalar, JAX_SHAPE)[0].astype(which.dtype)
        return _sample(rng, INTERVALS["any"], JAX_SHAPE)
    args = _batched(rng, sample, in_axes)
    with jax.disable_jit():
        want = jax.vmap(lax.select_n, in_axes=in_axes)(*args)
    assert_allclose(fa.vmap(select_n_p.bind, in_axes=in_axes)(*_as_fa(*args)), want)


@settings(max_examples=30)
@given(data=st.data())
def test_select_n_vmap(data):
    ncases = data.draw(st.integers(1, 3), label="ncases")
    shape = data.draw(shapes, label="shape")
    which_scalar = data.draw(st.booleans(), label="which_scalar")
    rng = np.random.default_rng(data.draw(seeds, label="seed"))
    ndims = [0 if which_scalar else len(shape)] + [len(shape)] * ncases
    in_axes = data.draw(in_axes_for(ndims), label="in_axes")
    which, cases = _select_case(rng, ncases, which_scalar, shape)

    def sample(i):
        if i == 0:
            return _select_case(rng, ncases, which_scalar, shape)[0].astype(which.dtype)
        return _sample(rng, INTERVALS["any"], shape)
    args = _batched(rng, sample, in_axes)
    check_vmap(select_n_p.bind, _as_fa(*args), in_axes=in_axes)

    def case_grads(w, *cs):
        ct = fnp.ones(shape, dtype=np.float64)
        return fa.vjp(lambda *c: select_n_p.bind(w, *c), *cs)[1](ct)
    check_vmap(case_grads, _as_fa(*args), in_axes=in_axes)


def test_select_n_transpose_clips_like_the_forward_pass():
    which = fnp.asarray(np.array([0, 1, 2, 1], np.int32))
    ct = fnp.asarray(np.arange(1.0, 5.0))
    aval = ShapedArray((4,), np.dtype(np.float64))
    cts = select_n_p.transpose_rule(ct, which, UndefPrimal(aval), fnp.zeros(4),
                                       UndefPrimal(aval))
    assert cts[0] is None and cts[2] is None
    assert_allclose(cts[1], [1.0, 0.0, 0.0, 0.0])
    assert_allclose(cts[3], [0.0, 0.0, 3.0, 0.0])




# --------------------------------------------------------------------------------------------
# clamp
# --------------------------------------------------------------------------------------------

@settings(max_examples=20)
@given(shape=shapes, scalar_lo=st.booleans(), scalar_hi=st.booleans(), seed=seeds)
def test_clamp_grads(shape, scalar_lo, scalar_hi, seed):
    rng = np.random.default_rng(seed)
    lo = _sample(rng, Interval(-3.0, -0.5), () if scalar_lo else shape)
    hi = _sample(rng, Interval(0.5, 3.0), () if scalar_hi else shape)
    x = _sample(rng, INTERVALS["any"], shape)
    check_grads(clamp_p.bind, _as_fa(lo, x, hi), order=2)


def _jax_clamp(lo, x, hi):
    # jax's clamp jvp fails for a scalar bound with an array operand: broadcast first.
    return lax.clamp(jnp.broadcast_to(lo, x.shape), x, jnp.broadcast_to(hi, x.shape))


@pytest.mark.parametrize("scalar_lo", [False, True])
@pytest.mark.parametrize("scalar_hi", [False, True])
def test_clamp_against_jax(scalar_lo, scalar_hi):
    rng = np.random.default_rng(11)
    lo = _sample(rng, Interval(-3.0, -0.5), () if scalar_lo else JAX_SHAPE)
    hi = _sample(rng, Interval(0.5, 3.0), () if scalar_hi else JAX_SHAPE)
    x = _sample(rng, INTERVALS["any"], JAX_SHAPE)
    _compare_vjp_with_jax(clamp_p.bind, _jax_clamp, (lo, x, hi), rng)


@settings(max_examples=30)
@given(data=st.data())
def test_clamp_vmap(data):
    shape = data.draw(shapes, label="shape")
    scalar = data.draw(st.tuples(st.booleans(), st.booleans()), label="scalar bounds")
    rng = np.random.default_rng(data.draw(seeds, label="seed"))
    ndims = [0 if scalar[0] else len(shape), len(shape), 0 if scalar[1] else len(shape)]
    in_axes = data.draw(in_axes_for(ndims), label="in_axes")
    intervals = [Interval(-3.0, -0.5), INTERVALS["any"], Interval(0.5, 3.0)]
    shapes_ = [() if scalar[0] else shape, shape, () if scalar[1] else shape]
    args = _batched(rng, lambda i: _sample(rng, intervals[i], shapes_[i]), in_axes)
    check_vmap(clamp_p.bind, _as_fa(*args), in_axes=in_axes)

    def grads(lo, x, hi):
        return fa.vjp(clamp_p.bind, lo, x, hi)[1](fnp.ones(shape, dtype=np.float64))
    check_vmap(grads, _as_fa(*args), in_axes=in_axes)




# --------------------------------------------------------------------------------------------
# convert_element_type, bitcast_convert_type
# --------------------------------------------------------------------------------------------

CONVERSIONS = [(np.float64, np.float32), (np.float32, np.float64), (np.float64, np.float16),
               (np.complex128, np.float64), (np.float64, np.complex128),
               (np.complex64, np.complex128)]


def _convert(dtype):
    return lambda v: convert_element_type_p.bind(v, new_dtype=np.dtype(dtype),
                                                 weak_type=False)


@pytest.mark.parametrize("src, dst", CONVERSIONS)
@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")  # jax's, complex->real
def test_convert_element_type_float_to_float(src, dst):
    rng = np.random.default_rng(8)
    x = _sample(rng, INTERVALS["any"], (2, 3), src)
    f = _convert(dst)
    tol = 1e-3 if np.dtype(dst).itemsize <= 2 else 1e-6
    _compare_vjp_with_jax(f, lambda v: lax.convert_element_type(v, dst), (x,), rng,
                          rtol=tol, atol=tol)
    _compare_jvp_with_jax(f, lambda v: lax.convert_element_type(v, dst), (x,), rng,
                          rtol=tol, atol=tol)
    # Both sides of the identity are rounded to the narrower of the two dtypes.
    check_jvp_vjp(f, _as_fa(x), rtol=tol, atol=tol)
    check_vmap(f, _as_fa(x), in_axes=-2)


@pytest.mark.parametrize("src, dst", [(np.float64, np.int32), (np.float32, np.bool_),
                                      (np.int32, np.float64), (np.bool_, np.float32)])
def test_convert_element_type_to_and_from_integers_has_zero_tangent(src, dst):
    x = fnp.asarray(np.array([1.5, -2.0, 0.0]).astype(src))
    numeric = np.dtype(src).kind == "f"  # (integer primals take float0 tangents, as in JAX)
    t_in = fnp.ones_like(x) if numeric else fnp.zeros_like(x, dtype=fa.dtypes.float0)
    _, t = fa.jvp(_convert(dst), (x,), (t_in,))
    if np.dtype(dst).kind == "f":
        assert not np.asarray(t).any()
    else:
        assert t.dtype == fa.dtypes.float0 and t.shape == x.shape
    if np.dtype(src).kind == "f":
        g = fa.grad(lambda v: fnp.sum(_convert(np.float64)(_convert(dst)(v)) * v))(x)
        # The gradient has the primal's dtype, whatever the float64 the function computes in.
        assert_allclose(g, np.asarray(_convert(np.float64)(_convert(dst)(x))).astype(src))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64"])
def test_bools_converted_to_floats_keep_ieee_products_under_jit(dtype):
    """False * nan and False / 0 are nan under jit as eagerly (XLA's simplifier would make a
    product with a float converted from a bool a select, giving 0)."""
    flags = np.array([False, True])
    nan, zero = np.full(2, np.nan, dtype), np.zeros(2, dtype)

    def products(b, nans, zeros):
        return b * nans, b / zeros, b / False, fnp.multiply(False, nans)

    with np.errstate(all="ignore"):
        want = products(*map(fnp.asarray, (flags, nan, zero)))
        got = fa.jit(products)(flags, nan, zero)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    assert np.isnan(np.asarray(got[0])).all() and np.isnan(np.asarray(got[1])[0])


def test_convert_transpose_gives_the_operand_dtype():
    ct = fnp.asarray(np.ones(3, np.float32))
    (out,) = convert_element_type_p.transpose_rule(
        ct, UndefPrimal(ShapedArray((3,), np.dtype(np.float64))), new_dtype=np.dtype("float32"),
        weak_type=False)
    assert out.dtype == np.float64


@pytest.mark.parametrize("src, dst", [(np.float32, np.int32), (np.float64, np.uint8),
                                      (np.uint8, np.float64), (np.int16, np.int32),
                                      (np.float64, np.float64)])
@pytest.mark.parametrize("in_axis", [0, 1, -1])
def test_bitcast_convert_type_vmap(src, dst, in_axis):
    rng = np.random.default_rng(9)
    ratio = max(np.dtype(dst).itemsize // np.dtype(src).itemsize, 1)
    per_member = (2, ratio)  # a last axis the bitcast may consume
    raw = rng.integers(0, 255, (BATCH, *per_member) + (np.dtype(src).itemsize,), np.uint8)
    x = np.moveaxis(raw.view(src)[..., 0], 0, in_axis)

    def f(v):
        return bitcast_convert_type_p.bind(v, new_dtype=np.dtype(dst))
    check_vmap(f, _as_fa(x), in_axes=in_axis)
    # jax's own batch rule fails with the batch axis last: give it the axis first.
    want = jax.vmap(lambda v: lax.bitcast_convert_type(v, dst))(np.moveaxis(x, in_axis, 0))
    np.testing.assert_array_equal(np.asarray(fa.vmap(f, in_axes=in_axis)(fnp.asarray(x))),
                                  np.asarray(want))


def test_bitcast_convert_type_has_zero_tangent():
    x = fnp.asarray(np.array([1.5, -2.0], np.float32))
    _, t = fa.jvp(lambda v: bitcast_convert_type_p.bind(v, new_dtype=np.dtype(np.int32)),
                  (x,), (fnp.ones_like(x),))
    assert not np.asarray(t).any()


