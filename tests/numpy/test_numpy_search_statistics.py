"""The jax.numpy functions added in _comparison, _search, _statistics, _index_tricks and
_array_ops: values, dtypes and weak types against jax.numpy (and NumPy), eagerly and under
``fa.jit``; gradients against ``jax.grad``; ``vmap`` against a Python loop; every error path.

jax runs with x64 switched on only when an input is 64-bit, since funcarray keeps 64-bit
inputs 64-bit and otherwise follows JAX's 32-bit defaults.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import funcarray as fa
import funcarray.numpy as fnp

# Few examples and no shrinking: every example compiles with XLA (funcarray and jax).
FEW = settings(max_examples=6, phases=(Phase.explicit, Phase.generate))
FEWER = settings(max_examples=4, phases=(Phase.explicit, Phase.generate))


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------

def _wide(args):
    leaves = jax.tree_util.tree_leaves(args)
    return any(isinstance(x, np.ndarray) and x.dtype.itemsize == 8 for x in leaves)


def _assert_same(got, want, rtol, atol, what):
    got_leaves, want_leaves = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves), what
    for g, w in zip(got_leaves, want_leaves):
        assert isinstance(g, fa.Array), f"{what}: got {type(g)}"
        assert g.shape == w.shape, f"{what}: shape {g.shape} != jax {w.shape}"
        assert g.dtype == w.dtype, f"{what}: dtype {g.dtype} != jax {w.dtype}"
        assert g.weak_type == w.weak_type, f"{what}: weak_type {g.weak_type} != jax"
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol, atol=atol,
                                   equal_nan=True, err_msg=what)


def check(name, *args, rtol=1e-6, atol=0.0, jit=True, numpy=None, x64=None, **kwargs):
    """fnp.<name>(*args, **kwargs) against jnp.<name>: eagerly and (NumPy-array arguments
    traced) under fa.jit. ``numpy``: also compare values with numpy.<name> (or a callable).
    ``x64``: run jax with 64-bit types (default: when an array argument is 64-bit)."""
    f, g = getattr(fnp, name), getattr(jnp, name)
    with jax.enable_x64(_wide((args, kwargs)) if x64 is None else x64):
        want = g(*args, **kwargs)
    got = f(*args, **kwargs)
    _assert_same(got, want, rtol, atol, f"{name} eager")
    if jit:
        traced = [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]

        def run(*arrays):
            full = list(args)
            for i, a in zip(traced, arrays):
                full[i] = a
            return f(*full, **kwargs)
        got_jit = fa.jit(run)(*(args[i] for i in traced))
        _assert_same(got_jit, want, rtol, atol, f"{name} jit")
    if numpy is not None:
        np_fn = getattr(np, name) if numpy is True else numpy
        with np.errstate(all="ignore"):
            expected = np_fn(*args, **kwargs)
        for g_, e in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(expected)):
            np.testing.assert_allclose(np.asarray(g_), e, rtol=max(rtol, 1e-5), atol=atol,
                                       equal_nan=True, err_msg=f"{name} vs numpy")
    return got


def check_grad(f_fa, f_jax, *args, argnums=0, rtol=1e-5):
    got = fa.grad(f_fa, argnums=argnums)(*[fnp.asarray(a) for a in args])
    want = jax.grad(f_jax, argnums=argnums)(*[jnp.asarray(a) for a in args])
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=1e-6)


_VALUES = [-3.0, -1.5, -1.0, 0.0, 0.5, 1.0, 2.0, 2.0, 4.0]


# A few fixed shapes: jax compiles (and caches) per shape, so few shapes keep the file fast.
_SHAPES = [(), (1,), (4,), (2, 3), (3, 1), (2, 1, 3)]


def float_arrays(min_dims=1, max_dims=3, nan=False, inf=False):
    values = list(_VALUES) + ([np.nan] if nan else []) + ([np.inf, -np.inf] if inf else [])
    shapes = st.sampled_from([s for s in _SHAPES if min_dims <= len(s) <= max_dims])
    return shapes.flatmap(lambda s: hnp.arrays(np.float32, s, elements=st.sampled_from(values)))


# --------------------------------------------------------------------------------------------
# isclose, allclose, array_equal, array_equiv, isin
# --------------------------------------------------------------------------------------------

@FEW
@given(float_arrays(nan=True, inf=True), st.booleans(), st.data())
def test_isclose_allclose_match_jax_and_numpy(a, equal_nan, data):
    b = data.draw(hnp.arrays(np.float32, a.shape,
                             elements=st.sampled_from(_VALUES + [np.nan, np.inf, 1.0 + 1e-6])))
    check("isclose", a, b, equal_nan=equal_nan, numpy=True)
    check("allclose", a, b, equal_nan=equal_nan, numpy=True)
    check("isclose", a, b, 0.5, 0.1)


def test_isclose_dtypes():
    check("isclose", np.array([1, 2], np.int32), np.array([1, 3], np.int32))
    check("isclose", np.array([1, 2], np.int64), 2)
    check("isclose", np.array([1 + 1j, 2j], np.complex64), np.array([1 + 1j, 2.1j], np.complex64))
    check("isclose", 1.0, 1.0 + 1e-9)
    check("isclose", np.array([True, False]), np.array([True, True]))


def test_array_equal_equiv():
    a = np.array([[1.0, np.nan], [3.0, 4.0]], np.float32)
    for b in (a, a[:1], np.array([1.0, np.nan], np.float32), np.array([[1, 0], [3, 4]])):
        check("array_equal", a, b, jit=False, numpy=True)
        check("array_equal", a, b, equal_nan=True, jit=False, numpy=True)
        check("array_equiv", a, b, jit=False, numpy=True)
    check("array_equiv", np.array([1, 2], np.int32), np.array([[1, 2], [1, 2]], np.int32),
          numpy=True)
    # jnp.array_equiv raises TypeError here (it catches only ValueError); NumPy says False.
    assert not fnp.array_equiv(np.array([1, 2]), np.array([1, 2, 3])).item()
    assert not np.array_equiv(np.array([1, 2]), np.array([1, 2, 3]))
    assert fa.jit(lambda x, y: fnp.array_equal(x, y))(fnp.ones(2), fnp.ones(2)).item()


@FEW
@given(hnp.arrays(np.int32, st.sampled_from([(), (4,), (2, 3)]), elements=st.integers(-3, 3)),
       hnp.arrays(np.int32, st.sampled_from([(0,), (3,), (2, 2)]), elements=st.integers(-3, 3)),
       st.booleans(), st.sampled_from(["auto", "compare_all", "binary_search", "sort"]))
def test_isin_matches_jax_and_numpy(element, test, invert, method):
    check("isin", element, test, invert=invert, method=method, numpy=lambda e, t, **k: np.isin(
        e, t, invert=k["invert"]))


def test_isin_float_nan_and_mixed_dtypes():
    e = np.array([1.0, np.nan, 2.5], np.float32)
    check("isin", e, np.array([7, 1], np.int32))
    check("isin", e, np.array([2.5, np.nan], np.float32), method="binary_search")


# --------------------------------------------------------------------------------------------
# searchsorted, interp, bincount, histogram
# --------------------------------------------------------------------------------------------

@FEW
@given(hnp.arrays(np.float32, st.sampled_from([0, 3, 6]),
                  elements=st.sampled_from(_VALUES + [np.nan])),
       float_arrays(min_dims=0, max_dims=2, nan=True),
       st.sampled_from(["left", "right"]),
       st.sampled_from(["scan", "scan_unrolled", "sort", "compare_all"]))
def test_searchsorted_matches_jax_and_numpy(a, v, side, method):
    a = np.sort(a)
    check("searchsorted", a, v, side=side, method=method,
          numpy=lambda a, v, side, method: np.searchsorted(a, v, side=side))


def test_searchsorted_sorter_ints_and_weak_scalar():
    a = np.array([3, 1, 2, 2], np.int32)
    check("searchsorted", a, np.array([2, 0, 9], np.int32), sorter=np.argsort(a).astype(np.int32))
    check("searchsorted", np.array([1, 2, 3], np.int64), 2, side="right")
    check("searchsorted", np.array([1.0, 2.0], np.float32), np.array([1, 2], np.int32))


@FEW
@given(float_arrays(min_dims=0, max_dims=2), st.sampled_from([1, 2, 5]),
       st.sampled_from([None, 0.5, "extrapolate"]), st.sampled_from([None, -7.0, "extrapolate"]))
def test_interp_matches_jax(x, n, left, right):
    xp = np.cumsum(np.linspace(0.5, 1.5, n, dtype=np.float32)) - 2.0
    fp = np.sin(xp).astype(np.float32)
    if (left is None or isinstance(left, str)) != (right is None or isinstance(right, str)):
        # jax.numpy.interp (0.10.2) jits with a None or "extrapolate" side static and a number
        # traced, and can reuse the program compiled for the mirror-image call (same static
        # values, other side): its result then depends on earlier calls. The oracle here
        # extrapolates both sides, then applies the constant ones.
        want = jnp.interp(x, xp, fp, left="extrapolate", right="extrapolate")
        if not isinstance(left, str):
            want = jnp.where(x < xp[0], fp[0] if left is None else left, want)
        if not isinstance(right, str):
            want = jnp.where(x > xp[-1], fp[-1] if right is None else right, want)
        for run in (fnp.interp, fa.jit(fnp.interp, static_argnames=("left", "right"))):
            got = run(x, xp, fp, left=left, right=right)
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    else:
        check("interp", x, xp, fp, left=left, right=right, rtol=1e-5, atol=1e-6)
    if not isinstance(left, str) and not isinstance(right, str):
        np.testing.assert_allclose(fnp.interp(x, xp, fp, left, right),
                                   np.interp(x, xp, fp, left, right), rtol=1e-5, atol=1e-6)


def test_interp_period_repeated_xp_and_int_inputs():
    x = np.array([-3.0, 0.2, 1.0, 7.5], np.float32)
    xp = np.array([0.0, 1.0, 1.0, 3.0], np.float32)
    fp = np.array([1.0, 2.0, 5.0, 0.0], np.float32)
    check("interp", x, xp, fp, rtol=1e-5)
    check("interp", x, np.array([2.0, 0.0, 1.0], np.float32), np.array([1.0, 0.0, 3.0],
          np.float32), period=3.0, rtol=1e-5, atol=1e-6)
    check("interp", np.array([1, 2], np.int32), np.array([0, 4], np.int32),
          np.array([0, 8], np.int32))
    check("interp", 0.5, np.array([0.0, 1.0], np.float32), np.array([0.0, 2.0], np.float32))


def test_interp_grad_and_vmap():
    xp = np.array([0.0, 1.0, 2.0, 4.0], np.float32)
    fp = np.array([0.0, 3.0, 1.0, 2.0], np.float32)
    x = np.array([-1.0, 0.5, 1.25, 3.0, 9.0], np.float32)
    for argnums in (0, 1, 2):
        check_grad(lambda x, xp, fp: fnp.sum(fnp.interp(x, xp, fp) ** 2),
                   lambda x, xp, fp: jnp.sum(jnp.interp(x, xp, fp) ** 2), x, xp, fp,
                   argnums=argnums)
    fps = np.stack([fp, 2 * fp, fp - 1])
    got = fa.vmap(lambda f: fnp.interp(x, xp, f))(fnp.asarray(fps))
    np.testing.assert_allclose(got, np.stack([np.interp(x, xp, f) for f in fps]), rtol=1e-6)


def test_bincount_matches_jax():
    x = np.array([0, 1, 1, 3, 7, -2], np.int32)
    with jax.enable_x64(False):
        want = jnp.bincount(x)
    got = fnp.bincount(x)
    _assert_same(got, want, 0, 0, "bincount")
    check("bincount", x, length=4)
    check("bincount", x, minlength=10, jit=False)
    check("bincount", x, np.linspace(0, 1, 6).astype(np.float32), length=5)
    check("bincount", np.array([True, False, True]), length=2)
    check("bincount", np.zeros(0, np.int32), jit=False)
    np.testing.assert_array_equal(fnp.bincount(x[:5]), np.bincount(x[:5]))


def test_bincount_vmap_and_weight_grad():
    xs = fnp.array([[0, 1, 1], [2, 2, 2]])
    got = fa.vmap(lambda x: fnp.bincount(x, length=3))(xs)
    np.testing.assert_array_equal(got, [np.bincount(np.asarray(x), minlength=3) for x in xs])
    x, w = np.array([0, 2, 2], np.int32), np.array([1.0, 2.0, 3.0], np.float32)
    check_grad(lambda w: fnp.sum(fnp.bincount(x, w, length=3) ** 2),
               lambda w: jnp.sum(jnp.bincount(x, w, length=3) ** 2), w)


@FEWER
@given(float_arrays(min_dims=1, max_dims=2, inf=False), st.sampled_from([1, 3, 5]),
       st.sampled_from([None, (-1.0, 2.0), (0.0, 0.0)]), st.booleans(), st.booleans())
def test_histogram_matches_jax_and_numpy(a, bins, range_, weighted, density):
    weights = (np.arange(a.size, dtype=np.float32).reshape(a.shape) + 1) if weighted else None
    def numpy_histogram(a, b, r, w, d):
        return np.histogram(a, b, r, weights=w, density=d)

    # funcarray computes the edges as NumPy does (start + i * step), jax as start * (1 - t) +
    # stop * t: an ulp apart, so a value on an inner edge can land in different bins (and an
    # edge at 0 is 6e-8 in jax: atol). Such samples are compared with NumPy only.
    inner = np.histogram_bin_edges(a, bins, range_)[1:-1]
    if np.isclose(a.reshape(-1, 1), inner, rtol=1e-6, atol=0).any():
        for run in (fnp.histogram, fa.jit(fnp.histogram, static_argnums=(1, 2, 4))):
            for g, w in zip(run(a, bins, range_, weights, density),
                            numpy_histogram(a, bins, range_, weights, density)):
                np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    else:
        check("histogram", a, bins, range_, weights, density, rtol=1e-5, atol=1e-6,
              numpy=numpy_histogram)


def test_histogram_edges_ints_and_grad():
    a = np.array([0, 1, 1, 2, 5, 9], np.int32)
    check("histogram", a, np.array([0.0, 1.0, 4.0, 9.0], np.float32), numpy=True)
    check("histogram", a.astype(np.int64), 4, numpy=True)
    check("histogram", a, 4, density=True, numpy=True)
    w = np.linspace(0.5, 2.0, 6).astype(np.float32)
    counts, edges = fnp.histogram(a, 3, weights=w)
    grad = fa.grad(lambda w: fnp.sum(fnp.histogram(a, 3, weights=w)[0] ** 2))(w)
    bins = np.clip(np.searchsorted(np.asarray(edges), a, side="right") - 1, 0, 2)
    np.testing.assert_allclose(grad, 2 * np.asarray(counts)[bins], rtol=1e-6)


# --------------------------------------------------------------------------------------------
# quantile, percentile, median, nan forms, nancumsum, nancumprod
# --------------------------------------------------------------------------------------------

@st.composite
def quantile_cases(draw, nan=False):
    a = draw(float_arrays(min_dims=1, max_dims=3, nan=nan))
    kind = draw(st.sampled_from(["none", "int", "tuple"]))
    if kind == "none":
        axis = None
    elif kind == "int":
        axis = draw(st.integers(-a.ndim, a.ndim - 1))
    else:
        axis = tuple(draw(st.sets(st.integers(0, a.ndim - 1), min_size=1)))
    q = draw(st.sampled_from([0.5, 0.0, 1.0, np.array([0.1, 0.75, 1.0], np.float32),
                              np.array(0.3, np.float32)]))
    return a, q, axis, draw(st.booleans())


@FEW
@given(quantile_cases(), st.sampled_from(["linear", "lower", "higher", "midpoint", "nearest"]))
def test_quantile_percentile_match_jax(case, method):
    a, q, axis, keepdims = case
    check("quantile", a, q, axis=axis, method=method, keepdims=keepdims, rtol=1e-5, atol=1e-6)
    # The oracle for percentile is jax's quantile at q: jax.numpy.percentile's q / 100 rounds
    # under XLA (100 -> 0.99999994), so its 100th percentile misses the maximum.
    with jax.enable_x64(_wide((a, q))):
        want = jnp.quantile(a, q, axis=axis, method=method, keepdims=keepdims)
    static = ("axis", "method", "keepdims")
    for what, run in (("eager", fnp.percentile),
                      ("jit", fa.jit(fnp.percentile, static_argnames=static))):
        _assert_same(run(a, q * 100, axis=axis, method=method, keepdims=keepdims), want, 1e-5,
                     1e-5, f"percentile {what}")
    if method == "linear":
        np.testing.assert_allclose(fnp.quantile(a, q, axis=axis, keepdims=keepdims),
                                   np.quantile(a, q, axis=axis, keepdims=keepdims), rtol=1e-5,
                                   atol=1e-6)


def test_percentile_100_is_the_maximum_under_jit():
    # XLA folds q / 100 into the position's constant factor unless kept apart (0.99999994).
    a = np.array([-3.0, -3.0, -3.0, -3.0, 1.0, 4.0], np.float32)
    q = np.array([0.0, 100.0], np.float32)
    for method in ("linear", "lower", "higher", "midpoint", "nearest"):
        for run in (fnp.percentile, fa.jit(fnp.percentile, static_argnames="method")):
            np.testing.assert_array_equal(run(a, q, method=method), [-3.0, 4.0], err_msg=method)


@FEWER
@given(quantile_cases(nan=True))
def test_median_nanmedian_match_jax_and_numpy(case):
    a, _, axis, keepdims = case
    check("median", a, axis=axis, keepdims=keepdims, numpy=True)
    check("nanmedian", a, axis=axis, keepdims=keepdims)
    check("nanquantile", a, np.array([0.2, 0.9], np.float32), axis=axis, keepdims=keepdims,
          rtol=1e-5, atol=1e-6)
    check("nanpercentile", a, 40.0, axis=axis, keepdims=keepdims, rtol=1e-5, atol=1e-6)


def test_quantile_dtypes():
    check("median", np.array([1, 2, 3, 4], np.int32), numpy=True)
    check("median", np.array([1, 2, 3, 4], np.int64), numpy=True)
    check("median", np.array([1.0, 2.0, 4.0], np.float64), numpy=True)
    check("quantile", np.array([1.0, 2.0, 4.0], np.float16), 0.3, rtol=1e-3)
    check("quantile", np.array([[1.0, 2.0], [4.0, 8.0]], np.float32), np.array([0.25, 0.5]),
          axis=0)
    # float64 data with a Python float q: computed in float64, not float32.
    x = np.array([0.0, 1.0 + 2.0 ** -40], np.float64)
    assert fnp.quantile(x, 0.5).item() == np.quantile(x, 0.5)


def test_quantile_median_grads_and_vmap():
    x = np.array([[3.0, 1.0, 2.0, 5.0], [0.0, -1.0, 4.0, 4.5]], np.float32)
    check_grad(lambda x: fnp.sum(fnp.median(x, axis=1) ** 2),
               lambda x: jnp.sum(jnp.median(x, axis=1) ** 2), x)
    check_grad(lambda x: fnp.sum(fnp.quantile(x, jnp.array([0.3, 0.8]), axis=0)),
               lambda x: jnp.sum(jnp.quantile(x, jnp.array([0.3, 0.8]), axis=0)), x)
    check_grad(lambda x: fnp.percentile(x, 35.0), lambda x: jnp.percentile(x, 35.0), x)
    xn = x.copy()
    xn[0, 1] = np.nan
    check_grad(lambda x: fnp.sum(fnp.nanmedian(x, axis=1)),
               lambda x: jnp.sum(jnp.nanmedian(x, axis=1)), xn)
    got = fa.vmap(lambda r: fnp.quantile(r, 0.4))(fnp.asarray(x))
    np.testing.assert_allclose(got, [np.quantile(r, 0.4) for r in x], rtol=1e-6)


@FEW
@given(float_arrays(min_dims=1, max_dims=2, nan=True), st.sampled_from([None, 0, -1]))
def test_nancumsum_nancumprod_match_jax(a, axis):
    check("nancumsum", a, axis=axis, numpy=True, rtol=1e-5)
    check("nancumprod", a, axis=axis, numpy=True, rtol=1e-5)


def test_nancumsum_int_dtypes_and_grad():
    check("nancumsum", np.array([1, 2, 3], np.int8))
    check("nancumsum", np.array([True, True]), dtype=np.float32)
    check("nancumprod", np.array([1, 2, 3], np.int32), axis=0)
    x = np.array([1.0, np.nan, 2.0, 3.0], np.float32)
    check_grad(lambda x: fnp.sum(fnp.nancumprod(x)), lambda x: jnp.sum(jnp.nancumprod(x)), x)


# --------------------------------------------------------------------------------------------
# meshgrid, indices, tri, tril_indices, triu_indices, unravel_index, ravel_multi_index
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("count", [0, 1, 2, 3])
def test_meshgrid_matches_jax_and_numpy(indexing, sparse, count):
    xs = [np.arange(n + 2, dtype=np.float32) * (n + 1) for n in range(count)]
    check("meshgrid", *xs, indexing=indexing, sparse=sparse, numpy=True)


def test_indices_tri_and_triangle_indices():
    for dims in [(), (3,), (2, 3), (2, 0, 2)]:
        check("indices", dims, jit=False, numpy=True)
        check("indices", dims, sparse=True, jit=False, numpy=True)
    check("indices", (2, 2), dtype=np.int64, jit=False, x64=True)  # funcarray keeps int64
    for args in [(3,), (2, 4, 1), (4, 2, -1), (0,)]:
        check("tri", *args, jit=False, numpy=True)
    for args in [(3,), (2, 1, 4), (4, -1, 2), (0,)]:
        check("tril_indices", *args, jit=False, numpy=True)
        check("triu_indices", *args, jit=False, numpy=True)
    check("tri", 3, dtype=np.int32, jit=False)
    check("tril_indices", 4, -1, 2, jit=False, numpy=True)
    check("triu_indices", 4, 1, 6, jit=False, numpy=True)


@FEW
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.data())
def test_unravel_ravel_roundtrip_match_jax(shape, data):
    size = int(np.prod(shape))
    flat = data.draw(hnp.arrays(np.int32, st.integers(0, 5), elements=st.integers(-size - 2,
                                                                                   size + 2)))
    out = check("unravel_index", flat, tuple(shape))
    for mode in ("clip", "wrap"):
        check("ravel_multi_index", tuple(np.asarray(o) for o in out), tuple(shape), mode=mode,
              jit=False)
        got = fa.jit(lambda *i: fnp.ravel_multi_index(i, tuple(shape), mode=mode))(*out)
        np.testing.assert_array_equal(got, np.ravel_multi_index(
            tuple(np.asarray(o) for o in out), shape, mode=mode))
    inside = np.clip(flat, 0, size - 1)
    multi = np.unravel_index(inside, shape)
    for order in ("C", "F"):
        check("ravel_multi_index", multi, tuple(shape), order=order, jit=False,
              numpy=lambda m, s, order: np.ravel_multi_index(m, s, order=order))


def test_unravel_index_unsigned_and_weak():
    check("unravel_index", np.array([0, 5, 9], np.uint32), (2, 3))
    check("unravel_index", 4, (2, 3), jit=False)
    check("ravel_multi_index", (np.array([1], np.int8), np.array([2], np.int8)), (3, 3),
          jit=False)
    check("ravel_multi_index", (1, 2), (3, 3), jit=False)


# --------------------------------------------------------------------------------------------
# diff, ediff1d, append, nan_to_num, copy, astype
# --------------------------------------------------------------------------------------------

@FEW
@given(float_arrays(min_dims=1, max_dims=3), st.integers(0, 3), st.data())
def test_diff_matches_jax_and_numpy(a, n, data):
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    prepend = data.draw(st.sampled_from([None, 1.5, np.float32(2)]))
    extra = {} if prepend is None else {"prepend": prepend}
    check("diff", a, n, axis, **extra, numpy=True)
    check("diff", a, n, axis, append=np.zeros(a.shape, np.float32), numpy=True)


def test_diff_bool_int_and_grad():
    check("diff", np.array([True, False, False, True]), numpy=True)
    check("diff", np.array([[1, 4], [9, 16]], np.int32), axis=0, numpy=True)
    check("diff", 2.0 * np.ones(3, np.float32), 0)
    x = np.array([1.0, 4.0, 2.0, 8.0], np.float32)
    check_grad(lambda x: fnp.sum(fnp.diff(x, 2) ** 2), lambda x: jnp.sum(jnp.diff(x, 2) ** 2), x)
    got = fa.vmap(lambda r: fnp.diff(r))(fnp.asarray(np.stack([x, -x])))
    np.testing.assert_array_equal(got, np.stack([np.diff(x), np.diff(-x)]))


def test_ediff1d_and_append():
    a = np.array([[1, 3], [6, 10]], np.int32)
    check("ediff1d", a, numpy=True)
    check("ediff1d", a, to_end=np.array([7, 8], np.int32), to_begin=-1, numpy=True)
    check("ediff1d", np.array([1.0, 3.5], np.float32), to_begin=np.array(2, np.int32))
    check("append", a, np.array([[5, 6]], np.int32), axis=0, numpy=True)
    check("append", a, 3.5, numpy=True)
    check("append", 1.0, 2.0, jit=False)
    check("append", a, np.array([[0], [1]], np.int64), axis=-1, numpy=True)


@FEW
@given(float_arrays(min_dims=0, max_dims=2, nan=True, inf=True),
       st.sampled_from([(0.0, None, None), (-1.0, 5.0, -5.0), (np.nan, 1.0, None)]))
def test_nan_to_num_matches_jax_and_numpy(x, replacements):
    nan, posinf, neginf = replacements
    check("nan_to_num", x, nan=nan, posinf=posinf, neginf=neginf, numpy=True)


def test_nan_to_num_other_dtypes_and_grad():
    check("nan_to_num", np.array([1, 2], np.int32))
    check("nan_to_num", np.array([np.nan + 1j * np.inf, 1 - 1j * np.inf], np.complex64),
          numpy=True)
    check("nan_to_num", np.array([np.nan, np.inf], np.float64), numpy=True)
    check("nan_to_num", np.inf, jit=False)
    x = np.array([1.0, np.nan, np.inf, -2.0], np.float32)
    check_grad(lambda x: fnp.sum(fnp.nan_to_num(x) * 2), lambda x: jnp.sum(jnp.nan_to_num(x) * 2),
               x)


def test_copy_and_astype():
    check("copy", np.array([1.0, 2.0], np.float32))
    np.testing.assert_array_equal(fnp.copy([1, 2]), [1, 2])  # jnp.copy refuses lists
    check("astype", np.array([1.7, -1.7], np.float32), np.int32)
    check("astype", np.array([1, 0], np.int32), bool)
    check("astype", np.array([1, 2], np.int32), None)
    check("astype", np.array([0j, 1j], np.complex64), bool)
    check("astype", 2.5, np.float32, jit=False)
    with pytest.warns(np.exceptions.ComplexWarning, match="drops the imaginary part"):
        out = fnp.astype(np.array([1 + 2j], np.complex64), np.float32)
    assert out.dtype == np.float32 and out.item() == 1.0
    assert fnp.astype(fnp.ones(2), fnp.float16, copy=True).dtype == np.float16


def test_transforms_of_ints_and_structure():
    # Index outputs under vmap and jit: one result per row, as a Python loop gives.
    a = fnp.array([[1.0, 2.0, 3.0], [0.0, 5.0, 6.0]])
    v = fnp.array([2.5, 0.0])
    got = fa.vmap(lambda r, q: fnp.searchsorted(r, q))(a, v)
    np.testing.assert_array_equal(got, [np.searchsorted(np.asarray(r), np.asarray(q))
                                        for r, q in zip(a, v)])
    got = fa.vmap(lambda e: fnp.isin(e, fnp.array([1, 3])))(fnp.array([[1, 2], [3, 3]]))
    np.testing.assert_array_equal(got, [[True, False], [True, True]])
    got = fa.vmap(lambda x: fnp.median(x))(a)
    np.testing.assert_allclose(got, np.median(np.asarray(a), axis=1))
    assert fa.grad(lambda x: fnp.sum(fnp.where(fnp.isclose(x, 1.0), x, 0.0)))(
        fnp.array([1.0, 2.0])).tolist() == [1.0, 0.0]


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------

_x = fnp.array([1.0, 2.0])
_i = fnp.array([0, 1])

ERRORS = [
    (lambda: fnp.isclose(_x, _x, rtol=1j), TypeError, "isclose: rtol must be a real"),
    (lambda: fnp.isclose(_x, "a"), TypeError, "isclose"),
    (lambda: fnp.isin(_x, _x, method="hash"), ValueError, "isin: method must be one of"),
    (lambda: fnp.searchsorted(fnp.ones((2, 2)), 1.0), ValueError,
     r"searchsorted: the sorted array a must be 1-D, got shape \(2, 2\)"),
    (lambda: fnp.searchsorted(_x, 1.0, side="middle"), ValueError, "side must be 'left'"),
    (lambda: fnp.searchsorted(_x, 1.0, method="magic"), ValueError, "method must be one of"),
    (lambda: fnp.searchsorted(_x, 1.0, sorter=_x), ValueError, "sorter must be integer"),
    (lambda: fnp.interp(_x, fnp.ones(3), fnp.ones(2)), ValueError,
     r"interp: xp and fp must be 1-D arrays of one length, got shapes \(3,\) and \(2,\)"),
    (lambda: fnp.interp(_x, fnp.ones(0), fnp.ones(0)), ValueError, "must not be empty"),
    (lambda: fnp.interp(_x, _x, _x, left="clamp"), ValueError, "'extrapolate'"),
    (lambda: fnp.interp(_x, _x, _x, period=_x), ValueError, "period must be a scalar"),
    (lambda: fnp.interp(_x * 1j, _x, _x), TypeError, "x and xp must be real"),
    (lambda: fnp.bincount(_x), TypeError, "bincount: x must be an integer array, got dtype "
                                          "float32"),
    (lambda: fnp.bincount(fnp.ones((2, 2), int)), ValueError, r"x must be 1-D, got shape"),
    (lambda: fa.jit(fnp.bincount)(_i), TypeError, "pass a static length="),
    (lambda: fnp.bincount(_i, weights=fnp.ones(3)), ValueError, "weights must have x's shape"),
    (lambda: fnp.bincount(_i, minlength=-1), ValueError, "minlength must be non-negative"),
    (lambda: fnp.bincount(_i, length=2.5), TypeError, "length must be an int"),
    (lambda: fnp.histogram(_x, bins="auto"), ValueError, "string bins"),
    (lambda: fnp.histogram(_x, bins=0), ValueError, "bins must be positive"),
    (lambda: fnp.histogram(_x, bins=[]), ValueError, "at least 1 edge"),
    (lambda: fnp.histogram(_x, range=(1.0,)), ValueError, "range must be a pair"),
    (lambda: fnp.histogram(_x, weights=fnp.ones(3)), ValueError, "weights must have a's shape"),
    (lambda: fnp.histogram(_x * 1j), TypeError, "a must be real"),
    (lambda: fa.jit(lambda b: fnp.histogram(_x, bins=b))(3), TypeError, "bins"),
    (lambda: fnp.quantile(_x, 0.5, method="weird"), ValueError, "quantile: method must be"),
    (lambda: fnp.quantile(_x, fnp.ones((2, 2))), ValueError, "q must be a scalar or 1-D"),
    (lambda: fnp.quantile(_x * 1j, 0.5), TypeError, "must be real"),
    (lambda: fnp.quantile(_x, 0.5, out=_x), TypeError, "out= is not supported"),
    (lambda: fnp.median(_x, overwrite_input=True), ValueError, "overwrite_input"),
    (lambda: fnp.percentile(_x, 50, weights=_x), ValueError, "weights= .* not supported"),
    (lambda: fnp.median(_x, axis=3), ValueError, "median: axis 3 is out of bounds"),
    (lambda: fnp.nancumsum(_x, out=_x), TypeError, "out= is not supported"),
    (lambda: fnp.meshgrid(fnp.ones((2, 2))), ValueError, r"meshgrid: every input must be 1-D"),
    (lambda: fnp.meshgrid(_x, indexing="yx"), ValueError, "indexing must be 'xy' or 'ij'"),
    (lambda: fnp.meshgrid(_x, copy=False), ValueError, "copy=False"),
    (lambda: fnp.indices(3), TypeError, "dimensions must be a sequence of ints"),
    (lambda: fnp.tri(2.5), TypeError, "tri: N must be an int"),
    (lambda: fnp.tri(-1), ValueError, "must be non-negative"),
    (lambda: fnp.tril_indices(3, k=0.5), TypeError, "tril_indices: k must be an int"),
    (lambda: fa.jit(lambda n: fnp.triu_indices(n))(3), TypeError, "needs a concrete value"),
    (lambda: fnp.unravel_index(_x, (2,)), TypeError, "indices must be integers"),
    (lambda: fnp.unravel_index(_i, (2, -1)), ValueError, "shape must be non-negative"),
    (lambda: fnp.ravel_multi_index((_i,), (2, 2)), ValueError, "got 1 index arrays for 2"),
    (lambda: fnp.ravel_multi_index((_i, _i), (2, 1)), ValueError, "out of bounds"),
    (lambda: fa.jit(lambda i: fnp.ravel_multi_index((i,), (2,)))(_i), TypeError,
     "mode='raise' needs concrete indices"),
    (lambda: fnp.ravel_multi_index((_i,), (2,), mode="drop"), ValueError, "mode must be one"),
    (lambda: fnp.ravel_multi_index((_i,), (2,), order="K"), ValueError, "order must be"),
    (lambda: fnp.ravel_multi_index((_x,), (2,)), TypeError, "indices must be integers"),
    (lambda: fnp.ravel_multi_index((_i,), (2,), dtype=np.float32), TypeError,
     "dtype must be an integer"),
    (lambda: fnp.ravel_multi_index((_i, _i), (2 ** 16, 2 ** 16)), ValueError,
     "cannot hold flat indices"),
    (lambda: fnp.diff(_x, n=-1), ValueError, "order n must be non-negative"),
    (lambda: fnp.diff(1.0), ValueError, "diff: needs an array with at least one dimension"),
    (lambda: fnp.diff(_x, n=1.5), TypeError, "n must be an int"),
    (lambda: fnp.diff(_x, axis=2), ValueError, "axis 2 is out of bounds"),
    (lambda: fnp.ediff1d(fnp.array([True])), TypeError, "cannot subtract booleans"),
    (lambda: fnp.append(_x, fnp.ones((2, 2)), axis=0), ValueError, "concatenate"),
    (lambda: fnp.nan_to_num(_x, posinf=1j), TypeError, "posinf must be real"),
    (lambda: fnp.copy(_x, order="F"), ValueError, "order must be"),
    (lambda: fnp.astype(_x, "not a dtype"), TypeError, "astype"),
]


@pytest.mark.parametrize("call, exc, match", ERRORS, ids=[m[:40] for _, _, m in ERRORS])
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_new_names_are_exported():
    names = ("isclose allclose array_equal array_equiv meshgrid diff ediff1d searchsorted tri "
             "tril_indices triu_indices indices median quantile percentile nanmedian "
             "nanquantile nanpercentile nan_to_num copy astype append unravel_index "
             "ravel_multi_index interp histogram bincount isin nancumsum nancumprod").split()
    missing = [n for n in names if not hasattr(fnp, n)]
    assert not missing


def test_python_float_arguments_keep_float64_precision():
    # A Python float given with a float64 dtype (or float64 data) is read exactly, not
    # through a weak float32 rounding of it.
    np.testing.assert_array_equal(fnp.linspace(0.1, 0.3, 5, dtype=np.float64),
                                  np.linspace(0.1, 0.3, 5))
    data = np.linspace(0.0, 1.0, 7)
    np.testing.assert_array_equal(fnp.histogram(data, bins=3, range=(0.1, 0.7))[1],
                                  np.histogram(data, bins=3, range=(0.1, 0.7))[1])
    np.testing.assert_array_equal(fnp.histogram(data, bins=[0.1, 0.3, 0.9])[0],
                                  np.histogram(data, bins=[0.1, 0.3, 0.9])[0])
