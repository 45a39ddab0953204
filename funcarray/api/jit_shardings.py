"""jit's ``in_shardings``/``out_shardings``: checking them, matching them to the argument and
output leaves, and the shardings each compiled signature is partitioned with.

``in_shardings`` is a pytree prefix of the positional arguments (one sharding for all of
them, or one per argument, or a matching pytree), ``out_shardings`` a prefix of the output;
a leaf is a ``NamedSharding``, a bare ``PartitionSpec`` (over the mesh of ``set_mesh``) or
None (the partitioner chooses). An argument that is already split over devices and has no
``in_shardings`` entry is partitioned that way, as in JAX; such an argument with an entry
must agree with it (JAX's error otherwise). Arrays on one device or on the host are
"uncommitted": they are placed where the executable wants them.

Example:
    >>> import funcarray as fa
    >>> mesh = fa.make_mesh((1,), ("x",))
    >>> s = fa.sharding.NamedSharding(mesh, fa.P("x"))
    >>> fa.jit(lambda x: x * 2, in_shardings=s, out_shardings=s)(fa.numpy.ones(2)).sharding.spec
    P('x',)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from funcarray.api.sharded_arrays import resolve_sharding
from funcarray.base import pytrees as tree
from funcarray.base.mesh import PartitionSpec
from funcarray.base.sharding import NamedSharding, Sharding, SingleDeviceSharding

__all__ = ["sharding_option", "uses_bare_specs", "entry_shardings", "leaf_placement",
           "given_in_shardings", "check_committed"]


def _is_sharding_leaf(v) -> bool:
    return v is None or isinstance(v, (Sharding, PartitionSpec))


def sharding_option(value: Any, what: str):
    """A hashable form of ``in_shardings``/``out_shardings`` for jit's options (None when
    not given), checked: every leaf is a Sharding, a PartitionSpec or None."""
    if value is None:
        return None
    leaves, structure = tree.flatten(value, is_leaf=_is_sharding_leaf)
    for leaf in leaves:
        if not _is_sharding_leaf(leaf):
            raise TypeError(f"jit: {what} holds {type(leaf).__name__} {leaf!r}; its leaves "
                            f"are shardings (funcarray.sharding.NamedSharding), "
                            f"PartitionSpecs (with funcarray.set_mesh) or None")
    return structure, tuple(leaves)


def uses_bare_specs(*options) -> bool:
    """Whether a jit option holds a bare PartitionSpec (resolved against the current mesh,
    which then belongs in the dispatch key)."""
    return any(opt is not None and any(isinstance(x, PartitionSpec) for x in opt[1])
               for opt in options)


def leaf_placement(x):
    """The NamedSharding an argument leaf is split with, or None."""
    entry = getattr(x, "_buf", None)
    if entry is not None and type(entry[0]) is NamedSharding:
        return entry[0]
    return None


def _per_leaf(option, full, what: str) -> list:
    """The option's leaves broadcast to the leaves of ``full`` (a pytree prefix)."""
    prefix = tree.unflatten(option[0], option[1])
    try:
        return tree.broadcast_prefix(prefix, full, is_leaf=_is_sharding_leaf)
    except ValueError as exc:
        raise ValueError(f"jit: {what} must be a pytree prefix of the "
                         f"{'positional arguments' if what == 'in_shardings' else 'outputs'}"
                         f" ({exc})") from None


def _as_named(sharding, where: str):
    s = resolve_sharding(sharding, where)
    if isinstance(s, SingleDeviceSharding):
        return None  # (one device: what an unpartitioned executable does anyway)
    return s


def entry_shardings(in_option, out_option, dyn_args, has_kwargs: bool, leaves, names,
                    n_consts: int, out_tree, out_avals, name: str):
    """``((in_shardings, out_shardings), leaf_placements)`` for a signature: a NamedSharding
    or None for each executable parameter (consts first, then ``leaves``) and result, or
    ``(None, placements)`` when nothing is sharded (a single-device executable).
    ``leaf_placements`` is, for each leaf, the sharding it carried (None: none), which the
    dispatch fast path checks later calls against. Raises JAX's errors for a leaf whose own
    sharding disagrees with ``in_shardings``, a shape the sharding does not fit, and
    arguments on different device sets."""
    placements = tuple(leaf_placement(x) for x in leaves)
    given = (given_in_shardings(in_option, dyn_args, has_kwargs, name)
             if in_option is not None else (None,) * len(leaves))
    arg_shardings = []
    for k, (x, want, have) in enumerate(zip(leaves, given, placements)):
        shape = tuple(np.shape(x))
        label = names[k] if k < len(names) else f"argument {k}"
        if want is not None and have is not None:
            check_committed(want, have, x, label, name)
        s = want if want is not None else have
        if s is not None:
            try:
                s.check_shape(shape)
            except ValueError as exc:
                raise ValueError(f"jit({name}): {label} of type {_type_str(x)}: {exc}") from None
        arg_shardings.append(s)
    out_shardings = [None] * len(out_avals)
    if out_option is not None:
        out_full = tree.unflatten(out_tree, list(range(len(out_avals))))
        out_shardings = [_as_named(s, "jit out_shardings")
                         for s in _per_leaf(out_option, out_full, "out_shardings")]
        for k, (s, aval) in enumerate(zip(out_shardings, out_avals)):
            if s is not None:
                try:
                    s.check_shape(tuple(aval.shape))
                except ValueError as exc:
                    raise ValueError(f"jit({name}): output {k}: {exc}") from None
    _check_one_device_set(arg_shardings, out_shardings, leaves, names, name)
    # (a leaf that in_shardings places is taken split that way or not split at all)
    placements = tuple(None if want is not None else have
                       for want, have in zip(given, placements))
    if all(s is None for s in (*arg_shardings, *out_shardings)):
        return None, placements
    return ((None,) * n_consts + tuple(arg_shardings), tuple(out_shardings)), placements


def given_in_shardings(in_option, dyn_args, has_kwargs: bool, name: str) -> tuple:
    """The NamedSharding (or None) ``in_shardings`` gives each leaf of the positional
    arguments ``dyn_args`` (bare specs resolved against the current mesh)."""
    if has_kwargs:
        raise ValueError(f"jit({name}): in_shardings apply to positional arguments; pass "
                         f"the arguments positionally")
    return tuple(_as_named(s, "jit in_shardings")
                 for s in _per_leaf(in_option, tuple(dyn_args), "in_shardings"))


def check_committed(want, have, x, label, name: str) -> None:
    """JAX's error for an argument split as ``have`` where ``in_shardings`` says ``want``."""
    if want != have:
        raise ValueError(
            f"Sharding passed to jit does not match the sharding on the respective arg. "
            f"Got jit sharding: {want!r},\narg sharding: {have!r} for arg type: "
            f"{_type_str(x)} ({label} of {name}); move it first with "
            f"funcarray.device_put(x, sharding)")


def _type_str(x) -> str:
    dtype = getattr(x, "dtype", None)
    dtype = np.asarray(x).dtype if dtype is None else np.dtype(dtype)  # (a Python scalar)
    return f"{dtype.name}[{','.join(map(str, np.shape(x)))}]"


def _check_one_device_set(arg_shardings, out_shardings, leaves, names, name) -> None:
    first = None
    for k, s in enumerate((*arg_shardings, *out_shardings)):
        if s is None:
            continue
        ids = [d.id for d in s.mesh.flat_devices]
        if first is None:
            first = (k, ids, s)
            continue
        if ids != first[1] or s.mesh.shape_tuple != first[2].mesh.shape_tuple:
            def what(j):
                if j < len(leaves):
                    label = names[j] if j < len(names) else f"argument {j}"
                    return f"argument {label} of {name} with shape {_type_str(leaves[j])}"
                return f"output {j - len(leaves)} of {name}"
            raise ValueError(
                f"Received incompatible devices for jitted computation. Got {what(first[0])} "
                f"and with device ids {first[1]} (mesh {first[2].mesh}) and {what(k)} and "
                f"with device ids {ids} (mesh {s.mesh}); a jitted computation is "
                f"partitioned over one mesh")
