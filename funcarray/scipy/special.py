"""Special functions with ``jax.scipy.special``'s names and signatures.

Integer and bool inputs are computed as floats (int64 as float64, others as float32), as in
JAX; complex inputs are rejected. ``erf``, ``erfc``, ``erfinv``, ``gammaln`` and ``digamma``
are one primitive each (``funcarray.primitives.special``); the incomplete gamma and beta
functions, ``zeta``, ``polygamma``, ``betaln`` and the Bessel functions of orders 0 and 1 are
lax's (``funcarray/lax/_special_*.py``), called with scipy's argument promotion; the others
are compositions of ``funcarray.numpy`` operations and ``funcarray.lax`` loops. By family:
``_special_basic.py`` (xlogy, entropies, logit/expit, Box-Cox, logsumexp/softmax),
``_special_gamma.py`` (gamma, beta, factorial, comb, poch, polygamma, zeta),
``_special_normal.py`` (ndtr, ndtri, log_ndtr, erfcx), ``_special_incomplete.py``
(gammainc, gammaincc, betainc), ``_special_bessel.py`` (i0, i0e, i1, i1e) and
``_special_expint.py`` (exp1, expi, expn, spence, dawsn, bernoulli). Every function works
eagerly and under jit, vmap and grad.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import asarray_arg, convert, to_inexact_dtype
from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.base.errors import op_type_error
from funcarray.primitives.special import digamma_p, erf_inv_p, erf_p, erfc_p, lgamma_p
from funcarray.scipy import (
    _special_basic,
    _special_bessel,
    _special_bessel_jn,
    _special_expint,
    _special_gamma,
    _special_hyp2f1,
    _special_hyper,
    _special_incomplete,
    _special_integrals,
    _special_normal,
    _special_sph_harm,
)
from funcarray.scipy._special_basic import *  # noqa: F403
from funcarray.scipy._special_bessel import *  # noqa: F403
from funcarray.scipy._special_bessel_jn import *  # noqa: F403
from funcarray.scipy._special_expint import *  # noqa: F403
from funcarray.scipy._special_gamma import *  # noqa: F403
from funcarray.scipy._special_hyp2f1 import *  # noqa: F403
from funcarray.scipy._special_hyper import *  # noqa: F403
from funcarray.scipy._special_incomplete import *  # noqa: F403
from funcarray.scipy._special_integrals import *  # noqa: F403
from funcarray.scipy._special_normal import *  # noqa: F403
from funcarray.scipy._special_sph_harm import *  # noqa: F403
from funcarray.transforms.host_shortcuts import host_shortcut, host_value

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

_MODULES = (_special_basic, _special_gamma, _special_normal, _special_incomplete,
            _special_bessel, _special_expint, _special_integrals,
            _special_bessel_jn, _special_sph_harm, _special_hyper,
            _special_hyp2f1)
__all__ = ["erf", "erfc", "erfinv", "gammaln", "digamma",
           *(name for module in _MODULES for name in module.__all__)]


def _real_float_arg(name, x):
    """``x`` as a real float array: ints/bools converted, complex rejected."""
    x = asarray_arg(name, x)
    if dtypes.is_inexact(x.dtype) and x.dtype.kind == "c":
        raise op_type_error(name, f"complex inputs are not supported, got {x.dtype}; "
                                  "pass the real part (fnp.real) if that is what you mean")
    if not dtypes.is_inexact(x.dtype):
        x = convert(x, to_inexact_dtype(x.dtype), x.weak_type)
    return x


_FLOAT32_64 = (np.dtype(np.float32), np.dtype(np.float64))


def _kernel_on_host(prim):
    """The shortcut of a function that is one primitive: its kernel on a concrete float32
    or float64 array, as the general path's bind runs it (other dtypes convert or upcast
    first: the general path)."""
    kernel = prim.kernel

    def on_host(x):
        value = host_value(x)
        if value is None or value.dtype not in _FLOAT32_64:
            return NotImplemented
        return Array(kernel(value), x._weak)
    return on_host


@host_shortcut(_kernel_on_host(erf_p))
def erf(x: ArrayLike) -> Array:
    """The error function ``2/sqrt(pi) * integral_0^x exp(-t^2) dt``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import erf
        >>> erf(fnp.asarray([-1.0, 0.0, 0.5, fnp.inf]))
        Array([-0.8427008,  0.       ,  0.5204999,  1.       ], dtype=float32)
    """
    return erf_p.bind(_real_float_arg("erf", x))


@host_shortcut(_kernel_on_host(erfc_p))
def erfc(x: ArrayLike) -> Array:
    """The complementary error function ``1 - erf(x)``, accurate where it is tiny.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import erfc
        >>> erfc(fnp.asarray([-1.0, 0.0, 5.0]))
        Array([1.8427008e+00, 1.0000000e+00, 1.5374598e-12], dtype=float32)
    """
    return erfc_p.bind(_real_float_arg("erfc", x))


@host_shortcut(_kernel_on_host(erf_inv_p))
def erfinv(x: ArrayLike) -> Array:
    """The inverse error function on [-1, 1] (``+-inf`` at ``+-1``, NaN outside).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import erfinv
        >>> erfinv(fnp.asarray([0.0, 0.5, 1.0]))
        Array([0.        , 0.47693628,        inf], dtype=float32)
    """
    return erf_inv_p.bind(_real_float_arg("erfinv", x))


@host_shortcut(_kernel_on_host(lgamma_p))
def gammaln(x: ArrayLike) -> Array:
    """``log|Gamma(x)|``; ``inf`` at the poles 0, -1, -2, ...

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import gammaln
        >>> gammaln(fnp.asarray([0.5, 3.0, 10.0]))
        Array([ 0.57236516,  0.69314754, 12.80183   ], dtype=float32)
    """
    return lgamma_p.bind(_real_float_arg("gammaln", x))


@host_shortcut(_kernel_on_host(digamma_p))
def digamma(x: ArrayLike) -> Array:
    """The digamma function ``Gamma'(x) / Gamma(x)``; NaN at the poles 0, -1, -2, ...

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import digamma
        >>> digamma(fnp.asarray([1.0, 2.0, 0.5]))
        Array([-0.5772154 ,  0.42278463, -1.96351   ], dtype=float32)
    """
    return digamma_p.bind(_real_float_arg("digamma", x))
