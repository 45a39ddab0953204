"""block_until_ready and device_get on every kind of pytree, as jax's, and their errors."""

import collections

import numpy as np
import pytest

import funcarray as fa
import funcarray.numpy as fnp

Pair = collections.namedtuple("Pair", "a b")


def _outputs():
    return fa.jit(lambda x: [x * 2, x + 1])(fnp.ones(3))


@pytest.mark.parametrize("make", [
    lambda outs, x: outs,
    lambda outs, x: tuple(outs),
    lambda outs, x: outs[0],
    lambda outs, x: {"a": outs, "b": (outs[0], None, 3, "s", np.ones(2), x)},
    lambda outs, x: Pair(outs[0], {"w": outs[1]}),
    lambda outs, x: [[[[[[[[[[[outs]]]]]]]]]]],
    lambda outs, x: {1: outs[0], "b": outs[1]},
    lambda outs, x: 5,
    lambda outs, x: None,
    lambda outs, x: x,
], ids=["list", "tuple", "one", "nested", "namedtuple", "deep", "mixed_keys", "int", "none",
        "host"])
def test_block_until_ready_returns_any_pytree_as_it_is(make):
    tree = make(_outputs(), fnp.ones(2))
    assert fa.block_until_ready(tree) is tree


def test_block_until_ready_leaves_tracers_alone():
    out = fa.jit(lambda x: fa.block_until_ready([x, {"y": x * 2}])[1]["y"])(fnp.ones(2))
    np.testing.assert_array_equal(np.asarray(out), np.full(2, 2.0, np.float32))


def test_block_until_ready_of_a_pytree_raises_what_the_array_method_raises():
    """A donated array's buffer is gone: waiting for it fails, in a pytree as on its own."""
    a, b = _outputs()
    assert a.block_until_ready() is a  # waited for once: once donated, waiting fails again
    fa.jit(lambda x: x * 2, donate_argnums=0)(a)
    with pytest.raises(Exception) as alone:
        a.block_until_ready()
    for tree in ([b, a], {"x": a, "y": b}, (a,)):
        with pytest.raises(type(alone.value)) as in_tree:
            fa.block_until_ready(tree)
        assert str(in_tree.value) == str(alone.value)
    assert fa.block_until_ready(b) is b


def test_device_get_of_one_device_array_is_its_numpy_value():
    out = _outputs()[0]
    got = fa.device_get(out)
    assert type(got) is np.ndarray
    np.testing.assert_array_equal(got, np.full(3, 2.0, np.float32))
    assert fa.device_get([out, 1])[1] == 1
