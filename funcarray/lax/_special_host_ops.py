"""The lax operations the special-function formulas use, as the NumPy kernels of their
primitives, for the formulas' host shortcuts (``transforms/host_shortcuts.py``).

A formula written against an ``ops`` namespace (``add``, ``mul``, ``select``, ...) runs with
``LAX_OPS`` on the general path, one bind per operation, or with ``HOST_OPS`` on NumPy arrays
of one float dtype: the same kernels in the same order, so the same bits, without a bind's
overhead per operation (``lax.bessel_i0e`` of a 4-vector is ~300 operations). A Python
number meets an array in the array's dtype, as lax's weak scalars do.

``SCALAR_OPS`` runs a formula on the NumPy scalars of one element (``on_elements``: each
element of a small array in turn). A scalar operation costs ~80 ns where a ufunc call on a
0-d array costs ~500 ns (``np.where`` ~1 us), and gives the same bits: ``+ - * /`` and the
comparisons are IEEE operations in the scalar's dtype either way (a Python number converted
to that dtype first, NumPy 2's rule for weak scalars), the other functions are the same
ufunc loops, and each element of a formula depends on that element only (a loop's element
freezes once it has converged, so running it alone changes nothing).

Example:
    >>> import numpy as np
    >>> HOST_OPS.add(1.0, np.float32([1.5]))
    array([2.5], dtype=float32)
    >>> on_elements(lambda x, y, ops: ops.add(x, y), [np.float32([1, 2]), np.float32([3, 4])])
    array([4., 6.], dtype=float32)
"""

from __future__ import annotations

import math
import operator
import types

import numpy as np

from funcarray.lax._control_flow import while_loop
from funcarray.lax._ops_binary import (
    add,
    bitwise_and,
    bitwise_or,
    div,
    eq,
    ge,
    gt,
    le,
    lt,
    mul,
    ne,
    rem,
    select,
    sub,
)
from funcarray.lax._ops_binary import max as maximum
from funcarray.lax._ops_binary import min as minimum
from funcarray.lax._ops_binary import pow as power
from funcarray.lax._ops_reduce import reduce_or
from funcarray.lax._ops_shape import full, full_like
from funcarray.lax._ops_unary import abs as absolute
from funcarray.lax._ops_unary import (
    bitwise_not,
    digamma,
    exp,
    floor,
    lgamma,
    log,
    log1p,
    neg,
    sign,
    sqrt,
)
from funcarray.primitives import elementwise as ew
from funcarray.primitives import special

__all__ = ["LAX_OPS", "HOST_OPS", "SCALAR_OPS", "on_elements", "ON_ELEMENTS_UP_TO",
           "evaluate_on_numpy", "select_lazily"]

LAX_OPS = types.SimpleNamespace(
    add=add, sub=sub, mul=mul, div=div, rem=rem, pow=power, eq=eq, ne=ne, gt=gt, ge=ge, le=le,
    lt=lt, bitwise_and=bitwise_and, bitwise_or=bitwise_or, bitwise_not=bitwise_not,
    max=maximum, min=minimum, select=select, full=full, full_like=full_like, abs=absolute,
    exp=exp, log=log, log1p=log1p,
    lgamma=lgamma, digamma=digamma, floor=floor, neg=neg, sign=sign, sqrt=sqrt,
    reduce_or=reduce_or, while_loop=while_loop)


def _operands(x, y):
    """Both operands in the array operand's dtype (a Python number converted to a NumPy
    scalar of it: NumPy then computes in that dtype, as for an array)."""
    if type(x) is float or type(x) is int:
        return y.dtype.type(x), y
    if type(y) is float or type(y) is int:
        return x, x.dtype.type(y)
    return x, y


def _while_loop(cond, body, state):
    """lax.while_loop's eager meaning: the body while the condition holds."""
    while cond(state):
        state = body(state)
    return state


def _select(pred, on_true, on_false):
    on_true, on_false = _operands(on_true, on_false)
    return np.where(pred, on_true, on_false)


# For float operands the binary kernels are these ufuncs (div, rem and pow only add integer
# and complex cases; exp, log and log1p only upcast float16 and bfloat16), and NumPy
# converts a Python number to the array's dtype itself (NumPy 2's weak scalars, as lax's):
# no wrapper per operation.
HOST_OPS = types.SimpleNamespace(
    add=np.add, sub=np.subtract, mul=np.multiply, div=np.divide, rem=np.fmod, pow=np.power,
    eq=np.equal, ne=np.not_equal, gt=np.greater, ge=np.greater_equal, le=np.less_equal,
    lt=np.less, bitwise_and=np.bitwise_and, bitwise_or=np.bitwise_or,
    bitwise_not=ew.not_p.kernel, max=np.maximum, min=np.minimum, select=_select,
    full=lambda shape, value, dtype: np.full(shape, value, dtype),
    full_like=lambda x, value: np.full_like(x, value), abs=ew.abs_p.kernel, exp=np.exp,
    log=np.log, log1p=np.log1p, lgamma=special.lgamma_p.kernel,
    digamma=special.digamma_p.kernel, floor=ew.floor_p.kernel, neg=ew.neg_p.kernel,
    sign=ew.sign_p.kernel, sqrt=np.sqrt,
    reduce_or=lambda x, axes: np.logical_or.reduce(x, axis=axes), while_loop=_while_loop)


# NumPy scalars of the formulas' constants, by (scalar type, value): building one costs
# ~250 ns, a look-up ~90 ns, and a loop's step builds several. Zeros (0.0 and -0.0 are one
# key) and NaNs are built each time; the formulas have a few dozen constants, well under the
# bound.
_CONSTANTS: dict = {}
_CONSTANTS_KEPT = 1024


def _scalar_constant(scalar_type, value):
    """``scalar_type(value)``, a NumPy scalar, from ``_CONSTANTS`` where it can."""
    constant = _CONSTANTS.get((scalar_type, value))
    if constant is None:
        constant = scalar_type(value)
        if value != 0 and value == value and len(_CONSTANTS) < _CONSTANTS_KEPT:
            _CONSTANTS[scalar_type, value] = constant
    return constant


def _scalar_full_like(x, value):
    return _scalar_constant(type(x), value)


def _scalar_select(pred, on_true, on_false):
    out = on_true if pred else on_false
    if type(out) is float or type(out) is int:
        return _scalar_constant(type(on_false if pred else on_true), out)
    return out


# np.maximum, np.minimum and np.fmod of two NumPy scalars take ~1 us each (their unary
# ufuncs ~0.1 us); these give their bits (checked on signed zeros, infinities, NaNs):
# maximum/minimum keep a NaN and, on a tie (0 and -0), the second operand; fmod is exact,
# so computing it in float64 gives the same value.
def _scalar_max(x, y):
    return x if x > y or x != x else y


def _scalar_min(x, y):
    return x if x < y or x != x else y


def _scalar_rem(x, y):
    try:
        return x.dtype.type(math.fmod(x, y))
    except ValueError:  # (an infinite x or a zero y: NaN, which NumPy gives)
        return np.fmod(x, y)


def _scalar(kernel):
    """A kernel that returns a 0-d array (``np.where`` inside), giving a scalar."""
    def apply(x):
        return kernel(x)[()]
    return apply


SCALAR_OPS = types.SimpleNamespace(
    add=operator.add, sub=operator.sub, mul=operator.mul, div=operator.truediv,
    rem=_scalar_rem, pow=np.power, eq=operator.eq, ne=operator.ne, gt=operator.gt, ge=operator.ge,
    le=operator.le, lt=operator.lt, bitwise_and=operator.and_, bitwise_or=operator.or_,
    bitwise_not=operator.invert, max=_scalar_max, min=_scalar_min, select=_scalar_select,
    full=lambda shape, value, dtype: np.dtype(dtype).type(value),
    full_like=_scalar_full_like, abs=operator.abs, exp=np.exp, log=np.log,
    log1p=np.log1p, lgamma=special.lgamma_of_scalar, digamma=special.digamma_of_scalar,
    floor=np.floor, neg=operator.neg,
    sign=_scalar(ew.sign_p.kernel), sqrt=np.sqrt,
    reduce_or=lambda x, axes: x, while_loop=_while_loop)

# Up to this many elements, a formula runs element by element on scalars (``on_elements``);
# beyond, on whole arrays (``HOST_OPS``), whose per-call cost is then shared by the elements.
ON_ELEMENTS_UP_TO = 6


def on_elements(formula, values):
    """``formula(*scalars, SCALAR_OPS)`` for each element of ``values`` (NumPy arrays of one
    float dtype and shape), as an array of that dtype and shape; or, where an element's
    result is NaN, ``formula(*values, HOST_OPS)``: where two NaNs meet, a compiled scalar
    operation may keep the other operand's NaN (sign) than the ufunc loop does."""
    first = values[0]
    columns = [v.reshape(-1) for v in values]  # (indexed: ~10x faster than iterated)
    out = []
    for i in range(first.size):
        y = formula(*[column[i] for column in columns], SCALAR_OPS)
        if y != y:
            return np.asarray(formula(*values, HOST_OPS), first.dtype)
        out.append(y)
    if first.ndim == 0:
        return np.array(out[0], first.dtype)
    return np.array(out, first.dtype).reshape(first.shape)


def evaluate_on_numpy(formula, values):
    """``formula`` of NumPy arrays of one float32 or float64 dtype and shape, with the NumPy
    kernels: element by element on scalars for a few elements, on the whole arrays beyond
    (the same bits either way), as an array of that dtype.

    Example:
        >>> import numpy as np
        >>> evaluate_on_numpy(lambda x, ops: ops.mul(x, 2.0), [np.float32([1.5])])
        array([3.], dtype=float32)
    """
    # (No np.errstate, ~1-2 us: funcarray ignores NumPy's RuntimeWarnings from its own
    # modules, see funcarray/__init__.py, as on the general path.)
    if values[0].size <= ON_ELEMENTS_UP_TO:
        return on_elements(formula, values)
    return np.asarray(formula(*values, HOST_OPS), values[0].dtype)


def select_lazily(ops, pred, if_true, if_false):
    """``ops.select(pred, if_true(), if_false())``; one element (``SCALAR_OPS``) computes
    only the branch it takes, and NumPy arrays (``HOST_OPS``) only the branch every element
    takes, if one: the select keeps nothing of the other.

    Example:
        >>> import numpy as np
        >>> select_lazily(SCALAR_OPS, np.True_, lambda: np.float32(1), lambda: 1 / 0)
        np.float32(1.0)
    """
    if ops is SCALAR_OPS:
        return if_true() if pred else if_false()
    if ops is HOST_OPS and (pred.all() or not pred.any()):
        value = if_true() if pred.all() else if_false()
        return ops.select(pred, value, value)
    return ops.select(pred, if_true(), if_false())
