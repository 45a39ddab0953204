"""Rematerialisation: ``checkpoint`` (``remat``), its policies, ``checkpoint_name`` and the
residual inspectors, as in ``jax.ad_checkpoint``.

``checkpoint(f, policy=...)`` makes reverse mode save only some of ``f``'s intermediate
values for the backward pass and recompute the others there, trading compute for memory.
The policy (``checkpoint_policies``) says which values may be saved: none but the inputs
(the default), the outputs of matrix products (``dots_saveable``), values marked with
``checkpoint_name`` (``save_only_these_names``), or any ``policy(prim, *avals, **params)``
of your own. ``saved_residuals``/``print_saved_residuals`` list what reverse mode would save,
so the effect of a policy can be read rather than guessed.

The mechanism is in ``primitives/custom_derivatives.py`` (the checkpoint primitive) and
``transforms/partial_eval.py`` (the split into saved and recomputed values); the policies
are in ``primitives/remat_policies.py``.

Example:
    >>> import funcarray as fa
    >>> import funcarray.numpy as fnp
    >>> from funcarray.ad_checkpoint import checkpoint_name, print_saved_residuals
    >>> def layer(w, x):
    ...     h = checkpoint_name(fnp.tanh(w @ x), "h")
    ...     return fnp.sum(fnp.sin(h))
    >>> pol = fa.checkpoint_policies.save_only_these_names("h")
    >>> print_saved_residuals(fa.checkpoint(layer, policy=pol), fnp.ones((2, 2)), fnp.ones(2))
    f32[2,2] from the argument w
    f32[2] from the argument x
    f32[2] named 'h'
"""

from __future__ import annotations

import functools
import inspect
import types
from typing import TYPE_CHECKING

from funcarray.api.custom_derivatives import (
    _as_leaves,
    _check_argnums,
    _flat_body,
    _fun_name,
    _resolve_kwargs,
    _split_args,
    _stage_body,
    argnames_to_argnums,
)
from funcarray.base import pytrees as fa_tree
from funcarray.base.errors import api_boundary
from funcarray.primitives import remat_policies as _policies
from funcarray.primitives.custom_derivatives import checkpoint_p
from funcarray.primitives.remat_policies import name_p
from funcarray.transforms.autodiff import linearize_flat
from funcarray.transforms.core import EVAL_TRACE, current_trace
from funcarray.transforms.ir import Lit
from funcarray.transforms.staging import stage_flat

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, TypeVar

    from funcarray.transforms.core import ShapedArray

    _F = TypeVar("_F", bound=Callable[..., Any])
    _T = TypeVar("_T")

__all__ = ["checkpoint", "remat", "checkpoint_policies", "checkpoint_name", "saved_residuals",
           "print_saved_residuals"]

checkpoint_policies = types.SimpleNamespace(
    everything_saveable=_policies.everything_saveable,
    nothing_saveable=_policies.nothing_saveable,
    dots_saveable=_policies.dots_saveable,
    checkpoint_dots=_policies.dots_saveable,
    dots_with_no_batch_dims_saveable=_policies.dots_with_no_batch_dims_saveable,
    checkpoint_dots_with_no_batch_dims=_policies.dots_with_no_batch_dims_saveable,
    offload_dot_with_no_batch_dims=_policies.offload_dot_with_no_batch_dims,
    save_anything_except_these_names=_policies.save_anything_except_these_names,
    save_any_names_but_these=_policies.save_any_names_but_these,
    save_only_these_names=_policies.save_only_these_names,
    save_from_both_policies=_policies.save_from_both_policies,
    save_and_offload_only_these_names=_policies.save_and_offload_only_these_names,
)
checkpoint_policies.__doc__ = """JAX's checkpoint policies (``jax.checkpoint_policies``): see
``funcarray/primitives/remat_policies.py``."""


def _policy_param(policy):
    """The checkpoint primitive's ``policy`` parameter: None for nothing_saveable (the
    default: only the inputs are saved), else the policy itself."""
    if policy is None or policy is _policies.nothing_saveable:
        return None
    if not callable(policy):
        raise TypeError(
            f"checkpoint: policy must be None or a callable policy(prim, *avals, **params) -> "
            f"bool (see funcarray.checkpoint_policies), got {policy!r} of type "
            f"{type(policy).__name__}")
    return policy


def checkpoint(fun: _F, *, prevent_cse: bool = True, policy: Callable[..., bool] | None = None,
               static_argnums: int | Sequence[int] = (),
               static_argnames: str | Sequence[str] = ()) -> _F:
    """Rematerialisation: the backward pass recomputes ``fun``'s intermediates from its inputs
    instead of saving them (JAX's ``jax.checkpoint``, alias ``remat``).

    Arguments:
        fun: a function of arrays (pytrees) returning a pytree of arrays.
        prevent_cse: keep XLA from merging the recomputation with the forward computation
            under ``jit`` (an optimization barrier on the checkpoint's inputs).
        policy: which intermediate values reverse mode may save (the rest is recomputed):
            None (= ``checkpoint_policies.nothing_saveable``: only the inputs), a policy from
            ``checkpoint_policies`` (``dots_saveable``, ``save_only_these_names(...)``, ...;
            ``everything_saveable`` turns rematerialisation off), or your own
            ``policy(prim, *input_avals, **params) -> bool``, asked about each equation
            whose value the backward pass reads.
        static_argnums: arguments passed to ``fun`` as Python values (not traced).
        static_argnames: the same, by parameter name.

    Example:
        >>> import funcarray as fa
        >>> import funcarray.numpy as fnp
        >>> f = fa.checkpoint(lambda x: fnp.sin(fnp.sin(x)))
        >>> fa.grad(lambda x: f(x).sum())(fnp.zeros(2))
        Array([1., 1.], dtype=float32)
    """
    if not callable(fun):
        raise TypeError(f"checkpoint: expected a function, got {type(fun).__name__}")
    policy_param = _policy_param(policy)
    name = _fun_name(fun)
    if static_argnames:
        numbers = (static_argnums,) if isinstance(static_argnums, int) else static_argnums
        static_argnums = tuple(numbers) + argnames_to_argnums(
            "checkpoint", "static_argnames", fun, static_argnames)

    @functools.wraps(fun)
    def checkpointed(*args, **kwargs):
        args = _resolve_kwargs(fun, args, kwargs)
        if current_trace() is EVAL_TRACE:
            return fun(*args)
        positions = _check_argnums("checkpoint's static_argnums", name, static_argnums,
                                   len(args)) if static_argnums != () else ()
        static, dyn = _split_args(args, positions)
        leaves, in_tree = fa_tree.flatten(dyn)
        leaves = _as_leaves(name, leaves)
        store = {}
        call = _stage_body(_flat_body(fun, static, in_tree, name, store), leaves)
        outs = checkpoint_p.bind(*call.consts, *leaves, call=call.ir, prevent_cse=prevent_cse,
                                 policy=policy_param, name=name)
        return fa_tree.unflatten(store["out_tree"], outs)

    return api_boundary(checkpointed)


remat = checkpoint


@api_boundary
def checkpoint_name(x: _T, name: str) -> _T:
    """Mark ``x`` (an array or a pytree of arrays) with ``name`` for checkpoint policies such
    as ``save_only_these_names``; the identity on values.

    Example:
        >>> import funcarray.numpy as fnp
        >>> checkpoint_name(fnp.ones(2), "h")
        Array([1., 1.], dtype=float32)
    """
    if not isinstance(name, str):
        raise TypeError(f"checkpoint_name: name must be a string, got {name!r} of type "
                        f"{type(name).__name__}")
    if current_trace() is EVAL_TRACE:
        return x  # the identity: nothing to mark outside a transform
    leaves, tree = fa_tree.flatten(x)
    leaves = _as_leaves("checkpoint_name", leaves)
    return fa_tree.unflatten(tree, [name_p.bind(leaf, name=name) for leaf in leaves])


@api_boundary
def saved_residuals(fun: Callable[..., Any], *args: Any, **kwargs: Any
                    ) -> list[tuple[ShapedArray, str]]:
    """What reverse mode saves for the backward pass of ``fun(*args, **kwargs)``: a list of
    ``(aval, description)``, one per saved value (JAX's ``saved_residuals``). The description
    says where the value comes from: an argument (by name), a value marked with
    ``checkpoint_name``, the output of a primitive, or a constant ``fun`` closes over.

    Example:
        >>> import funcarray as fa
        >>> import funcarray.numpy as fnp
        >>> [desc for _, desc in saved_residuals(lambda x: fnp.sin(fnp.sin(x)), fnp.ones(3))]
        ['output of cos', 'output of cos']
    """
    leaves, in_tree = fa_tree.flatten((args, kwargs))
    leaves = _as_leaves("saved_residuals", leaves)
    names = _argument_names(fun, args, kwargs)

    def flat_fun(*xs):
        a, k = fa_tree.unflatten(in_tree, list(xs))
        out_leaves, _ = fa_tree.flatten(fun(*a, **k))
        return _as_leaves(f"the output of {_fun_name(fun)}", out_leaves)

    # linearised under a staging trace, so each residual is a traced value with an origin
    staged = stage_flat(lambda *xs: list(linearize_flat(flat_fun, xs)[1].consts),
                        [x.aval for x in leaves]).ir
    producers = {v: eqn for eqn in staged.eqns for v in eqn.outs}
    args_by_var = dict(zip(staged.in_binders, names))
    position = {v: i for i, v in enumerate(staged.in_binders)}
    # Arguments first, in argument order, then the other values in the order the backward
    # pass reads them (JAX's listing), each once.
    residuals = dict.fromkeys(_passed_through(x, producers) for x in staged.outs)
    ordered = sorted(residuals, key=lambda x: position.get(x, len(position)))
    return [(x.aval, _origin(x, producers, args_by_var)) for x in ordered]


def print_saved_residuals(fun: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    """Print ``saved_residuals(fun, *args, **kwargs)``, a line per saved value."""
    for aval, description in saved_residuals(fun, *args, **kwargs):
        print(aval.str_short(short_dtypes=True), description)  # (JAX's form)


def _argument_names(fun, args, kwargs) -> list:
    """A readable name per flat argument leaf: the parameter's name, with the key path into
    a pytree argument (``params['w']``)."""
    from funcarray.base.tree_util import keystr, tree_flatten_with_path

    try:
        bound = inspect.signature(fun).bind(*args, **kwargs)
        labels = list(bound.arguments)
    except (TypeError, ValueError):
        labels = []
    names = []
    for i, a in enumerate(args):
        label = labels[i] if i < len(labels) else f"args[{i}]"
        names += [label + keystr(p) for p, _ in tree_flatten_with_path(a)[0]]
    for k in kwargs:
        names += [k + keystr(p) for p, _ in tree_flatten_with_path(kwargs[k])[0]]
    return names


def _passed_through(atom, producers):
    """``atom``, or the operand it is when a checkpoint equation merely passes it through
    (the known half of a checkpoint returns the inputs it saves)."""
    while type(atom) is not Lit:
        eqn = producers.get(atom)
        if eqn is None or eqn.prim is not checkpoint_p:
            break
        body = eqn.params["call"]
        inner = body.outs[eqn.outs.index(atom)]
        if inner not in body.in_binders:
            break
        atom = eqn.inputs[body.in_binders.index(inner)]
    return atom


def _origin(atom, producers, args_by_var) -> str:
    """Where a staged value comes from, looking into the checkpoint equations that carry
    saved values out of a checkpointed function."""
    atom = _passed_through(atom, producers)
    if type(atom) is Lit:
        return "a literal constant"
    if atom in args_by_var:
        return f"from the argument {args_by_var[atom]}"
    eqn = producers.get(atom)
    if eqn is None:
        return "a constant the function closes over"
    if eqn.prim is name_p:
        return f"named {eqn.params['name']!r}"
    if eqn.prim is not checkpoint_p:
        return f"output of {eqn.prim.name}"
    body = eqn.params["call"]
    inner = body.outs[eqn.outs.index(atom)]
    return _origin(inner, {v: e for e in body.eqns for v in e.outs}, {})
