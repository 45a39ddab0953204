"""The rest of jax.random's samplers (continuous, gamma-based, multivariate, discrete) against
jax.random (the oracle): same key, same samples; jit, vmap and grad; shapes; errors.

jax's samplers compile on first use (its gamma-based ones ~10 s each, binomial ~2 s), so the
jax oracles run batched in one ``jax.jit`` per dtype, and the gamma-based samplers are checked
against their construction from funcarray's ``gamma``/``loggamma`` (themselves checked against
jax in test_random.py) as well as directly against jax, in a few tests that compile once each.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import jax.random as jr
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import funcarray as fa
import funcarray.numpy as fnp
import funcarray.random as fr

# XLA's CPU compiler at optimisation level 0 builds jax's oracle programs ~3x faster; the
# samples are the same to float rounding (only FMA contraction and fusion differ).
_QUICK_COMPILE = {"xla_backend_optimization_level": 0, "xla_llvm_disable_expensive_passes": True}


def _jax_oracle(fn, *example_args):
    """``jax.jit(fn)`` compiled once for the types of ``example_args``, quickly."""
    return jax.jit(fn).lower(*example_args).compile(compiler_options=_QUICK_COMPILE)


def _close(actual, expected, rtol, atol=0.0):
    a, e = np.asarray(actual), np.asarray(expected)
    assert a.shape == e.shape and a.dtype == e.dtype, (a.dtype, a.shape, e.dtype, e.shape)
    wide = np.complex128 if e.dtype.kind == "c" else np.float64
    np.testing.assert_allclose(a.astype(wide), e.astype(wide), rtol=rtol, atol=atol,
                               equal_nan=True)


def _transformed(mod, dt):
    """Samplers built from one uniform/normal/exponential draw, written once for both
    libraries (``mod`` is jax.random or funcarray.random): name -> function of the key.

    Each sampler is compared in one of the two dtypes (jax compiles every sampler it runs,
    ~0.3 s each), both dtypes are covered. JAX draws ``rademacher``'s coin (and so
    ``double_sided_maxwell``'s sign) as a uniform of the default float dtype, float64 under
    x64; funcarray's default is float32, so those two are compared with jax's x64 off.
    """
    def p(*v):
        return np.array(v, dt)

    if dt == "float64":
        return {
            "lognormal": lambda k: mod.lognormal(k, p(0.5, 1.5), (20, 2), dt),
            "pareto": lambda k: mod.pareto(k, p(2.0, 3.0), (20, 2), dt),
            "rayleigh": lambda k: mod.rayleigh(k, p(2.0), (30,), dt),
            "maxwell": lambda k: mod.maxwell(k, (5, 4), dt),
            "weibull_min": lambda k: mod.weibull_min(k, p(2.0), p(0.7, 3.0), (20, 2), dt),
            "triangular": lambda k: mod.triangular(k, p(0.0), p(1.0, 2.0), p(3.0), (20, 2), dt),
            "orthogonal": lambda k: mod.orthogonal(k, 4, (3,), dt),
        }
    return {
        "lognormal_complex": lambda k: mod.lognormal(k, np.float32(0.5), (6,), "complex64"),
        "cauchy": lambda k: mod.cauchy(k, (7, 3), dt),
        "wald": lambda k: mod.wald(k, p(2.0, 0.3), (20, 2), dt),
        "orthogonal_wide": lambda k: mod.orthogonal(k, 2, (), dt, m=5),
        "geometric": lambda k: mod.geometric(k, p(0.3, 0.01), (20, 2), "int32"),
        "rademacher": lambda k: mod.rademacher(k, (40,), "int32"),
        "double_sided_maxwell": lambda k: mod.double_sided_maxwell(k, p(1.0), p(2.0, 3.0),
                                                                   (10,), dt),
    }


def _run_all(samplers, key):
    return {name: fn(key) for name, fn in samplers.items()}


@pytest.mark.parametrize("dt,rtol", [("float32", 2e-5), ("float64", 1e-12)])
def test_transformed_samplers_match_jax(dt, rtol):
    x64 = dt == "float64"
    with jax.enable_x64(x64):
        oracle = _jax_oracle(lambda k: _run_all(_transformed(jr, dt), k), jr.PRNGKey(0))
        for seed in (0, 42):
            want = oracle(jr.PRNGKey(seed))
            got = _run_all(_transformed(fr, dt), fr.key(seed))
            for name in want:
                # orthogonal's QR differs by rounding between LAPACK and funcarray's kernel.
                tol = rtol * (5 if name.startswith("orthogonal") else 1)
                _close(got[name], want[name], tol, atol=tol)


def test_multinomial_and_binomial_match_jax_exactly():
    # jax's multinomial draws one binomial per category (a scan: one compile of its binomial),
    # so this one oracle covers both: inversion (n p <= 10), BTRS (n = 300), a zero
    # probability, the last category's ratio of 1 (p >= 1/2 counts failures), n = 0, a float
    # n (floored), and the NaN/inf results of a negative, NaN or infinite n.
    n = np.array([10.0, 300.0, 0.0, 7.9, np.inf, -1.0, np.nan], np.float32)
    p = np.array([0.2, 0.0, 0.3, 0.5], np.float32)
    with jax.enable_x64(False):
        oracle = _jax_oracle(lambda k: jr.multinomial(k, n, p, shape=(7, 4)),
                             jr.PRNGKey(0))
        for seed in (3, 4):
            got = fr.multinomial(fr.key(seed), n, p, shape=(7, 4))
            want = oracle(jr.PRNGKey(seed))
            assert got.dtype == np.float32
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    np.testing.assert_array_equal(np.asarray(got)[:4].sum(-1), [10.0, 300.0, 0.0, 7.0])


def test_binomial_special_values():
    # What jax.random.binomial gives (checked against it when this was written; its compile
    # is too slow to repeat here): p in {0, 1} is exact, NaN for a negative or NaN n and for
    # p outside [0, 1], inf for an infinite n, a float n floored.
    n = np.array([10.0, 10.0, 0.0, -1.0, np.nan, np.inf, 10.0, 10.0, 10.0, 7.9], np.float32)
    p = np.array([0.0, 1.0, 0.3, 0.3, 0.3, 0.3, np.nan, 1.5, -0.1, 1.0], np.float32)
    got = np.asarray(fr.binomial(fr.key(3), n, p))
    np.testing.assert_array_equal(got, [0, 10, 0, np.nan, np.nan, np.inf, np.nan, np.nan,
                                        np.nan, 7])
    x = np.asarray(fr.binomial(fr.key(1), 40.0, np.float32(0.75), (50,)))
    assert x.min() >= 0 and x.max() <= 40 and np.all(x == np.floor(x))


def test_binomial_and_multinomial_moments_float64():
    k = fr.key(11)
    for n, p in [(20.0, 0.3), (500.0, 0.6)]:
        x = np.asarray(fr.binomial(k, n, np.float64(p), (3000,), "float64"))
        assert x.dtype == np.float64 and np.all(x == np.floor(x))
        mean, var = n * p, n * p * (1 - p)
        # 5 standard errors of the mean.
        assert abs(x.mean() - mean) < 5 * np.sqrt(var / 3000)
        assert abs(x.var() / var - 1) < 0.12  # 5 standard errors of a variance from 3000
    probs = np.array([0.1, 0.2, 0.7])
    counts = np.asarray(fr.multinomial(k, 50.0, probs, shape=(2000, 3), dtype="float64"))
    np.testing.assert_array_equal(counts.sum(-1), 50.0)
    np.testing.assert_allclose(counts.mean(0), 50 * probs, atol=5 * np.sqrt(50 * 0.25 / 2000))
    np.testing.assert_allclose(np.cov(counts.T), 50 * (np.diag(probs) - np.outer(probs, probs)),
                               atol=1.0)


# --------------------------------------------------------------------------------------------
# Gamma-based samplers: JAX's construction from gamma/loggamma (cheap), jax itself (slow)
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt,rtol", [("float32", 1e-5), ("float64", 1e-12)])
def test_gamma_based_follow_jax_construction(dt, rtol):
    k = fr.key(4)
    df = np.array([0.5, 3.0], dt)
    shape = (6, 2)
    _close(fr.chisquare(k, df, shape, dt),
           2 * fnp.exp(fr.loggamma(k, df / 2, shape, dt)), rtol)
    key_den, key_num = fr.split(k)
    dfden = np.array([4.0, 9.0], dt)
    _close(fr.f(k, df, dfden, shape, dt),
           (fr.chisquare(key_num, df, shape, dt) / df)
           / (fr.chisquare(key_den, dfden, shape, dt) / dfden), rtol)
    key_n, key_g = fr.split(k)
    _close(fr.t(k, df, shape, dt),
           fr.normal(key_n, shape, dt) * fnp.sqrt((df / 2) / fr.gamma(key_g, df / 2, shape, dt)),
           rtol)
    p = 1.5
    key_g, key_s = fr.split(k)
    gen = fr.generalized_normal(k, p, shape, dt)
    _close(gen, fr.rademacher(key_s, shape, dt) * fr.gamma(key_g, 1 / p, shape, dt) ** (1 / p),
           rtol)
    key_g, key_e = fr.split(k)
    g = fr.generalized_normal(key_g, p, (5, 3), dt)
    radius = (fnp.sum(fnp.abs(g) ** p, axis=-1) + fr.exponential(key_e, (5,), dt)) ** (1 / p)
    ball = fr.ball(k, 3, p, (5,), dt)
    _close(ball, g / radius[:, None], rtol)
    assert float(fnp.max(fnp.sum(fnp.abs(ball) ** p, axis=-1))) <= 1.0


def test_gamma_based_match_jax():
    df = np.array([0.5, 3.0], np.float32)
    full = np.broadcast_to(np.array([4.0, 9.0], np.float32), (6, 2))  # jax's f needs it
    with jax.enable_x64(False):
        k, jk = fr.key(4), jr.PRNGKey(4)
        pairs = [
            (fr.chisquare(k, df, (6, 2)), jr.chisquare(jk, df, (6, 2))),
            (fr.f(k, full, full, (6, 2)), jr.f(jk, full, full, (6, 2))),
            (fr.t(k, df, (6, 2)), jr.t(jk, df, (6, 2))),
            (fr.generalized_normal(k, 1.5, (8,)), jr.generalized_normal(jk, 1.5, (8,))),
            (fr.ball(k, 3, 1.5, (4,)), jr.ball(jk, 3, 1.5, (4,))),
        ]
    for got, want in pairs:
        _close(got, want, 2e-5, 1e-6)


# --------------------------------------------------------------------------------------------
# Distributions
# --------------------------------------------------------------------------------------------

def test_distributions_pass_ks_tests():
    from scipy import stats

    k = fr.key(2025)
    n = (1000,)
    # The samplers compared with jax above inherit its correctness; these are the ones whose
    # jax comparison is slow (gamma-based) or whose shape rule is unusual.
    cases = [
        (fr.chisquare(k, 3.0, n), stats.chi2(3.0).cdf),
        (fr.f(k, 4.0, 7.0, n), stats.f(4.0, 7.0).cdf),
        (fr.t(k, 2.5, n), stats.t(2.5).cdf),
        (fr.generalized_normal(k, 1.5, n), stats.gennorm(1.5).cdf),
        (fnp.abs(fr.double_sided_maxwell(k, 0.0, 1.0, n)), stats.maxwell.cdf),
        (fr.wald(k, 1.5, n), stats.invgauss(1.5).cdf),
        (fr.triangular(k, -1.0, 0.5, 2.0, n), stats.triang(0.5, loc=-1.0, scale=3.0).cdf),
    ]
    for samples, cdf in cases:
        assert stats.kstest(np.asarray(samples, np.float64), cdf).pvalue > 1e-3
    signs = np.asarray(fr.double_sided_maxwell(k, 0.0, 1.0, n)) > 0
    assert abs(signs.mean() - 0.5) < 0.05
    g = np.asarray(fr.geometric(k, 0.25, (4000,)))
    assert g.min() >= 1 and abs(g.mean() - 4.0) < 5 * np.sqrt(0.75 / 0.25**2 / 4000)
    # Uniform on the disc: P(|x| <= r) = r^2.
    radii = np.linalg.norm(np.asarray(fr.ball(k, 2, 2, (2000,))), axis=-1)
    assert stats.kstest(radii, lambda r: np.clip(r, 0, 1) ** 2).pvalue > 1e-3


# --------------------------------------------------------------------------------------------
# Transforms
# --------------------------------------------------------------------------------------------

def _everything(k):
    out = _run_all(_transformed(fr, "float32"), k)
    out.update(_run_all(_transformed(fr, "float64"), k))
    out["chisquare"] = fr.chisquare(k, 3.0, (4,))
    out["ball"] = fr.ball(k, 3, 1.5, (2,))
    out["binomial"] = fr.binomial(k, np.array([4.0, 60.0], np.float32), 0.7, (3, 2))
    return out


def _cheap_to_compile(k):
    return {"wald": fr.wald(k, np.array([2.0, 0.3], np.float32), (4, 2)),
            "geometric": fr.geometric(k, 0.2, (6,)),
            "triangular": fr.triangular(k, 0.0, 1.0, 3.0, (5,))}


def _binomial_both_loops(k):
    # n = 4: inversion; n = 60: BTRS.
    return fr.binomial(k, np.array([4.0, 60.0], np.float32), 0.7, (3, 2))


def test_jit_matches_eager():
    # XLA compiles the threefry-heavy programs slowly (~1.5 s for double_sided_maxwell, ~5 s
    # for binomial's two loops), so only a cheap set is compiled by default; binomial's staged
    # program is checked to hold its loops as while loops.
    from funcarray.lowering.stablehlo import lower_ir

    k = fr.key(8)
    want = _cheap_to_compile(k)
    got = fa.jit(_cheap_to_compile)(k)
    for name in want:
        assert got[name].dtype == want[name].dtype, name
        _close(got[name], want[name], 1e-5, 1e-5)
    text = lower_ir(fa.make_ir(_binomial_both_loops)(k).closed)
    assert text.count("stablehlo.while") == 2 and len(text) < 400_000


def test_jit_binomial_and_multinomial_match_eager():
    k = fr.key(8)
    _close(fa.jit(_binomial_both_loops)(k), _binomial_both_loops(k), 0.0)
    p = np.array([0.2, 0.0, 0.3, 0.5], np.float32)
    n = np.array([10.0, 300.0], np.float32)
    _close(fa.jit(lambda k: fr.multinomial(k, n, p, shape=(2, 4)))(k),
           fr.multinomial(k, n, p, shape=(2, 4)), 0.0)
    _close(fa.jit(_everything)(k)["double_sided_maxwell"], _everything(k)["double_sided_maxwell"],
           1e-5, 1e-5)


def test_vmap_over_keys_matches_loop():
    keys = fr.split(fr.key(8), 2)
    batched = fa.vmap(_everything)(keys)
    loop = [_everything(key) for key in keys]
    for name in batched:
        _close(batched[name], np.stack([np.asarray(x[name]) for x in loop]), 5e-5, 1e-5)


def test_grad_matches_jax():
    """Reparameterised samplers: d(sample)/d(parameter) along the same sample path."""
    def total(mod, np_, params, k):
        sigma, b, scale, mean, conc, loc, left, mode, right = params
        parts = [mod.lognormal(k, sigma, (5,)), mod.pareto(k, b, (5,)), mod.wald(k, mean, (5,)),
                 mod.weibull_min(k, scale, conc, (5,)),
                 mod.double_sided_maxwell(k, loc, scale, (5,)),
                 mod.triangular(k, left, mode, right, (5,))]
        return sum(np_.sum(x * (i + 1.0)) for i, x in enumerate(parts))

    params = tuple(np.float32(v) for v in (0.7, 2.5, 1.5, 0.8, 1.7, 0.3, -1.0, 0.4, 2.0))
    with jax.enable_x64(False):
        want = _jax_oracle(jax.grad(lambda ps, k: total(jr, jnp, ps, k)), params,
                           jr.PRNGKey(2))(params, jr.PRNGKey(2))
    got = fa.grad(lambda ps: total(fr, fnp, ps, fr.key(2)))(params)
    for g, w in zip(got, want):
        np.testing.assert_allclose(float(g), float(w), rtol=1e-4)


def test_gamma_based_grads_are_jax_implicit_gradients():
    """chisquare and t differentiate their gamma draws as JAX does: dG/da is the implicit
    reparameterisation gradient ``-(dP(a, G)/da) / pdf(G; a)`` (jax's
    ``lax.random_gamma_grad``), here from scipy's regularised incomplete gamma P."""
    from scipy import special, stats

    k, df = fr.key(1), np.float32(3.0)
    half = np.full(6, df / 2, np.float32)
    chi = np.asarray(fr.chisquare(k, df, (6,)))
    key_n, key_g = fr.split(k)
    n, g = np.asarray(fr.normal(key_n, (6,))), np.asarray(fr.gamma(key_g, half, (6,)))
    a, x, h = np.float64(df / 2), np.concatenate([chi / 2, g]).astype(np.float64), 1e-6
    dg = -(special.gammainc(a + h, x) - special.gammainc(a - h, x)) / (2 * h) / stats.gamma.pdf(
        x, a)
    # chisquare = 2 G(df / 2), so d/d df = dG/da.
    g_chi = fa.grad(lambda d: fnp.sum(fr.chisquare(k, d, (6,))))(df)
    np.testing.assert_allclose(float(g_chi), dg[:6].sum(), rtol=1e-4)
    # t = n sqrt(h / G) with h = df / 2: d/d df = n (G - h G') / (4 G^2 sqrt(h / G)).
    want_t = np.sum(n * (g - half * dg[6:]) / (4 * g * g * np.sqrt(half / g)))
    g_t = fa.grad(lambda d: fnp.sum(fr.t(k, d, (6,))))(df)
    np.testing.assert_allclose(float(g_t), want_t, rtol=1e-4)


def test_gamma_based_grads_match_jax():
    k, jk = fr.key(1), jr.PRNGKey(1)
    for name, arg in [("chisquare", 3.0), ("t", 3.0), ("generalized_normal", 1.5)]:
        with jax.enable_x64(False):
            want = jax.grad(lambda d: jnp.sum(getattr(jr, name)(jk, d, (6,))))(np.float32(arg))

        def total(d, name=name):
            return fnp.sum(getattr(fr, name)(k, d, (6,)))

        np.testing.assert_allclose(float(fa.grad(total)(np.float32(arg))), float(want),
                                   rtol=1e-4)
        np.testing.assert_allclose(float(fa.jit(fa.grad(total))(np.float32(arg))), float(want),
                                   rtol=1e-4)


# --------------------------------------------------------------------------------------------
# Shapes, key utilities, errors
# --------------------------------------------------------------------------------------------

_SHAPES = st.lists(st.integers(1, 3), min_size=0, max_size=2).map(tuple)


@settings(max_examples=8)
@given(_SHAPES, _SHAPES, st.sampled_from(["none", "same", "prefix", "bad"]))
def test_shape_rules_match_jax(shape_a, shape_b, request):
    a = np.full(shape_a, 0.5, np.float32)
    b = np.full(shape_b, 2.0, np.float32)
    try:
        params_shape = np.broadcast_shapes(shape_a, shape_b)
    except ValueError:
        params_shape = None
    shape = {"none": None, "same": params_shape, "prefix": (2,) + (params_shape or ()),
             "bad": (4,) + (params_shape or ())[1:] if params_shape else (4,)}[request]
    dshape = () if shape is None else shape
    for name, fa_call, jax_call in [
        ("triangular", lambda: fr.triangular(fr.key(0), a * 0, a, b, shape),
         lambda: jr.triangular(jr.PRNGKey(0), a * 0, a, b, shape)),
        ("double_sided_maxwell", lambda: fr.double_sided_maxwell(fr.key(0), a, b, dshape),
         lambda: jr.double_sided_maxwell(jr.PRNGKey(0), a, b, dshape)),
    ]:
        with jax.enable_x64(False):
            try:
                want = jax.eval_shape(jax_call)
            except (ValueError, TypeError):
                want = None
        if want is None:
            with pytest.raises((ValueError, TypeError)):
                fa_call()
        else:
            got = fa_call()
            assert got.shape == want.shape and got.dtype == want.dtype, name


def test_clone_and_key_impl():
    k = fr.key(3)
    assert fr.clone(k) is k or bool((fr.clone(k) == k).all())
    assert fr.key_impl(k) == jr.key_impl(jr.PRNGKey(3)) == "threefry2x32"
    keys = fr.split(k, 4)
    np.testing.assert_array_equal(np.asarray(fr.key_data(fa.vmap(fr.clone)(keys))),
                                  np.asarray(fr.key_data(keys)))
    np.testing.assert_array_equal(np.asarray(fr.key_data(fa.jit(fr.clone)(k))),
                                  np.asarray(fr.key_data(k)))
    assert fr.key_impl(keys) == "threefry2x32"
    with pytest.raises(TypeError, match="expected a key"):
        fr.clone(np.zeros(2, np.int32))


def test_argument_errors():
    k = fr.key(0)
    with pytest.raises(TypeError, match="expected a key"):
        fr.cauchy(np.zeros(3, np.uint32))
    with pytest.raises(ValueError, match="vmap"):
        fr.pareto(fr.split(k, 2), 2.0)
    with pytest.raises(ValueError, match="floating"):
        fr.rayleigh(k, 1.0, (2,), "int32")
    with pytest.raises(ValueError, match="integer dtype"):
        fr.geometric(k, 0.5, (2,), "float32")
    with pytest.raises(ValueError, match="floating"):
        fr.binomial(k, 5.0, 0.5, (2,), "int32")
    with pytest.raises(ValueError, match="safely cast"):
        fr.lognormal(k, np.float64(0.5), (2,), "float32")
    with pytest.raises(ValueError, match="broadcast"):
        fr.chisquare(k, np.ones(3, np.float32), (2,))
    with pytest.raises(ValueError, match="broadcast"):
        fr.triangular(k, 0.0, np.ones(4, np.float32), 2.0, (3,))
    with pytest.raises(TypeError, match="concrete non-negative integer"):
        fr.orthogonal(k, 2.5)
    with pytest.raises(ValueError, match="non-negative"):
        fr.ball(k, -1)
    with pytest.raises(ValueError, match="p must be a scalar"):
        fr.ball(k, 3, np.ones(2, np.float32))
    with pytest.raises(ValueError, match="outcomes"):
        fr.multinomial(k, 5.0, np.float32(0.5))
    with pytest.raises(TypeError, match="real"):
        fr.binomial(k, 5.0, np.complex64(0.5))
    with pytest.raises(TypeError, match="concrete"):
        fa.jit(lambda n: fr.orthogonal(k, n))(3)
    with pytest.raises(ValueError, match="floating"):
        fr.orthogonal(k, 3, dtype="complex64")  # needs a complex QR
