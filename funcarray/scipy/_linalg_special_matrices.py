"""Special matrices of ``funcarray.scipy.linalg`` (jax.scipy.linalg's constructors).

Two kinds. Those built from array arguments (``toeplitz``, ``hankel``, ``circulant``,
``companion``, ``fiedler``, ``fiedler_companion``, ``leslie``, ``convolution_matrix``,
``block_diag``) gather the entries with static index tables, so they differentiate, jit and
vectorise, and accept leading batch axes as JAX's (its ``vectorize`` signatures). Those of a
static size only (``dft``, ``hadamard``, ``helmert``, ``hilbert``, ``invhilbert``,
``pascal``, ``invpascal``) are constants computed with NumPy (the integer ones exactly, with
Python integers) and returned in JAX's dtypes (32-bit defaults).

Example:
    >>> from funcarray.scipy.linalg import toeplitz
    >>> toeplitz([1.0, 2.0, 3.0])
    Array([[1., 2., 3.],
           [2., 1., 2.],
           [3., 2., 1.]], dtype=float32)
"""

from __future__ import annotations

import math
import operator
from typing import TYPE_CHECKING

import numpy as np

import funcarray.numpy as fnp
from funcarray.api.arguments import asarray_arg, convert, convert_arg, to_inexact_dtype
from funcarray.base import dtypes
from funcarray.base.errors import api_boundary, op_type_error, op_value_error

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike, DTypeLike

__all__ = ["block_diag", "circulant", "companion", "convolution_matrix", "dft", "fiedler",
           "fiedler_companion", "hadamard", "hankel", "helmert", "hilbert", "invhilbert",
           "invpascal", "leslie", "pascal", "toeplitz"]


def _size(op: str, n, name: str = "n") -> int:
    try:
        return operator.index(n)
    except TypeError:
        raise op_type_error(op, f"{name} must be a static int (a Python or NumPy integer), "
                                f"got {type(n).__name__}") from None


def _vectors(op: str, *args):
    """The arguments as arrays of at least 1 dimension, promoted to one dtype, with their
    batch axes (all but the last) broadcast to one shape."""
    arrays = [fnp.atleast_1d(asarray_arg(op, a)) for a in args]
    # The promotion's weak type, as JAX's promote_dtypes (a bool array and a Python int
    # meet in a weak int).
    dtype, weak = dtypes.result_type(*arrays, return_weak_type=True)
    # Python floats taken again at double precision (asarray_arg keeps them as float32).
    arrays = [fnp.atleast_1d(convert_arg(op, a, dtype, weak)) for a in args]
    try:
        batch = np.broadcast_shapes(*(a.shape[:-1] for a in arrays))
    except ValueError:
        raise op_value_error(op, f"the batch axes (all but the last) of the arguments must "
                                 f"broadcast, got shapes "
                                 f"{', '.join(str(a.shape) for a in arrays)}") from None
    return [fnp.broadcast_to(a, (*batch, a.shape[-1])) for a in arrays]


def _gather(v, index: np.ndarray):
    """``v[..., index]`` for a static integer table ``index`` (any shape)."""
    flat = fnp.take(v, fnp.asarray(index.reshape(-1).astype(np.int32)), axis=-1)
    return flat.reshape(*v.shape[:-1], *index.shape)


@api_boundary
def toeplitz(c: ArrayLike, r: ArrayLike | None = None) -> Array:
    """The Toeplitz matrix with first column ``c`` and first row ``r`` (``r[0]`` is ignored;
    by default ``r = conj(c)``, a Hermitian matrix). Leading axes of ``c`` and ``r`` are batch
    axes.

    Example:
        >>> from funcarray.scipy.linalg import toeplitz
        >>> toeplitz([1, 2], [1, 5, 6])
        Array([[1, 5, 6],
               [2, 1, 5]], dtype=int32)
    """
    op = "scipy.linalg.toeplitz"
    if r is None:
        c = asarray_arg(op, c)
        r = fnp.conjugate(c)
    c, r = _vectors(op, c, r)
    m, n = c.shape[-1], r.shape[-1]
    # out[i, j] = c[i - j] below the diagonal and r[j - i] above it: index m - 1 - i + j
    # into the sequence c[::-1] ++ r[1:].
    sequence = fnp.concatenate([fnp.flip(c, axis=-1), r[..., 1:]], axis=-1)
    if m == 0 or n == 0:
        return fnp.zeros((*c.shape[:-1], m, n), dtype=sequence.dtype)
    # Strong even for Python scalars, as JAX's (its patches convolution drops weak types).
    return convert(_gather(sequence, m - 1 - np.arange(m)[:, None] + np.arange(n)[None, :]),
                   sequence.dtype, False)


@api_boundary
def hankel(c: ArrayLike, r: ArrayLike | None = None) -> Array:
    """The Hankel matrix with first column ``c`` and last row ``r`` (``r[0]`` is ignored; by
    default zeros, so the matrix is zero below the anti-diagonal). Leading axes are batch
    axes.

    Example:
        >>> from funcarray.scipy.linalg import hankel
        >>> hankel([1, 2, 3], [3, 4])
        Array([[1, 2],
               [2, 3],
               [3, 4]], dtype=int32)
    """
    op = "scipy.linalg.hankel"
    c = asarray_arg(op, c)
    r = fnp.zeros_like(c) if r is None else asarray_arg(op, r)
    for name, v in (("c", c), ("r", r)):
        if v.ndim == 0:
            raise op_value_error(op, f"{name} must be at least 1-dimensional, got a scalar")
    c, r = _vectors(op, c, r)
    m, n = c.shape[-1], r.shape[-1]
    sequence = fnp.concatenate([c, r[..., 1:]], axis=-1)
    if m == 0 or n == 0:
        return fnp.zeros((*c.shape[:-1], m, n), dtype=sequence.dtype)
    return _gather(sequence, np.arange(m)[:, None] + np.arange(n)[None, :])


@api_boundary
def circulant(c: ArrayLike) -> Array:
    """The circulant matrix whose first column is ``c`` (each column is the previous one
    rolled down by one). Leading axes are batch axes.

    Example:
        >>> from funcarray.scipy.linalg import circulant
        >>> circulant([1, 2, 3])
        Array([[1, 3, 2],
               [2, 1, 3],
               [3, 2, 1]], dtype=int32)
    """
    (c,) = _vectors("scipy.linalg.circulant", c)
    n = c.shape[-1]
    return _gather(c, (np.arange(n)[:, None] - np.arange(n)[None, :]) % max(n, 1))


@api_boundary
def companion(a: ArrayLike) -> Array:
    """The companion matrix of the polynomial with coefficients ``a`` (highest degree first):
    its eigenvalues are the polynomial's roots. ``a[..., 0]`` must be nonzero; integer
    coefficients give a float matrix.

    Example:
        >>> from funcarray.scipy.linalg import companion
        >>> companion([1.0, -3.0, 2.0])
        Array([[ 3., -2.],
               [ 1.,  0.]], dtype=float32)
    """
    op = "scipy.linalg.companion"
    a = fnp.atleast_1d(asarray_arg(op, a))
    a = convert(a, to_inexact_dtype(a.dtype), a.weak_type)
    if a.shape[-1] < 2:
        raise op_value_error(op, f"a needs at least 2 coefficients along its last axis, got "
                                 f"shape {a.shape}")
    m = a.shape[-1] - 1
    first_row = -a[..., 1:] / a[..., :1]
    rows = fnp.where(np.arange(m)[:, None] == 0, first_row[..., None, :],
                     fnp.eye(m, m, k=-1, dtype=a.dtype))
    return rows


@api_boundary
def fiedler(a: ArrayLike) -> Array:
    """The symmetric Fiedler matrix ``|a[i] - a[j]|``. Leading axes are batch axes.

    Example:
        >>> from funcarray.scipy.linalg import fiedler
        >>> fiedler([1, 4, 12])
        Array([[ 0,  3, 11],
               [ 3,  0,  8],
               [11,  8,  0]], dtype=int32)
    """
    a = fnp.atleast_1d(asarray_arg("scipy.linalg.fiedler", a))
    return fnp.abs(a[..., :, None] - a[..., None, :])


def _fiedler_companion_tables(n: int):
    """Static tables for the n x n Fiedler companion matrix: which entries are 1, which are
    ``-a[k]`` (and that ``k``); the rest are 0. The pentadiagonal pattern of SciPy's."""
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    even, odd = i % 2 == 0, i % 2 == 1
    coefficient = np.full((n, n), -1)
    ones = np.zeros((n, n), dtype=bool)
    rules = [  # (where, -a[k] with k = ..., or 1): the first rule that matches applies
        ((i == 0) & (j == 0), 1 + 0 * i),
        ((i == 1) & (j == 0), None),
        ((j == i + 1) & even, np.minimum(i + 2, n)),
        ((j == i + 2) & even, None),
        ((j == i - 1) & even & (i >= 2), np.minimum(i + 1, n)),
        ((j == i - 2) & odd & (i >= 3), None),
    ]
    taken = np.zeros((n, n), dtype=bool)
    for where, k in rules:
        where = where & ~taken
        if k is None:
            ones |= where
        else:
            coefficient = np.where(where, np.broadcast_to(k, (n, n)), coefficient)
        taken |= where
    return ones, coefficient


@api_boundary
def fiedler_companion(a: ArrayLike) -> Array:
    """The Fiedler companion matrix of the polynomial with coefficients ``a`` (highest degree
    first): pentadiagonal, with the same eigenvalues (the roots) as ``companion(a)``.

    Example:
        >>> from funcarray.scipy.linalg import fiedler_companion
        >>> fiedler_companion([1.0, -3.0, 2.0])
        Array([[ 3., -2.],
               [ 1.,  0.]], dtype=float32)
    """
    op = "scipy.linalg.fiedler_companion"
    if isinstance(a, int) and not isinstance(a, bool):  # a weak float, as JAX converts it
        a = float(a)
    a = fnp.atleast_1d(asarray_arg(op, a))
    a = convert(a, to_inexact_dtype(a.dtype), a.weak_type)
    if a.shape[-1] == 0:
        raise op_value_error(op, f"a needs at least one coefficient along its last axis, got "
                                 f"shape {a.shape}")
    n = a.shape[-1] - 1
    a = a / a[..., :1]
    ones, coefficient = _fiedler_companion_tables(n)
    values = -_gather(a, np.maximum(coefficient, 0))
    # Python 1 and 0 (weak) keep a weak operand's result weak, as in JAX.
    return fnp.where(ones, 1, fnp.where(coefficient >= 0, values, 0))


@api_boundary
def leslie(f: ArrayLike, s: ArrayLike) -> Array:
    """The Leslie matrix: fecundities ``f`` (length n >= 2) on the first row and survival
    rates ``s`` (length n - 1) on the subdiagonal. Leading axes are batch axes.

    Example:
        >>> from funcarray.scipy.linalg import leslie
        >>> leslie([0.5, 1.0, 2.0], [0.25, 0.75])
        Array([[0.5 , 1.  , 2.  ],
               [0.25, 0.  , 0.  ],
               [0.  , 0.75, 0.  ]], dtype=float32)
    """
    op = "scipy.linalg.leslie"
    f_shape = fnp.atleast_1d(asarray_arg(op, f)).shape
    s_shape = fnp.atleast_1d(asarray_arg(op, s)).shape
    if f_shape[-1] < 2:
        raise op_value_error(op, f"f needs at least 2 entries along its last axis, got shape "
                                 f"{f_shape}")
    if s_shape[-1] != f_shape[-1] - 1:
        raise op_value_error(op, f"s must have one entry fewer than f along the last axis, got "
                                 f"f.shape={f_shape} and s.shape={s_shape}")
    f, s = _vectors(op, f, s)  # from the arguments: Python floats keep double precision
    n = f.shape[-1]
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    subdiagonal = _gather(s, np.clip(j + 0 * i, 0, n - 2))  # s[j] in column j
    return fnp.where(i == 0, f[..., None, :],
                     fnp.where(i == j + 1, subdiagonal, 0))  # a weak 0 keeps the weak type


@api_boundary
def convolution_matrix(a: ArrayLike, n: int, mode: str = "full") -> Array:
    """The Toeplitz matrix ``A`` with ``A @ v == convolve(a, v, mode)`` for every length-``n``
    vector ``v`` (``mode``: 'full', 'valid' or 'same', as ``numpy.convolve``).

    Example:
        >>> from funcarray.scipy.linalg import convolution_matrix
        >>> convolution_matrix([1.0, 2.0], 3, mode="valid")
        Array([[2., 1., 0.],
               [0., 2., 1.]], dtype=float32)
    """
    op = "scipy.linalg.convolution_matrix"
    n = _size(op, n)
    if n <= 0:
        raise op_value_error(op, f"n must be a positive integer, got {n}")
    a = asarray_arg(op, a)
    if a.ndim == 0:
        raise op_value_error(op, "a must be at least 1-dimensional, got a scalar")
    m = a.shape[-1]
    if m < 1:
        raise op_value_error(op, f"a must have at least one entry, got shape {a.shape}")
    if mode not in ("full", "valid", "same"):
        raise op_value_error(op, f"mode must be 'full', 'valid' or 'same', got {mode!r}")
    widths = [(0, 0)] * (a.ndim - 1) + [(0, n - 1)]
    padded = fnp.pad(a, widths)
    reversed_padded = fnp.pad(fnp.flip(a, axis=-1), widths)
    length = m + n - 1
    if mode == "same":
        trim = min(n, m) - 1
        start, end = trim // 2, trim - trim // 2
    elif mode == "valid":
        start = end = min(n, m) - 1
    else:
        start = end = 0
    column = padded[..., start:length - end]
    row = reversed_padded[..., length - n - start:length - start]
    return toeplitz(column, row)


@api_boundary
def block_diag(*arrs: ArrayLike) -> Array:
    """The block-diagonal matrix with the given blocks (scalars, vectors as rows, matrices)
    on its diagonal; all blocks are promoted to one dtype.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.linalg import block_diag
        >>> block_diag(fnp.ones((1, 1)), 2 * fnp.ones((2, 2)))
        Array([[1., 0., 0.],
               [0., 2., 2.],
               [0., 2., 2.]], dtype=float32)
    """
    op = "scipy.linalg.block_diag"
    arrs = arrs or (fnp.zeros((1, 0)),)
    blocks = [asarray_arg(op, a) for a in arrs]
    for k, block in enumerate(blocks):
        if block.ndim > 2:
            raise op_value_error(op, f"blocks must have at most 2 dimensions, got shape "
                                     f"{block.shape} at argument {k}")
    dtype = fnp.result_type(*blocks)
    # Strong even for Python scalars, as JAX's (it pads with a strong zero).
    blocks = [fnp.atleast_2d(convert_arg(op, a, dtype)) for a in arrs]
    total = sum(b.shape[1] for b in blocks)
    rows, start = [], 0
    for block in blocks:
        width = block.shape[1]
        rows.append(fnp.pad(block, ((0, 0), (start, total - start - width))))
        start += width
    return fnp.concatenate(rows, axis=0)


def _constant(value: np.ndarray, dtype):
    return fnp.asarray(value.astype(dtype))


@api_boundary
def hilbert(n: int) -> Array:
    """The n x n Hilbert matrix ``1 / (i + j + 1)`` (float32).

    Example:
        >>> from funcarray.scipy.linalg import hilbert
        >>> hilbert(2)
        Array([[1.        , 0.5       ],
               [0.5       , 0.33333334]], dtype=float32)
    """
    n = _size("scipy.linalg.hilbert", n)
    k = np.arange(max(n, 0), dtype=np.float64)
    return _constant(1.0 / (k[:, None] + k[None, :] + 1.0), dtypes.default_float)


def _exact_matrix(n: int, entry) -> np.ndarray:
    """An n x n float64 matrix of Python-integer entries ``entry(i, j)`` (exact, then
    rounded once)."""
    return np.array([[float(entry(i, j)) for j in range(n)] for i in range(n)],
                    dtype=np.float64).reshape(n, n)


@api_boundary
def invhilbert(n: int) -> Array:
    """The inverse of ``hilbert(n)`` (integer entries, exact before rounding to float32).

    Example:
        >>> from funcarray.scipy.linalg import invhilbert
        >>> invhilbert(2)
        Array([[ 4., -6.],
               [-6., 12.]], dtype=float32)
    """
    n = max(_size("scipy.linalg.invhilbert", n), 0)

    def entry(i, j):
        s = i + j
        return ((-1) ** s * (s + 1) * math.comb(n + i, n - j - 1) * math.comb(n + j, n - i - 1)
                * math.comb(s, i) ** 2)

    return _constant(_exact_matrix(n, entry), dtypes.default_float)


def _pascal_kind(op: str, kind):
    kind = "symmetric" if kind is None else kind
    if kind not in ("symmetric", "lower", "upper"):
        raise op_value_error(op, f"kind must be 'symmetric', 'lower' or 'upper', got {kind!r}")
    return kind


@api_boundary
def pascal(n: int, kind: str | None = None) -> Array:
    """The n x n Pascal matrix of binomial coefficients: 'symmetric' (the default,
    ``comb(i + j, i)``), 'lower' (``comb(i, j)``) or 'upper' (its transpose); float32.

    Example:
        >>> from funcarray.scipy.linalg import pascal
        >>> pascal(3)
        Array([[1., 1., 1.],
               [1., 2., 3.],
               [1., 3., 6.]], dtype=float32)
    """
    op = "scipy.linalg.pascal"
    n = max(_size(op, n), 0)
    kind = _pascal_kind(op, kind)
    if kind == "symmetric":
        value = _exact_matrix(n, lambda i, j: math.comb(i + j, i))
    else:
        value = _exact_matrix(n, lambda i, j: math.comb(i, j))
    return _constant(value.T if kind == "upper" else value, np.float32)


@api_boundary
def invpascal(n: int, kind: str | None = None) -> Array:
    """The inverse of ``pascal(n, kind)`` (integer entries; float32).

    Example:
        >>> from funcarray.scipy.linalg import invpascal
        >>> invpascal(3, kind="lower")
        Array([[ 1.,  0.,  0.],
               [-1.,  1.,  0.],
               [ 1., -2.,  1.]], dtype=float32)
    """
    op = "scipy.linalg.invpascal"
    n = max(_size(op, n), 0)
    kind = _pascal_kind(op, kind)
    lower = [[(-1) ** ((i - j) % 2) * math.comb(i, j) for j in range(n)] for i in range(n)]
    if kind == "symmetric":  # inv(L L^T) = L^-T L^-1, exactly in integers
        value = _exact_matrix(n, lambda i, j: sum(lower[k][i] * lower[k][j] for k in range(n)))
    else:
        value = _exact_matrix(n, lambda i, j: lower[i][j])
    return _constant(value.T if kind == "upper" else value, dtypes.default_float)


@api_boundary
def helmert(n: int, full: bool = False) -> Array:
    """The Helmert matrix: (n - 1) x n orthonormal rows orthogonal to the all-ones vector, and
    with ``full`` the normalised all-ones row first (an orthogonal n x n matrix).

    Example:
        >>> from funcarray.scipy.linalg import helmert
        >>> helmert(2, full=True).round(4)
        Array([[ 0.7071,  0.7071],
               [ 0.7071, -0.7071]], dtype=float32)
    """
    op = "scipy.linalg.helmert"
    n = _size(op, n)
    if n < 1:
        raise op_value_error(op, f"n must be a positive integer, got {n}")
    i, j = np.arange(n - 1)[:, None], np.arange(n)[None, :]
    k = (i + 1).astype(np.float64)
    denominator = np.sqrt(k * (k + 1))
    value = np.where(j <= i, 1.0 / denominator, np.where(j == i + 1, -k / denominator, 0.0))
    if full:
        value = np.concatenate([np.full((1, n), 1.0 / np.sqrt(n)), value], axis=0)
    return _constant(value, dtypes.default_float)


@api_boundary
def hadamard(n: int, dtype: DTypeLike = int) -> Array:
    """The n x n Hadamard matrix of +-1 (Sylvester's construction; ``n`` a power of 2).

    Example:
        >>> from funcarray.scipy.linalg import hadamard
        >>> hadamard(2)
        Array([[ 1,  1],
               [ 1, -1]], dtype=int32)
    """
    op = "scipy.linalg.hadamard"
    n = _size(op, n)
    if n < 1 or n & (n - 1):
        raise op_value_error(op, f"n must be a positive power of 2, got {n}")
    dtype = dtypes.canonicalize_dtype(dtype)
    if dtype == dtypes.bool_ and n > 1:  # -1 has no bool value (JAX's and SciPy's -H raise)
        raise op_type_error(op, f"dtype bool cannot hold the -1 entries of hadamard({n}); "
                                f"use an integer or floating dtype")
    value = np.ones((1, 1), dtype=np.int64)
    while value.shape[0] < n:
        value = np.block([[value, value], [value, -value]])
    return _constant(value, dtype)


@api_boundary
def dft(n: int, scale: str | None = None, *, dtype: DTypeLike | None = None) -> Array:
    """The n x n discrete Fourier transform matrix ``exp(-2 pi i j k / n)``: ``dft(n) @ x``
    is ``fft(x)``. ``scale``: None, 'sqrtn' (unitary) or 'n'. Complex64 by default.

    Example:
        >>> from funcarray.scipy.linalg import dft
        >>> dft(2).real
        Array([[ 1.,  1.],
               [ 1., -1.]], dtype=float32)
    """
    op = "scipy.linalg.dft"
    n = _size(op, n)
    if scale not in (None, "sqrtn", "n"):
        raise op_value_error(op, f"scale must be None, 'sqrtn' or 'n', got {scale!r}")
    dtype = dtypes.default_complex if dtype is None else dtypes.canonicalize_dtype(dtype)
    if not dtypes.is_complex(dtype):
        raise op_value_error(op, f"dtype must be a complex floating-point type, got {dtype}")
    k = np.arange(max(n, 0))
    # The angle from (j * k) mod n keeps it exact for large n (no float product of indices).
    value = np.exp(-2j * np.pi * ((k[:, None] * k[None, :]) % max(n, 1)) / max(n, 1))
    if scale == "sqrtn":
        value = value / np.sqrt(n)
    elif scale == "n":
        value = value / n
    return _constant(value, dtype)
