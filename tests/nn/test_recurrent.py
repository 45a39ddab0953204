"""GRUCell and LSTMCell against jax.numpy formulas of PyTorch's definitions (values and
gradients, filter_jit, vmap), over a sequence with lax.scan, and PyTorch's initialisation."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from layer_checks import check, check_vmap, normal

import funcarray as fa
import funcarray.nn as nn
import funcarray.numpy as fnp
from funcarray import random


class _Step(nn.Module):
    """One step of a cell from a fixed state, as a function of the input, for check."""

    cell: nn.Module
    state: tuple

    def __call__(self, x, *, key=None):
        out = self.cell(x, self.state[0] if len(self.state) == 1 else self.state)
        return fnp.concatenate(out) if isinstance(out, tuple) else out


def _jax_gru(p, x, prefix="cell."):
    h = p["state.0"]
    gi = p[f"{prefix}weight_ih"] @ x + p[f"{prefix}bias_ih"]
    gh = p[f"{prefix}weight_hh"] @ h + p[f"{prefix}bias_hh"]
    (ir, iz, in_), (hr, hz, hn) = gi.reshape(3, -1), gh.reshape(3, -1)
    r, z = jax.nn.sigmoid(ir + hr), jax.nn.sigmoid(iz + hz)
    n = jnp.tanh(in_ + r * hn)
    return (1 - z) * n + z * h


def _jax_lstm(p, x, prefix="cell."):
    h, c = p["state.0"], p["state.1"]
    gates = (p[f"{prefix}weight_ih"] @ x + p[f"{prefix}bias_ih"]
             + p[f"{prefix}weight_hh"] @ h + p[f"{prefix}bias_hh"]).reshape(4, -1)
    i, f, g, o = (jax.nn.sigmoid(gates[0]), jax.nn.sigmoid(gates[1]), jnp.tanh(gates[2]),
                  jax.nn.sigmoid(gates[3]))
    c = f * c + i * g
    return jnp.concatenate([o * jnp.tanh(c), c])


def test_gru_cell():
    cell = nn.GRUCell(3, 4, key=random.key(0))
    assert [(n, p.shape) for n, p in nn.named_parameters(cell)] == [
        ("weight_ih", (12, 3)), ("weight_hh", (12, 4)), ("bias_ih", (12,)), ("bias_hh", (12,))]
    step = _Step(cell, (fnp.asarray(normal(4)),))
    check(step, normal(3), _jax_gru, rtol=1e-5, atol=1e-6)
    check_vmap(step, normal(5, 3))


def test_lstm_cell():
    cell = nn.LSTMCell(3, 4, key=random.key(1))
    assert cell.weight_ih.shape == (16, 3) and cell.bias_hh.shape == (16,)
    step = _Step(cell, (fnp.asarray(normal(4)), fnp.asarray(normal(4))))
    check(step, normal(3), _jax_lstm, rtol=1e-5, atol=1e-6)
    check_vmap(step, normal(5, 3))


def test_cells_without_bias_and_initialisation():
    cell = nn.GRUCell(2, 100, use_bias=False, key=random.key(0))
    assert cell.bias_ih is None and [n for n, _ in nn.named_parameters(cell)] == [
        "weight_ih", "weight_hh"]
    w = np.asarray(cell.weight_hh)
    bound = 1 / math.sqrt(100)  # PyTorch: U(-1/sqrt(hidden), 1/sqrt(hidden)) everywhere
    assert np.abs(w).max() <= bound and abs(w.std() - bound / math.sqrt(3)) < 0.03 * bound
    h = cell(fnp.ones(2), fnp.zeros(100))
    zero_bias = nn.tree_at(lambda m: (m.bias_ih, m.bias_hh), nn.GRUCell(2, 100, key=random.key(0)),
                           replace=(fnp.zeros(300), fnp.zeros(300)))
    zero_bias = nn.tree_at(lambda m: (m.weight_ih, m.weight_hh), zero_bias,
                           replace=(cell.weight_ih, cell.weight_hh))
    np.testing.assert_allclose(h, zero_bias(fnp.ones(2), fnp.zeros(100)), rtol=1e-6)
    with pytest.raises(ValueError, match=r"GRUCell: expected an input of shape \(2,\) and a "
                                         r"hidden state of shape \(100,\)"):
        cell(fnp.ones(3), fnp.zeros(100))


def test_lstm_over_a_sequence_with_scan():
    cell = nn.LSTMCell(2, 3, key=random.key(2))
    xs = normal(6, 2)
    init = (fnp.zeros(3), fnp.zeros(3))

    def run(cell, xs):
        def body(carry, x):
            carry = cell(x, carry)
            return carry, carry[0]
        return fa.lax.scan(body, init, xs)[1]

    outputs = run(cell, xs)
    state, expected = init, []
    for x in xs:  # a Python loop of steps
        state = cell(x, state)
        expected.append(state[0])
    np.testing.assert_allclose(outputs, np.stack(expected), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(nn.filter_jit(run)(cell, xs), outputs, rtol=1e-5, atol=1e-6)
    # The gradient through the scan matches jax's through a loop of the same formula.
    params = {f"cell.{n}": np.asarray(p) for n, p in nn.named_parameters(cell)}

    def jax_loss(p):
        h, c, total = jnp.zeros(3), jnp.zeros(3), 0.0
        for x in xs:
            out = _jax_lstm({**p, "state.0": h, "state.1": c}, x)
            h, c = out[:3], out[3:]
            total = total + jnp.sum(h ** 2)
        return total

    grads = nn.filter_grad(lambda m: fnp.sum(run(m, xs) ** 2))(cell)
    want = jax.jit(jax.grad(jax_loss))(params)
    for name, g in nn.named_parameters(grads):
        np.testing.assert_allclose(g, want[f"cell.{name}"], rtol=1e-4, atol=1e-6, err_msg=name)
