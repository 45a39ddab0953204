"""Collectives over named vmap axes, as in ``jax.lax``: ``psum``, ``pmean``, ``pmax``,
``pmin``, ``all_gather``, ``ppermute``, ``axis_index``, ``psum_scatter``, ``all_to_all``,
``pswapaxes``, ``pshuffle``, ``pbroadcast``, ``pcast``, ``ragged_all_to_all`` and ``axis_size``.

They run inside ``vmap(f, axis_name=...)`` (on one device there is no ``pmap``): each batch
member sees the combined value of all members. The primitives and their rules are in
``primitives/collectives.py``; this module checks the arguments and maps over pytrees.

Example:
    >>> import funcarray as fa
    >>> import funcarray.numpy as fnp
    >>> from funcarray import lax
    >>> normalise = fa.vmap(lambda x: x / lax.psum(x, "batch"), axis_name="batch")
    >>> normalise(fnp.asarray([1.0, 3.0]))
    Array([0.25, 0.75], dtype=float32)
"""

from __future__ import annotations

import math
import operator
from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import asarray_arg
from funcarray.base import pytrees as fa_tree
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
from funcarray.transforms.vmap import named_axis_size

if TYPE_CHECKING:
    from collections.abc import Hashable, Sequence
    from typing import Any

    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["psum", "pmean", "pmax", "pmin", "all_gather", "ppermute", "axis_index",
           "psum_scatter", "all_to_all", "pswapaxes", "pshuffle", "pbroadcast", "pcast",
           "ragged_all_to_all", "axis_size"]


def _axis_names(what: str, axis_name) -> tuple:
    """``axis_name`` (a name or a tuple of names) as a tuple, each bound by an enclosing
    vmap (NameError otherwise)."""
    names = tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)
    if not names:
        raise ValueError(f"lax.{what}: axis_name is an empty tuple; name at least one vmap axis")
    for name in names:
        named_axis_size(name, f"lax.{what}")
    return names


def _single_axis_name(what: str, axis_name):
    names = _axis_names(what, axis_name)
    if len(names) != 1:
        raise NotImplementedError(
            f"lax.{what}: funcarray takes one axis name here, got {axis_name!r}; nest the "
            f"calls, one per axis")
    return names


def _no_groups(what: str, axis_index_groups) -> None:
    if axis_index_groups is not None:
        raise NotImplementedError(
            f"lax.{what}: axis_index_groups is not supported (it splits a pmap axis into "
            f"device groups); reshape the batch into an extra named vmap axis instead")


def _leaves(what: str, x):
    leaves, tree = fa_tree.flatten(x)
    return [asarray_arg(f"lax.{what}", leaf) for leaf in leaves], tree


def _map_bind(what, prim, x, **params):
    leaves, tree = _leaves(what, x)
    return fa_tree.unflatten(tree, [prim.bind(leaf, **params) for leaf in leaves])


def psum(x: Any, axis_name: Hashable, *,
         axis_index_groups: Sequence[Sequence[int]] | None = None) -> Any:
    """The sum of ``x`` (an array or pytree) over the members of the named vmap axis (or of
    several, given a tuple of names); every member gets the same result.

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> fa.vmap(lambda x: lax.psum(x, "i"), axis_name="i")(fnp.arange(3.0))
        Array([3., 3., 3.], dtype=float32)
    """
    _no_groups("psum", axis_index_groups)
    names = _axis_names("psum", axis_name)
    return _map_bind("psum", psum_p, x, axis_name=names)


def pmean(x: Any, axis_name: Hashable, *,
          axis_index_groups: Sequence[Sequence[int]] | None = None) -> Any:
    """The mean of ``x`` over the members of the named vmap axis (or axes).

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> fa.vmap(lambda x: x - lax.pmean(x, "i"), axis_name="i")(fnp.arange(3.0))
        Array([-1.,  0.,  1.], dtype=float32)
    """
    _no_groups("pmean", axis_index_groups)
    names = _axis_names("pmean", axis_name)
    count = math.prod(named_axis_size(n, "lax.pmean") for n in names)
    return fa_tree.map(lambda s: s / count, psum(x, names))


def pmax(x: Any, axis_name: Hashable, *,
         axis_index_groups: Sequence[Sequence[int]] | None = None) -> Any:
    """The maximum of ``x`` over the members of the named vmap axis (or axes). Its
    derivative goes to the members holding the maximum (shared among ties); JAX has none.

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> fa.vmap(lambda x: lax.pmax(x, "i"), axis_name="i")(fnp.asarray([1.0, 5.0, 2.0]))
        Array([5., 5., 5.], dtype=float32)
    """
    _no_groups("pmax", axis_index_groups)
    return _map_bind("pmax", pmax_p, x, axis_name=_axis_names("pmax", axis_name))


def pmin(x: Any, axis_name: Hashable, *,
         axis_index_groups: Sequence[Sequence[int]] | None = None) -> Any:
    """The minimum of ``x`` over the members of the named vmap axis (or axes).

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> fa.vmap(lambda x: lax.pmin(x, "i"), axis_name="i")(fnp.asarray([1.0, 5.0, 2.0]))
        Array([1., 1., 1.], dtype=float32)
    """
    _no_groups("pmin", axis_index_groups)
    return _map_bind("pmin", pmin_p, x, axis_name=_axis_names("pmin", axis_name))


def all_gather(x: Any, axis_name: Hashable, *,
               axis_index_groups: Sequence[Sequence[int]] | None = None, axis: int = 0,
               tiled: bool = False) -> Any:
    """Every member's ``x`` stacked along a new ``axis`` (``tiled=True``: concatenated along
    the existing ``axis``), in member order; every member gets the whole.

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> fa.vmap(lambda x: lax.all_gather(x, "i"), axis_name="i")(fnp.arange(2.0))
        Array([[0., 1.],
               [0., 1.]], dtype=float32)
    """
    _no_groups("all_gather", axis_index_groups)
    (name,) = names = _single_axis_name("all_gather", axis_name)
    size = named_axis_size(name, "lax.all_gather")
    leaves, tree = _leaves("all_gather", x)
    outs = []
    for leaf in leaves:
        rank = leaf.ndim + (not tiled)
        try:
            where = operator.index(axis)
        except TypeError:
            raise TypeError(f"lax.all_gather: axis must be an int, got {axis!r}") from None
        if not -rank <= where < rank or (tiled and leaf.ndim == 0):
            raise ValueError(
                f"lax.all_gather: axis={axis} is out of range for an operand of shape "
                f"{tuple(leaf.shape)} (tiled={tiled}: axis must be in [{-rank}, {rank}))"
                if not (tiled and leaf.ndim == 0) else
                "lax.all_gather: tiled=True needs an operand with at least one axis; got a "
                "scalar (use tiled=False to stack scalars)")
        outs.append(all_gather_p.bind(leaf, axis_name=names, axis=where % rank, tiled=tiled,
                                      axis_size=size))
    return fa_tree.unflatten(tree, outs)


def ppermute(x: Any, axis_name: Hashable, perm: Sequence[tuple[int, int]]) -> Any:
    """Send each member's ``x`` to another member: ``perm`` is a sequence of
    ``(source, destination)`` member indices; a member no pair sends to gets zeros.

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> shift = lambda x: lax.ppermute(x, "i", perm=[(0, 1), (1, 2), (2, 0)])
        >>> fa.vmap(shift, axis_name="i")(fnp.asarray([1.0, 2.0, 3.0]))
        Array([3., 1., 2.], dtype=float32)
    """
    (name,) = names = _single_axis_name("ppermute", axis_name)
    size = named_axis_size(name, "lax.ppermute")
    pairs = _check_perm(perm, size)
    return _map_bind("ppermute", ppermute_p, x, axis_name=names, perm=pairs)


def _check_perm(perm, size) -> tuple:
    try:
        pairs = tuple((operator.index(s), operator.index(d)) for s, d in perm)
    except (TypeError, ValueError):
        raise TypeError(f"lax.ppermute: perm must be a sequence of (source, destination) "
                        f"integer pairs, got {perm!r}") from None
    for s, d in pairs:
        if not (0 <= s < size and 0 <= d < size):
            raise ValueError(f"lax.ppermute: the pair {(s, d)} names a member outside the "
                             f"axis of size {size}")
    for k, label in ((0, "source"), (1, "destination")):
        seen = [p[k] for p in pairs]
        if len(set(seen)) != len(seen):
            raise ValueError(f"lax.ppermute: perm {perm!r} repeats a {label}; each member "
                             f"sends at most once and receives at most once")
    return pairs


def axis_index(axis_name: Hashable) -> Array:
    """This member's index along the named vmap axis (int32).

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> fa.vmap(lambda x: x * lax.axis_index("i"), axis_name="i")(fnp.ones(3))
        Array([0., 1., 2.], dtype=float32)
    """
    names = _single_axis_name("axis_index", axis_name)
    return axis_index_p.bind(axis_name=names)


def _axis_arg(what: str, name: str, value, rank: int) -> int:
    """A dimension argument in ``[-rank, rank)``, made non-negative."""
    try:
        where = operator.index(value)
    except TypeError:
        raise TypeError(f"lax.{what}: {name} must be an int, got {value!r}") from None
    if not -rank <= where < rank:
        raise ValueError(f"lax.{what}: {name}={value} is out of range for an operand of rank "
                         f"{rank} ({name} must be in [{-rank}, {rank}))")
    return where % rank


def _split_size_check(what, leaf, axis, name, size, tiled):
    extent = leaf.shape[axis]
    if tiled and extent % size:
        raise ValueError(
            f"lax.{what}: {name}={axis} of the operand {tuple(leaf.shape)} has size {extent}, "
            f"which does not divide into the {size} members of the axis (tiled=True needs a "
            f"multiple of the axis size)")
    if not tiled and extent != size:
        raise ValueError(
            f"lax.{what}: {name}={axis} of the operand {tuple(leaf.shape)} has size {extent}, "
            f"but the axis has {size} members (tiled=False needs exactly one entry per "
            f"member; use tiled=True to cut it into equal chunks)")


def psum_scatter(x: Any, axis_name: Hashable, *, scatter_dimension: int = 0,
                 axis_index_groups: Sequence[Sequence[int]] | None = None,
                 tiled: bool = False) -> Any:
    """The sum of ``x`` over the members of the named vmap axis, scattered: member ``k`` gets
    chunk ``k`` of ``scatter_dimension``. Not tiled, that dimension has one entry per member
    and is dropped; tiled, it is cut into equal chunks that keep the dimension.

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> x = fnp.arange(6.0).reshape(2, 3)[:, :2]  # two members, two entries each
        >>> fa.vmap(lambda v: lax.psum_scatter(v, "i"), axis_name="i")(x)
        Array([3., 5.], dtype=float32)
    """
    _no_groups("psum_scatter", axis_index_groups)
    (name,) = names = _single_axis_name("psum_scatter", axis_name)
    size = named_axis_size(name, "lax.psum_scatter")
    leaves, tree = _leaves("psum_scatter", x)
    outs = []
    for leaf in leaves:
        if leaf.ndim == 0:
            raise ValueError("lax.psum_scatter: the operand is a scalar; it needs a dimension "
                             "to scatter (scatter_dimension)")
        dim = _axis_arg("psum_scatter", "scatter_dimension", scatter_dimension, leaf.ndim)
        _split_size_check("psum_scatter", leaf, dim, "scatter_dimension", size, tiled)
        outs.append(psum_scatter_p.bind(leaf, axis_name=names, scatter_dimension=dim,
                                        tiled=bool(tiled), axis_size=size))
    return fa_tree.unflatten(tree, outs)


def all_to_all(x: Any, axis_name: Hashable, split_axis: int, concat_axis: int, *,
               axis_index_groups: Sequence[Sequence[int]] | None = None,
               tiled: bool = False) -> Any:
    """Exchange chunks among the members of the named vmap axis: ``split_axis`` of each
    member's ``x`` is cut into one chunk per member, chunk ``i`` goes to member ``i``, and
    the chunks a member receives are placed along ``concat_axis`` in sender order. Not
    tiled, ``split_axis`` has one entry per member and is dropped, and the received entries
    form a new axis at ``concat_axis``; tiled, the chunks are concatenated along the existing
    ``concat_axis``.

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> x = fnp.arange(4.0).reshape(2, 2)  # member i holds row i
        >>> fa.vmap(lambda v: lax.all_to_all(v, "i", 0, 0), axis_name="i")(x)
        Array([[0., 2.],
               [1., 3.]], dtype=float32)
    """
    _no_groups("all_to_all", axis_index_groups)
    (name,) = names = _single_axis_name("all_to_all", axis_name)
    size = named_axis_size(name, "lax.all_to_all")
    leaves, tree = _leaves("all_to_all", x)
    outs = []
    for leaf in leaves:
        if leaf.ndim == 0:
            raise ValueError("lax.all_to_all: the operand is a scalar; it needs a split_axis "
                             "with one entry (or chunk) per member")
        split = _axis_arg("all_to_all", "split_axis", split_axis, leaf.ndim)
        concat = _axis_arg("all_to_all", "concat_axis", concat_axis, leaf.ndim)
        _split_size_check("all_to_all", leaf, split, "split_axis", size, tiled)
        outs.append(all_to_all_p.bind(leaf, axis_name=names, split_axis=split,
                                      concat_axis=concat, tiled=bool(tiled), axis_size=size))
    return fa_tree.unflatten(tree, outs)


def pswapaxes(x: Any, axis_name: Hashable, axis: int, *,
              axis_index_groups: Sequence[Sequence[int]] | None = None) -> Any:
    """Swap the named vmap axis with the axis ``axis`` of ``x`` (which must have one entry
    per member): ``all_to_all(x, axis_name, axis, axis)``.

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> x = fnp.arange(4.0).reshape(2, 2)
        >>> fa.vmap(lambda v: lax.pswapaxes(v, "i", 0), axis_name="i")(x)
        Array([[0., 2.],
               [1., 3.]], dtype=float32)
    """
    return all_to_all(x, axis_name, axis, axis, axis_index_groups=axis_index_groups)


def pshuffle(x: Any, axis_name: Hashable, perm: Sequence[int]) -> Any:
    """``ppermute`` with the sources listed per destination: member ``i`` receives member
    ``perm[i]``'s ``x``; ``perm`` must be a permutation of the member indices.

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> fa.vmap(lambda v: lax.pshuffle(v, "i", [2, 0, 1]), axis_name="i")(
        ...     fnp.asarray([1.0, 2.0, 3.0]))
        Array([3., 1., 2.], dtype=float32)
    """
    try:
        sources = [operator.index(p) for p in perm]
    except TypeError:
        raise TypeError(f"lax.pshuffle: perm must be a sequence of member indices, got "
                        f"{perm!r}") from None
    if sorted(sources) != list(range(len(sources))):
        raise ValueError(f"lax.pshuffle: perm {list(perm)!r} is not a permutation of "
                         f"0..{len(sources) - 1}")
    return ppermute(x, axis_name, [(src, dst) for dst, src in enumerate(sources)])


def pbroadcast(x: Any, axis_name: Hashable, source: int) -> Any:
    """Every member of the named vmap axis gets member ``source``'s ``x`` (XLA's
    CollectiveBroadcast; the same as ``psum`` of ``x`` masked to member ``source``).

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> fa.vmap(lambda v: lax.pbroadcast(v, "i", 1), axis_name="i")(
        ...     fnp.asarray([1.0, 2.0, 3.0]))
        Array([2., 2., 2.], dtype=float32)
    """
    (name,) = names = _single_axis_name("pbroadcast", axis_name)
    size = named_axis_size(name, "lax.pbroadcast")
    try:
        src = operator.index(source)
    except TypeError:
        raise TypeError(f"lax.pbroadcast: source must be an int member index, got "
                        f"{source!r}") from None
    if not 0 <= src < size:
        raise ValueError(f"lax.pbroadcast: source={source} names a member outside the axis "
                         f"{name!r} of size {size}")
    leaves, tree = _leaves("pbroadcast", x)
    outs = []
    for leaf in leaves:
        # Gathering is free under the named axis (the members are already side by side), and
        # its transpose sends the cotangents' sum back to the source only.
        gathered = all_gather_p.bind(leaf, axis_name=names, axis=0, tiled=False,
                                     axis_size=size)
        outs.append(gathered[src])
    return fa_tree.unflatten(tree, outs)


_PCAST_TARGETS = ("varying", "reduced", "unreduced")


def pcast(x: Any, axis_name: Hashable, *, to: str) -> Any:
    """Change how ``x`` is typed along the named axes (``to`` is ``"varying"``,
    ``"reduced"`` or ``"unreduced"``). These are shard_map's per-member type annotations;
    under a named vmap each member keeps its own value, so ``pcast`` returns ``x`` unchanged
    (after checking the names and ``to``).

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> fa.vmap(lambda v: lax.pcast(v, "i", to="varying"), axis_name="i")(fnp.ones(2))
        Array([1., 1.], dtype=float32)
    """
    if isinstance(axis_name, (set, frozenset)):
        raise TypeError(f"lax.pcast: axis_name must be a name or a tuple of names, got the set "
                        f"{axis_name!r}")
    if to not in _PCAST_TARGETS:
        raise ValueError(f"lax.pcast: to={to!r}; use one of {', '.join(_PCAST_TARGETS)}")
    if axis_name == ():
        return x
    _axis_names("pcast", axis_name)
    leaves, tree = _leaves("pcast", x)
    return fa_tree.unflatten(tree, leaves)


def ragged_all_to_all(operand: ArrayLike, output: ArrayLike, input_offsets: ArrayLike,
                      send_sizes: ArrayLike, output_offsets: ArrayLike, recv_sizes: ArrayLike, *,
                      axis_name: Hashable,
                      axis_index_groups: Sequence[Sequence[int]] | None = None) -> Array:
    """Exchange ragged slices of the leading axis among the members of the named vmap axis
    (jax.lax's contract): with ``N = len(input_offsets)`` slices per member and
    ``N // axis_size`` per destination, member ``s`` sends
    ``operand[input_offsets[i]:input_offsets[i] + send_sizes[i]]`` to member
    ``i // (N // axis_size)``, which writes it into its ``output`` at ``output_offsets[i]``
    (the offset is the sender's). Rows outside the output are dropped. ``recv_sizes`` must
    be the matching sizes seen by the receivers; the data sent defines the result.

    Built from ``all_gather`` and one scatter, so it differentiates in ``operand`` and
    ``output`` and works under jit; jax has no rule for it under ``vmap``.

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> operand = fnp.asarray([[1, 2, 2], [3, 4, 0]])
        >>> output = fnp.zeros((2, 4), fnp.int32)
        >>> offsets = lambda *rows: fnp.asarray(rows, fnp.int32)
        >>> f = fa.vmap(lambda *a: lax.ragged_all_to_all(*a, axis_name="i"), axis_name="i")
        >>> f(operand, output, offsets([0, 1], [0, 1]), offsets([1, 2], [1, 1]),
        ...   offsets([0, 0], [1, 2]), offsets([1, 1], [2, 1]))
        Array([[1, 3, 0, 0],
               [2, 2, 4, 0]], dtype=int32)
    """
    from funcarray import lax

    what = "ragged_all_to_all"
    _no_groups(what, axis_index_groups)
    (name,) = names = _single_axis_name(what, axis_name)
    size = named_axis_size(name, f"lax.{what}")
    operand = asarray_arg(f"lax.{what}", operand)
    output = asarray_arg(f"lax.{what}", output)
    if operand.ndim == 0 or operand.shape[1:] != output.shape[1:] \
            or operand.dtype != output.dtype:
        raise TypeError(
            f"lax.{what}: operand {operand.aval.str_short()} and output "
            f"{output.aval.str_short()} must be arrays of one dtype whose shapes differ only "
            f"in the leading (ragged) axis")
    meta = [asarray_arg(f"lax.{what}", a) for a in
            (input_offsets, send_sizes, output_offsets, recv_sizes)]
    count = meta[0].shape[0] if meta[0].ndim == 1 else -1
    if any(m.ndim != 1 or m.shape[0] != count or m.dtype.kind not in "iu" for m in meta):
        raise TypeError(
            f"lax.{what}: input_offsets, send_sizes, output_offsets and recv_sizes must be "
            f"1-d integer arrays of one length, got "
            f"{', '.join(m.aval.str_short() for m in meta)}")
    if count % size:
        raise ValueError(f"lax.{what}: {count} offsets do not divide among the {size} members "
                         f"of the axis {name!r}")
    per_member = count // size

    def gather(v):
        return all_gather_p.bind(v, axis_name=names, axis=0, tiled=False, axis_size=size)

    rows = operand.shape[0]
    # The slices meant for me: for each sender s, entries me*per_member... of its metadata.
    me = axis_index_p.bind(axis_name=names)
    mine = [lax.dynamic_slice_in_dim(gather(m.astype(np.int32)), me * per_member, per_member,
                                     axis=1) for m in meta[:3]]
    starts, sizes, dests = (m[:, :, None] for m in mine)  # (senders, slices, 1)
    step = lax.iota(np.int32, rows)  # row t of each slice
    source_rows = (starts + step).clip(0, rows - 1)  # (senders, slices, rows)
    senders = lax.iota(np.int32, source_rows.shape[0]).reshape(-1, 1, 1)
    sent = gather(operand)[senders, source_rows]  # (senders, slices, rows, ...)
    # Rows past a slice's size go to an index past the output's end: dropped.
    rows_at = dests + step
    targets = lax.select(step < sizes, rows_at, lax.full(rows_at.shape, output.shape[0], np.int32))
    return output.at[targets.reshape(-1)].set(
        sent.reshape((-1,) + operand.shape[1:]), mode="drop")


def axis_size(axis_name: Hashable) -> int:
    """The size of the enclosing ``vmap``'s named axis (the product of the sizes for a
    tuple of names), as a Python int.

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> fa.vmap(lambda x: x * lax.axis_size("i"), axis_name="i")(fnp.ones(3))
        Array([3., 3., 3.], dtype=float32)
    """
    names = tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)
    size = 1
    for name in names:
        size *= named_axis_size(name, "lax.axis_size")
    return size
