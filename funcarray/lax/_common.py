"""Helpers shared by ``funcarray.lax``'s control flow: argument checks, staging a Python
function to IR in call form, eager/traced switches.

Example:
    >>> import funcarray.numpy as fnp
    >>> _scalar("cond", "pred", fnp.array(True)).shape
    ()
"""

from __future__ import annotations

import functools
import weakref
from types import FunctionType

import numpy as np

from funcarray.api.arguments import asarray_arg, is_array
from funcarray.base import pytrees as fa_tree
from funcarray.base.array import Array, DeviceArray
from funcarray.primitives.conversions import convert_element_type_p
from funcarray.transforms.core import EVAL_TRACE, current_trace, set_current_trace
from funcarray.transforms.ir_transforms import CallForm, closed_call
from funcarray.transforms.staging import StagingTrace


def _as_leaves(what: str, leaves) -> list:
    return [x if is_array(x) else asarray_arg(what, x) for x in leaves]


def _stage(flat_fun, avals) -> CallForm:
    """Stage ``flat_fun(*tracers) -> leaves`` under the current trace (closure conversion:
    what it closes over becomes the leading operands), in call form."""
    trace = StagingTrace(current_trace())
    args = [trace.new_arg(a) for a in avals]
    with set_current_trace(trace):
        outs = flat_fun(*args)
    return closed_call(trace.to_closed_ir(list(outs)))


def _paths(treedef) -> list:
    dummy = fa_tree.unflatten(treedef, list(range(treedef.num_leaves)))
    return ["".join(f"[{k!r}]" for k in path) for path in fa_tree.flatten_with_path(dummy)[0]]


def _convert(x, aval):
    return convert_element_type_p.bind(x, new_dtype=aval.dtype, weak_type=aval.weak_type)


def _check_callable(what: str, name: str, fun) -> None:
    if not callable(fun):
        raise TypeError(f"{what}: {name} must be a function, got {type(fun).__name__}")


def _scalar(what: str, name: str, x):
    x = x if is_array(x) else asarray_arg(what, x)
    if x.shape != ():
        raise TypeError(f"{what}: {name} must be a scalar, got an array of shape {x.shape}")
    return x


def _int32(x):
    return x if x.dtype == np.int32 and not x.weak_type else _convert(
        x, x.aval.update(dtype=np.dtype(np.int32), weak_type=False))


def _arrays(what: str, tree):
    """``tree`` with Python scalars as Arrays: eager results have the types jit gives."""
    return fa_tree.map(lambda x: x if is_array(x) else asarray_arg(what, x), tree)


def _eager() -> bool:
    return current_trace() is EVAL_TRACE


# --------------------------------------------------------------------------------------------
# What eager calls learned by staging a function abstractly, kept per function key
# --------------------------------------------------------------------------------------------

# Eagerly, cond/switch stage their untaken branches and custom_root its f only to check them
# (and to type cond's result): the outcome is the same for every call with the same function
# keys and argument types, so it is kept here (cleared by funcarray.clear_caches). Entries
# are immutable (tuples, markers) and only added, and a full table is cleared at once, so
# threads share it without a lock: one that loses an entry stages again.
_EAGER_STAGED: dict = {}
_EAGER_STAGED_MAX = 1024


def _remember_staged(key, value) -> None:
    if len(_EAGER_STAGED) >= _EAGER_STAGED_MAX:
        _EAGER_STAGED.clear()
    _EAGER_STAGED[key] = value


_CONCRETE = (Array, DeviceArray)
_LEAF = fa_tree.structure(0)  # (the tree of one array)


def _type_key(x):
    """What ``x.aval`` tells, without building one (a cache key)."""
    if type(x) is Array:
        value = x._value
        return value.shape, value.dtype, x._weak
    return x.shape, x.dtype, x.weak_type


def _function_key(fun):
    """What a function's output types can depend on besides its arguments: its code and the
    types of the values it closes over (array values do not matter, only their types)."""
    if type(fun) is FunctionType and fun.__closure__ is None and fun.__defaults__ is None:
        return fun.__code__  # (a function of its arguments alone: its code says it all)
    code = getattr(fun, "__code__", None)
    if code is None:
        return fun  # a builtin or callable object: itself (hashable or not: see the caller)
    cells = []
    for cell in fun.__closure__ or ():
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell (a name assigned after the function was made)
            value = None
        cells.append(_value_key(value))
    # (a bound method's instance by identity: its attributes may decide the types)
    return (code, tuple(cells), _value_key(fun.__defaults__),
            _value_key(getattr(fun, "__self__", None)))


def _value_key(value):
    if is_array(value):
        return value.aval
    if type(value) is tuple:
        return tuple, tuple(map(_value_key, value))
    if isinstance(value, (bool, int, float, complex, str, type(None))):
        return type(value), value
    # Anything else (functions, modules, mutable containers such as a list used as a log) by
    # identity: a container mutated in place to hold arrays of other types is not noticed.
    return _ByIdentity(value)


class _ByIdentity:
    """A key part equal only to keys of the very same object. ``id(value)`` alone is not
    enough: once an object is freed, a new one (another model instance whose weights have
    another dtype) may get its address, and would hit the old entry's output types. The
    object is held weakly when it can be (the cache keeps no model alive), else strongly (a
    list: then its address cannot be reused while the entry exists)."""

    __slots__ = ("_id", "_ref")

    def __init__(self, value):
        self._id = id(value)
        try:
            self._ref = weakref.ref(value)
        except TypeError:  # lists, dicts and other objects without weak references
            self._ref = functools.partial(_same, value)

    def __hash__(self):
        return self._id

    def __eq__(self, other):
        if type(other) is not _ByIdentity or other._id != self._id:
            return False
        mine = self._ref()
        return mine is not None and mine is other._ref()


def _same(value):
    return value
