"""Family helpers that define a primitive and fill in its standard rules in one call.

A new elementwise operation is about three lines::

    tanh_p = unary("tanh", np.tanh, hlo="stablehlo.tanh", upcast_low_precision=True)

The helpers fill the slots every member of the family shares (eager kernel wrapping, abstract
evaluation, the batch rule, and the StableHLO op name that lowering uses); rules that differ
per primitive
(jvp, transpose) are set beside the primitive with ``@prim.def_jvp`` and friends.

Eager kernels receive and return NumPy values and follow StableHLO semantics; ``impl`` wraps
them so that they take and return ``Array`` s.
"""

from __future__ import annotations

import functools
import operator
import sys

import numpy as np

from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.lowering.stablehlo import elementwise_lowering
from funcarray.transforms.core import (
    CURRENT_TRACE,
    EvalTrace,
    Primitive,
    ShapedArray,
    positional_bind,
)
from funcarray.transforms.vmap import vectorized_batch_rule

__all__ = ["unary", "binary", "elementwise_abstract_eval", "elementwise_impl",
           "memoized_abstract_eval", "wrap_kernel", "LOW_PRECISION_FLOATS"]

_VALUE = operator.attrgetter("_value")  # an Array's NumPy value

# XLA computes transcendental functions of these types in float32 and rounds the result;
# the eager kernels do the same, so eager and jit agree.
LOW_PRECISION_FLOATS = dtypes.dtype_set(
    lambda dt: dt == dtypes.float16 or (dtypes.is_float(dt) and dt.isbuiltin == 2))


def _upcast_low_precision(kernel):
    def upcasting_kernel(*xs):
        dt = xs[0].dtype
        if dt in LOW_PRECISION_FLOATS:
            return kernel(*(np.asarray(x, np.float32) for x in xs)).astype(dt)
        return kernel(*xs)

    upcasting_kernel.__name__ = getattr(kernel, "__name__", "kernel")
    return upcasting_kernel


def elementwise_abstract_eval(name: str, out_dtype=None):
    """Shape/dtype rule for an elementwise primitive: equal shapes, equal dtypes.

    ``out_dtype(dtype) -> dtype`` gives the result dtype when it is not the operand dtype
    (comparisons give bool, ``abs`` of complex gives float).
    """

    def abstract_eval(*avals, **params):
        first = avals[0]
        shape, dt, weak = first.shape, first.dtype, first.weak_type
        for a in avals[1:]:
            if a.shape != shape or a.dtype != dt:
                raise TypeError(
                    f"Primitive '{name}' needs operands of one shape and dtype, got "
                    + ", ".join(a.str_short() for a in avals)
                    + ". Broadcast and promote first (funcarray.numpy does this for you)."
                )
            weak = weak and a.weak_type
        if out_dtype is not None:
            dt, weak = out_dtype(dt), False
        return ShapedArray.trusted(shape, dt, weak)

    return abstract_eval


class ElementwisePrimitive(Primitive):
    """A primitive of the elementwise families, whose ``bind`` runs its eager kernel itself.

    Outside every transform with the NumPy engine, ``bind`` computes the result in its own
    frame instead of calling ``impl`` (one Python call less on every eager elementwise op:
    ~30 ns of the ~350 ns funcarray adds to NumPy's ``sin`` of a small array). Setting
    ``impl`` keeps the two in step: an ``elementwise_impl`` brings its fused ``bind``, any
    other rule (a test that counts the kernel's calls, say) gets the plain positional
    ``bind``, which calls it.

    Example:
        >>> p = unary("my_negative", np.negative)
        >>> p.bind(Array(np.arange(3), True))._weak
        True
        >>> p.impl = lambda x: "counted"
        >>> p.bind(Array(np.arange(3)))
        'counted'
    """

    nargs = 0  # (set by the family helpers before ``impl``)
    _impl_followers: tuple = ()  # see follow_impl

    # (a hook on setting, not a property: reading ``impl``, as some eager shortcuts do, stays
    # a plain attribute read)
    def __setattr__(self, name: str, value) -> None:
        object.__setattr__(self, name, value)
        if name == "impl":
            fused = getattr(value, "fused_bind", None)
            if fused is not None:
                object.__setattr__(self, "bind", fused(self))
            elif self.nargs:
                object.__setattr__(self, "bind", positional_bind(self, self.nargs))
            for follow in self._impl_followers:
                follow(value)

    def follow_impl(self, callback) -> None:
        """Call ``callback(impl)`` whenever ``impl`` is set from now on: the API functions
        that inline the eager kernel (``eager_entry``) stop doing so for another ``impl``."""
        object.__setattr__(self, "_impl_followers", (*self._impl_followers, callback))


def _make_primitive(name, hlo, nargs, kernel, out_dtype):
    prim = ElementwisePrimitive(name)
    prim.kernel = kernel  # the raw NumPy kernel, for tests and for other kernels to reuse
    prim.hlo_op = hlo  # StableHLO op name; lowering emits it for the standard families
    if hlo is not None:
        prim.lower_rule = elementwise_lowering(hlo)
    prim.nargs = nargs
    prim.abstract_eval = elementwise_abstract_eval(name, out_dtype)
    # (the two-operand kernels broadcast, as NumPy's ufuncs: eager_entry runs them on
    # operands of different shapes)
    prim.batch_rule = vectorized_batch_rule(prim, eager_kernel_broadcasts=nargs == 2)
    return prim


# The elementwise impls make their result with ``Array.__new__`` and two slot stores: calling
# the class costs ~60 ns more (CPython does not inline a class call), on every eager
# elementwise op.
_new = Array.__new__


# The eager rules of the elementwise families, written once for both of their forms: the
# ``impl`` and the fused ``bind`` (``impl``'s body behind ``Primitive.bind``'s engine test;
# see ``ElementwisePrimitive``). ``{value}`` computes the result's NumPy value: ``kernel`` on
# the operands' values, or ``direct`` unless the first operand is a low-precision float.
_ELEMENTWISE_RULES = """\
def rules(kernel, direct, weak, get_trace):
    def impl({operands}):
        out = _new(Array)
        out._value = {value}
        out._weak = weak and {weaks}
        return out

    def fused_bind(prim):
        def bind({operands}):
            trace = get_trace()
            if trace.__class__ is EvalTrace:
                out = _new(Array)
                out._value = {value}
                out._weak = weak and {weaks}
                return out
            return trace.process_primitive(prim, ({operands},), {{}})
        return bind

    impl.fused_bind = fused_bind
    return impl
"""
# (the template's first line: the compiled rules' tracebacks point into it)
_ELEMENTWISE_RULES_LINE = sys._getframe().f_lineno - _ELEMENTWISE_RULES.count("\n") - 3


@functools.cache  # (four forms: one or two operands, with or without ``direct``)
def _elementwise_rules(nargs: int, has_direct: bool):
    names = ("x", "y")[:nargs]
    values = ", ".join(f"{name}._value" for name in names)
    kernel = ("(kernel if x._value.dtype in LOW_PRECISION_FLOATS else direct)" if has_direct
              else "kernel")
    source = "\n" * _ELEMENTWISE_RULES_LINE + _ELEMENTWISE_RULES.format(
        operands=", ".join(names), value=f"{kernel}({values})",
        weaks=" and ".join(f"{name}._weak" for name in names))
    # (``__name__``: warnings from the kernels are attributed to this module, whose filter
    # silences NumPy's floating-point warnings as in every kernel)
    namespace = {"__name__": __name__, "_new": _new, "Array": Array, "EvalTrace": EvalTrace,
                 "LOW_PRECISION_FLOATS": LOW_PRECISION_FLOATS}
    exec(compile(source, __file__, "exec"), namespace)  # noqa: S102 (our own template)
    return namespace["rules"]


def elementwise_impl(kernel, nargs: int, *, weak: bool = True, direct=None):
    """The eager ``impl`` of a one- or two-operand elementwise primitive: ``kernel`` on the
    operands' NumPy values; the result is weak when every operand is (``weak``), else strong.
    With ``direct``, that kernel runs instead of ``kernel`` unless the first operand is a
    low-precision float (``kernel`` then upcasts). Its ``fused_bind(prim)`` is the
    primitive's ``bind`` with the same kernel inlined (see ``ElementwisePrimitive``).

    Example:
        >>> impl = elementwise_impl(np.negative, 1)
        >>> impl(Array(np.arange(3), True))._weak
        True
    """
    if nargs not in (1, 2):
        raise ValueError(f"elementwise_impl: takes 1 or 2 operands, not {nargs}")
    impl = _elementwise_rules(nargs, direct is not None)(kernel, direct, weak, CURRENT_TRACE.get)
    # What an API function may run in its own frame (``eager_entry``): the kernel, the dtypes
    # it must not run on, and whether results are weak. A kernel that fixes up complex
    # operands names the NumPy function it runs on real ones (``real_kernel``): that one runs
    # inline, one Python call less, and complex operands take ``impl``.
    inline, excluded = (kernel, frozenset()) if direct is None else (direct, LOW_PRECISION_FLOATS)
    real_kernel = getattr(inline, "real_kernel", None)
    if real_kernel is not None:
        inline, excluded = real_kernel, excluded | _COMPLEX
    impl.eager_inline = (inline, frozenset(excluded), weak)
    return impl


_COMPLEX = dtypes.dtype_set(dtypes.is_complex)


def unary(name: str, kernel, *, hlo: str | None = None, out_dtype=None,
          upcast_low_precision: bool = False) -> Primitive:
    """Define a one-operand elementwise primitive from a NumPy kernel."""
    direct = kernel
    if upcast_low_precision:
        kernel = _upcast_low_precision(kernel)
    prim = _make_primitive(name, hlo, 1, kernel, out_dtype)
    # The upcasting wrapper only for the low-precision floats: one call less for the float32
    # tanh of an RNN step.
    prim.impl = elementwise_impl(kernel, 1, weak=out_dtype is None,
                                 direct=direct if upcast_low_precision else None)
    return prim


def binary(name: str, kernel, *, hlo: str | None = None, out_dtype=None,
           upcast_low_precision: bool = False) -> Primitive:
    """Define a two-operand elementwise primitive from a NumPy kernel."""
    direct = kernel
    if upcast_low_precision:
        kernel = _upcast_low_precision(kernel)
    prim = _make_primitive(name, hlo, 2, kernel, out_dtype)
    prim.impl = elementwise_impl(kernel, 2, weak=out_dtype is None,
                                 direct=direct if upcast_low_precision else None)
    return prim


def memoized_abstract_eval(rule, maxsize: int = 2048):
    """``rule(*avals, **params)`` computed once per signature, for shape rules whose checks
    cost more than staging the rest of the equation (``dot_general``, ``broadcast_in_dim``):
    a grad stages the same few signatures over and over. Avals and params are hashable by
    contract; a call with unhashable params (a list where a tuple belongs) runs ``rule``
    uncached, which raises its explanatory error.

    Example:
        >>> from funcarray.primitives.shape import broadcast_in_dim_p
        >>> broadcast_in_dim_p.abstract_eval(ShapedArray((3,), "float32"), shape=(2, 3),
        ...                                  broadcast_dimensions=(1,))
        ShapedArray(float32[2,3])
    """
    cached = functools.lru_cache(maxsize=maxsize)(rule)

    def abstract_eval(*avals, **params):
        try:
            return cached(*avals, **params)
        except TypeError:  # unhashable params, or the rule's own error: run it uncached
            return rule(*avals, **params)

    return abstract_eval


def wrap_kernel(kernel, *, multiple_results: bool = False, keep_weak: bool = False):
    """Turn a NumPy kernel ``kernel(*np_values, **params)`` into an eager ``impl`` rule.

    For primitives outside the elementwise families (reductions, shape ops...). Results are
    not weak-typed, unless ``keep_weak`` (shape ops: reshape, broadcast...), where they inherit
    the first operand's weak_type.

    Example:
        >>> impl = wrap_kernel(lambda x, *, axes: x.sum(axis=axes))
    """
    # Most of these primitives take one operand: it is unpacked without a generator, which
    # with the parameters' dict cost ~150 ns of every eager reshape, reduction or convert.
    if multiple_results:
        def impl(*args, **params):
            outs = kernel(*map(_VALUE, args), **params)
            return [Array(o) for o in outs]
    elif keep_weak:
        def impl(*args, **params):
            if len(args) == 1:
                x = args[0]
                return Array(kernel(x._value, **params), x._weak)
            return Array(kernel(*map(_VALUE, args), **params), args[0]._weak)
    else:
        def impl(*args, **params):
            if len(args) == 1:
                return Array(kernel(args[0]._value, **params))
            return Array(kernel(*map(_VALUE, args), **params))
    impl.__name__ = getattr(kernel, "__name__", "impl")
    return impl
