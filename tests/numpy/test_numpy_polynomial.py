"""funcarray.numpy's polynomials (poly, polyadd, polysub, polymul, polydiv, polyder, polyint,
polyval, polyfit, vander, roots): values against NumPy (Hypothesis over lengths; NumPy computes what
jax.numpy does, except that polydiv's remainder keeps u's length as in jax) and jax.numpy
(polyval's gradient), eager and fa.jit, gradients against jax.grad and finite differences, vmap
against a loop, and the errors."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.testing import check_grads


def _close(got, want, rtol=1e-10, atol=1e-12):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol)


def _coeffs(data, label, min_size=1):
    n = data.draw(st.integers(min_size, 5), label=f"len({label})")
    values = st.floats(-3, 3, allow_nan=False).map(lambda v: round(v, 2))
    return np.array(data.draw(st.lists(values, min_size=n, max_size=n), label=label))


@settings(max_examples=20, deadline=None)
@given(st.data())
def test_polynomial_arithmetic_matches_numpy(data):
    a, b = _coeffs(data, "a"), _coeffs(data, "b")
    x = np.linspace(-2, 2, 5)
    m = data.draw(st.integers(0, 3), label="m")
    _close(fnp.polyval(a, x), np.polyval(a, x))
    _close(fnp.polyadd(a, b), np.polyadd(a, b))
    _close(fnp.polysub(a, b), np.polysub(a, b))
    _close(fnp.polymul(a, b), np.convolve(a, b))
    _close(fnp.polyder(a, m), np.polyder(a, m) if m < len(a) else np.zeros(0))
    _close(fnp.polyint(a, m, k=1.5), np.polyint(a, m, k=1.5))
    _close(fnp.poly(a), np.poly(a))
    increasing = data.draw(st.booleans(), label="increasing")
    _close(fnp.vander(a, m + 1, increasing=increasing), np.vander(a, m + 1, increasing))


def test_polynomial_dtypes_and_small_cases():
    assert fnp.polyval(fnp.array([3, 0, 1]), 5).dtype == np.int32
    assert fnp.polyadd(fnp.array([1, 2]), fnp.array([1.0])).dtype == np.float32
    assert fnp.polyder(fnp.array([1, 2, 3])).dtype == np.float32
    _close(fnp.polyval(fnp.zeros((0,)), 2.0), 0.0)
    _close(fnp.poly(fnp.zeros((0,))), 1.0)
    # 2-D coefficients evaluate one polynomial per column.
    p2 = np.array([[1.0, 2.0], [0.0, 1.0], [3.0, -1.0]])
    _close(fnp.polyval(p2, np.array([2.0, 3.0])), [np.polyval(p2[:, 0], 2.0),
                                                   np.polyval(p2[:, 1], 3.0)])
    _close(fnp.polyint(np.array([3.0, 2.0]), 2, k=[1.0, 2.0]),
           np.polyint([3.0, 2.0], 2, k=[1.0, 2.0]))
    _close(fnp.polymul(np.array([0.0, 0.0, 1.0]), np.array([0.0, 2.0]), trim_leading_zeros=True),
           [2.0])


def test_polydiv_matches_jax():
    u, v = np.array([1.0, -3.0, 0.5, 2.0, 4.0]), np.array([2.0, 1.0, -1.0])
    nq, nr = np.polydiv(u, v)
    # jax.numpy keeps the remainder at u's length (leading zeros); NumPy trims it.
    full_r = np.concatenate([np.zeros(len(u) - len(nr)), nr])
    for q, r in (fnp.polydiv(u, v), fa.jit(fnp.polydiv)(u, v)):
        _close(q, nq)
        _close(r, full_r)
    q, r = fnp.polydiv(u, v, trim_leading_zeros=True)
    _close(r, nr)
    q, r = fnp.polydiv(np.array([2.0, 3.0]), np.array([1.0, 0.0, 1.0]))  # deg u < deg v
    _close(q, [0.0])
    _close(r, [2.0, 3.0])


def test_polyfit_matches_jax():
    rng = np.random.default_rng(0)
    x, y = np.linspace(-1, 1, 8), rng.normal(size=8)
    y2, w = rng.normal(size=(8, 2)), rng.uniform(0.5, 1.5, 8)
    # NumPy's polyfit computes what jax.numpy's does (same scaling, rcond, cov factor).
    _close(fnp.polyfit(x, y, 3), np.polyfit(x, y, 3), rtol=1e-8)
    _close(fnp.polyfit(x, y2, 2, w=w), np.polyfit(x, y2, 2, w=w), rtol=1e-8)
    got, want = fnp.polyfit(x, y, 2, full=True), np.polyfit(x, y, 2, full=True)
    for g, w_ in zip(got, want):
        _close(g, w_, rtol=1e-8)
    for cov in (True, "unscaled"):
        for yy in (y, y2):
            for g, w_ in zip(fnp.polyfit(x, yy, 2, cov=cov), np.polyfit(x, yy, 2, cov=cov)):
                _close(g, w_, rtol=1e-8)
    _close(fa.jit(lambda x, y, w: fnp.polyfit(x, y, 2, w=w))(x, y, w),
           np.polyfit(x, y, 2, w=w), rtol=1e-8)


def test_polyval_polyfit_gradients():
    rng = np.random.default_rng(1)
    p, x = rng.normal(size=4), rng.normal(size=6)
    got = fa.grad(lambda p, x: fnp.sum(fnp.polyval(p, x) ** 2), argnums=(0, 1))(p, x)
    want = jax.grad(lambda p, x: jnp.sum(jnp.polyval(p, x) ** 2), argnums=(0, 1))(p, x)
    for g, w in zip(got, want):
        _close(g, w)
    y, w = rng.normal(size=6), rng.uniform(0.5, 1.5, 6)
    check_grads(lambda x, y, w: fnp.polyfit(x, y, 2, w=w), (x, y, w), order=1,
                modes=("rev",))
    a = np.array([0.5, -1.0, 2.0])
    check_grads(fnp.poly, (a,), order=1, modes=("rev",))
    check_grads(lambda a: fnp.polymul(a, a[:2]), (a,), order=1, modes=("rev",))
    check_grads(lambda a: fnp.polyint(fnp.polyder(a), k=a[0]), (a,), order=1, modes=("rev",))
    check_grads(lambda x: fnp.vander(x, 4), (a,), order=1, modes=("rev",))
    # At x == 0 the derivative of x**0 is 0 (jax's power rule gives NaN there).
    _close(fa.grad(lambda x: fnp.sum(fnp.vander(x, 3)))(np.zeros(2)), [1.0, 1.0])


def test_polyval_polyfit_vmap_match_loop():
    rng = np.random.default_rng(2)
    ps, x = rng.normal(size=(3, 4)), rng.normal(size=5)
    _close(fa.vmap(fnp.polyval, in_axes=(0, None))(ps, x),
           np.stack([np.polyval(p, x) for p in ps]))
    ys = rng.normal(size=(3, 5))
    _close(fa.vmap(lambda y: fnp.polyfit(x, y, 2))(ys),
           np.stack([np.polyfit(x, y, 2) for y in ys]), rtol=1e-8)


def test_polynomial_errors():
    with pytest.raises(ValueError, match="polyder.*non-negative"):
        fnp.polyder(fnp.ones(3), -1)
    with pytest.raises(ValueError, match="polyint.*polyder"):
        fnp.polyint(fnp.ones(3), -1)
    with pytest.raises(ValueError, match="polyint.*length 1 or m=2"):
        fnp.polyint(fnp.ones(3), 2, k=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="polyadd.*1-D"):
        fnp.polyadd(fnp.ones((2, 2)), fnp.ones(2))
    with pytest.raises(ValueError, match="poly.*1-D array"):
        fnp.poly(fnp.ones((2, 3)))
    with pytest.raises(ValueError, match="polyfit.*deg"):
        fnp.polyfit(fnp.ones(3), fnp.ones(3), -1)
    with pytest.raises(TypeError, match="polyfit.*same number of points"):
        fnp.polyfit(fnp.ones(3), fnp.ones(4), 1)
    with pytest.raises(ValueError, match="polyfit.*more points"):
        fnp.polyfit(fnp.arange(3.0), fnp.ones(3), 2, cov=True)
    with pytest.raises(TypeError, match=r"(?s)depends on d of jit.*static_argnums"):
        fa.jit(lambda d: fnp.polyfit(fnp.arange(3.0), fnp.ones(3), d))(1)
    with pytest.raises(TypeError, match="polymul.*trim_leading_zeros"):
        fa.jit(lambda a: fnp.polymul(a, a, trim_leading_zeros=True))(fnp.ones(2))
    with pytest.raises(ValueError, match="polyval.*scalar"):
        fnp.polyval(1.0, 2.0)
    with pytest.raises(ValueError, match="polydiv.*empty"):
        fnp.polydiv(fnp.ones(2), fnp.zeros(0))
    with pytest.raises(ValueError, match="vander.*1-D"):
        fnp.vander(fnp.ones((2, 2)))


def _sorted_complex(z):
    z = np.asarray(z)
    return z[np.lexsort((np.round(z.imag, 6), np.round(z.real, 6)))]


def test_roots_and_characteristic_polynomial():
    p = np.array([0.0, 0.0, 2.0, -3.0, -11.0, 6.0])
    got = fnp.roots(p)
    assert got.dtype == np.complex128 and got.shape == (3,)
    np.testing.assert_allclose(_sorted_complex(got), _sorted_complex(np.roots(p)), rtol=1e-10)
    q = np.array([1.0, 0.0, 4.0])  # complex pair
    np.testing.assert_allclose(_sorted_complex(fnp.roots(q)), [-2j, 2j], atol=1e-12)
    # strip_zeros=False works under jit: one NaN per leading zero, at the end.
    traced = fa.jit(lambda p: fnp.roots(p, strip_zeros=False))(p)
    np.testing.assert_allclose(_sorted_complex(traced[:3]), _sorted_complex(np.roots(p)))
    assert np.isnan(np.asarray(traced[3:])).all()
    assert fnp.roots(np.array([3.0])).shape == (0,)
    assert fnp.roots(fnp.array([1.0, 2.0])).dtype == np.complex64
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(fnp.poly(a), np.poly(a), rtol=1e-12)
    got = fa.grad(lambda p: fnp.sum(fnp.roots(p).real))(np.array([1.0, -3.0, 2.0]))
    _close(got, [-3.0, -1.0, 0.0])  # d(r1 + r2)/dp = d(-p1/p0)/dp
    with pytest.raises(TypeError, match="roots.*strip_zeros=False"):
        fa.jit(fnp.roots)(p)
    with pytest.raises(ValueError, match="roots.*1-D"):
        fnp.roots(np.ones((2, 2)))
