"""Transposition of linear IR: the backward pass of reverse-mode differentiation.

``backward_pass(ir, consts, cotangents_out)`` runs a linear function's IR backwards: every
equation that depends on the IR's inputs is linear in them, and its primitive's
``transpose_rule`` maps the cotangent of its outputs to cotangents of its linear inputs.
Equations that do not depend on the inputs (known values) are evaluated forwards first.

Transpose rules have the signature ``transpose_rule(ct, *invals, **params)`` where ``ct`` is
the output cotangent (a list for multiple-result primitives) and each ``inval`` is either a
known value or an ``UndefPrimal`` (a linear input, of which only the aval is known). The rule
returns one cotangent per input: ``None`` (or a ``Zero``) for known inputs and for linear
inputs that receive nothing.

Cotangents of a variable used several times are summed (``support.ops.add``); symbolic zeros
are never materialised until an input's final cotangent is returned.
"""

from __future__ import annotations

from funcarray.transforms import support
from funcarray.transforms.core import ShapedArray
from funcarray.transforms.ir import IR, Lit
from funcarray.transforms.jvp import Zero, instantiate

__all__ = ["UndefPrimal", "backward_pass", "is_undefined"]


class UndefPrimal:
    """A linear input of a transpose rule: its value is what the rule is solving for."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    def __repr__(self):
        return f"UndefPrimal({self.aval.str_short()})"


def is_undefined(x) -> bool:
    return type(x) is UndefPrimal


def backward_pass(ir: IR, consts, cotangents_out) -> list:
    """Cotangents of ``ir``'s inputs given cotangents of its outputs.

    ``cotangents_out`` entries may be ``Zero``. Returns one cotangent per input, with symbolic
    zeros instantiated, so the result is always a list of arrays.
    """
    known = dict(zip(ir.const_binders, consts))
    linear = set(ir.in_binders)
    linear_eqns = []
    # (Loops written out, without generators: this runs once per equation of every eager
    # grad. ``x in linear`` is False for a Lit, which hashes by identity.)
    for eqn in ir.eqns:
        for x in eqn.inputs:
            if x in linear:
                linear.update(eqn.outs)
                linear_eqns.append(eqn)
                break
        else:  # a known value: compute it now, forwards
            out = eqn.prim.bind(*(_read(known, x) for x in eqn.inputs), **eqn.params)
            known.update(zip(eqn.outs, out if eqn.prim.multiple_results else [out]))

    cts = {}

    def add_ct(var, ct):
        if ct is None or type(ct) is Zero:
            return
        cts[var] = support.ops.add(cts[var], ct) if var in cts else ct

    for var, ct in zip(ir.outs, cotangents_out):
        if var in linear:
            add_ct(var, ct)

    for eqn in reversed(linear_eqns):
        if eqn.prim.multiple_results:
            outs_ct = [cts.pop(v, None) for v in eqn.outs]
            if all(ct is None for ct in outs_ct):
                continue
            ct_arg = [Zero(v.aval) if ct is None else ct for v, ct in zip(eqn.outs, outs_ct)]
        else:
            ct_arg = cts.pop(eqn.outs[0], None)
            if ct_arg is None:
                continue
        invals = [UndefPrimal(x.aval) if x in linear else
                  x.value if type(x) is Lit else known[x] for x in eqn.inputs]
        cts_in = eqn.prim.transpose_rule(ct_arg, *invals, **eqn.params)
        for x, ct in zip(eqn.inputs, cts_in):
            if x in linear:
                add_ct(x, ct)

    return [instantiate(cts.get(v, Zero(v.aval))) for v in ir.in_binders]


def _read(env, x):
    return x.value if type(x) is Lit else env[x]
