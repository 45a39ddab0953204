"""Leaf predicates for ``funcarray.tree.partition``: which leaves of a model are arrays, and
which are arrays that gradients flow through."""

from __future__ import annotations

from typing import Any

import numpy as np

from funcarray.api.arguments import is_array as _is_funcarray_array
from funcarray.base import dtypes
from funcarray.random._keys import KeyArray

__all__ = ["is_array", "is_inexact_array"]


def is_array(x: Any) -> bool:
    """True for arrays: funcarray Arrays (traced ones included), typed random keys, NumPy
    arrays and scalars; False for Python numbers and everything else (Equinox's
    ``is_array``).

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.is_array(fnp.ones(2)), nn.is_array(1.0)
        (True, False)
    """
    return _is_funcarray_array(x) or isinstance(x, np.ndarray | np.generic | KeyArray)


def is_inexact_array(x: Any) -> bool:
    """True for arrays of a floating or complex dtype: the leaves gradients are taken for.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.is_inexact_array(fnp.ones(2)), nn.is_inexact_array(fnp.arange(2))
        (True, False)
    """
    return is_array(x) and not isinstance(x, KeyArray) and dtypes.is_inexact(x.dtype)
