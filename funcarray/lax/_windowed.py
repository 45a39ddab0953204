"""``lax.reduce_window`` (pooling), as in ``jax.lax``, for the monoids pooling uses: a sum
from 0, a max from -inf (or the dtype's minimum) and a min from +inf. The primitives and
their rules are ``primitives/windowed.py``.

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

import numpy as np

from funcarray.lax._conv import padding_pairs, padtype_to_pads, positive_ints
from funcarray.lax._ops_common import _operand_of_kinds
from funcarray.primitives.convolution import dilate_shape
from funcarray.primitives.windowed import (
    identity_of,
    reduce_window_max_p,
    reduce_window_min_p,
    reduce_window_sum_p,
)

__all__ = ["reduce_window"]

_OP = "lax.reduce_window"


def _monoid(computation) -> str | None:
    """Which window reduction ``computation`` is (by identity, or by name for the
    binary functions of funcarray.lax / funcarray.numpy / operator / builtins)."""
    import builtins

    import funcarray.numpy as fnp
    from funcarray import lax

    table = {"sum": (lax.add, fnp.add, operator.add),
             "max": (lax.max, fnp.maximum, builtins.max),
             "min": (lax.min, fnp.minimum, builtins.min)}
    for kind, functions in table.items():
        if any(computation is f for f in functions):
            return kind
    return None


def reduce_window(operand, init_value, computation, window_dimensions, window_strides=None,
                  padding="VALID", base_dilation=None, window_dilation=None):
    """Reduce each window of ``window_dimensions`` (one entry per axis) moved by
    ``window_strides``; ``padding`` is ``"VALID"``, ``"SAME"`` or ``(lo, hi)`` pairs.
    ``computation`` is ``lax.add`` with ``init_value`` 0 (sum pooling), ``lax.max`` with
    -inf (max pooling) or ``lax.min`` with +inf; other reductions are not supported yet.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.reduce_window(fnp.arange(5.0), 0.0, lax.add, (2,), (1,), "VALID")
        Array([1., 3., 5., 7.], dtype=float32)
    """
    x = _operand_of_kinds(_OP, operand, "biuf")
    kind = _monoid(computation)
    if kind is None:
        raise NotImplementedError(
            f"{_OP}: computation {computation!r} is not supported; funcarray reduces windows "
            f"with lax.add (init 0), lax.max (init -inf) or lax.min (init +inf)")
    identity = identity_of(kind, x.dtype)
    init = np.asarray(getattr(init_value, "_value", init_value))
    if init.shape != () or not (init == identity or (kind == "max" and init == -np.inf)
                                or (kind == "min" and init == np.inf)):
        raise NotImplementedError(
            f"{_OP}: init_value {init_value!r} is not the identity of the {kind} ({identity}); "
            f"only identity inits are supported (add a constant to the result instead)")
    n = x.ndim
    window_dimensions = positive_ints("window_dimensions", window_dimensions, n, op=_OP, per="axis")
    window_strides = positive_ints("window_strides", window_strides, n, op=_OP, per="axis")
    base_dilation = positive_ints("base_dilation", base_dilation, n, op=_OP, per="axis")
    window_dilation = positive_ints("window_dilation", window_dilation, n, op=_OP, per="axis")
    if isinstance(padding, str):  # (from the undilated shape, as jax does)
        window = dilate_shape(window_dimensions, window_dilation)
        padding = padtype_to_pads(x.shape, window, window_strides, padding)
    padding = padding_pairs(padding, n, op=_OP, per="axis")
    prim = {"sum": reduce_window_sum_p, "max": reduce_window_max_p,
            "min": reduce_window_min_p}[kind]
    return prim.bind(x, window_dimensions=window_dimensions, window_strides=window_strides,
                     padding=padding, base_dilation=base_dilation,
                     window_dilation=window_dilation)
