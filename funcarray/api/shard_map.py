"""``shard_map``: run a function once per device of a mesh on its block of each argument, with
collectives over the mesh axes (``lax.psum(x, "i")``...) lowered to XLA collectives.

The body is staged once per signature at the per-device block shapes, with the mesh axes
bound as named axes (so ``lax.psum``/``all_gather``... accept them and know their sizes), and
bound as ``shard_map_p`` (``primitives/shard_map.py``), which lowers to Shardy's
``sdy.manual_computation``. Called eagerly it runs under ``jit``, as in JAX.

Example:
    >>> import funcarray as fa
    >>> import funcarray.numpy as fnp
    >>> mesh = fa.make_mesh((1,), ("i",))
    >>> f = fa.shard_map(lambda x: x + fa.lax.axis_index("i"), mesh=mesh, in_specs=fa.P("i"),
    ...                  out_specs=fa.P("i"))
    >>> f(fnp.arange(4.0))
    Array([0., 1., 2., 3.], dtype=float32)
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

from funcarray.api.arguments import asarray_arg
from funcarray.base import pytrees as tree
from funcarray.base.mesh import AxisType, Mesh, PartitionSpec, get_mesh
from funcarray.base.sharding import placement_of
from funcarray.primitives import collectives_lowering  # noqa: F401  (installs the rules)
from funcarray.primitives.shard_map import block_shape, shard_map_p
from funcarray.transforms.core import running_eagerly
from funcarray.transforms.ir_transforms import closed_call
from funcarray.transforms.staging import stage_flat
from funcarray.transforms.vmap import bound_axes

__all__ = ["shard_map"]


def _is_spec(x) -> bool:
    return x is None or isinstance(x, PartitionSpec)


def _check_spec(mesh: Mesh, manual: tuple, spec, what: str) -> PartitionSpec:
    if spec is None:
        raise NotImplementedError(f"shard_map: {what} is None; funcarray needs a "
                                  f"PartitionSpec for every argument and output (P() for a "
                                  f"replicated one)")
    if spec.unconstrained_dims():
        raise ValueError(f"shard_map: {what} {spec!r} holds P.UNCONSTRAINED; a shard_map "
                         f"spec says exactly how each dimension is split (None: not split)")
    for k in range(len(spec)):
        for a in spec.axes_of(k):
            if a not in mesh.axis_names:
                raise ValueError(f"shard_map: {what} {spec!r} names axis {a!r}, which is not "
                                 f"an axis of the mesh {mesh}")
            if a not in manual:
                raise ValueError(f"shard_map: {what} {spec!r} names axis {a!r}, which is not "
                                 f"in axis_names {set(manual)}: the other axes stay "
                                 f"automatic (add {a!r} to axis_names to split over it)")
    return spec


def _prefix(specs, full, what: str) -> list:
    try:
        return tree.broadcast_prefix(specs, full, is_leaf=_is_spec)
    except ValueError as exc:
        raise ValueError(f"shard_map: {what} must be a pytree prefix of the "
                         f"{'arguments' if what == 'in_specs' else 'outputs'} ({exc})") from None


def shard_map(f: Callable | None = None, /, *, out_specs: Any, in_specs: Any = None,
              mesh: Mesh | None = None, axis_names: Any = frozenset(),
              check_vma: bool = True) -> Callable:
    """Map ``f`` over the blocks of its arguments, one per device of ``mesh``, as
    ``jax.shard_map``.

    ``in_specs`` (a pytree prefix of the positional arguments) splits each argument over mesh
    axes (left out, on a mesh of Explicit axes, each concrete argument's own layout is read,
    as jax's ``in_specs=Infer``); ``f`` sees the block of its device and may use the
    collectives of ``funcarray.lax`` over the mesh axes; ``out_specs`` (a prefix of the
    output) says how the blocks ``f`` returns form each result (an axis the spec does not
    name means the blocks are equal over it and one is taken). ``mesh`` defaults to
    ``set_mesh``'s. ``axis_names`` (a set of mesh axes) makes ``f`` manual over those axes
    only: the specs and collectives name them alone, and ``f`` sees values whole along the
    other axes, which XLA's partitioner keeps splitting automatically (all axes when
    empty). Composes with jit, grad and vmap. ``check_vma`` is accepted and not checked
    (funcarray tracks no per-value device variance); derivatives follow JAX's
    ``check_vma=False`` rules, which agree for programs that pass the check.

    Example:
        >>> import funcarray as fa
        >>> import funcarray.numpy as fnp
        >>> mesh = fa.make_mesh((1,), ("i",))
        >>> total = fa.shard_map(lambda x: fa.lax.psum(fnp.sum(x, keepdims=True), "i"),
        ...                      mesh=mesh, in_specs=fa.P("i"), out_specs=fa.P())
        >>> total(fnp.arange(4.0))
        Array([6.], dtype=float32)
    """
    if f is None:
        return functools.partial(shard_map, out_specs=out_specs, in_specs=in_specs, mesh=mesh,
                                 axis_names=axis_names, check_vma=check_vma)
    if mesh is None:
        mesh = get_mesh()
        if mesh is None:
            raise ValueError("shard_map: give mesh= or call it under funcarray.set_mesh(mesh)")
    if not isinstance(mesh, Mesh):
        raise TypeError(f"shard_map: mesh must be a funcarray Mesh, got {type(mesh).__name__}")
    unknown = [a for a in axis_names if a not in mesh.axis_names]
    if unknown:
        raise ValueError(f"shard_map: axis_names {sorted(unknown)} are not axes of the mesh "
                         f"{mesh}")
    manual = tuple(a for a in mesh.axis_names if not axis_names or a in axis_names)
    return _ShardMapped(f, mesh, in_specs, out_specs, bool(check_vma), manual)


class _ShardMapped:
    """The function ``shard_map`` returns."""

    def __init__(self, f, mesh, in_specs, out_specs, check_vma, manual_axes):
        self.f, self.mesh, self.check_vma = f, mesh, check_vma
        self.manual_axes = manual_axes
        self.in_specs, self.out_specs = in_specs, out_specs
        self._lock = threading.Lock()
        self._jitted: dict = {}  # None (in_specs given) or the inferred specs -> jitted
        functools.update_wrapper(self, f)

    def __call__(self, *args, **kwargs):
        if kwargs:
            raise TypeError("shard_map: the function takes positional arguments only (as "
                            "jax.shard_map)")
        if running_eagerly():  # run compiled over the mesh, as JAX does
            if self.in_specs is None:
                inferred = self._inferred_specs(args)
                key, in_specs = inferred, tree.unflatten(tree.structure(args), list(inferred))
            else:
                key, in_specs = None, self.in_specs
            with self._lock:
                jitted = self._jitted.get(key)
                if jitted is None:
                    from funcarray.api.jit import jit

                    if len(self._jitted) >= 64:
                        self._jitted.clear()
                    jitted = self._jitted[key] = jit(
                        functools.partial(self._traced, in_specs=in_specs))
            return jitted(*args)
        return self._traced(*args, in_specs=self.in_specs)

    def _inferred_specs(self, args) -> tuple:
        """Each argument leaf's spec, read from its layout on the mesh (a host or one-device
        array: P()), as jax's ``in_specs=Infer``, which needs every mesh axis Explicit."""
        mesh = self.mesh
        if any(t is not AxisType.Explicit for t in mesh.axis_types):
            raise ValueError(f"shard_map: in_specs can be left out only on a mesh whose axes "
                             f"are all Explicit (they are then read from the arguments' "
                             f"layouts), but {mesh} has others; pass in_specs")
        specs = []
        for k, x in enumerate(tree.leaves(args)):
            placement = placement_of(x)
            if placement is not None and placement.mesh != mesh:
                raise ValueError(f"shard_map: argument leaf {k} is laid out over another mesh "
                                 f"({placement.mesh}); move it onto {mesh} or pass in_specs")
            specs.append(PartitionSpec() if placement is None else placement.spec)
        return tuple(specs)

    def _traced(self, *args, in_specs):
        mesh = self.mesh
        leaves, in_tree = tree.flatten(args)
        leaves = [asarray_arg("shard_map", x) for x in leaves]
        full = tree.unflatten(in_tree, list(range(len(leaves))))
        if in_specs is None:
            raise NotImplementedError(
                "shard_map: in_specs can be read only from concrete arguments' layouts (a "
                "traced value carries no sharding in funcarray); pass in_specs")
        manual = self.manual_axes
        specs = [_check_spec(mesh, manual, s, f"in_specs entry for argument leaf {k}")
                 for k, s in enumerate(_prefix(in_specs, full, "in_specs"))]
        blocks = [x.aval.update(shape=block_shape(mesh, s, x.aval.shape,
                                                  f"argument leaf {k}"))
                  for k, (x, s) in enumerate(zip(leaves, specs))]
        out_tree = []

        def body(*block_leaves):
            out = self.f(*tree.unflatten(in_tree, list(block_leaves)))
            out_leaves, structure = tree.flatten(out)
            out_tree.append(structure)
            return [asarray_arg("shard_map", x) for x in out_leaves]

        with bound_axes(tuple((a, n) for a, n in mesh.shape_tuple if a in manual)):
            # (staged under the current trace: values the body closes over, tracers of
            # enclosing transforms included, become leading operands)
            call = closed_call(stage_flat(body, blocks))
        outs_full = tree.unflatten(out_tree[0], list(range(len(call.ir.outs))))
        out_specs = [_check_spec(mesh, manual, s, f"out_specs entry for output leaf {k}")
                     for k, s in enumerate(_prefix(self.out_specs, outs_full, "out_specs"))]
        for k, (s, v) in enumerate(zip(out_specs, call.ir.outs)):
            if len(s) > v.aval.ndim:
                raise ValueError(f"shard_map: out_specs entry {s!r} for output leaf {k} has "
                                 f"length {len(s)}, but the output has rank {v.aval.ndim}")
        consts = tuple(call.consts)
        outs = shard_map_p.bind(*consts, *leaves, ir=call.ir, mesh=mesh,
                                in_specs=(PartitionSpec(),) * len(consts) + tuple(specs),
                                out_specs=tuple(out_specs), check_vma=self.check_vma,
                                manual_axes=manual)
        return tree.unflatten(out_tree[0], list(outs))


@functools.lru_cache(maxsize=128)
def _eager_runner(ir, mesh, in_specs, out_specs, check_vma, manual_axes):
    from funcarray.api.jit import jit

    return jit(lambda *args: shard_map_p.bind(*args, ir=ir, mesh=mesh, in_specs=in_specs,
                                              out_specs=out_specs, check_vma=check_vma,
                                              manual_axes=manual_axes))


def _impl(*args, **params):
    # A shard_map equation evaluated eagerly (under eager grad, say) runs compiled.
    return list(_eager_runner(**params)(*args))


shard_map_p.impl = _impl
