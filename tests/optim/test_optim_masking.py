"""optim.masked and optim.set_to_zero against optax's, step by step."""

import numpy as np
import optax
import pytest

import funcarray as fa
import funcarray.numpy as fnp
import funcarray.optim as optim

MASK = {"w": True, "b": False, "nested": [True, False]}


def _tree(seed):
    rng = np.random.default_rng(seed)
    return {"w": rng.normal(size=(3, 2)).astype(np.float32),
            "b": rng.normal(size=(2,)).astype(np.float32),
            "nested": [rng.normal(size=()).astype(np.float32),
                       rng.normal(size=(4,)).astype(np.float32)]}


def _run(opt, params, steps, wrap):
    state = opt.init(wrap(params))
    for step in range(steps):
        updates, state = opt.update(wrap(_tree(step + 1)), state, wrap(params))
        params = fa.tree.map(lambda p, u: np.asarray(p) + np.asarray(u), params, updates)
    return params, state


@pytest.mark.parametrize("mask_as", ["tree", "function"])
def test_masked_matches_optax(mask_as):
    mask = MASK if mask_as == "tree" else (lambda params: MASK)
    ours, state = _run(optim.masked(optim.adam(0.1), mask), _tree(0), 3,
                       lambda t: fa.tree.map(fnp.asarray, t))
    theirs, _ = _run(optax.masked(optax.adam(0.1), mask), _tree(0), 3, lambda t: t)
    for a, b in zip(fa.tree.leaves(ours), fa.tree.leaves(theirs), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    # The inner state covers the masked parameters only: adam's two moments of two leaves.
    assert len(fa.tree.leaves(state.inner_state)) == 1 + 2 * 2


def test_freezing_with_set_to_zero_matches_optax():
    frozen = fa.tree.map(lambda m: not m, MASK)
    ours, _ = _run(optim.chain(optim.masked(optim.sgd(0.5, momentum=0.9), MASK),
                               optim.masked(optim.set_to_zero(), frozen)), _tree(0), 3,
                   lambda t: fa.tree.map(fnp.asarray, t))
    theirs, _ = _run(optax.chain(optax.masked(optax.sgd(0.5, momentum=0.9), MASK),
                                 optax.masked(optax.set_to_zero(), frozen)), _tree(0), 3,
                     lambda t: t)
    for a, b in zip(fa.tree.leaves(ours), fa.tree.leaves(theirs), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    start = _tree(0)
    np.testing.assert_array_equal(ours["b"], start["b"])
    np.testing.assert_array_equal(ours["nested"][1], start["nested"][1])


def test_masked_jits_and_rejects_non_bool_masks():
    opt = optim.masked(optim.adam(0.1), MASK)
    params = fa.tree.map(fnp.asarray, _tree(0))
    state = opt.init(params)
    grads = fa.tree.map(fnp.asarray, _tree(1))
    eager = opt.update(grads, state, params)[0]
    jitted = fa.jit(opt.update)(grads, state, params)[0]
    for a, b in zip(fa.tree.leaves(eager), fa.tree.leaves(jitted), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    bad = optim.masked(optim.adam(0.1), {"w": 1, "b": 0, "nested": [1, 0]})
    with pytest.raises(TypeError, match="masked: mask leaves must be Python bools"):
        bad.init(params)
