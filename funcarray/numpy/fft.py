"""``funcarray.numpy.fft``: jax.numpy.fft's discrete Fourier transforms (NumPy's names and
signatures).

Every transform is ``lax.fft`` (XLA's FFT, the ``fft`` primitive of ``primitives/fft.py``)
over the requested axes, which are moved innermost first; the argument rules are NumPy's:
``n``/``s`` crop or zero-pad the input to the transform's length (for ``irfft*`` they give the
real output's length, default ``2 * (m - 1)``), ``axes`` default to the last ``len(s)`` axes
(all axes when neither is given), negative axes count from the end, and ``norm`` is
``"backward"`` (default: the inverse divides by ``n``), ``"ortho"`` (both by ``sqrt(n)``) or
``"forward"`` (the forward divides by ``n``). Real and integer inputs are converted as in JAX:
float64 and int64 to complex128, the others to complex64 (float32 for ``rfft*``). More than
three axes are transformed in blocks of three. Gradients, vmap and jit come from the
primitive's rules (see ``primitives/fft.py`` for the transposes of the real transforms).

Example:
    >>> import funcarray.numpy as fnp
    >>> spectrum = fnp.fft.fft(fnp.asarray([1.0, 2.0, 3.0, 4.0]))
    >>> spectrum
    Array([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j], dtype=complex64)
    >>> fnp.fft.ifft(spectrum).real
    Array([1., 2., 3., 4.], dtype=float32)
"""

from __future__ import annotations

import operator

import numpy as np

from funcarray.api.arguments import canonicalize_axis
from funcarray.api.placement import place
from funcarray.base import dtypes
from funcarray.base.errors import api_boundary, op_type_error, op_value_error
from funcarray.numpy._creation import asarray
from funcarray.numpy._fft_core import FftType, check_single_axis, transform
from funcarray.numpy._fft_on_host import (
    _fft_on_host,
    _fftfreq_on_host,
    _fftn_on_host,
    _hfft_on_host,
    _ifft_on_host,
    _ifftn_on_host,
    _ihfft_on_host,
    _irfft_on_host,
    _irfftn_on_host,
    _rfft_on_host,
    _rfftfreq_on_host,
    _rfftn_on_host,
)
from funcarray.numpy._math_functions import conj
from funcarray.numpy._rearranging import roll
from funcarray.transforms.host_shortcuts import host_shortcut

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2",
           "irfft2", "fftn", "ifftn", "rfftn", "irfftn", "fftfreq", "rfftfreq", "fftshift",
           "ifftshift"]


def _one_axis(op, kind, a, n, axis, norm, inverse=None):
    check_single_axis(op, axis)
    return transform(op, kind, a, None if n is None else [n], [axis], norm, inverse=inverse)


def _two_axes(op, kind, a, s, axes, norm):
    if axes is None or len(axes) != 2:
        raise op_value_error(op, f"transforms exactly 2 axes, got axes={axes!r}; use "
                                 f"{op[:-1]}n for other counts")
    return transform(op, kind, a, s, axes, norm)


@host_shortcut(_fft_on_host)
def fft(a, n=None, axis=-1, norm=None):
    """One-dimensional discrete Fourier transform along ``axis`` (``n``: crop or zero-pad
    the input to that length first).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.fft.fft(fnp.asarray([1.0, 2.0, 3.0, 4.0]), n=2)
        Array([ 3.+0.j, -1.+0.j], dtype=complex64)
    """
    return _one_axis("fft.fft", FftType.FFT, a, n, axis, norm)


@host_shortcut(_ifft_on_host)
def ifft(a, n=None, axis=-1, norm=None):
    """One-dimensional inverse discrete Fourier transform along ``axis``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.fft.ifft(fnp.asarray([4.0, 0.0, 0.0, 0.0]))
        Array([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j], dtype=complex64)
    """
    return _one_axis("fft.ifft", FftType.IFFT, a, n, axis, norm)


@host_shortcut(_rfft_on_host)
def rfft(a, n=None, axis=-1, norm=None):
    """Discrete Fourier transform of a real input: the ``n // 2 + 1`` non-negative
    frequencies (the others are their conjugates).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.fft.rfft(fnp.asarray([1.0, 2.0, 3.0, 4.0]))
        Array([10.+0.j, -2.+2.j, -2.+0.j], dtype=complex64)
    """
    return _one_axis("fft.rfft", FftType.RFFT, a, n, axis, norm)


@host_shortcut(_irfft_on_host)
def irfft(a, n=None, axis=-1, norm=None):
    """Inverse of ``rfft``: a real output of length ``n`` (default ``2 * (m - 1)`` for ``m``
    input frequencies) along ``axis``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.fft.irfft(fnp.asarray([10.0 + 0j, -2 + 2j, -2 + 0j]))
        Array([1., 2., 3., 4.], dtype=float32)
    """
    return _one_axis("fft.irfft", FftType.IRFFT, a, n, axis, norm)


@host_shortcut(_hfft_on_host)
def hfft(a, n=None, axis=-1, norm=None):
    """Transform of a signal with Hermitian symmetry, given by its first half: a real
    spectrum of length ``n`` (default ``2 * (m - 1)``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.fft.hfft(fnp.asarray([1.0, 2.0, 3.0]))
        Array([ 8., -2.,  0., -2.], dtype=float32)
    """
    x = asarray(a)
    check_single_axis("fft.hfft", axis)
    if x.ndim == 0:
        raise op_value_error("fft.hfft", "needs an input of at least one axis, got a scalar")
    length = 2 * (x.shape[canonicalize_axis("fft.hfft", axis, x.ndim)] - 1) if n is None else n
    # norm scales as for a forward transform (hfft is one), though computed by an IRFFT
    x = _one_axis("fft.hfft", FftType.IRFFT, conj(_complex(x)), n, axis, norm, inverse=False)
    return x * float(length)


@host_shortcut(_ihfft_on_host)
def ihfft(a, n=None, axis=-1, norm=None):
    """Inverse of ``hfft``: the first ``n // 2 + 1`` entries of the Hermitian signal whose
    transform is the real input ``a``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> half = fnp.fft.ihfft(fnp.asarray([8.0, -2.0, 0.0, -2.0]))
        >>> half.real
        Array([1., 2., 3.], dtype=float32)
        >>> fnp.fft.hfft(half)
        Array([ 8., -2.,  0., -2.], dtype=float32)
    """
    x = asarray(a)
    check_single_axis("fft.ihfft", axis)
    if x.ndim == 0:
        raise op_value_error("fft.ihfft", "needs an input of at least one axis, got a scalar")
    length = x.shape[canonicalize_axis("fft.ihfft", axis, x.ndim)] if n is None else n
    out = _one_axis("fft.ihfft", FftType.RFFT, x, n, axis, norm, inverse=True)
    return conj(out) * (1.0 / length)


def _complex(x):
    from funcarray.api.arguments import convert
    from funcarray.primitives.fft import complex_dtype_for

    return convert(x, complex_dtype_for(x.dtype))


@api_boundary
def fft2(a, s=None, axes=(-2, -1), norm=None):
    """Two-dimensional discrete Fourier transform over ``axes``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.fft.fft2(fnp.asarray([[1.0, 2.0], [3.0, 4.0]]))
        Array([[10.+0.j, -2.+0.j],
               [-4.+0.j,  0.+0.j]], dtype=complex64)
    """
    return _two_axes("fft.fft2", FftType.FFT, a, s, axes, norm)


@api_boundary
def ifft2(a, s=None, axes=(-2, -1), norm=None):
    """Two-dimensional inverse discrete Fourier transform over ``axes``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.fft.ifft2(fnp.asarray([[4.0, 0.0], [0.0, 0.0]]))
        Array([[1.+0.j, 1.+0.j],
               [1.+0.j, 1.+0.j]], dtype=complex64)
    """
    return _two_axes("fft.ifft2", FftType.IFFT, a, s, axes, norm)


@api_boundary
def rfft2(a, s=None, axes=(-2, -1), norm=None):
    """Two-dimensional transform of a real input (the last axis halved).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.fft.rfft2(fnp.asarray([[1.0, 2.0], [3.0, 4.0]]))
        Array([[10.+0.j, -2.+0.j],
               [-4.+0.j,  0.+0.j]], dtype=complex64)
    """
    return _two_axes("fft.rfft2", FftType.RFFT, a, s, axes, norm)


@api_boundary
def irfft2(a, s=None, axes=(-2, -1), norm=None):
    """Inverse of ``rfft2`` (``s``: the real output's shape over ``axes``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.fft.irfft2(fnp.asarray([[10.0 + 0j, -2.0], [-4.0, 0.0]]), s=(2, 2))
        Array([[1., 2.],
               [3., 4.]], dtype=float32)
    """
    return _two_axes("fft.irfft2", FftType.IRFFT, a, s, axes, norm)


@host_shortcut(_fftn_on_host)
def fftn(a, s=None, axes=None, norm=None):
    """N-dimensional discrete Fourier transform over ``axes`` (default: the last
    ``len(s)`` axes, or all of them).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.fft.fftn(fnp.ones((2, 2, 2))).real
        Array([[[8., 0.],
                [0., 0.]],
        <BLANKLINE>
               [[0., 0.],
                [0., 0.]]], dtype=float32)
    """
    return transform("fft.fftn", FftType.FFT, a, s, axes, norm)


@host_shortcut(_ifftn_on_host)
def ifftn(a, s=None, axes=None, norm=None):
    """N-dimensional inverse discrete Fourier transform.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.fft.ifftn(fnp.asarray([[4.0, 0.0], [0.0, 0.0]])).real
        Array([[1., 1.],
               [1., 1.]], dtype=float32)
    """
    return transform("fft.ifftn", FftType.IFFT, a, s, axes, norm)


@host_shortcut(_rfftn_on_host)
def rfftn(a, s=None, axes=None, norm=None):
    """N-dimensional transform of a real input; the last of ``axes`` is halved to
    ``s[-1] // 2 + 1``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.fft.rfftn(fnp.ones((2, 4))).shape
        (2, 3)
    """
    return transform("fft.rfftn", FftType.RFFT, a, s, axes, norm)


@host_shortcut(_irfftn_on_host)
def irfftn(a, s=None, axes=None, norm=None):
    """Inverse of ``rfftn``: a real output of shape ``s`` over ``axes`` (default: the
    input's, with the last ``2 * (m - 1)``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> x = fnp.arange(6.0).reshape(2, 3)
        >>> fnp.fft.irfftn(fnp.fft.rfftn(x), s=x.shape).round(4)
        Array([[0., 1., 2.],
               [3., 4., 5.]], dtype=float32)
    """
    return transform("fft.irfftn", FftType.IRFFT, a, s, axes, norm)


# --- frequencies and shifts ------------------------------------------------------------------

def _freq_args(op: str, n, d, dtype):
    if isinstance(n, (list, tuple)):
        raise op_type_error(op, f"n must be an int, got {n!r}")
    try:
        n = operator.index(n)
    except TypeError:
        raise op_type_error(op, f"n must be an int, got {n!r}") from None
    if n < 1:
        raise op_value_error(op, f"n must be positive, got {n}")
    if isinstance(d, (list, tuple)):
        raise op_type_error(op, f"d must be a single number, got {d!r}")
    out = dtypes.default_float if dtype is None else dtypes.canonicalize_dtype(dtype)
    compute = out if dtypes.is_inexact(out) else dtypes.default_float
    if dtypes.is_complex(compute):
        compute = np.dtype(np.float64 if compute == dtypes.complex128 else np.float32)
    return n, compute, out


def _divide(op, k: np.ndarray, d, n: int, compute, out, device):
    # d * n is formed in Python (or by d's own type) and rounded to the dtype once, as JAX.
    result = asarray(k.astype(compute)) / asarray(d * n, dtype=compute)
    result = result.astype(out) if result.dtype != out else result
    return place(op, result, device)


@host_shortcut(_fftfreq_on_host)
def fftfreq(n, d=1.0, *, dtype=None, device=None):
    """The sample frequencies of an ``n``-point transform with sample spacing ``d``:
    ``[0, 1, ..., n // 2 - 1 (or n // 2 for odd n), -(n // 2), ..., -1] / (d * n)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.fft.fftfreq(4, d=0.5)
        Array([ 0. ,  0.5, -1. , -0.5], dtype=float32)
    """
    n, compute, out = _freq_args("fft.fftfreq", n, d, dtype)
    i = np.arange(n)
    return _divide("fft.fftfreq", (i + n // 2) % n - n // 2, d, n, compute, out, device)


@host_shortcut(_rfftfreq_on_host)
def rfftfreq(n, d=1.0, *, dtype=None, device=None):
    """The non-negative sample frequencies of ``rfft``: ``[0, 1, ..., n // 2] / (d * n)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.fft.rfftfreq(4)
        Array([0.  , 0.25, 0.5 ], dtype=float32)
    """
    n, compute, out = _freq_args("fft.rfftfreq", n, d, dtype)
    return _divide("fft.rfftfreq", np.arange(n // 2 + 1), d, n, compute, out, device)


def _shift(op: str, x, axes, sign: int):
    from funcarray.api.arguments import asarray_arg

    x = asarray_arg(op, x)
    if axes is None:
        axes = tuple(range(x.ndim))
    if isinstance(axes, (int, np.integer)):
        return roll(x, sign * (x.shape[axes] // 2), axes)
    axes = tuple(axes)
    if not axes:
        return x
    return roll(x, tuple(sign * (x.shape[a] // 2) for a in axes), axes)


@api_boundary
def fftshift(x, axes=None):
    """Move the zero frequency to the centre: roll each of ``axes`` (default all) by half
    its length.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.fft.fftshift(fnp.fft.fftfreq(5))
        Array([-0.4, -0.2,  0. ,  0.2,  0.4], dtype=float32)
    """
    return _shift("fft.fftshift", x, axes, 1)


@api_boundary
def ifftshift(x, axes=None):
    """Inverse of ``fftshift`` (they differ for odd lengths).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.fft.ifftshift(fnp.asarray([-2, -1, 0, 1, 2]))
        Array([ 0,  1,  2, -2, -1], dtype=int32)
    """
    return _shift("fft.ifftshift", x, axes, -1)
