"""Host shortcuts of ``funcarray.numpy.fft``'s one-axis transforms, its n-d transforms with
their defaults, and sample frequencies (``funcarray.transforms.host_shortcuts``): the general
path's NumPy kernels at once.

A one-axis transform's general path parses ``n``/``axis``/``norm``, converts the operand
(``convert_element_type``), binds ``fft`` (whose kernel is ``fft_kernel``) and, for ``hfft``
and ``ihfft``, binds a conjugate and a scaling multiply: ~10-15 us around a kernel of a few
microseconds for a small operand. The shortcuts here take the common form only: a host array
(``Array``, ``DeviceArray``) transformed along its last axis with the default length and
normalisation (``fftn``, ``ifftn``, ``rfftn``, ``irfftn``: along all of its one to three
axes, one ``fft`` bind in the general path); they run the same kernels in the same order
(the conversion, the transform, the conjugate, the product by the length converted to the
result's dtype as a weak Python float is), so the bits are the general path's.
``fftfreq``/``rfftfreq`` divide the same integer frequencies by the same rounded ``d * n``
with the divide kernel. Anything else returns ``NotImplemented`` (the general path runs and
raises its own errors).

Example:
    >>> import funcarray.numpy as fnp
    >>> _fft_on_host(fnp.asarray([1.0, 1.0]))
    Array([2.+0.j, 0.+0.j], dtype=complex64)
    >>> _fft_on_host(fnp.asarray([1.0, 1.0]), norm="ortho")  # scaled: the general path
    NotImplemented
"""

from __future__ import annotations

import numpy as np

from funcarray.base import dtypes
from funcarray.base.array import Array, new_array
from funcarray.primitives.conversions import convert_kernel
from funcarray.primitives.elementwise import div_p
from funcarray.primitives.fft import FftType, complex_dtype_for, fft_kernel, real_dtype_for
from funcarray.transforms.host_shortcuts import host_value

__all__ = ["_fft_on_host", "_ifft_on_host", "_rfft_on_host", "_irfft_on_host", "_hfft_on_host",
           "_ihfft_on_host", "_fftn_on_host", "_ifftn_on_host", "_rfftn_on_host",
           "_irfftn_on_host", "_fftfreq_on_host", "_rfftfreq_on_host"]

_NORMS = (None, "backward")


def _last_axis(a, n, axis, norm):
    """The value of a host array of at least one axis transformed along its last axis with
    the default length and norm, or None."""
    x = host_value(a)
    if (x is None or n is not None or type(axis) is not int or x.ndim == 0
            or (axis != -1 and axis != x.ndim - 1) or norm not in _NORMS or x.shape[-1] < 1):
        return None
    return x


def _transform(kind, a, n, axis, norm):
    x = _last_axis(a, n, axis, norm)
    return NotImplemented if x is None else _transformed(kind, x, (x.shape[-1],))


def _transformed(kind, x, lengths):
    """``kind`` of the value ``x`` over its last ``len(lengths)`` axes (1 to 3), each as long
    as ``x``'s: the conversion kernel, then the fft kernel, as the general path's binds (an
    IRFFT's real output is ``2 * (m - 1)`` long along the last axis)."""
    if kind is FftType.RFFT:
        if x.dtype.kind == "c":
            return NotImplemented
        v = convert_kernel(x, real_dtype_for(x.dtype))
    else:
        v = convert_kernel(x, complex_dtype_for(x.dtype))
        if kind is FftType.IRFFT:
            lengths = (*lengths[:-1], 2 * (lengths[-1] - 1))
            if lengths[-1] < 1:
                return NotImplemented
    return new_array(fft_kernel(v, kind, lengths))


def _all_axes(kind, a, s, axes, norm):
    """The n-d transforms with their defaults (every axis of a 1- to 3-d host array, its own
    lengths, no scaling): one fft over all of them, as the general path binds."""
    x = host_value(a)
    if (x is None or s is not None or axes is not None or norm not in _NORMS
            or not 1 <= x.ndim <= 3 or 0 in x.shape):
        return NotImplemented
    return _transformed(kind, x, x.shape)


def _fftn_on_host(a, s=None, axes=None, norm=None):
    return _all_axes(FftType.FFT, a, s, axes, norm)


def _ifftn_on_host(a, s=None, axes=None, norm=None):
    return _all_axes(FftType.IFFT, a, s, axes, norm)


def _rfftn_on_host(a, s=None, axes=None, norm=None):
    return _all_axes(FftType.RFFT, a, s, axes, norm)


def _irfftn_on_host(a, s=None, axes=None, norm=None):
    return _all_axes(FftType.IRFFT, a, s, axes, norm)


def _fft_on_host(a, n=None, axis=-1, norm=None):
    return _transform(FftType.FFT, a, n, axis, norm)


def _ifft_on_host(a, n=None, axis=-1, norm=None):
    return _transform(FftType.IFFT, a, n, axis, norm)


def _rfft_on_host(a, n=None, axis=-1, norm=None):
    return _transform(FftType.RFFT, a, n, axis, norm)


def _irfft_on_host(a, n=None, axis=-1, norm=None):
    return _transform(FftType.IRFFT, a, n, axis, norm)


def _times_weak_float(value, factor: float):
    """``value * factor`` for a Python float ``factor``: converted to ``value``'s dtype (as a
    weak scalar is), then the multiply kernel."""
    return Array(np.multiply(value, np.asarray(factor, value.dtype)))


def _hfft_on_host(a, n=None, axis=-1, norm=None):
    x = _last_axis(a, n, axis, norm)
    if x is None:
        return NotImplemented
    length = 2 * (x.shape[-1] - 1)
    if length < 1:
        return NotImplemented
    v = convert_kernel(x, complex_dtype_for(x.dtype))
    out = fft_kernel(np.conjugate(v), FftType.IRFFT, (length,))
    return _times_weak_float(out, float(length))


def _ihfft_on_host(a, n=None, axis=-1, norm=None):
    x = _last_axis(a, n, axis, norm)
    if x is None or x.dtype.kind == "c":
        return NotImplemented
    length = x.shape[-1]
    out = fft_kernel(convert_kernel(x, real_dtype_for(x.dtype)), FftType.RFFT, (length,))
    return _times_weak_float(np.conjugate(out), 1.0 / length)


def _frequencies(k_of_n, n, d, dtype, device):
    """``k / (d * n)`` in the default float (or ``dtype``, a real float) with the divide
    kernel; None for anything the general path must check or convert."""
    if (type(n) is not int or n < 1 or device is not None
            or not (type(d) is float or (type(d) is int and abs(d * n) < 1 << 24))):
        return NotImplemented
    compute = dtypes.default_float if dtype is None else dtypes.canonicalize_dtype(dtype)
    if not dtypes.is_float(compute) or compute.kind != "f":
        return NotImplemented  # an integer or complex dtype: converted after
    k = k_of_n(n).astype(compute)
    return Array(div_p.kernel(k, np.asarray(d * n, compute)))


def _signed_frequencies(n):
    """``(arange(n) + n // 2) % n - n // 2``, the general path's integers, in two steps."""
    k = np.arange(n)
    k[(n + 1) // 2:] -= n
    return k


def _fftfreq_on_host(n, d=1.0, *, dtype=None, device=None):
    return _frequencies(_signed_frequencies, n, d, dtype, device)


def _rfftfreq_on_host(n, d=1.0, *, dtype=None, device=None):
    return _frequencies(lambda n: np.arange(n // 2 + 1), n, d, dtype, device)
