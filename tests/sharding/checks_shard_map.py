"""Checks of shard_map over 8 CPU devices: every collective over mesh axes against NumPy and
jax's same program, the lowered sdy.manual_computation against jax's, grad and vmap of
shard_map, eager calls, a data-parallel MLP step equal to the single-device one, and the
errors (run by test_shard_map.py in a subprocess: see multi_device.py)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import PartitionSpec as JP

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import lax
from funcarray.sharding import AxisType

P = fa.P
_X = np.arange(128.0, dtype=np.float32).reshape(8, 16)


def _meshes(shape=(2, 4), names=("a", "b")):
    mesh = fa.make_mesh(shape, names, (AxisType.Auto,) * len(shape))
    jmesh = jax.make_mesh(shape, names, (jax.sharding.AxisType.Auto,) * len(shape))
    return mesh, jmesh


def _jspecs(specs):
    return jax.tree.map(lambda s: JP(*s), specs, is_leaf=lambda s: isinstance(s, fa.P))


def _both(body, in_specs, out_specs, *args, grad=False):
    """funcarray's shard_map of ``body(lax_module, ...)`` (eager and under jit) and jax's."""
    mesh, jmesh = _meshes()
    f = fa.shard_map(lambda *a: body(lax, fnp, *a), mesh=mesh, in_specs=in_specs,
                     out_specs=out_specs)
    jf = jax.shard_map(lambda *a: body(jax.lax, jnp, *a), mesh=jmesh,
                       in_specs=_jspecs(in_specs), out_specs=_jspecs(out_specs),
                       check_vma=False)
    eager, jitted, want = f(*args), fa.jit(f)(*args), jax.jit(jf)(*args)
    for a, b, w in zip(fa.tree.leaves(eager), fa.tree.leaves(jitted), jax.tree.leaves(want)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(w), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(b), np.asarray(w), rtol=1e-6)
    return eager, f, jf


def _blocks(x, rows=2, cols=4):
    """x's blocks as laid out by P('a', 'b') on the 2x4 mesh: blocks[i][j]."""
    return [np.split(r, cols, axis=1) for r in np.split(x, rows, axis=0)]


def check_psum_pmean_pmax_pmin_against_numpy():
    out, _, _ = _both(lambda L, np_, x: (L.psum(x, "b"), L.pmean(x, "a"), L.pmax(x, ("a", "b")),
                                         L.pmin(x, "b")),
                      P("a", "b"), (P("a", None), P(None, "b"), P(), P("a", None)), _X)
    blocks = _blocks(_X)
    np.testing.assert_allclose(np.asarray(out[0]), np.concatenate(
        [sum(row) for row in blocks]))
    np.testing.assert_allclose(np.asarray(out[1]), np.concatenate(
        [(blocks[0][j] + blocks[1][j]) / 2 for j in range(4)], axis=1))
    np.testing.assert_allclose(np.asarray(out[2]), np.max([b for r in blocks for b in r], 0))
    np.testing.assert_allclose(np.asarray(out[3]), np.concatenate(
        [np.min(row, 0) for row in blocks]))


def check_all_gather_and_axis_index_against_numpy():
    out, _, _ = _both(
        lambda L, np_, x: (L.all_gather(x, "a", tiled=True), L.all_gather(x, "b", axis=1),
                           (L.axis_index("a") * 10 + L.axis_index("b")).reshape(1, 1)),
        P("a", "b"), (P(None, "b"), P("a", None, None), P("a", "b")), _X)
    np.testing.assert_allclose(np.asarray(out[0]), _X)
    blocks = _blocks(_X)
    np.testing.assert_allclose(np.asarray(out[1]), np.concatenate(
        [np.stack(row, 1) for row in blocks]))
    np.testing.assert_array_equal(np.asarray(out[2]), np.array([[0, 1, 2, 3], [10, 11, 12, 13]]))


def check_ppermute_against_numpy():
    perm = [(i, (i + 1) % 4) for i in range(4)]
    out, _, _ = _both(lambda L, np_, x: L.ppermute(x, "b", perm), P("a", "b"), P("a", "b"), _X)
    blocks = _blocks(_X)
    want = np.concatenate([np.concatenate([row[(j - 1) % 4] for j in range(4)], 1)
                           for row in blocks])
    np.testing.assert_allclose(np.asarray(out), want)
    # a partial permutation: the devices nobody sends to get zeros
    out, _, _ = _both(lambda L, np_, x: L.ppermute(x, "a", [(0, 1)]), P("a", "b"), P("a", "b"),
                      _X)
    np.testing.assert_allclose(np.asarray(out)[:4], 0)
    np.testing.assert_allclose(np.asarray(out)[4:], _X[:4])


def check_psum_scatter_and_all_to_all_against_numpy():
    out, _, _ = _both(
        lambda L, np_, x: (L.psum_scatter(x, "b", scatter_dimension=1, tiled=True),
                           L.psum_scatter(x.reshape(4, 4), "b"),
                           L.all_to_all(x, "b", 1, 0, tiled=True),
                           L.all_to_all(x, "b", 0, 1)),
        P("a", "b"), (P("a", "b"), P(("a", "b")), P("a", "b"), P("a", "b")), _X)
    blocks = _blocks(_X)
    total = [sum(row) for row in blocks]  # per row of devices, (4, 4)
    np.testing.assert_allclose(np.asarray(out[0]), np.concatenate(total))  # column j on (i, j)
    # not tiled: device (i, k) holds row k of its row of devices' sum
    np.testing.assert_allclose(np.asarray(out[1]), np.concatenate(total).ravel())
    # tiled all_to_all: device j gets column chunk j of every device's block, stacked
    want = np.concatenate([np.concatenate([np.concatenate([row[i][:, j:j + 1] for i in range(4)])
                                           for j in range(4)], 1) for row in blocks])
    np.testing.assert_allclose(np.asarray(out[2]), want)


def check_lowering_matches_jax():
    mesh, jmesh = _meshes()
    body = (lambda L: lambda x: (L.psum(x, "b"), L.all_gather(x, "a", tiled=True),
                                 L.psum_scatter(x, "b", scatter_dimension=1, tiled=True)))
    specs = (P("a", "b"), (P("a", None), P(None, "b"), P("a", "b")))
    text = fa.jit(fa.shard_map(body(lax), mesh=mesh, in_specs=specs[0],
                               out_specs=specs[1])).lower(_X).as_text()
    jtext = jax.jit(jax.shard_map(body(jax.lax), mesh=jmesh, in_specs=_jspecs(specs[0]),
                                  out_specs=_jspecs(specs[1]), check_vma=False)
                    ).lower(_X).as_text()
    for piece in ['manual_axes', '<@mesh, [{"a"}, {"b"}]>', '<@mesh, [{}, {"b"}]>',
                  'replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>',
                  'replica_groups = dense<[[0, 4], [1, 5], [2, 6], [3, 7]]> : tensor<4x2xi64>',
                  "mhlo.num_partitions = 8", 'sdy.mesh @mesh = <["a"=2, "b"=4]>']:
        assert piece in text and piece in jtext, piece


def check_grad_of_shard_map_matches_jax():
    mesh, jmesh = _meshes()
    w = np.linspace(-1, 1, 16, dtype=np.float32)

    def body(L, np_):
        def f(x, w):
            return L.psum(np_.sum(np_.sin(x * w)), ("a", "b"))
        return f

    f = fa.shard_map(body(lax, fnp), mesh=mesh, in_specs=(P("a", "b"), P("b")), out_specs=P())
    jf = jax.shard_map(body(jax.lax, jnp), mesh=jmesh, in_specs=(JP("a", "b"), JP("b")),
                       out_specs=JP(), check_vma=False)
    want = jax.jit(jax.grad(jf, argnums=(0, 1)))(_X / 50, w)
    for got in (fa.jit(fa.grad(f, argnums=(0, 1)))(_X / 50, w), fa.grad(f, argnums=(0, 1))(
            _X / 50, w)):
        for g, jg in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), np.asarray(jg), rtol=1e-5, atol=1e-6)
    # and the single-device derivative
    np.testing.assert_allclose(np.asarray(want[1]), np.sum(np.cos(_X / 50 * w) * _X / 50, 0),
                               rtol=1e-4)


def check_vmap_of_shard_map():
    mesh, _ = _meshes()
    f = fa.shard_map(lambda x: lax.psum(x, "b"), mesh=mesh, in_specs=P("a", "b"),
                     out_specs=P("a"))
    xs = np.stack([_X, 2 * _X])
    out = fa.jit(fa.vmap(f))(xs)
    for k in range(2):
        np.testing.assert_allclose(np.asarray(out[k]), np.asarray(f(xs[k])))


def _mlp(np_, params, x):
    (w1, b1), (w2, b2) = params
    return np_.tanh(x @ w1 + b1) @ w2 + b2


def _loss(np_, params, x, y):
    return np_.mean((_mlp(np_, params, x) - y) ** 2)


def check_data_parallel_mlp_training_equals_single_device():
    mesh = fa.make_mesh((8,), ("data",), (AxisType.Auto,))
    rng = np.random.default_rng(0)
    params = [(rng.normal(size=(4, 16)).astype(np.float32) * 0.5, np.zeros(16, np.float32)),
              (rng.normal(size=(16, 1)).astype(np.float32) * 0.5, np.zeros(1, np.float32))]
    x = rng.normal(size=(64, 4)).astype(np.float32)
    y = np.sin(x.sum(1, keepdims=True))

    def local_step(p, a, b):
        loss, grads = fa.value_and_grad(lambda q: _loss(fnp, q, a, b))(p)
        return lax.pmean(loss, "data"), lax.pmean(grads, "data")

    step = fa.jit(fa.shard_map(local_step, mesh=mesh, in_specs=(P(), P("data"), P("data")),
                               out_specs=P()))
    single = fa.jit(fa.value_and_grad(lambda p, a, b: _loss(fnp, p, a, b)))
    p_dp = p_single = params
    for _ in range(3):
        loss, grads = step(p_dp, x, y)
        want_loss, want_grads = single(p_single, x, y)
        np.testing.assert_allclose(float(loss), float(want_loss), rtol=1e-5)
        for g, w in zip(fa.tree.leaves(grads), fa.tree.leaves(want_grads)):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-4, atol=1e-6)
        p_dp = fa.tree.map(lambda q, g: q - 0.1 * g, p_dp, grads)
        p_single = fa.tree.map(lambda q, g: q - 0.1 * g, p_single, want_grads)
    # the gradient taken outside the shard_map agrees too
    outer = fa.jit(fa.grad(lambda p, a, b: fa.shard_map(
        lambda q, u, v: lax.pmean(_loss(fnp, q, u, v), "data"), mesh=mesh,
        in_specs=(P(), P("data"), P("data")), out_specs=P())(p, a, b)))
    for g, w in zip(fa.tree.leaves(outer(p_dp, x, y)),
                    fa.tree.leaves(single(p_single, x, y)[1])):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-4, atol=1e-6)


def check_errors():
    mesh, _ = _meshes()
    with pytest.raises(ValueError, match="not divisible"):
        fa.shard_map(lambda x: x, mesh=mesh, in_specs=P("b"), out_specs=P("b"))(np.ones(6))
    with pytest.raises(ValueError, match="not an axis of the mesh"):
        fa.shard_map(lambda x: x, mesh=mesh, in_specs=P("c"), out_specs=P())(np.ones(8))
    with pytest.raises(NameError, match="unbound axis name"):
        fa.shard_map(lambda x: lax.psum(x, "c"), mesh=mesh, in_specs=P("a"),
                     out_specs=P())(np.ones(8))
    with pytest.raises(ValueError, match="rank"):
        fa.shard_map(lambda x: x.sum(), mesh=mesh, in_specs=P("a"),
                     out_specs=P("a"))(np.ones(8))


def check_manual_over_some_axes_matches_jax():
    """shard_map(axis_names={"a"}): manual over "a", "b" left to the partitioner."""
    mesh, jmesh = _meshes()

    def body(L, np_):
        def f(x, w):  # x: this "a"-block of rows, whole along "b"; w: replicated
            h = np_.tanh(x @ w)
            return L.psum(h, "a") * (L.axis_index("a") + 1), L.all_gather(h, "a", tiled=True)
        return f

    w = np.linspace(-1, 1, 16 * 6, dtype=np.float32).reshape(16, 6)
    f = fa.shard_map(body(lax, fnp), mesh=mesh, in_specs=(P("a"), P()),
                     out_specs=(P("a"), P()), axis_names={"a"})
    jf = jax.shard_map(body(jax.lax, jnp), mesh=jmesh, in_specs=(JP("a"), JP()),
                       out_specs=(JP("a"), JP()), axis_names={"a"}, check_vma=False)
    # the argument split over both axes: "b" is the partitioner's to handle inside
    x = fa.device_put(_X, fa.sharding.NamedSharding(mesh, P("a", "b")))
    jx = jax.device_put(_X, jax.sharding.NamedSharding(jmesh, JP("a", "b")))
    for got in (f(x, w), fa.jit(f)(x, w)):
        want = jax.jit(jf)(jx, w)
        for a, b in zip(got, want):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5)
        assert got[0].sharding.spec[0] == "a" and got[0].sharding.mesh == mesh
    text = fa.jit(f).lower(x, w).as_text()
    assert 'manual_axes = #sdy<manual_axes{"a"}>' in text and '[{"a", ?}, {?}]' in text
    # gradients through the partly manual body, against jax's
    loss = lambda sm, np_: lambda v: np_.sum(sm(v, w)[0] ** 2)  # noqa: E731
    g = fa.jit(fa.grad(loss(f, fnp)))(_X)
    jg = jax.jit(jax.grad(loss(jf, jnp)))(_X)
    np.testing.assert_allclose(np.asarray(g), np.asarray(jg), rtol=1e-4, atol=1e-5)
    # specs and collectives name manual axes only
    with pytest.raises(ValueError, match="not in axis_names"):
        fa.shard_map(lambda v: v, mesh=mesh, in_specs=P("b"), out_specs=P("b"),
                     axis_names={"a"})(_X)
    with pytest.raises(NameError, match="unbound axis name"):
        fa.shard_map(lambda v: lax.psum(v, "b"), mesh=mesh, in_specs=P("a"), out_specs=P("a"),
                     axis_names={"a"})(_X)
    with pytest.raises(ValueError, match="are not axes of the mesh"):
        fa.shard_map(lambda v: v, mesh=mesh, in_specs=P("a"), out_specs=P("a"),
                     axis_names={"c"})


def check_in_specs_read_from_the_arguments():
    """in_specs left out on an Explicit mesh: each argument's own layout (jax's Infer)."""
    mesh = fa.make_mesh((2, 4), ("a", "b"))  # Explicit axes
    f = fa.shard_map(lambda x, w: lax.psum(x * w, "b"), mesh=mesh, out_specs=P("a"))
    x = fa.device_put(_X, fa.sharding.NamedSharding(mesh, P("a", "b")))
    w = np.float32(3.0)  # a host value: replicated
    want = fa.shard_map(lambda x, w: lax.psum(x * w, "b"), mesh=mesh, in_specs=(P("a", "b"), P()),
                        out_specs=P("a"))(x, w)
    np.testing.assert_allclose(np.asarray(f(x, w)), np.asarray(want))
    rows = fa.device_put(_X, fa.sharding.NamedSharding(mesh, P("a")))  # another layout
    np.testing.assert_allclose(np.asarray(f(rows, w))[:4], 4 * 3 * _X[:4])
    auto, _ = _meshes()
    with pytest.raises(ValueError, match="all Explicit"):
        fa.shard_map(lambda v: v, mesh=auto, out_specs=P("a"))(_X)
    with pytest.raises(NotImplementedError, match="pass in_specs"):
        fa.jit(f)(x, w)


def check_vmap_spmd_axis_name_splits_the_batch_like_jax():
    mesh, jmesh = _meshes()
    xs = np.arange(2 * 4 * 16, dtype=np.float32).reshape(2, 4, 16)

    def body(L):
        return lambda x: L.psum(x, "b") * (L.axis_index("b") + 1)

    f = fa.shard_map(body(lax), mesh=mesh, in_specs=P(None, "b"), out_specs=P(None, "b"))
    jf = jax.shard_map(body(jax.lax), mesh=jmesh, in_specs=JP(None, "b"),
                       out_specs=JP(None, "b"), check_vma=False)
    g = fa.jit(fa.vmap(f, spmd_axis_name="a"))
    out, want = g(xs), jax.jit(jax.vmap(jf, spmd_axis_name="a"))(xs)
    np.testing.assert_allclose(np.asarray(out), np.asarray(want))
    np.testing.assert_allclose(np.asarray(out), np.asarray(fa.vmap(f)(xs)))
    assert '<@mesh, [{"a"}, {}, {"b"}]>' in g.lower(xs).as_text()
    # a sharding constraint under vmap(spmd_axis_name=) splits the batch dimension too
    s = fa.sharding.NamedSharding(mesh, P(None, "b"))
    h = fa.jit(fa.vmap(lambda x: lax.with_sharding_constraint(x * 2, s), spmd_axis_name="a"))
    assert '[{"a"}, {}, {"b"}]' in h.lower(xs).as_text()
    np.testing.assert_allclose(np.asarray(h(xs)), xs * 2)


def check_body_closing_over_traced_values():
    mesh = fa.make_mesh((8,), ("i",), (AxisType.Auto,))
    x = np.arange(16.0, dtype=np.float32)

    def f(w):  # the body closes over w, a tracer of grad (and of jit)
        return fa.shard_map(lambda b: lax.psum(fnp.sum(fnp.sin(b * w)), "i"), mesh=mesh,
                            in_specs=P("i"), out_specs=P())(x)

    want = np.sum(np.cos(x * 0.5) * x)
    np.testing.assert_allclose(float(fa.grad(f)(0.5)), want, rtol=1e-5)
    np.testing.assert_allclose(float(fa.jit(fa.grad(f))(0.5)), want, rtol=1e-5)
    ys = fa.vmap(f)(np.array([0.5, 1.0], np.float32))
    np.testing.assert_allclose(np.asarray(ys), [np.sum(np.sin(x * 0.5)), np.sum(np.sin(x))],
                               rtol=1e-5)


def check_mesh_of_reordered_devices():
    # replica groups and axis_index count positions in the mesh, not device ids
    devices = np.array(fa.devices()[::-1]).reshape(2, 4)
    mesh = fa.sharding.Mesh(devices, ("a", "b"))
    f = fa.shard_map(lambda x: (lax.psum(x, "b"), lax.ppermute(x, "b", [(0, 3)]),
                                (lax.axis_index("a") * 4 + lax.axis_index("b")).reshape(1, 1)),
                     mesh=mesh, in_specs=P("a", "b"), out_specs=(P("a"), P("a", "b"),
                                                                 P("a", "b")))
    total, moved, index = f(_X)
    blocks = _blocks(_X)
    np.testing.assert_allclose(np.asarray(total), np.concatenate([sum(r) for r in blocks]))
    np.testing.assert_allclose(np.asarray(moved)[:, 12:], _X[:, :4])
    np.testing.assert_array_equal(np.asarray(index), np.arange(8).reshape(2, 4))
    shard = next(s for s in index.addressable_shards if s.device == devices[1, 2])
    assert int(np.asarray(shard.data)[0, 0]) == 6


def check_composed_collectives_match_jax():
    perm = [3, 0, 1, 2]
    _both(lambda L, np_, x: (L.pshuffle(x, "b", perm), L.pswapaxes(x.reshape(4, 4), "b", 0),
                             x * L.axis_size(("a", "b")), L.pcast(x, "b", to="varying")),
          P("a", "b"), (P("a", "b"),) * 4, _X)
    # (jax 0.10.2 has no CPU lowering for pbroadcast: against NumPy only)
    mesh, _ = _meshes()
    out = fa.shard_map(lambda x: lax.pbroadcast(x, "b", 1), mesh=mesh, in_specs=P("a", "b"),
                       out_specs=P("a", "b"))(_X)
    np.testing.assert_allclose(np.asarray(out), np.concatenate(
        [np.concatenate([row[1]] * 4, 1) for row in _blocks(_X)]))


def check_value_and_grad_linearize_and_hessian_through_shard_map():
    mesh = fa.make_mesh((8,), ("i",), (AxisType.Auto,))
    x = np.arange(16.0, dtype=np.float32)

    def f(w):
        return fa.shard_map(lambda b, v: lax.psum(fnp.sum(fnp.sin(b * v)), "i"), mesh=mesh,
                            in_specs=(P("i"), P()), out_specs=P())(x, w)

    value, slope = np.sum(np.sin(x * 0.5)), np.sum(np.cos(x * 0.5) * x)
    for vg in (fa.value_and_grad(f), fa.jit(fa.value_and_grad(f)),
               fa.value_and_grad(fa.jit(f))):  # (the last splits an equation inside a jit)
        v, g = vg(0.5)
        np.testing.assert_allclose([float(v), float(g)], [value, slope], rtol=1e-5)
    y, lin = fa.linearize(f, 0.5)
    np.testing.assert_allclose([float(y), float(lin(1.0))], [value, slope], rtol=1e-5)
    np.testing.assert_allclose(float(fa.hessian(f)(0.5)), -np.sum(np.sin(x * 0.5) * x * x),
                               rtol=1e-4)
