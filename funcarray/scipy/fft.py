"""``funcarray.scipy.fft``: jax.scipy.fft's discrete cosine transforms (``dct``, ``dctn``,
``idct``, ``idctn``), type 2 (the one JAX implements; other types raise
NotImplementedError), with SciPy's ``n``/``s``, ``axis``/``axes`` and ``norm`` (``None`` or
``"backward"``, and ``"ortho"``; JAX has no ``"forward"``).

Both directions are one complex FFT of length ``N`` along each axis (Makhoul's algorithm):
``dct`` reorders the input (even entries, then the odd ones reversed), transforms it and
rotates frequency ``k`` by ``exp(-i pi k / 2N)``; ``idct`` undoes each step. They are built
from ``funcarray.numpy.fft`` and ``take``, so gradients, vmap and jit come for free. Complex
inputs transform their real and imaginary parts separately, integers become float32 (int64:
float64).

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.scipy import fft
    >>> fft.dct(fnp.asarray([1.0, 1.0, 1.0, 1.0]))
    Array([8., 0., 0., 0.], dtype=float32)
"""

from __future__ import annotations

import math
import operator
from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import asarray_arg, canonicalize_axis, convert, to_inexact_dtype
from funcarray.base import dtypes
from funcarray.base.errors import api_boundary, op_type_error, op_value_error

if TYPE_CHECKING:
    from collections.abc import Sequence

    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["dct", "dctn", "idct", "idctn"]


def _check(op: str, x, type, norm):
    if type not in (1, 2, 3, 4):
        raise op_value_error(op, f"type must be 1, 2, 3 or 4, got {type!r}")
    if type != 2:
        raise NotImplementedError(f"{op}: only the type 2 DCT is implemented (as in JAX), got "
                                  f"type={type}")
    if norm not in (None, "backward", "ortho"):
        raise op_value_error(op, f"norm must be None, 'backward' or 'ortho', got {norm!r}")
    x = asarray_arg(op, x)
    if dtypes.is_complex(x.dtype):
        return x
    return convert(x, to_inexact_dtype(x.dtype))


def _resize(x, axis: int, n):
    """``x`` cropped or zero-padded at the end of ``axis`` to ``n`` (None: as it is)."""
    from funcarray import lax

    if n is None or n == x.shape[axis]:
        return x
    config = [(0, 0, 0)] * x.ndim
    config[axis] = (0, n - x.shape[axis], 0)  # a negative high padding crops
    return lax.pad(x, np.zeros((), x.dtype), config)


def _length(op: str, n, what: str = "n"):
    try:
        n = operator.index(n)
    except TypeError:
        raise op_type_error(op, f"{what} must be an int, got {n!r}") from None
    if n < 1:
        raise op_value_error(op, f"{what} must be positive, got {n}")
    return n


def _split_complex(fn, x, *args):
    """``fn`` on a real array, or on the real and imaginary parts of a complex one."""
    from funcarray import lax
    from funcarray.numpy import imag, real

    if dtypes.is_complex(x.dtype):
        return lax.complex(fn(real(x), *args), fn(imag(x), *args))
    return fn(x, *args)


def _along(x, axis: int, shape_1d: np.ndarray):
    """``shape_1d`` (length ``x.shape[axis]``) shaped to broadcast along ``axis`` of ``x``."""
    shape = [1] * x.ndim
    shape[axis] = -1
    return shape_1d.reshape(shape)


def _dct2_axis(x, axis: int, norm):
    """The type 2 DCT of the real ``x`` along ``axis``:
    ``y[k] = 2 sum_n x[n] cos(pi k (2n + 1) / 2N)``."""
    import funcarray.numpy as fnp

    size = x.shape[axis]
    # v = x[0], x[2], x[4], ..., then the odd entries backwards: v's DFT rotated by
    # exp(-i pi k / 2N) has the DCT as its real part (times 2).
    order = np.concatenate([np.arange(0, size, 2), np.arange(size - 1 - size % 2, 0, -2)])
    v = fnp.take(x, order, axis=axis)
    k = np.arange(size)
    spectrum = fnp.fft.fft(v, axis=axis)
    rotation = _along(x, axis, np.exp(-0.5j * np.pi * k / size).astype(spectrum.dtype))
    out = 2.0 * fnp.real(spectrum * rotation)
    if norm == "ortho":
        weights = np.full((size,), 1.0 / math.sqrt(2.0 * size))
        weights[0] = 1.0 / math.sqrt(4.0 * size)
        out = out * _along(x, axis, weights.astype(out.dtype))
    return out


def _idct2_axis(x, axis: int, norm):
    """The inverse of ``_dct2_axis`` (a type 3 DCT divided by 2N, or the orthonormal one)."""
    import funcarray.numpy as fnp

    size = x.shape[axis]
    weights = np.ones((size,))
    if norm == "ortho":
        weights[:] = math.sqrt(2.0 * size)
        weights[0] = math.sqrt(size)
    else:
        weights[0] = 0.5
    k = np.arange(size)
    rotation = weights * np.exp(0.5j * np.pi * k / size)
    complex_dtype = dtypes.complex128 if x.dtype == dtypes.float64 else dtypes.complex64
    v = fnp.real(fnp.fft.ifft(x * _along(x, axis, rotation.astype(complex_dtype)), axis=axis))
    # undo the reordering: out[2m] = v[m], out[2m + 1] = v[N - 1 - m]
    m = np.arange(size)
    order = np.where(m % 2 == 0, m // 2, size - 1 - m // 2)
    return fnp.take(v, order, axis=axis)


def _axes_and_lengths(op: str, x, s, axes):
    if s is not None:
        s = [s] if isinstance(s, (int, np.integer)) else list(s)
        s = [_length(op, n, "s entries") for n in s]
        if len(s) > x.ndim:
            raise op_value_error(op, f"s={s} has more entries than the input has axes "
                                     f"({x.ndim}, shape {x.shape})")
    if axes is None:
        axes = tuple(range(x.ndim - len(s) if s is not None else 0, x.ndim))
    else:
        axes = (axes,) if isinstance(axes, (int, np.integer)) else tuple(axes)
        axes = tuple(canonicalize_axis(op, a, x.ndim) for a in axes)
        if len(set(axes)) != len(axes):
            raise op_value_error(op, f"repeated axes are not supported, got axes={axes}")
        if s is not None and len(s) != len(axes):
            raise op_value_error(op, f"s and axes must have the same length, got s={s} and "
                                     f"axes={axes}")
    return axes, (None,) * len(axes) if s is None else tuple(s)


@api_boundary
def dct(x: ArrayLike, type: int = 2, n: int | None = None, axis: int = -1,
        norm: str | None = None) -> Array:  # noqa: A002 (SciPy's name)
    """Discrete cosine transform along ``axis``, type 2:
    ``y[k] = 2 sum_n x[n] cos(pi k (2n + 1) / 2N)`` (``norm="ortho"``: scaled to an
    orthonormal transform). ``n`` crops or zero-pads the input first.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.fft import dct
        >>> dct(fnp.asarray([1.0, 2.0, 3.0, 4.0])).round(4)
        Array([20.        , -6.3086    ,  0.        , -0.44829997], dtype=float32)
    """
    x = _check("scipy.fft.dct", x, type, norm)
    axis = canonicalize_axis("scipy.fft.dct", axis, x.ndim)
    x = _resize(x, axis, None if n is None else _length("scipy.fft.dct", n))
    return _split_complex(_dct2_axis, x, axis, norm)


@api_boundary
def idct(x: ArrayLike, type: int = 2, n: int | None = None, axis: int = -1,
         norm: str | None = None) -> Array:  # noqa: A002 (SciPy's name)
    """Inverse of ``dct`` along ``axis`` (a type 3 DCT, divided by ``2N`` unless
    ``norm="ortho"``). ``n`` crops or zero-pads the input first.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.fft import dct, idct
        >>> idct(dct(fnp.asarray([1.0, 2.0, 3.0, 4.0]))).round(4)
        Array([1., 2., 3., 4.], dtype=float32)
    """
    x = _check("scipy.fft.idct", x, type, norm)
    axis = canonicalize_axis("scipy.fft.idct", axis, x.ndim)
    x = _resize(x, axis, None if n is None else _length("scipy.fft.idct", n))
    return _split_complex(_idct2_axis, x, axis, norm)


def _over_axes(op: str, one_axis, x, type, s, axes, norm):
    operand = x
    x = _check(op, x, type, norm)
    axes, lengths = _axes_and_lengths(op, x, s, axes)
    if not axes:  # a 0-d operand: no transform, and its dtype is kept, as in JAX
        return asarray_arg(op, operand)
    for axis, n in zip(axes, lengths):
        x = _resize(x, axis, n)
    for axis in axes:  # separable: one axis at a time
        x = _split_complex(one_axis, x, axis, norm)
    return x


@api_boundary
def dctn(x: ArrayLike, type: int = 2, s: Sequence[int] | None = None,
         axes: Sequence[int] | None = None,
         norm: str | None = None) -> Array:  # noqa: A002 (SciPy's name)
    """Multidimensional ``dct`` over ``axes`` (default: the last ``len(s)`` axes, or all);
    ``s`` crops or zero-pads those axes first.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.fft import dctn
        >>> dctn(fnp.ones((2, 2)))
        Array([[16.,  0.],
               [ 0.,  0.]], dtype=float32)
    """
    return _over_axes("scipy.fft.dctn", _dct2_axis, x, type, s, axes, norm)


@api_boundary
def idctn(x: ArrayLike, type: int = 2, s: Sequence[int] | None = None,
          axes: Sequence[int] | None = None,
          norm: str | None = None) -> Array:  # noqa: A002 (SciPy's name)
    """Multidimensional ``idct`` over ``axes``, the inverse of ``dctn``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.fft import dctn, idctn
        >>> idctn(dctn(fnp.asarray([[1.0, 2.0], [3.0, 4.0]]))).round(4)
        Array([[1., 2.],
               [3., 4.]], dtype=float32)
    """
    return _over_axes("scipy.fft.idctn", _idct2_axis, x, type, s, axes, norm)
