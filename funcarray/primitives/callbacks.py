"""Calls from a computation back into Python: ``debug_callback`` (``funcarray.debug.print``
and ``debug.callback``: a side effect, no outputs) and ``pure_callback`` (a function of its
operands computed by Python, e.g. NumPy or SciPy code inside ``jit``). The public wrappers
are ``funcarray/api/debugging.py`` and ``funcarray/api/callbacks.py``.

Both carry ``callback``, a ``HostCallback``: the function XLA calls with NumPy arrays, which
checks what it returns against the declared result types before handing it to jaxlib (a
wrong dtype would be read as zeros, a wrong count crashes). Rules, JAX's semantics:

* eager: the callback is called right away;
* lowering: a ``stablehlo.custom_call`` to ``runtime.host_callback_target(platform)`` whose
  ``backend_config`` indexes the module's host callbacks (``LoweringContext.add_host_callback``);
  debug callbacks are side-effecting, so neither funcarray's DCE nor XLA removes them;
* differentiation: a debug callback sees primal values only (under ``grad`` it runs in the
  forward pass); a pure callback has no derivative (an error pointing at ``custom_jvp``);
* vmap: a debug callback runs once per batch member, in order; a pure callback follows its
  ``vmap_method`` (``sequential``: once per member; ``expand_dims``: once, with unbatched
  operands given a leading axis of size 1; ``broadcast_all``: once, every operand batched).

Example:
    >>> import numpy as np
    >>> import funcarray.numpy as fnp
    >>> show = HostCallback(lambda x: print("got", x), (), "show")
    >>> debug_callback_p.bind(fnp.arange(3.0), callback=show)
    got [0. 1. 2.]
    []
"""

from __future__ import annotations

import numpy as np

from funcarray.base.array import Array
from funcarray.lowering import runtime
from funcarray.lowering.stablehlo import LoweringError, tensor_type
from funcarray.primitives import bind_ops as ops
from funcarray.primitives import loops
from funcarray.transforms.core import Primitive, ShapedArray
from funcarray.transforms.vmap import move_to_front

__all__ = ["HostCallback", "debug_callback_p", "pure_callback_p", "io_callback_p",
           "VMAP_METHODS", "lower_host_callback"]

VMAP_METHODS = ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all")


class HostCallback:
    """``fn`` as XLA calls it: NumPy arrays in, a tuple of NumPy arrays out, checked against
    ``result_avals`` (for a debug callback, ``()``: ``fn``'s return value is ignored).
    Hashed by identity (it is a primitive parameter)."""

    __slots__ = ("fn", "result_avals", "name")

    def __init__(self, fn, result_avals: tuple, name: str):
        self.fn = fn
        self.result_avals = tuple(result_avals)
        self.name = name

    def __repr__(self):
        return self.name

    def __call__(self, *arrays) -> tuple:
        """What compiled code calls: ``run``, its exception kept for the execution that
        fails with it (XLA passes on only a message, which names the kept exception; see
        ``runtime.record_callback_error``)."""
        try:
            return self.run(*arrays)
        except Exception as exc:
            raise runtime.record_callback_error(exc) from None

    def run(self, *arrays) -> tuple:
        """``fn`` on NumPy arrays, its results checked (eager kernels call this directly)."""
        out = self.fn(*arrays)
        if not self.result_avals:
            return ()
        results = tuple(out) if isinstance(out, (tuple, list)) else (out,)
        if len(results) != len(self.result_avals):
            raise TypeError(f"{self.name}: the callback returned {len(results)} arrays, "
                            f"result_shape_dtypes declares {len(self.result_avals)}")
        checked = []
        for k, (value, aval) in enumerate(zip(results, self.result_avals)):
            value = np.asarray(value)
            if value.shape != aval.shape or value.dtype != aval.dtype:
                raise TypeError(
                    f"{self.name}: result {k} of the callback has shape {value.shape} and "
                    f"dtype {value.dtype}, but result_shape_dtypes declares {aval.shape} and "
                    f"{aval.dtype}; return exactly the declared types (cast with .astype)")
            # (C order, without np.ascontiguousarray, which turns a 0-d array into 1-d)
            checked.append(value if value.flags.c_contiguous else value.copy(order="C"))
        return tuple(checked)


def _host_values(args):
    return [np.asarray(x._value) for x in args]


def lower_host_callback(ctx, *operands, callback, side_effect: bool):
    """The custom call that runs ``callback`` (a ``HostCallback``) on the host from compiled
    code: jaxlib's Python-callback target, the callback's index in the module's list."""
    target = runtime.host_callback_target(ctx.platform)
    if target is None:
        raise LoweringError(
            f"{callback.name} calls back into Python, which funcarray supports on CPU and GPU "
            f"only; this module is lowered for platform {ctx.platform!r}")
    index = ctx.add_host_callback(callback)
    # Row-major layouts pinned, as JAX does: otherwise XLA may hand the callback a
    # column-major buffer (when a LAPACK custom call consumes the result it asks for that
    # layout) and read the C-order values the callback writes transposed.
    in_layouts = [runtime.native_layout(ctx.type_of(x).ndim, False) for x in operands]
    out_layouts = [runtime.native_layout(a.ndim, False) for a in ctx.avals_out]
    attributes = {"call_target_name": '"' + target + '"', "api_version": "4 : i32",
                  "backend_config": f"{{index = {index} : ui64}}",
                  "operand_layouts": f"[{', '.join(in_layouts)}]",
                  "result_layouts": f"[{', '.join(out_layouts)}]"}
    if side_effect:
        attributes["has_side_effect"] = "true"
    return ctx.op("stablehlo.custom_call", *operands, results=list(ctx.avals_out),
                  attributes=attributes)


def _lower_ordered_host_callback(ctx, *operands, callback):
    """``lower_host_callback`` for an effect that runs in program order: the custom call also
    takes and returns the entry function's effect token (``ctx.effect_token``), as JAX
    threads its ordered effects, so XLA cannot move it past the ordered effects before or
    after it. Inside a control-flow region (no token there) it is a side-effecting call."""
    token = ctx.effect_token() if runtime.host_callback_target(ctx.platform) else None
    if token is None:  # (in a region; or no target, which lower_host_callback reports)
        return lower_host_callback(ctx, *operands, callback=callback, side_effect=True)
    index = ctx.add_host_callback(_TokenPassing(callback))
    target = runtime.host_callback_target(ctx.platform)
    in_layouts = ["dense<> : tensor<0xindex>"] + [
        runtime.native_layout(ctx.type_of(x).ndim, False) for x in operands]
    out_layouts = ["dense<> : tensor<0xindex>"] + [
        runtime.native_layout(a.ndim, False) for a in ctx.avals_out]
    new_token = ctx.fresh(None)
    outs = [ctx.fresh(a) for a in ctx.avals_out]
    in_types = ", ".join(["!stablehlo.token", *(tensor_type(ctx.type_of(x)) for x in operands)])
    out_types = ", ".join(["!stablehlo.token", *(tensor_type(a) for a in ctx.avals_out)])
    ctx.emit(f'{", ".join([new_token, *outs])} = "stablehlo.custom_call"('
             f'{", ".join([token, *operands])}) {{api_version = 4 : i32, '
             f'backend_config = {{index = {index} : ui64}}, call_target_name = "{target}", '
             f'has_side_effect = true, operand_layouts = [{", ".join(in_layouts)}], '
             f'result_layouts = [{", ".join(out_layouts)}]}} : ({in_types}) -> ({out_types})')
    ctx.set_effect_token(new_token)
    return outs


class _TokenPassing:
    """A ``HostCallback`` as a custom call threading the effect token calls it: the token
    first in and out (jaxlib hands it over; it carries no data)."""

    __slots__ = ("callback",)

    def __init__(self, callback):
        self.callback = callback

    def __call__(self, token, *arrays):
        return (token, *self.callback(*arrays))

    def __eq__(self, other):  # (the executable cache keys on a module's callbacks)
        return type(other) is _TokenPassing and other.callback is self.callback

    def __hash__(self):
        return hash(self.callback)


# --- debug_callback --------------------------------------------------------------------------

debug_callback_p = Primitive("debug_callback", multiple_results=True)
debug_callback_p.has_side_effects = True
debug_callback_p.eager_on_host = True  # (see pure_callback_p)


# ``ordered`` is a parameter only when True (``debug.print(..., ordered=True)``), so the
# printed IR of the common call is unchanged.
@debug_callback_p.def_impl
def _debug_impl(*args, callback, ordered=False):
    callback.run(*_host_values(args))
    return []


debug_callback_p.abstract_eval = lambda *avals, callback, ordered=False: []


@debug_callback_p.def_lower
def _debug_lower(ctx, *xs, callback, ordered=False):
    if ordered:
        return _lower_ordered_host_callback(ctx, *xs, callback=callback)
    return lower_host_callback(ctx, *xs, callback=callback, side_effect=True)


@debug_callback_p.def_jvp
def _debug_jvp(primals, tangents, *, callback, **ordered):
    debug_callback_p.bind(*primals, callback=callback, **ordered)  # the values, not tangents
    return [], []


@debug_callback_p.def_batch
def _debug_batch(vals, dims, *, callback, **ordered):
    size = next(v.shape[d] for v, d in zip(vals, dims) if d is not None)
    fronts = [None if d is None else move_to_front(v, d, size) for v, d in zip(vals, dims)]
    for i in range(size):  # one call per member, in order (JAX's behaviour)
        debug_callback_p.bind(*(v if f is None else f[i] for v, f in zip(vals, fronts)),
                              callback=callback, **ordered)
    return [], []


# --- pure_callback ---------------------------------------------------------------------------

pure_callback_p = Primitive("pure_callback", multiple_results=True)
# Eagerly the callback runs right away on host values, with either eager backend (the XLA
# one would compile it, and on an accelerator its errors would surface only at a later read).
pure_callback_p.eager_on_host = True


@pure_callback_p.def_impl
def _pure_impl(*args, callback, vmap_method):
    return [Array(r) for r in callback.run(*_host_values(args))]


pure_callback_p.abstract_eval = lambda *avals, callback, vmap_method: list(callback.result_avals)
pure_callback_p.lower_rule = lambda ctx, *xs, callback, vmap_method: lower_host_callback(
    ctx, *xs, callback=callback, side_effect=False)


@pure_callback_p.def_jvp
def _pure_jvp(primals, tangents, *, callback, vmap_method):
    raise ValueError(f"{callback.name}: pure callbacks have no derivative (funcarray cannot see "
                     f"inside the Python function). Wrap the call in funcarray.custom_jvp or "
                     f"custom_vjp and give its derivative yourself.")


@pure_callback_p.def_batch
def _pure_batch(vals, dims, *, callback, vmap_method):
    size = next(v.shape[d] for v, d in zip(vals, dims) if d is not None)
    if vmap_method not in VMAP_METHODS:
        raise NotImplementedError(
            f"{callback.name}: vmap of a pure_callback needs vmap_method, one of "
            f"{', '.join(VMAP_METHODS)} (got {vmap_method!r}): 'sequential' calls it once per "
            f"batch member, 'expand_dims' once with a leading batch axis (size 1 for unbatched "
            f"operands), 'broadcast_all' once with every operand batched")
    fronts = [None if d is None else move_to_front(v, d, size) for v, d in zip(vals, dims)]
    if vmap_method.startswith("sequential"):
        members = [pure_callback_p.bind(*(v if f is None else f[i] for v, f in zip(vals, fronts)),
                                        callback=callback, vmap_method=vmap_method)
                   for i in range(size)]
        return [ops.stack(outs) for outs in zip(*members)], [0] * len(callback.result_avals)
    if vmap_method == "expand_dims":
        operands = [ops.expand_dims(v, 0) if f is None else f for v, f in zip(vals, fronts)]
    else:  # broadcast_all
        operands = [move_to_front(v, None, size) if f is None else f for v, f in zip(vals, fronts)]
    batched = HostCallback(callback.fn, tuple(
        ShapedArray((size, *a.shape), a.dtype) for a in callback.result_avals),
        callback.name)
    outs = pure_callback_p.bind(*operands, callback=batched, vmap_method=vmap_method)
    return outs, [0] * len(outs)


# --- io_callback -----------------------------------------------------------------------------

io_callback_p = Primitive("io_callback", multiple_results=True)
io_callback_p.has_side_effects = True  # (never removed, even when its results are unused)
io_callback_p.eager_on_host = True  # (see pure_callback_p)


@io_callback_p.def_impl
def _io_impl(*args, callback, ordered):
    return [Array(r) for r in callback.run(*_host_values(args))]


io_callback_p.abstract_eval = lambda *avals, callback, ordered: list(callback.result_avals)


@io_callback_p.def_lower
def _io_lower(ctx, *operands, callback, ordered):
    if ordered:
        return _lower_ordered_host_callback(ctx, *operands, callback=callback)
    return lower_host_callback(ctx, *operands, callback=callback, side_effect=True)


@io_callback_p.def_jvp
def _io_jvp(primals, tangents, *, callback, ordered):
    raise ValueError("IO callbacks do not support JVP.")  # (JAX's words)


@io_callback_p.def_batch
def _io_batch(vals, dims, *, callback, ordered):
    if ordered:
        raise ValueError("Cannot `vmap` ordered IO callback.")  # (JAX's words)
    size = next(v.shape[d] for v, d in zip(vals, dims) if d is not None)
    fronts = [None if d is None else move_to_front(v, d, size) for v, d in zip(vals, dims)]
    batched = [f for f in fronts if f is not None]

    def member(slices):  # one call per member, in order, in a loop (JAX's behaviour)
        it = iter(slices)
        return io_callback_p.bind(*(v if f is None else next(it) for v, f in zip(vals, fronts)),
                                  callback=callback, ordered=ordered)

    return loops.map(member, batched), [0] * len(callback.result_avals)
