"""``funcarray.scipy.linalg.hessenberg``: reduction to upper Hessenberg form.

Householder reflections with LAPACK ``gehrd``'s conventions (``zlarfg``'s
``beta = -sign(re(alpha)) * norm``; no reflection when the column below the subdiagonal is
already zero and ``alpha`` is real: a complex matrix gets a real subdiagonal), so the factors
equal JAX's (which calls ``gehrd`` on CPU) to rounding, not just up to signs. Composed from
funcarray operations in a ``fori_loop`` of masked whole-matrix updates (as the portable QR),
so it runs eagerly, jits on every backend, differentiates and vectorises; leading axes are
batch axes.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.scipy.linalg import hessenberg
    >>> hessenberg(fnp.asarray([[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 3.0]]))
    Array([[1., 0., 0.],
           [0., 2., 0.],
           [0., 0., 3.]], dtype=float32)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import funcarray.numpy as fnp
from funcarray.api.arguments import asarray_arg, convert, to_inexact_dtype
from funcarray.base import dtypes
from funcarray.base.errors import api_boundary, op_type_error, op_value_error
from funcarray.lax import fori_loop

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["hessenberg"]


def _reflect_column(j, a, q, rows, complex_: bool):
    """One ``gehrd`` step: the reflector that zeroes column ``j`` below the subdiagonal,
    applied as ``a <- H^H a H`` and ``q <- q H``."""
    column = fnp.sum(fnp.where(fnp.arange(a.shape[-1]) == j, a, 0), axis=-1)  # a[..., :, j]
    alpha = fnp.sum(fnp.where(rows == j + 1, column, 0), axis=-1)
    below = fnp.where(rows > j + 1, column, 0)
    below_norm2 = fnp.sum(fnp.real(below * fnp.conj(below)), axis=-1)
    reflect = below_norm2 > 0
    if complex_:
        reflect = reflect | (fnp.imag(alpha) != 0)
    alpha_re = fnp.real(alpha)
    norm2 = alpha_re * alpha_re + below_norm2 + (fnp.imag(alpha) ** 2 if complex_ else 0)
    # (a safe square root: no reflection means no derivative through the norm)
    beta = -fnp.copysign(fnp.sqrt(fnp.where(reflect, norm2, 1)), alpha_re).astype(a.dtype)
    safe_beta = fnp.where(reflect, beta, 1)
    tau = fnp.where(reflect, (beta - alpha) / safe_beta, 0)
    scale = 1 / fnp.where(reflect, alpha - beta, 1)
    v = fnp.where(rows == j + 1, 1, below * scale[..., None]).astype(a.dtype)
    tau = tau[..., None, None]
    v_col, v_row_h = v[..., :, None], fnp.conj(v)[..., None, :]
    a = a - fnp.conj(tau) * v_col * fnp.matmul(v_row_h, a)  # H^H a
    a = a - tau * fnp.matmul(a, v_col) * v_row_h  # (H^H a) H
    q = q - tau * fnp.matmul(q, v_col) * v_row_h
    return a, q


@api_boundary
def hessenberg(a: ArrayLike, *, calc_q: bool = False, overwrite_a: bool = False,
               check_finite: bool = True) -> Array | tuple[Array, Array]:
    """The upper Hessenberg form ``h`` of a (batched) square matrix, and with ``calc_q`` the
    unitary ``q`` with ``a = q @ h @ q^H`` (LAPACK ``gehrd``'s factors, as JAX).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.linalg import hessenberg
        >>> a = fnp.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 10.0]])
        >>> h, q = hessenberg(a, calc_q=True)
        >>> fnp.allclose(q @ h @ q.T, a, atol=1e-5).item(), float(h[2, 0])
        (True, 0.0)
    """
    op = "scipy.linalg.hessenberg"
    x = asarray_arg(op, a)
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise op_value_error(op, f"a must be a (batched) square matrix, got shape {x.shape}")
    dtype = to_inexact_dtype(x.dtype)
    if dtype not in (dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128):
        raise op_type_error(op, f"a must be float32/float64/complex64/complex128 (or integer), "
                                f"got {x.dtype}; convert it with .astype(float32)")
    x = convert(x, dtype)
    n = x.shape[-1]
    if n == 0:
        return (fnp.zeros_like(x), fnp.zeros_like(x)) if calc_q else fnp.zeros_like(x)
    rows = fnp.arange(n)
    q = fnp.broadcast_to(fnp.eye(n, dtype=dtype), x.shape)
    complex_ = dtypes.is_complex(dtype)

    def step(j, carry):
        return _reflect_column(j, *carry, rows, complex_)

    # n - 1 reflectors as gehrd: for complex input the last one (on one entry) makes the last
    # subdiagonal entry real; for real input it is the identity.
    h, q = fori_loop(0, n - 1, step, (x, q))
    h = fnp.triu(h, -1)  # the annihilated entries hold rounding noise
    return (h, q) if calc_q else h
