"""The Schur decomposition and what is built on it (scipy.linalg's schur, rsf2csf, sqrtm, funm),
column-pivoted QR (scipy.linalg.qr / lax.linalg.qr with pivoting, qr_multiply),
eigh_tridiagonal, and complex svd/qr: values against jax (x64 on, conftest) and
NumPy/SciPy, eager and fa.jit (which agree exactly where both call the same LAPACK kernel),
vmap against a loop, gradients against jax.grad, the three lowerings of the native-kernel
primitives (LAPACK, host callback, none for a backend-neutral lowering), and the errors."""

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np
import pytest
import scipy.linalg as sl
from helpers import run_portable
from hypothesis import given, settings
from hypothesis import strategies as st

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.lax import linalg as fll
from funcarray.primitives.schur import schur_p
from funcarray.scipy import linalg as fsl
from funcarray.testing import check_grads

RNG = np.random.default_rng(0)
TOL = {np.float32: 2e-5, np.float64: 1e-12, np.complex64: 2e-5, np.complex128: 1e-12}


def _randn(*shape, dtype=np.float64):
    x = RNG.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * RNG.standard_normal(shape)
    return x.astype(dtype)


def _close(got, want, tol, dtype=True):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    if dtype:
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def _mH(x):
    return np.conj(np.swapaxes(np.asarray(x), -1, -2))


# --------------------------------------------------------------------------------------------
# schur
# --------------------------------------------------------------------------------------------

def _check_real_schur_form(t, tol):
    """Quasi upper triangular: nothing below the subdiagonal, and a nonzero subdiagonal entry
    only inside a standardised 2 x 2 block (equal diagonal entries, no overlapping blocks)."""
    t = np.asarray(t)
    np.testing.assert_array_equal(np.tril(t, -2), 0)
    sub = np.abs(np.diagonal(t, -1, -2, -1)) > 0
    assert not (sub[..., 1:] & sub[..., :-1]).any()
    for i in zip(*np.nonzero(sub)):
        *b, j = i
        np.testing.assert_allclose(t[(*b, j, j)], t[(*b, j + 1, j + 1)], atol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_schur_matches_jax_eager_and_jit(dtype):
    tol = TOL[dtype]
    a = _randn(2, 5, 5, dtype=dtype)
    # real input: both outputs; complex input: 'real' is already the complex form
    for output in ("real", "complex") if dtype == np.float32 else ("real",):
        t, z = fsl.schur(a, output=output)
        want_t, want_z = jsl.schur(a, output=output)
        # the same LAPACK gees as jax, so the same form (eigenvalue order, vector phases)
        _close(t, want_t, tol)
        _close(z, want_z, tol)
        _close(np.asarray(z) @ np.asarray(t) @ _mH(z), a.astype(t.dtype), tol * 10)
        _close(_mH(z) @ np.asarray(z), np.broadcast_to(np.eye(5), (2, 5, 5)).astype(t.dtype),
               tol * 10)
        if t.dtype.kind == "c":
            np.testing.assert_array_equal(np.tril(np.asarray(t), -1), 0)
        else:
            _check_real_schur_form(t, tol * 10)
    if dtype in (np.float32, np.complex128):
        t, z = fsl.schur(a)
        jit_t, jit_z = fa.jit(fsl.schur)(a)
        np.testing.assert_array_equal(jit_t, t)  # eager runs the very same kernel
        np.testing.assert_array_equal(jit_z, z)
    # the eigenvalues, with NumPy's
    w = np.diagonal(np.asarray(fsl.schur(a, output="complex")[0]), 0, -2, -1)[0]
    distance = np.abs(w[:, None] - np.linalg.eigvals(a[0])[None, :])
    assert distance.min(axis=0).max() < tol * 100 and distance.min(axis=1).max() < tol * 100


def test_schur_vmap_lax_and_special_inputs():
    a = _randn(3, 4, 4)
    t, z = fsl.schur(a)
    vt, vz = fa.vmap(fsl.schur)(a)
    np.testing.assert_array_equal(vt, t)
    np.testing.assert_array_equal(vz, z)
    in_axis = fa.jit(fa.vmap(fsl.schur, in_axes=2))(np.moveaxis(a, 0, 2))
    np.testing.assert_array_equal(in_axis[0], t)
    # jax.lax.linalg.schur's list results, [t] alone without vectors
    lt, lz = fll.schur(a)
    np.testing.assert_array_equal(lt, t)
    only = fll.schur(a, compute_schur_vectors=False)
    assert isinstance(only, list) and len(only) == 1
    np.testing.assert_array_equal(only[0], t)
    # integers become complex64 with output='complex' (as jax); empty and rotation matrices
    assert fsl.schur(np.eye(2, dtype=np.int32), output="complex")[0].dtype == np.complex64
    assert fsl.schur(np.zeros((2, 0, 0)))[0].shape == (2, 0, 0)
    _check_real_schur_form(fsl.schur(np.array([[0.0, -1.0], [1.0, 0.0]]))[0], 1e-12)


def test_schur_lowerings(monkeypatch):
    """CPU jit emits LAPACK gees; a platform without it (forced here) calls back into the
    eager kernel on the host (here SciPy's, standing in); a backend-neutral lowering
    refuses."""
    import funcarray.primitives.schur as schur_module

    a = _randn(2, 4, 4)
    assert "gees" in fa.jit(fsl.schur).lower(a).as_text()
    with pytest.raises(NotImplementedError, match="schur"):
        run_portable(fsl.schur, a)
    monkeypatch.setattr(schur_module.runtime, "native_linalg", lambda *args, **kw: None)
    monkeypatch.setattr(schur_p, "kernel", lambda x, **params: [np.stack(y) for y in zip(
        *(sl.schur(m) for m in x))])
    fa.clear_caches()
    try:
        text = fa.jit(fsl.schur).lower(a).as_text()
        assert "gees" not in text and "callback" in text
        t, z = fa.jit(fsl.schur)(a)
        _close(t, np.stack([sl.schur(m)[0] for m in a]), 1e-12)
    finally:
        fa.clear_caches()


def test_schur_family_has_no_derivative():
    with pytest.raises(NotImplementedError, match="schur has no derivative"):
        fa.grad(lambda x: fnp.sum(fsl.schur(x)[0]))(np.eye(3))
    with pytest.raises(NotImplementedError, match="sqrtm and funm"):
        fa.grad(lambda x: fnp.sum(fsl.sqrtm(x).real))(np.eye(3) * 2)
    # a zero tangent is fine (the argument is not differentiated)
    grad = fa.grad(lambda x, y: fnp.sum(fsl.schur(y)[0]) * x, argnums=0)(2.0, np.eye(2))
    assert float(grad) == 2.0


# --------------------------------------------------------------------------------------------
# rsf2csf, sqrtm, funm
# --------------------------------------------------------------------------------------------

def test_rsf2csf_matches_jax():
    tol = TOL[np.float64]
    # complex eigenvalue pairs (2 x 2 blocks) and real ones
    a = np.array([[0.0, 3.0, 3.0, 1.0], [0.0, 1.0, 2.0, 0.0], [2.0, 0.0, 1.0, 1.0],
                  [1.0, -2.0, 0.0, 0.5]])
    a = np.stack([a, _randn(4, 4)])
    t, z = fsl.schur(a)
    ct, cz = fsl.rsf2csf(t, z)
    want = jsl.rsf2csf(np.asarray(t[0]), np.asarray(z[0]))  # (one matrix: one compile)
    _close(ct[0], want[0], tol * 10)
    _close(cz[0], want[1], tol * 10)
    _close(ct[1], fsl.rsf2csf(t[1], z[1])[0], 0)
    for ct, cz in ((ct, cz), fsl.rsf2csf(*fsl.schur(a.astype(np.float32)))):
        np.testing.assert_array_equal(np.tril(np.asarray(ct), -1), 0)
        _close(np.asarray(cz) @ np.asarray(ct) @ _mH(cz), a.astype(ct.dtype), 1e-5)
    assert ct.dtype == cz.dtype == np.complex64  # (float32's form)
    # T's batch axes broadcast against Z's
    broadcast = fsl.rsf2csf(t[0], z)[1]
    for k in range(2):
        _close(broadcast[k], fsl.rsf2csf(t[0], z[k])[1], 0)


def test_sqrtm_funm_rsf2csf_under_jit_and_vmap():
    # one program (one compile) for sqrtm's and rsf2csf's loops (funm's is sqrtm's pattern)
    def f(x):
        return fsl.sqrtm(x), fsl.rsf2csf(*fsl.schur(x))[0]

    a = _randn(2, 3, 3)
    for got, want in zip(fa.jit(f)(a), f(a)):
        _close(got, want, 1e-12)
    for got, want in zip(fa.vmap(lambda x: (*f(x), fsl.funm(x, fnp.exp)))(a),
                         (*f(a), fsl.funm(a, fnp.exp))):
        _close(got, want, 1e-12)
    _close(fsl.funm(a, fnp.exp), np.stack([sl.expm(m) for m in a]), 1e-12, dtype=False)


def test_sqrtm_matches_jax_and_scipy():
    a = _randn(4, 4)
    r = fsl.sqrtm(a)
    _close(r, jsl.sqrtm(a), 1e-12)
    _close(np.asarray(r) @ np.asarray(r), a.astype(r.dtype), 1e-12)
    c = _randn(2, 4, 4, dtype=np.complex64)  # batches (jax takes one matrix)
    _close(fsl.sqrtm(c), np.stack([sl.sqrtm(m) for m in c]), 1e-4)
    # exactly zero numerators give 0 (no 0/0), as jax: the zero matrix, a Jordan block
    _close(fsl.sqrtm(np.zeros((3, 3))), np.zeros((3, 3), np.complex128), 0)
    _close(fsl.sqrtm(np.array([[4.0, 1.0], [0.0, 4.0]])),
           np.array([[2.0, 0.25], [0.0, 2.0]], np.complex128), 1e-15)
    _close(fsl.sqrtm(np.eye(2, dtype=np.int32)), np.eye(2, dtype=np.complex64), 0)


@settings(deadline=None)
@given(values=st.lists(st.floats(-4, 4), min_size=9, max_size=9))
def test_sqrtm_property(values):
    # diagonally dominant: every eigenvalue in the right half plane, far from sqrt's branch cut
    a = np.array(values).reshape(3, 3) + 12 * np.eye(3)
    r = np.asarray(fsl.sqrtm(a))
    np.testing.assert_allclose(r @ r, a, atol=1e-9)
    np.testing.assert_allclose(r, sl.sqrtm(a), atol=1e-7)


def test_funm_matches_scipy():
    a = _randn(4, 4)
    f, err = fsl.funm(a, lambda x: fnp.sin(x) + 2 * fnp.cos(x), disp=False)
    want_f, want_err = sl.funm(a, lambda x: np.sin(x) + 2 * np.cos(x), disp=False)
    _close(f, want_f.astype(np.complex128), 1e-12)  # (SciPy returns a real array here)
    _close(err, want_err, 1e-9, dtype=False)
    assert f.dtype == np.complex128 and err.dtype == np.float64
    c = _randn(3, 3, dtype=np.complex64)
    _close(fsl.funm(c, fnp.exp), sl.expm(c), 1e-4)


# --------------------------------------------------------------------------------------------
# QR with column pivoting, qr_multiply
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype,shape", [(np.float64, (5, 3)), (np.complex64, (2, 3, 5))])
def test_qr_pivoting_matches_scipy_and_jax(dtype, shape):
    tol = TOL[dtype]
    a = _randn(*shape, dtype=dtype)
    q, r, p = fll.qr(a, pivoting=True, full_matrices=False)
    want = jax.lax.linalg.qr(a, pivoting=True, full_matrices=False)
    for x, y in zip((q, r, p), want):
        _close(x, y, 0 if np.asarray(y).dtype == np.int32 else tol)
    # a[..., :, p] = q r, |diag(r)| non-increasing
    permuted = np.take_along_axis(a, np.asarray(p)[..., None, :], axis=-1)
    _close(np.asarray(q) @ np.asarray(r), permuted, tol * 10)
    d = np.abs(np.diagonal(np.asarray(r), 0, -2, -1))
    assert (d[..., :-1] >= d[..., 1:] - tol).all()
    jq, jr, jp = fa.jit(lambda x: fll.qr(x, pivoting=True, full_matrices=False))(a)
    np.testing.assert_array_equal(jq, q)  # eager runs the same geqp3
    np.testing.assert_array_equal(jp, p)
    matrices = a.reshape(-1, *shape[-2:])
    for mode in ("full", "economic", "r"):
        got = fsl.qr(a, mode=mode, pivoting=True)
        assert type(got) is tuple and len(got) == (2 if mode == "r" else 3)
        for k, m in enumerate(matrices):  # SciPy's geqp3 (its p is int64)
            for x, y in zip(got, sl.qr(m, mode=mode, pivoting=True)):
                _close(np.asarray(x).reshape(len(matrices), *np.shape(y))[k], y, tol,
                       dtype=False)
    if len(shape) == 3:
        vq, vr, vp = fa.vmap(lambda x: fll.qr(x, pivoting=True, full_matrices=False))(a)
        np.testing.assert_array_equal(vr, r)
        np.testing.assert_array_equal(vp, p)


def test_qr_pivoting_gradient_and_edge_cases():
    a = _randn(5, 3)

    def loss(qr_fn, np_):
        def f(x):
            q, r, _ = qr_fn(x)
            return np_.sum(np_.sin(q)) + np_.sum(r ** 2 * np_.arange(1.0, 4.0))
        return f

    want = jax.jit(jax.grad(loss(lambda x: jsl.qr(x, mode="economic", pivoting=True), jnp)))(a)
    got = fa.grad(loss(lambda x: fsl.qr(x, mode="economic", pivoting=True), fnp))(a)
    _close(got, want, 1e-12)
    with pytest.raises(NotImplementedError, match="at least as many rows"):
        fa.grad(lambda x: fnp.sum(fsl.qr(x, pivoting=True)[1]))(a.T)
    # empty matrices: jax's identity q, zero r and zero p (LAPACK would divide by zero)
    for shape in ((0, 3), (3, 0)):
        q, r, p = fsl.qr(np.zeros(shape), pivoting=True)
        _close(q, np.eye(shape[0]), 0)
        _close(r, np.zeros(shape), 0)
        _close(p, np.zeros(shape[1], np.int32), 0)
    # integers are promoted (as jax.scipy); the portable lowering refuses
    assert fsl.qr(np.eye(2, dtype=np.int32), pivoting=True)[0].dtype == np.float32
    with pytest.raises(NotImplementedError, match="qr_pivoted"):
        run_portable(lambda x: fll.qr(x, pivoting=True), a)


def test_qr_multiply_matches_jax_and_scipy():
    a = _randn(5, 3, dtype=np.complex128)
    c = _randn(2, 5)
    for got, want in zip(fsl.qr_multiply(a, c, pivoting=True, conjugate=True),
                         jsl.qr_multiply(a, c, pivoting=True, conjugate=True)):
        _close(got, want, 1e-12)
    for shape in ((5, 3), (3, 5)):
        a = _randn(*shape, dtype=np.complex128)
        k, m = min(shape), shape[0]
        for mode, pivoting, conjugate in (("right", False, False), ("left", True, False),
                                          ("right", True, True), ("left", False, True)):
            for c in (_randn(*((k, 2) if mode == "left" else (2, m))),
                      _randn(k if mode == "left" else m)):
                got = fsl.qr_multiply(a, c, mode=mode, pivoting=pivoting, conjugate=conjugate)
                want = sl.qr_multiply(a, c, mode=mode, pivoting=pivoting, conjugate=conjugate)
                assert len(got) == len(want)
                for x, y in zip(got, want):
                    _close(x, y, 1e-12, dtype=False)


def test_qr_multiply_batches_and_grad():
    a, c = _randn(2, 4, 3), _randn(3, 4)
    cq, r = fsl.qr_multiply(a, c)  # c's rows broadcast against a's batch
    for i in range(2):
        want = sl.qr_multiply(a[i], c)
        _close(cq[i], want[0], 1e-12)
        _close(r[i], want[1], 1e-12)
    _close(fa.vmap(fsl.qr_multiply, in_axes=(0, None))(a, c)[0], cq, 1e-12)
    # (jax's qr_multiply has no derivative: geqrf has none; the same product from jnp's qr)
    want = jax.jit(jax.grad(lambda x: jnp.sum((c[0] @ jnp.linalg.qr(x)[0]) ** 2
                                              * jnp.arange(3.0))))(a[0])
    got = fa.grad(lambda x: fnp.sum(fsl.qr_multiply(x, c[0])[0] ** 2 * fnp.arange(3.0)))(a[0])
    _close(got, want, 1e-12)


# --------------------------------------------------------------------------------------------
# eigh_tridiagonal
# --------------------------------------------------------------------------------------------

def _tridiagonal(d, e):
    return np.diag(d) + np.diag(e, 1) + np.diag(np.conj(e), -1)


def test_eigh_tridiagonal_matches_jax():
    d, e = _randn(6, dtype=np.float32), _randn(5, dtype=np.float32)
    w = fsl.eigh_tridiagonal(d, e, eigvals_only=True)
    _close(w, jsl.eigh_tridiagonal(d, e, eigvals_only=True), 0)  # the very same bisection
    jitted = fa.jit(lambda d, e: fsl.eigh_tridiagonal(d, e, eigvals_only=True, tol=1e-3))
    loose = jitted(d, e)
    np.testing.assert_allclose(loose, np.linalg.eigvalsh(_tridiagonal(d, e)), atol=2e-3)
    _close(loose, fsl.eigh_tridiagonal(d, e, eigvals_only=True, tol=1e-3), 0)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_eigh_tridiagonal_values_and_vectors(dtype):
    tol = TOL[dtype]
    d, e = _randn(6, dtype=dtype), _randn(5, dtype=dtype)
    t = _tridiagonal(d.real, e)  # (complex d: jax reads its real part)
    w = fsl.eigh_tridiagonal(d, e, eigvals_only=True)
    assert w.dtype == np.float64
    np.testing.assert_allclose(w, np.linalg.eigvalsh(t), atol=tol * 10)
    # a selection, with eigenvectors (as jax: (n, k), d's dtype): T v = v w, orthonormal
    w2, v = fsl.eigh_tridiagonal(d, e, select="i", select_range=(1, 3))
    _close(w2, w[1:4], 0)
    assert v.shape == (6, 3) and v.dtype == dtype
    v = np.asarray(v)
    np.testing.assert_allclose(t @ v, v * np.asarray(w2), atol=tol * 100)
    np.testing.assert_allclose(_mH(v) @ v, np.eye(3), atol=tol * 100)


def test_eigh_tridiagonal_vmap_and_small():
    ds, es = _randn(3, 4), _randn(3, 3)
    got = fa.vmap(lambda d, e: fsl.eigh_tridiagonal(d, e, eigvals_only=True))(ds, es)
    _close(got, np.stack([np.linalg.eigvalsh(_tridiagonal(*x)) for x in zip(ds, es)]), 1e-12)
    w, v = fsl.eigh_tridiagonal(np.array([2.0 + 0j]), np.zeros(0, np.complex128))
    assert w.dtype == np.float64 and v.dtype == np.complex128 and v.shape == (1, 1)
    d, e = np.array([1.0, 2.0, 3.0]), np.array([0.0, 0.5])  # a split matrix
    np.testing.assert_allclose(fsl.eigh_tridiagonal(d, e, eigvals_only=True),
                               np.linalg.eigvalsh(_tridiagonal(d, e)), atol=1e-12)


# --------------------------------------------------------------------------------------------
# complex svd and qr
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype,shape", [(np.complex64, (4, 3)), (np.complex128, (2, 3, 5))])
def test_complex_svd_and_qr_match_jax(dtype, shape):
    tol = TOL[dtype]
    a = _randn(*shape, dtype=dtype)
    real = np.float32 if dtype == np.complex64 else np.float64
    for full in (True, False):
        u, s, vh = fnp.linalg.svd(a, full_matrices=full)
        wu, ws, wvh = np.linalg.svd(a, full_matrices=full)  # jax's gesdd
        assert s.dtype == real and u.dtype == vh.dtype == dtype
        assert u.shape == wu.shape and vh.shape == wvh.shape
        _close(s, ws, tol * 10)
        k = s.shape[-1]
        _close((np.asarray(u)[..., :k] * np.asarray(s)[..., None, :]) @ np.asarray(vh)[..., :k, :],
               a, tol * 10)
    ju, js, jvh = fa.jit(fnp.linalg.svd)(a)
    _close(js, s, tol)
    for mode in ("reduced", "complete"):
        q, r = fnp.linalg.qr(a, mode=mode)
        wq, wr = np.linalg.qr(a, mode=mode)  # LAPACK's Householder signs, as jax
        _close(q, wq, tol * 10)
        _close(r, wr, tol * 10)
    _close(fnp.linalg.matrix_rank(a), np.linalg.matrix_rank(a), 0, dtype=False)
    _close(fa.vmap(fnp.linalg.svdvals)(a.reshape(-1, *shape[-2:])),
           np.linalg.svd(a.reshape(-1, *shape[-2:]), compute_uv=False), tol * 10)
    _close(fsl.svd(a)[1], s, 0)
    if dtype == np.complex128:
        want = jax.jit(lambda x: (jnp.linalg.svd(x, compute_uv=False), jnp.linalg.qr(x)[1],
                                  jnp.linalg.cond(x)))(a)
        _close(fnp.linalg.svdvals(a), want[0], tol * 10)
        _close(fsl.qr(a, mode="economic")[1], want[1], tol * 10)
        _close(fnp.linalg.cond(a), want[2], tol * 100)
    else:
        # jit's backend-neutral Householder QR (complex) gives LAPACK's factors too
        pq, pr = run_portable(fnp.linalg.qr, a)
        wq, wr = np.linalg.qr(a)
        _close(pq, wq, tol * 10)
        _close(pr, wr, tol * 10)


def _svd_loss(np_):  # invariant under the singular vectors' phases
    def f(x):
        u, s, vh = np_.linalg.svd(x, full_matrices=False)
        w = u @ vh
        return np_.sum(s ** 2 * np_.arange(1.0, s.shape[-1] + 1)) + np_.sum(
            np_.abs(w) ** 3) + np_.sum(np_.real(w[0]))
    return f


def _qr_loss(np_):
    def f(x):
        q, r = np_.linalg.qr(x)
        return (np_.sum(np_.real(q) * np_.arange(1.0, q.shape[-1] + 1))
                + np_.sum(np_.imag(r) ** 2) + np_.sum(np_.abs(r)))
    return f


def test_complex_svd_and_qr_gradients_match_jax():
    a, tangent = _randn(4, 3, dtype=np.complex128), _randn(4, 3, dtype=np.complex128)

    def oracles(x, t):
        return (jax.grad(_svd_loss(jnp))(x), jax.grad(_qr_loss(jnp))(x),
                jax.jvp(lambda y: jnp.linalg.svd(y, full_matrices=False), (x,), (t,))[1])

    svd_grad, qr_grad, tangents = jax.jit(oracles)(a, tangent)
    _close(fa.grad(_svd_loss(fnp))(a), svd_grad, 1e-10)
    _close(fa.grad(_qr_loss(fnp))(a), qr_grad, 1e-10)
    got = fa.jvp(lambda x: fnp.linalg.svd(x, full_matrices=False), (a,), (tangent,))[1]
    for x, y in zip(got, tangents):
        _close(x, y, 1e-10)
    # a wide matrix (the other branch of the rule), square matrices: finite differences
    check_grads(_svd_loss(fnp), (a.T,), order=1)
    check_grads(lambda x: fnp.linalg.svdvals(x), (a[:3],), order=2)
    check_grads(_qr_loss(fnp), (a[:3],), order=1)


def test_complex_svd_lowerings(monkeypatch):
    """CPU jit calls gesdd; without a native kernel the (real-only) Jacobi composite cannot
    take a complex matrix: a host callback into NumPy's svd (GPU), or an error for a
    backend-neutral lowering."""
    import funcarray.primitives.orthogonal_decompositions as spectral

    a = _randn(2, 4, 3, dtype=np.complex64)
    assert "gesdd" in fa.jit(fnp.linalg.svd).lower(a).as_text()
    with pytest.raises(NotImplementedError, match="svd"):
        run_portable(fnp.linalg.svdvals, a)
    # empty matrices: NumPy's (gesdd rejects them)
    for got, want in zip(fa.jit(fnp.linalg.svd)(np.zeros((0, 3), np.complex64)),
                         np.linalg.svd(np.zeros((0, 3), np.complex64))):
        _close(got, want, 0)
    monkeypatch.setattr(spectral.runtime, "native_linalg", lambda *args, **kw: None)
    fa.clear_caches()
    try:
        jitted = fa.jit(lambda x: fnp.linalg.svd(x, full_matrices=False))
        assert "callback" in jitted.lower(a).as_text()
        u, s, vh = jitted(a)
        _close(s, np.linalg.svd(a, compute_uv=False), 1e-5)
        _close((np.asarray(u) * np.asarray(s)[..., None, :]) @ np.asarray(vh), a, 1e-5)
    finally:
        fa.clear_caches()


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("call,exc,match", [
    (lambda: fsl.schur(np.ones((2, 3))), ValueError, r"schur: a must be a square.*\(2, 3\)"),
    (lambda: fsl.schur(np.eye(2, dtype=np.int32)), TypeError, "schur: .*int32.*output='complex'"),
    (lambda: fsl.schur(np.eye(2), output="x"), ValueError, "output must be 'real' or 'complex'"),
    (lambda: fsl.schur(np.ones(3)), ValueError, r"schur: .*\(3,\)"),
    (lambda: fll.schur(np.eye(2), sort_eig_vals=True), NotImplementedError, "sort_eig_vals"),
    (lambda: schur_p.bind(fnp.ones((2, 3)), compute_schur_vectors=True), TypeError,
     "schur: expected square"),
    (lambda: fsl.rsf2csf(np.eye(2), np.eye(3)), ValueError, "rsf2csf: T and Z"),
    (lambda: fsl.sqrtm(np.eye(2), blocksize=2), NotImplementedError, "blocksize"),
    (lambda: fsl.sqrtm(np.ones((2, 3))), ValueError, "sqrtm: A must be a square"),
    (lambda: fsl.funm(np.eye(2, dtype=np.int32), fnp.exp), TypeError, "funm: .*int32"),
    (lambda: fsl.qr(np.ones(3), pivoting=True), ValueError, "qr: a must be a matrix"),
    (lambda: fll.qr(fnp.ones((2, 2), fnp.int32), pivoting=True), TypeError, "qr_pivoted:.*int32"),
    (lambda: fsl.qr_multiply(np.eye(2), np.eye(2), mode="x"), ValueError, "'right' or 'left'"),
    (lambda: fsl.qr_multiply(np.ones((3, 2)), np.ones((3, 3)), mode="left"), ValueError,
     "c must have 2 rows"),
    (lambda: fsl.qr_multiply(np.ones((3, 2)), np.ones((2, 2))), ValueError,
     "c must have 3 columns"),
    (lambda: fsl.eigh_tridiagonal(np.ones(3, np.int32), np.ones(2, np.int32)), TypeError,
     "eigh_tridiagonal: d and e must be float32"),
    (lambda: fsl.eigh_tridiagonal(np.ones(3, np.float32), np.ones(2)), TypeError,
     "same dtype"),
    (lambda: fsl.eigh_tridiagonal(np.ones(3), np.ones(3)), ValueError, r"\(n - 1,\)"),
    (lambda: fsl.eigh_tridiagonal(np.ones(3), np.ones(2), select="v"), NotImplementedError,
     "select='v'"),
    (lambda: fsl.eigh_tridiagonal(np.ones(3), np.ones(2), select="i"), ValueError,
     "select_range"),
    (lambda: fsl.eigh_tridiagonal(np.ones(3), np.ones(2), select="i", select_range=(2, 1)),
     ValueError, "empty range"),
])
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
