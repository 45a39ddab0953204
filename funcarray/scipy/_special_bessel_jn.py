"""Bessel functions of the first kind of integer order, ``bessel_jn`` (JAX's signature: all
orders ``0..v`` at once, ``n_iter`` recurrence steps).

Miller's backward recurrence, as in JAX (Zhang & Jin's BJNDD): ``f_k = 2 (k+1) f_(k+1) / z -
f_(k+2)`` from ``k = n_iter`` down to 0, started from ``f = (0, 1)``, then normalised with
``J_0 + 2 J_2 + 2 J_4 + ... = 1``. Written as one ``lax.scan``, so grad, vmap and jit compose
(the derivatives are those of the recurrence, as in JAX). Two fixes of our own, where JAX
returns NaN: the state is renormalised whenever it exceeds 1 (the recurrence grows like
``(2k / z)^k`` and overflowed float32 for ``|z| < ~2``; the factors are constants to autodiff,
which is exact because the result does not depend on the scale), and for
``|z| < sqrt(eps)`` (``z = 0`` included) the leading term ``(z/2)^k / k!`` is used (relative
error ``z^2 / 4``), so ``J_0(0) = 1`` and ``J_k(0) = 0``. As in JAX, ``n_iter`` must exceed
``|z|`` by a margin for the result to be accurate (see the docstring's rule of thumb).
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING

import numpy as np

from funcarray import numpy as fnp
from funcarray.api.arguments import asarray_arg
from funcarray.api.autodiff import stop_gradient
from funcarray.base.errors import api_boundary, op_type_error, op_value_error
from funcarray.lax._special_dtypes import float_arg, weak_result
from funcarray.scipy._special_arguments import finfo

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["bessel_jn"]


def _scan(step, init, xs, reverse):
    from funcarray import lax  # funcarray.lax imports this package's modules: import late

    return lax.scan(step, init, xs, reverse=reverse)


def _miller(z, rows, n_iter):
    """``J_0..J_(rows-1)`` at ``z != 0`` by the normalised backward recurrence."""
    def step(carry, k):
        f_next2, f_next, total = carry
        f = 2 * (k + 1) * f_next / z - f_next2
        total = total + fnp.where(fnp.fmod(k, 2.0) == 0, 2 * f, 0.0)
        magnitude = stop_gradient(fnp.maximum(fnp.abs(f), 1.0))
        return (f_next / magnitude, f / magnitude, total / magnitude), (f / magnitude,
                                                                         magnitude)

    orders = fnp.arange(n_iter + 1, dtype=z.dtype)
    zero = fnp.zeros_like(z)
    (_, f0, total), (values, magnitudes) = _scan(step, (zero, fnp.ones_like(z), zero), orders,
                                                 reverse=True)
    # values[k] is divided by the scale factors of the steps n_iter..k, the final state by
    # all of them: divide values[k] by those of the steps below k as well.
    norm = total - f0
    out, scale = [], 1 / norm
    for k in range(rows):
        if k:
            scale = scale / magnitudes[k - 1]
        out.append(values[k] * scale)
    return fnp.stack(out)


def _leading_terms(z, rows):
    """``(z/2)^k / k!`` for ``k < rows``."""
    term = fnp.ones_like(z)
    terms = [term]
    for k in range(1, rows):
        term = term * (0.5 * z) / k
        terms.append(term)
    return fnp.stack(terms)


def _bessel_jn_value(z, v, n_iter):
    rows = min(v, n_iter) + 1  # as JAX: the orders the recurrence reached
    tiny = fnp.abs(z) < float(np.sqrt(finfo(z).eps))
    recurrence = _miller(fnp.where(tiny, 1.0, z), rows, n_iter)
    return fnp.where(tiny[None], _leading_terms(fnp.where(tiny, z, 0.0), rows), recurrence)


@api_boundary
def bessel_jn(z: ArrayLike, *, v: ArrayLike, n_iter: int = 50) -> Array:
    """Bessel functions of the first kind ``J_0(z), ..., J_v(z)`` of real ``z``, stacked on a
    new leading axis: shape ``(v + 1, *z.shape)``.

    ``n_iter`` is the number of backward-recurrence steps; it must exceed ``|z|`` (as a rule
    of thumb, the smallest ``n_iter`` with ``int(0.5 * log10(6.28 + n_iter) - n_iter *
    log10(1.36 + abs(z) / n_iter)) > 20``). Only ``min(v, n_iter) + 1`` orders are returned.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import bessel_jn
        >>> bessel_jn(fnp.asarray([0.0, 1.0, 2.5]), v=2).round(4)
        Array([[ 1.        ,  0.76519996, -0.0484    ],
               [ 0.        ,  0.44009998,  0.4971    ],
               [ 0.        ,  0.1149    ,  0.4461    ]], dtype=float32)
    """
    op = "bessel_jn"
    try:
        v = operator.index(v)
    except TypeError:
        raise op_type_error(op, f"v must be a concrete Python int (the largest order), got "
                                f"{type(v).__name__}") from None
    if v < 0:
        raise op_value_error(op, f"v must be non-negative, got {v}")
    try:
        n_iter = int(n_iter)
    except TypeError:
        raise op_type_error(op, f"n_iter must be a concrete Python int, got "
                                f"{type(n_iter).__name__}") from None
    if n_iter < 0:
        raise op_value_error(op, f"n_iter must be non-negative, got {n_iter}")
    z_array = asarray_arg(op, z)
    if z_array.dtype.kind == "c":
        raise op_value_error(op, f"complex inputs are not supported, got {z_array.dtype}; "
                                 "pass the real part (fnp.real) if that is what you mean")
    return weak_result(lambda x: _bessel_jn_value(x, v, n_iter), [float_arg(op, z_array)])
