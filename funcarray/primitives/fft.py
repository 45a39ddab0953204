"""``fft``: XLA's fast Fourier transform over the innermost axes (``stablehlo.fft``).

``fft(x, fft_type=FftType.X, fft_lengths=(n1, ..., nk))`` transforms the last ``k`` axes
(1 <= k <= 3, XLA's limit):

* ``FFT`` / ``IFFT``: complex64/complex128 in and out, the last axes equal to ``fft_lengths``;
  ``IFFT`` divides by ``prod(fft_lengths)``;
* ``RFFT``: float32/float64 in (last axes equal to ``fft_lengths``), complex out with the
  last axis halved to ``n // 2 + 1`` (the other half is the conjugate mirror image);
* ``IRFFT``: complex in, the last axis ``n // 2 + 1`` and the others equal to
  ``fft_lengths[:-1]``; real out of shape ``fft_lengths``. Only the last axis is taken as
  Hermitian (the imaginary parts of its zero and Nyquist frequencies are ignored), as NumPy.

Rules:

* eager: ``numpy.fft`` (``fftn``/``ifftn``/``rfftn``/``irfftn``) over the last axes, cast to
  XLA's result dtype (NumPy may compute single precision in double);
* JVP: linear;
* transpose (JAX's convention: a real-to-complex map transposes to the real part of the
  adjoint, a complex-to-real one to the conjugate): the DFT matrix is symmetric, so ``FFT`` and
  ``IFFT`` are their own transposes. ``RFFT`` keeps only the first ``n // 2 + 1`` rows of the
  DFT, so its transpose is ``Re(F^T ct)`` over those rows, which is an ``IRFFT`` of
  ``conj(ct)`` times ``n`` once the frequencies that ``IRFFT`` counts twice (all but the zero
  and, for even ``n``, the Nyquist one) are halved. ``IRFFT`` counts those frequencies twice
  and divides by ``n``, so its transpose is the conjugate of ``RFFT(ct)`` with the same
  weights (2 for the mirrored frequencies) over ``prod(fft_lengths)``;
* batching: a batch axis in front of the transformed axes stays where it is; one among them
  moves to the front;
* lowering: ``stablehlo.fft``. cuFFT's multi-dimensional complex-to-real transform assumes
  Hermitian symmetry along every axis, so for any platform but CPU a multi-axis ``IRFFT`` is
  lowered as an ``IFFT`` of the leading axes followed by a one-axis ``IRFFT`` (NumPy's
  definition, which the CPU op computes directly).

Example:
    >>> import funcarray.numpy as fnp
    >>> fft_p.bind(fnp.asarray([1.0, 2.0, 3.0, 4.0]), fft_type=FftType.RFFT, fft_lengths=(4,))
    Array([10.+0.j, -2.+2.j, -2.+0.j], dtype=complex64)
"""

from __future__ import annotations

import enum
import math

import numpy as np

from funcarray.base.array import Array
from funcarray.primitives import bind_ops as ops
from funcarray.transforms.core import Primitive, ShapedArray
from funcarray.transforms.jvp import Zero, deflinear
from funcarray.transforms.vmap import move_to_front

__all__ = ["fft_p", "FftType", "fft_output_type", "complex_dtype_for", "real_dtype_for"]


class FftType(enum.IntEnum):
    """The four transforms of ``lax.fft`` (JAX's ``jax.lax.FftType``)."""

    FFT = 0  # complex -> complex, forward
    IFFT = 1  # complex -> complex, inverse (divided by the number of points)
    RFFT = 2  # real -> complex, forward, last axis halved
    IRFFT = 3  # complex -> real, inverse of RFFT

    def __repr__(self):  # as IR printouts and error messages show parameters
        return f"FftType.{self.name}"


fft_p = Primitive("fft")

_OP = "lax.fft"
_REAL = {np.dtype(np.float32): np.dtype(np.complex64),
         np.dtype(np.float64): np.dtype(np.complex128)}
_COMPLEX = {c: r for r, c in _REAL.items()}


def _is_double(dtype: np.dtype) -> bool:
    """Whether a value of ``dtype`` is transformed in double precision: float64, complex128
    and 64-bit integers (computed in float64, as funcarray.numpy's ``to_inexact_dtype``)."""
    return dtype.itemsize == 8 if dtype.kind in "iub" else dtype in (np.float64, np.complex128)


def complex_dtype_for(dtype) -> np.dtype:
    """The complex dtype a value of ``dtype`` is transformed in (float64/int64 ->
    complex128, other reals -> complex64; complex dtypes stay)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        return dtype
    return np.dtype(np.complex128 if _is_double(dtype) else np.complex64)


def real_dtype_for(dtype) -> np.dtype:
    """The float dtype a real value of ``dtype`` is RFFT-transformed in: float64/int64 ->
    float64, other reals -> float32 (XLA has no narrower FFT)."""
    return np.dtype(np.float64 if _is_double(np.dtype(dtype)) else np.float32)


def fft_output_type(shape: tuple, dtype, fft_type: FftType, fft_lengths: tuple):
    """The result's (shape, dtype) of ``fft`` on an operand of ``shape`` and ``dtype``, or a
    TypeError/ValueError that names the rule broken and the fix."""
    from funcarray.base.errors import op_type_error, op_value_error

    dtype, k, lengths = np.dtype(dtype), len(fft_lengths), tuple(fft_lengths)
    if not 1 <= k <= 3:
        raise op_value_error(_OP, f"fft_lengths must have 1 to 3 entries (XLA transforms at "
                                  f"most 3 axes at once), got {lengths}")
    if any(n < 1 for n in lengths):
        raise op_value_error(_OP, f"fft_lengths must be positive, got {lengths}")
    if len(shape) < k:
        raise op_value_error(_OP, f"an operand of shape {shape} has fewer axes than "
                                  f"fft_lengths {lengths}: it transforms the last {k} axes")
    lead, last = tuple(shape[:len(shape) - k]), tuple(shape[len(shape) - k:])
    name = fft_type.name
    if fft_type == FftType.RFFT:
        if dtype not in _REAL:
            raise op_type_error(_OP, f"RFFT needs a float32 or float64 operand, got {dtype} "
                                     f"(convert it first, or use FFT for complex input)")
        if last != lengths:
            raise op_value_error(_OP, f"RFFT operand shape {shape} must end in fft_lengths "
                                      f"{lengths}; pad or slice the operand first")
        return lead + lengths[:-1] + (lengths[-1] // 2 + 1,), _REAL[dtype]
    if dtype not in _COMPLEX:
        raise op_type_error(_OP, f"{name} needs a complex64 or complex128 operand, got "
                                 f"{dtype} (convert it first, or use RFFT for real input)")
    if fft_type == FftType.IRFFT:
        want = lengths[:-1] + (lengths[-1] // 2 + 1,)
        if last != want:
            raise op_value_error(_OP, f"IRFFT operand shape {shape} must end in {want}: "
                                      f"fft_lengths {lengths} with the last one halved to "
                                      f"n // 2 + 1 = {want[-1]}")
        return lead + lengths, _COMPLEX[dtype]
    if last != lengths:
        raise op_value_error(_OP, f"{name} operand shape {shape} must end in fft_lengths "
                                  f"{lengths}; pad or slice the operand first")
    return tuple(shape), dtype


@fft_p.def_abstract_eval
def _fft_abstract_eval(x, *, fft_type, fft_lengths):
    shape, dtype = fft_output_type(tuple(x.shape), x.dtype, fft_type, fft_lengths)
    return ShapedArray(shape, dtype)


def fft_kernel(v: np.ndarray, fft_type: FftType, fft_lengths: tuple) -> np.ndarray:
    """The NumPy computation of ``fft`` on a NumPy value (result in XLA's dtype)."""
    if len(fft_lengths) == 1:
        # One axis: NumPy's 1-d functions, which its n-d ones call per axis (the same
        # results) after ~3 us of argument handling.
        if fft_type == FftType.FFT:
            out, dtype = np.fft.fft(v), v.dtype
        elif fft_type == FftType.IFFT:
            out, dtype = np.fft.ifft(v), v.dtype
        elif fft_type == FftType.RFFT:
            out, dtype = np.fft.rfft(v), _REAL[v.dtype]
        else:
            out, dtype = np.fft.irfft(v, n=fft_lengths[0]), _COMPLEX[v.dtype]
        return np.ascontiguousarray(out, dtype=dtype)
    axes = tuple(range(v.ndim - len(fft_lengths), v.ndim))
    if fft_type == FftType.FFT:
        out, dtype = np.fft.fftn(v, axes=axes), v.dtype
    elif fft_type == FftType.IFFT:
        out, dtype = np.fft.ifftn(v, axes=axes), v.dtype
    elif fft_type == FftType.RFFT:
        out, dtype = np.fft.rfftn(v, axes=axes), _REAL[v.dtype]
    else:
        out, dtype = np.fft.irfftn(v, s=fft_lengths, axes=axes), _COMPLEX[v.dtype]
    return np.ascontiguousarray(out, dtype=dtype)


@fft_p.def_impl
def _fft_impl(x, *, fft_type, fft_lengths):
    v = np.asarray(x._value)
    fft_output_type(v.shape, v.dtype, fft_type, fft_lengths)  # the same errors as jit
    return Array(fft_kernel(v, fft_type, fft_lengths))


deflinear(fft_p)


def _mirror_weights(n: int, count: int, dtype) -> np.ndarray:
    """Per frequency of a halved last axis (``count = n // 2 + 1`` entries): 2 for those
    standing for a conjugate pair of the full transform, 1 for the zero frequency and, for
    even ``n``, the Nyquist one (each its own mirror image)."""
    weights = np.full((count,), 2.0, dtype)
    weights[0] = 1.0
    if n % 2 == 0:
        weights[-1] = 1.0
    return weights


@fft_p.def_transpose
def _fft_transpose(ct, x, *, fft_type, fft_lengths):
    if type(ct) is Zero:
        return [None]
    if fft_type in (FftType.FFT, FftType.IFFT):  # the DFT matrix is symmetric
        return [fft_p.bind(ct, fft_type=fft_type, fft_lengths=fft_lengths)]
    n, total = fft_lengths[-1], math.prod(fft_lengths)
    if fft_type == FftType.RFFT:
        real = _COMPLEX[np.dtype(ct.dtype)]
        halved = ops.convert(Array((total / _mirror_weights(n, n // 2 + 1, np.float64))
                                   .astype(real)), ct.dtype)
        halved = ops.broadcast_to(halved, ct.shape)
        return [fft_p.bind(ops.mul(ops.conj(ct), halved), fft_type=FftType.IRFFT,
                           fft_lengths=fft_lengths)]
    real = np.dtype(ct.dtype)
    spectrum = fft_p.bind(ct, fft_type=FftType.RFFT, fft_lengths=fft_lengths)
    doubled = ops.convert(Array((_mirror_weights(n, n // 2 + 1, np.float64) / total)
                                .astype(real)), spectrum.dtype)
    return [ops.conj(ops.mul(spectrum, ops.broadcast_to(doubled, spectrum.shape)))]


@fft_p.def_batch
def _fft_batch(vals, dims, *, fft_type, fft_lengths):
    (x,), (d,) = vals, dims
    if d >= x.ndim - len(fft_lengths):  # the batch axis is one of the transformed axes
        x, d = move_to_front(x, d, x.shape[d]), 0
    return fft_p.bind(x, fft_type=fft_type, fft_lengths=fft_lengths), d


def _fft_op(ctx, x, aval_out, fft_type: FftType, lengths: tuple) -> str:
    attributes = {"fft_type": f"#stablehlo<fft_type {fft_type.name}>",
                  "fft_length": "array<i64: " + ", ".join(str(int(n)) for n in lengths) + ">"}
    return ctx.op("stablehlo.fft", x, results=[aval_out], attributes=attributes)[0]


def _transpose_op(ctx, x, aval_out, perm) -> str:
    attributes = {"permutation": "array<i64: " + ", ".join(str(p) for p in perm) + ">"}
    return ctx.op("stablehlo.transpose", x, results=[aval_out], attributes=attributes)[0]


@fft_p.def_lower
def _fft_lower(ctx, x, *, fft_type, fft_lengths):
    (aval_in,), (aval_out,) = ctx.avals_in, ctx.avals_out
    if fft_type != FftType.IRFFT or len(fft_lengths) == 1 or ctx.platform == "cpu":
        return [_fft_op(ctx, x, aval_out, fft_type, fft_lengths)]
    # IFFT over the leading transformed axes (the halved axis moved in front of them), then a
    # one-axis IRFFT: Hermitian symmetry assumed along the last axis only, on every backend.
    shape, rank, start = tuple(aval_in.shape), len(aval_in.shape), \
        len(aval_in.shape) - len(fft_lengths)
    perm = list(range(rank))
    perm.insert(start, perm.pop())
    moved_aval = ShapedArray(tuple(shape[p] for p in perm), aval_in.dtype)
    moved = _transpose_op(ctx, x, moved_aval, perm)
    moved = _fft_op(ctx, moved, moved_aval, FftType.IFFT, fft_lengths[:-1])
    back = [int(i) for i in np.argsort(perm)]
    x = _transpose_op(ctx, moved, ShapedArray(shape, aval_in.dtype), back)
    return [_fft_op(ctx, x, aval_out, FftType.IRFFT, fft_lengths[-1:])]
