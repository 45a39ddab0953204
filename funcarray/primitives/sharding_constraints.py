"""``sharding_constraint``: the primitive behind ``lax.with_sharding_constraint``.

``sharding_constraint(x, sharding=NamedSharding)`` is the identity on values that asks XLA's
partitioner to lay ``x`` out as ``sharding`` at this point of a jitted computation.
Eager: ``x`` placed with that sharding (split over the mesh's devices, as JAX does; a
``P.UNCONSTRAINED`` dimension keeps ``x``'s split where it fits);
JVP: linear, the tangent is constrained the same way; transpose: the cotangent is;
batching: the batch axis is not split (a None is inserted into the spec at it), or split
over ``vmap(spmd_axis_name=)``'s mesh axes; lowering: Shardy's ``sdy.sharding_constraint``
on the module's mesh (``@mesh``).

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.base.array import cpu_device
    >>> from funcarray.base.mesh import Mesh, PartitionSpec as P
    >>> from funcarray.base.sharding import NamedSharding
    >>> s = NamedSharding(Mesh([cpu_device()], ("x",)), P("x"))
    >>> sharding_constraint_p.bind(fnp.ones(2), sharding=s).sharding.spec
    P('x',)
"""

from __future__ import annotations

from funcarray.base.array import device_array
from funcarray.base.avals import canonical_aval
from funcarray.base.mesh import PartitionSpec
from funcarray.base.sharding import NamedSharding, canonical_sharding, placement_of
from funcarray.lowering import executor
from funcarray.transforms.core import Primitive, ShapedArray
from funcarray.transforms.jvp import Zero, deflinear
from funcarray.transforms.vmap import not_mapped, rule_spmd_axis_name

__all__ = ["sharding_constraint_p"]

sharding_constraint_p = Primitive("sharding_constraint")


def _eager_layout(x, sharding: NamedSharding) -> NamedSharding:
    """``sharding`` with its ``P.UNCONSTRAINED`` dimensions decided as XLA's partitioner
    decides them for one op: split as ``x`` already is along them, when that fits the rest
    of the spec, else not split."""
    open_dims = sharding.spec.unconstrained_dims()
    if not open_dims:
        return sharding
    have = placement_of(x)
    same_mesh = isinstance(have, NamedSharding) and have.mesh == sharding.mesh
    parts = list(sharding.spec)
    for k in open_dims:
        parts[k] = have.spec[k] if same_mesh and k < len(have.spec) else None
    try:
        return NamedSharding(sharding.mesh, PartitionSpec(*parts),
                             memory_kind=sharding.memory_kind)
    except ValueError:  # (x's axes are taken by another dimension of the spec)
        parts = [None if k in open_dims else p for k, p in enumerate(parts)]
        return NamedSharding(sharding.mesh, PartitionSpec(*parts),
                             memory_kind=sharding.memory_kind)


@sharding_constraint_p.def_impl
def _impl(x, *, sharding):
    placement = canonical_sharding(_eager_layout(x, sharding))
    if placement_of(x) is placement:
        return x
    placement.check_shape(tuple(x.shape))
    return device_array(placement, executor.to_buffer(x, placement), canonical_aval(x.aval))


@sharding_constraint_p.def_abstract_eval
def _abstract_eval(x, *, sharding):
    return ShapedArray(x.shape, x.dtype, x.weak_type)


deflinear(sharding_constraint_p)


@sharding_constraint_p.def_transpose
def _transpose(ct, x, *, sharding):
    return [None if type(ct) is Zero else sharding_constraint_p.bind(ct, sharding=sharding)]


@sharding_constraint_p.def_batch
def _batch(vals, dims, *, sharding):
    (x,), (d,) = vals, dims
    if d is not_mapped:
        return sharding_constraint_p.bind(x, sharding=sharding), d
    ndim = len(x.shape) - 1
    parts = [sharding.spec[k] if k < len(sharding.spec) else None for k in range(ndim)]
    spmd = rule_spmd_axis_name()  # vmap(spmd_axis_name=) splits the batch axis, as in JAX
    parts.insert(d, None if spmd is None else spmd[0] if len(spmd) == 1 else spmd)
    batched = NamedSharding(sharding.mesh, PartitionSpec(*parts),
                            memory_kind=sharding.memory_kind)
    return sharding_constraint_p.bind(x, sharding=batched), d


@sharding_constraint_p.def_lower
def _lower(ctx, x, *, sharding):
    attribute = ctx.sharding_attribute(sharding, len(ctx.avals_in[0].shape))
    return ctx.op("sdy.sharding_constraint", x, attributes={"sharding": attribute})
