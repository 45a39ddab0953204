"""``jax.lax``'s grouped (ragged) matrix products: ``ragged_dot``, ``ragged_dot_general`` and
``RaggedDotDimensionNumbers``.

One dimension of ``lhs`` (the ragged dimension) is cut into consecutive groups whose sizes are
``group_sizes``. The three modes follow from where that dimension sits:

* non-contracting (``ragged_dot``'s case, a mixture of experts): the rows of group ``i`` are
  multiplied by slice ``i`` of ``rhs``'s group dimension; rows after the last group are 0;
* contracting: the contraction is split per group, and the result gets a leading group axis;
* batch: an ordinary ``dot_general`` (as in JAX, the groups do not change the result).

The product is a composition, not a primitive: ``lhs`` (and, contracting, ``rhs``) is expanded
to one masked copy per group (``where`` on the group's positions), and a single ``dot_general``
contracts the group axis against ``rhs``'s group dimension. So it differentiates, batches and
compiles through ``where``'s and ``dot_general``'s rules, at the cost of ``groups`` times
``lhs``'s memory and flops (XLA's native ragged dot skips the zeros).

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray import lax
    >>> lhs = fnp.arange(6.0).reshape(3, 2)               # rows 0-1 are group 0, row 2 group 1
    >>> rhs = fnp.stack([fnp.eye(2), 2 * fnp.eye(2)])      # one (2, 2) matrix per group
    >>> lax.ragged_dot(lhs, rhs, fnp.asarray([2, 1]))
    Array([[ 0.,  1.],
           [ 2.,  3.],
           [ 8., 10.]], dtype=float32)
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import (
    _int_tuple,
    _moveaxes,
    _transpose,
    broadcast_shapes,
    broadcast_to_shape,
    convert,
)
from funcarray.base.array import Array
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.lax._ops_common import _operand, _short
from funcarray.lax._ops_dot import _dot_general
from funcarray.primitives.dot_general import dot_general_p
from funcarray.transforms.host_shortcuts import host_shortcut, host_value

if TYPE_CHECKING:
    from collections.abc import Sequence

    from funcarray.base.typing import ArrayLike, DTypeLike
    from funcarray.lax._dot_algorithms import DotDimensionNumbers, PrecisionLike

__all__ = ["RaggedDotDimensionNumbers", "ragged_dot", "ragged_dot_general"]


@dataclasses.dataclass(frozen=True)
class RaggedDotDimensionNumbers:
    """The dimensions of a ragged product (jax.lax's class): ``dot_dimension_numbers`` as for
    ``dot_general`` (``((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))``), the
    one ragged dimension of ``lhs`` (``lhs_ragged_dimensions``) and, when it is a
    non-contracting dimension, the one group dimension of ``rhs`` (``rhs_group_dimensions``).

    Example:
        >>> from funcarray import lax
        >>> lax.RaggedDotDimensionNumbers((([1], [1]), ([], [])), [0], [0]).lhs_ragged_dimensions
        (0,)
    """

    dot_dimension_numbers: tuple
    lhs_ragged_dimensions: tuple
    rhs_group_dimensions: tuple

    def __init__(self, dot_dimension_numbers: DotDimensionNumbers,
                 lhs_ragged_dimensions: Sequence[int],
                 rhs_group_dimensions: Sequence[int]) -> None:
        set_ = object.__setattr__  # (a frozen dataclass normalising its fields)
        set_(self, "dot_dimension_numbers",
             tuple(tuple(tuple(int(d) for d in dims) for dims in pair)
                   for pair in dot_dimension_numbers))
        set_(self, "lhs_ragged_dimensions", tuple(int(d) for d in lhs_ragged_dimensions))
        set_(self, "rhs_group_dimensions", tuple(int(d) for d in rhs_group_dimensions))


_BASIC = RaggedDotDimensionNumbers((((1,), (1,)), ((), ())), (0,), (0,))


def _others(rank: int, *used) -> list:
    taken = {d for dims in used for d in dims}
    return [d for d in range(rank) if d not in taken]


def _prefix(mode: str, rank: int, ragged: int, batch, contract) -> list:
    """The dimensions ``group_sizes`` may vary over, outer to the ragged one (JAX's order:
    batch dimensions, then the dimensions of the ragged one's kind before it)."""
    batch, contract = list(batch), list(contract)
    if mode == "noncontracting":
        free = _others(rank, batch, contract)
        return batch + free[:free.index(ragged)]
    if mode == "contracting":
        return batch + contract[:contract.index(ragged)]
    return batch[:batch.index(ragged)]


def _group_masked(x, sizes, ragged: int, prefix: list):
    """``x`` repeated once per group along a new leading axis, each copy zero outside its
    group's positions along ``ragged``. ``sizes`` has shape ``[x's prefix dims..., groups]``
    (or ``[groups]`` for every position)."""
    from funcarray import lax

    groups = sizes.shape[-1]
    ends = sizes.cumsum(axis=-1)
    starts = ends - sizes
    bounds = []
    for b in (starts, ends):
        b = _moveaxes(b, (b.ndim - 1,), (0,))  # (groups, prefix...)
        if b.ndim > 1:  # prefix dims in x's order, so a reshape can place them
            order = np.argsort(prefix)
            b = _transpose(b, (0, *(int(d) for d in 1 + order)))
            placed = set(prefix)
        else:
            placed = set()
        bounds.append(b.reshape((groups,) + tuple(
            x.shape[d] if d in placed else 1 for d in range(x.ndim))))
    position = lax.iota(sizes.dtype, x.shape[ragged]).reshape(
        tuple(x.shape[ragged] if d == ragged else 1 for d in range(x.ndim)))
    inside = (bounds[0] <= position) & (position < bounds[1])
    # (numpy.where(inside, x[None], zeros((), x.dtype)): a strong result of x's dtype)
    shape = broadcast_shapes("where", inside.shape, (1,) + x.shape)
    return lax.select(broadcast_to_shape(inside, shape),
                      broadcast_to_shape(convert(x[None], x.dtype), shape),
                      lax.full(shape, 0, x.dtype))


def _ragged_dot_general_on_host(lhs, rhs, group_sizes, ragged_dot_dimension_numbers,
                                precision=None, preferred_element_type=None,
                                group_offset=None, out_sharding=None):
    """``ragged_dot``'s layout (lhs ``(m, k)``, rhs ``(g, k, n)`` of one dtype, ``(g,)``
    integer group sizes, the default precision and result type): the general path's masked
    copies of lhs made with NumPy (the same values: lhs's own or +0), then its dot_general."""
    lv, rv, sizes = host_value(lhs), host_value(rhs), host_value(group_sizes)
    if (lv is None or rv is None or sizes is None or precision is not None
            or preferred_element_type is not None or group_offset is not None
            or out_sharding is not None or ragged_dot_dimension_numbers != _BASIC
            or lv.dtype != rv.dtype or lv.ndim != 2 or rv.ndim != 3 or sizes.ndim != 1
            or sizes.dtype.kind not in "iu" or rv.shape[0] != sizes.shape[0]
            or lv.shape[1] != rv.shape[1]):
        return NotImplemented
    ends = np.cumsum(sizes, dtype=sizes.dtype)  # (wrapping as the general path's cumsum)
    starts = ends - sizes
    position = np.arange(lv.shape[0], dtype=sizes.dtype)
    inside = (starts[:, None] <= position) & (position < ends[:, None])
    masked = np.where(inside[:, :, None], lv, np.zeros((), lv.dtype))
    return dot_general_p.impl(Array(masked), rhs, dimension_numbers=(((2, 0), (1, 0)), ((), ())))


@host_shortcut(_ragged_dot_general_on_host)
def ragged_dot_general(lhs: ArrayLike, rhs: ArrayLike, group_sizes: ArrayLike,
                       ragged_dot_dimension_numbers: RaggedDotDimensionNumbers,
                       precision: PrecisionLike = None,
                       preferred_element_type: DTypeLike | None = None,
                       group_offset: ArrayLike | None = None, out_sharding: None = None) -> Array:
    """Grouped ``dot_general``: ``lhs``'s ragged dimension is cut into consecutive groups of
    ``group_sizes`` (shape ``[g]``, or ``[b..., x..., g]`` to vary over the batch and outer
    dimensions, as in JAX), and each group is multiplied by its own slice of ``rhs``'s group
    dimension (non-contracting mode), contracted on its own (contracting mode: the result
    gets a leading axis of ``g``) or multiplied normally (batch mode). ``group_offset`` is
    not supported (nor is it by JAX); ``out_sharding`` is accepted and ignored (one device).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> dn = lax.RaggedDotDimensionNumbers((([1], [0]), ([], [])), [1], [])  # contracting
        >>> lax.ragged_dot_general(fnp.ones((1, 3)), fnp.ones((3, 2)), fnp.asarray([1, 2]), dn)
        Array([[[1., 1.]],
        <BLANKLINE>
               [[2., 2.]]], dtype=float32)
    """
    op = "lax.ragged_dot_general"
    lhs, rhs = _operand(op, lhs, "lhs"), _operand(op, rhs, "rhs")
    sizes = _operand(op, group_sizes, "group_sizes")
    if group_offset is not None:
        raise NotImplementedError(f"{op}: group_offset is not supported (JAX does not "
                                  f"implement it either); slice the groups beforehand")
    if sizes.dtype.kind not in "iu":
        raise op_type_error(op, f"group_sizes must have an integer dtype, got {_short(sizes)}")
    if sizes.ndim == 0:
        raise op_type_error(op, "group_sizes must have at least one dimension (the groups)")
    dn = ragged_dot_dimension_numbers
    if not isinstance(dn, RaggedDotDimensionNumbers):
        if not all(hasattr(dn, f) for f in ("dot_dimension_numbers", "lhs_ragged_dimensions",
                                            "rhs_group_dimensions")):
            raise op_type_error(op, f"ragged_dot_dimension_numbers must be a "
                                    f"lax.RaggedDotDimensionNumbers, got {dn!r}")
        dn = RaggedDotDimensionNumbers(dn.dot_dimension_numbers, dn.lhs_ragged_dimensions,
                                       dn.rhs_group_dimensions)
    try:
        (lc, rc), (lb, rb) = dn.dot_dimension_numbers
    except ValueError:
        raise op_type_error(op, f"dot_dimension_numbers must be ((lhs_contracting, "
                                f"rhs_contracting), (lhs_batch, rhs_batch)), got "
                                f"{dn.dot_dimension_numbers!r}") from None
    # The operands are checked here, in the caller's terms, before any group axis is added.
    for side, x, dims in (("lhs", lhs, lc + lb), ("rhs", rhs, rc + rb)):
        if any(not 0 <= d < x.ndim for d in dims):
            raise op_value_error(op, f"{side} dimension numbers {dims} must be non-negative and "
                                     f"less than the rank of {side} {_short(x)}")
    for what, left, right in (("contracting", lc, rc), ("batch", lb, rb)):
        if [lhs.shape[d] for d in left] != [rhs.shape[d] for d in right]:
            raise op_type_error(op, f"{what} dimensions {left} of lhs {_short(lhs)} and "
                                    f"{right} of rhs {_short(rhs)} must have equal sizes")
    if len(dn.lhs_ragged_dimensions) != 1:
        raise op_type_error(op, f"exactly one lhs ragged dimension is needed, got "
                                f"{dn.lhs_ragged_dimensions}")
    (ragged,) = _int_tuple(op, dn.lhs_ragged_dimensions, "lhs_ragged_dimensions",
                           sequence_only=True)
    if not 0 <= ragged < lhs.ndim:
        raise op_value_error(op, f"the lhs ragged dimension {ragged} is out of range for lhs "
                                 f"{_short(lhs)}")
    if ragged in lb:
        mode = "batch"
    elif ragged in lc:
        mode = "contracting"
    else:
        mode = "noncontracting"
    groups = sizes.shape[-1]
    if sizes.ndim > 1:
        expected = tuple(lhs.shape[d] for d in _prefix(mode, lhs.ndim, ragged, lb, lc))
        if sizes.shape != expected + (groups,):
            raise op_type_error(op, f"group_sizes must have shape {expected + (groups,)} (or "
                                    f"({groups},)) for these dimension numbers, got "
                                    f"{_short(sizes)}")
    group_dims = dn.rhs_group_dimensions
    if mode != "noncontracting":
        if group_dims:
            raise op_type_error(op, f"rhs_group_dimensions must be empty when the lhs ragged "
                                    f"dimension is a {mode} dimension, got {group_dims}")
        if mode == "batch":  # the groups do not change a batched product (JAX's reading)
            return _dot_general(op, lhs, rhs, ((lc, rc), (lb, rb)), precision,
                                preferred_element_type)
        rhs_ragged = rc[lc.index(ragged)]
        lhs_x = _group_masked(lhs, sizes, ragged, _prefix(mode, lhs.ndim, ragged, lb, lc))
        rhs_x = _group_masked(rhs, sizes, rhs_ragged, _prefix(mode, rhs.ndim, rhs_ragged,
                                                              rb, rc))
        shift = lambda dims: tuple(d + 1 for d in dims)  # noqa: E731
        return _dot_general(op, lhs_x, rhs_x, ((shift(lc), shift(rc)),
                                               ((0, *shift(lb)), (0, *shift(rb)))),
                            precision, preferred_element_type)
    if len(group_dims) != 1:
        raise op_type_error(op, f"exactly one rhs group dimension is needed when the lhs ragged "
                                f"dimension is a non-contracting one, got {group_dims}")
    (group_dim,) = group_dims
    if not 0 <= group_dim < rhs.ndim or group_dim in rc or group_dim in rb:
        raise op_type_error(op, f"the rhs group dimension {group_dim} must be a dimension of "
                                f"rhs {_short(rhs)} that is neither contracting nor batch")
    if rhs.shape[group_dim] != groups:
        raise op_type_error(op, f"rhs's group dimension {group_dim} has size "
                                f"{rhs.shape[group_dim]}, but group_sizes has {groups} groups")
    lhs_x = _group_masked(lhs, sizes, ragged, _prefix(mode, lhs.ndim, ragged, lb, lc))
    return _dot_general(op, lhs_x, rhs, (((*(d + 1 for d in lc), 0), (*rc, group_dim)),
                                         (tuple(d + 1 for d in lb), rb)),
                        precision, preferred_element_type)


def _ragged_dot_on_host(lhs, rhs, group_sizes, precision=None, preferred_element_type=None,
                        group_offset=None, out_sharding=None):
    return _ragged_dot_general_on_host(lhs, rhs, group_sizes, _BASIC, precision,
                                       preferred_element_type, group_offset, out_sharding)


@host_shortcut(_ragged_dot_on_host)
def ragged_dot(lhs: ArrayLike, rhs: ArrayLike, group_sizes: ArrayLike,
               precision: PrecisionLike = None, preferred_element_type: DTypeLike | None = None,
               group_offset: ArrayLike | None = None, out_sharding: None = None) -> Array:
    """Grouped matrix product: ``lhs`` ``(m, k)``, ``rhs`` ``(g, k, n)``, ``group_sizes``
    ``(g,)``. Rows ``sum(group_sizes[:i])`` to ``sum(group_sizes[:i + 1])`` of ``lhs`` are
    multiplied by ``rhs[i]``; rows after the last group give zeros. Result ``(m, n)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.ragged_dot(fnp.ones((3, 2)), fnp.ones((2, 2, 1)), fnp.asarray([1, 1]))
        Array([[2.],
               [2.],
               [0.]], dtype=float32)
    """
    return ragged_dot_general(lhs, rhs, group_sizes, _BASIC, precision=precision,
                              preferred_element_type=preferred_element_type,
                              group_offset=group_offset, out_sharding=out_sharding)
