"""``funcarray.nn``: neural-network functions in the style of ``jax.nn``.

Activations (``relu``, ``gelu``, ``silu``, ``softplus``...), normalisations (``softmax``,
``log_softmax``, ``logsumexp``, ``standardize``), ``one_hot`` and, in
``funcarray.nn.initializers``, weight initializers as pure functions of a random key. Every
function is built from ``funcarray.numpy`` operations, so it works eagerly and under
``grad``, ``vmap`` and ``jit``, with ``jax.nn``'s values and gradients at the edges.

Example:
    >>> import funcarray.nn as nn, funcarray.numpy as fnp
    >>> nn.softmax(fnp.asarray([0.0, 0.0]))
    Array([0.5, 0.5], dtype=float32)
"""

from funcarray.nn import initializers as initializers
from funcarray.nn._activations import *  # noqa: F403
from funcarray.nn._activations import __all__ as _activation_names
from funcarray.nn._attention import dot_product_attention as dot_product_attention
from funcarray.nn._functions import *  # noqa: F403
from funcarray.nn._functions import __all__ as _function_names

__all__ = ["initializers", *_activation_names, *_function_names,
           "dot_product_attention"]


def _install_api_boundaries():
    """Wrap every public function so that user-facing errors show the user's frames only."""
    from funcarray.base.errors import api_boundary
    namespace = globals()
    for name in __all__:
        value = namespace[name]
        if (callable(value) and not hasattr(value, "__wrapped__")
                and not getattr(value, "_filters_own_errors", False)):
            namespace[name] = api_boundary(value)


_install_api_boundaries()
