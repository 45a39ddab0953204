"""The host shortcuts of the composite functions (products: ``dot``, ``inner``, ``vdot``,
``outer``, ``vecdot``, ``einsum``, ``cross``, ``matvec``, ``vecmat``, ``linalg.cross``; and
the others in this file) give the general path's outcome (``tests/shortcut_oracle.py``): the
same result (type, shape, dtype, weak type, bits) or the same error, for every dtype, special
values (NaN, infinities, -0.0, integer extremes), mismatched shapes, broadcasting, and
operands given as Arrays, weak arrays, device arrays, NumPy arrays, lists and Python scalars.
The last tests check that the shortcuts take the common forms themselves."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from indexing_operands import as_kind
from op_table import ALL_DTYPES
from shortcut_oracle import assert_same_outcome

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.numpy import _linalg_eig_and_tensor, _products_on_host
from funcarray.numpy import _vectorize_and_constructors as _vc

_KINDS = ("array", "array", "weak", "device", "numpy", "list", "scalar")
_FLOATS = [0.0, -0.0, 1.0, -1.0, 0.3, -7.5, 1e-40, 6e-8, 65504.0, 1e38, np.inf, -np.inf, -np.nan,
           np.nan]


def _pool(dtype) -> list:
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return [0, 1]
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return [v for v in (int(info.min), -3, -1, 0, 1, 2, 7, int(info.max))
                if info.min <= v <= info.max]
    return _FLOATS


def _value(draw, dtype, shape):
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    raw = draw(st.lists(st.sampled_from(_pool(dtype)), min_size=n, max_size=n))
    with np.errstate(over="ignore", invalid="ignore"):
        if dtype.kind == "c":
            real = np.asarray(raw, np.float64).reshape(shape)
            out = np.empty(shape, dtype)
            out.real, out.imag = real, real.ravel()[::-1].reshape(shape)
            return out
        return np.asarray(raw, np.float64 if dtype.kind in "fV" else None).astype(
            dtype).reshape(shape)


def _as_input(value, kind):
    if kind == "scalar":
        if value.ndim == 0 and value.dtype.kind in "iuf":
            return value.item()
        kind = "array"
    return as_kind(value, kind)


@st.composite
def pairs(draw, shapes):
    """Two operands, mostly of one dtype and given as Arrays (the shortcut's case)."""
    dtype = draw(st.sampled_from(ALL_DTYPES))
    other = dtype if draw(st.integers(0, 4)) else draw(st.sampled_from(ALL_DTYPES))
    shape_a, shape_b = draw(shapes)
    a = _as_input(_value(draw, dtype, shape_a), draw(st.sampled_from(_KINDS)))
    b = _as_input(_value(draw, other, shape_b), draw(st.sampled_from(_KINDS)))
    return a, b


_ANY = st.sampled_from([(), (1,), (3,), (4,), (2, 3), (3, 2), (0,), (2, 0), (3, 3), (2, 1, 3)])
_TWO_SHAPES = st.tuples(_ANY, _ANY)
# Mostly aligned pairs of shapes (the products), sometimes anything.
_PRODUCT_SHAPES = st.one_of(
    st.sampled_from([((), ()), ((), (3,)), ((2, 3), ()), ((3,), (3,)), ((2, 3), (3,)),
                     ((3,), (3, 2)), ((2, 3), (3, 4)), ((2, 2, 3), (4, 3, 2)),
                     ((0,), (0,)), ((2, 0), (0, 3)), ((4, 3), (2, 3))]),
    _TWO_SHAPES)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([fnp.dot, fnp.inner, fnp.vdot, fnp.outer, fnp.linalg.outer]),
       pairs(_PRODUCT_SHAPES))
def test_dot_inner_vdot_outer_match_general_path(op, operands):
    a, b = operands
    assert_same_outcome(lambda: op(a, b))


_VECDOT_SHAPES = st.one_of(
    st.sampled_from([((3,), (3,)), ((2, 3), (3,)), ((4, 1, 3), (2, 3)), ((2, 3), (2, 3)),
                     ((3, 2), (3, 2)), ((0, 3), (3,)), ((2, 3), (4, 3))]),
    _TWO_SHAPES)


# Batches of vectors: the batched product (a batch and a length above 1), and the kernel's
# other cases (one vector, vectors of one element or none, a broadcast batch).
_BATCHED_VECDOT_SHAPES = st.sampled_from(
    [((2, 3), (2, 3)), ((4, 2), (4, 2)), ((2, 2, 3), (2, 2, 3)), ((3, 1), (3, 1)),
     ((1, 3), (1, 3)), ((2, 0), (2, 0)), ((1, 2, 3), (2, 1, 3)), ((3,), (2, 3))])


@settings(max_examples=100, deadline=None)
@given(st.sampled_from([fnp.vecdot, fnp.linalg.vecdot]), pairs(_BATCHED_VECDOT_SHAPES),
       st.sampled_from([-1, -1, 0, 1]))
def test_batched_vecdot_matches_general_path(op, operands, axis):
    a, b = operands
    assert_same_outcome(lambda: op(a, b, axis=axis))


def test_outer_on_both_sides_of_the_parallel_size_matches_general_path():
    # Below PARALLEL_MIN_ELEMENTS products the shortcut multiplies at once; from there on the
    # kernel splits the product over the cores.
    from funcarray.primitives._threads import PARALLEL_MIN_ELEMENTS
    rng = np.random.default_rng(0)
    for n in (PARALLEL_MIN_ELEMENTS // 1024 - 1, PARALLEL_MIN_ELEMENTS // 1024):
        a = fnp.asarray(rng.standard_normal(n).astype(np.float32))
        b = fa.device_put(fnp.asarray(rng.standard_normal(1024).astype(np.float32)))
        assert_same_outcome(lambda a=a, b=b: fnp.outer(a, b))
        assert_same_outcome(lambda a=a: fnp.outer(a[:3].reshape(3, 1), a[:4]))


@settings(max_examples=100, deadline=None)
@given(st.sampled_from([fnp.vecdot, fnp.linalg.vecdot]), pairs(_VECDOT_SHAPES),
       st.sampled_from([-1, 0, 1, -2, 2, 5]))
def test_vecdot_matches_general_path(op, operands, axis):
    a, b = operands
    assert_same_outcome(lambda: op(a, b, axis=axis))


_EINSUM_CASES = [
    ("...i,...i->...", (2, 3), (3,)), ("ij,jk->ik", (2, 3), (3, 4)), ("ij,jk", (2, 3), (3, 4)),
    ("ij,kj->ik", (2, 3), (4, 3)), ("i,i", (3,), (3,)), ("i,j->ij", (3,), (2,)),
    ("bij,bjk->bik", (2, 3, 4), (2, 4, 1)), ("ij,ij->i", (2, 3), (2, 3)),
    ("ij,jk->ki", (2, 3), (3, 4)), ("ii,i->i", (3, 3), (3,)), ("ij,j->", (2, 3), (3,)),
    ("ij,j->i", (2, 1), (3,)), ("...j,j->...", (2, 3, 3), (3,)), ("ij,jk->ik", (2, 3), (2, 4)),
    ("ij,jk->iz", (2, 3), (3, 4)), ("i,i,i->i", (3,), (3,)),
]


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(_EINSUM_CASES), st.data(),
       st.sampled_from(["auto", True, False, None, "greedy", "bad", 1, 0, [(0, 1)]]))
def test_einsum_matches_general_path(case, data, optimize):
    subscripts, *shapes = case
    a, b = data.draw(pairs(st.just(tuple(shapes[:2]))))
    operands = (a, b, b) if subscripts.count(",") == 2 else (a, b)
    if optimize == [(0, 1)] and len(operands) == 3:
        optimize = [(0, 1), (0, 1)]
    assert_same_outcome(lambda: fnp.einsum(subscripts, *operands, optimize=optimize))


_CROSS_SHAPES = st.one_of(
    st.sampled_from([((3,), (3,)), ((2,), (2,)), ((2,), (3,)), ((3,), (2,)), ((2, 3), (3,)),
                     ((4, 3), (4, 3)), ((3, 2), (3, 2)), ((3, 4), (3, 1)), ((2, 3), (4, 3)),
                     ((0, 3), (3,)), ((4,), (3,))]),
    _TWO_SHAPES)


@settings(max_examples=150, deadline=None)
@given(pairs(_CROSS_SHAPES), st.sampled_from([-1, 0, 1, -2, 2]),
       st.sampled_from([-1, 0, 1, -2, 2]), st.sampled_from([None, -1, 0, 1, -3, 3]))
def test_cross_matches_general_path(operands, axisa, axisc, axis):
    a, b = operands
    assert_same_outcome(lambda: fnp.cross(a, b, axisa=axisa, axisb=-1, axisc=axisc, axis=axis))
    assert_same_outcome(lambda: fnp.linalg.cross(a, b, axis=-1 if axis is None else axis))


_MATVEC_SHAPES = st.one_of(
    st.sampled_from([((2, 3), (3,)), ((3,), (3, 2)), ((0, 3), (3,)), ((2, 3), (2,)),
                     ((2, 2, 3), (3,))]),
    _TWO_SHAPES)


@settings(max_examples=80, deadline=None)
@given(st.sampled_from([fnp.matvec, fnp.vecmat]), pairs(_MATVEC_SHAPES))
def test_matvec_vecmat_match_general_path(op, operands):
    a, b = operands
    assert_same_outcome(lambda: op(a, b))
    assert_same_outcome(lambda: op(b, a))


def test_product_shortcuts_take_the_common_forms():
    x = fnp.asarray(np.arange(4.0, dtype=np.float32))
    m = fa.device_put(fnp.asarray(np.arange(16.0, dtype=np.float32).reshape(4, 4)))
    s = fnp.asarray(np.float32(2.0))
    p = _products_on_host
    for out in (p._dot_on_host(s, x), p._dot_on_host(m, x), p._inner_on_host(m, x),
                p._vdot_on_host(m, m), p._outer_on_host(x, x), p._vecdot_on_host(m, x),
                p._einsum_on_host("...i,...i->...", m, x), p._einsum_on_host("ij,jk", m, m),
                p._cross_on_host(m[:, :3], m[:, 1:]), _linalg_eig_and_tensor._cross_on_host(
                    m[:, :3], m[:, 1:]), _vc._matvec_on_host(m, x), _vc._vecmat_on_host(x, m)):
        assert out is not NotImplemented


_FFT_SHAPES = st.sampled_from([(1,), (2,), (4,), (5,), (2, 3), (3, 1), (0,), (), (2, 0)])


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([fnp.fft.fft, fnp.fft.ifft, fnp.fft.rfft, fnp.fft.irfft, fnp.fft.hfft,
                        fnp.fft.ihfft]),
       st.sampled_from(ALL_DTYPES), _FFT_SHAPES, st.sampled_from(_KINDS), st.data())
def test_one_axis_transforms_match_general_path(op, dtype, shape, kind, data):
    x = _as_input(_value(data.draw, dtype, shape), kind)
    n = data.draw(st.sampled_from([None, None, 3]))
    axis = data.draw(st.sampled_from([-1, -1, 0, 1, (0,)]))
    norm = data.draw(st.sampled_from([None, None, "backward", "ortho", "bad"]))
    assert_same_outcome(lambda: op(x, n=n, axis=axis, norm=norm))


@settings(max_examples=100, deadline=None)
@given(st.sampled_from([fnp.fft.fftfreq, fnp.fft.rfftfreq]),
       st.sampled_from([1, 2, 5, 8, 0, -1, 70001, np.int32(4), 2.0]),
       st.sampled_from([1.0, 0.5, 0.1, 3, 1e-30, 1e300, -2.0, 0.0, np.float32(0.1), [1.0]]),
       st.sampled_from([None, fnp.float32, fnp.float64, fnp.float16, fnp.bfloat16, fnp.int32,
                        fnp.complex64]))
def test_fft_frequencies_match_general_path(op, n, d, dtype):
    assert_same_outcome(lambda: op(n, d, dtype=dtype))


_FFTN_SHAPES = st.sampled_from([(1,), (4,), (5,), (2, 3), (3, 1), (1, 2), (2, 2, 3), (2, 1, 2),
                                (1, 1, 1, 2), (0,), (), (2, 0)])


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([fnp.fft.fftn, fnp.fft.ifftn, fnp.fft.rfftn, fnp.fft.irfftn]),
       st.sampled_from(ALL_DTYPES), _FFTN_SHAPES, st.sampled_from(_KINDS), st.data())
def test_n_axis_transforms_match_general_path(op, dtype, shape, kind, data):
    # The defaults (every axis, its own length: the shortcut's case, up to three axes) and
    # s, axes and norm that the general path handles (or rejects) itself.
    x = _as_input(_value(data.draw, dtype, shape), kind)
    s = data.draw(st.sampled_from([None, None, None, (3,), (0,)]))
    axes = data.draw(st.sampled_from([None, None, None, (0,), (-1,), 0]))
    norm = data.draw(st.sampled_from([None, None, "backward", "ortho", "bad"]))
    assert_same_outcome(lambda: op(x, s=s, axes=axes, norm=norm))


def test_fft_shortcuts_take_the_common_forms():
    from funcarray.numpy import _fft_on_host as f
    x = fa.device_put(fnp.asarray(np.arange(4.0, dtype=np.float32)))
    for rule in (f._fft_on_host, f._ifft_on_host, f._rfft_on_host, f._irfft_on_host,
                 f._hfft_on_host, f._ihfft_on_host):
        assert rule(x) is not NotImplemented
    assert f._fftfreq_on_host(8) is not NotImplemented
    assert f._rfftfreq_on_host(8, 0.5) is not NotImplemented
    cube = fa.device_put(fnp.asarray(np.arange(12.0, dtype=np.float32).reshape(2, 2, 3)))
    for rule in (f._fftn_on_host, f._ifftn_on_host, f._rfftn_on_host, f._irfftn_on_host):
        assert rule(x) is not NotImplemented
        assert rule(cube) is not NotImplemented


_POLY_SHAPES = st.sampled_from([((3,), (2,)), ((2,), (4,)), ((0,), (3,)), ((3,), (0,)),
                                ((4,), (4,)), ((2, 2), (3,)), ((), (2,)), ((1,), (1,))])


@settings(max_examples=120, deadline=None)
@given(st.sampled_from([fnp.polyadd, fnp.polysub]), pairs(_POLY_SHAPES))
def test_polyadd_polysub_match_general_path(op, operands):
    a, b = operands
    assert_same_outcome(lambda: op(a, b))


@settings(max_examples=120, deadline=None)
@given(st.sampled_from([fnp.polyder, fnp.polyint]), st.sampled_from(ALL_DTYPES),
       st.sampled_from([(0,), (1,), (3,), (5,), (), (2, 2)]), st.sampled_from(_KINDS),
       st.sampled_from([0, 1, 2, 3, 6, -1, 2.0]), st.data())
def test_polyder_polyint_match_general_path(op, dtype, shape, kind, m, data):
    p = _as_input(_value(data.draw, dtype, shape), kind)
    assert_same_outcome(lambda: op(p, m))
    if op is fnp.polyint:
        k = data.draw(st.sampled_from([1.5, [1.0]]))
        assert_same_outcome(lambda: op(p, m, k=k))


_CONV_SHAPES = st.sampled_from([((4,), (4,)), ((5,), (3,)), ((2,), (6,)), ((1,), (1,)),
                                ((1,), (4,)), ((0,), (3,)), ((3,), (0,)), ((), (3,)),
                                ((2, 2), (2,)), ((7,), (2,))])
_CONV_MODES = st.sampled_from(["full", "same", "valid", "valid", "bad"])


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([fnp.convolve, fnp.correlate]), pairs(_CONV_SHAPES), _CONV_MODES)
def test_convolve_correlate_match_general_path(op, operands, mode):
    a, v = operands
    assert_same_outcome(lambda: op(a, v, mode))


_CONV_DTYPE_PAIRS = [(np.float32, np.float32), (np.float64, np.float64),
                     (np.complex64, np.complex64), (np.complex128, np.complex128),
                     (np.float32, np.float64), (np.complex64, np.float64),
                     (np.float32, np.complex128)]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([fnp.convolve, fnp.correlate]), st.sampled_from(_CONV_DTYPE_PAIRS),
       st.integers(1, 40), st.integers(1, 40), st.sampled_from(["full", "same", "valid"]),
       st.sampled_from(["array", "device", "strided"]), st.integers(0, 2**32 - 1))
def test_convolve_correlate_of_ordinary_values_match_general_path(op, dtypes_, n, k, mode,
                                                                   kind, seed):
    # Values whose sums of products round (the einsum's loop, chosen by the operands'
    # strides, decides how), operands contiguous, strided views and device arrays.
    rng = np.random.default_rng(seed)

    def operand(dtype, size):
        value = rng.uniform(-2, 2, 2 * size) + (rng.uniform(-2, 2, 2 * size) * 1j
                                                 if np.dtype(dtype).kind == "c" else 0)
        value = fnp.asarray(value.astype(dtype))
        if kind == "strided":
            return value[::2]
        value = value[:size]
        return fa.device_put(value) if kind == "device" else value
    a, v = operand(dtypes_[0], n), operand(dtypes_[1], k)
    assert_same_outcome(lambda: op(a, v, mode))


def test_convolve_correlate_beyond_the_einsum_search_size_match_general_path():
    rng = np.random.default_rng(0)
    a = fnp.asarray(rng.uniform(-2, 2, 300).astype(np.float32))
    v = fnp.asarray(rng.uniform(-2, 2, 100).astype(np.float32))
    for op in (fnp.convolve, fnp.correlate):
        for mode in ("full", "same", "valid"):
            assert_same_outcome(lambda: op(a, v, mode))
            assert_same_outcome(lambda: op(v, a[::2], mode))


def test_convolve_correlate_shortcuts_take_the_common_forms():
    from funcarray.numpy import _convolve
    a = fnp.asarray(np.array([1.0, -2.0, 0.5, 3.0], np.float32))
    for v in (a[:3], fa.device_put(a), a.astype(fnp.complex64), a[::2]):
        for rule in (_convolve._convolve_on_host, _convolve._correlate_on_host):
            for mode in ("full", "same", "valid"):
                assert rule(a, v, mode) is not NotImplemented
                assert rule(v, a, mode) is not NotImplemented


_POLYVAL_SHAPES = st.sampled_from([((4,), ()), ((4,), (3,)), ((3,), (2, 3)), ((0,), (3,)),
                                   ((3, 2), (2,)), ((3, 2), (4, 1)), ((3, 2), (3,)),
                                   ((), (3,)), ((1,), (0,))])


@settings(max_examples=150, deadline=None)
@given(pairs(_POLYVAL_SHAPES), st.sampled_from([16, 1, 0]))
def test_polyval_matches_general_path(operands, unroll):
    p, x = operands
    assert_same_outcome(lambda: fnp.polyval(p, x, unroll=unroll))


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([np.float32, np.float64]), st.integers(1, 40), st.integers(0, 5),
       st.sampled_from([(), (3,)]), st.sampled_from(["array", "device", "strided"]),
       st.sampled_from(["none", "nan", "inf", "repeated"]), st.integers(0, 2**32 - 1))
def test_polyfit_matches_general_path(dtype, m, deg, columns, kind, special, seed):
    # Ordinary points (the solve rounds), fewer points than coefficients (rank-deficient
    # fits), repeated points, a NaN or an infinity (LAPACK's failure: NaN coefficients).
    rng = np.random.default_rng(seed)

    def operand(value):
        value = fnp.asarray(np.repeat(value, 2, axis=0) if kind == "strided" else value)
        if kind == "strided":
            return value[::2]
        return fa.device_put(value) if kind == "device" else value
    x = rng.uniform(-3, 3, m).astype(dtype)
    if special == "repeated":
        x[: m // 2] = x[0]
    elif special != "none":
        x[-1] = np.nan if special == "nan" else np.inf
    y = rng.uniform(-5, 5, (m, *columns)).astype(dtype)
    x, y = operand(x), operand(y)
    assert_same_outcome(lambda: fnp.polyfit(x, y, deg))


def test_polynomial_shortcuts_take_the_common_forms():
    from funcarray.numpy import _polynomial as poly
    p = fa.device_put(fnp.asarray(np.array([1.0, -2.0, 0.5, 3.0], np.float32)))
    x = fnp.asarray(np.arange(4.0, dtype=np.float32))
    for out in (poly._polyadd_on_host(p, x[:2]), poly._polysub_on_host(x[:2], p),
                poly._polyder_on_host(p), poly._polyint_on_host(p),
                poly._polyval_on_host(p, x), poly._polyval_on_host(p, x[0]),
                poly._polyfit_on_host(x, p, 2), poly._polyfit_on_host(p, fnp.ones((4, 2)), 1)):
        assert out is not NotImplemented


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([fnp.bartlett, fnp.blackman, fnp.hamming, fnp.hanning]),
       st.sampled_from([0, 1, 2, 3, 4, 5, 16, 17, 64, 1001, -1, 2.0, np.int32(5)]))
def test_windows_match_general_path(op, M):
    assert_same_outcome(lambda: op(M))


def test_window_shortcuts_take_the_common_forms():
    from funcarray.numpy import _numerics_stats as stats
    for formula in (stats._bartlett, stats._blackman, stats._hamming, stats._hanning):
        assert stats._window_on_host(4, formula) is not NotImplemented
        assert stats._window_on_host(64, formula) is not NotImplemented


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(ALL_DTYPES), st.sampled_from([(3, 3), (2, 3), (3, 2), (2, 2, 3), (0, 2),
                                                     (3,), (), (1, 1)]),
       st.sampled_from(_KINDS), st.sampled_from([0, 1, -1, 2, -5, 1.0]),
       st.sampled_from([None, fnp.float32, fnp.int32]), st.data())
def test_linalg_diagonal_and_trace_match_general_path(dtype, shape, kind, offset, dtype_, data):
    x = _as_input(_value(data.draw, dtype, shape), kind)
    assert_same_outcome(lambda: fnp.linalg.diagonal(x, offset=offset))
    assert_same_outcome(lambda: fnp.linalg.trace(x, offset=offset, dtype=dtype_))


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(ALL_DTYPES), st.sampled_from([(3, 3), (4,), (2, 2, 3), (0,), (), (1, 1)]),
       st.sampled_from(_KINDS), st.sampled_from([None, 2, "fro"]),
       st.sampled_from([None, 0, -1]), st.booleans(), st.data())
def test_linalg_norm_matches_general_path(dtype, shape, kind, ord_, axis, keepdims, data):
    x = _as_input(_value(data.draw, dtype, shape), kind)
    assert_same_outcome(lambda: fnp.linalg.norm(x, ord=ord_, axis=axis, keepdims=keepdims))


def test_linalg_shortcuts_take_the_common_forms():
    from funcarray.numpy import _linalg_solve as solve
    m = fa.device_put(fnp.asarray(np.arange(16.0, dtype=np.float32).reshape(4, 4)))
    for out in (solve._diagonal_on_host(m), solve._trace_on_host(m), solve._norm_on_host(m),
                solve._norm_on_host(m[0], keepdims=True)):
        assert out is not NotImplemented


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([fnp.partition, fnp.argpartition]), st.sampled_from(ALL_DTYPES),
       st.sampled_from([(5,), (1,), (2, 3), (3, 2), (0,), (), (2, 0)]), st.sampled_from(_KINDS),
       st.sampled_from([0, 1, 2, -1, 4, -6, 1.0]), st.sampled_from([-1, 0, 1, 2]), st.data())
def test_partition_argpartition_match_general_path(op, dtype, shape, kind, kth, axis, data):
    x = _as_input(_value(data.draw, dtype, shape), kind)
    assert_same_outcome(lambda: op(x, kth, axis=axis))


def test_argpartition_of_long_rows_with_ties_matches_general_path():
    # Rows long enough for NumPy's unstable sorts to reorder ties, with repeated values,
    # signed zeros and NaNs of both signs.
    rng = np.random.default_rng(1)
    pool = np.array([-0.0, 0.0, np.nan, -np.nan, 1.0, -1.0, 2.0], np.float32)
    for value in (rng.choice(pool, (3, 200)), rng.choice(pool, 200).astype(np.float16),
                  rng.integers(0, 4, (3, 200)).astype(np.uint8)):
        for kth in (0, 7, 199):
            assert_same_outcome(lambda v=value, k=kth: fnp.argpartition(fnp.asarray(v), k))
            assert_same_outcome(lambda v=value, k=kth: fnp.partition(fnp.asarray(v), k))


_PARTITION_POOLS = {
    "plain": [1.0, -1.0, 0.3, -7.5, 2.0, 1e-40, 65504.0, 1e38],
    "zeros": [1.0, -1.0, 0.0, -0.0, 2.0],
    "nans": [1.0, -1.0, np.nan, -np.nan, 2.0],
    "infinities": [1.0, np.inf, -np.inf, -2.0],
}


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([fnp.partition, fnp.argpartition]),
       st.sampled_from([np.float32, np.float64, np.float16, fnp.bfloat16, np.uint8, np.bool_]),
       st.sampled_from([(16,), (17,), (4, 4), (2, 8), (1, 17), (3, 6), (2,)]),
       st.sampled_from(sorted(_PARTITION_POOLS)), st.sampled_from(["array", "device"]),
       st.integers(0, 20), st.sampled_from([-1, 0]), st.data())
def test_partition_around_the_few_elements_size_matches_general_path(
        op, dtype, shape, pool, kind, kth, axis, data):
    # Both sides of _FEW_ELEMENTS (16), with ties, signed zeros, NaNs of both signs and
    # infinities, and arrays that hold none of them (NumPy's order is then the total order).
    n = int(np.prod(shape))
    raw = data.draw(st.lists(st.sampled_from(_PARTITION_POOLS[pool]), min_size=n, max_size=n))
    with np.errstate(over="ignore", invalid="ignore"):
        value = np.asarray(raw, np.float64).astype(dtype).reshape(shape)
    x = as_kind(value, kind)
    assert_same_outcome(lambda: op(x, kth % shape[axis], axis=axis))


def test_partition_shortcuts_take_the_common_forms():
    x = fa.device_put(fnp.asarray(np.array([[5.0, 1.0, -0.0, 0.0], [np.nan, 2.0, 3.0, 1.0]],
                                           np.float32)))
    plain = fnp.asarray(np.array([5.0, 1.0, 4.0, 2.0], np.float32))
    for rule in (_vc._partition_on_host, _vc._argpartition_on_host):
        assert rule(x, 1) is not NotImplemented
        assert rule(x, 0, axis=0) is not NotImplemented
        assert rule(plain, 2) is not NotImplemented


_SLICES = st.sampled_from([slice(0, 4), slice(4), slice(1, 8, 3), slice(5, 0, -2), slice(0, 0),
                           slice(2, None), slice(0, 3, 0), slice(0, 1.5), slice(-3, 3),
                           slice(2**31 - 2, 2**31 + 1), slice(0, 1, 0.5), slice(0, 1, 3j),
                           slice(True, 3)])


@settings(max_examples=100, deadline=None)
@given(st.lists(_SLICES, max_size=3))
def test_mgrid_ogrid_match_general_path(slices):
    key = tuple(slices)
    assert_same_outcome(lambda: fnp.mgrid[key])
    assert_same_outcome(lambda: fnp.ogrid[key])


def test_grid_shortcut_takes_the_common_forms():
    from funcarray.numpy import _index_tricks
    assert _index_tricks._int_grids_on_host((slice(0, 4), slice(0, 4))) is not None


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(ALL_DTYPES), st.sampled_from([(4,), (2, 4), (3, 2), (1, 1), (1,), (0,),
                                                     (2, 0), (0, 3), (), (2, 2, 2)]),
       st.sampled_from(_KINDS), st.sampled_from([None, 0, 2, 1.0]), st.booleans(), st.data())
def test_cov_corrcoef_match_general_path(dtype, shape, kind, ddof, rowvar, data):
    x = _as_input(_value(data.draw, dtype, shape), kind)
    assert_same_outcome(lambda: fnp.cov(x, ddof=ddof, rowvar=rowvar))
    assert_same_outcome(lambda: fnp.corrcoef(x, rowvar=rowvar))


def test_cov_shortcuts_take_the_common_forms():
    from funcarray.numpy import _numerics_stats as stats
    x = fa.device_put(fnp.asarray(np.arange(8.0, dtype=np.float32).reshape(2, 4) ** 2))
    for out in (stats._cov_on_host(x), stats._cov_on_host(x[0]), stats._corrcoef_on_host(x),
                stats._corrcoef_on_host(x[0])):
        assert out is not NotImplemented


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(ALL_DTYPES), st.sampled_from([(6,), (1,), (2, 3), (0,), (), (3, 0),
                                                     (70,), (9, 10)]),
       st.sampled_from(_KINDS), st.data())
def test_sort_complex_matches_general_path(dtype, shape, kind, data):
    # (up to 64 elements the shortcut sorts stably at once, beyond only where it must)
    x = _as_input(_value(data.draw, dtype, shape), kind)
    assert_same_outcome(lambda: fnp.sort_complex(x))


def test_sort_complex_shortcut_takes_the_common_forms():
    x = fa.device_put(fnp.asarray(np.array([3.0, -0.0, np.nan, 0.0, 1.0], np.float32)))
    assert _vc._sort_complex_on_host(x) is not NotImplemented
    # Long rows (NumPy's unstable sort is not an insertion sort there) with signed zeros and
    # NaNs of both signs, and without them.
    rng = np.random.default_rng(0)
    mixed = rng.choice(np.array([-0.0, 0.0, np.nan, -np.nan, 1.0, -1.0], np.float32), (4, 300))
    for value in (mixed, rng.standard_normal((4, 300)).astype(np.float32)):
        assert_same_outcome(lambda v=value: fnp.sort_complex(fnp.asarray(v)))


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([fnp.poly, fnp.roots]), st.sampled_from(ALL_DTYPES),
       st.sampled_from([(4,), (1,), (2,), (3,), (0,), (), (2, 2), (2, 3)]),
       st.sampled_from(_KINDS), st.data())
def test_poly_roots_match_general_path(op, dtype, shape, kind, data):
    x = _as_input(_value(data.draw, dtype, shape), kind)
    assert_same_outcome(lambda: op(x))


def test_poly_roots_shortcuts_take_the_common_forms():
    from funcarray.numpy import _polynomial as poly
    p = fa.device_put(fnp.asarray(np.array([0.0, 1.0, -3.0, 2.0], np.float32)))
    assert poly._poly_on_host(p) is not NotImplemented
    assert poly._roots_on_host(p) is not NotImplemented


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(ALL_DTYPES), st.sampled_from([(4,), (1,), (0,), (), (2, 2)]),
       st.sampled_from(_KINDS), st.sampled_from([None, 0, 1, 3, 5, -1, 2.0]), st.booleans(),
       st.data())
def test_vander_matches_general_path(dtype, shape, kind, n, increasing, data):
    x = _as_input(_value(data.draw, dtype, shape), kind)
    assert_same_outcome(lambda: fnp.vander(x, n, increasing=increasing))


def test_vander_shortcut_takes_the_common_forms():
    from funcarray.numpy import _polynomial as poly
    x = fa.device_put(fnp.asarray(np.arange(4.0, dtype=np.float32)))
    assert poly._vander_on_host(x, 4) is not NotImplemented
    assert poly._vander_on_host(x, increasing=True) is not NotImplemented


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(ALL_DTYPES), min_size=1, max_size=3),
       st.sampled_from([(5,), (1,), (2, 3), (0,), (), (3, 0)]), st.sampled_from(_KINDS),
       st.sampled_from([-1, 0, 1, 2]), st.sampled_from([list, tuple]), st.data())
def test_lexsort_matches_general_path(key_dtypes, shape, kind, axis, container, data):
    keys = container(_as_input(_value(data.draw, dt, shape), kind) for dt in key_dtypes)
    assert_same_outcome(lambda: fnp.lexsort(keys, axis=axis))


def test_lexsort_shortcut_takes_the_common_forms():
    x = fa.device_put(fnp.asarray(np.array([[3.0, -0.0, np.nan], [0.0, 1.0, 1.0]], np.float32)))
    assert _vc._lexsort_on_host((x[0], x[1])) is not NotImplemented
    assert _vc._lexsort_on_host([x, x], axis=0) is not NotImplemented


_SPACE_BOUNDS = st.sampled_from([0.0, 1.0, -2.5, 0.1, 3.0, 1e-30, 40.0, -0.0, np.inf, np.nan, 2,
                                 np.float32(1.5)])


@settings(max_examples=200, deadline=None)
@given(_SPACE_BOUNDS, _SPACE_BOUNDS, st.sampled_from([0, 1, 2, 4, 7, 50, -1]), st.booleans(),
       st.sampled_from([10.0, 2.0, 0.5, -2.0, 10]), st.sampled_from([None, fnp.float32]),
       st.sampled_from([0, -1, 1]))
def test_logspace_matches_general_path(start, stop, num, endpoint, base, dtype, axis):
    assert_same_outcome(lambda: fnp.logspace(start, stop, num, endpoint=endpoint, base=base,
                                             dtype=dtype, axis=axis))


def test_logspace_shortcut_takes_the_common_forms():
    assert _vc._logspace_on_host(0.0, 1.0, 4) is not NotImplemented
    assert _vc._logspace_on_host(0.0, 3.0, 50, endpoint=False) is not NotImplemented


@settings(max_examples=200, deadline=None)
@given(_SPACE_BOUNDS, _SPACE_BOUNDS, st.sampled_from([0, 1, 2, 4, 7, 50, -1]), st.booleans(),
       st.sampled_from([None, fnp.float32, fnp.int32]), st.sampled_from([0, -1, 1]))
def test_geomspace_matches_general_path(start, stop, num, endpoint, dtype, axis):
    assert_same_outcome(lambda: fnp.geomspace(start, stop, num, endpoint=endpoint, dtype=dtype,
                                              axis=axis))


def test_geomspace_shortcut_takes_the_common_forms():
    assert _vc._geomspace_on_host(1.0, 2.0, 4) is not NotImplemented
    assert _vc._geomspace_on_host(-1.0, -100.0, 50, endpoint=False) is not NotImplemented


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(ALL_DTYPES), st.sampled_from([(4,), (1,), (2, 3), (0,), ()]),
       st.sampled_from(_KINDS), st.sampled_from([8, 1, 3, 0, -2, 2.0]), st.data())
def test_histogram_bin_edges_matches_general_path(dtype, shape, kind, bins, data):
    x = _as_input(_value(data.draw, dtype, shape), kind)
    assert_same_outcome(lambda: fnp.histogram_bin_edges(x, bins=bins))
    assert_same_outcome(lambda: fnp.histogram_bin_edges(x, bins=bins, range=(0.0, 2.0)))


def test_histogram_bin_edges_shortcut_takes_the_common_forms():
    from funcarray.numpy import _numerics_stats as stats
    x = fa.device_put(fnp.asarray(np.array([[1.0, 5.0], [2.0, -1.0]], np.float32)))
    assert stats._histogram_bin_edges_on_host(x, bins=8) is not NotImplemented
    assert stats._histogram_bin_edges_on_host(x[0, :1]) is not NotImplemented
