"""Helpers shared by ``funcarray.lax``'s control flow: argument checks, staging a Python
function to IR in call form, eager/traced switches.

Example:
    >>> import funcarray.numpy as fnp
    >>> _scalar("cond", "pred", fnp.array(True)).shape
    ()
"""

from __future__ import annotations

import numpy as np

from funcarray.api.arguments import asarray_arg, is_array
from funcarray.base import pytrees as fa_tree
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
