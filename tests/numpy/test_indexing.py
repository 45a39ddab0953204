"""Indexing: ``x[idx]``, ``x.at[idx]`` updates, the gather/scatter/sort primitives and the
index functions (nonzero, take, sort...), against NumPy and jax as oracles."""

from __future__ import annotations

import re

import hypothesis.strategies as st
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from helpers import assert_array_equal_typed, index_bounds_checked
from hypothesis import assume, given
from jax import lax

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import dtypes
from funcarray.primitives import scatter as scatter_module
from funcarray.primitives.dynamic_slice import (
    dynamic_slice,
    dynamic_slice_p,
    dynamic_update_slice,
    dynamic_update_slice_p,
)
from funcarray.primitives.gather import gather, gather_p
from funcarray.primitives.gather_scatter_dims import GatherDimensionNumbers, ScatterDimensionNumbers
from funcarray.primitives.scatter import scatter_add_p
from funcarray.primitives.sort import sort, sort_p
from funcarray.transforms.staging import make_ir


@pytest.fixture(autouse=True)
def _jax_default_32_bit():
    # These tests compare with jax's default (32-bit) dtypes for Python scalars; conftest
    # turns x64 on for the session, so switch it off locally.
    with jax.enable_x64(False):
        yield

DTYPES = [np.bool_, np.int8, np.int32, np.uint8, np.uint32, np.int64, np.float16,
          dtypes.bfloat16, np.float32, np.float64, np.complex64]


# --------------------------------------------------------------------------------------------
# Strategies
# --------------------------------------------------------------------------------------------

shapes = st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)


def _value(shape, dtype):
    n = np.arange(int(np.prod(shape, dtype=np.int64))).reshape(shape)
    if np.dtype(dtype) == np.bool_:
        return np.asarray(n % 3 == 0)
    return np.asarray(n % 100).astype(dtype)


def _components(draw, dims, allow_arrays, in_bounds):
    """Index components covering exactly the dimension sizes ``dims``, in order."""
    parts = []
    dim = 0
    while dim < len(dims):
        size = dims[dim]
        kinds = ["slice", "mask"] + (["int"] if size else [])
        if allow_arrays and size:
            kinds.append("array")
        kind = draw(st.sampled_from(kinds))
        if kind == "int":
            parts.append(draw(st.integers(-size, size - 1)))
        elif kind == "slice":
            bound = st.none() | st.integers(-size - 2, size + 2)
            step = draw(st.sampled_from([None, 1, 2, 3, -1, -2]))
            parts.append(slice(draw(bound), draw(bound), step))
        elif kind == "array":
            ishape = draw(st.sampled_from([(), (2,), (3,), (1, 2), (2, 1), (0,)]))
            lo, hi = (-size, size - 1) if in_bounds else (-2 * size - 1, 2 * size)
            values = draw(st.lists(st.integers(lo, hi), min_size=int(np.prod(ishape)),
                                   max_size=int(np.prod(ishape))))
            wrap = draw(st.sampled_from([np.asarray, fnp.asarray, list]))
            arr = np.array(values, np.int32).reshape(ishape)
            parts.append(wrap(arr) if wrap is not list or arr.ndim else int(arr))
        else:
            k = draw(st.integers(1, min(2, len(dims) - dim)))
            mshape = tuple(dims[dim:dim + k])
            bits = draw(st.lists(st.booleans(), min_size=int(np.prod(mshape)),
                                 max_size=int(np.prod(mshape))))
            parts.append(np.array(bits, bool).reshape(mshape))
            dim += k - 1
        dim += 1
    return parts


@st.composite
def index_components(draw, shape, allow_arrays=True, in_bounds=True):
    """A NumPy index expression for ``shape``: ints, slices, None, Ellipsis, arrays, masks."""
    n_front = draw(st.integers(0, len(shape)))
    parts = _components(draw, shape[:n_front], allow_arrays, in_bounds)
    if draw(st.booleans()):  # an Ellipsis, then components for some trailing dimensions
        n_back = draw(st.integers(0, len(shape) - n_front))
        back = _components(draw, shape[len(shape) - n_back:], allow_arrays, in_bounds)
        parts = [*parts, Ellipsis, *back]
    for _ in range(draw(st.integers(0, 2))):
        parts.insert(draw(st.integers(0, len(parts))), None)
    return parts[0] if len(parts) == 1 and draw(st.booleans()) else tuple(parts)


def _numpy_index(idx):
    """The same index with funcarray Arrays replaced by NumPy arrays (for the oracle)."""
    if isinstance(idx, tuple):
        return tuple(_numpy_index(i) for i in idx)
    if isinstance(idx, fnp.Array):
        return np.asarray(idx)
    return idx


def _numpy_accepts(n, idx) -> bool:
    try:
        n[_numpy_index(idx)]
    except IndexError:
        return False
    return True


# --------------------------------------------------------------------------------------------
# getitem
# --------------------------------------------------------------------------------------------

@given(shape=shapes, dtype=st.sampled_from(DTYPES), data=st.data())
def test_getitem_matches_numpy(shape, dtype, data):
    idx = data.draw(index_components(shape))
    n = _value(shape, dtype)
    try:
        expected = n[_numpy_index(idx)]
    except IndexError:  # e.g. index arrays that do not broadcast: funcarray refuses too
        with pytest.raises(IndexError):
            fnp.asarray(n)[idx]
        return
    got = fnp.asarray(n)[idx]
    assert_array_equal_typed(got, expected, rtol=0)


_I = np.array([0, 1])


@pytest.mark.parametrize("idx", [
    (slice(None), _I, Ellipsis, _I),   # a zero-width Ellipsis between two array indices
    (_I, Ellipsis, _I),
    (_I, slice(None), Ellipsis, _I),
    (slice(None), _I, Ellipsis, 1),
    (slice(None), _I, _I, Ellipsis),   # adjacent, Ellipsis after them
    (Ellipsis, _I, _I),
    (_I, Ellipsis, None, _I),
])
def test_zero_width_ellipsis_still_separates_advanced_indices(idx):
    """NumPy: advanced indices separated by a slice, None *or an Ellipsis* (even one covering
    no dimension) put their broadcast dimensions first; funcarray put them in place."""
    x = np.arange(60.0).reshape(3, 4, 5)
    fa_idx = tuple(fnp.asarray(i) if isinstance(i, np.ndarray) else i for i in idx)
    want = x[idx]
    got = fnp.asarray(x)[fa_idx]
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), want)
    staged = fa.jit(lambda a: a[fa_idx])(fnp.asarray(x))
    np.testing.assert_array_equal(np.asarray(staged), want)
    updated = x.copy()
    updated[idx] = -np.arange(want.size).reshape(want.shape)
    got = fnp.asarray(x).at[fa_idx].set(fnp.asarray(-np.arange(want.size).reshape(want.shape)))
    np.testing.assert_array_equal(np.asarray(got), updated)


@given(shape=shapes, data=st.data())
def test_getitem_staged_matches_eager(shape, data):
    """Under staging the same primitives run through abstract_eval: shapes must agree."""
    idx = data.draw(index_components(shape))
    x = fnp.asarray(_value(shape, np.float32))
    assume(_numpy_accepts(np.asarray(x), idx))
    staged = make_ir(lambda x: x[idx])(x)
    assert staged.out_avals[0].shape == x[idx].shape
    assert_array_equal_typed(staged(x), np.asarray(x[idx]), rtol=0)


@given(data=st.data())
def test_getitem_traced_index_arrays(data):
    x = fnp.asarray(np.arange(60.0, dtype=np.float32).reshape(3, 4, 5))
    i = np.array(data.draw(st.lists(st.integers(-3, 2), min_size=2, max_size=2)), np.int32)
    j = np.array(data.draw(st.lists(st.integers(-5, 4), min_size=2, max_size=2)), np.int32)
    k = np.int32(data.draw(st.integers(-3, 2)))
    for f in (lambda x, i, j, k: x[i, :, j], lambda x, i, j, k: x[:, k, j],
              lambda x, i, j, k: x[k, 1:, None], lambda x, i, j, k: x[i[:, None], k, j]):
        staged = make_ir(f)(x, fnp.asarray(i), fnp.asarray(j), fnp.asarray(k))
        expected = f(np.asarray(x), i, j, int(k))
        assert_array_equal_typed(staged(x, fnp.asarray(i), fnp.asarray(j), fnp.asarray(k)),
                                 expected, rtol=0)


def _primitive_names(f, *args):
    return [eqn.prim.name for eqn in make_ir(f)(*args).ir.eqns]


def test_basic_indexing_lowers_without_gather():
    x = fnp.zeros((4, 5, 6))
    names = _primitive_names(lambda x: x[1, ::-2, None, 2:5], x)
    assert set(names) <= {"slice", "rev", "squeeze", "reshape"}, names
    assert "rev" in names and "slice" in names
    assert _primitive_names(lambda x: x[...], x) == []
    dyn = _primitive_names(lambda x, i: x[i], x, fnp.array(2))
    assert "dynamic_slice" in dyn and "gather" not in dyn
    assert "gather" in _primitive_names(lambda x: x[fnp.array([0, 1])], x)


def test_getitem_keeps_weak_type_like_jax():
    x = fnp.asarray(3.0) + fnp.zeros(3, dtype=fnp.float32)
    assert not x[0].weak_type
    w = fnp.full((3,), 2.0)
    expected = jnp.full((3,), 2.0)[jnp.array([0, 1])]
    got = w[fnp.array([0, 1])]
    assert got.weak_type == expected.weak_type
    assert got.dtype == expected.dtype


def test_getitem_out_of_bounds_arrays_clamp_like_jax():
    n = np.arange(10.0, dtype=np.float32).reshape(2, 5)
    idx = np.array([0, 7, -8, -1, 4], np.int32)
    expected = np.asarray(jnp.asarray(n)[:, jnp.asarray(idx)])
    assert_array_equal_typed(fnp.asarray(n)[:, fnp.asarray(idx)], expected, rtol=0)
    # A traced (here: Array) scalar index is clamped too, after counting from the end.
    for i in (7, -7, -1, 3):
        expected = np.asarray(jax.jit(lambda x, i: x[:, i])(n, i))
        assert_array_equal_typed(fnp.asarray(n)[:, fnp.asarray(i)], expected, rtol=0)


def test_getitem_fill_mode_like_jax():
    n = np.arange(5.0, dtype=np.float32)
    idx = np.array([0, 7, -8, -1], np.int32)
    expected = np.asarray(jnp.asarray(n).at[jnp.asarray(idx)].get(mode="fill"))
    assert_array_equal_typed(fnp.asarray(n).at[fnp.asarray(idx)].get(mode="fill"), expected)
    ints = fnp.arange(5).at[fnp.array([9])].get(mode="fill")
    assert_array_equal_typed(ints, np.asarray(jnp.arange(5).at[jnp.array([9])].get(mode="fill")))
    filled = fnp.arange(5).at[fnp.array([9])].get(mode="fill", fill_value=-3)
    assert_array_equal_typed(filled, np.array([-3], np.int32))


@pytest.mark.parametrize("idx, match", [
    ((0, 0, 0), "too many indices for array: array is 2-dimensional, but 3 were indexed"),
    (1.5, "only integers, slices"),
    ((0, 2.0), "only integers, slices"),
    (np.array([1.0]), "dtype float64"),
    ((Ellipsis, 0, Ellipsis), "single ellipsis"),
    (np.ones((2, 2), bool), r"boolean index of shape \(2, 2\) does not match"),
    (([0, 1], [0, 1, 2]), "could not be broadcast together"),
    (slice(0, 2, 0), "slice step cannot be zero"),
    (slice(0.5, 2), "slice indices must be integers"),
    ("a", "only integers, slices"),
])
def test_bad_indices_raise_index_error(idx, match):
    x = fnp.zeros((3, 4))
    with pytest.raises(IndexError, match=match):
        x[idx]


def test_traced_mask_names_the_fix():
    x = fnp.arange(4.0)
    with pytest.raises(TypeError, match=re.escape("fnp.where(mask, x, 0)")):
        make_ir(lambda x: x[x > 1])(x)


def test_setitem_points_at_functional_update():
    x = fnp.zeros(3)
    with pytest.raises(TypeError, match=r"x\.at\[0\]\.set"):
        x[0] = 1


# --------------------------------------------------------------------------------------------
# .at[] updates
# --------------------------------------------------------------------------------------------

_UFUNCS = {"add": np.add, "multiply": np.multiply, "min": np.minimum, "max": np.maximum}
UPDATE_DTYPES = [np.bool_, np.int8, np.int32, np.uint8, np.float16, np.float32, np.float64]


@given(shape=shapes, dtype=st.sampled_from(UPDATE_DTYPES), data=st.data(),
       method=st.sampled_from(["set", "add", "multiply", "min", "max"]))
def test_at_updates_match_numpy(shape, dtype, data, method):
    idx = data.draw(index_components(shape))
    n = _value(shape, dtype)
    assume(_numpy_accepts(n, idx))
    np_idx = _numpy_index(idx)
    selected = np.arange(n.size).reshape(n.shape)[np_idx]
    values = _value(selected.shape[data.draw(st.integers(0, selected.ndim)):], dtype)
    if np.dtype(dtype) != np.bool_:
        values = (values + 1).astype(dtype)
    expected = n.copy()
    if method == "set":
        # Which of several writes to one element wins is unspecified, as in JAX.
        assume(len(np.unique(selected)) == selected.size)
        expected[np_idx] = values
    else:
        _UFUNCS[method].at(expected, np_idx, values)
    got = getattr(fnp.asarray(n).at[idx], method)(fnp.asarray(values))
    assert_array_equal_typed(got, expected, rtol=0)
    staged = make_ir(lambda x, v: getattr(x.at[idx], method)(v))(fnp.asarray(n),
                                                                  fnp.asarray(values))
    assert_array_equal_typed(staged(fnp.asarray(n), fnp.asarray(values)), expected, rtol=0)


def test_at_set_casts_and_broadcasts_values():
    x = fnp.arange(6).reshape(2, 3)
    assert_array_equal_typed(x.at[:, 1].set(2.7), np.array([[0, 2, 2], [3, 2, 5]], np.int32))
    assert_array_equal_typed(x.at[0].set(fnp.array([[7, 8, 9]])),
                             np.array([[7, 8, 9], [3, 4, 5]], np.int32))
    with pytest.raises(ValueError, match=r"value array of shape \(2,\) could not be broadcast"):
        x.at[0].set(fnp.array([1, 2]))


def test_at_out_of_bounds_is_dropped_like_jax():
    n = np.arange(5.0, dtype=np.float32)
    for idx in ([0, 7], [-1, -6], [4, 5, -5]):
        for method in ("set", "add", "multiply", "min", "max"):
            for mode in (None, "clip"):
                expected = getattr(jnp.asarray(n).at[jnp.array(idx)], method)(9.0, mode=mode)
                got = getattr(fnp.asarray(n).at[fnp.array(idx)], method)(9.0, mode=mode)
                assert_array_equal_typed(got, np.asarray(expected))
    for i in (7, -6, -1):  # a traced scalar index: dropped when out of bounds
        expected = jax.jit(lambda x, i: x.at[i].set(9.0))(n, i)
        got = make_ir(lambda x, i: x.at[i].set(9.0))(fnp.asarray(n), fnp.asarray(i))
        assert_array_equal_typed(got(fnp.asarray(n), fnp.asarray(i)), np.asarray(expected))


def test_at_divide_power_apply_like_jax():
    n = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    x, j = fnp.asarray(n), jnp.asarray(n)
    cases = [
        (x.at[0, 1].divide(4.0), j.at[0, 1].divide(4.0)),
        (x.at[fnp.array([1, 1])].divide(2.0), j.at[jnp.array([1, 1])].divide(2.0)),
        (x.at[:, ::2].power(2.0), j.at[:, ::2].power(2.0)),
        (x.at[1].apply(lambda v: v * 10), j.at[1].apply(lambda v: v * 10)),
        (x.at[fnp.array([0, 1]), 2].apply(fnp.negative),
         j.at[jnp.array([0, 1]), 2].apply(jnp.negative)),
        (fnp.arange(4).at[1].divide(2), jnp.arange(4).at[1].divide(2)),
    ]
    for got, expected in cases:
        assert_array_equal_typed(got, np.asarray(expected))


def test_at_get_and_static_out_of_range_index():
    x = fnp.arange(4)
    assert_array_equal_typed(x.at[1:].get(), np.array([1, 2, 3], np.int32))
    assert_array_equal_typed(x.at[4].set(1), np.asarray(jnp.arange(4).at[4].set(1)))
    assert_array_equal_typed(x.at[4].get(), np.asarray(jnp.arange(4).at[4].get()))
    with index_bounds_checked(), pytest.raises(
            IndexError, match="index 4 is out of bounds for axis 0 with size 4"):
        x.at[4].set(1)
    with pytest.raises(ValueError, match="mode must be"):
        x.at[0].add(1, mode="bogus")


# --------------------------------------------------------------------------------------------
# Primitives against jax.lax
# --------------------------------------------------------------------------------------------

def _gather_cases():
    rng = np.random.default_rng(0)
    gdn = lax.GatherDimensionNumbers
    return [
        # x[idx] along axis 0
        (rng.normal(size=(5, 3)), rng.integers(-2, 7, (4, 1)),
         gdn(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,)), (1, 3)),
        # windows of size 2x2 at 2-D starts, batch dims around the offsets
        (rng.normal(size=(4, 5, 6)), rng.integers(-1, 7, (3, 2, 2)),
         gdn(offset_dims=(1, 3), collapsed_slice_dims=(1,), start_index_map=(2, 0)),
         (2, 1, 3)),
        # batching dims (take_along_axis-like)
        (rng.normal(size=(3, 5, 4)), rng.integers(0, 6, (2, 3, 1)),
         gdn(offset_dims=(2,), collapsed_slice_dims=(1,), start_index_map=(1,),
             operand_batching_dims=(0,), start_indices_batching_dims=(1,)), (1, 1, 4)),
        # empty batch
        (rng.normal(size=(3, 2)), np.zeros((0, 1), np.int64),
         gdn(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,)), (1, 2)),
        # scalar operand window: full slices, no index vector
        (rng.normal(size=(2, 3)), np.zeros((4, 0), np.int32),
         gdn(offset_dims=(1, 2), collapsed_slice_dims=(), start_index_map=()), (2, 3)),
    ]


@pytest.mark.parametrize("case", range(5))
@pytest.mark.parametrize("mode", ["clip", "fill"])
def test_gather_primitive_matches_lax(case, mode):
    operand, indices, dn, slice_sizes = _gather_cases()[case]
    operand, indices = operand.astype(np.float32), indices.astype(np.int32)
    expected = np.asarray(lax.gather(operand, indices, dn, slice_sizes, mode=mode))
    got = gather(fnp.asarray(operand), fnp.asarray(indices),
                    GatherDimensionNumbers(*dn), slice_sizes, mode=mode)
    assert_array_equal_typed(got, expected, rtol=0)
    aval = gather_p.abstract_eval(
        got.aval.update(shape=operand.shape), fnp.asarray(indices).aval,
        dimension_numbers=GatherDimensionNumbers(*dn), slice_sizes=slice_sizes,
        indices_are_sorted=False, unique_indices=False, mode=mode, fill_value=None)
    assert aval.shape == expected.shape


def _scatter_cases():
    rng = np.random.default_rng(1)
    sdn = lax.ScatterDimensionNumbers
    return [
        # rows with repeats and out-of-bounds rows
        ((4, 5), rng.integers(-1, 6, (6, 1)), (6, 5),
         sdn(update_window_dims=(1,), inserted_window_dims=(0,),
             scatter_dims_to_operand_dims=(0,))),
        # points in 2-D, with repeats
        ((3, 3), rng.integers(0, 3, (8, 2)), (8,),
         sdn(update_window_dims=(), inserted_window_dims=(0, 1),
             scatter_dims_to_operand_dims=(0, 1))),
        # 2x2 windows at swapped starts; windows near the edge are out of bounds
        ((5, 6), rng.integers(0, 6, (3, 2)), (2, 3, 2),
         sdn(update_window_dims=(0, 2), inserted_window_dims=(),
             scatter_dims_to_operand_dims=(1, 0))),
        # batching dims
        ((3, 5), rng.integers(0, 5, (3, 2, 1)), (3, 2),
         sdn(update_window_dims=(), inserted_window_dims=(1,),
             scatter_dims_to_operand_dims=(1,), operand_batching_dims=(0,),
             scatter_indices_batching_dims=(0,))),
    ]


@pytest.mark.parametrize("case", range(4))
@pytest.mark.parametrize("mode", ["drop", "clip"])
@pytest.mark.parametrize("name", ["scatter_add", "scatter_mul", "scatter_min", "scatter_max",
                                  "scatter"])
def test_scatter_primitives_match_lax(case, mode, name):
    shape, indices, ushape, dn = _scatter_cases()[case]
    rng = np.random.default_rng(case)
    operand = rng.normal(size=shape).astype(np.float32)
    updates = rng.normal(size=ushape).astype(np.float32)
    indices = indices.astype(np.int32)
    if name == "scatter":
        # Which repeated write wins is unspecified: keep the indices unique for this one.
        flat = [tuple(r) for r in indices.reshape(-1, indices.shape[-1])]
        if len(set(flat)) != len(flat):
            pytest.skip("undefined: repeated indices (which write wins is unspecified)")
    jax_mode = "fill" if mode == "drop" else mode
    expected = getattr(lax, name)(operand, indices, updates, dn, mode=jax_mode)
    got = getattr(scatter_module, name)(fnp.asarray(operand), fnp.asarray(indices),
                                        fnp.asarray(updates), ScatterDimensionNumbers(*dn),
                                        mode=mode)
    assert_array_equal_typed(got, np.asarray(expected), rtol=1e-6)


def test_dynamic_slice_and_update_clamp_like_lax():
    n = np.arange(24, dtype=np.int32).reshape(4, 6)
    for starts in [(0, 0), (3, 5), (-2, 2), (1, -7), (9, 9)]:
        # The primitive clamps; lax would first count negative starts from the end.
        expected = lax.dynamic_slice(n, [jnp.int32(s) for s in starts], (2, 3),
                                     allow_negative_indices=False)
        got = dynamic_slice(fnp.asarray(n), [fnp.asarray(np.int32(s)) for s in starts],
                               (2, 3))
        assert_array_equal_typed(got, np.asarray(expected))
        update = -np.ones((2, 3), np.int32)
        expected = lax.dynamic_update_slice(n, update, [jnp.int32(s) for s in starts],
                                            allow_negative_indices=False)
        got = dynamic_update_slice(fnp.asarray(n), fnp.asarray(update),
                                      [fnp.asarray(np.int32(s)) for s in starts])
        assert_array_equal_typed(got, np.asarray(expected))


def test_primitive_shape_errors_name_the_primitive():
    f32 = lambda *shape: fnp.zeros(shape).aval  # noqa: E731
    i32 = lambda *shape: fnp.zeros(shape, dtype=fnp.int32).aval  # noqa: E731
    dn = GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                   start_index_map=(0,))
    params = dict(dimension_numbers=dn, indices_are_sorted=False, unique_indices=False,
                  mode="clip", fill_value=None)
    with pytest.raises(TypeError, match="gather: slice_sizes"):
        gather_p.abstract_eval(f32(4, 3), i32(2, 1), slice_sizes=(1, 4), **params)
    with pytest.raises(TypeError, match="gather: indices must have an integer dtype"):
        gather_p.abstract_eval(f32(4, 3), f32(2, 1), slice_sizes=(1, 3), **params)
    with pytest.raises(TypeError, match="gather: the last dimension of the indices"):
        gather_p.abstract_eval(f32(4, 3), i32(2, 2), slice_sizes=(1, 3), **params)
    sdn = ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))
    sparams = dict(dimension_numbers=sdn, indices_are_sorted=False, unique_indices=False,
                   mode="drop")
    with pytest.raises(TypeError, match="scatter_add: the scatter dimensions of the updates"):
        scatter_add_p.abstract_eval(f32(4, 3), i32(2, 1), f32(5, 3), **sparams)
    with pytest.raises(TypeError, match="scatter_add: updates .* must have the dtype"):
        scatter_add_p.abstract_eval(f32(4, 3), i32(2, 1), i32(2, 3), **sparams)
    with pytest.raises(TypeError, match="dynamic_slice: needs one start index per dimension"):
        dynamic_slice_p.abstract_eval(f32(4, 3), i32(), slice_sizes=(1, 1))
    with pytest.raises(TypeError, match="dynamic_update_slice: update"):
        dynamic_update_slice_p.abstract_eval(f32(4, 3), f32(5, 3), i32(), i32())
    with pytest.raises(TypeError, match="sort: operands must share one shape"):
        sort_p.abstract_eval(f32(3), f32(4), dimension=0, is_stable=True, num_keys=1)


# --------------------------------------------------------------------------------------------
# nonzero, argwhere, take, take_along_axis, compress, extract, select
# --------------------------------------------------------------------------------------------

masks = shapes.filter(lambda s: len(s) >= 1).flatmap(
    lambda s: st.lists(st.booleans(), min_size=int(np.prod(s)), max_size=int(np.prod(s)))
    .map(lambda bits, s=s: np.array(bits, bool).reshape(s)))


@given(mask=masks, dtype=st.sampled_from([np.bool_, np.int32, np.float32]))
def test_nonzero_flatnonzero_argwhere_match_numpy(mask, dtype):
    a = mask.astype(dtype)
    for got, expected in zip(fnp.nonzero(a), np.nonzero(a)):
        assert_array_equal_typed(got, expected.astype(np.int32))
    assert_array_equal_typed(fnp.flatnonzero(a), np.flatnonzero(a).astype(np.int32))
    assert_array_equal_typed(fnp.argwhere(a), np.argwhere(a).astype(np.int32))


def _padded_nonzero(mask, size, fill):
    """NumPy oracle for nonzero(size=, fill_value=): truncate, then pad with the fill (one
    value for every axis, or a tuple of one per axis; 0 for an empty mask, as jax.numpy)."""
    fills = (0,) * mask.ndim if fill is None or mask.size == 0 else fill if isinstance(
        fill, tuple) else (fill,) * mask.ndim
    out = []
    for positions, axis_fill in zip(np.nonzero(mask), fills):
        padded = np.full(size, axis_fill, np.int32)
        kept = positions[:size]
        padded[:len(kept)] = kept
        out.append(padded)
    return out


@given(mask=masks, size=st.integers(0, 7), fill=st.sampled_from([None, -1, 5]))
def test_nonzero_with_size_traces(mask, size, fill):
    staged = make_ir(lambda m: fnp.nonzero(m, size=size, fill_value=fill))(fnp.asarray(mask))
    expected = _padded_nonzero(mask, size, fill)
    for got, exp in zip(staged(fnp.asarray(mask)), expected, strict=True):
        assert_array_equal_typed(got, exp)
    assert_array_equal_typed(fnp.argwhere(mask, size=size, fill_value=fill),
                             np.stack(expected, axis=1).reshape(size, mask.ndim))


def test_nonzero_with_size_matches_jax():
    mask = np.array([[0, 3, 0], [1, 0, 2]])
    for size, fill in [(2, None), (5, -1), (5, (7, 8))]:
        expected = jnp.nonzero(mask, size=size, fill_value=fill)
        for got, exp in zip(fnp.nonzero(mask, size=size, fill_value=fill), expected):
            assert_array_equal_typed(got, np.asarray(exp))


def test_nonzero_of_empty_input_pads_with_zeros_as_jax():
    (got,) = fnp.nonzero(np.zeros((0,), bool), size=2, fill_value=-1)
    (want,) = jnp.nonzero(np.zeros((0,), bool), size=2, fill_value=-1)
    assert_array_equal_typed(got, np.asarray(want).astype(np.int32))


def test_nonzero_errors():
    with pytest.raises(ValueError, match="nonzero of a 0-d array"):
        fnp.nonzero(fnp.asarray(1.0))
    with pytest.raises(TypeError, match="size="):
        make_ir(lambda m: fnp.nonzero(m))(fnp.ones(3))
    assert fnp.argwhere(fnp.asarray(1.0)).shape == np.argwhere(np.array(1.0)).shape


@given(shape=shapes.filter(lambda s: len(s) >= 1), data=st.data(),
       dtype=st.sampled_from([np.int32, np.float32, dtypes.bfloat16, np.bool_]))
def test_take_in_bounds_matches_numpy(shape, data, dtype):
    n = _value(shape, dtype)
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1))
    size = n.size if axis is None else shape[axis]
    assume(size > 0)
    ishape = data.draw(st.sampled_from([(), (3,), (2, 2), (0,)]))
    idx = np.array(data.draw(st.lists(st.integers(-size, size - 1), min_size=int(np.prod(ishape)),
                                      max_size=int(np.prod(ishape)))), np.int32).reshape(ishape)
    assert_array_equal_typed(fnp.take(n, idx, axis=axis), np.take(n, idx, axis=axis), rtol=0)


@pytest.mark.parametrize("mode", [None, "fill", "clip", "wrap"])
def test_take_modes_match_jax(mode):
    n = np.arange(12, dtype=np.float32).reshape(3, 4)
    idx = np.array([[-1, -7], [6, 2]], np.int32)
    for axis in (None, 0, 1):
        expected = jnp.take(n, idx, axis=axis, mode=mode)
        assert_array_equal_typed(fnp.take(n, idx, axis=axis, mode=mode), np.asarray(expected))
    ints = jnp.take(np.arange(5, dtype=np.uint8), np.array([9]), mode=mode)
    assert_array_equal_typed(fnp.take(np.arange(5, dtype=np.uint8), np.array([9]), mode=mode),
                             np.asarray(ints))


def test_take_errors():
    with pytest.raises(TypeError, match="take: indices must be integers"):
        fnp.take(fnp.arange(3), fnp.array([0.5]))
    with pytest.raises(ValueError, match="axis 2 is out of bounds"):
        fnp.take(fnp.arange(3), fnp.array([0]), axis=2)
    with pytest.raises(ValueError, match="mode='raise'"):
        fnp.take(fnp.arange(3), fnp.array([0]), mode="raise")


@pytest.mark.parametrize("mode", [None, "clip"])
def test_take_along_axis_matches_numpy_and_jax(mode):
    rng = np.random.default_rng(2)
    n = rng.normal(size=(3, 4, 5)).astype(np.float32)
    for axis in (0, 1, -1):
        idx = np.argsort(n, axis=axis).astype(np.int32)
        got = fnp.take_along_axis(n, idx, axis=axis, mode=mode)
        assert_array_equal_typed(got, np.take_along_axis(n, idx, axis=axis))
    idx = rng.integers(-8, 8, size=(1, 4, 2)).astype(np.int32)  # broadcasts over axis 0
    expected = jnp.take_along_axis(n, idx, axis=2, mode=mode)
    assert_array_equal_typed(fnp.take_along_axis(n, idx, axis=2, mode=mode),
                             np.asarray(expected))
    flat = np.array([0, -1, 70], np.int32)
    assert_array_equal_typed(fnp.take_along_axis(n, flat, axis=None, mode=mode),
                             np.asarray(jnp.take_along_axis(n, flat, axis=None, mode=mode)))


@given(mask=masks, data=st.data())
def test_compress_extract_match_numpy(mask, data):
    n = _value(mask.shape, np.float32)
    axis = data.draw(st.integers(0, mask.ndim - 1))
    cond = data.draw(st.lists(st.booleans(), min_size=0, max_size=mask.shape[axis]))
    cond = np.array(cond, bool)
    assert_array_equal_typed(fnp.compress(cond, n, axis=axis), np.compress(cond, n, axis=axis))
    assert_array_equal_typed(fnp.extract(mask, n), np.extract(mask, n))


def test_compress_with_size_traces():
    cond = np.array([True, False, True])
    n = np.arange(6, dtype=np.float32).reshape(3, 2)
    staged = make_ir(lambda c, x: fnp.compress(c, x, axis=0, size=3, fill_value=-1))(cond, n)
    expected = jnp.compress(cond, n, axis=0, size=3, fill_value=-1)
    assert_array_equal_typed(staged(fnp.asarray(cond), fnp.asarray(n)), np.asarray(expected))


def test_select_matches_numpy_and_jax_dtypes():
    x = np.arange(6, dtype=np.int32)
    conds = [x < 2, x > 3]
    choices = [x, (x * 10).astype(np.float32)]
    expected = np.select(conds, choices, default=-1)
    got = fnp.select([fnp.asarray(c) for c in conds], [fnp.asarray(c) for c in choices], -1)
    assert_array_equal_typed(got, expected.astype(jnp.select(conds, choices, -1).dtype))
    got = fnp.select([fnp.asarray(x < 3)], [1.0])
    assert got.dtype == jnp.select([x < 3], [1.0]).dtype
    with pytest.raises(ValueError, match="same length"):
        fnp.select([x < 2], [x, x])
    with pytest.raises(TypeError, match=r"condlist\[0\] must be a boolean array"):
        fnp.select([x], [x])


# --------------------------------------------------------------------------------------------
# sort, argsort, unique
# --------------------------------------------------------------------------------------------

SORT_DTYPES = [np.bool_, np.int8, np.uint32, np.int64, np.float16, dtypes.bfloat16, np.float32,
               np.float64]


@given(shape=shapes.filter(lambda s: len(s) >= 1), dtype=st.sampled_from(SORT_DTYPES),
       data=st.data())
def test_sort_argsort_match_numpy(shape, dtype, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    n = rng.integers(-3, 4, size=shape)
    n = (n > 0) if np.dtype(dtype) == np.bool_ else n.astype(dtype)
    if dtypes.is_float(np.dtype(dtype)) and n.size:
        n.flat[rng.integers(0, n.size, 2)] = np.nan
        n.flat[rng.integers(0, n.size)] = -0.0
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1))
    wide = n.astype(np.float64) if np.dtype(dtype) == dtypes.bfloat16 else n
    expected_order = np.argsort(wide, axis=axis, kind="stable").astype(np.int32)
    assert_array_equal_typed(fnp.argsort(n, axis=axis), expected_order)
    expected = np.sort(wide, axis=axis, kind="stable").astype(dtype)
    assert_array_equal_typed(fnp.sort(n, axis=axis), expected, rtol=0)


def test_sort_descending_matches_jax():
    n = np.array([[1, 2, 1, 2, 0], [3, 3, 3, 1, 1]], np.int32)
    f = np.array([1.0, np.nan, -1.0, 1.0], np.float32)
    for a in (n, f):
        for axis in (-1, 0) if a.ndim == 2 else (-1,):
            assert_array_equal_typed(fnp.argsort(a, axis=axis, descending=True),
                                     np.asarray(jnp.argsort(a, axis=axis, descending=True)))
            assert_array_equal_typed(fnp.sort(a, axis=axis, descending=True),
                                     np.asarray(jnp.sort(a, axis=axis, descending=True)))


def test_sort_primitive_multiple_keys_and_methods():
    keys = fnp.array([2, 1, 2, 1])
    second = fnp.array([0.0, 5.0, -1.0, 3.0])
    payload = fnp.arange(4)
    outs = sort([keys, second, payload], num_keys=2)
    assert_array_equal_typed(outs[2], np.array([3, 1, 2, 0], np.int32))
    assert_array_equal_typed(fnp.array([3, 1, 2]).sort(), np.array([1, 2, 3], np.int32))
    assert_array_equal_typed(fnp.array([3, 1, 2]).argsort(), np.array([1, 2, 0], np.int32))
    with pytest.raises(ValueError, match="order="):
        fnp.sort(keys, order="x")


def test_unique_matches_numpy():
    n = np.array([3, 1, 1, 2, 3, 3], np.int32)
    assert_array_equal_typed(fnp.unique(n), np.unique(n))
    values, index, inverse, counts = fnp.unique(n, return_index=True, return_inverse=True,
                                                return_counts=True)
    exp = np.unique(n, return_index=True, return_inverse=True, return_counts=True)
    for got, e in zip((values, index, inverse, counts), exp):
        assert_array_equal_typed(got, e.astype(got.dtype), check_dtype=False)
    assert index.dtype == np.int32
    with pytest.raises(TypeError, match="unique: .* Pass a static size="):
        make_ir(fnp.unique)(fnp.asarray(n))


@pytest.mark.parametrize("idx", [10, -10, (1, 7), (-5, 0), (slice(None), 9)])
@pytest.mark.parametrize("mode", [None, "clip", "drop", "fill", "promise_in_bounds"])
def test_at_static_out_of_bounds_ints_follow_the_mode_like_jax(idx, mode):
    """A static int out of bounds is handled like a traced one (clamped, dropped or filled
    as the mode says); the setting check_index_bounds makes the default mode raise NumPy's
    IndexError instead."""
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    if isinstance(idx, int):
        x = x.ravel()[:4]
    fx, jx = fnp.asarray(x), jnp.asarray(x)
    if mode != "promise_in_bounds":  # (out of bounds is undefined behaviour there)
        if mode is None:
            np.testing.assert_array_equal(np.asarray(fx[idx]), np.asarray(jx[idx]))
        for method, args in (("set", (9.0,)), ("add", (5.0,)), ("max", (100.0,))):
            want = getattr(jx.at[idx], method)(*args, mode=mode)
            got = getattr(fx.at[idx], method)(*args, mode=mode)
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
        if mode != "drop":
            kwargs = {"fill_value": -1.0} if mode == "fill" else {}
            want = jx.at[idx].get(mode=mode, **kwargs)
            np.testing.assert_array_equal(np.asarray(fx.at[idx].get(mode=mode, **kwargs)),
                                          np.asarray(want))
    with index_bounds_checked():
        if mode in (None, "promise_in_bounds"):
            with pytest.raises(IndexError, match="out of bounds.*check_index_bounds is on"):
                fx.at[idx].set(9.0, mode=mode)
            with pytest.raises(IndexError, match="out of bounds.*check_index_bounds is on"):
                fx[idx]
        else:  # an explicit mode asks for out-of-bounds indices: not checked
            fx.at[idx].set(9.0, mode=mode)


# --- nonzero(size=) is a cumulative sum and a scatter ----------------------------------------

def test_nonzero_with_size_matches_jax_without_a_sort():
    rng = np.random.default_rng(0)
    for shape in [(7,), (3, 4), (2, 3, 2)]:
        a = (rng.random(shape) > 0.5) * rng.integers(1, 5, shape)
        for size in (0, 1, 3, 30):
            for fill in (None, -1, (9,) * len(shape)):
                for g, w in zip(fnp.nonzero(a, size=size, fill_value=fill),
                                _padded_nonzero(a, size, fill)):
                    np.testing.assert_array_equal(g, w)
    a = np.array([[0, 3, 0, 1], [2, 0, 0, 5]])
    for size, fill in ((6, -1),):
        want = jnp.nonzero(a, size=size, fill_value=fill)
        for got in (fnp.nonzero(a, size=size, fill_value=fill),
                    fa.jit(lambda a: fnp.nonzero(a, size=size, fill_value=fill))(a)):
            for g, w in zip(got, want):
                np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(fnp.argwhere(a, size=6, fill_value=-1), np.stack(want, 1))
    np.testing.assert_array_equal(fnp.flatnonzero(a, size=6, fill_value=-1),
                                  _padded_nonzero(a.ravel(), 6, -1)[0])
    np.testing.assert_array_equal(fa.vmap(lambda r: fnp.nonzero(r, size=3, fill_value=-1)[0])(a),
                                  [[1, 3, -1], [0, 3, -1]])
    text = fa.jit(lambda a: fnp.nonzero(a, size=3)).lower(fnp.zeros(5)).as_text()
    assert "stablehlo.scatter" in text and "stablehlo.sort" not in text
