"""Checkpoint (remat) policies and ``name``, the primitive ``checkpoint_name`` binds.

A policy decides, under ``checkpoint``, which intermediate values reverse mode may *save* for
the backward pass; everything else the backward pass *recomputes* from what was saved (and
from the checkpoint's inputs, which are always saved). It is called once per equation of
the checkpointed function's linearisation that computes a value the backward pass reads, as
``policy(prim, *input_avals, **params) -> bool`` (JAX's convention, so JAX policies written
against primitive names port unchanged), and the split itself is
``transforms/partial_eval.partial_eval_ir(..., saveable=)``.

``name(x, name=...)`` is the identity on values. It exists so that a policy can recognise a
value: ``checkpoint_name(h, "hidden")`` marks ``h``, and ``save_only_these_names("hidden")``
saves exactly the values so marked. Its tangent passes through unnamed (as in JAX), so only
the primal value carries the name; under vmap it names the batched value; lowering emits
nothing.

Policies returning JAX's "offload" decisions (``offload_dot_with_no_batch_dims``,
``save_and_offload_only_these_names``) *save* the values in device memory here: funcarray
has no host-memory spaces, and the numbers are the same.

Example:
    >>> pol = save_only_these_names("hidden")
    >>> pol(name_p, None, name="hidden"), pol(name_p, None, name="other")
    (True, False)
    >>> pol
    save_only_these_names('hidden')
"""

from __future__ import annotations

from funcarray.primitives.dot_general import dot_general_p
from funcarray.transforms.core import Primitive, ShapedArray
from funcarray.transforms.vmap import vectorized_batch_rule

__all__ = [
    "name_p", "Policy", "everything_saveable", "nothing_saveable", "dots_saveable",
    "dots_with_no_batch_dims_saveable", "save_only_these_names", "save_any_names_but_these",
    "save_anything_except_these_names", "save_from_both_policies",
    "offload_dot_with_no_batch_dims", "save_and_offload_only_these_names", "equation_saveable",
]

name_p = Primitive("name")
name_p.impl = lambda x, *, name: x  # arrays are immutable: the value itself
name_p.abstract_eval = lambda x, *, name: ShapedArray(x.shape, x.dtype, x.weak_type)
name_p.batch_rule = vectorized_batch_rule(name_p)
name_p.lower_rule = lambda ctx, x, *, name: [x]  # the identity: no op to emit


@name_p.def_jvp
def _name_jvp(primals, tangents, *, name):
    (x,), (t,) = primals, tangents
    return name_p.bind(x, name=name), t  # the tangent is not named (JAX's rule)


class Policy:
    """A named policy: ``fn(prim, *avals, **params) -> bool`` with a readable ``repr`` (it is
    printed in the IR's ``checkpoint[policy=...]``)."""

    __slots__ = ("fn", "label")

    def __init__(self, fn, label: str):
        self.fn = fn
        self.label = label

    def __call__(self, prim, *avals, **params) -> bool:
        return self.fn(prim, *avals, **params)

    def __repr__(self):
        return self.label


def _names_label(policy_name: str, names) -> str:
    return f"{policy_name}({', '.join(repr(n) for n in names)})"


def _check_names(policy_name: str, names) -> frozenset:
    for n in names:
        if not isinstance(n, str):
            raise TypeError(f"checkpoint_policies.{policy_name}: names are strings (as given to "
                            f"checkpoint_name), got {n!r} of type {type(n).__name__}")
    return frozenset(names)


def _has_no_batch_dims(params) -> bool:
    (_, _), (lhs_batch, rhs_batch) = params["dimension_numbers"]
    return not lhs_batch and not rhs_batch


everything_saveable = Policy(lambda prim, *_, **__: True, "everything_saveable")
nothing_saveable = Policy(lambda prim, *_, **__: False, "nothing_saveable")
dots_saveable = Policy(lambda prim, *_, **__: prim is dot_general_p, "dots_saveable")
dots_with_no_batch_dims_saveable = Policy(
    lambda prim, *_, **params: prim is dot_general_p and _has_no_batch_dims(params),
    "dots_with_no_batch_dims_saveable")


def save_only_these_names(*names) -> Policy:
    """Save only the values marked by ``checkpoint_name`` with one of ``names``."""
    keep = _check_names("save_only_these_names", names)
    return Policy(lambda prim, *_, **params: prim is name_p and params["name"] in keep,
                  _names_label("save_only_these_names", names))


def save_any_names_but_these(*names) -> Policy:
    """Save only named values (``checkpoint_name``), except those named ``names``."""
    skip = _check_names("save_any_names_but_these", names)
    return Policy(lambda prim, *_, **params: prim is name_p and params["name"] not in skip,
                  _names_label("save_any_names_but_these", names))


def save_anything_except_these_names(*names) -> Policy:
    """Save every value except those named ``names`` (which are recomputed).

    (JAX's version of this policy saves everything, names included; this one does what its
    name says.)"""
    skip = _check_names("save_anything_except_these_names", names)
    return Policy(lambda prim, *_, **params: prim is not name_p or params["name"] not in skip,
                  _names_label("save_anything_except_these_names", names))


def save_from_both_policies(policy_1, policy_2) -> Policy:
    """Save a value when either policy would."""
    for p in (policy_1, policy_2):
        if not callable(p):
            raise TypeError(f"checkpoint_policies.save_from_both_policies: expected two "
                            f"policies (callables), got {p!r}")
    return Policy(lambda prim, *avals, **params: bool(policy_1(prim, *avals, **params))
                  or bool(policy_2(prim, *avals, **params)),
                  f"save_from_both_policies({policy_1!r}, {policy_2!r})")


def offload_dot_with_no_batch_dims(offload_src, offload_dst) -> Policy:
    """JAX offloads these dots' outputs to host memory; funcarray saves them (module
    docstring): ``dots_with_no_batch_dims_saveable``."""
    return Policy(dots_with_no_batch_dims_saveable.fn,
                  f"offload_dot_with_no_batch_dims({offload_src!r}, {offload_dst!r})")


def save_and_offload_only_these_names(*, names_which_can_be_saved,
                                      names_which_can_be_offloaded, offload_src,
                                      offload_dst) -> Policy:
    """``save_only_these_names`` of both lists (offloading is saving here; module docstring).
    The lists must not share a name, as in JAX."""
    saved = _check_names("save_and_offload_only_these_names", names_which_can_be_saved)
    offloaded = _check_names("save_and_offload_only_these_names", names_which_can_be_offloaded)
    if saved & offloaded:
        raise ValueError(
            f"checkpoint_policies.save_and_offload_only_these_names: a name is either saved or "
            f"offloaded, not both; {sorted(saved & offloaded)} appear in both lists")
    keep = saved | offloaded
    return Policy(lambda prim, *_, **params: prim is name_p and params["name"] in keep,
                  f"save_and_offload_only_these_names(saved={sorted(saved)}, "
                  f"offloaded={sorted(offloaded)}, {offload_src!r} -> {offload_dst!r})")


def equation_saveable(policy):
    """``saveable(eqn) -> bool`` for ``partial_eval_ir``: ``policy`` asked about one equation
    (its primitive, its operands' avals and its params). A policy's error names it."""
    def saveable(eqn) -> bool:
        try:
            decision = policy(eqn.prim, *(x.aval for x in eqn.inputs), **eqn.params)
        except Exception as exc:
            exc.add_note(f"(raised by the checkpoint policy {policy!r}, asked about an "
                         f"equation of primitive '{eqn.prim.name}')")
            raise
        return bool(decision)
    return saveable
