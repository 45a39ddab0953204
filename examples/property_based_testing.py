"""Property-based testing of your own funcarray code with funcarray.testing and Hypothesis.

We write a numerically stable ``softplus`` with a custom derivative, then let Hypothesis throw
arrays of many shapes and dtypes at it, and check that grad, vmap and jit all agree with the
maths (finite differences, a Python loop, eager execution). Finally we plant a bug in the
derivative and watch the checker catch it and Hypothesis shrink the failing input.

Run: python examples/property_based_testing.py     (needs the test extra: hypothesis)
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import funcarray as fa
import funcarray.numpy as fnp
import funcarray.testing as ft

FEW = settings(max_examples=15, deadline=None, database=None)


def make_softplus(derivative_scale=1.0):
    """log(1 + exp(x)), computed without overflow, with a hand-written derivative (sigmoid).
    ``derivative_scale`` != 1 plants a bug in the derivative."""
    @fa.custom_jvp
    def softplus(x):
        return fnp.logaddexp(x, 0.0)

    @softplus.defjvp
    def _jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        sigmoid = 1.0 / (1.0 + fnp.exp(-x))
        return softplus(x), derivative_scale * sigmoid * t

    return softplus


softplus = make_softplus()
moderate = {"min_value": -20.0, "max_value": 20.0}


# 1. Plain properties: softplus is positive, above x, and keeps the input's dtype.
@FEW
@given(ft.arrays(ft.dtypes("floating"), ft.array_shapes(max_dims=3), elements=moderate))
def test_softplus_bounds(x):
    y = softplus(x)
    assert y.dtype == x.dtype and y.shape == x.shape
    y64, x64 = np.asarray(y, np.float64), np.asarray(x, np.float64)
    assert (y64 >= 0).all() and (y64 >= x64 - 1e-2 * (1 + abs(x64))).all()


# 2. Transform laws: derivatives (to second order), vmap, jit, jvp/vjp consistency.
@FEW
@given(ft.arrays("float64", ft.array_shapes(min_dims=1, max_dims=2, max_side=4),
                 elements=moderate))
def test_softplus_transforms(x):
    ft.check_transforms(softplus, (x,))


# 3. A two-argument function with broadcasting and a batch axis chosen by Hypothesis.
@FEW
@given(st.data())
def test_scaled_softplus_vmaps_over_any_axis(data):
    # Shapes that broadcast *per example*; the batch axis is then inserted into x's shape
    # (mapping an axis of an already-broadcastable shape could break its broadcasting).
    shapes = data.draw(ft.mutually_broadcastable_shapes(2, min_dims=0, max_dims=2))
    x_shape, w_shape = shapes.input_shapes
    axis = data.draw(st.integers(0, len(x_shape)))
    batch = data.draw(st.integers(1, 3))
    x = data.draw(ft.arrays("float32", x_shape[:axis] + (batch,) + x_shape[axis:],
                            elements=moderate))
    w = data.draw(ft.arrays("float32", w_shape, elements=moderate))
    ft.check_vmap(lambda x, w: softplus(x) * w, (x, w), in_axes=(axis, None))


# 4. No retracing: one compilation per input signature, however often we call.
def test_jit_compiles_once_per_signature():
    step = fa.jit(lambda x: softplus(x).sum())
    with ft.count_compiles(at_most=2):
        for n in (5, 5, 5, 6, 6):
            step(fnp.ones(n))


# 5. A planted bug: Hypothesis finds it and shrinks the input to something small.
def demonstrate_a_caught_bug():
    buggy = make_softplus(derivative_scale=1.1)

    @settings(max_examples=15, deadline=None, database=None, print_blob=False)
    @given(ft.arrays("float64", ft.array_shapes(max_dims=3), elements=moderate))
    def test_buggy_grads(x):
        ft.check_grads(buggy, (x,), order=1)

    try:
        test_buggy_grads()
    except AssertionError as err:
        print("caught the planted bug; the checker reports:")
        print("\n".join("    " + line for line in str(err).splitlines()[:6]))
        return True
    return False


def main():
    for test in (test_softplus_bounds, test_softplus_transforms,
                 test_scaled_softplus_vmaps_over_any_axis, test_jit_compiles_once_per_signature):
        test()
        print(f"passed: {test.__name__}")
    if not demonstrate_a_caught_bug():
        raise SystemExit("the planted bug went unnoticed")


if __name__ == "__main__":
    main()
