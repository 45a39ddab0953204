"""The host shortcuts of ``lax``'s reductions (``reduce_sum`` ... ``reduce_xor``), ``argmax``/
``argmin``, cumulative scans and ``sort``/``sort_key_val`` give the general path's outcome
(``tests/shortcut_oracle.py``): the same result (type, shape, dtype, weak type, bits) or the
same error, for every dtype, special floats (NaN of both signs and another payload, infinities,
-0.0 beside 0.0, ties), the integer limits, empty and 0-d operands, rows short and long (the
sorts switch kernels at 16), operands as Arrays, weak arrays, device arrays, NumPy arrays,
lists and Python scalars, and bad axes, dimensions and index dtypes. The fast sort kernels are
also checked against the primitive's kernel directly, and the last tests check that the
shortcuts take the common forms themselves."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from op_table import ALL_DTYPES
from reduction_operands import KINDS, PAYLOAD_NAN, SHAPES, as_input, tie_values
from shortcut_oracle import assert_same_outcome

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import lax
from funcarray.base.array import Array
from funcarray.lax import _ops_reduce
from funcarray.lax._reduce_general import _reduce_on_host
from funcarray.lax._sort_on_host import order_last, sorted_last
from funcarray.primitives import reduce as red
from funcarray.primitives.sort import _sort_kernel


@st.composite
def _operands(draw):
    dtype = draw(st.sampled_from(ALL_DTYPES))
    shape = draw(SHAPES)
    return tie_values(draw, dtype, shape), draw(st.sampled_from(KINDS))


_REDUCTIONS = ("reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "reduce_and",
               "reduce_or", "reduce_xor")
_SCANS = ("cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp")


@settings(max_examples=300, deadline=None)
@given(_operands(), st.sampled_from(_REDUCTIONS),
       st.sampled_from([(), (0,), (1,), (0, 1), [1, 0], (0, 0), (-1,), (3,), 0, (np.int64(0),),
                        (True,)]))
def test_reductions_match_the_general_path(operand, name, axes):
    value, kind = operand
    fn = getattr(lax, name)
    assert_same_outcome(lambda: fn(as_input(value, kind), axes))


@settings(max_examples=200, deadline=None)
@given(_operands(), st.sampled_from(["argmax", "argmin"]), st.sampled_from([0, 1, -1, 2, 0.0]),
       st.sampled_from([np.int32, np.int8, np.uint64, fnp.int64, "int32", np.float32, int]))
def test_arg_reductions_match_the_general_path(operand, name, axis, index_dtype):
    value, kind = operand
    fn = getattr(lax, name)
    assert_same_outcome(lambda: fn(as_input(value, kind), axis, index_dtype))


@settings(max_examples=200, deadline=None)
@given(_operands(), st.sampled_from(_SCANS), st.sampled_from([0, 1, -1, 3]),
       st.sampled_from([False, True, 1, None]))
def test_scans_match_the_general_path(operand, name, axis, reverse):
    value, kind = operand
    fn = getattr(lax, name)
    assert_same_outcome(lambda: fn(as_input(value, kind), axis, reverse))


@settings(max_examples=300, deadline=None)
@given(_operands(), st.sampled_from([-1, 0, 1, 2, -3, 5]), st.sampled_from([True, False]),
       st.sampled_from(["single", "pair", "pair_list", "pair_bad_shape", "three", "keys2"]))
def test_sorts_match_the_general_path(operand, dimension, is_stable, form):
    value, kind = operand
    x = as_input(value, kind)
    y = fnp.asarray(np.arange(value.size, dtype=np.float32).reshape(value.shape))
    if form == "single":
        assert_same_outcome(lambda: lax.sort(x, dimension, is_stable))
    elif form == "pair":
        assert_same_outcome(lambda: lax.sort_key_val(x, y, dimension, is_stable))
    elif form == "pair_list":
        assert_same_outcome(lambda: lax.sort([y, x], dimension, is_stable, 1))
    elif form == "pair_bad_shape":
        assert_same_outcome(lambda: lax.sort_key_val(x, fnp.zeros((5,)), dimension))
    elif form == "three":
        assert_same_outcome(lambda: lax.sort((x, y, y), dimension, is_stable, 1))
    else:
        assert_same_outcome(lambda: lax.sort((x, y), dimension, is_stable, 2))


@settings(max_examples=300, deadline=None)
@given(st.data(), st.sampled_from(ALL_DTYPES), st.integers(0, 3), st.integers(0, 70))
def test_fast_sort_kernels_give_the_kernels_bits(data, dtype, rows, n):
    value = tie_values(data.draw, dtype, (rows, n))
    positions = np.broadcast_to(np.arange(n), value.shape)
    expected, order = _sort_kernel(value, positions, dimension=1, is_stable=True, num_keys=1)
    assert np.array_equal(order_last(value), order)
    got = sorted_last(value)
    assert got.dtype == expected.dtype and got.tobytes() == expected.tobytes()


def test_the_shortcuts_take_the_common_forms():
    x = fnp.asarray(np.array([[3.0, -0.0, 0.0], [np.nan, 1.0, -2.0]], np.float32))
    d = fa.device_put(x)
    for operand in (x, d):
        for name in _REDUCTIONS[:4]:
            rule = _ops_reduce._reduce_on_host(getattr(red, name + "_p"), "iufc")
            assert rule(operand, (1,)) is not NotImplemented
            assert rule(operand, [0, 1]) is not NotImplemented
        for prim in (red.argmax_p, red.argmin_p):
            rule = _ops_reduce._arg_reduce_on_host(prim)
            assert rule(operand, 1, np.int32) is not NotImplemented
            assert rule(operand, 0, fnp.int32) is not NotImplemented
        scan = _ops_reduce._scan_on_host(red.cumsum_p, "iufc")
        assert scan(operand, 0) is not NotImplemented
        assert scan(operand, 1, True) is not NotImplemented
        assert _ops_reduce._sort_on_host(operand) is not NotImplemented
        assert _ops_reduce._sort_on_host((operand, operand), 0) is not NotImplemented


_COMPUTATIONS = {"add": lax.add, "mul": lax.mul, "max": lax.max, "min": lax.min,
                 "or": lax.bitwise_or, "and": lax.bitwise_and, "xor": lax.bitwise_xor,
                 "np_add": fnp.add, "py_max": max, "lambda": lambda a, b: a + b}


@settings(max_examples=300, deadline=None)
@given(_operands(), st.sampled_from(sorted(_COMPUTATIONS)),
       st.sampled_from([0, 1, -1, 0.0, 1.0, np.float32(0), np.int8(0), True, False, (0,),
                        -np.inf, np.inf, "array", "weak"]),
       st.sampled_from([(), (0,), (1,), (0, 1), [1, 0], (0, 0), (-1,), (np.int64(0),)]))
def test_general_reduce_matches_the_general_path(operand, name, init, dims):
    value, kind = operand
    if isinstance(init, str):
        init = (fnp.asarray(np.zeros((), value.dtype)) if init == "array"
                else Array(np.zeros((), value.dtype), True))
    assert_same_outcome(lambda: lax.reduce(as_input(value, kind), init, _COMPUTATIONS[name],
                                           dims))


def test_the_general_reduce_shortcut_takes_the_monoids():
    x = fnp.asarray(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    for computation, init in ((lax.add, 0.0), (lax.mul, 1.0), (lax.max, -np.inf),
                              (lax.min, np.inf)):
        assert _reduce_on_host(x, init, computation, (1,)) is not NotImplemented
        assert _reduce_on_host(fa.device_put(x), init, computation, [0, 1]) is not (
            NotImplemented)


@settings(max_examples=300, deadline=None)
@given(_operands(), st.sampled_from(["approx_max_k", "approx_min_k"]),
       st.sampled_from([1, 2, 0, 5, 2.0]), st.sampled_from([-1, 0, 1, -3, 2]),
       st.sampled_from([0.95, 1.0, 1.5, 1]), st.sampled_from([True, False]))
def test_approx_top_k_matches_the_general_path(operand, name, k, dimension, recall, aggregate):
    value, kind = operand
    fn = getattr(lax, name)
    assert_same_outcome(lambda: fn(as_input(value, kind), k, dimension, recall,
                                   aggregate_to_topk=aggregate))


def test_the_approx_top_k_shortcuts_take_the_common_forms():
    x = fnp.asarray(np.array([[3.0, -0.0, 0.0], [np.nan, 1.0, -2.0]], np.float32))
    for operand in (x, fa.device_put(x)):
        for largest in (True, False):
            rule = _ops_reduce._approx_k_on_host(largest)
            assert rule(operand, 2) is not NotImplemented
            assert rule(operand, 1, 0) is not NotImplemented


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([np.float32, np.float16, np.float64, np.int32, np.uint32, np.int16]),
       st.integers(1, 3), st.integers(17, 80), st.integers(0, 2**32 - 1),
       st.sampled_from([None, np.nan, -np.nan, PAYLOAD_NAN, -0.0, np.inf]))
def test_fast_order_of_distinct_keys_is_the_kernels(dtype, rows, n, seed, special):
    # Long rows of distinct keys and one special value (a NaN of any bits, -0.0 beside 0.0,
    # the integer limits): the packed keys' sort must give the kernel's stable order.
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        value = rng.permutation(rows * n).reshape(rows, n).astype(dtype) - n
        if special is not None:
            value[:, rng.integers(n)] = special
    else:
        info = np.iinfo(dtype)
        value = rng.integers(info.min, info.max, (rows, n), dtype=dtype, endpoint=True)
    positions = np.broadcast_to(np.arange(n), value.shape)
    expected, order = _sort_kernel(value, positions, dimension=1, is_stable=True, num_keys=1)
    assert np.array_equal(order_last(value), order)
    got = sorted_last(value)
    assert got.tobytes() == expected.tobytes()
