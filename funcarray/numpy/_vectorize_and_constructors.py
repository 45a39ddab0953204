"""Assorted jax.numpy functions: ``vectorize`` (over ``vmap``), ``fromfunction``, the
``from*`` constructors, ``geomspace``/``logspace``, ``diagflat``, ``lexsort``,
``partition``/``argpartition`` (over ``lax.top_k``, as in jax.numpy), ``sort_complex``,
``packbits``/``unpackbits``, ``vecmat``/``matvec``. The predicates, print options, I/O and
aliases live in ``_introspection_and_io.py`` and are re-exported here.

Example:
    >>> import funcarray.numpy as fnp
    >>> fnp.vectorize(lambda a, b: a @ b, signature="(n),(n)->()")(fnp.ones((2, 3)),
    ...                                                            fnp.ones(3))
    Array([3., 3.], dtype=float32)
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import (
    _axis,
    _concrete_int,
    asarray_arg,
    convert,
    convert_arg,
    to_inexact_dtype,
)
from funcarray.base import dtypes
from funcarray.base.array import Array, DeviceArray
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.base.host_values import from_numpy
from funcarray.numpy._creation import arange, asarray, linspace, shape_tuple, zeros
from funcarray.numpy._creation import ones as _ones
from funcarray.numpy._diagonals import diag
from funcarray.numpy._elementwise import bitwise_and, log10, power, where
from funcarray.numpy._elementwise import sign as _sign
from funcarray.numpy._introspection_and_io import *  # noqa: F403
from funcarray.numpy._introspection_and_io import __all__ as _info_all
from funcarray.numpy._linalg import matmul
from funcarray.numpy._math_functions import conj
from funcarray.numpy._padding import pad as _pad
from funcarray.numpy._predicates_and_bits import bitwise_not, left_shift, logical_not
from funcarray.numpy._reductions import any as reduce_any
from funcarray.numpy._reductions import sum as _sum
from funcarray.numpy._shape import concatenate, expand_dims, moveaxis, ravel, squeeze, swapaxes
from funcarray.numpy._shape_on_host import host_axis
from funcarray.numpy._sort_and_nonzero import sort
from funcarray.primitives.elementwise import div_p, pow_p
from funcarray.primitives.sort import _sort_keys
from funcarray.primitives.top_k import flip_negative, top_k_kernel, total_order_key
from funcarray.transforms.host_shortcuts import host_shortcut, host_value

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, TypeVar

    from funcarray.base.typing import ArrayLike, DTypeLike, ShapeLike

    _T = TypeVar("_T")

__all__ = [
    "vectorize", "fromfunction", "frombuffer", "fromiter", "fromstring", "geomspace",
    "logspace", "diagflat", "lexsort", "partition", "argpartition", "sort_complex",
    "packbits", "unpackbits", "vecmat", "matvec", *_info_all,
]


# --------------------------------------------------------------------------------------------
# vectorize
# --------------------------------------------------------------------------------------------

_DIM = r"\w+"
_CORE_DIMS = rf"\((?:{_DIM}(?:,{_DIM})*)?\)"
_SIGNATURE = rf"^{_CORE_DIMS}(?:,{_CORE_DIMS})*->{_CORE_DIMS}(?:,{_CORE_DIMS})*$"


def _parse_signature(signature):
    """``"(m,n),(n)->(m)"`` as ([("m", "n"), ("n",)], [("m",)])."""
    text = signature.replace(" ", "")
    if not re.match(_SIGNATURE, text):
        raise op_value_error("vectorize", f"not a valid gufunc signature: {signature!r} "
                                          f"(write e.g. '(m,n),(n)->(m)')")
    ins, outs = text.split("->")
    return ([tuple(re.findall(_DIM, a)) for a in re.findall(_CORE_DIMS, ins)],
            [tuple(re.findall(_DIM, a)) for a in re.findall(_CORE_DIMS, outs)])


def _record_core_sizes(sizes, shape, core_dims, what, context):
    if len(shape) < len(core_dims) or (what == "output" and len(shape) != len(core_dims)):
        raise op_value_error("vectorize", f"{what} of shape {tuple(shape)} does not match the "
                                          f"core dimensions {core_dims} {context}")
    core_shape = tuple(shape)[len(shape) - len(core_dims):]
    for name, size in zip(core_dims, core_shape):
        if sizes.setdefault(name, size) != size:
            raise op_value_error("vectorize", f"core dimension {name!r} has sizes "
                                              f"{sizes[name]} and {size} {context}")


def _with_static(func, static_args, static_kwargs):
    """``func`` with the excluded positional and keyword arguments put back in place."""
    if not static_args and not static_kwargs:
        return func

    def call(*args, **kwargs):
        args = list(args)
        for i, value in static_args:
            args.insert(i, value)
        return func(*args, **kwargs, **static_kwargs)
    return call


def _checked_outputs(func, sizes, out_core_dims, context):
    def call(*args):
        out = func(*args)
        outs = out if isinstance(out, tuple) else (out,)
        if len(out_core_dims) > 1 and not isinstance(out, tuple):
            raise op_type_error("vectorize", f"the signature has {len(out_core_dims)} outputs, "
                                             f"so the function must return a tuple {context}")
        if len(outs) != len(out_core_dims):
            raise op_type_error("vectorize", f"expected {len(out_core_dims)} outputs, got "
                                             f"{len(outs)} {context}")
        seen = dict(sizes)
        for o, dims in zip(outs, out_core_dims):
            _record_core_sizes(seen, np.shape(o), dims, "output", context)
        return out
    return call


def vectorize(pyfunc: Callable[..., Any], *, excluded: frozenset[int | str] = frozenset(),
              signature: str | None = None) -> Callable[..., Any]:
    """``pyfunc`` turned into a function that maps over the leading (broadcast) dimensions of
    its arguments with ``vmap``, as jax.numpy.vectorize.

    Without ``signature`` the function sees scalars; with a gufunc ``signature`` such as
    ``"(m,n),(n)->(m)"`` it sees the trailing core dimensions and the rest broadcast.
    ``excluded`` names positional indices or keywords passed through unchanged (other keyword
    arguments are passed through unchanged too). ``None`` arguments are passed as they are.

    Example:
        >>> import funcarray.numpy as fnp
        >>> clipped = fnp.vectorize(lambda x, lo: fnp.maximum(x, lo), excluded={1})
        >>> clipped(fnp.array([-1.0, 2.0]), 0.0)
        Array([0., 2.], dtype=float32)
        >>> norm = fnp.vectorize(lambda v: fnp.sqrt(v @ v), signature="(n)->()")
        >>> norm(fnp.array([[3.0, 4.0], [6.0, 8.0]]))
        Array([ 5., 10.], dtype=float32)
    """
    if _any(not isinstance(e, (str, int)) for e in excluded):
        raise op_type_error("vectorize", f"excluded may hold only ints (positions) and strings "
                                         f"(keywords), got {excluded!r}")
    if _any(isinstance(e, int) and e < 0 for e in excluded):
        raise op_value_error("vectorize", f"excluded={excluded!r} has a negative position")
    parsed = None if signature is None else _parse_signature(signature)
    mapped_pyfunc = {}  # chain of in_axes -> pyfunc vmapped along it

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        from funcarray.api.vectorization import vmap
        context = f"(vectorize with excluded={excluded!r} and signature={signature!r})"
        static_args = [(i, args[i]) for i in sorted(e for e in excluded if isinstance(e, int))
                       if i < len(args)]
        args = [a for i, a in enumerate(args) if i not in excluded]
        if parsed is None:
            in_core_dims, out_core_dims = [()] * len(args), None
        else:
            in_core_dims, out_core_dims = parsed
        # None arguments ride along as static ones (they have no dimensions to map).
        nones = [i for i, a in enumerate(args) if a is None]
        if nones and len(in_core_dims) == len(args):
            if _any(in_core_dims[i] != () for i in nones):
                raise op_value_error("vectorize", f"None at positions {nones} cannot have "
                                                  f"core dimensions {context}")
            in_core_dims = [d for i, d in enumerate(in_core_dims) if i not in nones]
        func = _with_static(pyfunc, static_args, kwargs)
        if nones:
            func = _with_static(func, [(i, None) for i in nones], {})
            args = [a for a in args if a is not None]
        args = [asarray_arg("vectorize", a) for a in args]
        if len(args) != len(in_core_dims):
            raise op_type_error("vectorize", f"expected {len(in_core_dims)} array arguments, "
                                             f"got {len(args)} {context}")
        sizes = {}
        loop_shapes = []
        for a, dims in zip(args, in_core_dims):
            _record_core_sizes(sizes, a.shape, dims, "input", context)
            loop_shapes.append(tuple(a.shape)[:a.ndim - len(dims)])
        try:
            loop_shape = np.broadcast_shapes(*loop_shapes)
        except ValueError:
            raise op_value_error("vectorize", f"the loop dimensions {loop_shapes} do not "
                                              f"broadcast together {context}") from None
        if out_core_dims is not None:
            func = _checked_outputs(func, sizes, out_core_dims, context)
        # Map one loop dimension per vmap, innermost first; an argument of size 1 there is
        # squeezed and left unmapped (no broadcast copy), and a dimension where every
        # argument has size 1 is put back on the result.
        squeezed, filled = [], []
        for a, shape in zip(args, loop_shapes):
            filled.append(((1,) * (len(loop_shape) - len(shape)) + shape)[::-1])
            ones = tuple(i for i, n in enumerate(shape) if n == 1)
            squeezed.append(squeeze(a, axis=ones) if ones else a)
        expand, chain = [], []
        for negdim, column in enumerate(zip(*filled)):
            in_axes = tuple(None if n == 1 else 0 for n in column)
            if all(ax is None for ax in in_axes):
                expand.append(len(loop_shape) - 1 - negdim)
            else:
                chain.append(in_axes)
        # The mapped function of pyfunc itself (no excluded, None or keyword arguments, no
        # signature) depends only on the chain of in_axes: made once per chain, since each
        # new vmap costs its making and a first call.
        key = tuple(chain)
        mapped = mapped_pyfunc.get(key) if func is pyfunc else None
        if mapped is None:
            mapped = func
            for in_axes in chain:
                mapped = vmap(mapped, in_axes=in_axes)
            if func is pyfunc:
                mapped_pyfunc[key] = mapped
        out = mapped(*squeezed)
        if not expand:
            return out
        if isinstance(out, tuple):
            return tuple(expand_dims(o, expand) for o in out)
        return expand_dims(out, expand)
    return wrapped


def _any(items):
    for item in items:
        if item:
            return True
    return False


# --------------------------------------------------------------------------------------------
# Constructors: fromfunction, frombuffer, fromiter, fromstring, geomspace, logspace, diagflat
# --------------------------------------------------------------------------------------------

def fromfunction(function: Callable[..., _T], shape: ShapeLike, *,
                 dtype: DTypeLike = float, **kwargs: Any) -> _T:
    """``function(*indices)`` where ``indices`` are the coordinates of an array of ``shape``
    (as ``dtype``); ``function`` is mapped with ``vmap`` over each coordinate, so it sees
    scalars.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.fromfunction(lambda i, j: i + 10 * j, (2, 3), dtype=int)
        Array([[ 0, 10, 20],
               [ 1, 11, 21]], dtype=int32)
    """
    from funcarray.api.vectorization import vmap
    shape = shape_tuple("fromfunction", shape)
    for i in range(len(shape)):
        in_axes = [0 if i == j else None for j in range(len(shape))]
        function = vmap(function, in_axes=tuple(in_axes[::-1]))
    return function(*(arange(n, dtype=dtype) for n in shape), **kwargs)


def frombuffer(buffer: bytes | Any, dtype: DTypeLike = float, count: int = -1,
               offset: int = 0) -> Array:
    """An array (a copy) of the bytes of ``buffer`` read as NumPy reads ``dtype`` (``float``:
    8-byte doubles), then converted to funcarray's meaning of ``dtype`` (``float``: float32),
    as jax.numpy does with its 32-bit defaults.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.frombuffer(b"\\x01\\x02\\x03", dtype=fnp.uint8)
        Array([1, 2, 3], dtype=uint8)
    """
    value = np.frombuffer(buffer, dtype=np.dtype(dtype), count=count, offset=offset)
    target = dtypes.canonicalize_dtype(dtype)
    if value.dtype == target:  # (a supported dtype read as it is: a copy, the buffer may change)
        return Array(value.copy())
    return from_numpy("frombuffer", value, target)


def fromiter(*args, **kwargs):
    """Not provided, as in jax.numpy: consuming an iterator is a side effect that ``jit``
    would run once only. Use ``fnp.asarray(np.fromiter(...))`` outside the transforms.

    Example:
        >>> import numpy as np, funcarray.numpy as fnp
        >>> fnp.asarray(np.fromiter(range(3), dtype=np.int32))
        Array([0, 1, 2], dtype=int32)
    """
    raise NotImplementedError(
        "fromiter is not provided, as in jax.numpy: consuming an iterator is a side effect "
        "(under jit it would run once only). Use fnp.asarray(np.fromiter(...)) instead.")


def fromstring(string: str, dtype: DTypeLike = float, count: int = -1, *, sep: str) -> Array:
    """An array of the numbers in the text ``string`` separated by ``sep`` (NumPy's
    ``fromstring``; ``sep`` is required, binary strings belong to ``frombuffer``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.fromstring("1 2 3", dtype=int, sep=" ")
        Array([1, 2, 3], dtype=int32)
    """
    if not sep:
        raise op_value_error("fromstring", "sep must be a non-empty separator; read binary "
                                           "data with fnp.frombuffer")
    value = np.fromstring(string, dtype=np.dtype(dtype), count=count, sep=sep)
    return asarray(value, dtype=dtypes.canonicalize_dtype(dtype))


def _space_dtypes(op, start, stop, dtype):
    if dtype is None:
        dtype = to_inexact_dtype(dtypes.result_type(asarray_arg(op, start),
                                                    asarray_arg(op, stop)))
    else:
        dtype = dtypes.canonicalize_dtype(dtype)
    compute = to_inexact_dtype(dtype)
    # (convert_arg: a Python float start/stop keeps float64's precision.)
    return convert_arg(op, start, compute), convert_arg(op, stop, compute), dtype, compute


def _linspace_values(start, stop, num, endpoint, compute):
    """linspace's formula (funcarray.numpy.linspace, as its general path computes it) for
    0-d NumPy ``start``/``stop`` of the float dtype ``compute``, on axis 0:
    ``start + iota * ((stop - start) * (1 / div))``, the last sample ``stop`` itself."""
    start, stop = start.reshape(1), stop.reshape(1)
    div = (num - 1) if endpoint else num
    step = np.multiply(np.subtract(stop, start),
                       np.asarray(1.0 / div if div > 0 else 0.0, compute))
    if num == 1:
        return start
    out = np.add(start, np.multiply(np.arange(num, dtype=compute), step))
    if endpoint and num > 1:
        out[-1] = stop[0]
    return out


def _logspace_on_host(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """Python-float ``start``, ``stop`` and ``base`` in the default float: linspace's
    formula with the same kernels, then the power kernel."""
    if (type(start) is not float or type(stop) is not float or type(base) is not float
            or dtype is not None or type(num) is not int or num < 0
            or type(endpoint) is not bool or (axis != 0 and axis != -1) or type(axis) is not int):
        return NotImplemented
    compute = dtypes.default_float
    lin = _linspace_values(np.asarray(start, compute), np.asarray(stop, compute), num,
                           endpoint, compute)
    return Array(pow_p.kernel(np.asarray(base, compute), lin))


@host_shortcut(_logspace_on_host)
def logspace(start: ArrayLike, stop: ArrayLike, num: int = 50, endpoint: bool = True,
             base: ArrayLike = 10.0, dtype: DTypeLike | None = None, axis: int = 0) -> Array:
    """``base ** linspace(start, stop, num)``: ``num`` values evenly spaced on a log scale
    (differentiable in ``start`` and ``stop``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.logspace(0, 3, 4)
        Array([   1.,   10.,  100., 1000.], dtype=float32)
    """
    op = "logspace"
    num = _concrete_int(op, num, "num")
    axis = _concrete_int(op, axis, "axis")
    start, stop, dtype, compute = _space_dtypes(op, start, stop, dtype)
    lin = linspace(start, stop, num, endpoint=endpoint, dtype=compute, axis=axis)
    return convert(power(base, lin), dtype)


def _geomspace_on_host(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """Python-float bounds in the default float: the general path's sign and base-10
    logarithms (those functions themselves, on 0-d arrays), logspace's shortcut values, and
    the product by the sign, with their kernels."""
    if (type(start) is not float or type(stop) is not float or dtype is not None
            or type(num) is not int or num < 0 or type(endpoint) is not bool
            or (axis != 0 and axis != -1) or type(axis) is not int):
        return NotImplemented
    compute = dtypes.default_float
    start, stop = np.asarray(start, compute), np.asarray(stop, compute)
    sign = _sign(Array(start))._value
    low, high = (log10(Array(div_p.kernel(v, sign)))._value for v in (start, stop))
    lin = _linspace_values(low, high, num, endpoint, compute)
    return Array(np.multiply(sign, pow_p.kernel(np.asarray(10.0, compute), lin)))


@host_shortcut(_geomspace_on_host)
def geomspace(start: ArrayLike, stop: ArrayLike, num: int = 50, endpoint: bool = True,
              dtype: DTypeLike | None = None, axis: int = 0) -> Array:
    """``num`` values from ``start`` to ``stop`` in a geometric progression (both of one
    sign; negative ranges work).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.geomspace(1, 16, 5).round(4)
        Array([ 1.,  2.,  4.,  8., 16.], dtype=float32)
    """
    op = "geomspace"
    num = _concrete_int(op, num, "num")
    axis = _concrete_int(op, axis, "axis")
    start, stop, dtype, compute = _space_dtypes(op, start, stop, dtype)
    sign = _sign(start)
    out = sign * logspace(log10(start / sign), log10(stop / sign), num,
                          endpoint=endpoint, base=10.0, dtype=compute, axis=0)
    out = moveaxis(out, 0, _axis(op, axis, out.shape))
    return convert(out, dtype)


def diagflat(v: ArrayLike, k: int = 0) -> Array:
    """A 2-D array with the flattened ``v`` on its ``k``-th diagonal.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.diagflat(fnp.array([[1, 2]]), k=1)
        Array([[0, 1, 0],
               [0, 0, 2],
               [0, 0, 0]], dtype=int32)
    """
    op = "diagflat"
    v = ravel(asarray_arg(op, v))
    k = _concrete_int(op, k, "k")
    return diag(v, k=k)


# --------------------------------------------------------------------------------------------
# Sorting: lexsort, partition, argpartition, sort_complex
# --------------------------------------------------------------------------------------------

def _lexsort_on_host(keys, axis=-1):
    """A list or tuple of host arrays of one shape (at least 1-D): the sort kernel's own
    steps (its NumPy keys of each operand, primary last, one np.lexsort along the last
    axis), whose sorted iota is the order itself, in the default int."""
    if (type(keys) is not list and type(keys) is not tuple) or not keys:
        return NotImplemented
    shape = getattr(host_value(keys[0]), "shape", ())
    axis = host_axis(axis, len(shape))
    if axis is None:
        return NotImplemented
    last = len(shape) - 1
    sort_keys = []
    for k in keys:
        v = host_value(k)
        if v is None or v.shape != shape:
            return NotImplemented
        sort_keys.extend(_sort_keys(v if axis == last else np.moveaxis(v, axis, -1)))
    order = np.lexsort(sort_keys, axis=-1).astype(dtypes.default_int)
    return Array(order if axis == last else np.moveaxis(order, -1, axis))


@host_shortcut(_lexsort_on_host)
def lexsort(keys: Sequence[ArrayLike] | ArrayLike, axis: int = -1) -> Array:
    """The indices that sort by several keys: the last key is the primary one (NumPy's
    order), earlier keys break ties; the sort is stable.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.lexsort([fnp.array([3, 1, 2]), fnp.array([0, 1, 0])])
        Array([2, 0, 1], dtype=int32)
    """
    from funcarray.primitives.shape import iota_p
    from funcarray.primitives.sort import sort_p
    op = "lexsort"
    keys = [asarray_arg(op, k) for k in (list(keys) if not hasattr(keys, "ndim")
                                         else [keys[i] for i in range(keys.shape[0])])]
    if not keys:
        raise op_type_error(op, "keys must hold at least one array")
    if len({tuple(k.shape) for k in keys}) > 1:
        raise op_value_error(op, f"all keys need the same shape, got "
                                 f"{[tuple(k.shape) for k in keys]}")
    shape = tuple(keys[0].shape)
    if not shape:
        return zeros((), dtype=dtypes.default_int)
    axis = _axis(op, axis, shape)
    iota = iota_p.bind(dtype=dtypes.default_int, shape=shape, dimension=axis)
    out = sort_p.bind(*keys[::-1], iota, dimension=axis, is_stable=True, num_keys=len(keys))
    return out[-1]


def _partition_setup(op, a, kth, axis):
    a = asarray_arg(op, a)
    if a.dtype.kind == "c":
        raise op_type_error(op, "complex arrays are not supported (as in jax.numpy); "
                                "partition the real and imaginary parts yourself")
    if a.ndim == 0:
        raise op_value_error(op, "a must have at least one dimension, got a 0-d array")
    axis = _axis(op, axis, a.shape)
    n = a.shape[axis]
    kth = _concrete_int(op, kth, "kth")
    if not -n <= kth < n:
        raise op_value_error(op, f"kth={kth} is out of bounds for axis {axis} of size {n}")
    return swapaxes(a, axis, -1), kth % n, axis


def _negated(a):
    """An order-reversing map of ``a`` (unsigned and bool values would wrap under ``-``)."""
    if a.dtype == dtypes.bool_:
        return logical_not(a)
    if a.dtype.kind == "u":
        return bitwise_not(a)
    return -a


def _partition_on_host_setup(a, kth, axis):
    """``_partition_setup`` for a host array of a NumPy bool/int/float dtype and Python-int
    ``kth`` and ``axis`` in range: (the operand with ``axis`` last, kth, axis), or None."""
    v = host_value(a)
    # (a weak operand: the general path, whose top_k outputs keep the weak type)
    if v is None or a._weak or v.ndim == 0 or v.dtype.kind not in "biuf" or type(kth) is not int:
        return None
    axis = host_axis(axis, v.ndim)
    if axis is None:
        return None
    n = v.shape[axis]
    if not -n <= kth < n:
        return None
    return _last(v, axis), kth % n, axis


def _last(v, axis):
    """swapaxes(v, axis, -1) (its own inverse)."""
    return v if axis == v.ndim - 1 else np.swapaxes(v, axis, -1)


def _negated_value(v):
    """``_negated`` with the kernels of logical_not, bitwise_not and negative."""
    if v.dtype == np.bool_:
        return np.logical_not(v)
    return np.invert(v) if v.dtype.kind == "u" else np.negative(v)


# Up to this many elements, whether a float array holds a zero or a NaN is read from its
# Python floats (~0.3 us) rather than found with ufuncs over total-order keys.
_FEW_ELEMENTS = 16


def _sorts_as_numbers(v) -> bool:
    """True where NumPy's ascending order of the values of ``v`` (bool, int or float) is
    top_k's total order with equal values being equal bits: always for bools and integers;
    for a float array of at most ``_FEW_ELEMENTS`` elements without zeros (NumPy ties -0.0
    with 0.0) and NaNs (NumPy puts every NaN last, whatever its sign and payload)."""
    if v.dtype.kind != "f":
        return True
    if v.size > _FEW_ELEMENTS:
        return False
    items = v.ravel().tolist()
    total = sum(items)  # (NaN where a NaN is, or inf meets -inf: then declined too)
    return total == total and 0.0 not in items


def _partition_on_host(a, kth, axis=-1):
    """For floats, unsigned integers and bools the negation is order-reversing in top_k's
    total order, so the general path's two top_k give the ``kth + 1`` smallest values
    ascending, then the others descending: one sort in that order (equal keys are equal
    bits). Signed integers (``-min`` wraps) take the general path's two top_k."""
    setup = _partition_on_host_setup(a, kth, axis)
    if setup is None:
        return NotImplemented
    arr, kth, axis = setup
    if arr.dtype.kind == "i":
        bottom = _negated_value(top_k_kernel(_negated_value(arr), kth + 1)[0])
        out = np.concatenate([bottom, top_k_kernel(arr, arr.shape[-1] - kth - 1)[0]], axis=-1)
    else:
        if _sorts_as_numbers(arr):
            ordered = arr.copy()  # (equal values are equal bits)
            ordered.sort(axis=-1)
        else:
            ordered = total_order_key(arr)  # a fresh array: sorted in place
            ordered.sort(axis=-1)
            ordered = flip_negative(ordered).view(arr.dtype)
        # (a fresh array: the others reversed in place; NumPy copies overlapping operands)
        ordered[..., kth + 1:] = ordered[..., :kth:-1]
        out = ordered
    return Array(_last(out, axis))


def _stable_total_order(arr):
    """The indices that sort ``arr`` (bool, unsigned or float) along its last axis in top_k's
    total order, equal keys in index order."""
    if arr.size <= _FEW_ELEMENTS and _sorts_as_numbers(arr):
        return arr.argsort(axis=-1, kind="stable")
    key, n = total_order_key(arr), arr.shape[-1]
    if key.dtype.itemsize <= 4:
        # Each key then its index, as one int64 (no overflow below 2**31 entries): all
        # distinct, so NumPy's faster unstable argsort gives the stable order.
        return np.argsort(key.astype(np.int64) * n + np.arange(n), axis=-1)
    return np.argsort(key, axis=-1, kind="stable")


def _argpartition_on_host(a, kth, axis=-1):
    """The indices of the ``kth + 1`` smallest (top_k of the negated values: ascending in
    the total order, ties in index order), then the others in index order (what the general
    path's top_k of a 0/1 proxy gives)."""
    setup = _partition_on_host_setup(a, kth, axis)
    if setup is None:
        return NotImplemented
    arr, kth, axis = setup
    if arr.dtype.kind == "i":
        bottom = top_k_kernel(_negated_value(arr), kth + 1)[1]
        rest = np.ones(arr.shape, np.bool_)
        np.put_along_axis(rest, bottom, False, axis=-1)
        others = np.argsort(~rest, axis=-1, kind="stable")[..., :arr.shape[-1] - kth - 1]
        out = np.concatenate([bottom, others.astype(np.int32)], axis=-1).astype(np.int32)
    else:
        out = _stable_total_order(arr)  # (a fresh array: the others sorted in place)
        out[..., kth + 1:].sort(axis=-1)
        out = out.astype(np.int32)
    return Array(_last(out, axis))


@host_shortcut(_partition_on_host)
def partition(a: ArrayLike, kth: int, axis: int = -1) -> Array:
    """``a`` reordered along ``axis`` so that entry ``kth`` holds the value it would have
    sorted, smaller ones before it (ascending) and the others after it (descending, as
    jax.numpy's ``top_k`` gives them). Differentiable in ``a``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.partition(fnp.array([5, 1, 4, 2, 3]), 2)
        Array([1, 2, 3, 5, 4], dtype=int32)
    """
    from funcarray.lax import top_k
    arr, kth, axis = _partition_setup("partition", a, kth, axis)
    bottom = _negated(top_k(_negated(arr), kth + 1)[0])
    top = top_k(arr, arr.shape[-1] - kth - 1)[0]
    return swapaxes(concatenate([bottom, top], axis=-1), -1, axis)


@host_shortcut(_argpartition_on_host)
def argpartition(a: ArrayLike, kth: int, axis: int = -1) -> Array:
    """The indices that ``partition`` would reorder ``a`` by (int32).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.argpartition(fnp.array([5, 1, 4, 2, 3]), 2)
        Array([1, 3, 4, 0, 2], dtype=int32)
    """
    from funcarray.lax import top_k
    arr, kth, axis = _partition_setup("argpartition", a, kth, axis)
    bottom = top_k(_negated(arr), kth + 1)[1]
    # The rest in index order: rank a proxy that is 0 at the bottom indices, 1 elsewhere
    # (top_k keeps ties in index order), which also copes with repeated values.
    hit = reduce_any(arange(arr.shape[-1], dtype=bottom.dtype) == bottom[..., None], axis=-2)
    proxy = where(hit, 0.0, 1.0).astype(dtypes.float32)
    top = top_k(proxy, arr.shape[-1] - kth - 1)[1]
    return swapaxes(concatenate([bottom, top], axis=-1), -1, axis)


def _complex_of(dtype) -> np.dtype:
    """The complex dtype a real ``dtype`` sorts into: complex128 for the 64-bit ones (int64
    and uint64 too, as jax.numpy's ``sort_complex``), else the default complex64."""
    wide = to_inexact_dtype(dtype) == dtypes.float64
    return dtypes.complex128 if wide else dtypes.default_complex


_SMALL_SORT = 64


def _sort_complex_on_host(a):
    """A real host array (NumPy dtype): the sort kernel's order is NumPy's (NaN last, -0.0
    equal to 0.0, stable), which NumPy's sort of the values gives (a stable one where
    equal values may differ in their bits); then the conversion kernel to complex."""
    v = host_value(a)
    if v is None or v.ndim == 0 or v.dtype.kind not in "biuf":
        return NotImplemented
    target = _complex_of(v.dtype)
    # An unstable sort gives the same bits unless equal values can differ in their bits:
    # the zeros (-0.0 == 0.0) and NaNs of floats (sorted last) need the stable order. A small
    # array takes it at once (as fast there; six times slower for 64x64 float32).
    stable_at_once = v.dtype.kind == "f" and v.size <= _SMALL_SORT
    ordered = np.sort(v, axis=-1, kind="stable" if stable_at_once else None)
    if v.dtype.kind == "f" and not stable_at_once and (
            not v.all() or np.isnan(ordered[..., -1:]).any()):
        ordered = np.sort(v, axis=-1, kind="stable")
    # (a real to complex conversion: the conversion kernel's own cast)
    return Array(ordered.astype(target))


@host_shortcut(_sort_complex_on_host)
def sort_complex(a: ArrayLike) -> Array:
    """``a`` sorted along its last axis (real part first, then imaginary), as a complex
    array.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.sort_complex(fnp.array([3, 1, 2]))
        Array([1.+0.j, 2.+0.j, 3.+0.j], dtype=complex64)
    """
    a = sort(asarray_arg("sort_complex", a), axis=-1)
    if a.dtype.kind == "c":
        return a
    return convert(a, _complex_of(a.dtype))


# --------------------------------------------------------------------------------------------
# packbits, unpackbits
# --------------------------------------------------------------------------------------------

def _check_bitorder(op, bitorder):
    if bitorder not in ("big", "little"):
        raise op_value_error(op, f"bitorder must be 'big' or 'little', got {bitorder!r}")


def _bits_operand_on_host(a, axis, bitorder):
    """The NumPy value of a host array and an axis NumPy's packbits/unpackbits take as the
    general path does (None, or a Python int naming an axis), else None."""
    if (type(a) is not Array and type(a) is not DeviceArray) or (
            bitorder != "big" and bitorder != "little"):
        return None
    value = a._value
    if axis is not None and (type(axis) is not int or not -value.ndim <= axis < value.ndim):
        return None
    return value


def _packbits_on_host(a, axis=None, bitorder="big"):
    value = _bits_operand_on_host(a, axis, bitorder)
    if value is None or value.dtype.kind not in "biu":
        return NotImplemented
    # NumPy packs the truth values, as the general path's ``a != 0`` (a bool array is its
    # own: comparing it with 0 would cost three times the packing).
    truth = value if value.dtype == np.bool_ else value != 0
    return Array(np.packbits(truth, axis=axis, bitorder=bitorder), False)


def _unpackbits_on_host(a, axis=None, count=None, bitorder="big"):
    value = _bits_operand_on_host(a, axis, bitorder)
    # (Empty arrays take the general path: NumPy's unpackbits pads them with unset memory.)
    if value is None or value.dtype != np.uint8 or not value.size or (count is not None and (
            type(count) is not int or count < 0)):
        return NotImplemented
    return Array(np.unpackbits(value, axis=axis, count=count, bitorder=bitorder), False)


@host_shortcut(_packbits_on_host)
def packbits(a: ArrayLike, axis: int | None = None, bitorder: str = "big") -> Array:
    """Pack the truth values of ``a`` into bytes (uint8) along ``axis`` (flattened when
    None), padding the last byte with zero bits.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.packbits(fnp.array([1, 0, 1, 1, 0, 0, 0, 0, 1]))
        Array([176, 128], dtype=uint8)
    """
    op = "packbits"
    a = asarray_arg(op, a)
    if a.dtype.kind not in "biu":
        raise op_type_error(op, f"a must be integer or boolean, got dtype {a.dtype}")
    _check_bitorder(op, bitorder)
    bits = (a != 0).astype(dtypes.uint8)
    if axis is None:
        bits, axis = ravel(bits), 0
    axis = _axis(op, axis, bits.shape)
    bits = swapaxes(bits, axis, -1)
    pad = -bits.shape[-1] % 8
    if pad:
        bits = _pad(bits, [(0, 0)] * (bits.ndim - 1) + [(0, pad)])
    bits = bits.reshape(tuple(bits.shape[:-1]) + (bits.shape[-1] // 8, 8))
    shifts = arange(8, dtype=dtypes.uint8)
    if bitorder == "big":
        shifts = shifts[::-1]
    packed = _sum(left_shift(bits, shifts), axis=-1, dtype=dtypes.uint8)
    return swapaxes(packed, axis, -1)


@host_shortcut(_unpackbits_on_host)
def unpackbits(a: ArrayLike, axis: int | None = None, count: int | None = None,
               bitorder: str = "big") -> Array:
    """Unpack the uint8 ``a`` into its bits (uint8 0/1) along ``axis`` (flattened when
    None); ``count`` keeps that many bits (or pads with zeros).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.unpackbits(fnp.array([176], dtype=fnp.uint8))
        Array([1, 0, 1, 1, 0, 0, 0, 0], dtype=uint8)
    """
    op = "unpackbits"
    a = asarray_arg(op, a)
    if a.dtype != dtypes.uint8:
        raise op_type_error(op, f"a must be uint8, got dtype {a.dtype}; convert it with "
                                f".astype(fnp.uint8)")
    _check_bitorder(op, bitorder)
    if axis is None:
        a, axis = ravel(a), 0
    axis = _axis(op, axis, a.shape)
    a = swapaxes(a, axis, -1)
    masks = left_shift(_ones((), dtype=dtypes.uint8), arange(8, dtype=dtypes.uint8))
    if bitorder == "big":
        masks = masks[::-1]
    bits = (bitwise_and(a[..., None], masks) > 0).astype(dtypes.uint8)
    bits = bits.reshape(tuple(bits.shape[:-2]) + (-1,))
    if count is not None:
        count = _concrete_int(op, count, "count")
        if count > bits.shape[-1]:
            bits = _pad(bits, [(0, 0)] * (bits.ndim - 1) + [(0, count - bits.shape[-1])])
        else:
            bits = bits[..., :count]
    return swapaxes(bits, axis, -1)


# --------------------------------------------------------------------------------------------
# vecmat, matvec
# --------------------------------------------------------------------------------------------

def _matvec_on_host(x1, x2, /):
    """One matrix and one vector (no loop dimensions): vectorize calls ``matmul`` once on the
    operands as they are, so this does too, without parsing the signature."""
    a, b = host_value(x1), host_value(x2)
    if a is None or b is None or a.ndim != 2 or b.ndim != 1 or a.shape[1] != b.shape[0]:
        return NotImplemented
    return matmul(x1, x2)


def _vecmat_on_host(x1, x2, /):
    """One vector and one matrix: ``matmul(conj(x1), x2)``, as vectorize calls it."""
    a, b = host_value(x1), host_value(x2)
    if a is None or b is None or a.ndim != 1 or b.ndim != 2 or a.shape[0] != b.shape[0]:
        return NotImplemented
    return matmul(conj(x1), x2)


@host_shortcut(_matvec_on_host)
def matvec(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """Matrix-vector products over the broadcast leading dimensions: ``x1[..., i, j] *
    x2[..., j]`` summed over ``j``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.matvec(fnp.array([[1, 2], [3, 4]]), fnp.array([1, 1]))
        Array([3, 7], dtype=int32)
    """
    x1, x2 = asarray_arg("matvec", x1), asarray_arg("matvec", x2)
    return vectorize(matmul, signature="(n,m),(m)->(n)")(x1, x2)


@host_shortcut(_vecmat_on_host)
def vecmat(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """Vector-matrix products over the broadcast leading dimensions, conjugating ``x1``:
    ``conj(x1[..., i]) * x2[..., i, j]`` summed over ``i``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.vecmat(fnp.array([1, 1]), fnp.array([[1, 2], [3, 4]]))
        Array([4, 6], dtype=int32)
    """
    x1, x2 = asarray_arg("vecmat", x1), asarray_arg("vecmat", x2)
    return vectorize(matmul, signature="(n),(n,m)->(m)")(conj(x1), x2)
