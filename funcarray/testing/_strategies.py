"""Hypothesis strategies that draw funcarray values: arrays of every funcarray dtype, shapes,
dtypes, finite floats, pytrees, random keys and axes.

They are built on ``hypothesis.extra.numpy`` (whose arrays shrink element by element towards
zero and whose shapes shrink towards fewer, shorter dimensions) and convert the NumPy result
to a funcarray ``Array``. ``dtype`` and ``shape`` arguments may be values or strategies, as in
``hypothesis.extra.numpy``. NumPy and Hypothesis know no bfloat16 or float8: those are drawn as
float32 values already rounded to the narrow type, then converted, so they shrink like floats.

Example:
    >>> from hypothesis import given
    >>> import funcarray.testing as ft
    >>> @given(ft.arrays(ft.dtypes("floating"), ft.array_shapes(max_dims=2)))
    ... def test_negation_is_an_involution(x):
    ...     ft.assert_allclose(-(-x), x)
    >>> test_negation_is_an_involution()
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import ml_dtypes
import numpy as np
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.extra import numpy as hnp
from hypothesis.strategies import SearchStrategy

from funcarray import numpy as fnp
from funcarray.base import dtypes as fa_dtypes

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from hypothesis.extra.numpy import BroadcastableShapes

    from funcarray.base.array import Array
    from funcarray.base.typing import DTypeLike

    _Shape = tuple[int, ...]
    # A shape given as a value (an int means 1-D) or as a strategy drawing one.
    _ShapeArg = int | Sequence[int] | SearchStrategy[_Shape]

__all__ = ["arrays", "array_shapes", "broadcastable_shapes", "mutually_broadcastable_shapes",
           "dtypes", "finite_floats", "pytrees", "keys", "axes", "DTYPE_FAMILIES"]

# Each family lists its simplest dtype first: Hypothesis shrinks a sampled dtype towards the
# front, so failures are reported with the default dtype when it fails too.
_FLOATING = (fa_dtypes.float32, fa_dtypes.float64, fa_dtypes.float16, fa_dtypes.bfloat16)
_SIGNED = (fa_dtypes.int32, fa_dtypes.int8, fa_dtypes.int16, fa_dtypes.int64)
_UNSIGNED = (fa_dtypes.uint8, fa_dtypes.uint16, fa_dtypes.uint32, fa_dtypes.uint64)
_COMPLEX = (fa_dtypes.complex64, fa_dtypes.complex128)
_BOOL = (fa_dtypes.bool_,)
DTYPE_FAMILIES = {
    "floating": _FLOATING,
    "integer": _SIGNED + _UNSIGNED,
    "signed": _SIGNED,
    "unsigned": _UNSIGNED,
    "complex": _COMPLEX,
    "bool": _BOOL,
    "inexact": _FLOATING + _COMPLEX,
    "all": (fa_dtypes.float32, fa_dtypes.int32, fa_dtypes.bool_) + _FLOATING[1:]
    + _SIGNED[1:] + _UNSIGNED + _COMPLEX,
    # Storage formats with few arithmetic ops: asked for by name only, never part of "all".
    "float8": tuple(t for t in fa_dtypes.float8_types if t.name.startswith("float8")),
}


def _resolve(value_or_strategy, draw):
    return draw(value_or_strategy) if isinstance(value_or_strategy, SearchStrategy) else \
        value_or_strategy


def _as_shape(shape) -> tuple:
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(s) for s in shape)


def _is_ml_float(dtype: np.dtype) -> bool:
    """bfloat16 and the float8/6/4 types: floats that NumPy/Hypothesis cannot draw directly."""
    return dtype == fa_dtypes.bfloat16 or dtype in fa_dtypes.float8_types


def _is_ml_int(dtype: np.dtype) -> bool:
    return dtype.kind == "V" and not _is_ml_float(dtype)


# --------------------------------------------------------------------------------------------
# dtypes and elements
# --------------------------------------------------------------------------------------------

def dtypes(family: str | Sequence[str] = "all") -> SearchStrategy[np.dtype]:
    """Funcarray dtypes of one family or several: ``"floating"`` (float32, float64, float16,
    bfloat16), ``"integer"`` (``"signed"`` and ``"unsigned"``), ``"complex"``, ``"bool"``,
    ``"inexact"`` (floating and complex), ``"all"`` (every one of those), or ``"float8"``.
    Shrinks towards the family's simplest dtype (float32 for floats).

    Example:
        >>> from hypothesis import find
        >>> find(dtypes("complex"), lambda d: True)
        dtype('complex64')
    """
    names = (family,) if isinstance(family, str) else tuple(family)
    unknown = [n for n in names if n not in DTYPE_FAMILIES]
    if unknown or not names:
        raise InvalidArgument(f"dtypes: unknown family {unknown or names!r}; choose from "
                              f"{sorted(DTYPE_FAMILIES)}")
    chosen = []
    for name in names:
        chosen.extend(t for t in DTYPE_FAMILIES[name] if t not in chosen)
    return st.sampled_from(chosen)


def _round_to(dtype, value: float) -> float:
    return float(np.asarray(value, np.float64).astype(dtype).astype(np.float64))


def _float_bounds(dtype, min_value, max_value):
    """Bounds representable in ``dtype`` inside [min_value, max_value] (and finite), so that
    values drawn in between and rounded to ``dtype`` stay in bounds (rounding is monotone)."""
    info = ml_dtypes.finfo(dtype)
    top = float(info.max)
    lo = -top if min_value is None else max(float(min_value), -top)
    hi = top if max_value is None else min(float(max_value), top)
    lo_r, hi_r = _round_to(dtype, lo), _round_to(dtype, hi)
    if lo_r < lo:
        lo_r = float(np.nextafter(np.asarray(lo_r, dtype), np.asarray(top, dtype)))
    if hi_r > hi:
        hi_r = float(np.nextafter(np.asarray(hi_r, dtype), np.asarray(-top, dtype)))
    if lo_r > hi_r:
        raise InvalidArgument(f"finite_floats: no {dtype} value lies in [{min_value}, "
                              f"{max_value}]")
    return lo_r, hi_r


def _narrow_floats(dtype, min_value, max_value, allow_subnormal):
    lo, hi = _float_bounds(dtype, min_value, max_value)
    tiny = float(ml_dtypes.finfo(dtype).smallest_normal)

    def round_value(v: float) -> float:
        out = _round_to(dtype, v)
        if not allow_subnormal and 0 < abs(out) < tiny:
            return 0.0 if lo <= 0.0 <= hi else (tiny if out > 0 else -tiny)
        return out
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False, width=32).map(round_value)


def finite_floats(dtype: DTypeLike | SearchStrategy[np.dtype] = "float32", *,
                  min_value: float | None = None, max_value: float | None = None,
                  allow_subnormal: bool = False) -> SearchStrategy[float | complex]:
    """Finite Python floats exactly representable in ``dtype`` (for a complex dtype, complex
    numbers whose parts are, each within the bounds); ``dtype`` may be a strategy. Subnormals
    are left out by default: XLA flushes them to zero, so eager and jit would disagree on them.

    Example:
        >>> from hypothesis import find
        >>> find(finite_floats("bfloat16", min_value=1.0, max_value=1.01), lambda v: v > 1.0)
        1.0078125
    """
    if isinstance(dtype, SearchStrategy):
        return dtype.flatmap(lambda d: finite_floats(d, min_value=min_value, max_value=max_value,
                                                     allow_subnormal=allow_subnormal))
    dtype = np.dtype(dtype)
    if fa_dtypes.is_complex(dtype):
        return _finite_complex(dtype, min_value, max_value, allow_subnormal)
    if _is_ml_float(dtype):
        return _narrow_floats(dtype, min_value, max_value, allow_subnormal)
    if dtype.kind != "f":
        raise InvalidArgument(f"finite_floats: {dtype} is not a floating-point dtype")
    lo, hi = _float_bounds(dtype, min_value, max_value)
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False,
                     allow_subnormal=allow_subnormal, width=dtype.itemsize * 8)


def _finite_complex(dtype, min_value, max_value, allow_subnormal):
    # st.complex_numbers shrinks far faster inside arrays than complex built from two floats;
    # bounds apply to each part, by clipping.
    part = fa_dtypes.float64 if dtype == fa_dtypes.complex128 else fa_dtypes.float32
    lo, hi = _float_bounds(part, min_value, max_value)
    numbers = st.complex_numbers(max_magnitude=max(abs(lo), abs(hi)), allow_nan=False,
                                 allow_infinity=False, allow_subnormal=allow_subnormal,
                                 width=dtype.itemsize * 8)
    if min_value is None and max_value is None:
        return numbers
    return numbers.map(lambda z: complex(min(max(z.real, lo), hi), min(max(z.imag, lo), hi)))


def _default_elements(dtype: np.dtype, **kwargs) -> SearchStrategy:
    if fa_dtypes.is_inexact(dtype):
        return finite_floats(dtype, **kwargs)
    if _is_ml_int(dtype):
        info = ml_dtypes.iinfo(dtype)
        lo = max(int(info.min), kwargs.get("min_value", int(info.min)))
        hi = min(int(info.max), kwargs.get("max_value", int(info.max)))
        return st.integers(lo, hi)
    return hnp.from_dtype(dtype, **kwargs)


# --------------------------------------------------------------------------------------------
# arrays
# --------------------------------------------------------------------------------------------

def _numpy_arrays(dtype: np.dtype, shape: tuple, elements, fill, unique) -> SearchStrategy:
    if elements is None or isinstance(elements, dict):
        elements = _default_elements(dtype, **(elements or {}))
    elif _is_ml_float(dtype):
        # The user's values, rounded to the narrow type so float32 storage holds them exactly.
        elements = elements.map(lambda v: _round_to(dtype, v))
    if _is_ml_float(dtype) or _is_ml_int(dtype):
        storage = fa_dtypes.float32 if _is_ml_float(dtype) else fa_dtypes.int8
        if fill is not None and _is_ml_float(dtype):
            fill = fill.map(lambda v: _round_to(dtype, v))
        return hnp.arrays(storage, shape, elements=elements, fill=fill,
                          unique=unique).map(lambda a: a.astype(dtype))
    return hnp.arrays(dtype, shape, elements=elements, fill=fill, unique=unique)


def arrays(dtype: DTypeLike | SearchStrategy[np.dtype], shape: _ShapeArg, *,
           elements: SearchStrategy[Any] | Mapping[str, Any] | None = None,
           fill: SearchStrategy[Any] | None = None, unique: bool = False
           ) -> SearchStrategy[Array]:
    """funcarray Arrays of ``dtype`` and ``shape`` (each a value or a strategy; an int shape
    means 1-D).

    ``elements`` is a strategy of Python values, or a dict of bounds for the default one:
    ``min_value``/``max_value``/``allow_subnormal`` for floats (``finite_floats``), the keyword
    arguments of ``hypothesis.extra.numpy.from_dtype`` otherwise. By default floats are finite
    and normal (NaN, infinities and subnormals are opt-in through ``elements``).

    Example:
        >>> from hypothesis import find
        >>> x = find(arrays("bfloat16", (2, 3)), lambda x: bool((x > 1).any()))
        >>> x.dtype, x.shape, int((x != 0).sum())
        (dtype(bfloat16), (2, 3), 1)
    """
    @st.composite
    def draw_array(draw):
        dt = fa_dtypes.canonicalize_dtype(_resolve(dtype, draw))
        shp = _as_shape(_resolve(shape, draw))
        return fnp.asarray(draw(_numpy_arrays(dt, shp, elements, fill, unique)))

    return draw_array()


def array_shapes(*, min_dims: int = 0, max_dims: int | None = None, min_side: int = 1,
                 max_side: int | None = None) -> SearchStrategy[_Shape]:
    """Shapes (tuples of ints) with ``min_dims..max_dims`` dimensions (default at most
    ``min_dims + 2``) of sides ``min_side..max_side`` (default at most ``min_side + 5``); 0-d
    shapes are included by default. Shrinks towards ``()``.

    Example:
        >>> from hypothesis import find
        >>> find(array_shapes(), lambda s: len(s) >= 2)
        (1, 1)
    """
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side,
                            max_side=max_side)


def broadcastable_shapes(shape: Sequence[int] | SearchStrategy[_Shape], *, min_dims: int = 0,
                         max_dims: int | None = None, min_side: int = 1,
                         max_side: int | None = None) -> SearchStrategy[_Shape]:
    """Shapes that broadcast with ``shape`` (a value or a strategy): NumPy's rules, which
    ``funcarray.numpy`` follows.

    Example:
        >>> from hypothesis import find
        >>> find(broadcastable_shapes((3, 4)), lambda s: len(s) == 2)
        (1, 1)
    """
    def shapes_for(base):
        return hnp.broadcastable_shapes(_as_shape(base), min_dims=min_dims, max_dims=max_dims,
                                        min_side=min_side, max_side=max_side)
    if isinstance(shape, SearchStrategy):
        return shape.flatmap(shapes_for)
    return shapes_for(shape)


def mutually_broadcastable_shapes(num_shapes: int, *,
                                  base_shape: Sequence[int] | SearchStrategy[_Shape] = (),
                                  min_dims: int = 0, max_dims: int | None = None,
                                  min_side: int = 1, max_side: int | None = None
                                  ) -> SearchStrategy[BroadcastableShapes]:
    """``num_shapes`` shapes that broadcast together (and with ``base_shape``, a value or a
    strategy): a named tuple ``(input_shapes, result_shape)``.

    Example:
        >>> from hypothesis import find
        >>> shapes = find(mutually_broadcastable_shapes(2, base_shape=(2, 1)),
        ...               lambda s: s.result_shape == (2, 3))
        >>> len(shapes.input_shapes), shapes.result_shape
        (2, (2, 3))
    """
    def shapes_for(base):
        return hnp.mutually_broadcastable_shapes(
            num_shapes=num_shapes, base_shape=_as_shape(base), min_dims=min_dims, max_dims=max_dims,
            min_side=min_side, max_side=max_side)
    if isinstance(base_shape, SearchStrategy):
        return base_shape.flatmap(shapes_for)
    return shapes_for(base_shape)


# --------------------------------------------------------------------------------------------
# pytrees, keys, axes
# --------------------------------------------------------------------------------------------

def pytrees(leaves: SearchStrategy[Any] | None = None, *, max_leaves: int = 6
            ) -> SearchStrategy[Any]:
    """Nested tuples, lists and dicts (string keys) of ``leaves`` (a strategy; by default small
    float32 Arrays with values in [-10, 10]). Shrinks towards a single leaf.

    Example:
        >>> from hypothesis import find
        >>> find(pytrees(st.integers(0, 9)), lambda t: isinstance(t, dict))
        {}
    """
    if leaves is None:
        leaves = arrays(fa_dtypes.float32, array_shapes(max_dims=2, max_side=3),
                        elements={"min_value": -10.0, "max_value": 10.0})

    def containers(children):
        return st.one_of(
            st.lists(children, max_size=3).map(tuple),
            st.lists(children, max_size=3),
            st.dictionaries(st.sampled_from("abcdef"), children, max_size=3))
    return st.recursive(leaves, containers, max_leaves=max_leaves)


def keys(shape: _ShapeArg = ()) -> SearchStrategy[Array]:
    """``funcarray.random`` keys: uint32 Arrays of shape ``shape + (2,)`` (``shape`` a value or
    a strategy; ``()`` for one key). Every pair of words is a valid key, so keys shrink towards
    ``[0, 0]``.

    Example:
        >>> from hypothesis import find
        >>> find(keys(), lambda k: True)
        Array([0, 0], dtype=uint32)
        >>> find(keys(shape=3), lambda k: True).shape
        (3, 2)
    """
    if isinstance(shape, SearchStrategy):
        return shape.flatmap(keys)
    return arrays(fa_dtypes.uint32, _as_shape(shape) + (2,))


def axes(ndim: int, *, multiple: bool = False, min_size: int = 0, max_size: int | None = None,
         allow_negative: bool = True) -> SearchStrategy[int | tuple[int, ...]]:
    """A valid axis of an ``ndim``-dimensional array (negative ones included unless
    ``allow_negative=False``), or with ``multiple=True`` a tuple of ``min_size..max_size``
    distinct axes (as for reductions). Shrinks towards axis 0 / the empty tuple.

    Example:
        >>> from hypothesis import find
        >>> find(axes(3), lambda a: a < 0)
        -1
        >>> find(axes(3, multiple=True), lambda t: len(t) == 2)
        (0, 1)
    """
    if ndim < 0:
        raise InvalidArgument(f"axes: ndim must be non-negative, got {ndim}")
    if multiple:
        tuples = hnp.valid_tuple_axes(ndim, min_size=min_size, max_size=max_size)
        return tuples if allow_negative else tuples.map(lambda t: tuple(a % ndim for a in t))
    if ndim == 0:
        raise InvalidArgument("axes: a 0-d array has no axis; use multiple=True for the "
                              "empty tuple of axes")
    return st.integers(-ndim if allow_negative else 0, ndim - 1)
