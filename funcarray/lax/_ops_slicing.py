"""``jax.lax``'s slicing and indexing: static ``slice``, the ``dynamic_slice`` family, and
XLA's ``gather``/``scatter``, and ``scatter_sub``/``scatter_apply`` composed from
``scatter_add``.

Static slices take ``0 <= start <= limit <= size`` (no negative or clamped indices). The
dynamic ones wrap negative start indices once (``allow_negative_indices``) and clamp every
start so the slice fits, eagerly and traced, as JAX does.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray import lax
    >>> lax.dynamic_slice(fnp.arange(5), (3,), (3,))  # the start is clamped to 2
    Array([2, 3, 4], dtype=int32)
"""

from __future__ import annotations

import builtins
import enum
from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import _int_tuple, convert, is_array
from funcarray.base import dtypes
from funcarray.base.array import Array, DeviceArray
from funcarray.base.errors import index_error, op_type_error, op_value_error
from funcarray.lax._ops_common import (
    _any_axis,
    _checked_bind,
    _doc,
    _int,
    _kind,
    _operand,
    _same_dtype_operands,
    _short,
)
from funcarray.lax._ops_shape import expand_dims
from funcarray.lax._slicing_on_host import (
    dynamic_index_in_dim_on_host,
    dynamic_slice_in_dim_on_host,
    dynamic_slice_on_host,
    dynamic_update_index_in_dim_on_host,
    dynamic_update_slice_in_dim_on_host,
    dynamic_update_slice_on_host,
    gather_on_host,
    index_in_dim_on_host,
    mode_name,
    scatter_shortcut,
    slice_in_dim_on_host,
    slice_on_host,
)
from funcarray.primitives import elementwise as ew
from funcarray.primitives import shape as sh
from funcarray.primitives.dynamic_slice import dynamic_slice_p, dynamic_update_slice_p
from funcarray.primitives.gather import gather_p
from funcarray.primitives.gather_scatter_dims import GatherDimensionNumbers, ScatterDimensionNumbers
from funcarray.primitives.scatter import (
    scatter_add_p,
    scatter_max_p,
    scatter_min_p,
    scatter_mul_p,
    scatter_p,
)
from funcarray.primitives.select_n import select_n_p
from funcarray.transforms.host_shortcuts import host_shortcut

if TYPE_CHECKING:
    from typing import Protocol

    from funcarray.base.typing import ArrayLike

    class _Scatter(Protocol):
        """The signature of the scatters ``_scatter`` makes."""

        def __call__(self, operand: ArrayLike, scatter_indices: ArrayLike, updates: ArrayLike,
                     dimension_numbers: ScatterDimensionNumbers, *,
                     indices_are_sorted: bool = False, unique_indices: bool = False,
                     mode: str | GatherScatterMode | None = None) -> Array: ...
    from collections.abc import Callable, Sequence

    from funcarray.base.typing import Shape

__all__ = [
    "dynamic_slice", "dynamic_update_slice", "dynamic_slice_in_dim",
    "dynamic_update_slice_in_dim", "dynamic_index_in_dim", "dynamic_update_index_in_dim",
    "slice", "slice_in_dim", "index_in_dim",
    "gather", "scatter", "scatter_add", "scatter_mul", "scatter_min", "scatter_max",
    "GatherDimensionNumbers", "ScatterDimensionNumbers", "GatherScatterMode",
    "scatter_sub", "scatter_apply",
]


def _operand_and_axis(op: str, operand, axis) -> tuple:
    """The operand of an ``*_in_dim`` op and its one axis (negative counts from the end)."""
    x = _operand(op, operand)
    return x, _any_axis(op, axis, x.ndim)


@host_shortcut(slice_on_host)
def slice(operand: ArrayLike, start_indices: Sequence[int], limit_indices: Sequence[int],
          strides: Sequence[int] | None = None) -> Array:  # noqa: A001 (jax's name)
    """Static slice: elements ``start, start + stride, ...`` below ``limit`` per dimension,
    with ``0 <= start <= limit <= size`` (no negative or clamped indices, as in jax.lax).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.slice(fnp.arange(10), (1,), (8,), (3,))
        Array([1, 4, 7], dtype=int32)
    """
    op = "lax.slice"
    x = _operand(op, operand)
    starts = _int_tuple(op, start_indices, "start_indices", sequence_only=True)
    limits = _int_tuple(op, limit_indices, "limit_indices", sequence_only=True)
    steps = None if strides is None else _int_tuple(op, strides, "strides", sequence_only=True)
    for what, value in (("start_indices", starts), ("limit_indices", limits),
                        ("strides", steps)):
        if value is not None and len(value) != x.ndim:
            raise op_value_error(op, f"{what}={value} needs one entry per dimension of "
                                     f"operand {_short(x)}")
    if steps is not None and any(s < 1 for s in steps):
        raise op_value_error(op, f"strides={steps} must all be positive")
    if not all(0 <= s <= lim <= d for s, lim, d in zip(starts, limits, x.shape)):
        raise op_value_error(
            op, f"start_indices={starts} and limit_indices={limits} must satisfy "
                f"0 <= start <= limit <= size for operand {_short(x)}")
    if steps is not None and all(s == 1 for s in steps):
        steps = None
    if starts == (0,) * x.ndim and limits == tuple(x.shape) and steps is None:
        return x
    return sh.slice_p.bind(x, start_indices=starts, limit_indices=limits, strides=steps)


@host_shortcut(slice_in_dim_on_host)
def slice_in_dim(operand: ArrayLike, start_index: int | None, limit_index: int | None,
                 stride: int = 1, axis: int = 0) -> Array:
    """``slice`` along one axis; ``None`` means the start/end and negative indices count
    from the end (once).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.slice_in_dim(fnp.arange(6).reshape(2, 3), -2, None, axis=1)
        Array([[1, 2],
               [4, 5]], dtype=int32)
    """
    op = "lax.slice_in_dim"
    x, axis = _operand_and_axis(op, operand, axis)
    size = x.shape[axis]
    start = 0 if start_index is None else _int(op, "start_index", start_index)
    limit = size if limit_index is None else _int(op, "limit_index", limit_index)
    start = start + size if start < 0 else start
    limit = limit + size if limit < 0 else limit
    starts, limits, strides = [0] * x.ndim, list(x.shape), [1] * x.ndim
    starts[axis], limits[axis], strides[axis] = start, limit, _int(op, "stride", stride)
    return slice(x, starts, limits, strides)


@host_shortcut(index_in_dim_on_host)
def index_in_dim(operand: ArrayLike, index: int, axis: int = 0,
                 keepdims: bool = True) -> Array:
    """The slice at static ``index`` along ``axis`` (negative counts from the end); the axis
    is kept (size 1) unless ``keepdims=False``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.index_in_dim(fnp.arange(6).reshape(2, 3), -1, axis=1, keepdims=False)
        Array([2, 5], dtype=int32)
    """
    op = "lax.index_in_dim"
    x, axis = _operand_and_axis(op, operand, axis)
    index = _int(op, "index", index)
    size = x.shape[axis]
    wrapped = index + size if index < 0 else index
    if not 0 <= wrapped < size:
        raise index_error(op, f"index {index} is out of bounds for axis {axis} with size {size}")
    out = slice_in_dim(x, wrapped, wrapped + 1, 1, axis)
    return out if keepdims else sh.squeeze_p.bind(out, dimensions=(axis,))


def _index_scalars(op: str, start_indices, ndim: int) -> list:
    """The start indices as a list with one entry per dimension: Python ints (NumPy integer
    scalars included) or 0-d integer arrays/tracers."""
    if is_array(start_indices) or isinstance(start_indices, np.ndarray):
        arr = _operand(op, start_indices, "start_indices")
        if arr.ndim != 1 or _kind(arr.dtype) not in "iu":
            raise op_type_error(op, f"start_indices must be a 1-D integer sequence, got "
                                    f"{_short(arr)}")
        # (a concrete array's values are static: a device array's too, read once, as every
        # read device array is an Array from then on and the two must agree)
        if type(arr) is Array or type(arr) is DeviceArray:
            start_indices = [int(v) for v in np.asarray(arr._value)]
        else:
            start_indices = [sh.reshape_p.bind(
                sh.slice_p.bind(arr, start_indices=(k,), limit_indices=(k + 1,), strides=None),
                new_sizes=()) for k in range(arr.shape[0])]
    elif not isinstance(start_indices, (tuple, list)):
        raise op_type_error(op, f"start_indices must be a sequence with one index per "
                                f"dimension, got {start_indices!r}")
    starts = list(start_indices)
    if len(starts) != ndim:
        raise op_value_error(op, f"needs one start index per operand dimension ({ndim}), got "
                                 f"{len(starts)}")
    out = []
    for s in starts:
        if isinstance(s, (int, np.integer)) and not isinstance(s, (bool, np.bool_)):
            out.append(int(s))
            continue
        s = _operand(op, s, "a start index")
        if s.ndim != 0 or _kind(s.dtype) not in "iu":
            raise op_type_error(op, f"start indices must be integer scalars, got {_short(s)}")
        out.append(s)
    return out


_WIDE_INDEX_DTYPES = frozenset((dtypes.int64, dtypes.uint32, dtypes.uint64))


def _normalized_starts(op: str, x, start_indices, allow_negative_indices) -> list:
    """jax.lax's start indices as 0-d arrays/tracers of one dtype (int32, or int64 when an
    index or a dimension needs it), negative ones wrapped once (per
    ``allow_negative_indices``). The primitive then clamps them so the slice fits."""
    starts = _index_scalars(op, start_indices, x.ndim)
    if isinstance(allow_negative_indices, (bool, np.bool_)):
        allow = [bool(allow_negative_indices)] * x.ndim
    else:
        allow = [bool(a) for a in allow_negative_indices]
    if len(allow) != x.ndim:
        raise op_value_error(op, f"allow_negative_indices needs one entry per dimension of "
                                 f"operand {_short(x)}, got {len(allow)}")
    wide = builtins.max(x.shape, default=0) >= 2**31 - 1 or any(
        not isinstance(s, int) and s.dtype in _WIDE_INDEX_DTYPES for s in starts)
    dtype = dtypes.int64 if wide else dtypes.int32
    out = []
    for s, size, neg_ok in zip(starts, x.shape, allow):
        if isinstance(s, int):
            if s < 0:
                if not neg_ok:
                    raise index_error(op, f"index {s} is out of bounds for a dimension of size "
                                          f"{size} when allow_negative_indices=False")
                s += size
            # Clamping a static start to [0, size] changes nothing (the primitive clamps to
            # [0, size - slice size]) and keeps it inside the index dtype.
            out.append(Array(np.asarray(builtins.min(builtins.max(s, 0), size), dtype)))
            continue
        signed = _kind(s.dtype) == "i"
        s = convert(s, dtype)
        if neg_ok and signed:
            negative = ew.lt_p.bind(s, Array(np.zeros((), dtype)))
            s = select_n_p.bind(negative, s, ew.add_p.bind(s, Array(np.asarray(size, dtype))))
        out.append(s)
    return out


@host_shortcut(dynamic_slice_on_host)
def dynamic_slice(operand: ArrayLike, start_indices: ArrayLike | Sequence[ArrayLike],
                  slice_sizes: Shape, *, allow_negative_indices: bool = True) -> Array:
    """The slice of static shape ``slice_sizes`` at dynamic (possibly traced) starts.

    As in JAX, a negative start counts from the end (once, unless
    ``allow_negative_indices=False``) and every start is then clamped to
    ``[0, size - slice_size]``, so the slice always lies inside the operand.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> x = fnp.arange(12).reshape(3, 4)
        >>> lax.dynamic_slice(x, (1, 3), (2, 2))  # the column start is clamped to 2
        Array([[ 6,  7],
               [10, 11]], dtype=int32)
    """
    op = "lax.dynamic_slice"
    x = _operand(op, operand)
    sizes = _int_tuple(op, slice_sizes, "slice_sizes", sequence_only=True)
    if len(sizes) != x.ndim or not all(0 <= n <= d for n, d in zip(sizes, x.shape)):
        raise op_value_error(op, f"slice_sizes={sizes} must give one size in [0, dim] per "
                                 f"dimension of operand {_short(x)}")
    starts = _normalized_starts(op, x, start_indices, allow_negative_indices)
    return dynamic_slice_p.bind(x, *starts, slice_sizes=sizes)


@host_shortcut(dynamic_update_slice_on_host)
def dynamic_update_slice(operand: ArrayLike, update: ArrayLike,
                         start_indices: ArrayLike | Sequence[ArrayLike], *,
                         allow_negative_indices: bool = True) -> Array:
    """``operand`` with ``update`` written at dynamic (possibly traced) starts.

    Starts wrap and clamp as in ``dynamic_slice`` (with ``update.shape`` as the sizes), so
    the whole update is always written.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.dynamic_update_slice(fnp.zeros(5, fnp.int32), fnp.array([1, 2]), (4,))
        Array([0, 0, 0, 1, 2], dtype=int32)
    """
    op = "lax.dynamic_update_slice"
    x = _operand(op, operand)
    x, update = _same_dtype_operands(op, (x, update), anchor=0)
    if update.ndim != x.ndim:
        raise op_type_error(op, f"update must have the rank of the operand, got update "
                                f"{_short(update)} for operand {_short(x)}")
    if any(u > d for u, d in zip(update.shape, x.shape)):
        raise op_type_error(op, f"update {_short(update)} must fit inside operand {_short(x)}")
    starts = _normalized_starts(op, x, start_indices, allow_negative_indices)
    return dynamic_update_slice_p.bind(x, update, *starts)


def _start_list(x, start_index, axis: int) -> list:
    starts = [0] * x.ndim
    starts[axis] = start_index
    return starts


def _neg_only_at(ndim: int, axis: int, allow) -> list:
    flags = [False] * ndim
    flags[axis] = bool(allow)
    return flags


@host_shortcut(dynamic_slice_in_dim_on_host)
def dynamic_slice_in_dim(operand: ArrayLike, start_index: ArrayLike, slice_size: int,
                         axis: int = 0, *, allow_negative_indices: bool = True) -> Array:
    """``dynamic_slice`` along one axis (the other axes whole).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.dynamic_slice_in_dim(fnp.arange(5), -2, 2)
        Array([3, 4], dtype=int32)
    """
    op = "lax.dynamic_slice_in_dim"
    x, axis = _operand_and_axis(op, operand, axis)
    sizes = list(x.shape)
    sizes[axis] = _int(op, "slice_size", slice_size)
    return dynamic_slice(x, _start_list(x, start_index, axis), sizes,
                         allow_negative_indices=_neg_only_at(x.ndim, axis,
                                                             allow_negative_indices))


@host_shortcut(dynamic_index_in_dim_on_host)
def dynamic_index_in_dim(operand: ArrayLike, index: ArrayLike, axis: int = 0, keepdims: bool = True,
                         *, allow_negative_indices: bool = True) -> Array:
    """The slice at a dynamic ``index`` along ``axis`` (clamped into range, as in JAX); the
    axis is kept (size 1) unless ``keepdims=False``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.dynamic_index_in_dim(fnp.arange(6).reshape(2, 3), 1, axis=1, keepdims=False)
        Array([1, 4], dtype=int32)
    """
    op = "lax.dynamic_index_in_dim"
    x, axis = _operand_and_axis(op, operand, axis)
    out = dynamic_slice_in_dim(x, index, 1, axis, allow_negative_indices=allow_negative_indices)
    return out if keepdims else sh.squeeze_p.bind(out, dimensions=(axis,))


@host_shortcut(dynamic_update_slice_in_dim_on_host)
def dynamic_update_slice_in_dim(operand: ArrayLike, update: ArrayLike, start_index: ArrayLike,
                                axis: int, *, allow_negative_indices: bool = True) -> Array:
    """``dynamic_update_slice`` at a dynamic start along one axis (0 along the others).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.dynamic_update_slice_in_dim(fnp.zeros((2, 3), fnp.int32),
        ...                                 fnp.ones((2, 1), fnp.int32), -1, 1)
        Array([[0, 0, 1],
               [0, 0, 1]], dtype=int32)
    """
    op = "lax.dynamic_update_slice_in_dim"
    x, axis = _operand_and_axis(op, operand, axis)
    return dynamic_update_slice(x, update, _start_list(x, start_index, axis),
                                allow_negative_indices=_neg_only_at(x.ndim, axis,
                                                                    allow_negative_indices))


@host_shortcut(dynamic_update_index_in_dim_on_host)
def dynamic_update_index_in_dim(operand: ArrayLike, update: ArrayLike, index: ArrayLike, axis: int,
                                *, allow_negative_indices: bool = True) -> Array:
    """``dynamic_update_slice_in_dim`` with a slice of size 1; ``update`` may lack the axis.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.dynamic_update_index_in_dim(fnp.zeros((2, 3), fnp.int32),
        ...                                 fnp.array([5, 6]), 0, 1)
        Array([[5, 0, 0],
               [6, 0, 0]], dtype=int32)
    """
    op = "lax.dynamic_update_index_in_dim"
    x, axis = _operand_and_axis(op, operand, axis)
    update = _operand(op, update, "update")
    if update.ndim == x.ndim - 1:
        update = expand_dims(update, (axis,))
    elif update.ndim != x.ndim:
        raise op_type_error(op, f"update {_short(update)} must have the rank of operand "
                                f"{_short(x)} or one less")
    return dynamic_update_slice_in_dim(x, update, index, axis,
                                       allow_negative_indices=allow_negative_indices)



class GatherScatterMode(enum.Enum):
    """What ``gather``/``scatter`` do with out-of-bounds windows (jax.lax's enum): ``CLIP``
    clamps the start, ``FILL_OR_DROP`` fills gathered windows with ``fill_value`` and drops
    scattered ones, ``PROMISE_IN_BOUNDS`` promises they never happen (a gather then clamps,
    a scatter drops). The defaults are jax.lax's: ``PROMISE_IN_BOUNDS`` for ``gather``,
    ``FILL_OR_DROP`` for the scatters."""

    CLIP = 0
    FILL_OR_DROP = 1
    PROMISE_IN_BOUNDS = 2


def _mode(op: str, mode, gather_: bool) -> str:
    name = mode_name(mode, gather_)
    if name is None:
        raise op_value_error(op, f"unknown mode {mode!r}; use 'clip', 'fill'/'drop', "
                                 f"'promise_in_bounds' or a lax.GatherScatterMode")
    return name


def _dimension_numbers(op: str, dn, cls):
    try:
        fields = {f: tuple(int(d) for d in getattr(dn, f, ())) for f in cls._fields}
    except TypeError:
        raise op_type_error(op, f"dimension_numbers must be a lax.{cls.__name__}, "
                                f"got {dn!r}") from None
    if not all(hasattr(dn, f) for f in cls._fields[:3]):
        raise op_type_error(op, f"dimension_numbers must be a lax.{cls.__name__}, got {dn!r}")
    return cls(**fields)


@host_shortcut(gather_on_host)
def gather(operand: ArrayLike, start_indices: ArrayLike, dimension_numbers: GatherDimensionNumbers,
           slice_sizes: Shape, *, unique_indices: bool = False, indices_are_sorted: bool = False,
           mode: str | GatherScatterMode | None = None,
           fill_value: ArrayLike | None = None) -> Array:
    """XLA's gather (``start_indices``' last dimension is the index vector), as in jax.lax:
    windows of ``slice_sizes`` at the given starts, laid out by ``dimension_numbers``. By
    default (``PROMISE_IN_BOUNDS``) out-of-bounds starts are clamped; ``mode="fill"`` gives
    such windows ``fill_value`` (NaN for inexact dtypes) instead.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> dn = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,),
        ...                                 start_index_map=(0,))
        >>> x, i = fnp.array([10.0, 11.0, 12.0]), fnp.array([[2], [0], [5]])
        >>> lax.gather(x, i, dn, (1,))
        Array([12., 10., 12.], dtype=float32)
        >>> lax.gather(x, i, dn, (1,), mode="fill")
        Array([12., 10., nan], dtype=float32)
    """
    op = "lax.gather"
    x = _operand(op, operand)
    indices = _operand(op, start_indices, "start_indices")
    dn = _dimension_numbers(op, dimension_numbers, GatherDimensionNumbers)
    sizes = _int_tuple(op, slice_sizes, "slice_sizes", sequence_only=True)
    return _checked_bind(op, gather_p, x, indices, dimension_numbers=dn, slice_sizes=sizes,
                         indices_are_sorted=bool(indices_are_sorted),
                         unique_indices=bool(unique_indices), mode=_mode(op, mode, True),
                         fill_value=fill_value)


def _scatter(name: str, prim, example: tuple, combine: str) -> _Scatter:
    op = f"lax.{name}"

    @host_shortcut(scatter_shortcut(name))
    def fn(operand, scatter_indices, updates, dimension_numbers, *, indices_are_sorted=False,
           unique_indices=False, mode=None):
        x = _operand(op, operand)
        indices = _operand(op, scatter_indices, "scatter_indices")
        x, ups = _same_dtype_operands(op, (x, updates), anchor=0)
        if name in ("scatter_add", "scatter_mul") and x.dtype == np.bool_:
            raise op_type_error(op, f"does not accept bool operands ({_short(x)}), as "
                                    f"jax.lax's add and mul; use scatter_max or scatter_min")
        dn = _dimension_numbers(op, dimension_numbers, ScatterDimensionNumbers)
        return _checked_bind(op, prim, x, indices, ups, dimension_numbers=dn,
                             indices_are_sorted=bool(indices_are_sorted),
                             unique_indices=bool(unique_indices), mode=_mode(op, mode, False))

    return _doc(fn, name, f"XLA's scatter, as in jax.lax: each window of ``updates`` is "
                          f"{combine} ``operand`` at its start; by default windows that do "
                          f"not fit are dropped.", example)


_SCATTER_EXAMPLE = ("lax.{}(fnp.zeros(3), fnp.array([[1], [1]]), fnp.array([2.0, 3.0]), "
                    "lax.ScatterDimensionNumbers((), (0,), (0,)))")
scatter = _scatter("scatter", scatter_p, (_SCATTER_EXAMPLE.format("scatter").replace(
    "[[1], [1]]", "[[1], [2]]"), "Array([0., 2., 3.], dtype=float32)"), "written into")
scatter_add = _scatter("scatter_add", scatter_add_p, (_SCATTER_EXAMPLE.format("scatter_add"),
                       "Array([0., 5., 0.], dtype=float32)"), "added to")
scatter_mul = _scatter("scatter_mul", scatter_mul_p, (_SCATTER_EXAMPLE.format("scatter_mul"),
                       "Array([0., 0., 0.], dtype=float32)"), "multiplied into")
scatter_min = _scatter("scatter_min", scatter_min_p, (_SCATTER_EXAMPLE.format("scatter_min"),
                       "Array([0., 0., 0.], dtype=float32)"), "combined by minimum with")
scatter_max = _scatter("scatter_max", scatter_max_p, (_SCATTER_EXAMPLE.format("scatter_max"),
                       "Array([0., 3., 0.], dtype=float32)"), "combined by maximum with")


@host_shortcut(scatter_shortcut("scatter_sub"))
def scatter_sub(operand: ArrayLike, scatter_indices: ArrayLike, updates: ArrayLike,
                dimension_numbers: ScatterDimensionNumbers, *, indices_are_sorted: bool = False,
                unique_indices: bool = False, mode: str | GatherScatterMode | None = None) -> Array:
    """XLA's scatter, as in jax.lax: each window of ``updates`` is subtracted from
    ``operand`` at its start (repeated indices subtract repeatedly); by default windows that
    do not fit are dropped. It is ``scatter_add`` of ``-updates`` (exact: ``x - u`` is
    ``x + (-u)`` in floating point and in wrapping integer arithmetic), so its derivatives
    are scatter_add's.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> dn = lax.ScatterDimensionNumbers((), (0,), (0,))
        >>> lax.scatter_sub(fnp.ones(3), fnp.asarray([[0], [2]]), fnp.asarray([1.0, 4.0]), dn)
        Array([ 0.,  1., -3.], dtype=float32)
    """
    op = "lax.scatter_sub"
    x = _operand(op, operand)
    indices = _operand(op, scatter_indices, "scatter_indices")
    x, ups = _same_dtype_operands(op, (x, updates), anchor=0)
    if x.dtype == np.bool_:
        raise op_type_error(op, f"does not accept bool operands ({_short(x)}); there is no "
                                f"subtraction of booleans")
    dn = _dimension_numbers(op, dimension_numbers, ScatterDimensionNumbers)
    return _checked_bind(op, scatter_add_p, x, indices, ew.neg_p.bind(ups),
                         dimension_numbers=dn, indices_are_sorted=bool(indices_are_sorted),
                         unique_indices=bool(unique_indices), mode=_mode(op, mode, False))


def _elementwise(func, dtype):
    """``func`` (a function of one scalar, as jax.lax's ``scatter_apply`` traces it) applied
    to every element of an array of ``dtype``."""
    from funcarray.api.vectorization import vmap

    def apply(v):
        out = vmap(func)(v.reshape(-1))
        if getattr(out, "shape", None) != (v.size,) or out.dtype != dtype:
            raise op_type_error("lax.scatter_apply", f"func must map a {dtype} scalar to a "
                                                     f"{dtype} scalar, got {_short(out)} per "
                                                     f"element")
        return out.reshape(v.shape)
    return apply


def _select_same_dtype(pred, on_true, on_false):
    """``numpy.where(pred, on_true, on_false)`` for cases of one dtype and of ``pred``'s
    shape: weak only when both cases are."""
    weak = on_true.weak_type and on_false.weak_type
    return select_n_p.bind(pred, convert(on_false, on_false.dtype, weak),
                           convert(on_true, on_true.dtype, weak))


def scatter_apply(operand: ArrayLike, scatter_indices: ArrayLike,
                  func: Callable[[Array], ArrayLike], dimension_numbers: ScatterDimensionNumbers, *,
                  update_shape: Shape = (), indices_are_sorted: bool = False,
                  unique_indices: bool = False,
                  mode: str | GatherScatterMode | None = None) -> Array:
    """Apply ``func`` (a function of one scalar) to the elements of ``operand`` that the
    scatter described by ``scatter_indices``, ``dimension_numbers`` and ``update_shape`` (the
    shape its updates would have) reaches; an element reached ``n`` times gets ``func``
    applied ``n`` times, as in jax.lax.

    It counts the hits with a ``scatter_add`` and applies ``func`` where the count allows,
    once per round (a ``while_loop`` while any element needs more); with
    ``unique_indices=True`` that is one ``where``, which also differentiates (JAX's has no
    derivative).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> dn = lax.ScatterDimensionNumbers((), (0,), (0,))
        >>> lax.scatter_apply(fnp.ones(3), fnp.asarray([[2], [0], [2]]), lambda v: v * 3, dn,
        ...                   update_shape=(3,))
        Array([3., 1., 9.], dtype=float32)
    """
    from funcarray import lax

    op = "lax.scatter_apply"
    x = _operand(op, operand)
    indices = _operand(op, scatter_indices, "scatter_indices")
    if not callable(func):
        raise op_type_error(op, f"func must be a function of one scalar, got {func!r}")
    dn = _dimension_numbers(op, dimension_numbers, ScatterDimensionNumbers)
    shape = _int_tuple(op, update_shape, "update_shape", sequence_only=True)
    counts = _checked_bind(op, scatter_add_p, lax.full(x.shape, 0, np.int32), indices,
                           lax.full(shape, 1, np.int32), dimension_numbers=dn,
                           indices_are_sorted=bool(indices_are_sorted),
                           unique_indices=bool(unique_indices), mode=_mode(op, mode, False))
    apply = _elementwise(func, x.dtype)
    # jax.lax traces func whatever the scatter reaches: a function the operand's dtype
    # refuses is refused even where no index hits (the loop below may never run it).
    apply(x.reshape(-1)[:0])
    if unique_indices:
        return _select_same_dtype(counts > 0, apply(x), x)

    def more(state):
        done, _ = state
        return (counts > done).any()

    def again(state):
        done, value = state
        return done + 1, _select_same_dtype(counts > done, apply(value), value)

    return lax.while_loop(more, again, (np.int32(0), x))[1]
