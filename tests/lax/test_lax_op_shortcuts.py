"""The host shortcuts of lax's wrappers give the general path's outcome
(``tests/shortcut_oracle.py``): elementwise ``reciprocal``, ``round``, ``conj``, ``clz``,
``convert_element_type``, ``bitcast_convert_type``, ``reduce_precision``, ``integer_pow`` and
``mulhi``; the shape operations (``reshape``, ``transpose``, ``squeeze``, ``expand_dims``,
``collapse``, ``rev``, ``concatenate``, ``broadcast``/``broadcast_in_dim``,
``broadcast_to_rank``, ``tile``, ``unstack``, ``split``, ``index_take``) and creators (``iota``,
``broadcasted_iota``, ``empty``, ``full``, ``full_like``); the products (``dot``,
``batch_matmul``, ``scaled_dot``, ``ragged_dot``); ``rng_uniform``, ``reduce_window`` and
``conv_general_dilated_patches``. The unchecked fast paths of ``pow``, ``nextafter``, ``select``
and ``clamp`` (which bind, under every engine) give the checked path's. Each: the same result
(type, shape, dtype, weak type, bits) or the same error, for every dtype, special values (NaN,
infinities, -0.0, ties of rounding, the integer limits), shapes from 0-d to empty, operands
given as Arrays, weak arrays, device arrays, NumPy arrays and scalars, lists and Python scalars,
and bad arguments. The tests named ``..._take_the_common_forms`` check that the shortcuts take
the common forms."""

from unittest import mock

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from op_table import ALL_DTYPES
from shortcut_oracle import assert_same_outcome, outcome

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import lax
from funcarray.base.array import Array
from funcarray.lax import _ops_binary

_KINDS = ("array", "weak", "device", "numpy", "numpy_scalar", "list", "scalar")
_FLOATS = [0.0, -0.0, 0.5, -0.5, 1.5, -2.5, 0.49999997, 1.0, -1.0, 0.3, -7.5, 1e-40, 6e-8,
           65504.0, 2.0**31, -2.0**31, 3e9, 1e38, np.inf, -np.inf, np.nan, -np.nan]
_SHAPES = st.sampled_from([(), (1,), (3,), (2, 3), (0,), (2, 0)])


def _pool(dtype) -> list:
    """The values an operand of ``dtype`` is drawn from: the limits and small numbers of an
    integer dtype, the special floats otherwise."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return [False, True]
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return [v for v in (int(info.min), int(info.min) + 1, -7, -1, 0, 1, 2, 7, 100,
                            int(info.max)) if v >= info.min]
    return _FLOATS


def _values(draw, dtype, shape) -> np.ndarray:
    items = draw(st.lists(st.sampled_from(_pool(dtype)), min_size=int(np.prod(shape)),
                          max_size=int(np.prod(shape))))
    if np.dtype(dtype).kind in "biu":
        return np.asarray(items, dtype).reshape(shape)
    if np.dtype(dtype).kind == "c":  # (the imaginary parts: the values reversed)
        items = [complex(re, im) for re, im in zip(items, reversed(items))]
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(items).astype(dtype).reshape(shape)


def _as_input(value: np.ndarray, kind: str):
    if kind == "scalar":
        return value.item() if value.ndim == 0 and value.dtype.kind in "iuf" else (
            fnp.asarray(value))
    if kind == "numpy_scalar":
        return value[()] if value.ndim == 0 else value
    return {"array": fnp.asarray, "weak": lambda v: Array(v.copy(), True),
            "device": lambda v: fa.device_put(fnp.asarray(v)), "numpy": lambda v: v,
            "list": np.ndarray.tolist}[kind](value)


@st.composite
def operands(draw, dtypes=ALL_DTYPES, kinds=_KINDS, shape=None):
    dtype = draw(st.sampled_from(dtypes))
    value = _values(draw, dtype, draw(_SHAPES) if shape is None else shape)
    return _as_input(value, draw(st.sampled_from(kinds)))


_DTYPE_ARGS = st.sampled_from(list(ALL_DTYPES) + [float, int, bool, "float32", "int4x"])


@settings(max_examples=120, deadline=None)
@given(st.sampled_from([lax.reciprocal, lax.round, lax.conj, lax.clz, lax.sign,
                        lax.population_count, lax.exp]), operands())
def test_unary_ops_match_general_path(op, x):
    assert_same_outcome(lambda: op(x))


@settings(max_examples=80, deadline=None)
@given(operands(), st.sampled_from([0, 1, 2, 3, 7, -1, -2, True, 2.0, 2.5, "2", np.int64(3)]))
def test_integer_pow_matches_general_path(x, y):
    assert_same_outcome(lambda: lax.integer_pow(x, y))


@settings(max_examples=40, deadline=None)
@given(operands(), st.sampled_from([0, 1, lax.RoundingMethod.TO_NEAREST_EVEN, True, 2, "x"]))
def test_round_methods_match_general_path(x, method):
    assert_same_outcome(lambda: lax.round(x, method))


@settings(max_examples=80, deadline=None)
@given(operands(), _DTYPE_ARGS)
def test_conversions_match_general_path(x, dtype):
    assert_same_outcome(lambda: lax.convert_element_type(x, dtype))
    assert_same_outcome(lambda: lax.bitcast_convert_type(x, dtype))


def test_float_to_integer_conversions_at_the_bounds_match_general_path():
    # The floats next to each integer dtype's limits (saturated or cast), as vectors and 0-d.
    for source in (np.float16, np.float32, np.float64):
        for target in ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
                       "uint64"):
            info = np.iinfo(target)
            for bound in (info.min, info.max):
                near = []
                with np.errstate(over="ignore"):
                    for toward in (np.inf, -np.inf):
                        value = np.asarray(float(bound), source)
                        for _ in range(3):  # (the bound itself, then two steps away)
                            near.append(value)
                            value = np.nextafter(value, np.asarray(toward, source))
                values = np.asarray(near, source)
                for value in (values, values[:1].reshape(()), values[1:2], values[3:]):
                    x = fnp.asarray(value)
                    assert_same_outcome(lambda x=x, t=target: lax.convert_element_type(x, t))


def test_round_ties_and_clz_limits_match_general_path():
    with np.errstate(over="ignore"):
        for dtype in (np.float16, np.float32, np.float64):
            x = np.asarray([0.5, -0.5, 2.5, -3.5, 0.49999997, -0.0, 1e30, np.inf, np.nan],
                           np.float64).astype(dtype)
            for values in (x, x[2:3], x[4:]):
                assert_same_outcome(lambda v=values: lax.round(fnp.asarray(v)))
    for dtype in ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"):
        info = np.iinfo(dtype)
        x = np.asarray([info.min, info.max, 0, 1, 2**(info.bits // 2)], dtype)
        assert_same_outcome(lambda v=x: lax.clz(fnp.asarray(v)))


def test_float_to_signed_integer_conversions_of_many_values_match_general_path():
    # Beyond 8 values a sum of squares stands in for the two reductions where it holds every
    # value below half the bound: values near either side of that, at the bounds, and NaN.
    rng = np.random.default_rng(5)
    for source in (np.float16, np.float32, np.float64):
        for target in ("int8", "int16", "int32", "int64", "uint8", "uint32"):
            high = float(np.iinfo(target).max)
            for scale in (0.01, 0.2, 0.49, 0.51, 1.0, 1.01):
                with np.errstate(over="ignore"):
                    values = (rng.uniform(-1, 1, 12) * high * scale).astype(source)
                for x in (values, values.reshape(3, 4), np.append(values, np.nan)):
                    assert_same_outcome(
                        lambda x=x, t=target: lax.convert_element_type(fnp.asarray(x), t))


def test_unary_ops_of_numpy_scalars_are_those_of_their_arrays():
    # The general path of an entry takes a NumPy scalar as the strong Array it stands for.
    from funcarray.lax import _ops_unary as u
    for op, value in ((lax.real, np.complex64(1 - 2j)), (lax.imag, np.complex128(-0.0 + 3j)),
                      (lax.exp, np.float32(0.5)), (lax.neg, np.int32(-7)),
                      (lax.abs, np.uint8(3)), (lax.sin, np.int32(1)),
                      (lax.sqrt, np.float64(2.0))):
        fast = outcome(lambda op=op, value=value: op(value))
        with mock.patch.object(u, "_concrete", lambda x: None):
            checked = outcome(lambda op=op, value=value: op(value))
        if fast[0] == "error" or checked[0] == "error":
            assert fast[:2] == checked[:2]
        else:
            assert _bits(fast[1]) == _bits(checked[1])


def test_unary_shortcuts_take_the_common_forms():
    from funcarray.lax import _ops_unary as u

    x, c, i = fnp.asarray([0.5, 1.5]), fnp.asarray([1 + 2j]), fnp.asarray([1, 7])
    for rule, args in ((u._reciprocal_on_host, (x,)), (u._round_on_host, (x,)),
                       (u._conj_on_host, (c,)), (u._conj_on_host, (np.complex64(1j),)),
                       (u._conj_on_host, (x,)), (u._clz_on_host, (i,)),
                       (u._clz_on_host, (fa.device_put(i),)),
                       (u._convert_element_type_on_host, (x, np.int32)),
                       (u._bitcast_convert_type_on_host, (x, np.int32)),
                       (u._integer_pow_on_host, (x, 3)), (u._integer_pow_on_host, (i, 2)),
                       (u._integer_pow_on_host, (fa.device_put(x), -2))):
        assert rule(*args) is not NotImplemented, rule.__name__


def _bits(result):
    value = np.asarray(result)
    return (type(result), value.shape, value.dtype, result.weak_type,
            value.reshape(-1).view(np.uint8).tobytes())


def assert_same_as_checked_path(call):
    """``call()`` ends as it does with the binary ops' unchecked fast paths turned off."""
    fast = outcome(call)
    with mock.patch.object(_ops_binary, "_plain_pair", lambda *args: False), \
            mock.patch.object(_ops_binary, "_concrete", lambda x: None):
        checked = outcome(call)
    if fast[0] == "error" or checked[0] == "error":
        assert fast == checked
    else:
        assert _bits(fast[1]) == _bits(checked[1]), (fast, checked)


_SAME_DTYPE = st.sampled_from(ALL_DTYPES)


@settings(max_examples=120, deadline=None)
@given(st.sampled_from([lax.pow, lax.nextafter, lax.mulhi, lax.add, lax.atan2]), st.data())
def test_binary_ops_match_general_path(op, data):
    # Mostly one dtype and shape (the fast paths' case), sometimes anything.
    if data.draw(st.booleans()):
        dtype, shape = data.draw(_SAME_DTYPE), data.draw(_SHAPES)
        x, y = (data.draw(operands((dtype,), ("array", "weak", "device"), shape))
                for _ in range(2))
    else:
        x, y = data.draw(operands()), data.draw(operands())
    assert_same_outcome(lambda: op(x, y))
    assert_same_as_checked_path(lambda: op(x, y))


@settings(max_examples=120, deadline=None)
@given(st.data())
def test_select_and_clamp_match_checked_path(data):
    dtype, shape = data.draw(_SAME_DTYPE), data.draw(_SHAPES)
    plain = ("array", "weak", "device", "numpy_scalar")
    a, b, c = (data.draw(operands((dtype,), plain, shape)) for _ in range(3))
    pred = data.draw(st.one_of(operands((fnp.bool_,), plain, shape),
                               operands((fnp.bool_,), plain, ()), operands()))
    lo, hi = (data.draw(st.one_of(operands((dtype,), plain, ()), st.just(a), operands()))
              for _ in range(2))
    for call in (lambda: lax.select(pred, a, b), lambda: lax.clamp(lo, c, hi)):
        assert_same_outcome(call)
        assert_same_as_checked_path(call)


def test_mulhi_integer_limits_match_general_path():
    for dtype in ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"):
        pool = _pool(dtype)
        column = fnp.asarray(np.asarray(pool, dtype))
        for a in pool:
            scalar, row = fnp.asarray(np.asarray(a, dtype)), fnp.asarray(np.full(len(pool), a,
                                                                                dtype))
            assert_same_outcome(lambda x=scalar: lax.mulhi(x, x))
            assert_same_outcome(lambda x=row: lax.mulhi(x, column))


def test_binary_shortcuts_take_the_common_forms():
    i, j = fnp.asarray([7, -3], fnp.int32), fa.device_put(fnp.asarray([-9, 2**30], fnp.int32))
    for dtype in ("int8", "uint16", "int32", "uint32", "int64", "uint64"):
        x, y = fnp.asarray([3, 5], dtype), fnp.asarray([7, 9], dtype)
        assert _ops_binary._mulhi_on_host(x, y) is not NotImplemented
    assert _ops_binary._mulhi_on_host(i, j) is not NotImplemented
    x = fnp.asarray([1.0, 2.0])
    for pair in ((x, x), (fa.device_put(x), x)):
        assert _ops_binary._plain_pair(*pair, _ops_binary._FC_DTYPES)
    with mock.patch.object(_ops_binary, "_operand", side_effect=AssertionError), \
            mock.patch.object(_ops_binary, "_same_dtype_operands", side_effect=AssertionError), \
            mock.patch.object(_ops_binary, "_operand_pair", side_effect=AssertionError):
        lax.select(np.bool_(True), x, x)
        lax.select(fnp.asarray([True, False]), x, x)
        lax.clamp(np.float32(0), x, fnp.float32(1))
        lax.pow(x, x)
        lax.nextafter(x, x)


_DIMS = st.one_of(st.lists(st.integers(-4, 4), max_size=3), st.just((0,)), st.just([1, 0]),
                  st.just((np.int32(0),)), st.just((True,)), st.just(0), st.just("0"))


@settings(max_examples=150, deadline=None)
@given(operands(kinds=("array", "weak", "device", "numpy")), st.data())
def test_shape_ops_match_general_path(x, data):
    dims, axis = data.draw(_DIMS), data.draw(st.one_of(st.integers(-4, 4), st.none(),
                                                        st.just(1.0)))
    value = np.asarray(x)
    calls = [lambda: lax.squeeze(x, dims), lambda: lax.rev(x, dims),
             lambda: lax.collapse(x, 0 if axis is None else axis, axis),
             lambda: lax.tile(x, dims), lambda: lax.broadcast_to_rank(x, axis),
             lambda: lax.unstack(x, 0 if axis is None else axis),
             lambda: lax.split(x, dims, 0 if axis is None else axis),
             lambda: lax.concatenate([x, x], axis),
             lambda: lax.concatenate((x, fnp.asarray(value[::-1])), 0),
             lambda: lax.concatenate([x], 0),
             lambda: lax.reshape(x, dims), lambda: lax.reshape(x, (value.size,)),
             lambda: lax.reshape(x, value.shape, dims), lambda: lax.transpose(x, dims),
             lambda: lax.transpose(x, tuple(reversed(range(value.ndim)))),
             lambda: lax.expand_dims(x, dims), lambda: lax.broadcast(x, dims),
             lambda: lax.broadcast_in_dim(x, (2, *value.shape), dims),
             lambda: lax.broadcast_in_dim(x, (2, *value.shape), range(1, value.ndim + 1)),
             lambda: lax.full_like(x, 2.5), lambda: lax.full_like(x, -1, np.uint8, dims),
             lambda: lax.full_like(x, True, shape=dims),
             lambda: lax.index_take(x, (fnp.asarray(value.astype(np.int8).ravel()[:2]),), dims),
             lambda: lax.index_take(x, [fa.device_put(np.asarray([-3, 7, 130], np.int16))] * 2,
                                    dims)]
    for call in calls:
        assert_same_outcome(call)


@settings(max_examples=60, deadline=None)
@given(_DTYPE_ARGS, st.one_of(st.integers(-2, 5), _DIMS), st.one_of(st.integers(-2, 3),
                                                                   st.just(1.5)))
def test_creation_ops_match_general_path(dtype, shape, dimension):
    assert_same_outcome(lambda: lax.iota(dtype, shape))
    assert_same_outcome(lambda: lax.broadcasted_iota(dtype, shape, dimension))
    assert_same_outcome(lambda: lax.empty(shape, dtype))
    for fill in (1.5, -1, 2**40, True, 1j, np.float32(2)):
        assert_same_outcome(lambda fill=fill: lax.full(shape, fill))
        assert_same_outcome(lambda fill=fill: lax.full(shape, fill, dtype))


def test_shape_shortcuts_take_the_common_forms():
    from funcarray.lax import _composed_shape_ops as c
    from funcarray.lax import _ops_shape as s

    x, i = fnp.ones((4, 3)), fnp.asarray([0, -1], fnp.int32)
    d = fa.device_put(x)
    for rule, args in ((s._collapse_on_host, (x, 0)), (s._squeeze_on_host, (x[None], (0,))),
                       (s._rev_on_host, (d, (0, 1))), (s._concatenate_on_host, ([x, d], 1)),
                       (s._iota_on_host, (np.int32, 3)),
                       (s._broadcasted_iota_on_host, ("float32", (2, 3), 1)),
                       (c._tile_on_host, (x, (2, 1))), (c._unstack_on_host, (d, 1)),
                       (c._unstack_on_host, (i,)), (c._split_on_host, (x, [1, 3])),
                       (c._empty_on_host, ((2, 3), np.float32)),
                       (c._broadcast_to_rank_on_host, (x, 3)),
                       (s._reshape_on_host, (d, (3, 4))), (s._transpose_on_host, (x, (1, 0))),
                       (s._expand_dims_on_host, (d, (0, -1))),
                       (s._broadcast_in_dim_on_host, (x, (2, 4, 3), (1, 2))),
                       (s._broadcast_sizes_on_host, (d, (2,))),
                       (s._full_on_host, ((2, 3), 1.5)), (s._full_on_host, ([2], 1, np.int8)),
                       (s._full_like_on_host, (d, 0.5)),
                       (c._index_take_on_host, (x, (i,), (0,))),
                       (c._index_take_on_host, (d, (i, i), (1, 0)))):
        assert rule(*args) is not NotImplemented, rule.__name__


_DOT_SHAPES = st.sampled_from([(3,), (2, 3), (3, 2), (2, 2, 3), (2, 3, 2), (1, 3), (0, 3),
                               (3, 0), ()])


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_products_match_general_path(data):
    dtypes_ = st.sampled_from((fnp.float32, fnp.int8, fnp.float16, fnp.complex64, fnp.bool_,
                               fnp.float64))
    first = data.draw(dtypes_)
    dtype = first if data.draw(st.booleans()) else data.draw(dtypes_)
    kinds = ("array", "weak", "device", "numpy")
    x = data.draw(operands((first,), kinds, data.draw(_DOT_SHAPES)))
    y = data.draw(operands((dtype,), kinds, data.draw(_DOT_SHAPES)))
    precision = data.draw(st.sampled_from([None, None, "highest", "bogus"]))
    assert_same_outcome(lambda: lax.dot(x, y, precision))
    assert_same_outcome(lambda: lax.dot(x, y, preferred_element_type=np.float32))
    assert_same_outcome(lambda: lax.batch_matmul(x, y, precision))
    assert_same_outcome(lambda: lax.scaled_dot(x, y))


def test_product_shortcuts_take_the_common_forms():
    from funcarray.lax import _ops_dot as d

    v, m, b = fnp.ones(3), fa.device_put(fnp.ones((2, 3))), fnp.ones((2, 3, 3))
    for rule, args in ((d._dot_on_host, (v, v)), (d._dot_on_host, (m, v)),
                       (d._batch_matmul_on_host, (b, b)), (d._scaled_dot_on_host, (b, b))):
        assert rule(*args) is not NotImplemented, rule.__name__


@settings(max_examples=60, deadline=None)
@given(st.data(), st.one_of(_DIMS, st.integers(-1, 3)))
def test_rng_uniform_matches_general_path(data, shape):
    from funcarray.primitives import rng

    # Mostly bounds of one dtype (the shortcut's case), sometimes anything.
    dtypes_ = (data.draw(st.sampled_from(ALL_DTYPES)),) if data.draw(st.booleans()) else (
        ALL_DTYPES)
    a, b = (data.draw(operands(dtypes_, shape=())) for _ in range(2))

    def call():  # (the same draws on both paths: a fresh generator for each)
        with mock.patch.object(rng, "_host_generator", np.random.default_rng(0)):
            return lax.rng_uniform(a, b, shape)

    assert_same_outcome(call)


def test_rng_uniform_shortcut_takes_the_common_forms():
    from funcarray.lax._rng import _rng_uniform_on_host

    for bounds in ((np.float32(0), np.float32(1)), (fnp.float32(0), fa.device_put(fnp.ones(())))):
        assert _rng_uniform_on_host(*bounds, (2, 3)) is not NotImplemented


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_ragged_dot_matches_general_path(data):
    m, k, n, groups = (data.draw(st.integers(0, 4)) for _ in range(4))
    dtype = data.draw(st.sampled_from((fnp.float32, fnp.int32, fnp.float16, fnp.bool_)))
    kinds = ("array", "weak", "device", "numpy")
    lhs = data.draw(operands((dtype,), kinds, (m, k)))
    rhs = data.draw(st.one_of(operands((dtype,), kinds, (groups, k, n)), operands()))
    sizes = np.asarray(data.draw(st.lists(st.integers(-2, 4), min_size=groups,
                                          max_size=groups)), np.int64).astype(
        data.draw(st.sampled_from((np.int32, np.uint8, np.float32))))  # (uint8: wraps)
    sizes = _as_input(sizes, data.draw(st.sampled_from(kinds)))
    numbers = lax.RaggedDotDimensionNumbers((([1], [1]), ([], [])), [0], [0])
    assert_same_outcome(lambda: lax.ragged_dot(lhs, rhs, sizes))
    assert_same_outcome(lambda: lax.ragged_dot_general(lhs, rhs, sizes, numbers))


def test_ragged_dot_shortcut_takes_the_common_form():
    from funcarray.lax._ragged import _ragged_dot_on_host

    lhs, rhs = fnp.ones((4, 3)), fa.device_put(fnp.ones((2, 3, 5)))
    assert _ragged_dot_on_host(lhs, rhs, fnp.asarray([1, 2])) is not NotImplemented


# Ties of rounding to 10 and 3 mantissa bits (even and odd), the edges of float16's normal
# range (2**-14, 2**-15 and just around), its overflow, NaN and infinities.
_PRECISION_EDGES = [1 + 2.0**-11, 1 + 3 * 2.0**-11, 1 + 2.0**-4, 1 + 3 * 2.0**-4, 2.0**-14,
                    2.0**-15, -2.0**-15, 2.0**-14 - 2.0**-26, 2.0**-14 - 2.0**-25, 65504.0,
                    65520.0, 65519.996, 2.0**16, 1e-45, np.nan, np.inf, -np.inf, -0.0]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from((fnp.float16, fnp.float32, fnp.float64, fnp.bfloat16)), st.data(),
       st.one_of(st.sampled_from([5, 8, 4, 1]), st.integers(-1, 12), st.just(2.0)),
       st.one_of(st.sampled_from([10, 3, 7, 0, 23]), st.integers(-1, 60)),
       st.sampled_from(("array", "weak", "device", "numpy", "scalar")), st.booleans())
def test_reduce_precision_matches_general_path(dtype, data, exponent_bits, mantissa_bits,
                                               kind, scalar):
    # Any bit pattern (NaN payloads, subnormals), the edges above.
    dtype = np.dtype(dtype)
    unsigned = np.dtype(f"u{dtype.itemsize}")
    patterns = st.integers(0, 2 ** (8 * dtype.itemsize) - 1).map(
        lambda b: np.asarray(b, unsigned).view(dtype).item())
    values = data.draw(st.lists(st.one_of(st.sampled_from(_PRECISION_EDGES), patterns),
                                min_size=1 if scalar else 0, max_size=1 if scalar else 10))
    with np.errstate(over="ignore"):
        x = np.asarray(values, np.float64).astype(dtype)
    x = _as_input(x.reshape(()) if scalar else x, kind)
    assert_same_outcome(lambda: lax.reduce_precision(x, exponent_bits, mantissa_bits))


def test_reduce_precision_edges_match_general_path():
    for dtype in (np.float16, np.float32, np.float64):
        with np.errstate(over="ignore"):
            edges = np.asarray(_PRECISION_EDGES, np.float64).astype(dtype)
        for exponent_bits, mantissa_bits in ((5, 10), (8, 7), (4, 3), (5, 2), (1, 0),
                                             (11, 52), (8, 23), (20, 60)):
            for value in (edges, *edges):  # (a vector, and each as a 0-d array)
                x = fnp.asarray(value)
                assert_same_outcome(lambda x=x, e=exponent_bits, m=mantissa_bits:
                                    lax.reduce_precision(x, e, m))


def test_reduce_precision_shortcut_takes_the_common_forms():
    from funcarray.lax._ops_unary import _reduce_precision_on_host

    for x in (fnp.float32(0.1), fnp.asarray([1e-5, 7e4]), fnp.ones((9,), fnp.float16)):
        assert _reduce_precision_on_host(x, 5, 10) is not NotImplemented


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_conv_patches_match_general_path(data):
    # Signed zeros (all-negative windows included: every zero output is +0), padding,
    # strides, several channels and spatial ranks, non-finite values, bad arguments.
    dtype = data.draw(st.sampled_from((fnp.float32, fnp.float16, fnp.float64, fnp.int32,
                                       fnp.uint8, fnp.bool_, fnp.complex64)))
    spatial = data.draw(st.integers(1, 2))
    shape = (data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2)),
             *(data.draw(st.integers(1, 4)) for _ in range(spatial)))
    pool = data.draw(st.sampled_from([[0.0, -0.0, 1.5, -2.0, 3.0, np.inf, np.nan],
                                      [0.0, -0.0, -1.0, 2.5], [-0.0, -1.0, -0.0]]))
    value = np.asarray(data.draw(st.lists(st.sampled_from(pool), min_size=int(np.prod(shape)),
                                          max_size=int(np.prod(shape)))))
    with np.errstate(invalid="ignore", over="ignore"):
        value = value.reshape(shape).astype(dtype)
    x = _as_input(value, data.draw(st.sampled_from(("array", "weak", "device", "numpy"))))
    filter_shape = tuple(data.draw(st.integers(1, 3)) for _ in range(spatial))
    strides = tuple(data.draw(st.integers(1, 2)) for _ in range(spatial))
    padding = data.draw(st.one_of(st.just("VALID"), st.just("SAME"), st.lists(
        st.tuples(st.integers(-1, 2), st.integers(0, 2)), min_size=spatial, max_size=spatial)))
    before = np.asarray(x).copy()
    assert_same_outcome(lambda: lax.conv_general_dilated_patches(x, filter_shape, strides,
                                                                 padding))
    assert np.array_equal(np.asarray(x), before, equal_nan=True)  # (lhs never written into)


def test_conv_patches_shortcut_takes_the_common_forms():
    from funcarray.lax._conv_shapes import _patches_on_host

    x = fnp.asarray(np.arange(-8.0, 8.0).reshape(1, 1, 4, 4))
    for args in (((3, 3), (1, 1), "VALID"), ((1, 1), (2, 1), [(1, 0), (0, 2)])):
        assert _patches_on_host(x, *args) is not NotImplemented
        assert _patches_on_host(fa.device_put(x), *args) is not NotImplemented


@settings(max_examples=100, deadline=None)
@given(st.sampled_from((fnp.float32, fnp.float16, fnp.int8, fnp.uint32, fnp.bool_, fnp.float64,
                        fnp.complex64)), st.lists(st.integers(0, 5), min_size=1, max_size=2),
       st.data())
def test_reduce_window_matches_general_path(dtype, shape, data):
    import operator

    ndim, shape = len(shape), tuple(shape)
    x = data.draw(operands((dtype,), ("array", "weak", "device", "numpy"), shape))
    computation = data.draw(st.sampled_from((lax.add, lax.max, lax.min, operator.add, max,
                                             lax.mul)))
    # Mostly the monoid's identity (the shortcut's case), sometimes another init.
    from funcarray.primitives.windowed import identity_of

    kind = {lax.add: "sum", operator.add: "sum", lax.max: "max", max: "max"}.get(computation,
                                                                                "min")
    init = data.draw(st.one_of(
        st.sampled_from([identity_of(kind, dtype)] * 3 + [-np.inf, np.inf, 0.0]),
        st.sampled_from((0, np.float32(0), 1, False, True, fnp.asarray(0, dtype), -128,
                         2**32 - 1, "0"))))
    window = tuple(data.draw(st.integers(0, 3)) for _ in range(ndim))
    strides = data.draw(st.one_of(st.none(), st.tuples(*(st.integers(1, 2),) * ndim)))
    padding = data.draw(st.sampled_from(("VALID", "SAME", [(0, 0)] * ndim, [(1, 0)] * ndim)))
    dilation = data.draw(st.sampled_from((None, (1,) * ndim, (2,) * ndim)))
    assert_same_outcome(lambda: lax.reduce_window(x, init, computation, window, strides,
                                                  padding, dilation, dilation))


def test_reduce_window_monoids_match_general_path():
    from funcarray.primitives.windowed import identity_of

    rng = np.random.default_rng(7)
    values = rng.integers(-50, 50, (5, 6)).astype(np.float64) / 4
    values[0, :3] = [-0.0, np.nan, np.inf]
    for dtype in (np.float32, np.float16, np.int8, np.uint8, np.bool_, np.float64):
        with np.errstate(invalid="ignore"):
            x = fnp.asarray(values.astype(dtype))
        for computation, kind in ((lax.add, "sum"), (lax.max, "max"), (lax.min, "min")):
            init = identity_of(kind, dtype)
            for window, strides in (((2, 2), None), ((1, 3), (1, 2)), ((5, 1), (2, 1)),
                                    ((3, 3), (2, 3))):
                assert_same_outcome(lambda x=x, c=computation, i=init, w=window, s=strides:
                                    lax.reduce_window(x, i, c, w, s))
            assert_same_outcome(lambda x=x, c=computation, i=init:
                                lax.reduce_window(x[1:, ::2], i, c, (2, 2)))


def test_reduce_window_shortcut_takes_the_common_forms():
    from funcarray.lax._windowed import _reduce_window_on_host

    x = fnp.asarray(np.arange(12.0).reshape(3, 4))
    for args in ((np.float32(0), lax.add, (2, 2)), (-np.inf, lax.max, (1, 3), (1, 2)),
                 (np.inf, lax.min, (3, 1), None, [(0, 0), (0, 0)])):
        assert _reduce_window_on_host(x, *args) is not NotImplemented
        assert _reduce_window_on_host(fa.device_put(x), *args) is not NotImplemented
