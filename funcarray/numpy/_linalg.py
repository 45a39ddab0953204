"""Linear algebra products of ``funcarray.numpy``: matmul, dot, tensordot, einsum and friends.

Every product here is one or more ``dot_general`` primitives (see
``funcarray/primitives/dot_general.py``) plus shape bookkeeping, as in ``jax.numpy``: the functions
promote their operands to one dtype (JAX's lattice, weak Python scalars), check the shapes in
Python with errors that name the function and both shapes, and bind primitives, so they work
eagerly and under every transform.

``preferred_element_type`` asks for a wider result (``int8 @ int8`` accumulated in ``int32``,
``bfloat16`` products returned as ``float32``); ``precision`` is a hint for accelerators
(``None``, ``"default"``, ``"high"``, ``"highest"`` or a pair of them).
"""

from __future__ import annotations

import functools
import math
import operator
from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import (
    asarray_arg,
    broadcast_to_shape,
    canonicalize_axis,
    convert,
    convert_arg,
    is_array,
)
from funcarray.base import dtypes
from funcarray.base.array import Array, DeviceArray
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.lax._ops_dot import _canonicalize_precision
from funcarray.numpy._creation import full
from funcarray.numpy._elementwise import multiply, negative, subtract
from funcarray.numpy._math_functions import conjugate
from funcarray.numpy._products_on_host import (
    _cross_on_host,
    _dot_on_host,
    _einsum_on_host,
    _inner_on_host,
    _outer_on_host,
    _vdot_on_host,
    _vecdot_on_host,
)
from funcarray.primitives.dot_general import (
    NATIVE_MATMUL_DTYPES,
    can_accumulate_in,
    dot_general_p,
    plain_matmul,
)
from funcarray.primitives.elementwise import and_p, eq_p
from funcarray.primitives.reduce import reduce_or_p, reduce_sum_p
from funcarray.primitives.select_n import select_n_p
from funcarray.primitives.shape import (
    concatenate_p,
    iota_p,
    reshape_p,
    slice_p,
    squeeze_p,
    transpose_p,
)
from funcarray.transforms.host_shortcuts import host_shortcut

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from funcarray.base.typing import ArrayLike, DTypeLike

__all__ = [
    "matmul", "dot", "vdot", "vecdot", "inner", "outer", "tensordot", "einsum", "kron", "cross",
]

# --------------------------------------------------------------------------------------------
# Shared helpers
# --------------------------------------------------------------------------------------------

def _bit_width(dt) -> int:
    """Bits of a bool (1), an integer, or a float or complex number's real part."""
    if dtypes.is_inexact(dt):
        return dtypes.finfo(dt).bits
    return 1 if np.dtype(dt) == np.bool_ else dtypes.iinfo(dt).bits


def _dot_general_of(op, arrays) -> bool:
    """Whether jax computes ``op`` of ``arrays`` with a dot_general: not an einsum of one
    operand (a sum), nor an inner with a 0-d operand (a multiply); both convert."""
    if op == "einsum":
        return len(arrays) > 1
    return not (op == "inner" and any(a.ndim == 0 for a in arrays))


class _Product:
    """The promoted operands of a product and the dtype settings every dot_general shares."""

    def __init__(self, op: str, operands, precision, preferred_element_type):
        arrays = [asarray_arg(op, x) for x in operands]
        dtype, weak = arrays[0].dtype, False
        if any(a.weak_type or a.dtype != dtype for a in arrays):  # else nothing to promote
            try:
                dtype, weak = dtypes.result_type(*arrays, return_weak_type=True)
            except TypeError as exc:
                raise op_type_error(op, str(exc)) from None
        # Keep each operand's own weak flag: dot_general's result is weak only when both are.
        # (A Python float is converted from itself, not from its float32 array: float64 keeps
        # its precision.)
        self.operands = [
            a if a.dtype == dtype else convert_arg(
                op, x if type(x) in (float, complex) else a, dtype, a.weak_type)
            for x, a in zip(operands, arrays)]
        self.dtype, self.weak = dtype, weak
        self.precision = _canonicalize_precision(op, precision)
        self.preferred = None
        if preferred_element_type is not None:
            self.preferred = dtypes.canonicalize_dtype(preferred_element_type)
            if not can_accumulate_in(dtype, self.preferred):
                raise op_type_error(
                    op, f"preferred_element_type {self.preferred} cannot hold products of "
                        f"{dtype} operands; pick a dtype of the same or a wider kind (bool < "
                        f"integer < floating < complex)")
            if (_dot_general_of(op, arrays) and not dtypes.is_float(dtype)
                    and _bit_width(self.preferred) < _bit_width(dtype)):
                # jax's dot_general rule (XLA's MaybeUpcast): products of bools, integers
                # and complex numbers never accumulate in fewer bits than the operands have.
                raise op_type_error(
                    op, f"preferred_element_type {self.preferred} is narrower than the "
                        f"{dtype} operands; pick one of at least {_bit_width(dtype)} bits")
            self.dtype, self.weak = self.preferred, False

    def dot_general(self, x, y, contracting=((), ()), batch=((), ())):
        if x.dtype != y.dtype:  # an intermediate already in preferred_element_type
            common = dtypes.promote_types(x.dtype, y.dtype)
            x, y = convert(x, common, x.weak_type), convert(y, common, y.weak_type)
        dimension_numbers = ((tuple(contracting[0]), tuple(contracting[1])),
                             (tuple(batch[0]), tuple(batch[1])))
        return dot_general_p.bind(x, y, dimension_numbers=dimension_numbers,
                                  precision=self.precision,
                                  preferred_element_type=self.preferred)

    def finish(self, out):
        """The result in the product's dtype and weak_type (a no-op after a dot_general)."""
        return convert(out, self.dtype, self.weak)


def _transpose(x, permutation):
    permutation = tuple(permutation)
    if permutation == tuple(range(x.ndim)):
        return x
    return transpose_p.bind(x, permutation=permutation)


def _reshape(x, shape):
    shape = tuple(shape)
    return x if x.shape == shape else reshape_p.bind(x, new_sizes=shape)


def _ravel(x):
    return _reshape(x, (x.size,))


def _not_aligned(op: str, a_shape, b_shape, a_dim: int, b_dim: int):
    return op_value_error(
        op, f"shapes {tuple(a_shape)} and {tuple(b_shape)} are not aligned: "
            f"{a_shape[a_dim]} (dim {a_dim} of the first) != {b_shape[b_dim]} (dim {b_dim} of "
            f"the second)")


def _broadcast_batch(op: str, a_shape, b_shape, a_batch, b_batch) -> tuple:
    try:
        return tuple(np.broadcast_shapes(tuple(a_batch), tuple(b_batch)))
    except ValueError:
        raise op_value_error(
            op, f"the batch dimensions {tuple(a_batch)} and {tuple(b_batch)} of shapes "
                f"{tuple(a_shape)} and {tuple(b_shape)} cannot be broadcast together") from None


# --------------------------------------------------------------------------------------------
# matmul, dot, vdot, vecdot, inner, outer
# --------------------------------------------------------------------------------------------

def _matmul_on_host(a, b, *, precision=None, preferred_element_type=None):
    """``a @ b`` of two strong host or device arrays of one dtype, 1-d or 2-d and aligned:
    NumPy's ``dot``, which is ``dot_general``'s kernel for them, without bind, the
    validation cache or the kernel's plan (~2 us of a ~5 us vector-matrix product in an RNN
    step). Anything else declines."""
    ta, tb = type(a), type(b)
    if ((ta is not Array and ta is not DeviceArray) or (tb is not Array and tb is not DeviceArray)
            or precision is not None or preferred_element_type is not None
            or a._weak or b._weak):
        return NotImplemented
    av, bv = a._value, b._value
    a_shape, b_shape = av.shape, bv.shape
    if (av.dtype is bv.dtype and av.dtype in NATIVE_MATMUL_DTYPES and 0 < len(a_shape) <= 2
            and 0 < len(b_shape) <= 2 and a_shape[-1] == b_shape[0]):
        return Array(np.dot(av, bv), False)
    return NotImplemented


@host_shortcut(_matmul_on_host)
def matmul(a: ArrayLike, b: ArrayLike, *, precision: Any = None,
           preferred_element_type: DTypeLike | None = None) -> Array:
    """Matrix product with NumPy's rules (``a @ b``): batch dimensions broadcast, and a 1-d
    operand is a vector (a row on the left, a column on the right) whose axis is dropped.

    Example:
        >>> import funcarray.numpy as fnp
        >>> a = fnp.array([[1.0, 2.0], [3.0, 4.0]])
        >>> fnp.matmul(a, fnp.array([1.0, 1.0]))
        Array([3., 7.], dtype=float32)
        >>> fnp.matmul(fnp.ones((5, 2, 3)), fnp.ones((3, 4))).shape
        (5, 2, 4)
    """
    if precision is None and preferred_element_type is None and is_array(a) and is_array(b):
        # Two strong arrays or tracers of one dtype, 1-d or 2-d, aligned (grad's forward
        # pass: `h @ w` on tracers): the dot_general the general path would bind, without
        # promoting anything.
        a_shape, b_shape = a.shape, b.shape
        if (a.dtype == b.dtype and not (a.weak_type or b.weak_type) and 0 < len(a_shape) <= 2
                and 0 < len(b_shape) <= 2 and a_shape[-1] == b_shape[0]):
            return plain_matmul(a, b)
    prod = _Product("matmul", (a, b), precision, preferred_element_type)
    a, b = prod.operands
    if a.ndim == 0 or b.ndim == 0:
        raise op_value_error(
            "matmul", f"operands must have at least one dimension, got shapes {a.shape} and "
                      f"{b.shape}; use multiply (or *) to scale by a scalar")
    a_dim, b_dim = a.ndim - 1, max(b.ndim - 2, 0)
    if a.shape[a_dim] != b.shape[b_dim]:
        raise _not_aligned("matmul", a.shape, b.shape, a_dim, b_dim)
    a_batch, b_batch = a.shape[:-2], b.shape[:-2]
    if not b_batch:
        # a's batch dimensions are free dimensions of dot_general and come out in place.
        return prod.dot_general(a, b, ((a_dim,), (b_dim,)))
    if not a_batch:
        out = prod.dot_general(a, b, ((a_dim,), (b_dim,)))
        if a.ndim == 1:
            return out
        # dot_general gives (m, *batch, n); matmul wants (*batch, m, n).
        return _transpose(out, (*range(1, len(b_batch) + 1), 0, out.ndim - 1))
    batch = _broadcast_batch("matmul", a.shape, b.shape, a_batch, b_batch)
    a = broadcast_to_shape(a, batch + a.shape[-2:])
    b = broadcast_to_shape(b, batch + b.shape[-2:])
    dims = tuple(range(len(batch)))
    return prod.dot_general(a, b, ((a.ndim - 1,), (b.ndim - 2,)), (dims, dims))


@host_shortcut(_dot_on_host)
def dot(a: ArrayLike, b: ArrayLike, *, precision: Any = None,
        preferred_element_type: DTypeLike | None = None) -> Array:
    """NumPy's ``dot``: a scalar operand scales the other; otherwise the last axis of ``a`` is
    summed against the second-to-last axis of ``b`` (its only axis if ``b`` is 1-d).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.dot(fnp.array([1, 2, 3]), fnp.array([4, 5, 6]))
        Array(32, dtype=int32)
        >>> fnp.dot(fnp.ones((2, 3, 4)), fnp.ones((5, 4, 6))).shape
        (2, 3, 5, 6)
    """
    prod = _Product("dot", (a, b), precision, preferred_element_type)
    a, b = prod.operands
    if a.ndim == 0 or b.ndim == 0:
        return prod.finish(prod.dot_general(a, b))
    a_dim, b_dim = a.ndim - 1, max(b.ndim - 2, 0)
    if a.shape[a_dim] != b.shape[b_dim]:
        raise _not_aligned("dot", a.shape, b.shape, a_dim, b_dim)
    return prod.dot_general(a, b, ((a_dim,), (b_dim,)))


@host_shortcut(_vdot_on_host)
def vdot(a: ArrayLike, b: ArrayLike, *, precision: Any = None,
         preferred_element_type: DTypeLike | None = None) -> Array:
    """Dot product of the flattened arrays, conjugating the first one if it is complex.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.vdot(fnp.array([1j, 2]), fnp.array([1j, 1]))
        Array(3.+0.j, dtype=complex64)
    """
    prod = _Product("vdot", (a, b), precision, preferred_element_type)
    a, b = prod.operands
    if a.size != b.size:
        raise op_value_error(
            "vdot", f"operands must have the same number of elements, got shapes {a.shape} "
                    f"({a.size} elements) and {b.shape} ({b.size} elements)")
    if dtypes.is_complex(a.dtype):
        a = conjugate(a)
    # finish: flattening two 0-d operands, one of them promoted from a weak bool, must keep
    # the promotion's weak type (``vdot(False, 0)`` is a weak int32, as ``dot``'s).
    return prod.finish(prod.dot_general(_ravel(a), _ravel(b), ((0,), (0,))))


@host_shortcut(_vecdot_on_host)
def vecdot(x1: ArrayLike, x2: ArrayLike, /, *, axis: int = -1, precision: Any = None,
           preferred_element_type: DTypeLike | None = None) -> Array:
    """Vector dot product along ``axis`` (conjugating ``x1`` if complex); the other axes
    broadcast.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.vecdot(fnp.array([[1.0, 2.0], [3.0, 4.0]]), fnp.array([1.0, 1.0]))
        Array([3., 7.], dtype=float32)
    """
    prod = _Product("vecdot", (x1, x2), precision, preferred_element_type)
    x1, x2 = prod.operands
    a1, a2 = canonicalize_axis("vecdot", axis, x1.ndim), canonicalize_axis("vecdot", axis, x2.ndim)
    if x1.shape[a1] != x2.shape[a2]:
        raise op_value_error(
            "vecdot", f"axis {axis} has size {x1.shape[a1]} in the first operand (shape "
                      f"{x1.shape}) but {x2.shape[a2]} in the second (shape {x2.shape})")
    if dtypes.is_complex(x1.dtype):
        x1 = conjugate(x1)
    x1 = _transpose(x1, (*(d for d in range(x1.ndim) if d != a1), a1))
    x2 = _transpose(x2, (*(d for d in range(x2.ndim) if d != a2), a2))
    batch = _broadcast_batch("vecdot", x1.shape, x2.shape, x1.shape[:-1], x2.shape[:-1])
    x1 = broadcast_to_shape(x1, batch + x1.shape[-1:])
    x2 = broadcast_to_shape(x2, batch + x2.shape[-1:])
    dims = tuple(range(len(batch)))
    return prod.dot_general(x1, x2, ((len(batch),), (len(batch),)), (dims, dims))


@host_shortcut(_inner_on_host)
def inner(a: ArrayLike, b: ArrayLike, *, precision: Any = None,
          preferred_element_type: DTypeLike | None = None) -> Array:
    """Sum of products over the last axes of ``a`` and ``b`` (a scalar operand scales).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.inner(fnp.array([[1, 2], [3, 4]]), fnp.array([1, 10]))
        Array([21, 43], dtype=int32)
    """
    prod = _Product("inner", (a, b), precision, preferred_element_type)
    a, b = prod.operands
    if a.ndim == 0 or b.ndim == 0:
        return prod.finish(prod.dot_general(a, b))
    if a.shape[-1] != b.shape[-1]:
        raise _not_aligned("inner", a.shape, b.shape, a.ndim - 1, b.ndim - 1)
    return prod.dot_general(a, b, ((a.ndim - 1,), (b.ndim - 1,)))


@host_shortcut(_outer_on_host)
def outer(a: ArrayLike, b: ArrayLike, out: None = None) -> Array:
    """Outer product of the flattened arrays: ``out[i, j] = a.ravel()[i] * b.ravel()[j]``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.outer(fnp.array([1, 2]), fnp.array([1, 10, 100]))
        Array([[  1,  10, 100],
               [  2,  20, 200]], dtype=int32)
    """
    if out is not None:
        raise op_value_error("outer", "out= is not supported: funcarray arrays are immutable")
    prod = _Product("outer", (a, b), None, None)
    a, b = prod.operands
    return prod.finish(prod.dot_general(_ravel(a), _ravel(b)))


# --------------------------------------------------------------------------------------------
# tensordot
# --------------------------------------------------------------------------------------------

def _axis_list(op: str, axes, ndim: int, which: str) -> tuple:
    axes = (axes,) if isinstance(axes, (int, np.integer)) else tuple(axes)
    out = tuple(canonicalize_axis(op, ax, ndim) for ax in axes)
    if len(set(out)) != len(out):
        raise op_value_error(op, f"repeated axis in {axes} for the {which} operand")
    return out


def _tensordot_axes(a, b, axes) -> tuple[tuple, tuple]:
    if isinstance(axes, (int, np.integer)):
        n = operator.index(axes)
        if not 0 <= n <= min(a.ndim, b.ndim):
            raise op_value_error(
                "tensordot", f"axes={n} must be between 0 and the smaller rank of shapes "
                             f"{a.shape} and {b.shape}")
        return tuple(range(a.ndim - n, a.ndim)), tuple(range(n))
    try:
        a_axes, b_axes = axes
    except (TypeError, ValueError):
        raise op_type_error(
            "tensordot", f"axes must be an int or a pair of axis sequences, got {axes!r}"
        ) from None
    a_axes = _axis_list("tensordot", a_axes, a.ndim, "first")
    b_axes = _axis_list("tensordot", b_axes, b.ndim, "second")
    if len(a_axes) != len(b_axes):
        raise op_value_error(
            "tensordot", f"the two operands need as many axes, got {a_axes} and {b_axes}")
    return a_axes, b_axes


def tensordot(a: ArrayLike, b: ArrayLike, axes: int | Sequence[Any] = 2, *,
              precision: Any = None, preferred_element_type: DTypeLike | None = None
              ) -> Array:
    """Sum of products over the given axes: ``axes=n`` pairs the last ``n`` axes of ``a``
    with the first ``n`` of ``b``; ``axes=(a_axes, b_axes)`` names them. The result has the
    remaining axes of ``a``, then those of ``b``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.tensordot(fnp.ones((2, 3, 4)), fnp.ones((3, 4, 5))).shape
        (2, 5)
        >>> fnp.tensordot(fnp.ones((2, 3)), fnp.ones((4, 2)), axes=([0], [1])).shape
        (3, 4)
    """
    prod = _Product("tensordot", (a, b), precision, preferred_element_type)
    a, b = prod.operands
    a_axes, b_axes = _tensordot_axes(a, b, axes)
    for a_dim, b_dim in zip(a_axes, b_axes):
        if a.shape[a_dim] != b.shape[b_dim]:
            raise _not_aligned("tensordot", a.shape, b.shape, a_dim, b_dim)
    return prod.finish(prod.dot_general(a, b, (a_axes, b_axes)))


# --------------------------------------------------------------------------------------------
# einsum
# --------------------------------------------------------------------------------------------

# (written out: the string module costs ~1 ms of start-up for this one constant)
_ASCII_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_LETTERS = frozenset(_ASCII_LETTERS)


def _parse_term(term: str, subscripts: str) -> list:
    """Letters and at most one ``'...'`` (kept as the Ellipsis object)."""
    labels, i = [], 0
    while i < len(term):
        if term.startswith("...", i):
            if Ellipsis in labels:
                raise op_value_error(
                    "einsum", f"an ellipsis '...' appears twice in one term of '{subscripts}'")
            labels.append(Ellipsis)
            i += 3
        elif term[i] in _LETTERS:
            labels.append(term[i])
            i += 1
        else:
            raise op_value_error(
                "einsum", f"invalid character {term[i]!r} in subscripts '{subscripts}'; use "
                          f"letters a-z, A-Z, ',' between operands, '->' and '...'")
    return labels


def _sublist_to_term(sublist) -> str:
    """Interleaved form ``einsum(x, [0, 1], y, [1, 2])``: ints 0-51 stand for a-z, A-Z."""
    out = []
    for s in sublist:
        if s is Ellipsis:
            out.append("...")
        elif isinstance(s, (int, np.integer)) and 0 <= s < 52:
            out.append(_ASCII_LETTERS[s])
        else:
            raise op_value_error(
                "einsum", f"subscript lists hold ints 0-51 and Ellipsis, got {s!r}")
    return "".join(out)


def _interleaved(args) -> tuple[str, tuple]:
    operands, terms = args[0::2], args[1::2]
    output = None
    if len(args) % 2:  # a trailing output sublist
        operands, output = operands[:-1], args[-1]
    subscripts = ",".join(_sublist_to_term(t) for t in terms)
    if output is not None:
        subscripts += "->" + _sublist_to_term(output)
    return subscripts, operands


def _split_subscripts(subscripts: str, n_operands: int):
    compact = subscripts.replace(" ", "")
    if compact.count("->") > 1:
        raise op_value_error("einsum", f"subscripts '{subscripts}' must have at most one '->'")
    inputs, arrow, output = compact.partition("->")
    if "," in output:
        raise op_value_error(
            "einsum", f"the output of '{subscripts}' (after '->') cannot contain ','")
    terms = inputs.split(",")
    if len(terms) != n_operands:
        raise op_value_error(
            "einsum", f"subscripts '{subscripts}' name {len(terms)} operand(s) but "
                      f"{n_operands} were given")
    return ([_parse_term(t, subscripts) for t in terms],
            _parse_term(output, subscripts) if arrow else None)


def _expand_ellipses(terms, shapes, subscripts):
    """Replace each '...' by integer labels 0..k-1 for the broadcast dimensions it covers
    (right-aligned across operands, as in NumPy); returns (labels per operand, k)."""
    n_ellipsis = []
    for index, (term, shape) in enumerate(zip(terms, shapes)):
        n_named = len(term) - (Ellipsis in term)
        extra = len(shape) - n_named
        if extra < 0 or (extra > 0 and Ellipsis not in term):
            raise op_value_error(
                "einsum", f"operand {index} has shape {shape} ({len(shape)} dimensions) but its "
                          f"subscripts '{''.join('...' if t is Ellipsis else t for t in term)}' "
                          f"in '{subscripts}' name {n_named}")
        n_ellipsis.append(extra)
    width = max(n_ellipsis, default=0)
    expanded = []
    for term, extra in zip(terms, n_ellipsis):
        labels = []
        for t in term:
            labels.extend(range(width - extra, width) if t is Ellipsis else (t,))
        expanded.append(labels)
    return expanded, width


def _output_labels(output, labels, width, subscripts):
    if output is None:
        # Implicit output: broadcast dimensions, then letters used once, in alphabetical order.
        counts = {}
        for term in labels:
            for t in term:
                counts[t] = counts.get(t, 0) + 1
        letters = sorted(t for t, c in counts.items() if c == 1 and isinstance(t, str))
        return [*range(width), *letters]
    known = {t for term in labels for t in term}
    result = []
    for t in output:
        if t is Ellipsis:
            result.extend(range(width))
            continue
        if t not in known:
            raise op_value_error(
                "einsum", f"output subscript '{t}' in '{subscripts}' does not appear in the "
                          f"inputs")
        if t in result:
            raise op_value_error(
                "einsum", f"output subscript '{t}' appears more than once in '{subscripts}'")
        result.append(t)
    return result


def _label_name(label) -> str:
    return f"'{label}'" if isinstance(label, str) else f"dimension {label} of '...'"


def _label_sizes(labels, shapes, subscripts) -> dict:
    """Size of each label; size-1 dimensions broadcast against others, as in NumPy."""
    sizes, seen_in = {}, {}
    for index, (term, shape) in enumerate(zip(labels, shapes)):
        for label, size in zip(term, shape):
            if label in seen_in and seen_in[label][0] == index and sizes[label] != size:
                raise op_value_error(
                    "einsum", f"subscript {_label_name(label)} is repeated in operand {index} "
                              f"(shape {shape}) but those dimensions have different sizes")
            if size == 1 and label in sizes:
                continue
            if label in sizes and sizes[label] not in (1, size):
                other = seen_in[label][0]
                raise op_value_error(
                    "einsum", f"subscript {_label_name(label)} has size {sizes[label]} in "
                              f"operand {other} (shape {shapes[other]}) but {size} in "
                              f"operand {index} (shape {shape}) in '{subscripts}'")
            sizes[label] = size
            seen_in[label] = (index, size)
    return sizes


@functools.lru_cache(maxsize=256)
def _einsum_spec(subscripts: str, shapes: tuple):
    """Parse and check ``subscripts`` for operands of ``shapes``: the labels of each operand
    (letters, and ints for the dimensions under '...'), the output labels and each label's
    size. Cached: eager loops call einsum with the same arguments over and over."""
    terms, output = _split_subscripts(subscripts, len(shapes))
    labels, width = _expand_ellipses(terms, shapes, subscripts)
    output = _output_labels(output, labels, width, subscripts)
    sizes = _label_sizes(labels, shapes, subscripts)
    return tuple(map(tuple, labels)), tuple(output), sizes  # shared by calls: never mutated


def _squeeze_broadcast_dims(x, term, sizes):
    """Drop size-1 dimensions that broadcast against a larger size elsewhere: the operand is
    constant along them."""
    drop = tuple(d for d, label in enumerate(term) if x.shape[d] == 1 and sizes[label] != 1)
    if not drop:
        return x, term
    return squeeze_p.bind(x, dimensions=drop), [t for d, t in enumerate(term) if d not in drop]


def _sum_dims(prod, x, dims):
    """Sum ``x`` over ``dims`` as jax.numpy.einsum does: in preferred_element_type when that
    is wider, integers wrapping around, and bools with a logical or."""
    if not dims:
        return x
    if prod.preferred is not None:
        x = convert(x, dtypes.promote_types(x.dtype, prod.preferred), x.weak_type)
    reduce = reduce_or_p if x.dtype == dtypes.bool_ else reduce_sum_p
    return reduce.bind(x, axes=tuple(dims))


def _diagonal_mask(x, positions):
    """Bool mask, True where the indices at all ``positions`` are equal."""
    first = iota_p.bind(dtype=np.dtype(np.int32), shape=x.shape, dimension=positions[0])
    mask = None
    for p in positions[1:]:
        same = eq_p.bind(first, iota_p.bind(dtype=np.dtype(np.int32), shape=x.shape,
                                            dimension=p))
        mask = same if mask is None else and_p.bind(mask, same)
    return mask


def _preprocess(prod, x, term, keep):
    """Take diagonals of repeated labels and sum out labels not in ``keep``: afterwards the
    operand's labels are unique and all needed later."""
    summed = []
    for label in dict.fromkeys(term):
        positions = [d for d, t in enumerate(term) if t == label]
        if len(positions) > 1:
            zeros = full(x.shape, 0, x.dtype)
            # select, not multiply by an identity mask: inf * 0 would turn into nan.
            x = select_n_p.bind(_diagonal_mask(x, positions), zeros, x)
            summed.extend(positions[1:])
        if label not in keep:
            summed.append(positions[0])
    summed = sorted(summed)
    return _sum_dims(prod, x, summed), [t for d, t in enumerate(term) if d not in summed]


def _contract_pair(prod, left, right, keep, output=None):
    """``dot_general`` of two (operand, labels) pairs; ``output``: the labels of the einsum's
    result when this pair is its last contraction.

    The last contraction orders its batch labels as ``output`` does and, when ``left`` first
    would need a transpose into ``output``'s order, puts ``right`` first, as jax's einsum does:
    jax's choice is the program XLA is tuned on. In attention's ``"nts,snh->tnh"`` the
    gradients then reach XLA in a form its dot fusions take; with ``left`` first, four of the
    backward dots of a transformer block's attention stay unfused with copied operands.
    """
    (x, x_labels), (y, y_labels) = left, right
    shared = [t for t in x_labels if t in y_labels]
    if output is not None:
        shared.sort(key=lambda t: output.index(t) if t in output else len(output))
        batch = [t for t in shared if t in keep]
        x_first = batch + [t for t in x_labels if t not in shared] + [
            t for t in y_labels if t not in shared]
        if x_first != list(output):
            (x, x_labels), (y, y_labels) = right, left
    batch = [t for t in shared if t in keep]
    contract = [t for t in shared if t not in keep]
    out = prod.dot_general(
        x, y,
        ([x_labels.index(t) for t in contract], [y_labels.index(t) for t in contract]),
        ([x_labels.index(t) for t in batch], [y_labels.index(t) for t in batch]))
    labels = batch + [t for t in x_labels if t not in shared] + [
        t for t in y_labels if t not in shared]
    return out, labels


def _pair_result_size(left_labels, right_labels, keep, sizes) -> int:
    labels = set(left_labels) | set(right_labels)
    shared = set(left_labels) & set(right_labels)
    return math.prod(sizes[t] for t in labels if t not in shared or t in keep)


def _choose_pair(operands, output, sizes, optimize) -> tuple[int, int]:
    if optimize is False or len(operands) == 2:
        return 0, 1
    best = None
    for i in range(len(operands)):
        for j in range(i + 1, len(operands)):
            keep = _labels_kept(operands, (i, j), output)
            size = _pair_result_size(operands[i][1], operands[j][1], keep, sizes)
            if best is None or size < best[0]:
                best = (size, i, j)
    return best[1], best[2]


def _labels_kept(operands, pair, output) -> set:
    """Labels that must survive contracting ``pair``: in the output or in another operand."""
    keep = set(output)
    for k, (_, labels) in enumerate(operands):
        if k not in pair:
            keep.update(labels)
    return keep


def _explicit_path(optimize, n_operands):
    """An explicit contraction path (as from np.einsum_path), or None for a strategy name."""
    if isinstance(optimize, (bool, str)) or optimize is None:
        if isinstance(optimize, str) and optimize not in ("greedy", "optimal", "auto", "dp"):
            raise op_value_error(
                "einsum", f"optimize must be a bool, 'greedy', 'optimal', 'auto' or an explicit "
                          f"path, got {optimize!r}")
        return None
    path = [tuple(step) for step in optimize if step != "einsum_path"]
    if n_operands == 1 and path == [(0,)]:
        path = []  # einsum_path's (and jax's) path of one operand: its own reduction, no pair
    # Step k contracts two of the n - k operands left (results go to the end, as in NumPy).
    valid = len(path) == max(n_operands - 1, 0) and all(
        len(step) == 2 and step[0] != step[1] and all(0 <= i < n_operands - k for i in step)
        for k, step in enumerate(path))
    if not valid:
        raise op_value_error(
            "einsum", f"an explicit optimize path must list {n_operands - 1} pairs of operand "
                      f"positions, got {optimize!r}")
    return [tuple(sorted(step)) for step in path]


@host_shortcut(_einsum_on_host)
def einsum(subscripts: Any, /, *operands: Any, out: None = None, optimize: Any = "auto",
           precision: Any = None, preferred_element_type: DTypeLike | None = None) -> Array:
    """Einstein summation: ``einsum("ij,jk->ik", a, b)`` is ``a @ b``.

    Supports explicit (``->``) and implicit output, ``...`` for broadcast dimensions, repeated
    indices within one operand (diagonals: ``"ii->i"``, traces: ``"ii"``), indices summed out
    of a single operand, and NumPy's interleaved form ``einsum(a, [0, 1], b, [1, 2])``.
    Operands are contracted pairwise with ``dot_general``; ``optimize`` (the default, or
    ``True``/``"greedy"``) picks the pair with the smallest result first, ``False`` goes left
    to right, and an explicit path (e.g. from ``np.einsum_path``) is followed as given.

    Example:
        >>> import funcarray.numpy as fnp
        >>> a = fnp.array([[1.0, 2.0], [3.0, 4.0]])
        >>> fnp.einsum("ij,jk->ik", a, a)
        Array([[ 7., 10.],
               [15., 22.]], dtype=float32)
        >>> fnp.einsum("ii", a)
        Array(5., dtype=float32)
    """
    if out is not None:
        raise op_value_error("einsum", "out= is not supported: funcarray arrays are immutable")
    if not isinstance(subscripts, str):
        subscripts, operands = _interleaved((subscripts, *operands))
    if not operands:
        raise op_value_error("einsum", "needs at least one operand")
    prod = _Product("einsum", operands, precision, preferred_element_type)
    path = _explicit_path(optimize, len(operands))
    labels, output, sizes = _einsum_spec(subscripts, tuple(x.shape for x in prod.operands))

    current = [_squeeze_broadcast_dims(x, term, sizes) for x, term in zip(prod.operands, labels)]
    current = [_preprocess(prod, x, term, _labels_kept(current, (i,), output))
               for i, (x, term) in enumerate(current)]
    while len(current) > 1:
        i, j = path.pop(0) if path else _choose_pair(current, output, sizes, optimize)
        keep = _labels_kept(current, (i, j), output)
        merged = _contract_pair(prod, current[i], current[j], keep,
                                output if len(current) == 2 else None)
        current = [op for k, op in enumerate(current) if k not in (i, j)] + [merged]
    x, x_labels = current[0]
    return prod.finish(_transpose(x, [x_labels.index(t) for t in output]))


# --------------------------------------------------------------------------------------------
# kron, cross
# --------------------------------------------------------------------------------------------

def kron(a: ArrayLike, b: ArrayLike) -> Array:
    """Kronecker product: blocks ``a[i, j] * b`` laid out in ``a``'s pattern.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.kron(fnp.array([1, 10]), fnp.array([1, 2, 3]))
        Array([ 1,  2,  3, 10, 20, 30], dtype=int32)
    """
    prod = _Product("kron", (a, b), None, None)
    a, b = prod.operands
    ndim = max(a.ndim, b.ndim)
    a = _reshape(a, (1,) * (ndim - a.ndim) + a.shape)
    b = _reshape(b, (1,) * (ndim - b.ndim) + b.shape)
    outer_product = prod.dot_general(a, b)  # shape a.shape + b.shape
    interleaved = _transpose(outer_product, [d for k in range(ndim) for d in (k, ndim + k)])
    return prod.finish(_reshape(interleaved, [m * n for m, n in zip(a.shape, b.shape)]))


def _component(x, index: int):
    """``x[..., index]`` of a vector axis that is last."""
    start = (0,) * (x.ndim - 1) + (index,)
    limit = x.shape[:-1] + (index + 1,)
    piece = slice_p.bind(x, start_indices=start, limit_indices=limit, strides=None)
    return squeeze_p.bind(piece, dimensions=(x.ndim - 1,))


def _vectors_last(op: str, x, axis):
    axis = canonicalize_axis(op, axis, x.ndim)
    x = _transpose(x, (*(d for d in range(x.ndim) if d != axis), axis))
    if x.shape[-1] not in (2, 3):
        raise op_value_error(
            op, f"the vector axis must have 2 or 3 elements, got shape {x.shape} with the "
                f"vectors along the last axis")
    return x


@host_shortcut(_cross_on_host)
def cross(a: ArrayLike, b: ArrayLike, axisa: int = -1, axisb: int = -1, axisc: int = -1,
          axis: int | None = None) -> Array:
    """Cross product of 3-vectors (or 2-vectors, giving the z component) along the given
    axes; the other axes broadcast.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.cross(fnp.array([1.0, 0.0, 0.0]), fnp.array([0.0, 1.0, 0.0]))
        Array([0., 0., 1.], dtype=float32)
    """
    if axis is not None:
        axisa = axisb = axisc = axis
    prod = _Product("cross", (a, b), None, None)
    a, b = prod.operands
    if a.ndim == 0 or b.ndim == 0:
        raise op_value_error(
            "cross", f"operands must be vectors, got shapes {a.shape} and {b.shape}")
    a, b = _vectors_last("cross", a, axisa), _vectors_last("cross", b, axisb)
    _broadcast_batch("cross", a.shape, b.shape, a.shape[:-1], b.shape[:-1])
    a0, a1, b0, b1 = _component(a, 0), _component(a, 1), _component(b, 0), _component(b, 1)
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return subtract(multiply(a0, b1), multiply(a1, b0))
    a2 = _component(a, 2) if a.shape[-1] == 3 else None
    b2 = _component(b, 2) if b.shape[-1] == 3 else None
    parts = [
        _cross_term(a1, b2, a2, b1),
        _cross_term(a2, b0, a0, b2),
        subtract(multiply(a0, b1), multiply(a1, b0)),
    ]
    shape = parts[2].shape  # the broadcast batch shape
    parts = [_reshape(broadcast_to_shape(p, shape), shape + (1,)) for p in parts]
    c = concatenate_p.bind(*parts, dimension=len(shape))
    axisc = canonicalize_axis("cross", axisc, c.ndim)
    return _transpose(c, (*range(axisc), c.ndim - 1, *range(axisc, c.ndim - 1)))


def _cross_term(p, q, r, s):
    """``p * q - r * s`` where a missing (None) z component of a 2-vector counts as 0."""
    if p is None or q is None:
        return negative(multiply(r, s))
    if r is None or s is None:
        return multiply(p, q)
    return subtract(multiply(p, q), multiply(r, s))
