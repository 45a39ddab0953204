"""Vectorisation: the batching trace and batch-rule helpers.

A ``BatchTracer`` is a value with an extra batch axis at position ``bdim`` (``None`` when the
value is the same for every batch member). ``BatchTrace.process_primitive`` calls the
primitive's ``batch_rule(vals, dims, **params) -> (out, out_dim)`` one level down, so the
rule's operations (on whole batches) are seen by the enclosing trace. Values with no batch axis
short-circuit to the parent trace, and results whose ``out_dim`` is ``None`` are returned
unboxed.

There is no fallback that loops over the batch in Python: a primitive without a batch rule
raises an error naming it.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.transforms.vmap import vmap_flat
    >>> vals, dims = vmap_flat(lambda x: [fnp.sin(x) * 2], [fnp.zeros((3, 2))], [0], 3)
    >>> vals[0].shape, dims
    ((3, 2), [0])
"""

from __future__ import annotations

import contextlib
from contextvars import ContextVar

from funcarray.transforms import support
from funcarray.transforms.core import (
    CURRENT_TRACE,
    EVAL_TRACE,
    ShapedArray,
    Trace,
    Tracer,
    current_trace,
    set_current_trace,
)

__all__ = [
    "not_mapped", "BatchTrace", "BatchTracer", "NamedBatchTrace", "vmap_flat",
    "move_batch_axes", "vectorized_batch_rule", "move_to_front", "bdim_at_front",
    "axis_env", "bound_axes", "named_axis_size", "rule_axis_name", "rule_spmd_axis_name",
]

not_mapped = None  # the batch dimension of a value that is not batched


class BatchTracer(Tracer):
    __slots__ = ("val", "bdim", "_aval")

    def __init__(self, trace: BatchTrace, val, bdim: int):
        self._trace = trace
        self.val = val
        self.bdim = bdim
        self._aval = None

    @property
    def aval(self) -> ShapedArray:
        # Made once, on first use: a batched op reads its operands' shape, dtype and weak
        # type several times (promotion, checks, the rule), each through ``aval``.
        aval = self._aval
        if aval is None:
            inner = self.val.aval
            shape = inner.shape[:self.bdim] + inner.shape[self.bdim + 1:]
            aval = self._aval = ShapedArray.trusted(shape, inner.dtype, inner.weak_type)
        return aval

    # (read straight from the cached aval: one property call each, not two)
    @property
    def shape(self):
        return (self._aval or self.aval).shape

    @property
    def dtype(self):
        return (self._aval or self.aval).dtype

    @property
    def weak_type(self):
        return (self._aval or self.aval).weak_type

    def __repr__(self):  # JAX's form: the value's type and its batched array's
        return f"VmapTracer(aval={self.aval}, batched={self.val.aval})"


class BatchTrace(Trace):
    """Interprets primitives on batched values by calling their batch rules."""

    __slots__ = ("axis_size", "spmd_axis_name")

    def __init__(self, parent, axis_size: int, spmd_axis_name=None):
        super().__init__(parent)
        self.axis_size = axis_size
        # vmap(spmd_axis_name=): the mesh axes the batch axis is split over, for the rules of
        # shard_map and sharding constraints (read through rule_spmd_axis_name)
        self.spmd_axis_name = spmd_axis_name

    def _split(self, x):
        if type(x) is BatchTracer and x._trace is self:
            return x.val, x.bdim
        return x, not_mapped

    def process_primitive(self, prim, args, params):
        # (inlined _split and the trace switch: this runs for every op of a vmapped function,
        # eagerly too)
        vals, dims = [], []
        mapped = False
        for a in args:
            if type(a) is BatchTracer and a._trace is self:
                vals.append(a.val)
                dims.append(a.bdim)
                mapped = True
            else:
                vals.append(a)
                dims.append(not_mapped)
        token = CURRENT_TRACE.set(self.parent)
        try:
            if not mapped:
                return prim.bind(*vals, **params)
            if self.spmd_axis_name is None:
                out, out_dim = prim.batch_rule(vals, dims, **params)
            else:
                out, out_dim = _spmd_rule(self, prim, vals, dims, params)
        finally:
            CURRENT_TRACE.reset(token)
        if prim.multiple_results:
            return [self._wrap(o, d) for o, d in zip(out, out_dim)]
        return self._wrap(out, out_dim)

    def _wrap(self, val, bdim):
        return val if bdim is not_mapped else BatchTracer(self, val, bdim)


# --------------------------------------------------------------------------------------------
# Named axes (vmap's axis_name): collectives such as lax.psum reduce over a named batch axis
# --------------------------------------------------------------------------------------------

# The named axes of the enclosing vmaps, innermost last: ((name, size), ...). Collectives read
# it when they are bound (an unbound name is an error; all_gather needs the size), and jit
# keys its cache on it (a staged body holding collectives depends on it).
_AXIS_ENV: ContextVar[tuple] = ContextVar("funcarray_axis_env", default=())
# The named axis whose batch rule is running (NamedBatchTrace sets it): a higher-order
# primitive's rule vectorises its body with vmap_flat, which must batch that body over the
# same named axis, or the collectives inside it would not find their axis.
_RULE_AXIS: ContextVar = ContextVar("funcarray_rule_axis", default=None)
# The spmd_axis_name of the vmap whose batch rule is running (None: none given).
_RULE_SPMD: ContextVar = ContextVar("funcarray_rule_spmd_axis", default=None)


def _spmd_rule(trace, prim, vals, dims, params):
    token = _RULE_SPMD.set(trace.spmd_axis_name)
    try:
        return prim.batch_rule(vals, dims, **params)
    finally:
        _RULE_SPMD.reset(token)


def rule_spmd_axis_name():
    """The mesh axes (a tuple) that the batch axis of the running batch rule is split over
    (``vmap(spmd_axis_name=)``), or None."""
    return _RULE_SPMD.get()


def axis_env() -> tuple:
    """The enclosing vmaps' named axes, ``((name, size), ...)``, innermost last."""
    return _AXIS_ENV.get()


@contextlib.contextmanager
def bound_axes(axes):
    """Bind the named axes ``((name, size), ...)`` for the code inside, as enclosing
    ``vmap(axis_name=)`` s would: collectives over them can be staged (``make_jaxpr``'s
    ``axis_env``)."""
    token = _AXIS_ENV.set((*_AXIS_ENV.get(), *axes))
    try:
        yield
    finally:
        _AXIS_ENV.reset(token)


def named_axis_size(name, what: str) -> int:
    """The size of the enclosing vmap axis called ``name``; NameError (naming ``what``, the
    collective) when no enclosing vmap has that ``axis_name``."""
    for bound, size in reversed(_AXIS_ENV.get()):
        if bound == name:
            return size
    bound_names = [n for n, _ in _AXIS_ENV.get()]
    raise NameError(
        f"unbound axis name: {name!r}. {what} reduces over the axis of an enclosing "
        f"vmap(..., axis_name={name!r}); "
        + (f"the enclosing vmaps name {bound_names}" if bound_names
           else "no enclosing vmap names an axis (collectives run only inside vmap)"))


def rule_axis_name():
    """The axis name of the batch rule running now (None outside a named vmap's rules)."""
    trace = _RULE_AXIS.get()
    return None if trace is None else trace.axis_name


class NamedBatchTrace(BatchTrace):
    """A BatchTrace whose axis has a name (``vmap(axis_name=)``). Collective primitives over
    that name (their ``named_axis_rule``) are resolved here; every other primitive is
    batched as usual, with the name visible to higher-order rules (``_RULE_AXIS``)."""

    __slots__ = ("axis_name",)

    def __init__(self, parent, axis_size: int, axis_name, spmd_axis_name=None):
        super().__init__(parent, axis_size, spmd_axis_name)
        self.axis_name = axis_name

    def process_primitive(self, prim, args, params):
        pairs = [self._split(a) for a in args]
        vals, dims = [v for v, _ in pairs], [d for _, d in pairs]
        named_rule = prim.named_axis_rule
        with set_current_trace(self.parent):
            if named_rule is not None and self.axis_name in params["axis_name"]:
                out, out_dim = named_rule(self, vals, dims, **params)
            elif all(d is not_mapped for d in dims) and not (
                    vals and _body_uses_axis(params, self.axis_name)):
                return prim.bind(*vals, **params)
            else:
                if all(d is not_mapped for d in dims):
                    # A body with a collective over this axis varies over the axis even
                    # when no operand does: batch it (its first operand broadcast).
                    vals[0] = support.ops.broadcast_batch(vals[0], self.axis_size, 0)
                    dims[0] = 0
                token = _RULE_AXIS.set(self)
                try:
                    if self.spmd_axis_name is None:
                        out, out_dim = prim.batch_rule(vals, dims, **params)
                    else:
                        out, out_dim = _spmd_rule(self, prim, vals, dims, params)
                finally:
                    _RULE_AXIS.reset(token)
        if prim.multiple_results:
            return [self._wrap(o, d) for o, d in zip(out, out_dim)]
        return self._wrap(out, out_dim)


def _body_uses_axis(params, axis_name) -> bool:
    """Whether a higher-order primitive's bodies (the IRs among ``params``) hold a collective
    over ``axis_name``."""
    from funcarray.transforms.ir_transforms import axis_names_used

    return any(axis_name in axis_names_used(ir) for ir in _irs_in(params.values()))


def _irs_in(values):
    from funcarray.transforms.ir import IR, ClosedIR

    for value in values:
        if isinstance(value, IR):
            yield value
        elif isinstance(value, ClosedIR):
            yield value.ir
        elif isinstance(value, (tuple, list)):  # (a CallForm is an (ir, consts) tuple)
            yield from _irs_in(value)


def vmap_flat(fun, in_vals, in_dims, axis_size: int, axis_name=None, spmd_axis_name=None):
    """Map ``fun`` over axis ``in_dims[i]`` of each input (``None``: not mapped).

    Returns ``(out_vals, out_dims)``: each output with its batch axis wherever the rules left
    it (``None`` when the output does not depend on the batch). ``move_batch_axes`` puts the
    axes where the caller wants them. ``axis_name`` names the axis for collectives; called
    from a named axis's batch rule (a higher-order primitive vectorising its body), the body
    is batched over that same named axis. ``spmd_axis_name`` (a tuple of mesh axes) is
    vmap's: the batch axis is split over them where a rule lays values out on a mesh.
    """
    rule_trace = _RULE_AXIS.get()
    if axis_name is None and rule_trace is not None and rule_trace.axis_size == axis_size:
        axis_name = rule_trace.axis_name
    # (a rule's own rules see only their own vmap's spmd_axis_name)
    spmd_token = _RULE_SPMD.set(None) if _RULE_SPMD.get() is not None else None
    if axis_name is None:
        trace = BatchTrace(current_trace(), axis_size, spmd_axis_name)
        env_token = None
    else:
        trace = NamedBatchTrace(current_trace(), axis_size, axis_name, spmd_axis_name)
        env_token = _AXIS_ENV.set((*_AXIS_ENV.get(), (axis_name, axis_size)))
    rule_token = _RULE_AXIS.set(None) if rule_trace is not None else None
    tracers = [v if d is not_mapped else BatchTracer(trace, v, d)
               for v, d in zip(in_vals, in_dims)]
    try:
        with set_current_trace(trace):
            outs = fun(*tracers)
    finally:
        if spmd_token is not None:
            _RULE_SPMD.reset(spmd_token)
        if rule_token is not None:
            _RULE_AXIS.reset(rule_token)
        if env_token is not None:
            _AXIS_ENV.reset(env_token)
    pairs = [trace._split(out) for out in outs]
    return [v for v, _ in pairs], [d for _, d in pairs]


def move_batch_axes(vals, dims, want_dims, axis_size: int):
    """Move each value's batch axis ``dims[i]`` to ``want_dims[i]``; an unbatched value is
    broadcast along a new axis, and ``want_dims[i] = None`` requires an unbatched value."""
    results = []
    for i, (val, bdim, want) in enumerate(zip(vals, dims, want_dims)):
        if want is None:
            if bdim is not not_mapped:
                raise ValueError(
                    f"vmap: out_axes is None for output {i}, but that output depends on the "
                    f"mapped axis (its batch axis is {bdim}). Use an integer out_axes for it.")
            results.append(val)
        elif bdim is not_mapped:
            results.append(support.ops.broadcast_batch(val, axis_size, want))
        else:
            results.append(support.ops.moveaxis(val, bdim, want))
    return results

# --------------------------------------------------------------------------------------------
# Rule helpers
# --------------------------------------------------------------------------------------------

def move_to_front(val, bdim, axis_size: int):
    """``val`` with its batch axis first; an unbatched value is broadcast along a new axis."""
    if bdim is not_mapped:
        return support.ops.broadcast_batch(val, axis_size, 0)
    return val if bdim == 0 else support.ops.moveaxis(val, bdim, 0)


def bdim_at_front(vals, dims):
    """Move every batched operand's batch axis to the front and broadcast unbatched ones, so
    all operands have the same leading batch axis. Returns the new operands."""
    size = next(v.shape[d] for v, d in zip(vals, dims) if d is not not_mapped)
    return [move_to_front(v, d, size) for v, d in zip(vals, dims)]


def vectorized_batch_rule(prim, eager_kernel_broadcasts: bool = False):
    """The batch rule of an elementwise primitive: batch axes to the front, then apply.

    With ``eager_kernel_broadcasts`` (the primitive's eager kernels broadcast their operands
    as NumPy does), a rule that runs eagerly leaves the unbatched operands as they are: the
    kernel broadcasts them against the batch, with no broadcast copy made first (an eager
    ``vmap(lambda v: v * 2.0)`` binds one primitive, not two). Under any other trace the
    operands are broadcast: primitives are strict about shapes.
    """
    def rule(vals, dims, **params):
        first = not_mapped
        alike = True
        for d in dims:  # (a loop, not generators: every op of a vmapped function runs this)
            if first is not_mapped:
                first = d
            elif d != first:
                alike = False
        if alike and not_mapped not in dims:
            return prim.bind(*vals, **params), first
        if eager_kernel_broadcasts and CURRENT_TRACE.get() is EVAL_TRACE:
            return prim.bind(*[v if d is not_mapped or d == 0 else support.ops.moveaxis(v, d, 0)
                               for v, d in zip(vals, dims)], **params), 0
        return prim.bind(*bdim_at_front(vals, dims), **params), 0

    return rule
