"""The fast paths and host shortcuts of the elementwise math functions give exactly the
general path's outcome (``tests/shortcut_oracle.py``): the binary functions that bind at once
for two arrays of one dtype (``true_divide``, ``power``, ``float_power``, ``fmod``), and the
shortcuts that evaluate a composite's formula with the primitives' NumPy kernels
(``floor_divide``, ``remainder``, ``divmod``) or with NumPy functions of the same bits. Every
dtype, the integer limits, NaN, infinities, signed zeros, division by zero, broadcasting and
operands as Arrays, weak arrays, device arrays, NumPy arrays, lists and Python scalars. The
last tests check that the shortcuts take the common forms themselves."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from op_table import ALL_DTYPES
from shortcut_oracle import assert_same_outcome, outcome
from test_slow_op_shortcuts import _as_input, _values, operands

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.base.array import Array
from funcarray.numpy import _rounding_and_division as division

_SHAPES = st.sampled_from([(), (1,), (3,), (2, 3)])
_KINDS = ("array", "weak", "device", "numpy", "list", "scalar")


@st.composite
def operand_pairs(draw, dtypes=ALL_DTYPES):
    """Two operands: mostly of one dtype and shape (the fast paths' case), else any two."""
    if draw(st.booleans()):
        return draw(operands(dtypes)), draw(operands(dtypes))
    dtype = np.dtype(draw(st.sampled_from(dtypes)))
    shape = draw(_SHAPES)
    kinds = st.sampled_from(_KINDS)
    return (_as_input(_values(draw, dtype, shape), draw(kinds)),
            _as_input(_values(draw, dtype, shape), draw(kinds)))


_BINARY = [fnp.true_divide, fnp.power, fnp.float_power, fnp.fmod, fnp.floor_divide, fnp.fmax,
           fnp.fmin, fnp.remainder, fnp.divmod]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(_BINARY), operand_pairs())
def test_binary_functions_match_general_path(op, pair):
    x, y = pair
    assert_same_outcome(lambda: op(x, y))


@pytest.mark.parametrize("op", [division._floor_divide_on_host, division._remainder_on_host,
                                division._divmod_on_host])
@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.float16, np.float32,
                                   np.float64])
def test_division_shortcuts_take_common_forms(op, dtype):
    x = fnp.asarray(np.arange(-3, 3).astype(dtype) if np.dtype(dtype).kind != "u"
                    else np.arange(6).astype(dtype))
    for y in (x[::-1], fa.device_put(x[::-1]), 2):
        assert op(x, y) is not NotImplemented
    assert op(fa.device_put(x), 3) is not NotImplemented


def _general_binds(op, x, y):
    """What the binary functions with a fast path compute without it (their general path,
    written out): the promoted operands bound to the primitive."""
    from funcarray.numpy._elementwise import _bool_to_int
    from funcarray.numpy._promotion import promote_args, promote_args_inexact
    from funcarray.primitives import elementwise as ew
    prim, promote, prepare = {
        "true_divide": (ew.div_p, promote_args_inexact, lambda a: a),
        "float_power": (ew.pow_p, promote_args_inexact, lambda a: a),
        "power": (ew.pow_p, promote_args, _bool_to_int),
        "fmod": (ew.rem_p, promote_args, _bool_to_int),
    }[op.__name__]
    x, y = promote(op.__name__, x, y)
    return prim.bind(prepare(x), prepare(y))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([fnp.true_divide, fnp.power, fnp.float_power, fnp.fmod]),
       st.sampled_from([d for d in ALL_DTYPES if d != fnp.bool_]), _SHAPES,
       st.sampled_from(["array", "weak", "device"]), st.data())
def test_binary_fast_paths_match_their_general_binds(op, dtype, shape, kind, data):
    # The fast path (two arrays of one dtype and shape) runs with the shortcuts on and off,
    # so the oracle cannot see it: compare it with the general path's binds instead.
    if op is fnp.fmod and np.dtype(dtype).kind == "c":
        return
    x, y = (_as_input(_values(data.draw, np.dtype(dtype), shape), kind) for _ in range(2))
    # ... and mixed operands: another dtype, shape or a Python scalar (promote_binary's
    # fast paths stand in for the general promotion)
    other = data.draw(st.one_of(operands(), st.sampled_from([2, -1, 0.5, -0.0, 1e300, 2**40,
                                                              True])))
    for a, b in ((x, y), (x, other), (other, y)):
        if op is fnp.power and type(b) is int:
            continue  # (a Python int exponent: integer_pow, not these binds)
        outcomes = [outcome(lambda: op(a, b)), outcome(lambda: _general_binds(op, a, b))]
        if "error" in (outcomes[0][0], outcomes[1][0]):
            assert outcomes[0][:2] == outcomes[1][:2], outcomes
            continue
        got, want = outcomes[0][1], outcomes[1][1]
        assert (got.dtype, got.shape, got.weak_type) == (want.dtype, want.shape,
                                                           want.weak_type)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


_UNARY = [fnp.imag, fnp.angle, fnp.sinc, fnp.reciprocal, fnp.isinf, fnp.isnan, fnp.isfinite,
          fnp.logical_not, fnp.bitwise_count, fnp.iscomplex, fnp.modf, fnp.spacing, fnp.log2,
          fnp.log10]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(_UNARY), operands())
def test_unary_functions_match_general_path(op, x):
    assert_same_outcome(lambda: op(x))


@settings(max_examples=60, deadline=None)
@given(operand_pairs())
def test_heaviside_and_shifts_match_general_path(pair):
    x, y = pair
    assert_same_outcome(lambda: fnp.heaviside(x, y))
    assert_same_outcome(lambda: fnp.right_shift(x, y))
    assert_same_outcome(lambda: fnp.left_shift(x, y))


@settings(max_examples=80, deadline=None)
@given(st.sampled_from([fnp.deg2rad, fnp.rad2deg]), operands())
def test_angle_conversions_match_general_path(op, x):
    assert_same_outcome(lambda: op(x))


_EDGE_FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 1e-40, -1e-45, 3e38, -3e38, 1e308,
                2.0**21, -(2.0**21) - 1, 7e15, np.inf, -np.inf, np.nan, -np.nan]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([fnp.hypot, fnp.logaddexp, fnp.logaddexp2, fnp.heaviside,
                        fnp.remainder, fnp.floor_divide, fnp.divmod, fnp.fmax, fnp.fmin]),
       st.sampled_from([np.float32, np.float64]),
       st.sampled_from([((), ()), ((4,), (4,)), ((4,), ()), ((), (3,)), ((2, 3), (2, 3)),
                        ((2, 3), (3,)), ((20,), (20,)), ((5, 4), ())]),
       st.sampled_from(["array", "device", "weak", "scalar"]), st.data())
def test_float_shortcuts_fast_paths_match_general_path(op, dtype, shapes, kind, data):
    # The shortcuts' fast paths (NumPy scalars for 0-d operands, the formulas without their
    # selects, NumPy's functions where no NaN or bound says otherwise) against the general
    # path on the values that send them back to the full formula: NaN, infinities, zeros of
    # either sign, subnormals, overflowing and huge quotients, mixed in one array or alone.
    def operand(shape, kind):
        values = np.asarray(data.draw(st.lists(st.sampled_from(_EDGE_FLOATS),
                                               min_size=int(np.prod(shape)),
                                               max_size=int(np.prod(shape)))))
        with np.errstate(over="ignore"):
            value = values.astype(dtype).reshape(shape)
        if kind == "scalar" and value.ndim == 0:
            return float(value)
        return _as_input(value, "array" if kind == "scalar" else kind)
    x, y = operand(shapes[0], "array"), operand(shapes[1], kind)
    if data.draw(st.booleans()):
        x, y = y, x
    assert_same_outcome(lambda: op(x, y))


def test_unary_shortcuts_take_common_forms():
    from funcarray.numpy._elementwise import _float_test_on_host, _reciprocal_on_host
    from funcarray.numpy._introspection_and_io import _iscomplex_on_host, _isreal_on_host
    from funcarray.numpy._math_functions import (
        _angle_on_host,
        _heaviside_on_host,
        _imag_on_host,
        _sinc_on_host,
    )
    from funcarray.numpy._numerics import _modf_on_host
    from funcarray.numpy._predicates_and_bits import (
        _bitwise_count_on_host,
        _logical_not_on_host,
    )
    x = fnp.asarray(np.float32([0.5, -0.0, np.inf]))
    z = fnp.asarray(np.complex64([1 + 2j, 0j]))
    i = fnp.asarray(np.int32([7, -7]))
    float_tests = [_float_test_on_host(np.isinf, False), _float_test_on_host(np.isnan, False),
                   _float_test_on_host(np.isfinite, True)]
    for operand in (x, fa.device_put(x), z):
        for rule in (_imag_on_host, _angle_on_host, _sinc_on_host, _reciprocal_on_host,
                     _logical_not_on_host, _iscomplex_on_host, _isreal_on_host, *float_tests):
            assert rule(operand) is not NotImplemented, rule
    for rule in float_tests:
        assert rule(i) is not NotImplemented
    assert _modf_on_host(x) is not NotImplemented
    assert _bitwise_count_on_host(i) is not NotImplemented
    assert _heaviside_on_host(x, x) is not NotImplemented
    from funcarray.numpy._math_functions import _scaled_on_host
    from funcarray.numpy._predicates_and_bits import _right_shift_on_host
    for operand in (x, fa.device_put(x), fnp.asarray(np.float64(2.0)), z):
        assert _scaled_on_host(2.0)(operand) is not NotImplemented
    for y in (i, fa.device_put(i), 3):
        assert _right_shift_on_host(i, y) is not NotImplemented
    from funcarray.numpy._elementwise import _scaled_log_on_host
    for operand in (x, fa.device_put(x), fnp.asarray(np.float64(2.0))):
        assert _scaled_log_on_host(0.5)(operand) is not NotImplemented
    assert _heaviside_on_host(x, 0.5) is not NotImplemented


@settings(max_examples=100, deadline=None)
@given(operands(), st.sampled_from([None, "int8", "uint8", "int32", "uint32", "int64", "uint64",
                                    "float16", "float32", "bool", int, float, np.int16,
                                    "not a dtype"]))
def test_astype_matches_general_path(x, dtype):
    # Floats inside and outside every integer range (saturated), NaN, infinities, empty.
    assert_same_outcome(lambda: fnp.astype(x, dtype))


def test_astype_shortcut_takes_float_to_integer_casts():
    from funcarray.numpy._array_ops import _astype_on_host
    for value in (np.float32(2.7), np.float32([1.5, -2.5, 3.0]), np.float64([[1e9]])):
        x = fnp.asarray(value)
        for dtype in ("int32", np.int64, fnp.uint8):
            assert _astype_on_host(x, dtype) is not NotImplemented


@pytest.mark.parametrize("src", ["bool", "int8", "uint16", "int64", "float16", "bfloat16",
                                 "float32", "complex64", "float64"])
@pytest.mark.parametrize("casting", ["safe", "same_kind", "unsafe"])
def test_can_cast_named_dtypes_as_dtypes(src, casting):
    from funcarray.numpy._dtype_info import _can_cast
    for dst in ("int32", "uint8", "float32", "complex128", "bool"):
        want = _can_cast(src, dst, casting)
        assert fnp.can_cast(src, dst, casting) is want
        assert fnp.can_cast(fnp.dtype(src), fnp.dtype(dst), casting) is want
    with pytest.raises(TypeError, match="can_cast"):
        fnp.can_cast(src, "not a dtype", casting)


@pytest.mark.parametrize("a", [3.0, [[1, 2, 3]], np.zeros((2, 0, 4)), fnp.zeros((5, 3)),
                               fnp.zeros(()), []])
def test_size_counts_elements(a):
    got = fnp.size(a)
    assert type(got) is int and got == np.size(np.asarray(a))
    assert fnp.size(fa.device_put(fnp.asarray(a))) == got


@settings(max_examples=40, deadline=None)
@given(st.booleans(), operand_pairs())
def test_where_of_a_numpy_bool_matches_general_path(which, pair):
    from funcarray.numpy._elementwise import _where_on_host
    x, y = pair
    assert_same_outcome(lambda: fnp.where(np.bool_(which), x, y))
    assert _where_on_host(np.bool_(which), fnp.ones(()), fnp.zeros(())) is not NotImplemented


@settings(max_examples=80, deadline=None)
@given(st.sampled_from([fnp.hypot, fnp.logaddexp, fnp.logaddexp2]), operand_pairs())
def test_float_formulas_match_general_path(op, pair):
    x, y = pair
    assert_same_outcome(lambda: op(x, y))


def test_float_formula_shortcuts_take_common_forms():
    from funcarray.numpy._math_functions import _hypot_on_host
    x = fnp.asarray(np.float32([3.0, -0.0, np.inf]))
    for y in (x, fa.device_put(x), 2.0):
        assert _hypot_on_host(x, y) is not NotImplemented
    from funcarray.numpy._elementwise import _logaddexp_on_host
    for rule in (_logaddexp_on_host(None), _logaddexp_on_host(np.log(2))):
        for y in (x, fa.device_put(x), 2.0):
            assert rule(x, y) is not NotImplemented


@settings(max_examples=60, deadline=None)
@given(operands(), st.sampled_from([None, True, False]))
def test_from_dlpack_matches_general_path(x, copy):
    assert_same_outcome(lambda: fnp.from_dlpack(x, copy=copy))


def test_from_dlpack_shortcut_takes_arrays():
    from funcarray.numpy._introspection_and_io import _from_dlpack_on_host
    x = fnp.arange(3.0)
    for operand in (x, fa.device_put(x), Array(np.float32(2.0), True)):
        out = _from_dlpack_on_host(operand)
        assert out is not NotImplemented and not out.weak_type


_PHASES = st.one_of(st.sampled_from([0.0, -0.0, np.pi, -np.pi, 3 * np.pi, 7.0, -9.5, 1e6,
                                     np.inf, -np.inf, np.nan]),
                    st.floats(-20, 20))


@settings(max_examples=80, deadline=None)
@given(st.sampled_from([np.float16, np.float32, np.float64]),
       st.lists(_PHASES, max_size=6), st.sampled_from([(-1,), (2, -1), (-1, 2)]),
       st.sampled_from([-1, 0, 1, -2, 5]), st.sampled_from([None, 0.5, 3, np.pi]),
       st.sampled_from([2 * np.pi, 6, 5.5, 360.0]), st.sampled_from(["array", "weak",
                                                                      "device"]))
def test_unwrap_matches_general_path(dtype, phases, layout, axis, discont, period, kind):
    values = np.asarray(phases, np.float64)
    if layout != (-1,):
        values = np.stack([values, values[::-1]]).reshape(layout) if values.size else (
            np.zeros(tuple(0 if d == -1 else d for d in layout)))
    with np.errstate(over="ignore"):
        p = _as_input(values.astype(dtype), kind)
    assert_same_outcome(lambda: fnp.unwrap(p, discont, axis, period))


def test_unwrap_shortcut_takes_common_forms():
    from funcarray.numpy._numerics import _unwrap_on_host
    x = fnp.asarray(np.float32([[0.0, 5.0, 10.0], [1.0, -6.0, 0.5]]))
    for args in ((x,), (x, None, 0), (x, 1.0, -1, 6.0), (fa.device_put(x),)):
        assert _unwrap_on_host(*args) is not NotImplemented


@settings(max_examples=80, deadline=None)
@given(st.sampled_from([np.float16, np.float32, np.float64]),
       st.sampled_from([(0,), (1,), (2,), (5,), (3, 4), (2, 0), (2, 3, 2)]),
       st.sampled_from([None, -1, 0, 1, 2, -3, (0,)]), st.sampled_from([None, 1, 2]),
       st.sampled_from(["array", "weak", "device", "list"]), st.data())
def test_gradient_and_trapezoid_match_general_path(dtype, shape, axis, edge_order, kind,
                                                   data):
    values = _values(data.draw, np.dtype(dtype), shape)
    f = _as_input(values, kind)
    if axis is None or type(axis) is int:
        assert_same_outcome(lambda: fnp.trapezoid(f, axis=-1 if axis is None else axis))
        assert_same_outcome(lambda: fnp.trapezoid(f, dx=0.1, axis=-1 if axis is None else axis))
    assert_same_outcome(lambda: fnp.gradient(f, axis=axis, edge_order=edge_order))


def test_gradient_and_trapezoid_shortcuts_take_common_forms():
    from funcarray.numpy._numerics import _gradient_on_host, _trapezoid_on_host
    x = fnp.asarray(np.float32([[0.0, 5.0, 10.0], [1.0, -6.0, 0.5]]))
    for operand in (x, fa.device_put(x)):
        assert _gradient_on_host(operand) is not NotImplemented
        assert _gradient_on_host(operand, axis=-1) is not NotImplemented
        assert _trapezoid_on_host(operand) is not NotImplemented
        assert _trapezoid_on_host(operand, dx=0.5, axis=0) is not NotImplemented


_ENDPOINTS = st.one_of(st.sampled_from([0.0, -0.0, 1.0, 1e-45, 3e38, -3e38, 1e300, np.inf,
                                        np.nan, 0, 7, -2**31, 2**31, 2**31 - 1, True, 1j]),
                       st.floats(-1e6, 1e6), st.integers(-100, 100))


@settings(max_examples=100, deadline=None)
@given(_ENDPOINTS, _ENDPOINTS, st.sampled_from([0, 1, 2, 3, 4, 50, -1]),
       st.sampled_from([True, False]), st.sampled_from([None, "float32", "int32"]),
       st.sampled_from([0, -1, 1]))
def test_linspace_matches_general_path(start, stop, num, endpoint, dtype, axis):
    assert_same_outcome(lambda: fnp.linspace(start, stop, num, endpoint, dtype=dtype,
                                             axis=axis))


@pytest.mark.parametrize("n", [-2, 0, 1, 4, 4096, 2.0, True])
def test_arange_of_a_count_matches_general_path(n):
    from funcarray.numpy._creation import _arange_on_host, _linspace_on_host
    assert_same_outcome(lambda: fnp.arange(n))
    assert_same_outcome(lambda: fnp.arange(n, dtype="float32"))
    assert _arange_on_host(4) is not NotImplemented
    assert _linspace_on_host(0.0, 1.0, 5) is not NotImplemented
    assert _linspace_on_host(-2, 3, 64) is not NotImplemented


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([np.float32, np.float64]), _SHAPES, st.data())
def test_remainder_of_floats_matches_general_path(dtype, shape, data):
    # NumPy's remainder stands in for the formula where it is not NaN: every special value
    # (both NaN, one NaN, zero divisors, infinities, signed zeros) against the general path.
    x, y = (fnp.asarray(_values(data.draw, np.dtype(dtype), shape)) for _ in range(2))
    assert_same_outcome(lambda: fnp.remainder(x, y))
    assert_same_outcome(lambda: fnp.divmod(x, y))


def test_division_of_floats_is_numpys_where_it_agrees_on_many_values():
    # Random bit patterns (every class of float) and near-multiples (quotients near the
    # bounds where NumPy's rounding of the quotient parts from the formula's), compared bit
    # for bit with the general path's formula on the same values.
    from funcarray.numpy._rounding_and_division import (
        _ON_HOST,
        _divmod_values,
        _floor_divide,
        _floor_divide_values,
        _remainder,
        _remainder_values,
    )
    rng = np.random.default_rng(22)
    for dtype, bits in ((np.float32, np.uint32), (np.float64, np.uint64)):
        x = rng.integers(0, np.iinfo(bits).max, 20000, dtype=bits, endpoint=True).view(dtype)
        y = rng.integers(0, np.iinfo(bits).max, 20000, dtype=bits, endpoint=True).view(dtype)
        with np.errstate(all="ignore"):
            near = (y * rng.integers(-2**20, 2**20, 20000)
                    + rng.standard_normal(20000)).astype(dtype)
            huge = (y * rng.integers(-2**24, 2**24, 20000)).astype(dtype)
        small = rng.standard_normal(20000).astype(dtype)
        for a, b in ((x, y), (near, y), (huge, y), (near, small), (huge[:4], y[:4]),
                     (x[:1].reshape(()), y[:1].reshape(())),
                     (near[:1].reshape(()), y[:1].reshape(()))):
            with np.errstate(all="ignore"):
                pairs = [(_remainder_values(a, b, _ON_HOST), _remainder(a, b, _ON_HOST)),
                         (_floor_divide_values(a, b, _ON_HOST), _floor_divide(a, b, _ON_HOST))]
                pairs += zip(_divmod_values(a, b, _ON_HOST), (pairs[1][1], pairs[0][1]))
            for got, want in pairs:
                np.testing.assert_array_equal(got, want)
                np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([fnp.gcd, fnp.lcm]),
       st.sampled_from([d for d in ALL_DTYPES if np.dtype(d).kind in "iu"]),
       st.sampled_from([(), (1,), (4,), (2, 4), (3, 3)]), st.sampled_from(_KINDS[:3]),
       st.data())
def test_gcd_lcm_of_small_arrays_match_general_path(op, dtype, shape, kind, data):
    # NumPy's gcd/lcm of the promoted operands; the integer limits (the most negative
    # integer's magnitude, products that wrap) included.
    x1, x2 = (_as_input(_values(data.draw, np.dtype(dtype), shape), kind) for _ in range(2))
    assert_same_outcome(lambda: op(x1, x2))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
def test_gcd_lcm_of_every_pair_of_bytes_match_general_path(dtype):
    # NumPy's gcd and lcm stand in for Euclid's loop on the magnitudes as unsigned numbers,
    # and their results wrap into the dtype as the general path's do: every pair of values.
    values = np.arange(np.iinfo(dtype).min, np.iinfo(dtype).max + 1).astype(dtype)
    x1, x2 = (fnp.asarray(v.ravel()) for v in np.meshgrid(values, values))
    for op in (fnp.gcd, fnp.lcm):
        assert_same_outcome(lambda op=op: op(x1, x2))
        assert_same_outcome(lambda op=op: op(fa.device_put(x1[:7]), -3))


def test_gcd_lcm_shortcuts_take_common_forms():
    from funcarray.numpy._numerics import _gcd_on_host, _lcm_on_host
    x, y = fnp.asarray(np.int32([4, 6, 0, -8])), fnp.asarray(np.int32([6, 4, 5, 12]))
    for rule in (_gcd_on_host, _lcm_on_host):
        for a, b in ((x, y), (fa.device_put(x[0]), y[0]), (x, 3), (x[:1], y),
                     (x, fnp.asarray(np.int8([3])))):
            assert rule(a, b) is not NotImplemented


def test_ldexp_of_float32_and_float64_is_the_formula_on_many_values():
    # NumPy's ldexp stands in for the formula (frexp, exponent sum, m * 2**e): random bit
    # patterns (NaN, infinities, subnormals, signed zeros) and exponents past every range,
    # against the general path.
    rng = np.random.default_rng(7)
    for dtype, bits in ((np.float32, np.uint32), (np.float64, np.uint64)):
        x = rng.integers(0, np.iinfo(bits).max, 4000, dtype=bits, endpoint=True).view(dtype)
        for low, high in ((-1200, 1200), (-40, 40)):
            e = rng.integers(low, high, 4000).astype(np.int32)
            for a, b in ((x, e), (x[:4], e[:4].astype(np.int8)), (x[0], e[0])):
                assert_same_outcome(lambda a=a, b=b: fnp.ldexp(fnp.asarray(a), fnp.asarray(b)))


def test_spacing_of_every_float32_class_matches_general_path():
    # Random bit patterns: zeros, subnormals, the largest finite, infinities, NaN.
    rng = np.random.default_rng(3)
    for dtype, bits in ((np.float32, np.uint32), (np.float64, np.uint64)):
        x = rng.integers(0, np.iinfo(bits).max, 3000, dtype=bits, endpoint=True).view(dtype)
        special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan], dtype)
        x = np.concatenate([x, special, [np.finfo(dtype).max, -np.finfo(dtype).max,
                                         np.finfo(dtype).smallest_subnormal]]).astype(dtype)
        assert_same_outcome(lambda x=x: fnp.spacing(fnp.asarray(x)))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("size", [0, 1, 4, 16, 17])
def test_spacing_of_each_edge_value_in_small_arrays_matches_general_path(dtype, size):
    # Up to 16 values NumPy's spacing stands in unless an infinity or -0.0 is among them; one
    # edge value among ordinary ones, at each position, 0-d and 1-d, on both sides of 16.
    edges = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, np.finfo(dtype).max,
             -np.finfo(dtype).smallest_subnormal, 1.0, -1.0]
    for edge in edges:
        assert_same_outcome(lambda edge=edge: fnp.spacing(fnp.asarray(np.array(edge, dtype))))
        for position in range(size):
            x = np.linspace(-3, 3, size).astype(dtype)
            x[position] = edge
            assert_same_outcome(lambda x=x: fnp.spacing(fnp.asarray(x)))
