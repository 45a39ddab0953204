"""The collectives lowered to XLA collectives over the mesh axes a ``shard_map`` body is
manual over (``shard_map.manual_mesh()``), as jax 0.10 writes them: ``stablehlo.all_reduce``
(psum, pmax, pmin), ``all_gather``, ``collective_permute`` (ppermute), ``reduce_scatter``
(psum_scatter), ``all_to_all``, each with ``replica_groups`` (or ``source_target_pairs``) over
the partitions -- positions in the mesh's row-major device order, which is the order the
module is compiled on -- ``channel_handle = <handle = 1, type = 1>`` and
``use_global_device_ids``; ``axis_index`` from ``stablehlo.partition_id`` (read inside a
computation manual over the other axes when the body is manual over some axes only, as jax
does). Outside a shard_map body the rules are the NameError of an unbound axis name.

Example:
    >>> import numpy as np
    >>> from funcarray.base.mesh import Mesh
    >>> from funcarray.base.array import cpu_device
    >>> replica_groups(Mesh(np.array([cpu_device()]).reshape(1, 1), ("a", "b")), ("b",))
    array([[0]])
"""

from __future__ import annotations

import math

import numpy as np

from funcarray.lowering.regions import binary_region, region_op
from funcarray.lowering.stablehlo import i64_array_attribute
from funcarray.primitives.collectives import (
    all_gather_p,
    all_to_all_p,
    axis_index_p,
    pmax_p,
    pmin_p,
    ppermute_p,
    psum_p,
    psum_scatter_p,
)
from funcarray.primitives.shard_map import manual_axes, manual_mesh
from funcarray.transforms.core import ShapedArray

__all__ = ["replica_groups"]

_CHANNEL = "#stablehlo.channel_handle<handle = 1, type = 1>"  # (jax 0.10 writes 1 for all)


def replica_groups(mesh, names) -> np.ndarray:
    """One row per group of partitions that a collective over mesh axes ``names`` combines;
    a row lists the group's partitions in the order of the linear index over ``names``."""
    ids = np.arange(mesh.size).reshape(mesh.axis_sizes)
    axes = list(mesh.axis_names)
    order = [axes.index(a) for a in axes if a not in names] + [axes.index(a) for a in names]
    size = math.prod(mesh.shape[a] for a in names)
    return ids.transpose(order).reshape(-1, size)


def _dense(groups: np.ndarray) -> str:
    rows = ", ".join("[" + ", ".join(str(int(v)) for v in row) + "]" for row in groups)
    return f"dense<[{rows}]> : tensor<{groups.shape[0]}x{groups.shape[1]}xi64>"


def _group_attributes(mesh, names) -> dict:
    return {"channel_handle": _CHANNEL, "replica_groups": _dense(replica_groups(mesh, names)),
            "use_global_device_ids": "unit"}


def _manual(prim, rule):
    """``rule`` while a shard_map body over the axis names is lowered, else the old rule."""
    unbound = prim.lower_rule

    def lower(ctx, *operands, axis_name, **params):
        mesh = manual_mesh()
        if mesh is None or any(a not in manual_axes() for a in axis_name):
            return unbound(ctx, *operands, axis_name=axis_name, **params)
        return rule(ctx, mesh, *operands, axis_name=axis_name, **params)

    prim.lower_rule = lower


def _reshape(ctx, x, shape):
    aval = ShapedArray(tuple(shape), ctx.type_of(x).dtype)
    return ctx.op("stablehlo.reshape", x, results=[aval])[0]


def _all_reduce(hlo_op):
    def rule(ctx, mesh, x, *, axis_name):
        dtype = ctx.type_of(x).dtype
        return region_op(ctx, "stablehlo.all_reduce", [x], [binary_region(hlo_op, [dtype])],
                         attributes=_group_attributes(mesh, axis_name))
    return rule


_manual(psum_p, _all_reduce("stablehlo.add"))
_manual(pmax_p, _all_reduce("stablehlo.maximum"))
_manual(pmin_p, _all_reduce("stablehlo.minimum"))


def _all_gather(ctx, mesh, x, *, axis_name, axis, tiled, axis_size):
    if not tiled:  # a new axis of size 1 gathered into axis_size
        shape = ctx.type_of(x).shape
        x = _reshape(ctx, x, shape[:axis] + (1,) + shape[axis:])
    return ctx.op("stablehlo.all_gather", x, attributes={
        "all_gather_dim": f"{axis} : i64", **_group_attributes(mesh, axis_name)})


_manual(all_gather_p, _all_gather)


def _ppermute(ctx, mesh, x, *, axis_name, perm):
    pairs = [(int(row[src]), int(row[dst])) for row in replica_groups(mesh, axis_name)
             for src, dst in perm]
    text = ", ".join(f"[{s}, {t}]" for s, t in pairs) if pairs else ""
    return ctx.op("stablehlo.collective_permute", x, attributes={
        "channel_handle": _CHANNEL,
        "source_target_pairs": f"dense<[{text}]> : tensor<{len(pairs)}x2xi64>"})


_manual(ppermute_p, _ppermute)


def _axis_index(ctx, mesh, *, axis_name):
    automatic = [a for a in mesh.axis_names if a not in manual_axes()]
    if not automatic:
        return [_index_from_partition_id(ctx, mesh, axis_name)]
    # In a body manual over some axes only, the partition id is read inside a computation
    # manual over the others (as jax writes it): XLA's partitioner must not split it.
    i32 = ShapedArray((), np.dtype(np.int32))
    name = ctx.fresh(i32)
    others = ", ".join(f'"{a}"' for a in automatic)
    ctx.emit(f'{name} = "sdy.manual_computation"() ({{')
    builder = ctx._builder
    saved = builder.indent
    builder.indent = saved + "  "
    ctx.emit("^bb0():")
    builder.indent = saved + "    "
    try:
        index = _index_from_partition_id(ctx, mesh, axis_name)
        ctx.emit(f'"sdy.return"({index}) : (tensor<i32>) -> ()')
    finally:
        builder.indent = saved
    ctx.emit(f"}}) {{in_shardings = #sdy.sharding_per_value<[]>, manual_axes = "
             f"#sdy<manual_axes{{{others}}}>, out_shardings = "
             f"#sdy.sharding_per_value<[<@mesh, []>]>}} : () -> (tensor<i32>)")
    return [name]


def _index_from_partition_id(ctx, mesh, axis_name):
    u32, i32 = ShapedArray((), np.dtype(np.uint32)), ShapedArray((), np.dtype(np.int32))
    pid = ctx.op("stablehlo.partition_id", results=[u32])[0]
    index = None
    for name in axis_name:  # the linear index over the names, the first one major
        k = mesh.axis_names.index(name)
        stride = math.prod(mesh.axis_sizes[k + 1:])
        own = ctx.op("stablehlo.divide", pid, ctx.constant(stride, u32), results=[u32])[0]
        own = ctx.op("stablehlo.remainder", own, ctx.constant(mesh.shape[name], u32),
                     results=[u32])[0]
        own = ctx.op("stablehlo.convert", own, results=[i32])[0]
        if index is None:
            index = own
        else:
            index = ctx.op("stablehlo.multiply", index, ctx.constant(mesh.shape[name], i32),
                           results=[i32])[0]
            index = ctx.op("stablehlo.add", index, own, results=[i32])[0]
    return index


_manual(axis_index_p, _axis_index)


def _psum_scatter(ctx, mesh, x, *, axis_name, scatter_dimension, tiled, axis_size):
    aval = ctx.type_of(x)
    shape = list(aval.shape)
    shape[scatter_dimension] //= axis_size
    out = region_op(ctx, "stablehlo.reduce_scatter", [x],
                    [binary_region("stablehlo.add", [aval.dtype])],
                    results=[ShapedArray(tuple(shape), aval.dtype)],
                    attributes={**_group_attributes(mesh, axis_name),
                                "scatter_dimension": f"{scatter_dimension} : i64"})[0]
    if not tiled:  # the dimension of size 1 left is dropped
        out = _reshape(ctx, out, ctx.avals_out[0].shape)
    return [out]


_manual(psum_scatter_p, _psum_scatter)


def _all_to_all(ctx, mesh, x, *, axis_name, split_axis, concat_axis, tiled, axis_size):
    groups = _group_attributes(mesh, axis_name)
    del groups["use_global_device_ids"]  # (stablehlo.all_to_all has no such attribute)
    if tiled:
        return ctx.op("stablehlo.all_to_all", x, attributes={
            **groups, "concat_dimension": f"{concat_axis} : i64",
            "split_count": f"{axis_size} : i64", "split_dimension": f"{split_axis} : i64"})
    # Not tiled: exchange the entries of split_axis in place (entry j then comes from member
    # j), then move that axis to concat_axis.
    aval = ctx.type_of(x)
    y = ctx.op("stablehlo.all_to_all", x, results=[aval], attributes={
        **groups, "concat_dimension": f"{split_axis} : i64",
        "split_count": f"{axis_size} : i64", "split_dimension": f"{split_axis} : i64"})[0]
    perm = [d for d in range(aval.ndim) if d != split_axis]
    perm.insert(concat_axis, split_axis)
    return ctx.op("stablehlo.transpose", y,
                  attributes={"permutation": i64_array_attribute(perm)})


_manual(all_to_all_p, _all_to_all)
