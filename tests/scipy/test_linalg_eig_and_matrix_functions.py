"""numpy.linalg's cross, tensorinv, tensorsolve, eig, eigvals and scipy.linalg's special
matrices, expm, expm_frechet, polar and SciPy-style eigh/qr/svd: values against jax where its
compile cost allows, otherwise against NumPy/SciPy (whose semantics jax follows), eager and
fa.jit, float32/float64 and complex; gradients against jax.grad, SciPy's Frechet derivative or
finite differences; vmap against a Python loop; the eig primitive's three lowerings (native
geev, host callback, none for a backend-neutral lowering); and the errors for bad input."""

import jax.scipy.linalg as jsl
import numpy as np
import pytest
import scipy.linalg as sl
from helpers import run_portable
from hypothesis import given, settings
from hypothesis import strategies as st

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.scipy import linalg as fsl
from funcarray.testing import check_grads

RNG = np.random.default_rng(0)


def _close(got, want, rtol=1e-6, atol=1e-6, dtype=True):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    if dtype:
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def _randn(*shape, dtype=np.float64):
    x = RNG.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * RNG.standard_normal(shape)
    return x.astype(dtype)


# --------------------------------------------------------------------------------------------
# numpy.linalg: cross, tensorinv, tensorsolve
# --------------------------------------------------------------------------------------------

def test_cross_values_jit_grad_vmap():
    # jnp.linalg.cross is np.cross restricted to 3-vectors
    a, b = _randn(2, 3, 4), _randn(3, 1)
    _close(fnp.linalg.cross(a, b, axis=-2), np.cross(a, b, axis=-2))
    _close(fnp.linalg.cross(a, a[:1], axis=1), np.cross(a, a[:1], axis=1))
    a, b = _randn(5, 3), _randn(5, 3)
    _close(fa.jit(fnp.linalg.cross)(a, b), np.cross(a, b))
    _close(fa.vmap(fnp.linalg.cross)(a, b),
           np.stack([np.asarray(fnp.linalg.cross(x, y)) for x, y in zip(a, b)]))
    # d<g, a x b> = <b x g, da> + <g x a, db>, with g = cos(a x b) for sum(sin(a x b))
    g = np.cos(np.cross(a, b))
    grads = fa.grad(lambda x, y: fnp.sum(fnp.sin(fnp.linalg.cross(x, y))), argnums=(0, 1))(a, b)
    _close(grads[0], np.cross(b, g), rtol=1e-12)
    _close(grads[1], np.cross(g, a), rtol=1e-12)
    x32 = a.astype(np.float32)
    assert fnp.linalg.cross(x32, x32).dtype == np.float32


def test_cross_errors():
    with pytest.raises(ValueError, match="3-vectors.*2-vectors"):
        fnp.linalg.cross(np.ones(2), np.ones(2))
    with pytest.raises(ValueError, match="3-vectors"):
        fnp.linalg.cross(np.ones(3), np.ones(3).reshape(3, 1), axis=-1)
    with pytest.raises(ValueError, match="3-vectors"):
        fnp.linalg.cross(1.0, np.ones(3))


def test_tensorinv_tensorsolve():
    a = _randn(4, 6, 8, 3)
    _close(fnp.linalg.tensorinv(a, ind=2), np.linalg.tensorinv(a, ind=2), rtol=1e-9)
    _close(fa.jit(fnp.linalg.tensorinv, static_argnums=1)(a, 2), np.linalg.tensorinv(a, 2),
           rtol=1e-9)
    a, b = _randn(2, 3, 6), _randn(6)
    _close(fnp.linalg.tensorsolve(a, b, axes=(0, 1)), np.linalg.tensorsolve(a, b, axes=(0, 1)),
           rtol=1e-9)
    a, b = _randn(2, 3, 2, 3), _randn(2, 3)
    _close(fnp.linalg.tensorsolve(a, b), np.linalg.tensorsolve(a, b), rtol=1e-9)
    _close(fa.jit(fnp.linalg.tensorsolve)(a, b), np.linalg.tensorsolve(a, b), rtol=1e-9)
    assert fnp.linalg.tensorsolve(a.astype(np.float32), b).dtype == np.float64
    check_grads(fnp.linalg.tensorsolve, (a, b), order=1)
    batch_a, batch_b = _randn(3, 2, 3, 2, 3), _randn(3, 2, 3)
    _close(fa.vmap(fnp.linalg.tensorsolve)(batch_a, batch_b),
           np.stack([np.asarray(fnp.linalg.tensorsolve(x, y))
                     for x, y in zip(batch_a, batch_b)]), rtol=1e-12)


def test_tensor_solve_errors():
    with pytest.raises(ValueError, match="as many elements"):
        fnp.linalg.tensorinv(np.ones((2, 3, 4)), ind=1)
    with pytest.raises(ValueError, match="positive"):
        fnp.linalg.tensorinv(np.ones((2, 2)), ind=0)
    with pytest.raises(ValueError, match="b's shape"):
        fnp.linalg.tensorsolve(np.ones((2, 3, 6)), np.ones(5))
    with pytest.raises(ValueError, match="square system"):
        fnp.linalg.tensorsolve(np.ones((6, 2, 2)), np.ones(6))


# --------------------------------------------------------------------------------------------
# scipy.linalg special matrices
# --------------------------------------------------------------------------------------------

_CONSTRUCTORS = [  # (name, arguments, keyword arguments), unbatched: SciPy's semantics
    ("toeplitz", lambda: (_randn(4),), {}),
    ("toeplitz", lambda: (_randn(3), _randn(5)), {}),
    ("toeplitz", lambda: (_randn(3, dtype=np.complex64),), {}),
    ("hankel", lambda: (_randn(3),), {}),
    ("hankel", lambda: (_randn(3), _randn(4)), {}),
    ("circulant", lambda: (_randn(4, dtype=np.float32),), {}),
    ("companion", lambda: (_randn(5),), {}),
    ("fiedler", lambda: (np.array([1, 4, 12], dtype=np.int32),), {}),
    ("fiedler_companion", lambda: (_randn(2),), {}),
    ("fiedler_companion", lambda: (_randn(7),), {}),
    ("leslie", lambda: (_randn(4), _randn(3)), {}),
    ("convolution_matrix", lambda: (_randn(4), 3), {"mode": "full"}),
    ("convolution_matrix", lambda: (_randn(4), 6), {"mode": "same"}),
    ("convolution_matrix", lambda: (_randn(5), 2), {"mode": "valid"}),
    ("block_diag", lambda: (_randn(2, 3), _randn(2), np.float64(5.0)), {}),
]


def test_constructors_match_scipy():
    for name, make_args, kwargs in _CONSTRUCTORS:
        args = make_args()
        _close(getattr(fsl, name)(*args, **kwargs), getattr(sl, name)(*args, **kwargs),
               rtol=1e-6, atol=1e-7)


def test_batched_constructors():
    # jax's semantics beyond SciPy's: leading axes of the arguments broadcast as batch axes
    c, r = _randn(2, 3), _randn(1, 4)
    for name, args in [("toeplitz", (c, r)), ("hankel", (c, r)), ("circulant", (c,)),
                       ("companion", (c,)), ("fiedler", (c,)), ("fiedler_companion", (c,)),
                       ("leslie", (c, c[:, 1:]))]:
        members = [[x[k if len(x) > 1 else 0] for x in args] for k in range(2)]
        _close(getattr(fsl, name)(*args), np.stack([getattr(sl, name)(*m) for m in members]),
               rtol=1e-12)
    assert fsl.companion(np.array([1, 2, 3], np.int32)).dtype == np.float32  # promoted


def test_sized_constructors():
    cases = [("hilbert", (5,), {}), ("invhilbert", (6,), {}), ("pascal", (6,), {}),
             ("pascal", (4,), {"kind": "upper"}), ("invpascal", (6,), {}),
             ("invpascal", (4,), {"kind": "lower"}), ("helmert", (5,), {}),
             ("helmert", (3,), {"full": True}), ("hadamard", (8,), {}),
             ("dft", (5,), {}), ("dft", (4,), {"scale": "sqrtn"})]
    for name, args, kwargs in cases:
        got = getattr(fsl, name)(*args, **kwargs)
        want = getattr(sl, name)(*args, **kwargs)
        # jax's dtypes (x64 off): int32 for hadamard, complex64 for dft, else float32
        assert got.dtype == {"hadamard": np.int32, "dft": np.complex64}.get(name, np.float32)
        _close(got, want, rtol=1e-6, atol=1e-6, dtype=False)
    assert fsl.dft(4, scale="n", dtype=np.complex128).dtype == np.complex128
    assert fsl.hadamard(2, dtype=np.float32).dtype == np.float32
    assert fsl.block_diag().shape == (1, 0)


def test_constructors_jit_grad_vmap():
    c, r = _randn(3), _randn(4)
    _close(fa.jit(fsl.toeplitz)(c, r), sl.toeplitz(c, r))
    _close(fa.jit(lambda a: fsl.convolution_matrix(a, 3, "same"))(c),
           sl.convolution_matrix(c, 3, "same"))
    check_grads(lambda c, r: fnp.sin(fsl.toeplitz(c, r)) * fsl.hankel(c, r)[:, :4], (c, r),
                order=1)
    check_grads(lambda a: fsl.fiedler_companion(a) ** 2, (_randn(5) + 3.0,), order=1)
    check_grads(fsl.leslie, (_randn(3), _randn(2)), order=1)
    batch = _randn(3, 5)
    _close(fa.vmap(fsl.companion)(batch), np.stack([sl.companion(x) for x in batch]),
           rtol=1e-12)
    _close(fa.vmap(fsl.circulant)(batch), np.stack([sl.circulant(x) for x in batch]))


def test_constructor_errors():
    cases = [
        (lambda: fsl.companion([1.0]), "at least 2"),
        (lambda: fsl.leslie([1.0, 2.0], [1.0, 2.0]), "one entry fewer"),
        (lambda: fsl.convolution_matrix([1.0], 0), "positive"),
        (lambda: fsl.convolution_matrix([1.0], 2, mode="x"), "mode"),
        (lambda: fsl.block_diag(np.ones((1, 1, 1))), "at most 2"),
        (lambda: fsl.hadamard(6), "power of 2"),
        (lambda: fsl.helmert(0), "positive"),
        (lambda: fsl.pascal(3, kind="x"), "kind"),
        (lambda: fsl.dft(3, scale="x"), "scale"),
        (lambda: fsl.dft(3, dtype=np.float32), "complex"),
        (lambda: fsl.hankel(1.0), "1-dimensional"),
        (lambda: fsl.toeplitz(np.ones((2, 3)), np.ones((3, 3))), "broadcast"),
    ]
    for call, message in cases:
        with pytest.raises(ValueError, match=message):
            call()
    with pytest.raises(TypeError, match="static int"):
        fsl.hilbert(2.5)


# --------------------------------------------------------------------------------------------
# expm, expm_frechet
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_expm_values(dtype):
    single = dtype in (np.float32, np.complex64)
    tol = 2e-5 if single else 1e-12
    # the norms reach every Pade degree and a few squarings (without float32 overflow)
    for scale in (0.005, 0.1, 0.5, 1.5, 3.0, 12.0):
        a = (_randn(4, 4, dtype=dtype) * scale).astype(dtype)
        want = sl.expm(a.astype(np.complex128 if np.iscomplexobj(a) else np.float64))
        _close(fsl.expm(a), want.astype(dtype), rtol=tol, atol=tol * np.abs(want).max())
    if dtype == np.float32:  # jit: the lax.switch / scan-of-cond path
        a = (_randn(2, 4, 4, dtype=dtype) * 2.0).astype(dtype)
        _close(fa.jit(fsl.expm)(a), fsl.expm(a), rtol=tol, atol=tol)


def test_expm_matches_jax():
    a = _randn(4, 4) * 2.0
    _close(fsl.expm(a), jsl.expm(a), rtol=1e-13)


def test_expm_options_batch_vmap():
    a = _randn(3, 4, 4)
    _close(fsl.expm(a), np.stack([sl.expm(x) for x in a]), rtol=1e-12)
    _close(fa.vmap(fsl.expm)(a), np.stack([np.asarray(fsl.expm(x)) for x in a]), rtol=1e-12)
    upper = np.triu(a[0])
    _close(fsl.expm(upper, upper_triangular=True), sl.expm(upper), rtol=1e-12)
    big = a[0] * 40  # needs more than 2 squarings: NaN, as in jax
    assert np.isnan(np.asarray(fsl.expm(big, max_squarings=2))).all()
    assert not np.isnan(np.asarray(fsl.expm(big))).any()
    assert np.isnan(np.asarray(fsl.expm(np.full((2, 2), np.inf)))).all()
    assert fsl.expm(np.eye(2, dtype=np.int32)).dtype == np.float32


def test_expm_grad_and_frechet():
    for scale in (0.2, 4.0):
        x = _randn(3, 3) * scale
        # the gradient of sum(sin(expm(x))) is the adjoint Frechet derivative L(x^T, cos(e))
        want = sl.expm_frechet(x.T, np.cos(sl.expm(x)), compute_expm=False)
        _close(fa.grad(lambda x: fnp.sum(fnp.sin(fsl.expm(x))))(x), want, rtol=1e-8,
               atol=1e-10)
    check_grads(lambda x: fsl.expm(x) @ x, (_randn(3, 3),), order=2)
    a, e = _randn(3, 3), _randn(3, 3)
    for got, want in zip(fsl.expm_frechet(a, e), sl.expm_frechet(a, e)):
        _close(got, want, rtol=1e-10, atol=1e-12)
    _close(fsl.expm_frechet(a, e, compute_expm=False), sl.expm_frechet(a, e, compute_expm=False),
           rtol=1e-10, atol=1e-12)


def test_expm_errors():
    with pytest.raises(ValueError, match="square matrix"):
        fsl.expm(np.ones((2, 3)))
    with pytest.raises(ValueError, match="square matrix"):
        fsl.expm(np.ones(3))
    with pytest.raises(TypeError, match="float32"):
        fsl.expm(np.ones((2, 2), np.float16))
    with pytest.raises(ValueError, match="same shape"):
        fsl.expm_frechet(np.ones((2, 2)), np.ones((3, 3)))


# --------------------------------------------------------------------------------------------
# polar, SciPy-style eigh/qr/svd
# --------------------------------------------------------------------------------------------

@settings(max_examples=12)
@given(shape=st.sampled_from([(3, 3), (4, 2), (2, 4), (2, 3, 2)]),
       side=st.sampled_from(["right", "left"]), dtype=st.sampled_from([np.float32, np.float64]),
       method=st.sampled_from(["qdwh", "svd"]))
def test_polar_values(shape, side, dtype, method):
    a = _randn(*shape, dtype=dtype)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    u, p = fsl.polar(a, side, method=method)
    assert u.dtype == p.dtype == dtype
    flat_u, flat_p = np.asarray(u).reshape(-1, *u.shape[-2:]), np.asarray(p).reshape(
        -1, *p.shape[-2:])
    for k, matrix in enumerate(a.reshape(-1, *shape[-2:])):
        want_u, want_p = sl.polar(matrix.astype(np.float64), side)
        _close(flat_u[k], want_u, rtol=tol, atol=tol, dtype=False)
        _close(flat_p[k], want_p, rtol=tol, atol=tol, dtype=False)


def test_polar_jit_grad_and_errors():
    a = _randn(4, 3)
    for x, y in zip(fa.jit(fsl.polar, static_argnums=1)(a, "left"), sl.polar(a, "left")):
        _close(x, y, rtol=1e-10, atol=1e-12)
    loss = lambda m, s: (lambda x: s.sum(s.sin(m.polar(x, method="svd")[0]))  # noqa: E731
                         + s.sum(m.polar(x, "left", method="svd")[1] ** 2))
    check_grads(loss(fsl, fnp), (a,), order=1)
    check_grads(lambda x: fsl.polar(x)[0], (_randn(3, 3),), order=1, modes=("rev",))
    with pytest.raises(ValueError, match="side"):
        fsl.polar(a, side="up")
    with pytest.raises(ValueError, match="method"):
        fsl.polar(a, method="newton")
    with pytest.raises(ValueError, match="2-d"):
        fsl.polar(np.ones(3))
    c = _randn(3, 2, dtype=np.complex128)
    for side in ("right", "left"):
        for x, y in zip(fsl.polar(c, side), sl.polar(c, side)):
            _close(x, y, rtol=1e-10, atol=1e-12)


def test_solve_sylvester():
    for dtype, tol in ((np.float32, 1e-4), (np.complex128, 1e-10)):
        a, b, c = _randn(3, 3, dtype=dtype), _randn(2, 2, dtype=dtype), _randn(3, 2, dtype=dtype)
        x = fsl.solve_sylvester(a, b, c)
        assert x.dtype == dtype
        _close(x, sl.solve_sylvester(a, b, c).astype(dtype), rtol=tol, atol=tol)
    a, b, c = _randn(2, 3, 3), _randn(2, 2), _randn(2, 3, 2)  # batch axes broadcast
    x = fsl.solve_sylvester(a, b, c)
    _close(x, np.stack([sl.solve_sylvester(a[k], b, c[k]) for k in range(2)]), rtol=1e-10)
    _close(fa.jit(fsl.solve_sylvester)(a[0], b, c[0]), x[0], rtol=1e-10)
    _close(fa.vmap(fsl.solve_sylvester, in_axes=(0, None, 0))(a, b, c), x, rtol=1e-12)
    check_grads(fsl.solve_sylvester, (a[0], b, c[0]), order=1)
    # eigenvalues 1 of A and -1 of B cancel: no unique solution, NaN (as jax)
    assert np.isnan(np.asarray(fsl.solve_sylvester(np.eye(2), -np.eye(2), np.ones((2, 2))))).all()
    with pytest.raises(ValueError, match="incompatible shapes"):
        fsl.solve_sylvester(np.eye(2), np.eye(3), np.ones((2, 2)))
    with pytest.raises(ValueError, match="method"):
        fsl.solve_sylvester(np.eye(2), np.eye(2), np.ones((2, 2)), method="x")


def test_scipy_eigh_qr_svd():
    a = _randn(4, 4)
    a = a + a.T
    w, v = fsl.eigh(a)
    _close(w, sl.eigh(a)[0], rtol=1e-12)
    _close(np.asarray(v) * np.asarray(w) @ np.asarray(v).T, a, rtol=1e-10, atol=1e-12)
    _close(fsl.eigh(a, lower=False, eigvals_only=True), sl.eigh(a, lower=False,
                                                                eigvals_only=True), rtol=1e-12)
    b = _randn(5, 3)
    for mode in ("full", "economic", "r"):
        got, want = fsl.qr(b, mode=mode), sl.qr(b, mode=mode)
        assert type(got) is tuple and len(got) == len(want)
        for x, y in zip(got, want):
            _close(x, y, rtol=1e-10, atol=1e-12)
    for full in (True, False):
        u, s, vh = fsl.svd(b, full_matrices=full)
        wu, ws, wvh = sl.svd(b, full_matrices=full)
        assert (u.shape, vh.shape) == (wu.shape, wvh.shape)
        _close(s, ws, rtol=1e-12)
        _close((np.asarray(u)[:, :3] * np.asarray(s)) @ np.asarray(vh)[:3], b, rtol=1e-12)
    _close(fsl.svd(b, compute_uv=False), sl.svd(b, compute_uv=False), rtol=1e-12)
    with pytest.raises(NotImplementedError, match="b=None"):
        fsl.eigh(a, a)
    # (pivoting=True is tested in test_linalg_schur.py)
    with pytest.raises(ValueError, match="mode"):
        fsl.qr(b, mode="reduced")


@pytest.mark.parametrize("dtype", [np.float32, np.complex128])
def test_hessenberg(dtype):
    tol = 1e-5 if dtype == np.float32 else 1e-12
    a = _randn(2, 5, 5, dtype=dtype)
    h, q = fsl.hessenberg(a, calc_q=True)
    assert h.dtype == q.dtype == dtype
    for k in range(2):  # SciPy's gehrd factors: the same as jax's, signs included
        want_h, want_q = sl.hessenberg(a[k].astype(np.complex128 if dtype == np.complex128
                                                   else np.float64), calc_q=True)
        _close(h[k], want_h, rtol=tol, atol=tol, dtype=False)
        _close(q[k], want_q, rtol=tol, atol=tol, dtype=False)
    if dtype == np.float32:  # (one compile of the fori_loop is enough)
        _close(fa.jit(fsl.hessenberg)(a), h, rtol=tol, atol=tol)
    _close(fa.vmap(fsl.hessenberg)(a), np.stack([np.asarray(fsl.hessenberg(x)) for x in a]))
    assert fsl.hessenberg(np.zeros((0, 0)), calc_q=True)[1].shape == (0, 0)


def test_hessenberg_grad_and_errors():
    check_grads(lambda x: fsl.hessenberg(x, calc_q=True), (_randn(4, 4),), order=1)
    with pytest.raises(ValueError, match="square"):
        fsl.hessenberg(np.ones((2, 3)))
    with pytest.raises(TypeError, match="float32"):
        fsl.hessenberg(np.ones((2, 2), np.float16))


# --------------------------------------------------------------------------------------------
# eig, eigvals
# --------------------------------------------------------------------------------------------

def _sorted(w):
    w = np.asarray(w)
    return np.sort_complex(np.round(w, 5)) if w.ndim == 1 else np.stack([_sorted(x) for x in w])


def _check_eig(w, v, a, tol):
    a, w, v = np.asarray(a), np.asarray(w), np.asarray(v)
    np.testing.assert_allclose(a @ v, v * w[..., None, :], atol=tol * 10 * max(1, abs(a).max()))
    np.testing.assert_allclose(np.linalg.norm(v, axis=-2), 1, rtol=tol * 10)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_eig_values(dtype):
    tol = 1e-4 if dtype in (np.float32, np.complex64) else 1e-10
    a = _randn(2, 4, 4, dtype=dtype)
    w, v = fnp.linalg.eig(a)
    wj = np.linalg.eigvals(a)  # NumPy's geev (what jax calls on CPU), complex as in jax
    assert w.dtype == v.dtype == np.result_type(dtype, np.complex64)
    np.testing.assert_allclose(_sorted(w), _sorted(wj), atol=tol * 10)
    _check_eig(w, v, a, tol)
    wjit, vjit = fa.jit(fnp.linalg.eig)(a)  # the native (LAPACK geev) lowering on CPU
    _check_eig(wjit, vjit, a, tol)
    np.testing.assert_allclose(_sorted(fa.jit(fnp.linalg.eigvals)(a)), _sorted(wj),
                               atol=tol * 10)


@pytest.mark.parametrize("path", ["native geev", "host callback"])
def test_eig_lowerings(monkeypatch, path):
    """CPU jit calls jaxlib's geev handler (runtime.native_linalg); a platform without it
    (forced here) falls back to a host callback running NumPy's eig."""
    import funcarray.primitives.eig as eig_module

    if path == "host callback":
        monkeypatch.setattr(eig_module, "_native_geev", lambda *args: None)
    fa.clear_caches()
    try:
        for dtype in (np.float32, np.complex128):
            tol = 1e-4 if dtype == np.float32 else 1e-10
            a = _randn(3, 5, 5, dtype=dtype)
            jitted = fa.jit(fnp.linalg.eig)
            text = jitted.lower(a).as_text()
            assert ("geev" in text) == (path == "native geev")
            w, v = jitted(a)
            _check_eig(w, v, a, tol)
            np.testing.assert_allclose(_sorted(w), _sorted(np.linalg.eigvals(a)), atol=tol * 10)
            w = fa.jit(fnp.linalg.eigvals)(np.array([[np.nan, 1.0], [0.0, 1.0]], dtype))
            assert np.isnan(np.asarray(w)).all()
    finally:
        fa.clear_caches()


def test_eig_portable_lowering_is_refused():
    with pytest.raises(NotImplementedError, match="eig"):
        run_portable(fnp.linalg.eigvals, np.eye(2))


def test_eigvals_grad_vmap_and_errors():
    # eigenvalues 1 +- 2j and two real ones, perturbed (distinct: differentiable)
    a = np.array([[1.0, 2.0, 0.0, 0.0], [-2.0, 1.0, 0.0, 0.0], [0.0, 0.0, 3.0, 1.0],
                  [0.0, 0.0, 0.5, -1.0]]) + 0.1 * np.random.default_rng(1).standard_normal((4, 4))
    loss = lambda s: (lambda x: s.sum(s.real(s.linalg.eigvals(x)) ** 2)  # noqa: E731
                      + s.sum(s.abs(s.linalg.eigvals(x))))
    assert np.isreal(np.linalg.eigvals(a)).sum() == 2  # a complex pair too
    check_grads(loss(fnp), (a,), order=1)
    _close(fa.jit(fa.grad(loss(fnp)))(a), fa.grad(loss(fnp))(a), rtol=1e-8, atol=1e-10)
    batch = _randn(3, 3, 3)
    _close(fa.vmap(fnp.linalg.eigvals)(batch),
           np.stack([np.asarray(fnp.linalg.eigvals(x)) for x in batch]))
    nan = fnp.linalg.eigvals(np.array([[np.nan, 1.0], [0.0, 1.0]]))
    assert np.isnan(np.asarray(nan)).all()
    assert fnp.linalg.eigvals(np.eye(2, dtype=np.int32)).dtype == np.complex64
    with pytest.raises(NotImplementedError, match="eigenvectors"):
        fa.grad(lambda x: fnp.sum(fnp.real(fnp.linalg.eig(x)[1])))(a)
    with pytest.raises(ValueError, match="square"):
        fnp.linalg.eig(np.ones((2, 3)))
    with pytest.raises(TypeError, match="float32"):
        fnp.linalg.eigvals(np.ones((2, 2), np.float16))
