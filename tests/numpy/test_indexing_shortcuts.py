"""The host shortcuts of ``x[idx]`` and ``x.at[idx]`` (``numpy/_indexing_on_host.py``) end
exactly as the general path does: results (type, shape, dtype, weak type, bits) and errors,
for every dtype, index form and kind of input; and they do take the common forms."""

from __future__ import annotations

import hypothesis.strategies as st
import numpy as np
import pytest
from helpers import index_bounds_checked
from hypothesis import given
from op_table import ALL_DTYPES
from shortcut_oracle import assert_same_outcome

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import dtypes
from funcarray.base.array import Array
from funcarray.numpy._indexing_on_host import (
    divide_on_host,
    get_on_host,
    getitem_on_host,
    power_on_host,
    update_shortcut,
)

METHODS = ["set", "add", "subtract", "multiply", "min", "max", "divide", "power", "get",
           "apply"]
INDEX_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                np.uint64]
SPECIAL_FLOATS = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, -1.5, 2.5, 1e30, -3.0]


# --------------------------------------------------------------------------------------------
# Strategies
# --------------------------------------------------------------------------------------------

def _numbers(dtype, count):
    """Values of ``dtype`` (NaN, infinities and -0.0 among the floats)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return st.lists(st.booleans(), min_size=count, max_size=count)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        edge = st.sampled_from([int(info.min), int(info.max), 0, 1])
        return st.lists(st.integers(int(info.min), int(info.max)) | edge, min_size=count,
                        max_size=count)
    real = st.sampled_from(SPECIAL_FLOATS) | st.floats(-100, 100, width=32)
    if dtype.kind == "c":
        real = st.builds(complex, real, real)
    return st.lists(real, min_size=count, max_size=count)


def _from_numbers(flat, dtype, shape=None):
    dtype = np.dtype(dtype)
    if dtype.kind in "biu":
        out = np.array(flat, dtype)
    else:
        with np.errstate(over="ignore"):  # 1e30 is inf in float16
            out = np.array(flat, np.complex128 if dtype.kind == "c" else np.float64).astype(dtype)
    return out if shape is None else out.reshape(shape)


@st.composite
def host_values(draw, dtypes_=ALL_DTYPES, max_dims=3):
    dtype = np.dtype(draw(st.sampled_from(dtypes_)))
    shape = tuple(draw(st.lists(st.integers(0, 4), max_size=max_dims)))
    return _from_numbers(draw(_numbers(dtype, int(np.prod(shape, dtype=np.int64)))), dtype,
                         shape)


def as_input(value, form):
    """The array argument in one of the forms a caller passes."""
    if form == "array":
        return fnp.asarray(value)
    if form == "weak":
        return Array(np.array(value), True)
    if form == "device":
        return fa.device_put(fnp.asarray(value))
    if form == "numpy":
        return value
    return value.tolist()


forms = st.sampled_from(["array", "weak", "device", "numpy", "list"])
array_forms = st.sampled_from(["array", "weak", "device"])


def _int_array(draw, size, shape):
    """Integer index entries for an axis of ``size``: negatives and out-of-bounds ones too."""
    dtype = np.dtype(draw(st.sampled_from(INDEX_DTYPES)))
    low = 0 if dtype.kind == "u" else -size - 2
    entries = draw(st.lists(st.integers(low, size + 2), min_size=int(np.prod(shape)),
                            max_size=int(np.prod(shape))))
    value = np.array(entries, np.int64).astype(dtype).reshape(shape)
    form = draw(st.sampled_from(["list", "numpy", "array", "device"]))
    if form == "list":
        return value.tolist() if value.ndim else int(value)
    return value if form == "numpy" else as_input(value, form)


def _mask(draw, shape):
    value = np.array(draw(st.lists(st.booleans(), min_size=int(np.prod(shape)),
                                   max_size=int(np.prod(shape))))).reshape(shape)
    form = draw(st.sampled_from(["list", "numpy", "array"]))
    return value.tolist() if form == "list" and value.ndim else as_input(value, form)


@st.composite
def indices(draw, shape, arrays=True):
    """An index for an array of ``shape``: NumPy's forms, valid and not."""
    items = []
    dim = 0
    ellipsis = False
    for _ in range(draw(st.integers(0, len(shape) + 1))):
        size = shape[dim] if dim < len(shape) else 3
        choices = ["int", "npint", "slice", "none", "ellipsis"]
        if arrays:
            choices += ["ints", "ints", "scalar_array", "mask", "bool"]
        kind = draw(st.sampled_from(choices))
        if kind == "int":
            items.append(draw(st.integers(-size - 2, size + 1)))
        elif kind == "npint":
            items.append(np.dtype(draw(st.sampled_from(INDEX_DTYPES[:4]))).type(
                draw(st.integers(-size, size - 1)) if size else 0))
        elif kind == "slice":
            bound = st.none() | st.integers(-size - 2, size + 2)
            items.append(slice(draw(bound), draw(bound), draw(st.none() | st.integers(-3, 3))))
        elif kind == "none":
            items.append(None)
            continue
        elif kind == "ellipsis":
            if ellipsis and not draw(st.booleans()):
                continue
            ellipsis = True
            items.append(Ellipsis)
            continue
        elif kind == "ints":
            items.append(_int_array(draw, size, tuple(draw(st.lists(st.integers(1, 3),
                                                                    max_size=2)))))
        elif kind == "scalar_array":
            items.append(_int_array(draw, size, ()))
        elif kind == "bool":
            items.append(draw(st.booleans()))
            continue
        else:
            covered = draw(st.integers(1, max(1, len(shape) - dim)))
            mask_shape = shape[dim:dim + covered] or (2,)
            if draw(st.integers(0, 9)) == 0:  # a mask of the wrong shape: an error
                mask_shape = (*mask_shape[:-1], mask_shape[-1] + 1)
            items.append(_mask(draw, mask_shape))
            dim += len(mask_shape)
            continue
        dim += 1
    if len(items) == 1 and draw(st.booleans()):
        return items[0]
    return tuple(items)


def _update_values(draw, x):
    """Values for ``x.at[idx].<method>``: scalars of each Python type, arrays of the same or
    another dtype, broadcastable or not, NumPy arrays and lists."""
    kind = draw(st.sampled_from(["float", "int", "bool", "complex", "same", "other", "row",
                                 "numpy", "list"]))
    if kind == "float":
        return draw(st.sampled_from(SPECIAL_FLOATS) | st.floats(-100, 100, width=32))
    if kind == "int":
        return draw(st.integers(-300, 300) | st.sampled_from([2**31 - 1, -2**31, 2**40]))
    if kind == "bool":
        return draw(st.booleans())
    if kind == "complex":
        return complex(draw(st.floats(-4, 4, width=32)), draw(st.floats(-4, 4, width=32)))
    dtype = x.dtype if kind in ("same", "row") else draw(st.sampled_from(ALL_DTYPES))
    shape = x.shape[-1:] if kind in ("row", "numpy", "list") else ()
    value = _from_numbers(draw(_numbers(dtype, shape[0] if shape else 1)), dtype,
                          shape)
    if kind in ("numpy", "list"):
        return value if kind == "numpy" else value.tolist()
    return as_input(value, draw(array_forms))


# --------------------------------------------------------------------------------------------
# x[idx]
# --------------------------------------------------------------------------------------------

@given(host_values(), forms, st.data())
def test_getitem_matches_the_general_path(value, form, data):
    x = as_input(value, form)
    idx = data.draw(indices(value.shape))
    assert_same_outcome(lambda: fnp.getitem(x, idx))
    if form not in ("numpy", "list"):
        assert_same_outcome(lambda: x[idx])


@given(host_values(), array_forms, st.data())
def test_basic_getitem_matches_the_general_path(value, form, data):
    x = as_input(value, form)
    idx = data.draw(indices(value.shape, arrays=False))
    assert_same_outcome(lambda: x[idx])


def test_getitem_of_zero_dimensional_arrays():
    for x in (fnp.asarray(2.5), fnp.float32(3.0) + fnp.float32(1.0), fnp.asarray(True)):
        for idx in ((), None, Ellipsis, (None, ...), 0, slice(None), [0], fnp.asarray(True)):
            assert_same_outcome(lambda: x[idx])


@pytest.mark.parametrize("form", ["array", "device"])
def test_the_common_indexes_take_the_shortcut(form):
    x = as_input(np.arange(64 * 64, dtype=np.float32).reshape(64, 64), form)
    mask = fnp.asarray(np.arange(64) % 3 == 0)
    for idx in (3, -1, np.int64(2), slice(1, 5), slice(None, None, -2), (slice(None), 0),
                (0, 0), (None, Ellipsis, 1), mask, [1, 2, 3], ([1, 2], [3, -4]),
                (slice(1, 3), np.array([0, 70])), fnp.asarray(5), fnp.asarray([[1], [2]]),
                70, -70, (0, 99), (slice(None), -65), (None, 64, [1, -80])):
        out = getitem_on_host(x, idx)
        assert type(out) is Array, idx
        assert_same_outcome(lambda: x[idx])
    assert float(getitem_on_host(x, (0, 1))) == 1.0
    assert getitem_on_host(x, slice(None)) is x and getitem_on_host(x, ...) is x


@given(host_values(), array_forms, st.sampled_from(["getitem", *METHODS]), st.data())
def test_check_index_bounds_as_the_general_path(value, form, method, data):
    """With the setting on, out-of-bounds indices raise the general path's IndexError (the
    shortcuts decline them) and the rest still matches."""
    x = as_input(value, form)
    idx = data.draw(indices(value.shape))
    values = _update_values(data.draw, x)
    with index_bounds_checked():
        if method == "getitem":
            assert_same_outcome(lambda: x[idx])
        else:
            assert_same_outcome(lambda: _update(x, idx, method, values))


def test_declined_indexes_run_the_general_path():
    x = fnp.arange(6.0).reshape(2, 3)
    for idx in (True, (0, False), 1.5, slice(fnp.asarray(1), 2), [], "a", (0, 5), 7,
                [[0, 1], [2]], np.array([1], np.uint64)):
        assert_same_outcome(lambda: x[idx])


# --------------------------------------------------------------------------------------------
# x.at[idx]
# --------------------------------------------------------------------------------------------

def _update(x, idx, method, values):
    ref = x.at[idx]
    if method == "get":
        return ref.get()
    if method == "apply":
        return ref.apply(lambda v: v * 2 if v.dtype != np.bool_ else ~v)
    return getattr(ref, method)(values)


@given(host_values(max_dims=2), array_forms, st.sampled_from(METHODS), st.data())
def test_updates_match_the_general_path(value, form, method, data):
    x = as_input(value, form)
    idx = data.draw(indices(value.shape))
    values = _update_values(data.draw, x)
    assert_same_outcome(lambda: _update(x, idx, method, values))


@given(host_values(max_dims=1), st.sampled_from(METHODS), st.data())
def test_repeated_entries_accumulate_as_the_general_path(value, method, data):
    x = fnp.asarray(value)
    size = value.shape[0] if value.ndim else 0
    entries = data.draw(st.lists(st.integers(-size, size - 1), min_size=1, max_size=6)
                        ) if size else [0]
    if data.draw(st.booleans()):
        values = fnp.asarray(_from_numbers(data.draw(_numbers(value.dtype, len(entries))),
                                           value.dtype))
    else:
        values = _update_values(data.draw, x)
    assert_same_outcome(lambda: _update(x, entries, method, values))


def test_update_keywords_other_than_the_defaults_run_the_general_path():
    x = fnp.arange(4.0)
    ref = x.at[np.array([1, 7])]
    for keywords in ({"mode": "drop"}, {"mode": "clip"}, {"unique_indices": True},
                     {"indices_are_sorted": True}):
        assert_same_outcome(lambda: ref.set(1.0, **keywords))
        assert update_shortcut("set")(ref, 1.0, **keywords) is NotImplemented
    assert_same_outcome(lambda: ref.get(mode="fill", fill_value=-1.0))
    assert get_on_host(ref, mode="fill") is NotImplemented


def test_apply_runs_its_function_once():
    calls = []

    def double(v):
        calls.append(v.shape)
        return v * 2

    out = fnp.arange(5).at[np.array([0, 0, 3])].apply(double)
    np.testing.assert_array_equal(out, [0, 1, 2, 6, 4])
    assert calls == [(3,)]


@pytest.mark.parametrize("form", ["array", "device"])
@pytest.mark.parametrize("method", METHODS)
def test_the_common_updates_take_the_shortcut(form, method):
    x = as_input(np.arange(64 * 64, dtype=np.float32).reshape(64, 64), form)
    # out of bounds, dropped (apply leaves those to the general path)
    dropped = () if method == "apply" else (
        (70, 1.0), ((slice(None), -65), 2.0), ((np.array([0, 99, -80, -1]), 5), 3.0),
        ([1, 70], fnp.ones(64)))
    for idx, values in ((3, 1.0), ((0, slice(1, 3)), 2.0), ([1, 1, 2], fnp.ones(64)),
                        ((np.array([0, 2]), 5), fnp.asarray([3.0, 4.0])),
                        (slice(None, None, 2), 1), (fnp.asarray(4), 0.5), *dropped):
        ref = x.at[idx]
        if method == "get":
            out = get_on_host(ref)
        elif method in ("divide", "power"):
            out = {"divide": divide_on_host, "power": power_on_host}[method](ref, values)
        else:
            argument = (lambda v: v + 1) if method == "apply" else values
            out = update_shortcut(method)(ref, argument)
        assert type(out) is Array, (method, idx)
        assert_same_outcome(lambda: _update(x, idx, method, values))


def test_declined_updates_run_the_general_path():
    x = fnp.arange(6).reshape(2, 3)
    for idx, values in ((np.array([0, 9]), 1), ((0, 7), 1), (slice(0, 0), 1), (0, [1, 2]),
                        (0, 2**40), (0, "a"), ((), 1)):
        for method in ("set", "add", "apply"):
            assert_same_outcome(lambda: _update(x, idx, method, values))
    assert_same_outcome(lambda: fnp.asarray(True).at[()].subtract(True))
    assert_same_outcome(lambda: fnp.asarray([True]).at[0].subtract(True))
    assert_same_outcome(lambda: fnp.zeros((0, 2)).at[0].set(1.0))


def test_update_dtypes_as_the_general_path():
    for dtype in ALL_DTYPES:
        x = fnp.asarray(np.arange(4).astype(dtype))
        for values in (1.5, -1, 3, True, 2j, fnp.asarray(2.0), fnp.asarray([1, 2], dtypes.uint8)):
            for method in ("set", "add", "subtract", "multiply", "min", "max"):
                assert_same_outcome(lambda: _update(x, slice(1, 3), method, values))
                assert_same_outcome(lambda: _update(x, [1, 1], method, values))
