"""``funcarray.scipy.sparse``: JAX's ``jax.scipy.sparse``, its iterative solvers
(``linalg.cg``) for matrices given as functions.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.scipy.sparse import linalg
    >>> x, _ = linalg.cg(lambda v: 2.0 * v, fnp.ones(2))
    >>> x
    Array([0.5, 0.5], dtype=float32)
"""

from funcarray.scipy.sparse import linalg as linalg

__all__ = ["linalg"]
