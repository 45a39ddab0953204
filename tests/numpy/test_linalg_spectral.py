"""qr, eigh, svd and their derived functions in funcarray.numpy.linalg, against jax.

Signs of eigenvectors and singular vectors are arbitrary, so the checks compare quantities that
do not depend on them: reconstructions, orthogonality, projectors, |V.T @ V_ref| and
gradients of sign-invariant functions.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.numpy import linalg as fla
from funcarray.primitives.orthogonal_decompositions import eigh_p, qr_p, svd_p

FEW = settings(max_examples=3, phases=(Phase.explicit, Phase.generate))
TOL = {np.float32: 2e-5, np.float64: 1e-12}


def _rng(seed=0):
    return np.random.default_rng(seed)


def _matrix(shape, dtype=np.float64, seed=0):
    return _rng(seed).standard_normal(shape).astype(dtype)


def _symmetric(n, dtype=np.float64, seed=0, batch=()):
    a = _matrix((*batch, n, n), np.float64, seed)
    return ((a + np.swapaxes(a, -1, -2)) / 2).astype(dtype)


def _np(x):
    return np.asarray(x)


def _mT(x):
    return np.swapaxes(x, -1, -2)


def _close(actual, expected, dtype=np.float64, scale=1.0):
    tol = TOL[np.dtype(dtype).type] * scale
    np.testing.assert_allclose(_np(actual), _np(expected), rtol=tol, atol=tol)


def _assert_orthonormal_columns(q, dtype):
    q = _np(q)
    _close(_mT(q) @ q, np.broadcast_to(np.eye(q.shape[-1]), q.shape[:-2] + (q.shape[-1],) * 2),
           dtype, scale=10)


def _assert_same_subspaces(v, v_ref, dtype):
    """Columns equal up to sign: |v.T @ v_ref| is the identity (distinct eigen/singular
    values)."""
    overlap = np.abs(_mT(_np(v)) @ _np(v_ref))
    _close(overlap, np.broadcast_to(np.eye(overlap.shape[-1]), overlap.shape), dtype, scale=100)


# --------------------------------------------------------------------------------------------
# Eager decompositions
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype,shape,mode", [
    (np.float32, (5, 3), "reduced"), (np.float32, (3, 5), "complete"),
    (np.float64, (5, 3), "complete"), (np.float64, (3, 5), "reduced"),
    (np.float64, (4, 4), "reduced"), (np.float64, (2, 4, 3), "complete")])
def test_qr_reconstructs(dtype, shape, mode):
    a = _matrix(shape, dtype)
    q, r = fla.qr(a, mode=mode)
    assert q.dtype == r.dtype == dtype
    q_ref, r_ref = jnp.linalg.qr(a, mode=mode)
    assert q.shape == q_ref.shape and r.shape == r_ref.shape
    _close(q @ r, a, dtype, scale=10)
    _assert_orthonormal_columns(q, dtype)
    np.testing.assert_array_equal(_np(r), np.triu(_np(r)))
    # LAPACK's sign convention on both sides: the factors themselves agree.
    _close(r, r_ref, dtype, scale=10)
    _close(fla.qr(a, mode="r"), jnp.linalg.qr(a, mode="r"), dtype, scale=10)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("batch", [(), (3,)])
def test_eigh_matches_jax(dtype, batch):
    a = _symmetric(5, dtype, batch=batch)
    w, v = fla.eigh(a)
    w_ref, v_ref = jnp.linalg.eigh(a)
    assert w.dtype == v.dtype == dtype and w.shape == (*batch, 5)
    _close(w, w_ref, dtype, scale=10)
    _close((_np(v) * _np(w)[..., None, :]) @ _mT(_np(v)), a, dtype, scale=10)
    _assert_orthonormal_columns(v, dtype)
    _assert_same_subspaces(v, v_ref, dtype)
    _close(fla.eigvalsh(a), w_ref, dtype, scale=10)


def test_eigh_reads_one_triangle_without_symmetrizing():
    a = _symmetric(4)
    lower_only, upper_only = np.tril(a) + np.triu(_matrix((4, 4), seed=1), 1), np.triu(a)
    for m, uplo in [(lower_only, "L"), (upper_only, "U")]:
        w, _ = fla.eigh(m, UPLO=uplo, symmetrize_input=False)
        _close(w, np.linalg.eigvalsh(a))
        _close(fla.eigvalsh(m, UPLO=uplo, symmetrize_input=False),
               jnp.linalg.eigvalsh(m, UPLO=uplo, symmetrize_input=False))


@pytest.mark.parametrize("dtype,shape,full_matrices", [
    (np.float32, (6, 3), False), (np.float32, (3, 6), True), (np.float64, (6, 3), True),
    (np.float64, (3, 6), False), (np.float64, (4, 4), True), (np.float64, (2, 5, 3), False)])
def test_svd_matches_jax(dtype, shape, full_matrices):
    a = _matrix(shape, dtype)
    u, s, vh = fla.svd(a, full_matrices=full_matrices)
    u_ref, s_ref, vh_ref = jnp.linalg.svd(a, full_matrices=full_matrices)
    assert (u.shape, s.shape, vh.shape) == (u_ref.shape, s_ref.shape, vh_ref.shape)
    assert u.dtype == s.dtype == vh.dtype == dtype
    _close(s, s_ref, dtype, scale=10)
    k = s.shape[-1]
    _close((_np(u)[..., :, :k] * _np(s)[..., None, :]) @ _np(vh)[..., :k, :], a, dtype, scale=10)
    _assert_orthonormal_columns(u, dtype)
    _assert_orthonormal_columns(_mT(_np(vh)), dtype)
    _close(fla.svd(a, compute_uv=False), s_ref, dtype, scale=10)
    _close(fla.svdvals(a), s_ref, dtype, scale=10)


def test_hermitian_svd():
    a = _symmetric(5, seed=3)
    u, s, vh = fla.svd(a, hermitian=True)
    _close(s, np.linalg.svd(a, compute_uv=False))
    _close((_np(u) * _np(s)) @ _np(vh), a)
    _close(fla.svd(a, hermitian=True, compute_uv=False), s)
    _close(fla.pinv(a, hermitian=True), np.linalg.pinv(a), scale=100)
    _close(fla.matrix_rank(a, hermitian=True), 5)


def test_integer_inputs_are_promoted():
    ints = np.array([[2, 1], [1, 2]], np.int32)
    assert fla.eigh(ints).eigenvalues.dtype == np.float32
    assert fla.svdvals(ints.astype(np.int64)).dtype == np.float64
    _close(fla.eigvalsh(ints), [1.0, 3.0], np.float32)


# --------------------------------------------------------------------------------------------
# Functions built on the SVD
# --------------------------------------------------------------------------------------------

def _rank_deficient(m=5, n=4, rank=2, seed=0):
    return _matrix((m, rank), seed=seed) @ _matrix((rank, n), seed=seed + 1)


def test_derived_functions_match_jax():
    full, low = _matrix((5, 3)), _rank_deficient()
    b, bs = _matrix((5,), seed=2), _matrix((5, 2), seed=3)
    for a in (full, low, full.T):
        _close(fla.pinv(a), jnp.linalg.pinv(a), scale=1000)
        assert int(fla.matrix_rank(a)) == int(jnp.linalg.matrix_rank(a))
    for a in (full, _matrix((2, 3, 3), seed=4)):
        _close(fla.cond(a), jnp.linalg.cond(a), scale=100)
    _close(fla.cond(full, -2), 1 / jnp.linalg.cond(full), scale=100)
    for a, rhs in [(full, b), (full, bs), (low, b)]:
        for got, want in zip(fla.lstsq(a, rhs), jnp.linalg.lstsq(a, rhs)):
            assert got.shape == want.shape
            _close(got, want, scale=1000)


def _derived_values(linalg, a, b):
    return (linalg.pinv(a), linalg.matrix_rank(a), linalg.cond(a), *linalg.lstsq(a, b))


@pytest.mark.parametrize("rank", [2, 4])
def test_derived_functions_under_jit(rank):
    a, b = _rank_deficient(5, 4, rank, seed=rank), _matrix((5,), seed=2)
    got = fa.jit(lambda x, y: _derived_values(fla, x, y))(a, b)
    want = _derived_values(jnp.linalg, a, b)
    for i, (g, w) in enumerate(zip(got, want)):
        if rank == 4 or i != 2:  # (the cond of a singular matrix is rounding noise)
            _close(g, w, scale=1e3)


def test_matrix_rank_of_vectors_and_tolerances():
    assert int(fla.matrix_rank(np.zeros(3))) == 0
    assert int(fla.matrix_rank(np.array([0.0, 2.0]))) == 1
    a = np.diag([1.0, 1e-3, 1e-9])
    assert int(fla.matrix_rank(a)) == 3
    assert int(fla.matrix_rank(a, rtol=1e-6)) == 2
    assert int(fla.matrix_rank(a, tol=1e-2)) == 1
    # rtol scales with the largest singular value (NumPy, the Array API standard, jax's
    # documentation); tol is an absolute cutoff (NumPy's tol, what jax applies)
    scaled = np.diag([10.0, 0.5, 0.05])
    assert int(fla.matrix_rank(scaled, rtol=0.1)) == np.linalg.matrix_rank(scaled, rtol=0.1) == 1
    assert int(fla.matrix_rank(scaled, tol=0.1)) == np.linalg.matrix_rank(scaled, tol=0.1) == 2


def test_lstsq_numpy_resid_is_empty_when_underdetermined():
    x, resid, rank, _ = fla.lstsq(_matrix((3, 5)), _matrix((3,), seed=1), numpy_resid=True)
    assert resid.shape == (0,) and int(rank) == 3 and x.shape == (5,)


def _complex(shape, dtype=np.complex128, seed=0):
    rng = _rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def _hermitian(n, dtype=np.complex128, seed=0, batch=()):
    a = _complex((*batch, n, n), dtype, seed)
    return (a + np.conj(_mT(a))) / 2


def _complex_values(linalg, lib, a, h, b):
    """Sign- and phase-invariant results of the complex decompositions."""
    w, v = linalg.eigh(h)
    u, s, vh = linalg.svd(h, hermitian=True)
    return (w, (v * lib.sin(w)[..., None, :]) @ lib.conj(lib.swapaxes(v, -1, -2)),
            (u * s[..., None, :]) @ vh, linalg.pinv(a), linalg.pinv(h, hermitian=True),
            *linalg.lstsq(a, b), linalg.matrix_rank(h, hermitian=True))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_eigh_pinv_lstsq_match_jax(dtype):
    a, b = _complex((5, 3), dtype, seed=1), _complex((5, 2), dtype, seed=2)
    h = _hermitian(4, dtype, seed=3, batch=(2,))
    want = _complex_values(jnp.linalg, jnp, a, h, b)
    scale = 1e3 if dtype == np.complex128 else 10
    for run in (_complex_values, fa.jit(_complex_values, static_argnums=(0, 1))):
        got = run(fla, fnp, a, h, b)
        for g, w in zip(got, want, strict=True):
            assert g.shape == w.shape and g.dtype == w.dtype.name.replace("int64", "int32")
            _close(g, w, np.float32 if dtype == np.complex64 else np.float64, scale=scale)


def _complex_loss(lib, linalg):
    def f(x):  # real-valued, of a Hermitian matrix built from x (phase-invariant)
        h = x + lib.conj(lib.swapaxes(x, -1, -2))
        w, v = linalg.eigh(h)
        rotated = (v * lib.exp(w / 4)[None, :]) @ lib.conj(v.T)
        return (lib.sum(lib.real(rotated * lib.conj(x))) + lib.sum(w ** 3)
                + lib.sum(lib.abs(linalg.pinv(x[:, :3])) ** 2))
    return f


def test_complex_eigh_and_pinv_gradients_match_jax():
    x = _complex((4, 4), seed=4)
    expected = jax.grad(_complex_loss(jnp, jnp.linalg))(x)
    _close(fa.grad(_complex_loss(fnp, fla))(x), expected, scale=1000)
    _close(fa.jit(fa.grad(_complex_loss(fnp, fla)))(x), expected, scale=1000)
    dx = _complex((4, 4), seed=5)
    _, tangent = fa.jvp(_complex_loss(fnp, fla), (x,), (dx,))
    _, want = jax.jvp(_complex_loss(jnp, jnp.linalg), (x,), (dx,))
    _close(tangent, want, scale=1000)


# --------------------------------------------------------------------------------------------
# Gradients (sign-invariant functions) against jax, and finite differences
# --------------------------------------------------------------------------------------------

def _eigh_fn(lib, linalg):
    def f(x):
        w, v = linalg.eigh(x)
        return lib.sum(((v * lib.exp(w)) @ v.T) * x) + lib.sum(w ** 3)
    return f


def _qr_fn(lib, linalg):
    def f(x):
        q, r = linalg.qr(x)
        return lib.sum(lib.sin(q @ r) * q) + lib.sum(r ** 2)  # sign flips pair up in q * (.)
    return f


def _svd_fn(lib, linalg):
    def f(x):
        u, s, vh = linalg.svd(x, full_matrices=False)
        return lib.sum(s) + lib.sum(((u * s ** 2) @ vh) * x)
    return f


def _derived_fn(lib, linalg):
    def f(x):
        x_ls = linalg.lstsq(x, lib.arange(x.shape[0]) * 1.0)[0]
        return (lib.sum(linalg.pinv(x) ** 2) + lib.sum(linalg.svdvals(x) ** 3)
                + linalg.cond(x) + lib.sum(x_ls ** 2) + lib.sum(linalg.eigvalsh(x.T @ x) ** 2))
    return f


CASES = [("eigh", _eigh_fn, _symmetric(4, seed=5)), ("qr", _qr_fn, _matrix((5, 3), seed=6)),
         ("qr_square", _qr_fn, _matrix((4, 4), seed=7)),
         ("svd_tall", _svd_fn, _matrix((5, 3), seed=8)),
         ("svd_wide", _svd_fn, _matrix((3, 5), seed=9)),
         ("svd_square", _svd_fn, _matrix((4, 4), seed=10)),
         ("derived", _derived_fn, _matrix((5, 3), seed=11))]


@pytest.mark.parametrize("name,make,x", CASES, ids=[c[0] for c in CASES])
def test_grad_matches_jax(name, make, x):
    expected = jax.grad(make(jnp, jnp.linalg))(x)
    _close(fa.grad(make(fnp, fla))(x), expected, scale=1000)
    if name in ("eigh", "qr", "svd_wide"):  # the JVP rules under jit, composites inside
        _close(fa.jit(fa.grad(make(fnp, fla)))(x), expected, scale=1000)


@pytest.mark.parametrize("name,make,x", CASES[:4], ids=[c[0] for c in CASES[:4]])
def test_jvp_matches_finite_differences(name, make, x):
    f = make(fnp, fla)
    dx = _matrix(x.shape, seed=99)
    if name == "eigh":
        dx = dx + dx.T
    _, tangent = fa.jvp(f, (x,), (dx,))
    h = 1e-6
    fd = (float(f(x + h * dx)) - float(f(x - h * dx))) / (2 * h)
    np.testing.assert_allclose(float(tangent), fd, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("make", [_eigh_fn, _qr_fn, _svd_fn])
def test_second_order_matches_jax(make):
    # A Hessian-vector product: the JVP rules differentiate again.
    x = _symmetric(3, seed=13) if make is _eigh_fn else _matrix((4, 3), seed=12)
    dx = _matrix(x.shape, seed=14)

    def hvp(grad, jvp, lib, linalg):
        return jvp(grad(make(lib, linalg)), (x,), (dx,))[1]

    _close(hvp(fa.grad, fa.jvp, fnp, fla), hvp(jax.grad, jax.jvp, jnp, jnp.linalg), scale=1e4)


def test_eigh_eigenvalue_gradient_is_symmetric_projector():
    a = _symmetric(4, seed=14)
    g = fa.grad(lambda x: fla.eigvalsh(x)[-1])(a)
    v = np.linalg.eigh(a)[1][:, -1]
    _close(g, np.outer(v, v))


# --------------------------------------------------------------------------------------------
# vmap
# --------------------------------------------------------------------------------------------

def test_vmap_matches_a_loop():
    xs = _matrix((5, 3, 4), seed=15)  # mapped over axis 1: 3 matrices of shape (5, 4)
    loop = [_np(x) for x in (xs[:, i] for i in range(3))]
    qs, rs = fa.vmap(fla.qr, in_axes=1)(xs)
    for i, x in enumerate(loop):
        q, r = fla.qr(x)
        _close(qs[i], q)
        _close(rs[i], r)
    ss = fa.vmap(fla.svdvals, in_axes=1)(xs)
    _close(ss, np.stack([_np(fla.svdvals(x)) for x in loop]))
    sym = _symmetric(4, batch=(3,), seed=16)
    ws, vs = fa.vmap(fla.eigh)(sym)
    for i in range(3):
        w, v = fla.eigh(sym[i])
        _close(ws[i], w)
        _assert_same_subspaces(vs[i], v, np.float64)
    for prim, kw in [(svd_p, dict(full_matrices=True, compute_uv=True)),
                     (eigh_p, dict(lower=True)), (qr_p, dict(full_matrices=True))]:
        x = sym if prim is eigh_p else _matrix((3, 4, 4), seed=17)
        batched = fa.vmap(lambda m, p=prim, k=kw: p.bind(m, **k), in_axes=0)(fnp.asarray(x))
        direct = prim.bind(fnp.asarray(x), **kw)
        for b, d in zip(batched, direct):
            _close(b, d)


# --------------------------------------------------------------------------------------------
# jit: the composite lowerings
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype,shape,mode", [
    (np.float32, (5, 3), "reduced"), (np.float64, (5, 3), "complete"),
    (np.float64, (3, 5), "reduced"), (np.float64, (2, 4, 4), "complete")])
def test_jit_qr_matches_eager(dtype, shape, mode):
    a = _matrix(shape, dtype, seed=18)
    q, r = fa.jit(lambda x: fla.qr(x, mode=mode))(a)
    q_ref, r_ref = fla.qr(a, mode=mode)
    _close(q, q_ref, dtype, scale=100)  # LAPACK's signs: the factors agree exactly
    _close(r, r_ref, dtype, scale=100)


@pytest.mark.parametrize("dtype,n,batch", [
    (np.float32, 5, ()), (np.float64, 1, ()), (np.float64, 2, ()), (np.float64, 6, (2,))])
def test_jit_eigh_matches_eager(dtype, n, batch):
    a = _symmetric(n, dtype, seed=19, batch=batch)
    w, v = fa.jit(fla.eigh)(a)
    w_ref, v_ref = fla.eigh(a)
    _close(w, w_ref, dtype, scale=100)
    _assert_same_subspaces(v, v_ref, dtype)
    _close((_np(v) * _np(w)[..., None, :]) @ _mT(_np(v)), a, dtype, scale=100)


def test_jit_eigh_reads_one_triangle():
    a = _symmetric(5, seed=23)
    upper = np.triu(a) + np.tril(_matrix((5, 5), seed=24), -1)
    w = fa.jit(lambda x: fla.eigh(x, UPLO="U", symmetrize_input=False)[0])(upper)
    _close(w, np.linalg.eigvalsh(a), scale=100)


@pytest.mark.parametrize("dtype,shape,full_matrices", [
    (np.float32, (6, 3), True), (np.float32, (3, 6), False), (np.float64, (6, 3), False),
    (np.float64, (3, 6), True), (np.float64, (1, 1), False), (np.float64, (2, 4, 4), True)])
def test_jit_svd_matches_eager(dtype, shape, full_matrices):
    a = _matrix(shape, dtype, seed=20)
    u, s, vh = fa.jit(lambda x: fla.svd(x, full_matrices=full_matrices))(a)
    u_ref, s_ref, vh_ref = fla.svd(a, full_matrices=full_matrices)
    assert (u.shape, s.shape, vh.shape) == (u_ref.shape, s_ref.shape, vh_ref.shape)
    _close(s, s_ref, dtype, scale=100)
    k = s.shape[-1]
    _assert_same_subspaces(_np(u)[..., :, :k], _np(u_ref)[..., :, :k], dtype)
    _assert_same_subspaces(_mT(_np(vh)[..., :k, :]), _mT(_np(vh_ref)[..., :k, :]), dtype)
    _assert_orthonormal_columns(u, dtype)
    _assert_orthonormal_columns(_mT(_np(vh)), dtype)


def test_jit_svd_of_rank_deficient_matrix_completes_the_basis():
    a = _rank_deficient(6, 4, 2, seed=21)
    u, s, vh = fa.jit(fla.svd)(a)
    _close(s, np.linalg.svd(a, compute_uv=False), scale=100)
    _assert_orthonormal_columns(u, np.float64)
    _assert_orthonormal_columns(_mT(_np(vh)), np.float64)
    _close((_np(u)[:, :4] * _np(s)) @ _np(vh), a, scale=100)


def test_jit_eigh_with_repeated_eigenvalues():
    q = np.linalg.qr(_matrix((5, 5), seed=22))[0]
    a = (q * np.array([1.0, 1.0, 2.0, 2.0, 2.0])) @ q.T
    w, v = fa.jit(fla.eigh)(a)
    _close(w, [1.0, 1.0, 2.0, 2.0, 2.0], scale=100)
    _assert_orthonormal_columns(v, np.float64)
    _close((_np(v) * _np(w)) @ _np(v).T, a, scale=100)


@FEW
@given(n=st.integers(2, 6), seed=st.integers(0, 2**16))
def test_jit_eigh_and_svd_random(n, seed):
    a = _symmetric(n, seed=seed) + np.diag(np.arange(n) * 0.5)
    _close(fa.jit(fla.eigvalsh)(a), np.linalg.eigvalsh(a), scale=100)
    b = _matrix((n + 1, n), seed=seed)
    _close(fa.jit(fla.svdvals)(b), np.linalg.svd(b, compute_uv=False), scale=100)


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("call,exc,match", [
    (lambda: fla.eigh(np.ones((2, 3))), ValueError, r"eigh: expected square.*\(2, 3\)"),
    (lambda: fla.eigh(np.ones(3)), ValueError, r"eigh: .*at least 2 dimensions.*\(3,\)"),
    (lambda: fla.eigh(np.eye(2), UPLO="X"), ValueError, "UPLO"),
    (lambda: fla.qr(np.eye(2, dtype=np.float16)), TypeError, "qr: float16 .*astype"),
    (lambda: fla.qr(np.eye(2), mode="raw"), ValueError, "'raw' is not supported"),
    (lambda: fla.svd(np.ones((2, 3)), hermitian=True), ValueError, "svd: expected square"),
    (lambda: fla.cond(np.eye(2), "fro"), ValueError, "cond: only p=None, 2 or -2"),
    (lambda: fla.cond(np.ones((0, 2))), ValueError, "cond: the matrices must not be empty"),
    (lambda: fla.lstsq(np.ones((3, 2)), np.ones(4)), ValueError, "same number of rows"),
    (lambda: fla.lstsq(np.ones((2, 3, 2)), np.ones(3)), ValueError, "use vmap"),
    (lambda: fla.matrix_rank(np.eye(2), rtol=1, tol=1), ValueError, "only one of tol"),
    (lambda: fla.pinv(np.eye(2), rtol=1, rcond=1), ValueError, "only one of rtol"),
    (lambda: eigh_p.bind(fnp.ones((2, 2), dtype=np.int32), lower=True), TypeError,
     "eigh: expected float32, float64, complex64 or complex128 matrices, got int32"),
    (lambda: fa.grad(lambda x: fnp.sum(fla.qr(x)[0]))(np.ones((2, 3))), NotImplementedError,
     r"qr: the derivative needs .*\(2, 3\)"),
    (lambda: fa.grad(lambda x: fnp.sum(fla.svd(x)[0]))(np.ones((3, 2))), NotImplementedError,
     "svd: .*full_matrices=False"),
])
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_public_names_are_exported():
    for name in ("qr", "eigh", "eigvalsh", "svd", "svdvals", "matrix_rank", "pinv", "lstsq",
                 "cond"):
        assert name in fla.__all__ and callable(getattr(fla, name))
    assert fla.eigh(np.eye(2))._fields == ("eigenvalues", "eigenvectors")
    assert fla.svd(np.eye(2))._fields == ("U", "S", "Vh")


@pytest.mark.parametrize("n", [1, 2, 5])
def test_portable_jacobi_eigh_lowering_matches_numpy(n):
    # jit on CPU calls LAPACK's syevd; other platforms get the Jacobi composite: run it here.
    from helpers import run_portable
    rng = np.random.default_rng(n)
    x = rng.normal(size=(2, n, n))
    a = x @ np.swapaxes(x, -1, -2) + np.eye(n)
    if n == 5:
        a[1] = np.diag([1.0, 1.0, 2.0, 2.0, 3.0])  # repeated eigenvalues
    for lower in (True, False):
        v, w = run_portable(lambda m: eigh_p.bind(m, lower=lower), a)
        np.testing.assert_allclose(w, np.linalg.eigvalsh(a), rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(v @ (w[..., None] * np.swapaxes(v, -1, -2)), a,
                                   rtol=1e-10, atol=1e-10)
    assert "lapack_dsyevd_ffi" in fa.jit(lambda m: eigh_p.bind(m, lower=True)).lower(
        fnp.asarray(a)).as_text()


@pytest.mark.parametrize("shape", [(1, 1), (5, 3), (2, 3, 5)])
@pytest.mark.parametrize("full_matrices", [False, True])
def test_portable_jacobi_svd_lowering_matches_numpy(shape, full_matrices):
    # jit on CPU calls LAPACK's gesdd; other platforms get the one-sided Jacobi composite.
    from helpers import run_portable
    a = np.random.default_rng(len(shape)).normal(size=shape)
    if shape == (5, 3):
        a[:, 2] = a[:, 0] + a[:, 1]  # rank-deficient
    s, u, vh = run_portable(lambda m: svd_p.bind(m, full_matrices=full_matrices,
                                                 compute_uv=True), a)
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=1e-10, atol=1e-10)
    k = min(shape[-2:])
    np.testing.assert_allclose((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], a,
                               rtol=1e-10, atol=1e-10)
    for q in (u, np.swapaxes(vh, -1, -2)):  # orthonormal columns (all of them when full)
        np.testing.assert_allclose(np.swapaxes(q, -1, -2) @ q,
                                   np.broadcast_to(np.eye(q.shape[-1]), q.shape[:-2] + (
                                       q.shape[-1],) * 2), atol=1e-10)
    (values,) = run_portable(lambda m: svd_p.bind(m, full_matrices=False, compute_uv=False), a)
    np.testing.assert_allclose(values, s, rtol=1e-10, atol=1e-10)
