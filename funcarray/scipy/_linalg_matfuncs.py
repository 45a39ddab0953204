"""Matrix functions of ``funcarray.scipy.linalg``: ``expm``, ``expm_frechet``, ``polar`` and
``solve_sylvester``.

``expm`` is JAX's algorithm (Higham's scaling and squaring with a Pade approximant chosen by
the matrix's 1-norm: degrees 3/5/7/9/13 in double precision, 3/5/7 in single), composed from
matmuls and one ``solve``, so every transform applies and the derivative is that of the
approximation, as in JAX. When the norm is concrete (eager calls, eager ``grad``), the degree
and the number of squarings are chosen in Python; otherwise (jit, vmap) by ``lax.switch`` and
a ``lax.scan`` of ``lax.cond`` squarings, with the same values. ``polar`` is computed from
the thin SVD for both ``method`` names (JAX's default 'qdwh' is an iteration that converges
to the same factors). ``solve_sylvester`` solves the Kronecker-product system with LU.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.scipy.linalg import expm
    >>> expm(fnp.zeros((2, 2)))
    Array([[1., 0.],
           [0., 1.]], dtype=float32)
"""

from __future__ import annotations

import math
import operator
from typing import TYPE_CHECKING

import numpy as np

import funcarray.numpy as fnp
from funcarray.api.arguments import asarray_arg, convert, to_inexact_dtype
from funcarray.api.autodiff import jvp
from funcarray.api.autodiff import stop_gradient as fa_stop_gradient
from funcarray.api.vectorization import vmap
from funcarray.base import dtypes
from funcarray.base.errors import api_boundary, op_type_error, op_value_error
from funcarray.lax import cond, scan, switch
from funcarray.transforms.core import to_concrete_value

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["expm", "expm_frechet", "polar", "solve_sylvester"]

# Pade numerator coefficients b_0..b_m of exp (the denominator's are the same with alternating
# signs), per degree m.
_PADE = {
    3: (120., 60., 12., 1.),
    5: (30240., 15120., 3360., 420., 30., 1.),
    7: (17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.),
    9: (17643225600., 8821612800., 2075673600., 302702400., 30270240., 2162160., 110880.,
        3960., 90., 1.),
    13: (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
         129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
         40840800., 960960., 16380., 182., 1.),
}
# Per precision: the largest 1-norm the highest degree handles without scaling, and the
# 1-norm thresholds below which each lower degree is accurate enough (Higham 2005, Table 2.3;
# JAX's constants).
_DOUBLE = (5.371920351148152, (1.495585217958292e-2, 2.539398330063230e-1,
                               9.504178996162932e-1, 2.097847961257068e0), (3, 5, 7, 9, 13))
_SINGLE = (3.925724783138660, (4.258730016922831e-1, 1.880152677804762e0), (3, 5, 7))


def _pade(degree: int, a):
    """``(U, V)``: the odd and even parts of the degree-``degree`` Pade numerator at ``a``
    (numerator ``V + U``, denominator ``V - U``)."""
    b = _PADE[degree]
    identity = fnp.eye(a.shape[-1], dtype=a.dtype)
    a2 = a @ a
    if degree == 13:  # Higham's evaluation: 6 matmuls instead of 12
        a4 = a2 @ a2
        a6 = a4 @ a2
        u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2)
                 + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * identity)
        v = (a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2)
             + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * identity)
        return u, v
    powers = [identity, a2]  # a^0, a^2, a^4, ... up to a^(degree - 1)
    while len(powers) < (degree + 1) // 2:
        powers.append(powers[-1] @ a2)
    odd, even = b[-1] * powers[-1], b[-2] * powers[-1]
    for k in range(len(powers) - 2, -1, -1):  # highest power first, as JAX sums
        odd, even = odd + b[2 * k + 1] * powers[k], even + b[2 * k] * powers[k]
    return a @ odd, even


def _square_matrix(op: str, name: str, a):
    a = asarray_arg(op, a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise op_value_error(op, f"{name} must be a (batched) square matrix, got shape "
                                 f"{a.shape}")
    dtype = to_inexact_dtype(a.dtype)
    if dtype not in (dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128):
        raise op_type_error(op, f"{name} must be float32/float64/complex64/complex128 (or "
                                f"integer), got {a.dtype}; convert it with .astype(float32)")
    return convert(a, dtype)


def _expm_2d(a, upper_triangular: bool, max_squarings: int):
    double = a.dtype in (dtypes.float64, dtypes.complex128)
    max_norm, thresholds, degrees = _DOUBLE if double else _SINGLE
    norm = fnp.max(fnp.sum(fnp.abs(a), axis=0))  # the 1-norm
    squarings = fnp.maximum(0.0, fnp.floor(fnp.log2(norm / max_norm)))
    a = a / (2.0 ** squarings).astype(a.dtype)
    known_norm = to_concrete_value(norm)
    if known_norm is not None:  # pick the degree in Python: no branch staged
        u, v = _pade(degrees[int(np.searchsorted(thresholds, known_norm, side="right"))], a)
    else:
        index = fnp.sum(norm >= fnp.asarray(thresholds, dtype=norm.dtype)).astype(np.int32)
        u, v = switch(index, [lambda x, m=m: _pade(m, x) for m in degrees], a)
    if upper_triangular:
        from funcarray.scipy.linalg import solve_triangular
        r = solve_triangular(v - u, v + u)
    else:
        r = fnp.linalg.solve(v - u, v + u)
    known_squarings = to_concrete_value(squarings)
    if known_squarings is not None:
        if not known_squarings <= max_squarings:  # too many squarings needed (or inf/NaN)
            return fnp.full_like(r, np.nan)
        for _ in range(int(known_squarings)):
            r = r @ r
        return r

    def step(x, i):
        return cond(i < squarings, lambda y: y @ y, lambda y: y, x), None

    r, _ = scan(step, r, fnp.arange(max_squarings, dtype=squarings.dtype))
    return fnp.where(squarings > max_squarings, fnp.full_like(r, np.nan), r)


@api_boundary
def expm(A: ArrayLike, *, upper_triangular: bool = False, max_squarings: int = 16) -> Array:
    """The matrix exponential of a (batched) square matrix, by scaling and squaring with a
    Pade approximant (JAX's algorithm). ``upper_triangular`` solves the Pade system
    triangularly; a matrix whose 1-norm needs more than ``max_squarings`` squarings gives NaN.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.linalg import expm
        >>> expm(fnp.asarray([[0.0, 1.0], [0.0, 0.0]]))
        Array([[1., 1.],
               [0., 1.]], dtype=float32)
    """
    op = "scipy.linalg.expm"
    a = _square_matrix(op, "A", A)
    try:
        max_squarings = operator.index(max_squarings)
    except TypeError:
        raise op_type_error(op, f"max_squarings must be a static int, got "
                                f"{type(max_squarings).__name__}") from None
    if a.size == 0:  # (no 1-norm to scale by)
        return a
    if a.ndim == 2:
        return _expm_2d(a, bool(upper_triangular), max_squarings)
    batch = a.shape[:-2]
    flat = a.reshape(math.prod(batch), *a.shape[-2:])
    out = vmap(lambda x: _expm_2d(x, bool(upper_triangular), max_squarings))(flat)
    return out.reshape(a.shape)


@api_boundary
def expm_frechet(A: ArrayLike, E: ArrayLike, *, method: str | None = None,
                 compute_expm: bool = True) -> Array | tuple[Array, Array]:
    """The Frechet derivative of ``expm`` at ``A`` in the direction ``E`` (the JVP of
    ``expm``): ``(expm(A), L(A, E))``, or only ``L(A, E)`` when ``compute_expm`` is False.
    ``method`` is accepted and ignored, as in JAX.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.linalg import expm_frechet
        >>> expm_frechet(fnp.zeros((2, 2)), fnp.eye(2), compute_expm=False)
        Array([[1., 0.],
               [0., 1.]], dtype=float32)
    """
    op = "scipy.linalg.expm_frechet"
    a, e = _square_matrix(op, "A", A), _square_matrix(op, "E", E)
    if a.shape != e.shape:
        raise op_value_error(op, f"A and E must have the same shape, got A.shape={a.shape} "
                                 f"and E.shape={e.shape}")
    dtype = dtypes.promote_types(a.dtype, e.dtype)
    expm_a, frechet = jvp(expm, (convert(a, dtype),), (convert(e, dtype),))
    return (expm_a, frechet) if compute_expm else frechet


@api_boundary
def polar(a: ArrayLike, side: str = "right", *, method: str = "qdwh", eps: float | None = None,
          max_iterations: int | None = None) -> tuple[Array, Array]:
    """The polar decomposition ``a = u @ p`` (``side='right'``, ``p`` is n x n) or
    ``a = p @ u`` (``side='left'``, ``p`` is m x m), with ``u`` having orthonormal columns
    (or rows) and ``p`` symmetric positive semi-definite. Computed from the thin SVD for both
    methods ('qdwh', JAX's default iteration, converges to the same factors; ``eps`` and
    ``max_iterations`` tune that iteration and are ignored). ``p`` is Hermitian for complex
    ``a``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.linalg import polar
        >>> u, p = polar(fnp.asarray([[0.0, 2.0], [-3.0, 0.0]]))
        >>> u
        Array([[ 0.,  1.],
               [-1.,  0.]], dtype=float32)
        >>> p
        Array([[3., 0.],
               [0., 2.]], dtype=float32)
    """
    op = "scipy.linalg.polar"
    x = asarray_arg(op, a)
    if x.ndim < 2:
        raise op_value_error(op, f"a must be at least a 2-d array, got shape {x.shape}")
    if side not in ("right", "left"):
        raise op_value_error(op, f"side must be 'right' or 'left', got {side!r}")
    if method not in ("qdwh", "svd"):
        raise op_value_error(op, f"unknown polar decomposition method {method!r}; use 'qdwh' "
                                 f"or 'svd'")
    u, s, vh = fnp.linalg.svd(x, full_matrices=False)
    s = s.astype(u.dtype)
    unitary = u @ vh
    if side == "right":  # p = V diag(s) V^H
        positive = fnp.conj(fnp.swapaxes(vh, -1, -2)) @ (s[..., :, None] * vh)
    else:  # p = U diag(s) U^H
        positive = (u * s[..., None, :]) @ fnp.conj(fnp.swapaxes(u, -1, -2))
    return unitary, positive


def _sylvester_2d(a, b, c, tol: float):
    m, n = c.shape
    # Row-major vec: vec(A X) = (A kron I_n) vec(X), vec(X B) = (I_m kron B^T) vec(X).
    system = fnp.kron(a, fnp.eye(n, dtype=a.dtype)) + fnp.kron(fnp.eye(m, dtype=a.dtype), b.T)
    x = fnp.linalg.solve(system, c.reshape(m * n)).reshape(m, n)
    # No unique solution when an eigenvalue of A and one of B (nearly) cancel: NaN, as JAX.
    # (a test only: stop_gradient spares the eigenvalues' derivative)
    eig_a, eig_b = fnp.linalg.eigvals(fa_stop_gradient(a)), fnp.linalg.eigvals(fa_stop_gradient(b))
    singular = fnp.any(fnp.abs(eig_a[:, None] + eig_b[None, :]) < tol)
    return fnp.where(singular, fnp.full_like(x, np.nan), x)


@api_boundary
def solve_sylvester(A: ArrayLike, B: ArrayLike, C: ArrayLike, *, method: str = "schur",
                    tol: float = 1e-8) -> Array:
    """The solution ``X`` of the Sylvester equation ``A X + X B = C`` (``A`` m x m, ``B``
    n x n, ``C`` m x n; leading axes broadcast as batch axes). NaN when some eigenvalues of
    ``A`` and ``B`` sum to within ``tol`` of zero (no unique solution), as in JAX. Both
    ``method`` names solve the same dense Kronecker system ``(A kron I + I kron B^T) vec(X) =
    vec(C)`` with LU (exact, O((mn)^3): meant for small matrices), where JAX uses Schur
    (Bartels-Stewart) or eigendecompositions; the solution is the same.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.linalg import solve_sylvester
        >>> a = fnp.asarray([[1.0, 2.0], [3.0, 4.0]])
        >>> b = fnp.asarray([[5.0, 6.0], [7.0, 8.0]])
        >>> x = solve_sylvester(a, b, fnp.asarray([[6.0, 8.0], [10.0, 12.0]]))
        >>> fnp.allclose(x, fnp.eye(2), atol=1e-5).item()
        True
    """
    op = "scipy.linalg.solve_sylvester"
    if method not in ("schur", "eigen"):
        raise op_value_error(op, f"method must be 'schur' or 'eigen', got {method!r}")
    a, b, c = (asarray_arg(op, x) for x in (A, B, C))
    if c.ndim < 2 or a.shape[-2:] != (c.shape[-2],) * 2 or b.shape[-2:] != (c.shape[-1],) * 2:
        raise op_value_error(op, f"incompatible shapes for A X + X B = C: A must be (..., m, m), "
                                 f"B (..., n, n) and C (..., m, n), got A.shape={a.shape}, "
                                 f"B.shape={b.shape}, C.shape={c.shape}")
    dtype = to_inexact_dtype(fnp.result_type(a, b, c))
    if dtype not in (dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128):
        raise op_type_error(op, f"A, B and C must be float32/float64/complex64/complex128 (or "
                                f"integer), got {dtype}")
    a, b, c = (convert(x, dtype) for x in (a, b, c))
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2], c.shape[:-2])
    if not batch:
        return _sylvester_2d(a, b, c, tol)
    a, b, c = (fnp.broadcast_to(x, (*batch, *x.shape[-2:])).reshape(-1, *x.shape[-2:])
               for x in (a, b, c))
    out = vmap(lambda a, b, c: _sylvester_2d(a, b, c, tol))(a, b, c)
    return out.reshape(*batch, *out.shape[-2:])
