"""Primitives that exist for differentiation: ``stop_gradient``.

Contract: ``stop_gradient(x)`` is the identity on values, and its tangent is always zero, so
nothing flows back through it. Under vmap it is applied elementwise.
"""

from __future__ import annotations

from funcarray.base.array import Array
from funcarray.transforms.core import Primitive, ShapedArray
from funcarray.transforms.jvp import Zero, tangent_aval
from funcarray.transforms.vmap import vectorized_batch_rule

stop_gradient_p = Primitive("stop_gradient")
stop_gradient_p.impl = lambda x: Array(x._value, x._weak)
stop_gradient_p.abstract_eval = lambda x: ShapedArray(x.shape, x.dtype, x.weak_type)
stop_gradient_p.batch_rule = vectorized_batch_rule(stop_gradient_p)
stop_gradient_p.lower_rule = lambda ctx, x: [x]  # the identity: no op to emit


@stop_gradient_p.def_jvp
def _stop_gradient_jvp(primals, tangents):
    (x,) = primals
    return stop_gradient_p.bind(x), Zero(tangent_aval(x.aval))
