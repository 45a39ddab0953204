"""Lowering rules of the indexing primitives (dynamic_slice, dynamic_update_slice, gather, the
scatters, sort): compiled (StableHLO -> XLA) against eager (the NumPy kernels, the oracle).

Each primitive is drawn with Hypothesis over shapes (0-d and empty included), dimension
numbers, modes, index dtypes, value dtypes and values (NaN, inf, -0.0); the public functions
that bind them (``x[idx]``, ``x.at[idx]``, sort, argsort, take, take_along_axis) run compiled
too.
"""

from __future__ import annotations

import hypothesis.strategies as st
import numpy as np
import pytest
from helpers import assert_compiled_matches_eager
from hypothesis import given, settings

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import dtypes
from funcarray.base.array import Array
from funcarray.lowering.stablehlo import lower_ir
from funcarray.primitives import scatter as scatter_module
from funcarray.primitives.dynamic_slice import (
    dynamic_slice,
    dynamic_slice_p,
    dynamic_update_slice,
    dynamic_update_slice_p,
)
from funcarray.primitives.gather import gather, gather_p
from funcarray.primitives.gather_scatter_dims import GatherDimensionNumbers, ScatterDimensionNumbers
from funcarray.primitives.scatter import _operand_window, scatter_add, scatter_p
from funcarray.primitives.sort import sort, sort_p
from funcarray.transforms.staging import make_ir

VALUE_DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                np.uint32, np.uint64, np.float16, dtypes.bfloat16, np.float32, np.float64,
                np.complex64, np.complex128]
INDEX_DTYPES = [np.int8, np.int32, np.int64, np.uint8, np.uint32, np.uint64]
SCATTERS = ["scatter", "scatter_add", "scatter_mul", "scatter_min", "scatter_max"]


# --------------------------------------------------------------------------------------------
# Values
# --------------------------------------------------------------------------------------------

def _rng(draw):
    return np.random.default_rng(draw(st.integers(0, 2**32 - 1)))


def _values(rng, shape, dtype, *, low=-3, high=4, specials=True) -> Array:
    """Small integers (so sums and products are exact in every dtype, and ties are common),
    with NaN, +-inf and -0.0 sprinkled into floats when ``specials``."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return Array(rng.integers(0, 2, shape).astype(bool))
    if dtype.kind == "u":
        low = 0
    base = rng.integers(low, high, shape)
    if dtype.kind == "c":
        base = base + 1j * rng.integers(low, high, shape)
    value = base.astype(dtype)
    if specials and dtypes.is_inexact(dtype) and value.size:
        flat = value.reshape(-1)
        for special in (np.nan, np.inf, -np.inf, -0.0):
            where = rng.random(flat.size) < 0.1
            flat[where] = special
        value = flat.reshape(shape)
    return Array(value)


def _indices(rng, shape, dtype, bounds) -> Array:
    """Index vectors (last dimension) with component ``k`` in ``[-2, bounds[k] + 2]``
    (``[0, ...]`` for unsigned dtypes): in and out of bounds."""
    low = 0 if np.dtype(dtype).kind == "u" else -2
    columns = [rng.integers(low, b + 3, shape[:-1]) for b in bounds]
    value = np.stack(columns, -1) if columns else np.zeros(shape, np.int64)
    return Array(value.reshape(shape).astype(dtype))


def _shape(draw, max_rank=3, min_rank=0, max_dim=4):
    rank = draw(st.integers(min_rank, max_rank))
    return tuple(draw(st.integers(0, max_dim)) for _ in range(rank))


def _subset(draw, items, max_size=None):
    items = list(items)
    chosen = draw(st.lists(st.sampled_from(items), unique=True, max_size=max_size)) \
        if items else []
    return chosen


# --------------------------------------------------------------------------------------------
# dynamic_slice / dynamic_update_slice
# --------------------------------------------------------------------------------------------

@st.composite
def _dynamic_slice_cases(draw):
    shape = _shape(draw)
    sizes = tuple(draw(st.integers(0, n)) for n in shape)
    index_dtype = draw(st.sampled_from(INDEX_DTYPES))
    low = 0 if np.dtype(index_dtype).kind == "u" else -3
    starts = [Array(np.asarray(draw(st.integers(low, n + 3)), index_dtype)) for n in shape]
    return shape, sizes, starts, draw(st.sampled_from(VALUE_DTYPES)), _rng(draw)


@settings(max_examples=25)
@given(_dynamic_slice_cases())
def test_dynamic_slice_and_update_compile_like_eager(case):
    shape, sizes, starts, dtype, rng = case
    x = _values(rng, shape, dtype)
    update = _values(rng, sizes, dtype)
    assert_compiled_matches_eager(
        lambda x, *s: dynamic_slice_p.bind(x, *s, slice_sizes=sizes), x, *starts)
    assert_compiled_matches_eager(
        lambda x, u, *s: dynamic_update_slice_p.bind(x, u, *s), x, update, *starts)


# --------------------------------------------------------------------------------------------
# gather
# --------------------------------------------------------------------------------------------

@st.composite
def _gather_cases(draw):
    """A valid gather: operand, indices and every parameter drawn at random."""
    shape = _shape(draw)
    rank = len(shape)
    batching = sorted(_subset(draw, range(rank), max_size=1))
    others = [d for d in range(rank) if d not in batching]
    start_index_map = tuple(_subset(draw, others))
    collapsed = tuple(sorted(_subset(draw, [d for d in others if shape[d]])))
    slice_sizes = [min(n, 1) if d in batching or d in collapsed else draw(st.integers(0, n))
                   for d, n in enumerate(shape)]
    # The indices' batch dimensions: a few free ones, plus one per operand batching dim.
    free = [draw(st.integers(0, 3)) for _ in range(draw(st.integers(0, 2)))]
    batch_shape = list(free)
    indices_batching = []
    for d in batching:
        position = draw(st.integers(0, len(batch_shape)))
        batch_shape.insert(position, shape[d])
        indices_batching = [p + (p >= position) for p in indices_batching] + [position]
    dropped = set(collapsed) | set(batching)
    n_offset = rank - len(dropped)
    out_rank = len(batch_shape) + n_offset
    offset_dims = tuple(sorted(draw(st.permutations(range(out_rank)))[:n_offset]))
    dn = GatherDimensionNumbers(
        offset_dims=offset_dims, collapsed_slice_dims=collapsed,
        start_index_map=start_index_map, operand_batching_dims=tuple(batching),
        start_indices_batching_dims=tuple(indices_batching))
    rng = _rng(draw)
    index_dtype = draw(st.sampled_from(INDEX_DTYPES))
    bounds = [shape[d] - slice_sizes[d] for d in start_index_map]
    indices = _indices(rng, (*batch_shape, len(start_index_map)), index_dtype, bounds)
    operand = _values(rng, shape, draw(st.sampled_from(VALUE_DTYPES)))
    return operand, indices, dn, tuple(slice_sizes)


@settings(max_examples=40)
@given(_gather_cases(), st.sampled_from(["clip", "fill", "promise_in_bounds"]),
       st.sampled_from([None, 0, 1]))
def test_gather_compiles_like_eager(case, mode, fill_value):
    operand, indices, dn, slice_sizes = case

    def f(x, i):
        return gather_p.bind(x, i, dimension_numbers=dn, slice_sizes=slice_sizes,
                                indices_are_sorted=False, unique_indices=False, mode=mode,
                                fill_value=fill_value)

    assert_compiled_matches_eager(f, operand, indices)


@pytest.mark.parametrize("index_dtype", [np.int8, np.uint8])
@pytest.mark.parametrize("mode", ["clip", "fill"])
def test_gather_bounds_past_the_index_dtype(index_dtype, mode):
    # 300 rows: the last valid start does not fit in 8 bits, so every int8/uint8 start is in
    # bounds; the mask must not wrap the bound.
    x = fnp.arange(300 * 2, dtype=fnp.float32).reshape(300, 2)
    info = np.iinfo(index_dtype)
    i = Array(np.array([[info.min], [0], [info.max]], index_dtype))
    dn = GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                   start_index_map=(0,))
    assert_compiled_matches_eager(lambda x, i: gather(x, i, dn, (1, 2), mode=mode), x, i)


# --------------------------------------------------------------------------------------------
# The scatters
# --------------------------------------------------------------------------------------------

@st.composite
def _scatter_cases(draw, unique=False):
    """A valid scatter. ``unique``: no two updates land on one element (for ``scatter``,
    whose choice among repeated writes is unspecified)."""
    shape = _shape(draw, min_rank=1 if unique else 0)
    rank = len(shape)
    batching = sorted(_subset(draw, range(rank), max_size=1))
    others = [d for d in range(rank) if d not in batching]
    inserted = sorted(_subset(draw, others))
    to_operand = tuple(_subset(draw, others))
    window_dims = [d for d in others if d not in inserted]
    window = [draw(st.integers(0, shape[d])) for d in window_dims]
    free = [draw(st.integers(0, 1 if unique else 3))
            for _ in range(draw(st.integers(0, 1 if unique else 2)))]
    batch_shape = list(free)
    indices_batching = []
    for d in batching:
        position = draw(st.integers(0, len(batch_shape)))
        batch_shape.insert(position, shape[d])
        indices_batching = [p + (p >= position) for p in indices_batching] + [position]
    updates_rank = len(batch_shape) + len(window)
    update_window_dims = tuple(sorted(draw(st.permutations(range(updates_rank)))[:len(window)]))
    updates_shape = [None] * updates_rank
    for d, n in zip(update_window_dims, window):
        updates_shape[d] = n
    rest = iter(batch_shape)
    updates_shape = tuple(next(rest) if n is None else n for n in updates_shape)
    dn = ScatterDimensionNumbers(
        update_window_dims=update_window_dims, inserted_window_dims=tuple(inserted),
        scatter_dims_to_operand_dims=to_operand, operand_batching_dims=tuple(batching),
        scatter_indices_batching_dims=tuple(indices_batching))
    full_window = _operand_window(rank, dn, window)
    bounds = [shape[d] - full_window[d] for d in to_operand]
    rng = _rng(draw)
    indices = _indices(rng, (*batch_shape, len(to_operand)), draw(st.sampled_from(INDEX_DTYPES)),
                       bounds)
    return shape, indices, updates_shape, dn, rng


@settings(max_examples=40)
@given(_scatter_cases(), st.sampled_from(SCATTERS[1:]), st.sampled_from(["drop", "clip"]),
       st.sampled_from(VALUE_DTYPES))
def test_combining_scatters_compile_like_eager(case, name, mode, dtype):
    shape, indices, updates_shape, dn, rng = case
    # Products of many small integers overflow floats to inf in both engines alike, but a NaN
    # times 0 in another order is still NaN: specials are fine everywhere.
    operand = _values(rng, shape, dtype)
    updates = _values(rng, updates_shape, dtype, low=-2, high=3)
    prim = getattr(scatter_module, f"{name}_p")

    def f(x, i, u):
        return prim.bind(x, i, u, dimension_numbers=dn, indices_are_sorted=False,
                         unique_indices=False, mode=mode)

    assert_compiled_matches_eager(f, operand, indices, updates)


@settings(max_examples=30)
@given(_scatter_cases(unique=True), st.sampled_from(["drop", "clip", "promise_in_bounds"]),
       st.sampled_from(VALUE_DTYPES), st.booleans())
def test_replacing_scatter_compiles_like_eager(case, mode, dtype, unique_indices):
    shape, indices, updates_shape, dn, rng = case
    operand = _values(rng, shape, dtype)
    updates = _values(rng, updates_shape, dtype)

    def f(x, i, u):
        return scatter_p.bind(x, i, u, dimension_numbers=dn, indices_are_sorted=False,
                                 unique_indices=unique_indices, mode=mode)

    assert_compiled_matches_eager(f, operand, indices, updates)


@pytest.mark.parametrize("name", SCATTERS)
@pytest.mark.parametrize("mode", ["drop", "clip"])
def test_scatter_rows_with_repeats_and_out_of_bounds(name, mode):
    x = fnp.arange(15, dtype=fnp.float32).reshape(5, 3)
    # Repeats for the combining scatters; the replacing one gets distinct rows.
    rows = [[4], [-1], [7], [0]] if name == "scatter" else [[1], [1], [-1], [7], [4], [4]]
    # (clip with uint8 indices: -1 wraps to row 255, far out of bounds)
    dtype = np.uint8 if mode == "clip" and name == "scatter" else np.int32
    i = fnp.asarray(np.array(rows).astype(dtype))
    u = fnp.arange(len(rows) * 3, dtype=fnp.float32).reshape(len(rows), 3) - 4
    dn = ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                    scatter_dims_to_operand_dims=(0,))
    scatter = getattr(scatter_module, name)
    out = assert_compiled_matches_eager(lambda x, i, u: scatter(x, i, u, dn, mode=mode), x, i, u)
    if mode == "drop":
        assert np.array_equal(np.asarray(out)[2:4], np.asarray(x)[2:4])  # untouched rows


def test_scatter_clip_bound_past_the_index_dtype():
    x = fnp.zeros((300,), dtype=fnp.int32)
    i = Array(np.array([[127], [-128], [5]], np.int8))
    u = fnp.array([1, 2, 3], dtype=fnp.int32)
    dn = ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                    scatter_dims_to_operand_dims=(0,))
    out = assert_compiled_matches_eager(
        lambda x, i, u: scatter_add(x, i, u, dn, mode="clip"), x, i, u)
    assert int(np.asarray(out)[127]) == 1 and int(np.asarray(out)[0]) == 2


# --------------------------------------------------------------------------------------------
# sort
# --------------------------------------------------------------------------------------------

SORT_DTYPES = [np.bool_, np.int8, np.uint16, np.int32, np.uint64, np.float16,
               dtypes.bfloat16, np.float32, np.float64, np.complex64, np.complex128]


@settings(max_examples=40)
@given(st.data())
def test_sort_compiles_like_eager(data):
    shape = _shape(data.draw, max_dim=5)
    dimension = data.draw(st.integers(0, len(shape) - 1)) if shape else 0
    n = data.draw(st.integers(1, 3))
    num_keys = data.draw(st.integers(1, n))
    rng = _rng(data.draw)
    operands = [_values(rng, shape, data.draw(st.sampled_from(SORT_DTYPES)), low=-2, high=2)
                for _ in range(n)]
    # Unstable sorts may order ties differently: only a single operand is well defined then
    # (ties differ by bits the comparison ignores: -0.0/0.0 and NaN payloads).
    is_stable = True if n > 1 else data.draw(st.booleans())

    def f(*xs):
        return sort_p.bind(*xs, dimension=dimension, is_stable=is_stable, num_keys=num_keys)

    assert_compiled_matches_eager(f, *operands)


def test_sort_float_order_is_total():
    x = fnp.array([np.nan, 1.0, -np.nan, -0.0, -np.inf, 0.0, np.inf, -1.0, np.nan, -0.0])
    order = fnp.arange(10)
    keys, positions = assert_compiled_matches_eager(
        lambda x, o: sort([x, o], dimension=0), x, order)
    # NaNs of either sign last, -0.0 and 0.0 tied (so their positions stay in order).
    np.testing.assert_array_equal(np.asarray(positions), [4, 7, 3, 5, 9, 1, 6, 0, 2, 8])


# --------------------------------------------------------------------------------------------
# Through the public API
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.uint8])
def test_getitem_compiles_like_eager(dtype):
    x = _values(np.random.default_rng(0), (4, 5, 3), dtype)
    i = fnp.array([3, -1, 0, 7, -9])
    j = fnp.array([[1], [2]], dtype=fnp.uint8)
    mask = np.array([True, False, True, True, False])  # concrete: its count fixes a shape
    assert_compiled_matches_eager(lambda x, i: x[i], x, i)
    assert_compiled_matches_eager(lambda x, i, j: x[1:, i, j], x, i, j)
    assert_compiled_matches_eager(lambda x, i: x[..., i[0]], x, i)
    assert_compiled_matches_eager(lambda x: x[:, mask], x)
    assert_compiled_matches_eager(lambda x, i: x[i[1], ::-2, None], x, i)


@pytest.mark.parametrize("method", ["set", "add", "multiply", "min", "max"])
def test_at_updates_compile_like_eager(method):
    x = fnp.arange(20.0).reshape(4, 5)
    rows = fnp.array([2, 0, -1, 6] if method == "set" else [2, 0, 2, -1, 6])

    def f(x, rows):
        return getattr(x.at[rows, 1:4], method)(fnp.array([-3.0, 4.0, 100.0]))

    assert_compiled_matches_eager(f, x, rows)
    assert_compiled_matches_eager(lambda x: getattr(x.at[1, 2], method)(7.0), x)
    assert_compiled_matches_eager(
        lambda x, rows: getattr(x.at[rows], method)(-1.0, mode="clip"), x, rows)


@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.bool_, dtypes.bfloat16])
def test_sort_argsort_compile_like_eager(dtype):
    x = _values(np.random.default_rng(1), (3, 6), dtype, low=-2, high=3)
    for axis in (0, -1, None):
        assert_compiled_matches_eager(lambda x: fnp.sort(x, axis=axis), x)
        assert_compiled_matches_eager(lambda x: fnp.argsort(x, axis=axis), x)
        assert_compiled_matches_eager(lambda x: fnp.argsort(x, axis=axis, descending=True), x)
    assert_compiled_matches_eager(lambda x: fnp.sort(x, descending=True), x)


def test_take_and_take_along_axis_compile_like_eager():
    x = _values(np.random.default_rng(2), (3, 4), np.float32)
    i = fnp.array([[0, 3], [-1, 9]])
    for mode in (None, "clip", "fill", "wrap"):
        assert_compiled_matches_eager(lambda x, i: fnp.take(x, i, axis=1, mode=mode), x, i)
    assert_compiled_matches_eager(lambda x, i: fnp.take(x, i), x, i)
    order = fnp.array([[3, 0, 1, 2], [0, 0, 5, -1], [1, 1, 1, 1]])
    assert_compiled_matches_eager(lambda x, o: fnp.take_along_axis(x, o, axis=1), x, order)
    assert_compiled_matches_eager(
        lambda x: fnp.take_along_axis(x, fnp.argsort(x, axis=0), axis=0), x)


def test_indexing_ops_compose_in_one_function():
    def f(x, i, s):
        rows = x[i]                                   # gather
        window = dynamic_slice(rows, (s, s), (2, 2))
        y = x.at[i].add(1.0)                          # scatter_add
        y = dynamic_update_slice(y, window, (s, s))
        keys, order = sort([y, fnp.zeros(y.shape, fnp.int32) + 1], dimension=1)
        return fnp.take_along_axis(keys, fnp.argsort(-keys, axis=1), axis=1), order.sum()

    x = _values(np.random.default_rng(3), (5, 4), np.float32, specials=False)
    assert_compiled_matches_eager(f, x, fnp.array([4, 1, 1, -2]), fnp.array(1))


def test_every_indexing_primitive_lowers():
    x, rows = fnp.arange(6.0).reshape(2, 3), fnp.array([[1], [0]])
    s = fnp.array(0)
    gdn = GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                    start_index_map=(0,))
    sdn = ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))

    def f(x, rows, s):
        outs = [dynamic_slice(x, (s, s), (1, 2)), dynamic_update_slice(x, x[:1], (s, s)),
                gather(x, rows, gdn, (1, 3), mode="fill"), *sort([x], dimension=0)]
        outs += [getattr(scatter_module, name)(x, rows, x, sdn) for name in SCATTERS]
        return outs

    text = lower_ir(make_ir(f)(x, rows, s))
    for op in ("dynamic_slice", "dynamic_update_slice", "gather", "sort", "scatter"):
        assert f'"stablehlo.{op}"' in text
    for hlo in ("add", "multiply", "minimum", "maximum"):
        assert f'"stablehlo.{hlo}"(' in text  # the scatters' update computations
    assert_compiled_matches_eager(f, x, rows, s)


# --------------------------------------------------------------------------------------------
# Where XLA and the contract part ways (regressions for the workarounds in the rules)
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape, inserted", [((), ()), ((3,), (0,))])
def test_scatter_with_empty_index_vectors_lands_at_zero(shape, inserted):
    # XLA puts update k at position k when the index vector is empty; StableHLO says 0.
    x = fnp.zeros(shape, dtype=fnp.int32)
    i = Array(np.zeros((3, 0), np.int32))
    u = fnp.array([1, 2, 4], dtype=fnp.int32)
    dn = ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=inserted,
                                    scatter_dims_to_operand_dims=())
    out = assert_compiled_matches_eager(lambda x, i, u: scatter_add(x, i, u, dn), x, i, u)
    assert np.asarray(out).reshape(-1)[0] == 7


@pytest.mark.parametrize("name", ["scatter_min", "scatter_max"])
def test_complex_scatter_extrema_propagate_nan(name):
    x = Array(np.array([1 + 1j, complex(np.nan, 0), 2 + 0j], np.complex64))
    i = fnp.array([[0], [1], [2], [2]])
    u = Array(np.array([complex(0, np.nan), 5 + 0j, 3 + 0j, complex(np.inf, 0)], np.complex64))
    dn = ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                    scatter_dims_to_operand_dims=(0,))
    out = assert_compiled_matches_eager(
        lambda x, i, u: getattr(scatter_module, name)(x, i, u, dn), x, i, u)
    assert np.isnan(np.asarray(out)[:2]).all()


@pytest.mark.parametrize("dtype, fill", [(np.bool_, False), (np.uint8, 7), (np.float16, -1.5)])
def test_gather_fill_value_and_default_fill(dtype, fill):
    x = _values(np.random.default_rng(4), (4, 2), dtype, specials=False)
    i = fnp.array([[[0], [4]], [[-1], [3]]])
    dn = GatherDimensionNumbers(offset_dims=(2,), collapsed_slice_dims=(0,),
                                   start_index_map=(0,))
    for value in (fill, None):
        assert_compiled_matches_eager(
            lambda x, i: gather(x, i, dn, (1, 2), mode="fill", fill_value=value), x, i)


def test_gather_collapsed_dims_need_slice_size_one():
    x, i = fnp.zeros((0, 3)), fnp.zeros((2, 1), dtype=fnp.int32)
    dn = GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                   start_index_map=(0,))
    with pytest.raises(TypeError, match=r"gather: slice_sizes\[0\]=0 must be 1 for the "
                                        r"collapsed dimension 0"):
        make_ir(lambda x, i: gather(x, i, dn, (0, 3)))(x, i)


@pytest.mark.parametrize("dtype", [dtypes.float8_e4m3fn, dtypes.float8_e5m2])
def test_float8_indexing_compiles_like_eager(dtype):
    # Compared in float32 (exact): the shared helper's equality does not take float8 NaNs as
    # equal, and XLA's CPU float8 ops may change a NaN's payload.
    x = Array(np.array([3.0, np.nan, -0.0, 0.0, -1.0, 2.0], dtype))
    i = fnp.array([[5], [0], [0], [9]])
    u = Array(np.array([1.0, 2.0, -4.0, 8.0], dtype))
    gdn = GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,),
                                    start_index_map=(0,))
    sdn = ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))

    def f(x, i, u):
        return [*sort([x], dimension=0), gather(x, i, gdn, (1,), mode="fill"),
                dynamic_slice(x, (i[0, 0],), (3,)),
                *(getattr(scatter_module, name)(x, i, u, sdn) for name in SCATTERS[1:])]

    for got, want in zip(fa.jit(f)(x, i, u), f(x, i, u)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got).astype(np.float32),
                                      np.asarray(want).astype(np.float32))
