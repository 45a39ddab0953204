"""Elementary special functions of ``funcarray.scipy.special``: ``xlogy``, ``xlog1py``,
``expit``, ``logit``, ``entr``, ``rel_entr``, ``kl_div``, ``boxcox``, ``boxcox1p``, and
``logsumexp``/``softmax``/``log_softmax`` (``funcarray.nn``'s, with scipy's defaults).

Each is a composition of ``funcarray.numpy`` operations, so eager, jit, vmap and grad all
work; ``custom_jvp`` gives JAX's derivatives where the composition's would be NaN
(``xlogy(0, 0)``) or less accurate (``logit``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, overload

import numpy as np

from funcarray import numpy as fnp
from funcarray.api.custom_derivatives import custom_jvp
from funcarray.base.errors import api_boundary
from funcarray.lax._special_dtypes import float_arg, weak_result
from funcarray.nn import _functions as _nn
from funcarray.primitives.elementwise import logistic_p
from funcarray.scipy._special_arguments import float_args

if TYPE_CHECKING:
    from typing import TypeAlias

    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

    _Axes: TypeAlias = int | tuple[int, ...] | None

__all__ = ["xlogy", "xlog1py", "expit", "logit", "entr", "rel_entr", "kl_div", "boxcox",
           "boxcox1p", "logsumexp", "softmax", "log_softmax"]


@custom_jvp
def _xlogy(x, y):
    # x == 0 gives 0 even where log(y) is infinite; NaN in y still propagates (JAX).
    use_y = (x != 0) | fnp.isnan(y)
    safe_y = fnp.where(use_y, y, fnp.ones_like(y))
    return fnp.where(use_y, x * fnp.log(safe_y), fnp.zeros_like(x))


@_xlogy.defjvp
def _xlogy_jvp(primals, tangents):
    (x, y), (tx, ty) = primals, tangents
    return _xlogy(x, y), tx * fnp.log(y) + ty * x / y


@custom_jvp
def _xlog1py(x, y):
    use_y = (x != 0) | fnp.isnan(y)
    safe_y = fnp.where(use_y, y, fnp.zeros_like(y))
    return fnp.where(use_y, x * fnp.log1p(safe_y), fnp.zeros_like(x))


@_xlog1py.defjvp
def _xlog1py_jvp(primals, tangents):
    (x, y), (tx, ty) = primals, tangents
    return _xlog1py(x, y), tx * fnp.log1p(y) + ty * x / (1 + y)


@api_boundary
def xlogy(x: ArrayLike, y: ArrayLike) -> Array:
    """``x * log(y)``, defined as 0 where ``x == 0`` (unless ``y`` is NaN).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import xlogy
        >>> xlogy(fnp.asarray([0.0, 2.0, 1.0]), fnp.asarray([0.0, 3.0, 0.0]))
        Array([0.       , 2.1972246,      -inf], dtype=float32)
    """
    return weak_result(_xlogy, float_args("xlogy", x, y))


@api_boundary
def xlog1py(x: ArrayLike, y: ArrayLike) -> Array:
    """``x * log1p(y)``, defined as 0 where ``x == 0`` (unless ``y`` is NaN).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import xlog1py
        >>> xlog1py(fnp.asarray([0.0, 2.0]), fnp.asarray([-1.0, 1e-8]))
        Array([0.e+00, 2.e-08], dtype=float32)
    """
    return weak_result(_xlog1py, float_args("xlog1py", x, y))


@api_boundary
def expit(x: ArrayLike) -> Array:
    """The logistic sigmoid ``1 / (1 + exp(-x))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import expit
        >>> expit(fnp.asarray([-1.0, 0.0, 2.0])).round(4)
        Array([0.2689    , 0.5       , 0.88079995], dtype=float32)
    """
    return logistic_p.bind(float_arg("expit", x))


@custom_jvp
def _logit(x):
    return fnp.log(x / (1 - x))


_logit.defjvps(lambda t, out, x: t / (x * (1 - x)))


@api_boundary
def logit(x: ArrayLike) -> Array:
    """The inverse of ``expit``: ``log(x / (1 - x))``; ``-inf``/``inf`` at 0/1, NaN outside.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import logit
        >>> logit(fnp.asarray([0.0, 0.25, 0.5, 1.0]))
        Array([      -inf, -1.0986123,  0.       ,        inf], dtype=float32)
    """
    return weak_result(_logit, [float_arg("logit", x)])


@custom_jvp
def _xlogx(x):
    return _xlogy(x, x)


@_xlogx.defjvp
def _xlogx_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _xlogx(x), t * (fnp.log(x) + 1)


@api_boundary
def entr(x: ArrayLike) -> Array:
    """Elementwise entropy ``-x log(x)``: 0 at 0, ``-inf`` for negative ``x``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import entr
        >>> entr(fnp.asarray([-1.0, 0.0, 0.5, 1.0]))
        Array([      -inf, -0.       ,  0.3465736, -0.       ], dtype=float32)
    """
    return weak_result(lambda x: fnp.where(x < 0, -np.inf, -_xlogx(x)), [float_arg("entr", x)])


def _rel_entr(p, q):
    both_positive = (p > 0) & (q > 0)
    safe_p = fnp.where(both_positive, p, fnp.ones_like(p))
    safe_q = fnp.where(both_positive, q, fnp.ones_like(q))
    value = _xlogx(safe_p) - _xlogy(safe_p, safe_q)
    edge = fnp.where((p == 0) & (q >= 0), fnp.zeros_like(p), fnp.full_like(p, np.inf))
    return fnp.where(both_positive, value, edge)


@api_boundary
def rel_entr(p: ArrayLike, q: ArrayLike) -> Array:
    """Relative entropy ``p log(p / q)``: 0 where ``p == 0 <= q``, ``inf`` elsewhere outside
    ``p, q > 0`` (NaN inputs give ``inf``, as in JAX).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import rel_entr
        >>> rel_entr(fnp.asarray([0.5, 0.0, 1.0]), fnp.asarray([0.25, 1.0, 0.0]))
        Array([0.3465736, 0.       ,       inf], dtype=float32)
    """
    return weak_result(_rel_entr, float_args("rel_entr", p, q))


@api_boundary
def kl_div(p: ArrayLike, q: ArrayLike) -> Array:
    """The Kullback-Leibler divergence term ``p log(p / q) - p + q`` (``rel_entr - p + q``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import kl_div
        >>> kl_div(fnp.asarray([0.5, 0.0]), fnp.asarray([0.25, 1.0]))
        Array([0.09657359, 1.        ], dtype=float32)
    """
    return weak_result(lambda p, q: _rel_entr(p, q) - p + q, float_args("kl_div", p, q))


@api_boundary
def boxcox(x: ArrayLike, lmbda: ArrayLike) -> Array:
    """The Box-Cox transform ``(x**lmbda - 1) / lmbda`` (``log(x)`` where ``lmbda == 0``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import boxcox
        >>> boxcox(fnp.asarray([1.0, 4.0, 4.0]), fnp.asarray([2.0, 0.5, 0.0])).round(4)
        Array([0.    , 2.    , 1.3863], dtype=float32)
    """
    return weak_result(lambda x, lmbda: _boxcox_from_log(fnp.log(x), lmbda),
                       float_args("boxcox", x, lmbda))


@api_boundary
def boxcox1p(x: ArrayLike, lmbda: ArrayLike) -> Array:
    """The Box-Cox transform of ``1 + x``, accurate for small ``x``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import boxcox1p
        >>> boxcox1p(fnp.asarray([1e-8, 3.0]), fnp.asarray([2.0, 0.0])).round(4)
        Array([0.    , 1.3863], dtype=float32)
    """
    return weak_result(lambda x, lmbda: _boxcox_from_log(fnp.log1p(x), lmbda),
                       float_args("boxcox1p", x, lmbda))


def _boxcox_from_log(log_x, lmbda):
    # expm1(lmbda log x) / lmbda keeps the precision of small lmbda * log x.
    is_zero = lmbda == 0
    safe_lmbda = fnp.where(is_zero, fnp.ones_like(lmbda), lmbda)
    return fnp.where(is_zero, log_x, fnp.expm1(safe_lmbda * log_x) / safe_lmbda)


# (return_sign=True, by keyword, returns the pair (log|sum|, sign); _Axes: an axis, several
# or None)
@overload
def logsumexp(a: ArrayLike, axis: _Axes = None, b: ArrayLike | None = None,
              keepdims: bool = False, return_sign: Literal[False] = False,
              where: ArrayLike | None = None) -> Array: ...
@overload
def logsumexp(a: ArrayLike, axis: _Axes = None, b: ArrayLike | None = None,
              keepdims: bool = False, *, return_sign: Literal[True],
              where: ArrayLike | None = None) -> tuple[Array, Array]: ...
@overload
def logsumexp(a: ArrayLike, axis: _Axes = None, b: ArrayLike | None = None,
              keepdims: bool = False, return_sign: bool = False,
              where: ArrayLike | None = None) -> Array | tuple[Array, Array]: ...
@api_boundary
def logsumexp(a: ArrayLike, axis: _Axes = None, b: ArrayLike | None = None,
              keepdims: bool = False, return_sign: bool = False,
              where: ArrayLike | None = None) -> Array | tuple[Array, Array]:
    """``log(sum(b * exp(a)))`` over ``axis`` without overflow (``funcarray.nn.logsumexp``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import logsumexp
        >>> logsumexp(fnp.asarray([1000.0, 1000.0]))
        Array(1000.6932, dtype=float32)
    """
    return _nn.logsumexp(a, axis=axis, b=b, keepdims=keepdims, return_sign=return_sign,
                         where=where)


@api_boundary
def softmax(x: ArrayLike, /, *, axis: _Axes = None) -> Array:
    """``exp(x) / sum(exp(x))`` over ``axis`` (all axes by default, as in scipy).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import softmax
        >>> softmax(fnp.asarray([[0.0, 0.0], [0.0, 0.0]]))
        Array([[0.25, 0.25],
               [0.25, 0.25]], dtype=float32)
    """
    return _nn.softmax(x, axis=axis)


@api_boundary
def log_softmax(x: ArrayLike, /, *, axis: _Axes = None) -> Array:
    """``x - logsumexp(x)`` over ``axis`` (all axes by default, as in scipy).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import log_softmax
        >>> log_softmax(fnp.asarray([0.0, 0.0])).round(4)
        Array([-0.6931, -0.6931], dtype=float32)
    """
    return _nn.log_softmax(x, axis=axis)
