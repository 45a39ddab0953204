"""``funcarray.random``: explicit-key random numbers, compatible with ``jax.random``.

Keys are typed key arrays made by ``key(seed)`` (dtype ``key<fry>``, as ``jax.random.key``) or
raw uint32 arrays of shape ``(2,)`` made by ``PRNGKey(seed)``, refreshed with ``split`` and
``fold_in``; every function takes both kinds, and nothing is stateful. The threefry2x32 generator
is built from funcarray's own uint32 operations, so sampling works eagerly and under ``vmap``,
``grad`` and ``jit``. For the same key, ``bits``, ``uniform`` and ``randint`` reproduce
``jax.random``'s outputs bit for bit (JAX 0.10.2 defaults), and the other samplers agree with
JAX to within float rounding.

Example:
    >>> import funcarray.random as fr
    >>> k1, k2 = fr.split(fr.key(0))
    >>> fr.uniform(k1, (3,)).shape
    (3,)
"""

from funcarray.random._continuous import (
    cauchy,
    double_sided_maxwell,
    exponential,
    gumbel,
    laplace,
    logistic,
    lognormal,
    maxwell,
    normal,
    pareto,
    rayleigh,
    triangular,
    truncated_normal,
    uniform,
    wald,
    weibull_min,
)
from funcarray.random._discrete import (
    bernoulli,
    binomial,
    categorical,
    geometric,
    multinomial,
    poisson,
    rademacher,
    randint,
)
from funcarray.random._gamma import (
    beta,
    chisquare,
    dirichlet,
    f,
    gamma,
    generalized_normal,
    loggamma,
    t,
)
from funcarray.random._keys import KeyArray
from funcarray.random._multivariate import (
    ball,
    multivariate_normal,
    orthogonal,
)
from funcarray.random._permutations import (
    choice,
    permutation,
)
from funcarray.random._prng import (
    PRNGKey,
    bits,
    clone,
    fold_in,
    key,
    key_data,
    key_impl,
    split,
    threefry2x32,
    wrap_key_data,
)

__all__ = [
    "key", "PRNGKey", "key_data", "wrap_key_data", "split", "fold_in", "threefry2x32", "bits",
    "uniform", "normal", "randint", "bernoulli", "categorical", "choice", "permutation",
    "truncated_normal", "gamma", "loggamma", "beta", "dirichlet", "exponential", "laplace",
    "logistic", "multivariate_normal", "gumbel", "poisson", "lognormal", "cauchy", "chisquare",
    "f", "t", "pareto", "rayleigh", "wald", "weibull_min", "maxwell", "double_sided_maxwell",
    "generalized_normal", "triangular", "ball", "orthogonal", "rademacher", "geometric",
    "binomial", "multinomial", "clone", "key_impl", "KeyArray",
]
