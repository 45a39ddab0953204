"""funcarray.scipy.stats against jax.scipy.stats (the oracle): values in float32 and float64
(points in and out of the support, invalid parameters, broadcast loc/scale), fa.jit against
eager, fa.grad of log densities against jax.grad, fa.vmap against a loop, and errors.

jax's values and gradients are stored in stats_jax_oracle.npz (jax's eager functions compile
each operation per shape and dtype: tens of seconds for the table); regenerate it with
`python tests/scipy/test_stats.py` (`--update` adds only the missing keys). A sample is recomputed
live by test_stored_oracle_is_current_jax. rankdata/mode/sem use scipy.stats, which jax follows.
"""

from __future__ import annotations

import inspect
import os

import jax
import jax.scipy.stats as jstats
import numpy as np
import pytest
import scipy.stats as scipy_stats

import funcarray as fa
from funcarray.scipy import stats as fstats

X = [-3.0, -0.5, 0.0, 0.3, 1.0, 2.5, 40.0]     # points, in and out of every support
Q = [0.0, 1e-3, 0.3, 0.5, 0.9, 1.0, 1.5]        # probabilities, one invalid
K = [-1.0, 0.0, 1.0, 2.0, 3.0, 2.5, 7.0]        # counts, one negative, one non-integer
LOC = [[0.0], [0.5]]                            # (2, 1): broadcasts against the points
SCALE = 1.5

# name -> the shape parameters (after the point; loc/scale follow where the function has them)
SPECS = {
    "norm": {}, "uniform": {}, "expon": {}, "laplace": {}, "logistic": {}, "cauchy": {},
    "gumbel_l": {}, "gumbel_r": {},
    "t": {"df": [[4.0], [0.7]]},
    "gamma": {"a": 2.5},
    "beta": {"a": [[2.0], [0.5]], "b": 3.5},
    "chi2": {"df": 3.0},
    "pareto": {"b": 2.5},
    "gennorm": {"beta": [[1.0], [2.5]]},
    "vonmises": {"kappa": [[0.5], [3.0]]},
    "wrapcauchy": {"c": [[0.3], [0.8]]},
    "truncnorm": {"a": -1.0, "b": [[2.0], [0.5]]},
    "poisson": {"mu": [[2.5], [0.0]]},
    "bernoulli": {"p": [[0.3], [1.0]]},
    "binom": {"n": 5.0, "p": [[0.3], [1.0]]},
    "betabinom": {"n": 5.0, "a": 2.0, "b": 1.5},
    "geom": {"p": 0.3},
    "nbinom": {"n": 3.0, "p": 0.4},
}
DISCRETE = {"poisson", "bernoulli", "binom", "betabinom", "geom", "nbinom"}
# Quantile-style functions take probabilities as their first argument.
_QUANTILE = {"ppf", "isf"}


def _cases():
    for dist, spec in SPECS.items():
        module = getattr(fstats, dist)
        for fn in module.__all__:
            if fn == "entropy":
                continue
            yield dist, fn


def _args(dist, fn, dtype):
    """The arguments of ``dist.fn``: points, shape parameters, loc (and scale)."""
    params = list(inspect.signature(getattr(getattr(fstats, dist), fn)).parameters)
    first = Q if fn in _QUANTILE else (K if dist in DISCRETE else X)
    if dist == "bernoulli" and fn == "cdf":
        first = [-1.0, 0.0, 0.5, 1.0, 2.0, np.nan, 0.2]
    values = {"loc": LOC if dist not in DISCRETE else [[0.0], [1.0]], "scale": SCALE,
              **SPECS[dist]}
    args = [first] + [values[p] for p in params[1:]]
    return [np.asarray(a, dtype) for a in args]


TOL = {np.float32: dict(rtol=2e-4, atol=2e-5), np.float64: dict(rtol=1e-9, atol=1e-11)}


def _check(actual, expected, dtype):
    assert isinstance(actual, fa.Array)
    expected = np.asarray(expected)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    np.testing.assert_allclose(np.asarray(actual, np.float64), expected.astype(np.float64),
                               equal_nan=True, **TOL[dtype])

INVALID = [  # (dist, fn, args): parameters outside their domain, far tails, degenerate cases
    ("beta", "logpdf", (0.5, -1.0, 2.0)),
    ("beta", "logpdf", (0.5, 2.0, 2.0, 0.0, -1.0)),
    ("gumbel_r", "logpdf", (1.0, 0.0, -1.0)),
    ("gumbel_l", "logcdf", (1.0, 0.0, 0.0)),
    ("gumbel_r", "ppf", (0.0,)),
    ("gumbel_r", "logsf", (30.0,)),
    ("wrapcauchy", "logpdf", (1.0, 1.5)),
    ("vonmises", "logpdf", (1.0, -1.0)),
    ("truncnorm", "logpdf", (0.0, 1.0, -1.0)),
    ("betabinom", "logpmf", (1.0, 3.0, -1.0, 2.0)),
    ("bernoulli", "ppf", (0.5, 1.5)),
    ("uniform", "ppf", (np.nan,)),
    ("expon", "ppf", (-0.5,)),
    ("pareto", "ppf", (1.5, 2.0)),
    ("binom", "logpmf", (0.0, 0.0, 0.5)),
    ("binom", "logpmf", (3.0, 3.0, 1.0)),
    ("norm", "ppf", (0.0,)),
    ("norm", "logcdf", (-40.0,)),
    ("norm", "logsf", (40.0,)),
    ("norm", "isf", (1e-30,)),
    ("truncnorm", "logcdf", (6.0, 5.0, 7.0)),
    ("truncnorm", "logsf", (-6.0, -7.0, -5.0)),
    ("logistic", "logpdf", (200.0,)),
]

GRAD_CASES = [  # (dist, fn, args): every argument inside the support, all differentiated
    ("norm", "logpdf", (0.3, 0.5, 1.5)),
    ("norm", "logcdf", (-2.0, 0.5, 1.5)),
    ("t", "logpdf", (0.3, 4.0, 0.5, 1.5)),
    ("gamma", "logpdf", (2.0, 2.5, 0.5, 1.5)),
    ("beta", "logpdf", (0.3, 2.0, 3.5)),
    ("expon", "logpdf", (2.0, 0.5, 1.5)),
    ("laplace", "logpdf", (2.0, 0.5, 1.5)),
    ("logistic", "logpdf", (2.0, 0.5, 1.5)),
    ("cauchy", "logpdf", (2.0, 0.5, 1.5)),
    ("chi2", "logpdf", (2.0, 3.0, 0.5, 1.5)),
    ("uniform", "logpdf", (0.7, 0.5, 1.5)),
    ("gumbel_r", "logcdf", (0.7, 0.5, 1.5)),  # (jax cannot differentiate its logpdf)
    ("pareto", "logpdf", (3.0, 2.5, 0.5, 1.5)),
    ("poisson", "logpmf", (2.0, 2.5)),
    ("bernoulli", "logpmf", (1.0, 0.3)),
    ("binom", "logpmf", (2.0, 5.0, 0.3)),
    ("nbinom", "logpmf", (2.0, 3.0, 0.4)),
    ("truncnorm", "logpdf", (0.3, -1.0, 2.0, 0.5, 1.5)),
]


def _mvn_cases():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(3, 3))
    cov = a @ a.T + np.eye(3)
    batch_cov = np.stack([cov, 2 * np.eye(3)])            # (2, 3, 3)
    x = rng.normal(size=(4, 3))
    return [
        (x, np.zeros(3), cov),
        (x, rng.normal(size=3), 2.5),                      # scalar cov: cov * I
        (rng.normal(size=5), 0.5, 2.0),                    # scalar mean: univariate
        (x[:, None, :], rng.normal(size=(2, 3)), batch_cov),  # batch axes broadcast
        (x[0], np.zeros(3), cov),
    ]


_ALPHA = np.asarray([1.5, 2.0, 0.7])
_DIRICHLET_X = [np.asarray([0.2, 0.3, 0.5]), np.asarray([0.2, 0.3]),  # last entry implied
                np.asarray([[0.2, 0.6], [0.3, 0.5], [0.5, -0.1]]),    # batch; off simplex
                np.asarray([0.2, 0.3, 0.6])]                          # sum != 1
_MULTINOMIAL = [([1, 2, 0], 3), ([1, 2, 0], 4), ([[1, 2, 0], [0, 0, 3]], 6), ([0, 0, 0], 0)]
_ENTROPY_MU = [0.0, 0.5, 3.0, 9.9, 10.0, 50.0, 150.0, 1000.0]


def _value_cases():
    """``(key, dist, fn, args)`` for every value compared with jax, in both dtypes."""
    cases = []
    for dtype in (np.float32, np.float64):
        tag = np.dtype(dtype).name
        for dist, fn in _cases():
            cases.append((f"{tag}/{dist}.{fn}", dist, fn, _args(dist, fn, dtype)))
        for i, (dist, fn, args) in enumerate(INVALID):
            cases.append((f"{tag}/invalid{i}/{dist}.{fn}", dist, fn,
                          [np.asarray(a, dtype) for a in args]))
        for i, args in enumerate(_mvn_cases()):
            args = [np.asarray(a, dtype) for a in args]
            for fn in ("logpdf", "pdf"):
                cases.append((f"{tag}/mvn{i}/{fn}", "multivariate_normal", fn, args))
    for i, x in enumerate(_DIRICHLET_X):
        for fn in ("logpdf", "pdf"):
            cases.append((f"dirichlet{i}/{fn}", "dirichlet", fn, [x, _ALPHA]))
    p = np.asarray([0.2, 0.5, 0.3])
    for i, (x, n) in enumerate(_MULTINOMIAL):
        for fn in ("logpmf", "pmf"):
            cases.append((f"multinomial{i}/{fn}", "multinomial", fn,
                          [np.asarray(x, np.int32), np.int32(n), p]))
    mu = np.asarray(_ENTROPY_MU)
    cases.append(("poisson.entropy", "poisson", "entropy", [mu]))
    cases.append(("poisson.entropy/loc", "poisson", "entropy", [mu[:2], np.zeros((3, 1))]))
    return cases


def _grad_args(args):
    return tuple(np.float64(a) for a in args)


# jax's eager functions compile every operation per shape and dtype (tens of seconds for the
# whole table), so jax's values are computed once by `python tests/scipy/test_stats.py` and stored
# next to this file; test_stored_oracle_is_current_jax recomputes a sample live.
_ORACLE_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "stats_jax_oracle.npz")


def _jax_value(dist, fn, args):
    return np.asarray(getattr(getattr(jstats, dist), fn)(*args))


def _jax_grad(dist, fn, args):
    args = _grad_args(args)
    grads = jax.grad(getattr(getattr(jstats, dist), fn), tuple(range(len(args))))(*args)
    return np.asarray(grads)


def _kde_cases():
    """``(key, dataset, bw_method, weights, points, other dataset)`` for gaussian_kde."""
    rng = np.random.default_rng(3)
    cases = []
    for key, shape, bw, weighted in (("kde0", (2, 7), None, False),
                                     ("kde1", (6,), "silverman", True),
                                     ("kde2", (2, 5), 0.7, False)):
        d = shape[0] if len(shape) == 2 else 1
        weights = rng.uniform(size=shape[-1]) if weighted else None
        other = rng.normal(size=(d, 3) if d > 1 else 3)
        cases.append((key, rng.normal(size=shape), bw, weights, rng.normal(size=(d, 4)),
                      other))
    return cases


def _kde_results(stats, random, kde_case):
    """The values compared for one estimator (``stats``: jax's or funcarray's module)."""
    key, data, bw, weights, points, other = kde_case
    kde = stats.gaussian_kde(data, bw, weights)
    other = stats.gaussian_kde(other)
    out = {"covariance": kde.covariance, "neff": kde.neff, "evaluate": kde.evaluate(points),
           "logpdf": kde.logpdf(points), "integrate_kde": kde.integrate_kde(other),
           "integrate_gaussian": kde.integrate_gaussian(np.full(kde.d, 0.3), 0.5 * np.eye(kde.d)),
           "resample": kde.resample(random.key(7), (3,))}
    if kde.d == 1:
        out["integrate_box_1d"] = kde.integrate_box_1d(-0.5, 1.0)
    return {f"{key}/{name}": value for name, value in out.items()}


def _write_oracle(update=False):
    """Store jax's values; with ``update``, keep the stored ones and add the missing."""
    stored = {}
    if update and os.path.exists(_ORACLE_PATH):
        with np.load(_ORACLE_PATH) as data:
            stored = dict(data)
    for key, dist, fn, args in _value_cases():
        if key not in stored:
            stored[key] = _jax_value(dist, fn, args)
    for dist, fn, args in GRAD_CASES:
        if f"grad/{dist}.{fn}" not in stored:
            stored[f"grad/{dist}.{fn}"] = _jax_grad(dist, fn, args)
    for case in _kde_cases():
        stored.update({k: np.asarray(v) for k, v in _kde_results(jstats, jax.random, case).items()})
    for key, dist, args in _multivariate_grad_cases():
        grads = jax.grad(getattr(jstats, dist).logpdf, tuple(range(len(args))))(*args)
        stored.update({f"grad/{key}/{i}": np.asarray(g) for i, g in enumerate(grads)})
    np.savez_compressed(_ORACLE_PATH, **stored)


@pytest.fixture(scope="module")
def oracle():
    with np.load(_ORACLE_PATH) as data:
        return dict(data)


def _expected(oracle, key):
    assert key in oracle, f"{key} has no stored jax value: run `python tests/scipy/test_stats.py`"
    return oracle[key]


def test_values_match_jax(oracle):
    """Every function on points in and out of the support, broadcast loc/scale/shape
    parameters, invalid parameters and far tails, in float32 and float64 (one test: the
    table is the parametrisation)."""
    failures = []
    for key, dist, fn, args in _value_cases():
        expected = _expected(oracle, key)
        dtype = args[0].dtype.type if key.startswith("float") else expected.dtype.type
        if fn in ("ppf", "isf") and dist == "norm":
            # jax casts to its default float (float64 under x64); funcarray keeps float32,
            # as jax does with x64 off.
            expected = expected.astype(dtype)
        try:
            _check(getattr(getattr(fstats, dist), fn)(*args), expected, dtype)
        except AssertionError as exc:
            failures.append(f"{key}: {exc}")
    assert not failures, "\n".join(failures)


def test_stored_oracle_is_current_jax(oracle):
    """A sample of the stored values recomputed with the installed jax."""
    sample = {"float32/norm.logpdf"}
    for key, dist, fn, args in _value_cases():
        if key in sample:
            np.testing.assert_array_equal(_jax_value(dist, fn, args), oracle[key])


def test_grad_matches_jax(oracle):
    for dist, fn, args in GRAD_CASES:
        args = _grad_args(args)
        actual = fa.grad(getattr(getattr(fstats, dist), fn), tuple(range(len(args))))(*args)
        np.testing.assert_allclose(np.asarray(actual), _expected(oracle, f"grad/{dist}.{fn}"),
                                   rtol=1e-9, atol=1e-12, err_msg=f"{dist}.{fn}")


def test_names_and_signatures_match_jax():
    public = [n for n in dir(jstats) if not n.startswith("_")]
    assert set(public) <= set(fstats.__all__)
    for name in public:
        jmod, fmod = getattr(jstats, name), getattr(fstats, name)
        if not inspect.ismodule(jmod):
            continue
        functions = [f for f in dir(jmod) if not f.startswith("_") and callable(getattr(jmod, f))
                     and getattr(getattr(jmod, f), "__module__", "").startswith("jax._src.scipy")]
        assert sorted(functions) == sorted(fmod.__all__), name
        for f in functions:
            jparams = inspect.signature(getattr(jmod, f)).parameters.values()
            fparams = inspect.signature(getattr(fmod, f)).parameters.values()
            assert [(p.name, p.default) for p in jparams] == [(p.name, p.default)
                                                              for p in fparams], f"{name}.{f}"


def test_python_scalars_and_integers_promote_like_jax():
    with jax.enable_x64(False):
        expected = jstats.laplace.pdf(np.arange(3, dtype=np.int32), 0, 2)
    actual = fstats.laplace.pdf(np.arange(3, dtype=np.int32), 0, 2)
    assert actual.dtype == expected.dtype == np.float32
    np.testing.assert_allclose(actual, expected, rtol=1e-6)
    assert fstats.norm.logpdf(1.0).dtype == np.float32
    assert fstats.norm.cdf(np.float64(1.0), 0, 2).dtype == np.float64


def test_multivariate_normal_errors():
    with pytest.raises(NotImplementedError, match="allow_singular"):
        fstats.multivariate_normal.logpdf(np.zeros(2), np.zeros(2), np.eye(2),
                                          allow_singular=True)
    with pytest.raises(ValueError, match=r"multivariate_normal.logpdf.*\(\.\.\., 2, 2\)"):
        fstats.multivariate_normal.logpdf(np.zeros(2), np.zeros(2), np.eye(3))


def test_dirichlet_and_multinomial_errors():
    with pytest.raises(ValueError, match="dirichlet.logpdf: alpha must be one-dimensional"):
        fstats.dirichlet.logpdf(np.ones(3) / 3, np.ones((3, 1)))
    with pytest.raises(ValueError, match=r"dirichlet.logpdf: x must have 3 \(or 2\)"):
        fstats.dirichlet.logpdf(np.ones(5) / 5, np.ones(3))
    with pytest.raises(TypeError, match="multinomial.logpmf: x must be an integer array"):
        fstats.multinomial.logpmf(np.asarray([1.0, 2.0]), 3, np.asarray([0.5, 0.5]))


def test_bad_inputs_name_the_function():
    with pytest.raises(TypeError, match="norm.logpdf: complex"):
        fstats.norm.logpdf(np.asarray([1j]))
    with pytest.raises(TypeError, match="gamma.logpdf"):
        fstats.gamma.logpdf("x", 1.0)
    with pytest.raises(ValueError, match="t.logpdf"):
        fstats.t.logpdf(np.zeros(3), np.ones(2))


# (gamma.cdf and truncnorm compile for seconds: their special functions are big programs.)
JIT_SAMPLE = [("norm", "logcdf"), ("t", "logpdf"), ("poisson", "logpmf"), ("uniform", "cdf"),
              ("bernoulli", "cdf"), ("gumbel_r", "logsf")]


def test_jit_matches_eager():
    """A sample of code paths in one compiled program (compiles are the slow part)."""
    cases = JIT_SAMPLE
    arg_lists = [_args(d, f, np.float64) for d, f in cases]
    x, mean, cov = _mvn_cases()[0]
    ranked = np.asarray([[3.0, 1.0, 3.0], [2.0, 2.0, 0.5]])

    def sample(arg_lists, x, mean, cov, ranked):
        outs = [getattr(getattr(fstats, d), f)(*args) for (d, f), args in zip(cases, arg_lists)]
        outs.append(fstats.multivariate_normal.logpdf(x, mean, cov))
        outs.append(fstats.rankdata(ranked, axis=1))
        return outs

    args = (arg_lists, x, mean, cov, ranked)
    for got, want in zip(fa.jit(sample)(*args), sample(*args)):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-10, atol=1e-12,
                                   equal_nan=True)


def _multivariate_grad_cases():
    x, mean, cov = _mvn_cases()[0]
    return [("mvn", "multivariate_normal", (x[0], mean, cov)),
            ("dirichlet", "dirichlet", (np.asarray([0.2, 0.3, 0.5]), _ALPHA))]


def test_grad_of_multivariate_normal_and_dirichlet(oracle):
    for key, dist, args in _multivariate_grad_cases():
        argnums = tuple(range(len(args)))
        actual = fa.grad(getattr(fstats, dist).logpdf, argnums)(*args)
        for i, a in enumerate(actual):
            np.testing.assert_allclose(np.asarray(a), oracle[f"grad/{key}/{i}"], rtol=1e-9,
                                       atol=1e-12)


def test_vmap_matches_loop():
    rng = np.random.default_rng(1)
    xs, locs = rng.normal(size=(4, 3)), rng.normal(size=4)
    for f in (fstats.norm.logpdf, fstats.gamma.logpdf, fstats.cauchy.cdf, fstats.t.logpdf):
        if f is fstats.gamma.logpdf or f is fstats.t.logpdf:
            g = (lambda f: lambda x, loc: f(x, 2.5, loc, 1.5))(f)
        else:
            g = (lambda f: lambda x, loc: f(x, loc, 1.5))(f)
        batched = fa.vmap(g)(xs, locs)
        looped = np.stack([np.asarray(g(x, loc)) for x, loc in zip(xs, locs)])
        np.testing.assert_allclose(np.asarray(batched), looped, rtol=1e-12)
    x, mean, cov = _mvn_cases()[0]
    means = rng.normal(size=(3, 3))
    batched = fa.vmap(fstats.multivariate_normal.logpdf, (None, 0, None))(x, means, cov)
    looped = np.stack([np.asarray(fstats.multivariate_normal.logpdf(x, m, cov))
                       for m in means])
    np.testing.assert_allclose(np.asarray(batched), looped, rtol=1e-12)


if __name__ == "__main__":
    jax.config.update("jax_enable_x64", True)
    import sys

    _write_oracle(update="--update" in sys.argv)


def test_rankdata_mode_sem_match_scipy():
    rng = np.random.default_rng(2)
    a = rng.integers(0, 4, (5, 6)).astype(np.float64)
    with_nan = a.copy()
    with_nan[1, 2] = np.nan
    for method in ("average", "min", "max", "dense", "ordinal"):
        for axis in (None, 1):
            np.testing.assert_array_equal(
                fstats.rankdata(with_nan, method, axis=axis),
                scipy_stats.rankdata(with_nan, method, axis=axis))
    for axis, keepdims in ((None, False), (0, True), (1, False)):
        got = fstats.mode(a, axis, keepdims=keepdims)
        want = scipy_stats.mode(a, axis, keepdims=keepdims)
        np.testing.assert_array_equal(got.mode, want.mode)
        np.testing.assert_array_equal(got.count, want.count)
    assert fstats.mode(np.asarray([np.nan, 1.0, np.nan])).mode.item() != 1.0
    for axis, ddof in ((0, 1), (1, 0), (None, 1)):
        np.testing.assert_allclose(fstats.sem(with_nan, axis, ddof),
                                   scipy_stats.sem(with_nan, axis, ddof), rtol=1e-12)
        np.testing.assert_allclose(fstats.sem(with_nan, axis, ddof, nan_policy="omit"),
                                   scipy_stats.sem(with_nan, axis, ddof, nan_policy="omit"),
                                   rtol=1e-12)
    batched = fa.vmap(fstats.rankdata)(a)
    np.testing.assert_array_equal(batched, np.stack([scipy_stats.rankdata(r) for r in a]))


def test_rankdata_mode_sem_errors():
    with pytest.raises(ValueError, match="rankdata: unknown method 'mean'"):
        fstats.rankdata(np.ones(3), "mean")
    with pytest.raises(NotImplementedError, match="mode: nan_policy='omit'"):
        fstats.mode(np.ones(3), nan_policy="omit")
    with pytest.raises(ValueError, match="rankdata: illegal nan_policy"):
        fstats.rankdata(np.ones(3), nan_policy="skip")
    with pytest.raises(ValueError, match="sem: nan_policy='raise'"):
        fstats.sem(np.ones(3), nan_policy="raise")
    with pytest.raises(ValueError, match="mode"):
        fstats.mode(np.ones((2, 2)), axis=2)


def test_gaussian_kde_matches_jax(oracle):
    import funcarray.random as frandom

    for case in _kde_cases():
        for key, value in _kde_results(fstats, frandom, case).items():
            np.testing.assert_allclose(np.asarray(value), _expected(oracle, key), rtol=1e-10,
                                       atol=1e-13, err_msg=key)


def test_gaussian_kde_transforms_and_errors():
    _, data, _, _, points, _ = _kde_cases()[0]
    kde = fstats.gaussian_kde(data)
    # The estimator is a pytree: it goes through jit, and grad flows into its dataset.
    np.testing.assert_allclose(fa.jit(lambda k, p: k.logpdf(p))(kde, points),
                               kde.logpdf(points), rtol=1e-10)
    grads = fa.grad(lambda k: fnp_sum(k.logpdf(points)))(kde)
    assert grads.dataset.shape == data.shape
    step = 1e-6
    leaves, _ = kde.tree_flatten()
    shifted = np.asarray(kde.dataset).copy()
    shifted[0, 0] += step           # only the dataset leaf moves (not the covariance)
    moved = fstats.gaussian_kde.tree_unflatten(None, (leaves[0], shifted, *leaves[2:]))
    numeric = (np.sum(moved.logpdf(points)) - np.sum(kde.logpdf(points))) / step
    np.testing.assert_allclose(grads.dataset[0, 0], numeric, rtol=1e-4)
    batched = fa.vmap(kde.evaluate, in_axes=1)(points[:, :, None])
    np.testing.assert_allclose(np.asarray(batched)[:, 0], kde.evaluate(points), rtol=1e-12)
    with pytest.raises(ValueError, match="evaluate: points have dimension 3"):
        kde.evaluate(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="gaussian_kde: weights must be one-dimensional"):
        fstats.gaussian_kde(data, weights=np.ones(3))
    with pytest.raises(ValueError, match="gaussian_kde: bw_method must be"):
        fstats.gaussian_kde(data, bw_method="wide")
    with pytest.raises(ValueError, match="more than one element"):
        fstats.gaussian_kde(np.ones(1))
    with pytest.raises(ValueError, match="integrate_box_1d: only one-dimensional"):
        kde.integrate_box_1d(0.0, 1.0)
    with pytest.raises(NotImplementedError, match="integrate_box_1d"):
        kde.integrate_box(np.zeros(2), np.ones(2))
    with pytest.raises(AttributeError, match="immutable"):
        kde.neff = 3.0


def fnp_sum(x):
    return x.sum()


# --- weak types of the discrete distributions ------------------------------------------------

_K_INT = np.arange(4, dtype=np.int32)
_DISCRETE = [  # (distribution, function, parameters)
    ("betabinom", "logpmf", (4, 2.0, 3.0)), ("betabinom", "pmf", (np.array([4, 5, 6, 7]), 2, 3)),
    ("binom", "logpmf", (4, 0.3)), ("geom", "logpmf", (0.3,)), ("geom", "pmf", (0.3,)),
    ("nbinom", "logpmf", (3, 0.3)), ("poisson", "pmf", (2.5,)), ("poisson", "cdf", (2.5,)),
    ("bernoulli", "logpmf", (0.3,)), ("bernoulli", "cdf", (0.3,)), ("bernoulli", "ppf", (0.3,)),
]


@pytest.mark.parametrize("dist,fn,params", _DISCRETE, ids=[f"{d}.{f}" for d, f, _ in _DISCRETE])
def test_discrete_distributions_weak_type_as_jax(dist, fn, params):
    ours, theirs = getattr(getattr(fstats, dist), fn), getattr(getattr(jstats, dist), fn)
    for k in (2, _K_INT, _K_INT.astype(np.float32)):
        if fn == "ppf" and not isinstance(k, int):
            k = k.astype(np.float32) / 4
        # (the oracle's types by tracing alone: jax's eager special functions compile slowly)
        want = jax.eval_shape(lambda k: theirs(k, *params), k).weak_type
        assert ours(k, *params).weak_type == want, (k, want)
    k = _K_INT if fn != "ppf" else _K_INT.astype(np.float32) / 4
    want = jax.eval_shape(lambda k: theirs(k, *params), k).weak_type
    assert fa.jit(lambda k: ours(k, *params))(k).weak_type == want
