"""Differential test of ``funcarray.numpy``'s indexing routines against jax: funcarray
eager, funcarray jit and ``jax.numpy`` on the same operands and parameters must agree on
whether they raise, and otherwise on shape, dtype, weak type and values
(differential_routines.py runs and compares them).

Operands are arrays of any dtype (0-d, empty, one to three axes) mixing small values with
each dtype's edge values; indices of every integer dtype (a float one now and then, which
jax refuses) in range, negative and out of range, under each ``mode``; Python scalars and
lists where jax takes them. Results are elements of the operands or positions: compared
exactly, signed zeros and NaNs included.
"""

from __future__ import annotations

import numpy as np
from differential_compare import Raised
from differential_routines import (
    ALL,
    Call,
    Routine,
    any_array,
    assert_table_covers,
    index_array,
    table_tests,
)
from hypothesis import strategies as st
from op_table import ALL_DTYPES

import funcarray.numpy as fnp

# A fixed number of examples over the whole table, each drawing its function (the same ones
# every CI run, derandomized); the thorough profile scales the count (conftest.py).
_EXAMPLES = 60

_SHAPES = ((), (0,), (4,), (2, 3), (3, 0), (2, 1, 2))
_MATRIX_SHAPES = ((3, 3), (2, 3), (0, 0), (2, 2, 2), (4,))
_MODES = st.sampled_from((None, "clip", "wrap", "fill", "promise_in_bounds", "drop"))
_AXIS = st.sampled_from((None, 0, 1, -1, 3))


def _named(name):
    return lambda ns, *operands, **kwargs: getattr(ns, name)(*operands, **kwargs)


def _axis_length(shape, axis):
    if axis is None:
        return int(np.prod(shape))
    return shape[axis] if -len(shape) <= axis < len(shape) else 1


@st.composite
def _along_axis_calls(draw, put=False):
    arr = draw(any_array(((4,), (2, 3), (2, 0), ())), label="arr")
    axis = draw(st.sampled_from((None, 0, 1, -1, 2)), label="axis")
    n = _axis_length(arr.shape, axis)
    shape = ((draw(st.integers(0, 3)),) if axis is None or arr.ndim < 2 else
             tuple(draw(st.integers(0, 2)) if i == axis % arr.ndim else d
                   for i, d in enumerate(arr.shape)))
    indices = draw(index_array(shape, -n - 2, n + 1), label="indices")
    kwargs = {"axis": axis, "mode": draw(st.sampled_from((None, "clip", "fill",
                                                           "promise_in_bounds")))}
    if put:
        values = draw(any_array((indices.shape, ()), (arr.dtype,)), label="values")
        return Call((arr, indices, values), {**kwargs, "inplace": False})
    if kwargs["mode"] == "fill" and draw(st.booleans()):
        kwargs["fill_value"] = draw(st.sampled_from((0, -1, 2.5)))
    return Call((arr, indices), kwargs)


@st.composite
def _choose_calls(draw):
    n = draw(st.integers(1, 3), label="choices")
    shape = draw(st.sampled_from(((3,), (2, 3), ())), label="shape")
    a = draw(index_array(shape, -2, n + 1), label="a")
    dtype = draw(st.sampled_from(ALL_DTYPES))
    choices = [draw(any_array((shape, shape[-1:]), (dtype,)), label="choice") for _ in range(n)]
    mode = draw(st.sampled_from(("raise", "clip", "wrap")), label="mode")
    return Call((a, choices), {"mode": mode})


@st.composite
def _condition_calls(draw, axis=False):
    arr = draw(any_array(_SHAPES), label="a")
    n = _axis_length(arr.shape, None)
    kwargs = {}
    if axis:
        kwargs["axis"] = draw(_AXIS, label="axis")
        n = _axis_length(arr.shape, kwargs["axis"])
    condition = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n + 1)), bool)
    if draw(st.integers(0, 5), label="int condition") == 0:
        condition = condition.astype(np.int32)
    if draw(st.booleans(), label="size"):
        kwargs["size"] = draw(st.integers(0, 5))
        kwargs["fill_value"] = draw(st.sampled_from((0, -1, 2.5)))
    if axis:
        return Call((condition, arr), kwargs)
    return Call((condition.reshape(arr.shape) if condition.size == arr.size else condition,
                 arr), kwargs)


@st.composite
def _select_calls(draw):
    shape = draw(st.sampled_from(((3,), (2, 3), ())))
    n = draw(st.integers(0, 3), label="conditions")
    conds = [np.array(draw(st.lists(st.booleans(), min_size=int(np.prod(shape)),
                                    max_size=int(np.prod(shape)))), bool).reshape(shape)
             for _ in range(n)]
    dtype = draw(st.sampled_from(ALL_DTYPES))
    choices = [draw(any_array((shape,), (dtype,))) for _ in range(n)]
    default = draw(st.sampled_from((0, 2.5, np.nan)), label="default")
    return Call((conds, choices), {"default": default})


@st.composite
def _piecewise_calls(draw):
    x = draw(any_array(((4,), (2, 3), ())), label="x")
    n = draw(st.integers(1, 2))
    conds = [np.array(draw(st.lists(st.booleans(), min_size=x.size, max_size=x.size)),
                      bool).reshape(x.shape) for _ in range(n)]
    extra = draw(st.integers(0, 1), label="otherwise")
    funcs = tuple(draw(st.sampled_from((0, 1.5, "negative", "identity")))
                  for _ in range(n + extra))
    return Call((x, conds), {"funcs": funcs})


def _piecewise(ns, x, conds, funcs):
    table = {"negative": lambda v: -v, "identity": lambda v: v}
    return ns.piecewise(x, conds, [table.get(f, f) if isinstance(f, str) else f
                                   for f in funcs])


@st.composite
def _place_calls(draw):
    arr = draw(any_array(((4,), (2, 3), (0,))), label="arr")
    mask = np.array(draw(st.lists(st.booleans(), min_size=arr.size, max_size=arr.size)),
                    bool).reshape(arr.shape)
    vals = draw(any_array(((0,), (1,), (3,)), (arr.dtype,)), label="vals")
    return Call((arr, mask, vals), {"inplace": False})


@st.composite
def _put_calls(draw):
    a = draw(any_array(((4,), (2, 3), (0,))), label="a")
    ind = draw(index_array((draw(st.integers(0, 3)),), -a.size - 2, a.size + 1), label="ind")
    v = draw(any_array(((), (1,), ind.shape), (a.dtype,)), label="v")
    mode = draw(st.sampled_from((None, "clip", "wrap", "raise")))
    return Call((a, ind, v), {"mode": mode, "inplace": False})


@st.composite
def _delete_insert_calls(draw, insert=False):
    arr = draw(any_array(((4,), (2, 3), (0,), ())), label="arr")
    axis = draw(st.sampled_from((None, 0, 1, -1, 2)), label="axis")
    n = _axis_length(arr.shape, axis)
    obj = draw(st.one_of(st.integers(-n - 1, n + 1), st.lists(st.integers(-n, n),
                                                                max_size=3),
                         st.just(slice(0, None, 2))), label="obj")
    if insert:
        values = draw(st.one_of(any_array(((), (1,)), (arr.dtype,)),
                                st.sampled_from((0, 2.5))), label="values")
        return Call((arr, obj, values), {"axis": axis})
    return Call((arr, obj), {"axis": axis})


@st.composite
def _append_calls(draw):
    arr = draw(any_array(((3,), (2, 3), ())), label="arr")
    values = draw(st.one_of(any_array(((3,), (1, 3), (2,))), st.sampled_from((1, 2.5, True))),
                  label="values")
    return Call((arr, values), {"axis": draw(st.sampled_from((None, 0, 1, 2)))})


@st.composite
def _ravel_calls(draw):
    dims = draw(st.sampled_from(((3, 4), (2,), (0, 3), (5, 1, 2))), label="dims")
    shape = draw(st.sampled_from(((2,), (), (0,))), label="shape")
    multi = tuple(draw(index_array(shape, -max(dims) - 1, max(dims) + 1,
                                   (np.int8, np.int32, np.int64, np.uint8, np.float32)))
                  for _ in dims[:len(dims) + draw(st.integers(-1, 0))] or dims)
    mode = draw(st.sampled_from(("raise", "clip", "wrap")), label="mode")
    order = draw(st.sampled_from(("C", "F", "K")), label="order")
    return Call((multi,), {"dims": dims, "mode": mode, "order": order})


@st.composite
def _unravel_calls(draw):
    shape = draw(st.sampled_from(((3, 4), (2,), (0, 3), (5, 1, 2), ())), label="shape")
    size = int(np.prod(shape))
    idx = draw(index_array(draw(st.sampled_from(((3,), (), (0,)))), -size - 1, size + 1),
               label="indices")
    return Call((idx,), {"shape": shape})


@st.composite
def _grid_calls(draw, meshgrid=False):
    n = draw(st.integers(0 if meshgrid else 1, 3), label="arrays")
    dtype = draw(st.sampled_from(ALL_DTYPES))
    arrays = tuple(draw(any_array(((0,), (2,), (3,), ()), (dtype,))) for _ in range(n))
    if not meshgrid:
        return Call(arrays, {})
    return Call(arrays, {"indexing": draw(st.sampled_from(("xy", "ij", "yx"))),
                         "sparse": draw(st.booleans())})


def _static_calls(**strategies):
    return lambda: st.fixed_dictionaries(strategies).map(lambda kw: Call((), kw))


@st.composite
def _from_calls(draw, k=False):
    a = draw(any_array(_MATRIX_SHAPES), label="arr")
    return Call((a,), {"k": draw(st.integers(-2, 2))} if k else {})


def _mask_indices(ns, n, k, mask):
    return ns.mask_indices(n, getattr(ns, mask), k)


@st.composite
def _fill_diagonal_calls(draw):
    a = draw(any_array(_MATRIX_SHAPES + ((5, 2),)), label="a")
    val = draw(st.one_of(any_array(((), (2,)), (a.dtype,)), st.sampled_from((0, 2.5))),
               label="val")
    return Call((a, val), {"wrap": draw(st.booleans()), "inplace": False})


_INDEXES = st.sampled_from((0, -1, 3, (0, 1), slice(None, None, -1), (Ellipsis, 0),
                            (None, 0), slice(1, None), (0, slice(None), None), 5))


@st.composite
def _getitem_calls(draw):
    x = draw(any_array(((4,), (2, 3), (2, 1, 2), ())), label="x")
    if draw(st.booleans(), label="array index"):
        idx = draw(index_array((2,), -5, 4), label="idx")
        return Call((x, idx), {})
    return Call((x,), {"idx": draw(_INDEXES, label="idx")})


def _getitem(ns, x, *idx, **kwargs):
    index = idx[0] if idx else kwargs["idx"]
    return fnp.getitem(x, index) if ns is fnp else x[index]


@st.composite
def _packbits_calls(draw, unpack=False):
    if unpack:
        a = draw(any_array(((3,), (2, 3), (0,), ()), (np.uint8, np.uint8, np.int8,
                                                      np.float32)), label="a")
    else:
        a = draw(any_array(((9,), (2, 3), (0,), ()), (bool, bool, np.int32, np.uint8,
                                                      np.float32)), label="a")
    kwargs = {"axis": draw(st.sampled_from((None, 0, -1, 2)), label="axis"),
              "bitorder": draw(st.sampled_from(("big", "little", "middle")))}
    if unpack:
        kwargs["count"] = draw(st.sampled_from((None, 3, -2, 0, 20)), label="count")
    return Call((a,), kwargs)


_SMALL = st.integers(-1, 4)


def _checks_bounds_lazily(call) -> bool:
    """``mode='raise'`` reads the indices: under jit both libraries raise."""
    return call.kwargs["mode"] != "raise"

INDEXING_OPS = (
    Routine("take_along_axis", _named("take_along_axis"), _along_axis_calls),
    Routine("put_along_axis", _named("put_along_axis"), lambda: _along_axis_calls(put=True)),
    Routine("choose", _named("choose"), _choose_calls, traceable=_checks_bounds_lazily),
    Routine("compress", _named("compress"), lambda: _condition_calls(axis=True),
            traceable=lambda c: "size" in c.kwargs),
    Routine("extract", _named("extract"), _condition_calls,
            traceable=lambda c: "size" in c.kwargs),
    Routine("select", _named("select"), _select_calls),
    Routine("piecewise", _piecewise, _piecewise_calls),
    Routine("place", _named("place"), _place_calls),
    Routine("put", _named("put"), _put_calls),
    Routine("delete", _named("delete"), _delete_insert_calls),
    Routine("insert", _named("insert"), lambda: _delete_insert_calls(insert=True)),
    Routine("append", _named("append"), _append_calls),
    Routine("ravel_multi_index", _named("ravel_multi_index"), _ravel_calls, positions=ALL,
            traceable=_checks_bounds_lazily),
    Routine("unravel_index", _named("unravel_index"), _unravel_calls, positions=ALL),
    Routine("indices", _named("indices"), _static_calls(
        dimensions=st.sampled_from(((2, 3), (0,), (), (1, 2, 1))),
        dtype=st.sampled_from((None, np.dtype(np.int8), np.dtype(np.float32))),
        sparse=st.booleans()), positions=ALL),
    Routine("ix_", _named("ix_"), _grid_calls, positions=ALL),  # (empty: positions)
    Routine("meshgrid", _named("meshgrid"), lambda: _grid_calls(meshgrid=True)),
    Routine("diag_indices", _named("diag_indices"), _static_calls(
        n=_SMALL, ndim=st.integers(0, 3)), positions=ALL),
    Routine("diag_indices_from", _named("diag_indices_from"), _from_calls, positions=ALL),
    Routine("tril_indices", _named("tril_indices"), _static_calls(
        n=_SMALL, k=st.integers(-2, 2), m=st.one_of(st.none(), _SMALL)), positions=ALL),
    Routine("tril_indices_from", _named("tril_indices_from"), lambda: _from_calls(k=True),
            positions=ALL),
    Routine("triu_indices", _named("triu_indices"), _static_calls(
        n=_SMALL, k=st.integers(-2, 2), m=st.one_of(st.none(), _SMALL)), positions=ALL),
    Routine("triu_indices_from", _named("triu_indices_from"), lambda: _from_calls(k=True),
            positions=ALL),
    Routine("mask_indices", _mask_indices, _static_calls(
        n=st.integers(0, 3), k=st.integers(-1, 1), mask=st.sampled_from(("triu", "tril"))),
        positions=ALL),
    Routine("fill_diagonal", _named("fill_diagonal"), _fill_diagonal_calls),
    Routine("getitem", _getitem, _getitem_calls),
    Routine("packbits", _named("packbits"), _packbits_calls),
    Routine("unpackbits", _named("unpackbits"), lambda: _packbits_calls(unpack=True)),
)

_ASSIGNED = (
    "take_along_axis put_along_axis choose compress extract select piecewise place put delete "
    "insert append ravel_multi_index unravel_index indices ix_ meshgrid diag_indices "
    "diag_indices_from tril_indices tril_indices_from triu_indices triu_indices_from "
    "mask_indices fill_diagonal getitem packbits unpackbits").split()


def test_every_assigned_function_is_in_the_table():
    """``getitem`` is compared with jax's ``x[idx]`` (jax.numpy has no such function)."""
    assert_table_covers(INDEXING_OPS, _ASSIGNED, jax_lacks=("getitem",))


def no_index_fits_an_empty_shape(routine, call, got, want) -> bool:
    """``unravel_index`` into a shape with a 0: every index is out of bounds (NumPy
    raises), and jax's clipped answer (-1 + 0 as unsigned) is as arbitrary as funcarray's;
    shapes and dtypes still agree."""
    return (routine.name == "unravel_index" and 0 in call.kwargs["shape"]
            and np.size(call.operands[0]) > 0 and not isinstance(got, Raised)
            and not isinstance(want, Raised)
            and [(g.shape, g.dtype) for g, _ in got] == [(w.shape, w.dtype) for w, _ in want])


def jax_fill_diagonal_rounds_through_floats(routine, call, got, want) -> bool:
    """jax's ``fill_diagonal`` of a 64-bit integer array with a Python float computes the
    whole array in float64 and back (9223372036854775806 off the diagonal comes back as
    9223372036854775807); funcarray writes the diagonal alone, as NumPy does (compared)."""
    if routine.name != "fill_diagonal":
        return False
    a, val = call.operands
    if (a.dtype not in (np.int64, np.uint64)
            or not isinstance(val, float) or isinstance(got, Raised)):
        return False
    expected = a.copy()
    np.fill_diagonal(expected, val, wrap=call.kwargs["wrap"])
    return np.array_equal(got[0][0], expected)


def jax_compress_with_size_drops_entries_past_the_axis(routine, call, got, want) -> bool:
    """jax's ``compress``/``extract`` with ``size=`` ignore a ``condition`` true past the
    end of the axis; without ``size=`` jax raises, as NumPy and funcarray always do."""
    return (routine.name in ("compress", "extract") and "size" in call.kwargs
            and isinstance(got, Raised) and "true past the end" in str(got.exc)
            and not isinstance(want, Raised))


def jax_refuses_a_size_past_the_axis(routine, call, got, want) -> bool:
    """jax's ``compress``/``extract`` refuse a ``size=`` larger than the axis; funcarray
    pads with ``fill_value`` there, as its (and jax's) ``nonzero`` and set operations do."""
    return (routine.name in ("compress", "extract") and isinstance(want, Raised)
            and "not greater than the size of the array axis" in str(want.exc)
            and not isinstance(got, Raised))


def jax_skips_index_checks(routine, call, got, want) -> bool:
    """jax takes float indices where nothing is indexed (``put`` of empty indices or into an
    empty array) and in ``unravel_index`` (float results), and refuses ``insert``'s empty
    list, which NumPy takes as no positions; funcarray refuses float indices whatever the
    size, and takes ``[]``, as NumPy."""
    index = {"put": 1, "unravel_index": 0, "insert": 1}.get(routine.name)
    if index is None or isinstance(got, Raised) == isinstance(want, Raised):
        return False
    value = call.operands[index]
    if routine.name == "insert":
        return value == [] and "integer typed" in str(want.exc)
    nothing_indexed = routine.name == "unravel_index" or 0 in (np.size(value),
                                                              np.size(call.operands[0]))
    return (nothing_indexed and np.asarray(value).dtype.kind == "f"
            and isinstance(got, Raised) and "must be integers" in str(got.exc))


def jax_gathers_from_an_empty_axis(routine, call, got, want) -> bool:
    """jax's ``take_along_axis``/``put_along_axis`` clip indices into an axis of size 0
    (reading zeros, writing nothing); funcarray raises IndexError there, as NumPy."""
    return (routine.name in ("take_along_axis", "put_along_axis")
            and np.size(call.operands[0]) == 0 and isinstance(got, Raised)
            and isinstance(got.exc, IndexError) and not isinstance(want, Raised))


_ALLOWANCES = (jax_refuses_a_size_past_the_axis, jax_gathers_from_an_empty_axis,
               jax_compress_with_size_drops_entries_past_the_axis, jax_skips_index_checks,
               no_index_fits_an_empty_shape, jax_fill_diagonal_rounds_through_floats)


# Defects the table found, fixed: each as the call that showed it.
_REGRESSIONS = (
    # A condition longer than the axis, false past its end (NumPy and jax take it).
    ("compress", Call((np.array([1, 0, 1, 0, 0], bool), np.arange(4, dtype=np.int32)),
                      {"axis": None})),
    ("extract", Call((np.array([1, 0, 1, 0, 0], bool), np.arange(4, dtype=np.float32)), {})),
    ("compress", Call((np.array([1, 0, 1, 0, 1], bool), np.arange(4, dtype=np.int32)),
                      {"axis": 0})),  # true past the end: both raise
    # unravel_index of empty unsigned indices into a size-0 shape raised.
    ("unravel_index", Call((np.array([], np.uint32),), {"shape": (0, 3)})),
    ("ix_", Call((np.array([], np.uint8), np.array([2, 1], np.uint8)), {})),  # int64 empty
    ("mask_indices", Call((), {"n": 3, "k": 1, "mask": "triu"})),  # jit asked for size=
)


test_regressions_match_jax, test_eager_and_jit_match_jax = table_tests(
    INDEXING_OPS, _ALLOWANCES, _REGRESSIONS, _EXAMPLES)
