"""Checks of jit over 8 CPU devices (in_shardings, out_shardings, arguments split over
devices, with_sharding_constraint, data- and tensor-parallel MLPs) against jax's same
programs (run by test_sharded_jit.py in a subprocess: see multi_device.py)."""

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import NamedSharding as JNamedSharding
from jax.sharding import PartitionSpec as JP

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import lax
from funcarray.sharding import AxisType, NamedSharding, SingleDeviceSharding

P = fa.P


def _meshes(shape=(2, 4), names=("a", "b")):
    mesh = fa.make_mesh(shape, names, (AxisType.Auto,) * len(shape))
    jmesh = jax.make_mesh(shape, names, (jax.sharding.AxisType.Auto,) * len(shape))
    return mesh, jmesh


def _pair(mesh, jmesh, spec):
    return NamedSharding(mesh, spec), JNamedSharding(jmesh, JP(*spec))


def _same_layout(mine, theirs, ndim):
    """funcarray's sharding lays arrays out as jax's does."""
    assert isinstance(mine, NamedSharding), mine
    jspec = tuple(theirs.spec) + (None,) * (ndim - len(theirs.spec))
    spec = tuple(mine.spec) + (None,) * (ndim - len(mine.spec))
    norm = [() if p is None else (p,) if isinstance(p, str) else tuple(p) for p in spec]
    jnorm = [() if p is None else (p,) if isinstance(p, str) else tuple(p) for p in jspec]
    assert norm == jnorm, (mine, theirs)


_SDY = re.compile(r"#sdy\.sharding<@mesh, \[[^\]]*\]>")


def _signature_shardings(text):
    """The sdy.sharding attributes of @main's parameters and results, in order."""
    line = next(ln for ln in text.splitlines() if "func.func public @main" in ln)
    return _SDY.findall(line)


def _f(np_):
    def f(x, w):
        return np_.tanh(x @ w) + x.sum()
    return f


IN_OUT = [
    ((P("a", "b"), P("b", None)), P("a")),
    ((P("a"), P()), P(None, "b")),
    ((P(None, ("a", "b")), P(("a", "b"))), P()),
    ((P("b", "a"), P(None, "a")), None),
    ((P(), P()), P("a", "b")),
]


def check_in_out_shardings_match_jax():
    mesh, jmesh = _meshes()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 16)).astype(np.float32)
    w = rng.standard_normal((16, 8)).astype(np.float32)
    for in_specs, out_spec in IN_OUT:
        ins = [_pair(mesh, jmesh, s) for s in in_specs]
        out = None if out_spec is None else _pair(mesh, jmesh, out_spec)
        f = fa.jit(_f(fnp), in_shardings=tuple(m for m, _ in ins),
                   out_shardings=None if out is None else out[0])
        jf = jax.jit(_f(jnp), in_shardings=tuple(j for _, j in ins),
                     out_shardings=None if out is None else out[1])
        y, jy = f(x, w), jf(x, w)
        np.testing.assert_allclose(np.asarray(y), np.asarray(jy), rtol=2e-5, atol=2e-5)
        _same_layout(y.sharding, jy.sharding, 2)
        text, jtext = f.lower(x, w).as_text(), jf.lower(x, w).as_text()
        assert 'sdy.mesh @mesh = <["a"=2, "b"=4]>' in text
        assert "mhlo.num_partitions = 8" in text
        assert _signature_shardings(text) == _signature_shardings(jtext), (text, jtext)
        compiled = f.lower(x, w).compile()
        _same_layout(compiled.output_shardings, jf.lower(x, w).compile().output_shardings, 2)


def check_sharded_arguments_are_partitioned_that_way():
    mesh, jmesh = _meshes()
    x = np.arange(128.0, dtype=np.float32).reshape(8, 16)
    for spec in [P("a", "b"), P("b"), P(None, ("a", "b")), P()]:
        s, js = _pair(mesh, jmesh, spec)
        xs, jxs = fa.device_put(x, s), jax.device_put(x, js)
        for fn in [lambda v: v * 2, lambda v: v.sum(0), lambda v: (v @ v.T).sum(1)]:
            f, jf = fa.jit(fn), jax.jit(fn)
            y, jy = f(xs), jf(jxs)
            np.testing.assert_allclose(np.asarray(y), np.asarray(jy), rtol=1e-6)
            _same_layout(y.sharding, jy.sharding, y.ndim)
            assert _signature_shardings(f.lower(xs).as_text())[:1] == \
                _signature_shardings(jf.lower(jxs).as_text())[:1]


def check_mixed_placements_and_single_device_results():
    mesh, _ = _meshes()
    x = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    xs = fa.device_put(x, NamedSharding(mesh, P("a")))
    f = fa.jit(lambda a, b: a + b)
    # a host array and an array on one device are placed where the executable wants them
    for other in [x, fnp.asarray(x), fa.device_put(x, fa.devices()[5])]:
        y = f(xs, other)
        np.testing.assert_array_equal(np.asarray(y), 2 * x)
        assert isinstance(y.sharding, NamedSharding)
    y = fa.jit(lambda a: a * 2)(x)
    assert y.sharding == SingleDeviceSharding(fa.devices()[0])  # nothing sharded: one device


def check_dispatch_cache_and_fast_path():
    mesh, _ = _meshes()
    x = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    s1, s2 = NamedSharding(mesh, P("a")), NamedSharding(mesh, P("b"))
    a, b = fa.device_put(x, s1), fa.device_put(x, s2)
    f = fa.jit(lambda v: v * 3)
    for _ in range(3):
        np.testing.assert_array_equal(np.asarray(f(a)), 3 * x)
    assert (f.cache_info().hits, f.cache_info().misses) == (2, 1)
    for _ in range(2):  # another sharding of the same type: its own entry, never the first
        y = f(b)
        assert y.sharding.spec == P("b")
    y = f(x)  # unsharded: a single-device executable
    assert isinstance(y.sharding, SingleDeviceSharding)
    assert f(a).sharding.spec == P("a")
    assert f.cache_info().misses == 3
    g = fa.jit(lambda v, w: v @ w, in_shardings=(s1, NamedSharding(mesh, P())),
               out_shardings=s1)
    w = np.ones((4, 4), np.float32)
    for _ in range(3):
        y = g(x, w)
        np.testing.assert_array_equal(np.asarray(y), x @ w)
        assert y.sharding == s1
    assert g.cache_info().misses == 1
    # a training loop: host arrays first, then the sharded outputs fed back in
    step = fa.jit(lambda p, v: p - 0.5 * v, in_shardings=(s1, s1), out_shardings=s1)
    params, grads = np.ones((8, 4), np.float32), np.ones((8, 4), np.float32)
    for _ in range(4):
        params = step(params, grads)
    np.testing.assert_array_equal(np.asarray(params), -np.ones((8, 4)))
    assert params.sharding == s1
    assert (step.cache_info().hits, step.cache_info().misses) == (3, 1)


def check_pytree_prefix_shardings():
    mesh, _ = _meshes()
    s = NamedSharding(mesh, P("a"))
    params = {"w": np.ones((8, 4), np.float32), "b": np.ones(8, np.float32)}
    f = fa.jit(lambda p, x: {"y": p["w"] * x, "z": p["b"]}, in_shardings=(s, None),
               out_shardings={"y": NamedSharding(mesh, P(None, "b")), "z": s})
    out = f(params, np.float32(2.0))
    assert out["y"].sharding.spec == P(None, "b") and out["z"].sharding == s
    np.testing.assert_array_equal(np.asarray(out["y"]), 2 * params["w"])
    with fa.set_mesh(mesh):
        g = fa.jit(lambda v: v + 1, in_shardings=P("b"), out_shardings=P())
        y = g(np.zeros(8, np.float32))
    assert y.sharding == NamedSharding(mesh, P()) and np.asarray(y).tolist() == [1.0] * 8


def check_with_sharding_constraint_matches_jax():
    mesh, jmesh = _meshes()
    x = np.random.default_rng(1).standard_normal((8, 16)).astype(np.float32)
    for spec in [P(None, "b"), P("a", "b"), P(("a", "b"))]:
        s, js = _pair(mesh, jmesh, spec)

        def g(v, lax_, s_):
            return lax_.with_sharding_constraint(v * 2, s_) + 1

        f = fa.jit(lambda v: g(v, lax, s))
        jf = jax.jit(lambda v: g(v, jax.lax, js))
        y, jy = f(x), jf(x)
        np.testing.assert_allclose(np.asarray(y), np.asarray(jy), rtol=1e-6)
        _same_layout(y.sharding, jy.sharding, 2)
        text = f.lower(x).as_text()
        assert '"sdy.sharding_constraint"' in text and _SDY.search(text)
        # under grad: the cotangent is constrained too; values agree with jax
        gx = fa.jit(fa.grad(lambda v: (g(v, lax, s) ** 2).sum()))(x)
        jgx = jax.jit(jax.grad(lambda v: (g(v, jax.lax, js) ** 2).sum()))(x)
        np.testing.assert_allclose(np.asarray(gx), np.asarray(jgx), rtol=1e-5)
    explicit = fa.make_mesh((2, 4), ("a", "b"))
    with pytest.raises(ValueError, match="can only refer to Auto axes"):
        lax.with_sharding_constraint(fnp.ones((8, 4)), NamedSharding(explicit, P("a")))
    # vmap: the batch axis is not split
    y = fa.jit(fa.vmap(lambda v: lax.with_sharding_constraint(v, NamedSharding(mesh, P("b")))))(
        np.ones((3, 8), np.float32))
    assert y.sharding.spec in (P(None, "b"),) and np.asarray(y).shape == (3, 8)


def check_unconstrained_dims_match_jax():
    import pickle

    mesh, jmesh = _meshes()
    x = np.random.default_rng(2).standard_normal((8, 16)).astype(np.float32)
    spec = P(P.UNCONSTRAINED, "b")
    assert repr(spec) == "P(UNCONSTRAINED, 'b')" and spec.unconstrained_dims() == (0,)
    assert pickle.loads(pickle.dumps(spec)) == spec and spec != P(None, "b")
    s, js = NamedSharding(mesh, spec), JNamedSharding(jmesh, JP(JP.UNCONSTRAINED, "b"))
    for placed, jplaced in [(x, x), _pair(mesh, jmesh, P("a"))]:
        if isinstance(placed, NamedSharding):  # an input already split along dimension 0
            placed, jplaced = fa.device_put(x, placed), jax.device_put(x, jplaced)
        f = fa.jit(lambda v: lax.with_sharding_constraint(v * 2, s) + 1)
        jf = jax.jit(lambda v: jax.lax.with_sharding_constraint(v * 2, js) + 1)
        y, jy = f(placed), jf(jplaced)
        np.testing.assert_allclose(np.asarray(y), np.asarray(jy), rtol=1e-6)
        _same_layout(y.sharding, jy.sharding, 2)
        assert '[{?}, {"b"}]' in f.lower(placed).as_text()
    # eagerly, the open dimension keeps the input's split where it fits
    split_rows = fa.device_put(x, NamedSharding(mesh, P("a")))
    assert lax.with_sharding_constraint(split_rows, s).sharding.spec == P("a", "b")
    assert lax.with_sharding_constraint(x, s).sharding.spec == P(None, "b")
    clash = NamedSharding(mesh, P(P.UNCONSTRAINED, "a"))  # "a" is taken by dimension 1
    assert lax.with_sharding_constraint(split_rows, clash).sharding.spec == P(None, "a")
    # where a layout must be complete, as in jax
    for call in [lambda: fa.jit(lambda v: v, in_shardings=s)(x),
                 lambda: fa.jit(lambda v: v, out_shardings=s)(x),
                 lambda: fa.device_put(x, s)]:
        with pytest.raises(ValueError, match="Unconstrained dims are not allowed"):
            call()
    # (jax 0.10.2's device_put fails there with a KeyError: UNCONSTRAINED from inside jax)
    with pytest.raises(ValueError, match="cannot contain `P.UNCONSTRAINED`"):
        NamedSharding(fa.make_mesh((2, 4), ("a", "b")), spec)
    with pytest.raises(ValueError, match="cannot contain `P.UNCONSTRAINED`"):
        JNamedSharding(jax.make_mesh((2, 4), ("a", "b")), JP(JP.UNCONSTRAINED, "b"))
    with pytest.raises(ValueError, match="P.UNCONSTRAINED"):
        fa.shard_map(lambda v: v, mesh=mesh, in_specs=spec, out_specs=P())(x)


def _mlp(np_, params, x):
    (w1, b1), (w2, b2) = params
    h = np_.tanh(x @ w1 + b1)
    return h @ w2 + b2


def _loss(np_, params, x, y):
    return ((_mlp(np_, params, x) - y) ** 2).mean()


def _mlp_data():
    rng = np.random.default_rng(2)
    params = [(rng.standard_normal((16, 32)).astype(np.float32) * 0.3,
               np.zeros(32, np.float32)),
              (rng.standard_normal((32, 4)).astype(np.float32) * 0.3,
               np.zeros(4, np.float32))]
    x = rng.standard_normal((64, 16)).astype(np.float32)
    y = rng.standard_normal((64, 4)).astype(np.float32)
    return params, x, y


def check_data_parallel_mlp_equals_single_device():
    mesh = fa.make_mesh((8,), ("data",), (AxisType.Auto,))
    params, x, y = _mlp_data()
    step = fa.jit(fa.value_and_grad(lambda p, a, b: _loss(fnp, p, a, b)))
    want_loss, want_grads = step(params, x, y)  # one device
    rep, batch = NamedSharding(mesh, P()), NamedSharding(mesh, P("data"))
    p_sh = fa.device_put(params, rep)
    x_sh, y_sh = fa.device_put(x, batch), fa.device_put(y, batch)
    loss, grads = step(p_sh, x_sh, y_sh)
    np.testing.assert_allclose(float(loss), float(want_loss), rtol=1e-5)
    for g, w in zip(fa.tree.leaves(grads), fa.tree.leaves(want_grads)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-4, atol=1e-6)
        assert g.sharding.is_fully_replicated  # the partitioner all-reduced them
    text = step.lower(p_sh, x_sh, y_sh).as_text()
    assert text.count('[{"data"}, {}]') >= 2
    jloss = jax.jit(jax.value_and_grad(lambda p, a, b: _loss(jnp, p, a, b)))(params, x, y)[0]
    np.testing.assert_allclose(float(loss), float(jloss), rtol=1e-5)


def check_tensor_parallel_mlp_equals_single_device():
    mesh, jmesh = _meshes((2, 4), ("data", "model"))
    params, x, y = _mlp_data()
    specs = [(P(None, "model"), P("model")), (P("model", None), P())]
    shardings = [tuple(NamedSharding(mesh, s) for s in layer) for layer in specs]
    jshardings = [tuple(JNamedSharding(jmesh, JP(*s)) for s in layer) for layer in specs]
    batch = NamedSharding(mesh, P("data"))
    jbatch = JNamedSharding(jmesh, JP("data"))
    fwd = fa.jit(lambda p, a: _mlp(fnp, p, a), in_shardings=(shardings, batch),
                 out_shardings=batch)
    jfwd = jax.jit(lambda p, a: _mlp(jnp, p, a), in_shardings=(jshardings, jbatch),
                   out_shardings=jbatch)
    out, jout = fwd(params, x), jfwd(params, x)
    single = fa.jit(lambda p, a: _mlp(fnp, p, a))(params, x)
    np.testing.assert_allclose(np.asarray(out), np.asarray(single), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(out), np.asarray(jout), rtol=1e-5, atol=1e-5)
    _same_layout(out.sharding, jout.sharding, 2)
    assert _signature_shardings(fwd.lower(params, x).as_text()) == _signature_shardings(
        jfwd.lower(params, x).as_text())
    grad = fa.jit(fa.grad(lambda p, a, b: _loss(fnp, p, a, b)),
                  in_shardings=(shardings, batch, batch), out_shardings=shardings)
    grads = grad(params, x, y)
    want = fa.jit(fa.grad(lambda p, a, b: _loss(fnp, p, a, b)))(params, x, y)
    for g, w, s in zip(fa.tree.leaves(grads), fa.tree.leaves(want),
                       fa.tree.leaves(shardings)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-4, atol=1e-6)
        assert g.sharding == s


def check_errors_for_shardings_that_do_not_fit():
    mesh, _ = _meshes()
    x = np.ones((8, 4), np.float32)
    with pytest.raises(ValueError, match="Resource axis: c"):
        fa.jit(lambda v: v, in_shardings=NamedSharding(mesh, P("c")))
    with pytest.raises(ValueError, match="array axis 1 is partitioned 4 times, but the "
                                         "dimension size is 3"):
        fa.jit(lambda v: v, in_shardings=NamedSharding(mesh, P(None, "b")))(np.ones((8, 3)))
    with pytest.raises(ValueError, match="output 0: .*partitioned 2 times"):
        fa.jit(lambda v: v.sum(0), out_shardings=NamedSharding(mesh, P("a")))(np.ones((8, 3)))
    with pytest.raises(ValueError, match="only valid for values of rank at least 2"):
        fa.jit(lambda v: v, in_shardings=NamedSharding(mesh, P("a", "b")))(np.ones(8))
    other = fa.sharding.Mesh(np.array(fa.devices()[4:], dtype=object), ("a",))
    a = fa.device_put(x, NamedSharding(mesh, P("a")))
    b = fa.device_put(x, NamedSharding(other, P("a")))
    with pytest.raises(ValueError, match="Received incompatible devices for jitted "
                                         "computation"):
        fa.jit(lambda u, v: u + v)(a, b)
    with pytest.raises(ValueError, match="Sharding passed to jit does not match the "
                                         "sharding on the respective arg"):
        fa.jit(lambda v: v, in_shardings=NamedSharding(mesh, P("b")))(a)
    with pytest.raises(ValueError, match="in_shardings/out_shardings or device="):
        fa.jit(lambda v: v, in_shardings=NamedSharding(mesh, P()), device=fa.devices()[0])
    with pytest.raises(ValueError, match="needs a mesh"):
        fa.jit(lambda v: v, in_shardings=P("a"))(x)
    with pytest.raises(ValueError, match="pytree prefix"):
        fa.jit(lambda u, v: u, in_shardings=(NamedSharding(mesh, P()),) * 3)(x, x)
    # a failed call leaves the function usable
    f = fa.jit(lambda v: v * 2, in_shardings=NamedSharding(mesh, P("a")))
    np.testing.assert_array_equal(np.asarray(f(x)), 2 * x)


def check_compiled_objects_validate_argument_shardings():
    # jaxlib crashes (segmentation fault) when an SPMD executable gets an argument split
    # another way: Compiled objects check first, as jax does
    mesh, jmesh = _meshes()
    x = np.ones((8, 16), np.float32)
    s1, js1 = _pair(mesh, jmesh, P("a", "b"))
    s2, js2 = _pair(mesh, jmesh, P("b"))
    compiled = fa.jit(lambda v: v + v, in_shardings=s1, out_shardings=s1).lower(x).compile()
    jcompiled = jax.jit(lambda v: v + v, in_shardings=js1, out_shardings=js1).lower(x).compile()
    np.testing.assert_array_equal(np.asarray(compiled(fa.device_put(x, s1))), 2 * x)
    np.testing.assert_array_equal(np.asarray(compiled(x)), 2 * x)  # host: placed
    with pytest.raises(ValueError):
        jcompiled(jax.device_put(x, js2))
    with pytest.raises(ValueError, match="does not match the sharding on the respective arg"):
        compiled(fa.device_put(x, s2))
    _same_layout(compiled.output_shardings, jcompiled.output_shardings, 2)


def check_consts_static_arguments_and_donation():
    mesh, _ = _meshes()
    s = NamedSharding(mesh, P("a"))
    captured = fnp.arange(32.0, dtype=np.float32).reshape(8, 4)  # a constant of the body
    f = fa.jit(lambda v, n: v * n + captured, static_argnums=1, in_shardings=(s,),
               out_shardings=s)
    x = np.ones((8, 4), np.float32)
    for n in (2, 3, 2):
        y = f(x, n)
        np.testing.assert_array_equal(np.asarray(y), x * n + np.asarray(captured))
        assert y.sharding == s
    h = fa.jit(lambda v: v - captured, in_shardings=s)  # constants on the fast path
    for _ in range(3):
        np.testing.assert_array_equal(np.asarray(h(x)), x - np.asarray(captured))
    assert (h.cache_info().hits, h.cache_info().misses) == (2, 1)
    a = fa.device_put(x, s)
    g = fa.jit(lambda v: v + 1, donate_argnums=0)
    y = g(a)
    np.testing.assert_array_equal(np.asarray(y), x + 1)
    assert y.sharding == s
    with pytest.raises(RuntimeError, match="donated"):
        np.asarray(a)
    b = fa.device_put(x, s)
    z = fa.jit(lambda v: v * 2, donate_argnums=0)(b)
    np.testing.assert_array_equal(np.asarray(fa.block_until_ready(z)), 2 * x)


def check_threads_share_sharded_executables():
    import concurrent.futures

    mesh, _ = _meshes()
    s = NamedSharding(mesh, P("a", "b"))
    f = fa.jit(lambda v: (v * 2).sum(1))
    x = np.arange(128.0, dtype=np.float32).reshape(8, 16)

    def work(k):
        arr = fa.device_put(x + k, s)
        outs = [np.asarray(f(arr)) for _ in range(20)]
        return all(np.array_equal(o, ((x + k) * 2).sum(1)) for o in outs)

    assert work(0)  # compiled once here (concurrent first calls may each stage, as in JAX)
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        assert all(pool.map(work, range(16)))
    assert f.cache_info().misses == 1


def check_runtime_execute_refuses_other_splits():
    from funcarray.lowering import runtime

    mesh, jmesh = _meshes()
    s = NamedSharding(mesh, P("a", "b"))
    text = fa.jit(lambda v: v * 2, in_shardings=s, out_shardings=s).lower(
        np.ones((8, 16), np.float32)).as_text()
    f32 = ((8, 16), np.dtype("float32"))
    exe = runtime.compile_spmd(text, [f32], [f32], mesh)
    assert exe.in_placements == exe.out_placements == (s,)
    x = np.arange(128.0, dtype=np.float32).reshape(8, 16)
    (y,) = runtime.execute(exe, [x])
    np.testing.assert_array_equal(np.asarray(y), 2 * x)
    other = jax.device_put(x, JNamedSharding(jmesh, JP("b")))
    with pytest.raises(runtime.ExecutionError, match="split as"):
        runtime.execute(exe, [other])


def check_device_put_under_jit_is_the_identity_like_jax():
    mesh, jmesh = _meshes()
    s, js = _pair(mesh, jmesh, P(None, "b"))
    x = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    f = fa.jit(lambda v: fa.device_put(v * 2, s) + fa.device_put(v, fa.devices()[0]))
    jf = jax.jit(lambda v: jax.device_put(v * 2, js) + v)
    np.testing.assert_array_equal(np.asarray(f(x)), np.asarray(jf(x)))
    assert "sdy" not in f.lower(x).as_text() and "sdy.sharding" not in jf.lower(x).as_text()
    with pytest.raises(ValueError, match="partitioned 4 times"):
        fa.jit(lambda v: fa.device_put(v, s))(np.ones((8, 3), np.float32))


def check_mesh_in_another_device_order():
    # The executable runs partition k on the mesh's k-th device (it once ran on the devices
    # in id order, and jaxlib crashed on the misplaced arguments).
    devices = np.array(fa.devices()[::-1]).reshape(2, 4)
    mesh = fa.sharding.Mesh(devices, ("a", "b"))
    s = NamedSharding(mesh, P("a", "b"))
    x = np.arange(32.0, dtype=np.float32).reshape(4, 8)
    out = fa.jit(lambda v: v * 2, in_shardings=s, out_shardings=s)(x)
    np.testing.assert_allclose(np.asarray(out), x * 2)
    assert out.sharding == s
    first = next(sh for sh in out.addressable_shards if sh.device == devices[0, 0])
    np.testing.assert_allclose(np.asarray(first.data), x[:2, :2] * 2)
    again = fa.jit(lambda v: lax.with_sharding_constraint(v + 1, s))(fa.device_put(x, s))
    np.testing.assert_allclose(np.asarray(again), x + 1)
