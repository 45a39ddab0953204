"""The host shortcuts of ``trunc``, ``signbit``, ``isposinf``, ``isneginf``, ``copysign``,
``fmax``, ``fmin``, ``gcd``, ``lcm``, ``frexp``, ``ldexp``, ``spacing``, ``nonzero`` (and
``flatnonzero`` and ``argwhere`` through it), ``packbits``, ``unpackbits``, ``digitize``,
``searchsorted``, ``bincount``, ``put``, ``place``, ``lax.optimization_barrier``,
``lax.stop_gradient``, ``lax.stack``, ``lax.bessel_i0e``/``i1e``, ``lax.zeta``,
``lax.igamma``/``igammac`` and ``lax.betainc`` give the general path's outcome
(``tests/shortcut_oracle.py``): the same result (type, shape, dtype, weak type, bits) or the
same error, for every dtype, the integer limits (the most negative integer, whose absolute
value wraps), mixed dtypes, special floats (NaN, infinities, -0.0, subnormals, the largest
finite), exponents past the float range, broadcasting and mismatched shapes, and operands given
as Arrays, weak arrays, device arrays, NumPy arrays, lists and Python scalars. The last tests
check that the shortcuts take the common forms themselves."""

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from op_table import ALL_DTYPES
from shortcut_oracle import assert_same_outcome

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import lax
from funcarray.api.autodiff import _stop_gradient_on_host
from funcarray.base.array import Array, DeviceArray
from funcarray.lax._composed_shape_ops import _stack_on_host as _lax_stack_on_host
from funcarray.lax._utilities import _optimization_barrier_on_host
from funcarray.numpy import _numerics
from funcarray.numpy._manipulation import _place_on_host, _put_on_host
from funcarray.numpy._math_functions import _copysign_on_host
from funcarray.numpy._numerics_stats import _digitize_on_host
from funcarray.numpy._rounding_and_division import _rint_on_host, _trunc_on_host
from funcarray.numpy._search import _bincount_on_host, _searchsorted_on_host
from funcarray.numpy._sort_and_nonzero import _argwhere_on_host, _nonzero_on_host
from funcarray.numpy._vectorize_and_constructors import _packbits_on_host, _unpackbits_on_host

_KINDS = ("array", "weak", "device", "numpy", "list", "scalar")
_FLOATS = [0.0, -0.0, 1.0, -1.0, 0.3, -7.5, 1e-40, -3e-39, 5e-324, 6e-8, 3e-5, 65504.0,
           1e38, np.inf, -np.inf, np.nan, -np.nan]
_FLOAT_DTYPES = (fnp.float16, fnp.float32, fnp.float64)
_SHAPES = st.sampled_from([(), (1,), (3,), (2, 3)])


def _integers(dtype) -> list[int]:
    if np.dtype(dtype).kind == "b":
        return [0, 1]
    info = np.iinfo(dtype)
    return [int(info.min), int(info.min) + 1, -12, -1, 0, 1, 6, 18, 97, int(info.max)]


def _values(draw, dtype, shape):
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    if dtype.kind in "biu":
        pool = [v for v in _integers(dtype) if dtype.kind != "u" or v >= 0]
        return np.asarray(draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)),
                          dtype).reshape(shape)
    with np.errstate(over="ignore"):
        values = np.asarray(draw(st.lists(st.sampled_from(_FLOATS), min_size=n, max_size=n)),
                            np.float64).reshape(shape)
        if dtype.kind == "c":
            out = np.empty(shape, dtype)
            out.real, out.imag = values, values.ravel()[::-1].reshape(shape)
            return out
        return values.astype(dtype)


_MAKERS = {
    "array": fnp.asarray,
    "weak": lambda value: Array(value.copy(), True),
    "device": lambda value: fa.device_put(fnp.asarray(value)),
    "numpy": lambda value: value,
    "list": np.ndarray.tolist,
}


def _as_input(value: np.ndarray, kind: str):
    """``value`` given as ``kind`` (a Python scalar only for 0-d integers and floats)."""
    if kind == "scalar":
        return value.item() if value.ndim == 0 and value.dtype.kind in "iuf" else (
            fnp.asarray(value))
    return _MAKERS[kind](value)


@st.composite
def operands(draw, dtypes=ALL_DTYPES, kinds=_KINDS):
    dtype = draw(st.sampled_from(dtypes))
    value = _values(draw, fnp.dtype(dtype), draw(_SHAPES))
    return _as_input(value, draw(st.sampled_from(kinds)))


_INTEGER_DTYPES = tuple(d for d in ALL_DTYPES if np.dtype(d).kind in "iu")


@settings(max_examples=60)
@given(st.sampled_from([fnp.trunc, fnp.rint, fnp.signbit, fnp.isposinf, fnp.isneginf]),
       operands())
def test_trunc_rint_and_sign_predicates_match_general_path(op, x):
    assert_same_outcome(lambda: op(x))


_BESSEL_VALUES = st.one_of(st.sampled_from([0.0, -0.0, 24.9, 25.0, 25.1, -30.0, 700.0, 1e30,
                                            np.inf, -np.inf, np.nan]),
                          st.floats(-60, 60))


@settings(max_examples=40)
@given(st.sampled_from([lax.bessel_i0e, lax.bessel_i1e]), st.sampled_from(_FLOAT_DTYPES),
       st.lists(_BESSEL_VALUES, max_size=4), st.sampled_from(_KINDS))
def test_bessel_formulas_on_numpy_kernels_match_general_path(op, dtype, values, kind):
    # The series, the switch at |x| = 25, the asymptotic series, infinities and NaN.
    with np.errstate(over="ignore"):
        x = np.asarray(values, np.float64).astype(dtype)
    assert_same_outcome(lambda: op(_as_input(x, kind)))


_ZETA_VALUES = st.one_of(st.sampled_from([1.0, 2.0, 0.5, -2.0, 0.0, -1.5, 30.0, np.inf, np.nan]),
                         st.floats(-5, 40))


@settings(max_examples=60)
@given(st.sampled_from([lax.zeta, lax.igamma, lax.igammac]), st.sampled_from(_FLOAT_DTYPES),
       st.lists(st.tuples(_ZETA_VALUES, _ZETA_VALUES), max_size=4), st.sampled_from(_KINDS))
def test_two_operand_formulas_on_numpy_kernels_match_general_path(op, dtype, pairs, kind):
    # zeta's poles (q a non-positive integer), x <= 1 and Euler-Maclaurin sum; igamma's
    # series and continued fraction (their loops), domain errors; NaN, infinities.
    x, q = (np.asarray([p[i] for p in pairs], np.float64).astype(dtype) for i in (0, 1))
    assert_same_outcome(lambda: op(_as_input(x, kind), _as_input(q, kind)))


@settings(max_examples=40)
@given(st.sampled_from(_FLOAT_DTYPES),
       st.lists(st.tuples(_ZETA_VALUES, _ZETA_VALUES,
                          st.one_of(st.sampled_from([0.0, 1.0, 0.5, -0.1, 1.5, np.nan]),
                                    st.floats(0, 1))), max_size=4),
       st.sampled_from(_KINDS))
def test_betainc_formula_on_numpy_kernels_matches_general_path(dtype, triples, kind):
    # Both sides of the symmetry point, the special lanes (a or b zero or infinite, x at 0
    # or 1), domain errors, NaN; log_beta's Stirling branches for large a and b.
    a, b, x = (np.asarray([t[i] for t in triples], np.float64).astype(dtype) for i in range(3))
    assert_same_outcome(lambda: lax.betainc(*(_as_input(v, kind) for v in (a, b, x))))


@settings(max_examples=60)
@given(st.sampled_from([fnp.copysign, fnp.fmax, fnp.fmin]), operands(), st.data())
def test_copysign_fmax_fmin_match_general_path(op, x, data):
    # Mostly one float dtype (the shortcut's case), sometimes any operand.
    if data.draw(st.booleans()):
        value = np.asarray(x)
        y = _as_input(value[::-1] if value.ndim else value, "array")
    else:
        y = data.draw(operands())
    assert_same_outcome(lambda: op(x, y))


@settings(max_examples=40)
@given(st.sampled_from([fnp.gcd, fnp.lcm]), st.data())
def test_gcd_lcm_match_general_path(op, data):
    # Mostly integers (the result is then computed), sometimes any dtype (an error).
    pool = data.draw(st.sampled_from([_INTEGER_DTYPES, ALL_DTYPES]))
    x1, x2 = data.draw(operands(pool)), data.draw(operands(pool))
    assert_same_outcome(lambda: op(x1, x2))


@settings(max_examples=30)
@given(st.sampled_from([fnp.frexp, fnp.spacing]), operands())
def test_frexp_spacing_match_general_path(op, x):
    assert_same_outcome(lambda: op(x))


@settings(max_examples=40)
@given(operands(_FLOAT_DTYPES + (fnp.int32, fnp.complex64)), st.data())
def test_ldexp_matches_general_path(x1, data):
    # Exponents past every float's range (float16's -24 and 15, float64's -1074 and 1023).
    exponent_pool = st.sampled_from([-1080, -1074, -150, -149, -126, -30, -25, -24, -1, 0, 1, 3,
                                     15, 16, 127, 128, 1023, 1024, 2000])
    shape = data.draw(_SHAPES)
    e = np.asarray(data.draw(st.lists(exponent_pool, min_size=int(np.prod(shape)),
                                      max_size=int(np.prod(shape)))), np.int32).reshape(shape)
    dtype = data.draw(st.sampled_from([np.int8, np.int16, np.int32, np.uint8, np.bool_,
                                       np.float32]))
    with np.errstate(over="ignore"):
        x2 = _as_input(e.astype(dtype), data.draw(st.sampled_from(_KINDS)))
    assert_same_outcome(lambda: fnp.ldexp(x1, x2))


@settings(max_examples=20)
@given(st.lists(operands(), max_size=3), st.sampled_from([list, tuple, dict, "leaf"]),
       st.sampled_from([lax.optimization_barrier, lax.stop_gradient]))
def test_optimization_barrier_and_stop_gradient_match_general_path(leaves, container, op):
    if container == "leaf":
        operand = leaves[0] if leaves else None
    elif container is dict:
        operand = {str(i): leaf for i, leaf in enumerate(leaves)}
    else:
        operand = container(leaves)
    assert_same_outcome(lambda: op(operand))


@settings(max_examples=40)
@given(st.data(), st.integers(1, 3), st.integers(-3, 3), st.sampled_from([list, tuple]))
def test_lax_stack_matches_general_path(data, count, axis, container):
    # One dtype (mostly) and one shape (mostly), or a mismatch: the general path's error.
    pool = data.draw(st.sampled_from([(fnp.float32,), (fnp.int8,), ALL_DTYPES]))
    first = data.draw(operands(pool))
    rest = [data.draw(st.one_of(st.just(first), operands(pool))) for _ in range(count - 1)]
    assert_same_outcome(lambda: lax.stack(container([first, *rest]), axis=axis))


@settings(max_examples=30)
@given(st.sampled_from([fnp.nonzero, fnp.flatnonzero, fnp.argwhere]), operands(),
       st.sampled_from([{}, {"size": 2}, {"size": 3, "fill_value": -1}]))
def test_nonzero_matches_general_path(op, a, kwargs):
    assert_same_outcome(lambda: op(a, **kwargs))


def test_argwhere_of_empty_and_0d_arrays_matches_general_path():
    for value in (np.zeros((0,)), np.ones((2, 0), np.int8), np.float32(0), np.float32(np.nan),
                  np.array(True), np.zeros((0, 3), bool)):
        for a in (fnp.asarray(value), fa.device_put(fnp.asarray(value))):
            assert_same_outcome(lambda: fnp.argwhere(a))


@settings(max_examples=40)
@given(operands(ALL_DTYPES + (fnp.uint8,) * 8),
       st.sampled_from([None, 0, 1, -1, 2, -3, 1.0]),
       st.sampled_from([None, 0, 3, 8, 20, -2]), st.sampled_from(["big", "little", "middle"]))
def test_packbits_unpackbits_match_general_path(a, axis, count, bitorder):
    assert_same_outcome(lambda: fnp.packbits(a, axis, bitorder))
    assert_same_outcome(lambda: fnp.unpackbits(a, axis, count, bitorder))


@settings(max_examples=40)
@given(st.data(), st.sampled_from([None, "sorted", "reversed"]), st.booleans())
def test_digitize_matches_general_path(data, order, right):
    # Ordered edges (either way), unordered ones, NaN among them, and dtypes that differ
    # between x and bins now and then.
    x = data.draw(operands())
    dtype = data.draw(st.sampled_from(ALL_DTYPES))
    edges = _values(data.draw, fnp.dtype(dtype), data.draw(st.sampled_from([(0,), (1,), (4,),
                                                                            (2, 2)])))
    if order is not None and edges.ndim == 1 and edges.dtype.kind != "c":
        edges = np.sort(edges) if order == "sorted" else np.sort(edges)[::-1]
    bins = _as_input(edges, data.draw(st.sampled_from(_KINDS)))
    assert_same_outcome(lambda: fnp.digitize(x, bins, right))


@settings(max_examples=60)
@given(st.data(), st.sampled_from(["sorted", "unsorted"]), st.sampled_from(["left", "right"]),
       st.sampled_from(["scan", "compare_all", "sort"]))
def test_searchsorted_matches_general_path(data, order, side, method):
    # Sorted pivots (NaN, infinities and signed zeros among them), unsorted ones, 2-d ones,
    # queries of another dtype or a Python scalar now and then.
    dtype = data.draw(st.sampled_from(ALL_DTYPES))
    pivots = _values(data.draw, fnp.dtype(dtype), data.draw(st.sampled_from([(0,), (1,), (5,),
                                                                             (2, 2)])))
    if order == "sorted" and pivots.ndim == 1 and pivots.dtype.kind != "c":
        pivots = np.sort(pivots)
    a = _as_input(pivots, data.draw(st.sampled_from(_KINDS)))
    v = data.draw(operands())
    assert_same_outcome(lambda: fnp.searchsorted(a, v, side, method=method))


@settings(max_examples=100)
@given(st.data(), st.sampled_from([(1,), (2,), (15,), (16,), (17,), (24,)]),
       st.sampled_from(["sorted", "one swap", "unsorted", "NaN before a number"]),
       st.sampled_from(["left", "right"]))
def test_searchsorted_around_the_few_pivots_size_matches_general_path(data, shape, order, side):
    # Both sides of _FEW_PIVOTS (16): pivots whose order is read from their Python numbers
    # (ties, signed zeros, infinities of both signs, NaN) and from NumPy's comparison.
    dtype = data.draw(st.sampled_from([fnp.float32, fnp.float64, fnp.float16, fnp.int32,
                                       fnp.uint8, fnp.bool_]))
    pivots = np.sort(_values(data.draw, fnp.dtype(dtype), shape))
    if order == "one swap" and shape[0] > 1:
        i = data.draw(st.integers(0, shape[0] - 2))
        pivots[[i, i + 1]] = pivots[[i + 1, i]]
    elif order == "unsorted":
        pivots = pivots[data.draw(st.permutations(range(shape[0])))]
    elif order == "NaN before a number" and shape[0] > 1 and pivots.dtype.kind == "f":
        # (Python's sort leaves such a list as it is: the NaN must be found on its own)
        pivots[-2:] = [np.nan, pivots[-2]]
    a = _as_input(pivots, data.draw(st.sampled_from(["array", "device"])))
    # (several queries: NumPy narrows each search from the previous query's, so on unsorted
    # pivots its answers differ from the general path's)
    queries = _values(data.draw, fnp.dtype(dtype), data.draw(st.sampled_from([(), (4,), (2, 3)])))
    v = _as_input(queries, "array")
    assert_same_outcome(lambda: fnp.searchsorted(a, v, side))


def test_searchsorted_of_pivots_with_a_nan_among_numbers_matches_general_path():
    # Python's sort leaves these lists as they are (every comparison with NaN is False), and
    # NumPy's search, which narrows each query's interval from the last one's, answers them
    # differently from the general path's: the shortcut must see the NaN.
    cases = [([-1.0, 0.0, 1.0, 1.0, np.nan, 1.0], [0.5, 2.0]),
             ([-1.0, -1.0, 0.0, 1.0, 1.0, 1.0, np.nan, 2.0], [3.0, np.nan])]
    for pivots, queries in cases:
        for size in (len(pivots), 17):  # (both sides of _FEW_PIVOTS)
            padded = [-2.0] * (size - len(pivots)) + pivots
            for dtype in (np.float16, np.float32, np.float64):
                for place in (fnp.asarray, fa.device_put):
                    a = place(np.asarray(padded, dtype))
                    v = fnp.asarray(np.asarray(queries, dtype))
                    assert_same_outcome(lambda a=a, v=v: fnp.searchsorted(a, v))


@settings(max_examples=40)
@given(operands(), st.sampled_from([0, 3, 9, -1, 2.5]),
       st.sampled_from([None, 0, 4, 20, -2]))
def test_bincount_matches_general_path(x, minlength, length):
    # Any dtype (integers counted, the most negative in bin 0; others an error), values past
    # length dropped, bad lengths, 0-d and 2-d operands (an error). Without a length the
    # count is as long as the largest value: only small ones then (2**31 bins is 8 GB).
    if length is None:
        with np.errstate(all="ignore"):
            assume(not (np.abs(np.asarray(x)).astype(np.float64) >= 1000).any())
    assert_same_outcome(lambda: fnp.bincount(x, minlength=minlength, length=length))


@settings(max_examples=40)
@given(operands(), st.data(), st.sampled_from([None, "clip", "wrap", "raise"]))
def test_put_matches_general_path(a, data, mode):
    # Positions in and out of range, negative and repeated (few, listed in Python by the
    # shortcut, or more than 16, reduced by NumPy); values cycled, cut, converted.
    positions = np.asarray(data.draw(st.one_of(
        st.lists(st.integers(-8, 8), max_size=5),
        st.lists(st.integers(-30, 30), min_size=17, max_size=20))))
    dtype = data.draw(st.sampled_from([np.int32, np.int8, np.uint8, np.float32]))
    with np.errstate(invalid="ignore"):
        ind = _as_input(positions.astype(dtype), data.draw(st.sampled_from(_KINDS)))
    v = data.draw(st.one_of(operands(), st.sampled_from([2, 2.5, True, 300])))
    assert_same_outcome(lambda: fnp.put(a, ind, v, mode, inplace=False))


@settings(max_examples=30)
@given(operands(), operands(), st.one_of(operands(), st.sampled_from([2, 2.5, True, 300])),
       st.booleans())
def test_place_matches_general_path(arr, mask, vals, inplace):
    assert_same_outcome(lambda: fnp.place(arr, mask, vals, inplace=inplace))


def test_shortcuts_take_common_forms():
    ints = fnp.asarray(np.array([-128, -12, 0, 18], np.int8))
    for x in (ints, fa.device_put(ints)):
        for shortcut in (_numerics._gcd_on_host, _numerics._lcm_on_host):
            assert type(shortcut(x, ints)) is Array
            assert type(shortcut(x, 4)) is Array
            assert type(shortcut(x, fnp.asarray(np.int32(6)))) is Array  # mixed dtypes
    for dtype in _FLOAT_DTYPES:
        x = fnp.asarray(np.array([0.3, -0.0, np.inf, np.nan]), dtype)
        for x in (x, fa.device_put(x)):
            assert type(x) in (Array, DeviceArray)
            m, e = _numerics._frexp_on_host(x)
            assert type(m) is Array and type(e) is Array
            assert type(_numerics._spacing_on_host(x)) is Array
            assert type(_trunc_on_host(x)) is Array
            assert type(_rint_on_host(x)) is Array
            assert type(_copysign_on_host(x, x)) is Array
            assert type(_numerics._ldexp_on_host(x, fnp.asarray([1, -2, 3, 0]))) is Array
    x = fnp.arange(3.0)
    d = fa.device_put(x)
    assert _optimization_barrier_on_host(x) is x and _optimization_barrier_on_host(d) is d
    assert _stop_gradient_on_host(x) is x and _stop_gradient_on_host(d) is d
    assert type(_lax_stack_on_host([x, d], axis=-1)) is Array
    tree = _optimization_barrier_on_host({"a": x, "b": (d, x)})
    assert tree["a"] is x and tree["b"][0] is d  # the same leaves, as the general path's
    for x in (fnp.asarray([[0.0, -0.0, np.nan], [1.0, 0.0, 2.0]]), fa.device_put(ints)):
        assert all(type(i) is Array for i in _nonzero_on_host(x))
        assert type(_argwhere_on_host(x)) is Array
    bits = fnp.asarray(np.array([[1, 0, 3], [0, 7, 0]], np.uint8))
    for x in (bits, fa.device_put(bits)):
        assert type(_packbits_on_host(x)) is Array
        assert type(_packbits_on_host(x, -1, "little")) is Array
        assert type(_unpackbits_on_host(x)) is Array
        assert type(_unpackbits_on_host(x, 0, 3, "little")) is Array
    edges = fnp.asarray([0.0, 1.0, 2.5])
    counted = fnp.asarray(np.array([3, -2, 0, 3], np.int8))
    for x in (counted, fa.device_put(counted)):
        assert type(_bincount_on_host(x)) is Array
        assert type(_bincount_on_host(x, minlength=9, length=2)) is Array
    for pivots in (edges, fa.device_put(edges)):
        assert type(_searchsorted_on_host(pivots, fnp.asarray([0.5, 3.0]))) is Array
        assert type(_searchsorted_on_host(pivots, 1, "right")) is Array
    for x in (fnp.asarray([0.5, -0.0, np.nan, 9.0]), fa.device_put(fnp.asarray([1.0, 3.0]))):
        assert type(_digitize_on_host(x, edges)) is Array
        assert type(_digitize_on_host(x, edges[::-1], right=True)) is Array
    a = fnp.zeros((2, 3))
    for x in (a, fa.device_put(a)):
        assert type(_put_on_host(x, fnp.asarray([0, 4]), 7.0, inplace=False)) is Array
        assert type(_put_on_host(x, fnp.asarray([9, -1]), fnp.asarray([1.0, 2.0]), "clip",
                                 inplace=False)) is Array
        assert type(_put_on_host(x, fnp.asarray([-2]), 1, "wrap", inplace=False)) is Array
        assert type(_put_on_host(x, [0, 1], [1.0, 2.0], inplace=False)) is Array  # lists
        assert type(_place_on_host(x, [[1, 0, 1], [0, 0, 1]], [1.0], inplace=False)) is Array
        mask = fnp.asarray([[True, False, True], [False, False, True]])
        assert type(_place_on_host(x, mask, fnp.asarray([1.0, 2.0]), inplace=False)) is Array
        assert type(_place_on_host(x, fnp.arange(6.0), 3, inplace=False)) is Array
