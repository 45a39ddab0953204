"""``funcarray.numpy.linalg.det`` computes what ``jax.numpy.linalg.det`` computes: closed forms
for 2x2 and 3x3 matrices (the same bits on exact operands, eager and under jit), and for
other sizes ``sign * exp(logabsdet)`` whose derivative is a cofactor solve, so that gradients
at singular matrices are the adjugate's transpose instead of NaN."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import funcarray as fa
import funcarray.numpy as fnp

_DTYPES = (np.float32, np.float64, np.complex64, np.complex128)


def _eager_and_jit(fn):
    return {"eager": fn, "jit": fa.jit(fn)}


def _random_matrices(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def _assert_same_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    np.testing.assert_array_equal(got.reshape(-1).view(np.uint8),
                                  want.reshape(-1).view(np.uint8), err_msg=f"{got} != {want}")


# Products and sums of these are exact: every path gives the same bits, and those bits
# show which formula ran (LAPACK's sign * exp(logabsdet) gives 0.12500000000000003 and
# 7.999999999999998 for the first two).
_EXACT = {
    "quarter-half": [[0.25, 0.0], [0.0, 0.5]],
    "twice-eye-3": 2 * np.eye(3),
    "integers-2": [[3.0, -1.0], [4.0, 2.0]],
    "integers-3": [[1.0, 2.0, 3.0], [0.0, 4.0, 5.0], [1.0, 0.0, 6.0]],
    "batch-3": [[[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]], 0.5 * np.eye(3)],
}


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("name", sorted(_EXACT))
@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_closed_forms_give_jax_bits_on_exact_matrices(mode, name, dtype):
    a = np.asarray(_EXACT[name]).astype(dtype)
    got = _eager_and_jit(fnp.linalg.det)[mode](fnp.asarray(a))
    _assert_same_bits(got, jnp.linalg.det(a))


@pytest.mark.parametrize("size", [4, 6])
@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_larger_matrices_take_sign_times_exp_of_logabsdet_as_jax(mode, size):
    """Above 3x3 JAX computes ``sign * exp(logabsdet)``: det(2 * eye(4)) is 15.999999999999998
    in float64, the exp of the rounded sum of logs, not the exact product 16. Under jit the
    bits are XLA's, as jax's; eagerly NumPy's exp computes them (its exp and XLA's may round
    differently on other machines), so they are those of NumPy's ``slogdet`` formula."""
    a = 2 * np.eye(size)
    got = _eager_and_jit(fnp.linalg.det)[mode](fnp.asarray(a))
    if mode == "jit":
        _assert_same_bits(got, jnp.linalg.det(a))
    else:
        sign, logabsdet = np.linalg.slogdet(a)
        _assert_same_bits(got, np.asarray(sign * np.exp(logabsdet)))
    np.testing.assert_allclose(np.asarray(got), np.asarray(jnp.linalg.det(a)), rtol=1e-15)


def _singular(name):
    if name == "repeated-row-4":
        return np.array([[1, 2, 3, 4], [2, 4, 6, 8], [0, 1, 0, 1], [1, 0, 0, 2]], float)
    if name == "rank-2-4":  # rank n - 2: the adjugate is 0
        a = np.ones((4, 4))
        a[0, 0] = 2
        return a
    if name == "rank-2-3":
        return np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
    if name == "rank-4-5":
        a = _random_matrices((5, 5), np.float64, seed=1)
        a[4] = a[0] - 2 * a[2]
        return a
    if name == "rank-3-5":
        a = _random_matrices((5, 5), np.float64, seed=2)
        a[3], a[4] = a[0] + a[1], a[1] - a[2]
        return a
    raise ValueError(name)


_SINGULAR = ("repeated-row-4", "rank-2-4", "rank-2-3", "rank-4-5", "rank-3-5")
_REGULAR = {"1x1": (1, 1), "2x2": (2, 2), "3x3": (3, 3), "4x4": (4, 4), "5x5": (5, 5),
            "batch-2x2": (3, 2, 2), "batch-3x3": (2, 3, 3), "batch-4x4": (2, 4, 4),
            "batch-5x5": (3, 5, 5)}


def _matrix(name, dtype):
    if name in _SINGULAR:
        return _singular(name).astype(dtype)
    return _random_matrices(_REGULAR[name], dtype, seed=3)


def _total_det(linalg):
    return lambda a: linalg.det(a).sum()


# Each formula (1x1 and above 3x3: the cofactor solve; 2x2 and 3x3: the closed forms) on
# single matrices and a stack; every singular example. (Each case compiles under jit: the
# suite's time is counted.)
_GRADIENT_CASES = ("1x1", "2x2", "3x3", "4x4", "batch-3x3", "batch-5x5", *_SINGULAR)
_JVP_CASES = ("1x1", "2x2", "3x3", "5x5", "batch-2x2", "batch-4x4", "repeated-row-4",
              "rank-4-5", "rank-2-3")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", _GRADIENT_CASES)
@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_gradients_match_jax_at_regular_and_singular_matrices(mode, name, dtype):
    a = _matrix(name, dtype)
    want = np.asarray(jax.grad(_total_det(jnp.linalg))(a))
    assert np.all(np.isfinite(want))
    got = _eager_and_jit(fa.grad(_total_det(fnp.linalg)))[mode](fnp.asarray(a))
    tol = 1e-3 if dtype == np.float32 else 1e-9
    np.testing.assert_allclose(np.asarray(got), want, rtol=tol, atol=tol)


def test_gradient_at_the_singular_examples_is_the_adjugate_transpose():
    repeated_row = fa.grad(fnp.linalg.det)(fnp.asarray(_singular("repeated-row-4")))
    np.testing.assert_allclose(np.asarray(repeated_row),
                               [[-12, -6, 0, 6], [6, 3, 0, -3], [0, 0, 0, 0], [0, 0, 0, 0]],
                               atol=1e-12)
    np.testing.assert_array_equal(
        np.asarray(fa.grad(fnp.linalg.det)(fnp.asarray(_singular("rank-2-4")))),
        np.zeros((4, 4)))


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("name", _JVP_CASES)
@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_det_and_its_jvp_match_jax(mode, name, dtype):
    a = _matrix(name, dtype)
    t = _random_matrices(a.shape, dtype, seed=4)
    want_primal, want_tangent = jax.jvp(jnp.linalg.det, (a,), (t,))
    want = jnp.linalg.det(a)
    got = _eager_and_jit(fnp.linalg.det)[mode](fnp.asarray(a))
    assert np.asarray(got).dtype == want.dtype and got.shape == want.shape

    def jvp(a, t):
        return fa.jvp(fnp.linalg.det, (a,), (t,))

    got_primal, got_tangent = _eager_and_jit(jvp)[mode](fnp.asarray(a), fnp.asarray(t))
    tol = 1e-3 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-9
    np.testing.assert_allclose(np.asarray(got), want, rtol=tol, atol=tol)
    np.testing.assert_allclose(np.asarray(got_primal), want_primal, rtol=tol, atol=tol)
    np.testing.assert_allclose(np.asarray(got_tangent), want_tangent, rtol=tol, atol=tol)


def test_vmapped_gradient_matches_jax():
    a = np.stack([_singular("repeated-row-4"), _random_matrices((4, 4), np.float64, seed=5)])
    want = jax.vmap(jax.grad(jnp.linalg.det))(a)
    got = fa.vmap(fa.grad(fnp.linalg.det))(fnp.asarray(a))
    np.testing.assert_allclose(np.asarray(got), want, atol=1e-9)


@pytest.mark.parametrize("name", ["rank-4-5", "4x4"])
def test_second_derivatives_match_jax(name):
    a = _matrix(name, np.float64)
    want = jax.hessian(jnp.linalg.det)(a)
    assert np.all(np.isfinite(want))
    got = fa.hessian(fnp.linalg.det)(fnp.asarray(a))
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-8, atol=1e-9)
