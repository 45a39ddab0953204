"""The host shortcuts of ``take``, ``take_along_axis``, ``compress`` and ``extract``
(``funcarray/numpy/_index_routines_on_host.py``), of the diagonals (``tril``, ``triu``,
``diagonal``, ``trace``, ``diag``: ``_diagonals_on_host.py``), of the rearrangements
(``flip``, ``flipud``, ``fliplr``, ``repeat``, ``roll``, ``tile``:
``_rearranging_on_host.py``) and of the index tricks (``tri``, ``indices``,
``diag_indices``, ``unravel_index``, ``ravel_multi_index``: ``_index_tricks_on_host.py``)
give the general path's outcome (``tests/shortcut_oracle.py``): the same result (type,
shape, dtype, weak type, bits) or the same error, for every dtype, empty and 0-d operands,
operands as Arrays, weak arrays, device arrays, NumPy arrays and lists, indices of every
integer dtype in and out of bounds, every mode and fill value, and bad arguments. The last
tests check that the shortcuts take the common forms themselves."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from indexing_operands import INDEX_DTYPES, as_kind, operands
from shortcut_oracle import assert_same_outcome

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.numpy import _diagonals_on_host as diagonals
from funcarray.numpy import _index_routines_on_host as routines
from funcarray.numpy import _index_tricks_on_host as tricks
from funcarray.numpy import _rearranging_on_host as rearranging


@st.composite
def indices(draw, shape, bound):
    """Integer indices of ``shape`` (any integer dtype), mostly in ``[-bound, bound)``,
    sometimes past it."""
    dtype = draw(st.sampled_from(INDEX_DTYPES))
    n = int(np.prod(shape))
    if draw(st.integers(0, 2)):
        pool = st.integers(-bound, max(bound - 1, -bound))
    else:
        pool = st.integers(-bound - 3, bound + 3)
    with np.errstate(over="ignore"):
        value = np.asarray(draw(st.lists(pool, min_size=n, max_size=n)), np.int64).astype(
            dtype).reshape(shape)
    return as_kind(value, draw(st.sampled_from(("array", "array", "device", "numpy", "list"))))


_AXES = st.sampled_from([None, 0, -1, 1, 2, 3, 1.0])
_FILLS = st.sampled_from([None, None, 0, -5, 2.5, True, np.float32(1.0)])


@settings(max_examples=200, deadline=None)
@given(operands(), st.data())
def test_take_matches_general_path(x, data):
    operand, value = x
    axis = data.draw(_AXES)
    n = value.size if axis is None else (value.shape[axis] if type(axis) is int and
                                         -value.ndim <= axis < value.ndim else 2)
    idx = data.draw(indices(data.draw(st.sampled_from([(), (2,), (3,), (2, 2), (0,)])), n))
    mode = data.draw(st.sampled_from([None, None, "fill", "clip", "wrap", "raise", "bad"]))
    fill = data.draw(_FILLS)
    assert_same_outcome(lambda: fnp.take(operand, idx, axis=axis, mode=mode, fill_value=fill))


@settings(max_examples=200, deadline=None)
@given(operands(shapes=[(0,), (1,), (4,), (2, 3), (3, 0), (2, 1, 3)]), st.data())
def test_take_along_axis_matches_general_path(x, data):
    operand, value = x
    axis = data.draw(st.sampled_from([None, 0, -1, 1, 2, -1, -1]))
    if axis is None:
        shape, n = (data.draw(st.integers(0, 3)),), value.size
    else:
        ax = axis % max(value.ndim, 1)
        shape = [data.draw(st.sampled_from([n, 1, n, 2])) for n in value.shape]
        if ax < len(shape):
            shape[ax] = data.draw(st.integers(0, 3))
        shape, n = tuple(shape), value.shape[ax] if ax < value.ndim else 1
    idx = data.draw(indices(shape, n))
    mode = data.draw(st.sampled_from([None, None, "fill", "drop", "clip", "promise_in_bounds",
                                      "wrap"]))
    wrap = data.draw(st.sampled_from([None, None, True, False]))
    fill = data.draw(_FILLS)
    assert_same_outcome(lambda: fnp.take_along_axis(operand, idx, axis=axis, mode=mode,
                                                    fill_value=fill,
                                                    wrap_negative_indices=wrap))


@settings(max_examples=200, deadline=None)
@given(operands(), operands(shapes=[(), (0,), (1,), (2,), (3,), (4,), (2, 3), (6,)]),
       st.sampled_from([None, 0, -1, 1, 3]), st.sampled_from([None, None, None, 2]))
def test_compress_and_extract_match_general_path(x, condition, axis, size):
    (operand, _), (cond, _) = x, condition
    assert_same_outcome(lambda: fnp.compress(cond, operand, axis=axis, size=size))
    assert_same_outcome(lambda: fnp.extract(cond, operand, size=size))


def test_shortcuts_take_the_common_forms():
    assert tricks.tri_on_host(4) is not NotImplemented
    assert tricks.indices_on_host((4, 4)) is not NotImplemented
    assert tricks.diag_indices_on_host(4) is not NotImplemented
    for shape in [(4,), (64, 64)]:
        value = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
        for x in (fnp.asarray(value), fa.device_put(fnp.asarray(value))):
            idx = fnp.asarray(np.array([0, 2], np.int32))
            assert routines.take_on_host(x, idx) is not NotImplemented
            assert routines.take_on_host(x, fnp.asarray(np.array([0, 9]))) is not NotImplemented
            order = fnp.asarray(np.argsort(value, -1).astype(np.int32))
            assert routines.take_along_axis_on_host(x, order, axis=-1) is not NotImplemented
            cond = fnp.asarray(value.reshape(-1)[:shape[0]] > 1)
            assert routines.compress_on_host(cond, x, axis=0) is not NotImplemented
            assert routines.extract_on_host(fnp.asarray(value > 1), x) is not NotImplemented
            assert diagonals.diag_on_host(x) is not NotImplemented
            assert rearranging.flip_on_host(x) is not NotImplemented
            assert rearranging.flipud_on_host(x) is not NotImplemented
            assert rearranging.repeat_on_host(x, 2) is not NotImplemented
            assert rearranging.roll_on_host(x, 1, 0) is not NotImplemented
            assert rearranging.tile_on_host(x, 2) is not NotImplemented
            assert tricks.unravel_index_on_host(fnp.asarray(np.arange(4, dtype=np.int32)),
                                                (8, 8)) is not NotImplemented
            ij = (fnp.asarray(np.arange(4, dtype=np.int32)),) * 2
            assert tricks.ravel_multi_index_on_host(ij, (9, 9)) is not NotImplemented
            if len(shape) == 2:
                for rule in (diagonals.tril_on_host, diagonals.triu_on_host,
                             diagonals.diagonal_on_host, diagonals.trace_on_host,
                             rearranging.fliplr_on_host):
                    assert rule(x) is not NotImplemented


_OFFSETS = st.sampled_from([0, 0, 1, -1, 2, -3, 5, 2**40, -(2**40), 1.0, np.int64(1)])


@settings(max_examples=150, deadline=None)
@given(operands(shapes=[(), (0,), (3,), (2, 3), (3, 0), (2, 1, 3), (3, 3)]), _OFFSETS,
       st.sampled_from([0, 1, -1, 2, -2, 3]), st.sampled_from([0, 1, -1, 2, 0]),
       st.sampled_from([None, None, np.int32, np.float32, np.int8, "bad"]))
def test_diagonals_match_general_path(x, k, axis1, axis2, dtype):
    operand, _ = x
    assert_same_outcome(lambda: fnp.tril(operand, k))
    assert_same_outcome(lambda: fnp.triu(operand, k))
    assert_same_outcome(lambda: fnp.diagonal(operand, k, axis1, axis2))
    assert_same_outcome(lambda: fnp.diagonal(operand))
    with np.errstate(all="ignore"):
        assert_same_outcome(lambda: fnp.trace(operand, k, axis1, axis2, dtype=dtype))
        assert_same_outcome(lambda: fnp.trace(operand))
    assert_same_outcome(lambda: fnp.diag(operand, k))


_REPEATS = st.one_of(st.integers(-1, 3), st.lists(st.integers(-1, 3), max_size=4).map(tuple),
                     st.lists(st.integers(0, 2), max_size=4), st.sampled_from([True, 2.0]))


@settings(max_examples=150, deadline=None)
@given(operands(), st.sampled_from([None, 0, 1, -1, 2, -3, (0, 1), (1, -1), (0, 0), 1.0, [0]]),
       _REPEATS, st.sampled_from([None, 0, 1, -1, 3, False]), st.sampled_from([None, None, 3]))
def test_rearranging_matches_general_path(x, axes, repeats, axis, total):
    operand, _ = x
    assert_same_outcome(lambda: fnp.flip(operand, axes))
    assert_same_outcome(lambda: fnp.flip(operand))
    assert_same_outcome(lambda: fnp.flipud(operand))
    assert_same_outcome(lambda: fnp.fliplr(operand))
    assert_same_outcome(lambda: fnp.repeat(operand, repeats, axis,
                                           total_repeat_length=total))
    shift = repeats if not isinstance(repeats, list) else tuple(r - 1 for r in repeats)
    assert_same_outcome(lambda: fnp.roll(operand, shift, axes))
    assert_same_outcome(lambda: fnp.roll(operand, shift))
    assert_same_outcome(lambda: fnp.tile(operand, repeats))


_SIZES = st.sampled_from([0, 1, 2, 3, 5, -1, 1.0, np.int64(2), True])
_DTYPES = st.sampled_from([None, None, np.int32, np.float32, np.bool_, np.int8, np.uint8,
                           np.float16, fnp.bfloat16, np.complex64, np.float64, int, "bad"])


@settings(max_examples=150, deadline=None)
@given(_SIZES, st.one_of(st.none(), _SIZES), st.sampled_from([0, 1, -1, 3, -4, 2**31, 1.0]),
       _DTYPES, st.lists(st.integers(0, 3), max_size=3), st.sampled_from([False, True, 1]))
def test_index_grids_match_general_path(n, m, k, dtype, dims, sparse):
    assert_same_outcome(lambda: fnp.tri(n, m, k, dtype))
    assert_same_outcome(lambda: fnp.tri(n))
    assert_same_outcome(lambda: fnp.diag_indices(n))
    assert_same_outcome(lambda: fnp.diag_indices(n, m if m is not None else 3))
    assert_same_outcome(lambda: fnp.indices(dims, dtype, sparse))
    assert_same_outcome(lambda: fnp.indices(tuple(dims)))
    assert_same_outcome(lambda: fnp.mask_indices(n, fnp.triu, k))


_FLAT_SHAPES = st.sampled_from([(2, 3), (4,), (), (3, 1, 2), (2, 0), 5, (2, -1), [3, 3]])


@settings(max_examples=150, deadline=None)
@given(operands(shapes=[(), (0,), (3,), (2, 2)],
                kinds=("array", "array", "weak", "device", "numpy", "list")), _FLAT_SHAPES,
       st.data())
def test_unravel_index_matches_general_path(x, shape, data):
    operand, _ = x
    assert_same_outcome(lambda: fnp.unravel_index(operand, shape))
    # integer indices in and out of bounds
    n = data.draw(st.sampled_from([0, 1, 3]))
    flat = np.asarray(data.draw(st.lists(st.integers(-12, 12), min_size=n, max_size=n)))
    dtype = data.draw(st.sampled_from([np.int32, np.int32, np.int64, np.int8]))
    kind = data.draw(st.sampled_from(["array", "array", "weak", "device"]))
    idx = as_kind(flat.astype(dtype), kind)
    assert_same_outcome(lambda: fnp.unravel_index(idx, shape))


@settings(max_examples=150, deadline=None)
@given(st.data(), st.sampled_from([(2, 3), (4,), (3, 1, 2), (2, 0), 5, [3, 3], (2**20, 2**12)]),
       st.sampled_from(["raise", "raise", "wrap", "clip", "clip", "ignore", "bad"]),
       st.sampled_from(["C", "C", "F", "X"]), st.sampled_from([None, None, None, np.int64, "bad"]))
def test_ravel_multi_index_matches_general_path(data, dims, mode, order, dtype):
    n = len(dims) if isinstance(dims, (tuple, list)) else 1
    n += data.draw(st.sampled_from([0, 0, 0, 1, -1]))
    index_dtype = data.draw(st.sampled_from([np.int32, np.int32, np.int64, np.uint8]))
    kind = data.draw(st.sampled_from(["array", "array", "device", "weak", "numpy", "list"]))
    shape = data.draw(st.sampled_from([(), (3,), (2, 3), (0,), (3,)]))
    low = 0 if index_dtype == np.uint8 else -3
    index = [as_kind(np.asarray(data.draw(st.lists(st.integers(low, 4), min_size=int(
        np.prod(shape)), max_size=int(np.prod(shape)))), index_dtype).reshape(shape), kind)
        for _ in range(max(n, 0))]
    assert_same_outcome(lambda: fnp.ravel_multi_index(tuple(index), dims, mode, order,
                                                      dtype=dtype))
