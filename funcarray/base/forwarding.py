"""Wrappers that forward their arguments with the wrapped function's own parameter list.

A wrapper written ``def wrapper(*args, **kwargs): return fn(*args, **kwargs)`` packs the
arguments into a tuple and a dict and unpacks them again: on CPython 3.11 that costs
60-130 ns a call (a call through ``*args, **kwargs`` leaves the interpreter's inlined call
path), about a quarter of a small eager operation. A wrapper whose parameter list is ``fn``'s
(``def wrapper(x, axis=None): return fn(x, axis)``) costs ~15 ns.

Writing such wrappers by hand for every public function would repeat each signature twice, so
the API's wrappers (``api_boundary``, ``host_shortcut``) are written generically and rewrite
their own code on their first call: ``exact_forwarding`` compiles the wrapper's body with
``fn``'s parameter list and installs it as the wrapper's ``__code__`` (keeping its closure),
with ``fn``'s defaults. Doing it at the first call, not at decoration, keeps ~500 compilations
off ``import funcarray.numpy``; the code is cached per body and parameter list.

A callable it cannot forward exactly (not a plain Python function, ``*args``, a parameter
named like one of the body's names) gets the same body with ``*args, **kwargs``. Replacing a
function's code is atomic, and both codes compute the same thing, so threads that race on a
first call are safe.

Example:
    >>> def fn(x, axis=None):
    ...     return x, axis
    >>> def wrapper(*args, **kwargs):
    ...     exact_forwarding(wrapper, fn, "return fn({args})")
    ...     return wrapper(*args, **kwargs)
    >>> wrapper(1, axis=2)
    (1, 2)
    >>> wrapper.__code__.co_varnames[:2], wrapper.__defaults__
    (('x', 'axis'), (None,))
"""

from __future__ import annotations

import functools
import re
import textwrap
from types import FunctionType

__all__ = ["exact_forwarding", "same_parameters"]

_GENERIC = ("*args, **kwargs", "*args, **kwargs")
_VARARGS, _VARKEYWORDS = 0x04, 0x08  # inspect.CO_VARARGS, inspect.CO_VARKEYWORDS


def _parameters(code) -> tuple[str, ...]:
    """The names of a code object's parameters, in order (``*args``/``**kwargs`` included)."""
    n = (code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & _VARARGS)
         + bool(code.co_flags & _VARKEYWORDS))
    return code.co_varnames[:n]


def same_parameters(f, g) -> bool:
    """Whether ``f`` and ``g`` take the same parameters: names, kinds and defaults, so that
    ``g``'s parameters forwarded one by one are a valid call of ``f`` meaning the same.

    Example:
        >>> same_parameters(lambda x, axis=None: 0, lambda x, axis=None: 1)
        True
        >>> same_parameters(lambda x, axis=None: 0, lambda x, axis=0: 1)
        False
    """
    if type(f) is not FunctionType or type(g) is not FunctionType:
        return False
    fc, gc = f.__code__, g.__code__
    if (_parameters(fc) != _parameters(gc) or fc.co_argcount != gc.co_argcount
            or fc.co_posonlyargcount != gc.co_posonlyargcount
            or fc.co_flags & (_VARARGS | _VARKEYWORDS) != gc.co_flags & (_VARARGS | _VARKEYWORDS)):
        return False
    return (_same_values(f.__defaults__ or (), g.__defaults__ or ())
            and _same_values(tuple((f.__kwdefaults__ or {}).items()),
                             tuple((g.__kwdefaults__ or {}).items())))


def _same_values(a: tuple, b: tuple) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x is y:
            continue
        try:
            if type(x) is not type(y) or not bool(x == y):
                return False
        except Exception:  # noqa: BLE001 (an array default: not comparable, not the same)
            return False
    return True


def _parameter_lists(fn, reserved: frozenset) -> tuple[str, str] | None:
    """``fn``'s parameter list as a ``def`` writes it (without defaults: they are set on the
    function) and the call that forwards each parameter, or None when not possible."""
    if type(fn) is not FunctionType:  # (a bound method's code would take ``self`` too)
        return None
    code = fn.__code__
    if code.co_flags & _VARARGS or not reserved.isdisjoint(_parameters(code)):
        return None
    names = code.co_varnames
    npos, nposonly, nkw = code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount
    params, args = list(names[:npos]), list(names[:npos])
    if nposonly:
        params.insert(nposonly, "/")
    if nkw:
        params.append("*")
        kwonly = names[npos:npos + nkw]
        params += kwonly
        args += [f"{name}={name}" for name in kwonly]
    if code.co_flags & _VARKEYWORDS:
        params.append(f"**{names[npos + nkw]}")
        args.append(f"**{names[npos + nkw]}")
    return ", ".join(params), ", ".join(args)


@functools.cache  # (one entry per signature of the API's functions)
def _compiled(body: str, params: str, args: str, like):
    """The code of ``def name(params): body`` (``{args}`` in ``body`` filled in), made inside
    a function whose locals are the free variables of ``like`` (the wrapper's code), so that
    the closure layouts agree (a code object replaces a function's only then). It has
    ``like``'s file name, which keeps its frames internal for the error filters
    (``base/errors.py``), and its body's lines start on the line after ``like``'s first, so
    a traceback through it points into the wrapper."""
    freevars, name = like.co_freevars, like.co_name
    keep = f"        if False:\n            ({', '.join(freevars)},)\n" if freevars else ""
    source = ("\n" * max(like.co_firstlineno - 1, 0)
              + f"def _outer({', '.join(freevars)}):\n"
              f"    def {name}({params}):\n"
              f"{textwrap.indent(body.format(args=args), ' ' * 8)}\n{keep}"
              f"    return {name}\n")
    namespace: dict = {}
    exec(compile(source, like.co_filename, "exec"), namespace)  # noqa: S102 (our own template)
    return namespace["_outer"](*freevars).__code__


@functools.cache  # (a wrapper made per call, vmap's in fromfunction, pays this once)
def _reserved_names(body: str, freevars: tuple) -> frozenset:
    """The names a forwarded parameter must not take: ``body``'s and the free variables'."""
    return frozenset(re.findall(r"[A-Za-z_]\w*", body)) | frozenset(freevars)


def exact_forwarding(wrapper, fn, body: str) -> None:
    """Give ``wrapper`` the code of ``body`` with ``fn``'s parameter list and defaults
    (``{args}`` in ``body`` forwards every parameter), or ``*args, **kwargs`` where that is
    not possible (see the module doc). ``body`` may use the wrapper's free variables and its
    module's globals; a parameter of ``fn`` named like any name in ``body`` is a clash."""
    code = wrapper.__code__
    exact = _parameter_lists(fn, _reserved_names(body, code.co_freevars))
    try:
        new = _compiled(body, *(exact or _GENERIC), code)
    except SyntaxError:  # (a parameter list the template cannot hold: stay generic)
        exact, new = None, _compiled(body, *_GENERIC, code)
    if exact is not None:
        wrapper.__defaults__, wrapper.__kwdefaults__ = fn.__defaults__, fn.__kwdefaults__
    wrapper.__code__ = new
