"""funcarray.random against jax.random (the oracle): keys, bits, samplers, transforms."""

from __future__ import annotations

import time

import jax
import jax.numpy as jnp
import jax.random as jr
import numpy as np
import pytest
from helpers import compiled

import funcarray as fa
import funcarray.numpy as fnp
import funcarray.random as fr

SEEDS = [0, 1, 42, 2**31 + 7]


def _bits(x):
    """``x`` as a NumPy array; typed keys (funcarray's or jax's) as their raw data."""
    if isinstance(x, jax.Array) and jnp.issubdtype(x.dtype, jax.dtypes.prng_key):
        return np.asarray(jr.key_data(x))
    if fnp.issubdtype(getattr(x, "dtype", None), fa.dtypes.prng_key):
        return np.asarray(fr.key_data(x))
    return np.asarray(x)


def _same(actual, expected, *, values_only=False):
    """Bit-for-bit equality (dtype too unless ``values_only``); keys compare by their data."""
    a, e = _bits(actual), _bits(expected)
    assert a.shape == e.shape, (a.shape, e.shape)
    if not values_only:
        assert a.dtype == e.dtype, (a.dtype, e.dtype)
    np.testing.assert_array_equal(a, e.astype(a.dtype) if values_only else e)


def _close(actual, expected, rtol=2e-6, atol=1e-6):
    a, e = np.asarray(actual), np.asarray(expected)
    assert a.shape == e.shape and a.dtype == e.dtype, (a.dtype, a.shape, e.dtype, e.shape)
    np.testing.assert_allclose(a.astype(np.float64), e.astype(np.float64), rtol=rtol, atol=atol)


# --------------------------------------------------------------------------------------------
# Keys
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 42, -1, 2**31, 2**32 + 5, -(2**40), 2**63 - 1,
                                  np.int32(-1), np.int8(-3), np.uint32(2**32 - 1),
                                  np.int64(-7), np.uint64(2**64 - 1)])
def test_key_matches_jax(seed):
    # A Python int seed is JAX's default mode (32-bit: the seed modulo 2**32), as a researcher
    # porting jax code gets it; int64 arrays exist only with x64 in JAX, which conftest enables.
    with jax.enable_x64(type(seed) is not int):
        want = jr.key_data(jr.key(seed))
        want_legacy = jr.PRNGKey(seed)
    _same(fr.key(seed), want)
    _same(fr.PRNGKey(seed), want_legacy)
    _same(fr.key_data(fr.key(seed)), want)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("num", [2, 3, (2, 3), (), (0,)])
def test_split_matches_jax(seed, num):
    _same(fr.split(fr.key(seed), num), jr.split(jr.PRNGKey(seed), num))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("data", [0, 1, 12345, 2**32 - 1, np.uint32(9), np.int64(5), np.int32(-2)])
def test_fold_in_matches_jax(seed, data):
    _same(fr.fold_in(fr.key(seed), data), jr.fold_in(jr.PRNGKey(seed), data))


def test_threefry_known_answer():
    # Random123's known-answer vector for threefry2x32_20 with zero key and counter.
    y1, y2 = fr.threefry2x32(*(fnp.zeros((), fnp.uint32),) * 4)
    assert (int(y1), int(y2)) == (0x6B200159, 0x99BA4EFE)


def test_key_errors():
    with pytest.raises(TypeError, match="scalar seed"):
        fr.key(fnp.arange(3))
    with pytest.raises(TypeError, match="integer"):
        fr.key(1.5)
    with pytest.raises(TypeError, match="bool"):
        fr.key(True)
    with pytest.raises(ValueError, match="64 bits"):
        fr.key(2**64)
    with pytest.raises(TypeError, match="uint32 array of shape"):
        fr.uniform(fnp.zeros(2, fnp.int32))
    with pytest.raises(TypeError, match="uint32 array of shape"):
        fr.normal(fnp.zeros(3, fnp.uint32))
    with pytest.raises(ValueError, match="vmap"):
        fr.normal(fr.split(fr.key(0), 3))
    with pytest.raises(TypeError, match="scalar"):
        fr.fold_in(fr.key(0), fnp.arange(2))
    with pytest.raises(ValueError, match="uint32"):
        fr.fold_in(fr.key(0), -1)
    with pytest.raises(TypeError, match="expected a key"):
        fr.split("key")


# --------------------------------------------------------------------------------------------
# Bit-exact samplers
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", ["uint8", "uint16", "uint32", "uint64"])
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 5)])
def test_bits_match_jax(seed, dtype, shape):
    _same(fr.bits(fr.key(seed), shape, dtype), jr.bits(jr.PRNGKey(seed), shape, dtype))


def test_bits_default_dtype_is_uint32():
    with jax.enable_x64(False):
        want = jr.bits(jr.PRNGKey(3), (4,))
    _same(fr.bits(fr.key(3), (4,)), want)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("bounds", [(0.0, 1.0), (-2.3, 3.7), (5.0, 5.0)])
def test_uniform_matches_jax(seed, dtype, bounds):
    got = fr.uniform(fr.key(seed), (1000,), dtype, *bounds)
    _same(got, jr.uniform(jr.PRNGKey(seed), (1000,), dtype, *bounds))


def test_uniform_array_bounds_and_default_dtype():
    lo = np.array([-1.0, 0.0, 2.0], np.float32)
    hi = np.array([[1.0], [4.0]], np.float32)
    with jax.enable_x64(False):
        want = jr.uniform(jr.PRNGKey(5), (2, 3), minval=lo, maxval=hi)
    _same(fr.uniform(fr.key(5), (2, 3), minval=lo, maxval=hi), want)


@pytest.mark.parametrize("seed", SEEDS[2:])
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "int32", "uint32",
                                   "int64", "uint64"])
@pytest.mark.parametrize("bounds", [(0, 10), (-3, 256), (9, 2)])
def test_randint_matches_jax(seed, dtype, bounds):
    got = fr.randint(fr.key(seed), (200,), *bounds, dtype=dtype)
    _same(got, jr.randint(jr.PRNGKey(seed), (200,), *bounds, dtype=dtype))


def test_randint_full_ranges_and_array_bounds():
    k, jk = fr.key(11), jr.PRNGKey(11)
    _same(fr.randint(k, (100,), -2**31, 2**31 - 1),
          jr.randint(jk, (100,), -2**31, 2**31 - 1, dtype="int32"))
    _same(fr.randint(k, (100,), 0, 256, dtype="uint8"), jr.randint(jk, (100,), 0, 256, "uint8"))
    lo, hi = np.array([0, -5, 10], np.int32), np.array([[3], [100]], np.int32)
    _same(fr.randint(k, (2, 3), lo, hi), jr.randint(jk, (2, 3), lo, hi, dtype="int32"))


# --------------------------------------------------------------------------------------------
# Samplers built on the bits: equal to JAX within float rounding (exact for discrete ones)
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS[:3])
@pytest.mark.parametrize("dtype,rtol", [("float16", 2e-3), ("bfloat16", 1.6e-2),
                                        ("float32", 1e-6), ("float64", 1e-14)])
def test_normal_close_to_jax(seed, dtype, rtol):
    _close(fr.normal(fr.key(seed), (2000,), dtype),
           jr.normal(jr.PRNGKey(seed), (2000,), dtype), rtol=rtol, atol=rtol)


def test_complex_normal_close_to_jax():
    _close(fr.normal(fr.key(2), (50,), "complex64").real,
           jr.normal(jr.PRNGKey(2), (50,), "complex64").real)
    _close(fr.normal(fr.key(2), (50,), "complex64").imag,
           jr.normal(jr.PRNGKey(2), (50,), "complex64").imag)


@pytest.mark.parametrize("seed", SEEDS[:3])
@pytest.mark.parametrize("name,kwargs", [
    ("exponential", {}), ("laplace", {}), ("logistic", {}), ("gumbel", {}),
    ("gumbel", {"mode": "high"})])
def test_simple_continuous_close_to_jax(seed, name, kwargs):
    for dtype in ("float32", "float64"):
        got = getattr(fr, name)(fr.key(seed), (500,), dtype, **kwargs)
        want = getattr(jr, name)(jr.PRNGKey(seed), (500,), dtype, **kwargs)
        _close(got, want, rtol=2e-6 if dtype == "float32" else 1e-14)


def test_truncated_normal_close_to_jax():
    for lower, upper in [(-1.0, 2.5), (0.5, 0.7), (-3.0, -2.0)]:
        got = fr.truncated_normal(fr.key(4), lower, upper, (500,))
        want = jr.truncated_normal(jr.PRNGKey(4), lower, upper, (500,), "float32")
        _close(got, want, rtol=2e-5, atol=2e-5)
        assert float(got.min()) > lower and float(got.max()) < upper


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_bernoulli_matches_jax(seed):
    p = np.array([0.1, 0.5, 0.9], np.float32)
    _same(fr.bernoulli(fr.key(seed), p, (100, 3)), jr.bernoulli(jr.PRNGKey(seed), p, (100, 3)))
    _same(fr.bernoulli(fr.key(seed), np.float32(0.3), (50,), mode="high"),
          jr.bernoulli(jr.PRNGKey(seed), np.float32(0.3), (50,), mode="high"))


@pytest.mark.parametrize("seed", SEEDS[2:3])
def test_categorical_matches_jax(seed):
    logits = np.random.RandomState(seed).randn(4, 6).astype(np.float32)
    k, jk = fr.key(seed), jr.PRNGKey(seed)
    _same(fr.categorical(k, logits), jr.categorical(jk, logits), values_only=True)
    _same(fr.categorical(k, logits, axis=0, shape=(5, 6)),
          jr.categorical(jk, logits, axis=0, shape=(5, 6)), values_only=True)
    _same(fr.categorical(k, logits, shape=(3, 4), replace=False),
          jr.categorical(jk, logits, shape=(3, 4), replace=False), values_only=True)


@pytest.mark.parametrize("seed", SEEDS[2:3])
def test_permutation_and_choice_match_jax(seed):
    with jax.enable_x64(False):  # jax draws choice's indices with its default int dtype
        _check_permutation_and_choice(fr.key(seed), jr.PRNGKey(seed))


def _check_permutation_and_choice(k, jk):
    x = np.arange(24, dtype=np.int32).reshape(4, 6)
    _same(fr.permutation(k, 20), jr.permutation(jk, 20), values_only=True)
    _same(fr.permutation(k, 3000), jr.permutation(jk, 3000), values_only=True)  # two rounds
    _same(fr.permutation(k, x, axis=1), jr.permutation(jk, x, axis=1))
    _same(fr.permutation(k, x, 1, independent=True), jr.permutation(jk, x, 1, True))
    _same(fr.choice(k, 10, (4,)), jr.choice(jk, 10, (4,)), values_only=True)
    _same(fr.choice(k, x, (3,), replace=False, axis=1), jr.choice(jk, x, (3,), False, axis=1))
    p = np.array([0.1, 0.2, 0.3, 0.4], np.float32)
    _same(fr.choice(k, 4, (20,), p=p), jr.choice(jk, 4, (20,), p=p), values_only=True)
    _same(fr.choice(k, 4, (3,), replace=False, p=p), jr.choice(jk, 4, (3,), False, p=p),
          values_only=True)


def test_gamma_family_close_to_jax():
    # One jax call: compiling jax's gamma takes ~10 s, the largest oracle cost here.
    a = np.array([0.1, 0.5, 1.0, 3.0, 50.0], np.float32)
    _close(fr.gamma(fr.key(1), a, (40, 5)), jr.gamma(jr.PRNGKey(1), a, (40, 5), "float32"),
           rtol=1e-5)
    # JAX's promise for loggamma: exp(loggamma) == gamma for the same arguments.
    k = fr.key(2)
    _close(fnp.exp(fr.loggamma(k, a, (8, 5))), fr.gamma(k, a, (8, 5)), rtol=1e-5)
    # beta and dirichlet normalise log-gamma samples drawn from split keys.
    ka, kb = fr.split(k)
    la, lb = fr.loggamma(ka, 2.0, (6,)), fr.loggamma(kb, 0.5, (6,))
    _close(fr.beta(k, 2.0, 0.5, (6,)), fnp.exp(la) / (fnp.exp(la) + fnp.exp(lb)), rtol=1e-5)
    d = fr.dirichlet(k, [1.0, 2.0, 0.3], (4,))
    logs = fr.loggamma(k, fnp.asarray([1.0, 2.0, 0.3]), (4, 3))
    _close(d, fnp.exp(logs) / fnp.sum(fnp.exp(logs), axis=-1, keepdims=True), rtol=1e-5)


def test_poisson_matches_jax():
    lam = np.array([0.0, 1.0, 5.0, 9.9, 10.0, 50.0, 1000.0], np.float32)
    for seed in SEEDS[:2]:
        _same(fr.poisson(fr.key(seed), lam, (60, 7)),
              jr.poisson(jr.PRNGKey(seed), lam, (60, 7), "int32"))


def test_multivariate_normal_close_to_jax():
    cov = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.2], [0.0, 0.2, 3.0]], np.float32)
    mean = np.array([1.0, 2.0, 3.0], np.float32)
    _close(fr.multivariate_normal(fr.key(1), mean, cov, (10,)),
           jr.multivariate_normal(jr.PRNGKey(1), mean, cov, (10,)), rtol=1e-5, atol=1e-5)


# --------------------------------------------------------------------------------------------
# Statistics, determinism, independence
# --------------------------------------------------------------------------------------------

def _ks_pvalue(samples, cdf):
    from scipy import stats
    return stats.kstest(np.asarray(samples, np.float64), cdf).pvalue


def test_distributions_pass_ks_tests():
    from scipy import stats
    k = fr.key(2024)
    cases = [
        (fr.uniform(k, (4000,)), stats.uniform.cdf),
        (fr.normal(k, (4000,)), stats.norm.cdf),
        (fr.exponential(k, (4000,)), stats.expon.cdf),
        (fr.laplace(k, (4000,)), stats.laplace.cdf),
        (fr.logistic(k, (4000,)), stats.logistic.cdf),
        (fr.gumbel(k, (4000,)), stats.gumbel_r.cdf),
        (fr.truncated_normal(k, -1.0, 2.0, (4000,)), stats.truncnorm(-1.0, 2.0).cdf),
        (fr.gamma(k, 0.7, (2000,)), stats.gamma(0.7).cdf),
        (fr.gamma(k, 4.0, (2000,)), stats.gamma(4.0).cdf),
        (fr.beta(k, 2.0, 5.0, (2000,)), stats.beta(2.0, 5.0).cdf),
    ]
    for samples, cdf in cases:
        assert _ks_pvalue(samples, cdf) > 1e-3


def test_discrete_moments():
    k = fr.key(7)
    r = np.asarray(fr.randint(k, (20000,), 0, 10))
    assert abs(r.mean() - 4.5) < 0.06 and abs(r.var() - 8.25) < 0.2
    b = np.asarray(fr.bernoulli(k, 0.3, (20000,)))
    assert abs(b.mean() - 0.3) < 0.015
    for lam in (3.0, 30.0):
        x = np.asarray(fr.poisson(k, lam, (5000,)))
        assert abs(x.mean() - lam) < 4 * np.sqrt(lam / 5000) + 1e-9
        assert abs(x.var() / lam - 1) < 0.1
    c = np.asarray(fr.categorical(k, np.log(np.array([0.2, 0.3, 0.5], np.float32)), shape=(20000,)))
    np.testing.assert_allclose(np.bincount(c, minlength=3) / 20000, [0.2, 0.3, 0.5], atol=0.015)
    m = np.asarray(fr.multivariate_normal(k, [0.0, 0.0], [[1.0, 0.8], [0.8, 2.0]], (20000,)))
    np.testing.assert_allclose(np.cov(m.T), [[1.0, 0.8], [0.8, 2.0]], atol=0.06)


def test_determinism_and_independence():
    k = fr.key(3)
    _same(fr.normal(k, (100,)), fr.normal(k, (100,)))
    k1, k2 = fr.split(k)
    a, b = np.asarray(fr.normal(k1, (5000,))), np.asarray(fr.normal(k2, (5000,)))
    assert not np.array_equal(a, b)
    assert abs(np.corrcoef(a, b)[0, 1]) < 0.05
    c = np.asarray(fr.normal(fr.fold_in(k, 1), (5000,)))
    assert abs(np.corrcoef(a, c)[0, 1]) < 0.05
    assert len({tuple(x) for x in _bits(fr.split(k, 1000)).tolist()}) == 1000


# --------------------------------------------------------------------------------------------
# Transforms
# --------------------------------------------------------------------------------------------

def test_vmap_over_keys_equals_loop():
    keys = fr.split(fr.key(0), 4)
    for f in (lambda k: fr.normal(k, (3,)), lambda k: fr.randint(k, (5,), 0, 9),
              lambda k: fr.uniform(k, (2, 2), minval=-1.0), lambda k: fr.split(k, 3),
              lambda k: fr.permutation(k, 6), lambda k: fr.gamma(k, 2.0, (2,))):
        got = fa.vmap(f)(keys)
        want = np.stack([_bits(f(k)) for k in keys])
        np.testing.assert_allclose(_bits(got), want, rtol=1e-6)
    seeds = fnp.arange(3)
    _same(fa.vmap(fr.key)(seeds), np.stack([_bits(fr.key(i)) for i in range(3)]))
    _same(fa.vmap(lambda k: fr.fold_in(k, 5))(keys),
          np.stack([_bits(fr.fold_in(k, 5)) for k in keys]))


def test_compiled_matches_eager_and_jax():
    k = fr.key(9)
    for f, want in [
        (lambda k: fr.bits(k, (4,)), jr.bits(jr.PRNGKey(9), (4,), "uint32")),
        (lambda k: fr.uniform(k, (4,), minval=-2.0, maxval=3.0),
         jr.uniform(jr.PRNGKey(9), (4,), "float32", -2.0, 3.0)),
        (lambda k: fr.randint(k, (6,), 0, 10), jr.randint(jr.PRNGKey(9), (6,), 0, 10, "int32")),
        (lambda k: fr.split(k, 3), jr.split(jr.PRNGKey(9), 3)),
        (lambda k: fr.fold_in(k, 7), jr.fold_in(jr.PRNGKey(9), 7)),
    ]:
        _same(compiled(f)(k), want)
    got = compiled(lambda k: fr.normal(k, (5,)))(k)
    _close(got, fr.normal(k, (5,)))


def test_rejection_loops_are_while_loops_under_jit():
    """gamma and poisson stage one loop body each (not an unrolled copy per round)."""
    from funcarray.lowering.stablehlo import lower_ir

    for f in (lambda k: fr.gamma(k, 2.0, (100,)), lambda k: fr.poisson(k, 3.0, (4,))):
        text = lower_ir(fa.make_ir(f)(fr.key(0)).closed)
        assert "stablehlo.while" in text
        assert len(text) < 400_000


def test_jit_gamma_and_vmap_over_keys_match_eager():
    """Under jit the rejection loop is a while loop: the same samples as eager (which match
    jax, see above), compiled in seconds."""
    start = time.perf_counter()
    got = fa.jit(lambda k: fr.gamma(k, 2.0, (100,)))(fr.key(0))
    assert time.perf_counter() - start < 60  # was minutes with the unrolled loop
    _close(got, fr.gamma(fr.key(0), 2.0, (100,)), rtol=1e-5)
    keys = fr.split(fr.key(3), 3)
    for f in (lambda k: fr.gamma(k, 0.3, (4,)), lambda k: fr.beta(k, 2.0, 0.5, (2,))):
        want = np.stack([np.asarray(f(k)) for k in keys])
        np.testing.assert_allclose(np.asarray(fa.vmap(f)(keys)), want, rtol=1e-5)
    # Compiled, the batched predicate runs the loop until every key's sample is accepted.
    f = lambda k: fr.gamma(k, 0.3, (4,))  # noqa: E731
    want = np.stack([np.asarray(f(k)) for k in keys])
    np.testing.assert_allclose(np.asarray(fa.jit(fa.vmap(f))(keys)), want, rtol=1e-5)


def test_jit_poisson_matches_eager():
    lam = fnp.asarray([0.0, 0.5, 3.0, 9.9, 10.0, 40.0, 1000.0])
    f = fa.jit(lambda k, lam: fr.poisson(k, lam, (30, 7)))
    for seed in (0, 5):
        _same(f(fr.key(seed), lam), fr.poisson(fr.key(seed), lam, (30, 7)))


def _implicit_gamma_grad(a, x, h=1e-6):
    """JAX's gamma derivative (``lax.random_gamma_grad``), from scipy: the implicit
    reparameterisation gradient ``dx/da = -(dP(a, x)/da) / pdf(x; a)``."""
    from scipy import special, stats

    a, x = np.float64(a), np.asarray(x, np.float64)
    return -(special.gammainc(a + h, x) - special.gammainc(a - h, x)) / (2 * h) / (
        stats.gamma.pdf(x, a))


def test_gamma_family_gradients_are_jax_implicit_gradients():
    """gamma, loggamma and beta differentiate their draws as jax.grad does (the implicit
    gradient, not the derivative of the accepted draw's arithmetic, which ignores how the
    acceptance region moves with a)."""
    k = fr.key(0)
    x = np.asarray(fr.gamma(k, 2.0, (5,)), np.float64)
    want = _implicit_gamma_grad(2.0, x)
    np.testing.assert_allclose(float(fa.grad(lambda a: fnp.sum(fr.gamma(k, a, (5,))))(2.0)),
                               want.sum(), rtol=1e-4)
    np.testing.assert_allclose(
        float(fa.jit(fa.grad(lambda a: fnp.sum(fr.loggamma(k, a, (5,)))))(2.0)),
        (want / x).sum(), rtol=1e-4)
    # beta = ga / (ga + gb) from two log-space gamma draws (keys as beta splits them)
    key_a, key_b = fr.split(k)
    ga = np.asarray(fr.gamma(key_a, 2.0, (4,)), np.float64)
    gb = np.asarray(fr.gamma(key_b, 3.0, (4,)), np.float64)
    want_beta = (_implicit_gamma_grad(2.0, ga) * gb / (ga + gb) ** 2).sum()
    got_beta = fa.grad(lambda a: fnp.sum(fr.beta(k, a, 3.0, (4,))))(2.0)
    np.testing.assert_allclose(float(got_beta), want_beta, rtol=1e-3)


def test_grad_through_reparameterised_sample():
    k = fr.key(0)
    g = fa.grad(lambda s: fnp.sum(s * fr.normal(k, (4,))))(2.0)
    np.testing.assert_allclose(float(g), float(fnp.sum(fr.normal(k, (4,)))), rtol=1e-6)


# --------------------------------------------------------------------------------------------
# Argument errors
# --------------------------------------------------------------------------------------------

def test_sampler_argument_errors():
    k = fr.key(0)
    with pytest.raises(ValueError, match="negative"):
        fr.uniform(k, (-1,))
    with pytest.raises(ValueError, match="floating"):
        fr.uniform(k, (2,), fnp.int32)
    with pytest.raises(ValueError, match="integer dtype"):
        fr.randint(k, (2,), 0, 3, dtype=fnp.float32)
    with pytest.raises(ValueError, match="unsigned"):
        fr.bits(k, (2,), fnp.int32)
    with pytest.raises(ValueError, match="broadcast"):
        fr.uniform(k, (3,), minval=np.zeros(4, np.float32))
    with pytest.raises(ValueError, match="larger sample"):
        fr.choice(k, 3, (5,), replace=False)
    with pytest.raises(ValueError, match="p must be"):
        fr.choice(k, 3, (2,), p=[0.5, 0.5])
    with pytest.raises(TypeError, match="floating"):
        fr.bernoulli(k, 1, (2,))
    with pytest.raises(ValueError, match="mode"):
        fr.gumbel(k, (2,), mode="highest")
    with pytest.raises(ValueError, match="cov must have shape"):
        fr.multivariate_normal(k, [0.0, 0.0], np.eye(3, dtype=np.float32))
    with pytest.raises(ValueError, match="categories"):
        fr.categorical(k, np.zeros(3, np.float32), shape=(4,), replace=False)
