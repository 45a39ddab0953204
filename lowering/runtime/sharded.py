"""Sharded arrays and SPMD executables: placing host data over a mesh, assembling arrays
from per-device pieces, and compiling for all of a mesh's devices with Shardy
(docs/decisions.md, "Sharding")."""

from __future__ import annotations

import numpy as np

from funcarray.base.lru_cache import LRUCache
from funcarray.lowering.runtime.compiling import (
    Executable,
    _compile_options,
    _normalize_avals,
    _with_text_context,
)
from funcarray.lowering.runtime.devices_and_processes import devices, process_index
from funcarray.lowering.runtime.loading import CompileError, _jax, _modules
from funcarray.lowering.runtime.transfers import _as_aval

# funcarray NamedSharding -> jax NamedSharding over the runtime's devices (bounded).
_jax_shardings = LRUCache(1024)


def _runtime_devices_of(mesh) -> list:
    """The runtime devices of a funcarray ``mesh``, in row-major mesh order."""
    by_id = {d.id: d for d in devices(mesh.flat_devices[0].platform)}
    try:
        return [by_id[d.id] for d in mesh.flat_devices]
    except KeyError:
        raise ValueError(f"the mesh {mesh} names devices this process does not have: "
                         f"{[d for d in mesh.flat_devices if d.id not in by_id]}; available: "
                         f"{sorted(by_id)}") from None


def _jax_sharding(sharding):
    """The jax ``NamedSharding`` with ``sharding``'s layout: jaxlib's transfers and result
    handlers take jax's sharding objects. Every axis is ``Auto`` there: the layout is all
    jaxlib needs (funcarray reads axis types itself)."""
    found = _jax_shardings.get(sharding)
    if found is None:
        jax, _ = _jax()
        mesh = sharding.mesh
        grid = np.empty(mesh.size, dtype=object)
        grid[:] = _runtime_devices_of(mesh)
        jmesh = jax.sharding.Mesh(grid.reshape(mesh.axis_sizes), mesh.axis_names,
                                  axis_types=(jax.sharding.AxisType.Auto,) * len(
                                      mesh.axis_names))
        spec = jax.sharding.PartitionSpec(*(
            None if not axes else axes[0] if len(axes) == 1 else axes
            for axes in sharding.spec.normalized()))
        found = jax.sharding.NamedSharding(jmesh, spec, memory_kind=sharding.memory_kind)
        _jax_shardings.put(sharding, found)
    return found


def device_put_sharded(value, sharding):
    """Copy NumPy ``value`` onto the devices of funcarray NamedSharding ``sharding``, each
    device getting its block (one multi-device array; jaxlib's ``batched_device_put`` with a
    shard per device, as ``jax.device_put`` does). The shape must fit the sharding (the
    caller checked it: ``NamedSharding.check_shape``)."""
    jax, xc = _jax()
    value = np.asarray(value)
    layout = sharding.shard_layout(value.shape)
    by_id = {d.id: d for d in _runtime_devices_of(sharding.mesh)}
    # Each shard is a copy of its own. jaxlib 0.10.2 (verified): with a copying
    # host_buffer_semantics, shards that are views of one host array raise "RuntimeError:
    # bad_function_call" for a partly replicated sharding (P("b") on a 2x4 mesh), though
    # not for a fully replicated or fully split one; distinct copies always work. A 0-d
    # value stays 0-d (np.ascontiguousarray would make it 1-d, which jaxlib accepts for a
    # 0-d array and then hands back as a 1-d value).
    # In a multi-process job each process puts the blocks of the devices it drives (every
    # process holds the whole value, as jax.device_put assumes there).
    here = process_index(sharding.mesh.flat_devices[0].platform)
    layout = [entry for entry in layout if by_id[entry[0].id].process_index == here]
    shards = [np.array(value[index] if index else value, order="C", copy=True)
              for _, index, _ in layout]
    try:
        return xc.batched_device_put(
            _as_aval(value.shape, value.dtype), _jax_sharding(sharding), shards,
            [by_id[d.id] for d, _, _ in layout], committed=True,
            host_buffer_semantics=xc.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL,
            enable_x64=True)
    except jax.errors.JaxRuntimeError as exc:
        raise TypeError(f"device_put: cannot copy a {value.dtype.name}{list(value.shape)} "
                        f"array to {sharding}: {exc}") from None


def assemble_sharded(shape, dtype, sharding, pieces):
    """One multi-device array of ``shape`` and ``dtype`` laid out as funcarray
    NamedSharding ``sharding`` from ``pieces``, single-device arrays in the sharding's mesh
    order (each the block its device holds; the caller checked shapes, dtypes and devices:
    jaxlib's own checks abort on some mismatches)."""
    jax, _ = _jax()
    from jax._src.array import ArrayImpl

    # (ArrayImpl, not jax.make_array_from_single_device_arrays: that one canonicalises the
    # dtype through jax's x64 flag; funcarray keeps 64-bit types without it)
    return ArrayImpl(_as_aval(shape, dtype), _jax_sharding(sharding), list(pieces),
                     committed=True)


def single_device_pieces(buffer) -> dict:
    """``{device id: single-device array}`` of a multi-device array's pieces."""
    return {s.device.id: s.data for s in buffer.addressable_shards}


def compile_spmd(text: str, in_avals, out_avals, mesh, host_callbacks=(),
                 compiler_options=(), shardings=None) -> Executable:
    """Compile StableHLO ``text`` that carries Shardy annotations (``sdy.mesh @mesh`` and
    ``sdy.sharding`` on ``@main``'s parameters and results) for the devices of funcarray
    ``mesh``, partitioned by XLA's SPMD partitioner (Shardy): one partition per device, in
    row-major mesh order. The executable's parameter and result shardings (those the text
    gave, and those the partitioner chose for the others) are read back as funcarray
    NamedShardings over ``mesh``: ``in_placements``/``out_placements``. ``shardings`` (the
    ``(in, out)`` the text was annotated with, NamedSharding or None each) stand for what
    a one-device executable does not report."""
    jax, xc = _jax()
    from jax._src import sharding_impls

    from funcarray.base.mesh import PartitionSpec
    from funcarray.base.sharding import NamedSharding, canonical_sharding

    devs = _runtime_devices_of(mesh)
    options = _compile_options(xc, compiler_options)
    options.num_replicas = 1
    options.num_partitions = len(devs)
    options.executable_build_options.use_spmd_partitioning = True
    options.executable_build_options.use_shardy_partitioner = True
    # Partition k runs on the k-th device of the mesh (row-major). Verified on jaxlib 0.10.2:
    # the DeviceList given to compile_and_load does not set this, the default assignment is
    # the devices in id order, and a mesh of other order then gets buffers on devices its
    # partitions do not run on: an E0102 log line, then a segmentation fault at execution.
    options.executable_build_options.device_assignment = xc.DeviceAssignment.create(
        np.array([[d.id for d in devs]], dtype=np.int64))
    try:
        if host_callbacks:
            from jax._src.interpreters import mlir
            from jax._src.lib.mlir import ir

            with mlir.make_ir_context():
                module = ir.Module.parse(text)
                loaded = devs[0].client.compile_and_load(
                    module, xc.DeviceList(tuple(devs)), options,
                    host_callbacks=list(host_callbacks))
        else:
            loaded = devs[0].client.compile_and_load(text, xc.DeviceList(tuple(devs)), options)
    except jax.errors.JaxRuntimeError as exc:
        raise CompileError(_with_text_context(str(exc), text)) from None
    jmesh = _jax_sharding(NamedSharding(mesh, PartitionSpec())).mesh

    def placements(op_shardings, given):
        # jaxlib 0.10.2 (verified): an executable of one partition (a 1-device mesh) reports
        # None here instead of a list; everything is on that one device, so the annotated
        # shardings (or replicated ones) describe it.
        if op_shardings is None:
            return tuple(canonical_sharding(s if s is not None else
                                            NamedSharding(mesh, PartitionSpec()))
                         for s in given)
        out = []
        for op in op_shardings:
            spec = sharding_impls.parse_flatten_op_sharding(op, jmesh)[0]
            out.append(canonical_sharding(NamedSharding(mesh, PartitionSpec(*spec))))
        return tuple(out)

    in_avals, out_avals = _normalize_avals(in_avals), _normalize_avals(out_avals)
    given_in, given_out = shardings or ((), ())
    in_placements = placements(loaded.get_parameter_shardings(),
                               given_in or (None,) * len(in_avals))
    out_placements = placements(loaded.get_output_shardings(),
                                given_out or (None,) * len(out_avals))
    if _modules["legacy_handlers"]:
        handlers = [xc.array_result_handler(_as_aval(*a), _jax_sharding(p), True,
                                            _skip_checks=True)
                    for a, p in zip(out_avals, out_placements)]
    else:
        handlers = [xc.array_result_handler(_as_aval(*a), _jax_sharding(p), True)
                    for a, p in zip(out_avals, out_placements)]
    return Executable(loaded, in_avals, out_avals, devs[0], text, handlers, in_placements,
                      out_placements)
