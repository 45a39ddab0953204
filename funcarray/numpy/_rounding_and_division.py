"""Rounding and integer division in ``funcarray.numpy``: ``floor``, ``ceil``, ``rint``,
``trunc``/``fix``, ``round``/``around``, and ``floor_divide``, ``remainder``/``mod``,
``divmod`` and ``fmod``.

Integer division follows Python's sign rules for ``floor_divide`` and ``remainder`` (the
remainder takes the divisor's sign) and C's for ``fmod``, as NumPy and JAX do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import (
    asarray_arg,
    convert,
)
from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.base.errors import op_type_error
from funcarray.numpy._elementwise import (
    _NUMERIC,
    _bool_to_int,
    _check_kinds,
    _constant_like,
    _doc,
    _kind,
    _to_inexact,
    multiply,
    true_divide,
)
from funcarray.numpy._promotion import promote_args
from funcarray.primitives import elementwise as ew
from funcarray.primitives.select_n import select_n_p
from funcarray.primitives.stop_gradient import stop_gradient_p
from funcarray.transforms.host_shortcuts import host_shortcut, host_value

if TYPE_CHECKING:
    from funcarray.base.typing import ArrayLike
    from funcarray.numpy._elementwise import _Unary


__all__ = [
    "around", "ceil", "divmod", "fix", "floor", "floor_divide", "fmod", "mod", "remainder", "rint",
    "round", "trunc",
]


# --------------------------------------------------------------------------------------------
# Integer division and remainders
# --------------------------------------------------------------------------------------------

def fmod(x: ArrayLike, y: ArrayLike, /) -> Array:
    """Remainder with the sign of the dividend (C's ``fmod``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.fmod(-5, 3)
        Array(-2, dtype=int32, weak_type=True)
    """
    x, y = promote_args("fmod", x, y)
    _check_kinds("fmod", x, _NUMERIC - {"c"} | {"b"})
    return ew.rem_p.bind(_bool_to_int(x), _bool_to_int(y))


def _float_divmod(x, y):
    # Python's floored division for floats, built from rem (fmod), as jax.numpy does.
    mod = ew.rem_p.bind(x, y)
    zero = _constant_like(x, 0)
    # (x - mod) / y, except x / y where y == 0: 1.0 // 0.0 is inf, not nan (mod is nan there)
    div = ew.div_p.bind(select_n_p.bind(ew.eq_p.bind(y, zero), ew.sub_p.bind(x, mod), x), y)
    y_negative = ew.lt_p.bind(y, zero)
    fix = ew.and_p.bind(ew.ne_p.bind(mod, zero),
                        ew.ne_p.bind(y_negative, ew.lt_p.bind(mod, zero)))
    mod = select_n_p.bind(fix, mod, ew.add_p.bind(mod, y))
    one = _constant_like(x, 1)
    div = ew.round_p.bind(select_n_p.bind(fix, div, ew.sub_p.bind(div, one)), rounding_method=1)
    # Zeros carry a sign, as in Python: -0.0 // 3.0 is -0.0 and -0.0 % 3.0 is 0.0. Where
    # mod == 0 the signed zero is a constant with mod's tangent added back as
    # `- (value - mod)` (+0.0 in value, and `z - (+0.0)` keeps z's sign), so d(x % y)/dx is 1
    # there too (a plain select of the constant would make it 0).
    value = stop_gradient_p.bind(mod)
    signed_zero = select_n_p.bind(y_negative, zero, _constant_like(x, -0.0))
    mod = select_n_p.bind(ew.eq_p.bind(value, zero), mod,
                          ew.sub_p.bind(signed_zero, ew.sub_p.bind(value, mod)))
    div = select_n_p.bind(ew.eq_p.bind(div, zero), div,
                          ew.mul_p.bind(ew.div_p.bind(x, y), zero))
    return div, mod


def floor_divide(x: ArrayLike, y: ArrayLike, /) -> Array:
    """Elementwise ``x // y``: division rounded toward minus infinity (NumPy semantics).

    Where exactly one float operand is infinite the result is the Array API standard's
    ``floor(x / y)``: ``inf // 2`` is ``inf`` and ``1.0 // -inf`` is ``-0.0`` (NumPy and
    jax.numpy give ``nan`` and ``-1.0``, pairing ``//`` with ``%``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.floor_divide(fnp.array([7, -7]), 2)
        Array([ 3, -4], dtype=int32)
        >>> fnp.floor_divide(fnp.array([fnp.inf, 1.0]), fnp.array([2.0, -fnp.inf]))
        Array([inf, -0.], dtype=float32)
    """
    x, y = promote_args("floor_divide", x, y)
    _check_kinds("floor_divide", x, _NUMERIC - {"c"} | {"b"})
    x, y = _bool_to_int(x), _bool_to_int(y)
    if _kind(x.dtype) == "u":
        return ew.div_p.bind(x, y)
    if _kind(x.dtype) == "i":
        q = ew.div_p.bind(x, y)
        r = ew.rem_p.bind(x, y)
        zero = _constant_like(x, 0)
        # The primitive truncates; step down where the signs differ and there is a remainder.
        fix = ew.and_p.bind(ew.ne_p.bind(r, zero),
                            ew.ne_p.bind(ew.lt_p.bind(x, zero), ew.lt_p.bind(y, zero)))
        one = _constant_like(x, 1)
        return select_n_p.bind(fix, q, ew.sub_p.bind(q, one))
    return _with_standard_infinities(x, y, _float_divmod(x, y)[0])


def _with_standard_infinities(x, y, quotient):
    """``quotient`` with ``x / y`` where exactly one of ``x``, ``y`` is infinite: a signed
    infinity or a signed zero, floor(x / y) as the Array API standard says (its gradient is
    zero, as floor's)."""
    inf = _constant_like(x, np.inf)
    one_infinite = ew.ne_p.bind(ew.eq_p.bind(ew.abs_p.bind(x), inf),
                                ew.eq_p.bind(ew.abs_p.bind(y), inf))
    return select_n_p.bind(one_infinite, quotient, stop_gradient_p.bind(ew.div_p.bind(x, y)))


def remainder(x: ArrayLike, y: ArrayLike, /) -> Array:
    """Elementwise ``x % y`` with the sign of the divisor (NumPy/Python semantics).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.remainder(fnp.array([7, -7]), 3)
        Array([1, 2], dtype=int32)
    """
    x, y = promote_args("remainder", x, y)
    _check_kinds("remainder", x, _NUMERIC - {"c"} | {"b"})
    x, y = _bool_to_int(x), _bool_to_int(y)
    if _kind(x.dtype) == "u":
        return ew.rem_p.bind(x, y)
    if _kind(x.dtype) == "f":
        return _float_divmod(x, y)[1]
    r = ew.rem_p.bind(x, y)
    zero = _constant_like(x, 0)
    fix = ew.and_p.bind(ew.ne_p.bind(r, zero),
                        ew.ne_p.bind(ew.lt_p.bind(r, zero), ew.lt_p.bind(y, zero)))
    return select_n_p.bind(fix, r, ew.add_p.bind(r, y))


mod = remainder


def divmod(x: ArrayLike, y: ArrayLike, /) -> tuple[Array, Array]:  # noqa: A001 (NumPy's name)
    """``(floor_divide(x, y), remainder(x, y))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.divmod(7, 2)[0]
        Array(3, dtype=int32, weak_type=True)
    """
    return floor_divide(x, y), remainder(x, y)


# --------------------------------------------------------------------------------------------
# Rounding
# --------------------------------------------------------------------------------------------

def _rounding(name, prim_fn, summary, example) -> _Unary:
    """floor, ceil, trunc: real numbers only; integers and bools are returned unchanged."""
    def fn(x, /):
        x = asarray_arg(name, x)
        _check_kinds(name, x, _NUMERIC - {"c"} | {"b"})
        if not dtypes.is_float(x.dtype):
            return x  # integers are already whole
        return prim_fn(x)
    return _doc(fn, name, summary, example)


floor = _rounding("floor", ew.floor_p.bind, "Round toward minus infinity.",
                  ("fnp.floor(fnp.array([-1.5, 1.5]))", "Array([-2.,  1.], dtype=float32)"))
ceil = _rounding("ceil", ew.ceil_p.bind, "Round toward plus infinity.",
                 ("fnp.ceil(fnp.array([-1.5, 1.5]))", "Array([-1.,  2.], dtype=float32)"))


def rint(x: ArrayLike, /) -> Array:
    """Round to the nearest integer, halves to even. Integers give floats (as in NumPy and
    ``jax.numpy``); complex numbers are rounded part by part.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.rint(fnp.array([0.5, 1.5]))
        Array([0., 2.], dtype=float32)
    """
    x = _to_inexact(asarray_arg("rint", x))
    if dtypes.is_complex(x.dtype):
        return ew.complex_p.bind(rint(ew.real_p.bind(x)), rint(ew.imag_p.bind(x)))
    return ew.round_p.bind(x, rounding_method=1)


def _trunc(x):
    zero = _constant_like(x, 0)
    return select_n_p.bind(ew.lt_p.bind(x, zero), ew.floor_p.bind(x), ew.ceil_p.bind(x))


def _trunc_on_host(x, /):
    """NumPy's trunc of a host float array: the general path's floor or ceil by sign, bit
    for bit (-0.5 gives -0.0, NaN stays itself)."""
    value = host_value(x)
    if value is None or value.dtype.kind != "f" or value.dtype.isbuiltin != 1:
        return NotImplemented
    return Array(np.trunc(value), x._weak)


trunc = host_shortcut(_trunc_on_host)(_rounding(
    "trunc", _trunc, "Round toward zero.",
    ("fnp.trunc(fnp.array([-1.5, 1.5]))", "Array([-1.,  1.], dtype=float32)")))
fix = trunc


def _round_int(a, factor: int):
    """Round integers to a multiple of ``factor``, halves to even (NumPy's rule), without
    overflowing on the way: compare the remainder with its complement instead of doubling."""
    if factor > dtypes.iinfo(a.dtype).max:
        return _constant_like(a, 0)  # every representable value is below half the factor
    f = _constant_like(a, factor)
    q = floor_divide(a, f)
    r = ew.sub_p.bind(a, ew.mul_p.bind(q, f))
    rest = ew.sub_p.bind(f, r)
    q_odd = ew.ne_p.bind(ew.and_p.bind(q, _constant_like(a, 1)), _constant_like(a, 0))
    up = ew.or_p.bind(ew.gt_p.bind(r, rest), ew.and_p.bind(ew.eq_p.bind(r, rest), q_odd))
    return ew.mul_p.bind(select_n_p.bind(up, q, ew.add_p.bind(q, _constant_like(a, 1))), f)


def round(a: ArrayLike, decimals: int = 0, out: None = None) -> Array:  # noqa: A001 (NumPy's name)
    """Round to ``decimals`` decimal places, halves to even (like ``numpy.round``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.round(fnp.array([1.25, 2.5]), 1)
        Array([1.2, 2.5], dtype=float32)
    """
    if out is not None:
        raise op_type_error("round", "out= is not supported: arrays are immutable")
    a = asarray_arg("round", a)
    _check_kinds("round", a, _NUMERIC)
    if not dtypes.is_inexact(a.dtype):
        if decimals >= 0:
            return a
        return _round_int(a, 10 ** (-decimals))
    if dtypes.is_complex(a.dtype):
        return ew.complex_p.bind(round(ew.real_p.bind(a), decimals),
                                 round(ew.imag_p.bind(a), decimals))
    if decimals == 0:
        return rint(a)
    if a.dtype == dtypes.float16:
        # As jax: float16's range would overflow x * 10**decimals (65504 * 100), and its
        # precision would round the scaled value wrongly; float32 holds both.
        return convert(round(convert(a, dtypes.float32, a.weak_type), decimals), a.dtype,
                       a.weak_type)
    factor = _constant_like(a, 10.0 ** decimals)
    return true_divide(rint(multiply(a, factor)), factor)


around = round
