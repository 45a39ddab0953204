"""``jax.lax``'s products: ``dot_general``, ``dot``, ``batch_matmul`` and ``scaled_dot``
(block-scaled, composed from ``dot_general``).

Operands of different dtypes are computed in the higher one by XLA's order of types
(jax.lax's rule, not NumPy promotion); ``preferred_element_type`` sets the result dtype.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray import lax
    >>> lax.dot(fnp.array([1, 2], fnp.int8), fnp.array([3, 4], fnp.int8),
    ...         preferred_element_type=fnp.int32)
    Array(11, dtype=int32)
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import _int_tuple, convert
from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.lax._ops_common import (
    _checked_bind,
    _dtype_arg,
    _kind,
    _operand,
    _short,
)
from funcarray.primitives.conversions import convert_kernel
from funcarray.primitives.dot_general import PRECISION_NAMES, can_accumulate_in, dot_general_p
from funcarray.transforms.host_shortcuts import host_shortcut, host_value

if TYPE_CHECKING:
    from funcarray.base.typing import ArrayLike, DTypeLike
    from funcarray.lax._dot_algorithms import DotDimensionNumbers, PrecisionLike

__all__ = ["dot", "dot_general", "batch_matmul", "Precision", "scaled_dot"]


# JAX's precision aliases (lax.Precision accepts these names too).
_PRECISION_ALIASES = {
    "default": "DEFAULT", "fastest": "DEFAULT", "bfloat16": "DEFAULT",
    "high": "HIGH", "bfloat16_3x": "HIGH", "tensorfloat32": "HIGH",
    "highest": "HIGHEST", "float32": "HIGHEST",
}


def _precision_name(op: str, p) -> str:
    name = getattr(p, "name", p)  # enum members such as jax.lax.Precision.HIGHEST
    canonical = _PRECISION_ALIASES.get(str(name).lower()) if isinstance(name, str) else None
    if canonical is None:
        raise op_value_error(
            op, f"precision must be None, one of {', '.join(PRECISION_NAMES)} (any case) or a "
                f"pair of them, got {p!r}")
    return canonical


def _canonicalize_precision(op: str, precision):
    """``None`` or a pair of precision names: the hashable form the primitive takes."""
    if precision is None:
        return None
    if isinstance(precision, (tuple, list)):
        if len(precision) != 2:
            raise op_value_error(op, f"precision needs one entry per operand, got {precision!r}")
        return tuple(_precision_name(op, p) for p in precision)
    name = _precision_name(op, precision)
    return (name, name)


class Precision(enum.Enum):
    """``dot``'s precision hint for accelerators (jax.lax's enum; the CPU always computes at
    full precision)."""

    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2


def _dot_rank(dt) -> tuple:
    """XLA's order of operand types (jax's ``dot_general`` dtype rule): the higher type of
    two different operand dtypes is the result dtype."""
    dt = np.dtype(dt)
    complex_ = dtypes.is_complex(dt)
    c = np.dtype(np.float32 if dt == dtypes.complex64 else np.float64) if complex_ else dt
    if dtypes.is_float(c):
        info = dtypes.finfo(c)
        return (complex_, info.maxexp, info.nmant, info.bits, True)
    bits = 1 if c == np.bool_ else dtypes.iinfo(c).bits
    return (complex_, -1, -1, bits, _kind(c) != "u")


def _dot_general(op: str, lhs, rhs, dimension_numbers, precision, preferred_element_type):
    if precision is not None:  # a dot algorithm (lax/_dot_algorithms.py) converts operands
        from funcarray.lax._dot_algorithms import algorithm_of, dot_with_algorithm
        algorithm = algorithm_of(precision)
        if algorithm is not None:
            return dot_with_algorithm(op, lhs, rhs, dimension_numbers, algorithm,
                                      preferred_element_type)
    lhs, rhs = _operand(op, lhs, "lhs"), _operand(op, rhs, "rhs")
    try:
        (lc, rc), (lb, rb) = dimension_numbers
        dn = ((_int_tuple(op, lc, "lhs_contracting", sequence_only=True),
               _int_tuple(op, rc, "rhs_contracting", sequence_only=True)),
              (_int_tuple(op, lb, "lhs_batch", sequence_only=True),
               _int_tuple(op, rb, "rhs_batch", sequence_only=True)))
    except (TypeError, ValueError):
        raise op_type_error(op, f"dimension_numbers must be ((lhs_contracting, "
                                f"rhs_contracting), (lhs_batch, rhs_batch)), got "
                                f"{dimension_numbers!r}") from None
    for side, x, dims in (("lhs", lhs, dn[0][0] + dn[1][0]), ("rhs", rhs, dn[0][1] + dn[1][1])):
        if any(not 0 <= d < x.ndim for d in dims):
            raise op_value_error(op, f"{side} dimension numbers {dims} must be non-negative and "
                                     f"less than the rank of {side} {_short(x)}")
    precision = _canonicalize_precision(op, precision)
    if lhs.dtype != rhs.dtype:
        left, right = _dot_rank(lhs.dtype), _dot_rank(rhs.dtype)
        if left == right:
            raise op_type_error(op, f"argument type error: {lhs.dtype}, {rhs.dtype}")
        result = lhs.dtype if left > right else rhs.dtype
        weak = lhs.weak_type and rhs.weak_type
        lhs, rhs = convert(lhs, result, weak), convert(rhs, result, weak)
    result = lhs.dtype
    convert_to = None
    if preferred_element_type is not None:
        preferred = _dtype_arg(op, preferred_element_type, "preferred_element_type")
        if (_kind(result) != "f" and preferred != result
                and _dot_rank(preferred)[3] < _dot_rank(result)[3]):
            raise op_type_error(op, f"preferred_element_type must not be narrower than the "
                                    f"original type, got {preferred} for result type {result}")
        if preferred == result:
            preferred = None
        elif not can_accumulate_in(result, preferred):
            # A float dot asked for an integer (or a complex one for a real) result: compute in
            # the operands' dtype and convert, as XLA does.
            convert_to, preferred = preferred, None
        preferred_element_type = preferred
    out = _checked_bind(op, dot_general_p, lhs, rhs, dimension_numbers=dn, precision=precision,
                        preferred_element_type=preferred_element_type)
    return out if convert_to is None else convert(out, convert_to, False)


def dot_general(lhs: ArrayLike, rhs: ArrayLike, dimension_numbers: DotDimensionNumbers,
                precision: PrecisionLike = None,
                preferred_element_type: DTypeLike | None = None) -> Array:
    """General tensor contraction: ``dimension_numbers = ((lhs_contracting,
    rhs_contracting), (lhs_batch, rhs_batch))``. The result dimensions are the batch
    dimensions, then lhs's free ones, then rhs's. Operands of different dtypes are computed
    in the higher one (jax.lax's rule); ``preferred_element_type`` sets the result dtype.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> x = fnp.ones((2, 3, 4))
        >>> lax.dot_general(x, x, (((2,), (2,)), ((0,), (0,)))).shape
        (2, 3, 3)
    """
    return _dot_general("lax.dot_general", lhs, rhs, dimension_numbers, precision,
                        preferred_element_type)


# Host shortcuts (transforms/host_shortcuts.py): concrete operands of one dtype and the
# default precision and result type go straight to dot_general's impl (which validates the
# signature through its cache), past the general path's argument parsing.
def _plain_operands(lhs, rhs):
    """The NumPy values of two concrete operands of one dtype, else None."""
    lv, rv = host_value(lhs), host_value(rhs)
    if lv is None or rv is None or lv.dtype != rv.dtype:
        return None
    return lv, rv


def _dot_on_host(lhs, rhs, precision=None, preferred_element_type=None, *,
                 dimension_numbers=None):
    values = _plain_operands(lhs, rhs)
    if (values is None or precision is not None or preferred_element_type is not None
            or dimension_numbers is not None):
        return NotImplemented
    lv, rv = values
    if not (1 <= lv.ndim <= 2 and 1 <= rv.ndim <= 2 and lv.shape[-1] == rv.shape[0]):
        return NotImplemented
    return dot_general_p.impl(lhs, rhs, dimension_numbers=(((lv.ndim - 1,), (0,)), ((), ())))


@host_shortcut(_dot_on_host)
def dot(lhs: ArrayLike, rhs: ArrayLike, precision: PrecisionLike = None,
        preferred_element_type: DTypeLike | None = None, *,
        dimension_numbers: DotDimensionNumbers | None = None) -> Array:
    """Vector-vector, matrix-vector or matrix-matrix product (lhs's last dimension with
    rhs's first); other ranks need ``dimension_numbers`` (then it is ``dot_general``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.dot(fnp.array([[1.0, 2.0], [3.0, 4.0]]), fnp.array([1.0, 1.0]))
        Array([3., 7.], dtype=float32)
    """
    op = "lax.dot"
    if dimension_numbers is None:
        lhs, rhs = _operand(op, lhs, "lhs"), _operand(op, rhs, "rhs")
        if not (1 <= lhs.ndim <= 2 and 1 <= rhs.ndim <= 2 and lhs.shape[-1] == rhs.shape[0]):
            raise op_value_error(
                op, f"dimension_numbers must be given unless this is an unbatched "
                    f"matrix-matrix, matrix-vector or vector-vector product (with lhs's last "
                    f"dimension equal to rhs's first); got lhs {_short(lhs)}, rhs {_short(rhs)}")
        dimension_numbers = (((lhs.ndim - 1,), (0,)), ((), ()))
    return _dot_general(op, lhs, rhs, dimension_numbers, precision, preferred_element_type)


def _matmul_numbers(lv, rv):
    """A batched matrix product's dimension numbers, or None where the shapes do not allow
    one (the general path raises)."""
    n = lv.ndim
    if n < 2 or n != rv.ndim or lv.shape[:-2] != rv.shape[:-2] or lv.shape[-1] != rv.shape[-2]:
        return None
    batch = tuple(range(n - 2))
    return (((n - 1,), (n - 2,)), (batch, batch))


def _batch_matmul_on_host(lhs, rhs, precision=None):
    values = _plain_operands(lhs, rhs)
    dn = None if values is None or precision is not None else _matmul_numbers(*values)
    if dn is None:
        return NotImplemented
    return dot_general_p.impl(lhs, rhs, dimension_numbers=dn)


@host_shortcut(_batch_matmul_on_host)
def batch_matmul(lhs: ArrayLike, rhs: ArrayLike, precision: PrecisionLike = None) -> Array:
    """Batched matrix product: ``lhs`` and ``rhs`` of one rank (>= 2) with equal leading
    (batch) dimensions; ``(..., m, k) @ (..., k, n) -> (..., m, n)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.batch_matmul(fnp.ones((5, 2, 3)), fnp.ones((5, 3, 4))).shape
        (5, 2, 4)
    """
    op = "lax.batch_matmul"
    lhs, rhs = _operand(op, lhs, "lhs"), _operand(op, rhs, "rhs")
    if lhs.ndim < 2 or lhs.ndim != rhs.ndim:
        raise op_value_error(op, f"arguments must have the same rank (at least 2), got lhs "
                                 f"{_short(lhs)} and rhs {_short(rhs)}")
    if lhs.shape[:-2] != rhs.shape[:-2]:
        raise op_value_error(op, f"batch dimensions must be equal, got lhs {_short(lhs)} and "
                                 f"rhs {_short(rhs)}")
    batch = tuple(range(lhs.ndim - 2))
    dn = (((lhs.ndim - 1,), (rhs.ndim - 2,)), (batch, batch))
    return _dot_general(op, lhs, rhs, dn, precision, None)


def _check_scale(op, side, x, scale, contracting):
    if scale.ndim != x.ndim:
        raise op_type_error(op, f"{side}_scale {_short(scale)} must have the rank of {side} "
                                f"{_short(x)}")
    for d, (size, blocks) in enumerate(zip(x.shape, scale.shape)):
        if d in contracting:
            if blocks == 0 or size % blocks or size // blocks < 2:
                raise op_type_error(
                    op, f"{side} contracting dimension {d} of size {size} must be a multiple "
                        f"(at least 2x) of its scale's size, got {side}_scale {_short(scale)}")
        elif blocks != size:
            raise op_type_error(op, f"{side} dimension {d} of size {size} must match "
                                    f"{side}_scale's ({_short(scale)})")


def _scaled(x, scale, contracting):
    """``x * scale`` in bfloat16, each scale entry covering a block of the contracting
    dimensions (JAX's decomposition)."""
    from funcarray.base.dtypes import bfloat16

    x = x.astype(bfloat16)
    if scale is None:
        return x
    scale = scale.astype(bfloat16)
    for d in contracting:
        if scale.shape[d] != x.shape[d]:
            scale = scale.repeat(x.shape[d] // scale.shape[d], axis=d)
    return x * scale


def _scaled_dot_on_host(lhs, rhs, *, lhs_scale=None, rhs_scale=None, dimension_numbers=None,
                       preferred_element_type=None):
    """Without scales, dimension numbers or a result type: the bfloat16 operands' product."""
    from funcarray.base.dtypes import bfloat16

    lv, rv = host_value(lhs), host_value(rhs)
    if (lv is None or rv is None or lhs_scale is not None or rhs_scale is not None
            or dimension_numbers is not None or preferred_element_type is not None):
        return NotImplemented
    dn = _matmul_numbers(lv, rv)
    if dn is None:
        return NotImplemented
    return dot_general_p.impl(Array(convert_kernel(lv, bfloat16)),
                              Array(convert_kernel(rv, bfloat16)), dimension_numbers=dn)


@host_shortcut(_scaled_dot_on_host)
def scaled_dot(lhs: ArrayLike, rhs: ArrayLike, *, lhs_scale: ArrayLike | None = None,
               rhs_scale: ArrayLike | None = None,
               dimension_numbers: DotDimensionNumbers | None = None,
               preferred_element_type: DTypeLike | None = None) -> Array:
    """Block-scaled product, as in jax.lax: ``(lhs * lhs_scale) @ (rhs * rhs_scale)`` by
    ``dot_general``, where each scale entry covers a block of the contracting dimension
    (which is a multiple, at least 2x, of the scale's) and matches the other dimensions. The
    scaled operands are bfloat16 and the result ``preferred_element_type`` (bfloat16 by
    default). Default dimension numbers: a (batched) matrix product.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.scaled_dot(fnp.ones((1, 4)), fnp.ones((4, 1)),
        ...                lhs_scale=fnp.asarray([[1.0, 2.0]]), preferred_element_type=fnp.float32)
        Array([[6.]], dtype=float32)
    """
    from funcarray import lax
    from funcarray.base.dtypes import bfloat16

    op = "lax.scaled_dot"
    x, y = _operand(op, lhs, "lhs"), _operand(op, rhs, "rhs")
    if dimension_numbers is None:
        if x.ndim < 2:
            raise op_type_error(op, f"operands of rank 0 or 1 need dimension_numbers, got lhs "
                                    f"{_short(x)}")
        n = x.ndim
        dimension_numbers = (((n - 1,), (n - 2,)), (tuple(range(n - 2)), tuple(range(n - 2))))
    (lc, rc), _ = dimension_numbers
    lc = _int_tuple(op, lc, "lhs_contracting", sequence_only=True)
    rc = _int_tuple(op, rc, "rhs_contracting", sequence_only=True)
    if x.ndim != y.ndim:
        raise op_type_error(op, f"lhs {_short(x)} and rhs {_short(y)} must have one rank")
    scales = []
    for side, operand, scale, dims in (("lhs", x, lhs_scale, lc), ("rhs", y, rhs_scale, rc)):
        if scale is not None:
            scale = _operand(op, scale, f"{side}_scale")
            _check_scale(op, side, operand, scale, dims)
        scales.append(scale)
    out_dtype = bfloat16 if preferred_element_type is None else preferred_element_type
    return lax.dot_general(_scaled(x, scales[0], lc), _scaled(y, scales[1], rc),
                           dimension_numbers, preferred_element_type=out_dtype)
