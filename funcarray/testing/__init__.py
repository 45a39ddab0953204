"""``funcarray.testing``: checkers for transform laws, for users' tests and funcarray's own.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.testing import check_vmap
    >>> check_vmap(lambda x: x * 2, (fnp.ones((3, 2)),))
"""

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
    check_jvp_vjp as check_jvp_vjp,
)
from funcarray.testing._checks import (
    check_vmap as check_vmap,
)

__all__ = ["assert_allclose", "assert_trees_allclose", "check_grads", "check_jvp_vjp",
           "check_vmap"]
