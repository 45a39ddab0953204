"""Differential test of ``funcarray.numpy``'s set operations, searching, sorting helpers,
counting and histograms against jax: funcarray eager, funcarray jit and ``jax.numpy`` on the
same operands and parameters must agree on whether they raise, and otherwise on shape,
dtype, weak type and values (differential_routines.py runs and compares them).

Operands are arrays of any dtype (0-d, empty, one or two axes) whose values mix small
numbers with each dtype's edge values (signed zeros, infinities, NaN, extremes, integer
limits: the order of NaNs and signed zeros in sorts and unique is compared), Python scalars
and lists; parameters are drawn valid and invalid (axes out of range, unsorted or
non-monotonic bins, unknown methods and sides). Results that are elements, counts or
positions are compared exactly; bin edges and densities within a few rounding errors.
Functions whose result shape depends on the values run eagerly, and under jit with
``size=`` (or ``length=``); without it funcarray's jit must raise as jax's does.
"""

from __future__ import annotations

import numpy as np
from differential_compare import Raised, parts, subnormal
from differential_routines import (
    AFTER_FIRST,
    ALL,
    Call,
    Routine,
    any_array,
    assert_table_covers,
    index_array,
    table_tests,
)
from hypothesis import strategies as st
from op_table import ALL_DTYPES, kind_of

import funcarray.numpy as fnp

# Each example compiles a funcarray program and (eagerly) jax's operations: the CI budget is
# a fixed number of examples over the whole table, each drawing its function (the same ones
# every CI run, derandomized); the thorough profile scales the count (conftest.py) and so
# reaches every function often.
_EXAMPLES = 40

_SHAPES = ((), (0,), (4,), (2, 3), (3, 0))
_FLAT_SHAPES = ((), (0,), (1,), (5,))
_SIZE = st.one_of(st.none(), st.integers(0, 6))
_FILL = st.sampled_from((None, None, 0, -1, 2.5, np.nan))
_REAL_DTYPES = tuple(d for d in ALL_DTYPES if kind_of(d) != "c")


def _sized(kwargs) -> bool:
    return kwargs.get("size") is not None


def _with_size(draw, kwargs):
    size = draw(_SIZE, label="size")
    if size is not None:
        kwargs["size"] = size
        fill = draw(_FILL, label="fill_value")
        if fill is not None:
            kwargs["fill_value"] = fill
    return kwargs


# --------------------------------------------------------------------------------------------
# Sets
# --------------------------------------------------------------------------------------------


@st.composite
def _unique_calls(draw):
    x = draw(any_array(_SHAPES), label="ar")
    kwargs = {k: draw(st.booleans(), label=k)
              for k in ("return_index", "return_inverse", "return_counts", "equal_nan")}
    kwargs["axis"] = draw(st.sampled_from((None, None, 0, 1, -1, 2)), label="axis")
    return Call((x,), _with_size(draw, kwargs))


@st.composite
def _unary_set_calls(draw):
    return Call((draw(any_array(_SHAPES), label="x"),), _with_size(draw, {}))


@st.composite
def _two_sets(draw, unique=False):
    """Two arrays of one dtype (or an array and a Python list), small enough to overlap."""
    dtype = draw(st.sampled_from(ALL_DTYPES), label="dtype")
    a = draw(any_array(_FLAT_SHAPES + ((2, 2),), (dtype,)), label="ar1")
    b = draw(any_array(_FLAT_SHAPES, (dtype,)), label="ar2")
    if a.size and b.size and draw(st.booleans(), label="overlap"):
        b.reshape(-1)[0] = a.reshape(-1)[-1]
    if unique:  # as assume_unique promises (no NaN: jax's and NumPy's differ on those)
        a, b = (np.unique(v[~np.isnan(v)] if kind_of(dtype) in "fc" else v) for v in (a, b))
    if draw(st.integers(0, 5), label="list operand") == 0:
        b = b.tolist()
    return a, b


@st.composite
def _binary_set_calls(draw, assume_unique=True, return_indices=False):
    unique = assume_unique and draw(st.booleans(), label="assume_unique")
    kwargs = {"assume_unique": True} if unique else {}
    if return_indices:
        kwargs["return_indices"] = draw(st.booleans(), label="return_indices")
    return Call(draw(_two_sets(unique)), _with_size(draw, kwargs))


@st.composite
def _isin_calls(draw):
    dtype = draw(st.sampled_from(ALL_DTYPES), label="dtype")
    element = draw(any_array(_SHAPES, (dtype,)), label="element")
    test = draw(any_array(_FLAT_SHAPES + ((2, 2),), (dtype,)), label="test_elements")
    if element.size and test.size and draw(st.booleans(), label="overlap"):
        test.reshape(-1)[0] = element.reshape(-1)[0]
    kwargs = {"invert": draw(st.booleans(), label="invert"),
              "method": draw(st.sampled_from(("auto", "compare_all", "binary_search",
                                               "sort")), label="method")}
    return Call((element, test), kwargs)


# --------------------------------------------------------------------------------------------
# Searching and sorting
# --------------------------------------------------------------------------------------------


def _sorted(a):
    """``a`` sorted as jax sorts (NaNs last; complex by real part, then imaginary)."""
    return np.sort(a)


@st.composite
def _searchsorted_calls(draw):
    dtype = draw(st.sampled_from(ALL_DTYPES), label="dtype")
    a = draw(any_array(((0,), (1,), (5,)), (dtype,)), label="a")
    v = draw(st.one_of(any_array(_SHAPES, (dtype,)), st.sampled_from((0, 1.5, -np.inf))),
             label="v")
    kwargs = {"side": draw(st.sampled_from(("left", "right", "left", "middle")), label="side"),
              "method": draw(st.sampled_from(("scan", "scan_unrolled", "sort",
                                               "compare_all")), label="method")}
    if draw(st.booleans(), label="sorter"):
        kwargs["sorter"] = None
        operands = (a, v, np.argsort(a, kind="stable").astype(np.int32))
    else:
        operands = (_sorted(a), v)
    return Call(operands, kwargs)


def _searchsorted(ns, a, v, *sorter, **kwargs):
    kwargs.pop("sorter", None)
    return ns.searchsorted(a, v, sorter=sorter[0] if sorter else None, **kwargs)


@st.composite
def _lexsort_calls(draw):
    dtype = draw(st.sampled_from(ALL_DTYPES), label="dtype")
    shape = draw(st.sampled_from(((0,), (4,), (2, 3))), label="shape")
    n = draw(st.integers(1, 3), label="keys")
    keys = tuple(draw(any_array((shape,), (dtype,)), label="key") for _ in range(n))
    axis = draw(st.sampled_from((-1, 0, 1, 2)), label="axis")
    if draw(st.booleans(), label="stacked keys"):
        return Call((np.stack(keys),), {"axis": axis})
    return Call((keys,), {"axis": axis})


@st.composite
def _partition_calls(draw):
    x = draw(any_array(((4,), (2, 3), (3, 0), ())), label="a")
    axis = draw(st.sampled_from((-1, 0, 1, 2)), label="axis")
    return Call((x,), {"kth": draw(st.integers(-4, 4), label="kth"), "axis": axis})


@st.composite
def _one_array_calls(draw, shapes=_SHAPES, sized=False):
    x = draw(any_array(shapes), label="a")
    return Call((x,), _with_size(draw, {}) if sized else {})


@st.composite
def _digitize_calls(draw):
    dtype = draw(st.sampled_from(_REAL_DTYPES), label="dtype")
    x = draw(any_array(_SHAPES, (dtype,)), label="x")
    bins = _sorted(draw(any_array(((0,), (1,), (4,)), (dtype,)), label="bins"))
    order = draw(st.sampled_from(("increasing", "decreasing", "unsorted")), label="order")
    if order == "decreasing":
        bins = bins[::-1].copy()
    elif order == "unsorted" and bins.size > 2:
        bins = bins[[1, 0, *range(2, bins.size)]]
    kwargs = {"right": draw(st.booleans(), label="right"),
              "method": draw(st.sampled_from((None, "scan", "sort", "compare_all")),
                             label="method")}
    return Call((x, bins), kwargs)


@st.composite
def _bincount_calls(draw):
    n = draw(st.sampled_from((0, 1, 5)), label="n")
    x = draw(index_array((n,), -1, 6), label="x")
    operands = (x,)
    if draw(st.booleans(), label="weights"):
        operands += (draw(any_array(((n,), (n + 1,))), label="weights"),)
    kwargs = {"minlength": draw(st.sampled_from((0, 0, 3, 8)), label="minlength")}
    length = draw(st.sampled_from((None, None, 0, 4, 9)), label="length")
    if length is not None:
        kwargs["length"] = length
    return Call(operands, kwargs)


def _bincount(ns, x, *weights, **kwargs):
    return ns.bincount(x, weights[0] if weights else None, **kwargs)


_RANGES = st.sampled_from((None, None, (0.0, 4.0), (-1, 1), (2.0, 2.0), (3.0, -1.0)))


@st.composite
def _bins(draw, dtype):
    if draw(st.booleans(), label="bin count"):
        return draw(st.sampled_from((1, 3, 10, 0)), label="bins")
    edges = draw(st.sampled_from(([0.0, 1.0, 2.0], [-1.0, 0.0, 0.5, 4.0], [1.0], [2.0, 1.0])),
                 label="edges")
    return np.array(edges, dtype if kind_of(dtype) in "fc" else np.float32)


@st.composite
def _histogram_calls(draw, edges_only=False):
    dtype = draw(st.sampled_from(_REAL_DTYPES), label="dtype")
    a = draw(any_array(((0,), (5,), (2, 3)), (dtype,)), label="a")
    # Mostly finite data: the edges span the data's range, and an infinity in it gives NaN
    # edges (drawn one time in five).
    if kind_of(dtype) == "f" and draw(st.integers(0, 4), label="non-finite") != 0:
        a = np.where(np.isfinite(a) & (np.abs(a) < 100), a, 1).astype(dtype)
    bins = draw(_bins(dtype), label="bins")
    operands = (a, bins)
    kwargs = {"range": draw(_RANGES, label="range")}
    if draw(st.booleans(), label="weights"):
        operands += (draw(any_array((a.shape,), _REAL_DTYPES), label="weights"),)
    if not edges_only:
        kwargs["density"] = draw(st.sampled_from((None, False, True)), label="density")
    return Call(operands, kwargs)


def _histogram(ns, a, bins, *weights, **kwargs):
    return ns.histogram(a, bins, weights=weights[0] if weights else None, **kwargs)


def _histogram_bin_edges(ns, a, bins, *weights, **kwargs):
    return ns.histogram_bin_edges(a, bins, weights=weights[0] if weights else None, **kwargs)


@st.composite
def _histogram2d_calls(draw):
    dtype = draw(st.sampled_from(_REAL_DTYPES), label="dtype")
    x = draw(any_array(((0,), (4,)), (dtype,)), label="x")
    y = draw(any_array(((x.size,), (x.size,), (x.size + 1,)), (dtype,)), label="y")
    x, y = (np.where(np.isfinite(v) & (np.abs(v) < 100), v, 0).astype(dtype) for v in (x, y))
    bins = draw(st.one_of(st.sampled_from((2, 3, [2, 3])), _bins(dtype)), label="bins")
    kwargs = {"range": draw(st.sampled_from((None, None, ((0, 4), (-1, 1)))), label="range"),
              "density": draw(st.sampled_from((None, True)), label="density")}
    operands = (x, y, bins)
    if draw(st.booleans(), label="weights"):
        operands += (draw(any_array(((x.size,),), _REAL_DTYPES), label="weights"),)
    return Call(operands, kwargs)


def _histogram2d(ns, x, y, bins, *weights, **kwargs):
    return ns.histogram2d(x, y, bins, weights=weights[0] if weights else None, **kwargs)


@st.composite
def _histogramdd_calls(draw):
    dtype = draw(st.sampled_from(_REAL_DTYPES), label="dtype")
    sample = draw(any_array(((0, 2), (4, 1), (4, 3)), (dtype,)), label="sample")
    sample = np.where(np.isfinite(sample) & (np.abs(sample) < 100), sample, 0).astype(dtype)
    d = sample.shape[1]
    bins = draw(st.sampled_from((2, [1] * d, [3] * (d + 1), 0)), label="bins")
    kwargs = {"bins": bins,
              "range": draw(st.sampled_from((None, [(0, 4)] * d)), label="range"),
              "density": draw(st.sampled_from((None, True)), label="density")}
    operands = (sample,)
    if draw(st.booleans(), label="weights"):
        operands += (draw(any_array(((sample.shape[0],),), _REAL_DTYPES), label="weights"),)
    return Call(operands, kwargs)


def _histogramdd(ns, sample, *weights, **kwargs):
    return ns.histogramdd(sample, weights=weights[0] if weights else None, **kwargs)


@st.composite
def _trim_zeros_calls(draw):
    x = draw(any_array(((0,), (5,), (2, 3), ())), label="filt")
    if x.ndim and x.shape[-1] > 2:  # leading and trailing zeros to trim
        x[..., 0] = 0
        x[..., -1] = 0
    kwargs = {"trim": draw(st.sampled_from(("fb", "f", "b", "bf", "x")), label="trim")}
    axis = draw(st.sampled_from((None, None, 0, -1, 3)), label="axis")
    if axis is not None:
        kwargs["axis"] = axis
    return Call((x,), kwargs)


def _named(name):
    """Calls the function of ``name`` with the operands and keywords as they are."""
    return lambda ns, *operands, **kwargs: getattr(ns, name)(*operands, **kwargs)


def _flat_result(name, positions=ALL):
    """An array-of-one function taking ``size=`` and ``fill_value=``."""
    return Routine(name, _named(name), lambda: _one_array_calls(sized=True),
                   positions=positions, traceable=lambda c: _sized(c.kwargs))


def _set(name, calls, positions=AFTER_FIRST):
    return Routine(name, _named(name), calls, positions=positions,
                   traceable=lambda c: _sized(c.kwargs))


SET_AND_SEARCH_OPS = (
    _set("unique", _unique_calls),
    _set("unique_all", _unary_set_calls),
    _set("unique_counts", _unary_set_calls),
    _set("unique_inverse", _unary_set_calls),
    _set("unique_values", _unary_set_calls),
    _set("intersect1d", lambda: _binary_set_calls(return_indices=True)),
    _set("union1d", lambda: _binary_set_calls(assume_unique=False)),
    _set("setdiff1d", _binary_set_calls),
    _set("setxor1d", _binary_set_calls),
    Routine("isin", _named("isin"), _isin_calls),
    Routine("searchsorted", _searchsorted, _searchsorted_calls, positions=ALL),
    Routine("lexsort", _named("lexsort"), _lexsort_calls, positions=ALL),
    Routine("partition", _named("partition"), _partition_calls),
    Routine("argpartition", _named("argpartition"), _partition_calls, positions=ALL),
    Routine("sort_complex", _named("sort_complex"), _one_array_calls),
    _flat_result("nonzero"),
    _flat_result("argwhere"),
    _flat_result("flatnonzero"),
    Routine("digitize", _named("digitize"), _digitize_calls, positions=ALL),
    Routine("bincount", _bincount, _bincount_calls, positions=ALL,
            traceable=lambda c: c.kwargs.get("length") is not None),
    Routine("histogram", _histogram, _histogram_calls, positions=ALL, computes=True),
    Routine("histogram2d", _histogram2d, _histogram2d_calls, positions=ALL, computes=True),
    Routine("histogramdd", _histogramdd, _histogramdd_calls, positions=ALL, computes=True),
    Routine("histogram_bin_edges", _histogram_bin_edges,
            lambda: _histogram_calls(edges_only=True), computes=True),
    Routine("trim_zeros", _named("trim_zeros"), _trim_zeros_calls,
            traceable=lambda c: False),
)

_ASSIGNED = (
    "unique unique_all unique_counts unique_inverse unique_values intersect1d union1d "
    "setdiff1d setxor1d isin searchsorted lexsort partition argpartition sort_complex "
    "nonzero argwhere flatnonzero digitize bincount histogram histogram2d histogramdd "
    "histogram_bin_edges trim_zeros").split()


def test_every_assigned_function_is_in_the_table():
    assert_table_covers(SET_AND_SEARCH_OPS, _ASSIGNED)


# --------------------------------------------------------------------------------------------
# Allowances
# --------------------------------------------------------------------------------------------


def jax_set_operation_fails_on_empty_sized(routine, call, got, want) -> bool:
    """jax's sized ``intersect1d``, ``setxor1d`` and ``setdiff1d`` index into empty inputs
    or results ("zero-size array to reduction operation max", "Slice size ... out of
    range", "index is out of bounds ... size 0"), and its ``intersect1d(return_indices=
    True)`` of two empty arrays leaves the indices unpadded; funcarray pads every output to
    ``size``, as for non-empty inputs."""
    if (routine.name not in ("intersect1d", "setxor1d", "setdiff1d")
            or not _sized(call.kwargs)):
        return False
    if not (call.kwargs["size"] == 0 or any(np.size(a) == 0 for a in call.operands)):
        return False
    if isinstance(want, Raised):
        return not isinstance(got, Raised) and any(
            text in str(want.exc) for text in ("zero-size array", "Slice size", "size 0"))
    return (not isinstance(got, Raised) and len(want) == 3
            and want[1][0].shape != got[1][0].shape == (call.kwargs["size"],))


def jax_pads_an_empty_intersection_with_an_input(routine, call, got, want) -> bool:
    """jax's sized ``intersect1d`` of an empty and a non-empty array pads with the min of
    its unmatched sorted inputs; funcarray pads an empty result with 0 (jax's choice for
    every other empty result)."""
    return (routine.name == "intersect1d" and _sized(call.kwargs)
            and call.kwargs.get("fill_value") is None
            and any(np.size(a) == 0 for a in call.operands)
            and not isinstance(got, Raised) and not isinstance(want, Raised)
            and not got[0][0].any() and got[0][0].shape == want[0][0].shape)


def uint64_and_a_signed_int_join_at_weak_float(routine, call, got, want) -> bool:
    """uint64 with a signed integer (a list converted to int32) meet at jax's weak float
    node: its result is float64 and weakly typed; funcarray's float64 is strong (the
    operands were). Values are compared."""
    if isinstance(got, Raised) or isinstance(want, Raised) or len(got) != len(want):
        return False
    kinds = {np.asarray(a).dtype.kind for a in call.operands}
    uint64 = any(np.asarray(a).dtype == np.uint64 for a in call.operands)
    (g, g_weak), (w, w_weak) = got[0], want[0]
    return (uint64 and "i" in kinds and w_weak and not g_weak and g.dtype == w.dtype
            and np.array_equal(g, w, equal_nan=True))


def jax_promotes_with_fill_value(routine, call, got, want) -> bool:
    """jax's sized ``intersect1d`` and ``setxor1d`` pad with ``where(valid, values,
    fill_value)`` and so promote the values with ``fill_value`` (int8 values padded with 2.5
    are float), while its ``unique``, ``union1d`` and ``setdiff1d`` cast ``fill_value`` to the
    values' dtype; funcarray casts in all five (one rule)."""
    if (routine.name not in ("intersect1d", "setxor1d") or call.kwargs.get("fill_value") is None
            or isinstance(want, Raised) or isinstance(got, Raised)):
        return False
    values = np.dtype(fnp.result_type(*(fnp.asarray(a) if isinstance(a, list) else a
                                        for a in call.operands)))  # (a Python scalar: weak)
    return got[0][0].dtype == values != want[0][0].dtype


def jax_setxor1d_of_two_empty_arrays_traces(routine, call, got, want) -> bool:
    """jax's ``setxor1d(assume_unique=True)`` without ``size=`` masks a concatenation whose
    shape is static only when both inputs are empty, so jit runs it there alone; funcarray's
    jit asks for ``size=`` whenever it is missing, as jax's other set operations do."""
    return (routine.name == "setxor1d" and not _sized(call.kwargs)
            and all(np.size(a) == 0 for a in call.operands) and isinstance(got, Raised)
            and "size=" in str(got.exc) and not isinstance(want, Raised))


def jax_partition_refuses_bool(routine, call, got, want) -> bool:
    """jax's ``partition``/``argpartition`` negate the operand for ``lax.top_k`` and so
    refuse bool; funcarray partitions bools as NumPy does."""
    return (routine.name in ("partition", "argpartition") and call.operands[0].dtype == bool
            and isinstance(want, Raised) and "neg does not accept dtype bool" in str(want.exc))


_HISTOGRAMS = ("histogram", "histogram2d", "histogramdd", "histogram_bin_edges")


def jax_takes_no_bins(routine, call, got, want) -> bool:
    """jax's histograms take ``bins=0`` (an empty histogram); funcarray refuses it as
    NumPy does ("bins must be positive")."""
    return (routine.name in _HISTOGRAMS and isinstance(got, Raised)
            and "bins must be positive" in str(got.exc) and not isinstance(want, Raised))


def jax_needs_values_for_a_range(routine, call, got, want) -> bool:
    """jax's histograms of empty data without ``range=`` take the data's min and max and
    raise; funcarray bins over [0, 1] as NumPy does."""
    return (routine.name in _HISTOGRAMS and call.kwargs.get("range") is None
            and np.size(call.operands[0]) == 0 and isinstance(want, Raised)
            and "zero-size array" in str(want.exc) and not isinstance(got, Raised))


def signed_zero_of_the_padding(routine, call, got, want) -> bool:
    """The default padding of a sized set operation is the min of the results and 0: of
    -0.0 and 0.0 either is the min (IEEE leaves it open), and XLA's min reads a subnormal
    as zero (so it may pad with either); elsewhere equal."""
    if (not _sized(call.kwargs) or call.kwargs.get("fill_value") is not None
            or isinstance(got, Raised) or isinstance(want, Raised) or len(got) != len(want)):
        return False
    g, w = got[0][0], want[0][0]
    if g.shape != w.shape or g.dtype != w.dtype or kind_of(g.dtype) not in "fc":
        return False
    zero = [(p == 0) | subnormal(p, g.dtype) for p in (*parts(g), *parts(w))]
    with np.errstate(invalid="ignore"):
        return bool(((g == w) | ((g != g) & (w != w))
                     | (np.all(zero[:len(zero) // 2], axis=0)
                        & np.all(zero[len(zero) // 2:], axis=0))).all())


def jax_argwhere_of_0d_keeps_fill_weak(routine, call, got, want) -> bool:
    """jax's ``argwhere`` of a 0-d array with a Python float ``fill_value`` returns an empty
    (size, 0) array that is weakly typed and of x64's float; funcarray's is its strong
    positions dtype promoted with the fill (float32). Nothing in it to compare."""
    return (routine.name == "argwhere" and np.ndim(call.operands[0]) == 0
            and not isinstance(got, Raised) and not isinstance(want, Raised)
            and got[0][0].size == 0 and got[0][0].shape == want[0][0].shape)


def samples_on_rounded_edges(routine, call, got, want) -> bool:
    """Computed bin edges (``bins`` a count) round differently in jax's and funcarray's
    linspace (compared within rounding); a sample that lies on an edge may then fall in
    either neighbouring bin. The totals must still agree."""
    if (routine.name not in _HISTOGRAMS[:3] or isinstance(got, Raised)
            or isinstance(want, Raised) or len(got) != len(want)):
        return False
    edges_differ = any(not np.array_equal(g, w) for (g, _), (w, _) in zip(got[1:], want[1:])
                       if g.shape == w.shape)
    (g, _), (w, _) = got[0], want[0]
    with np.errstate(invalid="ignore"):
        return (edges_differ and g.shape == w.shape
                and bool(np.isclose(g.sum(dtype=np.float64), w.sum(dtype=np.float64),
                                    equal_nan=True)))


_ALLOWANCES = (uint64_and_a_signed_int_join_at_weak_float,
               jax_pads_an_empty_intersection_with_an_input,
               signed_zero_of_the_padding, jax_argwhere_of_0d_keeps_fill_weak,
               samples_on_rounded_edges, jax_takes_no_bins, jax_needs_values_for_a_range,
               jax_set_operation_fails_on_empty_sized, jax_promotes_with_fill_value,
               jax_setxor1d_of_two_empty_arrays_traces, jax_partition_refuses_bool)


# Defects the table found, fixed: each as the call that showed it.
_REGRESSIONS = (
    ("sort_complex", Call((np.array([3, -1], np.int64),), {})),  # complex64, jax complex128
    ("sort_complex", Call((np.array([], np.uint64),), {})),
    ("bincount", Call((np.array([1], np.int32), np.array([True])), {"minlength": 0})),  # bool
    ("histogram", Call((np.array([1.0, 2.0], np.float32), np.array([1.0], np.float32)),
                       {"range": None, "density": True})),  # one edge refused
    ("histogramdd", Call((np.array([[1.0], [3.0]], np.float32),),
                         {"bins": [np.array([1.0], np.float32)], "range": None})),
    ("union1d", Call((np.array([-1 + 7.704485012298321j]), -1 + 7.704485012298321j),
                     {})),  # the Python complex rounded to complex64 first: two values
    ("setxor1d", Call((np.array([0.1]), 0.1), {})),
    ("setdiff1d", Call((np.array([8], np.int16), []), {})),  # float32, jax int16
    ("setdiff1d", Call((np.array([2**60 + 1, 3], np.uint64), np.array([3.0], np.float32)),
                       {})),  # rounded through the promoted dtype
)


test_regressions_match_jax, test_eager_and_jit_match_jax = table_tests(
    SET_AND_SEARCH_OPS, _ALLOWANCES, _REGRESSIONS, _EXAMPLES)
