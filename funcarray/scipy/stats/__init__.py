"""Probability distributions and statistics with ``jax.scipy.stats``'s names.

One module per distribution (``norm``, ``gamma``, ``multivariate_normal``...), each with the
functions JAX has for it (``logpdf``/``pdf``/``cdf``/``logcdf``/``sf``/``logsf``/``ppf``/
``isf``, ``logpmf``/``pmf`` for discrete ones), JAX's signatures (``loc=0, scale=1``) and
JAX's values, including ``-inf``/0/NaN outside the support. Everything is composed from
``funcarray.numpy`` and ``funcarray.scipy.special``, so it differentiates, batches and
compiles.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.scipy import stats
    >>> stats.norm.logpdf(fnp.asarray([0.0, 1.0]), loc=1.0).round(4)
    Array([-1.4189    , -0.91889995], dtype=float32)
"""

from funcarray.scipy.stats import bernoulli as bernoulli
from funcarray.scipy.stats import beta as beta
from funcarray.scipy.stats import betabinom as betabinom
from funcarray.scipy.stats import binom as binom
from funcarray.scipy.stats import cauchy as cauchy
from funcarray.scipy.stats import chi2 as chi2
from funcarray.scipy.stats import dirichlet as dirichlet
from funcarray.scipy.stats import expon as expon
from funcarray.scipy.stats import gamma as gamma
from funcarray.scipy.stats import gennorm as gennorm
from funcarray.scipy.stats import geom as geom
from funcarray.scipy.stats import gumbel_l as gumbel_l
from funcarray.scipy.stats import gumbel_r as gumbel_r
from funcarray.scipy.stats import laplace as laplace
from funcarray.scipy.stats import logistic as logistic
from funcarray.scipy.stats import multinomial as multinomial
from funcarray.scipy.stats import multivariate_normal as multivariate_normal
from funcarray.scipy.stats import nbinom as nbinom
from funcarray.scipy.stats import norm as norm
from funcarray.scipy.stats import pareto as pareto
from funcarray.scipy.stats import poisson as poisson
from funcarray.scipy.stats import t as t
from funcarray.scipy.stats import truncnorm as truncnorm
from funcarray.scipy.stats import uniform as uniform
from funcarray.scipy.stats import vonmises as vonmises
from funcarray.scipy.stats import wrapcauchy as wrapcauchy
from funcarray.scipy.stats._core import ModeResult as ModeResult
from funcarray.scipy.stats._core import mode as mode
from funcarray.scipy.stats._core import rankdata as rankdata
from funcarray.scipy.stats._core import sem as sem
from funcarray.scipy.stats._kde import gaussian_kde as gaussian_kde

__all__ = ["ModeResult", "mode", "rankdata", "sem", "gaussian_kde",
           "bernoulli", "beta", "betabinom", "binom", "cauchy", "chi2", "dirichlet", "expon",
           "gamma", "gennorm", "geom", "gumbel_l", "gumbel_r", "laplace", "logistic",
           "multinomial", "multivariate_normal", "nbinom", "norm", "pareto", "poisson", "t",
           "truncnorm", "uniform", "vonmises", "wrapcauchy"]
