"""``gaussian_kde``: Gaussian kernel density estimation (``jax.scipy.stats.gaussian_kde``).

The estimator is an immutable pytree (``dataset`` of shape (d, n), normalised ``weights``,
``neff``, ``covariance`` and its inverse), so it passes through ``jit``, ``grad`` and
``vmap``. Densities whiten the points with the Cholesky factor of the inverse covariance and
sum (or log-sum-exp) the kernels over the dataset in one broadcast (m, n) pass.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

import funcarray.numpy as fnp
from funcarray.api.arguments import asarray_arg
from funcarray.base.errors import api_boundary, op_value_error
from funcarray.base.tree_util import register_pytree_node_class
from funcarray.nn import logsumexp
from funcarray.scipy import special
from funcarray.scipy.linalg import cho_factor, cho_solve, cholesky
from funcarray.scipy.stats._common import promote_dtypes_inexact

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike, Shape
    from funcarray.random._keys import KeyArrayLike

__all__ = ["gaussian_kde"]

_FIELDS = ("neff", "dataset", "weights", "covariance", "inv_cov")


def _not_complex(op, x):
    if x.dtype.kind == "c":
        raise NotImplementedError(f"{op}: complex data is not supported (as in JAX)")
    return x


@register_pytree_node_class
class gaussian_kde:  # noqa: N801 (JAX's and SciPy's name)
    """A Gaussian kernel density estimate of ``dataset`` (shape (d, n), or (n,) for d = 1).

    ``bw_method`` picks the bandwidth factor: ``"scott"`` (the default), ``"silverman"``, a
    scalar, or a callable of the estimator; ``weights`` (length n) weigh the points.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import gaussian_kde
        >>> kde = gaussian_kde(fnp.asarray([0.0, 1.0, 1.5, 3.0]))
        >>> kde.evaluate(fnp.asarray([0.0, 1.0, 5.0])).round(4)
        Array([0.1963, 0.2685, 0.0115], dtype=float32)
        >>> kde.integrate_box_1d(-100.0, 100.0).round(4)
        Array(1., dtype=float32)
    """

    __slots__ = _FIELDS
    # (set once, by __init__ or tree_unflatten, through _set)
    dataset: Array
    weights: Array
    neff: Array
    covariance: Array
    inv_cov: Array

    @api_boundary
    def __init__(self, dataset: ArrayLike,
                 bw_method: str | ArrayLike | Callable[[gaussian_kde], ArrayLike] | None = None,
                 weights: ArrayLike | None = None) -> None:
        op = "gaussian_kde"
        dataset = fnp.atleast_2d(_not_complex(op, asarray_arg(op, dataset)))
        if not dataset.size > 1:
            raise op_value_error(op, "dataset must have more than one element, got shape "
                                     f"{tuple(dataset.shape)}")
        if dataset.ndim != 2:
            raise op_value_error(op, f"dataset must be (d, n) or (n,), got shape "
                                     f"{tuple(dataset.shape)}")
        d, n = dataset.shape
        if weights is not None:
            dataset, weights = promote_dtypes_inexact(op, dataset, weights)
            weights = fnp.atleast_1d(weights)
            if weights.ndim != 1 or weights.shape[0] != n:
                raise op_value_error(op, f"weights must be one-dimensional of length {n} (one "
                                         f"per point), got shape {tuple(weights.shape)}")
            weights = weights / fnp.sum(weights)
        else:
            (dataset,) = promote_dtypes_inexact(op, dataset)
            weights = fnp.full(n, 1.0 / n, dtype=dataset.dtype)
        self._set("dataset", dataset)
        self._set("weights", weights)
        neff = self._set("neff", 1 / fnp.sum(weights ** 2))
        if bw_method is None or (isinstance(bw_method, str) and bw_method == "scott"):
            factor = fnp.power(neff, -1.0 / (d + 4))
        elif isinstance(bw_method, str) and bw_method == "silverman":
            factor = fnp.power(neff * (d + 2) / 4.0, -1.0 / (d + 4))
        elif not isinstance(bw_method, str) and fnp.ndim(bw_method) == 0 and not callable(
                bw_method):
            factor = bw_method
        elif callable(bw_method):
            factor = bw_method(self)
        else:
            raise op_value_error(op, "bw_method must be 'scott', 'silverman', a scalar or a "
                                     f"callable, got {bw_method!r}")
        data_covariance = fnp.atleast_2d(fnp.cov(dataset, rowvar=True, bias=False,
                                                 aweights=weights))
        self._set("covariance", data_covariance * factor ** 2)
        self._set("inv_cov", fnp.linalg.inv(data_covariance) / factor ** 2)

    def _set(self, name, value):
        object.__setattr__(self, name, value)
        return value

    def __setattr__(self, name, value):
        raise AttributeError(f"gaussian_kde is immutable; cannot set {name!r} (build a new "
                             "estimator instead)")

    def tree_flatten(self) -> tuple[tuple[Array, ...], None]:
        return tuple(getattr(self, name) for name in _FIELDS), None

    @classmethod
    def tree_unflatten(cls, aux_data: None, children: Iterable[Array]) -> gaussian_kde:
        kde = cls.__new__(cls)
        for name, value in zip(_FIELDS, children):
            kde._set(name, value)
        return kde

    @property
    def d(self) -> int:
        """The number of dimensions."""
        return self.dataset.shape[0]

    @property
    def n(self) -> int:
        """The number of data points."""
        return self.dataset.shape[1]

    def _points(self, op, points):
        points = fnp.atleast_2d(_not_complex(op, asarray_arg(op, points)))
        d, m = points.shape
        if d != self.d:
            if d == 1 and m == self.d:
                return fnp.reshape(points, (self.d, 1))
            raise op_value_error(op, f"points have dimension {d}, the dataset has dimension "
                                     f"{self.d}; pass points of shape ({self.d}, m)")
        return points

    def _kernel_log_terms(self, points):
        """``log_norm - |W^T (x_i - p_j)|**2 / 2`` for every point i and data point j."""
        dataset, points, inv_cov = promote_dtypes_inexact(
            "gaussian_kde", self.dataset, points, self.inv_cov)
        whitening = cholesky(inv_cov, lower=True)
        data_white = fnp.matmul(dataset.T, whitening)          # (n, d)
        points_white = fnp.matmul(points.T, whitening)         # (m, d)
        log_norm = (fnp.sum(fnp.log(fnp.diagonal(whitening)))
                    - 0.5 * self.d * float(np.log(2 * np.pi)))
        diff = points_white[:, None, :] - data_white[None, :, :]
        return log_norm - 0.5 * fnp.sum(diff * diff, axis=-1)   # (m, n)

    @api_boundary
    def evaluate(self, points: ArrayLike) -> Array:
        """The density at ``points`` (shape (d, m), or (m,) for d = 1).

        Example:
            >>> import funcarray.numpy as fnp
            >>> from funcarray.scipy.stats import gaussian_kde
            >>> kde = gaussian_kde(fnp.asarray([[0.0, 1.0, 2.0], [0.0, 2.0, 1.0]]))
            >>> kde.evaluate(fnp.asarray([[1.0], [1.0]])).round(4)
            Array([0.1013], dtype=float32)
        """
        terms = self._kernel_log_terms(self._points("evaluate", points))
        return fnp.sum(self.weights[None, :] * fnp.exp(terms), axis=1)

    def __call__(self, points: ArrayLike) -> Array:
        return self.evaluate(points)

    @api_boundary
    def pdf(self, x: ArrayLike) -> Array:
        """The density at ``x`` (the same as ``evaluate``).

        Example:
            >>> import funcarray.numpy as fnp
            >>> from funcarray.scipy.stats import gaussian_kde
            >>> gaussian_kde(fnp.asarray([0.0, 1.0, 3.0])).pdf(fnp.asarray([1.0])).round(4)
            Array([0.2149], dtype=float32)
        """
        return self.evaluate(x)

    @api_boundary
    def logpdf(self, x: ArrayLike) -> Array:
        """The log density at ``x``, by log-sum-exp (finite far from the data).

        Example:
            >>> import funcarray.numpy as fnp
            >>> from funcarray.scipy.stats import gaussian_kde
            >>> kde = gaussian_kde(fnp.asarray([0.0, 1.0, 3.0]))
            >>> kde.logpdf(fnp.asarray([1.0])).round(4)
            Array([-1.5375999], dtype=float32)
            >>> fnp.isfinite(kde.logpdf(fnp.asarray([100.0])))  # where pdf underflows to 0
            Array([ True], dtype=bool)
        """
        terms = self._kernel_log_terms(self._points("logpdf", x))
        return logsumexp(fnp.log(self.weights)[None, :] + terms, axis=1)

    def _normalised_cholesky(self, covariance):
        chol = cho_factor(covariance)
        norm = float(np.sqrt(2 * np.pi)) ** self.d * fnp.prod(fnp.diagonal(chol[0]))
        return chol, 1.0 / norm

    @api_boundary
    def integrate_gaussian(self, mean: ArrayLike, cov: ArrayLike) -> Array:
        """The integral of the density times the normal density N(``mean``, ``cov``).

        Example:
            >>> import funcarray.numpy as fnp
            >>> from funcarray.scipy.stats import gaussian_kde
            >>> kde = gaussian_kde(fnp.asarray([0.0, 1.0, 3.0]))
            >>> kde.integrate_gaussian(fnp.asarray([1.0]), fnp.asarray([[1.0]])).round(4)
            Array(0.1907, dtype=float32)
        """
        op = "integrate_gaussian"
        mean = fnp.atleast_1d(fnp.squeeze(asarray_arg(op, mean)))
        cov = fnp.atleast_2d(asarray_arg(op, cov))
        if mean.shape != (self.d,):
            raise op_value_error(op, f"mean must have shape ({self.d},), got "
                                     f"{tuple(mean.shape)}")
        if cov.shape != (self.d, self.d):
            raise op_value_error(op, f"cov must have shape ({self.d}, {self.d}), got "
                                     f"{tuple(cov.shape)}")
        chol, norm = self._normalised_cholesky(self.covariance + cov)
        return _convolve(chol, norm, self.dataset, self.weights, mean)

    @api_boundary
    def integrate_box_1d(self, low: ArrayLike, high: ArrayLike) -> Array:
        """The probability mass between the scalars ``low`` and ``high`` (d = 1 only).

        Example:
            >>> import funcarray.numpy as fnp
            >>> from funcarray.scipy.stats import gaussian_kde
            >>> gaussian_kde(fnp.asarray([0.0, 1.0, 3.0])).integrate_box_1d(0.0, 1.0).round(4)
            Array(0.20979999, dtype=float32)
        """
        op = "integrate_box_1d"
        if self.d != 1:
            raise op_value_error(op, f"only one-dimensional estimates are supported, this one "
                                     f"has d = {self.d}")
        if np.ndim(low) != 0 or np.ndim(high) != 0:
            raise op_value_error(op, "the limits of integration must be scalars")
        sigma = fnp.squeeze(fnp.sqrt(self.covariance))
        low = fnp.squeeze((low - self.dataset) / sigma)
        high = fnp.squeeze((high - self.dataset) / sigma)
        return fnp.sum(self.weights * (special.ndtr(high) - special.ndtr(low)))

    @api_boundary
    def integrate_kde(self, other: gaussian_kde) -> Array:
        """The integral of the product of this density and ``other``'s.

        Example:
            >>> import funcarray.numpy as fnp
            >>> from funcarray.scipy.stats import gaussian_kde
            >>> a = gaussian_kde(fnp.asarray([0.0, 1.0, 3.0]))
            >>> b = gaussian_kde(fnp.asarray([0.5, 2.0]))
            >>> a.integrate_kde(b).round(4)
            Array(0.1823, dtype=float32)
        """
        if other.d != self.d:
            raise op_value_error("integrate_kde", f"the estimates have dimensions {self.d} "
                                                  f"and {other.d}; they must be equal")
        chol, norm = self._normalised_cholesky(self.covariance + other.covariance)
        small, large = (self, other) if self.n < other.n else (other, self)
        from funcarray.api.vectorization import vmap

        per_point = vmap(functools.partial(_convolve, chol, norm, large.dataset, large.weights),
                         in_axes=1)(small.dataset)
        return fnp.sum(per_point * small.weights)

    @api_boundary
    def resample(self, key: KeyArrayLike, shape: Shape = ()) -> Array:
        """Draw samples (shape (d, *shape)): a data point picked by weight plus normal
        noise with the kernel covariance.

        Example:
            >>> import funcarray.numpy as fnp, funcarray.random as random
            >>> from funcarray.scipy.stats import gaussian_kde
            >>> kde = gaussian_kde(fnp.asarray([0.0, 1.0, 3.0]))
            >>> kde.resample(random.key(0), (4,)).shape
            (1, 4)
        """
        from funcarray import random

        index_key, noise_key = random.split(key)
        index = random.choice(index_key, self.n, shape=shape, p=self.weights)
        noise = random.multivariate_normal(noise_key, fnp.zeros(self.d, self.covariance.dtype),
                                           self.covariance, shape=shape,
                                           dtype=self.dataset.dtype)
        return self.dataset[:, index] + fnp.moveaxis(noise, -1, 0)

    def integrate_box(self, low_bounds: ArrayLike, high_bounds: ArrayLike,
                      maxpts: int | None = None) -> Array:
        """Not supported (as in JAX): use ``integrate_box_1d`` for one-dimensional data."""
        raise NotImplementedError(
            "gaussian_kde.integrate_box: only 1-d box integrals are supported; use "
            "integrate_box_1d")

    def set_bandwidth(self, bw_method: str | ArrayLike | None = None) -> None:
        """Not supported (as in JAX): the estimator is immutable; build a new one."""
        raise NotImplementedError(
            "gaussian_kde.set_bandwidth: the estimator is immutable; build a new "
            "gaussian_kde(dataset, bw_method=...) instead")


def _convolve(chol, norm, target, weights, mean):
    diff = target - mean[:, None]
    alpha = cho_solve(chol, diff)
    return norm * fnp.sum(fnp.exp(-0.5 * fnp.sum(diff * alpha, axis=0)) * weights)
