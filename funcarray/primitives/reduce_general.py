"""Reductions with a user's computation: ``reduce`` and ``reduce_window`` (XLA's Reduce and
ReduceWindow with a general body), behind ``lax.reduce`` and ``lax.reduce_window`` when the
computation is not one of the monoids that ``primitives/reduce.py`` and
``primitives/windowed.py`` handle.

``reduce(*operands, *inits, body, dimensions)``
    Operands of one shape, one 0-d init per operand (its dtype); ``body`` is a ClosedIR of
    ``(*accumulators, *values) -> accumulators`` on 0-d values (concrete consts only: a
    computation that closes over traced values is refused by the wrapper, as in JAX).
    Returns one array per operand, ``dimensions`` removed.

``reduce_window(*operands, *inits, body, window_dimensions, window_strides, padding,
base_dilation, window_dilation)``
    Each window of the operands (dilated and padded with the inits, as XLA does) reduced with
    ``body``, starting from the inits.

Rules (both):

* eager: a pairwise tree over the reduced elements (neighbours combined, so the order is kept
  and any associative body gives the sequential result) with the body vectorised by
  ``vmap``, then combined once with the init, as XLA's sequential loop does. The windows
  of ``reduce_window`` are a strided NumPy view, reduced the same way over the window axis;
* JVP: the JVP of that same composition (as JAX's general reduce JVP; it is linear in the
  tangents, so reverse mode works too). Unlike JAX, a nonzero init tangent is allowed (the
  init enters the composition once), and ``reduce_window`` has reverse mode as well: its
  windows are gathered with static indices;
* batching: operands with unbatched inits get the batch axis as a kept (window) axis;
  batched inits run one reduction per member and stack them;
* lowering: ``stablehlo.reduce`` / ``stablehlo.reduce_window`` whose region is the body,
  inlined (``lowering/regions.py``).

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray import lax
    >>> lax.reduce(fnp.array([1.0, 2.0, 3.0]), 1.0, lambda a, b: a + b, (0,))  # 1 + 1 + 2 + 3
    Array(7., dtype=float32)
"""

from __future__ import annotations

import math

import numpy as np

from funcarray.base.array import Array
from funcarray.lowering import regions
from funcarray.lowering.stablehlo import lower_inline
from funcarray.primitives import bind_ops as ops
from funcarray.primitives.conversions import convert_element_type_p
from funcarray.primitives.windowed import _window_indices, _windows, window_output_shape
from funcarray.transforms.core import EVAL_TRACE, Primitive, ShapedArray, set_current_trace
from funcarray.transforms.ir import eval_ir
from funcarray.transforms.jvp import jvp_flat
from funcarray.transforms.vmap import move_to_front, not_mapped, vmap_flat

__all__ = ["reduce_p", "reduce_window_p", "tree_reduce", "WINDOW_PARAMS"]

WINDOW_PARAMS = ("window_dimensions", "window_strides", "padding", "base_dilation",
                 "window_dilation")

reduce_p = Primitive("reduce", multiple_results=True)
reduce_window_p = Primitive("reduce_window", multiple_results=True)


# --------------------------------------------------------------------------------------------
# The composition both primitives evaluate and differentiate
# --------------------------------------------------------------------------------------------

def _combine(body, lhs: list, rhs: list) -> list:
    """``body`` applied elementwise to arrays of one shape (vmapped over their entries)."""
    shape = tuple(lhs[0].shape)
    size = math.prod(shape)
    if size == 0:
        return [ops.full(shape, 0, aval.dtype) for aval in body.out_avals]
    flat = [ops.reshape(x, (size,)) for x in (*lhs, *rhs)]
    outs, dims = vmap_flat(lambda *xs: eval_ir(body.ir, body.consts, xs), flat,
                           (0,) * len(flat), size)
    outs = [o if d is not not_mapped else ops.broadcast_to(o, (size, *o.shape))
            for o, d in zip(outs, dims)]
    return [ops.reshape(o, shape) for o in outs]


def tree_reduce(body, xs: list, inits: list, dimensions, valid=None, *,
                windows: bool = False) -> list:
    """Reduce ``xs`` over ``dimensions`` with ``body``: neighbouring elements combined
    pairwise (log-depth, order kept), then ``body(init, result)`` once (JAX's semantics for
    an init that is not the identity: XLA starts its loop from the init).

    ``valid`` (a static NumPy bool array shaped like ``xs[0]``, or None) marks the elements
    that take part: XLA's windows skip their padding and dilation holes, so a pair with one
    invalid side is the other side, and an output with no valid element is the init.
    A reduction (not ``windows``) of one element per output returns it without the init,
    as XLA does (its simplifier turns such a reduce into a reshape).
    """
    if not windows and all(xs[0].shape[d] == 1 for d in dimensions):
        kept_shape = tuple(s for d, s in enumerate(xs[0].shape) if d not in dimensions)
        return [ops.reshape(x, kept_shape) for x in xs]
    ndim = xs[0].ndim
    reduced = sorted(dimensions)
    kept = [d for d in range(ndim) if d not in reduced]
    kept_shape = tuple(xs[0].shape[d] for d in kept)
    n = math.prod(xs[0].shape[d] for d in reduced)
    xs = [ops.reshape(ops.transpose(x, (*reduced, *kept)), (n, *kept_shape)) for x in xs]
    if valid is not None:
        valid = np.transpose(valid, (*reduced, *kept)).reshape(n, *kept_shape)
        if valid.all():
            valid = None
    while n > 1:
        half = n // 2
        lhs = [ops.slice_in_dim(x, 0, 2 * half, 2, 0) for x in xs]
        rhs = [ops.slice_in_dim(x, 1, 2 * half, 2, 0) for x in xs]
        pairs = _combine(body, lhs, rhs)
        if valid is not None:
            left, right = valid[0:2 * half:2], valid[1:2 * half:2]
            both, only_left = Array(left & right), Array(left & ~right)
            pairs = [ops.select(both, p, ops.select(only_left, a, b))
                     for p, a, b in zip(pairs, lhs, rhs)]
            merged = left | right
            if n % 2:
                merged = np.concatenate([merged, valid[n - 1:n]], 0)
            valid = merged
        if n % 2:
            pairs = [ops.concatenate([p, ops.slice_in_dim(x, n - 1, n, 1, 0)], 0)
                     for p, x in zip(pairs, xs)]
        xs, n = pairs, half + n % 2
    starts = [ops.broadcast_to(i, kept_shape) for i in inits]
    if n == 0:
        return starts
    outs = _combine(body, starts, [ops.squeeze(x, (0,)) for x in xs])
    if valid is not None:
        some = Array(valid[0])
        outs = [ops.select(some, o, s) for o, s in zip(outs, starts)]
    return outs


def _typed(outs, avals) -> list:
    """Outputs with the weak types the abstract evaluation gives."""
    return [o if o.weak_type == a.weak_type else convert_element_type_p.bind(
        o, new_dtype=a.dtype, weak_type=a.weak_type) for o, a in zip(outs, avals)]


def _split(args):
    n = len(args) // 2
    return list(args[:n]), list(args[n:])


def _check_types(what: str, operands, inits, body) -> None:
    if len(operands) != len(inits) or not operands:
        raise TypeError(f"{what}: needs one init value per operand and at least one operand, "
                        f"got {len(operands)} operands and {len(inits)} init values")
    shape = operands[0].shape
    for x, i in zip(operands, inits):
        if x.shape != shape:
            raise TypeError(f"{what}: operands must have one shape, got "
                            f"{', '.join(o.str_short() for o in operands)}")
        if i.shape != ():
            raise TypeError(f"{what}: init values must be scalars, got {i.str_short()}")
        if x.dtype != i.dtype:
            raise TypeError(f"{what}: operand dtypes must match their init values' dtypes, "
                            f"got {x.str_short()} and {i.str_short()}")
    want = [ShapedArray((), i.dtype) for i in inits]
    got = [ShapedArray(tuple(a.shape), a.dtype) for a in body.out_avals]
    ins = [ShapedArray(tuple(a.shape), a.dtype) for a in body.in_avals]
    if got != want or ins != want + want:
        raise TypeError(f"{what}: the computation must map two sets of scalars of the init "
                        f"types ({', '.join(a.str_short() for a in want)}) to one such set; "
                        f"it was staged for ({', '.join(a.str_short() for a in ins)}) and "
                        f"returns ({', '.join(a.str_short() for a in got)})")


def _per_member(prim, vals, dims, params):
    """Batching by a loop over the members (batched init values): one reduction each."""
    size = next(v.shape[d] for v, d in zip(vals, dims) if d is not not_mapped)
    results = []
    for k in range(size):
        member = [v if d is not_mapped else ops.index_in_dim(v, k, d)
                  for v, d in zip(vals, dims)]
        results.append(prim.bind(*member, **params))
    outs = [ops.stack([r[j] for r in results])
            for j in range(len(results[0]))]
    return outs, [0] * len(outs)


# --------------------------------------------------------------------------------------------
# reduce
# --------------------------------------------------------------------------------------------

@reduce_p.def_abstract_eval
def _reduce_abstract_eval(*avals, body, dimensions):
    operands, inits = _split(avals)
    _check_types("lax.reduce", operands, inits, body)
    ndim = len(operands[0].shape)
    if len(set(dimensions)) != len(dimensions) or any(not 0 <= d < ndim for d in dimensions):
        raise ValueError(f"lax.reduce: dimensions {dimensions} must be distinct axes of "
                         f"{operands[0].str_short()}")
    kept = tuple(s for d, s in enumerate(operands[0].shape) if d not in dimensions)
    return [ShapedArray(kept, i.dtype, x.weak_type and i.weak_type)
            for x, i in zip(operands, inits)]


@reduce_p.def_impl
def _reduce_impl(*args, body, dimensions):
    operands, inits = _split(args)
    avals = _reduce_abstract_eval(*(a.aval for a in args), body=body, dimensions=dimensions)
    with set_current_trace(EVAL_TRACE):
        return _typed(tree_reduce(body, operands, inits, dimensions), avals)


@reduce_p.def_jvp
def _reduce_jvp(primals, tangents, *, body, dimensions):
    avals = _reduce_abstract_eval(*(p.aval for p in primals), body=body, dimensions=dimensions)
    n = len(primals) // 2
    outs, touts = jvp_flat(lambda *a: tree_reduce(body, list(a[:n]), list(a[n:]), dimensions),
                           list(primals), list(tangents))
    return _typed(outs, avals), touts


@reduce_p.def_batch
def _reduce_batch(vals, dims, *, body, dimensions):
    operands, inits = _split(vals)
    odims, idims = _split(dims)
    if any(d is not not_mapped for d in idims):
        return _per_member(reduce_p, vals, dims, dict(body=body, dimensions=dimensions))
    size = next(v.shape[d] for v, d in zip(operands, odims) if d is not not_mapped)
    operands = [move_to_front(v, d, size) for v, d in zip(operands, odims)]
    return (reduce_p.bind(*operands, *inits, body=body,
                          dimensions=tuple(d + 1 for d in dimensions)), [0] * len(operands))


@reduce_p.def_lower
def _reduce_lower(ctx, *args, body, dimensions):
    operands, inits = _split(args)
    return regions.reduce(ctx, operands, inits, dimensions,
                          lambda rctx, lhs, rhs: lower_inline(rctx, body, *lhs, *rhs))


# --------------------------------------------------------------------------------------------
# reduce_window
# --------------------------------------------------------------------------------------------

def _window_params(params) -> dict:
    return {k: params[k] for k in WINDOW_PARAMS}


@reduce_window_p.def_abstract_eval
def _reduce_window_abstract_eval(*avals, body, **p):
    operands, inits = _split(avals)
    _check_types("lax.reduce_window", operands, inits, body)
    shape = window_output_shape(tuple(operands[0].shape), p)
    return [ShapedArray(shape, x.dtype, x.weak_type) for x in operands]


def _pad_config(p):
    return [(lo, hi, b - 1) for (lo, hi), b in zip(p["padding"], p["base_dilation"])]


def _taps_used(shape, p) -> np.ndarray:
    """(*output_shape, window_size) bools: which window taps are operand entries (XLA skips
    the padding and the dilation holes)."""
    if not shape:  # (a 0-d operand is its only window)
        return np.ones((1,), np.bool_)
    out_shape = window_output_shape(tuple(shape), p)
    taps = _windows(np.ones(shape, np.bool_), False, p)
    return np.ascontiguousarray(taps).reshape(*out_shape, -1)


def _window_composition(body, p, shape):
    """``f(*operands, *inits)``: gather every window (static indices into the padded,
    dilated operand) and tree-reduce each over its taps; differentiable in everything."""
    index = _window_indices(tuple(shape), tuple(sorted(p.items())))
    out_shape = window_output_shape(tuple(shape), p)

    def f(*args):
        operands, inits = _split(args)
        padded = [ops.pad(x, i, _pad_config(p)) for x, i in zip(operands, inits)]
        gathered = [ops.take(ops.reshape(x, (math.prod(x.shape),)), Array(index))
                    for x in padded]
        if 0 in out_shape:
            return [ops.full(out_shape, 0, x.dtype) for x in operands]
        if not out_shape:  # (XLA returns a 0-d operand as it is)
            return list(operands)
        return tree_reduce(body, gathered, inits, (len(out_shape),), _taps_used(shape, p),
                           windows=True)

    return f


@reduce_window_p.def_impl
def _reduce_window_impl(*args, body, **p):
    operands, inits = _split(args)
    avals = _reduce_window_abstract_eval(*(a.aval for a in args), body=body, **p)
    out_shape = avals[0].shape
    if 0 in out_shape:
        return [Array(np.zeros(out_shape, a.dtype), a.weak_type) for a in avals]
    if not out_shape:  # (XLA returns a 0-d operand as it is)
        return _typed(operands, avals)
    with set_current_trace(EVAL_TRACE):
        views = []
        for x, i in zip(operands, inits):
            v = np.asarray(x._value)
            window = _windows(v, np.asarray(i._value), p) if v.ndim else v.reshape(1)
            views.append(Array(np.ascontiguousarray(window).reshape(*out_shape, -1)))
        outs = tree_reduce(body, views, inits, (len(out_shape),),
                           _taps_used(operands[0].shape, p), windows=True)
        return _typed(outs, avals)


@reduce_window_p.def_jvp
def _reduce_window_jvp(primals, tangents, *, body, **p):
    avals = _reduce_window_abstract_eval(*(a.aval for a in primals), body=body, **p)
    f = _window_composition(body, p, primals[0].shape)
    outs, touts = jvp_flat(f, list(primals), list(tangents))
    return _typed(outs, avals), touts


@reduce_window_p.def_batch
def _reduce_window_batch(vals, dims, *, body, **p):
    operands, inits = _split(vals)
    odims, idims = _split(dims)
    if any(d is not not_mapped for d in idims):
        return _per_member(reduce_window_p, vals, dims, dict(body=body, **p))
    size = next(v.shape[d] for v, d in zip(operands, odims) if d is not not_mapped)
    operands = [move_to_front(v, d, size) for v, d in zip(operands, odims)]
    new = dict(window_dimensions=(1, *p["window_dimensions"]),
               window_strides=(1, *p["window_strides"]), padding=((0, 0), *p["padding"]),
               base_dilation=(1, *p["base_dilation"]),
               window_dilation=(1, *p["window_dilation"]))
    return reduce_window_p.bind(*operands, *inits, body=body, **new), [0] * len(operands)


@reduce_window_p.def_lower
def _reduce_window_lower(ctx, *args, body, **p):
    operands, inits = _split(args)
    return regions.reduce_window(
        ctx, operands, inits, lambda rctx, lhs, rhs: lower_inline(rctx, body, *lhs, *rhs),
        window_dimensions=p["window_dimensions"], window_strides=p["window_strides"],
        padding=p["padding"], base_dilations=p["base_dilation"],
        window_dilations=p["window_dilation"])

