"""``jax.lax``'s dot algorithms and precision types: ``DotAlgorithm``, ``DotAlgorithmPreset``,
``PrecisionLike``, ``DotDimensionNumbers``, ``AccuracyMode`` and ``Tolerance``.

A dot algorithm passed as ``precision=`` to ``lax.dot_general``/``lax.dot`` (or to
``ragged_dot``, ``conv_general_dilated_local``) is honoured the way XLA's CPU backend does it:
the operands are converted to the algorithm's storage types, the product is accumulated in
its accumulation type, and the result has the dtype the product would have without an
algorithm (``preferred_element_type`` as usual). Multi-pass presets (``BF16_BF16_F32_X3``,
``_X6``, ``_X9``, ``TF32_TF32_F32_X3``), TF32 and "fast accumulation" ask for a cheaper
approximation of float32 accumulation; funcarray computes them at full float32 accuracy (at
least as accurate as asked). The float8 presets need float8 operands.

``AccuracyMode`` and ``Tolerance`` are the ``accuracy=`` hints of jax.lax's transcendental
functions; funcarray has one implementation of each (the most accurate it has), so any hint is
accepted and changes nothing.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray import lax
    >>> x = fnp.asarray([1.0, 2.0 ** -12])  # 2**-12 is below float16's resolution near 1
    >>> lax.dot(x, fnp.ones(2), precision=lax.DotAlgorithmPreset.F16_F16_F16)
    Array(1., dtype=float32)
    >>> lax.dot(x, fnp.ones(2), precision="F32_F32_F32")
    Array(1.0002441, dtype=float32)
"""

from __future__ import annotations

import enum
import typing
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from funcarray.base import dtypes
from funcarray.base.errors import op_type_error
from funcarray.lax._conv import ConvDimensionNumbers
from funcarray.lax._ops_dot import Precision

# (the type aliases PrecisionLike, DotDimensionNumbers and ConvGeneralDilatedDimensionNumbers
# are exported by funcarray/lax/__init__.py directly: they are neither functions nor classes)
__all__ = ["DotAlgorithm", "DotAlgorithmPreset", "AccuracyMode", "Tolerance"]


class DotAlgorithm(NamedTuple):
    """A dot product algorithm (jax.lax's): the types the operands are converted to
    (``lhs_precision_type``, ``rhs_precision_type``), the accumulation type, and how many
    pieces and products an emulation uses (funcarray computes at the storage types' full
    accuracy, so these counts change nothing).

    Example:
        >>> import numpy as np, funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> algorithm = lax.DotAlgorithm(np.float16, np.float16, np.float32)
        >>> lax.dot(fnp.ones(3, fnp.float16), fnp.ones(3, fnp.float16), precision=algorithm)
        Array(3., dtype=float16)
    """

    lhs_precision_type: typing.Any
    rhs_precision_type: typing.Any
    accumulation_type: typing.Any
    lhs_component_count: int = 1
    rhs_component_count: int = 1
    num_primitive_operations: int = 1
    allow_imprecise_accumulation: bool = False


# The float8 types the ANY_F8 presets take (float6/float4 are not among them).
_F8_TYPES = dtypes.dtype_set(lambda d: d.name.startswith("float8_"))
_F16 = np.dtype(np.float16)
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


class DotAlgorithmPreset(enum.Enum):
    """jax.lax's named dot algorithms, ``LHS_RHS_ACCUMULATION`` (pass one, or its name, as
    ``precision=``). ``DEFAULT`` picks by the operand types (no conversion).

    Example:
        >>> from funcarray import lax
        >>> lax.DotAlgorithmPreset.BF16_BF16_F32.accumulation_type
        dtype('float32')
    """

    DEFAULT = enum.auto()
    ANY_F8_ANY_F8_F32 = enum.auto()
    ANY_F8_ANY_F8_F32_FAST_ACCUM = enum.auto()
    ANY_F8_ANY_F8_ANY = enum.auto()
    ANY_F8_ANY_F8_ANY_FAST_ACCUM = enum.auto()
    F16_F16_F16 = enum.auto()
    F16_F16_F32 = enum.auto()
    BF16_BF16_BF16 = enum.auto()
    BF16_BF16_F32 = enum.auto()
    BF16_BF16_F32_X3 = enum.auto()
    BF16_BF16_F32_X6 = enum.auto()
    BF16_BF16_F32_X9 = enum.auto()
    TF32_TF32_F32 = enum.auto()
    TF32_TF32_F32_X3 = enum.auto()
    F32_F32_F32 = enum.auto()
    F64_F64_F64 = enum.auto()

    def __repr__(self) -> str:
        return f"{type(self).__name__}.{self.name}"

    def __str__(self) -> str:
        return self.name

    @property
    def supported_lhs_types(self) -> tuple | None:
        """The operand types the algorithm takes as they are (others convert to the first);
        None: any type."""
        if self is DotAlgorithmPreset.DEFAULT or self.name.startswith("ANY_F8"):
            return None
        if self.name.startswith("F16_"):
            return (_F16,)
        if self in (DotAlgorithmPreset.BF16_BF16_BF16, DotAlgorithmPreset.BF16_BF16_F32):
            return (dtypes.bfloat16, _F32)
        if self is DotAlgorithmPreset.F64_F64_F64:
            return (_F64,)
        return (_F32,)

    @property
    def supported_rhs_types(self) -> tuple | None:
        """As ``supported_lhs_types``."""
        return self.supported_lhs_types

    @property
    def accumulation_type(self) -> np.dtype | None:
        """The type the products are summed in (None: the result type)."""
        if self.name in ("DEFAULT", "ANY_F8_ANY_F8_ANY", "ANY_F8_ANY_F8_ANY_FAST_ACCUM"):
            return None
        if self.name == "BF16_BF16_BF16":
            return dtypes.bfloat16
        return {"F16_F16_F16": _F16, "F64_F64_F64": _F64}.get(self.name, _F32)


PrecisionLike = None | str | Precision | tuple | DotAlgorithm | DotAlgorithmPreset
"""What ``precision=`` takes: None, a ``Precision`` or its name, a pair of them, a
``DotAlgorithm``, a ``DotAlgorithmPreset`` or its name (jax.lax's type alias)."""

DotDimensionNumbers = tuple[tuple[Sequence[int], Sequence[int]],
                            tuple[Sequence[int], Sequence[int]]]
"""``((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))`` (jax.lax's alias)."""

ConvGeneralDilatedDimensionNumbers = None | ConvDimensionNumbers | tuple[str, str, str]
"""A convolution's layouts: None, ``ConvDimensionNumbers`` or three layout strings."""


class AccuracyMode(enum.Enum):
    """The ``accuracy=`` modes of jax.lax's transcendental functions (funcarray computes them
    at full accuracy whatever the mode).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.exp(fnp.zeros(2), accuracy=lax.AccuracyMode.HIGHEST)
        Array([1., 1.], dtype=float32)
    """

    HIGHEST = 1
    DEFAULT = 2


class Tolerance:
    """An ``accuracy=`` request by tolerances (``atol`` and ``rtol``, or ``atol`` and
    ``ulps``), as in jax.lax; funcarray's one implementation of each function is its most
    accurate, so the request changes nothing.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.exp(fnp.zeros(2), accuracy=lax.Tolerance(atol=1e-6))
        Array([1., 1.], dtype=float32)
    """

    def __init__(self, atol: float = 0.0, rtol: float = 0.0, ulps: int = 0) -> None:
        if atol < 0.0 or rtol < 0.0 or ulps < 0:
            raise ValueError(f"lax.Tolerance: tolerances must be non-negative, got "
                             f"atol={atol}, rtol={rtol}, ulps={ulps}")
        if atol == 0.0 and rtol == 0.0 and ulps == 0:
            raise ValueError("lax.Tolerance: set at least one of atol, rtol or ulps")
        self.atol, self.rtol, self.ulps = atol, rtol, ulps

    def __repr__(self) -> str:
        return f"Tolerance(atol={self.atol}, rtol={self.rtol}, ulps={self.ulps})"


def is_accuracy_hint(accuracy) -> bool:
    """Whether ``accuracy`` is an ``AccuracyMode`` or ``Tolerance`` (ours or jax's)."""
    return type(accuracy).__name__ in ("AccuracyMode", "Tolerance")


def algorithm_of(precision):
    """``precision`` as a ``DotAlgorithm``/``DotAlgorithmPreset`` when it names one (ours,
    jax's, or a preset's name), else None (a ``Precision`` value, its name, or a pair)."""
    if isinstance(precision, (DotAlgorithmPreset, DotAlgorithm)):
        return precision
    if isinstance(precision, str):
        return DotAlgorithmPreset.__members__.get(precision)
    kind = type(precision).__name__
    if kind == "DotAlgorithmPreset":  # jax.lax's enum: the same members by name
        return DotAlgorithmPreset[precision.name]
    if kind == "DotAlgorithm" and isinstance(precision, tuple):
        return DotAlgorithm(*precision)
    return None


def _storage_type(given, supported):
    """The operand's own type if the algorithm takes it, else the algorithm's first type."""
    if supported is None or given in supported:
        return given
    return supported[0]


def _float_dtype(op, what, value):
    try:
        dt = dtypes.canonicalize_dtype(value)
    except (TypeError, ValueError):
        dt = None
    if dt is None or not dtypes.is_float(dt):
        raise op_type_error(op, f"the dot algorithm's {what} must be a floating dtype "
                                f"funcarray supports, got {value!r}")
    return dt


def _plain_result(op, lhs, rhs, preferred_element_type) -> tuple:
    """The (dtype, weak_type) of ``dot_general(lhs, rhs)`` without an algorithm: the higher
    operand type by XLA's order, or ``preferred_element_type``."""
    from funcarray.lax._ops_common import _dtype_arg
    from funcarray.lax._ops_dot import _dot_rank

    if preferred_element_type is not None:
        return _dtype_arg(op, preferred_element_type, "preferred_element_type"), False
    higher = max((lhs.dtype, rhs.dtype), key=_dot_rank)
    return higher, lhs.weak_type and rhs.weak_type


def dot_with_algorithm(op, lhs, rhs, dimension_numbers, algorithm, preferred_element_type):
    """``dot_general`` under a dot algorithm (see the module docstring): operands converted
    to its storage types, products accumulated in its accumulation type, the result in the
    dtype of the product without the algorithm."""
    from funcarray.api.arguments import convert
    from funcarray.lax._ops_common import _operand
    from funcarray.lax._ops_dot import _dot_general

    lhs, rhs = _operand(op, lhs, "lhs"), _operand(op, rhs, "rhs")
    if algorithm is DotAlgorithmPreset.DEFAULT:
        return _dot_general(op, lhs, rhs, dimension_numbers, None, preferred_element_type)
    result, weak = _plain_result(op, lhs, rhs, preferred_element_type)
    if isinstance(algorithm, DotAlgorithm):
        lhs_t = _float_dtype(op, "lhs_precision_type", algorithm.lhs_precision_type)
        rhs_t = _float_dtype(op, "rhs_precision_type", algorithm.rhs_precision_type)
        accumulate = _float_dtype(op, "accumulation_type", algorithm.accumulation_type)
    else:
        if algorithm.name.startswith("ANY_F8") and not (
                lhs.dtype in _F8_TYPES and rhs.dtype in _F8_TYPES):
            raise op_type_error(op, f"the dot algorithm {algorithm} needs float8 operands, got "
                                    f"{lhs.dtype} and {rhs.dtype}; convert them first or pick "
                                    f"another preset")
        lhs_t = _storage_type(lhs.dtype, algorithm.supported_lhs_types)
        rhs_t = _storage_type(rhs.dtype, algorithm.supported_rhs_types)
        accumulate = algorithm.accumulation_type
        if accumulate is None:  # the ANY accumulations: the result type
            accumulate = result
    lhs = lhs if lhs.dtype == lhs_t else convert(lhs, lhs_t, False)
    rhs = rhs if rhs.dtype == rhs_t else convert(rhs, rhs_t, False)
    out = _dot_general(op, lhs, rhs, dimension_numbers, None, accumulate)
    return out if out.dtype == result else convert(out, result, weak)
