"""The machinery of the differential tests of FFT-like transforms against jax
(``numpy.fft``, ``lax.fft``, ``scipy.fft``): operands and parameters drawn per function,
funcarray eager, funcarray jit and jax run on them, and their answers compared (whether they
raise, then shape, dtype, weak type and values).

The operand is an array of any dtype (0-d, empty, one to three axes, lengths that are and are
not powers of two), with values from a normal distribution, sometimes holding an infinity or
a NaN; the parameters are drawn from the function's ``FftOp.params``. jax runs with x64 on
only when the operand is 64-bit.

Finite results are compared within ``16 * eps * log2(2N) * max(|x| N, |jax|)`` (an FFT of
``N`` points sums ``N`` terms through ``log2 N`` rounding stages; ``|x| N`` bounds the
unnormalised result) scaled by the norm's factor; with a non-finite operand the values are
open (which elements become NaN or inf depends on the FFT's algorithm) and only the kind of
answer is compared. The index functions (fftfreq, fftshift) are compared exactly.

Example:
    >>> check_case(FftOp("fft", {}), Case(np.arange(4.0, dtype=np.float32), {"norm": "ortho"}))
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import jax.scipy.fft as jsf
import numpy as np
from differential_compare import BITS_64, Case, Raised, attempt, parts
from hypothesis import strategies as st
from op_table import ALL_DTYPES, kind_of

import funcarray as fa
import funcarray.lax as flax
import funcarray.numpy as fnp
import funcarray.scipy.fft as fsf
from funcarray import dtypes

__all__ = ["FftOp", "cases", "check_case"]

_SHAPES = ((), (0,), (1,), (4,), (5,), (2, 3), (3, 4), (2, 0), (2, 3, 4))


@dataclasses.dataclass(frozen=True)
class FftOp:
    """One function and the strategies of its keyword arguments.

    * ``check``: "transform" (compared within the FFT bound) or "exact" (index functions).
    * ``operand``: False for functions of parameters alone (fftfreq).
    * ``namespace``: "fft" (``numpy.fft``), "lax" (``lax.fft``) or "scipy.fft".
    """

    name: str
    params: dict
    check: str = "transform"
    operand: bool = True
    namespace: str = "fft"

    @property
    def id(self) -> str:
        return f"{self.namespace}.{self.name}"

    def call(self, lib):
        """The function in ``lib`` (``"funcarray"`` or ``"jax"``)."""
        if self.namespace == "lax":
            return flax.fft if lib == "funcarray" else jax.lax.fft
        if self.namespace == "scipy.fft":
            return getattr(fsf if lib == "funcarray" else jsf, self.name)
        return getattr((fnp if lib == "funcarray" else jnp).fft, self.name)


# --------------------------------------------------------------------------------------------
# Operands
# --------------------------------------------------------------------------------------------


@st.composite
def cases(draw, op):
    kwargs = {name: draw(strategy, label=name) for name, strategy in op.params.items()}
    kwargs = {name: v for name, v in kwargs.items() if v is not None or name == "n"}
    if not op.operand:
        return Case(None, kwargs)
    dtype = draw(st.sampled_from(ALL_DTYPES), label="dtype")
    shape = draw(st.sampled_from(_SHAPES), label="shape")
    rng = np.random.default_rng(draw(st.integers(0, 2**16), label="seed"))
    a = rng.normal(0, 4, shape)
    if kind_of(dtype) == "c":
        a = a + 1j * rng.normal(0, 4, shape)
    special = draw(st.sampled_from(("finite",) * 4 + ("inf", "nan")), label="values")
    if special != "finite" and a.size and kind_of(dtype) in "fc":
        a.reshape(-1)[draw(st.integers(0, a.size - 1))] = np.inf if special == "inf" else np.nan
    with np.errstate(all="ignore"):
        if kind_of(dtype) == "b":
            x = a > 0
        elif kind_of(dtype) in "iu":
            x = np.abs(np.round(a)).astype(dtype) if kind_of(dtype) == "u" else (
                np.round(a).astype(dtype))
        else:
            x = a.astype(dtype)
    return Case(x, kwargs)


# --------------------------------------------------------------------------------------------
# Running the three implementations
# --------------------------------------------------------------------------------------------


def _run_eager(op, case):
    fn = op.call("funcarray")
    if not op.operand:
        return attempt(lambda: fn(**case.kwargs), False)
    return attempt(lambda: fn(fnp.asarray(case.operand), **case.kwargs), False)


def _run_jit(op, case):
    fn = op.call("funcarray")
    if not op.operand:  # fftfreq's parameters are static: the call runs inside a jit
        return attempt(lambda: fa.jit(lambda: fn(**case.kwargs))(), False)
    return attempt(lambda: fa.jit(lambda x: fn(x, **case.kwargs))(fnp.asarray(case.operand)),
                   False)


def _x64(case) -> bool:
    if case.operand is None:
        wanted = case.kwargs.get("dtype")
        return wanted is not None and np.dtype(wanted) in BITS_64
    return np.dtype(case.operand.dtype) in BITS_64


def _run_jax(op, case):
    fn = op.call("jax")
    with jax.enable_x64(_x64(case)):
        if not op.operand:
            return attempt(lambda: fn(**case.kwargs), False)
        return attempt(lambda: fn(jnp.asarray(case.operand), **case.kwargs), False)


# --------------------------------------------------------------------------------------------
# Bounds
# --------------------------------------------------------------------------------------------


def value_bound(case, want, dtype=None) -> float:
    """``16 * eps * log2(2N) * max(max|x| * N, max|jax|)``, with ``N`` the number of points
    of the operand and of the result (whichever is larger: cropping and padding change it);
    ``eps`` of ``dtype``, by default the result's."""
    eps = float(dtypes.finfo(want.dtype if dtype is None else dtype).eps)
    with np.errstate(all="ignore"):
        x = np.abs(case.operand.astype(np.complex128))
        n = max(case.operand.size, want.size, 1)
        scale = max(float(np.max(x, initial=0.0)) * n,
                    float(np.max(np.abs(want.astype(np.complex128)), initial=0.0)))
    return 16 * eps * np.log2(2 * n) * scale


# --------------------------------------------------------------------------------------------
# Allowances
# --------------------------------------------------------------------------------------------


def jax_rfft_refuses_half_precision(case, got, want) -> bool:
    """jax's rfft2/rfftn (and lax.fft's RFFT) refuse float16 and bfloat16 ("RFFT input must
    be float32 or float64") where its own rfft converts them; funcarray converts them to
    float32 everywhere."""
    return (isinstance(want, Raised) and not isinstance(got, Raised)
            and "RFFT input must be float32 or float64" in str(want.exc)
            and dtypes.is_half_precision(case.operand.dtype))


def funcarray_refuses_no_points(op, case, got, want) -> bool:
    """A transform or frequency list of no points: funcarray raises a ValueError saying so,
    as NumPy does (fftfreq(0) divides by zero, irfft's default length 2 * (0 - 1) is
    refused); jax returns an empty array (rfftfreq(0) is [nan]). Allowed where funcarray
    raised that way and jax returned an empty array or rfftfreq's [nan]."""
    if not isinstance(got, Raised) or isinstance(want, Raised):
        return False
    message = str(got.exc)
    no_points = ("must be positive, got 0" in message or "is -2 for an input of length m = 0"
                 in message)
    return (isinstance(got.exc, ValueError) and no_points
            and (want[0][0].size == 0 or np.isnan(want[0][0]).all()))


def jax_dctn_ignores_extra_lengths(op, case, got, want) -> bool:
    """``s`` and ``axes`` of different lengths: jax's scipy.fft.dctn/idctn pair them up
    and drop the rest (with one axis it takes ``s[0]``; with ``s=(3,)`` and two axes it pads
    the first and transforms both); funcarray raises a ValueError, as SciPy and jax's own
    numpy.fft.fftn do (a length that is silently ignored hides a mistake)."""
    axes, lengths = case.kwargs.get("axes"), case.kwargs.get("s")
    return (op.namespace == "scipy.fft" and axes is not None and lengths is not None
            and len(lengths) != len(axes) and isinstance(got, Raised)
            and isinstance(got.exc, ValueError) and "same length" in str(got.exc)
            and not isinstance(want, Raised))


def jax_dct_rounds_in_half_precision(op, case) -> bool:
    """A float16 or bfloat16 operand of scipy.fft: jax's DCTs round intermediate values in
    the operand's precision (``idct`` of float16 ``[0.503, -0.528, 2.56, 0.420]`` is off by
    8e-4 in its float32 result); funcarray's are computed in float32 throughout, SciPy's
    values. Compared within the bound of the operand's precision."""
    return op.namespace == "scipy.fft" and dtypes.is_half_precision(case.operand.dtype)


def jax_rfftfreq_ignores_integer_dtype(op, case, got, want) -> bool:
    """jax's rfftfreq with an integer dtype returns float32 frequencies (its fftfreq gives
    the integer dtype, truncated to zeros); funcarray's rfftfreq gives the dtype asked for,
    as its fftfreq does."""
    return (op.name == "rfftfreq" and not isinstance(got, Raised)
            and not isinstance(want, Raised) and kind_of(got[0][0].dtype) in "iu"
            and case.kwargs.get("dtype") is not None
            and np.dtype(case.kwargs["dtype"]) == got[0][0].dtype)


# --------------------------------------------------------------------------------------------
# Comparison
# --------------------------------------------------------------------------------------------


def _check_against_jax(op, case, what, got, want):
    where = f"{op.id}{case}, {what}"
    if (jax_rfft_refuses_half_precision(case, got, want)
            or funcarray_refuses_no_points(op, case, got, want)
            or jax_dctn_ignores_extra_lengths(op, case, got, want)
            or jax_rfftfreq_ignores_integer_dtype(op, case, got, want)):
        return
    if isinstance(want, Raised) or isinstance(got, Raised):
        assert isinstance(want, Raised) and isinstance(got, Raised), (
            f"{where}: {got!r}, jax {want!r}")
        return
    (g, g_weak), (w, w_weak) = got[0], want[0]
    assert g.shape == w.shape, f"{where}: shape {g.shape}, jax {w.shape}"
    assert g.dtype == w.dtype, f"{where}: dtype {g.dtype}, jax {w.dtype}"
    assert g_weak == w_weak, f"{where}: weak_type {g_weak}, jax {w_weak}"
    if op.check == "exact" or kind_of(w.dtype) in "biu":
        same = all(np.array_equal(gp, wp, equal_nan=True) for gp, wp in zip(parts(g), parts(w)))
        if op.operand or kind_of(w.dtype) in "biu":
            assert same, f"{where}:\n  got {g.tolist()}\n  jax {w.tolist()}"
            return
        # fftfreq computes k / (n d): one rounding, in either order.
        eps = float(dtypes.finfo(w.dtype).eps)
        close = all((np.abs(gp.astype(np.float64) - wp) <= 2 * eps * np.abs(wp)).all()
                    for gp, wp in zip(parts(g), parts(w.astype(np.complex128 if kind_of(
                        w.dtype) == "c" else np.float64))))
        assert close, f"{where}:\n  got {g.tolist()}\n  jax {w.tolist()}"
        return
    if not np.isfinite(case.operand.astype(np.complex128)).all():
        return  # non-finite operand: values open, the kind of answer was compared
    bound = value_bound(case, w, case.operand.dtype if jax_dct_rounds_in_half_precision(
        op, case) else None)
    ok = np.ones(w.shape, bool)
    for gp, wp in zip(parts(g), parts(w)):
        gp, wp = gp.astype(np.float64), wp.astype(np.float64)
        with np.errstate(invalid="ignore"):
            ok &= (gp == wp) | (np.abs(gp - wp) <= bound)
    assert ok.all(), f"{where}:\n  got {g[~ok].tolist()}\n  jax {w[~ok].tolist()}"


def check_case(op, case):
    """Run ``case`` through funcarray eager, funcarray jit and jax, and compare."""
    want = _run_jax(op, case)
    for what, run in (("eager", _run_eager), ("jit", _run_jit)):
        _check_against_jax(op, case, what, run(op, case), want)
