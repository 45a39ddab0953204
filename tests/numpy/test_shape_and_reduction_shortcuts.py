"""The host shortcuts of the shape functions, reductions, joins, ``where``, the creation
functions and ``astype`` give the general path's outcome (``tests/shortcut_oracle.py``):
the same result (type, shape, dtype, weak type, bits) or the same error, for every dtype,
special values, weak and strong operands, and operands given as Arrays, device arrays, NumPy
arrays, lists and Python scalars. The last tests check that the shortcuts take the common
forms themselves instead of declining them."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from op_table import ALL_DTYPES
from shortcut_oracle import assert_same_outcome

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.base.array import Array, DeviceArray
from funcarray.numpy import _array_ops, _creation, _elementwise
from funcarray.numpy import _reductions_on_host as red_host
from funcarray.numpy import _shape_on_host as shape_host

_SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.5, -7.0, 100.0, np.nan, np.inf, -np.inf]
_KINDS = ("array", "weak", "device", "numpy", "list")


def _cast(values: np.ndarray, dtype) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return values != 0
    if dtype.kind in "iu":
        finite = np.nan_to_num(values, nan=0.0, posinf=3.0, neginf=-3.0)
        return finite.astype(np.int64).astype(dtype)
    if dtype.kind == "c":
        out = np.empty(values.shape, dtype)
        out.real, out.imag = values, values.ravel()[::-1].reshape(values.shape)
        return out
    return values.astype(dtype)


def _as_input(value: np.ndarray, kind: str):
    if kind == "weak":
        return Array(value.copy(), True)
    if kind == "device":
        return fa.device_put(fnp.asarray(value))
    if kind == "numpy":
        return value
    if kind == "list":
        return value.tolist()
    return fnp.asarray(value)


@st.composite
def operands(draw, dtypes=ALL_DTYPES, shape=None, kinds=_KINDS, min_dims=0):
    """An operand of one of ``dtypes``, drawn values (NaN, infinities, -0.0 included), given
    as one of ``kinds``."""
    dtype = draw(st.sampled_from(dtypes))
    if shape is None:
        shape = draw(hnp.array_shapes(min_dims=min_dims, max_dims=3, min_side=0, max_side=4))
    values = draw(st.lists(st.sampled_from(_SPECIAL), min_size=math.prod(shape),
                           max_size=math.prod(shape)))
    value = _cast(np.asarray(values, np.float64).reshape(shape), dtype)
    return _as_input(value, draw(st.sampled_from(kinds)))


def _shape(x) -> tuple:
    return np.shape(x._value if isinstance(x, Array) else x)


_AXIS = st.one_of(st.none(), st.integers(-4, 3),
                  st.lists(st.integers(-4, 3), max_size=3).map(tuple))
_KEEPDIMS = st.booleans()
_DTYPE_ARG = st.one_of(st.none(), st.sampled_from(ALL_DTYPES))


# --------------------------------------------------------------------------------------------
# Reductions
# --------------------------------------------------------------------------------------------

@given(x=operands(), op=st.sampled_from([fnp.sum, fnp.prod, fnp.max, fnp.min, fnp.mean,
                                         fnp.all, fnp.any, fnp.nansum, fnp.nanprod]),
       axis=_AXIS, keepdims=_KEEPDIMS)
def test_reductions(x, op, axis, keepdims):
    assert_same_outcome(lambda: op(x, axis=axis, keepdims=keepdims))


@given(x=operands(), op=st.sampled_from([fnp.sum, fnp.prod, fnp.mean, fnp.nansum, fnp.nanprod]),
       axis=_AXIS, dtype=_DTYPE_ARG, promote=st.booleans())
def test_reductions_with_dtype(x, op, axis, dtype, promote):
    assert_same_outcome(lambda: op(x, axis=axis, dtype=dtype))
    if op in (fnp.sum, fnp.prod):
        assert_same_outcome(lambda: op(x, axis=axis, promote_integers=promote))


@given(x=operands(), op=st.sampled_from([fnp.var, fnp.std]), axis=_AXIS, keepdims=_KEEPDIMS,
       ddof=st.sampled_from([0, 1, 2.5, 5, True, np.int32(1)]))
def test_variances(x, op, axis, keepdims, ddof):
    # (no degrees of freedom left: NaN; a bool or NumPy ddof: the general path)
    assert_same_outcome(lambda: op(x, axis=axis, keepdims=keepdims, ddof=ddof))


@given(x=operands(kinds=("array",)), op=st.sampled_from([fnp.var, fnp.std]))
def test_variances_with_declined_arguments(x, op):
    assert_same_outcome(lambda: op(x, correction=1))
    assert_same_outcome(lambda: op(x, mean=0.0))
    assert_same_outcome(lambda: op(x, dtype=np.float64))
    assert_same_outcome(lambda: op(x, where=fnp.asarray(True)))


@given(x=operands(), op=st.sampled_from([fnp.argmax, fnp.argmin, fnp.nanargmax,
                                         fnp.nanargmin]),
       axis=st.one_of(st.none(), st.integers(-4, 3)),
       keepdims=st.sampled_from([None, False, True]))
def test_arg_reductions(x, op, axis, keepdims):
    assert_same_outcome(lambda: op(x, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("op", [fnp.nanargmax, fnp.nanargmin])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("keepdims", [None, False, True])
def test_nan_arg_reductions_of_all_nan_slices(op, axis, keepdims):
    x = fnp.asarray(np.array([[np.nan, 1.0, np.nan], [np.nan, np.nan, np.nan]], np.float32))
    assert_same_outcome(lambda: op(x, axis=axis, keepdims=keepdims))
    assert_same_outcome(lambda: op(x[1], axis=None if axis is None else 0, keepdims=keepdims))


@given(x=operands(kinds=("array",)), op=st.sampled_from([fnp.sum, fnp.max, fnp.mean,
                                                         fnp.nansum]))
def test_reductions_with_declined_arguments(x, op):
    assert_same_outcome(lambda: op(x, where=fnp.asarray(True)))
    assert_same_outcome(lambda: op(x, axis=np.int64(0)))
    assert_same_outcome(lambda: op(x, out=x))


@settings(max_examples=200, deadline=None)
@given(x=operands(), op=st.sampled_from([fnp.cumulative_sum, fnp.cumulative_prod,
                                         fnp.cumsum, fnp.cumprod]),
       axis=st.one_of(st.none(), st.integers(-4, 3), st.sampled_from([np.int64(0), 1.0])),
       dtype=st.one_of(st.none(), _DTYPE_ARG), include_initial=st.sampled_from([False, True, 0]))
def test_cumulative_reductions(x, op, axis, dtype, include_initial):
    if op in (fnp.cumsum, fnp.cumprod):
        assert_same_outcome(lambda: op(x, axis, dtype))
    else:
        assert_same_outcome(lambda: op(x, axis=axis, dtype=dtype,
                                       include_initial=include_initial))


@settings(max_examples=200, deadline=None)
@given(x=operands(kinds=("array", "weak", "device"), min_dims=1),
       op=st.sampled_from([fnp.cumulative_sum, fnp.cumulative_prod]), data=st.data())
def test_cumulative_reductions_in_their_common_form(x, op, data):
    # (narrow integers and bools accumulate in 32 bits here, unlike in cumsum and cumprod)
    ndim = x.ndim
    axis = data.draw(st.integers(-ndim, ndim - 1) if ndim > 1 else st.sampled_from([None, 0, -1]))
    assert_same_outcome(lambda: op(x, axis=axis))


# --------------------------------------------------------------------------------------------
# Shape functions
# --------------------------------------------------------------------------------------------

@st.composite
def _new_shapes(draw, size: int):
    """A shape for ``size`` elements (or a wrong one), with a -1 or not."""
    dims = []
    left = size
    while left > 1 and len(dims) < 3:
        factor = draw(st.sampled_from([d for d in range(1, left + 1) if left % d == 0]))
        dims.append(factor)
        left //= factor
    dims.append(left)
    dims = draw(st.permutations(dims))
    if dims and draw(st.booleans()):
        dims[draw(st.integers(0, len(dims) - 1))] = -1
    if draw(st.integers(0, 5)) == 0:
        dims.append(draw(st.sampled_from([-1, -2, 0, 2])))
    return draw(st.sampled_from([tuple(dims), list(dims)])) if len(dims) != 1 else dims[0]


@given(data=st.data(), x=operands())
def test_reshape_and_ravel(data, x):
    shape = data.draw(_new_shapes(math.prod(_shape(x))))
    assert_same_outcome(lambda: fnp.reshape(x, shape))
    assert_same_outcome(lambda: fnp.ravel(x))
    if isinstance(x, Array):
        assert_same_outcome(lambda: x.reshape(shape))
        assert_same_outcome(lambda: x.T)
        assert_same_outcome(lambda: x.mT)


@given(x=operands(), axes=st.one_of(st.none(), st.lists(st.integers(-4, 3), max_size=4)),
       a1=st.integers(-4, 3), a2=st.integers(-4, 3))
def test_transposes(x, axes, a1, a2):
    assert_same_outcome(lambda: fnp.transpose(x, axes))
    assert_same_outcome(lambda: fnp.permute_dims(x, axes))
    assert_same_outcome(lambda: fnp.matrix_transpose(x))
    assert_same_outcome(lambda: fnp.swapaxes(x, a1, a2))
    assert_same_outcome(lambda: fnp.moveaxis(x, a1, a2))
    assert_same_outcome(lambda: fnp.moveaxis(x, (a1, a2), (a2, a1)))


@given(x=operands(), axis=_AXIS)
def test_squeeze_and_expand_dims(x, axis):
    assert_same_outcome(lambda: fnp.squeeze(x, axis))
    assert_same_outcome(lambda: fnp.expand_dims(x, 0 if axis is None else axis))


# --------------------------------------------------------------------------------------------
# Joining, where
# --------------------------------------------------------------------------------------------

@given(data=st.data(), count=st.integers(1, 3),
       axis=st.one_of(st.none(), st.integers(-4, 3)))
def test_concatenate_and_stack(data, count, axis):
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3))
    arrays = [data.draw(operands(shape=shape)) for _ in range(count)]
    if data.draw(st.booleans()):  # another size along some axis
        other = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3))
        arrays.append(data.draw(operands(shape=other)))
    for container in (list, tuple):
        assert_same_outcome(lambda: fnp.concatenate(container(arrays), axis=axis))
        assert_same_outcome(lambda: fnp.concat(container(arrays), axis=axis))
        assert_same_outcome(lambda: fnp.stack(container(arrays), axis=0 if axis is None
                                              else axis))
        for join in (fnp.vstack, fnp.hstack, fnp.dstack, fnp.column_stack):
            assert_same_outcome(lambda: join(container(arrays)))


@given(data=st.data())
def test_where(data):
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3))
    condition = data.draw(operands(shape=shape, dtypes=(np.dtype(bool), np.dtype(np.int8))))
    scalars = st.sampled_from([0, -3, 2.5, -0.0, float("nan"), True, 1 + 2j, 2**40])
    cases = st.one_of(scalars, operands(shape=shape),
                      operands(shape=data.draw(hnp.array_shapes(min_dims=0, max_dims=2,
                                                                max_side=3))))
    x, y = data.draw(cases), data.draw(cases)
    assert_same_outcome(lambda: fnp.where(condition, x, y))
    assert_same_outcome(lambda: fnp.where(condition))


# --------------------------------------------------------------------------------------------
# Creation, astype
# --------------------------------------------------------------------------------------------

_SHAPES = st.one_of(st.integers(-1, 4), st.lists(st.integers(-1, 3), max_size=3).map(tuple))
_FILLS = st.sampled_from([0, 7, -1, 2.5, -0.0, float("nan"), True, 1j, 2**40])


@given(shape=_SHAPES, dtype=_DTYPE_ARG, fill=_FILLS)
def test_new_arrays(shape, dtype, fill):
    for op in (fnp.zeros, fnp.ones, fnp.empty):
        assert_same_outcome(lambda: op(shape, dtype))
    assert_same_outcome(lambda: fnp.full(shape, fill, dtype))
    assert_same_outcome(lambda: fnp.full(shape, fnp.asarray(fill), dtype))


@given(x=operands(), dtype=_DTYPE_ARG, fill=_FILLS,
       shape=st.one_of(st.none(), _SHAPES))
def test_new_arrays_like(x, dtype, fill, shape):
    for op in (fnp.zeros_like, fnp.ones_like, fnp.empty_like):
        assert_same_outcome(lambda: op(x, dtype, shape))
    assert_same_outcome(lambda: fnp.full_like(x, fill, dtype, shape))


_BOUNDS = st.one_of(st.integers(-10, 10), st.sampled_from([0.5, -2.25, 3.0]))


@given(start=_BOUNDS, stop=st.one_of(st.none(), _BOUNDS),
       step=st.one_of(st.none(), st.integers(-3, 3), st.sampled_from([0.5, -0.25])),
       dtype=_DTYPE_ARG)
def test_arange(start, stop, step, dtype):
    assert_same_outcome(lambda: fnp.arange(start, stop, step, dtype))


@pytest.mark.parametrize("args", [(2**31, 2**31 + 3), (-2, 3, 1, np.uint8), (0, 4, True),
                                  (np.int64(3),), (fnp.asarray(3),), (0, 2, 0)])
def test_arange_declined(args):
    assert_same_outcome(lambda: fnp.arange(*args))


@given(n=st.integers(-1, 4), m=st.one_of(st.none(), st.integers(-1, 4)),
       k=st.one_of(st.integers(-5, 5), st.just(2**31)), dtype=_DTYPE_ARG)
def test_eye(n, m, k, dtype):
    assert_same_outcome(lambda: fnp.eye(n, m, k, dtype))


@given(x=operands(), dtype=_DTYPE_ARG)
def test_astype(x, dtype):
    assert_same_outcome(lambda: fnp.astype(x, dtype))


# --------------------------------------------------------------------------------------------
# The shortcuts take the common forms themselves
# --------------------------------------------------------------------------------------------

def _x():
    return fnp.asarray(np.arange(24, dtype=np.float32).reshape(2, 3, 4))


_COMMON_FORMS = {
    "reshape": lambda x: shape_host._reshape_on_host(x, (-1,)),
    "reshape_tuple": lambda x: shape_host._reshape_on_host(x, (6, 4)),
    "ravel": lambda x: shape_host._ravel_on_host(x),
    "T": lambda x: shape_host._transpose_on_host(x),
    "transpose": lambda x: shape_host._transpose_on_host(x, (1, 0, 2)),
    "squeeze": lambda x: shape_host._squeeze_on_host(x[None], 0),
    "expand_dims": lambda x: shape_host._expand_dims_on_host(x, -1),
    "swapaxes": lambda x: shape_host._swapaxes_on_host(x, 0, -1),
    "moveaxis": lambda x: shape_host._moveaxis_on_host(x, 0, -1),
    "matrix_transpose": lambda x: shape_host._matrix_transpose_on_host(x),
    "concatenate": lambda x: shape_host._concatenate_on_host([x, x]),
    "concatenate_axis": lambda x: shape_host._concatenate_on_host((x, x), axis=-1),
    "stack": lambda x: shape_host._stack_on_host([x, x]),
    "vstack": lambda x: shape_host._vstack_on_host([x, x]),
    "hstack": lambda x: shape_host._hstack_on_host((x, x)),
    "dstack": lambda x: shape_host._dstack_on_host([x, x]),
    "column_stack": lambda x: shape_host._column_stack_on_host([x[0], x[0]]),
    "sum": lambda x: red_host._sum_on_host(x),
    "sum_axis": lambda x: red_host._sum_on_host(x, axis=(0, 2), keepdims=True),
    "sum_int8": lambda x: red_host._sum_on_host(x.astype(np.int8), axis=0),
    "sum_dtype": lambda x: red_host._sum_on_host(x, axis=-1, dtype=np.float64),
    "prod": lambda x: red_host._prod_on_host(x, axis=1),
    "max": lambda x: red_host._max_on_host(x),
    "min_axis": lambda x: red_host._min_on_host(x, axis=-1, keepdims=True),
    "argmax": lambda x: red_host._argmax_on_host(x),
    "argmin_axis": lambda x: red_host._argmin_on_host(x, axis=1),
    "mean": lambda x: red_host._mean_on_host(x, axis=0),
    "cumulative_sum": lambda x: red_host._cumulative_sum_on_host(x, axis=-1),
    "cumulative_prod_int8": lambda x: red_host._cumulative_prod_on_host(x.astype(np.int8),
                                                                        axis=0),
    "cumulative_sum_vector": lambda x: red_host._cumulative_sum_on_host(x[0, 0]),
    "var": lambda x: red_host._var_on_host(x),
    "std_axis": lambda x: red_host._std_on_host(x, axis=(0, 2), ddof=1, keepdims=True),
    "mean_f16": lambda x: red_host._mean_on_host(x.astype(np.float16)),
    "all": lambda x: red_host._all_on_host(x),
    "any_axis": lambda x: red_host._any_on_host(x, axis=(0, 1)),
    "where": lambda x: _elementwise._where_on_host(x > 3.0, x, 0.0),
    "where_arrays": lambda x: _elementwise._where_on_host(x > 3.0, x, -x),
    "astype": lambda x: _array_ops._astype_on_host(x, np.float16),
}

_CREATION_FORMS = {
    "zeros": lambda: _creation._zeros_on_host((64, 64)),
    "zeros_dtype": lambda: _creation._zeros_on_host(3, np.int32),
    "ones": lambda: _creation._ones_on_host((2, 3)),
    "full": lambda: _creation._full_on_host((2, 3), 1.5),
    "full_dtype": lambda: _creation._full_on_host((2,), 7, np.int8),
    "zeros_like": lambda: _creation._zeros_like_on_host(_x()),
    "ones_like": lambda: _creation._ones_like_on_host(_x(), np.int32),
    "full_like": lambda: _creation._full_like_on_host(_x(), 2.0),
    "arange": lambda: _creation._arange_on_host(10),
    "arange_step": lambda: _creation._arange_on_host(1, 10, 3),
    "eye": lambda: _creation._eye_on_host(3),
}


@pytest.mark.parametrize("device", [False, True], ids=["host", "device"])
@pytest.mark.parametrize("form", sorted(_COMMON_FORMS))
def test_shortcut_takes_common_form(form, device):
    x = fa.device_put(_x()) if device else _x()
    out = _COMMON_FORMS[form](x)
    assert type(out) is Array, f"{form}: the shortcut gave {out!r}"


@pytest.mark.parametrize("form", sorted(_CREATION_FORMS))
def test_creation_shortcut_takes_common_form(form):
    out = _CREATION_FORMS[form]()
    assert type(out) is Array, f"{form}: the shortcut gave {out!r}"


def test_device_operand_is_a_device_array():
    assert type(fa.device_put(_x())) is DeviceArray
