"""The eager entry of the elementwise API functions: one frame from the user's call to NumPy.

``fnp.sin(x)``, ``fnp.add(x, y)``, ``lax.exp(x)``... and the operators are made here, from
one template per arity. Operands that need nothing done to them (concrete arrays of one
dtype the function accepts, and for two operands one shape) outside every transform with the
NumPy engine run the primitive's eager kernel in the function's own frame; other concrete
operands of an accepted dtype go to ``prim.bind`` (a transform, the XLA engine, the
low-precision floats that the kernel upcasts); anything else goes to the function's
``general`` path (conversion, promotion, broadcasting, checks), whose errors are filtered to
the user's line. On a 4-element ``sin`` this is ~100 ns less than a function that binds:
one Python frame and the engine's dispatch, out of the ~300 ns funcarray adds to NumPy.

The inlined kernel is the primitive's ``impl``'s (``elementwise_impl`` publishes it), so the
two cannot drift apart; giving a primitive another ``impl`` (a test counting kernel calls)
sends its entries through ``bind`` until the original is back.
"""

from __future__ import annotations

import functools
import sys
import types

from funcarray.base.array import Array, DeviceArray
from funcarray.base.errors import filtered
from funcarray.transforms.core import CURRENT_TRACE, EvalTrace

__all__ = ["eager_entry"]

_new = Array.__new__

# ``{guard}`` is empty or a test of the keyword-only option (``accuracy is None and ``);
# ``{weak}`` is the result's weak type; ``inline`` holds the dtypes whose kernel runs here
# (``accepted`` minus the low-precision floats for kernels that upcast them).
_UNARY = """\
def make(prim, accepted, inline, kernel, general, eager, filtered, get_trace, _new, Array,
         DeviceArray):
    def entry({parameters}):
        tx = type(x)
        if tx is Array:
            value = x._value
            dtype = value.dtype
            if {guard}dtype in inline:
                if get_trace().__class__ is eager:
                    out = _new(Array)
                    out._value = kernel(value)
                    out._weak = {weak}
                    return out
                return prim.bind(x)
        elif tx is DeviceArray:
            dtype = x._aval.dtype
            if {guard}dtype in inline and get_trace().__class__ is eager:
                out = _new(Array)
                out._value = kernel(x._value)
                out._weak = {weak}
                return out
        else:
            dtype = None
        if {guard}dtype in accepted:
            return prim.bind(x)
        try:
            return general({arguments})
        except Exception as exc:
            raise filtered(exc) from exc.__cause__
    return entry
"""

_BINARY = """\
def make(prim, accepted, inline, kernel, general, eager, filtered, get_trace, _new, Array,
         DeviceArray):
    def entry({parameters}):
        tx = type(x)
        ty = type(y)
        if tx is Array and ty is Array:
            xv = x._value
            yv = y._value
            dtype = xv.dtype
            if dtype is yv.dtype and xv.shape == yv.shape:
                if dtype in inline:
                    if get_trace().__class__ is eager:
                        out = _new(Array)
                        out._value = kernel(xv, yv)
                        out._weak = {weak}
                        return out
                    return prim.bind(x, y)
                if dtype in accepted:
                    return prim.bind(x, y)
        elif (tx is Array or tx is DeviceArray) and (ty is Array or ty is DeviceArray):
            # (a device array's dtype and shape from its aval: with the XLA engine its value
            # stays on the device)
            xa = x._value if tx is Array else x._aval
            ya = y._value if ty is Array else y._aval
            dtype = xa.dtype
            if dtype is ya.dtype and xa.shape == ya.shape:
                if dtype in inline and get_trace().__class__ is eager:
                    out = _new(Array)
                    out._value = kernel(x._value, y._value)
                    out._weak = {weak}
                    return out
                if dtype in accepted:
                    return prim.bind(x, y)
        try:
            return general({arguments})
        except Exception as exc:
            raise filtered(exc) from exc.__cause__
    return entry
"""
# (the templates' first lines: tracebacks through an entry point into this file)
_BINARY_LINE = sys._getframe().f_lineno - _BINARY.count("\n") - 3
_UNARY_LINE = _BINARY_LINE - _UNARY.count("\n") - 3


@functools.cache
def _maker(nargs: int, option: str | None, positional_only: bool, weak: bool):
    operands = ("x", "y")[:nargs]
    parameters = ", ".join(operands) + (", /" if positional_only else "")
    arguments = ", ".join(operands)
    guard = ""
    if option is not None:
        parameters += f", *, {option}=None"
        arguments += f", {option}"
        guard = f"{option} is None and "
    source = (_UNARY, _BINARY)[nargs - 1].format(
        parameters=parameters, arguments=arguments, guard=guard,
        weak=" and ".join(f"{name}._weak" for name in operands) if weak else "False")
    namespace: dict = {}
    line = (_UNARY_LINE, _BINARY_LINE)[nargs - 1]
    exec(compile("\n" * line + source, __file__, "exec"), namespace)  # noqa: S102 (our template)
    return namespace["make"]


def _inline_rule(prim):
    """``(kernel, dtypes it must not run on, weak results)`` of ``prim``'s impl, or None for
    an impl that publishes none (then every call binds)."""
    return getattr(prim.impl, "eager_inline", None)


def _set_closure(fn, name: str, value) -> None:
    fn.__closure__[fn.__code__.co_freevars.index(name)].cell_contents = value


def eager_entry(prim, accepted, general, *, home: dict, option: str | None = None,
                positional_only: bool = True):
    """The API function of the elementwise primitive ``prim`` (one or two operands).

    ``accepted`` is the set of dtypes that need no conversion or check; ``general(*operands)``
    (with the keyword-only ``option`` last, when given) handles every other call. ``home`` is
    the namespace of the module the function belongs to: its docstring examples are collected
    there, and the kernels' floating-point warnings are attributed to it (``funcarray``
    silences them, as XLA raises none).

    Example:
        >>> import numpy as np
        >>> from funcarray.primitives import elementwise as ew
        >>> def general(x):
        ...     raise TypeError("expected a float array")
        >>> sin = eager_entry(ew.sin_p, {np.dtype("float32")}, general, home=globals())
        >>> sin(Array(np.zeros(2, np.float32)))
        Array([0., 0.], dtype=float32)
        >>> sin(3)
        Traceback (most recent call last):
        TypeError: expected a float array
    """
    nargs = prim.nargs
    rule = _inline_rule(prim)
    kernel, excluded, weak = rule if rule is not None else (None, frozenset(accepted), True)
    inline = frozenset(accepted) - excluded
    made = _maker(nargs, option, positional_only, weak)(
        prim, accepted, inline, kernel, general, EvalTrace, filtered, CURRENT_TRACE.get,
        _new, Array, DeviceArray)
    entry = types.FunctionType(made.__code__, home, made.__name__, made.__defaults__,
                               made.__closure__)
    entry.__kwdefaults__ = made.__kwdefaults__
    entry._filters_own_errors = True  # (no api_boundary wrapper on the hot path)

    def follow(impl) -> None:
        # A replaced impl: bind every call (never the class of a trace), until an impl with
        # the same inline rule is back.
        same = _inline_rule(prim) == rule and rule is not None
        _set_closure(entry, "eager", EvalTrace if same else None)

    prim.follow_impl(follow)
    return entry

