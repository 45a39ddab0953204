"""``GRUCell`` and ``LSTMCell``: one step of a recurrent network (run a sequence with
``funcarray.lax.scan``)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from funcarray import numpy as fnp
from funcarray import random
from funcarray.api.arguments import asarray_arg
from funcarray.base import dtypes
from funcarray.base.errors import op_value_error
from funcarray.nn._activations import sigmoid
from funcarray.nn._module import Module, field

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike, DTypeLike
    from funcarray.random._keys import KeyArrayLike

__all__ = ["GRUCell", "LSTMCell"]


def _uniform(key, shape, hidden_size, dtype):
    """PyTorch's recurrent initialisation: every weight and bias uniform in
    ``(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``."""
    bound = 1.0 / math.sqrt(hidden_size)
    return random.uniform(key, shape, dtype, minval=-bound, maxval=bound)


class _Cell(Module):
    """The weights of a gated cell with ``gates`` gates, PyTorch's names and layouts:
    ``weight_ih`` (gates * hidden, input), ``weight_hh`` (gates * hidden, hidden), biases
    ``bias_ih`` and ``bias_hh`` (gates * hidden,), None without ``use_bias``."""

    weight_ih: Array
    weight_hh: Array
    bias_ih: Array | None
    bias_hh: Array | None
    input_size: int = field(static=True)
    hidden_size: int = field(static=True)

    _gates = 1

    def __init__(self, input_size: int, hidden_size: int, use_bias: bool = True, *,
                 dtype: DTypeLike | None = None, key: KeyArrayLike):
        dtype = dtypes.float32 if dtype is None else dtype
        rows = self._gates * hidden_size
        k1, k2, k3, k4 = random.split(key, 4)
        self.weight_ih = _uniform(k1, (rows, input_size), hidden_size, dtype)
        self.weight_hh = _uniform(k2, (rows, hidden_size), hidden_size, dtype)
        self.bias_ih = _uniform(k3, (rows,), hidden_size, dtype) if use_bias else None
        self.bias_hh = _uniform(k4, (rows,), hidden_size, dtype) if use_bias else None
        self.input_size, self.hidden_size = int(input_size), int(hidden_size)

    def _projections(self, x, h):
        op = type(self).__name__
        x, h = asarray_arg(op, x), asarray_arg(op, h)
        if x.shape != (self.input_size,) or h.shape != (self.hidden_size,):
            raise op_value_error(op, f"expected an input of shape ({self.input_size},) and a "
                                     f"hidden state of shape ({self.hidden_size},), got "
                                     f"{tuple(x.shape)} and {tuple(h.shape)}; batches go "
                                     "through funcarray.vmap")
        gi, gh = self.weight_ih @ x, self.weight_hh @ h
        if self.bias_ih is not None:
            gi = gi + self.bias_ih
        if self.bias_hh is not None:
            gh = gh + self.bias_hh
        return gi.reshape((self._gates, self.hidden_size)), gh.reshape(
            (self._gates, self.hidden_size))


class GRUCell(_Cell):
    """One step of a gated recurrent unit, PyTorch's ``nn.GRUCell`` (gates in the order
    reset, update, new):

        r = sigmoid(W_ir x + b_ir + W_hr h + b_hr)
        z = sigmoid(W_iz x + b_iz + W_hz h + b_hz)
        n = tanh(W_in x + b_in + r * (W_hn h + b_hn))
        h' = (1 - z) * n + z * h

    Called as ``cell(x, h)`` on one example, it returns ``h'``. Initialised as PyTorch's:
    every weight and bias uniform in ``(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp, funcarray.random as random
        >>> cell = nn.GRUCell(3, 5, key=random.key(0))
        >>> cell.weight_ih.shape, cell(fnp.ones(3), fnp.zeros(5)).shape
        ((15, 3), (5,))
    """

    _gates = 3

    def __call__(self, input: ArrayLike, hidden: ArrayLike, *,  # noqa: A002 (Equinox's)
                 key: KeyArrayLike | None = None) -> Array:
        (ir, iz, in_), (hr, hz, hn) = self._projections(input, hidden)
        r, z = sigmoid(ir + hr), sigmoid(iz + hz)
        n = fnp.tanh(in_ + r * hn)
        return (1 - z) * n + z * hidden


class LSTMCell(_Cell):
    """One step of a long short-term memory, PyTorch's ``nn.LSTMCell`` (gates in the order
    input, forget, cell, output):

        i, f, o = sigmoid of (W_i* x + b_i* + W_h* h + b_h*)
        g = tanh(W_ig x + b_ig + W_hg h + b_hg)
        c' = f * c + i * g;  h' = o * tanh(c')

    Called as ``cell(x, (h, c))`` on one example, it returns ``(h', c')``. Initialised as
    PyTorch's: every weight and bias uniform in ``(-1/sqrt(hidden_size),
    1/sqrt(hidden_size))``.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp, funcarray.random as random
        >>> cell = nn.LSTMCell(3, 5, key=random.key(0))
        >>> h, c = cell(fnp.ones(3), (fnp.zeros(5), fnp.zeros(5)))
        >>> cell.weight_hh.shape, h.shape, c.shape
        ((20, 5), (5,), (5,))
    """

    _gates = 4

    def __call__(self, input: ArrayLike, hidden: tuple[ArrayLike, ArrayLike], *,  # noqa: A002
                 key: KeyArrayLike | None = None) -> tuple[Array, Array]:
        h, c = hidden
        (ii, if_, ig, io), (hi, hf, hg, ho) = self._projections(input, h)
        i, f, o = sigmoid(ii + hi), sigmoid(if_ + hf), sigmoid(io + ho)
        g = fnp.tanh(ig + hg)
        c = f * c + i * g
        return o * fnp.tanh(c), c
