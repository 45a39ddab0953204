"""``vmap``: a function of pytrees vectorised over a batch axis of its arguments, with JAX's
``in_axes``/``out_axes`` rules, float0 leaves and Python scalars passed through, and
``chunk_size`` running the batch in chunks to bound peak memory. ``transforms/vmap.py``
batches the flat function.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, overload

import numpy as np
import optree

from funcarray.api.arguments import PYTHON_SCALAR_DTYPES
from funcarray.api.flat_functions import as_array_leaves, flat_outputs, flatten_fun
from funcarray.base import dtypes
from funcarray.base import float0 as _float0
from funcarray.base import pytrees as fa_tree
from funcarray.base.array import Array, DeviceArray
from funcarray.base.errors import api_boundary
from funcarray.primitives._axis_slice import slice_axis
from funcarray.primitives.shape import concatenate_p
from funcarray.transforms.vmap import BatchTracer, move_batch_axes, vmap_flat

if TYPE_CHECKING:
    from collections.abc import Callable, Hashable
    from typing import Any, ParamSpec, TypeVar

    from funcarray.base.typing import ArrayLike

    _P = ParamSpec("_P")
    _F = TypeVar("_F", bound=Callable[..., Any])

__all__ = ["vmap"]


@overload
def vmap(fun: Callable[_P, ArrayLike], in_axes: Any = 0, out_axes: Any = 0,
         axis_name: Hashable | None = None, axis_size: int | None = None,
         spmd_axis_name: Any = None, chunk_size: int | None = None) -> Callable[_P, Array]: ...
@overload
def vmap(fun: _F, in_axes: Any = 0, out_axes: Any = 0, axis_name: Hashable | None = None,
         axis_size: int | None = None, spmd_axis_name: Any = None,
         chunk_size: int | None = None) -> _F: ...
@api_boundary
def vmap(fun, in_axes=0, out_axes=0, axis_name=None, axis_size=None, spmd_axis_name=None,
         chunk_size=None):
    """Vectorise ``fun`` over a batch axis of its arguments.

    ``in_axes``/``out_axes`` follow JAX: an int (negative counts from the end), ``None`` (not
    mapped / no batch axis), or a pytree prefix of the arguments / outputs. ``axis_name``
    names the mapped axis for the collectives (``lax.psum``, ``pmean``, ``all_gather``,
    ``axis_index``...). ``axis_size`` is needed only when no argument is mapped.
    ``spmd_axis_name`` (a mesh axis name or a tuple of them) splits the batch axis over those
    mesh axes where the function lays values out on a mesh: a ``shard_map`` inside splits
    its batched arguments and results over them (each device runs its part of the batch),
    and ``lax.with_sharding_constraint`` constrains the batch dimension to them, as in JAX.
    ``chunk_size`` (beyond JAX) runs the batch in chunks of at most that many members,
    bounding peak memory (not with ``axis_name``: a collective needs every member at once).

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> fa.vmap(lambda x, y: x * y, in_axes=(0, None))(fnp.arange(3.0), 2.0)
        Array([0., 2., 4.], dtype=float32)
    """
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size < 1):
        raise ValueError(f"vmap: chunk_size must be a positive int, got {chunk_size!r}")
    if axis_name is not None:
        try:
            hash(axis_name)
        except TypeError:
            raise TypeError(f"vmap: axis_name must be hashable (a string, say), got "
                            f"{axis_name!r}") from None
        if chunk_size is not None:
            raise ValueError(
                f"vmap: chunk_size={chunk_size} cannot be combined with axis_name="
                f"{axis_name!r}: collectives over the axis need every member at once; drop "
                f"chunk_size")
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    spmd = (None if spmd_axis_name is None else tuple(spmd_axis_name)
            if isinstance(spmd_axis_name, (tuple, list)) else (spmd_axis_name,))

    def vmapped(*args, **kwargs):
        if not kwargs:
            dims = _plain_array_axes(args, in_axes)
            if dims is not None:
                size = _one_mapped_size(args, dims, axis_size)
                if size is not None and (chunk_size is None or chunk_size >= size):
                    # Every argument one array, the sizes agree: nothing to flatten, pass
                    # through or check (a nested vmap's inner calls, fromfunction's).
                    store = {}
                    outs = _run(_flat_outputs_of(fun, store), store, list(args), dims, size,
                                out_axes, axis_name, spmd)
                    return fa_tree.unflatten(store["out_tree"], outs)
        if kwargs:  # keyword arguments are mapped over axis 0, as in JAX
            names = list(kwargs)
            all_args = (*args, *kwargs.values())
            axes = in_axes if not isinstance(in_axes, tuple) else (*in_axes, *[0] * len(names))
            return vmap(lambda *a: fun(*a[:len(args)], **dict(zip(names, a[len(args):]))),
                        axes, out_axes, axis_name=axis_name, axis_size=axis_size,
                        chunk_size=chunk_size)(*all_args)
        if isinstance(in_axes, tuple) and len(in_axes) != len(args):
            raise ValueError(
                f"vmap: in_axes is a tuple of {len(in_axes)} entries but the function got "
                f"{len(args)} positional arguments; give one entry per argument")
        leaves, in_tree = fa_tree.flatten(args)
        dims = _broadcast_prefix("in_axes", in_axes, args, "positional arguments")
        # Unmapped Python scalars reach `fun` as they are, as in JAX: `n` in
        # vmap(f, in_axes=(0, None))(x, n) can be a shape, a range() bound or a static arg.
        passed = {k: x for k, (x, d) in enumerate(zip(leaves, dims))
                  if d is None and type(x) in PYTHON_SCALAR_DTYPES}
        # float0 leaves (gradients of integer inputs) are zeros of a known shape: each member
        # gets zeros of its shape, and a mapped one's axis still counts for the size.
        mapped_float0 = _pass_float0_leaves(leaves, dims, passed)
        positions = [k for k in range(len(leaves)) if k not in passed]
        if passed:
            leaves, dims = [leaves[k] for k in positions], [dims[k] for k in positions]
        leaves = as_array_leaves("vmap", leaves)
        dims = [_normalize_axis("in_axes", d, x.ndim) for d, x in zip(dims, leaves)]
        size = _batch_size(fun, args, leaves + [x for _, x, _ in mapped_float0],
                           dims + [d for _, _, d in mapped_float0], axis_size,
                           positions + [k for k, _, _ in mapped_float0])
        flat_fun, store = flatten_fun(fun, in_tree, float0_ok=True)
        if passed:
            flat_fun = _with_passed_leaves(flat_fun, passed, len(leaves) + len(passed))

        def run(leaves_chunk, size_chunk):
            return _run(flat_fun, store, leaves_chunk, dims, size_chunk, out_axes, axis_name,
                        spmd)

        if chunk_size is None or chunk_size >= size:
            outs = run(leaves, size)
        else:
            outs = _run_chunked(run, leaves, dims, size, chunk_size, store, out_axes)
        return fa_tree.unflatten(store["out_tree"], outs)

    vmapped.__name__ = f"vmap({getattr(fun, '__name__', 'fun')})"
    vmapped.__doc__ = getattr(fun, "__doc__", None)
    vmapped.__wrapped__ = fun
    return api_boundary(vmapped)


def _run(flat_fun, store, leaves, dims, size, out_axes, axis_name, spmd):
    """``flat_fun`` vectorised over ``leaves`` (batch axes ``dims``, of ``size``): its output
    leaves with their batch axes where ``out_axes`` puts them."""
    vals, bdims = vmap_flat(flat_fun, leaves, dims, size, axis_name, spmd)
    holes = store["float0"]
    if holes is None and (out_axes is None or type(out_axes) is int and out_axes >= 0):
        want = [out_axes] * len(vals)  # (no output tree to match a prefix against)
    else:
        full = vals if holes is None else _float0.fill(vals, holes)
        want = _broadcast_prefix(
            "out_axes", out_axes, fa_tree.unflatten(store["out_tree"], list(full)), "outputs")
        if holes is not None:
            return _move_batch_axes_float0(vals, bdims, want, holes, size)
    want = [_normalize_axis("out_axes", w, v.ndim + (b is None))
            for w, v, b in zip(want, vals, bdims)]
    return move_batch_axes(vals, bdims, want, size)


def _plain_array_axes(args, in_axes):
    """The batch axis of each argument, normalised, when every argument is one array (a
    funcarray array, or a value of an enclosing vmap) with an in-range int or None axis;
    else None: the general path flattens, converts and checks (and raises its errors)."""
    if in_axes is None or type(in_axes) is int:
        axes = (in_axes,) * len(args)
    elif type(in_axes) is tuple and len(in_axes) == len(args):
        axes = in_axes
    else:
        return None
    dims = []
    for x, axis in zip(args, axes):
        kind = type(x)
        if not (kind is Array or kind is DeviceArray or kind is BatchTracer) or _is_extended(x):
            return None
        if axis is not None:
            ndim = x.ndim
            if type(axis) is not int or not -ndim <= axis < ndim:
                return None
            axis %= ndim
        dims.append(axis)
    return dims


def _one_mapped_size(args, dims, axis_size):
    """The size of the mapped axes when they (and ``axis_size``) agree, else None."""
    size = axis_size
    for x, d in zip(args, dims):
        if d is not None:
            n = x.shape[d]
            if size is None:
                size = n
            elif n != size:
                return None
    return size


def _flat_outputs_of(fun, store):
    """``fun`` of array arguments, returning its output leaves (``flat_outputs``)."""
    def flat_fun(*leaves):
        return flat_outputs(fun(*leaves), store, False, "transformed function output", True)
    return flat_fun


def _broadcast_prefix(what: str, prefix, tree, tree_desc: str):
    """One entry of ``prefix`` (an int or None, or a pytree prefix of ``tree``) per leaf of
    ``tree``, as JAX's in_axes/out_axes rules say."""
    if prefix is None or isinstance(prefix, int):
        return _skip_element_axes([prefix] * len(fa_tree.leaves(tree)), tree)
    try:
        pairs = optree.tree_map(
            lambda ax, sub: [ax] * len(fa_tree.leaves(sub)), prefix, tree,
            none_is_leaf=True, namespace=fa_tree.NAMESPACE)
    except ValueError as exc:
        raise ValueError(
            f"vmap: {what} must be an int, None, or a pytree prefix of the {tree_desc}; "
            f"{what}={prefix!r} does not match: {exc}") from None
    flat = optree.tree_leaves(pairs, none_is_leaf=False, namespace=fa_tree.NAMESPACE,
                              is_leaf=lambda x: isinstance(x, list))
    return _skip_element_axes([ax for group in flat for ax in group], tree)


def _is_extended(x) -> bool:
    return isinstance(getattr(x, "dtype", None), dtypes.ExtendedDType)


def _skip_element_axes(axes: list, tree) -> list:
    """Per-leaf ``axes`` with the negative ones of an extended-dtype array (a typed PRNG key:
    a pytree node over its data, of shape ``shape + dtype.element_shape``) counted from the
    end of its shape, not of its data's."""
    if not any(ax is not None and ax < 0 for ax in axes):
        return axes
    trailing = []
    for part in fa_tree.leaves(tree, is_leaf=_is_extended):
        if _is_extended(part):
            trailing += [len(part.dtype.element_shape)] * len(fa_tree.leaves(part))
        else:
            trailing.append(0)
    return [ax - t if ax is not None and ax < 0 else ax for ax, t in zip(axes, trailing)]


def _arg_names(fun, n):
    try:
        params = list(inspect.signature(fun).parameters)
    except (TypeError, ValueError):
        params = []
    return [params[i] if i < len(params) else f"arg{i}" for i in range(n)]


def _leaf_owner(args, names):
    """For each flattened leaf, the name of the positional argument it came from."""
    owners = []
    for name, arg in zip(names, args):
        owners += [name] * len(fa_tree.leaves(arg))
    return owners


def _normalize_axis(what, axis, ndim):
    if axis is None:
        return None
    if not isinstance(axis, int):
        raise TypeError(f"vmap: {what} entries must be ints or None, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"vmap: {what}={axis} is out of range for a value of rank {ndim}")
    return axis % ndim


def _batch_size(fun, args, leaves, dims, axis_size, positions):
    """The one size of the mapped axes (``positions``: each leaf's place in ``args``)."""
    sizes = {x.shape[d] for x, d in zip(leaves, dims) if d is not None}
    if axis_size is not None:
        sizes.add(axis_size)
    if not sizes:
        raise ValueError("vmap: no argument is mapped (every in_axes entry is None); pass "
                         "axis_size= to say how many times to map")
    if len(sizes) > 1:
        names = _leaf_owner(args, _arg_names(fun, len(args)))
        lines = [f"  argument {names[k]!r} of shape {tuple(x.shape)} mapped over axis {d}: "
                 f"size {x.shape[d]}"
                 for k, x, d in zip(positions, leaves, dims) if d is not None]
        if axis_size is not None:
            lines.append(f"  axis_size={axis_size}")
        raise ValueError("vmap got inconsistent sizes for the mapped axis:\n" + "\n".join(lines))
    return sizes.pop()


def _pass_float0_leaves(leaves, dims, passed: dict) -> list:
    """Add the float0 leaves to ``passed`` as one member's zeros (unbatched: what the
    function sees); returns the mapped ones as ``(position, leaf, axis)``."""
    mapped = []
    for k, (x, d) in enumerate(zip(leaves, dims)):
        if _float0.is_float0(x):
            d = _normalize_axis("in_axes", d, x.ndim)
            if d is None:
                passed[k] = x
            else:
                passed[k] = _float0.zeros(x.shape[:d] + x.shape[d + 1:])
                mapped.append((k, x, d))
    return mapped


def _move_batch_axes_float0(vals, bdims, want, holes, size) -> list:
    """``move_batch_axes`` for outputs with float0 holes (``want``: one out_axes entry per
    output, holes included): a float0 output is one member's zeros, batched by giving it
    the axis."""
    positions = {k for k, _ in holes}
    kept_want = [w for k, w in enumerate(want) if k not in positions]
    kept_want = [_normalize_axis("out_axes", w, v.ndim + (b is None))
                 for w, v, b in zip(kept_want, vals, bdims)]
    shapes = []
    for k, shape in holes:
        w = _normalize_axis("out_axes", want[k], len(shape) + 1)
        shapes.append(shape if w is None else (*shape[:w], size, *shape[w:]))
    return _float0.fill(move_batch_axes(vals, bdims, kept_want, size), holes, shapes=shapes)


def _with_passed_leaves(flat_fun, passed: dict, total: int):
    """``flat_fun`` taking only the mapped leaves: the ``passed`` ones (position -> value)
    are put back in place before the call."""
    def with_passed(*mapped):
        mapped = iter(mapped)
        return flat_fun(*[passed[k] if k in passed else next(mapped) for k in range(total)])
    return with_passed


def _run_chunked(run, leaves, dims, size, chunk_size, store, out_axes):
    chunks = []
    for start in range(0, size, chunk_size):
        stop = min(start + chunk_size, size)
        part = [x if d is None else slice_axis(x, d, start, stop)
                for x, d in zip(leaves, dims)]
        chunks.append(run(part, stop - start))
    out_leaves = chunks[0]
    out_tree = store["out_tree"]
    out_dims = _broadcast_prefix("out_axes", out_axes,
                                 fa_tree.unflatten(out_tree, list(out_leaves)), "outputs")
    results = []
    for j, d in enumerate(out_dims):
        if d is None:
            results.append(out_leaves[j])
        else:
            axis = d % chunks[0][j].ndim
            parts = [c[j] for c in chunks]
            results.append(np.concatenate(parts, axis=axis) if _float0.is_float0(out_leaves[j])
                           else concatenate_p.bind(*parts, dimension=axis))
    return results
