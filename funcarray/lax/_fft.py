"""``lax.fft`` and ``lax.FftType`` (JAX's ``jax.lax.fft``): XLA's FFT over the innermost
axes. The primitive and its rules are ``primitives/fft.py``; ``funcarray.numpy.fft`` builds
NumPy's transforms (any axes, padding, normalisation) on it.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray import lax
    >>> lax.fft(fnp.asarray([1.0, 0.0, 0.0, 0.0]), "fft", (4,))
    Array([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j], dtype=complex64)
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING

from funcarray.api.arguments import asarray_arg, convert
from funcarray.base import dtypes
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.primitives.fft import FftType, complex_dtype_for, fft_p, real_dtype_for

if TYPE_CHECKING:
    from collections.abc import Sequence

    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["fft", "FftType"]

_OP = "lax.fft"


def fft_type_of(fft_type) -> FftType:
    """``fft_type`` as an ``FftType``: the enum itself or its name in either case."""
    if isinstance(fft_type, FftType):
        return fft_type
    if isinstance(fft_type, str) and fft_type.upper() in FftType.__members__:
        if fft_type in (fft_type.upper(), fft_type.lower()):
            return FftType[fft_type.upper()]
    if isinstance(fft_type, str):
        raise op_value_error(_OP, f"unknown FFT type {fft_type!r}; use one of 'fft', 'ifft', "
                                  f"'rfft', 'irfft' or lax.FftType")
    raise op_type_error(_OP, f"fft_type must be a lax.FftType or a string such as 'fft', got "
                             f"{fft_type!r}")


def fft(x: ArrayLike, fft_type: FftType | str, fft_lengths: Sequence[int]) -> Array:
    """XLA's FFT of the last ``len(fft_lengths)`` axes of ``x`` (at most 3).

    ``fft_type`` is a ``lax.FftType`` or its name (``"fft"``, ``"IFFT"``...). ``FFT``,
    ``IFFT`` and ``IRFFT`` take their operand as complex (real and integer operands are
    converted: float64 and int64 to complex128, others to complex64); ``RFFT`` takes a real
    one (float64 stays, other reals become float32; complex raises). The transformed axes
    must equal ``fft_lengths`` (for ``IRFFT`` the last is ``fft_lengths[-1] // 2 + 1``).
    ``fft_lengths = ()`` returns the converted operand.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> spectrum = lax.fft(fnp.asarray([1.0, 2.0, 3.0, 4.0]), lax.FftType.RFFT, (4,))
        >>> spectrum
        Array([10.+0.j, -2.+2.j, -2.+0.j], dtype=complex64)
        >>> lax.fft(spectrum, "irfft", (4,))
        Array([1., 2., 3., 4.], dtype=float32)
    """
    kind = fft_type_of(fft_type)
    try:
        lengths = tuple(operator.index(n) for n in fft_lengths)
    except TypeError:
        raise op_type_error(_OP, f"fft_lengths must be a sequence of ints, got "
                                 f"{fft_lengths!r}") from None
    x = asarray_arg(_OP, x)
    if kind == FftType.RFFT:
        if dtypes.is_complex(x.dtype):
            raise op_type_error(_OP, f"RFFT needs a real operand, got {x.dtype}; use FFT for "
                                     f"complex input")
        x = convert(x, real_dtype_for(x.dtype))
    else:
        x = convert(x, complex_dtype_for(x.dtype))
    if not lengths:
        return x
    if len(lengths) > 3:
        raise op_value_error(_OP, f"fft_lengths must have at most 3 entries (XLA's limit), "
                                  f"got {lengths}; funcarray.numpy.fft.fftn splits longer "
                                  f"transforms")
    return fft_p.bind(x, fft_type=kind, fft_lengths=lengths)
