"""More of ``jax.lax``'s operations, composed from existing ones (no new primitive, so eager,
jit, grad and vmap come from their rules): ``scatter_sub``, ``scatter_apply``,
``conv_general_dilated_local`` (unshared convolution) and ``scaled_dot`` (block-scaled
product).

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray import lax
    >>> dn = lax.ScatterDimensionNumbers((), (0,), (0,))
    >>> lax.scatter_sub(fnp.zeros(3), fnp.asarray([[1], [1]]), fnp.asarray([2.0, 3.0]), dn)
    Array([ 0., -5.,  0.], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from funcarray.api.arguments import _int_tuple, _moveaxes, convert
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.lax._ops_common import (
    _checked_bind,
    _operand,
    _same_dtype_operands,
    _short,
)
from funcarray.lax._ops_slicing import ScatterDimensionNumbers, _dimension_numbers, _mode
from funcarray.primitives import elementwise as ew
from funcarray.primitives import indexing as ix

__all__ = ["scatter_sub", "scatter_apply", "conv_general_dilated_local", "scaled_dot"]


def scatter_sub(operand, scatter_indices, updates, dimension_numbers, *,
                indices_are_sorted=False, unique_indices=False, mode=None):
    """XLA's scatter, as in jax.lax: each window of ``updates`` is subtracted from
    ``operand`` at its start (repeated indices subtract repeatedly); by default windows that
    do not fit are dropped. It is ``scatter_add`` of ``-updates`` (exact: ``x - u`` is
    ``x + (-u)`` in floating point and in wrapping integer arithmetic), so its derivatives
    are scatter_add's.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> dn = lax.ScatterDimensionNumbers((), (0,), (0,))
        >>> lax.scatter_sub(fnp.ones(3), fnp.asarray([[0], [2]]), fnp.asarray([1.0, 4.0]), dn)
        Array([ 0.,  1., -3.], dtype=float32)
    """
    op = "lax.scatter_sub"
    x = _operand(op, operand)
    indices = _operand(op, scatter_indices, "scatter_indices")
    x, ups = _same_dtype_operands(op, (x, updates), anchor=0)
    if x.dtype == np.bool_:
        raise op_type_error(op, f"does not accept bool operands ({_short(x)}); there is no "
                                f"subtraction of booleans")
    dn = _dimension_numbers(op, dimension_numbers, ScatterDimensionNumbers)
    return _checked_bind(op, ix.scatter_add_p, x, indices, ew.neg_p.bind(ups),
                         dimension_numbers=dn, indices_are_sorted=bool(indices_are_sorted),
                         unique_indices=bool(unique_indices), mode=_mode(op, mode, False))


def _elementwise(func, dtype):
    """``func`` (a function of one scalar, as jax.lax's ``scatter_apply`` traces it) applied
    to every element of an array of ``dtype``."""
    from funcarray.api.vectorization import vmap

    def apply(v):
        if v.size == 0:
            return v
        out = vmap(func)(v.reshape(-1))
        if getattr(out, "shape", None) != (v.size,) or out.dtype != dtype:
            raise op_type_error("lax.scatter_apply", f"func must map a {dtype} scalar to a "
                                                     f"{dtype} scalar, got {_short(out)} per "
                                                     f"element")
        return out.reshape(v.shape)
    return apply


def _select_same_dtype(pred, on_true, on_false):
    """``numpy.where(pred, on_true, on_false)`` for cases of one dtype and of ``pred``'s
    shape: weak only when both cases are."""
    weak = on_true.weak_type and on_false.weak_type
    return ew.select_n_p.bind(pred, convert(on_false, on_false.dtype, weak),
                              convert(on_true, on_true.dtype, weak))


def scatter_apply(operand, scatter_indices, func, dimension_numbers, *, update_shape=(),
                  indices_are_sorted=False, unique_indices=False, mode=None):
    """Apply ``func`` (a function of one scalar) to the elements of ``operand`` that the
    scatter described by ``scatter_indices``, ``dimension_numbers`` and ``update_shape`` (the
    shape its updates would have) reaches; an element reached ``n`` times gets ``func``
    applied ``n`` times, as in jax.lax.

    It counts the hits with a ``scatter_add`` and applies ``func`` where the count allows,
    once per round (a ``while_loop`` while any element needs more); with
    ``unique_indices=True`` that is one ``where``, which also differentiates (JAX's has no
    derivative).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> dn = lax.ScatterDimensionNumbers((), (0,), (0,))
        >>> lax.scatter_apply(fnp.ones(3), fnp.asarray([[2], [0], [2]]), lambda v: v * 3, dn,
        ...                   update_shape=(3,))
        Array([3., 1., 9.], dtype=float32)
    """
    from funcarray import lax

    op = "lax.scatter_apply"
    x = _operand(op, operand)
    indices = _operand(op, scatter_indices, "scatter_indices")
    if not callable(func):
        raise op_type_error(op, f"func must be a function of one scalar, got {func!r}")
    dn = _dimension_numbers(op, dimension_numbers, ScatterDimensionNumbers)
    shape = _int_tuple(op, update_shape, "update_shape", sequence_only=True)
    counts = _checked_bind(op, ix.scatter_add_p, lax.full(x.shape, 0, np.int32), indices,
                           lax.full(shape, 1, np.int32), dimension_numbers=dn,
                           indices_are_sorted=bool(indices_are_sorted),
                           unique_indices=bool(unique_indices), mode=_mode(op, mode, False))
    apply = _elementwise(func, x.dtype)
    if unique_indices:
        return _select_same_dtype(counts > 0, apply(x), x)

    def more(state):
        done, _ = state
        return (counts > done).any()

    def again(state):
        done, value = state
        return done + 1, _select_same_dtype(counts > done, apply(value), value)

    return lax.while_loop(more, again, (np.int32(0), x))[1]


def conv_general_dilated_local(lhs, rhs, window_strides, padding, filter_shape,
                               lhs_dilation=None, rhs_dilation=None, dimension_numbers=None,
                               precision=None):
    """Unshared (locally connected) convolution, as in jax.lax: like
    ``conv_general_dilated``, but with its own kernel at each output position. ``rhs`` has
    the output's spatial sizes in its spatial dimensions, and its input-feature dimension
    holds ``C * prod(filter_shape)`` entries (channel first, then the window positions in the
    kernel's spatial order), as ``conv_general_dilated_patches`` lays them out; the result
    is those patches contracted with ``rhs`` position by position.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> x = fnp.arange(4.0).reshape(1, 1, 4)  # NCW: one channel, width 4
        >>> # O=1; I = C * 2 window taps; one kernel per output position (width 3)
        >>> w = fnp.asarray([[[1.0, 0.0, 2.0], [1.0, 0.0, 3.0]]])
        >>> lax.conv_general_dilated_local(x, w, (1,), "VALID", (2,))
        Array([[[ 1.,  0., 13.]]], dtype=float32)
    """
    from funcarray import lax
    from funcarray.lax._conv import conv_dimension_numbers
    from funcarray.lax._dot_algorithms import algorithm_of
    from funcarray.lax._ops_dot import _canonicalize_precision

    op = "lax.conv_general_dilated_local"
    x = _operand(op, lhs, "lhs")
    kernel = _operand(op, rhs, "rhs")
    # The patches are exact copies; a per-operand precision is passed on as jax does.
    patch_precision = None
    if precision is not None and algorithm_of(precision) is None:
        patch_precision = _canonicalize_precision(op, precision)[0]
    patches = lax.conv_general_dilated_patches(
        x, filter_shape, window_strides, padding, lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation, dimension_numbers=dimension_numbers,
        precision=patch_precision)
    numbers = conv_dimension_numbers(x.shape, (1, 1) + tuple(filter_shape), dimension_numbers)
    lhs_spec, rhs_spec, out_spec = numbers
    if kernel.ndim != x.ndim:
        raise op_type_error(op, f"rhs {_short(kernel)} must have the rank of lhs {_short(x)}")
    want = {rhs_spec[1]: patches.shape[out_spec[1]]}
    want.update({r: patches.shape[o] for r, o in zip(rhs_spec[2:], out_spec[2:])})
    wrong = [d for d, size in want.items() if kernel.shape[d] != size]
    if wrong:
        expected = tuple(want.get(d, kernel.shape[d]) for d in range(kernel.ndim))
        spatial = tuple(patches.shape[o] for o in out_spec[2:])
        raise op_value_error(
            op, f"rhs {_short(kernel)} does not fit: with these strides and padding its "
                f"spatial dimensions must be the output's {spatial} "
                f"and its input-feature dimension C * prod(filter_shape) = "
                f"{patches.shape[out_spec[1]]}; expected shape {expected} (the 'O' size free)")
    # Spatial positions are batch dimensions of the contraction, in the patches' order.
    pairs = sorted(zip(out_spec[2:], rhs_spec[2:]))
    dn = (((out_spec[1],), (rhs_spec[1],)),
          (tuple(p for p, _ in pairs), tuple(r for _, r in pairs)))
    out = lax.dot_general(patches, kernel, dn, precision=precision)
    # (spatial..., N, O) -> the output layout
    return _moveaxes(out, (out.ndim - 2, out.ndim - 1), (out_spec[0], out_spec[1]))


def _check_scale(op, side, x, scale, contracting):
    if scale.ndim != x.ndim:
        raise op_type_error(op, f"{side}_scale {_short(scale)} must have the rank of {side} "
                                f"{_short(x)}")
    for d, (size, blocks) in enumerate(zip(x.shape, scale.shape)):
        if d in contracting:
            if blocks == 0 or size % blocks or size // blocks < 2:
                raise op_type_error(
                    op, f"{side} contracting dimension {d} of size {size} must be a multiple "
                        f"(at least 2x) of its scale's size, got {side}_scale {_short(scale)}")
        elif blocks != size:
            raise op_type_error(op, f"{side} dimension {d} of size {size} must match "
                                    f"{side}_scale's ({_short(scale)})")


def _scaled(x, scale, contracting):
    """``x * scale`` in bfloat16, each scale entry covering a block of the contracting
    dimensions (JAX's decomposition)."""
    from funcarray.base.dtypes import bfloat16

    x = x.astype(bfloat16)
    if scale is None:
        return x
    scale = scale.astype(bfloat16)
    for d in contracting:
        if scale.shape[d] != x.shape[d]:
            scale = scale.repeat(x.shape[d] // scale.shape[d], axis=d)
    return x * scale


def scaled_dot(lhs, rhs, *, lhs_scale=None, rhs_scale=None, dimension_numbers=None,
               preferred_element_type=None):
    """Block-scaled product, as in jax.lax: ``(lhs * lhs_scale) @ (rhs * rhs_scale)`` by
    ``dot_general``, where each scale entry covers a block of the contracting dimension
    (which is a multiple, at least 2x, of the scale's) and matches the other dimensions. The
    scaled operands are bfloat16 and the result ``preferred_element_type`` (bfloat16 by
    default). Default dimension numbers: a (batched) matrix product.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.scaled_dot(fnp.ones((1, 4)), fnp.ones((4, 1)),
        ...                lhs_scale=fnp.asarray([[1.0, 2.0]]), preferred_element_type=fnp.float32)
        Array([[6.]], dtype=float32)
    """
    from funcarray import lax
    from funcarray.base.dtypes import bfloat16

    op = "lax.scaled_dot"
    x, y = _operand(op, lhs, "lhs"), _operand(op, rhs, "rhs")
    if dimension_numbers is None:
        if x.ndim < 2:
            raise op_type_error(op, f"operands of rank 0 or 1 need dimension_numbers, got lhs "
                                    f"{_short(x)}")
        n = x.ndim
        dimension_numbers = (((n - 1,), (n - 2,)), (tuple(range(n - 2)), tuple(range(n - 2))))
    (lc, rc), _ = dimension_numbers
    lc = _int_tuple(op, lc, "lhs_contracting", sequence_only=True)
    rc = _int_tuple(op, rc, "rhs_contracting", sequence_only=True)
    if x.ndim != y.ndim:
        raise op_type_error(op, f"lhs {_short(x)} and rhs {_short(y)} must have one rank")
    scales = []
    for side, operand, scale, dims in (("lhs", x, lhs_scale, lc), ("rhs", y, rhs_scale, rc)):
        if scale is not None:
            scale = _operand(op, scale, f"{side}_scale")
            _check_scale(op, side, operand, scale, dims)
        scales.append(scale)
    out_dtype = bfloat16 if preferred_element_type is None else preferred_element_type
    return lax.dot_general(_scaled(x, scales[0], lc), _scaled(y, scales[1], rc),
                           dimension_numbers, preferred_element_type=out_dtype)

