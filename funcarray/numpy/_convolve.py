"""``convolve`` and ``correlate`` of 1-d arrays (NumPy's, as ``jax.numpy`` computes them: one
``lax.conv_general_dilated``, so they differentiate, vectorise and compile). Eager host
arrays of float and complex dtypes take a host shortcut (``transforms/host_shortcuts.py``)
that calls the convolution kernel's einsum itself, on operands of the kernel's layout
(``primitives/convolution.py``; the differential tests hold the two together).

Example:
    >>> import funcarray.numpy as fnp
    >>> fnp.convolve(fnp.asarray([1.0, 2.0, 3.0]), fnp.asarray([0.0, 1.0, 0.5]))
    Array([0. , 1. , 2.5, 4. , 1.5], dtype=float32)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import asarray_arg, convert, to_inexact_dtype
from funcarray.base import dtypes
from funcarray.base.array import new_array
from funcarray.base.errors import op_value_error
from funcarray.numpy._math_functions import conj
from funcarray.numpy._rearranging import flip
from funcarray.primitives import elementwise as ew
from funcarray.primitives.convolution import contract_windows
from funcarray.transforms.host_shortcuts import host_shortcut, host_value

if TYPE_CHECKING:
    from typing import Any

    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike, DTypeLike

__all__ = ["convolve", "correlate"]

_MODES = ("full", "same", "valid")


def _padding(mode: str, k: int) -> tuple:
    """The (lo, hi) zero padding of the longer operand for a kernel of length ``k``."""
    if mode == "full":
        return k - 1, k - 1
    return (k // 2, k - k // 2 - 1) if mode == "same" else (0, 0)


def _conv1d(op: str, a, v, mode: str, precision, preferred_element_type):
    from funcarray import lax

    a, v = asarray_arg(op, a), asarray_arg(op, v)
    if a.ndim != 1 or v.ndim != 1:
        raise op_value_error(op, f"takes 1-d arrays, got shapes {tuple(a.shape)} and "
                                 f"{tuple(v.shape)}")
    if a.shape[0] == 0 or v.shape[0] == 0:
        raise op_value_error(op, f"inputs cannot be empty, got shapes {tuple(a.shape)} and "
                                 f"{tuple(v.shape)}")
    if mode not in _MODES:
        raise op_value_error(op, f"mode must be one of {list(_MODES)}, got {mode!r}")
    dtype = dtypes.result_type(a, v)
    if preferred_element_type is None:  # NumPy computes convolutions in an inexact dtype
        dtype = to_inexact_dtype(dtype)
    a, v = convert(a, dtype), convert(v, dtype)
    reverse = False
    if op == "correlate":
        v = conj(v)
        if a.shape[0] < v.shape[0]:  # NumPy's rule: the longer one slides, result reversed
            a, v, reverse = v, a, True
    else:
        if a.shape[0] < v.shape[0]:
            a, v = v, a
        v = flip(v)
    out = lax.conv_general_dilated(a[None, None, :], v[None, None, :], (1,),
                                   [_padding(mode, v.shape[0])],
                                   precision=precision,
                                   preferred_element_type=preferred_element_type)[0, 0]
    return out[::-1] if reverse else out


# Strong host operands of these dtypes take the shortcut (mixed ones promote as NumPy's
# promote_types does, which is the general path's promotion among them).
_SHORTCUT_DTYPES = frozenset(map(np.dtype, (np.float32, np.float64, np.complex64,
                                            np.complex128)))


def _conv1d_on_host(op: str, a, v, mode, precision, preferred_element_type):
    """The general path's convolution kernel, its one ``np.einsum``, called directly: the
    same operands with the same strides (the einsum's loop, and so its rounding, depends on
    them: the flipped kernel of ``convolve`` keeps its negative stride), without the lax
    wrapper, the binds and the strided window view's Python."""
    av, vv = host_value(a), host_value(v)
    if (av is None or vv is None or precision is not None or preferred_element_type is not None
            or a._weak or v._weak or av.ndim != 1 or vv.ndim != 1):
        return NotImplemented
    if av.dtype != vv.dtype:
        if av.dtype not in _SHORTCUT_DTYPES or vv.dtype not in _SHORTCUT_DTYPES:
            return NotImplemented
        dt = np.promote_types(av.dtype, vv.dtype)
        av, vv = av.astype(dt, copy=False), vv.astype(dt, copy=False)  # (as convert)
    elif av.dtype not in _SHORTCUT_DTYPES:
        return NotImplemented
    n, k = av.shape[0], vv.shape[0]
    reverse = False
    if op == "correlate":
        if vv.dtype.kind == "c":
            vv = ew.conj_p.kernel(vv)
        if n < k:  # NumPy's rule: the longer one slides, result reversed
            av, vv, n, k, reverse = vv, av, k, n, True
    else:
        if n < k:
            av, vv, n, k = vv, av, k, n
        vv = vv[::-1]  # (flip's kernel: a view)
    if not k:
        return NotImplemented
    if mode == "valid":
        x = av
    elif mode == "full" or mode == "same":
        lo, hi = _padding(mode, k)
        x = np.zeros(n + lo + hi, av.dtype)  # (zeros and one assignment, as the kernel pads)
        x[lo:lo + n] = av
    else:
        return NotImplemented
    out = _einsum_of_windows(x, vv)
    return new_array(out[::-1] if reverse else out)


def _einsum_of_windows(x, w):
    """The kernel's einsum of the windows of ``x`` (at least as long as ``w``) with ``w``,
    its operands of the kernel's shapes and strides."""
    k = w.shape[0]
    positions = x.shape[0] - k + 1
    if positions == 1:
        windows = x.reshape(1, 1, 1, 1, k)
    else:
        step = x.strides[0]
        shape = (1, 1, 1, positions, k)
        if step == x.itemsize:
            windows = np.ndarray(shape, x.dtype, x, 0, (0, 0, 0, step, step))
        else:
            windows = np.lib.stride_tricks.as_strided(x, shape, (0, 0, 0, step, step),
                                                      writeable=False)
    w = w.reshape(1, 1, 1, k)
    return contract_windows("ngcph,goch->ngop", windows, w, positions * k).reshape(positions)


def _convolve_on_host(a, v, mode="full", *, precision=None, preferred_element_type=None):
    return _conv1d_on_host("convolve", a, v, mode, precision, preferred_element_type)


def _correlate_on_host(a, v, mode="valid", *, precision=None, preferred_element_type=None):
    return _conv1d_on_host("correlate", a, v, mode, precision, preferred_element_type)


@host_shortcut(_convolve_on_host)
def convolve(a: ArrayLike, v: ArrayLike, mode: str = "full", *, precision: Any = None,
             preferred_element_type: DTypeLike | None = None) -> Array:
    """The discrete convolution of two 1-d arrays (``mode``: ``"full"``, ``"same"`` or
    ``"valid"``, as ``numpy.convolve``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.convolve(fnp.asarray([1.0, 2.0, 3.0]), fnp.asarray([1.0, 1.0]), mode="valid")
        Array([3., 5.], dtype=float32)
    """
    return _conv1d("convolve", a, v, mode, precision, preferred_element_type)


@host_shortcut(_correlate_on_host)
def correlate(a: ArrayLike, v: ArrayLike, mode: str = "valid", *, precision: Any = None,
              preferred_element_type: DTypeLike | None = None) -> Array:
    """The cross-correlation of two 1-d arrays (``v`` conjugated, as ``numpy.correlate``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.correlate(fnp.asarray([1.0, 2.0, 3.0]), fnp.asarray([0.0, 1.0, 0.5]))
        Array([3.5], dtype=float32)
    """
    return _conv1d("correlate", a, v, mode, precision, preferred_element_type)
