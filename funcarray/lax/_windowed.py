"""``lax.reduce_window``, as in ``jax.lax``: the monoids pooling uses (a sum from 0, a max
from -inf or the dtype's minimum, a min from +inf) bind the primitives of
``primitives/windowed.py``; any other computation, init or several operands bind the general
``reduce_window`` of ``primitives/reduce_general.py``. And ``reduce_window_shape_tuple``.

Example:
    >>> import numpy as np
    >>> import funcarray.numpy as fnp
    >>> from funcarray import lax
    >>> x = fnp.arange(16.0).reshape(1, 4, 4, 1)  # NHWC
    >>> lax.reduce_window(x, -np.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")[0, :, :, 0]
    Array([[ 5.,  7.],
           [13., 15.]], dtype=float32)
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING

import numpy as np

from funcarray.base import pytrees as fa_tree
from funcarray.base.array import Array
from funcarray.base.errors import op_value_error
from funcarray.lax._conv import padding_pairs, padtype_to_pads, positive_ints
from funcarray.lax._ops_common import _operand_of_kinds, _plain_ints
from funcarray.primitives.convolution import dilate_shape
from funcarray.primitives.reduce_general import reduce_window_p
from funcarray.primitives.windowed import (
    identity_of,
    reduce_window_max_p,
    reduce_window_min_p,
    reduce_window_sum_p,
    window_output_shape,
)
from funcarray.transforms.host_shortcuts import host_shortcut, host_value

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from funcarray.base.typing import Shape

__all__ = ["reduce_window", "reduce_window_shape_tuple"]

_OP = "lax.reduce_window"


def _monoid(computation) -> str | None:
    """Which window reduction ``computation`` is (by identity, or by name for the
    binary functions of funcarray.lax / funcarray.numpy / operator / builtins)."""
    import builtins

    from funcarray import lax
    from funcarray.lax._ops_binary import EQUIVALENT_FUNCTIONS

    table = {"sum": (lax.add, *EQUIVALENT_FUNCTIONS.get("add", ()), operator.add),
             "max": (lax.max, *EQUIVALENT_FUNCTIONS.get("max", ()), builtins.max),
             "min": (lax.min, *EQUIVALENT_FUNCTIONS.get("min", ()), builtins.min)}
    for kind, functions in table.items():
        if any(computation is f for f in functions):
            return kind
    return None


def _window_args(x, window_dimensions, window_strides, padding, base_dilation,
                 window_dilation) -> dict:
    n = x.ndim
    window_dimensions = positive_ints("window_dimensions", window_dimensions, n, op=_OP,
                                      per="axis")
    window_strides = positive_ints("window_strides", window_strides, n, op=_OP, per="axis")
    base_dilation = positive_ints("base_dilation", base_dilation, n, op=_OP, per="axis")
    window_dilation = positive_ints("window_dilation", window_dilation, n, op=_OP, per="axis")
    if isinstance(padding, str):  # (from the undilated shape, as jax does)
        window = dilate_shape(window_dimensions, window_dilation)
        padding = padtype_to_pads(x.shape, window, window_strides, padding)
    padding = padding_pairs(padding, n, op=_OP, per="axis")
    return dict(window_dimensions=window_dimensions, window_strides=window_strides,
                padding=padding, base_dilation=base_dilation, window_dilation=window_dilation)


def _identity_init(kind: str, x, init) -> bool:
    """Whether ``init`` is a concrete scalar equal to the identity of ``kind``."""
    from funcarray.lax._reduce_general import concrete_scalar

    value = concrete_scalar(init)
    if value is None:
        return False
    identity = identity_of(kind, x.dtype)
    return bool(value == identity or (kind == "max" and value == -np.inf)
                or (kind == "min" and value == np.inf))


# The window reductions of the monoids, as the primitives' kernels compute them.
_REDUCTIONS = {"sum": lambda v, axes: v.sum(axis=axes, dtype=v.dtype),
               "max": lambda v, axes: v.max(axis=axes), "min": lambda v, axes: v.min(axis=axes)}


def _ones_or_none(values, n: int) -> bool:
    return values is None or _plain_ints(values) == (1,) * n


def _reduce_window_on_host(operand, init_value, computation, window_dimensions,
                           window_strides=None, padding="VALID", base_dilation=None,
                           window_dilation=None):
    """A monoid (sum from 0, max, min from their identities) over one concrete array, without
    padding or dilation: the primitive kernel's own reduction, over the same window view of
    the same (C-contiguous) values, past the general path's tree and argument handling."""
    v = host_value(operand)
    if v is None or v.dtype.kind not in "biuf" or not v.ndim or not v.size:
        return NotImplemented
    n = v.ndim
    window, strides = _plain_ints(window_dimensions), (
        (1,) * n if window_strides is None else _plain_ints(window_strides))
    if (window is None or strides is None or len(window) != n or len(strides) != n
            or min(window) < 1 or min(strides) < 1 or not _ones_or_none(base_dilation, n)
            or not _ones_or_none(window_dilation, n)
            or not (padding == "VALID" or (type(padding) in (list, tuple) and len(padding) == n
                                           and all(_plain_ints(p) == (0, 0) for p in padding)))
            or not (type(init_value) in (int, float, bool) or isinstance(init_value, np.generic)
                    or host_value(init_value) is not None)):
        return NotImplemented
    kind = _monoid(computation)
    if (kind is None or not _identity_init(kind, operand, init_value)
            or (kind == "sum" and v.dtype == np.bool_)):  # (refused by the general path)
        return NotImplemented
    out = tuple((d - w) // s + 1 if d >= w else 0 for d, w, s in zip(v.shape, window, strides))
    if 0 in out:
        return NotImplemented
    views = np.lib.stride_tricks.sliding_window_view(np.ascontiguousarray(v), window)
    views = views[(*(slice(None, o * s, s) for o, s in zip(out, strides)),
                   *(slice(None),) * n)]
    result = _REDUCTIONS[kind](views, tuple(range(n, 2 * n)))
    return Array(np.asarray(result).astype(v.dtype, copy=False))


@host_shortcut(_reduce_window_on_host)
def reduce_window(operand: Any, init_value: Any, computation: Callable[[Any, Any], Any],
                  window_dimensions: Sequence[int], window_strides: Sequence[int] | None = None,
                  padding: str | Sequence[tuple[int, int]] = "VALID",
                  base_dilation: Sequence[int] | None = None,
                  window_dilation: Sequence[int] | None = None) -> Any:
    """Reduce each window of ``window_dimensions`` (one entry per axis) moved by
    ``window_strides``; ``padding`` is ``"VALID"``, ``"SAME"``, ``"SAME_LOWER"`` or
    ``(lo, hi)`` pairs. Padding and the holes of ``base_dilation`` hold ``init_value``.

    ``operand`` may be a pytree of arrays of one shape, with ``init_value`` a pytree of
    scalars like it and ``computation(accumulators, values) -> accumulators`` on such trees
    of scalars. ``lax.add`` from 0, ``lax.max`` from -inf (or the dtype's minimum) and
    ``lax.min`` from +inf are pooling and use dedicated primitives; any other computation or
    init is reduced with a general body (``stablehlo.reduce_window`` with that region).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.reduce_window(fnp.arange(5.0), 0.0, lax.add, (2,), (1,), "VALID")
        Array([1., 3., 5., 7.], dtype=float32)
        >>> lax.reduce_window(fnp.arange(1.0, 6.0), 1.0, lax.mul, (2,))
        Array([ 2.,  6., 12., 20.], dtype=float32)
    """
    from funcarray.lax._reduce_general import flat_operands_and_inits, stage_computation

    xs, raw_inits, treedef = flat_operands_and_inits(_OP, operand, init_value, unify=False)
    params = _window_args(xs[0], window_dimensions, window_strides, padding, base_dilation,
                          window_dilation)
    kind = _monoid(computation) if len(xs) == 1 else None
    if kind is not None and xs[0].dtype.kind != "c" and _identity_init(kind, xs[0],
                                                                       raw_inits[0]):
        # (jax.lax's window sum takes numbers only: a bool sum is refused, not counted)
        x = _operand_of_kinds(_OP, xs[0], "iuf" if kind == "sum" else "biuf")
        prim = {"sum": reduce_window_sum_p, "max": reduce_window_max_p,
                "min": reduce_window_min_p}[kind]
        return fa_tree.unflatten(treedef, [prim.bind(x, **params)])
    xs, inits, _ = flat_operands_and_inits(_OP, operand, init_value)
    body = stage_computation(_OP, computation, treedef, inits)
    return fa_tree.unflatten(treedef, reduce_window_p.bind(*xs, *inits, body=body, **params))


def reduce_window_shape_tuple(operand_shape: Shape, window_dimensions: Sequence[int],
                              window_strides: Sequence[int],
                              padding: str | Sequence[tuple[int, int]],
                              base_dilation: Sequence[int] | None = None,
                              window_dilation: Sequence[int] | None = None) -> tuple[int, ...]:
    """The output shape of ``reduce_window`` on an operand of ``operand_shape`` with
    explicit ``(lo, hi)`` ``padding``.

    Example:
        >>> from funcarray import lax
        >>> lax.reduce_window_shape_tuple((1, 8, 8, 3), (1, 3, 3, 1), (1, 2, 2, 1),
        ...                               ((0, 0), (1, 1), (1, 1), (0, 0)))
        (1, 4, 4, 3)
    """
    shape = tuple(operator.index(d) for d in operand_shape)
    n = len(shape)
    ones = (1,) * n
    p = dict(window_dimensions=tuple(window_dimensions), window_strides=tuple(window_strides),
             padding=tuple(tuple(q) for q in padding),
             base_dilation=ones if base_dilation is None else tuple(base_dilation),
             window_dilation=ones if window_dilation is None else tuple(window_dilation))
    if any(len(v) != n for v in p.values()):
        raise op_value_error("lax.reduce_window_shape_tuple",
                             f"every window parameter needs one entry per axis of "
                             f"{shape}, got {p}")
    return window_output_shape(shape, p)
