"""Staging: turning a Python function into funcarray's IR (``transforms/ir.py``).

A ``StagingTrace`` interprets primitives by *recording* them: ``process_primitive`` computes
the output avals with the primitive's ``abstract_eval``, makes fresh ``StagingTracer`` s for
them and appends an ``Eqn``. Running the user's function on tracers for its arguments, under
this trace, therefore writes down every primitive it applies, in order: that list of equations
is the IR. Nothing is computed, so under staging only shapes and dtypes are known, and Python
control flow on array values raises ``ConcretizationError``.

Values that reach an equation without being this trace's tracers are *closed over*:

* concrete 0-d arrays become inline literals (``Lit``), printed as ``2.0:f32[]``;
* other concrete arrays, and tracers of enclosing transforms (JAX's closure conversion),
  become const binders, whose values are kept in the ``ClosedIR``'s ``consts``;
* a tracer of a transform that is not an enclosing one has escaped from it:
  ``UnexpectedTracerError``.

As in JAX's "omnistaging", every primitive applied while the trace is current is recorded,
including those that only touch constants (``fnp.zeros(3)`` inside a staged function is a
``broadcast_in_dim`` equation, not a baked-in array).

Concrete arrays are recognised by duck typing (an ``aval`` and a ``_value``) so that this
module does not import ``funcarray``; ``make_ir`` imports the pytree helpers lazily.

Example:
    >>> import funcarray.numpy as fnp
    >>> print(make_ir(lambda x, y: fnp.sin(x) * y)(fnp.ones(3), 2.0))
    { lambda ; a:f32[3] b:f32[]{weak}. let
        c:f32[3] = sin a
        d:f32[] = convert_element_type[ new_dtype=float32 weak_type=False ] b
        e:f32[3] = broadcast_in_dim[ broadcast_dimensions=() shape=(3,) ] d
        f:f32[3] = mul c e
      in (f) }
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from funcarray.base.host_values import host_array
from funcarray.transforms.core import (
    CURRENT_TRACE,
    EVAL_TRACE,
    EvalTrace,
    ShapedArray,
    Trace,
    Tracer,
    UnexpectedTracerError,
    current_trace,
    set_current_trace,
)
from funcarray.transforms.ir import IR, ClosedIR, Eqn, Lit, Var

__all__ = ["StagingTrace", "StagingTracer", "StagedIR", "stage_flat", "make_ir"]


_ESCAPED_MSG = (
    "A traced value {aval} created by {trace} was used inside another transform ({this}) that "
    "does not enclose the one that made it, while staging {where}. The value "
    "escaped its transform (e.g. it was stored in a global, a list or a closure and used after "
    "the transformed function returned). Return values out of the transformed function "
    "instead of saving them on the side."
)


class StagingTracer(Tracer):
    """A value being staged: it stands for the IR variable ``_var``."""

    __slots__ = ("_var",)

    def __init__(self, trace: StagingTrace, var: Var):
        self._trace = trace
        self._var = var

    @property
    def aval(self) -> ShapedArray:
        return self._var.aval

    def _concretization_detail(self) -> str:
        return self._trace.describe_origin(self._var)

    def __repr__(self):  # JAX's form: JitTracer(~float32[]) (a weak type marked ~)
        return f"JitTracer({self.aval})"


class StagingTrace(Trace):
    """Records the primitives applied to its tracers as IR equations.

    Use ``new_arg`` for each input, run the function with this trace current, then
    ``to_closed_ir(outputs)`` (``stage_flat`` does all three).
    """

    __slots__ = ("_in_binders", "_eqns", "_const_binders", "_consts", "_const_index",
                 "_exact_sources", "fold_constants", "arg_names", "fun_name")

    def __init__(self, parent: Trace | None, fold_constants: bool = False):
        super().__init__(parent)
        # With fold_constants, primitives applied to no tracer of this trace are computed
        # right away by the parent instead of being recorded: linearize uses this so that
        # primal values stay concrete and only the tangent computation is staged.
        self.fold_constants = fold_constants
        self._in_binders: list = []
        self._eqns: list = []
        self._const_binders: list = []
        self._consts: list = []  # keeps the values alive, so their ids stay unique
        self._const_index: dict = {}  # id(value) -> Var: one binder per closed-over value
        # Set by jit for error messages: a name per argument binder, and the function's.
        self.arg_names: list | None = None
        self.fun_name: str = ""
        # (prim, Var) -> Var: see ``new_rounded_arg``.
        self._exact_sources: dict | None = None

    def new_arg(self, aval: ShapedArray) -> StagingTracer:
        """A tracer for a new argument of the function being staged."""
        var = Var(aval)
        self._in_binders.append(var)
        return StagingTracer(self, var)

    def new_rounded_arg(self, wide_aval: ShapedArray, round_view, widen_prim):
        """A new argument received at ``wide_aval`` but seen by the function as
        ``round_view(wide)`` (a tracer of this trace); ``widen_prim`` applied to that view is
        applied to the wide argument instead.

        jit receives a Python float as a float64 and the function sees a weak float32, the
        type eager mode gives it; converting that view to another dtype (``x64 + 0.1``)
        converts the float64 instead, so 0.1 is not rounded to float32 on the way, as in eager
        mode.
        """
        wide = self.new_arg(wide_aval)
        view = round_view(wide)
        if self._exact_sources is None:
            self._exact_sources = {}
        self._exact_sources[(widen_prim, view._var)] = wide._var
        return view

    def process_primitive(self, prim, args, params):
        if self.fold_constants:
            for x in args:  # (a loop, not any(...): this runs for every primal op of a grad)
                if type(x) is StagingTracer and x._trace is self:
                    break
            else:
                parent = self.parent
                if (parent is EVAL_TRACE and parent.__class__ is EvalTrace
                        and prim.partial_eval_rule is None):
                    # Eager linearize (grad's forward pass): the primal op's kernel, called
                    # as the eager trace would call it, without switching traces and binding
                    # again (~0.6 us less per primal op). Its operands are concrete, so an impl
                    # that binds other primitives (custom_jvp's body) gets the same values:
                    # those binds fold here too. Higher-order primitives with a partial-eval
                    # rule keep the general path.
                    return prim.impl(*args, **params)
                token = CURRENT_TRACE.set(parent)  # (set_current_trace, written out)
                try:
                    return prim.bind(*args, **params)
                finally:
                    CURRENT_TRACE.reset(token)
            if prim.partial_eval_rule is not None:
                # A higher-order primitive with some known operands: it runs its known part
                # now and records only the rest (``transforms/partial_eval.py``).
                return prim.partial_eval_rule(self, args, params)
        return self.record(prim, args, params)

    def is_known(self, x) -> bool:
        """Whether ``x`` is a value this trace does not stage (known now, or to the parent)."""
        return not (isinstance(x, Tracer) and x._trace is self)

    def record(self, prim, args, params):
        """Append an equation applying ``prim`` to ``args``; returns tracers of its outputs."""
        inputs = tuple([x._var if type(x) is StagingTracer and x._trace is self
                        else self._atom(x, prim) for x in args])
        if self._exact_sources is not None and len(inputs) == 1 and type(inputs[0]) is Var:
            inputs = (self._exact_sources.get((prim, inputs[0]), inputs[0]),)
        out_avals = prim.abstract_eval(*[x.aval for x in inputs], **params)
        if prim.multiple_results:
            outs = tuple(Var(aval) for aval in out_avals)
            self._eqns.append(Eqn(prim, inputs, params, outs))
            return [StagingTracer(self, v) for v in outs]
        out = Var(out_avals)
        self._eqns.append(Eqn(prim, inputs, params, (out,)))
        return StagingTracer(self, out)

    def describe_origin(self, var: Var) -> str:
        """Which arguments ``var`` depends on, in words (for ConcretizationError)."""
        needed, deps = {var}, set()
        for eqn in reversed(self._eqns):
            if any(v in needed for v in eqn.outs):
                needed.update(x for x in eqn.inputs if type(x) is Var)
        for k, binder in enumerate(self._in_binders):
            if binder in needed:
                deps.add(k)
        if not deps:
            return ""
        names = self.arg_names or [f"argument {k}" for k in range(len(self._in_binders))]
        listed = ", ".join(names[k] for k in sorted(deps))
        fun = f" of {self.fun_name}" if self.fun_name else ""
        return (f"The traced value depends on {listed}{fun}; under jit only its shape "
                f"and dtype are known.")

    def to_closed_ir(self, outs) -> ClosedIR:
        """The IR of everything staged so far, returning ``outs`` (a list of values)."""
        out_atoms = tuple(self._atom(x, None) for x in outs)
        ir = IR(tuple(self._const_binders), tuple(self._in_binders), tuple(self._eqns),
                out_atoms)
        return ClosedIR(ir, tuple(self._consts))

    # --- turning operands into IR atoms ---------------------------------------------------
    def _atom(self, x, prim):
        """The Var or Lit for operand ``x`` of ``prim`` (None: an output of the function)."""
        if isinstance(x, Tracer):
            if x._trace is self:
                return x._var
            if not self._encloses(x._trace):
                made_in = getattr(x._trace, "fun_name", "")
                trace_name = type(x._trace).__name__ + (
                    f" while tracing {made_in}" if made_in else "")
                raise UnexpectedTracerError(_ESCAPED_MSG.format(
                    aval=x.aval, trace=trace_name, this=type(self).__name__,
                    where=_where(prim)))
            return self._const_var(x)
        if hasattr(x, "_value") and hasattr(x, "aval"):  # a concrete array
            aval = x.aval
            return Lit(x, aval) if not aval.shape else self._const_var(x)
        raise TypeError(
            f"While staging {_where(prim)}: got a value of type {type(x).__name__}; primitives "
            f"take funcarray arrays. Call the funcarray.numpy function instead of binding the "
            f"primitive directly (it converts Python scalars and NumPy arrays)."
        )

    def _encloses(self, trace: Trace) -> bool:
        parent = self.parent
        while parent is not None:
            if parent is trace:
                return True
            parent = parent.parent
        return False

    def _const_var(self, value) -> Var:
        var = self._const_index.get(id(value))
        if var is None:
            var = self._const_index[id(value)] = Var(value.aval)
            self._const_binders.append(var)
            self._consts.append(value)
        return var


def _where(prim) -> str:
    return "the outputs of the function" if prim is None else f"primitive '{prim.name}'"


def stage_flat(f, in_avals) -> ClosedIR:
    """Stage ``f(*flat_args) -> list of outputs`` on arguments of ``in_avals`` into IR.

    The flat core of ``make_ir`` (and of jit): no pytrees, no Python-scalar handling; ``f``
    must return a list or tuple of arrays or tracers.

    Example:
        >>> import numpy as np
        >>> import funcarray.numpy as fnp
        >>> from funcarray.transforms.core import ShapedArray
        >>> print(stage_flat(lambda x: [fnp.cos(x)], [ShapedArray((2,), np.float32)]))
        { lambda ; a:f32[2]. let
            b:f32[2] = cos a
          in (b) }
    """
    trace = StagingTrace(current_trace())
    args = [trace.new_arg(aval) for aval in in_avals]
    with set_current_trace(trace):
        outs = f(*args)
    return trace.to_closed_ir(outs)


# --------------------------------------------------------------------------------------------
# The pytree-aware public API
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False, slots=True)
class StagedIR:
    """What ``make_ir`` returns: the ClosedIR plus the pytree structure of inputs and outputs.

    Prints as the IR. Calling it with arguments shaped like the ones it was staged for
    (static arguments included, and equal) evaluates the IR and rebuilds the output pytree.
    It is also what ``make_jaxpr`` returns, so it answers to ``jax.core.ClosedJaxpr``'s
    names (``.jaxpr``, ``.eqns``, ``.literals``...), read from ``closed``.
    """

    closed: ClosedIR
    in_tree: object  # structure of (dynamic positional args, kwargs)
    out_tree: object
    static_args: tuple  # ((position, value), ...)

    @property
    def ir(self) -> IR:
        return self.closed.ir

    @property
    def consts(self) -> tuple:
        return self.closed.consts

    @property
    def in_avals(self) -> list:
        return self.closed.in_avals

    @property
    def out_avals(self) -> list:
        return self.closed.out_avals

    # ClosedJaxpr's names (see ClosedIR), for code that walks what make_jaxpr returns.
    jaxpr = property(lambda self: self.closed.jaxpr)
    literals = property(lambda self: self.closed.literals)
    eqns = property(lambda self: self.closed.eqns)
    invars = property(lambda self: self.closed.invars)
    outvars = property(lambda self: self.closed.outvars)
    constvars = property(lambda self: self.closed.constvars)
    effects = property(lambda self: self.closed.effects)

    def __call__(self, *args, **kwargs):
        from funcarray.base import pytrees as tree

        dyn_args = _split_static(args, dict(self.static_args), "calling a StagedIR")
        leaves, in_tree = tree.flatten((dyn_args, kwargs))
        if in_tree != self.in_tree:
            raise TypeError(f"StagedIR: called with arguments of structure {in_tree}, but it "
                            f"was staged for {self.in_tree}")
        leaves = [_as_array(x) for x in leaves]
        for k, (x, aval) in enumerate(zip(leaves, self.in_avals)):
            if x.shape != aval.shape or x.dtype != aval.dtype:
                raise TypeError(f"StagedIR: argument leaf {k} has type {x.aval.str_short()}, "
                                f"but the IR was staged for {aval.str_short()}")
        return tree.unflatten(self.out_tree, self.closed(*leaves))

    def __str__(self):
        return str(self.closed)

    __repr__ = __str__


def make_ir(f, *, static_argnums=()):
    """Stage ``f`` into funcarray's IR: ``make_ir(f)(*args)`` returns a printable ``StagedIR``.

    Arguments:
        f: a function of arrays (pytrees of arrays, Python scalars) returning a pytree of
            arrays.
        static_argnums: positions of arguments that are passed to ``f`` as they are, not
            traced (shapes, flags, anything Python needs concretely).

    Returns:
        A function taking ``f``'s arguments and returning a ``StagedIR``: it prints as the IR
        (``.ir``, ``.consts``, ``.in_tree``, ``.out_tree``, ``.in_avals``, ``.out_avals``)
        and can be called to evaluate it. Python scalar arguments stage as weak-typed
        (``f32[]{weak}``), like JAX.

    Example:
        >>> import funcarray.numpy as fnp
        >>> w = fnp.ones(3)
        >>> def f(x, n):
        ...     for _ in range(n):
        ...         x = fnp.tanh(x) * w
        ...     return {"y": x}
        >>> staged = make_ir(f, static_argnums=1)(fnp.zeros(3), 2)
        >>> print(staged)
        { lambda a:f32[3] ; b:f32[3]. let
            c:f32[3] = tanh b
            d:f32[3] = mul c a
            e:f32[3] = tanh d
            f:f32[3] = mul e a
          in (f) }
        >>> staged(fnp.zeros(3), 2)
        {'y': Array([0., 0., 0.], dtype=float32)}
    """
    static = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    @functools.wraps(f)
    def make(*args, **kwargs) -> StagedIR:
        from funcarray.base import pytrees as tree

        positions = _static_positions(static, len(args))
        static_args = tuple((i, args[i]) for i in sorted(positions))
        dyn_args = _split_static(args, dict(static_args), "make_ir")
        leaves, in_tree = tree.flatten((dyn_args, kwargs))
        in_avals = [_leaf_aval(x, k) for k, x in enumerate(leaves)]
        out_trees = []

        def flat_f(*flat_args):
            call_args, call_kwargs = tree.unflatten(in_tree, flat_args)
            call_args = _merge_static(call_args, static_args)
            out_leaves, out_tree = tree.flatten(f(*call_args, **call_kwargs))
            out_trees.append(out_tree)
            return [_as_array(x) for x in out_leaves]

        closed = stage_flat(flat_f, in_avals)
        return StagedIR(closed, in_tree, out_trees[0], static_args)

    return make


def _static_positions(static, nargs: int) -> set:
    positions = set()
    for i in static:
        if not -nargs <= i < nargs:
            raise ValueError(f"make_ir: static_argnums contains {i}, but the function was "
                             f"called with {nargs} positional arguments")
        positions.add(i % nargs)
    return positions


def _split_static(args, static: dict, where: str) -> tuple:
    dyn = []
    for i, x in enumerate(args):
        if i in static:
            if x is not static[i] and not _equal(x, static[i]):
                raise ValueError(f"{where}: static argument {i} is {x!r}, but the IR was "
                                 f"staged with {static[i]!r}; stage it again for new values")
        else:
            dyn.append(x)
    return tuple(dyn)


def _equal(a, b) -> bool:
    try:
        return bool(a == b)
    except Exception:  # e.g. arrays, whose == is elementwise: identity was checked already
        return False


def _merge_static(dyn_args, static_args) -> tuple:
    args = list(dyn_args)
    for i, value in static_args:
        args.insert(i, value)
    return tuple(args)


def _as_array(x):
    """Arrays and tracers pass; Python scalars, NumPy arrays and lists become Arrays."""
    if isinstance(x, Tracer) or hasattr(x, "aval"):
        return x
    return host_array("make_ir", x)


def _leaf_aval(x, k: int) -> ShapedArray:
    if isinstance(x, Tracer) or hasattr(x, "aval"):
        return x.aval
    try:
        return _as_array(x).aval
    except TypeError as exc:
        raise TypeError(f"{exc}\nArgument leaf {k} is not an array; pass non-array arguments "
                        f"through make_ir's static_argnums.") from None
