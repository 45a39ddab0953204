"""Running funcarray and jax on products, contractions, differences, statistics of pairs,
polynomials and windows, and comparing what comes out: the machinery of the differential
tables ``PRODUCT_OPS`` (tests/numpy/test_differential_products_jax.py) and
``POLYNOMIAL_OPS`` (tests/numpy/test_differential_polynomials_jax.py).

Operands are arrays of any dtype in shapes drawn per function (0-d, empty, broadcasting,
mismatched), sometimes Python scalars. Their values are either small integers (every product
of them is exact, so float results are compared tightly) or a mix of small values with each
dtype's edge values (signed zeros, infinities, NaN, extremes, subnormals, integer min/max).
jax runs with x64 on only when an operand is 64-bit.

Integer and bool results are compared exactly (products wrap as jax's). Float results are
sums of products computed in any order: they may differ by a few roundings of each term, so
the bound is ``8 * eps * terms * scale`` (``ProductOp.terms``: the contraction length;
``ProductOp.scale``: the magnitude of the terms, from the operands). Where an operand is not
finite or the terms overflow the dtype, the order of the additions decides between NaN,
infinity and a finite value (``(max + max) - max``): the values are open there, the kinds of
answer are still compared. Every other difference allowed is a named function below.

Example:
    >>> import funcarray.numpy as fnp
    >>> op = ProductOp("outer", lambda ns, a, b: ns.outer(a, b), (((2,), (3,)),))
    >>> check_case(op, Case((np.ones(2, np.float32), np.arange(3, dtype=np.int8)), {}, True))
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
from differential_compare import (
    BITS_64,
    DEFAULT_32,
    Raised,
    parts,
    reproducer,
    same_kind_of_answer,
    subnormal,
)
from differential_values import array_of, python_scalars
from hypothesis import strategies as st
from op_table import ALL_DTYPES, ANY, SMALL, kind_of

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import dtypes

__all__ = ["Case", "ProductOp", "accumulating", "assert_covers", "cases", "check_case",
           "distinct_points", "fixed", "magnitude", "operand_values", "power", "row_named",
           "vander_condition"]

@dataclasses.dataclass(frozen=True)
class Case:
    """One call's operands (NumPy arrays or Python scalars) and static keyword arguments,
    printed as a reproducer; ``small``: the values are small integers."""

    operands: tuple
    kwargs: dict
    small: bool

    @property
    def arrays(self) -> list:
        return [v for v in self.operands if isinstance(v, np.ndarray)]

    def __repr__(self):
        shown = ", ".join(map(reproducer, self.operands))
        return f"({shown}, **{self.kwargs!r})"


@dataclasses.dataclass(frozen=True)
class ProductOp:
    """One function and how to call and compare it.

    * ``call(ns, *operands, **kwargs)`` runs it with either namespace.
    * ``shapes``: the operand shapes drawn (one tuple per call).
    * ``kwargs(shapes)``: a Hypothesis strategy of its static keyword arguments.
    * ``scalars``: an operand may be a Python scalar instead of an array.
    * ``terms(case)``: how many rounded terms an element of the result sums.
    * ``scale(case)``: the magnitude of those terms (float64); default the product of the
      operands' largest magnitudes.
    * ``jit(kwargs)``: whether the form can be staged (data-dependent output shapes cannot).
    * ``operands``: a strategy ``operands(dtype, small)`` of the operand tuple, replacing
      ``shapes`` where the values must be ordered or distinct.
    """

    name: str
    call: Callable
    shapes: tuple = ()
    kwargs: Callable = lambda shapes: st.just({})
    scalars: bool = True
    terms: Callable = lambda case: largest_axis(case)
    scale: Callable = lambda case: _product_ofmagnitudes(case)
    jit: Callable = lambda kwargs: True
    operands: Callable | None = None


def magnitude(x) -> float:
    """The largest finite magnitude of ``x``'s real and imaginary parts, times 2 (the
    modulus of a complex number of finite parts may overflow; 1 at least)."""
    z = np.asarray(x).astype(np.complex128) if np.size(x) else np.zeros(1, np.complex128)
    a = np.abs(np.concatenate([z.real.ravel(), z.imag.ravel()]))
    a = a[np.isfinite(a)]
    return max(2 * float(a.max(initial=0.0)), 1.0)


def power(base, exponent) -> float:
    """``base ** exponent`` in float64, infinite where it overflows."""
    with np.errstate(over="ignore"):
        return float(np.float64(base) ** max(int(exponent), 1))


def _product_ofmagnitudes(case) -> float:
    return math.prod(magnitude(v) for v in case.operands)


def largest_axis(case) -> int:
    return max((max(np.shape(v), default=1) for v in case.operands), default=1)


def fixed(**strategies):
    return lambda shapes: st.fixed_dictionaries(strategies)


# The dtypes a product may be asked to accumulate in: every kind, narrower and wider than
# the operands (32 bits at most: jax without x64 would narrow a 64-bit request).
_PREFERRED = st.sampled_from(tuple(np.dtype(d) for d in (
    dtypes.bool_, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.uint32, dtypes.float16,
    dtypes.bfloat16, dtypes.float32, dtypes.complex64)))


def accumulating(kwargs=lambda shapes: st.just({})):
    """``kwargs``, sometimes with a ``preferred_element_type``."""
    return lambda shapes: st.tuples(kwargs(shapes), st.one_of(
        st.just({}), st.fixed_dictionaries({"preferred_element_type": _PREFERRED}))).map(
        lambda both: {**both[0], **both[1]})


# --------------------------------------------------------------------------------------------
# Operand strategies with ordered or distinct values
# --------------------------------------------------------------------------------------------


def _small_values(dtype, shape):
    """Small integers of ``dtype`` (bools for bool; non-negative for unsigned)."""
    kind = kind_of(dtype)
    lo = 0 if kind in "bu" else -3
    ints = st.integers(lo, 1 if kind == "b" else 3)
    size = math.prod(shape)
    return st.lists(ints, min_size=size, max_size=size).map(
        lambda xs: np.array(xs).astype(dtype).reshape(shape))


def operand_values(dtype, shape, small):
    return _small_values(dtype, shape) if small else array_of(dtype, shape, ANY)


def distinct_points(n):
    """``n`` distinct increasing small integers (as float64 values)."""
    return st.lists(st.integers(-4, 4), min_size=n, max_size=n, unique=True).map(sorted)


def vander_condition(case) -> float:
    """The condition number of polyfit's least-squares matrix (columns scaled to unit norm,
    as both libraries scale them)."""
    x = np.asarray(case.operands[0], np.complex128)
    vander = np.vander(x, case.kwargs["deg"] + 1)
    norms = np.linalg.norm(vander, axis=0)
    if not vander.size or not np.isfinite(vander).all() or not norms.all():
        return np.inf
    return float(np.linalg.cond(vander / norms))


@st.composite
def cases(draw, op):
    dtype = draw(st.sampled_from(ALL_DTYPES), label="dtype")
    small = draw(st.booleans(), label="small values")
    if op.operands is not None:
        operands = draw(op.operands(dtype, small), label="operands")
        shapes = tuple(np.shape(v) for v in operands)
    else:
        shapes = draw(st.sampled_from(op.shapes), label="shapes")
        operands = []
        for shape in shapes:
            if op.scalars and shape == () and draw(st.integers(0, 2), label="scalar") == 0:
                operands.append(draw(python_scalars(SMALL if small else ANY)))
            else:
                operands.append(draw(operand_values(dtype, shape, small)))
        operands = tuple(operands)
    return Case(operands, draw(op.kwargs(shapes), label="kwargs"), small)


# --------------------------------------------------------------------------------------------
# Running the three implementations
# --------------------------------------------------------------------------------------------


def _results(out):
    """``out`` as a tuple of ``(NumPy array, weak_type)``; a Python number that jax returns
    among arrays (polyfit's ``rcond``) has weak_type None."""
    outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    return [(np.asarray(o), bool(o.weak_type) if hasattr(o, "weak_type") else None)
            for o in outs]


def _attempt(call):
    """``call()``'s results, or ``Raised``: raising is part of the behaviour compared."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # NumPy's and jax's own warnings (overflow, casts)
            return call()
    except Exception as exc:  # noqa: BLE001 (any exception is compared with the others')
        return Raised(exc)


def _kwargs(ns, case):
    return {k: ns.asarray(v) if isinstance(v, np.ndarray) else v
            for k, v in case.kwargs.items()}


def _call(ns, op, case, operands):
    return _results(op.call(ns, *operands, **_kwargs(ns, case)))


def _traced(case, asarray):
    return [asarray(v) for v in case.arrays]


def _with_arrays(case, arrays):
    it = iter(arrays)
    return [next(it) if isinstance(v, np.ndarray) else v for v in case.operands]


def _run_eager(op, case):
    return _attempt(lambda: _call(fnp, op, case, _with_arrays(case, _traced(case, fnp.asarray))))


def _run_jit(op, case):
    def staged(*arrays):
        return op.call(fnp, *_with_arrays(case, arrays), **_kwargs(fnp, case))

    return _attempt(lambda: _results(fa.jit(staged)(*_traced(case, fnp.asarray))))


def _x64(case) -> bool:
    """64-bit operands (the keyword arguments' arrays are 32-bit)."""
    return any(np.dtype(a.dtype) in BITS_64 for a in case.arrays)


def _run_jax(op, case):
    x64 = _x64(case)
    with jax.enable_x64(x64):
        return _attempt(lambda: _call(jnp, op, case, _with_arrays(
            case, _traced(case, jnp.asarray)))), x64


# --------------------------------------------------------------------------------------------
# Bounds and allowances
# --------------------------------------------------------------------------------------------


def value_bound(op, case, dtype, k=0) -> float:
    """``8 * eps * terms * scale``: each of ``terms`` products rounded once or twice, in an
    order either library may choose, relative to the terms' magnitude (output ``k``'s,
    where ``scale`` gives one per output)."""
    eps = float(dtypes.finfo(dtype).eps)
    return 8 * eps * max(op.terms(case), 1) * _scale(op, case, k)


def _scale(op, case, k) -> float:
    scale = op.scale(case)
    return scale[min(k, len(scale) - 1)] if isinstance(scale, tuple) else scale


def order_decides_non_finite(op, case, dtype, k=0) -> bool:
    """An operand is not finite, or the terms may overflow ``dtype``: whether an element
    is NaN, an infinity or finite depends on the order of the additions (``inf - inf``,
    ``(max + max) - max``) and the order XLA and NumPy multiply complex parts in."""
    if any(not np.isfinite(np.asarray(a, np.complex128)).all() for a in case.arrays):
        return True
    with np.errstate(over="ignore"):
        big = max(op.terms(case), 1) * _scale(op, case, k)
    return not big < float(dtypes.finfo(dtype).max) / 8


def _distance(a, b) -> float:
    """How far two roots are; NaN roots are nearest each other."""
    a, b = complex(a), complex(b)
    if np.isnan(a) or np.isnan(b):
        return 0.0 if np.isnan(a) and np.isnan(b) else np.inf
    return abs(a - b)


def roots_in_jax_order(op, g, w):
    """Roots come in the order of the eigenvalue solver's iterations, which neither library
    promises: ``g``'s roots are matched to ``w``'s nearest (greedily), then compared."""
    if op.name != "roots" or g.shape != w.shape or g.size < 2:
        return g
    left = list(g)
    ordered = []
    for root in w:
        k = int(np.argmin([_distance(r, root) for r in left]))
        ordered.append(left.pop(k))
    return np.array(ordered, g.dtype)


# Where jax raises and NumPy defines an answer, funcarray follows NumPy: each function below
# names one such refusal; funcarray's values are then compared with NumPy's.


def jax_multiplies_without_bool(op, case) -> bool:
    """jax's kron, vander and polyadd of bools raise (its ``mul``, ``iota`` and scatter-add
    refuse bool); NumPy gives the logical products and sums (``vander``: ``x**0`` True)."""
    return op.name in ("kron", "vander", "polyadd") and any(
        np.asarray(v).dtype == np.bool_ for v in case.operands) and (
        op.name != "polyadd" or all(np.ndim(v) == 1 for v in case.operands))


def jax_pads_polynomials_by_slicing(op, case) -> bool:
    """jax's polyadd and polysub add the shorter operand into ``[-len:]`` of the longer,
    which for an empty operand is the whole array, and raise on the shape mismatch; NumPy
    treats an empty coefficient array as the zero polynomial."""
    return op.name in ("polyadd", "polysub") and any(a.size == 0 for a in case.arrays)


def jax_windows_refuse_negative_lengths(op, case) -> bool:
    """jax's window functions raise for ``M < 0`` (a negative iota length); NumPy's give an
    empty window, as for ``M = 0``."""
    return op.name in ("bartlett", "blackman", "hamming", "hanning", "kaiser") and (
        case.kwargs["M"] < 0)


def jax_polyfit_needs_inexact_x(op, case) -> bool:
    """jax's polyfit takes ``finfo(x.dtype).eps`` before promoting ``x``, which raises for
    integer and bool ``x``; NumPy and funcarray fit them as floats. jax is asked again with
    ``x`` in funcarray's float for it (float64 for 64-bit integers, else float32)."""
    return op.name == "polyfit" and kind_of(case.operands[0].dtype) in "biu"


def _with_inexact_x(case):
    x, *rest = case.operands
    inexact = np.float64 if np.dtype(x.dtype) in BITS_64 else np.float32
    return dataclasses.replace(case, operands=(x.astype(inexact), *rest))


def jax_vander_counts_down_in_the_dtype(op, case) -> bool:
    """jax's vander with ``N=0`` builds its powers ``N-1 .. 0`` in the operand's dtype and
    raises OverflowError for ``-1`` in an unsigned dtype; NumPy gives the empty matrix."""
    return op.name == "vander" and (case.kwargs.get("N") == 0 or (
        case.kwargs.get("N") is None and np.size(case.operands[0]) == 0))


def jax_gradient_refuses_edge_order(op, case) -> bool:
    """jax's gradient raises NotImplementedError for any ``edge_order``; NumPy's (and
    funcarray's) take second-order one-sided differences at the ends for ``edge_order=2``.
    ``edge_order=1`` is jax's own formula: jax is asked again without it."""
    return op.name == "gradient" and "edge_order" in case.kwargs


def _without_edge_order(case):
    kwargs = {k: v for k, v in case.kwargs.items() if k != "edge_order"}
    return dataclasses.replace(case, kwargs=kwargs) if case.kwargs["edge_order"] == 1 else case


def jax_dot_of_a_python_int_with_narrow_ints(op, case) -> bool:
    """jax's dot (and inner, vdot, einsum) of a Python int with an 8- or 16-bit integer array
    raises (it asks dot_general for the narrow dtype as its preferred type of an int32
    product); NumPy gives the product in the array's dtype."""
    return op.name in ("dot", "inner", "vdot", "einsum") and any(
        type(v) is int for v in case.operands) and any(
        kind_of(a.dtype) in "iu" and a.dtype.itemsize < 4 for a in case.arrays)


JAX_REFUSALS = (jax_multiplies_without_bool, jax_pads_polynomials_by_slicing,
                jax_windows_refuse_negative_lengths, jax_gradient_refuses_edge_order,
                jax_vander_counts_down_in_the_dtype, jax_dot_of_a_python_int_with_narrow_ints)


def jax_multiplies_by_bool_with_select(op, case) -> bool:
    """jax multiplies a bool by a float as a select (``multiply(False, nan)`` is 0); NumPy
    (and IEEE, and funcarray) convert the bool and give ``0 * nan = nan``. Products of a
    bool operand with non-finite floats follow NumPy."""
    kinds = {kind_of(np.asarray(v).dtype) for v in case.operands}
    return ("b" in kinds and kinds & set("fc") and op.name not in ("interp", "polyfit")
            and any(not np.isfinite(np.asarray(v, np.complex128)).all()
                    for v in case.operands))


def jax_interp_of_one_point_takes_right(op, case) -> bool:
    """jax's interp with a single sample point ``xp`` gives ``right`` also for ``x`` left
    of it (its clipped search index is past the only point); NumPy gives ``left``
    (``fp[0]`` by default) there."""
    return op.name == "interp" and np.size(case.operands[1]) == 1 and all(
        kind_of(a.dtype) in "biuf" for a in case.arrays[:2])


def xla_roots_of_a_tiny_leading_coefficient(op, case) -> bool:
    """roots of coefficients led by a tiny nonzero value (the smallest normal float32): the
    companion matrix holds ``1 / tiny``, and XLA's eigenvalue solver (jax, funcarray's jit)
    returns roots of magnitude 1e-7 where LAPACK's (NumPy, funcarray eager) gives the true
    ``1e19``; the kinds of answer are compared."""
    p = case.operands[0] if op.name == "roots" else ()
    return (np.size(p) > 0 and 0 < abs(complex(np.ravel(p)[0])) < 1e-30
            and kind_of(p.dtype) in "fc")


JAX_DEPARTURES = (jax_multiplies_by_bool_with_select, jax_interp_of_one_point_takes_right)
JAX_RETRIES = ((jax_polyfit_needs_inexact_x, _with_inexact_x),
               (jax_gradient_refuses_edge_order, _without_edge_order))


def python_float_joins_integers(case, g, w) -> bool:
    """A Python float (an operand, a parameter, or a default such as trapezoid's ``dx`` or
    unwrap's ``period``) joining integer arrays under x64: jax's weak float becomes
    float64, funcarray's float32, its Python scalar default without a switch (README,
    "Dtypes"). jax's values are compared in funcarray's dtype."""
    return (_x64(case) and all(kind_of(a.dtype) in "biu" for a in case.arrays)
            and DEFAULT_32.get(w.dtype) == g.dtype)


def weak_default_is_32_bit(case, g, g_weak, w, w_weak) -> bool:
    """A weak result from a Python float under x64 (polyfit's ``rcond``, made from
    ``len(x) * eps``): 64-bit in jax, 32-bit in funcarray, whose Python scalar defaults
    are 32-bit without a switch (README, "Dtypes")."""
    return _x64(case) and g_weak and w_weak and DEFAULT_32.get(w.dtype) == g.dtype


def rank_is_32_bit(op, g, w) -> bool:
    """polyfit's rank (``full=True``) is int32 in funcarray, its default int without a
    switch (README, "Dtypes"); jax's default int is int64 under x64."""
    return op.name == "polyfit" and g.dtype == np.int32 and w.dtype == np.int64


def _numpy_answer(op, case):
    operands = case.operands
    if op.name == "gradient":  # NumPy refuses to subtract bools; jax and funcarray take floats
        operands = [v.astype(np.float64) if v.dtype == np.bool_ else v for v in operands]
    # NumPy's roots always strips leading zeros (jax's strip_zeros=False keeps them as
    # infinite roots; the departures compared here have a nonzero leading coefficient).
    kwargs = {k: v for k, v in case.kwargs.items() if k != "strip_zeros"}
    return _attempt(lambda: _results(op.call(np, *operands, **kwargs)))


def _check_against_numpy(op, case, what, got):
    """funcarray where jax refuses or departs from NumPy: NumPy's values (in funcarray's
    dtype), or both raise."""
    want = _numpy_answer(op, case)
    where = f"{op.name}{case}, {what} against NumPy (as 'jax')"
    if not isinstance(want, Raised) and not isinstance(got, Raised):
        with np.errstate(all="ignore"):  # NumPy's float64 values in funcarray's dtypes
            want = [(w.astype(g.dtype), g_weak) for (g, g_weak), (w, _) in zip(got, want)]
    if same_kind_of_answer(where, got, want):
        for k, ((g, _), (w, _)) in enumerate(zip(got, want)):
            if not (polyfit_is_ill_conditioned(op, case, got[0][0].dtype)
                    or roots_of_a_zero_leading_coefficient(op, case)
                    or xla_roots_of_a_tiny_leading_coefficient(op, case)):
                _compare_values(op, case, f"{where}, output {k}", g, w, k)


def _compare_values(op, case, at, g, w, k=0):
    if kind_of(w.dtype) in "biu":
        assert (g == w).all(), f"{at}:\n  got {g.tolist()}\n  jax {w.tolist()}"
        return
    g = roots_in_jax_order(op, g, w)
    bound = value_bound(op, case, w.dtype, k)
    open_non_finite = order_decides_non_finite(op, case, w.dtype, k)
    ok = np.ones(w.shape, bool)
    for gp, wp in zip(parts(g), parts(w)):
        gp, wp = gp.astype(np.float64), wp.astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            same = (gp == wp) | (np.isnan(gp) & np.isnan(wp)) | (np.abs(gp - wp) <= bound)
            if open_non_finite:
                same |= ~np.isfinite(gp) | ~np.isfinite(wp)
        ok &= same
    assert ok.all(), f"{at} (bound {bound:.3g}):\n  got {g.tolist()}\n  jax {w.tolist()}"


def xla_flushes_subnormal_quotients(op, case, what) -> bool:
    """polydiv divides by the divisor's leading coefficient: a quotient below the smallest
    normal is kept by NumPy's kernels (funcarray eager) and read as zero by XLA (jax), and
    multiplying it back by a huge divisor makes the remainders differ by O(1). Edge values
    only (small integers have no such quotients)."""
    return op.name == "polydiv" and what == "eager" and not case.small


def _in_funcarray_dtype(op, case, got, want):
    """jax's outputs, converted to funcarray's dtype where an allowance says they differ."""
    if isinstance(got, Raised) or isinstance(want, Raised):
        return want
    converted = []
    for (g, g_weak), (w, w_weak) in zip(got, want):
        if (python_float_joins_integers(case, g, w) or rank_is_32_bit(op, g, w)
                or weak_default_is_32_bit(case, g, g_weak, w, w_weak)):
            with np.errstate(all="ignore"):
                w = w.astype(g.dtype)
        converted.append((w, w_weak))
    return converted


def funcarray_refuses_int_out_of_range(case, got, want) -> bool:
    """funcarray raises IntegerOverflowError for a Python int out of the range of the
    integer dtype it computes in (README, "Dtypes"), as in the elementwise table; jax wraps
    it (``polyval(uint8 array, -1)`` evaluates at 255)."""
    return (isinstance(got, Raised) and isinstance(got.exc, OverflowError)
            and not isinstance(want, Raised)
            and any(type(v) is int for v in case.operands))


def funcarray_refuses_lower_kind_accumulation(case, got, want) -> bool:
    """A known funcarray defect, left open: jax's dot_general takes any
    ``preferred_element_type`` for float operands (float32 products accumulated into int8 or
    float16, XLA's MaybeUpcast), funcarray's only the same or a wider kind (bool < integer <
    floating < complex). Widening the rule needs the eager kernel, the lowering and lax's
    dot_general and conv to agree on where the conversion happens."""
    return (isinstance(got, Raised) and "cannot hold products" in str(got.exc)
            and not isinstance(want, Raised) and "preferred_element_type" in case.kwargs)


def xla_reads_subnormal_coefficients_as_zero(op, case) -> bool:
    """roots strips leading zero coefficients and takes the degree from the others: a
    subnormal coefficient is zero to XLA (jax) and nonzero to NumPy's kernels (funcarray
    eager), so even the number of roots differs."""
    return op.name == "roots" and any(
        (subnormal(p, a.dtype)).any() for a in case.arrays if kind_of(a.dtype) in "fc"
        for p in parts(a))


def roots_of_a_zero_leading_coefficient(op, case) -> bool:
    """roots with ``strip_zeros=False`` of coefficients led by zero: the companion matrix
    divides by it, and the eigenvalues of a matrix of infinities and NaNs are whatever the
    eigenvalue solver makes of them (LAPACK's and XLA's differ); the kinds of answer are
    compared."""
    return (op.name == "roots" and not case.kwargs.get("strip_zeros", True)
            and np.size(case.operands[0]) > 0 and np.ravel(case.operands[0])[0] == 0)


def polyfit_is_ill_conditioned(op, case, dtype) -> bool:
    """The Vandermonde matrix is too ill-conditioned for the computing precision: the
    fitted values and the rank (a count of singular values above ``rcond``) are not
    determined, only the kind of answer is."""
    if op.name != "polyfit":
        return False
    eps = float(dtypes.finfo(dtype).eps) if kind_of(dtype) in "fc" else 1.2e-7
    return vander_condition(case) * eps > 1e-3


def _check_against_jax(op, case, what, got, want):
    where = f"{op.name}{case}, {what}"
    if (funcarray_refuses_int_out_of_range(case, got, want)
            or funcarray_refuses_lower_kind_accumulation(case, got, want)
            or xla_reads_subnormal_coefficients_as_zero(op, case)):
        return
    if any(departure(op, case) for departure in JAX_DEPARTURES) or (
            isinstance(want, Raised) and any(refusal(op, case) for refusal in JAX_REFUSALS)):
        _check_against_numpy(op, case, what, got)
        return
    want = _in_funcarray_dtype(op, case, got, want)
    if same_kind_of_answer(where, got, want) and not xla_flushes_subnormal_quotients(
            op, case, what):
        for k, ((g, _), (w, _)) in enumerate(zip(got, want)):
            if not (polyfit_is_ill_conditioned(op, case, got[0][0].dtype)
                    or roots_of_a_zero_leading_coefficient(op, case)
                    or xla_roots_of_a_tiny_leading_coefficient(op, case)):
                _compare_values(op, case, f"{where}, output {k}", g, w, k)


def check_case(op, case):
    """Run ``case`` through funcarray eager, funcarray jit (where the form stages) and jax,
    and compare."""
    want, _ = _run_jax(op, case)
    for applies, retry in JAX_RETRIES:
        if isinstance(want, Raised) and applies(op, case):
            want, _ = _run_jax(op, retry(case))
    runs = (("eager", _run_eager), ("jit", _run_jit)) if op.jit(case.kwargs) else (
        ("eager", _run_eager),)
    for what, run in runs:
        _check_against_jax(op, case, what, run(op, case), want)


def assert_covers(table, assigned):
    """Every name of ``assigned`` is a row of ``table``, once, and a funcarray.numpy
    function."""
    names = [op.name for op in table]
    assert len(names) == len(set(names))
    assert set(assigned) <= set(names), sorted(set(assigned) - set(names))
    assert all(callable(getattr(fnp, name)) for name in names)


def row_named(table, name):
    return next(op for op in table if op.name == name)
