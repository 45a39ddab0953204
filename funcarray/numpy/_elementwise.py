"""Elementwise functions of ``funcarray.numpy``: NumPy semantics built on StableHLO primitives.

Each function converts its arguments, promotes dtypes (JAX's lattice), broadcasts, and binds
primitives. NumPy's semantics that differ from the primitives' are built here, as in
``jax.numpy``: ``floor_divide`` and ``remainder`` round toward minus infinity (the ``div`` and
``rem`` primitives truncate), ``true_divide`` of integers gives floats, ``sin`` of an integer
array computes in float32 (float64 for 64-bit integers).

This module holds the dtype rules and the factories that make most elementwise functions,
arithmetic, exponentials and logarithms, comparisons, the logical and bitwise ufuncs, and
``where``/``clip``. The other elementwise functions are in ``_math_functions`` (roots,
trigonometry, complex parts), ``_rounding_and_division`` and ``_predicates_and_bits``.
"""

from __future__ import annotations

import builtins
import math
import types
from typing import TYPE_CHECKING, overload

import numpy as np

from funcarray.api.arguments import (
    asarray_arg,
    broadcast_to_shape,
    convert,
    is_array,
    to_inexact_dtype,
)
from funcarray.base import dtypes
from funcarray.base.array import Array, DeviceArray, new_array
from funcarray.base.errors import filtered, op_type_error
from funcarray.numpy._extended_arrays import extended_where, is_extended
from funcarray.numpy._promotion import (
    host_pair,
    promote_args,
    promote_args_inexact,
    promote_args_unbroadcast,
    promote_binary,
)
from funcarray.numpy._sort_and_nonzero import nonzero_for
from funcarray.primitives import elementwise as ew
from funcarray.primitives.eager_entry import eager_entry
from funcarray.primitives.select_n import select_n_p
from funcarray.transforms.host_shortcuts import host_shortcut, host_value

if TYPE_CHECKING:
    from collections.abc import Callable

    from funcarray.base.typing import ArrayLike

    _Unary = Callable[[ArrayLike], Array]
    _Binary = Callable[[ArrayLike, ArrayLike], Array]

# Which dtype kinds each family accepts: b=bool, i=int, u=uint, f=float, c=complex.
_NUMERIC = frozenset("iufc")
_BOOL_INT = frozenset("biu")
_INT = frozenset("iu")


# The dtype family letter of every supported dtype (bfloat16 and float8 count as floats),
# looked up once per call instead of recomputed: this sits on the eager hot path.
def _family_letter(dt) -> str:
    return "f" if dtypes.is_float(dt) else dt.kind


_KIND_OF = dtypes.dtype_map(_family_letter)


def _kind(dt) -> str:
    kind = _KIND_OF.get(dt)
    return kind if kind is not None else np.dtype(dt).kind


def _check_kinds(op: str, x, kinds):
    if _kind(x.dtype) not in kinds:
        names = {"b": "bool", "i": "signed integer", "u": "unsigned integer", "f": "floating",
                 "c": "complex"}
        allowed = ", ".join(names[k] for k in "biufc" if k in kinds)
        raise op_type_error(op, f"does not accept dtype {x.dtype}; it takes {allowed} arrays")


def _constant_like(x, value):
    """``value`` in ``x``'s dtype and shape, weak-typed like a Python scalar, so that internal
    constants never change the weak_type of a result (as in ``jax.numpy``)."""
    return broadcast_to_shape(Array(np.asarray(value, x.dtype), True), x.shape)


def _bool_to_int(x):
    """Bools take part in integer arithmetic as int32, as in ``jax.numpy``."""
    return convert(x, dtypes.int32) if x.dtype == np.bool_ else x


def _to_inexact(x):
    """Integers and bools as the float dtype math functions compute in (keeps weak_type)."""
    if dtypes.is_inexact(x.dtype):
        return x
    return convert(x, to_inexact_dtype(x.dtype), x.weak_type)


# Up to this many elements a NaN is looked for in the listed values (~0.3 us for a 4-vector);
# beyond, in one dot product (~0.8 us: BLAS), where ``np.isnan(v).any()`` costs ~1.8 us.
_LISTED_NAN_TEST_SIZE = 16


def _has_nan(value) -> bool:
    """Whether a NumPy real float value (an array, or the NumPy scalar of a 0-d ufunc call)
    holds a NaN. The dot product of the values with themselves is NaN exactly where one of
    them is: a sum of squares never meets inf - inf, and overflows to inf, not NaN."""
    if value.ndim == 0:
        item = float(value)  # (~60 ns, where a NumPy scalar's comparison costs ~150 ns)
        return item != item
    if value.ndim == 1 and value.size <= _LISTED_NAN_TEST_SIZE:
        for item in value.tolist():
            if item != item:
                return True
        return False
    squares = np.vdot(value, value)
    return squares != squares


def _materialized_pair(x, y):
    """Two NumPy values broadcast to one shape in fresh arrays, as the general path's
    promotion gives them to its kernels: where two NaNs meet, NumPy's loops keep one or
    the other by the operands' layout (a 0-d operand's NaN over a contiguous one's), so a
    formula's shortcut that may meet NaNs runs on the same layouts."""
    if x.shape == y.shape:
        return x, y
    shape = np.broadcast_shapes(x.shape, y.shape)
    return np.broadcast_to(x, shape).copy(), np.broadcast_to(y, shape).copy()


def _doc(fn, name, summary, example):
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"{summary}\n\n    Example:\n        >>> import funcarray.numpy as fnp\n"
                  f"        >>> {example[0]}\n        {example[1]}\n    ")
    return fn


# --------------------------------------------------------------------------------------------
# Factories
# --------------------------------------------------------------------------------------------

# The factories below make most of this module's functions. Each function begins with a fast
# path for operands that need no conversion (an Array of an accepted dtype: straight to bind,
# which runs the eager kernel itself outside every transform, so no function here asks which
# engine runs) and catches its own errors to filter their tracebacks (what
# `_errors.api_boundary` does for hand-written functions), so no wrapper call sits on the
# hot path.

_INEXACT_DTYPES = dtypes.dtype_set(dtypes.is_inexact)


def _dtypes_of_kinds(kinds) -> set:
    return dtypes.dtype_set(lambda d: _family_letter(d) in kinds)


def _unary_inexact(name, prim, summary, example) -> _Unary:
    """A math function of floats/complex; ints and bools are converted to float first."""
    def general(x):
        x = asarray_arg(name, x)
        if not dtypes.is_inexact(x.dtype):
            x = convert(x, to_inexact_dtype(x.dtype), x.weak_type)
        return prim.bind(x)
    return _doc(eager_entry(prim, _INEXACT_DTYPES, general, home=globals()), name, summary,
                example)


def _unary_same(name, prim, kinds, summary, example) -> _Unary:
    """A function that keeps the dtype (neg, abs, sign...) on the accepted dtype kinds."""
    def general(x):
        x = asarray_arg(name, x)
        _check_kinds(name, x, kinds)
        return prim.bind(x)
    return _doc(eager_entry(prim, _dtypes_of_kinds(kinds), general, home=globals()), name,
                summary, example)


def _operands_alike(x, y, accepted) -> bool:
    """Two concrete arrays (host or device) of one accepted dtype and shape: nothing to
    promote, broadcast or check (a device array judged by its aval: with the XLA engine its
    value stays on the device)."""
    tx, ty = type(x), type(y)
    if not ((tx is Array or tx is DeviceArray) and (ty is Array or ty is DeviceArray)):
        return False
    xa = x._value if tx is Array else x._aval
    ya = y._value if ty is Array else y._aval
    return xa.dtype is ya.dtype and xa.shape == ya.shape and xa.dtype in accepted


def _binding_alike(prim, accepted, general) -> _Binary:
    """The binary function ``fn(x, y)``: ``prim`` bound at once for two concrete arrays of
    one ``accepted`` dtype and shape (its eager kernel run in ``fn``'s own frame, see
    ``eager_entry``; shapes that differ broadcast there), else ``general(x, y)``, its errors'
    tracebacks filtered. The factories below write only ``general``."""
    return eager_entry(prim, accepted, general, home=globals(), broadcasts=True)


def _binary(name, prim, kinds, summary, example) -> _Binary:
    """A two-argument function on promoted, broadcast operands."""
    accepted = _dtypes_of_kinds(kinds)

    def general(x, y):
        x, y = promote_binary(name, x, y)
        if x.dtype not in accepted:
            _check_kinds(name, x, kinds)
        return prim.bind(x, y)
    return _no_wrapper(_doc(_binding_alike(prim, accepted, general), name, summary, example))


def _no_wrapper(fn):
    """Mark a function that filters its own tracebacks: no api_boundary wrapper needed (a
    flag of its own: a ``__wrapped__`` pointing at itself sent ``inspect.signature`` into a
    loop)."""
    fn._filters_own_errors = True
    return fn


def _binary_inexact(name, prim, summary, example) -> _Binary:
    """A function of two real numbers computed in floating point (complex is refused, as
    NumPy does, eagerly and under jit alike)."""
    def general(x, y):
        if is_array(x) and is_array(y) and x.dtype == y.dtype and dtypes.is_float(x.dtype):
            return prim.bind(*promote_binary(name, x, y))  # (its eager fast paths)
        x, y = promote_args_inexact(name, x, y)
        _check_kinds(name, x, _NUMERIC - {"c"} | {"b"})
        return prim.bind(x, y)
    return _doc(_binding_alike(prim, _FLOAT_DTYPES, general), name, summary, example)


_FLOAT_DTYPES = _dtypes_of_kinds("f")


# --------------------------------------------------------------------------------------------
# Arithmetic
# --------------------------------------------------------------------------------------------
add = _binary("add", ew.add_p, _NUMERIC | {"b"}, "Elementwise ``x + y``.",
              ("fnp.add(fnp.ones(2), 1)", "Array([2., 2.], dtype=float32)"))
subtract = _binary("subtract", ew.sub_p, _NUMERIC, "Elementwise ``x - y``.",
                   ("fnp.subtract(3, fnp.ones(2))", "Array([2., 2.], dtype=float32)"))
multiply = _binary("multiply", ew.mul_p, _NUMERIC | {"b"}, "Elementwise ``x * y``.",
                   ("fnp.multiply(fnp.arange(3), 2)", "Array([0, 2, 4], dtype=int32)"))
maximum = _binary("maximum", ew.max_p, _NUMERIC | {"b"},
                  "Elementwise maximum; NaN propagates (like ``numpy.maximum``).",
                  ("fnp.maximum(fnp.arange(3), 1)", "Array([1, 1, 2], dtype=int32)"))
minimum = _binary("minimum", ew.min_p, _NUMERIC | {"b"},
                  "Elementwise minimum; NaN propagates (like ``numpy.minimum``).",
                  ("fnp.minimum(fnp.arange(3), 1)", "Array([0, 1, 1], dtype=int32)"))


nextafter = _binary_inexact(
    "nextafter", ew.nextafter_p, "The next float after ``x`` toward ``y``.",
    ("fnp.nextafter(1.0, 2.0) > 1", "Array(True, dtype=bool, weak_type=True)"))
arctan2 = _binary_inexact(
    "arctan2", ew.atan2_p, "Elementwise ``atan(y / x)`` with quadrant.",
    # (not (1, 1): NumPy's AVX-512 float32 atan2 gives pi/4 one ulp low)
    ("fnp.arctan2(1.0, -1.0)", "Array(2.3561945, dtype=float32, weak_type=True)"))
atan2 = arctan2


negative = _unary_same("negative", ew.neg_p, _NUMERIC, "Elementwise ``-x``.",
                       ("fnp.negative(fnp.arange(3))", "Array([ 0, -1, -2], dtype=int32)"))


def positive(x: ArrayLike, /) -> Array:
    """Elementwise ``+x`` (returns ``x``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.positive(fnp.ones(1))
        Array([1.], dtype=float32)
    """
    x = asarray_arg("positive", x)
    _check_kinds("positive", x, _NUMERIC | {"b"})
    return x


def _promoted_binary(name, prim, promote, kinds, prepare, summary, example) -> _Binary:
    """A two-argument function whose operands ``promote(name, x, y)`` converts, checked
    against the dtype ``kinds`` (None: not checked) and passed through ``prepare`` (bools
    to int32) before ``prim`` binds them. Two arrays of one dtype and shape bind at once
    where their promotion and preparation change nothing: a float or complex dtype, or
    (promoted as they are) an accepted integer one.

    ``promote`` is ``promote_args`` or, to a float dtype, ``promote_args_inexact``;
    ``promote_binary`` and ``_promote_binary_inexact`` are their fast paths, which leave
    the broadcast to the eager kernel: the same bits for a division, not for ``power``
    (NumPy takes other paths for a scalar exponent: ``x ** -1.0`` is a reciprocal)."""
    keeps_integers = promote is promote_binary or promote is promote_args
    accepted = _dtypes_of_kinds((kinds or _NUMERIC) - ({"b"} if keeps_integers
                                                       else {"b", "i", "u"}))

    def general(x, y):
        x, y = promote(name, x, y)
        if kinds is not None:
            _check_kinds(name, x, kinds)
        return prim.bind(prepare(x), prepare(y))
    return _no_wrapper(_doc(_binding_alike(prim, accepted, general), name, summary, example))


def _unchanged(x):
    return x


def _promote_binary_inexact(op, x, y):
    """``promote_args_inexact`` of two operands, through ``promote_binary``'s fast paths
    where one operand is a real float array: the common dtype is then inexact already, and
    both convert each operand straight to it."""
    if (is_array(x) and dtypes.is_float(x.dtype)) or (
            is_array(y) and dtypes.is_float(y.dtype)):
        return promote_binary(op, x, y)
    return promote_args_inexact(op, x, y)


true_divide = _promoted_binary(
    "true_divide", ew.div_p, _promote_binary_inexact, None, _unchanged,
    "Elementwise ``x / y``; integers and bools are divided as floats.",
    ("fnp.true_divide(fnp.arange(3), 2)", "Array([0. , 0.5, 1. ], dtype=float32)"))
divide = true_divide
_general_power = _promoted_binary(
    "power", ew.pow_p, promote_args, _NUMERIC | {"b"}, _bool_to_int,
    "Elementwise ``x ** y`` of two arrays.",
    ("fnp.power(fnp.arange(3), fnp.arange(3))", "Array([1, 1, 4], dtype=int32)"))


def power(x: ArrayLike, y: ArrayLike, /) -> Array:
    """Elementwise ``x ** y``. A Python int exponent uses repeated multiplication, exactly
    like ``x * x * ...`` (as in JAX).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.power(fnp.arange(4), 2)
        Array([0, 1, 4, 9], dtype=int32)
    """
    if type(y) is int and is_array(x) and x.dtype != np.bool_:
        try:
            _check_kinds("power", x, _NUMERIC)
            if y < 0 and _kind(x.dtype) in _INT:
                raise op_type_error("power", "integers to negative integer powers are not "
                                             "allowed; convert the base to float first")
            return ew.integer_pow_p.bind(x, y=y)
        except Exception as exc:
            raise filtered(exc) from exc.__cause__
    return _general_power(x, y)


_no_wrapper(power)
float_power = _promoted_binary(
    "float_power", ew.pow_p, promote_args_inexact, None, _unchanged,
    "``x ** y`` in floating point: integers are converted to float first (as in\n    "
    "``jax.numpy``; NumPy would also widen float32 to float64, which funcarray never does\n"
    "    silently).",
    ("fnp.float_power(fnp.array([2, 3]), 2)", "Array([4., 9.], dtype=float32)"))


def _general_square(x):
    x = asarray_arg("square", x)
    _check_kinds("square", x, _NUMERIC | {"b"})
    return ew.square_p.bind(_bool_to_int(x))


square = _doc(eager_entry(ew.square_p, _dtypes_of_kinds(_NUMERIC), _general_square,
                          home=globals()),
              "square", "Elementwise ``x * x``.",
              ("fnp.square(fnp.arange(3))", "Array([0, 1, 4], dtype=int32)"))


def _reciprocal_on_host(x, /):
    """``1 / x`` of a host float or complex value with the division kernel."""
    value = host_value(x)
    if value is None or value.dtype not in _INEXACT_DTYPES:
        return NotImplemented
    if value.dtype in _RECIPROCAL_BY_NUMPY:  # (the same quotient in one NumPy call)
        return new_array(np.reciprocal(value), x._weak)
    return new_array(ew.div_p.kernel(np.ones((), value.dtype), value), x._weak)


_RECIPROCAL_BY_NUMPY = (np.dtype(np.float32), np.dtype(np.float64))


@host_shortcut(_reciprocal_on_host)
def reciprocal(x: ArrayLike, /) -> Array:
    """Elementwise ``1 / x`` (integers are converted to float).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.reciprocal(fnp.array([2.0, 4.0]))
        Array([0.5 , 0.25], dtype=float32)
    """
    x = _to_inexact(asarray_arg("reciprocal", x))
    return ew.div_p.bind(_constant_like(x, 1), x)


def _general_absolute(x):
    x = asarray_arg("absolute", x)
    _check_kinds("absolute", x, _NUMERIC | {"b"})
    if x.dtype == np.bool_ or _kind(x.dtype) == "u":
        return x
    return ew.abs_p.bind(x)


# (abs_p only for the signed kinds: bools and unsigned integers are their own absolute value)
absolute = _doc(eager_entry(ew.abs_p, _dtypes_of_kinds("ifc"), _general_absolute,
                            home=globals()),
                "absolute", "Elementwise ``|x|`` (complex gives the magnitude, a float).",
                ("fnp.abs(fnp.array([-1, 2]))", "Array([1, 2], dtype=int32)"))
abs = _no_wrapper(absolute)  # noqa: A001 (NumPy's name)


def fabs(x: ArrayLike, /) -> Array:
    """Elementwise ``|x|`` of real numbers, as floats (integers are converted first).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.fabs(fnp.array([-1, 2]))
        Array([1., 2.], dtype=float32)
    """
    x = asarray_arg("fabs", x)
    _check_kinds("fabs", x, _NUMERIC - {"c"} | {"b"})
    return ew.abs_p.bind(_to_inexact(x))


sign = _unary_same("sign", ew.sign_p, _NUMERIC,
                   "Elementwise sign: -1, 0 or 1 (NaN for NaN; ``x / |x|`` for complex).",
                   ("fnp.sign(fnp.array([-2.0, 0.0, 3.0]))",
                    "Array([-1.,  0.,  1.], dtype=float32)"))


# --------------------------------------------------------------------------------------------
# Exponentials and logarithms (floats and complex; integers computed in float)
# --------------------------------------------------------------------------------------------
_E = ("fnp.exp(fnp.zeros(2))", "Array([1., 1.], dtype=float32)")
exp = _unary_inexact("exp", ew.exp_p, "Elementwise ``e ** x``.", _E)
exp2 = _unary_inexact("exp2", ew.exp2_p, "Elementwise ``2 ** x``.",
                      ("fnp.exp2(fnp.array([3.0]))", "Array([8.], dtype=float32)"))
expm1 = _unary_inexact("expm1", ew.expm1_p, "Elementwise ``exp(x) - 1``, accurate near 0.",
                       ("fnp.expm1(fnp.zeros(1))", "Array([0.], dtype=float32)"))
log = _unary_inexact("log", ew.log_p, "Natural logarithm.",
                     ("fnp.log(fnp.ones(2))", "Array([0., 0.], dtype=float32)"))
log1p = _unary_inexact("log1p", ew.log1p_p, "Elementwise ``log(1 + x)``, accurate near 0.",
                       ("fnp.log1p(fnp.zeros(1))", "Array([0.], dtype=float32)"))


def _scaled_log_on_host(scale):
    """The shortcut of log2/log10 (``scale`` 1/ln 2, 1/ln 10) for a host float value: the
    general path's two binds as their two kernels (the product by the Python float, as the
    multiply's eager entry computes it)."""
    log_kernel, mul_kernel = ew.log_p.kernel, ew.mul_p.kernel

    def on_host(x, /):
        value = host_value(x)
        if value is None or value.dtype.kind != "f":
            return NotImplemented
        return new_array(mul_kernel(log_kernel(value), scale), x._weak)
    return on_host


def _scaled_log(name, scale, summary, example) -> _Unary:
    @host_shortcut(_scaled_log_on_host(scale))
    def fn(x, /):
        out = log(x)
        if dtypes.is_complex(out.dtype):
            # Scale each part by the real constant: a complex product with (scale + 0j) would
            # make log(0)'s imaginary part -inf * 0 = NaN, where jax gives -inf + 0j.
            scale_like = _constant_like(ew.real_p.bind(out), scale)
            return ew.complex_p.bind(ew.mul_p.bind(ew.real_p.bind(out), scale_like),
                                     ew.mul_p.bind(ew.imag_p.bind(out), scale_like))
        return multiply(out, scale)
    return _doc(fn, name, summary, example)


log2 = _scaled_log("log2", 1 / math.log(2), "Base-2 logarithm.",
                   ("fnp.log2(fnp.array([8.0]))", "Array([3.], dtype=float32)"))
log10 = _scaled_log("log10", 1 / math.log(10), "Base-10 logarithm.",
                    ("fnp.log10(fnp.array([100.0]))", "Array([2.], dtype=float32)"))


# --------------------------------------------------------------------------------------------
# Comparisons and predicates
# --------------------------------------------------------------------------------------------

def _lexicographic(prim, x, y):
    """Order complex numbers by real part, then imaginary part (NumPy's and JAX's order)."""
    xr, yr = ew.real_p.bind(x), ew.real_p.bind(y)
    by_imag = ew.and_p.bind(ew.eq_p.bind(xr, yr),
                            prim.bind(ew.imag_p.bind(x), ew.imag_p.bind(y)))
    strict = {ew.le_p: ew.lt_p, ew.ge_p: ew.gt_p}.get(prim, prim)
    return ew.or_p.bind(strict.bind(xr, yr), by_imag)


def _comparison(name, prim, summary, example, ordered=True) -> _Binary:
    # Two arrays of one dtype and shape bind at once, as in ``_binary`` (complex operands of
    # an ordered comparison go the general way, to ``_lexicographic``).
    accepted = _dtypes_of_kinds("biuf" if ordered else "biufc")

    def general(x, y):
        x, y = promote_binary(name, x, y)
        _check_kinds(name, x, _NUMERIC | {"b"})
        if ordered and dtypes.is_complex(x.dtype):
            return _lexicographic(prim, x, y)
        return prim.bind(x, y)
    return _no_wrapper(_doc(_binding_alike(prim, accepted, general), name, summary, example))


equal = _comparison("equal", ew.eq_p, "Elementwise ``x == y``.",
                    ("fnp.equal(fnp.arange(3), 1)", "Array([False,  True, False], dtype=bool)"),
                    ordered=False)
not_equal = _comparison("not_equal", ew.ne_p, "Elementwise ``x != y``.",
                        ("fnp.not_equal(fnp.arange(2), 1)", "Array([ True, False], dtype=bool)"),
                        ordered=False)
less = _comparison("less", ew.lt_p, "Elementwise ``x < y``.",
                   ("fnp.less(fnp.arange(2), 1)", "Array([ True, False], dtype=bool)"))
less_equal = _comparison("less_equal", ew.le_p, "Elementwise ``x <= y``.",
                         ("fnp.less_equal(fnp.arange(2), 1)", "Array([ True,  True], dtype=bool)"))
greater = _comparison("greater", ew.gt_p, "Elementwise ``x > y``.",
                      ("fnp.greater(fnp.arange(2), 0)", "Array([False,  True], dtype=bool)"))
greater_equal = _comparison("greater_equal", ew.ge_p, "Elementwise ``x >= y``.",
                            ("fnp.greater_equal(fnp.arange(2), 1)",
                             "Array([False,  True], dtype=bool)"))


def _float_test_on_host(numpy_test, integer_answer: bool):
    """The host shortcut of ``isnan``, ``isinf`` or ``isfinite``: NumPy's test of a host float
    or complex value (the general path's, which tests either part of a complex number), or
    ``integer_answer`` everywhere for an integer or bool one; weak as ``x`` (a comparison with
    a weak constant is weak when its operand is)."""
    def test_on_host(x, /):
        value = host_value(x)
        if value is None or value.dtype.isbuiltin != 1:
            return NotImplemented
        if value.dtype.kind in "fc":
            return Array(numpy_test(value), x._weak)
        return Array(np.full(value.shape, integer_answer), x._weak)
    return test_on_host


@host_shortcut(_float_test_on_host(np.isnan, False))
def isnan(x: ArrayLike, /) -> Array:
    """True where ``x`` is NaN.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.isnan(fnp.array([1.0, fnp.nan]))
        Array([False,  True], dtype=bool)
    """
    x = asarray_arg("isnan", x)
    if not dtypes.is_inexact(x.dtype):
        return _full_bool(x, False)
    return ew.ne_p.bind(x, x)


@host_shortcut(_float_test_on_host(np.isinf, False))
def isinf(x: ArrayLike, /) -> Array:
    """True where ``x`` is plus or minus infinity.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.isinf(fnp.array([1.0, -fnp.inf]))
        Array([False,  True], dtype=bool)
    """
    x = asarray_arg("isinf", x)
    if dtypes.is_complex(x.dtype):
        return ew.or_p.bind(isinf(ew.real_p.bind(x)), isinf(ew.imag_p.bind(x)))
    if not dtypes.is_float(x.dtype):
        return _full_bool(x, False)
    inf = _constant_like(x, np.inf)
    return ew.eq_p.bind(ew.abs_p.bind(x), inf)


def _full_bool(x, value):
    """A bool array of ``x``'s shape (weak when ``x`` is, like every elementwise result)."""
    return broadcast_to_shape(Array(np.asarray(value), x.weak_type), x.shape)


# The constants the formulas' shortcuts compute with, by NumPy scalar type: 0 and 1 as
# scalars and 0-d arrays (a ufunc takes either ~0.3 us faster than a Python number), and inf.
_FORMULA_CONSTANTS = {t: types.SimpleNamespace(
    zero=t(0), one=t(1), inf=t(np.inf), one_array=np.ones((), t)) for t in (np.float32, np.float64)}
_FORMULA_DTYPES = {np.dtype(t): constants for t, constants in _FORMULA_CONSTANTS.items()}


def _logaddexp_values(x, y):
    """The general path's formula below on NumPy float values of one dtype, with the
    primitives' kernels; for float32 and float64, in fewer NumPy calls where that gives the
    same bits: on the NumPy scalars of 0-d values (~60 ns an operation, where a ufunc call
    on a 0-d array costs ~0.5 us, ~1 us on a scalar), and without the NaN select where
    ``x - y`` holds no NaN (``maximum`` then picks ``where(x >= y, x, y)``'s values: equal
    ones at a tie, whose zero sign ``log(2)`` added makes no difference)."""
    if x.dtype in _FORMULA_DTYPES:
        if x.ndim == 0 and y.ndim == 0:
            out = _logaddexp_of_scalars(x[()], y[()])
            if out is not None:
                return out
        else:
            delta = np.subtract(x, y)
            if not _has_nan(delta):
                return np.add(np.maximum(x, y),
                              np.log1p(np.exp(np.negative(np.abs(delta)))))
    x, y = _materialized_pair(np.asarray(x), np.asarray(y))
    big = np.where(ew.ge_p.kernel(x, y), x, y)
    delta = ew.sub_p.kernel(x, y)
    tail = ew.log1p_p.kernel(ew.exp_p.kernel(ew.neg_p.kernel(ew.abs_p.kernel(delta))))
    return np.where(ew.ne_p.kernel(delta, delta), ew.add_p.kernel(x, y),
                    ew.add_p.kernel(big, tail))


def _logaddexp_of_scalars(x, y):
    """The formula on two NumPy float32 or float64 scalars, or None where ``x - y`` is NaN
    (the array formula then decides which NaN or infinity)."""
    delta = x - y
    if delta != delta:
        return None
    return (x if x >= y else y) + np.log1p(np.exp(-builtins.abs(delta)))


def _logaddexp_on_host(scale):
    """The shortcut of logaddexp (``scale`` None) or logaddexp2 (``scale`` ln 2: the
    operands multiplied by it, the result divided by it) for two host floats of one dtype
    or a float and a Python scalar."""
    factors = {np.dtype(t): np.asarray(scale, t) for t in (np.float16, np.float32, np.float64)}

    def on_host(x, y, /):
        pair = host_pair(x, y)
        if pair is None or pair[0].dtype.kind != "f":
            return NotImplemented
        vx, vy, weak = pair
        if scale is None:
            return new_array(_logaddexp_values(vx, vy), weak)
        factor = factors.get(vx.dtype)
        if factor is None:
            return NotImplemented
        if vx.ndim == 0 and vy.ndim == 0 and vx.dtype in _FORMULA_DTYPES:
            # (NumPy scalars: the same IEEE products and quotient as the kernels')
            vx, vy, factor = vx[()], vy[()], factor[()]
        # (the operators: the mul and div kernels' np.multiply and np.divide for floats)
        return new_array(_logaddexp_values(vx * factor, vy * factor) / factor, weak)
    return on_host


@host_shortcut(_logaddexp_on_host(None))
def logaddexp(x: ArrayLike, y: ArrayLike, /) -> Array:
    """``log(exp(x) + exp(y))`` without overflow.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.logaddexp(0.0, 0.0)
        Array(0.6931472, dtype=float32, weak_type=True)
    """
    x, y = promote_args_inexact("logaddexp", x, y)
    _check_kinds("logaddexp", x, _NUMERIC - {"c"} | {"b"})
    big = where(greater_equal(x, y), x, y)  # not maximum: at a tie its gradient splits
    delta = subtract(x, y)
    # Equal infinities give delta = nan: the answer is then big itself.
    return where(isnan(delta), add(x, y), add(big, log1p(exp(negative(absolute(delta))))))


@host_shortcut(_logaddexp_on_host(math.log(2)))
def logaddexp2(x: ArrayLike, y: ArrayLike, /) -> Array:
    """``log2(2**x + 2**y)`` without overflow.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.logaddexp2(1.0, 1.0)
        Array(2., dtype=float32, weak_type=True)
    """
    x, y = promote_args_inexact("logaddexp2", x, y)
    _check_kinds("logaddexp2", x, _NUMERIC - {"c"} | {"b"})
    ln2 = math.log(2)
    return true_divide(logaddexp(multiply(x, ln2), multiply(y, ln2)), ln2)


# --------------------------------------------------------------------------------------------
# Logic and bits
# --------------------------------------------------------------------------------------------

def _to_bool(op, x):
    x = asarray_arg(op, x)
    if x.dtype == np.bool_:
        return x
    zero = _constant_like(x, 0)
    return ew.ne_p.bind(x, zero)


def _is_weak(x) -> bool:
    return dtypes.is_weak_scalar(x) or bool(getattr(x, "weak_type", False))


def _logical_on_host(numpy_logical):
    """The shortcut of a logical function of two host arrays: NumPy's, whose truth (nonzero,
    NaN true, a complex number by either part) is the general path's ``x != 0``. Promotion
    only widens strong arrays, which keeps each truth; a weak array of another dtype is
    converted to the other's (256 becomes uint8 0), and Python scalars too: those take the
    general path."""
    def logical_on_host(x, y, /):
        vx, vy = host_value(x), host_value(y)
        if vx is None or vy is None:
            return NotImplemented
        if vx.dtype.isbuiltin != 1 or vy.dtype.isbuiltin != 1:  # (ml_dtypes' types)
            return NotImplemented
        if (x._weak or y._weak) and vx.dtype != vy.dtype:
            return NotImplemented
        return Array(numpy_logical(vx, vy), x._weak and y._weak)
    return logical_on_host


def _logical(name, prim, numpy_logical, summary, example) -> _Binary:
    @host_shortcut(_logical_on_host(numpy_logical))
    def fn(x, y, /):
        # A Python int's truth is taken directly (2**31 is True, though int32 cannot hold
        # it); other operands are promoted first, so a Python float beside a float64 array
        # is tested as a float64 (1e-300 is True), eagerly and under jit alike.
        weak = _is_weak(x) and _is_weak(y)
        x, y = (x != 0 if type(x) is int else x), (y != 0 if type(y) is int else y)
        x, y = promote_binary(name, x, y)
        out = prim.bind(_to_bool(name, x), _to_bool(name, y))
        # The result is weak when both operands are, as in JAX (a weak float promoted beside
        # a bool array gives weak truths; a Python int's truth is a strong bool).
        return out if out.weak_type == weak else convert(out, np.bool_, weak)
    return _doc(fn, name, summary, example)


logical_and = _logical("logical_and", ew.and_p, np.logical_and,
                       "Elementwise logical AND (nonzero is true).",
                       ("fnp.logical_and(fnp.array([1, 0]), True)",
                        "Array([ True, False], dtype=bool)"))
logical_or = _logical("logical_or", ew.or_p, np.logical_or,
                      "Elementwise logical OR (nonzero is true).",
                      ("fnp.logical_or(fnp.array([1, 0]), False)",
                       "Array([ True, False], dtype=bool)"))
logical_xor = _logical("logical_xor", ew.xor_p, np.logical_xor,
                       "Elementwise logical XOR (nonzero is true).",
                       ("fnp.logical_xor(fnp.array([1, 0]), True)",
                        "Array([False,  True], dtype=bool)"))


bitwise_and = _binary("bitwise_and", ew.and_p, _BOOL_INT, "Elementwise bitwise AND.",
                      ("fnp.bitwise_and(fnp.array([6]), 3)", "Array([2], dtype=int32)"))
bitwise_or = _binary("bitwise_or", ew.or_p, _BOOL_INT, "Elementwise bitwise OR.",
                     ("fnp.bitwise_or(fnp.array([6]), 3)", "Array([7], dtype=int32)"))
bitwise_xor = _binary("bitwise_xor", ew.xor_p, _BOOL_INT, "Elementwise bitwise XOR.",
                      ("fnp.bitwise_xor(fnp.array([6]), 3)", "Array([5], dtype=int32)"))


# --------------------------------------------------------------------------------------------
# Selection
# --------------------------------------------------------------------------------------------

_HOST_ARRAYS = (Array, DeviceArray)
_WHERE_CASES = (*_HOST_ARRAYS, bool, int, float, complex)


def _where_on_host(condition, x=None, y=None, /, *, size=None, fill_value=None):
    """The three-argument ``where`` of a bool host array (or a NumPy bool), and host arrays
    or Python scalars: one ``np.where`` (it selects the same bits as the general path's
    select; ``size`` and ``fill_value`` only serve the one-argument form, which this
    declines)."""
    t = type(condition)
    if type(x) not in _WHERE_CASES or type(y) not in _WHERE_CASES:
        return NotImplemented
    if t is Array or t is DeviceArray:
        which = condition._value
        if which.dtype != np.bool_:
            return NotImplemented
    elif t is np.bool_:  # (a NumPy comparison of 0-d arrays gives one)
        which = condition
    else:
        return NotImplemented
    if type(x) in _HOST_ARRAYS and type(y) in _HOST_ARRAYS and (
            x._value.dtype == y._value.dtype):
        weak = x._weak and y._weak
    else:
        x, y = promote_args_unbroadcast("where", x, y)
        weak = x._weak
    return Array(np.where(which, x._value, y._value), weak)


@overload
def where(condition: ArrayLike, /, *, size: int | None = None,
          fill_value: ArrayLike | tuple[ArrayLike, ...] | None = None) -> tuple[Array, ...]: ...
@overload
def where(condition: ArrayLike, x: ArrayLike, y: ArrayLike, /) -> Array: ...
@host_shortcut(_where_on_host)
def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
    """``x`` where ``condition`` is true, else ``y`` (all three broadcast together).

    The one-argument form ``where(condition, size=, fill_value=)`` is
    ``nonzero(condition, size=, fill_value=)``: its output size depends on the values, so
    under a transform it needs a static ``size`` (``size`` and ``fill_value`` serve only
    this form, as in jax.numpy).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.where(fnp.arange(4) > 1, 1.0, 0.0)
        Array([0., 0., 1., 1.], dtype=float32, weak_type=True)
        >>> fnp.where(fnp.array([0, 2, 3]), size=3, fill_value=-1)
        (Array([ 1,  2, -1], dtype=int32),)
    """
    if x is None and y is None:
        return nonzero_for("where", condition, size, fill_value)
    if x is None or y is None:
        raise op_type_error("where", "give both x and y, or neither")
    if is_extended(x) or is_extended(y):
        return extended_where(condition, x, y, where, lambda c: _to_bool("where", c))
    condition = _to_bool("where", condition)
    x, y = promote_args("where", x, y)
    from funcarray.api.arguments import broadcast_shapes
    shape = broadcast_shapes("where", condition.shape, x.shape)
    condition = broadcast_to_shape(condition, shape)
    x, y = broadcast_to_shape(x, shape), broadcast_to_shape(y, shape)
    return select_n_p.bind(condition, y, x)


_CLIP_SCALAR_BOUNDS = (type(None), bool, int, float)


def clip(arr: ArrayLike, /, min: ArrayLike | None = None,
         max: ArrayLike | None = None) -> Array:  # noqa: A002 (JAX's names)
    """Limit values to ``[min, max]`` (either bound may be None; keywords, as in JAX).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.clip(fnp.arange(5), 1, 3)
        Array([1, 1, 2, 3, 3], dtype=int32)
        >>> fnp.clip(fnp.array([-2.0, 0.5, 3.0]), max=1.0)
        Array([-2. ,  0.5,  1. ], dtype=float32)
    """
    for operand in (arr, min, max):
        # (a Python bool, int or float has an accepted kind; converting it on its own would
        # test an int against int32 where an int64 array takes it)
        if operand is not None and type(operand) not in (bool, int, float):
            _check_kinds("clip", asarray_arg("clip", operand), _NUMERIC - {"c"} | {"b"})
    if type(min) not in _CLIP_SCALAR_BOUNDS or type(max) not in _CLIP_SCALAR_BOUNDS:
        # An array bound: one promotion of all three, not two of pairs (clip(False, 2**31,
        # int64_array) is an int64 computation, not a maximum of Python scalars in int32).
        # With scalar bounds (the common case) the pairs promote as the three do.
        bounds = [b for b in (min, max) if b is not None]
        arr, *bounds = promote_args_unbroadcast("clip", arr, *bounds)
        min, max = (None if b is None else bounds.pop(0) for b in (min, max))
    else:
        arr = asarray_arg("clip", arr)
    if min is not None:
        arr = maximum(arr, min)
    if max is not None:
        arr = minimum(arr, max)
    return arr


# Every public function defined (or aliased) above; the private helpers start with "_".
__all__ = sorted(
    name for name, value in list(globals().items())
    if callable(value) and not name.startswith("_") and getattr(value, "__module__", "") == __name__
)

if TYPE_CHECKING:
    # Type checkers cannot evaluate the line above: the same names written out (without the
    # fourteen that funcarray.numpy turns into ufunc objects and declares as such);
    # tests/test_typing.py checks that the lists agree.
    __all__ = [
        "abs", "absolute", "arctan2", "atan2", "clip", "divide", "equal", "exp", "exp2",
        "expm1", "fabs", "float_power", "greater", "greater_equal", "isinf", "isnan", "less",
        "less_equal", "log", "log10", "log1p", "log2", "nextafter", "not_equal", "positive",
        "power", "reciprocal", "sign", "square", "true_divide", "where",
    ]
