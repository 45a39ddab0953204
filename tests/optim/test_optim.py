"""funcarray.optim against the published update equations, written out in NumPy."""

import numpy as np
import optax
import pytest
from helpers import assert_array_equal_typed, compiled
from hypothesis import given
from hypothesis import strategies as st

import funcarray as fa
import funcarray.numpy as fnp
import funcarray.optim as optim

STEPS = 5


def _params():
    rng = np.random.default_rng(0)
    return {"w": rng.normal(size=(3, 2)), "b": rng.normal(size=(2,)),
            "nested": [rng.normal(size=())]}


def _grads(step):
    """A different gradient tree at each step (including a zero entry)."""
    rng = np.random.default_rng(step + 1)
    g = {"w": rng.normal(size=(3, 2)), "b": rng.normal(size=(2,)),
         "nested": [rng.normal(size=())]}
    g["w"][0, 0] = 0.0
    return g


def _as_fa(tree, dtype=np.float32):
    return fa.tree.map(lambda x: fnp.asarray(np.asarray(x, dtype)), tree)


def _map(f, *trees):
    return fa.tree.map(f, *trees)


# --- The reference optimizers: the published equations, one NumPy step each ----------------

def _np_sgd(lr, momentum=None, nesterov=False):
    def step(g, p, state, t):
        if momentum is None:
            return _map(lambda gi: -lr(t) * gi, g), state
        m = _map(lambda gi, mi: gi + momentum * mi, g, state)
        direction = _map(lambda gi, mi: gi + momentum * mi, g, m) if nesterov else m
        return _map(lambda d: -lr(t) * d, direction), m
    return step, (lambda p: _map(np.zeros_like, p))


def _np_adam(lr, b1=0.9, b2=0.999, eps=1e-8, eps_root=0.0, weight_decay=None):
    def step(g, p, state, t):
        mu, nu = state
        mu = _map(lambda gi, mi: b1 * mi + (1 - b1) * gi, g, mu)
        nu = _map(lambda gi, vi: b2 * vi + (1 - b2) * gi * gi, g, nu)
        k = t + 1
        u = _map(lambda mi, vi: (mi / (1 - b1 ** k))
                 / (np.sqrt(vi / (1 - b2 ** k) + eps_root) + eps), mu, nu)
        if weight_decay is not None:
            u = _map(lambda ui, pi: ui + weight_decay * pi, u, p)
        return _map(lambda ui: -lr(t) * ui, u), (mu, nu)
    return step, (lambda p: (_map(np.zeros_like, p), _map(np.zeros_like, p)))


def _np_rmsprop(lr, decay=0.9, eps=1e-8, initial_scale=0.0, centered=False, momentum=None,
                nesterov=False):
    def step(g, p, state, t):
        mu, nu, trace = state
        nu = _map(lambda gi, vi: decay * vi + (1 - decay) * gi * gi, g, nu)
        if centered:
            mu = _map(lambda gi, mi: decay * mi + (1 - decay) * gi, g, mu)
            u = _map(lambda gi, mi, vi: -lr(t) * gi / np.sqrt(vi - mi * mi + eps), g, mu, nu)
        else:
            u = _map(lambda gi, vi: -lr(t) * gi / np.sqrt(vi + eps), g, nu)
        if momentum is not None:
            trace = _map(lambda ui, mi: ui + momentum * mi, u, trace)
            u = _map(lambda ui, mi: ui + momentum * mi, u, trace) if nesterov else trace
        return u, (mu, nu, trace)
    return step, (lambda p: (_map(np.zeros_like, p),
                             _map(lambda x: np.full_like(x, initial_scale), p),
                             _map(np.zeros_like, p)))


def _np_adagrad(lr, initial_accumulator_value=0.1, eps=1e-7):
    def step(g, p, state, t):
        s = _map(lambda gi, si: si + gi * gi, g, state)
        u = _map(lambda gi, si: np.where(si > 0, -lr(t) * gi / np.sqrt(si + eps), 0.0), g, s)
        return u, s
    return step, (lambda p: _map(lambda x: np.full_like(x, initial_accumulator_value), p))


def _const(value):
    return lambda t: value


def _run_reference(reference, steps=STEPS):
    step, init = reference
    params, state, history = _params(), None, []
    state = init(params)
    for t in range(steps):
        updates, state = step(_grads(t), params, state, t)
        params = _map(lambda p, u: p + u, params, updates)
        history.append(params)
    return history


def _run(opt, steps=STEPS, dtype=np.float64, update=None):
    update = update or opt.update
    params = _as_fa(_params(), dtype)
    state, history = opt.init(params), []
    for t in range(steps):
        updates, state = update(_as_fa(_grads(t), dtype), state, params)
        params = optim.apply_updates(params, updates)
        history.append(params)
    return history, state


def _assert_trees_close(got, want, rtol, atol=0.0):
    got_leaves, got_tree = fa.tree.flatten(got)
    want_leaves, want_tree = fa.tree.flatten(want)
    assert got_tree == want_tree
    for g, w in zip(got_leaves, want_leaves):
        np.testing.assert_allclose(np.asarray(g, np.float64), np.asarray(w, np.float64),
                                   rtol=rtol, atol=atol)


LINEAR = optim.linear_schedule(0.1, 0.01, transition_steps=3)
CASES = {
    "sgd": (lambda: optim.sgd(0.1), lambda: _np_sgd(_const(0.1))),
    "sgd_momentum": (lambda: optim.sgd(0.1, momentum=0.9),
                     lambda: _np_sgd(_const(0.1), 0.9)),
    "sgd_nesterov": (lambda: optim.sgd(0.05, momentum=0.8, nesterov=True),
                     lambda: _np_sgd(_const(0.05), 0.8, nesterov=True)),
    "sgd_schedule": (lambda: optim.sgd(LINEAR, momentum=0.5),
                     lambda: _np_sgd(lambda t: 0.1 + (0.01 - 0.1) * min(t, 3) / 3, 0.5)),
    "adam": (lambda: optim.adam(0.01), lambda: _np_adam(_const(0.01))),
    "adam_eps_root": (lambda: optim.adam(0.02, b1=0.5, b2=0.75, eps=1e-3, eps_root=1e-4),
                      lambda: _np_adam(_const(0.02), 0.5, 0.75, 1e-3, 1e-4)),
    "adamw": (lambda: optim.adamw(0.01, weight_decay=0.1),
              lambda: _np_adam(_const(0.01), weight_decay=0.1)),
    "rmsprop": (lambda: optim.rmsprop(0.01), lambda: _np_rmsprop(_const(0.01))),
    "rmsprop_centered_momentum": (
        lambda: optim.rmsprop(0.01, decay=0.8, eps=1e-4, initial_scale=1.0, centered=True,
                              momentum=0.9, nesterov=True),
        lambda: _np_rmsprop(_const(0.01), 0.8, 1e-4, 1.0, True, 0.9, True)),
    "adagrad": (lambda: optim.adagrad(0.1), lambda: _np_adagrad(_const(0.1))),
    "adagrad_zero_start": (lambda: optim.adagrad(0.1, initial_accumulator_value=0.0),
                           lambda: _np_adagrad(_const(0.1), 0.0)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_optimizer_follows_its_published_equations(case):
    make, reference = CASES[case]
    got, _ = _run(make())
    want = _run_reference(reference())
    # Schedules compute in float32 (as in optax: the count is int32), the rest in float64.
    rtol = 1e-6 if "schedule" in case else 1e-12
    for step in range(STEPS):
        _assert_trees_close(got[step], want[step], rtol=rtol, atol=1e-14)


@pytest.mark.parametrize("case", sorted(CASES))
def test_optimizer_update_step_compiles(case):
    make, reference = CASES[case]
    opt = make()
    eager, eager_state = _run(opt, steps=3, dtype=np.float32)
    jitted, jitted_state = _run(opt, steps=3, dtype=np.float32, update=compiled(opt.update))
    _assert_trees_close(jitted, eager, rtol=2e-5, atol=1e-6)
    # The state keeps its structure, dtypes and an int32 step count.
    assert fa.tree.structure(jitted_state) == fa.tree.structure(eager_state)
    for j, e in zip(fa.tree.leaves(jitted_state), fa.tree.leaves(eager_state)):
        assert j.dtype == e.dtype and j.shape == e.shape


def test_float32_and_bfloat16_parameters_keep_their_dtype():
    for dtype in (fnp.float32, fnp.bfloat16, fnp.float16):
        opt = optim.adamw(optim.cosine_decay_schedule(0.1, 10), weight_decay=0.1)
        history, state = _run(opt, steps=2, dtype=dtype)
        for leaf in fa.tree.leaves(history[-1]):
            assert leaf.dtype == dtype and not leaf.weak_type
        count = state[0].count
        assert count.dtype == np.int32 and int(count) == 2


def test_a_whole_training_step_jits_and_converges():
    target = fnp.asarray([1.0, -2.0, 3.0])
    opt = optim.chain(optim.clip_by_global_norm(10.0), optim.adam(0.1))

    def loss(p):
        return fnp.sum((p["x"] - target) ** 2)

    def train_step(params, state):
        grads = fa.grad(loss)(params)
        updates, state = opt.update(grads, state, params)
        return optim.apply_updates(params, updates), state

    params = {"x": fnp.zeros(3)}
    state = opt.init(params)
    step = compiled(train_step)
    for _ in range(300):
        params, state = step(params, state)
    np.testing.assert_allclose(np.asarray(params["x"]), np.asarray(target), atol=1e-2)


def test_update_vmaps_over_a_batch_of_problems():
    opt = optim.sgd(0.1, momentum=0.9)
    params = fnp.asarray(np.arange(6.0, dtype=np.float32).reshape(3, 2))
    grads = fnp.asarray(np.ones((3, 2), np.float32))
    states = fa.vmap(opt.init)(params)

    def step(g, s):
        return opt.update(g, s)

    updates, new_states = fa.vmap(step)(grads, states)
    for i in range(3):
        u, _ = opt.update(grads[i], opt.init(params[i]))
        assert_array_equal_typed(updates[i], np.asarray(u), rtol=1e-6)
    assert new_states[0].trace.shape == (3, 2)


# --- clip_by_global_norm, apply_updates, chain ------------------------------------------

@given(st.floats(0.1, 10.0), st.lists(st.floats(-5, 5), min_size=1, max_size=6))
def test_clip_by_global_norm_matches_the_formula(max_norm, values):
    tree = {"a": np.array(values[: len(values) // 2 + 1]), "b": np.array(values[len(values) // 2:])}
    norm = np.sqrt(sum(np.sum(v * v) for v in tree.values()))
    want = tree if norm < max_norm else {k: v * (max_norm / norm) for k, v in tree.items()}
    clip = optim.clip_by_global_norm(max_norm)
    got, _ = clip.update(_as_fa(tree, np.float64), clip.init(None))
    _assert_trees_close(got, want, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(float(optim.global_norm(_as_fa(tree, np.float64))), norm,
                               rtol=1e-12)


def test_apply_updates_keeps_parameter_dtypes_and_structure():
    params = {"i": fnp.asarray([1.0], fnp.bfloat16), "f": fnp.asarray([1.0, 2.0])}
    updates = {"i": fnp.asarray([0.5]), "f": fnp.asarray([0.25, 0.25], fnp.float64)}
    out = optim.apply_updates(params, updates)
    assert out["i"].dtype == fnp.bfloat16 and out["f"].dtype == fnp.float32
    assert_array_equal_typed(out["f"], np.array([1.25, 2.25], np.float32), rtol=0)
    with pytest.raises(ValueError, match="apply_updates: the updates/parameters/state trees"):
        optim.apply_updates(params, {"i": fnp.ones(1)})


def test_adamw_mask_selects_the_decayed_parameters():
    params = {"w": fnp.ones(2), "b": fnp.ones(2)}
    grads = {"w": fnp.zeros(2), "b": fnp.zeros(2)}
    for mask in ({"w": True, "b": False}, lambda p: {"w": True, "b": False}):
        opt = optim.adamw(1.0, weight_decay=0.5, mask=mask)
        updates, _ = opt.update(grads, opt.init(params), params)
        assert_array_equal_typed(updates["w"], np.full(2, -0.5, np.float32), rtol=1e-7)
        assert_array_equal_typed(updates["b"], np.zeros(2, np.float32), rtol=0)


# --- Schedules -----------------------------------------------------------------------------

def _np_schedules():
    """(schedule, NumPy formula) pairs, optax's definitions."""
    def poly(init, end, power, steps, begin=0):
        return lambda t: (init - end) * (1 - np.clip(t - begin, 0, steps) / steps) ** power + end

    def cosine(init, steps, alpha=0.0, exponent=1.0):
        return lambda t: init * ((1 - alpha) * (0.5 * (1 + np.cos(np.pi * min(t, steps)
                                                                  / steps))) ** exponent + alpha)

    def exp_decay(init, steps, rate, begin=0, staircase=False, end=None):
        def f(t):
            p = (t - begin) / steps
            p = np.floor(p) if staircase else p
            v = init if t - begin <= 0 else init * rate ** p
            if end is not None:
                v = max(v, end) if rate < 1 else min(v, end)
            return v
        return f

    def warmup_cosine(init, peak, warmup, decay, end):
        return lambda t: poly(init, peak, 1, warmup)(t) if t < warmup else cosine(
            peak, decay - warmup, end / peak)(t - warmup)

    return {
        "constant": (optim.constant_schedule(0.3), lambda t: 0.3),
        "linear": (optim.linear_schedule(1.0, 0.1, 8, transition_begin=3),
                   poly(1.0, 0.1, 1, 8, 3)),
        "polynomial": (optim.polynomial_schedule(2.0, 0.5, 3, 10), poly(2.0, 0.5, 3, 10)),
        "exponential": (optim.exponential_decay(1.0, 4, 0.5, transition_begin=2),
                        exp_decay(1.0, 4, 0.5, 2)),
        "exponential_staircase_end": (
            optim.exponential_decay(1.0, 3, 0.5, staircase=True, end_value=0.2),
            exp_decay(1.0, 3, 0.5, 0, True, 0.2)),
        "exponential_growth": (optim.exponential_decay(1.0, 5, 2.0, end_value=3.0),
                               exp_decay(1.0, 5, 2.0, end=3.0)),
        "cosine": (optim.cosine_decay_schedule(0.5, 12, alpha=0.1, exponent=2.0),
                   cosine(0.5, 12, 0.1, 2.0)),
        "warmup_cosine": (optim.warmup_cosine_decay_schedule(0.0, 1.0, 5, 20, end_value=0.1),
                          warmup_cosine(0.0, 1.0, 5, 20, 0.1)),
        "piecewise": (optim.piecewise_constant_schedule(1.0, {4: 0.5, 10: 0.1}),
                      lambda t: 1.0 * (0.5 if t >= 4 else 1) * (0.1 if t >= 10 else 1)),
    }


@pytest.mark.parametrize("name", sorted(_np_schedules()))
def test_schedules_match_their_formulas(name):
    schedule, formula = _np_schedules()[name]
    counts = list(range(25))
    got = [float(schedule(fnp.asarray(t, fnp.int32))) for t in counts]
    np.testing.assert_allclose(got, [formula(t) for t in counts], rtol=1e-6, atol=1e-7)
    # Python ints work too, and the schedule compiles with a traced count.
    assert abs(float(fnp.asarray(schedule(7))) - formula(7)) < 1e-6
    jitted = compiled(lambda c: fnp.asarray(schedule(c), fnp.float32))
    assert abs(float(jitted(fnp.asarray(7, fnp.int32))) - formula(7)) < 1e-6


# --- Errors --------------------------------------------------------------------------------

def test_hyperparameter_and_usage_errors():
    with pytest.raises(TypeError, match="sgd: learning_rate must be a real number"):
        optim.sgd("fast")
    with pytest.raises(ValueError, match=r"scale_by_adam: b1 must be in \[0.0, 1.0\]"):
        optim.adam(0.1, b1=1.5)
    with pytest.raises(TypeError, match="nesterov must be True or False"):
        optim.sgd(0.1, momentum=0.9, nesterov="yes")
    with pytest.raises(TypeError, match="chain: argument 0 is a function"):
        optim.chain(optim.adam)
    with pytest.raises(ValueError, match="add_decayed_weights: needs the current parameters"):
        opt = optim.adamw(0.1)
        opt.update(fnp.ones(2), opt.init(fnp.ones(2)))
    with pytest.raises(TypeError, match="scale_by_adam: expected a ScaleByAdamState"):
        optim.scale_by_adam().update(fnp.ones(2), optim.EmptyState())
    with pytest.raises(ValueError, match="trees do not match"):
        opt = optim.adam(0.1)
        opt.update({"a": fnp.ones(2)}, opt.init({"b": fnp.ones(2)}))
    with pytest.raises(ValueError, match="cosine_decay_schedule: decay_steps must be >= 1"):
        optim.cosine_decay_schedule(0.1, 0)
    with pytest.raises(ValueError, match="warmup_cosine_decay_schedule: decay_steps"):
        optim.warmup_cosine_decay_schedule(0.0, 1.0, 10, 10)
    with pytest.raises(ValueError, match="join_schedules: needs one more schedule"):
        optim.join_schedules([optim.constant_schedule(1.0)], [3])
    with pytest.raises(TypeError, match="mask leaves must be Python bools"):
        opt = optim.adamw(0.1, mask={"w": fnp.asarray(True)})
        opt.update({"w": fnp.ones(1)}, opt.init({"w": fnp.ones(1)}), {"w": fnp.ones(1)})


def test_optax_agrees():
    import jax.numpy as jnp
    for name, make_fa, make_optax in [
            ("adam", lambda: optim.adam(0.01), lambda: optax.adam(0.01)),
            ("rmsprop", lambda: optim.rmsprop(0.01, momentum=0.9),
             lambda: optax.rmsprop(0.01, momentum=0.9)),
            ("adagrad", lambda: optim.adagrad(0.1), lambda: optax.adagrad(0.1))]:
        got, _ = _run(make_fa(), steps=3)
        opt, params = make_optax(), fa.tree.map(jnp.asarray, _params())
        state = opt.init(params)
        for t in range(3):
            updates, state = opt.update(fa.tree.map(jnp.asarray, _grads(t)), state, params)
            params = optax.apply_updates(params, updates)
        _assert_trees_close(got[-1], params, rtol=1e-10, atol=1e-12)
