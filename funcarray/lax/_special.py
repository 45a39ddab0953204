"""jax.lax's special functions beyond ``erf``/``lgamma``/``digamma``: ``igamma``,
``igammac``, ``igamma_grad_a``, ``random_gamma_grad``, ``betainc``, ``polygamma``, ``zeta``,
``bessel_i0e``, ``bessel_i1e``.

Thin wrappers with jax.lax's operand rules (float operands of one dtype, no promotion; a
Python scalar takes the array's dtype) over the implementations, composed from lax's
operations and loops: ``_special_incomplete.py`` (the igamma family and ``betainc``),
``_special_gamma.py`` (``zeta``, ``polygamma``) and ``_special_bessel.py`` (see there for
algorithms and derivatives). ``funcarray.scipy.special`` calls these.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from funcarray.base.array import Array, DeviceArray
from funcarray.lax._ops_common import (
    _F,
    _broadcast_operands,
    _check_kinds,
    _operand_of_kinds,
    _same_dtype_operands,
)
from funcarray.lax._special_bessel import i0e_impl, i1e_impl, scaled_bessel
from funcarray.lax._special_gamma import (
    polygamma_formula,
    polygamma_impl,
    zeta_formula,
    zeta_impl,
)
from funcarray.lax._special_host_ops import evaluate_on_numpy
from funcarray.lax._special_incomplete import (
    betainc_formula,
    betainc_impl,
    igamma_formula,
    igamma_grad_a_impl,
    igamma_impl,
    igammac_formula,
    igammac_impl,
    random_gamma_grad_impl,
)
from funcarray.transforms.host_shortcuts import host_shortcut

if TYPE_CHECKING:
    from funcarray.base.typing import ArrayLike

__all__ = ["igamma", "igammac", "igamma_grad_a", "random_gamma_grad", "betainc", "polygamma",
           "zeta", "bessel_i0e", "bessel_i1e"]


def _float_operands(op: str, *args, equivalent: str):
    arrays = _same_dtype_operands(op, args, equivalent=equivalent)
    _check_kinds(op, arrays[0], _F, 0)
    return _broadcast_operands(op, arrays, equivalent=equivalent)


_FORMULA_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _formula_on_host(formula):
    """The shortcut of a special function of several operands: ``formula`` on the NumPy
    kernels, for host arrays of one float32 or float64 dtype, shape and weak type (the
    general path's bits)."""
    def on_host(*operands):
        for x in operands:
            if type(x) is not Array and type(x) is not DeviceArray:
                return NotImplemented
        first = operands[0]
        values = [x._value for x in operands]
        dtype, shape = values[0].dtype, values[0].shape
        if dtype not in _FORMULA_DTYPES or any(
                v.dtype != dtype or v.shape != shape or x._weak != first._weak
                for v, x in zip(values, operands)):
            return NotImplemented
        return Array(evaluate_on_numpy(formula, values), first._weak)
    return on_host


@host_shortcut(_formula_on_host(igamma_formula))
def igamma(a: ArrayLike, x: ArrayLike) -> Array:
    """The regularized lower incomplete gamma function ``P(a, x)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.igamma(fnp.asarray([1.0, 2.0]), fnp.asarray([1.0, 3.0])).round(5)
        Array([0.63212, 0.80085], dtype=float32)
    """
    return igamma_impl(
        *_float_operands("lax.igamma", a, x, equivalent=None))


@host_shortcut(_formula_on_host(igammac_formula))
def igammac(a: ArrayLike, x: ArrayLike) -> Array:
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.igammac(fnp.asarray([1.0, 2.0]), fnp.asarray([1.0, 3.0])).round(5)
        Array([0.36788, 0.19915], dtype=float32)
    """
    return igammac_impl(
        *_float_operands("lax.igammac", a, x, equivalent=None))


def igamma_grad_a(a: ArrayLike, x: ArrayLike) -> Array:
    """The derivative of ``igamma(a, x)`` with respect to ``a``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.igamma_grad_a(fnp.asarray([2.5]), fnp.asarray([1.5])).round(4)
        Array([-0.2522], dtype=float32)
    """
    return igamma_grad_a_impl(
        *_float_operands("lax.igamma_grad_a", a, x, equivalent=None))


def random_gamma_grad(a: ArrayLike, x: ArrayLike) -> Array:
    """The derivative of a Gamma(a, 1) sample ``x`` with respect to ``a`` (implicit
    reparameterization: ``-dP(a, x)/da / dP(a, x)/dx``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.random_gamma_grad(fnp.asarray([2.5]), fnp.asarray([1.5])).round(4)
        Array([0.8178], dtype=float32)
    """
    return random_gamma_grad_impl(
        *_float_operands("lax.random_gamma_grad", a, x, equivalent=None))


@host_shortcut(_formula_on_host(betainc_formula))
def betainc(a: ArrayLike, b: ArrayLike, x: ArrayLike) -> Array:
    """The regularized incomplete beta function ``I_x(a, b)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.betainc(2.0, 3.0, fnp.asarray([0.25, 0.5])).round(5)
        Array([0.26172, 0.6875 ], dtype=float32)
    """
    return betainc_impl(
        *_float_operands("lax.betainc", a, b, x, equivalent=None))


@host_shortcut(_formula_on_host(polygamma_formula))
def polygamma(m: ArrayLike, x: ArrayLike) -> Array:
    """The ``m``-th derivative of digamma; ``m`` is a float holding an integer (NaN
    otherwise), as in jax.lax.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.polygamma(fnp.asarray([1.0, 2.0]), fnp.asarray([1.0, 1.0])).round(4)
        Array([ 1.6449, -2.4041], dtype=float32)
    """
    return polygamma_impl(*_float_operands("lax.polygamma", m, x, equivalent=None))


@host_shortcut(_formula_on_host(zeta_formula))
def zeta(x: ArrayLike, q: ArrayLike) -> Array:
    """The Hurwitz zeta function ``sum_k (k + q)^-x``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.zeta(fnp.asarray([2.0, 4.0]), fnp.asarray([1.0, 1.0])).round(5)
        Array([1.64493, 1.08232], dtype=float32)
    """
    return zeta_impl(*_float_operands("lax.zeta", x, q, equivalent=None))


def _bessel_on_host(order):
    """The shortcut of ``bessel_i{order}e``: its formula on the NumPy kernels (the general
    path's bits; float16/bfloat16, computed through float32, take the general path)."""
    def formula(x, ops):
        return scaled_bessel(x, order, ops)

    def bessel_on_host(x):
        if type(x) is not Array and type(x) is not DeviceArray:
            return NotImplemented
        value = x._value
        if value.dtype not in _FORMULA_DTYPES:
            return NotImplemented
        return Array(evaluate_on_numpy(formula, [value]), x._weak)
    return bessel_on_host


@host_shortcut(_bessel_on_host(0))
def bessel_i0e(x: ArrayLike) -> Array:
    """The exponentially scaled modified Bessel function of order 0, ``exp(-|x|) I0(x)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.bessel_i0e(fnp.asarray([0.0, 1.0])).round(5)
        Array([1.     , 0.46576], dtype=float32)
    """
    return i0e_impl(_operand_of_kinds("lax.bessel_i0e", x, _F))


@host_shortcut(_bessel_on_host(1))
def bessel_i1e(x: ArrayLike) -> Array:
    """The exponentially scaled modified Bessel function of order 1, ``exp(-|x|) I1(x)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.bessel_i1e(fnp.asarray([0.0, 1.0])).round(5)
        Array([0.     , 0.20791], dtype=float32)
    """
    return i1e_impl(_operand_of_kinds("lax.bessel_i1e", x, _F))
