"""lax's special-function modules (``funcarray/lax/_special_*.py``): the implementations
``funcarray.scipy.special`` and ``funcarray.numpy.i0`` call, and their dtype rules
(``_special_dtypes.py``). The values themselves are checked against jax and scipy in
``tests/lax/test_lax_ops.py`` and ``tests/scipy/``."""

from __future__ import annotations

import numpy as np
import pytest

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import lax
from funcarray.lax._special_bessel import i0
from funcarray.lax._special_dtypes import float_arg, in_float32, weak_result
from funcarray.lax._special_gamma import log_beta
from funcarray.scipy import special


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_narrow_floats_compute_in_float32(dtype):
    a = fnp.asarray([0.5, 2.0, 7.5], "float32")
    x = fnp.asarray([0.25, 3.0, 6.0], "float32")
    out = lax.igamma(a.astype(dtype), x.astype(dtype))
    assert out.dtype == dtype
    expected = lax.igamma(a.astype(dtype).astype("float32"), x.astype(dtype).astype("float32"))
    np.testing.assert_array_equal(np.asarray(out), np.asarray(expected.astype(dtype)))
    half = in_float32(lambda v: v)(a.astype(dtype))
    assert half.dtype == dtype


def test_float_arg_and_weak_result():
    assert float_arg("i0", 3).dtype == np.float32 and float_arg("i0", 3).weak_type
    assert float_arg("i0", fnp.arange(2)).dtype == np.float32
    with pytest.raises(TypeError, match="i0: complex inputs are not supported"):
        float_arg("i0", fnp.asarray([1j]))
    out = weak_result(lambda x: fnp.zeros_like(x, "float32"), [float_arg("i0", 1.0)])
    assert out.weak_type


def test_numpy_and_scipy_i0_are_lax_i0():
    x = fnp.asarray([-30.0, -1.0, 0.0, 2.5, 40.0])
    expected = np.asarray(i0(x))
    np.testing.assert_array_equal(np.asarray(fnp.i0(x)), expected)
    np.testing.assert_array_equal(np.asarray(special.i0(x)), expected)
    # Compiled, XLA may fuse differently: equal to an ulp.
    np.testing.assert_allclose(np.asarray(fa.jit(fnp.i0)(x)), expected, rtol=1e-6)
    assert i0(2).dtype == np.float32 and i0(2).weak_type
    with pytest.raises(TypeError, match="i0: complex"):
        fnp.i0(fnp.asarray([1j]))


def test_scipy_calls_lax():
    a = fnp.asarray([0.5, 3.0, 1e5])
    b = fnp.asarray([2.0, 4.0, 1e5])
    np.testing.assert_array_equal(np.asarray(special.betaln(a, b)), np.asarray(log_beta(a, b)))
    x = fnp.asarray([0.1, 0.5, 0.9])
    np.testing.assert_array_equal(np.asarray(special.betainc(a, b, x)),
                                  np.asarray(lax.betainc(a, b, x)))
    np.testing.assert_array_equal(np.asarray(special.gammaincc(a, b)),
                                  np.asarray(lax.igammac(a, b)))
    n = fnp.asarray([0, 1, 3])
    np.testing.assert_array_equal(np.asarray(special.polygamma(n, b)),
                                  np.asarray(lax.polygamma(n.astype("float32"), b)))
    np.testing.assert_array_equal(np.asarray(special.i1e(x)), np.asarray(lax.bessel_i1e(x)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_zeta_at_one_is_infinite_for_every_q_like_jax(dtype):
    # x = 1 is the pole whatever q is: a non-positive integer q (a pole of its own, where an
    # odd x gave NaN) and a NaN q included, as jax and SciPy say.
    import jax.scipy.special as jsp  # (the suite's conftest turns jax's x64 on)

    q = np.array([0.0, -1.0, -2.0, -0.5, 2.0, np.inf, np.nan], dtype)
    x = np.ones_like(q)
    want = np.asarray(jsp.zeta(x, q))
    np.testing.assert_array_equal(want, np.inf)
    for f in (lax.zeta, fa.jit(lax.zeta), special.zeta):
        got = f(x, q)
        assert got.dtype == dtype
        np.testing.assert_array_equal(np.asarray(got), want)
    for k in range(len(q)):  # one element at a time: the shortcut's scalar path
        assert float(lax.zeta(x[k], q[k])) == np.inf
