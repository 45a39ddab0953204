"""``funcarray.lax``: structured control flow and lax-style helpers (JAX's ``jax.lax``).

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray import lax
    >>> lax.fori_loop(0, 4, lambda i, total: total + i, 0)
    Array(6, dtype=int32)
"""

from funcarray._api import stop_gradient as stop_gradient
from funcarray.lax._branches import cond as cond
from funcarray.lax._branches import switch as switch
from funcarray.lax._control_flow import associative_scan as associative_scan
from funcarray.lax._control_flow import fori_loop as fori_loop
from funcarray.lax._control_flow import map as map  # noqa: A004 (JAX's name)
from funcarray.lax._control_flow import scan as scan
from funcarray.lax._control_flow import select_n as select_n
from funcarray.lax._control_flow import while_loop as while_loop

__all__ = ["cond", "switch", "while_loop", "fori_loop", "scan", "map", "associative_scan",
           "select_n", "stop_gradient"]
