"""Rounding and integer division in ``funcarray.numpy``: ``floor``, ``ceil``, ``rint``,
``trunc``/``fix``, ``round``/``around``, and ``floor_divide``, ``remainder``/``mod``,
``divmod`` and ``fmod``.

Integer division follows Python's sign rules for ``floor_divide`` and ``remainder`` (the
remainder takes the divisor's sign) and C's for ``fmod``, as NumPy and JAX do.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import (
    asarray_arg,
    convert,
)
from funcarray.base import dtypes
from funcarray.base.array import Array, new_array
from funcarray.base.errors import op_type_error
from funcarray.numpy._elementwise import (
    _NUMERIC,
    _bool_to_int,
    _check_kinds,
    _constant_like,
    _doc,
    _has_nan,
    _kind,
    _promoted_binary,
    _to_inexact,
    multiply,
)
from funcarray.numpy._promotion import host_pair, promote_args, promote_binary
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

fmod = _promoted_binary(
    "fmod", ew.rem_p, promote_binary, _NUMERIC - {"c"} | {"b"}, _bool_to_int,
    "Remainder with the sign of the dividend (C's ``fmod``).",
    ("fnp.fmod(-5, 3)", "Array(-2, dtype=int32, weak_type=True)"))


class _Steps:
    """How the division formulas below run their steps: ``of(prim)`` is the primitive's
    ``bind`` (the general path, traced under a transform) or its NumPy kernel (a host
    shortcut on NumPy values: the same kernels in the same order give the same bits),
    ``const(x, v)`` a constant of ``x``'s dtype, ``select`` is ``select_n``'s and
    ``stop_gradient`` stops a gradient (nothing on the host)."""

    __slots__ = ("of", "const", "select", "stop_gradient")

    def __init__(self, of, const, select, stop_gradient):
        self.of, self.const, self.select, self.stop_gradient = of, const, select, stop_gradient


def _bound(prim):
    return prim.bind


def _kernel(prim):
    return prim.kernel


_BOUND = _Steps(_bound, _constant_like, select_n_p.bind, stop_gradient_p.bind)
_ON_HOST = _Steps(_kernel, lambda x, value: np.asarray(value, x.dtype),
                  lambda which, on_false, on_true: np.where(which, on_true, on_false),
                  lambda x: x)


def _float_divmod(x, y, steps=_BOUND):
    # Python's floored division for floats, built from rem (fmod), as jax.numpy does.
    of, const, select = steps.of, steps.const, steps.select
    sub, eq, lt, ne = of(ew.sub_p), of(ew.eq_p), of(ew.lt_p), of(ew.ne_p)
    mod = of(ew.rem_p)(x, y)
    zero = const(x, 0)
    # (x - mod) / y, except x / y where y == 0: 1.0 // 0.0 is inf, not nan (mod is nan there)
    div = of(ew.div_p)(select(eq(y, zero), sub(x, mod), x), y)
    y_negative = lt(y, zero)
    fix = of(ew.and_p)(ne(mod, zero), ne(y_negative, lt(mod, zero)))
    mod = select(fix, mod, of(ew.add_p)(mod, y))
    div = of(ew.round_p)(select(fix, div, sub(div, const(x, 1))), rounding_method=1)
    # Zeros carry a sign, as in Python: -0.0 // 3.0 is -0.0 and -0.0 % 3.0 is 0.0. Where
    # mod == 0 the signed zero is a constant with mod's tangent added back as
    # `- (value - mod)` (+0.0 in value, and `z - (+0.0)` keeps z's sign), so d(x % y)/dx is 1
    # there too (a plain select of the constant would make it 0).
    value = steps.stop_gradient(mod)
    signed_zero = select(y_negative, zero, const(x, -0.0))
    mod = select(eq(value, zero), mod, sub(signed_zero, sub(value, mod)))
    div = select(eq(div, zero), div, of(ew.mul_p)(of(ew.div_p)(x, y), zero))
    return div, mod


def _floor_divide(x, y, steps=_BOUND):
    """``x // y`` of promoted operands (bools already int32)."""
    of, const = steps.of, steps.const
    if _kind(x.dtype) == "u":
        return of(ew.div_p)(x, y)
    if _kind(x.dtype) == "i":
        q = of(ew.div_p)(x, y)
        r = of(ew.rem_p)(x, y)
        zero = const(x, 0)
        lt, ne = of(ew.lt_p), of(ew.ne_p)
        # The primitive truncates; step down where the signs differ and there is a remainder.
        fix = of(ew.and_p)(ne(r, zero), ne(lt(x, zero), lt(y, zero)))
        return steps.select(fix, q, of(ew.sub_p)(q, const(x, 1)))
    return _with_standard_infinities(x, y, _float_divmod(x, y, steps)[0], steps)


def _remainder(x, y, steps=_BOUND):
    """``x % y`` of promoted operands (bools already int32)."""
    of = steps.of
    if _kind(x.dtype) == "u":
        return of(ew.rem_p)(x, y)
    if _kind(x.dtype) == "f":
        return _float_divmod(x, y, steps)[1]
    r = of(ew.rem_p)(x, y)
    zero = steps.const(x, 0)
    lt, ne = of(ew.lt_p), of(ew.ne_p)
    fix = of(ew.and_p)(ne(r, zero), ne(lt(r, zero), lt(y, zero)))
    return steps.select(fix, r, of(ew.add_p)(r, y))


def _with_standard_infinities(x, y, quotient, steps=_BOUND):
    """``quotient`` with ``x / y`` where exactly one of ``x``, ``y`` is infinite: a signed
    infinity or a signed zero, floor(x / y) as the Array API standard says (its gradient is
    zero, as floor's)."""
    of = steps.of
    inf = steps.const(x, np.inf)
    eq, absolute = of(ew.eq_p), of(ew.abs_p)
    one_infinite = of(ew.ne_p)(eq(absolute(x), inf), eq(absolute(y), inf))
    return steps.select(one_infinite, quotient, steps.stop_gradient(of(ew.div_p)(x, y)))


# The host shortcuts take two host arrays of one real NumPy dtype (not bool: the general path
# converts bools to int32 first), or such an array and a Python scalar of its kind.
_DIVISION_KINDS = frozenset("iuf")


def _division_on_host(formula):
    """The host shortcut that gives ``formula(x, y)`` (one result or a pair) on NumPy
    values, for two operands of a real NumPy dtype (see above)."""
    def on_host(x, y, /):
        pair = host_pair(x, y)
        if pair is None or pair[0].dtype.kind not in _DIVISION_KINDS:
            return NotImplemented
        vx, vy, weak = pair
        out = formula(vx, vy, _ON_HOST)
        if type(out) is tuple:
            return new_array(out[0], weak), new_array(out[1], weak)
        return new_array(out, weak)
    return on_host


# NumPy's float32/float64 floor division and remainder (npy_divmod) take the formula's
# steps: fmod, (x - mod) / y, the divisor added and 1 taken where the signs differ, a zero
# signed as the divisor or the quotient. They differ in the rounding of the quotient (NumPy
# floors it and adds 1 above .5, the formula rounds half to even: apart only at an exact .5,
# which the quotient's two roundings can reach only beyond these bounds), for an infinite
# divisor (the formula's Array API quotient) and in which NaN a NaN result keeps. So NumPy's
# results stand where every quotient is below the bound and every divisor finite (which
# leaves out every NaN result too); elsewhere the formula runs.
_NUMPY_QUOTIENT_BOUNDS = {np.dtype(np.float32): 2.0 ** 21, np.dtype(np.float64): 2.0 ** 50}


# Up to this many quotients the bounds are tested on the listed values (~0.5 us for a
# 4-vector against ~1.5 us for the three ufunc calls of the reduction).
_LISTED_QUOTIENTS = 16
_maximum_of = np.maximum.reduce


def _numpy_quotient_agrees(q, y, bound) -> bool:
    if q.ndim == 0:  # (then y is 0-d too; Python floats compare ~10x faster)
        q, y = float(q), float(y)
        return -bound < q < bound and -math.inf < y < math.inf
    if q.ndim == 1 and q.size <= _LISTED_QUOTIENTS:
        for value in q.tolist():
            if not -bound < value < bound:
                return False
        divisors = y.tolist()
        for value in (divisors if y.ndim else [divisors]):
            if not -math.inf < value < math.inf:
                return False
        return True
    if not q.size:
        return True  # (no value to differ)
    # One reduction: y - y is a zero for a finite divisor, NaN for any other (as is the
    # maximum of anything with a NaN, which then fails the test).
    return bool(_maximum_of(np.add(np.abs(q), np.subtract(y, y)), axis=None) < bound)


def _remainder_values(x, y, steps):
    """``_remainder`` on NumPy values: NumPy's remainder where it is not NaN (a NaN there
    may be the other operand's: see above)."""
    if x.dtype in _NUMPY_QUOTIENT_BOUNDS:
        out = np.remainder(x, y)
        if not _has_nan(out):
            return out
    return _remainder(x, y, steps)


def _floor_divide_values(x, y, steps):
    """``_floor_divide`` on NumPy values: NumPy's where it agrees (see above)."""
    bound = _NUMPY_QUOTIENT_BOUNDS.get(x.dtype)
    if bound is not None:
        out = np.floor_divide(x, y)
        if _numpy_quotient_agrees(out, y, bound):
            return out
    return _floor_divide(x, y, steps)


def _divmod_values(x, y, steps):
    bound = _NUMPY_QUOTIENT_BOUNDS.get(x.dtype)
    if bound is not None:
        q, r = np.divmod(x, y)
        if _numpy_quotient_agrees(q, y, bound):
            return q, r
    return _floor_divide(x, y, steps), _remainder_values(x, y, steps)


_floor_divide_on_host = _division_on_host(_floor_divide_values)
_remainder_on_host = _division_on_host(_remainder_values)
_divmod_on_host = _division_on_host(_divmod_values)


def _division_operands_of(op, x, y):
    x, y = promote_args(op, x, y)
    _check_kinds(op, x, _NUMERIC - {"c"} | {"b"})
    return _bool_to_int(x), _bool_to_int(y)


@host_shortcut(_floor_divide_on_host)
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
    return _floor_divide(*_division_operands_of("floor_divide", x, y))


@host_shortcut(_remainder_on_host)
def remainder(x: ArrayLike, y: ArrayLike, /) -> Array:
    """Elementwise ``x % y`` with the sign of the divisor (NumPy/Python semantics).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.remainder(fnp.array([7, -7]), 3)
        Array([1, 2], dtype=int32)
    """
    return _remainder(*_division_operands_of("remainder", x, y))


mod = remainder


@host_shortcut(_divmod_on_host)
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


def _rint_on_host(x, /):
    """rint of a host float array: the round primitive's kernel, halves to even."""
    value = host_value(x)
    if value is None or value.dtype.kind != "f" or value.dtype.isbuiltin != 1:
        return NotImplemented
    return Array(ew.round_p.kernel(value, rounding_method=1), x._weak)


@host_shortcut(_rint_on_host)
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
    if decimals > 4 and decimals > _log10_of_largest(a.dtype):
        return a  # (beyond the dtype's precision: unchanged, as jax.numpy)
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
    scale, reciprocal = _scale_and_reciprocal(a.dtype, decimals)
    return multiply(rint(multiply(a, _constant_like(a, scale))),
                    _constant_like(a, reciprocal))


@functools.cache
def _log10_of_largest(dtype) -> float:
    return math.log10(dtypes.finfo(dtype).max)


@functools.lru_cache(maxsize=256)
def _scale_and_reciprocal(dtype, decimals: int):
    """``10**decimals`` and its reciprocal in ``dtype``. XLA turns a division by a constant
    into a product with the constant's reciprocal, computed in its dtype, so jax.numpy's
    round (eager or jitted) gives that product: 19 / 0.001 and 19 * (1 / 0.001) differ in
    float32's last bit."""
    scale = np.asarray(10.0 ** decimals, dtype)
    with np.errstate(divide="ignore"):
        return scale, np.asarray(1, dtype) / scale


around = round
