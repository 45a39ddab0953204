"""``cond``, ``switch`` and ``platform_dependent`` (JAX's ``jax.lax`` signatures).

Under a transform every branch is staged to IR and bound as the ``cond`` primitive. Outside
every transform the chosen branch runs as plain Python on concrete values (``print`` and
``pdb`` work there), and the others are staged abstractly only to check them and to give the
result the types jit would (``_eager_switch``). ``platform_dependent`` calls the branch of
the platform funcarray compiles for.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray import lax
    >>> lax.cond(False, lambda x: x.sum(), lambda x: 0, fnp.ones(2))  # as jit: float32
    Array(0., dtype=float32)
"""

from __future__ import annotations

import functools
from types import FunctionType
from typing import TYPE_CHECKING, overload

import numpy as np

from funcarray.base import dtypes
from funcarray.base import pytrees as fa_tree
from funcarray.base.array import Array
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.lax._common import (
    _CONCRETE,
    _EAGER_STAGED,
    _LEAF,
    _arrays,
    _as_leaves,
    _check_callable,
    _convert,
    _eager,
    _function_key,
    _int32,
    _paths,
    _remember_staged,
    _scalar,
    _stage,
    _type_key,
)
from funcarray.lowering.devices import default_backend
from funcarray.primitives.clamp import clamp_p
from funcarray.primitives.cond import cond_p
from funcarray.primitives.control_flow_bodies import convert_outputs, join_calls
from funcarray.transforms.core import ConcretizationError
from funcarray.transforms.ir_transforms import CallForm

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, TypeVar

    from funcarray.base.typing import ArrayLike

    _T = TypeVar("_T")

__all__ = ["cond", "switch", "platform_dependent"]


@overload
def cond(pred: ArrayLike, true_fun: Callable[..., ArrayLike],
         false_fun: Callable[..., ArrayLike], *operands: Any) -> Array: ...
@overload
def cond(pred: ArrayLike, true_fun: Callable[..., _T], false_fun: Callable[..., _T],
         *operands: Any) -> _T: ...
def cond(pred, true_fun, false_fun, *operands):
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``.

    Under a transform both branches are staged and must return the same pytree of types;
    under ``vmap`` with a batched ``pred`` both run and each member's result is selected.
    ``pred`` is a boolean or integer scalar (nonzero is true).

    Example:
        >>> import funcarray as fa
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> f = lambda x: lax.cond(x > 0, fnp.sin, lambda x: -x, x)
        >>> fa.jit(f)(fnp.float32(-2.0)), fa.grad(f)(fnp.array(0.5))
        (Array(2., dtype=float32), Array(0.87758255, dtype=float32, weak_type=True))
    """
    if not (callable(true_fun) and callable(false_fun)):
        _check_callable("cond", "true_fun", true_fun)
        _check_callable("cond", "false_fun", false_fun)
    if type(pred) is bool and _eager():
        return _eager_switch(int(pred), (false_fun, true_fun), operands, "cond",
                             ("false_fun", "true_fun"))
    pred = _scalar("cond", "pred", pred)
    kind = pred.dtype.kind
    if kind not in "biu":
        raise TypeError(f"cond: pred must be a boolean or integer scalar, got {pred.dtype}; "
                        f"compare it with something (x > 0) to get a boolean")
    if _eager():
        return _eager_switch(int(bool(np.asarray(pred._value))), (false_fun, true_fun),
                             operands, "cond", ("false_fun", "true_fun"))
    if kind != "b":
        pred = pred != 0
    return _staged_switch(_int32(pred), (false_fun, true_fun), operands, "cond",
                          ("false_fun", "true_fun"))


@overload
def switch(index: ArrayLike, branches: Sequence[Callable[..., ArrayLike]],
           *operands: Any) -> Array: ...
@overload
def switch(index: ArrayLike, branches: Sequence[Callable[..., _T]], *operands: Any
           ) -> _T: ...
def switch(index, branches, *operands):
    """``branches[index](*operands)``, with ``index`` clamped to ``[0, len(branches) - 1]``.

    Example:
        >>> import funcarray as fa
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> branches = [lambda x: x + 1.0, lambda x: x * 10.0, fnp.negative]
        >>> fa.vmap(lambda i, x: lax.switch(i, branches, x))(fnp.array([0, 1, 5]), fnp.ones(3))
        Array([ 2., 10., -1.], dtype=float32)
    """
    branches = tuple(branches)
    if not branches:
        raise ValueError("switch: branches must be a non-empty sequence of functions")
    if not all(map(callable, branches)):
        for k, branch in enumerate(branches):  # (the name is built only for the error)
            _check_callable("switch", f"branches[{k}]", branch)
    last = len(branches) - 1
    if type(index) is int and last and -2**31 <= index < 2**31 and _eager():
        return _eager_switch(0 if index < 0 else last if index > last else index, branches,
                             operands, "switch", _branch_names(len(branches)))
    index = _scalar("switch", "index", index)
    if index.dtype.kind not in "iu":
        raise TypeError(f"switch: index must be an integer scalar, got {index.dtype}")
    if not last:
        return _arrays("switch", branches[0](*_arrays("switch", operands)))
    if _eager():
        return _eager_switch(min(max(int(index._value), 0), last), branches, operands,
                             "switch", _branch_names(len(branches)))
    index = clamp_p.bind(Array(np.int32(0)), _int32(index), Array(np.int32(last)))
    return _staged_switch(index, branches, operands, "switch", _branch_names(len(branches)))


@functools.lru_cache(maxsize=64)
def _branch_names(n: int) -> tuple:
    return tuple(f"branches[{k}]" for k in range(n))


def _staged_switch(index, funs, operands, what, names):
    leaves, in_tree = fa_tree.flatten(tuple(operands))
    leaves = _as_leaves(what, leaves)
    avals = [x.aval for x in leaves]
    staged = [_stage_branch(fun, name, in_tree, avals, what) for fun, name in zip(funs, names)]
    calls, trees = [c for c, _ in staged], [t for _, t in staged]
    _check_same_trees(what, names, trees)
    targets = _unify_branch_types(what, names, [c.ir.out_avals for c in calls], trees[0])
    calls = [CallForm((convert_outputs(c.ir, targets), c.consts)) for c in calls]
    irs, consts = join_calls(calls)
    outs = cond_p.bind(index, *consts, *leaves, branches=irs)
    return fa_tree.unflatten(trees[0], outs)


def _unify_branch_types(what, names, per_branch, treedef) -> list:
    """One output type per leaf for all branches: shapes must agree, and dtypes too except
    that a weakly typed output (a Python scalar) adopts the inexact dtype of the others when
    promotion would give that dtype (``0`` or ``2.5`` next to a float32 output). A weak float
    next to an integer output, or a weak int next to a narrower integer one, is an error, as
    in JAX: converting it would truncate (2.7 -> 2) or wrap (300 -> 44) a value that is only
    known at run time."""
    paths = _paths(treedef)
    targets = []
    for i, avals in enumerate(zip(*per_branch)):
        strong = [(k, a) for k, a in enumerate(avals) if not a.weak_type]
        ref_k, ref = strong[0] if strong else (0, avals[0])
        for k, a in enumerate(avals):
            if a.shape != ref.shape or (a.dtype != ref.dtype and not (
                    strong and a.weak_type and _weak_adopts(a.dtype, ref.dtype))):
                hint = ""
                if a.shape == ref.shape and a.weak_type:
                    hint = (f"; a Python scalar only adopts a float or complex dtype. Return "
                            f"an array of the dtype you mean instead, e.g. "
                            f"fnp.asarray(value, {np.dtype(ref.dtype).name!r})")
                raise TypeError(
                    f"{what}: {names[ref_k]} and {names[k]} must return the same types, but "
                    f"output{paths[i]} is {ref.str_short()} in {names[ref_k]} and "
                    f"{a.str_short()} in {names[k]}{hint}")
        targets.append(ref.update(weak_type=not strong))
    return targets


def _weak_adopts(weak_dtype, strong_dtype) -> bool:
    """Whether a weakly typed value of ``weak_dtype`` converts to ``strong_dtype`` without
    changing kind: int or float into a float or complex dtype, complex into complex."""
    if dtypes.is_complex(strong_dtype):
        return True
    return dtypes.is_float(strong_dtype) and not dtypes.is_complex(weak_dtype)


def _stage_branch(fun, name, in_tree, avals, what):
    """``fun`` staged on operands of types ``avals``: ``(call form, output tree)``."""
    store = {}

    def flat(*xs):
        out_leaves, store["tree"] = fa_tree.flatten(fun(*fa_tree.unflatten(in_tree, xs)))
        return _as_leaves(f"{what}: the output of {name}", out_leaves)

    call = _stage(flat, avals)
    return call, store["tree"]


def _check_same_trees(what, names, trees) -> None:
    for name, tree in zip(names[1:], trees[1:]):
        if tree != trees[0]:
            raise TypeError(f"{what}: {names[0]} and {name} must return the same pytree "
                            f"structure, got {trees[0]} and {tree}")


# --------------------------------------------------------------------------------------------
# Eager cond / switch: the chosen branch runs on concrete values, the others are checked
# --------------------------------------------------------------------------------------------

def _eager_switch(index, funs, operands, what, names):
    """``funs[index](*operands)`` as plain Python (print and pdb work), returning what the
    staged cond would: the other branches are staged on abstract values to check that every
    branch returns the same tree and types (the errors jit raises) and to unify the output
    types (a weak output may adopt the dtype of the others). The staging is cached per branch
    code, closure value types, bound instance, operand types and the chosen output's types,
    so a cond in an eager loop stages once (a global or an object's attribute changed in
    place is not noticed). A branch
    that needs concrete values (Python control flow on them) cannot be staged: then only the
    chosen branch runs, unchecked."""
    if len(operands) == 1 and type(operands[0]) in _CONCRETE:
        in_tree, in_types = None, (_type_key(operands[0]),)  # (the tree: from their number)
    elif all(type(x) in _CONCRETE for x in operands):
        in_tree, in_types = None, tuple(map(_type_key, operands))
    else:
        operands = _arrays(what, operands)  # Python scalars as the arrays jit's branches get
        in_tree = fa_tree.structure(tuple(operands))
        in_types = tuple(map(_type_key, fa_tree.leaves(operands)))
    out = funs[index](*operands)
    if type(out) in _CONCRETE:
        out_leaves, out_tree, out_types = None, _LEAF, (_type_key(out),)
    else:
        out_leaves, out_tree = fa_tree.flatten(out)
        out_leaves = _as_leaves(f"{what}: the output of {names[index]}", out_leaves)
        out_types = tuple(map(_type_key, out_leaves))
    try:
        # (a leaf's tree as None: hashing a PyTreeDef costs ~0.25 us)
        key = ("branches", _functions_key(funs), in_tree, in_types, index,
               None if out_tree is _LEAF else out_tree, out_types)
        targets = _EAGER_STAGED.get(key)
    except TypeError:  # something unhashable in a closure: check without caching
        key, targets = None, None
    if targets is None:
        targets = _staged_targets(index, funs, operands, what, names, out, out_leaves,
                                  out_tree)
        if key is not None and targets is not None:
            _remember_staged(key, targets)
    if targets is None or targets is _KEEP:
        return out if out_tree is _LEAF else fa_tree.unflatten(out_tree, out_leaves)
    out_leaves = [out] if out_tree is _LEAF else out_leaves
    out_leaves = [x if x.aval == t else _convert(x, t) for x, t in zip(out_leaves, targets)]
    return fa_tree.unflatten(out_tree, out_leaves)


def _functions_key(funs) -> tuple:
    # (``_function_key`` of each, its commonest case inline: a branch is often a lambda; a
    # loop, as a comprehension builds a function object at each call)
    keys = []
    for fun in funs:
        if type(fun) is FunctionType and fun.__closure__ is None and fun.__defaults__ is None:
            keys.append(fun.__code__)
        else:
            keys.append(_function_key(fun))
    return tuple(keys)


def _staged_targets(index, funs, operands, what, names, out, out_leaves, out_tree):
    """``_eager_targets`` as a tuple (a cache entry), or ``_KEEP`` when the chosen output
    already has those types."""
    out_leaves = [out] if out_leaves is None else out_leaves
    targets = _eager_targets(index, funs, operands, what, names, out_tree,
                             [x.aval for x in out_leaves])
    if targets is None:
        return None
    if all(x.aval == t for x, t in zip(out_leaves, targets)):
        return _KEEP
    return tuple(targets)


# The cached targets of branches whose chosen output already has them: return it unchanged.
_KEEP = object()


def _eager_targets(index, funs, operands, what, names, out_tree, out_avals):
    """The unified output types of the branches (``out_tree``/``out_avals``: the chosen
    one's), None when another branch cannot be staged."""
    leaves, in_tree = fa_tree.flatten(tuple(operands))
    leaves = _as_leaves(what, leaves)
    avals = [x.aval for x in leaves]
    trees, per_branch = [], []
    for k, (fun, name) in enumerate(zip(funs, names)):
        if k == index:
            trees.append(out_tree)
            per_branch.append(out_avals)
            continue
        try:
            call, tree = _stage_branch(fun, name, in_tree, avals, what)
        except ConcretizationError:
            return None
        trees.append(tree)
        per_branch.append(call.ir.out_avals)
    ordered = [index] + [k for k in range(len(funs)) if k != index]  # errors name the chosen
    _check_same_trees(what, [names[k] for k in ordered], [trees[k] for k in ordered])
    return _unify_branch_types(what, names, per_branch, out_tree)


_PLATFORM_ALIASES = {"gpu": ("cuda", "rocm", "gpu"), "cuda": ("cuda",), "rocm": ("rocm",)}


def platform_dependent(*args: Any, default: Callable[..., Any] | None = None,
                       **per_platform: Callable[..., Any]) -> Any:
    """Call the function given for the platform funcarray computes on (``cpu=``, ``cuda=``,
    ``rocm=``, ``tpu=``...) on ``args``, or ``default`` when none is given for it.

    Example:
        >>> from funcarray import lax
        >>> lax.platform_dependent(3, cpu=lambda x: x + 1, default=lambda x: x)
        4
    """
    for name, fun in per_platform.items():
        if fun is not None and not callable(fun):
            raise _not_a_branch(name, fun)
    if default is not None and not callable(default):
        raise _not_a_branch("default", default)
    platform = default_backend()
    if per_platform:
        for name in _platform_names(platform):
            fun = per_platform.get(name)
            if fun is not None:
                return fun(*args)
    if default is None:
        raise op_value_error(_PLATFORM_OP, f"no branch for the platform {platform!r} "
                             f"(branches: {sorted(per_platform)}); pass default= or "
                             f"{platform}=")
    return default(*args)


_PLATFORM_OP = "lax.platform_dependent"


def _not_a_branch(name, fun) -> TypeError:
    return op_type_error(_PLATFORM_OP, f"the {name}= branch must be a function, got "
                                       f"{type(fun).__name__}")


@functools.lru_cache(maxsize=16)
def _platform_names(platform: str) -> tuple:
    """The branch names that serve ``platform``, the most specific first."""
    names = _PLATFORM_ALIASES.get(platform, (platform,))
    return (*names, "gpu") if platform in ("cuda", "rocm") else names
