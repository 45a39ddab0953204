"""lax.conv_general_dilated and its wrappers against jax.lax: values eagerly and under jit,
gradients (both operands), vmap of either or both operands, finite differences, for
Hypothesis-drawn layouts, strides, dilations, paddings and feature/batch groups."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import lax
from funcarray.lowering.runtime import CompileError
from funcarray.testing import assert_allclose, check_grads


@st.composite
def conv_cases(draw):
    n_spatial = draw(st.integers(1, 2), label="spatial axes")
    group_kind = draw(st.sampled_from(["none", "feature", "batch"]), label="groups")
    groups = draw(st.integers(2, 3)) if group_kind != "none" else 1
    batch = draw(st.integers(1, 2)) * (groups if group_kind == "batch" else 1)
    in_per_group = draw(st.integers(1, 2))
    channels = in_per_group * (groups if group_kind == "feature" else 1)
    out_features = draw(st.integers(1, 2)) * groups
    kernel = [draw(st.integers(1, 3)) for _ in range(n_spatial)]
    strides = [draw(st.integers(1, 2)) for _ in range(n_spatial)]
    lhs_dil = [draw(st.integers(1, 2)) for _ in range(n_spatial)]
    rhs_dil = [draw(st.integers(1, 2)) for _ in range(n_spatial)]
    spatial, padding = [], []
    for k, rd, ld in zip(kernel, rhs_dil, lhs_dil):
        window = (k - 1) * rd + 1
        size = draw(st.integers(1, 5))
        lo, hi = draw(st.integers(-1, 2)), draw(st.integers(-1, 2))
        dilated = (size - 1) * ld + 1
        if dilated + lo + hi < window:  # keep at least one output position
            hi = window - dilated - lo
        spatial.append(size)
        padding.append((lo, hi))
    lhs_shape = (batch, channels, *spatial)
    rhs_shape = (out_features, in_per_group, *kernel)
    perms = [tuple(draw(st.permutations(range(n_spatial + 2)))) for _ in range(3)]
    seed = draw(st.integers(0, 2**16))
    return dict(lhs_shape=lhs_shape, rhs_shape=rhs_shape, perms=perms, seed=seed, params=dict(
        window_strides=tuple(strides), padding=tuple(padding), lhs_dilation=tuple(lhs_dil),
        rhs_dilation=tuple(rhs_dil),
        feature_group_count=groups if group_kind == "feature" else 1,
        batch_group_count=groups if group_kind == "batch" else 1))


def _operands(case):
    """The lhs and rhs laid out by the drawn permutations (their specs)."""
    rng = np.random.default_rng(case["seed"])
    lhs_perm, rhs_perm, out_perm = case["perms"]
    lhs_c, rhs_c = rng.normal(size=case["lhs_shape"]), rng.normal(size=case["rhs_shape"])
    # canonical axis k sits at position spec[k]
    lhs = np.transpose(lhs_c, np.argsort(lhs_perm))
    rhs = np.transpose(rhs_c, np.argsort(rhs_perm))
    numbers = lax.ConvDimensionNumbers(lhs_perm, rhs_perm, out_perm)
    return lhs, rhs, dict(case["params"], dimension_numbers=numbers)


def _jax_numbers(params):
    lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
    return dict(params, dimension_numbers=jax.lax.ConvDimensionNumbers(lhs_spec, rhs_spec,
                                                                       out_spec))


@settings(max_examples=20, deadline=None)
@given(conv_cases())
def test_conv_matches_jax(case):
    lhs, rhs, params = _operands(case)
    want = jax.lax.conv_general_dilated(lhs, rhs, **_jax_numbers(params))
    f = lambda a, b: lax.conv_general_dilated(a, b, **params)  # noqa: E731
    assert_allclose(f(fnp.asarray(lhs), fnp.asarray(rhs)), want)
    assert_allclose(fa.jit(f)(fnp.asarray(lhs), fnp.asarray(rhs)), want)


@settings(max_examples=10, deadline=None)
@given(conv_cases())
def test_eager_kernel_with_einsum_path_search_matches_jax(case):
    """The eager kernel contracts small convolutions directly and searches einsum's
    contraction order (BLAS) above a size: the drawn cases are small, so here the search is
    forced."""
    from funcarray.primitives import convolution

    lhs, rhs, params = _operands(case)
    want = jax.lax.conv_general_dilated(lhs, rhs, **_jax_numbers(params))
    threshold = convolution._EINSUM_SEARCH_MIN
    convolution._EINSUM_SEARCH_MIN = -1
    try:
        got = lax.conv_general_dilated(fnp.asarray(lhs), fnp.asarray(rhs), **params)
    finally:
        convolution._EINSUM_SEARCH_MIN = threshold
    assert_allclose(got, want)


@settings(max_examples=5, deadline=None)
@given(conv_cases())
def test_conv_gradients_and_vmap_match_jax(case):
    lhs, rhs, params = _operands(case)
    jparams = _jax_numbers(params)
    ours = lambda a, b: fnp.sum(fnp.sin(lax.conv_general_dilated(a, b, **params)))  # noqa
    theirs = lambda a, b: jnp.sum(jnp.sin(jax.lax.conv_general_dilated(a, b, **jparams)))  # noqa
    want = jax.grad(theirs, argnums=(0, 1))(lhs, rhs)
    fa.tree.map(assert_allclose, fa.grad(ours, argnums=(0, 1))(fnp.asarray(lhs),
                                                               fnp.asarray(rhs)), want)
    conv_f = lambda a, b: lax.conv_general_dilated(a, b, **params)  # noqa: E731
    conv_j = lambda a, b: jax.lax.conv_general_dilated(a, b, **jparams)  # noqa: E731
    for axes in [(0, None), (None, 0), (lhs.ndim, 1)]:
        a = np.stack([lhs, -0.5 * lhs], axis=axes[0]) if axes[0] is not None else lhs
        b = np.stack([rhs, 2.0 * rhs], axis=axes[1]) if axes[1] is not None else rhs
        assert_allclose(fa.vmap(conv_f, in_axes=axes)(fnp.asarray(a), fnp.asarray(b)),
                        jax.vmap(conv_j, in_axes=axes)(a, b))


def test_conv_derivatives_against_finite_differences():
    rng = np.random.default_rng(1)
    lhs, rhs = rng.normal(size=(2, 4, 5)), rng.normal(size=(4, 2, 2))
    f = lambda a, b: fnp.tanh(lax.conv_general_dilated(  # noqa: E731
        a, b, (2,), [(1, 0)], (1,), (2,), feature_group_count=2))
    check_grads(f, (fnp.asarray(lhs), fnp.asarray(rhs)), order=2)
    per_example = fa.jit(fa.vmap(fa.grad(lambda a, b: f(a[None], b).sum(), argnums=1),
                                 in_axes=(0, None)))(fnp.asarray(lhs), fnp.asarray(rhs))
    loop = [fa.grad(lambda b: f(fnp.asarray(lhs[i:i + 1]), b).sum())(fnp.asarray(rhs))
            for i in range(2)]
    assert_allclose(per_example, np.stack([np.asarray(g) for g in loop]))


def test_a_small_cnn_trains_like_jax():
    """Conv (NHWC/HWIO, SAME, stride 2) -> relu -> conv -> mean, its jitted gradient."""
    rng = np.random.default_rng(2)
    images = rng.normal(size=(3, 8, 8, 2)).astype(np.float32)
    w1 = (rng.normal(size=(3, 3, 2, 4)) / 4).astype(np.float32)
    w2 = (rng.normal(size=(3, 3, 4, 1)) / 6).astype(np.float32)

    def loss(L, xp, relu):
        def f(params, x):
            dn = ("NHWC", "HWIO", "NHWC")
            h = relu(L.conv_general_dilated(x, params[0], (2, 2), "SAME",
                                            dimension_numbers=dn))
            return xp.mean(L.conv_general_dilated(h, params[1], (1, 1), "VALID",
                                                  dimension_numbers=dn) ** 2)
        return f

    with jax.enable_x64(False):
        want = jax.jit(jax.grad(loss(jax.lax, jnp, jax.nn.relu)))((w1, w2), images)
    got = fa.jit(fa.grad(loss(lax, fnp, fa.nn.relu)))((fnp.asarray(w1), fnp.asarray(w2)),
                                                       fnp.asarray(images))
    fa.tree.map(lambda a, b: assert_allclose(a, b, rtol=1e-4, atol=1e-6), got, want)


def test_conv_wrappers_match_jax():
    rng = np.random.default_rng(3)
    x, w = rng.normal(size=(1, 2, 6, 5)), rng.normal(size=(3, 2, 3, 2))
    assert_allclose(lax.conv(fnp.asarray(x), fnp.asarray(w), (1, 2), "SAME"),
                    jax.lax.conv(x, w, (1, 2), "SAME"))
    assert_allclose(
        lax.conv_with_general_padding(fnp.asarray(x), fnp.asarray(w), (2, 1), [(1, 2), (0, 1)],
                                      (2, 1), (1, 2)),
        jax.lax.conv_with_general_padding(x, w, (2, 1), [(1, 2), (0, 1)], (2, 1), (1, 2)))
    for padding in ["SAME", "VALID", "SAME_LOWER"]:
        assert_allclose(lax.conv_general_dilated(fnp.asarray(x), fnp.asarray(w), (2, 2), padding),
                        jax.lax.conv_general_dilated(x, w, (2, 2), padding))
    xh, wh = rng.normal(size=(2, 4, 3, 2)), rng.normal(size=(3, 3, 2, 5))
    for padding in ["SAME", "VALID", [(1, 1), (2, 0)]]:
        for transpose_kernel in [False, True]:
            kernel = wh if not transpose_kernel else np.swapaxes(wh, 2, 3).copy()
            kernel = kernel if not transpose_kernel else kernel[..., :2, :]
            assert_allclose(
                lax.conv_transpose(fnp.asarray(xh), fnp.asarray(kernel if transpose_kernel
                                                                else wh), (2, 1), padding,
                                   transpose_kernel=transpose_kernel),
                jax.lax.conv_transpose(xh, kernel if transpose_kernel else wh, (2, 1), padding,
                                       transpose_kernel=transpose_kernel))
    dn = lax.conv_dimension_numbers((1, 5, 5, 3), (3, 3, 3, 8), ("NHWC", "HWIO", "NHWC"))
    assert tuple(dn) == tuple(jax.lax.conv_dimension_numbers((1, 5, 5, 3), (3, 3, 3, 8),
                                                              ("NHWC", "HWIO", "NHWC")))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "int32"])
def test_conv_dtypes_match_jax(dtype):
    rng = np.random.default_rng(4)
    x = (rng.normal(size=(2, 3, 6)) * 3).astype(jnp.dtype(dtype))
    w = (rng.normal(size=(2, 3, 2)) * 3).astype(jnp.dtype(dtype))
    if dtype == "int32" and fa.default_backend() == "gpu":
        # XLA's GPU backend (cuDNN) has no int32 convolution, in jax neither: XLA's own error
        with pytest.raises(CompileError, match="integer convolutions"):
            fa.jit(lambda a, b: lax.conv_general_dilated(a, b, (1,), "SAME"))(x, w)
        return
    with jax.enable_x64(False):
        want = jax.lax.conv_general_dilated(x, w, (1,), "SAME")
        want_pref = jax.lax.conv_general_dilated(x, w, (1,), "SAME",
                                                 preferred_element_type=np.float32) \
            if dtype != "int32" else None
    got = lax.conv_general_dilated(fnp.asarray(x), fnp.asarray(w), (1,), "SAME")
    assert got.dtype == want.dtype
    tol = {"float16": dict(rtol=2e-2, atol=2e-2), "bfloat16": dict(rtol=2e-2, atol=2e-2),
           "float32": dict(rtol=1e-5, atol=1e-5), "int32": {}}[dtype]
    assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), **tol)
    assert_allclose(np.asarray(fa.jit(lambda a, b: lax.conv_general_dilated(
        a, b, (1,), "SAME"))(fnp.asarray(x), fnp.asarray(w)), np.float64),
        np.asarray(want, np.float64), **tol)
    if want_pref is not None:
        pref = lax.conv_general_dilated(fnp.asarray(x), fnp.asarray(w), (1,), "SAME",
                                        preferred_element_type=np.float32)
        assert pref.dtype == np.float32
        assert_allclose(pref, want_pref, rtol=1e-3, atol=1e-3)


def test_conv_errors():
    x, w = fnp.ones((2, 4, 5)), fnp.ones((3, 2, 2))
    with pytest.raises(ValueError, match=r"lhs has 4 features, the kernel takes 2 per group "
                                         r"x feature_group_count=1"):
        lax.conv_general_dilated(x, w, (1,), "VALID")
    with pytest.raises(ValueError, match="output features must divide into 2 groups"):
        lax.conv_general_dilated(x, w, (1,), "VALID", feature_group_count=2)
    with pytest.raises(ValueError, match="padding needs one"):
        lax.conv_general_dilated(x, fnp.ones((4, 4, 2)), (1,), [(0, 0), (1, 1)])
    with pytest.raises(ValueError, match="padding must be 'VALID', 'SAME'"):
        lax.conv_general_dilated(x, fnp.ones((4, 4, 2)), (1,), "FULL")
    with pytest.raises(TypeError, match="same rank"):
        lax.conv_general_dilated(x, fnp.ones((4, 4, 2, 2)), (1,), "VALID")
    with pytest.raises(TypeError, match="one dtype"):
        lax.conv_general_dilated(x, fnp.ones((4, 4, 2), dtype=np.float64), (1,), "VALID")
    with pytest.raises(ValueError, match="window_strides entries must be positive"):
        lax.conv_general_dilated(x, fnp.ones((4, 4, 2)), (0,), "VALID")
    with pytest.raises(ValueError, match="layout 'HOO' must name O and I once each"):
        lax.conv_general_dilated(x, fnp.ones((4, 4, 2)), (1,), "VALID",
                                 dimension_numbers=("NHC", "HOO", "NHC"))


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 6), st.integers(1, 6), st.sampled_from(["full", "same", "valid"]),
       st.sampled_from(["float32", "float64", "int32", "complex64"]), st.integers(0, 999))
def test_convolve_and_correlate_match_numpy(n, k, mode, dtype, seed):
    rng = np.random.default_rng(seed)
    a, v = rng.normal(size=n), rng.normal(size=k)
    if dtype == "complex64":
        a, v = a + 1j * rng.normal(size=n), v - 0.5j * rng.normal(size=k)
    a, v = (a * 3).astype(dtype), (v * 3).astype(dtype)
    tol = dict(rtol=1e-4, atol=1e-4) if dtype in ("float32", "complex64") else {}
    for ours, theirs in [(fnp.convolve, np.convolve), (fnp.correlate, np.correlate)]:
        want = theirs(a, v, mode=mode)
        got = ours(fnp.asarray(a), fnp.asarray(v), mode=mode)
        assert_allclose(got, want.astype(np.asarray(got).dtype), **tol)
        assert_allclose(fa.jit(lambda x, y, f=ours: f(x, y, mode=mode))(fnp.asarray(a),
                                                                           fnp.asarray(v)),
                        want.astype(np.asarray(got).dtype), **tol)


def test_convolve_gradient_and_errors():
    a, v = np.array([0.5, -1.0, 2.0, 0.3]), np.array([1.0, 0.25])
    f = lambda xp: lambda x, y: xp.sum(xp.convolve(x, y, mode="same") ** 2)  # noqa: E731
    fa.tree.map(assert_allclose, fa.grad(f(fnp), argnums=(0, 1))(fnp.asarray(a), fnp.asarray(v)),
                jax.grad(f(jnp), argnums=(0, 1))(a, v))
    with pytest.raises(ValueError, match="convolve: takes 1-d arrays"):
        fnp.convolve(fnp.ones((2, 2)), fnp.ones(2))
    with pytest.raises(ValueError, match="mode must be one of"):
        fnp.correlate(fnp.ones(3), fnp.ones(2), mode="wrap")
    with pytest.raises(ValueError, match="inputs cannot be empty"):
        fnp.convolve(fnp.ones(0), fnp.ones(2))


def test_complex_convolution_on_gpu_is_three_real_ones():
    """XLA's GPU backend has no complex convolution: the lowering for it computes one from
    three real ones (as jax does there). Run here on the CPU, it matches jax's complex one."""
    from helpers import run_portable

    from funcarray.lowering.stablehlo import lower_ir
    from funcarray.transforms.staging import make_ir

    rng = np.random.default_rng(7)
    x = (rng.normal(size=(2, 3, 9)) + 1j * rng.normal(size=(2, 3, 9))).astype(np.complex64)
    w = (rng.normal(size=(4, 3, 3)) + 1j * rng.normal(size=(4, 3, 3))).astype(np.complex64)

    def conv(a, b):
        return lax.conv_general_dilated(a, b, (2,), [(1, 2)], rhs_dilation=(2,))

    text = lower_ir(make_ir(conv)(x, w).closed, platform="gpu")
    convolutions = [line for line in text.splitlines() if '"stablehlo.convolution"' in line]
    assert len(convolutions) == 3 and not any("complex" in line for line in convolutions)
    (got,) = run_portable(conv, x, w, platform="gpu")
    want = jax.lax.conv_general_dilated(x, w, (2,), [(1, 2)], rhs_dilation=(2,),
                                        precision="highest")
    assert got.dtype == np.complex64
    np.testing.assert_allclose(got, np.asarray(want), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("kernel, stride, lhs_dilation, layout", [
    (2, 1, 2, ((0, 3, 2, 1), (0, 2, 1, 3), (1, 0, 3, 2))),
    (2, 1, 2, ((0, 1, 2, 3), (0, 1, 2, 3), (0, 1, 2, 3))),
    (3, 2, 3, ((0, 1, 2, 3), (0, 1, 2, 3), (0, 1, 2, 3))),
])
def test_convolutions_xla_would_swap_wrongly_run_under_jit(kernel, stride, lhs_dilation, layout):
    """XLA's operand swap mistakes an unpadded dimension with lhs dilation k and stride k - 1
    for a group dimension and aborts the process (jax too); the lowering reverses that
    dimension's kernel under ``window_reversal`` instead, so jit gives the eager numbers.
    The second spatial dimension (input 1, padded window 3 of a 2-tap kernel) makes XLA swap."""
    lhs_perm, rhs_perm, out_perm = layout
    rng = np.random.default_rng(3)
    lhs_c, rhs_c = rng.normal(size=(1, 1, 4, 1)), rng.normal(size=(2, 1, kernel, 2))
    lhs = np.transpose(lhs_c, np.argsort(lhs_perm))
    rhs = np.transpose(rhs_c, np.argsort(rhs_perm))
    params = dict(window_strides=(stride, 1), padding=((0, 0), (2, 0)),
                  lhs_dilation=(lhs_dilation, 1), rhs_dilation=(1, 2),
                  dimension_numbers=lax.ConvDimensionNumbers(lhs_perm, rhs_perm, out_perm))
    f = lambda a, b: lax.conv_general_dilated(a, b, **params)  # noqa: E731
    text = fa.jit(f).lower(lhs, rhs).as_text()
    assert "window_reversal" in text and "stablehlo.reverse" in text
    eager = f(fnp.asarray(lhs), fnp.asarray(rhs))
    # the NumPy oracle: the canonical-layout convolution written as a sum over taps
    want = _direct_convolution(lhs_c, rhs_c, params)
    assert_allclose(eager, np.transpose(want, out_perm))
    assert_allclose(fa.jit(f)(fnp.asarray(lhs), fnp.asarray(rhs)), eager)


def _direct_convolution(lhs, rhs, params):
    """conv_general_dilated of canonical (N, C, H, W) x (O, I, KH, KW) operands by loops."""
    (sh, sw), (ph, pw) = params["window_strides"], params["padding"]
    (lh, lw), (rh, rw) = params["lhs_dilation"], params["rhs_dilation"]
    n, c, h, w = lhs.shape
    dilated = np.zeros((n, c, (h - 1) * lh + 1, (w - 1) * lw + 1))
    dilated[:, :, ::lh, ::lw] = lhs
    padded = np.pad(dilated, ((0, 0), (0, 0), (max(ph[0], 0), max(ph[1], 0)),
                              (max(pw[0], 0), max(pw[1], 0))))
    o, _, kh, kw = rhs.shape
    window_h, window_w = (kh - 1) * rh + 1, (kw - 1) * rw + 1
    out_h = (padded.shape[2] - window_h) // sh + 1
    out_w = (padded.shape[3] - window_w) // sw + 1
    out = np.zeros((n, o, out_h, out_w))
    for i in range(out_h):
        for j in range(out_w):
            patch = padded[:, :, i * sh:i * sh + window_h:rh, j * sw:j * sw + window_w:rw]
            out[:, :, i, j] = np.einsum("ncij,ocij->no", patch, rhs)
    return out
