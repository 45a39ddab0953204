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

import numpy as np

from funcarray.base.array import Array, DeviceArray
from funcarray.base.errors import filtered
from funcarray.transforms.core import CURRENT_TRACE, EvalTrace

__all__ = ["MISSING_OPERAND", "eager_entry", "entry_variant", "general_path"]

_new = Array.__new__
MISSING_OPERAND = object()  # (an operand not given to a ufunc object's call)

# ``{guard}`` is empty or a test of the keyword-only option (``accuracy is None and ``);
# ``{weak}`` is the result's weak type; ``inline`` holds the dtypes whose kernel runs here
# (``accepted`` minus the low-precision floats for kernels that upcast them).
_UNARY = """\
def make(prim, accepted, inline, kernel, general, eager, filtered, get_trace, _new, Array,
         DeviceArray, _MISSING, hot, scalar_dtypes):
    def entry({parameters}):
        tx = type(x)
        if tx is Array:
            value = x._value
            dtype = value.dtype
            if {guard}(dtype is hot or dtype in inline):
                if get_trace().__class__ is eager:
                    out = _new(Array)
                    out._value = kernel(value)
                    out._weak = {weak}
                    return out
                return prim.bind(x)
        elif tx is DeviceArray:
            dtype = x._aval.dtype
            if {guard}(dtype is hot or dtype in inline) and get_trace().__class__ is eager:
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
         DeviceArray, _MISSING, hot, scalar_dtypes):
    def entry({parameters}):
        tx = type(x)
        ty = type(y)
        if tx is Array and ty is Array:
            xv = x._value
            yv = y._value
            dtype = xv.dtype
            if dtype is yv.dtype{same_shape}:
                if {guard}(dtype is hot or dtype in inline) and get_trace().__class__ is eager:
                    try:
                        value = kernel(xv, yv)
                    except ValueError:  # (shapes that do not broadcast: the general path's
                        pass  # error)
                    else:
                        out = _new(Array)
                        out._value = value
                        out._weak = {weak}
                        return out
                elif {guard}dtype in accepted{bind_shape}:
                    return prim.bind(x, y)
        elif tx is Array and ty in scalar_dtypes or ty is Array and tx in scalar_dtypes:
            # (an array and a Python float or int it takes, either side, ``x * 0.5``:
            # NumPy converts the scalar to the array's dtype first, as the general path
            # does; an int beyond int32 takes the general path, which may raise)
            array, scalar = (x, y) if tx is Array else (y, x)
            kind = type(scalar)
            value = array._value
            if ({guard}value.dtype in scalar_dtypes[kind]
                    and (kind is float or -2147483648 <= scalar < 2147483648)
                    and get_trace().__class__ is eager):
                try:
                    value = kernel(value, y) if tx is Array else kernel(x, value)
                except ValueError:
                    pass
                else:
                    out = _new(Array)
                    out._value = value
                    out._weak = {weak_with_scalar}
                    return out
        elif (tx is Array or tx is DeviceArray) and (ty is Array or ty is DeviceArray):
            # (a device array's dtype and shape from its aval: with the XLA engine its value
            # stays on the device)
            xa = x._value if tx is Array else x._aval
            ya = y._value if ty is Array else y._aval
            dtype = xa.dtype
            if dtype is ya.dtype{same_shape_device}:
                if {guard}(dtype is hot or dtype in inline) and get_trace().__class__ is eager:
                    try:
                        value = kernel(x._value, y._value)
                    except ValueError:
                        pass
                    else:
                        out = _new(Array)
                        out._value = value
                        out._weak = {weak}
                        return out
                elif {guard}dtype in accepted{bind_shape_device}:
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


# The extra parameters of a ufunc object's call (``fnp.add(x, y, out=None)``): ``out`` and
# ``where`` positional or keyword (not keyword-only, nor ``*args`` for a surplus operand:
# CPython then calls the function through its slow path, ~90 ns more); a surplus positional
# argument lands in ``_extra``. Anything but the defaults goes to ``general``, which raises
# jax.numpy's errors (a TypeError for a surplus operand, NotImplementedError for ``out=``).
_UFUNC_PARAMETERS = ", _extra=_MISSING, /, out=None, where=None"
_UFUNC_ARGUMENTS = ", _extra, out=out, where=where"
_UFUNC_GUARD = "_extra is _MISSING and out is None and where is None and "


@functools.cache
def _maker(nargs: int, option: str | None, positional_only: bool, weak: bool,
           broadcasts: bool, ufunc_call: bool, reflected: bool):
    operands = ("x", "y")[:nargs]
    # (a reflected operator, ``Array.__radd__(self, other)``: ``other + self``, its operands
    # named in the other order)
    named = operands[::-1] if reflected else operands
    parameters = ", ".join(named) + (", /" if positional_only else "")
    arguments = ", ".join(named)
    guard = ""
    if option is not None:
        parameters += f", *, {option}=None"
        arguments += f", {option}"
        guard = f"{option} is None and "
    if ufunc_call:
        parameters = ", ".join(f"{name}=_MISSING" for name in operands) + _UFUNC_PARAMETERS
        arguments += _UFUNC_ARGUMENTS
        guard = _UFUNC_GUARD
    # Two operands of different shapes: a NumPy function broadcasts them (the kernel does,
    # ``bind`` does not), a lax one takes the general path, which raises lax's error.
    same_shape, same_shape_device = " and xv.shape == yv.shape", " and xa.shape == ya.shape"
    source = (_UNARY, _BINARY)[nargs - 1].format(
        parameters=parameters, arguments=arguments, guard=guard,
        weak=" and ".join(f"{name}._weak" for name in operands) if weak else "False",
        weak_with_scalar="array._weak" if weak else "False",
        same_shape="" if broadcasts else same_shape,
        same_shape_device="" if broadcasts else same_shape_device,
        bind_shape=same_shape if broadcasts else "",
        bind_shape_device=same_shape_device if broadcasts else "")
    namespace: dict = {}
    line = (_UNARY_LINE, _BINARY_LINE)[nargs - 1]
    exec(compile("\n" * line + source, __file__, "exec"), namespace)  # noqa: S102 (our template)
    return namespace["make"]


# The commonest dtypes, by family: an entry tests its operand's dtype object against the first
# of these it runs inline (a pointer comparison) before it looks in its set of dtypes (a dtype
# hash costs ~30 ns; NumPy hands out one object per builtin dtype, so the test nearly always
# decides).
_HOT_DTYPES = tuple(np.dtype(name) for name in ("float32", "int32", "bool", "complex64"))


def _hot_dtype(inline):
    return next((dtype for dtype in _HOT_DTYPES if dtype in inline), None)


# The array dtypes that take a Python scalar in the kernel itself: NumPy (2, NEP 50) converts
# a Python float or int to the array's dtype before a ufunc computes, as jax's weak types
# do, so ``np.multiply(x, 0.5)`` is the general path's result. A float meets float arrays
# only (jax promotes an integer array to a float dtype, NumPy to float64); an int meets
# integer arrays, and float ones in a funcarray.numpy function (lax does not promote).
_FLOATS = frozenset((np.dtype("float32"), np.dtype("float64")))
_INTS = frozenset((np.dtype("int32"), np.dtype("int64")))


def _scalar_dtypes(kernel, inline, promotes: bool) -> dict:
    """``{float: dtypes, int: dtypes}``: the dtypes of ``inline`` whose arrays take a Python
    scalar in ``kernel`` (a NumPy ufunc only: other kernels may read their operands' dtype)."""
    if not isinstance(kernel, np.ufunc):
        return {}
    return {float: _FLOATS & inline, int: (_INTS | _FLOATS if promotes else _INTS) & inline}


def _inline_rule(prim):
    """``(kernel, dtypes it must not run on, weak results)`` of ``prim``'s impl, or None for
    an impl that publishes none (then every call binds)."""
    return getattr(prim.impl, "eager_inline", None)


def _set_closure(fn, name: str, value) -> None:
    fn.__closure__[fn.__code__.co_freevars.index(name)].cell_contents = value


def eager_entry(prim, accepted, general, *, home: dict, option: str | None = None,
                positional_only: bool = True, broadcasts: bool = False,
                ufunc_call: bool = False, reflected: bool = False):
    """The API function of the elementwise primitive ``prim`` (one or two operands).

    ``accepted`` is the set of dtypes that need no conversion or check; ``general(*operands)``
    (with the keyword-only ``option`` last, when given) handles every other call. With
    ``broadcasts``, two operands of one dtype and different shapes broadcast as in NumPy (a
    ``funcarray.numpy`` function; a ``lax`` one sends them to ``general``). With
    ``ufunc_call`` the function has a ufunc object's call signature (operands, ``out``,
    ``where``), and ``general`` gets every argument as given. With ``reflected`` it computes
    ``prim(second, first)`` (an operator's ``__radd__``); ``general`` gets them as given.
    ``home`` is
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
    made = _maker(nargs, option, positional_only, weak, broadcasts, ufunc_call, reflected)(
        prim, accepted, inline, kernel, general, EvalTrace, filtered, CURRENT_TRACE.get,
        _new, Array, DeviceArray, MISSING_OPERAND, _hot_dtype(inline),
        _scalar_dtypes(kernel, inline, promotes=broadcasts))
    entry = types.FunctionType(made.__code__, home, made.__name__, made.__defaults__,
                               made.__closure__)
    entry.__kwdefaults__ = made.__kwdefaults__
    entry._filters_own_errors = True  # (no api_boundary wrapper on the hot path)
    entry.eager_spec = (prim, accepted, broadcasts, general)

    def follow(impl) -> None:
        # A replaced impl: bind every call (never the class of a trace), until an impl with
        # the same inline rule is back.
        same = _inline_rule(prim) == rule and rule is not None
        _set_closure(entry, "eager", EvalTrace if same else None)

    prim.follow_impl(follow)
    return entry


def entry_variant(entry, general, *, home: dict, ufunc_call: bool = False,
                  reflected: bool = False):
    """Another API function for ``entry``'s primitive and dtypes, with ``general`` for the
    calls it does not run itself: an operator method (``Array.__add__``, whose ``general``
    answers NotImplemented to foreign types; ``reflected`` for ``__radd__``), a ufunc object's
    call (``ufunc_call``). None
    when ``entry`` was not made by ``eager_entry``. (``general`` should hand on to
    ``general_path(entry)``: ``entry`` itself would only repeat the variant's tests.)

    Example:
        >>> import funcarray.numpy as fnp
        >>> add = entry_variant(fnp.add.__wrapped__, lambda x, y: NotImplemented,
        ...                     home=globals())
        >>> add(fnp.ones(2), fnp.ones(2)), add(fnp.ones(2), "a")
        (Array([2., 2.], dtype=float32), NotImplemented)
    """
    spec = getattr(entry, "eager_spec", None)
    if spec is None:
        return None
    prim, accepted, broadcasts, _ = spec
    return eager_entry(prim, accepted, general, home=home, broadcasts=broadcasts,
                       ufunc_call=ufunc_call, reflected=reflected)


def general_path(fn):
    """What an entry made by ``eager_entry`` calls for the calls it does not run itself
    (``fn`` itself for any other function).

    Example:
        >>> import funcarray.numpy as fnp
        >>> general_path(fnp.sin)(1)
        Array(0.841471, dtype=float32, weak_type=True)
    """
    spec = getattr(fn, "eager_spec", None)
    return fn if spec is None else spec[3]
