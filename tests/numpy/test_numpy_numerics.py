"""funcarray.numpy's numerical helpers (gcd, lcm, frexp, ldexp, modf, spacing, gradient,
trapezoid, digitize, unwrap, cov, corrcoef, histogram_bin_edges, histogram2d, histogramdd and
the windows): values against NumPy (Hypothesis for gcd/lcm/digitize, special floats for the
decompositions; NumPy computes what jax.numpy does, differences noted) and jax.numpy, fa.jit,
gradients against jax.grad (one combined loss) and finite differences,
vmap against a loop, and the errors."""

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
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


def _bits(got, want):
    """Bitwise equality (signed zeros and NaNs included)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


int_arrays = st.lists(st.integers(-60, 60), min_size=1, max_size=6).map(
    lambda v: np.array(v, np.int32))


@settings(max_examples=15, deadline=None)
@given(int_arrays, st.integers(-60, 60))
def test_gcd_lcm_match_numpy(x, y):
    _close(fnp.gcd(x, y), np.gcd(x, y))
    _close(fnp.lcm(x, y), np.lcm(x, y))
    _close(fnp.gcd(x[:, None], x[None, :]), np.gcd(x[:, None], x[None, :]))


def test_gcd_lcm_jit_vmap_and_dtypes():
    x, y = np.array([12, -18, 0, 7], np.int64), np.array([8, 12, 0, -21], np.int64)
    gcd, lcm = fa.jit(lambda x, y: (fnp.gcd(x, y), fnp.lcm(x, y)))(x, y)
    _close(gcd, np.gcd(x, y))
    _close(lcm, np.lcm(x, y))
    assert fnp.gcd(x, y).dtype == np.int64
    _close(fa.vmap(fnp.gcd)(x, y), np.gcd(x, y))
    with pytest.raises(TypeError, match="gcd.*integer"):
        fnp.gcd(1.5, 2)
    with pytest.raises(TypeError, match="lcm.*integer"):
        fnp.lcm(np.ones(2), 2)


@st.composite
def _edge_int_pairs(draw):
    """Two integer arrays of one dtype, with its extremes (the most negative value, whose
    absolute value does not fit the dtype) among the draws."""
    dtype = np.dtype(draw(st.sampled_from([np.int8, np.int16, np.int32, np.int64, np.uint8,
                                           np.uint32])))
    info = np.iinfo(dtype)
    value = st.one_of(st.sampled_from([info.min, info.max, 0, 1]),
                      st.integers(int(info.min), int(info.max)))
    pair = st.lists(st.tuples(value, value), min_size=1, max_size=5)
    x, y = zip(*draw(pair))
    return np.array(x, dtype), np.array(y, dtype)


@settings(max_examples=30, deadline=None)
@given(_edge_int_pairs())
def test_gcd_lcm_of_dtype_extremes_match_numpy(pair):
    # jax's gcd loops forever on the most negative value (its absolute value stays negative);
    # NumPy is the oracle: Euclid's algorithm on the absolute values, wrapped to the dtype.
    x, y = pair
    with np.errstate(all="ignore"):
        want_gcd, want_lcm = np.gcd(x, y), np.lcm(x, y)
    for gcd, lcm in [(fnp.gcd(x, y), fnp.lcm(x, y)),
                     fa.jit(lambda a, b: (fnp.gcd(a, b), fnp.lcm(a, b)))(x, y)]:
        np.testing.assert_array_equal(np.asarray(gcd), want_gcd)
        np.testing.assert_array_equal(np.asarray(lcm), want_lcm)
        assert gcd.dtype == want_gcd.dtype and lcm.dtype == want_lcm.dtype


SPECIAL = [0.0, -0.0, 1.0, -3.5, 0.3, 1e-3, 6e4, np.inf, -np.inf, np.nan]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("exponent_dtype", [np.int8, np.int16, np.int32, np.uint8])
def test_ldexp_overflow_and_underflow_match_jax(dtype, exponent_dtype):
    # The exponent sum is formed in x1's float dtype, not the exponents' (int8 127 + 3 must not
    # wrap to -126). Results in the subnormal range are left out: XLA on CPU flushes them,
    # NumPy's kernels (the eager path) keep them.
    info = np.iinfo(exponent_dtype)
    exponents = np.array([info.max, info.min, 0, 5, info.max // 2, info.min // 2, 1, 3],
                         exponent_dtype)
    x = np.array([-5.0, 3.0, 0.7, 1e4, -2e-3, 1.0, -1.0, 6e4], dtype)
    pairs = [(x, exponents), (x[:, None], exponents[None, :])]
    for a, b in pairs:
        want = np.asarray(jnp.ldexp(a, b))
        with np.errstate(all="ignore"):
            exact = np.ldexp(a.astype(np.float64), b.astype(np.int64))
        normal = (np.abs(exact) >= np.finfo(dtype).tiny) | (
            np.abs(exact) < np.finfo(dtype).smallest_subnormal / 2)
        for got in (fnp.ldexp(a, b), fa.jit(fnp.ldexp)(a, b)):
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(np.asarray(got)[normal], want[normal])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_float_decompositions_match_numpy(dtype):
    tiny = np.finfo(dtype).smallest_subnormal * 3
    x = np.array(SPECIAL + [tiny, -tiny, np.finfo(dtype).max], dtype)
    m, e = fnp.frexp(x)
    nm, ne = np.frexp(x)
    _bits(m, nm)
    _bits(e, ne.astype(np.int32))
    exponents = np.array([3, -2, 0, 1, -4, 2, 3, 4, -1, 5, 2, 1, -1], np.int32)
    with np.errstate(all="ignore"):
        scaled, ulp = np.ldexp(x, exponents), np.spacing(x)
    # jax.numpy's spacing(-0.0) is the negative smallest subnormal (NumPy's is positive).
    ulp = np.where((x == 0) & np.signbit(x), -np.finfo(dtype).smallest_subnormal, ulp)
    _bits(fnp.ldexp(x, exponents), scaled)
    frac, whole = fnp.modf(x)
    nfrac, nwhole = np.modf(x)
    _bits(whole, nwhole)
    # As jax.numpy computes it (x - whole): NaN for infinities, where NumPy gives +-0.
    _close(frac, np.where(np.isinf(x), np.nan, nfrac), rtol=0, atol=0)
    if dtype != np.float16:  # jax.numpy's float16 spacing always steps towards +inf
        _close(fnp.spacing(x), ulp, rtol=0, atol=0)
    if dtype != np.float32:
        return
    # fa.jit gives the same bits (normal numbers: XLA's CPU backend flushes subnormals).
    normal = x[:10]
    for got, want in zip(fa.jit(fnp.frexp)(normal), np.frexp(normal)):
        _close(got, want, rtol=0, atol=0)
    _close(fa.jit(fnp.ldexp)(normal, exponents[:10]), scaled[:10], rtol=0, atol=0)


def test_float_decompositions_grad_and_errors():
    x = np.array([0.3, -5.0, 8.0, 1e-3])
    _close(fa.grad(lambda x: fnp.sum(fnp.frexp(x)[0] ** 2))(x),
           2 * np.frexp(x)[0] * 2.0 ** -np.frexp(x)[1])
    _close(fa.grad(lambda x: fnp.sum(fnp.ldexp(x, 3)))(x), np.full(4, 8.0))
    _close(fa.grad(lambda x: fnp.sum(fnp.modf(x)[0]))(x), np.ones(4))
    assert fnp.frexp(fnp.arange(3))[0].dtype == np.float32
    with pytest.raises(TypeError, match="ldexp.*integer exponents"):
        fnp.ldexp(1.0, 2.0)
    with pytest.raises(TypeError, match="frexp.*real"):
        fnp.frexp(np.ones(2, np.complex64))
    with pytest.raises(TypeError, match="modf.*out="):
        fnp.modf(1.0, out=np.zeros(()))


def test_gradient_matches_jax_and_numpy():
    rng = np.random.default_rng(0)
    f = rng.normal(size=(4, 5))
    xs, ys = np.cumsum(rng.uniform(0.5, 1.0, 5)), np.cumsum(rng.uniform(0.5, 1.0, 4))
    # (jax.numpy's gradient is NumPy's with edge_order=1.)
    for got, want in zip(fnp.gradient(f), np.gradient(f)):
        _close(got, want)
    _close(fnp.gradient(f, 2.0, axis=1), np.gradient(f, 2.0, axis=1))
    _close(fnp.gradient(f, xs, axis=-1), np.gradient(f, xs, axis=-1))
    for got, want in zip(fnp.gradient(f, ys, xs, edge_order=2),
                         np.gradient(f, ys, xs, edge_order=2)):
        _close(got, want)
    for got, want in zip(fnp.gradient(f, 0.5, edge_order=2), np.gradient(f, 0.5, edge_order=2)):
        _close(got, want)
    for got, want in zip(fa.jit(lambda f, x: fnp.gradient(f, 1.0, x))(f, xs),
                         np.gradient(f, 1.0, xs)):
        _close(got, want)
    assert fnp.gradient(f, axis=()) == []
    check_grads(lambda f, x: fnp.gradient(f, x, axis=1, edge_order=2), (f, xs), order=1,
                modes=("rev",))
    _close(fa.vmap(lambda row: fnp.gradient(row, xs))(f), [np.gradient(r, xs) for r in f])
    with pytest.raises(ValueError, match="gradient.*at least 3 samples"):
        fnp.gradient(np.ones(2), edge_order=2)
    with pytest.raises(ValueError, match="gradient.*edge_order"):
        fnp.gradient(np.ones(4), edge_order=3)
    with pytest.raises(TypeError, match="gradient.*3 spacings for 2 axes"):
        fnp.gradient(f, 1.0, 2.0, 3.0)
    with pytest.raises(ValueError, match="gradient.*length 5"):
        fnp.gradient(f, np.ones(3), axis=1)


def test_trapezoid_unwrap_digitize_match_jax():
    rng = np.random.default_rng(1)
    y = rng.normal(size=(3, 5))
    x = np.cumsum(rng.uniform(0.1, 1.0, 5))
    _close(fnp.trapezoid(y), np.trapezoid(y))
    _close(fnp.trapezoid(y, x), np.trapezoid(y, x))
    _close(fnp.trapezoid(y, dx=0.3, axis=0), np.trapezoid(y, dx=0.3, axis=0))
    _close(fnp.trapezoid(y, y * 2 + 3, axis=0), np.trapezoid(y, y * 2 + 3, axis=0))
    _close(fnp.trapezoid(y, dx=np.diff(x)), np.trapezoid(y, dx=np.diff(x)))
    _close(fa.jit(fnp.trapezoid)(y, x), np.trapezoid(y, x))
    check_grads(fnp.trapezoid, (y, x), order=1, modes=("rev",))
    p = np.cumsum(rng.normal(size=(3, 10)) * 3, axis=1)
    _close(fnp.unwrap(p), np.unwrap(p))
    _close(fnp.unwrap(p, discont=4.0, axis=0), np.unwrap(p, discont=4.0, axis=0))
    pi = (p * 10).astype(np.int32)
    _close(fnp.unwrap(pi, period=50), jnp.unwrap(pi, period=50))
    with pytest.raises(TypeError, match="unwrap.*real"):
        fnp.unwrap(np.ones(3, np.complex64))


@settings(max_examples=15, deadline=None)
@given(st.lists(st.sampled_from([-2.0, -1.0, 0.0, 0.5, 1.0, 3.0]), min_size=1, max_size=4),
       st.booleans(), st.booleans())
def test_digitize_matches_numpy(edges, right, decreasing):
    bins = np.sort(np.array(edges))
    if decreasing:
        bins = bins[::-1]
    x = np.array([-3.0, -2.0, -1.0, 0.0, 0.25, 0.5, 1.0, 2.0, 3.0, 4.0])
    got = fnp.digitize(x, bins, right=right)
    assert got.dtype == np.int32
    _close(got, np.digitize(x, bins, right=right))


def test_digitize_jit_and_errors():
    bins = np.array([0.0, 1.0, 2.0])
    x = np.array([[-1.0, 0.5], [1.0, 7.0]])
    _close(fa.jit(fnp.digitize)(x, bins), np.digitize(x, bins))
    _close(fnp.digitize(x, np.zeros(0)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="digitize.*1-D"):
        fnp.digitize(x, np.ones((2, 2)))


def test_cov_corrcoef_match_jax():
    rng = np.random.default_rng(2)
    m = rng.normal(size=(3, 6))
    fw, aw = rng.integers(1, 4, 6), rng.uniform(0.2, 1.0, 6)
    cases = [dict(), dict(rowvar=False), dict(bias=True), dict(ddof=0, aweights=aw),
             dict(fweights=fw, aweights=aw), dict(fweights=fw, ddof=2)]
    for kwargs in cases:
        _close(fnp.cov(m, **kwargs), np.cov(m, **kwargs))
    _close(fnp.cov(m[0], m[1]), np.cov(m[0], m[1]))
    _close(fnp.cov(m[0]), np.cov(m[0]))
    _close(fnp.corrcoef(m), np.corrcoef(m))
    _close(fnp.corrcoef(m[0], m[1], rowvar=False), np.corrcoef(m[0], m[1], rowvar=False))
    mc = m + 1j * rng.normal(size=m.shape)
    _close(fnp.cov(mc), np.cov(mc))
    _close(fnp.corrcoef(mc), np.corrcoef(mc))
    assert fnp.cov(fnp.arange(4)).dtype == np.float32
    assert fnp.cov(m, dtype=np.float32).dtype == np.float32
    _close(fa.jit(lambda m, a: fnp.corrcoef(fnp.cov(m, aweights=a)))(m, aw),
           np.corrcoef(np.cov(m, aweights=aw)))
    check_grads(lambda m, a: fnp.cov(m, aweights=a), (m, aw), order=1, modes=("rev",))
    batch = np.stack([m, 2 * m + 1])
    _close(fa.vmap(fnp.corrcoef)(batch), [np.corrcoef(b) for b in batch])
    with pytest.raises(ValueError, match="cov.*more than 2 dimensions"):
        fnp.cov(np.ones((2, 2, 2)))
    with pytest.raises(TypeError, match="cov.*fweights must be integers"):
        fnp.cov(m, fweights=aw)
    with pytest.raises(ValueError, match="cov.*aweights.*one weight per observation"):
        fnp.cov(m, aweights=aw[:3])
    with pytest.raises(ValueError, match="corrcoef.*dtype"):
        fnp.corrcoef(m, dtype=np.int32)


def test_histograms_match_jax():
    rng = np.random.default_rng(3)
    s = rng.normal(size=(30, 3))
    for kwargs in (dict(), dict(bins=[3, 4, np.array([-1.0, 0.0, 1.0])], density=True),
                   dict(bins=3, range=[(-1, 1), None, (0, 2)], weights=s[:, 0])):
        (h, edges), (nh, nedges) = fnp.histogramdd(s, **kwargs), np.histogramdd(s, **kwargs)
        _close(h, nh)
        for e, ne in zip(edges, nedges):
            _close(e, ne)
    for bins in ((3, 5), np.linspace(-2, 2, 6), 4):
        for got, want in zip(fnp.histogram2d(s[:, 0], s[:, 1], bins=bins),
                             np.histogram2d(s[:, 0], s[:, 1], bins=bins)):
            _close(got, want)
    assert fnp.histogramdd(s)[0].dtype == np.int32  # jax.numpy's counts without weights
    _close(fnp.histogram_bin_edges(s, 7), np.histogram_bin_edges(s, 7))
    _close(fnp.histogram_bin_edges(np.ones(3), 2), [0.5, 1.0, 1.5])
    _close(fnp.histogram_bin_edges(s, 3, range=(0, 1)), np.histogram_bin_edges(s, 3, (0, 1)))
    _close(fnp.histogram_bin_edges(s, np.arange(3)), np.arange(3.0))
    jitted = fa.jit(lambda s: fnp.histogram2d(s[:, 0], s[:, 1], bins=3, density=True))
    for got, want in zip(jitted(s), np.histogram2d(s[:, 0], s[:, 1], bins=3, density=True)):
        _close(got, want)
    with pytest.raises(ValueError, match="histogramdd.*3 pairs"):
        fnp.histogramdd(s, range=[(0, 1)])
    with pytest.raises(ValueError, match="histogramdd.*one entry per dimension"):
        fnp.histogramdd(s, bins=[2, 3])
    with pytest.raises(ValueError, match="histogram_bin_edges.*string"):
        fnp.histogram_bin_edges(s, "auto")
    with pytest.raises(TypeError, match=r"(?s)depends on n of jit.*static_argnums"):
        fa.jit(lambda n: fnp.histogram_bin_edges(s, n))(3)


def test_windows_match_numpy():
    for name in ("bartlett", "blackman", "hamming", "hanning"):
        for m in (0, 1, 2, 7):
            got = getattr(fnp, name)(m)
            assert got.dtype == np.float32  # jax.numpy's default float
            _close(got, getattr(np, name)(m), rtol=1e-6, atol=1e-7)
    with pytest.raises(TypeError, match=r"(?s)depends on M of jit\(hanning\).*static_argnums"):
        fa.jit(fnp.hanning)(3)
    for m in (1, 4, 9):
        _close(fnp.kaiser(m, 6.5), np.kaiser(m, 6.5), rtol=2e-6, atol=1e-7)
    _close(fa.jit(fnp.kaiser, static_argnums=0)(7, 2.0), np.kaiser(7, 2.0), rtol=2e-6,
           atol=1e-7)
    x = np.linspace(-5.0, 5.0, 11)
    _close(fnp.i0(x), np.i0(x), rtol=1e-12, atol=0)


def test_gradients_match_jax():
    """One loss over several differentiable functions, differentiated by both libraries (one
    jax compile); the rest against finite differences."""
    rng = np.random.default_rng(4)
    m, x = rng.normal(size=(3, 6)), np.cumsum(rng.uniform(0.2, 1.0, 6))
    aw = rng.uniform(0.2, 1.0, 6)

    def loss(lib, m, x):
        return (lib.sum(lib.cov(m, aweights=aw) ** 2) + lib.sum(lib.trapezoid(m, x) ** 2)
                + lib.sum(lib.gradient(m, x, axis=1) ** 2))

    got = fa.grad(lambda m, x: loss(fnp, m, x), argnums=(0, 1))(m, x)
    want = jax.jit(jax.grad(lambda m, x: loss(jnp, m, x), argnums=(0, 1)))(m, x)
    for g, w in zip(got, want):
        _close(g, w, rtol=1e-9)
    check_grads(lambda m: fnp.corrcoef(m) ** 3, (m,), order=1, modes=("rev",))
    check_grads(lambda m: fnp.unwrap(3 * m, axis=0), (m,), order=1, modes=("rev",))


@settings(max_examples=20)
@given(values=st.lists(st.floats(-65504, 65504, width=16), min_size=1, max_size=6),
       decimals=st.integers(-3, 3))
def test_round_float16_with_decimals_matches_jax(values, decimals):
    # jax rounds float16 in float32: x * 10**decimals would overflow float16 near its maximum.
    x = np.array(values + [65504.0, -65504.0, 2.675, 0.125], np.float16)
    want = np.asarray(jnp.round(x, decimals))
    for got in (fnp.round(x, decimals), fa.jit(fnp.round, static_argnums=1)(x, decimals)):
        assert got.dtype == np.float16
        np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex64])
@pytest.mark.parametrize("decimals", [-3, -1, 2, 5, 39, 309])
def test_round_with_decimals_matches_jax_bit_for_bit(dtype, decimals):
    # XLA divides by the constant 10**decimals as a product with its reciprocal (in the
    # dtype): 18512 to -3 decimals is 18992 in float16, not the 19008 that 19 / 0.001 gives.
    # Beyond a dtype's precision (float16 at 5 decimals) the values are returned unchanged.
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(3000) * 10.0 ** rng.integers(-3, 5, 3000))
    x = np.concatenate([x, [18512.0, 2.675, 0.125, -0.0, np.inf, np.nan]]).astype(dtype)
    with jax.enable_x64(np.dtype(dtype).itemsize == 8):
        want = np.asarray(jnp.round(x, decimals))
    for got in (fnp.round(x, decimals), fa.jit(fnp.round, static_argnums=1)(x, decimals)):
        np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("name", ["log10", "log2"])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_log10_log2_of_specials_match_jax(name, dtype):
    # log(0) = -inf + 0j scaled by a real constant stays -inf + 0j (a complex product with
    # scale + 0j would give NaN for the imaginary part).
    parts = [0.0, -0.0, 1.0, -2.5, np.inf, -np.inf, np.nan, 1e-30]
    z = np.array([complex(a, b) for a in parts for b in parts], dtype)
    want = np.asarray(getattr(jnp, name)(z))
    for got in (getattr(fnp, name)(z), fa.jit(getattr(fnp, name))(z)):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(np.asarray(got), want, rtol=2e-6, equal_nan=True)


@settings(max_examples=20)
@given(value=st.floats(-1e3, 1e3) | st.integers(-1000, 1000),
       dtype=st.sampled_from([np.int8, np.int16, np.int32, np.uint8, np.uint32, np.int64]))
def test_scalar_types_convert_python_numbers_as_jax(value, dtype):
    # fnp.int8(2.7) truncates toward zero; a value out of the dtype's range raises
    # OverflowError, as jax's scalar types do.
    name = np.dtype(dtype).name
    try:
        want = np.asarray(getattr(jnp, name)(value))
    except OverflowError:
        with pytest.raises(OverflowError, match=f"out of range for {name}"):
            getattr(fnp, name)(value)
        return
    got = getattr(fnp, name)(value)
    assert got.dtype == want.dtype and not got.weak_type
    np.testing.assert_array_equal(np.asarray(got), want)


def test_float_nan_to_integer_dtype_raises_value_error():
    with pytest.raises(ValueError, match="cannot convert the float nan to integer dtype int8"):
        fnp.int8(float("nan"))
    with pytest.raises(OverflowError, match="float inf is out of range for int32"):
        fnp.asarray(float("inf"), fnp.int32)


@pytest.mark.parametrize("start, stop, num", [(0, 1, 5), (-1, 1, 4), (0, 10, 4), (2.5, -3, 7)])
@pytest.mark.parametrize("dtype", [bool, np.int32, np.float32])
def test_linspace_bool_samples_and_integer_steps_match_jax(start, stop, num, dtype):
    # bool samples are nonzero tests of the float samples (no floor); the step stays inexact.
    with jax.enable_x64(False):
        want, want_step = jnp.linspace(start, stop, num, retstep=True, dtype=dtype)
    got, step = fnp.linspace(start, stop, num, retstep=True, dtype=dtype)
    assert got.dtype == want.dtype and step.dtype == want_step.dtype
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(step), np.asarray(want_step), rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bessel_functions_near_the_largest_float_match_jax(dtype):
    # sqrt(2 pi |x|) would overflow float32 above 5.4e37 and turn i0e into 0 and i0 into NaN.
    big = np.finfo(dtype).max
    x = np.array([big, -big, big / 3, 1e30, 26.0, -40.0], dtype)
    for got, want in [(fa.lax.bessel_i0e(x), jax.lax.bessel_i0e(x)),
                      (fa.lax.bessel_i1e(x), jax.lax.bessel_i1e(x)),
                      (fnp.i0(x), jnp.i0(x))]:
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5)


@pytest.mark.parametrize("name", ["true_divide", "arctan2", "scipy.xlogy", "scipy.xlog1py"])
@pytest.mark.parametrize("scalar", [-129, 300, 2**31 - 1, 2.5])
def test_inexact_binary_ops_convert_python_numbers_straight_to_float(name, scalar):
    # As jax: an int8 array and a Python int out of int8's range become floats directly; the
    # int is never wrapped to int8 (under jit, where its value is unknown) nor refused.
    def pick(module_np, module_scipy):
        return getattr(module_scipy, name[6:]) if name.startswith("scipy.") else getattr(
            module_np, name)
    ours = pick(fnp, fa.scipy.special)
    theirs = pick(jnp, jax.scipy.special)
    x = np.array([7, -3, 0], np.int8)
    with jax.enable_x64(False):
        want = theirs(x, scalar)
    for got in (ours(x, scalar), fa.jit(ours)(x, scalar)):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


@pytest.mark.parametrize("name", ["arcsinh", "arccosh", "arcsin", "arccos", "sqrt"])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_branch_cuts_with_signed_zeros_agree_eager_jit_and_jax(name, dtype):
    # XLA reads a zero part's sign as +0 in these functions; the eager kernels do the same,
    # so asinh(-0 + pi j) is +1.81 + 1.57j everywhere. (The sign of a zero result part is
    # left open.)
    parts = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, np.pi, -np.pi, 1e-20, -1e-20]
    z = np.array([complex(a, b) for a in parts for b in parts], dtype)
    want = np.asarray(getattr(jnp, name)(z))
    rtol = 1e-5 if dtype == np.complex64 else 1e-12
    for got in (getattr(fnp, name)(z), fa.jit(getattr(fnp, name))(z)):
        np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=1e-30)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("args", [(-1.0, 2.3, 0.1), (0.5, 100.0, 0.7), (3.0, -7.0, -0.3)])
def test_arange_of_floats_matches_jax_bit_for_bit(args, dtype):
    # 16-bit ramps are computed in float32 and rounded once, as jax does.
    want = np.asarray(jnp.arange(*args, dtype=dtype))
    for got in (fnp.arange(*args, dtype=dtype), fa.jit(lambda: fnp.arange(*args, dtype=dtype))()):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got), want)


@given(start=st.integers(-2**40, 2**40), step=st.sampled_from([1, 3, 2**20, 2**38, -7]),
       count=st.integers(0, 4),
       dtype=st.sampled_from([None, "int8", "uint8", "int32", "uint32", "int64", "uint64"]))
def test_integer_arange_never_wraps(start, step, count, dtype):
    # Values that do not fit the dtype are refused (jax and NumPy wrap them silently:
    # arange(0, 2**40, 2**38) in int32 is [0, 0, 0, 0]); the rest equal NumPy's ramp.
    stop = start + count * step
    target = np.dtype("int32" if dtype is None else dtype)
    want = [start + k * step for k in range(count)]
    info = np.iinfo(target)
    fits = all(info.min <= v <= info.max for v in want)
    for run in (lambda: fnp.arange(start, stop, step, dtype=dtype),
                lambda: fa.jit(lambda: fnp.arange(start, stop, step, dtype=dtype))()):
        if fits:
            got = run()
            assert got.dtype == target and np.asarray(got).tolist() == want
        else:
            with pytest.raises(OverflowError, match="out of range .* pass dtype="):
                run()


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_cbrt_rejects_complex_eagerly_and_under_jit_like_jax(dtype):
    # jit used to stage complex cbrt and fail in XLA's compiler (StableHLO's cbrt takes floats).
    z = np.array([8 + 1j], dtype)
    with pytest.raises(TypeError):
        jnp.cbrt(z)
    for run in (fnp.cbrt, fa.jit(fnp.cbrt)):
        with pytest.raises(TypeError, match="cbrt: does not accept dtype complex"):
            run(z)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_sign_with_infinite_parts_agrees_eager_jit_and_jax(dtype):
    # sign(z) is z / |z| as XLA computes it: NaN parts where a part is infinite (eager used to
    # give NumPy 2's unit of the infinite direction, sign(inf + 0j) = 1, while jit gave NaN).
    parts = [0.0, -0.0, 1.0, -2.5, np.inf, -np.inf, np.nan, 1e-30]
    z = np.array([complex(a, b) for a in parts for b in parts], dtype)
    want = np.asarray(jnp.sign(z))
    for got in (fnp.sign(z), fa.jit(fnp.sign)(z)):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, equal_nan=True)


def test_float_functions_of_python_ints_and_narrow_arrays_match_jax():
    # A Python int converts straight to the float result dtype (it no longer has to fit
    # the array's integer dtype first); clip takes an int64 bound beside an int64 array.
    u = np.array([3, 200], np.uint8)
    with jax.enable_x64(False):
        for ours, theirs in [(fnp.logaddexp, jnp.logaddexp), (fnp.logaddexp2, jnp.logaddexp2),
                             (fnp.float_power, jnp.float_power)]:
            want = theirs(-1, u)
            for got in (ours(-1, u), fa.jit(lambda v, f=ours: f(-1, v))(u)):
                assert got.dtype == want.dtype
                np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
    wide = np.array([1, 2**50], np.int64)
    np.testing.assert_array_equal(np.asarray(fnp.clip(wide, 0, 646419117287915)),
                                  np.clip(wide, 0, 646419117287915))


@pytest.mark.parametrize("name", ["arctan2", "nextafter"])
def test_real_binary_functions_refuse_complex_eagerly_and_under_jit(name):
    z = np.array([1 + 1j], np.complex64)
    for call in (getattr(fnp, name), fa.jit(getattr(fnp, name))):
        with pytest.raises(TypeError, match=name):
            call(z, z)
