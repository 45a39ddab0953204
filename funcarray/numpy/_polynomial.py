"""Polynomials as 1-D coefficient arrays, highest power first (NumPy's legacy ``numpy.poly*``
API, as ``jax.numpy`` has it): ``poly``, ``polyadd``, ``polysub``, ``polymul``, ``polydiv``,
``polyder``, ``polyint``, ``polyval``, ``polyfit`` and ``vander``.

Everything is a composition of funcarray operations with static shapes (the degree is part of
the shape), so these work eagerly and under ``jit``/``grad``/``vmap``. ``polyval`` is Horner's
rule in a ``lax.scan``; ``polyfit`` solves the column-scaled Vandermonde least-squares problem
with ``linalg.lstsq`` (an SVD). ``roots`` (and ``poly`` of a square matrix) take the
eigenvalues of the companion matrix with ``linalg.eigvals``, as jax.numpy does.

Example:
    >>> import funcarray.numpy as fnp
    >>> fnp.polyval(fnp.array([1.0, 0.0, -2.0]), fnp.array([0.0, 1.0, 2.0]))
    Array([-2., -1.,  2.], dtype=float32)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, overload

import numpy as np

from funcarray.api.arguments import _concrete_int
from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.numpy._convolve import convolve
from funcarray.numpy._creation import arange, asarray, ones, ones_like, zeros
from funcarray.numpy._diagonals import diag
from funcarray.numpy._elementwise import where
from funcarray.numpy._index_routines import take
from funcarray.numpy._linalg import outer
from funcarray.numpy._linalg_eig_and_tensor import eigvals
from funcarray.numpy._linalg_solve import inv
from funcarray.numpy._linalg_spectral import lstsq, lstsq_solution_on_host
from funcarray.numpy._math_functions import sqrt
from funcarray.numpy._numerics import promote_keep_shapes
from funcarray.numpy._promotion import strong_host_values
from funcarray.numpy._reductions import all as _all
from funcarray.numpy._reductions import argmin
from funcarray.numpy._reductions import sum as _sum
from funcarray.numpy._shape import atleast_1d, broadcast_to, concatenate, stack
from funcarray.primitives.conversions import convert_kernel
from funcarray.primitives.elementwise import div_p, sqrt_p
from funcarray.primitives.reduce import reduce_sum_p
from funcarray.transforms.core import Tracer
from funcarray.transforms.host_shortcuts import host_shortcut, host_value

if TYPE_CHECKING:
    from typing import Literal

    from funcarray.base.typing import ArrayLike

__all__ = ["poly", "polyadd", "polysub", "polymul", "polydiv", "polyder", "polyint",
           "polyval", "polyfit", "vander", "roots"]




def _coefficients(op, *arrays, inexact=False):
    """The arguments as 1-D arrays of one promoted dtype (inexact if asked)."""
    out = promote_keep_shapes(op, *arrays, inexact=inexact)
    for a in out:
        if a.ndim != 1:
            raise op_value_error(op, f"polynomial coefficients must be 1-D arrays (highest power "
                                     f"first), got shape {tuple(a.shape)}")
    return out



# --------------------------------------------------------------------------------------------
# Host shortcuts (funcarray.transforms.host_shortcuts): strong host arrays of one dtype, which
# the general path's promotion leaves as they are, computed with the general path's kernels in
# its order (each coefficient the same sums and products); anything else declines.
# --------------------------------------------------------------------------------------------

def _aligned_sum(a1, a2, negate: bool):
    """``a1 + a2`` (``a1 - a2``: ``a1 + (-a2)``, as polysub) aligned at the end, as the
    general path's scatter-add computes it (operand + update, into a copy of the longer)."""
    values = strong_host_values(a1, a2)
    if values is None or values[0].ndim != 1 or values[1].ndim != 1:
        return NotImplemented
    v1, v2 = values
    if negate:
        v2 = a2 = np.negative(v2)
    if v2.shape[0] > v1.shape[0]:
        v1, v2, a1 = v2, v1, a2
    if v2.shape[0] == 0:
        return a1 if type(a1) is not np.ndarray else Array(a1)
    start = v1.shape[0] - v2.shape[0]
    if start == 0:
        return Array(np.add(v1, v2))  # the same sums, without the copy
    out = v1.copy()
    out[start:] = np.add(v1[start:], v2)
    return Array(out)


def _polyadd_on_host(a1, a2):
    return _aligned_sum(a1, a2, False)


def _polysub_on_host(a1, a2):
    return _aligned_sum(a1, a2, True)


def _polyder_on_host(p, m=1):
    values = strong_host_values(p, inexact=True, kinds="fc")
    if values is None or type(m) is not int or m < 0 or values[0].ndim != 1:
        return NotImplemented
    if m == 0:
        return p
    (v,) = values
    n = v.shape[0]
    powers = np.arange(n - 1, m - 1, -1)
    factors = np.prod(powers[None, :] - np.arange(m)[:, None], axis=0) if n > m else powers
    return Array(np.multiply(v[:max(n - m, 0)], np.asarray(factors, dtype=v.dtype)))


def _polyint_on_host(p, m=1, k=None):
    values = strong_host_values(p, inexact=True, kinds="fc")
    if values is None or k is not None or type(m) is not int or m < 0 or values[0].ndim != 1:
        return NotImplemented
    if m == 0:
        return p
    (v,) = values
    n = v.shape[0] + m
    grid = np.arange(n)[None, :] - np.arange(m)[:, None]
    divisors = np.maximum(1, grid).prod(axis=0)[::-1]
    # k=None: m integration constants 0 (the general path's promoted Python 0)
    coefficients = np.concatenate([v, np.zeros(m, v.dtype)])
    return Array(div_p.kernel(coefficients, np.asarray(divisors, dtype=v.dtype)))


def _polyval_on_host(p, x, *, unroll=16):
    """Horner's rule, one multiply and one add per coefficient in the scan's order."""
    values = strong_host_values(p, x)
    if values is None or type(unroll) is not int or unroll < 1 or values[0].ndim == 0:
        return NotImplemented
    pv, xv = values
    shape = np.broadcast_shapes(pv.shape[1:], xv.shape)
    y = np.zeros(shape, pv.dtype)
    for c in pv:
        y = np.add(np.multiply(y, xv), c)
    return Array(np.asarray(y) if type(y) is not np.ndarray else y)


def _vander_on_host(x, N=None, increasing=False):
    """A strong 1-D host array: the general path's repeated products (the multiply kernel),
    written into the columns of one array (np.stack costs more than the products)."""
    values = strong_host_values(x)
    if (values is None or values[0].ndim != 1 or not (N is None or type(N) is int)
            or type(increasing) is not bool):
        return NotImplemented
    (v,) = values
    n = v.shape[0] if N is None else N
    if n <= 0:
        return NotImplemented
    return Array(_vander_columns(v, n, increasing))


def _vander_columns(v, n: int, increasing: bool):
    """The general path's Vandermonde matrix of a 1-D NumPy value, ``n`` > 0 columns."""
    out = np.empty((v.shape[0], n), v.dtype)
    column = np.ones_like(v)
    for power in range(n):
        if power:
            column = np.multiply(column, v)
        out[:, power if increasing else n - 1 - power] = column
    return out


def _poly_on_host(seq_of_zeros):
    """A host array of roots (0-d or 1-D): the general path's loop of products,
    concatenations and differences with their kernels, in its order."""
    from funcarray.api.arguments import to_inexact_dtype
    v = host_value(seq_of_zeros)
    if v is None or v.ndim > 1:
        return NotImplemented
    dt = to_inexact_dtype(v.dtype)
    v = convert_kernel(v.reshape(1) if v.ndim == 0 else v, dt)
    if v.shape[0] == 0:
        return Array(np.ones((), dt))
    zero, coeffs = np.zeros((1,), dt), np.ones((1,), dt)
    for root in v:
        # Multiply by (z - root): shift (times z) minus root times the old coefficients.
        coeffs = np.subtract(np.concatenate([coeffs, zero]),
                             np.concatenate([zero, np.multiply(coeffs, root)]))
    return Array(coeffs)


def _roots_on_host(p, *, strip_zeros=True):
    """A host array of coefficients (leading zeros stripped): the companion matrix built
    with the general path's kernels, then ``eigvals`` itself."""
    from funcarray.api.arguments import to_inexact_dtype
    v = host_value(p)
    if v is None or v.ndim > 1 or strip_zeros is not True:
        return NotImplemented
    dt = to_inexact_dtype(v.dtype)
    v = convert_kernel(v.reshape(1) if v.ndim == 0 else v, dt)
    complex_dtype = _complex_dtype(dt)
    nonzero = np.flatnonzero(v != 0)
    v = v[nonzero[0] if nonzero.size else v.shape[0]:]
    if v.shape[0] < 2:
        return Array(np.zeros((0,), complex_dtype))
    companion = np.diag(np.ones((v.shape[0] - 2,), dt), -1)
    companion[0, :] = div_p.kernel(np.negative(v[1:]), v[:1])
    return Array(convert_kernel(eigvals(Array(companion))._value, complex_dtype))


@host_shortcut(_vander_on_host)
def vander(x: ArrayLike, N: int | None = None, increasing: bool = False) -> Array:
    """The Vandermonde matrix of the 1-D ``x``: column ``j`` is ``x ** (N - 1 - j)`` (or
    ``x ** j`` when ``increasing``); ``N`` defaults to ``len(x)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.vander(fnp.array([1, 2, 3]), 3)
        Array([[1, 1, 1],
               [4, 2, 1],
               [9, 3, 1]], dtype=int32)
    """
    op = "vander"
    from funcarray.api.arguments import asarray_arg
    x = asarray_arg(op, x)
    if x.ndim != 1:
        raise op_value_error(op, f"x must be a 1-D array, got shape {tuple(x.shape)}")
    n = x.shape[0] if N is None else _concrete_int(op, N, "N")
    if n < 0:
        raise op_value_error(op, f"N must be non-negative, got {n}")
    powers = np.arange(n) if increasing else np.arange(n)[::-1]
    if n == 0:
        return zeros((x.shape[0], 0), x.dtype)
    # Repeated products (x**0 = 1 exactly, gradients finite at x = 0), highest power last.
    columns = [ones_like(x)]
    for _ in range(1, n):
        columns.append(columns[-1] * x)
    return stack([columns[int(p)] for p in powers], axis=1)


@host_shortcut(_poly_on_host)
def poly(seq_of_zeros: ArrayLike) -> Array:
    """The coefficients of the monic polynomial whose roots are ``seq_of_zeros`` (1-D), or
    the characteristic polynomial of a square matrix (complex, from its eigenvalues).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.poly(fnp.array([1.0, 2.0]))
        Array([ 1., -3.,  2.], dtype=float32)
    """
    op = "poly"
    from funcarray.api.arguments import asarray_arg, convert, to_inexact_dtype
    zeros_ = asarray_arg(op, seq_of_zeros)
    zeros_ = convert(zeros_, to_inexact_dtype(zeros_.dtype), zeros_.weak_type)
    if zeros_.ndim == 0:
        zeros_ = zeros_.reshape(1)
    if zeros_.ndim == 2 and zeros_.shape[0] == zeros_.shape[1] and zeros_.shape[0] != 0:
        zeros_ = eigvals(zeros_)  # the characteristic polynomial (complex, as in jax)
    if zeros_.ndim != 1:
        raise op_value_error(op, f"takes a 1-D array of roots, got shape {tuple(zeros_.shape)}")
    coeffs = ones((1,), zeros_.dtype)
    if zeros_.shape[0] == 0:
        return ones((), zeros_.dtype)
    for k in range(zeros_.shape[0]):
        # Multiply by (z - r_k): shift (times z) minus r_k times the old coefficients.
        coeffs = (concatenate([coeffs, zeros((1,), coeffs.dtype)])
                  - concatenate([zeros((1,), coeffs.dtype), coeffs * zeros_[k]]))
    return coeffs


@host_shortcut(_polyadd_on_host)
def polyadd(a1: ArrayLike, a2: ArrayLike) -> Array:
    """The sum of two polynomials (the shorter is aligned with the end of the longer).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.polyadd(fnp.array([1, 2, 3]), fnp.array([10, 20]))
        Array([ 1, 12, 23], dtype=int32)
    """
    a1, a2 = _coefficients("polyadd", a1, a2)
    if a2.shape[0] > a1.shape[0]:
        a1, a2 = a2, a1
    if a2.shape[0] == 0:
        return a1
    return a1.at[a1.shape[0] - a2.shape[0]:].add(a2)


@host_shortcut(_polysub_on_host)
def polysub(a1: ArrayLike, a2: ArrayLike) -> Array:
    """The difference of two polynomials, ``a1 - a2``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.polysub(fnp.array([1.0, 2.0, 3.0]), fnp.array([1.0, 1.0]))
        Array([1., 1., 2.], dtype=float32)
    """
    a1, a2 = _coefficients("polysub", a1, a2)
    return polyadd(a1, -a2)


def _trim_leading_zeros(op, a, tol=None):
    """``a`` without its leading (near-)zero coefficients: the shape depends on the values,
    so ``a`` must be concrete."""
    if isinstance(a, Tracer):
        raise op_type_error(op, f"trim_leading_zeros=True makes the result's shape depend on "
                                f"the values of the traced {a.aval}; leave it False under a "
                                f"transform")
    value = np.abs(np.asarray(a))
    nonzero = value > tol if tol is not None else value != 0
    first = int(np.argmax(nonzero)) if nonzero.any() else a.shape[0]
    return a[first:]


def polymul(a1: ArrayLike, a2: ArrayLike, *, trim_leading_zeros: bool = False) -> Array:
    """The product of two polynomials (the convolution of their coefficients).

    ``trim_leading_zeros=True`` drops leading zero coefficients first (eager only: the shape
    then depends on the values).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.polymul(fnp.array([1.0, 1.0]), fnp.array([1.0, -1.0]))
        Array([ 1.,  0., -1.], dtype=float32)
    """
    op = "polymul"
    a1, a2 = _coefficients(op, a1, a2, inexact=True)
    if trim_leading_zeros and (a1.shape[0] > 1 or a2.shape[0] > 1):
        a1, a2 = _trim_leading_zeros(op, a1), _trim_leading_zeros(op, a2)
    if a1.shape[0] == 0:
        a1 = zeros(1, a2.dtype)
    if a2.shape[0] == 0:
        a2 = zeros(1, a1.dtype)
    return convolve(a1, a2, mode="full")


def polydiv(u: ArrayLike, v: ArrayLike, *, trim_leading_zeros: bool = False
            ) -> tuple[Array, Array]:
    """The quotient and remainder of ``u / v`` (long division of coefficients).

    The remainder keeps ``u``'s length (leading zeros included), as in jax.numpy;
    ``trim_leading_zeros=True`` drops its leading near-zero coefficients (eager only).

    Example:
        >>> import funcarray.numpy as fnp
        >>> q, r = fnp.polydiv(fnp.array([1.0, 0.0, -1.0]), fnp.array([1.0, 1.0]))
        >>> q, r
        (Array([ 1., -1.], dtype=float32), Array([0., 0., 0.], dtype=float32))
    """
    op = "polydiv"
    u, v = _coefficients(op, u, v, inexact=True)
    if u.shape[0] == 0 or v.shape[0] == 0:
        raise op_value_error(op, f"u and v must not be empty, got shapes {tuple(u.shape)} and "
                                 f"{tuple(v.shape)}")
    m, n = u.shape[0] - 1, v.shape[0] - 1
    scale = 1.0 / v[0]
    q = zeros(max(m - n + 1, 1), u.dtype)
    for k in range(m - n + 1):
        d = scale * u[k]
        q = q.at[k].set(d)
        u = u.at[k:k + n + 1].add(-d * v)
    if trim_leading_zeros:
        u = _trim_leading_zeros(op, u, tol=float(np.sqrt(dtypes.finfo(u.dtype).eps)))
    return q, u


@host_shortcut(_polyder_on_host)
def polyder(p: ArrayLike, m: int = 1) -> Array:
    """The ``m``-th derivative of the polynomial ``p``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.polyder(fnp.array([1.0, 1.0, 1.0, 1.0]))
        Array([3., 2., 1.], dtype=float32)
    """
    op = "polyder"
    m = _concrete_int(op, m, "m")
    if m < 0:
        raise op_value_error(op, f"the order of the derivative m must be non-negative, got {m}")
    (p,) = _coefficients(op, p, inexact=True)
    if m == 0:
        return p
    n = p.shape[0]
    # Coefficient of x**j (j = n-1-i) picks up the falling factorial j (j-1) ... (j-m+1).
    powers = np.arange(n - 1, m - 1, -1)
    factors = np.prod(powers[None, :] - np.arange(m)[:, None], axis=0) if n > m else powers
    return p[:max(n - m, 0)] * np.asarray(factors, dtype=p.dtype)


@host_shortcut(_polyint_on_host)
def polyint(p: ArrayLike, m: int = 1, k: ArrayLike | None = None) -> Array:
    """The ``m``-th antiderivative of ``p``, with integration constants ``k`` (a scalar or
    ``m`` values, the first for the first integration).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.polyint(fnp.array([3.0, 2.0, 1.0]), k=5.0)
        Array([1., 1., 1., 5.], dtype=float32)
    """
    op = "polyint"
    m = _concrete_int(op, m, "m")
    if m < 0:
        raise op_value_error(op, f"the order of the integral m must be non-negative, got {m}; "
                                 f"use polyder to differentiate")
    p, k = promote_keep_shapes(op, p, 0 if k is None else k, inexact=True)
    if p.ndim != 1 or k.ndim > 1:
        raise op_value_error(op, f"p must be 1-D and k a scalar or a 1-D array of length 1 or "
                                 f"m={m}, got shapes {tuple(p.shape)} and {tuple(k.shape)}")
    k = atleast_1d(k)
    if k.shape[0] == 1:
        k = broadcast_to(k, (m,))
    if k.shape != (m,):
        raise op_value_error(op, f"k must be a scalar or a 1-D array of length 1 or m={m}, "
                                 f"got shape {tuple(k.shape)}")
    if m == 0:
        return p
    n = p.shape[0] + m
    grid = np.arange(n)[None, :] - np.arange(m)[:, None]
    divisors = np.maximum(1, grid).prod(axis=0)[::-1]
    return concatenate([p, k]) / np.asarray(divisors, dtype=p.dtype)


@host_shortcut(_polyval_on_host)
def polyval(p: ArrayLike, x: ArrayLike, *, unroll: int = 16) -> Array:
    """The polynomial ``p`` evaluated at ``x`` by Horner's rule (``p`` may be 2-D: each column
    of coefficients broadcasts against ``x``). ``unroll`` is the scan's unroll factor.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.polyval(fnp.array([3, 0, 1]), 5)
        Array(76, dtype=int32)
    """
    op = "polyval"
    from funcarray import lax
    from funcarray.api.arguments import broadcast_shapes
    p, x = promote_keep_shapes(op, p, x)
    if p.ndim == 0:
        raise op_value_error(op, "p must have at least one dimension (the coefficients, highest "
                                 "power first), got a scalar")
    shape = broadcast_shapes(op, tuple(p.shape[1:]), tuple(x.shape))
    dt = p.dtype
    y = zeros(shape, dt)
    if p.shape[0] == 0:
        return y
    y, _ = lax.scan(lambda y, c: (y * x + c, None), y, p,
                    unroll=_concrete_int(op, unroll, "unroll"))
    return y


_FIT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _polyfit_on_host(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """The plain fit (strong float32/float64 x and y of one dtype; no rcond, w, full or
    cov): the general path's column-scaled Vandermonde solve with the kernels."""
    values = strong_host_values(x, y)
    if (values is None or type(deg) is not int or deg < 0 or rcond is not None
            or full is not False or w is not None or cov is not False):
        return NotImplemented
    xv, yv = values
    n = xv.shape[0]
    if (xv.dtype not in _FIT_DTYPES or xv.ndim != 1 or not n or yv.ndim not in (1, 2)
            or yv.shape[0] != n):
        return NotImplemented
    lhs = _vander_columns(xv, deg + 1, False)
    scale = sqrt_p.kernel(reduce_sum_p.kernel(np.multiply(lhs, lhs), axes=(0,)))
    lhs = np.divide(lhs, scale[None, :])
    c = lstsq_solution_on_host(lhs, yv, n * float(dtypes.finfo(xv.dtype).eps))
    return Array(np.divide(c.T, scale).T)


@overload
def polyfit(x: ArrayLike, y: ArrayLike, deg: int, rcond: float | None = None,
            full: Literal[False] = False, w: ArrayLike | None = None,
            cov: Literal[False] = False) -> Array: ...
@overload
def polyfit(x: ArrayLike, y: ArrayLike, deg: int, rcond: float | None = None,
            full: bool = False, w: ArrayLike | None = None, cov: bool = False
            ) -> Array | tuple[Array, ...]: ...
@host_shortcut(_polyfit_on_host)
def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """The least-squares polynomial of degree ``deg`` through the points ``(x, y)`` (``y``
    1-D, or 2-D for one fit per column), highest power first.

    ``w`` weights each point (multiplying the residual); ``full=True`` also returns
    ``(residuals, rank, singular_values, rcond)``; ``cov=True`` (or ``"unscaled"``) also
    returns the coefficients' covariance matrix. Differentiable in ``x``, ``y`` and ``w``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> x = fnp.array([0.0, 1.0, 2.0, 3.0])
        >>> fnp.polyfit(x, 2 * x + 1, 1).round(4)
        Array([2., 1.], dtype=float32)
    """
    op = "polyfit"
    from funcarray.api.arguments import asarray_arg, convert, to_inexact_dtype
    deg = _concrete_int(op, deg, "deg")
    x, y = asarray_arg(op, x), asarray_arg(op, y)
    if deg < 0:
        raise op_value_error(op, f"deg must be non-negative, got {deg}")
    if x.ndim != 1 or x.shape[0] == 0:
        raise op_type_error(op, f"x must be a non-empty 1-D array, got shape {tuple(x.shape)}")
    if y.ndim not in (1, 2):
        raise op_type_error(op, f"y must be 1-D or 2-D (one fit per column), got shape "
                                f"{tuple(y.shape)}")
    if x.shape[0] != y.shape[0]:
        raise op_type_error(op, f"x and y need the same number of points, got shapes "
                                f"{tuple(x.shape)} and {tuple(y.shape)}")
    order = deg + 1
    if rcond is None:
        rcond = x.shape[0] * float(dtypes.finfo(to_inexact_dtype(x.dtype)).eps)
    elif isinstance(rcond, Tracer):
        raise op_type_error(op, "rcond must be a static float, got a traced value")
    rcond = float(rcond)
    # The powers in x's float dtype, as NumPy's and jax's (which promote x first): integer
    # powers would wrap (uint8 255**2 is 1).
    lhs = vander(convert(x, to_inexact_dtype(x.dtype), x.weak_type), order)
    rhs = y
    if w is not None:
        w = asarray_arg(op, w)
        w = convert(w, to_inexact_dtype(w.dtype), w.weak_type)
        if w.ndim != 1 or w.shape[0] != y.shape[0]:
            raise op_type_error(op, f"w must be 1-D with one weight per point ({y.shape[0]}), "
                                    f"got shape {tuple(w.shape)}")
        lhs = lhs * w[:, None]
        rhs = rhs * (w[:, None] if rhs.ndim == 2 else w)
    lhs, rhs = _coefficient_dtypes(lhs, rhs)
    # Scaling the columns to unit norm improves the condition number of the solve.
    scale = sqrt(_sum(lhs * lhs, axis=0))
    lhs = lhs / scale[None, :]
    c, resids, rank, s = lstsq(lhs, rhs, rcond)
    c = (c.T / scale).T
    if full:
        return c, resids, rank, s, asarray(rcond)
    if not cov:
        return c
    vbase = inv(lhs.T @ lhs) / outer(scale, scale)
    if cov == "unscaled":
        fac = ones((1,), vbase.dtype)
    else:
        if x.shape[0] <= order:
            raise op_value_error(op, f"scaling the covariance needs more points "
                                     f"({x.shape[0]}) than coefficients ({order}); pass "
                                     f"cov='unscaled' or fit a lower degree")
        fac = atleast_1d(resids / (x.shape[0] - order))
    if y.ndim == 1:
        return c, vbase * fac[None]
    return c, vbase[:, :, None] * fac[None, None, :]


def _coefficient_dtypes(lhs, rhs):
    """lhs and rhs in one inexact dtype (lstsq's)."""
    from funcarray.api.arguments import convert, to_inexact_dtype
    dt = to_inexact_dtype(dtypes.result_type(lhs, rhs))
    return convert(lhs, dt), convert(rhs, dt)


def _companion_roots(op, p):
    """The eigenvalues of ``p``'s companion matrix (``p[0] != 0``)."""
    n = p.shape[0]
    if n < 2:
        return zeros((0,), _complex_dtype(p.dtype))
    companion = diag(ones((n - 2,), p.dtype), -1)
    companion = companion.at[0, :].set(-p[1:] / p[0])
    return eigvals(companion)


def _complex_dtype(dtype):
    if dtypes.is_complex(dtype):
        return np.dtype(dtype)
    return np.dtype(dtypes.complex128 if np.dtype(dtype).itemsize == 8 else dtypes.complex64)


@host_shortcut(_roots_on_host)
def roots(p: ArrayLike, *, strip_zeros: bool = True) -> Array:
    """The roots of the polynomial ``p`` (highest power first): the eigenvalues of its
    companion matrix, complex, in the eigensolver's order.

    Leading zero coefficients are stripped (``p`` must then be concrete); under a transform
    pass ``strip_zeros=False``: one root per leading zero is NaN instead (at the end).

    Example:
        >>> import funcarray.numpy as fnp
        >>> r = fnp.roots(fnp.array([1.0, -3.0, 2.0]))
        >>> fnp.sort(r.real).round(4)
        Array([1., 2.], dtype=float32)
    """
    op = "roots"
    (p,) = _coefficients(op, atleast_1d(p), inexact=True)
    n = p.shape[0]
    complex_dtype = _complex_dtype(p.dtype)
    if n < 2:
        return zeros((0,), complex_dtype)
    is_zero = p == 0
    if strip_zeros:
        if isinstance(is_zero, Tracer):
            raise op_type_error(op, f"stripping leading zeros makes the number of roots depend "
                                    f"on the values of the traced {p.aval}; pass "
                                    f"strip_zeros=False (one NaN root per leading zero)")
        leading = int(np.argmin(np.asarray(is_zero))) if not np.all(np.asarray(is_zero)) else n
        return _companion_roots(op, p[leading:]).astype(complex_dtype)
    leading = where(_all(is_zero), n, argmin(is_zero))
    # Roll the leading zeros to the end (zero roots); an all-zero p becomes all ones.
    p = where(leading == n, ones_like(p), p)
    p = take(p, (arange(n) + leading) % n)
    found = _companion_roots(op, p).astype(complex_dtype)
    from funcarray import lax
    found = lax.sort((found == 0, found), num_keys=1)[1]  # zero roots last
    nan = np.array(complex(np.nan, np.nan), complex_dtype)
    return where(arange(n - 1) < n - 1 - leading, found, nan)
