"""Op tables: one spec per public elementwise function and per elementwise primitive.

The tables are plain data, reused by the elementwise tests here and by later grad/vmap/jit
tests. Each ``OpSpec`` says how to call an operation, which NumPy function computes its
reference values, which dtypes it accepts, which values its arguments may take (its domain),
and how closely results must match (its tolerance class).

Example:
    >>> spec = ELEMENTWISE_BY_NAME["arcsin"]
    >>> spec.nargs, spec.domains[0].name
    (1, 'unit')
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import jax.lax as lax
import jax.numpy as jnp
import numpy as np

import funcarray.numpy as fnp
from funcarray import dtypes
from funcarray.numpy import (
    _elementwise,
    _math_functions,
    _predicates_and_bits,
    _rounding_and_division,
)
from funcarray.primitives import elementwise as ew

__all__ = [
    "ALL_DTYPES", "Domain", "OpSpec", "PrimSpec", "ELEMENTWISE_OPS", "ELEMENTWISE_BY_NAME",
    "PRIMITIVE_OPS", "PRIMITIVE_BY_NAME", "kind_of", "tolerance", "dtypes_of_kinds",
    "standard_floor_divide",
]

ALL_DTYPES = (
    dtypes.bool_, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64,
    dtypes.uint8, dtypes.uint16, dtypes.uint32, dtypes.uint64,
    dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64,
    dtypes.complex64, dtypes.complex128,
)


def kind_of(dtype) -> str:
    """One letter per dtype family: b(ool), i(nt), u(int), f(loat), c(omplex)."""
    dtype = np.dtype(dtype)
    return "f" if dtypes.is_float(dtype) else dtype.kind


def dtypes_of_kinds(kinds: str) -> tuple:
    return tuple(dt for dt in ALL_DTYPES if kind_of(dt) in kinds)


# --------------------------------------------------------------------------------------------
# Domains: where an argument's values are drawn from
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Domain:
    """Values an argument may take.

    Floats are drawn uniformly from ``[lo, hi]``; integers are those values rounded and clipped
    to the dtype (``full_int_range`` draws integers over the whole dtype instead). ``specials``
    are float values mixed in (NaN, infinities, signed zeros) where the op defines them.
    ``nonzero`` replaces zeros (divisors); ``shift`` draws shift amounts in ``[0, bits)``.
    """

    name: str
    lo: float = -10.0
    hi: float = 10.0
    specials: tuple = ()
    full_int_range: bool = False
    nonzero: bool = False
    shift: bool = False


_IEEE_SPECIALS = (np.nan, np.inf, -np.inf, -0.0, 0.0)
ANY = Domain("any", -10.0, 10.0, specials=_IEEE_SPECIALS)
WIDE = Domain("wide", -1000.0, 1000.0, specials=_IEEE_SPECIALS, full_int_range=True)
SMALL = Domain("small", -4.0, 4.0)
EXP_ARG = Domain("exp_arg", -10.0, 10.0, specials=(np.nan, np.inf, -np.inf, -0.0))
POSITIVE = Domain("positive", 0.1, 100.0, specials=(np.nan, np.inf))
NONZERO = Domain("nonzero", -10.0, 10.0, nonzero=True)
UNIT = Domain("unit", -1.0, 1.0)          # closed [-1, 1]: arcsin, arccos
OPEN_UNIT = Domain("open_unit", -0.99, 0.99)  # arctanh
GE1 = Domain("ge1", 1.0, 50.0)            # arccosh
GT_M1 = Domain("gt_m1", -0.9, 10.0)       # log1p
EXPONENT = Domain("exponent", 0.0, 4.0)   # small non-negative powers (ints have no negatives)
SHIFT = Domain("shift", shift=True)


# --------------------------------------------------------------------------------------------
# Tolerances
# --------------------------------------------------------------------------------------------

# Machine epsilon per dtype; a tolerance class is a number of epsilons.
_EPS = {dt: float(dtypes.finfo(dt).eps) for dt in
        (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)}
_EPS[dtypes.complex64] = _EPS[dtypes.float32]
_EPS[dtypes.complex128] = _EPS[dtypes.float64]
# exact: bitwise equal (integers, bools, sign flips, selection). arith: one rounding.
# transcendental: a few ulps (libm differences). composite: several ops chained.
_ULPS = {"exact": 0, "arith": 1, "transcendental": 4, "composite": 16}


def tolerance(tol_class: str, dtype) -> tuple[float, float]:
    """``(rtol, atol)`` for comparing a result of ``dtype`` with its reference."""
    eps = _EPS.get(np.dtype(dtype))
    if eps is None or tol_class == "exact":
        return 0.0, 0.0
    ulps = _ULPS[tol_class]
    # atol covers results near zero (sin(pi), log(1 + tiny)), where relative error is large.
    return ulps * eps, ulps * eps


# --------------------------------------------------------------------------------------------
# Public elementwise functions
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class OpSpec:
    """One public elementwise function of ``funcarray.numpy``.

    * ``fn`` / ``ref`` / ``jax_fn``: the funcarray function, its NumPy value oracle and its
      ``jax.numpy`` dtype/weak_type oracle.
    * ``kinds``: the dtype families accepted (letters of ``kind_of``); for others the function
      raises TypeError.
    * ``domains``: one ``Domain`` per argument.
    * ``tol``: tolerance class (see ``tolerance``).
    * ``compute``: ``"result"`` computes the reference in the result dtype (math functions:
      integers are computed as floats); ``"promoted"`` in the promoted input dtype
      (comparisons, ``abs`` of complex); ``"inexact"`` in the promoted dtype when it is
      float or complex, else in the result dtype (``angle``).
    * ``upcast_low``: compute float16/bfloat16 references in float32 and round, as XLA does.
    * ``condition``: the first argument is a bool condition (``where``).
    * ``kwargs``: extra keyword arguments, as ``(name, value)`` pairs.
    """

    name: str
    fn: Callable
    ref: Callable
    nargs: int
    kinds: str
    domains: tuple
    tol: str
    jax_fn: Callable
    compute: str = "result"
    upcast_low: bool = True
    condition: bool = False
    multiple_results: bool = False
    kwargs: tuple = ()

    @property
    def dtypes(self) -> tuple:
        return dtypes_of_kinds(self.kinds)

    @property
    def rejected_dtypes(self) -> tuple:
        return tuple(dt for dt in ALL_DTYPES if kind_of(dt) not in self.kinds)

    def __repr__(self):  # short ids in pytest output
        return f"OpSpec({self.name})"


def sign_keeping_zero_sign(x):
    """np.sign with XLA's (and jax's) zero: sign(-0.0) is -0.0 (NumPy gives +0.0)."""
    x = np.asarray(x)
    out = np.sign(x)
    return np.where(out == 0, x, out) if out.dtype.kind == "f" else out


def standard_floor_divide(x, y):
    """NumPy's floor_divide with the Array API standard's infinities, funcarray's rule: where
    exactly one operand is infinite the quotient is x / y (inf // 2 is inf where NumPy says
    nan, 1.0 // -inf is -0.0 where NumPy says -1.0)."""
    x, y = np.asarray(x), np.asarray(y)
    with np.errstate(all="ignore"):
        out = np.floor_divide(x, y)
        if out.dtype.kind != "f":
            return out
        return np.where(np.isinf(x) != np.isinf(y), x / y, out).astype(out.dtype)


def _op(name, nargs, kinds, domains, tol, *, ref=None, jax_fn=None, **extra) -> OpSpec:
    if not isinstance(domains, tuple):
        domains = (domains,) * nargs
    return OpSpec(
        name=name, fn=getattr(fnp, name), ref=ref or getattr(np, name), nargs=nargs,
        kinds=kinds, domains=domains, tol=tol, jax_fn=jax_fn or getattr(jnp, name), **extra)


_ALL = "biufc"
_REAL = "biuf"
_UNARY_MATH = [
    # name, domain, kinds (jax's cbrt has no complex form)
    ("exp", EXP_ARG, _ALL), ("exp2", EXP_ARG, _ALL), ("expm1", EXP_ARG, _ALL),
    ("log", POSITIVE, _ALL), ("log2", POSITIVE, _ALL), ("log10", POSITIVE, _ALL),
    ("log1p", GT_M1, _ALL), ("sqrt", POSITIVE, _ALL), ("cbrt", ANY, _REAL),
    ("sin", ANY, _ALL), ("cos", ANY, _ALL), ("tan", SMALL, _ALL),
    ("arcsin", UNIT, _ALL), ("asin", UNIT, _ALL), ("arccos", UNIT, _ALL), ("acos", UNIT, _ALL),
    ("arctan", ANY, _ALL), ("atan", ANY, _ALL),
    ("sinh", SMALL, _ALL), ("cosh", SMALL, _ALL), ("tanh", ANY, _ALL),
    ("arcsinh", ANY, _ALL), ("asinh", ANY, _ALL), ("arccosh", GE1, _ALL),
    ("acosh", GE1, _ALL), ("arctanh", OPEN_UNIT, _ALL), ("atanh", OPEN_UNIT, _ALL),
    ("sinc", ANY, _ALL),
]

_ops = [
    _op(name, 1, kinds, domain, "transcendental") for name, domain, kinds in _UNARY_MATH
]
# NumPy's deg2rad/rad2deg have no complex loops; scaling is what they mean.
_ops += [
    _op(name, 1, _ALL, ANY, "arith", ref=lambda x, f=factor: np.multiply(x, f))
    for name, factor in (("deg2rad", np.pi / 180), ("radians", np.pi / 180),
                         ("rad2deg", 180 / np.pi), ("degrees", 180 / np.pi))
]
_ops += [
    # Sign, magnitude and rounding.
    _op("negative", 1, "iufc", WIDE, "exact"),
    _op("positive", 1, _ALL, WIDE, "exact", ref=lambda x: x.copy()),
    _op("square", 1, _ALL, ANY, "arith"),
    _op("absolute", 1, _ALL, WIDE, "arith", compute="promoted"),
    _op("abs", 1, _ALL, WIDE, "arith", compute="promoted"),
    _op("fabs", 1, _REAL, WIDE, "exact"),
    _op("sign", 1, "iufc", WIDE, "arith", ref=sign_keeping_zero_sign),
    _op("reciprocal", 1, _ALL, NONZERO, "arith"),
    _op("floor", 1, _REAL, WIDE, "exact"),
    _op("ceil", 1, _REAL, WIDE, "exact"),
    _op("trunc", 1, _REAL, WIDE, "exact"),
    _op("fix", 1, _REAL, WIDE, "exact", jax_fn=jnp.trunc),
    _op("rint", 1, _ALL, WIDE, "exact"),
    _op("round", 1, "iufc", WIDE, "exact"),
    _op("around", 1, "iufc", WIDE, "exact", jax_fn=jnp.round),
    # Predicates.
    _op("isfinite", 1, _ALL, WIDE, "exact", compute="promoted"),
    _op("isinf", 1, _ALL, WIDE, "exact", compute="promoted"),
    _op("isnan", 1, _ALL, WIDE, "exact", compute="promoted"),
    _op("isposinf", 1, _REAL, WIDE, "exact", compute="promoted"),
    _op("isneginf", 1, _REAL, WIDE, "exact", compute="promoted"),
    _op("signbit", 1, _REAL, WIDE, "exact", compute="promoted"),
    _op("logical_not", 1, _ALL, ANY, "exact", compute="promoted"),
    # Complex parts.
    _op("real", 1, _ALL, WIDE, "exact", compute="promoted"),
    _op("imag", 1, _ALL, WIDE, "exact", compute="promoted"),
    _op("conj", 1, _ALL, WIDE, "exact"),
    _op("conjugate", 1, _ALL, WIDE, "exact"),
    _op("angle", 1, _ALL, ANY, "transcendental", compute="inexact"),
    # Bits.
    _op("bitwise_not", 1, "biu", WIDE, "exact"),
    _op("invert", 1, "biu", WIDE, "exact"),
    _op("bitwise_invert", 1, "biu", WIDE, "exact"),
    _op("bitwise_count", 1, "biu", WIDE, "exact", compute="promoted"),
    # Binary arithmetic.
    _op("add", 2, _ALL, WIDE, "arith"),
    _op("subtract", 2, "iufc", WIDE, "arith"),
    _op("multiply", 2, _ALL, WIDE, "arith"),
    _op("true_divide", 2, _ALL, (ANY, NONZERO), "arith"),
    _op("divide", 2, _ALL, (ANY, NONZERO), "arith"),
    _op("floor_divide", 2, _REAL, (ANY, NONZERO), "exact", ref=standard_floor_divide),
    _op("remainder", 2, _REAL, (ANY, NONZERO), "arith"),
    _op("mod", 2, _REAL, (ANY, NONZERO), "arith"),
    _op("fmod", 2, _REAL, (ANY, NONZERO), "arith"),
    _op("divmod", 2, _REAL, (ANY, NONZERO), "arith", multiple_results=True,
        ref=lambda x, y: (standard_floor_divide(x, y), np.remainder(x, y))),
    _op("power", 2, _ALL, (SMALL, EXPONENT), "composite"),
    _op("float_power", 2, _ALL, (POSITIVE, SMALL), "composite"),
    _op("maximum", 2, _ALL, WIDE, "exact"),
    _op("minimum", 2, _ALL, WIDE, "exact"),
    _op("fmax", 2, _ALL, WIDE, "exact"),
    _op("fmin", 2, _ALL, WIDE, "exact"),
    _op("arctan2", 2, _REAL, ANY, "transcendental"),
    _op("atan2", 2, _REAL, ANY, "transcendental"),
    _op("hypot", 2, _REAL, ANY, "composite"),
    _op("copysign", 2, _REAL, WIDE, "exact"),
    _op("nextafter", 2, _REAL, ANY, "exact", upcast_low=False),
    _op("logaddexp", 2, _REAL, ANY, "composite"),
    _op("logaddexp2", 2, _REAL, ANY, "composite"),
    _op("heaviside", 2, _REAL, ANY, "exact"),
    # Comparisons and logic.
    _op("equal", 2, _ALL, ANY, "exact", compute="promoted"),
    _op("not_equal", 2, _ALL, ANY, "exact", compute="promoted"),
    _op("less", 2, _ALL, ANY, "exact", compute="promoted"),
    _op("less_equal", 2, _ALL, ANY, "exact", compute="promoted"),
    _op("greater", 2, _ALL, ANY, "exact", compute="promoted"),
    _op("greater_equal", 2, _ALL, ANY, "exact", compute="promoted"),
    _op("logical_and", 2, _ALL, ANY, "exact", compute="promoted"),
    _op("logical_or", 2, _ALL, ANY, "exact", compute="promoted"),
    _op("logical_xor", 2, _ALL, ANY, "exact", compute="promoted"),
    _op("bitwise_and", 2, "biu", WIDE, "exact"),
    _op("bitwise_or", 2, "biu", WIDE, "exact"),
    _op("bitwise_xor", 2, "biu", WIDE, "exact"),
    _op("left_shift", 2, "biu", (WIDE, SHIFT), "exact"),
    _op("bitwise_left_shift", 2, "biu", (WIDE, SHIFT), "exact"),
    _op("right_shift", 2, "biu", (WIDE, SHIFT), "exact"),
    _op("bitwise_right_shift", 2, "biu", (WIDE, SHIFT), "exact"),
    # Selection.
    _op("where", 3, _ALL, WIDE, "exact", condition=True),
    _op("clip", 3, _REAL, WIDE, "exact"),
]

ELEMENTWISE_OPS: list[OpSpec] = sorted(_ops, key=lambda s: s.name)
ELEMENTWISE_BY_NAME = {s.name: s for s in ELEMENTWISE_OPS}
assert len(ELEMENTWISE_BY_NAME) == len(ELEMENTWISE_OPS), "duplicate op names"
_ELEMENTWISE_NAMES = {*_elementwise.__all__, *_math_functions.__all__,
                      *_rounding_and_division.__all__, *_predicates_and_bits.__all__}
assert set(ELEMENTWISE_BY_NAME) == _ELEMENTWISE_NAMES, (
    "the op table must have one entry per public elementwise function: "
    f"missing {sorted(_ELEMENTWISE_NAMES - set(ELEMENTWISE_BY_NAME))}, "
    f"extra {sorted(set(ELEMENTWISE_BY_NAME) - _ELEMENTWISE_NAMES)}")


# --------------------------------------------------------------------------------------------
# Primitives: StableHLO semantics, with NumPy references written independently of the kernels
# --------------------------------------------------------------------------------------------


def _int_binary_ref(op):
    """Apply ``op`` to Python ints (exact) and wrap the result into the dtype, as two's
    complement hardware does."""
    def ref(x, y):
        x, y = np.asarray(x), np.asarray(y)
        flat = [op(int(a), int(b)) for a, b in zip(x.ravel().tolist(), y.ravel().tolist())]
        bits = x.dtype.itemsize * 8
        wrapped = [v % (1 << bits) for v in flat]
        return np.array(wrapped, np.uint64).astype(x.dtype).reshape(x.shape)
    return ref


def _trunc_div(a, b):
    if b == 0:
        return None
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _div_ref(x, y):
    """StableHLO divide: floats IEEE; integers truncate toward zero (divisors nonzero)."""
    if np.dtype(x.dtype).kind in "iu":
        return _int_binary_ref(_trunc_div)(x, y)
    return np.divide(x, y)


def _rem_ref(x, y):
    """StableHLO remainder: the sign of the dividend (C's fmod), for ints and floats."""
    if np.dtype(x.dtype).kind in "iu":
        return _int_binary_ref(lambda a, b: a - b * _trunc_div(a, b))(x, y)
    return np.fmod(x, y)


def _round_afz_ref(x, *, rounding_method=0):
    """Round half away from zero, computed exactly in float64 (x is float16/32/64)."""
    wide = np.asarray(x, np.float64)
    return np.copysign(np.floor(np.abs(wide) + 0.5), wide).astype(x.dtype)


def _integer_pow_ref(x, *, y):
    return np.power(x, np.asarray(y, x.dtype)) if y >= 0 else 1 / np.power(x, -y)


def _clz_ref(x):
    """Count leading zeros through Python's int.bit_length (independent of the kernel)."""
    x = np.asarray(x)
    bits = x.dtype.itemsize * 8
    unsigned = x.view(np.dtype(f"u{x.dtype.itemsize}"))
    counts = [bits - int(v).bit_length() for v in unsigned.ravel().tolist()]
    return np.array(counts, np.int64).astype(x.dtype).reshape(x.shape)


@dataclasses.dataclass(frozen=True)
class PrimSpec:
    """One elementwise primitive with its StableHLO-semantics reference.

    ``ref`` takes NumPy values of one dtype (low-precision floats are passed as float32 when
    ``upcast_low``) and ``params``; ``jax_fn`` is the ``jax.lax`` function with the same
    contract, for special values where only the hardware semantics can decide.
    """

    name: str
    prim: object
    ref: Callable
    nargs: int
    kinds: str
    domains: tuple
    tol: str
    jax_fn: Callable | None = None
    params: tuple = ()
    upcast_low: bool = True

    @property
    def dtypes(self) -> tuple:
        return dtypes_of_kinds(self.kinds)

    def __repr__(self):
        return f"PrimSpec({self.name})"


def _prim(name, ref, nargs, kinds, domains, tol, jax_fn=None, **extra) -> PrimSpec:
    if not isinstance(domains, tuple):
        domains = (domains,) * nargs
    return PrimSpec(name=name, prim=getattr(ew, f"{name}_p"), ref=ref, nargs=nargs, kinds=kinds,
                    domains=domains, tol=tol, jax_fn=jax_fn, **extra)


_F = "f"
_FC = "fc"
_IU = "iu"
_NUM = "iufc"
PRIMITIVE_OPS: list[PrimSpec] = [
    _prim("neg", np.negative, 1, _NUM, WIDE, "exact", lax.neg),
    _prim("sign", sign_keeping_zero_sign, 1, "if", WIDE, "exact", lax.sign),
    _prim("floor", np.floor, 1, _F, WIDE, "exact", lax.floor),
    _prim("ceil", np.ceil, 1, _F, WIDE, "exact", lax.ceil),
    _prim("is_finite", np.isfinite, 1, _F, WIDE, "exact", lax.is_finite),
    _prim("exp", np.exp, 1, _FC, EXP_ARG, "transcendental", lax.exp),
    _prim("exp2", np.exp2, 1, _F, EXP_ARG, "transcendental", lax.exp2),
    _prim("expm1", np.expm1, 1, _FC, EXP_ARG, "transcendental", lax.expm1),
    _prim("log", np.log, 1, _FC, POSITIVE, "transcendental", lax.log),
    _prim("log1p", np.log1p, 1, _FC, GT_M1, "transcendental", lax.log1p),
    _prim("sin", np.sin, 1, _FC, ANY, "transcendental", lax.sin),
    _prim("cos", np.cos, 1, _FC, ANY, "transcendental", lax.cos),
    _prim("tan", np.tan, 1, _FC, SMALL, "transcendental", lax.tan),
    _prim("asin", np.arcsin, 1, _FC, UNIT, "transcendental", lax.asin),
    _prim("acos", np.arccos, 1, _FC, UNIT, "transcendental", lax.acos),
    _prim("atan", np.arctan, 1, _FC, ANY, "transcendental", lax.atan),
    _prim("sinh", np.sinh, 1, _FC, SMALL, "transcendental", lax.sinh),
    _prim("cosh", np.cosh, 1, _FC, SMALL, "transcendental", lax.cosh),
    _prim("tanh", np.tanh, 1, _FC, ANY, "transcendental", lax.tanh),
    _prim("asinh", np.arcsinh, 1, _FC, ANY, "transcendental", lax.asinh),
    _prim("acosh", np.arccosh, 1, _FC, GE1, "transcendental", lax.acosh),
    _prim("atanh", np.arctanh, 1, _FC, OPEN_UNIT, "transcendental", lax.atanh),
    _prim("sqrt", np.sqrt, 1, _FC, POSITIVE, "transcendental", lax.sqrt),
    _prim("rsqrt", lambda x: 1 / np.sqrt(x), 1, _FC, POSITIVE, "transcendental", lax.rsqrt),
    _prim("cbrt", np.cbrt, 1, _F, ANY, "transcendental", lax.cbrt),
    _prim("logistic", lambda x: 1 / (1 + np.exp(-x)), 1, _F, ANY, "transcendental",
          lax.logistic),
    _prim("square", np.square, 1, _NUM, ANY, "arith", lax.square),
    _prim("abs", np.abs, 1, _NUM, WIDE, "arith", lax.abs),
    _prim("not", np.invert, 1, "biu", WIDE, "exact", lax.bitwise_not),
    _prim("real", np.real, 1, "c", ANY, "exact", lax.real),
    _prim("imag", np.imag, 1, "c", ANY, "exact", lax.imag),
    _prim("conj", np.conjugate, 1, "c", ANY, "exact", lax.conj),
    # StableHLO counts the two's complement bits (NumPy's bitwise_count counts |x|).
    _prim("population_count",
          lambda x: np.bitwise_count(x.view(f"u{x.dtype.itemsize}")).astype(x.dtype), 1, _IU, WIDE,
          "exact", lax.population_count),
    _prim("clz", _clz_ref, 1, _IU, WIDE, "exact", lax.clz),
    _prim("round", _round_afz_ref, 1, _F, ANY, "exact",
          lambda x, rounding_method: lax.round(x, rounding_method),
          params=(("rounding_method", 0),)),
    _prim("round", lambda x, *, rounding_method: np.rint(x), 1, _F, ANY, "exact",
          lambda x, rounding_method: lax.round(x, rounding_method),
          params=(("rounding_method", 1),)),
    _prim("add", np.add, 2, _NUM + "b", WIDE, "arith", lax.add),
    _prim("sub", np.subtract, 2, _NUM, WIDE, "arith", lax.sub),
    _prim("mul", np.multiply, 2, _NUM + "b", WIDE, "arith", lax.mul),
    _prim("div", _div_ref, 2, _NUM, (ANY, NONZERO), "arith", lax.div),
    _prim("rem", _rem_ref, 2, "iuf", (ANY, NONZERO), "arith", lax.rem),
    _prim("pow", np.power, 2, _FC, (POSITIVE, SMALL), "transcendental", lax.pow),
    _prim("max", np.maximum, 2, _NUM + "b", WIDE, "exact", lax.max),
    _prim("min", np.minimum, 2, _NUM + "b", WIDE, "exact", lax.min),
    _prim("atan2", np.arctan2, 2, _F, ANY, "transcendental", lax.atan2),
    _prim("nextafter", np.nextafter, 2, _F, ANY, "exact", lax.nextafter, upcast_low=False),
    _prim("and", np.bitwise_and, 2, "biu", WIDE, "exact", lax.bitwise_and),
    _prim("or", np.bitwise_or, 2, "biu", WIDE, "exact", lax.bitwise_or),
    _prim("xor", np.bitwise_xor, 2, "biu", WIDE, "exact", lax.bitwise_xor),
    _prim("shift_left", _int_binary_ref(lambda a, b: a << b), 2, _IU, (WIDE, SHIFT), "exact",
          lax.shift_left),
    _prim("shift_right_arithmetic", np.right_shift, 2, "i", (WIDE, SHIFT), "exact",
          lax.shift_right_arithmetic),
    _prim("shift_right_logical", np.right_shift, 2, "u", (WIDE, SHIFT), "exact",
          lax.shift_right_logical),
    _prim("eq", np.equal, 2, _NUM + "b", ANY, "exact", lax.eq),
    _prim("ne", np.not_equal, 2, _NUM + "b", ANY, "exact", lax.ne),
    _prim("lt", np.less, 2, "biuf", ANY, "exact", lax.lt),
    _prim("le", np.less_equal, 2, "biuf", ANY, "exact", lax.le),
    _prim("gt", np.greater, 2, "biuf", ANY, "exact", lax.gt),
    _prim("ge", np.greater_equal, 2, "biuf", ANY, "exact", lax.ge),
    _prim("integer_pow", _integer_pow_ref, 1, _NUM, SMALL, "transcendental",
          lambda x, y: lax.integer_pow(x, y), params=(("y", 3),)),
    _prim("integer_pow", _integer_pow_ref, 1, "fc", POSITIVE, "transcendental",
          lambda x, y: lax.integer_pow(x, y), params=(("y", -2),)),
]


PRIMITIVE_BY_NAME = {}
for _spec in PRIMITIVE_OPS:
    PRIMITIVE_BY_NAME.setdefault(_spec.name, _spec)
