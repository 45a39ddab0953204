"""``jax.lax``'s reductions, arg-reductions, cumulative scans, sorts, ``top_k`` and
``approx_max_k``/``approx_min_k`` (the exact ``top_k``: what XLA computes on CPU and GPU; only
TPUs approximate).

Reduction ``axes`` and scan/arg-reduction ``axis`` are non-negative and in range, as in
jax.lax (``sort``'s ``dimension`` may be negative); ``axes`` is always a sequence.

On host arrays (``transforms/host_shortcuts.py``) the reductions, arg-reductions and scans
run their primitive's kernel directly once the arguments pass lax's checks, ``sort`` and
``sort_key_val`` the sort kernel's fast equivalents (``_sort_on_host.py``), and
``approx_max_k``/``approx_min_k`` ``top_k``'s eager rule; any other call takes the general
path, which checks and raises.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray import lax
    >>> lax.reduce_max(fnp.array([[1, 5], [7, 2]]), (1,))
    Array([5, 7], dtype=int32)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import _moveaxes
from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.lax._ops_common import (
    _BIU,
    _F,
    _IUFC,
    _any_axis,
    _axis,
    _dims,
    _doc,
    _dtype_arg,
    _int,
    _kind,
    _operand,
    _operand_of_kinds,
    _short,
)
from funcarray.lax._sort_on_host import along_last, sorted_along, sorted_last
from funcarray.primitives import reduce as red
from funcarray.primitives.sort import sort as _sort_operands
from funcarray.primitives.top_k import top_k_p
from funcarray.transforms.host_shortcuts import host_shortcut, host_value

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Protocol

    from funcarray.base.typing import ArrayLike, DTypeLike

    # The signatures of the operations the factories below make.
    class _Reducer(Protocol):
        def __call__(self, operand: ArrayLike, axes: Sequence[int]) -> Array: ...

    class _ArgReducer(Protocol):
        def __call__(self, operand: ArrayLike, axis: int, index_dtype: DTypeLike) -> Array: ...

    class _Scanner(Protocol):
        def __call__(self, operand: ArrayLike, axis: int = 0, reverse: bool = False
                     ) -> Array: ...

    from funcarray.base.array import Array

__all__ = [
    "reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "reduce_and", "reduce_or",
    "reduce_xor", "argmax", "argmin", "cumsum", "cumprod", "cummax", "cummin",
    "cumlogsumexp", "sort", "sort_key_val", "top_k", "approx_max_k", "approx_min_k",
]


def _accepting(kinds: str) -> set:
    """The dtypes of ``kinds`` (``_kind``'s letters), for the shortcuts' one-lookup check."""
    return dtypes.dtype_set(lambda d: _kind(d) in kinds)


def _host_axes(axes, ndim: int) -> tuple | None:
    """A reduction's ``axes`` as the sorted tuple the primitive takes, when they are a tuple
    or list of distinct in-range Python ints (else None: the general path checks them)."""
    t = type(axes)
    if t is not tuple and t is not list:
        return None
    for a in axes:
        if type(a) is not int or not 0 <= a < ndim:
            return None
    out = tuple(sorted(axes))
    return out if len(set(out)) == len(out) else None


def _keeps_weak(prim, dtype, **params) -> bool:
    """Whether ``prim``'s eager rule gives a weak operand of ``dtype`` a weak result (the
    probe asks the rule itself, so the shortcuts cannot disagree with it)."""
    return prim.impl(Array(np.zeros(1, dtype), True), **params).weak_type


def _reduce_on_host(prim, kinds: str):
    """The shortcut of a reduction: the primitive's kernel on a host operand of an accepted
    dtype, once the axes pass lax's checks (the kernel alone: the eager rule's own checks,
    which lax's have made, cost more than a small reduction)."""
    accepted = _accepting(kinds)
    kernel = prim.kernel
    weak = _keeps_weak(prim, np.int32, axes=(0,))

    def rule(operand, axes):
        x = host_value(operand)
        if x is None or x.dtype not in accepted:
            return NotImplemented
        dims = _host_axes(axes, x.ndim)
        if dims is None:
            return NotImplemented
        return Array(kernel(x, axes=dims), weak and operand._weak)

    return rule


def _reducer(name: str, prim, kinds: str, example: tuple, summary: str) -> _Reducer:
    op = f"lax.{name}"

    @host_shortcut(_reduce_on_host(prim, kinds))
    def fn(operand, axes):
        x = _operand_of_kinds(op, operand, kinds)
        if isinstance(axes, (int, np.integer)):
            raise op_type_error(op, f"axes must be a sequence of ints, got {axes!r} (write "
                                    f"({int(axes)},))")
        dims = _dims(op, "axes", axes, x.ndim, x)
        return prim.bind(x, axes=tuple(sorted(dims)))

    return _doc(fn, name, summary, example)


_RX = "fnp.array([[1, 2], [3, 4]])"
reduce_sum = _reducer("reduce_sum", red.reduce_sum_p, _IUFC,
                      (f"lax.reduce_sum({_RX}, (0,))", "Array([4, 6], dtype=int32)"),
                      "Sum over ``axes`` (non-negative, unique); integers wrap on overflow.")
reduce_prod = _reducer("reduce_prod", red.reduce_prod_p, _IUFC,
                       (f"lax.reduce_prod({_RX}, (1,))", "Array([ 2, 12], dtype=int32)"),
                       "Product over ``axes``.")
reduce_max = _reducer("reduce_max", red.reduce_max_p, "biufc",
                      (f"lax.reduce_max({_RX}, (0, 1))", "Array(4, dtype=int32)"),
                      "Maximum over ``axes`` (NaN propagates; -inf or the dtype's minimum "
                      "for an empty reduction).")
reduce_min = _reducer("reduce_min", red.reduce_min_p, "biufc",
                      (f"lax.reduce_min({_RX}, (1,))", "Array([1, 3], dtype=int32)"),
                      "Minimum over ``axes``.")
reduce_and = _reducer("reduce_and", red.reduce_and_p, _BIU,
                      ("lax.reduce_and(fnp.array([True, False]), (0,))",
                       "Array(False, dtype=bool)"), "Bitwise (logical for bool) and over "
                                                    "``axes``.")
reduce_or = _reducer("reduce_or", red.reduce_or_p, _BIU,
                     ("lax.reduce_or(fnp.array([True, False]), (0,))", "Array(True, dtype=bool)"),
                     "Bitwise (logical for bool) or over ``axes``.")
reduce_xor = _reducer("reduce_xor", red.reduce_xor_p, _BIU,
                      ("lax.reduce_xor(fnp.array([True, True]), (0,))",
                       "Array(False, dtype=bool)"), "Bitwise (logical for bool) exclusive or "
                                                    "over ``axes``.")


def _arg_reduce_on_host(prim):
    """The shortcut of ``argmax``/``argmin``: the primitive's eager rule on a host operand
    with a valid axis and a NumPy integer ``index_dtype``."""
    accepted = _accepting("biuf")
    kernel = prim.kernel

    def rule(operand, axis, index_dtype):
        x = host_value(operand)
        if x is None or x.dtype not in accepted or type(axis) is not int:
            return NotImplemented
        if not 0 <= axis < x.ndim or not x.shape[axis]:
            return NotImplemented
        dt = _INDEX_DTYPES.get(index_dtype)
        if dt is None:
            return NotImplemented
        return Array(kernel(x, axes=(axis,), index_dtype=dt), False)

    return rule


# The index dtypes the arg-reduction shortcuts take as given (anything else: general path).
_INDEX_DTYPES = {key: dtypes.canonicalize_dtype(t)
                 for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                           np.uint32, np.uint64) for key in (t, np.dtype(t))}


def _arg_reducer(name: str, prim, example: tuple, summary: str) -> _ArgReducer:
    op = f"lax.{name}"

    @host_shortcut(_arg_reduce_on_host(prim))
    def fn(operand, axis, index_dtype):
        x = _operand_of_kinds(op, operand, "biuf")
        axis = _axis(op, axis, x.ndim, x)
        index_dtype = _dtype_arg(op, index_dtype, "index_dtype")
        if _kind(index_dtype) not in "iu":
            raise op_type_error(op, f"index_dtype must be an integer type, got {index_dtype}")
        if x.shape[axis] == 0:
            raise op_value_error(op, f"requires a non-empty reduced dimension, got operand "
                                     f"{_short(x)} and axis={axis}")
        return prim.bind(x, axes=(axis,), index_dtype=index_dtype)

    return _doc(fn, name, summary, example)


argmax = _arg_reducer("argmax", red.argmax_p,
                      ("lax.argmax(fnp.array([[1, 5], [7, 2]]), 1, fnp.int32)",
                       "Array([1, 0], dtype=int32)"),
                      "Index of the maximum along ``axis`` (the first on ties; NaN wins).")
argmin = _arg_reducer("argmin", red.argmin_p,
                      ("lax.argmin(fnp.array([[1, 5], [7, 2]]), 1, fnp.int32)",
                       "Array([0, 1], dtype=int32)"),
                      "Index of the minimum along ``axis`` (the first on ties; NaN wins).")


def _scan_on_host(prim, kinds: str):
    """The shortcut of a cumulative scan: the primitive's kernel on a host operand."""
    accepted = _accepting(kinds)
    kernel = prim.kernel
    weak = _keeps_weak(prim, np.float32, axis=0, reverse=False)

    def rule(operand, axis=0, reverse=False):
        x = host_value(operand)
        if (x is None or x.dtype not in accepted or type(axis) is not int
                or not 0 <= axis < x.ndim or type(reverse) is not bool):
            return NotImplemented
        return Array(kernel(x, axis=axis, reverse=reverse), weak and operand._weak)

    return rule


def _scanner(name: str, prim, kinds: str, example: tuple, summary: str) -> _Scanner:
    op = f"lax.{name}"

    @host_shortcut(_scan_on_host(prim, kinds))
    def fn(operand, axis=0, reverse=False):
        x = _operand_of_kinds(op, operand, kinds)
        axis = _axis(op, axis, x.ndim, x)
        return prim.bind(x, axis=axis, reverse=bool(reverse))

    return _doc(fn, name, summary, example)


cumsum = _scanner("cumsum", red.cumsum_p, _IUFC,
                  ("lax.cumsum(fnp.array([1, 2, 3]))", "Array([1, 3, 6], dtype=int32)"),
                  "Inclusive cumulative sum along ``axis`` (from the end if ``reverse``).")
cumprod = _scanner("cumprod", red.cumprod_p, _IUFC,
                   ("lax.cumprod(fnp.array([1, 2, 3]), reverse=True)",
                    "Array([6, 6, 3], dtype=int32)"),
                   "Inclusive cumulative product along ``axis``.")
cummax = _scanner("cummax", red.cummax_p, _IUFC,
                  ("lax.cummax(fnp.array([1, 3, 2]))", "Array([1, 3, 3], dtype=int32)"),
                  "Inclusive cumulative maximum along ``axis``.")
cummin = _scanner("cummin", red.cummin_p, _IUFC,
                  ("lax.cummin(fnp.array([3, 1, 2]))", "Array([3, 1, 1], dtype=int32)"),
                  "Inclusive cumulative minimum along ``axis``.")
cumlogsumexp = _scanner("cumlogsumexp", red.cumlogsumexp_p, _F,
                        ("lax.cumlogsumexp(fnp.array([0.0, 0.0]))",
                         "Array([0.       , 0.6931472], dtype=float32)"),
                        "Inclusive cumulative ``log(sum(exp(x)))`` along ``axis`` (floats).")


def _sort_on_host(operand, dimension=-1, is_stable=True, num_keys=1):
    """The shortcut of ``sort``: one host operand, or keys and values (``num_keys=1``) of
    one shape, sorted by the fast kernels of ``lax/_sort_on_host.py`` (the primitive's
    bits)."""
    if type(is_stable) is not bool or num_keys != 1 or type(dimension) is not int:
        return NotImplemented
    x = host_value(operand)
    if x is not None:
        ndim = x.ndim
        if not -ndim <= dimension < ndim:  # (a scalar too: the general path refuses them)
            return NotImplemented
        return Array(along_last(sorted_last, x, dimension % ndim), operand._weak)
    if type(operand) is not tuple and type(operand) is not list or len(operand) != 2:
        return NotImplemented
    keys, vals = operand
    x, y = host_value(keys), host_value(vals)
    if x is None or y is None or x.shape != y.shape:
        return NotImplemented
    ndim = x.ndim
    if not -ndim <= dimension < ndim:
        return NotImplemented
    outs = sorted_along((x, y), dimension % ndim)
    return Array(outs[0], keys._weak), Array(outs[1], vals._weak)


@host_shortcut(_sort_on_host)
def sort(operand: ArrayLike | Sequence[ArrayLike], dimension: int = -1, is_stable: bool = True,
         num_keys: int = 1) -> Array | tuple[Array, ...]:
    """Sort along ``dimension``. A single array returns the sorted array; a sequence of
    arrays (one shape) is sorted by its first ``num_keys`` arrays, lexicographically, and
    returned as a tuple. NaNs sort last.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.sort(fnp.array([3, 1, 2]))
        Array([1, 2, 3], dtype=int32)
        >>> lax.sort((fnp.array([3, 1, 2]), fnp.array([30, 10, 20])), num_keys=1)
        (Array([1, 2, 3], dtype=int32), Array([10, 20, 30], dtype=int32))
    """
    op = "lax.sort"
    single = not isinstance(operand, (tuple, list))
    xs = [_operand(op, operand)] if single else [_operand(op, x) for x in operand]
    num_keys = _int(op, "num_keys", num_keys)
    if not xs:
        raise op_value_error(op, "needs at least one operand")
    if single and num_keys != 1:
        raise op_value_error(op, f"num_keys={num_keys} must equal 1 for a single operand")
    if not 1 <= num_keys <= len(xs):
        raise op_value_error(op, f"num_keys={num_keys} must be between 1 and the number of "
                                 f"operands ({len(xs)})")
    if any(x.shape != xs[0].shape for x in xs):
        raise op_type_error(op, f"operands must share one shape, got "
                                f"{', '.join(_short(x) for x in xs)}")
    # A scalar has no dimension to sort along: jax.lax refuses it too.
    dimension = _any_axis(op, dimension, xs[0].ndim)
    outs = _sort_operands(xs, dimension=dimension, is_stable=bool(is_stable), num_keys=num_keys)
    return outs[0] if single else tuple(outs)


def sort_key_val(keys: ArrayLike, values: ArrayLike, dimension: int = -1,
                 is_stable: bool = True) -> tuple[Array, Array]:
    """Sort ``keys`` along ``dimension`` and permute ``values`` alike; returns both.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.sort_key_val(fnp.array([3, 1, 2]), fnp.array([0.3, 0.1, 0.2]))
        (Array([1, 2, 3], dtype=int32), Array([0.1, 0.2, 0.3], dtype=float32))
    """
    return sort((keys, values), dimension=dimension, is_stable=is_stable, num_keys=1)


def top_k(operand: ArrayLike, k: int, *, axis: int = -1) -> tuple[Array, Array]:
    """The ``k`` largest entries along ``axis`` (default the last), descending, and their
    int32 indices. Ties keep the lower index first; floats follow XLA's total order (NaN
    above ``inf``, ``+0.0`` above ``-0.0``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.top_k(fnp.asarray([1.0, 3.0, 2.0, 3.0]), 2)
        (Array([3., 3.], dtype=float32), Array([1, 3], dtype=int32))
    """
    op = "lax.top_k"
    x = _operand_of_kinds(op, operand, "biuf")
    if x.ndim == 0:
        raise op_type_error(op, "needs an operand with at least one axis, got a scalar")
    k = _int(op, "k", k)
    axis = _any_axis(op, axis, x.ndim)
    if not 0 <= k <= x.shape[axis]:
        raise op_value_error(op, f"k={k} must be between 0 and the size of axis {axis} "
                                 f"({x.shape[axis]}) of the operand {_short(x)}")
    last = x.ndim - 1
    if axis != last:
        x = _moveaxis(x, axis, last)
    values, indices = top_k_p.bind(x, k=k)
    if axis != last:
        values, indices = _moveaxis(values, last, axis), _moveaxis(indices, last, axis)
    return values, indices


def _moveaxis(x, source: int, destination: int):
    return _moveaxes(x, (source,), (destination,))


def _approx_k(op: str, operand, k, reduction_dimension, recall_target,
              reduction_input_size_override, aggregate_to_topk, largest: bool):
    from funcarray import lax

    x = _operand(op, operand)
    if x.ndim == 0:
        raise op_type_error(op, f"operand must have at least one dimension, got {_short(x)}")
    if _kind(x.dtype) != "f":
        raise op_value_error(op, f"operand must be a floating type, got {_short(x)}")
    k = _int(op, "k", k)
    axis = _int(op, "reduction_dimension", reduction_dimension)
    if not -x.ndim <= axis < x.ndim:
        raise op_value_error(op, f"reduction_dimension {axis} is out of range for {_short(x)}")
    axis %= x.ndim
    if k <= 0:
        raise op_value_error(op, f"k must be positive, got {k}")
    if x.shape[axis] < k:
        raise op_value_error(op, f"k must be smaller than the size of reduction_dim "
                                 f"{x.shape[axis]}, got {k}")
    if not 0 < float(recall_target) <= 1:
        raise op_value_error(op, f"recall_target must be in (0, 1], got {recall_target}")
    _int(op, "reduction_input_size_override", reduction_input_size_override)
    if not aggregate_to_topk:
        raise NotImplementedError(
            f"{op}: aggregate_to_topk=False (TPU partial results, whose size depends on the "
            f"TPU's tiling) is not supported; funcarray returns the exact top k (the default)")
    if largest:
        return list(lax.top_k(x, k, axis=axis))
    values, indices = lax.top_k(lax.neg(x), k, axis=axis)
    return [lax.neg(values), indices]


def _approx_k_on_host(largest: bool):
    """The shortcut of ``approx_max_k``/``approx_min_k`` (``largest`` or not): ``top_k``'s
    eager rule on the host value (negated before and after for the smallest), once the
    arguments pass the general path's checks."""
    floats = _accepting("f")

    def rule(operand, k, reduction_dimension=-1, recall_target=0.95,
             reduction_input_size_override=-1, aggregate_to_topk=True):
        x = host_value(operand)
        if (x is None or x.dtype not in floats or type(k) is not int
                or type(reduction_dimension) is not int or type(recall_target) is not float
                or type(reduction_input_size_override) is not int
                or aggregate_to_topk is not True):
            return NotImplemented
        ndim = x.ndim
        if not -ndim <= reduction_dimension < ndim or not 0 < recall_target <= 1:
            return NotImplemented
        axis, last = reduction_dimension % ndim, ndim - 1
        if not 0 < k <= x.shape[axis]:
            return NotImplemented
        v = x if largest else np.negative(x)
        if axis != last:
            v = np.moveaxis(v, axis, last)
        values, indices = (out._value for out in top_k_p.impl(Array(v), k=k))
        if not largest:
            values = np.negative(values)
        if axis != last:
            values, indices = np.moveaxis(values, last, axis), np.moveaxis(indices, last, axis)
        weak = operand._weak  # (top_k's outputs keep the operand's weak type)
        return [Array(values, weak), Array(indices, weak)]

    return rule


@host_shortcut(_approx_k_on_host(True))
def approx_max_k(operand: ArrayLike, k: int, reduction_dimension: int = -1,
                 recall_target: float = 0.95, reduction_input_size_override: int = -1,
                 aggregate_to_topk: bool = True) -> tuple[Array, Array]:
    """The ``k`` largest entries of ``operand`` along ``reduction_dimension`` and their
    indices. XLA approximates only on TPUs; here, as on CPU and GPU, the result is exact
    (``recall_target`` and ``reduction_input_size_override`` are accepted and unused).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.approx_max_k(fnp.array([1.0, 5.0, 3.0, 4.0]), 2)
        [Array([5., 4.], dtype=float32), Array([1, 3], dtype=int32)]
    """
    return _approx_k("lax.approx_max_k", operand, k, reduction_dimension, recall_target,
                     reduction_input_size_override, aggregate_to_topk, True)


@host_shortcut(_approx_k_on_host(False))
def approx_min_k(operand: ArrayLike, k: int, reduction_dimension: int = -1,
                 recall_target: float = 0.95, reduction_input_size_override: int = -1,
                 aggregate_to_topk: bool = True) -> tuple[Array, Array]:
    """The ``k`` smallest entries of ``operand`` along ``reduction_dimension`` and their
    indices (exact, as ``approx_max_k``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.approx_min_k(fnp.array([1.0, 5.0, 3.0, 4.0]), 2)
        [Array([1., 3.], dtype=float32), Array([0, 2], dtype=int32)]
    """
    return _approx_k("lax.approx_min_k", operand, k, reduction_dimension, recall_target,
                     reduction_input_size_override, aggregate_to_topk, False)
