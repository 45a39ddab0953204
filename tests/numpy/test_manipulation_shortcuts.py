"""The host shortcuts of ``resize``, ``rollaxis``, ``unstack``, ``insert``, ``choose``,
``put_along_axis`` and ``fill_diagonal`` (``funcarray/numpy/_manipulation_on_host.py``) give
the general path's outcome (``tests/shortcut_oracle.py``): the same result (type, shape,
dtype, weak type, bits) or the same error, for every dtype, special values, empty and 0-d
shapes, positions out of range and negative, duplicate positions, operands given as Arrays,
weak arrays, device arrays, NumPy arrays, lists and Python scalars, and bad arguments. The
last test checks that the shortcuts take the common forms themselves."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from indexing_operands import as_kind
from op_table import ALL_DTYPES
from shortcut_oracle import assert_same_outcome

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.base.array import Array
from funcarray.numpy._manipulation_on_host import (
    _choose_on_host,
    _fill_diagonal_on_host,
    _insert_on_host,
    _put_along_axis_on_host,
    _resize_on_host,
    _rollaxis_on_host,
    _unstack_on_host,
)

_KINDS = ("array", "weak", "device", "numpy", "list")
_SPECIAL = [0.0, -0.0, 1.0, -2.5, 0.3, np.inf, -np.inf, np.nan, 65504.0, 1e38, 300.0, -129.0]
_SHAPES = st.sampled_from([(), (0,), (1,), (3,), (2, 3), (3, 3), (2, 0), (2, 2, 2)])


def _values(draw, dtype, shape):
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    if dtype.kind == "b":
        return np.asarray(draw(st.lists(st.booleans(), min_size=n, max_size=n)),
                          bool).reshape(shape)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        pool = [int(info.min), -3, -1, 0, 1, 2, 7, int(info.max)]
        pool = [v for v in pool if info.min <= v <= info.max]
        return np.asarray(draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)),
                          dtype).reshape(shape)
    with np.errstate(over="ignore", invalid="ignore"):
        values = np.asarray(draw(st.lists(st.sampled_from(_SPECIAL), min_size=n, max_size=n)),
                            np.float64).reshape(shape)
        return values.astype(dtype)


@st.composite
def arrays(draw, dtypes=ALL_DTYPES, shapes=_SHAPES, kinds=_KINDS):
    value = _values(draw, fnp.dtype(draw(st.sampled_from(dtypes))), draw(shapes))
    return as_kind(value, draw(st.sampled_from(kinds)))


_SCALARS = st.one_of(st.sampled_from([0, 1, -1, 7, 300, 2**31, True, 0.5, -0.0, np.nan, 1e30,
                                      2.5 + 1j])).map(lambda v: v)
_INDEX_KINDS = ("array", "weak", "device", "list")


@settings(max_examples=60, deadline=None)
@given(arrays(), st.one_of(st.integers(-3, 8), st.tuples(st.integers(-2, 4)),
                           st.lists(st.integers(-2, 4), max_size=3)),
       st.one_of(_SCALARS, arrays(shapes=st.sampled_from([(), (1,), (2,), (2, 3), (3, 1)]))),
       st.sampled_from([None, 0, 1, -1, 3]), st.sampled_from(("int", "array", "int8")))
def test_insert_matches_general_path(a, obj, values, axis, obj_kind):
    if not isinstance(obj, int):
        obj = np.asarray(obj, np.int8 if obj_kind == "int8" else np.int32)
        obj = as_kind(obj, "array" if obj_kind == "int8" else "weak")
    elif obj_kind == "array":
        obj = fnp.asarray(obj)
    assert_same_outcome(lambda: fnp.insert(a, obj, values, axis=axis))


@settings(max_examples=50, deadline=None)
@given(arrays(), st.one_of(st.integers(-1, 7), st.lists(st.integers(0, 3), max_size=3),
                           st.just(fnp.asarray([2, 2]))))
def test_resize_matches_general_path(a, new_shape):
    assert_same_outcome(lambda: fnp.resize(a, new_shape))


@settings(max_examples=50, deadline=None)
@given(arrays(), st.integers(-4, 4), st.one_of(st.integers(-4, 4), st.just(1.0)))
def test_rollaxis_and_unstack_match_general_path(a, axis, start):
    assert_same_outcome(lambda: fnp.rollaxis(a, axis, start))
    assert_same_outcome(lambda: fnp.unstack(a, axis=axis))


@settings(max_examples=60, deadline=None)
@given(st.data(), st.sampled_from(["raise", "wrap", "clip", "bad"]), st.integers(1, 3))
def test_choose_matches_general_path(data, mode, n):
    shape = data.draw(st.sampled_from([(), (3,), (2, 3), (0,)]))
    index = np.asarray(data.draw(st.lists(st.integers(-3, 4), min_size=int(np.prod(shape)),
                                          max_size=int(np.prod(shape)))), np.int32)
    index = as_kind(index.reshape(shape).astype(data.draw(st.sampled_from(
        [np.int32, np.uint8, np.int64, np.float32]))), data.draw(st.sampled_from(_KINDS)))
    dtypes = data.draw(st.sampled_from([(np.float32,), (np.int8,), (np.float16, np.float32),
                                        ALL_DTYPES]))
    choices = [data.draw(arrays(dtypes, st.sampled_from([(), (3,), (2, 3), (2, 1)])))
               for _ in range(n)]
    assert_same_outcome(lambda: fnp.choose(index, choices, mode=mode))


@settings(max_examples=60, deadline=None)
@given(st.data(), st.sampled_from([0, 1, -1, None, 2]), st.booleans())
def test_put_along_axis_matches_general_path(data, axis, inplace):
    arr = data.draw(arrays(shapes=st.sampled_from([(3,), (2, 3), (3, 3), (1, 4)])))
    ndim = np.ndim(np.asarray(arr)) if axis is not None else 1
    shape = tuple(data.draw(st.lists(st.integers(0, 3), min_size=ndim, max_size=ndim)))
    index = np.asarray(data.draw(st.lists(st.integers(-4, 4), min_size=int(np.prod(shape)),
                                          max_size=int(np.prod(shape)))), np.int32)
    index = as_kind(index.reshape(shape).astype(data.draw(st.sampled_from(
        [np.int32, np.uint8, np.int64]))), data.draw(st.sampled_from(_INDEX_KINDS)))
    values = data.draw(st.one_of(_SCALARS, arrays(shapes=st.sampled_from(
        [(), (1,), shape, (2, 1)]))))
    assert_same_outcome(lambda: fnp.put_along_axis(arr, index, values, axis,
                                                   inplace=inplace))


@settings(max_examples=80, deadline=None)
@given(st.data(), st.sampled_from([0, 1, -1, -2]),
       st.sampled_from([np.int8, np.uint8, np.int32, np.int64, np.uint64]))
def test_put_along_axis_of_one_position_a_lane_matches_general_path(data, axis, index_dtype):
    # One position along the axis in each lane (NumPy's indexing checks the range there):
    # positions in range, negative, and just past either end.
    arr = data.draw(arrays(shapes=st.sampled_from([(4,), (2, 3), (3, 4), (1, 5)]),
                           kinds=("array", "weak", "device")))
    shape = list(np.shape(np.asarray(arr)))
    if not -len(shape) <= axis < len(shape):
        axis = -1
    n, shape[axis] = shape[axis], 1
    pool = [0, 1, n - 1, -1, -n, n, -n - 1]
    if np.dtype(index_dtype).kind == "u":
        pool = [p for p in pool if p >= 0]
    raw = data.draw(st.lists(st.sampled_from(pool), min_size=int(np.prod(shape)),
                             max_size=int(np.prod(shape))))
    index = fnp.asarray(np.asarray(raw).astype(index_dtype).reshape(shape))
    values = data.draw(st.one_of(_SCALARS, arrays(shapes=st.sampled_from(
        [(), (1,), tuple(shape), (2, 1)]))))
    assert_same_outcome(lambda: fnp.put_along_axis(arr, index, values, axis, inplace=False))


@settings(max_examples=50, deadline=None)
@given(arrays(shapes=st.sampled_from([(2, 3), (3, 3), (3, 2), (2, 2, 2), (2, 3, 3), (0, 2),
                                      (3,)])),
       st.one_of(_SCALARS, arrays(shapes=st.sampled_from([(), (0,), (2,), (5,), (2, 2)]))),
       st.booleans(), st.booleans())
def test_fill_diagonal_matches_general_path(a, val, wrap, inplace):
    assert_same_outcome(lambda: fnp.fill_diagonal(a, val, wrap=wrap, inplace=inplace))


def test_shortcuts_take_the_common_forms():
    x = fnp.arange(12.0).reshape(3, 4)
    v = fa.device_put(fnp.arange(4.0))
    outs = [
        _resize_on_host(v, (8,)), _resize_on_host(fnp.float32(2.0), 3),
        _rollaxis_on_host(x, 1), _rollaxis_on_host(v, 0),
        _unstack_on_host(x, axis=1), _unstack_on_host(v),
        _insert_on_host(x, 1, 0.5), _insert_on_host(v, fnp.asarray([0, 2]), 9.0),
        _insert_on_host(x, -1, fnp.arange(3.0), axis=1),
        _choose_on_host(fnp.asarray([0, 1, 1, 0]), [v, v * 2.0]),
        _choose_on_host(fnp.asarray(5), [v, v], mode="wrap"),
        _put_along_axis_on_host(x, fnp.asarray([[0], [2], [3]]), 0.0, -1, inplace=False),
        _put_along_axis_on_host(v, fnp.asarray([-1]), fnp.asarray([1.0]), 0, inplace=False),
        _fill_diagonal_on_host(x, 0.0, inplace=False),
        _fill_diagonal_on_host(x, fnp.asarray([1.0, 2.0]), inplace=False),
    ]
    for out in outs:
        assert out is not NotImplemented
        assert all(type(o) is Array for o in (out if isinstance(out, tuple) else (out,)))


_PIECES = [lambda v: v * 2, lambda v: -v, lambda v: v + 1.5, 7, 0.5, lambda v: fnp.sin(v),
           lambda v: (v, v), lambda v: fnp.stack([v, v]), lambda v: v.astype(fnp.int8),
           lambda v: 1 / 0, lambda v, k=3: v * k]


@settings(max_examples=60, deadline=None)
@given(st.data(), st.integers(0, 3), st.booleans())
def test_piecewise_matches_general_path(data, nc, extra):
    x = data.draw(arrays(shapes=st.sampled_from([(), (1,), (3,), (2, 3), (0,)]),
                         kinds=("array", "weak", "device", "numpy", "list")))
    shape = np.shape(np.asarray(x))
    conds = [_values(data.draw, np.bool_, shape) for _ in range(nc)]
    if data.draw(st.booleans()):
        conds = [fnp.asarray(c) for c in conds]
    funcs = [data.draw(st.sampled_from(_PIECES)) for _ in range(nc + extra)]
    if data.draw(st.booleans()):
        funcs = funcs[:-1] if funcs else [1.0, 2.0]  # a count that must raise
    assert_same_outcome(lambda: fnp.piecewise(x, conds, funcs))


def test_piecewise_takes_its_shortcut():
    from funcarray.numpy._manipulation import _piecewise_on_host

    x = fnp.arange(-2.0, 3.0)
    out = _piecewise_on_host(x, [x < 0, x > 1], [lambda v: -v, lambda v: v ** 2, 7.0])
    assert type(out) is Array and np.asarray(out).tolist() == [2.0, 1.0, 7.0, 7.0, 4.0]
    assert type(_piecewise_on_host(fnp.float32(2.0), [True], [lambda v: v * 2.0])) is Array


def test_the_functions_carry_their_shortcuts():
    for fn in (fnp.resize, fnp.rollaxis, fnp.unstack, fnp.insert, fnp.choose, fnp.put,
               fnp.put_along_axis, fnp.fill_diagonal, fnp.place, fnp.piecewise):
        assert hasattr(fn, "general_path"), fn.__name__
