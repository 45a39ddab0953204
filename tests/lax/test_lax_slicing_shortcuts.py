"""The host shortcuts of ``lax.slice``, ``slice_in_dim``, ``index_in_dim``, the
``dynamic_slice``/``dynamic_update_slice`` family, ``gather`` and the scatters
(``funcarray/lax/_slicing_on_host.py``) give the general path's outcome
(``tests/shortcut_oracle.py``): the same result (type, shape, dtype, weak type, bits) or the
same error, for every dtype, empty and 0-d operands, operands as Arrays, weak arrays, device
arrays, NumPy arrays and lists, starts and indices in and out of bounds (negative, past the
end, of every integer dtype), every gather/scatter mode, repeated scatter indices, and bad
arguments. The last tests check that the shortcuts take the common forms themselves."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from indexing_operands import INDEX_DTYPES, KINDS, as_kind, edge_values, operands
from op_table import ALL_DTYPES
from shortcut_oracle import assert_same_outcome

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import lax
from funcarray.lax import _slicing_on_host as shortcuts

_INDEX = st.integers(-6, 6)


def _start(draw):
    """One start index: a Python int, a NumPy integer, a 0-d array of any integer dtype (or a
    bool, a float: errors)."""
    i = draw(_INDEX)
    form = draw(st.sampled_from(["int", "int", "numpy", "array", "array", "device", "device",
                                 "bool", "float"]))
    if form == "int":
        return i
    if form == "bool":
        return True
    if form == "float":
        return float(i)
    dtype = draw(st.sampled_from(INDEX_DTYPES))
    with np.errstate(over="ignore"):
        value = np.asarray(i).astype(dtype)
    if form == "numpy":
        return value[()]
    return fnp.asarray(value) if form == "array" else fa.device_put(fnp.asarray(value))


@st.composite
def starts(draw, ndim):
    """Start indices for ``ndim`` dimensions (sometimes a wrong count), as a tuple, a list, or
    a 1-D integer array (host or device)."""
    n = ndim if draw(st.integers(0, 9)) else draw(st.integers(0, 3))
    form = draw(st.sampled_from(["tuple", "list", "array", "device"]))
    if form in ("array", "device"):
        dtype = draw(st.sampled_from(INDEX_DTYPES))
        with np.errstate(over="ignore"):
            value = np.asarray([draw(_INDEX) for _ in range(n)]).astype(dtype)
        return fnp.asarray(value) if form == "array" else fa.device_put(fnp.asarray(value))
    items = [_start(draw) for _ in range(n)]
    return tuple(items) if form == "tuple" else items


_ALLOW = st.sampled_from([True, True, True, False, False, (True, False), [False, True, True],
                          1])


@settings(max_examples=120, deadline=None)
@given(operands(), st.data())
def test_static_slices_match_general_path(x, data):
    operand, value = x
    ndim = value.ndim
    bounds = st.lists(st.integers(-1, 5), min_size=ndim, max_size=ndim + (data.draw(
        st.integers(0, 6)) == 0))
    start, limit = data.draw(bounds), data.draw(bounds)
    strides = data.draw(st.one_of(st.none(), st.lists(st.integers(0, 3), min_size=ndim,
                                                      max_size=ndim)))
    assert_same_outcome(lambda: lax.slice(operand, start, limit, strides))
    assert_same_outcome(lambda: lax.slice(operand, (0,) * ndim, value.shape))
    s, lim = data.draw(st.one_of(st.none(), _INDEX)), data.draw(st.one_of(st.none(), _INDEX))
    stride, axis = data.draw(st.integers(0, 3)), data.draw(st.integers(-3, 3))
    keepdims = data.draw(st.booleans())
    assert_same_outcome(lambda: lax.slice_in_dim(operand, s, lim, stride, axis))
    assert_same_outcome(lambda: lax.slice_in_dim(operand, s, lim, axis=axis))
    index = data.draw(_INDEX)
    assert_same_outcome(lambda: lax.index_in_dim(operand, index, axis, keepdims))


@settings(max_examples=150, deadline=None)
@given(operands(), st.data())
def test_dynamic_slices_match_general_path(x, data):
    operand, value = x
    ndim = value.ndim
    sizes = [data.draw(st.integers(0, n + (data.draw(st.integers(0, 9)) == 0)))
             for n in value.shape]
    allow = data.draw(_ALLOW)
    st_ = data.draw(starts(ndim))
    assert_same_outcome(lambda: lax.dynamic_slice(operand, st_, sizes,
                                                  allow_negative_indices=allow))
    index, axis = _start(data.draw), data.draw(st.integers(-3, 3))
    size, keepdims = data.draw(st.integers(0, 2)), data.draw(st.booleans())
    flag = data.draw(st.booleans())
    assert_same_outcome(lambda: lax.dynamic_slice_in_dim(operand, index, size, axis,
                                                         allow_negative_indices=flag))
    assert_same_outcome(lambda: lax.dynamic_index_in_dim(operand, index, axis, keepdims,
                                                         allow_negative_indices=flag))


@settings(max_examples=150, deadline=None)
@given(operands(), st.data())
def test_dynamic_updates_match_general_path(x, data):
    operand, value = x
    ndim = value.ndim
    shape = tuple(data.draw(st.integers(0, n + (data.draw(st.integers(0, 9)) == 0)))
                  for n in value.shape)
    if data.draw(st.integers(0, 6)) == 0:
        shape = shape[1:]
    dtype = value.dtype if data.draw(st.integers(0, 4)) else np.dtype(
        fnp.dtype(data.draw(st.sampled_from(ALL_DTYPES))))
    update = as_kind(edge_values(data.draw, dtype, shape), data.draw(st.sampled_from(KINDS[:5])))
    allow = data.draw(_ALLOW)
    st_ = data.draw(starts(ndim))
    assert_same_outcome(lambda: lax.dynamic_update_slice(operand, update, st_,
                                                         allow_negative_indices=allow))
    index, axis, flag = _start(data.draw), data.draw(st.integers(-3, 3)), data.draw(
        st.booleans())
    assert_same_outcome(lambda: lax.dynamic_update_slice_in_dim(
        operand, update, index, axis, allow_negative_indices=flag))
    assert_same_outcome(lambda: lax.dynamic_update_index_in_dim(
        operand, update, index, axis, allow_negative_indices=flag))
    if ndim:  # an update without the axis
        row = as_kind(edge_values(data.draw, value.dtype, value.shape[:axis % ndim]
                         + value.shape[axis % ndim + 1:]), data.draw(st.sampled_from(KINDS)))
        assert_same_outcome(lambda: lax.dynamic_update_index_in_dim(
            operand, row, index, axis, allow_negative_indices=flag))


_MODES = st.sampled_from([None, "clip", "fill", "drop", "promise_in_bounds", "wrap",
                          lax.GatherScatterMode.CLIP, lax.GatherScatterMode.FILL_OR_DROP,
                          lax.GatherScatterMode.PROMISE_IN_BOUNDS])


@st.composite
def take_forms(draw, value_shape):
    """``(index_map, batch shape of the indices, the window's result dims)``: the take form
    (sometimes not quite: repeated or unsorted dims, a wrong count)."""
    ndim = len(value_shape)
    dims = list(range(ndim))
    k = draw(st.integers(0 if draw(st.integers(0, 9)) == 0 else 1, ndim)) if ndim else 0
    index_map = tuple(draw(st.permutations(dims))[:k])
    if draw(st.integers(0, 9)) == 0 and index_map:
        index_map = index_map + index_map[:1]
    batch = tuple(draw(st.lists(st.integers(0, 3), max_size=2)))
    n_offset = ndim - len(set(index_map))
    rank = len(batch) + n_offset
    offsets = tuple(sorted(draw(st.permutations(list(range(rank))))[:n_offset]))
    return index_map, batch, offsets


def _indices(data, value_shape, index_map, batch):
    dtype = data.draw(st.sampled_from(INDEX_DTYPES + (np.int32, np.int32)))
    bound = max(value_shape, default=1) + 2
    n = int(np.prod(batch)) * len(index_map)
    values = st.integers(-bound, bound) if data.draw(st.booleans()) else st.integers(
        0, max(max(value_shape, default=1) - 1, 0))
    raw = np.asarray(data.draw(st.lists(values, min_size=n, max_size=n)))
    with np.errstate(over="ignore"):
        idx = raw.astype(dtype).reshape(batch + (len(index_map),))
    return as_kind(idx, data.draw(st.sampled_from(["array", "device", "numpy", "array", "device"])))


def _take_case(data, value):
    """``(index_map, batch shape, window dims, indices, the dropped dims)``."""
    index_map, batch, dims = data.draw(take_forms(value.shape))
    idx = _indices(data, value.shape, index_map, batch)
    return index_map, batch, dims, idx, tuple(sorted(set(index_map)))


_TAKE_OPERANDS = operands(shapes=[(0,), (1,), (4,), (2, 3), (3, 0), (2, 1, 3)],
                          kinds=("array", "weak", "device", "array", "numpy"))


@settings(max_examples=300, deadline=None)
@given(_TAKE_OPERANDS, st.data())
def test_gather_matches_general_path(x, data):
    operand, value = x
    index_map, _, offsets, idx, collapsed = _take_case(data, value)
    sizes = [1 if d in collapsed else n for d, n in enumerate(value.shape)]
    if data.draw(st.integers(0, 6)) == 0 and sizes:
        sizes[data.draw(st.integers(0, len(sizes) - 1))] -= 1
    dn = lax.GatherDimensionNumbers(offset_dims=offsets, collapsed_slice_dims=collapsed,
                                    start_index_map=index_map)
    mode = data.draw(_MODES)
    fill = data.draw(st.sampled_from([None, None, 0, -3, 2.5, True, np.float32(1.0)]))
    assert_same_outcome(lambda: lax.gather(operand, idx, dn, sizes, mode=mode,
                                           fill_value=fill))


_SCATTERS = (lax.scatter, lax.scatter_add, lax.scatter_sub, lax.scatter_mul,
             lax.scatter_min, lax.scatter_max)


@settings(max_examples=500, deadline=None)
@given(_TAKE_OPERANDS, st.data())
def test_scatters_match_general_path(x, data):
    operand, value = x
    index_map, batch, windows, idx, inserted = _take_case(data, value)
    rest = [n for d, n in enumerate(value.shape) if d not in inserted]
    # the updates: batch dimensions where ``windows`` are not, the window's where they are
    shape, it, rt = [], iter(batch), iter(rest)
    for d in range(len(batch) + len(rest)):
        shape.append(next(rt) if d in windows else next(it, 1))
    if data.draw(st.integers(0, 8)) == 0 and shape:
        shape[0] += 1
    dtype = value.dtype if data.draw(st.integers(0, 6)) else np.dtype(
        fnp.dtype(data.draw(st.sampled_from(ALL_DTYPES))))
    updates = as_kind(edge_values(data.draw, dtype, tuple(shape)),
                  data.draw(st.sampled_from(["array", "weak", "device", "array", "numpy"])))
    dn = lax.ScatterDimensionNumbers(update_window_dims=windows, inserted_window_dims=inserted,
                                     scatter_dims_to_operand_dims=index_map)
    op, mode = data.draw(st.sampled_from(_SCATTERS)), data.draw(_MODES)
    with np.errstate(all="ignore"):
        assert_same_outcome(lambda: op(operand, idx, updates, dn, mode=mode))


def _many_indices(data, n, batch, k):
    """Indices of ``batch + (k,)`` for a dimension of size ``n``: in bounds and repeated
    often, with a few of them (often one) just outside (negative or past the end), of any
    integer dtype and kind."""
    dtype = data.draw(st.sampled_from(INDEX_DTYPES))
    count = int(np.prod(batch)) * k
    raw = np.asarray(data.draw(st.lists(st.integers(0, n - 1), min_size=count,
                                        max_size=count)), np.int64)
    for _ in range(data.draw(st.sampled_from([0, 0, 1, 1, 2])) if count else 0):
        raw[data.draw(st.integers(0, count - 1))] = data.draw(
            st.sampled_from([-1, -2, n, n + 1, -n]))
    with np.errstate(over="ignore"):
        idx = raw.astype(dtype).reshape(batch + (k,))
    return as_kind(idx, data.draw(st.sampled_from(["array", "device", "array", "numpy"])))


# Index counts on both sides of the count below which bounds are checked as Python ints.
_MANY = st.sampled_from([0, 1, 2, shortcuts._FEW_INDICES - 1, shortcuts._FEW_INDICES,
                         shortcuts._FEW_INDICES + 1, 3 * shortcuts._FEW_INDICES])


@settings(max_examples=300, deadline=None)
@given(operands(shapes=[(1,), (4,), (7,)], kinds=("array", "weak", "device", "array")),
       st.data())
def test_scatters_into_vectors_match_general_path(x, data):
    # a 1-D operand: the flat positions are the index column itself
    operand, value = x
    count = data.draw(_MANY)
    batch = (count,) if data.draw(st.integers(0, 3)) else (count // 2, 2)
    idx = _many_indices(data, value.shape[0], batch, 1)
    updates = as_kind(edge_values(data.draw, value.dtype, batch),
                      data.draw(st.sampled_from(["array", "weak", "device", "numpy"])))
    dn = lax.ScatterDimensionNumbers((), (0,), (0,))
    op, mode = data.draw(st.sampled_from(_SCATTERS)), data.draw(_MODES)
    with np.errstate(all="ignore"):
        assert_same_outcome(lambda: op(operand, idx, updates, dn, mode=mode))


@settings(max_examples=200, deadline=None)
@given(operands(shapes=[(4,), (3, 2), (2, 3, 2)], kinds=("array", "device")), st.data())
def test_gathers_and_scatters_of_many_index_vectors_match_general_path(x, data):
    operand, value = x
    k = data.draw(st.integers(1, value.ndim))
    count = data.draw(_MANY)
    batch = (count,) if data.draw(st.integers(0, 3)) else (2, count // 2)
    idx = _many_indices(data, min(value.shape[:k]), batch, k)
    rest = value.shape[k:]
    gdn = lax.GatherDimensionNumbers(offset_dims=tuple(range(len(batch), len(batch) + len(rest))),
                                     collapsed_slice_dims=tuple(range(k)),
                                     start_index_map=tuple(range(k)))
    mode = data.draw(_MODES)
    assert_same_outcome(lambda: lax.gather(operand, idx, gdn, (1,) * k + rest, mode=mode))
    updates = as_kind(edge_values(data.draw, value.dtype, batch + rest),
                      data.draw(st.sampled_from(["array", "device"])))
    sdn = lax.ScatterDimensionNumbers(
        update_window_dims=tuple(range(len(batch), len(batch) + len(rest))),
        inserted_window_dims=tuple(range(k)), scatter_dims_to_operand_dims=tuple(range(k)))
    op = data.draw(st.sampled_from(_SCATTERS))
    with np.errstate(all="ignore"):
        assert_same_outcome(lambda: op(operand, idx, updates, sdn, mode=mode))


def test_scatter_repeated_indices_combine_in_the_general_paths_order():
    x = fnp.asarray(np.array([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]], np.float32))
    idx = fnp.asarray(np.array([[2], [0], [2], [2], [-1], [3]], np.int32))
    u = fnp.asarray(np.array([[1e8, 1.0], [2.0, 3.0], [-1e8, 0.5], [1.0, np.nan],
                              [9.0, 9.0], [7.0, 7.0]], np.float32))
    dn = lax.ScatterDimensionNumbers((1,), (0,), (0,))
    for op in _SCATTERS:
        for mode in (None, "clip", "promise_in_bounds"):
            assert_same_outcome(lambda: op(x, idx, u, dn, mode=mode))
    # a vector: the flat positions are the indices themselves
    v = fnp.asarray(np.array([0.0, -0.0, 1.0, np.inf], np.float32))
    dn1 = lax.ScatterDimensionNumbers((), (0,), (0,))
    for op in _SCATTERS:
        for mode in (None, "clip", "promise_in_bounds"):
            assert_same_outcome(lambda: op(v, idx, u[:, 0] * fnp.float32(-1), dn1, mode=mode))
            assert_same_outcome(lambda: op(v, idx, u[:, 1], dn1, mode=mode))
    # a transposed layout: the indexed dimension last, the window first
    dn = lax.ScatterDimensionNumbers((0,), (1,), (1,))
    ut = fnp.asarray(np.arange(18, dtype=np.float32).reshape(3, 6))
    for op in _SCATTERS:
        assert_same_outcome(lambda: op(x, fnp.asarray(np.array([[1], [0], [1], [1], [0], [1]])),
                                       ut, dn))


def test_shortcuts_take_the_common_forms():
    for shape in [(4,), (64, 64)]:
        value = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
        for x in (fnp.asarray(value), fa.device_put(fnp.asarray(value))):
            ndim = len(shape)
            assert shortcuts.slice_on_host(x, (0,) * ndim, (2,) * ndim) is not NotImplemented
            assert shortcuts.slice_in_dim_on_host(x, 0, 2) is not NotImplemented
            assert shortcuts.index_in_dim_on_host(x, 1) is not NotImplemented
            assert shortcuts.dynamic_slice_on_host(x, (1,) * ndim, (2,) * ndim) \
                is not NotImplemented
            assert shortcuts.dynamic_slice_in_dim_on_host(x, 1, 2) is not NotImplemented
            assert shortcuts.dynamic_index_in_dim_on_host(x, 1) is not NotImplemented
            y = x[(slice(0, 2),) * ndim]
            assert shortcuts.dynamic_update_slice_on_host(x, y, (1,) * ndim) \
                is not NotImplemented
            assert shortcuts.dynamic_update_slice_in_dim_on_host(x, x[:2], 1, 0) \
                is not NotImplemented
            assert shortcuts.dynamic_update_index_in_dim_on_host(x, x[:1], 1, 0) \
                is not NotImplemented
            idx = fnp.asarray(np.array([[0], [2]], np.int32))
            gdn = lax.GatherDimensionNumbers(offset_dims=tuple(range(1, ndim)),
                                             collapsed_slice_dims=(0,), start_index_map=(0,))
            assert shortcuts.gather_on_host(x, idx, gdn, (1, *shape[1:])) is not NotImplemented
            sdn = lax.ScatterDimensionNumbers(update_window_dims=tuple(range(1, ndim)),
                                              inserted_window_dims=(0,),
                                              scatter_dims_to_operand_dims=(0,))
            for name in ("scatter", "scatter_add", "scatter_sub", "scatter_mul", "scatter_min",
                         "scatter_max"):
                rule = shortcuts.scatter_shortcut(name)
                assert rule(x, idx, x[:2], sdn) is not NotImplemented
