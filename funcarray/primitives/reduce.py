"""Reduction primitives: whole-axis reductions, arg-reductions and cumulative scans.

Contract (StableHLO semantics, which the eager kernels reproduce):

* ``reduce_sum``, ``reduce_prod``, ``reduce_max``, ``reduce_min``, ``reduce_and``,
  ``reduce_or``, ``reduce_xor`` ``(x, *, axes)``: ``axes`` is a sorted tuple of distinct
  dimensions of ``x``; the result drops those dimensions and keeps ``x``'s dtype. An empty
  reduction gives the operation's identity, as XLA does: 0 (sum, or, xor), 1 (prod), all bits
  set (and), ``-inf`` or the dtype's minimum (max), ``+inf`` or the dtype's maximum (min).

  - ``reduce_sum``/``reduce_prod`` take numbers (not bool). Integers wrap around on overflow
    (no widening: ``funcarray.numpy.sum`` chooses the accumulation dtype). float16, bfloat16
    and float8 accumulate in float32 and round once at the end, as jax.numpy's sum does. The
    lowering must emit that explicitly (convert to f32, reduce, convert back): a plain f16
    ``stablehlo.reduce`` is *not* accumulated in f32 by XLA on the CPU.
  - ``reduce_max``/``reduce_min`` take every dtype (on bool they are *or*/*and*), propagate
    NaN, and order complex numbers lexicographically (real part, then imaginary part); the
    empty complex reduction gives XLA's ``(-inf, 0)``/``(inf, 0)``.
  - ``reduce_and``/``reduce_or``/``reduce_xor`` are bitwise, on bool and integer operands.
  - Weak types: sum, prod, max and min keep the operand's ``weak_type``; the bitwise
    reductions give strong results (both as in JAX).

* ``argmax``, ``argmin`` ``(x, *, axes, index_dtype)``: ``axes`` holds exactly one dimension,
  which must not be empty; the result drops it and has the integer ``index_dtype``. Ties go to
  the first index. NaN counts as larger than every number (argmax) or smaller (argmin), so the
  first NaN's index wins. Complex operands are rejected (they have no order in XLA's argmax).

* ``cumsum``, ``cumprod``, ``cummax``, ``cummin``, ``cumlogsumexp`` ``(x, *, axis, reverse)``:
  inclusive scans along one dimension (from the end when ``reverse``); same shape, dtype and
  weak_type as ``x``. They take numbers (not bool); ``cumlogsumexp`` takes real floats only.
  float16/bfloat16/float8 are accumulated in float32 and each output rounded once.

Lowering (at the end of this file; region helpers in ``funcarray.lowering.regions``):
reductions are one ``stablehlo.reduce`` whose body is the binary op, started from the identity
above; argmax/argmin a variadic reduce over (value, iota index); scans a
``stablehlo.reduce_window`` whose window spans the whole axis, padded with n - 1 identities
before it (after it when ``reverse``), as jax lowers them on CPU. Low-precision floats are
converted to float32 around the op, as the kernels compute. Complex max/min carry a "real
data" flag beside each value so XLA's ``(-inf, 0)`` init, not an identity of the
lexicographic order, never wins.

Transformation rules (beside each primitive, at the end of this file):

* jvp: ``reduce_sum`` and ``cumsum`` are linear. ``reduce_prod``'s tangent is
  ``sum_i t_i * prod_{j != i} x_j``, computed by a pairwise tree of products with the product
  rule at each step, so zeros are handled exactly (as JAX does). ``reduce_max``/``reduce_min``
  send the tangent to the location(s) of the extremum, divided equally among ties (JAX's
  convention). ``cumprod``, ``cummax``, ``cummin`` and ``cumlogsumexp`` differentiate a
  parallel prefix scan (the same odd/even scan as ``jax.lax.associative_scan``) whose combine
  step carries the tangents: the product rule, JAX's balanced max/min rule (a tie between the
  two operands gives each half), and ``logaddexp``'s softmax weights. Arg-reductions and the
  bitwise reductions have zero tangents.
* transpose: ``reduce_sum``'s cotangent is ``broadcast_in_dim`` back to the operand shape;
  ``cumsum``'s is a ``cumsum`` in the other direction.
* batching: the batch axis is never reduced or scanned; ``axes``/``axis`` are shifted past it.

Every ``abstract_eval`` validates the parameters and raises a ``TypeError`` that names the
primitive; the eager ``impl`` runs the same check first, so a bad direct ``bind`` never leaks a
NumPy error. ``funcarray.numpy`` normalises user axes (negative, unsorted) before binding.

Example:
    >>> import funcarray.numpy as fnp
    >>> reduce_sum_p.bind(fnp.ones((2, 3)), axes=(1,))
    Array([3., 3.], dtype=float32)
"""

from __future__ import annotations

import functools

import numpy as np

from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.lowering import regions
from funcarray.lowering.stablehlo import compare, lower_inline
from funcarray.primitives import elementwise as ew
from funcarray.primitives._axis_slice import slice_axis
from funcarray.primitives._define import LOW_PRECISION_FLOATS, wrap_kernel
from funcarray.primitives.conversions import convert_element_type_p
from funcarray.primitives.select_n import select_n_p
from funcarray.primitives.shape import broadcast_in_dim_p, concatenate_p, reshape_p, rev_p
from funcarray.transforms.core import Primitive, ShapedArray
from funcarray.transforms.jvp import Zero, defjvp_with_output, deflinear, tangent_aval
from funcarray.transforms.staging import stage_flat
from funcarray.transforms.vmap import bdim_at_front

__all__ = [
    "reducer", "reduce_sum_p", "reduce_prod_p", "reduce_max_p", "reduce_min_p",
    "reduce_and_p", "reduce_or_p", "reduce_xor_p", "argmax_p", "argmin_p", "cumsum_p",
    "cumprod_p", "cummax_p", "cummin_p", "cumlogsumexp_p", "max_identity", "min_identity",
]

# Dtype families a primitive accepts, as predicates on an np.dtype.
_NUMBER = ("numbers", lambda dt: dt != dtypes.bool_)
_ANY = ("any dtype", lambda dt: True)
_BOOL_OR_INT = ("bool and integers", lambda dt: dt == dtypes.bool_ or dtypes.is_integer(dt))
_REAL = ("bool, integers and real floats", lambda dt: not dtypes.is_complex(dt))
_REAL_FLOAT = ("real floats", dtypes.is_float)


# --------------------------------------------------------------------------------------------
# Validation shared by abstract_eval and impl
# --------------------------------------------------------------------------------------------

def _short(shape, dtype) -> str:
    return ShapedArray(shape, dtype).str_short()


def _check_dtype(name: str, shape, dtype, accepts):
    what, ok = accepts
    if not ok(dtype):
        raise TypeError(f"Primitive '{name}' does not accept {_short(shape, dtype)}; it takes "
                        f"{what}. Convert the operand first (funcarray.numpy does this).")


def _check_axes(name: str, shape, dtype, axes):
    ndim = len(shape)
    valid = (type(axes) is tuple and all(type(a) is int for a in axes)
             and all(0 <= a < ndim for a in axes)
             and all(a < b for a, b in zip(axes, axes[1:])))
    if not valid:
        raise TypeError(
            f"Primitive '{name}' needs axes as a sorted tuple of distinct ints in "
            f"[0, {ndim}) for operand {_short(shape, dtype)}, got axes={axes!r}. "
            f"funcarray.numpy normalises negative and unsorted axes before binding.")


def _check_axis(name: str, shape, dtype, axis):
    if type(axis) is not int or not 0 <= axis < len(shape):
        raise TypeError(
            f"Primitive '{name}' needs axis as an int in [0, {len(shape)}) for operand "
            f"{_short(shape, dtype)}, got axis={axis!r}.")


def _reduced_shape(shape, axes) -> tuple:
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _remembering(check):
    """``check(shape, dtype, *, axes)`` that runs once per signature: grads and eager loops
    reduce the same shapes over and over, and the checks cost as much as a small reduction.
    The key holds the axes' types too (``np.int64(0) == 0``, but only ints are accepted);
    anything that is not a tuple of hashable values is always checked, so it gets the error.
    """
    passed = set()

    def remembering_check(shape, dtype, *, axes):
        try:
            key = (shape, dtype, axes, *map(type, axes))
            if key in passed:
                return
        except TypeError:
            return check(shape, dtype, axes=axes)
        check(shape, dtype, axes=axes)
        if len(passed) > 4096:  # bounded: shapes that keep changing must not grow it forever
            passed.clear()
        passed.add(key)

    return remembering_check


def _validating_impl(kernel, check, keep_weak):
    """The eager rule: validate the parameters like abstract_eval, then run the kernel."""
    def checked(x, **params):
        check(np.shape(x), x.dtype, **params)
        return kernel(x, **params)

    checked.__name__ = kernel.__name__
    return wrap_kernel(checked, keep_weak=keep_weak)


# --------------------------------------------------------------------------------------------
# Identities
# --------------------------------------------------------------------------------------------

def _float_limit(dt, sign):
    """``sign * inf`` in ``dt``, or its finite extreme when ``dt`` has no infinity
    (float8_e4m3fn)."""
    inf = np.asarray(sign * np.inf, np.float32).astype(dt)
    if np.isinf(inf.astype(np.float32)):
        return inf
    info = dtypes.finfo(dt)
    return np.asarray(info.max if sign > 0 else info.min, dt)


def max_identity(dtype) -> np.ndarray:
    """The identity of ``max`` for ``dtype``: -inf, the integer minimum, or False."""
    dt = np.dtype(dtype)
    if dt == dtypes.bool_:
        return np.asarray(False)
    if dtypes.is_integer(dt):
        return np.asarray(dtypes.iinfo(dt).min, dt)
    if dtypes.is_complex(dt):
        return np.asarray(complex(-np.inf, 0), dt)
    return _float_limit(dt, -1)


def min_identity(dtype) -> np.ndarray:
    """The identity of ``min`` for ``dtype``: +inf, the integer maximum, or True."""
    dt = np.dtype(dtype)
    if dt == dtypes.bool_:
        return np.asarray(True)
    if dtypes.is_integer(dt):
        return np.asarray(dtypes.iinfo(dt).max, dt)
    if dtypes.is_complex(dt):
        return np.asarray(complex(np.inf, 0), dt)
    return _float_limit(dt, 1)


# --------------------------------------------------------------------------------------------
# Kernels (NumPy ufunc methods are called directly, not np.sum & co: RuntimeWarnings are then
# attributed to this module, where funcarray/__init__.py silences them as XLA would)
# --------------------------------------------------------------------------------------------

def _accumulating_reduce(ufunc):
    def kernel(x, *, axes):
        x = np.asarray(x)
        if not axes:
            # No axes: the operand itself, as XLA (NumPy's reduce multiplies by the
            # identity: (1 + 0j) * (-1.5 + inf j) would be nan + inf j).
            return x.copy()
        if x.dtype in LOW_PRECISION_FLOATS:
            return np.asarray(ufunc.reduce(x.astype(np.float32), axis=axes)).astype(x.dtype)
        return np.asarray(ufunc.reduce(x, axis=axes, dtype=x.dtype))

    kernel.__name__ = f"{ufunc.__name__}_reduce_kernel"
    return kernel


def _extremum_reduce(ufunc, identity):
    def kernel(x, *, axes):
        x = np.asarray(x)
        if all(x.shape[a] for a in axes):
            # No identity needed; for complex numbers, ordered lexicographically, XLA's
            # (+-inf, 0) is not a true identity, so it must not be mixed into the result.
            return np.asarray(ufunc.reduce(x, axis=axes), x.dtype)
        return np.asarray(ufunc.reduce(x, axis=axes, initial=identity(x.dtype)), x.dtype)

    kernel.__name__ = f"{ufunc.__name__}_reduce_kernel"
    return kernel


def _bitwise_reduce(ufunc):
    def kernel(x, *, axes):
        x = np.asarray(x)
        # Empty bitwise_and reductions start from -1; on unsigned ints that is all bits set.
        return np.asarray(ufunc.reduce(x, axis=axes), x.dtype)

    kernel.__name__ = f"{ufunc.__name__}_reduce_kernel"
    return kernel


def _arg_reduce(np_fn):
    def kernel(x, *, axes, index_dtype):
        x = np.asarray(x)
        if x.dtype in LOW_PRECISION_FLOATS:
            x = x.astype(np.float32)  # exact, and NumPy's NaN handling works on float32
        return np.asarray(np_fn(x, axis=axes[0])).astype(index_dtype)

    kernel.__name__ = f"{np_fn.__name__}_kernel"
    return kernel


def _scan(ufunc):
    def kernel(x, *, axis, reverse):
        x = np.asarray(x)
        work = x.astype(np.float32) if x.dtype in LOW_PRECISION_FLOATS else x
        if reverse:
            work = np.flip(work, axis)
        out = ufunc.accumulate(work, axis=axis, dtype=work.dtype)
        if reverse:
            out = np.flip(out, axis)
        return out.astype(x.dtype, copy=False)

    kernel.__name__ = f"{ufunc.__name__}_scan_kernel"
    return kernel


# --------------------------------------------------------------------------------------------
# Family helpers
# --------------------------------------------------------------------------------------------

def reducer(name: str, kernel, *, accepts=_NUMBER, keep_weak: bool = True,
            hlo: str | None = None) -> Primitive:
    """Define a reduction primitive ``name(x, *, axes)`` from a NumPy kernel.

    ``accepts`` is ``(description, predicate on np.dtype)``; ``keep_weak`` says whether the
    result inherits the operand's weak_type. ``hlo`` is the StableHLO op of the reduction
    body (``stablehlo.add`` for a sum), for lowering.

    Example:
        >>> import numpy as np
        >>> p = reducer("my_sum", lambda x, *, axes: np.add.reduce(x, axis=axes))
        >>> p.abstract_eval(ShapedArray((2, 3), "float32"), axes=(0,))
        ShapedArray(float32[3])
    """
    def check(shape, dtype, *, axes):
        _check_axes(name, shape, dtype, axes)
        _check_dtype(name, shape, dtype, accepts)

    check = _remembering(check)

    prim = Primitive(name)
    prim.kernel = kernel
    prim.hlo_op = hlo
    prim.impl = _validating_impl(kernel, check, keep_weak)

    @prim.def_abstract_eval
    def abstract_eval(x, *, axes):
        check(x.shape, x.dtype, axes=axes)
        return ShapedArray(_reduced_shape(x.shape, axes), x.dtype, keep_weak and x.weak_type)

    return prim


def _arg_reducer(name: str, kernel) -> Primitive:
    def check(shape, dtype, *, axes, index_dtype):
        if type(axes) is not tuple or len(axes) != 1:
            raise TypeError(f"Primitive '{name}' reduces exactly one axis, got axes={axes!r}")
        _check_axes(name, shape, dtype, axes)
        _check_dtype(name, shape, dtype, _REAL)
        if shape[axes[0]] == 0:
            raise TypeError(f"Primitive '{name}' needs a non-empty axis {axes[0]}, got "
                            f"operand {_short(shape, dtype)}")
        if not isinstance(index_dtype, np.dtype) or not dtypes.is_integer(index_dtype):
            raise TypeError(f"Primitive '{name}' needs an integer np.dtype as index_dtype, "
                            f"got {index_dtype!r}")

    prim = Primitive(name)
    prim.kernel = kernel
    prim.impl = _validating_impl(kernel, check, keep_weak=False)

    @prim.def_abstract_eval
    def abstract_eval(x, *, axes, index_dtype):
        check(x.shape, x.dtype, axes=axes, index_dtype=index_dtype)
        return ShapedArray(_reduced_shape(x.shape, axes), index_dtype)

    return prim


def _scanner(name: str, kernel, accepts=_NUMBER) -> Primitive:
    def check(shape, dtype, *, axis, reverse):
        _check_axis(name, shape, dtype, axis)
        _check_dtype(name, shape, dtype, accepts)
        if type(reverse) is not bool:
            raise TypeError(f"Primitive '{name}' needs reverse as a bool, got {reverse!r}")

    prim = Primitive(name)
    prim.kernel = kernel
    prim.impl = _validating_impl(kernel, check, keep_weak=True)

    @prim.def_abstract_eval
    def abstract_eval(x, *, axis, reverse):
        check(x.shape, x.dtype, axis=axis, reverse=reverse)
        return ShapedArray(x.shape, x.dtype, x.weak_type)

    return prim


# --------------------------------------------------------------------------------------------
# The primitives (names and parameters as in jax.lax)
# --------------------------------------------------------------------------------------------
reduce_sum_p = reducer("reduce_sum", _accumulating_reduce(np.add), hlo="stablehlo.add")
reduce_prod_p = reducer("reduce_prod", _accumulating_reduce(np.multiply),
                        hlo="stablehlo.multiply")
reduce_max_p = reducer("reduce_max", _extremum_reduce(np.maximum, max_identity), accepts=_ANY,
                       hlo="stablehlo.maximum")
reduce_min_p = reducer("reduce_min", _extremum_reduce(np.minimum, min_identity), accepts=_ANY,
                       hlo="stablehlo.minimum")
reduce_and_p = reducer("reduce_and", _bitwise_reduce(np.bitwise_and), accepts=_BOOL_OR_INT,
                       keep_weak=False, hlo="stablehlo.and")
reduce_or_p = reducer("reduce_or", _bitwise_reduce(np.bitwise_or), accepts=_BOOL_OR_INT,
                      keep_weak=False, hlo="stablehlo.or")
reduce_xor_p = reducer("reduce_xor", _bitwise_reduce(np.bitwise_xor), accepts=_BOOL_OR_INT,
                       keep_weak=False, hlo="stablehlo.xor")

argmax_p = _arg_reducer("argmax", _arg_reduce(np.argmax))
argmin_p = _arg_reducer("argmin", _arg_reduce(np.argmin))

cumsum_p = _scanner("cumsum", _scan(np.add))
cumprod_p = _scanner("cumprod", _scan(np.multiply))
cummax_p = _scanner("cummax", _scan(np.maximum))
cummin_p = _scanner("cummin", _scan(np.minimum))
cumlogsumexp_p = _scanner("cumlogsumexp", _scan(np.logaddexp), accepts=_REAL_FLOAT)


# --------------------------------------------------------------------------------------------
# Transformation rules. They compute with primitives' bind only, so they run on tracers too
# (and are themselves differentiable and batchable, given the other families' rules).
# --------------------------------------------------------------------------------------------

def _full(value, dtype, shape):
    """A constant of ``shape`` (a broadcast scalar: one small op, no memory eagerly)."""
    scalar = Array(np.asarray(value, dtype))
    return broadcast_in_dim_p.bind(scalar, shape=tuple(shape), broadcast_dimensions=())


def _kept_dims(ndim: int, axes) -> tuple:
    return tuple(i for i in range(ndim) if i not in axes)


def _concat(xs, axis: int):
    return concatenate_p.bind(*xs, dimension=axis)


# --- batching --------------------------------------------------------------------------------

def _reduction_batch_rule(prim):
    """Reduce the same axes of every batch member: shift ``axes`` past the batch axis."""
    def rule(vals, dims, *, axes, **params):
        (x,), (bdim,) = vals, dims
        moved = tuple(a + (a >= bdim) for a in axes)
        out_dim = bdim - sum(a < bdim for a in axes)
        return prim.bind(x, axes=moved, **params), out_dim

    return rule


def _scan_batch_rule(prim):
    """Scan the same axis of every batch member: shift ``axis`` past the batch axis."""
    def rule(vals, dims, *, axis, reverse):
        (x,), (bdim,) = vals, dims
        return prim.bind(x, axis=axis + (axis >= bdim), reverse=reverse), bdim

    return rule


for _prim in (reduce_sum_p, reduce_prod_p, reduce_max_p, reduce_min_p, reduce_and_p,
              reduce_or_p, reduce_xor_p, argmax_p, argmin_p):
    _prim.batch_rule = _reduction_batch_rule(_prim)
for _prim in (cumsum_p, cumprod_p, cummax_p, cummin_p, cumlogsumexp_p):
    _prim.batch_rule = _scan_batch_rule(_prim)


# --- zero tangents -----------------------------------------------------------------------------

def _zero_tangent_jvp(prim):
    """Integer and bool results have no tangent space: their tangents are symbolic zeros."""
    def rule(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        return out, Zero(tangent_aval(out.aval))

    return rule


for _prim in (argmax_p, argmin_p, reduce_and_p, reduce_or_p, reduce_xor_p):
    _prim.jvp_rule = _zero_tangent_jvp(_prim)
del _prim


# --- reduce_sum, cumsum: linear ------------------------------------------------------------------

deflinear(reduce_sum_p)


@reduce_sum_p.def_transpose
def _reduce_sum_transpose(ct, x, *, axes):
    shape = x.aval.shape
    return [broadcast_in_dim_p.bind(ct, shape=tuple(shape),
                                    broadcast_dimensions=_kept_dims(len(shape), axes))]


deflinear(cumsum_p)


@cumsum_p.def_transpose
def _cumsum_transpose(ct, x, *, axis, reverse):
    # Output k sums inputs 0..k, so input i receives the cotangents of outputs i..n-1.
    return [cumsum_p.bind(ct, axis=axis, reverse=not reverse)]


# --- reduce_max, reduce_min: the tangent of the extremum's location(s) --------------------------

def _chooser_tangent(t, out, x, *, axes):
    """The mean of ``t`` over the positions where ``x`` equals its extremum ``out`` (JAX's
    convention: ties share the tangent equally; a NaN extremum gives a NaN tangent)."""
    hits, counts = _extremum_hits(x, out, axes, t.dtype)
    return ew.div_p.bind(reduce_sum_p.bind(ew.mul_p.bind(t, hits), axes=axes), counts)


def _extremum_hits(x, out, axes, dtype):
    """``(hits, counts)``: 1 where ``x`` equals its extremum ``out`` (as ``dtype``), and the
    number of such positions per reduced group."""
    spread = broadcast_in_dim_p.bind(out, shape=tuple(x.shape),
                                     broadcast_dimensions=_kept_dims(x.ndim, axes))
    hits = convert_element_type_p.bind(ew.eq_p.bind(x, spread), new_dtype=dtype,
                                       weak_type=False)
    return hits, reduce_sum_p.bind(hits, axes=axes)


# extremum_tangent(t, x, out): reduce_max/min's tangent as one equation, linear in ``t``
# (``x`` and ``out`` are residuals). Under grad the forward pass records just this equation:
# the positions of the extremum are found only if a cotangent reaches it in the backward
# pass, so ``stop_gradient(fnp.max(z))`` (every stable softmax) costs one record instead of
# four eager ops and three staged ones. Its value, transpose and lowering are
# _chooser_tangent's formula (JAX's numbers).
extremum_tangent_p = Primitive("extremum_tangent")


@extremum_tangent_p.def_impl
def _extremum_tangent_impl(t, x, out, *, axes):
    # (eager forward mode only, off grad's hot path: checked every time)
    extremum_tangent_p.abstract_eval(t.aval, x.aval, out.aval, axes=axes)
    return _chooser_tangent(t, out, x, axes=axes)


@extremum_tangent_p.def_abstract_eval
def _extremum_tangent_abstract_eval(t, x, out, *, axes):
    reduced = _reduced_shape(x.shape, axes)
    if not dtypes.is_inexact(t.dtype) or t.shape != x.shape or out.shape != reduced or (
            out.dtype != x.dtype):
        raise TypeError(f"extremum_tangent: expected a float tangent shaped like the operand "
                        f"{x.str_short()} and its extremum over axes={axes} (shape {reduced}), "
                        f"got tangent {t.str_short()} and extremum {out.str_short()}")
    return ShapedArray(reduced, t.dtype)


@extremum_tangent_p.def_transpose
def _extremum_tangent_transpose(ct, t, x, out, *, axes):
    # The transpose of t -> sum(t * hits) / counts: each hit gets ct / counts.
    hits, counts = _extremum_hits(x, out, axes, ct.dtype)
    shared = broadcast_in_dim_p.bind(ew.div_p.bind(ct, counts), shape=tuple(x.shape),
                                     broadcast_dimensions=_kept_dims(x.ndim, axes))
    return [ew.mul_p.bind(shared, hits), None, None]


@extremum_tangent_p.def_jvp
def _extremum_tangent_jvp(primals, tangents, *, axes):
    # Linear in t; the positions (hits, counts) are piecewise constant in x: zero derivative.
    t, x, out = primals
    primal_out = extremum_tangent_p.bind(t, x, out, axes=axes)
    if type(tangents[0]) is Zero:
        return primal_out, Zero(tangent_aval(primal_out.aval))
    return primal_out, extremum_tangent_p.bind(tangents[0], x, out, axes=axes)


@extremum_tangent_p.def_batch
def _extremum_tangent_batch(vals, dims, *, axes):
    t, x, out = bdim_at_front(vals, dims)
    return extremum_tangent_p.bind(t, x, out, axes=tuple(a + 1 for a in axes)), 0


@extremum_tangent_p.def_lower
def _extremum_tangent_lower(ctx, t, x, out, *, axes):
    # The formula's own equations, staged once per signature and inlined.
    return lower_inline(ctx, _extremum_tangent_ir(ctx.avals_in, axes), t, x, out)


@functools.lru_cache(maxsize=256)
def _extremum_tangent_ir(avals, axes):
    return stage_flat(lambda t, x, out: [_chooser_tangent(t, out, x, axes=axes)], list(avals))


def _extremum_jvp(t, out, x, *, axes):
    return extremum_tangent_p.bind(t, x, out, axes=axes)


defjvp_with_output(reduce_max_p, _extremum_jvp)
defjvp_with_output(reduce_min_p, _extremum_jvp)


# --- combine steps that carry tangents: elems are [primal, tangent] pairs -----------------------

def _mul_combine(a, b):
    """Product, with the product rule."""
    (x, tx), (y, ty) = a, b
    tangent = ew.add_p.bind(ew.mul_p.bind(tx, y), ew.mul_p.bind(x, ty))
    return [ew.mul_p.bind(x, y), tangent]


def _chooser_combine(choose):
    """max/min with JAX's balanced rule: the chosen operand gets the tangent, and when both
    equal the result each gets half."""
    def combine(a, b):
        (x, tx), (y, ty) = a, b
        out = choose.bind(x, y)
        x_hit, y_hit = (convert_element_type_p.bind(ew.eq_p.bind(v, out),
                                                    new_dtype=tx.dtype, weak_type=False)
                        for v in (x, y))
        one = _full(1, tx.dtype, tx.shape)
        x_share = ew.div_p.bind(x_hit, ew.add_p.bind(one, y_hit))
        y_share = ew.div_p.bind(y_hit, ew.add_p.bind(one, x_hit))
        tangent = ew.add_p.bind(ew.mul_p.bind(tx, x_share), ew.mul_p.bind(ty, y_share))
        return [out, tangent]

    return combine


def _logaddexp(x, y):
    """``log(exp(x) + exp(y))`` without overflow; NaN or same-signed infinities give x + y."""
    delta = ew.sub_p.bind(x, y)
    softplus = ew.log1p_p.bind(ew.exp_p.bind(ew.neg_p.bind(ew.abs_p.bind(delta))))
    finite = ew.add_p.bind(ew.max_p.bind(x, y), softplus)
    return select_n_p.bind(ew.ne_p.bind(delta, delta), finite, ew.add_p.bind(x, y))


def _zero_posinf(x):
    """``x`` with +inf replaced by 0, so ``exp(x - out)`` is 1 (not NaN) when both are +inf."""
    inf = _full(np.inf, x.dtype, x.shape)
    return select_n_p.bind(ew.eq_p.bind(x, inf), x, _full(0, x.dtype, x.shape))


def _logaddexp_combine(a, b):
    """logaddexp, whose tangent is the softmax-weighted sum of the operands' tangents."""
    (x, tx), (y, ty) = a, b
    out = _logaddexp(x, y)
    out_safe = _zero_posinf(out)
    x_weight, y_weight = (ew.exp_p.bind(ew.sub_p.bind(_zero_posinf(v), out_safe))
                          for v in (x, y))
    tangent = ew.add_p.bind(ew.mul_p.bind(tx, x_weight), ew.mul_p.bind(ty, y_weight))
    return [out, tangent]


# --- reduce_prod: a pairwise tree of products ---------------------------------------------------

def _tree_reduce(combine, elems, identities, axis: int):
    """Combine halves along ``axis`` until one element is left (kept as a size-1 axis); an
    odd count pads the second half with ``identities``."""
    n = elems[0].shape[axis]
    while n > 1:
        half = (n + 1) // 2
        first = [slice_axis(e, axis, 0, half) for e in elems]
        second = [slice_axis(e, axis, half, n) for e in elems]
        if n % 2:
            pad_shape = tuple(1 if i == axis else d for i, d in enumerate(second[0].shape))
            second = [_concat([s, _full(v, s.dtype, pad_shape)], axis)
                      for s, v in zip(second, identities)]
        elems = combine(first, second)
        n = half
    return elems


@reduce_prod_p.def_jvp
def _reduce_prod_jvp(primals, tangents, *, axes):
    (x,), (t,) = primals, tangents
    out = reduce_prod_p.bind(x, axes=axes)
    if type(t) is Zero or any(x.shape[a] == 0 for a in axes):
        return out, Zero(tangent_aval(out.aval))  # an empty product is the constant 1
    elems = [x, t]
    for axis in axes:
        elems = _tree_reduce(_mul_combine, elems, (1, 0), axis)
    return out, reshape_p.bind(elems[1], new_sizes=tuple(out.shape))


# --- cumprod, cummax, cummin, cumlogsumexp: a differentiated parallel prefix scan --------------

def _interleave(a, b, axis: int):
    """``a[0], b[0], a[1], b[1], ...`` along ``axis``; ``a`` has as many elements as ``b`` or
    one more."""
    na, nb = a.shape[axis], b.shape[axis]
    if na > nb:
        head = _interleave(slice_axis(a, axis, 0, nb), b, axis)
        return _concat([head, slice_axis(a, axis, nb, na)], axis)
    paired = a.shape[:axis + 1] + (1,) + a.shape[axis + 1:]
    pairs = _concat([reshape_p.bind(a, new_sizes=paired), reshape_p.bind(b, new_sizes=paired)],
                    axis + 1)
    return reshape_p.bind(pairs, new_sizes=a.shape[:axis] + (2 * na,) + a.shape[axis + 1:])


def _prefix_scan(combine, elems, axis: int):
    """Inclusive scan of ``combine`` along ``axis`` in O(log n) levels (Blelloch's odd/even
    scheme, the structure of ``jax.lax.associative_scan``: with the same structure, ties
    in cummax/cummin share the tangent exactly as in JAX)."""
    n = elems[0].shape[axis]
    if n < 2:
        return elems
    # Combine neighbouring pairs: their scan gives the odd-indexed results.
    pairs = combine([slice_axis(e, axis, 0, n - 1, 2) for e in elems],
                    [slice_axis(e, axis, 1, n, 2) for e in elems])
    odd = _prefix_scan(combine, pairs, axis)
    # Each even-indexed result (after the first) is the odd result before it combined with
    # the element itself.
    before = odd if n % 2 else [slice_axis(o, axis, 0, o.shape[axis] - 1) for o in odd]
    rest = [slice_axis(e, axis, 2, n, 2) for e in elems]
    firsts = [slice_axis(e, axis, 0, 1) for e in elems]
    if rest[0].shape[axis]:
        even = [_concat([f, r], axis) for f, r in zip(firsts, combine(before, rest))]
    else:
        even = firsts
    return [_interleave(e, o, axis) for e, o in zip(even, odd)]


def _scan_jvp(prim, combine):
    """The jvp of a scan primitive: run the prefix scan on (primal, tangent) pairs."""
    def rule(primals, tangents, *, axis, reverse):
        (x,), (t,) = primals, tangents
        out = prim.bind(x, axis=axis, reverse=reverse)
        if type(t) is Zero:
            return out, Zero(tangent_aval(out.aval))
        elems = [x, t]
        if reverse:
            elems = [rev_p.bind(e, dimensions=(axis,)) for e in elems]
        tangent = _prefix_scan(combine, elems, axis)[1]
        if reverse:
            tangent = rev_p.bind(tangent, dimensions=(axis,))
        return out, tangent

    prim.jvp_rule = rule
    return rule


_scan_jvp(cumprod_p, _mul_combine)
_scan_jvp(cummax_p, _chooser_combine(ew.max_p))
_scan_jvp(cummin_p, _chooser_combine(ew.min_p))
_scan_jvp(cumlogsumexp_p, _logaddexp_combine)


# --------------------------------------------------------------------------------------------
# Lowering: stablehlo.reduce for reductions, a variadic reduce over (value, index) for the
# arg-reductions, stablehlo.reduce_window (a window of the whole axis) for scans, as jax does
# on CPU. Each follows its kernel: low-precision floats are accumulated in float32.
# --------------------------------------------------------------------------------------------

def _aval(shape, dtype) -> ShapedArray:
    return ShapedArray(tuple(shape), np.dtype(dtype))


def _convert(ctx, x, dtype):
    aval = ctx.type_of(x)
    if aval.dtype == np.dtype(dtype):
        return x
    return ctx.op("stablehlo.convert", x, results=[_aval(aval.shape, dtype)])[0]


def _work_dtype(dtype) -> np.dtype:
    """The dtype the kernels compute in: float32 for low-precision floats."""
    return dtypes.float32 if dtype in LOW_PRECISION_FLOATS else np.dtype(dtype)


def _select(ctx, pred, on_true, on_false):
    return ctx.op("stablehlo.select", pred, on_true, on_false,
                  results=[ctx.type_of(on_true)])[0]


def _logical(ctx, op, *xs):
    return ctx.op(op, *xs, results=[ctx.type_of(xs[0])])[0]


def _is_nan(ctx, x):
    return compare(ctx, x, x, "NE")


def _all_bits(dtype) -> np.ndarray:
    return ~np.zeros((), dtype)  # -1, the unsigned maximum, or True


def _bool_or_int_op(dtype, bool_op: str, other_op: str) -> str:
    return bool_op if np.dtype(dtype) == dtypes.bool_ else other_op


def _logaddexp_combine(ctx, lhs, rhs):
    """``log(exp(a) + exp(b))`` without overflow, as NumPy's logaddexp: ``max + log1p(exp(-|a -
    b|))``, and ``a + b`` when ``a - b`` is NaN (a NaN operand, or equal infinities)."""
    (a,), (b,) = lhs, rhs
    aval = ctx.type_of(a)

    def op(name, *xs):
        return ctx.op(name, *xs, results=[aval])[0]

    delta = op("stablehlo.subtract", a, b)
    softplus = op("stablehlo.log_plus_one",
                  op("stablehlo.exponential", op("stablehlo.negate", op("stablehlo.abs", delta))))
    finite = op("stablehlo.add", op("stablehlo.maximum", a, b), softplus)
    return [_select(ctx, _is_nan(ctx, delta), op("stablehlo.add", a, b), finite)]


# The binary op of each reduction/scan on a real (non-complex) work dtype, and its identity.
_COMBINERS = {
    "sum": (lambda dt: "stablehlo.add", lambda dt: np.zeros((), dt)),
    "prod": (lambda dt: "stablehlo.multiply", lambda dt: np.ones((), dt)),
    "max": (lambda dt: _bool_or_int_op(dt, "stablehlo.or", "stablehlo.maximum"), max_identity),
    "min": (lambda dt: _bool_or_int_op(dt, "stablehlo.and", "stablehlo.minimum"),
            min_identity),
    "and": (lambda dt: "stablehlo.and", _all_bits),
    "or": (lambda dt: "stablehlo.or", lambda dt: np.zeros((), dt)),
    "xor": (lambda dt: "stablehlo.xor", lambda dt: np.zeros((), dt)),
    "logsumexp": (lambda dt: _logaddexp_combine, max_identity),
}


def _complex_chooser(direction: str):
    """max/min of complex numbers over (value, valid) pairs, as NumPy's maximum/minimum:
    lexicographic order (real part, then imaginary part), a NaN in either part wins.

    The ``valid`` flag is false only for the init value, which is then never chosen: XLA's
    complex identity ``(-inf, 0)`` is no true identity of the lexicographic order, e.g.
    ``max((-inf, -1), (-inf, 0))`` is the latter.
    """
    def combine(ctx, lhs, rhs):
        (a, a_valid), (b, b_valid) = lhs, rhs
        part = _aval((), dtypes.float32 if ctx.type_of(a).dtype == dtypes.complex64
                     else dtypes.float64)
        ar, ai, br, bi = (ctx.op(f"stablehlo.{p}", v, results=[part])[0]
                          for v in (a, b) for p in ("real", "imag"))
        a_nan = _logical(ctx, "stablehlo.or", _is_nan(ctx, ar), _is_nan(ctx, ai))
        b_nan = _logical(ctx, "stablehlo.or", _is_nan(ctx, br), _is_nan(ctx, bi))
        a_wins = _logical(ctx, "stablehlo.or", compare(ctx, ar, br, direction),
                          _logical(ctx, "stablehlo.and", compare(ctx, ar, br, "EQ"),
                                   compare(ctx, ai, bi, direction[0] + "E")))
        not_b_nan = _logical(ctx, "stablehlo.not", b_nan)
        pick_a = _logical(ctx, "stablehlo.or", a_nan,
                          _logical(ctx, "stablehlo.and", not_b_nan, a_wins))
        b_invalid = _logical(ctx, "stablehlo.not", b_valid)
        pick_a = _logical(ctx, "stablehlo.or", b_invalid,
                          _logical(ctx, "stablehlo.and", a_valid, pick_a))
        return [_select(ctx, pick_a, a, b), _logical(ctx, "stablehlo.or", a_valid, b_valid)]

    return combine


def _lower_with(kind: str, emit):
    """A lowering rule running ``emit(ctx, operands, inits, combine, **params) -> results`` in
    the work dtype (float32 for low-precision floats: exact for max/min, the kernels' own
    accumulation for sums and products), then converting back to the declared dtype."""
    def rule(ctx, x, **params):
        work = _work_dtype(ctx.avals_in[0].dtype)
        x = _convert(ctx, x, work)
        if dtypes.is_complex(work) and kind in ("max", "min"):
            # Track which values are real data, so the init never wins (see _complex_chooser).
            identity = (max_identity if kind == "max" else min_identity)(work)
            valid = ctx.constant(True, _aval(ctx.type_of(x).shape, dtypes.bool_))
            inits = [ctx.constant(identity, _aval((), work)),
                     ctx.constant(False, _aval((), dtypes.bool_))]
            combine = _complex_chooser("GT" if kind == "max" else "LT")
            out = emit(ctx, [x, valid], inits, combine, **params)[0]
        else:
            hlo, identity = _COMBINERS[kind]
            init = ctx.constant(identity(work), _aval((), work))
            out = emit(ctx, [x], [init], hlo(work), **params)[0]
        return [_convert(ctx, out, ctx.avals_out[0].dtype)]

    rule.__qualname__ = f"lower_{kind}"
    return rule


def _emit_reduce(ctx, operands, inits, combine, *, axes):
    return regions.reduce(ctx, operands, inits, axes, combine)


def _emit_scan(ctx, operands, inits, combine, *, axis, reverse):
    # Output k reduces a window of the whole axis ending at k (starting at k when reverse):
    # pad n - 1 init values before (after) the axis.
    shape = ctx.type_of(operands[0]).shape
    n = shape[axis]
    if n == 0:
        return operands  # nothing to scan (a zero-size window is invalid)
    window = [1] * len(shape)
    window[axis] = n
    padding = [(0, 0)] * len(shape)
    padding[axis] = (0, n - 1) if reverse else (n - 1, 0)
    return regions.reduce_window(ctx, operands, inits, combine, window_dimensions=window,
                                 padding=padding)


def _arg_chooser(direction: str, is_float: bool):
    """The body of argmax (``direction="GT"``) or argmin (``"LT"``) over (value, index) pairs:
    the better value wins, NaN beating every number; equal values (or two NaNs) keep the
    smaller index. A total order, so XLA may combine in any order."""
    def combine(ctx, lhs, rhs):
        (a, a_index), (b, b_index) = lhs, rhs
        better = compare(ctx, a, b, direction)
        same = compare(ctx, a, b, "EQ")
        if is_float:
            a_nan, b_nan = _is_nan(ctx, a), _is_nan(ctx, b)
            only_a_nan = _logical(ctx, "stablehlo.and", a_nan,
                                  _logical(ctx, "stablehlo.not", b_nan))
            better = _logical(ctx, "stablehlo.or", better, only_a_nan)
            same = _logical(ctx, "stablehlo.or", same,
                            _logical(ctx, "stablehlo.and", a_nan, b_nan))
        first = _logical(ctx, "stablehlo.and", same, compare(ctx, a_index, b_index, "LT"))
        pick_a = _logical(ctx, "stablehlo.or", better, first)
        return [_select(ctx, pick_a, a, b), _select(ctx, pick_a, a_index, b_index)]

    return combine


def _arg_lower(kind: str):
    def rule(ctx, x, *, axes, index_dtype):
        (axis,) = axes
        work = _work_dtype(ctx.avals_in[0].dtype)
        if dtypes.is_integer(work) and dtypes.iinfo(work).bits < 8:
            work = dtypes.int32  # XLA's CPU variadic reduce rejects sub-byte operands (int2)
        x = _convert(ctx, x, work)
        shape = ctx.type_of(x).shape
        # Count in a dtype that holds every index, so the tie-break compares true indices;
        # the kernel's astype(index_dtype) then wraps like stablehlo.convert.
        fits = shape[axis] - 1 <= dtypes.iinfo(index_dtype).max
        count_dtype = index_dtype if fits else dtypes.int64
        indices = ctx.op("stablehlo.iota", results=[_aval(shape, count_dtype)],
                         attributes={"iota_dimension": f"{axis} : i64"})[0]
        identity = (max_identity if kind == "max" else min_identity)(work)
        inits = [ctx.constant(identity, _aval((), work)),
                 ctx.constant(0, _aval((), count_dtype))]
        combine = _arg_chooser("GT" if kind == "max" else "LT", dtypes.is_float(work))
        index = regions.reduce(ctx, [x, indices], inits, axes, combine)[1]
        return [_convert(ctx, index, index_dtype)]

    rule.__qualname__ = f"lower_arg{kind}"
    return rule


argmax_p.lower_rule = _arg_lower("max")
argmin_p.lower_rule = _arg_lower("min")

for _prim, _kind in ((reduce_sum_p, "sum"), (reduce_prod_p, "prod"), (reduce_max_p, "max"),
                     (reduce_min_p, "min"), (reduce_and_p, "and"), (reduce_or_p, "or"),
                     (reduce_xor_p, "xor")):
    _prim.lower_rule = _lower_with(_kind, _emit_reduce)
for _prim, _kind in ((cumsum_p, "sum"), (cumprod_p, "prod"), (cummax_p, "max"),
                     (cummin_p, "min"), (cumlogsumexp_p, "logsumexp")):
    _prim.lower_rule = _lower_with(_kind, _emit_scan)
del _prim, _kind
