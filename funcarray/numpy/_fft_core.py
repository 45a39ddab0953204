"""The shared machinery of ``funcarray.numpy.fft``: argument checks, NumPy's ``s``/``axes``
rules, cropping and zero-padding, normalisation and the split of transforms over more than
three axes (XLA's limit) into blocks. Everything is built from ``lax.fft`` and funcarray
operations, so eager, jit, grad and vmap all come from ``fft_p``'s rules.

Example:
    >>> import funcarray.numpy as fnp
    >>> transform("fft", FftType.FFT, fnp.asarray([1.0, 1.0]), None, None, None)
    Array([2.+0.j, 0.+0.j], dtype=complex64)
"""

from __future__ import annotations

import math
import operator

import numpy as np

from funcarray.api.arguments import asarray_arg, canonicalize_axis, convert
from funcarray.base import dtypes
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.numpy._shape import moveaxis
from funcarray.primitives.fft import FftType, complex_dtype_for, fft_p, real_dtype_for

__all__ = ["FftType", "transform", "check_single_axis", "check_norm", "lengths_arg"]

_NORMS = (None, "backward", "ortho", "forward")


def check_norm(op: str, norm) -> None:
    if norm not in _NORMS:
        raise op_value_error(op, f"norm must be 'backward' (the default), 'ortho' or "
                                 f"'forward', got {norm!r}")


def check_single_axis(op: str, axis) -> None:
    if isinstance(axis, (list, tuple)):
        raise op_value_error(op, f"takes one axis, got axis={axis!r}; use {op}n for several")


def lengths_arg(op: str, s, what: str = "s") -> tuple:
    """``s`` as a tuple of positive ints (an int counts as one entry)."""
    if isinstance(s, (int, np.integer)):
        s = (s,)
    try:
        s = tuple(operator.index(n) for n in s)
    except TypeError:
        raise op_type_error(op, f"{what} must be a sequence of ints, got {s!r}") from None
    if any(n < 1 for n in s):
        raise op_value_error(op, f"{what} entries must be positive, got {s}")
    return s


def _scale(norm, inverse: bool, lengths: tuple):
    """The factor NumPy's ``norm`` applies on top of XLA's convention (the inverse transforms
    divide by the number of points, the forward ones do not); None for no scaling."""
    if norm in (None, "backward"):
        return None
    size = math.prod(lengths)
    if norm == "ortho":
        return math.sqrt(size) if inverse else 1.0 / math.sqrt(size)
    return float(size) if inverse else 1.0 / size


def _transform_block(x, kind: FftType, lengths: tuple, axes: tuple):
    """``fft_p`` over ``axes`` (at most 3, in order) of ``x``, moved to the end and back."""
    end = tuple(range(x.ndim - len(axes), x.ndim))

    if axes != end:
        x = moveaxis(x, axes, end)
    out = fft_p.bind(x, fft_type=kind, fft_lengths=lengths)
    return out if axes == end else moveaxis(out, end, axes)


def _transform_last(x, kind: FftType, lengths: tuple):
    """``kind`` over the last ``len(lengths)`` axes, in blocks of at most three axes: a
    multi-axis DFT is separable, and only the last axis is halved by RFFT/IRFFT, so the
    leading blocks are complex FFTs (after an RFFT) or IFFTs (before an IRFFT)."""
    k = len(lengths)
    if k == 0:
        return x
    if k <= 3:
        return fft_p.bind(x, fft_type=kind, fft_lengths=lengths)
    first = x.ndim - k
    blocks = [tuple(range(start, min(start + 3, x.ndim - 3))) for start in
              range(first, x.ndim - 3, 3)]
    last = tuple(range(x.ndim - 3, x.ndim))
    lead = FftType.IFFT if kind in (FftType.IFFT, FftType.IRFFT) else FftType.FFT
    if kind in (FftType.IFFT, FftType.IRFFT):
        for block in blocks:
            x = _transform_block(x, lead, tuple(lengths[a - first] for a in block), block)
        return _transform_block(x, kind, lengths[-3:], last)
    x = _transform_block(x, kind, lengths[-3:], last)
    for block in blocks:
        x = _transform_block(x, lead, tuple(lengths[a - first] for a in block), block)
    return x


def _resize(x, axes: tuple, sizes: tuple):
    """``x`` cropped or zero-padded at the end of each of ``axes`` to ``sizes``."""
    from funcarray import lax

    shape = list(x.shape)
    if all(shape[a] == n for a, n in zip(axes, sizes)):
        return x
    limits = list(shape)
    for a, n in zip(axes, sizes):
        limits[a] = min(shape[a], n)
    if limits != shape:
        x = lax.slice(x, (0,) * x.ndim, tuple(limits))
    config = [(0, 0, 0)] * x.ndim
    for a, n in zip(axes, sizes):
        config[a] = (0, max(n - shape[a], 0), 0)
    if any(hi for _, hi, _ in config):
        x = lax.pad(x, np.zeros((), x.dtype), config)
    return x


def _operand(op: str, a, kind: FftType):
    x = asarray_arg(op, a)
    if kind in (FftType.RFFT,):
        if dtypes.is_complex(x.dtype):
            raise op_type_error(op, f"needs a real input, got {x.dtype}; use the complex "
                                    f"transform (fft, fftn...) for complex input")
        return convert(x, real_dtype_for(x.dtype))
    return convert(x, complex_dtype_for(x.dtype))


def transform(op: str, kind: FftType, a, s, axes, norm, *, inverse: bool | None = None):
    """NumPy's n-dimensional transform ``kind`` of ``a``: ``s`` output lengths (the input
    cropped or zero-padded to them; for IRFFT the last is the real output's length) over
    ``axes`` (default: the last ``len(s)`` axes, or all), normalised by ``norm``.
    ``inverse`` says which way ``norm`` scales (default: IFFT and IRFFT are inverses)."""
    check_norm(op, norm)
    x = _operand(op, a, kind)
    if inverse is None:
        inverse = kind in (FftType.IFFT, FftType.IRFFT)
    if s is not None:
        s = lengths_arg(op, s)
    if axes is None:
        if s is not None and len(s) > x.ndim:
            raise op_value_error(op, f"s={s} has more entries than the input has axes "
                                     f"({x.ndim}, shape {x.shape})")
        axes = tuple(range(0 if s is None else x.ndim - len(s), x.ndim))
    else:
        if isinstance(axes, (int, np.integer)):
            axes = (axes,)
        axes = tuple(canonicalize_axis(op, ax, x.ndim) for ax in axes)
        if len(set(axes)) != len(axes):
            raise op_value_error(op, f"repeated axes are not supported, got axes={axes}")
        if s is not None and len(s) != len(axes):
            raise op_value_error(op, f"s and axes must have the same length, got s={s} and "
                                     f"axes={axes}")
    if s is None:
        s = tuple(x.shape[ax] for ax in axes)
        if kind == FftType.IRFFT and axes:
            s = s[:-1] + (2 * (s[-1] - 1),)
            if s[-1] < 1:
                raise op_value_error(op, f"the default output length 2 * (m - 1) is {s[-1]} "
                                         f"for an input of length m = {x.shape[axes[-1]]} "
                                         f"along axis {axes[-1]}; pass n (or s) explicitly")
    if any(n < 1 for n in s):
        raise op_value_error(op, f"the transform lengths {s} over axes {axes} must be "
                                 f"positive (input shape {x.shape}); pass n or s")
    # XLA transforms the innermost axes: move the chosen ones there, in the order given.
    end = tuple(range(x.ndim - len(axes), x.ndim))

    if axes != end:
        x = moveaxis(x, axes, end)
    sizes = s[:-1] + (s[-1] // 2 + 1,) if kind == FftType.IRFFT and s else s
    x = _resize(x, end, sizes)
    out = _transform_last(x, kind, s)
    factor = _scale(norm, inverse, s)
    if factor is not None:
        out = out * factor
    return out if axes == end else moveaxis(out, end, axes)
