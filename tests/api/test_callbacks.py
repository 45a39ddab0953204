"""Host callbacks: funcarray.debug.print / debug.callback and pure_callback, eagerly, under
jit (compiled code calling back into Python), vmap, grad and control flow, against jax's
printed output and Python-loop oracles; the runtime call they rest on; their errors."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from helpers import numpy_eager

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import lax
from funcarray.lowering import cache, runtime
from funcarray.testing import assert_allclose

F32 = fa.ShapeDtypeStruct((), np.float32)


def printing(debug, xp):
    def f(x):
        debug.print("x={x} total={t}", x=x, t=xp.sum(x))
        return x * 2.0
    return f


@pytest.mark.parametrize("transform", ["eager", "jit", "vmap", "grad", "jit_grad", "jit_vmap",
                                       "vmap_jit"])
def test_debug_print_matches_jax(transform, capsys):
    x = np.arange(3.0, dtype=np.float32)
    wrap = {
        "eager": lambda lib, f: f,
        "jit": lambda lib, f: lib.jit(f),
        "vmap": lambda lib, f: lib.vmap(f),
        "grad": lambda lib, f: lib.grad(lambda v: f(v).sum()),
        "jit_grad": lambda lib, f: lib.jit(lib.grad(lambda v: f(v).sum())),
        "jit_vmap": lambda lib, f: lib.jit(lib.vmap(f)),
        "vmap_jit": lambda lib, f: lib.vmap(lib.jit(f)),
    }[transform]
    jax.block_until_ready(wrap(jax, printing(jax.debug, jnp))(x))
    jax.effects_barrier()
    want = capsys.readouterr().out
    fa.block_until_ready(wrap(fa, printing(fa.debug, fnp))(fnp.asarray(x)))
    got = capsys.readouterr().out
    assert got == want and got


def test_debug_print_inside_compiled_control_flow(capsys):
    def f(xs):
        def step(carry, x):
            fa.debug.print("step carry={} x={}", carry, x)
            return carry + x, None
        total, _ = lax.scan(step, 0.0, xs)
        lax.cond(total > 2, lambda: fa.debug.print("big {}", total),
                 lambda: fa.debug.print("small {}", total))
        return total

    fa.jit(f)(fnp.arange(3.0))
    assert capsys.readouterr().out.splitlines() == [
        "step carry=0.0 x=0.0", "step carry=0.0 x=1.0", "step carry=1.0 x=2.0", "big 3.0"]


def test_debug_callback_runs_for_its_effect_and_receives_numpy():
    seen = []
    f = fa.jit(lambda x, t: fa.debug.callback(lambda a, b: seen.append((a, b["k"])), x,
                                              {"k": t}) or x + 1)
    out = f(fnp.ones(2), fnp.asarray(3, dtype=np.int32))  # the callback's result is unused
    assert_allclose(out, [2.0, 2.0])
    ((a, b),) = seen
    assert isinstance(a, np.ndarray) and a.dtype == np.float32 and a.shape == (2,)
    assert b.dtype == np.int32 and int(b) == 3


def test_two_modules_differing_only_in_their_callback(capsys):
    """The same StableHLO text with different Python functions behind index 0: the
    executable cache must not hand one module the other's callback."""
    fa.jit(lambda x: fa.debug.print("first {}", x) or x)(fnp.ones(1))
    fa.jit(lambda x: fa.debug.print("second {}", x) or x)(fnp.ones(1))
    assert capsys.readouterr().out.splitlines() == ["first [1.]", "second [1.]"]


def test_modules_with_callbacks_skip_the_persistent_cache(tmp_path, capsys):
    previous = (fa.config.compilation_cache_dir, fa.config.persistent_cache_min_compile_time_secs)
    fa.config.update("compilation_cache_dir", str(tmp_path))
    fa.config.update("persistent_cache_min_compile_time_secs", 0.0)
    try:
        with numpy_eager():  # (XLA eager ops would write entries of their own)
            fa.jit(lambda x: fa.debug.print("cached? {}", x) or x * 3.0)(fnp.ones(1))
            assert list(tmp_path.glob("*.fexe")) == []
            fa.jit(lambda x: x * 5.0)(fnp.ones(1))
            assert len(list(tmp_path.glob("*.fexe"))) == 1
    finally:
        fa.config.update("compilation_cache_dir", previous[0])
        fa.config.update("persistent_cache_min_compile_time_secs", previous[1])
    assert capsys.readouterr().out == "cached? [1.]\n"


def host_logsumexp(x, axis):
    m = x.max(axis=axis, keepdims=True)
    return (np.log(np.exp(x - m).sum(axis=axis)) + m.squeeze(axis)).astype(x.dtype)


@pytest.mark.parametrize("vmap_method", ["sequential", "sequential_unrolled", "expand_dims",
                                         "broadcast_all"])
def test_pure_callback_under_jit_and_vmap(vmap_method):
    rng = np.random.default_rng(0)
    xs, w = rng.normal(size=(4, 3)).astype(np.float32), np.float32(2.0)

    def f(x, w):
        out = fa.ShapeDtypeStruct(x.shape[:-1], x.dtype)
        # (b is 0-d per member, (1,) with expand_dims, (4,) with broadcast_all)
        return fa.pure_callback(lambda a, b: host_logsumexp(a * np.expand_dims(b, -1), -1),
                                out, x, w, vmap_method=vmap_method)

    want = np.stack([host_logsumexp(r * w, -1) for r in xs])
    assert_allclose(f(fnp.asarray(xs), w), host_logsumexp(xs * w, -1))
    assert_allclose(fa.vmap(f, in_axes=(0, None))(fnp.asarray(xs), w), want)
    assert_allclose(fa.jit(fa.vmap(f, in_axes=(0, None)))(fnp.asarray(xs), w), want)
    assert_allclose(fa.vmap(fa.jit(f), in_axes=(0, None))(fnp.asarray(xs), w), want)


def test_pure_callback_pytrees_keywords_and_custom_jvp():
    def host(tree, scale):
        return {"s": np.sin(tree["a"]) * scale, "n": np.int32(tree["b"].size)}

    out_types = {"s": fa.ShapeDtypeStruct((2,), np.float32),
                 "n": fa.ShapeDtypeStruct((), np.int32)}
    f = fa.jit(lambda a, b: fa.pure_callback(host, out_types, {"a": a, "b": b},
                                             scale=np.float32(2.0)))
    out = f(fnp.asarray([0.0, 1.0]), fnp.ones(5))
    assert_allclose(out["s"], (2.0 * np.sin([0.0, 1.0])).astype(np.float32))
    assert int(out["n"]) == 5

    @fa.custom_jvp
    def host_sin(x):
        return fa.pure_callback(lambda v: np.sin(v), fa.ShapeDtypeStruct(x.shape, x.dtype), x)

    host_sin.defjvp(lambda p, t: (host_sin(p[0]), fnp.cos(p[0]) * t[0]))
    x = fnp.asarray([0.3, 1.2])
    assert_allclose(fa.jit(fa.grad(lambda v: host_sin(v).sum()))(x), np.cos(np.asarray(x)))


def test_callback_errors():
    x64 = fnp.asarray(1.0, dtype=np.float64)
    wrong_dtype = lambda x: fa.pure_callback(lambda v: v * 2, F32, x)  # noqa: E731
    with pytest.raises(TypeError, match="dtype float64, but result_shape_dtypes declares"):
        wrong_dtype(x64)
    with pytest.raises(TypeError, match="dtype float64, but result_shape_dtypes") as info:
        # the callback's own error, not XLA's "CpuCallback error"; raised by the call on the
        # CPU, where the result is read on an accelerator (its computation runs after the
        # call returns, as in jax)
        np.asarray(fa.jit(wrong_dtype)(x64))
    assert "raised by a Python callback" in "".join(info.value.__notes__)
    with pytest.raises(ZeroDivisionError):
        fa.jit(lambda x: fa.debug.callback(lambda v: 1 / 0, x) or x)(x64).block_until_ready()
    with pytest.raises(TypeError, match="returned 2 arrays, result_shape_dtypes declares 1"):
        two = fa.jit(lambda x: fa.pure_callback(lambda v: (v, v), F32, x))
        two(fnp.ones(())).block_until_ready()
    with pytest.raises(NotImplementedError, match="vmap of a pure_callback needs vmap_method"):
        fa.vmap(lambda x: fa.pure_callback(lambda v: v, F32, x))(fnp.ones(3))
    with pytest.raises(ValueError, match="pure callbacks have no derivative.*custom_jvp"):
        fa.grad(lambda x: fa.pure_callback(lambda v: v, F32, x))(fnp.ones(()))
    with pytest.raises(ValueError, match="vmap_method must be None or one of"):
        fa.pure_callback(lambda v: v, F32, x64, vmap_method="loop")
    with pytest.raises(TypeError, match="result_shape_dtypes must be a pytree of objects"):
        fa.pure_callback(lambda v: v, 3.0, x64)
    with pytest.raises(TypeError, match="debug.print: the format must be a string"):
        fa.debug.print(3, x64)


def test_ordered_debug_prints_keep_program_order_like_jax(capsys):
    """Prints between computations they do not depend on: XLA reorders unordered ones;
    ordered=True keeps jax's (program) order."""
    def program(lib, xp):
        def f(x):
            total = x
            for k in range(12):
                y = xp.sin(x * k)
                lib.debug.print("step {}", k, ordered=True)
                total = total + y
            return total
        return lib.jit(f)(xp.ones(4))

    jax.block_until_ready(program(jax, jnp))
    want = capsys.readouterr().out
    program(fa, fnp).block_until_ready()
    assert capsys.readouterr().out == want == "".join(f"step {k}\n" for k in range(12))


def test_callback_errors_surface_in_their_own_call_only():
    """Threads calling one jitted function at once, whose callback raises for some values:
    each failing call raises the exception its own callback raised (naming its value), a
    call whose callback succeeded never raises, and nothing is left for a later call."""
    import threading
    import time

    def check(v):
        time.sleep(0.0005)  # (lets the threads' callbacks interleave)
        if v > 0:
            raise ValueError(f"rejected {float(v)}")
        return v

    f = fa.jit(lambda x: fa.pure_callback(check, F32, x) + 1.0)
    barrier = threading.Barrier(3)
    seen = {}

    def work(value):
        barrier.wait()
        outcomes = []
        for _ in range(60):
            try:
                outcomes.append(float(f(fnp.float32(value))))
            except ValueError as exc:
                outcomes.append(str(exc))
        seen[value] = set(outcomes)

    threads = [threading.Thread(target=work, args=(v,)) for v in (1.0, 2.0, -1.0)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == {1.0: {"rejected 1.0"}, 2.0: {"rejected 2.0"}, -1.0: {0.0}}
    assert float(f(fnp.float32(-3.0))) == -2.0
    assert len(runtime._callback_errors) == 0


def test_runtime_compiles_a_module_with_host_callbacks():
    """The jaxlib call itself (issue 4's smoke test per runtime call)."""
    seen = []
    target = runtime.host_callback_target("cpu")
    text = f"""module @cb {{ func.func public @main(%x: tensor<2xf32>) -> tensor<2xf32> {{
      "stablehlo.custom_call"(%x) {{api_version = 4 : i32, backend_config = {{index = 0 : ui64}},
        call_target_name = "{target}", has_side_effect = true}} : (tensor<2xf32>) -> ()
      %s = "stablehlo.custom_call"(%x) {{api_version = 4 : i32,
        backend_config = {{index = 1 : ui64}}, call_target_name = "{target}"}}
        : (tensor<2xf32>) -> tensor<2xf32>
      return %s : tensor<2xf32> }} }}"""
    f32 = fa.ShapeDtypeStruct((2,), np.float32)
    exe = runtime.compile(text, [f32], [f32], runtime.devices("cpu")[0], host_callbacks=[
        lambda x: seen.append(x.copy()) or (), lambda x: (np.cos(x).astype(np.float32),)])
    (out,) = runtime.execute(exe, [np.array([0.0, 1.0], np.float32)])
    assert_allclose(np.asarray(out), np.cos([0.0, 1.0]).astype(np.float32))
    assert [s.tolist() for s in seen] == [[0.0, 1.0]]
    assert runtime.host_callback_target(None) is None
    assert cache.lowered_module(fa.make_ir(lambda v: v)(fnp.ones(1)).closed)[1] == ()


def test_callback_results_feeding_a_lapack_kernel_keep_their_layout():
    # The native solve asks XLA for a column-major operand; the callback's result layout is
    # pinned row-major (as JAX does), so XLA transposes instead of misreading the buffer.
    a = np.random.default_rng(0).normal(size=(4, 4)) + 4 * np.eye(4)
    d = np.arange(4.0)

    def f(x, rhs):
        copied = fa.pure_callback(lambda v: np.asarray(v) * 1.0,
                                  jax.ShapeDtypeStruct(x.shape, x.dtype), x)
        return fnp.linalg.solve(copied, rhs)

    assert_allclose(fa.jit(f)(fnp.asarray(a), fnp.asarray(d)), np.linalg.solve(a, d),
                    rtol=1e-10)
