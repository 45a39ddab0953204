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

Every ``abstract_eval`` validates the parameters and raises a ``TypeError`` that names the
primitive; the eager ``impl`` runs the same check first, so a bad direct ``bind`` never leaks a
NumPy error. ``funcarray.numpy`` normalises user axes (negative, unsorted) before binding.

Example:
    >>> import funcarray.numpy as fnp
    >>> reduce_sum_p.bind(fnp.ones((2, 3)), axes=(1,))
    Array([3., 3.], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from funcarray import dtypes
from funcarray.primitives._define import LOW_PRECISION_FLOATS, wrap_kernel
from funcarray.transforms.core import Primitive, ShapedArray

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
        ShapedArray(f32[3])
    """
    def check(shape, dtype, *, axes):
        _check_axes(name, shape, dtype, axes)
        _check_dtype(name, shape, dtype, accepts)

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
