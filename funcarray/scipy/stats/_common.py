"""Argument handling shared by the ``funcarray.scipy.stats`` distributions.

Every distribution function starts as JAX's do: its arguments are converted, promoted to one
inexact dtype (integers and bools become floats, complex is refused) and broadcast together,
so the formulas below can mix them freely and the result has the promoted dtype and the
broadcast shape.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, ParamSpec, TypeVar, overload

import numpy as np

from funcarray.api.arguments import asarray_arg, convert, to_inexact_dtype
from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.base.errors import op_type_error
from funcarray.numpy._promotion import promote_args

if TYPE_CHECKING:
    from funcarray.base.typing import ArrayLike


def promote_args_inexact(op: str, *args: ArrayLike) -> Array:
    """``args`` as Arrays of one real inexact dtype and one broadcast shape."""
    arrays = promote_args(op, *args)
    dtype = arrays[0].dtype
    if dtypes.is_inexact(dtype) and dtype.kind == "c":
        raise op_type_error(op, f"complex arguments are not supported, got {dtype}; "
                                "pass real arrays (fnp.real) if that is what you mean")
    if not dtypes.is_inexact(dtype):
        target = to_inexact_dtype(dtype)
        arrays = [convert(a, target, a.weak_type) for a in arrays]
    return arrays


def promote_dtypes_inexact(op: str, *args: ArrayLike) -> Array:
    """``args`` as Arrays of one real inexact dtype, each keeping its own shape (for the
    multivariate distributions, whose arguments have different ranks)."""
    arrays = [asarray_arg(op, a) for a in args]
    try:
        dtype, weak = dtypes.result_type(*arrays, return_weak_type=True)
    except TypeError as exc:
        raise op_type_error(op, str(exc)) from None
    if dtypes.is_inexact(dtype) and dtype.kind == "c":
        raise op_type_error(op, f"complex arguments are not supported, got {dtype}; "
                                "pass real arrays (fnp.real) if that is what you mean")
    dtype = to_inexact_dtype(dtype)
    return [convert(a, dtype, weak) for a in arrays]


def const_like(example: ArrayLike, value: ArrayLike, *args: ArrayLike) -> Array:
    """``value`` as jax.scipy.stats' formulas make their constants (``lax._const``): a Python
    number (weak) when ``example`` is weakly typed and 0-d in JAX, i.e. when every argument
    it is computed from (``args``, as the caller got them: jax.numpy does not broadcast 0-d
    arguments) is 0-d; else a strong 0-d array of its dtype. So, as in JAX, a result is
    strong when such a constant enters its arithmetic and the arguments are arrays, even
    weakly typed ones (an integer array ``k`` promoted with Python-scalar parameters).

    Example:
        >>> import funcarray.numpy as fnp
        >>> const_like(fnp.asarray(2.0), 1, 2.0), const_like(fnp.ones(2), 1, [0, 1])
        (1, Array(1., dtype=float32))
    """
    if example.weak_type and all(np.ndim(a) == 0 for a in args):
        return value
    return Array(np.asarray(value, example.dtype))


_P = ParamSpec("_P")
_R = TypeVar("_R")


@overload
def strong_like_jax(function: Callable[_P, _R], *,
                    example: str = "first") -> Callable[_P, _R]: ...


@overload
def strong_like_jax(function: None = None, *,
                    example: str = "first") -> Callable[[Callable[_P, _R]], Callable[_P, _R]]: ...


def strong_like_jax(function=None, *, example: str = "first"):
    """Decorate a distribution function whose JAX formula mixes a strong constant
    (``lax._const(example, ...)``, ``jnp.array``) into its result: as there, the result is
    strongly typed when the constants' ``example`` is an array (not 0-d), even a weakly typed
    one such as an integer array promoted with Python-scalar parameters; where it is 0-d,
    JAX's constants are Python numbers and the promoted weak type stands. ``example`` is
    "first" (the point or probability, most formulas' example), "any" (the formula's
    constants follow a parameter, or the broadcast arguments) or "always" (a strong constant
    whatever the shapes: norm's cdf family through ndtr, log_ndtr and ndtri). The dtype and
    values are unchanged.

    Example:
        >>> import funcarray.numpy as fnp
        >>> strong_like_jax(lambda x: x * 2.0)(fnp.arange(2)).weak_type
        False
    """
    if function is None:
        return functools.partial(strong_like_jax, example=example)
    first = next(iter(inspect.signature(function).parameters))

    def jax_is_strong(args, kwargs) -> bool:
        if example == "always":
            return True
        if example == "any":
            return any(np.ndim(a) != 0 for a in (*args, *kwargs.values()))
        return np.ndim(args[0] if args else kwargs[first]) != 0

    @functools.wraps(function)
    def strong_where_jax_is(*args, **kwargs):
        result = function(*args, **kwargs)
        if result.weak_type and jax_is_strong(args, kwargs):
            return convert(result, result.dtype, weak_type=False)
        return result
    return strong_where_jax_is
