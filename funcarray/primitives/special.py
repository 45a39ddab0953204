"""Special-function primitives: ``erf``, ``erfc``, ``erf_inv``, ``lgamma``, ``digamma``.

Contract (the CHLO ops of the same names, which the eager kernels reproduce):

* One float operand (float16, bfloat16, float32, float64); the result has its shape and dtype.
  float16/bfloat16 are computed in float32 and rounded, as XLA does.
* ``erf(+-inf) = +-1``, ``erfc(-inf) = 2``, ``erfc(inf) = 0``.
* ``erf_inv`` is defined on [-1, 1]: ``erf_inv(+-1) = +-inf``, NaN outside.
* ``lgamma(x) = log|Gamma(x)|``: ``+inf`` at the poles (0, -1, -2, ...) and at ``+-inf``,
  exactly 0 at 1 and 2.
* ``digamma(x) = Gamma'(x) / Gamma(x)``: NaN at the poles and at ``-inf``; ``+inf`` at ``inf``.

The kernels follow XLA's algorithms where the result depends on them: Giles' polynomials for
``erf_inv`` (float32 evaluated with fused multiply-adds, as XLA's CPU code is, so that
``funcarray.random.normal`` matches ``jax.random.normal`` bit for bit), and the Lanczos
approximation (g = 7, 9 terms) with the reflection formula for ``lgamma`` and ``digamma``,
evaluated in the compute dtype. ``erf`` and ``erfc`` are computed in float64 with Cephes'
rational approximations (``erf(a) = a T(a^2)/U(a^2)`` below 1, ``erfc(a) = exp(-a^2) P(a)/Q(a)``
up to 8 and ``exp(-a^2) R(a)/S(a)`` beyond; ``1 - erfc`` and ``1 - erf`` across; a few ulps
of float64) and rounded: XLA's own approximations are accurate to a few ulps, so both agree
within float tolerance.

Speed: an element's result never depends on the other elements, so a kernel runs an array of
a few elements element by element, on NumPy scalars (Python floats for erf and erfc, whose
polynomials are compiled once with their coefficients as literals), where a ufunc call per
operation would cost ~10x more, and a larger array as a whole; both run the same IEEE
operations per element (the same ``np.exp`` loop), so they give the same bits (a NaN result
of the NumPy-scalar kernels takes the whole array path: NumPy keeps a NaN's sign differently
in its scalar and array loops; erf and erfc return a NaN operand as it is either way).

Derivatives: ``erf' = 2/sqrt(pi) exp(-x^2)``, ``erfc' = -erf'``,
``erf_inv' = sqrt(pi)/2 exp(erf_inv(x)^2)``, ``lgamma' = digamma``, and
``digamma' = polygamma(1, x)``, the trigamma function, which is composed from elementwise
operations (recurrence up to x >= 8.5, then its asymptotic series; reflection below 1/2), so
that it is differentiable and lowers like any other function.

Lowering: each primitive is its CHLO op (``chlo.erf``, ``chlo.erfc``, ``chlo.erf_inv``,
``chlo.lgamma``, ``chlo.digamma``); ``lgamma`` also selects the exact zeros at 1 and 2 that its
kernel gives (XLA's float32 ``lgamma(1)`` is 4.8e-7, not 0).
"""

from __future__ import annotations

import functools
import math
import struct
import types

import numpy as np

from funcarray.base import dtypes
from funcarray.lowering.stablehlo import compare
from funcarray.primitives import bind_ops as ops
from funcarray.primitives._define import elementwise_abstract_eval, unary
from funcarray.primitives.elementwise import sin_p
from funcarray.transforms.jvp import defjvp, defjvp_with_output

__all__ = ["erf_p", "erfc_p", "erf_inv_p", "lgamma_p", "digamma_p"]

_FLOATS = dtypes.dtype_set(
    lambda d: d in (dtypes.float16, dtypes.float32, dtypes.float64) or d.name == "bfloat16")


# --------------------------------------------------------------------------------------------
# erf and erfc: Cephes' float64 rational approximations (S. Moshier, ndtr.c)
# --------------------------------------------------------------------------------------------

# erf(a) = a T(a^2) / U(a^2) for a < 1; erfc(a) = exp(-a^2) P(a) / Q(a) for 1 <= a < 8 and
# exp(-a^2) R(a) / S(a) beyond; U, Q and S are monic (their leading 1 left out). Leading
# coefficients first.
_ERF_T = (9.60497373987051638749e0, 9.00260197203842689217e1, 2.23200534594684319226e3,
          7.00332514112805075473e3, 5.55923013010394962768e4)
_ERF_U = (3.35617141647503099647e1, 5.21357949780152679795e2, 4.59432382970980127987e3,
          2.26290000613890934246e4, 4.92673942608635921086e4)
_ERFC_P = (2.46196981473530512524e-10, 5.64189564831068821977e-1, 7.46321056442269912687e0,
           4.86371970985681366614e1, 1.96520832956077098242e2, 5.26445194995477358631e2,
           9.34528527171957607540e2, 1.02755188689515710272e3, 5.57535335369399327526e2)
_ERFC_Q = (1.32281951154744992508e1, 8.67072140885989742329e1, 3.54937778887819891062e2,
           9.75708501743205489753e2, 1.82390916687909736289e3, 2.24633760818710981792e3,
           1.65666309194161350182e3, 5.57535340817727675546e2)
_ERFC_R = (5.64189583547755073984e-1, 1.27536670759978104416e0, 5.01905042251180477414e0,
           6.16021097993053585195e0, 7.40974269950448939160e0, 2.97886665372100240670e0)
_ERFC_S = (2.26052863220117276590e0, 9.39603524938001434673e0, 1.20489539808096656605e1,
           1.70814450747565897222e1, 9.60896809063285878198e0, 3.36907645100081516050e0)
_ERF_CENTRAL_BELOW = 1.0
_ERFC_FAR_FROM = 8.0
# erfc underflows to 0 in float64 from 27.3 on: larger arguments are clamped to this, so
# that an infinite one meets no inf * 0 (exp(-a^2) is exactly 0 here).
_ERFC_ZERO_AT = 28.0


def _horner(coefficients, z, monic=False):
    """The source text of Horner's rule in ``z``, leading coefficient first (``monic``: a
    leading 1 that ``coefficients`` leaves out), the coefficients as exact literals."""
    rest = iter(coefficients)
    p = f"({z} + {next(rest)!r})" if monic else repr(next(rest))
    for c in rest:
        p = f"({p} * {z} + {c!r})"
    return p


def _compiled(signature, expression):
    """A function of ``signature`` that returns ``expression``, compiled once: a polynomial
    unrolled, with literal coefficients, costs half of a loop over a tuple of them; it runs
    the same IEEE operations on Python floats and on float64 arrays."""
    namespace = {}
    exec(f"def function({signature}):\n    return {expression}", namespace)  # noqa: S102 (our own template)
    return namespace["function"]


_erf_central_of = _compiled(
    "a, z", f"a * {_horner(_ERF_T, 'z')} / {_horner(_ERF_U, 'z', monic=True)}")
# erfc(t) for 1 <= t < 8 and for 8 <= t <= 28, given gaussian = exp(-t^2).
_erfc_near = _compiled(
    "t, gaussian", f"gaussian * {_horner(_ERFC_P, 't')} / {_horner(_ERFC_Q, 't', monic=True)}")
_erfc_far = _compiled(
    "t, gaussian", f"gaussian * {_horner(_ERFC_R, 't')} / {_horner(_ERFC_S, 't', monic=True)}")


def _erf_central(a):
    """erf(a) for ``0 <= a < 1`` (a Python float or a float64 array)."""
    return _erf_central_of(a, a * a)


def _piecewise(mask, if_true, if_false, *operands):
    """``if_true`` of the operands' elements where ``mask`` holds, ``if_false`` of the others
    (float64 arrays of one shape): each element sees its own function's operations."""
    if mask.all():
        return if_true(*operands)
    if not mask.any():
        return if_false(*operands)
    out = np.empty_like(operands[0])
    out[mask] = if_true(*(v[mask] for v in operands))
    rest = ~mask
    out[rest] = if_false(*(v[rest] for v in operands))
    return out


def _erfc_tail_of_array(a):
    """erfc(a) of a float64 array of ``a >= 1`` (or NaN)."""
    t = np.minimum(a, _ERFC_ZERO_AT)
    return _piecewise(t < _ERFC_FAR_FROM, _erfc_near, _erfc_far, t, np.exp(-t * t))


def _erf_abs_of_array(a):
    """``(central, erf(a) where central, erfc(a) elsewhere)`` of a float64 array ``a = |x|``
    (``central``: ``a < 1``; NaN results are restored from x by the callers)."""
    central = a < _ERF_CENTRAL_BELOW
    return central, _piecewise(central, _erf_central, _erfc_tail_of_array, a)


def _erfc_tail_of_float(a: float) -> float:
    """``_erfc_tail_of_array`` of one element, in Python floats (``np.exp`` of a float64
    scalar: the ufunc loop the array runs): the same operations, so the same bits."""
    t = min(a, _ERFC_ZERO_AT)
    return (_erfc_near if t < _ERFC_FAR_FROM else _erfc_far)(t, float(np.exp(-t * t)))


def _erf_of_float(v: float) -> float:
    """erf of one element as a Python float (float64; the kernel rounds it to the dtype)."""
    a = abs(v)
    if a < _ERF_CENTRAL_BELOW:
        return math.copysign(_erf_central(a), v)
    if v != v:
        return v
    return math.copysign(1.0 - _erfc_tail_of_float(a), v)


def _erfc_of_float(v: float) -> float:
    """erfc of one element as a Python float (float64; the kernel rounds it to the dtype)."""
    a = abs(v)
    if a < _ERF_CENTRAL_BELOW:
        return 1.0 - math.copysign(_erf_central(a), v)
    if v != v:
        return v
    value = _erfc_tail_of_float(a)
    return value if v > 0 else 2.0 - value


def _erf_of_array(x):
    """erf of an array, computed in float64 and rounded to its dtype (the operations of
    ``_erf_of_float`` on each element)."""
    x64 = x.astype(np.float64)
    central, value = _erf_abs_of_array(np.abs(x64))
    if central.all():  # (no NaN either: it is not central)
        return np.copysign(value, x64, out=value).astype(x.dtype)
    out = np.copysign(np.where(central, value, 1.0 - value), x64)
    return np.where(np.isnan(x64), x64, out).astype(x.dtype)


def _erfc_of_array(x):
    """erfc of an array, computed in float64 and rounded to its dtype (the operations of
    ``_erfc_of_float`` on each element)."""
    x64 = x.astype(np.float64)
    central, value = _erf_abs_of_array(np.abs(x64))
    if central.all():
        return np.subtract(1.0, np.copysign(value, x64, out=value), out=value).astype(x.dtype)
    out = np.where(central, 1.0 - np.copysign(value, x64),
                   np.where(x64 > 0, value, 2.0 - value))
    return np.where(np.isnan(x64), x64, out).astype(x.dtype)


# --------------------------------------------------------------------------------------------
# erf_inv: Giles, "Approximating the erfinv function" (GPU Computing Gems, 2011)
# --------------------------------------------------------------------------------------------

_ERFINV32_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                     0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_ERFINV32_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
                  0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)

# Double precision: three ranges of w = -log(1 - x^2).
_ERFINV64_CENTRAL = (
    -3.6444120640178196996e-21, -1.685059138182016589e-19, 1.2858480715256400167e-18,
    1.115787767802518096e-17, -1.333171662854620906e-16, 2.0972767875968561637e-17,
    6.6376381343583238325e-15, -4.0545662729752068639e-14, -8.1519341976054721522e-14,
    2.6335093153082322977e-12, -1.2975133253453532498e-11, -5.4154120542946279317e-11,
    1.051212273321532285e-09, -4.1126339803469836976e-09, -2.9070369957882005086e-08,
    4.2347877827932403518e-07, -1.3654692000834678645e-06, -1.3882523362786468719e-05,
    0.0001867342080340571352, -0.00074070253416626697512, -0.0060336708714301490533,
    0.24015818242558961693, 1.6536545626831027356)
_ERFINV64_MIDDLE = (
    2.2137376921775787049e-09, 9.0756561938885390979e-08, -2.7517406297064545428e-07,
    1.8239629214389227755e-08, 1.5027403968909827627e-06, -4.013867526981545969e-06,
    2.9234449089955446044e-06, 1.2475304481671778723e-05, -4.7318229009055733981e-05,
    6.8284851459573175448e-05, 2.4031110387097893999e-05, -0.0003550375203628474796,
    0.00095328937973738049703, -0.0016882755560235047313, 0.0024914420961078508066,
    -0.0037512085075692412107, 0.005370914553590063617, 1.0052589676941592334,
    3.0838856104922207635)
_ERFINV64_TAIL = (
    -2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09,
    -3.7894654401267369937e-09, 7.6157012080783393804e-09, -1.4960026627149240478e-08,
    2.9147953450901080826e-08, -6.7711997758452339498e-08, 2.2900482228026654717e-07,
    -9.9298272942317002539e-07, 4.5260625972231537039e-06, -1.9681778105531670567e-05,
    7.5995277030017761139e-05, -0.00021503011930044477347, -0.00013871931833623122026,
    1.0103004648645343977, 4.8499064014085844221)


def _pad(coefficients, degree):
    """Leading zeros, so that polynomials of lower degree share one Horner loop."""
    return (0.0,) * (degree - len(coefficients)) + tuple(coefficients)


def _piecewise_horner(w, pieces, fused, where):
    """Horner's rule with the coefficients chosen per element: ``pieces`` is a list of
    ``(mask, coefficients)`` (later masks win), all of one degree. ``fused``: each
    ``p * w + c`` is rounded once (computed in float64), like XLA's FMA instructions."""
    dt = w.dtype
    if where is _pick:
        return _horner_of_scalar(w, pieces, fused)
    # Each piece on its own elements, with its coefficients as Python floats (NumPy takes
    # them in the array's dtype): the operations each element would see with its
    # coefficients selected per step, without a select per step.
    choice = np.zeros(w.shape, np.int8)
    for j, (mask, _) in enumerate(pieces[1:], 1):
        choice[mask] = j
    p = np.empty_like(w)
    for j, (_, coefficients) in enumerate(pieces):
        chosen = choice == j
        if not chosen.any():
            continue
        part = w[chosen]
        if fused:
            first, *rest = _rounded_coefficients(coefficients, dt)
            part64 = part.astype(np.float64)
            q = np.full(part.shape, first, dt)
            for c in rest:
                q = (q.astype(np.float64) * part64 + c).astype(dt)
        else:
            q = np.full(part.shape, coefficients[0], dt)
            for c in coefficients[1:]:
                q = q * part + c
        p[chosen] = q
    return p


def _horner_of_scalar(w, pieces, fused):
    """``_piecewise_horner`` of one element, in Python floats (IEEE doubles, the float64
    operations of the array path; float32 steps rounded as the array path rounds them)."""
    coefficients = pieces[0][1]
    for mask, chosen in pieces[1:]:
        if mask:
            coefficients = chosen
    dt = w.dtype
    w = float(w)
    if not fused:
        p = coefficients[0]
        for c in coefficients[1:]:
            p = p * w + c
        return dt.type(p)
    rounded = _to_float32 if dt == np.float32 else lambda v: float(dt.type(v))
    first, *rest = _rounded_coefficients(coefficients, dt)
    p = first
    for c in rest:
        p = rounded(p * w + c)
    return dt.type(p)


_FLOAT32 = struct.Struct("f")


def _to_float32(v: float) -> float:
    """``v`` rounded to float32 (to nearest, as NumPy's cast), as a Python float: ~150 ns,
    where building a NumPy scalar takes ~300 ns."""
    try:
        return _FLOAT32.unpack(_FLOAT32.pack(v))[0]
    except OverflowError:  # (beyond float32's range: an infinity, as NumPy's cast gives)
        return math.copysign(math.inf, v)


@functools.cache
def _rounded_coefficients(coefficients, dt):
    """``coefficients`` rounded to ``dt``, as Python floats (converted once)."""
    return tuple(float(dt.type(c)) for c in coefficients)


def _erf_inv_formula(x, where):
    """erf_inv of an array (``where`` = ``np.where``) or of a NumPy scalar (``_pick``)."""
    dt = x.dtype
    w = -np.log1p(-x * x)
    if dt == np.float64:
        central, middle = w < 6.25, w < 16.0
        sqrt_w = np.sqrt(_maximum(w, dt.type(0), where))
        w = where(central, w - 3.125, where(middle, sqrt_w - 3.25, sqrt_w - 5.0))
        degree = len(_ERFINV64_CENTRAL)
        p = _piecewise_horner(w, [(None, _pad(_ERFINV64_TAIL, degree)),
                                  (middle, _pad(_ERFINV64_MIDDLE, degree)),
                                  (central, _ERFINV64_CENTRAL)], False, where)
    else:
        # (Python numbers meet NumPy scalars and arrays in their dtype, and these are exact
        # in every dtype: no scalar to build)
        central = w < 5.0
        w = where(central, w - 2.5, np.sqrt(_maximum(w, _zero(dt), where)) - 3.0)
        p = _piecewise_horner(w, [(None, _ERFINV32_TAIL), (central, _ERFINV32_CENTRAL)],
                              True, where)
    return where(abs(x) == 1, x * math.inf, p * x)


@functools.cache
def _zero(dt):
    return dt.type(0)


# --------------------------------------------------------------------------------------------
# lgamma and digamma: Lanczos' approximation (g = 7, 9 terms), reflection below 1/2
# --------------------------------------------------------------------------------------------

_LANCZOS_G = 7.0
_LANCZOS_BASE = 0.99999999999980993227684700473478
_LANCZOS_COEFFICIENTS = (
    676.520368121885098567009190444019, -1259.13921672240287047156078755283,
    771.3234287776530788486528258894, -176.61502916214059906584551354,
    12.507343278686904814458936853, -0.13857109526572011689554707,
    9.984369578019570859563e-6, 1.50563273514931155834e-7)


@functools.cache
def _lanczos_constants(dt):
    """The constants of lgamma and digamma in the compute dtype, converted once per dtype."""
    t = dt.type
    shift = _LANCZOS_G + 0.5
    return types.SimpleNamespace(
        zero=t(0), half=t(0.5), one=t(1), shift=t(shift), log_shift=t(math.log(shift)),
        base=t(_LANCZOS_BASE), terms=tuple((t(c), t(i + 1))
                                           for i, c in enumerate(_LANCZOS_COEFFICIENTS)),
        half_log_two_pi=t(0.5 * math.log(2 * math.pi)), pi=t(math.pi),
        log_pi=t(math.log(math.pi)), g=t(_LANCZOS_G), inf=t(np.inf), nan=t(np.nan))


def _lanczos_setup(x, where, k):
    """The shared start of lgamma and digamma: ``reflect`` marks x < 1/2, computed from
    1 - x; ``z`` is the shifted argument and ``log_t = log(z + g + 1/2)``."""
    reflect = x < k.half
    z = where(reflect, -x, x - k.one)
    # log(g + 1/2) + log1p(z / (g + 1/2)) is accurate where log(t) of the sum is not.
    log_t = k.log_shift + np.log1p(z / k.shift)
    return reflect, z, z + k.shift, log_t


def _lgamma_formula(x, where):
    """lgamma of an array (``where`` = ``np.where``) or of a NumPy scalar (``_pick``)."""
    k = _lanczos_constants(x.dtype)
    reflect, z, t, log_t = _lanczos_setup(x, where, k)
    series = k.base
    for c, offset in k.terms:
        series = series + c / (z + offset)
    # (z + 1/2) log t - t written as (z + 1/2 - t / log t) log t, which cannot overflow.
    out = log_y = np.log(series) + (z + k.half - t / log_t) * log_t + k.half_log_two_pi
    # (The reflection is skipped where no element takes it: the unused branch of the select
    # it would feed changes nothing.)
    if _any_true(reflect, where):
        # Reflection: lgamma(x) = log(pi) - log|sin(pi x)| - lgamma(1 - x), with the
        # argument of sin reduced to [0, 1/2] first so that it stays exact for large |x|.
        abs_x = abs(x)
        frac = abs_x - np.floor(abs_x)
        reduced = where(frac > k.half, k.one - frac, frac)
        log_sin = np.log(np.sin(k.pi * reduced))
        reflection = where(_is_finite(log_sin, where), k.log_pi - log_sin - log_y, -log_sin)
        out = where(reflect, reflection, log_y)
    out = where(_is_inf(x, where), k.inf, out)
    # Gamma(1) = Gamma(2) = 1: exact zeros there, which the sum above misses by an ulp of its
    # ~6.5-sized terms (3.6e-7 in float32), and which gammainc/gammaincc at a = 1, 2 lean on.
    return where((x == 1) | (x == 2), k.zero, out)


def _digamma_formula(x, where):
    """digamma of an array (``where`` = ``np.where``) or of a NumPy scalar (``_pick``)."""
    k = _lanczos_constants(x.dtype)
    reflect, z, t, log_t = _lanczos_setup(x, where, k)
    numerator = k.zero
    denominator = k.base
    for c, offset in k.terms:
        shifted = z + offset
        numerator = numerator - c / (shifted * shifted)
        denominator = denominator + c / shifted
    y = log_t + numerator / denominator - k.g / t
    if not _any_true(reflect, where):
        return y  # (no reflection, and no pole: those are below 1/2)
    # Reflection: digamma(x) = digamma(1 - x) - pi cot(pi x), with x shifted by an integer
    # (cot has period 1) so that pi x stays small.
    reduced = x + abs(np.floor(x + k.half))
    reflection = y - k.pi * np.cos(k.pi * reduced) / np.sin(k.pi * reduced)
    out = where(reflect, reflection, y)
    pole = (x <= 0) & (x == np.floor(x))
    return where(pole, k.nan, out)


def _maximum(x, y, where):
    # np.maximum of two NumPy scalars takes ~1 us; the expression keeps its bits (a NaN
    # x, and y on a tie).
    if where is not _pick:
        return np.maximum(x, y)
    return x if x > y or x != x else y


def _is_inf(x, where):
    # (np.isinf of a NumPy scalar takes ~0.6 us, math.isinf ~20 ns)
    return math.isinf(x) if where is _pick else np.isinf(x)


def _is_finite(x, where):
    return math.isfinite(x) if where is _pick else np.isfinite(x)


def _any_true(mask, where):
    """Whether any element of ``mask`` (an array, or one scalar with ``_pick``) is true."""
    return bool(mask) if where is _pick else bool(mask.any())


def _pick(condition, on_true, on_false):
    """``np.where`` of one element (NumPy scalars), without building 0-d arrays."""
    return on_true if condition else on_false


# Up to this many elements, a kernel runs element by element on NumPy scalars: a scalar
# operation costs ~80 ns, a ufunc call on a small array ~500 ns (np.where ~1 us). Each
# element's operations are the same IEEE operations in the same dtype either way, and no
# element depends on another, so both give the same bits; but for a NaN's sign: where two
# NaNs meet, the compiled scalar operation may keep the other operand's NaN than the ufunc
# loop does, so a NaN result sends the call to the whole-array evaluation.
_ELEMENTWISE_UP_TO = 6


def _elementwise_kernel(formula):
    """The kernel of ``formula(x, where)``: per element for small arrays, else whole."""
    def kernel(x):
        x = np.asarray(x)
        dt = x.dtype
        if x.size <= _ELEMENTWISE_UP_TO:
            flat = x.reshape(-1)  # (indexing it is ~10x faster than iterating it)
            out = [formula(flat[i], _pick) for i in range(flat.size)]
            if not any(map(math.isnan, out)):
                if x.ndim == 0:
                    return np.array(out[0], dt)
                return np.array(out, dt).reshape(x.shape)
        return np.asarray(formula(x, np.where), dt)
    kernel.__name__ = formula.__name__.replace("_formula", "_kernel")
    return kernel


def _float64_kernel(of_float, of_array):
    """The kernel of a function computed in float64 and rounded to the operand's dtype:
    ``of_float`` of each element's Python float for small arrays (a NaN passed through as
    it is), ``of_array`` of larger ones; both round the same float64 values to the dtype
    with the same cast."""
    def kernel(x):
        x = np.asarray(x)
        if x.size > _ELEMENTWISE_UP_TO:
            return of_array(x)
        if x.ndim == 0:
            return np.array(of_float(x.item()), x.dtype)
        if x.ndim == 1:
            return np.array(list(map(of_float, x.tolist())), x.dtype)
        return np.array(list(map(of_float, x.ravel().tolist())), x.dtype).reshape(x.shape)
    kernel.__name__ = of_array.__name__.replace("_of_array", "_kernel")
    return kernel


def lgamma_of_scalar(x):
    """``lgamma`` of a float32 or float64 NumPy scalar (the kernel's bits, without arrays).

    Example:
        >>> lgamma_of_scalar(np.float32(3.0))
        np.float32(0.69314754)
    """
    return _lgamma_formula(x, _pick)


def digamma_of_scalar(x):
    """``digamma`` of a float32 or float64 NumPy scalar (the kernel's bits, without arrays).

    Example:
        >>> digamma_of_scalar(np.float64(1.0))
        np.float64(-0.5772156649015334)
    """
    return _digamma_formula(x, _pick)


_erf_kernel = _float64_kernel(_erf_of_float, _erf_of_array)
_erfc_kernel = _float64_kernel(_erfc_of_float, _erfc_of_array)
_erf_inv_kernel = _elementwise_kernel(_erf_inv_formula)
_lgamma_kernel = _elementwise_kernel(_lgamma_formula)
_digamma_kernel = _elementwise_kernel(_digamma_formula)


# --------------------------------------------------------------------------------------------
# Primitives
# --------------------------------------------------------------------------------------------

def _float_only(prim):
    """Replace ``prim``'s abstract eval by one that also requires a float operand."""
    check_shapes = elementwise_abstract_eval(prim.name)

    def abstract_eval(x):
        if x.dtype not in _FLOATS:
            raise TypeError(
                f"Primitive '{prim.name}' needs a float operand (float16, bfloat16, float32 or "
                f"float64), got {x.str_short()}. Convert it first (funcarray.scipy.special "
                "does this for you).")
        return check_shapes(x)

    prim.abstract_eval = abstract_eval
    return prim


def _special(name, kernel):
    return _float_only(unary(name, kernel, hlo=f"chlo.{name}", upcast_low_precision=True))


erf_p = _special("erf", _erf_kernel)
erfc_p = _special("erfc", _erfc_kernel)
erf_inv_p = _special("erf_inv", _erf_inv_kernel)
lgamma_p = _special("lgamma", _lgamma_kernel)
digamma_p = _special("digamma", _digamma_kernel)


# --- derivatives ----------------------------------------------------------------------------

def _gaussian(x):
    """``2/sqrt(pi) exp(-x^2)``, the derivative of erf."""
    return ops.mul(ops.full_like(x, 2 / math.sqrt(math.pi)), ops.exp(ops.neg(ops.mul(x, x))))


# Trigamma's asymptotic series sum_k B_2k / z^(2k+1) after 1/z + 1/(2 z^2), from B_2 to B_14:
# accurate to float64 precision once z >= 8.5, reached by 8 steps of the recurrence.
_TRIGAMMA_RECURRENCE_STEPS = 8
_TRIGAMMA_SERIES = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6)


def _trigamma(x):
    """``polygamma(1, x)``, composed from primitives (so it works under every transform):
    ``psi1(x) = sum_{k<n} 1/(x+k)^2 + psi1(x+n)`` with the asymptotic series at ``x + n``,
    and ``psi1(x) = pi^2 / sin^2(pi x) - psi1(1 - x)`` below 1/2."""
    def c(value):
        return ops.full_like(x, value)

    one = c(1)
    reflect = ops.lt(x, c(0.5))
    y = ops.select(reflect, ops.sub(one, x), x)
    total = ops.zeros_like(y)
    for k in range(_TRIGAMMA_RECURRENCE_STEPS):
        shifted = ops.add(y, c(k))
        total = ops.add(total, ops.div(one, ops.mul(shifted, shifted)))
    inv = ops.div(one, ops.add(y, c(_TRIGAMMA_RECURRENCE_STEPS)))
    inv2 = ops.mul(inv, inv)
    series = c(_TRIGAMMA_SERIES[-1])
    for coefficient in reversed(_TRIGAMMA_SERIES[:-1]):
        series = ops.add(ops.mul(series, inv2), c(coefficient))
    total = ops.add(ops.add(ops.add(total, inv), ops.div(inv2, c(2))),
                    ops.mul(ops.mul(inv, inv2), series))
    # Inputs that are not reflected go through sin at a harmless point (1/2), so that the
    # unused branch has no infinities whose derivatives could leak NaNs.
    sin_pi_x = sin_p.bind(ops.mul(c(math.pi), ops.select(reflect, x, c(0.5))))
    reflected = ops.sub(ops.div(c(math.pi ** 2), ops.mul(sin_pi_x, sin_pi_x)), total)
    return ops.select(reflect, reflected, total)


def _lower_lgamma(ctx, x):
    """``chlo.lgamma`` with the kernel's exact zeros at 1 and 2 (XLA's float32 result at 1 is
    4.8e-7, an ulp of the terms it sums), so eager and compiled code agree there."""
    (aval,) = ctx.avals_out
    y = ctx.op("chlo.lgamma", x)[0]
    at_one = compare(ctx, x, ctx.constant(1, aval), "EQ")
    at_two = compare(ctx, x, ctx.constant(2, aval), "EQ")
    exact = ctx.op("stablehlo.or", at_one, at_two, results=[ctx.type_of(at_one)])[0]
    return ctx.op("stablehlo.select", exact, ctx.constant(0, aval), y)


lgamma_p.lower_rule = _lower_lgamma

defjvp(erf_p, lambda t, x: ops.mul(t, _gaussian(x)))
defjvp(erfc_p, lambda t, x: ops.neg(ops.mul(t, _gaussian(x))))
defjvp_with_output(erf_inv_p, lambda t, out, x: ops.mul(
    t, ops.mul(ops.full_like(out, math.sqrt(math.pi) / 2), ops.exp(ops.mul(out, out)))))
defjvp(lgamma_p, lambda t, x: ops.mul(t, digamma_p.bind(x)))
defjvp(digamma_p, lambda t, x: ops.mul(t, _trigamma(x)))
