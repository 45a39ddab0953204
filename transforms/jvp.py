"""Forward-mode differentiation: the JVP trace, symbolic zeros, and rule helpers.

A ``JVPTracer`` carries a primal value and its tangent. ``JVPTrace.process_primitive`` splits
its operands into primals and tangents and calls the primitive's ``jvp_rule`` one level down
(under ``self.parent``), so the rule's own operations are seen by whatever trace encloses this
one: that is how ``jvp`` nests with itself and with every other transform.

Symbolic zeros: a tangent that is known to be zero is the object ``Zero(aval)``, never a
materialised array. ``JVPTrace`` skips the rule entirely when every tangent is zero, and the
helpers below (``defjvp``, ``deflinear``, ``defbilinear``) handle zeros, so most rules never
see one. A hand-written ``jvp_rule(primals, tangents, **params)`` receives ``Zero`` objects
and returns ``(primal_out, tangent_out)`` where ``tangent_out`` may be a ``Zero``.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.transforms.jvp import jvp_flat
    >>> primals, tangents = jvp_flat(lambda x: [fnp.sin(x)], [fnp.zeros(2)], [fnp.ones(2)])
    >>> tangents[0]
    Array([1., 1.], dtype=float32)
"""

from __future__ import annotations

from funcarray.transforms import support
from funcarray.transforms.core import (
    CURRENT_TRACE,
    ShapedArray,
    Trace,
    Tracer,
    current_trace,
    set_current_trace,
    to_concrete_value,
)

__all__ = [
    "Zero", "JVPTrace", "JVPTracer", "jvp_flat", "instantiate", "zeros_like_aval",
    "defjvp", "defjvp_with_output", "deflinear", "defbilinear", "tangent_aval",
]


class Zero:
    """A symbolic zero tangent of abstract value ``aval`` (never materialised)."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    def __repr__(self):
        return f"Zero({self.aval.str_short()})"


def tangent_aval(aval: ShapedArray) -> ShapedArray:
    """Tangents of float/complex values share their dtype; integer and bool values have
    no tangent space: their tangents are always symbolic zeros of their own dtype here, which
    the public API shows as JAX's float0 arrays (``funcarray/base/float0.py``)."""
    if not aval.weak_type:
        return aval  # (avals are never mutated, so sharing one is safe)
    return ShapedArray.trusted(aval.shape, aval.dtype, False)


def zeros_like_aval(aval: ShapedArray):
    """Zeros of ``aval``: a scalar broadcast (one small op under a trace, no memory eagerly)."""
    return support.ops.zeros(aval)


def instantiate(tangent, aval: ShapedArray | None = None):
    """A real array for ``tangent``: zeros for a symbolic ``Zero``, else the tangent itself."""
    if type(tangent) is Zero:
        return zeros_like_aval(tangent.aval if aval is None else aval)
    return tangent


def _aval_of(x) -> ShapedArray:
    return x.aval


class JVPTracer(Tracer):
    __slots__ = ("primal", "tangent")

    def __init__(self, trace: JVPTrace, primal, tangent):
        self._trace = trace
        self.primal = primal
        self.tangent = tangent

    @property
    def aval(self) -> ShapedArray:
        return self.primal.aval

    # Read straight from the primal: user code and funcarray.numpy's promotion ask for these
    # on every operand, and going through ``aval`` would build a ShapedArray each time.
    @property
    def shape(self):
        return self.primal.shape

    @property
    def dtype(self):
        return self.primal.dtype

    @property
    def ndim(self):
        return self.primal.ndim

    @property
    def weak_type(self):
        return self.primal.weak_type

    def to_concrete_value(self):
        return to_concrete_value(self.primal)

    def __repr__(self):
        # JAX's forms: under linearize (grad, vjp) the tangent is being staged by the parent
        # trace, and only its type is shown, as JAX's GradTracer does.
        if getattr(self._trace.parent, "fold_constants", False):
            tangent_type = self.tangent.aval.str_short(short_dtypes=True)
            return f"GradTracer(primal={self.primal!s}, typeof(tangent)={tangent_type})"
        return f"JVPTracer(primal={self.primal!s}, tangent={self.tangent!s})"


class JVPTrace(Trace):
    """Interprets primitives on (primal, tangent) pairs by calling their jvp rules."""

    __slots__ = ()

    def _split(self, x):
        if type(x) is JVPTracer and x._trace is self:
            return x.primal, x.tangent
        return x, Zero(tangent_aval(x.aval))

    def process_primitive(self, prim, args, params):
        # (``_split`` inlined, and the Zero tangents of non-tracer operands made only when
        # the rule runs: this is the per-primitive path of every grad.)
        primals, tangents = [], []
        all_zero = True
        for a in args:
            if type(a) is JVPTracer and a._trace is self:
                primals.append(a.primal)
                t = a.tangent
                all_zero = all_zero and type(t) is Zero
            else:
                primals.append(a)
                t = None
            tangents.append(t)
        # (set_current_trace written out: a ``with`` costs three Python calls per primitive)
        token = CURRENT_TRACE.set(self.parent)
        try:
            if all_zero:  # nothing to differentiate: compute the primal one level down
                return prim.bind(*primals, **params)
            tangents = [Zero(tangent_aval(p.aval)) if t is None else t
                        for p, t in zip(primals, tangents)]
            primal_out, tangent_out = prim.jvp_rule(primals, tangents, **params)
        finally:
            CURRENT_TRACE.reset(token)
        if prim.multiple_results:
            return [self._wrap(p, t) for p, t in zip(primal_out, tangent_out)]
        if type(tangent_out) is Zero:  # (_wrap, written out)
            return primal_out
        return JVPTracer(self, primal_out, tangent_out)

    def _wrap(self, primal, tangent):
        # A value with a zero tangent is just its primal: returning it unboxed keeps
        # comparisons and other non-differentiable results concrete (so `if x > 0:` works).
        if type(tangent) is Zero:
            return primal
        return JVPTracer(self, primal, tangent)


def jvp_flat(fun, primals, tangents, instantiate_zeros: bool = True):
    """Push ``tangents`` forward through ``fun`` (flat lists in, flat list out).

    ``tangents`` entries may be ``Zero``. Returns ``(primals_out, tangents_out)`` with
    tangents instantiated (zeros materialised) so callers always get arrays, or with zero
    tangents left as ``Zero`` when ``instantiate_zeros`` is False (``fa.jvp`` turns those of
    integer outputs into float0 arrays).
    """
    trace = JVPTrace(current_trace())
    tracers = [p if type(t) is Zero else JVPTracer(trace, p, t)
               for p, t in zip(primals, tangents)]
    with set_current_trace(trace):
        outs = fun(*tracers)
    primals_out, tangents_out = [], []
    for out in outs:
        p, t = trace._split(out)
        primals_out.append(p)
        tangents_out.append(instantiate(t) if instantiate_zeros else t)
    return primals_out, tangents_out


# --------------------------------------------------------------------------------------------
# Rule helpers. Each takes care of symbolic zeros, so the per-primitive code is one formula.
# --------------------------------------------------------------------------------------------

def _add_tangents(acc, t):
    return t if acc is None else support.ops.add(acc, t)


def defjvp(prim, *tangent_fns):
    """Set ``prim``'s jvp rule from one function per operand.

    ``tangent_fns[i](t_i, *primals, **params)`` gives operand i's contribution to the output
    tangent; ``None`` marks an operand that is not differentiable (its tangent is ignored).
    Contributions are summed; operands with zero tangents are skipped.

    Example (in a primitives file):
        defjvp(sin_p, lambda t, x: mul(t, cos(x)))
    """
    def rule(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        acc = None
        for fn, t in zip(tangent_fns, tangents):
            if fn is not None and type(t) is not Zero:
                acc = _add_tangents(acc, fn(t, *primals, **params))
        return out, (Zero(tangent_aval(out.aval)) if acc is None else acc)

    prim.jvp_rule = rule
    return rule


def defjvp_with_output(prim, *tangent_fns):
    """Like ``defjvp`` but each function also gets the primal output first:
    ``tangent_fns[i](t_i, out, *primals, **params)`` (``exp``: ``t * out``)."""
    def rule(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        acc = None
        for fn, t in zip(tangent_fns, tangents):
            if fn is not None and type(t) is not Zero:
                acc = _add_tangents(acc, fn(t, out, *primals, **params))
        return out, (Zero(tangent_aval(out.aval)) if acc is None else acc)

    prim.jvp_rule = rule
    return rule


def deflinear(prim):
    """``prim`` is linear in all its operands: its tangent is ``prim`` of the tangents.

    Zero tangents are instantiated only when some other operand has a real tangent.
    """
    def rule(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        if len(tangents) == 1:  # (broadcast, reshape, reduce_sum...: no generator needed)
            if type(tangents[0]) is Zero:
                return out, _zero_like_output(prim, out)
            return out, prim.bind(tangents[0], **params)
        if all(type(t) is Zero for t in tangents):
            return out, _zero_like_output(prim, out)
        tangents = [instantiate(t) for t in tangents]
        return out, prim.bind(*tangents, **params)

    prim.jvp_rule = rule
    return rule


def defbilinear(prim):
    """``prim(x, y)`` is linear in each operand separately (``mul``, ``dot_general``):
    ``d prim = prim(dx, y) + prim(x, dy)``."""
    def rule(primals, tangents, **params):
        x, y = primals
        tx, ty = tangents
        out = prim.bind(x, y, **params)
        acc = None
        if type(tx) is not Zero:
            acc = prim.bind(tx, y, **params)
        if type(ty) is not Zero:
            acc = _add_tangents(acc, prim.bind(x, ty, **params))
        return out, (Zero(tangent_aval(out.aval)) if acc is None else acc)

    prim.jvp_rule = rule
    return rule


def _zero_like_output(prim, out):
    if prim.multiple_results:
        return [Zero(tangent_aval(o.aval)) for o in out]
    return Zero(tangent_aval(out.aval))
