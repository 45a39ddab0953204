"""checkpoint policies and checkpoint_name: what reverse mode saves (against jax's
print_saved_residuals), that everything else is recomputed, and that gradients match jax
under every transform for every policy."""

import contextlib
import io
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jax.ad_checkpoint import checkpoint_name as jax_name
from jax.ad_checkpoint import print_saved_residuals as jax_print_saved_residuals

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.ad_checkpoint import checkpoint_name, print_saved_residuals, saved_residuals
from funcarray.primitives.dot_general import dot_general_p
from funcarray.testing import assert_allclose

FA_POL, JAX_POL = fa.checkpoint_policies, jax.checkpoint_policies


def model(xp, name):
    """Two tanh layers (dots without batch dimensions), then a Gram diagonal (a dot with a
    batch dimension), with every intermediate named."""
    def f(params, x):
        h = x
        for i, (w, b) in enumerate(params):
            z = name(h @ w, f"dot{i}") + b
            h = name(xp.tanh(z), f"act{i}")
        s = name(xp.einsum("bi,bi->b", h, h), "gram")
        return xp.sum(xp.sin(h)) + xp.sum(xp.cos(s))
    return f


def data(seed=0):
    rng = np.random.default_rng(seed)
    params = [(rng.normal(size=(3, 5)), rng.normal(size=5)),
              (rng.normal(size=(5, 2)), rng.normal(size=2))]
    return params, rng.normal(size=(4, 3))


def policy_pair(label):
    """The same policy in funcarray and in jax."""
    both = lambda lib: lib.save_from_both_policies(  # noqa: E731
        lib.dots_with_no_batch_dims_saveable, lib.save_only_these_names("gram"))
    table = {
        "none": lambda lib: None,
        "nothing_saveable": lambda lib: lib.nothing_saveable,
        "everything_saveable": lambda lib: lib.everything_saveable,
        "dots_saveable": lambda lib: lib.dots_saveable,
        "checkpoint_dots": lambda lib: lib.checkpoint_dots,
        "dots_with_no_batch_dims_saveable": lambda lib: lib.dots_with_no_batch_dims_saveable,
        "save_only_these_names": lambda lib: lib.save_only_these_names("act0", "gram"),
        "save_any_names_but_these": lambda lib: lib.save_any_names_but_these("act0"),
        "save_from_both_policies": both,
    }
    return table[label](FA_POL), table[label](JAX_POL)


POLICIES = ["none", "nothing_saveable", "everything_saveable", "dots_saveable",
            "checkpoint_dots", "dots_with_no_batch_dims_saveable", "save_only_these_names",
            "save_any_names_but_these", "save_from_both_policies"]


def both_models(label):
    fa_pol, jax_pol = policy_pair(label)
    return (fa.checkpoint(model(fnp, checkpoint_name), policy=fa_pol),
            jax.checkpoint(model(jnp, jax_name), policy=jax_pol))


def _normalised(lines):
    """(type, origin) pairs, sorted: jax's source locations and argument names dropped."""
    out = []
    for line in lines:
        type_str, origin = line.split(" ", 1)
        origin = re.sub(r" from \S+:\d+:\d+ \(.*\)$", "", origin)
        out.append((type_str, "argument" if origin.startswith("from the argument") else origin))
    return sorted(out)


@pytest.mark.parametrize("label", POLICIES)
def test_saved_residuals_match_jax(label):
    params, x = data()
    fa_f, jax_f = both_models(label)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        jax_print_saved_residuals(jax_f, params, x)
    want = _normalised(buf.getvalue().strip().splitlines())
    got = saved_residuals(fa_f, fa.tree.map(fnp.asarray, params), fnp.asarray(x))
    got_lines = [f"{aval.str_short(short_dtypes=True)} {origin}" for aval, origin in got]
    if label == "everything_saveable":
        # No remat: what is saved is what plain reverse mode saves, whose intermediates
        # depend on each library's JVP rules (tanh's, say); compare with plain code instead.
        plain = saved_residuals(model(fnp, checkpoint_name), fa.tree.map(fnp.asarray, params),
                                fnp.asarray(x))
        assert [a.str_short() for a, _ in got] == [a.str_short() for a, _ in plain]
        return
    assert _normalised(got_lines) == want


@pytest.mark.parametrize("label", POLICIES)
def test_gradients_match_jax_under_transforms(label):
    params, x = data(1)
    fa_f, jax_f = both_models(label)
    fp, fx = fa.tree.map(fnp.asarray, params), fnp.asarray(x)
    want = jax.grad(jax_f)(params, x)
    fa.tree.map(assert_allclose, fa.grad(fa_f)(fp, fx), want)
    fa.tree.map(assert_allclose, fa.jit(fa.grad(fa_f))(fp, fx), want)
    fa.tree.map(assert_allclose, fa.grad(fa.jit(fa_f))(fp, fx), want)
    # per-example gradients: vmap over the rows of x
    per_example = jax.vmap(jax.grad(lambda p, r: jax_f(p, r[None])), in_axes=(None, 0))
    got = fa.vmap(fa.grad(lambda p, r: fa_f(p, r[None])), in_axes=(None, 0))(fp, fx)
    fa.tree.map(assert_allclose, got, per_example(params, x))
    # second order: the Hessian with respect to x, forward over reverse
    assert_allclose(fa.hessian(fa_f, argnums=1)(fp, fx), jax.hessian(jax_f, argnums=1)(params, x))
    with jax.enable_x64(False):
        s = jnp.asarray(1.5)  # float32 and weak, as fnp.asarray(1.5)
    assert_allclose(fa.grad(fa.grad(lambda s: fa_f(fp, fx * s)))(fnp.asarray(1.5)),
                    jax.grad(jax.grad(lambda s: jax_f(params, x * s)))(s))


@pytest.mark.parametrize("label", ["dots_saveable", "save_only_these_names", "none"])
def test_policies_inside_scan_over_layers(label):
    """The common use: a checkpointed layer as the body of a scan over stacked weights."""
    rng = np.random.default_rng(2)
    ws, x = rng.normal(size=(3, 4, 4)) / 2, rng.normal(size=(2, 4))
    fa_pol, jax_pol = policy_pair(label)

    def loss(lax, xp, name, ckpt, pol):
        layer = ckpt(lambda h, w: (name(xp.tanh(h @ w), "act0"), None), policy=pol)
        return lambda ws, x: xp.sum(lax.scan(layer, x, ws)[0] ** 2)

    fa_loss = loss(fa.lax, fnp, checkpoint_name, fa.checkpoint, fa_pol)
    jax_loss = loss(jax.lax, jnp, jax_name, jax.checkpoint, jax_pol)
    want = jax.grad(jax_loss, argnums=(0, 1))(ws, x)
    fa.tree.map(assert_allclose, fa.grad(fa_loss, argnums=(0, 1))(fnp.asarray(ws),
                                                                 fnp.asarray(x)), want)
    fa.tree.map(assert_allclose, fa.jit(fa.grad(fa_loss, argnums=(0, 1)))(
        fnp.asarray(ws), fnp.asarray(x)), want)


def _count_dot_impl_calls(monkeypatch, fun, *args):
    calls = []
    impl = dot_general_p.impl
    monkeypatch.setattr(dot_general_p, "impl", lambda *a, **k: calls.append(1) or impl(*a, **k))
    fun(*args)
    monkeypatch.setattr(dot_general_p, "impl", impl)
    return len(calls)


def test_saved_dots_are_not_recomputed(monkeypatch):
    params, x = data(3)
    fp, fx = fa.tree.map(fnp.asarray, params), fnp.asarray(x)
    plain = model(fnp, checkpoint_name)
    count = {label: _count_dot_impl_calls(monkeypatch, fa.grad(f), fp, fx) for label, f in [
        ("plain", plain),
        ("nothing", fa.checkpoint(plain)),
        ("dots", fa.checkpoint(plain, policy=FA_POL.dots_saveable)),
        ("no_batch", fa.checkpoint(plain, policy=FA_POL.dots_with_no_batch_dims_saveable))]}
    # forward: 3 dots; backward of plain code: the first layer's weight cotangent (x is not
    # differentiated), both cotangents of the second layer's dot, and the Gram diagonal's two
    # operands; remat adds the forward dots again unless the policy saved them (the Gram dot
    # is recomputed when only dots without batch dimensions are saved).
    assert count["plain"] == 3 + 5
    assert count["nothing"] == count["plain"] + 3
    assert count["dots"] == count["plain"]
    assert count["no_batch"] == count["plain"] + 1


def test_jit_lowering_recomputes_only_what_is_not_saved():
    params, x = data(4)
    fp, fx = fa.tree.map(fnp.asarray, params), fnp.asarray(x)
    plain = model(fnp, checkpoint_name)

    def n_dots(f):
        return fa.jit(fa.grad(f)).lower(fp, fx).as_text().count("stablehlo.dot_general")

    assert n_dots(fa.checkpoint(plain, policy=FA_POL.dots_saveable)) == n_dots(plain)
    assert n_dots(fa.checkpoint(plain)) == n_dots(plain) + 3
    assert "policy=dots_saveable" in str(fa.make_ir(fa.grad(
        fa.checkpoint(plain, policy=FA_POL.dots_saveable)))(fp, fx))


def test_custom_policy_callable_gets_primitive_avals_and_params():
    seen = []

    def save_sines(prim, *avals, **params):
        seen.append((prim.name, tuple(a.shape for a in avals), tuple(sorted(params))))
        return prim.name == "sin"

    f = fa.checkpoint(lambda x: fnp.sum(fnp.cos(fnp.sin(x) * 2.0)), policy=save_sines)
    x = fnp.asarray(np.linspace(0.1, 1.0, 3))
    origins = [origin for _, origin in saved_residuals(f, x)]
    assert origins == ["from the argument x", "output of sin"]
    assert ("sin", ((3,),), ()) in seen
    assert_allclose(fa.grad(f)(x), jax.grad(lambda x: jnp.sum(jnp.cos(jnp.sin(x) * 2.0)))(
        np.asarray(x)))


@settings(max_examples=25, deadline=None)
@given(st.sets(st.sampled_from(["dot_general", "tanh", "add", "mul", "sin", "cos",
                                "integer_pow", "name", "reduce_sum", "neg"])))
def test_any_policy_gives_the_plain_gradient(saved_primitives):
    """Whatever a policy saves, the rest is recomputed: the gradient never changes."""
    params, x = data(5)
    fp, fx = fa.tree.map(fnp.asarray, params), fnp.asarray(x)
    plain = model(fnp, checkpoint_name)
    policy = lambda prim, *_, **__: prim.name in saved_primitives  # noqa: E731
    want = fa.grad(plain)(fp, fx)
    fa.tree.map(assert_allclose, fa.grad(fa.checkpoint(plain, policy=policy))(fp, fx), want)
    fa.tree.map(assert_allclose, fa.jit(fa.grad(fa.checkpoint(plain, policy=policy)))(fp, fx),
                want)


def test_save_anything_except_these_names_recomputes_the_named_value():
    # (JAX's version of this policy saves everything; funcarray's does what it says.)
    x = fnp.asarray(np.linspace(0.1, 1.0, 3))

    def f(x):
        h = checkpoint_name(fnp.sin(x), "h")
        return fnp.sum(fnp.exp(h))

    every = saved_residuals(fa.checkpoint(f, policy=FA_POL.everything_saveable), x)
    except_h = saved_residuals(
        fa.checkpoint(f, policy=FA_POL.save_anything_except_these_names("h")), x)
    only_h = saved_residuals(fa.checkpoint(f, policy=FA_POL.save_only_these_names("h")), x)
    assert "named 'h'" not in [o for _, o in except_h]
    assert [o for _, o in only_h] == ["from the argument x", "named 'h'"]
    assert len(every) >= 2
    for pol in [FA_POL.save_anything_except_these_names("h"),
                FA_POL.offload_dot_with_no_batch_dims("device", "pinned_host"),
                FA_POL.save_and_offload_only_these_names(
                    names_which_can_be_saved=["h"], names_which_can_be_offloaded=[],
                    offload_src="device", offload_dst="pinned_host")]:
        assert_allclose(fa.grad(fa.checkpoint(f, policy=pol))(x),
                        np.exp(np.sin(np.asarray(x))) * np.cos(np.asarray(x)))


def test_checkpoint_name_is_the_identity_under_every_transform():
    x = fnp.asarray(np.linspace(-1.0, 1.0, 6).reshape(2, 3))
    assert checkpoint_name(x, "a") is x  # eager: nothing to mark
    tree = checkpoint_name({"u": x, "v": [x]}, "t")
    assert tree["u"] is x and tree["v"][0] is x
    f = lambda x: fnp.sin(checkpoint_name(x * 2.0, "h"))  # noqa: E731
    assert_allclose(fa.jit(f)(x), np.sin(2.0 * np.asarray(x)))
    assert "name[name=h]" in str(fa.make_ir(f)(x)).replace(" ", "")
    assert_allclose(fa.vmap(f, in_axes=1)(x), np.sin(2.0 * np.asarray(x)).T)
    _, t = fa.jvp(f, (x,), (fnp.ones_like(x),))
    assert_allclose(t, 2.0 * np.cos(2.0 * np.asarray(x)))
    assert_allclose(fa.grad(lambda x: f(x).sum())(x), 2.0 * np.cos(2.0 * np.asarray(x)))


def test_print_saved_residuals_names_arguments_by_parameter_and_path(capsys):
    params, x = data(6)
    fp, fx = fa.tree.map(fnp.asarray, params), fnp.asarray(x)
    print_saved_residuals(fa.checkpoint(model(fnp, checkpoint_name)), fp, fx)
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == "f64[3,5] from the argument params[0][0]"
    assert lines[-1] == "f64[4,3] from the argument x"
    assert len(lines) == 5


def test_policy_errors():
    f = lambda x: fnp.sin(x)  # noqa: E731
    with pytest.raises(TypeError, match="policy must be None or a callable"):
        fa.checkpoint(f, policy=3)
    with pytest.raises(TypeError, match="checkpoint_name: name must be a string"):
        checkpoint_name(fnp.ones(2), 1)
    with pytest.raises(TypeError, match="save_only_these_names: names are strings"):
        FA_POL.save_only_these_names("a", 2)
    with pytest.raises(ValueError, match=r"either saved or offloaded.*\['a'\]"):
        FA_POL.save_and_offload_only_these_names(
            names_which_can_be_saved=["a"], names_which_can_be_offloaded=["a", "b"],
            offload_src="device", offload_dst="pinned_host")
    with pytest.raises(TypeError, match="expected two policies"):
        FA_POL.save_from_both_policies(FA_POL.dots_saveable, "x")

    def broken(prim, *avals, **params):
        raise KeyError("oops")

    with pytest.raises(KeyError) as info:
        fa.grad(lambda x: fa.checkpoint(f, policy=broken)(x).sum())(fnp.ones(2))
    assert "checkpoint policy" in "".join(info.value.__notes__)


@pytest.mark.parametrize("label", ["none", "dots_saveable", "save_only_these_names"])
def test_policies_around_nested_control_flow_and_jit(label):
    """A checkpointed body holding a scan, a cond and a jit: the policy judges each of
    those as one equation (recomputed unless it accepts the primitive itself)."""
    rng = np.random.default_rng(7)
    ws, x = rng.normal(size=(2, 3, 3)) / 2, rng.normal(size=(2, 3))
    fa_pol, jax_pol = policy_pair(label)

    def body(lax, xp, name, jit):
        def f(ws, x):
            h, _ = lax.scan(lambda h, w: (xp.tanh(h @ w), None), x, ws)
            h = name(jit(lambda h: xp.sin(h) @ ws[0])(h), "act0")
            h = lax.cond(xp.sum(x) > 0, lambda h: h * h, lambda h: xp.cos(h), h)
            return xp.sum(h @ ws[1])
        return f

    fa_f = fa.checkpoint(body(fa.lax, fnp, checkpoint_name, fa.jit), policy=fa_pol)
    jax_f = jax.checkpoint(body(jax.lax, jnp, jax_name, jax.jit), policy=jax_pol)
    want = jax.grad(jax_f, argnums=(0, 1))(ws, x)
    fws, fx = fnp.asarray(ws), fnp.asarray(x)
    fa.tree.map(assert_allclose, fa.grad(fa_f, argnums=(0, 1))(fws, fx), want)
    fa.tree.map(assert_allclose, fa.jit(fa.grad(fa_f, argnums=(0, 1)))(fws, fx), want)
    assert_allclose(fa.hessian(fa_f, argnums=1)(fws, fx), jax.hessian(jax_f, argnums=1)(ws, x))
