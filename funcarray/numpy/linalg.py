"""``funcarray.numpy.linalg``: jax.numpy.linalg's functions, with the same names and signatures.

Factorisations are primitives with eager NumPy kernels, JVP rules, batching rules (leading
batch dimensions, as NumPy) and StableHLO lowerings; everything else (``solve``, ``inv``,
``det``, ``slogdet``, ``norm``...) is composed from them, so it differentiates, vectorises and
jits like any other funcarray function.

Example:
    >>> import funcarray.numpy as fnp
    >>> a = fnp.asarray([[4.0, 2.0], [2.0, 3.0]])
    >>> fnp.linalg.solve(a, fnp.asarray([2.0, 1.0]))
    Array([0.5, 0. ], dtype=float32)
"""

from funcarray.numpy._linalg_eig_and_tensor import *  # noqa: F403
from funcarray.numpy._linalg_eig_and_tensor import __all__ as _extra_names
from funcarray.numpy._linalg_solve import *  # noqa: F403
from funcarray.numpy._linalg_solve import __all__ as _solve_names
from funcarray.numpy._linalg_spectral import *  # noqa: F403
from funcarray.numpy._linalg_spectral import __all__ as _spectral_names

__all__ = [*_solve_names, *_spectral_names, *_extra_names]


def _install_api_boundaries():
    """Public functions show the user's frames only in their errors (as funcarray.numpy)."""
    from funcarray.base.errors import api_boundary
    namespace = globals()
    for name in __all__:
        value = namespace[name]
        # (the result classes, QRResult..., stay classes: isinstance and type hints need them)
        namespace[name] = value if isinstance(value, type) else api_boundary(value)


_install_api_boundaries()
