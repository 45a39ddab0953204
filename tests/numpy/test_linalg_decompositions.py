"""funcarray.numpy.linalg's solves, determinants and norms and the factorisation primitives
under them (cholesky, triangular_solve, lu): values against jax.lax.linalg / jax.numpy.linalg
eagerly and under ``fa.jit``; gradients against ``jax.grad`` and finite differences; the
transpose identity; ``vmap`` against a Python loop; every error path.
"""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.primitives.decompositions import cholesky_p, lu_p, triangular_solve_p

# Few examples and no shrinking: every example compiles with XLA (funcarray and jax).
FEWER = settings(max_examples=3, phases=(Phase.explicit, Phase.generate), deadline=None)

TOL = {np.float32: 2e-4, np.float64: 1e-9, np.complex64: 2e-4, np.complex128: 1e-9}


def _random(rng, shape, dtype=np.float64):
    x = rng.normal(size=shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.normal(size=shape)
    return x.astype(dtype)


def _spd(rng, shape, dtype=np.float64):
    """Well-conditioned Hermitian positive-definite matrices of ``shape`` (..., n, n)."""
    x = _random(rng, shape, dtype)
    n = shape[-1]
    return (x @ np.conj(np.swapaxes(x, -1, -2)) + n * np.eye(n)).astype(dtype)


def _well_conditioned(rng, shape, dtype=np.float64):
    return (_random(rng, shape, dtype) + 3 * np.eye(shape[-1])).astype(dtype)


def _close(got, want, dtype=np.float64, scale=1.0):
    tol = TOL[np.dtype(dtype).type] * scale
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, (g.shape, w.shape)
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


def _both(fn):
    """``fn`` eagerly and jitted."""
    return [fn, fa.jit(fn)]


# --------------------------------------------------------------------------------------------
# The primitives against jax.lax.linalg
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (2, 3, 5, 5)])
def test_cholesky_primitive_matches_jax(dtype, shape):
    a = _spd(np.random.default_rng(0), shape, dtype)
    want = jax.lax.linalg.cholesky(a, symmetrize_input=False)
    for fn in _both(cholesky_p.bind):
        _close(fn(fnp.asarray(a)), want, dtype)


def test_cholesky_not_positive_definite_gives_nan_per_matrix_as_jax():
    good = _spd(np.random.default_rng(1), (3, 3))
    both = np.stack([good, -good])
    want = np.asarray(jax.lax.linalg.cholesky(both, symmetrize_input=False))
    assert np.isnan(want[1][np.tril_indices(3)]).all() and not np.isnan(want[0]).any()
    for fn in _both(cholesky_p.bind):
        np.testing.assert_allclose(np.asarray(fn(fnp.asarray(both))), want, rtol=1e-9)


def test_complex_cholesky_failure_is_nan_in_both_parts_as_jax():
    not_definite = np.zeros((1, 1), np.complex64)
    want = np.asarray(jax.lax.linalg.cholesky(not_definite, symmetrize_input=False))
    assert np.isnan(want.real).all() and np.isnan(want.imag).all()
    for fn in _both(cholesky_p.bind):
        got = np.asarray(fn(fnp.asarray(not_definite)))
        assert np.isnan(got.real).all() and np.isnan(got.imag).all()


@pytest.mark.parametrize("name", ["svd", "svdvals", "eigh", "eigvalsh"])
def test_decomposition_of_a_nan_matrix_is_nan_for_that_matrix_only_as_jax(name):
    # NumPy's LAPACK raises "did not converge" on a NaN entry; jax and XLA give NaN results.
    good = _spd(np.random.default_rng(3), (3, 3))
    bad = good.copy()
    bad[0, 0] = bad[1, 1] = np.nan
    both = np.stack([good, bad])
    want = [np.asarray(w) for w in jax.tree.leaves(getattr(jnp.linalg, name)(both))]
    for fn in _both(getattr(fnp.linalg, name)):
        got = [np.asarray(g) for g in fa.tree.leaves(fn(fnp.asarray(both)))]
        for g, w in zip(got, want, strict=True):
            assert np.isnan(g[1]).all() and np.isnan(w[1]).all()
            assert not np.isnan(g[0]).any()
            if name in ("svdvals", "eigvalsh"):
                np.testing.assert_allclose(g[0], w[0], rtol=1e-9)


_SOLVE_FLAGS = list(itertools.product([True, False], repeat=5))


@pytest.mark.parametrize("flags", _SOLVE_FLAGS, ids=lambda f: "".join("TF"[not v] for v in f))
def test_triangular_solve_matches_jax(flags):
    dtype = np.complex64 if sum(flags) % 2 else np.float64  # each dtype meets every flag
    left_side, lower, transpose_a, conjugate_a, unit_diagonal = flags
    params = dict(left_side=left_side, lower=lower, transpose_a=transpose_a,
                  conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)
    rng = np.random.default_rng(2)
    a = _well_conditioned(rng, (2, 4, 4), dtype)
    b = _random(rng, (2, 4, 3) if left_side else (2, 3, 4), dtype)
    want = jax.lax.linalg.triangular_solve(a, b, **params)
    for fn in _both(lambda a, b: triangular_solve_p.bind(a, b, **params)):
        _close(fn(fnp.asarray(a), fnp.asarray(b)), want, dtype, scale=10)


def test_triangular_solve_zero_pivot_gives_inf_like_lapack():
    a = np.array([[1.0, 0.0], [2.0, 0.0]])
    b = np.array([[1.0], [1.0]])
    params = dict(left_side=True, lower=True, transpose_a=False, conjugate_a=False,
                  unit_diagonal=False)
    want = np.asarray(jax.lax.linalg.triangular_solve(a, b, **params))
    got = np.asarray(triangular_solve_p.bind(fnp.asarray(a), fnp.asarray(b), **params))
    np.testing.assert_array_equal(np.isfinite(got), np.isfinite(want))
    assert not np.isfinite(got[1, 0])


@pytest.mark.parametrize("dtype,shape", [
    (np.float32, (1, 1)), (np.float64, (5, 5)), (np.complex128, (6, 4)), (np.float32, (4, 6)),
    (np.complex64, (3, 4, 4)), (np.float64, (2, 2, 3, 5))])
def test_lu_matches_jax(dtype, shape):
    a = _random(np.random.default_rng(3), shape, dtype)
    # Pivots are LAPACK's (|re| + |im| for complex) on every platform: the oracle is jax on
    # the CPU (on a GPU jax's batched getrf picked other complex64 pivots in an H200 run).
    with jax.default_device(jax.devices("cpu")[0]):
        want = jax.lax.linalg.lu(a)
    for fn in _both(lu_p.bind):
        lu, pivots, permutation = fn(fnp.asarray(a))
        np.testing.assert_array_equal(np.asarray(pivots), want[1])
        np.testing.assert_array_equal(np.asarray(permutation), want[2])
        _close(lu, want[0], dtype, scale=10)


def test_lu_of_singular_and_zero_columns_matches_jax():
    singular = [np.array([[0.0, 0, 1], [0, 0, 2], [1, 2, 3]]), np.zeros((3, 3)),
                np.array([[1.0, 2, 0], [2, 4, 0], [0, 0, 0]])]
    # one matrix at a time (the kernel's single-matrix path) and stacked (its batch path)
    for a in (*singular, np.stack(singular)):
        want = jax.lax.linalg.lu(a)
        for fn in _both(lu_p.bind):
            got = fn(fnp.asarray(a))
            for g, w in zip(got, want):
                np.testing.assert_allclose(np.asarray(g), w, atol=1e-12)


# --------------------------------------------------------------------------------------------
# Primitive derivatives: jax and finite differences, and the transpose identity
# --------------------------------------------------------------------------------------------

def _finite_difference_jvp(f, x, t, eps=1e-6):
    return (np.asarray(f(fnp.asarray(x + eps * t))) - np.asarray(f(fnp.asarray(x - eps * t)))
            ) / (2 * eps)


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 4, 4)])
def test_lu_jvp_matches_jax_and_finite_differences(shape):
    rng = np.random.default_rng(4)
    a, t = _random(rng, shape), _random(rng, shape)
    _, got = fa.jvp(lambda x: lu_p.bind(x)[0], (fnp.asarray(a),), (fnp.asarray(t),))
    _, want = jax.jvp(lambda x: jax.lax.linalg.lu(x)[0], (a,), (t,))
    _close(got, want, scale=100)
    np.testing.assert_allclose(np.asarray(got),
                               _finite_difference_jvp(lambda x: lu_p.bind(x)[0], a, t),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_cholesky_gradients_match_jax_to_second_order(dtype):
    a = _spd(np.random.default_rng(5), (2, 2), dtype)

    def f(lib, chol):
        return lambda x: lib.sum(lib.abs(lib.sin(chol(x))) ** 2)

    # The factor depends on the lower triangle only: the oracle makes that explicit, so that
    # its derivatives for the entries above the diagonal are 0 with every jax (0.11's rule
    # does this itself; 0.10's used the whole tangent).
    def jax_chol(x):
        lower = jnp.tril(x)
        return jax.lax.linalg.cholesky(lower + jnp.swapaxes(jnp.tril(x, -1), -1, -2).conj()
                                       - jnp.diagonal(x).imag * 1j * jnp.eye(x.shape[-1])
                                       if jnp.iscomplexobj(x) else
                                       lower + jnp.swapaxes(jnp.tril(x, -1), -1, -2),
                                       symmetrize_input=False)

    fa_chol = cholesky_p.bind
    if dtype == np.float64:
        # (jax's oracle jitted: one compile instead of one per eager op, ~10x faster)
        _close(fa.hessian(f(fnp, fa_chol))(fnp.asarray(a)),
               jax.jit(jax.hessian(f(jnp, jax_chol)))(a), scale=100)
    _close(fa.grad(f(fnp, fa_chol))(fnp.asarray(a)), jax.jit(jax.grad(f(jnp, jax_chol)))(a),
           scale=100)


@pytest.mark.parametrize("flags", _SOLVE_FLAGS[::3], ids=lambda f: "".join("TF"[not v]
                                                                            for v in f))
def test_triangular_solve_gradients_match_jax(flags):
    params = dict(zip(("left_side", "lower", "transpose_a", "conjugate_a", "unit_diagonal"),
                      flags))
    rng = np.random.default_rng(6)
    a = _well_conditioned(rng, (4, 4))
    b = _random(rng, (4, 2) if params["left_side"] else (2, 4))

    def f(lib, solve):
        return lambda a, b: lib.sum(lib.sin(solve(a, b, **params)))

    got = fa.grad(f(fnp, triangular_solve_p.bind), argnums=(0, 1))(fnp.asarray(a),
                                                                   fnp.asarray(b))
    want = jax.grad(f(jnp, jax.lax.linalg.triangular_solve), argnums=(0, 1))(a, b)
    _close(got, want, scale=100)


def test_triangular_solve_transpose_identity():
    # <v, S u> = <S^T v, u> for the linear map S: b -> op(a)^-1 b (in every flag setting).
    rng = np.random.default_rng(7)
    a = _well_conditioned(rng, (4, 4))
    for flags in _SOLVE_FLAGS:
        params = dict(zip(("left_side", "lower", "transpose_a", "conjugate_a",
                           "unit_diagonal"), flags))
        shape = (4, 3) if params["left_side"] else (3, 4)
        u, v = _random(rng, shape), _random(rng, shape)
        su, vjp = fa.vjp(lambda b: triangular_solve_p.bind(fnp.asarray(a), b, **params),
                         fnp.asarray(u))
        (stv,) = vjp(fnp.asarray(v))
        np.testing.assert_allclose(np.sum(v * np.asarray(su)), np.sum(np.asarray(stv) * u),
                                   rtol=1e-10)


def test_primitives_vmap_against_a_loop():
    rng = np.random.default_rng(8)
    a, b, s = _well_conditioned(rng, (3, 4, 4)), _random(rng, (4, 2)), _spd(rng, (3, 4, 4))
    params = dict(left_side=True, lower=False, transpose_a=True, conjugate_a=False,
                  unit_diagonal=False)
    solved = fa.vmap(lambda a: triangular_solve_p.bind(a, fnp.asarray(b), **params))(
        fnp.asarray(a))
    for i in range(3):
        np.testing.assert_allclose(
            np.asarray(solved[i]),
            np.asarray(triangular_solve_p.bind(fnp.asarray(a[i]), fnp.asarray(b), **params)))
    factors = fa.vmap(lambda x: tuple(lu_p.bind(x)), in_axes=1, out_axes=(0, 1, 0))(
        fnp.asarray(a.transpose(1, 0, 2)))
    assert np.asarray(factors[1]).shape == (4, 3)
    for i in range(3):
        lu, pivots, perm = lu_p.bind(fnp.asarray(a[i]))
        np.testing.assert_allclose(np.asarray(factors[0][i]), np.asarray(lu))
        np.testing.assert_array_equal(np.asarray(factors[1][:, i]), np.asarray(pivots))
        np.testing.assert_array_equal(np.asarray(factors[2][i]), np.asarray(perm))
    chol = fa.vmap(cholesky_p.bind)(fnp.asarray(s))
    for i in range(3):
        np.testing.assert_allclose(np.asarray(chol[i]), np.linalg.cholesky(s[i]), rtol=1e-12)


# --------------------------------------------------------------------------------------------
# funcarray.numpy.linalg against jax.numpy.linalg
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype,a_shape,b_shape", [
    (np.float32, (3, 3), (3,)), (np.float64, (3, 3), (3, 2)), (np.complex128, (2, 3, 3), (3,)),
    (np.float64, (2, 3, 3), (2, 3, 1)), (np.float32, (2, 1, 3, 3), (4, 3, 2)),
    (np.complex64, (3, 3), (5, 3, 2))])
def test_solve_matches_jax(dtype, a_shape, b_shape):
    rng = np.random.default_rng(9)
    a, b = _well_conditioned(rng, a_shape, dtype), _random(rng, b_shape, dtype)
    want = jnp.linalg.solve(a, b)
    for fn in _both(fnp.linalg.solve):
        _close(fn(fnp.asarray(a), fnp.asarray(b)), want, dtype, scale=10)


@given(n=st.integers(1, 5), batch=st.sampled_from([(), (2,), (2, 3)]),
       seed=st.integers(0, 2**16))
@FEWER
def test_inv_det_slogdet_match_jax(n, batch, seed):
    a = _random(np.random.default_rng(seed), (*batch, n, n))
    for name in ("inv", "det", "slogdet"):
        want = getattr(jnp.linalg, name)(a)
        for fn in _both(getattr(fnp.linalg, name)):
            _close(fn(fnp.asarray(a)), want, scale=1e3)


def test_slogdet_and_det_of_singular_and_complex_matrices():
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    zero = np.zeros((2, 2))
    for a in (singular, zero):
        sign, logabsdet = fnp.linalg.slogdet(a)
        assert float(sign) == 0 and float(logabsdet) == -np.inf
        assert float(fnp.linalg.det(a)) == 0
        # LAPACK raises on a singular matrix; funcarray falls back to its LU, as jax: no error
        for fn in _both(fnp.linalg.inv):
            assert not np.isfinite(np.asarray(fn(fnp.asarray(a)))).all()
        for fn in _both(lambda a: fnp.linalg.solve(a, fnp.ones(2, a.dtype))):
            assert not np.isfinite(np.asarray(fn(fnp.asarray(a)))).all()
    c = _random(np.random.default_rng(10), (2, 3, 3), np.complex128)
    for fn in _both(fnp.linalg.slogdet):
        _close(fn(fnp.asarray(c)), jnp.linalg.slogdet(c), np.complex128, scale=10)


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.complex128])
def test_cholesky_matches_jax_and_symmetrises(upper, dtype):
    rng = np.random.default_rng(11)
    a = _spd(rng, (2, 4, 4), dtype)
    a = a + 0.1 * np.triu(_random(rng, (2, 4, 4), dtype), 1)  # not symmetric: symmetrised
    want = jnp.linalg.cholesky(a, upper=upper)
    for fn in _both(lambda x: fnp.linalg.cholesky(x, upper=upper)):
        _close(fn(fnp.asarray(a)), want, dtype, scale=10)


_VECTOR_ORDS = [None, 2, 1, 0, np.inf, -np.inf, 3, 0.5, -1]
_MATRIX_ORDS = [None, "fro", 1, -1, np.inf, -np.inf]


@pytest.mark.parametrize("ord", _VECTOR_ORDS)
@pytest.mark.parametrize("keepdims", [False, True])
def test_vector_norms_match_jax(ord, keepdims):
    x = _random(np.random.default_rng(12), (3, 4))
    for axis in (0, -1):
        want = jnp.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)
        for fn in _both(lambda x: fnp.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)):
            _close(fn(fnp.asarray(x)), want)
    if ord is None:
        _close(fnp.linalg.norm(fnp.asarray(x), keepdims=keepdims),
               jnp.linalg.norm(x, keepdims=keepdims))


@pytest.mark.parametrize("ord", _MATRIX_ORDS)
@pytest.mark.parametrize("axis", [None, (0, 1), (1, 0), (-1, -2)])
def test_matrix_norms_match_jax(ord, axis):
    x = _random(np.random.default_rng(13), (3, 5))
    want = jnp.linalg.norm(x, ord=ord, axis=axis)
    for fn in _both(lambda x: fnp.linalg.norm(x, ord=ord, axis=axis)):
        _close(fn(fnp.asarray(x)), want)
    x3 = _random(np.random.default_rng(14), (2, 3, 4)).astype(np.complex64)
    _close(fnp.linalg.matrix_norm(fnp.asarray(x3), ord=ord or "fro", keepdims=True),
           jnp.linalg.matrix_norm(x3, ord=ord or "fro", keepdims=True), np.complex64)
    _close(fnp.linalg.vector_norm(fnp.asarray(x3), axis=(0, 2)),
           jnp.linalg.vector_norm(x3, axis=(0, 2)), np.complex64)


def test_matrix_power_multi_dot_and_array_api_helpers_match_jax():
    rng = np.random.default_rng(15)
    a = _well_conditioned(rng, (2, 3, 3))
    for n in (0, 1, 2, 5, -1, -3):
        _close(fnp.linalg.matrix_power(fnp.asarray(a), n), jnp.linalg.matrix_power(a, n),
               scale=1e3)
    ints = np.array([[1, 1], [0, 1]], np.int32)
    _close(fnp.linalg.matrix_power(ints, 3), jnp.linalg.matrix_power(ints, 3))
    arrays = [_random(rng, (3,)), _random(rng, (3, 4)), _random(rng, (4, 2)), _random(rng, (2,))]
    _close(fnp.linalg.multi_dot([fnp.asarray(x) for x in arrays]), jnp.linalg.multi_dot(arrays))
    _close(fnp.linalg.trace(fnp.asarray(a), offset=1), jnp.linalg.trace(a, offset=1))
    _close(fnp.linalg.diagonal(fnp.asarray(a), offset=-1), jnp.linalg.diagonal(a, offset=-1))
    _close(fnp.linalg.matrix_transpose(fnp.asarray(a)), jnp.linalg.matrix_transpose(a))


@pytest.mark.parametrize("name, operands", [
    ("multi_dot", lambda: ([np.ones((2, 3, 3)), np.ones((3, 3))],)),
    ("multi_dot", lambda: ([np.ones((3, 3)), np.ones(3), np.ones((3, 3))],)),
    ("outer", lambda: (np.ones((2, 2)), np.ones(2))),
    ("outer", lambda: (np.ones(2), np.float32(1.0))),
])
def test_stacks_and_wrong_ranks_are_refused_as_jax(name, operands):
    # linalg.multi_dot takes matrices (vectors at the ends), linalg.outer vectors.
    with pytest.raises(ValueError):
        getattr(jnp.linalg, name)(*operands())
    for fn in _both(getattr(fnp.linalg, name)):
        with pytest.raises(ValueError, match=f"linalg.{name}"):
            fn(*operands())
    vectors = (np.arange(3.0, dtype=np.float32), np.arange(2.0, dtype=np.float32))
    _close(fnp.linalg.outer(*vectors), jnp.linalg.outer(*vectors))


def test_integer_inputs_are_computed_in_float_as_jax():
    with jax.enable_x64(False):
        a = np.array([[2, 1], [1, 3]], np.int32)
        for name in ("inv", "det", "cholesky"):
            got, want = getattr(fnp.linalg, name)(a), getattr(jnp.linalg, name)(a)
            assert got.dtype == want.dtype == np.float32
            _close(got, want, np.float32)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_determinants_are_computed_in_float32(dtype):
    """JAX's closed forms give 2x2 and 3x3 16-bit determinants (its LU raises for larger);
    funcarray computes every size in float32 and rounds back."""
    dtype = fnp.dtype(dtype)
    small = np.array([[2.0, 1.0, 0.5], [1.0, 3.0, 0.0], [0.0, 1.0, 4.0]]).astype(dtype)
    for fn in _both(fnp.linalg.det):
        got = fn(fnp.asarray(small))
        assert got.dtype == dtype
        np.testing.assert_array_equal(np.asarray(got), np.asarray(jnp.linalg.det(small)))
    big = (np.eye(5) * 2 + np.triu(np.full((5, 5), 0.25), 1)).astype(dtype)
    want = np.linalg.slogdet(big.astype(np.float32))
    for fn in _both(fnp.linalg.slogdet):
        sign, logabsdet = fn(fnp.asarray(big))
        assert sign.dtype == logabsdet.dtype == dtype
        np.testing.assert_array_equal(np.asarray(sign), want[0].astype(dtype))
        np.testing.assert_array_equal(np.asarray(logabsdet), want[1].astype(dtype))
    grad = fa.grad(lambda a: fnp.linalg.det(a).astype(np.float32))(fnp.asarray(small))
    want_grad = jax.grad(lambda a: jnp.linalg.det(a).astype(np.float32))(small)
    assert grad.dtype == dtype
    np.testing.assert_array_equal(np.asarray(grad), np.asarray(want_grad))


# --------------------------------------------------------------------------------------------
# Transforms of funcarray.numpy.linalg against jax
# --------------------------------------------------------------------------------------------

def _log_likelihood(lib):
    """A Gaussian log-likelihood: the log-determinant reduction researchers write."""
    def f(scale, x):
        cov = scale @ scale.T + lib.eye(scale.shape[0])
        sign, logdet = lib.linalg.slogdet(cov)
        return -0.5 * (logdet + x @ lib.linalg.solve(cov, x)) + 0.0 * sign
    return f


def test_gaussian_log_likelihood_gradients_and_hessian_match_jax():
    rng = np.random.default_rng(16)
    scale, x = _random(rng, (2, 2)), _random(rng, (2,))
    fa_f, jax_f = _log_likelihood(fnp), _log_likelihood(jnp)
    want = jax.jit(jax.grad(jax_f, argnums=(0, 1)))(scale, x)  # (jitted: one compile)
    for grad in _both(fa.grad(fa_f, argnums=(0, 1))):
        _close(grad(fnp.asarray(scale), fnp.asarray(x)), want, scale=100)
    _close(fa.hessian(fa_f)(fnp.asarray(scale), fnp.asarray(x)),
           jax.jit(jax.hessian(jax_f))(scale, x), scale=1e3)


@pytest.mark.parametrize("name", ["inv", "det", "cholesky", "solve"])
def test_linalg_gradients_match_jax(name):
    rng = np.random.default_rng(17)
    a = _spd(rng, (3, 3)) if name == "cholesky" else _well_conditioned(rng, (3, 3))
    b = _random(rng, (3, 2))

    def f(lib):
        fn = getattr(lib.linalg, name)
        if name == "solve":
            return lambda a: lib.sum(lib.sin(fn(a, b)))
        return lambda a: lib.sum(lib.sin(fn(a)))

    want = jax.grad(f(jnp))(a)
    for grad in _both(fa.grad(f(fnp))):
        _close(grad(fnp.asarray(a)), want, scale=100)


def test_per_example_solves_vmap_against_a_loop():
    rng = np.random.default_rng(18)
    a, b = _well_conditioned(rng, (4, 3, 3)), _random(rng, (3, 4))
    got = fa.vmap(fnp.linalg.solve, in_axes=(0, 1))(fnp.asarray(a), fnp.asarray(b))
    want = np.stack([np.linalg.solve(a[i], b[:, i]) for i in range(4)])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-10)
    grads = fa.vmap(fa.grad(lambda a: fnp.linalg.slogdet(a)[1]))(fnp.asarray(a))
    np.testing.assert_allclose(np.asarray(grads), np.linalg.inv(a).transpose(0, 2, 1),
                               rtol=1e-9)


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------

def test_errors_name_the_operation_and_the_fix():
    with pytest.raises(ValueError, match=r"linalg.inv: a must be a square matrix.*\(2, 3\)"):
        fnp.linalg.inv(fnp.ones((2, 3)))
    with pytest.raises(ValueError, match="linalg.det: a must be a square"):
        fnp.linalg.det(fnp.ones(3))
    with pytest.raises(ValueError, match=r"linalg.solve: b must have 3 rows.*\(2,\)"):
        fnp.linalg.solve(fnp.eye(3), fnp.ones(2))
    with pytest.raises(TypeError, match="linalg.cholesky: dtype float16 is not supported"):
        fnp.linalg.cholesky(fnp.eye(2, dtype=fnp.float16))
    with pytest.raises(TypeError, match="matrix_power: the exponent must be an int"):
        fnp.linalg.matrix_power(fnp.eye(2), 1.5)
    with pytest.raises(ValueError, match="slogdet: method='qr' is not supported"):
        fnp.linalg.slogdet(fnp.eye(2), method="qr")
    with pytest.raises(ValueError, match="ord='nuc' is a matrix norm"):
        fnp.linalg.norm(fnp.ones(3), ord="nuc", axis=0)
    with pytest.raises(TypeError, match="triangular_solve: a and b must have one dtype"):
        triangular_solve_p.bind(fnp.eye(2), fnp.ones((2, 2), dtype=fnp.float64),
                                left_side=True, lower=True, transpose_a=False,
                                conjugate_a=False, unit_diagonal=False)


# --------------------------------------------------------------------------------------------
# funcarray.scipy.linalg against jax.scipy.linalg
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_scipy_linalg_factor_and_solve_match_jax(dtype):
    import jax.scipy.linalg as jsl

    from funcarray.scipy import linalg as fsl
    rng = np.random.default_rng(19)
    a, s = _well_conditioned(rng, (2, 4, 4), dtype), _spd(rng, (2, 4, 4), dtype)
    b, v = _random(rng, (2, 4, 3), dtype), _random(rng, (4,), dtype)
    # (2-d operands here: jax's batched cho_solve/solve_triangular still read a (..., n, k) b
    # by a deprecated rule; funcarray follows NumPy 2's, tested in test_solve_matches_jax)
    a2, s2, b2 = a[0], s[0], b[0]
    rects = (a[0], _random(rng, (5, 3), dtype), _random(rng, (3, 5), dtype))

    def results(sl, asarray):
        """Every call's result, in one list: computed eagerly by funcarray and, for jax, in
        one jitted program (one compile instead of one per eager jax op)."""
        out = []
        for lower in (False, True):
            out.append(sl.cho_factor(asarray(s), lower=lower)[0])
            for rhs in (b2, v):
                out.append(sl.cho_solve(sl.cho_factor(asarray(s2), lower=lower), asarray(rhs)))
            out.append(sl.cholesky(asarray(s), lower=lower))
            for trans in (0, 1, 2, "T"):
                for unit in (False, True):
                    out.append(sl.solve_triangular(asarray(a2), asarray(b2), trans=trans,
                                                   lower=lower, unit_diagonal=unit))
        factors = sl.lu_factor(asarray(a))
        out.append(factors)
        for trans in (0, 1, 2):
            out.append(sl.lu_solve(factors, asarray(b), trans=trans))
            out.append(sl.lu_solve((factors[0][0], factors[1][0]), asarray(v), trans=trans))
        for rect in rects:
            out.append(sl.lu(asarray(rect)))
            out.append(sl.lu(asarray(rect), permute_l=True))
        return out

    want = jax.jit(lambda: results(jsl, jnp.asarray))()
    for got, expected in zip(results(fsl, fnp.asarray), want, strict=True):
        _close(got, expected, dtype, scale=10)
    _close(fa.jit(fsl.solve, static_argnames="assume_a")(fnp.asarray(s2), fnp.asarray(b2),
                                                         assume_a="pos"),
           jsl.solve(s2, b2, assume_a="pos"), dtype, scale=10)
    _close(fsl.det(fnp.asarray(a)), jsl.det(a), dtype, scale=100)
    _close(fsl.inv(fnp.asarray(a)), jsl.inv(a), dtype, scale=100)


# --------------------------------------------------------------------------------------------
# funcarray.lax.linalg against jax.lax.linalg
# --------------------------------------------------------------------------------------------

def test_lax_linalg_wrappers_match_jax():
    from funcarray.lax import linalg as fll
    rng = np.random.default_rng(20)
    a, s = _well_conditioned(rng, (2, 4, 4)), _spd(rng, (2, 4, 4))
    tall = _random(rng, (5, 3))
    _close(fll.cholesky(fnp.asarray(s)), jax.lax.linalg.cholesky(s))
    _close(fll.triangular_solve(fnp.asarray(a), fnp.asarray(a[..., :2, :]), lower=True),
           jax.lax.linalg.triangular_solve(a, a[..., :2, :], lower=True))
    _close(fll.lu(fnp.asarray(a)), jax.lax.linalg.lu(a))
    pivots = np.array([[2, 2, 3, 3], [0, 3, 2, 3]], np.int32)
    _close(fll.lu_pivots_to_permutation(fnp.asarray(pivots), 5),
           jax.lax.linalg.lu_pivots_to_permutation(pivots, 5))
    for full in (True, False):
        q, r = fll.qr(fnp.asarray(tall), full_matrices=full)
        want_q, want_r = jax.lax.linalg.qr(tall, full_matrices=full)
        assert q.shape == want_q.shape and r.shape == want_r.shape
        _close(q @ r, want_q @ want_r)
    v, w = fll.eigh(fnp.asarray(s))
    _close(w, jax.lax.linalg.eigh(s)[1], scale=100)
    _close(v @ (w[..., None] * np.swapaxes(np.asarray(v), -1, -2)), s, scale=100)
    u, sv, vh = fll.svd(fnp.asarray(tall), full_matrices=False)
    _close(sv, jax.lax.linalg.svd(tall, compute_uv=False), scale=100)
    _close((u * sv) @ vh, tall, scale=100)
    # (pivoting=True is tested in test_linalg_schur.py)


def test_portable_lowerings_match_jax():
    # jit on CPU calls LAPACK; other platforms get stablehlo.cholesky and the LU loop: run
    # those lowerings here.
    from helpers import run_portable
    rng = np.random.default_rng(21)
    good = _spd(rng, (3, 3))
    for a in (np.stack([good, -good]), good.astype(np.float32)):
        want = np.asarray(jax.lax.linalg.cholesky(a, symmetrize_input=False))
        (got,) = run_portable(cholesky_p.bind, a)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    for a in (_random(rng, (2, 4, 4)), _random(rng, (5, 3), np.complex128),
              np.array([[0.0, 0, 1], [0, 0, 2], [1, 2, 3]])):
        for got, want in zip(run_portable(lu_p.bind, a), jax.lax.linalg.lu(a)):
            np.testing.assert_allclose(got, np.asarray(want), rtol=1e-10, atol=1e-12)
    a, b = _well_conditioned(rng, (2, 4, 4), np.complex128), _random(rng, (2, 4, 3),
                                                                      np.complex128)
    for flags in _SOLVE_FLAGS[::3]:
        params = dict(zip(("left_side", "lower", "transpose_a", "conjugate_a",
                           "unit_diagonal"), flags))
        rhs = b if params["left_side"] else np.swapaxes(b, -1, -2)
        (got,) = run_portable(lambda a, b: triangular_solve_p.bind(a, b, **params), a, rhs)
        np.testing.assert_allclose(got, jax.lax.linalg.triangular_solve(a, rhs, **params),
                                   rtol=1e-9, atol=1e-9)
    # (and jit for the CPU does take the native kernels)
    def cpu_text(f, *args):
        return fa.jit(f, backend="cpu").lower(*args).as_text()

    assert "lapack_dpotrf_ffi" in cpu_text(cholesky_p.bind, fnp.asarray(good))
    assert "lapack_dgetrf_ffi" in cpu_text(lu_p.bind, fnp.asarray(good))
    assert "lapack_dtrsm_ffi" in cpu_text(fnp.linalg.solve, fnp.asarray(good), fnp.ones(3))
