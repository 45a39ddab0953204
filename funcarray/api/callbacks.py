"""``pure_callback`` and ``io_callback``: call a Python function (NumPy, SciPy, I/O...) from
inside ``jit``, ``vmap`` and eager code, as ``jax.pure_callback`` and
``jax.experimental.io_callback``. The primitives and their rules are in
``primitives/callbacks.py``.

Example:
    >>> import numpy as np
    >>> import funcarray as fa, funcarray.numpy as fnp
    >>> def host_sinc(x):  # plain NumPy
    ...     return np.sinc(x).astype(x.dtype)
    >>> f = fa.jit(lambda x: fa.pure_callback(host_sinc, fa.ShapeDtypeStruct(x.shape, x.dtype), x))
    >>> f(fnp.asarray([0.0, 0.5])).round(4)
    Array([1.        , 0.63659996], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from funcarray.api.arguments import asarray_arg
from funcarray.base import pytrees as fa_tree
from funcarray.base.errors import api_boundary
from funcarray.primitives.callbacks import (
    VMAP_METHODS,
    HostCallback,
    io_callback_p,
    pure_callback_p,
)
from funcarray.transforms.core import ShapedArray

__all__ = ["pure_callback", "io_callback", "flat_host_function"]


def flat_host_function(callback, in_tree):
    """``callback`` (taking ``(*args, **kwargs)`` pytrees) as a function of the flat leaves
    that XLA passes as NumPy arrays; it returns ``callback``'s result flattened."""
    def flat(*arrays):
        args, kwargs = fa_tree.unflatten(in_tree, list(arrays))
        return fa_tree.leaves(callback(*args, **kwargs))
    return flat


def _result_avals(result_shape_dtypes, where: str = "pure_callback"):
    leaves, tree = fa_tree.flatten(result_shape_dtypes)
    avals = []
    for leaf in leaves:
        if not (hasattr(leaf, "shape") and hasattr(leaf, "dtype")):
            raise TypeError(f"{where}: result_shape_dtypes must be a pytree of objects "
                            f"with shape and dtype (funcarray.ShapeDtypeStruct, arrays), got "
                            f"{leaf!r}")
        avals.append(ShapedArray(tuple(leaf.shape), np.dtype(leaf.dtype)))
    return avals, tree


@api_boundary
def pure_callback(callback, result_shape_dtypes, *args, sharding=None, vmap_method=None,
                  **kwargs):
    """``callback(*args, **kwargs)`` computed by Python on NumPy arrays, usable under ``jit``
    (the compiled code calls back into this process) and ``vmap``; it must be pure (it may
    be called any number of times, or not at all if its result is unused) and return arrays
    of exactly ``result_shape_dtypes`` (a pytree of ``ShapeDtypeStruct`` s).

    ``vmap_method`` says what ``vmap`` does: ``"sequential"`` (one call per batch member),
    ``"expand_dims"`` (one call; unbatched arguments get a leading axis of size 1, and the
    callback returns results with a leading batch axis) or ``"broadcast_all"`` (one call,
    every argument batched). There is no derivative: wrap it in ``custom_jvp``/``custom_vjp``
    to give one. ``sharding`` must be None (one device).

    Example:
        >>> import numpy as np
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> out = fa.ShapeDtypeStruct((), np.float32)
        >>> f = lambda x: fa.pure_callback(lambda v: np.float32(v.sum()), out, x,
        ...                                vmap_method="sequential")
        >>> fa.vmap(f)(fnp.ones((2, 3)))
        Array([3., 3.], dtype=float32)
    """
    if sharding is not None:
        raise NotImplementedError("pure_callback: sharding is not supported (funcarray runs "
                                  "on one device); pass sharding=None")
    if vmap_method is not None and vmap_method not in VMAP_METHODS:
        raise ValueError(f"pure_callback: vmap_method must be None or one of {VMAP_METHODS}, "
                         f"got {vmap_method!r}")
    leaves, in_tree = fa_tree.flatten((args, kwargs))
    leaves = [asarray_arg("pure_callback", x) for x in leaves]
    avals, out_tree = _result_avals(result_shape_dtypes)
    name = f"pure_callback({getattr(callback, '__name__', type(callback).__name__)})"
    host = HostCallback(flat_host_function(callback, in_tree), tuple(avals), name)
    outs = pure_callback_p.bind(*leaves, callback=host, vmap_method=vmap_method)
    return fa_tree.unflatten(out_tree, outs)


@api_boundary
def io_callback(callback, result_shape_dtypes, *args, sharding=None, ordered=False,
                **kwargs):
    """``callback(*args, **kwargs)`` computed by Python for its effects (reading or writing
    files, counters, logs) and its results, as ``jax.experimental.io_callback``: unlike
    ``pure_callback`` it is never removed when its results are unused, and with
    ``ordered=True`` the compiled code runs such calls in program order. It returns arrays
    of exactly ``result_shape_dtypes`` (a pytree of ``ShapeDtypeStruct`` s, or None for no
    result).

    Under ``vmap`` an unordered one is called once per batch member, in order; an ordered one
    raises, as do ``grad`` and ``jvp`` (it has no derivative). ``sharding`` must be None (one
    device). Inside a ``lax`` control-flow body, ordered calls are side effects that XLA runs
    in its own order.

    Example:
        >>> import numpy as np
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> from funcarray.experimental import io_callback
        >>> log = []
        >>> def record(x):
        ...     log.append(float(x))
        ...     return np.float32(len(log))
        >>> @fa.jit
        ... def f(x):
        ...     out = fa.ShapeDtypeStruct((), np.float32)
        ...     io_callback(record, out, x, ordered=True)  # result unused: still called
        ...     return io_callback(record, out, x * 2, ordered=True)
        >>> f(fnp.float32(1.5)), log
        (Array(2., dtype=float32), [1.5, 3.0])
    """
    if sharding is not None:
        raise NotImplementedError("io_callback: sharding is not supported (funcarray runs "
                                  "on one device); pass sharding=None")
    leaves, in_tree = fa_tree.flatten((args, kwargs))
    leaves = [asarray_arg("io_callback", x) for x in leaves]
    avals, out_tree = _result_avals(result_shape_dtypes, "io_callback")
    name = f"io_callback({getattr(callback, '__name__', type(callback).__name__)})"
    host = HostCallback(flat_host_function(callback, in_tree), tuple(avals), name)
    outs = io_callback_p.bind(*leaves, callback=host, ordered=bool(ordered))
    return fa_tree.unflatten(out_tree, outs)
