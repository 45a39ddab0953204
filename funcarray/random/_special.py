"""Special functions the samplers need (``erf_inv``, ``erf``, ``lgamma``), composed from
``funcarray.numpy`` operations so that they work under every transform.

They follow the approximations XLA uses for ``chlo.erf_inv`` and ``chlo.lgamma`` (Giles'
polynomials for the inverse error function, the Lanczos approximation with g = 7 for log-gamma),
so samples agree with ``jax.random`` to within float rounding. ``erf`` is computed in float64
(a positive-term series for small arguments, the continued fraction of ``erfc`` for large ones)
and rounded to the input dtype. These are private helpers, not public API: once funcarray has
``erf_inv``/``erf``/``lgamma`` primitives, the samplers should use those instead.
"""

from __future__ import annotations

import math

from funcarray import dtypes
from funcarray import numpy as fnp
from funcarray.numpy._util import convert

# Giles, "Approximating the erfinv function" (GPU Computing Gems, 2011): single precision.
_ERFINV32_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                     0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_ERFINV32_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
                  0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)

# The same paper, double precision: three ranges of w = -log(1 - x^2).
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


def _compute_dtype(x):
    """float16/bfloat16/float8 are computed in float32 and rounded back, as XLA does."""
    return dtypes.float64 if x.dtype == dtypes.float64 else dtypes.float32


def _horner(coefficients, w):
    p = fnp.full_like(w, coefficients[0])
    for c in coefficients[1:]:
        p = p * w + c
    return p


def _piecewise_horner(w, pieces):
    """Horner's rule where the coefficients are chosen per element: ``pieces`` is a list of
    ``(mask, coefficients)`` (later masks win), all polynomials of the same degree."""
    degree = len(pieces[0][1])
    p = None
    for i in range(degree):
        c = fnp.full_like(w, pieces[0][1][i])
        for mask, coefficients in pieces[1:]:
            c = fnp.where(mask, coefficients[i], c)
        p = c if p is None else _multiply_add(p, w, c)
    return p


def _multiply_add(p, w, c):
    """``p * w + c`` rounded once for float32 (XLA contracts it into an FMA instruction)."""
    if p.dtype != dtypes.float32:
        return p * w + c
    wide = [convert(x, dtypes.float64) for x in (p, w, c)]
    return convert(wide[0] * wide[1] + wide[2], dtypes.float32)


def _pad(coefficients, degree):
    """Leading zeros, so that polynomials of lower degree share one Horner loop."""
    return (0.0,) * (degree - len(coefficients)) + tuple(coefficients)


def erf_inv(x):
    """The inverse error function on (-1, 1); +-inf at +-1 and NaN outside [-1, 1]."""
    out_dtype = x.dtype
    x = convert(x, _compute_dtype(x))
    w = -fnp.log1p(-x * x)
    if x.dtype == dtypes.float64:
        central, middle = w < 6.25, w < 16.0
        sqrt_w = fnp.sqrt(fnp.maximum(w, 0.0))
        w = fnp.where(central, w - 3.125, fnp.where(middle, sqrt_w - 3.25, sqrt_w - 5.0))
        degree = len(_ERFINV64_CENTRAL)
        p = _piecewise_horner(w, [(None, _pad(_ERFINV64_TAIL, degree)),
                                  (middle, _pad(_ERFINV64_MIDDLE, degree)),
                                  (central, _ERFINV64_CENTRAL)])
    else:
        central = w < 5.0
        w = fnp.where(central, w - 2.5, fnp.sqrt(fnp.maximum(w, 0.0)) - 3.0)
        p = _piecewise_horner(w, [(None, _ERFINV32_TAIL), (central, _ERFINV32_CENTRAL)])
    out = fnp.where(fnp.abs(x) == 1.0, x * math.inf, p * x)
    return convert(out, out_dtype)


# erf(x) = 2/sqrt(pi) exp(-x^2) sum_n (2x^2)^n x / (2n+1)!!: every term is positive, so the
# sum is accurate to a few ulps; 60 terms reach 1e-17 for |x| < 3. Beyond 3, erfc's continued
# fraction converges fast and erf = 1 - erfc loses nothing.
_ERF_SERIES_TERMS = 60
_ERFC_FRACTION_DEPTH = 60
_ERF_SERIES_LIMIT = 3.0


def erf(x):
    """The error function, computed in float64 and rounded to ``x``'s dtype."""
    out_dtype = x.dtype
    x = convert(x, dtypes.float64)
    a = fnp.abs(x)
    small = fnp.minimum(a, _ERF_SERIES_LIMIT)
    two_x2 = 2.0 * small * small
    term, total = small, small
    for n in range(1, _ERF_SERIES_TERMS):
        term = term * two_x2 / (2 * n + 1)
        total = total + term
    series = 2.0 / math.sqrt(math.pi) * fnp.exp(-small * small) * total
    # erfc(a) = exp(-a^2)/sqrt(pi) / (a + (1/2)/(a + 1/(a + (3/2)/(a + ...)))), evaluated
    # bottom-up from a fixed depth.
    large = fnp.maximum(a, _ERF_SERIES_LIMIT)
    denominator = large
    for k in range(_ERFC_FRACTION_DEPTH, 0, -1):
        denominator = large + (k / 2) / denominator
    erfc = fnp.exp(-large * large) / math.sqrt(math.pi) / denominator
    magnitude = fnp.where(a < _ERF_SERIES_LIMIT, series, 1.0 - erfc)
    out = fnp.where(fnp.isnan(x), x, fnp.copysign(magnitude, x))
    return convert(out, out_dtype)


_LANCZOS_G = 7.0
_LANCZOS_BASE = 0.99999999999980993227684700473478
_LANCZOS_COEFFICIENTS = (
    676.520368121885098567009190444019, -1259.13921672240287047156078755283,
    771.3234287776530788486528258894, -176.61502916214059906584551354,
    12.507343278686904814458936853, -0.13857109526572011689554707,
    9.984369578019570859563e-6, 1.50563273514931155834e-7)


def lgamma(x):
    """log|Gamma(x)| for x >= 0.5 (the samplers need no more), by Lanczos' approximation."""
    z = x - 1.0
    series = fnp.full_like(x, _LANCZOS_BASE)
    for i, c in enumerate(_LANCZOS_COEFFICIENTS):
        series = series + c / (z + (i + 1.0))
    shift = _LANCZOS_G + 0.5
    t = z + shift
    # log(t) as log(g + 1/2) + log1p(z / (g + 1/2)): accurate where log is not; and
    # (z + 1/2) log t - t as (z + 1/2 - t / log t) log t, which cannot overflow.
    log_t = math.log(shift) + fnp.log1p(z / shift)
    return (0.5 * math.log(2 * math.pi) + (z + 0.5 - t / log_t) * log_t) + fnp.log(series)
