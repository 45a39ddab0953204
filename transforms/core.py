"""The tracing core: primitives, abstract values, traces and tracers.

This module sits at the bottom of funcarray's import graph: it knows no particular primitive,
transform or backend. Everything above it is built from four ideas:

* ``ShapedArray`` -- the abstract value (aval) of an array: shape, dtype and weak_type.
* ``Primitive`` -- an operation with *rule slots* (eager impl, abstract eval, jvp, transpose,
  batch, lower). The rules for one primitive are filled in side by side in the file that
  defines it (``funcarray/primitives/*.py``), never scattered over registries.
* ``Trace`` / ``Tracer`` -- a transform is a Trace that interprets primitives applied to its own
  Tracers. Traces are *stackless*: the current one lives in a ContextVar, each trace knows its
  ``parent``, and a trace unboxes only the tracers it made itself (identity check), so nested
  transforms cannot confuse each other's values.
* ``bind`` -- applying a primitive means asking the current trace to process it. Outside every
  transform the current trace is the ``EvalTrace``, which runs the primitive's eager kernel.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.primitives.elementwise import sin_p
    >>> sin_p.bind(fnp.zeros(2))
    Array([0., 0.], dtype=float32)
"""

from __future__ import annotations

from contextvars import ContextVar

import numpy as np

from funcarray.base.array import register_tracer_type
from funcarray.base.avals import ShapedArray, short_dtype_name

__all__ = [
    "ShapedArray",
    "Primitive",
    "Trace",
    "EvalTrace",
    "Tracer",
    "MissingRuleError",
    "UnexpectedTracerError",
    "ConcretizationError",
    "ConcretizationTypeError",
    "TracerArrayConversionError",
    "TracerBoolConversionError",
    "TracerIntegerConversionError",
    "current_trace",
    "set_current_trace",
    "positional_bind",
    "running_numpy_kernels",
    "short_dtype_name",
]


# --------------------------------------------------------------------------------------------
# Primitives
# --------------------------------------------------------------------------------------------


class MissingRuleError(NotImplementedError):
    """A primitive was used under a transform for which it has no rule."""

    _funcarray_user_error = True


class _MissingRule:
    """Placeholder in an empty rule slot: calling it raises an error naming what is missing.

    Using a callable placeholder (rather than ``None``) keeps the transforms free of
    ``if rule is None`` checks on their hot paths.
    """

    __slots__ = ("prim_name", "what")

    def __init__(self, prim_name: str, what: str):
        self.prim_name = prim_name
        self.what = what

    def __call__(self, *args, **kwargs):
        raise MissingRuleError(
            f"The primitive '{self.prim_name}' has no {self.what} rule, so it cannot be used "
            f"under that transform yet. Rules live beside the primitive's definition in "
            f"funcarray/primitives/."
        )

    def __bool__(self):
        return False


class Primitive:
    """An operation that transforms can interpret, with one slot per rule.

    Slots (each filled with ``def_*`` or by a family helper in ``primitives/_define.py``):

    * ``impl(*arrays, **params)`` -- eager kernel: concrete ``Array`` s in, ``Array`` (s) out.
    * ``abstract_eval(*avals, **params)`` -- shape/dtype rule: ShapedArrays in, out.
    * ``jvp_rule``, ``transpose_rule``, ``batch_rule``, ``lower_rule`` -- used by the
      transforms and by lowering; their signatures are documented where they are used.

    Operands are positional and already normalised (same dtypes, explicit shapes); static
    parameters are keywords with hashable values, so they can key caches and be printed.

    Example:
        >>> p = Primitive("my_neg")
        >>> p.impl = lambda x: -x
        >>> p.bind(3)
        -3
    """

    # Only higher-order primitives (jit, checkpoint, control flow) have one: under linearize
    # it splits the primitive into the part computable now and the part to stage
    # (``transforms/partial_eval.py``). A class attribute, not a slot: None for the others.
    partial_eval_rule = None
    # The same split on an equation of IR (``partial_eval_ir``): eqn -> (known, unknown).
    partial_eval_eqn_rule = None
    # Only collectives (lax.psum...) have one: ``NamedBatchTrace`` calls it, as
    # ``rule(trace, vals, dims, **params) -> (out, out_dim)``, when the primitive's
    # ``axis_name`` param includes that trace's axis (``transforms/vmap.py``).
    named_axis_rule = None

    def __init__(self, name: str, *, multiple_results: bool = False):
        self.name = name
        self.multiple_results = multiple_results
        self.impl = _MissingRule(name, "eager (impl)")
        self.abstract_eval = _MissingRule(name, "abstract evaluation (shape/dtype)")
        self.jvp_rule = _MissingRule(name, "jvp (forward-mode differentiation)")
        self.transpose_rule = _MissingRule(name, "transpose (reverse-mode differentiation)")
        self.batch_rule = _MissingRule(name, "batching (vmap)")
        self.lower_rule = _MissingRule(name, "lowering (StableHLO)")

    def bind(self, *args, **params):
        # The hot path: one ContextVar read, then the eager kernel when the NumPy engine runs
        # (outside every transform: the one place that decides, so API functions never test
        # which engine runs), else one method call on the current trace.
        trace = _current_trace.get()
        if trace.__class__ is EvalTrace:
            return self.impl(*args, **params)
        return trace.process_primitive(self, args, params)

    # Decorator forms, so a rule can be written directly under the primitive it belongs to.
    def def_impl(self, fn):
        self.impl = fn
        return fn

    def def_abstract_eval(self, fn):
        self.abstract_eval = fn
        return fn

    def def_jvp(self, fn):
        self.jvp_rule = fn
        return fn

    def def_transpose(self, fn):
        self.transpose_rule = fn
        return fn

    def def_batch(self, fn):
        self.batch_rule = fn
        return fn

    def def_lower(self, fn):
        self.lower_rule = fn
        return fn

    def __repr__(self):
        return f"Primitive({self.name!r})"


# --------------------------------------------------------------------------------------------
# Traces and tracers
# --------------------------------------------------------------------------------------------


class Trace:
    """A way of interpreting primitives. Subclasses implement ``process_primitive``.

    ``parent`` is the trace that was current when this one started: rules that need to compute
    something "one level down" run under ``set_current_trace(self.parent)``.
    """

    __slots__ = ("parent",)

    def __init__(self, parent: Trace | None = None):
        self.parent = parent

    def process_primitive(self, prim: Primitive, args, params):
        raise NotImplementedError


class EvalTrace(Trace):
    """The trace outside every transform: run the primitive's eager kernel."""

    __slots__ = ()

    def process_primitive(self, prim, args, params):
        return prim.impl(*args, **params)


EVAL_TRACE = EvalTrace()

def to_concrete_value(x):
    """The concrete NumPy value behind ``x``, or None when it is abstract (traced)."""
    if isinstance(x, Tracer):
        return x.to_concrete_value()
    return getattr(x, "_value", None)
_current_trace: ContextVar[Trace] = ContextVar("funcarray_current_trace", default=EVAL_TRACE)
# The same variable, for the few hot paths that set it without ``set_current_trace``.
CURRENT_TRACE = _current_trace


def current_trace() -> Trace:
    """The trace that ``bind`` will hand the next primitive to."""
    return _current_trace.get()


def running_eagerly() -> bool:
    """True outside every transform: a primitive bound now runs at once, with either eager
    backend (NumPy kernels, or the XLA single-op executables, which both broadcast
    elementwise operands themselves)."""
    return _current_trace.get() is EVAL_TRACE


def running_numpy_kernels() -> bool:
    """True when a primitive bound now would run its NumPy kernel with every host shortcut
    on: outside every transform, with the NumPy eager engine (``lowering/executor.py`` swaps
    EVAL_TRACE's class for the XLA engine's, the NaN-checking one or the one without
    shortcuts). What tests of the NumPy engine's own behaviour ask; code above the transforms
    asks ``host_shortcuts`` (or the executor) instead, so that the engine decides in one place.
    """
    trace = _current_trace.get()
    return trace is EVAL_TRACE and trace.__class__ is EvalTrace


def positional_bind(prim: Primitive, nargs: int):
    """``prim.bind`` for a primitive that takes exactly ``nargs`` operands and no parameters
    (the elementwise families): the same dispatch as ``Primitive.bind`` without packing
    ``*args``/``**params``, ~0.1 us less on every eager ``x + y``.

    Example:
        >>> p = Primitive("my_neg")
        >>> p.impl = lambda x: -x
        >>> p.bind = positional_bind(p, 1)
        >>> p.bind(3)
        -3
    """
    get_trace = _current_trace.get
    if nargs == 1:
        def bind(x):
            trace = get_trace()
            if trace.__class__ is EvalTrace:
                return prim.impl(x)
            return trace.process_primitive(prim, (x,), {})
    elif nargs == 2:
        def bind(x, y):
            trace = get_trace()
            if trace.__class__ is EvalTrace:
                return prim.impl(x, y)
            return trace.process_primitive(prim, (x, y), {})
    else:
        raise ValueError(f"positional_bind: {prim.name} takes 1 or 2 operands, not {nargs}")
    return bind


class set_current_trace:
    """Context manager that makes ``trace`` current (a class: cheaper than @contextmanager)."""

    __slots__ = ("trace", "token")

    def __init__(self, trace: Trace):
        self.trace = trace

    def __enter__(self):
        self.token = _current_trace.set(self.trace)
        return self.trace

    def __exit__(self, *exc):
        _current_trace.reset(self.token)
        return False


class UnexpectedTracerError(TypeError, RuntimeError):
    """A tracer was used outside the transform that created it (JAX's class: a TypeError)."""

    _funcarray_user_error = True  # explains itself: tracebacks drop funcarray's frames


class ConcretizationError(TypeError):
    """Python needed a concrete value (bool, int, float, an index) from a traced one: the
    base of the JAX classes below, which say which conversion it was."""

    _funcarray_user_error = True


# JAX's hierarchy under funcarray's base class: ``int()``, ``float()``, ``item()`` and
# functions whose result's shape depends on values raise ConcretizationTypeError; ``bool()``
# its subclass TracerBoolConversionError; ``__index__`` and ``np.asarray`` classes of
# their own (not ConcretizationTypeErrors, as in JAX).


class ConcretizationTypeError(ConcretizationError):
    """A traced value where Python needs a concrete one (``int()``, ``float()``,
    ``item()``, a value-dependent shape)."""


class TracerBoolConversionError(ConcretizationTypeError):
    """``bool()`` of a traced value: a Python ``if``, ``while``, ``and`` or ``or`` on it."""


class TracerIntegerConversionError(ConcretizationError):
    """``__index__`` of a traced value: using it as a Python index, ``range()`` bound or
    shape."""


class TracerArrayConversionError(ConcretizationError):
    """``np.asarray`` (``__array__``) of a traced value."""


_CONCRETIZATION_MSG = (
    "{what} needs a concrete value, but got a traced array {aval} inside {trace}. Under a "
    "transform the values are abstract: only their shape and dtype are known.\n"
    "Fixes: pass this argument as static (jit's static_argnums / static_argnames), or use "
    "structured control flow (funcarray.lax.cond, funcarray.lax.while_loop, "
    "funcarray.numpy.where) instead of Python if/while on array values."
)


_ARRAY_CONVERSION_MSG = (  # (a tracer whose value is known: a JVP tracer's primal)
    "{what} is refused for the traced array {aval} inside {trace}, though its value is "
    "known: a NumPy array cannot carry the traced computation (under grad, its derivative "
    "would be lost).\nFix: use funcarray.numpy functions on it instead, or return it out of "
    "the transformed function and convert it there."
)


class Tracer:
    """A value being traced by a transform. Subclasses carry what their trace needs.

    Array methods and operators are installed on this class by ``funcarray.numpy.array_methods`` so
    user code cannot tell a tracer from an ``Array`` except by its abstract value. Tracers
    print as JAX's of their kind (a weak type is marked ``~``).

    Example:
        >>> import funcarray as fa
        >>> import funcarray.numpy as fnp
        >>> _ = fa.jit(lambda x: print(x) or x)(1.0)
        JitTracer(~float32[])
        >>> _ = fa.grad(lambda x: print(x) or x)(2.0)
        GradTracer(primal=2.0, typeof(tangent)=f32[])
        >>> _ = fa.vmap(lambda x: print(x) or x)(fnp.ones((3, 2), fnp.int32))
        VmapTracer(aval=int32[2], batched=int32[3,2])
    """

    __slots__ = ("_trace",)
    __array_priority__ = 1000

    @property
    def aval(self) -> ShapedArray:
        raise NotImplementedError

    @property
    def shape(self):
        return self.aval.shape

    @property
    def dtype(self):
        return self.aval.dtype

    @property
    def ndim(self):
        return self.aval.ndim

    @property
    def size(self):
        return self.aval.size

    @property
    def weak_type(self):
        return self.aval.weak_type

    @property
    def itemsize(self) -> int:
        return self.aval.dtype.itemsize

    @property
    def nbytes(self) -> int:  # (what the array it stands for would take, as on jax tracers)
        return self.aval.size * self.aval.dtype.itemsize

    @property
    def sharding(self):
        # As on jax tracers: a traced value has no placement yet.
        raise AttributeError(
            f"The 'sharding' attribute is not available on a traced array "
            f"({self.aval.str_short()}): it is placed only when the transformed function "
            f"returns. Use funcarray.typeof(x) for its shape and dtype, or read .sharding on "
            f"the result.")

    def __len__(self):
        if not self.aval.shape:
            raise TypeError("len() of unsized object (a 0-d traced array)")
        return self.aval.shape[0]

    def __iter__(self):
        # Without this, Python iterates through __getitem__ until an IndexError, so a 0-d
        # tracer looked like an empty sequence (`fnp.zeros(n)` with a traced n made shape ()).
        if not self.aval.shape:
            raise TypeError("iteration over a 0-d traced array")
        return (self[i] for i in range(self.aval.shape[0]))

    # The eager kernels read ``._value``: a tracer reaching one has escaped its transform.
    @property
    def _value(self):
        made_in = getattr(self._trace, "fun_name", "")
        raise UnexpectedTracerError(
            f"A traced value {self.aval} created by {type(self._trace).__name__}"
            f"{f' while tracing {made_in}' if made_in else ''} was used "
            f"outside the transform that made it (it escaped, e.g. by being stored in a global "
            f"or a closure and used after the transformed function returned). Return values "
            f"out of the transformed function instead of saving them on the side."
        )

    def to_concrete_value(self):
        """The NumPy value this tracer stands for, when its trace knows it (None otherwise).

        A JVP tracer knows its primal value; a staging tracer knows nothing. Python control
        flow on a tracer (``if x > 0``) works exactly when this returns a value.
        """
        return None

    def _concretization_error(self, what: str,
                              error_type: type[ConcretizationError] = ConcretizationTypeError,
                              template: str = _CONCRETIZATION_MSG):
        message = template.format(what=what, aval=self.aval.str_short(),
                                  trace=type(self._trace).__name__)
        detail = self._concretization_detail()
        if detail:
            message = f"{detail}\n{message}"
        from funcarray.base.errors import user_location  # lazily: core is imported first

        where = user_location()
        return error_type(f"{message}\n  (at {where})" if where else message)

    def _concretization_detail(self) -> str:
        """Where the traced value came from (staging tracers name the arguments)."""
        return ""

    def _concrete(self, what: str,
                  error_type: type[ConcretizationError] = ConcretizationTypeError):
        value = self.to_concrete_value()
        if value is None:
            raise self._concretization_error(what, error_type)
        return value

    def __bool__(self):
        return bool(self._concrete("bool() (a Python `if`, `while`, `and`, `or`)",
                                   TracerBoolConversionError))

    def __int__(self):
        return int(self._concrete("int()"))

    def __float__(self):
        return float(self._concrete("float()"))

    def __complex__(self):
        return complex(self._concrete("complex()"))

    def __index__(self):
        value = self._concrete("Using an array as a Python index (__index__)",
                               TracerIntegerConversionError)
        if np.dtype(value.dtype).kind not in "iub":
            raise TypeError(f"Only integer arrays can be used as an index, got {value.dtype}")
        return int(value)

    def __array__(self, dtype=None, copy=None):
        # Always an error, as in JAX, even where the value is known (a JVP tracer's primal):
        # a NumPy array would silently drop the traced computation (its derivative, say).
        known = self.to_concrete_value() is not None
        raise self._concretization_error(
            "Converting to a NumPy array (np.asarray)", TracerArrayConversionError,
            _ARRAY_CONVERSION_MSG if known else _CONCRETIZATION_MSG)

    def item(self, *args):
        return self._concrete("item()").item(*args)

    def tolist(self):
        return np.asarray(self._concrete("tolist()")).tolist()

    __hash__ = None

    def __repr__(self):  # (each tracer class prints as JAX's of its kind; this is a default)
        return f"{type(self).__name__}({self.aval})"


register_tracer_type(Tracer)  # isinstance(tracer, Array) holds, as for jax.Array
