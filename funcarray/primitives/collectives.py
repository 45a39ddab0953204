"""Collectives over a named vmap axis: ``psum``, ``pmax``, ``pmin``, ``all_gather``,
``ppermute``, ``axis_index``, ``psum_scatter`` and ``all_to_all`` (``funcarray.lax``'s public
wrappers are in ``lax/_collectives.py``).

Inside ``vmap(f, axis_name="i")`` each batch member runs ``f`` on its own slice, and a
collective combines the members: ``psum(x, "i")`` is, for every member, the sum of ``x`` over
all members. Each primitive takes ``axis_name``, a tuple of names (nested vmaps may be reduced
over together). Rules:

* ``named_axis_rule`` (called by ``transforms.vmap.NamedBatchTrace`` for the trace whose axis
  is named): the collective as an ordinary operation on the whole batch, e.g. psum is a sum
  over the batch axis, unbatched afterwards (every member has the same value); an operand
  that does not vary over the axis counts ``axis_size`` times. Names of outer vmaps are bound
  again one level down.
* ``batch_rule`` (a vmap of another or no name): the collective acts member-wise along that
  batch axis, so it is applied to the whole batched value.
* JVP: psum, all_gather and ppermute are linear; pmax/pmin take the tangent of the members
  holding the extremum (averaged over ties, like ``max``'s rule; JAX has no rule for these).
  Transposes (reverse mode): psum's is psum (every member's output depends on every input),
  ppermute's is the inverse permutation, all_gather's is a psum followed by the member's own
  slice, psum_scatter's is all_gather, all_to_all's is all_to_all with the split and concat
  axes swapped.
* Reaching the eager kernel or lowering means no enclosing vmap named the axis: a NameError.

Example:
    >>> import funcarray as fa
    >>> import funcarray.numpy as fnp
    >>> fa.vmap(lambda x: psum_p.bind(x, axis_name=("i",)), axis_name="i")(fnp.arange(3.0))
    Array([3., 3., 3.], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from funcarray.base.array import Array
from funcarray.primitives import bind_ops as ops
from funcarray.transforms.core import Primitive, ShapedArray
from funcarray.transforms.jvp import Zero, deflinear, tangent_aval

__all__ = ["psum_p", "pmax_p", "pmin_p", "all_gather_p", "ppermute_p", "axis_index_p",
           "psum_scatter_p", "all_to_all_p", "COLLECTIVES"]


def _times_axis_size(x, axis_size):
    """The sum over the members of a value every member holds."""
    return ops.mul(x, ops.full_like(x, axis_size))


def _unbound(name):
    def fail(*args, axis_name, **params):
        raise NameError(
            f"unbound axis name: {axis_name[0]!r}. lax.{name} reduces over the axis of an "
            f"enclosing vmap(..., axis_name={axis_name[0]!r}), and none is running")
    return fail


def _remaining(trace, axis_name) -> tuple:
    return tuple(n for n in axis_name if n != trace.axis_name)


def _same_aval(x, **_):
    return ShapedArray(x.shape, x.dtype, x.weak_type)


def _member_wise(prim):
    """The batch rule for a vmap axis the collective is not over: it applies to the whole
    batched value, batch axis in place."""
    def rule(vals, dims, **params):
        (x,), (d,) = vals, dims
        return prim.bind(x, **params), d
    return rule


def _define(name: str, reduce_batch, scale_unmapped):
    """psum/pmax/pmin: ``reduce_batch(x, axis)`` over the named axis; an unmapped operand
    becomes ``scale_unmapped(x, size)``."""
    prim = Primitive(name)
    prim.impl = _unbound(name)
    prim.abstract_eval = _same_aval
    prim.batch_rule = _member_wise(prim)

    def named_rule(trace, vals, dims, *, axis_name):
        (x,), (d,) = vals, dims
        out = scale_unmapped(x, trace.axis_size) if d is None else reduce_batch(x, d)
        rest = _remaining(trace, axis_name)
        return (prim.bind(out, axis_name=rest) if rest else out), None

    prim.named_axis_rule = named_rule
    prim.lower_rule = _unbound(name)
    return prim


psum_p = _define("psum", lambda x, d: ops.reduce_sum(x, (d,)), _times_axis_size)
pmax_p = _define("pmax", lambda x, d: ops.reduce_max(x, (d,)), lambda x, size: x)
pmin_p = _define("pmin", lambda x, d: ops.reduce_min(x, (d,)), lambda x, size: x)
deflinear(psum_p)


@psum_p.def_transpose
def _psum_transpose(ct, x, *, axis_name):
    # Every member's output is the sum of every member's input: each input's cotangent is
    # the sum of the output cotangents over the members.
    return [None if type(ct) is Zero else psum_p.bind(ct, axis_name=axis_name)]


def _extremum_jvp(prim):
    def jvp(primals, tangents, *, axis_name):
        (x,), (t,) = primals, tangents
        out = prim.bind(x, axis_name=axis_name)
        if type(t) is Zero:
            return out, t
        holds = ops.eq(x, out)  # the members holding the extremum share its tangent
        count = psum_p.bind(ops.convert(holds, t.dtype), axis_name=axis_name)
        share = psum_p.bind(ops.select(holds, t, ops.zeros_like(t)), axis_name=axis_name)
        return out, ops.div(share, count)
    return jvp


pmax_p.def_jvp(_extremum_jvp(pmax_p))
pmin_p.def_jvp(_extremum_jvp(pmin_p))


# --- all_gather ------------------------------------------------------------------------------

all_gather_p = Primitive("all_gather")
all_gather_p.impl = _unbound("all_gather")
all_gather_p.lower_rule = _unbound("all_gather")


def _gathered_shape(shape, axis, tiled, axis_size):
    if tiled:
        return shape[:axis] + (shape[axis] * axis_size,) + shape[axis + 1:]
    return shape[:axis] + (axis_size,) + shape[axis:]


@all_gather_p.def_abstract_eval
def _all_gather_abstract_eval(x, *, axis_name, axis, tiled, axis_size):
    return ShapedArray(_gathered_shape(x.shape, axis, tiled, axis_size), x.dtype, x.weak_type)


def _all_gather_named(trace, vals, dims, *, axis_name, axis, tiled, axis_size):
    (x,), (d,) = vals, dims
    if d is None:  # every member holds the same value: axis_size copies of it
        stacked = ops.broadcast_to(ops.expand_dims(x, axis), x.shape[:axis] + (axis_size,)
                                   + x.shape[axis:])
    else:
        stacked = ops.moveaxis(x, d, axis)
    if tiled:
        shape = stacked.shape
        stacked = ops.reshape(stacked, shape[:axis] + (shape[axis] * shape[axis + 1],)
                              + shape[axis + 2:])
    return stacked, None


all_gather_p.named_axis_rule = _all_gather_named
deflinear(all_gather_p)


@all_gather_p.def_batch
def _all_gather_batch(vals, dims, *, axis_name, axis, tiled, axis_size):
    (x,), (d,) = vals, dims
    x = ops.moveaxis(x, d, 0)
    return all_gather_p.bind(x, axis_name=axis_name, axis=axis + 1, tiled=tiled,
                             axis_size=axis_size), 0


@all_gather_p.def_transpose
def _all_gather_transpose(ct, x, *, axis_name, axis, tiled, axis_size):
    # Member i's value went to slot i of every member's output: its cotangent is the sum
    # over members of that slot.
    if type(ct) is Zero:
        return [None]
    total = psum_p.bind(ct, axis_name=axis_name)
    index = axis_index_p.bind(axis_name=axis_name)
    if tiled:
        size = total.shape[axis] // axis_size
        start = ops.mul(index, ops.full_like(index, size))
        return [ops.dynamic_slice_in_dim(total, start, size, axis)]
    return [ops.dynamic_index_in_dim(total, index, axis)]


# --- ppermute --------------------------------------------------------------------------------

ppermute_p = Primitive("ppermute")
ppermute_p.impl = _unbound("ppermute")
ppermute_p.lower_rule = _unbound("ppermute")
ppermute_p.abstract_eval = _same_aval
ppermute_p.batch_rule = _member_wise(ppermute_p)


def _sources(perm, axis_size):
    """Per member: the member it receives from, or -1 (it receives zeros)."""
    source = np.full(axis_size, -1, dtype=np.int32)
    for src, dst in perm:
        source[dst] = src
    return source


def _ppermute_named(trace, vals, dims, *, axis_name, perm):
    (x,), (d,) = vals, dims
    source = _sources(perm, trace.axis_size)
    receives = source >= 0
    if d is None:  # every member sends the same value: the receivers get it, others zeros
        shape = (trace.axis_size, *x.shape)
        mask = ops.broadcast_in_dim(Array(receives), shape, (0,))
        return ops.select(mask, ops.broadcast_to(x, shape), ops.full(shape, 0, x.dtype)), 0
    index = ops.broadcast_in_dim(Array(np.maximum(source, 0).astype(np.int32)), x.shape, (d,))
    moved = ops.take_along_axis(x, index, d)
    mask = ops.broadcast_in_dim(Array(receives), moved.shape, (d,))
    return ops.select(mask, moved, ops.zeros_like(moved)), d


ppermute_p.named_axis_rule = _ppermute_named
deflinear(ppermute_p)


@ppermute_p.def_transpose
def _ppermute_transpose(ct, x, *, axis_name, perm):
    if type(ct) is Zero:
        return [None]
    inverse = tuple((dst, src) for src, dst in perm)
    return [ppermute_p.bind(ct, axis_name=axis_name, perm=inverse)]


# --- axis_index ------------------------------------------------------------------------------

axis_index_p = Primitive("axis_index")
axis_index_p.impl = _unbound("axis_index")
axis_index_p.lower_rule = _unbound("axis_index")
axis_index_p.abstract_eval = lambda *, axis_name: ShapedArray((), np.dtype(np.int32))


def _axis_index_named(trace, vals, dims, *, axis_name):
    return ops.arange(trace.axis_size, np.int32), 0


axis_index_p.named_axis_rule = _axis_index_named


@axis_index_p.def_jvp
def _axis_index_jvp(primals, tangents, *, axis_name):
    out = axis_index_p.bind(axis_name=axis_name)
    return out, Zero(tangent_aval(out.aval))


# --- psum_scatter ----------------------------------------------------------------------------
# Member k gets chunk k (along scatter_dimension) of the sum over members: not tiled, the
# dimension has axis_size entries and is dropped; tiled, it is cut into axis_size equal chunks.

psum_scatter_p = Primitive("psum_scatter")
psum_scatter_p.impl = _unbound("psum_scatter")
psum_scatter_p.lower_rule = _unbound("psum_scatter")


def _scattered_shape(shape, dim, tiled, axis_size):
    if tiled:
        return shape[:dim] + (shape[dim] // axis_size,) + shape[dim + 1:]
    return shape[:dim] + shape[dim + 1:]


@psum_scatter_p.def_abstract_eval
def _psum_scatter_abstract_eval(x, *, axis_name, scatter_dimension, tiled, axis_size):
    return ShapedArray(_scattered_shape(x.shape, scatter_dimension, tiled, axis_size), x.dtype,
                       x.weak_type)


def _member_chunks(total, dim, tiled, axis_size):
    """``total`` (one value for every member) with the member axis of its chunks at ``dim``:
    the batched result in which member k holds chunk k."""
    if not tiled:
        return total
    shape = total.shape
    return ops.reshape(total, shape[:dim] + (axis_size, shape[dim] // axis_size) + shape[dim + 1:])


def _psum_scatter_named(trace, vals, dims, *, axis_name, scatter_dimension, tiled, axis_size):
    (x,), (d,) = vals, dims
    total = _times_axis_size(x, axis_size) if d is None else ops.reduce_sum(x, (d,))
    return _member_chunks(total, scatter_dimension, tiled, axis_size), scatter_dimension


psum_scatter_p.named_axis_rule = _psum_scatter_named
deflinear(psum_scatter_p)


@psum_scatter_p.def_batch
def _psum_scatter_batch(vals, dims, *, scatter_dimension, **params):
    (x,), (d,) = vals, dims
    x = ops.moveaxis(x, d, 0)
    return psum_scatter_p.bind(x, scatter_dimension=scatter_dimension + 1, **params), 0


@psum_scatter_p.def_transpose
def _psum_scatter_transpose(ct, x, *, axis_name, scatter_dimension, tiled, axis_size):
    # Every member's input reaches member k's chunk k: its cotangent is the chunks' cotangents
    # laid side by side, which is all_gather.
    if type(ct) is Zero:
        return [None]
    return [all_gather_p.bind(ct, axis_name=axis_name, axis=scatter_dimension, tiled=tiled,
                              axis_size=axis_size)]


# --- all_to_all ------------------------------------------------------------------------------
# Member i's output holds, for each member j, member j's chunk i of split_axis, placed at
# position j of concat_axis: not tiled, split_axis (of size axis_size) is dropped and a new
# axis of axis_size is inserted at concat_axis; tiled, split_axis is cut into axis_size chunks
# and the received chunks are concatenated along concat_axis.

all_to_all_p = Primitive("all_to_all")
all_to_all_p.impl = _unbound("all_to_all")
all_to_all_p.lower_rule = _unbound("all_to_all")


def _all_to_all_shape(shape, split_axis, concat_axis, tiled, axis_size):
    shape = list(shape)
    if tiled:
        shape[split_axis] //= axis_size
        shape[concat_axis] *= axis_size
        return tuple(shape)
    del shape[split_axis]
    shape.insert(concat_axis, axis_size)
    return tuple(shape)


@all_to_all_p.def_abstract_eval
def _all_to_all_abstract_eval(x, *, axis_name, split_axis, concat_axis, tiled, axis_size):
    shape = _all_to_all_shape(x.shape, split_axis, concat_axis, tiled, axis_size)
    return ShapedArray(shape, x.dtype, x.weak_type)


def _all_to_all_named(trace, vals, dims, *, axis_name, split_axis, concat_axis, tiled,
                      axis_size):
    (x,), (d,) = vals, dims
    if d is None:  # every member sends the same value
        x = ops.broadcast_to(x, (axis_size, *x.shape))
    else:
        x = ops.moveaxis(x, d, 0)  # x[j]: member j's value
    if tiled:  # split_axis -> (receiver, chunk)
        where = split_axis + 1
        x = ops.reshape(x, x.shape[:where] + (axis_size, x.shape[where] // axis_size)
                        + x.shape[where + 1:])
    # out[i, j, ...] = x[j, ..., i at split_axis, ...]: the receivers become the batch axis
    out = ops.moveaxis(x, split_axis + 1, 0)
    # then the senders go to concat_axis (merged with it when tiled, senders major)
    out = ops.moveaxis(out, 1, concat_axis + 1)
    if tiled:
        where = concat_axis + 1
        out = ops.reshape(out, out.shape[:where] + (out.shape[where] * out.shape[where + 1],)
                          + out.shape[where + 2:])
    return out, 0


all_to_all_p.named_axis_rule = _all_to_all_named
deflinear(all_to_all_p)


@all_to_all_p.def_batch
def _all_to_all_batch(vals, dims, *, split_axis, concat_axis, **params):
    (x,), (d,) = vals, dims
    x = ops.moveaxis(x, d, 0)
    return all_to_all_p.bind(x, split_axis=split_axis + 1, concat_axis=concat_axis + 1,
                             **params), 0


@all_to_all_p.def_transpose
def _all_to_all_transpose(ct, x, *, split_axis, concat_axis, **params):
    # The exchange read backwards: what went from split_axis to concat_axis comes back.
    if type(ct) is Zero:
        return [None]
    return [all_to_all_p.bind(ct, split_axis=concat_axis, concat_axis=split_axis, **params)]


COLLECTIVES = (psum_p, pmax_p, pmin_p, all_gather_p, ppermute_p, axis_index_p, psum_scatter_p,
               all_to_all_p)
