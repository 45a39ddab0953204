"""Shape primitives: broadcasting, reshaping, transposing, slicing, padding, concatenating.

Contract (StableHLO semantics; the eager kernels reproduce it exactly). All parameters are
keyword-only tuples of Python ints, so they are hashable and print in IR. The result has the
operand's dtype; it is weak-typed when the operand is (for ``concatenate`` and ``pad``: when
every operand is), as in JAX.

* ``broadcast_in_dim(x, shape, broadcast_dimensions)``: operand dimension ``i`` maps to result
  dimension ``broadcast_dimensions[i]`` (unique, in range); each operand dimension is 1 or
  equals the result's.
* ``reshape(x, new_sizes)``: row-major reshape to a fully specified shape (no -1) with the
  same number of elements.
* ``iota(dtype, shape, dimension)``: 0, 1, 2, ... along ``dimension``, constant elsewhere.
* ``transpose(x, permutation)``: result dimension ``i`` is operand dimension
  ``permutation[i]``; ``permutation`` is a permutation of ``range(x.ndim)``.
* ``squeeze(x, dimensions)``: remove the listed dimensions (unique, in range, each of size 1).
  StableHLO has no squeeze op; it lowers to ``stablehlo.reshape``.
* ``rev(x, dimensions)``: reverse the order of elements along the listed (unique) dimensions.
* ``concatenate(*xs, dimension)``: one or more operands of one dtype and rank whose shapes
  agree except along ``dimension``; they are joined along it in order.
* ``pad(x, padding_value, padding_config)``: ``padding_config`` holds one ``(low, high,
  interior)`` triple per dimension. ``interior >= 0`` values of ``padding_value`` (a 0-d array
  of ``x``'s dtype) go between neighbouring elements, then ``low``/``high`` are added at the
  edges; a negative ``low``/``high`` removes that many elements from the edge instead. Each
  result dimension is ``low + high + d + max(d - 1, 0) * interior`` and must be >= 0.
* ``slice(x, start_indices, limit_indices, strides)``: elements ``start[i], start[i] +
  strides[i], ...`` below ``limit[i]`` of each dimension, with ``0 <= start <= limit <= d`` and
  ``strides`` all >= 1 (``None`` means all 1). Result dimension:
  ``ceil((limit - start) / stride)``.

Transformation rules (beside each primitive): every primitive but ``iota`` is linear in its
operands (``pad`` in ``x`` and ``padding_value`` jointly), so its jvp is the primitive applied
to the tangents (``deflinear``). Transposes: ``broadcast_in_dim`` sums the copies
(``reduce_sum``); ``reshape`` and ``squeeze`` reshape back; ``transpose`` applies the inverse
permutation; ``rev`` reverses again; ``concatenate`` slices out each operand's part; ``slice``
pads with zeros (interior padding for strides); ``pad`` cuts out the operand's elements (a pad
with the negated low/high, then a strided slice) and gives the padding value the sum of the
rest. Batch rules keep or move the batch axis and adjust the parameters; unbatched operands of
``concatenate`` and ``pad`` are broadcast, and a batched padding value is selected in after
padding with zeros. ``iota`` has no operands, so no transform ever calls a rule for it.

Lowering: each primitive is one StableHLO op of the same name and parameters (``rev`` is
``reverse``; ``squeeze`` is a ``reshape``; ``slice`` with ``strides=None`` has unit strides).

Example:
    >>> import funcarray.numpy as fnp
    >>> x = fnp.arange(6).reshape(2, 3)
    >>> transpose_p.bind(x, permutation=(1, 0)).shape
    (3, 2)
    >>> slice_p.bind(x, start_indices=(0, 1), limit_indices=(2, 3), strides=None)
    Array([[1, 2],
           [4, 5]], dtype=int32)
"""

from __future__ import annotations

import functools
import math

import numpy as np

from funcarray.base.array import Array
from funcarray.lowering.stablehlo import i64_array_attribute
from funcarray.primitives._define import memoized_abstract_eval, wrap_kernel
from funcarray.transforms.core import Primitive, ShapedArray
from funcarray.transforms.jvp import deflinear
from funcarray.transforms.transpose import is_undefined
from funcarray.transforms.vmap import bdim_at_front, move_to_front, not_mapped

__all__ = [
    "broadcast_in_dim_p", "reshape_p", "iota_p", "transpose_p", "squeeze_p", "rev_p",
    "concatenate_p", "pad_p", "slice_p",
]


def _shape_op(name: str, kernel) -> Primitive:
    """A primitive whose eager impl runs ``kernel`` and keeps the first operand's weak_type."""
    prim = Primitive(name)
    prim.kernel = kernel  # the raw NumPy kernel, for tests and for other kernels to reuse
    prim.impl = wrap_kernel(kernel, keep_weak=True)
    return prim


def _error(name: str, message: str) -> TypeError:
    """The TypeError every shape rule raises: it names the primitive first."""
    return TypeError(f"{name}: {message}")


def _check_int_tuple(name: str, what: str, value, length: int | None = None):
    if not isinstance(value, tuple) or not all(isinstance(v, (int, np.integer)) for v in value):
        raise _error(name, f"{what} must be a tuple of ints, got {value!r}")
    if length is not None and len(value) != length:
        raise _error(name, f"{what}={value} needs {length} entries, one per operand dimension")


def _check_dimensions(name: str, x: ShapedArray, dimensions) -> None:
    """``dimensions`` is a tuple of unique, in-range dimensions of ``x``."""
    _check_int_tuple(name, "dimensions", dimensions)
    if len(set(dimensions)) != len(dimensions) or not all(0 <= d < x.ndim for d in dimensions):
        raise _error(name, f"dimensions={dimensions} must be unique and in range for "
                           f"operand {x.str_short()} (0 to {x.ndim - 1})")


# --------------------------------------------------------------------------------------------
# broadcast_in_dim, reshape, iota
# --------------------------------------------------------------------------------------------

def _broadcast_in_dim_kernel(x, *, shape, broadcast_dimensions):
    x = np.asarray(x)
    try:
        order, expanded = _broadcast_plan(x.shape, shape, broadcast_dimensions)
    except TypeError:  # unhashable params (a list): the shape rule says what is wrong
        broadcast_in_dim_p.abstract_eval(ShapedArray(x.shape, x.dtype), shape=shape,
                                         broadcast_dimensions=broadcast_dimensions)
        raise
    if order is not None:
        x = x.transpose(order)
    if expanded is not None:
        x = x.reshape(expanded)
    # Into a fresh array: materialised, not a stride-0 view, because later kernels (BLAS
    # matmul above all) are several times slower on broadcast views, so
    # `fnp.zeros((n, n)) @ x` would be a trap. (np.copyto: no Python-level wrapper, unlike
    # np.broadcast_to, which cost more than the copy for the small arrays of a grad.)
    out = np.empty(shape, x.dtype)
    np.copyto(out, x, casting="no")
    return out


@functools.lru_cache(maxsize=4096)
def _broadcast_plan(operand_shape: tuple, shape: tuple, broadcast_dimensions: tuple) -> tuple:
    """``(order, expanded)`` for the kernel, computed once per signature (a grad broadcasts
    the same few shapes every step): ``order`` transposes the operand's dims into the order
    of the result dims they map to (StableHLO allows any order; funcarray.numpy never makes
    such equations, transposes can), ``expanded`` reshapes it with size-1 dims in between so
    that NumPy's broadcasting puts each dim where it belongs (None: nothing to do)."""
    order = None
    if list(broadcast_dimensions) != sorted(broadcast_dimensions):
        order = tuple(sorted(range(len(operand_shape)), key=broadcast_dimensions.__getitem__))
        operand_shape = tuple(operand_shape[d] for d in order)
        broadcast_dimensions = tuple(broadcast_dimensions[d] for d in order)
    expanded = None
    if operand_shape and len(operand_shape) != len(shape):
        expanded = [1] * len(shape)
        for size, out_dim in zip(operand_shape, broadcast_dimensions):
            expanded[out_dim] = size
        expanded = tuple(expanded)
    return order, expanded


def _contiguous(view: np.ndarray) -> np.ndarray:
    # (np.ascontiguousarray would turn a 0-d array into a 1-d one.)
    return view if view.flags.c_contiguous else view.copy()


broadcast_in_dim_p = _shape_op("broadcast_in_dim", _broadcast_in_dim_kernel)


@broadcast_in_dim_p.def_lower
def _broadcast_in_dim_lower(ctx, x, *, shape, broadcast_dimensions):
    return ctx.op("stablehlo.broadcast_in_dim", x,
                  attributes={"broadcast_dimensions": i64_array_attribute(broadcast_dimensions)})


@broadcast_in_dim_p.def_abstract_eval
def _broadcast_in_dim_abstract_eval(x, *, shape, broadcast_dimensions):
    name = "broadcast_in_dim"
    _check_int_tuple(name, "shape", shape)
    _check_int_tuple(name, "broadcast_dimensions", broadcast_dimensions, x.ndim)
    if any(d < 0 for d in shape):
        raise _error(name, f"negative result dimension in shape={shape}")
    if len(set(broadcast_dimensions)) != x.ndim:
        raise _error(name, f"broadcast_dimensions={broadcast_dimensions} must be unique")
    for operand_dim, result_dim in enumerate(broadcast_dimensions):
        if not 0 <= result_dim < len(shape) or x.shape[operand_dim] not in (1, shape[result_dim]):
            raise _error(name, f"cannot broadcast {x.str_short()} to {tuple(shape)} with "
                               f"broadcast_dimensions={broadcast_dimensions}")
    return ShapedArray(shape, x.dtype, x.weak_type)


broadcast_in_dim_p.abstract_eval = memoized_abstract_eval(broadcast_in_dim_p.abstract_eval)
deflinear(broadcast_in_dim_p)


@broadcast_in_dim_p.def_transpose
def _broadcast_in_dim_transpose(ct, x, *, shape, broadcast_dimensions):
    from funcarray.primitives.reduce import reduce_sum_p  # reduce's rules may import shape
    operand_shape = x.aval.shape
    summed, kept_shape, permutation = _broadcast_transpose_plan(
        operand_shape, shape, broadcast_dimensions)
    if summed:
        ct = reduce_sum_p.bind(ct, axes=summed)
    if permutation is not None:
        ct = _reshape(ct, kept_shape)
        ct = transpose_p.bind(ct, permutation=permutation)
    return [_reshape(ct, operand_shape)]


@functools.lru_cache(maxsize=4096)
def _broadcast_transpose_plan(operand_shape: tuple, shape: tuple,
                              broadcast_dimensions: tuple) -> tuple:
    """``(summed, kept_shape, permutation)``: the transpose's steps, once per signature.

    Every copy made by the broadcast sends its cotangent back to the one element it copied:
    sum over the new dimensions and over the operand's stretched size-1 dimensions (a
    dimension of size 1 needs no sum: reshaping drops it). The operand's other dimensions are
    left in increasing result order; StableHLO allows broadcast_dimensions in any order, so
    ``permutation`` (None when the order is already right) puts them back in operand order.
    """
    stretched = {d for i, d in enumerate(broadcast_dimensions)
                 if operand_shape[i] == 1 and shape[d] != 1}
    summed = tuple(d for d in range(len(shape))
                   if shape[d] != 1 and (d not in broadcast_dimensions or d in stretched))
    kept = [d for d in broadcast_dimensions if d not in stretched]
    permutation = tuple(sorted(kept).index(d) for d in kept)
    if permutation == tuple(range(len(kept))):
        return summed, None, None
    return summed, tuple(shape[d] for d in sorted(kept)), permutation


@broadcast_in_dim_p.def_batch
def _broadcast_in_dim_batch(vals, dims, *, shape, broadcast_dimensions):
    # The batch axis becomes result axis 0; no data moves.
    (x,), (bdim,) = vals, dims
    others = iter(d + 1 for d in broadcast_dimensions)
    new_dims = tuple(0 if i == bdim else next(others) for i in range(x.ndim))
    return broadcast_in_dim_p.bind(x, shape=(x.shape[bdim], *shape),
                                   broadcast_dimensions=new_dims), 0


def _reshape_kernel(x, *, new_sizes):
    return np.reshape(x, new_sizes)


reshape_p = _shape_op("reshape", _reshape_kernel)
reshape_p.lower_rule = lambda ctx, x, *, new_sizes: ctx.op("stablehlo.reshape", x)


@reshape_p.def_abstract_eval
def _reshape_abstract_eval(x, *, new_sizes):
    _check_int_tuple("reshape", "new_sizes", new_sizes)
    if any(d < 0 for d in new_sizes) or math.prod(new_sizes) != x.size:
        raise _error("reshape", f"cannot reshape {x.str_short()} ({x.size} elements) to "
                                f"{tuple(new_sizes)}")
    return ShapedArray(new_sizes, x.dtype, x.weak_type)


# (memoized: keepdims reductions and broadcast transposes reshape under every grad, and the
# element-count check costs ~10 us)
reshape_p.abstract_eval = memoized_abstract_eval(reshape_p.abstract_eval)
deflinear(reshape_p)


@reshape_p.def_transpose
def _reshape_transpose(ct, x, *, new_sizes):
    return [_reshape(ct, x.aval.shape)]


@reshape_p.def_batch
def _reshape_batch(vals, dims, *, new_sizes):
    (x,), (bdim,) = vals, dims
    x = move_to_front(x, bdim, x.shape[bdim])
    return reshape_p.bind(x, new_sizes=(x.shape[0], *new_sizes)), 0


def _iota_kernel(*, dtype, shape, dimension):
    ramp = np.arange(shape[dimension], dtype=dtype)
    view = [1] * len(shape)
    view[dimension] = shape[dimension]
    return _contiguous(np.broadcast_to(ramp.reshape(view), shape))  # see broadcast_in_dim


iota_p = Primitive("iota")
iota_p.kernel = _iota_kernel
iota_p.impl = wrap_kernel(_iota_kernel)
iota_p.lower_rule = lambda ctx, *, dtype, shape, dimension: ctx.op(
    "stablehlo.iota", attributes={"iota_dimension": f"{int(dimension)} : i64"})


@iota_p.def_abstract_eval
def _iota_abstract_eval(*, dtype, shape, dimension):
    if not 0 <= dimension < len(shape):
        raise _error("iota", f"dimension {dimension} is out of range for shape {shape}")
    return ShapedArray(shape, dtype)

# iota has no operands: jvp and vmap never call a rule for it (its tangent is always zero and
# it is never batched), and it never appears in a linear program.


# --------------------------------------------------------------------------------------------
# transpose, squeeze, rev
# --------------------------------------------------------------------------------------------

def _transpose_kernel(x, *, permutation):
    return np.transpose(x, permutation)


transpose_p = _shape_op("transpose", _transpose_kernel)
transpose_p.lower_rule = lambda ctx, x, *, permutation: ctx.op(
    "stablehlo.transpose", x, attributes={"permutation": i64_array_attribute(permutation)})


@transpose_p.def_abstract_eval
def _transpose_abstract_eval(x, *, permutation):
    _check_int_tuple("transpose", "permutation", permutation)
    if sorted(permutation) != list(range(x.ndim)):
        raise _error("transpose", f"permutation={permutation} is not a permutation of the "
                                  f"{x.ndim} dimensions of operand {x.str_short()}")
    return ShapedArray(tuple(x.shape[d] for d in permutation), x.dtype, x.weak_type)


deflinear(transpose_p)


@transpose_p.def_transpose
def _transpose_transpose(ct, x, *, permutation):
    return [_transpose(ct, tuple(np.argsort(permutation).tolist()))]


@transpose_p.def_batch
def _transpose_batch(vals, dims, *, permutation):
    (x,), (bdim,) = vals, dims
    # The batch axis goes first; the others keep the permutation (renumbered around bdim).
    perm = (bdim, *(d + (d >= bdim) for d in permutation))
    return transpose_p.bind(x, permutation=perm), 0


def _squeeze_kernel(x, *, dimensions):
    return np.reshape(x, [d for i, d in enumerate(np.shape(x)) if i not in dimensions])


squeeze_p = _shape_op("squeeze", _squeeze_kernel)
squeeze_p.lower_rule = lambda ctx, x, *, dimensions: ctx.op("stablehlo.reshape", x)


@squeeze_p.def_abstract_eval
def _squeeze_abstract_eval(x, *, dimensions):
    _check_dimensions("squeeze", x, dimensions)
    if any(x.shape[d] != 1 for d in dimensions):
        raise _error("squeeze", f"dimensions={dimensions} of operand {x.str_short()} must "
                                f"all have size 1")
    shape = tuple(d for i, d in enumerate(x.shape) if i not in dimensions)
    return ShapedArray(shape, x.dtype, x.weak_type)


deflinear(squeeze_p)


@squeeze_p.def_transpose
def _squeeze_transpose(ct, x, *, dimensions):
    return [_reshape(ct, x.aval.shape)]


@squeeze_p.def_batch
def _squeeze_batch(vals, dims, *, dimensions):
    (x,), (bdim,) = vals, dims
    shifted = tuple(d + (d >= bdim) for d in dimensions)
    out_dim = bdim - sum(d < bdim for d in dimensions)
    return squeeze_p.bind(x, dimensions=shifted), out_dim


def _rev_kernel(x, *, dimensions):
    return np.flip(x, dimensions) if dimensions else x


rev_p = _shape_op("rev", _rev_kernel)
rev_p.lower_rule = lambda ctx, x, *, dimensions: ctx.op(
    "stablehlo.reverse", x, attributes={"dimensions": i64_array_attribute(dimensions)})


@rev_p.def_abstract_eval
def _rev_abstract_eval(x, *, dimensions):
    _check_dimensions("rev", x, dimensions)
    return x


deflinear(rev_p)


@rev_p.def_transpose
def _rev_transpose(ct, x, *, dimensions):
    return [rev_p.bind(ct, dimensions=dimensions)]


@rev_p.def_batch
def _rev_batch(vals, dims, *, dimensions):
    (x,), (bdim,) = vals, dims
    return rev_p.bind(x, dimensions=tuple(d + (d >= bdim) for d in dimensions)), bdim


# --------------------------------------------------------------------------------------------
# concatenate
# --------------------------------------------------------------------------------------------

def _concatenate_kernel(*xs, dimension):
    return np.concatenate(xs, axis=dimension)


concatenate_p = Primitive("concatenate")
concatenate_p.kernel = _concatenate_kernel
concatenate_p.lower_rule = lambda ctx, *xs, dimension: ctx.op(
    "stablehlo.concatenate", *xs, attributes={"dimension": f"{int(dimension)} : i64"})


@concatenate_p.def_impl
def _concatenate_impl(*xs, dimension):
    out = _concatenate_kernel(*(x._value for x in xs), dimension=dimension)
    return Array(out, all(x._weak for x in xs))


@concatenate_p.def_abstract_eval
def _concatenate_abstract_eval(*xs, dimension):
    if not xs:
        raise _error("concatenate", "needs at least one operand")
    shapes = ", ".join(x.str_short() for x in xs)
    first = xs[0]
    if not isinstance(dimension, (int, np.integer)) or not 0 <= dimension < first.ndim:
        raise _error("concatenate", f"dimension={dimension!r} is out of range for operands "
                                    f"{shapes}")
    for x in xs[1:]:
        if x.dtype != first.dtype:
            raise _error("concatenate", f"operands must share one dtype, got {shapes}")
        same_elsewhere = x.ndim == first.ndim and all(
            a == b for i, (a, b) in enumerate(zip(x.shape, first.shape)) if i != dimension)
        if not same_elsewhere:
            raise _error("concatenate", f"operand shapes must agree except along dimension "
                                        f"{dimension}, got {shapes}")
    shape = list(first.shape)
    shape[dimension] = sum(x.shape[dimension] for x in xs)
    return ShapedArray(shape, first.dtype, all(x.weak_type for x in xs))


deflinear(concatenate_p)


@concatenate_p.def_transpose
def _concatenate_transpose(ct, *xs, dimension):
    # Each linear operand gets back its own stretch of the cotangent.
    cts, start = [], 0
    for x in xs:
        size = x.aval.shape[dimension]
        cts.append(_slice_along(ct, dimension, start, start + size) if is_undefined(x) else None)
        start += size
    return cts


@concatenate_p.def_batch
def _concatenate_batch(vals, dims, *, dimension):
    return concatenate_p.bind(*bdim_at_front(vals, dims), dimension=dimension + 1), 0


# --------------------------------------------------------------------------------------------
# pad
# --------------------------------------------------------------------------------------------

def _padded_size(size: int, low: int, high: int, interior: int) -> int:
    return low + high + size + max(size - 1, 0) * interior


def _pad_kernel(x, padding_value, *, padding_config):
    x = np.asarray(x)
    # Pad with the non-negative parts of low/high first, then cut off the negative parts.
    grown = tuple(_padded_size(d, max(lo, 0), max(hi, 0), interior)
                  for d, (lo, hi, interior) in zip(x.shape, padding_config))
    out = np.full(grown, padding_value, dtype=x.dtype)
    inner = tuple(slice(max(lo, 0), max(lo, 0) + _padded_size(d, 0, 0, interior), interior + 1)
                  for d, (lo, _, interior) in zip(x.shape, padding_config))
    out[inner] = x
    crop = tuple(slice(max(-lo, 0), size - max(-hi, 0))
                 for size, (lo, hi, _) in zip(grown, padding_config))
    return out[crop]


pad_p = Primitive("pad")
pad_p.kernel = _pad_kernel


@pad_p.def_lower
def _pad_lower(ctx, x, padding_value, *, padding_config):
    # StableHLO's pad takes negative low/high (cropping) and interior padding as they are.
    low, high, interior = zip(*padding_config) if padding_config else ((), (), ())
    return ctx.op("stablehlo.pad", x, padding_value, attributes={
        "edge_padding_low": i64_array_attribute(low),
        "edge_padding_high": i64_array_attribute(high),
        "interior_padding": i64_array_attribute(interior)})



@pad_p.def_impl
def _pad_impl(x, padding_value, *, padding_config):
    out = _pad_kernel(x._value, padding_value._value, padding_config=padding_config)
    return Array(out, x._weak and padding_value._weak)


@pad_p.def_abstract_eval
def _pad_abstract_eval(x, padding_value, *, padding_config):
    where = f"operand {x.str_short()}, padding_value {padding_value.str_short()}"
    if padding_value.ndim != 0 or padding_value.dtype != x.dtype:
        raise _error("pad", f"padding_value must be a 0-d array of the operand's dtype; "
                            f"got {where}")
    triples_ok = isinstance(padding_config, tuple) and all(
        isinstance(t, tuple) and len(t) == 3 and all(isinstance(v, (int, np.integer)) for v in t)
        for t in padding_config)
    if not triples_ok or len(padding_config) != x.ndim:
        raise _error("pad", f"padding_config must be a tuple of {x.ndim} (low, high, "
                            f"interior) int triples for {where}; got {padding_config!r}")
    if any(interior < 0 for _, _, interior in padding_config):
        raise _error("pad", f"interior padding must be >= 0, got padding_config={padding_config}")
    shape = tuple(_padded_size(d, *triple) for d, triple in zip(x.shape, padding_config))
    if any(d < 0 for d in shape):
        raise _error("pad", f"padding_config={padding_config} gives the negative result "
                            f"shape {shape} for {where}")
    return ShapedArray(shape, x.dtype, x.weak_type and padding_value.weak_type)


# pad is linear in (x, padding_value) jointly: each output element is one of x's elements or
# the padding value.
deflinear(pad_p)


def _unpad(ct, padding_config):
    """The elements of ``ct`` that came from the operand: undo low/high (cut off what was added,
    put zeros back where a negative low/high cut elements off), then skip the interior."""
    if any(lo or hi for lo, hi, _ in padding_config):
        undo = tuple((-lo, -hi, 0) for lo, hi, _ in padding_config)
        ct = pad_p.bind(ct, _zero(ct.dtype), padding_config=undo)
    if any(interior for _, _, interior in padding_config):
        ct = slice_p.bind(ct, start_indices=(0,) * ct.ndim, limit_indices=ct.shape,
                          strides=tuple(interior + 1 for _, _, interior in padding_config))
    return ct


@pad_p.def_transpose
def _pad_transpose(ct, x, padding_value, *, padding_config):
    from funcarray.primitives.elementwise import sub_p  # elementwise may import shape
    from funcarray.primitives.reduce import reduce_sum_p
    ct_x = _unpad(ct, padding_config)
    ct_value = None
    if is_undefined(padding_value):
        # The padding value fills every position that holds no operand element.
        every_axis = tuple(range(ct.ndim))
        ct_value = sub_p.bind(reduce_sum_p.bind(ct, axes=every_axis),
                              reduce_sum_p.bind(ct_x, axes=every_axis))
    return [ct_x if is_undefined(x) else None, ct_value]


@pad_p.def_batch
def _pad_batch(vals, dims, *, padding_config):
    x, padding_value = vals
    x_dim, value_dim = dims
    config = ((0, 0, 0), *padding_config)
    size = x.shape[x_dim] if x_dim is not not_mapped else padding_value.shape[value_dim]
    if value_dim is not_mapped:
        return pad_p.bind(move_to_front(x, x_dim, size), padding_value,
                          padding_config=config), 0
    # A padding value per batch member: pad with zeros, then select each member's value at
    # the padded positions (a mask marks the operand's positions).
    from funcarray.primitives.select_n import select_n_p
    x = move_to_front(x, x_dim, size)
    padded = pad_p.bind(x, _zero(x.dtype, x.weak_type), padding_config=config)
    mask = pad_p.bind(Array(np.ones(x.shape[1:], np.bool_)), _zero(np.bool_),
                      padding_config=padding_config)
    mask = broadcast_in_dim_p.bind(mask, shape=padded.shape,
                                   broadcast_dimensions=tuple(range(1, padded.ndim)))
    values = broadcast_in_dim_p.bind(move_to_front(padding_value, value_dim, size),
                                     shape=padded.shape, broadcast_dimensions=(0,))
    return select_n_p.bind(mask, values, padded), 0


# --------------------------------------------------------------------------------------------
# slice
# --------------------------------------------------------------------------------------------

def _slice_kernel(x, *, start_indices, limit_indices, strides):
    strides = strides or (1,) * len(start_indices)
    return np.asarray(x)[tuple(slice(*bounds) for bounds in
                               zip(start_indices, limit_indices, strides))]


slice_p = _shape_op("slice", _slice_kernel)


@slice_p.def_lower
def _slice_lower(ctx, x, *, start_indices, limit_indices, strides):
    return ctx.op("stablehlo.slice", x, attributes={
        "start_indices": i64_array_attribute(start_indices),
        "limit_indices": i64_array_attribute(limit_indices),
        "strides": i64_array_attribute(strides or (1,) * len(start_indices))})



@slice_p.def_abstract_eval
def _slice_abstract_eval(x, *, start_indices, limit_indices, strides):
    _check_int_tuple("slice", "start_indices", start_indices, x.ndim)
    _check_int_tuple("slice", "limit_indices", limit_indices, x.ndim)
    if strides is not None:
        _check_int_tuple("slice", "strides", strides, x.ndim)
        if any(s < 1 for s in strides):
            raise _error("slice", f"strides={strides} must all be >= 1")
    bounds = zip(start_indices, limit_indices, x.shape)
    if not all(0 <= start <= limit <= size for start, limit, size in bounds):
        raise _error("slice", f"start_indices={start_indices} and limit_indices="
                              f"{limit_indices} must satisfy 0 <= start <= limit <= size for "
                              f"operand {x.str_short()}")
    strides = strides or (1,) * x.ndim
    shape = tuple(-(-(limit - start) // stride)
                  for start, limit, stride in zip(start_indices, limit_indices, strides))
    return ShapedArray(shape, x.dtype, x.weak_type)


deflinear(slice_p)


@slice_p.def_transpose
def _slice_transpose(ct, x, *, start_indices, limit_indices, strides):
    # Put the cotangent back where the elements came from: zeros before, between (strides)
    # and after them.
    strides = strides or (1,) * ct.ndim
    config = []
    for size, start, out, stride in zip(x.aval.shape, start_indices, ct.shape, strides):
        end = start + (out - 1) * stride + 1 if out else start  # one past the last element
        config.append((start, size - end, stride - 1))
    return [pad_p.bind(ct, _zero(ct.dtype), padding_config=tuple(config))]


@slice_p.def_batch
def _slice_batch(vals, dims, *, start_indices, limit_indices, strides):
    (x,), (bdim,) = vals, dims
    starts, limits = list(start_indices), list(limit_indices)
    starts.insert(bdim, 0)
    limits.insert(bdim, x.shape[bdim])
    if strides is not None:
        strides = (*strides[:bdim], 1, *strides[bdim:])
    return slice_p.bind(x, start_indices=tuple(starts), limit_indices=tuple(limits),
                        strides=strides), bdim


# --------------------------------------------------------------------------------------------
# Helpers of the rules: binds that skip no-ops
# --------------------------------------------------------------------------------------------

def _zero(dtype, weak: bool = False) -> Array:
    """A 0-d zero of ``dtype``: the padding value of the transposes and batch rules."""
    return Array(np.zeros((), dtype), weak)


def _reshape(x, shape: tuple):
    return x if tuple(x.shape) == tuple(shape) else reshape_p.bind(x, new_sizes=tuple(shape))


def _transpose(x, permutation: tuple):
    if permutation == tuple(range(x.ndim)):
        return x
    return transpose_p.bind(x, permutation=permutation)


def _slice_along(x, dimension: int, start: int, stop: int):
    """``x[..., start:stop, ...]`` along ``dimension``."""
    if start == 0 and stop == x.shape[dimension]:
        return x
    starts, limits = [0] * x.ndim, list(x.shape)
    starts[dimension], limits[dimension] = start, stop
    return slice_p.bind(x, start_indices=tuple(starts), limit_indices=tuple(limits),
                        strides=None)
