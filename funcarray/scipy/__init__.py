"""``funcarray.scipy``: SciPy-style functions (JAX's ``jax.scipy``): ``special``, ``linalg``,
``sparse.linalg`` (iterative solvers).

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.scipy import special
    >>> special.erf(fnp.asarray([0.0]))
    Array([0.], dtype=float32)
"""

from funcarray.scipy import fft as fft
from funcarray.scipy import linalg as linalg
from funcarray.scipy import sparse as sparse
from funcarray.scipy import special as special
from funcarray.scipy import stats as stats

__all__ = ["fft", "linalg", "sparse", "special", "stats"]
