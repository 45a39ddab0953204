"""Typed uses of funcarray's public API, checked two ways by tests/package/test_typing.py.

mypy checks every ``assert_type`` below, and reports exactly the errors marked ``# E: <code>``
(the lines in ``_misuses``, which must stay errors). The file is also run, with an
``assert_type`` that checks each value's run-time type against the static one, so the
annotations describe what the functions really return. (Not collected by pytest: no
``test_`` prefix.)
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, assert_type

import numpy as np

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import Array, lax, nn, optim, random, tree_util
from funcarray import io as fio
from funcarray import testing as ft
from funcarray.api.jit import Compiled, Lowered
from funcarray.nn import initializers
from funcarray.numpy.linalg import QRResult
from funcarray.typing import ArrayLike, DTypeLike

# --- funcarray.typing ----------------------------------------------------------------------
like: ArrayLike = 1.0
like = True
like = np.float32(2.0)
like = np.ones(3)
like = fnp.ones(3)
dtype_like: DTypeLike = fnp.float32
dtype_like = "int8"
dtype_like = np.float64
dtype_like = np.dtype("float16")
dtype_like = float

# --- creation ------------------------------------------------------------------------------
x = fnp.linspace(0.0, 1.0, 6)
assert_type(x, Array)
assert_type(fnp.linspace(0.0, 1.0, 6, retstep=True), tuple[Array, Array])
assert_type(fnp.ones(3), Array)
assert_type(fnp.ones((2, 3), dtype=fnp.int8), Array)
assert_type(fnp.zeros((2, np.int64(3)), "float16"), Array)
assert_type(fnp.full((2,), 7), Array)
assert_type(fnp.empty(2), Array)
assert_type(fnp.arange(5), Array)
assert_type(fnp.arange(1.0, 2.0, 0.5, dtype=np.float64), Array)
assert_type(fnp.eye(3, k=1), Array)
assert_type(fnp.identity(2), Array)
assert_type(fnp.asarray(np.ones(3)), Array)
assert_type(fnp.array([[1, 2], [3, 4]]), Array)
assert_type(fnp.zeros_like(x), Array)
assert_type(fnp.full_like(x, 2.0, dtype=fnp.float64), Array)
assert_type(fnp.float32(1.5), Array)

# --- Array: attributes, operators, methods -------------------------------------------------
m = fnp.arange(6.0).reshape(2, 3)
assert_type(m.shape, tuple[int, ...])
assert_type(m.dtype, np.dtype[Any])
assert_type(m.ndim, int)
assert_type(m.size, int)
assert_type(m.weak_type, bool)
assert_type(m + 1, Array)
assert_type(1 + m, Array)
assert_type(2.0 * m - m / 3, Array)
assert_type(m // 2 % 3, Array)
assert_type(m**2, Array)
assert_type(2**m, Array)
assert_type(m @ m.T, Array)
assert_type(np.float32(2.0) * m, Array)
assert_type(-m, Array)
assert_type(abs(m), Array)
assert_type(m == 1, Array)
assert_type(m < x[:3], Array)
assert_type((m > 1) & (m < 4) | ~(m == 2), Array)
assert_type(divmod(m, 4), tuple[Array, Array])
assert_type(m[0], Array)
assert_type(m[:, 1:], Array)
assert_type(m[None, ..., fnp.array([0, 2])], Array)
assert_type(m.T, Array)
assert_type(m.mT, Array)
assert_type(m.real, Array)
assert_type(m.at[0, 1].set(5.0), Array)
assert_type(m.at[:, 0].add(1.0, mode="drop"), Array)
assert_type(m.at[1].get(mode="fill", fill_value=0.0), Array)
assert_type(m.at[0].apply(fnp.exp), Array)
assert_type(m.astype(np.int32), Array)
assert_type(m.astype(fnp.bfloat16), Array)
assert_type(m.reshape((3, 2)), Array)
assert_type(m.reshape(-1), Array)
assert_type(m.transpose(1, 0), Array)
assert_type(m.sum(), Array)
assert_type(m.sum(axis=0, keepdims=True), Array)
assert_type(m.mean(axis=(0, 1)), Array)
assert_type(m.max(axis=1), Array)
assert_type(m.argmax(), Array)
assert_type(m.cumsum(axis=1), Array)
assert_type(m.nonzero(), tuple[Array, ...])
assert_type(m.flatten(), Array)
assert_type(m.copy(), Array)
assert_type(m.item(0), Any)
assert_type(m.tolist(), Any)
assert_type(len(m), int)
assert_type(float(m[0, 1]), float)
assert_type(int(m[0, 1]), int)
assert_type(bool(m[0, 1]), bool)
assert_type(round(m[0, 1]), int)
assert_type(round(m, 1), Array)
assert_type(np.asarray(m), np.ndarray[tuple[Any, ...], np.dtype[Any]])
for row in m:
    assert_type(row, Array)

# --- funcarray.numpy functions -------------------------------------------------------------
assert_type(fnp.sin(x), Array)
assert_type(fnp.exp(1.0), Array)
assert_type(fnp.sqrt(np.float64(2.0)), Array)
assert_type(fnp.floor(x), Array)
assert_type(fnp.log2(x), Array)
assert_type(fnp.add(x, 1), Array)
assert_type(fnp.maximum(x, 0.5), Array)
assert_type(fnp.negative(x), Array)
assert_type(fnp.add.outer(x, x), Array)
assert_type(fnp.add.reduce(x), Array)
assert_type(fnp.maximum.accumulate(x), Array)
assert_type(fnp.logical_and(x > 0, x < 1), Array)
assert_type(fnp.equal(x, 0.0), Array)
assert_type(fnp.where(x > 0.5, x, 0.0), Array)
assert_type(fnp.where(x > 0.5), tuple[Array, ...])
assert_type(fnp.clip(x, max=0.5), Array)
assert_type(fnp.divmod(x, 2), tuple[Array, Array])
assert_type(fnp.sum(m, axis=1), Array)
assert_type(fnp.mean(m), Array)
assert_type(fnp.var(m, ddof=1), Array)
assert_type(fnp.std(m, axis=0), Array)
assert_type(fnp.max(m, initial=0.0), Array)
assert_type(fnp.argmin(m, axis=0), Array)
assert_type(fnp.all(m > 0), Array)
assert_type(fnp.cumsum(m), Array)
assert_type(fnp.average(x, weights=x, returned=True), tuple[Array, Array])
assert_type(fnp.average(x), Array)
assert_type(fnp.median(x), Array)
assert_type(fnp.reshape(m, (3, 2)), Array)
assert_type(fnp.transpose(m), Array)
assert_type(fnp.expand_dims(x, 0), Array)
assert_type(fnp.concatenate([x, x]), Array)
assert_type(fnp.stack((x, x), axis=1), Array)
assert_type(fnp.split(x, 3), list[Array])
assert_type(fnp.broadcast_arrays(x, m[:, :1]), tuple[Array, ...])
assert_type(fnp.atleast_2d(x), Array)
assert_type(fnp.atleast_2d(x, x), list[Array])
assert_type(fnp.dot(x, x), Array)
assert_type(fnp.matmul(m, m.T), Array)
assert_type(fnp.einsum("ij,kj->ik", m, m), Array)
assert_type(fnp.sort(x), Array)
assert_type(fnp.argsort(x, descending=True), Array)
assert_type(fnp.unique(fnp.array([3, 1, 3])), Array)
assert_type(fnp.nonzero(x), tuple[Array, ...])
assert_type(fnp.take(x, fnp.array([0, 2])), Array)
assert_type(fnp.isclose(x, x), Array)
assert_type(fnp.allclose(x, x), Array)
assert_type(fnp.shape(m), tuple[int, ...])
assert_type(fnp.meshgrid(x, x), tuple[Array, ...])
assert_type(x.to_device(x.device), Array)
assert_type(fnp.zeros(3, device=x.device), Array)
assert_type(fnp.asarray([1.0], device=x.device), Array)
assert_type(fnp.indices((2, 3)), Array)
assert_type(fnp.indices((2, 3), sparse=True), tuple[Array, ...])
assert_type(fnp.tril_indices(3), tuple[Array, Array])
assert_type(fnp.unstack(m), tuple[Array, ...])
assert_type(fnp.frexp(x), tuple[Array, Array])
assert_type(fnp.gradient(x), Array | list[Array])
assert_type(fnp.histogram(x), tuple[Array, Array])
assert_type(fnp.cov(m), Array)
assert_type(fnp.unique_counts(x).counts, Array)
assert_type(fnp.intersect1d(x, x, return_indices=True), tuple[Array, Array, Array])
assert_type(fnp.isrealobj(x), bool)
assert_type(fnp.vectorize(lambda v: v * 2)(x), Any)
assert_type(fnp.logspace(0.0, 2.0, 3), Array)
sq = fnp.eye(3) * 2.0 + 1.0
assert_type(fnp.linalg.norm(x), Array)
assert_type(fnp.linalg.inv(sq), Array)
assert_type(fnp.linalg.solve(sq, x[:3]), Array)
assert_type(fnp.linalg.det(sq), Array)
assert_type(fnp.linalg.slogdet(sq).logabsdet, Array)
assert_type(fnp.linalg.qr(sq), QRResult)
assert_type(fnp.linalg.qr(sq).Q, Array)
assert_type(fnp.linalg.qr(sq, mode="r"), Array)
assert_type(fnp.linalg.svd(sq).S, Array)
assert_type(fnp.linalg.svd(sq, compute_uv=False), Array)
assert_type(fnp.linalg.eigh(sq).eigenvectors, Array)
assert_type(fnp.linalg.cholesky(sq), Array)
assert_type(fnp.ndim(m), int)

# --- transforms ----------------------------------------------------------------------------
w = fnp.ones(3)
xs = fnp.ones((4, 3))


def loss(w: Array, x: Array) -> Array:
    return fnp.sum((x @ w) ** 2)


if TYPE_CHECKING:  # the exact signatures (reveal_type is mypy's; see test_typing.REVEALED)
    from typing import reveal_type

    reveal_type(fa.grad(loss))  # R: grad
    reveal_type(fa.jit(loss))  # R: jit
    reveal_type(fa.vmap(loss, in_axes=(None, 0)))  # R: vmap
    reveal_type(fa.custom_jvp(loss))  # R: custom_jvp

g = fa.grad(loss)(w, xs)
assert_type(g, Any)
assert_type(fa.value_and_grad(loss)(w, xs), tuple[Any, Any])
assert_type(fa.grad(loss, argnums=(0, 1))(w, xs), Any)
assert_type(fa.jacfwd(loss)(w, xs), Any)
assert_type(fa.jacrev(loss)(w, xs), Any)
assert_type(fa.hessian(loss)(w, xs), Any)
assert_type(fa.jvp(fnp.sin, (w,), (w,)), tuple[Any, Any])
primal, f_vjp = fa.vjp(fnp.sin, w)
assert_type(f_vjp(w), tuple[Any, ...])
assert_type(fa.linearize(fnp.sin, w), tuple[Any, Callable[..., Any]])
per_example = fa.vmap(loss, in_axes=(None, 0))(w, xs)
assert_type(per_example, Array)
assert_type(fa.stop_gradient(w), Array)
assert_type(fa.stop_gradient({"w": w}), dict[str, Array])

jitted = fa.jit(loss)
assert_type(jitted(w, xs), Array)
lowered = jitted.lower(w, xs)
assert_type(lowered, Lowered)
assert_type(lowered.as_text(), str)
compiled = lowered.compile()
assert_type(compiled, Compiled)
assert_type(compiled(w, xs), Any)
assert_type(jitted.cache_info().hits, int)
assert_type(jitted.__name__, str)
jitted.clear_cache()


@fa.jit
def double(v: Array) -> Array:
    return v * 2


@fa.jit(static_argnums=1)
def power(v: Array, n: int) -> Array:
    return v**n


@fa.jit
def pair(v: Array) -> tuple[Array, Array]:
    return v, v + 1


@fa.jit
def mean_value(v: Array) -> float:  # a Python scalar result comes back as an Array
    return 0.5


assert_type(double(w), Array)
assert_type(power(w, 3), Array)
assert_type(pair(w), tuple[Array, Array])
assert_type(mean_value(w), Array)


class Model:
    scale = 2.0

    @fa.jit(static_argnums=0)
    def apply(self, v: Array) -> Array:  # a jitted method binds like a function
        return v * self.scale


assert_type(Model().apply(w), Array)


@fa.custom_jvp
def softplus(v: Array) -> Array:
    return fnp.logaddexp(v, 0.0)


@softplus.defjvp
def _softplus_jvp(primals: tuple[Array], tangents: tuple[Array]) -> tuple[Array, Array]:
    (v,), (t,) = primals, tangents
    return softplus(v), t / (1.0 + fnp.exp(-v))


@fa.custom_vjp
def clip_gradient(v: Array) -> Array:
    return v


def _clip_fwd(v: Array) -> tuple[Array, None]:
    return v, None


def _clip_bwd(_: None, g: Array) -> tuple[Array]:
    return (fnp.clip(g, -1.0, 1.0),)


clip_gradient.defvjp(_clip_fwd, _clip_bwd)
assert_type(softplus(w), Array)
assert_type(clip_gradient(w), Array)
assert_type(fa.grad(lambda v: softplus(v).sum())(w), Any)
assert_type(fa.checkpoint(loss)(w, xs), Array)
assert_type(fa.checkpoint(loss, policy=fa.checkpoint_policies.dots_saveable)(w, xs), Array)

# --- funcarray.random ----------------------------------------------------------------------
key = random.key(0)
assert_type(key, random.KeyArray)
assert_type(random.PRNGKey(1), Array)
k1, k2 = random.split(key)
assert_type(k1, random.KeyArray)
assert_type(random.split(key, 3), random.KeyArray)
assert_type(random.fold_in(key, 7), random.KeyArray)
assert_type(random.split(random.PRNGKey(1), 3), Array)
assert_type(random.fold_in(random.PRNGKey(1), 7), Array)
assert_type(random.key_data(key), Array)
assert_type(random.wrap_key_data(random.key_data(key)), random.KeyArray)
assert_type(random.normal(random.PRNGKey(1)), Array)
assert_type(random.normal(k1, (2, 3)), Array)
assert_type(random.uniform(k2, (3,), minval=-1.0, maxval=1.0), Array)
assert_type(random.randint(k1, (4,), 0, 10), Array)
assert_type(random.bernoulli(k2, 0.3, (5,)), Array)
assert_type(random.categorical(k1, fnp.zeros(4)), Array)
assert_type(random.permutation(k2, 5), Array)
assert_type(random.gamma(k1, 2.0), Array)
assert_type(random.key_impl(key), str)
assert_type(random.exponential(k1, (3,)), Array)
assert_type(random.laplace(k2, shape=(2,), dtype=fnp.float64), Array)
assert_type(random.logistic(k1), Array)

# --- funcarray.nn --------------------------------------------------------------------------
assert_type(nn.relu(x), Array)
assert_type(nn.gelu(x, approximate=False), Array)
assert_type(nn.sigmoid(x), Array)
assert_type(nn.softmax(m, axis=-1), Array)
assert_type(nn.log_softmax(m), Array)
assert_type(nn.logsumexp(m, axis=1), Array)
assert_type(nn.logsumexp(m, b=m, return_sign=True), tuple[Array, Array])
assert_type(nn.one_hot(fnp.array([0, 2]), 3), Array)
assert_type(nn.standardize(m), Array)
init: initializers.Initializer = initializers.glorot_normal()
assert_type(init(key, (3, 4)), Array)
assert_type(initializers.zeros(key, (2,)), Array)
he: initializers.Initializer = initializers.he_normal(in_axis=0, out_axis=1, dtype=fnp.float64)
assert_type(he(key, (3, 2)), Array)

# --- funcarray.optim (optax's interface) ---------------------------------------------------
params = {"w": w, "b": fnp.zeros(())}
opt: optim.GradientTransformation = optim.chain(
    optim.clip_by_global_norm(1.0),
    optim.adamw(optim.warmup_cosine_decay_schedule(0.0, 1e-2, 10, 100), weight_decay=1e-4))
opt_state = opt.init(params)
assert_type(opt_state, Any)
grads = fa.grad(lambda p: fnp.sum(p["w"] ** 2) + p["b"])(params)
updates, opt_state = opt.update(grads, opt_state, params)
assert_type(opt.update(grads, opt_state, params=params), tuple[Any, Any])
assert_type(optim.apply_updates(params, updates), dict[str, Array])
assert_type(optim.global_norm(updates), Array)
assert_type(optim.sgd(0.1, momentum=0.9, nesterov=True), optim.GradientTransformation)
assert_type(optim.adam(fnp.asarray(1e-3)).update(grads, optim.adam(1e-3).init(params))[0], Any)
rmsprop = optim.rmsprop(1e-3, centered=True)
init_fn: optim.TransformInitFn = rmsprop.init
update_fn: optim.TransformUpdateFn = rmsprop.update
assert_type(update_fn(grads, init_fn(params)), tuple[Any, Any])
lr: optim.Schedule = optim.exponential_decay(1.0, 10, 0.5, staircase=True)
assert_type(optim.constant_schedule(0.1)(3), float)
assert_type(optim.cosine_decay_schedule(1.0, 100)(fnp.asarray(5)), Array)
assert_type(optim.piecewise_constant_schedule(1.0, {10: 0.1})(12), Array)
assert_type(optim.join_schedules([optim.linear_schedule(0.0, 1.0, 5), lr], [5])(7), ArrayLike)

if TYPE_CHECKING:
    reveal_type(opt.init)  # R: optim_init
    reveal_type(opt.update)  # R: optim_update
    reveal_type(optim.apply_updates(params, updates))  # R: optim_apply

# --- funcarray.tree and funcarray.tree_util (jax.tree_util's interface) -------------------
flat, treedef = fa.tree.flatten(params)
assert_type(flat, list[Any])
assert_type(treedef, fa.tree.PyTreeDef)
assert_type(fa.tree.unflatten(treedef, flat), Any)
assert_type(fa.tree.leaves(params, is_leaf=lambda node: isinstance(node, dict)), list[Any])
assert_type(fa.tree.structure(params), fa.tree.PyTreeDef)
assert_type(fa.tree.map(lambda v: v * 2, params), Any)
assert_type(fa.tree.map_with_path(lambda path, v: v, params), Any)
assert_type(fa.tree.flatten_with_path(params)[0], list[tuple[Any, ...]])


def _count(total: int, leaf: Array) -> int:
    return total + leaf.size


def _plus(a: int, b: int) -> int:
    return a + b


assert_type(fa.tree.reduce(_count, params, 0), int)
assert_type(fa.tree.all([True, 1]), bool)
assert_type(fa.tree.transpose(fa.tree.structure([0, 0]), fa.tree.structure((0, 0)),
                              [(1, 2), (3, 4)]), Any)
assert_type(tree_util.tree_map(fnp.sin, params), Any)
assert_type(tree_util.tree_leaves(params), list[Any])
assert_type(tree_util.tree_flatten_with_path(params)[1], tree_util.PyTreeDef)
with_paths = tree_util.tree_leaves_with_path(params)
assert_type(with_paths, list[tuple[tuple[Any, ...], Any]])
assert_type(tree_util.keystr(with_paths[0][0], simple=True, separator="/"), str)
assert_type(tree_util.tree_map_with_path(lambda path, v: v, params), Any)
assert_type(tree_util.tree_reduce_associative(_plus, [1, 2, 3]), int)
assert_type(tree_util.tree_all(params), bool)
assert_type(tree_util.tree_broadcast(1.0, params), Any)
assert_type(tree_util.treedef_children(treedef), list[tree_util.PyTreeDef])
assert_type(tree_util.treedef_tuple([treedef, treedef]), tree_util.PyTreeDef)
assert_type(tree_util.treedef_is_leaf(treedef), bool)
assert_type(tree_util.is_tree_node(dict), bool)
assert_type(tree_util.all_leaves([1, 2.0]), bool)


@tree_util.register_pytree_node_class
class Box:
    def __init__(self, value: Array, label: str) -> None:
        self.value, self.label = value, label

    def tree_flatten(self) -> tuple[tuple[Array], str]:
        return (self.value,), self.label

    @classmethod
    def tree_unflatten(cls, label: str, children: tuple[Array]) -> Box:
        return cls(children[0], label)


@fa.tree.register_dataclass
@dataclasses.dataclass
class Linear:
    w: Array
    b: Array
    act: str = dataclasses.field(default="relu", metadata={"static": True})


@tree_util.register_dataclass(data_fields=["w"])
@dataclasses.dataclass
class Scale:
    w: Array
    name: str


@tree_util.register_static
class Mode(str):
    pass


class Pair:
    def __init__(self, first: Array, second: Array) -> None:
        self.first, self.second = first, second


assert_type(Box(w, "w"), Box)
assert_type(Linear(w, w), Linear)
assert_type(Scale(w, "s"), Scale)
assert_type(Mode("train"), Mode)
assert_type(tree_util.register_pytree_node(
    Pair, lambda p: ((p.first, p.second), None), lambda _, ch: Pair(ch[0], ch[1])), type[Pair])

if TYPE_CHECKING:
    reveal_type(treedef)  # R: treedef
    reveal_type(tree_util.register_pytree_node_class)  # R: register_class

# --- funcarray.io (checkpoints) -------------------------------------------------------------
checkpoint_dir = tempfile.mkdtemp()
checkpoint = os.path.join(checkpoint_dir, "params.safetensors")
fio.save(checkpoint, params, metadata={"step": "1"})
fio.save(Path(checkpoint_dir) / "params.npz", params)
assert_type(fio.load(checkpoint), dict[str, Any])
assert_type(fio.load(checkpoint, flat=True), dict[str, Array])
assert_type(fio.load(checkpoint, like=params), dict[str, Array])
assert_type(fio.load(Path(checkpoint_dir) / "params.npz", params, strict=False), dict[str, Array])
assert_type(fio.load_metadata(checkpoint), dict[str, str])
shutil.rmtree(checkpoint_dir)

# --- funcarray.testing ---------------------------------------------------------------------
assert_type(ft.assert_allclose(fnp.sin(x), np.sin(np.asarray(x)), rtol=1e-5), None)
assert_type(ft.assert_allclose(fnp.ones(2), [1.0, 1.0]), None)
assert_type(ft.assert_trees_allclose(params, params), None)
assert_type(ft.tolerance("float32", np.float64), tuple[float, float])
assert_type(ft.check_grads(fnp.sin, (x,), order=1, modes=("rev",)), None)
assert_type(ft.check_jvp_vjp(loss, (w, xs)), None)
assert_type(ft.check_vmap(loss, (w, xs), in_axes=(None, 0)), None)
assert_type(ft.check_jit(power, (w, 2), static_argnums=1), None)
with ft.count_compiles(at_most=1) as compiles:
    double(w)
assert_type(compiles, ft.CompileCounter)
assert_type(compiles.count, int)

if TYPE_CHECKING:
    reveal_type(random.exponential)  # R: sampler
    reveal_type(initializers.glorot_uniform)  # R: scaling
    reveal_type(fio.load(checkpoint, params))  # R: load_like

# --- funcarray.lax -------------------------------------------------------------------------
assert_type(lax.cond(True, fnp.sin, fnp.cos, w), Array)
assert_type(lax.cond(False, lambda: 1.0, lambda: 2.0), Array)
assert_type(lax.cond(True, lambda v: (v, v), lambda v: (v, -v), w), tuple[Any, Any])
assert_type(lax.switch(1, [fnp.sin, fnp.cos], w), Array)
carry, ys = lax.scan(lambda c, t: (c + t, c * 2), 0.0, fnp.arange(3.0))
assert_type(carry, Array)
assert_type(ys, Array)
_, nothing = lax.scan(lambda c, t: (c + t, None), w, xs)
assert_type(nothing, None)


def _step(i: Any, c: Array) -> Array:
    return c + i


def _cond(c: Array) -> Array:
    return c < 5


def _body(c: Array) -> Array:
    return c + 1


assert_type(lax.fori_loop(0, 4, _step, 0), Array)
assert_type(lax.while_loop(_cond, _body, 0), Array)
assert_type(lax.map(fnp.sin, xs), Array)
assert_type(lax.associative_scan(fnp.add, x), Array)
assert_type(lax.select_n(x > 0.5, x, -x), Array)
assert_type(lax.sin(x), Array)
assert_type(lax.add(x, x), Array)
assert_type(lax.reduce_sum(m, axes=(0,)), Array)
assert_type(fa.config.disable_jit, bool)


def _carry_step(c: tuple[Array, Array], t: Array) -> tuple[tuple[Array, Array], Array]:
    total, count = c
    return (total + t, count + 1), total


(total, count), partial = lax.scan(_carry_step, (fnp.zeros(3), fnp.zeros(())), xs)
assert_type(total, Array)
assert_type(partial, Array)
assert_type(lax.neg(x), Array)
assert_type(lax.exp(x, accuracy=None), Array)
assert_type(lax.sub(x, x), Array)
assert_type(lax.max(x, x), Array)
assert_type(lax.pow(x, 2.0), Array)
assert_type(lax.integer_pow(x, 3), Array)
assert_type(lax.clamp(0.0, x, 1.0), Array)
assert_type(lax.convert_element_type(x, fnp.int32), Array)
assert_type(lax.reduce_max(m, (1,)), Array)
assert_type(lax.argmax(m, 1, fnp.int32), Array)
assert_type(lax.cumsum(x, axis=0, reverse=True), Array)
assert_type(lax.sort(x), Array | tuple[Array, ...])
assert_type(lax.sort_key_val(x, x), tuple[Array, Array])
assert_type(lax.top_k(x, 2), tuple[Array, Array])
assert_type(lax.dot_general(m, m, (((1,), (1,)), ((), ()))), Array)
assert_type(lax.dot(m, m.T, preferred_element_type=fnp.float32), Array)
assert_type(lax.reshape(m, (3, 2)), Array)
assert_type(lax.transpose(m, (1, 0)), Array)
assert_type(lax.broadcast_in_dim(x, (2, 6), (1,)), Array)
assert_type(lax.pad(x, 0.0, [(1, 1, 0)]), Array)
assert_type(lax.concatenate([x, x], 0), Array)
assert_type(lax.iota(fnp.int32, 4), Array)
assert_type(lax.full((2,), 1.0), Array)
assert_type(lax.slice(m, (0, 0), (1, 2)), Array)
assert_type(lax.dynamic_slice(m, (0, fnp.asarray(1)), (1, 2)), Array)
assert_type(lax.dynamic_update_slice(m, fnp.zeros((1, 2)), (0, 0)), Array)
assert_type(lax.index_in_dim(m, 1, keepdims=False), Array)
assert_type(lax.split(x, (2, 4)), list[Array])
images = fnp.ones((1, 1, 5, 5))
kernel = fnp.ones((2, 1, 3, 3))
assert_type(lax.conv_general_dilated(images, kernel, (1, 1), "SAME"), Array)
assert_type(lax.conv_general_dilated(fnp.ones((1, 5, 5, 1)), fnp.ones((3, 3, 1, 2)), (1, 1),
                                     [(1, 1), (1, 1)], rhs_dilation=(1, 1),
                                     dimension_numbers=("NHWC", "HWIO", "NHWC")), Array)
assert_type(lax.conv(images, kernel, (1, 1), "VALID"), Array)
assert_type(lax.conv_dimension_numbers(images.shape, kernel.shape, None), lax.ConvDimensionNumbers)
assert_type(lax.reduce_window(m, -fnp.inf, lax.max, (1, 2), (1, 1), "VALID"), Any)
assert_type(fa.vmap(lambda v: lax.psum(v, "batch"), axis_name="batch")(xs), Any)
assert_type(lax.linalg.cholesky(sq), Array)
assert_type(lax.linalg.eigh(sq), tuple[Array, Array])
assert_type(lax.linalg.lu(sq), tuple[Array, Array, Array])
assert_type(lax.linalg.triangular_solve(sq, sq, left_side=True, lower=True), Array)
assert_type(lax.erf_inv(fnp.asarray([0.5])), Array)
assert_type(lax.lgamma(x + 1.0), Array)
assert_type(lax.igamma(x + 1.0, x), Array)
assert_type(lax.custom_root(lambda v: v * v - 2.0, 1.0, lambda f, v0: fnp.asarray(1.4142135),
                            lambda g, y: y / g(1.0)), Any)
assert_type(lax.broadcast_shapes((2, 1), (3,)), tuple[int, ...])
assert_type(lax.dtype(x), np.dtype[Any])
assert_type(lax.optimization_barrier(x), Any)

# --- funcarray.scipy ------------------------------------------------------------------------
from funcarray.scipy import fft as sfft  # noqa: E402
from funcarray.scipy import linalg as slinalg  # noqa: E402
from funcarray.scipy import special, stats  # noqa: E402
from funcarray.scipy.sparse import linalg as sparse_linalg  # noqa: E402

assert_type(special.logsumexp(m, axis=1), Array)
assert_type(special.logsumexp(m, b=m, return_sign=True), tuple[Array, Array])
assert_type(special.gammaln(x + 1.0), Array)
assert_type(special.erf(x), Array)
assert_type(special.ndtri(fnp.asarray([0.5])), Array)
assert_type(special.xlogy(x, x + 1.0), Array)
assert_type(special.betainc(2.0, 3.0, x), Array)
assert_type(special.softmax(m, axis=(0, 1)), Array)
assert_type(special.zeta(2.0, x + 1.0), Array)
assert_type(stats.norm.logpdf(x, loc=1.0, scale=2.0), Array)
assert_type(stats.norm.cdf(0.5), Array)
assert_type(stats.poisson.logpmf(fnp.arange(3), 2.0), Array)
assert_type(stats.multivariate_normal.logpdf(x[:3], fnp.zeros(3), sq), Array)
assert_type(stats.beta.cdf(0.5, 2.0, 3.0), Array)
assert_type(stats.mode(fnp.array([1, 2, 2])), stats.ModeResult)
assert_type(stats.sem(x), Array)
kde = stats.gaussian_kde(fnp.asarray([0.0, 1.0, 3.0]))
assert_type(kde.evaluate(fnp.asarray([1.0])), Array)
assert_type(kde.dataset, Array)
assert_type(kde.resample(key, (2,)), Array)
assert_type(slinalg.solve(sq, x[:3]), Array)
assert_type(slinalg.solve(sq, x[:3], assume_a="pos"), Array)
assert_type(slinalg.expm(sq), Array)
assert_type(slinalg.cho_factor(sq), tuple[Array, bool])
assert_type(slinalg.cho_solve(slinalg.cho_factor(sq), x[:3]), Array)
assert_type(slinalg.lu_factor(sq), tuple[Array, Array])
assert_type(slinalg.lu_solve(slinalg.lu_factor(sq), x[:3]), Array)
assert_type(slinalg.lu(sq), tuple[Array, Array, Array] | tuple[Array, Array])
assert_type(slinalg.svd(sq), Array | tuple[Array, Array, Array])
assert_type(slinalg.schur(sq), tuple[Array, Array])
assert_type(slinalg.polar(sq), tuple[Array, Array])
assert_type(slinalg.toeplitz(x[:3]), Array)
assert_type(slinalg.block_diag(sq, sq), Array)
assert_type(sfft.dct(x, norm="ortho"), Array)
assert_type(sfft.idctn(m, type=2, s=(2, 3), axes=(0, 1)), Array)
assert_type(sparse_linalg.cg(sq, x[:3], tol=1e-6), tuple[Array, None])
assert_type(sparse_linalg.cg(lambda v: sq @ v, x[:3]), tuple[Array, None])


# --- misuses: each marked line must stay a type error (never called) ------------------------
def _misuses() -> None:
    fa.grad(loss)(w)  # E: call-arg
    jitted(w)  # E: call-arg
    fnp.sin("0.5")  # E: arg-type
    fnp.sin([0.5])  # E: arg-type
    fnp.zeros((2, 3), dtype=3)  # E: arg-type
    m.at[0].sett(1.0)  # E: attr-defined
    m + "a"  # E: operator
    random.normal(key, shape=(2.5,))  # E: arg-type
    fa.grd  # E: attr-defined
    fnp.sinn  # E: attr-defined
    double(w, w)  # E: call-arg
    _bad_like: ArrayLike = [1.0]  # E: assignment
    _bad_dtype: DTypeLike = 3  # E: assignment
    optim.adam("0.1")  # E: arg-type
    optim.sgd(0.1).update(grads)  # E: call-arg
    optim.linear_schedule(1.0, 0.0, 2.5)  # E: arg-type
    fio.save(checkpoint, params, metadata={"step": 1})  # E: dict-item
    ft.check_grads(fnp.sin, (x,), modes=("backward",))  # E: arg-type
    random.exponential(key, (2,), 3)  # E: arg-type
    lax.add(x)  # E: call-arg
    lax.asin("x")  # E: arg-type
    lax.reduce_sum(m, 0)  # E: arg-type
    lax.dot_general(m, m, "ij")  # E: arg-type
    special.gammaln([1.0])  # E: arg-type
    stats.norm.logpdf("x")  # E: arg-type
    slinalg.cho_solve(sq, x)  # E: arg-type
