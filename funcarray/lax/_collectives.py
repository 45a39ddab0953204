"""Collectives over named vmap axes, as in ``jax.lax``: ``psum``, ``pmean``, ``pmax``,
``pmin``, ``all_gather``, ``ppermute`` and ``axis_index``.

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

from funcarray import tree as fa_tree
from funcarray.numpy._util import asarray_arg
from funcarray.primitives.collectives import (
    all_gather_p,
    axis_index_p,
    pmax_p,
    pmin_p,
    ppermute_p,
    psum_p,
)
from funcarray.transforms.vmap import named_axis_size

__all__ = ["psum", "pmean", "pmax", "pmin", "all_gather", "ppermute", "axis_index"]


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


def psum(x, axis_name, *, axis_index_groups=None):
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


def pmean(x, axis_name, *, axis_index_groups=None):
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


def pmax(x, axis_name, *, axis_index_groups=None):
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


def pmin(x, axis_name, *, axis_index_groups=None):
    """The minimum of ``x`` over the members of the named vmap axis (or axes).

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> fa.vmap(lambda x: lax.pmin(x, "i"), axis_name="i")(fnp.asarray([1.0, 5.0, 2.0]))
        Array([1., 1., 1.], dtype=float32)
    """
    _no_groups("pmin", axis_index_groups)
    return _map_bind("pmin", pmin_p, x, axis_name=_axis_names("pmin", axis_name))


def all_gather(x, axis_name, *, axis_index_groups=None, axis=0, tiled=False):
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


def ppermute(x, axis_name, perm):
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


def axis_index(axis_name):
    """This member's index along the named vmap axis (int32).

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> fa.vmap(lambda x: x * lax.axis_index("i"), axis_name="i")(fnp.ones(3))
        Array([0., 1., 2.], dtype=float32)
    """
    names = _single_axis_name("axis_index", axis_name)
    return axis_index_p.bind(axis_name=names)
