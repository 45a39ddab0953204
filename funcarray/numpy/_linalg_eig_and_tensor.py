"""``funcarray.numpy.linalg``'s array-API ``cross``, NumPy's tensor solves (``tensorinv``,
``tensorsolve``) and the nonsymmetric eigendecomposition (``eig``, ``eigvals``), with
jax.numpy.linalg's names, signatures and checks.

``cross`` and the tensor solves are reshapes around existing operations
(``funcarray.numpy.cross``, ``inv``, ``solve``), so they differentiate, vectorise and jit as
those do; ``eig``/``eigvals`` bind the ``eig`` primitive (``funcarray/primitives/eig.py``).

Example:
    >>> import funcarray.numpy as fnp
    >>> fnp.linalg.tensorinv(fnp.eye(4).reshape(4, 2, 2), ind=1).shape
    (2, 2, 4)
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple

from funcarray.api.arguments import (
    _concrete_int,
    asarray_arg,
    canonicalize_axis,
    convert,
    to_inexact_dtype,
)
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.numpy._linalg import cross as _cross
from funcarray.numpy._linalg_solve import inv, solve
from funcarray.numpy._products_on_host import _cross_on_host as _numpy_cross_on_host
from funcarray.numpy._shape import reshape, transpose
from funcarray.numpy._shape_on_host import host_axis
from funcarray.primitives.eig import EIG_DTYPES, eig_p
from funcarray.transforms.host_shortcuts import host_shortcut, host_value

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["cross", "tensorinv", "tensorsolve", "EigResult", "eig", "eigvals"]


class EigResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


def _cross_on_host(x1, x2, /, *, axis=-1):
    """Two host arrays of 3-vectors along a valid int ``axis``: ``funcarray.numpy.cross``'s
    shortcut, which the general path calls after its checks."""
    a, b = host_value(x1), host_value(x2)
    if a is None or b is None or type(axis) is not int:
        return NotImplemented
    ax, bx = host_axis(axis, a.ndim), host_axis(axis, b.ndim)
    if ax is None or bx is None or a.shape[ax] != 3 or b.shape[bx] != 3:
        return NotImplemented
    return _numpy_cross_on_host(x1, x2, axis=axis)


@host_shortcut(_cross_on_host)
def cross(x1: ArrayLike, x2: ArrayLike, /, *, axis: int = -1) -> Array:
    """Cross product of 3-vectors along ``axis`` (jax.numpy.linalg.cross, the array API's
    form: both operands need 3 elements there; the other axes broadcast).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.linalg.cross(fnp.asarray([0.0, 1.0, 0.0]), fnp.asarray([0.0, 0.0, 1.0]))
        Array([1., 0., 0.], dtype=float32)
    """
    op = "linalg.cross"
    x1, x2 = asarray_arg(op, x1), asarray_arg(op, x2)
    if x1.ndim == 0 or x2.ndim == 0:
        raise op_value_error(op, f"operands must be (arrays of) 3-vectors, got shapes "
                                 f"{x1.shape} and {x2.shape}")
    if not isinstance(axis, int):
        raise op_type_error(op, f"axis must be an int, got {type(axis).__name__}")
    sizes = (x1.shape[canonicalize_axis(op, axis, x1.ndim)],
             x2.shape[canonicalize_axis(op, axis, x2.ndim)])
    if sizes != (3, 3):
        raise op_value_error(
            op, f"both operands must be (arrays of) 3-vectors along axis {axis}, got shapes "
                f"{x1.shape} and {x2.shape} (sizes {sizes[0]} and {sizes[1]}); "
                f"funcarray.numpy.cross also takes 2-vectors")
    return _cross(x1, x2, axis=axis)


def tensorinv(a: ArrayLike, ind: int = 2) -> Array:
    """The inverse of ``a`` read as a linear map from its last ``a.ndim - ind`` axes to its
    first ``ind`` axes: ``tensordot(tensorinv(a, ind), a, ind)`` is the identity. The result
    has shape ``a.shape[ind:] + a.shape[:ind]``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> a = fnp.eye(4).reshape(2, 2, 4) * 2.0
        >>> fnp.linalg.tensorinv(a).reshape(4, 4)[0]
        Array([0.5, 0. , 0. , 0. ], dtype=float32)
    """
    op = "linalg.tensorinv"
    a = asarray_arg(op, a)
    ind = _concrete_int(op, ind, "ind")
    if ind <= 0:
        raise op_value_error(op, f"ind must be a positive integer, got {ind}")
    rows, cols = a.shape[:ind], a.shape[ind:]
    if math.prod(rows) != math.prod(cols):
        raise op_value_error(
            op, f"the first ind={ind} axes of a must hold as many elements as the others "
                f"(they are a square matrix's rows and columns), got shape {a.shape}")
    square = reshape(a, (math.prod(rows), math.prod(cols)))
    return reshape(inv(square), (*cols, *rows))


def tensorsolve(a: ArrayLike, b: ArrayLike, axes: tuple[int, ...] | None = None) -> Array:
    """The ``x`` with ``tensordot(a, x, x.ndim) == b``: ``a``'s leading ``b.ndim`` axes must
    have ``b``'s shape and as many elements as its remaining axes (``x``'s shape). ``axes``
    names axes of ``a`` to move to the end first (in that order, as NumPy).

    Example:
        >>> import funcarray.numpy as fnp
        >>> a = fnp.eye(6).reshape(6, 2, 3) * 2.0
        >>> fnp.linalg.tensorsolve(a, fnp.ones(6))
        Array([[0.5, 0.5, 0.5],
               [0.5, 0.5, 0.5]], dtype=float32)
    """
    op = "linalg.tensorsolve"
    a, b = asarray_arg(op, a), asarray_arg(op, b)
    if axes is not None:
        axes = tuple(canonicalize_axis(op, _concrete_int(op, k, "axes"), a.ndim)
                     for k in ((axes,) if isinstance(axes, int) else axes))
        order = [d for d in range(a.ndim) if d not in axes] + list(axes)
        a = transpose(a, order)
    if a.shape[:b.ndim] != b.shape:
        raise op_value_error(
            op, f"a's leading axes must have b's shape (after moving axes to the end), got "
                f"a.shape={a.shape} and b.shape={b.shape}")
    out_shape = a.shape[b.ndim:]
    if b.size != math.prod(out_shape):
        raise op_value_error(
            op, f"prod(a.shape[:b.ndim]) must equal prod(a.shape[b.ndim:]) (a square system), "
                f"got a.shape={a.shape} with b.ndim={b.ndim}")
    x = solve(reshape(a, (b.size, math.prod(out_shape))), reshape(b, (b.size,)))
    return reshape(x, out_shape)


def _eig_operand(op: str, a):
    a = asarray_arg(op, a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise op_value_error(op, f"expected a (batched) square matrix, got shape {a.shape}")
    dtype = to_inexact_dtype(a.dtype)
    if dtype not in EIG_DTYPES:
        raise op_type_error(op, f"expected float32/float64/complex64/complex128 (or integer) "
                                f"matrices, got {a.dtype}; convert with .astype(float32)")
    return convert(a, dtype)


def eig(a: ArrayLike) -> EigResult:
    """Eigenvalues and right eigenvectors ``(w, v)`` of general square matrices, with
    ``a @ v == v * w`` (jax.numpy.linalg.eig; LAPACK ``geev``). Both are complex; each
    eigenvector has unit norm and its largest component real; the order is LAPACK's. Only
    the eigenvalues are differentiable (``eigvals``), as in JAX.

    Example:
        >>> import funcarray.numpy as fnp
        >>> w, v = fnp.linalg.eig(fnp.asarray([[2.0, 0.0], [0.0, 3.0]]))
        >>> w
        Array([2.+0.j, 3.+0.j], dtype=complex64)
    """
    w, v = eig_p.bind(_eig_operand("linalg.eig", a), compute_right=True)
    return EigResult(w, v)


def eigvals(a: ArrayLike) -> Array:
    """Eigenvalues of general square matrices, complex (jax.numpy.linalg.eigvals; LAPACK
    ``geev``'s order). Differentiable: ``dw = diag(inv(v) @ da @ v)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.linalg.eigvals(fnp.asarray([[0.0, -1.0], [1.0, 0.0]]))
        Array([0.+1.j, 0.-1.j], dtype=complex64)
    """
    return eig_p.bind(_eig_operand("linalg.eigvals", a), compute_right=False)[0]
