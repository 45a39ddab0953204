"""Conv and ConvTranspose layers against NumPy loops of PyTorch's definitions (values), jax's
convolution (gradients), under filter_jit and vmap; PyTorch's initialisation bounds."""

import itertools
import math

import jax
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from layer_checks import check, check_vmap, normal

import funcarray.nn as nn
import funcarray.numpy as fnp
from funcarray import random


def _conv_reference(x, w, b, stride, pads, dilation, groups):
    """PyTorch's Conv: out[o, p] = b[o] + sum_{c in o's group, k} w[o, c, k] *
    x_padded[c, p * stride + k * dilation]."""
    n = x.ndim - 1
    xp = np.pad(x.astype(np.float64), [(0, 0), *pads])
    out_c, in_per_group, *kernel = w.shape
    sizes = [(xp.shape[1 + a] - dilation[a] * (kernel[a] - 1) - 1) // stride[a] + 1
             for a in range(n)]
    out = np.zeros((out_c, *sizes))
    per_group = out_c // groups
    for o in range(out_c):
        channels = slice((o // per_group) * in_per_group, (o // per_group + 1) * in_per_group)
        for p in itertools.product(*map(range, sizes)):
            for k in itertools.product(*map(range, kernel)):
                where = tuple(p[a] * stride[a] + k[a] * dilation[a] for a in range(n))
                out[(o, *p)] += np.dot(w[(o, slice(None), *k)], xp[(channels, *where)])
    if b is not None:
        out += b.reshape((-1,) + (1,) * n)
    return out


def _conv_transpose_reference(x, w, b, stride, padding, output_padding, dilation, groups):
    """PyTorch's ConvTranspose as a scatter: input position i and tap k add
    x[c, i] * w[c, o, k] to out[o, i * stride + k * dilation - padding]."""
    n = x.ndim - 1
    in_c, out_per_group, *kernel = w.shape
    in_per_group = in_c // groups
    sizes = [(x.shape[1 + a] - 1) * stride[a] - 2 * padding[a] + dilation[a] * (kernel[a] - 1)
             + output_padding[a] + 1 for a in range(n)]
    out = np.zeros((out_per_group * groups, *sizes))
    for c in range(in_c):
        g = c // in_per_group
        for i in itertools.product(*(range(s) for s in x.shape[1:])):
            for k in itertools.product(*map(range, kernel)):
                where = tuple(i[a] * stride[a] + k[a] * dilation[a] - padding[a]
                              for a in range(n))
                if all(0 <= where[a] < sizes[a] for a in range(n)):
                    out[(slice(g * out_per_group, (g + 1) * out_per_group), *where)] += \
                        x[(c, *i)] * w[(c, slice(None), *k)]
    if b is not None:
        out += b.reshape((-1,) + (1,) * n)
    return out


def _jax_conv(layer):
    def conv(p, x):
        y = jax.lax.conv_general_dilated(x[None], p["weight"], layer.stride,
                                         layer.padding if isinstance(layer.padding, str)
                                         else list(layer.padding),
                                         rhs_dilation=layer.dilation,
                                         feature_group_count=layer.groups)[0]
        return y + p["bias"].reshape((-1,) + (1,) * layer.num_spatial_dims) if "bias" in p \
            else y
    return conv


@settings(max_examples=8, deadline=None)
@given(n=st.integers(1, 2), groups=st.sampled_from([1, 2]), kernel=st.integers(1, 3),
       stride=st.integers(1, 2), padding=st.integers(0, 2), dilation=st.integers(1, 2),
       use_bias=st.booleans())
def test_conv(n, groups, kernel, stride, padding, dilation, use_bias):
    layer = nn.Conv(n, 2 * groups, 2 * groups, kernel, stride, padding, dilation, groups,
                    use_bias, key=random.key(kernel))
    size = dilation * (kernel - 1) + 2
    x = normal(2 * groups, *(size,) * n)
    w, b = np.asarray(layer.weight), None if layer.bias is None else np.asarray(layer.bias)
    expected = _conv_reference(x, w, b, layer.stride, layer.padding, layer.dilation, groups)
    np.testing.assert_allclose(layer(x), expected, rtol=1e-5, atol=1e-5)
    check(layer, x, _jax_conv(layer), rtol=1e-5, atol=1e-5)
    check_vmap(layer, np.stack([x, x + 1]))


def test_conv_same_padding_modes_and_fixed_dims():
    layer = nn.Conv2d(3, 4, (3, 2), padding="SAME", key=random.key(0))
    x = normal(3, 5, 4)
    assert layer(x).shape == (4, 5, 4)
    check(layer, x, _jax_conv(layer), rtol=1e-5, atol=1e-5)
    for mode, numpy_mode in [("REFLECT", "reflect"), ("REPLICATE", "edge"),
                             ("CIRCULAR", "wrap")]:
        padded = nn.Conv1d(2, 3, 3, padding=2, padding_mode=mode, key=random.key(1))
        x = normal(2, 6)
        expected = _conv_reference(np.pad(x, [(0, 0), (2, 2)], mode=numpy_mode),
                                   np.asarray(padded.weight), np.asarray(padded.bias), (1,),
                                   ((0, 0),), (1,), 1)
        np.testing.assert_allclose(padded(x), expected, rtol=1e-5, atol=1e-5, err_msg=mode)
    assert nn.Conv3d(1, 2, 2, key=random.key(0))(fnp.ones((1, 3, 3, 3))).shape == (2, 2, 2, 2)


def test_conv_initialisation_and_errors():
    layer = nn.Conv2d(16, 32, 3, groups=2, key=random.key(0))
    bound = 1 / math.sqrt(16 // 2 * 9)  # PyTorch: fan_in = in_channels / groups * kernel
    w = np.asarray(layer.weight)
    assert w.shape == (32, 8, 3, 3) and np.abs(w).max() <= bound
    assert np.abs(w).max() > 0.95 * bound and np.abs(np.asarray(layer.bias)).max() <= bound
    assert [n for n, _ in nn.named_parameters(layer)] == ["weight", "bias"]
    with pytest.raises(ValueError, match=r"Conv2d: expected one example of shape "
                                         r"\(in_channels=16, 2 spatial axes\)"):
        layer(fnp.ones((2, 16, 5, 5)))
    with pytest.raises(ValueError, match="multiples of groups"):
        nn.Conv1d(3, 4, 2, groups=2, key=random.key(0))
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        nn.Conv1d(2, 2, 2, padding_mode="mirror", key=random.key(0))


@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 2), groups=st.sampled_from([1, 2]), kernel=st.integers(1, 3),
       stride=st.integers(1, 3), padding=st.integers(0, 2), dilation=st.integers(1, 2),
       output_padding=st.integers(0, 2), use_bias=st.booleans())
def test_conv_transpose(n, groups, kernel, stride, padding, dilation, output_padding,
                        use_bias):
    output_padding = min(output_padding, max(stride, dilation) - 1)
    assume(2 * stride - 2 * padding + dilation * (kernel - 1) + output_padding + 1 > 0)
    layer = nn.ConvTranspose(n, 2 * groups, 3 * groups, kernel, stride, padding,
                             output_padding, dilation, groups, use_bias, key=random.key(0))
    assert layer.weight.shape == (2 * groups, 3, *(kernel,) * n)
    x = normal(2 * groups, *(3,) * n)
    w, b = np.asarray(layer.weight), None if layer.bias is None else np.asarray(layer.bias)
    expected = _conv_transpose_reference(x, w, b, layer.stride, (padding,) * n,
                                         layer.output_padding, layer.dilation, groups)
    np.testing.assert_allclose(layer(x), expected, rtol=1e-5, atol=1e-5)
    check_vmap(layer, np.stack([x, -x]))


def test_conv_transpose_is_the_gradient_of_conv():
    # ConvTranspose's function is the transpose of Conv's linear map with the same weight.
    conv = nn.Conv1d(4, 6, 3, stride=2, padding=1, use_bias=False, key=random.key(0))
    up = nn.ConvTranspose1d(6, 4, 3, stride=2, padding=1, output_padding=1, use_bias=False,
                            key=random.key(1))
    up = nn.tree_at(lambda m: m.weight, up, replace=conv.weight)
    x, y = normal(4, 8), normal(6, 4)
    assert conv(x).shape == y.shape and up(y).shape == x.shape
    np.testing.assert_allclose(float(fnp.vdot(conv(x), y)), float(fnp.vdot(x, up(y))),
                               rtol=1e-5)
    bound = 1 / math.sqrt(4 * 3)  # PyTorch's fan_in of a transposed weight: out_channels * k
    assert np.abs(np.asarray(nn.ConvTranspose1d(6, 4, 3, key=random.key(2)).weight)).max() \
        <= bound
    with pytest.raises(ValueError, match="output_padding"):
        nn.ConvTranspose1d(2, 2, 3, stride=1, output_padding=1, key=random.key(0))
