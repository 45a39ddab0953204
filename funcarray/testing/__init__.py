"""``funcarray.testing``: Hypothesis strategies and transform-law checkers for your own tests.

Checkers (no Hypothesis needed): ``check_grads`` (derivatives against finite differences),
``check_jvp_vjp`` (the transpose identity), ``check_vmap`` (vmap equals a loop), ``check_jit``
(jit equals eager), ``check_transforms`` (all of them), ``assert_allclose`` and
``assert_trees_allclose`` (pytree- and dtype-aware), ``count_compiles`` (a context manager
that bounds XLA compilations). Each raises an AssertionError that shows the input, the two
results and their largest difference with its index.

Strategies (imported on first use; they need ``hypothesis``): ``arrays``, ``array_shapes``,
``broadcastable_shapes``, ``mutually_broadcastable_shapes``, ``dtypes``, ``finite_floats``,
``pytrees``, ``keys``, ``axes``. They draw funcarray Arrays of every funcarray dtype (bfloat16
and float16 included) and shrink to small shapes and simple values.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.testing import check_vmap
    >>> check_vmap(lambda x: x * 2, (fnp.ones((3, 2)),))
"""

from funcarray.testing._checks import (
    CompileCounter as CompileCounter,
)
from funcarray.testing._checks import (
    assert_allclose as assert_allclose,
)
from funcarray.testing._checks import (
    assert_trees_allclose as assert_trees_allclose,
)
from funcarray.testing._checks import (
    check_grads as check_grads,
)
from funcarray.testing._checks import (
    check_jit as check_jit,
)
from funcarray.testing._checks import (
    check_jvp_vjp as check_jvp_vjp,
)
from funcarray.testing._checks import (
    check_transforms as check_transforms,
)
from funcarray.testing._checks import (
    check_vmap as check_vmap,
)
from funcarray.testing._checks import (
    count_compiles as count_compiles,
)
from funcarray.testing._checks import (
    tolerance as tolerance,
)

# The strategies import hypothesis, a test-time dependency: load them only when asked for, so
# the checkers work in an environment without it.
_STRATEGIES = ("arrays", "array_shapes", "broadcastable_shapes", "mutually_broadcastable_shapes",
               "dtypes", "finite_floats", "pytrees", "keys", "axes")

__all__ = ["assert_allclose", "assert_trees_allclose", "check_grads", "check_jit",
           "check_jvp_vjp", "check_transforms", "check_vmap", "count_compiles",
           "CompileCounter", "tolerance", *_STRATEGIES]


def __getattr__(name):
    if name in _STRATEGIES:
        from funcarray.testing import _strategies
        return getattr(_strategies, name)
    raise AttributeError(f"module 'funcarray.testing' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_STRATEGIES))
