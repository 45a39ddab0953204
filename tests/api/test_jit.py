"""Tests of ``funcarray.jit``: dispatch, caching, static arguments, errors, introspection,
devices, the persistent cache, and jit composed with the other transforms (against jax).

Per-primitive "compiled equals eager" tests live with each family's lowering tests
(``test_lowering_*.py``), through ``helpers.assert_compiled_matches_eager``.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from helpers import assert_compiled_matches_eager, skip_unless_numpy_eager
from hypothesis import given, settings
from hypothesis import strategies as st

import funcarray as fa
import funcarray.numpy as fnp
import funcarray.testing
from funcarray.base.array import DeviceArray, device_array
from funcarray.primitives.jit_call import jit_p
from funcarray.transforms.core import ConcretizationError, ShapedArray, UnexpectedTracerError


def smooth(x, y):
    """An elementwise function with broadcasting and a weak scalar."""
    return fnp.sin(x) * y + fnp.exp(-x * x) / 2.0


def smooth_jax(x, y):
    return jnp.sin(x) * y + jnp.exp(-x * x) / 2.0


# --------------------------------------------------------------------------------------------
# Calling: values, pytrees, scalars, kwargs
# --------------------------------------------------------------------------------------------


@settings(max_examples=15, deadline=None)
@given(st.lists(st.floats(-3, 3), min_size=1, max_size=5), st.floats(-2, 2))
def test_jit_matches_eager(values, scale):
    assert_compiled_matches_eager(smooth, fnp.array(values), scale)


def test_pytrees_kwargs_and_python_scalars():
    def f(params, x, *, shift=0.0):
        return {"out": params["w"] * x + params["b"] + shift, "n": 3, "pair": (x, 1.5)}

    params = {"w": fnp.array([1.0, 2.0]), "b": fnp.float32(0.5)}
    jf = fa.jit(f)
    got, want = jf(params, 2.0, shift=1.0), f(params, 2.0, shift=1.0)
    fa.testing.assert_trees_allclose(got, want)
    # Python scalars in and out keep JAX's weak types.
    assert got["n"].weak_type and got["pair"][0].weak_type and got["pair"][1].weak_type
    assert got["n"].dtype == np.int32


def test_numpy_arguments_and_64_bit_values_stay_exact():
    x = np.arange(5, dtype=np.int64) * (2**40)
    out = fa.jit(lambda v: v + 1)(x)
    assert out.dtype == np.int64
    np.testing.assert_array_equal(np.asarray(out), x + 1)


_WIDE_OPERANDS = {
    "float64": np.array([1.0, -3.5e-300, 7.0]),
    "complex128": np.array([1.0 + 2.0j, -0.5j, 3.0]),
    "float32": np.array([1.0, -2.5, 7.0], np.float32),
    "float16": np.array([1.0, -2.5, 7.0], np.float16),
}


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(_WIDE_OPERANDS)),
       st.one_of(st.floats(allow_nan=False, width=64),
                 st.complex_numbers(max_magnitude=1e300, allow_nan=False)))
def test_python_float_arguments_keep_their_precision_as_in_eager_mode(operand, scalar):
    """A Python float (complex) argument meets a wider array at double precision: the jitted
    result is eager mode's bit for bit, and JAX's with x64 for 64-bit arrays."""
    x = _WIDE_OPERANDS[operand]
    if isinstance(scalar, complex) and x.dtype.kind != "c":
        scalar = scalar.real
    # (no a * s + s: XLA may fuse it into one rounding)
    def f(a, s):
        return a * s, a - s

    with np.errstate(all="ignore"):
        wants = f(x, scalar)
        gots = fa.jit(f)(x, scalar)
    for got, want in zip(gots, wants):
        assert got.dtype == want.dtype == x.dtype
        # (parts compared as reals; XLA flushes subnormal results to zero, the documented
        # allowance)
        real = np.finfo(x.dtype).dtype
        want = np.asarray(want).view(real)
        subnormal = (want != 0) & (abs(want) < np.finfo(real).tiny)
        np.testing.assert_array_equal(np.asarray(got).view(real),
                                      np.where(subnormal, np.copysign(0, want), want))
    if x.itemsize >= 8:
        with jax.enable_x64(True), np.errstate(all="ignore"):
            oracles = jax.jit(f)(x, scalar)
        for got, oracle in zip(gots, oracles):
            np.testing.assert_array_equal(np.asarray(got), np.asarray(oracle))


def test_python_float_arguments_are_typed_weak_float32_inside_jit():
    seen = []

    def f(s, c):
        seen.append((s.dtype, s.weak_type, c.dtype, c.weak_type))
        return s * 2, c, fnp.asarray(s, fnp.int32)

    doubled, c, truncated = fa.jit(f)(0.1, 1.5j)
    assert seen == [(np.float32, True, np.complex64, True)]
    assert (doubled.dtype, doubled.weak_type, c.dtype) == (np.float32, True, np.complex64)
    assert float(doubled) == float(np.float32(0.1) * 2)
    # Conversions read the double: 16777217.0 is not a float32.
    assert int(fa.jit(lambda s: fnp.asarray(s, fnp.int32))(16777217.0)) == 16777217
    assert int(truncated) == 0


def test_zero_argument_function_and_identity_outputs():
    assert float(fa.jit(lambda: fnp.float32(2.5) * 2)()) == 5.0
    x = fnp.arange(3.0)
    np.testing.assert_array_equal(np.asarray(fa.jit(lambda a: a)(x)), np.arange(3.0))


def test_outputs_feed_back_without_copies():
    f = fa.jit(lambda a: a * 2.0)
    y = f(fnp.ones(4))
    assert getattr(y, "_buf", None) is not None  # the device buffer travels with the output
    np.testing.assert_array_equal(np.asarray(f(f(y))), np.full(4, 8.0, np.float32))
    assert not np.asarray(y).flags.writeable


def test_decorator_forms_and_methods():
    @fa.jit(static_argnames="n")
    def power(x, n):
        return x ** n

    class Model:  # as in JAX, `self` must be static (or a registered pytree)
        scale = 3.0

        @fa.jit(static_argnums=0)
        def apply(self, x):
            return x * self.scale

    assert float(power(fnp.float32(2.0), n=3)) == 8.0
    assert float(Model().apply(fnp.float32(1.5))) == 4.5
    assert power.__name__ == "power" and "power" in repr(power)


# --------------------------------------------------------------------------------------------
# Static arguments and the dispatch cache
# --------------------------------------------------------------------------------------------


def test_static_argnums_and_argnames_complete_each_other():
    calls = []

    def f(x, n, flag=False):
        calls.append(n)
        return x * n if flag else x + n

    jf = fa.jit(f, static_argnums=(1, 2))
    x = fnp.ones(2)
    assert float(jf(x, 3)[0]) == 4.0
    assert float(jf(x, n=3)[0]) == 4.0  # static by name too (same signature as above)
    assert float(jf(x, 3, flag=True)[0]) == 3.0
    assert float(jf(x, -2, True)[0]) == -2.0
    assert calls == [3, 3, 3, -2]  # n=3 positional vs keyword are different signatures
    assert jf.cache_info().misses == 4


def test_cache_hits_and_misses_follow_the_signature():
    jf = fa.jit(smooth)
    jf.clear_cache()  # (the cache is shared with the other tests' wrappers of smooth)
    x32 = fnp.ones(3)
    jf(x32, 1.0)
    jf(x32 + 1, 2.0)  # same types: hit
    assert jf.cache_info()[:2] == (1, 1)
    jf(x32, fnp.float32(1.0))  # strong instead of weak scalar: miss
    jf(fnp.ones(4), 1.0)  # shape: miss
    jf(fnp.ones(3, dtype=fnp.float64), 1.0)  # dtype: miss
    info = jf.cache_info()
    assert (info.hits, info.misses, info.currsize) == (1, 4, 4)
    jf.clear_cache()
    assert jf.cache_info() == (0, 0, None, 0)


def test_clear_caches_empties_every_function():
    f, g = fa.jit(fnp.sin), fa.jit(fnp.cos)
    f(fnp.ones(2))
    g(fnp.ones(2))
    fa.clear_caches()
    assert f.cache_info().currsize == g.cache_info().currsize == 0
    np.testing.assert_allclose(np.asarray(f(fnp.zeros(2))), 0.0)


def test_explain_cache_misses_names_the_argument(caplog):
    jf = fa.jit(lambda x, y: x * y, static_argnums=1)
    fa.config.update("explain_cache_misses", True)
    try:
        with caplog.at_level(logging.WARNING, logger="funcarray.jit"):
            jf(fnp.ones(2), 2)
            jf(fnp.ones(3), 2)
            jf(fnp.ones(3), 5)
    finally:
        fa.config.update("explain_cache_misses", False)
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "first time" in text
    assert "argument leaf 0 changed from f32[2] to f32[3]" in text
    assert "static argument 1 changed from 2 to 5" in text


def test_disable_jit_runs_python_eagerly():
    seen = []

    @fa.jit
    def f(x):
        seen.append(type(x))
        return x + 1

    with fa.disable_jit():
        f(fnp.ones(2))
        f(fnp.ones(2))
    f(fnp.ones(2))
    # (concrete Arrays, DeviceArrays where eager ops run through XLA, then one trace)
    assert [issubclass(t, fa.Array) for t in seen] == [True, True, False]
    assert seen[2].__name__ == "StagingTracer"
    assert not fa.config.disable_jit


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------


def test_python_control_flow_on_traced_value_names_argument_line_and_fixes():
    @fa.jit
    def f(x, params):
        if params["w"].sum() > 0:  # the offending line
            return x
        return -x

    with pytest.raises(ConcretizationError) as info:
        f(fnp.ones(2), {"w": fnp.ones(3)})
    message = str(info.value)
    assert "params['w']" in message and "jit(" in message
    assert "static_argnums" in message and "funcarray.lax.cond" in message
    assert "test_jit.py" in message and "the offending line" in message


@pytest.mark.parametrize("make", [fnp.zeros, fnp.ones, lambda n: fnp.full(n, 2.0),
                                  lambda n: fa.random.normal(fa.random.key(0), n)])
def test_traced_shape_is_a_concretization_error_not_an_empty_shape(make):
    """A traced 0-d value used as a shape used to iterate as an empty sequence: `zeros(n)`
    under jit silently had shape ()."""
    with pytest.raises(ConcretizationError, match="static_argnums"):
        fa.jit(lambda n: make(n))(3)
    assert fa.jit(lambda n: make(n), static_argnums=0)(3).shape == (3,)


@pytest.mark.parametrize("transform", [fa.jit, fa.grad, fa.vmap])
def test_iterating_a_zero_dimensional_tracer_raises_like_eager(transform):
    x = fnp.arange(3.0) if transform is fa.vmap else fnp.asarray(2.0)
    with pytest.raises(TypeError, match="iteration over a 0-d"):
        transform(lambda x: sum(x, start=x * 0.0))(x)
    with pytest.raises(TypeError, match="iteration over a 0-d"):
        sum(fnp.asarray(2.0))
    rows = fa.jit(lambda m: fnp.stack([r * 2 for r in m]))(fnp.ones((3, 2)))
    np.testing.assert_array_equal(np.asarray(rows), np.full((3, 2), 2.0))


def test_escaped_tracer_names_the_function_it_was_traced_in():
    leaked = []

    @fa.jit
    def leak(x):
        leaked.append(x)
        return x

    leak(fnp.ones(2))
    with pytest.raises(UnexpectedTracerError, match="while tracing jit.*leak"):
        fnp.sin(leaked[0])
    with pytest.raises(UnexpectedTracerError, match="escaped"):
        fa.jit(lambda y: y + leaked[0])(fnp.ones(2))


@pytest.mark.parametrize("kwargs, match", [
    ({"static_argnums": 5}, "static_argnums contains 5"),
    ({"static_argnames": "nope"}, "not a parameter"),
    ({"static_argnums": 0, "donate_argnums": 0}, "both static and donated"),
    ({"static_argnums": "x"}, None),
])
def test_bad_jit_options(kwargs, match):
    def f(x, y):
        return x + y

    if match is None:  # a string static_argnums is a name: must be static_argnames
        with pytest.raises(TypeError, match="static_argnums must be ints"):
            fa.jit(f, **kwargs)
        return
    with pytest.raises(ValueError, match=match):
        fa.jit(f, **kwargs)


def test_unhashable_static_and_non_array_arguments():
    jf = fa.jit(lambda x, shape: x.reshape(shape), static_argnums=1)
    with pytest.raises(TypeError, match="unhashable type list.*tuple instead"):
        jf(fnp.ones(4), [2, 2])
    assert jf(fnp.ones(4), (2, 2)).shape == (2, 2)
    with pytest.raises(TypeError, match="argument leaf 1 is a str.*static"):
        fa.jit(lambda x, s: x)(fnp.ones(2), "text")
    with pytest.raises(TypeError, match="returned a str"):
        fa.jit(lambda x: "text")(fnp.ones(2))
    with pytest.raises(TypeError, match="expected a function"):
        fa.jit(3)


def test_user_errors_keep_the_users_frames_only():
    @fa.jit
    def f(x):
        return x @ fnp.ones((3, 3))  # shapes do not match

    with pytest.raises(ValueError, match="matmul: shapes \\(2,\\) and \\(3, 3\\)") as info:
        f(fnp.ones(2))
    files = [os.path.basename(str(tb.path)) for tb in info.traceback]
    # The user's frames, and only the one funcarray frame that re-raises.
    assert "test_jit.py" in files and files.count("jit.py") == 1
    assert not {"staging.py", "_linalg.py", "core.py"} & set(files)


def test_jit_primitive_validates_operands_before_running():
    closed = fa.make_ir(lambda x: x + 1)(fnp.ones(2, dtype=fnp.float32)).ir
    with pytest.raises(TypeError,
                       match="operands \\(int32\\[2\\]\\).*staged for \\(float32\\[2\\]\\)"):
        jit_p.bind(fnp.ones(2, dtype=fnp.int32), ir=closed, name="f", device=None)


# --------------------------------------------------------------------------------------------
# lower / compile / introspection
# --------------------------------------------------------------------------------------------


def test_lower_and_compile():
    jf = fa.jit(smooth)
    lowered = jf.lower(fnp.ones(3), 2.0)
    text = lowered.as_text()
    assert "stablehlo.sine" in text and "func.func public @main" in text
    compiled = lowered.compile()
    assert "HloModule" in compiled.as_text()
    assert compiled.cost_analysis()["flops"] > 0
    # (the Python float 2.0 reaches the executable as a float64)
    assert compiled.memory_analysis().argument_size_in_bytes == 3 * 4 + 8
    np.testing.assert_allclose(np.asarray(compiled(fnp.ones(3), 2.0)),
                               np.asarray(smooth(fnp.ones(3), 2.0)), rtol=1e-6)
    with pytest.raises(TypeError, match="compiled for"):
        compiled(fnp.ones(4), 2.0)


# --------------------------------------------------------------------------------------------
# Devices and settings
# --------------------------------------------------------------------------------------------


def test_devices_and_device_put():
    devices = fa.devices()
    assert devices and all(isinstance(d, fa.Device) for d in devices)
    assert fa.default_backend() == devices[0].platform
    x = fa.device_put(np.arange(3.0), devices[0])
    assert x.device == devices[0] and x.dtype == np.float64
    assert fa.jit(lambda a: a * 2, device=devices[0])(x).device == devices[0]
    with pytest.raises(TypeError, match="funcarray Device"):
        fa.device_put(x, "cpu:0")


def test_device_and_process_counts_match_jax():
    assert fa.device_count() == jax.device_count() == len(fa.devices())
    assert fa.local_device_count() == jax.local_device_count()
    assert fa.local_devices() == fa.devices()
    assert (fa.process_index(), fa.process_count()) == (jax.process_index(), jax.process_count())
    with pytest.raises(ValueError, match="no process has index 1"):
        fa.local_devices(process_index=1)


def test_device_put_get_and_block_until_ready_take_pytrees_like_jax():
    tree = {"w": np.ones((2, 3), np.float32), "b": 0.5, "n": None, "layers": [np.arange(3)]}
    put, jput = fa.device_put(tree), jax.device_put(tree)
    assert fa.tree.structure(put) == fa.tree.structure(jput)
    for mine, theirs in zip(fa.tree.leaves(put), fa.tree.leaves(jput)):
        assert mine.device == fa.devices()[0]
        assert (mine.shape, mine.weak_type) == (theirs.shape, theirs.weak_type)
        np.testing.assert_array_equal(np.asarray(mine), np.asarray(theirs))
    assert fa.block_until_ready(put) is put
    got = fa.device_get({"out": fa.jit(lambda t: t["w"] * t["b"])(put), "step": 3})
    assert got["step"] == 3 and type(got["out"]) is np.ndarray
    np.testing.assert_array_equal(got["out"], np.full((2, 3), 0.5, np.float32))


@pytest.mark.parametrize("value", [fnp.asarray(1.5), fnp.float32(2.0), fnp.ones(3).sum(),
                                   fnp.asarray(True)])
def test_zero_dimensional_arrays_keep_their_shape_on_the_device(value):
    """A 0-d Array whose value is a NumPy scalar went to the device as a 1-element vector
    (np.ascontiguousarray makes 0-d values 1-d), under an aval that says 0-d."""
    x = fa.device_put(value)
    assert x._buf[1].shape == () and np.asarray(x).shape == () and x.shape == ()
    assert fa.jit(lambda a: a.reshape(1))(value).shape == (1,)
    np.testing.assert_array_equal(np.asarray(x), np.asarray(value))


def test_config_checks_names_and_types():
    with pytest.raises(AttributeError, match="no setting 'nope'"):
        fa.config.update("nope", 1)
    with pytest.raises(TypeError, match="takes a bool"):
        fa.config.update("disable_jit", "yes")
    assert "platform" in fa.config.values()


_PERSISTENT_SCRIPT = textwrap.dedent("""
    import funcarray as fa, funcarray.numpy as fnp
    from funcarray.lowering import cache
    y = fa.jit(lambda x: fnp.tanh(x) * 3.0 + 1.0)(fnp.ones(4))
    assert abs(float(y[0]) - (3 * 0.7615941559557649 + 1)) < 1e-5, y
    info = cache.info()
    print(info["disk_hits"], info["disk_writes"], info["disk_errors"])
""")


def _run_with_cache(directory) -> list:
    env = {**os.environ, "FUNCARRAY_COMPILATION_CACHE_DIR": str(directory),
           "FUNCARRAY_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
           # (NumPy eager kernels: with XLA ones, on an accelerator, eager ops are cached too)
           "FUNCARRAY_EAGER_BACKEND": "numpy"}
    out = subprocess.run([sys.executable, "-c", _PERSISTENT_SCRIPT], env=env, check=True,
                         capture_output=True, text=True).stdout
    return [int(v) for v in out.split()]


def test_compiler_options_reach_xla_like_jax():
    """``jit(compiler_options=)`` and ``Lowered.compile(compiler_options)``: XLA's
    ``xla_disable_all_hlo_passes`` leaves the exponential unfused in the optimised HLO, as in
    jax; the options follow the jit under grad and vmap and key every cache. (On the CPU:
    without its passes XLA's GPU compiler emits PTX that ptxas rejects, in jax too.)"""
    previous = fa.config.platform
    fa.config.update("platform", "cpu")
    try:
        with jax.default_device(jax.devices("cpu")[0]):
            _check_compiler_options()
    finally:
        fa.config.update("platform", previous)


def _check_compiler_options():
    from funcarray.lowering import cache

    def f(x):
        return fnp.exp(x) * 3.0

    off = {"xla_disable_all_hlo_passes": True}
    x = fnp.ones(3)
    for options, fused in ((None, True), (off, False)):
        text = fa.jit(f, compiler_options=options).lower(x).compile().as_text()
        assert ("fusion" in text) == fused
        jax_text = jax.jit(lambda x: jnp.exp(x) * 3.0, compiler_options=options).lower(
            jnp.ones(3)).compile().as_text()
        assert ("fusion" in jax_text) == fused
    assert "fusion" not in fa.jit(f).lower(x).compile(off).as_text()
    assert "fusion" in fa.jit(f).lower(x).compile().as_text()  # the plain entry is unchanged
    jitted = fa.jit(f, compiler_options=off)
    np.testing.assert_allclose(np.asarray(jitted(x)), np.exp(np.ones(3)) * 3, rtol=1e-6)
    grad = fa.grad(lambda x: jitted(x).sum())
    assert "compiler_options=(('xla_disable_all_hlo_passes', True),)" in str(fa.make_ir(grad)(x))
    np.testing.assert_allclose(np.asarray(grad(x)), np.exp(np.ones(3)) * 3, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(fa.vmap(jitted)(fnp.ones((2, 3)))),
                               np.exp(np.ones((2, 3))) * 3, rtol=1e-6)
    dev = fa.devices()[0]
    paths = {cache.persistent_path("d", "text", (), (), _compiled_device(dev), options)
             for options in ((), (("xla_disable_all_hlo_passes", True),))}
    assert len(paths) == 2
    with pytest.raises(TypeError, match="compiler option 'a' has a value of type list"):
        fa.jit(f, compiler_options={"a": [1]})
    with pytest.raises(cache_runtime().CompileError,
                       match="No such compile option: 'no_such_option'"):
        fa.jit(f, compiler_options={"no_such_option": 1})(x)
    with pytest.raises(TypeError, match="in_shardings holds int 0"):
        fa.jit(f, in_shardings=0)


def cache_runtime():
    from funcarray.lowering import runtime

    return runtime


def _compiled_device(device):
    from funcarray.lowering.devices import runtime_device

    return runtime_device(device)


def test_persistent_cache_across_processes_and_corrupt_entries(tmp_path):
    assert _run_with_cache(tmp_path) == [0, 1, 0]  # compiled and written
    assert _run_with_cache(tmp_path) == [1, 0, 0]  # loaded from disk
    (entry,) = tmp_path.glob("*.fexe")
    entry.write_bytes(entry.read_bytes()[:40] + b"garbage")
    assert _run_with_cache(tmp_path) == [0, 1, 1]  # corrupt: a miss, rewritten
    assert _run_with_cache(tmp_path) == [1, 0, 0]


# --------------------------------------------------------------------------------------------
# jit composed with the other transforms, against jax
# --------------------------------------------------------------------------------------------

X = np.linspace(-1.5, 2.0, 5)
Y = 0.7


def loss(x, y):
    return fnp.sum(smooth(x, y))


def loss_jax(x, y):
    return jnp.sum(smooth_jax(x, y))


def elementwise_loss(x):
    """Elementwise only (plus broadcasting): every primitive here has a lowering rule."""
    return smooth(x, Y)


def elementwise_loss_jax(x):
    return smooth_jax(x, Y)


def _check(got, want, rtol=1e-12):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=1e-13)


def test_jvp_of_jit_and_jit_of_jvp():
    t = np.cos(X)
    want = jax.jvp(elementwise_loss_jax, (X,), (t,))
    for f in (lambda a, b: fa.jvp(fa.jit(elementwise_loss), (a,), (b,)),
              fa.jit(lambda a, b: fa.jvp(elementwise_loss, (a,), (b,)))):
        got = f(fnp.asarray(X), fnp.asarray(t))
        _check(got[0], want[0])
        _check(got[1], want[1])


def test_vjp_through_jit_partial_evaluates():
    out, f_vjp = fa.vjp(fa.jit(elementwise_loss), fnp.asarray(X))
    assert isinstance(out, fa.Array)  # the primal half ran now, compiled (not a tracer)
    want_out, jax_vjp = jax.vjp(elementwise_loss_jax, X)
    _check(out, want_out)
    _check(f_vjp(fnp.ones(5, dtype=fnp.float64))[0], jax_vjp(np.ones(5))[0])


def test_vmap_of_jit_and_jit_of_vmap():
    xs = np.stack([X, 2 * X, -X])
    ys = np.array([0.5, 1.0, 2.0])
    want = jax.vmap(smooth_jax)(xs, ys)
    _check(fa.vmap(fa.jit(smooth))(fnp.asarray(xs), fnp.asarray(ys)), want)
    _check(fa.jit(fa.vmap(smooth))(fnp.asarray(xs), fnp.asarray(ys)), want)
    _check(fa.vmap(fa.jit(smooth), in_axes=(1, None))(fnp.asarray(xs.T), 0.5),
           jax.vmap(smooth_jax, in_axes=(1, None))(xs.T, 0.5))


def test_nested_jit_and_closures_over_outer_tracers():
    inner = fa.jit(lambda a: fnp.sin(a) * 2.0)
    outer = fa.jit(lambda a: inner(inner(a)) + inner(a))
    _check(outer(fnp.asarray(X)), 2 * np.sin(2 * np.sin(X)) + 2 * np.sin(X))

    def uses_closure(y):
        return fa.jit(lambda a: a * y + fnp.cos(y))(fnp.asarray(X))

    want = jax.jacfwd(lambda y: jax.jit(lambda a: a * y + jnp.cos(y))(X))(1.3)
    _check(fa.jacfwd(uses_closure)(fnp.float64(1.3)), want)


_BROADCASTING_BINARY_OPS = {
    "add": (lambda a, b: a + b, np.add), "mul": (lambda a, b: a * b, np.multiply),
    "sub": (lambda a, b: a - b, np.subtract), "eq": (lambda a, b: a == b, np.equal),
    "maximum": (fnp.maximum, np.maximum), "ge": (lambda a, b: a >= b, np.greater_equal),
}


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(sorted(_BROADCASTING_BINARY_OPS)),
       st.sampled_from([(3,), (2, 3), (1, 3), ()]),
       st.sampled_from(["python float", "python int", "0-d array", "row", "same shape"]),
       st.booleans())
def test_closed_over_concrete_arrays_broadcast_inside_staged_bodies(op, c_shape, other, flip):
    """A concrete array closed over by a staged function meets a scalar or an array of
    another shape *before* any tracer is involved (``x + c * 2.0``, a precomputed mask
    ``c == 0``): the staged equation must be broadcast explicitly, as eagerly NumPy does it
    implicitly (this used to fail with "needs operands of one shape")."""
    fa_op, np_op = _BROADCASTING_BINARY_OPS[op]
    c_value = np.arange(1.0, 1.0 + np.prod(c_shape, dtype=int), dtype=np.float32).reshape(
        c_shape)
    partner = {"python float": 2.0, "python int": 2, "0-d array": np.float32(2.0),
               "row": np.array([2.0, 0.0, 5.0], np.float32),
               "same shape": np.full(c_shape, 2.0, np.float32)}[other]
    c = fnp.asarray(c_value)
    fa_partner = partner if type(partner) in (float, int) else fnp.asarray(partner)

    def constant_part():
        return fa_op(fa_partner, c) if flip else fa_op(c, fa_partner)

    want = np_op(partner, c_value) if flip else np_op(c_value, partner)
    x = fnp.ones(np.shape(want), np.float32)
    np.testing.assert_array_equal(np.asarray(constant_part()), want)  # eager: the oracle
    staged = fa.jit(lambda x: (x, constant_part()))(x)[1]
    np.testing.assert_array_equal(np.asarray(staged), want)
    assert staged.dtype == np.asarray(want).dtype
    if want.dtype == np.float32:  # the same constant inside grad(scan) and vmap(cond)
        def body(h, _):
            return h * constant_part(), None

        got = fa.grad(lambda x: fa.lax.scan(body, x, None, length=2)[0].sum())(x)
        np.testing.assert_allclose(np.asarray(got), np.broadcast_to(want * want, x.shape))
        pick = fa.vmap(lambda p, x: fa.lax.cond(p, lambda x: x + constant_part(),
                                                  lambda x: x, x))
        got = pick(fnp.array([True, False]), fnp.stack([x, x]))
        np.testing.assert_allclose(np.asarray(got), np.stack([1.0 + want, np.ones_like(want)]))


def test_grad_of_jit_is_compiled_and_matches_jax():
    f = fa.jit(elementwise_loss)
    g = fa.jit(fa.jacrev(f))
    _check(g(fnp.asarray(X)), jax.jacrev(elementwise_loss_jax)(X))
    _check(fa.jacfwd(fa.jacrev(f))(fnp.asarray(X)),
           jax.jacfwd(jax.jacrev(elementwise_loss_jax))(X))


def test_scalar_grad_and_hessian_through_jit():
    def h(x):
        return fnp.sin(x) * fnp.exp(x) / (1.0 + x * x)

    def h_jax(x):
        return jnp.sin(x) * jnp.exp(x) / (1.0 + x * x)

    jh = fa.jit(h)
    x0 = fnp.float64(0.3)
    _check(fa.grad(jh)(x0), jax.grad(h_jax)(0.3))
    _check(fa.grad(fa.grad(jh))(x0), jax.grad(jax.grad(h_jax))(0.3))
    _check(fa.jit(fa.grad(fa.jit(fa.grad(jh))))(x0), jax.grad(jax.grad(h_jax))(0.3))
    _check(fa.vmap(fa.grad(jh))(fnp.asarray(X)), jax.vmap(jax.grad(h_jax))(X))


def test_eager_backend_xla_runs_each_op_compiled():
    skip_unless_numpy_eager()
    from funcarray.transforms.core import EVAL_TRACE, EvalTrace

    x = fnp.linspace(-2.0, 2.0, 7)
    want = {"y": fnp.tanh(x) * 3.0 + fnp.exp(x[None, :] * fnp.ones((2, 1)))}
    assert fa.config.eager_backend == "auto"
    fa.config.update("eager_backend", "xla")
    try:
        assert type(EVAL_TRACE).__name__ == "XlaEvalTrace"
        got = {"y": fnp.tanh(x) * 3.0 + fnp.exp(x[None, :] * fnp.ones((2, 1)))}
        grad = fa.grad(lambda v: fnp.sin(v) * v)(fnp.float32(0.5))
    finally:
        fa.config.update("eager_backend", "auto")
    assert type(EVAL_TRACE) is EvalTrace
    fa.testing.assert_trees_allclose(got, want)
    np.testing.assert_allclose(float(grad), np.sin(0.5) + 0.5 * np.cos(0.5), rtol=1e-6)
    with pytest.raises(ValueError, match="'auto', 'numpy' or 'xla'"):
        fa.config.update("eager_backend", "torch")


def test_eager_fast_paths_defer_to_the_xla_eager_backend():
    """`a @ b`, `a + b` and `tanh(a)` call NumPy kernels directly only with the NumPy eager
    backend: with "xla" each still runs as a compiled single-op executable."""
    skip_unless_numpy_eager()
    from funcarray.transforms.core import running_numpy_kernels

    a, b = fnp.ones((3, 5)) * 0.5, fnp.ones((5, 3)) * 0.25  # shapes no other test compiles
    assert running_numpy_kernels()
    fa.config.update("eager_backend", "xla")
    try:
        assert not running_numpy_kernels()
        with fa.testing.count_compiles() as counter:
            out = fnp.tanh(a @ b + a @ b)
    finally:
        fa.config.update("eager_backend", "auto")
    assert counter.count == 3  # dot_general, add, tanh
    fa.testing.assert_allclose(out, np.tanh(np.full((3, 3), 1.25, np.float32)))
    seen = []
    fa.vmap(lambda x: seen.append(running_numpy_kernels()) or x)(a)
    fa.grad(lambda x: seen.append(running_numpy_kernels()) or x)(1.0)
    assert seen == [False, False]


def test_eager_ops_on_device_arrays_take_the_host_fast_paths():
    """jit outputs and device_put arrays in eager code: with NumPy kernels, binary operators
    and matmul read their host value (results, dtypes and weak types as with host arrays, no
    compile); with the XLA eager backend they stay device operands (each op compiles)."""
    skip_unless_numpy_eager()
    host = {"a": fnp.arange(6.0).reshape(2, 3), "b": fnp.arange(3.0), "w": fnp.ones((3, 2)),
            "i": fnp.arange(3), "weak": fa.Array(np.float32(2.0), True)}
    dev = fa.device_put(host, fa.devices("cpu")[0])  # (on a GPU: eager ops switch to XLA)
    assert all(type(v) is DeviceArray for v in dev.values())
    expressions = [lambda p: p["a"] + p["b"], lambda p: p["a"] * 2.0, lambda p: 3 - p["b"],
                   lambda p: p["b"] @ p["w"], lambda p: p["a"] @ p["w"],
                   lambda p: p["a"] * p["weak"], lambda p: p["weak"] + 1.0,
                   lambda p: p["i"] + 1, lambda p: p["i"] * p["b"], lambda p: p["b"] > 1.0]
    for expression in expressions:
        want = expression(host)
        for args in ({**host, "a": dev["a"], "b": dev["b"]}, dev):
            with fa.testing.count_compiles() as counter:
                got = expression(args)
            assert counter.count == 0
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
            assert (got.dtype, got.weak_type) == (want.dtype, want.weak_type)
    fa.config.update("eager_backend", "xla")
    try:
        with fa.testing.count_compiles() as counter:
            got = dev["a"] * 7.0 + dev["b"]  # shapes and constants no other test compiles
    finally:
        fa.config.update("eager_backend", "auto")
    assert counter.count > 0 and type(got) is DeviceArray  # (multiply, add, two broadcasts)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(host["a"] * 7.0 + host["b"]))


def test_auto_eager_backend_switches_to_xla_once_an_accelerator_is_used():
    skip_unless_numpy_eager()
    from funcarray.lowering import executor
    from funcarray.transforms.core import EVAL_TRACE, EvalTrace

    class FakeAccelerator:
        platform = "gpu"

    executor._note_accelerator(runtime_cpu_device())  # the CPU: nothing changes
    assert type(EVAL_TRACE) is EvalTrace
    try:
        executor._note_accelerator(FakeAccelerator())
        assert type(EVAL_TRACE).__name__ == "XlaEvalTrace"
    finally:
        fa.config.update("eager_backend", "auto")
    assert type(EVAL_TRACE) is EvalTrace


def runtime_cpu_device():
    from funcarray.lowering.devices import runtime_device

    return runtime_device(fa.devices("cpu")[0])


def test_unknown_platform_is_a_clear_error():
    fa.config.update("platform", "no_such_platform")
    try:
        with pytest.raises(RuntimeError, match="platform 'no_such_platform' is not available"):
            fa.jit(fnp.sin)(fnp.ones(2))
    finally:
        fa.config.update("platform", "")
    assert float(fa.jit(fnp.cos)(fnp.zeros(1))[0]) == 1.0


def test_donation_marks_buffers_and_invalidates_device_only_arrays():
    step = fa.jit(lambda p, g: p - 0.5 * g, donate_argnums=0)
    text = step.lower(fnp.ones(3), fnp.ones(3)).as_text()
    assert "%arg0: tensor<3xf32> {jax.buffer_donor = true}" in text
    assert "%arg1: tensor<3xf32>)" in text

    params = fa.jit(lambda x: x * 2.0)(fnp.ones(3))  # lives on the device only
    new = step(params, fnp.ones(3))
    np.testing.assert_array_equal(np.asarray(new), [1.5, 1.5, 1.5])
    with pytest.raises(RuntimeError, match="donated to a jitted function"):
        np.asarray(params)

    seen = fa.jit(lambda x: x + 1.0)(fnp.zeros(3))
    host_view = np.asarray(seen)  # fetched before donating: must not change afterwards
    step(seen, fnp.ones(3))
    np.testing.assert_array_equal(host_view, [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(np.asarray(seen), [1.0, 1.0, 1.0])

    with pytest.raises(RuntimeError, match=r"argument leaf 0 \(float32\[3\]\) was donated to an "
                       r"earlier jitted call.*Pass that call's outputs instead"):
        step(params, fnp.ones(3))  # (XLA's own message: "Buffer has been deleted or donated")

    host = fnp.arange(3.0)  # a NumPy-kernel eager array keeps its value; reusable
    np.testing.assert_array_equal(np.asarray(step(host, fnp.ones(3))), [-0.5, 0.5, 1.5])
    if type(host) is DeviceArray:  # eager ops ran through XLA (an accelerator): donated
        with pytest.raises(RuntimeError, match="was donated"):
            step(host, fnp.ones(3))
    else:
        np.testing.assert_array_equal(np.asarray(step(host, fnp.ones(3))), [-0.5, 0.5, 1.5])

    by_name = fa.jit(lambda p, g: p - g, donate_argnames="p")
    assert "{jax.buffer_donor = true}" in by_name.lower(p=fnp.ones(2), g=fnp.ones(2)).as_text()


def test_a_device_array_whose_value_is_read_becomes_an_array_that_keeps_its_buffer():
    y = fa.jit(lambda x: x * 2.0)(fa.Array(np.ones(3, np.float32), True))
    assert type(y) is DeviceArray and y.weak_type
    buffer, device = y._buf, y.device
    np.testing.assert_array_equal(np.asarray(y), [2.0, 2.0, 2.0])
    # (an Array from now on: eager code takes the host arrays' paths, whose attribute reads
    # CPython specialises, which it does not for a class with __getattr__)
    assert type(y) is fa.Array and y._buf is buffer and y.device == device
    assert (y.shape, y.dtype, y.weak_type) == ((3,), np.float32, True)
    np.testing.assert_array_equal(fnp.sin(y), np.sin(np.full(3, 2.0, np.float32)))
    np.testing.assert_array_equal(fa.jit(lambda x: x + 1.0)(y), [3.0, 3.0, 3.0])
    assert y._buf is buffer  # passed to jit again: its buffer as it is, no copy


def test_numpy_array_arguments_of_any_shape():
    out = fa.jit(lambda x, y: x + y)(np.ones((2, 3), np.float32), np.ones(3, np.float32))
    np.testing.assert_array_equal(np.asarray(out), np.full((2, 3), 2.0, np.float32))


def test_fast_path_for_containers_keeps_pytree_semantics():
    f = fa.jit(lambda p, xs, y: p["b"] * 10.0 + p["a"] + xs[0] - y)
    a, b, one = fnp.full(2, 5.0), fnp.ones(2), fnp.ones(2)
    want = np.full(2, 15.0, np.float32)
    for args in [({"a": a, "b": b}, [one], one), ({"b": b, "a": a}, [one], one),
                 ({"a": a, "b": b}, [one], one)]:
        np.testing.assert_array_equal(np.asarray(f(*args)), want)
    assert f.cache_info()[:2] == (2, 1)  # key order does not matter (leaves are sorted)
    np.testing.assert_array_equal(np.asarray(f({"a": a, "b": b}, (one,), one)), want)
    assert f.cache_info().misses == 2  # a tuple is another structure than a list
    with pytest.raises(TypeError, match="argument leaf 1 is a str"):
        f({"a": a, "b": "x"}, [one], one)


def test_fast_path_guard_tells_every_signature_apart():
    """Calls alternating between signatures that differ only in dtype of the same size
    (jaxlib would reinterpret the bits), weak_type, shape, dict key order, container type or
    host vs device arrays: each result is right and each signature compiles once."""
    f = fa.jit(lambda x, p: x * 3 + p["w"] - p["b"])
    i32, f32 = fnp.arange(4, dtype=fnp.int32), fnp.arange(4.0, dtype=fnp.float32)
    weak = fa.Array(np.arange(4.0, dtype=np.float32), True)
    on_device = fa.jit(lambda x: x + 0.0)(f32)  # a DeviceArray, same type as f32
    i32_on_device = fa.device_put(i32)
    # Same type as f32 but with an aval of its own (not the canonical one the guard expects):
    # recognised by value.
    own_aval = device_array(on_device._buf[0], on_device._buf[1],
                            ShapedArray((4,), np.float32, False))
    assert own_aval._aval is not on_device._aval
    variants = {
        "int32": (i32, {"w": i32, "b": i32 * 0}),
        "float32": (f32, {"w": f32, "b": f32 * 0}),
        "weak": (weak, {"w": weak, "b": weak * 0}),
        "shape": (fnp.ones(3), {"w": fnp.ones(3), "b": fnp.zeros(3)}),
        "key order": (f32, {"b": f32 * 0, "w": f32}),
        "device": (on_device, {"w": on_device, "b": on_device * 0}),
        "int32 device": (i32_on_device, {"w": i32_on_device, "b": i32 * 0}),
        "device, own aval": (own_aval, {"w": own_aval, "b": on_device * 0}),
    }
    rng = np.random.default_rng(0)
    for name in rng.choice(list(variants), 60):
        x, p = variants[name]
        got = f(x, p)
        want = np.asarray(x) * 3 + np.asarray(p["w"]) - np.asarray(p["b"])
        np.testing.assert_array_equal(np.asarray(got), want)
        assert got.dtype == want.dtype, name
        assert got.weak_type == (name == "weak"), name
    # key order and host/device are the same signature as float32 (int32 as int32)
    assert f.cache_info().misses == 4
    assert f.cache_info().hits == 60 - 4


@pytest.mark.parametrize("structure", ["positional", "one dict", "dict and list",
                                       "list of tuples", "nested dict"])
def test_fast_path_guard_structures_and_leaf_kinds(structure):
    """The guard's three structure steps (only positional arrays, a single dict, anything
    else), each with leaves that take its lean step (DeviceArrays with the canonical aval,
    host arrays with a cached buffer) and leaves that take the full check (a host array never
    passed to jit, an aval of its own, a wrong dtype): right results, one compile per type."""
    f32 = fa.device_put(fnp.arange(3.0, dtype=fnp.float32))
    own_aval = device_array(f32._buf[0], f32._buf[1], ShapedArray((3,), np.float32, False))

    def pack(a, b, c):
        return {"positional": (a, b, c), "one dict": ({"a": a, "b": b, "c": c},),
                "dict and list": ({"a": a, "b": b}, [c]),
                "list of tuples": ([(a, b), (c,)],),  # an MLP's [(w, b), ...]
                "nested dict": ({"l2": {"b": b, "a": a}, "l1": {"c": c}},)}[structure]

    f = fa.jit(lambda *args: fa.tree.reduce(lambda u, v: u * 2 + v, args))
    rng = np.random.default_rng(1)
    kinds = ["device", "host cached", "host new", "own aval", "int32"]
    host = fnp.arange(3.0, dtype=fnp.float32) + 1
    i32_host = fnp.arange(3, dtype=fnp.int32) + 7
    dtype_patterns = set()
    for picks in rng.choice(kinds, (40, 3)):
        leaves = []
        for i, kind in enumerate(picks):
            if kind == "device":
                leaves.append(f32 + i)
            elif kind == "host cached":
                leaves.append(host)
            elif kind == "host new":
                leaves.append(fnp.asarray(np.arange(3, dtype=np.float32) * i))
            elif kind == "own aval":
                leaves.append(own_aval)
            else:  # a host array reused (its buffer cached): the lean step's dtype check
                leaves.append(i32_host)
        dtype_patterns.add(tuple(kind == "int32" for kind in picks))
        args = pack(*leaves)
        want = fa.tree.reduce(lambda u, v: u * 2 + v, fa.tree.map(np.asarray, args))
        got = f(*args)
        np.testing.assert_array_equal(np.asarray(got), want)
        assert got.dtype == (np.int32 if all(k == "int32" for k in picks) else np.float32)
    assert f.cache_info().misses == len(dtype_patterns)  # one compile per dtype pattern
    assert f.cache_info().hits == 40 - len(dtype_patterns)


def test_fast_path_takes_nested_containers_and_tells_structures_apart():
    """Parameters as ``[(w, b), ...]`` or nested dicts take the fast path (their signature is
    in its table after the first call); a call with another nesting, tuple length or inner
    key is another signature with its own result, never the compiled one's."""
    from funcarray.api.jit_dispatch import fast_signature

    one = fa.device_put(fnp.ones(2))
    f = fa.jit(lambda p, x: fa.tree.reduce(lambda u, v: u * 3 + v, (p, x)))
    calls = [([(one, one * 2), (one * 3, one * 4)], one),
             ([(one, one * 2), (one * 3,)], one),  # a shorter inner tuple
             ([[one, one * 2], (one * 3, one * 4)], one),  # a list where a tuple was
             ({"a": {"w": one, "b": one * 2}}, one),
             ({"a": {"w": one, "c": one * 2}}, one),  # another inner key
             ({"a": {"b": one * 2, "w": one}}, one)]  # the same keys in another order
    for args in calls * 3:
        want = fa.tree.reduce(lambda u, v: u * 3 + v, fa.tree.map(np.asarray, args))
        np.testing.assert_array_equal(np.asarray(f(*args)), want)
        assert fast_signature(args)[0] in f._jit_state._fast.table
    assert f.cache_info().misses == 5  # the last dict is the fourth one's signature
    deep = [[[[[one]]]]]  # nested deeper than the fast path goes: the general path
    assert fast_signature((deep,)) is None
    np.testing.assert_array_equal(np.asarray(f(deep, one)), np.full(2, 4.0))


def test_fast_path_dict_with_other_keys_misses():
    """A dict argument with as many keys as the compiled one but other names is another
    signature (the guard's key lookup fails), never the compiled one's values."""
    g = fa.jit(lambda p: p["a"] - p["b"])
    one = fa.device_put(fnp.ones(3))
    np.testing.assert_array_equal(np.asarray(g({"a": one, "b": one * 2})), -np.ones(3))
    np.testing.assert_array_equal(np.asarray(g({"b": one * 2, "a": one * 5})), np.full(3, 3.0))
    assert g.cache_info()[:2] == (1, 1)
    with pytest.raises(KeyError):
        g({"a": one, "x": one})


def test_fast_path_with_constants_and_several_outputs():
    w = fnp.arange(3.0)
    f = fa.jit(lambda x: {"sum": x + w, "prod": [x * w, x - w]})
    for scale in (1.0, 2.0, 3.0):
        out = f(fnp.ones(3) * scale)
        np.testing.assert_array_equal(np.asarray(out["sum"]), scale + np.arange(3.0))
        np.testing.assert_array_equal(np.asarray(out["prod"][1]), scale - np.arange(3.0))
    assert f.cache_info()[:2] == (2, 1)
