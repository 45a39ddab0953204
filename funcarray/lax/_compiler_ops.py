"""More of ``jax.lax``: ``reduce_precision``, ``optimization_barrier``, ``mulhi``,
``approx_max_k``/``approx_min_k``, ``platform_dependent`` and ``axis_size``.

``reduce_precision`` and ``optimization_barrier`` bind the primitives of
``primitives/compiler_hints.py``; the rest compose existing operations: ``mulhi`` is a widened
product (64-bit operands: a product of 32-bit halves), ``approx_max_k``/``approx_min_k`` are
the exact ``top_k`` (what XLA computes on CPU and GPU; only TPUs approximate), and
``platform_dependent`` calls the branch of the platform funcarray compiles for.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray import lax
    >>> lax.mulhi(fnp.array([1 << 30], fnp.int32), fnp.array([8], fnp.int32))
    Array([2], dtype=int32)
"""

from __future__ import annotations

import numpy as np

from funcarray.base import pytrees as fa_tree
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.lax._ops_common import (
    _broadcast_operands,
    _check_kinds,
    _int,
    _kind,
    _operand,
    _operand_of_kinds,
    _same_dtype_operands,
    _short,
)
from funcarray.primitives.compiler_hints import optimization_barrier_p, reduce_precision_p

__all__ = ["reduce_precision", "optimization_barrier", "mulhi", "approx_max_k", "approx_min_k",
           "platform_dependent", "axis_size"]


def reduce_precision(operand, exponent_bits, mantissa_bits):
    """Round each float of ``operand`` to the nearest value representable with
    ``exponent_bits`` exponent bits and ``mantissa_bits`` mantissa bits (ties to even;
    overflow gives inf, values below the format's normal range 0), keeping its dtype.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.reduce_precision(fnp.array([0.1, 1000.0, 1e6]), 5, 10)  # float16's format
        Array([9.9975586e-02, 1.0000000e+03,           inf], dtype=float32)
    """
    op = "lax.reduce_precision"
    x = _operand_of_kinds(op, operand, "f")
    exponent_bits = _int(op, "exponent_bits", exponent_bits)
    mantissa_bits = _int(op, "mantissa_bits", mantissa_bits)
    if exponent_bits < 1:
        raise op_value_error(op, f"exponent_bits must be positive; got {exponent_bits}")
    if mantissa_bits < 0:
        raise op_value_error(op, f"mantissa_bits must be non-negative; got {mantissa_bits}")
    return reduce_precision_p.bind(x, exponent_bits=exponent_bits, mantissa_bits=mantissa_bits)


def optimization_barrier(operand, /):
    """The identity on a pytree of arrays, which the compiler may not reorder computations
    across nor merge with equal computations outside it (no effect outside ``jit``).

    Example:
        >>> import funcarray as fa
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> fa.jit(lambda x: lax.optimization_barrier(fnp.sin(x)) + fnp.sin(x))(0.0)
        Array(0., dtype=float32, weak_type=True)
    """
    leaves, treedef = fa_tree.flatten(operand)
    arrays = [_operand("lax.optimization_barrier", x) for x in leaves]
    return fa_tree.unflatten(treedef, optimization_barrier_p.bind(*arrays) if arrays else [])


def _widened_mulhi(x, y, wide):
    from funcarray import lax

    product = lax.mul(lax.convert_element_type(x, wide), lax.convert_element_type(y, wide))
    bits = 8 * x.dtype.itemsize
    shift = lax.full(product.shape, bits, wide)
    high = (lax.shift_right_arithmetic if np.dtype(wide).kind == "i"
            else lax.shift_right_logical)(product, shift)
    return lax.convert_element_type(high, x.dtype)


def _mulhi_u64(x, y):
    """High 64 bits of the 128-bit product of uint64 arrays, from 32-bit halves."""
    from funcarray import lax

    def const(v):
        return lax.full(x.shape, v, np.uint64)

    low_mask, thirty_two = const(0xFFFFFFFF), const(32)
    x_lo, x_hi = lax.bitwise_and(x, low_mask), lax.shift_right_logical(x, thirty_two)
    y_lo, y_hi = lax.bitwise_and(y, low_mask), lax.shift_right_logical(y, thirty_two)
    lo_lo, hi_lo = lax.mul(x_lo, y_lo), lax.mul(x_hi, y_lo)
    lo_hi, hi_hi = lax.mul(x_lo, y_hi), lax.mul(x_hi, y_hi)
    # (each partial product is below 2**64; cross sums three terms below 2**32, 2**32, 2**64
    # - 2**33 + 1, so it does not overflow either)
    cross = lax.add(lax.add(lax.shift_right_logical(lo_lo, thirty_two),
                            lax.bitwise_and(hi_lo, low_mask)), lo_hi)
    return lax.add(lax.add(hi_hi, lax.shift_right_logical(hi_lo, thirty_two)),
                   lax.shift_right_logical(cross, thirty_two))


def mulhi(x, y, /):
    """The high half of the double-width product of integers ``x`` and ``y`` (one dtype):
    for N-bit inputs, the upper N bits of the 2N-bit product.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.mulhi(fnp.array([-100], fnp.int8), fnp.array([100], fnp.int8))
        Array([-40], dtype=int8)
    """
    from funcarray import lax

    op = "lax.mulhi"
    x, y = _same_dtype_operands(op, (x, y))
    _check_kinds(op, x, "iu", 0)
    x, y = _broadcast_operands(op, (x, y))
    signed = x.dtype.kind == "i"
    size = x.dtype.itemsize
    if size < 8:
        wide = np.dtype(f"{'i' if signed else 'u'}{2 * size}")
        return _widened_mulhi(x, y, wide)
    if not signed:
        return _mulhi_u64(x, y)
    # Signed: the unsigned high word minus y where x < 0 and x where y < 0 (mod 2**64).
    ux, uy = (lax.bitcast_convert_type(v, np.uint64) for v in (x, y))
    high = _mulhi_u64(ux, uy)
    zero = lax.full(x.shape, 0, np.uint64)
    high = lax.sub(high, lax.select(lax.lt(x, lax.full(x.shape, 0, x.dtype)), uy, zero))
    high = lax.sub(high, lax.select(lax.lt(y, lax.full(y.shape, 0, y.dtype)), ux, zero))
    return lax.bitcast_convert_type(high, x.dtype)


def _approx_k(op: str, operand, k, reduction_dimension, recall_target,
              reduction_input_size_override, aggregate_to_topk, largest: bool):
    from funcarray import lax

    x = _operand(op, operand)
    if x.ndim == 0:
        raise op_type_error(op, f"operand must have at least one dimension, got {_short(x)}")
    if _kind(x.dtype) != "f":
        raise op_value_error(op, f"operand must be a floating type, got {_short(x)}")
    k = _int(op, "k", k)
    axis = _int(op, "reduction_dimension", reduction_dimension)
    if not -x.ndim <= axis < x.ndim:
        raise op_value_error(op, f"reduction_dimension {axis} is out of range for {_short(x)}")
    axis %= x.ndim
    if k <= 0:
        raise op_value_error(op, f"k must be positive, got {k}")
    if x.shape[axis] < k:
        raise op_value_error(op, f"k must be smaller than the size of reduction_dim "
                                 f"{x.shape[axis]}, got {k}")
    if not 0 < float(recall_target) <= 1:
        raise op_value_error(op, f"recall_target must be in (0, 1], got {recall_target}")
    _int(op, "reduction_input_size_override", reduction_input_size_override)
    if not aggregate_to_topk:
        raise NotImplementedError(
            f"{op}: aggregate_to_topk=False (TPU partial results, whose size depends on the "
            f"TPU's tiling) is not supported; funcarray returns the exact top k (the default)")
    if largest:
        return list(lax.top_k(x, k, axis=axis))
    values, indices = lax.top_k(lax.neg(x), k, axis=axis)
    return [lax.neg(values), indices]


def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True):
    """The ``k`` largest entries of ``operand`` along ``reduction_dimension`` and their
    indices. XLA approximates only on TPUs; here, as on CPU and GPU, the result is exact
    (``recall_target`` and ``reduction_input_size_override`` are accepted and unused).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.approx_max_k(fnp.array([1.0, 5.0, 3.0, 4.0]), 2)
        [Array([5., 4.], dtype=float32), Array([1, 3], dtype=int32)]
    """
    return _approx_k("lax.approx_max_k", operand, k, reduction_dimension, recall_target,
                     reduction_input_size_override, aggregate_to_topk, True)


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True):
    """The ``k`` smallest entries of ``operand`` along ``reduction_dimension`` and their
    indices (exact, as ``approx_max_k``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.approx_min_k(fnp.array([1.0, 5.0, 3.0, 4.0]), 2)
        [Array([1., 3.], dtype=float32), Array([0, 2], dtype=int32)]
    """
    return _approx_k("lax.approx_min_k", operand, k, reduction_dimension, recall_target,
                     reduction_input_size_override, aggregate_to_topk, False)


_PLATFORM_ALIASES = {"gpu": ("cuda", "rocm", "gpu"), "cuda": ("cuda",), "rocm": ("rocm",)}


def platform_dependent(*args, default=None, **per_platform):
    """Call the function given for the platform funcarray computes on (``cpu=``, ``cuda=``,
    ``rocm=``, ``tpu=``...) on ``args``, or ``default`` when none is given for it.

    Example:
        >>> from funcarray import lax
        >>> lax.platform_dependent(3, cpu=lambda x: x + 1, default=lambda x: x)
        4
    """
    from funcarray.lowering.devices import default_backend

    op = "lax.platform_dependent"
    for name, fun in (*per_platform.items(), ("default", default)):
        if fun is not None and not callable(fun):
            raise op_type_error(op, f"the {name}= branch must be a function, got "
                                    f"{type(fun).__name__}")
    platform = default_backend()
    names = _PLATFORM_ALIASES.get(platform, (platform,))
    if platform in ("cuda", "rocm"):
        names = (*names, "gpu")
    for name in names:
        if per_platform.get(name) is not None:
            return per_platform[name](*args)
    if default is None:
        raise op_value_error(op, f"no branch for the platform {platform!r} (branches: "
                                 f"{sorted(per_platform)}); pass default= or {platform}=")
    return default(*args)


def axis_size(axis_name):
    """The size of the enclosing ``vmap``'s named axis (the product of the sizes for a
    tuple of names), as a Python int.

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> fa.vmap(lambda x: x * lax.axis_size("i"), axis_name="i")(fnp.ones(3))
        Array([3., 3., 3.], dtype=float32)
    """
    from funcarray.transforms.vmap import named_axis_size

    names = tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)
    size = 1
    for name in names:
        size *= named_axis_size(name, "lax.axis_size")
    return size
