"""Spherical harmonics ``sph_harm_y(n, m, theta, phi)`` (scipy's argument order, JAX's
``n_max``).

``Y_n^m = Pbar_n^|m|(cos theta) e^(i |m| phi)``, and ``(-1)^m conj(Y_n^|m|)`` for ``m < 0``,
with the orthonormalised associated Legendre functions ``Pbar`` (Condon-Shortley phase
included) by the standard stable recurrences, per element and in one ``fori_loop`` over the
degree ``j = 1..n_max``:

* up the diagonal, ``Pbar_j^j = -sqrt(1 + 1/(2j)) sin(theta) Pbar_(j-1)^(j-1)`` from
  ``Pbar_0^0 = 1 / (2 sqrt(pi))``, while ``j <= |m|``;
* then in degree, ``Pbar_j^m = a_j cos(theta) Pbar_(j-1)^m - b_j Pbar_(j-2)^m`` with
  ``a_j = sqrt((4j^2 - 1) / (j^2 - m^2))`` and
  ``b_j = sqrt((2j + 1) ((j-1)^2 - m^2) / ((2j - 3) (j^2 - m^2)))``, while ``j <= n``.

That is ``O(n_max)`` work per element where JAX builds the whole ``(n_max+1)^2`` table for
every point. ``sin(theta)`` is computed directly (JAX uses ``sqrt(1 - cos^2)``, which loses
the relative precision near the poles). As in JAX, ``n`` and ``|m|`` are clipped to ``n_max``
and the result is 0 where ``|m| > n``. The inputs broadcast against each other. Derivatives
in ``theta`` and ``phi`` come from autodiff of the loop.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from funcarray import numpy as fnp
from funcarray.api.arguments import asarray_arg
from funcarray.base import dtypes
from funcarray.base.errors import api_boundary, op_type_error, op_value_error
from funcarray.scipy._special_arguments import float_args
from funcarray.transforms.core import Tracer

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["sph_harm_y"]


def _legendre_normalized(n, m, x, s, n_max):
    """``Pbar_n^m(x)`` with ``x = cos(theta)``, ``s = sin(theta) >= 0`` (``n``, ``m`` >= 0 as
    floats, at most ``n_max``)."""
    from funcarray import lax

    def step(j, carry):
        previous, current = carry
        jf = j.astype(x.dtype)
        on_diagonal = jf <= m
        in_degree = (jf > m) & (jf <= n)
        diagonal = -fnp.sqrt(1 + 0.5 / jf) * s * current
        gap = fnp.where(in_degree, jf * jf - m * m, 1.0)
        a = fnp.sqrt((4 * jf * jf - 1) / gap)
        b = fnp.sqrt((2 * jf + 1) * fnp.maximum((jf - 1) * (jf - 1) - m * m, 0.0)
                     / (fnp.abs(2 * jf - 3) * gap))
        recurrence = a * x * current - b * previous
        return (fnp.where(in_degree, current, previous),
                fnp.where(on_diagonal, diagonal, fnp.where(in_degree, recurrence, current)))

    start = (fnp.zeros_like(x), fnp.full_like(x, 0.5 / math.sqrt(math.pi)))
    _, value = lax.fori_loop(1, n_max + 1, step, start)
    return fnp.where(m > n, 0.0, value)


def _int_arg(op, name, value):
    value = asarray_arg(op, value)
    if not (dtypes.is_integer(value.dtype) or value.dtype == np.bool_):
        raise op_type_error(op, f"{name} must be an integer array, got {value.dtype}")
    return value


@api_boundary
def sph_harm_y(n: ArrayLike, m: ArrayLike, theta: ArrayLike, phi: ArrayLike,
               diff_n: int | None = None, n_max: int | None = None) -> Array:
    """Spherical harmonics ``Y_n^m(theta, phi)`` of degree ``n >= 0`` and order
    ``|m| <= n`` at colatitude ``theta`` in ``[0, pi]`` and longitude ``phi``.

    ``n_max`` is the largest degree (static); by default ``max(n)``, which needs a concrete
    ``n`` (pass ``n_max`` under ``jit``). Degrees and orders above ``n_max`` are clipped to
    it. ``diff_n`` is not supported (as in JAX). The result is complex128 for float64 angles,
    complex64 otherwise.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import sph_harm_y
        >>> sph_harm_y(fnp.asarray([0, 1, 2]), fnp.asarray([0, 1, -2]),
        ...            fnp.asarray([0.5, 1.0, 2.0]), fnp.asarray([0.0, 0.5, 1.0])).round(4)
        Array([ 0.2821    +0.j        , -0.25509998-0.13939999j,
               -0.1329    -0.2904j    ], dtype=complex64)
    """
    op = "sph_harm_y"
    if diff_n is not None:
        raise NotImplementedError("sph_harm_y: the 'diff_n' argument is not supported "
                                  "(as in jax.scipy.special.sph_harm_y); leave it None")
    n = _int_arg(op, "n", n)
    m = _int_arg(op, "m", m)
    theta, phi = float_args(op, theta, phi)
    if n_max is None:
        if isinstance(n, Tracer):
            raise op_type_error(op, "n_max must be given when n is traced (under jit, vmap "
                                    "or grad): the loop length max(n) must be static")
        n_max = int(np.max(np.asarray(n))) if n.size else 0
    try:
        n_max = int(n_max)
    except TypeError:
        raise op_type_error(op, f"n_max must be a concrete Python int, got "
                                f"{type(n_max).__name__}") from None
    if n_max < 0:
        raise op_value_error(op, f"n_max must be non-negative, got {n_max}")
    n, m, theta, phi = fnp.broadcast_arrays(n, m, theta, phi)
    if np.dtype(theta.dtype).itemsize < 4:  # no complex type below complex64
        theta, phi = theta.astype(np.float32), phi.astype(np.float32)
    real = theta.dtype
    abs_m = fnp.abs(m)
    degree = fnp.minimum(n, n_max).astype(real)
    order = fnp.minimum(abs_m, n_max).astype(real)
    legendre = _legendre_normalized(degree, order, fnp.cos(theta), fnp.abs(fnp.sin(theta)),
                                    n_max)
    angle = abs_m.astype(real) * phi
    negative = m < 0
    sign = fnp.where(negative & (abs_m % 2 == 1), -1.0, 1.0)
    real_part = sign * legendre * fnp.cos(angle)
    imag_part = fnp.where(negative, -sign, sign) * legendre * fnp.sin(angle)
    from funcarray import lax

    return lax.complex(real_part, imag_part)
