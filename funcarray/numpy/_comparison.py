"""Whole-array comparisons of ``funcarray.numpy``: ``isclose``, ``allclose``, ``array_equal``,
``array_equiv`` and ``isin``.

They are compositions of elementwise comparisons and ``all``/``any`` reductions, so they work
eagerly and under every transform; results are (strong) bool arrays, as in jax.numpy. Integer
and bool operands of ``isclose`` are compared as floats (float64 for 64-bit integers).

Example:
    >>> import funcarray.numpy as fnp
    >>> fnp.isclose(fnp.array([1.0, 2.0]), fnp.array([1.0 + 1e-7, 2.1]))
    Array([ True, False], dtype=bool)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import asarray_arg, broadcast_shapes, convert, to_inexact_dtype
from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.numpy._elementwise import (
    abs,
    add,
    equal,
    isnan,
    less_equal,
    logical_and,
    logical_or,
    multiply,
    not_equal,
    subtract,
)
from funcarray.numpy._predicates_and_bits import isfinite
from funcarray.numpy._promotion import promote_args
from funcarray.numpy._reductions import all, any
from funcarray.numpy._search import searchsorted
from funcarray.numpy._shape import reshape
from funcarray.numpy._sort_and_nonzero import sort
from funcarray.primitives.conversions import convert_kernel
from funcarray.transforms.host_shortcuts import host_shortcut, host_value

if TYPE_CHECKING:
    from funcarray.base.typing import ArrayLike

__all__ = ["isclose", "allclose", "array_equal", "array_equiv", "isin"]


def _false():
    return Array(dtypes.bool_.type(False))


def _tolerance(op, value, name, dtype):
    value = asarray_arg(op, value)
    if dtypes.is_complex(value.dtype) or value.dtype == dtypes.bool_:
        raise op_type_error(op, f"{name} must be a real number, got dtype {value.dtype}")
    return convert(value, dtype)


def isclose(a: ArrayLike, b: ArrayLike, rtol: ArrayLike = 1e-05, atol: ArrayLike = 1e-08,
            equal_nan: bool = False) -> Array:
    """Elementwise ``|a - b| <= atol + rtol * |b|`` (not symmetric in ``a`` and ``b``).

    Infinities are close only to themselves; NaN is close to nothing unless ``equal_nan``.
    Integers and bools are compared as floats, as in jax.numpy.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.isclose(fnp.array([1.0, fnp.nan, fnp.inf]), fnp.array([1.0, fnp.nan, fnp.inf]))
        Array([ True, False,  True], dtype=bool)
        >>> fnp.isclose(fnp.nan, fnp.nan, equal_nan=True)
        Array(True, dtype=bool)
    """
    op = "isclose"
    a, b = promote_args(op, a, b)
    if not dtypes.is_inexact(a.dtype):
        dt = to_inexact_dtype(a.dtype)
        a, b = convert(a, dt, a.weak_type), convert(b, dt, b.weak_type)
    real = dtypes.finfo(a.dtype).dtype  # the real dtype of complex operands
    rtol = _tolerance(op, rtol, "rtol", real)
    atol = _tolerance(op, atol, "atol", real)
    in_range = less_equal(abs(subtract(a, b)), add(atol, multiply(rtol, abs(b))))
    out = logical_or(equal(a, b), logical_and(isfinite(b), in_range))
    if equal_nan:
        out = logical_or(out, logical_and(isnan(a), isnan(b)))
    return out


def allclose(a: ArrayLike, b: ArrayLike, rtol: ArrayLike = 1e-05, atol: ArrayLike = 1e-08,
             equal_nan: bool = False) -> Array:
    """Whether ``isclose(a, b, ...)`` holds everywhere, as a bool scalar array.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.allclose(fnp.array([1.0, 2.0]), fnp.array([1.0, 2.0 + 1e-6]))
        Array(True, dtype=bool)
    """
    return all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1: ArrayLike, a2: ArrayLike, equal_nan: bool = False) -> Array:
    """Whether ``a1`` and ``a2`` have the same shape and equal elements (False, not an error,
    when the shapes differ).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.array_equal(fnp.array([1, 2]), fnp.array([1.0, 2.0]))
        Array(True, dtype=bool)
        >>> fnp.array_equal(fnp.array([1, 2]), fnp.array([[1, 2]]))
        Array(False, dtype=bool)
    """
    op = "array_equal"
    a1, a2 = asarray_arg(op, a1), asarray_arg(op, a2)
    if tuple(a1.shape) != tuple(a2.shape):
        return _false()
    eq = equal(a1, a2)
    if equal_nan:
        eq = logical_or(eq, logical_and(isnan(a1), isnan(a2)))
    return all(eq)


def array_equiv(a1: ArrayLike, a2: ArrayLike) -> Array:
    """Whether ``a1`` and ``a2`` are equal after broadcasting (False when they do not
    broadcast).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.array_equiv(fnp.array([1, 2]), fnp.array([[1, 2], [1, 2]]))
        Array(True, dtype=bool)
    """
    op = "array_equiv"
    a1, a2 = asarray_arg(op, a1), asarray_arg(op, a2)
    try:
        broadcast_shapes(op, a1.shape, a2.shape)
    except ValueError:
        return _false()
    return all(equal(a1, a2))


_ISIN_METHODS = ("auto", "compare_all", "binary_search", "sort")


def _isin_on_host(element, test_elements, assume_unique=False, invert=False, *,
                  method="auto"):
    # Membership by equality in the promoted dtype (NaN nowhere, -0.0 equal to 0.0): every
    # method of the general path computes it, and so does NumPy's isin; a bool has no other
    # bits to tell them apart.
    x, t = host_value(element), host_value(test_elements)
    if x is None or t is None or method not in _ISIN_METHODS or type(invert) is not bool:
        return NotImplemented
    dt = np.dtype(dtypes.result_type(element, test_elements))
    if dt.isbuiltin != 1 or dt.kind not in "biufc":
        return NotImplemented
    found = np.isin(convert_kernel(x, dt), convert_kernel(t, dt), invert=invert)
    return Array(np.asarray(found, np.bool_).reshape(x.shape), False)


@host_shortcut(_isin_on_host)
def isin(element: ArrayLike, test_elements: ArrayLike, assume_unique: bool = False,
         invert: bool = False, *, method: str = "auto") -> Array:
    """Elementwise, whether each value of ``element`` occurs in ``test_elements`` (a bool
    array of ``element``'s shape; negated when ``invert``). NaN occurs nowhere.

    ``method``: "auto"/"compare_all" compare every pair (memory ``element.size *
    test_elements.size``); "binary_search" and "sort" sort ``test_elements`` and search it.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.isin(fnp.array([[1, 2], [3, 4]]), fnp.array([4, 1]))
        Array([[ True, False],
               [False,  True]], dtype=bool)
    """
    op = "isin"
    if method not in _ISIN_METHODS:
        raise op_value_error(op, f"method must be one of {', '.join(map(repr, _ISIN_METHODS))}, "
                                 f"got {method!r}")
    element, test_elements = asarray_arg(op, element), asarray_arg(op, test_elements)
    shape = tuple(element.shape)
    try:
        dt = dtypes.result_type(element, test_elements)
    except TypeError as exc:
        raise op_type_error(op, str(exc)) from None
    x, t = reshape(convert(element, dt), (-1,)), reshape(convert(test_elements, dt), (-1,))
    if x.size == 0 or t.size == 0:
        return Array(np.full(shape, bool(invert)))
    if method in ("auto", "compare_all"):
        if invert:
            found = all(not_equal(x[:, None], t[None, :]), axis=-1)
        else:
            found = any(equal(x[:, None], t[None, :]), axis=-1)
    else:
        t = sort(t)
        hit = t[searchsorted(t, x)]  # searchsorted may give len(t): indexing clamps it
        found = not_equal(x, hit) if invert else equal(x, hit)
    return reshape(found, shape)
