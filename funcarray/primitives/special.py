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
evaluated in the compute dtype. ``erf`` and ``erfc`` are computed in float64 (a positive-term
series for small arguments, Laplace's continued fraction beyond, with the terms or levels
that the element's own range of |x| needs) and rounded: XLA's own approximations are
accurate to a few ulps, so both agree within float tolerance.

Speed: an element's result never depends on the other elements, so a kernel runs an array of
a few elements element by element, on NumPy scalars (Python floats for erf and erfc), where a
ufunc call per operation would cost ~10x more, and a larger array as a whole; both run the
same IEEE operations per element, so they give the same bits (a NaN result takes the whole
array path: NumPy keeps a NaN's sign differently in its scalar and array loops).

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
# erf and erfc: float64 series and continued fraction
# --------------------------------------------------------------------------------------------

# Below this magnitude the series is used, beyond it the continued fraction: at 1.5 the
# series needs ~40 terms and the fraction ~116 levels for float64 precision, and computing
# erfc = 1 - erf below 1.5 loses at most 5 bits of float64 (erfc(1.5) = 0.034).
_ERF_SWITCH = 1.5
_ERF_SERIES_TERMS = 45
_ERFC_FRACTION_DEPTH = 116
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)
_SQRT_PI = math.sqrt(math.pi)


def _series_terms(largest: float) -> int:
    """The fewest terms of erf's series that reach float64 precision up to ``largest``."""
    two_a2, bound, terms = 2.0 * largest * largest, 1.0, 0
    while bound > 1e-17 and terms < _ERF_SERIES_TERMS:
        terms += 1
        bound *= two_a2 / (2 * terms + 1)
    return terms


def _fraction_depth(smallest: float) -> int:
    """The levels of erfc's continued fraction that reach float64 precision from
    ``smallest`` on: ``110 (1.5 / a)^2 + 6`` (checked against libm's erfc)."""
    return min(_ERFC_FRACTION_DEPTH, math.ceil(110 * (_ERF_SWITCH / smallest) ** 2) + 6)


# Each element takes the terms (levels) its own range of |x| needs, whatever the other
# elements of the array: (upper end, series terms) below 1.5, where the series is
# sum_n (2a^2)^n / (3 5 ... (2n+1)) by Horner's rule in 2a^2, then (lower end, fraction
# depth) beyond. Ranges with more terms come first.
_SERIES_RANGES = tuple((upper, _series_terms(upper)) for upper in (_ERF_SWITCH, 1.0, 0.5))
_FRACTION_RANGES = tuple((lower, _fraction_depth(lower))
                         for lower in (_ERF_SWITCH, 1.75, 2.0, 2.5, 3.0, 4.0, 8.0))
# 1 / (3 5 ... (2n+1)), n = 0, 1, ...
_SERIES_COEFFICIENTS = tuple(1.0 / math.prod(range(3, 2 * n + 2, 2))
                             for n in range(_ERF_SERIES_TERMS + 1))


def _series_sum(two_a2, terms, sizes=None):
    """``sum_{n <= terms} two_a2^n c_n`` by Horner's rule, of a Python float (``terms`` an
    int) or of a float64 array whose elements come in groups (``sizes``) of decreasing
    ``terms`` (a list): an element's sum starts at its own ``c_terms``, so each element
    sees exactly the operations it would see alone."""
    c = _SERIES_COEFFICIENTS
    if sizes is None:
        acc = c[terms]
        for coefficient in c[terms - 1::-1]:
            acc = acc * two_a2 + coefficient
        return acc
    acc = np.repeat([c[t] for t in terms], sizes)
    m = 0
    for group, size in enumerate(sizes):
        # Steps n = terms[group] - 1 down to the next group's start: the groups whose sums
        # have started are this one and those before (a prefix).
        m += size
        head, y = acc[:m], two_a2[:m]
        for n in range(terms[group] - 1, _next(terms, group) - 1, -1):
            head *= y
            head += c[n]
    return acc


def _next(counts, group):
    """The count of the group after ``group`` (0 after the last)."""
    return counts[group + 1] if group + 1 < len(counts) else 0


def _fraction_level(a, depth, sizes=None):
    """``a + (1/2)/(a + 1/(a + ...))`` to ``depth`` levels, bottom-up, of a Python float or
    of a float64 array in groups of decreasing ``depth`` (as ``_series_sum``)."""
    if sizes is None:
        t = a
        for k in range(depth, 0, -1):
            t = a + (k / 2) / t
        return t
    t = a.copy()
    step = np.empty_like(a)
    m = 0
    for group, size in enumerate(sizes):
        m += size
        head, a_head, step_head = t[:m], a[:m], step[:m]
        for k in range(depth[group], _next(depth, group), -1):
            np.divide(k / 2, head, out=step_head)
            np.add(a_head, step_head, out=head)
    return t


def _erf_of_series(a, acc):
    """``erf(a) = 2/sqrt(pi) exp(-a^2) a sum_n (2a^2)^n / (2n+1)!!`` for ``0 <= a < 1.5``:
    every term is positive, so the sum has no cancellation (unlike the Taylor series)."""
    return _TWO_OVER_SQRT_PI * np.exp(-a * a) * a * acc


def _erfc_of_fraction(a, t):
    """``erfc(a) = exp(-a^2)/sqrt(pi) / (a + (1/2)/(a + 1/(a + (3/2)/(a + ...))))`` for
    ``a >= 1.5`` (Laplace's continued fraction): the error is relative, so the tiny tail
    values stay accurate, and it converges faster for larger ``a``."""
    return np.exp(-a * a) / (_SQRT_PI * t)


def _grouped(a, masks):
    """The indices of ``a``'s elements by group (``masks`` in order), and the group sizes."""
    groups = [np.flatnonzero(m) for m in masks]
    return np.concatenate(groups), [len(g) for g in groups]


def _erf_parts(x):
    """``(x, small, erf(|x|), erfc(|x|))`` in float64, where ``erf(|x|)`` is filled in for the
    small elements and ``erfc(|x|)`` for the others: each range of |x| runs its own
    number of terms (levels) on its own elements."""
    x = np.asarray(x, np.float64).reshape(-1)
    a = np.abs(x)
    small = a < _ERF_SWITCH
    erf_abs = np.zeros_like(a)
    erfc_abs = np.zeros_like(a)
    below_one, below_half = a < 1.0, a < 0.5
    index, sizes = _grouped(a, [small & ~below_one, below_one & ~below_half, below_half])
    if len(index):
        s = a[index]
        erf_abs[index] = _erf_of_series(s, _series_sum(
            2.0 * s * s, [t for _, t in _SERIES_RANGES], sizes))
    # (NaN in the first range: NaN results are restored from x by the callers)
    at_least = [a >= lower for lower, _ in _FRACTION_RANGES[1:]]
    index, sizes = _grouped(a, [~small & ~at_least[0]]
                            + [low & ~high for low, high in zip(at_least, at_least[1:])]
                            + [at_least[-1]])
    if len(index):
        s = a[index]
        erfc_abs[index] = _erfc_of_fraction(s, _fraction_level(
            s, [d for _, d in _FRACTION_RANGES], sizes))
    return x, small, erf_abs, erfc_abs


def _erf_abs_of_scalar(a: float):
    """``(small, erf(a) or erfc(a))`` of one ``a = |x|`` in Python floats (``np.exp`` of a
    float64 scalar): the operations ``_erf_parts`` runs on that element."""
    if a < _ERF_SWITCH:
        terms = _SERIES_RANGES[0][1]
        for upper, range_terms in _SERIES_RANGES[1:]:
            if a < upper:
                terms = range_terms
        return True, float(_erf_of_series(a, _series_sum(2.0 * a * a, terms)))
    depth = _FRACTION_RANGES[0][1]
    for lower, range_depth in _FRACTION_RANGES[1:]:
        if a >= lower:
            depth = range_depth
    return False, float(_erfc_of_fraction(a, _fraction_level(a, depth)))


def _erf_of_float(v: float) -> float:
    """erf of one element as a Python float (float64; the kernel rounds it to the dtype)."""
    small, value = _erf_abs_of_scalar(abs(v))
    return math.copysign(value if small else 1.0 - value, v)


def _erfc_of_float(v: float) -> float:
    """erfc of one element as a Python float (float64; the kernel rounds it to the dtype)."""
    small, value = _erf_abs_of_scalar(abs(v))
    return 1.0 - math.copysign(value, v) if small else value if v > 0 else 2.0 - value


def _erf_formula(x, where):
    """erf of an array (``where`` = ``np.where``) or of a NumPy scalar (``_pick``)."""
    dt = x.dtype
    if where is _pick:
        return dt.type(_erf_of_float(float(x)))
    x64, small, erf_abs, erfc_abs = (v.reshape(x.shape) for v in _erf_parts(x))
    magnitude = np.where(small, erf_abs, 1.0 - erfc_abs)
    out = np.where(np.isnan(x64), x64, np.copysign(magnitude, x64))
    return np.asarray(out).astype(dt)


def _erfc_formula(x, where):
    """erfc of an array (``where`` = ``np.where``) or of a NumPy scalar (``_pick``)."""
    dt = x.dtype
    if where is _pick:
        return dt.type(_erfc_of_float(float(x)))
    x64, small, erf_abs, erfc_abs = (v.reshape(x.shape) for v in _erf_parts(x))
    out = np.where(small, 1.0 - np.copysign(erf_abs, x64),
                   np.where(x64 > 0, erfc_abs, 2.0 - erfc_abs))
    out = np.where(np.isnan(x64), x64, out)
    return np.asarray(out).astype(dt)


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
    rounded = dt.type
    first, *rest = _rounded_coefficients(coefficients, dt)
    p = first
    for c in rest:
        p = float(rounded(p * w + c))
    return rounded(p)


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
        central = w < dt.type(5.0)
        w = where(central, w - dt.type(2.5), np.sqrt(_maximum(w, dt.type(0), where)) - dt.type(3))
        p = _piecewise_horner(w, [(None, _ERFINV32_TAIL), (central, _ERFINV32_CENTRAL)],
                              True, where)
    return where(abs(x) == 1, x * dt.type(np.inf), p * x)


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


def _elementwise_kernel(formula, of_float=None):
    """The kernel of ``formula(x, where)``: per element for small arrays, else whole.
    ``of_float``, where given, computes one element from and to a Python float (float64
    formulas: the array of its results rounds them to the dtype, as ``astype`` does)."""
    def kernel(x):
        x = np.asarray(x)
        dt = x.dtype
        if x.size <= _ELEMENTWISE_UP_TO:
            if of_float is None:
                flat = x.reshape(-1)  # (indexing it is ~10x faster than iterating it)
                out = [formula(flat[i], _pick) for i in range(flat.size)]
            else:
                out = [of_float(v) for v in x.ravel().tolist()]
            if not any(map(math.isnan, out)):
                if x.ndim == 0:
                    return np.array(out[0], dt)
                return np.array(out, dt).reshape(x.shape)
        return np.asarray(formula(x, np.where), dt)
    kernel.__name__ = formula.__name__.replace("_formula", "_kernel")
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


_erf_kernel = _elementwise_kernel(_erf_formula, _erf_of_float)
_erfc_kernel = _elementwise_kernel(_erfc_formula, _erfc_of_float)
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
